/* Reuse from the source file (docs/build.md#reuse-from-the-onnx-file): a
 * key over a model's file, the frontend that reads it and the build's
 * arguments, so that rebuilding from an unchanged file takes the finished
 * library without reading the file, importing, building or exporting.
 *
 * The key shares the model key's mechanism (irm_build_reuse_key_ in
 * model_cache.c): irm's identity, the PassContext and plugins with their
 * "not reusable" cases, and the build's configuration resolved by
 * irm_build_prepare_ on an empty module (targets with -mcpu=native
 * resolved, executor, runtime, mod_name: the empty module's text is its
 * attributes); in place of the module's text go the file's content digest
 * and the caller's text of the frontend and its options. The library's
 * entry key adds the toolchain as for the model key (library_key).
 *
 * The content digest (hash128 of the bytes) is memoized per stat: the file's
 * real path, device, inode, size, mtime and ctime (ns) map to the digest,
 * stored as a small entry of the build cache (so trimmed, cleared and
 * checked like the others). A file whose mtime or ctime lies within 2 s of
 * now is not memoized (it may still change within the clock's granularity
 * without its times moving: git's "racy clean" rule), nor one whose stat
 * moved while it was read. The file is read in chunks, not mapped: one
 * cut short meanwhile is an error, where a mapping would fault. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export_internal.h"
#include "irm/alloc.h"
#include "irm/build.h"
#include "irm/build_cache.h"
#include "irm/error.h"
#include "irm/module.h"

#define MEMO_ "irm-stat-memo 1 "
#define RACY_NS_ 2000000000LL /* files changed this recently are hashed each time */

static long long ns_of(struct timespec t) { return (long long)t.tv_sec * 1000000000LL + t.tv_nsec; }

/* The memo's key: the real path and the stat fields that move when the file does. */
static void memo_key(const char *real, const struct stat *st, char key[65]) {
  char line[160];
  int n = snprintf(line, sizeof line, "%llu %llu %lld %lld %lld", (unsigned long long)st->st_dev,
                   (unsigned long long)st->st_ino, (long long)st->st_size, ns_of(st->st_mtim), ns_of(st->st_ctim));
  const void *parts[3] = {MEMO_, real, line};
  const size_t sizes[3] = {sizeof MEMO_ - 1, strlen(real), (size_t)n};
  irm_build_cache_key(parts, sizes, 3, key);
}

static int same_stat(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         ns_of(a->st_mtim) == ns_of(b->st_mtim) && ns_of(a->st_ctim) == ns_of(b->st_ctim);
}

/* n bytes of fd into buf: 0, or an errno (EIO: the file ended first). */
static int read_full(int fd, unsigned char *buf, size_t n) {
  for (size_t got = 0; got < n;) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return r < 0 ? errno : EIO;
    got += (size_t)r;
  }
  return 0;
}

/* hash128 of the size bytes of fd, read in chunks into one buffer: a file
 * cut short meanwhile is an error (a mapping would fault), and no memory
 * as large as the file is touched. 0 or an errno. */
static int read_digest(int fd, uint64_t size, char out[33]) {
  enum { CHUNK_ = 1 << 17 }; /* a multiple of 16 (irm_hash128_update_); fits L2: read then hashed from cache */
  unsigned char *buf = irm_malloc(CHUNK_);
  if (!buf) return ENOMEM;
  irm_hash128_ h;
  irm_hash128_init_(&h, size);
  int err = 0;
  for (; !err && size > CHUNK_; size -= CHUNK_)
    if (!(err = read_full(fd, buf, CHUNK_))) irm_hash128_update_(&h, buf, CHUNK_);
  if (!err) err = read_full(fd, buf, (size_t)size);
  if (!err) irm_hash128_final_(&h, buf, (size_t)size, out);
  irm_free(buf);
  return err;
}

