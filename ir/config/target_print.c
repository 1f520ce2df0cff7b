/* Targets out: the canonical text (target.AsString) and the Map config
 * (target.Export). The text quotes exactly what target_parse.c unquotes, so
 * that parsing it gives an equal target. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "target_internal.h"

/* Bytes of stack a text starts in: most targets print shorter. */
#define INLINE_TEXT 256

static int append_options(irm_text_buf *b, const target_payload *p);
static void append_word(irm_text_buf *b, const char *s, size_t n);

int irm_target_as_string(const irm_target *t, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_as_string: out must not be NULL");
  *out = NULL;
  const target_payload *p = irm_target_payload_(t);
  if (!p)
    return irm_error(IRM_ETYPE, "irm_target_as_string: expected %s, got %s", IRM_TARGET_TYPE_KEY,
                     t ? irm_object_type_key(t) : "NULL");
  char storage[INLINE_TEXT];
  irm_text_buf b;
  irm_text_buf_init_(&b, storage, sizeof storage);
  irm_text_buf_puts_(&b, irm_kind_name(p->kind));
  int rc = append_options(&b, p);
  if (!rc && p->host) {
    irm_object *host = NULL;
    rc = irm_target_as_string(p->host, &host);
    if (!rc) {
      irm_text_buf_append_(&b, " --host=", 8);
      append_word(&b, irm_string_data(host), irm_string_size(host));
    }
    irm_object_release(host);
  }
  if (rc) {
    irm_text_buf_free_(&b);
    return rc;
  }
  return irm_text_buf_take_string_(&b, "printing a target", out);
}

/* An option value in the Map config: Targets (of target and array<target>
 * options) become their Map configs, like the host; the rest is copied.
 * *out NEW. */
static int export_value(const irm_any *v, irm_any *out) {
  *out = irm_any_none();
  irm_object *o = v->type_code == IRM_OBJECT ? v->v_obj : NULL, *made = NULL;
  int rc = IRM_OK;
  if (o && irm_is_target(o)) {
    rc = irm_target_export(o, &made);
  } else if (o && irm_object_is(o, "ffi.Array") && irm_array_size(o) && irm_array_at(o, 0)->type_code == IRM_OBJECT &&
             irm_is_target(irm_array_at(o, 0)->v_obj)) {
    rc = irm_array_new(NULL, 0, &made);
    for (size_t i = 0; !rc && i < irm_array_size(o); i++) {
      irm_any item = irm_any_none();
      rc = export_value(irm_array_at(o, i), &item);
      if (!rc) rc = irm_array_append_move(&made, &item);
      irm_any_release(&item);
    }
  } else {
    return irm_any_copy(v, out);
  }
  if (rc) irm_object_release(made);
  else *out = irm_any_object(made);
  return rc;
}

int irm_target_export(const irm_target *t, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_target_export: out must not be NULL");
  *out = NULL;
  const target_payload *p = irm_target_payload_(t);
  if (!p)
    return irm_error(IRM_ETYPE, "irm_target_export: expected %s, got %s", IRM_TARGET_TYPE_KEY,
                     t ? irm_object_type_key(t) : "NULL");
  irm_object *config = NULL, *host = NULL;
  irm_any kind = irm_any_str(irm_kind_name(p->kind));
  int rc = irm_map_new(&config);
  if (!rc) rc = irm_map_set_move(&config, "kind", &kind);
  irm_map_iter it = irm_map_iter_begin(p->attrs);
  const irm_object *key;
  const irm_any *value;
  while (!rc && irm_map_iter_next(&it, &key, &value)) {
    irm_any exported = irm_any_none();
    rc = export_value(value, &exported);
    if (!rc) rc = irm_map_set_move(&config, irm_string_data(key), &exported);
    irm_any_release(&exported);
  }
  if (!rc && p->host) rc = irm_target_export(p->host, &host);
  irm_any host_value = irm_any_object(host);
  if (!rc && host) rc = irm_map_set_move(&config, "host", &host_value);
  irm_object_release(host);
  if (rc) {
    irm_object_release(config);
    return rc;
  }
  *out = config;
  return IRM_OK;
}

/* ---- words -------------------------------------------------------------------- */

static int needs_quotes(const char *s, size_t n) {
  if (n == 0) return 1;
  for (size_t i = 0; i < n; i++)
    if (isspace((unsigned char)s[i])) return 1;
  return 0;
}

/* Appends s as one word of target text: quoted when it holds whitespace or
 * is empty, with \ and ' escaped. */
static void append_word(irm_text_buf *b, const char *s, size_t n) {
  int quote = needs_quotes(s, n);
  if (quote) irm_text_buf_putc_(b, '\'');
  irm_text_buf_escaped_(b, s, n, "\\'");
  if (quote) irm_text_buf_putc_(b, '\'');
}

/* ---- values -------------------------------------------------------------------- */

/* One item of an array<str> as irm_option_parse_text splits it: \' is a
 * quote, single quotes protect commas. An item with a comma is quoted
 * whole, unless it ends with a backslash (which would turn the closing
 * quote into \'): then only its commas are quoted, each quote opening
 * before any backslashes that precede the comma. */
