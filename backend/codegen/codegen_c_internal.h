/* Private to backend/codegen/: what the kernel walker (codegen_c.c) and the
 * op generators (the family files elemwise.c, nn.c, ...) share. An op generator sees one call
 * as a cg_call: the C names, element types and shapes of its input and
 * output buffers, its checked attributes, and where its own scratch starts.
 * Elementwise ops give a scalar expression (so chains fuse into one loop);
 * the others give the statements that fill the output buffer. */
#ifndef IRM_BACKEND_CODEGEN_C_INTERNAL_H
#define IRM_BACKEND_CODEGEN_C_INTERNAL_H

#include <stdint.h>

#include "codegen_c.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm/tensor.h"

#define CG_MAX_NDIM IRM_TENSOR_MAX_NDIM
#define CG_MAX_INPUTS IRM_NATIVE_MAX_ARGS

/* The element types kernels handle. */
typedef enum cg_dt { CG_F32, CG_I32, CG_I8, CG_U8, CG_BOOL, CG_F64, CG_I64, CG_F16, CG_BAD } cg_dt;

cg_dt irm_cg_dt_of_(DLDataType d);
/* "float", "int32_t", "int8_t", "uint8_t" ("uint8_t" for bool), "double", "int64_t". */
const char *irm_cg_ctype_(cg_dt dt);
/* "float32", "int32", ...: the dtype's name. */
const char *irm_cg_dtname_(cg_dt dt);
/* The dtype of a name ("float32", ...); CG_BAD for another. */
cg_dt irm_cg_dt_parse_(const char *name);
static inline int irm_cg_is_int_(cg_dt dt) { return dt == CG_I32 || dt == CG_I8 || dt == CG_U8 || dt == CG_I64; }
static inline int irm_cg_is_float_(cg_dt dt) { return dt == CG_F32 || dt == CG_F64; }
static inline size_t irm_cg_dt_bytes_(cg_dt dt) {
  return dt == CG_F64 || dt == CG_I64 ? 8 : dt == CG_F32 || dt == CG_I32 ? 4 : dt == CG_F16 ? 2 : 1;
}

/* One buffer: a C identifier (or expression), its element type and shape. */
typedef struct cg_tensor {
  const char *name;
  cg_dt dt;
  int32_t ndim;
  const int64_t *shape;
  int64_t numel;
  /* n_parts > 0: no buffer of its own but the concatenation of parts, each
   * numel / n_parts contiguous elements; its first axis longer than 1 has
   * n_parts entries, one a part (the walker hands only transpose such an
   * input: it reads the parts in place of the concatenation's copy) */
  const char *const *parts;
  int32_t n_parts;
} cg_tensor;

/* An elementwise tail a generator computes before it stores (the conv
 * kernels' fused epilogues, runtime/kernels/irm_kernel_epilogue.h), which
 * the walker takes from the op's users when the op's generator says it
 * can (irm_cg_takes_epilogue_): out = act(op(...) + bias + residual). */
typedef enum cg_act { CG_ACT_NONE, CG_ACT_RELU, CG_ACT_CLIP, CG_ACT_LEAKY } cg_act;
typedef struct cg_epilogue {
  const char *bias;     /* one value per output channel, in the output's channel blocks; NULL: none */
  const char *residual; /* a buffer of the output's shape; NULL: none */
  cg_act act;
  double lo, hi; /* CG_ACT_CLIP */
  double alpha;  /* CG_ACT_LEAKY */
} cg_epilogue;

/* Where the generators of one kernel append their schedule records. */
typedef struct cg_schedules {
  irm_sched_record_ *items;
  size_t n, cap;
} cg_schedules;

