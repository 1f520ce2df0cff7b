/* PassContext config options (pass.h): the registry, GetConfig's
 * resolution order and when it warns (never for the migration itself),
 * options registered as deprecated, the
 * MigratePassConfig pass, and aliases (TVM's names and registered ones). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "check_module_util.h"

/* ---- warnings ------------------------------------------------------------------------ */

static char warnings[8][512];
static int n_warnings;

static void capture(const char *msg, void *user) {
  (void)user;
  if (n_warnings < 8) snprintf(warnings[n_warnings++], sizeof warnings[0], "%s", msg);
}

static void setup(void) {
  n_warnings = 0;
  irm_warn_once_reset();
  irm_set_warning_handler(capture, NULL);
}

static void teardown(void) { irm_set_warning_handler(NULL, NULL); }

/* ---- helpers --------------------------------------------------------------------------- */

static irm_pass_context *enter_config(const char *key, irm_any value) {
  irm_object *cfg = map1(key, value);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx));
  irm_object_release(cfg);
  ck_assert_ok(irm_pass_context_enter(ctx));
  return ctx;
}

static void leave(irm_pass_context *ctx) {
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(ctx);
}

static irm_module *plain_module(void) {
  static const char *const names[] = {"main"};
  return module_of(names, 1);
}

static irm_any get_config(const irm_module *mod, const char *key) {
  irm_any v = irm_any_none();
  ck_assert_ok(irm_pass_get_config(mod, key, &v));
  return v;
}

/* ---- the registry ---------------------------------------------------------------------- */

START_TEST(test_builtin_options_are_listed_with_type_default_and_module_attr) {
  irm_object *list = call_obj("transform.ListConfigs", NULL, 0, "ffi.Map");
  const irm_object *depth = irm_map_find_cstr(list, "FuseOps.max_depth")->v_obj;
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(depth, "type")->v_obj), "int");
  ck_assert_int_eq(irm_map_find_cstr(depth, "default")->v_int, 256);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(depth, "module_attr")->v_obj), "FuseOps.max_depth");
  const irm_object *vectorize = irm_map_find_cstr(list, "tir.disable_vectorize")->v_obj;
  ck_assert_int_eq(irm_map_find_cstr(vectorize, "module_attr")->type_code, IRM_NONE);
  const irm_object *vec = irm_map_find_cstr(list, "tir.disable_vectorize")->v_obj;
  ck_assert_int_eq(irm_map_find_cstr(vec, "default")->type_code, IRM_BOOL);
  const irm_object *algo = irm_map_find_cstr(list, "usmp.algorithm")->v_obj;
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(algo, "default")->v_obj), "greedy_by_size");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(algo, "module_attr")->v_obj), "usmp.algorithm");
  const irm_object *usmp = irm_map_find_cstr(list, "usmp.enable")->v_obj;
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(usmp, "module_attr")->v_obj), "usmp.enable");
  irm_object_release(list);
  irm_object *keys = NULL;
  ck_assert_ok(irm_module_attr_list(&keys));
  ck_assert_str_eq(listed_type(keys, "usmp.enable"), "bool");
  ck_assert_str_eq(listed_type(keys, "usmp.algorithm"), "str");
  irm_object_release(keys);
}
END_TEST

START_TEST(test_register_same_definition_twice_is_fine_and_a_different_one_is_a_key_error) {
  irm_any def = irm_any_int(3);
  ck_assert_ok(irm_pass_config_register("test.level", "int", &def, NULL));
  ck_assert_ok(irm_pass_config_register("test.level", "int", &def, NULL));
  irm_any other = irm_any_int(4);
  ck_assert_error(irm_pass_config_register("test.level", "int", &other, NULL), IRM_EKEY, "KeyError:");
  ck_assert_error_mentions("test.level");
  ck_assert_error(irm_pass_config_register("test.level", "str", NULL, NULL), IRM_EKEY, "KeyError:");
  ck_assert_error(irm_pass_config_register("test.level", "int", &def, "test.level"), IRM_EKEY, "KeyError:");
}
END_TEST

