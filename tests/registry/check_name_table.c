/* The name table every registry is built on (registry/internal/name_table.h):
 * adding under each duplicate policy, removing, ordered listing, lookup,
 * closest names, journal rollback, plugin attribution, out of memory at
 * every allocation, and concurrent use. The table is private to libirm,
 * so this suite compiles it (and the journal it records in) itself. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "check_alloc_util.h"
#include "error_internal.h"
#include "journal_internal.h"
#include "name_table.h"

/* ---- stand-ins for what the table uses from the rest of libirm ------------- */

static const char *loading_plugin; /* what the plugin loader would report */
const char *irm_plugin_current_name_(void) { return loading_plugin; }
int irm_error_nomem_(const char *what) { return irm_error(IRM_ENOMEM, "out of memory %s", what); }

/* ---- counted values ---------------------------------------------------------- */

typedef struct value {
  atomic_int refs;
  int id;
} value;

static atomic_int values_alive;
static irm_name_table *lock_watch; /* release must find this table unlocked */

static value *value_new(int id) {
  value *v = malloc(sizeof *v);
  ck_assert_ptr_nonnull(v);
  atomic_init(&v->refs, 1);
  v->id = id;
  atomic_fetch_add(&values_alive, 1);
  return v;
}

static void value_retain(void *p) { atomic_fetch_add(&((value *)p)->refs, 1); }

static void value_release(void *p) {
  value *v = p;
  if (lock_watch) {
    int free_lock = pthread_rwlock_trywrlock(&lock_watch->lock) == 0;
    if (free_lock) pthread_rwlock_unlock(&lock_watch->lock);
    ck_require(free_lock, "a value was released while the table was locked");
  }
  if (atomic_fetch_sub(&v->refs, 1) == 1) {
    atomic_fetch_sub(&values_alive, 1);
    free(v);
  }
}

static const irm_name_hooks counted_hooks = {value_retain, value_release, NULL};

/* A counted table, watched for releases under its lock. */
static irm_name_table table;

static void setup(void) {
  irm_name_table_init_(&table, &counted_hooks);
  lock_watch = &table;
  loading_plugin = NULL;
}

static void teardown(void) {
  lock_watch = NULL;
  irm_name_table_destroy_(&table);
}

/* Adds name -> a new value id (the table keeps its own reference). */
static int add(const char *name, int id, irm_name_policy policy) {
  value *v = value_new(id);
  int rc = irm_name_table_add_(&table, name, v, policy, NULL, NULL);
  value_release(v);
  return rc;
}

/* The id name maps to, or -1. */
static int id_of(const char *name) {
  value *v = irm_name_table_get_(&table, name);
  int id = v ? v->id : -1;
  if (v) value_release(v);
  return id;
}

/* The names in table order joined by ',' into buf. */
static const char *listing(char *buf, size_t size) {
  irm_name_snapshot s;
  ck_assert_int_eq(irm_name_table_snapshot_(&table, &s), IRM_OK);
  buf[0] = '\0';
  for (size_t i = 0; i < s.n; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, size - used, "%s%s", i ? "," : "", s.names[i]);
  }
  irm_name_snapshot_free_(&table, &s);
  return buf;
}

/* ---- adding and looking up ---------------------------------------------------- */

START_TEST(test_add_then_get_returns_the_value) {
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_int_eq(id_of("alpha"), 1);
  ck_assert_int_eq(id_of("beta"), -1);
  ck_assert_uint_eq(irm_name_table_count_(&table), 1);
}
END_TEST

START_TEST(test_unique_policy_rejects_a_taken_name_and_reports_it) {
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  value *v = value_new(2);
  irm_name_existing was;
  ck_assert_int_eq(irm_name_table_add_(&table, "alpha", v, IRM_NAME_UNIQUE, &was, NULL), IRM_EKEY);
  ck_assert_int_eq(((value *)was.value)->id, 1);
  ck_assert_ptr_null(was.plugin);
  value_release(was.value);
  value_release(v);
  ck_assert_int_eq(id_of("alpha"), 1);
  ck_assert_int_eq(atomic_load(&values_alive), 1);
}
END_TEST

