/* The C kernel walker's state (codegen_c.c), shared with the emission of
 * its elementwise trees (codegen_c_ew.c). Private to backend/codegen. */
#ifndef IRM_CODEGEN_C_WALKER_H
#define IRM_CODEGEN_C_WALKER_H

#include "backend_internal.h"
#include "codegen_c_internal.h"
#include "codegen_c_plugin.h"

#define CG_MAX_SYMBOL 200

typedef enum node_kind { N_PARAM, N_CONST, N_CALL } node_kind;

typedef struct cg_node {
  const irm_object *expr;
  node_kind kind;
  cg_tensor t;
  char name[CG_MAX_SYMBOL + 24];
  size_t nargs, *args;
  cg_fcodegen gen;   /* calls: how the op generates C */
  size_t uses, user; /* use count; the (last) user's index */
  int inlined;       /* an elementwise call folded into its user's expression */
  int materialized;  /* has a buffer */
  int64_t out_index; /* the output it writes, -1 */
  size_t offset;     /* scratch offset of an intermediate */
  int alias; /* 1: a reshape viewing its input's buffer; 2: an anchor writing an output in place; 3: an anchor writing its
               tail's; 4: a strided_slice of a contiguous range, a pointer view_at elements into its input; 5: a
               concatenate its transpose reads in parts (t.parts), or a view of one: no buffer */
  size_t view_at;
  size_t tail;     /* an anchor computing its users' epilogue: 1 + the index of the tail's last node, else 0 */
  size_t tail_of;  /* that last node: 1 + the anchor's index, else 0 */
  cg_epilogue epi; /* the anchor's epilogue (bias and residual as node indices + 1 until emission) */
  size_t epi_bias, epi_res;
  int half;                /* float16 in the IR: t.dt says float32, the kernel computes in float (see tensor_of) */
  const char **part_names; /* a concatenation read in parts (t.parts): its arguments' names (owned) */
} cg_node;

typedef struct walker {
  const irm_object *func;
  const char *symbol;
  int cblas;
  int kernel_block;          /* runtime/kernels' block under the target's flags, 0 unknown */
  irm_text_buf *file_scope;  /* while emitting: includes the kernels ask for */
  cg_schedules sched;        /* the generators' schedule records */
  int threads;               /* irm_c_kernel_opts_'s */
  irm_sched_tuning_ *tuning; /* irm_c_kernel_opts_'s */
  size_t tasks;              /* task functions emitted (cg_call's) */
  cg_node *nodes;
  size_t n, cap;
  irm_ptr_table_ memo, lets;
  size_t *outputs;
  size_t n_outputs, cap_outputs;
  size_t n_consts;
  size_t depth;
  size_t *half_out; /* per output: the scratch offset of a float16 output's float buffer */
} walker;

static inline int irm_cg_is_ew_(const cg_node *nd) {
  return nd->kind == N_CALL && irm_cg_fcodegen_is_elemwise_(&nd->gen);
}

/* A cg_call with the kernel's fields (symbol, block, file scope, threads,
 * schedules, tuning, tasks) and nothing of any op. */
void irm_cg_walker_kernel_call_(walker *w, cg_call *c);

/* The cg_call of node nd (its inputs' tensors in in[]). */
void irm_cg_walker_call_(walker *w, const cg_node *nd, cg_tensor *in, cg_call *c);

/* The loop nest of the elementwise tree rooted at node idx: its inlined
 * calls one expression, split over threads when the kernel is parallel. */
int irm_cg_walker_emit_ew_(walker *w, size_t idx, irm_text_buf *b);

/* When the kernel only moves channels between blocked tensors
 * (channel_map.c): appends its one statement block to out and sets
 * *done; else *done 0 and nothing appended. Errors: MemoryError. */
int irm_cg_channel_map_emit_(walker *w, irm_text_buf *out, int *done);

#endif
