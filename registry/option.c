/* Option types: names, checking native values, parsing text values. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/kind.h"

static const char *const type_names[] = {"bool", "int",        "float", "str",
                                          "array<str>", "array<int>", "map", "target"};
enum { type_count = sizeof type_names / sizeof type_names[0] };

const char *irm_option_type_name(irm_option_type type) {
  return (unsigned)type < type_count ? type_names[type] : NULL;
}

int irm_option_type_parse(const char *name, irm_option_type *out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_option_type_parse: name and out must not be NULL");
  for (int i = 0; i < type_count; i++)
    if (strcmp(name, type_names[i]) == 0) {
      *out = (irm_option_type)i;
      return IRM_OK;
    }
  const char *best = irm_closest_name(name, type_names, type_count);
  return irm_error(IRM_EVALUE,
                   "unknown option type '%s'%s%s%s; types: bool, int, float, str, array<str>, "
                   "array<int>, map, target",
                   irm_error_quote(name), best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
}

/* ---- native values ----------------------------------------------------- */

/* Option values are typed by option type names, so a String is "str" here,
 * as in the schema. */
static int mismatch(irm_option_type type, const irm_any *v) {
  int is_string = v->type_code == IRM_OBJECT && irm_string_data(v->v_obj) != NULL;
  return irm_error(IRM_ETYPE, "expected %s, got %s", type_names[type],
                   is_string ? "str" : irm_any_type_name(v));
}

/* Every item of an Array must be of item_code (a String when IRM_OBJECT). */
static int check_items(irm_option_type type, const irm_object *arr) {
  for (size_t i = 0; i < irm_array_size(arr); i++) {
    const irm_any *item = irm_array_at(arr, i);
    int ok = type == IRM_OPTION_ARRAY_STR ? irm_string_data(item->type_code == IRM_OBJECT ? item->v_obj : NULL) != NULL
                                          : item->type_code == IRM_INT;
    if (!ok)
      return irm_error(IRM_ETYPE, "expected %s, got an Array whose item %zu is %s", type_names[type], i,
                       irm_any_type_name(item));
  }
  return IRM_OK;
}

int irm_option_check_value(irm_option_type type, const irm_any *value, irm_any *out) {
  if (!value || !out) return irm_error(IRM_EVALUE, "irm_option_check_value: value and out must not be NULL");
  *out = irm_any_none();
  switch (type) {
    case IRM_OPTION_BOOL: {
      bool b;
      if (value->type_code != IRM_BOOL && value->type_code != IRM_INT) return mismatch(type, value);
      int rc = irm_any_to_bool(value, &b);
      if (rc) return rc;
      *out = irm_any_bool(b);
      return IRM_OK;
    }
    case IRM_OPTION_INT:
      if (value->type_code != IRM_INT) return mismatch(type, value);
      *out = *value;
      return IRM_OK;
    case IRM_OPTION_FLOAT:
      if (value->type_code == IRM_FLOAT) *out = *value;
      else if (value->type_code == IRM_INT) *out = irm_any_float((double)value->v_int);
      else return mismatch(type, value);
      return IRM_OK;
    case IRM_OPTION_STR:
      if (value->type_code != IRM_STR &&
          !(value->type_code == IRM_OBJECT && irm_string_data(value->v_obj)))
        return mismatch(type, value);
      return irm_any_copy(value, out);
    case IRM_OPTION_ARRAY_STR:
    case IRM_OPTION_ARRAY_INT: {
      if (value->type_code != IRM_OBJECT || !irm_object_is(value->v_obj, "ffi.Array"))
        return mismatch(type, value);
      int rc = check_items(type, value->v_obj);
      return rc ? rc : irm_any_copy(value, out);
    }
    case IRM_OPTION_MAP:
    case IRM_OPTION_TARGET: {
      const char *key = type == IRM_OPTION_MAP ? "ffi.Map" : "target.Target";
      if (value->type_code != IRM_OBJECT || !irm_object_is(value->v_obj, key)) return mismatch(type, value);
      return irm_any_copy(value, out);
    }
  }
  return irm_error(IRM_EVALUE, "invalid option type %d", (int)type);
}

/* ---- text values ------------------------------------------------------- */

