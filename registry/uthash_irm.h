/* Private to libirm: uthash configured for irm. Allocation goes through
 * irm's allocator and running out of memory is reported, never fatal: a
 * function that adds to a table declares `int irm_hash_oom = 0;` and checks
 * it after HASH_ADD (the element was not added when it is set). The
 * configuration lives in irm_internal.h, which upper layers share. */
#ifndef IRM_REGISTRY_UTHASH_IRM_H
#define IRM_REGISTRY_UTHASH_IRM_H

#include "irm_internal.h"

#endif
