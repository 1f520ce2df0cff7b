/* The C kernels of FuseOps' Primitive functions: every fused function of
 * the example models (cnn, mlp, residual), portable and with -libs=cblas,
 * against ir.Evaluate of the same function; the example op plugin's ops
 * (a String template and a Function FCodegenC) fused with built-in ops;
 * a built-in op's FCodegenC called as a Function with the call's Map; and
 * the errors of a plugin FCodegenC. */
#include "check_codegen_c_util.h"

/* The Primitive functions FuseOps made in @main of mod (borrowed). */
typedef struct prims {
  irm_object *fns[64];
  size_t n;
} prims;

static int collect_prim(void *ctx, irm_object *node) {
  prims *p = ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_CALL && irm_expr_kind_of(irm_call_callee(node)) == IRM_EXPR_FUNCTION) {
    irm_object *f = irm_call_callee(node);
    for (size_t i = 0; i < p->n; i++)
      if (p->fns[i] == f) return IRM_OK;
    if (p->n < 64) p->fns[p->n++] = f;
  }
  return IRM_OK;
}

/* InferType + FuseOps on text; *fused NEW (keeps the functions alive). */
static prims fused_functions(irm_module *typed, irm_module **fused) {
  prims p = {{0}, 0};
  ck_assert_ok(irm_dataflow_fuse_ops(typed, 256, fused));
  ck_assert_ok(irm_expr_visit(irm_function_body(irm_module_function(*fused, "main")), collect_prim, &p));
  ck_assert_uint_gt(p.n, 0);
  return p;
}

/* bind: the parameters bound as constants (BindParams), so the fused
 * functions hold them as static arrays. */
static void check_model(const char *model, irm_target *target, const char *extra, int bind) {
  irm_module *m = NULL, *t = NULL, *f = NULL;
  ck_assert_ok(irm_dataflow_example_model(model, &m));
  if (bind) {
    irm_module *b = NULL;
    ck_assert_ok(irm_dataflow_bind_params(m, &b));
    irm_object_release(m);
    m = b;
  }
  ck_assert_ok(irm_dataflow_infer_type(m, &t));
  prims p = fused_functions(t, &f);
  char names[64][32];
  const char *np[64];
  double tols[64];
  for (size_t i = 0; i < p.n; i++) {
    snprintf(names[i], sizeof names[i], "%s_f%zu%s", model, i, bind ? "b" : "");
    np[i] = names[i];
    tols[i] = 1e-4;
  }
  char stem[64];
  snprintf(stem, sizeof stem, "%s%s%s", model, target ? "_cblas" : "", bind ? "_bound" : "");
  cg_check_funcs(stem, p.fns, np, tols, p.n, target, extra, 2);
  irm_object_release(m), irm_object_release(t), irm_object_release(f);
}

/* One model per loop index (each a test case of its own). */
START_TEST(example_models) {
  irm_object *names = NULL;
  ck_assert_ok(irm_dataflow_example_model_names(&names));
  ck_assert_uint_ge(irm_array_size(names), 3);
  irm_target *t = NULL;
  ck_assert_ok(irm_target_parse("c -libs=cblas", &t));
  if ((size_t)_i < irm_array_size(names)) {
    const char *model = irm_string_data(irm_array_at(names, (size_t)_i)->v_obj);
    check_model(model, NULL, NULL, 0);
    check_model(model, t, "-lopenblas", 0);
    check_model(model, NULL, NULL, 1);
  }
  irm_object_release(t);
  irm_object_release(names);
}
END_TEST

/* A fused conv2d + bias_add + relu writes once into the output: the
 * elementwise followers run in place over it, with no scratch. */
START_TEST(anchor_followers_in_place) {
  irm_module *m =
      cg_typed("def @main(%a: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32], "
               "%b: Tensor[(4,), float32]) {\n"
               "  %0 = nn.conv2d(%a, %w, padding=[1, 1]); %1 = nn.bias_add(%0, %b); %2 = nn.relu(%1); %2 }");
  irm_module *f = NULL;
  prims p = fused_functions(m, &f);
  ck_assert_uint_eq(p.n, 1);
  irm_object *k = cg_kernel(p.fns[0], "k_conv_relu", NULL);
  ck_assert_ptr_nonnull(k);
  const char *code = cg_map_str(k, "code");
  ck_assert_msg(strstr(code, "out0[") && strstr(code, "irm_cg_frelu(") && !strstr(code, "float *restrict t"),
                "expected the conv to write out0 and relu to run over it:\n%s", code);
  irm_object_release(k);
  const char *names[] = {"k_conv_relu"};
  double tol[] = {1e-4};
  cg_check_funcs("anchor", p.fns, names, tol, 1, NULL, NULL, 2);
  irm_object_release(m), irm_object_release(f);
}
END_TEST

