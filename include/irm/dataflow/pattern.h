/* Dataflow patterns and rewrite rules (docs/patterns.md).
 *
 * A pattern (type "dataflow.DFPattern", immutable) describes a shape of
 * expression, with the features of TVM's dataflow pattern language:
 *
 *   wildcard            any expression
 *   op(name)            the op `name` (the callee of a call pattern)
 *   call(callee, args)  a call; args NULL: any arguments
 *   constant            any dataflow.Constant
 *   var(name)           a dataflow.Var (name NULL: any; else its name hint)
 *   expr(e)             an expression structurally equal to e
 *   tuple(fields)       a dataflow.Tuple (fields NULL: any fields)
 *   tuple_get_item      a projection (index -1: any index)
 *   alt(a, b)           a | b (a first)
 *   optional            p | op(p)  (TVM's optional)
 *   has_attr(p, attrs)  p, and a call whose attributes hold attrs' entries
 *                       (equal values), a function whose attributes do, or
 *                       an Op whose registered attributes do (TVM's:
 *                       is_op("add").has_attr({"TOpPattern": 1}))
 *   function(params, body)  a function (params NULL: any parameters)
 *   let(var, value, body)   a Let
 *   has_type/has_dtype/has_shape(p, ...)  p, and a checked type (for a
 *                       Constant or annotated Var: its own) that equals /
 *                       has that dtype / that shape
 *   dominates(parent, path, child)   child, whose inputs lead back through
 *                       nodes matching path only, and end at one node
 *                       matching parent on every such way (TVM's
 *                       DominatorPattern)
 *   capture(name, p)    p, remembered under name; a name met twice must
 *                       bind the same expression
 *
 * A rule (type "dataflow.RewriteRule") is a name, a pattern (the left-hand
 * side), conditions ("where"), a benefit and either a right-hand side, an
 * expression over the captures (its free Vars named like captures stand for
 * them), or a callback. The driver that applies rules (the pattern pass) is
 * in pattern_pass.h.
 *
 * Ownership: constructors retain their object arguments and copy strings;
 * *out is NEW. Errors of every constructor: ValueError (NULL out or a NULL
 * required argument), TypeError naming the argument of the wrong type,
 * MemoryError.
 *
 * Thread safety: patterns and rules are immutable; every function may be
 * called from any thread (a callback runs on the caller's thread).
 */
#ifndef IRM_PATTERN_H
#define IRM_PATTERN_H

#include "irm/dataflow/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum irm_pattern_kind {
  IRM_PATTERN_NONE = 0, /* not a pattern */
  IRM_PATTERN_WILDCARD,
  IRM_PATTERN_OP,
  IRM_PATTERN_CALL,
  IRM_PATTERN_CONSTANT,
  IRM_PATTERN_VAR,
  IRM_PATTERN_EXPR,
  IRM_PATTERN_TUPLE,
  IRM_PATTERN_TUPLE_GET_ITEM,
  IRM_PATTERN_ALT,
  IRM_PATTERN_ATTR,
  IRM_PATTERN_TYPE,
  IRM_PATTERN_DTYPE,
  IRM_PATTERN_SHAPE,
  IRM_PATTERN_DOMINATOR,
  IRM_PATTERN_CAPTURE,
  IRM_PATTERN_FUNCTION,
  IRM_PATTERN_LET
} irm_pattern_kind;

/* The kind of p; IRM_PATTERN_NONE for NULL or another object. */
IRM_API irm_pattern_kind irm_pattern_kind_of(const irm_object *p);

