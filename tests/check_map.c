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
  ck_assert_str_eq(map_order(map, buf, sizeof buf),
                   "opt_level,required,disabled,config");
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
  ck_assert_error(irm_map_from_pairs(NULL, vals, 1, &map), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_error(irm_map_from_pairs(keys, NULL, 1, &map), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_error(irm_map_from_pairs(keys, vals, 1, NULL), IRM_EVALUE,
                  "ValueError: ");
}
END_TEST

START_TEST(test_map_from_pairs_null_key_is_value_error_without_leak) {
  irm_object *s = new_string("v");
  const char *keys[] = {"a", NULL};
  irm_any vals[] = {irm_any_object(s), irm_any_int(2)};
  irm_object *map = NULL;
  ck_assert_error(irm_map_from_pairs(keys, vals, 2, &map), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_map_from_pairs_invalid_value_is_value_error_without_leak) {
  irm_object *s = new_string("v");
  const char *keys[] = {"a", "b"};
  irm_any vals[] = {irm_any_object(s), invalid_any()};
  irm_object *map = NULL;
  ck_assert_error(irm_map_from_pairs(keys, vals, 2, &map), IRM_EVALUE,
                  "ValueError: ");
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
  ck_assert_error(irm_map_with_set(map, "b", &v, &out), IRM_EVALUE,
                  "ValueError: ");
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
  irm_any args[] = {irm_any_object(k1), irm_any_int(1), irm_any_object(k2),
                    irm_any_int(2)};
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
  ck_assert_error(irm_map_get(map, "zzzzzzzzzzzz", &out), IRM_EKEY,
                  "KeyError: ");
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

START_TEST(test_map_of_ten_thousand_entries_keeps_insertion_order) {
  enum { n = 10000 };
  irm_object *map = NULL;
  char key[32];
  ck_assert_ok(irm_map_new(&map));
  /* Keys in a scrambled order, so a sorted or hashed order would show. */
  for (int i = 0; i < n; i++) {
    snprintf(key, sizeof key, "k%d", (i * 7919) % n);
    irm_any v = irm_any_int(i);
    int rc = irm_map_set_move(&map, key, &v);
    ck_require(rc == 0, "set %s: %s", key, irm_last_error());
  }
  ck_assert_uint_eq(irm_map_size(map), n);
  for (int i = 0; i < n; i += 2) {
    snprintf(key, sizeof key, "k%d", (i * 7919) % n);
    int rc = irm_map_erase_move(&map, key);
    ck_require(rc == 0, "erase %s: %s", key, irm_last_error());
  }
  ck_assert_uint_eq(irm_map_size(map), n / 2);

  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  int i = 1, seen = 0;
  while (irm_map_iter_next(&it, &k, &v)) {
    snprintf(key, sizeof key, "k%d", (i * 7919) % n);
    ck_require(strcmp(irm_string_data(k), key) == 0, "entry %d is '%s', expected '%s'",
               seen, irm_string_data(k), key);
    ck_require(v->type_code == IRM_INT && v->v_int == i, "value of %s is wrong", key);
    i += 2;
    seen++;
  }
  ck_assert_int_eq(seen, n / 2);
  snprintf(key, sizeof key, "k%d", (3 * 7919) % n);
  ck_assert_int_eq(int_of(map, key), 3);
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
  tcase_add_test(tc, test_map_functions_on_non_map);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  return run_suite(map_suite());
}