/* A kernel ending in a reshape (ShuffleNet's shuffle, a flatten) writes
 * the output where the reshape's input would go: no scratch, no copy.
 * The shuffle moves whole planes, one memcpy a plane. */
START_TEST(reshape_output_in_place) {
  irm_module *m = cg_typed("def @main(%a: Tensor[(1, 4, 3, 3), float32]) {\n"
                           "  %0 = reshape(%a, newshape=[1, 2, 2, 3, 3]); %1 = transpose(%0, axes=[0, 2, 1, 3, 4]);\n"
                           "  %2 = reshape(%1, newshape=[1, 4, 3, 3]); %2 }");
  irm_module *f = NULL;
  prims p = fused_functions(m, &f);
  ck_assert_uint_eq(p.n, 1);
  irm_object *k = cg_kernel(p.fns[0], "k_shuffle", NULL);
  ck_assert_ptr_nonnull(k);
  const char *code = cg_map_str(k, "code");
  ck_assert_msg(strstr(code, "memcpy(out0 + o, &in0[") && !strstr(code, "memcpy(out0, ") &&
                    !strstr(code, "float *restrict t"),
                "expected the transpose to write out0 by planes, with no copy after:\n%s", code);
  irm_object_release(k);
  const char *names[] = {"k_shuffle"};
  double tol[] = {0};
  cg_check_funcs("reshape_out", p.fns, names, tol, 1, NULL, NULL, 1);
  irm_object_release(m), irm_object_release(f);
}
END_TEST

/* A strided_slice of a contiguous range is a pointer into its input (no
 * copy); one that is not (rows of each channel) still copies, a memcpy of
 * the trailing axes it takes whole (a row) at a time. */
START_TEST(contiguous_slices_are_views) {
  irm_module *m = cg_typed("def @main(%a: Tensor[(1, 8, 3, 3), float32]) {\n"
                           "  %0 = strided_slice(%a, begin=[4], end=[8], axes=[1]);\n"
                           "  %1 = strided_slice(%a, begin=[0], end=[4], axes=[1]);\n"
                           "  %2 = strided_slice(%a, begin=[0, 1], end=[4, 3], axes=[1, 2]);\n"
                           "  %3 = concatenate(%0, %1, %2, axis=2); %3 }");
  irm_module *f = NULL;
  prims p = fused_functions(m, &f);
  ck_assert_uint_eq(p.n, 1);
  irm_object *k = cg_kernel(p.fns[0], "k_views", NULL);
  ck_assert_ptr_nonnull(k);
  const char *code = cg_map_str(k, "code");
  ck_assert_msg(strstr(code, "(void *)in0 + 36;") && strstr(code, "(void *)in0 + 0;") &&
                    strstr(code, "memcpy(t3 + o, &in0[") && strstr(code, ", 12), o += 3;"),
                "expected the channel slices as pointers into in0 and the row slice copied by rows:\n%s", code);
  irm_object_release(k);
  const char *names[] = {"k_views"};
  double tol[] = {0};
  cg_check_funcs("views", p.fns, names, tol, 1, NULL, NULL, 1);
  irm_object_release(m), irm_object_release(f);
}
END_TEST

/* A concatenate whose one user is a transpose picking the part by its
 * first axis (ShuffleNet's concat -> shuffle) is read in parts: no copy
 * into one buffer. Parts of unequal size are copied as before. */
START_TEST(concat_read_in_parts_by_its_transpose) {
  static const char *const texts[] = {
      "def @main(%a: Tensor[(1, 4, 3, 3), float32], %b: Tensor[(1, 4, 3, 3), float32]) {\n"
      "  %0 = concatenate(%a, %b, axis=1); %1 = reshape(%0, newshape=[1, 2, 4, 3, 3]);\n"
      "  %2 = transpose(%1, axes=[0, 2, 1, 3, 4]); %3 = reshape(%2, newshape=[1, 8, 3, 3]); %3 }",
      "def @main(%a: Tensor[(1, 4, 3, 3), float32], %b: Tensor[(1, 2, 3, 3), float32]) {\n"
      "  %0 = concatenate(%a, %b, axis=1); %1 = reshape(%0, newshape=[1, 2, 3, 3, 3]);\n"
      "  %2 = transpose(%1, axes=[0, 2, 1, 3, 4]); %3 = reshape(%2, newshape=[1, 6, 3, 3]); %3 }"};
  for (int i = 0; i < 2; i++) {
    irm_module *m = cg_typed(texts[i]), *f = NULL;
    prims p = fused_functions(m, &f);
    ck_assert_uint_eq(p.n, 1);
    irm_object *k = cg_kernel(p.fns[0], "k_parts", NULL);
    ck_assert_ptr_nonnull(k);
    const char *code = cg_map_str(k, "code");
    if (i == 0)
      ck_assert_msg(strstr(code, "irm_pt[] = {in0, in1}") && !strstr(code, "for (int64_t r = 0;"),
                    "expected the transpose to read the parts in place:\n%s", code);
    else
      ck_assert_msg(!strstr(code, "irm_pt") && strstr(code, "for (int64_t r = 0;"), "unequal parts must be copied:\n%s",
                    code);
    irm_object_release(k);
    const char *names[] = {i ? "k_parts_unequal" : "k_parts"};
    double tol[] = {0};
    cg_check_funcs(i ? "parts_unequal" : "parts", p.fns, names, tol, 1, NULL, NULL, 1);
    irm_object_release(m), irm_object_release(f);
  }
}
END_TEST

