/* Registering executor and runtime kinds (config.h, kind.h): the
 * executor./runtime.RegisterKind globals and irm_config_register_kind
 * (option -> type name, or option -> {type, default, doc, required}),
 * re-registration, kinds registered from C, kind attributes with priority
 * levels through SetKindAttr/GetKindAttr (FValidate among them), the
 * registration journal undoing all of it, and threads registering at once. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- helpers --------------------------------------------------------------- */

/* An option description Map {type[, default][, doc]}. NEW. */
static irm_object *describe(const char *type, irm_any def, const char *doc) {
  const char *keys[] = {"type", "default", "doc"};
  irm_any values[] = {irm_any_str(type), def, irm_any_str(doc ? doc : "")};
  return new_map(keys, values, def.type_code == IRM_NONE ? 1 : doc ? 3 : 2);
}

/* <category>.RegisterKind(name, spec); returns the status (0 or failure). */
static int register_kind(const char *category, const char *name, const irm_object *spec) {
  char fn[64];
  snprintf(fn, sizeof fn, "%s.RegisterKind", category);
  irm_any args[] = {irm_any_str(name), irm_any_object((irm_object *)spec)}, ret = irm_any_int(-1);
  int rc = irm_func_call_global(fn, args, spec ? 2 : 1, &ret);
  ck_require(ret.type_code == IRM_NONE, "%s returned %s", fn, irm_any_type_name(&ret));
  return rc;
}

/* The option -> type Map of a kind as "name:type,..." in schema order. */
static void options_text(const char *category, const char *kind, char *buf, size_t size) {
  char fn[64];
  snprintf(fn, sizeof fn, "%s.ListOptions", category);
  irm_any arg = irm_any_str(kind);
  irm_object *opts = call_obj(fn, &arg, 1, "ffi.Map");
  irm_map_iter it = irm_map_iter_begin(opts);
  const irm_object *key;
  const irm_any *value;
  size_t used = 0;
  buf[0] = '\0';
  while (irm_map_iter_next(&it, &key, &value))
    used += (size_t)snprintf(buf + used, size - used, "%s%s:%s", used ? "," : "", irm_string_data(key),
                             irm_string_data(value->v_obj));
  ck_assert_uint_lt(used, size);
  irm_object_release(opts);
}

static int kind_listed(const char *category, const char *kind) {
  char fn[64];
  snprintf(fn, sizeof fn, "%s.ListKinds", category);
  irm_object *kinds = call_obj(fn, NULL, 0, "ffi.Array");
  int found = array_has_string(kinds, kind);
  irm_object_release(kinds);
  return found;
}

/* executor.SetKindAttr(kind, attr, value[, plevel]); plevel < 0: left off. */
static int set_kind_attr(const char *kind, const char *attr, irm_any value, int plevel) {
  irm_any args[] = {irm_any_str(kind), irm_any_str(attr), value, irm_any_int(plevel)}, ret = irm_any_int(-1);
  int rc = irm_func_call_global("executor.SetKindAttr", args, plevel < 0 ? 3 : 4, &ret);
  ck_require(ret.type_code == IRM_NONE, "executor.SetKindAttr returned %s", irm_any_type_name(&ret));
  return rc;
}

/* executor.GetKindAttr(kind, attr) as an int; -1 for NONE. */
static int64_t kind_attr_int(const char *kind, const char *attr) {
  irm_any args[] = {irm_any_str(kind), irm_any_str(attr)};
  irm_any v = call_ok("executor.GetKindAttr", args, 2);
  if (v.type_code == IRM_NONE) return -1;
  ck_assert_int_eq(v.type_code, IRM_INT);
  return v.v_int;
}

/* ---- RegisterKind ------------------------------------------------------------ */

START_TEST(test_register_kind_with_type_names_lists_the_options_in_order) {
  const char *keys[] = {"level", "names", "extra", "ratio"};
  irm_any values[] = {irm_any_str("int"), irm_any_str("array<str>"), irm_any_str("map"), irm_any_str("float")};
  irm_object *spec = new_map(keys, values, 4);
  ck_assert_ok(register_kind("executor", "reg-exec", spec));
  ck_assert(kind_listed("executor", "reg-exec"));
  char text[128];
  options_text("executor", "reg-exec", text, sizeof text);
  ck_assert_str_eq(text, "level:int,names:array<str>,extra:map,ratio:float");
  irm_any name = irm_any_str("reg-exec");
  irm_object *e = call_obj("executor.Create", &name, 1, "ir.Executor");
  ck_assert_uint_eq(irm_map_size(irm_config_attrs(e)), 0);
  irm_object_release(e);
  irm_object_release(spec);
}
END_TEST

