/* Tensors (tensor.h): dtypes, shapes, element access with float16
 * rounding, DLPack exchange both ways. The ffi.Tensor* globals are in
 * check_tensor_globals.c; JSON, equality and repr in check_tensor_fields.c. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_tensor_util.h"

/* ---- dtypes ------------------------------------------------------------------ */

typedef struct dtype_case {
  const char *name;
  uint8_t code, bits;
  size_t size;
} dtype_case;

static const dtype_case all_dtypes[] = {
    {"float32", kDLFloat, 32, 4}, {"float16", kDLFloat, 16, 2},    {"int32", kDLInt, 32, 4},
    {"int8", kDLInt, 8, 1},       {"uint8", kDLUInt, 8, 1},        {"float64", kDLFloat, 64, 8},
    {"int64", kDLInt, 64, 8},     {"bool", IRM_DLPACK_BOOL, 8, 1},
};

START_TEST(test_float64_and_int64_elements_round_trip) {
  int64_t shape[] = {3};
  irm_tensor *d = NULL, *i = NULL;
  ck_assert_ok(irm_tensor_new(dtype_of("float64"), shape, 1, NULL, &d));
  ck_assert_ok(irm_tensor_new(dtype_of("int64"), shape, 1, NULL, &i));
  irm_tensor_set_f64(d, 0, 0.1); /* not representable in float32: stays exact */
  irm_tensor_set_f64(d, 1, 1e300);
  ck_assert(irm_tensor_get_f64(d, 0) == 0.1);
  ck_assert(irm_tensor_get_f64(d, 1) == 1e300);
  irm_tensor_set_f64(i, 0, -3.9); /* truncates toward zero */
  irm_tensor_set_f64(i, 1, 1e30); /* saturates */
  irm_tensor_set_f64(i, 2, (double)(INT64_C(1) << 40));
  const int64_t *iv = irm_tensor_data_const(i);
  ck_assert_int_eq(iv[0], -3);
  ck_assert_int_eq(iv[1], INT64_MAX);
  ck_assert_int_eq(iv[2], INT64_C(1) << 40);
  ck_assert_uint_eq(irm_tensor_nbytes(d), 24);
  irm_object_release(d);
  irm_object_release(i);
}
END_TEST

START_TEST(test_every_dtype_parses_and_has_its_name_and_size) {
  for (size_t i = 0; i < sizeof all_dtypes / sizeof all_dtypes[0]; i++) {
    const dtype_case *c = &all_dtypes[i];
    DLDataType d = dtype_of(c->name);
    ck_assert_uint_eq(d.code, c->code);
    ck_assert_uint_eq(d.bits, c->bits);
    ck_assert_uint_eq(d.lanes, 1);
    ck_assert_str_eq(irm_dtype_name(d), c->name);
    ck_assert_uint_eq(irm_dtype_size(d), c->size);
    ck_assert(irm_dtype_equal(d, raw_dtype(c->code, c->bits, 1)));
    ck_assert(!irm_dtype_equal(d, raw_dtype(c->code, c->bits, 2)));
  }
}
END_TEST

START_TEST(test_dtype_parse_suggests_the_closest_name) {
  DLDataType d = {0, 0, 0};
  ck_assert_error(irm_dtype_parse("flaot32", &d), IRM_EVALUE,
                  "ValueError: unknown dtype 'flaot32' (did you mean 'float32'?); the dtypes are float32, float16, "
                  "int32, int8, uint8, float64, int64, bool");
  ck_assert_uint_eq(d.bits, 0);
  ck_assert_error(irm_dtype_parse("Bool", &d), IRM_EVALUE, "ValueError: unknown dtype 'Bool' (did you mean 'bool'?)");
  ck_assert_error(irm_dtype_parse("complex128", &d), IRM_EVALUE,
                  "ValueError: unknown dtype 'complex128'; the dtypes are float32,");
  ck_assert_error(irm_dtype_parse("", &d), IRM_EVALUE, "ValueError: unknown dtype ''");
  ck_assert_error(irm_dtype_parse(NULL, &d), IRM_EVALUE, "ValueError: irm_dtype_parse: name must not be NULL");
  ck_assert_error(irm_dtype_parse("int8", NULL), IRM_EVALUE, "ValueError: irm_dtype_parse: out must not be NULL");
}
END_TEST

