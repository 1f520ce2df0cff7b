/* String, Array, Map and the ffi.* container globals (container.h,
 * c_api.h). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

/* rc must be code and irm_last_error() must start with prefix. */
#define ck_assert_error(rc, code, prefix)                                     \
  do {                                                                        \
    int rc_ = (rc);                                                           \
    ck_assert_msg(rc_ == (code), "expected status %d, got %d (%s)", (code),   \
                  rc_, irm_last_error());                                     \
    ck_assert_msg(strncmp(irm_last_error(), (prefix), strlen(prefix)) == 0,   \
                  "expected a message starting with '%s', got '%s'",          \
                  (prefix), irm_last_error());                                \
  } while (0)

/* irm_last_error() must contain needle. */
#define ck_assert_error_mentions(needle)                                      \
  ck_assert_msg(strstr(irm_last_error(), (needle)) != NULL,                   \
                "expected the message to mention '%s', got '%s'", (needle),   \
                irm_last_error())

#define ck_assert_ok(expr)                                                    \
  do {                                                                        \
    int rc_ = (expr);                                                         \
    ck_assert_msg(rc_ == 0, "%s failed with %d: %s", #expr, rc_,              \
                  irm_last_error());                                          \
  } while (0)

/* Like ck_assert_msg, but silent on success: Check records every passing
 * assertion with a write to the parent process, too slow in hot loops. */
#define ck_require(expr, ...)                                                 \
  do {                                                                        \
    if (!(expr)) ck_abort_msg(__VA_ARGS__);                                   \
  } while (0)

/* ---- helpers ------------------------------------------------------------ */

static irm_object *new_string(const char *s) {
  irm_object *o = NULL;
  ck_assert_ok(irm_string_new(s, strlen(s), &o));
  return o;
}

/* An Array of the ints values[0..n). */
static irm_object *int_array(const int64_t *values, size_t n) {
  irm_any items[16];
  ck_assert_uint_le(n, 16);
  for (size_t i = 0; i < n; i++) items[i] = irm_any_int(values[i]);
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, n, &arr));
  return arr;
}

/* The int at index of arr (asserting that it is an int). */
static int64_t int_at(const irm_object *arr, size_t index) {
  const irm_any *v = irm_array_at(arr, index);
  ck_require(v != NULL, "no item %zu", index);
  ck_require(v->type_code == IRM_INT, "item %zu is a %s, not an int", index,
             irm_any_type_name(v));
  return v->v_int;
}

/* The int stored under key (asserting that it is there and an int). */
static int64_t int_of(const irm_object *map, const char *key) {
  const irm_any *v = irm_map_find_cstr(map, key);
  ck_require(v != NULL, "key '%s' missing", key);
  ck_require(v->type_code == IRM_INT, "value of '%s' is a %s, not an int", key,
             irm_any_type_name(v));
  return v->v_int;
}

/* The keys of map in iteration order, joined by ',' into buf. */
static const char *map_order(const irm_object *map, char *buf, size_t cap) {
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  size_t used = 0;
  buf[0] = '\0';
  while (irm_map_iter_next(&it, &k, &v)) {
    ck_require(k != NULL && v != NULL, "iteration gave a NULL key or value");
    int n = snprintf(buf + used, cap - used, "%s%s", used ? "," : "",
                     irm_string_data(k));
    ck_require(n >= 0 && used + (size_t)n < cap, "map_order: buffer too small");
    used += (size_t)n;
  }
  return buf;
}

/* A Map of string keys to ints. */
static irm_object *int_map(const char *const *keys, const int64_t *values,
                           size_t n) {
  irm_any vals[16];
  ck_assert_uint_le(n, 16);
  for (size_t i = 0; i < n; i++) vals[i] = irm_any_int(values[i]);
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, n, &map));
  return map;
}

/* An irm_any with a type code irm does not know. */
static irm_any invalid_any(void) {
  irm_any v = irm_any_int(0);
  v.type_code = 77;
  return v;
}

/* Calls the global function name. */
static int call_global(const char *name, const irm_any *args, int32_t nargs,
                       irm_any *ret) {
  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global(name, &f));
  ck_assert_msg(f != NULL, "global '%s' is not registered", name);
  *ret = irm_any_int(-777); /* irm must reset it */
  int rc = irm_func_call(f, args, nargs, ret);
  irm_object_release(f);
  return rc;
}

