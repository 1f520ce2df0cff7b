/* The graph executor's code generator (docs/graph.md): the graph JSON's
 * structure for the example models (inputs in range, shapes and dtypes of
 * main's inputs and outputs, node_row_ptr, storage sharing valid), the
 * artifacts with link-params on and off, the bytes the storage plan saves,
 * and the errors. Running the exports: check_graph_e2e. */
#include "check_graph_util.h"

static const char *const models[] = {"cnn", "mlp", "residual", "two_outputs"};

static size_t as_size(json_t *v) {
  if (json_is_integer(v)) return (size_t)json_integer_value(v);
  ck_assert_msg(json_is_string(v), "expected an integer or a string of one");
  return (size_t)strtoull(json_string_value(v), NULL, 10);
}

static json_t *attr_list(json_t *root, const char *key, const char *type) {
  json_t *a = json_object_get(json_object_get(root, "attrs"), key);
  ck_assert_msg(json_is_array(a) && json_array_size(a) == 2, "attrs.%s", key);
  ck_assert_str_eq(json_string_value(json_array_get(a, 0)), type);
  return json_array_get(a, 1);
}

/* The entry [node, index, version] names, checked in range. */
static size_t entry_of(json_t *rp, json_t *ref, size_t before) {
  ck_assert(json_is_array(ref) && json_array_size(ref) == 3);
  size_t node = as_size(json_array_get(ref, 0)), index = as_size(json_array_get(ref, 1));
  ck_assert_msg(node < before, "input node %zu not before node %zu", node, before);
  size_t lo = as_size(json_array_get(rp, node)), hi = as_size(json_array_get(rp, node + 1));
  ck_assert_msg(index < hi - lo, "entry %zu of node %zu, which has %zu", index, node, hi - lo);
  return lo + index;
}

static void assert_entry_type(json_t *root, size_t e, irm_object *type) {
  json_t *shape = json_array_get(attr_list(root, "shape", "list_shape"), e);
  ck_assert_int_eq((int)json_array_size(shape), irm_tensor_type_ndim(type));
  for (int32_t d = 0; d < irm_tensor_type_ndim(type); d++)
    ck_assert_int_eq(json_integer_value(json_array_get(shape, (size_t)d)), irm_tensor_type_shape(type)[d]);
  ck_assert_str_eq(json_string_value(json_array_get(attr_list(root, "dltype", "list_str"), e)),
                   irm_dtype_name(irm_tensor_type_dtype(type)));
}

static size_t entry_bytes(json_t *root, size_t e) {
  json_t *shape = json_array_get(attr_list(root, "shape", "list_shape"), e);
  const char *dt = json_string_value(json_array_get(attr_list(root, "dltype", "list_str"), e));
  size_t n = strstr(dt, "64") ? 8 : strstr(dt, "32") ? 4 : strstr(dt, "16") ? 2 : 1;
  for (size_t d = 0; d < json_array_size(shape); d++) n *= (size_t)json_integer_value(json_array_get(shape, d));
  return n;
}

/* main's calls of Primitive functions, in the order the graph has them. */
typedef struct calls {
  irm_object *items[256];
  size_t n;
} calls;

static int collect_call(void *ctx, irm_object *node) {
  calls *c = ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_CALL && irm_expr_kind_of(irm_call_callee(node)) == IRM_EXPR_FUNCTION &&
      c->n < 256)
    c->items[c->n++] = node;
  return IRM_OK;
}

