/* irm's thread pool of runtime/ on its own (irm_threadpool.h,
 * irm_parallel.h; no libirm): every chunk runs exactly once with the split
 * irm_parallel.h promises, whatever the thread count; nested and
 * concurrent runs go inline and still complete; reserve only grows; bad
 * arguments are refused; many pools come and go without leaks. No case
 * depends on timing: threads are only counted, never raced against a
 * clock. */
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "irm_parallel.h"
#include "irm_threadpool.h"

#define MAX_ITEMS 4096

/* What a run saw: how often each item ran, chunks that broke the split. */
typedef struct cover {
  _Atomic int hits[MAX_ITEMS];
  _Atomic int calls, bad_split;
  int64_t n, chunk;
} cover;

static void cover_task(void *ctx, int64_t b, int64_t e) {
  cover *c = ctx;
  int64_t want_e = c->n - b < c->chunk ? c->n : b + c->chunk;
  if (b < 0 || b % c->chunk != 0 || e != want_e) atomic_fetch_add(&c->bad_split, 1);
  for (int64_t i = b; i < e && i < MAX_ITEMS; i++) atomic_fetch_add(&c->hits[i], 1);
  atomic_fetch_add(&c->calls, 1);
}

/* Runs [0, n) in chunks on pool (NULL: inline) and checks the coverage. */
static void check_cover(irm_threadpool *pool, int32_t max_threads, int64_t n, int64_t chunk) {
  cover *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  c->n = n;
  c->chunk = chunk;
  irm_threadpool_run(pool, max_threads, n, chunk, cover_task, c);
  int64_t nchunks = n <= 0 ? 0 : (n - 1) / chunk + 1;
  ck_assert_msg(atomic_load(&c->calls) == nchunks, "n %lld chunk %lld threads %d: %d calls, want %lld", (long long)n,
                (long long)chunk, max_threads, atomic_load(&c->calls), (long long)nchunks);
  ck_assert_int_eq(atomic_load(&c->bad_split), 0);
  for (int64_t i = 0; i < n; i++)
    ck_assert_msg(atomic_load(&c->hits[i]) == 1, "n %lld chunk %lld: item %lld ran %d times", (long long)n,
                  (long long)chunk, (long long)i, atomic_load(&c->hits[i]));
  free(c);
}

static const int64_t sizes[] = {0, 1, 2, 5, 7, 64, 100, 1000, MAX_ITEMS};
static const int64_t chunks[] = {1, 3, 7, 64, 5000};

START_TEST(test_every_chunk_runs_once) {
  irm_threadpool *pool = NULL;
  ck_assert_int_eq(irm_threadpool_create(4, 0, &pool), IRM_THREADPOOL_OK);
  ck_assert_int_eq(irm_threadpool_threads(pool), 4);
  const int32_t limits[] = {1, 2, 3, 4, 8, IRM_THREADPOOL_MAX};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++)
      for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) check_cover(pool, limits[l], sizes[s], chunks[c]);
  /* a NULL pool runs inline; chunk < 1 is read as 1 */
  check_cover(NULL, 4, 100, 7);
  cover *c = calloc(1, sizeof *c);
  ck_assert_ptr_nonnull(c);
  c->n = 10;
  c->chunk = 1;
  irm_threadpool_run(pool, 4, 10, 0, cover_task, c);
  ck_assert_int_eq(atomic_load(&c->calls), 10);
  ck_assert_int_eq(atomic_load(&c->bad_split), 0);
  free(c);
  irm_threadpool_destroy(pool);
}
END_TEST

/* A deterministic value per item, as a kernel writes each output once. */
typedef struct fill {
  double *out;
} fill;

static void fill_task(void *ctx, int64_t b, int64_t e) {
  fill *f = ctx;
  for (int64_t i = b; i < e; i++) {
    double acc = 0;
    for (int64_t k = 0; k <= i % 97; k++) acc += 1.0 / (double)(i + k + 1);
    f->out[i] = acc;
  }
}

START_TEST(test_results_do_not_depend_on_threads) {
  enum { N = 3001 };
  double *want = calloc(N, sizeof *want), *got = calloc(N, sizeof *got);
  ck_assert_ptr_nonnull(want);
  ck_assert_ptr_nonnull(got);
  fill_task(&(fill){want}, 0, N);
  for (int32_t threads = 1; threads <= 8; threads++) {
    irm_threadpool *pool = NULL;
    ck_assert_int_eq(irm_threadpool_create(threads, 0, &pool), IRM_THREADPOOL_OK);
    for (int64_t chunk = 1; chunk <= 1024; chunk *= 4) {
      memset(got, 0, N * sizeof *got);
      irm_threadpool_run(pool, threads, N, chunk, fill_task, &(fill){got});
      ck_assert_msg(memcmp(want, got, N * sizeof *got) == 0, "threads %d chunk %lld differ", threads, (long long)chunk);
    }
    irm_threadpool_destroy(pool);
  }
  free(want);
  free(got);
}
END_TEST

