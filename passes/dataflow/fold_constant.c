/* FoldConstant (dataflow/passes.h): a post-order rewrite; a call of an op whose
 * rebuilt arguments are all Constants is evaluated through the op's
 * FEvaluate and becomes a Constant (a tuple of them for a tuple result),
 * unless it would create more than FoldConstant.max_bytes (then it stays,
 * for run time);
 * a projection of a Tuple node becomes the field. Calls of ops without
 * FEvaluate stay as they are. A Let whose value folds to a Constant is
 * replaced by its body with the variable replaced by the Constant, folded
 * again (as TVM's FoldConstant does): `let %t = const(1); add(%t, %t)`
 * becomes `const(2)`. */
#include "pass_util.h"
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

/* ---- the memory limit ------------------------------------------------------------- */

/* FoldConstant.max_bytes' default: 8 MiB. */
#define FOLD_DEFAULT_MAX_BYTES ((int64_t)8 << 20)

typedef struct fold_ctx {
  uint64_t max_bytes;
  const irm_object *var; /* inside a Let's body being re-folded: the variable bound to value */
  irm_object *value;
} fold_ctx;

static uint64_t add_sat(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

static uint64_t mul_sat(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

/* What folding a call to a value of type t costs: its bytes, and the
 * scratch the built-in ops keep (8 bytes per result element at most). */
static uint64_t result_cost(const irm_object *t, int nesting) {
  if (irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR) {
    int64_t n = irm_tensor_type_numel(t);
    return mul_sat(n > 0 ? (uint64_t)n : 0, irm_dtype_size(irm_tensor_type_dtype(t)) + 8);
  }
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TUPLE) return 0;
  if (nesting >= 64) return UINT64_MAX;
  uint64_t sum = 0;
  for (size_t i = 0; i < irm_tuple_type_size(t); i++)
    sum = add_sat(sum, result_cost(irm_tuple_type_field(t, i), nesting + 1));
  return sum;
}

/* Whether evaluating the call would create more than the limit: its
 * result, the ops' scratch, and the widened copies (8 bytes an element)
 * nn.conv2d makes of inputs that are not float32. */
static int too_big(const fold_ctx *fc, const irm_object *type, const irm_object *inputs) {
  uint64_t cost = result_cost(type, 0);
  for (size_t i = 0; i < irm_array_size(inputs); i++) {
    const irm_object *t = irm_array_at(inputs, i)->v_obj;
    const DLTensor *dl = irm_tensor_dl(t);
    if (dl && !(dl->dtype.code == kDLFloat && dl->dtype.bits == 32))
      cost = add_sat(cost, mul_sat((uint64_t)irm_tensor_numel(t), 8));
  }
  return cost > fc->max_bytes;
}

/* ---- folding ------------------------------------------------------------------------ */

static int fold_call(const fold_ctx *fc, const irm_object *original, irm_object *call, irm_object **out) {
  /* nn.dropout stays, as in TVM (where it has no compute to fold with):
   * SimplifyInference removes it */
  if (!can_evaluate(irm_call_callee(call)) || irm_dataflow_is_call_of_(call, "nn.dropout")) { /* the call stays */
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
  if (!rc && too_big(fc, type, inputs)) { /* left for run time */
    irm_object_release(inputs);
    irm_object_release(type);
    irm_object_retain(call);
    *out = call;
    return IRM_OK;
  }
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

static int fold_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out);

static int fold_pre(void *ctx, irm_object *node, int *descend);

/* let %v = const; body  ->  body[%v := const], folded again. */
static int fold_let(const fold_ctx *fc, irm_object *let, irm_object **out) {
  fold_ctx sub = {fc->max_bytes, irm_let_var(let), irm_let_value(let)};
  const irm_expr_rewriter rw = {fold_pre, fold_post, &sub};
  return irm_expr_rewrite(&rw, irm_let_body(let), out);
}

static int fold_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  const fold_ctx *fc = ctx;
  irm_expr_kind kind = irm_expr_kind_of(rebuilt);
  if (kind == IRM_EXPR_VAR && fc->var && original == fc->var) {
    irm_object_retain(fc->value);
    *out = fc->value;
    return IRM_OK;
  }
  if (kind == IRM_EXPR_LET && irm_expr_kind_of(irm_let_value(rebuilt)) == IRM_EXPR_CONSTANT)
    return fold_let(fc, rebuilt, out);
  if (kind == IRM_EXPR_CALL && irm_expr_kind_of(irm_call_callee(rebuilt)) == IRM_EXPR_OP && all_constant_args(rebuilt))
    return fold_call(ctx, original, rebuilt, out);
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

/* The function pass: one rewrite per function, with the limit the pass
 * option, the module attribute or the PassContext gives (irm_pass_setting). */
static int fold_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                         void *resource, irm_object **out) {
  (void)ctx;
  (void)resource;
  irm_any v = irm_any_none();
  int64_t limit = FOLD_DEFAULT_MAX_BYTES;
  int rc = irm_pass_setting(options, "max_bytes", mod, "FoldConstant.max_bytes", &v);
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_int(&v, &limit);
  irm_any_release(&v);
  if (!rc && limit < 0) rc = irm_error(IRM_EVALUE, "FoldConstant: max_bytes must be >= 0, got %lld", (long long)limit);
  if (rc) return rc;
  fold_ctx fc = {(uint64_t)limit, NULL, NULL};
  const irm_expr_rewriter rw = {fold_pre, fold_post, &fc};
  return irm_dataflow_rewrite_function_(func, &rw, out);
}

int irm_dataflow_fold_constant(irm_module *mod, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_dataflow_fold_constant: out must not be NULL");
  return irm_function_pass_apply(mod, fold_function, NULL, NULL, NULL, out);
}

/* max_bytes has no default, so that a pipeline that does not give it
 * falls through to the module attribute and the PassContext. Idempotent. */
static int fold_setup(irm_kind *k) {
  if (irm_kind_option(k, "max_bytes", NULL, NULL) == IRM_OK) return IRM_OK;
  irm_clear_error();
  return irm_kind_add_option(k, "max_bytes", IRM_OPTION_INT, NULL,
                             "the most bytes folding one call may create (result and scratch); larger calls stay", 0);
}

/* FoldConstant.max_bytes: a module attribute, and the PassContext option
 * that migrates onto it. */
int irm_register_fold_constant_pass_(void) {
  irm_any max_bytes = irm_any_int(FOLD_DEFAULT_MAX_BYTES);
  int rc = irm_module_attr_register("FoldConstant.max_bytes", "int", 0);
  if (!rc) rc = irm_pass_config_register("FoldConstant.max_bytes", "int", &max_bytes, "FoldConstant.max_bytes");
  static const irm_dataflow_pass_def_ def = {"FoldConstant", 2, NULL, fold_function, fold_setup};
  return rc ? rc : irm_dataflow_pass_register_(&def);
}
