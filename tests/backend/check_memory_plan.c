/* The memory planner (backend/lower/memory_plan.h): every algorithm keeps
 * live buffers apart and aligned, the greedy ones reuse memory (planned
 * bytes <= unplanned), storage_best_fit (the graph executor's) shares
 * storages by TVM's graph planner's rules, the greedy ones place exactly
 * as their plain quadratic rules do, the module's usmp.* attributes pick
 * the algorithm (planning on by default), and unknown names and bad input are errors. The example models'
 * workspace bytes per algorithm are printed (docs/build.md cites them). */
#include "check_build_util.h"
#include "memory_plan.h"

/* Checked with plain ifs: a Check assertion costs a write to its pipe,
 * and this runs millions of comparisons. */
static void assert_valid(const irm_mem_buffer_ *b, size_t n, size_t align, size_t total) {
  for (size_t i = 0; i < n; i++) {
    size_t a = b[i].align > align ? b[i].align : align;
    if (b[i].offset % a != 0) ck_abort_msg("buffer %zu at %zu is not %zu-aligned", i, b[i].offset, a);
    if (b[i].offset + b[i].bytes > total) ck_abort_msg("buffer %zu ends past the total %zu", i, total);
    for (size_t j = i + 1; j < n; j++) {
      int live = b[i].first_use <= b[j].last_use && b[j].first_use <= b[i].last_use;
      int overlap = b[i].offset < b[j].offset + b[j].bytes && b[j].offset < b[i].offset + b[i].bytes;
      if (live && overlap && b[i].bytes && b[j].bytes)
        ck_abort_msg("buffers %zu and %zu are live together and overlap", i, j);
    }
  }
}

/* A random set of n buffers. */
static void random_buffers(irm_mem_buffer_ *b, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    size_t first = (seed >> 33) % 50, len = (seed >> 20) % 8;
    b[i] = (irm_mem_buffer_){(size_t)((seed >> 40) % 5000), first, first + len, 0, (seed >> 10) % 4 == 0 ? 64 : 0, 0};
  }
}

START_TEST(test_no_two_live_buffers_overlap) {
  enum { N = 200 };
  irm_mem_buffer_ b[N];
  for (uint64_t seed = 1; seed <= 30; seed++) {
    size_t totals[4];
    for (int algo = 0; algo < 4; algo++) {
      random_buffers(b, N, seed);
      ck_assert_ok(irm_memory_plan_(b, N, 16, (irm_mem_algo_)algo, &totals[algo]));
      assert_valid(b, N, 16, totals[algo]);
      for (size_t i = 0; i < N; i++) /* one storage, one offset; every algorithm but storage_best_fit: its own */
        for (size_t j = 0; j < N; j++)
          if (b[i].storage == b[j].storage && b[i].offset != b[j].offset)
            ck_abort_msg("buffers %zu and %zu share storage %zu at offsets %zu and %zu", i, j, b[i].storage,
                         b[i].offset, b[j].offset);
      for (size_t i = 0; algo != IRM_MEM_STORAGE_BEST_FIT && i < N; i++) ck_assert_uint_eq(b[i].storage, i);
    }
    ck_assert_uint_le(totals[IRM_MEM_GREEDY_BY_SIZE], totals[IRM_MEM_NONE]);
    ck_assert_uint_le(totals[IRM_MEM_GREEDY_BY_CONFLICTS], totals[IRM_MEM_NONE]);
  }
}
END_TEST

/* The greedy rules written the plain way (every placed buffer compared
 * with each new one), which the planner's lifetime index must match. */
static int conflict_(const irm_mem_buffer_ *a, const irm_mem_buffer_ *b) {
  return a->first_use <= b->last_use && b->first_use <= a->last_use;
}

static size_t reference_greedy(irm_mem_buffer_ *b, size_t n, size_t align, int by_conflicts) {
  size_t *order = calloc(n, sizeof *order), *conflicts = calloc(n, sizeof *conflicts), end = 0;
  for (size_t i = 0; i < n; i++) {
    order[i] = i;
    for (size_t j = 0; j < n; j++) conflicts[i] += j != i && conflict_(&b[i], &b[j]);
  }
  for (size_t i = 1; i < n; i++) /* insertion sort by the planner's keys */
    for (size_t k = i; k > 0; k--) {
      const irm_mem_buffer_ *x = &b[order[k]], *y = &b[order[k - 1]];
      int before = by_conflicts && conflicts[order[k]] != conflicts[order[k - 1]]
                       ? conflicts[order[k]] > conflicts[order[k - 1]]
                   : x->bytes != y->bytes         ? x->bytes > y->bytes
                   : x->first_use != y->first_use ? x->first_use < y->first_use
                                                  : order[k] < order[k - 1];
      if (!before) break;
      size_t t = order[k];
      order[k] = order[k - 1];
      order[k - 1] = t;
    }
  for (size_t k = 0; k < n; k++) {
    irm_mem_buffer_ *x = &b[order[k]];
    size_t a = x->align > align ? x->align : align, at = 0;
    for (int moved = 1; moved;) { /* the lowest aligned offset clear of every conflicting placed buffer */
      moved = 0;
      for (size_t j = 0; j < k; j++) {
        const irm_mem_buffer_ *o = &b[order[j]];
        if (o->bytes && conflict_(x, o) && at < o->offset + o->bytes && o->offset < at + x->bytes) {
          at = (o->offset + o->bytes + a - 1) / a * a;
          moved = 1;
        }
      }
    }
    x->offset = at;
    if (at + x->bytes > end) end = at + x->bytes;
  }
  free(order);
  free(conflicts);
  return end;
}