START_TEST(test_override_replaces_and_releases_the_old_value_unlocked) {
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_int_eq(add("alpha", 2, IRM_NAME_OVERRIDE), IRM_OK);
  ck_assert_int_eq(id_of("alpha"), 2);
  ck_assert_int_eq(atomic_load(&values_alive), 1); /* value 1 is gone */
  ck_assert_uint_eq(irm_name_table_count_(&table), 1);
}
END_TEST

START_TEST(test_existing_policy_keeps_the_entry_and_returns_it) {
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  value *v = value_new(2);
  irm_name_existing was;
  ck_assert_int_eq(irm_name_table_add_(&table, "alpha", v, IRM_NAME_EXISTING, &was, NULL), IRM_OK);
  ck_assert_int_eq(((value *)was.value)->id, 1);
  value_release(was.value);
  value_release(v);
  ck_assert_int_eq(id_of("alpha"), 1);
}
END_TEST

START_TEST(test_remove_drops_the_name_and_missing_is_key_error) {
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_int_eq(irm_name_table_remove_(&table, "alpha"), IRM_OK);
  ck_assert_int_eq(id_of("alpha"), -1);
  ck_assert_int_eq(atomic_load(&values_alive), 0);
  ck_assert_int_eq(irm_name_table_remove_(&table, "alpha"), IRM_EKEY);
}
END_TEST

