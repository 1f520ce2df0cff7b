/* The text form of the dataflow IR ("ir.Print" / "ir.Parse") and the
 * built-in example models ("ir.ExampleModel").
 *
 * The syntax (docs/ir-text.md) reads like Relay's text format, in SSA
 * form: each call, tuple and projection gets a `%n = ...` line, so deep
 * programs print and parse without deep recursion:
 *
 *   #[version = "irm-0.1"]
 *   attributes { mod_name = "default", target = "llvm -mcpu=skylake" }
 *   def @main(%x: Tensor[(1, 8), float32]) -> Tensor[(1, 8), float32] {
 *     %0 = nn.relu(%x) : Tensor[(1, 8), float32];
 *     %0
 *   }
 *
 * parse(print(m)) is structurally equal to m for every construct,
 * module attributes included.
 *
 * Thread safety: every function may be called from any thread.
 */
#ifndef IRM_IR_TEXT_H
#define IRM_IR_TEXT_H

#include "irm/dataflow/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest nesting the parser accepts inside one expression (brackets,
 * nested functions, tuples); deeper text is a ValueError. SSA lines do not
 * nest, so long programs are not limited by it. */
#define IRM_IR_PARSE_MAX_DEPTH 512

/* The text of a module (its attributes and every function; functions of
 * other types print as a comment naming their type). *out a NEW String.
 * Errors: TypeError (not an IRModule; an attribute value without a text
 * form, such as a pointer or a function, naming the attribute), ValueError
 * (NULL out), MemoryError. ffi.Repr of a module gives the same text, with
 * values that have no text form as comments. */
IRM_API int irm_ir_print(const irm_module *mod, irm_object **out);

/* The text of one expression, type or function, as it would appear in a
 * module (free variables by name). *out a NEW String. Errors: TypeError
 * (not an IR node), ValueError, MemoryError. */
IRM_API int irm_ir_print_node(const irm_object *node, irm_object **out);

/* Parses a module from len bytes of text (need not be NUL-terminated;
 * must be UTF-8). *out NEW; NULL on failure, when nothing stays
 * allocated. Errors: ValueError "line 3, column 14: expected ',' or ')'
 * after an argument, got ';'" (every syntax, name and scope error gives
 * line and column and what was expected; undefined names suggest the
 * closest one), KeyError for an unknown op with the closest name, errors
 * of the constructors with the line and column (attribute types, input
 * counts), ValueError beyond IRM_IR_PARSE_MAX_DEPTH, MemoryError. */
IRM_API int irm_ir_parse(const char *text, size_t len, irm_module **out);

/* The names of the built-in example models, a NEW Array of Strings. */
IRM_API int irm_ir_example_model_names(irm_object **out);

/* A built-in example model (NULL name: the default, "cnn"), parsed from
 * its text and with its parameters (the module's "params" attribute)
 * generated from a fixed seed. *out NEW. KeyError with the closest name. */
IRM_API int irm_ir_example_model(const char *name, irm_module **out);

/* The text of a built-in example model (borrowed, static); NULL for an
 * unknown name. */
IRM_API const char *irm_ir_example_model_text(const char *name);

#ifdef __cplusplus
}
#endif

#endif
