/* The workspace planner (memory_plan.h). */
#include <stdint.h>
#include <stdlib.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/module.h"
#include "memory_plan.h"

static const char *const algo_names[] = {"none", "greedy_by_size", "greedy_by_conflicts"};
enum { N_ALGOS = sizeof algo_names / sizeof algo_names[0] };

const char *irm_mem_algo_name_(irm_mem_algo_ algo) {
  return (unsigned)algo < N_ALGOS ? algo_names[algo] : "?";
}

int irm_mem_algo_parse_(const char *name, irm_mem_algo_ *out) {
  for (size_t i = 0; i < N_ALGOS; i++)
    if (strcmp(name, algo_names[i]) == 0) {
      *out = (irm_mem_algo_)i;
      return IRM_OK;
    }
  const char *best = irm_closest_name(name, algo_names, N_ALGOS);
  if (best)
    return irm_error(IRM_EVALUE, "unknown memory planning algorithm '%s' (usmp.algorithm); did you mean '%s'?",
                     irm_error_quote(name), best);
  return irm_error(IRM_EVALUE, "unknown memory planning algorithm '%s' (usmp.algorithm); valid: none, "
                   "greedy_by_size, greedy_by_conflicts", irm_error_quote(name));
}

int irm_mem_algo_of_module_(const irm_module *mod, irm_mem_algo_ *out) {
  irm_any enable = irm_any_none(), algo = irm_any_none();
  bool on = false;
  const char *name = "greedy_by_conflicts";
  int rc = irm_module_get_attr(mod, "usmp.enable", &enable);
  if (!rc && enable.type_code != IRM_NONE) rc = irm_any_to_bool(&enable, &on);
  if (!rc) rc = irm_module_get_attr(mod, "usmp.algorithm", &algo);
  if (!rc && algo.type_code != IRM_NONE) rc = irm_any_to_str(&algo, &name, NULL);
  if (!rc) rc = irm_mem_algo_parse_(name, out); /* checked even when planning is off */
  if (!rc && !on) *out = IRM_MEM_NONE;
  irm_any_release(&enable);
  irm_any_release(&algo);
  return rc;
}

/* ---- planning ---------------------------------------------------------------- */

static int conflict(const irm_mem_buffer_ *a, const irm_mem_buffer_ *b) {
  return a->first_use <= b->last_use && b->first_use <= a->last_use;
}

typedef struct order_key {
  size_t index, conflicts;
  const irm_mem_buffer_ *b;
} order_key;

static int by_size(const void *x, const void *y) {
  const order_key *a = x, *b = y;
  if (a->b->bytes != b->b->bytes) return a->b->bytes > b->b->bytes ? -1 : 1;
  if (a->b->first_use != b->b->first_use) return a->b->first_use < b->b->first_use ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

static int by_conflicts(const void *x, const void *y) {
  const order_key *a = x, *b = y;
  if (a->conflicts != b->conflicts) return a->conflicts > b->conflicts ? -1 : 1;
  return by_size(x, y);
}

typedef struct span {
  size_t lo, hi;
} span;

static int by_lo(const void *x, const void *y) {
  const span *a = x, *b = y;
  return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static size_t round_up(size_t x, size_t a, int *overflow) {
  if (x > SIZE_MAX - (a - 1)) {
    *overflow = 1;
    return 0;
  }
  return (x + a - 1) & ~(a - 1);
}

static size_t align_of(const irm_mem_buffer_ *b, size_t alignment) {
  return b->align > alignment ? b->align : alignment;
}

int irm_memory_plan_(irm_mem_buffer_ *buffers, size_t n, size_t alignment, irm_mem_algo_ algo, size_t *total) {
  if (!alignment || (alignment & (alignment - 1)))
    return irm_error(IRM_EVALUE, "memory plan: alignment %zu is not a power of two", alignment);
  for (size_t i = 0; i < n; i++)
    if (buffers[i].align & (buffers[i].align - 1))
      return irm_error(IRM_EVALUE, "memory plan: buffer %zu: alignment %zu is not a power of two", i,
                       buffers[i].align);
  for (size_t i = 0; i < n; i++)
    if (buffers[i].first_use > buffers[i].last_use)
      return irm_error(IRM_EVALUE, "memory plan: buffer %zu is last used (step %zu) before its first use (step %zu)",
                       i, buffers[i].last_use, buffers[i].first_use);
  int overflow = 0;
  size_t end = 0;
  if (algo == IRM_MEM_NONE || n == 0) {
    for (size_t i = 0; i < n && !overflow; i++) {
      buffers[i].offset = round_up(end, align_of(&buffers[i], alignment), &overflow);
      if (buffers[i].bytes > SIZE_MAX - buffers[i].offset) overflow = 1;
      else end = buffers[i].offset + buffers[i].bytes;
    }
  } else {
    order_key *keys = irm_malloc(n * sizeof *keys);
    span *placed = irm_malloc(n * sizeof *placed);
    if (!keys || !placed) {
      irm_free(keys);
      irm_free(placed);
      return irm_error(IRM_ENOMEM, "memory plan: out of memory for %zu buffers", n);
    }
    for (size_t i = 0; i < n; i++) {
      keys[i] = (order_key){i, 0, &buffers[i]};
      if (algo == IRM_MEM_GREEDY_BY_CONFLICTS)
        for (size_t j = 0; j < n; j++) keys[i].conflicts += j != i && conflict(&buffers[i], &buffers[j]);
    }
    qsort(keys, n, sizeof *keys, algo == IRM_MEM_GREEDY_BY_SIZE ? by_size : by_conflicts);
    for (size_t k = 0; k < n && !overflow; k++) {
      irm_mem_buffer_ *b = &buffers[keys[k].index];
      size_t m = 0; /* the placed buffers b conflicts with, by offset */
      for (size_t j = 0; j < k; j++) {
        const irm_mem_buffer_ *o = &buffers[keys[j].index];
        if (conflict(b, o) && o->bytes) placed[m++] = (span){o->offset, o->offset + o->bytes};
      }
      qsort(placed, m, sizeof *placed, by_lo);
      size_t at = 0, a = align_of(b, alignment);
      for (size_t j = 0; j < m && !overflow; j++) {
        if (at + b->bytes <= placed[j].lo && at <= placed[j].lo) break; /* fits in the gap */
        if (placed[j].hi > at) at = round_up(placed[j].hi, a, &overflow);
      }
      if (b->bytes > SIZE_MAX - at) overflow = 1;
      b->offset = at;
      if (!overflow && at + b->bytes > end) end = at + b->bytes;
    }
    irm_free(keys);
    irm_free(placed);
  }
  if (overflow) return irm_error(IRM_EVALUE, "memory plan: the workspace size overflows");
  *total = end;
  return IRM_OK;
}
