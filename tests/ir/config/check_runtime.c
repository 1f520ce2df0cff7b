/* Runtime config objects (config.h) through the C API and the runtime.*
 * globals (docs/architecture.md): the built-in kinds cpp and crt, both ways to
 * make one, the accessors, validation, IRM_REGISTER_RUNTIME, JSON,
 * structural equality, repr, copy-on-write, and executors and runtimes made
 * by several threads at once. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <irm/irm.h>

#include "check_util.h"

/* ---- helpers --------------------------------------------------------------- */

static irm_runtime *runtime(const char *kind, const irm_object *options) {
  irm_runtime *r = NULL;
  ck_assert_ok(irm_runtime_create(kind, options, &r));
  ck_assert_ptr_nonnull(r);
  return r;
}

/* irm_runtime_create must fail without handing out an object. */
static int create_fails(const char *kind, const irm_object *options) {
  irm_runtime *r = NULL;
  int rc = irm_runtime_create(kind, options, &r);
  ck_assert_msg(rc != 0, "runtime '%s' was accepted", kind);
  ck_assert_ptr_null(r);
  return rc;
}

static int system_lib_fails(const char *kind, irm_any value) {
  irm_object *opts = map1("system-lib", value);
  int rc = create_fails(kind, opts);
  irm_object_release(opts);
  return rc;
}

