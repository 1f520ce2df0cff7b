/* Out of memory in the IR text form: parsing and printing a module (with
 * every construct and module attributes of every kind) with allocation N
 * failing, then every allocation after N, for N = 1, 2, 3, ... (sampled
 * past the first few, check_alloc_util.h) until the operation succeeds
 * untouched. Each run either succeeds or reports MemoryError, and leaks
 * nothing.
 *
 * main() installs the counting allocator before any other irm call. */
#include "check_alloc_util.h"
#include "dataflow_gen.h"

typedef struct text_op {
  const char *what;
  int (*run)(void *ctx);
  void *ctx;
} text_op;

static void sweep_mode(const text_op *op, fail_mode mode) {
  uint64_t salt = sweep_salt(op->what, mode);
  long n = mode == fail_nth ? 1 : 0, met = 0;
  for (;; n = sweep_next(n, salt)) {
    ck_require(n < 200000, "%s: still meeting failures at N=%ld", op->what, n);
    settle_error();
    long live_before = atomic_load(&live_blocks), injected_before = atomic_load(&injected);
    if (mode == fail_nth) fail_nth_from_now(n);
    else fail_all_after(n);
    int rc = op->run(op->ctx);
    stop_failing();
    int hit = atomic_load(&injected) != injected_before;
    char message[512];
    snprintf(message, sizeof message, "%s", irm_last_error());
    if (rc) {
      ck_require(rc == IRM_ENOMEM && strncmp(message, "MemoryError: ", 13) == 0, "%s (N=%ld): status %d, message '%s'",
                 op->what, n, rc, message);
      ck_require(hit, "%s (N=%ld): failed without a failed allocation: %s", op->what, n, message);
    }
    settle_error();
    long live_after = atomic_load(&live_blocks);
    ck_require(live_after == live_before, "%s (N=%ld, status %d '%s'): %ld blocks live before, %ld after", op->what, n,
               rc, message, live_before, live_after);
    met += hit;
    if (!rc && !hit) break;
  }
  ck_assert_msg(met > 0, "%s: never allocated", op->what);
  sweep_note(op->what, mode == fail_nth ? "fail allocation N" : "fail all after N", n, n, met);
}

static void sweep(const text_op *op) {
  ck_assert_msg(op->run(op->ctx) == 0, "%s: %s", op->what, irm_last_error()); /* warm up */
  sweep_mode(op, fail_nth);
  sweep_mode(op, fail_after);
}

/* A module with every construct and attributes of every kind. */
static irm_module *rich_module(void) {
  ck_assert_ok(irm_test_gen_ops());
  irm_module *m = NULL;
  for (uint64_t seed = 1; seed < 100 && !m; seed++) {
    irm_module *c = irm_test_random_module(seed, 60);
    ck_assert_ptr_nonnull(c);
    if (irm_module_target(c) && irm_module_params(c)) m = c;
    else irm_object_release(c);
  }
  ck_assert_ptr_nonnull(m);
  irm_object *e = NULL, *r = NULL;
  irm_any iface = irm_any_str("c");
  const char *k = "interface-api";
  irm_object *opts = new_map(&k, &iface, 1);
  ck_assert_ok(irm_executor_create("aot", opts, &e));
  ck_assert_ok(irm_runtime_create("crt", NULL, &r));
  irm_any ve = irm_any_object(e), vr = irm_any_object(r);
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_EXECUTOR, &ve));
  ck_assert_ok(irm_module_set_attr_move(&m, IRM_ATTR_RUNTIME, &vr));
  irm_object_release(e);
  irm_object_release(r);
  irm_object_release(opts);
  return m;
}

static int run_print(void *ctx) {
  irm_object *s = NULL;
  int rc = irm_dataflow_print(ctx, &s);
  ck_require(rc ? s == NULL : s != NULL, "irm_dataflow_print: out and status disagree");
  irm_object_release(s);
  return rc;
}

/* Tensors of more than one element elided (the body goes to a buffer of
 * its own, joined after the header's comment). */
static int run_print_elided(void *ctx) {
  irm_dataflow_print_options opts = IRM_DATAFLOW_PRINT_OPTIONS_INIT;
  opts.elide_larger_than = 1;
  irm_object *s = NULL;
  int rc = irm_dataflow_print_ex(ctx, &opts, &s);
  ck_require(rc ? s == NULL : s != NULL, "irm_dataflow_print_ex: out and status disagree");
  ck_require(rc || strstr(irm_string_data(s), " elements>)"), "nothing was elided");
  irm_object_release(s);
  return rc;
}

static int run_repr(void *ctx) {
  irm_any v = irm_any_object(ctx);
  irm_object *s = NULL;
  int rc = irm_repr(&v, &s);
  irm_object_release(s);
  return rc;
}

static int run_parse(void *ctx) {
  const irm_object *text = ctx;
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(irm_string_data(text), irm_string_size(text), &m);
  ck_require(rc ? m == NULL : m != NULL, "irm_dataflow_parse: out and status disagree");
  irm_object_release(m);
  return rc;
}

START_TEST(test_oom_print) {
  irm_module *m = rich_module();
  text_op op = {"irm_dataflow_print", run_print, m};
  sweep(&op);
  irm_tensor *big = NULL;
  int64_t shape[] = {3, 3};
  DLDataType f32 = {kDLFloat, 32, 1};
  ck_assert_ok(irm_tensor_new(f32, shape, 2, NULL, &big));
  irm_any vb = irm_any_object(big);
  ck_assert_ok(irm_module_set_attr_move(&m, "test.big", &vb));
  irm_object_release(big);
  text_op elided = {"irm_dataflow_print_ex eliding", run_print_elided, m};
  sweep(&elided);
  text_op repr = {"irm_repr of a module", run_repr, m};
  sweep(&repr);
  irm_object_release(m);
}
END_TEST

START_TEST(test_oom_parse) {
  irm_module *m = rich_module();
  irm_object *text = NULL;
  ck_assert_ok(irm_dataflow_print(m, &text));
  text_op op = {"irm_dataflow_parse", run_parse, text};
  sweep(&op);
  irm_object_release(text);
  irm_object_release(m);
}
END_TEST

static Suite *ir_text_alloc_suite(void) {
  Suite *s = suite_create("ir_text_alloc");
  TCase *c = tcase_create("sweeps");
  tcase_set_timeout(c, 120);
  tcase_add_test(c, test_oom_print);
  tcase_add_test(c, test_oom_parse);
  suite_add_tcase(s, c);
  return s;
}

int main(void) {
  if (install_counting_allocator("check_ir_text_alloc") != 0) return EXIT_FAILURE;
  return run_suite(ir_text_alloc_suite());
}
