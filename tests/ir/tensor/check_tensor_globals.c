/* The tensor globals (tensor.h): ffi.Tensor from shape, dtype and data,
 * its readers, their errors naming the argument, and the DLPack globals
 * exchanging without copies. The C API is in check_tensor.c. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_tensor_util.h"

/* ---- globals ---------------------------------------------------------------------- */

static irm_object *shape_array(const int64_t *dims, size_t n) {
  irm_any items[IRM_TENSOR_MAX_NDIM + 1];
  for (size_t i = 0; i < n; i++) items[i] = irm_any_int(dims[i]);
  return new_array(items, n);
}

START_TEST(test_tensor_global_copies_the_data_and_the_readers_see_it) {
  int64_t dims[] = {2, 2};
  irm_object *shape = shape_array(dims, 2);
  float values[] = {1, 2, 3, 4};
  irm_any args[3] = {irm_any_str("float32"), irm_any_object(shape), irm_any_ptr(values)};
  irm_tensor *t = call_obj("ffi.Tensor", args, 3, "ffi.Tensor");
  ck_assert_ptr_ne(irm_tensor_data(t), values);
  ck_assert(irm_tensor_get_f64(t, 3) == 4.0);

  irm_any arg = irm_any_object(t);
  irm_object *got = call_obj("ffi.TensorShape", &arg, 1, "ffi.Array");
  ck_assert_uint_eq(irm_array_size(got), 2);
  ck_assert_int_eq(irm_array_at(got, 0)->type_code, IRM_INT);
  ck_assert_int_eq(irm_array_at(got, 1)->v_int, 2);
  irm_object_release(got);
  got = call_obj("ffi.TensorDtype", &arg, 1, "ffi.String");
  ck_assert_str_eq(irm_string_data(got), "float32");
  irm_object_release(got);
  irm_any data = call_ok("ffi.TensorData", &arg, 1);
  ck_assert_int_eq(data.type_code, IRM_PTR);
  ck_assert_ptr_eq(data.v_ptr, irm_tensor_data(t));
  irm_any nbytes = call_ok("ffi.TensorNbytes", &arg, 1);
  ck_assert_int_eq(nbytes.type_code, IRM_INT);
  ck_assert_int_eq(nbytes.v_int, 16);
  irm_object_release(t);

  /* An int address is a pointer too (what Python holds). */
  args[2] = irm_any_int((int64_t)(intptr_t)values);
  t = call_obj("ffi.Tensor", args, 3, "ffi.Tensor");
  ck_assert(irm_tensor_get_f64(t, 2) == 3.0);
  irm_object_release(t);
  irm_object_release(shape);
}
END_TEST

START_TEST(test_tensor_global_without_data_gives_zeros) {
  int64_t dims[] = {3};
  irm_object *shape = shape_array(dims, 1);
  irm_any nodata[4][3] = {
      {irm_any_str("int32"), irm_any_object(shape), irm_any_none()},
      {irm_any_str("int32"), irm_any_object(shape), irm_any_none()},
      {irm_any_str("int32"), irm_any_object(shape), irm_any_int(0)},
      {irm_any_str("int32"), irm_any_object(shape), irm_any_ptr(NULL)},
  };
  for (int k = 0; k < 4; k++) {
    irm_tensor *t = call_obj("ffi.Tensor", nodata[k], k == 0 ? 2 : 3, "ffi.Tensor"); /* data left off, then 0 */
    ck_assert_int_eq(irm_tensor_numel(t), 3);
    for (int64_t i = 0; i < 3; i++) ck_assert(irm_tensor_get_f64(t, i) == 0.0);
    irm_object_release(t);
  }
  irm_object *scalar_shape = new_array(NULL, 0);
  irm_any scalar[2] = {irm_any_str("bool"), irm_any_object(scalar_shape)};
  irm_tensor *t = call_obj("ffi.Tensor", scalar, 2, "ffi.Tensor");
  ck_assert_int_eq(irm_tensor_dl(t)->ndim, 0);
  ck_assert_int_eq(irm_tensor_numel(t), 1);
  irm_object_release(t);
  irm_object_release(scalar_shape);
  irm_object_release(shape);
}
END_TEST