#ifdef IRM_TEST_OP_PLUGIN
START_TEST(plugin_ops) {
  ck_assert_ok(irm_plugin_load(IRM_TEST_OP_PLUGIN));
  static const cg_case direct[] = {
      {"k_scale", "def @main(%a: Tensor[(3, 5), float32]) { %0 = plugin.scale(%a, factor=3.5); %0 }", 0},
      {"k_twice", "def @main(%a: Tensor[(7,), int32]) { %0 = plugin.twice(%a); %0 }", 0},
  };
  cg_check_cases("plugin_direct", direct, 2, NULL, NULL, 2);
  /* fused with built-in ops: the template inlines into the chain's loop */
  irm_module *m = cg_typed("def @main(%a: Tensor[(2, 4, 6), float32], %b: Tensor[(6,), float32]) {\n"
                           "  %0 = plugin.scale(%a, factor=-1.5); %1 = add(%0, %b); %2 = plugin.twice(%1);\n"
                           "  %3 = nn.relu(%2); %4 = plugin.scale(%3); %4 }");
  irm_module *f = NULL;
  prims p = fused_functions(m, &f);
  ck_assert_uint_eq(p.n, 1);
  irm_object *k = cg_kernel(p.fns[0], "k_plugin_fused", NULL);
  ck_assert_ptr_nonnull(k);
  const char *code = cg_map_str(k, "code");
  ck_assert_msg(strstr(code, "(float)((double)") && strstr(code, "2.0 * (double)"), "%s", code);
  irm_object_release(k);
  const char *names[] = {"k_plugin_fused"};
  cg_check_funcs("plugin_fused", p.fns, names, NULL, 1, NULL, NULL, 2);
  irm_object_release(m), irm_object_release(f);
}
END_TEST
#endif

/* A built-in op's FCodegenC is a Function other languages can call. */
START_TEST(builtin_fcodegen_as_function) {
  irm_object *op = NULL;
  ck_assert_ok(irm_op_get("nn.max_pool2d", &op));
  irm_any fn = irm_any_none();
  ck_assert_ok(irm_op_get_attr(op, IRM_OP_ATTR_CODEGEN_C, &fn));
  ck_assert_int_eq(fn.type_code, IRM_OBJECT);
  irm_object *call = NULL, *in = NULL, *out = NULL, *shape_in = NULL, *shape_out = NULL, *ins = NULL, *attrs = NULL;
  irm_any si[] = {irm_any_int(1), irm_any_int(2), irm_any_int(4), irm_any_int(4)};
  irm_any so[] = {irm_any_int(1), irm_any_int(2), irm_any_int(2), irm_any_int(2)};
  shape_in = new_array(si, 4);
  shape_out = new_array(so, 4);
  const char *tkeys[] = {"name", "dtype", "shape"};
  irm_any tin[] = {irm_any_str("x"), irm_any_str("float32"), irm_any_object(shape_in)};
  irm_any tout[] = {irm_any_str("y"), irm_any_str("float32"), irm_any_object(shape_out)};
  in = new_map(tkeys, tin, 3);
  out = new_map(tkeys, tout, 3);
  irm_any iv = irm_any_object(in);
  ins = new_array(&iv, 1);
  irm_object *pool = NULL;
  ck_assert_ok(irm_array_new((irm_any[]){irm_any_int(2), irm_any_int(2)}, 2, &pool));
  const char *akeys[] = {"pool_size", "strides"};
  irm_any av[] = {irm_any_object(pool), irm_any_object(pool)};
  attrs = new_map(akeys, av, 2);
  const char *ckeys[] = {"inputs", "output", "attrs", "function"};
  irm_any cv[] = {irm_any_object(ins), irm_any_object(out), irm_any_object(attrs), irm_any_str("k")};
  call = new_map(ckeys, cv, 4);
  irm_any arg = irm_any_object(call), r = irm_any_none();
  ck_assert_ok(irm_func_call(fn.v_obj, &arg, 1, &r));
  const char *code = cg_map_str(r.v_obj, "code");
  ck_assert_ptr_nonnull(strstr(code, "y[n * 8 + c * 4 + y * 2 + x * 1]"));
  ck_assert_ptr_nonnull(strstr(code, "x[n * 32"));
  ck_assert_int_eq(cg_map_int(r.v_obj, "scratch_bytes"), 0);
  irm_any_release(&r);
  /* a bad Map names the op */
  irm_any bad = irm_any_object(attrs);
  ck_assert_int_eq(irm_func_call(fn.v_obj, &bad, 1, &r), IRM_EVALUE);
  ck_assert_error_mentions("nn.max_pool2d");
  irm_object *objs[] = {call, in, out, shape_in, shape_out, ins, attrs, pool, op};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release(objs[i]);
  irm_any_release(&fn);
}
END_TEST

