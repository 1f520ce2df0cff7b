/* JSON serialization (json.h): irm_to_json and irm_from_json round trips of
 * scalars, containers, registered types, deep chains, and threads.
 * Malformed input is in check_json_errors.c, the ffi.* globals in
 * check_json_globals.c. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/module.h>

#include "check_json_util.h"

/* ---- scalars ------------------------------------------------------------ */

START_TEST(test_scalars_round_trip_with_their_types) {
  const irm_any values[] = {irm_any_none(),
                            irm_any_int(0),
                            irm_any_int(-7),
                            irm_any_int(INT64_MAX),
                            irm_any_int(INT64_MIN),
                            irm_any_bool(true),
                            irm_any_bool(false),
                            irm_any_float(1.0),
                            irm_any_float(0.1),
                            irm_any_float(-2.5e-300),
                            irm_any_float(1.7976931348623157e308),
                            irm_any_float(5e-324)};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    irm_any back = round_trip(&values[i]);
    ck_assert_int_eq(back.type_code, values[i].type_code);
    if (values[i].type_code == IRM_FLOAT)
      ck_assert_msg(back.v_float == values[i].v_float, "float %d: %.17g came back as %.17g", (int)i, values[i].v_float,
                    back.v_float);
    else ck_assert_int_eq(back.v_int, values[i].v_int);
  }
}
END_TEST

START_TEST(test_int_float_and_bool_stay_distinct) {
  irm_any items[] = {irm_any_int(1), irm_any_float(1.0), irm_any_bool(true)};
  irm_object *arr = new_array(items, 3);
  irm_any v = irm_any_object(arr);
  irm_any back = round_trip(&v);
  ck_assert_int_eq(irm_array_at(back.v_obj, 0)->type_code, IRM_INT);
  ck_assert_int_eq(irm_array_at(back.v_obj, 1)->type_code, IRM_FLOAT);
  ck_assert_int_eq(irm_array_at(back.v_obj, 2)->type_code, IRM_BOOL);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_negative_zero_keeps_its_sign) {
  irm_any v = irm_any_float(-0.0);
  irm_any back = round_trip(&v);
  ck_assert_int_eq(back.type_code, IRM_FLOAT);
  ck_assert(signbit(back.v_float));
}
END_TEST