START_TEST(test_register_checks_type_name_and_default) {
  irm_any def = irm_any_str("x");
  ck_assert_error(irm_pass_config_register("test.bad", "integer", NULL, NULL), IRM_EVALUE, "ValueError:");
  ck_assert_error(irm_pass_config_register("test.bad", "int", &def, NULL), IRM_ETYPE, "TypeError:");
  ck_assert_error_mentions("test.bad");
  ck_assert_error(irm_pass_config_register("", "int", NULL, NULL), IRM_EVALUE, "ValueError:");
}
END_TEST

START_TEST(test_register_config_global_and_journal_rollback) {
  irm_journal *j = open_journal();
  irm_any args[4] = {irm_any_str("test.journaled"), irm_any_str("str"), irm_any_str("a"), irm_any_str("test.attr")};
  irm_any r = call_ok("transform.RegisterConfig", args, 4);
  ck_assert_int_eq(r.type_code, IRM_NONE);
  irm_any v = get_config(NULL, "test.journaled");
  ck_assert_str_eq(irm_string_data(v.v_obj), "a");
  irm_any_release(&v);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_error(irm_pass_get_config(NULL, "test.journaled", &v), IRM_EATTR, "AttributeError:");
  irm_object *list = NULL;
  ck_assert_ok(irm_pass_config_list(&list));
  ck_assert_ptr_null(irm_map_find_cstr(list, "test.journaled"));
  irm_object_release(list);
}
END_TEST

/* ---- deprecated options ----------------------------------------------------------------- */

/* Registers test.old (str, default "a") and deprecates it, inside j. */
static void register_deprecated(const char *hint) {
  irm_any a = irm_any_str("a");
  ck_assert_ok(irm_pass_config_register("test.old", "str", &a, NULL));
  ck_assert_ok(irm_pass_config_deprecate("test.old", hint));
}

START_TEST(test_a_context_giving_a_deprecated_option_warns_once_with_the_hint) {
  irm_journal *j = open_journal();
  register_deprecated("use test.new instead");
  for (int i = 0; i < 3; i++) leave(enter_config("test.old", irm_any_str("b")));
  ck_assert_int_eq(n_warnings, 1);
  ck_assert_str_eq(warnings[0],
                   IRM_DEPRECATION_PREFIX "PassContext config option 'test.old' is deprecated: use test.new instead");
  irm_object *list = NULL;
  ck_assert_ok(irm_pass_config_list(&list));
  const irm_object *info = irm_map_find_cstr(list, "test.old")->v_obj;
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(info, "deprecated")->v_obj), "use test.new instead");
  info = irm_map_find_cstr(list, "usmp.enable")->v_obj;
  ck_assert_int_eq(irm_map_find_cstr(info, "deprecated")->type_code, IRM_NONE);
  irm_object_release(list);
  ck_assert_ok(irm_journal_rollback(j));
}
END_TEST

START_TEST(test_deprecating_errors_name_the_option_and_change_nothing) {
  irm_journal *j = open_journal();
  register_deprecated("use test.new");
  ck_assert_ok(irm_pass_config_deprecate("test.old", "use test.new")); /* the same again */
  ck_assert_error(irm_pass_config_deprecate("test.old", "something else"), IRM_EKEY,
                  "KeyError: config option 'test.old' is already deprecated with another hint ('use test.new')");
  ck_assert_error(irm_pass_config_deprecate("usmp.enabel", "x"), IRM_EVALUE,
                  "ValueError: cannot deprecate a config option: 'usmp.enabel' is no registered config option (did "
                  "you mean 'usmp.enable'?)");
  ck_assert_error(irm_pass_config_deprecate("tir.usmp.enable", "x"), IRM_EVALUE,
                  "ValueError: cannot deprecate 'tir.usmp.enable': it is an alias of 'usmp.enable'");
  ck_assert_error(irm_pass_config_deprecate("usmp.enable", ""), IRM_EVALUE, "ValueError: ");
  leave(enter_config("usmp.enable", irm_any_bool(true)));
  ck_assert_int_eq(n_warnings, 0); /* usmp.enable was not deprecated by the failures */
  ck_assert_ok(irm_journal_rollback(j));
}
END_TEST

