/* Private to backend/: the lowered plan of main, what the executors'
 * emitters (backend/aot/, backend/graph/) read, and the lowering that
 * makes it (lower.c, lower_kernels.c).
 *
 * Lowering reads main of the final module once: one kernel per distinct
 * workload (structurally equal Primitive functions, their tensor constants
 * lifted, share one; its C generated here by backend/codegen/) or
 * external function (BYOC), one step per call, one tensor per value, the
 * constants, the inputs and outputs, and the buffers the memory planner
 * (memory_plan.h) placed. The plan holds no IR object: types are dtypes
 * and shapes, constants are bytes the module owns, kernels are symbols
 * with their signatures and C text, so an emitter needs nothing of the
 * dialect (tests/layers/check_symbols.cmake proves it on their objects). */
#ifndef IRM_BACKEND_LOWER_PLAN_H
#define IRM_BACKEND_LOWER_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "irm/tensor.h"
#include "backend_internal.h"
#include "codegen/schedule.h"
#include "irm_internal.h"
#include "memory_plan.h"

/* A tensor's type: dtype and shape. */
typedef struct plan_type {
  DLDataType dtype;
  int32_t ndim;
  int64_t *shape; /* ndim entries (owned by the plan; NULL when ndim is 0) */
  size_t numel;
  size_t bytes; /* numel * the dtype's size */
} plan_type;

typedef enum plan_tensor_kind { PLAN_INPUT, PLAN_CONST, PLAN_TEMP } plan_tensor_kind;

/* One tensor main's dataflow names. */
typedef struct plan_tensor {
  plan_tensor_kind kind;
  size_t index; /* PLAN_INPUT: main's param; PLAN_CONST: the constant */
  plan_type type;
  size_t first, last; /* PLAN_TEMP: the steps producing and last reading it */
  long out;           /* >= 0: main's output (the first it is) */
  long buffer;        /* PLAN_TEMP: its buffer; -1: written straight into output `out`, or a view */
  long view_of;       /* PLAN_TEMP made by a nop view of an input or a constant: that tensor (its data
                         is this one's); else -1 */
} plan_tensor;

/* A constant of main (a bound parameter, or one lifted out of a kernel). */
typedef struct plan_const {
  char *name; /* the params name (the `params` key, else p<k>) */
  plan_type type;
  size_t bytes;     /* of data */
  const void *data; /* borrowed: the module's tensor's bytes (byte offset applied) */
  DLDevice device;
} plan_const;

/* One kernel: a distinct workload of Primitive functions (its C is in the plan's
 * kernels text), or an external function (a module function with a
 * `Compiler` attribute, which main calls through a GlobalVar; its code
 * comes from codegen.ext.<Compiler>: the host code declares it
 * `extern int32_t <symbol>(const T *in..., T *out...)`). */
typedef struct plan_kernel {
  char *symbol;
  bool external;                /* no code generated here, no scratch */
  size_t n_inputs;              /* tensor parameters (a fused kernel's lifted constants last) */
  size_t n_outputs;             /* 1, or the fields of a tuple result */
  size_t scratch_bytes;         /* 64-byte aligned scratch it needs, 0 if none */
  plan_type *inputs, *outputs;  /* its signature */
  irm_sched_record_ *schedules; /* the schedule record of each runtime/kernels conv it calls (owned) */
  size_t n_schedules;
} plan_kernel;

/* One call of a kernel in main. */
typedef struct plan_step {
  size_t kernel;
  size_t *args; /* tensor ids: the kernel's n_inputs then n_outputs */
  long scratch; /* the buffer of its scratch, or -1 */
  bool view;    /* its kernel is a view of input 0 (reshape, squeeze, expand_dims, reshape_like) */
  bool nop;     /* a view whose output shares its input's buffer: nothing runs (TVM's __nop) */
} plan_step;

/* An input (main's parameter) or an output of main. */
typedef struct plan_io {
  char *name;    /* as given (param name / output name) */
  char *field;   /* the name as a C identifier, unique among its kind */
  size_t tensor; /* the tensor it is */
} plan_io;

/* The runtime's threads (docs/threads.md): read from the configuration
 * by irm_plan_threads_of_. */
typedef struct plan_threads {
  int split;           /* 0: serial code (crt, or a runtime kind without num-threads); else the
                          kernels' split aims at this many threads */
  int64_t num_threads; /* the option as configured (0: every CPU at load) */
  bool affinity;       /* thread-affinity */
} plan_threads;

