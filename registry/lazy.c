/* Retryable one-time initialization (see lazy.h). */
#include "lazy.h"

#include "journal_internal.h"

int irm_lazy_run_slow_(irm_lazy *l, int (*init)(void)) {
  int rc = 0;
  pthread_mutex_lock(&l->lock);
  if (!atomic_load_explicit(&l->done, memory_order_relaxed)) {
    /* Built-ins belong to the process, not to a journal the caller has
     * open: a rollback must never remove them. */
    irm_journal_pause_();
    rc = init();
    irm_journal_resume_();
    if (rc == 0) atomic_store_explicit(&l->done, 1, memory_order_release);
  }
  pthread_mutex_unlock(&l->lock);
  return rc;
}
