/* Expressions of the dataflow IR, and the one rewriter every pass uses.
 *
 * Nodes are immutable objects:
 *
 *   dataflow.Var           a variable: a name hint and an optional type;
 *                          two Vars are the same variable only if they are
 *                          the same object
 *   dataflow.GlobalVar     a module function by name (calls between
 *                          functions)
 *   dataflow.Constant      a tensor (tensor.h)
 *   dataflow.Tuple         fields...
 *   dataflow.TupleGetItem  tuple, index
 *   dataflow.Call          callee (an Op, GlobalVar, Function or Var),
 *                          args..., attrs (a Map checked against the op's
 *                          schema, op.h)
 *   dataflow.Let           var = value in body
 *   dataflow.Op            an op of the op registry (op.h)
 *   dataflow.Function      params..., body, result type, attributes; an
 *                          ir.BaseFunc subtype, so modules hold it, and an
 *                          expression, so a Call may call it (FuseOps'
 *                          Primitive functions)
 *
 * These are type keys, in the dialect's "dataflow." namespace. They
 * were "ir.Var" and so on before; those former keys still name the types
 * (irm_type_find, irm_object_is), so JSON saved with them loads. The
 * global functions that build nodes keep their names: ir.Var, ir.Call...
 *
 * All but dataflow.Function derive from the abstract "dataflow.Expr".
 * Every node may carry a checked type (what InferType found; dataflow/type.h);
 * a Var's checked type is its annotation, a Constant's is its tensor's
 * type.
 *
 * Structural equality and hashing compare variables up to renaming: two
 * expressions are equal when a one-to-one mapping of their Vars, in the
 * order they are first met, makes them identical. Var annotations,
 * function result types, Call attributes, constants' data and function
 * attributes take part; checked types do not (as in TVM: they are derived
 * by InferType, and a node with and without them is the same program).
 * Var name hints do not take part either. JSON keeps checked types and
 * sharing (a shared node is written once). ffi.Repr prints the text form
 * (dataflow/text.h).
 *
 * Ownership: constructors retain their object arguments; accessors return
 * borrowed references that live as long as the node. Nothing here changes
 * a node after it is made; "with" functions make copies.
 *
 * Thread safety: nodes are immutable; every function may be called from
 * any thread.
 */
#ifndef IRM_EXPR_H
#define IRM_EXPR_H

#include "irm/dataflow/type.h"
#include "irm/module.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum irm_expr_kind {
  IRM_EXPR_NONE = 0, /* not an expression */
  IRM_EXPR_VAR,
  IRM_EXPR_GLOBAL_VAR,
  IRM_EXPR_CONSTANT,
  IRM_EXPR_TUPLE,
  IRM_EXPR_TUPLE_GET_ITEM,
  IRM_EXPR_CALL,
  IRM_EXPR_LET,
  IRM_EXPR_OP,
  IRM_EXPR_FUNCTION
} irm_expr_kind;

/* What kind of expression e is; IRM_EXPR_NONE for NULL or any other
 * object. */
IRM_API irm_expr_kind irm_expr_kind_of(const irm_object *e);

/* "Var", "GlobalVar", "Constant", "Tuple", "TupleGetItem", "Call", "Let",
 * "Op", "Function"; NULL for IRM_EXPR_NONE or another value. Static. */
IRM_API const char *irm_expr_kind_name(irm_expr_kind kind);

/* The checked type of e (borrowed); NULL when not known yet or e is not an
 * expression. */
IRM_API irm_object *irm_expr_type(const irm_object *e);

/* Where the text parser read e (TVM's Span): 1 with *line and *column
 * (1-based; each may be NULL) when known, else 0 with both 0. Copies made
 * by irm_expr_with_children / irm_expr_with_type (so the rewriter's) keep
 * it; new nodes have none. Not part of structural equality or JSON. */
IRM_API int irm_expr_span(const irm_object *e, uint32_t *line, uint32_t *column);