IRM_API int irm_pattern_wildcard(irm_object **out);
/* KeyError for an unregistered op, naming the closest op. */
IRM_API int irm_pattern_op(const char *name, irm_object **out);
/* args: n patterns, or NULL (any arguments; n ignored). */
IRM_API int irm_pattern_call(irm_object *callee, irm_object *const *args, size_t n, irm_object **out);
IRM_API int irm_pattern_constant(irm_object **out);
IRM_API int irm_pattern_var(const char *name, irm_object **out);
IRM_API int irm_pattern_expr(irm_object *expr, irm_object **out);
IRM_API int irm_pattern_tuple(irm_object *const *fields, size_t n, int any_fields, irm_object **out);
IRM_API int irm_pattern_tuple_get_item(irm_object *tuple, int64_t index, irm_object **out);
IRM_API int irm_pattern_alt(irm_object *a, irm_object *b, irm_object **out);
/* p | op_name(p). */
IRM_API int irm_pattern_optional(irm_object *p, const char *op_name, irm_object **out);
/* attrs: a Map. */
IRM_API int irm_pattern_has_attr(irm_object *p, const irm_object *attrs, irm_object **out);
IRM_API int irm_pattern_has_type(irm_object *p, irm_object *type, irm_object **out);
IRM_API int irm_pattern_has_dtype(irm_object *p, DLDataType dtype, irm_object **out);
IRM_API int irm_pattern_has_shape(irm_object *p, const int64_t *shape, int32_t ndim, irm_object **out);
IRM_API int irm_pattern_dominates(irm_object *parent, irm_object *path, irm_object *child, irm_object **out);
/* TVM's FunctionPattern: a dataflow.Function whose parameters match params
 * (n patterns; any_params: any parameters) and whose body matches body. */
IRM_API int irm_pattern_function(irm_object *const *params, size_t n, int any_params, irm_object *body,
                                 irm_object **out);
/* TVM's LetPattern: a Let whose variable, value and body match. */
IRM_API int irm_pattern_let(irm_object *var, irm_object *value, irm_object *body, irm_object **out);
/* name: [A-Za-z_][A-Za-z0-9_]* (ValueError otherwise). */
IRM_API int irm_pattern_capture(const char *name, irm_object *p, irm_object **out);

/* ---- introspection: a pattern's fields (TVM's names in Python) -------------
 *
 * Borrowed results, valid while p lives; NULL (index -1, dtype all zero,
 * name NULL) when p is not a pattern or its kind has no such field.
 *
 *   kind            irm_pattern_sub(p, 0, 1, 2)  irm_pattern_list      irm_pattern_data / others
 *   CALL            op (the callee pattern)      args (NULL: any)
 *   TUPLE                                        fields (NULL: any)
 *   TUPLE_GET_ITEM  tuple                                              irm_pattern_index (-1: any)
 *   ALT             left, right
 *   ATTR            pattern                                            the Map of attributes
 *   TYPE            pattern                                            the type
 *   DTYPE           pattern                                            irm_pattern_dtype
 *   SHAPE           pattern                                            irm_pattern_shape
 *   DOMINATOR       parent, path, child
 *   CAPTURE         pattern                                            irm_pattern_name
 *   FUNCTION        body                         params (NULL: any)
 *   LET             var, value, body
 *   OP                                                                 the Op; irm_pattern_name
 *   VAR                                                                irm_pattern_name (NULL: any)
 *   EXPR                                                               the expression
 *
 * Lists are Arrays of patterns. Thread safety: patterns are immutable. */
IRM_API irm_object *irm_pattern_sub(const irm_object *p, int i);
IRM_API irm_object *irm_pattern_list(const irm_object *p);
IRM_API irm_object *irm_pattern_data(const irm_object *p);
IRM_API int64_t irm_pattern_index(const irm_object *p);
IRM_API DLDataType irm_pattern_dtype(const irm_object *p);
/* The sizes of a SHAPE pattern (*ndim set; NULL for a scalar too). */
IRM_API const int64_t *irm_pattern_shape(const irm_object *p, int32_t *ndim);
/* The op's name (OP), the variable's name hint (VAR; NULL: any), the
 * capture's name (CAPTURE). */
IRM_API const char *irm_pattern_name(const irm_object *p);

/* p as the left-hand side of the rules text (irm_rewrite_rules_parse reads
 * it back to a pattern that prints the same): *out a NEW String. Errors:
 * ValueError for a pattern the text cannot say (a call of any arguments,
 * a named var pattern, an op pattern outside a call, ...), TypeError (p
 * is not a pattern), MemoryError. */
IRM_API int irm_pattern_print(const irm_object *p, irm_object **out);

/* Whether pattern matches expr: *matched 1 or 0; *captures (may be NULL)
 * a NEW Map capture name -> expression when it matched, else NULL.
 * Errors: TypeError (pattern is not a pattern), ValueError (NULL
 * arguments), MemoryError. */
IRM_API int irm_pattern_match(const irm_object *pattern, irm_object *expr, int *matched, irm_object **captures);

