/* Shared helpers for the benchmarks: timing and the report line
 * `name ns_per_op ratio baseline_name`. Best of ROUNDS. */
#ifndef IRM_BENCH_UTIL_H
#define IRM_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "irm/irm.h"

#define ROUNDS 5

static inline double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline void bench_die(const char *what) {
  fprintf(stderr, "bench: %s: %s\n", what, irm_last_error());
  exit(1);
}

/* Keeps the minimum of a per-op time. */
static inline void bench_keep_best(double *best, double t0, double t1, double ops) {
  double per = (t1 - t0) / ops;
  if (per < *best) *best = per;
}

/* Runs a loop of n operations; returns a value that depends on every
 * result, so the compiler cannot drop the work. */
typedef int64_t (*bench_loop)(void *ctx, long n);

/* Best time per operation of baseline and subject, measured in ROUNDS
 * rounds of CHUNKS interleaved chunks of n operations: interleaving and
 * taking minimums keeps a busy neighbour on a shared machine from landing
 * on one side only. *sink receives the loops' checksum. */
#define CHUNKS 20
static inline void bench_pair(bench_loop baseline, bench_loop subject, void *ctx, long n, double *best_baseline,
                              double *best_subject, int64_t *sink) {
  *best_baseline = *best_subject = 1e30;
  for (int round = 0; round < ROUNDS; round++)
    for (int chunk = 0; chunk < CHUNKS; chunk++) {
      double t0 = bench_now_ns();
      *sink += baseline(ctx, n);
      double t1 = bench_now_ns();
      *sink += subject(ctx, n);
      double t2 = bench_now_ns();
      bench_keep_best(best_baseline, t0, t1, (double)n);
      bench_keep_best(best_subject, t1, t2, (double)n);
    }
}

static inline void bench_report(const char *name, double value, double baseline, const char *baseline_name) {
  printf("# %s %.2f\n", baseline_name, baseline);
  printf("%s %.2f %.2f %s\n", name, value, value / baseline, baseline_name);
}

#endif
