/* The C kernel generator (backend/codegen/): elementwise ops of every
 * dtype class, fused chains with broadcasting, casts, bias_add, constants,
 * tuples and Let, compiled with cc and compared with ir.Evaluate; integer
 * division by zero; the errors (an op without FCodegenC, bad
 * arguments). The other ops: check_codegen_c_ops.c; plugins and FuseOps'
 * functions: check_codegen_c_fused.c. */
#include "check_codegen_c_util.h"

#define F4 "Tensor[(2, 3, 4), float32]"

START_TEST(elemwise_float) {
  static const cg_case cases[] = {
      {"k_add", "def @main(%a: " F4 ", %b: " F4 ") { %90 = add(%a, %b); %90 }", 0},
      {"k_sub_bcast", "def @main(%a: " F4 ", %b: Tensor[(4,), float32]) { %90 = subtract(%a, %b); %90 }", 0},
      {"k_mul_bcast2",
       "def @main(%a: Tensor[(2, 1, 4), float32], %b: Tensor[(3, 1), float32]) { %90 = multiply(%a, %b); %90 }", 0},
      {"k_div", "def @main(%a: " F4 ", %b: " F4 ") { %90 = divide(%a, %b); %90 }", 0},
      {"k_max", "def @main(%a: " F4 ", %b: Tensor[(1, 3, 1), float32]) { %90 = maximum(%a, %b); %90 }", 0},
      {"k_neg", "def @main(%a: " F4 ") { %90 = negative(%a); %90 }", 0},
      {"k_exp", "def @main(%a: " F4 ") { %90 = exp(%a); %90 }", 0},
      {"k_sqrt", "def @main(%a: " F4 ") { %90 = sqrt(%a); %90 }", 0},
      {"k_relu", "def @main(%a: " F4 ") { %90 = nn.relu(%a); %90 }", 0},
      {"k_chain",
       "def @main(%a: " F4 ", %b: Tensor[(3,), float32], %c: Tensor[(4,), float32]) {\n"
       "  %0 = nn.bias_add(%a, %b);\n  %1 = nn.relu(%0);\n  %2 = add(%1, %c);\n  %3 = exp(%2);\n  %90 = multiply(%3, %c);\n  %90\n}",
       0},
      {"k_bias_last", "def @main(%a: " F4 ", %b: Tensor[(4,), float32]) { %90 = nn.bias_add(%a, %b, axis=-1); %90 }",
       0},
      {"k_scalar", "def @main(%a: Tensor[(), float32], %b: " F4 ") { %90 = add(%a, %b); %90 }", 0},
      {"k_shared",
       "def @main(%a: " F4 ") {\n  %0 = negative(%a);\n  %1 = add(%0, %0);\n  %90 = multiply(%1, %0);\n  %90\n}", 0},
  };
  cg_check_cases("ew_float", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

START_TEST(elemwise_int) {
  static const cg_case cases[] = {
      {"k_i32",
       "def @main(%a: Tensor[(5, 6), int32], %b: Tensor[(6,), int32]) {\n"
       "  %0 = add(%a, %b);\n  %1 = multiply(%0, %b);\n  %2 = subtract(%1, %a);\n  %3 = divide(%2, %b);\n"
       "  %4 = maximum(%3, %a);\n  %5 = negative(%4);\n  %90 = nn.relu(%5);\n  %90\n}",
       0},
      {"k_i8",
       "def @main(%a: Tensor[(5, 6), int8], %b: Tensor[(5, 6), int8]) {\n"
       "  %0 = add(%a, %b);\n  %1 = multiply(%0, %b);\n  %2 = divide(%1, %b);\n  %3 = negative(%2);\n"
       "  %90 = maximum(%3, %a);\n  %90\n}",
       0},
      {"k_u8",
       "def @main(%a: Tensor[(7,), uint8], %b: Tensor[(7,), uint8]) {\n"
       "  %0 = subtract(%a, %b);\n  %1 = multiply(%0, %a);\n  %2 = divide(%1, %b);\n  %90 = nn.relu(%2);\n  %90\n}",
       0},
      {"k_i8_bias", "def @main(%a: Tensor[(2, 3, 4), int8], %b: Tensor[(3,), int8]) { %90 = nn.bias_add(%a, %b); %90 }",
       0},
  };
  cg_check_cases("ew_int", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

START_TEST(casts) {
  static const cg_case cases[] = {
      {"k_f2i32",
       "def @main(%a: " F4 ") { %0 = multiply(%a, %a); %1 = multiply(%0, %0); %90 = cast(%1, dtype=\"int32\"); %90 }",
       0},
      {"k_f2i8",
       "def @main(%a: " F4 ") { %0 = multiply(%a, %a); %1 = multiply(%0, %0); %2 = multiply(%1, %1); %3 = "
       "multiply(%2, %a); %90 = cast(%3, dtype=\"int8\"); %90 }",
       0},
      {"k_f2u8",
       "def @main(%a: " F4 ") { %0 = exp(%a); %1 = multiply(%0, %0); %2 = multiply(%1, %1); %3 = multiply(%2, %a); "
       "%90 = cast(%3, dtype=\"uint8\"); %90 }",
       0},
      {"k_f2b", "def @main(%a: " F4 ") { %0 = nn.relu(%a); %90 = cast(%0, dtype=\"bool\"); %90 }", 0},
      {"k_i2f", "def @main(%a: Tensor[(9,), int32]) { %0 = cast(%a, dtype=\"float32\"); %90 = sqrt(%0); %90 }", 0},
      {"k_i32_i8", "def @main(%a: Tensor[(9,), int32]) { %90 = cast(%a, dtype=\"int8\"); %90 }", 0},
      {"k_i8_u8", "def @main(%a: Tensor[(9,), int8]) { %90 = cast(%a, dtype=\"uint8\"); %90 }", 0},
      {"k_b_i32",
       "def @main(%a: Tensor[(9,), bool]) { %0 = cast(%a, dtype=\"int32\"); %1 = cast(%a, dtype=\"float32\"); "
       "%2 = cast(%0, dtype=\"float32\"); %90 = add(%1, %2); %90 }",
       0},
      {"k_u8_b", "def @main(%a: Tensor[(9,), uint8]) { %90 = cast(%a, dtype=\"bool\"); %90 }", 0},
  };
  cg_check_cases("casts", cases, sizeof cases / sizeof cases[0], NULL, NULL, 2);
}
END_TEST

START_TEST(structure) {
  static const cg_case cases[] = {
      /* a tuple of two outputs, one of them also feeding the other */
      {"k_tuple",
       "def @main(%a: " F4 ", %b: " F4 ") {\n  %0 = add(%a, %b);\n  %1 = nn.relu(%0);\n  %91 = (%1, %0);\n  %91\n}", 0},
      /* the same node twice, a parameter and a constant as outputs */
      {"k_tuple_dup",
       "def @main(%a: Tensor[(3,), float32]) {\n  %0 = negative(%a);\n  %91 = (%0, %0, %a, const(float32, [2], [1.5, -2]));\n  %91\n}",
       0},
      {"k_nested",
       "def @main(%a: Tensor[(3,), int32]) {\n  %0 = negative(%a);\n  %1 = (%0, %a);\n  %91 = (%1, %0);\n  %91\n}", 0},
      /* constants inside, special values included */
      {"k_const",
       "def @main(%a: Tensor[(2, 3), float32]) {\n"
       "  %0 = add(%a, const(float32, [3], [0.1, inf, -0]));\n  %90 = maximum(%0, const(float32, [2, 1], [nan, -inf]));\n  %90\n}",
       0},
      {"k_const_int", "def @main(%a: Tensor[(4,), int8]) { %90 = add(%a, const(int8, [4], [-128, 127, 0, 5])); %90 }",
       0},
      /* Let bindings and a projection of a tuple expression */
      {"k_let",
       "def @main(%a: Tensor[(4,), float32]) {\n  %92 = negative(%a);\n  let %x = %92;\n  %93 = (%x, %a);\n  let %t = %93;\n"
       "  %94 = %t.0;\n  %95 = %t.1;\n  %0 = add(%94, %95);\n  %90 = multiply(%0, %x);\n  %90\n}",
       0},
      {"k_identity", "def @main(%a: Tensor[(4,), uint8]) { %a }", 0},
  };
  cg_check_cases("structure", cases, sizeof cases / sizeof cases[0], NULL, NULL, 1);
}
END_TEST

/* A kernel of many nodes (the walker's arrays grow), shared values
 * keeping some of them in scratch buffers. */
START_TEST(long_chain) {
  char text[8192];
  int w = snprintf(text, sizeof text,
                   "def @main(%%a: Tensor[(3, 4), float32], %%b: Tensor[(4,), float32]) {\n"
                   "  %%0 = add(%%a, %%b);\n");
  for (int i = 1; i < 60; i++)
    w += snprintf(text + w, sizeof text - (size_t)w, i % 7 ? "  %%%d = %s(%%%d, %%b);\n" : "  %%%d = %s(%%%d, %%%d);\n",
                  i,
                  i % 3 == 0   ? "maximum"
                  : i % 3 == 1 ? "subtract"
                               : "multiply",
                  i - 1, i / 2);
  snprintf(text + w, sizeof text - (size_t)w, "  %%60 = (%%59, %%30);\n  %%60\n}");
  cg_case c = {"k_long", text, 1e-5};
  cg_check_cases("long_chain", &c, 1, NULL, NULL, 2);
}
END_TEST

/* Integer division by zero: the evaluator raises, the kernel returns nonzero. */
START_TEST(divide_by_zero) {
  irm_module *m = cg_typed("def @main(%a: Tensor[(4,), int32], %b: Tensor[(4,), int32]) { %90 = divide(%a, %b); %90 }");
  irm_object *k = cg_kernel(irm_module_function(m, "main"), "kdiv", NULL);
  ck_assert_ptr_nonnull(k);
  char *src = cg_prelude(NULL);
  size_t len = strlen(src);
  cg_cat(&src, &len, cg_map_str(k, "code"));
  cg_cat(&src, &len, "int32_t run(const int32_t *a, const int32_t *b, int32_t *o) { return kdiv(a, b, o, NULL); }\n");
  void *h = cg_compile("divzero", src, NULL);
  int32_t (*run)(const int32_t *, const int32_t *, int32_t *) =
      (int32_t(*)(const int32_t *, const int32_t *, int32_t *))(uintptr_t)dlsym(h, "run");
  int32_t a[4] = {7, -7, 8, 9}, b[4] = {2, 2, -3, 3}, o[4] = {0};
  ck_assert_int_eq(run(a, b, o), 0);
  ck_assert_int_eq(o[0], 3);
  ck_assert_int_eq(o[1], -3); /* truncates toward zero */
  ck_assert_int_eq(o[2], -2);
  b[2] = 0;
  ck_assert_int_ne(run(a, b, o), 0);
  dlclose(h);
  free(src);
  irm_object_release(k);
  irm_object_release(m);
}
END_TEST

static int same_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)nargs, (void)res;
  return irm_any_copy(irm_array_at(args[0].v_obj, 0), ret);
}

START_TEST(errors) {
  /* an op without FCodegenC */
  irm_kind *kind = NULL;
  ck_assert_ok(irm_op_register("test.nocodegen", 1, &kind));
  irm_object *f = NULL;
  ck_assert_ok(irm_func_new_packed(same_type, NULL, NULL, &f));
  irm_any v = irm_any_object(f);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_INFER_TYPE, &v, 10));
  irm_object_release(f);
  irm_module *m = cg_typed("def @main(%a: Tensor[(4,), float32]) { %0 = test.nocodegen(%a); %90 = nn.relu(%0); %90 }");
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "kfn", NULL));
  ck_assert_last_error("ValueError: op 'test.nocodegen' in function 'kfn' has no FCodegenC");
  ck_assert_error_mentions("FCodegenC");
  irm_object_release(m);
  /* an FCodegenC of the wrong kind */
  v = irm_any_int(3);
  ck_assert_ok(irm_kind_set_attr(kind, IRM_OP_ATTR_CODEGEN_C, &v, 10));
  m = cg_typed("def @main(%a: Tensor[(4,), float32]) { %90 = test.nocodegen(%a); %90 }");
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "kfn", NULL));
  ck_assert_last_error("ValueError: op 'test.nocodegen' in function 'kfn' has no FCodegenC");
  irm_object_release(m);
  /* float16 converts at the boundary: uint16_t buffers outside, float inside (check_codegen_c_half.c) */
  m = cg_typed("def @main(%a: Tensor[(4,), float16]) { %90 = nn.relu(%a); %90 }");
  irm_object *khalf = cg_kernel(irm_module_function(m, "main"), "khalf", NULL);
  ck_assert_ptr_nonnull(khalf);
  ck_assert_ptr_nonnull(strstr(cg_map_str(khalf, "code"), "const uint16_t *restrict in0, uint16_t *restrict out0"));
  irm_object_release(khalf);
  irm_object_release(m);
  /* a bad symbol, a non-function */
  m = cg_typed("def @main(%a: Tensor[(4,), float32]) { %90 = nn.relu(%a); %90 }");
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "1bad", NULL));
  ck_assert_last_error("ValueError: C kernel name '1bad' is not a C identifier");
  ck_assert_ptr_null(cg_kernel(m, "k", NULL));
  ck_assert_last_error("TypeError: C kernel 'k': expected a dataflow.Function");
  irm_object_release(m);
  /* a call of a global function inside */
  m = cg_typed("def @f(%a: Tensor[(4,), float32]) { %90 = nn.relu(%a); %90 }\n"
               "def @main(%a: Tensor[(4,), float32]) { %90 = @f(%a); %90 }");
  ck_assert_ptr_null(cg_kernel(irm_module_function(m, "main"), "kcall", NULL));
  ck_assert_last_error("TypeError: in function 'kcall': a call of a function or variable is not supported");
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_c");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, elemwise_float);
  tcase_add_test(tc, elemwise_int);
  tcase_add_test(tc, casts);
  tcase_add_test(tc, structure);
  tcase_add_test(tc, long_chain);
  tcase_add_test(tc, divide_by_zero);
  tcase_add_test(tc, errors);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
