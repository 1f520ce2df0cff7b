/* ConvertLayout (dataflow/passes.h): nn.conv2d, nn.max_pool2d, nn.avg_pool2d and
 * nn.global_avg_pool2d move to the requested data layout (NCHW or NHWC;
 * conv2d's kernel to OIHW or HWIO with it). Each converted call gets a
 * transpose of its data before it and one back after it, so every other
 * expression sees the layout it had; the weight expression is transposed
 * too (FoldConstant folds that when the weight is a constant, and
 * SimplifyExpr cancels back-to-back transposes). The transpose back
 * carries the original call's checked type, and so does every rebuilt
 * expression around it; the new inner nodes have none (run InferType
 * after). */
#include <string.h>

#include "pass_util.h"
#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"

/* perm with out[i] = in[perm[i]] taking layout `from` to `to` (both 4
 * letters, the same letters). 0 when they are not. */
static int layout_perm(const char *from, const char *to, int64_t perm[4]) {
  if (strlen(from) != 4 || strlen(to) != 4) return 0;
  for (int i = 0; i < 4; i++) {
    const char *p = strchr(from, to[i]);
    if (!p) return 0;
    perm[i] = p - from;
  }
  return 1;
}

/* transpose(x, axes=perm). *out NEW. */
static int transpose(irm_object *x, const int64_t perm[4], irm_object **out) {
  irm_any items[4];
  for (int i = 0; i < 4; i++) items[i] = irm_any_int(perm[i]);
  irm_object *axes = NULL, *attrs = NULL, *op = NULL;
  const char *key = "axes";
  int rc = irm_array_new(items, 4, &axes);
  irm_any v = irm_any_object(axes);
  if (!rc) rc = irm_map_from_pairs(&key, &v, 1, &attrs);
  if (!rc) rc = irm_op_get("transpose", &op);
  if (!rc) rc = irm_call_new(op, &x, 1, attrs, out);
  irm_object_release(axes);
  irm_object_release(attrs);
  irm_object_release(op);
  return rc;
}

static const char *const data_layouts[] = {"NCHW", "NHWC"};
static const char *const kernel_layouts[] = {"OIHW", "HWIO"};

/* The call's data and kernel layout names, decoded as the op decodes its
 * attributes (irm/dataflow/op_attrs.h); 0 when the op refuses them (its
 * own checks report that) or when a pool is in NCHW{x}c (left as it is). */
static int layouts_of(const irm_object *call, int conv, const char **data, const char **kernel) {
  const char *op = irm_op_name(irm_call_callee(call));
  const irm_object *attrs = irm_call_attrs(call);
  int rc, layout = 0;
  int64_t block = 0; /* a pool in NCHW{x}c: not this pass's to move */
  if (conv) {
    irm_conv2d_attrs a;
    if (!(rc = irm_conv2d_attrs_decode(op, attrs, &a)))
      layout = a.data_layout, *kernel = kernel_layouts[a.kernel_layout];
  } else if (irm_dataflow_is_call_of_(call, "nn.global_avg_pool2d")) {
    irm_global_pool2d_attrs a;
    if (!(rc = irm_global_pool2d_attrs_decode(op, attrs, &a))) layout = a.layout, block = a.layout_block;
  } else {
    irm_pool2d_attrs a;
    if (!(rc = irm_pool2d_attrs_decode(op, attrs, &a))) layout = a.layout, block = a.layout_block;
  }
  if (rc) irm_clear_error();
  *data = data_layouts[layout];
  return !rc && !block;
}

typedef struct layout_ctx {
  const char *layout; /* "NCHW" or "NHWC" */
} layout_ctx;

