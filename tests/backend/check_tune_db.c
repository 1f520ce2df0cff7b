/* The tuning database (irm/tune_db.h): a new file's schema, the best
 * record (the lowest median, the default rule kept within the minimum
 * gain, a candidate that failed once never applied) and the reasons none
 * applies (another target, another CPU, failed or refused measurements), migration from a version 1 file
 * written with SQLite directly, four processes writing at once, damaged
 * and foreign files refused with nothing applied, a read-only file read,
 * and the tune.Database* globals. Every test works in a fresh folder. */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_util.h"
#include "irm/tune_db.h"

static char dir_[512], path_[600];

static void setup(void) {
  const char *t = getenv("TMPDIR");
  snprintf(dir_, sizeof dir_, "%s/irm-tune-test-XXXXXX", t && t[0] ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir_));
  snprintf(path_, sizeof path_, "%s/tune.db", dir_);
}

static void teardown(void) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' 2>/dev/null; rm -rf '%s'", dir_, dir_);
  ck_assert_int_eq(system(cmd), 0);
}

static const irm_tune_workload conv_ = {"conv2d_nchwc", "{\"ic\":64,\"oc\":64}", "float32", "llvm -mcpu=x", "avx2,fma"};

static int64_t add_workload(irm_tune_db *db, const irm_tune_workload *w) {
  int64_t id = 0;
  ck_assert_ok(irm_tune_db_add_workload(db, w, &id));
  ck_assert_int_gt(id, 0);
  return id;
}

static void add(irm_tune_db *db, int64_t wid, const char *knobs, double mean, const char *error) {
  irm_tune_measurement m = {knobs, mean, mean / 10, error, "cc 12"};
  ck_assert_ok(irm_tune_db_add_measurement(db, wid, &m, NULL));
}

/* The best record of w must have knobs want (NULL: none, reason having
 * why). */
static void expect_best(irm_tune_db *db, const irm_tune_workload *w, const char *want, const char *why) {
  irm_tune_record r;
  ck_assert_ok(irm_tune_db_best(db, w, NULL, NULL, &r));
  if (want) {
    ck_assert_msg(r.found, "no record: %s", r.reason);
    ck_assert_str_eq(r.knobs, want);
  } else {
    ck_assert_int_eq(r.found, 0);
    ck_assert_msg(strstr(r.reason, why), "reason '%s' lacks '%s'", r.reason, why);
  }
  irm_tune_record_clear(&r);
}

START_TEST(test_create_and_best) {
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  ck_assert_int_eq(irm_tune_db_opened_version(db), 0);
  int64_t wid = add_workload(db, &conv_);
  ck_assert_int_eq(add_workload(db, &conv_), wid); /* added once */
  expect_best(db, &conv_, NULL, "no measurement");
  add(db, wid, "{\"ow_tile\": 6, \"order\": \"oc_outer\"}", 2e-3, NULL);
  add(db, wid, "{\"order\":\"row_outer\",\"ow_tile\":4}", 1e-3, NULL);
  add(db, wid, "{\"ow_tile\":14}", 0.5e-3, "wrong result: 3 of 4096 elements differ");
  /* spacing and key order do not make another candidate */
  add(db, wid, "{\"order\":\"oc_outer\",\"ow_tile\":6}", 3e-3, NULL);
  expect_best(db, &conv_, "{\"order\":\"row_outer\",\"ow_tile\":4}", NULL);
  irm_tune_record r;
  ck_assert_ok(irm_tune_db_best(db, &conv_, NULL, NULL, &r));
  ck_assert_double_eq_tol(r.mean, 1e-3, 1e-12);
  ck_assert_str_eq(r.compiler, "cc 12");
  ck_assert_str_eq(r.irm_version, IRM_VERSION_STRING);
  ck_assert_int_eq((int)strlen(r.time), 20); /* 2026-01-02T03:04:05Z */
  irm_tune_record_clear(&r);
  irm_tune_db_close(db);
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_READ, &db));
  ck_assert_int_eq(irm_tune_db_opened_version(db), IRM_TUNE_DB_SCHEMA_VERSION);
  expect_best(db, &conv_, "{\"order\":\"row_outer\",\"ow_tile\":4}", NULL);
  irm_tune_db_close(db);
}
END_TEST