START_TEST(test_nan_and_infinities_are_written_as_float_objects) {
  irm_any items[] = {irm_any_float(NAN), irm_any_float(INFINITY), irm_any_float(-INFINITY)};
  irm_object *arr = new_array(items, 3);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(
      strstr(irm_string_data(text), "[{\"float\":\"nan\"},{\"float\":\"inf\"},{\"float\":\"-inf\"}]"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert(isnan(irm_array_at(back.v_obj, 0)->v_float));
  ck_assert(irm_array_at(back.v_obj, 1)->v_float == INFINITY);
  ck_assert(irm_array_at(back.v_obj, 2)->v_float == -INFINITY);
  irm_any_release(&back);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_text_has_version_root_and_nodes_children_first) {
  irm_object *s = new_string("a");
  irm_any items[] = {irm_any_object(s), irm_any_int(2)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  ck_assert_str_eq(irm_string_data(text), "{\"irm_json\": 1, \"root\": {\"ref\":1}, \"nodes\": [\n"
                                          "  {\"type\":\"ffi.String\",\"data\":\"a\"},\n"
                                          "  {\"type\":\"ffi.Array\",\"items\":[{\"ref\":0},2]}\n"
                                          "]}");
  irm_object_release(text);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_scalar_root_has_no_nodes) {
  irm_any v = irm_any_int(42);
  irm_object *text = to_json(&v);
  ck_assert_str_eq(irm_string_data(text), "{\"irm_json\": 1, \"root\": 42, \"nodes\": []}");
  irm_object_release(text);
}
END_TEST

START_TEST(test_str_value_is_written_as_a_string) {
  irm_any v = irm_any_str("hello");
  irm_any back = round_trip(&v);
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(back.v_obj), "ffi.String");
  ck_assert_str_eq(irm_string_data(back.v_obj), "hello");
  irm_any_release(&back);
}
END_TEST

START_TEST(test_null_arguments_are_value_errors) {
  irm_object *text = NULL;
  irm_any v = irm_any_none();
  ck_assert_error(irm_to_json(NULL, &text), IRM_EVALUE, "ValueError: irm_to_json");
  ck_assert_error(irm_to_json(&v, NULL), IRM_EVALUE, "ValueError: irm_to_json");
  ck_assert_error(irm_from_json("{}", 2, NULL), IRM_EVALUE, "ValueError: irm_from_json");
  ck_assert_error(irm_from_json(NULL, 3, &v), IRM_EVALUE, "ValueError: irm_from_json");
}
END_TEST

/* ---- containers --------------------------------------------------------- */

START_TEST(test_nested_arrays_and_maps_round_trip) {
  irm_object *inner = NULL;
  const char *keys[] = {"b", "a", "c"};
  irm_object *s = new_string("text");
  irm_any vals[] = {irm_any_int(1), irm_any_object(s), irm_any_float(2.5)};
  ck_assert_ok(irm_map_from_pairs(keys, vals, 3, &inner));
  irm_any items[] = {irm_any_object(inner), irm_any_none(), irm_any_bool(false)};
  irm_object *arr = new_array(items, 3);
  irm_any outer_vals[] = {irm_any_object(arr), irm_any_int(-1)};
  const char *outer_keys[] = {"list", "n"};
  irm_object *outer = NULL;
  ck_assert_ok(irm_map_from_pairs(outer_keys, outer_vals, 2, &outer));

  irm_any v = irm_any_object(outer);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  const irm_any *list = irm_map_find_cstr(back.v_obj, "list");
  ck_assert_ptr_nonnull(list);
  const irm_object *m = irm_array_at(list->v_obj, 0)->v_obj;
  /* insertion order survives */
  irm_map_iter it = irm_map_iter_begin(m);
  const irm_object *k;
  const irm_any *value;
  const char *expect[] = {"b", "a", "c"};
  for (int i = 0; i < 3; i++) {
    ck_assert(irm_map_iter_next(&it, &k, &value));
    ck_assert_str_eq(irm_string_data(k), expect[i]);
  }
  irm_any_release(&back);
  irm_object_release(outer);
  irm_object_release(arr);
  irm_object_release(inner);
  irm_object_release(s);
}
END_TEST

START_TEST(test_empty_containers_round_trip) {
  irm_object *arr = new_array(NULL, 0), *map = NULL;
  ck_assert_ok(irm_map_new(&map));
  irm_object *empty_string = new_string("");
  irm_any items[] = {irm_any_object(arr), irm_any_object(map), irm_any_object(empty_string)};
  irm_object *outer = new_array(items, 3);
  irm_any v = irm_any_object(outer);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  ck_assert_uint_eq(irm_array_size(irm_array_at(back.v_obj, 0)->v_obj), 0);
  ck_assert_uint_eq(irm_map_size(irm_array_at(back.v_obj, 1)->v_obj), 0);
  ck_assert_uint_eq(irm_string_size(irm_array_at(back.v_obj, 2)->v_obj), 0);
  irm_any_release(&back);
  irm_object_release(outer);
  irm_object_release(empty_string);
  irm_object_release(map);
  irm_object_release(arr);
}
END_TEST

/* Regression: an empty container as the root (or first) node has no child
 * references, and the writer used to offset a NULL pointer (UBSan abort). */
START_TEST(test_empty_map_array_and_module_as_root_round_trip) {
  irm_object *map = NULL, *arr = new_array(NULL, 0);
  irm_module *mod = NULL;
  ck_assert_ok(irm_map_new(&map));
  ck_assert_ok(irm_module_new(NULL, NULL, &mod));
  irm_object *roots[] = {map, arr, mod};
  for (size_t i = 0; i < 3; i++) {
    irm_any v = irm_any_object(roots[i]);
    irm_any back = round_trip(&v);
    ck_assert_str_eq(irm_object_type_key(back.v_obj), irm_object_type_key(roots[i]));
    ck_assert(equal(&v, &back));
    irm_any_release(&back);
  }
  irm_object_release(mod);
  irm_object_release(arr);
  irm_object_release(map);
}
END_TEST

START_TEST(test_strings_with_nul_bytes_round_trip) {
  static const char bytes[] = {'a', '\0', 'b', '\0'};
  irm_object *s = NULL;
  ck_assert_ok(irm_string_new(bytes, sizeof bytes, &s));
  irm_any v = irm_any_object(s);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"a\\u0000b\\u0000\""));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert_uint_eq(irm_string_size(back.v_obj), 4);
  ck_assert_int_eq(memcmp(irm_string_data(back.v_obj), bytes, 4), 0);
  irm_any_release(&back);
  irm_object_release(s);
}
END_TEST

