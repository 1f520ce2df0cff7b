/* Textual pipelines (pass.h, docs/architecture.md, "Passes"): irm_pipeline_parse and
 * irm_pipeline_print, transform.ParsePipeline and transform.PrintPipeline. */
#include "check_pass_util.h"

/* Parses text (asserting success). */
static irm_pass *parse(const char *text) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_pipeline_parse(text, &p));
  ck_assert_ptr_nonnull(p);
  return p;
}

/* p's text, in buf. */
static void print_to(const irm_pass *p, char *buf, size_t size) {
  irm_object *s = NULL;
  ck_assert_ok(irm_pipeline_print(p, &s));
  snprintf(buf, size, "%s", irm_string_data(s));
  irm_object_release(s);
}

/* text parses, prints as expected, and that prints the same again. */
static void assert_round_trip(const char *text, const char *expected) {
  char first[1024], second[1024];
  irm_pass *p = parse(text);
  print_to(p, first, sizeof first);
  ck_assert_str_eq(first, expected);
  irm_pass *again = parse(first);
  print_to(again, second, sizeof second);
  ck_assert_str_eq(second, first);
  irm_object_release(again);
  irm_object_release(p);
}

static void assert_parse_fails(const char *text, int code, const char *prefix, const char *mention) {
  irm_pass *p = (irm_pass *)&p;
  ck_assert_error(irm_pipeline_parse(text, &p), code, prefix);
  ck_assert_ptr_null(p);
  if (mention) ck_assert_error_mentions(mention);
}

START_TEST(test_pipeline_single_pass_is_a_pipeline) {
  register_test_passes();
  irm_pass *p = parse("  TestNop ");
  ck_assert_str_eq(irm_pass_name(p), "TestNop");
  ck_assert_ptr_null(irm_sequential_passes(p));
  irm_object_release(p);
  assert_round_trip("TestNop", "TestNop");
}
END_TEST

START_TEST(test_pipeline_flat_sequential_round_trips) {
  register_test_passes();
  irm_pass *p = parse("Sequential( TestNop ,\n FoldConstant,TestMark )");
  const irm_object *passes = irm_sequential_passes(p);
  ck_assert_ptr_nonnull(passes);
  ck_assert_uint_eq(irm_array_size(passes), 3);
  ck_assert_str_eq(irm_pass_name(irm_array_at(passes, 1)->v_obj), "FoldConstant");
  ck_assert_str_eq(irm_pass_name(p), "sequential");
  ck_assert_int_eq(irm_pass_opt_level(p), 0);
  irm_object_release(p);
  assert_round_trip("Sequential( TestNop ,\n FoldConstant,TestMark )", "Sequential(TestNop,FoldConstant,TestMark)");
  assert_round_trip("Sequential()", "Sequential()");
}
END_TEST

START_TEST(test_pipeline_nested_sequential_round_trips) {
  register_test_passes();
  assert_round_trip("Sequential(TestNop,Sequential(Sequential(TestMark),TestOpts{count=3}),TestNop)",
                    "Sequential(TestNop,Sequential(Sequential(TestMark),TestOpts{count=3}),TestNop)");
}
END_TEST

START_TEST(test_pipeline_sequential_name_and_opt_level_round_trip) {
  register_test_passes();
  irm_pass *nop = get_pass("TestNop");
  irm_pass *seq = sequential_of(&nop, 1, 3, "my pipeline");
  char text[256];
  print_to(seq, text, sizeof text);
  ck_assert_str_eq(text, "Sequential{name='my pipeline',opt_level=3}(TestNop)");
  irm_pass *back = parse(text);
  ck_assert_str_eq(irm_pass_name(back), "my pipeline");
  ck_assert_int_eq(irm_pass_opt_level(back), 3);
  irm_object_release(back);
  irm_object_release(seq);
  irm_object_release(nop);
}
END_TEST

