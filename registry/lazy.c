/* Retryable one-time initialization (see lazy.h). */
#include "lazy.h"

#include "journal_internal.h"

/* The inits running on this thread, innermost last: a registration made
 * by an init may reach its own lazy again. */
enum { MAX_NESTED = 16 };
static _Thread_local irm_lazy *running[MAX_NESTED];
static _Thread_local int n_running;

static int is_running(const irm_lazy *l) {
  for (int i = 0; i < n_running; i++)
    if (running[i] == l) return 1;
  return 0;
}

int irm_lazy_run_slow_(irm_lazy *l, int (*init)(void)) {
  if (is_running(l) || n_running == MAX_NESTED) return 0;
  int rc = 0;
  pthread_mutex_lock(&l->lock);
  if (!atomic_load_explicit(&l->done, memory_order_relaxed)) {
    /* Built-ins belong to the process, not to a journal the caller has
     * open: a rollback must never remove them. */
    running[n_running++] = l;
    irm_journal_pause_();
    rc = init();
    irm_journal_resume_();
    n_running--;
    if (rc == 0) atomic_store_explicit(&l->done, 1, memory_order_release);
  }
  pthread_mutex_unlock(&l->lock);
  return rc;
}
