/* Kind registries (kind.h): categories, kinds, option schemas, validation,
 * static registration, prepare functions, the registration journal and
 * threads. Kind attributes are in check_kind_attr.c, option types in
 * check_option.c.
 *
 * Tests use categories of their own ("testcat...") so that the built-in
 * target, executor and runtime kinds do not get in the way. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- helpers ------------------------------------------------------------- */

static irm_kind *register_kind(const char *category, const char *name) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_register(category, name, &k));
  ck_assert_ptr_nonnull(k);
  return k;
}

static void add_option(irm_kind *k, const char *option, irm_option_type type, irm_any def) {
  ck_assert_ok(irm_kind_add_option(k, option, type, &def, NULL, 0));
}

/* The kinds of category joined with ",", e.g. "alpha,beta". */
static void kind_list_text(const char *category, char *buf, size_t size) {
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list(category, &names));
  assert_sorted_strings(names);
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < irm_array_size(names); i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
                             irm_string_data(irm_array_at(names, i)->v_obj));
  ck_assert_uint_lt(used, size);
  irm_object_release(names);
}

/* The keys of a Map joined with ",", in iteration order. */
static void map_keys_text(const irm_object *map, char *buf, size_t size) {
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *key;
  const irm_any *value;
  size_t used = 0;
  buf[0] = '\0';
  while (irm_map_iter_next(&it, &key, &value))
    used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? "," : "", irm_string_data(key));
  ck_assert_uint_lt(used, size);
}

/* The option names of k in schema order, joined with ",". */
static void option_names_text(const irm_kind *k, char *buf, size_t size) {
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(k, &opts));
  map_keys_text(opts, buf, size);
  irm_object_release(opts);
}

/* The String at key in map; NULL when absent or not a String. */
static const char *map_str(const irm_object *map, const char *key) {
  const irm_any *v = irm_map_find_cstr(map, key);
  return v && v->type_code == IRM_OBJECT ? irm_string_data(v->v_obj) : NULL;
}

static int kind_exists(const char *category, const char *name) {
  irm_kind *k = NULL;
  return irm_kind_find(category, name, &k) == 0;
}

/* ---- static registration (before main) ------------------------------------ */

static int static_setup_calls;

static int static_setup(irm_kind *k) {
  static_setup_calls++;
  irm_any level = irm_any_int(7);
  return irm_kind_add_option(k, "level", IRM_OPTION_INT, &level, "set up before main", 0);
}

IRM_REGISTER_KIND("testcat_static", "from-constructor", static_setup);
IRM_REGISTER_EXECUTOR("check-kind-executor", static_setup);

/* ---- categories ------------------------------------------------------------ */

