/* The op registry: the "op" category of the kind registry (kind.h).
 *
 * An op is a kind of category "op". Its option schema is the schema of its
 * call attributes (a Call's attrs Map is validated against it exactly as an
 * executor's options are, defaults filled in); its kind attributes are the
 * per-op attributes:
 *
 *   "num_inputs"  int: the argument count a Call must have; -1: any number
 *                 (set by irm_op_register; always present).
 *   "TOpPattern"  int, an irm_op_pattern (FuseOps reads it).
 *   "FInferType"  Function (arg_types Array, attrs Map) -> result type.
 *   "FEvaluate"   Function (inputs Array of Tensors, attrs Map,
 *                 result type) -> Tensor (or Array of Tensors for a tuple
 *                 result): the reference semantics ir.Evaluate runs.
 *   "FCodegenC"   Function used by the C code generators.
 *
 * Ops appear in expressions as "dataflow.Op" nodes (expr.h): a Call's callee.
 * Op nodes are interned: irm_op_get gives the same object for the same
 * name, so comparing ops is comparing pointers.
 *
 * Thread safety: as kind.h; every function may be called from any thread.
 */
#ifndef IRM_OP_H
#define IRM_OP_H

#include "irm/kind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kind category of ops. */
#define IRM_OP_CATEGORY "op"

/* Op attribute names. */
#define IRM_OP_ATTR_NUM_INPUTS "num_inputs"
#define IRM_OP_ATTR_PATTERN "TOpPattern"
#define IRM_OP_ATTR_INFER_TYPE "FInferType"
#define IRM_OP_ATTR_EVALUATE "FEvaluate"
#define IRM_OP_ATTR_CODEGEN_C "FCodegenC"
/* Bool: a two-input op whose inputs may swap (add, multiply, maximum,
 * ...); the pattern matcher then tries a call pattern's two arguments in
 * both orders, as TVM's does. A plugin's op sets it like any attribute. */
#define IRM_OP_ATTR_COMMUTATIVE "TOpIsCommutative"

/* TVM's op patterns, with TVM's values; fusion combines them in this
 * order of generality. */
typedef enum irm_op_pattern {
  IRM_OP_ELEMWISE = 0,
  IRM_OP_BROADCAST = 1,
  IRM_OP_INJECTIVE = 2,
  IRM_OP_COMM_REDUCE = 3,
  IRM_OP_OUT_ELEMWISE_FUSABLE = 4,
  IRM_OP_TUPLE = 7,
  IRM_OP_OPAQUE = 8
} irm_op_pattern;

/* "elemwise", "broadcast", "injective", "reduce", "out-elemwise-fusable",
 * "tuple", "opaque"; NULL for another value. Static. */
IRM_API const char *irm_op_pattern_name(irm_op_pattern pattern);

/* Registers an op: a kind of category "op" named name, which must be an
 * identifier of the text form (docs/ir-text.md: letters, digits and '_'
 * in segments joined by '.', each starting with a letter or '_', like
 * "nn.conv2d"; at most 255 bytes; not "const", "fn" or "let"), so every
 * call prints as text that parses; with "num_inputs" set to num_inputs (>= 0, or -1
 * for any number). Add call attributes with irm_kind_add_option and per-op
 * attributes with irm_kind_set_attr on *out_kind (borrowed, valid for the
 * process; may be NULL). Recorded in the registration journal like every
 * kind. Errors: KeyError (already registered),
 * ValueError (a name that is not such an identifier, naming it;
 * num_inputs < -1), MemoryError. */
IRM_API int irm_op_register(const char *name, int32_t num_inputs, irm_kind **out_kind);

/* The "dataflow.Op" node of a registered op. *out NEW (the interned node).
 * Errors: KeyError "unknown op 'nn.conv'" with the closest name,
 * ValueError (NULL arguments), MemoryError. */
IRM_API int irm_op_get(const char *name, irm_object **out);

/* The name of an op node (borrowed, static for the process); NULL when op
 * is not a dataflow.Op. */
IRM_API const char *irm_op_name(const irm_object *op);

/* The op's kind (borrowed, valid for the process); NULL when op is not an
 * dataflow.Op or its registration was rolled back. */
IRM_API irm_kind *irm_op_kind(const irm_object *op);

/* The op's "num_inputs"; -2 when op is not a registered dataflow.Op. */
IRM_API int32_t irm_op_num_inputs(const irm_object *op);

/* A per-op attribute as a NEW value; NONE when this op has none.
 * AttributeError when no op ever had attr (with the closest name);
 * KeyError when op's registration was rolled back; TypeError when op is
 * not a dataflow.Op. */
IRM_API int irm_op_get_attr(const irm_object *op, const char *attr, irm_any *out);

/* The op's "TOpPattern"; IRM_OP_OPAQUE when it has none. */
IRM_API irm_op_pattern irm_op_pattern_of(const irm_object *op);

/* Checks a Call's attributes against the op's schema: *out a NEW Map,
 * converted and with defaults filled in (irm_kind_validate). attrs may be
 * NULL (none given). Errors: AttributeError naming the op and the unknown
 * attribute with the closest one, TypeError naming the op, the attribute
 * and both types, ValueError for a missing required attribute, TypeError
 * when op is not a dataflow.Op. */
IRM_API int irm_op_check_attrs(const irm_object *op, const irm_object *attrs, irm_object **out);

/* Runs the op's FInferType on arg_types (an Array of types, borrowed) and
 * attrs (the call's checked Map, borrowed): *out a NEW type. Errors:
 * TypeError "<op>: ..." from the function (prefixed with the op's name when
 * its message lacks it), TypeError when the op has no FInferType or it
 * returns something that is not a type, TypeError when op is not an
 * dataflow.Op. */
IRM_API int irm_op_infer_type(const irm_object *op, const irm_object *arg_types, const irm_object *attrs,
                              irm_object **out);

/* Runs the op's FEvaluate on inputs (an Array of Tensors or Arrays of
 * them, borrowed), attrs and the result type: *out a NEW Tensor or Array.
 * When result_type is a type (not NULL), the value must have it: shape
 * and dtype of every tensor, the fields of a tuple. Errors: RuntimeError
 * when the op has no FEvaluate, TypeError naming the op when it returns
 * something else than a Tensor or Array or a value of another type than
 * result_type, the function's own. */
IRM_API int irm_op_evaluate(const irm_object *op, const irm_object *inputs, const irm_object *attrs,
                            const irm_object *result_type, irm_any *out);

/* Sets an op kind's "num_inputs" (>= 0, or -1 for any number), replacing
 * the value irm_op_register or the category gave it. For setup functions.
 * Errors: ValueError (NULL kind, num_inputs < -1, a kind of another
 * category), RuntimeError (a rolled-back kind), MemoryError. */
IRM_API int irm_op_set_num_inputs(irm_kind *kind, int32_t num_inputs);

#if defined(__GNUC__) || defined(__clang__) /* constructors: GCC or Clang only */
/* Registers an op when the program (or plugin) starts, then calls
 * setup(kind) to add its attributes (an op registered this way takes any
 * number of inputs until setup calls irm_op_set_num_inputs):
 *   static int my_setup(irm_kind *k) { return irm_op_set_num_inputs(k, 2); }
 *   IRM_REGISTER_OP("my.op", my_setup);
 * A failure goes to the warning handler; inside a plugin the registration
 * runs in the plugin's init and a failure fails the load. */
#define IRM_REGISTER_OP(name, setup) IRM_REGISTER_KIND(IRM_OP_CATEGORY, name, setup)
#endif

#ifdef __cplusplus
}
#endif

#endif
