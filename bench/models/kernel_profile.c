/* Per-kernel timing for bench_models.py's profiled builds: compiled into an
 * exported library together with its generated code built with
 * -DIRM_CRT_KERNEL_HOOKS, so the entry point's IRM_CRT_KERNEL_ENTER/EXIT
 * (runtime/include/irm_crt.h) land here. Each step keeps its best (least)
 * wall time since the last reset; the benchmark reads them through ctypes.
 * One static table, like the generated library's one static workspace. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under cc -std=c11 */
#include <stdint.h>
#include <time.h>

#define MAX_STEPS 4096

static int64_t started[MAX_STEPS];
static int64_t best[MAX_STEPS];
static const char *symbols[MAX_STEPS];
static int32_t steps;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void irm_crt_kernel_enter(int32_t step, const char *symbol);
void irm_crt_kernel_exit(int32_t step, const char *symbol);

void irm_crt_kernel_enter(int32_t step, const char *symbol) {
  if (step < 0 || step >= MAX_STEPS) return;
  symbols[step] = symbol;
  started[step] = now_ns();
}

void irm_crt_kernel_exit(int32_t step, const char *symbol) {
  (void)symbol;
  if (step < 0 || step >= MAX_STEPS) return;
  int64_t t = now_ns() - started[step];
  if (best[step] == 0 || t < best[step]) best[step] = t;
  if (step >= steps) steps = step + 1;
}

/* Forgets every time. */
void irm_bench_profile_reset(void);
void irm_bench_profile_reset(void) {
  for (int32_t i = 0; i < steps; i++) best[i] = 0;
  steps = 0;
}

/* The number of steps seen; their best times (ns) into ns[0..min(n, steps)). */
int32_t irm_bench_profile_read(int64_t *ns, int32_t n);
int32_t irm_bench_profile_read(int64_t *ns, int32_t n) {
  for (int32_t i = 0; i < steps && i < n; i++) ns[i] = best[i];
  return steps;
}

/* The symbol of a step's kernel, or NULL. */
const char *irm_bench_profile_symbol(int32_t step);
const char *irm_bench_profile_symbol(int32_t step) { return step >= 0 && step < steps ? symbols[step] : NULL; }
