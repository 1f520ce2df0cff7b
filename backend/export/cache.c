/* The build cache (irm/build_cache.h): objects in
 * <dir>/objects/<2 hex>/<key>, each "irm-cache 2\n<hash128 of payload>\n"
 * then the payload; written under <dir>/tmp/ and renamed into place. A
 * linked entry (a whole library) is the file itself, <key>.lib, and an
 * entry <key> whose payload gives its size and hash128. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "export_internal.h"
#include "irm/alloc.h"
#include "irm/build_cache.h"
#include "irm/error.h"

#define HEADER_ "irm-cache 2\n"
#define HEADER_LEN_ (sizeof HEADER_ - 1 + 33) /* the header, the payload's hash128, a newline */

struct irm_build_cache {
  char *dir;
  int writable;
  atomic_ullong hits, misses, corrupt, stored, store_failures, serial;
};

int irm_build_cache_default_dir(char *buf, size_t size) {
  const char *env = getenv("IRM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n = -1;
  if (env && env[0]) n = snprintf(buf, size, "%s", env);
  else if (xdg && xdg[0]) n = snprintf(buf, size, "%s/irm", xdg);
  else if (home && home[0]) n = snprintf(buf, size, "%s/.cache/irm", home);
  else return irm_error(IRM_EVALUE, "build cache: no folder: set IRM_CACHE_DIR (or XDG_CACHE_HOME or HOME)");
  if (n < 0 || (size_t)n >= size) return irm_error(IRM_EVALUE, "build cache: the folder name is too long");
  return IRM_OK;
}

int irm_build_cache_enabled_by_env(void) {
  const char *v = getenv("IRM_CACHE");
  return !(v && (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "no")));
}

uint64_t irm_build_cache_cap_by_env(void) {
  const uint64_t dflt = (uint64_t)1 << 30;
  const char *v = getenv("IRM_CACHE_SIZE");
  if (!v || !v[0]) return dflt;
  char *end = NULL;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
  if (shift) end++;
  if (errno || end == v || *end || v[0] == '-' || (shift && n > (UINT64_MAX >> shift))) {
    irm_warn_once("IRM_CACHE_SIZE", "IRM_CACHE_SIZE='%s' is not a size (bytes, or a number with K, M or G): using 1G",
                  v);
    return dflt;
  }
  return (uint64_t)n << shift;
}

/* mkdir -p of path (a copy is cut at each slash). */
static int make_dirs(const char *path) {
  char *p = irm_strdup(path);
  if (!p) return ENOMEM;
  int err = 0;
  for (char *s = p + 1; !err; s++) {
    if (*s && *s != '/') continue;
    char c = *s;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) err = errno;
    struct stat st;
    if (!err && stat(p, &st) != 0) err = errno;
    if (!err && !S_ISDIR(st.st_mode)) err = ENOTDIR;
    *s = c;
    if (!c) break;
  }
  irm_free(p);
  return err;
}

/* quiet: a folder that cannot be written gives a handle that stores nothing, without the warning. */
static int open_cache(const char *dir, int quiet, irm_build_cache **out) {
  char dflt[4096];
  *out = NULL;
  if (!dir) {
    int rc = irm_build_cache_default_dir(dflt, sizeof dflt);
    if (rc) return rc;
    dir = dflt;
  }
  if (!dir[0]) return irm_error(IRM_EVALUE, "build cache: the folder name is empty");
  irm_build_cache *c = irm_calloc(1, sizeof *c);
  if (!c || !(c->dir = irm_strdup(dir))) {
    irm_free(c);
    return irm_error(IRM_ENOMEM, "build cache: out of memory");
  }
  size_t len = strlen(dir) + 16;
  char *sub = irm_malloc(len);
  int err = sub ? 0 : ENOMEM;
  if (!err) snprintf(sub, len, "%s/objects", dir);
  if (!err) err = make_dirs(sub);
  if (!err) snprintf(sub, len, "%s/tmp", dir);
  if (!err) err = make_dirs(sub);
  if (!err && access(sub, W_OK) != 0) err = errno;
  irm_free(sub);
  c->writable = !err;
  int rc = IRM_OK;
  if (err && !quiet)
    rc = irm_warn("build cache '%s' is not writable (%s): building without storing objects there", dir,
                  strerror(err)) == IRM_ERUNTIME
             ? IRM_ERUNTIME
             : IRM_OK;
  if (rc) {
    irm_build_cache_close(c);
    return rc;
  }
  *out = c;
  return IRM_OK;
}

