/* Map: string keys -> owned irm_any values, iterated in insertion order.
 *
 * Entries live in one array in insertion order, so a small map (most are:
 * config attributes, options) costs one allocation for its entries and is
 * searched by a short scan. Past INDEX_FROM entries a uthash index of
 * positions is added; it is only a speed-up, so when memory for it runs
 * out the map works on without it (and tries again on a later insert).
 *
 * Erasing from an indexed map leaves a hole (key NULL) where the entry was,
 * as CPython's compact dict does, and compacts the array once holes are
 * more than half of it, so erase is O(1) amortised. The index lists its
 * nodes in the order they were added (uthash keeps that list), which is
 * the order of the live entries, so compaction renumbers positions in one
 * walk without hashing or allocating. A map without an index closes the
 * gap at once: it is small, or short of memory. */
#include <string.h>

#include "builtin_types.h"
#include "error_internal.h"
#include "irm/error.h"
#include "object_internal.h"
#include "uthash_irm.h"

#define INDEX_FROM 9

struct irm_map_index {
  UT_hash_handle hh;
  size_t pos;
};

static const char *key_data(const irm_map_entry *e) { return ((const irm_string *)e->key)->data; }
static size_t key_size(const irm_map_entry *e) { return ((const irm_string *)e->key)->size; }

static void index_drop(irm_map *m) {
  irm_map_index *n, *tmp;
  HASH_ITER(hh, m->index, n, tmp) {
    HASH_DELETE(hh, m->index, n);
    irm_free(n);
  }
}

/* Indexes entry pos, whose key hashes to hashv; on running out of memory,
 * no index (and -1). Nodes are added in array order, which compact()
 * relies on. */
static int index_add(irm_map *m, size_t pos, unsigned hashv) {
  int irm_hash_oom = 0;
  irm_map_index *n = irm_malloc(sizeof *n);
  if (n) {
    n->pos = pos;
    HASH_ADD_KEYPTR_BYHASHVALUE(hh, m->index, key_data(&m->entries[pos]), key_size(&m->entries[pos]), hashv, n);
  }
  if (!n || irm_hash_oom) {
    irm_free(n);
    index_drop(m);
    return -1;
  }
  return 0;
}

/* Indexes every live entry of a map without an index. */
static void index_build(irm_map *m) {
  for (size_t i = 0; i < m->used; i++) {
    if (!m->entries[i].key) continue;
    unsigned hashv;
    HASH_VALUE(key_data(&m->entries[i]), key_size(&m->entries[i]), hashv);
    if (index_add(m, i, hashv)) return;
  }
}

void irm_map_finalize_(irm_object *self) {
  irm_map *m = (irm_map *)self;
  index_drop(m);
  for (size_t i = 0; i < m->used; i++) {
    if (!m->entries[i].key) continue;
    irm_object_release(m->entries[i].key);
    irm_any_release(&m->entries[i].value);
  }
  irm_free(m->entries);
}

static int not_map(const char *fn, const irm_object *map) {
  return irm_error(IRM_ETYPE, "%s: expected ffi.Map, got %s", fn, map ? irm_object_type_key(map) : "NULL");
}

/* Where a look-up for a key ended: its index node (NULL when absent or the
 * map has no index) and its hash (set only when the map has an index), so
 * that erasing or adding does not hash the key again. */
typedef struct lookup {
  irm_map_index *node;
  unsigned hashv;
} lookup;

/* The live entry for key, or NULL. */
static irm_map_entry *entry_find(const irm_map *m, const char *key, size_t len, lookup *at) {
  at->node = NULL;
  at->hashv = 0;
  if (m->index) {
    HASH_VALUE(key, len, at->hashv);
    HASH_FIND_BYHASHVALUE(hh, m->index, key, len, at->hashv, at->node);
    return at->node ? &m->entries[at->node->pos] : NULL;
  }
  for (size_t i = 0; i < m->used; i++)
    if (m->entries[i].key && key_size(&m->entries[i]) == len && memcmp(key_data(&m->entries[i]), key, len) == 0)
      return &m->entries[i];
  return NULL;
}

/* Room for extra more entries; MemoryError leaves the map as it was. */
static int reserve(irm_map *m, size_t extra) {
  if (m->used + extra <= m->capacity) return IRM_OK;
  size_t cap = m->capacity ? m->capacity * 2 : 4;
  while (cap < m->used + extra) cap *= 2;
  irm_map_entry *grown = irm_realloc(m->entries, cap * sizeof *grown);
  if (!grown) return irm_error_nomem_("adding to a Map");
  m->entries = grown;
  m->capacity = cap;
  return IRM_OK;
}

/* Adds key -> value (taking ownership of both), after a look-up at that
 * found no entry; on failure releases them. */
static int entry_add(irm_map *m, irm_object *key, irm_any value, const lookup *at) {
  int rc = reserve(m, 1);
  if (rc) {
    irm_object_release(key);
    irm_any_release(&value);
    return rc;
  }
  m->entries[m->used++] = (irm_map_entry){key, value};
  m->size++;
  if (m->index) (void)index_add(m, m->used - 1, at->hashv);
  else if (m->size >= INDEX_FROM) index_build(m);
  return IRM_OK;
}

/* Squeezes the holes out of entries[0..used), keeping order. */
static void compact(irm_map *m) {
  size_t j = 0;
  if (m->index) {
    for (irm_map_index *n = m->index; n; n = n->hh.next, j++)
      if (n->pos != j) {
        m->entries[j] = m->entries[n->pos];
        n->pos = j;
      }
  } else {
    for (size_t i = 0; i < m->used; i++)
      if (m->entries[i].key) m->entries[j++] = m->entries[i];
  }
  m->used = j;
}

