/* The global function registry under threads (c_api.h): look-ups, calls,
 * registrations, overrides and removals at once stay consistent, and every
 * function made is finalized. */
#include <check.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <irm/irm.h>

#include "check_util.h"

enum { conc_shared = 8, conc_workers = 4, conc_own = 4, conc_seconds = 2 };

static atomic_long conc_created;
static atomic_long conc_finalized;

typedef struct conc_res {
  int64_t k;
} conc_res;

static void conc_finalize(void *resource) {
  free(resource);
  atomic_fetch_add(&conc_finalized, 1);
}

static int64_t conc_k(int i) { return (int64_t)(i + 1) * 1000; }

/* x -> x + k; also reads the registry from inside the call. */
static int conc_add_k(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const conc_res *r = resource;
  int64_t x;
  int rc;
  if (nargs != 1) return irm_error(IRM_EVALUE, "expected 1 argument");
  if ((rc = irm_any_to_int(&args[0], &x)) != 0) return rc;
  *ret = irm_any_int(x + r->k);
  return 0;
}

static int conc_make(int64_t k, irm_object **out) {
  conc_res *r = malloc(sizeof *r);
  if (r == NULL) return irm_error(IRM_ENOMEM, "test allocation");
  r->k = k;
  int rc = irm_func_new_packed(conc_add_k, r, conc_finalize, out);
  if (rc != 0) {
    free(r);
    return rc;
  }
  atomic_fetch_add(&conc_created, 1);
  return 0;
}

typedef struct conc_thread {
  int id;
  long calls;
  long registrations;
  long failures;
  char first_failure[512];
} conc_thread;

__attribute__((format(printf, 2, 3))) static void conc_fail(conc_thread *t, const char *fmt, ...) {
  if (t->failures++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->first_failure, sizeof t->first_failure, fmt, ap);
    va_end(ap);
  }
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void conc_shared_name(char *buf, size_t size, int i) { snprintf(buf, size, "conc.shared.%d", i); }

static void conc_call_shared(conc_thread *t, unsigned *seed) {
  char name[64];
  for (int i = 0; i < conc_shared; i++) {
    int64_t x = (int64_t)(rand_r(seed) % 100000);
    irm_any arg = irm_any_int(x);
    irm_any ret = irm_any_none();
    int rc;
    conc_shared_name(name, sizeof name, i);
    if ((i + t->id) % 2 == 0) {
      irm_object *f = NULL;
      if ((rc = irm_func_get_global(name, &f)) != 0 || f == NULL) {
        conc_fail(t, "lookup of %s: %d %s", name, rc, irm_last_error());
        continue;
      }
      rc = irm_func_call(f, &arg, 1, &ret);
      irm_object_release(f);
    } else {
      rc = irm_func_call_global(name, &arg, 1, &ret);
    }
    if (rc != 0) {
      conc_fail(t, "call of %s: %d %s", name, rc, irm_last_error());
    } else if (ret.type_code != IRM_INT || ret.v_int != x + conc_k(i)) {
      conc_fail(t, "%s(%lld) gave type %d value %lld", name, (long long)x, ret.type_code, (long long)ret.v_int);
    }
    irm_any_release(&ret);
    t->calls++;
  }
}

/* Registers, overrides, duplicates and removes one of the thread's own
 * names; only this thread touches them, so every outcome is known. */
static void conc_churn_own(conc_thread *t, long round) {
  char name[64];
  irm_object *f = NULL, *g = NULL, *got = NULL;
  int rc;
  snprintf(name, sizeof name, "conc.t%d.%ld", t->id, round % conc_own);
  if (conc_make(round, &f) != 0 || conc_make(round + 1, &g) != 0) {
    conc_fail(t, "make: %s", irm_last_error());
    goto done;
  }
  if ((rc = irm_func_register_global(name, f, 0)) != 0) conc_fail(t, "register %s: %d %s", name, rc, irm_last_error());
  rc = irm_func_register_global(name, g, 0);
  if (rc != IRM_EKEY || strncmp(irm_last_error(), "KeyError: ", 10) != 0 || strstr(irm_last_error(), name) == NULL)
    conc_fail(t, "duplicate %s: %d %s", name, rc, irm_last_error());
  if ((rc = irm_func_register_global(name, g, 1)) != 0) conc_fail(t, "override %s: %d %s", name, rc, irm_last_error());
  if ((rc = irm_func_get_global(name, &got)) != 0 || got != g)
    conc_fail(t, "lookup %s after override: %d %p", name, rc, (void *)got);
  irm_object_release(got);
  if ((rc = irm_func_remove_global(name)) != 0) conc_fail(t, "remove %s: %d %s", name, rc, irm_last_error());
  rc = irm_func_remove_global(name);
  if (rc != IRM_EKEY || strncmp(irm_last_error(), "KeyError: ", 10) != 0)
    conc_fail(t, "second remove %s: %d %s", name, rc, irm_last_error());
  t->registrations++;
done:
  irm_object_release(f);
  irm_object_release(g);
}