static int bad_codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)args, (void)nargs;
  if (res) return irm_error(IRM_EVALUE, "cannot generate this");
  *ret = irm_any_int(7);
  return IRM_OK;
}

static int id_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs, (void)res;
  return irm_any_copy(irm_array_at(args[0].v_obj, 0), ret);
}

static void register_op(const char *name, irm_packed_cfunc cg, void *res) {
  irm_kind *kind = NULL;
  ck_assert_ok(irm_op_register(name, 1, &kind));
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(id_type, NULL, NULL, &f));
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_INFER_TYPE, &v, 10));
  irm_object_release(f);
  ck_assert_ok(irm_func_new_packed(cg, res, NULL, &f));
  v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_CODEGEN_C, &v, 10));
  irm_object_release(f);
}

START_TEST(plugin_fcodegen_errors) {
  register_op("test.cg_int", bad_codegen, NULL);
  register_op("test.cg_fail", bad_codegen, (void *)1);
  irm_module *m = cg_typed("def @main(%a: Tensor[(4,), float32]) { %0 = test.cg_int(%a); %0 }");
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "kbad", NULL));
  ck_assert_last_error("ValueError: test.cg_int in function 'kbad': FCodegenC returned int");
  irm_object_release(m);
  m = cg_typed("def @main(%a: Tensor[(4,), float32]) { %0 = test.cg_fail(%a); %0 }");
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "kfail", NULL));
  ck_assert_last_error("ValueError: FCodegenC of op 'test.cg_fail' in function 'kfail': cannot generate this");
  irm_object_release(m);
  /* a template naming a missing input or attribute */
  irm_kind *kind = NULL;
  ck_assert_ok(irm_op_register("test.cg_tpl", 1, &kind));
  irm_object *f = NULL, *s = NULL;
  ck_assert_ok(irm_func_new_packed(id_type, NULL, NULL, &f));
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_INFER_TYPE, &v, 10));
  irm_object_release(f);
  ck_assert_ok(irm_string_from_cstr("($0 + $1)", &s));
  v = irm_any_object(s);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_CODEGEN_C, &v, 10));
  m = cg_typed("def @main(%a: Tensor[(4,), float32]) { %0 = test.cg_tpl(%a); %0 }");
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "ktpl", NULL));
  ck_assert_last_error(
      "ValueError: test.cg_tpl in function 'ktpl': the FCodegenC template uses $1, but the op has 1 inputs");
  irm_object_release(s);
  ck_assert_ok(irm_string_from_cstr("($0 * ${scale})", &s));
  v = irm_any_object(s);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_CODEGEN_C, &v, 20));
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "ktpl", NULL));
  ck_assert_last_error("ValueError: test.cg_tpl in function 'ktpl': the FCodegenC template names attribute 'scale'");
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c_fused");
  TCase *tc = tcase_create("fused");
  tcase_set_timeout(tc, 60);
  tcase_add_loop_test(tc, example_models, 0, 3); /* cnn, mlp, residual */
  tcase_add_test(tc, anchor_followers_in_place);
  tcase_add_test(tc, reshape_output_in_place);
  tcase_add_test(tc, contiguous_slices_are_views);
  tcase_add_test(tc, concat_read_in_parts_by_its_transpose);
#ifdef IRM_TEST_OP_PLUGIN
  tcase_add_test(tc, plugin_ops);
#endif
  tcase_add_test(tc, builtin_fcodegen_as_function);
  tcase_add_test(tc, plugin_fcodegen_errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