START_TEST(test_other_dtypes_have_no_name_and_no_size) {
  DLDataType others[] = {raw_dtype(kDLUInt, 16, 1), raw_dtype(kDLInt, 16, 1),    raw_dtype(kDLFloat, 32, 4),
                         raw_dtype(kDLUInt, 1, 1),  raw_dtype(kDLBfloat, 16, 1), raw_dtype(99, 8, 1)};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    ck_assert_ptr_null(irm_dtype_name(others[i]));
    ck_assert_uint_eq(irm_dtype_size(others[i]), 0);
  }
}
END_TEST

/* ---- making tensors ------------------------------------------------------------ */

START_TEST(test_new_tensor_is_a_zeroed_aligned_compact_cpu_tensor) {
  int64_t shape[] = {2, 3};
  irm_tensor *t = new_tensor("float32", shape, 2, NULL);
  ck_assert(irm_is_tensor(t));
  ck_assert(irm_object_is(t, "ffi.Tensor"));
  const DLTensor *dl = irm_tensor_dl(t);
  ck_assert_int_eq(dl->device.device_type, kDLCPU);
  ck_assert_int_eq(dl->device.device_id, 0);
  ck_assert_int_eq(dl->ndim, 2);
  ck_assert_int_eq(dl->shape[0], 2);
  ck_assert_int_eq(dl->shape[1], 3);
  ck_assert_ptr_null(dl->strides);
  ck_assert_uint_eq(dl->byte_offset, 0);
  ck_assert_ptr_eq(dl->data, irm_tensor_data(t));
  ck_assert_ptr_eq(irm_tensor_data_const(t), irm_tensor_data(t));
  ck_assert_uint_eq((uintptr_t)dl->data % IRM_TENSOR_ALIGNMENT, 0);
  ck_assert_int_eq(irm_tensor_numel(t), 6);
  ck_assert_uint_eq(irm_tensor_nbytes(t), 24);
  for (int64_t i = 0; i < 6; i++) ck_assert(irm_tensor_get_f64(t, i) == 0.0);
  irm_object_release(t);
}
END_TEST

/* Resident memory of this process, in bytes (0 when unknown). */
static size_t resident_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long pages = 0, resident = 0;
  if (!f) return 0;
  int got = fscanf(f, "%lu %lu", &pages, &resident);
  fclose(f);
  return got == 2 ? (size_t)resident * 4096 : 0;
}

/* Regression: irm_tensor_new allocated, then wrote zeros over, the whole
 * buffer; zeros now come from calloc, so a large zeroed tensor costs
 * address space, not resident memory, until it is written. (Skipped under
 * valgrind, whose calloc writes the block.) */
START_TEST(test_a_large_zeroed_tensor_is_not_written) {
  const char *preload = getenv("LD_PRELOAD");
  int64_t shape[] = {8192, 8192}; /* 256 MiB */
  size_t before = resident_bytes();
  irm_tensor *t = new_tensor("float32", shape, 2, NULL);
  size_t after = resident_bytes();
  ck_assert(irm_tensor_get_f64(t, 0) == 0.0 && irm_tensor_get_f64(t, 8192 * 8192 - 1) == 0.0);
  if (before && !(preload && strstr(preload, "vgpreload")))
    ck_assert_msg(after < before + ((size_t)64 << 20), "resident memory grew by %zu bytes", after - before);
  irm_object_release(t);
}
END_TEST

START_TEST(test_new_tensor_copies_its_data) {
  int32_t values[] = {1, -2, 3, 4};
  int64_t shape[] = {4};
  irm_tensor *t = new_tensor("int32", shape, 1, values);
  values[0] = 99;
  ck_assert_ptr_ne(irm_tensor_data(t), values);
  ck_assert(irm_tensor_get_f64(t, 0) == 1.0);
  ck_assert(irm_tensor_get_f64(t, 1) == -2.0);
  ck_assert_int_eq(memcmp((const char *)irm_tensor_data(t) + 4, values + 1, 12), 0);
  irm_object_release(t);
}
END_TEST

START_TEST(test_scalar_has_one_element_and_no_shape) {
  float x = 2.5f;
  irm_tensor *t = new_tensor("float32", NULL, 0, &x);
  ck_assert_int_eq(irm_tensor_dl(t)->ndim, 0);
  ck_assert_int_eq(irm_tensor_numel(t), 1);
  ck_assert_uint_eq(irm_tensor_nbytes(t), 4);
  ck_assert(irm_tensor_get_f64(t, 0) == 2.5);
  irm_object_release(t);
}
END_TEST