int irm_build_cache_open(const char *dir, irm_build_cache **out) { return open_cache(dir, 0, out); }

int irm_build_cache_open_quiet_(const char *dir, irm_build_cache **out) { return open_cache(dir, 1, out); }

void irm_build_cache_close(irm_build_cache *cache) {
  if (!cache) return;
  irm_free(cache->dir);
  irm_free(cache);
}

const char *irm_build_cache_dir(const irm_build_cache *cache) { return cache->dir; }
int irm_build_cache_writable(const irm_build_cache *cache) { return cache->writable; }

void irm_build_cache_key(const void *const *parts, const size_t *sizes, size_t n, char out[65]) {
  irm_sha256_ s;
  irm_sha256_init_(&s);
  for (size_t i = 0; i < n; i++) {
    uint64_t len = sizes[i];
    irm_sha256_update_(&s, &len, sizeof len);
    irm_sha256_update_(&s, parts[i], sizes[i]);
  }
  irm_sha256_hex_(&s, out);
}

static int check_key(const char *key) {
  size_t n = 0;
  for (; key[n]; n++)
    if (!((key[n] >= '0' && key[n] <= '9') || (key[n] >= 'a' && key[n] <= 'f'))) break;
  if (n != 64 || key[n])
    return irm_error(IRM_EVALUE, "build cache: key '%s' is not 64 lowercase hex digits", irm_error_quote(key));
  return IRM_OK;
}

static char *entry_path(const irm_build_cache *c, const char *key) {
  size_t len = strlen(c->dir) + 96;
  char *p = irm_malloc(len);
  if (p) snprintf(p, len, "%s/objects/%.2s/%s", c->dir, key, key);
  return p;
}

/* The whole file into *data (NUL-terminated); nonzero errno on failure. */
static int read_all(const char *path, char **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return errno;
  struct stat st;
  int err = fstat(fileno(f), &st) != 0 ? errno : 0;
  char *buf = err ? NULL : irm_malloc((size_t)st.st_size + 1);
  if (!err && !buf) err = ENOMEM;
  if (!err && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) err = EIO;
  fclose(f);
  if (err) {
    irm_free(buf);
    return err;
  }
  buf[st.st_size] = '\0';
  *data = buf;
  *size = (size_t)st.st_size;
  return 0;
}

static int write_all(const char *path, const char *a, size_t na, const char *b, size_t nb) {
  FILE *f = fopen(path, "wb");
  if (!f) return errno;
  int err = (na && fwrite(a, 1, na, f) != na) || (nb && fwrite(b, 1, nb, f) != nb) ? errno ? errno : EIO : 0;
  if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
  return err;
}

/* The integrity check of a payload (hash128: an object of tens of MB is
 * read on every hit). */
static void payload_digest(const char *data, size_t n, char out[33]) { irm_hash128_hex_(data, n, out); }

