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

const char *irm_mem_algo_name_(irm_mem_algo_ algo) { return (unsigned)algo < N_ALGOS ? algo_names[algo] : "?"; }

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
  return irm_error(IRM_EVALUE,
                   "unknown memory planning algorithm '%s' (usmp.algorithm); valid: none, "
                   "greedy_by_size, greedy_by_conflicts",
                   irm_error_quote(name));
}

int irm_mem_algo_of_module_(const irm_module *mod, irm_mem_algo_ *out) {
  irm_any enable = irm_any_none(), algo = irm_any_none();
  bool on = true; /* planned unless asked not to: unplanned, resnet18's workspace was 69 MB */
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
 * greedy_by_conflicts, irm_mem_algo_of_module_). Unlike TVM, planning is
 * on by default: usmp.enable = false asks for one buffer per tensor. */
int irm_register_memory_plan_settings_(void) {
  irm_any yes = irm_any_bool(true), greedy = irm_any_str("greedy_by_size");
  int rc = irm_module_attr_register("usmp.enable", "bool", 0);
  if (!rc) rc = irm_module_attr_register("usmp.algorithm", "str", 0);
  if (!rc) rc = irm_pass_config_register("usmp.enable", "bool", &yes, "usmp.enable");
  if (!rc) rc = irm_pass_config_register("usmp.algorithm", "str", &greedy, "usmp.algorithm");
  if (!rc) rc = irm_pass_config_register_alias("tir.usmp.enable", "usmp.enable"); /* TVM's names */
  if (!rc) rc = irm_pass_config_register_alias("tir.usmp.algorithm", "usmp.algorithm");
  return rc;
}

/* ---- planning ---------------------------------------------------------------- */

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
  int rc =
      keys && bytes && last && align ? IRM_OK : irm_error(IRM_ENOMEM, "memory plan: out of memory for %zu buffers", n);
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

/* ---- the greedy algorithms ----------------------------------------------------
 * The placed buffers are found by lifetime, so that placing one costs in
 * proportion to the buffers it conflicts with, not to all placed before
 * it: a chain of a million tensors plans in linear time. Those whose
 * lifetime meets [f, l] are the ones live at step f (a segment tree over
 * the steps holds each at the O(log T) nodes covering its lifetime; f's
 * path to the root finds them) and the ones first used in (f, l] (a list
 * per step, and a count per tree node to skip empty steps). */

typedef struct index_list {
  size_t *v;
  size_t n, cap;
} index_list;

typedef struct lifetimes {
  size_t leaves;      /* a power of two > the last step */
  index_list *cover;  /* 2 * leaves nodes: the buffers whose lifetime covers the node's steps */
  index_list *starts; /* per step: the buffers first used there */
  size_t *count;      /* 2 * leaves: buffers first used in the node's steps */
} lifetimes;

/* Room for one more of *cap items of elem bytes at *v (doubling). */
static int room_for_one(void **v, size_t n, size_t *cap, size_t elem) {
  if (n < *cap) return IRM_OK;
  size_t c = *cap ? 2 * *cap : 8;
  void *grown = irm_realloc(*v, c * elem);
  if (!grown) return IRM_ENOMEM;
  *v = grown;
  *cap = c;
  return IRM_OK;
}

static int list_push(index_list *l, size_t x) {
  void *v = l->v;
  int rc = room_for_one(&v, l->n, &l->cap, sizeof *l->v);
  l->v = v;
  if (!rc) l->v[l->n++] = x;
  return rc;
}

static int lifetimes_init(lifetimes *t, const irm_mem_buffer_ *buffers, size_t n) {
  size_t steps = 1;
  for (size_t i = 0; i < n; i++)
    if (buffers[i].last_use >= steps) steps = buffers[i].last_use + 1;
  t->leaves = 1;
  while (t->leaves < steps) t->leaves *= 2;
  t->cover = irm_calloc(2 * t->leaves, sizeof *t->cover);
  t->starts = irm_calloc(t->leaves, sizeof *t->starts);
  t->count = irm_calloc(2 * t->leaves, sizeof *t->count);
  return t->cover && t->starts && t->count ? IRM_OK : IRM_ENOMEM;
}