START_TEST(test_zero_size_dimensions_give_an_empty_tensor_with_a_buffer) {
  int64_t shape[] = {0, 3};
  irm_tensor *t = new_tensor("int8", shape, 2, NULL);
  ck_assert_int_eq(irm_tensor_numel(t), 0);
  ck_assert_uint_eq(irm_tensor_nbytes(t), 0);
  ck_assert_ptr_nonnull(irm_tensor_data(t));
  ck_assert(irm_tensor_get_f64(t, 0) == 0.0);
  irm_tensor_set_f64(t, 0, 5); /* out of range: no effect, no crash */
  irm_object_release(t);
}
END_TEST

START_TEST(test_bad_shapes_are_value_errors_naming_the_dimension) {
  irm_tensor *t = NULL;
  DLDataType f32 = dtype_of("float32");
  int64_t negative[] = {2, -1};
  ck_assert_error(irm_tensor_new(f32, negative, 2, NULL, &t), IRM_EVALUE,
                  "ValueError: tensor shape [2, -1]: dimension 1 is negative");
  ck_assert_ptr_null(t);
  int64_t shape[IRM_TENSOR_MAX_NDIM + 1];
  for (int i = 0; i <= IRM_TENSOR_MAX_NDIM; i++) shape[i] = 1;
  ck_assert_error(irm_tensor_new(f32, shape, IRM_TENSOR_MAX_NDIM + 1, NULL, &t), IRM_EVALUE,
                  "ValueError: tensor shape has 17 dimensions; a tensor has 0 to 16");
  ck_assert_error(irm_tensor_new(f32, shape, -1, NULL, &t), IRM_EVALUE, "ValueError: tensor shape has -1 dimensions");
  ck_assert_error(irm_tensor_new(f32, NULL, 2, NULL, &t), IRM_EVALUE, "ValueError: tensor shape is NULL but ndim is 2");
  ck_assert_error(irm_tensor_new(f32, shape, 1, NULL, NULL), IRM_EVALUE,
                  "ValueError: irm_tensor_new: out must not be NULL");
  ck_assert_ptr_null(t);
  /* Sixteen dimensions are fine. */
  ck_assert_ok(irm_tensor_new(f32, shape, IRM_TENSOR_MAX_NDIM, NULL, &t));
  ck_assert_int_eq(irm_tensor_numel(t), 1);
  irm_object_release(t);
}
END_TEST

START_TEST(test_huge_shapes_overflow_into_a_value_error) {
  irm_tensor *t = NULL;
  int64_t square[] = {INT64_C(1) << 40, INT64_C(1) << 40};
  ck_assert_error(irm_tensor_new(dtype_of("uint8"), square, 2, NULL, &t), IRM_EVALUE,
                  "ValueError: tensor shape [1099511627776, 1099511627776] is too large: its size overflows");
  int64_t wide[] = {INT64_MAX};
  ck_assert_error(irm_tensor_new(dtype_of("uint8"), wide, 1, NULL, &t), IRM_EVALUE, "ValueError: tensor shape");
  ck_assert_error_mentions("too large");
  /* 2^61 elements fit in int64 but their 2^63 bytes of float32 do not. */
  int64_t elems[] = {INT64_C(1) << 61};
  ck_assert_error(irm_tensor_new(dtype_of("float32"), elems, 1, NULL, &t), IRM_EVALUE, "ValueError: tensor shape");
  /* A zero dimension does not excuse the others. */
  int64_t empty[] = {0, INT64_C(1) << 62, INT64_C(1) << 62};
  ck_assert_error(irm_tensor_new(dtype_of("int8"), empty, 3, NULL, &t), IRM_EVALUE, "ValueError: tensor shape [0, ");
  ck_assert_ptr_null(t);
}
END_TEST

START_TEST(test_unsupported_dtype_is_a_value_error_with_the_closest_name) {
  irm_tensor *t = NULL;
  int64_t shape[] = {2};
  ck_assert_error(irm_tensor_new(raw_dtype(kDLUInt, 16, 1), shape, 1, NULL, &t), IRM_EVALUE,
                  "ValueError: irm_tensor_new: unsupported dtype 'uint16' (did you mean 'uint8'?)");
  ck_assert_error(irm_tensor_new(raw_dtype(kDLFloat, 32, 4), shape, 1, NULL, &t), IRM_EVALUE,
                  "ValueError: irm_tensor_new: unsupported dtype 'float32x4'");
  ck_assert_error(irm_tensor_new(raw_dtype(200, 8, 1), shape, 1, NULL, &t), IRM_EVALUE,
                  "ValueError: irm_tensor_new: unsupported dtype 'type code 200, 8 bits'");
  ck_assert_ptr_null(t);
}
END_TEST

