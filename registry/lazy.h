/* Private to libirm: one-time initialization that can fail and be retried.
 *
 * pthread_once cannot report failure: if built-in registrations run out of
 * memory, the registry would stay without them for good. irm_lazy runs its
 * init function until it succeeds once; init must be safe to run again
 * after a partial failure (skip what is already there). */
#ifndef IRM_REGISTRY_LAZY_H
#define IRM_REGISTRY_LAZY_H

#include <pthread.h>
#include <stdatomic.h>

typedef struct irm_lazy {
  atomic_int done;
  pthread_mutex_t lock;
} irm_lazy;

#define IRM_LAZY_INIT {0, PTHREAD_MUTEX_INITIALIZER}

/* Runs init unless it has succeeded before; its status otherwise 0. init
 * runs with the registration journal paused and under l's mutex. A call on
 * the same l from inside init (on the same thread) returns 0 at once, so
 * built-in registrations may use the public registry functions. */
int irm_lazy_run_slow_(irm_lazy *l, int (*init)(void));

static inline int irm_lazy_run(irm_lazy *l, int (*init)(void)) {
  if (__builtin_expect(atomic_load_explicit(&l->done, memory_order_acquire), 1)) return 0;
  return irm_lazy_run_slow_(l, init);
}

#endif