START_TEST(test_map_keys_with_nul_bytes_round_trip) {
  irm_object *map = NULL;
  irm_any one = irm_any_int(1), two = irm_any_int(2);
  ck_assert_ok(irm_map_new(&map));
  ck_assert_ok(irm_map_set_move_n(&map, "k\0x", 3, &one));
  ck_assert_ok(irm_map_set_move_n(&map, "k\0y", 3, &two));
  irm_any v = irm_any_object(map);
  irm_any back = round_trip(&v);
  ck_assert_uint_eq(irm_map_size(back.v_obj), 2);
  ck_assert_int_eq(irm_map_find(back.v_obj, "k\0y", 3)->v_int, 2);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(map);
}
END_TEST

START_TEST(test_unicode_strings_round_trip) {
  irm_object *s = new_string("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");
  irm_any v = irm_any_object(s);
  irm_any back = round_trip(&v);
  ck_assert_str_eq(irm_string_data(back.v_obj), irm_string_data(s));
  irm_any_release(&back);
  irm_object_release(s);
}
END_TEST

START_TEST(test_string_that_is_not_utf8_is_a_value_error_naming_offset) {
  irm_object *s = new_string("ok\xff");
  irm_any items[] = {irm_any_int(0), irm_any_object(s)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: item 1 of an ffi.Array: ");
  ck_assert_error_mentions("not valid UTF-8 (byte 0xff at offset 2)");
  ck_assert_ptr_null(text);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

START_TEST(test_utf8_is_checked_as_jansson_checks_it) {
  static const struct {
    const char *bytes;
    size_t len, offset;
  } bad[] = {
      {"a\xc0\x80", 3, 1},        /* overlong NUL */
      {"\xe0\x80\xaf", 3, 0},     /* overlong '/' */
      {"ab\xed\xa0\x80", 5, 2},   /* a surrogate */
      {"\xf4\x90\x80\x80", 4, 0}, /* above U+10FFFF */
      {"x\xe2\x82", 3, 1},        /* cut short */
      {"\x80", 1, 0},             /* a lone continuation byte */
      {"\xe2\x28\xa1", 3, 0},     /* a bad continuation byte */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    irm_object *s = NULL, *text = NULL;
    ck_assert_ok(irm_string_new(bad[i].bytes, bad[i].len, &s));
    irm_any v = irm_any_object(s);
    ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: cannot serialize a String");
    char where[32];
    snprintf(where, sizeof where, "at offset %zu)", bad[i].offset);
    ck_assert_error_mentions(where);
    irm_object_release(s);
  }
  irm_object *ok = new_string("\xf4\x8f\xbf\xbf \xef\xbf\xbf \xc2\x80");
  irm_any v = irm_any_object(ok);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(ok);
}
END_TEST

START_TEST(test_shared_object_stays_shared) {
  irm_object *s = new_string("shared");
  irm_object *inner = new_array(NULL, 0);
  irm_any items[] = {irm_any_object(s), irm_any_object(inner), irm_any_object(s), irm_any_object(inner)};
  irm_object *arr = new_array(items, 4);
  irm_any v = irm_any_object(arr);
  irm_object *text = to_json(&v);
  /* one node per object: String, Array, outer Array */
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"items\":[{\"ref\":0},{\"ref\":1},{\"ref\":0},{\"ref\":1}]"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert_ptr_eq(irm_array_at(back.v_obj, 0)->v_obj, irm_array_at(back.v_obj, 2)->v_obj);
  ck_assert_ptr_eq(irm_array_at(back.v_obj, 1)->v_obj, irm_array_at(back.v_obj, 3)->v_obj);
  ck_assert_ptr_ne(irm_array_at(back.v_obj, 0)->v_obj, s);
  irm_any_release(&back);
  irm_object_release(arr);
  irm_object_release(inner);
  irm_object_release(s);
}
END_TEST

START_TEST(test_sharing_across_levels_stays_shared) {
  /* A diamond 40 levels deep: 2^40 paths, 41 nodes. */
  irm_object *level = new_string("leaf");
  for (int i = 0; i < 40; i++) {
    irm_any items[] = {irm_any_object(level), irm_any_object(level)};
    irm_object *next = new_array(items, 2);
    irm_object_release(level);
    level = next;
  }
  irm_any v = irm_any_object(level);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"root\": {\"ref\":40}"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert(equal(&v, &back));
  const irm_object *a = back.v_obj;
  for (int i = 0; i < 40; i++) {
    ck_assert_ptr_eq(irm_array_at(a, 0)->v_obj, irm_array_at(a, 1)->v_obj);
    a = irm_array_at(a, 0)->v_obj;
  }
  ck_assert_str_eq(irm_string_data(a), "leaf");
  irm_any_release(&back);
  irm_object_release(level);
}
END_TEST

/* ---- registered types --------------------------------------------------- */

START_TEST(test_registered_type_round_trips_through_its_fields) {
  irm_object *p = new_point(3, -4, "corner");
  irm_any v = irm_any_object(p);
  irm_object *text = to_json(&v);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "{\"type\":\"test.Point\",\"fields\":{\"ref\":1}}"));
  irm_object_release(text);
  irm_any back = round_trip(&v);
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(back.v_obj), "test.Point");
  ck_assert_ptr_ne(back.v_obj, p);
  const point *q = irm_object_payload_const(back.v_obj);
  ck_assert_int_eq(q->x, 3);
  ck_assert_int_eq(q->y, -4);
  ck_assert_str_eq(irm_string_data(q->label), "corner");
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(p);
}
END_TEST

