/* The pass registry (pass.h): registering C and function-object
 * factories, making passes with validated options, unknown pass and option
 * errors with the closest name, listing, static registration, the journal,
 * factories with a resource (irm_pass_register_ex) and transform.GetPass /
 * transform.ListPasses. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_pass_core_util.h"

/* Makes "TestFuse" with its options. */
static int make_fuse(const irm_object *options, irm_pass **out) {
  return irm_module_pass_new("TestFuse", 1, NULL, 0, options, noop_pass, "TestFuse", NULL, out);
}

static int make_other(const irm_object *options, irm_pass **out) {
  return irm_module_pass_new("Other", 0, NULL, 0, options, noop_pass, "Other", NULL, out);
}

static void register_fuse(void) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_pass_register("TestFuse", make_fuse, &k));
  ck_assert_ptr_nonnull(k);
  irm_any four = irm_any_int(4);
  if (irm_kind_option(k, "max_depth", NULL, NULL) != 0)
    ck_assert_ok(irm_kind_add_option(k, "max_depth", IRM_OPTION_INT, &four, "fusion depth", 0));
  irm_clear_error();
}

START_TEST(test_registered_pass_is_made_with_default_options) {
  register_fuse();
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("TestFuse", NULL, &p));
  ck_assert_str_eq(irm_pass_name(p), "TestFuse");
  ck_assert_int_eq(irm_map_find_cstr(irm_pass_options(p), "max_depth")->v_int, 4);
  irm_object_release(p);
}
END_TEST

START_TEST(test_registered_pass_is_made_with_given_options) {
  register_fuse();
  irm_object *opts = map1("max_depth", irm_any_int(8));
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("TestFuse", opts, &p));
  ck_assert_int_eq(irm_map_find_cstr(irm_pass_options(p), "max_depth")->v_int, 8);
  irm_object_release(p);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_unknown_option_is_an_attribute_error_with_the_closest_name) {
  register_fuse();
  irm_object *opts = map1("max_dept", irm_any_int(8));
  irm_pass *p = NULL;
  ck_assert_error(irm_pass_get("TestFuse", opts, &p), IRM_EATTR, "AttributeError:");
  ck_assert_error_mentions("max_depth");
  ck_assert_ptr_null(p);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_option_of_the_wrong_type_is_a_type_error) {
  register_fuse();
  irm_object *opts = map1("max_depth", irm_any_str("deep"));
  irm_pass *p = NULL;
  ck_assert_error(irm_pass_get("TestFuse", opts, &p), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("max_depth");
  irm_object_release(opts);
}
END_TEST

START_TEST(test_unknown_pass_is_a_value_error_with_the_closest_name) {
  register_fuse();
  irm_pass *p = NULL;
  ck_assert_error(irm_pass_get("TestFus", NULL, &p), IRM_EVALUE, "ValueError:");
  ck_assert_error_mentions("did you mean 'TestFuse'");
  ck_assert_ptr_null(p);
}
END_TEST

START_TEST(test_registering_again_is_fine_but_another_factory_is_a_key_error) {
  register_fuse();
  ck_assert_ok(irm_pass_register("TestFuse", make_fuse, NULL));
  ck_assert_error(irm_pass_register("TestFuse", make_other, NULL), IRM_EKEY, "KeyError:");
  ck_assert_error_mentions("TestFuse");
  irm_object *f = new_packed(pk_const, NULL, NULL);
  ck_assert_error(irm_pass_register_func("TestFuse", f, NULL), IRM_EKEY, "KeyError:");
  irm_object_release(f);
}
END_TEST

/* options -> a module pass "FromFunc". */
static int pk_factory(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  ck_assert_int_eq(nargs, 1);
  ck_assert(irm_object_is(args[0].v_obj, "ffi.Map"));
  irm_pass *p = NULL;
  int rc = irm_module_pass_new("FromFunc", 0, NULL, 0, args[0].v_obj, noop_pass, "FromFunc", NULL, &p);
  if (rc) return rc;
  *ret = irm_any_object(p);
  return 0;
}

START_TEST(test_function_object_factory) {
  irm_object *f = new_packed(pk_factory, NULL, NULL);
  ck_assert_ok(irm_pass_register_func("FromFunc", f, NULL));
  ck_assert_ok(irm_pass_register_func("FromFunc", f, NULL));
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("FromFunc", NULL, &p));
  ck_assert_str_eq(irm_pass_name(p), "FromFunc");
  irm_object_release(p);
  irm_object_release(f);
}
END_TEST

START_TEST(test_factory_returning_no_pass_is_a_type_error) {
  irm_object *f = new_packed(pk_const, (void *)(intptr_t)5, NULL);
  ck_assert_ok(irm_pass_register_func("NotAPass", f, NULL));
  irm_pass *p = NULL;
  ck_assert_error(irm_pass_get("NotAPass", NULL, &p), IRM_ETYPE, "TypeError: making pass 'NotAPass'");
  ck_assert_ptr_null(p);
  irm_object_release(f);
}
END_TEST

