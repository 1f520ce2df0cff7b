/* The built-in ops: registering every op of the family files' tables (elemwise.c, ...) with its
 * attribute schema, pattern, FInferType and FEvaluate, and the two packed
 * bodies those functions share (argument checks, attribute validation, the
 * result tensor). */
#include <string.h>

#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm_internal.h"
#include "ops_util.h"

/* Registers the op.* globals (op_globals.c). */

/* ---- the shared checks ---------------------------------------------------------- */

/* Checks n argument types for def and validates attrs (may be NULL): fills
 * c (c->attrs NEW, release with irm_object_release) and infers *out. */
static int check_and_infer(const ops_op_def *def, irm_object *const *types, size_t n, const irm_object *attrs,
                           ops_ctx *c, irm_object **out) {
  c->def = def;
  c->types = types;
  c->nargs = n;
  c->attrs = NULL;
  if (def->num_inputs >= 0 && n != (size_t)def->num_inputs)
    return irm_error(IRM_ETYPE, "%s takes %d argument%s, got %zu", def->name, (int)def->num_inputs,
                     def->num_inputs == 1 ? "" : "s", n);
  for (size_t i = 0; i < n; i++) {
    char a[64], t[OPS_TYPE_BUF];
    if (irm_dataflow_type_kind_of(types[i]) != IRM_DATAFLOW_TYPE_TENSOR)
      return irm_error(IRM_ETYPE, "%s: %s must be a tensor type, got %s", def->name, irm_ops_arg_text_(c, i, a),
                       irm_ops_type_text_(types[i], t));
    if (irm_ops_numel_(irm_tensor_type_shape(types[i]), irm_tensor_type_ndim(types[i])) < 0)
      return irm_error(IRM_ETYPE, "%s: %s has more than 2^62 elements: %s", def->name, irm_ops_arg_text_(c, i, a),
                       irm_ops_type_text_(types[i], t));
    ops_kind k = irm_ops_kind_of_(irm_tensor_type_dtype(types[i]));
    if ((def->dtypes == OPS_NUMERIC && k == OPS_BOOL) || (def->dtypes == OPS_FLOAT && !irm_ops_kind_is_float_(k)))
      return irm_error(IRM_ETYPE, "%s: %s has dtype %s; %s takes %s", def->name, irm_ops_arg_text_(c, i, a),
                       irm_ops_dtype_text_(irm_tensor_type_dtype(types[i])), def->name,
                       def->dtypes == OPS_FLOAT
                           ? "float32, float16 or float64"
                           : "numeric dtypes (float32, float16, int32, int8, uint8, float64, int64)");
  }
  irm_object *op = NULL, *checked = NULL;
  int rc = irm_op_get(def->name, &op);
  if (!rc) rc = irm_op_check_attrs(op, attrs, &checked);
  irm_object_release(op);
  if (rc) return rc;
  c->attrs = checked;
  return def->infer(c, out);
}

/* Reads the optional attrs argument i: a Map or NONE. */
static int arg_attrs(const char *fn, const irm_any *args, int32_t nargs, int32_t i, irm_object **out) {
  *out = NULL;
  return irm_arg_present(args, nargs, i) ? irm_arg_object(fn, args, i, "ffi.Map", out) : IRM_OK;
}

/* FInferType(arg_types Array, attrs Map or NONE) -> type */
int irm_ops_infer_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const ops_op_def *def = resource;
  const char *fn = "FInferType";
  irm_object *arr = NULL, *attrs = NULL, *type = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Array", &arr);
  if (!rc) rc = arg_attrs(fn, args, nargs, 1, &attrs);
  if (rc) return irm_error_context(rc, "%s", def->name);
  size_t n = irm_array_size(arr);
  if (n > IRM_NATIVE_MAX_ARGS || (def->num_inputs >= 0 && n != (size_t)def->num_inputs))
    return irm_error(IRM_ETYPE, "%s takes %d argument%s, got %zu", def->name, (int)def->num_inputs,
                     def->num_inputs == 1 ? "" : "s", n);
  irm_object *types[IRM_NATIVE_MAX_ARGS] = {0};
  for (size_t i = 0; i < n; i++) {
    const irm_any *v = irm_array_at(arr, i);
    types[i] = v->type_code == IRM_OBJECT ? v->v_obj : NULL;
  }
  ops_ctx c;
  rc = check_and_infer(def, types, n, attrs, &c, &type);
  irm_object_release((irm_object *)c.attrs);
  if (rc) return rc;
  *ret = irm_any_object(type);
  return IRM_OK;
}