int irm_build_cache_get_(irm_build_cache *cache, const char *key, char **payload, size_t *n,
                         irm_build_cache_status *status) {
  *status = IRM_BUILD_CACHE_MISS;
  *payload = NULL;
  *n = 0;
  int rc = check_key(key);
  if (rc) return rc;
  char *path = entry_path(cache, key), *data = NULL;
  if (!path) return irm_error(IRM_ENOMEM, "build cache: out of memory");
  size_t size = 0;
  if (read_all(path, &data, &size) == 0) {
    char digest[33];
    int ok = size >= HEADER_LEN_ && memcmp(data, HEADER_, sizeof HEADER_ - 1) == 0 && data[HEADER_LEN_ - 1] == '\n';
    if (ok) payload_digest(data + HEADER_LEN_, size - HEADER_LEN_, digest);
    if (ok && memcmp(digest, data + sizeof HEADER_ - 1, 32) == 0) {
      *status = IRM_BUILD_CACHE_HIT;
      *n = size - HEADER_LEN_;
      memmove(data, data + HEADER_LEN_, *n + 1); /* with read_all's NUL */
      *payload = data;
      data = NULL;
      if (cache->writable) utimensat(AT_FDCWD, path, NULL, 0); /* its use, for least-recently-used eviction */
    } else {
      *status = IRM_BUILD_CACHE_CORRUPT;
      atomic_fetch_add(&cache->corrupt, 1);
      unlink(path); /* rebuilt and stored again by the caller */
    }
  }
  irm_free(data);
  irm_free(path);
  atomic_fetch_add(*status == IRM_BUILD_CACHE_HIT ? &cache->hits : &cache->misses, 1);
  return rc;
}

int irm_build_cache_fetch(irm_build_cache *cache, const char *key, const char *dest, irm_build_cache_status *status) {
  char *data = NULL;
  size_t size = 0;
  int rc = irm_build_cache_get_(cache, key, &data, &size, status);
  int err = !rc && *status == IRM_BUILD_CACHE_HIT ? write_all(dest, data, size, NULL, 0) : 0;
  if (err) {
    *status = IRM_BUILD_CACHE_MISS;
    rc = irm_error(IRM_ERUNTIME, "build cache: cannot write '%s': %s", dest, strerror(err));
  }
  irm_free(data);
  return rc;
}

int irm_build_cache_put_(irm_build_cache *cache, const char *key, const void *data, size_t size) {
  int rc = check_key(key);
  if (rc || !cache->writable) return rc;
  char *path = entry_path(cache, key);
  size_t len = strlen(cache->dir) + 160;
  char *tmp = irm_malloc(len);
  if (!path || !tmp) rc = irm_error(IRM_ENOMEM, "build cache: out of memory");
  int err = 0;
  if (!rc) {
    char header[HEADER_LEN_ + 1], digest[33];
    payload_digest(data, size, digest);
    snprintf(header, sizeof header, "%s%s\n", HEADER_, digest);
    /* unique among processes (pid) and this handle's threads (serial) */
    snprintf(tmp, len, "%s/tmp/%.16s.%ld.%llu", cache->dir, key, (long)getpid(),
             (unsigned long long)atomic_fetch_add(&cache->serial, 1));
    char *slash = strrchr(path, '/');
    *slash = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) err = errno;
    *slash = '/';
    if (!err) err = write_all(tmp, header, HEADER_LEN_, data, size);
    if (!err && rename(tmp, path) != 0) err = errno;
    if (err) unlink(tmp);
  }
  if (!rc) atomic_fetch_add(err ? &cache->store_failures : &cache->stored, 1);
  irm_free(path);
  irm_free(tmp);
  return rc;
}

int irm_build_cache_store(irm_build_cache *cache, const char *key, const char *src) {
  int rc = check_key(key);
  if (rc || !cache->writable) return rc;
  char *data = NULL;
  size_t size = 0;
  if (read_all(src, &data, &size) != 0) { /* a failure to store, as a failed write */
    atomic_fetch_add(&cache->store_failures, 1);
    return IRM_OK;
  }
  rc = irm_build_cache_put_(cache, key, data, size);
  irm_free(data);
  return rc;
}

void irm_build_cache_counts(const irm_build_cache *cache, uint64_t *hits, uint64_t *misses, uint64_t *corrupt,
                            uint64_t *stored, uint64_t *store_failures) {
  irm_build_cache *c = (irm_build_cache *)cache;
  if (hits) *hits = atomic_load(&c->hits);
  if (misses) *misses = atomic_load(&c->misses);
  if (corrupt) *corrupt = atomic_load(&c->corrupt);
  if (stored) *stored = atomic_load(&c->stored);
  if (store_failures) *store_failures = atomic_load(&c->store_failures);
}