START_TEST(test_register_kind_with_descriptions_fills_defaults_and_keeps_docs) {
  irm_object *level = describe("int", irm_any_int(3), "how hard to try");
  irm_object *mode = describe("str", irm_any_none(), NULL);
  const char *keys[] = {"level", "mode"};
  irm_any values[] = {irm_any_object(level), irm_any_object(mode)};
  irm_object *spec = new_map(keys, values, 2);
  ck_assert_ok(register_kind("executor", "reg-exec", spec));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("reg-exec", NULL, &e));
  ck_assert_uint_eq(irm_map_size(irm_config_attrs(e)), 1);
  ck_assert_int_eq(irm_map_find_cstr(irm_config_attrs(e), "level")->v_int, 3);
  irm_object *all = NULL;
  ck_assert_ok(irm_kind_describe_options(irm_config_kind(e), &all));
  const irm_any *info = irm_map_find_cstr(all, "level");
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(info->v_obj, "doc")->v_obj), "how hard to try");
  irm_object_release(all);
  irm_object_release(e);
  irm_object_release(spec);
  irm_object_release(level);
  irm_object_release(mode);
}
END_TEST

START_TEST(test_register_kind_without_options_makes_a_kind_with_none) {
  ck_assert_ok(register_kind("executor", "bare", NULL));
  irm_any args[] = {irm_any_str("bare2"), irm_any_none()};
  ck_assert_int_eq(call_ok("executor.RegisterKind", args, 2).type_code, IRM_NONE);
  char text[16];
  options_text("executor", "bare", text, sizeof text);
  ck_assert_str_eq(text, "");
  ck_assert(kind_listed("executor", "bare2"));
}
END_TEST

START_TEST(test_runtime_register_kind_registers_a_runtime_kind_only) {
  irm_object *spec = map1("heap-bytes", irm_any_str("int"));
  ck_assert_ok(register_kind("runtime", "reg-rt", spec));
  ck_assert(kind_listed("runtime", "reg-rt"));
  ck_assert(!kind_listed("executor", "reg-rt"));
  char text[64];
  options_text("runtime", "reg-rt", text, sizeof text);
  ck_assert_str_eq(text, "heap-bytes:int");
  irm_object_release(spec);
}
END_TEST