/* One call of an op, as its generator sees it. */
typedef struct cg_call {
  const char *op;          /* the op's name */
  const char *symbol;      /* the kernel's name, for messages */
  const irm_object *attrs; /* the call's checked attributes (a Map; may be NULL) */
  size_t n_in;
  const cg_tensor *in;
  cg_tensor out;
  const char *scratch; /* a C expression (char *) where the op's own scratch starts, 64-byte aligned */
  int cblas;           /* the target has -libs=cblas */
  /* runtime/kernels' block (IRM_KERNEL_BLOCK) under the target's flags, 0
   * when unknown; and where file-scope C goes (includes, constants), NULL
   * when the caller has no file around the kernel (a generator then uses
   * plain loops). irm_cg_use_kernels_ checks both. */
  int kernel_block;
  irm_text_buf *file_scope;
  const cg_epilogue *epilogue; /* NULL unless takes_epilogue said yes */
  cg_schedules *schedules;     /* the kernel's records; NULL: not recorded (FCodegenC's packed path) */
  /* Threads the generated code splits its work for (irm_cg_parallel_):
   * 0, serial code; else the kernel calls runtime/'s irm_parallel_for on
   * IRM_CG_POOL, which the file defines, in chunks sized for this many
   * threads. tasks counts the kernel's task functions (their names). */
  int threads;
  size_t *tasks;
  irm_sched_tuning_ *tuning; /* the build's tuning database (schedule.h); NULL: the default rule */
  const irm_object *expr;    /* the IR call (a plugin's FTuneSpace reads it); NULL on FCodegenC's packed path */
} cg_call;

typedef struct cg_op {
  const char *name;
  /* Elementwise ops: appends the scalar C expression of one output element
   * (of the output's C type, rounded to it) from args[i], the expressions
   * of the matching input elements (of their C types). */
  int (*expr)(const cg_call *c, const char *const *args, irm_text_buf *out);
  /* Elementwise ops whose inputs do not broadcast as NumPy's (NULL):
   * map[d] is the output dimension input i's dimension d runs along, -1
   * when it stays at 0. */
  void (*dim_map)(const cg_call *c, size_t i, int32_t *map);
  /* Other ops: appends statements filling c->out from c->in; *scratch the
   * bytes used at c->scratch. */
  int (*stmts)(const cg_call *c, irm_text_buf *out, size_t *scratch);
} cg_op;

/* Nonzero when the native generator of c's op computes a cg_epilogue for
 * this call (c->epilogue then set; c->out the tail's last buffer): the
 * blocked convs on the kernels' path (conv.c). */
int irm_cg_takes_epilogue_(const cg_call *c);
int irm_cg_conv_nchwc_takes_epilogue_(const cg_call *c);
int irm_cg_winograd_takes_epilogue_(const cg_call *c);

/* Appends the declarations `const irm_kernel_epilogue e` and `const int
 * flags` (irm_kernel_epilogue.h) of epilogue e (NULL: none). */
void irm_cg_epilogue_decl_(const cg_epilogue *e, irm_text_buf *b);

/* The op tables of each family file (elemwise.c, compare.c, ...: the same
 * names as ir/dataflow/ops/'s op definitions), and their lengths. */
extern const cg_op irm_cg_elemwise_ops_[];
extern const size_t irm_cg_elemwise_ops_count_;
extern const cg_op irm_cg_compare_ops_[];
extern const size_t irm_cg_compare_ops_count_;
extern const cg_op irm_cg_reduce_ops_[];
extern const size_t irm_cg_reduce_ops_count_;
extern const cg_op irm_cg_nn_ops_[];
extern const size_t irm_cg_nn_ops_count_;
extern const cg_op irm_cg_conv_ops_[];
extern const size_t irm_cg_conv_ops_count_;
extern const cg_op irm_cg_winograd_ops_[];
extern const size_t irm_cg_winograd_ops_count_;
extern const cg_op irm_cg_pool_ops_[];
extern const size_t irm_cg_pool_ops_count_;
extern const cg_op irm_cg_conv3d_ops_[];
extern const size_t irm_cg_conv3d_ops_count_;
/* The lowest value of dt as C text (a double; "-INFINITY" for floats): where a max starts (pool.c). */
const char *irm_cg_lowest_text_(cg_dt dt);
extern const cg_op irm_cg_shape_ops_[];
extern const size_t irm_cg_shape_ops_count_;
extern const cg_op irm_cg_image_ops_[];
extern const size_t irm_cg_image_ops_count_;
extern const cg_op irm_cg_layout_ops_[];
extern const size_t irm_cg_layout_ops_count_;
extern const cg_op irm_cg_qnn_ops_[];
extern const size_t irm_cg_qnn_ops_count_;
extern const cg_op irm_cg_qnn_nchwc_ops_[];
extern const size_t irm_cg_qnn_nchwc_ops_count_;