START_TEST(test_pipeline_options_of_each_type_round_trip) {
  register_test_passes();
  const char *good = "TestOpts{sizes=[1, -2,0x10], names=[a,'b,c',''], label='it\\'s \\\\ ok', ratio=0.5,"
                     " flag=TRUE, count=-4, device='llvm -mcpu=cortex-a72'}";
  irm_pass *p = parse(good);
  const irm_object *o = irm_pass_options(p);
  const irm_any *v = irm_map_find_cstr(o, "flag");
  ck_assert_int_eq(v->type_code, IRM_BOOL);
  ck_assert_int_eq(v->v_int, 1);
  ck_assert_int_eq(irm_map_find_cstr(o, "count")->v_int, -4);
  ck_assert(irm_map_find_cstr(o, "ratio")->v_float == 0.5);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(o, "label")->v_obj), "it's \\ ok");
  const irm_object *names = irm_map_find_cstr(o, "names")->v_obj;
  ck_assert_uint_eq(irm_array_size(names), 3);
  ck_assert_str_eq(irm_string_data(irm_array_at(names, 1)->v_obj), "b,c");
  ck_assert_str_eq(irm_string_data(irm_array_at(names, 2)->v_obj), "");
  const irm_object *sizes = irm_map_find_cstr(o, "sizes")->v_obj;
  ck_assert_int_eq(irm_array_at(sizes, 2)->v_int, 16);
  ck_assert(irm_is_target(irm_map_find_cstr(o, "device")->v_obj));
  irm_object_release(p);
  char printed[512];
  p = parse(good);
  print_to(p, printed, sizeof printed);
  irm_object_release(p);
  ck_assert_msg(strncmp(printed, "TestOpts{count=-4,device='llvm ", 31) == 0, "got %s", printed);
  ck_assert_msg(strstr(printed, ",flag=true,label='it\\'s \\\\ ok',names=[a,'b,c',''],ratio=0.5,sizes=[1,-2,16]}"),
                "got %s", printed);
  assert_round_trip(printed, printed);
}
END_TEST

START_TEST(test_pipeline_float_prints_exactly) {
  register_test_passes();
  assert_round_trip("TestOpts{ratio=0.1}", "TestOpts{ratio=0.10000000000000001}");
  assert_round_trip("TestOpts{ratio=3}", "TestOpts{ratio=3}");
  assert_round_trip("TestOpts{names=[],sizes=7}", "TestOpts{names=[],sizes=[7]}");
}
END_TEST

