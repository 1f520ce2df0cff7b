/* Private to the built-in ops (the family files of ir/dataflow/ops/): how an op is described, the
 * argument checks every op shares, broadcasting, typed element access and
 * the messages of type errors. Attributes are read with the decoders of
 * irm/dataflow/op_attrs.h. */
#ifndef IRM_IR_OPS_UTIL_H
#define IRM_IR_OPS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "irm/dataflow/type.h"
#include "irm/kind.h"
#include "irm/dataflow/op.h"
#include "irm/tensor.h"

#define OPS_MAX_NDIM IRM_TENSOR_MAX_NDIM
/* Room for any shape text "(d0, d1, ...)" and a type text around it. */
#define OPS_SHAPE_BUF 512
#define OPS_TYPE_BUF 560

/* Which dtypes an op's tensor arguments may have. */
typedef enum ops_dtypes {
  OPS_ANY_DTYPE, /* all eight */
  OPS_NUMERIC,   /* all but bool */
  OPS_FLOAT      /* float32, float16, float64 */
} ops_dtypes;

/* One call attribute: its schema entry. default_text is parsed with
 * irm_option_parse_text ("1,1" for array<int>); NULL: no default. */
typedef struct ops_attr_def {
  const char *name;
  irm_option_type type;
  const char *default_text;
  const char *doc;
  int required; /* must be given (no default) */
} ops_attr_def;

typedef struct ops_op_def ops_op_def;

/* One call of FInferType or FEvaluate, after the shared checks. */
typedef struct ops_ctx {
  const ops_op_def *def;
  const irm_object *attrs;  /* validated, defaults filled in */
  irm_object *const *types; /* nargs tensor types, borrowed */
  size_t nargs;             /* def->num_inputs, or the count of a variadic call */
} ops_ctx;

/* Infers the result type: *out a NEW tensor type, or an error naming the op
 * and the argument. */
typedef int (*ops_infer_fn)(const ops_ctx *c, irm_object **out);

/* Computes out (already made, zeroed, of the inferred type) from in (one
 * tensor per argument, of c->types). */
typedef int (*ops_eval_fn)(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out);

struct ops_op_def {
  const char *name;
  int32_t num_inputs;
  const char *const *arg_names; /* num_inputs names: "data", "weight", ... */
  irm_op_pattern pattern;
  ops_dtypes dtypes; /* checked on every argument before infer */
  const ops_attr_def *attrs;
  size_t n_attrs;
  ops_infer_fn infer;
  ops_eval_fn eval;
};

/* The op tables of each family file (elemwise.c, compare.c, ...: the same
 * names as backend/codegen/'s generators), and their lengths. */
extern const ops_op_def irm_ops_elemwise_[];
extern const size_t irm_ops_elemwise_count_;
extern const ops_op_def irm_ops_compare_[];
extern const size_t irm_ops_compare_count_;
extern const ops_op_def irm_ops_reduce_[];
extern const size_t irm_ops_reduce_count_;
extern const ops_op_def irm_ops_nn_[];
extern const size_t irm_ops_nn_count_;
extern const ops_op_def irm_ops_conv_[];
extern const size_t irm_ops_conv_count_;
extern const ops_op_def irm_ops_winograd_[];
extern const size_t irm_ops_winograd_count_;
extern const ops_op_def irm_ops_pool_[];
extern const size_t irm_ops_pool_count_;
extern const ops_op_def irm_ops_conv3d_[];
extern const size_t irm_ops_conv3d_count_;
extern const ops_op_def irm_ops_shape_[];
extern const size_t irm_ops_shape_count_;
extern const ops_op_def irm_ops_image_[];
extern const size_t irm_ops_image_count_;
extern const ops_op_def irm_ops_layout_[];
extern const size_t irm_ops_layout_count_;
extern const ops_op_def irm_ops_qnn_[];
extern const size_t irm_ops_qnn_count_;
extern const ops_op_def irm_ops_qnn_nchwc_[];
extern const size_t irm_ops_qnn_nchwc_count_;
extern const ops_op_def irm_ops_annotation_[];
extern const size_t irm_ops_annotation_count_;

/* The packed bodies of FInferType and FEvaluate; resource is the
 * ops_op_def. */
int irm_ops_infer_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
int irm_ops_eval_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);

/* ---- text for messages -------------------------------------------------- */

/* "(2, 3)", "(4,)", "()" into buf (OPS_SHAPE_BUF bytes); returns buf. */
const char *irm_ops_shape_text_(const int64_t *shape, int32_t ndim, char *buf);
/* "Tensor[(2, 3), float32]" (or the object's type key) into buf
 * (OPS_TYPE_BUF bytes); returns buf. */
const char *irm_ops_type_text_(const irm_object *type, char *buf);
/* The dtype's name, or "unknown". */
const char *irm_ops_dtype_text_(DLDataType dtype);

/* "argument 2 (weight)" of the op: writes into buf (64 bytes). */
const char *irm_ops_arg_text_(const ops_ctx *c, size_t i, char *buf);

/* TypeError "<op>: argument 1 (data) has dtype int8, argument 2 (weight)
 * float32" unless arguments i and j have the same dtype. */
int irm_ops_same_dtype_(const ops_ctx *c, size_t i, size_t j);

