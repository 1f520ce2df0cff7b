/* Executor config objects (config.h) through the C API and the executor.*
 * globals (docs/architecture.md): the two ways to make one, the accessors, the
 * built-in kinds and their validation, IRM_REGISTER_EXECUTOR, JSON,
 * structural equality, repr and copy-on-write. Registering kinds (from C
 * and from a description), kind attributes and journals are in
 * check_config_register.c; runtimes and threads in check_runtime.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- helpers --------------------------------------------------------------- */

static irm_executor *executor(const char *kind, const irm_object *options) {
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create(kind, options, &e));
  ck_assert_ptr_nonnull(e);
  return e;
}

/* irm_executor_create must fail without handing out an object. */
static int create_fails(const char *kind, const irm_object *options) {
  irm_executor *e = NULL;
  int rc = irm_executor_create(kind, options, &e);
  ck_assert_msg(rc != 0, "executor '%s' was accepted", kind);
  ck_assert_ptr_null(e);
  return rc;
}

/* An aot executor with one option set; must fail. Returns the status. */
static int aot_with_fails(const char *option, irm_any value) {
  irm_object *opts = map1(option, value);
  int rc = create_fails("aot", opts);
  irm_object_release(opts);
  return rc;
}

/* The repr of an object must be exactly expected. */
static void assert_repr(const irm_object *obj, const char *expected) {
  irm_any v = irm_any_object((irm_object *)obj);
  irm_object *text = NULL;
  ck_assert_ok(irm_repr(&v, &text));
  ck_assert_str_eq(irm_string_data(text), expected);
  irm_object_release(text);
}

/* The entries of a Map of strings as "k:v,k:v" in iteration order. */
static void string_map_text(const irm_object *map, char *buf, size_t size) {
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *key;
  const irm_any *value;
  size_t used = 0;
  buf[0] = '\0';
  while (irm_map_iter_next(&it, &key, &value)) {
    ck_assert_int_eq(value->type_code, IRM_OBJECT);
    used += (size_t)snprintf(buf + used, size - used, "%s%s:%s", used ? "," : "", irm_string_data(key),
                             irm_string_data(value->v_obj));
  }
  ck_assert_uint_lt(used, size);
}

static const char aot_defaults[] = "{\"link-params\": true, \"unpacked-api\": false, \"interface-api\": \"packed\", "
                                   "\"workspace-byte-alignment\": 16, \"constant-byte-alignment\": 16}";

/* "check-exec": one option of each shape a plugin kind needs. */
static void register_check_kind(void) {
  irm_kind *k = NULL;
  irm_any yes = irm_any_bool(true);
  ck_assert_ok(irm_kind_register("executor", "check-exec", &k));
  ck_assert_ok(irm_kind_add_option(k, "flag", IRM_OPTION_BOOL, NULL, "a bool without default", 0));
  ck_assert_ok(irm_kind_add_option(k, "names", IRM_OPTION_ARRAY_STR, NULL, NULL, 0));
  ck_assert_ok(irm_kind_add_option(k, "mode", IRM_OPTION_STR, NULL, "a str without default", 0));
  ck_assert_ok(irm_kind_add_option(k, "fast", IRM_OPTION_BOOL, &yes, "a bool with default", 0));
}

/* ---- static registration ------------------------------------------------------- */

static int static_setup(irm_kind *k) {
  irm_any off = irm_any_bool(false);
  return irm_kind_add_option(k, "trace", IRM_OPTION_BOOL, &off, "log every call", 0);
}

IRM_REGISTER_EXECUTOR("static-exec", static_setup);

static int static_kind_found_in_main = -1; /* set by main() before the tests */

/* ---- making executors (C API) ----------------------------------------------------- */

START_TEST(test_create_graph_fills_link_params_false) {
  irm_executor *e = executor("graph", NULL);
  ck_assert_str_eq(irm_object_type_key(e), "ir.Executor");
  ck_assert_str_eq(irm_config_kind_name(e), "graph");
  assert_repr(irm_config_attrs(e), "{\"link-params\": false}");
  irm_object_release(e);
}
END_TEST

START_TEST(test_create_aot_without_options_fills_every_default_in_schema_order) {
  irm_object *empty = NULL;
  ck_assert_ok(irm_map_new(&empty));
  irm_executor *a = executor("aot", NULL), *b = executor("aot", empty);
  assert_repr(irm_config_attrs(a), aot_defaults);
  assert_repr(irm_config_attrs(b), aot_defaults);
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(empty);
}
END_TEST