START_TEST(test_listing_keeps_insertion_order_across_removal_and_override) {
  char buf[256];
  const char *names[] = {"delta", "alpha", "charlie", "bravo"};
  for (int i = 0; i < 4; i++) ck_assert_int_eq(add(names[i], i, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_str_eq(listing(buf, sizeof buf), "delta,alpha,charlie,bravo");
  ck_assert_int_eq(irm_name_table_remove_(&table, "alpha"), IRM_OK);
  ck_assert_int_eq(add("charlie", 9, IRM_NAME_OVERRIDE), IRM_OK);
  ck_assert_int_eq(add("echo", 5, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_str_eq(listing(buf, sizeof buf), "delta,charlie,bravo,echo");
}
END_TEST

static int count_visits(const irm_name_entry *e, void *ctx) {
  (void)e;
  return ++*(int *)ctx == 2 ? 7 : 0;
}

START_TEST(test_visit_stops_at_the_first_nonzero_result) {
  for (int i = 0; i < 3; i++) {
    char name[16];
    snprintf(name, sizeof name, "n%d", i);
    ck_assert_int_eq(add(name, i, IRM_NAME_UNIQUE), IRM_OK);
  }
  int visits = 0;
  ck_assert_int_eq(irm_name_table_visit_(&table, count_visits, &visits), 7);
  ck_assert_int_eq(visits, 2);
}
END_TEST

START_TEST(test_closest_suggests_a_near_name_and_nothing_for_a_far_one) {
  ck_assert_int_eq(add("unpacked-api", 1, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_int_eq(add("link-params", 2, IRM_NAME_UNIQUE), IRM_OK);
  char *best = NULL;
  ck_assert_int_eq(irm_name_table_closest_(&table, "unpaked-api", &best), IRM_OK);
  ck_assert_str_eq(best, "unpacked-api");
  irm_free(best);
  ck_assert_int_eq(irm_name_table_closest_(&table, "zzz", &best), IRM_OK);
  ck_assert_ptr_null(best);
}
END_TEST

/* ---- the journal --------------------------------------------------------------- */

START_TEST(test_rollback_undoes_an_add) {
  irm_journal *j = open_journal();
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_uint_eq(irm_journal_size(j), 1);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(id_of("alpha"), -1);
  ck_assert_int_eq(atomic_load(&values_alive), 0);
}
END_TEST

START_TEST(test_rollback_of_an_override_restores_the_old_value_and_plugin) {
  loading_plugin = "first";
  irm_journal *outer = open_journal();
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_ok(irm_journal_commit(outer));
  irm_journal *j = open_journal();
  loading_plugin = "second";
  ck_assert_int_eq(add("alpha", 2, IRM_NAME_OVERRIDE), IRM_OK);
  ck_assert_int_eq(id_of("alpha"), 2);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(id_of("alpha"), 1);
  ck_assert_int_eq(atomic_load(&values_alive), 1);
  irm_name_existing was;
  value *v = value_new(3);
  ck_assert_int_eq(irm_name_table_add_(&table, "alpha", v, IRM_NAME_UNIQUE, &was, NULL), IRM_EKEY);
  ck_assert_str_eq(was.plugin, "first");
  value_release(was.value);
  value_release(v);
}
END_TEST

START_TEST(test_rollback_of_a_remove_brings_the_name_back) {
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  irm_journal *j = open_journal();
  ck_assert_int_eq(irm_name_table_remove_(&table, "alpha"), IRM_OK);
  ck_assert_int_eq(id_of("alpha"), -1);
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(id_of("alpha"), 1);
}
END_TEST

START_TEST(test_rollback_leaves_a_later_change_by_others_alone) {
  irm_journal *j = open_journal();
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  irm_journal_pause_(); /* as if another thread did this */
  ck_assert_int_eq(add("alpha", 2, IRM_NAME_OVERRIDE), IRM_OK);
  irm_journal_resume_();
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_int_eq(id_of("alpha"), 2);
}
END_TEST

START_TEST(test_commit_keeps_changes_and_failures_record_nothing) {
  ck_assert_int_eq(add("alpha", 1, IRM_NAME_UNIQUE), IRM_OK);
  irm_journal *j = open_journal();
  ck_assert_int_eq(add("alpha", 2, IRM_NAME_UNIQUE), IRM_EKEY);
  ck_assert_int_eq(irm_name_table_remove_(&table, "missing"), IRM_EKEY);
  ck_assert_uint_eq(irm_journal_size(j), 0);
  ck_assert_int_eq(add("beta", 3, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_ok(irm_journal_commit(j));
  ck_assert_int_eq(id_of("beta"), 3);
}
END_TEST

START_TEST(test_plugin_is_recorded_only_inside_a_journal) {
  loading_plugin = "micro-aot";
  ck_assert_int_eq(add("outside", 1, IRM_NAME_UNIQUE), IRM_OK); /* a paused or absent journal: a built-in */
  irm_journal *j = open_journal();
  ck_assert_int_eq(add("inside", 2, IRM_NAME_UNIQUE), IRM_OK);
  ck_assert_ok(irm_journal_commit(j));
  irm_name_snapshot s;
  ck_assert_int_eq(irm_name_table_snapshot_(&table, &s), IRM_OK);
  ck_assert_ptr_null(s.plugins[0]);
  ck_assert_str_eq(s.plugins[1], "micro-aot");
  irm_name_snapshot_free_(&table, &s);
  char buf[64];
  ck_assert_str_eq(irm_name_by_plugin_("micro-aot", buf, sizeof buf), " (by plugin 'micro-aot')");
  ck_assert_str_eq(irm_name_by_plugin_(NULL, buf, sizeof buf), "");
}
END_TEST

/* ---- kept tables ------------------------------------------------------------------ */

static int detach_calls;
static void count_detach(void *v) {
  (void)v;
  detach_calls++;
}
static const irm_name_hooks kept_hooks = {NULL, NULL, count_detach};

START_TEST(test_kept_table_keeps_a_rolled_back_value_and_reports_it) {
  irm_name_table kept;
  irm_name_table_init_(&kept, &kept_hooks);
  static int payload = 42;
  irm_name_entry *e = NULL;
  irm_journal *j = open_journal();
  ck_assert_int_eq(irm_name_table_add_(&kept, "alpha", &payload, IRM_NAME_UNIQUE, NULL, &e), IRM_OK);
  const char *name = e->name;
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_ptr_null(irm_name_table_get_(&kept, "alpha"));
  ck_assert_str_eq(name, "alpha"); /* still readable */
  ck_assert_int_eq(detach_calls, 1);
  /* no replacing in a kept table: override acts as unique */
  ck_assert_int_eq(irm_name_table_add_(&kept, "beta", &payload, IRM_NAME_UNIQUE, NULL, NULL), IRM_OK);
  ck_assert_int_eq(irm_name_table_add_(&kept, "beta", &detach_calls, IRM_NAME_OVERRIDE, NULL, NULL), IRM_EKEY);
  ck_assert_ptr_eq(irm_name_table_get_(&kept, "beta"), &payload);
  /* a removed name is set aside, and a rollback brings it back */
  ck_assert_int_eq(irm_name_table_add_(&kept, "gamma", &payload, IRM_NAME_UNIQUE, NULL, NULL), IRM_OK);
  j = open_journal();
  ck_assert_int_eq(irm_name_table_remove_(&kept, "beta"), IRM_OK);
  ck_assert_int_eq(irm_name_table_remove_(&kept, "gamma"), IRM_OK);
  ck_assert_ptr_null(irm_name_table_get_(&kept, "beta"));
  ck_assert_ok(irm_journal_rollback(j));
  ck_assert_ptr_eq(irm_name_table_get_(&kept, "beta"), &payload);
  ck_assert_ptr_eq(irm_name_table_get_(&kept, "gamma"), &payload);
  ck_assert_int_eq(irm_name_table_remove_(&kept, "gamma"), IRM_OK); /* aside for good */
  ck_assert_int_eq(detach_calls, 4);
  irm_name_table_destroy_(&kept);
}
END_TEST

/* ---- out of memory ----------------------------------------------------------------- */

typedef int (*table_op)(void);
static int op_add(void) { return add("new", 7, IRM_NAME_UNIQUE); }
static int op_override(void) { return add("b", 7, IRM_NAME_OVERRIDE); }
static int op_remove(void) { return irm_name_table_remove_(&table, "b"); }
static int op_first_add(void) { return add("first", 7, IRM_NAME_UNIQUE); }

static int compare_chars(const void *a, const void *b) { return *(const char *)a - *(const char *)b; }

/* Runs op with the Nth allocation failing for N = 1, 2, ... until it
 * succeeds, inside a journal that is rolled back; each failure must be
 * IRM_ENOMEM and leave table, journal and memory as they were. */
static void sweep(table_op op, int fill) {
  char before[512], after[512];
  for (int i = 0; i < fill; i++) {
    char name[8];
    snprintf(name, sizeof name, "%c", 'a' + i);
    ck_assert_int_eq(add(name, i, IRM_NAME_UNIQUE), IRM_OK);
  }
  listing(before, sizeof before);
  int alive = atomic_load(&values_alive);
  for (long n = 1;; n++) {
    ck_require(n < 100, "the operation never succeeded");
    settle_error(); /* a message stored during the failure is not a leak */
    long blocks = atomic_load(&live_blocks);
    irm_journal *j = open_journal();
    fail_nth_from_now(n);
    int rc = op();
    stop_failing();
    if (rc == IRM_OK) {
      ck_assert_int_eq(irm_journal_rollback(j), IRM_OK);
      /* the same names; a name a rollback brings back comes last */
      listing(after, sizeof after);
      qsort(before, strlen(before), 1, compare_chars);
      qsort(after, strlen(after), 1, compare_chars);
      ck_assert_str_eq(after, before);
      ck_assert_int_eq(atomic_load(&values_alive), alive);
      return;
    }
    ck_require(rc == IRM_ENOMEM, "failure %ld gave %d, not IRM_ENOMEM", n, rc);
    ck_require(irm_journal_size(j) == 0, "failure %ld left a journal record", n);
    ck_require(strcmp(listing(after, sizeof after), before) == 0, "failure %ld changed the table", n);
    ck_require(atomic_load(&values_alive) == alive, "failure %ld lost a value", n);
    ck_assert_int_eq(irm_journal_rollback(j), IRM_OK);
    settle_error();
    ck_require(atomic_load(&live_blocks) == blocks, "failure %ld leaked", n);
  }
}

START_TEST(test_out_of_memory_at_each_allocation_of_an_add_changes_nothing) { sweep(op_add, 12); }
END_TEST
START_TEST(test_out_of_memory_while_making_the_hash_table_changes_nothing) { sweep(op_first_add, 0); }
END_TEST
START_TEST(test_out_of_memory_at_each_allocation_of_an_override_changes_nothing) { sweep(op_override, 3); }
END_TEST
START_TEST(test_out_of_memory_at_each_allocation_of_a_remove_changes_nothing) { sweep(op_remove, 3); }
END_TEST

/* ---- threads ----------------------------------------------------------------------- */

enum { THREADS = 4, PER_THREAD = 2000 };

static void *add_and_look_up(void *arg) {
  int t = (int)(intptr_t)arg;
  long misses = 0;
  for (int i = 0; i < PER_THREAD; i++) {
    char name[32];
    snprintf(name, sizeof name, "t%d.n%d", t, i);
    if (add(name, t * PER_THREAD + i, IRM_NAME_UNIQUE) != IRM_OK) misses++;
    if (id_of(name) != t * PER_THREAD + i) misses++;
    snprintf(name, sizeof name, "t%d.n%d", (t + 1) % THREADS, i / 2); /* another thread's */
    int id = id_of(name);
    if (id != -1 && id != ((t + 1) % THREADS) * PER_THREAD + i / 2) misses++;
  }
  return (void *)(intptr_t)misses;
}

START_TEST(test_four_threads_add_and_look_up_concurrently) {
  lock_watch = NULL; /* other threads hold the lock legitimately */
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    ck_assert_int_eq(pthread_create(&threads[t], NULL, add_and_look_up, (void *)(intptr_t)t), 0);
  long misses = 0;
  for (int t = 0; t < THREADS; t++) {
    void *r = NULL;
    pthread_join(threads[t], &r);
    misses += (long)(intptr_t)r;
  }
  ck_assert_int_eq(misses, 0);
  ck_assert_uint_eq(irm_name_table_count_(&table), THREADS * PER_THREAD);
  irm_name_snapshot s;
  ck_assert_int_eq(irm_name_table_snapshot_(&table, &s), IRM_OK);
  int last[THREADS] = {-1, -1, -1, -1}; /* each thread's names in its order */
  for (size_t i = 0; i < s.n; i++) {
    int id = ((value *)s.values[i])->id;
    ck_require(id % PER_THREAD > last[id / PER_THREAD], "listing out of insertion order");
    last[id / PER_THREAD] = id % PER_THREAD;
  }
  irm_name_snapshot_free_(&table, &s);
}
END_TEST

/* One test case of tests that share the table fixture. */
static void add_case(Suite *s, const char *name, const TTest *const *tests, size_t n) {
  TCase *tc = tcase_create(name);
  tcase_add_checked_fixture(tc, setup, teardown);
  for (size_t i = 0; i < n; i++) tcase_add_test(tc, tests[i]);
  suite_add_tcase(s, tc);
}

#define ADD_CASE(s, name, ...)                                       \
  do {                                                               \
    const TTest *const tests_[] = {__VA_ARGS__};                     \
    add_case((s), (name), tests_, sizeof tests_ / sizeof tests_[0]); \
  } while (0)

static Suite *name_table_suite(void) {
  Suite *s = suite_create("name_table");
  ADD_CASE(s, "basics", test_add_then_get_returns_the_value, test_unique_policy_rejects_a_taken_name_and_reports_it,
           test_override_replaces_and_releases_the_old_value_unlocked,
           test_existing_policy_keeps_the_entry_and_returns_it, test_remove_drops_the_name_and_missing_is_key_error,
           test_listing_keeps_insertion_order_across_removal_and_override, test_visit_stops_at_the_first_nonzero_result,
           test_closest_suggests_a_near_name_and_nothing_for_a_far_one);
  ADD_CASE(s, "journal", test_rollback_undoes_an_add, test_rollback_of_an_override_restores_the_old_value_and_plugin,
           test_rollback_of_a_remove_brings_the_name_back, test_rollback_leaves_a_later_change_by_others_alone,
           test_commit_keeps_changes_and_failures_record_nothing, test_plugin_is_recorded_only_inside_a_journal,
           test_kept_table_keeps_a_rolled_back_value_and_reports_it);
  ADD_CASE(s, "out_of_memory", test_out_of_memory_at_each_allocation_of_an_add_changes_nothing,
           test_out_of_memory_while_making_the_hash_table_changes_nothing,
           test_out_of_memory_at_each_allocation_of_an_override_changes_nothing,
           test_out_of_memory_at_each_allocation_of_a_remove_changes_nothing);
  ADD_CASE(s, "threads", test_four_threads_add_and_look_up_concurrently);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_name_table")) return EXIT_FAILURE;
  return run_suite(name_table_suite());
}
