/* The hooks of ffi.Tensor (tensor.h, docs/tensors.md): fields {dtype,
 * shape, data (base64)} and the JSON round trip of every dtype, malformed
 * fields refused with the field named, bitwise structural equality and
 * hash, and repr. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check_tensor_util.h"

/* ---- helpers ----------------------------------------------------------------- */

static irm_object *to_json_text(irm_object *o) {
  irm_any v = irm_any_object(o);
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(&v, &text));
  return text;
}

/* o written as JSON and read back; NEW. */
static irm_object *json_round_trip(irm_object *o) {
  irm_object *text = to_json_text(o);
  irm_any back = irm_any_none();
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  irm_object_release(text);
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  return back.v_obj;
}

static int tensors_equal(irm_object *a, irm_object *b) {
  irm_any x = irm_any_object(a), y = irm_any_object(b);
  return equal(&x, &y);
}

static uint64_t hash_of(irm_object *o) {
  irm_any v = irm_any_object(o);
  uint64_t h = 0;
  ck_assert_ok(irm_structural_hash(&v, &h));
  return h;
}

/* The repr of o, compared with expected. */
static void assert_repr(irm_object *o, const char *expected) {
  irm_any v = irm_any_object(o);
  irm_object *s = NULL;
  ck_assert_ok(irm_repr(&v, &s));
  ck_assert_str_eq(irm_string_data(s), expected);
  irm_object_release(s);
}

/* The from_fields hook of ffi.Tensor applied to fields. */
static int from_fields(irm_object *fields, irm_object **out) {
  int32_t index = -1;
  ck_assert_ok(irm_type_find("ffi.Tensor", &index));
  return irm_type_info_of(index)->from_fields(fields, out);
}

/* A fields Map {dtype, shape, data}; a NULL key leaves that entry out. */
static irm_object *fields_of(const char *dtype_key, irm_any dtype, const char *shape_key, irm_any shape,
                             const char *data_key, irm_any data) {
  const char *keys[3];
  irm_any values[3];
  size_t n = 0;
  if (dtype_key) keys[n] = dtype_key, values[n++] = dtype;
  if (shape_key) keys[n] = shape_key, values[n++] = shape;
  if (data_key) keys[n] = data_key, values[n++] = data;
  return new_map(keys, values, n);
}

/* ---- fields and JSON ------------------------------------------------------------ */

START_TEST(test_fields_are_dtype_shape_and_base64_data) {
  int64_t shape[] = {3};
  irm_tensor *t = new_tensor("uint8", shape, 1, "\x01\x02\x03");
  int32_t index = -1;
  ck_assert_ok(irm_type_find("ffi.Tensor", &index));
  irm_object *fields = NULL;
  ck_assert_ok(irm_type_info_of(index)->to_fields(t, &fields));
  ck_assert_uint_eq(irm_map_size(fields), 3);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(fields, "dtype")->v_obj), "uint8");
  const irm_object *dims = irm_map_find_cstr(fields, "shape")->v_obj;
  ck_assert_uint_eq(irm_array_size(dims), 1);
  ck_assert_int_eq(irm_array_at(dims, 0)->v_int, 3);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(fields, "data")->v_obj), "AQID");
  irm_object_release(fields);
  irm_object_release(t);
}
END_TEST

START_TEST(test_base64_pads_the_last_group) {
  static const char *const expected[] = {"", "AQ==", "AQI=", "AQID", "AQIDBA=="};
  for (int64_t n = 0; n <= 4; n++) {
    irm_tensor *t = new_tensor("uint8", &n, 1, "\x01\x02\x03\x04");
    irm_object *text = to_json_text(t);
    char needle[32];
    snprintf(needle, sizeof needle, "\"data\":\"%s\"", expected[n]);
    ck_assert_msg(strstr(irm_string_data(text), needle) != NULL, "%s not in %s", needle, irm_string_data(text));
    irm_object *back = json_round_trip(t);
    ck_assert(tensors_equal(t, back));
    ck_assert_int_eq(irm_tensor_numel(back), n);
    irm_object_release(back);
    irm_object_release(text);
    irm_object_release(t);
  }
}
END_TEST

