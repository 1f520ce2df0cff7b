/* Out of memory in the built-in ops: FInferType and FEvaluate of every op
 * (with attributes to check and complete) and op.Register. Each sweep warms
 * the call up, then runs it with N = 1, 2, 3, ... (allocation N fails, then:
 * every allocation after N fails) until it succeeds without meeting the
 * failure, and checks each time that the call either succeeded or reported
 * MemoryError and leaked nothing. N is sampled past the first few (see
 * check_alloc_util.h).
 *
 * main() installs the counting allocator before any other irm call. */
#include "check_alloc_util.h"
#include "check_ops_util.h"

enum { ops_sweep_cap = 20000 };

/* One call of an op's function on prepared arguments. */
typedef struct op_call {
  irm_object *f;
  irm_any args[2];
} op_call;

static int run_call(op_call *c) {
  irm_any ret = irm_any_none();
  int rc = irm_func_call(c->f, c->args, 2, &ret);
  irm_any_release(&ret);
  return rc;
}

static void sweep_call(const char *what, op_call *c) {
  settle_error();
  ck_assert_msg(run_call(c) == 0, "%s without failures: %s", what, irm_last_error());
  ck_assert_ok(run_call(c));
  for (int m = 0; m < 2; m++) {
    fail_mode mode = m == 0 ? fail_nth : fail_after;
    uint64_t salt = sweep_salt(what, mode);
    long n = mode == fail_nth ? 1 : 0, tried = 0, failures_met = 0;
    for (;; n = sweep_next(n, salt), tried++) {
      ck_require(n < ops_sweep_cap, "%s: still meeting failures at N=%ld", what, n);
      settle_error();
      long live_before = atomic_load(&live_blocks), injected_before = atomic_load(&injected);
      if (mode == fail_nth) fail_nth_from_now(n);
      else fail_all_after(n);
      int rc = run_call(c);
      stop_failing();
      int hit = atomic_load(&injected) != injected_before;
      char message[512];
      snprintf(message, sizeof message, "%s", irm_last_error());
      if (rc != 0) {
        ck_require(rc == IRM_ENOMEM && strncmp(message, "MemoryError: ", 13) == 0,
                   "%s (mode %d, N=%ld): status %d, message '%s'", what, m, n, rc, message);
        ck_require(hit, "%s (mode %d, N=%ld): failed with no failed allocation: %s", what, m, n, message);
      }
      settle_error();
      long live_after = atomic_load(&live_blocks);
      ck_require(live_after == live_before, "%s (mode %d, N=%ld, status %d '%s'): %ld blocks live before, %ld after",
                 what, m, n, rc, message, live_before, live_after);
      failures_met += hit;
      if (rc == 0 && !hit) break;
    }
    ck_assert_msg(failures_met > 0, "%s: never allocated", what);
    sweep_note(what, m == 0 ? "fail allocation N" : "fail all after N", n, tried + 1, failures_met);
  }
}

/* Sweeps FInferType on the inputs' types and FEvaluate on the inputs. Takes
 * the n inputs. */
static void sweep_op(const char *op, const char *attrs_text, size_t n, irm_object **inputs) {
  irm_any tensors[4], types[4];
  for (size_t i = 0; i < n; i++) {
    irm_object *t = NULL;
    ck_assert_ok(irm_tensor_type_of(inputs[i], &t));
    tensors[i] = irm_any_object(inputs[i]);
    types[i] = irm_any_object(t);
  }
  irm_object *tarr = new_array(types, n), *iarr = new_array(tensors, n), *attrs = op_attrs(op, attrs_text);
  for (size_t i = 0; i < n; i++) {
    irm_object_release(types[i].v_obj);
    irm_object_release(inputs[i]);
  }
  char what[128];
  op_call infer = {op_func(op, "FInferType"), {irm_any_object(tarr), attrs ? irm_any_object(attrs) : irm_any_none()}};
  snprintf(what, sizeof what, "%s FInferType", op);
  sweep_call(what, &infer);
  op_call eval = {op_func(op, "FEvaluate"), {irm_any_object(iarr), attrs ? irm_any_object(attrs) : irm_any_none()}};
  snprintf(what, sizeof what, "%s FEvaluate", op);
  sweep_call(what, &eval);
  irm_object_release(infer.f);
  irm_object_release(eval.f);
  irm_object_release(tarr);
  irm_object_release(iarr);
  irm_object_release(attrs);
}
#define SWEEP_OP(op, attrs, ...) \
  sweep_op(op, attrs, sizeof((irm_object *[]){__VA_ARGS__}) / sizeof(irm_object *), (irm_object *[]){__VA_ARGS__})

START_TEST(test_oom_in_elemwise_ops) {
  SWEEP_OP("add", NULL, TENSOR("float32", SHAPE(2, 3), NULL), TENSOR("float32", SHAPE(3), NULL));
  SWEEP_OP("divide", NULL, TENSOR("int8", SHAPE(2, 1), VALS(4, 8)), TENSOR("int8", SHAPE(2), VALS(1, 2)));
  SWEEP_OP("exp", NULL, TENSOR("float16", SHAPE(3), NULL));
  SWEEP_OP("cast", "dtype=int8", TENSOR("float32", SHAPE(3), NULL));
}
END_TEST

