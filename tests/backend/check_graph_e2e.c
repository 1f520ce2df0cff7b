/* The graph executor end to end (docs/graph.md): the example CNN, MLP,
 * residual and a two-output model built with graph + cpp, exported, run
 * through the graph runner from irm (runtime.Load) and from C
 * (irm_graph_runner.h) on seeded inputs, compared with ir.Evaluate; link
 * params on and off; a missing or mismatched params file. */
#include <unistd.h>

#include "check_graph_util.h"
#include "irm_graph_runner.h"

static const char *const models[] = {"cnn", "mlp", "residual", "two_outputs"};

static void compare(const irm_object *want, const irm_object *got) {
  ck_assert_uint_eq(irm_array_size(got), irm_array_size(want));
  for (size_t j = 0; j < irm_array_size(got); j++) assert_close(irm_array_at(want, j), irm_array_at(got, j), 1e-4);
}

/* Exports model name (link-params as given) into <name>_<link>/lib.so. */
static irm_module *export_model(const char *name, int link, char *path, size_t size, size_t *n_data,
                                irm_object **inputs) {
  irm_module *m = graph_example(name);
  irm_object *params = graph_params(name);
  irm_object *r = graph_build(m, link, params, name);
  char tag[64];
  snprintf(tag, sizeof tag, "%s_%d", name, link);
  graph_export(r, tag, path, size);
  *n_data = graph_n_data(m, params);
  *inputs = bu_main_inputs(m, params, *n_data, 100 + (uint64_t)link);
  irm_object_release(r);
  irm_object_release(params);
  return m;
}

START_TEST(test_examples_through_runtime_load) {
  const char *name = models[_i / 2];
  int link = _i % 2;
  char path[1024];
  size_t n_data = 0;
  irm_object *all = NULL;
  irm_module *m = export_model(name, link, path, sizeof path, &n_data, &all);
  irm_object *loaded = NULL;
  int rc = irm_runtime_load(path, &loaded);
  ck_require(rc == 0, "load failed: %s", irm_last_error());
  irm_object *meta = NULL;
  ck_assert_ok(irm_runtime_module_metadata(loaded, &meta));
  ck_assert_ptr_nonnull(strstr(irm_string_data(meta), "\"executor\": \"graph\""));
  irm_object_release(meta);
  irm_any *data = calloc(n_data + 1, sizeof *data);
  for (size_t i = 0; i < n_data; i++) data[i] = *irm_array_at(all, i);
  irm_object *run_in = new_array(data, n_data), *outs = NULL, *want = graph_expected(m, all);
  rc = irm_runtime_module_run(loaded, run_in, &outs);
  ck_require(rc == 0, "run failed: %s", irm_last_error());
  compare(want, outs);
  /* a wrong input is refused, naming it */
  irm_object_release(outs);
  outs = NULL;
  irm_object *none = new_array(NULL, 0);
  ck_assert_int_eq(irm_runtime_module_run(loaded, none, &outs), IRM_EVALUE);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "inputs"));
  irm_object_release(none);
  free(data);
  irm_object_release(want);
  irm_object_release(run_in);
  irm_object_release(all);
  irm_object_release(loaded);
  irm_object_release(m);
}
END_TEST

static DLTensor view(const irm_object *t) { return *irm_tensor_dl((const irm_tensor *)t); }