START_TEST(test_every_dtype_round_trips_through_json) {
  static const char *const names[] = {"float32", "float16", "int32", "int8", "uint8", "bool"};
  static const double values[] = {0, 1, -2.5, 100, 0.1, -0.0, 3, 1};
  int64_t shape[] = {2, 4};
  for (size_t k = 0; k < 6; k++) {
    irm_tensor *t = new_tensor(names[k], shape, 2, NULL);
    for (int64_t i = 0; i < 8; i++) irm_tensor_set_f64(t, i, values[i]);
    irm_object *back = json_round_trip(t);
    ck_assert(irm_is_tensor(back));
    ck_assert_str_eq(irm_dtype_name(irm_tensor_dl(back)->dtype), names[k]);
    ck_assert_int_eq(irm_tensor_dl(back)->ndim, 2);
    ck_assert_int_eq(irm_tensor_dl(back)->shape[1], 4);
    ck_assert_uint_eq((uintptr_t)irm_tensor_data(back) % IRM_TENSOR_ALIGNMENT, 0);
    ck_assert_int_eq(memcmp(irm_tensor_data(back), irm_tensor_data(t), irm_tensor_nbytes(t)), 0);
    ck_assert(tensors_equal(t, back));
    irm_object_release(back);
    irm_object_release(t);
  }
  float x = -7.25f;
  irm_tensor *scalar = new_tensor("float32", NULL, 0, &x);
  irm_object *back = json_round_trip(scalar);
  ck_assert_int_eq(irm_tensor_dl(back)->ndim, 0);
  ck_assert(irm_tensor_get_f64(back, 0) == -7.25);
  irm_object_release(back);
  irm_object_release(scalar);
}
END_TEST

START_TEST(test_a_shared_tensor_stays_shared_after_a_round_trip) {
  int64_t shape[] = {2};
  irm_tensor *t = new_tensor("int32", shape, 1, NULL);
  irm_any items[2] = {irm_any_object(t), irm_any_object(t)};
  irm_object *arr = new_array(items, 2);
  irm_object *back = json_round_trip(arr);
  ck_assert_ptr_eq(irm_array_at(back, 0)->v_obj, irm_array_at(back, 1)->v_obj);
  ck_assert(tensors_equal(arr, back));
  irm_object_release(back);
  irm_object_release(arr);
  irm_object_release(t);
}
END_TEST

/* from_fields refuses fields; the message starts with prefix. */
static void assert_fields_refused(irm_object *fields, int code, const char *prefix) {
  irm_object *out = NULL;
  ck_assert_error(from_fields(fields, &out), code, prefix);
  ck_assert_ptr_null(out);
  irm_object_release(fields);
}

