/* The warning handler and the once-per-process warning set. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "irm/error.h"
#include "uthash_irm.h"

typedef struct once_key {
  UT_hash_handle hh;
  char key[];
} once_key;

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static irm_warning_handler warn_handler;
static void *warn_user_data;
static once_key *warned; /* keys irm_warn_once has emitted */

static void default_handler(const char *msg, void *user_data) {
  (void)user_data;
  fprintf(stderr, "irm: warning: %s\n", msg);
}

void irm_set_warning_handler(irm_warning_handler handler, void *user_data) {
  pthread_mutex_lock(&warn_lock);
  warn_handler = handler;
  warn_user_data = user_data;
  pthread_mutex_unlock(&warn_lock);
}

/* Formats and delivers one warning; the handler runs without the lock.
 * IRM_ENOMEM, delivering nothing, when a long text cannot be allocated: a
 * cut text would lose what the warning is about. Sets no error message, so
 * callers may warn while reporting another error. */
static int vwarn(const char *fmt, va_list ap) {
  char small[512];
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap2);
  va_end(ap2);
  char *msg = small;
  if (n >= (int)sizeof small) {
    msg = irm_malloc((size_t)n + 1);
    if (!msg) return IRM_ENOMEM;
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
  }
  pthread_mutex_lock(&warn_lock);
  irm_warning_handler h = warn_handler ? warn_handler : default_handler;
  void *ud = warn_user_data;
  pthread_mutex_unlock(&warn_lock);
  h(msg, ud);
  if (msg != small) irm_free(msg);
  return IRM_OK;
}

int irm_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = vwarn(fmt, ap);
  va_end(ap);
  return rc;
}

/* Remembers key; 1 when it is new, 0 when seen before, -1 when out of
 * memory. */
static int remember_key(const char *key) {
  size_t len = strlen(key);
  int irm_hash_oom = 0;
  int added = 0;
  pthread_mutex_lock(&warn_lock);
  once_key *k = NULL;
  HASH_FIND(hh, warned, key, len, k);
  if (!k) {
    added = -1;
    k = irm_malloc(sizeof *k + len + 1);
    if (k) {
      memcpy(k->key, key, len + 1);
      HASH_ADD(hh, warned, key[0], len, k);
      if (irm_hash_oom)
        irm_free(k);
      else
        added = 1;
    }
  }
  pthread_mutex_unlock(&warn_lock);
  return added;
}

static void forget_key(const char *key) {
  once_key *k = NULL;
  pthread_mutex_lock(&warn_lock);
  HASH_FIND(hh, warned, key, strlen(key), k);
  if (k) HASH_DEL(warned, k);
  pthread_mutex_unlock(&warn_lock);
  irm_free(k);
}

/* A key that cannot be remembered (out of memory) still warns: a warning
 * given twice is better than one never given. */
int irm_warn_once(const char *key, const char *fmt, ...) {
  int added = key ? remember_key(key) : 0;
  if (!added) return 0;
  va_list ap;
  va_start(ap, fmt);
  int rc = vwarn(fmt, ap);
  va_end(ap);
  if (rc && added == 1) forget_key(key); /* not delivered: may warn later */
  return rc ? rc : 1;
}

void irm_warn_once_reset(void) {
  pthread_mutex_lock(&warn_lock);
  once_key *k, *tmp;
  HASH_ITER(hh, warned, k, tmp) {
    HASH_DEL(warned, k);
    irm_free(k);
  }
  pthread_mutex_unlock(&warn_lock);
}
