/* Private to backend/lower/: the walk over main that lower.c (values,
 * steps, inputs, outputs, buffers) and lower_kernels.c (kernels: C
 * generated, constants lifted, external functions) share. */
#ifndef IRM_BACKEND_LOWER_INTERNAL_H
#define IRM_BACKEND_LOWER_INTERNAL_H

#include "plan.h"

/* The IR behind a kernel while main is walked (the plan keeps none). */
typedef struct kernel_ir {
  irm_object *func;    /* the Primitive function with its tensor constants lifted into parameters, or the
                          external function (owned) */
  irm_object **lifted; /* the lifted Constants of the original function, in parameter order (borrowed) */
  size_t n_lifted;
} kernel_ir;

typedef struct lower_walk {
  lowered_plan *p;
  const plan_request *req;
  const irm_module *mod;
  irm_object *main;
  irm_ptr_table_ values, kernels; /* node -> value_entry; Function -> kernel_entry */
  size_t *ids;
  size_t n_ids, cap_ids;
  kernel_ir *kir; /* per kernel of p */
  size_t cap_kir;
  irm_text_buf kernels_c;
  irm_object *params; /* the module's `params` Map, borrowed (may be NULL) */
} lower_walk;

/* Grows *arr (of *cap elements of size bytes) to hold n + 1. */
int irm_plan_grow_(void **arr, size_t *cap, size_t n, size_t size);

/* type (a TensorType, else an error naming what) as a plan type: TypeError
 * for another type or an unsupported dtype, MemoryError. what NULL: no
 * checks (another type gives a type of no dtype and no shape). */
int irm_plan_type_of_(const irm_object *type, const char *what, plan_type *out);

/* The kernel of a call in main: of the Primitive function callee (its C
 * generated on first use), or of the external function the GlobalVar
 * callee names. *kernel its index in the plan. */
int irm_lower_fused_kernel_(lower_walk *w, irm_object *callee, size_t *kernel);
int irm_lower_external_kernel_(lower_walk *w, irm_object *call, size_t *kernel);

/* The symbol of external function name: its global_symbol (held by *gs,
 * released by the caller), else name. TypeError for a non-string, ValueError
 * for a symbol that is no C identifier or a reserved one (codegen/c_text.h). */
int irm_lower_external_symbol_(const char *name, const irm_object *func, irm_any *gs, const char **symbol);

#endif
