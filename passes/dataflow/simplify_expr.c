/* SimplifyExpr (dataflow/passes.h): one post-order rewrite per function.
 *
 * x*1, 1*x, x+0, 0+x, x-0 become x only when both the call's checked type
 * and x's are known and equal (so a broadcasting constant that widens x, or
 * a dtype change, is never dropped): run InferType first. Rebuilt nodes get
 * their original's checked type back (every rule here keeps types), so the
 * rules keep firing up a chain of simplifications.
 * reshape(reshape(x)) -> reshape(x) to the outer call's shape;
 * transpose(transpose(x, p), q) -> transpose(x, p∘q), or x when that is the
 * identity (empty axes mean "reverse", as in TVM);
 * add(add(x, c1), c2) -> add(x, c1 + c2) for constants c1, c2 (TVM's
 * SimplifyConsecutiveAdd; the float sum rounds once fewer);
 * nn.pad(x) by nothing on every side -> x (PyTorch exports a zero Pad
 * before DenseNet's average pools; left in, it keeps them and the dense
 * blocks after them out of the blocked layouts). */
#include <string.h>

#include "pass_util.h"
#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm/tensor.h"

#define MAX_RANK 16

/* Whether constant c holds only `value` (0 or 1). */
static int constant_is(const irm_object *c, double value) {
  if (irm_expr_kind_of(c) != IRM_EXPR_CONSTANT) return 0;
  const irm_tensor *t = irm_constant_data(c);
  int64_t n = irm_tensor_numel(t);
  for (int64_t i = 0; i < n; i++)
    if (irm_tensor_get_f64(t, i) != value) return 0;
  return 1;
}

/* Whether x can stand for call: both types known and equal. */
static int same_type(const irm_object *call, const irm_object *x) {
  const irm_object *a = irm_expr_type(call), *b = irm_expr_type(x);
  return a && b && irm_dataflow_type_equal(a, b);
}

/* The identity operand of an arithmetic call, or NULL. */
static irm_object *identity_operand(const irm_object *original, const irm_object *call) {
  if (irm_call_arg_count(call) != 2) return NULL;
  irm_object *a = irm_call_arg(call, 0), *b = irm_call_arg(call, 1), *x = NULL;
  if (irm_dataflow_is_call_of_(call, "multiply")) x = constant_is(b, 1) ? a : constant_is(a, 1) ? b : NULL;
  else if (irm_dataflow_is_call_of_(call, "add")) x = constant_is(b, 0) ? a : constant_is(a, 0) ? b : NULL;
  else if (irm_dataflow_is_call_of_(call, "subtract")) x = constant_is(b, 0) ? a : NULL;
  return x && same_type(original, x) ? x : NULL;
}

/* x of nn.pad(x) padding nothing (every pad_width 0, any mode) when x
 * can stand for it, or NULL. */
static irm_object *unpadded_operand(const irm_object *original, const irm_object *call) {
  irm_pad_attrs a;
  if (irm_call_arg_count(call) < 1 || !irm_dataflow_is_call_of_(call, "nn.pad")) return NULL;
  if (irm_pad_attrs_decode("nn.pad", irm_call_attrs(call), &a)) {
    irm_clear_error();
    return NULL;
  }
  for (int32_t i = 0; i < a.n_pad_width; i++)
    if (a.pad_width[i] != 0) return NULL;
  irm_object *x = irm_call_arg(call, 0);
  return same_type(original, x) ? x : NULL;
}

/* transpose's axes as the op decodes them (irm/dataflow/op_attrs.h) into
 * out: their count, 0 when absent (reversed, like empty), -1 when the op
 * refuses them or they are longer than MAX_RANK. */
static int transpose_axes(const irm_object *call, int64_t *out) {
  irm_transpose_attrs a;
  if (irm_transpose_attrs_decode(irm_op_name(irm_call_callee(call)), irm_call_attrs(call), &a)) {
    irm_clear_error();
    return -1;
  }
  if (a.n_axes > MAX_RANK) return -1;
  if (a.n_axes > 0) memcpy(out, a.axes, (size_t)a.n_axes * sizeof *out);
  return a.n_axes < 0 ? 0 : a.n_axes;
}

/* callee(x) with the attributes of like, `name` set to the n ints of vals,
 * and the checked type of original. *out NEW. */
