/* Kind attributes (kind.h): values with priority levels, unknown and
 * missing attributes, ownership of the values, and the registration
 * journal restoring what was there. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- helpers ------------------------------------------------------------- */

static irm_kind *register_kind(const char *category, const char *name) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_register(category, name, &k));
  ck_assert_ptr_nonnull(k);
  return k;
}

static void set_int(irm_kind *k, const char *attr, int64_t value, int plevel) {
  irm_any v = irm_any_int(value);
  ck_assert_ok(irm_kind_set_attr(k, attr, &v, plevel));
}

static void set_object(irm_kind *k, const char *attr, irm_object *value, int plevel) {
  irm_any v = irm_any_object(value);
  ck_assert_ok(irm_kind_set_attr(k, attr, &v, plevel));
}

/* The kind's int value for attr (asserting there is one). */
static int64_t get_int(const irm_kind *k, const char *attr) {
  irm_any v = irm_any_str("garbage");
  ck_assert_ok(irm_kind_get_attr(k, attr, &v));
  ck_assert_msg(v.type_code == IRM_INT, "%s of %s: expected an int, got %s", attr, irm_kind_name(k),
                irm_any_type_name(&v));
  return v.v_int;
}

/* The kind has no value for attr, which is a known attribute. */
static void assert_no_value(const irm_kind *k, const char *attr) {
  irm_any v = irm_any_int(-1);
  ck_assert_ok(irm_kind_get_attr(k, attr, &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
}

/* No kind of k's category has attr. */
static void assert_unknown_attr(const irm_kind *k, const char *attr) {
  irm_any v = irm_any_int(-1);
  ck_assert_error(irm_kind_get_attr(k, attr, &v), IRM_EATTR, "AttributeError: ");
  char quoted[128];
  snprintf(quoted, sizeof quoted, "'%s'", attr);
  ck_assert_error_mentions(quoted);
  ck_assert_int_eq(v.type_code, IRM_NONE);
}

/* Setting attr at plevel is a KeyError: the value is set at that level. */
static void assert_level(irm_kind *k, const char *attr, int plevel) {
  irm_any v = irm_any_int(-999);
  ck_assert_error(irm_kind_set_attr(k, attr, &v, plevel), IRM_EKEY, "KeyError: ");
}

/* ---- levels ---------------------------------------------------------------- */

START_TEST(test_set_then_get_returns_the_value) {
  irm_kind *k = register_kind("testcat", "a");
  set_int(k, "fps", 30, 10);
  ck_assert_int_eq(get_int(k, "fps"), 30);
  irm_any f = irm_any_float(0.25);
  ck_assert_ok(irm_kind_set_attr(k, "ratio", &f, 10));
  irm_any out;
  ck_assert_ok(irm_kind_get_attr(k, "ratio", &out));
  ck_assert_int_eq(out.type_code, IRM_FLOAT);
  ck_assert_double_eq(out.v_float, 0.25);
}
END_TEST

START_TEST(test_same_level_twice_is_key_error_naming_attr_and_kind) {
  irm_kind *k = register_kind("testcat", "twice");
  set_int(k, "fps", 30, 10);
  irm_any v = irm_any_int(60);
  ck_assert_error(irm_kind_set_attr(k, "fps", &v, 10), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'fps'");
  ck_assert_error_mentions("'twice'");
  ck_assert_int_eq(get_int(k, "fps"), 30);
}
END_TEST

START_TEST(test_higher_level_replaces_the_value) {
  irm_kind *k = register_kind("testcat", "higher");
  set_int(k, "fps", 30, 10);
  set_int(k, "fps", 60, 11);
  ck_assert_int_eq(get_int(k, "fps"), 60);
  set_int(k, "fps", 90, 100);
  ck_assert_int_eq(get_int(k, "fps"), 90);
  assert_level(k, "fps", 100);
}
END_TEST

START_TEST(test_lower_level_is_ignored_and_returns_ok) {
  irm_kind *k = register_kind("testcat", "lower");
  set_int(k, "fps", 30, 10);
  set_int(k, "fps", 60, 9);
  set_int(k, "fps", 60, -5);
  ck_assert_int_eq(get_int(k, "fps"), 30);
  assert_level(k, "fps", 10);
}
END_TEST

START_TEST(test_levels_are_per_kind) {
  irm_kind *a = register_kind("testcat", "a");
  irm_kind *b = register_kind("testcat", "b");
  set_int(a, "fps", 30, 10);
  set_int(b, "fps", 60, 10); /* not a duplicate: another kind */
  ck_assert_int_eq(get_int(a, "fps"), 30);
  ck_assert_int_eq(get_int(b, "fps"), 60);
}
END_TEST

START_TEST(test_reset_clears_the_value_and_its_level) {
  irm_kind *k = register_kind("testcat", "reset");
  set_int(k, "fps", 30, 10);
  ck_assert_ok(irm_kind_reset_attr(k, "fps"));
  assert_no_value(k, "fps");
  set_int(k, "fps", 5, 1); /* the old level is gone too */
  ck_assert_int_eq(get_int(k, "fps"), 5);
}
END_TEST

START_TEST(test_reset_of_an_absent_value_is_ok) {
  irm_kind *a = register_kind("testcat", "a");
  irm_kind *b = register_kind("testcat", "b");
  set_int(a, "fps", 30, 10);
  ck_assert_ok(irm_kind_reset_attr(b, "fps"));
  ck_assert_ok(irm_kind_reset_attr(b, "never-set"));
  ck_assert_ok(irm_kind_reset_attr(a, "fps"));
  ck_assert_ok(irm_kind_reset_attr(a, "fps"));
  assert_no_value(a, "fps");
}
END_TEST

START_TEST(test_get_of_an_attribute_no_kind_set_is_attribute_error_with_the_closest) {
  irm_kind *a = register_kind("testcat", "a");
  irm_kind *b = register_kind("testcat", "b");
  set_int(a, "max-threads", 8, 10);
  assert_unknown_attr(b, "max_threads");
  ck_assert_error_mentions("testcat");
  ck_assert_error_mentions("did you mean 'max-threads'?");
  assert_unknown_attr(a, "vectorize");
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

START_TEST(test_kind_without_a_value_for_a_known_attribute_gives_none) {
  irm_kind *a = register_kind("testcat", "a");
  irm_kind *b = register_kind("testcat", "b");
  set_int(a, "fps", 30, 10);
  assert_no_value(b, "fps");
  irm_kind *c = register_kind("testcat", "c"); /* registered after the attribute */
  assert_no_value(c, "fps");
}
END_TEST

START_TEST(test_attributes_are_known_per_category) {
  irm_kind *a = register_kind("testcat", "a");
  irm_kind *other = register_kind("testcat_other", "a");
  set_int(a, "fps", 30, 10);
  assert_unknown_attr(other, "fps");
}
END_TEST

START_TEST(test_set_get_and_reset_reject_bad_arguments_with_value_error) {
  irm_kind *k = register_kind("testcat", "args");
  irm_any v = irm_any_int(1), out;
  ck_assert_error(irm_kind_set_attr(NULL, "x", &v, 10), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_set_attr(k, NULL, &v, 10), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_set_attr(k, "", &v, 10), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_set_attr(k, "x", NULL, 10), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_get_attr(NULL, "x", &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_get_attr(k, NULL, &out), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_get_attr(k, "x", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_reset_attr(NULL, "x"), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_reset_attr(k, NULL), IRM_EVALUE, "ValueError: ");
  assert_unknown_attr(k, "x"); /* nothing was set */
}
END_TEST

/* ---- values ---------------------------------------------------------------- */

START_TEST(test_string_value_outlives_the_callers_reference) {
  irm_kind *k = register_kind("testcat", "owner");
  irm_object *s = new_string("packed");
  set_object(k, "interface", s, 10);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_object_release(s);
  irm_any out;
  ck_assert_ok(irm_kind_get_attr(k, "interface", &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(out.v_obj), "packed");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_borrowed_c_string_value_becomes_a_string) {
  irm_kind *k = register_kind("testcat", "owner");
  char buf[] = "packed";
  irm_any v = irm_any_str(buf);
  ck_assert_ok(irm_kind_set_attr(k, "interface", &v, 10));
  buf[0] = 'X';
  irm_any out;
  ck_assert_ok(irm_kind_get_attr(k, "interface", &out));
  ck_assert_int_eq(out.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(out.v_obj), "ffi.String");
  ck_assert_str_eq(irm_string_data(out.v_obj), "packed");
  irm_any_release(&out);
}
END_TEST

START_TEST(test_get_returns_a_new_reference) {
  irm_kind *k = register_kind("testcat", "owner");
  irm_object *s = new_string("x");
  set_object(k, "attr", s, 10);
  irm_any out;
  ck_assert_ok(irm_kind_get_attr(k, "attr", &out));
  ck_assert_ptr_eq(out.v_obj, s);
  ck_assert_uint_eq(irm_object_refcount(s), 3);
  irm_any_release(&out);
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  ck_assert_ok(irm_kind_reset_attr(k, "attr"));
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

START_TEST(test_replaced_and_ignored_values_are_released) {
  irm_kind *k = register_kind("testcat", "owner");
  irm_object *first = new_string("first"), *second = new_string("second"), *low = new_string("low");
  set_object(k, "attr", first, 10);
  set_object(k, "attr", second, 20);
  ck_assert_uint_eq(irm_object_refcount(first), 1);
  ck_assert_uint_eq(irm_object_refcount(second), 2);
  set_object(k, "attr", low, 5);
  ck_assert_uint_eq(irm_object_refcount(low), 1);
  irm_any dup = irm_any_object(low);
  ck_assert_error(irm_kind_set_attr(k, "attr", &dup, 20), IRM_EKEY, "KeyError: ");
  ck_assert_uint_eq(irm_object_refcount(low), 1);
  irm_object_release(first);
  irm_object_release(second);
  irm_object_release(low);
}
END_TEST

START_TEST(test_rolled_back_kind_rejects_set_attr_with_runtime_error) {
  ck_assert_ok(irm_kind_category_register("testcat"));
  irm_journal *j = open_journal();
  irm_kind *k = register_kind("testcat", "ghost");
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *s = new_string("x");
  irm_any v = irm_any_object(s);
  ck_assert_error(irm_kind_set_attr(k, "attr", &v, 10), IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("'ghost'");
  ck_assert_uint_eq(irm_object_refcount(s), 1);
  irm_object_release(s);
}
END_TEST

/* ---- journal ---------------------------------------------------------------- */

START_TEST(test_rollback_restores_the_value_and_level_after_a_higher_level_replace) {
  irm_kind *k = register_kind("testcat", "j");
  set_int(k, "fps", 30, 10);
  irm_journal *j = open_journal();
  set_int(k, "fps", 60, 20);
  ck_assert_int_eq(get_int(k, "fps"), 60);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(get_int(k, "fps"), 30);
  assert_level(k, "fps", 10);
  set_int(k, "fps", 45, 15); /* above 10, below the rolled-back 20 */
  ck_assert_int_eq(get_int(k, "fps"), 45);
}
END_TEST

START_TEST(test_rollback_undoes_several_changes_newest_first) {
  irm_kind *k = register_kind("testcat", "j");
  set_int(k, "fps", 1, 10);
  irm_journal *j = open_journal();
  set_int(k, "fps", 2, 20);
  ck_assert_ok(irm_kind_reset_attr(k, "fps"));
  set_int(k, "fps", 3, 5);
  set_int(k, "fps", 4, 30);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(get_int(k, "fps"), 1);
  assert_level(k, "fps", 10);
}
END_TEST

START_TEST(test_rollback_removes_a_new_attribute_so_get_is_attribute_error_again) {
  irm_kind *k = register_kind("testcat", "j");
  irm_journal *j = open_journal();
  set_int(k, "fresh", 1, 10);
  ck_assert_int_eq(get_int(k, "fresh"), 1);
  ck_assert_ok(irm_journal_rollback(j));
  assert_unknown_attr(k, "fresh");
  set_int(k, "fresh", 2, 1); /* no level left behind */
  ck_assert_int_eq(get_int(k, "fresh"), 2);
}
END_TEST

START_TEST(test_rollback_of_a_new_value_keeps_an_attribute_another_kind_has) {
  irm_kind *a = register_kind("testcat", "a");
  irm_kind *b = register_kind("testcat", "b");
  set_int(a, "fps", 30, 10);
  irm_journal *j = open_journal();
  set_int(b, "fps", 60, 10);
  ck_assert_ok(irm_journal_rollback(j));
  assert_no_value(b, "fps");
  ck_assert_int_eq(get_int(a, "fps"), 30);
}
END_TEST

START_TEST(test_rollback_restores_a_reset_value) {
  irm_kind *k = register_kind("testcat", "j");
  set_int(k, "fps", 30, 10);
  irm_journal *j = open_journal();
  ck_assert_ok(irm_kind_reset_attr(k, "fps"));
  assert_no_value(k, "fps");
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(get_int(k, "fps"), 30);
  assert_level(k, "fps", 10);
}
END_TEST

START_TEST(test_rollback_of_an_ignored_lower_level_changes_nothing) {
  irm_kind *k = register_kind("testcat", "j");
  set_int(k, "fps", 30, 10);
  irm_journal *j = open_journal();
  set_int(k, "fps", 1, 5);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(get_int(k, "fps"), 30);
  assert_level(k, "fps", 10);
}
END_TEST

START_TEST(test_rollback_of_a_kind_forgets_the_attributes_only_it_had) {
  irm_kind *stays = register_kind("testcat", "stays");
  irm_journal *j = open_journal();
  irm_kind *gone = register_kind("testcat", "gone");
  set_int(gone, "only-gone", 1, 10);
  ck_assert_ok(irm_journal_rollback(j));
  assert_unknown_attr(stays, "only-gone");
}
END_TEST

static int attr_prepare(irm_kind *k) {
  irm_any v = irm_any_int(1);
  return irm_kind_set_attr(k, "from-prepare", &v, 10);
}

START_TEST(test_prepare_may_set_attributes_of_the_new_kind) {
  ck_assert_ok(irm_kind_category_set_prepare("testcat_prep", attr_prepare));
  irm_kind *k = register_kind("testcat_prep", "prepared");
  ck_assert_int_eq(get_int(k, "from-prepare"), 1);
  assert_level(k, "from-prepare", 10);
}
END_TEST

START_TEST(test_rollback_of_a_prepared_kind_forgets_the_attributes_its_prepare_set) {
  irm_kind *stays = register_kind("testcat_prep", "stays");
  ck_assert_ok(irm_kind_category_set_prepare("testcat_prep", attr_prepare));
  irm_journal *j = open_journal();
  irm_kind *gone = register_kind("testcat_prep", "gone");
  ck_assert_int_eq(get_int(gone, "from-prepare"), 1);
  ck_assert_ok(irm_journal_rollback(j));
  assert_unknown_attr(stays, "from-prepare");
}
END_TEST

START_TEST(test_outer_rollback_undoes_a_committed_inner_journal) {
  irm_kind *k = register_kind("testcat", "j");
  set_int(k, "fps", 30, 10);
  irm_journal *outer = open_journal();
  irm_journal *inner = open_journal();
  set_int(k, "fps", 60, 20);
  set_int(k, "fresh", 1, 10);
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_int_eq(get_int(k, "fps"), 60);
  ck_assert_ok(irm_journal_rollback(outer));
  ck_assert_int_eq(get_int(k, "fps"), 30);
  assert_unknown_attr(k, "fresh");
}
END_TEST

START_TEST(test_commit_keeps_the_replacement_and_releases_the_old_value) {
  irm_kind *k = register_kind("testcat", "j");
  irm_object *old = new_string("old"), *fresh = new_string("fresh");
  set_object(k, "attr", old, 10);
  irm_journal *j = open_journal();
  set_object(k, "attr", fresh, 20);
  ck_assert_ok(irm_journal_commit(j));
  ck_assert_uint_eq(irm_object_refcount(old), 1);
  ck_assert_uint_eq(irm_object_refcount(fresh), 2);
  assert_level(k, "attr", 20);
  ck_assert_ok(irm_kind_reset_attr(k, "attr"));
  ck_assert_uint_eq(irm_object_refcount(fresh), 1);
  irm_object_release(old);
  irm_object_release(fresh);
}
END_TEST

START_TEST(test_rollback_balances_the_refcounts_of_object_values) {
  irm_kind *k = register_kind("testcat", "j");
  irm_object *old = new_string("old"), *fresh = new_string("fresh"), *added = new_string("added");
  set_object(k, "attr", old, 10);
  irm_journal *j = open_journal();
  set_object(k, "attr", fresh, 20);
  set_object(k, "other", added, 10);
  ck_assert_ok(irm_kind_reset_attr(k, "other"));
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_uint_eq(irm_object_refcount(old), 2); /* back in the registry */
  ck_assert_uint_eq(irm_object_refcount(fresh), 1);
  ck_assert_uint_eq(irm_object_refcount(added), 1);
  irm_any out;
  ck_assert_ok(irm_kind_get_attr(k, "attr", &out));
  ck_assert_ptr_eq(out.v_obj, old);
  irm_any_release(&out);
  ck_assert_ok(irm_kind_reset_attr(k, "attr"));
  ck_assert_uint_eq(irm_object_refcount(old), 1);
  irm_object_release(old);
  irm_object_release(fresh);
  irm_object_release(added);
}
END_TEST

START_TEST(test_rollback_of_a_reset_gives_back_the_same_object) {
  irm_kind *k = register_kind("testcat", "j");
  irm_object *s = new_string("kept");
  set_object(k, "attr", s, 10);
  irm_journal *j = open_journal();
  ck_assert_ok(irm_kind_reset_attr(k, "attr"));
  ck_assert_uint_eq(irm_object_refcount(s), 2); /* held by the journal */
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_uint_eq(irm_object_refcount(s), 2);
  irm_any out;
  ck_assert_ok(irm_kind_get_attr(k, "attr", &out));
  ck_assert_ptr_eq(out.v_obj, s);
  irm_any_release(&out);
  irm_object_release(s);
}
END_TEST

/* ---- suite ---------------------------------------------------------------- */

static Suite *kind_attr_suite(void) {
  Suite *s = suite_create("kind_attr");

  TCase *levels = tcase_create("levels");
  tcase_add_test(levels, test_set_then_get_returns_the_value);
  tcase_add_test(levels, test_same_level_twice_is_key_error_naming_attr_and_kind);
  tcase_add_test(levels, test_higher_level_replaces_the_value);
  tcase_add_test(levels, test_lower_level_is_ignored_and_returns_ok);
  tcase_add_test(levels, test_levels_are_per_kind);
  tcase_add_test(levels, test_reset_clears_the_value_and_its_level);
  tcase_add_test(levels, test_reset_of_an_absent_value_is_ok);
  tcase_add_test(levels, test_get_of_an_attribute_no_kind_set_is_attribute_error_with_the_closest);
  tcase_add_test(levels, test_kind_without_a_value_for_a_known_attribute_gives_none);
  tcase_add_test(levels, test_attributes_are_known_per_category);
  tcase_add_test(levels, test_set_get_and_reset_reject_bad_arguments_with_value_error);
  suite_add_tcase(s, levels);

  TCase *values = tcase_create("values");
  tcase_add_test(values, test_string_value_outlives_the_callers_reference);
  tcase_add_test(values, test_borrowed_c_string_value_becomes_a_string);
  tcase_add_test(values, test_get_returns_a_new_reference);
  tcase_add_test(values, test_replaced_and_ignored_values_are_released);
  tcase_add_test(values, test_rolled_back_kind_rejects_set_attr_with_runtime_error);
  suite_add_tcase(s, values);

  TCase *journal = tcase_create("journal");
  tcase_add_test(journal, test_rollback_restores_the_value_and_level_after_a_higher_level_replace);
  tcase_add_test(journal, test_rollback_undoes_several_changes_newest_first);
  tcase_add_test(journal, test_rollback_removes_a_new_attribute_so_get_is_attribute_error_again);
  tcase_add_test(journal, test_rollback_of_a_new_value_keeps_an_attribute_another_kind_has);
  tcase_add_test(journal, test_rollback_restores_a_reset_value);
  tcase_add_test(journal, test_rollback_of_an_ignored_lower_level_changes_nothing);
  tcase_add_test(journal, test_rollback_of_a_kind_forgets_the_attributes_only_it_had);
  tcase_add_test(journal, test_prepare_may_set_attributes_of_the_new_kind);
  tcase_add_test(journal, test_rollback_of_a_prepared_kind_forgets_the_attributes_its_prepare_set);
  tcase_add_test(journal, test_outer_rollback_undoes_a_committed_inner_journal);
  tcase_add_test(journal, test_commit_keeps_the_replacement_and_releases_the_old_value);
  tcase_add_test(journal, test_rollback_balances_the_refcounts_of_object_values);
  tcase_add_test(journal, test_rollback_of_a_reset_gives_back_the_same_object);
  suite_add_tcase(s, journal);
  return s;
}

int main(void) { return run_suite(kind_attr_suite()); }
