/* Private to libirm: a table keyed by object identity whose entries come
 * from a walk pool (walk_pool.h). Every walk over the IR keeps one or more
 * (the rewriter's memo, the printer's use counts, the evaluator's values,
 * the passes' indices); this is the one way they do it.
 *
 * An entry type begins with an irm_ptr_entry_ and adds its payload:
 *
 *   typedef struct memo { irm_ptr_entry_ base; irm_object *result; } memo;
 *   memo *m = irm_ptr_table_add_(&table, node, sizeof *m);
 *
 * Entries live until irm_ptr_table_free_; a table cannot drop one entry.
 *
 * The index is open addressing (linear probing) over (key, entry) slots,
 * with a hash that keeps neighbouring addresses in neighbouring slots: a
 * walk meets nodes roughly in the order they were allocated (or its
 * reverse), so its probes sweep the slots instead of landing on a random
 * cache line each, and the cost per node stays flat from 100 000 nodes to
 * millions. A lookup touches one slot line; a miss never touches entries.
 * Not thread safe: a table belongs to one walk. */
#ifndef IRM_REGISTRY_PTR_TABLE_H
#define IRM_REGISTRY_PTR_TABLE_H

/* Included by irm_internal.h, after walk_pool.h. */

typedef struct irm_ptr_entry_ {
  const void *key;
  struct irm_ptr_entry_ *next; /* in the order of adding */
} irm_ptr_entry_;

typedef struct irm_ptr_slot_ {
  const void *key; /* NULL: empty */
  irm_ptr_entry_ *entry;
} irm_ptr_slot_;

/* A zeroed table is empty. */
typedef struct irm_ptr_table_ {
  irm_ptr_entry_ *head;
  irm_walk_pool_ pool;
  irm_ptr_entry_ *tail;
  irm_ptr_slot_ *slots;
  size_t cap, count; /* cap: 0 or a power of two, at least twice count */
} irm_ptr_table_;

/* An empty table, for initializers. */
#define IRM_PTR_TABLE_INIT_ \
  { NULL, {NULL}, NULL, NULL, 0, 0 }

/* Objects are at least 16-byte aligned and tens of bytes apart: the low
 * bits go; the high ones fold in so that keys a power of two apart still
 * spread. */
static inline size_t irm_ptr_hash_(const void *key) {
  uintptr_t h = (uintptr_t)key >> 4;
  return (size_t)(h ^ (h >> 12) ^ (h >> 24));
}

/* The entry of key, or NULL. */
static inline void *irm_ptr_table_find_(const irm_ptr_table_ *t, const void *key) {
  if (!t->cap) return NULL;
  size_t mask = t->cap - 1;
  for (size_t i = irm_ptr_hash_(key) & mask;; i = (i + 1) & mask) {
    const irm_ptr_slot_ *s = &t->slots[i];
    if (s->key == key) return s->entry;
    if (!s->key) return NULL;
  }
}

/* Places e in slots (cap a power of two, with room). */
static inline void irm_ptr_slots_put_(irm_ptr_slot_ *slots, size_t cap, irm_ptr_entry_ *e) {
  size_t mask = cap - 1, i = irm_ptr_hash_(e->key) & mask;
  while (slots[i].key) i = (i + 1) & mask;
  slots[i].key = e->key;
  slots[i].entry = e;
}

/* Adds a zeroed entry of size bytes (at least sizeof(irm_ptr_entry_)) for
 * key, which must not be in the table yet; NULL when out of memory (then
 * the table is as it was, and the caller reports it). */
static inline void *irm_ptr_table_add_(irm_ptr_table_ *t, const void *key, size_t size) {
  if (2 * (t->count + 1) > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 64;
    irm_ptr_slot_ *slots = irm_calloc(cap, sizeof *slots);
    if (!slots) return NULL;
    for (size_t i = 0; i < t->cap; i++)
      if (t->slots[i].key) irm_ptr_slots_put_(slots, cap, t->slots[i].entry);
    irm_free(t->slots);
    t->slots = slots;
    t->cap = cap;
  }
  irm_ptr_entry_ *e = irm_walk_pool_alloc_(&t->pool, size);
  if (!e) return NULL;
  e->key = key;
  irm_ptr_slots_put_(t->slots, t->cap, e);
  if (t->tail) t->tail->next = e;
  else t->head = e;
  t->tail = e;
  t->count++;
  return e;
}

static inline size_t irm_ptr_table_count_(const irm_ptr_table_ *t) { return t->count; }

/* The entries in the order they were added:
 *   for (E *e = irm_ptr_table_first_(&t); e; e = irm_ptr_table_next_(e)) */
static inline void *irm_ptr_table_first_(const irm_ptr_table_ *t) { return t->head; }

static inline void *irm_ptr_table_next_(const void *entry) { return ((const irm_ptr_entry_ *)entry)->next; }

/* Whether a walk can meet o twice. An object with one reference has one
 * owner; while the walk holds its root, that owner is o's only parent, so
 * the walk meets o once and a table need not remember it (on a large
 * program, every lookup a walk saves is a cache miss saved). */
static inline int irm_object_is_shared_(const irm_object *o) { return irm_object_refcount(o) > 1; }

/* Frees every entry (release their payloads first); the table is empty. */
static inline void irm_ptr_table_free_(irm_ptr_table_ *t) {
  irm_free(t->slots);
  irm_walk_pool_free_(&t->pool);
  memset(t, 0, sizeof *t);
}

#endif
