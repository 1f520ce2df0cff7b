/* Private to libirm: uthash configured for irm. Allocation goes through
 * irm's allocator and running out of memory is reported, never fatal: a
 * function that adds to a table declares `int irm_hash_oom = 0;` and checks
 * it after HASH_ADD (the element was not added when it is set). */
#ifndef IRM_REGISTRY_UTHASH_IRM_H
#define IRM_REGISTRY_UTHASH_IRM_H

#include "irm/alloc.h"

#define HASH_NONFATAL_OOM 1
#define uthash_malloc(sz) irm_malloc(sz)
#define uthash_free(ptr, sz) irm_free(ptr)
#define uthash_nonfatal_oom(elt) (irm_hash_oom = 1)
/* uthash's own fatal path must never be taken; with HASH_NONFATAL_OOM it
 * is not, but make it harmless if a future uthash changes that. */
#define uthash_fatal(msg) ((void)0)

#include <uthash.h>

#endif
