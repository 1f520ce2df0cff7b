/* Pipeline text out (transform.PrintPipeline): the canonical form that
 * pipeline_parse.c reads back. A pass prints as its name and the options
 * it was given (irm_pass_options), sorted by key; a Sequential as
 * Sequential(...), with {name=...,opt_level=...} when they differ from the
 * defaults. Nested Sequentials are walked with an explicit stack. */
#include <stdlib.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/pass.h"
#include "irm/target.h"

#define SEQUENTIAL_DEFAULT_NAME "sequential"

/* A Sequential being printed and the index of its next pass. */
typedef struct frame {
  const irm_pass *seq;
  size_t next;
} frame;

static int open_element(const irm_pass *p, irm_text_buf *t, frame **stack, size_t *n, size_t *cap);

int irm_pipeline_print(const irm_pass *pass, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pipeline_print: out must not be NULL");
  *out = NULL;
  if (!pass || !irm_pass_name(pass))
    return irm_error(IRM_ETYPE, "irm_pipeline_print: expected a transform.Pass, got %s",
                     pass ? irm_object_type_key(pass) : "NULL");
  irm_text_buf t = {0};
  frame *stack = NULL;
  size_t n = 0, cap = 0;
  int rc = open_element(pass, &t, &stack, &n, &cap);
  while (!rc && n > 0) {
    frame *top = &stack[n - 1];
    const irm_object *children = irm_sequential_passes(top->seq);
    if (top->next < irm_array_size(children)) {
      if (top->next > 0) irm_text_buf_puts_(&t, ",");
      const irm_any *child = irm_array_at(children, top->next++);
      rc = open_element(child->v_obj, &t, &stack, &n, &cap);
    } else {
      irm_text_buf_puts_(&t, ")");
      n--;
    }
  }
  irm_free(stack);
  if (rc) {
    irm_text_buf_free_(&t);
    return rc;
  }
  return irm_text_buf_take_string_(&t, "printing a pipeline", out);
}

/* ---- values -------------------------------------------------------------------------- */

/* A scalar bare when it can be, else 'quoted' with \' and \\. */
static void append_scalar(irm_text_buf *t, const char *s, size_t len) {
  int bare = len > 0;
  for (size_t i = 0; bare && i < len; i++)
    if (!s[i] || strchr(",{}()[]'=\\ \t\r\n\f\v", s[i])) bare = 0;
  if (bare) {
    irm_text_buf_append_(t, s, len);
    return;
  }
  irm_text_buf_putc_(t, '\'');
  irm_text_buf_escaped_(t, s, len, "'\\");
  irm_text_buf_putc_(t, '\'');
}

static int append_string_object(irm_text_buf *t, const irm_object *s) {
  append_scalar(t, irm_string_data(s), irm_string_size(s));
  return IRM_OK;
}

static int no_text_form(const char *pass, const char *key, const irm_any *v) {
  return irm_error(IRM_EVALUE, "option '%s' of pass '%s' holds a %s, which has no pipeline text", key, pass,
                   irm_any_type_name(v));
}

static int append_array(irm_text_buf *t, const char *pass, const char *key, const irm_object *arr) {
  irm_text_buf_puts_(t, "[");
  for (size_t i = 0; i < irm_array_size(arr); i++) {
    const irm_any *item = irm_array_at(arr, i);
    if (i > 0) irm_text_buf_puts_(t, ",");
    if (item->type_code == IRM_INT) irm_text_buf_printf_(t, "%lld", (long long)item->v_int);
    else if (item->type_code == IRM_OBJECT && irm_string_data(item->v_obj)) append_string_object(t, item->v_obj);
    else return no_text_form(pass, key, item);
  }
  irm_text_buf_puts_(t, "]");
  return IRM_OK;
}

