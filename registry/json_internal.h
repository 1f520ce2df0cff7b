/* Private to libirm: what the JSON writer and reader share.
 *
 * jansson keeps its own allocator: json_set_alloc_funcs is process-wide,
 * and an application that already holds jansson values would then free
 * them through irm's allocator. The few short-lived jansson values made
 * while writing or reading are the only memory irm does not allocate
 * itself. */
#ifndef IRM_REGISTRY_JSON_INTERNAL_H
#define IRM_REGISTRY_JSON_INTERNAL_H

/* The "irm_json" version this library writes and reads. */
#define FORMAT_VERSION 1

#include <stddef.h>

#include "error_internal.h"
#include "irm/alloc.h"

/* Makes room for need more items in a growable array, or sets rc to a
 * MemoryError (arr untouched). */
#define RESERVE(arr, cap, used, need, rc)                                        \
  do {                                                                           \
    void *grown_ = irm_json_grow_((arr), &(cap), (used), (need), sizeof *(arr)); \
    if (grown_) (arr) = grown_;                                                  \
    else (rc) = irm_error_nomem_("handling JSON");                               \
  } while (0)

/* arr itself when used + need items fit, else arr grown (doubling), or NULL
 * when out of memory (arr untouched). */
static inline void *irm_json_grow_(void *arr, size_t *cap, size_t used, size_t need, size_t elem) {
  if (used + need <= *cap) return arr;
  size_t n = *cap ? *cap : 16;
  while (n < used + need) n *= 2;
  void *grown = irm_realloc(arr, n * elem);
  if (grown) *cap = n;
  return grown;
}

#endif
