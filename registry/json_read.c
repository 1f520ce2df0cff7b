/* JSON reading (json.h).
 *
 * Scans the top-level object and the node list itself and lets jansson
 * parse one node (or field) at a time, so memory follows the size of the
 * text instead of jansson's tree of the whole document (about 20 times
 * larger), while jansson still does every string, number and nesting
 * check, including its depth limit. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "error_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/json.h"
#include "json_internal.h"
#include "uthash_irm.h"

/* One value at a time, stopping where it ends; NUL bytes are data. */
#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_ALLOW_NUL)

/* ---- reader ------------------------------------------------------------ */

enum { FIELD_VERSION = 1, FIELD_ROOT = 2, FIELD_NODES = 4 };

typedef struct reader {
  const char *text;
  size_t len, pos;
  irm_object **nodes; /* owned */
  size_t n_nodes, nodes_cap;
  json_t *root;    /* read when seen, converted once the nodes exist */
  unsigned fields; /* FIELD_* seen so far */
  /* The first error in what the text means (its message is the last
   * error). The scan goes on without building anything, so that a syntax
   * error further on is what the user sees, as when parsing whole. */
  int failed;
  int malformed; /* set with a syntax error: nothing to scan further */
} reader;

static int read_document(reader *r);
static int read_value(reader *r, const json_t *j, size_t limit, int is_root, irm_any *out);

int irm_from_json(const char *text, size_t len, irm_any *out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_from_json: out must not be NULL");
  *out = irm_any_none();
  if (!text && len) return irm_error(IRM_EVALUE, "irm_from_json: text is NULL but len is %zu", len);
  reader r = {.text = text ? text : ""};
  r.len = len;
  int rc = read_document(&r);
  irm_any root = irm_any_none();
  if (!rc && (rc = read_value(&r, r.root, r.n_nodes, 1, &root))) irm_error_context(rc, "root");
  if (!rc) rc = irm_any_copy(&root, out); /* retains: the node table lets go below */
  for (size_t i = 0; i < r.n_nodes; i++) irm_object_release(r.nodes[i]);
  irm_free(r.nodes);
  json_decref(r.root);
  return rc;
}

static int peek(const reader *r) { return r->pos < r->len ? (unsigned char)r->text[r->pos] : -1; }

static void skip_ws(reader *r) {
  while (r->pos < r->len) {
    char c = r->text[r->pos];
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
    r->pos++;
  }
}

/* "ValueError: malformed JSON at line L, column C: ..." with jansson's
 * counting: lines from 1, columns in characters up to offset. */
static int syntax_error(reader *r, size_t offset, const char *what) {
  r->malformed = 1;
  int line = 1, col = 0;
  for (size_t i = 0; i < offset && i < r->len; i++) {
    if (r->text[i] == '\n') line++, col = 0;
    else if (((unsigned char)r->text[i] & 0xC0) != 0x80) col++;
  }
  return irm_error(IRM_EVALUE, "malformed JSON at line %d, column %d: %s", line, col, what);
}

/* A syntax error of the scanner at the current position, jansson-style. */
static int expected_error(reader *r, const char *expected) {
  char what[128];
  int c = peek(r);
  if (c < 0) snprintf(what, sizeof what, "%s near end of file", expected);
  else if (c >= 0x20 && c < 0x7f) snprintf(what, sizeof what, "%s near '%c'", expected, c);
  else snprintf(what, sizeof what, "%s near byte 0x%02x", expected, (unsigned)c);
  return syntax_error(r, r->pos + (c >= 0), what);
}

/* Parses one JSON value at the current position with jansson. */
static int load_value(reader *r, json_t **out) {
  json_error_t err;
  *out = json_loadb(r->text + r->pos, r->len - r->pos, LOAD_FLAGS, &err);
  if (!*out) return syntax_error(r, r->pos + (size_t)(err.position > 0 ? err.position : 0), err.text);
  r->pos += (size_t)err.position;
  return IRM_OK;
}

/* Parses one JSON value at the current position and drops it. */
static int skip_value(reader *r) {
  json_t *v = NULL;
  int rc = load_value(r, &v);
  json_decref(v);
  return rc;
}

