/* Private to backend/: the memory planner (docs/build.md#memory), the one
 * both executors' lowering uses: the AOT executor's workspace (its
 * intermediate tensors and kernel scratch) and the graph executor's
 * storage ids.
 *
 * Input: buffers {bytes, first_use, last_use} (steps, inclusive); output:
 * each buffer's offset in one workspace, aligned to `alignment`, and the
 * workspace's total bytes. Two buffers whose lifetimes intersect never
 * overlap. Algorithms (the module attribute usmp.algorithm, used unless
 * usmp.enable is false; without planning every buffer has its own place):
 *   none                 each buffer after the previous one;
 *   greedy_by_size       largest first, each at the lowest offset free of
 *                        the buffers already placed that it conflicts with;
 *   greedy_by_conflicts  as greedy_by_size, ordered by the number of
 *                        conflicting buffers first (then size);
 * and the graph executor's, which no setting names:
 *   storage_best_fit     buffers by first use (then index) share storages
 *                        (TVM's graph planner): each takes the smallest
 *                        free storage that fits, else the largest free one
 *                        (grown), else a new one; a storage is free when
 *                        the last buffer it holds is dead. Storages lie one
 *                        after another; a buffer's offset is its storage's.
 * Every algorithm gives each buffer a storage id: its own index, except
 * for storage_best_fit.
 *
 * The usmp.* settings are registered here, beside their reader: module
 * attributes, and PassContext options that migrate onto them (TVM's
 * tir.usmp.* names are aliases).
 * Thread safety: no state. */
#ifndef IRM_BACKEND_MEMORY_PLAN_H
#define IRM_BACKEND_MEMORY_PLAN_H

#include <stddef.h>

#include "irm/module.h"
#include "irm_internal.h"

typedef enum irm_mem_algo_ {
  IRM_MEM_NONE = 0,
  IRM_MEM_GREEDY_BY_SIZE,
  IRM_MEM_GREEDY_BY_CONFLICTS,
  IRM_MEM_STORAGE_BEST_FIT /* the graph executor's; no usmp.algorithm */
} irm_mem_algo_;

typedef struct irm_mem_buffer_ {
  size_t bytes;               /* in */
  size_t first_use, last_use; /* in: steps, first_use <= last_use */
  size_t offset;              /* out */
  size_t align;               /* in: 0, or a power of two this buffer needs beyond the plan's */
  size_t storage;             /* out: the storage it shares (buffers of one storage share an offset) */
} irm_mem_buffer_;

/* The algorithm usmp.algorithm names (none, greedy_by_size,
 * greedy_by_conflicts). ValueError naming it and the closest valid name
 * (the list of names when none is close). */
int irm_mem_algo_parse_(const char *name, irm_mem_algo_ *out);
const char *irm_mem_algo_name_(irm_mem_algo_ algo);

/* The module's choice: IRM_MEM_NONE when the attribute usmp.enable is
 * false; else usmp.algorithm (default greedy_by_conflicts). Errors:
 * ValueError (an unknown algorithm, as irm_mem_algo_parse_), TypeError. */
int irm_mem_algo_of_module_(const irm_module *mod, irm_mem_algo_ *out);

/* Plans n buffers (offsets filled in), *total the workspace bytes.
 * alignment: a power of two >= 1. Errors: ValueError (a bad alignment, a
 * buffer with first_use > last_use, a size that overflows), MemoryError. */
int irm_memory_plan_(irm_mem_buffer_ *buffers, size_t n, size_t alignment, irm_mem_algo_ algo, size_t *total);

/* Registers the usmp.enable and usmp.algorithm module attributes and
 * PassContext options (tir.usmp.* their aliases); backend/builtins.c
 * calls it. Skips what an earlier, partial run registered. */
int irm_register_memory_plan_settings_(void);

#endif
