/* Private to backend/: what the AOT code generator's files share
 * (aot_emit.c writes the C source, aot_codegen.c is executor.codegen and
 * writes the other artifacts) and what the graph executor's reuse; both
 * read main with the shared analysis of dataflow_plan.h. */
#ifndef IRM_BACKEND_AOT_INTERNAL_H
#define IRM_BACKEND_AOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "dataflow_plan.h"

/* The C source (the kernels' text included) and the header. */
int irm_aot_emit_source_(const dataflow_plan *p, const char *kernels_text, irm_text_buf *out);
int irm_aot_emit_header_(const dataflow_plan *p, irm_text_buf *out);
/* Kernel k's packed wrapper <symbol>_packed (irm_crt.h's convention;
 * resource is the kernel's scratch, unused by an external function); exported: without `static` (the
 * graph executor's library, whose runner binds wrappers by name). */
void irm_aot_emit_wrapper_(const plan_kernel *k, bool exported, irm_text_buf *b);
/* The declarations of the external functions (BYOC; docs/codegen.md):
 * extern int32_t <symbol>(const T *in0, ..., T *out0, ...); */
void irm_aot_emit_externs_(const dataflow_plan *p, irm_text_buf *b);
/* main's constants in the params file layout (irm_params.h) as a NEW
 * String of bytes. Errors: ValueError, MemoryError. */
int irm_aot_params_blob_(const dataflow_plan *p, irm_object **out);
/* The metadata JSON (tvmgen_<mod_name>_metadata's text). */
void irm_aot_metadata_json_(const dataflow_plan *p, irm_text_buf *out);

#endif
