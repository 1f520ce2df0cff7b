/* Private to backend/: what the AOT code generator's files share
 * (aot_analyze.c reads main, aot_emit.c writes the C source,
 * aot_codegen.c is executor.codegen and writes the other artifacts). */
#ifndef IRM_BACKEND_AOT_INTERNAL_H
#define IRM_BACKEND_AOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "backend_internal.h"
#include "irm/tensor.h"
#include "codegen_c.h"
#include "memory_plan.h"

typedef enum aot_tensor_kind { AOT_INPUT, AOT_CONST, AOT_TEMP } aot_tensor_kind;

/* One tensor main's dataflow names. */
typedef struct aot_tensor {
  aot_tensor_kind kind;
  size_t index;          /* AOT_INPUT: main's param; AOT_CONST: constant; AOT_TEMP: planner buffer */
  irm_object *type;      /* TensorType, borrowed from the module */
  size_t bytes;
  size_t first, last;    /* AOT_TEMP: steps producing and last reading it */
  long out;              /* >= 0: written straight into that output */
} aot_tensor;

/* A constant of main (a bound parameter). */
typedef struct aot_const {
  irm_object *tensor; /* borrowed */
  char *name;         /* the params name (the `params` key, else p<k>) */
} aot_const;

/* One kernel: a distinct Primitive function, or an external function (a
 * module function with a `Compiler` attribute, which main calls through a
 * GlobalVar; its code comes from codegen.ext.<Compiler>: the host code
 * declares it `extern int32_t <symbol>(const T *in..., T *out...)`). */
typedef struct aot_kernel {
  irm_object *func; /* the Primitive function with its tensor constants lifted into parameters, or the
                       external function (owned) */
  bool external;    /* no code generated here, no scratch, no lifted constants */
  irm_object *ret_type; /* external: the type of its calls' results (borrowed from main) */
  irm_object **lifted; /* the lifted Constants of the original function, in parameter order (borrowed) */
  size_t n_lifted;
  char *symbol;
  irm_c_kernel_info_ info;
} aot_kernel;

/* One call of a kernel in main. */
typedef struct aot_step {
  size_t kernel;
  size_t *args; /* tensor ids: info.n_inputs then info.n_outputs */
  long scratch; /* planner buffer of its scratch, or -1 */
} aot_step;

typedef struct aot_io {
  char *name;  /* as given (param name / output name) */
  char *field; /* sanitized C identifier */
  irm_object *type; /* TensorType, borrowed */
  size_t tensor;    /* outputs: the tensor written */
} aot_io;

typedef struct aot_options {
  bool interface_c;   /* interface-api = "c" */
  bool unpacked;      /* unpacked-api */
  bool link_params;
  size_t ws_align, const_align;
  irm_mem_algo_ algo;
  const char *mod_name;
  const char *runtime;
  irm_object *target; /* the default primitive target, borrowed */
} aot_options;

typedef struct aot_program {
  aot_options opt;
  aot_tensor *tensors;
  size_t n_tensors, cap_tensors;
  aot_const *consts;
  size_t n_consts, cap_consts;
  aot_kernel *kernels;
  size_t n_kernels, cap_kernels;
  aot_step *steps;
  size_t n_steps, cap_steps;
  aot_io *inputs, *outputs;
  size_t n_inputs, n_outputs;
  irm_mem_buffer_ *buffers;
  size_t n_buffers, cap_buffers;
  size_t workspace_bytes;
} aot_program;

/* Reads main of the final module into p (opt already filled), kernels
 * generated into kernels_text, and plans the workspace. */
int irm_aot_analyze_(const irm_module *mod, aot_program *p, irm_text_buf *kernels_text);
void irm_aot_program_free_(aot_program *p);

/* BYOC: every external function main calls (a GlobalVar of a function
 * with a Compiler) has its symbol defined by a ".c" artifact of artifacts
 * (the external codegens' output); the build checks this before
 * executor.codegen, so a missing symbol is a build error naming it, not a
 * link failure. Errors: ValueError, TypeError (a global_symbol that is not
 * a string). */
int irm_aot_check_external_symbols_(const irm_module *mod, const irm_object *artifacts);

/* Grows *arr (of *cap elements of size bytes) to hold n + 1. */
int irm_aot_grow_(void **arr, size_t *cap, size_t n, size_t size);

/* The C source (the kernels' text included) and the header. */
int irm_aot_emit_source_(const aot_program *p, const char *kernels_text, irm_text_buf *out);
int irm_aot_emit_header_(const aot_program *p, irm_text_buf *out);
/* Kernel k's packed wrapper <symbol>_packed (irm_crt.h's convention;
 * resource is the kernel's scratch, unused by an external function); exported: without `static` (the
 * graph executor's library, whose runner binds wrappers by name). */
void irm_aot_emit_wrapper_(const aot_kernel *k, bool exported, irm_text_buf *b);
/* The declarations of the external functions (BYOC; docs/codegen.md):
 * extern int32_t <symbol>(const T *in0, ..., T *out0, ...); */
void irm_aot_emit_externs_(const aot_program *p, irm_text_buf *b);
/* main's constants in the params file layout (irm_params.h) as a NEW
 * String of bytes. Errors: ValueError, MemoryError. */
int irm_aot_params_blob_(const aot_program *p, irm_object **out);
/* The metadata JSON (irm_aot_metadata's text). */
void irm_aot_metadata_json_(const aot_program *p, irm_text_buf *out);
/* The C element type of dtype, NULL when unsupported. */
const char *irm_aot_ctype_(DLDataType dtype);

#endif
