/* runtime/kernels' dense and softmax kernels alone (no libirm), against
 * double-precision references written here: random shapes (K off the
 * vector width, N = 1, M > 1) and softmax rows with -inf, +inf, large
 * values and NaN, in the evaluator's rules (ir/dataflow/ops/reduce.c).
 * Built once per vector width beside check_kernels (tests/CMakeLists.txt);
 * a machine that cannot run the width skips the suite (exit 77). */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_kernel_dense.h"
#include "irm_kernel_softmax.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dULL;
static int rnd(int n) {
  rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (int)((rng_state >> 33) % (uint64_t)n);
}
static float rndf(float scale) { return ((float)rnd(20001) / 10000.0f - 1.0f) * scale; }

static float *nan_buf(size_t n) {
  float *p = malloc(n * sizeof *p + 1);
  for (size_t i = 0; i < n; i++) p[i] = NAN;
  return p;
}

/* ---- dense ---- */

static void check_dense(int m, int n, int k) {
  float *x = malloc(((size_t)m * k + 1) * sizeof(float)), *w = malloc(((size_t)n * k + 1) * sizeof(float));
  float *y = nan_buf((size_t)m * n);
  for (size_t i = 0; i < (size_t)m * k; i++) x[i] = rndf(1.0f);
  for (size_t i = 0; i < (size_t)n * k; i++) w[i] = rndf(1.0f);
  irm_kernel_dense(x, w, y, m, n, k);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      double acc = 0, mag = 0;
      for (int t = 0; t < k; t++) {
        double p = (double)x[(size_t)i * k + t] * w[(size_t)j * k + t];
        acc += p, mag += fabs(p);
      }
      float got = y[(size_t)i * n + j];
      ck_assert_msg(fabs(got - acc) <= 1e-6 * (mag + 1.0), "dense m=%d n=%d k=%d at (%d, %d): %g, expected %g", m, n, k,
                    i, j, (double)got, acc);
    }
  free(x), free(w), free(y);
}

START_TEST(test_dense_random_shapes) {
  for (int it = 0; it < 60; it++) check_dense(1 + rnd(9), 1 + rnd(40), 1 + rnd(3 * IRM_KV_WIDTH + 70));
}
END_TEST

START_TEST(test_dense_edge_shapes) {
  check_dense(1, 1, 1);
  check_dense(1, 1, IRM_KV_WIDTH);
  check_dense(1, 1000, 512); /* resnet's classifier */
  check_dense(5, 1, IRM_KV_WIDTH + 1);
  check_dense(IRM_KERNEL_DENSE_MR, IRM_KERNEL_DENSE_NR, 2 * IRM_KV_WIDTH - 1);
  check_dense(IRM_KERNEL_DENSE_MR + 1, IRM_KERNEL_DENSE_NR1 + 3, 3);
}
END_TEST

/* ---- softmax ---- */

/* The evaluator's computation in double (ir/dataflow/ops/reduce.c), but
 * log(total) as log1p(total - 1) with total - 1 summed apart: for the
 * max of a row whose other exps are tiny (1 + 1e-11) the evaluator's
 * rounded double total is off by 1e-16 absolute, 1e-5 relative of the
 * result, which the kernel's log1p does better than. */
static void softmax_ref(const float *x, double *y, int len, int log_out) {
  double top = -INFINITY, total = 0, m1 = -1.0;
  for (int j = 0; j < len; j++) top = fmax(top, x[j]);
  for (int j = 0; j < len; j++) total += exp(x[j] - top);
  for (int j = 0; j < len; j++)
    if ((double)x[j] == top) m1 += 1.0;
  for (int j = 0; j < len; j++)
    if ((double)x[j] != top) m1 += exp(x[j] - top);
  if (total != total) m1 = NAN;
  for (int j = 0; j < len; j++) y[j] = log_out ? x[j] - top - log1p(m1) : exp(x[j] - top) / total;
}

/* Equal within 1e-6 relative, NaN to NaN, infinities exactly; values
 * below FLT_MIN (denormal results) within FLT_MIN absolute. */
static int close_to(float got, double want) {
  float w = (float)want;
  if (w != w) return got != got;
  if (isinf(w)) return got == w;
  return fabs((double)got - want) <= 1e-6 * fabs(want) + 1.2e-38;
}