/* Refuses tiles wider than 4 (a knob check's stand-in). */
static int narrow_only(const char *knobs, void *ctx, char *why, size_t size) {
  (void)ctx;
  if (strstr(knobs, "\"ow_tile\":4")) return 1;
  snprintf(why, size, "ow_tile above 4");
  return 0;
}

START_TEST(test_reasons) {
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  int64_t wid = add_workload(db, &conv_);
  add(db, wid, "{\"ow_tile\":6}", 1e-3, NULL);
  add(db, wid, "{\"ow_tile\":4}", 2e-3, NULL);
  /* the check skips the faster record it refuses */
  irm_tune_record r;
  ck_assert_ok(irm_tune_db_best(db, &conv_, narrow_only, NULL, &r));
  ck_assert_int_eq(r.found, 1);
  ck_assert_str_eq(r.knobs, "{\"ow_tile\":4}");
  irm_tune_record_clear(&r);
  irm_tune_workload other_cpu = conv_, other_target = conv_, unknown = conv_, failed = conv_;
  other_cpu.features = "sse2";
  expect_best(db, &other_cpu, NULL, "recorded on a CPU with features 'avx2,fma', not this build's 'sse2'");
  other_target.target = "llvm -mcpu=y";
  expect_best(db, &other_target, NULL, "recorded for target 'llvm -mcpu=x' only, not 'llvm -mcpu=y'");
  unknown.shapes = "{}";
  expect_best(db, &unknown, NULL, "no record for this workload");
  failed.dtypes = "float64";
  int64_t f = add_workload(db, &failed);
  add(db, f, "{\"ow_tile\":6}", 0, "timeout after 10 s");
  add(db, f, "{\"ow_tile\":8}", 0, "timeout after 10 s");
  expect_best(db, &failed, NULL, "every measurement failed (2), one with: timeout after 10 s");
  irm_tune_workload narrow = conv_;
  narrow.dtypes = "int8";
  int64_t n = add_workload(db, &narrow);
  add(db, n, "{\"ow_tile\":6}", 1e-3, NULL);
  ck_assert_ok(irm_tune_db_best(db, &narrow, narrow_only, NULL, &r));
  ck_assert_int_eq(r.found, 0);
  ck_assert_str_eq(r.reason, "every measured candidate (1) is invalid here: ow_tile above 4 ({\"ow_tile\":6})");
  irm_tune_record_clear(&r);
  irm_tune_db_close(db);
}
END_TEST

/* The best is the lowest median (a lucky first time does not hold), the
 * default rule stays unless beaten by IRM_TUNE_DB_MIN_GAIN, and a
 * candidate that failed once never applies. */