static void lifetimes_free(lifetimes *t) {
  for (size_t i = 0; t->cover && i < 2 * t->leaves; i++) irm_free(t->cover[i].v);
  for (size_t i = 0; t->starts && i < t->leaves; i++) irm_free(t->starts[i].v);
  irm_free(t->cover);
  irm_free(t->starts);
  irm_free(t->count);
}

static int lifetimes_add(lifetimes *t, size_t index, const irm_mem_buffer_ *b) {
  int rc = list_push(&t->starts[b->first_use], index);
  for (size_t node = b->first_use + t->leaves; !rc && node; node /= 2) t->count[node]++;
  for (size_t lo = b->first_use + t->leaves, hi = b->last_use + t->leaves + 1; !rc && lo < hi; lo /= 2, hi /= 2) {
    if (lo & 1) rc = list_push(&t->cover[lo++], index);
    if (!rc && (hi & 1)) rc = list_push(&t->cover[--hi], index);
  }
  return rc;
}

/* The first step in [from, to] where some placed buffer is first used
 * (node covers steps [lo, hi]); SIZE_MAX when none. */
static size_t next_start(const lifetimes *t, size_t node, size_t lo, size_t hi, size_t from, size_t to) {
  if (hi < from || lo > to || !t->count[node]) return SIZE_MAX;
  if (lo == hi) return lo;
  size_t mid = lo + (hi - lo) / 2, got = next_start(t, 2 * node, lo, mid, from, to);
  return got != SIZE_MAX ? got : next_start(t, 2 * node + 1, mid + 1, hi, from, to);
}

typedef struct spans {
  span *v;
  size_t n, cap;
} spans;

static int spans_add(spans *out, const index_list *l, const irm_mem_buffer_ *buffers) {
  for (size_t i = 0; i < l->n; i++) {
    const irm_mem_buffer_ *o = &buffers[l->v[i]];
    if (!o->bytes) continue;
    void *v = out->v;
    int rc = room_for_one(&v, out->n, &out->cap, sizeof *out->v);
    out->v = v;
    if (rc) return rc;
    out->v[out->n++] = (span){o->offset, o->offset + o->bytes};
  }
  return IRM_OK;
}

/* The placed buffers b conflicts with (and that take room), as spans. */
static int conflicting_spans(const lifetimes *t, const irm_mem_buffer_ *buffers, const irm_mem_buffer_ *b, spans *out) {
  int rc = IRM_OK;
  out->n = 0;
  for (size_t node = b->first_use + t->leaves; !rc && node; node /= 2) rc = spans_add(out, &t->cover[node], buffers);
  for (size_t step = b->first_use; !rc && step < b->last_use;) {
    step = next_start(t, 1, 0, t->leaves - 1, step + 1, b->last_use);
    if (step == SIZE_MAX) break;
    rc = spans_add(out, &t->starts[step], buffers);
  }
  return rc;
}