START_TEST(test_category_register_is_idempotent_and_rejects_empty_names) {
  ck_assert_ok(irm_kind_category_register("testcat"));
  ck_assert_ok(irm_kind_category_register("testcat"));
  char list[16];
  kind_list_text("testcat", list, sizeof list);
  ck_assert_str_eq(list, "");
  ck_assert_error(irm_kind_category_register(NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_category_register(""), IRM_EVALUE, "ValueError: ");
}
END_TEST

/* ---- kinds ------------------------------------------------------------------ */

START_TEST(test_register_returns_the_same_handle_twice) {
  irm_kind *a = register_kind("testcat", "alpha");
  irm_kind *b = register_kind("testcat", "alpha");
  ck_assert_ptr_eq(a, b);
  ck_assert_ok(irm_kind_register("testcat", "alpha", NULL));
  char list[256];
  kind_list_text("testcat", list, sizeof list);
  ck_assert_str_eq(list, "alpha");
}
END_TEST

START_TEST(test_register_rejects_null_and_empty_names_with_value_error) {
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_register(NULL, "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_register("", "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_register("testcat", NULL, &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_register("testcat", "", &k), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_kind_name_and_category_report_the_registration) {
  irm_kind *k = register_kind("testcat", "named");
  ck_assert_str_eq(irm_kind_name(k), "named");
  ck_assert_str_eq(irm_kind_category(k), "testcat");
}
END_TEST

START_TEST(test_same_name_in_two_categories_is_two_kinds) {
  irm_kind *a = register_kind("testcat", "twin");
  irm_kind *b = register_kind("testcat_other", "twin");
  ck_assert_ptr_ne(a, b);
  ck_assert_str_eq(irm_kind_category(b), "testcat_other");
}
END_TEST

START_TEST(test_find_returns_the_registered_kind) {
  irm_kind *k = register_kind("testcat", "alpha");
  irm_kind *found = NULL;
  ck_assert_ok(irm_kind_find("testcat", "alpha", &found));
  ck_assert_ptr_eq(found, k);
}
END_TEST

START_TEST(test_find_of_a_typo_suggests_the_closest_and_lists_the_kinds) {
  register_kind("testcat", "beta");
  register_kind("testcat", "alpha");
  irm_kind *k;
  ck_assert_error(irm_kind_find("testcat", "alpah", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_str_eq(irm_last_error(), "ValueError: unknown testcat kind 'alpah' (did you mean 'alpha'?); "
                                     "registered kinds: alpha, beta");
}
END_TEST

START_TEST(test_find_of_a_far_name_lists_the_kinds_without_suggestion) {
  register_kind("testcat", "alpha");
  register_kind("testcat", "beta");
  irm_kind *k;
  ck_assert_error(irm_kind_find("testcat", "zzzzzzzz", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("unknown testcat kind 'zzzzzzzz'");
  ck_assert_error_mentions("registered kinds: alpha, beta");
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

START_TEST(test_find_in_an_unknown_category_or_with_null_arguments_is_value_error) {
  irm_kind *k;
  ck_assert_error(irm_kind_find("testcat_nowhere", "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("testcat_nowhere");
  ck_assert_error_mentions("'x'");
  ck_assert_error(irm_kind_find(NULL, "x", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_find("testcat", NULL, &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_find("testcat", "x", NULL), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_list_is_sorted) {
  static const char *const names[] = {"mike", "alpha", "zulu", "echo", "bravo"};
  for (size_t i = 0; i < 5; i++) register_kind("testcat", names[i]);
  char list[256];
  kind_list_text("testcat", list, sizeof list);
  ck_assert_str_eq(list, "alpha,bravo,echo,mike,zulu");
}
END_TEST

START_TEST(test_list_of_an_unknown_category_is_an_empty_array) {
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list("testcat_nowhere", &names));
  ck_assert_ptr_nonnull(names);
  ck_assert_str_eq(irm_object_type_key(names), "ffi.Array");
  ck_assert_uint_eq(irm_array_size(names), 0);
  irm_object_release(names);
}
END_TEST

START_TEST(test_builtin_categories_list_kinds_that_find_resolves) {
  static const char *const categories[] = {"target", "executor", "runtime"};
  for (size_t c = 0; c < 3; c++) {
    irm_object *names = NULL;
    ck_assert_ok(irm_kind_list(categories[c], &names));
    assert_sorted_strings(names);
    for (size_t i = 0; i < irm_array_size(names); i++) {
      const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
      irm_kind *k = NULL;
      ck_assert_ok(irm_kind_find(categories[c], name, &k));
      ck_assert_str_eq(irm_kind_name(k), name);
      ck_assert_str_eq(irm_kind_category(k), categories[c]);
      irm_object *opts = NULL;
      ck_assert_ok(irm_kind_list_options(k, &opts));
      irm_object_release(opts);
    }
    irm_object_release(names);
  }
}
END_TEST

/* ---- options ---------------------------------------------------------------- */

START_TEST(test_list_options_maps_names_to_type_names_in_registration_order) {
  irm_kind *k = register_kind("testcat", "opts");
  static const irm_option_type types[] = {IRM_OPTION_TARGET, IRM_OPTION_BOOL,      IRM_OPTION_MAP,
                                          IRM_OPTION_INT,    IRM_OPTION_ARRAY_STR, IRM_OPTION_STR,
                                          IRM_OPTION_FLOAT,  IRM_OPTION_ARRAY_INT};
  static const char *const names[] = {"z-host", "y-flag", "x-cfg", "w-n", "v-libs", "u-name", "t-f", "s-ids"};
  for (size_t i = 0; i < 8; i++) ck_assert_ok(irm_kind_add_option(k, names[i], types[i], NULL, NULL, 0));
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(k, &opts));
  ck_assert_str_eq(irm_object_type_key(opts), "ffi.Map");
  ck_assert_uint_eq(irm_map_size(opts), 8);
  char keys[256];
  map_keys_text(opts, keys, sizeof keys);
  ck_assert_str_eq(keys, "z-host,y-flag,x-cfg,w-n,v-libs,u-name,t-f,s-ids");
  for (size_t i = 0; i < 8; i++) {
    ck_assert_ptr_nonnull(map_str(opts, names[i]));
    ck_assert_str_eq(map_str(opts, names[i]), irm_option_type_name(types[i]));
  }
  irm_object_release(opts);
}
END_TEST

START_TEST(test_describe_options_gives_type_default_doc_and_required) {
  irm_kind *k = register_kind("testcat", "described");
  irm_any three = irm_any_int(3);
  ck_assert_ok(irm_kind_add_option(k, "level", IRM_OPTION_INT, &three, "how hard to try", 0));
  ck_assert_ok(irm_kind_add_option(k, "name", IRM_OPTION_STR, NULL, "what to call it", 1));
  irm_object *desc = NULL;
  ck_assert_ok(irm_kind_describe_options(k, &desc));
  char keys[64];
  map_keys_text(desc, keys, sizeof keys);
  ck_assert_str_eq(keys, "level,name");

  const irm_any *level = irm_map_find_cstr(desc, "level");
  ck_assert_ptr_nonnull(level);
  ck_assert_int_eq(level->type_code, IRM_OBJECT);
  ck_assert_str_eq(map_str(level->v_obj, "type"), "int");
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "default")->type_code, IRM_INT);
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "default")->v_int, 3);
  ck_assert_str_eq(map_str(level->v_obj, "doc"), "how hard to try");
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "required")->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_map_find_cstr(level->v_obj, "required")->v_int, 0);

  const irm_any *name = irm_map_find_cstr(desc, "name");
  ck_assert_ptr_nonnull(name);
  ck_assert_str_eq(map_str(name->v_obj, "type"), "str");
  ck_assert_ptr_nonnull(irm_map_find_cstr(name->v_obj, "default"));
  ck_assert_int_eq(irm_map_find_cstr(name->v_obj, "default")->type_code, IRM_NONE);
  ck_assert_str_eq(map_str(name->v_obj, "doc"), "what to call it");
  ck_assert_int_eq(irm_map_find_cstr(name->v_obj, "required")->type_code, IRM_BOOL);
  ck_assert_int_eq(irm_map_find_cstr(name->v_obj, "required")->v_int, 1);
  irm_object_release(desc);
}
END_TEST

START_TEST(test_add_option_twice_is_key_error_naming_kind_and_option) {
  irm_kind *k = register_kind("testcat", "dup");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(1));
  irm_any two = irm_any_int(2);
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, &two, NULL, 0), IRM_EKEY, "KeyError: ");
  ck_assert_error_mentions("'dup'");
  ck_assert_error_mentions("'level'");
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "level", NULL, &def));
  ck_assert_int_eq(def.v_int, 1); /* the first one stays */
}
END_TEST