START_TEST(test_median_gain_and_failures) {
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  int64_t wid = add_workload(db, &conv_);
  add(db, wid, "{}", 1.00e-3, NULL);
  add(db, wid, "{\"ow_tile\":2}", 0.50e-3, NULL); /* lucky once */
  add(db, wid, "{\"ow_tile\":5}", 0.95e-3, NULL);
  expect_best(db, &conv_, "{\"ow_tile\":2}", NULL);
  add(db, wid, "{\"ow_tile\":2}", 1.10e-3, NULL);
  add(db, wid, "{\"ow_tile\":2}", 1.20e-3, NULL);
  irm_tune_record r;
  ck_assert_ok(irm_tune_db_best(db, &conv_, NULL, NULL, &r));
  ck_assert_str_eq(r.knobs, "{\"ow_tile\":5}");
  ck_assert_int_eq(r.measurements, 1);
  ck_assert_double_eq_tol(r.spread, 0.095e-3, 1e-12); /* its one measurement's own */
  irm_tune_record_clear(&r);
  /* measured again: the median of 0.95, 0.90 and 1.00 with their range */
  add(db, wid, "{\"ow_tile\":5}", 0.90e-3, NULL);
  add(db, wid, "{\"ow_tile\":5}", 1.00e-3, NULL);
  ck_assert_ok(irm_tune_db_best(db, &conv_, NULL, NULL, &r));
  ck_assert_str_eq(r.knobs, "{\"ow_tile\":5}");
  ck_assert_int_eq(r.measurements, 3);
  ck_assert_double_eq_tol(r.mean, 0.95e-3, 1e-12);
  ck_assert_double_eq_tol(r.spread, 0.10e-3, 1e-12);
  irm_tune_record_clear(&r);
  /* an even count's median is the middle two's mean: 0.975, 2.5% below 1.0 */
  add(db, wid, "{\"ow_tile\":5}", 1.04e-3, NULL);
  ck_assert_ok(irm_tune_db_best(db, &conv_, NULL, NULL, &r));
  ck_assert_str_eq(r.knobs, "{\"ow_tile\":5}");
  ck_assert_double_eq_tol(r.mean, 0.975e-3, 1e-12);
  irm_tune_record_clear(&r);
  /* 1.00 is within the gain of the default rule's 1.00: it stays */
  add(db, wid, "{\"ow_tile\":5}", 1.05e-3, NULL);
  expect_best(db, &conv_, "{}", NULL);
  /* the default rule measured slower (its median 1.05): the candidate wins */
  add(db, wid, "{}", 1.05e-3, NULL);
  add(db, wid, "{}", 1.10e-3, NULL);
  expect_best(db, &conv_, "{\"ow_tile\":5}", NULL);
  /* a failure of the leader removes it, whatever its times */
  add(db, wid, "{\"ow_tile\":5}", 0, "crashed: signal 11");
  expect_best(db, &conv_, "{}", NULL);
  /* a workload whose every candidate failed once says so */
  irm_tune_workload flaky = conv_;
  flaky.dtypes = "float16";
  int64_t f = add_workload(db, &flaky);
  add(db, f, "{}", 1e-3, NULL);
  add(db, f, "{}", 0, "timeout after 10 s");
  expect_best(db, &flaky, NULL, "every measured candidate failed at least once (1 failed), one with: timeout");
  irm_tune_db_close(db);
}
END_TEST

/* Refuses the default rule's candidate: the winner's choice must be the
 * one a check keeps even when the default rule would have stayed. */
static int no_default(const char *knobs, void *ctx, char *why, size_t size) {
  const char **last = ctx;
  if (strcmp(knobs, "{}") == 0) {
    snprintf(why, size, "no default here");
    return 0;
  }
  *last = strstr(knobs, "ow_tile\":5") ? "5" : "other";
  return 1;
}

START_TEST(test_gain_with_a_refused_default) {
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  int64_t wid = add_workload(db, &conv_);
  add(db, wid, "{}", 1.00e-3, NULL);
  add(db, wid, "{\"ow_tile\":5}", 0.99e-3, NULL);
  add(db, wid, "{\"ow_tile\":7}", 1.50e-3, NULL);
  const char *last = NULL;
  irm_tune_record r;
  ck_assert_ok(irm_tune_db_best(db, &conv_, no_default, &last, &r));
  ck_assert_int_eq(r.found, 1);
  ck_assert_str_eq(r.knobs, "{\"ow_tile\":5}");
  ck_assert_str_eq(last, "5");
  irm_tune_record_clear(&r);
  irm_tune_db_close(db);
}
END_TEST

START_TEST(test_bad_writes) {
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  int64_t wid = add_workload(db, &conv_);
  irm_tune_measurement m = {"[1, 2]", 1e-3, 0, NULL, ""};
  ck_assert_error(irm_tune_db_add_measurement(db, wid, &m, NULL), IRM_EVALUE,
                  "ValueError: tuning database: knobs must be a JSON object, got '[1, 2]'");
  m.knobs = "{\"a\":";
  ck_assert_error(irm_tune_db_add_measurement(db, wid, &m, NULL), IRM_EVALUE, "ValueError: tuning database: knobs");
  m.knobs = "{}";
  ck_assert_error(irm_tune_db_add_measurement(db, wid + 7, &m, NULL), IRM_EVALUE, "ValueError: tuning database '");
  ck_assert_error_mentions("no workload");
  m.mean = -1;
  ck_assert_error(irm_tune_db_add_measurement(db, wid, &m, NULL), IRM_EVALUE,
                  "ValueError: tuning database: a measurement needs a mean > 0");
  irm_tune_workload w = conv_;
  w.features = NULL;
  ck_assert_error(irm_tune_db_add_workload(db, &w, NULL), IRM_EVALUE,
                  "ValueError: tuning database workload: no features given");
  irm_tune_db_close(db);
  /* nothing of that reached the file: the workload has no measurement */
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_READ, &db));
  expect_best(db, &conv_, NULL, "the workload has no measurement");
  m.mean = 1e-3;
  ck_assert_error(irm_tune_db_add_measurement(db, wid, &m, NULL), IRM_EVALUE, "ValueError: tuning database '");
  ck_assert_error_mentions("is open read-only");
  irm_tune_db_close(db);
  char missing[700];
  snprintf(missing, sizeof missing, "%s/none.db", dir_);
  ck_assert_error(irm_tune_db_open(missing, IRM_TUNE_DB_READ, &db), IRM_EVALUE, "ValueError: no tuning database '");
  ck_assert_ptr_null(db);
}
END_TEST

