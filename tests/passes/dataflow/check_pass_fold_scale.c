/* SimplifyInference and FoldScaleAxis (dataflow/passes.h): batch_norm
 * rewritten into a scale and a shift (exactly, with center / scale false,
 * with statistics that are parameters), dropout dropped, the scale folded
 * into a convolution's weight (alone, behind nn.bias_add or add, NHWC),
 * what FoldScaleAxis leaves alone, untyped input, both in a pipeline with
 * FoldConstant, and a build whose kernels have no batch norm left. Values
 * go through ir.Evaluate before and after. */
#include "check_build_util.h"

#define X "%x: Tensor[(1, 3, 5, 5), float32]"
#define W "%w: Tensor[(2, 3, 3, 3), float32]"
#define STATS \
  "%g: Tensor[(2,), float32], %b: Tensor[(2,), float32], %m: Tensor[(2,), float32], %v: Tensor[(2,), float32]"
#define C2 "const(float32, [2], [0.5, -2])"

/* Seeded inputs for every parameter of m's main (variances made positive). */
static irm_object *inputs_of(const irm_module *m) {
  irm_object *f = irm_module_function(m, "main");
  size_t n = irm_function_param_count(f);
  irm_any items[8];
  ck_assert_uint_le(n, 8);
  for (size_t i = 0; i < n; i++) {
    irm_object *v = irm_function_param(f, i), *type = irm_expr_type(v);
    irm_object *t = ip_tensor(irm_tensor_type_shape(type), irm_tensor_type_ndim(type), (unsigned)i + 1);
    if (strcmp(irm_var_name(v), "v") == 0)
      for (int64_t k = 0; k < irm_tensor_numel(t); k++) irm_tensor_set_f64(t, k, 0.5 + fabs(irm_tensor_get_f64(t, k)));
    items[i] = irm_any_object(t);
  }
  irm_object *arr = new_array(items, n);
  for (size_t i = 0; i < n; i++) irm_any_release(&items[i]);
  return arr;
}

/* pass (a C entry point) on typed text: the result verifies, computes
 * what the input did, and equals want's text when given. NEW. */
static irm_module *check_pass(int (*pass)(irm_module *, irm_module **), const char *text, const char *want) {
  irm_module *m = ip_typed(text), *out = NULL, *retyped = NULL;
  ck_assert_ok(pass(m, &out));
  ck_assert_ok(irm_dataflow_verify(out));
  ck_assert_ok(irm_dataflow_infer_type(out, &retyped));
  ck_assert_ptr_eq(retyped, out); /* the result is fully typed */
  irm_object *inputs = inputs_of(m);
  ip_assert_same_result(m, out, inputs);
  if (want) {
    irm_module *w = ip_typed(want); /* typed: the result type of main is compared too */
    ip_assert_equal(out, w);
    irm_object_release(w);
  }
  irm_object *all[] = {m, retyped, inputs};
  for (size_t i = 0; i < 3; i++) irm_object_release(all[i]);
  return out;
}

/* pass leaves typed text as it is: its input module comes back. */
static void check_unchanged(int (*pass)(irm_module *, irm_module **), const char *text) {
  irm_module *m = ip_typed(text), *out = NULL;
  ck_assert_ok(pass(m, &out));
  if (out != m) {
    char *t = ip_text(out);
    ck_abort_msg("changed:\n%s", t);
  }
  irm_object_release(m);
  irm_object_release(out);
}