START_TEST(test_readers_give_nothing_for_other_objects) {
  irm_object *s = new_string("x");
  ck_assert(!irm_is_tensor(s));
  ck_assert(!irm_is_tensor(NULL));
  ck_assert_ptr_null(irm_tensor_dl(s));
  ck_assert_ptr_null(irm_tensor_data(s));
  ck_assert_ptr_null(irm_tensor_data_const(NULL));
  ck_assert_int_eq(irm_tensor_numel(s), 0);
  ck_assert_uint_eq(irm_tensor_nbytes(NULL), 0);
  ck_assert(irm_tensor_get_f64(s, 0) == 0.0);
  irm_tensor_set_f64(s, 0, 1.0);
  ck_assert_str_eq(irm_string_data(s), "x");
  irm_object_release(s);
}
END_TEST

/* ---- elements ------------------------------------------------------------------- */

START_TEST(test_get_and_set_convert_for_every_dtype) {
  int64_t shape[] = {3};
  static const char *const names[] = {"float32", "float16", "int32", "int8", "uint8"};
  for (size_t k = 0; k < 5; k++) {
    irm_tensor *t = new_tensor(names[k], shape, 1, NULL);
    irm_tensor_set_f64(t, 0, 7);
    irm_tensor_set_f64(t, 2, 100);
    ck_assert_msg(irm_tensor_get_f64(t, 0) == 7.0, "%s", names[k]);
    ck_assert(irm_tensor_get_f64(t, 1) == 0.0);
    ck_assert(irm_tensor_get_f64(t, 2) == 100.0);
    ck_assert(irm_tensor_get_f64(t, 3) == 0.0); /* out of range */
    ck_assert(irm_tensor_get_f64(t, -1) == 0.0);
    irm_tensor_set_f64(t, 3, 1); /* no effect */
    irm_tensor_set_f64(t, -1, 1);
    irm_object_release(t);
  }
  irm_tensor *f = new_tensor("float32", shape, 1, NULL);
  irm_tensor_set_f64(f, 0, 0.1);
  ck_assert(irm_tensor_get_f64(f, 0) == (double)0.1f);
  irm_tensor_set_f64(f, 1, 1e300);
  ck_assert(isinf(irm_tensor_get_f64(f, 1)));
  irm_object_release(f);
}
END_TEST

START_TEST(test_integer_stores_truncate_toward_zero_and_saturate) {
  int64_t shape[] = {1};
  irm_tensor *i8 = new_tensor("int8", shape, 1, NULL);
  irm_tensor *u8 = new_tensor("uint8", shape, 1, NULL);
  irm_tensor *i32 = new_tensor("int32", shape, 1, NULL);
  static const struct {
    double x, i8, u8, i32;
  } cases[] = {
      {2.9, 2, 2, 2},
      {-2.9, -2, 0, -2},
      {127.5, 127, 127, 127},
      {1000, 127, 255, 1000},
      {-1000, -128, 0, -1000},
      {1e12, 127, 255, 2147483647.0},
      {-1e12, -128, 0, -2147483648.0},
      {NAN, 0, 0, 0},
      {INFINITY, 127, 255, 2147483647.0},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    irm_tensor_set_f64(i8, 0, cases[k].x);
    irm_tensor_set_f64(u8, 0, cases[k].x);
    irm_tensor_set_f64(i32, 0, cases[k].x);
    ck_assert_msg(irm_tensor_get_f64(i8, 0) == cases[k].i8, "int8 of %g: %g", cases[k].x, irm_tensor_get_f64(i8, 0));
    ck_assert_msg(irm_tensor_get_f64(u8, 0) == cases[k].u8, "uint8 of %g", cases[k].x);
    ck_assert_msg(irm_tensor_get_f64(i32, 0) == cases[k].i32, "int32 of %g", cases[k].x);
  }
  irm_object_release(i8);
  irm_object_release(u8);
  irm_object_release(i32);
}
END_TEST

START_TEST(test_bool_stores_one_for_any_nonzero_value) {
  int64_t shape[] = {4};
  irm_tensor *t = new_tensor("bool", shape, 1, NULL);
  irm_tensor_set_f64(t, 0, 0.5);
  irm_tensor_set_f64(t, 1, -3);
  irm_tensor_set_f64(t, 2, NAN);
  irm_tensor_set_f64(t, 3, 0.0);
  const unsigned char *b = irm_tensor_data(t);
  ck_assert_int_eq(b[0], 1);
  ck_assert_int_eq(b[1], 1);
  ck_assert_int_eq(b[2], 1);
  ck_assert_int_eq(b[3], 0);
  ck_assert(irm_tensor_get_f64(t, 1) == 1.0);
  irm_object_release(t);
}
END_TEST

