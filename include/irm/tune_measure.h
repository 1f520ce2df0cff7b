/* Tuning tasks and the measurement of one candidate (docs/tuning.md,
 * "Tasks and measurement").
 *
 * A task is one tunable workload of a model as a module of its own: its
 * `main` is the one call of the kernel (after the build's layout
 * alteration, as it runs in the model) over a fresh parameter per input
 * (the weights too: no constants), with the configuration the build needs
 * (the target, the aot executor, the crt runtime: one thread) and the
 * module attribute `tune.task` (a str: the task's fields as ffi.ToJSON
 * text). It prints and parses (ir.text / ir.parse), so it can travel as
 * text to another machine.
 *
 * A measurement builds the task twice, the reference (the default rule)
 * and the candidate (through a scratch tuning database holding only the
 * candidate, set as the module's tune.database: the path builds apply
 * tuned records by), exports both (the build cache makes the reference a
 * cache hit after the first time), runs each in a forked child on seeded
 * random inputs (a warm-up run, then best-of-repeat batches each lasting
 * at least min_repeat_ms), compares the candidate's outputs with the
 * reference's and reports the result. A candidate's failure is a result,
 * never an error of the call: a knob the space lacks or a value outside
 * it ("illegal", nothing compiled), a generator or C compiler error
 * ("compile", the compiler's first error line), a signal ("crash", naming
 * it), a child still running at the timeout ("timeout", killed), outputs
 * off the reference's ("wrong"). Temporary files are removed on every
 * path.
 *
 * Thread safety: both functions may run on any thread; each measurement
 * uses its own temporary folder and child processes. */
#ifndef IRM_TUNE_MEASURE_H
#define IRM_TUNE_MEASURE_H

#include "irm/c_api.h"
#include "irm/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The module attribute (str) holding a task's fields. */
#define IRM_TUNE_TASK_KEY "tune.task"

/* The tasks of mod built for target (as irm_build takes it: a Target,
 * text or Map): one Map per distinct workload, in the order of the first
 * call of each, {"family": str, "workload": str (canonical JSON), "op":
 * str, "knobs": Map knob -> Array of legal values, "size": int (the
 * candidates), "calls": int, "target": str (the target's text), "features":
 * str (the CPU features records are kept for), "key": str (the database's
 * workload identity: family, workload, dtypes, target and features joined
 * by '|'), "task": IRModule}. *out a NEW Array. Errors: TypeError (mod
 * not an ir.IRModule), the build's errors, FTuneSpace's (as
 * tune.ListTunables), MemoryError. */
IRM_API int irm_tune_extract_tasks(const irm_module *mod, const irm_any *target, irm_object **out);

/* Measurement options; IRM_TUNE_MEASURE_OPTIONS_DEFAULT gives the
 * defaults. */
typedef struct irm_tune_measure_options {
  int64_t repeat;        /* timed batches (>= 1): the best one's time per run is the mean */
  int64_t min_repeat_ms; /* each batch runs at least this long (>= 0) */
  int64_t warmup;        /* untimed runs first (>= 0) */
  double timeout;        /* seconds a child may run (> 0) */
  int64_t seed;          /* of the random inputs */
  int64_t cpu;           /* the CPU the measuring child runs on (sched_setaffinity); -1: any */
  int64_t flush;         /* 1: before each timed run, evict every input but the first (the weights, not the
                          * data) from the caches, as TVM's enable_cpu_cache_flush does, and time the runs
                          * one by one; 0: runs back to back, everything warm */
} irm_tune_measure_options;
#define IRM_TUNE_MEASURE_OPTIONS_DEFAULT \
  { 5, 10, 1, 10.0, 0, -1, 1 }

/* Measures candidate (a JSON object knob -> value; "{}" the default rule)
 * of task (a module irm_tune_extract_tasks made, or its parsed text).
 * *out a NEW Map {"mean": float s (time per run of the best batch: a
 * batch's runs' mean), "spread": float s (the batches' max - min), "error": str (""
 * when fine), "error_kind": "" | "compile" | "crash" | "timeout" |
 * "wrong" | "illegal", "compile_seconds": float (building and compiling
 * both), "run_seconds": float (the children's wall time), "compiler": str
 * (the C compiler's path and the first line of its --version, from the
 * identity the build cache keys on)}. Errors
 * (nothing measured): TypeError (task not an IRModule), ValueError (a
 * module without tune.task or with a damaged one; candidate not a JSON
 * object; an option out of range, naming it; a cpu this process may not
 * run on), RuntimeError (a temporary
 * folder, shared memory or a child process that cannot be made),
 * MemoryError. */
IRM_API int irm_tune_measure(const irm_module *task, const char *candidate, const irm_tune_measure_options *opts,
                             irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