START_TEST(test_list_is_sorted_and_has_the_registered_passes) {
  register_fuse();
  ck_assert_ok(irm_pass_register("Alpha", make_other, NULL));
  irm_object *names = NULL;
  ck_assert_ok(irm_pass_list(&names));
  ck_assert(array_has_string(names, "TestFuse"));
  ck_assert(array_has_string(names, "Alpha"));
  assert_sorted_strings(names);
  irm_object_release(names);
}
END_TEST

static int static_setup(irm_kind *k) {
  irm_any yes = irm_any_bool(true);
  return irm_kind_add_option(k, "fast", IRM_OPTION_BOOL, &yes, "", 0);
}
IRM_REGISTER_PASS("StaticPass", make_other, static_setup);

START_TEST(test_static_registration_registers_pass_and_options) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("StaticPass", NULL, &p));
  ck_assert_int_eq(irm_map_find_cstr(irm_pass_options(p), "fast")->type_code, IRM_BOOL);
  irm_object_release(p);
}
END_TEST

START_TEST(test_journal_rollback_removes_a_registered_pass) {
  irm_journal *j = open_journal();
  ck_assert_ok(irm_pass_register("Temporary", make_other, NULL));
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("Temporary", NULL, &p));
  irm_object_release(p);
  p = NULL;
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_error(irm_pass_get("Temporary", NULL, &p), IRM_EVALUE, "ValueError:");
  irm_object *names = NULL;
  ck_assert_ok(irm_pass_list(&names));
  ck_assert(!array_has_string(names, "Temporary"));
  irm_object_release(names);
  ck_assert_ok(irm_pass_register("Temporary", make_fuse, NULL)); /* a fresh registration works */
}
END_TEST

/* ---- factories with a resource ---------------------------------------------------------- */

typedef struct entry {
  const char *name;
  int opt_level;
} entry;

static const entry entry_a = {"EntryA", 1}, entry_b = {"EntryB", 3};

/* One factory for every entry: the resource says which pass to make. */
static int make_entry(const irm_object *options, void *resource, irm_pass **out) {
  const entry *e = resource;
  return irm_module_pass_new(e->name, e->opt_level, NULL, 0, options, noop_pass, NULL, NULL, out);
}

static int setups;
static int entry_setup(irm_kind *k) {
  setups++;
  irm_any two = irm_any_int(2);
  if (irm_kind_option(k, "level", NULL, NULL) == IRM_OK) return IRM_OK;
  irm_clear_error();
  return irm_kind_add_option(k, "level", IRM_OPTION_INT, &two, "a level", 0);
}

static int failing_setup(irm_kind *k) {
  irm_any no = irm_any_bool(false);
  int rc = irm_kind_add_option(k, "half", IRM_OPTION_BOOL, &no, "added before the failure", 0);
  return rc ? rc : irm_error(IRM_EVALUE, "setup refuses");
}

START_TEST(test_one_factory_makes_a_pass_per_resource) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_pass_register_ex("EntryA", make_entry, (void *)&entry_a, entry_setup, &k));
  ck_assert_ptr_nonnull(k);
  ck_assert_str_eq(irm_kind_name(k), "EntryA");
  ck_assert_ok(irm_pass_register_ex("EntryB", make_entry, (void *)&entry_b, NULL, NULL));
  irm_pass *a = NULL, *b = NULL;
  irm_object *opts = map1("level", irm_any_int(5));
  ck_assert_ok(irm_pass_get("EntryA", opts, &a));
  ck_assert_ok(irm_pass_get("EntryB", NULL, &b));
  ck_assert_str_eq(irm_pass_name(a), "EntryA");
  ck_assert_int_eq(irm_pass_opt_level(a), 1);
  ck_assert_int_eq(irm_map_find_cstr(irm_pass_options(a), "level")->v_int, 5);
  ck_assert_str_eq(irm_pass_name(b), "EntryB");
  ck_assert_int_eq(irm_pass_opt_level(b), 3);
  irm_object_release(opts);
  irm_object_release(a);
  irm_object_release(b);
}
END_TEST