START_TEST(test_add_option_with_a_wrong_type_default_is_type_error_and_adds_nothing) {
  irm_kind *k = register_kind("testcat", "baddefault");
  irm_any text = irm_any_str("three");
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, &text, NULL, 0), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'level'");
  ck_assert_error_mentions("expected int, got str");
  ck_assert_error(irm_kind_option(k, "level", NULL, NULL), IRM_EATTR, "AttributeError: ");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(3)); /* the name is still free */
}
END_TEST

START_TEST(test_add_option_stores_the_default_converted_to_the_type) {
  irm_kind *k = register_kind("testcat", "converted");
  add_option(k, "flag", IRM_OPTION_BOOL, irm_any_int(1));
  add_option(k, "ratio", IRM_OPTION_FLOAT, irm_any_int(2));
  char buf[] = "borrowed";
  add_option(k, "name", IRM_OPTION_STR, irm_any_str(buf));
  buf[0] = 'X';
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "flag", NULL, &def));
  ck_assert_int_eq(def.type_code, IRM_BOOL);
  ck_assert_int_eq(def.v_int, 1);
  ck_assert_ok(irm_kind_option(k, "ratio", NULL, &def));
  ck_assert_int_eq(def.type_code, IRM_FLOAT);
  ck_assert_double_eq(def.v_float, 2.0);
  ck_assert_ok(irm_kind_option(k, "name", NULL, &def));
  ck_assert_int_eq(def.type_code, IRM_OBJECT);
  ck_assert_str_eq(irm_string_data(def.v_obj), "borrowed");
  irm_any_release(&def);
}
END_TEST

START_TEST(test_required_option_with_a_default_is_value_error_and_adds_nothing) {
  irm_kind *k = register_kind("testcat", "req");
  irm_any one = irm_any_int(1);
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, &one, NULL, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("'level'");
  ck_assert_error(irm_kind_option(k, "level", NULL, NULL), IRM_EATTR, "AttributeError: ");
  irm_any none = irm_any_none();
  ck_assert_ok(irm_kind_add_option(k, "level", IRM_OPTION_INT, &none, NULL, 1)); /* NONE: no default */
}
END_TEST