/* Takes entry e (found at node) out into *removed, for the caller to
 * release when it is safe. Never allocates. */
static void entry_erase(irm_map *m, irm_map_entry *e, irm_map_index *node, irm_map_entry *removed) {
  *removed = *e;
  e->key = NULL;
  e->value = irm_any_none();
  m->size--;
  if (node) {
    HASH_DELETE(hh, m->index, node);
    irm_free(node);
  }
  while (m->used && !m->entries[m->used - 1].key) m->used--;
  if (!m->index || m->used - m->size > m->used / 2) compact(m);
}

static void entry_release(irm_map_entry *e) {
  irm_object_release(e->key);
  irm_any_release(&e->value);
}

/* Sets key to an owned copy of *value, replacing in place if present. */
static int map_set(irm_map *m, const char *key, size_t len, const irm_any *value) {
  irm_any copy;
  int rc = irm_any_copy(value, &copy);
  if (rc) return rc;
  lookup at;
  irm_map_entry *e = entry_find(m, key, len, &at);
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
  return entry_add(m, k, copy, &at);
}

int irm_map_new(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_map_new: out must not be NULL");
  *out = NULL;
  return irm_object_alloc_(IRM_TYPE_MAP, sizeof(irm_map), out);
}

/* A copy sharing src's keys and values (retained), with room for one more
 * entry, since a copy is made to be changed. */
static int map_clone(const irm_map *src, irm_map **out) {
  irm_object *o = NULL;
  int rc = irm_map_new(&o);
  if (rc) return rc;
  irm_map *m = (irm_map *)o;
  if ((rc = reserve(m, src->size + 1))) {
    irm_object_release(o);
    return rc;
  }
  for (size_t i = 0; i < src->used; i++) {
    const irm_map_entry *e = &src->entries[i];
    if (!e->key) continue;
    irm_object_retain(e->key);
    if (e->value.type_code == IRM_OBJECT) irm_object_retain(e->value.v_obj);
    m->entries[m->used++] = *e;
  }
  m->size = m->used;
  if (m->size >= INDEX_FROM) index_build(m);
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
    if (!keys[i]) rc = irm_error(IRM_EVALUE, "irm_map_from_pairs: key %zu is NULL", i);
    else rc = map_set((irm_map *)o, keys[i], strlen(keys[i]), &values[i]);
  }
  if (rc) {
    irm_object_release(o);
    return rc;
  }
  *out = o;
  return IRM_OK;
}

size_t irm_map_size(const irm_object *map) {
  return irm_is_type_(map, IRM_TYPE_MAP) ? ((const irm_map *)map)->size : 0;
}

const irm_any *irm_map_find(const irm_object *map, const char *key, size_t key_len) {
  if (!irm_is_type_(map, IRM_TYPE_MAP) || (!key && key_len)) return NULL;
  lookup at;
  irm_map_entry *e = entry_find((const irm_map *)map, key ? key : "", key_len, &at);
  return e ? &e->value : NULL;
}

const irm_any *irm_map_find_cstr(const irm_object *map, const char *key) {
  return key ? irm_map_find(map, key, strlen(key)) : NULL;
}

/* KeyError naming key and the closest existing key. */
static int missing_key(const irm_map *m, const char *key) {
  size_t n = 0;
  const char **names = irm_malloc((m->size ? m->size : 1) * sizeof *names);
  const char *best = NULL;
  if (names) {
    for (size_t i = 0; i < m->used; i++)
      if (m->entries[i].key) names[n++] = key_data(&m->entries[i]);
    best = irm_closest_name(key, names, n);
  } else {
    return irm_error_nomem_("reporting a missing key");
  }
  int rc = best ? irm_error(IRM_EKEY, "key '%s' is not in the Map (did you mean '%s'?)", irm_error_quote(key),
                            irm_error_quote(best))
                : irm_error(IRM_EKEY, "key '%s' is not in the Map", irm_error_quote(key));
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
  if (!out || !key || !value) return irm_error(IRM_EVALUE, "irm_map_with_set: key, value and out must not be NULL");
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
  lookup at;
  irm_map_entry removed, *e = entry_find(m, key, strlen(key), &at);
  entry_erase(m, e, at.node, &removed);
  entry_release(&removed);
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
  size_t len = strlen(key);
  lookup at;
  irm_map_entry removed, *e = entry_find((irm_map *)*ref, key, len, &at);
  if (!e) return missing_key((const irm_map *)*ref, key);
  irm_map *m = NULL;
  int rc = map_own(ref, &m);
  if (rc) return rc;
  if (&m->base != *ref) e = entry_find(m, key, len, &at); /* in the copy */
  entry_erase(m, e, at.node, &removed);
  map_commit(ref, m);
  entry_release(&removed); /* last: its value may be what kept the old map alive */
  return IRM_OK;
}

irm_map_iter irm_map_iter_begin(const irm_object *map) {
  irm_map_iter it = {irm_is_type_(map, IRM_TYPE_MAP) ? map : NULL, 0};
  return it;
}

int irm_map_iter_next(irm_map_iter *it, const irm_object **key, const irm_any **value) {
  if (!it || !it->map_) return 0;
  const irm_map *m = it->map_;
  while (it->next_ < m->used && !m->entries[it->next_].key) it->next_++; /* holes */
  if (it->next_ >= m->used) return 0;
  const irm_map_entry *e = &m->entries[it->next_++];
  if (key) *key = e->key;
  if (value) *value = &e->value;
  return 1;
}