static int remake(const irm_object *like, const irm_object *original, irm_object *x, const char *name,
                  const int64_t *vals, int n, irm_object **out) {
  irm_any items[MAX_RANK];
  for (int i = 0; i < n; i++) items[i] = irm_any_int(vals[i]);
  irm_object *arr = NULL, *attrs = NULL, *call = NULL;
  int rc = irm_array_new(items, (size_t)n, &arr);
  irm_any av = irm_any_object(arr);
  if (!rc) rc = irm_map_with_set(irm_call_attrs(like), name, &av, &attrs);
  if (!rc) rc = irm_call_new(irm_call_callee(like), &x, 1, attrs, &call);
  irm_object_release(arr);
  irm_object_release(attrs);
  if (rc) return rc;
  if (!irm_expr_type(original)) {
    *out = call;
    return IRM_OK;
  }
  rc = irm_expr_with_type(call, irm_expr_type(original), out);
  irm_object_release(call);
  return rc;
}

/* reshape(reshape(x, a), b): reshape(x, shape of the result), or x when
 * that is x's shape. 0 in b means "the inner result's dimension", so
 * without a checked type only a b free of zeros is kept as it is. */
static int fold_reshape(const irm_object *original, const irm_object *call, irm_object **out) {
  irm_object *inner = irm_call_arg(call, 0);
  if (!irm_dataflow_is_call_of_(inner, "reshape")) return IRM_OK;
  irm_object *x = irm_call_arg(inner, 0);
  if (same_type(original, x)) {
    irm_object_retain(x);
    *out = x;
    return IRM_OK;
  }
  int64_t shape[MAX_RANK];
  int n;
  const irm_object *t = irm_expr_type(original);
  if (irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR && irm_tensor_type_ndim(t) <= MAX_RANK) {
    n = irm_tensor_type_ndim(t);
    memcpy(shape, irm_tensor_type_shape(t), (size_t)n * sizeof shape[0]);
  } else {
    irm_reshape_attrs a;
    if (irm_reshape_attrs_decode(irm_op_name(irm_call_callee(call)), irm_call_attrs(call), &a)) {
      irm_clear_error();
      return IRM_OK;
    }
    if ((n = a.n_newshape) > MAX_RANK) return IRM_OK;
    memcpy(shape, a.newshape, (size_t)n * sizeof shape[0]);
    for (int i = 0; i < n; i++)
      if (shape[i] == 0) return IRM_OK;
  }
  return remake(call, original, x, "newshape", shape, n, out);
}

/* Normalizes axes (n entries, or empty: reversed) for rank; 0 when they
 * are not a permutation (left for the op's own checks). */
static int norm_axes(int64_t *axes, int n, int rank) {
  if (n == 0)
    for (int i = 0; i < rank; i++) axes[i] = rank - 1 - i;
  else if (n != rank) return 0;
  int seen[MAX_RANK] = {0};
  for (int i = 0; i < rank; i++) {
    if (axes[i] < 0) axes[i] += rank;
    if (axes[i] < 0 || axes[i] >= rank || seen[axes[i]]++) return 0;
  }
  return 1;
}

static int fold_transpose(const irm_object *original, const irm_object *call, irm_object **out) {
  irm_object *inner = irm_call_arg(call, 0);
  if (!irm_dataflow_is_call_of_(inner, "transpose")) return IRM_OK;
  irm_object *x = irm_call_arg(inner, 0);
  int64_t p[MAX_RANK], q[MAX_RANK], r[MAX_RANK];
  int np = transpose_axes(inner, p), nq = transpose_axes(call, q);
  if (np < 0 || nq < 0) return IRM_OK;
  const irm_object *xt = irm_expr_type(x);
  int rank = np                                                          ? np
             : nq                                                        ? nq
             : irm_dataflow_type_kind_of(xt) == IRM_DATAFLOW_TYPE_TENSOR ? irm_tensor_type_ndim(xt)
                                                                         : -1;
  if (rank < 0 && np == 0 && nq == 0) { /* reversed twice, whatever the rank */
    irm_object_retain(x);
    *out = x;
    return IRM_OK;
  }
  if (rank < 0 || rank > MAX_RANK || !norm_axes(p, np, rank) || !norm_axes(q, nq, rank)) return IRM_OK;
  int identity = 1;
  for (int i = 0; i < rank; i++) { /* out[i] = inner[q[i]] = x[p[q[i]]] */
    r[i] = p[q[i]];
    identity &= r[i] == i;
  }
  if (identity) {
    irm_object_retain(x);
    *out = x;
    return IRM_OK;
  }
  return remake(call, original, x, "axes", r, rank, out);
}

/* ---- add(add(x, c1), c2) -> add(x, c1 + c2), TVM's SimplifyConsecutiveAdd ---------------- */

