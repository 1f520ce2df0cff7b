/* FoldConstant (ir_passes.h): a post-order rewrite; a call of an op whose
 * rebuilt arguments are all Constants is evaluated through the op's
 * FEvaluate and becomes a Constant (a tuple of them for a tuple result);
 * a projection of a Tuple node becomes the field. Calls of ops without
 * FEvaluate stay as they are. Let-bound constants are not inlined (a Let's
 * variable and its uses are one node to the rewriter); DeadCodeElimination
 * and the text form do not need it. */
#include "ir_pass_util.h"
#include "irm/container.h"
#include "irm/error.h"

static int all_constant_args(const irm_object *call) {
  size_t n = irm_call_arg_count(call);
  for (size_t i = 0; i < n; i++)
    if (irm_expr_kind_of(irm_call_arg(call, i)) != IRM_EXPR_CONSTANT) return 0;
  return 1;
}

/* The type the call has: its checked type (the original's, when
 * rebuilding dropped it), else what FInferType says. *out NEW. */
static int result_type(const irm_object *original, const irm_object *call, const irm_object *inputs, irm_object **out) {
  irm_object *t = irm_expr_type(call);
  if (!t) t = irm_expr_type(original);
  if (t) {
    irm_object_retain(t);
    *out = t;
    return IRM_OK;
  }
  size_t n = irm_array_size(inputs);
  irm_any *types = irm_calloc(n ? n : 1, sizeof *types);
  if (!types) return irm_error_nomem_("folding constants");
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    irm_object *ti = irm_expr_type(irm_call_arg(call, i)); /* a Constant's type is always known */
    types[i] = irm_any_object(ti);
  }
  irm_object *arr = NULL;
  rc = irm_array_new(types, n, &arr);
  irm_free(types);
  if (!rc) rc = irm_op_infer_type(irm_call_callee(call), arr, irm_call_attrs(call), out);
  irm_object_release(arr);
  return rc;
}

/* A Constant, or a Tuple of them, holding value (a Tensor or an Array).
 * Tuples nest as deep as the op's result type, which is shallow. */
static int constant_of(const irm_any *value, irm_object **out) {
  if (value->type_code == IRM_OBJECT && irm_is_tensor(value->v_obj)) return irm_constant_new(value->v_obj, out);
  size_t n = irm_array_size(value->v_obj);
  irm_object **fields = irm_calloc(n ? n : 1, sizeof *fields);
  if (!fields) return irm_error_nomem_("folding constants");
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) rc = constant_of(irm_array_at(value->v_obj, i), &fields[i]);
  if (!rc) rc = irm_tuple_new(fields, n, out);
  for (size_t i = 0; i < n; i++) irm_object_release(fields[i]);
  irm_free(fields);
  return rc;
}

/* Whether op has an FEvaluate to fold with (errors count as no). */
static int can_evaluate(const irm_object *op) {
  irm_any v = irm_any_none();
  int yes = irm_op_get_attr(op, IRM_OP_ATTR_EVALUATE, &v) == IRM_OK && v.type_code == IRM_OBJECT;
  if (!yes) irm_clear_error();
  irm_any_release(&v);
  return yes;
}

static int fold_call(const irm_object *original, irm_object *call, irm_object **out) {
  if (!can_evaluate(irm_call_callee(call))) { /* the call stays */
    irm_object_retain(call);
    *out = call;
    return IRM_OK;
  }
  size_t n = irm_call_arg_count(call);
  irm_any *items = irm_calloc(n ? n : 1, sizeof *items);
  if (!items) return irm_error_nomem_("folding constants");
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(irm_constant_data(irm_call_arg(call, i)));
  irm_object *inputs = NULL, *type = NULL;
  int rc = irm_array_new(items, n, &inputs);
  irm_free(items);
  if (!rc) rc = result_type(original, call, inputs, &type);
  irm_any value = irm_any_none();
  if (!rc) rc = irm_op_evaluate(irm_call_callee(call), inputs, irm_call_attrs(call), type, &value);
  if (!rc) {
    irm_object *folded = NULL;
    rc = constant_of(&value, &folded);
    if (!rc && irm_expr_kind_of(folded) == IRM_EXPR_TUPLE) { /* keep the tuple's type */
      rc = irm_expr_with_type(folded, type, out);
      irm_object_release(folded);
    } else if (!rc) {
      *out = folded;
    }
  }
  irm_any_release(&value);
  irm_object_release(inputs);
  irm_object_release(type);
  return rc;
}

static int fold_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  (void)ctx;
  irm_expr_kind kind = irm_expr_kind_of(rebuilt);
  if (kind == IRM_EXPR_CALL && irm_expr_kind_of(irm_call_callee(rebuilt)) == IRM_EXPR_OP && all_constant_args(rebuilt))
    return fold_call(original, rebuilt, out);
  if (kind == IRM_EXPR_TUPLE_GET_ITEM) {
    irm_object *t = irm_tuple_item_source(rebuilt);
    int64_t i = irm_tuple_item_index(rebuilt);
    if (irm_expr_kind_of(t) == IRM_EXPR_TUPLE && (size_t)i < irm_tuple_size(t)) {
      *out = irm_tuple_field(t, (size_t)i);
      irm_object_retain(*out);
      return IRM_OK;
    }
  }
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

/* Nested functions the passes leave alone (Primitive, Compiler) are not
 * entered; the root function never is one of them (the loop skipped it). */
static int fold_pre(void *ctx, irm_object *node, int *descend) {
  (void)ctx;
  if (irm_expr_kind_of(node) == IRM_EXPR_FUNCTION && irm_base_func_should_skip(node, IRM_SKIP_DEFAULT)) *descend = 0;
  return IRM_OK;
}

static const irm_expr_rewriter fold_rw = {fold_pre, fold_post, NULL};

/* The function pass: one rewrite per function. */
static int fold_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                         void *resource, irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  (void)resource;
  return irm_ir_rewrite_function_(func, &fold_rw, out);
}

int irm_ir_fold_constant(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_ir_fold_constant: out must not be NULL");
  return irm_function_pass_apply(mod, fold_function, NULL, NULL, NULL, out);
}

int irm_register_fold_constant_pass_(void) {
  static const irm_ir_pass_def_ def = {"FoldConstant", 2, NULL, fold_function, NULL};
  return irm_ir_pass_register_(&def);
}
