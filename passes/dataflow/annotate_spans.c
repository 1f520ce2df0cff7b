/* AnnotateSpans (TVM's): the module printed as IR text and parsed back, so
 * every node gets a span (irm_expr_span) in that printed text, and errors
 * of later passes (InferType, the verifier) name a line and column of it.
 * For IR built in code, which has no spans of its own. */
#include "irm/dataflow/text.h"
#include "irm/error.h"
#include "pass_util.h"

static int annotate(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                    irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_object *text = NULL;
  int rc = irm_dataflow_print(mod, &text);
  if (!rc) rc = irm_dataflow_parse(irm_string_data(text), irm_string_size(text), out);
  irm_object_release(text);
  return rc ? irm_error_context(rc, "AnnotateSpans: the printed module does not parse back") : IRM_OK;
}

int irm_register_annotate_spans_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"AnnotateSpans", 0, annotate, NULL, NULL};
  return irm_dataflow_pass_register_(&def);
}