/* A copy of e with checked type `type` (a type, or NULL to clear it). When
 * e already has an equal type, *out is e itself (retained). Vars and
 * Constants have fixed types: a different type is a TypeError. *out NEW.
 * Errors: TypeError (e not an expression, type not a type), ValueError
 * (NULL out), MemoryError. */
IRM_API int irm_expr_with_type(irm_object *e, irm_object *type, irm_object **out);

/* ---- constructors (all: *out NEW; ValueError for NULL out or a NULL
 * required argument; TypeError naming the argument of the wrong type;
 * MemoryError) ---------------------------------------------------------- */

/* A fresh variable. name_hint: [A-Za-z_][A-Za-z0-9_.]* (ValueError
 * otherwise, quoting it); type may be NULL. */
IRM_API int irm_var_new(const char *name_hint, irm_object *type, irm_object **out);

/* A reference to module function `name` (any non-empty UTF-8 text). Two
 * GlobalVars of the same name are equal. */
IRM_API int irm_global_var_new(const char *name, irm_object **out);

/* A constant holding tensor (retained; it must not be written after). */
IRM_API int irm_constant_new(irm_object *tensor, irm_object **out);

/* A tuple of n expressions (fields may be NULL when n is 0). */
IRM_API int irm_tuple_new(irm_object *const *fields, size_t n, irm_object **out);

/* Field `index` of tuple (index >= 0; checked against the tuple's type by
 * irm_dataflow_verify and InferType, not here). */
IRM_API int irm_tuple_get_item_new(irm_object *tuple, int64_t index, irm_object **out);

/* A call. callee: a dataflow.Op, dataflow.GlobalVar, dataflow.Function or
 * dataflow.Var. When it is an op, n must match its "num_inputs" (TypeError
 * "nn.relu takes 1 argument, got 2") and attrs (a Map or NULL) is checked
 * and completed by irm_op_check_attrs; for other callees attrs must be NULL or empty.
 * The call holds a uniqued copy of the checked attributes: calls with equal
 * checked attributes share one Map (all calls without any, one empty Map);
 * attrs itself is not retained. */
IRM_API int irm_call_new(irm_object *callee, irm_object *const *args, size_t n, const irm_object *attrs,
                         irm_object **out);

/* let var = value in body. var must be a dataflow.Var. */
IRM_API int irm_let_new(irm_object *var, irm_object *value, irm_object *body, irm_object **out);

/* A function of n parameters (distinct Vars) and body. ret_type may be
 * NULL (unknown). attrs: a Map of function attributes or NULL; registered
 * keys (module.h: IRM_BASE_FUNC_ATTR_*) are type-checked. KeyError naming
 * a parameter given twice. */
IRM_API int irm_function_new(irm_object *const *params, size_t n, irm_object *body, irm_object *ret_type,
                             const irm_object *attrs, irm_object **out);

/* ---- accessors (borrowed; NULL / 0 / -1 for a node of another kind) ----- */

IRM_API const char *irm_var_name(const irm_object *var);
IRM_API const char *irm_global_var_name(const irm_object *gv);
IRM_API irm_object *irm_constant_data(const irm_object *c);
IRM_API size_t irm_tuple_size(const irm_object *t);
IRM_API irm_object *irm_tuple_field(const irm_object *t, size_t i);
IRM_API irm_object *irm_tuple_item_source(const irm_object *e);
IRM_API int64_t irm_tuple_item_index(const irm_object *e);
IRM_API irm_object *irm_call_callee(const irm_object *call);
IRM_API size_t irm_call_arg_count(const irm_object *call);
IRM_API irm_object *irm_call_arg(const irm_object *call, size_t i);
/* The checked attributes (a Map, never NULL for a call; borrowed, shared
 * with every call of equal attributes: never change it). */
IRM_API const irm_object *irm_call_attrs(const irm_object *call);
IRM_API irm_object *irm_let_var(const irm_object *let);
IRM_API irm_object *irm_let_value(const irm_object *let);
IRM_API irm_object *irm_let_body(const irm_object *let);
IRM_API size_t irm_function_param_count(const irm_object *f);
IRM_API irm_object *irm_function_param(const irm_object *f, size_t i);
IRM_API irm_object *irm_function_body(const irm_object *f);
IRM_API irm_object *irm_function_ret_type(const irm_object *f);

