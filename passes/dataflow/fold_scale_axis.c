/* FoldScaleAxis (dataflow/passes.h), the forward fold of TVM's pass: a
 * per-output-channel constant scale after a convolution moves into its
 * weight.
 *
 *   multiply(conv2d(x, w), s)               ->  conv2d(x, w * s')
 *   multiply(nn.bias_add(conv2d(x, w), b), s) ->  nn.bias_add(conv2d(x, w * s'), b * s'')
 *   multiply(add(conv2d(x, w), b), s)       ->  add(conv2d(x, w * s'), b * s)
 *
 * (multiply with its operands either way round.) s must be a Constant of
 * the convolution's float dtype that varies at most along its output
 * channels: every dimension 1 but the channel one (right-aligned on the
 * result), which is 1 or the channel count. s' is s reshaped along the
 * weight's output-channel axis (k, 1, 1, 1) for OIHW, (k,) for HWIO; s''
 * is (k,) for the bias. A weight or bias_add bias that is a Constant is
 * scaled here instead, into a Constant of its size: a large weight's
 * product is past FoldConstant's memory limit and would stay for run
 * time. Any groups work: each output channel has its own filters. The convolution (and the bias_add or add) must have no other
 * use: the rewrite would change what the other user sees. Uses are
 * counted on the function before the rewrite, and carried to the nodes
 * the rewrite makes. Channel counts come from checked types, so the pass
 * types an untyped module first; new nodes are typed as they are made. */
#include "pass_util.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm/tensor.h"

typedef struct use_count {
  irm_ptr_entry_ base; /* key: a node */
  size_t uses;
} use_count;

typedef struct fold_ctx {
  irm_ptr_table_ uses; /* of the calls: their parents among the distinct nodes */
} fold_ctx;

static int count_uses(void *vctx, irm_object *node) {
  fold_ctx *c = vctx;
  for (size_t i = 0, n = irm_expr_child_count(node); i < n; i++) {
    irm_object *child = irm_expr_child(node, i);
    if (irm_expr_kind_of(child) != IRM_EXPR_CALL) continue;
    use_count *u = irm_ptr_table_find_(&c->uses, child);
    if (!u && !(u = irm_ptr_table_add_(&c->uses, child, sizeof *u))) return irm_error_nomem_("folding scales");
    u->uses++;
  }
  return IRM_OK;
}

/* Whether e has exactly one use (unknown nodes count as shared). */
static int used_once(const fold_ctx *c, const irm_object *e) {
  const use_count *u = irm_ptr_table_find_(&c->uses, e);
  return u && u->uses == 1;
}

/* A convolution the scale may enter, with what the rewrite needs. */
typedef struct conv_site {
  irm_object *conv;
  int64_t channels; /* output channels */
  int channel_axis; /* of the result: 1 (NCHW) or 3 (NHWC) */
  int hwio;         /* the weight's output channels are its last axis */
} conv_site;

/* Whether e is a conv2d used once, with typed result and weight of the
 * same float dtype; fills site. */
static int conv_of(const fold_ctx *c, irm_object *e, conv_site *site) {
  if (!irm_dataflow_is_call_of_(e, "nn.conv2d") || irm_call_arg_count(e) != 2 || !used_once(c, e)) return 0;
  irm_conv2d_attrs a;
  if (irm_conv2d_attrs_decode(irm_op_name(irm_call_callee(e)), irm_call_attrs(e), &a)) {
    irm_clear_error();
    return 0;
  }
  const irm_object *t = irm_expr_type(e), *wt = irm_expr_type(irm_call_arg(e, 1));
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR || irm_tensor_type_ndim(t) != 4 ||
      irm_dataflow_type_kind_of(wt) != IRM_DATAFLOW_TYPE_TENSOR || irm_tensor_type_ndim(wt) != 4 ||
      irm_tensor_type_dtype(t).code != kDLFloat ||
      !irm_dtype_equal(irm_tensor_type_dtype(t), irm_tensor_type_dtype(wt)))
    return 0;
  site->conv = e;
  site->channel_axis = a.data_layout == IRM_LAYOUT_NHWC ? 3 : 1;
  site->hwio = a.kernel_layout == IRM_KERNEL_LAYOUT_HWIO;
  site->channels = irm_tensor_type_shape(t)[site->channel_axis];
  return irm_tensor_type_shape(wt)[site->hwio ? 3 : 0] == site->channels;
}

/* The number of scales s holds when it is a per-channel scale for site
 * (1 or the channel count), else 0. */
