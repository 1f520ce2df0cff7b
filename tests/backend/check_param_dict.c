/* TVM's param dict in libirm (irm/param_dict.h): every dtype irm has round
 * trips (values, shapes, 0-d, empty tensors, order), the bytes match the
 * layout byte for byte, runtime.SaveParams / LoadParams, and bad input:
 * truncated at every length, a wrong magic, a dtype irm has not, a name
 * given twice, a value that is no Tensor. */
#include "check_util.h"
#include "irm/param_dict.h"

static const char *const DTYPES[] = {"float32", "float16", "int32", "int8", "uint8", "float64", "int64", "bool"};

static irm_tensor *ramp(const char *dtype, const int64_t *shape, int32_t ndim) {
  DLDataType dt;
  irm_tensor *t = NULL;
  ck_assert_ok(irm_dtype_parse(dtype, &dt));
  ck_assert_ok(irm_tensor_new(dt, shape, ndim, NULL, &t));
  for (int64_t i = 0; i < irm_tensor_numel(t); i++)
    irm_tensor_set_f64(t, i, dt.bits == 8 && dt.code == 1 ? i % 2 : i % 7 - 3);
  return t;
}

/* {"w": 2x3 ramp, "s": a 0-d one, "e": 0x4} of dtype, NEW. */
static irm_object *three(const char *dtype) {
  static const int64_t s23[] = {2, 3}, s04[] = {0, 4};
  irm_any w = irm_any_object(ramp(dtype, s23, 2)), s = irm_any_object(ramp(dtype, NULL, 0)),
          e = irm_any_object(ramp(dtype, s04, 2));
  const char *keys[] = {"w", "s", "e"};
  irm_any vals[] = {w, s, e};
  irm_object *m = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, vals, 3, &m));
  irm_any_release(&w);
  irm_any_release(&s);
  irm_any_release(&e);
  return m;
}

START_TEST(test_every_dtype_round_trips) {
  const char *dtype = DTYPES[_i];
  irm_object *m = three(dtype), *blob = NULL, *back = NULL;
  ck_assert_ok(irm_param_dict_save(m, &blob));
  ck_assert(irm_param_dict_is(irm_string_data(blob), irm_string_size(blob)));
  ck_assert_ok(irm_param_dict_load(irm_string_data(blob), irm_string_size(blob), &back));
  ck_assert_uint_eq(irm_map_size(back), 3);
  const char *order[] = {"w", "s", "e"};
  irm_map_iter it = irm_map_iter_begin(back);
  const irm_object *k;
  const irm_any *v;
  for (int i = 0; irm_map_iter_next(&it, &k, &v); i++) {
    ck_assert_str_eq(irm_string_data(k), order[i]);
    const irm_tensor *want = irm_map_find_cstr(m, order[i])->v_obj, *got = v->v_obj;
    ck_assert_str_eq(irm_dtype_name(irm_tensor_dl(got)->dtype), dtype);
    ck_assert_int_eq(irm_tensor_dl(got)->ndim, irm_tensor_dl(want)->ndim);
    for (int32_t d = 0; d < irm_tensor_dl(want)->ndim; d++)
      ck_assert_int_eq(irm_tensor_dl(got)->shape[d], irm_tensor_dl(want)->shape[d]);
    ck_assert_uint_eq(irm_tensor_nbytes(got), irm_tensor_nbytes(want));
    ck_assert(!memcmp(irm_tensor_data_const(got), irm_tensor_data_const(want), irm_tensor_nbytes(want)));
  }
  irm_object_release(back);
  irm_object_release(blob);
  irm_object_release(m);
}
END_TEST

/* The layout written out by hand for {"ab": float32[2] = {1, 2}}. */
START_TEST(test_the_bytes_are_tvms_layout) {
  static const int64_t shape[] = {2};
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new((DLDataType){kDLFloat, 32, 1}, shape, 1, (const float[]){1, 2}, &t));
  irm_any tv = irm_any_object(t);
  const char *keys[] = {"ab"};
  irm_object *m = NULL, *blob = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, &tv, 1, &m));
  ck_assert_ok(irm_param_dict_save(m, &blob));
  unsigned char want[200];
  size_t n = 0;
#define PUT(x)                        \
  do {                                \
    __typeof__(x) v_ = (x);           \
    memcpy(want + n, &v_, sizeof v_); \
    n += sizeof v_;                   \
  } while (0)
  PUT((uint64_t)0xF7E58D4F05049CB7ULL);
  PUT((uint64_t)0);
  PUT((uint64_t)1);
  PUT((uint64_t)2);
  memcpy(want + n, "ab", 2), n += 2;
  PUT((uint64_t)1);
  PUT((uint64_t)0xDD5E40F096B4A13FULL);
  PUT((uint64_t)0);
  PUT((int32_t)kDLCPU);
  PUT((int32_t)0);
  PUT((int32_t)1);
  PUT((uint8_t)kDLFloat);
  PUT((uint8_t)32);
  PUT((uint16_t)1);
  PUT((int64_t)2);
  PUT((int64_t)8);
  PUT(1.0f);
  PUT(2.0f);
#undef PUT
  ck_assert_uint_eq(irm_string_size(blob), n);
  ck_assert(!memcmp(irm_string_data(blob), want, n));
  irm_object_release(blob);
  irm_object_release(m);
  irm_any_release(&tv);
}
END_TEST

