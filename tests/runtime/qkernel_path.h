/* Whether this machine can run the int8 kernels' path a test was built
 * for (check_kernels_qdense.c, check_kernels_qconv2d.c: one executable per
 * path, "plain", "avx2", "avx512vnni" or "avxvnni"). */
#ifndef IRM_TEST_QKERNEL_PATH_H
#define IRM_TEST_QKERNEL_PATH_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int machine_runs_qpath(const char *path) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (!strcmp(path, "avx512vnni")) return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw");
  if (!strcmp(path, "avx2")) return __builtin_cpu_supports("avx2");
#if defined(__clang__) || __GNUC__ >= 11
  if (!strcmp(path, "avxvnni")) return __builtin_cpu_supports("avxvnni");
#else
  if (!strcmp(path, "avxvnni")) return 0;
#endif
#endif
  (void)path;
  return 1;
}

/* Runs suite s (taking it) of the kernel `name` built for `path`: exit
 * failure when the build picked another path than the test was built for
 * (IRM_TEST_QDENSE_PATH), 77 (skipped) when this machine cannot run it,
 * else the suite's outcome. */
static int run_qpath_suite(const char *name, const char *path, Suite *s) {
  SRunner *r = srunner_create(s);
  int rc;
#ifdef IRM_TEST_QDENSE_PATH
  if (strcmp(path, IRM_TEST_QDENSE_PATH)) {
    printf("kernels_%s: built for %s but got %s\n", name, IRM_TEST_QDENSE_PATH, path);
    srunner_free(r);
    return EXIT_FAILURE;
  }
#endif
  if (!machine_runs_qpath(path)) {
    printf("kernels_%s: this machine cannot run %s, skipped\n", name, path);
    rc = 77;
  } else {
    srunner_run_all(r, CK_NORMAL);
    rc = srunner_ntests_failed(r) ? EXIT_FAILURE : EXIT_SUCCESS;
  }
  srunner_free(r);
  return rc;
}

#endif
