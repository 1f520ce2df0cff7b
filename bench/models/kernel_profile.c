/* Per-kernel timing for bench_models.py's profiled builds: compiled into an
 * exported library together with its generated code built with
 * -DIRM_CRT_KERNEL_HOOKS, so the entry point's IRM_CRT_KERNEL_ENTER/EXIT
 * (runtime/include/irm_crt.h) land here. Each step keeps its best (least)
 * CPU time of the calling thread and its best wall time since the last
 * reset (the CPU clock is what the benchmark compares on a loaded machine:
 * preemption does not count); the benchmark reads them through ctypes.
 * One static table, like the generated library's one static workspace. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under cc -std=c11 */
#include <stdint.h>
#include <time.h>

#define MAX_STEPS 4096

static int64_t started_cpu[MAX_STEPS], started_wall[MAX_STEPS];
static int64_t best_cpu[MAX_STEPS], best_wall[MAX_STEPS];
static const char *symbols[MAX_STEPS];
static int32_t steps;

static int64_t now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void irm_crt_kernel_enter(int32_t step, const char *symbol);
void irm_crt_kernel_exit(int32_t step, const char *symbol);

void irm_crt_kernel_enter(int32_t step, const char *symbol) {
  if (step < 0 || step >= MAX_STEPS) return;
  symbols[step] = symbol;
  started_wall[step] = now_ns(CLOCK_MONOTONIC);
  started_cpu[step] = now_ns(CLOCK_THREAD_CPUTIME_ID);
}

void irm_crt_kernel_exit(int32_t step, const char *symbol) {
  (void)symbol;
  if (step < 0 || step >= MAX_STEPS) return;
  int64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - started_cpu[step];
  int64_t wall = now_ns(CLOCK_MONOTONIC) - started_wall[step];
  if (best_cpu[step] == 0 || cpu < best_cpu[step]) best_cpu[step] = cpu;
  if (best_wall[step] == 0 || wall < best_wall[step]) best_wall[step] = wall;
  if (step >= steps) steps = step + 1;
}

/* Forgets every time. */
void irm_bench_profile_reset(void);
void irm_bench_profile_reset(void) {
  for (int32_t i = 0; i < steps; i++) best_cpu[i] = best_wall[i] = 0;
  steps = 0;
}

/* The number of steps seen; their best CPU and wall times (ns) into
 * cpu[0..min(n, steps)) and wall[...]. */
int32_t irm_bench_profile_read(int64_t *cpu, int64_t *wall, int32_t n);
int32_t irm_bench_profile_read(int64_t *cpu, int64_t *wall, int32_t n) {
  for (int32_t i = 0; i < steps && i < n; i++) {
    cpu[i] = best_cpu[i];
    wall[i] = best_wall[i];
  }
  return steps;
}

/* The symbol of a step's kernel, or NULL. */
const char *irm_bench_profile_symbol(int32_t step);
const char *irm_bench_profile_symbol(int32_t step) { return step >= 0 && step < steps ? symbols[step] : NULL; }