START_TEST(test_oom_in_transform_ops) {
  SWEEP_OP("reshape", "newshape=0,-1", TENSOR("float32", SHAPE(2, 3, 2), NULL));
  SWEEP_OP("transpose", "axes=1,0", TENSOR("int32", SHAPE(2, 3), NULL));
  SWEEP_OP("sum", "axis=1;keepdims=true", TENSOR("float32", SHAPE(2, 3), NULL));
  SWEEP_OP("mean", NULL, TENSOR("int8", SHAPE(2, 3), NULL));
  SWEEP_OP("layout_transform", "src_layout=NCHW;dst_layout=NCHW4c", TENSOR("float32", SHAPE(1, 3, 2, 2), NULL));
}
END_TEST

START_TEST(test_oom_in_nn_ops) {
  SWEEP_OP("nn.dense", "units=2", TENSOR("float32", SHAPE(2, 3), NULL), TENSOR("float32", SHAPE(2, 3), NULL));
  SWEEP_OP("nn.bias_add", NULL, TENSOR("float32", SHAPE(1, 2, 2), NULL), TENSOR("float32", SHAPE(2), NULL));
  SWEEP_OP("nn.conv2d", "strides=2;padding=1,0,1,1;groups=2;data_layout=NHWC;kernel_layout=HWIO",
           TENSOR("float32", SHAPE(1, 4, 4, 2), NULL), TENSOR("float32", SHAPE(3, 3, 1, 4), NULL));
  SWEEP_OP("nn.softmax", "axis=0", TENSOR("float32", SHAPE(2, 3), NULL));
  SWEEP_OP("nn.avg_pool2d", "pool_size=2;padding=1;ceil_mode=true;count_include_pad=true",
           TENSOR("float32", SHAPE(1, 1, 3, 3), NULL));
  SWEEP_OP("nn.global_avg_pool2d", "layout=NHWC", TENSOR("float32", SHAPE(1, 2, 2, 3), NULL));
}
END_TEST

/* The ops added for imported networks (check_ops_onnx.c has their values). */
START_TEST(test_oom_in_onnx_ops) {
  SWEEP_OP("matmul", NULL, TENSOR("float32", SHAPE(2, 2, 3), NULL), TENSOR("float32", SHAPE(3, 2), NULL));
  SWEEP_OP("nn.conv2d_transpose", "strides=2", TENSOR("float32", SHAPE(1, 2, 2, 2), NULL),
           TENSOR("float32", SHAPE(2, 1, 3, 3), NULL));
  SWEEP_OP("concatenate", "axis=1", TENSOR("float32", SHAPE(2, 1), NULL), TENSOR("float32", SHAPE(2, 2), NULL));
  SWEEP_OP("take", "axis=0", TENSOR("float32", SHAPE(3), NULL), TENSOR("int64", SHAPE(2), NULL));
  SWEEP_OP("max", "axis=1", TENSOR("float64", SHAPE(2, 3), NULL));
  SWEEP_OP("where", NULL, TENSOR("bool", SHAPE(2), NULL), TENSOR("int64", SHAPE(2), NULL),
           TENSOR("int64", SHAPE(1), NULL));
  SWEEP_OP("image.resize2d", "size=3,3;method=cubic", TENSOR("float32", SHAPE(1, 1, 2, 2), NULL));
  SWEEP_OP("nn.pad", "pad_width=1,1;pad_mode=reflect", TENSOR("float32", SHAPE(3), NULL));
  SWEEP_OP("argsort", "axis=0", TENSOR("float32", SHAPE(3, 2), NULL));
}
END_TEST

/* op.Register keeps what it registered, so each run gets a fresh name and
 * only the status, the message and the all-or-nothing outcome are checked. */
START_TEST(test_oom_in_op_register) {
  irm_object *schema = map1("factor", irm_any_str("float"));
  for (long n = 1;; n++) {
    ck_require(n < ops_sweep_cap, "op.Register: still meeting failures at N=%ld", n);
    char name[64];
    snprintf(name, sizeof name, "test.oom%ld", n);
    irm_any args[] = {irm_any_str(name), irm_any_int(1), irm_any_object(schema),
                      irm_any_none(),    irm_any_none(), irm_any_int(0)},
            ret;
    settle_error();
    long injected_before = atomic_load(&injected);
    fail_nth_from_now(n);
    int rc = irm_func_call_global("op.Register", args, 6, &ret);
    stop_failing();
    int hit = atomic_load(&injected) != injected_before;
    irm_object *op = NULL;
    int found = irm_op_get(name, &op) == 0;
    irm_object_release(op);
    if (rc) {
      ck_require(rc == IRM_ENOMEM, "op.Register (N=%ld): status %d '%s'", n, rc, irm_last_error());
      ck_require(!found, "op.Register (N=%ld) failed but registered the op", n);
    } else {
      ck_require(found, "op.Register (N=%ld) succeeded but the op is missing", n);
      if (!hit) break;
    }
  }
  irm_object_release(schema);
}
END_TEST

static Suite *ops_alloc_suite(void) {
  Suite *s = suite_create("ops_alloc");
  TCase *tc = tcase_create("sweeps");
  tcase_add_test(tc, test_oom_in_elemwise_ops);
  tcase_add_test(tc, test_oom_in_transform_ops);
  tcase_add_test(tc, test_oom_in_nn_ops);
  tcase_add_test(tc, test_oom_in_onnx_ops);
  tcase_add_test(tc, test_oom_in_op_register);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_ops_alloc") != 0) return EXIT_FAILURE;
  return run_suite(ops_alloc_suite());
}
