/* Whether this machine can run the int8 kernels' path a test was built
 * for (check_kernels_qdense.c, check_kernels_qconv2d.c: one executable per
 * path, "plain", "avx2", "avx512vnni" or "avxvnni"). */
#ifndef IRM_TEST_QKERNEL_PATH_H
#define IRM_TEST_QKERNEL_PATH_H

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

#endif
