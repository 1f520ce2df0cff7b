/* Private to libirm: the explicit stack of a walk over the IR, reused per
 * thread. A walk that keeps its own stack (the verifier, the printers, the
 * evaluator, structural equality and hashing, repr, DeadCodeElimination)
 * takes the calling thread's kept buffer when it starts, grows it with
 * irm_realloc as before, and gives it back when it ends, so a walk of a
 * million nodes does not regrow MBs of stack each time. The rewriter
 * (ir/dataflow/expr_rewrite.c) does not use it: kept there, its two stacks
 * made every rewriting pass 15-20% slower at 1 000 000 nodes under glibc
 * (measured, with more page faults: likely, the memory held back is
 * memory the pass's new nodes then take fresh from the kernel).
 *
 * Rules (registry/walk_stack.c):
 * - A thread keeps at most IRM_WALK_STACK_KEPT_ buffers (two: walks nest,
 *   as the type printer in the IR printer), each of at most
 *   IRM_WALK_STACK_KEEP_MAX_ bytes. A walk takes the largest; a buffer
 *   given back replaces the smallest kept one when all slots are full and
 *   it is larger, else it is freed, as is one over the cap. A walk nested
 *   in walks that took every kept buffer finds none and allocates its own.
 * - Buffers are kept only while the default allocator (libc's) is in
 *   place: an application that installed hooks to account for or limit
 *   irm's memory gets every byte back when a walk ends, and the test
 *   suites that count blocks or inject failures see each walk allocate
 *   its stack as before. A kept buffer remembers the free function it
 *   came from and is freed with it, never with another allocator's.
 * - A thread's buffers are freed when it exits (a pthread key), the
 *   main thread's when the process exits (atexit).
 *
 * Thread safety: every function works on the calling thread's cache only. */
#ifndef IRM_REGISTRY_WALK_STACK_H
#define IRM_REGISTRY_WALK_STACK_H

#include <stddef.h>

#include "irm/alloc.h"

/* The largest buffer a thread keeps between walks (64 MB), and how many
 * it keeps. */
#define IRM_WALK_STACK_KEEP_MAX_ ((size_t)64 << 20)
enum { IRM_WALK_STACK_KEPT_ = 2 };

/* A stack of at least min elements of elem_size bytes: the largest of the thread's
 * kept buffers when it has one (grown with irm_realloc if shorter than min), else
 * a new one (NULL without allocating when min is 0). *cap is set to its
 * capacity in elements (0 with NULL). NULL when out of memory (no error
 * set: the walk reports it; nothing is leaked, the cache stays as it was).
 * The walk owns the result until it gives it back. */
void *irm_walk_stack_take_(size_t elem_size, size_t min, size_t *cap);

/* Ends a walk: buf (NULL is fine), cap elements of elem_size bytes, from
 * irm_walk_stack_take_ or grown from it by irm_realloc, is kept for the
 * thread's next walk or freed under the rules above. Never fails. */
void irm_walk_stack_give_(void *buf, size_t elem_size, size_t cap);

/* Frees the calling thread's cached buffer now, if any. */
void irm_walk_stack_drop_(void);

/* The free function of the allocator in place when it is the default one
 * (libc's), NULL under installed hooks (registry/alloc.c; the cache asks
 * it on every take and give). */
irm_free_fn irm_alloc_default_free_(void);

#endif