static void sql_exec(sqlite3 *s, const char *sql) {
  char *err = NULL;
  int rc = sqlite3_exec(s, sql, NULL, NULL, &err);
  ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, err ? err : "?");
}

/* The version 1 schema, as irm 0.1's first tuner wrote it. */
static void write_version_1(const char *path) {
  sqlite3 *s = NULL;
  ck_assert_int_eq(sqlite3_open(path, &s), SQLITE_OK);
  sql_exec(s, "CREATE TABLE workloads(id INTEGER PRIMARY KEY, family TEXT NOT NULL, shapes TEXT NOT NULL,"
              " dtypes TEXT NOT NULL, target TEXT NOT NULL, UNIQUE(family, shapes, dtypes, target));"
              "CREATE TABLE candidates(id INTEGER PRIMARY KEY, workload_id INTEGER NOT NULL REFERENCES workloads(id),"
              " knobs TEXT NOT NULL, UNIQUE(workload_id, knobs));"
              "CREATE TABLE measurements(id INTEGER PRIMARY KEY, candidate_id INTEGER NOT NULL"
              " REFERENCES candidates(id), mean REAL, spread REAL, error TEXT, irm_version TEXT NOT NULL,"
              " time TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));"
              "INSERT INTO workloads VALUES (1, 'conv2d_nchwc', '{\"ic\":64,\"oc\":64}', 'float32', 'llvm -mcpu=x');"
              "INSERT INTO candidates VALUES (1, 1, '{\"ow_tile\":4}');"
              "INSERT INTO measurements(candidate_id, mean, spread, irm_version) VALUES (1, 0.001, 0.0001, '0.0.9');"
              "PRAGMA user_version = 1;");
  sqlite3_close(s);
}

START_TEST(test_migration_from_version_1) {
  write_version_1(path_);
  irm_tune_workload old = conv_;
  old.features = ""; /* version 1 did not know the CPU */
  irm_tune_db *db = NULL;
  /* read-only, it is read as it is */
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_READ, &db));
  ck_assert_int_eq(irm_tune_db_opened_version(db), 1);
  expect_best(db, &old, "{\"ow_tile\":4}", NULL);
  expect_best(db, &conv_, NULL, "recorded on a CPU with features '', not this build's 'avx2,fma'");
  irm_tune_db_close(db);
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  ck_assert_int_eq(irm_tune_db_opened_version(db), 1);
  expect_best(db, &old, "{\"ow_tile\":4}", NULL);
  /* the new columns work: the same shapes on a known CPU is another workload */
  int64_t wid = add_workload(db, &conv_);
  ck_assert_int_ne(wid, 1);
  add(db, wid, "{\"ow_tile\":6}", 1e-3, NULL);
  irm_tune_record r;
  ck_assert_ok(irm_tune_db_best(db, &conv_, NULL, NULL, &r));
  ck_assert_str_eq(r.compiler, "cc 12");
  irm_tune_record_clear(&r);
  ck_assert_ok(irm_tune_db_best(db, &old, NULL, NULL, &r));
  ck_assert_str_eq(r.irm_version, "0.0.9");
  ck_assert_str_eq(r.compiler, "");
  irm_tune_record_clear(&r);
  irm_tune_db_close(db);
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_READ, &db));
  ck_assert_int_eq(irm_tune_db_opened_version(db), IRM_TUNE_DB_SCHEMA_VERSION);
  irm_tune_db_close(db);
}
END_TEST

