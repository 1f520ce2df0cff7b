/* Home-thread guard of foreign packed functions (irm_func_new_packed_guarded):
 * a function made by a language whose callbacks only run on one thread
 * refuses calls from other threads while that thread is blocked in irm,
 * and defers its finalizer when it dies there meanwhile. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "error_internal.h"
#include "irm/c_api.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/object.h"

typedef struct guard {
  irm_packed_cfunc fn;
  void *resource;
  void (*finalizer)(void *);
  volatile int32_t *home_state; /* [0] busy, [1] deferred finalizers */
  const void *home;             /* the making thread's identity */
  irm_object *self;             /* borrowed: the guard lives inside it */
  struct guard *next;           /* in the deferred list */
} guard;

/* A thread's identity: the address of its own thread-local byte. */
static _Thread_local char thread_marker;
static const void *this_thread(void) { return &thread_marker; }

/* Finalizers deferred by other threads, pushed lock-free. */
static _Atomic(guard *) deferred;

static void push_deferred(guard *g) {
  guard *head = atomic_load_explicit(&deferred, memory_order_relaxed);
  do g->next = head;
  while (!atomic_compare_exchange_weak_explicit(&deferred, &head, g, memory_order_release, memory_order_relaxed));
}

__attribute__((noinline, cold)) static int refuse(const guard *g, irm_any *ret) {
  *ret = irm_any_none();
  return irm_error(IRM_ERUNTIME,
                   "function '%s' belongs to the thread that made it, which is blocked in a call "
                   "into irm: calling it from another thread now would deadlock; make that blocking "
                   "call from a worker thread (in Node, with koffi's .async), or keep this function "
                   "out of the other thread",
                   irm_error_quote(irm_func_name(g->self)));
}

static int guarded_call(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const guard *g = resource;
  if (__builtin_expect(g->home != this_thread(), 0) && __atomic_load_n(&g->home_state[0], __ATOMIC_ACQUIRE) != 0)
    return refuse(g, ret);
  return g->fn(args, nargs, ret, g->resource);
}

static void finish(guard *g) {
  if (g->finalizer) g->finalizer(g->resource);
  free(g);
}

static void guarded_free(void *resource) {
  guard *g = resource;
  if (g->home != this_thread() && g->finalizer && __atomic_load_n(&g->home_state[0], __ATOMIC_ACQUIRE) != 0) {
    push_deferred(g);
    __atomic_add_fetch(&g->home_state[1], 1, __ATOMIC_RELEASE);
    return;
  }
  finish(g);
}

int irm_func_new_packed_guarded(irm_packed_cfunc fn, void *resource, void (*finalizer)(void *),
                                volatile int32_t *home_state, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_func_new_packed_guarded: out must not be NULL");
  *out = NULL;
  if (!fn || !home_state)
    return irm_error(IRM_EVALUE, "irm_func_new_packed_guarded: %s must not be NULL", fn ? "home_state" : "fn");
  guard *g = malloc(sizeof *g);
  if (!g) return irm_error(IRM_ENOMEM, "irm_func_new_packed_guarded: out of memory");
  *g = (guard){fn, resource, finalizer, home_state, this_thread(), NULL, NULL};
  int rc = irm_func_new_packed(guarded_call, g, guarded_free, out);
  if (rc) {
    free(g);
    return rc;
  }
  g->self = *out;
  return IRM_OK;
}

int irm_func_run_deferred_finalizers(void) {
  guard *list = atomic_exchange_explicit(&deferred, NULL, memory_order_acquire);
  int ran = 0;
  while (list) {
    guard *g = list;
    list = g->next;
    if (g->home == this_thread()) {
      __atomic_sub_fetch(&g->home_state[1], 1, __ATOMIC_RELEASE);
      finish(g);
      ran++;
      continue;
    }
    push_deferred(g);
  }
  return ran;
}