static int count_of(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static int contains(const irm_module *m, const char *needle) {
  char *t = ip_text(m);
  int found = strstr(t, needle) != NULL;
  free(t);
  return found;
}

/* ---- SimplifyInference -------------------------------------------------------------------- */

START_TEST(test_batch_norm_exactly) {
  const char *in = IP_HEAD "def @main(" X ", " W ", " STATS ") {\n"
                           "  %0 = nn.conv2d(%x, %w);\n"
                           "  %1 = nn.batch_norm(%0, %g, %b, %m, %v, epsilon=0.001);\n  %1\n}\n";
  const char *want = IP_HEAD "def @main(" X ", " W ", " STATS ") {\n"
                             "  %0 = nn.conv2d(%x, %w);\n"
                             "  %1 = add(%v, const(float32, [], [0.001]));\n"
                             "  %2 = sqrt(%1);\n"
                             "  %3 = divide(%g, %2);\n"
                             "  %4 = reshape(%3, newshape=[2, 1, 1]);\n"
                             "  %5 = multiply(%0, %4);\n"
                             "  %6 = multiply(%m, %3);\n"
                             "  %7 = subtract(%b, %6);\n"
                             "  %8 = reshape(%7, newshape=[2, 1, 1]);\n"
                             "  %9 = add(%5, %8);\n  %9\n}\n";
  irm_module *out = check_pass(irm_dataflow_simplify_inference, in, want);
  /* statistics that are parameters: FoldScaleAxis has no constant scale to fold */
  irm_module *same = NULL;
  ck_assert_ok(irm_dataflow_fold_scale_axis(out, &same));
  ck_assert_ptr_eq(same, out);
  irm_object_release(same);
  irm_object_release(out);
}
END_TEST

START_TEST(test_batch_norm_without_center_and_scale) {
  /* axis -1 is the last: s and the shift broadcast without a reshape */
  const char *in = IP_HEAD "def @main(%x: Tensor[(2, 3, 2), float32], %g: Tensor[(2,), float32], "
                           "%b: Tensor[(2,), float32], %m: Tensor[(2,), float32], %v: Tensor[(2,), float32]) {\n"
                           "  %0 = nn.batch_norm(%x, %g, %b, %m, %v, axis=-1, center=false, scale=false);\n  %0\n}\n";
  const char *want = IP_HEAD "def @main(%x: Tensor[(2, 3, 2), float32], %g: Tensor[(2,), float32], "
                             "%b: Tensor[(2,), float32], %m: Tensor[(2,), float32], %v: Tensor[(2,), float32]) {\n"
                             "  %0 = add(%v, const(float32, [], [1e-05]));\n"
                             "  %1 = sqrt(%0);\n"
                             "  %2 = divide(const(float32, [], [1]), %1);\n"
                             "  %3 = multiply(%x, %2);\n"
                             "  %4 = multiply(%m, %2);\n"
                             "  %5 = negative(%4);\n"
                             "  %6 = add(%3, %5);\n  %6\n}\n";
  irm_object_release(check_pass(irm_dataflow_simplify_inference, in, want));
  /* center only, on axis 0 of a rank-3 tensor */
  const char *axis0 = IP_HEAD "def @main(%x: Tensor[(2, 3, 2), float32], %g: Tensor[(2,), float32], "
                              "%b: Tensor[(2,), float32], %m: Tensor[(2,), float32], %v: Tensor[(2,), float32]) {\n"
                              "  %0 = nn.batch_norm(%x, %g, %b, %m, %v, axis=0, scale=false);\n  %0\n}\n";
  irm_module *out = check_pass(irm_dataflow_simplify_inference, axis0, NULL);
  ck_assert(contains(out, "newshape=[2, 1, 1]") && !contains(out, "batch_norm"));
  irm_object_release(out);
}
END_TEST

START_TEST(test_dropout_is_its_input) {
  const char *in = IP_HEAD "def @main(%x: Tensor[(2, 3), float32]) {\n"
                           "  %0 = nn.relu(%x);\n  %1 = nn.dropout(%0, rate=0.25);\n  %2 = exp(%1);\n  %2\n}\n";
  const char *want = IP_HEAD "def @main(%x: Tensor[(2, 3), float32]) {\n"
                             "  %0 = nn.relu(%x);\n  %1 = exp(%0);\n  %1\n}\n";
  irm_object_release(check_pass(irm_dataflow_simplify_inference, in, want));
}
END_TEST

START_TEST(test_untyped_input_is_typed_first) {
  const char *in = IP_HEAD "def @main(" X ", " W ", " STATS ") {\n"
                           "  %0 = nn.conv2d(%x, %w);\n"
                           "  %1 = nn.batch_norm(%0, %g, %b, %m, %v);\n  %1\n}\n";
  irm_module *m = ip_parse(in), *typed = ip_typed(in), *out = NULL, *retyped = NULL;
  ck_assert_ok(irm_dataflow_simplify_inference(m, &out));
  ck_assert(!contains(out, "batch_norm"));
  ck_assert_ok(irm_dataflow_infer_type(out, &retyped));
  ck_assert_ptr_eq(retyped, out);
  irm_object *inputs = inputs_of(typed);
  ip_assert_same_result(typed, out, inputs);
  /* by name, in a pipeline, on untyped input too */
  irm_module *named = NULL;
  ck_assert_ok(ip_run_named("SimplifyInference", m, &named));
  ip_assert_equal(named, out);
  irm_object *all[] = {m, typed, out, retyped, inputs, named};
  for (size_t i = 0; i < 6; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_nothing_to_do_returns_the_input) {
  /* untyped and without batch_norm or dropout: not even typed */
  irm_module *m = ip_parse(IP_HEAD "def @main(%x: Tensor[(2, 3), float32]) {\n  %0 = nn.relu(%x);\n  %0\n}\n"),
             *out = NULL;
  ck_assert_ok(irm_dataflow_simplify_inference(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  ck_assert_ok(irm_dataflow_fold_scale_axis(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  ck_assert_int_eq(irm_dataflow_simplify_inference(m, NULL), IRM_EVALUE);
  ck_assert_int_eq(irm_dataflow_fold_scale_axis(m, NULL), IRM_EVALUE);
  irm_object_release(m);
}
END_TEST

START_TEST(test_ill_typed_input_fails_as_infer_type) {
  /* gamma of the wrong length: InferType's error, nothing returned */
  irm_module *m = ip_parse(IP_HEAD "def @main(%x: Tensor[(1, 2, 3), float32], %g: Tensor[(3,), float32]) {\n"
                                   "  %0 = nn.batch_norm(%x, %g, %g, %g, %g);\n  %0\n}\n"),
             *out = NULL;
  ck_assert_int_eq(irm_dataflow_simplify_inference(m, &out), IRM_ETYPE);
  ck_assert_ptr_null(out);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "nn.batch_norm"));
  irm_object_release(m);
}
END_TEST

/* ---- FoldScaleAxis ------------------------------------------------------------------------ */

START_TEST(test_scale_folds_into_the_weight) {
  const char *in = IP_HEAD "def @main(" X ", " W ") {\n"
                           "  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n"
                           "  %1 = multiply(%0, const(float32, [2, 1, 1], [0.5, -2]));\n  %1\n}\n";
  const char *want = IP_HEAD "def @main(" X ", " W ") {\n"
                             "  %0 = reshape(const(float32, [2, 1, 1], [0.5, -2]), newshape=[2, 1, 1, 1]);\n"
                             "  %1 = multiply(%w, %0);\n"
                             "  %2 = nn.conv2d(%x, %1, padding=[1, 1]);\n  %2\n}\n";
  irm_object_release(check_pass(irm_dataflow_fold_scale_axis, in, want));
  /* the scale first, of shape (1, 2, 1, 1), and groups */
  const char *grouped = IP_HEAD "def @main(%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(2, 1, 3, 3), float32]) {\n"
                                "  %0 = nn.conv2d(%x, %w, groups=2);\n"
                                "  %1 = multiply(const(float32, [1, 2, 1, 1], [3, -1]), %0);\n  %1\n}\n";
  irm_module *out = check_pass(irm_dataflow_fold_scale_axis, grouped, NULL);
  ck_assert(contains(out, "newshape=[2, 1, 1, 1]") && contains(out, "multiply(%w"));
  irm_object_release(out);
}
END_TEST

START_TEST(test_scale_folds_through_a_bias) {
  const char *bias_add = IP_HEAD "def @main(" X ", " W ", %c: Tensor[(2,), float32]) {\n"
                                 "  %0 = nn.conv2d(%x, %w);\n"
                                 "  %1 = nn.bias_add(%0, %c);\n"
                                 "  %2 = multiply(%1, const(float32, [2, 1, 1], [0.5, -2]));\n  %2\n}\n";
  const char *want = IP_HEAD "def @main(" X ", " W ", %c: Tensor[(2,), float32]) {\n"
                             "  %0 = reshape(const(float32, [2, 1, 1], [0.5, -2]), newshape=[2, 1, 1, 1]);\n"
                             "  %1 = multiply(%w, %0);\n"
                             "  %2 = nn.conv2d(%x, %1);\n"
                             "  %3 = reshape(const(float32, [2, 1, 1], [0.5, -2]), newshape=[2]);\n"
                             "  %4 = multiply(%c, %3);\n"
                             "  %5 = nn.bias_add(%2, %4);\n  %5\n}\n";
  irm_object_release(check_pass(irm_dataflow_fold_scale_axis, bias_add, want));
  const char *add = IP_HEAD "def @main(" X ", " W ", %c: Tensor[(2, 1, 1), float32]) {\n"
                            "  %0 = nn.conv2d(%x, %w);\n"
                            "  %1 = add(%c, %0);\n"
                            "  %2 = multiply(%1, const(float32, [1, 2, 1, 1], [0.5, -2]));\n  %2\n}\n";
  const char *want_add = IP_HEAD "def @main(" X ", " W ", %c: Tensor[(2, 1, 1), float32]) {\n"
                                 "  %0 = reshape(const(float32, [1, 2, 1, 1], [0.5, -2]), newshape=[2, 1, 1, 1]);\n"
                                 "  %1 = multiply(%w, %0);\n"
                                 "  %2 = nn.conv2d(%x, %1);\n"
                                 "  %3 = multiply(%c, const(float32, [1, 2, 1, 1], [0.5, -2]));\n"
                                 "  %4 = add(%3, %2);\n  %4\n}\n";
  irm_object_release(check_pass(irm_dataflow_fold_scale_axis, add, want_add));
  /* two scales in a row fold one after the other */
  const char *twice = IP_HEAD "def @main(" X ", " W ", %c: Tensor[(2,), float32]) {\n"
                              "  %0 = nn.conv2d(%x, %w);\n"
                              "  %1 = nn.bias_add(%0, %c);\n"
                              "  %2 = multiply(%1, const(float32, [2, 1, 1], [0.5, -2]));\n"
                              "  %3 = multiply(%2, const(float32, [], [3]));\n  %3\n}\n";
  irm_module *out = check_pass(irm_dataflow_fold_scale_axis, twice, NULL);
  char *t = ip_text(out);
  /* both scales on the weight and the bias (2 each), none on the result */
  ck_assert_msg(count_of(t, "multiply(") == 4 && count_of(t, "multiply(%w") == 1 && count_of(t, "multiply(%c") == 1,
                "%s", t);
  free(t);
  irm_object_release(out);
}
END_TEST

START_TEST(test_scale_folds_in_nhwc) {
  const char *in = IP_HEAD "def @main(%x: Tensor[(1, 5, 5, 3), float32], %w: Tensor[(3, 3, 3, 2), float32]) {\n"
                           "  %0 = nn.conv2d(%x, %w, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n"
                           "  %1 = multiply(%0, " C2 ");\n  %1\n}\n";
  const char *want = IP_HEAD "def @main(%x: Tensor[(1, 5, 5, 3), float32], %w: Tensor[(3, 3, 3, 2), float32]) {\n"
                             "  %0 = reshape(" C2 ", newshape=[2]);\n"
                             "  %1 = multiply(%w, %0);\n"
                             "  %2 = nn.conv2d(%x, %1, data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n  %2\n}\n";
  irm_object_release(check_pass(irm_dataflow_fold_scale_axis, in, want));
}
END_TEST

START_TEST(test_constant_weights_are_scaled_by_the_pass) {
  /* OIHW: each output channel's filters times its scale; the bias_add's bias too */
  const char *oihw = IP_HEAD "def @main(%x: Tensor[(1, 2, 3, 3), float32]) {\n"
                             "  %0 = nn.conv2d(%x, const(float32, [2, 2, 1, 1], [1, 2, 3, 4]));\n"
                             "  %1 = nn.bias_add(%0, const(float32, [2], [3, 4]));\n"
                             "  %2 = multiply(%1, const(float32, [2, 1, 1], [0.5, -2]));\n  %2\n}\n";
  const char *want = IP_HEAD "def @main(%x: Tensor[(1, 2, 3, 3), float32]) {\n"
                             "  %0 = nn.conv2d(%x, const(float32, [2, 2, 1, 1], [0.5, 1, -6, -8]));\n"
                             "  %1 = nn.bias_add(%0, const(float32, [2], [1.5, -8]));\n  %1\n}\n";
  irm_object_release(check_pass(irm_dataflow_fold_scale_axis, oihw, want));
  /* HWIO: the output channels are the last axis */
  const char *hwio = IP_HEAD "def @main(%x: Tensor[(1, 3, 3, 2), float32]) {\n"
                             "  %0 = nn.conv2d(%x, const(float32, [1, 1, 2, 2], [1, 2, 3, 4]), data_layout=\"NHWC\", "
                             "kernel_layout=\"HWIO\");\n"
                             "  %1 = multiply(const(float32, [1, 1, 1, 2], [0.5, -2]), %0);\n  %1\n}\n";
  const char *want_hwio = IP_HEAD "def @main(%x: Tensor[(1, 3, 3, 2), float32]) {\n"
                                  "  %0 = nn.conv2d(%x, const(float32, [1, 1, 2, 2], [0.5, -4, 1.5, -8]), "
                                  "data_layout=\"NHWC\", kernel_layout=\"HWIO\");\n  %0\n}\n";
  irm_object_release(check_pass(irm_dataflow_fold_scale_axis, hwio, want_hwio));
  /* one scale for all channels */
  const char *one = IP_HEAD "def @main(%x: Tensor[(1, 2, 3, 3), float32]) {\n"
                            "  %0 = nn.conv2d(%x, const(float32, [2, 2, 1, 1], [1, 2, 3, 4]));\n"
                            "  %1 = multiply(%0, const(float32, [], [3]));\n  %1\n}\n";
  const char *want_one = IP_HEAD "def @main(%x: Tensor[(1, 2, 3, 3), float32]) {\n"
                                 "  %0 = nn.conv2d(%x, const(float32, [2, 2, 1, 1], [3, 6, 9, 12]));\n  %0\n}\n";
  irm_object_release(check_pass(irm_dataflow_fold_scale_axis, one, want_one));
}
END_TEST

START_TEST(test_what_does_not_match_is_left_alone) {
  const char *const cases[] = {
      /* the scale runs along the width, not the channels */
      IP_HEAD "def @main(" X ", " W ") {\n  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n"
              "  %1 = multiply(%0, const(float32, [5], [1, 2, 3, 4, 5]));\n  %1\n}\n",
      /* a scale that is no Constant */
      IP_HEAD "def @main(" X ", " W ", %s: Tensor[(2, 1, 1), float32]) {\n  %0 = nn.conv2d(%x, %w);\n"
              "  %1 = multiply(%0, %s);\n  %1\n}\n",
      /* the convolution has another use */
      IP_HEAD "def @main(" X ", " W ") {\n  %0 = nn.conv2d(%x, %w);\n"
              "  %1 = multiply(%0, const(float32, [2, 1, 1], [0.5, -2]));\n  %2 = add(%1, %0);\n  %2\n}\n",
      /* the bias has another use */
      IP_HEAD "def @main(" X ", " W ", %c: Tensor[(2,), float32]) {\n  %0 = nn.conv2d(%x, %w);\n"
              "  %1 = nn.bias_add(%0, %c);\n  %2 = multiply(%1, const(float32, [2, 1, 1], [0.5, -2]));\n"
              "  %3 = add(%2, %1);\n  %3\n}\n",
      /* a bias along another axis than the channels */
      IP_HEAD "def @main(%x: Tensor[(1, 3, 4, 4), float32], " W ", %c: Tensor[(2,), float32]) {\n"
              "  %0 = nn.conv2d(%x, %w);\n  %1 = nn.bias_add(%0, %c, axis=2);\n"
              "  %2 = multiply(%1, const(float32, [2, 1, 1], [0.5, -2]));\n  %2\n}\n",
      /* a scale that widens the result (a batch of 2) */
      IP_HEAD "def @main(" X ", " W ") {\n  %0 = nn.conv2d(%x, %w);\n"
              "  %1 = multiply(%0, const(float32, [2, 2, 1, 1], [1, 2, 3, 4]));\n  %1\n}\n",
      /* no convolution behind the multiply */
      IP_HEAD "def @main(" X ") {\n  %0 = nn.relu(%x);\n"
              "  %1 = multiply(%0, const(float32, [3, 1, 1], [1, 2, 3]));\n  %1\n}\n",
      /* an integer convolution */
      IP_HEAD "def @main(%x: Tensor[(1, 3, 5, 5), int32], %w: Tensor[(2, 3, 3, 3), int32]) {\n"
              "  %0 = nn.conv2d(%x, %w);\n  %1 = multiply(%0, const(int32, [2, 1, 1], [2, 3]));\n  %1\n}\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_unchanged(irm_dataflow_fold_scale_axis, cases[i]);
}
END_TEST

/* ---- both, with FoldConstant, and in a build ------------------------------------------------- */

#define BN_MODEL                                                                               \
  IP_HEAD "def @main(" X ", " W ", %c: Tensor[(2,), float32]) {\n"                             \
          "  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n"                                        \
          "  %1 = nn.bias_add(%0, %c);\n"                                                      \
          "  %2 = nn.batch_norm(%1, " C2 ", const(float32, [2], [0.1, 0.2]), "                 \
          "const(float32, [2], [-0.3, 0.4]), const(float32, [2], [0.5, 2]), epsilon=0.001);\n" \
          "  %3 = nn.relu(%2);\n  %3\n}\n"

START_TEST(test_conv_bias_bn_becomes_one_conv_and_adds) {
  irm_module *m = ip_typed(BN_MODEL), *out = NULL;
  ck_assert_ok(ip_pipeline("Sequential(SimplifyInference,FoldConstant,FoldScaleAxis,FoldConstant)", m, &out));
  char *t = ip_text(out);
  /* the scale is in the weight (a parameter here, so its product stays) and the bias */
  ck_assert_msg(!strstr(t, "batch_norm") && !strstr(t, "sqrt") && !strstr(t, "divide") &&
                    strstr(t, "multiply(%w, const(float32, [2, 1, 1, 1]") &&
                    strstr(t, "multiply(%c, const(float32, [2]") && count_of(t, "multiply") == 2,
                "%s", t);
  free(t);
  irm_object *inputs = inputs_of(m);
  ip_assert_same_result(m, out, inputs);
  irm_object_release(inputs);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_build_has_no_batch_norm_left) {
  irm_module *m = ip_parse(BN_MODEL);
  int64_t ws[] = {2, 3, 3, 3}, cs[] = {2};
  const char *names[] = {"w", "c"};
  irm_any values[] = {irm_any_object(ip_tensor(ws, 4, 7)), irm_any_object(ip_tensor(cs, 1, 8))};
  irm_object *params = NULL, *result = NULL;
  ck_assert_ok(irm_map_from_pairs(names, values, 2, &params));
  irm_any target = irm_any_str("c");
  ck_assert_ok(irm_build(m, &target, NULL, NULL, NULL, params, "bn", &result));
  /* the weight and bias are constants: conv2d, bias_add, add and relu are left */
  irm_object *s = NULL;
  const char *text = module_text(bu_part(result, "module"), &s);
  ck_assert_msg(!strstr(text, "batch_norm") && !strstr(text, "multiply") && !strstr(text, "sqrt"), "%s", text);
  irm_object_release(s);
  /* the generated kernels compute no batch norm (no per-element sqrt) */
  irm_map_iter it = irm_map_iter_begin(bu_part(result, "artifacts"));
  const irm_object *key = NULL;
  const irm_any *v = NULL;
  int texts = 0;
  while (irm_map_iter_next(&it, &key, &v)) {
    const char *code = NULL;
    if (irm_any_to_str(v, &code, NULL)) {
      irm_clear_error(); /* not a text */
      continue;
    }
    texts++;
    ck_assert_msg(!strstr(code, "irm_cg_sqrt((double)"), "%s", code);
  }
  ck_assert_int_gt(texts, 0);
  irm_any_release(&values[0]);
  irm_any_release(&values[1]);
  irm_object_release(params);
  irm_object_release(result);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_fold_scale");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_batch_norm_exactly);
  tcase_add_test(tc, test_batch_norm_without_center_and_scale);
  tcase_add_test(tc, test_dropout_is_its_input);
  tcase_add_test(tc, test_untyped_input_is_typed_first);
  tcase_add_test(tc, test_nothing_to_do_returns_the_input);
  tcase_add_test(tc, test_ill_typed_input_fails_as_infer_type);
  tcase_add_test(tc, test_scale_folds_into_the_weight);
  tcase_add_test(tc, test_scale_folds_through_a_bias);
  tcase_add_test(tc, test_scale_folds_in_nhwc);
  tcase_add_test(tc, test_constant_weights_are_scaled_by_the_pass);
  tcase_add_test(tc, test_what_does_not_match_is_left_alone);
  tcase_add_test(tc, test_conv_bias_bn_becomes_one_conv_and_adds);
  tcase_add_test(tc, test_build_has_no_batch_norm_left);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