START_TEST(test_shared_registered_object_stays_shared) {
  irm_object *p = new_point(1, 2, NULL);
  irm_any items[] = {irm_any_object(p), irm_any_object(p)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_any back = round_trip(&v);
  ck_assert_ptr_eq(irm_array_at(back.v_obj, 0)->v_obj, irm_array_at(back.v_obj, 1)->v_obj);
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(arr);
  irm_object_release(p);
}
END_TEST

START_TEST(test_type_without_to_fields_is_a_value_error_naming_the_type) {
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(opaque_type(), 8, &o));
  irm_any items[] = {irm_any_int(1), irm_any_object(o)};
  irm_object *arr = new_array(items, 2);
  irm_any v = irm_any_object(arr);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: item 1 of an ffi.Array: ");
  ck_assert_error_mentions("type 'test.Opaque'");
  ck_assert_error_mentions("no to_fields hook");
  irm_object_release(arr);
  irm_object_release(o);

  irm_object *f = NULL;
  ck_assert_ok(irm_func_get_global("ffi.Array", &f));
  v = irm_any_object(f);
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("type 'ffi.Function'");
  irm_object_release(f);
}
END_TEST

START_TEST(test_ptr_value_is_a_value_error) {
  int x = 0;
  irm_any v = irm_any_ptr(&x);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE, "ValueError: cannot serialize a ptr value");

  const char *keys[] = {"where"};
  irm_any vals[] = {irm_any_ptr(&x)};
  irm_object *map = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 1, &map));
  v = irm_any_object(map);
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE,
                  "ValueError: value of key 'where' in an ffi.Map: cannot serialize a ptr value");
  irm_object_release(map);
}
END_TEST

/* A type whose fields hold a ptr, which JSON cannot. */
static int ptr_holder_to_fields(const irm_object *self, irm_object **out) {
  const char *keys[] = {"n", "where"};
  irm_any values[] = {irm_any_int(1), irm_any_ptr((void *)self)};
  return irm_map_from_pairs(keys, values, 2, out);
}

