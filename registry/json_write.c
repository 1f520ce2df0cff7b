/* JSON writing (json.h).
 *
 * Walks the object graph with an explicit stack and emits each node as
 * soon as its children are out (post-order), so indices come out children
 * first and a deep chain costs heap, not C stack. Each node is built as a
 * small jansson value, dumped into the text and freed at once. */
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
#include "object_list.h"
#include "text_buf.h"
#include "irm_internal.h" /* irm_ptr_table_ */

/* Room kept before the nodes for the header, which names the root and is
 * known only at the end. */
#define HEADER_ROOM 160

/* ---- writer ------------------------------------------------------------ */

/* Shared objects (count > 1) by address, so each becomes one node. An
 * object with a single reference can be reached only once, so it skips the
 * table. */
typedef struct seen_entry {
  irm_ptr_entry_ base; /* key: the object */
  int64_t index;       /* -1 while its children are being written */
} seen_entry;

typedef struct wframe {
  const irm_object *obj;
  irm_any fields;        /* other types: the to_fields Map, the one child */
  seen_entry *seen;      /* obj's entry when it is shared */
  size_t next;           /* children handed out so far */
  irm_map_iter it;       /* Map cursor */
  const irm_object *key; /* Map: key of the last child handed out */
  size_t refs_base;      /* w->n_refs when the frame was pushed */
} wframe;

typedef struct writer {
  irm_text_buf text; /* starts with HEADER_ROOM bytes kept for the header */
  size_t n_nodes;
  irm_ptr_table_ seen;
  wframe *stack;
  size_t depth, stack_cap;
  /* Node indices of finished children, waiting for their parent. */
  int64_t *refs;
  size_t n_refs, refs_cap;
  /* to_fields Maps live to the end: a freed one's address could come back
   * as a new object and be mistaken for a node already written. */
  irm_object_list keep; /* to_fields Maps, alive until the walk ends */
} writer;

static int write_graph(writer *w, const irm_any *root);
static int write_text(writer *w, const irm_any *root, irm_object **out);
static void writer_free(writer *w);

int irm_to_json(const irm_any *value, irm_object **out) {
  if (!value || !out) return irm_error(IRM_EVALUE, "irm_to_json: value and out must not be NULL");
  *out = NULL;
  irm_any root = *value;
  irm_object *str = NULL;
  if (value->type_code == IRM_STR) { /* a borrowed str is written as a String */
    int rc = irm_any_copy(value, &root);
    if (rc) return rc;
    str = root.v_obj;
  }
  writer w = {0};
  int rc = write_graph(&w, &root);
  if (!rc) rc = write_text(&w, &root, out);
  writer_free(&w);
  irm_object_release(str);
  return rc;
}

static int push_ref(writer *w, int64_t index) {
  int rc = IRM_OK;
  RESERVE(w->refs, w->refs_cap, w->n_refs, 1, rc);
  if (!rc) w->refs[w->n_refs++] = index;
  return rc;
}

static void writer_free(writer *w) {
  irm_ptr_table_free_(&w->seen);
  irm_object_list_release_(&w->keep);
  irm_free(w->refs);
  irm_free(w->stack);
  irm_text_buf_free_(&w->text);
}

static int visit(writer *w, const irm_any *v);
static const irm_any *next_child(wframe *f);
static int finish_frame(writer *w);
static int locate(writer *w, int rc);

/* Walks everything reachable from root, emitting one node per object. */
static int write_graph(writer *w, const irm_any *root) {
  if (!irm_text_buf_reserve_(&w->text, HEADER_ROOM + 4096)) return irm_error_nomem_("handling JSON");
  irm_text_buf_commit_(&w->text, HEADER_ROOM);
  int rc = visit(w, root);
  if (rc) return rc;
  while (w->depth) {
    const irm_any *child = next_child(&w->stack[w->depth - 1]);
    if (!child) rc = finish_frame(w);
    else if ((rc = visit(w, child))) rc = locate(w, rc);
    if (rc) return rc;
  }
  return IRM_OK;
}