START_TEST(test_add_option_rejects_bad_names_types_and_kinds) {
  irm_kind *k = register_kind("testcat", "badnames");
  ck_assert_error(irm_kind_add_option(k, NULL, IRM_OPTION_INT, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_add_option(k, "", IRM_OPTION_INT, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_add_option(k, "x", (irm_option_type)42, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_add_option(NULL, "x", IRM_OPTION_INT, NULL, NULL, 0), IRM_EVALUE, "ValueError: ");
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "");
}
END_TEST

START_TEST(test_option_gives_type_and_default_as_a_new_value) {
  irm_kind *k = register_kind("testcat", "lookup");
  irm_object *libs = NULL;
  irm_any items[] = {irm_any_str("m")};
  libs = new_array(items, 1);
  add_option(k, "libs", IRM_OPTION_ARRAY_STR, irm_any_object(libs));
  add_option(k, "count", IRM_OPTION_INT, irm_any_none());
  irm_object_release(libs);
  irm_option_type t = IRM_OPTION_MAP;
  irm_any def = irm_any_int(-1);
  ck_assert_ok(irm_kind_option(k, "libs", &t, &def));
  ck_assert_int_eq(t, IRM_OPTION_ARRAY_STR);
  ck_assert_int_eq(def.type_code, IRM_OBJECT);
  ck_assert_uint_eq(irm_array_size(def.v_obj), 1);
  irm_any_release(&def);
  ck_assert_ok(irm_kind_option(k, "count", &t, &def));
  ck_assert_int_eq(t, IRM_OPTION_INT);
  ck_assert_int_eq(def.type_code, IRM_NONE);
  ck_assert_ok(irm_kind_option(k, "count", NULL, NULL));
}
END_TEST

START_TEST(test_unknown_option_is_attribute_error_suggesting_the_closest) {
  irm_kind *k = register_kind("testcat", "aotish");
  add_option(k, "unpacked-api", IRM_OPTION_BOOL, irm_any_bool(false));
  add_option(k, "link-params", IRM_OPTION_BOOL, irm_any_bool(true));
  irm_option_type t;
  ck_assert_error(irm_kind_option(k, "unpacked_api", &t, NULL), IRM_EATTR, "AttributeError: ");
  ck_assert_str_eq(irm_last_error(),
                   "AttributeError: testcat 'aotish' has no option 'unpacked_api' (did you mean 'unpacked-api'?)");
  ck_assert_error(irm_kind_option(k, "completely-different", &t, NULL), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("'completely-different'");
  ck_assert_ptr_null(strstr(irm_last_error(), "did you mean"));
}
END_TEST

/* ---- static registration ------------------------------------------------------ */

START_TEST(test_static_registration_registers_before_main_with_its_options) {
  ck_assert_int_ge(static_setup_calls, 2); /* both constructors ran */
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_find("testcat_static", "from-constructor", &k));
  irm_option_type t;
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "level", &t, &def));
  ck_assert_int_eq(t, IRM_OPTION_INT);
  ck_assert_int_eq(def.v_int, 7);
}
END_TEST

START_TEST(test_static_executor_is_listed_with_the_executors) {
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list("executor", &names));
  assert_sorted_strings(names);
  ck_assert(array_has_string(names, "check-kind-executor"));
  irm_object_release(names);
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_find("executor", "check-kind-executr", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'check-kind-executor'?");
  ck_assert_error_mentions("check-kind-executor");
}
END_TEST

static char warning_text[512];
static int warning_count;

static void record_warning(const char *msg, void *user_data) {
  (void)user_data;
  warning_count++;
  snprintf(warning_text, sizeof warning_text, "%s", msg);
}

static int failing_setup(irm_kind *k) {
  return irm_error(IRM_EVALUE, "setup of '%s' refuses", irm_kind_name(k));
}

START_TEST(test_failing_static_setup_is_reported_through_the_warning_handler) {
  irm_set_warning_handler(record_warning, NULL);
  ck_assert_int_lt(irm_register_static_kind("testcat", "bad-static", failing_setup), 0);
  irm_set_warning_handler(NULL, NULL);
  ck_assert_int_eq(warning_count, 1);
  ck_assert_ptr_nonnull(strstr(warning_text, "bad-static"));
  ck_assert_ptr_nonnull(strstr(warning_text, "refuses"));
  ck_assert_ok(irm_register_static_kind("testcat", "no-setup", NULL));
  ck_assert(kind_exists("testcat", "no-setup"));
  ck_assert_int_eq(warning_count, 1);
}
END_TEST

/* ---- prepare -------------------------------------------------------------------- */

static int prepare_calls;
static int prepare_fails;

static int common_prepare(irm_kind *k) {
  prepare_calls++;
  irm_any no = irm_any_bool(false);
  int rc = irm_kind_add_option(k, "common", IRM_OPTION_BOOL, &no, "every kind has it", 0);
  if (rc == 0 && prepare_fails) rc = irm_error(IRM_EVALUE, "prepare refuses '%s'", irm_kind_name(k));
  return rc;
}