START_TEST(test_ptr_inside_fields_names_the_field_and_type) {
  irm_type_info info = {0};
  info.struct_size = sizeof info;
  info.type_key = "test.PtrHolder";
  info.to_fields = ptr_holder_to_fields;
  int32_t index = -1;
  ck_assert_ok(irm_type_register(&info, &index));
  irm_object *o = NULL;
  ck_assert_ok(irm_object_new(index, 0, &o));
  irm_any v = irm_any_object(o);
  irm_object *text = NULL;
  ck_assert_error(irm_to_json(&v, &text), IRM_EVALUE,
                  "ValueError: field 'where' of a test.PtrHolder: cannot serialize a ptr value");
  irm_object_release(o);
}
END_TEST

START_TEST(test_from_fields_failure_names_the_node_and_type) {
  point_type();
  const char *text = "{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
                     "  {\"type\": \"ffi.Map\", \"keys\": [\"x\"], \"values\": [1]},\n"
                     "  {\"type\": \"test.Point\", \"fields\": {\"ref\": 0}}]}";
  read_fails(text, IRM_EVALUE, "ValueError: node 1 (test.Point): from_fields of type 'test.Point': ");
  ck_assert_error_mentions("needs int fields");
}
END_TEST

START_TEST(test_type_without_from_fields_cannot_be_read) {
  opaque_type();
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Map\", \"keys\": [], \"values\": []},\n"
             "  {\"type\": \"test.Opaque\", \"fields\": {\"ref\": 0}}]}",
             IRM_EVALUE, "ValueError: node 1 (test.Opaque): type 'test.Opaque' cannot be read");
  ck_assert_error_mentions("no from_fields hook");
}
END_TEST

START_TEST(test_fields_must_refer_to_a_map_node) {
  point_type();
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 1}, \"nodes\": [\n"
             "  {\"type\": \"ffi.Array\", \"items\": []},\n"
             "  {\"type\": \"test.Point\", \"fields\": {\"ref\": 0}}]}",
             IRM_EVALUE, "ValueError: node 1 (test.Point): field 'fields' must refer to an ffi.Map");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [\n"
             "  {\"type\": \"test.Point\", \"fields\": 3}]}",
             IRM_EVALUE, "ValueError: node 0 (test.Point): field 'fields' must refer to an ffi.Map");
  read_fails("{\"irm_json\": 1, \"root\": {\"ref\": 0}, \"nodes\": [\n"
             "  {\"type\": \"test.Point\"}]}",
             IRM_EVALUE, "ValueError: node 0 (test.Point): missing field 'fields'");
}
END_TEST

/* ---- depth -------------------------------------------------------------- */

/* A million levels in the plain build; a tenth of that under AddressSanitizer,
 * whose allocations are slow and whose larger frames would still overflow
 * the stack at that depth if any walk recursed. */
#if defined(__SANITIZE_ADDRESS__)
enum { DEEP_CHAIN = 100000 };
#else
enum { DEEP_CHAIN = 1000000 };
#endif

START_TEST(test_deep_chain_round_trips_and_compares_equal) {
  enum { DEPTH = DEEP_CHAIN };
  irm_object *chain = new_array(NULL, 0);
  for (int i = 1; i < DEPTH; i++) {
    irm_any item = irm_any_object(chain);
    irm_object *next = NULL;
    ck_require(irm_array_new(&item, 1, &next) == 0, "level %d: %s", i, irm_last_error());
    irm_object_release(chain);
    chain = next;
  }
  irm_any v = irm_any_object(chain);
  irm_object *text = to_json(&v);
  char root[64];
  snprintf(root, sizeof root, "\"root\": {\"ref\":%d}", DEPTH - 1);
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), root));
  irm_any back = irm_any_none();
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  irm_object_release(text);
  ck_assert_ptr_ne(back.v_obj, chain);
  ck_assert(equal(&v, &back));
  uint64_t h1 = 0, h2 = 0;
  ck_assert_ok(irm_structural_hash(&v, &h1));
  ck_assert_ok(irm_structural_hash(&back, &h2));
  ck_assert(h1 == h2);
  irm_any_release(&back);
  irm_object_release(chain);
}
END_TEST

/* ---- threads ------------------------------------------------------------ */

/* Many threads write, read, compare and hash one shared value at once;
 * the first use of jansson happens inside the race. */