/* Remembers rc, an error in what the text means, and lets the scan go on
 * (0); a syntax error, or running out of memory, stops it (rc). */
static int defer_error(reader *r, int rc) {
  if (!rc || r->malformed || rc == IRM_ENOMEM) return rc;
  if (!r->failed) r->failed = rc;
  return IRM_OK;
}

static const char *json_kind(const json_t *j) {
  switch (json_typeof(j)) {
  case JSON_OBJECT: return "an object";
  case JSON_ARRAY: return "an array";
  case JSON_STRING: return "a string";
  case JSON_INTEGER: return "an integer";
  case JSON_REAL: return "a real";
  case JSON_TRUE:
  case JSON_FALSE: return "a bool";
  default: return "null";
  }
}

static int read_field(reader *r);

/* {"irm_json": 1, "root": ..., "nodes": [...]}, fields in any order. */
static int read_document(reader *r) {
  skip_ws(r);
  if (peek(r) != '{') {
    /* Not ours to scan: let jansson judge the whole text, so its message
     * (depth limit, bad token) is what the user sees. */
    json_error_t err;
    json_t *j = json_loadb(r->text, r->len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    if (!j) return syntax_error(r, (size_t)(err.position > 0 ? err.position : 0), err.text);
    int rc = irm_error(IRM_EVALUE,
                       "expected a JSON object with \"irm_json\", \"root\" and "
                       "\"nodes\" at the top level, got %s",
                       json_kind(j));
    json_decref(j);
    return rc;
  }
  r->pos++;
  skip_ws(r);
  if (peek(r) == '}') r->pos++;
  else
    for (;;) {
      int rc = read_field(r);
      if (rc) return rc;
      skip_ws(r);
      if (peek(r) == '}') {
        r->pos++;
        break;
      }
      if (peek(r) != ',') return expected_error(r, "',' or '}' expected");
      r->pos++;
      skip_ws(r);
    }
  skip_ws(r);
  if (r->pos < r->len) return expected_error(r, "end of file expected");
  if (r->failed) return r->failed;
  if (!(r->fields & FIELD_VERSION))
    return irm_error(IRM_EVALUE,
                     "missing top-level field 'irm_json' (the format version; this "
                     "irm reads version %d)",
                     FORMAT_VERSION);
  if (!(r->fields & FIELD_ROOT)) return irm_error(IRM_EVALUE, "missing top-level field 'root'");
  if (!(r->fields & FIELD_NODES)) return irm_error(IRM_EVALUE, "missing top-level field 'nodes'");
  return IRM_OK;
}

static int read_version(reader *r);
static int read_nodes(reader *r);

static int read_field(reader *r) {
  static const char *const names[] = {"irm_json", "root", "nodes"};
  if (peek(r) != '"') return expected_error(r, "string or '}' expected");
  json_t *key = NULL;
  int rc = load_value(r, &key);
  if (rc) return rc;
  unsigned field = 0;
  for (unsigned i = 0; i < 3; i++)
    if (json_string_length(key) == strlen(names[i]) && !strcmp(json_string_value(key), names[i])) field = 1u << i;
  /* Once skipping, a second error would replace the first one's message. */
  if (!field && !r->failed) {
    const char *best = irm_closest_name(json_string_value(key), names, 3);
    if (best)
      rc = irm_error(IRM_EVALUE, "unknown top-level field '%s' (did you mean '%s'?)",
                     irm_error_quote(json_string_value(key)), best);
    else
      rc = irm_error(IRM_EVALUE,
                     "unknown top-level field '%s' (the fields are irm_json, root "
                     "and nodes)",
                     irm_error_quote(json_string_value(key)));
  } else if ((r->fields & field) && !r->failed) {
    rc = irm_error(IRM_EVALUE, "top-level field '%s' appears twice", irm_error_quote(json_string_value(key)));
  }
  json_decref(key);
  if ((rc = defer_error(r, rc))) return rc;
  r->fields |= field;
  skip_ws(r);
  if (peek(r) != ':') return expected_error(r, "':' expected");
  r->pos++;
  skip_ws(r);
  if (field == FIELD_NODES) return read_nodes(r); /* node by node, also when skipping */
  if (r->failed) return skip_value(r);
  if (field == FIELD_VERSION) return defer_error(r, read_version(r));
  return load_value(r, &r->root);
}

static int read_version(reader *r) {
  json_t *v = NULL;
  int rc = load_value(r, &v);
  if (rc) return rc;
  if (!json_is_integer(v))
    rc = irm_error(IRM_EVALUE,
                   "top-level field 'irm_json' (the format version) must be an "
                   "integer, got %s",
                   json_kind(v));
  else if (json_integer_value(v) != FORMAT_VERSION)
    rc = irm_error(IRM_EVALUE, "unsupported irm_json version %lld (this irm reads version %d)",
                   (long long)json_integer_value(v), FORMAT_VERSION);
  json_decref(v);
  return rc;
}

static int read_node(reader *r, const json_t *j, size_t index, irm_object **out);

/* The node list, one jansson parse per node. */
static int read_nodes(reader *r) {
  if (peek(r) != '[') {
    json_t *v = NULL;
    int rc = load_value(r, &v);
    if (rc) return rc;
    rc = r->failed ? IRM_OK : irm_error(IRM_EVALUE, "top-level field 'nodes' must be an array, got %s", json_kind(v));
    json_decref(v);
    return defer_error(r, rc);
  }
  r->pos++;
  skip_ws(r);
  if (peek(r) == ']') {
    r->pos++;
    return IRM_OK;
  }
  for (size_t i = 0;; i++) {
    json_t *j = NULL;
    irm_object *node = NULL;
    int rc = load_value(r, &j);
    if (rc) return irm_error_context(rc, "node %zu", i);
    if (!r->failed) rc = read_node(r, j, r->n_nodes, &node);
    json_decref(j);
    if (!rc && node) RESERVE(r->nodes, r->nodes_cap, r->n_nodes, 1, rc);
    if (rc) {
      irm_object_release(node);
      if ((rc = defer_error(r, rc))) return rc;
    } else if (node) {
      r->nodes[r->n_nodes++] = node;
    }
    skip_ws(r);
    if (peek(r) == ']') {
      r->pos++;
      return IRM_OK;
    }
    if (peek(r) != ',') return expected_error(r, "',' or ']' expected");
    r->pos++;
  }
}

/* ---- reader: nodes ----------------------------------------------------- */

static int check_fields(const json_t *j, const char *const *allowed, size_t n);
static int read_string_node(const json_t *j, irm_object **out);
static int read_array_node(reader *r, const json_t *j, size_t index, irm_object **out);
static int read_map_node(reader *r, const json_t *j, size_t index, irm_object **out);
static int read_other_node(reader *r, const json_t *j, int32_t t, size_t index, irm_object **out);

static int read_node(reader *r, const json_t *j, size_t index, irm_object **out) {
  static const char *const string_fields[] = {"type", "data"};
  static const char *const array_fields[] = {"type", "items"};
  static const char *const map_fields[] = {"type", "keys", "values"};
  static const char *const other_fields[] = {"type", "fields"};
  if (!json_is_object(j)) return irm_error(IRM_EVALUE, "node %zu must be a JSON object, got %s", index, json_kind(j));
  const json_t *type = json_object_get(j, "type");
  if (!type) return irm_error(IRM_EVALUE, "node %zu: missing field 'type'", index);
  if (!json_is_string(type))
    return irm_error(IRM_EVALUE, "node %zu: field 'type' must be a string, got %s", index, json_kind(type));
  const char *key = json_string_value(type);
  if (strlen(key) != json_string_length(type))
    return irm_error(IRM_EVALUE, "node %zu: field 'type' holds a NUL byte", index);
  int rc;
  if (!strcmp(key, "ffi.String")) {
    if (!(rc = check_fields(j, string_fields, 2))) rc = read_string_node(j, out);
  } else if (!strcmp(key, "ffi.Array")) {
    if (!(rc = check_fields(j, array_fields, 2))) rc = read_array_node(r, j, index, out);
  } else if (!strcmp(key, "ffi.Map")) {
    if (!(rc = check_fields(j, map_fields, 3))) rc = read_map_node(r, j, index, out);
  } else {
    int32_t t = -1;
    if ((rc = irm_type_find(key, &t))) return irm_error_context(rc, "node %zu", index);
    if (!(rc = check_fields(j, other_fields, 2))) rc = read_other_node(r, j, t, index, out);
  }
  return rc ? irm_error_context(rc, "node %zu (%s)", index, key) : IRM_OK;
}

/* Rejects fields the format does not have, suggesting the closest. */
static int check_fields(const json_t *j, const char *const *allowed, size_t n) {
  const char *name;
  json_t *value;
  json_object_foreach((json_t *)j, name, value) {
    size_t i = 0;
    while (i < n && strcmp(name, allowed[i])) i++;
    if (i < n) continue;
    const char *best = irm_closest_name(name, allowed, n);
    if (best) return irm_error(IRM_EVALUE, "unknown field '%s' (did you mean '%s'?)", irm_error_quote(name), best);
    return irm_error(IRM_EVALUE, "unknown field '%s'", irm_error_quote(name));
  }
  return IRM_OK;
}

/* Field name of j, which must have JSON type want (described as what). */
static const json_t *get_field(const json_t *j, const char *name, json_type want, const char *what, int *rc) {
  const json_t *f = json_object_get(j, name);
  if (!f) *rc = irm_error(IRM_EVALUE, "missing field '%s'", name);
  else if (json_typeof(f) != want)
    *rc = irm_error(IRM_EVALUE, "field '%s' must be %s, got %s", name, what, json_kind(f));
  return *rc ? NULL : f;
}

static int read_string_node(const json_t *j, irm_object **out) {
  int rc = IRM_OK;
  const json_t *data = get_field(j, "data", JSON_STRING, "a string", &rc);
  return rc ? rc : irm_string_new(json_string_value(data), json_string_length(data), out);
}

/* Reads the n values of a JSON array into a new buffer of borrowed values. */
static int read_values(reader *r, const json_t *arr, const char *what, size_t index, irm_any **out) {
  size_t n = json_array_size(arr);
  *out = irm_calloc(n ? n : 1, sizeof **out);
  if (!*out) return irm_error_nomem_("reading JSON");
  for (size_t i = 0; i < n; i++) {
    int rc = read_value(r, json_array_get(arr, i), index, 0, &(*out)[i]);
    if (rc) return irm_error_context(rc, "%s %zu", what, i);
  }
  return IRM_OK;
}

static int read_array_node(reader *r, const json_t *j, size_t index, irm_object **out) {
  int rc = IRM_OK;
  const json_t *items = get_field(j, "items", JSON_ARRAY, "an array", &rc);
  irm_any *values = NULL;
  if (!rc) rc = read_values(r, items, "item", index, &values);
  if (!rc) rc = irm_array_new(values, json_array_size(items), out);
  irm_free(values);
  return rc;
}

static int read_map_node(reader *r, const json_t *j, size_t index, irm_object **out) {
  int rc = IRM_OK;
  const json_t *keys = get_field(j, "keys", JSON_ARRAY, "an array", &rc);
  const json_t *vals = rc ? NULL : get_field(j, "values", JSON_ARRAY, "an array", &rc);
  if (rc) return rc;
  size_t n = json_array_size(keys);
  if (json_array_size(vals) != n)
    return irm_error(IRM_EVALUE,
                     "fields 'keys' and 'values' must have the same length, got %zu "
                     "and %zu",
                     n, json_array_size(vals));
  irm_any *values = NULL;
  irm_object *map = NULL;
  rc = read_values(r, vals, "value", index, &values);
  if (!rc) rc = irm_map_new(&map);
  for (size_t i = 0; !rc && i < n; i++) {
    const json_t *k = json_array_get(keys, i);
    if (!json_is_string(k)) rc = irm_error(IRM_EVALUE, "key %zu must be a string, got %s", i, json_kind(k));
    else if (irm_map_find(map, json_string_value(k), json_string_length(k)))
      rc = irm_error(IRM_EVALUE, "key %zu ('%s') appears twice", i, irm_error_quote(json_string_value(k)));
    else rc = irm_map_set_move_n(&map, json_string_value(k), json_string_length(k), &values[i]);
  }
  irm_free(values);
  if (rc) {
    irm_object_release(map);
    return rc;
  }
  *out = map;
  return IRM_OK;
}

/* A registered type rebuilt by its from_fields hook from a Map node. */
static int read_other_node(reader *r, const json_t *j, int32_t t, size_t index, irm_object **out) {
  const char *type = irm_type_key(t);
  const irm_type_info *info = irm_type_info_of(t);
  int rc;
  if (!info || !info->from_fields)
    return irm_error(IRM_EVALUE, "type '%s' cannot be read from JSON: it has no from_fields hook", type);
  const json_t *fields = json_object_get(j, "fields");
  if (!fields) return irm_error(IRM_EVALUE, "missing field 'fields'");
  irm_any map = irm_any_none();
  if ((rc = read_value(r, fields, index, 0, &map))) return irm_error_context(rc, "field 'fields'");
  if (irm_object_type_index(map.type_code == IRM_OBJECT ? map.v_obj : NULL) != IRM_TYPE_MAP)
    return irm_error(IRM_EVALUE, "field 'fields' must refer to an ffi.Map node, got %s", irm_any_type_name(&map));
  irm_object *obj = NULL;
  if ((rc = info->from_fields(map.v_obj, &obj))) {
    irm_object_release(obj);
    return irm_error_context(rc, "from_fields of type '%s'", type);
  }
  if (!obj || !irm_type_is_subtype(irm_object_type_index(obj), t)) {
    const char *got = obj ? irm_object_type_key(obj) : "NULL";
    irm_object_release(obj);
    return irm_error(IRM_EVALUE, "from_fields of type '%s' returned %s", type, got);
  }
  *out = obj;
  return IRM_OK;
}

/* A value: null, true/false, a number, {"float": "nan"|"inf"|"-inf"} or
 * {"ref": i} with i < limit (earlier nodes only; any node for the root).
 * Objects in *out are borrowed from the node table. */
static int read_value(reader *r, const json_t *j, size_t limit, int is_root, irm_any *out) {
  switch (json_typeof(j)) {
  case JSON_NULL: *out = irm_any_none(); return IRM_OK;
  case JSON_TRUE: *out = irm_any_bool(true); return IRM_OK;
  case JSON_FALSE: *out = irm_any_bool(false); return IRM_OK;
  case JSON_INTEGER: *out = irm_any_int((int64_t)json_integer_value(j)); return IRM_OK;
  case JSON_REAL: *out = irm_any_float(json_real_value(j)); return IRM_OK;
  default: break;
  }
  const json_t *ref = json_object_get(j, "ref");
  const json_t *flt = json_object_get(j, "float");
  if (json_object_size(j) == 1 && ref) {
    if (!json_is_integer(ref)) return irm_error(IRM_EVALUE, "field 'ref' must be an integer, got %s", json_kind(ref));
    json_int_t i = json_integer_value(ref);
    if (i < 0 || (uint64_t)i >= limit) {
      if (is_root)
        return irm_error(IRM_EVALUE, "{\"ref\": %lld} refers to no node (there are %zu)", (long long)i, limit);
      if (limit == 0)
        return irm_error(IRM_EVALUE,
                         "{\"ref\": %lld} must refer to an earlier node, and node 0 "
                         "has none",
                         (long long)i);
      return irm_error(IRM_EVALUE, "{\"ref\": %lld} must refer to an earlier node (0 to %zu)", (long long)i, limit - 1);
    }
    *out = irm_any_object(r->nodes[i]);
    return IRM_OK;
  }
  if (json_object_size(j) == 1 && json_is_string(flt)) {
    const char *s = json_string_value(flt);
    if (!strcmp(s, "nan")) *out = irm_any_float(NAN);
    else if (!strcmp(s, "inf")) *out = irm_any_float(INFINITY);
    else if (!strcmp(s, "-inf")) *out = irm_any_float(-INFINITY);
    else return irm_error(IRM_EVALUE, "{\"float\": \"%s\"}: expected \"nan\", \"inf\" or \"-inf\"", irm_error_quote(s));
    return IRM_OK;
  }
  return irm_error(IRM_EVALUE,
                   "expected null, true, false, a number, {\"ref\": i} or "
                   "{\"float\": \"nan\"|\"inf\"|\"-inf\"}, got %s",
                   json_kind(j));
}