START_TEST(test_pipeline_parse_equals_structurally) {
  register_test_passes();
  irm_pass *a = parse("Sequential(TestNop,TestOpts{label=x,count=2})");
  irm_pass *b = parse("Sequential(TestNop,TestOpts{count=2,label='x'})");
  char ta[256], tb[256];
  print_to(a, ta, sizeof ta);
  print_to(b, tb, sizeof tb);
  ck_assert_str_eq(ta, tb);
  ck_assert_str_eq(ta, "Sequential(TestNop,TestOpts{count=2,label=x})");
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_pipeline_unknown_pass_suggests_closest) {
  register_test_passes();
  irm_pass *p = NULL;
  ck_assert_int_eq(irm_pipeline_parse("Sequential(FoldConstnt)", &p), IRM_EVALUE);
  ck_assert_str_eq(irm_last_error(), "ValueError: pipeline 'Sequential(FoldConstnt)': unknown pass 'FoldConstnt' "
                                     "at position 11 (did you mean 'FoldConstant'?)");
  assert_parse_fails("Sequentail(TestNop)", IRM_EVALUE, "ValueError: pipeline", "did you mean 'Sequential'?");
  assert_parse_fails("Zzzzzzzzzzzz", IRM_EVALUE,
                     "ValueError: pipeline 'Zzzzzzzzzzzz': unknown pass 'Zzzzzzzzzzzz' "
                     "at position 0",
                     NULL);
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

START_TEST(test_pipeline_unknown_option_suggests_closest) {
  register_test_passes();
  assert_parse_fails("TestOpts{cuont=1}", IRM_EATTR, "AttributeError: pipeline 'TestOpts{cuont=1}': ",
                     "pass 'TestOpts' has no option 'cuont' at position 9 (did you mean 'count'?)");
  assert_parse_fails("Sequential{nme=x}()", IRM_EATTR, "AttributeError: ", "did you mean 'name'?");
}
END_TEST

/* Regression: opt_level was cast to int, so 4294967299 ran as 3. */
START_TEST(test_pipeline_opt_level_out_of_int_range_is_an_error_quoting_the_text) {
  register_test_passes();
  assert_parse_fails("Sequential{opt_level=4294967299}(TestNop)", IRM_EVALUE, "ValueError: ",
                     "opt_level '4294967299' of a Sequential at position 21 is out of range: it must be between 0 "
                     "and 2147483647");
  assert_parse_fails("Sequential{opt_level=4294967296}(TestNop)", IRM_EVALUE, "ValueError: ", "'4294967296'");
  assert_parse_fails("Sequential{opt_level=2147483648}(TestNop)", IRM_EVALUE, "ValueError: ", "'2147483648'");
  assert_parse_fails("Sequential{opt_level=0x80000000}(TestNop)", IRM_EVALUE, "ValueError: ", "'0x80000000'");
  assert_parse_fails("Sequential{opt_level=-1}(TestNop)", IRM_EVALUE, "ValueError: ", "opt_level '-1'");
  assert_parse_fails("Sequential{opt_level=99999999999999999999}(TestNop)", IRM_EVALUE,
                     "ValueError: ", "int '99999999999999999999' is out of range");
  irm_pass *p = parse("Sequential{opt_level=2147483647}(TestNop)");
  ck_assert_int_eq(irm_pass_opt_level(p), 2147483647);
  irm_object_release(p);
}
END_TEST

START_TEST(test_pipeline_bad_value_names_option_and_position) {
  register_test_passes();
  assert_parse_fails("TestOpts{count=abc}", IRM_EVALUE, "ValueError: pipeline",
                     "option 'count' of pass 'TestOpts' at position 15: expected int, got 'abc'");
  assert_parse_fails("TestOpts{flag=maybe}", IRM_EVALUE, "ValueError: ", "expected bool");
  assert_parse_fails("TestOpts{sizes=[1,x]}", IRM_EVALUE, "ValueError: ", "expected int, got 'x'");
  assert_parse_fails("TestOpts{count=[1]}", IRM_EVALUE, "ValueError: ", "expected int, got a [list]");
  assert_parse_fails("TestOpts{config=x}", IRM_EVALUE, "ValueError: ", "no text form");
  assert_parse_fails("TestOpts{count=1,count=2}", IRM_EVALUE, "ValueError: ", "given twice (again at position 17)");
  assert_parse_fails("TestOpts{count=}", IRM_EVALUE, "ValueError: ", "expected a value, got '}' at position 15");
}
END_TEST

START_TEST(test_pipeline_unbalanced_brackets_give_positions) {
  register_test_passes();
  assert_parse_fails("Sequential(TestNop", IRM_EVALUE,
                     "ValueError: ", "unbalanced '(' at position 10: expected ')' before the end of the text");
  assert_parse_fails("TestOpts{count=1", IRM_EVALUE, "ValueError: ", "unbalanced '{' at position 8");
  assert_parse_fails("TestOpts{names=[a,b}", IRM_EVALUE, "ValueError: ", "expected ',' or ']', got '}' at position 19");
  assert_parse_fails("TestOpts{label='abc}", IRM_EVALUE, "ValueError: ", "unbalanced quote at position 15");
  assert_parse_fails("Sequential(TestNop))", IRM_EVALUE, "ValueError: ", "unexpected ')' at position 19");
  assert_parse_fails("Sequential TestNop", IRM_EVALUE,
                     "ValueError: ", "expected '(' after Sequential, got 'T' at position 11");
  assert_parse_fails("Sequential(TestNop,)", IRM_EVALUE,
                     "ValueError: ", "expected a pass name, got ')' at position 19");
}
END_TEST

START_TEST(test_pipeline_empty_and_trailing_text_fail) {
  register_test_passes();
  assert_parse_fails("", IRM_EVALUE, "ValueError: pipeline '': the pipeline is empty", NULL);
  assert_parse_fails(" \n ", IRM_EVALUE, "ValueError: ", "the pipeline is empty");
  assert_parse_fails("TestNop TestNop", IRM_EVALUE, "ValueError: ", "unexpected 'T' at position 8");
  assert_parse_fails("TestNop,TestNop", IRM_EVALUE, "ValueError: ", "unexpected ',' at position 7");
}
END_TEST

START_TEST(test_pipeline_depth_is_limited) {
  register_test_passes();
  char text[2000] = "";
  for (int i = 0; i < 150; i++) strcat(text, "Sequential(");
  assert_parse_fails(text, IRM_EVALUE, "ValueError: ", "nest deeper than 100 levels");
}
END_TEST

START_TEST(test_pipeline_print_deep_nesting_without_recursion) {
  register_test_passes();
  irm_pass *p = get_pass("TestNop");
  for (int i = 0; i < 5000; i++) {
    irm_pass *outer = sequential_of(&p, 1, 0, NULL);
    irm_object_release(p);
    p = outer;
  }
  irm_object *s = NULL;
  ck_assert_ok(irm_pipeline_print(p, &s));
  ck_assert_uint_eq(irm_string_size(s), 5000 * strlen("Sequential()") + strlen("TestNop"));
  irm_object_release(s);
  irm_object_release(p);
}
END_TEST

START_TEST(test_pipeline_print_rejects_non_pass) {
  irm_object *s = new_string("x"), *out = NULL;
  ck_assert_error(irm_pipeline_print(s, &out), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_pipeline_parse(NULL, &out), IRM_EVALUE, "ValueError: ");
  irm_object_release(s);
}
END_TEST

START_TEST(test_pipeline_globals) {
  register_test_passes();
  irm_any arg = irm_any_str("Sequential(TestNop,TestOpts{count=2})"), ret = irm_any_none();
  ck_assert_ok(irm_func_call_global("transform.ParsePipeline", &arg, 1, &ret));
  ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  ck_assert(irm_object_is(ret.v_obj, "transform.Pass"));
  irm_any text = irm_any_none();
  ck_assert_ok(irm_func_call_global("transform.PrintPipeline", &ret, 1, &text));
  ck_assert_str_eq(irm_string_data(text.v_obj), "Sequential(TestNop,TestOpts{count=2})");
  irm_any_release(&text);
  irm_any_release(&ret);
  arg = irm_any_str("Nope");
  ck_assert_error(irm_func_call_global("transform.ParsePipeline", &arg, 1, &ret), IRM_EVALUE,
                  "ValueError: transform.ParsePipeline: pipeline 'Nope'");
  arg = irm_any_int(3);
  ck_assert_error(irm_func_call_global("transform.PrintPipeline", &arg, 1, &ret), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_pipeline_parsed_pass_runs) {
  register_test_passes();
  irm_pass *p = parse("Sequential(TestNop,TestMark)");
  irm_module *mod = empty_module();
  irm_module *out = run_ok(p, mod);
  irm_any marked = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, "test.marked", &marked));
  ck_assert_int_eq(marked.type_code, IRM_BOOL);
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(p);
}
END_TEST