static void conc_check_listing(conc_thread *t) {
  irm_object *names = NULL;
  char name[64];
  if (irm_func_list_globals(&names) != 0) {
    conc_fail(t, "list: %s", irm_last_error());
    return;
  }
  for (size_t i = 1; i < irm_array_size(names); i++) {
    const char *prev = irm_string_data(irm_array_at(names, i - 1)->v_obj);
    const char *cur = irm_string_data(irm_array_at(names, i)->v_obj);
    if (prev == NULL || cur == NULL || strcmp(prev, cur) >= 0) conc_fail(t, "listing not sorted at %zu", i);
  }
  for (int i = 0; i < conc_shared; i++) {
    conc_shared_name(name, sizeof name, i);
    if (!array_has_string(names, name)) conc_fail(t, "%s not listed", name);
  }
  irm_object_release(names);
}

static void *conc_worker(void *arg) {
  conc_thread *t = arg;
  unsigned seed = (unsigned)t->id * 7919u + 1u;
  char keep[64];
  irm_object *f = NULL;
  double deadline = now_seconds() + conc_seconds;
  /* at least one round whatever the clock says (a busy host, valgrind) */
  for (long round = 0; round == 0 || now_seconds() < deadline; round++) {
    conc_call_shared(t, &seed);
    conc_churn_own(t, round);
    if (round % 16 == 0) conc_check_listing(t);
  }
  snprintf(keep, sizeof keep, "conc.t%d.keep", t->id);
  if (conc_make(7, &f) != 0 || irm_func_register_global(keep, f, 0) != 0)
    conc_fail(t, "register %s: %s", keep, irm_last_error());
  irm_object_release(f);
  return NULL;
}

/* Keeps replacing conc.shared.0 with an equivalent function. */
static void *conc_overrider(void *arg) {
  conc_thread *t = arg;
  char name[64];
  double deadline = now_seconds() + conc_seconds;
  conc_shared_name(name, sizeof name, 0);
  for (long round = 0; round == 0 || now_seconds() < deadline; round++) {
    irm_object *f = NULL;
    if (conc_make(conc_k(0), &f) != 0) {
      conc_fail(t, "make: %s", irm_last_error());
      continue;
    }
    int rc = irm_func_register_global(name, f, 1);
    if (rc != 0) conc_fail(t, "override %s: %d %s", name, rc, irm_last_error());
    irm_object_release(f);
    t->registrations++;
  }
  return NULL;
}

START_TEST(test_concurrent_lookups_calls_and_registrations_stay_consistent) {
  char name[64];
  pthread_t threads[conc_workers + 1];
  conc_thread state[conc_workers + 1];
  irm_object *before = NULL, *after = NULL;

  for (int i = 0; i < conc_shared; i++) {
    irm_object *f = NULL;
    conc_shared_name(name, sizeof name, i);
    ck_assert_ok(conc_make(conc_k(i), &f));
    ck_assert_ok(irm_func_register_global(name, f, 0));
    irm_object_release(f);
  }
  ck_assert_ok(irm_func_list_globals(&before));

  memset(state, 0, sizeof state);
  for (int i = 0; i <= conc_workers; i++) {
    state[i].id = i;
    ck_assert_int_eq(pthread_create(&threads[i], NULL, i < conc_workers ? conc_worker : conc_overrider, &state[i]), 0);
  }
  for (int i = 0; i <= conc_workers; i++) ck_assert_int_eq(pthread_join(threads[i], NULL), 0);

  for (int i = 0; i <= conc_workers; i++) {
    ck_assert_msg(state[i].failures == 0, "thread %d: %ld failures, first: %s", i, state[i].failures,
                  state[i].first_failure);
    if (i < conc_workers) {
      ck_assert_int_gt(state[i].calls, 0);
      ck_assert_int_gt(state[i].registrations, 0);
    }
  }
  ck_assert_int_gt(state[conc_workers].registrations, 0);

  /* exactly the names from before plus each worker's kept name */
  ck_assert_ok(irm_func_list_globals(&after));
  assert_sorted_strings(after);
  ck_assert_uint_eq(irm_array_size(after), irm_array_size(before) + conc_workers);
  for (size_t i = 0; i < irm_array_size(before); i++) {
    const char *want = irm_string_data(irm_array_at(before, i)->v_obj);
    ck_assert_msg(array_has_string(after, want), "'%s' went missing", want);
  }
  for (int t = 0; t < conc_workers; t++) {
    snprintf(name, sizeof name, "conc.t%d.keep", t);
    ck_assert_msg(array_has_string(after, name), "'%s' not listed", name);
  }
  irm_object_release(before);
  irm_object_release(after);

  /* every function made is finalized once the registry lets go */
  for (int i = 0; i < conc_shared; i++) {
    conc_shared_name(name, sizeof name, i);
    ck_assert_ok(irm_func_remove_global(name));
  }
  for (int t = 0; t < conc_workers; t++) {
    snprintf(name, sizeof name, "conc.t%d.keep", t);
    ck_assert_ok(irm_func_remove_global(name));
  }
  ck_assert_int_eq(atomic_load(&conc_finalized), atomic_load(&conc_created));
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *global_threads_suite(void) {
  Suite *s = suite_create("global_threads");

  TCase *tc = tcase_create("threads");
  tcase_add_test(tc, test_concurrent_lookups_calls_and_registrations_stay_consistent);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(global_threads_suite()); }