START_TEST(test_prepare_runs_once_for_each_new_kind) {
  irm_kind *before = register_kind("testcat_prep", "before");
  ck_assert_ok(irm_kind_category_set_prepare("testcat_prep", common_prepare));
  irm_kind *a = register_kind("testcat_prep", "a");
  register_kind("testcat_prep", "b");
  register_kind("testcat_prep", "a"); /* existing: no second run */
  ck_assert_int_eq(prepare_calls, 2);
  char names[64];
  option_names_text(a, names, sizeof names);
  ck_assert_str_eq(names, "common");
  option_names_text(before, names, sizeof names);
  ck_assert_str_eq(names, ""); /* registered before the prepare function */
  register_kind("testcat_prep_other", "c");
  ck_assert_int_eq(prepare_calls, 2);
  ck_assert_error(irm_kind_category_set_prepare("", common_prepare), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_kind_category_set_prepare(NULL, common_prepare), IRM_EVALUE, "ValueError: ");
}
END_TEST

START_TEST(test_failing_prepare_leaves_the_kind_unregistered) {
  ck_assert_ok(irm_kind_category_set_prepare("testcat_prep", common_prepare));
  register_kind("testcat_prep", "ok");
  prepare_fails = 1;
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_register("testcat_prep", "refused", &k), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("refused");
  ck_assert(!kind_exists("testcat_prep", "refused"));
  char list[64];
  kind_list_text("testcat_prep", list, sizeof list);
  ck_assert_str_eq(list, "ok");
  prepare_fails = 0;
  k = register_kind("testcat_prep", "refused");
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "common");
}
END_TEST

/* A thread that looks for the kind being prepared. Static: if irm wrongly
 * holds a lock during prepare, the thread outlives the prepare call. */
static struct {
  pthread_t thread;
  char category[64], name[64];
  int found, timed_out, done;
} peek;

static void *peek_thread(void *arg) {
  irm_kind *k = NULL;
  (void)arg;
  peek.found = irm_kind_find(peek.category, peek.name, &k) == 0;
  __atomic_store_n(&peek.done, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

static int peeking_prepare(irm_kind *k) {
  snprintf(peek.category, sizeof peek.category, "%s", irm_kind_category(k));
  snprintf(peek.name, sizeof peek.name, "%s", irm_kind_name(k));
  if (pthread_create(&peek.thread, NULL, peek_thread, NULL) != 0) return IRM_ERUNTIME;
  for (int i = 0; i < 500 && !__atomic_load_n(&peek.done, __ATOMIC_SEQ_CST); i++) {
    struct timespec ms = {0, 10 * 1000 * 1000};
    nanosleep(&ms, NULL);
  }
  peek.timed_out = !__atomic_load_n(&peek.done, __ATOMIC_SEQ_CST);
  return 0;
}

START_TEST(test_prepare_runs_before_other_threads_see_the_kind) {
  ck_assert_ok(irm_kind_category_set_prepare("testcat_peek", peeking_prepare));
  register_kind("testcat_peek", "hidden");
  pthread_join(peek.thread, NULL);
  ck_assert_msg(!peek.timed_out, "irm_kind_find blocked while prepare ran: a lock was held over user code");
  ck_assert_msg(!peek.found, "another thread found the kind before its prepare function finished");
  ck_assert(kind_exists("testcat_peek", "hidden"));
}
END_TEST

/* ---- journal ------------------------------------------------------------------- */

START_TEST(test_rollback_removes_a_kind_registered_inside) {
  register_kind("testcat", "alpha");
  char before[128], after[128];
  kind_list_text("testcat", before, sizeof before);
  irm_journal *j = open_journal();
  irm_kind *k = register_kind("testcat", "inside");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(1));
  ck_assert_uint_gt(irm_journal_size(j), 0);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert(!kind_exists("testcat", "inside"));
  ck_assert_error_mentions("unknown testcat kind 'inside'");
  kind_list_text("testcat", after, sizeof after);
  ck_assert_str_eq(after, before);
}
END_TEST

START_TEST(test_rollback_removes_options_added_inside_but_keeps_older_ones) {
  irm_kind *k = register_kind("testcat", "keeper");
  add_option(k, "old", IRM_OPTION_INT, irm_any_int(1));
  irm_journal *j = open_journal();
  add_option(k, "new1", IRM_OPTION_STR, irm_any_str("x"));
  add_option(k, "new2", IRM_OPTION_BOOL, irm_any_none());
  ck_assert_ok(irm_journal_rollback(j));
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "old");
  ck_assert_error(irm_kind_option(k, "new1", NULL, NULL), IRM_EATTR, "AttributeError: ");
  add_option(k, "new1", IRM_OPTION_INT, irm_any_int(5)); /* free again */
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "old,new1");
}
END_TEST