static void assert_repr(const irm_object *obj, const char *expected) {
  irm_any v = irm_any_object((irm_object *)obj);
  irm_object *text = NULL;
  ck_assert_ok(irm_repr(&v, &text));
  ck_assert_str_eq(irm_string_data(text), expected);
  irm_object_release(text);
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

static const char *const builtin_runtimes[] = {"cpp", "crt"};

/* ---- static registration -------------------------------------------------------- */

static int static_setup(irm_kind *k) {
  irm_any stack = irm_any_int(4096);
  return irm_kind_add_option(k, "stack-bytes", IRM_OPTION_INT, &stack, "stack size of the runtime", 0);
}

IRM_REGISTER_RUNTIME("static-rt", static_setup);

static int static_kind_found_in_main = -1; /* set by main() before the tests */

/* ---- making runtimes ------------------------------------------------------------ */

START_TEST(test_cpp_and_crt_fill_system_lib_false) {
  for (size_t i = 0; i < 2; i++) {
    irm_runtime *r = runtime(builtin_runtimes[i], NULL);
    ck_assert_str_eq(irm_object_type_key(r), "ir.Runtime");
    ck_assert(irm_object_is(r, "ir.Config"));
    ck_assert(!irm_object_is(r, "ir.Executor"));
    ck_assert_str_eq(irm_config_kind_name(r), builtin_runtimes[i]);
    assert_repr(irm_config_attrs(r), strcmp(builtin_runtimes[i], "cpp") == 0
                                         ? "{\"system-lib\": false, \"num-threads\": 0, \"thread-affinity\": false}"
                                         : "{\"system-lib\": false, \"num-threads\": 1}");
    irm_object_release(r);
  }
}
END_TEST

START_TEST(test_system_lib_takes_a_bool_or_int_0_and_1) {
  irm_any given[] = {irm_any_bool(true), irm_any_int(1), irm_any_int(0)};
  const char *expected[] = {"{\"system-lib\": true, \"num-threads\": 1}", "{\"system-lib\": true, \"num-threads\": 1}",
                            "{\"system-lib\": false, \"num-threads\": 1}"};
  for (size_t i = 0; i < 3; i++) {
    irm_object *opts = map1("system-lib", given[i]);
    irm_runtime *r = runtime("crt", opts);
    assert_repr(irm_config_attrs(r), expected[i]);
    irm_object_release(r);
    irm_object_release(opts);
  }
}
END_TEST

START_TEST(test_from_map_with_kind_equals_create_with_the_name) {
  const char *keys[] = {"kind", "system-lib"};
  irm_any values[] = {irm_any_str("crt"), irm_any_bool(true)};
  irm_object *config = new_map(keys, values, 2), *opts = map1("system-lib", irm_any_bool(true));
  irm_runtime *a = NULL, *b = runtime("crt", opts);
  ck_assert_ok(irm_runtime_from_map(config, &a));
  ck_assert_str_eq(irm_object_type_key(a), "ir.Runtime");
  ck_assert_ptr_null(irm_map_find_cstr(irm_config_attrs(a), "kind"));
  ck_assert(global_equal(a, b));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(config);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_from_map_without_kind_or_with_a_non_str_kind_fails) {
  irm_object *none = map1("system-lib", irm_any_bool(true)), *num = map1("kind", irm_any_bool(true));
  irm_runtime *r = NULL;
  ck_assert_error(irm_runtime_from_map(none, &r), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("\"kind\"");
  ck_assert_error_mentions("cpp, crt");
  ck_assert_error(irm_runtime_from_map(num, &r), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("kind");
  ck_assert_ptr_null(r);
  irm_object_release(none);
  irm_object_release(num);
}
END_TEST

/* ---- validation ------------------------------------------------------------------- */

START_TEST(test_unknown_kind_is_value_error_suggesting_the_closest_and_listing_the_kinds) {
  ck_assert_error(create_fails("cppp", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("unknown runtime kind 'cppp'");
  ck_assert_error_mentions("did you mean 'cpp'?");
  ck_assert_error_mentions("registered kinds: cpp, crt");
}
END_TEST

START_TEST(test_an_executor_kind_is_not_a_runtime_kind) {
  ck_assert_error(create_fails("aot", NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("unknown runtime kind 'aot'");
}
END_TEST

START_TEST(test_unknown_option_is_attribute_error_suggesting_the_closest) {
  irm_object *opts = map1("system_lib", irm_any_bool(true));
  ck_assert_error(create_fails("cpp", opts), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("runtime 'cpp'");
  ck_assert_error_mentions("no option 'system_lib'");
  ck_assert_error_mentions("did you mean 'system-lib'?");
  irm_object_release(opts);
}
END_TEST

START_TEST(test_system_lib_given_text_or_another_int_is_type_error_naming_the_option) {
  ck_assert_error(system_lib_fails("cpp", irm_any_str("1")), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'system-lib'");
  ck_assert_error_mentions("expected bool");
  ck_assert_error_mentions("got str");
  ck_assert_error(system_lib_fails("crt", irm_any_int(2)), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("'system-lib'");
  ck_assert_error_mentions("expected bool");
  ck_assert_error_mentions("got int");
  ck_assert_error(system_lib_fails("crt", irm_any_float(1.0)), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("got float");
}
END_TEST

START_TEST(test_create_argument_errors) {
  irm_runtime *r = NULL;
  irm_object *s = new_string("cpp");
  ck_assert_error(irm_runtime_create(NULL, NULL, &r), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_runtime_create("cpp", NULL, NULL), IRM_EVALUE, "ValueError: ");
  ck_assert_error(irm_runtime_create("cpp", s, &r), IRM_ETYPE, "TypeError: ");
  ck_assert_error(irm_runtime_from_map(s, &r), IRM_ETYPE, "TypeError: ");
  ck_assert_ptr_null(r);
  irm_object_release(s);
}
END_TEST

/* ---- num-threads (docs/threads.md) ----------------------------------------------------- */

START_TEST(test_cpp_num_threads_takes_0_to_256) {
  irm_any ok[] = {irm_any_int(0), irm_any_int(1), irm_any_int(8), irm_any_int(256)};
  for (size_t i = 0; i < 4; i++) {
    irm_object *opts = map1("num-threads", ok[i]);
    irm_runtime *r = runtime("cpp", opts);
    irm_any v = irm_any_none();
    ck_assert_ok(irm_config_get_attr(r, "num-threads", &v));
    ck_assert_int_eq(v.v_int, ok[i].v_int);
    irm_object_release(r);
    irm_object_release(opts);
  }
  irm_any bad[] = {irm_any_int(-1), irm_any_int(257)};
  for (size_t i = 0; i < 2; i++) {
    irm_object *opts = map1("num-threads", bad[i]);
    irm_runtime *r = NULL;
    ck_assert_error(irm_runtime_create("cpp", opts, &r), IRM_EVALUE, "ValueError: ");
    ck_assert_error_mentions("'num-threads' must be 0 (every CPU the process may use)");
    ck_assert_ptr_null(r);
    irm_object_release(opts);
  }
}
END_TEST

START_TEST(test_crt_refuses_num_threads_other_than_1_saying_why) {
  irm_object *one = map1("num-threads", irm_any_int(1));
  irm_runtime *r = runtime("crt", one);
  irm_object_release(r);
  irm_object_release(one);
  irm_any bad[] = {irm_any_int(0), irm_any_int(4)};
  for (size_t i = 0; i < 2; i++) {
    irm_object *opts = map1("num-threads", bad[i]);
    irm_runtime *got = NULL;
    ck_assert_error(irm_runtime_create("crt", opts, &got), IRM_EVALUE, "ValueError: ");
    ck_assert_error_mentions("runtime 'crt' must be 1");
    ck_assert_error_mentions("bare metal");
    ck_assert_error_mentions("Runtime('cpp', {'num-threads': ");
    ck_assert_ptr_null(got);
    irm_object_release(opts);
  }
}
END_TEST

/* ---- the runtime.* globals ------------------------------------------------------------- */

START_TEST(test_global_create_takes_a_name_a_name_and_map_or_a_map_with_kind) {
  irm_object *opts = map1("system-lib", irm_any_bool(true));
  const char *keys[] = {"kind", "system-lib"};
  irm_any values[] = {irm_any_str("cpp"), irm_any_bool(true)};
  irm_object *config = new_map(keys, values, 2);
  irm_any by_name = irm_any_str("cpp"), with_map[] = {irm_any_str("cpp"), irm_any_object(opts)},
          one_map = irm_any_object(config);
  irm_object *a = call_obj("runtime.Create", &by_name, 1, "ir.Runtime");
  irm_object *b = call_obj("runtime.Create", with_map, 2, "ir.Runtime");
  irm_object *c = call_obj("runtime.Create", &one_map, 1, "ir.Runtime");
  assert_repr(irm_config_attrs(a), "{\"system-lib\": false, \"num-threads\": 0, \"thread-affinity\": false}");
  assert_repr(irm_config_attrs(b), "{\"system-lib\": true, \"num-threads\": 0, \"thread-affinity\": false}");
  ck_assert(global_equal(b, c));
  ck_assert(!global_equal(a, b));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(opts);
  irm_object_release(config);
}
END_TEST

START_TEST(test_global_create_errors_name_the_global) {
  irm_object *none = map1("system-lib", irm_any_bool(true)), *num = map1("kind", irm_any_int(7));
  irm_any missing = irm_any_object(none), mistyped = irm_any_object(num), typo = irm_any_str("crtt"),
          neither = irm_any_float(1.0);
  ck_assert_error(call_fails("runtime.Create", &missing, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("\"kind\"");
  ck_assert_error(call_fails("runtime.Create", &mistyped, 1), IRM_ETYPE, "TypeError: ");
  ck_assert_error(call_fails("runtime.Create", &typo, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("runtime.Create");
  ck_assert_error_mentions("did you mean 'crt'?");
  ck_assert_error(call_fails("runtime.Create", &neither, 1), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("runtime.Create");
  irm_object_release(none);
  irm_object_release(num);
}
END_TEST

START_TEST(test_global_name_get_attr_and_attrs_read_a_runtime) {
  irm_object *opts = map1("system-lib", irm_any_bool(true));
  irm_runtime *r = runtime("crt", opts);
  irm_any arg = irm_any_object(r), key[] = {irm_any_object(r), irm_any_str("system-lib")},
          typo[] = {irm_any_object(r), irm_any_str("systemlib")};
  irm_object *name = call_obj("runtime.Name", &arg, 1, "ffi.String");
  ck_assert_str_eq(irm_string_data(name), "crt");
  irm_any v = call_ok("runtime.GetAttr", key, 2);
  ck_assert_int_eq(v.type_code, IRM_BOOL);
  ck_assert_int_eq(v.v_int, 1);
  ck_assert_error(call_fails("runtime.GetAttr", typo, 2), IRM_EATTR, "AttributeError: ");
  ck_assert_error_mentions("did you mean 'system-lib'?");
  irm_object *attrs = call_obj("runtime.Attrs", &arg, 1, "ffi.Map");
  assert_repr(attrs, "{\"system-lib\": true, \"num-threads\": 1}");
  irm_object_release(attrs);
  irm_object_release(name);
  irm_object_release(r);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_global_readers_reject_an_executor) {
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("graph", NULL, &e));
  irm_any arg = irm_any_object(e);
  ck_assert_error(call_fails("runtime.Name", &arg, 1), IRM_ETYPE, "TypeError: ");
  ck_assert_error_mentions("runtime.Name");
  ck_assert_error(call_fails("runtime.Attrs", &arg, 1), IRM_ETYPE, "TypeError: ");
  irm_object_release(e);
}
END_TEST

START_TEST(test_global_get_attr_of_an_option_that_is_not_set_is_none) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_kind_register("runtime", "bare-rt", &k));
  ck_assert_ok(irm_kind_add_option(k, "entry", IRM_OPTION_STR, NULL, "no default", 0));
  irm_runtime *r = runtime("bare-rt", NULL);
  ck_assert_uint_eq(irm_map_size(irm_config_attrs(r)), 0);
  irm_any key[] = {irm_any_object(r), irm_any_str("entry")};
  irm_any v = call_ok("runtime.GetAttr", key, 2);
  ck_assert_int_eq(v.type_code, IRM_NONE);
  irm_object_release(r);
}
END_TEST

START_TEST(test_global_list_kinds_is_sorted_and_holds_cpp_and_crt_only_of_the_builtins) {
  irm_object *kinds = call_obj("runtime.ListKinds", NULL, 0, "ffi.Array");
  assert_sorted_strings(kinds);
  ck_assert(array_has_string(kinds, "cpp"));
  ck_assert(array_has_string(kinds, "crt"));
  ck_assert(!array_has_string(kinds, "aot"));
  irm_object_release(kinds);
}
END_TEST

START_TEST(test_global_list_options_gives_system_lib_bool) {
  for (size_t i = 0; i < 2; i++) {
    int cpp = strcmp(builtin_runtimes[i], "cpp") == 0;
    irm_any name = irm_any_str(builtin_runtimes[i]);
    irm_object *opts = call_obj("runtime.ListOptions", &name, 1, "ffi.Map");
    ck_assert_uint_eq(irm_map_size(opts), cpp ? 3 : 2);
    ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "system-lib")->v_obj), "bool");
    ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "num-threads")->v_obj), "int");
    if (cpp) ck_assert_str_eq(irm_string_data(irm_map_find_cstr(opts, "thread-affinity")->v_obj), "bool");
    irm_object_release(opts);
  }
  irm_any bad = irm_any_str("crtt");
  ck_assert_error(call_fails("runtime.ListOptions", &bad, 1), IRM_EVALUE, "ValueError: ");
  ck_assert_error_mentions("did you mean 'crt'?");
  ck_assert_error_mentions("registered kinds: cpp, crt");
}
END_TEST

START_TEST(test_static_runtime_exists_at_start_of_main_and_makes_runtimes) {
  ck_assert_int_eq(static_kind_found_in_main, 1);
  irm_object *kinds = call_obj("runtime.ListKinds", NULL, 0, "ffi.Array");
  ck_assert(array_has_string(kinds, "static-rt"));
  irm_object_release(kinds);
  irm_runtime *r = runtime("static-rt", NULL);
  assert_repr(irm_config_attrs(r), "{\"stack-bytes\": 4096}");
  irm_object_release(r);
}
END_TEST

/* ---- JSON, structural equality, repr, copy-on-write ------------------------------------------ */

START_TEST(test_json_round_trip_gives_an_equal_runtime) {
  irm_object *opts = map1("system-lib", irm_any_bool(true));
  irm_runtime *all[] = {runtime("cpp", NULL), runtime("crt", opts), runtime("static-rt", NULL)};
  for (size_t i = 0; i < 3; i++) {
    irm_any arg = irm_any_object(all[i]);
    irm_object *text = call_obj("ffi.ToJSON", &arg, 1, "ffi.String");
    irm_any targ = irm_any_object(text);
    irm_object *back = call_obj("ffi.FromJSON", &targ, 1, "ir.Runtime");
    ck_assert_str_eq(irm_object_type_key(back), "ir.Runtime");
    ck_assert(global_equal(back, all[i]));
    ck_assert_int_eq(global_hash(back), global_hash(all[i]));
    irm_object_release(back);
    irm_object_release(text);
  }
  for (size_t i = 0; i < 3; i++) irm_object_release(all[i]);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_equal_runtimes_hash_equal_and_different_values_are_unequal) {
  irm_object *yes = map1("system-lib", irm_any_bool(true)), *one = map1("system-lib", irm_any_int(1));
  irm_runtime *a = runtime("crt", yes), *b = runtime("crt", one), *c = runtime("crt", NULL), *d = runtime("cpp", yes);
  ck_assert(global_equal(a, b));
  ck_assert_int_eq(global_hash(a), global_hash(b));
  ck_assert(!global_equal(a, c));
  ck_assert(!global_equal(a, d));
  irm_object_release(a);
  irm_object_release(b);
  irm_object_release(c);
  irm_object_release(d);
  irm_object_release(yes);
  irm_object_release(one);
}
END_TEST

START_TEST(test_a_runtime_never_equals_an_executor_with_the_same_kind_and_attrs) {
  irm_kind *k = NULL;
  irm_any off = irm_any_bool(false);
  ck_assert_ok(irm_kind_register("executor", "cpp", &k));
  ck_assert_ok(irm_kind_add_option(k, "system-lib", IRM_OPTION_BOOL, &off, NULL, 0));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("cpp", NULL, &e));
  irm_runtime *r = runtime("cpp", NULL);
  ck_assert(!global_equal(e, r));
  irm_object_release(e);
  irm_object_release(r);
}
END_TEST

START_TEST(test_repr_mentions_the_type_and_the_kind) {
  irm_runtime *r = runtime("crt", NULL);
  irm_any arg = irm_any_object(r);
  irm_object *text = call_obj("ffi.Repr", &arg, 1, "ffi.String");
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "ir.Runtime"));
  ck_assert_ptr_nonnull(strstr(irm_string_data(text), "\"crt\""));
  irm_object_release(text);
  irm_object_release(r);
}
END_TEST

START_TEST(test_changing_the_options_or_the_attrs_afterwards_does_not_change_the_runtime) {
  irm_object *opts = map1("system-lib", irm_any_bool(true));
  irm_runtime *r = runtime("cpp", opts), *s = runtime("cpp", irm_config_attrs(r));
  irm_any off = irm_any_bool(false), arg = irm_any_object(r);
  ck_assert_ok(irm_map_set_move(&opts, "system-lib", &off));
  irm_object *attrs = call_obj("runtime.Attrs", &arg, 1, "ffi.Map");
  ck_assert_ok(irm_map_set_move(&attrs, "system-lib", &off));
  assert_repr(attrs, "{\"system-lib\": false, \"num-threads\": 0, \"thread-affinity\": false}");
  assert_repr(irm_config_attrs(r), "{\"system-lib\": true, \"num-threads\": 0, \"thread-affinity\": false}");
  assert_repr(irm_config_attrs(s), "{\"system-lib\": true, \"num-threads\": 0, \"thread-affinity\": false}");
  irm_object_release(attrs);
  irm_object_release(opts);
  irm_object_release(s);
  irm_object_release(r);
}
END_TEST

/* ---- threads ------------------------------------------------------------------------------- */

/* Each thread runs at least min_rounds (two registrations) whatever the
 * clock says, so a slow host (valgrind serializes threads) still checks
 * something; past that, rounds go on until the deadline. */
enum { n_threads = 4, max_rounds = 200000, register_every = 256, min_rounds = register_every + 1 };

typedef struct worker {
  int id;
  struct timespec deadline;
  int rounds, registered;
  char failure[512];
} worker;

static int past(const struct timespec *deadline) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* One round: an aot executor with options (C API), a graph executor and a
 * crt runtime (globals), a cpp runtime from a Map with "kind"; each checked.
 * Every register_every rounds, a new executor kind is registered meanwhile. */
static const char *thread_round(worker *w, int i) {
  const char *keys[] = {"kind", "system-lib"};
  irm_any values[] = {irm_any_str("cpp"), irm_any_bool(i % 2)};
  irm_object *config = NULL, *opts = NULL, *objs[4] = {0};
  irm_any align = irm_any_int((int64_t)1 << (i % 8)), graph = irm_any_str("graph"), crt = irm_any_str("crt"),
          v = irm_any_none();
  const char *bad = NULL;
  int rc = irm_map_from_pairs(keys, values, 2, &config);
  if (!rc) rc = irm_map_from_pairs((const char *[]){"workspace-byte-alignment"}, &align, 1, &opts);
  if (!rc) rc = irm_executor_create("aot", opts, &objs[0]);
  if (!rc && !(rc = irm_func_call_global("executor.Create", &graph, 1, &v))) objs[1] = v.v_obj;
  if (!rc && !(rc = irm_func_call_global("runtime.Create", &crt, 1, &v))) objs[2] = v.v_obj;
  if (!rc) rc = irm_runtime_from_map(config, &objs[3]);
  if (!rc && i % register_every == 0) {
    char name[64];
    snprintf(name, sizeof name, "thread%d-kind%d", w->id, i);
    irm_any kind = irm_any_str(name);
    if (!(rc = irm_func_call_global("executor.RegisterKind", &kind, 1, &v))) w->registered++;
  }
  if (rc) bad = irm_last_error();
  else if (irm_map_find_cstr(irm_config_attrs(objs[0]), "workspace-byte-alignment")->v_int != align.v_int ||
           strcmp(irm_config_kind_name(objs[0]), "aot") != 0)
    bad = "the aot executor has the wrong attrs";
  else if (!irm_object_is(objs[1], "ir.Executor") || strcmp(irm_config_kind_name(objs[1]), "graph") != 0)
    bad = "executor.Create gave something else than a graph executor";
  else if (!irm_object_is(objs[2], "ir.Runtime") || strcmp(irm_config_kind_name(objs[2]), "crt") != 0)
    bad = "runtime.Create gave something else than a crt runtime";
  else if (irm_map_find_cstr(irm_config_attrs(objs[3]), "system-lib")->v_int != i % 2)
    bad = "the cpp runtime has the wrong system-lib";
  if (bad) snprintf(w->failure, sizeof w->failure, "thread %d round %d: %s", w->id, i, bad);
  for (int k = 0; k < 4; k++) irm_object_release(objs[k]);
  irm_object_release(config);
  irm_object_release(opts);
  return bad;
}

static void *worker_main(void *arg) {
  worker *w = arg;
  for (int i = 0; i < max_rounds && (i < min_rounds || !past(&w->deadline)); i++) {
    if (thread_round(w, i)) break;
    w->rounds++;
  }
  return NULL;
}

START_TEST(test_threads_make_executors_and_runtimes_concurrently_and_all_are_valid) {
  worker w[n_threads];
  pthread_t th[n_threads];
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_sec += 1;
  for (int t = 0; t < n_threads; t++) {
    w[t] = (worker){.id = t, .deadline = deadline};
    ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
  }
  for (int t = 0; t < n_threads; t++) pthread_join(th[t], NULL);
  irm_object *kinds = call_obj("executor.ListKinds", NULL, 0, "ffi.Array");
  assert_sorted_strings(kinds);
  for (int t = 0; t < n_threads; t++) {
    ck_assert_msg(w[t].failure[0] == '\0', "%s", w[t].failure);
    ck_assert_int_ge(w[t].rounds, min_rounds);
    for (int i = 0; i < w[t].rounds; i += register_every) {
      char name[64];
      snprintf(name, sizeof name, "thread%d-kind%d", t, i);
      ck_require(array_has_string(kinds, name), "executor kind %s is missing", name);
    }
  }
  irm_object_release(kinds);
}
END_TEST

/* ---- the suite ----------------------------------------------------------------------------- */

static Suite *runtime_suite(void) {
  Suite *s = suite_create("runtime");

  TCase *make = tcase_create("make");
  tcase_add_test(make, test_cpp_and_crt_fill_system_lib_false);
  tcase_add_test(make, test_system_lib_takes_a_bool_or_int_0_and_1);
  tcase_add_test(make, test_cpp_num_threads_takes_0_to_256);
  tcase_add_test(make, test_crt_refuses_num_threads_other_than_1_saying_why);
  tcase_add_test(make, test_from_map_with_kind_equals_create_with_the_name);
  tcase_add_test(make, test_from_map_without_kind_or_with_a_non_str_kind_fails);
  suite_add_tcase(s, make);

  TCase *validate = tcase_create("validate");
  tcase_add_test(validate, test_unknown_kind_is_value_error_suggesting_the_closest_and_listing_the_kinds);
  tcase_add_test(validate, test_an_executor_kind_is_not_a_runtime_kind);
  tcase_add_test(validate, test_unknown_option_is_attribute_error_suggesting_the_closest);
  tcase_add_test(validate, test_system_lib_given_text_or_another_int_is_type_error_naming_the_option);
  tcase_add_test(validate, test_create_argument_errors);
  suite_add_tcase(s, validate);

  TCase *globals = tcase_create("globals");
  tcase_add_test(globals, test_global_create_takes_a_name_a_name_and_map_or_a_map_with_kind);
  tcase_add_test(globals, test_global_create_errors_name_the_global);
  tcase_add_test(globals, test_global_name_get_attr_and_attrs_read_a_runtime);
  tcase_add_test(globals, test_global_readers_reject_an_executor);
  tcase_add_test(globals, test_global_get_attr_of_an_option_that_is_not_set_is_none);
  tcase_add_test(globals, test_global_list_kinds_is_sorted_and_holds_cpp_and_crt_only_of_the_builtins);
  tcase_add_test(globals, test_global_list_options_gives_system_lib_bool);
  tcase_add_test(globals, test_static_runtime_exists_at_start_of_main_and_makes_runtimes);
  suite_add_tcase(s, globals);

  TCase *structural = tcase_create("json_structural_cow");
  tcase_add_test(structural, test_json_round_trip_gives_an_equal_runtime);
  tcase_add_test(structural, test_equal_runtimes_hash_equal_and_different_values_are_unequal);
  tcase_add_test(structural, test_a_runtime_never_equals_an_executor_with_the_same_kind_and_attrs);
  tcase_add_test(structural, test_repr_mentions_the_type_and_the_kind);
  tcase_add_test(structural, test_changing_the_options_or_the_attrs_afterwards_does_not_change_the_runtime);
  suite_add_tcase(s, structural);

  TCase *threads = tcase_create("threads");
  tcase_add_test(threads, test_threads_make_executors_and_runtimes_concurrently_and_all_are_valid);
  tcase_set_timeout(threads, 120);
  suite_add_tcase(s, threads);
  return s;
}

int main(void) {
  irm_kind *k = NULL;
  static_kind_found_in_main = irm_kind_find("runtime", "static-rt", &k) == 0;
  return run_suite(runtime_suite());
}
