/* Out of memory in the tensor code: making tensors (directly and through
 * ffi.Tensor), DLPack export and import, JSON both ways and repr. Each
 * sweep warms the operation up, then runs it with allocation N failing
 * (and, in the second mode, every allocation after N) for N = 1, 2, ...
 * until it succeeds without meeting a failure, and checks each time that
 * it either succeeded or reported MemoryError, leaked nothing and, for
 * DLPack import, left the producer with its owner.
 *
 * main() installs the counting allocator of check_alloc_util.h before any
 * other irm call. */
#include <check.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "check_alloc_util.h"
#include "check_tensor_util.h"

typedef int (*operation)(void);

static void sweep_mode(const char *what, operation op, fail_mode mode) {
  uint64_t salt = sweep_salt(what, mode);
  long failures_met = 0, tried = 0, n = mode == fail_nth ? 1 : 0;
  for (;; n = sweep_next(n, salt), tried++) {
    ck_require(n < sweep_cap, "%s: still meeting failures at N=%ld", what, n);
    settle_error();
    long live_before = atomic_load(&live_blocks), injected_before = atomic_load(&injected);
    if (mode == fail_nth) fail_nth_from_now(n);
    else fail_all_after(n);
    int rc = op();
    stop_failing();
    int hit = atomic_load(&injected) != injected_before;
    char message[512];
    snprintf(message, sizeof message, "%s", irm_last_error());
    if (rc != 0) {
      ck_require(rc == IRM_ENOMEM && strncmp(message, "MemoryError: ", 13) == 0, "%s (N=%ld): %d '%s'", what, n, rc,
                 message);
      ck_require(hit, "%s (N=%ld): failed although no allocation failed: %s", what, n, message);
    }
    settle_error();
    ck_require(atomic_load(&live_blocks) == live_before, "%s (N=%ld, status %d): %ld blocks live before, %ld after",
               what, n, rc, live_before, atomic_load(&live_blocks));
    ck_require(atomic_load(&foreign_frees) == 0, "%s: a block irm did not allocate was freed", what);
    failures_met += hit;
    if (rc == 0 && !hit) break;
  }
  ck_assert_msg(failures_met > 0, "%s: never allocated, nothing was tested", what);
  sweep_note(what, mode == fail_nth ? "fail allocation N" : "fail all after N", n, tried + 1, failures_met);
}

static void sweep(const char *what, operation op) {
  settle_error();
  ck_assert_msg(op() == 0, "%s without failures: %s", what, irm_last_error());
  sweep_mode(what, op, fail_nth);
  sweep_mode(what, op, fail_after);
}

/* ---- operations ------------------------------------------------------------ */

static const int64_t shape23[] = {2, 3};
static const float values[6] = {1, 2.5f, -3, 0.1f, 5, 6};

static int op_new(void) {
  irm_tensor *t = NULL;
  int rc = irm_tensor_new(raw_dtype(kDLFloat, 32, 1), shape23, 2, values, &t);
  if (!rc) ck_require(irm_tensor_get_f64(t, 1) == 2.5, "wrong data");
  else ck_require(t == NULL, "failed but set *out");
  irm_object_release(t);
  return rc;
}

static int op_global(void) {
  irm_any dims[2] = {irm_any_int(2), irm_any_int(3)};
  irm_object *shape = NULL;
  int rc = irm_array_new(dims, 2, &shape);
  if (rc) return rc;
  irm_any args[3] = {irm_any_str("float16"), irm_any_object(shape), irm_any_none()};
  irm_any ret = irm_any_none();
  rc = irm_func_call_global("ffi.Tensor", args, 3, &ret);
  if (!rc) ck_require(irm_is_tensor(ret.v_obj), "not a tensor");
  else ck_require(ret.type_code == IRM_NONE, "failed but left a result");
  irm_any_release(&ret);
  irm_object_release(shape);
  return rc;
}

/* The tensor the operations below read, made before failures are armed. */
static irm_tensor *the_fixture;

static irm_tensor *fixture(void) {
  irm_object_retain(the_fixture);
  return the_fixture;
}

static void make_fixture(void) {
  ck_assert_ok(irm_tensor_new(raw_dtype(kDLFloat, 32, 1), shape23, 2, values, &the_fixture));
}

static int op_to_dlpack(void) {
  irm_tensor *t = fixture();
  DLManagedTensor *m = NULL;
  int rc = irm_tensor_to_dlpack(t, &m);
  ck_require(irm_object_refcount(t) == (rc ? 2u : 3u), "reference count %u", irm_object_refcount(t));
  irm_object_release(t);
  if (m) m->deleter(m);
  return rc;
}

static int op_from_dlpack(void) {
  float data[6];
  memcpy(data, values, sizeof data);
  producer p;
  producer_init(&p, raw_dtype(kDLFloat, 32, 1), shape23, 2, data);
  irm_tensor *t = NULL;
  int rc = irm_tensor_from_dlpack(&p.managed, &t);
  if (rc) {
    ck_require(p.deleted == 0 && t == NULL, "a failed import took the producer");
    return rc;
  }
  ck_require(irm_tensor_data(t) == data, "copied");
  irm_object_release(t);
  ck_require(p.deleted == 1, "deleter ran %d times", p.deleted);
  return 0;
}

static int op_json(void) {
  irm_tensor *t = fixture();
  irm_any v = irm_any_object(t), back = irm_any_none();
  irm_object *text = NULL;
  int rc = irm_to_json(&v, &text);
  if (!rc) rc = irm_from_json(irm_string_data(text), irm_string_size(text), &back);
  if (!rc) /* compared without allocating: failures are still armed */
    ck_require(irm_is_tensor(back.v_obj) && irm_tensor_nbytes(back.v_obj) == sizeof values &&
                   memcmp(irm_tensor_data(back.v_obj), values, sizeof values) == 0,
               "round trip changed the tensor");
  irm_any_release(&back);
  irm_object_release(text);
  irm_object_release(t);
  return rc;
}

static int op_repr(void) {
  irm_tensor *t = fixture();
  irm_any v = irm_any_object(t);
  irm_object *s = NULL;
  int rc = irm_repr(&v, &s);
  if (!rc)
    ck_require(strcmp(irm_string_data(s), "Tensor(float32, [2, 3], [[1.0, 2.5, -3.0], [0.1, 5.0, 6.0]])") == 0,
               "repr %s", irm_string_data(s));
  irm_object_release(s);
  irm_object_release(t);
  return rc;
}

START_TEST(test_making_tensors_survives_allocation_failures) {
  sweep("irm_tensor_new", op_new);
  sweep("ffi.Tensor", op_global);
}
END_TEST

START_TEST(test_dlpack_exchange_survives_allocation_failures) {
  make_fixture();
  sweep("irm_tensor_to_dlpack", op_to_dlpack);
  sweep("irm_tensor_from_dlpack", op_from_dlpack);
  irm_object_release(the_fixture);
}
END_TEST

START_TEST(test_json_and_repr_survive_allocation_failures) {
  make_fixture();
  sweep("tensor JSON round trip", op_json);
  sweep("tensor repr", op_repr);
  irm_object_release(the_fixture);
}
END_TEST

static Suite *tensor_alloc_suite(void) {
  Suite *s = suite_create("tensor_alloc");
  TCase *tc = tcase_create("sweeps");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_making_tensors_survives_allocation_failures);
  tcase_add_test(tc, test_dlpack_exchange_survives_allocation_failures);
  tcase_add_test(tc, test_json_and_repr_survive_allocation_failures);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_tensor_alloc") != 0) return EXIT_FAILURE;
  return run_suite(tensor_alloc_suite());
}
