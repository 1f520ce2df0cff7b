/* The build cache (irm/build_cache.h) and export_library's use of it: a
 * hit, a miss after a flag change and after a compiler change (a wrapper
 * cc whose --version differs), a corrupt entry detected and rebuilt, two
 * builds sharing one folder at once, eviction at the cap, and a folder
 * that cannot be written giving a warning and a normal build, and the
 * file digest of the source key with its stat memo. Every test
 * uses folders of its own under a fresh temporary folder, never the
 * user's ~/.cache. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_aot_util.h"
#include "check_util.h"
#include "irm/build_cache.h"

/* A fresh folder for one test, under TMPDIR. */
static void temp_dir(char *out, size_t size) {
  const char *t = getenv("TMPDIR");
  snprintf(out, size, "%s/irm-cache-test-XXXXXX", t && t[0] ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(out));
}

/* Removes a folder temp_dir made, with what it holds. */
static void remove_dir(const char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
  ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void key_of(const char *text, char key[65]) {
  const void *parts[] = {text};
  size_t sizes[] = {strlen(text)};
  irm_build_cache_key(parts, sizes, 1, key);
}

START_TEST(test_store_fetch_info_clear) {
  char dir[512], src[600], dest[600], key[65], other[65];
  temp_dir(dir, sizeof dir);
  snprintf(src, sizeof src, "%s/src.o", dir);
  snprintf(dest, sizeof dest, "%s/dest.o", dir);
  write_file(src, "object bytes");
  key_of("unit text", key);
  key_of("unit text ", other);
  ck_assert_str_ne(key, other);
  ck_assert_uint_eq(strlen(key), 64);
  irm_build_cache *c = NULL;
  ck_assert_ok(irm_build_cache_open(dir, &c));
  ck_assert_int_eq(irm_build_cache_writable(c), 1);
  irm_build_cache_status st;
  ck_assert_ok(irm_build_cache_fetch(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_MISS);
  ck_assert_ok(irm_build_cache_store(c, key, src));
  ck_assert_ok(irm_build_cache_fetch(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_HIT);
  ck_assert_str_eq(read_file(dest), "object bytes");
  uint64_t hits, misses, stored;
  irm_build_cache_counts(c, &hits, &misses, NULL, &stored, NULL);
  ck_assert_uint_eq(hits, 1);
  ck_assert_uint_eq(misses, 1);
  ck_assert_uint_eq(stored, 1);
  irm_build_cache_info_t info;
  ck_assert_ok(irm_build_cache_info(dir, &info));
  ck_assert_uint_eq(info.entries, 1);
  ck_assert_uint_gt(info.bytes, strlen("object bytes"));
  /* bad keys are ValueErrors */
  ck_assert_error(irm_build_cache_fetch(c, "abc", dest, &st), IRM_EVALUE, "ValueError: build cache: key 'abc'");
  ck_assert_error(irm_build_cache_store(c, "../../etc/passwd", src), IRM_EVALUE, "ValueError: build cache: key");
  uint64_t removed = 0;
  ck_assert_ok(irm_build_cache_clear(dir, &removed));
  ck_assert_uint_eq(removed, 1);
  ck_assert_ok(irm_build_cache_info(dir, &info));
  ck_assert_uint_eq(info.entries, 0);
  irm_build_cache_close(c);
  remove_dir(dir);
}
END_TEST

START_TEST(test_corrupt_entry_detected_and_removed) {
  char dir[512], src[600], dest[600], entry[700], key[65];
  temp_dir(dir, sizeof dir);
  snprintf(src, sizeof src, "%s/src.o", dir);
  snprintf(dest, sizeof dest, "%s/dest.o", dir);
  write_file(src, "the real object");
  key_of("corrupt me", key);
  irm_build_cache *c = NULL;
  ck_assert_ok(irm_build_cache_open(dir, &c));
  ck_assert_ok(irm_build_cache_store(c, key, src));
  snprintf(entry, sizeof entry, "%s/objects/%.2s/%s", dir, key, key);
  int fd = open(entry, O_WRONLY);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(pwrite(fd, "X", 1, 50), 1); /* one byte of the payload (after a 45-byte header) */
  close(fd);
  irm_build_cache_status st;
  ck_assert_ok(irm_build_cache_fetch(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_CORRUPT);
  ck_assert_int_ne(access(entry, F_OK), 0); /* removed */
  uint64_t corrupt = 0;
  irm_build_cache_counts(c, NULL, NULL, &corrupt, NULL, NULL);
  ck_assert_uint_eq(corrupt, 1);
  /* a truncated entry too */
  ck_assert_ok(irm_build_cache_store(c, key, src));
  ck_assert_int_eq(truncate(entry, 20), 0);
  ck_assert_ok(irm_build_cache_fetch(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_CORRUPT);
  irm_build_cache_close(c);
  remove_dir(dir);
}
END_TEST

START_TEST(test_linked_entry_is_the_file_itself) {
  char dir[512], src[600], dest[600], raw[700], key[65];
  temp_dir(dir, sizeof dir);
  snprintf(src, sizeof src, "%s/lib.so", dir);
  snprintf(dest, sizeof dest, "%s/again.so", dir);
  write_file(src, "a finished library");
  key_of("a model", key);
  irm_build_cache *c = NULL;
  ck_assert_ok(irm_build_cache_open(dir, &c));
  irm_build_cache_status st;
  ck_assert_ok(irm_build_cache_fetch_linked(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_MISS);
  ck_assert_ok(irm_build_cache_store_linked(c, key, src));
  ck_assert_ok(irm_build_cache_fetch_linked(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_HIT);
  ck_assert_str_eq(read_file(dest), "a finished library");
  /* one filesystem: no bytes copied, the three names are one file */
  struct stat a, b;
  snprintf(raw, sizeof raw, "%s/objects/%.2s/%s.lib", dir, key, key);
  ck_assert_int_eq(stat(raw, &a), 0);
  ck_assert_int_eq(stat(dest, &b), 0);
  ck_assert_uint_eq(a.st_ino, b.st_ino);
  irm_build_cache_info_t info;
  ck_assert_ok(irm_build_cache_info(dir, &info));
  ck_assert_uint_eq(info.entries, 2); /* the file and its entry */
  /* a change in place through any of the names is found out: removed, a miss */
  write_file(src, "a finished librarY");
  unlink(dest);
  ck_assert_ok(irm_build_cache_fetch_linked(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_CORRUPT);
  ck_assert_int_ne(access(raw, F_OK), 0);
  ck_assert_int_ne(access(dest, F_OK), 0);
  /* a file of another size too */
  ck_assert_ok(irm_build_cache_store_linked(c, key, src));
  write_file(src, "short");
  ck_assert_ok(irm_build_cache_fetch_linked(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_CORRUPT);
  ck_assert_error(irm_build_cache_store_linked(c, "nokey", src), IRM_EVALUE, "ValueError: build cache: key");
  uint64_t hits, corrupt, stored;
  irm_build_cache_counts(c, &hits, NULL, &corrupt, &stored, NULL);
  ck_assert_uint_eq(hits, 1);
  ck_assert_uint_eq(corrupt, 2);
  ck_assert_uint_eq(stored, 2);
  irm_build_cache_close(c);
  remove_dir(dir);
}
END_TEST

/* Across filesystems (a tmpfs /dev/shm and the cache's folder) a linked
 * entry is copied in and out, never linked, with the file's permissions. */
START_TEST(test_linked_entry_copies_across_filesystems) {
  struct stat shm, here;
  char dir[512];
  temp_dir(dir, sizeof dir);
  if (stat("/dev/shm", &shm) != 0 || stat(dir, &here) != 0 || shm.st_dev == here.st_dev || access("/dev/shm", W_OK)) {
    remove_dir(dir); /* no second filesystem to copy across */
    return;
  }
  char src[128], dest[128], key[65];
  snprintf(src, sizeof src, "/dev/shm/irm-linked-src-%ld", (long)getpid());
  snprintf(dest, sizeof dest, "/dev/shm/irm-linked-dest-%ld", (long)getpid());
  write_file(src, "a library elsewhere");
  chmod(src, 0750);
  key_of("elsewhere", key);
  irm_build_cache *c = NULL;
  ck_assert_ok(irm_build_cache_open(dir, &c));
  ck_assert_ok(irm_build_cache_store_linked(c, key, src));
  irm_build_cache_status st;
  ck_assert_ok(irm_build_cache_fetch_linked(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_HIT);
  ck_assert_str_eq(read_file(dest), "a library elsewhere");
  struct stat a, b;
  ck_assert_int_eq(stat(src, &a), 0);
  ck_assert_int_eq(stat(dest, &b), 0);
  ck_assert_uint_ne(a.st_ino, b.st_ino);
  ck_assert_uint_eq(b.st_mode & 0777, 0750);
  write_file(src, "changed"); /* the source changes: the cache's copy does not */
  ck_assert_ok(irm_build_cache_fetch_linked(c, key, dest, &st));
  ck_assert_int_eq(st, IRM_BUILD_CACHE_HIT);
  ck_assert_str_eq(read_file(dest), "a library elsewhere");
  irm_build_cache_close(c);
  unlink(src);
  unlink(dest);
  remove_dir(dir);
}
END_TEST

START_TEST(test_eviction_at_the_cap_least_recently_used) {
  char dir[512], src[600], dest[600], keys[5][65];
  temp_dir(dir, sizeof dir);
  snprintf(src, sizeof src, "%s/src.o", dir);
  snprintf(dest, sizeof dest, "%s/dest.o", dir);
  char payload[1001];
  memset(payload, 'p', 1000);
  payload[1000] = '\0';
  write_file(src, payload);
  irm_build_cache *c = NULL;
  ck_assert_ok(irm_build_cache_open(dir, &c));
  for (int i = 0; i < 5; i++) {
    char text[24], entry[1024];
    snprintf(text, sizeof text, "unit %d", i);
    key_of(text, keys[i]);
    ck_assert_ok(irm_build_cache_store(c, keys[i], src));
    /* their last use: entry i at second 1000 + i (no waiting on the clock) */
    snprintf(entry, sizeof entry, "%s/objects/%.2s/%s", dir, keys[i], keys[i]);
    struct timespec t[2] = {{1000 + i, 0}, {1000 + i, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, entry, t, 0), 0);
  }
  irm_build_cache_status st;
  ck_assert_ok(irm_build_cache_fetch(c, keys[0], dest, &st)); /* the oldest, used now */
  ck_assert_int_eq(st, IRM_BUILD_CACHE_HIT);
  irm_build_cache_info_t info;
  ck_assert_ok(irm_build_cache_info(dir, &info));
  ck_assert_uint_eq(info.entries, 5);
  uint64_t entry_bytes = info.bytes / 5, removed = 0;
  ck_assert_ok(irm_build_cache_trim(c, 2 * entry_bytes + entry_bytes / 2, &removed));
  ck_assert_uint_eq(removed, 3);
  ck_assert_ok(irm_build_cache_info(dir, &info));
  ck_assert_uint_eq(info.entries, 2);
  int expect_hit[5] = {1, 0, 0, 0, 1}; /* the one just used and the newest stay */
  for (int i = 0; i < 5; i++) {
    ck_assert_ok(irm_build_cache_fetch(c, keys[i], dest, &st));
    ck_assert_msg((st == IRM_BUILD_CACHE_HIT) == expect_hit[i], "entry %d", i);
  }
  /* under the cap: nothing goes */
  ck_assert_ok(irm_build_cache_trim(c, info.bytes, &removed));
  ck_assert_uint_eq(removed, 0);
  irm_build_cache_close(c);
  remove_dir(dir);
}
END_TEST

static char warned[1024];
static void keep_warning(const char *msg, void *user) {
  (void)user;
  snprintf(warned, sizeof warned, "%s", msg);
}

START_TEST(test_environment) {
  char buf[4096];
  setenv("IRM_CACHE_DIR", "/some/where", 1);
  ck_assert_ok(irm_build_cache_default_dir(buf, sizeof buf));
  ck_assert_str_eq(buf, "/some/where");
  unsetenv("IRM_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  ck_assert_ok(irm_build_cache_default_dir(buf, sizeof buf));
  ck_assert_str_eq(buf, "/xdg/irm");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  ck_assert_ok(irm_build_cache_default_dir(buf, sizeof buf));
  ck_assert_str_eq(buf, "/home/u/.cache/irm");
  unsetenv("HOME");
  ck_assert_error(irm_build_cache_default_dir(buf, sizeof buf), IRM_EVALUE, "ValueError: build cache: no folder");
  setenv("IRM_CACHE", "0", 1);
  ck_assert_int_eq(irm_build_cache_enabled_by_env(), 0);
  setenv("IRM_CACHE", "1", 1);
  ck_assert_int_eq(irm_build_cache_enabled_by_env(), 1);
  setenv("IRM_CACHE_SIZE", "2M", 1);
  ck_assert_uint_eq(irm_build_cache_cap_by_env(), 2u << 20);
  irm_set_warning_handler(keep_warning, NULL);
  setenv("IRM_CACHE_SIZE", "lots", 1);
  ck_assert_uint_eq(irm_build_cache_cap_by_env(), 1u << 30);
  ck_assert_ptr_nonnull(strstr(warned, "IRM_CACHE_SIZE='lots' is not a size"));
  irm_set_warning_handler(NULL, NULL);
}
END_TEST

/* ---- export_library through the cache ------------------------------------------ */

/* AOT_MAIN's weight w, seeded, NEW. */
static irm_object *seeded_weight(uint64_t seed) {
  int64_t shape[] = {2, 8};
  irm_any w = irm_any_object(seeded_tensor(shape, 2, seed));
  irm_object *p = map1("w", w);
  irm_any_release(&w);
  return p;
}

/* A small model (its units compile fast) with its weight (linked params),
 * built for target; *m NEW. */
static irm_object *cache_build_with(irm_module **m, const char *target, const irm_object *params) {
  *m = parse_module(AOT_MAIN);
  const char *keys[] = {"interface-api", "unpacked-api"};
  irm_any vals[] = {irm_any_str("c"), irm_any_bool(true)};
  irm_object *e = aot_executor(keys, vals, 2);
  irm_object *r = aot_build(*m, target, e, "crt", params, "ca");
  irm_object_release(e);
  return r;
}

static irm_object *cache_build(irm_module **m, const char *target) {
  irm_object *p = seeded_weight(7);
  irm_object *r = cache_build_with(m, target, p);
  irm_object_release(p);
  return r;
}

/* What each export test starts from: its folder, a cache folder and a
 * library path in it, and the small model built. */
typedef struct fixture_ {
  char dir[512], cache[600], path[600];
  irm_module *m;
  irm_object *r;
} fixture_;

static void fixture_open(fixture_ *f) {
  temp_dir(f->dir, sizeof f->dir);
  snprintf(f->cache, sizeof f->cache, "%s/cache", f->dir);
  snprintf(f->path, sizeof f->path, "%s/lib.so", f->dir);
  f->r = cache_build(&f->m, "c");
}

static void fixture_close(fixture_ *f) {
  irm_object_release(f->r);
  irm_object_release(f->m);
  remove_dir(f->dir);
}

static irm_export_options export_cached(const irm_object *r, const char *cache, const char *path) {
  irm_export_options o = IRM_EXPORT_OPTIONS_DEFAULT;
  o.jobs = 2;
  o.cache = 1;
  o.cache_dir = cache;
  o.progress = 0;
  ck_assert_ok(irm_build_export_library_with(r, path, &o));
  return o;
}

static void runs(const irm_module *m, const char *path) {
  irm_object *loaded = NULL;
  ck_assert_ok(irm_runtime_load(path, &loaded));
  irm_object *p = seeded_weight(7);
  aot_compare_with(m, p, loaded, 1, 5);
  irm_object_release(p);
  irm_object_release(loaded);
}

START_TEST(test_export_hits) {
  fixture_ f;
  fixture_open(&f);
  irm_export_options o = export_cached(f.r, f.cache, f.path);
  size_t cacheable = o.units - 1; /* the params' assembler unit is never cached */
  ck_assert_uint_ge(cacheable, 2);
  ck_assert_uint_eq(o.cache_hits, 0);
  ck_assert_uint_eq(o.compiled, o.units);
  runs(f.m, f.path);
  o = export_cached(f.r, f.cache, f.path); /* the same build: the whole library a hit */
  ck_assert_uint_eq(o.cache_hits, o.units);
  ck_assert_uint_eq(o.compiled, 0);
  runs(f.m, f.path);
  /* other weights: the C units hit, the weights' unit is assembled, the library linked */
  irm_module *m2 = NULL;
  irm_object *p2 = seeded_weight(8), *r2 = cache_build_with(&m2, "c", p2);
  o = export_cached(r2, f.cache, f.path);
  ck_assert_uint_eq(o.cache_hits, cacheable);
  ck_assert_uint_eq(o.compiled, 1);
  irm_object *loaded = NULL;
  ck_assert_ok(irm_runtime_load(f.path, &loaded));
  aot_compare_with(m2, p2, loaded, 1, 6);
  irm_object_release(loaded);
  irm_object_release(r2);
  irm_object_release(p2);
  irm_object_release(m2);
  /* the f.cache off (the option, then IRM_CACHE=0 under the default option) */
  o = (irm_export_options)IRM_EXPORT_OPTIONS_DEFAULT;
  o.cache = 0;
  o.cache_dir = f.cache;
  o.progress = 0;
  ck_assert_ok(irm_build_export_library_with(f.r, f.path, &o));
  ck_assert_uint_eq(o.cache_hits, 0);
  setenv("IRM_CACHE", "0", 1);
  o.cache = -1;
  ck_assert_ok(irm_build_export_library_with(f.r, f.path, &o));
  ck_assert_uint_eq(o.cache_hits, 0);
  unsetenv("IRM_CACHE");
  fixture_close(&f);
}
END_TEST

START_TEST(test_export_misses_after_a_flag_or_compiler_change) {
  fixture_ f;
  fixture_open(&f);
  char wrapper[600];
  irm_export_options o = export_cached(f.r, f.cache, f.path);
#if defined(__x86_64__)
  /* a flag change: -mattr=+sse2 adds -msse2 (the baseline of x86-64: the code runs) */
  irm_module *m2 = NULL;
  irm_object *r2 = cache_build(&m2, "c -mattr=+sse2");
  o = export_cached(r2, f.cache, f.path);
  ck_assert_uint_eq(o.cache_hits, 0);
  runs(m2, f.path);
  irm_object_release(r2);
  irm_object_release(m2);
#endif
  /* a compiler change: a wrapper cc whose --version differs */
  snprintf(wrapper, sizeof wrapper, "%s/wrapped-cc", f.dir);
  write_file(wrapper, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'wrapped cc 1'; exit 0; fi\nexec cc \"$@\"\n");
  chmod(wrapper, 0755);
  setenv("CC", wrapper, 1);
  o = export_cached(f.r, f.cache, f.path);
  ck_assert_uint_eq(o.cache_hits, 0);
  o = export_cached(f.r, f.cache, f.path);
  ck_assert_uint_eq(o.cache_hits, o.units);
  write_file(wrapper, "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'wrapped cc 2.0'; exit 0; fi\nexec cc \"$@\"\n");
  o = export_cached(f.r, f.cache, f.path);
  ck_assert_uint_eq(o.cache_hits, 0);
  runs(f.m, f.path);
  unsetenv("CC");
  fixture_close(&f);
}
END_TEST

START_TEST(test_export_rebuilds_corrupt_entries) {
  fixture_ f;
  fixture_open(&f);
  irm_export_options o = export_cached(f.r, f.cache, f.path);
  size_t cacheable = o.units - 1;
  /* every entry's last byte flipped */
  char objects[700];
  snprintf(objects, sizeof objects, "%s/objects", f.cache);
  DIR *top = opendir(objects);
  struct dirent *sub;
  size_t flipped = 0;
  while ((sub = readdir(top))) {
    if (sub->d_name[0] == '.') continue;
    char inner[1024];
    snprintf(inner, sizeof inner, "%s/%s", objects, sub->d_name);
    DIR *d = opendir(inner);
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char entry[1600];
      snprintf(entry, sizeof entry, "%s/%s", inner, e->d_name);
      struct stat st;
      ck_assert_int_eq(stat(entry, &st), 0);
      int fd = open(entry, O_RDWR);
      unsigned char byte;
      ck_assert_int_eq(pread(fd, &byte, 1, st.st_size - 1), 1);
      byte ^= 0xff;
      ck_assert_int_eq(pwrite(fd, &byte, 1, st.st_size - 1), 1);
      close(fd);
      flipped++;
    }
    closedir(d);
  }
  closedir(top);
  ck_assert_uint_eq(flipped, cacheable + 2); /* and the linked library's file and entry */
  o = export_cached(f.r, f.cache, f.path);   /* detected: compiled again, and a library that runs */
  ck_assert_uint_eq(o.cache_hits, 0);
  ck_assert_uint_eq(o.compiled, o.units);
  runs(f.m, f.path);
  o = export_cached(f.r, f.cache, f.path); /* stored again */
  ck_assert_uint_eq(o.cache_hits, o.units);
  fixture_close(&f);
}
END_TEST

typedef struct sharer_ {
  const irm_object *result;
  const char *cache;
  char path[700];
  int rc;
} sharer_;

static void *share(void *arg) {
  sharer_ *s = arg;
  irm_export_options o = IRM_EXPORT_OPTIONS_DEFAULT;
  o.jobs = 2;
  o.cache = 1;
  o.cache_dir = s->cache;
  o.progress = 0;
  s->rc = irm_build_export_library_with(s->result, s->path, &o);
  return NULL;
}

START_TEST(test_two_builds_share_a_cache_at_once) {
  fixture_ f;
  fixture_open(&f);
  sharer_ s[2] = {{f.r, f.cache, "", -1}, {f.r, f.cache, "", -1}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    snprintf(s[i].path, sizeof s[i].path, "%s/lib%d.so", f.dir, i);
    ck_assert_int_eq(pthread_create(&t[i], NULL, share, &s[i]), 0);
  }
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(s[i].rc, IRM_OK);
    runs(f.m, s[i].path);
  }
  /* and another process, after them: every entry whole */
  snprintf(f.path, sizeof f.path, "%s/lib2.so", f.dir);
  pid_t pid = fork();
  if (pid == 0) {
    irm_export_options o = IRM_EXPORT_OPTIONS_DEFAULT;
    o.cache = 1;
    o.cache_dir = f.cache;
    o.progress = 0;
    _exit(irm_build_export_library_with(f.r, f.path, &o) == IRM_OK && o.cache_hits == o.units ? 0 : 1);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  ck_assert_int_eq(status, 0);
  irm_build_cache_info_t info;
  ck_assert_ok(irm_build_cache_info(f.cache, &info));
  ck_assert_uint_gt(info.entries, 0);
  fixture_close(&f);
}
END_TEST

START_TEST(test_unwritable_cache_warns_and_builds) {
  fixture_ f;
  fixture_open(&f);
  char file[560];
  snprintf(file, sizeof file, "%s/a-file", f.dir);
  write_file(file, "not a folder");
  snprintf(f.cache, sizeof f.cache, "%s/cache", file); /* a folder that cannot be made, even by root */
  irm_set_warning_handler(keep_warning, NULL);
  warned[0] = '\0';
  irm_build_cache *c = NULL;
  ck_assert_ok(irm_build_cache_open(f.cache, &c));
  ck_assert_int_eq(irm_build_cache_writable(c), 0);
  ck_assert_ptr_nonnull(strstr(warned, "build cache '"));
  ck_assert_ptr_nonnull(strstr(warned, "is not writable"));
  irm_build_cache_close(c);
  warned[0] = '\0';
  irm_export_options o = export_cached(f.r, f.cache, f.path);
  ck_assert_ptr_nonnull(strstr(warned, "is not writable"));
  ck_assert_uint_eq(o.compiled, o.units);
  runs(f.m, f.path);
  if (geteuid() != 0) { /* a read-only folder (root writes anyway) */
    char ro[700];
    snprintf(ro, sizeof ro, "%s/ro", f.dir);
    ck_assert_int_eq(mkdir(ro, 0555), 0);
    warned[0] = '\0';
    o = export_cached(f.r, ro, f.path);
    ck_assert_ptr_nonnull(strstr(warned, "is not writable"));
    runs(f.m, f.path);
  }
  irm_set_warning_handler(NULL, NULL);
  fixture_close(&f);
}
END_TEST

/* The file digest behind the source key (source_key.c): exact, memoized
 * only for a file unchanged for 2 s, and errors naming the file. */
START_TEST(test_file_digest_and_its_memo) {
  char dir[600], path[700], sub[700], a[33], b[33];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/model.onnx", dir);
  write_file(path, "model bytes");
  int hit = -1;
  ck_assert_int_eq(irm_build_file_digest(path, dir, a, &hit), IRM_OK);
  ck_assert_int_eq(hit, 0);
  ck_assert_int_eq(irm_build_file_digest(path, dir, b, &hit), IRM_OK);
  ck_assert_int_eq(hit, 0); /* changed within 2 s: never memoized */
  ck_assert_str_eq(a, b);
  write_file(path, "model bytez");
  ck_assert_int_eq(irm_build_file_digest(path, dir, b, NULL), IRM_OK);
  ck_assert_str_ne(a, b);
  struct stat st; /* a file unchanged for long: memoized on the first read, not read again */
  if (stat("/usr/bin/env", &st) == 0 && time(NULL) - st.st_ctim.tv_sec > 2) {
    ck_assert_int_eq(irm_build_file_digest("/usr/bin/env", dir, a, &hit), IRM_OK);
    ck_assert_int_eq(hit, 0);
    ck_assert_int_eq(irm_build_file_digest("/usr/bin/env", dir, b, &hit), IRM_OK);
    ck_assert_int_eq(hit, 1);
    ck_assert_str_eq(a, b);
  }
  /* read in chunks, it hashes as the cache's one-shot hash of a linked entry does */
  FILE *big = fopen(path, "wb");
  ck_assert_ptr_nonnull(big);
  for (unsigned i = 0; i < 300001; i++)
    fputc((int)((i * 7919u) & 0xffu), big); /* over two chunks, not a multiple of 16 */
  fclose(big);
  ck_assert_int_eq(irm_build_file_digest(path, dir, a, NULL), IRM_OK);
  irm_build_cache *cache = NULL;
  char key[65], entry[800];
  key_of("big file", key);
  ck_assert_int_eq(irm_build_cache_open(dir, &cache), IRM_OK);
  ck_assert_int_eq(irm_build_cache_store_linked(cache, key, path), IRM_OK);
  irm_build_cache_close(cache);
  snprintf(entry, sizeof entry, "%s/objects/%.2s/%s", dir, key, key);
  ck_assert_ptr_nonnull(strstr(read_file(entry), a));
  snprintf(sub, sizeof sub, "%s/missing.onnx", dir);
  ck_assert_int_eq(irm_build_file_digest(sub, dir, a, NULL), IRM_ERUNTIME);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "missing.onnx"));
  ck_assert_int_eq(irm_build_file_digest(dir, dir, a, NULL), IRM_EVALUE);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "not a regular file"));
  ck_assert_int_eq(irm_build_file_digest(NULL, dir, a, NULL), IRM_EVALUE);
  irm_module *prepared = NULL;
  irm_any target = irm_any_str("c");
  ck_assert_int_eq(irm_build_source_key(sub, "onnx", &target, NULL, NULL, NULL, NULL, NULL, dir, key, &prepared),
                   IRM_ERUNTIME);
  ck_assert_ptr_null(prepared);
  ck_assert_int_eq(irm_build_source_key(path, NULL, &target, NULL, NULL, NULL, NULL, NULL, dir, key, &prepared),
                   IRM_EVALUE);
  irm_clear_error();
  remove_dir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("build_cache");
  TCase *tc = tcase_create("build_cache");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_store_fetch_info_clear);
  tcase_add_test(tc, test_corrupt_entry_detected_and_removed);
  tcase_add_test(tc, test_linked_entry_is_the_file_itself);
  tcase_add_test(tc, test_linked_entry_copies_across_filesystems);
  tcase_add_test(tc, test_eviction_at_the_cap_least_recently_used);
  tcase_add_test(tc, test_environment);
  tcase_add_test(tc, test_export_hits);
  tcase_add_test(tc, test_export_misses_after_a_flag_or_compiler_change);
  tcase_add_test(tc, test_export_rebuilds_corrupt_entries);
  tcase_add_test(tc, test_two_builds_share_a_cache_at_once);
  tcase_add_test(tc, test_unwritable_cache_warns_and_builds);
  tcase_add_test(tc, test_file_digest_and_its_memo);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