START_TEST(test_greedy_matches_the_plain_rules) {
  enum { N = 300 };
  static irm_mem_buffer_ b[N], r[N];
  for (uint64_t seed = 1; seed <= 20; seed++)
    for (int algo = IRM_MEM_GREEDY_BY_SIZE; algo <= IRM_MEM_GREEDY_BY_CONFLICTS; algo++) {
      random_buffers(b, N, seed);
      for (size_t i = 0; i < N; i += 37) b[i].last_use = b[i].first_use + 40; /* some long-lived ones */
      memcpy(r, b, sizeof b);
      size_t total = 0;
      ck_assert_ok(irm_memory_plan_(b, N, 16, (irm_mem_algo_)algo, &total));
      size_t want = reference_greedy(r, N, 16, algo == IRM_MEM_GREEDY_BY_CONFLICTS);
      ck_assert_uint_eq(total, want);
      for (size_t i = 0; i < N; i++)
        if (b[i].offset != r[i].offset)
          ck_abort_msg("buffer %zu at %zu, the plain rules put it at %zu", i, b[i].offset, r[i].offset);
    }
}
END_TEST

START_TEST(test_a_chain_reuses_memory) {
  /* a chain: each buffer lives from its step to the next */
  irm_mem_buffer_ b[10];
  for (size_t i = 0; i < 10; i++) b[i] = (irm_mem_buffer_){1000, i, i + 1, 0, 0, 0};
  size_t none = 0, size = 0, conflicts = 0;
  ck_assert_ok(irm_memory_plan_(b, 10, 64, IRM_MEM_NONE, &none));
  ck_assert_uint_eq(none, 9 * 1024 + 1000);
  ck_assert_ok(irm_memory_plan_(b, 10, 64, IRM_MEM_GREEDY_BY_SIZE, &size));
  ck_assert_uint_eq(size, 1024 + 1000); /* two buffers alternate */
  ck_assert_ok(irm_memory_plan_(b, 10, 64, IRM_MEM_GREEDY_BY_CONFLICTS, &conflicts));
  ck_assert_uint_eq(conflicts, 1024 + 1000);
  ck_assert_ok(irm_memory_plan_(b, 10, 64, IRM_MEM_STORAGE_BEST_FIT, &size));
  ck_assert_uint_eq(size, 1024 + 1000);
  ck_assert_ok(irm_memory_plan_(b, 0, 64, IRM_MEM_GREEDY_BY_SIZE, &size));
  ck_assert_uint_eq(size, 0);
}
END_TEST

/* storage_best_fit takes the smallest free storage that fits, else the
 * largest free one (grown), else a new one; a storage is free once its
 * last buffer is dead; buffers go by first use. */
START_TEST(test_storage_best_fit) {
  irm_mem_buffer_ b[6] = {
      {300, 5, 5, 0, 0, 0}, /* F: none free fits: the largest (s1) grown */
      {100, 0, 1, 0, 0, 0}, /* A: a new storage s0 */
      {50, 1, 2, 0, 0, 0},  /* B: s0 is live: s1 */
      {80, 2, 3, 0, 0, 0},  /* C: s0 free and fits */
      {200, 3, 3, 0, 0, 0}, /* D: s1 is the only free one: grown */
      {10, 4, 4, 0, 0, 0},  /* E: both free and fit: the smaller, s0 */
  };
  static const size_t storage[6] = {1, 0, 1, 0, 1, 0};
  size_t total = 0;
  ck_assert_ok(irm_memory_plan_(b, 6, 16, IRM_MEM_STORAGE_BEST_FIT, &total));
  for (size_t i = 0; i < 6; i++) ck_assert_uint_eq(b[i].storage, storage[i]);
  ck_assert_uint_eq(b[1].offset, 0);
  ck_assert_uint_eq(b[0].offset, 112); /* s1 after s0's 100 bytes, 16-aligned */
  ck_assert_uint_eq(total, 412);
  ck_assert_str_eq(irm_mem_algo_name_(IRM_MEM_STORAGE_BEST_FIT), "storage_best_fit");
  irm_mem_algo_ a;
  ck_assert_int_eq(irm_mem_algo_parse_("storage_best_fit", &a), IRM_EVALUE); /* no usmp.algorithm */
}
END_TEST

