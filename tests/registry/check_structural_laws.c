/* The laws of structural equality and hashing (structural.h) on random
 * values: reflexive, symmetric, equal values hash alike, a JSON copy is
 * equal, one changed leaf is seen, and Map order does not matter. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_structural_util.h"

typedef struct rng {
  uint64_t state;
} rng;

static uint64_t rng_next(rng *r) {
  r->state ^= r->state << 13;
  r->state ^= r->state >> 7;
  r->state ^= r->state << 17;
  return r->state;
}

static size_t rng_below(rng *r, size_t n) { return (size_t)(rng_next(r) % n); }

/* Objects made so far, so that later values can share them. */
typedef struct pool {
  irm_any items[64];
  size_t n;
} pool;

static irm_any random_value(rng *r, int depth, pool *shared);

static irm_any random_leaf(rng *r) {
  static const double floats[] = {0.0, -0.0, 1.5, -3.25, 1e300, 5e-324, INFINITY, -INFINITY};
  switch (rng_below(r, 6)) {
  case 0: return irm_any_none();
  case 1: return irm_any_int((int64_t)rng_below(r, 7) - 3);
  case 2: return irm_any_bool(rng_below(r, 2));
  case 3: {
    if (rng_below(r, 5) == 0) {
      uint64_t bits = 0x7ff8000000000000ULL | rng_below(r, 1000); /* NaNs with payloads */
      double d;
      memcpy(&d, &bits, sizeof d);
      return irm_any_float(d);
    }
    return irm_any_float(floats[rng_below(r, 8)]);
  }
  default: {
    char buf[6];
    size_t n = rng_below(r, 6);
    for (size_t i = 0; i < n; i++) buf[i] = rng_below(r, 4) ? (char)('a' + rng_below(r, 3)) : '\0';
    irm_object *s = NULL;
    ck_require(irm_string_new(buf, n, &s) == 0, "string: %s", irm_last_error());
    return irm_any_object(s);
  }
  }
}

/* A NEW random value: scalars, Strings (with NUL bytes), Arrays, Maps,
 * Points, and now and then an object made earlier (sharing). */
static irm_any random_value(rng *r, int depth, pool *shared) {
  size_t pick = rng_below(r, depth > 0 ? 10 : 5);
  if (pick == 9 && shared->n) {
    irm_any v = shared->items[rng_below(r, shared->n)];
    irm_object_retain(v.v_obj);
    return v;
  }
  irm_any v;
  if (pick < 5) {
    v = random_leaf(r);
  } else if (pick == 5 || pick == 6) {
    irm_any items[5] = {{0}};
    size_t n = rng_below(r, 5);
    for (size_t i = 0; i < n; i++) items[i] = random_value(r, depth - 1, shared);
    v = irm_any_object(new_array(items, n));
    for (size_t i = 0; i < n; i++) irm_any_release(&items[i]);
  } else if (pick == 7 || pick == 9) {
    static const char *const keys[] = {"a", "b", "c", "d", "e", "f"};
    irm_object *m = NULL;
    ck_require(irm_map_new(&m) == 0, "map");
    for (size_t i = rng_below(r, 5); i > 0; i--) {
      irm_any value = random_value(r, depth - 1, shared);
      ck_require(irm_map_set_move(&m, keys[rng_below(r, 6)], &value) == 0, "map set");
      irm_any_release(&value);
    }
    v = irm_any_object(m);
  } else {
    v = irm_any_object(new_point((int64_t)rng_below(r, 3), (int64_t)rng_below(r, 3)));
  }
  if (v.type_code == IRM_OBJECT && shared->n < 64) {
    irm_object_retain(v.v_obj);
    shared->items[shared->n++] = v;
  }
  return v;
}

static void pool_release(pool *p) {
  for (size_t i = 0; i < p->n; i++) irm_any_release(&p->items[i]);
  p->n = 0;
}

/* A NEW value that differs from v in exactly one leaf (copy-on-write, so
 * v is unchanged). */
