/* Map (container.h): insertion order, look-ups, and the copying and
 * in-place (move) changes. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_container_util.h"

START_TEST(test_map_new_is_empty) {
  irm_object *map = NULL;
  char buf[16];
  ck_assert_ok(irm_map_new(&map));
  ck_assert_str_eq(irm_object_type_key(map), "ffi.Map");
  ck_assert_uint_eq(irm_map_size(map), 0);
  ck_assert_ptr_null(irm_map_find_cstr(map, "x"));
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "");
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_from_pairs_iterates_in_insertion_order) {
  const char *keys[] = {"opt_level", "required", "disabled", "config"};
  int64_t vals[] = {3, 1, 4, 1};
  irm_object *map = int_map(keys, vals, 4);
  char buf[64];
  ck_assert_uint_eq(irm_map_size(map), 4);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "opt_level,required,disabled,config");
  ck_assert_int_eq(int_of(map, "opt_level"), 3);
  ck_assert_int_eq(int_of(map, "disabled"), 4);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_iteration_gives_string_keys_and_borrowed_values) {
  irm_object *s = new_string("value");
  const char *keys[] = {"k"};
  irm_any vals[] = {irm_any_object(s)};
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 1, &map));
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  ck_assert(irm_map_iter_next(&it, &k, &v));
  ck_assert(irm_object_is(k, "ffi.String"));
  ck_assert(irm_string_equals(k, "k", 1));
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert_ptr_eq(v->v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  ck_assert(!irm_map_iter_next(&it, &k, &v));
  irm_object_release(map);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_map_from_pairs_later_pair_replaces_but_keeps_position) {
  const char *keys[] = {"x", "y", "x"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  char buf[16];
  ck_assert_uint_eq(irm_map_size(map), 2);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "x,y");
  ck_assert_int_eq(int_of(map, "x"), 3);
  ck_assert_int_eq(int_of(map, "y"), 2);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_from_pairs_turns_str_values_into_strings) {
  char buf[8];
  strcpy(buf, "llvm");
  const char *keys[] = {"target"};
  irm_any vals[] = {irm_any_str(buf)};
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 1, &map));
  strcpy(buf, "cuda");
  const irm_any *v = irm_map_find_cstr(map, "target");
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(v->v_obj), "llvm");
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_from_pairs_copies_keys) {
  char key[8];
  strcpy(key, "abc");
  const char *keys[] = {key};
  int64_t vals[] = {1};
  irm_object *map = int_map(keys, vals, 1);
  strcpy(key, "xyz");
  ck_assert_int_eq(int_of(map, "abc"), 1);
  ck_assert_ptr_null(irm_map_find_cstr(map, "xyz"));
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_from_pairs_of_no_pairs_accepts_null) {
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(NULL, NULL, 0, &map));
  ck_assert_uint_eq(irm_map_size(map), 0);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_from_pairs_null_arguments_are_value_errors) {
  const char *keys[] = {"a"};
  irm_any vals[] = {irm_any_int(1)};
  irm_object *map = NULL;
  ck_assert_error(irm_map_from_pairs(NULL, vals, 1, &map), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_map_from_pairs(keys, NULL, 1, &map), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_map_from_pairs(keys, vals, 1, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_map_from_pairs_null_key_is_value_error_without_leak) {
  irm_object *s = new_string("v");
  const char *keys[] = {"a", NULL};
  irm_any vals[] = {irm_any_object(s), irm_any_int(2)};
  irm_object *map = NULL;
  ck_assert_error(irm_map_from_pairs(keys, vals, 2, &map), IRM_EVALUE, "ValueError: ");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_map_from_pairs_invalid_value_is_value_error_without_leak) {
  irm_object *s = new_string("v");
  const char *keys[] = {"a", "b"};
  irm_any vals[] = {irm_any_object(s), invalid_any()};
  irm_object *map = NULL;
  ck_assert_error(irm_map_from_pairs(keys, vals, 2, &map), IRM_EVALUE, "ValueError: ");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_map_set_of_invalid_value_is_value_error_and_changes_nothing) {
  const char *keys[] = {"a"};
  int64_t vals[] = {1};
  irm_object *map = int_map(keys, vals, 1);
  irm_object *before = map, *out = NULL;
  irm_any v = invalid_any();
  char buf[16];
  ck_assert_error(irm_map_with_set(map, "b", &v, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_map_set_move(&map, "a", &v), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(map, before);
  ck_assert_error(irm_map_set_move(&map, "b", &v), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(map, before);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "a");
  ck_assert_int_eq(int_of(map, "a"), 1);
  irm_object_retain(before); /* shared: a failed change makes no copy */
  ck_assert_error(irm_map_set_move(&map, "b", &v), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(map, before);
  ck_assert_uint_eq(irm_object_refcount(map), 2);
  irm_object_release(before);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_find_respects_key_length) {
  const char *keys[] = {"abc", "ab"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  const irm_any *v = irm_map_find(map, "abcdef", 3);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->v_int, 1);
  v = irm_map_find(map, "abc", 2);
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->v_int, 2);
  ck_assert_ptr_null(irm_map_find(map, "abc", 1));
  ck_assert_ptr_null(irm_map_find(map, "abcd", 4));
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_find_cstr_and_missing_key) {
  const char *keys[] = {"graph", "aot"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  ck_assert_int_eq(irm_map_find_cstr(map, "aot")->v_int, 2);
  ck_assert_ptr_null(irm_map_find_cstr(map, "vm"));
  ck_assert_ptr_null(irm_map_find_cstr(map, "AOT"));
  ck_assert_ptr_null(irm_map_find_cstr(map, ""));
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_keys_may_hold_embedded_nul) {
  /* Keys with NUL bytes reach a Map through ffi.Map with String keys. */
  irm_object *k1 = NULL, *k2 = NULL;
  ck_assert_ok(irm_string_new("a\0b", 3, &k1));
  ck_assert_ok(irm_string_new("a\0c", 3, &k2));
  irm_any args[] = {irm_any_object(k1), irm_any_int(1), irm_any_object(k2), irm_any_int(2)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.Map", args, 4, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_object *map = ret.v_obj;
  ck_assert_uint_eq(irm_map_size(map), 2);
  ck_assert_int_eq(irm_map_find(map, "a\0b", 3)->v_int, 1);
  ck_assert_int_eq(irm_map_find(map, "a\0c", 3)->v_int, 2);
  ck_assert_ptr_null(irm_map_find(map, "a", 1));
  ck_assert_ptr_null(irm_map_find_cstr(map, "a"));

  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  ck_assert(irm_map_iter_next(&it, &k, &v));
  ck_assert_uint_eq(irm_string_size(k), 3);
  ck_assert_int_eq(memcmp(irm_string_data(k), "a\0b", 3), 0);
  irm_any_release(&ret);
  irm_object_release(k2);
  irm_object_release(k1);
}
END_TEST

START_TEST(test_map_get_returns_a_new_value) {
  irm_object *s = new_string("v");
  const char *keys[] = {"k"};
  irm_any vals[] = {irm_any_object(s)};
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 1, &map));
  irm_any out = irm_any_none();
  ck_assert_ok(irm_map_get(map, "k", &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(out.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  irm_any_release(&out);
  irm_object_release(map);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_map_get_missing_key_suggests_closest) {
  const char *keys[] = {"opt_level", "required", "disabled"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  irm_any out = irm_any_none();
  ck_assert_error(irm_map_get(map, "opt_levl", &out), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("opt_levl");
  ck_assert_error_mentions("did you mean 'opt_level'");
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_get_missing_key_without_close_match_names_key) {
  const char *keys[] = {"opt_level"};
  int64_t vals[] = {1};
  irm_object *map = int_map(keys, vals, 1);
  irm_any out = irm_any_none();
  ck_assert_error(irm_map_get(map, "zzzzzzzzzzzz", &out), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("zzzzzzzzzzzz");
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_with_set_adds_at_the_end_and_leaves_argument) {
  const char *keys[] = {"a", "b"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_any v = irm_any_int(3);
  irm_object *out = NULL;
  char buf[32];
  ck_assert_ok(irm_map_with_set(map, "c", &v, &out));
  ck_assert_ptr_ne(out, map);
  ck_assert_str_eq(map_order(out, buf, sizeof buf), "a,b,c");
  ck_assert_int_eq(int_of(out, "c"), 3);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "a,b");
  ck_assert_ptr_null(irm_map_find_cstr(map, "c"));
  ck_assert_uint_eq(irm_object_refcount(map), 1);
  irm_object_release(out);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_with_set_existing_key_keeps_position) {
  const char *keys[] = {"a", "b", "c"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  irm_any v = irm_any_int(10);
  irm_object *out = NULL;
  char buf[32];
  ck_assert_ok(irm_map_with_set(map, "a", &v, &out));
  ck_assert_str_eq(map_order(out, buf, sizeof buf), "a,b,c");
  ck_assert_int_eq(int_of(out, "a"), 10);
  ck_assert_int_eq(int_of(map, "a"), 1);
  irm_object_release(out);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_with_erase_removes_and_leaves_argument) {
  const char *keys[] = {"a", "b", "c"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  irm_object *out = NULL;
  char buf[32];
  ck_assert_ok(irm_map_with_erase(map, "b", &out));
  ck_assert_ptr_ne(out, map);
  ck_assert_uint_eq(irm_map_size(out), 2);
  ck_assert_str_eq(map_order(out, buf, sizeof buf), "a,c");
  ck_assert_ptr_null(irm_map_find_cstr(out, "b"));
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "a,b,c");
  ck_assert_int_eq(int_of(map, "b"), 2);
  irm_object_release(out);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_with_erase_missing_key_is_key_error) {
  const char *keys[] = {"alpha", "beta"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_object *out = NULL;
  char buf[32];
  ck_assert_error(irm_map_with_erase(map, "bta", &out), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("bta");
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "alpha,beta");
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_set_move_changes_in_place_when_unique) {
  const char *keys[] = {"a", "b"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_object *before = map;
  irm_any v = irm_any_int(30);
  char buf[32];
  ck_assert_ok(irm_map_set_move(&map, "c", &v));
  ck_assert_ptr_eq(map, before);
  v = irm_any_int(10);
  ck_assert_ok(irm_map_set_move(&map, "a", &v));
  ck_assert_ptr_eq(map, before);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "a,b,c");
  ck_assert_int_eq(int_of(map, "a"), 10);
  ck_assert_int_eq(int_of(map, "c"), 30);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_set_move_copies_when_shared) {
  const char *keys[] = {"a", "b"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_object *other = map;
  irm_object_retain(other);
  irm_any v = irm_any_str("new");
  char buf[32];
  ck_assert_ok(irm_map_set_move(&map, "a", &v));
  ck_assert_ptr_ne(map, other);
  ck_assert(irm_string_equals(irm_map_find_cstr(map, "a")->v_obj, "new", 3));
  ck_assert_int_eq(int_of(other, "a"), 1);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "a,b");
  ck_assert_uint_eq(irm_object_refcount(other), 1);
  ck_assert_uint_eq(irm_object_refcount(map), 1);
  irm_object_release(map);
  irm_object_release(other);
}
END_TEST

START_TEST(test_map_erase_move_changes_in_place_when_unique) {
  const char *keys[] = {"a", "b", "c"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  irm_object *before = map;
  char buf[32];
  ck_assert_ok(irm_map_erase_move(&map, "a"));
  ck_assert_ptr_eq(map, before);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "b,c");
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_erase_move_copies_when_shared) {
  const char *keys[] = {"a", "b", "c"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  irm_object *other = map;
  irm_object_retain(other);
  char buf[32];
  ck_assert_ok(irm_map_erase_move(&map, "c"));
  ck_assert_ptr_ne(map, other);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "a,b");
  ck_assert_str_eq(map_order(other, buf, sizeof buf), "a,b,c");
  ck_assert_uint_eq(irm_object_refcount(other), 1);
  irm_object_release(map);
  irm_object_release(other);
}
END_TEST

START_TEST(test_map_erase_move_missing_key_changes_nothing) {
  const char *keys[] = {"a", "b"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_object *before = map;
  char buf[32];
  ck_assert_error(irm_map_erase_move(&map, "zz"), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("zz");
  ck_assert_ptr_eq(map, before);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "a,b");
  irm_object_retain(before); /* shared: still no copy on failure */
  ck_assert_error(irm_map_erase_move(&map, "zz"), IRM_EKEY, "KeyError: ");
  ck_assert_ptr_eq(map, before);
  ck_assert_uint_eq(irm_object_refcount(map), 2);
  irm_object_release(before);
  irm_object_release(map);
}
END_TEST

/* ---- erasing: holes left behind never show ------------------------------ */

/* Entry i of the numbered maps below: key "k<scrambled i>" -> i, keys in a
 * scrambled order so that a sorted or hashed order would show. */
static const char *key_of(int i, char *buf, size_t cap) {
  snprintf(buf, cap, "k%d", (int)(((long)i * 7919) % 1000003));
  return buf;
}

/* Sets key_of(i) -> i for i in [from, to), in place. */
static void set_numbered(irm_object **map, int from, int to) {
  char key[32];
  for (int i = from; i < to; i++) {
    irm_any v = irm_any_int(i);
    int rc = irm_map_set_move(map, key_of(i, key, sizeof key), &v);
    ck_require(rc == 0, "set %s: %s", key, irm_last_error());
  }
}

static irm_object *numbered_map(int n) {
  irm_object *map = NULL;
  ck_assert_ok(irm_map_new(&map));
  set_numbered(&map, 0, n);
  return map;
}

static void erase_numbered(irm_object **map, int i) {
  char key[32];
  int rc = irm_map_erase_move(map, key_of(i, key, sizeof key));
  ck_require(rc == 0, "erase %s: %s", key, irm_last_error());
}

/* map holds exactly key_of(live[j]) -> live[j], j < n, in that order, by
 * iteration and by look-up; erased[0..n_erased) are not found. */
static void check_holds(const irm_object *map, const int *live, int n, const int *erased, int n_erased) {
  char key[32];
  ck_assert_uint_eq(irm_map_size(map), (size_t)n);
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  int seen = 0;
  while (irm_map_iter_next(&it, &k, &v)) {
    ck_require(seen < n, "iteration gives more than %d entries", n);
    key_of(live[seen], key, sizeof key);
    ck_require(k != NULL && strcmp(irm_string_data(k), key) == 0, "entry %d is '%s', expected '%s'", seen,
               k ? irm_string_data(k) : "(null)", key);
    ck_require(v->type_code == IRM_INT && v->v_int == live[seen], "value of %s is wrong", key);
    ck_require(int_of(map, key) == live[seen], "look-up of %s is wrong", key);
    seen++;
  }
  ck_assert_int_eq(seen, n);
  ck_assert(!irm_map_iter_next(&it, &k, &v)); /* stays at the end */
  for (int j = 0; j < n_erased; j++)
    ck_require(irm_map_find_cstr(map, key_of(erased[j], key, sizeof key)) == NULL, "erased %s is found", key);
}

/* The orders of erasing tried on maps of every size: step s of n erases
 * entry order(s, n); a pattern takes steps(n) steps. */
typedef struct erase_pattern {
  const char *name;
  int (*steps)(int n);
  int (*order)(int s, int n);
} erase_pattern;

static int half(int n) { return n / 2; }
static int three_quarters(int n) { return n - n / 4; }
static int all(int n) { return n; }
static int every_other(int s, int n) { return (void)n, 2 * s; }
static int from_front(int s, int n) { return (void)n, s; }
static int from_back(int s, int n) { return n - 1 - s; }
static int from_middle_out(int s, int n) { return s % 2 ? n / 2 + (s - 1) / 2 : n / 2 - 1 - s / 2; }

static const erase_pattern patterns[] = {
    {"every other", half, every_other},
    {"from the front", three_quarters, from_front},
    {"from the back", three_quarters, from_back},
    {"from the middle out", half, from_middle_out},
    {"all", all, from_front},
};

/* Sizes around the point where a map gets its index, and well past it. */
static const int sizes[] = {1, 2, 5, 8, 9, 10, 17, 100, 1000};

/* Erases pattern p from a numbered map of n entries; the live entries
 * left, in order, go to live[0..*n_live) and the erased ones to erased[]. */
static irm_object *erased_map(const erase_pattern *p, int n, int *live, int *n_live, int *erased) {
  irm_object *map = numbered_map(n);
  char *gone = calloc((size_t)n, 1);
  ck_require(gone != NULL, "out of memory in the test");
  for (int s = 0; s < p->steps(n); s++) {
    int i = p->order(s, n);
    erase_numbered(&map, i);
    gone[i] = 1;
    erased[s] = i;
  }
  *n_live = 0;
  for (int i = 0; i < n; i++)
    if (!gone[i]) live[(*n_live)++] = i;
  free(gone);
  return map;
}

START_TEST(test_map_erase_patterns_keep_the_order_of_the_rest) {
  static int live[1000], erased[1000];
  for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++)
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
      int n_live = 0, n = sizes[z];
      irm_object *map = erased_map(&patterns[p], n, live, &n_live, erased);
      ck_require(n_live == n - patterns[p].steps(n), "%s of %d: %d live", patterns[p].name, n, n_live);
      check_holds(map, live, n_live, erased, n - n_live);
      irm_object_release(map);
    }
}
END_TEST

START_TEST(test_map_erased_keys_come_back_at_the_end) {
  static int live[2000], erased[1000];
  for (size_t p = 0; p < sizeof patterns / sizeof *patterns; p++)
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
      int n_live = 0, n = sizes[z], steps = patterns[p].steps(n);
      irm_object *map = erased_map(&patterns[p], n, live, &n_live, erased);
      /* Re-inserted in reverse order of erasing, after the survivors. */
      for (int s = steps - 1; s >= 0; s--) {
        char key[32];
        irm_any v = irm_any_int(erased[s]);
        ck_assert_ok(irm_map_set_move(&map, key_of(erased[s], key, sizeof key), &v));
        live[n_live++] = erased[s];
      }
      check_holds(map, live, n_live, NULL, 0);
      irm_object_release(map);
    }
}
END_TEST

/* Erasing the oldest entry and adding a new one, many times over, keeps a
 * sliding window in order (each round of compaction renumbers the index). */
START_TEST(test_map_sliding_window_of_erase_oldest_and_insert_keeps_order) {
  enum { window = 100, rounds = 5000 };
  static int live[window];
  irm_object *map = numbered_map(window);
  for (int i = 0; i < rounds; i++) {
    erase_numbered(&map, i);
    set_numbered(&map, window + i, window + i + 1);
  }
  for (int j = 0; j < window; j++) live[j] = rounds + j;
  check_holds(map, live, window, NULL, 0);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_of_ten_thousand_entries_keeps_insertion_order) {
  enum { n = 10000 };
  static int live[n / 2];
  irm_object *map = numbered_map(n);
  for (int i = 0; i < n; i += 2) erase_numbered(&map, i);
  for (int j = 0; j < n / 2; j++) live[j] = 2 * j + 1;
  check_holds(map, live, n / 2, NULL, 0);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_of_a_hundred_thousand_entries_erases_half) {
  enum { n = 100000 };
  static int live[n / 2], erased[n / 2];
  int n_live = 0;
  irm_object *map = erased_map(&patterns[0], n, live, &n_live, erased);
  check_holds(map, live, n_live, erased, n / 2);
  irm_object_release(map);
}
END_TEST

/* A fresh Map of the live entries of the numbered maps, built in order. */
static irm_object *fresh_map(const int *live, int n) {
  irm_object *map = NULL;
  ck_assert_ok(irm_map_new(&map));
  for (int j = 0; j < n; j++) set_numbered(&map, live[j], live[j] + 1);
  return map;
}

static void assert_same_text(int (*text)(const irm_any *, irm_object **), irm_any a, irm_any b) {
  irm_object *ta = NULL, *tb = NULL;
  ck_assert_ok(text(&a, &ta));
  ck_assert_ok(text(&b, &tb));
  ck_assert_str_eq(irm_string_data(ta), irm_string_data(tb));
  irm_object_release(ta);
  irm_object_release(tb);
}

/* Equality, hash, JSON, repr and ffi.MapItems see the entries, not where
 * they sit: a Map with holes is the same as one built fresh. */
START_TEST(test_map_with_holes_equals_hashes_and_prints_as_one_built_fresh) {
  static int live[1000], erased[1000];
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
    int n_live = 0, n = sizes[z];
    irm_object *holed = erased_map(&patterns[3], n, live, &n_live, erased);
    irm_object *fresh = fresh_map(live, n_live);
    irm_any a = irm_any_object(holed), b = irm_any_object(fresh);
    uint64_t ha = 0, hb = 1;
    ck_assert_int_eq(equal(&a, &b), 1);
    ck_assert_ok(irm_structural_hash(&a, &ha));
    ck_assert_ok(irm_structural_hash(&b, &hb));
    ck_assert(ha == hb);
    assert_same_text(irm_to_json, a, b);
    assert_same_text(irm_repr, a, b);
    irm_any items_a = irm_any_none(), items_b = irm_any_none();
    ck_assert_ok(call_global("ffi.MapItems", &a, 1, &items_a));
    ck_assert_ok(call_global("ffi.MapItems", &b, 1, &items_b));
    ck_assert_uint_eq(irm_array_size(items_a.v_obj), 2 * (size_t)n_live);
    ck_assert_int_eq(equal(&items_a, &items_b), 1);
    irm_any_release(&items_a);
    irm_any_release(&items_b);
    irm_object_release(holed);
    irm_object_release(fresh);
  }
}
END_TEST

/* Copies of a Map with holes (with_set, with_erase, the *_move variants on
 * a shared Map) hold the same entries and leave the original alone. */
START_TEST(test_map_copies_of_a_map_with_holes_keep_order) {
  static int live[1001], erased[1000];
  int n_live = 0;
  irm_object *map = erased_map(&patterns[0], 1000, live, &n_live, erased);
  irm_object *shared = map, *out = NULL;
  char key[32];
  irm_object_retain(shared);
  irm_any v = irm_any_int(0);
  ck_assert_ok(irm_map_set_move(&map, key_of(0, key, sizeof key), &v));
  ck_assert_ptr_ne(map, shared);
  live[n_live] = 0;
  check_holds(map, live, n_live + 1, NULL, 0);
  check_holds(shared, live, n_live, erased, 500);
  ck_assert_ok(irm_map_with_erase(shared, key_of(live[0], key, sizeof key), &out));
  check_holds(out, live + 1, n_live - 1, live, 1);
  irm_object_release(out);
  ck_assert_ok(irm_map_with_set(shared, key_of(0, key, sizeof key), &v, &out));
  check_holds(out, live, n_live + 1, NULL, 0);
  irm_object_release(out);
  irm_object_release(map);
  map = shared;
  irm_object_retain(shared);
  erase_numbered(&map, live[n_live - 1]);
  ck_assert_ptr_ne(map, shared);
  check_holds(map, live, n_live - 1, live + n_live - 1, 1);
  check_holds(shared, live, n_live, erased, 500);
  irm_object_release(map);
  irm_object_release(shared);
}
END_TEST

/* A missing key's KeyError suggests a live key, never an erased one. */
START_TEST(test_map_missing_key_never_suggests_an_erased_key) {
  irm_object *map = numbered_map(20);
  irm_any v = irm_any_int(1);
  irm_any out = irm_any_none();
  ck_assert_ok(irm_map_set_move(&map, "alpha.beta", &v));
  ck_assert_ok(irm_map_set_move(&map, "alpha.betas", &v));
  ck_assert_ok(irm_map_erase_move(&map, "alpha.beta"));
  ck_assert_error(irm_map_get(map, "alpha.beta", &out), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("did you mean 'alpha.betas'");
  ck_assert_ok(irm_map_erase_move(&map, "alpha.betas"));
  ck_assert_error(irm_map_erase_move(&map, "alpha.betas"), IRM_EKEY, "KeyError: ");
  ck_assert(strstr(irm_last_error(), "alpha.beta'") == NULL);
  irm_object_release(map);
}
END_TEST

START_TEST(test_map_functions_on_non_map) {
  irm_object *s = new_string("abc");
  irm_object *out = NULL;
  irm_any v = irm_any_int(1), got = irm_any_none();
  ck_assert_uint_eq(irm_map_size(s), 0);
  ck_assert_uint_eq(irm_map_size(NULL), 0);
  ck_assert_ptr_null(irm_map_find(s, "a", 1));
  ck_assert_ptr_null(irm_map_find_cstr(s, "a"));
  ck_assert_ptr_null(irm_map_find_cstr(NULL, "a"));
  ck_assert_error(irm_map_get(s, "a", &got), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  ck_assert_error(irm_map_with_set(s, "a", &v, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_map_with_erase(s, "a", &out), IRM_ETYPE, "TypeError: ");
  irm_object *ref = s;
  ck_assert_error(irm_map_set_move(&ref, "a", &v), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_eq(ref, s);
  ck_assert_error(irm_map_erase_move(&ref, "a"), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_eq(ref, s);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *map_suite(void) {
  Suite *s = suite_create("map");

  TCase *tc = tcase_create("map");
  tcase_add_test(tc, test_map_new_is_empty);
  tcase_add_test(tc, test_map_from_pairs_iterates_in_insertion_order);
  tcase_add_test(tc, test_map_iteration_gives_string_keys_and_borrowed_values);
  tcase_add_test(tc, test_map_from_pairs_later_pair_replaces_but_keeps_position);
  tcase_add_test(tc, test_map_from_pairs_turns_str_values_into_strings);
  tcase_add_test(tc, test_map_from_pairs_copies_keys);
  tcase_add_test(tc, test_map_from_pairs_of_no_pairs_accepts_null);
  tcase_add_test(tc, test_map_from_pairs_null_arguments_are_value_errors);
  tcase_add_test(tc, test_map_from_pairs_null_key_is_value_error_without_leak);
  tcase_add_test(tc, test_map_from_pairs_invalid_value_is_value_error_without_leak);
  tcase_add_test(tc, test_map_set_of_invalid_value_is_value_error_and_changes_nothing);
  tcase_add_test(tc, test_map_find_respects_key_length);
  tcase_add_test(tc, test_map_find_cstr_and_missing_key);
  tcase_add_test(tc, test_map_keys_may_hold_embedded_nul);
  tcase_add_test(tc, test_map_get_returns_a_new_value);
  tcase_add_test(tc, test_map_get_missing_key_suggests_closest);
  tcase_add_test(tc, test_map_get_missing_key_without_close_match_names_key);
  tcase_add_test(tc, test_map_with_set_adds_at_the_end_and_leaves_argument);
  tcase_add_test(tc, test_map_with_set_existing_key_keeps_position);
  tcase_add_test(tc, test_map_with_erase_removes_and_leaves_argument);
  tcase_add_test(tc, test_map_with_erase_missing_key_is_key_error);
  tcase_add_test(tc, test_map_set_move_changes_in_place_when_unique);
  tcase_add_test(tc, test_map_set_move_copies_when_shared);
  tcase_add_test(tc, test_map_erase_move_changes_in_place_when_unique);
  tcase_add_test(tc, test_map_erase_move_copies_when_shared);
  tcase_add_test(tc, test_map_erase_move_missing_key_changes_nothing);
  tcase_add_test(tc, test_map_of_ten_thousand_entries_keeps_insertion_order);
  tcase_add_test(tc, test_map_of_a_hundred_thousand_entries_erases_half);
  tcase_add_test(tc, test_map_erase_patterns_keep_the_order_of_the_rest);
  tcase_add_test(tc, test_map_erased_keys_come_back_at_the_end);
  tcase_add_test(tc, test_map_sliding_window_of_erase_oldest_and_insert_keeps_order);
  tcase_add_test(tc, test_map_with_holes_equals_hashes_and_prints_as_one_built_fresh);
  tcase_add_test(tc, test_map_copies_of_a_map_with_holes_keep_order);
  tcase_add_test(tc, test_map_missing_key_never_suggests_an_erased_key);
  tcase_add_test(tc, test_map_functions_on_non_map);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(map_suite()); }