static int parse_bool(const char *text, irm_any *out) {
  if (strcmp(text, "1") == 0 || strcasecmp(text, "true") == 0) *out = irm_any_bool(true);
  else if (strcmp(text, "0") == 0 || strcasecmp(text, "false") == 0) *out = irm_any_bool(false);
  else return irm_error(IRM_EVALUE, "expected bool (1, 0, true or false), got '%s'", irm_error_quote(text));
  return IRM_OK;
}

/* Decimal, or hexadecimal with 0x; never octal ("010" is ten). */
static int parse_int(const char *text, int64_t *out) {
  char *end = NULL;
  const char *digits = text + (text[0] == '-' || text[0] == '+');
  int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
  errno = 0;
  long long v = strtoll(text, &end, base);
  if (!*text || isspace((unsigned char)*text) || *end || errno == ERANGE)
    return irm_error(IRM_EVALUE, "expected int, got '%s'", irm_error_quote(text));
  *out = v;
  return IRM_OK;
}

static int parse_float(const char *text, irm_any *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (!*text || isspace((unsigned char)*text) || *end || errno == ERANGE)
    return irm_error(IRM_EVALUE, "expected float, got '%s'", irm_error_quote(text));
  *out = irm_any_float(v);
  return IRM_OK;
}

/* Splits on commas outside single quotes; \' is a literal quote. Each item
 * becomes a String (array<str>) or an int (array<int>). */
static int parse_array(irm_option_type type, const char *text, irm_any *out) {
  irm_object *arr = NULL;
  size_t len = strlen(text);
  if (len == 0) { /* no items, not one empty item */
    int rc = irm_array_new(NULL, 0, &arr);
    *out = irm_any_object(arr);
    return rc;
  }
  char *item = irm_malloc(len + 1);
  int rc = item ? irm_array_new(NULL, 0, &arr) : irm_error_nomem_("parsing an array value");
  size_t n = 0;
  int quoted = 0;
  for (size_t i = 0; rc == IRM_OK && i <= len; i++) {
    char c = text[i];
    if (c == '\\' && text[i + 1] == '\'') {
      item[n++] = '\'';
      i++;
    } else if (c == '\'') {
      quoted = !quoted;
    } else if ((c == ',' && !quoted) || c == '\0') {
      if (c == '\0' && quoted) {
        rc = irm_error(IRM_EVALUE, "unbalanced quote in array value '%s'", irm_error_quote(text));
        break;
      }
      item[n] = '\0';
      irm_any v;
      if (type == IRM_OPTION_ARRAY_INT) {
        int64_t x = 0;
        rc = parse_int(item, &x);
        v = irm_any_int(x);
      } else {
        v = irm_any_str(item);
      }
      if (rc == IRM_OK) rc = irm_array_append_move(&arr, &v);
      n = 0;
    } else {
      item[n++] = c;
    }
  }
  irm_free(item);
  if (rc) {
    irm_object_release(arr);
    return rc;
  }
  *out = irm_any_object(arr);
  return IRM_OK;
}

int irm_option_parse_text(irm_option_type type, const char *text, irm_any *out) {
  if (!text || !out) return irm_error(IRM_EVALUE, "irm_option_parse_text: text and out must not be NULL");
  *out = irm_any_none();
  switch (type) {
    case IRM_OPTION_BOOL: return parse_bool(text, out);
    case IRM_OPTION_INT: {
      int64_t v = 0;
      int rc = parse_int(text, &v);
      if (rc == IRM_OK) *out = irm_any_int(v);
      return rc;
    }
    case IRM_OPTION_FLOAT: return parse_float(text, out);
    case IRM_OPTION_STR:
    case IRM_OPTION_TARGET: {
      irm_object *s = NULL;
      int rc = irm_string_from_cstr(text, &s);
      *out = irm_any_object(s);
      return rc;
    }
    case IRM_OPTION_ARRAY_STR:
    case IRM_OPTION_ARRAY_INT: return parse_array(type, text, out);
    case IRM_OPTION_MAP:
      return irm_error(IRM_EVALUE, "a map option has no text form; got '%s'", irm_error_quote(text));
  }
  return irm_error(IRM_EVALUE, "invalid option type %d", (int)type);
}
