/* irm_module_compilation_config and ir.CompilationConfig (build.h): the
 * host, primitive and default targets, executor and runtime of a module;
 * the disagreement errors; the cache in the module. */
#include <pthread.h>

#include "check_build_util.h"

/* A module of BUILD_MAIN with `target` set to value (released). */
static irm_module *targeted(irm_object *value) {
  irm_module *m = parse_module(BUILD_MAIN);
  irm_any v = irm_any_object(value);
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_TARGET, &v));
  irm_object_release(value);
  return m;
}

static irm_object *targets2(const char *a, const char *b) {
  irm_object *ta = bu_target(a), *tb = bu_target(b);
  irm_any items[] = {irm_any_object(ta), irm_any_object(tb)};
  irm_object *arr = new_array(items, 2);
  irm_object_release(ta);
  irm_object_release(tb);
  return arr;
}

static void assert_text(const irm_object *t, const char *want) {
  irm_object *s = NULL;
  ck_assert_ok(irm_target_as_string(t, &s));
  ck_assert_str_eq(irm_string_data(s), want);
  irm_object_release(s);
}

START_TEST(test_one_target_without_host_is_its_own_host) {
  irm_module *m = targeted(bu_target("llvm -mcpu=cortex-a72"));
  irm_compilation_config *cfg = NULL;
  ck_assert_ok(irm_module_compilation_config(m, &cfg));
  ck_assert_str_eq(irm_object_type_key(cfg), IRM_COMPILATION_CONFIG_TYPE_KEY);
  assert_text(irm_compilation_config_host_target(cfg), "llvm -keys=cpu -mcpu=cortex-a72");
  const irm_object *prims = irm_compilation_config_primitive_targets(cfg);
  ck_assert_uint_eq(irm_array_size(prims), 1);
  irm_object *t = irm_array_at(prims, 0)->v_obj;
  ck_assert_ptr_eq(irm_compilation_config_default_primitive_target(cfg), t);
  assert_text(irm_target_host(t), "llvm -keys=cpu -mcpu=cortex-a72");
  ck_assert_ptr_eq(irm_compilation_config_find_primitive_target(cfg, 1), t);
  ck_assert_ptr_null(irm_compilation_config_find_primitive_target(cfg, 2));
  /* No executor or runtime on the module: the defaults. */
  ck_assert_str_eq(irm_config_kind_name(irm_compilation_config_executor(cfg)), "graph");
  ck_assert_str_eq(irm_config_kind_name(irm_compilation_config_runtime(cfg)), "cpp");
  irm_object_release(cfg);
  irm_object_release(m);
}
END_TEST

START_TEST(test_the_targets_host_and_the_modules_configs_are_used) {
  irm_module *m = targeted(bu_target("c --host='llvm -mcpu=a'"));
  irm_object *e = bu_executor("aot", NULL, irm_any_none()), *r = bu_runtime("crt");
  irm_any ev = irm_any_object(e), rv = irm_any_object(r);
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_EXECUTOR, &ev));
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_RUNTIME, &rv));
  irm_compilation_config *cfg = NULL;
  ck_assert_ok(irm_module_compilation_config(m, &cfg));
  assert_text(irm_compilation_config_host_target(cfg), "llvm -keys=cpu -mcpu=a");
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(cfg)), "c");
  ck_assert_ptr_eq(irm_compilation_config_executor(cfg), e);
  ck_assert_ptr_eq(irm_compilation_config_runtime(cfg), r);
  irm_object_release(cfg);
  irm_object_release(e);
  irm_object_release(r);
  irm_object_release(m);
}
END_TEST

START_TEST(test_disagreements_name_both_targets) {
  irm_compilation_config *cfg = NULL;
  irm_module *m = targeted(targets2("llvm", "c"));
  ck_assert_error(irm_module_compilation_config(m, &cfg), IRM_EVALUE,
                  "ValueError: targets 'llvm -keys=cpu' and 'c -keys=cpu' are both for device type 1");
  ck_assert_ptr_null(cfg);
  irm_object_release(m);
  m = targeted(targets2("llvm --host='llvm -mcpu=a'", "cuda --host='llvm -mcpu=b'"));
  ck_assert_error(irm_module_compilation_config(m, &cfg), IRM_EVALUE, "ValueError: targets disagree on the host");
  ck_assert_error_mentions("has host 'llvm -keys=cpu -mcpu=a'");
  ck_assert_error_mentions("has host 'llvm -keys=cpu -mcpu=b'");
  irm_object_release(m);
  m = parse_module(BUILD_MAIN);
  ck_assert_error(irm_module_compilation_config(m, &cfg), IRM_EVALUE, "ValueError: module has no 'target' attribute");
  irm_object_release(m);
  /* A kind without a device type names the attribute to set. */
  ck_assert_ok(irm_config_register_kind("target", "test-nodev", NULL));
  m = targeted(bu_target("test-nodev"));
  ck_assert_error(irm_module_compilation_config(m, &cfg), IRM_EVALUE,
                  "ValueError: target kind 'test-nodev' has no 'device_type' kind attribute");
  irm_object_release(m);
  ck_assert_error(irm_module_compilation_config(NULL, &cfg), IRM_ETYPE, "TypeError: ");
}
END_TEST