/* Binary16 bit patterns and the values they hold exactly. */
static const struct {
  uint16_t bits;
  double value;
} f16_exact[] = {
    {0x0000, 0.0},
    {0x3c00, 1.0},
    {0xbc00, -1.0},
    {0x3800, 0.5},
    {0x4000, 2.0},
    {0x3555, 0.333251953125},
    {0x7bff, 65504.0},
    {0xfbff, -65504.0},
    {0x0400, 6.103515625e-05},
    {0x0001, 5.9604644775390625e-08},
    {0x03ff, 6.097555160522461e-05},
    {0x3c01, 1.0009765625},
    {0x5640, 100.0},
};

START_TEST(test_float16_values_convert_exactly_both_ways) {
  int64_t shape[] = {1};
  irm_tensor *t = new_tensor("float16", shape, 1, NULL);
  for (size_t k = 0; k < sizeof f16_exact / sizeof f16_exact[0]; k++) {
    ck_assert_msg(irm_f16_to_f32(f16_exact[k].bits) == (float)f16_exact[k].value, "0x%04x", f16_exact[k].bits);
    ck_assert_msg(irm_f32_to_f16((float)f16_exact[k].value) == f16_exact[k].bits, "%g", f16_exact[k].value);
    irm_tensor_set_f64(t, 0, f16_exact[k].value);
    uint16_t stored;
    memcpy(&stored, irm_tensor_data(t), 2);
    ck_assert_uint_eq(stored, f16_exact[k].bits);
    ck_assert(irm_tensor_get_f64(t, 0) == f16_exact[k].value);
  }
  ck_assert_uint_eq(irm_f32_to_f16(-0.0f), 0x8000);
  ck_assert(signbit(irm_f16_to_f32(0x8000)));
  ck_assert(isinf(irm_f16_to_f32(0x7c00)) && irm_f16_to_f32(0x7c00) > 0);
  ck_assert(isinf(irm_f16_to_f32(0xfc00)) && irm_f16_to_f32(0xfc00) < 0);
  ck_assert(isnan(irm_f16_to_f32(0x7e00)));
  ck_assert(isnan(irm_f16_to_f32(0x7c01)));
  ck_assert_uint_eq(irm_f32_to_f16(INFINITY), 0x7c00);
  ck_assert_uint_eq(irm_f32_to_f16(-INFINITY), 0xfc00);
  uint16_t nan = irm_f32_to_f16(NAN);
  ck_assert_uint_eq(nan & 0x7c00, 0x7c00);
  ck_assert_uint_ne(nan & 0x03ff, 0);
  irm_object_release(t);
}
END_TEST

START_TEST(test_float16_rounds_to_nearest_even_once) {
  static const struct {
    double x;
    uint16_t bits;
  } cases[] = {
      {1.0 + 0x1p-11, 0x3c00},           /* halfway: to even (down) */
      {1.0 + 3 * 0x1p-11, 0x3c02},       /* halfway: to even (up) */
      {1.0 + 0x1p-11 + 0x1p-40, 0x3c01}, /* just above halfway; via float it would round twice to 0x3c00 */
      {1.0 + 0x1p-12, 0x3c00},           /* below halfway */
      {65519.0, 0x7bff},                 /* below the halfway point to 65536 */
      {65520.0, 0x7c00},                 /* halfway to 65536: even, which is inf */
      {1e6, 0x7c00},                     /* overflow */
      {-1e6, 0xfc00},
      {0x1p-25, 0x0000},           /* half the smallest subnormal: to even, zero */
      {0x1p-25 + 0x1p-40, 0x0001}, /* just above it */
      {3 * 0x1p-25, 0x0002},       /* 1.5 units: to even (up) */
      {0x1p-26, 0x0000},
      {-0x1p-30, 0x8000},          /* underflow keeps the sign */
      {0x1p-14 - 0x1p-25, 0x0400}, /* rounds up out of the subnormals */
      {0.1, 0x2e66},
      {1e-300, 0x0000},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int64_t shape[] = {1};
    irm_tensor *t = new_tensor("float16", shape, 1, NULL);
    irm_tensor_set_f64(t, 0, cases[k].x);
    uint16_t stored;
    memcpy(&stored, irm_tensor_data(t), 2);
    ck_assert_msg(stored == cases[k].bits, "%a gave 0x%04x, expected 0x%04x", cases[k].x, stored, cases[k].bits);
    irm_object_release(t);
  }
}
END_TEST

