/* Which C compiler export_library runs, and its identity for the build
 * cache's keys (export_internal.h): the environment's CC (as make reads
 * it: a command, perhaps with arguments), else cc; identified by the path
 * its command resolves to and what `--version` prints. The identity is
 * remembered per path, inode, size and times, in the process and across
 * processes (cc_memo.c), so replacing the compiler (or a wrapper script)
 * changes the keys and a fresh process runs no `--version`. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export_internal.h"
#include "irm/alloc.h"
#include "irm/error.h"

const char *irm_cc_command_(void) {
  const char *cc = getenv("CC");
  return cc && cc[strspn(cc, " \t")] ? cc : "cc";
}

/* The file the command's first word runs, found as sh would (PATH). */
static int resolve(const char *cc, char *path, size_t size) {
  cc += strspn(cc, " \t");
  size_t n = strcspn(cc, " \t");
  if (memchr(cc, '/', n)) return snprintf(path, size, "%.*s", (int)n, cc) < (int)size ? 0 : -1;
  const char *dirs = getenv("PATH");
  for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d;) {
    size_t len = strcspn(d, ":");
    if (snprintf(path, size, "%.*s/%.*s", (int)len, len ? d : ".", (int)n, cc) < (int)size && access(path, X_OK) == 0)
      return 0;
    d += len + (d[len] == ':');
  }
  return snprintf(path, size, "%.*s", (int)n, cc) < (int)size ? 0 : -1;
}

/* The stat fields that move when a file is replaced or edited; 0 when it
 * cannot be stat'ed. */
static int stat_line(const char *path, irm_text_buf *out) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  irm_text_buf_printf_(out, "%s %llu %llu %lld %lld.%09ld %lld.%09ld\n", path, (unsigned long long)st.st_dev,
                       (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                       st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
  return 1;
}

/* The key of the compiler's --version: the command, then the file of its
 * first word and of each later word that names a program ("ccache gcc":
 * both), so replacing either asks again. *known 0 when the first word's
 * file cannot be stat'ed (nothing is remembered across processes then). */
static void identity_key(const char *cc, irm_text_buf *key, int *known) {
  char path[4096];
  irm_text_buf_printf_(key, "%s\n", cc);
  *known = resolve(cc, path, sizeof path) == 0 && stat_line(path, key);
  for (const char *w = cc + strspn(cc, " \t"); *w;) {
    w += strcspn(w, " \t");
    w += strspn(w, " \t");
    if (*w && *w != '-' && resolve(w, path, sizeof path) == 0 && access(path, X_OK) == 0) stat_line(path, key);
  }
}

static struct {
  char *key;
  char *identity;
} memo_;
static pthread_mutex_t memo_lock_ = PTHREAD_MUTEX_INITIALIZER;

/* In the process's memo: 1 with the identity appended to out. */
static int memo_get(const char *key, irm_text_buf *out) {
  pthread_mutex_lock(&memo_lock_);
  int hit = memo_.identity && strcmp(memo_.key, key) == 0;
  if (hit) irm_text_buf_puts_(out, memo_.identity);
  pthread_mutex_unlock(&memo_lock_);
  return hit;
}

static void memo_put(const char *key, const char *identity) {
  char *k = irm_strdup(key), *id = irm_strdup(identity);
  if (k && id) {
    pthread_mutex_lock(&memo_lock_);
    irm_free(memo_.key);
    irm_free(memo_.identity);
    memo_.key = k;
    memo_.identity = id;
    k = id = NULL;
    pthread_mutex_unlock(&memo_lock_);
  }
  irm_free(k);
  irm_free(id);
}

int irm_cc_identity_(const char *cc, irm_text_buf *out) {
  irm_text_buf key, cmd, version;
  irm_text_buf_init_(&key, NULL, 0);
  irm_text_buf_init_(&cmd, NULL, 0);
  irm_text_buf_init_(&version, NULL, 0);
  int known, rc = IRM_OK;
  identity_key(cc, &key, &known);
  const char *k = irm_text_buf_cstr_(&key);
  int failed = key.failed;
  if (failed || memo_get(k, out)) {
    irm_text_buf_free_(&key);
    return failed ? irm_error(IRM_ENOMEM, "export_library: out of memory") : IRM_OK;
  }
  int stored = known && irm_cc_memo_get_("cc --version", k, &version);
  if (!stored) {
    irm_text_buf_printf_(&cmd, "%s --version 2>&1", cc);
    rc = cmd.failed ? irm_error(IRM_ENOMEM, "export_library: out of memory")
                    : irm_cc_run_("export_library (the compiler's --version)", irm_text_buf_cstr_(&cmd), &version);
  }
  irm_text_buf_printf_(out, "%s\n%s", k, irm_text_buf_cstr_(&version));
  if (!rc && !out->failed && !version.failed) {
    memo_put(k, irm_text_buf_cstr_(out));
    if (known && !stored) irm_cc_memo_put_("cc --version", k, irm_text_buf_cstr_(&version));
  }
  irm_text_buf_free_(&key);
  irm_text_buf_free_(&cmd);
  irm_text_buf_free_(&version);
  return rc;
}
