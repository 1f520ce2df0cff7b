/* Heterogeneous builds (build.h): a second device kind registered by the
 * test with a `codegen` attribute, targets given as an Array, functions
 * pinned by their `target` attribute, the defaults, and each
 * disagreement error. */
#include "check_build_util.h"

/* "testdev": device type 12 (DLPack's ext_dev), buildable. */
static void register_testdev(void) {
  ck_assert_ok(irm_config_register_kind("target", "testdev", NULL));
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("target", "testdev", &k));
  irm_any dev = irm_any_int(12), yes = irm_any_bool(true);
  ck_assert_ok(irm_kind_set_attr(k, "device_type", &dev, 10));
  ck_assert_ok(irm_kind_set_attr(k, IRM_TARGET_CODEGEN_ATTR, &yes, 10));
}

static irm_object *texts2(const char *a, const char *b) {
  irm_any items[] = {irm_any_str(a), irm_any_str(b)};
  return new_array(items, 2);
}

/* BUILD_MAIN with main pinned to target text (NULL: not pinned). */
static irm_module *pinned(const char *target) {
  irm_module *m = parse_module(BUILD_MAIN);
  if (!target) return m;
  irm_object *t = bu_target(target), *f = NULL;
  irm_any v = irm_any_object(t);
  ck_assert_ok(irm_base_func_with_attr(irm_module_function(m, "main"), IRM_BASE_FUNC_ATTR_TARGET, &v, &f));
  ck_assert_ok(irm_module_set_function_move(&m, "main", f));
  irm_object_release(f);
  irm_object_release(t);
  return m;
}

static int build_array(const irm_module *m, const char *a, const char *b, const irm_any *host, irm_object **result) {
  irm_object *arr = texts2(a, b);
  irm_any t = irm_any_object(arr);
  int rc = irm_build(m, &t, host, NULL, NULL, NULL, NULL, result);
  irm_object_release(arr);
  return rc;
}

START_TEST(test_two_device_kinds_build_with_one_host) {
  register_testdev();
  irm_module *m = pinned("testdev");
  irm_object *result = NULL;
  ck_assert_ok(build_array(m, "testdev", "llvm", NULL, &result));
  irm_module *out = bu_part(result, "module");
  irm_any t = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, IRM_ATTR_TARGET, &t));
  ck_assert_int_eq(irm_object_type_index(t.v_obj), IRM_TYPE_ARRAY);
  ck_assert_uint_eq(irm_array_size(t.v_obj), 2);
  for (size_t i = 0; i < 2; i++)
    ck_assert_str_eq(irm_target_kind_name(irm_target_host(irm_array_at(t.v_obj, i)->v_obj)), "llvm");
  irm_any_release(&t);
  ck_assert_ptr_null(irm_module_target(out)); /* the one-Target accessor: not one Target */
  irm_compilation_config *cfg = NULL;
  ck_assert_ok(irm_module_compilation_config(out, &cfg));
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(cfg)), "llvm");
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_find_primitive_target(cfg, 12)), "testdev");
  irm_object_release(cfg);
  irm_object_release(result);
  irm_object_release(m);
}
END_TEST

START_TEST(test_an_explicit_host_replaces_each_targets_own) {
  register_testdev();
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any host = irm_any_str("llvm -mcpu=b");
  irm_object *result = NULL;
  ck_assert_ok(build_array(m, "testdev --host='llvm -mcpu=a'", "c", &host, &result));
  irm_compilation_config *cfg = NULL;
  ck_assert_ok(irm_module_compilation_config(bu_part(result, "module"), &cfg));
  irm_object *s = NULL;
  ck_assert_ok(irm_target_as_string(irm_compilation_config_host_target(cfg), &s));
  ck_assert_str_eq(irm_string_data(s), "llvm -keys=cpu -mcpu=b");
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(cfg)), "c");
  irm_object_release(s);
  irm_object_release(cfg);
  irm_object_release(result);
  irm_object_release(m);
}
END_TEST

START_TEST(test_disagreements_are_value_errors_naming_both) {
  register_testdev();
  irm_module *m = parse_module(BUILD_MAIN);
  irm_object *result = NULL;
  ck_assert_error(
      build_array(m, "llvm", "c", NULL, &result), IRM_EVALUE,
      "ValueError: in build of 'default': targets 'llvm -keys=cpu' and 'c -keys=cpu' are both for device type 1");
  ck_assert_error(build_array(m, "testdev --host='llvm -mcpu=a'", "c --host='llvm -mcpu=b'", NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': targets disagree on the host");
  ck_assert_error_mentions("'llvm -keys=cpu -mcpu=a'");
  ck_assert_error_mentions("'llvm -keys=cpu -mcpu=b'");
  ck_assert_error(build_array(m, "testdev", "cuda", NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': target kind 'cuda' cannot be built");
  ck_assert_ptr_null(result);
  irm_object_release(m);
}
END_TEST

START_TEST(test_pinned_functions_are_checked_against_the_targets) {
  register_testdev();
  irm_object *result = NULL;
  irm_module *m = pinned("rocm");
  ck_assert_error(build_array(m, "testdev", "llvm", NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': function 'main' is pinned to target 'rocm");
  ck_assert_error_mentions("which is none of the build's targets");
  irm_object_release(m);
  m = pinned("llvm -mcpu=a");
  ck_assert_error(build_array(m, "testdev", "llvm", NULL, &result), IRM_EVALUE,
                  "ValueError: in build of 'default': function 'main' is pinned to target 'llvm -keys=cpu -mcpu=a', "
                  "but the build's target for device type 1 is 'llvm -keys=cpu --host=");
  irm_object_release(m);
  /* Pinned to one of them (its host aside): fine. */
  m = pinned("llvm");
  ck_assert_ok(build_array(m, "testdev", "llvm", NULL, &result));
  irm_object_release(result);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("build_hetero");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_two_device_kinds_build_with_one_host);
  tcase_add_test(tc, test_an_explicit_host_replaces_each_targets_own);
  tcase_add_test(tc, test_disagreements_are_value_errors_naming_both);
  tcase_add_test(tc, test_pinned_functions_are_checked_against_the_targets);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
