/* Private to backend/: the workspace planner (docs/build.md#memory). The
 * AOT code generator plans its intermediate tensors and kernel scratch
 * with it; any executor can (the graph executor later).
 *
 * Input: buffers {bytes, first_use, last_use} (steps, inclusive); output:
 * each buffer's offset in one workspace, aligned to `alignment`, and the
 * workspace's total bytes. Two buffers whose lifetimes intersect never
 * overlap. Algorithms (the module attribute usmp.algorithm, used when
 * usmp.enable is true; without planning every buffer has its own place):
 *   none                 each buffer after the previous one;
 *   greedy_by_size       largest first, each at the lowest offset free of
 *                        the buffers already placed that it conflicts with;
 *   greedy_by_conflicts  as greedy_by_size, ordered by the number of
 *                        conflicting buffers first (then size).
 * Thread safety: no state. */
#ifndef IRM_BACKEND_MEMORY_PLAN_H
#define IRM_BACKEND_MEMORY_PLAN_H

#include <stddef.h>

#include "irm_internal.h"

typedef enum irm_mem_algo_ {
  IRM_MEM_NONE = 0,
  IRM_MEM_GREEDY_BY_SIZE,
  IRM_MEM_GREEDY_BY_CONFLICTS
} irm_mem_algo_;

typedef struct irm_mem_buffer_ {
  size_t bytes;               /* in */
  size_t first_use, last_use; /* in: steps, first_use <= last_use */
  size_t offset;              /* out */
  size_t align;               /* in: 0, or a power of two this buffer needs beyond the plan's */
} irm_mem_buffer_;

/* The algorithm named name. ValueError naming it and the closest valid
 * name (the list of names when none is close). */
int irm_mem_algo_parse_(const char *name, irm_mem_algo_ *out);
const char *irm_mem_algo_name_(irm_mem_algo_ algo);

/* The module's choice: IRM_MEM_NONE unless the attribute usmp.enable is
 * true; then usmp.algorithm (default greedy_by_conflicts). Errors:
 * ValueError (an unknown algorithm, as irm_mem_algo_parse_), TypeError. */
int irm_mem_algo_of_module_(const irm_module *mod, irm_mem_algo_ *out);

/* Plans n buffers (offsets filled in), *total the workspace bytes.
 * alignment: a power of two >= 1. Errors: ValueError (a bad alignment, a
 * buffer with first_use > last_use, a size that overflows), MemoryError. */
int irm_memory_plan_(irm_mem_buffer_ *buffers, size_t n, size_t alignment, irm_mem_algo_ algo, size_t *total);

#endif
