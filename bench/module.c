/* bench/module: reading and changing module attributes, against baselines
 * in the same process. One line per figure: `name ns_per_op ratio
 * baseline`. Aim (issue): get_attr within 1.5x of a raw uthash lookup. */
#include <stdio.h>
#include <string.h>

#include "bench_util.h"
#include "uthash.h"

enum { KEYS = 16, CHUNK = 100 * 1000 };

typedef struct raw_attr {
  UT_hash_handle hh;
  int64_t value;
  char key[32];
} raw_attr;

typedef struct attr_ctx {
  irm_module *mod;
  raw_attr *raw;
  char keys[KEYS][32];
} attr_ctx;

static int64_t raw_loop(void *p, long n) {
  attr_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    raw_attr *e = NULL;
    HASH_FIND_STR(c->raw, c->keys[i % KEYS], e);
    sum += e ? e->value : -1;
  }
  return sum;
}

static int64_t get_attr_loop(void *p, long n) {
  attr_ctx *c = p;
  int64_t sum = 0;
  for (long i = 0; i < n; i++) {
    irm_any v;
    irm_module_get_attr(c->mod, c->keys[i % KEYS], &v);
    sum += v.type_code == IRM_INT ? v.v_int : -1;
    irm_any_release(&v);
  }
  return sum;
}

static void bench_get_attr(void) {
  static attr_ctx c;
  static raw_attr entries[KEYS];
  const char *names[KEYS];
  irm_any values[KEYS];
  for (int i = 0; i < KEYS; i++) {
    snprintf(c.keys[i], sizeof c.keys[i], "bench.attr_%02d", i);
    names[i] = c.keys[i];
    values[i] = irm_any_int(i);
    strcpy(entries[i].key, c.keys[i]);
    entries[i].value = i;
    HASH_ADD_STR(c.raw, key, &entries[i]);
  }
  irm_object *attrs = NULL;
  if (irm_map_from_pairs(names, values, KEYS, &attrs) || irm_module_new(NULL, attrs, &c.mod)) bench_die("module");
  double base, subject;
  int64_t sink = 0;
  bench_pair(raw_loop, get_attr_loop, &c, CHUNK, &base, &subject, &sink);
  bench_report("module_get_attr_16", subject, base, "uthash_find");
  HASH_CLEAR(hh, c.raw);
  irm_object_release(attrs);
  irm_object_release(c.mod);
}

/* ---- with_attr on a shared module vs *_move on a sole owner ------------- */

static int64_t with_attr_loop(void *p, long n) {
  irm_module *shared = p;
  int64_t made = 0;
  for (long i = 0; i < n; i++) {
    irm_module *m = NULL;
    irm_any v = irm_any_int(i);
    made += irm_module_with_attr(shared, "bench.changed", &v, &m) == 0;
    irm_object_release(m);
  }
  return made;
}

static int64_t move_loop(void *p, long n) {
  irm_module **own = p;
  int64_t made = 0;
  for (long i = 0; i < n; i++) {
    irm_any v = irm_any_int(i);
    made += irm_module_set_attr_move(own, "bench.changed", &v) == 0;
  }
  return made;
}

static void bench_change(void) {
  enum { SMALL = 2000 };
  irm_module *shared = NULL, *own = NULL;
  irm_executor *e = NULL;
  irm_any ev;
  if (irm_executor_create("aot", NULL, &e) || irm_module_new(NULL, NULL, &shared)) bench_die("module");
  ev = irm_any_object(e);
  if (irm_module_set_attr_move(&shared, IRM_ATTR_EXECUTOR, &ev)) bench_die("executor attr");
  /* own: a copy only this function holds, so *_move changes it in place. */
  if (irm_module_with_attr(shared, "bench.changed", &ev, &own)) bench_die("own copy");
  double best_with = 1e30, best_move = 1e30;
  for (int round = 0; round < ROUNDS; round++)
    for (int chunk = 0; chunk < CHUNKS; chunk++) {
      double t0 = bench_now_ns();
      int64_t a = with_attr_loop(shared, SMALL);
      double t1 = bench_now_ns();
      int64_t b = move_loop(&own, SMALL);
      double t2 = bench_now_ns();
      if (a != SMALL || b != SMALL) bench_die("changes failed");
      bench_keep_best(&best_with, t0, t1, SMALL);
      bench_keep_best(&best_move, t1, t2, SMALL);
    }
  bench_report("module_set_attr_move", best_move, best_with, "module_with_attr_shared");
  irm_object_release(own);
  irm_object_release(shared);
  irm_object_release(e);
}

int main(void) {
  bench_get_attr();
  bench_change();
  return 0;
}