/* The native generator of a built-in op's FCodegenC function (the object
 * irm_register_codegen_c_builtins_ set), or NULL for any other value. */
const cg_op *irm_cg_native_of_(const irm_object *fcodegen);

/* NumPy's broadcasting map of an input of in_ndim dims into an output of
 * out_shape (dimensions aligned at the right; a size-1 input dimension
 * against a larger one maps to -1). */
void irm_cg_broadcast_map_(const int64_t *in_shape, int32_t in_ndim, const int64_t *out_shape, int32_t out_ndim,
                           int32_t *map);

/* Emits the loop nest computing the elementwise tree of one output:
 * the statements for `out[i] = <expr>` where expr is built by the caller.
 * Leaves are buffers read at offsets given by strides over the output's
 * dimensions. */
typedef struct cg_leaf {
  const char *name;
  cg_dt dt;                     /* its element type (the walker's elementwise split reads it) */
  int64_t strides[CG_MAX_NDIM]; /* elements per step of each output dimension */
} cg_leaf;

/* The access text of leaf k inside the loop nest (valid while emitting). */
typedef int (*cg_expr_fn)(void *ctx, const char *const *leaf_access, irm_text_buf *out);

/* Appends { loops { out[o] = expr; } }; expr built by fn from the leaves'
 * access texts. */
int irm_cg_emit_loops_(const cg_tensor *out, const cg_leaf *leaves, size_t n_leaves, cg_expr_fn fn, void *ctx,
                       irm_text_buf *b);

/* irm_cg_emit_loops_ whose outermost loop (after merging) runs over
 * [begin, end) of its extent, for irm_cg_parallel_: *items is that
 * extent, or 0 when there is no loop to split (the loops then run whole,
 * as irm_cg_emit_loops_'s). */
int irm_cg_emit_loops_split_(const cg_tensor *out, const cg_leaf *leaves, size_t n_leaves, cg_expr_fn fn, void *ctx,
                             irm_text_buf *b, int64_t *items);

/* The identity expression (broadcast_to, nn.dropout): the input element. */
int irm_cg_identity_expr_(const cg_call *c, const char *const *args, irm_text_buf *out);

/* The dim_map of the _like ops (cast_like, broadcast_to_like): input 0
 * broadcasts as NumPy's, the others stay at element 0 (only their type
 * counts). */
void irm_cg_like_map_(const cg_call *c, size_t i, int32_t *map);

/* ---- text ---------------------------------------------------------------- */

/* Appends the expression storing x (a C expression of type double, or of
 * int64_t for irm_cg_from_int64_) as the dtype to: floats round, ints
 * saturate from double and wrap from int64, bool is x != 0 (the
 * evaluator's stores). */
void irm_cg_from_double_(cg_dt to, const char *x, irm_text_buf *b);
void irm_cg_from_int64_(cg_dt to, const char *x, irm_text_buf *b);

/* The 4-D layouts the nn ops and pools read: element strides of N, C, H, W
 * in a tensor of shape (n, c, h, w) laid out NCHW (nhwc 0) or NHWC. */
void irm_cg_nchw_strides_(int nhwc, int64_t c, int64_t h, int64_t w, int64_t st[4]);

/* Row-major element strides of shape (nd dims) into st. */
void irm_cg_row_major_(const int64_t *shape, int32_t nd, int64_t *st);

