/* Plugins loaded from several threads at once: the deferral queue is per
 * thread and the plugin list is locked. */
#include <pthread.h>
#include <stdio.h>

#include "check_util.h"

typedef struct {
  const char *path;
  int rounds;
  int rc;
  char message[512];
} loader;

static void *load_plugin(void *arg) {
  loader *l = arg;
  for (int i = 0; i < l->rounds && !l->rc; i++) l->rc = irm_plugin_load(l->path);
  if (l->rc) snprintf(l->message, sizeof l->message, "%s", irm_last_error());
  return NULL;
}

static void run_loaders(loader *loaders, size_t n) {
  pthread_t threads[8];
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(pthread_create(&threads[i], NULL, load_plugin, &loaders[i]), 0);
  for (size_t i = 0; i < n; i++) ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
}

START_TEST(test_two_threads_load_different_plugins) {
  loader loaders[2] = {{IRM_TEST_PASS_PLUGIN, 3, 0, ""}, {IRM_TEST_EXECUTOR_PLUGIN, 3, 0, ""}};
  run_loaders(loaders, 2);
  for (size_t i = 0; i < 2; i++) ck_assert_msg(loaders[i].rc == 0, "%s", loaders[i].message);
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 2);
  irm_object_release(list);
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get("ChooseDataLayout", NULL, &p));
  irm_object_release(p);
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("micro-aot", NULL, &e));
  irm_object_release(e);
}
END_TEST

START_TEST(test_threads_loading_same_plugin_load_it_once) {
  loader loaders[4];
  for (size_t i = 0; i < 4; i++) loaders[i] = (loader){IRM_TEST_PASS_PLUGIN, 2, 0, ""};
  run_loaders(loaders, 4);
  for (size_t i = 0; i < 4; i++) ck_assert_msg(loaders[i].rc == 0, "%s", loaders[i].message);
  irm_object *list = NULL;
  ck_assert_ok(irm_plugin_list(&list));
  ck_assert_uint_eq(irm_array_size(list), 1);
  irm_object_release(list);
}
END_TEST

START_TEST(test_failing_and_good_plugin_in_parallel) {
  loader loaders[2] = {{IRM_TEST_BROKEN_PLUGIN, 1, 0, ""}, {IRM_TEST_EXECUTOR_PLUGIN, 1, 0, ""}};
  run_loaders(loaders, 2);
  ck_assert_int_eq(loaders[0].rc, IRM_EPLUGIN);
  ck_assert_msg(strstr(loaders[0].message, "the flux capacitor is missing") != NULL, "%s", loaders[0].message);
  ck_assert_msg(loaders[1].rc == 0, "%s", loaders[1].message);
  ck_assert(!global_exists("broken.Hello"));
  ck_assert(!global_exists("broken.MacroAnswer"));
  irm_executor *e = NULL;
  ck_assert_ok(irm_executor_create("micro-aot", NULL, &e));
  irm_object_release(e);
}
END_TEST

static Suite *plugin_threads_suite(void) {
  Suite *s = suite_create("plugin_threads");
  TCase *tc = tcase_create("threads");
  tcase_add_test(tc, test_two_threads_load_different_plugins);
  tcase_add_test(tc, test_threads_loading_same_plugin_load_it_once);
  tcase_add_test(tc, test_failing_and_good_plugin_in_parallel);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(plugin_threads_suite()); }
