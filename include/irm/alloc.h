/* irm's allocator. Every allocation irm makes goes through these hooks, so
 * an application (or a test) can account for, limit or fail allocations.
 *
 * Thread safety: irm_set_allocator must be called before any other irm
 * function, from one thread; the irm_malloc family is safe from any thread.
 */
#ifndef IRM_ALLOC_H
#define IRM_ALLOC_H

#include "irm/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *(*irm_malloc_fn)(size_t size);
typedef void *(*irm_realloc_fn)(void *ptr, size_t size);
typedef void (*irm_free_fn)(void *ptr);

/* Replaces malloc/realloc/free for all of irm. All three must be given.
 * Fails with RuntimeError once irm has allocated anything (memory from
 * one allocator must not be freed by another), ValueError on NULL. */
IRM_API int irm_set_allocator(irm_malloc_fn malloc_fn, irm_realloc_fn realloc_fn, irm_free_fn free_fn);

/* Allocation through the installed hooks. They return NULL on failure and
 * do not set an error (callers report MemoryError with context). Memory
 * from these must be freed with irm_free. irm_malloc(0) returns a unique
 * pointer or NULL like malloc. */
IRM_API void *irm_malloc(size_t size);
/* irm_calloc: zeroed, checks count * size for overflow (NULL). With the
 * default hooks it is libc's calloc (large blocks come zeroed from the
 * system, untouched); with installed hooks, malloc_fn and a memset. */
IRM_API void *irm_calloc(size_t count, size_t size);
IRM_API void *irm_realloc(void *ptr, size_t size);
IRM_API void irm_free(void *ptr);

/* Copies a NUL-terminated string (or the first len bytes plus a NUL) into
 * memory from irm_malloc. NULL on allocation failure. */
IRM_API char *irm_strdup(const char *s);
IRM_API char *irm_strndup(const char *s, size_t len);

#ifdef __cplusplus
}
#endif

#endif