static irm_any mutate(rng *r, const irm_any *v) {
  const irm_object *o = v->type_code == IRM_OBJECT ? v->v_obj : NULL;
  irm_object *out = NULL;
  if (irm_array_size(o) > 0) {
    size_t i = rng_below(r, irm_array_size(o));
    irm_any child = mutate(r, irm_array_at(o, i));
    ck_require(irm_array_with_set(o, (int64_t)i, &child, &out) == 0, "with_set");
    irm_any_release(&child);
    return irm_any_object(out);
  }
  if (irm_map_size(o) > 0) {
    size_t i = rng_below(r, irm_map_size(o));
    irm_map_iter it = irm_map_iter_begin(o);
    const irm_object *key = NULL;
    const irm_any *value = NULL;
    for (size_t k = 0; k <= i; k++) irm_map_iter_next(&it, &key, &value);
    irm_any child = mutate(r, value);
    ck_require(irm_map_with_set(o, irm_string_data(key), &child, &out) == 0, "with_set");
    irm_any_release(&child);
    return irm_any_object(out);
  }
  if (irm_object_is(o, "test.Point")) {
    const point *p = irm_object_payload_const(o);
    return irm_any_object(new_point(p->x + 1, p->y));
  }
  /* a leaf (or an empty container): a String random values never hold */
  return irm_any_object(new_string("\x01mutated"));
}

START_TEST(test_equality_laws_hold_for_random_values) {
  enum { CASES = 400 };
  irm_any previous = irm_any_none();
  for (int c = 0; c < CASES; c++) {
    uint64_t seed = 0x243f6a8885a308d3ULL + (uint64_t)c * 0x9e3779b97f4a7c15ULL;
    rng r1 = {seed}, r2 = {seed}, rm = {seed ^ 0xabcdef};
    pool p1 = {.n = 0}, p2 = {.n = 0};
    irm_any v = random_value(&r1, 4, &p1);
    irm_any rebuilt = random_value(&r2, 4, &p2); /* the same shape, other objects */

    /* reflexive, and an independent rebuild is equal both ways */
    ck_require(equal(&v, &v), "case %d: not reflexive", c);
    ck_require(equal(&v, &rebuilt) && equal(&rebuilt, &v), "case %d: rebuild differs", c);
    ck_require(hash(&v) == hash(&rebuilt), "case %d: equal values, different hashes", c);

    /* a copy through JSON is equal and hashes the same */
    irm_object *text = NULL;
    ck_require(irm_to_json(&v, &text) == 0, "case %d: to_json: %s", c, irm_last_error());
    irm_any copy = irm_any_none();
    ck_require(irm_from_json(irm_string_data(text), irm_string_size(text), &copy) == 0, "case %d: from_json: %s", c,
               irm_last_error());
    ck_require(equal(&v, &copy) && equal(&copy, &v), "case %d: JSON copy differs: %s", c, irm_string_data(text));
    ck_require(hash(&v) == hash(&copy), "case %d: JSON copy hashes differently", c);
    irm_object_release(text);

    /* one changed leaf makes it unequal, both ways */
    irm_any changed = mutate(&rm, &v);
    ck_require(!equal(&v, &changed) && !equal(&changed, &v), "case %d: mutation not seen", c);

    /* symmetric on an unrelated pair */
    ck_require(equal(&v, &previous) == equal(&previous, &v), "case %d: not symmetric", c);
    if (equal(&v, &previous)) ck_require(hash(&v) == hash(&previous), "case %d: equal values, different hashes", c);

    irm_any_release(&changed);
    irm_any_release(&copy);
    irm_any_release(&previous);
    previous = v;
    irm_any_release(&rebuilt);
    pool_release(&p2);
    pool_release(&p1);
  }
  irm_any_release(&previous);
}
END_TEST

START_TEST(test_maps_built_in_any_order_are_equal_with_equal_hashes) {
  static const char *const keys[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
  rng r = {12345};
  for (int c = 0; c < 200; c++) {
    size_t order[8];
    for (size_t i = 0; i < 8; i++) order[i] = i;
    for (size_t i = 7; i > 0; i--) {
      size_t j = rng_below(&r, i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    irm_object *a = NULL, *b = NULL;
    ck_require(irm_map_new(&a) == 0 && irm_map_new(&b) == 0, "map");
    for (size_t i = 0; i < 8; i++) {
      irm_any va = irm_any_int((int64_t)i * 10), vb = irm_any_int((int64_t)order[i] * 10);
      ck_require(irm_map_set_move(&a, keys[i], &va) == 0, "set");
      ck_require(irm_map_set_move(&b, keys[order[i]], &vb) == 0, "set");
    }
    irm_any x = irm_any_object(a), y = irm_any_object(b);
    ck_require(equal(&x, &y) && hash(&x) == hash(&y), "case %d: order mattered", c);
    irm_object_release(b);
    irm_object_release(a);
  }
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *structural_laws_suite(void) {
  Suite *s = suite_create("structural_laws");

  TCase *tc = tcase_create("laws");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_equality_laws_hold_for_random_values);
  tcase_add_test(tc, test_maps_built_in_any_order_are_equal_with_equal_hashes);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(structural_laws_suite()); }