/* Every tvm_op node's entries have the shapes and dtypes of its call's type. */
static void check_op_types(const irm_module *mod, json_t *root) {
  calls c = {{NULL}, 0};
  ck_assert_ok(irm_expr_visit(irm_function_body(irm_module_function(mod, "main")), collect_call, &c));
  json_t *nodes = json_object_get(root, "nodes"), *rp = json_object_get(root, "node_row_ptr");
  size_t k = 0;
  for (size_t n = 0; n < json_array_size(nodes); n++) {
    if (strcmp(json_string_value(json_object_get(json_array_get(nodes, n), "op")), "tvm_op") != 0) continue;
    ck_assert_uint_lt(k, c.n);
    irm_object *type = irm_expr_type(c.items[k++]);
    size_t lo = as_size(json_array_get(rp, n)), hi = as_size(json_array_get(rp, n + 1));
    int tuple = irm_dataflow_type_kind_of(type) == IRM_DATAFLOW_TYPE_TUPLE;
    ck_assert_uint_eq(hi - lo, tuple ? irm_tuple_type_size(type) : 1);
    for (size_t e = lo; e < hi; e++) assert_entry_type(root, e, tuple ? irm_tuple_type_field(type, e - lo) : type);
  }
  ck_assert_uint_eq(k, c.n);
}

/* Checks the whole structure; returns the bytes with and without sharing. */
static void check_structure(const irm_module *mod, json_t *root, size_t *shared, size_t *unshared) {
  json_t *nodes = json_object_get(root, "nodes"), *rp = json_object_get(root, "node_row_ptr");
  size_t n_nodes = json_array_size(nodes);
  ck_assert_uint_gt(n_nodes, 0);
  ck_assert_uint_eq(json_array_size(rp), n_nodes + 1);
  size_t n_entries = as_size(json_array_get(rp, n_nodes));
  json_t *sid = attr_list(root, "storage_id", "list_int");
  ck_assert_uint_eq(json_array_size(sid), n_entries);
  ck_assert_uint_eq(json_array_size(attr_list(root, "shape", "list_shape")), n_entries);
  ck_assert_uint_eq(json_array_size(attr_list(root, "dltype", "list_str")), n_entries);
  /* lifetimes: [producing node, last reading node]; heads and args live throughout */
  size_t *born = calloc(n_entries + 1, sizeof *born), *dies = calloc(n_entries + 1, sizeof *dies);
  size_t n_args = 0;
  for (size_t n = 0; n < n_nodes; n++) {
    json_t *node = json_array_get(nodes, n), *inputs = json_object_get(node, "inputs");
    const char *op = json_string_value(json_object_get(node, "op"));
    size_t lo = as_size(json_array_get(rp, n)), hi = as_size(json_array_get(rp, n + 1));
    ck_assert_uint_le(lo, hi);
    for (size_t e = lo; e < hi; e++) born[e] = dies[e] = strcmp(op, "null") == 0 ? 0 : n;
    if (strcmp(op, "null") == 0) {
      ck_assert_uint_eq(hi - lo, 1);
      dies[lo] = SIZE_MAX;
      n_args++;
      continue;
    }
    ck_assert_str_eq(op, "tvm_op");
    json_t *attrs = json_object_get(node, "attrs");
    ck_assert_ptr_nonnull(json_string_value(json_object_get(attrs, "func_name")));
    ck_assert_str_eq(json_string_value(json_object_get(attrs, "flatten_data")), "0");
    ck_assert_uint_eq(as_size(json_object_get(attrs, "num_inputs")), json_array_size(inputs));
    ck_assert_uint_eq(as_size(json_object_get(attrs, "num_outputs")), hi - lo);
    for (size_t i = 0; i < json_array_size(inputs); i++) {
      size_t e = entry_of(rp, json_array_get(inputs, i), n);
      if (dies[e] < n) dies[e] = n;
    }
  }
  ck_assert_uint_eq(json_array_size(json_object_get(root, "arg_nodes")), n_args);
  /* main's inputs are the first null nodes, with their types */
  irm_object *main = irm_module_function(mod, "main");
  json_t *heads = json_object_get(root, "heads");
  irm_object *ret = irm_expr_type(irm_function_body(main));
  size_t n_out = irm_dataflow_type_kind_of(ret) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_size(ret) : 1;
  ck_assert_uint_eq(json_array_size(heads), n_out);
  for (size_t j = 0; j < n_out; j++) {
    size_t e = entry_of(rp, json_array_get(heads, j), n_nodes);
    dies[e] = SIZE_MAX;
    assert_entry_type(
        root, e,
        n_out > 1 || irm_dataflow_type_kind_of(ret) == IRM_DATAFLOW_TYPE_TUPLE ? irm_tuple_type_field(ret, j) : ret);
  }
  size_t n_data = irm_function_param_count(main);
  for (size_t i = 0; i < n_data; i++) {
    json_t *node = json_array_get(nodes, i);
    ck_assert_str_eq(json_string_value(json_object_get(node, "op")), "null");
    ck_assert_str_eq(json_string_value(json_object_get(node, "name")), irm_var_name(irm_function_param(main, i)));
    assert_entry_type(root, i, irm_expr_type(irm_function_param(main, i)));
  }
  /* storage sharing: two entries of one storage id never live at once */
  size_t n_storage = 0;
  *unshared = 0;
  for (size_t e = 0; e < n_entries; e++) {
    size_t s = as_size(json_array_get(sid, e));
    if (s + 1 > n_storage) n_storage = s + 1;
    *unshared += entry_bytes(root, e);
    for (size_t f = 0; f < e; f++) {
      if (as_size(json_array_get(sid, f)) != s) continue;
      int overlap = !(dies[f] < born[e] || dies[e] < born[f]);
      ck_assert_msg(!overlap, "entries %zu and %zu share storage %zu while both live", f, e, s);
    }
  }
  size_t *bytes = calloc(n_storage + 1, sizeof *bytes);
  for (size_t e = 0; e < n_entries; e++) {
    size_t s = as_size(json_array_get(sid, e)), b = entry_bytes(root, e);
    if (b > bytes[s]) bytes[s] = b;
  }
  *shared = 0;
  for (size_t s = 0; s < n_storage; s++) *shared += bytes[s];
  free(bytes);
  free(born);
  free(dies);
}

