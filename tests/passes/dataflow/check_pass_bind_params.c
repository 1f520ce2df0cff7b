/* BindParams (dataflow/passes.h): params covering some parameters, none, a type
 * mismatch, skipped functions, the pass by name and in a pipeline. */
#include "check_ir_pass_util.h"

#define T4 "Tensor[(4,), float32]"
#define MAIN \
  IP_HEAD "def @main(%x: " T4 ", %w: " T4 ", %b: " T4 ") {\n  %0 = multiply(%x, %w);\n  %1 = add(%0, %b);\n  %1\n}\n"

static irm_object *tensor4(float a, float b, float c, float d) {
  float v[] = {a, b, c, d};
  int64_t shape[] = {4};
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, 1, v, &t));
  return t;
}

/* mod with params {keys[i]: values[i]} (values released). */
static irm_module *with_params(irm_module *mod, const char *const *keys, irm_object **values, size_t n) {
  irm_any items[8];
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(values[i]);
  irm_object *map = new_map(keys, items, n);
  irm_any v = irm_any_object(map);
  irm_module *out = NULL;
  ck_assert_ok(irm_module_with_attr(mod, "params", &v, &out));
  irm_object_release(map);
  for (size_t i = 0; i < n; i++) irm_object_release(values[i]);
  irm_object_release(mod);
  return out;
}

START_TEST(test_some_params_bound) {
  const char *keys[] = {"w", "unused"};
  irm_object *vals[] = {tensor4(1, 2, 3, 4), tensor4(0, 0, 0, 0)};
  irm_module *m = with_params(ip_parse(MAIN), keys, vals, 2), *out = NULL;
  ck_assert_ok(irm_dataflow_bind_params(m, &out));
  const char *wkeys[] = {"w", "unused"};
  irm_object *wvals[] = {tensor4(1, 2, 3, 4), tensor4(0, 0, 0, 0)};
  irm_module *want = with_params(ip_parse(IP_HEAD "def @main(%x: " T4 ", %b: " T4 ") {\n"
                                                  "  %0 = multiply(%x, const(float32, [4], [1, 2, 3, 4]));\n"
                                                  "  %1 = add(%0, %b);\n  %1\n}\n"),
                                 wkeys, wvals, 2);
  ip_assert_equal(out, want);
  /* same results: main(x, w, b) == bound(x, b) */
  irm_object *x = tensor4(1, -1, 2, -2), *w = tensor4(1, 2, 3, 4), *b = tensor4(5, 6, 7, 8);
  irm_any a3[] = {irm_any_object(x), irm_any_object(w), irm_any_object(b)}, a2[] = {a3[0], a3[2]};
  irm_object *in3 = new_array(a3, 3), *in2 = new_array(a2, 2);
  irm_object *r1 = ip_eval(m, "main", in3), *r2 = ip_eval(out, "main", in2);
  ip_assert_close(r1, r2);
  irm_object *all[] = {x, w, b, in3, in2, r1, r2, (irm_object *)m, (irm_object *)out, (irm_object *)want};
  for (size_t i = 0; i < 10; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_no_params_is_unchanged) {
  irm_module *m = ip_parse(MAIN), *out = NULL;
  ck_assert_ok(irm_dataflow_bind_params(m, &out)); /* no attribute */
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  m = with_params(m, NULL, NULL, 0); /* empty map */
  ck_assert_ok(irm_dataflow_bind_params(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  const char *keys[] = {"nothing"};
  irm_object *vals[] = {tensor4(0, 0, 0, 0)};
  m = with_params(m, keys, vals, 1); /* naming no parameter */
  ck_assert_ok(irm_dataflow_bind_params(m, &out));
  ck_assert_ptr_eq(out, m);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_type_mismatch) {
  const char *keys[] = {"b", "w"};
  int64_t shape[] = {2, 2};
  irm_object *vals[] = {tensor4(0, 0, 0, 0), ip_tensor(shape, 2, 1)};
  irm_module *m = with_params(ip_parse(MAIN), keys, vals, 2), *out = (irm_module *)&out;
  ck_assert_error(irm_dataflow_bind_params(m, &out), IRM_ETYPE,
                  "TypeError: in function 'main': params entry 'w' has type Tensor[(2, 2), float32], but parameter %w "
                  "is annotated Tensor[(4,), float32]");
  ck_assert_ptr_null(out);
  ck_assert_error(ip_run_named("BindParams", m, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("params entry 'w'");
  irm_object_release(m);
  /* not a tensor */
  const char *k2[] = {"w"};
  irm_object *v2[] = {new_string("zeros")};
  m = with_params(ip_parse(MAIN), k2, v2, 1);
  ck_assert_error(irm_dataflow_bind_params(m, &out), IRM_ETYPE,
                  "TypeError: in function 'main': params entry 'w' is a ffi.String, not a Tensor");
  irm_object_release(m);
}
END_TEST

START_TEST(test_unannotated_and_skipped) {
  const char *keys[] = {"w"};
  irm_object *vals[] = {tensor4(1, 1, 1, 1)};
  irm_module *m = with_params(ip_parse(IP_HEAD "def @main(%x: " T4 ", %w) {\n  %0 = add(%x, %w);\n  %0\n}\n"
                                               "def @ext(%w: " T4 ") attributes {Compiler = \"c\"} {\n  %w\n}\n"),
                              keys, vals, 1),
             *out = NULL;
  ck_assert_ok(irm_dataflow_bind_params(m, &out));
  ck_assert_uint_eq(irm_function_param_count(irm_module_function(out, "main")), 1);
  ck_assert_ptr_eq(irm_module_function(out, "ext"), irm_module_function(m, "ext"));
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_by_name_and_pipeline) {
  const char *keys[] = {"w", "b"};
  irm_object *vals[] = {tensor4(1, 2, 3, 4), tensor4(1, 1, 1, 1)};
  irm_module *m = with_params(ip_parse(MAIN), keys, vals, 2), *out = NULL, *out2 = NULL;
  ck_assert_ok(ip_pipeline("Sequential(BindParams,InferType)", m, &out));
  ck_assert_uint_eq(irm_function_param_count(irm_module_function(out, "main")), 1);
  irm_object_release(out);
  ck_assert_ok(ip_run_named("BindParams", m, &out));
  ck_assert_uint_eq(irm_function_param_count(irm_module_function(out, "main")), 1);
  ck_assert_ok(ip_run_named("BindParams", out, &out2)); /* nothing left to bind */
  ck_assert_ptr_eq(out2, out);
  irm_object_release(out2);
  irm_object_release(out);
  irm_object_release(m);
}
END_TEST

START_TEST(test_errors) {
  irm_module *out = (irm_module *)&out;
  irm_object *s = new_string("not a module");
  ck_assert_error(irm_dataflow_bind_params((irm_module *)s, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(out);
  irm_module *m = ip_parse(MAIN);
  ck_assert_error(irm_dataflow_bind_params(m, NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_bind_params: out must not be NULL");
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_bind_params");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_some_params_bound);
  tcase_add_test(tc, test_no_params_is_unchanged);
  tcase_add_test(tc, test_type_mismatch);
  tcase_add_test(tc, test_unannotated_and_skipped);
  tcase_add_test(tc, test_by_name_and_pipeline);
  tcase_add_test(tc, test_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
