/* The IR text parser's errors (dataflow/text.h): every malformed text gives its
 * kind and exact message, with the line and column of the fault; failures
 * leave nothing behind (the ASan build checks for leaks). */
#include "check_ir_text_util.h"

#define H "#[version = \"irm-0.1\"]\n"

typedef struct bad_text {
  const char *text;
  int code;
  const char *msg;
} bad_text;

static const bad_text cases[] = {
    /* the header */
    {"def @main() { () }", IRM_EVALUE,
     "ValueError: line 1, column 1: expected the header #[version = \"irm-0.1\"], got 'def'"},
    {"", IRM_EVALUE, "ValueError: line 1, column 1: expected the header #[version = \"irm-0.1\"], got end of input"},
    {"#[version = \"irm-0.2\"]\n", IRM_EVALUE,
     "ValueError: line 1, column 13: unsupported version \"irm-0.2\" (this is \"irm-0.1\")"},
    {"#[version = \"irm-0.1\", frozen = maybe]", IRM_EVALUE,
     "ValueError: line 1, column 33: expected true or false, got 'maybe'"},
    /* tokens */
    {H "def @main(%x) { $ }\n", IRM_EVALUE,
     "ValueError: line 2, column 17: expected an expression (a %variable, a %temporary, a @function, an op or a "
     "const), got '$'"},
    {H "attributes { s = \"abc }\n", IRM_EVALUE,
     "ValueError: line 2, column 18: expected a value, got a string that is not closed"},
    {H "attributes { s = \"a\\qb\" }\n", IRM_EVALUE, "ValueError: line 2, column 20: unknown escape '\\q' in a string"},
    {H "attributes { s = \"\\ud800\" }\n", IRM_EVALUE,
     "ValueError: line 2, column 19: a \\u escape of a high surrogate must be followed by a low surrogate"},
    {H "attributes { s = \"\\x4\" }\n", IRM_EVALUE,
     "ValueError: line 2, column 19: expected two hex digits after \\x in a string"},
    {H "attributes { s = \"a\xff\" }\n", IRM_EVALUE,
     "ValueError: line 2, column 20: the text is not valid UTF-8 (byte 0xff)"},
    {H "// \xc3\xa9t\xc3\xa9\n  attributes { s = \"\xc3\xa9\xe2\x82\" }\n", IRM_EVALUE,
     "ValueError: line 3, column 22: the text is not valid UTF-8 (byte 0xe2)"},
    {H "attributes { i = 99999999999999999999 }", IRM_EVALUE,
     "ValueError: line 2, column 18: integer 99999999999999999999 is out of the range of int64"},
    /* module attributes */
    {H "attributes { executor = Runtime(\"crt\") }\n", IRM_ETYPE,
     "TypeError: line 2, column 14: module attribute 'executor': expected ir.Executor, got ir.Runtime"},
    {H "attributes { mod_name = 1 }\n", IRM_ETYPE,
     "TypeError: line 2, column 14: module attribute 'mod_name': expected str, got int 1"},
    {H "attributes { mod_name = \"a\", mod_name = \"b\" }\n", IRM_EVALUE,
     "ValueError: line 2, column 30: module attribute 'mod_name' is given twice"},
    {H "attributes { a = 1 b = 2 }", IRM_EVALUE,
     "ValueError: line 2, column 20: expected ',' or '}' after a module attribute, got 'b'"},
    {H "attributes { m = {\"k\": 1, \"k\": 2} }", IRM_EVALUE,
     "ValueError: line 2, column 27: key \"k\" appears twice in a map"},
    {H "attributes { e = Executor(\"aott\") }\n", IRM_EVALUE,
     "ValueError: line 2, column 18: unknown executor kind 'aott' (did you mean 'aot'?); registered kinds: aot, graph, vm"},
    {H "attributes { t = Target(42) }\n", IRM_EVALUE,
     "ValueError: line 2, column 25: expected a target string or a {config}, got '42'"},
    /* tensor literals */
    {H "attributes { c = const(int8, [2], [1, 300]) }\n", IRM_EVALUE,
     "ValueError: line 2, column 39: 300 is out of the range of int8"},
    {H "attributes { c = const(int32, [1], [1.5]) }\n", IRM_EVALUE,
     "ValueError: line 2, column 37: expected an integer element, got '1.5'"},
    {H "attributes { c = const(float32, [2, 2], [1, 2, 3]) }\n", IRM_EVALUE,
     "ValueError: line 2, column 41: const: the shape holds 4 values, got 3"},
    {H "attributes { c = const(float32, [1000000, 1000000], [1]) }\n", IRM_EVALUE,
     "ValueError: line 2, column 53: const: the shape holds 1000000000000 values, got 1"},
    {H "attributes { c = const(float33, [1], [1]) }\n", IRM_EVALUE,
     "ValueError: line 2, column 24: unknown dtype 'float33' (did you mean 'float32'?); the dtypes are float32, "
     "float16, int32, int8, uint8, float64, int64, bool"},
    /* types */
    {H "def @main(%x: Tensor[(1, -2), float32]) { %x }", IRM_EVALUE,
     "ValueError: line 2, column 26: dimension -2 is negative"},
    {H "def @main(%x: (Tensor[(1), float32])) { %x }", IRM_EVALUE,
     "ValueError: line 2, column 15: a tuple type of one field is written (T,)"},
    {H "def @main(%x: fn (Tensor[(1), float32])) { %x }", IRM_EVALUE,
     "ValueError: line 2, column 40: expected '->' and the result type, got ')'"},
    {H "def @main(%x: Tensor[(1) float32]) { %x }", IRM_EVALUE,
     "ValueError: line 2, column 26: expected ',' and the dtype after the shape, got 'float32'"},
    /* functions and lines */
    {H "def main() { () }", IRM_EVALUE, "ValueError: line 2, column 5: expected the @name of the function, got 'main'"},
    {H "def @main(%x) { %x }\ndef @main(%y) { %y }\n", IRM_EVALUE,
     "ValueError: line 3, column 5: function @main is defined twice"},
    {H "def @main(%x) { %x } extra\n", IRM_EVALUE,
     "ValueError: line 2, column 22: expected 'def' or the end of the text, got 'extra'"},
    {H "def @main(%x, %x) { %x }", IRM_EVALUE,
     "ValueError: line 2, column 15: '%x' is already defined (line 2, column 11)"},
    {H "def @main(%x) {\n  let %x = %x;\n  %x\n}", IRM_EVALUE,
     "ValueError: line 3, column 7: '%x' is already defined (line 2, column 11)"},
    {H "def @main(%x) {\n  %0 = gen.unary(%x);\n  %0 = gen.unary(%0);\n  %0\n}", IRM_EVALUE,
     "ValueError: line 4, column 3: '%0' is already defined (line 3, column 3)"},
    {H "def @main(%data) {\n  %0 = gen.unary(%dat);\n  %0\n}", IRM_EVALUE,
     "ValueError: line 3, column 18: undefined variable '%dat' (did you mean '%data'?)"},
    {H "def @main(%x) {\n  %1 = gen.unary(%3);\n  %1\n}", IRM_EVALUE,
     "ValueError: line 3, column 18: undefined temporary '%3'"},
    /* temporaries numbered far ahead, or with a leading zero, are kept by
     * name rather than by number: the same rules hold for them */
    {H "def @main(%x) {\n  %99999999 = gen.unary(%x);\n  %99999999 = gen.unary(%x);\n  %99999999\n}", IRM_EVALUE,
     "ValueError: line 4, column 3: '%99999999' is already defined (line 3, column 3)"},
    {H "def @main(%x) {\n  %0 = gen.unary(%x);\n  %00 = gen.unary(%0);\n  %00 = gen.unary(%0);\n  %00\n}", IRM_EVALUE,
     "ValueError: line 5, column 3: '%00' is already defined (line 4, column 3)"},
    {H "def @main(%x) {\n  %5 = gen.unary(%x);\n  %1 = gen.unary(%2);\n  %1\n}", IRM_EVALUE,
     "ValueError: line 4, column 18: undefined temporary '%2'"},
    {H "def @main(%x) {\n  %5 = gen.unary(%x);\n  %1 = gen.unary(%05);\n  %1\n}", IRM_EVALUE,
     "ValueError: line 4, column 18: undefined temporary '%05'"},
    {H "def @f(%x) {\n  %0 = gen.unary(%x);\n  %0\n}\ndef @g(%x) {\n  %1 = gen.unary(%0);\n  %1\n}", IRM_EVALUE,
     "ValueError: line 7, column 18: undefined temporary '%0'"},
    {H "def @main(%x) {\n  %0 = fn (%a) {\n    %1 = gen.unary(%a);\n    %1\n  };\n  %99999999 = gen.unary(%x);\n"
       "  %2 = (%1, %99999999);\n  %2\n}",
     IRM_EVALUE, "ValueError: line 8, column 9: '%1' uses variables of a block that has ended (line 4, column 5)"},
    {H
     "def @main(%x) {\n  %99999999 = gen.unary(%x);\n  %0 = gen.unary(%99999999);\n  %007 = gen.unary(%0);\n"
     "  %1 = gen.binary(%007, %99999999);\n  %1\n}\ndef @g(%x) {\n  %0 = gen.unary(%x);\n  %1 = gen.unary(%0);\n  %1\n}",
     IRM_EVALUE, NULL}, /* every spelling resolves; @g's %0 and %1 are its own */
    {H "def @f() { %0 = fn (%a) { %a }; %a }", IRM_EVALUE,
     "ValueError: line 2, column 33: '%a' is used outside the block that binds it (line 2, column 21)"},
    {H "def @f(%x) {\n  %0 = fn (%a) {\n    %1 = gen.unary(%a);\n    %1\n  };\n  %2 = gen.unary(%1);\n  %2\n}",
     IRM_EVALUE, "ValueError: line 7, column 18: '%1' uses variables of a block that has ended (line 4, column 5)"},
    {H "def @f(%x) {\n  %0 = {\n    let %y = %x;\n    %y\n  };\n  %1 = gen.unary(%y);\n  %1\n}", IRM_EVALUE,
     "ValueError: line 7, column 18: '%y' is used outside the block that binds it (line 4, column 9)"},
    {H "def @f(%x) {\n  %0 = fn (%a) {\n    %1 = gen.unary(%x);\n    %1\n  };\n  %2 = gen.unary(%1);\n  %2\n}",
     IRM_EVALUE, NULL}, /* %1 needs only %x: fine outside */
    {H "def @f() { %0 = fn (%a) { %a }; %0 }\ndef @g(%a) { %a }", IRM_EVALUE, NULL}, /* names are per def */
    {H "def @f() { %y }\ndef @g(%y) { %y }", IRM_EVALUE, "ValueError: line 2, column 12: undefined variable '%y'"},
    {H "def @main(%x) {\n  %0 = gen.unary(%x\n  %0\n}", IRM_EVALUE,
     "ValueError: line 4, column 3: expected ',' or ')' after an argument, got '%0'"},
    {H "def @main(%x) { %0 = gen.unary(%x) ; %0 ", IRM_EVALUE,
     "ValueError: line 2, column 41: expected '}' after the result of the block, got end of input"},
    {H "def @main(%x) { %0 = gen.unary(%x) %0 }", IRM_EVALUE,
     "ValueError: line 2, column 36: expected ';' at the end of the line, got '%0'"},
    {H "def @main(%x) { %0 = (%x); %0 }", IRM_EVALUE,
     "ValueError: line 2, column 22: a tuple of one field is written (%x,)"},
    {H "def @main(%x) { %0 = %x.-1; %0 }", IRM_EVALUE,
     "ValueError: line 2, column 25: expected a field index after '.', got '-1'"},
    {H "def @main(%x) { let %y = gen.unary(%x); %y }", IRM_EVALUE,
     "ValueError: line 2, column 35: expected ';' after the let, got '('"},
    {H "def @main(%x) { %0 = gen.unary(alpha=1.0, %x); %0 }", IRM_EVALUE,
     "ValueError: line 2, column 43: expected an attribute key=value (arguments come first), got '%x'"},
    {H "def @main(%x) { %0 = gen.unary(%x, alpha=1, alpha=2); %0 }", IRM_EVALUE,
     "ValueError: line 2, column 45: attribute 'alpha' is given twice"},
    /* constructors' errors, with the place */
    {H "def @main(%x) {\n  %0 = gen.unar(%x);\n  %0\n}", IRM_EKEY,
     "KeyError: line 3, column 8: unknown op 'gen.unar' (did you mean 'gen.unary'?)"},
    {H "def @main(%x) {\n  %0 = gen.binary(%x);\n  %0\n}", IRM_ETYPE,
     "TypeError: line 3, column 8: gen.binary takes 2 arguments, got 1"},
    {H "def @main(%x) {\n  %0 = gen.unary(%x, alpha=\"big\");\n  %0\n}", IRM_ETYPE,
     "TypeError: line 3, column 8: attributes of gen.unary: op 'gen.unary' option 'alpha': expected float, got str 'big'"},
    {H "def @main(%x) {\n  %0 = gen.unary(%x, beta=1);\n  %0\n}", IRM_EATTR,
     "AttributeError: line 3, column 8: attributes of gen.unary: op 'gen.unary' has no option 'beta'"},
    {H "def @main(%x) { %0 = @main(%x, alpha=1); %0 }", IRM_EVALUE,
     "ValueError: line 2, column 22: irm_call_new: only calls of ops take attributes; this call of a GlobalVar got 1"},
    {H "def @main(%x) attributes {Primitive = 2} { %x }", IRM_ETYPE, "TypeError: line 2, column 5: "},
    {H "def @main(%x: Tensor[(1,), float32]) { %0 = %x : Tensor[(2,), float32]; %0 }", IRM_ETYPE,
     "TypeError: line 2, column 50: irm_expr_with_type: the type of a Var is fixed; it cannot become Tensor[(2,), "
     "float32]"},
    {H "def @main(%x) { %0 = const(int8, [], [1]) : Tensor[(), float32]; %0 }", IRM_ETYPE,
     "TypeError: line 2, column 45: "},
    /* regression: a shape whose element count overflows int64 was accepted */
    {H "def @main(%x: Tensor[(4294967296, 4294967296), float32]) { %x }", IRM_EVALUE,
     "ValueError: line 2, column 15: irm_tensor_type_new: shape (4294967296, 4294967296) has more elements than int64 "
     "holds (at most 9223372036854775807)"},
};

