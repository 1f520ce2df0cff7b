/* Textual pipelines (docs/architecture.md, "Passes"): a pass, nested
 * Sequentials and typed options, in and out.
 *
 * Needs irm_pass, so it includes pass.h (which includes it back, after
 * declaring everything it needs).
 *
 * Ownership, errors and threads as pass.h says: out-parameters are NEW
 * references, arguments borrowed; every function may be called from any
 * thread.
 */
#ifndef IRM_PIPELINE_H
#define IRM_PIPELINE_H

#include "irm/pass.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sequential(InferType,FoldConstant,FuseOps{max_depth=4}), nested
 * Sequential(...), option values typed by each pass's declared options.
 * Printing is canonical and parsing the printed text gives an equal
 * pipeline. Errors give the position and the closest pass or option name.
 *
 *   element := "Sequential" [options] "(" [element ("," element)*] ")"
 *            | pass-name [options]
 *   options := "{" [key "=" value ("," key "=" value)*] "}"
 *   value   := scalar | "[" [scalar ("," scalar)*] "]"   (array options)
 *   scalar  := bare word (no whitespace or ,{}()[]'=) | 'quoted' (\' \\)
 *
 * Whitespace may separate tokens; positions count bytes from 0. A
 * Sequential's options are name (str) and opt_level (int), printed only
 * when not the defaults. A target option is its target string, quoted; a
 * map option has no text form. Printing puts a pass's options
 * (irm_pass_options) in key order. *out NEW.
 * Errors of irm_pipeline_parse, each as "pipeline '<text>': <what> at
 * position N (did you mean '<closest>'?)": ValueError (NULL text, empty
 * text, syntax, an unbalanced bracket or quote, an unknown pass, a value
 * that does not parse as the option's type, an option given twice,
 * Sequentials nested deeper than 100, a negative Sequential opt_level or a
 * bad name), AttributeError (an unknown option), errors of irm_target_parse
 * for a target option, the errors of irm_pass_get (a required option
 * missing, the factory's own), MemoryError.
 * Errors of irm_pipeline_print: TypeError (pass is not a transform.Pass),
 * ValueError (an option value without a text form, such as a map), errors
 * of irm_target_as_string, MemoryError. */
IRM_API int irm_pipeline_parse(const char *text, irm_pass **out);
IRM_API int irm_pipeline_print(const irm_pass *pass, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