static int count_visit(const irm_tune_workload *w, const irm_tune_record *best, int64_t n, int64_t failed, void *ctx) {
  (void)w;
  (void)best;
  int64_t *c = ctx;
  c[0] += 1;
  c[1] += n;
  c[2] += failed;
  return 0;
}

/* One writer process: its own workload and 25 measurements on the shared
 * file, each its own transaction. 0 on success. */
static int writer(int k) {
  irm_tune_db *db = NULL;
  if (irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db)) {
    fprintf(stderr, "writer %d: %s\n", k, irm_last_error());
    return 1;
  }
  char shapes[32];
  snprintf(shapes, sizeof shapes, "{\"writer\":%d}", k);
  irm_tune_workload w = conv_;
  w.shapes = shapes;
  int64_t shared = 0, own = 0;
  int rc = irm_tune_db_add_workload(db, &conv_, &shared) || irm_tune_db_add_workload(db, &w, &own);
  for (int i = 0; i < 25 && !rc; i++) {
    char knobs[64];
    snprintf(knobs, sizeof knobs, "{\"ow_tile\":%d,\"writer\":%d}", i, k);
    irm_tune_measurement m = {knobs, 1e-3 + i * 1e-6, 0, i % 5 == 4 ? "crashed" : NULL, ""};
    rc = irm_tune_db_add_measurement(db, i % 2 ? shared : own, &m, NULL);
  }
  if (rc) fprintf(stderr, "writer %d: %s\n", k, irm_last_error());
  irm_tune_db_close(db);
  return rc != 0;
}

START_TEST(test_four_concurrent_writers) {
  pid_t pids[4];
  for (int k = 0; k < 4; k++) {
    pids[k] = fork();
    ck_assert_int_ge(pids[k], 0);
    if (pids[k] == 0) _exit(writer(k));
  }
  for (int k = 0; k < 4; k++) {
    int status = 0;
    ck_assert_int_eq(waitpid(pids[k], &status, 0), pids[k]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d failed", k);
  }
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_READ, &db));
  int64_t c[3] = {0, 0, 0};
  ck_assert_ok(irm_tune_db_each(db, NULL, count_visit, c));
  ck_assert_int_eq(c[0], 5);   /* the shared workload once, one per writer */
  ck_assert_int_eq(c[1], 100); /* every measurement */
  ck_assert_int_eq(c[2], 20);
  memset(c, 0, sizeof c);
  ck_assert_ok(irm_tune_db_each(db, "writer\":2", count_visit, c));
  ck_assert_int_eq(c[0], 1);
  irm_tune_db_close(db);
}
END_TEST

static void write_bytes(const char *path, const char *bytes, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

static size_t file_size(const char *path) {
  struct stat st;
  ck_assert_int_eq(stat(path, &st), 0);
  return (size_t)st.st_size;
}

START_TEST(test_damaged_and_foreign_files) {
  static const char junk[] = "this is a text file, not a database at all; it is long enough to have a header......";
  write_bytes(path_, junk, sizeof junk);
  irm_tune_db *db = NULL;
  for (int mode = 0; mode < 2; mode++) {
    ck_assert_error(irm_tune_db_open(path_, (irm_tune_db_mode)mode, &db), IRM_EVALUE,
                    "ValueError: not a readable tuning database '");
    ck_assert_error_mentions("file is not a database");
    ck_assert_ptr_null(db);
    ck_assert_uint_eq(file_size(path_), sizeof junk); /* left as it was */
  }
  /* a real database whose pages are damaged past the header */
  unlink(path_);
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  int64_t wid = add_workload(db, &conv_);
  for (int i = 0; i < 200; i++) {
    char knobs[48];
    snprintf(knobs, sizeof knobs, "{\"ow_tile\":%d}", i);
    add(db, wid, knobs, 1e-3, NULL);
  }
  irm_tune_db_close(db);
  size_t n = file_size(path_);
  ck_assert_uint_gt(n, 8192);
  FILE *f = fopen(path_, "r+b");
  ck_assert_ptr_nonnull(f);
  fseek(f, 4096 + 8, SEEK_SET); /* page 2's cells */
  for (int i = 0; i < 2000; i++) fputc(0xA5, f);
  fclose(f);
  int rc = irm_tune_db_open(path_, IRM_TUNE_DB_READ, &db);
  ck_assert_int_eq(rc, IRM_EVALUE);
  ck_assert_msg(strstr(irm_last_error(), "tuning database '") != NULL, "%s", irm_last_error());
  ck_assert_ptr_null(db);
  /* another program's SQLite file is no tuning database */
  unlink(path_);
  sqlite3 *s = NULL;
  ck_assert_int_eq(sqlite3_open(path_, &s), SQLITE_OK);
  sql_exec(s, "CREATE TABLE t(x)");
  sqlite3_close(s);
  ck_assert_error(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db), IRM_EVALUE, "ValueError: '");
  ck_assert_error_mentions("an SQLite database but no irm tuning database");
  /* a newer schema than this irm's */
  ck_assert_int_eq(sqlite3_open(path_, &s), SQLITE_OK);
  sql_exec(s, "PRAGMA user_version = 99");
  sqlite3_close(s);
  ck_assert_error(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db), IRM_EVALUE, "ValueError: tuning database '");
  ck_assert_error_mentions("has schema version 99, newer than this irm's (2)");
}
END_TEST