START_TEST(test_a_journal_rollback_takes_a_deprecation_back) {
  irm_any a = irm_any_str("a");
  ck_assert_ok(irm_pass_config_register("test.kept", "str", &a, NULL));
  irm_journal *j = open_journal();
  irm_any args[2] = {irm_any_str("test.kept"), irm_any_str("gone soon")};
  irm_any r = call_ok("transform.DeprecateConfig", args, 2);
  ck_assert_int_eq(r.type_code, IRM_NONE);
  ck_assert_ok(irm_journal_rollback(j));
  leave(enter_config("test.kept", irm_any_str("b")));
  ck_assert_int_eq(n_warnings, 0);
}
END_TEST

START_TEST(test_warnings_as_errors_refuse_a_context_with_a_deprecated_option) {
  irm_journal *j = open_journal();
  register_deprecated("use test.new");
  irm_set_warnings_policy(IRM_WARNINGS_ERROR);
  irm_object *cfg = map1("test.old", irm_any_str("b"));
  irm_pass_context *ctx = NULL;
  int rc = irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx);
  irm_set_warnings_policy(IRM_WARNINGS_DEFAULT);
  ck_assert_error(rc, IRM_ERUNTIME, "RuntimeError: ");
  ck_assert_error_mentions("'test.old' is deprecated: use test.new");
  ck_assert_ptr_null(ctx);
  irm_object_release(cfg);
  ck_assert_ok(irm_journal_rollback(j));
}
END_TEST

/* ---- GetConfig ---------------------------------------------------------------------------- */

START_TEST(test_get_config_falls_back_to_the_default) {
  irm_module *mod = plain_module();
  irm_any v = get_config(mod, "FuseOps.max_depth");
  ck_assert_int_eq(v.v_int, 256);
  irm_object_release(mod);
  ck_assert_int_eq(n_warnings, 0);
}
END_TEST

START_TEST(test_get_config_reads_the_context_before_the_default) {
  irm_pass_context *ctx = enter_config("tir.disable_vectorize", irm_any_bool(true));
  irm_module *mod = plain_module();
  irm_any args[2] = {irm_any_object(mod), irm_any_str("tir.disable_vectorize")};
  irm_any v = call_ok("transform.GetConfig", args, 2);
  ck_assert_int_eq(v.v_int, 1);
  ck_assert_int_eq(n_warnings, 0); /* not a migrated option */
  irm_object_release(mod);
  leave(ctx);
}
END_TEST

START_TEST(test_get_config_reads_the_module_attribute_first_warning_once_when_the_context_disagrees) {
  irm_pass_context *ctx = enter_config("usmp.algorithm", irm_any_str("hill_climb"));
  irm_module *base = plain_module();
  irm_module *mod = with_attr(base, "usmp.algorithm", irm_any_str("greedy_by_conflicts"));
  irm_object_release(base);
  for (int i = 0; i < 3; i++) {
    irm_any v = get_config(mod, "usmp.algorithm");
    ck_assert_str_eq(irm_string_data(v.v_obj), "greedy_by_conflicts");
    irm_any_release(&v);
  }
  ck_assert_int_eq(n_warnings, 1); /* which value wins and why, once */
  ck_assert_ptr_nonnull(strstr(warnings[0], "'usmp.algorithm' = \"greedy_by_conflicts\""));
  ck_assert_ptr_nonnull(strstr(warnings[0], "= \"hill_climb\" disagree; the module attribute wins"));
  ck_assert_ptr_null(strstr(warnings[0], "deprecated"));
  irm_object_release(mod);
  leave(ctx);
}
END_TEST

