/* A pattern printed as the left-hand side of the rules text (pattern.h,
 * pattern_parse.c reads it back): what irm_rewrite_rules_parse makes from
 * the text prints as the same text. */
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "irm/tensor.h"
#include "pattern_internal.h"
#include "text/text_internal.h"

#define MAX_DEPTH 256

static int print(irm_text_buf *b, const irm_object *p, int depth);

static int no_text(const char *what) {
  return irm_error(IRM_EVALUE, "irm_pattern_print: %s has no form in the rules text", what);
}

static int kind_is(const irm_object *p, irm_pattern_kind k) { return irm_pattern_kind_of(p) == k; }

/* `key=value, ...` of a Map. */
static int print_attrs(irm_text_buf *b, const irm_object *attrs, int comma_first) {
  irm_map_iter it = irm_map_iter_begin(attrs);
  const irm_object *key;
  const irm_any *value;
  int rc = IRM_OK, first = !comma_first;
  while (!rc && irm_map_iter_next(&it, &key, &value)) {
    if (!first) irm_text_buf_puts_(b, ", ");
    first = 0;
    irm_dataflow_print_name_(b, 0, irm_string_data(key), irm_string_size(key));
    irm_text_buf_puts_(b, "=");
    rc = irm_dataflow_print_value_(b, value, NULL);
  }
  return rc;
}

/* Patterns of an Array, separated by commas. */
static int print_list(irm_text_buf *b, const irm_object *list, int depth) {
  int rc = IRM_OK;
  for (size_t i = 0; !rc && i < irm_array_size(list); i++) {
    if (i) irm_text_buf_puts_(b, ", ");
    rc = print(b, irm_array_at(list, i)->v_obj, depth + 1);
  }
  return rc;
}

/* A call pattern, with attrs (may be NULL) of the call after its arguments. */
static int print_call(irm_text_buf *b, const irm_pattern_ *call, const irm_object *attrs, int depth) {
  const irm_pattern_ *callee = irm_pattern_payload_(call->sub[0]);
  const irm_pattern_ *inner = callee->kind == IRM_PATTERN_ATTR ? irm_pattern_payload_(callee->sub[0]) : callee;
  if (!call->list) return no_text("a call pattern of any arguments");
  if (inner->kind == IRM_PATTERN_OP) irm_text_buf_puts_(b, irm_op_name(inner->data));
  else if (inner->kind == IRM_PATTERN_WILDCARD && callee != inner) irm_text_buf_puts_(b, "_");
  else return no_text("a call pattern whose callee is no op");
  int rc = IRM_OK;
  if (callee != inner) { /* the op's attributes */
    irm_text_buf_puts_(b, "[");
    rc = print_attrs(b, callee->data, 0);
    irm_text_buf_puts_(b, "]");
  }
  irm_text_buf_puts_(b, "(");
  if (!rc) rc = print_list(b, call->list, depth);
  if (!rc && attrs && irm_map_size(attrs)) rc = print_attrs(b, attrs, irm_array_size(call->list) > 0);
  irm_text_buf_puts_(b, ")");
  return rc;
}

/* `%x`, `%x: const`, `%x: var`, `%x: float32`, `%x: Tensor[...]`. */
static int print_capture(irm_text_buf *b, const irm_pattern_ *cap) {
  const irm_pattern_ *inner = irm_pattern_payload_(cap->sub[0]);
  irm_dataflow_print_name_(b, '%', irm_string_data(cap->data), irm_string_size(cap->data));
  switch (inner->kind) {
  case IRM_PATTERN_WILDCARD: return IRM_OK;
  case IRM_PATTERN_CONSTANT: irm_text_buf_puts_(b, ": const"); return IRM_OK;
  case IRM_PATTERN_VAR:
    if (inner->data) return no_text("a capture of a var pattern with a name");
    irm_text_buf_puts_(b, ": var");
    return IRM_OK;
  case IRM_PATTERN_DTYPE:
    if (!kind_is(inner->sub[0], IRM_PATTERN_WILDCARD)) break;
    irm_text_buf_printf_(b, ": %s", irm_dtype_name(inner->dtype));
    return IRM_OK;
  case IRM_PATTERN_TYPE:
    if (!kind_is(inner->sub[0], IRM_PATTERN_WILDCARD)) break;
    irm_text_buf_puts_(b, ": ");
    return irm_dataflow_print_type_(b, inner->data);
  default: break;
  }
  return no_text("a capture of this pattern");
}