static int64_t scale_count(const irm_object *s, const conv_site *site) {
  if (irm_expr_kind_of(s) != IRM_EXPR_CONSTANT) return 0;
  const DLTensor *d = irm_tensor_dl(irm_constant_data(s));
  const irm_object *t = irm_expr_type(site->conv);
  if (d->ndim > 4 || !irm_dtype_equal(d->dtype, irm_tensor_type_dtype(t))) return 0;
  for (int32_t i = 0; i < d->ndim; i++) {
    int64_t n = d->shape[i];
    if (n != 1 && (4 - d->ndim + i != site->channel_axis || n != site->channels)) return 0;
  }
  return irm_tensor_numel(irm_constant_data(s));
}

/* What the scaled value is: the convolution alone, or behind a bias. */
enum { SITE_CONV, SITE_BIAS_ADD, SITE_ADD };

/* Matches a (the multiply's other operand): fills site, *kind, *bias_pos
 * (the bias' argument position, for SITE_ADD and SITE_BIAS_ADD). */
static int match(const fold_ctx *c, irm_object *a, conv_site *site, int *kind, size_t *bias_pos) {
  if (conv_of(c, a, site)) {
    *kind = SITE_CONV;
    return 1;
  }
  if (!used_once(c, a) || irm_call_arg_count(a) != 2) return 0;
  if (irm_dataflow_is_call_of_(a, "nn.bias_add")) {
    irm_bias_add_attrs b;
    if (irm_bias_add_attrs_decode(irm_op_name(irm_call_callee(a)), irm_call_attrs(a), &b)) {
      irm_clear_error();
      return 0;
    }
    *kind = SITE_BIAS_ADD;
    *bias_pos = 1;
    return conv_of(c, irm_call_arg(a, 0), site) && (b.axis < 0 ? b.axis + 4 : b.axis) == site->channel_axis;
  }
  if (!irm_dataflow_is_call_of_(a, "add")) return 0;
  *kind = SITE_ADD;
  for (size_t i = 0; i < 2; i++)
    if (conv_of(c, irm_call_arg(a, i), site)) {
      *bias_pos = 1 - i;
      return 1;
    }
  return 0;
}

/* callee of like on args, with like's attributes. *out NEW. */
static int remake(const irm_object *like, irm_object *const *args, irm_object **out) {
  return irm_dataflow_op_call_(irm_op_name(irm_call_callee(like)), args, 2, irm_call_attrs(like), out);
}

/* Records node (new) as used once, so a second scale may fold into it. */
static int used_by_one(fold_ctx *c, const irm_object *node) {
  use_count *u = irm_ptr_table_add_(&c->uses, node, sizeof *u);
  if (!u) return irm_error_nomem_("folding scales");
  u->uses = 1;
  return IRM_OK;
}

/* Constant c times s along one axis: element i times s[(i / inner) % k]
 * (k the number of scales, 1 or the axis' length), computed here as the
 * multiply op computes it (in double, rounded once to c's dtype). A
 * weight of millions of values is beyond FoldConstant's memory limit,
 * and this one only replaces a constant by another of its size. NEW. */
static int scaled_constant(const irm_object *c, const irm_object *s, int64_t inner, irm_object **out) {
  const irm_tensor *t = irm_constant_data(c), *st = irm_constant_data(s);
  const DLTensor *d = irm_tensor_dl(t);
  irm_tensor *r = NULL;
  int rc = irm_tensor_new(d->dtype, d->shape, d->ndim, NULL, &r);
  if (rc) return rc;
  int64_t n = irm_tensor_numel(t), k = irm_tensor_numel(st);
  for (int64_t i = 0; i < n; i++)
    irm_tensor_set_f64(r, i, irm_tensor_get_f64(t, i) * irm_tensor_get_f64(st, k == 1 ? 0 : (i / inner) % k));
  rc = irm_constant_new(r, out);
  irm_object_release(r);
  return rc;
}

/* x scaled by s along its channels (x's elements per channel: inner): a
 * Constant folded here, else multiply(x, reshape(s, shape)). NEW. */
static int scaled(irm_object *x, irm_object *s, int64_t inner, const int64_t *shape, int n, irm_object **out) {
  if (irm_expr_kind_of(x) == IRM_EXPR_CONSTANT) return scaled_constant(x, s, inner, out);
  irm_object *r = NULL;
  int rc = irm_dataflow_reshape_(s, shape, n, &r);
  irm_object *args[] = {x, r};
  if (!rc) rc = irm_dataflow_op_call_("multiply", args, 2, NULL, out);
  irm_object_release(r);
  return rc;
}