static void *round_trips(void *arg) {
  const irm_any *v = arg;
  for (int i = 0; i < 200; i++) {
    irm_object *text = NULL;
    irm_any back = irm_any_none();
    int eq = 0;
    uint64_t h1 = 0, h2 = 1;
    if (irm_to_json(v, &text) || irm_from_json(irm_string_data(text), irm_string_size(text), &back) ||
        irm_structural_equal(v, &back, &eq) || irm_structural_hash(v, &h1) || irm_structural_hash(&back, &h2) || !eq ||
        h1 != h2) {
      irm_object_release(text);
      irm_any_release(&back);
      return (void *)1;
    }
    irm_object_release(text);
    irm_any_release(&back);
  }
  return NULL;
}

START_TEST(test_threads_share_values_safely) {
  irm_object *p = new_point(1, 2, "t");
  irm_object *s = new_string("shared");
  irm_any items[] = {irm_any_object(p), irm_any_object(s), irm_any_object(s), irm_any_float(NAN)};
  irm_object *arr = new_array(items, 4);
  irm_any v = irm_any_object(arr);
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) ck_assert_int_eq(pthread_create(&threads[i], NULL, round_trips, &v), 0);
  for (int i = 0; i < 4; i++) {
    void *result = NULL;
    ck_assert_int_eq(pthread_join(threads[i], &result), 0);
    ck_assert_msg(result == NULL, "thread %d saw a failure or a difference", i);
  }
  irm_object_release(arr);
  irm_object_release(s);
  irm_object_release(p);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *json_suite(void) {
  Suite *s = suite_create("json");

  TCase *tc = tcase_create("scalars");
  tcase_add_test(tc, test_scalars_round_trip_with_their_types);
  tcase_add_test(tc, test_int_float_and_bool_stay_distinct);
  tcase_add_test(tc, test_negative_zero_keeps_its_sign);
  tcase_add_test(tc, test_nan_and_infinities_are_written_as_float_objects);
  tcase_add_test(tc, test_text_has_version_root_and_nodes_children_first);
  tcase_add_test(tc, test_scalar_root_has_no_nodes);
  tcase_add_test(tc, test_str_value_is_written_as_a_string);
  tcase_add_test(tc, test_null_arguments_are_value_errors);
  suite_add_tcase(s, tc);

  tc = tcase_create("containers");
  tcase_add_test(tc, test_nested_arrays_and_maps_round_trip);
  tcase_add_test(tc, test_empty_containers_round_trip);
  tcase_add_test(tc, test_empty_map_array_and_module_as_root_round_trip);
  tcase_add_test(tc, test_strings_with_nul_bytes_round_trip);
  tcase_add_test(tc, test_map_keys_with_nul_bytes_round_trip);
  tcase_add_test(tc, test_unicode_strings_round_trip);
  tcase_add_test(tc, test_string_that_is_not_utf8_is_a_value_error_naming_offset);
  tcase_add_test(tc, test_utf8_is_checked_as_jansson_checks_it);
  tcase_add_test(tc, test_shared_object_stays_shared);
  tcase_add_test(tc, test_sharing_across_levels_stays_shared);
  suite_add_tcase(s, tc);

  tc = tcase_create("registered_types");
  tcase_add_test(tc, test_registered_type_round_trips_through_its_fields);
  tcase_add_test(tc, test_shared_registered_object_stays_shared);
  tcase_add_test(tc, test_type_without_to_fields_is_a_value_error_naming_the_type);
  tcase_add_test(tc, test_ptr_value_is_a_value_error);
  tcase_add_test(tc, test_ptr_inside_fields_names_the_field_and_type);
  tcase_add_test(tc, test_from_fields_failure_names_the_node_and_type);
  tcase_add_test(tc, test_type_without_from_fields_cannot_be_read);
  tcase_add_test(tc, test_fields_must_refer_to_a_map_node);
  suite_add_tcase(s, tc);

  tc = tcase_create("depth");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_deep_chain_round_trips_and_compares_equal);
  suite_add_tcase(s, tc);

  tc = tcase_create("threads");
  tcase_add_test(tc, test_threads_share_values_safely);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(json_suite()); }
