/* The per-thread PassContext stack (pass.h): enter, exit, the current
 * context (the innermost entered one, else the thread's default context)
 * and the replacement of a context's instruments. Each thread's stack and
 * default context live in a block freed by a pthread key destructor when
 * the thread exits, so sanitizers see no leak. Contexts still entered when
 * their thread exits are released without running exit hooks. */
#include <pthread.h>

#include "irm_internal.h"
#include "context_impl.h"
#include "irm/alloc.h"
#include "irm/error.h"

typedef struct thread_stack {
  irm_object **items; /* entered contexts, innermost last; each retained */
  size_t n, cap;
  irm_object *default_ctx; /* made on first use */
} thread_stack;

static pthread_key_t stack_key;
static pthread_once_t stack_once = PTHREAD_ONCE_INIT;
static _Thread_local thread_stack *tls_stack;

static void stack_destroy(void *data) {
  thread_stack *s = data;
  if (!s) return;
  tls_stack = NULL;
  while (s->n) irm_object_release(s->items[--s->n]);
  irm_free(s->items);
  irm_object_release(s->default_ctx);
  irm_free(s);
}

static void stack_key_create(void) { (void)pthread_key_create(&stack_key, stack_destroy); }

/* The calling thread's stack, made on first use; NULL (MemoryError set)
 * when out of memory. */
static thread_stack *stack_get(void) {
  if (tls_stack) return tls_stack;
  pthread_once(&stack_once, stack_key_create);
  thread_stack *s = irm_calloc(1, sizeof *s);
  if (!s) {
    (void)irm_error_nomem_("making the PassContext stack");
    return NULL;
  }
  if (pthread_setspecific(stack_key, s) != 0) {
    irm_free(s);
    (void)irm_error_nomem_("making the PassContext stack");
    return NULL;
  }
  tls_stack = s;
  return s;
}

static int push(thread_stack *s, irm_object *ctx) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 8;
    irm_object **grown = irm_realloc(s->items, cap * sizeof *grown);
    if (!grown) return irm_error_nomem_("entering a PassContext");
    s->items = grown;
    s->cap = cap;
  }
  irm_object_retain(ctx);
  s->items[s->n++] = ctx;
  return IRM_OK;
}

/* ---- enter and exit ---------------------------------------------------------------- */

/* Pushing failed after the enter hooks ran: exit the instruments again,
 * keeping the MemoryError as the error reported. */
static void exit_after_failed_push(irm_pass_context *ctx) {
  char *text = irm_strdup(irm_last_error());
  (void)irm_context_exit_instruments_(ctx);
  if (text) irm_set_last_error(text);
  irm_free(text);
}

int irm_pass_context_enter(irm_pass_context *ctx) {
  if (!irm_context_payload_(ctx)) return irm_context_type_error_("irm_pass_context_enter", ctx);
  if (!stack_get()) return IRM_ENOMEM;
  int rc = irm_context_enter_instruments_(ctx);
  if (rc) return rc;
  /* Read the stack again: a hook may have used it (same block, maybe grown). */
  rc = push(stack_get(), ctx);
  if (rc) {
    exit_after_failed_push(ctx);
    return rc;
  }
  return IRM_OK;
}

int irm_pass_context_exit(irm_pass_context *ctx) {
  if (!irm_context_payload_(ctx)) return irm_context_type_error_("irm_pass_context_exit", ctx);
  thread_stack *s = tls_stack;
  if (!s || s->n == 0)
    return irm_error(IRM_ERUNTIME, "exiting a PassContext that was not entered: this thread's stack is empty");
  if (s->items[s->n - 1] != ctx)
    return irm_error(IRM_ERUNTIME,
                     "exiting a PassContext that is not the innermost entered one (%zu entered); exit "
                     "contexts in the reverse order of entering them",
                     s->n);
  s->n--; /* our reference, released after the exit hooks */
  int rc = irm_context_exit_instruments_(ctx);
  irm_object_release(ctx);
  return rc;
}

int irm_pass_context_current(irm_pass_context **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_context_current: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  thread_stack *s = stack_get();
  if (!s) return IRM_ENOMEM;
  if (s->n) {
    *out = s->items[s->n - 1];
    irm_object_retain(*out);
    return IRM_OK;
  }
  if (!s->default_ctx) {
    rc = irm_pass_context_new(2, NULL, NULL, NULL, NULL, &s->default_ctx);
    if (rc) return rc;
  }
  *out = s->default_ctx;
  irm_object_retain(*out);
  return IRM_OK;
}

/* ---- replacing instruments --------------------------------------------------------------- */

int irm_pass_context_override_instruments(irm_pass_context *ctx, const irm_object *instruments) {
  if (!irm_context_payload_(ctx)) return irm_context_type_error_("irm_pass_context_override_instruments", ctx);
  /* Check the new list first by making a throwaway context with it. */
  irm_object *probe = NULL;
  int rc = irm_pass_context_new(0, NULL, NULL, NULL, instruments, &probe);
  if (rc) return irm_error_context(rc, "overriding instruments");
  irm_object *list = irm_context_instruments_(probe);
  irm_object_release(probe);
  /* TVM: exit the old instruments, install the new ones, enter them. */
  rc = irm_context_exit_instruments_(ctx);
  if (rc) {
    irm_object_release(list);
    return rc;
  }
  rc = irm_context_set_instruments_(ctx, list);
  return rc ? rc : irm_context_enter_instruments_(ctx);
}
