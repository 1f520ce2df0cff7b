/* Option types: names, checking native values, parsing text values.
 * Layer 0 knows the types of plain values; upper layers plug in the types
 * of their objects (option_types.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "builtins.h"
#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "option_types.h"

static const char *const builtin_names[] = {"bool", "int", "float", "str", "array<str>", "array<int>", "map"};
enum { builtin_count = sizeof builtin_names / sizeof builtin_names[0] };
_Static_assert((int)builtin_count == (int)IRM_OPTION_FIRST_PLUGGABLE_,
               "every slot below the first pluggable one is layer 0's");

/* Pluggable slots: written once under plug_lock, read without it. */
static _Atomic(const irm_option_type_def *) plugged[IRM_OPTION_TYPE_LIMIT_];
static pthread_mutex_t plug_lock = PTHREAD_MUTEX_INITIALIZER;

static int is_pluggable(irm_option_type type) {
  return (unsigned)type >= builtin_count && (unsigned)type < IRM_OPTION_TYPE_LIMIT_;
}

/* The def in a pluggable slot; an empty slot may be filled by the
 * built-ins, so they run first (a no-op once they have). */
static const irm_option_type_def *plugged_def(irm_option_type type) {
  if (!is_pluggable(type)) return NULL;
  const irm_option_type_def *d = atomic_load_explicit(&plugged[type], memory_order_acquire);
  if (!d && irm_builtins_ready_() == IRM_OK) d = atomic_load_explicit(&plugged[type], memory_order_acquire);
  return d;
}

int irm_option_type_register_(irm_option_type type, const irm_option_type_def *def) {
  if (!def || !def->name || !def->name[0] || !def->object_key || !def->object_key[0])
    return irm_error(IRM_EVALUE, "an option type needs a name and an object type key");
  if (!is_pluggable(type))
    return irm_error(IRM_EVALUE, "option type '%s': slot %d is not pluggable (slots %d to %d are)", def->name,
                     (int)type, builtin_count, IRM_OPTION_TYPE_LIMIT_ - 1);
  int rc = IRM_OK;
  pthread_mutex_lock(&plug_lock);
  const irm_option_type_def *now = atomic_load_explicit(&plugged[type], memory_order_relaxed);
  for (int i = 0; i < IRM_OPTION_TYPE_LIMIT_ && rc == IRM_OK; i++) {
    const irm_option_type_def *other =
        i < builtin_count ? NULL : atomic_load_explicit(&plugged[i], memory_order_relaxed);
    const char *name = i < builtin_count ? builtin_names[i] : other && i != (int)type ? other->name : NULL;
    if (name && strcmp(name, def->name) == 0)
      rc = irm_error(IRM_EKEY, "option type '%s' is already registered (slot %d)", def->name, i);
  }
  if (rc == IRM_OK && now && now != def)
    rc = irm_error(IRM_EKEY, "option type slot %d already holds '%s'; cannot register '%s' there", (int)type, now->name,
                   def->name);
  if (rc == IRM_OK) atomic_store_explicit(&plugged[type], def, memory_order_release);
  pthread_mutex_unlock(&plug_lock);
  return rc;
}

const char *irm_option_type_name(irm_option_type type) {
  if ((unsigned)type < builtin_count) return builtin_names[type];
  const irm_option_type_def *d = plugged_def(type);
  return d ? d->name : NULL;
}

int irm_option_type_parse(const char *name, irm_option_type *out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_option_type_parse: name and out must not be NULL");
  const char *names[IRM_OPTION_TYPE_LIMIT_];
  size_t n = 0;
  char list[512];
  size_t used = 0;
  for (int i = 0; i < IRM_OPTION_TYPE_LIMIT_; i++) {
    const char *type_name = irm_option_type_name((irm_option_type)i);
    if (!type_name) continue;
    if (strcmp(name, type_name) == 0) {
      *out = (irm_option_type)i;
      return IRM_OK;
    }
    names[n++] = type_name;
    int w = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", type_name);
    if (w > 0 && (size_t)w < sizeof list - used) used += (size_t)w;
  }
  list[used] = '\0';
  const char *best = irm_closest_name(name, names, n);
  return irm_error(IRM_EVALUE, "unknown option type '%s'%s%s%s; types: %s", irm_error_quote(name),
                   best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "", list);
}

/* ---- native values ----------------------------------------------------- */

/* Option values are typed by option type names, so a String is "str" here,
 * as in the schema; the value given is quoted ("got str 'four'"). */