/* The digest the memo holds for key, if any: 1 when found. */
static int memo_get(irm_build_cache *cache, const char *key, char digest[33]) {
  char *data = NULL;
  size_t n = 0;
  irm_build_cache_status status;
  int found = 0;
  if (irm_build_cache_get_(cache, key, &data, &n, &status) == IRM_OK && status == IRM_BUILD_CACHE_HIT &&
      n == sizeof MEMO_ - 1 + 33 && memcmp(data, MEMO_, sizeof MEMO_ - 1) == 0 && data[n - 1] == '\n' &&
      strspn(data + sizeof MEMO_ - 1, "0123456789abcdef") == 32) {
    memcpy(digest, data + sizeof MEMO_ - 1, 32);
    digest[32] = '\0';
    found = 1;
  }
  irm_clear_error(); /* a memo that cannot be read is no memo */
  irm_free(data);
  return found;
}

int irm_build_file_digest(const char *path, const char *cache_dir, char digest[33], int *memo_hit) {
  static const char fn[] = "irm_build_file_digest";
  if (!path || !digest) return irm_error(IRM_EVALUE, "%s: path and digest must not be NULL", fn);
  digest[0] = '\0';
  if (memo_hit) *memo_hit = 0;
  char real[PATH_MAX];
  struct stat st, again;
  if (!realpath(path, real) || stat(real, &st) != 0)
    return irm_error(IRM_ERUNTIME, "%s: cannot read '%s': %s", fn, irm_error_quote(path), strerror(errno));
  if (!S_ISREG(st.st_mode)) return irm_error(IRM_EVALUE, "%s: '%s' is not a regular file", fn, irm_error_quote(path));
  irm_build_cache *cache = NULL;
  if (irm_build_cache_enabled_by_env() && irm_build_cache_open(cache_dir, &cache) != IRM_OK) {
    irm_clear_error(); /* no cache: hashed each time */
    cache = NULL;
  }
  char key[65];
  memo_key(real, &st, key);
  if (cache && memo_get(cache, key, digest)) {
    if (memo_hit) *memo_hit = 1;
    irm_build_cache_close(cache);
    return IRM_OK;
  }
  int rc = IRM_OK, fd = open(real, O_RDONLY | O_CLOEXEC), err = 0;
  if (fd < 0 || fstat(fd, &again) != 0) err = errno;
  if (!err) err = read_digest(fd, (uint64_t)again.st_size, digest);
  if (!err && fstat(fd, &again) != 0) err = errno; /* moved while read: hashed, not memoized */
  if (fd >= 0) close(fd);
  if (err) rc = irm_error(IRM_ERUNTIME, "%s: cannot read '%s': %s", fn, irm_error_quote(path), strerror(err));
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  long long newest = ns_of(st.st_mtim) > ns_of(st.st_ctim) ? ns_of(st.st_mtim) : ns_of(st.st_ctim);
  if (!rc && cache && same_stat(&st, &again) && ns_of(now) - newest >= RACY_NS_) {
    char payload[sizeof MEMO_ + 33];
    int n = snprintf(payload, sizeof payload, MEMO_ "%s\n", digest);
    if (irm_build_cache_put_(cache, key, payload, (size_t)n) != IRM_OK) irm_clear_error(); /* only the memo is lost */
  }
  irm_build_cache_close(cache);
  return rc;
}

int irm_build_source_key(const char *path, const char *frontend, const irm_any *target, const irm_any *target_host,
                         const irm_object *executor, const irm_object *runtime, const char *mod_name,
                         const char *irm_version, const char *cache_dir, char key[65], irm_module **prepared) {
  if (!path || !frontend || !key || !prepared)
    return irm_error(IRM_EVALUE, "irm_build_source_key: path, frontend, key and prepared must not be NULL");
  key[0] = '\0';
  *prepared = NULL;
  char digest[33];
  int rc = irm_build_file_digest(path, cache_dir, digest, NULL);
  if (rc) return rc;
  size_t len = 40 + strlen(frontend);
  char *extra = irm_malloc(len);
  irm_module *empty = NULL;
  if (!extra) return irm_error(IRM_ENOMEM, "irm_build_source_key: out of memory");
  int n = snprintf(extra, len, "source %s\n%s", digest, frontend);
  rc = irm_module_new(NULL, NULL, &empty);
  if (!rc)
    rc = irm_build_reuse_key_("irm source key 1\n", extra, (size_t)n, empty, target, target_host, executor, runtime,
                              NULL, mod_name, irm_version, key, prepared);
  irm_object_release(empty);
  irm_free(extra);
  return rc;
}
