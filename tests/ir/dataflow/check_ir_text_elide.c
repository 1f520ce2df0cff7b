/* Eliding large tensors in the IR text (dataflow/text.h: irm_dataflow_print_ex,
 * irm_dataflow_print_node_ex, ffi.Repr, ir.Print's options, the printing
 * instrument): above the limit a tensor prints as `const(dtype, [shape],
 * <elided N elements>)`, a module's text says how many were elided, and the
 * parser refuses such text at the elided const. The full text (irm_dataflow_print)
 * still round-trips. */
#include <stdio.h>
#include <unistd.h>

#include "check_ir_text_util.h"

_Static_assert(IRM_DATAFLOW_PRINT_ELIDE_DEFAULT == IRM_PRINTING_ELIDE_DEFAULT,
               "the printing instrument and ffi.Repr elide above the same limit");

#define H "#[version = \"irm-0.1\"]\n"

/* The text of m with tensors of more than limit elements elided. NEW. */
static irm_object *print_elided(const irm_module *m, int64_t limit) {
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = limit;
  irm_object *s = NULL;
  ck_assert_ok(irm_dataflow_print_ex(m, &opts, &s));
  return s;
}

static size_t count_of(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle)) n++;
  return n;
}

#define ck_assert_has(text, needle) \
  ck_assert_msg(strstr((text), (needle)) != NULL, "'%s' is not in:\n%s", (needle), (text))

/* The example MLP with its params bound into @main as constants (and still
 * in its `params` attribute). NEW. */
static irm_module *mlp_bound(void) {
  irm_module *m = NULL, *out = NULL;
  irm_pass *bind = NULL;
  ck_assert_ok(irm_dataflow_example_model("mlp", &m));
  ck_assert_ok(irm_pass_get("BindParams", NULL, &bind));
  ck_assert_ok(irm_pass_run(bind, m, &out));
  irm_object_release(bind);
  irm_object_release(m);
  return out;
}

/* ---- the example MLP after BindParams ------------------------------------------ */

START_TEST(test_mlp_after_bind_params_prints_small) {
  irm_module *m = mlp_bound();
  irm_object *full = NULL;
  ck_assert_ok(irm_dataflow_print(m, &full));
  ck_assert_uint_gt(irm_string_size(full), 70000); /* every weight twice, in full */
  ck_assert_ptr_null(strstr(irm_string_data(full), "elided"));
  irm_object *s = print_elided(m, 16);
  const char *t = irm_string_data(s);
  ck_assert_uint_lt(irm_string_size(s), 5000);
  /* the header says so */
  ck_assert_msg(strncmp(t,
                        H "// 8 tensors with more than 16 elements elided; print with all constants "
                          "(elide_larger_than=0) to parse\nattributes {\n",
                        strlen(H) + 100) == 0,
                "%s", t);
  /* every elided tensor names its dtype, shape and size, in the params attribute and inline */
  ck_assert_has(t, "\"fc1_weight\": const(float32, [32, 64], <elided 2048 elements>)");
  ck_assert_has(t, "\"fc1_bias\": const(float32, [32], <elided 32 elements>)");
  ck_assert_has(t, "\"fc2_weight\": const(float32, [16, 32], <elided 512 elements>)");
  ck_assert_has(t, "\"fc3_weight\": const(float32, [10, 16], <elided 160 elements>)");
  ck_assert_has(t, "%0 = nn.dense(%data, const(float32, [32, 64], <elided 2048 elements>), units=32);");
  ck_assert_has(t, "%1 = nn.bias_add(%0, const(float32, [32], <elided 32 elements>));");
  ck_assert_has(t, "%3 = nn.dense(%2, const(float32, [16, 32], <elided 512 elements>), units=16);");
  ck_assert_has(t, "%6 = nn.dense(%5, const(float32, [10, 16], <elided 160 elements>), units=10);");
  ck_assert_uint_eq(count_of(t, "<elided "), 8);
  /* 16 and 10 elements are not more than 16: in full, in both places */
  ck_assert_uint_eq(count_of(t, "const(float32, [16], [-0.0246279724, "), 2);
  ck_assert_uint_eq(count_of(t, "const(float32, [10], [0.0684463978, "), 2);
  /* the same, through ffi.Repr (its default limit is 16) */
  irm_any v = irm_any_object(m);
  irm_object *r = NULL;
  ck_assert_ok(irm_repr(&v, &r));
  ck_assert_str_eq(irm_string_data(r), t);
  irm_object_release(r);
  /* the full text still round-trips */
  check_round_trip(m);
  irm_object_release(s);
  irm_object_release(full);
  irm_object_release(m);
}
END_TEST