START_TEST(test_json_structure_of_the_examples) {
  const char *name = models[_i];
  irm_module *m = graph_example(name);
  irm_object *params = graph_params(name);
  irm_object *r = graph_build(m, false, params, name);
  json_t *root = graph_json_of(r, name);
  size_t shared = 0, unshared = 0;
  check_structure(irm_map_find_cstr(r, "module")->v_obj, root, &shared, &unshared);
  check_op_types(irm_map_find_cstr(r, "module")->v_obj, root);
  ck_assert_uint_le(shared, unshared);
  printf("graph storage plan: %-12s %8zu bytes shared, %8zu bytes unshared (%.0f%%)\n", name, shared, unshared,
         100.0 * (double)shared / (double)unshared);
  if (strcmp(name, "cnn") == 0) ck_assert_uint_lt(shared, unshared); /* the chain of temporaries reuses storage */
  json_decref(root);
  irm_object_release(r);
  irm_object_release(params);
  irm_object_release(m);
}
END_TEST

START_TEST(test_link_params_on_and_off) {
  irm_module *m = graph_example("mlp");
  for (int link = 0; link < 2; link++) {
    irm_object *r = graph_build(m, link, NULL, "mlp");
    const char *c = irm_string_data(graph_artifact(r, "tvmgen_mlp.c"));
    ck_assert_ptr_nonnull(strstr(c, "const char *tvmgen_mlp_graph_json(void)"));
    ck_assert_ptr_nonnull(strstr(c, "const char *tvmgen_mlp_metadata(void)"));
    ck_assert_ptr_nonnull(strstr(c, "int32_t tvmgen_mlp_fused_"));
    ck_assert_ptr_nonnull(strstr(c, "_packed(void *args"));
    ck_assert_ptr_nonnull(graph_artifact(r, "mlp.json"));
    if (link) {
      ck_assert_ptr_null(graph_artifact(r, "mlp.params"));
      ck_assert_ptr_nonnull(strstr(c, "tvmgen_mlp_linked_params"));
      ck_assert_ptr_nonnull(strstr(c, "\\\"params_file\\\": null"));
    } else {
      irm_object *p = graph_artifact(r, "mlp.params");
      ck_assert_ptr_nonnull(p);
      ck_assert_uint_gt(irm_string_size(p), 32 * 64 * 4); /* fc1's weight at least */
      ck_assert_ptr_null(strstr(c, "tvmgen_mlp_linked_params"));
      ck_assert_ptr_nonnull(strstr(c, "\\\"params_file\\\": \\\"mlp.params\\\""));
    }
    irm_object_release(r);
  }
  irm_object_release(m);
}
END_TEST

