/* bench/map: a Map of 1 000 000 entries (insert, find, erase half,
 * iterate) against raw uthash on a plain struct with a string key, run in
 * the same process on the same keys. One line per figure: `name ns_per_op
 * ratio baseline`; lines starting with '#' give the baselines' own figures.
 *
 * Inserting and erasing change the table, so they cannot be repeated in a
 * loop as bench_pair does: each round builds both tables from empty,
 * alternating chunks of CHUNK operations between them (so a busy
 * neighbour lands on both), and the best round counts.
 *
 * A Map insert must first look for the key (a set replaces an existing
 * value), which HASH_ADD_KEYPTR does not; map_insert_1m is also given
 * against raw uthash doing that look-up too (uthash_find_add). */
#include <string.h>

#include "bench_util.h"
#include "uthash.h"

enum { ENTRIES = 1000 * 1000, CHUNK = 50 * 1000, MAP_ROUNDS = 3 };

typedef struct raw_node {
  UT_hash_handle hh;
  const char *key;
  int64_t value;
} raw_node;

typedef struct tables {
  raw_node *raw;
  raw_node *raw_set; /* the uthash_find_add baseline's table */
  irm_object *map;
  char (*keys)[24];
  size_t *order; /* a shuffled permutation of [0, ENTRIES) */
  int64_t sink;
} tables;

/* Each op_* does operations [from, to) on one side. */
typedef void (*bench_op)(tables *t, size_t from, size_t to);

static void raw_insert(tables *t, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    raw_node *n = malloc(sizeof *n);
    if (!n) bench_die("malloc");
    n->key = t->keys[i];
    n->value = (int64_t)i;
    HASH_ADD_KEYPTR(hh, t->raw, n->key, strlen(n->key), n);
  }
}

static void raw_find_add(tables *t, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    raw_node *n = NULL;
    HASH_FIND(hh, t->raw_set, t->keys[i], strlen(t->keys[i]), n);
    if (n) bench_die("duplicate key");
    if (!(n = malloc(sizeof *n))) bench_die("malloc");
    n->key = t->keys[i];
    n->value = (int64_t)i;
    HASH_ADD_KEYPTR(hh, t->raw_set, n->key, strlen(n->key), n);
  }
}

static void map_insert(tables *t, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    irm_any v = irm_any_int((int64_t)i);
    if (irm_map_set_move(&t->map, t->keys[i], &v)) bench_die("irm_map_set_move");
  }
}

static void raw_find(tables *t, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    const char *key = t->keys[t->order[i]];
    raw_node *n = NULL;
    HASH_FIND(hh, t->raw, key, strlen(key), n);
    t->sink += n->value;
  }
}

static void map_find(tables *t, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) t->sink += irm_map_find_cstr(t->map, t->keys[t->order[i]])->v_int;
}

/* Erases the keys of the first half of the shuffled order. */
static void raw_erase(tables *t, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    const char *key = t->keys[t->order[i]];
    raw_node *n = NULL;
    HASH_FIND(hh, t->raw, key, strlen(key), n);
    HASH_DELETE(hh, t->raw, n);
    free(n);
  }
}

static void map_erase(tables *t, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (irm_map_erase_move(&t->map, t->keys[t->order[i]])) bench_die("irm_map_erase_move");
}

/* One pass over every entry (from and to unused). */
static void raw_iterate(tables *t, size_t from, size_t to) {
  (void)from;
  (void)to;
  for (raw_node *n = t->raw; n; n = n->hh.next) t->sink += n->value;
}

static void map_iterate(tables *t, size_t from, size_t to) {
  (void)from;
  (void)to;
  irm_map_iter it = irm_map_iter_begin(t->map);
  const irm_any *v;
  while (irm_map_iter_next(&it, NULL, &v)) t->sink += v->v_int;
}

typedef struct phase {
  const char *name, *baseline_name;
  bench_op raw, map;
  bench_op raw2; /* a second baseline (may be NULL) */
  const char *baseline2_name;
  size_t ops;  /* operations in the phase */
  size_t step; /* operations per chunk */
  double best_raw, best_map, best_raw2;
} phase;

/* Runs a phase's chunks, alternating sides; keeps the best round's time
 * per operation of each side. */