START_TEST(test_create_vm_has_no_attrs) {
  irm_executor *e = executor("vm", NULL);
  ck_assert_str_eq(irm_config_kind_name(e), "vm");
  ck_assert_uint_eq(irm_map_size(irm_config_attrs(e)), 0);
  irm_object_release(e);
}
END_TEST

START_TEST(test_create_aot_from_a_four_option_map_keeps_them_and_fills_the_fifth) {
  const char *keys[] = {"interface-api", "unpacked-api", "workspace-byte-alignment", "link-params"};
  irm_any values[] = {irm_any_str("c"), irm_any_bool(true), irm_any_int(8), irm_any_bool(false)};
  irm_object *opts = new_map(keys, values, 4);
  irm_executor *e = executor("aot", opts);
  assert_repr(irm_config_attrs(e), "{\"link-params\": false, \"unpacked-api\": true, \"interface-api\": \"c\", "
                                   "\"workspace-byte-alignment\": 8, \"constant-byte-alignment\": 16}");
  irm_object_release(e);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_from_map_with_kind_equals_create_with_the_name) {
  const char *keys[] = {"kind", "unpacked-api"};
  irm_any values[] = {irm_any_str("aot"), irm_any_bool(false)};
  irm_object *config = new_map(keys, values, 2), *opts = map1("unpacked-api", irm_any_bool(false));
  irm_executor *a = NULL, *b = executor("aot", opts);
  ck_assert_ok(irm_executor_from_map(config, &a));
  ck_assert_str_eq(irm_config_kind_name(a), "aot");
  ck_assert_ptr_null(irm_map_find_cstr(irm_config_attrs(a), "kind"));
  irm_any va = irm_any_object(a), vb = irm_any_object(b);
  ck_assert(equal(&va, &vb));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(config);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_from_map_without_kind_is_value_error_listing_the_kinds) {
  irm_object *config = map1("link-params", irm_any_bool(true));
  irm_executor *e = NULL;
  ck_assert_error(irm_executor_from_map(config, &e), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(e);
  ck_assert_error_mentions("\"kind\"");
  ck_assert_error_mentions("aot, graph");
  ck_assert_error_mentions("vm");
  irm_object_release(config);
}
END_TEST

START_TEST(test_from_map_with_a_kind_that_is_not_str_is_type_error) {
  irm_object *config = map1("kind", irm_any_int(3));
  irm_executor *e = NULL;
  ck_assert_error(irm_executor_from_map(config, &e), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("kind");
  ck_assert_ptr_null(e);
  irm_object_release(config);
}
END_TEST

START_TEST(test_from_map_of_something_else_than_a_map_is_type_error) {
  irm_object *s = new_string("aot");
  irm_executor *e = NULL;
  ck_assert_error(irm_executor_from_map(s, &e), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_executor_from_map(NULL, &e), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(e);
  irm_object_release(s);
}
END_TEST

START_TEST(test_create_with_null_arguments_is_value_error_and_with_a_non_map_type_error) {
  irm_executor *e = NULL;
  ck_assert_error(irm_executor_create(NULL, NULL, &e), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_executor_create("graph", NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_ptr_null(e);
  irm_any item = irm_any_int(1);
  irm_object *arr = new_array(&item, 1);
  ck_assert_error(create_fails("graph", arr), IRM_ETYPE, "TypeError: ");
  irm_object_release(arr);
}
END_TEST

/* ---- validation --------------------------------------------------------------------- */

START_TEST(test_unknown_kind_is_value_error_suggesting_the_closest_and_listing_the_kinds) {
  ck_assert_error(create_fails("aott", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("unknown executor kind 'aott'");
  ck_assert_error_mentions("did you mean 'aot'?");
  ck_assert_error_mentions("registered kinds: aot, graph");
  ck_assert_error_mentions("vm");
}
END_TEST

START_TEST(test_unknown_option_is_attribute_error_suggesting_the_closest) {
  ck_assert_error(aot_with_fails("unpacked_api", irm_any_bool(true)), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'aot'");
  ck_assert_error_mentions("no option 'unpacked_api'");
  ck_assert_error_mentions("did you mean 'unpacked-api'?");
}
END_TEST

START_TEST(test_bool_option_given_text_is_type_error_naming_option_expected_and_given) {
  ck_assert_error(aot_with_fails("link-params", irm_any_str("true")), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'link-params'");
  ck_assert_error_mentions("expected bool");
  ck_assert_error_mentions("got str");
}
END_TEST

START_TEST(test_bool_option_given_an_int_other_than_0_or_1_is_type_error) {
  ck_assert_error(aot_with_fails("unpacked-api", irm_any_int(2)), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'unpacked-api'");
  ck_assert_error_mentions("expected bool");
  ck_assert_error(aot_with_fails("unpacked-api", irm_any_int(-1)), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_bool_option_takes_int_0_and_1_and_stores_bools) {
  const char *keys[] = {"link-params", "unpacked-api"};
  irm_any values[] = {irm_any_int(0), irm_any_int(1)};
  irm_object *opts = new_map(keys, values, 2);
  irm_executor *e = executor("aot", opts);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_config_get_attr(e, "link-params", &v));
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 0);
  ck_assert_ok(irm_config_get_attr(e, "unpacked-api", &v));
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 1);
  irm_object_release(e);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_int_option_given_text_float_or_bool_is_type_error) {
  irm_any wrong[] = {irm_any_str("16"), irm_any_float(16.0), irm_any_bool(true)};
  const char *given[] = {"got str", "got float", "got bool"};
  for (size_t i = 0; i < 3; i++) {
    ck_assert_error(aot_with_fails("workspace-byte-alignment", wrong[i]), IRM_ETYPE, "TypeError: ");
    ck_assert_error_mentions("'workspace-byte-alignment'");
    ck_assert_error_mentions("expected int");
    ck_assert_error_mentions(given[i]);
  }
}
END_TEST

START_TEST(test_str_option_given_an_int_is_type_error) {
  ck_assert_error(aot_with_fails("interface-api", irm_any_int(1)), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'interface-api'");
  ck_assert_error_mentions("expected str, got int");
}
END_TEST

START_TEST(test_aot_interface_api_foo_is_value_error_listing_packed_and_c) {
  ck_assert_error(aot_with_fails("interface-api", irm_any_str("foo")), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("aot");
  ck_assert_error_mentions("interface-api");
  ck_assert_error_mentions("\"packed\"");
  ck_assert_error_mentions("\"c\"");
  ck_assert_error_mentions("foo");
}
END_TEST

START_TEST(test_aot_interface_api_accepts_packed_and_c) {
  const char *apis[] = {"packed", "c"};
  for (size_t i = 0; i < 2; i++) {
    irm_object *opts = map1("interface-api", irm_any_str(apis[i]));
    irm_executor *e = executor("aot", opts);
    irm_any v = irm_any_none();
    ck_assert_ok(irm_config_get_attr(e, "interface-api", &v));
    ck_assert_str_eq(irm_string_data(v.v_obj), apis[i]);
    irm_any_release(&v);
    irm_object_release(e);
    irm_object_release(opts);
  }
}
END_TEST

static const char *const alignments[] = {"workspace-byte-alignment", "constant-byte-alignment"};

START_TEST(test_aot_alignments_that_are_not_powers_of_two_are_value_errors) {
  const int64_t bad[] = {0, 3, 24, -16};
  for (size_t a = 0; a < 2; a++)
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      ck_assert_error(aot_with_fails(alignments[a], irm_any_int(bad[i])), IRM_EVALUE, "ValueError: ");
      ck_assert_error_mentions(alignments[a]);
      ck_assert_error_mentions("power of two");
    }
}
END_TEST

START_TEST(test_aot_alignments_that_are_powers_of_two_are_accepted) {
  const int64_t good[] = {1, 8, 64};
  for (size_t a = 0; a < 2; a++)
    for (size_t i = 0; i < 3; i++) {
      irm_object *opts = map1(alignments[a], irm_any_int(good[i]));
      irm_executor *e = executor("aot", opts);
      const irm_any *v = irm_map_find_cstr(irm_config_attrs(e), alignments[a]);
      ck_assert_ptr_nonnull(v);
      ck_assert_int_eq(v->v_int, good[i]);
      irm_object_release(e);
      irm_object_release(opts);
    }
}
END_TEST

/* ---- reading executors (C API) ----------------------------------------------------------- */

START_TEST(test_executor_is_a_config_and_accessors_give_null_for_what_is_not_one) {
  irm_executor *e = executor("vm", NULL);
  ck_assert(irm_object_is(e, "ir.Executor"));
  ck_assert(irm_object_is(e, "ir.Config"));
  ck_assert(!irm_object_is(e, "ir.Runtime"));
  irm_object_release(e);
  irm_object *s = new_string("aot");
  ck_assert_ptr_null(irm_config_kind_name(s));
  ck_assert_ptr_null(irm_config_attrs(s));
  ck_assert_ptr_null(irm_config_kind(s));
  ck_assert_ptr_null(irm_config_kind_name(NULL));
  irm_object_release(s);
}
END_TEST

START_TEST(test_get_kind_is_the_registry_handle_of_the_kind) {
  irm_executor *e = executor("aot", NULL);
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("executor", "aot", &k));
  ck_assert_ptr_eq(irm_config_kind(e), k);
  ck_assert_str_eq(irm_kind_category(irm_config_kind(e)), "executor");
  irm_object_release(e);
}
END_TEST

START_TEST(test_get_attr_gives_given_and_default_values) {
  irm_object *opts = map1("interface-api", irm_any_str("c"));
  irm_executor *e = executor("aot", opts);
  irm_object_release(opts);
  irm_any v = irm_any_none();
  ck_assert_ok(irm_config_get_attr(e, "interface-api", &v));
  ck_assert_int_eq(v.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(v.v_obj), "c");
  irm_any_release(&v);
  ck_assert_ok(irm_config_get_attr(e, "constant-byte-alignment", &v));
  ck_assert_int_eq(v.type_code, IRM_INT);
  ck_assert_int_eq(v.v_int, 16);
  irm_object_release(e);
}
END_TEST

START_TEST(test_get_attr_of_an_option_that_is_not_set_is_none) {
  register_check_kind();
  irm_executor *e = executor("check-exec", NULL);
  irm_any v = irm_any_int(9);
  ck_assert_ok(irm_config_get_attr(e, "mode", &v));
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(e);
}
END_TEST

START_TEST(test_get_attr_errors_name_what_is_wrong) {
  irm_executor *e = executor("aot", NULL);
  irm_object *s = new_string("aot");
  irm_any v;
  ck_assert_error(irm_config_get_attr(e, "link_params", &v), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'link-params'?");
  ck_assert_error(irm_config_get_attr(s, "link-params", &v), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_config_get_attr(e, NULL, &v), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_config_get_attr(e, "link-params", NULL), IRM_EVALUE, "ValueError: ");
  irm_object_release(s);
  irm_object_release(e);
}
END_TEST

/* ---- the executor.* globals ---------------------------------------------------------------- */

START_TEST(test_global_create_takes_a_name_with_or_without_a_map) {
  irm_object *opts = map1("link-params", irm_any_bool(true));
  irm_any by_name = irm_any_str("graph"), with_map[] = {irm_any_str("graph"), irm_any_object(opts)},
          with_none[] = {irm_any_str("graph"), irm_any_none()};
  irm_object *a = call_obj("executor.Create", &by_name, 1, "ir.Executor");
  irm_object *b = call_obj("executor.Create", with_map, 2, "ir.Executor");
  irm_object *c = call_obj("executor.Create", with_none, 2, "ir.Executor");
  assert_repr(irm_config_attrs(a), "{\"link-params\": false}");
  assert_repr(irm_config_attrs(b), "{\"link-params\": true}");
  assert_repr(irm_config_attrs(c), "{\"link-params\": false}");
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_global_create_takes_one_map_with_kind) {
  const char *keys[] = {"kind", "unpacked-api"};
  irm_any values[] = {irm_any_str("aot"), irm_any_bool(false)};
  irm_object *config = new_map(keys, values, 2);
  irm_any arg = irm_any_object(config);
  irm_object *e = call_obj("executor.Create", &arg, 1, "ir.Executor");
  ck_assert_str_eq(irm_config_kind_name(e), "aot");
  assert_repr(irm_config_attrs(e), aot_defaults);
  irm_object_release(e);
  irm_object_release(config);
}
END_TEST

START_TEST(test_global_create_rejects_a_kind_map_with_separate_attrs) {
  irm_object *config = map1("kind", irm_any_str("aot"));
  irm_any args[] = {irm_any_object(config), irm_any_object(config)};
  ck_assert_error(call_fails("executor.Create", args, 2), IRM_ETYPE,
                  "TypeError: executor.Create: argument 2: a config Map with \"kind\" takes no separate attributes");
  irm_object_release(config);
}
END_TEST

START_TEST(test_global_create_of_something_else_than_a_name_or_map_is_type_error) {
  irm_any arg = irm_any_int(1);
  ck_assert_error(call_fails("executor.Create", &arg, 1), IRM_ETYPE, "TypeError: ");
  ck_assert_str_eq(
      irm_last_error(),
      "TypeError: executor.Create: argument 1: expected a kind name (str) or an ffi.Map with \"kind\", got int 1");
  ck_assert_error(call_fails("executor.Create", NULL, 0), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_global_create_of_a_map_without_kind_or_with_a_non_str_kind_fails) {
  irm_object *none = map1("link-params", irm_any_bool(true)), *num = map1("kind", irm_any_float(1.5));
  irm_any a = irm_any_object(none), b = irm_any_object(num);
  ck_assert_error(call_fails("executor.Create", &a, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("\"kind\"");
  ck_assert_error_mentions("aot, graph");
  ck_assert_error(call_fails("executor.Create", &b, 1), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("kind");
  irm_object_release(none);
  irm_object_release(num);
}
END_TEST

START_TEST(test_global_create_reports_validation_errors_naming_the_global) {
  irm_any kind = irm_any_str("aott");
  ck_assert_error(call_fails("executor.Create", &kind, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("executor.Create");
  ck_assert_error_mentions("did you mean 'aot'?");
  irm_object *opts = map1("interface_api", irm_any_str("c"));
  irm_any args[] = {irm_any_str("aot"), irm_any_object(opts)};
  ck_assert_error(call_fails("executor.Create", args, 2), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'interface-api'?");
  irm_object_release(opts);
}
END_TEST

START_TEST(test_global_name_gives_the_kind_and_rejects_other_objects) {
  irm_executor *e = executor("aot", NULL);
  irm_any arg = irm_any_object(e);
  irm_object *name = call_obj("executor.Name", &arg, 1, "ffi.String");
  ck_assert_str_eq(irm_string_data(name), "aot");
  irm_object *s = new_string("aot");
  irm_any bad = irm_any_object(s);
  ck_assert_error(call_fails("executor.Name", &bad, 1), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("executor.Name");
  irm_object_release(s);
  irm_object_release(name);
  irm_object_release(e);
}
END_TEST

START_TEST(test_global_get_attr_gives_values_none_when_unset_and_suggests_options) {
  register_check_kind();
  irm_object *opts = map1("flag", irm_any_int(1));
  irm_executor *e = executor("check-exec", opts);
  irm_any flag[] = {irm_any_object(e), irm_any_str("flag")}, mode[] = {irm_any_object(e), irm_any_str("mode")},
          typo[] = {irm_any_object(e), irm_any_str("fats")};
  irm_any v = call_ok("executor.GetAttr", flag, 2);
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 1);
  v = call_ok("executor.GetAttr", mode, 2);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  ck_assert_error(call_fails("executor.GetAttr", typo, 2), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'fast'?");
  irm_object_release(e);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_global_attrs_gives_the_defaults_filled_in_in_schema_order) {
  irm_any name = irm_any_str("aot");
  irm_object *e = call_obj("executor.Create", &name, 1, "ir.Executor");
  irm_any arg = irm_any_object(e);
  irm_object *attrs = call_obj("executor.Attrs", &arg, 1, "ffi.Map");
  assert_repr(attrs, aot_defaults);
  irm_object_release(attrs);
  irm_object_release(e);
}
END_TEST

START_TEST(test_global_list_kinds_is_sorted_and_holds_the_builtins) {
  irm_object *kinds = call_obj("executor.ListKinds", NULL, 0, "ffi.Array");
  assert_sorted_strings(kinds);
  ck_assert(array_has_string(kinds, "graph"));
  ck_assert(array_has_string(kinds, "aot"));
  ck_assert(array_has_string(kinds, "vm"));
  ck_assert(!array_has_string(kinds, "cpp"));
  irm_object_release(kinds);
}
END_TEST

START_TEST(test_global_list_options_maps_names_to_types_in_schema_order) {
  irm_any aot = irm_any_str("aot"), vm = irm_any_str("vm"), graph = irm_any_str("graph");
  irm_object *a = call_obj("executor.ListOptions", &aot, 1, "ffi.Map");
  irm_object *v = call_obj("executor.ListOptions", &vm, 1, "ffi.Map");
  irm_object *g = call_obj("executor.ListOptions", &graph, 1, "ffi.Map");
  char text[256];
  string_map_text(a, text, sizeof text);
  ck_assert_str_eq(text, "link-params:bool,unpacked-api:bool,interface-api:str,"
                         "workspace-byte-alignment:int,constant-byte-alignment:int");
  string_map_text(g, text, sizeof text);
  ck_assert_str_eq(text, "link-params:bool");
  ck_assert_uint_eq(irm_map_size(v), 0);
  irm_object_release(a);
  irm_object_release(v);
  irm_object_release(g);
}
END_TEST

START_TEST(test_global_list_options_of_an_unknown_kind_is_value_error_listing_the_kinds) {
  irm_any name = irm_any_str("grahp");
  ck_assert_error(call_fails("executor.ListOptions", &name, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'grahp'");
  ck_assert_error_mentions("did you mean 'graph'?");
  ck_assert_error_mentions("registered kinds: aot, graph");
}
END_TEST

/* ---- kinds registered from C ----------------------------------------------------------------- */

START_TEST(test_static_executor_exists_at_start_of_main_and_makes_executors) {
  ck_assert_int_eq(static_kind_found_in_main, 1);
  irm_object *kinds = call_obj("executor.ListKinds", NULL, 0, "ffi.Array");
  ck_assert(array_has_string(kinds, "static-exec"));
  irm_object_release(kinds);
  irm_executor *e = executor("static-exec", NULL);
  assert_repr(irm_config_attrs(e), "{\"trace\": false}");
  irm_object_release(e);
}
END_TEST

/* ---- JSON, structural equality, repr ------------------------------------------------------------ */

/* ffi.ToJSON then ffi.FromJSON. NEW. */
static irm_object *json_round_trip(irm_object *obj) {
  irm_any arg = irm_any_object(obj);
  irm_object *text = call_obj("ffi.ToJSON", &arg, 1, "ffi.String");
  irm_any targ = irm_any_object(text);
  irm_object *back = call_obj("ffi.FromJSON", &targ, 1, "ffi.Object");
  irm_object_release(text);
  return back;
}

static int global_equal(irm_object *a, irm_object *b) {
  irm_any args[] = {irm_any_object(a), irm_any_object(b)};
  irm_any r = call_ok("ffi.StructuralEqual", args, 2);
  ck_assert_int_eq(r.type_code, IRM_BOOL);
  return (int)r.v_int;
}

static int64_t global_hash(irm_object *a) {
  irm_any arg = irm_any_object(a);
  irm_any r = call_ok("ffi.StructuralHash", &arg, 1);
  ck_assert_int_eq(r.type_code, IRM_INT);
  return r.v_int;
}

START_TEST(test_json_round_trip_gives_an_equal_executor_of_every_builtin_kind) {
  irm_object *opts = map1("interface-api", irm_any_str("c"));
  irm_executor *all[] = {executor("graph", NULL), executor("aot", NULL), executor("aot", opts), executor("vm", NULL)};
  for (size_t i = 0; i < 4; i++) {
    irm_object *back = json_round_trip(all[i]);
    ck_assert_str_eq(irm_object_type_key(back), "ir.Executor");
    ck_assert_str_eq(irm_config_kind_name(back), irm_config_kind_name(all[i]));
    ck_assert(global_equal(back, all[i]));
    ck_assert_int_eq(global_hash(back), global_hash(all[i]));
    irm_object_release(back);
  }
  for (size_t i = 0; i < 4; i++) irm_object_release(all[i]);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_reading_json_back_validates_again) {
  irm_executor *e = executor("aot", NULL);
  irm_any v = irm_any_object(e), back = irm_any_none();
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(&v, &text));
  char *edited = strdup(irm_string_data(text));
  char *at = strstr(edited, "\"packed\"");
  ck_assert_ptr_nonnull(at);
  memcpy(at, "\"pecked\"", 8);
  ck_assert_error(irm_from_json(edited, strlen(edited), &back), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("interface-api");
  ck_assert_error_mentions("pecked");
  ck_assert_int_eq(back.type_code, IRM_NONE);
  free(edited);
  irm_object_release(text);
  irm_object_release(e);
}
END_TEST

START_TEST(test_equal_executors_are_structurally_equal_and_hash_equal) {
  irm_object *a_opts = map1("unpacked-api", irm_any_bool(false)), *b_opts = map1("unpacked-api", irm_any_int(0));
  irm_executor *a = executor("aot", a_opts), *b = executor("aot", b_opts), *c = executor("aot", NULL);
  ck_assert(global_equal(a, b));
  ck_assert(global_equal(a, c));
  ck_assert_int_eq(global_hash(a), global_hash(b));
  ck_assert_int_eq(global_hash(a), global_hash(c));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(a_opts);
  irm_object_release(b_opts);
}
END_TEST

START_TEST(test_executors_with_different_values_or_kinds_are_unequal) {
  irm_object *opts = map1("link-params", irm_any_bool(true));
  ck_assert_ok(irm_kind_register("executor", "vm-twin", NULL)); /* no options, like vm */
  irm_executor *a = executor("graph", NULL), *b = executor("graph", opts), *c = executor("vm", NULL),
               *d = executor("vm-twin", NULL);
  ck_assert(!global_equal(a, b));
  ck_assert(!global_equal(a, c));
  ck_assert(!global_equal(c, d));
  ck_assert(global_equal(a, a));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(d);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_repr_mentions_the_type_and_the_kind) {
  irm_executor *e = executor("aot", NULL);
  irm_any arg = irm_any_object(e);
  irm_object *text = call_obj("ffi.Repr", &arg, 1, "ffi.String");
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "ir.Executor"));
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"aot\""));
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "interface-api"));
  irm_object_release(text);
  irm_object_release(e);
}
END_TEST

/* ---- copy-on-write ---------------------------------------------------------------------------------- */

START_TEST(test_changing_the_options_map_afterwards_does_not_change_the_executor) {
  irm_object *opts = map1("link-params", irm_any_bool(true));
  irm_executor *e = executor("graph", opts);
  irm_any off = irm_any_bool(false);
  ck_assert_ok(irm_map_set_move(&opts, "link-params", &off));
  assert_repr(opts, "{\"link-params\": false}");
  assert_repr(irm_config_attrs(e), "{\"link-params\": true}");
  irm_object_release(opts);
  irm_object_release(e);
}
END_TEST

START_TEST(test_attrs_are_unchanged_after_making_another_executor_from_them) {
  irm_executor *a = executor("aot", NULL);
  irm_object *changed = NULL;
  irm_any api = irm_any_str("c");
  ck_assert_ok(irm_map_with_set(irm_config_attrs(a), "interface-api", &api, &changed));
  irm_executor *b = executor("aot", changed), *c = executor("aot", irm_config_attrs(a));
  assert_repr(irm_config_attrs(a), aot_defaults);
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(irm_config_attrs(b), "interface-api")->v_obj), "c");
  irm_any va = irm_any_object(a), vc = irm_any_object(c);
  ck_assert(equal(&va, &vc));
  irm_object_release(changed);
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
}
END_TEST

START_TEST(test_changing_the_attrs_given_by_the_global_copies_them) {
  irm_executor *e = executor("aot", NULL);
  irm_any arg = irm_any_object(e), seven = irm_any_int(7);
  irm_object *attrs = call_obj("executor.Attrs", &arg, 1, "ffi.Map");
  ck_assert_ok(irm_map_set_move(&attrs, "workspace-byte-alignment", &seven));
  ck_assert_int_eq(irm_map_find_cstr(attrs, "workspace-byte-alignment")->v_int, 7);
  assert_repr(irm_config_attrs(e), aot_defaults);
  irm_object_release(attrs);
  irm_object_release(e);
}
END_TEST

/* ---- the suite --------------------------------------------------------------------------------------- */

static Suite *executor_suite(void) {
  Suite *s = suite_create("executor");

  TCase *make = tcase_create("make");
  tcase_add_test(make, test_create_graph_fills_link_params_false);
  tcase_add_test(make, test_create_aot_without_options_fills_every_default_in_schema_order);
  tcase_add_test(make, test_create_vm_has_no_attrs);
  tcase_add_test(make, test_create_aot_from_a_four_option_map_keeps_them_and_fills_the_fifth);
  tcase_add_test(make, test_from_map_with_kind_equals_create_with_the_name);
  tcase_add_test(make, test_from_map_without_kind_is_value_error_listing_the_kinds);
  tcase_add_test(make, test_from_map_with_a_kind_that_is_not_str_is_type_error);
  tcase_add_test(make, test_from_map_of_something_else_than_a_map_is_type_error);
  tcase_add_test(make, test_create_with_null_arguments_is_value_error_and_with_a_non_map_type_error);
  suite_add_tcase(s, make);

  TCase *validate = tcase_create("validate");
  tcase_add_test(validate, test_unknown_kind_is_value_error_suggesting_the_closest_and_listing_the_kinds);
  tcase_add_test(validate, test_unknown_option_is_attribute_error_suggesting_the_closest);
  tcase_add_test(validate, test_bool_option_given_text_is_type_error_naming_option_expected_and_given);
  tcase_add_test(validate, test_bool_option_given_an_int_other_than_0_or_1_is_type_error);
  tcase_add_test(validate, test_bool_option_takes_int_0_and_1_and_stores_bools);
  tcase_add_test(validate, test_int_option_given_text_float_or_bool_is_type_error);
  tcase_add_test(validate, test_str_option_given_an_int_is_type_error);
  tcase_add_test(validate, test_aot_interface_api_foo_is_value_error_listing_packed_and_c);
  tcase_add_test(validate, test_aot_interface_api_accepts_packed_and_c);
  tcase_add_test(validate, test_aot_alignments_that_are_not_powers_of_two_are_value_errors);
  tcase_add_test(validate, test_aot_alignments_that_are_powers_of_two_are_accepted);
  suite_add_tcase(s, validate);

  TCase *read = tcase_create("read");
  tcase_add_test(read, test_executor_is_a_config_and_accessors_give_null_for_what_is_not_one);
  tcase_add_test(read, test_get_kind_is_the_registry_handle_of_the_kind);
  tcase_add_test(read, test_get_attr_gives_given_and_default_values);
  tcase_add_test(read, test_get_attr_of_an_option_that_is_not_set_is_none);
  tcase_add_test(read, test_get_attr_errors_name_what_is_wrong);
  suite_add_tcase(s, read);

  TCase *globals = tcase_create("globals");
  tcase_add_test(globals, test_global_create_takes_a_name_with_or_without_a_map);
  tcase_add_test(globals, test_global_create_takes_one_map_with_kind);
  tcase_add_test(globals, test_global_create_rejects_a_kind_map_with_separate_attrs);
  tcase_add_test(globals, test_global_create_of_something_else_than_a_name_or_map_is_type_error);
  tcase_add_test(globals, test_global_create_of_a_map_without_kind_or_with_a_non_str_kind_fails);
  tcase_add_test(globals, test_global_create_reports_validation_errors_naming_the_global);
  tcase_add_test(globals, test_global_name_gives_the_kind_and_rejects_other_objects);
  tcase_add_test(globals, test_global_get_attr_gives_values_none_when_unset_and_suggests_options);
  tcase_add_test(globals, test_global_attrs_gives_the_defaults_filled_in_in_schema_order);
  tcase_add_test(globals, test_global_list_kinds_is_sorted_and_holds_the_builtins);
  tcase_add_test(globals, test_global_list_options_maps_names_to_types_in_schema_order);
  tcase_add_test(globals, test_global_list_options_of_an_unknown_kind_is_value_error_listing_the_kinds);
  suite_add_tcase(s, globals);

  TCase *from_c = tcase_create("static_registration");
  tcase_add_test(from_c, test_static_executor_exists_at_start_of_main_and_makes_executors);
  suite_add_tcase(s, from_c);

  TCase *structural = tcase_create("json_and_structural");
  tcase_add_test(structural, test_json_round_trip_gives_an_equal_executor_of_every_builtin_kind);
  tcase_add_test(structural, test_reading_json_back_validates_again);
  tcase_add_test(structural, test_equal_executors_are_structurally_equal_and_hash_equal);
  tcase_add_test(structural, test_executors_with_different_values_or_kinds_are_unequal);
  tcase_add_test(structural, test_repr_mentions_the_type_and_the_kind);
  suite_add_tcase(s, structural);

  TCase *cow = tcase_create("copy_on_write");
  tcase_add_test(cow, test_changing_the_options_map_afterwards_does_not_change_the_executor);
  tcase_add_test(cow, test_attrs_are_unchanged_after_making_another_executor_from_them);
  tcase_add_test(cow, test_changing_the_attrs_given_by_the_global_copies_them);
  suite_add_tcase(s, cow);
  return s;
}

int main(void) {
  irm_kind *k = NULL;
  static_kind_found_in_main = irm_kind_find("executor", "static-exec", &k) == 0;
  return run_suite(executor_suite());
}
