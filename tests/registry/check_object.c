/* Objects (object.h): payloads, reference counts, finalizers, release of
 * deep structures without recursion, and counts under threads. */
#include <check.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

#include "check_object_util.h"

/* ---- objects ------------------------------------------------------------ */

typedef struct point {
  double x, y;
  int64_t tag;
  char name[40];
} point;

START_TEST(test_object_new_gives_a_zeroed_aligned_payload) {
  int32_t t = ensure_type("test.Point", NULL, NULL);
  irm_object *o = new_object(t, sizeof(point));
  unsigned char *bytes = irm_object_payload(o);
  ck_assert_ptr_nonnull(bytes);
  for (size_t i = 0; i < sizeof(point); i++) ck_assert_uint_eq(bytes[i], 0);
  ck_assert_uint_eq((uintptr_t)bytes % alignof(max_align_t), 0);

  point *p = irm_object_payload(o);
  p->x = 1.5;
  p->y = -2.0;
  p->tag = 77;
  strcpy(p->name, "origin");
  const point *q = irm_object_payload_const(o);
  ck_assert_ptr_eq(q, p);
  ck_assert_double_eq(q->x, 1.5);
  ck_assert_double_eq(q->y, -2.0);
  ck_assert_int_eq(q->tag, 77);
  ck_assert_str_eq(q->name, "origin");
  irm_object_release(o);
}
END_TEST

START_TEST(test_object_new_has_count_one_and_its_type) {
  int32_t dog = dog_type();
  irm_object *o = new_object(dog, 16);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  ck_assert_int_eq(irm_object_type_index(o), dog);
  ck_assert_str_eq(irm_object_type_key(o), "test.Dog");
  irm_object_release(o);
}
END_TEST

START_TEST(test_object_new_with_empty_payload) {
  irm_object *o = new_object(animal_type(), 0);
  ck_assert_str_eq(irm_object_type_key(o), "test.Animal");
  irm_object_release(o);
}
END_TEST

START_TEST(test_object_new_of_unknown_type_is_key_error) {
  irm_object *o = NULL;
  ck_assert_error(irm_object_new(1000000, 8, &o), IRM_EKEY, "KeyError: ");
  ck_assert_error(irm_object_new(-1, 8, &o), IRM_EKEY, "KeyError: ");
}
END_TEST

