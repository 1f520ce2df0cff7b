/* The counting allocator of the alloc suites (check_alloc.c,
 * check_alloc_sweep.c, the suites of check_alloc_sweep_util.h, ...). Each
 * suite's main() installs it with install_counting_allocator() before any
 * other irm call, so every allocation irm makes is counted. It tracks live
 * blocks and bytes, and can fail the Nth allocation from now or every
 * allocation after the next N. Static inline functions and per-program
 * counters only.
 *
 * The sweeps run an operation with N = 1, 2, 3, ... failing until it
 * succeeds without meeting the failure. Trying every N costs minutes (an
 * operation that allocates K times is run about K times, each run up to K
 * allocations), so by default N is sampled (sweep_next): every N up to
 * sweep_dense, then steps that widen with N, each offset by an amount
 * drawn from the sweep's name and failure mode, so that different sweeps
 * hit different points. Every sampled failure is still checked in full.
 *
 *   IRM_EXHAUSTIVE_SWEEPS=1   try every N (slow; e.g. before a release)
 *   IRM_SWEEP_VERBOSE=1       say where each sweep ended, on stderr */
#ifndef IRM_TESTS_CHECK_ALLOC_UTIL_H
#define IRM_TESTS_CHECK_ALLOC_UTIL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_util.h"

#define BLOCK_MAGIC UINT64_C(0x1c0a11c0b10c)

typedef struct block_header {
  alignas(max_align_t) size_t size;
  uint64_t magic;
} block_header;

static atomic_long live_blocks;
static atomic_long live_bytes;
static atomic_long attempts;
static atomic_long injected;         /* failures handed out */
static atomic_long foreign_frees;    /* frees of blocks we did not allocate */
static atomic_long fail_countdown;   /* > 0: the attempt that reaches 0 fails */
static atomic_long fail_budget = -1; /* >= 0: attempts left before all fail */

static inline int should_fail(void) {
  atomic_fetch_add(&attempts, 1);
  long c = atomic_load(&fail_countdown);
  while (c > 0) {
    if (atomic_compare_exchange_weak(&fail_countdown, &c, c - 1)) {
      if (c == 1) {
        atomic_fetch_add(&injected, 1);
        return 1;
      }
      break;
    }
  }
  long b = atomic_load(&fail_budget);
  while (b >= 0) {
    if (b == 0) {
      atomic_fetch_add(&injected, 1);
      return 1;
    }
    if (atomic_compare_exchange_weak(&fail_budget, &b, b - 1)) break;
  }
  return 0;
}

static inline void *counting_malloc(size_t size) {
  if (should_fail() || size > SIZE_MAX - sizeof(block_header)) return NULL;
  block_header *h = malloc(sizeof *h + size);
  if (h == NULL) return NULL;
  h->size = size;
  h->magic = BLOCK_MAGIC;
  atomic_fetch_add(&live_blocks, 1);
  atomic_fetch_add(&live_bytes, (long)size);
  return h + 1;
}

static inline block_header *header_of(void *ptr) {
  block_header *h = (block_header *)ptr - 1;
  if (h->magic != BLOCK_MAGIC) {
    atomic_fetch_add(&foreign_frees, 1);
    return NULL;
  }
  return h;
}

static inline void counting_free(void *ptr) {
  if (ptr == NULL) return;
  block_header *h = header_of(ptr);
  if (h == NULL) return; /* not ours: counted, and left alone */
  atomic_fetch_sub(&live_blocks, 1);
  atomic_fetch_sub(&live_bytes, (long)h->size);
  h->magic = 0;
  free(h);
}

static inline void *counting_realloc(void *ptr, size_t size) {
  if (ptr == NULL) return counting_malloc(size);
  block_header *old = header_of(ptr);
  if (old == NULL) return NULL;
  if (should_fail() || size > SIZE_MAX - sizeof(block_header)) return NULL;
  size_t old_size = old->size;
  block_header *h = realloc(old, sizeof *h + size);
  if (h == NULL) return NULL;
  h->size = size;
  atomic_fetch_add(&live_bytes, (long)size - (long)old_size);
  return h + 1;
}

static inline void fail_nth_from_now(long n) { atomic_store(&fail_countdown, n); }
static inline void fail_all_after(long n) { atomic_store(&fail_budget, n); }
static inline void stop_failing(void) {
  atomic_store(&fail_countdown, 0);
  atomic_store(&fail_budget, -1);
}

/* Installs the counting allocator; main() calls it before any other irm
 * call. Returns 0, or -1 after saying why on stderr. */
static inline int install_counting_allocator(const char *program) {
  if (irm_set_allocator(counting_malloc, counting_realloc, counting_free) == 0) return 0;
  fprintf(stderr, "%s: irm_set_allocator failed: %s\n", program, irm_last_error());
  return -1;
}

/* ---- sweeps ------------------------------------------------------------- */

typedef enum fail_mode { fail_nth, fail_after } fail_mode;

enum { sweep_cap = 10000 };

/* Every N up to here is tried; past it, N is sampled. */
enum { sweep_dense = 64 };

static inline int exhaustive_sweeps(void) {
  const char *v = getenv("IRM_EXHAUSTIVE_SWEEPS");
  return v != NULL && strcmp(v, "1") == 0;
}

/* The salt of sweep_next for the sweep of what in mode (FNV-1a). */
static inline uint64_t sweep_salt(const char *what, fail_mode mode) {
  uint64_t h = UINT64_C(14695981039346656037) ^ (uint64_t)mode;
  for (const char *p = what; *p; p++) h = (h ^ (unsigned char)*p) * UINT64_C(1099511628211);
  return h;
}

/* The N to try after n: n + 1 up to sweep_dense (or always, with
 * IRM_EXHAUSTIVE_SWEEPS=1), then about n + n/16 (a geometric stride, so a
 * sweep of K allocations tries about 64 + 16 ln(K/64) points), the exact
 * step chosen within [n/32, 3n/32] by salt and n. */
static inline long sweep_next(long n, uint64_t salt) {
  static int exhaustive = -1;
  if (exhaustive < 0) exhaustive = exhaustive_sweeps();
  if (n < sweep_dense || exhaustive) return n + 1;
  uint64_t h = (salt ^ (uint64_t)n) * UINT64_C(0x9E3779B97F4A7C15);
  long stride = n / 16;
  return n + stride / 2 + 1 + (long)((h >> 32) % (uint64_t)stride);
}

/* With IRM_SWEEP_VERBOSE set, says where a sweep ended and how many
 * failures it met. */
static inline void sweep_note(const char *what, const char *mode_name, long n, long tried, long failures_met) {
  if (getenv("IRM_SWEEP_VERBOSE") != NULL)
    fprintf(stderr, "%s (%s): done at N=%ld after %ld runs, %ld failures met\n", what, mode_name, n, tried,
            failures_met);
}

/* Leaves one known message in the thread's error storage, so its memory is
 * the same before and after an operation. */
static inline void settle_error(void) { (void)irm_error(IRM_EVALUE, "alloc test baseline"); }

#endif /* IRM_TESTS_CHECK_ALLOC_UTIL_H */
