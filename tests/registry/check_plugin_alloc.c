/* The plugin loader out of memory: failing one allocation at a time while
 * a plugin loads (the loader's own bookkeeping, its registration journal,
 * the plugin's queued macro registrations and its init), every failure is
 * a MemoryError that leaves every registry as it was, and the load that
 * finally meets no failure succeeds. Each test runs in its own process
 * (Check forks), so the plugin is not loaded yet when it starts. */
#include <stdio.h>

#include "check_alloc_util.h"
#include "check_plugin_util.h"

/* Loads path with the n-th allocation failing, for n along the sweep, until
 * a load meets no failure; asserts what each failed load left. */
static void sweep_load(const char *what, int (*load)(const char *), const char *path) {
  irm_object *before = registry_snapshot();
  long tried = 0, failures = 0, n = 1;
  uint64_t salt = sweep_salt(what, fail_nth);
  for (; n < sweep_cap; n = sweep_next(n, salt)) {
    settle_error();
    long injected_before = atomic_load(&injected);
    fail_nth_from_now(n);
    int rc = load(path);
    stop_failing();
    tried++;
    if (atomic_load(&injected) == injected_before) { /* no allocation failed: the load is complete */
      ck_assert_msg(rc == IRM_OK, "%s: a load that met no failure failed: %s", what, irm_last_error());
      break;
    }
    if (rc == IRM_OK) continue; /* an allocation the loader may do without failed */
    failures++;
    ck_assert_msg(rc == IRM_ENOMEM || rc == IRM_EPLUGIN, "%s at N=%ld: status %d: %s", what, n, rc, irm_last_error());
    ck_assert_msg(strstr(irm_last_error(), "MemoryError") || strstr(irm_last_error(), "out of memory"),
                  "%s at N=%ld: not an out-of-memory error: %s", what, n, irm_last_error());
    irm_object *after = registry_snapshot();
    assert_same_registries(before, after);
    irm_object_release(after);
  }
  sweep_note(what, "fail_nth", n, tried, failures);
  ck_assert_msg(failures > 0, "%s: no failure was met", what);
  irm_object_release(before);
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 1);
  irm_object_release(list);
}

static int load_directly(const char *path) { return irm_plugin_load(path); }

static int load_through_global(const char *path) {
  irm_any arg = irm_any_str(path), ret = irm_any_none();
  int rc = irm_func_call_global("plugin.Load", &arg, 1, &ret);
  irm_any_release(&ret);
  return rc;
}

static int load_from_env(const char *path) {
  setenv("IRM_PLUGIN_PATH", path, 1);
  return irm_plugin_load_from_env();
}

START_TEST(test_pass_plugin_load_out_of_memory_leaves_registries_then_loads) {
  sweep_load("pass plugin", load_directly, IRM_TEST_PASS_PLUGIN);
  irm_object *passes = call_global0("transform.ListPasses");
  int found = 0;
  for (size_t i = 0; i < irm_array_size(passes); i++)
    found |= strcmp(irm_string_data(irm_array_at(passes, i)->v_obj), "ChooseDataLayout") == 0;
  ck_assert_msg(found, "the pass plugin's pass is registered after the sweep");
  irm_object_release(passes);
}
END_TEST

START_TEST(test_executor_plugin_load_through_global_out_of_memory) {
  sweep_load("executor plugin (plugin.Load)", load_through_global, IRM_TEST_EXECUTOR_PLUGIN);
}
END_TEST

START_TEST(test_plugin_path_load_out_of_memory) { sweep_load("IRM_PLUGIN_PATH", load_from_env, IRM_TEST_PASS_PLUGIN); }
END_TEST

static Suite *plugin_alloc_suite(void) {
  Suite *s = suite_create("plugin_alloc");
  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_pass_plugin_load_out_of_memory_leaves_registries_then_loads);
  tcase_add_test(tc, test_executor_plugin_load_through_global_out_of_memory);
  tcase_add_test(tc, test_plugin_path_load_out_of_memory);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_plugin_alloc") != 0) return EXIT_FAILURE;
  return run_suite(plugin_alloc_suite());
}