/* Adds to an error where in the graph it happened: the innermost
 * container and the item, so a bad value deep inside can be found. */
static int locate(writer *w, int rc) {
  if (!w->depth) return rc;
  const wframe *f = &w->stack[w->depth - 1];
  const wframe *below = w->depth > 1 ? f - 1 : NULL;
  int32_t t = irm_object_type_index(f->obj);
  if (t == IRM_TYPE_ARRAY) return irm_error_context(rc, "item %zu of an ffi.Array", f->next - 1);
  if (t != IRM_TYPE_MAP) return irm_error_context(rc, "fields of a %s", irm_object_type_key(f->obj));
  const char *key = f->key ? irm_string_data(f->key) : "?";
  if (below && below->fields.v_obj == f->obj)
    return irm_error_context(rc, "field '%s' of a %s", irm_error_quote(key), irm_object_type_key(below->obj));
  return irm_error_context(rc, "value of key '%s' in an ffi.Map", irm_error_quote(key));
}

/* The next child value of the frame's object, or NULL when done. */
static const irm_any *next_child(wframe *f) {
  const irm_any *v = NULL;
  int32_t t = irm_object_type_index(f->obj);
  if (t == IRM_TYPE_ARRAY) v = irm_array_at(f->obj, f->next);
  else if (t == IRM_TYPE_MAP) (void)irm_map_iter_next(&f->it, &f->key, &v);
  else if (f->next == 0) v = &f->fields;
  if (v) f->next++;
  return v;
}

static int visit_object(writer *w, const irm_object *o);

/* Scalars are written by their parent; objects become nodes. */
static int visit(writer *w, const irm_any *v) {
  switch (v->type_code) {
  case IRM_NONE:
  case IRM_INT:
  case IRM_BOOL:
  case IRM_FLOAT: return IRM_OK;
  case IRM_OBJECT: return v->v_obj ? visit_object(w, v->v_obj) : IRM_OK;
  case IRM_PTR: return irm_error(IRM_EVALUE, "cannot serialize a ptr value (JSON cannot hold an address)");
  default: return irm_error(IRM_EVALUE, "cannot serialize an invalid value (type code %d)", (int)v->type_code);
  }
}

static int emit_string(writer *w, const irm_object *s);
static int push_frame(writer *w, const irm_object *o, irm_object *fields, seen_entry *seen);

static int visit_object(writer *w, const irm_object *o) {
  seen_entry *seen = NULL;
  if (irm_object_refcount(o) > 1) {
    seen = irm_ptr_table_find_(&w->seen, o);
    if (seen && seen->index < 0)
      return irm_error(IRM_EVALUE, "cannot serialize a %s that contains itself", irm_object_type_key(o));
    if (seen) return push_ref(w, seen->index);
    if (!(seen = irm_ptr_table_add_(&w->seen, o, sizeof *seen))) return irm_error_nomem_("writing JSON");
    seen->index = -1;
  }
  int32_t t = irm_object_type_index(o);
  if (t == IRM_TYPE_STRING) {
    int rc = emit_string(w, o);
    if (!rc && seen) seen->index = (int64_t)w->n_nodes - 1;
    return rc ? rc : push_ref(w, (int64_t)w->n_nodes - 1);
  }
  if (t == IRM_TYPE_ARRAY || t == IRM_TYPE_MAP) return push_frame(w, o, NULL, seen);

  const irm_type_info *info = irm_type_info_of(t);
  const char *key = irm_object_type_key(o);
  if (!info || !info->to_fields)
    return irm_error(IRM_EVALUE, "cannot serialize a value of type '%s': it has no to_fields hook", key ? key : "?");
  irm_object *fields = NULL;
  int rc = info->to_fields(o, &fields);
  if (rc) {
    irm_object_release(fields);
    return irm_error_context(rc, "to_fields of type '%s'", key);
  }
  if (irm_object_type_index(fields) != IRM_TYPE_MAP) {
    const char *got = fields ? irm_object_type_key(fields) : "NULL";
    irm_object_release(fields);
    return irm_error(IRM_EVALUE, "to_fields of type '%s' returned %s, not an ffi.Map", key, got);
  }
  if ((rc = irm_object_list_take_(&w->keep, fields))) return rc;
  return push_frame(w, o, fields, seen);
}