/* TVM's bool: uint1, one byte per element. */
START_TEST(test_tvms_uint1_bool_loads_as_bool) {
  static const int64_t shape[] = {3};
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new((DLDataType){kDLUInt, 8, 1}, shape, 1, (const uint8_t[]){1, 0, 1}, &t));
  irm_any tv = irm_any_object(t);
  const char *keys[] = {"b"};
  irm_object *m = NULL, *blob = NULL, *back = NULL;
  ck_assert_ok(irm_map_from_pairs(keys, &tv, 1, &m));
  ck_assert_ok(irm_param_dict_save(m, &blob));
  char *copy = malloc(irm_string_size(blob));
  memcpy(copy, irm_string_data(blob), irm_string_size(blob));
  size_t bits_at = 24 + 9 + 8 + 28 + 1; /* the array's dtype bits byte */
  ck_assert_uint_eq((unsigned char)copy[bits_at], 8);
  copy[bits_at] = 1;
  ck_assert_ok(irm_param_dict_load(copy, irm_string_size(blob), &back));
  const irm_tensor *b = irm_map_find_cstr(back, "b")->v_obj;
  ck_assert_str_eq(irm_dtype_name(irm_tensor_dl(b)->dtype), "bool");
  ck_assert(!memcmp(irm_tensor_data_const(b), (const uint8_t[]){1, 0, 1}, 3));
  free(copy);
  irm_object_release(back);
  irm_object_release(blob);
  irm_object_release(m);
  irm_any_release(&tv);
}
END_TEST

START_TEST(test_the_globals) {
  irm_object *m = three("float32");
  irm_any arg = irm_any_object(m);
  irm_any blob = call_ok("runtime.SaveParams", &arg, 1);
  irm_any back = call_ok("runtime.LoadParams", &blob, 1);
  ck_assert(irm_object_is(back.v_obj, "ffi.Map"));
  ck_assert_uint_eq(irm_map_size(back.v_obj), 3);
  ck_assert(call_fails("runtime.LoadParams", &arg, 1)); /* a Map is no String */
  irm_any none = irm_any_none();
  ck_assert(call_fails("runtime.SaveParams", &none, 1));
  irm_any_release(&back);
  irm_any_release(&blob);
  irm_object_release(m);
}
END_TEST

START_TEST(test_bad_bytes_are_clear_errors) {
  irm_object *m = three("int64"), *blob = NULL, *out = NULL;
  ck_assert_ok(irm_param_dict_save(m, &blob));
  size_t size = irm_string_size(blob);
  char *copy = malloc(size);
  memcpy(copy, irm_string_data(blob), size);
  /* every truncation */
  for (size_t len = 0; len < size; len++) {
    ck_require(irm_param_dict_load(copy, len, &out) == IRM_EVALUE, "truncated at %zu: loaded", len);
    ck_require(out == NULL, "truncated at %zu: an output", len);
    ck_require(strstr(irm_last_error(), len < 8 ? "truncated" : "LoadParams: not a valid param dict"),
               "truncated at %zu: %s", len, irm_last_error());
  }
  ck_assert_error(irm_param_dict_load(NULL, 0, &out), IRM_EVALUE, "ValueError: LoadParams: not a valid param dict");
  /* a wrong magic */
  copy[0] ^= 1;
  ck_assert_error(irm_param_dict_load(copy, size, &out), IRM_EVALUE, "ValueError: LoadParams: not a valid param dict");
  ck_assert_error_mentions("bad magic number");
  ck_assert(!irm_param_dict_is(copy, size));
  copy[0] ^= 1;
  /* a dtype irm has not: the first array's code byte (after 24 + 3 * 9 name bytes, 8+8+8+4 array head) */
  size_t code_at = 24 + 3 * 9 + 8 + 28;
  ck_assert_uint_eq((unsigned char)copy[code_at], kDLInt);
  copy[code_at] = 9;
  ck_assert_error(irm_param_dict_load(copy, size, &out), IRM_EVALUE,
                  "ValueError: LoadParams: 'w' has a dtype irm does not have");
  copy[code_at] = kDLInt;
  /* a name given twice: "s" renamed "w" */
  ck_assert_int_eq(copy[24 + 9 + 8], 's');
  copy[24 + 9 + 8] = 'w';
  ck_assert_error(irm_param_dict_load(copy, size, &out), IRM_EVALUE,
                  "ValueError: LoadParams: the name 'w' is given twice");
  free(copy);
  irm_object_release(blob);
  /* a value that is no Tensor; no Map */
  irm_any one = irm_any_int(1);
  irm_object *bad = NULL;
  const char *keys[] = {"x"};
  ck_assert_ok(irm_map_from_pairs(keys, &one, 1, &bad));
  ck_assert_error(irm_param_dict_save(bad, &out), IRM_ETYPE, "TypeError: SaveParams: 'x' is int, not a Tensor");
  ck_assert_error(irm_param_dict_save(NULL, &out), IRM_ETYPE, "TypeError: SaveParams: expected a Map");
  irm_object_release(bad);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("param_dict");
  TCase *tc = tcase_create("param_dict");
  tcase_add_loop_test(tc, test_every_dtype_round_trips, 0, (int)(sizeof DTYPES / sizeof *DTYPES));
  tcase_add_test(tc, test_the_bytes_are_tvms_layout);
  tcase_add_test(tc, test_tvms_uint1_bool_loads_as_bool);
  tcase_add_test(tc, test_the_globals);
  tcase_add_test(tc, test_bad_bytes_are_clear_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
