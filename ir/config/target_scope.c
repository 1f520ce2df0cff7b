/* The per-thread target scope (target.h): TVM's `with Target(...)`. Each
 * thread's stack lives in a block freed by a pthread key destructor when the
 * thread exits, so sanitizers see no leak; targets still entered then are
 * released. */
#include <pthread.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"
#include "target_internal.h"

typedef struct scope_stack {
  irm_object **items; /* entered targets, innermost last; each retained */
  size_t n, cap;
} scope_stack;

static pthread_key_t scope_key;
static pthread_once_t scope_once = PTHREAD_ONCE_INIT;
static _Thread_local scope_stack *tls_scope;

static void scope_destroy(void *data) {
  scope_stack *s = data;
  if (!s) return;
  tls_scope = NULL;
  while (s->n) irm_object_release(s->items[--s->n]);
  irm_free(s->items);
  irm_free(s);
}

static void scope_key_create(void) { (void)pthread_key_create(&scope_key, scope_destroy); }

/* The calling thread's stack, made on first use; NULL (MemoryError set)
 * when out of memory. */
static scope_stack *scope_get(void) {
  if (tls_scope) return tls_scope;
  pthread_once(&scope_once, scope_key_create);
  scope_stack *s = irm_calloc(1, sizeof *s);
  if (!s || pthread_setspecific(scope_key, s) != 0) {
    irm_free(s);
    (void)irm_error_nomem_("making the target scope");
    return NULL;
  }
  tls_scope = s;
  return s;
}

static int not_a_target(const char *fn, const irm_object *t) {
  return irm_error(IRM_ETYPE, "%s: expected %s, got %s", fn, IRM_TARGET_TYPE_KEY, t ? irm_object_type_key(t) : "NULL");
}

int irm_target_enter_scope(irm_target *t) {
  if (!irm_is_target(t)) return not_a_target("irm_target_enter_scope", t);
  scope_stack *s = scope_get();
  if (!s) return IRM_ENOMEM;
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 4;
    irm_object **grown = irm_realloc(s->items, cap * sizeof *grown);
    if (!grown) return irm_error_nomem_("entering a target scope");
    s->items = grown;
    s->cap = cap;
  }
  irm_object_retain(t);
  s->items[s->n++] = t;
  return IRM_OK;
}

int irm_target_exit_scope(irm_target *t) {
  if (!irm_is_target(t)) return not_a_target("irm_target_exit_scope", t);
  scope_stack *s = tls_scope;
  if (!s || s->n == 0)
    return irm_error(IRM_ERUNTIME,
                     "exiting the scope of target '%s', which was not entered: this thread's target "
                     "scope is empty",
                     irm_target_kind_name(t));
  if (s->items[s->n - 1] != t)
    return irm_error(IRM_ERUNTIME,
                     "exiting the scope of target '%s', which is not the innermost one (target '%s' "
                     "is); exit scopes in the reverse order of entering them",
                     irm_target_kind_name(t), irm_target_kind_name(s->items[s->n - 1]));
  irm_object_release(s->items[--s->n]);
  return IRM_OK;
}

int irm_target_current(irm_target **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_current: out must not be NULL");
  scope_stack *s = tls_scope; /* no stack yet: nothing entered */
  *out = s && s->n ? s->items[s->n - 1] : NULL;
  irm_object_retain(*out);
  return IRM_OK;
}