static int push_frame(writer *w, const irm_object *o, irm_object *fields, seen_entry *seen) {
  int rc = IRM_OK;
  RESERVE(w->stack, w->stack_cap, w->depth, 1, rc);
  if (rc) return rc;
  wframe *f = &w->stack[w->depth++];
  memset(f, 0, sizeof *f);
  f->obj = o;
  f->fields = irm_any_object(fields);
  f->seen = seen;
  f->it = irm_map_iter_begin(o);
  f->refs_base = w->n_refs;
  return IRM_OK;
}

/* ---- writer: nodes ----------------------------------------------------- */

static int emit_node(writer *w, json_t *node);
static json_t *string_json(const char *data, size_t len, int *rc);
static json_t *value_json(const irm_any *v, const int64_t **refs);
static json_t *ref_json(int64_t index);

static int emit_string(writer *w, const irm_object *s) {
  int rc = IRM_OK;
  json_t *data = string_json(irm_string_data(s), irm_string_size(s), &rc);
  if (rc) return rc;
  json_t *node = json_object();
  if (!node || json_object_set_new(node, "type", json_string("ffi.String")) ||
      json_object_set_new(node, "data", data)) {
    json_decref(node);
    return irm_error_nomem_("writing JSON");
  }
  return emit_node(w, node);
}

/* Emits the top frame's node now that its children are out; the indices of
 * its object children sit on the refs stack in order. */
static int finish_frame(writer *w) {
  wframe *f = &w->stack[w->depth - 1];
  /* refs is NULL until the first object child: an empty Map or Array has
   * none, and NULL + 0 is undefined behaviour in C. */
  const int64_t *refs = w->refs ? w->refs + f->refs_base : NULL;
  int32_t t = irm_object_type_index(f->obj);
  const char *type = t == IRM_TYPE_ARRAY ? "ffi.Array" : t == IRM_TYPE_MAP ? "ffi.Map" : irm_object_type_key(f->obj);
  json_t *node = json_object();
  int bad = !node || json_object_set_new(node, "type", json_string(type));
  if (!bad && t == IRM_TYPE_ARRAY) {
    json_t *items = json_array();
    bad = json_object_set_new(node, "items", items) || !items;
    for (size_t i = 0; !bad && i < irm_array_size(f->obj); i++)
      bad = json_array_append_new(items, value_json(irm_array_at(f->obj, i), &refs));
  } else if (!bad && t == IRM_TYPE_MAP) {
    json_t *keys = json_array(), *values = json_array();
    bad = json_object_set_new(node, "keys", keys) || json_object_set_new(node, "values", values) || !keys || !values;
    irm_map_iter it = irm_map_iter_begin(f->obj);
    const irm_object *k;
    const irm_any *v;
    int rc = IRM_OK;
    while (!bad && irm_map_iter_next(&it, &k, &v)) {
      json_t *kj = string_json(irm_string_data(k), irm_string_size(k), &rc);
      if (rc) {
        json_decref(node);
        return irm_error_context(rc, "a key of an ffi.Map");
      }
      bad = json_array_append_new(keys, kj) || json_array_append_new(values, value_json(v, &refs));
    }
  } else if (!bad) {
    bad = json_object_set_new(node, "fields", ref_json(refs[0]));
  }
  if (bad) {
    json_decref(node);
    return irm_error_nomem_("writing JSON");
  }
  int rc = emit_node(w, node);
  if (rc) return rc;
  int64_t index = (int64_t)w->n_nodes - 1;
  if (f->seen) f->seen->index = index;
  w->n_refs = f->refs_base;
  w->depth--;
  return push_ref(w, index);
}