START_TEST(test_default_executor_is_graph_with_codegen) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *r = bu_build_text(m, "c");
  ck_assert_ptr_nonnull(graph_artifact(r, "default.json"));
  ck_assert_ptr_nonnull(graph_artifact(r, "tvmgen_default.c"));
  ck_assert_ptr_nonnull(graph_artifact(r, "default.params"));
  irm_object_release(r);
  irm_object_release(m);
}
END_TEST

START_TEST(test_errors) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *r = NULL;
  size_t before = bu_global_count();
  ck_assert_int_eq(graph_try_build(m, false, NULL, "9bad", &r), IRM_EVALUE);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "mod_name '9bad'"));
  ck_assert_int_eq(graph_try_build(m, false, NULL, "a-b", &r), IRM_EVALUE);
  ck_assert_ptr_nonnull(strstr(irm_last_error(), "C identifier"));
  ck_assert_ptr_null(r);
  ck_assert_uint_eq(bu_global_count(), before);
  irm_object_release(m);
}
END_TEST

/* An executor kind's name is any text: the metadata's JSON escapes it, so
 * the loader reads the library and names the kind (issue 39). */
START_TEST(test_metadata_escapes_an_executor_kind_name) {
  static const char name[] = "graph\"q\\\x01\xc3\xa9";
  const char *option[] = {"link-params"};
  irm_any type = irm_any_str("bool");
  irm_object *spec = NULL;
  ck_assert_ok(irm_map_from_pairs(option, &type, 1, &spec));
  ck_assert_ok(irm_config_register_kind("executor", name, spec));
  irm_object_release(spec);
  irm_kind *graph = NULL, *k = NULL;
  ck_assert_ok(irm_kind_find("executor", "graph", &graph));
  ck_assert_ok(irm_kind_find("executor", name, &k));
  const char *attrs[] = {IRM_EXECUTOR_PIPELINE_ATTR, IRM_EXECUTOR_CODEGEN_ATTR};
  for (int i = 0; i < 2; i++) {
    irm_any v = irm_any_none();
    ck_assert_ok(irm_kind_get_attr(graph, attrs[i], &v));
    ck_assert_ok(irm_kind_set_attr(k, attrs[i], &v, 10));
    irm_any_release(&v);
  }
  irm_object *e = NULL, *r = NULL, *loaded = NULL;
  ck_assert_ok(irm_executor_create(name, NULL, &e));
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any t = irm_any_str("c");
  irm_object *rt = bu_runtime("cpp");
  ck_assert_ok(irm_build(m, &t, NULL, e, rt, NULL, "esc", &r));
  const char *c = irm_string_data(graph_artifact(r, "tvmgen_esc.c"));
  ck_assert_ptr_nonnull(strstr(c, "graph\\\\\\\"q\\\\\\\\\\\\u0001\\303\\251")); /* JSON's escapes, then C's */
  char path[1024];
  graph_export(r, "escaped_kind", path, sizeof path);
  ck_assert_int_eq(irm_runtime_load(path, &loaded), IRM_EVALUE);
  ck_assert_error_mentions("which has no executor.load");
  ck_assert_ptr_null(loaded);
  irm_object_release(rt);
  irm_object_release(r);
  irm_object_release(e);
  irm_object_release(m);
}
END_TEST

static Suite *graph_suite(void) {
  Suite *s = suite_create("graph");
  TCase *tc = tcase_create("codegen");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, test_json_structure_of_the_examples, 0, 4);
  tcase_add_test(tc, test_link_params_on_and_off);
  tcase_add_test(tc, test_default_executor_is_graph_with_codegen);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_metadata_escapes_an_executor_kind_name);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(graph_suite()); }
