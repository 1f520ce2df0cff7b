/* Map: string keys -> owned irm_any values, iterated in insertion order
 * (uthash keeps an application-order list beside its buckets). */
#include <string.h>

#include "builtin_types.h"
#include "error_internal.h"
#include "irm/error.h"
#include "object_internal.h"
#include "uthash_irm.h"

struct irm_map_entry {
  UT_hash_handle hh;
  irm_object *key; /* a String; the hash key points into it */
  irm_any value;
};

static void entry_free(irm_map_entry *e) {
  irm_object_release(e->key);
  irm_any_release(&e->value);
  irm_free(e);
}

void irm_map_finalize_(irm_object *self) {
  irm_map *m = (irm_map *)self;
  irm_map_entry *e, *tmp;
  HASH_ITER(hh, m->head, e, tmp) {
    HASH_DELETE(hh, m->head, e);
    entry_free(e);
  }
}

static int not_map(const char *fn, const irm_object *map) {
  return irm_error(IRM_ETYPE, "%s: expected ffi.Map, got %s", fn,
                   map ? irm_object_type_key(map) : "NULL");
}

static irm_map_entry *entry_find(const irm_map *m, const char *key, size_t len) {
  irm_map_entry *e = NULL;
  HASH_FIND(hh, m->head, key, len, e);
  return e;
}

/* Adds key -> value (taking ownership of both); on failure releases them. */
static int entry_add(irm_map *m, irm_object *key, irm_any value) {
  int irm_hash_oom = 0;
  irm_map_entry *e = irm_malloc(sizeof *e);
  if (e) {
    e->key = key;
    e->value = value;
    const irm_string *k = (const irm_string *)key;
    HASH_ADD_KEYPTR(hh, m->head, k->data, k->size, e);
    if (!irm_hash_oom) return IRM_OK;
    irm_free(e);
  }
  irm_object_release(key);
  irm_any_release(&value);
  return irm_error_nomem_("adding to a Map");
}

/* Sets key to an owned copy of *value, replacing in place if present. */
static int map_set(irm_map *m, const char *key, size_t len, const irm_any *value) {
  irm_any copy;
  int rc = irm_any_copy(value, &copy);
  if (rc) return rc;
  irm_map_entry *e = entry_find(m, key, len);
  if (e) {
    irm_any old = e->value;
    e->value = copy;
    irm_any_release(&old);
    return IRM_OK;
  }
  irm_object *k = NULL;
  if ((rc = irm_string_new(key, len, &k))) {
    irm_any_release(&copy);
    return rc;
  }
  return entry_add(m, k, copy);
}

int irm_map_new(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_map_new: out must not be NULL");
  *out = NULL;
  return irm_object_alloc_(IRM_TYPE_MAP, sizeof(irm_map), out);
}

static int map_clone(const irm_map *src, irm_map **out) {
  irm_object *o = NULL;
  int rc = irm_map_new(&o);
  if (rc) return rc;
  irm_map *m = (irm_map *)o;
  for (const irm_map_entry *e = src->head; e; e = e->hh.next) {
    irm_any v = e->value;
    if (v.type_code == IRM_OBJECT) irm_object_retain(v.v_obj);
    irm_object_retain(e->key);
    if ((rc = entry_add(m, e->key, v))) {
      irm_object_release(o);
      return rc;
    }
  }
  *out = m;
  return IRM_OK;
}

int irm_map_from_pairs(const char *const *keys, const irm_any *values, size_t n, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_map_from_pairs: out must not be NULL");
  *out = NULL;
  if (n && (!keys || !values))
    return irm_error(IRM_EVALUE, "irm_map_from_pairs: keys and values must not be NULL when n is %zu", n);
  irm_object *o = NULL;
  int rc = irm_map_new(&o);
  for (size_t i = 0; rc == IRM_OK && i < n; i++) {
    if (!keys[i])
      rc = irm_error(IRM_EVALUE, "irm_map_from_pairs: key %zu is NULL", i);
    else
      rc = map_set((irm_map *)o, keys[i], strlen(keys[i]), &values[i]);
  }
  if (rc) {
    irm_object_release(o);
    return rc;
  }
  *out = o;
  return IRM_OK;
}

size_t irm_map_size(const irm_object *map) {
  return irm_is_type_(map, IRM_TYPE_MAP) ? HASH_COUNT(((const irm_map *)map)->head) : 0;
}

const irm_any *irm_map_find(const irm_object *map, const char *key, size_t key_len) {
  if (!irm_is_type_(map, IRM_TYPE_MAP) || (!key && key_len)) return NULL;
  irm_map_entry *e = entry_find((const irm_map *)map, key ? key : "", key_len);
  return e ? &e->value : NULL;
}

const irm_any *irm_map_find_cstr(const irm_object *map, const char *key) {
  return key ? irm_map_find(map, key, strlen(key)) : NULL;
}

/* KeyError naming key and the closest existing key. */
static int missing_key(const irm_map *m, const char *key) {
  size_t n = HASH_COUNT(m->head);
  const char **names = irm_malloc((n ? n : 1) * sizeof *names);
  const char *best = NULL;
  if (names) {
    size_t i = 0;
    for (const irm_map_entry *e = m->head; e; e = e->hh.next) names[i++] = irm_string_data(e->key);
    best = irm_closest_name(key, names, n);
  }
  int rc = best ? irm_error(IRM_EKEY, "key '%s' is not in the Map (did you mean '%s'?)", key, best)
                : irm_error(IRM_EKEY, "key '%s' is not in the Map", key);
  irm_free(names);
  return rc;
}

