/* Private to libirm: the memory of the hash-table entries of one walk
 * over the IR (the rewriter, structural equality, the verifier, the
 * printer, the evaluator, the passes). A walk adds an entry per node and
 * frees them all when it ends, so entries are carved from blocks that grow
 * geometrically instead of being allocated one by one: a 100 000-node walk
 * makes a few dozen allocations, not 100 000, and its entries sit next to
 * each other in memory, in the order the walk made them (on a large
 * program, scattered entries cost a cache miss each).
 * Not thread safe: a pool belongs to one walk. */
#ifndef IRM_REGISTRY_WALK_POOL_H
#define IRM_REGISTRY_WALK_POOL_H

#include <stddef.h>
#include <string.h>

#include "irm/alloc.h"

typedef struct irm_walk_block_ {
  struct irm_walk_block_ *next;
  size_t used, cap;
} irm_walk_block_;

/* A zeroed pool is empty. */
typedef struct irm_walk_pool_ {
  irm_walk_block_ *head;
} irm_walk_pool_;

enum { IRM_WALK_ALIGN_ = 16, IRM_WALK_FIRST_ = 4096, IRM_WALK_MAX_ = 1 << 20 };

#define IRM_WALK_HEADER_ ((sizeof(irm_walk_block_) + IRM_WALK_ALIGN_ - 1) & ~(size_t)(IRM_WALK_ALIGN_ - 1))

/* size bytes aligned for any entry, zeroed; NULL when out of memory (the
 * caller reports it). */
static inline void *irm_walk_pool_alloc_(irm_walk_pool_ *p, size_t size) {
  size = (size + IRM_WALK_ALIGN_ - 1) & ~(size_t)(IRM_WALK_ALIGN_ - 1);
  irm_walk_block_ *b = p->head;
  if (!b || b->cap - b->used < size) {
    size_t cap = b ? (b->cap < IRM_WALK_MAX_ ? 2 * b->cap : b->cap) : IRM_WALK_FIRST_;
    if (cap < size) cap = size;
    irm_walk_block_ *nb = irm_malloc(IRM_WALK_HEADER_ + cap);
    if (!nb) return NULL;
    nb->next = b;
    nb->used = 0;
    nb->cap = cap;
    p->head = b = nb;
  }
  void *at = (char *)b + IRM_WALK_HEADER_ + b->used;
  b->used += size;
  return memset(at, 0, size); /* per entry: zeroing a whole block up front costs more */
}

/* Frees every entry; the pool is empty again. */
static inline void irm_walk_pool_free_(irm_walk_pool_ *p) {
  while (p->head) {
    irm_walk_block_ *next = p->head->next;
    irm_free(p->head);
    p->head = next;
  }
}

#endif
