/* Compiler answers remembered across processes (backend/export/cc_memo.c,
 * docs/build.md#the-cpu): a build key with -mcpu=native and the library
 * look-up after it (cc --version for the toolchain key), taken in a fresh
 * process (a fork that has not asked in-process) against a cache that
 * already holds the answers, runs no compiler: CC is a wrapper that logs
 * every run. A changed compiler (its --version, or only its time), a
 * corrupt memo, IRM_CACHE=0 and a cache folder that cannot be made run
 * it again, with the same key and no error. Every test uses a temporary
 * folder of its own. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_util.h"
#include "irm/build.h"
#include "irm/build_cache.h"

typedef struct memo_fixture_ {
  char dir[512], cache[600], cc[560], log[560], key[560];
} memo_fixture_;

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

/* The wrapper cc: logs each run, answers --version with version, else runs cc. */
static void write_cc(const memo_fixture_ *f, const char *version) {
  char text[2048];
  snprintf(text, sizeof text,
           "#!/bin/sh\necho \"$*\" >> '%s'\nif [ \"$1\" = --version ]; then echo '%s'; exit 0; fi\nexec cc \"$@\"\n",
           f->log, version);
  write_file(f->cc, text);
  ck_assert_int_eq(chmod(f->cc, 0755), 0);
}

static void fixture_open(memo_fixture_ *f) {
  const char *t = getenv("TMPDIR");
  snprintf(f->dir, sizeof f->dir, "%s/irm-cc-memo-XXXXXX", t && t[0] ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(f->dir));
  snprintf(f->cache, sizeof f->cache, "%s/cache", f->dir);
  snprintf(f->cc, sizeof f->cc, "%s/memo-cc", f->dir);
  snprintf(f->log, sizeof f->log, "%s/cc.log", f->dir);
  snprintf(f->key, sizeof f->key, "%s/key", f->dir);
  write_cc(f, "memo cc 1");
}

static void fixture_close(memo_fixture_ *f) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Lines of the wrapper's log that hold needle: its runs so far that asked that. */
static int runs_of(const memo_fixture_ *f, const char *needle) {
  FILE *log = fopen(f->log, "r");
  char line[1024];
  int n = 0;
  while (log && fgets(line, sizeof line, log)) n += strstr(line, needle) != NULL;
  if (log) fclose(log);
  return n;
}

static int runs(const memo_fixture_ *f) { return runs_of(f, ""); }

/* In a child process (nothing remembered in-process): the key of an empty
 * module for c -mcpu=native and the library look-up, with the key written
 * to f->key. The compiler's runs it took. */
static int fresh_process(const memo_fixture_ *f, int cache_on) {
  int before = runs(f);
  pid_t pid = fork();
  if (pid == 0) {
    setenv("IRM_CACHE_DIR", f->cache, 1);
    setenv("CC", f->cc, 1);
    if (!cache_on) setenv("IRM_CACHE", "0", 1);
    irm_module *empty = NULL, *prepared = NULL;
    irm_any target = irm_any_str("c -mcpu=native");
    char key[65];
    int hit = 0;
    int rc = irm_module_new(NULL, NULL, &empty);
    if (!rc) rc = irm_build_model_key(empty, &target, NULL, NULL, NULL, NULL, NULL, NULL, key, &prepared);
    if (!rc && !prepared) rc = 1;
    if (!rc) rc = irm_build_model_library_fetch(key, prepared, NULL, NULL, f->cache, &hit);
    FILE *out = rc ? NULL : fopen(f->key, "w");
    if (out) fprintf(out, "%s", key);
    if (out) fclose(out);
    _exit(out ? 0 : 1);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  ck_assert_int_eq(status, 0);
  return runs(f) - before;
}

static char *key_text(const memo_fixture_ *f, char *buf, size_t size) {
  FILE *in = fopen(f->key, "r");
  ck_assert_ptr_nonnull(in);
  size_t n = fread(buf, 1, size - 1, in);
  buf[n] = '\0';
  fclose(in);
  return buf;
}

/* Whether this machine's CPU can be told without running anything. */
static int cpu_known(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) fclose(f);
  return f != NULL;
}

/* Two fresh processes: the first runs the compiler; both give the same
 * key. The second's runs. */
static int two_processes(const memo_fixture_ *f, int cache_on) {
  char first[80], second[80];
  ck_assert_int_gt(fresh_process(f, cache_on), 0);
  key_text(f, first, sizeof first);
  int again = fresh_process(f, cache_on);
  ck_assert_str_eq(key_text(f, second, sizeof second), first);
  return again;
}