static int mismatch(irm_option_type type, const irm_any *v) {
  return irm_error(IRM_ETYPE, "expected %s, got %s", irm_option_type_name(type), irm_any_describe_(v));
}

/* Whether one item of an Array fits an array type: a String (array<str>),
 * an int (array<int>) or an object of the plugged type's key. */
static int item_fits(irm_option_type type, const irm_option_type_def *def, const irm_any *item) {
  if (type == IRM_OPTION_ARRAY_INT) return item->type_code == IRM_INT;
  if (item->type_code != IRM_OBJECT) return 0;
  return def ? irm_object_is(item->v_obj, def->object_key) : irm_string_data(item->v_obj) != NULL;
}

static int check_items(irm_option_type type, const irm_option_type_def *def, const irm_object *arr) {
  for (size_t i = 0; i < irm_array_size(arr); i++) {
    const irm_any *item = irm_array_at(arr, i);
    if (!item_fits(type, def, item))
      return irm_error(IRM_ETYPE, "expected %s, got an Array whose item %zu is %s", irm_option_type_name(type), i,
                       irm_any_describe_(item));
  }
  return IRM_OK;
}

/* A value of a plugged type: an object of its key, or an Array of them. */
static int check_plugged(irm_option_type type, const irm_option_type_def *def, const irm_any *value, irm_any *out) {
  const char *key = def->is_array ? "ffi.Array" : def->object_key;
  if (value->type_code != IRM_OBJECT || !irm_object_is(value->v_obj, key)) return mismatch(type, value);
  int rc = def->is_array ? check_items(type, def, value->v_obj) : IRM_OK;
  return rc ? rc : irm_any_copy(value, out);
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
    if (value->type_code != IRM_STR && !(value->type_code == IRM_OBJECT && irm_string_data(value->v_obj)))
      return mismatch(type, value);
    return irm_any_copy(value, out);
  case IRM_OPTION_ARRAY_STR:
  case IRM_OPTION_ARRAY_INT: {
    if (value->type_code != IRM_OBJECT || !irm_object_is(value->v_obj, "ffi.Array")) return mismatch(type, value);
    int rc = check_items(type, NULL, value->v_obj);
    return rc ? rc : irm_any_copy(value, out);
  }
  case IRM_OPTION_MAP:
    if (value->type_code != IRM_OBJECT || !irm_object_is(value->v_obj, "ffi.Map")) return mismatch(type, value);
    return irm_any_copy(value, out);
  default: break;
  }
  const irm_option_type_def *def = plugged_def(type);
  return def ? check_plugged(type, def, value, out) : irm_error(IRM_EVALUE, "invalid option type %d", (int)type);
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
  if (!*text || isspace((unsigned char)*text) || *end)
    return irm_error(IRM_EVALUE, "expected int, got '%s'", irm_error_quote(text));
  if (errno == ERANGE)
    return irm_error(IRM_EVALUE, "int '%s' is out of range: it must be between %" PRId64 " and %" PRId64,
                     irm_error_quote(text), INT64_MIN, INT64_MAX);
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
 * becomes an int (array<int>) or a String (the other array types). */
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

static int as_string(const char *text, irm_any *out) {
  irm_object *s = NULL;
  int rc = irm_string_from_cstr(text, &s);
  *out = irm_any_object(s);
  return rc;
}

int irm_option_parse_text(irm_option_type type, const char *text, irm_any *out) {
  if (!text || !out) return irm_error(IRM_EVALUE, "irm_option_parse_text: text and out must not be NULL");
  *out = irm_any_none();
  int bad = irm_utf8_check_("the option text", text);
  if (bad) return bad;
  switch (type) {
  case IRM_OPTION_BOOL: return parse_bool(text, out);
  case IRM_OPTION_INT: {
    int64_t v = 0;
    int rc = parse_int(text, &v);
    if (rc == IRM_OK) *out = irm_any_int(v);
    return rc;
  }
  case IRM_OPTION_FLOAT: return parse_float(text, out);
  case IRM_OPTION_STR: return as_string(text, out);
  case IRM_OPTION_ARRAY_STR:
  case IRM_OPTION_ARRAY_INT: return parse_array(type, text, out);
  case IRM_OPTION_MAP: return irm_error(IRM_EVALUE, "a map option has no text form; got '%s'", irm_error_quote(text));
  default: break;
  }
  /* A plugged type's objects are made by its layer: hand back the text. */
  const irm_option_type_def *def = plugged_def(type);
  if (!def) return irm_error(IRM_EVALUE, "invalid option type %d", (int)type);
  return def->is_array ? parse_array(type, text, out) : as_string(text, out);
}