START_TEST(test_get_config_is_silent_when_module_and_context_agree) {
  irm_pass_context *ctx = enter_config("usmp.algorithm", irm_any_str("hill_climb"));
  irm_module *base = plain_module();
  irm_module *mod = with_attr(base, "usmp.algorithm", irm_any_str("hill_climb"));
  irm_object_release(base);
  irm_any v = get_config(mod, "usmp.algorithm");
  ck_assert_str_eq(irm_string_data(v.v_obj), "hill_climb");
  irm_any_release(&v);
  ck_assert_int_eq(n_warnings, 0);
  irm_object_release(mod);
  leave(ctx);
}
END_TEST

START_TEST(test_pass_option_given_in_a_pipeline_beats_module_context_and_default) {
  irm_pass_context *ctx = enter_config("usmp.algorithm", irm_any_str("hill_climb"));
  irm_module *base = plain_module();
  irm_module *mod = with_attr(base, "usmp.algorithm", irm_any_str("greedy_by_conflicts"));
  irm_object_release(base);
  irm_object *options = NULL;
  const char *keys[] = {"algorithm"};
  irm_any values[] = {irm_any_str("from_pipeline")};
  ck_assert_ok(irm_map_from_pairs(keys, values, 1, &options));
  irm_any v = irm_any_none();
  ck_assert_ok(irm_pass_setting(options, "algorithm", mod, "usmp.algorithm", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "from_pipeline");
  irm_any_release(&v);
  /* Not given: the module attribute, then the context, then the default. */
  ck_assert_ok(irm_pass_setting(NULL, "algorithm", mod, "usmp.algorithm", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "greedy_by_conflicts");
  irm_any_release(&v);
  irm_module *bare = plain_module();
  ck_assert_ok(irm_pass_setting(NULL, "algorithm", bare, "usmp.algorithm", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "hill_climb");
  irm_any_release(&v);
  leave(ctx);
  ck_assert_ok(irm_pass_setting(NULL, "algorithm", bare, "usmp.algorithm", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "greedy_by_size");
  irm_any_release(&v);
  irm_object_release(bare);
  irm_object_release(options);
  irm_object_release(mod);
}
END_TEST

START_TEST(test_reading_a_migrated_option_from_the_context_is_silent) {
  irm_pass_context *ctx = enter_config("usmp.enable", irm_any_bool(true));
  irm_module *mod = plain_module();
  for (int i = 0; i < 3; i++) {
    irm_any v = get_config(mod, "usmp.enable");
    ck_assert_int_eq(v.type_code, IRM_BOOL);
    ck_assert_int_eq(v.v_int, 1);
  }
  ck_assert_int_eq(n_warnings, 0); /* the migration at work is no deprecation */
  irm_object_release(mod);
  leave(ctx);
}
END_TEST

START_TEST(test_tvm_names_read_their_option_silently) {
  irm_pass_context *ctx = enter_config("tir.usmp.algorithm", irm_any_str("hill_climb"));
  irm_module *mod = plain_module();
  irm_any v = get_config(mod, "tir.usmp.algorithm");
  ck_assert_str_eq(irm_string_data(v.v_obj), "hill_climb");
  irm_any_release(&v);
  v = get_config(mod, "usmp.algorithm");
  ck_assert_str_eq(irm_string_data(v.v_obj), "hill_climb");
  irm_any_release(&v);
  ck_assert_int_eq(n_warnings, 0);
  irm_object_release(mod);
  leave(ctx);
}
END_TEST

START_TEST(test_get_config_of_an_unknown_key_suggests_the_closest) {
  irm_any v = irm_any_none();
  ck_assert_error(irm_pass_get_config(NULL, "usmp.enabel", &v), IRM_EATTR, "AttributeError:");
  ck_assert_error_mentions("did you mean 'usmp.enable'");
}
END_TEST

/* ---- MigratePassConfig ---------------------------------------------------------------------- */

static irm_module *run_migrate(irm_module *mod) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("MigratePassConfig", NULL, &p));
  irm_module *out = NULL;
  ck_assert_ok(irm_pass_run(p, mod, &out));
  irm_object_release(p);
  return out;
}

START_TEST(test_migrate_copies_context_options_onto_the_module) {
  irm_pass_context *ctx = enter_config("usmp.algorithm", irm_any_str("hill_climb"));
  irm_module *mod = plain_module();
  irm_module *out = run_migrate(mod);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, "usmp.algorithm", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "hill_climb");
  irm_any_release(&v);
  ck_assert_ok(irm_module_get_attr(mod, "usmp.algorithm", &v)); /* the input is unchanged */
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_ok(irm_module_get_attr(out, "usmp.enable", &v)); /* unset in the context: not copied */
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_int_eq(n_warnings, 0);
  irm_object_release(out);
  irm_object_release(mod);
  leave(ctx);
}
END_TEST

START_TEST(test_migrate_conflict_keeps_the_module_value_and_warns_with_both) {
  irm_pass_context *ctx = enter_config("usmp.algorithm", irm_any_str("hill_climb"));
  irm_module *base = plain_module();
  irm_module *mod = with_attr(base, "usmp.algorithm", irm_any_str("greedy_by_conflicts"));
  irm_any arg = irm_any_object(mod);
  irm_module *out = call_obj("transform.MigratePassConfig", &arg, 1, "ir.IRModule");
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, "usmp.algorithm", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "greedy_by_conflicts");
  irm_any_release(&v);
  ck_assert_int_eq(n_warnings, 1);
  ck_assert_ptr_nonnull(strstr(warnings[0], "greedy_by_conflicts"));
  ck_assert_ptr_nonnull(strstr(warnings[0], "hill_climb"));
  irm_object_release(out);
  irm_object_release(mod);
  irm_object_release(base);
  leave(ctx);
}
END_TEST