/* ==== String ============================================================= */

START_TEST(test_string_keeps_embedded_nul_bytes) {
  static const char bytes[] = {'a', '\0', 'b', '\0', 'c'};
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(bytes, sizeof bytes, &s));
  ck_assert_uint_eq(irm_string_size(s), 5);
  ck_assert_int_eq(memcmp(irm_string_data(s), bytes, 5), 0);
  ck_assert_int_eq(irm_string_data(s)[5], '\0');
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_copies_its_bytes_and_ends_with_nul) {
  char buf[8] = {'h', 'e', 'l', 'l', 'o', 'X', 'Y', 'Z'};
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(buf, 5, &s));
  memset(buf, '?', sizeof buf);
  ck_assert_str_eq(irm_string_data(s), "hello");
  ck_assert_uint_eq(irm_string_size(s), 5);
  ck_assert_str_eq(irm_object_type_key(s), "ffi.String");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_empty) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("", 0, &s));
  ck_assert_uint_eq(irm_string_size(s), 0);
  ck_assert_ptr_nonnull(irm_string_data(s));
  ck_assert_str_eq(irm_string_data(s), "");
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_null_data_with_zero_length_is_empty) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(NULL, 0, &s));
  ck_assert_uint_eq(irm_string_size(s), 0);
  ck_assert_str_eq(irm_string_data(s), "");
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_null_data_with_length_is_value_error) {
  irm_object *s = NULL;
  ck_assert_error(irm_string_new(NULL, 3, &s), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(s);
}
END_TEST

START_TEST(test_string_null_out_is_value_error) {
  ck_assert_error(irm_string_new("abc", 3, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_string_data_and_size_of_non_string) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert_ptr_null(irm_string_data(arr));
  ck_assert_uint_eq(irm_string_size(arr), 0);
  ck_assert_ptr_null(irm_string_data(NULL));
  ck_assert_uint_eq(irm_string_size(NULL), 0);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_string_from_cstr) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_from_cstr("target", &s));
  ck_assert_uint_eq(irm_string_size(s), 6);
  ck_assert_str_eq(irm_string_data(s), "target");
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_from_cstr_null_is_value_error) {
  irm_object *s = NULL;
  ck_assert_error(irm_string_from_cstr(NULL, &s), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_string_format) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_format(&s, "%s-%d-%.1f", "llvm", 42, 0.5));
  ck_assert_str_eq(irm_string_data(s), "llvm-42-0.5");
  ck_assert_uint_eq(irm_string_size(s), strlen("llvm-42-0.5"));
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_format_of_a_long_text) {
  enum { len = 5000 };
  char *text = malloc(len + 1);
  ck_assert_ptr_nonnull(text);
  memset(text, 'w', len);
  text[len] = '\0';
  irm_object *s = NULL;
  ck_assert_ok(irm_string_format(&s, "<%s>", text));
  ck_assert_uint_eq(irm_string_size(s), len + 2);
  ck_assert_int_eq(irm_string_data(s)[0], '<');
  ck_assert_int_eq(memcmp(irm_string_data(s) + 1, text, len), 0);
  ck_assert_int_eq(irm_string_data(s)[len + 1], '>');
  irm_object_release(s);
  free(text);
}
END_TEST

START_TEST(test_string_equals_compares_all_bytes) {
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new("a\0b", 3, &s));
  ck_assert(irm_string_equals(s, "a\0b", 3));
  ck_assert(!irm_string_equals(s, "a\0c", 3));
  ck_assert(!irm_string_equals(s, "a", 1));
  ck_assert(!irm_string_equals(s, "a\0bc", 4));
  irm_object_release(s);
  irm_object *e = new_string("");
  ck_assert(irm_string_equals(e, "", 0));
  ck_assert(!irm_string_equals(e, "x", 1));
  irm_object_release(e);
}
END_TEST

START_TEST(test_string_equals_of_non_string_is_false) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert(!irm_string_equals(arr, "", 0));
  ck_assert(!irm_string_equals(NULL, "", 0));
  irm_object_release(arr);
}
END_TEST