/* The threads that ran chunks: at most 16 distinct ids are recorded. */
typedef struct who {
  pthread_mutex_t lock;
  pthread_t ids[16];
  int count, nested_elsewhere;
  irm_threadpool *pool;
} who;

static void note_thread(who *w) {
  pthread_t me = pthread_self();
  pthread_mutex_lock(&w->lock);
  int seen = 0;
  for (int i = 0; i < w->count; i++) seen |= pthread_equal(w->ids[i], me);
  if (!seen && w->count < 16) w->ids[w->count++] = me;
  pthread_mutex_unlock(&w->lock);
}

static void who_task(void *ctx, int64_t b, int64_t e) {
  (void)b, (void)e;
  note_thread(ctx);
}

typedef struct nested {
  who *w;
  pthread_t outer;
} nested;

static void inner_task(void *ctx, int64_t b, int64_t e) {
  (void)b, (void)e;
  nested *n = ctx;
  if (!pthread_equal(n->outer, pthread_self())) {
    pthread_mutex_lock(&n->w->lock);
    n->w->nested_elsewhere++;
    pthread_mutex_unlock(&n->w->lock);
  }
}

static void outer_task(void *ctx, int64_t b, int64_t e) {
  who *w = ctx;
  for (int64_t i = b; i < e; i++) {
    nested n = {w, pthread_self()};
    irm_threadpool_run(w->pool, IRM_THREADPOOL_MAX, 50, 1, inner_task, &n);
    /* through irm_parallel.h as generated code calls it */
    irm_parallel_pool pp = irm_threadpool_as_pool(w->pool);
    irm_parallel_for(&pp, 50, 1, inner_task, &n);
  }
}

START_TEST(test_a_task_running_the_pool_runs_inline) {
  who w = {.lock = PTHREAD_MUTEX_INITIALIZER};
  ck_assert_int_eq(irm_threadpool_create(4, 0, &w.pool), IRM_THREADPOOL_OK);
  for (int round = 0; round < 20; round++) irm_threadpool_run(w.pool, 4, 64, 1, outer_task, &w);
  ck_assert_int_eq(w.nested_elsewhere, 0);
  irm_threadpool_destroy(w.pool);
}
END_TEST

START_TEST(test_max_threads_bounds_the_threads_used) {
  irm_threadpool *pool = NULL;
  ck_assert_int_eq(irm_threadpool_create(6, IRM_THREADPOOL_PIN, &pool), IRM_THREADPOOL_OK);
  for (int32_t limit = 1; limit <= 3; limit++) {
    who w = {.lock = PTHREAD_MUTEX_INITIALIZER};
    for (int round = 0; round < 50; round++) irm_threadpool_run(pool, limit, 200, 1, who_task, &w);
    ck_assert_msg(w.count >= 1 && w.count <= limit, "limit %d: %d threads ran chunks", limit, w.count);
  }
  /* one thread, or a pool without workers: only the caller */
  irm_threadpool *one = NULL;
  ck_assert_int_eq(irm_threadpool_create(1, 0, &one), IRM_THREADPOOL_OK);
  who w = {.lock = PTHREAD_MUTEX_INITIALIZER};
  irm_threadpool_run(one, 8, 200, 1, who_task, &w);
  ck_assert_int_eq(w.count, 1);
  ck_assert(pthread_equal(w.ids[0], pthread_self()));
  irm_threadpool_destroy(one);
  irm_threadpool_destroy(pool);
}
END_TEST

/* Two application threads running one pool at once: one gets it, the
 * other runs its chunks itself; both see every chunk once. */
typedef struct runner {
  irm_threadpool *pool;
  int failures;
} runner;