/* ---- the limit ---------------------------------------------------------------- */

static const char small_text[] =
    H "attributes {\n"
      "  w = const(int8, [5], [1, 2, 3, 4, 5]),\n"
      "  nested = [{\"t\": const(uint8, [2, 3], [1, 2, 3, 4, 5, 6])}],\n"
      "  scalar = const(float32, [], [0.5])\n"
      "}\n"
      "def @main(%x: Tensor[(5,), int8]) attributes {note = const(int32, [5], [9, 8, 7, 6, 5])} {\n"
      "  %0 = gen.binary(%x, const(int8, [5], [5, 4, 3, 2, 1]));\n"
      "  %1 = const(bool, [5], [1, 0, 1, 0, 1]);\n"
      "  %2 = gen.binary(%0, %1);\n"
      "  %3 = gen.binary(%2, %1);\n"
      "  %3\n"
      "}\n";

START_TEST(test_limit_counts_elements_and_reaches_every_tensor) {
  irm_module *m = parse_ok(small_text);
  char *full = print_text(m);
  ck_assert_str_eq(full, small_text);
  /* 0, NULL options and a limit no tensor exceeds print everything */
  irm_object *s = print_elided(m, 0);
  ck_assert_str_eq(irm_string_data(s), small_text);
  irm_object_release(s);
  ck_assert_ok(irm_dataflow_print_ex(m, NULL, &s));
  ck_assert_str_eq(irm_string_data(s), small_text);
  irm_object_release(s);
  s = print_elided(m, 6);
  ck_assert_str_eq(irm_string_data(s), small_text);
  irm_object_release(s);
  /* 5: only the 2x3 tensor (in a Map in an Array) has more elements */
  s = print_elided(m, 5);
  ck_assert_str_eq(irm_string_data(s),
                   H "// 1 tensor with more than 5 elements elided; print with all constants (elide_larger_than=0) "
                     "to parse\n"
                     "attributes {\n"
                     "  w = const(int8, [5], [1, 2, 3, 4, 5]),\n"
                     "  nested = [{\"t\": const(uint8, [2, 3], <elided 6 elements>)}],\n"
                     "  scalar = const(float32, [], [0.5])\n"
                     "}\n"
                     "def @main(%x: Tensor[(5,), int8]) attributes {note = const(int32, [5], [9, 8, 7, 6, 5])} {\n"
                     "  %0 = gen.binary(%x, const(int8, [5], [5, 4, 3, 2, 1]));\n"
                     "  %1 = const(bool, [5], [1, 0, 1, 0, 1]);\n"
                     "  %2 = gen.binary(%0, %1);\n"
                     "  %3 = gen.binary(%2, %1);\n"
                     "  %3\n"
                     "}\n");
  irm_object_release(s);
  /* 1: module, function and inline attributes, inline and shared constants; a scalar never */
  s = print_elided(m, 1);
  ck_assert_str_eq(irm_string_data(s),
                   H "// 5 tensors with more than 1 element elided; print with all constants (elide_larger_than=0) "
                     "to parse\n"
                     "attributes {\n"
                     "  w = const(int8, [5], <elided 5 elements>),\n"
                     "  nested = [{\"t\": const(uint8, [2, 3], <elided 6 elements>)}],\n"
                     "  scalar = const(float32, [], [0.5])\n"
                     "}\n"
                     "def @main(%x: Tensor[(5,), int8]) attributes {note = const(int32, [5], <elided 5 elements>)} {\n"
                     "  %0 = gen.binary(%x, const(int8, [5], <elided 5 elements>));\n"
                     "  %1 = const(bool, [5], <elided 5 elements>);\n"
                     "  %2 = gen.binary(%0, %1);\n"
                     "  %3 = gen.binary(%2, %1);\n"
                     "  %3\n"
                     "}\n");
  irm_object_release(s);
  free(full);
  irm_object_release(m);
}
END_TEST