int irm_map_get(const irm_object *map, const char *key, irm_any *out) {
  return irm_map_get_n(map, key, key ? strlen(key) : 0, out);
}

int irm_map_get_n(const irm_object *map, const char *key, size_t key_len, irm_any *out) {
  if (!out || !key) return irm_error(IRM_EVALUE, "irm_map_get: key and out must not be NULL");
  *out = irm_any_none();
  if (!irm_is_type_(map, IRM_TYPE_MAP)) return not_map("irm_map_get", map);
  const irm_any *v = irm_map_find(map, key, key_len);
  if (!v) return missing_key((const irm_map *)map, key);
  return irm_any_copy(v, out);
}

int irm_map_with_set(const irm_object *map, const char *key, const irm_any *value, irm_object **out) {
  if (!out || !key || !value)
    return irm_error(IRM_EVALUE, "irm_map_with_set: key, value and out must not be NULL");
  *out = NULL;
  if (!irm_is_type_(map, IRM_TYPE_MAP)) return not_map("irm_map_with_set", map);
  irm_map *m = NULL;
  int rc = map_clone((const irm_map *)map, &m);
  if (rc) return rc;
  if ((rc = map_set(m, key, strlen(key), value))) {
    irm_object_release(&m->base);
    return rc;
  }
  *out = &m->base;
  return IRM_OK;
}

int irm_map_with_erase(const irm_object *map, const char *key, irm_object **out) {
  if (!out || !key) return irm_error(IRM_EVALUE, "irm_map_with_erase: key and out must not be NULL");
  *out = NULL;
  if (!irm_is_type_(map, IRM_TYPE_MAP)) return not_map("irm_map_with_erase", map);
  if (!irm_map_find_cstr(map, key)) return missing_key((const irm_map *)map, key);
  irm_map *m = NULL;
  int rc = map_clone((const irm_map *)map, &m);
  if (rc) return rc;
  irm_map_entry *e = entry_find(m, key, strlen(key));
  HASH_DELETE(hh, m->head, e);
  entry_free(e);
  *out = &m->base;
  return IRM_OK;
}

/* A Map the caller may change: *ref itself when it holds the only
 * reference, else a private copy (which the caller commits). */
static int map_own(irm_object **ref, irm_map **out) {
  if (irm_object_refcount(*ref) == 1) {
    *out = (irm_map *)*ref;
    return IRM_OK;
  }
  return map_clone((const irm_map *)*ref, out);
}

static void map_commit(irm_object **ref, irm_map *m) {
  if (&m->base != *ref) {
    irm_object_release(*ref);
    *ref = &m->base;
  }
}

int irm_map_set_move(irm_object **ref, const char *key, const irm_any *value) {
  if (!key) return irm_error(IRM_EVALUE, "irm_map_set_move: key must not be NULL");
  return irm_map_set_move_n(ref, key, strlen(key), value);
}

int irm_map_set_move_n(irm_object **ref, const char *key, size_t key_len, const irm_any *value) {
  if (!ref || (!key && key_len) || !value)
    return irm_error(IRM_EVALUE, "irm_map_set_move: ref, key and value must not be NULL");
  if (!irm_is_type_(*ref, IRM_TYPE_MAP)) return not_map("irm_map_set_move", *ref);
  irm_map *m = NULL;
  int rc = map_own(ref, &m);
  if (rc) return rc;
  if ((rc = map_set(m, key ? key : "", key_len, value))) {
    if (&m->base != *ref) irm_object_release(&m->base);
    return rc;
  }
  map_commit(ref, m);
  return IRM_OK;
}

int irm_map_erase_move(irm_object **ref, const char *key) {
  if (!ref || !key) return irm_error(IRM_EVALUE, "irm_map_erase_move: ref and key must not be NULL");
  if (!irm_is_type_(*ref, IRM_TYPE_MAP)) return not_map("irm_map_erase_move", *ref);
  if (!irm_map_find_cstr(*ref, key)) return missing_key((const irm_map *)*ref, key);
  irm_map *m = NULL;
  int rc = map_own(ref, &m);
  if (rc) return rc;
  irm_map_entry *e = entry_find(m, key, strlen(key));
  HASH_DELETE(hh, m->head, e);
  map_commit(ref, m);
  entry_free(e); /* last: its value may be what kept the old map alive */
  return IRM_OK;
}

irm_map_iter irm_map_iter_begin(const irm_object *map) {
  irm_map_iter it = {NULL};
  if (irm_is_type_(map, IRM_TYPE_MAP)) it.next_ = ((const irm_map *)map)->head;
  return it;
}

int irm_map_iter_next(irm_map_iter *it, const irm_object **key, const irm_any **value) {
  if (!it || !it->next_) return 0;
  const irm_map_entry *e = it->next_;
  if (key) *key = e->key;
  if (value) *value = &e->value;
  it->next_ = e->hh.next;
  return 1;
}
