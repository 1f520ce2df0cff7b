/* Kernel deduplication (docs/codegen.md, "Deduplication"): fused calls of
 * one workload share one kernel in both executors. The example models
 * built with codegen.dedup_kernels on and off give bit-identical outputs
 * (aot and graph); two calls that differ only in their weights share a
 * kernel, whose steps pass each call's own weights; calls that differ in
 * an inline scalar or a shape do not; the option is read from the module
 * attribute and from the PassContext, and a bad value is refused. */
#include "check_aot_util.h"
#include "irm/pass_context.h"

static const char *const models[] = {"cnn", "mlp", "residual"};

/* dense -> relu twice, square weights bound as params: after FuseOps two
 * Primitive functions equal but for their (lifted) weights. */
#define TWO_DENSE(W2, SCALE1, SCALE2)                                                                        \
  IP_HEAD "def @main(%x: Tensor[(2, 16), float32], %w1: Tensor[(16, 16), float32], %w2: Tensor[" W2 "]) {\n" \
          "  %0 = nn.dense(%x, %w1);\n  %1 = multiply(%0, const(float32, [], [" SCALE1 "]));\n"              \
          "  %2 = nn.relu(%1);\n  %3 = nn.dense(%2, %w2);\n"                                                 \
          "  %4 = multiply(%3, const(float32, [], [" SCALE2 "]));\n  %5 = nn.relu(%4);\n  %5\n}\n"
#define SQUARE "(16, 16), float32"

static irm_object *dense_params(int64_t rows2) {
  int64_t s1[] = {16, 16}, s2[] = {rows2, 16};
  irm_any w[] = {irm_any_object(seeded_tensor(s1, 2, 31)), irm_any_object(seeded_tensor(s2, 2, 32))};
  const char *keys[] = {"w1", "w2"};
  irm_object *p = new_map(keys, w, 2);
  irm_any_release(&w[0]);
  irm_any_release(&w[1]);
  return p;
}

/* m with codegen.dedup_kernels = on; NEW. */
static irm_module *with_dedup(const irm_module *m, bool on) {
  irm_any v = irm_any_bool(on);
  irm_module *out = NULL;
  ck_assert_ok(irm_module_with_attr(m, "codegen.dedup_kernels", &v, &out));
  return out;
}

static irm_object *executor_of(bool graph, const char **runtime) {
  if (!graph) return aot_config(0, runtime);
  *runtime = "cpp";
  return bu_executor("graph", "link-params", irm_any_bool(true));
}

/* The kernels the build's C artifacts define, the symbols into syms (a
 * copy of each "tvmgen_<name>_fused_..." up to its '('): the definitions
 * (the line ends with the body's brace; the glue's prototypes with ';'). */
static size_t kernels_of(const irm_object *result, const char *name, char syms[][128], size_t max) {
  char prefix[96];
  snprintf(prefix, sizeof prefix, "\nIRM_KERNEL_LINKAGE int32_t tvmgen_%s_fused_", name);
  size_t n = 0;
  irm_map_iter it = irm_map_iter_begin(bu_part(result, "artifacts"));
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) {
    const char *file = irm_string_data(k);
    size_t len = strlen(file);
    if (len < 2 || strcmp(file + len - 2, ".c") != 0) continue;
    for (const char *at = strstr(irm_string_data(v->v_obj), prefix); at; at = strstr(at + 1, prefix)) {
      const char *nl = strchr(at + 1, '\n');
      if (!nl || nl[-1] != '{') continue; /* a prototype */
      if (n < max) {
        const char *s = at + strlen("\nIRM_KERNEL_LINKAGE int32_t "), *e = strchr(s, '(');
        snprintf(syms[n], 128, "%.*s", (int)(e - s), s);
      }
      n++;
    }
  }
  return n;
}

static size_t count_kernels(const irm_object *result, const char *name) {
  char syms[1][128];
  return kernels_of(result, name, syms, 0);
}

/* main's outputs of the loaded module on inputs (the first n_data of all). */
static irm_object *run_loaded(const irm_object *loaded, const irm_object *all, size_t n_data) {
  irm_any *data = calloc(n_data + 1, sizeof *data);
  for (size_t i = 0; i < n_data; i++) data[i] = *irm_array_at(all, i);
  irm_object *in = new_array(data, n_data), *outs = NULL;
  free(data);
  int rc = irm_runtime_module_run(loaded, in, &outs);
  ck_require(rc == 0, "run failed: %s", irm_last_error());
  irm_object_release(in);
  return outs;
}

static void assert_identical(const irm_object *a, const irm_object *b) {
  ck_assert_uint_eq(irm_array_size(a), irm_array_size(b));
  for (size_t j = 0; j < irm_array_size(a); j++) {
    const irm_tensor *x = (const irm_tensor *)irm_array_at(a, j)->v_obj,
                     *y = (const irm_tensor *)irm_array_at(b, j)->v_obj;
    ck_assert_uint_eq(irm_tensor_nbytes(x), irm_tensor_nbytes(y));
    ck_assert_int_eq(memcmp(irm_tensor_dl(x)->data, irm_tensor_dl(y)->data, irm_tensor_nbytes(x)), 0);
  }
}

/* Builds m (params may be NULL) with dedup on and off for the executor,
 * checks the counts (on <= off), runs both on the same seeded inputs and
 * compares them bitwise, and the deduplicated one with ir.Evaluate. *on
 * and *off: the kernel counts. */
