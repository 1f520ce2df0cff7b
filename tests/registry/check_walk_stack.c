/* The per-thread cache of walk stacks (registry/internal/walk_stack.h):
 * a second walk on a thread takes the buffer the first gave back without
 * allocating; nested walks each get a buffer; every thread has its own
 * cache, freed when the thread exits; the size cap and the number of kept
 * buffers; a buffer kept under one allocator is freed with that
 * allocator's free once another is in place, and nothing is kept under
 * installed hooks; out of memory while taking or growing leaks nothing.
 *
 * The cache is private to libirm, so this program compiles
 * registry/walk_stack.c itself (tests/CMakeLists.txt). main() installs the
 * counting allocator of check_alloc_util.h, so every block the cache
 * allocates, keeps or frees is counted; the one thing the cache asks the
 * rest of libirm, which allocator is in place, is stood in for below
 * (libirm's own cache keeps nothing under installed hooks). Real walks
 * under the default allocator, in threads, are check_walk_stack_threads. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_alloc_util.h"
#include "walk_stack.h"

/* ---- stand-in for the allocator query -------------------------------------- */

/* What irm_alloc_default_free_ answers: the free function of "the default
 * allocator" (the counting one here, so that the cache keeps buffers), or
 * NULL for "hooks are installed". */
static irm_free_fn default_free = counting_free;

irm_free_fn irm_alloc_default_free_(void) { return default_free; }

/* A second allocator's free: counting_free, counted. */
static atomic_long other_frees;
static void other_free(void *p) {
  atomic_fetch_add(&other_frees, 1);
  counting_free(p);
}

/* ---- helpers ------------------------------------------------------------- */

/* A walk as the walks over the IR do it: takes a stack, pushes n entries
 * growing it by doubling with irm_realloc, gives it back. IRM_OK, or
 * IRM_ENOMEM when an allocation failed (the stack is given back as it
 * is). The entries are checked, so a buffer shared by two walks shows. */
static int walk(size_t n) {
  size_t cap = 0, depth = 0;
  uint64_t *stack = irm_walk_stack_take_(sizeof *stack, 16, &cap);
  if (!stack) return IRM_ENOMEM;
  int rc = IRM_OK;
  for (size_t i = 0; i < n; i++) {
    if (depth == cap) {
      uint64_t *grown = irm_realloc(stack, 2 * cap * sizeof *grown);
      if (!grown) {
        rc = IRM_ENOMEM;
        break;
      }
      stack = grown;
      cap *= 2;
    }
    stack[depth++] = i;
  }
  for (size_t i = 0; i < depth; i++) ck_require(stack[i] == i, "entry %zu overwritten", i);
  irm_walk_stack_give_(stack, sizeof *stack, cap);
  return rc;
}

/* The allocations attempted by f(arg). */
static long attempts_of(int (*f)(size_t), size_t arg, int *rc) {
  long before = atomic_load(&attempts);
  *rc = f(arg);
  return atomic_load(&attempts) - before;
}

static void setup(void) {
  default_free = counting_free;
  stop_failing();
}

/* Every test ends with an empty cache and nothing live it made. */
static long live_at_start;
static void start(void) { live_at_start = atomic_load(&live_blocks); }
static void end(void) {
  irm_walk_stack_drop_();
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start);
  ck_assert_int_eq(atomic_load(&foreign_frees), 0);
}

/* ---- reuse ----------------------------------------------------------------- */

START_TEST(test_second_walk_allocates_nothing) {
  start();
  int rc;
  long first = attempts_of(walk, 100000, &rc);
  ck_assert_int_eq(rc, IRM_OK);
  ck_assert_int_ge(first, 10);                                    /* 16 doubled to 131072 */
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1); /* kept */
  ck_assert_int_eq(attempts_of(walk, 100000, &rc), 0);
  ck_assert_int_eq(rc, IRM_OK);
  ck_assert_int_eq(attempts_of(walk, 10, &rc), 0); /* a smaller walk too */
  /* A larger one grows the kept buffer, once. */
  ck_assert_int_eq(attempts_of(walk, 200000, &rc), 1);
  ck_assert_int_eq(attempts_of(walk, 200000, &rc), 0);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
  end();
}
END_TEST