/* What lowering is asked for (the executor's code generator fills it). */
typedef struct plan_request {
  const char *mod_name;     /* names the kernels: tvmgen_<mod_name>_fused_... */
  const char *who;          /* the error context ("aot codegen", "graph codegen") */
  const irm_object *target; /* the default primitive target (borrowed; NULL: plain "c") */
  irm_mem_algo_ algo;       /* how the buffers are placed */
  size_t alignment;         /* every buffer's offset a multiple of it (a power of two) */
  bool scratch_buffers;     /* kernels' scratch gets buffers (aot's workspace); else the runner gives it */
  bool output_buffers;      /* main's outputs computed by steps get buffers, live to the end (graph's
                               storage); else they are written straight into the caller's outputs */
  plan_threads threads;     /* the runtime's; zeroed: serial */
  bool views_share;         /* a view step whose input dies there gives its output the input's buffer and
                               becomes a nop (the graph executor's __nop, as TVM's graph plan) */
  bool views_of_inputs;     /* with views_share: a view of main's input or of a constant (read only for
                               the whole run) is that tensor's data, and its step a nop (aot) */
} plan_request;

typedef struct lowered_plan {
  plan_tensor *tensors;
  size_t n_tensors, cap_tensors;
  plan_const *consts;
  size_t n_consts, cap_consts;
  plan_kernel *kernels;
  size_t n_kernels, cap_kernels;
  plan_step *steps;
  size_t n_steps, cap_steps;
  plan_io *inputs, *outputs;
  size_t n_inputs, n_outputs;
  irm_mem_buffer_ *buffers; /* placed by the memory planner */
  size_t n_buffers, cap_buffers;
  irm_mem_algo_ algo;     /* the algorithm that placed them */
  size_t workspace_bytes; /* the extent of the placed buffers */
  char *prelude;          /* C every generated file needs once, before the kernels */
  char *kernels_c;        /* the kernels' C definitions */
  irm_cc_isa_ isa;        /* what the target's C code may use (features "" when unknown) */
  plan_threads threads;   /* the request's */
  bool cblas;             /* the target says -libs=cblas: the library links OpenBLAS and sets its threads */
} lowered_plan;

/* Lowers main of the final module into *p (zeroed first) as req asks.
 * Errors carry req->who as context: TypeError, ValueError (main's shape,
 * its types, external functions), the kernel generator's errors,
 * MemoryError. On failure *p is freed. */
int irm_plan_lower_(const irm_module *mod, const plan_request *req, lowered_plan *p);
void irm_plan_free_(lowered_plan *p);

/* Whether main has a Compiler attribute: an external codegen made its
 * code, so an executor has nothing to lower. */
bool irm_plan_main_is_external_(const irm_module *mod);

/* BYOC: every external function main calls (a GlobalVar of a function
 * with a Compiler) has its symbol defined by a ".c" artifact of artifacts
 * (the external codegens' output); the build checks this before
 * executor.codegen, so a missing symbol is a build error naming it, not a
 * link failure. Errors: ValueError, TypeError (a global_symbol that is not
 * a string). */
int irm_plan_check_externs_(const irm_module *mod, const irm_object *artifacts);

/* The runtime's threads from cfg (its runtime kind's num-threads and
 * thread-affinity options): crt, or a kind without num-threads, gives
 * serial code; num-threads 0 splits for the CPUs this build process may
 * use. Errors: TypeError (an option of the wrong type). */
int irm_plan_threads_of_(const irm_compilation_config *cfg, plan_threads *out);

/* Appends to a metadata JSON object being written `, "num_threads": N,
 * "parallel": B, "thread_affinity": B` (B: true/false; parallel: whether
 * the code calls a pool, set with tvmgen_<m>_set_pool), and for a cblas
 * library `"blas_threads": "tvmgen_<m>_set_blas_threads"`. */
void irm_plan_threads_json_(const lowered_plan *p, const char *mod_name, irm_text_buf *b);

/* Appends the definitions parallel code needs once per library (after
 * every file's prelude has declared them): the pool pointer and
 * `int32_t tvmgen_<mod_name>_set_pool(const irm_parallel_pool *)` (not
 * for serial code); for a cblas library, serial or not,
 * `int32_t tvmgen_<mod_name>_set_blas_threads(int32_t n)`, which hands n
 * (at least 1) to openblas_set_num_threads, so OpenBLAS runs with the
 * module's count instead of a pool of every CPU (docs/threads.md). */
void irm_plan_emit_pool_(const lowered_plan *p, const char *mod_name, irm_text_buf *b);

/* Appends `"kernel_isa": "neon"` (the vector path runtime/kernels take
 * under the target's flags, when known) and `"schedules": [...]` to a
 * metadata JSON object being written:
 * one object per schedule record of p's kernels, in kernel order
 * (docs/kernels.md, "Schedules"). Out of memory marks b failed. */
void irm_plan_schedules_json_(const lowered_plan *p, irm_text_buf *b);
/* Appends s as a JSON string (quotes, backslashes and control bytes escaped). */
void irm_plan_json_str_(irm_text_buf *b, const char *s);

/* Registers codegen.dedup_kernels (bool, default true): a module attribute
 * and the PassContext option migrating onto it; false gives one kernel per
 * distinct Primitive function (kernel_dedup.c). */
int irm_register_kernel_dedup_settings_(void);

/* The C element type of dtype, NULL when unsupported. */
const char *irm_plan_ctype_(DLDataType dtype);

#endif