START_TEST(test_malformed_fields_are_refused_naming_the_field) {
  int64_t dims3[] = {3}, dims2[] = {2, 2};
  irm_any shape3_items[] = {irm_any_int(dims3[0])};
  irm_object *shape3 = new_array(shape3_items, 1);
  irm_any s3 = irm_any_object(shape3), f32 = irm_any_str("uint8"), ok = irm_any_str("AQID");
  (void)dims2;

  assert_fields_refused(fields_of("dtype", irm_any_str("uint9"), "shape", s3, "data", ok), IRM_EVALUE,
                        "ValueError: field 'dtype' of ffi.Tensor: unknown dtype 'uint9' (did you mean 'uint8'?)");
  assert_fields_refused(fields_of("dtype", irm_any_int(8), "shape", s3, "data", ok), IRM_ETYPE,
                        "TypeError: field 'dtype' of ffi.Tensor: expected str, got int");
  assert_fields_refused(fields_of("dtype", f32, "shape", irm_any_int(3), "data", ok), IRM_ETYPE,
                        "TypeError: field 'shape' of ffi.Tensor: expected ffi.Array, got int");
  irm_any bad_items[] = {irm_any_int(1), irm_any_float(3.0)};
  irm_object *bad = new_array(bad_items, 2);
  assert_fields_refused(fields_of("dtype", f32, "shape", irm_any_object(bad), "data", ok), IRM_ETYPE,
                        "TypeError: field 'shape' of ffi.Tensor: item 1: expected int, got float");
  irm_object_release(bad);
  irm_any neg_items[] = {irm_any_int(-3)};
  irm_object *neg = new_array(neg_items, 1);
  assert_fields_refused(fields_of("dtype", f32, "shape", irm_any_object(neg), "data", ok), IRM_EVALUE,
                        "ValueError: field 'shape' of ffi.Tensor: tensor shape [-3]: dimension 0 is negative");
  irm_object_release(neg);
  irm_any many_items[IRM_TENSOR_MAX_NDIM + 1];
  for (int i = 0; i <= IRM_TENSOR_MAX_NDIM; i++) many_items[i] = irm_any_int(1);
  irm_object *many = new_array(many_items, IRM_TENSOR_MAX_NDIM + 1);
  assert_fields_refused(fields_of("dtype", f32, "shape", irm_any_object(many), "data", ok), IRM_EVALUE,
                        "ValueError: field 'shape' of ffi.Tensor: 17 dimensions; a tensor has 0 to 16");
  irm_object_release(many);
  irm_any huge_items[] = {irm_any_int(INT64_C(1) << 40), irm_any_int(INT64_C(1) << 40)};
  irm_object *huge = new_array(huge_items, 2);
  assert_fields_refused(fields_of("dtype", f32, "shape", irm_any_object(huge), "data", irm_any_str("")), IRM_EVALUE,
                        "ValueError: field 'shape' of ffi.Tensor: tensor shape [1099511627776, ");
  irm_object_release(huge);

  assert_fields_refused(fields_of("dtype", f32, "shape", s3, "data", irm_any_str("AQI=")), IRM_EVALUE,
                        "ValueError: field 'data' of ffi.Tensor: holds 2 bytes; dtype uint8 and this shape need 3");
  assert_fields_refused(fields_of("dtype", irm_any_str("int32"), "shape", s3, "data", ok), IRM_EVALUE,
                        "ValueError: field 'data' of ffi.Tensor: holds 3 bytes; dtype int32 and this shape need 12");
  assert_fields_refused(fields_of("dtype", f32, "shape", s3, "data", irm_any_str("AQI")), IRM_EVALUE,
                        "ValueError: field 'data' of ffi.Tensor: base64 text of 3 characters (not a multiple of 4)");
  assert_fields_refused(fields_of("dtype", f32, "shape", s3, "data", irm_any_str("AQ!D")), IRM_EVALUE,
                        "ValueError: field 'data' of ffi.Tensor: not base64: byte 0x21 at offset 2");
  assert_fields_refused(fields_of("dtype", f32, "shape", s3, "data", irm_any_str("A=ID")), IRM_EVALUE,
                        "ValueError: field 'data' of ffi.Tensor: not base64: byte 0x3d at offset 1");
  assert_fields_refused(fields_of("dtype", f32, "shape", s3, "data", irm_any_int(1)), IRM_ETYPE,
                        "TypeError: field 'data' of ffi.Tensor: expected base64 text (ffi.String), got int");

  assert_fields_refused(fields_of("dtype", f32, "shape", s3, NULL, ok), IRM_EVALUE,
                        "ValueError: ffi.Tensor needs the fields dtype, shape and data; field 'data' is missing");
  assert_fields_refused(fields_of(NULL, f32, "shape", s3, "data", ok), IRM_EVALUE,
                        "ValueError: ffi.Tensor needs the fields dtype, shape and data; field 'dtype' is missing");
  assert_fields_refused(fields_of("dtype", f32, "shap", s3, "data", ok), IRM_EVALUE,
                        "ValueError: ffi.Tensor has no field 'shap' (did you mean 'shape'?) (its fields: dtype, "
                        "shape, data)");
  irm_object_release(shape3);
}
END_TEST

/* text with the first occurrence of from replaced by to; NEW String. */
static irm_object *replaced(const irm_object *text, const char *from, const char *to) {
  const char *s = irm_string_data(text), *at = strstr(s, from);
  ck_assert_ptr_nonnull(at);
  char buf[2048];
  ck_assert_uint_lt(strlen(s) + strlen(to), sizeof buf);
  snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
  return new_string(buf);
}

START_TEST(test_from_json_reports_a_bad_field_through_the_global) {
  int64_t shape[] = {3};
  irm_tensor *t = new_tensor("uint8", shape, 1, "\x01\x02\x03");
  irm_object *text = to_json_text(t);
  irm_object *short_data = replaced(text, "\"AQID\"", "\"AQI=\"");
  irm_any arg = irm_any_object(short_data);
  ck_assert_int_eq(call_fails("ffi.FromJSON", &arg, 1), IRM_EVALUE);
  ck_assert_error_mentions("field 'data' of ffi.Tensor: holds 2 bytes");
  irm_object *bad_dtype = replaced(text, "\"uint8\"", "\"unit8\"");
  arg = irm_any_object(bad_dtype);
  ck_assert_int_eq(call_fails("ffi.FromJSON", &arg, 1), IRM_EVALUE);
  ck_assert_error_mentions("field 'dtype' of ffi.Tensor: unknown dtype 'unit8' (did you mean 'uint8'?)");
  arg = irm_any_object(text);
  irm_object *back = call_obj("ffi.FromJSON", &arg, 1, "ffi.Tensor");
  ck_assert(tensors_equal(t, back));
  irm_object_release(back);
  irm_object_release(bad_dtype);
  irm_object_release(short_data);
  irm_object_release(text);
  irm_object_release(t);
}
END_TEST