START_TEST(test_take_reports_capacity_in_elements) {
  start();
  size_t cap = 99;
  ck_assert_ptr_null(irm_walk_stack_take_(8, 0, &cap)); /* nothing kept, nothing asked */
  ck_assert_uint_eq(cap, 0);
  void *a = irm_walk_stack_take_(24, 10, &cap);
  ck_assert_ptr_nonnull(a);
  ck_assert_uint_eq(cap, 10);
  irm_walk_stack_give_(a, 24, cap); /* 240 bytes */
  long before = atomic_load(&attempts);
  void *b = irm_walk_stack_take_(16, 0, &cap);
  ck_assert_ptr_eq(b, a);
  ck_assert_uint_eq(cap, 15); /* 240 / 16 */
  ck_assert_int_eq(atomic_load(&attempts), before);
  irm_walk_stack_give_(b, 16, cap);
  b = irm_walk_stack_take_(7, 0, &cap);
  ck_assert_uint_eq(cap, 240 / 16 * 16 / 7); /* never more than it holds */
  irm_walk_stack_give_(b, 7, cap);
  irm_walk_stack_give_(NULL, 8, 0); /* fine */
  end();
}
END_TEST

/* ---- nesting ----------------------------------------------------------------- */

/* A walk that runs depth - 1 walks nested inside it. */
static int nested(size_t depth) {
  size_t cap = 0;
  uint64_t *stack = irm_walk_stack_take_(sizeof *stack, 64 * depth, &cap);
  if (!stack) return IRM_ENOMEM;
  for (size_t i = 0; i < cap; i++) stack[i] = depth;
  int rc = depth > 1 ? nested(depth - 1) : IRM_OK;
  for (size_t i = 0; i < cap; i++) ck_require(stack[i] == depth, "level %zu's stack was shared", depth);
  irm_walk_stack_give_(stack, sizeof *stack, cap);
  return rc;
}

START_TEST(test_nested_walks_get_their_own_stacks) {
  start();
  int rc;
  /* Three walks at once: three buffers; the two largest are kept. */
  ck_assert_int_eq(attempts_of(nested, 3, &rc), 3);
  ck_assert_int_eq(rc, IRM_OK);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + IRM_WALK_STACK_KEPT_);
  size_t c1 = 0, c2 = 0, c3 = 0;
  void *a = irm_walk_stack_take_(8, 0, &c1), *b = irm_walk_stack_take_(8, 0, &c2);
  ck_assert_uint_eq(c1, 3 * 64); /* the largest first */
  ck_assert_uint_eq(c2, 2 * 64);
  ck_assert_ptr_null(irm_walk_stack_take_(8, 0, &c3));
  irm_walk_stack_give_(b, 8, c2);
  irm_walk_stack_give_(a, 8, c1);
  /* Two at once find both kept buffers: no allocation. */
  ck_assert_int_eq(attempts_of(nested, 2, &rc), 0);
  ck_assert_int_eq(rc, IRM_OK);
  end();
}
END_TEST

START_TEST(test_smaller_buffer_is_freed_when_slots_are_full) {
  start();
  size_t c[3];
  void *p[3];
  for (int i = 0; i < 3; i++) p[i] = irm_walk_stack_take_(1, 100 * (size_t)(i + 1), &c[i]);
  irm_walk_stack_give_(p[1], 1, c[1]);
  irm_walk_stack_give_(p[2], 1, c[2]);
  irm_walk_stack_give_(p[0], 1, c[0]); /* smaller than both kept: freed */
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 2);
  size_t cap;
  void *q = irm_walk_stack_take_(1, 0, &cap);
  ck_assert_ptr_eq(q, p[2]);
  ck_assert_uint_eq(cap, 300);
  irm_walk_stack_give_(q, 1, cap);
  /* Kept: 300 and 200. A larger one replaces the smaller of them. */
  size_t big_cap;
  void *big = irm_malloc(500);
  ck_assert_ptr_nonnull(big);
  irm_walk_stack_give_(big, 1, 500);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 2);
  void *first = irm_walk_stack_take_(1, 0, &big_cap), *second = irm_walk_stack_take_(1, 0, &cap);
  ck_assert_ptr_eq(first, big);
  ck_assert_uint_eq(big_cap, 500);
  ck_assert_ptr_eq(second, q);
  ck_assert_uint_eq(cap, 300);
  irm_walk_stack_give_(first, 1, big_cap);
  irm_walk_stack_give_(second, 1, cap);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 2);
  end();
}
END_TEST

/* ---- threads ----------------------------------------------------------------- */

typedef struct thread_case {
  void *main_buf; /* the main thread's kept buffer */
  void *seen;     /* what the thread took */
  long attempts_first, attempts_second;
} thread_case;