static void check_softmax(const float *x, int rows, int len, int log_out, int in_place) {
  size_t total = (size_t)rows * len;
  float *y = nan_buf(total);
  double *ref = malloc((total + 1) * sizeof *ref);
  if (in_place) memcpy(y, x, total * sizeof *y);
  irm_kernel_softmax_rows(in_place ? y : x, y, rows, len, log_out);
  for (int r = 0; r < rows; r++) softmax_ref(x + (size_t)r * len, ref + (size_t)r * len, len, log_out);
  for (size_t i = 0; i < total; i++)
    ck_assert_msg(close_to(y[i], ref[i]), "%s rows=%d len=%d at %zu (x %g): %.9g, expected %.9g",
                  log_out ? "log_softmax" : "softmax", rows, len, i, (double)x[i], (double)y[i], ref[i]);
  free(y), free(ref);
}

START_TEST(test_softmax_random_rows) {
  for (int it = 0; it < 80; it++) {
    int rows = 1 + rnd(4), len = 1 + rnd(it < 60 ? 3 * IRM_KV_WIDTH + 40 : 3000);
    float scale = it % 3 == 0 ? 1.0f : it % 3 == 1 ? 20.0f : 200.0f;
    float *x = malloc(((size_t)rows * len + 1) * sizeof *x);
    for (size_t i = 0; i < (size_t)rows * len; i++) x[i] = rndf(scale);
    check_softmax(x, rows, len, it % 2, it % 5 == 0);
    free(x);
  }
}
END_TEST

START_TEST(test_softmax_classifier_row) {
  float x[1000];
  for (int i = 0; i < 1000; i++) x[i] = rndf(8.0f);
  check_softmax(x, 1, 1000, 0, 0);
  check_softmax(x, 1, 1000, 1, 0);
}
END_TEST

/* Rows with -inf, +inf, NaN, large values and huge spreads (denormal and
 * zero results), each at several positions (the vector part and the tail). */
START_TEST(test_softmax_special_values) {
  const float specials[] = {-INFINITY, INFINITY, NAN, 1e30f, -1e30f, 88.0f, -150.0f, 3e38f};
  int lens[] = {1, 3, IRM_KV_WIDTH, 2 * IRM_KV_WIDTH + 1, 5 * IRM_KV_WIDTH + 3};
  for (size_t li = 0; li < sizeof lens / sizeof *lens; li++) {
    int len = lens[li];
    float *x = malloc((size_t)len * sizeof *x + 1);
    for (size_t s = 0; s < sizeof specials / sizeof *specials; s++)
      for (int at = 0; at < len; at += 1 + len / 3) {
        for (int j = 0; j < len; j++) x[j] = rndf(4.0f);
        x[at] = specials[s];
        for (int log_out = 0; log_out < 2; log_out++) check_softmax(x, 1, len, log_out, 0);
      }
    /* every element special: all -inf, all NaN, all +inf */
    for (size_t s = 0; s < 3; s++) {
      for (int j = 0; j < len; j++) x[j] = specials[s];
      for (int log_out = 0; log_out < 2; log_out++) check_softmax(x, 1, len, log_out, 0);
    }
    /* a spread down to denormal and zero results */
    for (int j = 0; j < len; j++) x[j] = -(float)j * 30.0f;
    for (int log_out = 0; log_out < 2; log_out++) check_softmax(x, 1, len, log_out, 0);
    free(x);
  }
}
END_TEST

/* Whether this machine runs the width the suite was built for. */
static int machine_runs_isa(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_cpu_init();
  if (!strcmp(IRM_KV_ISA, "avx512")) return __builtin_cpu_supports("avx512f");
  if (!strcmp(IRM_KV_ISA, "avx2")) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return 1;
}

int main(void) {
  if (!machine_runs_isa()) {
    printf("kernels_nn: this machine cannot run %s, skipped\n", IRM_KV_ISA);
    return 77;
  }
#ifdef IRM_TEST_ISA
  if (strcmp(IRM_KV_ISA, IRM_TEST_ISA)) {
    printf("kernels_nn: built for %s but got %s\n", IRM_TEST_ISA, IRM_KV_ISA);
    return EXIT_FAILURE;
  }
#endif
  Suite *s = suite_create("kernels_nn_" IRM_KV_ISA);
  const struct {
    const char *name;
    const TTest *test;
  } tests[] = {
      {"dense_random_shapes", test_dense_random_shapes},       {"dense_edge_shapes", test_dense_edge_shapes},
      {"softmax_random_rows", test_softmax_random_rows},       {"softmax_classifier_row", test_softmax_classifier_row},
      {"softmax_special_values", test_softmax_special_values},
  };
  for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
    TCase *tc = tcase_create(tests[i].name);
    tcase_add_test(tc, tests[i].test);
    suite_add_tcase(s, tc);
  }
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