/* ---- DLPack ---------------------------------------------------------------------- */

START_TEST(test_from_dlpack_wraps_without_copying_and_deletes_once) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[] = {2, 3};
  producer p;
  producer_init(&p, dtype_of("float32"), shape, 2, data);
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_from_dlpack(&p.managed, &t));
  ck_assert_ptr_eq(irm_tensor_data(t), data);
  ck_assert_int_eq(irm_tensor_numel(t), 6);
  ck_assert_int_eq(irm_tensor_dl(t)->shape[1], 3);
  ck_assert(irm_tensor_get_f64(t, 5) == 6.0);
  p.shape[1] = 99; /* the tensor keeps its own shape */
  ck_assert_int_eq(irm_tensor_dl(t)->shape[1], 3);
  ck_assert_int_eq(p.deleted, 0);
  irm_object_retain(t);
  irm_object_release(t);
  ck_assert_int_eq(p.deleted, 0);
  irm_object_release(t);
  ck_assert_int_eq(p.deleted, 1);
}
END_TEST

START_TEST(test_from_dlpack_applies_the_byte_offset) {
  int32_t data[4] = {10, 20, 30, 40};
  int64_t shape[] = {2};
  producer p;
  producer_init(&p, dtype_of("int32"), shape, 1, data);
  p.managed.dl_tensor.byte_offset = 2 * sizeof(int32_t);
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_from_dlpack(&p.managed, &t));
  ck_assert_ptr_eq(irm_tensor_data(t), data + 2);
  ck_assert_uint_eq(irm_tensor_dl(t)->byte_offset, 0);
  ck_assert(irm_tensor_get_f64(t, 0) == 30.0);
  irm_object_release(t);
  ck_assert_int_eq(p.deleted, 1);
}
END_TEST

START_TEST(test_from_dlpack_accepts_compact_strides_and_any_stride_of_size_one) {
  uint8_t data[6] = {0};
  int64_t shape[] = {2, 1, 3};
  producer p;
  producer_init(&p, dtype_of("uint8"), shape, 3, data);
  int64_t strides[] = {3, 777, 1};
  memcpy(p.strides, strides, sizeof strides);
  p.managed.dl_tensor.strides = p.strides;
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_from_dlpack(&p.managed, &t));
  ck_assert_ptr_null(irm_tensor_dl(t)->strides);
  irm_object_release(t);
  /* No elements: nothing is laid out, any strides do; NULL data too. */
  int64_t empty[] = {0, 4};
  producer q;
  producer_init(&q, dtype_of("int8"), empty, 2, NULL);
  int64_t odd[] = {1, 5};
  memcpy(q.strides, odd, sizeof odd);
  q.managed.dl_tensor.strides = q.strides;
  ck_assert_ok(irm_tensor_from_dlpack(&q.managed, &t));
  ck_assert_int_eq(irm_tensor_numel(t), 0);
  irm_object_release(t);
  ck_assert_int_eq(q.deleted, 1);
}
END_TEST

START_TEST(test_from_dlpack_reads_old_uint1_bool_as_bool) {
  uint8_t data[2] = {1, 0};
  int64_t shape[] = {2};
  producer p;
  producer_init(&p, raw_dtype(kDLUInt, 1, 1), shape, 1, data);
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_from_dlpack(&p.managed, &t));
  ck_assert_str_eq(irm_dtype_name(irm_tensor_dl(t)->dtype), "bool");
  ck_assert_uint_eq(irm_tensor_nbytes(t), 2);
  ck_assert(irm_tensor_get_f64(t, 0) == 1.0);
  irm_object_release(t);
}
END_TEST

/* Each refused producer must stay the caller's: no deleter call. */
static void assert_refused(producer *p, const char *prefix) {
  irm_tensor *t = (irm_tensor *)p; /* any non-NULL value: must be cleared */
  ck_assert_error(irm_tensor_from_dlpack(&p->managed, &t), IRM_EVALUE, prefix);
  ck_assert_ptr_null(t);
  ck_assert_int_eq(p->deleted, 0);
}