START_TEST(test_nodes_elide_and_their_repr_elides_by_default) {
  irm_module *m = parse_ok(H "def @main(%x) {\n"
                             "  %0 = gen.unary(const(float32, [17], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
                             "14, 15, 16]));\n"
                             "  %1 = gen.binary(%0, const(float32, [4, 4], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "
                             "12, 13, 14, 15]));\n"
                             "  %1\n"
                             "}\n");
  irm_object *body = (irm_object *)irm_function_body(irm_module_function(m, "main"));
  irm_object *s = NULL;
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = 4;
  ck_assert_ok(irm_dataflow_print_node_ex(body, &opts, &s));
  ck_assert_str_eq(irm_string_data(s), "%0 = gen.unary(const(float32, [17], <elided 17 elements>));\n"
                                       "%1 = gen.binary(%0, const(float32, [4, 4], <elided 16 elements>));\n"
                                       "%1");
  irm_object_release(s);
  /* ffi.Repr: above 16 elements only, no header comment for a node */
  irm_any v = irm_any_object(body);
  ck_assert_ok(irm_repr(&v, &s));
  ck_assert_has(irm_string_data(s), "%0 = gen.unary(const(float32, [17], <elided 17 elements>));\n");
  ck_assert_has(irm_string_data(s), "const(float32, [4, 4], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])");
  irm_object_release(s);
  /* irm_dataflow_print_node prints in full */
  ck_assert_ok(irm_dataflow_print_node(body, &s));
  ck_assert_has(irm_string_data(s), "const(float32, [17], [0, 1, 2, ");
  ck_assert_ptr_null(strstr(irm_string_data(s), "elided"));
  irm_object_release(s);
  /* a Constant node alone */
  irm_object *c = irm_call_arg(irm_call_arg(body, 0), 0);
  v = irm_any_object(c);
  ck_assert_ok(irm_repr(&v, &s));
  ck_assert_str_eq(irm_string_data(s), "const(float32, [17], <elided 17 elements>)");
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

START_TEST(test_options_errors) {
  irm_module *m = parse_ok(small_text);
  irm_object *s = NULL;
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = -1;
  ck_assert_error(irm_dataflow_print_ex(m, &opts, &s), IRM_EVALUE,
                  "ValueError: irm_dataflow_print: elide_larger_than must be 0 (print every element) or more, got -1");
  ck_assert_ptr_null(s);
  ck_assert_error(irm_dataflow_print_node_ex(irm_module_function(m, "main"), &opts, &s), IRM_EVALUE,
                  "ValueError: irm_dataflow_print_node: elide_larger_than must be 0");
  opts.elide_larger_than = 3;
  opts.struct_size = 4;
  ck_assert_error(
      irm_dataflow_print_ex(m, &opts, &s), IRM_EVALUE,
      "ValueError: irm_dataflow_print: opts->struct_size 4 is smaller than the first irm_dataflow_print_options");
  ck_assert_ptr_null(s);
  ck_assert_error(irm_dataflow_print_ex(m, NULL, NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_print: out must not be NULL");
  ck_assert_error(irm_dataflow_print_node_ex(m, NULL, NULL), IRM_EVALUE,
                  "ValueError: irm_dataflow_print_node: out must not be NULL");
  opts.struct_size = sizeof opts;
  ck_assert_error(irm_dataflow_print_ex(irm_module_function(m, "main"), &opts, &s), IRM_ETYPE,
                  "TypeError: ir.Print: expected ir.IRModule, got dataflow.Function");
  ck_assert_error(irm_dataflow_print_node_ex(m, &opts, &s), IRM_ETYPE,
                  "TypeError: ir.Print: expected an IR node, got ir.IRModule");
  ck_assert_ptr_null(s);
  /* a caller built against a newer header with more fields: the known ones count */
  struct {
    irm_dataflow_print_options base;
    int64_t later_field;
  } newer = {{(uint32_t)sizeof newer, 5, NULL, NULL}, 42};
  ck_assert_ok(irm_dataflow_print_ex(m, &newer.base, &s));
  ck_assert_uint_eq(count_of(irm_string_data(s), "<elided "), 1);
  irm_object_release(s);
  irm_object_release(m);
}
END_TEST

/* ---- a note after each elided tensor (the build's model key) ---------------------- */

/* The note: the tensor's first byte in hex, so two tensors that differ there print apart. */
static int first_byte_note(void *ctx, const irm_object *tensor, char note[65]) {
  (*(int *)ctx)++;
  const unsigned char *data = irm_tensor_data_const((const irm_tensor *)tensor);
  snprintf(note, 65, "b%02x", data ? data[0] : 0);
  return 0;
}

static int failing_note(void *ctx, const irm_object *tensor, char note[65]) {
  (void)ctx;
  (void)tensor;
  (void)note;
  return 1;
}

START_TEST(test_elided_note_follows_the_count) {
  irm_module *m = mlp_bound();
  int calls = 0;
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = 16;
  opts.elided_note = first_byte_note;
  opts.elided_note_ctx = &calls;
  irm_object *s = NULL, *plain = print_elided(m, 16);
  ck_assert_ok(irm_dataflow_print_ex(m, &opts, &s));
  size_t elided = count_of(irm_string_data(plain), "<elided ");
  ck_assert_uint_gt(elided, 0);
  ck_assert_int_eq(calls, (int)elided); /* once per elided tensor */
  ck_assert_uint_eq(count_of(irm_string_data(s), " elements b"), elided);
  irm_object_release(s);
  s = NULL;
  /* a caller of the first struct (no note fields) gets no note */
  opts.struct_size = (uint32_t)(offsetof(irm_dataflow_print_options, elide_larger_than) + sizeof(int64_t));
  ck_assert_ok(irm_dataflow_print_ex(m, &opts, &s));
  ck_assert_str_eq(irm_string_data(s), irm_string_data(plain));
  irm_object_release(s);
  s = NULL;
  opts.struct_size = sizeof opts;
  opts.elided_note = failing_note;
  ck_assert_error(irm_dataflow_print_ex(m, &opts, &s), IRM_ERUNTIME,
                  "RuntimeError: module attribute 'params': printing IR: the elided_note of a const(float32) failed");
  ck_assert_ptr_null(s);
  irm_object_release(plain);
  irm_object_release(m);
}
END_TEST

/* ---- the parser refuses elided data ------------------------------------------ */

START_TEST(test_parse_refuses_elided_text) {
  irm_module *m = mlp_bound();
  irm_object *s = print_elided(m, 16);
  irm_module *back = NULL;
  ck_assert_error(irm_dataflow_parse(irm_string_data(s), irm_string_size(s), &back), IRM_EVALUE,
                  "ValueError: line 5, column 27: the data of this const(float32, [32, 64]) was elided when the text "
                  "was printed; print with all constants (ir.Print without options, or elide_larger_than=0) to get "
                  "text that parses");
  ck_assert_ptr_null(back);
  /* ir.Parse: the same error */
  irm_any text = irm_any_object(s);
  ck_assert_int_eq(call_fails("ir.Parse", &text, 1), IRM_EVALUE);
  ck_assert_last_error("ValueError: ir.Parse: line 5, column 27: the data of this const(float32, [32, 64]) was elided");
  irm_object_release(s);
  irm_object_release(m);

  /* an elided constant in an expression, of a scalar shape, of an int dtype */
  ck_assert_parse_error(H "def @main(%x) {\n  %0 = gen.unary(const(int8, [2, 3], <elided 6 elements>));\n  %0\n}\n",
                        IRM_EVALUE,
                        "ValueError: line 3, column 18: the data of this const(int8, [2, 3]) was elided when the text "
                        "was printed; print with all constants (ir.Print without options, or elide_larger_than=0) "
                        "to get text that parses");
  ck_assert_parse_error(H "attributes { s = const(float32, [], <elided>) }\n", IRM_EVALUE,
                        "ValueError: line 2, column 18: the data of this const(float32, []) was elided when the text "
                        "was printed; print with all constants (ir.Print without options, or elide_larger_than=0) "
                        "to get text that parses");
  /* the elided form anywhere else is an unexpected token; unclosed, it is no token */
  ck_assert_parse_error(H "def @main(%x) {\n  %0 = gen.unary(<elided 6 elements>);\n  %0\n}\n", IRM_EVALUE,
                        "ValueError: line 3, column 18: expected an expression (a %variable, a %temporary, a "
                        "@function, an op or a const), got '<elided 6 elements>'");
  ck_assert_parse_error(H "attributes { s = const(int8, [2], <elided 2 elements) }\n", IRM_EVALUE,
                        "ValueError: line 2, column 35: expected '[' and the values of a const, got '<'");
  ck_assert_parse_error(H "attributes { s = const(int8, [2], <elidedx>) }\n", IRM_EVALUE,
                        "ValueError: line 2, column 35: expected '[' and the values of a const, got '<'");
}
END_TEST

/* ---- ir.Print's options ---------------------------------------------------------- */

START_TEST(test_print_global_takes_options) {
  irm_module *m = mlp_bound();
  irm_object *want = print_elided(m, 16), *full = NULL;
  ck_assert_ok(irm_dataflow_print(m, &full));
  irm_object *opts = map1("elide_larger_than", irm_any_int(16));
  irm_any args[2] = {irm_any_object(m), irm_any_object(opts)};
  irm_any ret = call_ok("ir.Print", args, 2);
  ck_assert_str_eq(irm_string_data(ret.v_obj), irm_string_data(want));
  irm_any_release(&ret);
  /* none, an empty Map and 0 print everything */
  irm_any none[2] = {irm_any_object(m), irm_any_none()};
  ret = call_ok("ir.Print", none, 2);
  ck_assert_str_eq(irm_string_data(ret.v_obj), irm_string_data(full));
  irm_any_release(&ret);
  irm_object *empty = new_map(NULL, NULL, 0), *zero = map1("elide_larger_than", irm_any_int(0));
  args[1] = irm_any_object(empty);
  ret = call_ok("ir.Print", args, 2);
  ck_assert_str_eq(irm_string_data(ret.v_obj), irm_string_data(full));
  irm_any_release(&ret);
  args[1] = irm_any_object(zero);
  ret = call_ok("ir.Print", args, 2);
  ck_assert_str_eq(irm_string_data(ret.v_obj), irm_string_data(full));
  irm_any_release(&ret);
  /* a node */
  irm_any node[2] = {irm_any_object((irm_object *)irm_module_function(m, "main")), irm_any_object(opts)};
  ret = call_ok("ir.Print", node, 2);
  ck_assert_has(irm_string_data(ret.v_obj), "fn (%data: Tensor[(1, 64), float32])");
  ck_assert_has(irm_string_data(ret.v_obj), "const(float32, [32, 64], <elided 2048 elements>)");
  irm_any_release(&ret);
  /* errors */
  irm_object *typo = map1("elide_larger_tan", irm_any_int(3)), *neg = map1("elide_larger_than", irm_any_int(-2)),
             *str = map1("elide_larger_than", irm_any_str("16"));
  args[1] = irm_any_object(typo);
  ck_assert_int_eq(call_fails("ir.Print", args, 2), IRM_EATTR);
  ck_assert_last_error("AttributeError: ir.Print: unknown option 'elide_larger_tan' (did you mean "
                       "'elide_larger_than'?); options: elide_larger_than");
  args[1] = irm_any_object(neg);
  ck_assert_int_eq(call_fails("ir.Print", args, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: ir.Print: option 'elide_larger_than' must be 0 (print every element) or more, "
                       "got -2");
  args[1] = irm_any_object(str);
  ck_assert_int_eq(call_fails("ir.Print", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.Print: option 'elide_larger_than': expected int");
  args[1] = irm_any_int(16);
  ck_assert_int_eq(call_fails("ir.Print", args, 2), IRM_ETYPE);
  ck_assert_last_error("TypeError: ir.Print: argument 2: expected ffi.Map");
  irm_any three[3] = {irm_any_object(m), irm_any_none(), irm_any_none()};
  ck_assert_int_eq(call_fails("ir.Print", three, 3), IRM_ETYPE);
  irm_object *all[] = {typo, neg, str, empty, zero, opts, full, want, m};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) irm_object_release(all[i]);
}
END_TEST

/* ---- the printing instrument --------------------------------------------------- */

/* Runs BindParams on the MLP inside a context with inst and gives what was
 * printed on stdout (malloc'd). */
static char *bind_params_printed(irm_instrument *inst) {
  irm_module *m = NULL, *out = NULL;
  irm_pass *bind = NULL;
  ck_assert_ok(irm_dataflow_example_model("mlp", &m));
  ck_assert_ok(irm_pass_get("BindParams", NULL, &bind));
  irm_any item = irm_any_object(inst);
  irm_object *insts = new_array(&item, 1);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, insts, &ctx));
  fflush(stdout);
  FILE *tmp = tmpfile();
  ck_assert_ptr_nonnull(tmp);
  int saved = dup(1);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(fileno(tmp), 1), 0);
  ck_assert_ok(irm_pass_context_enter(ctx));
  ck_assert_ok(irm_pass_run(bind, m, &out));
  ck_assert_ok(irm_pass_context_exit(ctx));
  fflush(stdout);
  ck_assert_int_ge(dup2(saved, 1), 0);
  close(saved);
  long n = ftell(tmp);
  ck_assert_int_gt(n, 0);
  char *buf = malloc((size_t)n + 1);
  rewind(tmp);
  ck_assert_uint_eq(fread(buf, 1, (size_t)n, tmp), (size_t)n);
  buf[n] = '\0';
  fclose(tmp);
  irm_object *all[] = {ctx, insts, out, m, bind};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) irm_object_release(all[i]);
  return buf;
}

START_TEST(test_printing_instrument_elides_by_default) {
  irm_instrument *inst = NULL;
  ck_assert_ok(irm_printing_instrument_new(NULL, 1, 1, &inst));
  char *out = bind_params_printed(inst);
  ck_assert_msg(strlen(out) < 8000, "%zu bytes:\n%s", strlen(out), out);
  ck_assert_has(out, "; IR before pass 'BindParams'\n" H "// 4 tensors with more than 16 elements elided; ");
  ck_assert_has(out, "; IR after pass 'BindParams'\n" H "// 8 tensors with more than 16 elements elided; ");
  ck_assert_has(out, "%0 = nn.dense(%data, const(float32, [32, 64], <elided 2048 elements>), units=32);");
  irm_object_release(inst);
  free(out);
  /* elide_larger_than 0: every tensor in full */
  ck_assert_ok(irm_printing_instrument_new_ex(NULL, 0, 1, 0, &inst));
  out = bind_params_printed(inst);
  ck_assert_uint_gt(strlen(out), 70000);
  ck_assert_ptr_null(strstr(out, "elided"));
  ck_assert_has(out, "\"fc1_weight\": const(float32, [32, 64], [0.188466117, ");
  irm_object_release(inst);
  free(out);
  /* another limit */
  ck_assert_ok(irm_printing_instrument_new_ex(NULL, 0, 1, 2000, &inst));
  out = bind_params_printed(inst);
  ck_assert_has(out, "; IR after pass 'BindParams'\n" H "// 2 tensors with more than 2000 elements elided; ");
  irm_object_release(inst);
  free(out);
  ck_assert_error(irm_printing_instrument_new_ex(NULL, 0, 1, -1, &inst), IRM_EVALUE,
                  "ValueError: transform.PassPrintingInstrument: elide_larger_than must be 0 (print every element) "
                  "or more, got -1");
  ck_assert_ptr_null(inst);
}
END_TEST

START_TEST(test_printing_instrument_global_takes_the_limit) {
  irm_any args[4] = {irm_any_str("all"), irm_any_bool(false), irm_any_bool(true), irm_any_int(0)};
  irm_object *inst = call_obj("transform.PassPrintingInstrument", args, 4, "transform.PassInstrument");
  char *out = bind_params_printed((irm_instrument *)inst);
  ck_assert_ptr_null(strstr(out, "elided"));
  ck_assert_uint_gt(strlen(out), 70000);
  free(out);
  irm_object_release(inst);
  inst = call_obj("transform.PassPrintingInstrument", args, 3, "transform.PassInstrument");
  out = bind_params_printed((irm_instrument *)inst);
  ck_assert_has(out, "// 8 tensors with more than 16 elements elided; ");
  free(out);
  irm_object_release(inst);
  args[3] = irm_any_int(-5);
  ck_assert_int_eq(call_fails("transform.PassPrintingInstrument", args, 4), IRM_EVALUE);
  ck_assert_last_error("ValueError: transform.PassPrintingInstrument: argument 4 (elide_larger_than) must be 0 (print "
                       "every element) or more, got -5");
  args[3] = irm_any_str("all");
  ck_assert_int_eq(call_fails("transform.PassPrintingInstrument", args, 4), IRM_ETYPE);
  ck_assert_last_error("TypeError: transform.PassPrintingInstrument: argument 4: expected int");
}
END_TEST

static void setup(void) { ck_assert_ok(irm_test_gen_ops()); }

static Suite *ir_text_elide_suite(void) {
  Suite *s = suite_create("ir_text_elide");
  TCase *c = tcase_create("elide");
  tcase_add_checked_fixture(c, setup, NULL);
  tcase_add_test(c, test_mlp_after_bind_params_prints_small);
  tcase_add_test(c, test_limit_counts_elements_and_reaches_every_tensor);
  tcase_add_test(c, test_nodes_elide_and_their_repr_elides_by_default);
  tcase_add_test(c, test_options_errors);
  tcase_add_test(c, test_elided_note_follows_the_count);
  tcase_add_test(c, test_parse_refuses_elided_text);
  tcase_add_test(c, test_print_global_takes_options);
  tcase_add_test(c, test_printing_instrument_elides_by_default);
  tcase_add_test(c, test_printing_instrument_global_takes_the_limit);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return run_suite(ir_text_elide_suite()); }