static void on_and_off(const irm_module *m, const irm_object *params, bool graph, const char *tag, size_t *on,
                       size_t *off) {
  const char *rt = NULL, *name = irm_module_mod_name(m) ? irm_module_mod_name(m) : "net";
  irm_object *e = executor_of(graph, &rt), *outs[2] = {NULL, NULL};
  size_t n_data = 1, counts[2];
  irm_object *all = bu_main_inputs(m, params, n_data, 77);
  for (int i = 0; i < 2; i++) {
    irm_module *d = with_dedup(m, i == 0);
    irm_object *r = aot_build(d, "c", e, rt, params, name);
    counts[i] = count_kernels(r, name);
    char t[96];
    snprintf(t, sizeof t, "dedup_%s_%s_%s", tag, graph ? "graph" : "aot", i == 0 ? "on" : "off");
    irm_object *loaded = aot_export_load(r, t);
    outs[i] = run_loaded(loaded, all, n_data);
    if (i == 0) aot_compare_with(d, params, loaded, n_data, 77);
    irm_object_release(loaded);
    irm_object_release(r);
    irm_object_release(d);
  }
  assert_identical(outs[0], outs[1]);
  ck_assert_uint_le(counts[0], counts[1]);
  *on = counts[0];
  *off = counts[1];
  irm_object_release(outs[0]);
  irm_object_release(outs[1]);
  irm_object_release(all);
  irm_object_release(e);
}

START_TEST(test_example_models_identical) {
  irm_module *m = aot_example(models[_i / 2]);
  size_t on = 0, off = 0;
  on_and_off(m, NULL, _i % 2, models[_i / 2], &on, &off);
  ck_assert_uint_gt(on, 0);
  irm_object_release(m);
}
END_TEST

/* Only the weights differ: one kernel, called twice, each call with its
 * own weight (the result matches ir.Evaluate in on_and_off); without
 * dedup, two kernels. Both executors. */
START_TEST(test_weights_only_share) {
  irm_module *m = parse_module(TWO_DENSE(SQUARE, "2", "2"));
  irm_object *p = dense_params(16);
  size_t on = 0, off = 0;
  on_and_off(m, p, _i, "weights", &on, &off);
  ck_assert_uint_eq(on, 1);
  ck_assert_uint_eq(off, 2);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

/* An inline scalar differs (2 and 3), or the second weight's shape: two
 * kernels either way. */
START_TEST(test_scalar_or_shape_differs) {
  irm_module *m = parse_module(_i == 0 ? TWO_DENSE(SQUARE, "2", "3") : TWO_DENSE("(8, 16), float32", "2", "2"));
  irm_object *p = dense_params(_i == 0 ? 16 : 8);
  size_t on = 0, off = 0;
  on_and_off(m, p, false, _i == 0 ? "scalar" : "shape", &on, &off);
  ck_assert_uint_eq(on, 2);
  ck_assert_uint_eq(off, 2);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

/* The kernel's name keeps its form; the metadata counts the kernels and
 * the aot source header the steps. */
START_TEST(test_names_and_metadata) {
  irm_module *m = parse_module(TWO_DENSE(SQUARE, "2", "2"));
  irm_object *p = dense_params(16), *e = executor_of(false, &(const char *){NULL});
  irm_object *r = aot_build(m, "c", e, "crt", p, "net");
  char syms[4][128];
  ck_assert_uint_eq(kernels_of(r, "net", syms, 4), 1);
  ck_assert_str_eq(syms[0], "tvmgen_net_fused_nn_dense_multiply_nn_relu_0");
  const char *c = irm_string_data(aot_artifact(r, "tvmgen_net.c"));
  ck_assert_ptr_nonnull(strstr(c, "1 kernels, 2 steps"));
  ck_assert_ptr_nonnull(strstr(c, "\\\"kernels\\\": 1"));
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

/* The PassContext option migrates onto the module attribute; a value
 * that is not a bool is refused, naming the option. */
START_TEST(test_pass_context_option) {
  irm_module *m = parse_module(TWO_DENSE(SQUARE, "2", "2"));
  irm_object *p = dense_params(16), *e = executor_of(false, &(const char *){NULL});
  const char *key = "codegen.dedup_kernels";
  irm_any off = irm_any_bool(false);
  irm_object *config = new_map(&key, &off, 1);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, config, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_object *r = aot_build(m, "c", e, "crt", p, "net");
  ck_assert_ok(irm_pass_context_exit(ctx));
  ck_assert_uint_eq(count_kernels(r, "net"), 2);
  irm_object_release(r);
  r = aot_build(m, "c", e, "crt", p, "net"); /* outside the context: the default, on */
  ck_assert_uint_eq(count_kernels(r, "net"), 1);
  irm_object_release(r);
  irm_any bad = irm_any_str("no");
  irm_object *bad_config = new_map(&key, &bad, 1);
  irm_pass_context *bad_ctx = NULL;
  ck_assert_int_eq(irm_pass_context_new(2, NULL, NULL, bad_config, NULL, &bad_ctx), IRM_ETYPE);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), key));
  irm_object_release(bad_config);
  irm_module *b = NULL;
  ck_assert_int_ne(irm_module_with_attr(m, key, &bad, &b), IRM_OK);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), key));
  ck_assert_ptr_null(b);
  irm_object_release((irm_object *)ctx);
  irm_object_release(config);
  irm_object_release(e);
  irm_object_release(p);
  irm_object_release(m);
}
END_TEST

static Suite *dedup_suite(void) {
  Suite *s = suite_create("dedup");
  TCase *tc = tcase_create("dedup");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_example_models_identical, 0, 6);
  tcase_add_loop_test(tc, test_weights_only_share, 0, 2);
  tcase_add_loop_test(tc, test_scalar_or_shape_differs, 0, 2);
  tcase_add_test(tc, test_names_and_metadata);
  tcase_add_test(tc, test_pass_context_option);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(dedup_suite()); }
