/* Uniqued call attributes: every Call of the dataflow IR holds its checked
 * attributes (a Map) from one process-wide table, so equal attribute
 * dictionaries are one object, as an MLIR context uniques its attributes: a
 * million calls of nn.conv2d with the same (or default) attributes hold one
 * Map, and every call without attributes holds the one shared empty Map.
 *
 * The table holds a reference to each Map, so a dictionary once used stays
 * (as an MLIR context keeps its attributes): making a call again allocates
 * nothing. Only past PRUNE_FROM dictionaries, when the table would grow, are
 * the Maps only the table holds dropped, which bounds it by twice the live
 * ones. Maps in it are never changed: every holder but the table sees a
 * count of at least 2, so no *_move operation writes one in place.
 *
 * Dictionaries are compared exactly (irm_structural_equal_exact_): under
 * the public structural equality, doubles within 1e-9 are equal and every
 * finite double hashes alike, so an epsilon of 1e-12 took the Map of an
 * earlier 0.0, and calls with distinct float attributes all fell in one
 * chain (bench/ir's generated program of 100 000 nodes parsed in about 70
 * times the time of 10 000: 7 times as long a node). */
#include <pthread.h>

#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"

typedef struct attrs_entry {
  struct attrs_entry *next;
  irm_object *map;
  uint64_t hash;
} attrs_entry;

static pthread_mutex_t attrs_lock = PTHREAD_MUTEX_INITIALIZER;
static attrs_entry **buckets;
static size_t cap, count; /* cap: 0 or a power of two */
static irm_object *empty; /* the shared empty Map, made once, never freed */

enum { PRUNE_FROM = 4096 };

/* Under the lock: drops the Maps only the table holds (from PRUNE_FROM on),
 * then doubles the buckets if still full (a failed growth keeps the chains
 * longer). */
static void grow(void) {
  for (size_t i = 0; cap >= PRUNE_FROM && i < cap; i++)
    for (attrs_entry **at = &buckets[i]; *at;) {
      attrs_entry *e = *at;
      if (irm_object_refcount(e->map) == 1) { /* only here: no one else can retain it (lookups hold the lock) */
        *at = e->next;
        irm_object_release(e->map);
        irm_free(e);
        count--;
      } else {
        at = &e->next;
      }
    }
  if (count < cap) return;
  size_t grown = cap ? 2 * cap : 64;
  attrs_entry **b = irm_calloc(grown, sizeof *b);
  if (!b) return;
  for (size_t i = 0; i < cap; i++)
    for (attrs_entry *e = buckets[i], *next; e; e = next) {
      next = e->next;
      e->next = b[e->hash & (grown - 1)];
      b[e->hash & (grown - 1)] = e;
    }
  irm_free(buckets);
  buckets = b;
  cap = grown;
}

int irm_call_attrs_unique_(irm_object *checked, irm_object **out) {
  *out = NULL;
  int rc = IRM_OK;
  if (irm_map_size(checked) == 0) {
    pthread_mutex_lock(&attrs_lock);
    if (!empty) rc = irm_map_new(&empty);
    if (!rc) irm_object_retain(empty);
    pthread_mutex_unlock(&attrs_lock);
    if (!rc) *out = empty;
    irm_object_release(checked);
    return rc;
  }
  uint64_t hash = 0;
  irm_any key = irm_any_object(checked);
  if ((rc = irm_structural_hash_exact_(&key, &hash))) {
    irm_object_release(checked);
    return rc;
  }
  pthread_mutex_lock(&attrs_lock);
  for (attrs_entry *e = cap ? buckets[hash & (cap - 1)] : NULL; e && !*out && !rc; e = e->next) {
    irm_any other = irm_any_object(e->map);
    int equal = 0;
    if (e->hash == hash && !(rc = irm_structural_equal_exact_(&key, &other, &equal)) && equal) {
      irm_object_retain(e->map);
      *out = e->map;
    }
  }
  if (!*out && !rc) { /* on an error (out of memory comparing) the table stays as it was */
    if (count >= cap) grow();
    attrs_entry *e = cap ? irm_malloc(sizeof *e) : NULL;
    if (e) { /* else out of memory for the table: the call keeps its own Map, still correct */
      e->map = checked;
      e->hash = hash;
      e->next = buckets[hash & (cap - 1)];
      buckets[hash & (cap - 1)] = e;
      count++;
      irm_object_retain(checked);
    }
    *out = checked;
    checked = NULL;
  }
  pthread_mutex_unlock(&attrs_lock);
  irm_object_release(checked); /* outside the lock */
  return rc;
}