START_TEST(test_object_retain_and_release_count) {
  irm_object *o = new_node(NULL, 0);
  irm_object_retain(o);
  irm_object_retain(o);
  ck_assert_uint_eq(irm_object_refcount(o), 3);
  irm_object_release(o);
  ck_assert_uint_eq(irm_object_refcount(o), 2);
  irm_object_release(o);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

START_TEST(test_object_finalize_runs_exactly_once_on_last_release) {
  irm_object *o = new_node(NULL, 0);
  irm_object_retain(o);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

START_TEST(test_object_finalize_can_release_children) {
  irm_object *leaf = new_node(NULL, 1);
  irm_object *mid = new_node(leaf, 2);
  irm_object *root = new_node(mid, 3);
  irm_object_retain(leaf); /* keep the leaf to watch it */
  irm_object_release(root);
  ck_assert_int_eq(atomic_load(&finalized), 2);
  ck_assert_uint_eq(irm_object_refcount(leaf), 1);
  ck_assert_int_eq(((node *)irm_object_payload(leaf))->value, 1);
  irm_object_release(leaf);
  ck_assert_int_eq(atomic_load(&finalized), 3);
}
END_TEST

START_TEST(test_object_finalize_can_release_builtin_children) {
  irm_any item = irm_any_object(new_node(NULL, 0));
  irm_object *arr = NULL;
  ck_assert_int_eq(irm_array_new(&item, 1, &arr), 0);
  irm_object_release(item.v_obj); /* the Array holds it now */
  irm_object *root = new_node(arr, 1);
  irm_object_release(root);
  ck_assert_int_eq(atomic_load(&finalized), 2);
}
END_TEST

START_TEST(test_object_null_is_ignored_or_reported) {
  irm_object_retain(NULL);
  irm_object_release(NULL);
  ck_assert_ptr_null(irm_object_type_key(NULL));
  ck_assert_int_eq(irm_object_type_index(NULL), -1);
}
END_TEST

START_TEST(test_builtin_objects_carry_builtin_type_indices) {
  irm_object *s = new_string("x"), *arr = NULL, *map = NULL, *f = NULL;
  ck_assert_int_eq(irm_array_new(NULL, 0, &arr), 0);
  ck_assert_int_eq(irm_map_new(&map), 0);
  ck_assert_int_eq(irm_func_get_global("ffi.Array", &f), 0);
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(irm_object_type_index(s), IRM_TYPE_STRING);
  ck_assert_int_eq(irm_object_type_index(arr), IRM_TYPE_ARRAY);
  ck_assert_int_eq(irm_object_type_index(map), IRM_TYPE_MAP);
  ck_assert_int_eq(irm_object_type_index(f), IRM_TYPE_FUNCTION);
  ck_assert_str_eq(irm_object_type_key(s), "ffi.String");
  ck_assert_str_eq(irm_object_type_key(arr), "ffi.Array");
  ck_assert_str_eq(irm_object_type_key(map), "ffi.Map");
  ck_assert_str_eq(irm_object_type_key(f), "ffi.Function");
  irm_object_release(f);
  irm_object_release(map);
  irm_object_release(arr);
  irm_object_release(s);
}
END_TEST

/* ---- deep structures ---------------------------------------------------- */

enum { deep = 1000000 };

START_TEST(test_release_of_a_million_nested_arrays_does_not_recurse) {
  /* The innermost value is a node, so its finalizer shows that the whole
   * chain was freed. */
  irm_object *prev = new_node(NULL, 0);
  for (int i = 0; i < deep; i++) {
    irm_any item = irm_any_object(prev);
    irm_object *next = NULL;
    int rc = irm_array_new(&item, 1, &next);
    ck_require(rc == 0, "irm_array_new at depth %d: %s", i, irm_last_error());
    irm_object_release(prev);
    prev = next;
  }
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(prev);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

START_TEST(test_release_of_a_million_nested_user_objects_does_not_recurse) {
  irm_object *prev = NULL;
  for (int i = 0; i < deep; i++) prev = new_node(prev, i);
  irm_object_release(prev);
  ck_assert_int_eq(atomic_load(&finalized), deep);
}
END_TEST

START_TEST(test_release_of_a_deep_mixed_chain_does_not_recurse) {
  /* node -> Array -> node -> Array ...: deferral must work across the
   * library's own types and user finalizers alike. */
  irm_object *prev = NULL;
  for (int i = 0; i < deep / 2; i++) {
    irm_object *n = new_node(prev, i);
    irm_any item = irm_any_object(n);
    irm_object *arr = NULL;
    int rc = irm_array_new(&item, 1, &arr);
    ck_require(rc == 0, "irm_array_new at depth %d: %s", i, irm_last_error());
    irm_object_release(n);
    prev = arr;
  }
  irm_object_release(prev);
  ck_assert_int_eq(atomic_load(&finalized), deep / 2);
}
END_TEST

/* ---- threads ------------------------------------------------------------ */

enum { n_threads = 4, per_thread = 1000000 };

typedef struct refcount_job {
  irm_object *obj;
  int mode; /* 0: retain+release pairs, 1: retain only, 2: release only */
} refcount_job;

static void *refcount_worker(void *arg) {
  refcount_job *job = arg;
  for (int i = 0; i < per_thread; i++) {
    if (job->mode != 2) irm_object_retain(job->obj);
    if (job->mode != 1) irm_object_release(job->obj);
  }
  return NULL;
}

static void run_refcount_workers(irm_object *obj, int mode) {
  pthread_t t[n_threads];
  refcount_job job = {obj, mode};
  for (int i = 0; i < n_threads; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, refcount_worker, &job), 0);
  for (int i = 0; i < n_threads; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
}

START_TEST(test_refcount_is_exact_under_four_threads) {
  irm_object *o = new_node(NULL, 0);
  run_refcount_workers(o, 0);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  run_refcount_workers(o, 1);
  ck_assert_uint_eq(irm_object_refcount(o), 1u + n_threads * per_thread);
  run_refcount_workers(o, 2);
  ck_assert_uint_eq(irm_object_refcount(o), 1);
  ck_assert_int_eq(atomic_load(&finalized), 0);
  irm_object_release(o);
  ck_assert_int_eq(atomic_load(&finalized), 1);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

static Suite *object_suite(void) {
  Suite *s = suite_create("object");

  TCase *tc = tcase_create("objects");
  tcase_add_test(tc, test_object_new_gives_a_zeroed_aligned_payload);
  tcase_add_test(tc, test_object_new_has_count_one_and_its_type);
  tcase_add_test(tc, test_object_new_with_empty_payload);
  tcase_add_test(tc, test_object_new_of_unknown_type_is_key_error);
  tcase_add_test(tc, test_object_retain_and_release_count);
  tcase_add_test(tc, test_object_finalize_runs_exactly_once_on_last_release);
  tcase_add_test(tc, test_object_finalize_can_release_children);
  tcase_add_test(tc, test_object_finalize_can_release_builtin_children);
  tcase_add_test(tc, test_object_null_is_ignored_or_reported);
  tcase_add_test(tc, test_builtin_objects_carry_builtin_type_indices);
  suite_add_tcase(s, tc);

  tc = tcase_create("deep");
  tcase_add_test(tc, test_release_of_a_million_nested_arrays_does_not_recurse);
  tcase_add_test(tc, test_release_of_a_million_nested_user_objects_does_not_recurse);
  tcase_add_test(tc, test_release_of_a_deep_mixed_chain_does_not_recurse);
  suite_add_tcase(s, tc);

  tc = tcase_create("threads");
  tcase_add_test(tc, test_refcount_is_exact_under_four_threads);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(object_suite()); }
