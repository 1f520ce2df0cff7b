/* The printer's leaves (text_internal.h): strings, names, numbers, types,
 * tensor literals and attribute values. Values and types nest, and print
 * with recursion bounded by IRM_DATAFLOW_PARSE_MAX_DEPTH: deeper ones would not
 * parse back, so they have no text form. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "irm/target.h"
#include "expr_internal.h"
#include "text_internal.h"

static void put_run(irm_text_buf *b, const char *s, size_t n) {
  size_t run = 0; /* bytes copied as they are, flushed in one go */
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *esc = NULL;
    char hex[8];
    switch (c) {
    case '"': esc = "\\\""; break;
    case '\\': esc = "\\\\"; break;
    case '\n': esc = "\\n"; break;
    case '\t': esc = "\\t"; break;
    case '\r': esc = "\\r"; break;
    case '\b': esc = "\\b"; break;
    case '\f': esc = "\\f"; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        snprintf(hex, sizeof hex, "\\u%04x", c);
        esc = hex;
      }
    }
    if (!esc) {
      run++;
      continue;
    }
    irm_text_buf_append_(b, s + i - run, run);
    run = 0;
    irm_text_buf_puts_(b, esc);
  }
  irm_text_buf_append_(b, s + n - run, run);
}

void irm_dataflow_print_string_(irm_text_buf *b, const char *s, size_t n) {
  irm_text_buf_putc_(b, '"');
  size_t i = 0;
  while (i < n) {
    size_t ok = irm_utf8_invalid_at_(s + i, n - i);
    put_run(b, s + i, ok);
    i += ok;
    if (i < n) { /* a byte that is not UTF-8: \xNN keeps it exactly */
      irm_text_buf_printf_(b, "\\x%02x", (unsigned char)s[i]);
      i++;
    }
  }
  irm_text_buf_putc_(b, '"');
}

void irm_dataflow_print_name_(irm_text_buf *b, char sigil, const char *s, size_t n) {
  if (sigil) irm_text_buf_putc_(b, sigil);
  if (irm_dataflow_is_ident_(s, n)) irm_text_buf_append_(b, s, n);
  else irm_dataflow_print_string_(b, s, n);
}

static int too_deep(const char *what) {
  return irm_error(IRM_EVALUE, "%s nests deeper than %d levels, which the text form does not allow", what,
                   IRM_DATAFLOW_PARSE_MAX_DEPTH);
}

int irm_dataflow_print_type_(irm_text_buf *b, const irm_object *type) {
  if (irm_dataflow_type_kind_of(type) == IRM_DATAFLOW_TYPE_NONE)
    return irm_error(IRM_ETYPE, "expected an IR type, got %s", type ? irm_object_type_key(type) : "none");
  return irm_dataflow_type_print_(b, type);
}

/* One element of a tensor: floats with the digits that read back the same
 * float (%.9g; float16 goes through its exact float value), ints as
 * integers, bools as 0/1. */