START_TEST(test_migrate_with_nothing_to_do_returns_the_module_itself) {
  irm_module *mod = plain_module();
  irm_module *out = run_migrate(mod);
  ck_assert_ptr_eq(out, mod);
  irm_object_release(out);
  irm_object_release(mod);
}
END_TEST

/* ---- TVM's names (aliases) ------------------------------------------------------------------- */

START_TEST(test_tvm_names_are_listed_as_aliases_and_real_options_are_not) {
  static const char *const pairs[][2] = {{"relay.FuseOps.max_depth", "FuseOps.max_depth"},
                                         {"tir.usmp.enable", "usmp.enable"},
                                         {"tir.usmp.algorithm", "usmp.algorithm"}};
  irm_object *list = call_obj("transform.ListConfigs", NULL, 0, "ffi.Map");
  for (size_t i = 0; i < 3; i++) {
    const irm_any *alias = irm_map_find_cstr(list, pairs[i][0]);
    const irm_any *real = irm_map_find_cstr(list, pairs[i][1]);
    ck_assert_msg(alias && real, "'%s' or '%s' is not listed", pairs[i][0], pairs[i][1]);
    ck_assert_str_eq(irm_string_data(irm_map_find_cstr(alias->v_obj, "alias_of")->v_obj), pairs[i][1]);
    ck_assert_int_eq(irm_map_find_cstr(real->v_obj, "alias_of")->type_code, IRM_NONE);
    irm_any a = irm_any_object(alias->v_obj), r = irm_any_object(real->v_obj);
    ck_assert_str_eq(irm_string_data(irm_map_find_cstr(a.v_obj, "type")->v_obj),
                     irm_string_data(irm_map_find_cstr(r.v_obj, "type")->v_obj));
    ck_assert(equal(irm_map_find_cstr(a.v_obj, "default"), irm_map_find_cstr(r.v_obj, "default")));
  }
  const irm_object *vec = irm_map_find_cstr(list, "tir.disable_vectorize")->v_obj; /* a registered name */
  ck_assert_int_eq(irm_map_find_cstr(vec, "alias_of")->type_code, IRM_NONE);
  irm_object_release(list);
}
END_TEST