START_TEST(test_each_malformed_text) {
  ck_assert_ok(irm_test_gen_ops());
  const bad_text *c = &cases[_i];
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(c->text, strlen(c->text), &m);
  if (!c->msg) { /* a text that looks wrong but is fine */
    ck_assert_msg(rc == 0, "case %d: %s", _i, irm_last_error());
    irm_object_release(m);
    return;
  }
  ck_assert_msg(rc == c->code, "case %d: expected status %d, got %d (%s)", _i, c->code, rc, irm_last_error());
  ck_assert_ptr_null(m);
  if (c->msg[strlen(c->msg) - 1] == ' ') ck_assert_last_error(c->msg); /* a prefix */
  else ck_assert_str_eq(irm_last_error(), c->msg);
}
END_TEST

START_TEST(test_arguments_and_text_with_nul_bytes) {
  irm_module *m = NULL;
  ck_assert_error(irm_dataflow_parse("x", 1, NULL), IRM_EVALUE, "ValueError: irm_dataflow_parse: out must not be NULL");
  ck_assert_error(irm_dataflow_parse(NULL, 3, &m), IRM_EVALUE, "ValueError: irm_dataflow_parse: text must not be NULL");
  static const char nul[] = H "attributes { a = 1\0 }";
  ck_assert_error(irm_dataflow_parse(nul, sizeof nul - 1, &m), IRM_EVALUE,
                  "ValueError: line 2, column 19: expected ',' or '}' after a module attribute, got '");
  static const char key[] = H "attributes { \"a\\u0000b\" = 1 }";
  ck_assert_error(irm_dataflow_parse(key, sizeof key - 1, &m), IRM_EVALUE,
                  "ValueError: line 2, column 14: an attribute name holds a NUL byte");
  /* text that is not NUL-terminated is read only up to len */
  const char *text = H "def @f(%x) { %x }garbage";
  ck_assert_ok(irm_dataflow_parse(text, strlen(text) - 7, &m));
  irm_object_release(m);
  /* a long token is cut in the message */
  const char *long_tok = H "attributes { a = 1 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa }";
  ck_assert_error(irm_dataflow_parse(long_tok, strlen(long_tok), &m), IRM_EVALUE,
                  "ValueError: line 2, column 20: expected ',' or '}' after a module attribute, got "
                  "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'");
}
END_TEST

START_TEST(test_empty_module_and_comments) {
  irm_module *m = parse_ok("// leading comment\n#[version = \"irm-0.1\"] // after\n// end");
  ck_assert_uint_eq(irm_module_function_count(m), 0);
  irm_object_release(m);
}
END_TEST

static Suite *ir_text_errors_suite(void) {
  Suite *s = suite_create("ir_text_errors");
  TCase *c = tcase_create("errors");
  tcase_add_loop_test(c, test_each_malformed_text, 0, (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(c, test_arguments_and_text_with_nul_bytes);
  tcase_add_test(c, test_empty_module_and_comments);
  suite_add_tcase(s, c);
  return s;
}

int main(void) { return run_suite(ir_text_errors_suite()); }