static void *thread_walks(void *arg) {
  thread_case *t = arg;
  size_t cap;
  t->seen = irm_walk_stack_take_(8, 1000, &cap);
  irm_walk_stack_give_(t->seen, 8, cap);
  int rc;
  t->attempts_first = attempts_of(walk, 50000, &rc);
  t->attempts_second = attempts_of(walk, 50000, &rc);
  return NULL; /* exits with buffers kept */
}

START_TEST(test_each_thread_has_its_cache_freed_at_exit) {
  start();
  size_t cap;
  void *mine = irm_walk_stack_take_(8, 1000, &cap);
  irm_walk_stack_give_(mine, 8, cap);
  long bytes_before = atomic_load(&live_bytes), blocks_before = atomic_load(&live_blocks);
  /* One after the other, so that the allocation counts are each thread's. */
  enum { N = 3 };
  for (int i = 0; i < N; i++) {
    thread_case tc = {.main_buf = mine};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, thread_walks, &tc), 0);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert_ptr_nonnull(tc.seen);
    ck_assert_ptr_ne(tc.seen, mine); /* not the main thread's */
    ck_assert_int_gt(tc.attempts_first, 0);
    ck_assert_int_eq(tc.attempts_second, 0); /* its own, reused */
    /* Its buffers were freed when it exited. */
    ck_assert_int_eq(atomic_load(&live_blocks), blocks_before);
    ck_assert_int_eq(atomic_load(&live_bytes), bytes_before);
  }
  /* The main thread's is still kept. */
  void *again = irm_walk_stack_take_(8, 0, &cap);
  ck_assert_ptr_eq(again, mine);
  irm_walk_stack_give_(again, 8, cap);
  end();
}
END_TEST

static void *thread_many_walks(void *arg) {
  (void)arg;
  for (size_t i = 1; i <= 40; i++) {
    ck_require(walk(i * 997 % 20000) == IRM_OK, "walk %zu", i);
    ck_require(nested(1 + i % 3) == IRM_OK, "nested walks %zu", i);
  }
  return NULL;
}

START_TEST(test_threads_walking_at_once_free_everything) {
  start();
  long bytes_before = atomic_load(&live_bytes);
  enum { N = 4 };
  pthread_t th[N];
  for (int i = 0; i < N; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, thread_many_walks, NULL), 0);
  for (int i = 0; i < N; i++) ck_assert_int_eq(pthread_join(th[i], NULL), 0);
  ck_assert_int_eq(atomic_load(&live_bytes), bytes_before);
  end();
}
END_TEST

/* ---- the cap ----------------------------------------------------------------- */

START_TEST(test_buffers_over_the_cap_are_freed) {
  start();
  size_t cap;
  void *big = irm_walk_stack_take_(1, IRM_WALK_STACK_KEEP_MAX_ + 1, &cap);
  ck_assert_ptr_nonnull(big);
  irm_walk_stack_give_(big, 1, cap);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start);
  void *at_cap = irm_walk_stack_take_(1, IRM_WALK_STACK_KEEP_MAX_, &cap);
  ck_assert_ptr_nonnull(at_cap);
  irm_walk_stack_give_(at_cap, 1, cap);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
  /* Grown past the cap from a kept buffer: freed too. */
  void *kept = irm_walk_stack_take_(1, 0, &cap);
  ck_assert_ptr_eq(kept, at_cap);
  void *grown = irm_realloc(kept, IRM_WALK_STACK_KEEP_MAX_ + 16);
  ck_assert_ptr_nonnull(grown);
  irm_walk_stack_give_(grown, 1, IRM_WALK_STACK_KEEP_MAX_ + 16);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start);
  end();
}
END_TEST

/* ---- the allocator --------------------------------------------------------------- */

START_TEST(test_buffer_of_another_allocator_is_freed_with_its_own) {
  start();
  int rc;
  ck_assert_int_eq(walk(1000), IRM_OK); /* kept, from counting_free's allocator */
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
  default_free = other_free; /* another allocator is in place */
  long before = atomic_load(&attempts);
  size_t cap;
  void *p = irm_walk_stack_take_(8, 4, &cap);
  ck_assert_int_eq(atomic_load(&attempts), before + 1); /* not the old one */
  ck_assert_int_eq(atomic_load(&other_frees), 0);       /* old one freed with its own free */
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
  irm_walk_stack_give_(p, 8, cap);
  /* Kept under the new one, and dropped with its free. */
  irm_walk_stack_drop_();
  ck_assert_int_eq(atomic_load(&other_frees), 1);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start);
  default_free = counting_free;
  ck_assert_int_eq(attempts_of(walk, 1000, &rc), 7); /* 16, then doubled 6 times to 1024 */
  ck_assert_int_eq(rc, IRM_OK);
  end();
}
END_TEST