START_TEST(test_alias_key_is_read_under_both_names) {
  irm_pass_context *ctx = enter_config("relay.FuseOps.max_depth", irm_any_int(7));
  irm_any real = get_config(NULL, "FuseOps.max_depth"), alias = get_config(NULL, "relay.FuseOps.max_depth");
  ck_assert_int_eq(real.v_int, 7);
  ck_assert_int_eq(alias.v_int, 7);
  leave(ctx);
  alias = get_config(NULL, "relay.FuseOps.max_depth"); /* no context: the option's default */
  ck_assert_int_eq(alias.v_int, 256);
}
END_TEST

START_TEST(test_alias_key_is_type_checked_as_its_option) {
  irm_object *cfg = map1("tir.usmp.enable", irm_any_str("yes"));
  irm_pass_context *ctx = NULL;
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("tir.usmp.enable");
  ck_assert_error_mentions("expected bool");
  ck_assert_ptr_null(ctx);
  irm_object_release(cfg);
}
END_TEST

START_TEST(test_alias_key_migrates_onto_the_module_attribute) {
  irm_pass_context *ctx = enter_config("tir.usmp.algorithm", irm_any_str("hill_climb"));
  irm_module *mod = plain_module();
  irm_module *out = run_migrate(mod);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(out, "usmp.algorithm", &v));
  ck_assert_str_eq(irm_string_data(v.v_obj), "hill_climb");
  irm_any_release(&v);
  irm_any got = get_config(out, "tir.usmp.algorithm"); /* the module attribute, as for the real key */
  ck_assert_str_eq(irm_string_data(got.v_obj), "hill_climb");
  irm_any_release(&got);
  irm_object_release(out);
  irm_object_release(mod);
  leave(ctx);
}
END_TEST

START_TEST(test_alias_and_its_option_together_is_a_value_error_naming_both) {
  const char *keys[] = {"FuseOps.max_depth", "relay.FuseOps.max_depth"};
  irm_any values[] = {irm_any_int(3), irm_any_int(4)};
  irm_object *cfg = new_map(keys, values, 2);
  irm_pass_context *ctx = NULL;
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'FuseOps.max_depth'");
  ck_assert_error_mentions("'relay.FuseOps.max_depth'");
  ck_assert_ptr_null(ctx);
  irm_object_release(cfg);
  const char *reversed[] = {"tir.usmp.enable", "usmp.enable"};
  irm_any flags[] = {irm_any_bool(true), irm_any_bool(true)};
  cfg = new_map(reversed, flags, 2);
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'tir.usmp.enable'");
  ck_assert_error_mentions("'usmp.enable'");
  irm_object_release(cfg);
}
END_TEST

START_TEST(test_typo_of_an_alias_suggests_the_alias) {
  irm_any v = irm_any_none();
  ck_assert_error(irm_pass_get_config(NULL, "relay.FuseOps.max_dept", &v), IRM_EATTR, "AttributeError:");
  ck_assert_error_mentions("did you mean 'relay.FuseOps.max_depth'");
  irm_object *cfg = map1("tir.usmp.algoritm", irm_any_str("x"));
  irm_pass_context *ctx = NULL;
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_EATTR, "AttributeError:");
  ck_assert_error_mentions("'tir.usmp.algoritm'");
  ck_assert_error_mentions("did you mean 'tir.usmp.algorithm'");
  irm_object_release(cfg);
}
END_TEST

/* ---- registering aliases ------------------------------------------------------------------------ */

