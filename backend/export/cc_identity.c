/* Which C compiler export_library runs, and its identity for the build
 * cache's keys (export_internal.h): the environment's CC (as make reads
 * it: a command, perhaps with arguments), else cc; identified by the path
 * its command resolves to and what `--version` prints. The identity is
 * remembered per path, modification time and size, so replacing the
 * compiler (or a wrapper script) changes the keys. */
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

static struct {
  char key[4096 + 64];
  char *identity;
} memo_;
static pthread_mutex_t memo_lock_ = PTHREAD_MUTEX_INITIALIZER;

int irm_cc_identity_(const char *cc, irm_text_buf *out) {
  char path[4096], key[sizeof memo_.key];
  struct stat st = {0};
  if (resolve(cc, path, sizeof path) != 0) path[0] = '\0';
  stat(path, &st);
  snprintf(key, sizeof key, "%s\n%s\n%lld.%09ld %lld", cc, path, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
           (long long)st.st_size);
  pthread_mutex_lock(&memo_lock_);
  if (memo_.identity && strcmp(memo_.key, key) == 0) {
    irm_text_buf_puts_(out, memo_.identity);
    pthread_mutex_unlock(&memo_lock_);
    return IRM_OK;
  }
  pthread_mutex_unlock(&memo_lock_);
  irm_text_buf cmd, version;
  irm_text_buf_init_(&cmd, NULL, 0);
  irm_text_buf_init_(&version, NULL, 0);
  irm_text_buf_printf_(&cmd, "%s --version 2>&1", cc);
  int rc = cmd.failed ? irm_error(IRM_ENOMEM, "export_library: out of memory")
                      : irm_cc_run_("export_library (the compiler's --version)", irm_text_buf_cstr_(&cmd), &version);
  irm_text_buf_printf_(out, "%s\n%s", key, irm_text_buf_cstr_(&version));
  char *copy = rc || out->failed ? NULL : irm_strdup(irm_text_buf_cstr_(out));
  if (copy) {
    pthread_mutex_lock(&memo_lock_);
    irm_free(memo_.identity);
    memo_.identity = copy;
    snprintf(memo_.key, sizeof memo_.key, "%s", key);
    pthread_mutex_unlock(&memo_lock_);
  }
  irm_text_buf_free_(&cmd);
  irm_text_buf_free_(&version);
  return rc;
}