/* ---- equality and hash ----------------------------------------------------------- */

START_TEST(test_equal_tensors_have_the_same_dtype_shape_and_bytes) {
  int64_t four[] = {4}, two_by_two[] = {2, 2};
  irm_tensor *a = new_tensor("int8", four, 1, "\x01\x02\x03\x04");
  irm_tensor *b = new_tensor("int8", four, 1, "\x01\x02\x03\x04");
  irm_tensor *other_bytes = new_tensor("int8", four, 1, "\x01\x02\x03\x05");
  irm_tensor *other_dtype = new_tensor("uint8", four, 1, "\x01\x02\x03\x04");
  irm_tensor *other_shape = new_tensor("int8", two_by_two, 2, "\x01\x02\x03\x04");
  ck_assert(tensors_equal(a, b));
  ck_assert_uint_eq(hash_of(a), hash_of(b));
  ck_assert(!tensors_equal(a, other_bytes));
  ck_assert(!tensors_equal(a, other_dtype));
  ck_assert(!tensors_equal(a, other_shape));
  ck_assert_uint_ne(hash_of(a), hash_of(other_bytes));
  ck_assert_uint_ne(hash_of(a), hash_of(other_dtype));
  ck_assert_uint_ne(hash_of(a), hash_of(other_shape));
  irm_object *s = new_string("\x01\x02\x03\x04");
  ck_assert(!tensors_equal(a, s));
  irm_object_release(s);
  irm_object_release(other_shape);
  irm_object_release(other_dtype);
  irm_object_release(other_bytes);
  irm_object_release(b);
  irm_object_release(a);
}
END_TEST

START_TEST(test_equality_is_bitwise_for_floats) {
  int64_t one[] = {1};
  float nan = NAN, zero = 0.0f, minus_zero = -0.0f;
  irm_tensor *n1 = new_tensor("float32", one, 1, &nan), *n2 = new_tensor("float32", one, 1, &nan);
  irm_tensor *z = new_tensor("float32", one, 1, &zero), *mz = new_tensor("float32", one, 1, &minus_zero);
  ck_assert(tensors_equal(n1, n2));
  ck_assert_uint_eq(hash_of(n1), hash_of(n2));
  ck_assert(!tensors_equal(z, mz));
  irm_object_release(n1);
  irm_object_release(n2);
  irm_object_release(z);
  irm_object_release(mz);
}
END_TEST

START_TEST(test_a_wrapped_tensor_equals_its_copy) {
  int32_t data[] = {5, 6, 7};
  int64_t shape[] = {3};
  producer p;
  producer_init(&p, dtype_of("int32"), shape, 1, data);
  irm_tensor *wrapped = NULL;
  ck_assert_ok(irm_tensor_from_dlpack(&p.managed, &wrapped));
  irm_tensor *copy = new_tensor("int32", shape, 1, data);
  ck_assert(tensors_equal(wrapped, copy));
  ck_assert_uint_eq(hash_of(wrapped), hash_of(copy));
  irm_object_release(copy);
  irm_object_release(wrapped);
  ck_assert_int_eq(p.deleted, 1);
}
END_TEST

/* ---- repr ------------------------------------------------------------------------- */

