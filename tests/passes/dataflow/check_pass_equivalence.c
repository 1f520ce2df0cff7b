/* Every built-in IR pass, alone and in pipelines, keeps what a program
 * computes: the example models (ir.ExampleModel) and random programs over
 * the built-in ops (dataflow_gen_ops.h) are evaluated with ir.Evaluate before and
 * after, on the same seeded inputs, and must agree within 1e-4 relative
 * (float32); ir.Verify must pass on every result.
 *
 * Passes not registered in this build are skipped, so the suite covers
 * each pass as soon as it exists. Inputs are matched to parameters by
 * name: a parameter BindParams turns into a constant simply disappears
 * from the list, and every other one keeps its value. */
#include <math.h>
#include <stdio.h>

#include "check_util.h"
#include "dataflow_gen_ops.h"

static const char *const pass_names[] = {"InferType",     "BindParams",          "SimplifyExpr",
                                         "FoldConstant",  "DeadCodeElimination", "FuseOps",
                                         "ConvertLayout", "SimplifyInference",   "FoldScaleAxis"};
enum { N_PASSES = sizeof pass_names / sizeof pass_names[0] };

static int registered(const char *name) {
  irm_object *names = NULL;
  ck_assert_ok(irm_pass_list(&names));
  int found = array_has_string(names, name);
  irm_object_release(names);
  return found;
}

static uint64_t fnv(const char *s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001B3ull;
  return h;
}

/* A tensor of type with values uniform in [-1, 1) from seed. NEW. */
static irm_object *seeded(const irm_object *type, uint64_t seed) {
  irm_object *t = NULL;
  ck_assert_ok(
      irm_tensor_new(irm_tensor_type_dtype(type), irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL, &t));
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    irm_tensor_set_f64(t, i, (double)(z >> 40) / 8388608.0 - 1.0);
  }
  return t;
}

/* The inputs of m's @main, by parameter name: the value in `params` when
 * there is one (what BindParams would bind), else seeded from the name. */
static irm_object *inputs_of(const irm_module *m, uint64_t seed) {
  irm_object *f = irm_module_function(m, "main"), *params = irm_module_params(m), *inputs = NULL;
  ck_assert_ptr_nonnull(f);
  ck_assert_ok(irm_array_new(NULL, 0, &inputs));
  for (size_t i = 0; i < irm_function_param_count(f); i++) {
    irm_object *var = irm_function_param(f, i), *t = NULL;
    const irm_any *bound = params ? irm_map_find_cstr(params, irm_var_name(var)) : NULL;
    if (bound) {
      t = bound->v_obj;
      irm_object_retain(t);
    } else {
      t = seeded(irm_expr_type(var), seed ^ fnv(irm_var_name(var)));
    }
    irm_any v = irm_any_object(t);
    ck_assert_ok(irm_array_append_move(&inputs, &v));
    irm_object_release(t);
  }
  return inputs;
}

static irm_any evaluate(const irm_module *m, uint64_t seed, const char *what) {
  irm_object *inputs = inputs_of(m, seed);
  irm_any out = irm_any_none();
  int rc = irm_dataflow_evaluate(m, "main", inputs, &out);
  irm_object_release(inputs);
  if (rc) {
    char *err = strdup(irm_last_error());
    irm_object *text = NULL;
    (void)irm_dataflow_print(m, &text);
    ck_abort_msg("%s: evaluate failed: %s\n%s", what, err, text ? irm_string_data(text) : "");
  }
  return out;
}

/* The largest magnitude in a tensor, NaN and infinities aside. */
static double max_abs(const irm_object *t) {
  double m = 0;
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    double x = fabs(irm_tensor_get_f64(t, i));
    if (isfinite(x) && x > m) m = x;
  }
  return m;
}

/* a and b (Tensors, or Arrays of results) agree: same shapes and dtypes;
 * each element within 1e-4 of the larger magnitude, plus a little of the
 * tensor's scale for values that cancel to near zero; NaN and infinities
 * where the other has them. */