START_TEST(test_errors) {
  irm_mem_buffer_ b[1] = {{10, 3, 2, 0, 0, 0}};
  size_t total = 0;
  ck_assert_error(irm_memory_plan_(b, 1, 16, IRM_MEM_NONE, &total), IRM_EVALUE, "ValueError: memory plan: buffer 0");
  b[0] = (irm_mem_buffer_){10, 1, 2, 0, 0, 0};
  ck_assert_error(irm_memory_plan_(b, 1, 24, IRM_MEM_NONE, &total), IRM_EVALUE,
                  "ValueError: memory plan: alignment 24 is not a power of two");
  b[0].align = 3;
  ck_assert_int_eq(irm_memory_plan_(b, 1, 16, IRM_MEM_NONE, &total), IRM_EVALUE);
  irm_mem_algo_ a;
  ck_assert_error(irm_mem_algo_parse_("greedy_by_conflict", &a), IRM_EVALUE,
                  "ValueError: unknown memory planning algorithm 'greedy_by_conflict' (usmp.algorithm); did you mean "
                  "'greedy_by_conflicts'?");
  ck_assert_int_eq(irm_mem_algo_parse_("hill_climb", &a), IRM_EVALUE);
  ck_assert_error_mentions("valid: none, greedy_by_size, greedy_by_conflicts");
  ck_assert_ok(irm_mem_algo_parse_("greedy_by_size", &a));
  ck_assert_int_eq(a, IRM_MEM_GREEDY_BY_SIZE);
  ck_assert_str_eq(irm_mem_algo_name_(IRM_MEM_GREEDY_BY_CONFLICTS), "greedy_by_conflicts");
}
END_TEST

START_TEST(test_module_attributes_pick_the_algorithm) {
  irm_module *m = NULL, *a = NULL, *b = NULL;
  irm_object *fns = NULL;
  ck_assert_ok(irm_map_new(&fns));
  ck_assert_ok(irm_module_new(fns, NULL, &m));
  irm_mem_algo_ algo = IRM_MEM_GREEDY_BY_SIZE;
  ck_assert_ok(irm_mem_algo_of_module_(m, &algo));
  ck_assert_int_eq(algo, IRM_MEM_GREEDY_BY_CONFLICTS); /* planned by default, with the default algorithm */
  irm_any on = irm_any_bool(true), off = irm_any_bool(false), name = irm_any_str("greedy_by_size"),
          bad = irm_any_str("nope_algo");
  ck_assert_ok(irm_module_with_attr(m, "usmp.enable", &off, &a));
  ck_assert_ok(irm_mem_algo_of_module_(a, &algo));
  ck_assert_int_eq(algo, IRM_MEM_NONE); /* usmp.enable = false: one place per buffer */
  irm_object_release(a);
  ck_assert_ok(irm_module_with_attr(m, "usmp.enable", &on, &a));
  ck_assert_ok(irm_mem_algo_of_module_(a, &algo));
  ck_assert_int_eq(algo, IRM_MEM_GREEDY_BY_CONFLICTS);
  ck_assert_ok(irm_module_with_attr(a, "usmp.algorithm", &name, &b));
  ck_assert_ok(irm_mem_algo_of_module_(b, &algo));
  ck_assert_int_eq(algo, IRM_MEM_GREEDY_BY_SIZE);
  irm_object_release(b);
  ck_assert_ok(irm_module_with_attr(a, "usmp.algorithm", &bad, &b));
  ck_assert_int_eq(irm_mem_algo_of_module_(b, &algo), IRM_EVALUE);
  irm_object_release(b);
  irm_object_release(a);
  irm_object_release(m);
  irm_object_release(fns);
}
END_TEST

int main(void) {
  Suite *s = suite_create("memory_plan");
  TCase *tc = tcase_create("memory_plan");
  tcase_add_test(tc, test_no_two_live_buffers_overlap);
  tcase_add_test(tc, test_a_chain_reuses_memory);
  tcase_add_test(tc, test_greedy_matches_the_plain_rules);
  tcase_add_test(tc, test_storage_best_fit);
  tcase_add_test(tc, test_errors);
  tcase_add_test(tc, test_module_attributes_pick_the_algorithm);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
