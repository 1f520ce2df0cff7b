/* bench/registry: the global function registry against baselines run in
 * the same process. One line per figure: `name ns_per_op ratio baseline`.
 * Lines starting with '#' give the baselines' own figures. Best of 5. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "irm/irm.h"
#include "uthash.h"

#define ROUNDS 5

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what) {
  fprintf(stderr, "bench/registry: %s: %s\n", what, irm_last_error());
  exit(1);
}

static void report(const char *name, double value, double baseline, const char *baseline_name) {
  printf("%s %.2f %.2f %s\n", name, value, value / baseline, baseline_name);
}

/* ---- packed call vs direct call ---------------------------------------- */

static int add_packed(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)nargs;
  (void)resource;
  ret->type_code = IRM_INT;
  ret->v_int = args[0].v_int + args[1].v_int;
  return 0;
}

static irm_packed_cfunc volatile direct_target = add_packed;

static void bench_packed_call(void) {
  enum { N = 20 * 1000 * 1000 };
  irm_object *f = NULL;
  if (irm_func_new_packed(add_packed, NULL, NULL, &f)) die("irm_func_new_packed");
  irm_any args[2] = {irm_any_int(1), irm_any_int(2)};
  double best_direct = 1e30, best_irm = 1e30;
  int64_t sink = 0;
  for (int round = 0; round < ROUNDS; round++) {
    irm_any ret;
    double t0 = now_ns();
    for (int i = 0; i < N; i++) {
      ret.type_code = IRM_NONE;
      direct_target(args, 2, &ret, NULL);
      sink += ret.v_int;
    }
    double t1 = now_ns();
    for (int i = 0; i < N; i++) {
      irm_func_call(f, args, 2, &ret);
      sink += ret.v_int;
    }
    double t2 = now_ns();
    if ((t1 - t0) / N < best_direct) best_direct = (t1 - t0) / N;
    if ((t2 - t1) / N < best_irm) best_irm = (t2 - t1) / N;
  }
  if (sink != (int64_t)N * ROUNDS * 2 * 3) die("wrong sums");
  printf("# direct_call %.2f ns\n", best_direct);
  report("packed_call", best_irm, best_direct, "direct_call");
  irm_object_release(f);
}

/* ---- lookup vs raw uthash ---------------------------------------------- */

typedef struct raw_entry {
  UT_hash_handle hh;
  void *value;
  char name[40];
} raw_entry;

static void shuffle(char (*names)[40], size_t n) {
  srand(12345);
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)rand() % (i + 1);
    char tmp[40];
    memcpy(tmp, names[i], 40);
    memcpy(names[i], names[j], 40);
    memcpy(names[j], tmp, 40);
  }
}

static void bench_lookup(void) {
  enum { NAMES = 10000, PASSES = 200 };
  static char names[NAMES][40];
  irm_object *f = NULL;
  if (irm_func_new_packed(add_packed, NULL, NULL, &f)) die("irm_func_new_packed");
  raw_entry *raw = NULL;
  raw_entry *entries = calloc(NAMES, sizeof *entries);
  for (size_t i = 0; i < NAMES; i++) {
    snprintf(names[i], sizeof names[i], "bench.lookup.function_%05zu", i);
    if (irm_func_register_global(names[i], f, 0)) die("register");
    strcpy(entries[i].name, names[i]);
    entries[i].value = f;
    HASH_ADD_STR(raw, name, &entries[i]);
  }
  shuffle(names, NAMES);
  double best_raw = 1e30, best_irm = 1e30;
  size_t found = 0;
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = now_ns();
    for (int p = 0; p < PASSES; p++)
      for (size_t i = 0; i < NAMES; i++) {
        raw_entry *e = NULL;
        HASH_FIND_STR(raw, names[i], e);
        found += e != NULL;
      }
    double t1 = now_ns();
    for (int p = 0; p < PASSES; p++)
      for (size_t i = 0; i < NAMES; i++) {
        irm_object *g = NULL;
        irm_func_get_global(names[i], &g);
        found += g != NULL;
        irm_object_release(g);
      }
    double t2 = now_ns();
    double per = (double)NAMES * PASSES;
    if ((t1 - t0) / per < best_raw) best_raw = (t1 - t0) / per;
    if ((t2 - t1) / per < best_irm) best_irm = (t2 - t1) / per;
  }
  if (found != (size_t)NAMES * PASSES * ROUNDS * 2) die("lookups missed");
  printf("# uthash_find %.2f ns\n", best_raw);
  report("get_global_10k", best_irm, best_raw, "uthash_find");
  for (size_t i = 0; i < NAMES; i++) irm_func_remove_global(names[i]);
  HASH_CLEAR(hh, raw);
  free(entries);
  irm_object_release(f);
}

/* ---- memory per name --------------------------------------------------- */

static void bench_memory(void) {
  enum { NAMES = 1000 * 1000 };
  const double budget = 120.0;
  irm_object *f = NULL;
  if (irm_func_new_packed(add_packed, NULL, NULL, &f)) die("irm_func_new_packed");
  char name[48];
  /* Start the registry (built-ins) before measuring. */
  irm_object *probe = NULL;
  irm_func_get_global("ffi.Array", &probe);
  irm_object_release(probe);
  malloc_trim(0);
  size_t before = mallinfo2().uordblks;
  for (size_t i = 0; i < NAMES; i++) {
    snprintf(name, sizeof name, "bench.memory.fn_%07zu", i);
    if (irm_func_register_global(name, f, 0)) die("register");
  }
  size_t after = mallinfo2().uordblks;
  double per_name = (double)(after - before) / NAMES;
  printf("# bytes per name measured with mallinfo2 over %d names of %zu chars\n", NAMES,
         strlen(name));
  report("global_bytes_per_name", per_name, budget, "budget_120_bytes");
  for (size_t i = 0; i < NAMES; i++) {
    snprintf(name, sizeof name, "bench.memory.fn_%07zu", i);
    irm_func_remove_global(name);
  }
  irm_object_release(f);
}

int main(void) {
  bench_packed_call();
  bench_lookup();
  bench_memory();
  return 0;
}
