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
 * Large tensors can be elided (irm_dataflow_print_ex, ffi.Repr): a tensor with
 * more than N elements prints as
 *
 *   const(float32, [32, 64], <elided 2048 elements>)
 *
 * with its dtype and shape but without its data. Such text is for reading:
 * irm_dataflow_parse refuses it (ValueError at the elided const).
 *
 * Thread safety: every function may be called from any thread.
 */
#ifndef IRM_DATAFLOW_TEXT_H
#define IRM_DATAFLOW_TEXT_H

#include <stdio.h>

#include "irm/dataflow/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest nesting the parser accepts inside one expression (brackets,
 * nested functions, tuples); deeper text is a ValueError. SSA lines do not
 * nest, so long programs are not limited by it. */
#define IRM_DATAFLOW_PARSE_MAX_DEPTH 512

/* The element count above which ffi.Repr of a module or of an IR node
 * (hence Python's str() and repr()) and the printing instrument elide a
 * tensor's data. */
#define IRM_DATAFLOW_PRINT_ELIDE_DEFAULT 16

/* The text of a module (its attributes and every function; functions of
 * other types print as a comment naming their type), every tensor in full,
 * so that irm_dataflow_parse reads it back. *out a NEW String. Errors: TypeError
 * (not an IRModule; an attribute value without a text form, such as a
 * pointer or a function, naming the attribute), ValueError (NULL out),
 * MemoryError. ffi.Repr of a module gives the same text, with values that
 * have no text form as comments and tensors of more than
 * IRM_DATAFLOW_PRINT_ELIDE_DEFAULT elements elided. */
IRM_API int irm_dataflow_print(const irm_module *mod, irm_object **out);

/* The text of one expression, type or function, as it would appear in a
 * module (free variables by name), every tensor in full. *out a NEW
 * String. Errors: TypeError (not an IR node), ValueError, MemoryError.
 * ffi.Repr of a node gives the same text with tensors of more than
 * IRM_DATAFLOW_PRINT_ELIDE_DEFAULT elements elided. */
IRM_API int irm_dataflow_print_node(const irm_object *node, irm_object **out);

/* Options of irm_dataflow_print_ex and irm_dataflow_print_node_ex. Start from
 * IRM_DATAFLOW_PRINT_OPTIONS_INIT (everything printed, as irm_dataflow_print) and set
 * the fields wanted. struct_size lets the library grow the struct: fields
 * that a smaller struct_size stops before take their defaults, and fields
 * of a newer header that this library does not know are ignored. */
typedef struct irm_dataflow_print_options {
  uint32_t struct_size; /* sizeof(irm_dataflow_print_options) as the caller saw it */
  /* Tensors (constants, and tensors in module, function and call
   * attributes, such as the `params` of BindParams) with more than this
   * many elements print as `const(dtype, [shape], <elided N elements>)`;
   * a module's text then starts with a comment line saying how many were
   * elided. 0 prints every element (the default); negative is a
   * ValueError. */
  int64_t elide_larger_than;
  /* Called for each elided tensor when not NULL (borrowed tensor, on the
   * printing thread): the NUL-terminated text it writes into note (at most
   * 64 characters of [0-9a-z_]) follows the count, `<elided N elements
   * note>`. A key over a module's text (the build's model key) gives a
   * digest of the data here, so the text stays short yet tells any two
   * tensors apart. Nonzero return: the print fails with a RuntimeError. */
  int (*elided_note)(void *ctx, const irm_object *tensor, char note[65]);
  void *elided_note_ctx;
} irm_dataflow_print_options;

#define IRM_DATAFLOW_PRINT_OPTIONS_INIT \
  { (uint32_t)sizeof(irm_dataflow_print_options), 0, NULL, NULL }

/* irm_dataflow_print and irm_dataflow_print_node with options (NULL: the defaults, the
 * same text as irm_dataflow_print / irm_dataflow_print_node). Text with elided
 * tensors does not parse back: irm_dataflow_parse refuses it with a ValueError
 * at the first elided const. *out a NEW String. Errors: those of
 * irm_dataflow_print / irm_dataflow_print_node, and ValueError (opts->struct_size
 * smaller than the first version of the struct, negative
 * elide_larger_than). */
IRM_API int irm_dataflow_print_ex(const irm_module *mod, const irm_dataflow_print_options *opts, irm_object **out);
IRM_API int irm_dataflow_print_node_ex(const irm_object *node, const irm_dataflow_print_options *opts,
                                       irm_object **out);

/* A sink of streamed text: called with successive pieces of the text, in
 * order (len > 0 bytes at data, borrowed for the call, not NUL-terminated);
 * returns 0 to go on, nonzero to stop. */
typedef int (*irm_dataflow_print_sink)(void *ctx, const char *data, size_t len);

/* irm_dataflow_print_ex streaming to sink(ctx, ...) instead of making a String:
 * the pieces joined are exactly the String irm_dataflow_print_ex gives (opts NULL:
 * irm_dataflow_print's). The printer keeps at most about 64 KiB of text at a time
 * (with tensors elided, the body is kept until its header is known), so
 * printing a large module needs no memory for its text. On an error the
 * pieces already given stay given. Errors: those of irm_dataflow_print_ex,
 * ValueError (NULL sink), RuntimeError when the sink returns nonzero
 * (nothing more is written). Thread safety: as irm_dataflow_print; the sink runs
 * on the calling thread. */
IRM_API int irm_dataflow_print_to(const irm_module *mod, const irm_dataflow_print_options *opts,
                                  irm_dataflow_print_sink sink, void *ctx);

/* irm_dataflow_print_to writing to file (borrowed; not flushed or closed).
 * Errors: those of irm_dataflow_print_to, ValueError (NULL file), RuntimeError
 * when a write fails. */
IRM_API int irm_dataflow_print_file(const irm_module *mod, const irm_dataflow_print_options *opts, FILE *file);

/* Parses a module from len bytes of text (need not be NUL-terminated;
 * must be UTF-8). *out NEW; NULL on failure, when nothing stays
 * allocated. Errors: ValueError "line 3, column 14: expected ',' or ')'
 * after an argument, got ';'" (every syntax, name and scope error gives
 * line and column and what was expected; undefined names suggest the
 * closest one), KeyError for an unknown op with the closest name, errors
 * of the constructors with the line and column (attribute types, input
 * counts), ValueError beyond IRM_DATAFLOW_PARSE_MAX_DEPTH, ValueError at a
 * const whose data was elided when printed ("line 4, column 18: the data of
 * this const(float32, [32, 64]) was elided when the text was printed; print
 * with every tensor in full (ir.Print without options, or
 * elide_larger_than=0) to get text that parses"), MemoryError. */
IRM_API int irm_dataflow_parse(const char *text, size_t len, irm_module **out);

/* The names of the built-in example models, a NEW Array of Strings. */
IRM_API int irm_dataflow_example_model_names(irm_object **out);

/* A built-in example model (NULL name: the default, "cnn"), parsed from
 * its text and with its parameters (the module's "params" attribute)
 * generated from a fixed seed. *out NEW. KeyError with the closest name. */
IRM_API int irm_dataflow_example_model(const char *name, irm_module **out);

/* The text of a built-in example model (borrowed, static); NULL for an
 * unknown name. */
IRM_API const char *irm_dataflow_example_model_text(const char *name);

#ifdef __cplusplus
}
#endif

#endif