/* ---- walking the folder ------------------------------------------------------ */

typedef struct entry_ {
  char *path;
  uint64_t bytes;
  struct timespec used;
} entry_;

typedef struct entries_ {
  entry_ *v;
  size_t n, cap;
  uint64_t bytes;
} entries_;

static void entries_free(entries_ *e) {
  for (size_t i = 0; i < e->n; i++) irm_free(e->v[i].path);
  irm_free(e->v);
}

/* Every regular file one level under <dir>/<sub>/ (objects' 2-digit
 * folders), or directly in it (flat: tmp/). */
static int list(const char *dir, const char *sub, int flat, entries_ *out) {
  char top[4096 + 16];
  snprintf(top, sizeof top, "%s/%s", dir, sub);
  DIR *d = opendir(top);
  if (!d) return IRM_OK; /* nothing there */
  struct dirent *e;
  int rc = IRM_OK;
  while (!rc && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096 + 600];
    snprintf(path, sizeof path, "%s/%s", top, e->d_name);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    if (!flat && S_ISDIR(st.st_mode)) {
      char inner[4096 + 300];
      snprintf(inner, sizeof inner, "%s/%s", sub, e->d_name);
      rc = list(dir, inner, 1, out);
      continue;
    }
    if (!S_ISREG(st.st_mode)) continue;
    if (out->n == out->cap) {
      size_t cap = out->cap ? out->cap * 2 : 64;
      entry_ *v = irm_realloc(out->v, cap * sizeof *v);
      if (!v) {
        rc = irm_error(IRM_ENOMEM, "build cache: out of memory");
        break;
      }
      out->v = v;
      out->cap = cap;
    }
    entry_ *x = &out->v[out->n];
    if (!(x->path = irm_strdup(path))) {
      rc = irm_error(IRM_ENOMEM, "build cache: out of memory");
      break;
    }
    x->bytes = (uint64_t)st.st_size;
    x->used = st.st_mtim;
    out->bytes += x->bytes;
    out->n++;
  }
  closedir(d);
  return rc;
}