/* TypeError "<op>: argument 2 (weight) must have rank 4 (OIHW), got rank 3"
 * unless argument arg has rank rank; layout (may be NULL) is named. */
int irm_ops_need_rank_(const ops_ctx *c, size_t arg, int32_t rank, const char *layout);

/* Normalizes axis for rank ndim (negative counts from the end): TypeError
 * "<op>: axis 3 is out of range for argument 1 (data) of rank 2". */
int irm_ops_norm_axis_(const ops_ctx *c, size_t arg, int64_t axis, int32_t ndim, int32_t *out);

/* ---- shapes ------------------------------------------------------------- */

/* NumPy broadcasting of a and b (aligned at the right): TypeError
 * "<op>: shapes (2, 3) and (4,) cannot be broadcast". */
int irm_ops_broadcast_(const char *op, const int64_t *a, int32_t na, const int64_t *b, int32_t nb, int64_t *out,
                       int32_t *nout);

/* The type of a two-input broadcasting op: arguments 1 and 2 of one dtype,
 * the broadcast shape, in dtype (NULL: the inputs' dtype). */
int irm_ops_binary_infer_(const ops_ctx *c, const DLDataType *dtype, irm_object **out);

/* Row-major element strides of in, aligned at the right of an out_ndim
 * shape, 0 for broadcast (size 1 or missing) dimensions. */
void irm_ops_broadcast_strides_(const int64_t *in, int32_t in_ndim, const int64_t *out, int32_t out_ndim,
                                int64_t *strides);

/* BROADCAST_LOOP walks the output in row-major order with the input offsets sa/sb
 * (broadcast strides) kept up to date. */
#define BROADCAST_LOOP(shape, ndim, numel, sa, sb, ...)                  \
  do {                                                                   \
    int64_t idx_[OPS_MAX_NDIM] = {0}, ia = 0, ib = 0;                    \
    for (int64_t oi = 0; oi < (numel); oi++) {                           \
      __VA_ARGS__;                                                       \
      for (int32_t d_ = (ndim)-1; d_ >= 0; d_--) {                       \
        ia += (sa)[d_];                                                  \
        ib += (sb)[d_];                                                  \
        if (++idx_[d_] < (shape)[d_]) break;                             \
        ia -= (sa)[d_] * (shape)[d_];                                    \
        ib -= (sb)[d_] * (shape)[d_];                                    \
        idx_[d_] = 0;                                                    \
      }                                                                  \
    }                                                                    \
    (void)ia; /* one-input users read only ia: clang's set-but-unused */ \
    (void)ib;                                                            \
  } while (0)

/* Row-major strides of a shape. */
void irm_ops_strides_(const int64_t *shape, int32_t ndim, int64_t *strides);

/* The most elements a shape the ops accept may have (2^62): sums of a
 * dimension and attribute values (at most INT32_MAX) cannot overflow. */
#define OPS_MAX_NUMEL (INT64_C(1) << 62)

/* The element count of a shape; -1 when it exceeds OPS_MAX_NUMEL. */
int64_t irm_ops_numel_(const int64_t *shape, int32_t ndim);

/* The extent of a window of k taps spaced d apart, d * (k - 1) + 1,
 * saturating at INT64_MAX. */
int64_t irm_ops_dilate_(int64_t k, int64_t d);

/* A tensor type *out (NEW) of dtype and shape: TypeError "<op>: the result
 * shape (...) has more than 2^62 elements". */
int irm_ops_make_type_(const ops_ctx *c, DLDataType dtype, const int64_t *shape, int32_t ndim, irm_object **out);

/* ---- elements ----------------------------------------------------------- */

typedef enum ops_kind { OPS_F32, OPS_F16, OPS_I32, OPS_I8, OPS_U8, OPS_BOOL, OPS_F64, OPS_I64, OPS_BAD } ops_kind;

ops_kind irm_ops_kind_of_(DLDataType dtype);
static inline int irm_ops_kind_is_float_(ops_kind k) { return k == OPS_F32 || k == OPS_F16 || k == OPS_F64; }
static inline ops_kind irm_ops_tensor_kind_(const irm_tensor *t) {
  const DLTensor *dl = irm_tensor_dl(t);
  return dl ? irm_ops_kind_of_(dl->dtype) : OPS_BAD;
}

/* Element i as a double (exact for every dtype) and as an int64 (ints and
 * bool only). */
double irm_ops_load_f64_(const irm_tensor *t, ops_kind k, int64_t i);
int64_t irm_ops_load_i64_(const irm_tensor *t, ops_kind k, int64_t i);

/* Stores an integer, wrapping to the width of an int dtype (bool: v != 0;
 * floats: converted). */
void irm_ops_store_i64_(irm_tensor *t, ops_kind k, int64_t i, int64_t v);

/* Stores a double: floats round (float16 to nearest even), ints truncate
 * toward zero and wrap (NaN gives 0, values beyond int64 saturate first),
 * bool is v != 0. */
void irm_ops_store_f64_(irm_tensor *t, ops_kind k, int64_t i, double v);

/* The smallest value of a dtype (-inf for floats), as a double. */
double irm_ops_lowest_(ops_kind k);

/* FEvaluate of an op whose result has its first input's bytes (reshape,
 * squeeze, dropout, the compiler annotations): copies them. */
int irm_ops_copy_eval_(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out);

#endif