START_TEST(test_repr_shows_dtype_shape_and_a_few_values) {
  int64_t two[] = {2};
  float fv[] = {1.0f, 2.5f};
  irm_tensor *t = new_tensor("float32", two, 1, fv);
  assert_repr(t, "Tensor(float32, [2], [1.0, 2.5])");
  irm_object_release(t);

  int64_t two_by_three[] = {2, 3};
  int32_t iv[] = {1, 2, 3, 4, 5, -6};
  t = new_tensor("int32", two_by_three, 2, iv);
  assert_repr(t, "Tensor(int32, [2, 3], [[1, 2, 3], [4, 5, -6]])");
  irm_object_release(t);

  int64_t ones[] = {1, 2, 1};
  t = new_tensor("uint8", ones, 3, "\xff\x07");
  assert_repr(t, "Tensor(uint8, [1, 2, 1], [[[255], [7]]])");
  irm_object_release(t);

  t = new_tensor("bool", two, 1, "\x01\x00");
  assert_repr(t, "Tensor(bool, [2], [true, false])");
  irm_object_release(t);

  t = new_tensor("int8", two, 1, "\x80\x7f");
  assert_repr(t, "Tensor(int8, [2], [-128, 127])");
  irm_object_release(t);
}
END_TEST

START_TEST(test_repr_prints_the_shortest_float_that_reads_back) {
  float x = 0.1f;
  irm_tensor *t = new_tensor("float32", NULL, 0, &x);
  assert_repr(t, "Tensor(float32, [], 0.1)");
  irm_object_release(t);

  int64_t four[] = {4};
  t = new_tensor("float16", four, 1, NULL);
  irm_tensor_set_f64(t, 0, 0.1);
  irm_tensor_set_f64(t, 1, 65504);
  irm_tensor_set_f64(t, 2, 1.0 / 3);
  irm_tensor_set_f64(t, 3, -1e9);
  assert_repr(t, "Tensor(float16, [4], [0.1, 65504.0, 0.3333, -inf])");
  irm_object_release(t);

  float specials[] = {NAN, INFINITY, 16777216.0f, 1e-45f};
  t = new_tensor("float32", four, 1, specials);
  assert_repr(t, "Tensor(float32, [4], [nan, inf, 16777216.0, 1e-45])");
  irm_object_release(t);
}
END_TEST

START_TEST(test_repr_leaves_out_values_of_large_and_empty_tensors) {
  int64_t nine[] = {3, 3}, eight[] = {8}, empty[] = {0, 3};
  irm_tensor *t = new_tensor("float32", nine, 2, NULL);
  assert_repr(t, "Tensor(float32, [3, 3])");
  irm_object_release(t);
  t = new_tensor("int8", eight, 1, NULL);
  assert_repr(t, "Tensor(int8, [8], [0, 0, 0, 0, 0, 0, 0, 0])");
  irm_object_release(t);
  t = new_tensor("uint8", empty, 2, NULL);
  assert_repr(t, "Tensor(uint8, [0, 3])");
  irm_object_release(t);
  /* Through the global too, inside a container. */
  t = new_tensor("int32", NULL, 0, NULL);
  irm_any item = irm_any_object(t);
  irm_object *arr = new_array(&item, 1);
  irm_any arg = irm_any_object(arr);
  irm_any s = call_ok("ffi.Repr", &arg, 1);
  ck_assert_str_eq(irm_string_data(s.v_obj), "[Tensor(int32, [], 0)]");
  irm_any_release(&s);
  irm_object_release(arr);
  irm_object_release(t);
}
END_TEST

static Suite *tensor_fields_suite(void) {
  Suite *s = suite_create("tensor_fields");
  TCase *tc = tcase_create("json");
  tcase_add_test(tc, test_fields_are_dtype_shape_and_base64_data);
  tcase_add_test(tc, test_base64_pads_the_last_group);
  tcase_add_test(tc, test_every_dtype_round_trips_through_json);
  tcase_add_test(tc, test_a_shared_tensor_stays_shared_after_a_round_trip);
  tcase_add_test(tc, test_malformed_fields_are_refused_naming_the_field);
  tcase_add_test(tc, test_from_json_reports_a_bad_field_through_the_global);
  suite_add_tcase(s, tc);
  tc = tcase_create("equality");
  tcase_add_test(tc, test_equal_tensors_have_the_same_dtype_shape_and_bytes);
  tcase_add_test(tc, test_equality_is_bitwise_for_floats);
  tcase_add_test(tc, test_a_wrapped_tensor_equals_its_copy);
  suite_add_tcase(s, tc);
  tc = tcase_create("repr");
  tcase_add_test(tc, test_repr_shows_dtype_shape_and_a_few_values);
  tcase_add_test(tc, test_repr_prints_the_shortest_float_that_reads_back);
  tcase_add_test(tc, test_repr_leaves_out_values_of_large_and_empty_tensors);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(tensor_fields_suite()); }
