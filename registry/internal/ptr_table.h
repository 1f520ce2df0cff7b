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
 * Not thread safe: a table belongs to one walk. */
#ifndef IRM_REGISTRY_PTR_TABLE_H
#define IRM_REGISTRY_PTR_TABLE_H

/* Included by irm_internal.h, after uthash and walk_pool.h. */

typedef struct irm_ptr_entry_ {
  UT_hash_handle hh;
  const void *key;
} irm_ptr_entry_;

/* A zeroed table is empty. */
typedef struct irm_ptr_table_ {
  irm_ptr_entry_ *head;
  irm_walk_pool_ pool;
} irm_ptr_table_;

/* The entry of key, or NULL. */
static inline void *irm_ptr_table_find_(const irm_ptr_table_ *t, const void *key) {
  irm_ptr_entry_ *e = NULL;
  HASH_FIND_PTR(t->head, &key, e);
  return e;
}

/* Adds a zeroed entry of size bytes (at least sizeof(irm_ptr_entry_)) for
 * key, which must not be in the table yet; NULL when out of memory (then
 * the table is as it was, and the caller reports it). */
static inline void *irm_ptr_table_add_(irm_ptr_table_ *t, const void *key, size_t size) {
  irm_ptr_entry_ *e = irm_walk_pool_alloc_(&t->pool, size);
  if (!e) return NULL;
  e->key = key;
  int irm_hash_oom = 0;
  HASH_ADD_PTR(t->head, key, e);
  return irm_hash_oom ? NULL : e; /* on failure the pool keeps e, unused */
}

static inline size_t irm_ptr_table_count_(const irm_ptr_table_ *t) {
  return HASH_COUNT(t->head);
}

/* The entries in the order they were added:
 *   for (E *e = irm_ptr_table_first_(&t); e; e = irm_ptr_table_next_(e)) */
static inline void *irm_ptr_table_first_(const irm_ptr_table_ *t) {
  return t->head;
}

static inline void *irm_ptr_table_next_(const void *entry) {
  return ((const irm_ptr_entry_ *)entry)->hh.next;
}

/* Whether a walk can meet o twice. An object with one reference has one
 * owner; while the walk holds its root, that owner is o's only parent, so
 * the walk meets o once and a table need not remember it (on a large
 * program, every lookup a walk saves is a cache miss saved). */
static inline int irm_object_is_shared_(const irm_object *o) {
  return irm_object_refcount(o) > 1;
}

/* Frees every entry (release their payloads first); the table is empty. */
static inline void irm_ptr_table_free_(irm_ptr_table_ *t) {
  HASH_CLEAR(hh, t->head);
  irm_walk_pool_free_(&t->pool);
}

#endif