/* FEvaluate(inputs Array of Tensors, attrs Map or NONE [, result type]) ->
 * Tensor. The result type is inferred from the inputs; a given one must
 * match it. */
int irm_ops_eval_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const ops_op_def *def = resource;
  const char *fn = "FEvaluate";
  irm_object *arr = NULL, *attrs = NULL, *given = NULL, *type = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Array", &arr);
  if (!rc) rc = arg_attrs(fn, args, nargs, 1, &attrs);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_object(fn, args, 2, NULL, &given);
  if (rc) return irm_error_context(rc, "%s", def->name);
  size_t n = irm_array_size(arr);
  if (n > IRM_NATIVE_MAX_ARGS || (def->num_inputs >= 0 && n != (size_t)def->num_inputs))
    return irm_error(IRM_ETYPE, "%s takes %d argument%s, got %zu", def->name, (int)def->num_inputs,
                     def->num_inputs == 1 ? "" : "s", n);
  irm_object *types[IRM_NATIVE_MAX_ARGS] = {0};
  const irm_tensor *inputs[IRM_NATIVE_MAX_ARGS] = {0};
  ops_ctx c = {def, NULL, types, n};
  for (size_t i = 0; !rc && i < n; i++) {
    const irm_any *v = irm_array_at(arr, i);
    char a[64];
    if (v->type_code != IRM_OBJECT || !irm_is_tensor(v->v_obj))
      rc = irm_error(IRM_ETYPE, "%s: %s must be a tensor, got %s", def->name, irm_ops_arg_text_(&c, i, a),
                     irm_any_describe_(v));
    else if (!(rc = irm_tensor_type_of(v->v_obj, &types[i]))) inputs[i] = v->v_obj;
  }
  if (!rc) rc = check_and_infer(def, types, n, attrs, &c, &type);
  if (!rc && given && !irm_dataflow_type_equal(given, type)) {
    char g[OPS_TYPE_BUF], t[OPS_TYPE_BUF];
    rc = irm_error(IRM_ETYPE, "%s: the result type %s does not match the inputs, which give %s", def->name,
                   irm_ops_type_text_(given, g), irm_ops_type_text_(type, t));
  }
  irm_tensor *out = NULL;
  if (!rc)
    rc = irm_tensor_new(irm_tensor_type_dtype(type), irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL,
                        &out);
  if (!rc) rc = def->eval(&c, inputs, out);
  for (size_t i = 0; i < n; i++) irm_object_release(types[i]);
  irm_object_release(type);
  irm_object_release((irm_object *)c.attrs);
  if (rc) {
    irm_object_release(out);
    return rc;
  }
  *ret = irm_any_object(out);
  return IRM_OK;
}

/* ---- registration ------------------------------------------------------------------ */

/* attr's current value is NONE (or no op has it yet). */
static int attr_missing(irm_kind *kind, const char *attr, int *missing) {
  irm_any v = irm_any_none();
  int rc = irm_kind_get_attr(kind, attr, &v);
  if (rc == IRM_EATTR) {
    irm_clear_error();
    rc = IRM_OK;
  }
  *missing = v.type_code == IRM_NONE;
  irm_any_release(&v);
  return rc;
}

static int set_func_attr(irm_kind *kind, const char *attr, irm_packed_cfunc body, const ops_op_def *def) {
  int missing = 0;
  int rc = attr_missing(kind, attr, &missing);
  if (rc || !missing) return rc;
  irm_object *f = NULL;
  rc = irm_func_new_packed(body, (void *)def, NULL, &f);
  if (!rc) {
    irm_any v = irm_any_object(f);
    rc = irm_kind_set_attr(kind, attr, &v, 10);
  }
  irm_object_release(f);
  return rc;
}