/* irm_pattern_match that also gives *inputs (NEW Array; NULL unless it
 * matched): the expressions the match treats as its inputs, each once, in
 * the order met: what wildcards and var patterns matched, and the
 * arguments of a call pattern that takes any arguments. What partitioning
 * makes the parameters of a composite function (irm_pattern_partition).
 * Errors as irm_pattern_match; ValueError for NULL inputs. */
IRM_API int irm_pattern_match_inputs(const irm_object *pattern, irm_object *expr, int *matched, irm_object **captures,
                                     irm_object **inputs);

/* irm_pattern_match that gives *nodes (NEW Array; NULL unless it matched)
 * instead of the captures: a 2-item Array [pattern, expression] for each
 * node of pattern (sub-patterns included) and what it matched, children
 * before parents; a pattern that matched several expressions (inside a
 * dominator's path) has a pair for each. What TVM's node_map holds.
 * Errors as irm_pattern_match; ValueError for NULL nodes. */
IRM_API int irm_pattern_match_nodes(const irm_object *pattern, irm_object *expr, int *matched, irm_object **nodes);

/* ---- rules ---------------------------------------------------------------- */

/* What a where-condition `attr(key)` reads: *out NEW (NONE when unset).
 * The pattern pass reads module attributes, then PassContext configs. */
typedef int (*irm_pattern_attr_fn)(void *ctx, const char *key, irm_any *out);

/* A rewrite callback: matched (the expression the pattern matched) and
 * captures (a Map) are borrowed; *out a NEW replacement, or NULL to leave
 * the expression alone. */
typedef int (*irm_rewrite_fn)(void *ctx, irm_object *matched, const irm_object *captures, irm_object **out);

/* A rule `name : lhs => rhs`. rhs: an expression whose free Vars are named
 * like captures of lhs. It is type-checked now, on a sample typing of the
 * captures (every wildcard capture Tensor[(2, 3), float32] unless the
 * pattern says more; a constant capture a float32 scalar 1): when both
 * sides type on the sample and their types differ, TypeError naming the
 * rule and both types. Errors also: ValueError (a free Var of rhs that no
 * capture names, with the closest capture; a bad name), TypeError (lhs not
 * a pattern, rhs not an expression). benefit orders rules (higher first;
 * equal: as given). */
IRM_API int irm_rewrite_rule_new(const char *name, irm_object *lhs, irm_object *rhs, int benefit, irm_object **out);

/* A rule whose replacement comes from fn (ctx given to it; release(ctx),
 * may be NULL, runs when the rule dies, and on failure here). */
IRM_API int irm_rewrite_rule_new_callback(const char *name, irm_object *lhs, irm_rewrite_fn fn, void *ctx,
                                          void (*release)(void *ctx), int benefit, irm_object **out);

/* Rules from text (docs/patterns.md): `rule NAME [benefit N] : LHS [where
 * COND && ...] => RHS`, any number. *out a NEW Array of rules. Errors:
 * ValueError / TypeError / KeyError "line L, column C: ..." at the fault
 * (an unknown op, a capture the right-hand side uses but the left does not
 * bind, sides of different types, ...), MemoryError. */
IRM_API int irm_rewrite_rules_parse(const char *text, size_t len, irm_object **out);

/* The text of a rules file: `pass NAME [opt_level N] { rule ... }` blocks,
 * any number. *out a NEW Array of Maps {name: str, opt_level: int, rules:
 * Array of rules}. Errors as irm_rewrite_rules_parse. */
IRM_API int irm_rewrite_rules_parse_passes(const char *text, size_t len, irm_object **out);

IRM_API const char *irm_rewrite_rule_name(const irm_object *rule);
IRM_API irm_object *irm_rewrite_rule_lhs(const irm_object *rule);
IRM_API int irm_rewrite_rule_benefit(const irm_object *rule);

/* Applies rule at expr (borrowed): when the pattern matches and the
 * conditions hold (attr read through attr_fn, may be NULL: unset), *out is
 * the NEW replacement; else *out NULL. Errors: the callback's, TypeError
 * (not a rule), MemoryError. */
IRM_API int irm_rewrite_rule_apply(const irm_object *rule, irm_object *expr, irm_pattern_attr_fn attr_fn,
                                   void *attr_ctx, irm_object **out);

/* The op names rule's left-hand side may be rooted at: *ops a NEW Array
 * of Strings, or NULL when it may match any node. */
IRM_API int irm_rewrite_rule_root_ops(const irm_object *rule, irm_object **ops);

#ifdef __cplusplus
}
#endif

#endif