START_TEST(test_tensor_global_errors_name_the_argument) {
  int64_t dims[] = {2, -3};
  irm_object *bad_shape = shape_array(dims, 2);
  irm_object *good_shape = shape_array(dims, 1);
  irm_any args[3] = {irm_any_str("flot32"), irm_any_object(good_shape), irm_any_none()};
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: ffi.Tensor: argument 1: unknown dtype 'flot32' (did you mean 'float32'?)");
  irm_object *with_nul = NULL;
  ck_assert_ok(irm_string_new("int8\0x", 6, &with_nul));
  args[0] = irm_any_object(with_nul);
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 2), IRM_EVALUE);
  ck_assert_last_error(
      "ValueError: ffi.Tensor: argument 1: unknown dtype 'int8': the name holds a NUL byte at offset 4");
  irm_object_release(with_nul);
  args[0] = irm_any_int(1);
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ffi.Tensor: argument 1: expected str, got int");
  args[0] = irm_any_str("float32");
  args[1] = irm_any_object(bad_shape);
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: ffi.Tensor: tensor shape [2, -3]: dimension 1 is negative");
  irm_any items[2] = {irm_any_int(2), irm_any_str("3")};
  irm_object *mixed = new_array(items, 2);
  args[1] = irm_any_object(mixed);
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ffi.Tensor: argument 2: shape item 1: expected int, got str '3'");
  args[1] = irm_any_int(3);
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ffi.Tensor: argument 2: expected ffi.Array, got int");
  int64_t ones[IRM_TENSOR_MAX_NDIM + 1] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  irm_object *deep = shape_array(ones, IRM_TENSOR_MAX_NDIM + 1);
  args[1] = irm_any_object(deep);
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: ffi.Tensor: argument 2: shape has 17 dimensions; a tensor has 0 to 16");
  args[1] = irm_any_object(good_shape);
  args[2] = irm_any_str("bytes");
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 3), IRM_ETYPE);
  ck_assert_last_error("TypeError: ffi.Tensor: argument 3: expected ptr, got str");
  ck_assert_int_eq(call_fails("ffi.Tensor", args, 1), IRM_ETYPE);
  ck_assert_error_mentions("ffi.Tensor");

  static const char *const readers[] = {"ffi.TensorShape", "ffi.TensorDtype", "ffi.TensorData", "ffi.TensorNbytes",
                                        "ffi.TensorToDLPack"};
  irm_any not_tensor = irm_any_object(good_shape);
  for (size_t k = 0; k < sizeof readers / sizeof readers[0]; k++) {
    ck_assert_int_eq(call_fails(readers[k], &not_tensor, 1), IRM_ETYPE);
    ck_assert_error_mentions(readers[k]);
    ck_assert_error_mentions("argument 1: expected ffi.Tensor, got ffi.Array");
    ck_assert_int_eq(call_fails(readers[k], NULL, 0), IRM_ETYPE);
  }
  irm_object_release(deep);
  irm_object_release(mixed);
  irm_object_release(bad_shape);
  irm_object_release(good_shape);
}
END_TEST

START_TEST(test_dlpack_globals_exchange_without_copies) {
  int64_t dims[] = {2};
  irm_tensor *t = new_tensor("uint8", dims, 1, "\x05\x06");
  irm_any arg = irm_any_object(t);
  irm_any exported = call_ok("ffi.TensorToDLPack", &arg, 1);
  ck_assert_int_eq(exported.type_code, IRM_PTR);
  DLManagedTensor *m = exported.v_ptr;
  ck_assert_ptr_eq(m->dl_tensor.data, irm_tensor_data(t));
  irm_object_release(t);
  irm_any p = irm_any_ptr(m);
  irm_tensor *back = call_obj("ffi.TensorFromDLPack", &p, 1, "ffi.Tensor");
  ck_assert(irm_tensor_get_f64(back, 1) == 6.0);
  irm_object_release(back); /* runs the export's deleter */

  float data[2] = {1, 2};
  producer prod;
  producer_init(&prod, raw_dtype(kDLBfloat, 16, 1), dims, 1, data);
  p = irm_any_ptr(&prod.managed);
  ck_assert_int_eq(call_fails("ffi.TensorFromDLPack", &p, 1), IRM_EVALUE);
  /* The global's name stands in for irm_tensor_from_dlpack's. */
  ck_assert_last_error("ValueError: ffi.TensorFromDLPack: unsupported dtype 'bfloat16'");
  ck_assert_int_eq(prod.deleted, 0);
  p = irm_any_none();
  ck_assert_int_eq(call_fails("ffi.TensorFromDLPack", &p, 1), IRM_EVALUE);
  ck_assert_error_mentions("managed must not be NULL");
  p = irm_any_str("x");
  ck_assert_int_eq(call_fails("ffi.TensorFromDLPack", &p, 1), IRM_ETYPE);
  ck_assert_last_error("TypeError: ffi.TensorFromDLPack: argument 1: expected ptr, got str");
}
END_TEST

static Suite *tensor_globals_suite(void) {
  Suite *s = suite_create("tensor_globals");
  TCase *tc = tcase_create("globals");
  tcase_add_test(tc, test_tensor_global_copies_the_data_and_the_readers_see_it);
  tcase_add_test(tc, test_tensor_global_without_data_gives_zeros);
  tcase_add_test(tc, test_tensor_global_errors_name_the_argument);
  tcase_add_test(tc, test_dlpack_globals_exchange_without_copies);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(tensor_globals_suite()); }
