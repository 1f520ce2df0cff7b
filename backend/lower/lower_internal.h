/* Private to backend/lower/: the walk over main that lower.c (values,
 * steps, inputs, outputs, buffers) and lower_kernels.c (kernels: C
 * generated, constants lifted, external functions) share. */
#ifndef IRM_BACKEND_LOWER_INTERNAL_H
#define IRM_BACKEND_LOWER_INTERNAL_H

#include "plan.h"

/* The IR behind a kernel while main is walked (the plan keeps none). */
typedef struct kernel_ir {
  irm_object *func; /* the Primitive function with its tensor constants lifted into parameters, or the
                       external function (owned) */
  size_t next_same; /* kernel_dedup.c: the next kernel of the same structural hash, SIZE_MAX: none */
} kernel_ir;

/* What a callee of main's calls runs: its kernel, and the Constants lifted
 * out of that callee (the arguments after the call's own; two callees
 * sharing a kernel each have theirs). An entry of the walk's kernels. */
typedef struct kernel_use {
  irm_ptr_entry_ base; /* key: the Primitive Function, or the external function */
  size_t kernel;
  irm_object **lifted; /* in parameter order (the Constants borrowed, the array owned) */
  size_t n_lifted;
} kernel_use;

typedef struct dedup_bucket dedup_bucket;

typedef struct lower_walk {
  lowered_plan *p;
  const plan_request *req;
  const irm_module *mod;
  irm_object *main;
  irm_ptr_table_ values, kernels; /* node -> value_entry; Function -> kernel_use */
  size_t *ids;
  size_t n_ids, cap_ids;
  kernel_ir *kir; /* per kernel of p */
  size_t cap_kir;
  irm_text_buf kernels_c;
  irm_object *params;        /* the module's `params` Map, borrowed (may be NULL) */
  bool dedup;                /* codegen.dedup_kernels: structurally equal fused functions share a kernel */
  dedup_bucket *buckets;     /* kernel_dedup.c: the kernels by structural hash */
  irm_sched_tuning_ *tuning; /* tune.database opened (tune/tune_build.h); NULL: the default rule */
} lower_walk;

/* Grows *arr (of *cap elements of size bytes) to hold n + 1. */
int irm_plan_grow_(void **arr, size_t *cap, size_t n, size_t size);

/* type (a TensorType, else an error naming what) as a plan type: TypeError
 * for another type or an unsupported dtype, MemoryError. what NULL: no
 * checks (another type gives a type of no dtype and no shape). */
int irm_plan_type_of_(const irm_object *type, const char *what, plan_type *out);

/* The kernel of a call in main: of the Primitive function callee (its C
 * generated unless an earlier kernel's function is structurally equal to
 * it, kernel_dedup.c), or of the external function the GlobalVar callee
 * names. *use borrowed from the walk. */
int irm_lower_fused_kernel_(lower_walk *w, irm_object *callee, const kernel_use **use);
int irm_lower_external_kernel_(lower_walk *w, irm_object *call, const kernel_use **use);

/* ValueError when an external function's global_symbol is a name the
 * generated code defines for the module (tvmgen_<m>_run, ...) or for a
 * kernel (<kernel>_packed, <kernel>_c<k>, ...), naming both; the one list
 * of those names is in lower_kernels.c. Run once every kernel is known. */
int irm_lower_check_symbols_(const lower_walk *w);

/* ---- kernel deduplication (kernel_dedup.c) ---- */

/* Whether mod asks for deduplicated kernels (codegen.dedup_kernels: the
 * module attribute, else the PassContext's, else true). TypeError for a
 * value that is not a bool. */
int irm_lower_dedup_setting_(const irm_module *mod, bool *on);

/* The kernel of w whose function is structurally equal to func (a typed
 * Primitive function, its tensor constants lifted), *kernel SIZE_MAX when
 * none; *hash func's structural hash, for irm_lower_dedup_add_. Errors:
 * MemoryError, the structural hooks' errors. */
int irm_lower_dedup_find_(lower_walk *w, const irm_object *func, uint64_t *hash, size_t *kernel);

/* Files kernel (of function w->kir[kernel].func) under hash. MemoryError. */
int irm_lower_dedup_add_(lower_walk *w, uint64_t hash, size_t kernel);

/* Frees the walk's buckets. */
void irm_lower_dedup_free_(lower_walk *w);

/* The symbol of external function name: its global_symbol (held by *gs,
 * released by the caller), else name. TypeError for a non-string, ValueError
 * for a symbol that is no C identifier or a reserved one (codegen/c_text.h). */
int irm_lower_external_symbol_(const char *name, const irm_object *func, irm_any *gs, const char **symbol);

#endif