START_TEST(test_nothing_is_kept_under_installed_hooks) {
  start();
  int rc;
  ck_assert_int_eq(walk(1000), IRM_OK);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
  default_free = NULL; /* hooks installed */
  long first = attempts_of(walk, 1000, &rc);
  ck_assert_int_eq(rc, IRM_OK);
  ck_assert_int_eq(first, 7);                                 /* the kept one is not used */
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start); /* ... but freed */
  ck_assert_int_eq(attempts_of(walk, 1000, &rc), 7);          /* every walk allocates */
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start); /* and frees */
  end();
}
END_TEST

/* ---- out of memory ----------------------------------------------------------------- */

START_TEST(test_out_of_memory_when_taking_leaks_nothing) {
  start();
  size_t cap = 7;
  fail_nth_from_now(1);
  ck_assert_ptr_null(irm_walk_stack_take_(8, 100, &cap)); /* nothing kept */
  stop_failing();
  ck_assert_uint_eq(cap, 0);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start);
  void *small = irm_walk_stack_take_(8, 4, &cap);
  irm_walk_stack_give_(small, 8, cap);
  /* Growing the kept buffer fails: it stays kept, as it was. */
  fail_nth_from_now(1);
  ck_assert_ptr_null(irm_walk_stack_take_(8, 100, &cap));
  stop_failing();
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
  long before = atomic_load(&attempts);
  void *again = irm_walk_stack_take_(8, 4, &cap);
  ck_assert_ptr_eq(again, small);
  ck_assert_uint_eq(cap, 4);
  ck_assert_int_eq(atomic_load(&attempts), before);
  irm_walk_stack_give_(again, 8, cap);
  /* A size that overflows fails without allocating. */
  ck_assert_ptr_null(irm_walk_stack_take_(SIZE_MAX / 2, 3, &cap));
  ck_assert_int_eq(atomic_load(&attempts), before);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
  end();
}
END_TEST

START_TEST(test_out_of_memory_while_growing_leaks_nothing) {
  start();
  /* Fail each allocation of a first walk in turn, then all after N. */
  for (long n = 1; n <= 14; n++) {
    for (int mode = 0; mode < 2; mode++) {
      irm_walk_stack_drop_();
      ck_assert_int_eq(atomic_load(&live_blocks), live_at_start);
      if (mode == 0) fail_nth_from_now(n);
      else fail_all_after(n - 1);
      int rc = walk(100000); /* 14 allocations: 16 doubled to 131072 */
      stop_failing();
      ck_assert_msg(rc == IRM_ENOMEM, "N=%ld: %d", n, rc);
      /* The buffer the walk had when it failed is kept, nothing else. */
      ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + (n > 1));
      ck_assert_int_eq(walk(100000), IRM_OK); /* the next walk works */
      ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 1);
    }
  }
  end();
}
END_TEST

START_TEST(test_drop_frees_every_kept_buffer) {
  start();
  ck_assert_int_eq(nested(2), IRM_OK);
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start + 2);
  irm_walk_stack_drop_();
  ck_assert_int_eq(atomic_load(&live_blocks), live_at_start);
  irm_walk_stack_drop_(); /* nothing kept: fine */
  size_t cap;
  ck_assert_ptr_null(irm_walk_stack_take_(8, 0, &cap));
  end();
}
END_TEST

static Suite *walk_stack_suite(void) {
  Suite *s = suite_create("walk_stack");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_test(tc, test_second_walk_allocates_nothing);
  tcase_add_test(tc, test_take_reports_capacity_in_elements);
  tcase_add_test(tc, test_nested_walks_get_their_own_stacks);
  tcase_add_test(tc, test_smaller_buffer_is_freed_when_slots_are_full);
  tcase_add_test(tc, test_each_thread_has_its_cache_freed_at_exit);
  tcase_add_test(tc, test_threads_walking_at_once_free_everything);
  tcase_add_test(tc, test_buffers_over_the_cap_are_freed);
  tcase_add_test(tc, test_buffer_of_another_allocator_is_freed_with_its_own);
  tcase_add_test(tc, test_nothing_is_kept_under_installed_hooks);
  tcase_add_test(tc, test_out_of_memory_when_taking_leaks_nothing);
  tcase_add_test(tc, test_out_of_memory_while_growing_leaks_nothing);
  tcase_add_test(tc, test_drop_frees_every_kept_buffer);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_walk_stack") != 0) return EXIT_FAILURE;
  return run_suite(walk_stack_suite());
}