/* The converted call, or *out NULL when call needs nothing. */
static int convert(const layout_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  *out = NULL;
  int conv = irm_dataflow_is_call_of_(call, "nn.conv2d");
  if (!conv && !irm_dataflow_is_call_of_(call, "nn.max_pool2d") && !irm_dataflow_is_call_of_(call, "nn.avg_pool2d") &&
      !irm_dataflow_is_call_of_(call, "nn.global_avg_pool2d"))
    return IRM_OK;
  const char *data_key = conv ? "data_layout" : "layout", *from = NULL;
  const char *kernel_to = strcmp(c->layout, "NHWC") == 0 ? "HWIO" : "OIHW", *kernel_from = kernel_to;
  int64_t in_perm[4], back[4], w_perm[4];
  if (!layouts_of(call, conv, &from, &kernel_from)) return IRM_OK; /* left to the op's checks */
  if (strcmp(from, c->layout) == 0 && strcmp(kernel_from, kernel_to) == 0) return IRM_OK;
  if (!layout_perm(from, c->layout, in_perm) || !layout_perm(c->layout, from, back) ||
      !layout_perm(kernel_from, kernel_to, w_perm))
    return IRM_OK; /* a layout the op itself refuses: leave it to its checks */
  size_t n = irm_call_arg_count(call);
  irm_object *args[2] = {NULL, NULL}, *attrs = NULL, *attrs2 = NULL, *inner = NULL, *result = NULL;
  int same_data = strcmp(from, c->layout) == 0;
  int rc = IRM_OK;
  if (same_data) {
    args[0] = irm_call_arg(call, 0);
    irm_object_retain(args[0]);
  } else rc = transpose(irm_call_arg(call, 0), in_perm, &args[0]);
  if (!rc && conv && n == 2) rc = transpose(irm_call_arg(call, 1), w_perm, &args[1]);
  irm_any lv = irm_any_str(c->layout), kv = irm_any_str(kernel_to);
  if (!rc) rc = irm_map_with_set(irm_call_attrs(call), data_key, &lv, &attrs);
  if (!rc && conv) rc = irm_map_with_set(attrs, "kernel_layout", &kv, &attrs2);
  if (!rc) rc = irm_call_new(irm_call_callee(call), args, n, conv ? attrs2 : attrs, &inner);
  if (!rc && same_data) {
    result = inner;
    inner = NULL;
  } else if (!rc) rc = transpose(inner, back, &result);
  if (!rc && irm_expr_type(original)) {
    rc = irm_expr_with_type(result, irm_expr_type(original), out);
    irm_object_release(result);
  } else if (!rc) *out = result;
  else irm_object_release(result);
  irm_object_release(args[0]);
  irm_object_release(args[1]);
  irm_object_release(attrs);
  irm_object_release(attrs2);
  irm_object_release(inner);
  return rc;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  int rc = irm_expr_kind_of(rebuilt) == IRM_EXPR_CALL ? convert(ctx, original, rebuilt, out) : IRM_OK;
  if (rc || *out) return rc;
  /* every expression outside a converted call keeps its layout and type */
  irm_object *t = irm_expr_type(original);
  if (rebuilt != original && t && !irm_expr_type(rebuilt)) return irm_expr_with_type(rebuilt, t, out);
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

/* c set for layout, one of the two this pass knows. */
static int layout_of(const char *layout, layout_ctx *c) {
  if (strcmp(layout, "NCHW") != 0 && strcmp(layout, "NHWC") != 0)
    return irm_error(IRM_EVALUE, "ConvertLayout: layout '%s' is not NCHW or NHWC", irm_error_quote(layout));
  c->layout = strcmp(layout, "NCHW") == 0 ? "NCHW" : "NHWC";
  return IRM_OK;
}

/* The function pass: func converted to the layout of resource (a
 * layout_ctx, irm_dataflow_convert_layout's), else of the module attribute
 * `data_layout`; without either, nothing to do. */
static int convert_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                            void *resource, irm_object **out) {
  (void)ctx;
  (void)options;
  layout_ctx c = {NULL};
  irm_any v = irm_any_none();
  int rc = IRM_OK;
  if (resource) c = *(const layout_ctx *)resource;
  else if (irm_expr_kind_of(func) == IRM_EXPR_FUNCTION && !(rc = irm_module_get_attr(mod, "data_layout", &v)) &&
           v.type_code != IRM_NONE) {
    const char *layout = NULL;
    size_t len = 0;
    if (irm_any_to_str(&v, &layout, &len)) {
      irm_clear_error();
      rc = irm_error(IRM_ETYPE, "ConvertLayout: module attribute 'data_layout' is a %s, not a str",
                     irm_any_type_name(&v));
    } else rc = layout_of(layout, &c);
  }
  irm_any_release(&v);
  if (rc) return rc;
  if (!c.layout) { /* not asked for */
    irm_object_retain(func);
    *out = func;
    return IRM_OK;
  }
  irm_expr_rewriter rw = {NULL, post, &c};
  return irm_dataflow_rewrite_function_(func, &rw, out);
}

int irm_dataflow_convert_layout(irm_module *mod, const char *layout, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_convert_layout: out must not be NULL");
  *out = NULL;
  if (!layout) return irm_error(IRM_EVALUE, "irm_dataflow_convert_layout: layout must not be NULL");
  layout_ctx c;
  int rc = layout_of(layout, &c);
  return rc ? rc : irm_function_pass_apply(mod, convert_function, NULL, NULL, &c, out);
}

int irm_register_convert_layout_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"ConvertLayout", 0, NULL, convert_function, NULL};
  return irm_dataflow_pass_register_(&def);
}