/* multiply(a, s) with a matched as kind; *out NEW. */
static int fold(fold_ctx *c, irm_object *a, irm_object *s, int64_t k, const conv_site *site, int kind, size_t bias_pos,
                irm_object **out) {
  const int64_t w_shape[] = {k, 1, 1, 1}, vec[] = {k};
  irm_object *conv = site->conv, *weight = irm_call_arg(conv, 1), *w = NULL, *new_conv = NULL, *b = NULL;
  const irm_object *wt = irm_expr_type(weight);
  int64_t per_channel = site->channels ? irm_tensor_type_numel(wt) / site->channels : 1;
  int rc = site->hwio ? scaled(weight, s, 1, vec, 1, &w) : scaled(weight, s, per_channel, w_shape, 4, &w);
  irm_object *cargs[] = {irm_call_arg(conv, 0), w};
  if (!rc) rc = remake(conv, cargs, &new_conv);
  if (!rc && kind != SITE_CONV) rc = used_by_one(c, new_conv);
  if (!rc && kind == SITE_CONV) {
    irm_object_retain(new_conv);
    *out = new_conv;
  } else if (!rc) {
    irm_object *bias = irm_call_arg(a, bias_pos), *bargs[] = {bias, s};
    if (kind == SITE_BIAS_ADD) rc = scaled(bias, s, 1, vec, 1, &b);
    else rc = irm_dataflow_op_call_("multiply", bargs, 2, NULL, &b); /* any broadcast: the op's */
    irm_object *args[2];
    args[bias_pos] = b;
    args[1 - bias_pos] = new_conv;
    if (!rc) rc = remake(a, args, out);
  }
  irm_object *temps[] = {w, new_conv, b};
  for (size_t i = 0; i < sizeof temps / sizeof temps[0]; i++) irm_object_release(temps[i]);
  return rc;
}

/* The folded form of mul, or *out NULL when it does not match. */
static int try_fold(fold_ctx *c, irm_object *mul, irm_object **out) {
  for (size_t side = 0; side < 2; side++) {
    irm_object *s = irm_call_arg(mul, side), *a = irm_call_arg(mul, 1 - side);
    conv_site site;
    int kind = SITE_CONV;
    size_t bias_pos = 0;
    if (irm_expr_kind_of(s) != IRM_EXPR_CONSTANT || !match(c, a, &site, &kind, &bias_pos)) continue;
    int64_t k = scale_count(s, &site);
    if (k) return fold(c, a, s, k, &site, kind, bias_pos, out);
  }
  return IRM_OK;
}

/* out's use count: original's (out stands for it in the new graph). */
static int carry_uses(fold_ctx *c, const irm_object *original, const irm_object *out) {
  const use_count *from = irm_ptr_table_find_(&c->uses, original);
  if (out == original || !from || irm_ptr_table_find_(&c->uses, out)) return IRM_OK;
  size_t uses = from->uses; /* adding may move entries' slots, never entries */
  use_count *u = irm_ptr_table_add_(&c->uses, out, sizeof *u);
  if (!u) return irm_error_nomem_("folding scales");
  u->uses = uses;
  return IRM_OK;
}

static int post(void *vctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  fold_ctx *c = vctx;
  *out = NULL;
  int rc = IRM_OK;
  if (irm_dataflow_is_call_of_(rebuilt, "multiply") && irm_call_arg_count(rebuilt) == 2) rc = try_fold(c, rebuilt, out);
  if (!rc && !*out) rc = irm_dataflow_keep_type_(original, rebuilt, out);
  if (!rc) rc = carry_uses(c, original, *out);
  return rc;
}

static int fold_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                         void *resource, irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  (void)resource;
  fold_ctx c = {IRM_PTR_TABLE_INIT_};
  int rc = irm_expr_kind_of(func) == IRM_EXPR_FUNCTION ? irm_expr_visit(func, count_uses, &c) : IRM_OK;
  irm_expr_rewriter rw = {NULL, post, &c};
  if (!rc) rc = irm_dataflow_rewrite_function_(func, &rw, out);
  irm_ptr_table_free_(&c.uses);
  return rc;
}

static const char *const conv_ops[] = {"nn.conv2d"};

int irm_dataflow_fold_scale_axis(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_fold_scale_axis: out must not be NULL");
  *out = NULL;
  return irm_dataflow_apply_typed_(mod, conv_ops, 1, fold_function, NULL, out);
}

static int fold_scale_axis_body(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                                irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  return irm_dataflow_fold_scale_axis(mod, out);
}

int irm_register_fold_scale_axis_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"FoldScaleAxis", 2, fold_scale_axis_body, NULL, NULL};
  return irm_dataflow_pass_register_(&def);
}