START_TEST(test_rollback_of_a_re_registration_keeps_the_existing_kind) {
  irm_kind *k = register_kind("testcat", "existing");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(1));
  irm_journal *j = open_journal();
  ck_assert_ptr_eq(register_kind("testcat", "existing"), k);
  ck_assert_ok(irm_journal_rollback(j));
  irm_kind *found = NULL;
  ck_assert_ok(irm_kind_find("testcat", "existing", &found));
  ck_assert_ptr_eq(found, k);
  ck_assert_ok(irm_kind_option(k, "level", NULL, NULL));
}
END_TEST

START_TEST(test_rolled_back_kind_handle_reports_runtime_error_on_add_option) {
  ck_assert_ok(irm_kind_category_register("testcat"));
  irm_journal *j = open_journal();
  irm_kind *k = register_kind("testcat", "ghost");
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_str_eq(irm_kind_name(k), "ghost");
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, NULL, NULL, 0), IRM_ERUNTIME,
                  "RuntimeError: ");
  ck_assert_error_mentions("'ghost'");
  ck_assert(!kind_exists("testcat", "ghost"));
}
END_TEST

START_TEST(test_rolled_back_kind_of_a_rolled_back_category_keeps_a_valid_handle) {
  irm_journal *j = open_journal();
  irm_kind *k = register_kind("testcat_fleeting", "ghost");
  register_kind("testcat_fleeting", "ghost2");
  ck_assert_ok(irm_journal_rollback(j));
  char list[16];
  kind_list_text("testcat_fleeting", list, sizeof list);
  ck_assert_str_eq(list, "");
  ck_assert_str_eq(irm_kind_name(k), "ghost");
  ck_assert_str_eq(irm_kind_category(k), "testcat_fleeting");
  ck_assert_error(irm_kind_add_option(k, "level", IRM_OPTION_INT, NULL, NULL, 0), IRM_ERUNTIME,
                  "RuntimeError: ");
  ck_assert_error_mentions("testcat_fleeting kind 'ghost'");
}
END_TEST

START_TEST(test_kind_registered_again_after_rollback_is_fresh) {
  irm_journal *j = open_journal();
  irm_kind *old = register_kind("testcat", "phoenix");
  add_option(old, "level", IRM_OPTION_INT, irm_any_int(1));
  ck_assert_ok(irm_journal_rollback(j));
  irm_kind *k = register_kind("testcat", "phoenix");
  char names[64];
  option_names_text(k, names, sizeof names);
  ck_assert_str_eq(names, "");
  add_option(k, "level", IRM_OPTION_STR, irm_any_str("x"));
}
END_TEST

START_TEST(test_nested_commit_keeps_kinds_and_options) {
  irm_journal *outer = open_journal();
  irm_journal *inner = open_journal();
  irm_kind *k = register_kind("testcat", "nested");
  add_option(k, "level", IRM_OPTION_INT, irm_any_int(2));
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_uint_gt(irm_journal_size(outer), 0);
  ck_assert_ok(irm_journal_commit(outer));
  irm_kind *found = NULL;
  ck_assert_ok(irm_kind_find("testcat", "nested", &found));
  ck_assert_ptr_eq(found, k);
  irm_any def;
  ck_assert_ok(irm_kind_option(k, "level", NULL, &def));
  ck_assert_int_eq(def.v_int, 2);
}
END_TEST

START_TEST(test_outer_rollback_undoes_a_committed_inner_journal) {
  irm_kind *keeper = register_kind("testcat", "keeper");
  irm_journal *outer = open_journal();
  irm_journal *inner = open_journal();
  register_kind("testcat", "nested");
  add_option(keeper, "added", IRM_OPTION_INT, irm_any_int(2));
  ck_assert_ok(irm_journal_commit(inner));
  ck_assert_ok(irm_journal_rollback(outer));
  ck_assert(!kind_exists("testcat", "nested"));
  ck_assert_error(irm_kind_option(keeper, "added", NULL, NULL), IRM_EATTR, "AttributeError: ");
}
END_TEST

/* ---- threads --------------------------------------------------------------------- */

enum { n_threads = 4, max_rounds = 12000, growing_every = 8 };

typedef struct worker {
  int id;
  irm_kind *shared, *growing;
  struct timespec deadline;
  int rounds;
  char failure[256];
} worker;

