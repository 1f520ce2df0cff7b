/* What irm run's files share (cmd_run.c: the folder, the library and the
 * flow; cmd_run_io.c: inputs and outputs; cmd_run_bench.c: --repeat and
 * --profile). */
#ifndef IRM_TOOLS_CMD_RUN_H
#define IRM_TOOLS_CMD_RUN_H

#include "cli_util.h"
#include "irm/runtime.h"

typedef struct run_flags {
  const char *dir;
  int64_t seed, show;
  double tolerance;
  int check;           /* --check (or --tolerance): compare with ir.Evaluate */
  const char **inputs; /* --input NAME=FILE */
  size_t n_inputs;
  const char *inputs_file; /* --inputs FILE.npz|.npy */
  const char *outputs_file;
  int64_t repeat, number; /* 0: not given */
  int profile;
  int64_t num_threads; /* -1: not given */
  int help;
} run_flags;

/* main's parameters in *all (the weights' values, the data inputs given
 * by --input / --inputs or random) and the data inputs alone, in order,
 * in *data. CLI_FAIL / CLI_USAGE with a message. */
int run_make_inputs(const run_flags *r, const irm_module *mod, const irm_object *weights, irm_object **all,
                    irm_object **data);

/* "output J: Tensor[(shape), dtype] = [values]" for each output. */
void run_print_outputs(const run_flags *r, const irm_object *outs);

/* --outputs: the outputs as an .npz (output_0, output_1, ...). */
int run_write_outputs(const char *path, const irm_object *outs);

/* --check: the outputs against ir.Evaluate's result; CLI_FAIL when they
 * differ by more than --tolerance. */
int run_compare(const run_flags *r, const irm_object *outs, const irm_any *want);

/* --repeat/--number: the module run repeat times number runs each into
 * outs; the mean, median, min, max and std of the repeats in ms. */
int run_timing(const run_flags *r, const irm_runtime_module *m, const irm_object *data, irm_object *outs);

/* --profile: the profiled module (kernel hooks compiled in) run as
 * run_timing does (once at least); per kernel: name, calls, total ms,
 * share. */
int run_profile(const run_flags *r, const irm_runtime_module *m, const irm_object *data, irm_object *outs);

#endif
