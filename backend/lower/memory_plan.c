/* The memory planner and its usmp.* settings (memory_plan.h). */
#include <stdint.h>
#include <stdlib.h>

#include "irm/container.h"
#include "irm/error.h"
#include "irm/module.h"
#include "irm/pass.h"
#include "memory_plan.h"

/* By irm_mem_algo_; the first N_SETTINGS are usmp.algorithm's values. */
static const char *const algo_names[] = {"none", "greedy_by_size", "greedy_by_conflicts", "storage_best_fit"};
enum { N_ALGOS = sizeof algo_names / sizeof algo_names[0], N_SETTINGS = 3 };

const char *irm_mem_algo_name_(irm_mem_algo_ algo) {
  return (unsigned)algo < N_ALGOS ? algo_names[algo] : "?";
}

int irm_mem_algo_parse_(const char *name, irm_mem_algo_ *out) {
  for (size_t i = 0; i < N_SETTINGS; i++)
    if (strcmp(name, algo_names[i]) == 0) {
      *out = (irm_mem_algo_)i;
      return IRM_OK;
    }
  const char *best = irm_closest_name(name, algo_names, N_SETTINGS);
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

/* The settings' home: module attributes, and the PassContext options that
 * migrate onto them (the config's default algorithm is TVM's
 * greedy_by_size; a module without the attribute plans with
 * greedy_by_conflicts, irm_mem_algo_of_module_). */
int irm_register_memory_plan_settings_(void) {
  irm_any no = irm_any_bool(false), greedy = irm_any_str("greedy_by_size");
  int rc = irm_module_attr_register("usmp.enable", "bool", 0);
  if (!rc) rc = irm_module_attr_register("usmp.algorithm", "str", 0);
  if (!rc) rc = irm_pass_config_register("usmp.enable", "bool", &no, "usmp.enable");
  if (!rc) rc = irm_pass_config_register("usmp.algorithm", "str", &greedy, "usmp.algorithm");
  if (!rc) rc = irm_pass_config_register_alias("tir.usmp.enable", "usmp.enable"); /* TVM's names */
  if (!rc) rc = irm_pass_config_register_alias("tir.usmp.algorithm", "usmp.algorithm");
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

static int by_first_use(const void *x, const void *y) {
  const order_key *a = x, *b = y;
  if (a->b->first_use != b->b->first_use) return a->b->first_use < b->b->first_use ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* storage_best_fit (memory_plan.h). Storage s holds bytes[s] (the most of
 * its buffers), is live until last[s] (of the buffer it took last: a
 * storage is taken only once its last buffer is dead, so that one ends
 * last) and aligned to align[s]. */
static int plan_storages(irm_mem_buffer_ *buffers, size_t n, size_t alignment, size_t *total) {
  order_key *keys = irm_malloc((n + 1) * sizeof *keys);
  size_t *bytes = irm_malloc((n + 1) * sizeof *bytes), *last = irm_malloc((n + 1) * sizeof *last),
         *align = irm_malloc((n + 1) * sizeof *align), n_storage = 0;
  int rc = keys && bytes && last && align ? IRM_OK : irm_error(IRM_ENOMEM, "memory plan: out of memory for %zu buffers", n);
  for (size_t i = 0; !rc && i < n; i++) keys[i] = (order_key){i, 0, &buffers[i]};
  if (!rc) qsort(keys, n, sizeof *keys, by_first_use);
  for (size_t k = 0; !rc && k < n; k++) {
    irm_mem_buffer_ *b = &buffers[keys[k].index];
    size_t best = SIZE_MAX;
    for (size_t s = 0; s < n_storage; s++) {
      if (last[s] >= b->first_use) continue; /* still live */
      int fits = bytes[s] >= b->bytes, best_fits = best != SIZE_MAX && bytes[best] >= b->bytes;
      if (best == SIZE_MAX || (fits && (!best_fits || bytes[s] < bytes[best])) ||
          (!fits && !best_fits && bytes[s] > bytes[best]))
        best = s;
    }
    if (best == SIZE_MAX) {
      best = n_storage++;
      bytes[best] = align[best] = 0;
    }
    if (bytes[best] < b->bytes) bytes[best] = b->bytes;
    if (align[best] < align_of(b, alignment)) align[best] = align_of(b, alignment);
    last[best] = b->last_use;
    b->storage = best;
  }
  int overflow = 0;
  size_t end = 0;
  for (size_t s = 0; !rc && s < n_storage && !overflow; s++) { /* bytes[s] becomes its offset */
    size_t at = round_up(end, align[s], &overflow);
    if (bytes[s] > SIZE_MAX - at) overflow = 1;
    end = at + bytes[s];
    bytes[s] = at;
  }
  if (!rc && overflow) rc = irm_error(IRM_EVALUE, "memory plan: the workspace size overflows");
  for (size_t i = 0; !rc && i < n; i++) buffers[i].offset = bytes[buffers[i].storage];
  if (!rc) *total = end;
  irm_free(keys);
  irm_free(bytes);
  irm_free(last);
  irm_free(align);
  return rc;
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
  for (size_t i = 0; i < n; i++) buffers[i].storage = i;
  if (algo == IRM_MEM_STORAGE_BEST_FIT) return plan_storages(buffers, n, alignment, total);
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