static void assert_same_result(const irm_any *a, const irm_any *b, const char *what) {
  ck_require(a->type_code == IRM_OBJECT && b->type_code == IRM_OBJECT, "%s: a result is not an object", what);
  if (irm_object_is(a->v_obj, "ffi.Array")) {
    ck_require(irm_object_is(b->v_obj, "ffi.Array") && irm_array_size(a->v_obj) == irm_array_size(b->v_obj),
               "%s: a tuple became something else", what);
    for (size_t i = 0; i < irm_array_size(a->v_obj); i++)
      assert_same_result(irm_array_at(a->v_obj, i), irm_array_at(b->v_obj, i), what);
    return;
  }
  const DLTensor *x = irm_tensor_dl(a->v_obj), *y = irm_tensor_dl(b->v_obj);
  ck_require(x && y, "%s: a result is not a tensor", what);
  ck_require(irm_dtype_equal(x->dtype, y->dtype) && x->ndim == y->ndim, "%s: dtype or rank changed", what);
  for (int i = 0; i < x->ndim; i++) ck_require(x->shape[i] == y->shape[i], "%s: dimension %d changed", what, i);
  double scale = max_abs(a->v_obj);
  for (int64_t i = 0; i < irm_tensor_numel(a->v_obj); i++) {
    double p = irm_tensor_get_f64(a->v_obj, i), q = irm_tensor_get_f64(b->v_obj, i);
    if (isnan(p) || isnan(q) || isinf(p) || isinf(q)) {
      ck_require((isnan(p) && isnan(q)) || p == q, "%s: element %lld: %g before, %g after", what, (long long)i, p, q);
      continue;
    }
    double tol = 1e-4 * fmax(fabs(p), fabs(q)) + 1e-6 * scale;
    ck_require(fabs(p - q) <= tol, "%s: element %lld: %.9g before, %.9g after", what, (long long)i, p, q);
  }
}

/* Runs pass on m, which must succeed and give a module ir.Verify accepts;
 * then checks the result computes what ref holds. NEW. */
static irm_module *run_and_compare(irm_pass *pass, irm_module *m, const irm_any *ref, uint64_t seed, const char *what) {
  irm_module *out = NULL;
  int rc = irm_pass_run(pass, m, &out);
  if (rc) {
    char *err = strdup(irm_last_error());
    irm_object *text = NULL;
    (void)irm_dataflow_print(m, &text);
    ck_abort_msg("%s: the pass failed: %s\n%s", what, err, text ? irm_string_data(text) : "");
  }
  rc = irm_dataflow_verify(out);
  ck_require(rc == 0, "%s: ir.Verify: %s", what, irm_last_error());
  irm_any got = evaluate(out, seed, what);
  assert_same_result(ref, &got, what);
  irm_any_release(&got);
  return out;
}

static void run_pipeline(const char *text, irm_module *m, const irm_any *ref, uint64_t seed, const char *label) {
  irm_pass *p = NULL;
  int rc = irm_pipeline_parse(text, &p);
  ck_require(rc == 0, "%s: pipeline %s: %s", label, text, irm_last_error());
  char what[512];
  snprintf(what, sizeof what, "%s: %s", label, text);
  irm_module *out = run_and_compare(p, m, ref, seed, what);
  irm_object_release(out);
  irm_object_release(p);
}

/* `Sequential(A,B,...)` of the names of want that are registered; "" when
 * none is. */
static void registered_pipeline(char *buf, size_t size, const char *const *want, size_t n) {
  size_t used = (size_t)snprintf(buf, size, "Sequential(");
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = want[i];
    char base[64];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(name, "{"), name);
    if (!registered(base)) continue;
    used += (size_t)snprintf(buf + used, size - used, "%s%s", any ? "," : "", name);
    any = 1;
  }
  snprintf(buf + used, size - used, ")");
  if (!any) buf[0] = '\0';
}

/* m with the module attribute data_layout = layout. NEW. */
static irm_module *with_layout(irm_module *m, const char *layout) {
  irm_module *out = NULL;
  irm_any v = irm_any_str(layout);
  ck_assert_ok(irm_module_with_attr(m, "data_layout", &v, &out));
  return out;
}

/* Every registered pass on m and on m after InferType, then the
 * pipelines. */
static void check_program(irm_module *m, uint64_t seed, const char *label) {
  irm_any ref = evaluate(m, seed, label);
  irm_module *typed = m;
  irm_object_retain(typed);
  if (registered("InferType")) {
    irm_pass *it = NULL;
    ck_assert_ok(irm_pass_get("InferType", NULL, &it));
    irm_object_release(typed);
    char what[256];
    snprintf(what, sizeof what, "%s: InferType", label);
    typed = run_and_compare(it, m, &ref, seed, what);
    irm_object_release(it);
  }
  for (size_t i = 0; i < N_PASSES; i++) {
    if (!registered(pass_names[i])) continue;
    irm_pass *p = NULL;
    ck_assert_ok(irm_pass_get(pass_names[i], NULL, &p));
    for (int t = 0; t < 2; t++) {
      irm_module *in = t ? typed : m;
      int layout = strcmp(pass_names[i], "ConvertLayout") == 0;
      if (layout) in = with_layout(in, "NHWC");
      else irm_object_retain(in);
      char what[256];
      snprintf(what, sizeof what, "%s: %s (%s input)", label, pass_names[i], t ? "typed" : "untyped");
      irm_module *out = run_and_compare(p, in, &ref, seed, what);
      irm_object_release(out);
      irm_object_release(in);
    }
    irm_object_release(p);
  }

  static const char *const full[] = {"InferType",           "BindParams", "SimplifyInference", "FoldConstant",
                                     "FoldScaleAxis",       "InferType",  "SimplifyExpr",      "FoldConstant",
                                     "DeadCodeElimination", "FuseOps"};
  static const char *const shallow[] = {"InferType", "BindParams", "FoldConstant", "FuseOps{max_depth=1}",
                                        "DeadCodeElimination"};
  static const char *const layout[] = {"InferType",    "BindParams",   "ConvertLayout",       "InferType",
                                       "SimplifyExpr", "FoldConstant", "DeadCodeElimination", "FuseOps{max_depth=3}"};
  char text[512];
  registered_pipeline(text, sizeof text, full, sizeof full / sizeof full[0]);
  if (text[0]) run_pipeline(text, m, &ref, seed, label);
  registered_pipeline(text, sizeof text, shallow, sizeof shallow / sizeof shallow[0]);
  if (text[0]) run_pipeline(text, typed, &ref, seed, label);
  if (registered("ConvertLayout")) {
    registered_pipeline(text, sizeof text, layout, sizeof layout / sizeof layout[0]);
    irm_module *nhwc = with_layout(m, "NHWC");
    run_pipeline(text, nhwc, &ref, seed, label);
    irm_object_release(nhwc);
  }
  irm_object_release(typed);
  irm_any_release(&ref);
}

