/* SimplifyInference (dataflow/passes.h): the inference forms of
 * nn.batch_norm and nn.dropout, rewritten into what they compute.
 *
 *   nn.batch_norm(x, gamma, beta, mean, var)  ->  x * s + shift
 *     s     = gamma / sqrt(var + epsilon)      (1 / sqrt(...) when scale=false)
 *     shift = beta - mean * s                  (-(mean * s) when center=false)
 *   nn.dropout(x)                             ->  x
 *
 * s and shift are reshaped to (C, 1, ..., 1) so that they broadcast along
 * `axis` (not reshaped when axis is the last one). Everything is built
 * from ops, so FoldConstant folds s and shift when the statistics are
 * constants (after BindParams), and FoldScaleAxis can then move s into a
 * convolution's weight. x's rank comes from its checked type, so the pass
 * types an untyped module first; every new node is typed as it is made. */
#include "pass_util.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm/tensor.h"

#define MAX_RANK 16

/* A rank-0 constant of dtype holding value. *out NEW. */
static int scalar(DLDataType dtype, double value, irm_object **out) {
  irm_tensor *t = NULL;
  int rc = irm_tensor_new(dtype, NULL, 0, NULL, &t);
  if (rc) return rc;
  irm_tensor_set_f64(t, 0, value);
  rc = irm_constant_new(t, out);
  irm_object_release(t);
  return rc;
}

/* op(a, b) (b NULL: op(a)). *out NEW. */
static int call2(const char *op, irm_object *a, irm_object *b, irm_object **out) {
  irm_object *args[] = {a, b};
  return irm_dataflow_op_call_(op, args, b ? 2 : 1, NULL, out);
}

/* The per-channel vectors s and shift of bn (see the top of the file).
 * *s and *shift NEW. */
static int scale_and_shift(const irm_object *bn, const irm_batch_norm_attrs *a, DLDataType dtype, irm_object **s,
                           irm_object **shift) {
  irm_object *gamma = irm_call_arg(bn, 1), *beta = irm_call_arg(bn, 2), *mean = irm_call_arg(bn, 3);
  irm_object *var = irm_call_arg(bn, 4), *eps = NULL, *one = NULL, *sum = NULL, *std = NULL, *ms = NULL;
  int rc = scalar(dtype, a->epsilon, &eps);
  if (!rc && !a->scale) rc = scalar(dtype, 1.0, &one);
  if (!rc) rc = call2("add", var, eps, &sum);
  if (!rc) rc = call2("sqrt", sum, NULL, &std);
  if (!rc) rc = call2("divide", a->scale ? gamma : one, std, s);
  if (!rc) rc = call2("multiply", mean, *s, &ms);
  if (!rc) rc = a->center ? call2("subtract", beta, ms, shift) : call2("negative", ms, NULL, shift);
  irm_object *temps[] = {eps, one, sum, std, ms};
  for (size_t i = 0; i < sizeof temps / sizeof temps[0]; i++) irm_object_release(temps[i]);
  return rc;
}

/* bn rewritten, or *out NULL when it cannot be (x untyped, attributes
 * the op refuses: left to the op's own checks). */
static int lower_batch_norm(const irm_object *original, irm_object *bn, irm_object **out) {
  irm_object *x = irm_call_arg(bn, 0);
  const irm_object *xt = irm_expr_type(x);
  if (!xt) xt = irm_expr_type(irm_call_arg(original, 0));
  irm_batch_norm_attrs a;
  if (irm_batch_norm_attrs_decode(irm_op_name(irm_call_callee(bn)), irm_call_attrs(bn), &a)) {
    irm_clear_error();
    return IRM_OK;
  }
  if (irm_dataflow_type_kind_of(xt) != IRM_DATAFLOW_TYPE_TENSOR) return IRM_OK;
  int32_t rank = irm_tensor_type_ndim(xt);
  int64_t axis = a.axis < 0 ? a.axis + rank : a.axis;
  if (axis < 0 || axis >= rank || rank > MAX_RANK) return IRM_OK;
  int64_t shape[MAX_RANK];
  int n = (int)(rank - axis);
  shape[0] = irm_tensor_type_shape(xt)[axis];
  for (int i = 1; i < n; i++) shape[i] = 1;
  irm_object *s = NULL, *shift = NULL, *sb = NULL, *shiftb = NULL, *scaled = NULL, *sum = NULL;
  int rc = scale_and_shift(bn, &a, irm_tensor_type_dtype(xt), &s, &shift);
  if (!rc && n > 1) rc = irm_dataflow_reshape_(s, shape, n, &sb);
  if (!rc && n > 1) rc = irm_dataflow_reshape_(shift, shape, n, &shiftb);
  if (!rc) rc = call2("multiply", x, n > 1 ? sb : s, &scaled);
  if (!rc) rc = call2("add", scaled, n > 1 ? shiftb : shift, &sum);
  if (!rc) rc = irm_dataflow_keep_type_(original, sum, out);
  irm_object *temps[] = {s, shift, sb, shiftb, scaled, sum};
  for (size_t i = 0; i < sizeof temps / sizeof temps[0]; i++) irm_object_release(temps[i]);
  return rc;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  (void)ctx;
  *out = NULL;
  int rc = IRM_OK;
  if (irm_dataflow_is_call_of_(rebuilt, "nn.dropout") && irm_call_arg_count(rebuilt) == 1) {
    irm_object *x = irm_call_arg(rebuilt, 0); /* the inference identity */
    irm_object_retain(x);
    *out = x;
    return IRM_OK;
  }
  if (irm_dataflow_is_call_of_(rebuilt, "nn.batch_norm") && irm_call_arg_count(rebuilt) == 5)
    rc = lower_batch_norm(original, rebuilt, out);
  if (rc || *out) return rc;
  return irm_dataflow_keep_type_(original, rebuilt, out);
}

static const irm_expr_rewriter simplify_rw = {NULL, post, NULL};
static const char *const lowered_ops[] = {"nn.batch_norm", "nn.dropout"};

int irm_dataflow_simplify_inference(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_simplify_inference: out must not be NULL");
  *out = NULL;
  return irm_dataflow_apply_typed_(mod, lowered_ops, 2, irm_dataflow_rewrite_body_, (void *)&simplify_rw, out);
}

static int simplify_inference_body(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                                   irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  return irm_dataflow_simplify_inference(mod, out);
}

int irm_register_simplify_inference_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"SimplifyInference", 0, simplify_inference_body, NULL, NULL};
  return irm_dataflow_pass_register_(&def);
}
