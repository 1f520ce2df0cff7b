/* Private to backend/: the C kernel generator (backend/codegen/). Lowering
 * (backend/lower/) calls irm_codegen_c_kernel_ once per fused Primitive
 * function and irm_codegen_c_prelude_ once per generated file;
 * backend/builtins.c registers the built-in ops' generators.
 *
 * A kernel is one C function
 *
 *   static int32_t <symbol>(const T0 *restrict in0, ..., T *restrict out0, ..., void *restrict scratch)
 *
 * with one pointer per tensor parameter of the function (in order), one per
 * output (1, or the fields of a tuple result flattened in order) and the
 * kernel's scratch area (info->scratch_bytes, 64-byte aligned by the
 * caller; NULL may be passed when it is 0). T is the element C type: float
 * (float32), int32_t, int8_t, uint8_t, uint8_t for bool, and uint16_t
 * for float16, which converts at the boundary and computes in float32
 * (docs/codegen.md). It returns 0, or nonzero when an integer
 * division by zero happened (the evaluator's ValueError; the outputs are
 * then unspecified). The code never allocates. Constants inside the
 * function become static const arrays emitted before the kernel, named
 * <symbol>_c<k>. docs/codegen.md describes the contract and FCodegenC.
 *
 * Thread safety: both functions may run on any thread at once (they read
 * the op registry and call FCodegenC functions, which must allow that). */
#ifndef IRM_BACKEND_CODEGEN_C_H
#define IRM_BACKEND_CODEGEN_C_H

#include <stddef.h>

#include "irm_internal.h"
#include "schedule.h"

typedef struct irm_c_kernel_info_ {
  size_t n_inputs;      /* tensor parameters of the function, in order */
  size_t n_outputs;     /* 1, or the fields of a tuple result, flattened in order */
  size_t scratch_bytes; /* bytes the kernel needs for its intermediates (0 if none) */
  /* the schedule record of each runtime/kernels conv call the kernel makes,
   * in emission order (schedule.h); owned by the caller after success
   * (irm_free), NULL when none */
  irm_sched_record_ *schedules;
  size_t n_schedules;
} irm_c_kernel_info_;

/* How kernels are generated beyond the target: threads, as cg_call's
 * (0: serial code; N: code calling irm_parallel_for on IRM_CG_POOL, split
 * for N threads). */
typedef struct irm_c_kernel_opts_ {
  int threads;
  irm_sched_tuning_ *tuning; /* the build's tuning database (schedule.h); NULL: the default rule */
} irm_c_kernel_opts_;

/* Appends to out the C definition of one kernel computing func (a typed
 * dataflow Function whose params are tensors, FuseOps' Primitive functions
 * included), named symbol (a C identifier); fills *info. target (a Target,
 * borrowed; NULL: plain "c") selects options: "-libs=cblas" makes nn.dense
 * and nn.conv2d call OpenBLAS. opts (borrowed; NULL: serial) the threads. Errors: ValueError "op 'X' in function
 * 'SYMBOL' has no FCodegenC: ..." (with how to give it one), TypeError
 * naming the construct and the function (untyped nodes, tuple-valued
 * parameters, calls of functions), errors of the ops' FCodegenC
 * functions with the op named, MemoryError. On failure out may have
 * gained text (the caller discards it), *info is unspecified and owns
 * nothing. */
int irm_codegen_c_kernel_(const irm_object *func, const char *symbol, const irm_object *target,
                          const irm_c_kernel_opts_ *opts, irm_text_buf *out, irm_c_kernel_info_ *info);

/* Appends what every generated C file needs once, before its kernels: the
 * includes (stdint.h, math.h, string.h, and cblas.h when one of the
 * targets (borrowed; n_targets may be 0, targets then NULL) has
 * -libs=cblas) and the static inline helpers the kernels call. Errors:
 * MemoryError. */
int irm_codegen_c_prelude_(const irm_object *const *targets, size_t n_targets, irm_text_buf *out);

/* Whether target (may be NULL) lists "cblas" in its libs option. */
int irm_codegen_c_target_cblas_(const irm_object *target);

/* Gives every built-in op its FCodegenC (backend/builtins.c calls it);
 * skips ops that already have one. */
int irm_register_codegen_c_builtins_(void);

/* Gives the blocked convs their FTuneSpace (tune_space.c); skips ops that
 * already have one. */
int irm_register_tune_spaces_(void);

/* Registers codegen.CKernel and codegen.CPrelude (codegen_c_globals.c). */
int irm_register_codegen_c_globals_(void);

#endif