/* ---- the example models ----------------------------------------------------------------- */

START_TEST(example_models_keep_their_results) {
  irm_object *names = NULL;
  ck_assert_ok(irm_dataflow_example_model_names(&names));
  ck_assert_int_lt(_i, (int)irm_array_size(names));
  const char *name = irm_string_data(irm_array_at(names, (size_t)_i)->v_obj);
  irm_module *m = NULL;
  ck_assert_ok(irm_dataflow_example_model(name, &m));
  char label[64];
  snprintf(label, sizeof label, "model %s", name);
  check_program(m, 42, label);
  irm_object_release(m);
  irm_object_release(names);
}
END_TEST

/* ---- random programs -------------------------------------------------------------------- */

enum { SEEDS_PER_RUN = 12 };

START_TEST(random_programs_keep_their_results) {
  for (int k = 0; k < SEEDS_PER_RUN; k++) {
    uint64_t seed = (uint64_t)(_i * SEEDS_PER_RUN + k + 1);
    size_t calls = 4 + (size_t)(seed * 7 % 37);
    irm_module *m = irm_test_random_op_module(seed, calls);
    ck_require(m != NULL, "seed %llu: generator failed: %s", (unsigned long long)seed, irm_last_error());
    /* the generator's programs are well formed and type-check */
    ck_require(irm_dataflow_verify(m) == 0, "seed %llu: ir.Verify: %s", (unsigned long long)seed, irm_last_error());
    char label[64];
    snprintf(label, sizeof label, "random program %llu (%zu calls)", (unsigned long long)seed, calls);
    check_program(m, seed, label);
    irm_object_release(m);
  }
}
END_TEST

/* The generator itself: the same seed gives the same program, and the
 * programs use what the passes work on. */
START_TEST(generator_is_deterministic_and_varied) {
  irm_module *a = irm_test_random_op_module(7, 30), *b = irm_test_random_op_module(7, 30);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  irm_any x = irm_any_object(a), y = irm_any_object(b);
  ck_assert(equal(&x, &y));
  irm_object_release(a);
  irm_object_release(b);
  /* across seeds: every op family appears */
  static const char *const wanted[] = {"nn.conv2d(", "nn.dense(",   "nn.bias_add(", "reshape(",
                                       "transpose(", "let %",       "@helper",      "fn (",
                                       "sum(",       "nn.softmax(", "%w",           "params"};
  int seen[sizeof wanted / sizeof wanted[0]] = {0};
  for (uint64_t seed = 1; seed <= 40; seed++) {
    irm_module *m = irm_test_random_op_module(seed, 40);
    ck_assert_ptr_nonnull(m);
    irm_object *text = NULL;
    ck_assert_ok(irm_dataflow_print(m, &text));
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
      seen[i] |= strstr(irm_string_data(text), wanted[i]) != NULL;
    irm_object_release(text);
    irm_object_release(m);
  }
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) ck_require(seen[i], "no program has %s", wanted[i]);
  /* chains type-check to their declared result */
  irm_module *chain = irm_test_op_chain(3, 100);
  ck_assert_ptr_nonnull(chain);
  ck_assert_ok(irm_dataflow_verify(chain));
  irm_any out = evaluate(chain, 1, "chain");
  ck_assert_int_eq(irm_tensor_numel(out.v_obj), 8);
  irm_any_release(&out);
  irm_object_release(chain);
}
END_TEST

int main(void) {
  Suite *s = suite_create("pass_equivalence");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, example_models_keep_their_results, 0, 3);
  tcase_add_loop_test(tc, random_programs_keep_their_results, 0, 6);
  tcase_add_test(tc, generator_is_deterministic_and_varied);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