START_TEST(test_heterogeneous_targets_share_one_host_and_default_to_the_cpu) {
  irm_module *m = targeted(targets2("cuda", "llvm"));
  irm_compilation_config *cfg = NULL;
  ck_assert_ok(irm_module_compilation_config(m, &cfg));
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_host_target(cfg)), "llvm");
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(cfg)), "llvm");
  const irm_object *prims = irm_compilation_config_primitive_targets(cfg);
  ck_assert_uint_eq(irm_array_size(prims), 2);
  ck_assert_str_eq(irm_target_kind_name(irm_target_host(irm_array_at(prims, 0)->v_obj)), "llvm");
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_find_primitive_target(cfg, 2)), "cuda");
  irm_object_release(cfg);
  irm_object_release(m);
  /* Without a CPU target, the host is llvm and the default the first. */
  m = targeted(targets2("cuda", "rocm"));
  ck_assert_ok(irm_module_compilation_config(m, &cfg));
  assert_text(irm_compilation_config_host_target(cfg), "llvm -keys=cpu");
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(cfg)), "cuda");
  irm_object_release(cfg);
  irm_object_release(m);
}
END_TEST

START_TEST(test_the_config_is_cached_in_the_module) {
  irm_module *m = targeted(bu_target("llvm"));
  irm_compilation_config *a = NULL, *b = NULL, *c = NULL;
  ck_assert_ok(irm_module_compilation_config(m, &a));
  ck_assert_ok(irm_module_compilation_config(m, &b));
  ck_assert_ptr_eq(a, b);
  /* A changed copy has its own. */
  irm_module *copy = NULL;
  irm_object *t = bu_target("c");
  irm_any tv = irm_any_object(t);
  ck_assert_ok(irm_module_with_attr(m, IRM_ATTR_TARGET, &tv, &copy));
  ck_assert_ok(irm_module_compilation_config(copy, &c));
  ck_assert_ptr_ne(c, a);
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(c)), "c");
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(a)), "llvm");
  irm_object_release(c);
  irm_object_release(b);
  /* The config outlives the module that made it (it holds no module). */
  irm_object_release(copy);
  irm_object_release(m);
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(a)), "llvm");
  irm_object_release(a);
  /* An in-place change by the sole owner empties the cache. */
  m = targeted(bu_target("llvm"));
  ck_assert_ok(irm_module_compilation_config(m, &a));
  irm_object_release(a);
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_TARGET, &tv));
  ck_assert_ok(irm_module_compilation_config(m, &a));
  ck_assert_str_eq(irm_target_kind_name(irm_compilation_config_default_primitive_target(a)), "c");
  irm_object_release(a);
  irm_object_release(m);
  irm_object_release(t);
}
END_TEST

typedef struct racer {
  irm_module *mod;
  irm_compilation_config *got;
  int rc;
} racer;

static void *race(void *arg) {
  racer *r = arg;
  r->rc = irm_module_compilation_config(r->mod, &r->got);
  return NULL;
}

START_TEST(test_threads_asking_at_once_get_the_one_cached_config) {
  irm_module *m = targeted(bu_target("llvm"));
  enum { N = 8 };
  pthread_t threads[N];
  racer racers[N];
  for (int i = 0; i < N; i++) {
    racers[i] = (racer){m, NULL, -1};
    ck_assert_int_eq(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
  }
  for (int i = 0; i < N; i++) ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
  irm_compilation_config *cached = NULL;
  ck_assert_ok(irm_module_compilation_config(m, &cached));
  for (int i = 0; i < N; i++) {
    ck_assert_int_eq(racers[i].rc, 0);
    ck_assert_ptr_eq(racers[i].got, cached);
    irm_object_release(racers[i].got);
  }
  irm_object_release(cached);
  irm_object_release(m);
}
END_TEST

START_TEST(test_the_globals) {
  irm_module *m = targeted(bu_target("c"));
  irm_any arg = irm_any_object(m);
  irm_object *cfg = call_obj("ir.CompilationConfig", &arg, 1, IRM_COMPILATION_CONFIG_TYPE_KEY);
  irm_any carg = irm_any_object(cfg);
  irm_object *fields = call_obj("ir.CompilationConfigFields", &carg, 1, "ffi.Map");
  ck_assert_uint_eq(irm_map_size(fields), 5);
  ck_assert_ptr_eq(irm_map_find_cstr(fields, "host_target")->v_obj, irm_compilation_config_host_target(cfg));
  ck_assert_ptr_eq(irm_map_find_cstr(fields, "executor")->v_obj, irm_compilation_config_executor(cfg));
  /* JSON round trip and repr work through the fields. */
  irm_object *json = call_obj("ffi.ToJSON", &carg, 1, "ffi.String");
  irm_any jarg = irm_any_object(json);
  irm_object *back = call_obj("ffi.FromJSON", &jarg, 1, IRM_COMPILATION_CONFIG_TYPE_KEY);
  irm_any barg = irm_any_object(back);
  int eq = 0;
  ck_assert_ok(irm_structural_equal(&carg, &barg, &eq));
  ck_assert(eq);
  irm_object_release(back);
  irm_object_release(json);
  irm_object_release(fields);
  irm_object_release(cfg);
  irm_object *empty = parse_module(BUILD_MAIN);
  arg = irm_any_object(empty);
  call_fails("ir.CompilationConfig", &arg, 1);
  ck_assert_last_error("ValueError: ir.CompilationConfig: module has no 'target' attribute");
  irm_object_release(empty);
  irm_object_release(m);
}
END_TEST

int main(void) {
  Suite *s = suite_create("compilation_config");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_one_target_without_host_is_its_own_host);
  tcase_add_test(tc, test_the_targets_host_and_the_modules_configs_are_used);
  tcase_add_test(tc, test_disagreements_name_both_targets);
  tcase_add_test(tc, test_heterogeneous_targets_share_one_host_and_default_to_the_cpu);
  tcase_add_test(tc, test_the_config_is_cached_in_the_module);
  tcase_add_test(tc, test_threads_asking_at_once_get_the_one_cached_config);
  tcase_add_test(tc, test_the_globals);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
