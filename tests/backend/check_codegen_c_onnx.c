/* The C kernels of the ONNX frontend's ops and dtypes against ir.Evaluate
 * (docs/codegen.md): float64 and int64 arithmetic (int64 wrapping through
 * uint64_t, division by -1, casts saturating), the new elementwise ops
 * (fused into chains), comparisons, where, and the shape and nn ops
 * (views, concatenate, strided_slice, take, gather, pad, batch_norm,
 * matmul portable and with -libs=cblas, log_softmax, max/min/prod,
 * argmax/argmin, global_max_pool2d, conv2d_transpose, argsort, scatter,
 * resize2d);
 * an index out of range makes the kernel return 1. */
#include "check_codegen_c_util.h"

#define F(body) "def @main(%a: Tensor[(3, 4), float32], %b: Tensor[(4,), float32]) { " body " }"
#define D(body) "def @main(%a: Tensor[(3, 4), float64], %b: Tensor[(3, 4), float64]) { " body " }"
#define L(body) "def @main(%a: Tensor[(3, 4), int64], %b: Tensor[(3, 4), int64]) { " body " }"

START_TEST(dtypes64) {
  static const cg_case cases[] = {
      {"d_arith", D("%0 = add(%a, %b); %1 = multiply(%0, %b); %2 = divide(%1, %a); %3 = subtract(%2, %b); %3"), 1e-12},
      {"d_unary", D("%0 = exp(%a); %1 = sqrt(%0); %2 = negative(%1); %3 = nn.relu(%2); %4 = maximum(%3, %b); %4"),
       1e-12},
      {"d_reduce", D("%0 = sum(%a, axis=[1]); %1 = mean(%b); %2 = add(%0, %1); %2"), 1e-12},
      {"d_softmax", D("%0 = nn.softmax(%a); %0"), 1e-12},
      {"d_dense", D("%0 = nn.dense(%a, %b); %0"), 1e-12},
      {"l_arith", L("%0 = add(%a, %b); %1 = multiply(%0, %b); %2 = subtract(%1, %a); %3 = negative(%2); %3"), 0},
      {"l_div", L("%0 = divide(%a, %b); %1 = divide(%a, const(int64, [1], [-1])); %2 = add(%0, %1); %2"), 0},
      {"l_max", L("%0 = maximum(%a, %b); %1 = nn.relu(%0); %1"), 0},
      {"l_sum", L("%0 = sum(%a, axis=[0]); %1 = mean(%b, axis=[1], keepdims=true); %2 = add(%0, %1); %2"), 0},
      {"l_dense", L("%0 = nn.dense(%a, %b); %0"), 0},
      {"l_consts", L("%0 = add(%a, const(int64, [4], [-9223372036854775808, 9223372036854775807, 1, -1])); %0"), 0},
      {"c_d2l", D("%0 = multiply(%a, const(float64, [1], [1e19])); %1 = cast(%0, dtype=\"int64\"); %1"), 0},
      {"c_d2i8", D("%0 = multiply(%a, const(float64, [1], [100])); %1 = cast(%0, dtype=\"int8\"); %1"), 0},
      {"c_l2f",
       L("%0 = cast(%a, dtype=\"float32\"); %1 = cast(%b, dtype=\"float64\"); %2 = cast(%1, dtype=\"float32\"); "
         "%3 = add(%0, %2); %3"),
       0},
      {"c_l2i8",
       L("%0 = cast(%a, dtype=\"int8\"); %1 = cast(%b, dtype=\"bool\"); %2 = cast(%1, dtype=\"int32\"); "
         "%3 = cast(%0, dtype=\"int32\"); %4 = add(%2, %3); %4"),
       0},
      {"c_f2l", F("%0 = multiply(%a, const(float32, [1], [1e20])); %1 = cast(%0, dtype=\"int64\"); %1"), 0},
      {"c_nan2l",
       "def @main(%a: Tensor[(4,), float64]) { %0 = add(%a, const(float64, [4], [nan, inf, -inf, 0.5])); "
       "%1 = cast(%0, dtype=\"int64\"); %1 }",
       0},
  };
  cg_check_cases("onnx_dtypes", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

START_TEST(elemwise_new) {
  static const cg_case cases[] = {
      {"e_binary",
       F("%0 = minimum(%a, %b); %1 = power(%0, %b); %2 = mod(%a, %b); %3 = floor_mod(%a, %b); "
         "%4 = add(%1, %2); %5 = add(%4, %3); %5"),
       1e-6},
      {"e_trans", F("%0 = sigmoid(%a); %1 = tanh(%0); %2 = log(%a); %3 = erf(%1); %4 = add(%2, %3); %4"), 1e-6},
      {"e_round",
       F("%0 = multiply(%a, const(float32, [1], [3.0])); %1 = floor(%0); %2 = ceil(%0); %3 = round(%0); "
         "%4 = sign(%0); %5 = abs(%0); %6 = add(%1, %2); %7 = add(%3, %4); %8 = add(%6, %7); %9 = add(%8, %5); %9"),
       0},
      {"e_trig",
       F("%0 = sin(%a); %1 = cos(%0); %2 = tan(%1); %3 = asin(%0); %4 = acos(%0); %5 = atan(%a); "
         "%6 = sinh(%a); %7 = cosh(%a); %8 = asinh(%a); %9 = acosh(%7); %10 = atanh(%0); "
         "%11 = add(%2, %3); %12 = add(%4, %5); %13 = add(%6, %8); %14 = add(%9, %10); "
         "%15 = add(%11, %12); %16 = add(%13, %14); %17 = add(%15, %16); %17"),
       1e-6},
      {"e_zeros", F("%0 = zeros_like(%a); %1 = add(%0, %b); %2 = exp(%a); %3 = zeros_like(%2); %4 = add(%1, %3); %4"),
       0},
      {"e_clip", F("%0 = clip(%a, a_min=-0.5, a_max=1.25); %1 = clip(%b, a_min=0.0); %2 = add(%0, %1); %2"), 0},
      {"e_relu6",
       "def @main(%a: Tensor[(1, 3, 4, 4), float32], %w: Tensor[(2, 3, 3, 3), float32]) {\n"
       "  %0 = nn.conv2d(%a, %w, padding=[1, 1]); %1 = clip(%0, a_min=0.0, a_max=6.0); %1 }",
       1e-4},
      {"e_leaky", F("%0 = nn.leaky_relu(%a, alpha=0.2); %1 = nn.dropout(%0); %2 = add(%1, %b); %2"), 0},
      {"e_compare",
       F("%0 = less(%a, %b); %1 = greater_equal(%a, %b); %2 = logical_and(%0, %1); "
         "%3 = equal(%a, %a); %4 = logical_or(%2, %3); %5 = logical_not(%4); %6 = not_equal(%a, %b); "
         "%7 = logical_or(%5, %6); %8 = less_equal(%b, %a); %9 = greater(%b, %a); "
         "%10 = logical_and(%8, %9); %11 = logical_or(%7, %10); %11"),
       0},
      {"e_where", F("%0 = greater(%a, %b); %1 = where(%0, %a, %b); %2 = exp(%1); %2"), 0},
      {"e_nan",
       "def @main(%a: Tensor[(4,), float32]) { %0 = add(%a, const(float32, [4], [nan, 0, 0, 0])); "
       "%1 = minimum(%0, %a); %2 = clip(%1, a_min=0.0, a_max=1.0); %3 = less(%2, %a); %4 = not_equal(%2, %2); "
       "%5 = logical_or(%3, %4); %5 }",
       0},
      {"e_int",
       L("%0 = minimum(%a, %b); %1 = power(%a, const(int64, [1], [3])); %2 = mod(%a, %b); %3 = floor_mod(%a, %b); "
         "%4 = abs(%0); %5 = sign(%1); %6 = clip(%2, a_min=-3.5, a_max=100.5); %7 = add(%4, %5); %8 = add(%6, %3); "
         "%9 = add(%7, %8); %9"),
       0},
      {"e_ipow",
       "def @main(%a: Tensor[(6,), int32]) {\n"
       "  %0 = power(const(int32, [6], [2, -1, 1, 3, -2, 0]), const(int32, [6], [10, -3, -5, 31, 7, 0])); "
       "%1 = add(%0, %a); %1 }",
       0},
      {"e_i8",
       "def @main(%a: Tensor[(5,), int8], %b: Tensor[(5,), int8]) { %0 = power(%a, %b); %1 = minimum(%0, %a); "
       "%2 = less(%1, %b); %3 = where(%2, %a, %b); %3 }",
       0},
      {"e_d",
       D("%0 = sigmoid(%a); %1 = power(%0, %b); %2 = floor_mod(%a, %b); %3 = add(%1, %2); %4 = clip(%3, a_max=1.0); "
         "%5 = minimum(%4, %b); %5"),
       1e-12},
  };
  cg_check_cases("onnx_elemwise", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

/* Compiles the kernel `symbol` of text's @main with a runner (C source) and
 * returns the opened shared object (dlclose it). */
static void *compile_one(const char *stem, const char *text, const char *symbol, const char *runner) {
  irm_module *m = cg_typed(text);
  irm_object *k = cg_kernel(irm_module_function(m, "main"), symbol, NULL);
  ck_require(k != NULL, "%s: %s", symbol, irm_last_error());
  char *src = cg_prelude(NULL);
  size_t len = strlen(src);
  cg_cat(&src, &len, cg_map_str(k, "code"));
  cg_cat(&src, &len, runner);
  void *h = cg_compile(stem, src, NULL);
  free(src);
  irm_object_release(k);
  irm_object_release(m);
  return h;
}

START_TEST(mod_by_zero) {
  void *h = compile_one("onnx_mod0", L("%0 = floor_mod(%a, %b); %0"), "k_mod",
                        "int32_t run(int64_t *a, int64_t *b, int64_t *o) { return k_mod(a, b, o, NULL); }\n");
  int32_t (*run)(int64_t *, int64_t *, int64_t *) =
      (int32_t(*)(int64_t *, int64_t *, int64_t *))(uintptr_t)dlsym(h, "run");
  ck_assert(run != NULL);
  int64_t a[12], b[12], o[12];
  for (int i = 0; i < 12; i++) a[i] = -7 + i, b[i] = i % 5 - 2 ? i % 5 - 2 : 3;
  ck_assert_int_eq(run(a, b, o), 0);
  ck_assert_int_eq(o[0], ((-7 % -2) + 0)); /* -7 floor_mod -2 = -1 */
  b[5] = 0;
  ck_assert_int_ne(run(a, b, o), 0);
  dlclose(h);
}
END_TEST

#define T4(name, dt, body) \
  { name, "def @main(%a: Tensor[(2, 3, 4, 5), " dt "]) { " body " }", 1e-6 }

START_TEST(shape_ops) {
  static const cg_case cases[] = {
      T4("s_squeeze", "float32",
         "%0 = expand_dims(%a, axis=1, num_newaxis=2); %1 = nn.relu(%0); %2 = squeeze(%1, axis=[1, 2]); "
         "%3 = exp(%2); %3"),
      T4("s_squeeze_out", "int64", "%0 = expand_dims(%a, axis=4); %0"),
      T4("s_bcast", "float32",
         "%0 = sum(%a, axis=[1], keepdims=true); %1 = broadcast_to(%0, shape=[2, 3, 4, 5]); "
         "%2 = add(%1, %a); %2"),
      T4("s_concat", "float32", "%0 = nn.relu(%a); %1 = concatenate(%a, %0, %a, axis=1); %1"),
      T4("s_concat0", "int8",
         "%0 = concatenate(%a, %a); %1 = concatenate(%a, %a, axis=-1); %2 = sum(%0); %3 = sum(%1); "
         "%4 = add(%2, %3); %4"),
      T4("s_slice", "float32", "%0 = strided_slice(%a, begin=[1, -2], end=[2, 100], axes=[0, 3]); %0"),
      T4("s_slice_neg", "float64",
         "%0 = strided_slice(%a, begin=[-1, 10, 0], end=[-100, 0, 5], strides=[-1, -2, 2]); %0"),
      T4("s_take", "float32", "%0 = take(%a, const(int64, [2, 2], [0, -1, 3, 1]), axis=2); %0"),
      T4("s_take0", "int32", "%0 = take(%a, const(int32, [3], [1, 0, 1]), axis=0); %0"),
      T4("s_take_flat", "float32", "%0 = take(%a, const(int64, [2, 2], [0, -1, 7, 3])); %0"),
      T4("s_gather", "float32", "%0 = gather(%a, const(int64, [2, 1, 2, 2], [0, 4, -1, 2, 1, 1, 3, 0]), axis=3); %0"),
      T4("s_pad", "float32", "%0 = nn.pad(%a, pad_width=[0, 0, 1, 0, 2, 1, 0, 3], pad_value=1.5); %0"),
      T4("s_pad_edge", "int64", "%0 = nn.pad(%a, pad_width=[0, 1, 0, 0, 2, 2, 1, 0], pad_mode=\"edge\"); %0"),
      T4("s_pad_refl", "float32", "%0 = nn.pad(%a, pad_width=[0, 0, 2, 1, 3, 2, 0, 4], pad_mode=\"reflect\"); %0"),
      T4("s_red", "float32",
         "%0 = max(%a, axis=[1, 3]); %1 = min(%a, axis=[1, 3]); %2 = prod(%a, axis=[1, 3]); "
         "%3 = add(%0, %1); %4 = add(%3, %2); %4"),
      T4("s_red_int", "int32",
         "%0 = max(%a); %1 = min(%a, axis=[0], keepdims=true); %2 = prod(%a, axis=[2], exclude=true); "
         "%3 = sum(%1); %4 = add(%0, %3); %5 = sum(%2); %6 = add(%4, %5); %6"),
      T4("s_argmax", "float32",
         "%0 = argmax(%a, axis=[1]); %1 = argmin(%a, axis=[-1], keepdims=true); %2 = sum(%1); "
         "%3 = add(%0, %2); %3"),
      T4("s_arglast", "int8", "%0 = argmax(%a, axis=[3], select_last_index=true); %0"),
      T4("s_lsm", "float32", "%0 = nn.log_softmax(%a, axis=1); %0"),
      T4("s_gmp", "float32", "%0 = nn.global_max_pool2d(%a); %0"),
      T4("s_gmp_nhwc", "int32", "%0 = nn.global_max_pool2d(%a, layout=\"NHWC\"); %0"),
      {"s_bn",
       "def @main(%a: Tensor[(2, 3, 4, 5), float32], %g: Tensor[(3,), float32], %b: Tensor[(3,), float32], "
       "%m: Tensor[(3,), float32]) {\n  %0 = abs(%g); %1 = nn.batch_norm(%a, %g, %b, %m, %0, epsilon=0.001); "
       "%2 = nn.relu(%1); %2 }",
       1e-6},
      {"s_bn_axis",
       "def @main(%a: Tensor[(2, 5), float64], %g: Tensor[(5,), float64]) {\n"
       "  %0 = abs(%g); %1 = nn.batch_norm(%a, %g, %g, %g, %0, axis=-1, center=false); %1 }",
       1e-12},
  };
  cg_check_cases("onnx_shape", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

static const cg_case mm_cases[] = {
    {"m_2d", "def @main(%a: Tensor[(5, 7), float32], %b: Tensor[(7, 3), float32]) { %0 = matmul(%a, %b); %0 }", 1e-5},
    {"m_batch",
     "def @main(%a: Tensor[(2, 1, 4, 6), float32], %b: Tensor[(3, 6, 5), float32]) { %0 = matmul(%a, %b); "
     "%1 = nn.relu(%0); %1 }",
     1e-5},
    {"m_bcast", "def @main(%a: Tensor[(2, 4, 6), float32], %b: Tensor[(6, 2), float32]) { %0 = matmul(%a, %b); %0 }",
     1e-5},
};

START_TEST(matmul) {
  static const cg_case ints[] = {
      {"m_i64", "def @main(%a: Tensor[(2, 3, 4), int64], %b: Tensor[(2, 4, 2), int64]) { %0 = matmul(%a, %b); %0 }", 0},
      {"m_i8", "def @main(%a: Tensor[(3, 4), int8], %b: Tensor[(4, 2), int8]) { %0 = matmul(%a, %b); %0 }", 0},
      {"m_f64", "def @main(%a: Tensor[(3, 4), float64], %b: Tensor[(2, 4, 2), float64]) { %0 = matmul(%a, %b); %0 }",
       1e-12},
  };
  cg_check_cases("onnx_mm", mm_cases, sizeof mm_cases / sizeof mm_cases[0], NULL, NULL, 2);
  cg_check_cases("onnx_mm_int", ints, sizeof ints / sizeof ints[0], NULL, NULL, 2);
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse("c -libs=cblas", &t));
  cg_check_cases("onnx_mm_cblas", mm_cases, sizeof mm_cases / sizeof mm_cases[0], t, "-lopenblas", 2);
  irm_object_release(t);
}
END_TEST

START_TEST(rare_ops) {
  static const cg_case cases[] = {
      {"r_convt",
       "def @main(%a: Tensor[(1, 4, 5, 5), float32], %w: Tensor[(4, 3, 3, 3), float32]) {\n"
       "  %0 = nn.conv2d_transpose(%a, %w); %0 }",
       1e-6},
      {"r_convt_s",
       "def @main(%a: Tensor[(2, 4, 4, 3), float32], %w: Tensor[(4, 2, 3, 2), float32]) {\n"
       "  %0 = nn.conv2d_transpose(%a, %w, strides=[2, 3], padding=[1, 0, 0, 1], output_padding=[1, 2], "
       "groups=2, dilation=[1, 2]); %1 = nn.relu(%0); %1 }",
       1e-6},
      {"r_argsort",
       "def @main(%a: Tensor[(3, 7), float32]) { %0 = add(%a, const(float32, [7], [nan, 0, 0, nan, 0, 0, 0])); "
       "%1 = argsort(%0); %2 = argsort(%0, axis=0, is_ascend=false, dtype=\"int64\"); %3 = (%1, %2); %3 }",
       0},
      {"r_argsort_ties",
       "def @main(%a: Tensor[(2, 9, 3), int8]) { %0 = floor_mod(%a, const(int8, [1], [3])); "
       "%1 = argsort(%0, axis=1); %2 = argsort(%0, axis=1, is_ascend=false); %3 = (%1, %2); %3 }",
       0},
      {"r_scatter",
       "def @main(%a: Tensor[(3, 4), float32], %u: Tensor[(2, 4), float32]) {\n"
       "  %0 = scatter_elements(%a, const(int64, [2, 4], [0, 2, -1, 1, 1, 0, 2, 2]), %u); %0 }",
       0},
      {"r_scatter_add",
       "def @main(%a: Tensor[(3, 4), int32], %u: Tensor[(3, 2), int32]) {\n"
       "  %0 = scatter_elements(%a, const(int32, [3, 2], [1, 1, 0, 3, -1, -1]), %u, axis=1, "
       "reduction=\"add\"); %0 }",
       0},
      {"r_scatter_nd",
       "def @main(%a: Tensor[(4, 3, 2), float32], %u: Tensor[(2, 3, 2), float32]) {\n"
       "  %0 = scatter_nd(%a, const(int64, [2, 1], [3, -4]), %u, reduction=\"mul\"); %0 }",
       0},
      {"r_scatter_nd2",
       "def @main(%a: Tensor[(4, 3), int64], %u: Tensor[(3,), int64]) {\n"
       "  %0 = scatter_nd(%a, const(int64, [3, 2], [0, 1, 3, 2, 0, 1]), %u); %0 }",
       0},
      {"r_resize_lin", "def @main(%a: Tensor[(1, 2, 3, 4), float32]) { %0 = image.resize2d(%a, size=[5, 7]); %0 }",
       1e-6},
      {"r_resize_nn",
       "def @main(%a: Tensor[(2, 1, 4, 4), float32]) { %0 = image.resize2d(%a, size=[8, 6], "
       "method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", "
       "rounding_method=\"round_prefer_ceil\"); %0 }",
       0},
      {"r_resize_cubic",
       "def @main(%a: Tensor[(1, 1, 5, 5), float64]) { %0 = image.resize2d(%a, size=[9, 3], method=\"cubic\", "
       "cubic_exclude=true, coordinate_transformation_mode=\"align_corners\"); %0 }",
       1e-12},
      {"r_resize_crop",
       "def @main(%a: Tensor[(1, 2, 4, 4), float32]) { %0 = image.resize2d(%a, size=[6, 6], "
       "coordinate_transformation_mode=\"tf_crop_and_resize\", roi_y1=-0.25, roi_x1=0.1, roi_y2=0.8, "
       "roi_x2=1.3, extrapolation_value=2.5); %0 }",
       1e-6},
      {"r_resize_scale",
       "def @main(%a: Tensor[(1, 1, 3, 3), float32]) { %0 = image.resize2d(%a, size=[7, 7], scale_h=2.5, "
       "scale_w=2.5, coordinate_transformation_mode=\"pytorch_half_pixel\"); %0 }",
       1e-6},
  };
  cg_check_cases("onnx_rare", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

/* TVM's creation and _like ops (issue 40): fused into elementwise loops
 * (their second input read for its type only), views, and
 * collapse_sum_like as a sum over the broadcast axes. */
START_TEST(like_ops) {
  static const cg_case cases[] = {
      {"l_ones",
       F("%0 = ones_like(%a); %1 = add(%0, %b); %2 = zeros(shape=[3, 4]); %3 = add(%1, %2); "
         "%4 = ones(shape=[4], dtype=\"float32\"); %5 = add(%3, %4); %5"),
       0},
      {"l_full",
       F("%0 = full(const(int32, [], [3]), shape=[3, 4], dtype=\"float32\"); %1 = multiply(%0, %a); "
         "%2 = full_like(%b, const(float64, [], [0.5])); %3 = add(%1, %2); %3"),
       0},
      {"l_cast",
       F("%0 = multiply(%a, const(float32, [], [100])); %1 = cast_like(%0, const(int8, [2], [0, 0])); "
         "%2 = cast_like(%1, %b); %3 = add(%2, %b); %3"),
       0},
      {"l_shape",
       F("%0 = broadcast_to_like(%b, %a); %1 = add(%0, %a); %2 = reshape_like(%1, const(int8, [2, 6], "
         "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])); %3 = exp(%2); %3"),
       1e-6},
      {"l_collapse",
       F("%0 = collapse_sum_like(%a, %b); %1 = collapse_sum_like(%a, const(float32, [3, 1], [0, 0, 0])); "
         "%2 = sum(%1); %3 = add(%0, %2); %3"),
       1e-6},
  };
  cg_check_cases("onnx_like", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

START_TEST(index_out_of_range) {
  /* the evaluator raises a ValueError; the kernel returns 1 */
  void *h = compile_one("onnx_take",
                        "def @main(%a: Tensor[(3, 4), float32], %i: Tensor[(2,), int64]) { "
                        "%0 = take(%a, %i, axis=1); %0 }",
                        "k_take", "int32_t run(float *a, int64_t *i, float *o) { return k_take(a, i, o, NULL); }\n");
  int32_t (*run)(float *, int64_t *, float *) = (int32_t(*)(float *, int64_t *, float *))(uintptr_t)dlsym(h, "run");
  ck_assert(run != NULL);
  float a[12], o[6];
  for (int i = 0; i < 12; i++) a[i] = (float)i;
  int64_t idx[2] = {-4, 3};
  ck_assert_int_eq(run(a, idx, o), 0);
  ck_assert(o[0] == 0.0f && o[1] == 3.0f && o[2] == 4.0f && o[5] == 11.0f);
  idx[1] = 4;
  ck_assert_int_ne(run(a, idx, o), 0);
  idx[1] = -5;
  ck_assert_int_ne(run(a, idx, o), 0);
  dlclose(h);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c_onnx");
  TCase *tc = tcase_create("onnx");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, dtypes64);
  tcase_add_test(tc, elemwise_new);
  tcase_add_test(tc, mod_by_zero);
  tcase_add_test(tc, shape_ops);
  tcase_add_test(tc, matmul);
  tcase_add_test(tc, rare_ops);
  tcase_add_test(tc, index_out_of_range);
  tcase_add_test(tc, like_ops);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