START_TEST(test_from_dlpack_refusals_leave_ownership_with_the_caller) {
  float data[4] = {0};
  int64_t shape[] = {2, 2};
  producer p;
  producer_init(&p, dtype_of("float32"), shape, 2, data);
  p.managed.dl_tensor.device.device_type = kDLCUDA;
  p.managed.dl_tensor.device.device_id = 1;
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: the tensor is on device type 2, id 1; irm takes CPU");

  producer_init(&p, dtype_of("float32"), shape, 2, data);
  int64_t transposed[] = {1, 2};
  memcpy(p.strides, transposed, sizeof transposed);
  p.managed.dl_tensor.strides = p.strides;
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: the tensor is strided");

  producer_init(&p, raw_dtype(kDLBfloat, 16, 1), shape, 2, data);
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: unsupported dtype 'bfloat16' (did you mean 'float16'?)");

  int64_t many[IRM_TENSOR_MAX_NDIM + 1];
  for (int i = 0; i <= IRM_TENSOR_MAX_NDIM; i++) many[i] = 1;
  producer_init(&p, dtype_of("float32"), many, IRM_TENSOR_MAX_NDIM + 1, data);
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: DLPack tensor shape has 17 dimensions");

  int64_t negative[] = {2, -2};
  producer_init(&p, dtype_of("float32"), negative, 2, data);
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: DLPack tensor shape [2, -2]: dimension 1 is negative");

  producer_init(&p, dtype_of("float32"), shape, 2, NULL);
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: the tensor has 4 elements but NULL data");

  producer_init(&p, dtype_of("float32"), shape, 2, data);
  p.managed.dl_tensor.shape = NULL;
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: DLPack tensor shape is NULL");

  /* Regression: byte_offset was folded in unchecked */
  producer_init(&p, dtype_of("float32"), shape, 2, data);
  p.managed.dl_tensor.byte_offset = 2; /* half a float32 */
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: the data pointer ");
  ck_assert_error_mentions("plus byte_offset 2 is not aligned for float32 (a multiple of 4 bytes)");
  producer_init(&p, dtype_of("float32"), shape, 2, data);
  p.managed.dl_tensor.byte_offset = UINT64_MAX - 3; /* a multiple of 4 that wraps the pointer */
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: byte_offset 18446744073709551612 with 16 bytes");
  ck_assert_error_mentions("overflows the data pointer");
  producer_init(&p, dtype_of("float32"), shape, 2, data);
  p.managed.dl_tensor.byte_offset = (uint64_t)PTRDIFF_MAX + 1;
  assert_refused(&p, "ValueError: irm_tensor_from_dlpack: byte_offset ");
  producer_init(&p, dtype_of("float32"), shape, 2, data);
  p.managed.dl_tensor.byte_offset = 4; /* aligned, and in the producer's buffer: fine */
  irm_tensor *t = NULL;
  int64_t one[] = {3};
  p.managed.dl_tensor.shape = one;
  p.managed.dl_tensor.ndim = 1;
  ck_assert_ok(irm_tensor_from_dlpack(&p.managed, &t));
  ck_assert_ptr_eq(irm_tensor_data(t), (char *)data + 4);
  irm_object_release(t);
  ck_assert_int_eq(p.deleted, 1);

  t = NULL;
  ck_assert_error(irm_tensor_from_dlpack(NULL, &t), IRM_EVALUE,
                  "ValueError: irm_tensor_from_dlpack: managed must not be NULL");
  producer_init(&p, dtype_of("float32"), shape, 2, data);
  ck_assert_error(irm_tensor_from_dlpack(&p.managed, NULL), IRM_EVALUE,
                  "ValueError: irm_tensor_from_dlpack: out must not be NULL");
  ck_assert_int_eq(p.deleted, 0);
}
END_TEST

START_TEST(test_to_dlpack_shares_the_data_and_keeps_the_tensor_alive) {
  int64_t shape[] = {3};
  int8_t values[] = {1, 2, 3};
  irm_tensor *t = new_tensor("int8", shape, 1, values);
  void *data = irm_tensor_data(t);
  DLManagedTensor *m = NULL;
  ck_assert_ok(irm_tensor_to_dlpack(t, &m));
  ck_assert_uint_eq(irm_object_refcount(t), 2);
  irm_object_release(t); /* the export's reference keeps it */
  ck_assert_ptr_eq(m->dl_tensor.data, data);
  ck_assert_int_eq(m->dl_tensor.device.device_type, kDLCPU);
  ck_assert_int_eq(m->dl_tensor.ndim, 1);
  ck_assert_int_eq(m->dl_tensor.shape[0], 3);
  ck_assert_ptr_null(m->dl_tensor.strides);
  ck_assert_uint_eq(m->dl_tensor.byte_offset, 0);
  ck_assert(irm_dtype_equal(m->dl_tensor.dtype, dtype_of("int8")));
  ck_assert_int_eq(((int8_t *)m->dl_tensor.data)[2], 3);
  m->deleter(m); /* frees the tensor too (the leak check would tell) */
}
END_TEST