START_TEST(test_read_only_file) {
  irm_tune_db *db = NULL;
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db));
  add(db, add_workload(db, &conv_), "{\"ow_tile\":4}", 1e-3, NULL);
  irm_tune_db_close(db);
  ck_assert_int_eq(chmod(path_, 0444), 0);
  ck_assert_int_eq(chmod(dir_, 0555), 0); /* no WAL index can be made beside it */
  ck_assert_ok(irm_tune_db_open(path_, IRM_TUNE_DB_READ, &db));
  expect_best(db, &conv_, "{\"ow_tile\":4}", NULL);
  irm_tune_db_close(db);
  if (geteuid() != 0) { /* root writes anyway */
    ck_assert_int_ne(irm_tune_db_open(path_, IRM_TUNE_DB_WRITE, &db), 0);
    ck_assert_ptr_null(db);
  }
}
END_TEST

START_TEST(test_globals) {
  irm_any args[7], ret = irm_any_none();
  args[0] = irm_any_str(path_);
  ck_assert_ok(irm_func_call_global("tune.DatabaseOpen", args, 1, &ret));
  ck_assert_int_eq(ret.v_int, 0);
  const char *w[] = {conv_.family, conv_.shapes, conv_.dtypes, conv_.target, conv_.features};
  for (int i = 0; i < 5; i++) args[1 + i] = irm_any_str(w[i]);
  ck_assert_ok(irm_func_call_global("tune.DatabaseAddWorkload", args, 6, &ret));
  int64_t wid = ret.v_int;
  irm_any m[7] = {
      args[0],        irm_any_int(wid),    irm_any_str("{\"ow_tile\":4}"), irm_any_float(1e-3), irm_any_float(1e-5),
      irm_any_none(), irm_any_str("cc 12")};
  ck_assert_ok(irm_func_call_global("tune.DatabaseAddMeasurement", m, 7, &ret));
  ck_assert_int_gt(ret.v_int, 0);
  ck_assert_ok(irm_func_call_global("tune.DatabaseBest", args, 6, &ret));
  const char *knobs = NULL;
  ck_assert_ok(irm_any_to_str(irm_map_find_cstr(ret.v_obj, "knobs"), &knobs, NULL));
  ck_assert_str_eq(knobs, "{\"ow_tile\":4}");
  irm_any_release(&ret);
  args[0] = irm_any_str("/nonexistent/x.db");
  ck_assert_error(irm_func_call_global("tune.DatabaseBest", args, 6, &ret), IRM_EVALUE,
                  "ValueError: tune.DatabaseBest: no tuning database '/nonexistent/x.db'");
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tune_db");
  TCase *tc = tcase_create("db");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_create_and_best);
  tcase_add_test(tc, test_median_gain_and_failures);
  tcase_add_test(tc, test_gain_with_a_refused_default);
  tcase_add_test(tc, test_reasons);
  tcase_add_test(tc, test_bad_writes);
  tcase_add_test(tc, test_migration_from_version_1);
  tcase_add_test(tc, test_four_concurrent_writers);
  tcase_add_test(tc, test_damaged_and_foreign_files);
  tcase_add_test(tc, test_read_only_file);
  tcase_add_test(tc, test_globals);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(suite()); }