START_TEST(test_a_fresh_process_reads_the_memo) {
  memo_fixture_ f;
  fixture_open(&f);
  int again = two_processes(&f, 1);
  if (cpu_known()) ck_assert_int_eq(again, 0);
  fixture_close(&f);
}
END_TEST

START_TEST(test_a_changed_compiler_misses) {
  memo_fixture_ f;
  fixture_open(&f);
  char first[80], second[80];
  fresh_process(&f, 1);
  key_text(&f, first, sizeof first);
  /* another --version: another identity, so native is asked again (the same CPU: the same key) */
  int native = runs_of(&f, "native -Q --help=target");
  ck_assert_int_eq(native, 1);
  write_cc(&f, "memo cc 2.0");
  ck_assert_int_gt(fresh_process(&f, 1), 0);
  ck_assert_int_eq(runs_of(&f, "native -Q --help=target"), 2);
  ck_assert_str_eq(key_text(&f, second, sizeof second), first);
  /* the same bytes, a later time: --version is asked again (the key is the same) */
  int again = fresh_process(&f, 1);
  if (cpu_known()) ck_assert_int_eq(again, 0);
  struct timespec times[2] = {{0, UTIME_OMIT}, {1234567890, 0}};
  ck_assert_int_eq(utimensat(AT_FDCWD, f.cc, times, 0), 0);
  ck_assert_int_gt(fresh_process(&f, 1), 0);
  ck_assert_int_eq(runs_of(&f, "--version"), 3);
  fixture_close(&f);
}
END_TEST

/* Flips the last byte of every entry under dir (each then fails its digest). */
static int corrupt_all(const char *dir) {
  char sub[1200], path[1600];
  int n = 0;
  DIR *top = opendir(dir);
  ck_assert_ptr_nonnull(top);
  for (struct dirent *e; (e = readdir(top));) {
    if (e->d_name[0] == '.') continue;
    snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
    DIR *d = opendir(sub);
    for (struct dirent *g; d && (g = readdir(d));) {
      if (g->d_name[0] == '.') continue;
      snprintf(path, sizeof path, "%s/%s", sub, g->d_name);
      int fd = open(path, O_RDWR);
      off_t end = fd >= 0 ? lseek(fd, -1, SEEK_END) : -1;
      char c;
      if (end >= 0 && read(fd, &c, 1) == 1) {
        c ^= 1;
        n += pwrite(fd, &c, 1, end) == 1;
      }
      if (fd >= 0) close(fd);
    }
    if (d) closedir(d);
  }
  closedir(top);
  return n;
}

START_TEST(test_a_corrupt_memo_is_ignored) {
  memo_fixture_ f;
  fixture_open(&f);
  char first[80], second[80], objects[700];
  fresh_process(&f, 1);
  key_text(&f, first, sizeof first);
  snprintf(objects, sizeof objects, "%s/objects", f.cache);
  ck_assert_int_gt(corrupt_all(objects), 0);
  ck_assert_int_gt(fresh_process(&f, 1), 0);
  ck_assert_str_eq(key_text(&f, second, sizeof second), first);
  fixture_close(&f);
}
END_TEST

START_TEST(test_the_cache_off_runs_the_compiler) {
  memo_fixture_ f;
  fixture_open(&f);
  ck_assert_int_gt(two_processes(&f, 0), 0);
  irm_build_cache_info_t info;
  ck_assert_ok(irm_build_cache_info(f.cache, &info));
  ck_assert_uint_eq(info.entries, 0); /* nothing remembered */
  fixture_close(&f);
}
END_TEST

START_TEST(test_a_cache_that_cannot_be_made_runs_the_compiler) {
  memo_fixture_ f;
  fixture_open(&f);
  char file[560];
  snprintf(file, sizeof file, "%s/a-file", f.dir);
  write_file(file, "not a folder\n");
  snprintf(f.cache, sizeof f.cache, "%s/cache", file); /* no folder can be made under a file */
  ck_assert_int_gt(two_processes(&f, 1), 0);           /* no error: the compiler runs, as without a cache */
  fixture_close(&f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cc_memo");
  TCase *tc = tcase_create("cc_memo");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_a_fresh_process_reads_the_memo);
  tcase_add_test(tc, test_a_changed_compiler_misses);
  tcase_add_test(tc, test_a_corrupt_memo_is_ignored);
  tcase_add_test(tc, test_the_cache_off_runs_the_compiler);
  tcase_add_test(tc, test_a_cache_that_cannot_be_made_runs_the_compiler);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
