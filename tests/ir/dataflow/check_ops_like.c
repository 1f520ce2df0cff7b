/* TVM's creation and _like ops (issue 40): zeros, ones, full, ones_like,
 * full_like, cast_like, reshape_like, broadcast_to_like and
 * collapse_sum_like: their types, their values through FEvaluate, and the
 * type errors of wrong shapes and missing attributes. */
#include "check_ops_util.h"

#define EXACT 0.0

/* ---- types ------------------------------------------------------------------------------ */

START_TEST(test_creation_types) {
  irm_object *out = NULL;
  ck_assert_ok(infer_n("zeros", "shape=2,3", &out, 0, NULL));
  char buf[128];
  ck_assert_str_eq(type_text(out, buf, sizeof buf), "(2, 3) float32");
  irm_object_release(out);
  ck_assert_ok(infer_n("ones", "shape=4;dtype=int8", &out, 0, NULL));
  ck_assert_str_eq(type_text(out, buf, sizeof buf), "(4,) int8");
  irm_object_release(out);
  /* full's dtype absent: the fill value's */
  EXPECT_TYPE("full", "shape=2", "(2,) int64", tscalar("int64"));
  EXPECT_TYPE("full", "shape=2,2;dtype=float16", "(2, 2) float16", tscalar("int64"));
  EXPECT_TYPE("ones_like", NULL, "(3, 1) uint8", T("uint8", SHAPE(3, 1)));
  EXPECT_TYPE("full_like", NULL, "(3,) float32", T("float32", SHAPE(3)), tscalar("int32"));
  EXPECT_TYPE("cast_like", NULL, "(2, 3) int32", T("float32", SHAPE(2, 3)), T("int32", SHAPE(7)));
  EXPECT_TYPE("reshape_like", NULL, "(3, 2) float32", T("float32", SHAPE(2, 3)), T("int8", SHAPE(3, 2)));
  EXPECT_TYPE("broadcast_to_like", NULL, "(2, 3) int32", T("int32", SHAPE(3)), T("float32", SHAPE(2, 3)));
  EXPECT_TYPE("collapse_sum_like", NULL, "(1, 3) float32", T("float32", SHAPE(4, 2, 3)), T("int8", SHAPE(1, 3)));
}
END_TEST

START_TEST(test_creation_type_errors) {
  irm_object *out = NULL;
  ck_assert_int_eq(infer_n("zeros", NULL, &out, 0, NULL), IRM_EVALUE);
  ck_assert_str_eq(irm_last_error(),
                   "ValueError: attributes of zeros: op 'zeros' requires option 'shape' (array<int>)");
  ck_assert_int_eq(infer_n("ones", "shape=2,-1", &out, 0, NULL), IRM_EVALUE);
  ck_assert_str_eq(irm_last_error(), "ValueError: ones: shape has a negative size -1");
  ck_assert_int_eq(infer_n("zeros", "shape=2;dtype=float31", &out, 0, NULL), IRM_EVALUE);
  EXPECT_TYPE_ERROR("full", "shape=2", IRM_ETYPE,
                    "TypeError: full: argument 1 (fill_value) must be a scalar (rank 0), got Tensor[(2,), float32]",
                    T("float32", SHAPE(2)));
  EXPECT_TYPE_ERROR(
      "full_like", NULL, IRM_ETYPE,
      "TypeError: full_like: argument 2 (fill_value) must be a scalar (rank 0), got Tensor[(1,), float32]",
      T("float32", SHAPE(3)), T("float32", SHAPE(1)));
  EXPECT_TYPE_ERROR("reshape_like", NULL, IRM_ETYPE,
                    "TypeError: reshape_like: cannot reshape argument 1 (data) of shape (2, 3) to the shape (4,) of "
                    "argument 2 (shape_like)",
                    T("float32", SHAPE(2, 3)), T("float32", SHAPE(4)));
  EXPECT_TYPE_ERROR("broadcast_to_like", NULL, IRM_ETYPE,
                    "TypeError: broadcast_to_like: argument 1 (data) of shape (2, 3) does not broadcast to the shape "
                    "(3,) of argument 2 (broadcast_type)",
                    T("float32", SHAPE(2, 3)), T("float32", SHAPE(3)));
  EXPECT_TYPE_ERROR("collapse_sum_like", NULL, IRM_ETYPE,
                    "TypeError: collapse_sum_like: the shape (2,) of argument 2 (collapse_type) does not broadcast to "
                    "the shape (4, 3) of argument 1 (data)",
                    T("float32", SHAPE(4, 3)), T("float32", SHAPE(2)));
  EXPECT_TYPE_ERROR("cast_like", NULL, IRM_ETYPE, NULL, T("float32", SHAPE(2)));
}
END_TEST