/* ==== Array ============================================================== */

START_TEST(test_array_new_copies_scalar_items) {
  int token;
  irm_any items[] = {irm_any_int(1), irm_any_float(2.5), irm_any_bool(true),
                     irm_any_none(), irm_any_ptr(&token)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 5, &arr));
  ck_assert_str_eq(irm_object_type_key(arr), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(arr), 5);
  ck_assert_int_eq(int_at(arr, 0), 1);
  ck_assert_int_eq(irm_array_at(arr, 1)->type_code, IRM_FLOAT);
  ck_assert_double_eq(irm_array_at(arr, 1)->v_float, 2.5);
  ck_assert_int_eq(irm_array_at(arr, 2)->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_array_at(arr, 2)->v_int, 1);
  ck_assert_int_eq(irm_array_at(arr, 3)->type_code, IRM_NONE);
  ck_assert_int_eq(irm_array_at(arr, 4)->type_code, IRM_PTR);
  ck_assert_ptr_eq(irm_array_at(arr, 4)->v_ptr, &token);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_new_turns_str_items_into_strings) {
  char buf[8];
  strcpy(buf, "two");
  irm_any items[] = {irm_any_str(buf)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 1, &arr));
  strcpy(buf, "XXX");
  const irm_any *v = irm_array_at(arr, 0);
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert(irm_object_is(v->v_obj, "ffi.String"));
  ck_assert_str_eq(irm_string_data(v->v_obj), "two");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_new_retains_object_items) {
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_object(s), irm_any_object(s)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  ck_assert_ptr_eq(irm_array_at(arr, 0)->v_obj, s);
  irm_object_release(arr);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_new_of_no_items_accepts_null) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  ck_assert_uint_eq(irm_array_size(arr), 0);
  ck_assert_ptr_null(irm_array_at(arr, 0));
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_new_null_items_or_out_is_value_error) {
  irm_object *arr = NULL;
  irm_any item = irm_any_int(1);
  ck_assert_error(irm_array_new(NULL, 2, &arr), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_array_new(&item, 1, NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_array_new_invalid_item_is_value_error_without_leak) {
  irm_object *s = new_string("kept");
  irm_any items[] = {irm_any_object(s), invalid_any()};
  irm_object *arr = NULL;
  ck_assert_error(irm_array_new(items, 2, &arr), IRM_EVALUE, "ValueError: ");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_at_out_of_range_is_null) {
  int64_t v[] = {10, 20, 30};
  irm_object *arr = int_array(v, 3);
  ck_assert_ptr_nonnull(irm_array_at(arr, 2));
  ck_assert_ptr_null(irm_array_at(arr, 3));
  ck_assert_ptr_null(irm_array_at(arr, SIZE_MAX));
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_size_and_at_of_non_array) {
  irm_object *s = new_string("abc");
  ck_assert_uint_eq(irm_array_size(s), 0);
  ck_assert_ptr_null(irm_array_at(s, 0));
  ck_assert_uint_eq(irm_array_size(NULL), 0);
  ck_assert_ptr_null(irm_array_at(NULL, 0));
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_get_returns_a_new_value) {
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_int(5), irm_any_object(s)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  irm_any out = irm_any_none();
  ck_assert_ok(irm_array_get(arr, 0, &out));
  ck_assert_int_eq(out.type_code, IRM_INT);
  ck_assert_int_eq(out.v_int, 5);
  ck_assert_ok(irm_array_get(arr, 1, &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(out.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  irm_any_release(&out);
  irm_object_release(arr);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_get_out_of_range_is_index_error_naming_index_and_size) {
  int64_t v[] = {10, 20, 30};
  irm_object *arr = int_array(v, 3);
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(arr, 7, &out), IRM_EINDEX, "IndexError: ");
  ck_assert_error_mentions("7");
  ck_assert_error_mentions("3");
  ck_assert_error(irm_array_get(arr, 3, &out), IRM_EINDEX, "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_get_negative_index_is_index_error) {
  int64_t v[] = {10, 20};
  irm_object *arr = int_array(v, 2);
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(arr, -1, &out), IRM_EINDEX, "IndexError: ");
  ck_assert_error_mentions("-1");
  ck_assert_error_mentions("2");
  ck_assert_error(irm_array_get(arr, INT64_MIN, &out), IRM_EINDEX,
                  "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_get_of_empty_array_is_index_error) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(arr, 0, &out), IRM_EINDEX, "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_get_of_non_array_is_type_error) {
  irm_object *s = new_string("abc");
  irm_any out = irm_any_none();
  ck_assert_error(irm_array_get(s, 0, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("ffi.String");
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_with_append_leaves_the_argument_unchanged) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_any item = irm_any_int(3);
  irm_object *out = NULL;
  ck_assert_ok(irm_array_with_append(arr, &item, &out));
  ck_assert_ptr_nonnull(out);
  ck_assert_ptr_ne(out, arr);
  ck_assert_uint_eq(irm_array_size(out), 3);
  ck_assert_int_eq(int_at(out, 0), 1);
  ck_assert_int_eq(int_at(out, 2), 3);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  ck_assert_uint_eq(irm_object_refcount(out), 1);
  irm_object_release(out);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_append_shares_object_items) {
  irm_object *s = new_string("x");
  irm_any items[] = {irm_any_object(s)};
  irm_object *arr = NULL, *out = NULL;
  ck_assert_ok(irm_array_new(items, 1, &arr));
  irm_any item = irm_any_str("y");
  ck_assert_ok(irm_array_with_append(arr, &item, &out));
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  ck_assert_str_eq(irm_string_data(irm_array_at(out, 1)->v_obj), "y");
  irm_object_release(out);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_with_set_leaves_the_argument_unchanged) {
  int64_t v[] = {1, 2, 3};
  irm_object *arr = int_array(v, 3);
  irm_any item = irm_any_int(20);
  irm_object *out = NULL;
  ck_assert_ok(irm_array_with_set(arr, 1, &item, &out));
  ck_assert_ptr_ne(out, arr);
  ck_assert_uint_eq(irm_array_size(out), 3);
  ck_assert_int_eq(int_at(out, 1), 20);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(out);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_set_out_of_range_is_index_error) {
  int64_t v[] = {1, 2, 3};
  irm_object *arr = int_array(v, 3);
  irm_any item = irm_any_int(0);
  irm_object *out = NULL;
  ck_assert_error(irm_array_with_set(arr, 3, &item, &out), IRM_EINDEX,
                  "IndexError: ");
  ck_assert_error_mentions("3");
  ck_assert_error(irm_array_with_set(arr, -1, &item, &out), IRM_EINDEX,
                  "IndexError: ");
  ck_assert_uint_eq(irm_array_size(arr), 3);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_append_and_with_set_of_non_array_is_type_error) {
  irm_object *s = new_string("abc");
  irm_any item = irm_any_int(0);
  irm_object *out = NULL;
  ck_assert_error(irm_array_with_append(s, &item, &out), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_error(irm_array_with_set(s, 0, &item, &out), IRM_ETYPE,
                  "TypeError: ");
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_append_move_changes_in_place_when_unique) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_object *before = arr;
  irm_any item = irm_any_int(2);
  ck_assert_ok(irm_array_append_move(&arr, &item));
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_append_move_copies_when_shared) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_object *other = arr;
  irm_object_retain(other);
  irm_any item = irm_any_int(2);
  ck_assert_ok(irm_array_append_move(&arr, &item));
  ck_assert_ptr_ne(arr, other);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_array_size(other), 1);
  ck_assert_uint_eq(irm_object_refcount(other), 1);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
  irm_object_release(other);
}
END_TEST

START_TEST(test_array_append_move_grows_in_place_to_many_items) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  for (int64_t i = 0; i < 10000; i++) {
    irm_any item = irm_any_int(i * 3);
    int rc = irm_array_append_move(&arr, &item);
    ck_require(rc == 0, "append %d: %s", (int)i, irm_last_error());
  }
  ck_assert_uint_eq(irm_array_size(arr), 10000);
  for (size_t i = 0; i < 10000; i++)
    ck_require(int_at(arr, i) == (int64_t)i * 3, "item %zu is wrong", i);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_append_move_turns_str_into_string) {
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(NULL, 0, &arr));
  char buf[8];
  strcpy(buf, "abc");
  irm_any item = irm_any_str(buf);
  ck_assert_ok(irm_array_append_move(&arr, &item));
  strcpy(buf, "zzz");
  ck_assert_int_eq(irm_array_at(arr, 0)->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(irm_array_at(arr, 0)->v_obj), "abc");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_append_move_of_non_array_is_type_error_and_keeps_ref) {
  irm_object *s = new_string("abc");
  irm_object *ref = s;
  irm_any item = irm_any_int(1);
  ck_assert_error(irm_array_append_move(&ref, &item), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_eq(ref, s);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_array_set_move_changes_in_place_when_unique) {
  int64_t v[] = {1, 2, 3};
  irm_object *arr = int_array(v, 3);
  irm_object *before = arr;
  irm_any item = irm_any_str("two");
  ck_assert_ok(irm_array_set_move(&arr, 1, &item));
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 3);
  ck_assert(irm_string_equals(irm_array_at(arr, 1)->v_obj, "two", 3));
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_set_move_copies_when_shared) {
  irm_object *s = new_string("old");
  irm_any items[] = {irm_any_object(s), irm_any_int(2)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  irm_object_release(s); /* the Array keeps it alive */
  irm_object *other = arr;
  irm_object_retain(other);
  irm_any item = irm_any_int(100);
  ck_assert_ok(irm_array_set_move(&arr, 0, &item));
  ck_assert_ptr_ne(arr, other);
  ck_assert_int_eq(int_at(arr, 0), 100);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_str_eq(irm_string_data(irm_array_at(other, 0)->v_obj), "old");
  ck_assert_uint_eq(irm_object_refcount(other), 1);
  irm_object_release(arr);
  irm_object_release(other);
}
END_TEST

START_TEST(test_array_set_move_out_of_range_leaves_ref_untouched) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_object *before = arr;
  irm_any item = irm_any_int(9);
  ck_assert_error(irm_array_set_move(&arr, 2, &item), IRM_EINDEX, "IndexError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_error(irm_array_set_move(&arr, -1, &item), IRM_EINDEX, "IndexError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 0), 1);
  ck_assert_int_eq(int_at(arr, 1), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_set_move_out_of_range_when_shared_leaves_ref_untouched) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_object *other = arr;
  irm_object_retain(other);
  irm_any item = irm_any_int(9);
  ck_assert_error(irm_array_set_move(&arr, 5, &item), IRM_EINDEX, "IndexError: ");
  ck_assert_ptr_eq(arr, other);
  ck_assert_uint_eq(irm_object_refcount(arr), 2);
  ck_assert_int_eq(int_at(arr, 0), 1);
  irm_object_release(other);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_with_append_of_invalid_item_is_value_error) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_any item = invalid_any();
  irm_object *out = NULL;
  ck_assert_error(irm_array_with_append(arr, &item, &out), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_move_of_invalid_item_leaves_ref_untouched) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_object *before = arr;
  irm_any item = invalid_any();
  ck_assert_error(irm_array_append_move(&arr, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_error(irm_array_set_move(&arr, 0, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_array_size(arr), 2);
  ck_assert_int_eq(int_at(arr, 0), 1);
  irm_object_retain(before); /* shared: a failed change makes no copy */
  ck_assert_error(irm_array_append_move(&arr, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_error(irm_array_set_move(&arr, 1, &item), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_eq(arr, before);
  ck_assert_uint_eq(irm_object_refcount(arr), 2);
  irm_object_release(before);
  irm_object_release(arr);
}
END_TEST

/* ==== Map ================================================================ */

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

/* ==== container globals ================================================== */

START_TEST(test_global_array_makes_an_array_of_owned_items) {
  irm_object *s = new_string("obj");
  char buf[8];
  strcpy(buf, "str");
  irm_any args[] = {irm_any_int(1), irm_any_str(buf), irm_any_object(s)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.Array", args, 3, &ret));
  strcpy(buf, "XXX");
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_object *arr = ret.v_obj;
  ck_assert_str_eq(irm_object_type_key(arr), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(arr), 3);
  ck_assert_int_eq(int_at(arr, 0), 1);
  ck_assert_int_eq(irm_array_at(arr, 1)->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(irm_array_at(arr, 1)->v_obj), "str");
  ck_assert_ptr_eq(irm_array_at(arr, 2)->v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  ck_assert_uint_eq(irm_object_refcount(arr), 1);
  irm_any_release(&ret);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_of_no_items_is_empty) {
  irm_any ret;
  ck_assert_ok(call_global("ffi.Array", NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_array_size(ret.v_obj), 0);
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_global_array_size) {
  int64_t v[] = {4, 5, 6};
  irm_object *arr = int_array(v, 3);
  irm_any args[] = {irm_any_object(arr)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.ArraySize", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 3);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_array_size_of_non_array_is_type_error) {
  irm_object *s = new_string("x");
  irm_any args[] = {irm_any_object(s)};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArraySize", args, 1, &ret), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_get_item) {
  irm_object *s = new_string("second");
  irm_any items[] = {irm_any_int(1), irm_any_object(s)};
  irm_object *arr = NULL;
  ck_assert_ok(irm_array_new(items, 2, &arr));
  irm_any args[] = {irm_any_object(arr), irm_any_int(0)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.ArrayGetItem", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 1);
  args[1] = irm_any_int(1);
  ck_assert_ok(call_global("ffi.ArrayGetItem", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_ptr_eq(ret.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  irm_any_release(&ret);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_get_item_out_of_range_is_index_error) {
  int64_t v[] = {1, 2};
  irm_object *arr = int_array(v, 2);
  irm_any args[] = {irm_any_object(arr), irm_any_int(5)};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_EINDEX,
                  "IndexError: ");
  ck_assert_error_mentions("5");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  args[1] = irm_any_int(-1);
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_EINDEX,
                  "IndexError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_array_get_item_of_non_array_is_type_error) {
  irm_object *s = new_string("x");
  irm_any args[] = {irm_any_object(s), irm_any_int(0)};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  args[0] = irm_any_int(3);
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_ETYPE,
                  "TypeError: ");
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_array_get_item_with_non_int_index_is_type_error) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_any args[] = {irm_any_object(arr), irm_any_str("0")};
  irm_any ret;
  ck_assert_error(call_global("ffi.ArrayGetItem", args, 2, &ret), IRM_ETYPE,
                  "TypeError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_array_get_item_wrong_arg_count_is_error) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_any args[] = {irm_any_object(arr), irm_any_int(0), irm_any_int(0)};
  irm_any ret;
  int rc = call_global("ffi.ArrayGetItem", args, 1, &ret);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_eq(irm_error_code_of(irm_last_error()), rc);
  ck_assert_error_mentions("ffi.ArrayGetItem");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  rc = call_global("ffi.ArrayGetItem", args, 3, &ret);
  ck_assert_int_lt(rc, 0);
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  rc = call_global("ffi.ArrayGetItem", NULL, 0, &ret);
  ck_assert_int_lt(rc, 0);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_map_makes_a_map_in_argument_order) {
  irm_any args[] = {irm_any_str("zeta"), irm_any_int(1), irm_any_str("alpha"),
                    irm_any_str("two")};
  irm_any ret;
  char buf[32];
  ck_assert_ok(call_global("ffi.Map", args, 4, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_object *map = ret.v_obj;
  ck_assert_str_eq(irm_object_type_key(map), "ffi.Map");
  ck_assert_uint_eq(irm_map_size(map), 2);
  ck_assert_str_eq(map_order(map, buf, sizeof buf), "zeta,alpha");
  ck_assert_int_eq(int_of(map, "zeta"), 1);
  const irm_any *v = irm_map_find_cstr(map, "alpha");
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(v->v_obj), "two");
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_global_map_of_no_arguments_is_empty) {
  irm_any ret;
  ck_assert_ok(call_global("ffi.Map", NULL, 0, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_map_size(ret.v_obj), 0);
  irm_any_release(&ret);
}
END_TEST

START_TEST(test_global_map_odd_argument_count_is_value_error) {
  irm_any args[] = {irm_any_str("a"), irm_any_int(1), irm_any_str("b")};
  irm_any ret;
  ck_assert_error(call_global("ffi.Map", args, 3, &ret), IRM_EVALUE,
                  "ValueError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_global_map_non_str_key_is_type_error) {
  irm_any args[] = {irm_any_str("a"), irm_any_int(1), irm_any_int(2),
                    irm_any_int(3)};
  irm_any ret;
  ck_assert_error(call_global("ffi.Map", args, 4, &ret), IRM_ETYPE,
                  "TypeError: ");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
}
END_TEST

START_TEST(test_global_map_size) {
  const char *keys[] = {"a", "b", "c"};
  int64_t vals[] = {1, 2, 3};
  irm_object *map = int_map(keys, vals, 3);
  irm_any args[] = {irm_any_object(map)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapSize", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 3);
  irm_object_release(map);
}
END_TEST

START_TEST(test_global_map_size_of_non_map_is_type_error) {
  int64_t v[] = {1};
  irm_object *arr = int_array(v, 1);
  irm_any args[] = {irm_any_object(arr)};
  irm_any ret;
  ck_assert_error(call_global("ffi.MapSize", args, 1, &ret), IRM_ETYPE,
                  "TypeError: ");
  irm_object_release(arr);
}
END_TEST

START_TEST(test_global_map_get_item) {
  const char *keys[] = {"a", "b"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_any args[] = {irm_any_object(map), irm_any_str("b")};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapGetItem", args, 2, &ret));
  ck_assert_int_eq(ret.type_code, IRM_INT);
  ck_assert_int_eq(ret.v_int, 2);
  irm_object_release(map);
}
END_TEST

START_TEST(test_global_map_get_item_missing_key_is_key_error) {
  const char *keys[] = {"executor", "runtime"};
  int64_t vals[] = {1, 2};
  irm_object *map = int_map(keys, vals, 2);
  irm_any args[] = {irm_any_object(map), irm_any_str("runtme")};
  irm_any ret;
  ck_assert_error(call_global("ffi.MapGetItem", args, 2, &ret), IRM_EKEY,
                  "KeyError: ");
  ck_assert_error_mentions("runtme");
  ck_assert_error_mentions("runtime");
  ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_object_release(map);
}
END_TEST

START_TEST(test_global_map_items_alternates_keys_and_values_in_order) {
  irm_object *s = new_string("v");
  const char *keys[] = {"second", "first"};
  irm_any vals[] = {irm_any_int(2), irm_any_object(s)};
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 2, &map));
  irm_any args[] = {irm_any_object(map)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapItems", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  irm_object *items = ret.v_obj;
  ck_assert_str_eq(irm_object_type_key(items), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(items), 4);
  ck_assert_int_eq(irm_array_at(items, 0)->type_code, IRM_OBJECT);
  ck_assert(irm_string_equals(irm_array_at(items, 0)->v_obj, "second", 6));
  ck_assert_int_eq(int_at(items, 1), 2);
  ck_assert(irm_string_equals(irm_array_at(items, 2)->v_obj, "first", 5));
  ck_assert_ptr_eq(irm_array_at(items, 3)->v_obj, s);
  irm_any_release(&ret);
  irm_object_release(map);
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_global_map_items_of_empty_map_is_empty_array) {
  irm_object *map = NULL;
  ck_assert_ok(irm_map_new(&map));
  irm_any args[] = {irm_any_object(map)};
  irm_any ret;
  ck_assert_ok(call_global("ffi.MapItems", args, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_array_size(ret.v_obj), 0);
  irm_any_release(&ret);
  irm_object_release(map);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *container_suite(void) {
  Suite *s = suite_create("container");

  TCase *tc = tcase_create("string");
  tcase_add_test(tc, test_string_keeps_embedded_nul_bytes);
  tcase_add_test(tc, test_string_copies_its_bytes_and_ends_with_nul);
  tcase_add_test(tc, test_string_empty);
  tcase_add_test(tc, test_string_null_data_with_zero_length_is_empty);
  tcase_add_test(tc, test_string_null_data_with_length_is_value_error);
  tcase_add_test(tc, test_string_null_out_is_value_error);
  tcase_add_test(tc, test_string_data_and_size_of_non_string);
  tcase_add_test(tc, test_string_from_cstr);
  tcase_add_test(tc, test_string_from_cstr_null_is_value_error);
  tcase_add_test(tc, test_string_format);
  tcase_add_test(tc, test_string_format_of_a_long_text);
  tcase_add_test(tc, test_string_equals_compares_all_bytes);
  tcase_add_test(tc, test_string_equals_of_non_string_is_false);
  suite_add_tcase(s, tc);

  tc = tcase_create("array");
  tcase_add_test(tc, test_array_new_copies_scalar_items);
  tcase_add_test(tc, test_array_new_turns_str_items_into_strings);
  tcase_add_test(tc, test_array_new_retains_object_items);
  tcase_add_test(tc, test_array_new_of_no_items_accepts_null);
  tcase_add_test(tc, test_array_new_null_items_or_out_is_value_error);
  tcase_add_test(tc, test_array_new_invalid_item_is_value_error_without_leak);
  tcase_add_test(tc, test_array_at_out_of_range_is_null);
  tcase_add_test(tc, test_array_size_and_at_of_non_array);
  tcase_add_test(tc, test_array_get_returns_a_new_value);
  tcase_add_test(tc, test_array_get_out_of_range_is_index_error_naming_index_and_size);
  tcase_add_test(tc, test_array_get_negative_index_is_index_error);
  tcase_add_test(tc, test_array_get_of_empty_array_is_index_error);
  tcase_add_test(tc, test_array_get_of_non_array_is_type_error);
  tcase_add_test(tc, test_array_with_append_leaves_the_argument_unchanged);
  tcase_add_test(tc, test_array_with_append_shares_object_items);
  tcase_add_test(tc, test_array_with_set_leaves_the_argument_unchanged);
  tcase_add_test(tc, test_array_with_set_out_of_range_is_index_error);
  tcase_add_test(tc, test_array_with_append_and_with_set_of_non_array_is_type_error);
  tcase_add_test(tc, test_array_append_move_changes_in_place_when_unique);
  tcase_add_test(tc, test_array_append_move_copies_when_shared);
  tcase_add_test(tc, test_array_append_move_grows_in_place_to_many_items);
  tcase_add_test(tc, test_array_append_move_turns_str_into_string);
  tcase_add_test(tc, test_array_append_move_of_non_array_is_type_error_and_keeps_ref);
  tcase_add_test(tc, test_array_set_move_changes_in_place_when_unique);
  tcase_add_test(tc, test_array_set_move_copies_when_shared);
  tcase_add_test(tc, test_array_set_move_out_of_range_leaves_ref_untouched);
  tcase_add_test(tc, test_array_set_move_out_of_range_when_shared_leaves_ref_untouched);
  tcase_add_test(tc, test_array_with_append_of_invalid_item_is_value_error);
  tcase_add_test(tc, test_array_move_of_invalid_item_leaves_ref_untouched);
  suite_add_tcase(s, tc);

  tc = tcase_create("map");
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

  tc = tcase_create("globals");
  tcase_add_test(tc, test_global_array_makes_an_array_of_owned_items);
  tcase_add_test(tc, test_global_array_of_no_items_is_empty);
  tcase_add_test(tc, test_global_array_size);
  tcase_add_test(tc, test_global_array_size_of_non_array_is_type_error);
  tcase_add_test(tc, test_global_array_get_item);
  tcase_add_test(tc, test_global_array_get_item_out_of_range_is_index_error);
  tcase_add_test(tc, test_global_array_get_item_of_non_array_is_type_error);
  tcase_add_test(tc, test_global_array_get_item_with_non_int_index_is_type_error);
  tcase_add_test(tc, test_global_array_get_item_wrong_arg_count_is_error);
  tcase_add_test(tc, test_global_map_makes_a_map_in_argument_order);
  tcase_add_test(tc, test_global_map_of_no_arguments_is_empty);
  tcase_add_test(tc, test_global_map_odd_argument_count_is_value_error);
  tcase_add_test(tc, test_global_map_non_str_key_is_type_error);
  tcase_add_test(tc, test_global_map_size);
  tcase_add_test(tc, test_global_map_size_of_non_map_is_type_error);
  tcase_add_test(tc, test_global_map_get_item);
  tcase_add_test(tc, test_global_map_get_item_missing_key_is_key_error);
  tcase_add_test(tc, test_global_map_items_alternates_keys_and_values_in_order);
  tcase_add_test(tc, test_global_map_items_of_empty_map_is_empty_array);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(container_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failures = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