START_TEST(test_a_registered_alias_reads_lists_and_checks_as_its_option) {
  irm_any def = irm_any_int(3);
  ck_assert_ok(irm_pass_config_register("test.depth", "int", &def, NULL));
  ck_assert_ok(irm_pass_config_register_alias("legacy.test.depth", "test.depth"));
  ck_assert_ok(irm_pass_config_register_alias("legacy.test.depth", "test.depth")); /* again: fine */
  irm_any v = get_config(NULL, "legacy.test.depth");
  ck_assert_int_eq(v.v_int, 3);
  irm_pass_context *ctx = enter_config("legacy.test.depth", irm_any_int(9));
  v = get_config(NULL, "test.depth");
  ck_assert_int_eq(v.v_int, 9);
  leave(ctx);
  irm_object *list = call_obj("transform.ListConfigs", NULL, 0, "ffi.Map");
  const irm_any *alias = irm_map_find_cstr(list, "legacy.test.depth");
  ck_assert_ptr_nonnull(alias);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(alias->v_obj, "alias_of")->v_obj), "test.depth");
  ck_assert_int_eq(irm_map_find_cstr(alias->v_obj, "default")->v_int, 3);
  irm_object_release(list);
  irm_object *cfg = map1("legacy.test.depth", irm_any_str("deep"));
  ck_assert_error(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &ctx), IRM_ETYPE, "TypeError: ");
  irm_object_release(cfg);
}
END_TEST