static int by_use(const void *a, const void *b) {
  const entry_ *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

int irm_build_cache_trim(irm_build_cache *cache, uint64_t cap, uint64_t *removed) {
  entries_ objs = {0}, tmps = {0};
  uint64_t gone = 0;
  int rc = cache->writable ? list(cache->dir, "objects", 0, &objs) : IRM_OK;
  if (!rc && cache->writable) rc = list(cache->dir, "tmp", 1, &tmps);
  time_t now = time(NULL);
  for (size_t i = 0; !rc && i < tmps.n; i++)
    if (now - tmps.v[i].used.tv_sec > 3600) unlink(tmps.v[i].path); /* a write that never finished */
  if (!rc && objs.bytes > cap) {
    qsort(objs.v, objs.n, sizeof *objs.v, by_use);
    for (size_t i = 0; i < objs.n && objs.bytes > cap; i++)
      if (unlink(objs.v[i].path) == 0 || errno == ENOENT) { /* another build may have taken it first */
        objs.bytes -= objs.v[i].bytes;
        gone++;
      }
  }
  entries_free(&objs);
  entries_free(&tmps);
  if (removed) *removed = gone;
  return rc;
}

int irm_build_cache_info(const char *dir, irm_build_cache_info_t *out) {
  char dflt[4096];
  int rc = dir ? IRM_OK : irm_build_cache_default_dir(dflt, sizeof dflt);
  if (rc) return rc;
  entries_ objs = {0};
  rc = list(dir ? dir : dflt, "objects", 0, &objs);
  if (!rc) *out = (irm_build_cache_info_t){objs.n, objs.bytes, irm_build_cache_cap_by_env()};
  entries_free(&objs);
  return rc;
}

int irm_build_cache_clear(const char *dir, uint64_t *removed) {
  char dflt[4096];
  int rc = dir ? IRM_OK : irm_build_cache_default_dir(dflt, sizeof dflt);
  if (rc) return rc;
  if (!dir) dir = dflt;
  entries_ objs = {0}, tmps = {0};
  rc = list(dir, "objects", 0, &objs);
  if (!rc) rc = list(dir, "tmp", 1, &tmps);
  uint64_t gone = 0;
  for (size_t i = 0; !rc && i < objs.n + tmps.n; i++) {
    const char *p = i < objs.n ? objs.v[i].path : tmps.v[i - objs.n].path;
    if (unlink(p) != 0 && errno != ENOENT)
      rc = irm_error(IRM_ERUNTIME, "build cache: cannot remove '%s': %s", p, strerror(errno));
    else gone += i < objs.n;
  }
  entries_free(&objs);
  entries_free(&tmps);
  if (removed) *removed = gone;
  return rc;
}

/* ---- linked entries: files handed out by a hard link ---------------------------- */

#define LINKED_ "irm-linked 1 "

/* hash128 of the size bytes of the file fd, read through a mapping. */
static int file_digest(int fd, size_t size, char out[33]) {
  if (!size) {
    irm_hash128_hex_("", 0, out);
    return 0;
  }
  void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (m == MAP_FAILED) return errno;
  irm_hash128_hex_(m, size, out);
  munmap(m, size);
  return 0;
}

/* dest (a fresh name: what was there goes) made the file src: a hard link
 * when both lie on one filesystem, else a copy with src's permissions. The
 * copy never opens an existing file, which could be src itself. */
static int link_or_copy(const char *src, const char *dest) {
  unlink(dest);
  if (link(src, dest) == 0) return 0;
  int in = open(src, O_RDONLY), err = 0;
  struct stat st;
  if (in < 0) return errno;
  if (fstat(in, &st) != 0) err = errno;
  int out = err ? -1 : open(dest, O_WRONLY | O_CREAT | O_EXCL, st.st_mode & 0777);
  if (!err && out < 0) err = errno;
  char buf[1 << 16];
  for (ssize_t got; !err && (got = read(in, buf, sizeof buf)) != 0;) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 || write(out, buf, (size_t)got) != got) err = errno ? errno : EIO;
  }
  if (out >= 0 && close(out) != 0 && !err) err = errno;
  close(in);
  if (err) unlink(dest);
  return err;
}

int irm_build_cache_store_linked(irm_build_cache *cache, const char *key, const char *src) {
  int rc = check_key(key);
  if (rc || !cache->writable) return rc;
  char *path = entry_path(cache, key);
  size_t len = strlen(cache->dir) + 160, plen = path ? strlen(path) + 8 : 0;
  char *tmp = irm_malloc(len), *tmp_raw = irm_malloc(len), *raw = path ? irm_malloc(plen) : NULL;
  if (!path || !tmp || !tmp_raw || !raw) rc = irm_error(IRM_ENOMEM, "build cache: out of memory");
  int err = 0, fd = rc ? -1 : open(src, O_RDONLY);
  struct stat st;
  char digest[33];
  if (!rc && (fd < 0 || fstat(fd, &st) != 0)) err = errno;
  if (!rc && !err) err = file_digest(fd, (size_t)st.st_size, digest);
  if (fd >= 0) close(fd);
  if (!rc && !err) {
    static atomic_ullong linked_serial; /* unique among this process's handles too */
    unsigned long long serial = (unsigned long long)atomic_fetch_add(&linked_serial, 1);
    snprintf(tmp, len, "%s/tmp/%.16s.%ld.%llu", cache->dir, key, (long)getpid(), serial);
    snprintf(tmp_raw, len, "%s.lib", tmp);
    snprintf(raw, plen, "%s.lib", path);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST) err = errno;
    *slash = '/';
    char payload[96], header[HEADER_LEN_ + 1], pdigest[33];
    int n = snprintf(payload, sizeof payload, LINKED_ "%lld %s\n", (long long)st.st_size, digest);
    payload_digest(payload, (size_t)n, pdigest);
    snprintf(header, sizeof header, "%s%s\n", HEADER_, pdigest);
    /* the file first: an entry is never there without its file */
    if (!err) err = link_or_copy(src, tmp_raw);
    if (!err && rename(tmp_raw, raw) != 0) err = errno;
    if (!err) err = write_all(tmp, header, HEADER_LEN_, payload, (size_t)n);
    if (!err && rename(tmp, path) != 0) err = errno;
    /* also after a rename: onto a name of the same file it does nothing and leaves the old name */
    unlink(tmp);
    unlink(tmp_raw);
  }
  if (!rc) atomic_fetch_add(err ? &cache->store_failures : &cache->stored, 1);
  irm_free(path);
  irm_free(tmp);
  irm_free(tmp_raw);
  irm_free(raw);
  return rc;
}