static void put_element(irm_text_buf *b, const irm_object *t, int is_float, int64_t i) {
  const DLTensor *dl = irm_tensor_dl(t);
  if (dl->dtype.code == kDLInt && dl->dtype.bits == 64) { /* exact beyond 2^53 */
    int64_t v;
    memcpy(&v, (const char *)dl->data + i * 8, sizeof v);
    irm_text_buf_printf_(b, "%" PRId64, v);
    return;
  }
  double x = irm_tensor_get_f64(t, i);
  if (!is_float) {
    irm_text_buf_printf_(b, "%lld", (long long)x);
  } else if (isnan(x) || isinf(x)) {
    irm_text_buf_puts_(b, isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
  } else {
    char buf[40];
    if (irm_tensor_dl(t)->dtype.bits == 64) snprintf(buf, sizeof buf, "%.17g", x);
    else snprintf(buf, sizeof buf, "%.9g", (double)(float)x);
    for (char *c = buf; *c; c++)
      if (*c == ',') *c = '.';
    irm_text_buf_puts_(b, buf);
  }
}

int irm_dataflow_print_tensor_(irm_text_buf *b, const irm_object *tensor, irm_dataflow_elide_ *elide) {
  const DLTensor *dl = irm_tensor_dl(tensor);
  const char *dt = dl ? irm_dtype_name(dl->dtype) : NULL;
  if (!dt) return irm_error(IRM_ETYPE, "expected a tensor, got %s", tensor ? irm_object_type_key(tensor) : "none");
  irm_text_buf_printf_(b, "const(%s, [", dt);
  for (int32_t i = 0; i < dl->ndim; i++) irm_text_buf_printf_(b, "%s%" PRId64, i ? ", " : "", dl->shape[i]);
  int64_t n = irm_tensor_numel(tensor);
  if (elide && elide->larger_than > 0 && n > elide->larger_than) {
    /* the lexer reads this as one token (IRM_TOK_ELIDED), which the parser refuses */
    char note[65] = "";
    if (elide->note && elide->note(elide->note_ctx, tensor, note))
      return irm_error(IRM_ERUNTIME, "printing IR: the elided_note of a const(%s) failed", dt);
    note[64] = '\0';
    irm_text_buf_printf_(b, "], <elided %" PRId64 " elements%s%s>)", n, note[0] ? " " : "", note);
    elide->count++;
    return IRM_OK;
  }
  irm_text_buf_puts_(b, "], [");
  int is_float = dl->dtype.code == kDLFloat;
  for (int64_t i = 0; i < n && !b->failed; i++) {
    if (i) irm_text_buf_puts_(b, ", ");
    put_element(b, tensor, is_float, i);
  }
  irm_text_buf_puts_(b, "])");
  return IRM_OK;
}

static int print_value_at(irm_text_buf *b, const irm_any *v, int depth, irm_dataflow_elide_ *elide);

/* {"k": v, ...} */
static int print_map(irm_text_buf *b, const irm_object *map, int depth, irm_dataflow_elide_ *elide) {
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k;
  const irm_any *v;
  irm_text_buf_putc_(b, '{');
  for (size_t i = 0; irm_map_iter_next(&it, &k, &v); i++) {
    if (i) irm_text_buf_puts_(b, ", ");
    irm_dataflow_print_string_(b, irm_string_data(k), irm_string_size(k));
    irm_text_buf_puts_(b, ": ");
    int rc = print_value_at(b, v, depth + 1, elide);
    if (rc) return rc;
  }
  irm_text_buf_putc_(b, '}');
  return IRM_OK;
}

/* Executor("aot", {"interface-api": "c"}): the options that differ from
 * the kind's defaults (making the object again fills those in). */
static int print_config(irm_text_buf *b, const irm_object *cfg, int depth, irm_dataflow_elide_ *elide) {
  const char *what = irm_object_is(cfg, "ir.Executor") ? "Executor" : "Runtime";
  irm_kind *kind = irm_config_kind(cfg);
  irm_map_iter it = irm_map_iter_begin(irm_config_attrs(cfg));
  const irm_object *k;
  const irm_any *v;
  irm_text_buf_printf_(b, "%s(", what);
  const char *name = irm_config_kind_name(cfg);
  irm_dataflow_print_string_(b, name, strlen(name));
  size_t shown = 0;
  while (irm_map_iter_next(&it, &k, &v)) {
    irm_any def = irm_any_none();
    int same = 0;
    if (kind && irm_kind_option(kind, irm_string_data(k), NULL, &def) == IRM_OK && def.type_code != IRM_NONE) {
      int rc = irm_structural_equal(&def, v, &same);
      irm_any_release(&def);
      if (rc) return rc;
    }
    irm_clear_error();
    if (same) continue;
    irm_text_buf_puts_(b, shown++ ? ", " : ", {");
    irm_dataflow_print_string_(b, irm_string_data(k), irm_string_size(k));
    irm_text_buf_puts_(b, ": ");
    int rc = print_value_at(b, v, depth + 1, elide);
    if (rc) return rc;
  }
  irm_text_buf_puts_(b, shown ? "})" : ")");
  return IRM_OK;
}

/* Target("llvm -mcpu=x") in canonical text, or Target({...}) from the Map
 * config for a target whose options have no text form (a map option, a
 * NUL byte). */
static int print_target(irm_text_buf *b, const irm_object *t, int depth) {
  irm_object *text = NULL;
  int rc = irm_target_as_string(t, &text);
  if (rc == IRM_OK && memchr(irm_string_data(text), 0, irm_string_size(text))) {
    irm_object_release(text); /* target text cannot hold a NUL byte; the Map can */
    text = NULL;
    rc = irm_error(IRM_EVALUE, "the target text holds a NUL byte");
  }
  if (rc == IRM_OK) {
    irm_text_buf_puts_(b, "Target(");
    irm_dataflow_print_string_(b, irm_string_data(text), irm_string_size(text));
    irm_text_buf_putc_(b, ')');
    irm_object_release(text);
    return IRM_OK;
  }
  if (rc != IRM_EVALUE) return rc;
  irm_clear_error();
  irm_object *config = NULL;
  rc = irm_target_export(t, &config);
  if (rc) return rc;
  irm_text_buf_puts_(b, "Target(");
  rc = print_map(b, config, depth, NULL); /* target options hold no tensors */
  irm_text_buf_putc_(b, ')');
  irm_object_release(config);
  return rc;
}

static int print_object(irm_text_buf *b, const irm_object *o, int depth, irm_dataflow_elide_ *elide) {
  int32_t t = irm_object_type_index(o);
  if (t == IRM_TYPE_STRING) {
    irm_dataflow_print_string_(b, irm_string_data(o), irm_string_size(o));
    return IRM_OK;
  }
  if (t == IRM_TYPE_ARRAY) {
    size_t n = irm_array_size(o);
    irm_text_buf_putc_(b, '[');
    for (size_t i = 0; i < n; i++) {
      if (i) irm_text_buf_puts_(b, ", ");
      int rc = print_value_at(b, irm_array_at(o, i), depth + 1, elide);
      if (rc) return rc;
    }
    irm_text_buf_putc_(b, ']');
    return IRM_OK;
  }
  if (t == IRM_TYPE_MAP) return print_map(b, o, depth, elide);
  if (irm_is_tensor(o)) return irm_dataflow_print_tensor_(b, o, elide);
  if (irm_is_target(o)) return print_target(b, o, depth);
  if (irm_object_is(o, "ir.Executor") || irm_object_is(o, "ir.Runtime")) return print_config(b, o, depth, elide);
  return irm_error(IRM_ETYPE, "a value of type %s has no text form", irm_object_type_key(o));
}

static int print_value_at(irm_text_buf *b, const irm_any *v, int depth, irm_dataflow_elide_ *elide) {
  if (depth > IRM_DATAFLOW_PARSE_MAX_DEPTH) return too_deep("a value");
  switch (v->type_code) {
  case IRM_NONE: irm_text_buf_puts_(b, "none"); return IRM_OK;
  case IRM_BOOL: irm_text_buf_puts_(b, v->v_int ? "true" : "false"); return IRM_OK;
  case IRM_INT: irm_text_buf_printf_(b, "%" PRId64, v->v_int); return IRM_OK;
  case IRM_FLOAT: irm_text_buf_double_(b, v->v_float); return IRM_OK;
  case IRM_STR: irm_dataflow_print_string_(b, v->v_str, strlen(v->v_str)); return IRM_OK;
  case IRM_OBJECT:
    if (v->v_obj) return print_object(b, v->v_obj, depth, elide);
    irm_text_buf_puts_(b, "none");
    return IRM_OK;
  default: return irm_error(IRM_ETYPE, "a value of type %s has no text form", irm_any_type_name(v));
  }
}

int irm_dataflow_print_value_(irm_text_buf *b, const irm_any *v, irm_dataflow_elide_ *elide) {
  return print_value_at(b, v, 0, elide);
}

int irm_dataflow_print_func_attrs_(irm_text_buf *b, const irm_object *attrs, irm_dataflow_elide_ *elide) {
  if (!irm_map_size(attrs)) return IRM_OK;
  irm_map_iter it = irm_map_iter_begin(attrs);
  const irm_object *k;
  const irm_any *v;
  irm_text_buf_puts_(b, " attributes {");
  for (size_t i = 0; irm_map_iter_next(&it, &k, &v); i++) {
    if (i) irm_text_buf_puts_(b, ", ");
    irm_dataflow_print_name_(b, 0, irm_string_data(k), irm_string_size(k));
    irm_text_buf_puts_(b, " = ");
    int rc = irm_dataflow_print_value_(b, v, elide);
    if (rc) return irm_error_context(rc, "function attribute '%s'", irm_error_quote(irm_string_data(k)));
  }
  irm_text_buf_putc_(b, '}');
  return IRM_OK;
}