static size_t count_below(const size_t *sorted, size_t n, size_t x) { /* entries < x */
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int by_size_t(const void *x, const void *y) {
  size_t a = *(const size_t *)x, b = *(const size_t *)y;
  return a < b ? -1 : a > b;
}

/* Each buffer's number of conflicts: all others but those dead before it
 * starts and those starting after it ends (two sorted arrays). */
static int count_conflicts(order_key *keys, const irm_mem_buffer_ *buffers, size_t n) {
  size_t *firsts = irm_malloc((n + 1) * sizeof *firsts), *lasts = irm_malloc((n + 1) * sizeof *lasts);
  if (!firsts || !lasts) {
    irm_free(firsts);
    irm_free(lasts);
    return IRM_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    firsts[i] = buffers[i].first_use;
    lasts[i] = buffers[i].last_use;
  }
  qsort(firsts, n, sizeof *firsts, by_size_t);
  qsort(lasts, n, sizeof *lasts, by_size_t);
  for (size_t i = 0; i < n; i++) {
    const irm_mem_buffer_ *b = &buffers[i];
    size_t dead_before = count_below(lasts, n, b->first_use);
    size_t start_after = n - count_below(firsts, n, b->last_use + 1);
    keys[i].conflicts = n - 1 - dead_before - start_after;
  }
  irm_free(firsts);
  irm_free(lasts);
  return IRM_OK;
}

static int plan_greedy(irm_mem_buffer_ *buffers, size_t n, size_t alignment, irm_mem_algo_ algo, size_t *total) {
  order_key *keys = irm_malloc((n + 1) * sizeof *keys);
  spans found = {0};
  size_t end = 0;
  lifetimes t = {0};
  int rc = keys ? lifetimes_init(&t, buffers, n) : IRM_ENOMEM, overflow = 0;
  for (size_t i = 0; !rc && i < n; i++) keys[i] = (order_key){i, 0, &buffers[i]};
  if (!rc && algo == IRM_MEM_GREEDY_BY_CONFLICTS) rc = count_conflicts(keys, buffers, n);
  if (!rc) qsort(keys, n, sizeof *keys, algo == IRM_MEM_GREEDY_BY_SIZE ? by_size : by_conflicts);
  for (size_t k = 0; !rc && k < n && !overflow; k++) {
    irm_mem_buffer_ *b = &buffers[keys[k].index];
    rc = conflicting_spans(&t, buffers, b, &found);
    if (rc) break;
    if (found.n) qsort(found.v, found.n, sizeof *found.v, by_lo); /* found.v is NULL when empty */
    size_t at = 0, a = align_of(b, alignment);
    for (size_t j = 0; j < found.n && !overflow; j++) {
      if (at + b->bytes <= found.v[j].lo && at <= found.v[j].lo) break; /* fits in the gap */
      if (found.v[j].hi > at) at = round_up(found.v[j].hi, a, &overflow);
    }
    if (b->bytes > SIZE_MAX - at) overflow = 1;
    b->offset = at;
    if (!overflow && at + b->bytes > end) end = at + b->bytes;
    if (!overflow) rc = lifetimes_add(&t, keys[k].index, b);
  }
  lifetimes_free(&t);
  irm_free(keys);
  irm_free(found.v);
  if (rc) return irm_error(IRM_ENOMEM, "memory plan: out of memory for %zu buffers", n);
  if (overflow) return irm_error(IRM_EVALUE, "memory plan: the workspace size overflows");
  *total = end;
  return IRM_OK;
}

int irm_memory_plan_(irm_mem_buffer_ *buffers, size_t n, size_t alignment, irm_mem_algo_ algo, size_t *total) {
  if (!alignment || (alignment & (alignment - 1)))
    return irm_error(IRM_EVALUE, "memory plan: alignment %zu is not a power of two", alignment);
  for (size_t i = 0; i < n; i++)
    if (buffers[i].align & (buffers[i].align - 1))
      return irm_error(IRM_EVALUE, "memory plan: buffer %zu: alignment %zu is not a power of two", i, buffers[i].align);
  for (size_t i = 0; i < n; i++)
    if (buffers[i].first_use > buffers[i].last_use)
      return irm_error(IRM_EVALUE, "memory plan: buffer %zu is last used (step %zu) before its first use (step %zu)", i,
                       buffers[i].last_use, buffers[i].first_use);
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
    return plan_greedy(buffers, n, alignment, algo, total);
  }
  if (overflow) return irm_error(IRM_EVALUE, "memory plan: the workspace size overflows");
  *total = end;
  return IRM_OK;
}