START_TEST(test_register_alias_reports_each_kind) {
  irm_any def = irm_any_int(3);
  ck_assert_ok(irm_pass_config_register("test.depth", "int", &def, NULL));
  ck_assert_ok(irm_pass_config_register("test.width", "int", &def, NULL));
  ck_assert_ok(irm_pass_config_register_alias("legacy.test.depth", "test.depth"));
  ck_assert_error(irm_pass_config_register_alias("legacy.test.depth", "test.width"), IRM_EKEY,
                  "KeyError: config option alias 'legacy.test.depth' already stands for 'test.depth'; cannot make it "
                  "an alias of 'test.width'");
  ck_assert_error(irm_pass_config_register_alias("test.width", "test.depth"), IRM_EKEY,
                  "KeyError: cannot make 'test.width' an alias of 'test.depth': it is a registered config option");
  ck_assert_error(irm_pass_config_register_alias("test.depth", "test.depth"), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_pass_config_register("legacy.test.depth", "int", &def, NULL), IRM_EKEY,
                  "KeyError: config option 'legacy.test.depth' is already registered as an alias of 'test.depth'");
  ck_assert_error(irm_pass_config_register_alias("legacy.test.x", "test.dept"), IRM_EVALUE,
                  "ValueError: config option alias 'legacy.test.x': 'test.dept' is no registered config option "
                  "(did you mean 'test.depth'?)");
  ck_assert_error(irm_pass_config_register_alias("legacy.test.y", "legacy.test.depth"), IRM_EVALUE,
                  "ValueError: config option alias 'legacy.test.y': 'legacy.test.depth' is itself an alias (of "
                  "'test.depth'); name the option");
  ck_assert_error(irm_pass_config_register_alias("", "test.depth"), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_config_register_alias(NULL, "test.depth"), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_config_register_alias("legacy.test.z", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_pass_config_register_alias("relay.FuseOps.max_depth", "usmp.enable"), IRM_EKEY, "KeyError: ");
  irm_object *list = NULL;
  ck_assert_ok(irm_pass_config_list(&list));
  const char *absent[] = {"legacy.test.x", "legacy.test.y", "legacy.test.z"};
  for (size_t i = 0; i < 3; i++) ck_assert_ptr_null(irm_map_find_cstr(list, absent[i]));
  irm_object_release(list);
}
END_TEST

START_TEST(test_register_alias_global_and_journal_rollback) {
  irm_journal *j = open_journal();
  irm_any args[2] = {irm_any_str("test.journaled"), irm_any_str("int")};
  call_ok("transform.RegisterConfig", args, 2);
  irm_any alias_args[2] = {irm_any_str("legacy.journaled"), irm_any_str("test.journaled")};
  irm_any r = call_ok("transform.RegisterConfigAlias", alias_args, 2);
  ck_assert_int_eq(r.type_code, IRM_NONE);
  irm_any also[2] = {irm_any_str("legacy.usmp"), irm_any_str("usmp.enable")}; /* of a built-in option */
  call_ok("transform.RegisterConfigAlias", also, 2);
  irm_any v = get_config(NULL, "legacy.usmp");
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_error(irm_pass_get_config(NULL, "legacy.journaled", &v), IRM_EATTR, "AttributeError:");
  ck_assert_error(irm_pass_get_config(NULL, "legacy.usmp", &v), IRM_EATTR, "AttributeError:");
  irm_object *list = NULL;
  ck_assert_ok(irm_pass_config_list(&list));
  ck_assert_ptr_null(irm_map_find_cstr(list, "legacy.journaled"));
  ck_assert_ptr_null(irm_map_find_cstr(list, "legacy.usmp"));
  ck_assert_ptr_nonnull(irm_map_find_cstr(list, "tir.usmp.enable")); /* the built-in ones stay */
  irm_object_release(list);
  irm_any bad[2] = {irm_any_str("legacy.journaled"), irm_any_str("test.journaled")}; /* the option went too */
  ck_assert_int_eq(call_fails("transform.RegisterConfigAlias", bad, 2), IRM_EVALUE);
  ck_assert_last_error("ValueError: transform.RegisterConfigAlias: ");
  ck_assert_int_eq(call_fails("transform.RegisterConfigAlias", bad, 1), IRM_ETYPE);
}
END_TEST

static Suite *pass_config_suite(void) {
  Suite *s = suite_create("pass_config");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_builtin_options_are_listed_with_type_default_and_module_attr);
  tcase_add_test(tc, test_register_same_definition_twice_is_fine_and_a_different_one_is_a_key_error);
  tcase_add_test(tc, test_register_checks_type_name_and_default);
  tcase_add_test(tc, test_register_config_global_and_journal_rollback);
  tcase_add_test(tc, test_get_config_falls_back_to_the_default);
  tcase_add_test(tc, test_get_config_reads_the_context_before_the_default);
  tcase_add_test(tc, test_get_config_reads_the_module_attribute_first_warning_once_when_the_context_disagrees);
  tcase_add_test(tc, test_get_config_is_silent_when_module_and_context_agree);
  tcase_add_test(tc, test_pass_option_given_in_a_pipeline_beats_module_context_and_default);
  tcase_add_test(tc, test_reading_a_migrated_option_from_the_context_is_silent);
  tcase_add_test(tc, test_a_context_giving_a_deprecated_option_warns_once_with_the_hint);
  tcase_add_test(tc, test_deprecating_errors_name_the_option_and_change_nothing);
  tcase_add_test(tc, test_a_journal_rollback_takes_a_deprecation_back);
  tcase_add_test(tc, test_warnings_as_errors_refuse_a_context_with_a_deprecated_option);
  tcase_add_test(tc, test_tvm_names_read_their_option_silently);
  tcase_add_test(tc, test_get_config_of_an_unknown_key_suggests_the_closest);
  tcase_add_test(tc, test_migrate_copies_context_options_onto_the_module);
  tcase_add_test(tc, test_migrate_conflict_keeps_the_module_value_and_warns_with_both);
  tcase_add_test(tc, test_migrate_with_nothing_to_do_returns_the_module_itself);
  tcase_add_test(tc, test_tvm_names_are_listed_as_aliases_and_real_options_are_not);
  tcase_add_test(tc, test_alias_key_is_read_under_both_names);
  tcase_add_test(tc, test_alias_key_is_type_checked_as_its_option);
  tcase_add_test(tc, test_alias_key_migrates_onto_the_module_attribute);
  tcase_add_test(tc, test_alias_and_its_option_together_is_a_value_error_naming_both);
  tcase_add_test(tc, test_typo_of_an_alias_suggests_the_alias);
  tcase_add_test(tc, test_a_registered_alias_reads_lists_and_checks_as_its_option);
  tcase_add_test(tc, test_register_alias_reports_each_kind);
  tcase_add_test(tc, test_register_alias_global_and_journal_rollback);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(pass_config_suite()); }
