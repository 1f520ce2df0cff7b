/* The main of the suites built twice (tests/CMakeLists.txt): with the
 * project's flags and, on x86, with -mavx2 -mfma -ffp-contract=fast
 * (IRM_TEST_QNN_FMA), where a machine without AVX2 and FMA skips. */
#ifndef CHECK_QNN_FMA_UTIL_H
#define CHECK_QNN_FMA_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

static int qnn_fma_machine_runs_build(void) {
#if defined(IRM_TEST_QNN_FMA) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return 1;
#endif
}

/* Runs the suite make() gives (name: the skip message's): the process's exit status, 77 for a skip. */
static int qnn_fma_run_suite(const char *name, Suite *(*make)(void)) {
  if (!qnn_fma_machine_runs_build()) {
    printf("%s: this machine cannot run AVX2 + FMA, skipped\n", name);
    return 77;
  }
  SRunner *r = srunner_create(make());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