/* Appends one node (and frees it): a line of the "nodes" list. */
static int emit_node(writer *w, json_t *node) {
  irm_text_buf *t = &w->text;
  irm_text_buf_append_(t, w->n_nodes ? ",\n  " : "\n  ", w->n_nodes ? 4 : 3);
  size_t room = irm_text_buf_room_(t);
  size_t n = t->failed ? 0 : json_dumpb(node, t->data + t->len, room, JSON_COMPACT);
  if (n > room) {
    char *at = irm_text_buf_reserve_(t, n);
    if (at) n = json_dumpb(node, at, n, JSON_COMPACT);
  }
  json_decref(node);
  if (t->failed) return irm_error_nomem_("handling JSON");
  if (n == 0) return irm_error_nomem_("writing JSON");
  irm_text_buf_commit_(t, n);
  w->n_nodes++;
  return IRM_OK;
}

/* A JSON string of the bytes; JSON text is UTF-8, so other bytes are a
 * ValueError naming the offset. */
static json_t *string_json(const char *data, size_t len, int *rc) {
  size_t bad = irm_utf8_invalid_at_(data, len);
  if (bad < len) {
    *rc = irm_error(IRM_EVALUE,
                    "cannot serialize a String that is not valid UTF-8 (byte 0x%02x at offset "
                    "%zu); JSON text holds only UTF-8",
                    (unsigned)(unsigned char)data[bad], bad);
    return NULL;
  }
  json_t *j = json_stringn(data, len);
  if (!j) *rc = irm_error_nomem_("writing JSON");
  return j;
}

/* A value inside a node: a scalar, or the next object child's reference.
 * NULL only when out of memory (the caller reports it). */
static json_t *value_json(const irm_any *v, const int64_t **refs) {
  switch (v->type_code) {
  case IRM_INT: return json_integer((json_int_t)v->v_int);
  case IRM_BOOL: return json_boolean(v->v_int);
  case IRM_FLOAT:
    if (isfinite(v->v_float)) return json_real(v->v_float);
    return json_pack("{s:s}", "float", isnan(v->v_float) ? "nan" : v->v_float > 0 ? "inf" : "-inf");
  case IRM_OBJECT:
    if (v->v_obj) return ref_json(*(*refs)++);
    return json_null();
  default: return json_null();
  }
}

static json_t *ref_json(int64_t index) { return json_pack("{s:I}", "ref", (json_int_t)index); }

/* Fills the header into the room kept before the nodes and makes the
 * String. */
static int write_text(writer *w, const irm_any *root, irm_object **out) {
  const int64_t *refs = w->refs;
  json_t *rj = value_json(root, &refs);
  char rootbuf[96];
  size_t rn = rj ? json_dumpb(rj, rootbuf, sizeof rootbuf, JSON_COMPACT | JSON_ENCODE_ANY) : 0;
  json_decref(rj);
  if (rn == 0 || rn >= sizeof rootbuf) return irm_error_nomem_("writing JSON");
  char header[HEADER_ROOM];
  int hn = snprintf(header, sizeof header, "{\"irm_json\": %d, \"root\": %.*s, \"nodes\": [", FORMAT_VERSION, (int)rn,
                    rootbuf);
  if (hn < 0 || hn >= HEADER_ROOM) return irm_error(IRM_ERUNTIME, "JSON header too long");
  irm_text_buf *t = &w->text;
  irm_text_buf_puts_(t, w->n_nodes ? "\n]}" : "]}");
  if (t->failed) return irm_error_nomem_("handling JSON");
  char *start = t->data + HEADER_ROOM - hn;
  memcpy(start, header, (size_t)hn);
  return irm_string_new(start, t->len - (HEADER_ROOM - (size_t)hn), out);
}
