/* Private to backend/: the AOT executor's emitter, which reads only the
 * lowered plan (lower/plan.h) and its own options: aot_codegen.c is
 * executor.codegen (options read, main lowered, artifacts made),
 * aot_emit.c writes the C source and the header, aot_kernels.c the C
 * around the kernels that the graph executor's library shares (packed
 * wrappers, external declarations, the params blob). */
#ifndef IRM_BACKEND_AOT_INTERNAL_H
#define IRM_BACKEND_AOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "lower/plan.h"

/* The aot executor's options and what names the generated code. */
typedef struct aot_options {
  bool interface_c; /* interface-api = "c" */
  bool unpacked;    /* unpacked-api */
  bool link_params;
  size_t ws_align;    /* workspace-byte-alignment */
  size_t const_align; /* constant-byte-alignment */
  const char *mod_name;
  const char *runtime;         /* the runtime kind's name */
  const char *executor;        /* the executor kind's name (the metadata's "executor") */
  const size_t *param_offsets; /* link-params: each constant's data offset in the params file */
} aot_options;

/* The C source (the plan's prelude and kernels included) and the header. */
int irm_aot_emit_source_(const lowered_plan *p, const aot_options *o, irm_text_buf *out);
int irm_aot_emit_header_(const lowered_plan *p, const aot_options *o, irm_text_buf *out);
/* Kernel k's packed wrapper <symbol>_packed (irm_crt.h's convention;
 * resource is the kernel's scratch, unused by an external function).
 * hook_step < 0: static (aot's entry point calls it between the hooks);
 * else exported (the graph executor's library, whose runner binds
 * wrappers by name) and calling the kernel between the kernel hooks with
 * step hook_step (the kernel's index). */
void irm_aot_emit_wrapper_(const plan_kernel *k, long hook_step, irm_text_buf *b);
/* The declarations of the external functions (BYOC; docs/codegen.md):
 * extern int32_t <symbol>(const T *in0, ..., T *out0, ...); */
void irm_aot_emit_externs_(const lowered_plan *p, irm_text_buf *b);
/* main's constants in the params file layout (irm_params.h) as a NEW
 * String of bytes. Errors: ValueError, MemoryError. */
int irm_aot_params_blob_(const lowered_plan *p, irm_object **out);
/* ---- units and linked params (aot_units.c, aot_params.c) ---- */

/* The IRM_KERNEL_LINKAGE macro (hidden visibility), the plan's prelude,
 * then its kernels as irm-unit sections (export/export_internal.h):
 * "common" for what lies between them, "kernels_<n>_<family>" for the
 * kernels calling one runtime/kernels routine (at most 32 or about 64 KB
 * of them), each kernel IRM_KERNEL_LINKAGE instead of static;
 * then the "glue" section's marker and the kernels' prototypes: the caller
 * writes the rest of the glue. Errors: MemoryError. */
int irm_aot_emit_kernel_units_(const lowered_plan *p, irm_text_buf *b);
/* The data offset of each of the n entries of a params blob
 * (irm_aot_params_blob_'s). Errors: ValueError (it does not read back). */
int irm_aot_params_offsets_(const irm_object *blob, size_t n, size_t *offsets);
/* tvmgen_<m>_params.s: the params file tvmgen_<m>_params.bin taken in
 * with .incbin at an align-byte boundary, between the hidden symbols
 * tvmgen_<m>_linked_params_data and _end; plain assembler, which the
 * compiler driver assembles without running the C preprocessor. */
void irm_aot_params_asm_(const char *mod_name, size_t align, irm_text_buf *b);
/* The C declarations of those two symbols and the exported accessor
 * const void *tvmgen_<m>_linked_params(size_t *size) (the graph runner's,
 * irm_library.h's IRM_LIBRARY_LINKED_PARAMS). */
void irm_aot_params_externs_(const char *mod_name, irm_text_buf *b);
/* int32_t tvmgen_<m>_check_params(void): the linked blob holds the n
 * constants (name, dtype, shape, size) with their data at offsets; sets
 * the static tvmgen_<m>_params_ready it defines. */
void irm_aot_params_check_(const plan_const *consts, size_t n, const size_t *offsets, const char *mod_name,
                           irm_text_buf *b);
/* The metadata JSON (the text of tvmgen_<mod_name>_metadata). */
void irm_aot_metadata_json_(const lowered_plan *p, const aot_options *o, irm_text_buf *out);

#endif
