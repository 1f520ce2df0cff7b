/* The skip rule (irm_base_func_should_skip, module.h): which functions
 * passes leave alone, attribute by attribute, with the values TVM reads as
 * set (a Compiler of any value, a flag that is true or a nonzero int), the
 * flags that choose the checks, and arguments that are no function. The
 * pass manager's and the IR passes' use of it are in tests/passes. */
#include <check.h>

#include "check_module_util.h"

/* A test.Func whose attributes hold key = value as given (a DictAttrs
 * made with irm_dict_attrs_new checks no types). */
static irm_object *func_with(const char *key, irm_any value) {
  irm_object *attrs = map1(key, value);
  irm_object *f = new_func_attrs("f", 1, attrs);
  irm_object_release(attrs);
  return f;
}

/* should_skip with IRM_SKIP_DEFAULT of a function with key = value. */
static int skips(const char *key, irm_any value) {
  irm_object *f = func_with(key, value);
  int skip = irm_base_func_should_skip(f, IRM_SKIP_DEFAULT);
  irm_object_release(f);
  return skip;
}

START_TEST(test_a_function_without_those_attributes_is_not_skipped) {
  irm_object *f = new_func("f", 1);
  ck_assert_int_eq(irm_base_func_should_skip(f, IRM_SKIP_DEFAULT), 0);
  irm_object_release(f);
  ck_assert_int_eq(skips(IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, irm_any_str("f")), 0);
}
END_TEST

START_TEST(test_compiler_set_to_any_value_skips_even_an_empty_string) {
  ck_assert_int_eq(skips(IRM_BASE_FUNC_ATTR_COMPILER, irm_any_str("ccompiler")), 1);
  ck_assert_int_eq(skips(IRM_BASE_FUNC_ATTR_COMPILER, irm_any_str("")), 1);
  ck_assert_int_eq(skips(IRM_BASE_FUNC_ATTR_COMPILER, irm_any_int(0)), 1); /* presence is what counts */
  ck_assert_int_eq(skips(IRM_BASE_FUNC_ATTR_COMPILER, irm_any_none()), 0); /* NONE is no value */
}
END_TEST

START_TEST(test_skip_optimization_skips_when_true_or_a_nonzero_int) {
  const char *key = IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION;
  ck_assert_int_eq(skips(key, irm_any_bool(true)), 1);
  ck_assert_int_eq(skips(key, irm_any_int(1)), 1);
  ck_assert_int_eq(skips(key, irm_any_int(-3)), 1);
  ck_assert_int_eq(skips(key, irm_any_bool(false)), 0);
  ck_assert_int_eq(skips(key, irm_any_int(0)), 0);
}
END_TEST

START_TEST(test_primitive_skips_when_true_or_a_nonzero_int) {
  const char *key = IRM_BASE_FUNC_ATTR_PRIMITIVE;
  ck_assert_int_eq(skips(key, irm_any_bool(true)), 1);
  ck_assert_int_eq(skips(key, irm_any_int(2)), 1);
  ck_assert_int_eq(skips(key, irm_any_bool(false)), 0);
  ck_assert_int_eq(skips(key, irm_any_int(0)), 0);
}
END_TEST

START_TEST(test_a_flag_of_another_type_does_not_skip) {
  const char *keys[] = {IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, IRM_BASE_FUNC_ATTR_PRIMITIVE};
  for (size_t i = 0; i < 2; i++) {
    ck_assert_int_eq(skips(keys[i], irm_any_str("yes")), 0);
    ck_assert_int_eq(skips(keys[i], irm_any_float(1.0)), 0);
    ck_assert_int_eq(skips(keys[i], irm_any_none()), 0);
  }
}
END_TEST

