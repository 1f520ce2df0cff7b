/* The warning handler, the warnings policy (IRM_WARNINGS) and the
 * once-per-process warning set. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm/error.h"
#include "irm_internal.h"
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
  if (strncmp(msg, IRM_DEPRECATION_PREFIX, strlen(IRM_DEPRECATION_PREFIX)) == 0) fprintf(stderr, "irm: %s\n", msg);
  else fprintf(stderr, "irm: warning: %s\n", msg);
}

/* ---- the policy ---------------------------------------------------------- */

enum { POLICY_UNSET = -1 };
static atomic_int policy = POLICY_UNSET;

void irm_set_warnings_policy(irm_warnings_policy p) {
  if (p < IRM_WARNINGS_DEFAULT || p > IRM_WARNINGS_ERROR) p = IRM_WARNINGS_DEFAULT;
  atomic_store(&policy, (int)p);
}

static int deliver(const char *msg);

/* The first read takes IRM_WARNINGS; a value it does not know is itself
 * worth one warning, since the user meant something by it. */
irm_warnings_policy irm_warnings_policy_current(void) {
  int p = atomic_load(&policy);
  if (p != POLICY_UNSET) return (irm_warnings_policy)p;
  const char *env = getenv("IRM_WARNINGS");
  int from_env = IRM_WARNINGS_DEFAULT, unknown = 0;
  if (env && strcmp(env, "error") == 0) from_env = IRM_WARNINGS_ERROR;
  else if (env && strcmp(env, "ignore") == 0) from_env = IRM_WARNINGS_IGNORE;
  else if (env && env[0] && strcmp(env, "default") != 0) unknown = 1;
  int expected = POLICY_UNSET;
  if (atomic_compare_exchange_strong(&policy, &expected, from_env) && unknown) {
    char msg[200];
    snprintf(msg, sizeof msg, "IRM_WARNINGS='%s' is not a policy (default, ignore, error); warnings are delivered",
             irm_error_quote(env));
    (void)deliver(msg);
  }
  return (irm_warnings_policy)atomic_load(&policy);
}

/* Hands msg to the handler, or drops it, or makes it the thread's error,
 * as the policy says. */
static int deliver(const char *msg) {
  irm_warnings_policy p = irm_warnings_policy_current();
  if (p == IRM_WARNINGS_IGNORE) return IRM_OK;
  if (p == IRM_WARNINGS_ERROR) return irm_error(IRM_ERUNTIME, "%s (IRM_WARNINGS=error makes warnings errors)", msg);
  pthread_mutex_lock(&warn_lock);
  irm_warning_handler h = warn_handler ? warn_handler : default_handler;
  void *ud = warn_user_data;
  pthread_mutex_unlock(&warn_lock);
  h(msg, ud);
  return IRM_OK;
}

void irm_set_warning_handler(irm_warning_handler handler, void *user_data) {
  pthread_mutex_lock(&warn_lock);
  warn_handler = handler;
  warn_user_data = user_data;
  pthread_mutex_unlock(&warn_lock);
}

/* The text of a warning: in small when it fits, else a NEW irm_malloc
 * block; NULL when that cannot be allocated (a cut text would lose what
 * the warning is about). */
static char *format(char small[512], const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(small, 512, fmt, ap2);
  va_end(ap2);
  if (n < 512) return small;
  char *msg = irm_malloc((size_t)n + 1);
  if (msg) vsnprintf(msg, (size_t)n + 1, fmt, ap);
  return msg;
}

/* Formats and delivers one warning; the handler runs without the lock.
 * IRM_ENOMEM, delivering nothing and setting no message, when a long text
 * cannot be allocated, so callers may warn while reporting another error. */
static int vwarn(const char *fmt, va_list ap) {
  char small[512];
  char *msg = format(small, fmt, ap);
  if (!msg) return IRM_ENOMEM;
  int rc = deliver(msg);
  if (msg != small) irm_free(msg);
  return rc;
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
      if (irm_hash_oom) irm_free(k);
      else added = 1;
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
  irm_warnings_policy p = irm_warnings_policy_current();
  if (p == IRM_WARNINGS_IGNORE) return 0; /* nothing taken: a later policy may still deliver it */
  if (p == IRM_WARNINGS_ERROR) {          /* an error recurs every time */
    va_list ap;
    va_start(ap, fmt);
    int rc = vwarn(fmt, ap);
    va_end(ap);
    return rc;
  }
  int added = key ? remember_key(key) : 0;
  if (!added) return 0;
  va_list ap;
  va_start(ap, fmt);
  int rc = vwarn(fmt, ap);
  va_end(ap);
  if (rc && added == 1) forget_key(key); /* not delivered: may warn later */
  return rc ? rc : 1;
}

/* The text is the key: the same warning from the same place (its wording
 * says which) goes out once. */
int irm_warn_unique_(const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  char *msg = format(small, fmt, ap);
  va_end(ap);
  if (!msg) return IRM_ENOMEM;
  int rc = IRM_OK;
  irm_warnings_policy p = irm_warnings_policy_current();
  if (p == IRM_WARNINGS_ERROR) {
    rc = deliver(msg);
  } else if (p == IRM_WARNINGS_DEFAULT) {
    int added = remember_key(msg);
    if (added) rc = deliver(msg);
  }
  if (msg != small) irm_free(msg);
  return rc;
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