static void *run_many(void *arg) {
  runner *r = arg;
  for (int round = 0; round < 200; round++) {
    int64_t n = 1 + (round * 37) % 700, chunk = 1 + round % 13;
    cover *c = calloc(1, sizeof *c);
    if (!c) {
      r->failures++;
      continue;
    }
    c->n = n;
    c->chunk = chunk;
    irm_threadpool_run(r->pool, IRM_THREADPOOL_MAX, n, chunk, cover_task, c);
    int ok = atomic_load(&c->calls) == (n - 1) / chunk + 1 && atomic_load(&c->bad_split) == 0;
    for (int64_t i = 0; i < n; i++) ok &= atomic_load(&c->hits[i]) == 1;
    r->failures += !ok;
    free(c);
  }
  return NULL;
}

START_TEST(test_two_threads_run_at_once) {
  irm_threadpool *pool = NULL;
  ck_assert_int_eq(irm_threadpool_create(3, 0, &pool), IRM_THREADPOOL_OK);
  runner r[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    r[i] = (runner){pool, 0};
    ck_assert_int_eq(pthread_create(&t[i], NULL, run_many, &r[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    ck_assert_msg(r[i].failures == 0, "thread %d: %d bad runs", i, r[i].failures);
  }
  irm_threadpool_destroy(pool);
}
END_TEST

START_TEST(test_reserve_grows_never_shrinks) {
  irm_threadpool *pool = NULL;
  ck_assert_int_eq(irm_threadpool_create(1, 0, &pool), IRM_THREADPOOL_OK);
  ck_assert_int_eq(irm_threadpool_threads(pool), 1);
  ck_assert_int_eq(irm_threadpool_reserve(pool, 3, 0), IRM_THREADPOOL_OK);
  ck_assert_int_eq(irm_threadpool_threads(pool), 3);
  check_cover(pool, 3, 500, 3);
  ck_assert_int_eq(irm_threadpool_reserve(pool, 2, 0), IRM_THREADPOOL_OK);
  ck_assert_int_eq(irm_threadpool_threads(pool), 3);
  ck_assert_int_eq(irm_threadpool_reserve(pool, 5, IRM_THREADPOOL_PIN), IRM_THREADPOOL_OK);
  ck_assert_int_eq(irm_threadpool_threads(pool), 5);
  check_cover(pool, 5, 500, 3);
  ck_assert_int_eq(irm_threadpool_threads(NULL), 1);
  irm_threadpool_destroy(pool);
}
END_TEST

START_TEST(test_bad_arguments) {
  irm_threadpool *pool = (irm_threadpool *)&pool;
  ck_assert_int_eq(irm_threadpool_create(0, 0, &pool), IRM_THREADPOOL_EARG);
  ck_assert_int_eq(irm_threadpool_create(-1, 0, &pool), IRM_THREADPOOL_EARG);
  ck_assert_int_eq(irm_threadpool_create(IRM_THREADPOOL_MAX + 1, 0, &pool), IRM_THREADPOOL_EARG);
  ck_assert_int_eq(irm_threadpool_create(2, 0, NULL), IRM_THREADPOOL_EARG);
  ck_assert_int_eq(irm_threadpool_reserve(NULL, 2, 0), IRM_THREADPOOL_EARG);
  ck_assert_int_eq(irm_threadpool_create(2, 0, &pool), IRM_THREADPOOL_OK);
  ck_assert_int_eq(irm_threadpool_reserve(pool, 0, 0), IRM_THREADPOOL_EARG);
  ck_assert_int_eq(irm_threadpool_reserve(pool, IRM_THREADPOOL_MAX + 1, 0), IRM_THREADPOOL_EARG);
  ck_assert_int_eq(irm_threadpool_threads(pool), 2); /* a refusal changes nothing */
  irm_threadpool_destroy(pool);
  irm_threadpool_destroy(NULL);
}
END_TEST

START_TEST(test_cpu_count_and_shared_pool) {
  ck_assert_int_ge(irm_threadpool_cpu_count(), 1);
  irm_threadpool *a = irm_threadpool_shared(), *b = irm_threadpool_shared();
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_eq(a, b);
  ck_assert_int_ge(irm_threadpool_threads(a), 1);
  ck_assert_int_eq(irm_threadpool_reserve(a, 2, 0), IRM_THREADPOOL_OK);
  check_cover(a, 2, 300, 7);
}
END_TEST

/* irm_parallel_for without a pool, or with one thread, is the serial loop. */
typedef struct order {
  int64_t next;
  int out_of_order, calls;
} order;

static void order_task(void *ctx, int64_t b, int64_t e) {
  order *o = ctx;
  if (b != o->next) o->out_of_order++;
  o->next = e;
  o->calls++;
}

typedef struct counting_pool {
  int calls;
} counting_pool;

static void counting_parallel_for(void *self, int64_t n, int64_t chunk, irm_parallel_task task, void *ctx) {
  ((counting_pool *)self)->calls++;
  for (int64_t b = 0; b < n; b += chunk) task(ctx, b, n - b < chunk ? n : b + chunk);
}

/* Inline (no pool, one thread, one chunk) the whole range is one call. */
START_TEST(test_parallel_for_inline_cases) {
  order o = {0};
  irm_parallel_for(NULL, 100, 7, order_task, &o);
  ck_assert_int_eq(o.calls, 1);
  ck_assert_int_eq(o.out_of_order, 0);
  ck_assert_int_eq(o.next, 100);
  counting_pool cp = {0};
  irm_parallel_pool one = {counting_parallel_for, &cp, 1};
  o = (order){0};
  irm_parallel_for(&one, 100, 7, order_task, &o);
  ck_assert_int_eq(cp.calls, 0);
  ck_assert_int_eq(o.calls, 1);
  ck_assert_int_eq(o.out_of_order, 0);
  /* chunk 0 reads as 1; a single chunk never dispatches */
  irm_parallel_pool two = {counting_parallel_for, &cp, 2};
  o = (order){0};
  irm_parallel_for(&two, 5, 0, order_task, &o);
  ck_assert_int_eq(o.calls, 5);
  ck_assert_int_eq(cp.calls, 1);
  o = (order){0};
  irm_parallel_for(&two, 5, 5, order_task, &o);
  ck_assert_int_eq(o.calls, 1);
  ck_assert_int_eq(cp.calls, 1);
  o = (order){0};
  irm_parallel_for(&two, 0, 5, order_task, &o);
  ck_assert_int_eq(o.calls, 0);
  irm_parallel_pool no_fn = {NULL, NULL, 4};
  o = (order){0};
  irm_parallel_for(&no_fn, 20, 3, order_task, &o);
  ck_assert_int_eq(o.calls, 1);
  ck_assert_int_eq(o.next, 20);
}
END_TEST

/* Each thread starts on its own contiguous share of the chunks, so that
 * consecutive kernels splitting the same rows give a thread the rows it
 * wrote. The caller's first chunk (0, the front of its share) waits until
 * the worker has started one: that one is then the front of the second
 * share, not the next chunk in line. No clock: the wait ends when the
 * worker arrives. */
typedef struct homes {
  _Atomic int64_t worker_first;
  pthread_t caller;
} homes;

static void home_task(void *ctx, int64_t b, int64_t e) {
  (void)e;
  homes *h = ctx;
  if (!pthread_equal(pthread_self(), h->caller)) {
    int64_t none = -1;
    atomic_compare_exchange_strong(&h->worker_first, &none, b);
  } else if (b == 0) {
    while (atomic_load(&h->worker_first) < 0) sched_yield();
  }
}

START_TEST(test_each_thread_starts_on_its_own_share) {
  irm_threadpool *pool = NULL;
  ck_assert_int_eq(irm_threadpool_create(2, 0, &pool), IRM_THREADPOOL_OK);
  const int64_t ns[] = {2, 7, 10, 64, 1001};
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
    for (int64_t chunk = 1; chunk <= 3; chunk += 2) {
      int64_t nchunks = (ns[i] - 1) / chunk + 1;
      if (nchunks < 2) continue; /* one chunk runs inline: no worker would come */
      homes h = {.caller = pthread_self()};
      atomic_init(&h.worker_first, -1);
      irm_threadpool_run(pool, 2, ns[i], chunk, home_task, &h);
      ck_assert_msg(atomic_load(&h.worker_first) == nchunks / 2 * chunk, "n %lld chunk %lld: the worker began at %lld",
                    (long long)ns[i], (long long)chunk, (long long)atomic_load(&h.worker_first));
    }
  irm_threadpool_destroy(pool);
}
END_TEST

/* More chunks than one range word counts (2^20): claims of several chunks
 * each, every chunk still once and in the split. */
typedef struct many {
  _Atomic int64_t calls, items, index_sum, bad_split;
} many;

static void many_task(void *ctx, int64_t b, int64_t e) {
  many *m = ctx;
  if (e != b + 1) atomic_fetch_add(&m->bad_split, 1);
  atomic_fetch_add(&m->calls, 1);
  atomic_fetch_add(&m->items, e - b);
  atomic_fetch_add(&m->index_sum, b);
}

START_TEST(test_more_chunks_than_a_range_holds) {
  irm_threadpool *pool = NULL;
  ck_assert_int_eq(irm_threadpool_create(3, 0, &pool), IRM_THREADPOOL_OK);
  const int64_t n = 2500001;
  many m = {0};
  irm_threadpool_run(pool, 3, n, 1, many_task, &m);
  ck_assert_int_eq(atomic_load(&m.calls), n);
  ck_assert_int_eq(atomic_load(&m.items), n);
  ck_assert_int_eq(atomic_load(&m.bad_split), 0);
  ck_assert_int_eq(atomic_load(&m.index_sum), n * (n - 1) / 2); /* each index once, given the count */
  irm_threadpool_destroy(pool);
}
END_TEST

/* irm_parallel.h's scratch slots: a running chunk holds one no other
 * running chunk holds, and a chunk finding every slot but the last in use
 * takes the last; released slots are taken again lowest first. */
typedef struct slots {
  atomic_int busy[8];
  _Atomic int holders[8], clash, claims;
} slots;

static void slot_task(void *ctx, int64_t b, int64_t e) {
  slots *s = ctx;
  for (int64_t i = b; i < e; i++) {
    int k = irm_parallel_slot_claim(s->busy, 8);
    if (atomic_fetch_add(&s->holders[k], 1) != 0) atomic_fetch_add(&s->clash, 1);
    atomic_fetch_add(&s->claims, 1);
    atomic_fetch_sub(&s->holders[k], 1);
    irm_parallel_slot_release(s->busy, k);
  }
}

START_TEST(test_scratch_slots) {
  slots s;
  memset(&s, 0, sizeof s);
  irm_parallel_slots_clear(s.busy, 8);
  ck_assert_int_eq(irm_parallel_slot_claim(s.busy, 8), 0);
  ck_assert_int_eq(irm_parallel_slot_claim(s.busy, 8), 1);
  for (int k = 2; k < 7; k++) ck_assert_int_eq(irm_parallel_slot_claim(s.busy, 8), k);
  ck_assert_int_eq(irm_parallel_slot_claim(s.busy, 8), 7);
  irm_parallel_slot_release(s.busy, 3);
  irm_parallel_slot_release(s.busy, 1);
  ck_assert_int_eq(irm_parallel_slot_claim(s.busy, 8), 1);
  ck_assert_int_eq(irm_parallel_slot_claim(s.busy, 8), 3);
  irm_parallel_slots_clear(s.busy, 8);
  irm_threadpool *pool = NULL;
  ck_assert_int_eq(irm_threadpool_create(4, 0, &pool), IRM_THREADPOOL_OK);
  for (int round = 0; round < 200; round++) irm_threadpool_run(pool, 4, 8, 1, slot_task, &s);
  ck_assert_int_eq(atomic_load(&s.clash), 0);
  ck_assert_int_eq(atomic_load(&s.claims), 200 * 8);
  for (int k = 0; k < 8; k++) ck_assert_int_eq(atomic_load(&s.busy[k]), 0);
  irm_threadpool_destroy(pool);
}
END_TEST

START_TEST(test_create_and_destroy_many_times) {
  for (int i = 0; i < 60; i++) {
    irm_threadpool *pool = NULL;
    ck_assert_int_eq(irm_threadpool_create(1 + i % 5, i % 2 ? IRM_THREADPOOL_PIN : 0, &pool), IRM_THREADPOOL_OK);
    if (i % 3 == 0) check_cover(pool, IRM_THREADPOOL_MAX, 40, 3);
    if (i % 4 == 0) ck_assert_int_eq(irm_threadpool_reserve(pool, 6, 0), IRM_THREADPOOL_OK);
    irm_threadpool_destroy(pool);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("threadpool");
  TCase *tc = tcase_create("pool");
  tcase_add_test(tc, test_every_chunk_runs_once);
  tcase_add_test(tc, test_results_do_not_depend_on_threads);
  tcase_add_test(tc, test_a_task_running_the_pool_runs_inline);
  tcase_add_test(tc, test_max_threads_bounds_the_threads_used);
  tcase_add_test(tc, test_two_threads_run_at_once);
  tcase_add_test(tc, test_reserve_grows_never_shrinks);
  tcase_add_test(tc, test_bad_arguments);
  tcase_add_test(tc, test_cpu_count_and_shared_pool);
  tcase_add_test(tc, test_parallel_for_inline_cases);
  tcase_add_test(tc, test_create_and_destroy_many_times);
  tcase_add_test(tc, test_each_thread_starts_on_its_own_share);
  tcase_add_test(tc, test_more_chunks_than_a_range_holds);
  tcase_add_test(tc, test_scratch_slots);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