START_TEST(test_each_flag_checks_only_its_own_attribute) {
  struct {
    const char *key;
    unsigned flag;
  } checks[] = {{IRM_BASE_FUNC_ATTR_PRIMITIVE, IRM_SKIP_PRIMITIVE},
                {IRM_BASE_FUNC_ATTR_COMPILER, IRM_SKIP_COMPILER},
                {IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, IRM_SKIP_OPTIMIZATION}};
  for (size_t i = 0; i < 3; i++) {
    irm_object *f = func_with(checks[i].key, i == 1 ? irm_any_str("c") : irm_any_bool(true));
    for (size_t j = 0; j < 3; j++)
      ck_assert_msg(irm_base_func_should_skip(f, checks[j].flag) == (i == j), "'%s' under the flag of '%s'",
                    checks[i].key, checks[j].key);
    ck_assert_int_eq(irm_base_func_should_skip(f, IRM_SKIP_DEFAULT), 1);
    ck_assert_int_eq(irm_base_func_should_skip(f, IRM_SKIP_DEFAULT & ~checks[i].flag), 0);
    ck_assert_int_eq(irm_base_func_should_skip(f, 0), 0);
    ck_assert_int_eq(irm_base_func_should_skip(f, ~IRM_SKIP_DEFAULT), 0); /* other bits are ignored */
    irm_object_release(f);
  }
  ck_assert_uint_eq(IRM_SKIP_DEFAULT, IRM_SKIP_PRIMITIVE | IRM_SKIP_COMPILER | IRM_SKIP_OPTIMIZATION);
}
END_TEST

START_TEST(test_attributes_set_through_the_typed_keys_are_read_the_same) {
  /* A registered bool key stores the int 1 as true. */
  irm_object *f = new_func("f", 1), *g = NULL, *h = NULL;
  irm_any one = irm_any_int(1), off = irm_any_bool(false);
  ck_assert_ok(irm_base_func_with_attr(f, IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, &one, &g));
  ck_assert_int_eq(irm_base_func_should_skip(g, IRM_SKIP_OPTIMIZATION), 1);
  ck_assert_ok(irm_base_func_with_attr(g, IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, &off, &h));
  ck_assert_int_eq(irm_base_func_should_skip(h, IRM_SKIP_DEFAULT), 0);
  ck_assert_int_eq(irm_base_func_should_skip(f, IRM_SKIP_DEFAULT), 0); /* f is unchanged */
  irm_object_release(h);
  irm_object_release(g);
  irm_object_release(f);
}
END_TEST

START_TEST(test_null_or_an_object_that_is_no_function_is_not_skipped_and_sets_no_error) {
  irm_object *s = new_string(IRM_BASE_FUNC_ATTR_COMPILER);
  irm_object *attrs = map1(IRM_BASE_FUNC_ATTR_COMPILER, irm_any_str("c")); /* a Map holding the key */
  irm_module *mod = new_module(NULL, attrs);
  (void)irm_error(IRM_EKEY, "earlier");
  ck_assert_int_eq(irm_base_func_should_skip(NULL, IRM_SKIP_DEFAULT), 0);
  ck_assert_int_eq(irm_base_func_should_skip(s, IRM_SKIP_DEFAULT), 0);
  ck_assert_int_eq(irm_base_func_should_skip(attrs, IRM_SKIP_DEFAULT), 0);
  ck_assert_int_eq(irm_base_func_should_skip(mod, IRM_SKIP_DEFAULT), 0);
  ck_assert_last_error("KeyError: earlier");
  irm_object_release(mod);
  irm_object_release(attrs);
  irm_object_release(s);
}
END_TEST

static Suite *base_func_suite(void) {
  Suite *s = suite_create("base_func");
  TCase *tc = tcase_create("should_skip");
  tcase_add_test(tc, test_a_function_without_those_attributes_is_not_skipped);
  tcase_add_test(tc, test_compiler_set_to_any_value_skips_even_an_empty_string);
  tcase_add_test(tc, test_skip_optimization_skips_when_true_or_a_nonzero_int);
  tcase_add_test(tc, test_primitive_skips_when_true_or_a_nonzero_int);
  tcase_add_test(tc, test_a_flag_of_another_type_does_not_skip);
  tcase_add_test(tc, test_each_flag_checks_only_its_own_attribute);
  tcase_add_test(tc, test_attributes_set_through_the_typed_keys_are_read_the_same);
  tcase_add_test(tc, test_null_or_an_object_that_is_no_function_is_not_skipped_and_sets_no_error);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(base_func_suite()); }