static int past(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* One round: a kind of its own with one option, one validation against the
 * shared kind and, every few rounds, one option on the shared growing kind. */
static int worker_round(worker *w, int i) {
  char name[64];
  snprintf(name, sizeof name, "t%d-k%d", w->id, i);
  irm_kind *k = NULL, *found = NULL;
  irm_any def = irm_any_int(i);
  if (irm_kind_register("testcat_conc", name, &k) || irm_kind_add_option(k, "o", IRM_OPTION_INT, &def, NULL, 0) ||
      irm_kind_find("testcat_conc", name, &found) || found != k)
    return -1;
  snprintf(name, sizeof name, "t%d-o%d", w->id, i);
  if (i % growing_every == 0 && irm_kind_add_option(w->growing, name, IRM_OPTION_INT, NULL, NULL, 0)) return -1;
  const char *keys[] = {"c", "a"};
  irm_any values[] = {irm_any_int(1), irm_any_int(i)};
  irm_object *in = NULL, *out = NULL;
  if (irm_map_from_pairs(keys, values, 2, &in) || irm_kind_validate(w->shared, in, NULL, 0, &out)) {
    irm_object_release(in);
    return -1;
  }
  const irm_any *a = irm_map_find_cstr(out, "a"), *b = irm_map_find_cstr(out, "b"), *c = irm_map_find_cstr(out, "c");
  int ok = irm_map_size(out) == 3 && a && a->v_int == i && b && irm_string_equals(b->v_obj, "x", 1) && c &&
           c->type_code == IRM_BOOL && c->v_int == 1;
  irm_object_release(out);
  irm_object_release(in);
  if (!ok) irm_set_last_error("RuntimeError: validation gave a wrong map");
  return ok ? 0 : -1;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  for (int i = 0; i < max_rounds && !past(&w->deadline); i++) {
    if (worker_round(w, i)) {
      snprintf(w->failure, sizeof w->failure, "thread %d round %d: %s", w->id, i, irm_last_error());
      break;
    }
    w->rounds = i + 1;
  }
  return NULL;
}

START_TEST(test_threads_register_and_validate_concurrently_with_exact_final_state) {
  irm_kind *shared = register_kind("testcat_conc", "shared");
  add_option(shared, "a", IRM_OPTION_INT, irm_any_int(0));
  add_option(shared, "b", IRM_OPTION_STR, irm_any_str("x"));
  add_option(shared, "c", IRM_OPTION_BOOL, irm_any_none());
  irm_kind *growing = register_kind("testcat_conc", "growing");
  worker w[n_threads];
  pthread_t th[n_threads];
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += 1;
  for (int t = 0; t < n_threads; t++) {
    w[t] = (worker){.id = t, .shared = shared, .growing = growing, .deadline = deadline};
    ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
  }
  for (int t = 0; t < n_threads; t++) pthread_join(th[t], NULL);
  size_t total = 0, grown = 0;
  for (int t = 0; t < n_threads; t++) {
    ck_assert_msg(w[t].failure[0] == '\0', "%s", w[t].failure);
    ck_assert_int_gt(w[t].rounds, 0);
    total += (size_t)w[t].rounds;
    grown += (size_t)(w[t].rounds + growing_every - 1) / growing_every;
  }
  irm_object *names = NULL;
  ck_assert_ok(irm_kind_list("testcat_conc", &names));
  assert_sorted_strings(names);
  ck_assert_uint_eq(irm_array_size(names), total + 2);
  irm_object_release(names);
  irm_object *opts = NULL;
  ck_assert_ok(irm_kind_list_options(growing, &opts));
  ck_assert_uint_eq(irm_map_size(opts), grown);
  for (int t = 0; t < n_threads; t++)
    for (int i = 0; i < w[t].rounds; i++) {
      char name[64];
      snprintf(name, sizeof name, "t%d-o%d", t, i);
      ck_require((irm_map_find_cstr(opts, name) != NULL) == (i % growing_every == 0), "option %s is wrong", name);
      snprintf(name, sizeof name, "t%d-k%d", t, i);
      irm_kind *k = NULL;
      irm_any def = irm_any_none();
      ck_require(irm_kind_find("testcat_conc", name, &k) == 0, "%s", irm_last_error());
      ck_require(irm_kind_option(k, "o", NULL, &def) == 0 && def.v_int == i, "kind %s has a wrong option", name);
    }
  irm_object_release(opts);
}
END_TEST

/* ---- suite ------------------------------------------------------------------------ */

START_TEST(test_kind_and_option_names_that_are_not_utf8_are_value_errors_naming_the_offset) {
  irm_kind *k = NULL;
  ck_assert_error(irm_kind_register("utf8cat", "bad\xff", &k), IRM_EVALUE,
                  "ValueError: a kind name is not valid UTF-8 (byte 0xff at offset 3)");
  ck_assert_error(irm_kind_register("cat\x80", "fine", &k), IRM_EVALUE, "ValueError: a kind category ");
  ck_assert_error_mentions("offset 3");
  k = register_kind("utf8cat", "fine");
  irm_any def = irm_any_int(1);
  ck_assert_error(irm_kind_add_option(k, "opt\xc0\xaf", IRM_OPTION_INT, &def, NULL, 0), IRM_EVALUE,
                  "ValueError: an option name is not valid UTF-8 (byte 0xc0 at offset 3)");
  irm_option_type type;
  ck_assert_int_ne(irm_kind_option(k, "opt\xc0\xaf", &type, NULL), IRM_OK);
}
END_TEST

static Suite *kind_suite(void) {
  Suite *s = suite_create("kind");

  TCase *kinds = tcase_create("kinds");
  tcase_add_test(kinds, test_category_register_is_idempotent_and_rejects_empty_names);
  tcase_add_test(kinds, test_register_returns_the_same_handle_twice);
  tcase_add_test(kinds, test_register_rejects_null_and_empty_names_with_value_error);
  tcase_add_test(kinds, test_kind_and_option_names_that_are_not_utf8_are_value_errors_naming_the_offset);
  tcase_add_test(kinds, test_kind_name_and_category_report_the_registration);
  tcase_add_test(kinds, test_same_name_in_two_categories_is_two_kinds);
  tcase_add_test(kinds, test_find_returns_the_registered_kind);
  tcase_add_test(kinds, test_find_of_a_typo_suggests_the_closest_and_lists_the_kinds);
  tcase_add_test(kinds, test_find_of_a_far_name_lists_the_kinds_without_suggestion);
  tcase_add_test(kinds, test_find_in_an_unknown_category_or_with_null_arguments_is_value_error);
  tcase_add_test(kinds, test_list_is_sorted);
  tcase_add_test(kinds, test_list_of_an_unknown_category_is_an_empty_array);
  tcase_add_test(kinds, test_builtin_categories_list_kinds_that_find_resolves);
  suite_add_tcase(s, kinds);

  TCase *options = tcase_create("options");
  tcase_add_test(options, test_list_options_maps_names_to_type_names_in_registration_order);
  tcase_add_test(options, test_describe_options_gives_type_default_doc_and_required);
  tcase_add_test(options, test_add_option_twice_is_key_error_naming_kind_and_option);
  tcase_add_test(options, test_add_option_with_a_wrong_type_default_is_type_error_and_adds_nothing);
  tcase_add_test(options, test_add_option_stores_the_default_converted_to_the_type);
  tcase_add_test(options, test_required_option_with_a_default_is_value_error_and_adds_nothing);
  tcase_add_test(options, test_add_option_rejects_bad_names_types_and_kinds);
  tcase_add_test(options, test_option_gives_type_and_default_as_a_new_value);
  tcase_add_test(options, test_unknown_option_is_attribute_error_suggesting_the_closest);
  suite_add_tcase(s, options);

  TCase *setup = tcase_create("static_and_prepare");
  tcase_add_test(setup, test_static_registration_registers_before_main_with_its_options);
  tcase_add_test(setup, test_static_executor_is_listed_with_the_executors);
  tcase_add_test(setup, test_failing_static_setup_is_reported_through_the_warning_handler);
  tcase_add_test(setup, test_prepare_runs_once_for_each_new_kind);
  tcase_add_test(setup, test_failing_prepare_leaves_the_kind_unregistered);
  tcase_add_test(setup, test_prepare_runs_before_other_threads_see_the_kind);
  suite_add_tcase(s, setup);

  TCase *journal = tcase_create("journal");
  tcase_add_test(journal, test_rollback_removes_a_kind_registered_inside);
  tcase_add_test(journal, test_rollback_removes_options_added_inside_but_keeps_older_ones);
  tcase_add_test(journal, test_rollback_of_a_re_registration_keeps_the_existing_kind);
  tcase_add_test(journal, test_rolled_back_kind_handle_reports_runtime_error_on_add_option);
  tcase_add_test(journal, test_rolled_back_kind_of_a_rolled_back_category_keeps_a_valid_handle);
  tcase_add_test(journal, test_kind_registered_again_after_rollback_is_fresh);
  tcase_add_test(journal, test_nested_commit_keeps_kinds_and_options);
  tcase_add_test(journal, test_outer_rollback_undoes_a_committed_inner_journal);
  suite_add_tcase(s, journal);

  TCase *threads = tcase_create("threads");
  tcase_add_test(threads, test_threads_register_and_validate_concurrently_with_exact_final_state);
  tcase_set_timeout(threads, 120);
  suite_add_tcase(s, threads);
  return s;
}

int main(void) {
  return run_suite(kind_suite());
}