static void run_phase(tables *t, phase *p, size_t per_pass) {
  double raw_ns = 0, map_ns = 0, raw2_ns = 0;
  for (size_t from = 0; from < p->ops; from += p->step) {
    size_t to = from + p->step < p->ops ? from + p->step : p->ops;
    double t0 = bench_now_ns();
    p->raw(t, from, to);
    double t1 = bench_now_ns();
    p->map(t, from, to);
    double t2 = bench_now_ns();
    raw_ns += t1 - t0;
    map_ns += t2 - t1;
    if (p->raw2) {
      p->raw2(t, from, to);
      raw2_ns += bench_now_ns() - t2;
    }
  }
  size_t ops = per_pass ? per_pass : p->ops;
  if (raw_ns / (double)ops < p->best_raw) p->best_raw = raw_ns / (double)ops;
  if (map_ns / (double)ops < p->best_map) p->best_map = map_ns / (double)ops;
  if (raw2_ns / (double)ops < p->best_raw2) p->best_raw2 = raw2_ns / (double)ops;
}

static void shuffle(size_t *order, size_t n) {
  srand(12345);
  for (size_t i = 0; i < n; i++) order[i] = i;
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = ((size_t)rand() * ((size_t)RAND_MAX + 1) + (size_t)rand()) % (i + 1);
    size_t tmp = order[i];
    order[i] = order[j];
    order[j] = tmp;
  }
}

int main(void) {
  tables t = {NULL, NULL, NULL, malloc(sizeof(char[24]) * ENTRIES), malloc(sizeof(size_t) * ENTRIES), 0};
  if (!t.keys || !t.order) bench_die("malloc");
  for (size_t i = 0; i < ENTRIES; i++) snprintf(t.keys[i], sizeof t.keys[i], "bench.map.key_%07zu", i);
  shuffle(t.order, ENTRIES);
  phase phases[] = {
      {"map_insert_1m", "uthash_add", raw_insert, map_insert, raw_find_add, "uthash_find_add", ENTRIES, CHUNK, 1e30,
       1e30, 1e30},
      {"map_find_1m", "uthash_find", raw_find, map_find, NULL, NULL, ENTRIES, CHUNK, 1e30, 1e30, 1e30},
      {"map_erase_half_1m", "uthash_find_delete", raw_erase, map_erase, NULL, NULL, ENTRIES / 2, CHUNK, 1e30, 1e30,
       1e30},
      {"map_iterate_500k", "uthash_iter", raw_iterate, map_iterate, NULL, NULL, 1, 1, 1e30, 1e30, 1e30},
  };
  /* Both sides add up the values found and then those left. */
  int64_t expected = (int64_t)ENTRIES * (ENTRIES - 1);
  for (size_t i = ENTRIES / 2; i < ENTRIES; i++) expected += 2 * (int64_t)t.order[i];
  for (int round = 0; round < MAP_ROUNDS; round++) {
    if (irm_map_new(&t.map)) bench_die("irm_map_new");
    t.sink = 0;
    run_phase(&t, &phases[0], 0);
    run_phase(&t, &phases[1], 0);
    if (irm_map_size(t.map) != ENTRIES || HASH_COUNT(t.raw) != ENTRIES) bench_die("insert lost entries");
    run_phase(&t, &phases[2], 0);
    if (irm_map_size(t.map) != ENTRIES / 2 || HASH_COUNT(t.raw) != ENTRIES / 2) bench_die("erase is wrong");
    run_phase(&t, &phases[3], ENTRIES / 2);
    if (t.sink != expected) bench_die("wrong values found");
    raw_node *n, *tmp;
    HASH_ITER(hh, t.raw, n, tmp) {
      HASH_DELETE(hh, t.raw, n);
      free(n);
    }
    HASH_ITER(hh, t.raw_set, n, tmp) {
      HASH_DELETE(hh, t.raw_set, n);
      free(n);
    }
    irm_object_release(t.map);
  }
  printf("# %d entries, keys of %zu chars, best of %d rounds in chunks of %d\n", ENTRIES, strlen(t.keys[0]), MAP_ROUNDS,
         CHUNK);
  for (size_t i = 0; i < sizeof phases / sizeof *phases; i++) {
    bench_report(phases[i].name, phases[i].best_map, phases[i].best_raw, phases[i].baseline_name);
    if (phases[i].raw2) bench_report(phases[i].name, phases[i].best_map, phases[i].best_raw2, phases[i].baseline2_name);
  }
  free(t.keys);
  free(t.order);
  return 0;
}