static int add_attr(irm_kind *kind, const ops_attr_def *a) {
  int rc = irm_kind_option(kind, a->name, NULL, NULL);
  if (rc != IRM_EATTR) return rc; /* there already (a retry), or a failure */
  irm_clear_error();
  irm_any def = irm_any_none();
  if (a->default_text && (rc = irm_option_parse_text(a->type, a->default_text, &def))) return rc;
  rc = irm_kind_add_option(kind, a->name, a->type, &def, a->doc, a->required);
  irm_any_release(&def);
  return rc;
}

/* Registers def, or completes what a failed earlier run left out. */
static int register_op(const ops_op_def *def) {
  irm_kind *kind = NULL;
  int rc = irm_kind_find(IRM_OP_CATEGORY, def->name, &kind);
  if (rc == IRM_EVALUE) {
    irm_clear_error();
    rc = irm_op_register(def->name, def->num_inputs, &kind);
  } else if (!rc && def->num_inputs != -1) {
    irm_any n = irm_any_none(); /* a failed earlier run may have left the category's -1 */
    rc = irm_kind_get_attr(kind, IRM_OP_ATTR_NUM_INPUTS, &n);
    if (!rc && n.v_int != def->num_inputs) rc = irm_op_set_num_inputs(kind, def->num_inputs);
  }
  for (size_t i = 0; !rc && i < def->n_attrs; i++) rc = add_attr(kind, &def->attrs[i]);
  int missing = 0;
  if (!rc) rc = attr_missing(kind, IRM_OP_ATTR_PATTERN, &missing);
  if (!rc && missing) {
    irm_any p = irm_any_int(def->pattern);
    rc = irm_kind_set_attr(kind, IRM_OP_ATTR_PATTERN, &p, 10);
  }
  if (!rc) rc = set_func_attr(kind, IRM_OP_ATTR_INFER_TYPE, irm_ops_infer_packed_, def);
  if (!rc) rc = set_func_attr(kind, IRM_OP_ATTR_EVALUATE, irm_ops_eval_packed_, def);
  return rc ? irm_error_context(rc, "registering op '%s'", def->name) : IRM_OK;
}

/* The built-in two-input ops whose inputs may swap: TOpIsCommutative,
 * which the pattern matcher reads. */
static const char *const commutative_ops[] = {"add",   "multiply",  "maximum",     "minimum",
                                              "equal", "not_equal", "logical_and", "logical_or"};

static int set_commutative(void) {
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < sizeof commutative_ops / sizeof commutative_ops[0]; i++) {
    irm_kind *kind = NULL;
    int missing = 0;
    rc = irm_kind_find(IRM_OP_CATEGORY, commutative_ops[i], &kind);
    if (!rc) rc = attr_missing(kind, IRM_OP_ATTR_COMMUTATIVE, &missing);
    if (!rc && missing) {
      irm_any yes = irm_any_bool(true);
      rc = irm_kind_set_attr(kind, IRM_OP_ATTR_COMMUTATIVE, &yes, 10);
    }
  }
  return rc;
}

int irm_register_builtin_ops_(void) {
  const struct {
    const ops_op_def *ops;
    size_t n;
  } tables[] = {
      {irm_ops_elemwise_, irm_ops_elemwise_count_},   {irm_ops_compare_, irm_ops_compare_count_},
      {irm_ops_reduce_, irm_ops_reduce_count_},       {irm_ops_nn_, irm_ops_nn_count_},
      {irm_ops_conv_, irm_ops_conv_count_},           {irm_ops_winograd_, irm_ops_winograd_count_},
      {irm_ops_pool_, irm_ops_pool_count_},           {irm_ops_shape_, irm_ops_shape_count_},
      {irm_ops_image_, irm_ops_image_count_},         {irm_ops_layout_, irm_ops_layout_count_},
      {irm_ops_conv3d_, irm_ops_conv3d_count_},       {irm_ops_qnn_, irm_ops_qnn_count_},
      {irm_ops_qnn_nchwc_, irm_ops_qnn_nchwc_count_}, {irm_ops_annotation_, irm_ops_annotation_count_},
  };
  int rc = IRM_OK;
  for (size_t t = 0; !rc && t < sizeof tables / sizeof tables[0]; t++)
    for (size_t i = 0; !rc && i < tables[t].n; i++) rc = register_op(&tables[t].ops[i]);
  return rc ? rc : set_commutative();
}