static int print(irm_text_buf *b, const irm_object *p, int depth) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  if (depth > MAX_DEPTH) return irm_error(IRM_EVALUE, "irm_pattern_print: a pattern nested deeper than %d", MAX_DEPTH);
  int rc = IRM_OK;
  switch (pp->kind) {
  case IRM_PATTERN_WILDCARD: irm_text_buf_puts_(b, "_"); return IRM_OK;
  case IRM_PATTERN_CONSTANT: irm_text_buf_puts_(b, "const"); return IRM_OK;
  case IRM_PATTERN_CAPTURE: return print_capture(b, pp);
  case IRM_PATTERN_CALL: return print_call(b, pp, NULL, depth);
  case IRM_PATTERN_ATTR:
    if (!kind_is(pp->sub[0], IRM_PATTERN_CALL)) return no_text("an attribute pattern of no call");
    return print_call(b, irm_pattern_payload_(pp->sub[0]), pp->data, depth);
  case IRM_PATTERN_EXPR:
    if (irm_expr_kind_of(pp->data) != IRM_EXPR_CONSTANT) return no_text("an expression pattern of no constant");
    return irm_dataflow_print_tensor_(b, irm_constant_data(pp->data), NULL);
  case IRM_PATTERN_TUPLE:
    if (!pp->list) return no_text("a tuple pattern of any fields");
    irm_text_buf_puts_(b, "(");
    rc = print_list(b, pp->list, depth);
    irm_text_buf_puts_(b, irm_array_size(pp->list) == 1 ? ",)" : ")");
    return rc;
  case IRM_PATTERN_TUPLE_GET_ITEM: {
    if (pp->index < 0) return no_text("a projection of any index");
    int group = kind_is(pp->sub[0], IRM_PATTERN_ALT);
    irm_text_buf_puts_(b, group ? "(" : "");
    rc = print(b, pp->sub[0], depth + 1);
    irm_text_buf_printf_(b, "%s.%lld", group ? ")" : "", (long long)pp->index);
    return rc;
  }
  case IRM_PATTERN_ALT: {
    int group = kind_is(pp->sub[1], IRM_PATTERN_ALT); /* the text groups from the left */
    rc = print(b, pp->sub[0], depth + 1);
    irm_text_buf_puts_(b, group ? " | (" : " | ");
    if (!rc) rc = print(b, pp->sub[1], depth + 1);
    irm_text_buf_puts_(b, group ? ")" : "");
    return rc;
  }
  case IRM_PATTERN_DOMINATOR:
  case IRM_PATTERN_LET:
    irm_text_buf_puts_(b, pp->kind == IRM_PATTERN_LET ? "let(" : "dominates(");
    for (int i = 0; !rc && i < 3; i++) {
      if (i) irm_text_buf_puts_(b, ", ");
      rc = print(b, pp->sub[i], depth + 1);
    }
    irm_text_buf_puts_(b, ")");
    return rc;
  case IRM_PATTERN_FUNCTION:
    irm_text_buf_puts_(b, "fn");
    if (pp->list) {
      irm_text_buf_puts_(b, "(");
      rc = print_list(b, pp->list, depth);
      irm_text_buf_puts_(b, ")");
    }
    irm_text_buf_puts_(b, " { ");
    if (!rc) rc = print(b, pp->sub[0], depth + 1);
    irm_text_buf_puts_(b, " }");
    return rc;
  case IRM_PATTERN_OP: return no_text("an op pattern outside a call");
  case IRM_PATTERN_VAR: return no_text("a var pattern outside a capture");
  default: return no_text("a type, dtype or shape pattern outside a capture");
  }
}

int irm_pattern_print(const irm_object *p, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pattern_print: out must not be NULL");
  *out = NULL;
  if (!irm_pattern_payload_(p)) {
    irm_any v = irm_any_object((irm_object *)p);
    return irm_error(p ? IRM_ETYPE : IRM_EVALUE, "irm_pattern_print: p must be a dataflow.DFPattern, got %s",
                     irm_any_describe_(&v));
  }
  char storage[256];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  int rc = print(&b, p, 0);
  if (rc) {
    irm_text_buf_free_(&b);
    return rc;
  }
  return irm_text_buf_take_string_(&b, "printing a pattern", out);
}
