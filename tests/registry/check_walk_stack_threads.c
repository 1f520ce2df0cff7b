/* Walks over values that keep their stacks in the per-thread cache
 * (registry/internal/walk_stack.h), under the default allocator, where
 * libirm keeps buffers between walks: structural equality, hashing and
 * repr of deep chains, walk after walk, on the main thread and on threads
 * walking at once, give the same answers as the first walk; threads exit
 * with buffers kept, which their exit frees (the ASan build's leak check
 * and scripts/valgrind.sh report any block left). The cache's rules, with
 * allocations counted, are check_walk_stack. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <irm/irm.h>

#include "check_util.h"

/* [[...[]...]]: n levels of one-item Arrays. */
static irm_object *chain(size_t n) {
  irm_object *a = new_array(NULL, 0);
  for (size_t i = 1; i < n; i++) {
    irm_any item = irm_any_object(a);
    irm_object *next = new_array(&item, 1);
    irm_object_release(a);
    a = next;
  }
  return a;
}

static uint64_t hash_of(const irm_any *v) {
  uint64_t h = 0;
  ck_require(irm_structural_hash(v, &h) == 0, "hash: %s", irm_last_error());
  return h;
}

/* Compares, hashes and prints a chain of n levels rounds times; the
 * answers must not change from one round to the next. */
static void walks(size_t n, int rounds) {
  irm_object *a = chain(n), *b = chain(n);
  irm_any va = irm_any_object(a), vb = irm_any_object(b);
  uint64_t first = hash_of(&va);
  for (int r = 0; r < rounds; r++) {
    ck_require(equal(&va, &vb), "round %d: equal chains compare unequal", r);
    ck_require(hash_of(&vb) == first, "round %d: the hash changed", r);
    irm_object *s = NULL;
    ck_require(irm_repr(&va, &s) == 0, "repr: %s", irm_last_error());
    ck_require(irm_string_size(s) == 2 * n, "round %d: repr of %zu bytes", r, irm_string_size(s));
    irm_object_release(s);
    /* A shorter chain after a longer one, and again. */
    irm_object *c = chain(n / 3 + 1);
    irm_any vc = irm_any_object(c);
    ck_require(!equal(&va, &vc), "round %d: chains of different depths compare equal", r);
    irm_object_release(c);
  }
  irm_object_release(b);
  irm_object_release(a);
}

START_TEST(test_walks_on_one_thread_give_the_same_answers) { walks(test_depth(100000), 4); }
END_TEST

static void *thread_walks(void *arg) {
  walks(*(size_t *)arg, 3);
  return NULL; /* exits with buffers kept */
}

START_TEST(test_threads_walk_at_once_and_exit_with_buffers_kept) {
  enum { N = 4 };
  size_t depth[N];
  pthread_t th[N];
  for (int i = 0; i < N; i++) {
    depth[i] = test_depth(20000) * (size_t)(i + 1);
    ck_assert_int_eq(pthread_create(&th[i], NULL, thread_walks, &depth[i]), 0);
  }
  walks(test_depth(30000), 2);
  for (int i = 0; i < N; i++) ck_assert_int_eq(pthread_join(th[i], NULL), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("walk_stack_threads");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_walks_on_one_thread_give_the_same_answers);
  tcase_add_test(tc, test_threads_walk_at_once_and_exit_with_buffers_kept);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