START_TEST(test_pipeline_text_that_is_not_utf8_is_a_value_error_naming_the_offset) {
  register_test_passes();
  assert_parse_fails("Sequential{name='caf\xc3'}(TestNop)", IRM_EVALUE,
                     "ValueError: the pipeline text is not valid UTF-8 (byte 0xc3 at offset 20)", NULL);
  irm_pass *p = parse("Sequential{name='caf\xc3\xa9'}(TestNop)");
  ck_assert_str_eq(irm_pass_name(p), "caf\xc3\xa9");
  irm_object_release(p);
}
END_TEST

static Suite *pipeline_suite(void) {
  Suite *s = suite_create("pipeline");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_pipeline_single_pass_is_a_pipeline);
  tcase_add_test(tc, test_pipeline_flat_sequential_round_trips);
  tcase_add_test(tc, test_pipeline_nested_sequential_round_trips);
  tcase_add_test(tc, test_pipeline_sequential_name_and_opt_level_round_trip);
  tcase_add_test(tc, test_pipeline_opt_level_out_of_int_range_is_an_error_quoting_the_text);
  tcase_add_test(tc, test_pipeline_text_that_is_not_utf8_is_a_value_error_naming_the_offset);
  tcase_add_test(tc, test_pipeline_options_of_each_type_round_trip);
  tcase_add_test(tc, test_pipeline_float_prints_exactly);
  tcase_add_test(tc, test_pipeline_parse_equals_structurally);
  tcase_add_test(tc, test_pipeline_unknown_pass_suggests_closest);
  tcase_add_test(tc, test_pipeline_unknown_option_suggests_closest);
  tcase_add_test(tc, test_pipeline_bad_value_names_option_and_position);
  tcase_add_test(tc, test_pipeline_unbalanced_brackets_give_positions);
  tcase_add_test(tc, test_pipeline_empty_and_trailing_text_fail);
  tcase_add_test(tc, test_pipeline_depth_is_limited);
  tcase_add_test(tc, test_pipeline_print_deep_nesting_without_recursion);
  tcase_add_test(tc, test_pipeline_print_rejects_non_pass);
  tcase_add_test(tc, test_pipeline_globals);
  tcase_add_test(tc, test_pipeline_parsed_pass_runs);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(pipeline_suite()); }