static int append_value(irm_text_buf *t, const char *pass, const char *key, const irm_any *v) {
  switch (v->type_code) {
  case IRM_BOOL: irm_text_buf_puts_(t, v->v_int ? "true" : "false"); return IRM_OK;
  case IRM_INT: irm_text_buf_printf_(t, "%lld", (long long)v->v_int); return IRM_OK;
  case IRM_FLOAT: irm_text_buf_printf_(t, "%.17g", v->v_float); return IRM_OK;
  case IRM_STR: append_scalar(t, v->v_str, strlen(v->v_str)); return IRM_OK;
  case IRM_OBJECT: break;
  default: return no_text_form(pass, key, v);
  }
  if (irm_string_data(v->v_obj)) return append_string_object(t, v->v_obj);
  if (irm_object_is(v->v_obj, "ffi.Array")) return append_array(t, pass, key, v->v_obj);
  if (!irm_is_target(v->v_obj)) return no_text_form(pass, key, v);
  irm_object *text = NULL;
  int rc = irm_target_as_string(v->v_obj, &text);
  if (rc) return irm_error_context(rc, "option '%s' of pass '%s'", key, pass);
  append_string_object(t, text);
  irm_object_release(text);
  return IRM_OK;
}

/* ---- options ------------------------------------------------------------------------- */

static int compare_keys(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "{k=v,...}" sorted by key; nothing for an empty Map. */
static int append_options(irm_text_buf *t, const char *pass, const irm_object *options) {
  size_t n = irm_map_size(options);
  if (n == 0) return IRM_OK;
  const char **keys = irm_malloc(n * sizeof *keys);
  if (!keys) return irm_error_nomem_("printing a pipeline");
  irm_map_iter it = irm_map_iter_begin(options);
  const irm_object *k = NULL;
  const irm_any *v = NULL;
  for (size_t i = 0; i < n && irm_map_iter_next(&it, &k, &v); i++) keys[i] = irm_string_data(k);
  qsort(keys, n, sizeof *keys, compare_keys);
  int rc = IRM_OK;
  irm_text_buf_puts_(t, "{");
  for (size_t i = 0; rc == IRM_OK && i < n; i++) {
    if (i > 0) irm_text_buf_puts_(t, ",");
    irm_text_buf_printf_(t, "%s=", keys[i]);
    rc = append_value(t, pass, keys[i], irm_map_find_cstr(options, keys[i]));
  }
  irm_text_buf_puts_(t, "}");
  irm_free(keys);
  return rc;
}

/* Sequential{name=...,opt_level=...}: only what differs from the defaults. */
static void append_sequential_options(irm_text_buf *t, const irm_pass *seq) {
  const char *name = irm_pass_name(seq);
  int named = strcmp(name, SEQUENTIAL_DEFAULT_NAME) != 0;
  int level = irm_pass_opt_level(seq);
  if (!named && level == 0) return;
  irm_text_buf_puts_(t, "{");
  if (named) {
    irm_text_buf_puts_(t, "name=");
    append_scalar(t, name, strlen(name));
  }
  if (level != 0) irm_text_buf_printf_(t, "%sopt_level=%d", named ? "," : "", level);
  irm_text_buf_puts_(t, "}");
}

/* Prints a pass, or the start of a Sequential (pushed to be finished). */
static int open_element(const irm_pass *p, irm_text_buf *t, frame **stack, size_t *n, size_t *cap) {
  if (!irm_pass_name(p))
    return irm_error(IRM_ETYPE, "a Sequential holds %s, not a transform.Pass", irm_object_type_key(p));
  if (!irm_sequential_passes(p)) {
    irm_text_buf_puts_(t, irm_pass_name(p));
    return append_options(t, irm_pass_name(p), irm_pass_options(p));
  }
  if (*n == *cap) {
    size_t grown_cap = *cap ? 2 * *cap : 8;
    frame *grown = irm_realloc(*stack, grown_cap * sizeof *grown);
    if (!grown) return irm_error_nomem_("printing a pipeline");
    *stack = grown;
    *cap = grown_cap;
  }
  irm_text_buf_puts_(t, "Sequential");
  append_sequential_options(t, p);
  irm_text_buf_puts_(t, "(");
  (*stack)[(*n)++] = (frame){p, 0};
  return IRM_OK;
}