START_TEST(test_required_option_must_be_given) {
  const char *keys[] = {"type", "required"};
  irm_any values[] = {irm_any_str("str"), irm_any_bool(true)};
  irm_object *desc = new_map(keys, values, 2), *spec = map1("entry", irm_any_object(desc));
  ck_assert_ok(register_kind("executor", "needs-entry", spec));
  irm_executor *e = NULL;
  ck_assert_error(irm_executor_create("needs-entry", NULL, &e), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'entry'");
  irm_object *opts = map1("entry", irm_any_str("main"));
  ck_assert_ok(irm_executor_create("needs-entry", opts, &e));
  irm_object_release(e);
  irm_object_release(opts);
  irm_object_release(spec);
  irm_object_release(desc);
}
END_TEST

START_TEST(test_re_registration_with_identical_definitions_succeeds) {
  irm_object *d1 = describe("int", irm_any_int(3), "first doc");
  irm_object *d2 = describe("int", irm_any_int(3), "other doc");
  irm_object *s1 = map1("level", irm_any_object(d1)), *s2 = map1("level", irm_any_object(d2));
  ck_assert_ok(register_kind("executor", "twice", s1));
  ck_assert_ok(register_kind("executor", "twice", s1));
  ck_assert_ok(register_kind("executor", "twice", s2));
  ck_assert_ok(register_kind("executor", "twice", NULL));
  char text[64];
  options_text("executor", "twice", text, sizeof text);
  ck_assert_str_eq(text, "level:int");
  irm_object_release(s1);
  irm_object_release(s2);
  irm_object_release(d1);
  irm_object_release(d2);
}
END_TEST

START_TEST(test_re_registration_with_a_new_option_adds_it) {
  irm_object *s1 = map1("a", irm_any_str("int")), *s2 = map1("b", irm_any_str("bool"));
  ck_assert_ok(register_kind("executor", "growing", s1));
  ck_assert_ok(register_kind("executor", "growing", s2));
  char text[64];
  options_text("executor", "growing", text, sizeof text);
  ck_assert_str_eq(text, "a:int,b:bool");
  irm_object_release(s1);
  irm_object_release(s2);
}
END_TEST

START_TEST(test_redefining_an_option_is_key_error_naming_kind_and_option) {
  irm_object *d3 = describe("int", irm_any_int(3), NULL), *d4 = describe("int", irm_any_int(4), NULL);
  irm_object *first = map1("level", irm_any_object(d3)), *other_default = map1("level", irm_any_object(d4)),
             *other_type = map1("level", irm_any_str("str")), *no_default = map1("level", irm_any_str("int"));
  ck_assert_ok(register_kind("executor", "defined", first));
  irm_object *changes[] = {other_default, other_type, no_default};
  for (size_t i = 0; i < 3; i++) {
    ck_assert_error(register_kind("executor", "defined", changes[i]), IRM_EKEY, "KeyError: ");
    ck_assert_error_mentions("'defined'");
    ck_assert_error_mentions("'level'");
    ck_assert_error_mentions("int (default 3)");
  }
  ck_assert_error(register_kind("executor", "defined", other_default), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("int (default 4)");
  char text[64];
  options_text("executor", "defined", text, sizeof text);
  ck_assert_str_eq(text, "level:int");
  irm_object *arr[] = {first, other_default, other_type, no_default, d3, d4};
  for (size_t i = 0; i < 6; i++) irm_object_release(arr[i]);
}
END_TEST

START_TEST(test_redefining_a_builtin_option_is_key_error_and_the_same_definition_is_fine) {
  irm_object *same = describe("bool", irm_any_bool(true), "anything");
  irm_object *spec = map1("link-params", irm_any_object(same));
  ck_assert_ok(register_kind("executor", "aot", spec));
  irm_object *changed = map1("link-params", irm_any_str("bool"));
  ck_assert_error(register_kind("executor", "aot", changed), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'aot'");
  ck_assert_error_mentions("'link-params'");
  irm_object_release(changed);
  irm_object_release(spec);
  irm_object_release(same);
}
END_TEST

START_TEST(test_add_option_twice_from_c_is_key_error_naming_kind_and_option) {
  irm_kind *k = NULL, *again = NULL;
  ck_assert_ok(irm_kind_register("executor", "from-c", &k));
  ck_assert_ok(irm_kind_register("executor", "from-c", &again));
  ck_assert_ptr_eq(k, again);
  ck_assert_ok(irm_kind_add_option(k, "depth", IRM_OPTION_INT, NULL, NULL, 0));
  ck_assert_error(irm_kind_add_option(k, "depth", IRM_OPTION_STR, NULL, NULL, 0), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'from-c'");
  ck_assert_error_mentions("'depth'");
}
END_TEST

START_TEST(test_unknown_type_name_is_value_error_suggesting_the_closest) {
  irm_object *spec = map1("fast", irm_any_str("boool"));
  ck_assert_error(register_kind("executor", "typo-kind", spec), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'boool'");
  ck_assert_error_mentions("did you mean 'bool'?");
  ck_assert_error_mentions("'fast'");
  ck_assert_error_mentions("'typo-kind'");
  irm_object_release(spec);
}
END_TEST

START_TEST(test_bad_option_descriptions_are_rejected) {
  const char *k_dflt[] = {"type", "defualt"}, *k_req[] = {"type", "default", "required"};
  irm_any v_dflt[] = {irm_any_str("int"), irm_any_int(1)},
          v_req[] = {irm_any_str("int"), irm_any_int(1), irm_any_bool(true)};
  irm_object *not_text = map1("x", irm_any_int(3)), *no_type_desc = map1("default", irm_any_int(1)),
             *no_type = map1("x", irm_any_object(no_type_desc)), *typo_desc = new_map(k_dflt, v_dflt, 2),
             *typo = map1("x", irm_any_object(typo_desc)), *bad_def_desc = describe("int", irm_any_str("1"), NULL),
             *bad_def = map1("x", irm_any_object(bad_def_desc)), *req_desc = new_map(k_req, v_req, 3),
             *req = map1("x", irm_any_object(req_desc));
  ck_assert_error(register_kind("executor", "bad", not_text), IRM_ETYPE, "TypeError: ");
  ck_assert_error(register_kind("executor", "bad", no_type), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("type");
  ck_assert_error(register_kind("executor", "bad", typo), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'default'?");
  ck_assert_error(register_kind("executor", "bad", bad_def), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("expected int");
  ck_assert_error(register_kind("executor", "bad", req), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("required");
  ck_assert(!kind_listed("executor", "bad"));
  irm_object *all[] = {not_text, no_type_desc, no_type, typo_desc, typo, bad_def_desc, bad_def, req_desc, req};
  for (size_t i = 0; i < 9; i++) irm_object_release(all[i]);
}
END_TEST

START_TEST(test_a_failed_registration_registers_nothing) {
  const char *keys[] = {"good", "bad"};
  irm_any values[] = {irm_any_str("int"), irm_any_str("nope")};
  irm_object *spec = new_map(keys, values, 2);
  ck_assert_error(register_kind("executor", "half", spec), IRM_EVALUE, "ValueError: ");
  ck_assert(!kind_listed("executor", "half"));
  const char *keys2[] = {"new-one", "link-params"};
  irm_any values2[] = {irm_any_str("int"), irm_any_str("str")};
  irm_object *spec2 = new_map(keys2, values2, 2);
  ck_assert_error(register_kind("executor", "graph", spec2), IRM_EKEY, "KeyError: ");
  char text[64];
  options_text("executor", "graph", text, sizeof text);
  ck_assert_str_eq(text, "link-params:bool");
  irm_object_release(spec);
  irm_object_release(spec2);
}
END_TEST

START_TEST(test_register_kind_argument_errors) {
  irm_any items[] = {irm_any_str("int")};
  irm_object *arr = new_array(items, 1);
  irm_any not_map[] = {irm_any_str("k"), irm_any_object(arr)}, not_name[] = {irm_any_int(1)},
          empty[] = {irm_any_str("")};
  ck_assert_error(call_fails("executor.RegisterKind", not_map, 2), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("executor.RegisterKind");
  ck_assert_error(call_fails("executor.RegisterKind", not_name, 1), IRM_ETYPE, "TypeError: ");
  ck_assert_error(call_fails("executor.RegisterKind", empty, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_config_register_kind(NULL, "k", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_config_register_kind("executor", NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_config_register_kind("executor", "k", arr), IRM_ETYPE, "TypeError: ");
  ck_assert(!kind_listed("executor", "k"));
  irm_object_release(arr);
}
END_TEST

START_TEST(test_config_register_kind_from_c_serves_any_category) {
  irm_object *desc = describe("bool", irm_any_bool(false), "from C"), *spec = map1("quiet", irm_any_object(desc));
  ck_assert_ok(irm_config_register_kind("executor", "c-exec", spec));
  ck_assert_ok(irm_config_register_kind("testcat_config", "c-other", spec));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("c-exec", NULL, &e));
  ck_assert_int_eq(irm_map_find_cstr(irm_config_attrs(e), "quiet")->type_code, IRM_BOOL);
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("testcat_config", "c-other", &k));
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(k, &opts));
  ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "quiet")->v_obj), "bool");
  irm_object_release(opts);
  irm_object_release(e);
  irm_object_release(spec);
  irm_object_release(desc);
}
END_TEST

/* ---- kinds registered from C ------------------------------------------------------------- */

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

/* The repr of an object must be exactly expected. */
static void assert_repr(const irm_object *obj, const char *expected) {
  irm_any v = irm_any_object((irm_object *)obj);
  irm_object *text = NULL;
  ck_assert_ok(irm_repr(&v, &text));
  ck_assert_str_eq(irm_string_data(text), expected);
  irm_object_release(text);
}

START_TEST(test_kind_from_c_is_listed_with_its_option_types_and_fills_only_the_default) {
  register_check_kind();
  ck_assert(kind_listed("executor", "check-exec"));
  char text[128];
  options_text("executor", "check-exec", text, sizeof text);
  ck_assert_str_eq(text, "flag:bool,names:array<str>,mode:str,fast:bool");
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("check-exec", NULL, &e));
  assert_repr(irm_config_attrs(e), "{\"fast\": true}");
  irm_object_release(e);
}
END_TEST

START_TEST(test_kind_from_c_with_every_option_keeps_them_in_schema_order) {
  register_check_kind();
  irm_any names[] = {irm_any_str("a"), irm_any_str("b")};
  irm_object *arr = new_array(names, 2);
  const char *keys[] = {"kind", "mode", "fast", "names", "flag"};
  irm_any values[] = {irm_any_str("check-exec"), irm_any_str("quick"), irm_any_bool(false), irm_any_object(arr),
                      irm_any_bool(true)};
  irm_object *config = new_map(keys, values, 5);
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_from_map(config, &e));
  assert_repr(irm_config_attrs(e), "{\"flag\": true, \"names\": [\"a\", \"b\"], \"mode\": \"quick\", \"fast\": false}");
  irm_object_release(e);
  irm_object_release(config);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_array_str_option_given_ints_is_type_error_naming_the_option) {
  register_check_kind();
  irm_any items[] = {irm_any_int(1)};
  irm_object *arr = new_array(items, 1), *opts = map1("names", irm_any_object(arr));
  irm_executor *e = NULL;
  ck_assert_error(irm_executor_create("check-exec", opts, &e), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'names'");
  ck_assert_error_mentions("array<str>");
  ck_assert_ptr_null(e);
  irm_object_release(opts);
  irm_object_release(arr);
}
END_TEST

START_TEST(test_json_round_trip_through_the_c_api_keeps_a_kind_from_c) {
  register_check_kind();
  irm_any items[] = {irm_any_str("x")};
  irm_object *arr = new_array(items, 1), *opts = map1("names", irm_any_object(arr));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("check-exec", opts, &e));
  irm_any v = irm_any_object(e), back = irm_any_none();
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(&v, &text));
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  ck_assert_int_eq(back.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_object_type_key(back.v_obj), "ir.Executor");
  ck_assert(equal(&v, &back));
  irm_any_release(&back);
  irm_object_release(text);
  irm_object_release(e);
  irm_object_release(opts);
  irm_object_release(arr);
}
END_TEST

/* ---- kind attributes ---------------------------------------------------------------- */

START_TEST(test_get_kind_attr_of_an_attribute_no_kind_has_is_attribute_error) {
  irm_any args[] = {irm_any_str("graph"), irm_any_str("NoSuchAttr")};
  ck_assert_error(call_fails("executor.GetKindAttr", args, 2), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'NoSuchAttr'");
  ck_assert_ok(set_kind_attr("vm", "Priority", irm_any_int(1), -1));
  irm_any typo[] = {irm_any_str("graph"), irm_any_str("Priorty")};
  ck_assert_error(call_fails("executor.GetKindAttr", typo, 2), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'Priority'?");
}
END_TEST

START_TEST(test_set_kind_attr_is_read_back_and_other_kinds_give_none) {
  ck_assert_ok(set_kind_attr("vm", "Priority", irm_any_int(5), -1));
  ck_assert_int_eq(kind_attr_int("vm", "Priority"), 5);
  ck_assert_int_eq(kind_attr_int("graph", "Priority"), -1);
}
END_TEST

START_TEST(test_same_attribute_at_the_same_level_twice_is_key_error) {
  ck_assert_ok(set_kind_attr("vm", "Priority", irm_any_int(1), 7));
  ck_assert_error(set_kind_attr("vm", "Priority", irm_any_int(2), 7), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'Priority'");
  ck_assert_error_mentions("'vm'");
  ck_assert_int_eq(kind_attr_int("vm", "Priority"), 1);
}
END_TEST

START_TEST(test_default_level_is_10) {
  ck_assert_ok(set_kind_attr("vm", "Priority", irm_any_int(1), -1));
  ck_assert_error(set_kind_attr("vm", "Priority", irm_any_int(2), 10), IRM_EKEY, "KeyError: ");
  ck_assert_error(set_kind_attr("vm", "Priority", irm_any_int(2), -1), IRM_EKEY, "KeyError: ");
  ck_assert_ok(set_kind_attr("vm", "Priority", irm_any_int(3), 11));
  ck_assert_int_eq(kind_attr_int("vm", "Priority"), 3);
}
END_TEST

START_TEST(test_higher_level_replaces_and_lower_level_is_ignored) {
  ck_assert_ok(set_kind_attr("graph", "Priority", irm_any_int(1), 5));
  ck_assert_ok(set_kind_attr("graph", "Priority", irm_any_int(2), 20));
  ck_assert_int_eq(kind_attr_int("graph", "Priority"), 2);
  ck_assert_ok(set_kind_attr("graph", "Priority", irm_any_int(3), 8));
  ck_assert_int_eq(kind_attr_int("graph", "Priority"), 2);
}
END_TEST

START_TEST(test_reset_clears_so_a_lower_level_sets_again) {
  ck_assert_ok(set_kind_attr("graph", "Priority", irm_any_int(1), 20));
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("executor", "graph", &k));
  ck_assert_ok(irm_kind_reset_attr(k, "Priority"));
  ck_assert_int_eq(kind_attr_int("graph", "Priority"), -1);
  ck_assert_ok(set_kind_attr("graph", "Priority", irm_any_int(4), 1));
  ck_assert_int_eq(kind_attr_int("graph", "Priority"), 4);
}
END_TEST

START_TEST(test_kind_attr_objects_come_back_structurally_equal) {
  irm_object *value = map1("unit", irm_any_str("bytes"));
  ck_assert_ok(set_kind_attr("aot", "Info", irm_any_object(value), -1));
  irm_any args[] = {irm_any_str("aot"), irm_any_str("Info")}, expected = irm_any_object(value);
  irm_any got = call_ok("executor.GetKindAttr", args, 2);
  ck_assert(equal(&got, &expected));
  irm_any_release(&got);
  irm_object_release(value);
}
END_TEST

START_TEST(test_set_kind_attr_argument_errors) {
  ck_assert_error(set_kind_attr("aott", "Priority", irm_any_int(1), -1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'aot'?");
  ck_assert_error_mentions("registered kinds: aot, graph");
  irm_any bad_level[] = {irm_any_str("vm"), irm_any_str("Priority"), irm_any_int(1), irm_any_str("high")},
          bad_attr[] = {irm_any_str("vm"), irm_any_int(3), irm_any_int(1)};
  ck_assert_error(call_fails("executor.SetKindAttr", bad_level, 4), IRM_ETYPE,
                  "TypeError: executor.SetKindAttr: argument 4: expected int, got str 'high'");
  ck_assert_error(call_fails("executor.SetKindAttr", bad_attr, 3), IRM_ETYPE,
                  "TypeError: executor.SetKindAttr: argument 2: expected str, got int 3");
  bad_level[3] = irm_any_int(INT64_MAX);
  ck_assert_error(call_fails("executor.SetKindAttr", bad_level, 4), IRM_EVALUE,
                  "ValueError: executor.SetKindAttr: argument 4: plevel 9223372036854775807 is out of range");
  irm_any few[] = {irm_any_str("vm"), irm_any_str("Priority")};
  ck_assert_error(call_fails("executor.SetKindAttr", few, 2), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_runtime_kind_attributes_are_their_own) {
  irm_any args[] = {irm_any_str("cpp"), irm_any_str("Priority"), irm_any_int(9)};
  ck_assert_int_eq(call_ok("runtime.SetKindAttr", args, 3).type_code, IRM_NONE);
  irm_any ask[] = {irm_any_str("cpp"), irm_any_str("Priority")};
  irm_any v = call_ok("runtime.GetKindAttr", ask, 2);
  ck_assert_int_eq(v.v_int, 9);
  irm_any exec_ask[] = {irm_any_str("graph"), irm_any_str("Priority")};
  ck_assert_error(call_fails("executor.GetKindAttr", exec_ask, 2), IRM_EATTR, "AttributeError: ");
}
END_TEST

START_TEST(test_aot_has_an_fvalidate_function_and_graph_has_none) {
  irm_any aot[] = {irm_any_str("aot"), irm_any_str("FValidate")},
          graph[] = {irm_any_str("graph"), irm_any_str("FValidate")};
  irm_any f = call_ok("executor.GetKindAttr", aot, 2);
  ck_assert_int_eq(f.type_code, IRM_OBJECT);
  ck_assert(irm_object_is(f.v_obj, "ffi.Function"));
  irm_any_release(&f);
  ck_assert_int_eq(call_ok("executor.GetKindAttr", graph, 2).type_code, IRM_NONE);
}
END_TEST

/* An FValidate that remembers the size of the attrs Map it was given. */
static int pk_count_attrs(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  *(int64_t *)resource = nargs == 1 && args[0].type_code == IRM_OBJECT ? (int64_t)irm_map_size(args[0].v_obj) : -1;
  return 0;
}

START_TEST(test_fvalidate_set_through_the_global_checks_every_new_executor) {
  irm_object *spec = map1("level", irm_any_str("int"));
  ck_assert_ok(register_kind("executor", "checked", spec));
  int64_t seen = -2;
  irm_object *f = new_packed(pk_count_attrs, &seen, NULL);
  ck_assert_ok(set_kind_attr("checked", "FValidate", irm_any_object(f), -1));
  irm_object *opts = map1("level", irm_any_int(2));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("checked", opts, &e));
  ck_assert_int_eq(seen, 1);
  irm_object_release(e);
  failure no = {IRM_EVALUE, "ValueError: option 'level' must be odd", NULL};
  irm_object *reject = new_packed(pk_fail, &no, NULL);
  ck_assert_ok(set_kind_attr("checked", "FValidate", irm_any_object(reject), 11));
  e = NULL;
  ck_assert_error(irm_executor_create("checked", opts, &e), IRM_EVALUE, "ValueError: ");
  ck_assert_str_eq(irm_last_error(), "ValueError: executor 'checked': option 'level' must be odd");
  ck_assert_ptr_null(e);
  irm_object_release(reject);
  irm_object_release(opts);
  irm_object_release(f);
  irm_object_release(spec);
}
END_TEST

/* An FValidate that registers a kind and sets an attribute: it would wait
 * forever if irm held its kind lock while calling it. */
static int pk_register_inside(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  irm_any one = irm_any_int(1);
  irm_kind *k = NULL;
  (void)args;
  (void)nargs;
  (void)ret;
  (void)resource;
  int rc = irm_kind_register("executor", "made-in-validate", &k);
  return rc ? rc : irm_kind_set_attr(k, "MadeInValidate", &one, 10);
}

START_TEST(test_fvalidate_runs_without_an_irm_lock_held) {
  ck_assert_ok(register_kind("executor", "reentrant", NULL));
  irm_object *f = new_packed(pk_register_inside, NULL, NULL);
  ck_assert_ok(set_kind_attr("reentrant", "FValidate", irm_any_object(f), -1));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("reentrant", NULL, &e));
  ck_assert(kind_listed("executor", "made-in-validate"));
  ck_assert_int_eq(kind_attr_int("made-in-validate", "MadeInValidate"), 1);
  irm_object_release(e);
  irm_object_release(f);
}
END_TEST

/* ---- the registration journal ------------------------------------------------------------ */

START_TEST(test_rollback_removes_a_kind_with_its_options_and_attributes) {
  irm_object *before = call_obj("executor.ListKinds", NULL, 0, "ffi.Array");
  irm_journal *j = open_journal();
  const char *keys[] = {"level", "mode"};
  irm_any values[] = {irm_any_str("int"), irm_any_str("str")};
  irm_object *spec = new_map(keys, values, 2);
  ck_assert_ok(register_kind("executor", "journaled", spec));
  ck_assert_ok(set_kind_attr("journaled", "JournalAttr", irm_any_int(1), -1));
  ck_assert(kind_listed("executor", "journaled"));
  ck_assert_ok(irm_journal_rollback(j));
  irm_object *after = call_obj("executor.ListKinds", NULL, 0, "ffi.Array");
  irm_any a = irm_any_object(before), b = irm_any_object(after);
  ck_assert(equal(&a, &b));
  irm_any name = irm_any_str("journaled"), attr[] = {irm_any_str("graph"), irm_any_str("JournalAttr")};
  ck_assert_error(call_fails("executor.ListOptions", &name, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error(call_fails("executor.Create", &name, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error(call_fails("executor.GetKindAttr", attr, 2), IRM_EATTR, "AttributeError: ");
  irm_object_release(spec);
  irm_object_release(before);
  irm_object_release(after);
}
END_TEST

START_TEST(test_rollback_removes_what_was_added_to_a_builtin_kind_and_restores_attributes) {
  ck_assert_ok(set_kind_attr("graph", "Priority", irm_any_int(1), -1));
  irm_journal *j = open_journal();
  irm_object *spec = map1("extra", irm_any_str("int"));
  ck_assert_ok(register_kind("executor", "graph", spec));
  ck_assert_ok(set_kind_attr("graph", "Priority", irm_any_int(2), 30));
  ck_assert_ok(set_kind_attr("vm", "Priority", irm_any_int(3), -1));
  ck_assert_ok(irm_journal_rollback(j));
  char text[64];
  options_text("executor", "graph", text, sizeof text);
  ck_assert_str_eq(text, "link-params:bool");
  ck_assert_int_eq(kind_attr_int("graph", "Priority"), 1);
  ck_assert_int_eq(kind_attr_int("vm", "Priority"), -1);
  irm_object *opts = map1("extra", irm_any_int(1));
  irm_executor *e = NULL;
  ck_assert_error(irm_executor_create("graph", opts, &e), IRM_EATTR, "AttributeError: ");
  irm_object_release(opts);
  irm_object_release(spec);
}
END_TEST

START_TEST(test_executor_of_a_rolled_back_kind_stays_readable_but_cannot_be_read_back_from_json) {
  irm_journal *j = open_journal();
  irm_object *spec = map1("level", irm_any_str("int"));
  ck_assert_ok(register_kind("executor", "fleeting", spec));
  irm_object *opts = map1("level", irm_any_int(4));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("fleeting", opts, &e));
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_str_eq(irm_config_kind_name(e), "fleeting");
  ck_assert_int_eq(irm_map_find_cstr(irm_config_attrs(e), "level")->v_int, 4);
  irm_any v = irm_any_object(e), back = irm_any_none();
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(&v, &text));
  ck_assert_error(irm_from_json(irm_string_data(text), irm_string_size(text), &back), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'fleeting'");
  irm_object_release(text);
  irm_object_release(e);
  irm_object_release(opts);
  irm_object_release(spec);
}
END_TEST

START_TEST(test_commit_keeps_the_kind_and_its_options) {
  irm_journal *j = open_journal();
  irm_object *spec = map1("level", irm_any_str("int"));
  ck_assert_ok(register_kind("runtime", "kept", spec));
  ck_assert_ok(irm_journal_commit(j));
  ck_assert(kind_listed("runtime", "kept"));
  char text[64];
  options_text("runtime", "kept", text, sizeof text);
  ck_assert_str_eq(text, "level:int");
  irm_object_release(spec);
}
END_TEST

/* ---- threads ---------------------------------------------------------------------------- */

enum { n_threads = 4, n_rounds = 200 };

typedef struct registrar {
  int id, failures;
  char failure[512];
} registrar;

/* Every thread registers the same kinds with the same options, and one
 * kind of its own per round. */
static void *registrar_main(void *arg) {
  registrar *r = arg;
  const char *keys[] = {"level", "names"};
  irm_any values[] = {irm_any_str("int"), irm_any_str("array<str>")}, ret = irm_any_none();
  irm_object *spec = NULL;
  if (irm_map_from_pairs(keys, values, 2, &spec)) return NULL;
  for (int i = 0; i < n_rounds && !r->failures; i++) {
    char shared[32], own[48];
    snprintf(shared, sizeof shared, "shared-%d", i);
    snprintf(own, sizeof own, "own-%d-%d", r->id, i);
    irm_any a[] = {irm_any_str(shared), irm_any_object(spec)}, b[] = {irm_any_str(own), irm_any_object(spec)};
    if (irm_func_call_global("executor.RegisterKind", a, 2, &ret) ||
        irm_func_call_global("runtime.RegisterKind", b, 2, &ret)) {
      r->failures++;
      snprintf(r->failure, sizeof r->failure, "thread %d round %d: %s", r->id, i, irm_last_error());
    }
  }
  irm_object_release(spec);
  return NULL;
}

START_TEST(test_threads_registering_the_same_kinds_with_the_same_options_all_succeed) {
  registrar r[n_threads];
  pthread_t th[n_threads];
  for (int t = 0; t < n_threads; t++) {
    r[t] = (registrar){.id = t};
    ck_assert_int_eq(pthread_create(&th[t], NULL, registrar_main, &r[t]), 0);
  }
  for (int t = 0; t < n_threads; t++) pthread_join(th[t], NULL);
  for (int t = 0; t < n_threads; t++) ck_assert_msg(r[t].failures == 0, "%s", r[t].failure);
  for (int i = 0; i < n_rounds; i++) {
    char shared[32], text[64];
    snprintf(shared, sizeof shared, "shared-%d", i);
    options_text("executor", shared, text, sizeof text);
    ck_assert_str_eq(text, "level:int,names:array<str>");
  }
  irm_object *kinds = call_obj("runtime.ListKinds", NULL, 0, "ffi.Array");
  ck_assert_uint_ge(irm_array_size(kinds), (size_t)(n_threads * n_rounds));
  irm_object_release(kinds);
}
END_TEST

/* ---- the suite --------------------------------------------------------------------------- */

static Suite *config_register_suite(void) {
  Suite *s = suite_create("config_register");

  TCase *reg = tcase_create("register_kind");
  tcase_add_test(reg, test_register_kind_with_type_names_lists_the_options_in_order);
  tcase_add_test(reg, test_register_kind_with_descriptions_fills_defaults_and_keeps_docs);
  tcase_add_test(reg, test_register_kind_without_options_makes_a_kind_with_none);
  tcase_add_test(reg, test_runtime_register_kind_registers_a_runtime_kind_only);
  tcase_add_test(reg, test_required_option_must_be_given);
  tcase_add_test(reg, test_re_registration_with_identical_definitions_succeeds);
  tcase_add_test(reg, test_re_registration_with_a_new_option_adds_it);
  tcase_add_test(reg, test_redefining_an_option_is_key_error_naming_kind_and_option);
  tcase_add_test(reg, test_redefining_a_builtin_option_is_key_error_and_the_same_definition_is_fine);
  tcase_add_test(reg, test_add_option_twice_from_c_is_key_error_naming_kind_and_option);
  tcase_add_test(reg, test_unknown_type_name_is_value_error_suggesting_the_closest);
  tcase_add_test(reg, test_bad_option_descriptions_are_rejected);
  tcase_add_test(reg, test_a_failed_registration_registers_nothing);
  tcase_add_test(reg, test_register_kind_argument_errors);
  tcase_add_test(reg, test_config_register_kind_from_c_serves_any_category);
  suite_add_tcase(s, reg);

  TCase *from_c = tcase_create("kinds_from_c");
  tcase_add_test(from_c, test_kind_from_c_is_listed_with_its_option_types_and_fills_only_the_default);
  tcase_add_test(from_c, test_kind_from_c_with_every_option_keeps_them_in_schema_order);
  tcase_add_test(from_c, test_array_str_option_given_ints_is_type_error_naming_the_option);
  tcase_add_test(from_c, test_json_round_trip_through_the_c_api_keeps_a_kind_from_c);
  suite_add_tcase(s, from_c);

  TCase *attrs = tcase_create("kind_attrs");
  tcase_add_test(attrs, test_get_kind_attr_of_an_attribute_no_kind_has_is_attribute_error);
  tcase_add_test(attrs, test_set_kind_attr_is_read_back_and_other_kinds_give_none);
  tcase_add_test(attrs, test_same_attribute_at_the_same_level_twice_is_key_error);
  tcase_add_test(attrs, test_default_level_is_10);
  tcase_add_test(attrs, test_higher_level_replaces_and_lower_level_is_ignored);
  tcase_add_test(attrs, test_reset_clears_so_a_lower_level_sets_again);
  tcase_add_test(attrs, test_kind_attr_objects_come_back_structurally_equal);
  tcase_add_test(attrs, test_set_kind_attr_argument_errors);
  tcase_add_test(attrs, test_runtime_kind_attributes_are_their_own);
  tcase_add_test(attrs, test_aot_has_an_fvalidate_function_and_graph_has_none);
  tcase_add_test(attrs, test_fvalidate_set_through_the_global_checks_every_new_executor);
  tcase_add_test(attrs, test_fvalidate_runs_without_an_irm_lock_held);
  suite_add_tcase(s, attrs);

  TCase *journal = tcase_create("journal");
  tcase_add_test(journal, test_rollback_removes_a_kind_with_its_options_and_attributes);
  tcase_add_test(journal, test_rollback_removes_what_was_added_to_a_builtin_kind_and_restores_attributes);
  tcase_add_test(journal, test_executor_of_a_rolled_back_kind_stays_readable_but_cannot_be_read_back_from_json);
  tcase_add_test(journal, test_commit_keeps_the_kind_and_its_options);
  suite_add_tcase(s, journal);

  TCase *threads = tcase_create("threads");
  tcase_add_test(threads, test_threads_registering_the_same_kinds_with_the_same_options_all_succeed);
  tcase_set_timeout(threads, 120);
  suite_add_tcase(s, threads);
  return s;
}

int main(void) { return run_suite(config_register_suite()); }