/* ---- values ------------------------------------------------------------------------------ */

START_TEST(test_creation_values) {
  irm_object *out = NULL;
  ck_assert_ok(eval_n("zeros", "shape=2;dtype=int32", &out, 0, NULL));
  EXPECT_VALUES(out, "int32", SHAPE(2), VALS(0, 0), EXACT);
  ck_assert_ok(eval_n("ones", "shape=1,3;dtype=float16", &out, 0, NULL));
  EXPECT_VALUES(out, "float16", SHAPE(1, 3), VALS(1, 1, 1), EXACT);
  irm_object *fill = NULL;
  DLDataType f32;
  ck_assert_ok(irm_dtype_parse("float32", &f32));
  float v = 2.75f;
  ck_assert_ok(irm_tensor_new(f32, NULL, 0, &v, &fill));
  irm_object_retain(fill);
  /* full converts as cast does: 2.75 -> int8 2 */
  ck_assert_ok(EVAL("full", "shape=3;dtype=int8", &out, fill));
  EXPECT_VALUES(out, "int8", SHAPE(3), VALS(2, 2, 2), EXACT);
  ck_assert_ok(EVAL("full_like", NULL, &out, TENSOR("float64", SHAPE(2), VALS(9, 9)), fill));
  EXPECT_VALUES(out, "float64", SHAPE(2), VALS(2.75, 2.75), EXACT);
  ck_assert_ok(EVAL("ones_like", NULL, &out, TENSOR("bool", SHAPE(2), VALS(0, 0))));
  EXPECT_VALUES(out, "bool", SHAPE(2), VALS(1, 1), EXACT);
}
END_TEST

START_TEST(test_like_values) {
  irm_object *out = NULL;
  ck_assert_ok(EVAL("cast_like", NULL, &out, TENSOR("float32", SHAPE(3), VALS(1.7, -1.7, 300)),
                    TENSOR("int8", SHAPE(1), VALS(0))));
  EXPECT_VALUES(out, "int8", SHAPE(3), VALS(1, -1, 127), EXACT);
  ck_assert_ok(EVAL("reshape_like", NULL, &out, TENSOR("int32", SHAPE(2, 3), VALS(1, 2, 3, 4, 5, 6)),
                    TENSOR("float32", SHAPE(3, 1, 2), NULL)));
  EXPECT_VALUES(out, "int32", SHAPE(3, 1, 2), VALS(1, 2, 3, 4, 5, 6), EXACT);
  ck_assert_ok(EVAL("broadcast_to_like", NULL, &out, TENSOR("float32", SHAPE(2, 1), VALS(1, 2)),
                    TENSOR("int8", SHAPE(2, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(2, 3), VALS(1, 1, 1, 2, 2, 2), EXACT);
  /* sums over the leading axis and the size-1 axis */
  ck_assert_ok(EVAL("collapse_sum_like", NULL, &out,
                    TENSOR("float32", SHAPE(2, 2, 3), VALS(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)),
                    TENSOR("float32", SHAPE(1, 3), NULL)));
  EXPECT_VALUES(out, "float32", SHAPE(1, 3), VALS(22, 26, 30), EXACT);
  /* ints wrap once, as sum */
  ck_assert_ok(EVAL("collapse_sum_like", NULL, &out, TENSOR("int8", SHAPE(2, 2), VALS(100, 1, 100, 2)),
                    TENSOR("int8", SHAPE(2), NULL)));
  EXPECT_VALUES(out, "int8", SHAPE(2), VALS(-56, 3), EXACT);
}
END_TEST

static Suite *ops_like_suite(void) {
  Suite *s = suite_create("ops_like");
  TCase *types = tcase_create("types");
  tcase_add_test(types, test_creation_types);
  tcase_add_test(types, test_creation_type_errors);
  suite_add_tcase(s, types);
  TCase *values = tcase_create("values");
  tcase_add_test(values, test_creation_values);
  tcase_add_test(values, test_like_values);
  suite_add_tcase(s, values);
  return s;
}

int main(void) { return run_suite(ops_like_suite()); }