START_TEST(test_registering_ex_again_needs_the_same_factory_and_resource) {
  setups = 0;
  ck_assert_ok(irm_pass_register_ex("EntryA", make_entry, (void *)&entry_a, entry_setup, NULL));
  ck_assert_ok(irm_pass_register_ex("EntryA", make_entry, (void *)&entry_a, entry_setup, NULL));
  ck_assert_int_eq(setups, 2); /* setup runs again: it is idempotent */
  irm_kind *k = (irm_kind *)&k;
  ck_assert_error(irm_pass_register_ex("EntryA", make_entry, (void *)&entry_b, NULL, &k), IRM_EKEY,
                  "KeyError: pass 'EntryA' is already registered with another factory");
  ck_assert_ptr_null(k);
  ck_assert_error(irm_pass_register("EntryA", make_other, NULL), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_pass_register_ex("EntryNull", NULL, NULL, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_register_ex("", make_entry, (void *)&entry_a, NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_register_ex(NULL, make_entry, (void *)&entry_a, NULL, NULL), IRM_EVALUE, "ValueError: ");
  irm_object *names = NULL;
  ck_assert_ok(irm_pass_list(&names));
  ck_assert(!array_has_string(names, "EntryNull"));
  irm_object_release(names);
}
END_TEST

START_TEST(test_a_failing_setup_takes_the_registration_back) {
  ck_assert_error(irm_pass_register_ex("HalfMade", make_entry, (void *)&entry_a, failing_setup, NULL), IRM_EVALUE,
                  "ValueError: setting up pass 'HalfMade': setup refuses");
  irm_pass *p = NULL;
  ck_assert_error(irm_pass_get("HalfMade", NULL, &p), IRM_EVALUE, "ValueError: ");
  irm_object *names = NULL;
  ck_assert_ok(irm_pass_list(&names));
  ck_assert(!array_has_string(names, "HalfMade"));
  irm_object_release(names);
  ck_assert_ok(irm_pass_register_ex("HalfMade", make_entry, (void *)&entry_b, entry_setup, NULL));
  ck_assert_ok(irm_pass_get("HalfMade", NULL, &p));
  ck_assert_ptr_null(irm_map_find_cstr(irm_pass_options(p), "half")); /* the failed setup's option went too */
  ck_assert_int_eq(irm_map_find_cstr(irm_pass_options(p), "level")->v_int, 2);
  irm_object_release(p);
}
END_TEST

START_TEST(test_journal_rollback_removes_an_ex_registration_and_its_options) {
  irm_journal *j = open_journal();
  ck_assert_ok(irm_pass_register_ex("TemporaryEx", make_entry, (void *)&entry_a, entry_setup, NULL));
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("TemporaryEx", NULL, &p));
  irm_object_release(p);
  p = NULL;
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_error(irm_pass_get("TemporaryEx", NULL, &p), IRM_EVALUE, "ValueError:");
  /* another resource now: nothing of the old registration is left */
  ck_assert_ok(irm_pass_register_ex("TemporaryEx", make_entry, (void *)&entry_b, NULL, NULL));
  ck_assert_ok(irm_pass_get("TemporaryEx", NULL, &p));
  ck_assert_int_eq(irm_pass_opt_level(p), 3);
  ck_assert_ptr_null(irm_map_find_cstr(irm_pass_options(p), "level"));
  irm_object_release(p);
}
END_TEST

START_TEST(test_get_pass_and_list_passes_globals) {
  register_fuse();
  irm_object *opts = map1("max_depth", irm_any_int(2));
  irm_any args[] = {irm_any_str("TestFuse"), irm_any_object(opts)};
  irm_object *p = call_obj("transform.GetPass", args, 2, "transform.Pass");
  ck_assert_int_eq(irm_map_find_cstr(irm_pass_options(p), "max_depth")->v_int, 2);
  irm_object *names = call_obj("transform.ListPasses", NULL, 0, "ffi.Array");
  ck_assert(array_has_string(names, "TestFuse"));
  irm_any bad = irm_any_str("TestFus");
  ck_assert_int_eq(call_fails("transform.GetPass", &bad, 1), IRM_EVALUE);
  ck_assert_error_mentions("TestFuse");
  irm_object_release(names);
  irm_object_release(p);
  irm_object_release(opts);
}
END_TEST

static Suite *pass_registry_suite(void) {
  Suite *s = suite_create("pass_registry");
  TCase *get = tcase_create("get");
  tcase_add_test(get, test_registered_pass_is_made_with_default_options);
  tcase_add_test(get, test_registered_pass_is_made_with_given_options);
  tcase_add_test(get, test_unknown_option_is_an_attribute_error_with_the_closest_name);
  tcase_add_test(get, test_option_of_the_wrong_type_is_a_type_error);
  tcase_add_test(get, test_unknown_pass_is_a_value_error_with_the_closest_name);
  suite_add_tcase(s, get);
  TCase *reg = tcase_create("register");
  tcase_add_test(reg, test_registering_again_is_fine_but_another_factory_is_a_key_error);
  tcase_add_test(reg, test_function_object_factory);
  tcase_add_test(reg, test_factory_returning_no_pass_is_a_type_error);
  tcase_add_test(reg, test_list_is_sorted_and_has_the_registered_passes);
  tcase_add_test(reg, test_static_registration_registers_pass_and_options);
  tcase_add_test(reg, test_journal_rollback_removes_a_registered_pass);
  tcase_add_test(reg, test_get_pass_and_list_passes_globals);
  tcase_add_test(reg, test_one_factory_makes_a_pass_per_resource);
  tcase_add_test(reg, test_registering_ex_again_needs_the_same_factory_and_resource);
  tcase_add_test(reg, test_a_failing_setup_takes_the_registration_back);
  tcase_add_test(reg, test_journal_rollback_removes_an_ex_registration_and_its_options);
  suite_add_tcase(s, reg);
  return s;
}

int main(void) { return run_suite(pass_registry_suite()); }