static void append_item(irm_text_buf *b, const char *s) {
  size_t n = strlen(s), start = b->len;
  int whole = strchr(s, ',') && s[n - 1] != '\\';
  if (!n || whole) irm_text_buf_putc_(b, '\'');
  for (size_t i = 0; i < n && !b->failed; i++) {
    if (s[i] == '\'') {
      irm_text_buf_append_(b, "\\'", 2);
    } else if (s[i] == ',' && !whole) {
      size_t at = b->len;
      while (at > start && b->data[at - 1] == '\\') at--;
      irm_text_buf_putc_(b, ' '); /* room for the opening quote */
      if (b->failed) return;
      memmove(b->data + at + 1, b->data + at, b->len - 1 - at);
      b->data[at] = '\'';
      irm_text_buf_append_(b, ",'", 2);
    } else {
      irm_text_buf_putc_(b, s[i]);
    }
  }
  if (!n || whole) irm_text_buf_putc_(b, '\'');
}

/* The text of an array value, before word quoting. */
static int array_text(const irm_object *arr, irm_text_buf *b) {
  for (size_t i = 0; i < irm_array_size(arr); i++) {
    const irm_any *item = irm_array_at(arr, i);
    if (i) irm_text_buf_putc_(b, ',');
    if (item->type_code == IRM_INT) {
      char num[32];
      int n = snprintf(num, sizeof num, "%" PRId64, item->v_int);
      irm_text_buf_append_(b, num, (size_t)n);
    } else if (item->type_code == IRM_OBJECT && irm_string_data(item->v_obj)) {
      append_item(b, irm_string_data(item->v_obj));
    } else if (item->type_code == IRM_OBJECT && irm_is_target(item->v_obj)) {
      irm_object *text = NULL; /* an array<target> item: its canonical text, as parsing reads it back */
      int rc = irm_target_as_string(item->v_obj, &text);
      if (!rc) append_item(b, irm_string_data(text));
      irm_object_release(text);
      if (rc) return rc;
    } else {
      return irm_error(IRM_EVALUE, "array item %zu (%s) has no text form", i, irm_any_type_name(item));
    }
  }
  return IRM_OK;
}

/* Appends "=<value>" for one option. */
static int append_value(irm_text_buf *b, const char *option, const irm_any *v) {
  char num[40];
  int n = 0, rc = IRM_OK;
  irm_text_buf_putc_(b, '=');
  switch (v->type_code) {
  case IRM_BOOL: irm_text_buf_append_(b, v->v_int ? "true" : "false", v->v_int ? 4 : 5); return IRM_OK;
  case IRM_INT: n = snprintf(num, sizeof num, "%" PRId64, v->v_int); break;
  case IRM_FLOAT: n = snprintf(num, sizeof num, "%.17g", v->v_float); break;
  case IRM_OBJECT: break;
  default: return irm_error(IRM_EVALUE, "option '%s' holds %s, which has no text form", option, irm_any_type_name(v));
  }
  if (n > 0) {
    irm_text_buf_append_(b, num, (size_t)n);
    return IRM_OK;
  }
  const irm_object *o = v->v_obj;
  if (irm_string_data(o)) {
    append_word(b, irm_string_data(o), irm_string_size(o));
  } else if (irm_object_is(o, "ffi.Array")) {
    char storage[INLINE_TEXT];
    irm_text_buf items;
    irm_text_buf_init_(&items, storage, sizeof storage);
    rc = array_text(o, &items);
    if (!rc && !items.failed) append_word(b, items.data, items.len);
    if (items.failed) irm_text_buf_fail_(b);
    irm_text_buf_free_(&items);
  } else if (irm_is_target(o)) {
    irm_object *s = NULL;
    rc = irm_target_as_string(o, &s);
    if (!rc) append_word(b, irm_string_data(s), irm_string_size(s));
    irm_object_release(s);
  } else {
    rc = irm_error(IRM_EVALUE, "%s has no text form", irm_object_type_key(o));
  }
  return rc ? irm_error_context(rc, "printing option '%s'", option) : IRM_OK;
}

typedef struct named_value {
  const char *name;
  const irm_any *value;
} named_value;

static int compare_names(const void *a, const void *b) {
  return strcmp(((const named_value *)a)->name, ((const named_value *)b)->name);
}

/* " -name=value" for every option, sorted by name; empty keys are left
 * out (parsing computes the same empty keys). */
static int append_options(irm_text_buf *b, const target_payload *p) {
  size_t n = irm_map_size(p->attrs), k = 0;
  named_value *all = irm_malloc((n ? n : 1) * sizeof *all);
  if (!all) return irm_error_nomem_("printing a target");
  irm_map_iter it = irm_map_iter_begin(p->attrs);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    if (value->type_code == IRM_OBJECT && value->v_obj == p->keys && irm_array_size(p->keys) == 0) continue;
    all[k].name = irm_string_data(key);
    all[k++].value = value;
  }
  qsort(all, k, sizeof *all, compare_names);
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < k; i++) {
    irm_text_buf_append_(b, " -", 2);
    irm_text_buf_append_(b, all[i].name, strlen(all[i].name));
    rc = append_value(b, all[i].name, all[i].value);
  }
  irm_free(all);
  return rc;
}