/* The file a linked entry names, checked against its size and hash128, as
 * dest; 0, or ENOENT when there is none, or EBADMSG when it fails the check. */
static int fetch_linked(const char *path, const char *dest) {
  char *data = NULL, *raw = NULL;
  size_t size = 0;
  int err = read_all(path, &data, &size);
  if (err) return ENOENT;
  char digest[33], want[33] = "";
  long long bytes = -1;
  int ok = size >= HEADER_LEN_ && memcmp(data, HEADER_, sizeof HEADER_ - 1) == 0;
  if (ok) payload_digest(data + HEADER_LEN_, size - HEADER_LEN_, digest);
  ok = ok && memcmp(digest, data + sizeof HEADER_ - 1, 32) == 0 &&
       strncmp(data + HEADER_LEN_, LINKED_, sizeof LINKED_ - 1) == 0 &&
       sscanf(data + HEADER_LEN_ + sizeof LINKED_ - 1, "%lld %32s", &bytes, want) == 2;
  irm_free(data);
  size_t plen = strlen(path) + 8;
  if (ok && !(raw = irm_malloc(plen))) return ENOMEM;
  int fd = -1;
  struct stat st;
  if (ok) {
    snprintf(raw, plen, "%s.lib", path);
    fd = open(raw, O_RDONLY);
    ok = fd >= 0 && fstat(fd, &st) == 0 && st.st_size == bytes && file_digest(fd, (size_t)bytes, digest) == 0 &&
         strcmp(digest, want) == 0;
  }
  if (fd >= 0) close(fd);
  err = !ok ? EBADMSG : link_or_copy(raw, dest);
  if (!err) {
    utimensat(AT_FDCWD, path, NULL, 0); /* their use, for least-recently-used eviction */
    utimensat(AT_FDCWD, raw, NULL, 0);
  } else if (err == EBADMSG && raw) unlink(raw);
  irm_free(raw);
  return err;
}

int irm_build_cache_fetch_linked(irm_build_cache *cache, const char *key, const char *dest,
                                 irm_build_cache_status *status) {
  *status = IRM_BUILD_CACHE_MISS;
  int rc = check_key(key);
  if (rc) return rc;
  char *path = entry_path(cache, key);
  if (!path) return irm_error(IRM_ENOMEM, "build cache: out of memory");
  unlink(dest); /* a fresh name for the link */
  int err = fetch_linked(path, dest);
  if (!err) *status = IRM_BUILD_CACHE_HIT;
  else if (err == EBADMSG) {
    *status = IRM_BUILD_CACHE_CORRUPT;
    atomic_fetch_add(&cache->corrupt, 1);
    unlink(path);
  } else if (err == ENOMEM) rc = irm_error(IRM_ENOMEM, "build cache: out of memory");
  else if (err != ENOENT) rc = irm_error(IRM_ERUNTIME, "build cache: cannot write '%s': %s", dest, strerror(err));
  irm_free(path);
  atomic_fetch_add(*status == IRM_BUILD_CACHE_HIT ? &cache->hits : &cache->misses, 1);
  return rc;
}