START_TEST(test_examples_through_the_c_runner) {
  const char *name = models[_i];
  char path[1024], err[512];
  size_t n_data = 0;
  irm_object *all = NULL;
  irm_module *m = export_model(name, 0, path, sizeof path, &n_data, &all);
  irm_graph_runner *r = NULL;
  int rc = irm_graph_runner_load(path, &r, err, sizeof err);
  ck_require(rc == 0, "runner load failed: %s", err);
  ck_assert_uint_eq(irm_graph_runner_num_inputs(r), n_data);
  irm_object *main = irm_module_function(m, "main");
  for (size_t i = 0; i < n_data; i++) { /* by name, as TVM's set_input */
    DLTensor t = view(irm_array_at(all, i)->v_obj);
    const char *in_name = irm_var_name(irm_function_param(main, i));
    ck_assert_int_eq(irm_graph_runner_set_input_by_name(r, in_name, &t), IRM_GRAPH_OK);
  }
  ck_assert_int_eq(irm_graph_runner_run(r), IRM_GRAPH_OK);
  irm_object *want = graph_expected(m, all);
  ck_assert_uint_eq(irm_graph_runner_num_outputs(r), irm_array_size(want));
  for (size_t j = 0; j < irm_array_size(want); j++) {
    const irm_object *w = irm_array_at(want, j)->v_obj;
    irm_tensor *got = NULL;
    ck_assert_ok(irm_tensor_new(irm_tensor_dl(w)->dtype, irm_tensor_dl(w)->shape, irm_tensor_dl(w)->ndim, NULL, &got));
    DLTensor t = view(got);
    ck_assert_int_eq(irm_graph_runner_get_output(r, j, &t), IRM_GRAPH_OK);
    irm_any a = irm_any_object(got);
    assert_close(irm_array_at(want, j), &a, 1e-4);
    irm_object_release(got);
  }
  /* a parameter is no input; an unknown name lists the inputs */
  size_t idx = 0;
  if (strcmp(name, "mlp") == 0) {
    ck_assert_int_eq(irm_graph_runner_input_index(r, "fc1_weight", &idx), IRM_GRAPH_EARG);
    ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "is a parameter"));
  }
  ck_assert_int_eq(irm_graph_runner_input_index(r, "nope", &idx), IRM_GRAPH_EARG);
  ck_assert_ptr_nonnull(strstr(irm_graph_runner_error(r), "no input named 'nope'"));
  irm_graph_runner_free(r);
  irm_object_release(want);
  irm_object_release(all);
  irm_object_release(m);
}
END_TEST

START_TEST(test_params_file_missing_or_mismatched) {
  char path[1024], params[1024], other[1024];
  size_t n_data = 0;
  irm_object *all = NULL;
  irm_module *m = export_model("mlp", 0, path, sizeof path, &n_data, &all);
  irm_object_release(all);
  irm_object_release(m);
  m = export_model("cnn", 0, other, sizeof other, &n_data, &all);
  irm_object_release(all);
  graph_path("mlp_0", "mlp.params", params, sizeof params);
  char saved[1100];
  snprintf(saved, sizeof saved, "%s.saved", params);
  ck_assert_int_eq(rename(params, saved), 0);
  irm_object *loaded = NULL;
  ck_assert_int_eq(irm_runtime_load(path, &loaded), IRM_ERUNTIME);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "mlp.params"));
  /* a truncated params file */
  FILE *f = fopen(params, "wb");
  fwrite("\xb7\x9c\x04\x05", 1, 4, f);
  fclose(f);
  ck_assert_int_eq(irm_runtime_load(path, &loaded), IRM_EVALUE);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "truncated"));
  /* the CNN's params file: names the graph does not have */
  char cnn_params[1024], cmd[4096];
  graph_path("cnn_0", "cnn.params", cnn_params, sizeof cnn_params);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", cnn_params, params);
  ck_assert_int_eq(system(cmd), 0);
  ck_assert_int_eq(irm_runtime_load(path, &loaded), IRM_EVALUE);
  /* (the CNN's conv weights are packed at build, into constants named p<k>) */
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "params entry 'p0': the graph has no input of that name"));
  ck_assert_ptr_null(loaded);
  ck_assert_int_eq(rename(saved, params), 0);
  ck_assert_ok(irm_runtime_load(path, &loaded));
  irm_object_release(loaded);
  irm_object_release(m);
}
END_TEST

static Suite *graph_e2e_suite(void) {
  Suite *s = suite_create("graph_e2e");
  TCase *tc = tcase_create("e2e");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_examples_through_runtime_load, 0, 8);
  tcase_add_loop_test(tc, test_examples_through_the_c_runner, 0, 4);
  tcase_add_test(tc, test_params_file_missing_or_mismatched);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(graph_e2e_suite()); }