/* c1 + c2 through add's FEvaluate: *out a NEW Constant. */
static int add_constants(const irm_object *c1, const irm_object *c2, irm_object **out) {
  irm_object *op = NULL, *arr = NULL;
  irm_any f = irm_any_none(), ret = irm_any_none();
  irm_any items[2] = {irm_any_object((irm_object *)irm_constant_data(c1)),
                      irm_any_object((irm_object *)irm_constant_data(c2))};
  int rc = irm_op_get("add", &op);
  if (!rc) rc = irm_op_get_attr(op, IRM_OP_ATTR_EVALUATE, &f);
  if (!rc && f.type_code != IRM_OBJECT) rc = irm_error(IRM_ERUNTIME, "SimplifyExpr: add has no FEvaluate");
  if (!rc) rc = irm_array_new(items, 2, &arr);
  if (!rc) {
    irm_any args[2] = {irm_any_object(arr), irm_any_none()};
    rc = irm_func_call(f.v_obj, args, 2, &ret);
  }
  if (!rc) rc = irm_constant_new(ret.v_obj, out);
  irm_any_release(&ret);
  irm_any_release(&f);
  irm_object_release(arr);
  irm_object_release(op);
  return rc;
}

/* The constant operand of a two-argument add (either side), or NULL;
 * *other the remaining operand. */
static irm_object *const_operand(const irm_object *call, irm_object **other) {
  if (!irm_dataflow_is_call_of_(call, "add") || irm_call_arg_count(call) != 2) return NULL;
  irm_object *a = irm_call_arg(call, 0), *b = irm_call_arg(call, 1);
  int ca = irm_expr_kind_of(a) == IRM_EXPR_CONSTANT, cb = irm_expr_kind_of(b) == IRM_EXPR_CONSTANT;
  if (ca == cb) return NULL; /* none, or both (FoldConstant's) */
  *other = ca ? b : a;
  return ca ? a : b;
}

/* add(add(x, c1), c2) (either order in both): add(x, c1 + c2) when the
 * types are known and the sum is no larger than c1 or c2 (a broadcast
 * between them would grow the constants). */
static int fold_add(const irm_object *original, const irm_object *call, irm_object **out) {
  irm_object *inner = NULL, *x = NULL, *sum = NULL, *c2 = const_operand(call, &inner);
  irm_object *c1 = c2 ? const_operand(inner, &x) : NULL;
  if (!c1 || !irm_expr_type(original) || !irm_expr_type(x)) return IRM_OK;
  int64_t n1 = irm_tensor_numel(irm_constant_data(c1)), n2 = irm_tensor_numel(irm_constant_data(c2));
  int rc = add_constants(c1, c2, &sum);
  if (rc) { /* the constants do not add (dtypes, shapes): leave the call to InferType's errors */
    irm_clear_error();
    return IRM_OK;
  }
  int64_t ns = irm_tensor_numel(irm_constant_data(sum));
  irm_object *args[2] = {x, sum}, *add = NULL;
  if (ns <= (n1 > n2 ? n1 : n2)) rc = irm_call_new(irm_call_callee(call), args, 2, irm_call_attrs(call), &add);
  if (!rc && add) rc = irm_expr_with_type(add, irm_expr_type(original), out);
  irm_object_release(add);
  irm_object_release(sum);
  return rc;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  (void)ctx;
  *out = NULL;
  int rc = IRM_OK;
  if (irm_expr_kind_of(rebuilt) == IRM_EXPR_CALL && irm_op_name(irm_call_callee(rebuilt))) {
    irm_object *x = identity_operand(original, rebuilt);
    if (!x) x = unpadded_operand(original, rebuilt);
    if (x) {
      irm_object_retain(x);
      *out = x;
      return IRM_OK;
    }
    if (irm_call_arg_count(rebuilt) == 1 && irm_dataflow_is_call_of_(rebuilt, "reshape"))
      rc = fold_reshape(original, rebuilt, out);
    else if (irm_call_arg_count(rebuilt) == 1 && irm_dataflow_is_call_of_(rebuilt, "transpose"))
      rc = fold_transpose(original, rebuilt, out);
    else rc = fold_add(original, rebuilt, out);
    if (rc || *out) return rc;
  }
  /* keep the checked type a changed child dropped: the rules keep types */
  irm_object *t = irm_expr_type(original);
  if (rebuilt != original && t && !irm_expr_type(rebuilt)) return irm_expr_with_type(rebuilt, t, out);
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

static const irm_expr_rewriter simplify_rw = {NULL, post, NULL};

/* The function pass: one rewrite per function. */
static int simplify_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                             void *resource, irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  (void)resource;
  return irm_dataflow_rewrite_function_(func, &simplify_rw, out);
}

int irm_dataflow_simplify_expr(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_simplify_expr: out must not be NULL");
  return irm_function_pass_apply(mod, simplify_function, NULL, NULL, NULL, out);
}

int irm_register_simplify_expr_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"SimplifyExpr", 0, NULL, simplify_function, NULL};
  return irm_dataflow_pass_register_(&def);
}