START_TEST(test_dlpack_round_trip_gives_the_same_data_pointer) {
  int64_t shape[] = {2, 2};
  irm_tensor *t = new_tensor("float16", shape, 2, NULL);
  irm_tensor_set_f64(t, 3, 1.5);
  DLManagedTensor *m = NULL;
  ck_assert_ok(irm_tensor_to_dlpack(t, &m));
  irm_tensor *back = NULL;
  ck_assert_ok(irm_tensor_from_dlpack(m, &back));
  ck_assert_ptr_eq(irm_tensor_data(back), irm_tensor_data(t));
  ck_assert_str_eq(irm_dtype_name(irm_tensor_dl(back)->dtype), "float16");
  ck_assert(irm_tensor_get_f64(back, 3) == 1.5);
  irm_any a = irm_any_object(t), b = irm_any_object(back);
  ck_assert(equal(&a, &b));
  irm_object_release(t);
  ck_assert(irm_tensor_get_f64(back, 3) == 1.5); /* back keeps t alive through the export */
  irm_object_release(back);
}
END_TEST

START_TEST(test_to_dlpack_refuses_other_objects) {
  irm_object *s = new_string("x");
  DLManagedTensor *m = NULL;
  ck_assert_error(irm_tensor_to_dlpack(s, &m), IRM_ETYPE,
                  "TypeError: irm_tensor_to_dlpack: expected ffi.Tensor, got ffi.String");
  ck_assert_ptr_null(m);
  ck_assert_error(irm_tensor_to_dlpack(NULL, &m), IRM_ETYPE,
                  "TypeError: irm_tensor_to_dlpack: expected ffi.Tensor, got NULL");
  ck_assert_error(irm_tensor_to_dlpack(s, NULL), IRM_EVALUE, "ValueError: irm_tensor_to_dlpack: out must not be NULL");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

static Suite *tensor_suite(void) {
  Suite *s = suite_create("tensor");
  TCase *tc = tcase_create("dtypes");
  tcase_add_test(tc, test_every_dtype_parses_and_has_its_name_and_size);
  tcase_add_test(tc, test_dtype_parse_suggests_the_closest_name);
  tcase_add_test(tc, test_float64_and_int64_elements_round_trip);
  tcase_add_test(tc, test_other_dtypes_have_no_name_and_no_size);
  suite_add_tcase(s, tc);
  tc = tcase_create("making");
  tcase_add_test(tc, test_new_tensor_is_a_zeroed_aligned_compact_cpu_tensor);
  tcase_add_test(tc, test_a_large_zeroed_tensor_is_not_written);
  tcase_add_test(tc, test_new_tensor_copies_its_data);
  tcase_add_test(tc, test_scalar_has_one_element_and_no_shape);
  tcase_add_test(tc, test_zero_size_dimensions_give_an_empty_tensor_with_a_buffer);
  tcase_add_test(tc, test_bad_shapes_are_value_errors_naming_the_dimension);
  tcase_add_test(tc, test_huge_shapes_overflow_into_a_value_error);
  tcase_add_test(tc, test_unsupported_dtype_is_a_value_error_with_the_closest_name);
  tcase_add_test(tc, test_readers_give_nothing_for_other_objects);
  suite_add_tcase(s, tc);
  tc = tcase_create("elements");
  tcase_add_test(tc, test_get_and_set_convert_for_every_dtype);
  tcase_add_test(tc, test_integer_stores_truncate_toward_zero_and_saturate);
  tcase_add_test(tc, test_bool_stores_one_for_any_nonzero_value);
  tcase_add_test(tc, test_float16_values_convert_exactly_both_ways);
  tcase_add_test(tc, test_float16_rounds_to_nearest_even_once);
  suite_add_tcase(s, tc);
  tc = tcase_create("dlpack");
  tcase_add_test(tc, test_from_dlpack_wraps_without_copying_and_deletes_once);
  tcase_add_test(tc, test_from_dlpack_applies_the_byte_offset);
  tcase_add_test(tc, test_from_dlpack_accepts_compact_strides_and_any_stride_of_size_one);
  tcase_add_test(tc, test_from_dlpack_reads_old_uint1_bool_as_bool);
  tcase_add_test(tc, test_from_dlpack_refusals_leave_ownership_with_the_caller);
  tcase_add_test(tc, test_to_dlpack_shares_the_data_and_keeps_the_tensor_alive);
  tcase_add_test(tc, test_dlpack_round_trip_gives_the_same_data_pointer);
  tcase_add_test(tc, test_to_dlpack_refuses_other_objects);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(tensor_suite()); }