/* Whether this call may run runtime/kernels' micro-kernels with a channel
 * block of `block` lanes: float32 data, a file scope, and the target's
 * block equal to it. If so, appends to the file scope the include of each
 * header (a NULL-terminated list, such as "irm_kernel_conv2d.h") and a
 * check that the file is compiled for that block. Returns 1 or 0 (0 on
 * out-of-memory too, which the file scope's buffer reports). */
int irm_cg_use_kernels_(const cg_call *c, int64_t block, const char *const *headers);

/* The work one element a memory-bound kernel moves counts for in
 * irm_cg_chunk_ (a multiply-add counts 1). */
#define CG_WORK_PER_ELEMENT 8.0

/* A kernel that can choose its items (a transpose joins outer axes) takes
 * at least this many a thread, so that irm_cg_chunk_ can even them out. */
#define CG_SPLIT_ITEMS_PER_THREAD 8

/* The chunk, in items, that splits `items` items of `work` operations in
 * all for c->threads threads: the items whole (one chunk, run inline) for
 * serial code or below a size where a dispatch would cost more than it
 * saves; else about four chunks a thread (so a thread the OS delays
 * leaves little for the others to wait on). */
int64_t irm_cg_chunk_(const cg_call *c, int64_t items, double work);

/* Appends the statements `stmts` run over items [begin, end) of a split of
 * `items` in chunks of `chunk` (irm_cg_chunk_; `work` is what it was given):
 * `stmts` sees the ints begin and end, the call's buffers by their names
 * (inputs, output, the epilogue's), and the kernel's scratch. Serial (one
 * chunk, or c->threads 0): one block over [0, items) (with the int slot 0,
 * for irm_cg_parallel_slots_'s statements). Parallel: a range function at
 * file scope taking the buffers as restrict parameters, a task calling it
 * with the buffers from a pointer array, and a call of irm_parallel_for;
 * below CG_SERIAL_COPY_WORK, also a call of the range function over
 * [0, items) for when irm_parallel_serial (the bounds then constants).
 * Errors: MemoryError (through the buffers). */
int irm_cg_parallel_(const cg_call *c, irm_text_buf *b, int64_t items, int64_t chunk, double work, const char *stmts);

/* irm_cg_parallel_ capturing the n buffers names[i] of C element types
 * types[i] ("const float", ...) instead of c's inputs, output and
 * epilogue (the walker's elementwise loops, whose leaves are no call's). */
int irm_cg_parallel_with_(const cg_call *c, irm_text_buf *b, int64_t items, int64_t chunk, double work,
                          const char *stmts, const char *const *names, const char *const *types, size_t n);

/* irm_cg_parallel_ whose chunks take the lowest free slot while they run
 * (irm_parallel_slot_claim) rather than their index, so the slots in use
 * are as many as threads run at once and stay in cache: for a generator
 * giving each chunk its own scratch. busy: a C expression of a char
 * pointer into the kernel's scratch, irm_cg_slot_flags_bytes_(items,
 * chunk) bytes of flags (the generated code clears them before the
 * split). */
int irm_cg_parallel_slots_(const cg_call *c, irm_text_buf *b, int64_t items, int64_t chunk, double work,
                           const char *stmts, const char *busy);

/* The bytes of irm_cg_parallel_slots_'s flags for a split of items in
 * chunks of chunk. */
size_t irm_cg_slot_flags_bytes_(int64_t items, int64_t chunk);

/* Appends record r to c's collector (none: does nothing). Errors:
 * MemoryError. */
int irm_cg_record_schedule_(const cg_call *c, const irm_sched_record_ *r);
/* The schedule record (default choices) of a blocked conv call the
 * kernels take: 1 and *r filled, else 0 (tune_space.c's FTuneSpace). */
int irm_cg_conv_nchwc_record_(const cg_call *c, irm_sched_record_ *r);
int irm_cg_winograd_record_(const cg_call *c, irm_sched_record_ *r);

/* ValueError "<op> in function '<symbol>': <msg>". */
int irm_cg_fail_(const cg_call *c, const char *fmt, ...) IRM_PRINTF_(2, 3);

#endif
