/* irm run --repeat/--number and --profile (cmd_run.h): wall times of
 * runs of the loaded module, and per-kernel times through irm_crt.h's
 * kernel hooks, which this program defines (it exports its symbols, so a
 * library compiled with -DIRM_CRT_KERNEL_HOOKS binds its calls here when
 * loaded). The hooks keep one table: a profiled module runs on one thread
 * at a time (irm run's). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd_run.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* repeat measurements of number runs each, their means in ms into times. */
static int measure(const irm_runtime_module *m, const irm_object *data, irm_object *outs, int64_t repeat,
                   int64_t number, double *times) {
  for (int64_t i = 0; i < repeat; i++) {
    double t0 = now_ms();
    for (int64_t j = 0; j < number; j++)
      if (irm_runtime_module_run_into(m, data, outs)) return cli_fail("run: running");
    times[i] = (now_ms() - t0) / (double)number;
  }
  return CLI_OK;
}

int run_timing(const run_flags *r, const irm_runtime_module *m, const irm_object *data, irm_object *outs) {
  int64_t repeat = r->repeat ? r->repeat : 1, number = r->number ? r->number : 1;
  double *t = calloc((size_t)repeat, sizeof *t);
  if (!t) return cli_say(CLI_FAIL, "out of memory");
  int rc = measure(m, data, outs, repeat, number, t);
  if (!rc) {
    double sum = 0, var = 0;
    for (int64_t i = 0; i < repeat; i++) sum += t[i];
    double mean = sum / (double)repeat;
    for (int64_t i = 0; i < repeat; i++) var += (t[i] - mean) * (t[i] - mean);
    qsort(t, (size_t)repeat, sizeof *t, cmp_double);
    double median = repeat % 2 ? t[repeat / 2] : (t[repeat / 2 - 1] + t[repeat / 2]) / 2;
    fprintf(cli_out,
            "execution time (ms), %lld repeats of %lld runs each:\n"
            "  %10s %10s %10s %10s %10s\n  %10.4f %10.4f %10.4f %10.4f %10.4f\n",
            (long long)repeat, (long long)number, "mean", "median", "max", "min", "std", mean, median, t[repeat - 1],
            t[0], sqrt(var / (double)repeat));
  }
  free(t);
  return rc;
}

/* ---- the kernel hooks --------------------------------------------------------------------- */

#define MAX_STEPS 4096

static struct {
  const char *symbol;
  double started, total;
  int64_t calls;
} steps[MAX_STEPS];
static int32_t n_steps;

void irm_crt_kernel_enter(int32_t step, const char *symbol);
void irm_crt_kernel_exit(int32_t step, const char *symbol);

void irm_crt_kernel_enter(int32_t step, const char *symbol) {
  if (step < 0 || step >= MAX_STEPS) return;
  steps[step].symbol = symbol;
  steps[step].started = now_ms();
}

void irm_crt_kernel_exit(int32_t step, const char *symbol) {
  (void)symbol;
  if (step < 0 || step >= MAX_STEPS) return;
  steps[step].total += now_ms() - steps[step].started;
  steps[step].calls++;
  if (step >= n_steps) n_steps = step + 1;
}

/* One row per kernel symbol (a kernel called at several steps adds up). */
typedef struct kernel_row {
  const char *symbol;
  int64_t calls;
  double total;
} kernel_row;

static int by_total(const void *a, const void *b) {
  double x = ((const kernel_row *)a)->total, y = ((const kernel_row *)b)->total;
  return x > y ? -1 : x < y;
}

int run_profile(const run_flags *r, const irm_runtime_module *m, const irm_object *data, irm_object *outs) {
  int64_t repeat = r->repeat ? r->repeat : 1, number = r->number ? r->number : 1;
  double *t = calloc((size_t)repeat, sizeof *t);
  kernel_row *rows = calloc(MAX_STEPS, sizeof *rows);
  if (!t || !rows) {
    free(t);
    free(rows);
    return cli_say(CLI_FAIL, "out of memory");
  }
  memset(steps, 0, sizeof steps);
  n_steps = 0;
  int rc = measure(m, data, outs, repeat, number, t);
  size_t n = 0;
  double all = 0;
  for (int32_t s = 0; !rc && s < n_steps; s++) {
    if (!steps[s].calls) continue;
    size_t i = 0;
    while (i < n && strcmp(rows[i].symbol, steps[s].symbol)) i++;
    if (i == n) rows[n++].symbol = steps[s].symbol;
    rows[i].calls += steps[s].calls;
    rows[i].total += steps[s].total;
    all += steps[s].total;
  }
  if (!rc && !n)
    rc = cli_say(CLI_FAIL, "run: --profile: no kernel reported a time (the library was built without the hooks)");
  if (!rc) {
    qsort(rows, n, sizeof *rows, by_total);
    fprintf(cli_out, "kernel profile, %lld runs (%zu kernels, %.4f ms in kernels):\n  %-48s %8s %12s %7s\n",
            (long long)(repeat * number), n, all, "kernel", "calls", "total ms", "share");
    for (size_t i = 0; i < n; i++)
      fprintf(cli_out, "  %-48s %8lld %12.4f %6.1f%%\n", rows[i].symbol, (long long)rows[i].calls, rows[i].total,
              all > 0 ? 100 * rows[i].total / all : 0.0);
  }
  free(t);
  free(rows);
  return rc;
}
