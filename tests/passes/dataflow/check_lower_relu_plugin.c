/* The example plugin pass LowerRelu (examples/plugins/lower_relu_plugin.c,
 * shown in README.md): loaded as a plugin, it rewrites float32 relus
 * through the public rewriter, reads its setting from the pipeline, the
 * module attribute or the PassContext, leaves fused (Primitive) functions
 * alone, and returns its input when there is nothing to do. */
#include <check.h>
#include <string.h>

#include "check_ir_pass_util.h"

#ifndef IRM_TEST_LOWER_RELU_PLUGIN
#error "IRM_TEST_LOWER_RELU_PLUGIN must name the built plugin"
#endif

static const char *const two_relus =
    IP_HEAD "def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] {\n"
            "  %0 = nn.relu(%x);\n"
            "  %1 = add(%0, %y);\n"
            "  %2 = nn.relu(%1);\n"
            "  %2\n"
            "}\n";

static void setup(void) { ck_assert_ok(irm_plugin_load(IRM_TEST_LOWER_RELU_PLUGIN)); }

static irm_object *inputs(void) {
  const int64_t shape[] = {2, 3};
  irm_object *x = ip_tensor(shape, 2, 1), *y = ip_tensor(shape, 2, 2), *arr = NULL;
  irm_any items[2] = {irm_any_object(x), irm_any_object(y)};
  ck_assert_ok(irm_array_new(items, 2, &arr));
  irm_object_release(x);
  irm_object_release(y);
  return arr;
}

/* Runs pipeline on two_relus; *text the result's text (free it). */
static irm_module *lowered(const char *pipeline, irm_module *mod, char **text) {
  irm_module *out = NULL;
  int rc = ip_pipeline(pipeline, mod, &out);
  ck_require(rc == 0, "%s: %s", pipeline, irm_last_error());
  *text = ip_text(out);
  return out;
}

START_TEST(test_relu_becomes_maximum_with_zero_and_computes_the_same) {
  irm_module *mod = ip_parse(two_relus);
  char *text = NULL;
  irm_module *out = lowered("Sequential(LowerRelu)", mod, &text); /* InferType runs first: required */
  ck_assert_msg(strstr(text, "maximum(%x, const(float32, [], [0]))") && !strstr(text, "nn.relu"), "%s", text);
  irm_object *in = inputs();
  ip_assert_same_result(mod, out, in);
  irm_object_release(in);
  free(text);
  irm_object_release(out);
  irm_object_release(mod);
}
END_TEST

/* maximum(x, s * x) is x for x >= 0 and s * x below. */
static void assert_leaky(irm_module *mod, irm_module *out, double slope) {
  irm_object *in = inputs();
  irm_object *got = ip_eval(out, "main", in), *x = irm_array_at(in, 0)->v_obj, *y = irm_array_at(in, 1)->v_obj;
  for (int64_t i = 0; i < 6; i++) {
    double a = irm_tensor_get_f64(x, i), b = irm_tensor_get_f64(y, i);
    double first = a > 0 ? a : slope * a, second = first + b;
    double want = second > 0 ? second : slope * second;
    ck_assert_double_eq_tol(irm_tensor_get_f64(got, i), want, 1e-5);
  }
  (void)mod;
  irm_object_release(got);
  irm_object_release(in);
}

START_TEST(test_a_pipeline_option_makes_it_leaky) {
  irm_module *mod = ip_parse(two_relus);
  char *text = NULL;
  irm_module *out = lowered("Sequential(LowerRelu{negative_slope=0.5})", mod, &text);
  ck_assert_msg(strstr(text, "multiply(%x, const(float32, [], [0.5]))"), "%s", text);
  assert_leaky(mod, out, 0.5);
  free(text);
  irm_object_release(out);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_the_module_attribute_then_the_context_give_the_slope) {
  irm_module *base = ip_parse(two_relus), *mod = NULL;
  irm_any quarter = irm_any_float(0.25);
  ck_assert_ok(irm_module_with_attr(base, "LowerRelu.negative_slope", &quarter, &mod));
  char *text = NULL;
  irm_module *out = lowered("Sequential(LowerRelu)", mod, &text);
  assert_leaky(mod, out, 0.25);
  free(text);
  irm_object_release(out);
  /* without the attribute: the PassContext's value */
  irm_object *cfg = NULL;
  const char *keys[] = {"LowerRelu.negative_slope"};
  irm_any values[] = {irm_any_float(0.125)};
  ck_assert_ok(irm_map_from_pairs(keys, values, 1, &cfg));
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  out = lowered("Sequential(LowerRelu)", base, &text);
  assert_leaky(base, out, 0.125);
  ck_assert_ok(irm_pass_context_exit(ctx));
  free(text);
  irm_object_release(out);
  irm_object_release(ctx);
  irm_object_release(cfg);
  irm_object_release(mod);
  irm_object_release(base);
}
END_TEST

START_TEST(test_fused_primitive_functions_are_left_alone) {
  irm_module *mod = ip_parse(two_relus);
  char *text = NULL;
  irm_module *out = lowered("Sequential(InferType,FuseOps,LowerRelu)", mod, &text);
  ck_assert_msg(strstr(text, "Primitive") && strstr(text, "nn.relu") && !strstr(text, "maximum"), "%s", text);
  free(text);
  irm_object_release(out);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_nothing_to_lower_returns_the_input_itself) {
  irm_module *mod = ip_typed(IP_HEAD "def @main(%x: Tensor[(2,), int32]) -> Tensor[(2,), int32] {\n"
                                     "  %0 = nn.relu(%x);\n"
                                     "  %0\n"
                                     "}\n");
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("LowerRelu", NULL, &p));
  irm_module *out = NULL;
  ck_assert_ok(irm_pass_run(p, mod, &out));
  ck_assert_ptr_eq(out, mod); /* int32: not ours; unchanged fast path */
  irm_object_release(out);
  irm_object_release(p);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_a_bad_slope_is_an_error_naming_the_pass_and_option) {
  irm_module *mod = ip_parse(two_relus), *out = NULL;
  ck_assert_error(ip_pipeline("Sequential(LowerRelu{negative_slope=steep})", mod, &out), IRM_EVALUE,
                  "ValueError: pipeline 'Sequential(LowerRelu{negative_slope=steep})': option 'negative_slope' of "
                  "pass 'LowerRelu'");
  ck_assert_ptr_null(out);
  irm_object_release(mod);
}
END_TEST

static Suite *lower_relu_suite(void) {
  Suite *s = suite_create("lower_relu_plugin");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_relu_becomes_maximum_with_zero_and_computes_the_same);
  tcase_add_test(tc, test_a_pipeline_option_makes_it_leaky);
  tcase_add_test(tc, test_the_module_attribute_then_the_context_give_the_slope);
  tcase_add_test(tc, test_fused_primitive_functions_are_left_alone);
  tcase_add_test(tc, test_nothing_to_lower_returns_the_input_itself);
  tcase_add_test(tc, test_a_bad_slope_is_an_error_naming_the_pass_and_option);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(lower_relu_suite()); }
