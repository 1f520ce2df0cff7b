/* The counting allocator of the alloc suites (check_alloc.c,
 * check_alloc_sweep.c). Each suite's main() installs it with
 * install_counting_allocator() before any other irm call, so every
 * allocation irm makes is counted. It tracks live blocks and bytes, and can
 * fail the Nth allocation from now or every allocation after the next N.
 * Static inline functions and per-program counters only. */
#ifndef IRM_TESTS_CHECK_ALLOC_UTIL_H
#define IRM_TESTS_CHECK_ALLOC_UTIL_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_util.h"

#define BLOCK_MAGIC UINT64_C(0x1c0a11c0b10c)

typedef struct block_header {
  alignas(max_align_t) size_t size;
  uint64_t magic;
} block_header;

static atomic_long live_blocks;
static atomic_long live_bytes;
static atomic_long attempts;
static atomic_long injected;      /* failures handed out */
static atomic_long foreign_frees; /* frees of blocks we did not allocate */
static atomic_long fail_countdown; /* > 0: the attempt that reaches 0 fails */
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
  if (irm_set_allocator(counting_malloc, counting_realloc, counting_free) == 0)
    return 0;
  fprintf(stderr, "%s: irm_set_allocator failed: %s\n", program, irm_last_error());
  return -1;
}

/* ---- sweeps ------------------------------------------------------------- */

typedef enum fail_mode { fail_nth, fail_after } fail_mode;

enum { sweep_cap = 10000 };

/* Leaves one known message in the thread's error storage, so its memory is
 * the same before and after an operation. */
static inline void settle_error(void) { (void)irm_error(IRM_EVALUE, "alloc test baseline"); }

#endif /* IRM_TESTS_CHECK_ALLOC_UTIL_H */