/* ---- children ----------------------------------------------------------
 * Every node's sub-expressions in a fixed order, for generic walks:
 *   Var, GlobalVar, Constant, Op: none
 *   Tuple: fields          TupleGetItem: tuple
 *   Call: callee, args     Let: value, var, body
 *   Function: params, body
 * A Let's value comes before its var, so a post-order rewrite finishes
 * the value before it meets the variable it binds (InferType annotates an
 * unannotated variable from its value's type this way). */

IRM_API size_t irm_expr_child_count(const irm_object *e);
IRM_API irm_object *irm_expr_child(const irm_object *e, size_t i);

/* A copy of e with its children replaced (n must be irm_expr_child_count(e))
 * and everything else kept (attrs, index, name, function attributes and
 * result type); the checked type is dropped unless every child is the same
 * object, in which case *out is e itself (retained). The constructor's
 * checks apply (a Let's var must stay a Var, ...). *out NEW. */
IRM_API int irm_expr_with_children(irm_object *e, irm_object *const *children, size_t n, irm_object **out);

/* ---- the rewriter ------------------------------------------------------
 * A post-order walk over the expression graph that visits each distinct
 * node once (shared nodes are memoized by identity) and never recurses in
 * proportion to depth.
 *
 * For each node, pre (may be NULL) runs first and may set *descend = 0 to
 * keep the node's subtree as it is. Then the children are rewritten, and
 * `rebuilt` is the node with its rewritten children (the original object
 * itself when no child changed). post (may be NULL: keep `rebuilt`) then
 * writes the node's replacement to *out as a NEW reference (retain
 * `rebuilt` to keep it). A rewrite that changes nothing returns root
 * itself, so passes keep the pass manager's unchanged fast path.
 *
 * The callbacks borrow their arguments and may fail with an irm error
 * status, which stops the walk and is returned. */
typedef struct irm_expr_rewriter {
  int (*pre)(void *ctx, irm_object *node, int *descend);
  int (*post)(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out);
  void *ctx;
} irm_expr_rewriter;

/* Rewrites root. *out NEW. Errors: the callbacks', TypeError when root is
 * not an expression or a replacement breaks a constructor's rule (naming
 * the node kind), ValueError (NULL arguments), MemoryError. */
IRM_API int irm_expr_rewrite(const irm_expr_rewriter *rw, irm_object *root, irm_object **out);

/* Rewrites the body of every dataflow.Function of mod (other function
 * types are kept), sharing one memo across functions, and calls post on each
 * function itself last. *out NEW: mod itself (retained) when nothing
 * changed. Errors as irm_expr_rewrite and irm_module_with_function. */
IRM_API int irm_module_rewrite(const irm_expr_rewriter *rw, irm_module *mod, irm_module **out);

/* Calls fn(ctx, node) once per distinct node under root, children first.
 * fn borrows node; a nonzero return stops the walk and is returned. */
IRM_API int irm_expr_visit(irm_object *root, int (*fn)(void *ctx, irm_object *node), void *ctx);

/* ---- verification ------------------------------------------------------ */

/* Checks that mod is well formed (what the pass manager runs after every
 * pass that changed the module, as global "ir.Verify"): in each
 * dataflow.Function every Var is bound exactly once (as a parameter or by one
 * Let) and used only in scope; calls of ops have the op's input count and
 * attributes valid for its schema; tuple indices are in range where the
 * tuple's type is known; checked types agree where both sides are known
 * (a Let's var and its value, a function's result type and its body);
 * every GlobalVar names a function of mod. ValueError naming the function
 * and the offending expression (printed in the text form, cut to 200
 * bytes): "function 'main': variable %x is used out of its scope in ...".
 * TypeError when mod is not an IRModule. */
IRM_API int irm_dataflow_verify(const irm_module *mod);

#ifdef __cplusplus
}
#endif

#endif
