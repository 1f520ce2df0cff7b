/* The allocator hooks every irm allocation goes through. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/error.h"
#include "walk_stack.h"

static irm_malloc_fn alloc_malloc = malloc;
static irm_realloc_fn alloc_realloc = realloc;
static irm_free_fn alloc_free = free;
/* Set by the first allocation: from then on the hooks may not change,
 * since memory from one allocator must not reach another's free. */
static atomic_bool alloc_used;

int irm_set_allocator(irm_malloc_fn malloc_fn, irm_realloc_fn realloc_fn, irm_free_fn free_fn) {
  if (!malloc_fn || !realloc_fn || !free_fn)
    return irm_error(IRM_EVALUE, "irm_set_allocator: malloc, realloc and free must all be given");
  if (atomic_load_explicit(&alloc_used, memory_order_acquire))
    return irm_error(IRM_ERUNTIME, "irm_set_allocator: irm has already allocated memory; "
                                   "install the allocator before any other irm call");
  alloc_malloc = malloc_fn;
  alloc_realloc = realloc_fn;
  alloc_free = free_fn;
  return IRM_OK;
}

static inline void mark_used(void) {
  if (!atomic_load_explicit(&alloc_used, memory_order_relaxed))
    atomic_store_explicit(&alloc_used, true, memory_order_release);
}

void *irm_malloc(size_t size) {
  mark_used();
  return alloc_malloc(size);
}

void *irm_calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size) return NULL;
  mark_used();
  /* With the default hooks, libc's calloc: fresh pages come zeroed from
   * the kernel, so a large zeroed block is neither written nor touched. */
  if (alloc_malloc == malloc) return calloc(count, size);
  void *p = alloc_malloc(count * size);
  if (p) memset(p, 0, count * size);
  return p;
}

void *irm_realloc(void *ptr, size_t size) {
  mark_used();
  return alloc_realloc(ptr, size);
}

void irm_free(void *ptr) {
  if (ptr) alloc_free(ptr);
}

char *irm_strndup(const char *s, size_t len) {
  if (!s) return NULL;
  char *p = irm_malloc(len + 1);
  if (!p) return NULL;
  memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

char *irm_strdup(const char *s) { return s ? irm_strndup(s, strlen(s)) : NULL; }

irm_free_fn irm_alloc_default_free_(void) {
  return alloc_malloc == malloc && alloc_realloc == realloc && alloc_free == free ? free : NULL;
}
