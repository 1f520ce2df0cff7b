/* Out of memory in the dataflow dialect's passes (passes/dataflow):
 * FuseOps over a typed program whose values are shared between groups;
 * SimplifyInference and FoldScaleAxis over an untyped conv, bias, scale,
 * batch norm and dropout.
 *
 * Each sweep (check_alloc_sweep_util.h) warms the operation up, then runs
 * it with N = 1, 2, 3, ... (allocation N fails, then: every allocation
 * after N fails) until it succeeds without meeting the failure, and checks
 * each time that irm either succeeded or reported MemoryError, leaked
 * nothing, left the registry of globals as it was and left its inputs
 * unchanged. N is sampled past the first few (see check_alloc_util.h).
 *
 * main() installs the counting allocator of check_alloc_util.h before any
 * other irm call. */
#include <check.h>
#include <stdlib.h>

#include <irm/irm.h>
#include <irm/dataflow/passes.h>
#include <irm/dataflow/text.h>

#include "check_alloc_sweep_util.h"
#include "check_module_util.h"

/* ---- FuseOps ------------------------------------------------------------------ */

typedef struct fuse_ctx {
  irm_module *mod, *want, *out;
} fuse_ctx;

static int run_fuse_ops(void *ctx) {
  fuse_ctx *c = ctx;
  int rc = irm_dataflow_fuse_ops(c->mod, 256, &c->out);
  ck_require(rc == 0 || c->out == NULL, "irm_dataflow_fuse_ops failed but gave a result");
  return rc;
}

static void after_fuse_ops(void *ctx, int rc) {
  fuse_ctx *c = ctx;
  if (rc == 0) ck_require(objects_equal(c->out, c->want), "the fused module differs");
  irm_object_release(c->out);
  c->out = NULL;
}

START_TEST(test_oom_fuse_ops) {
  static const char text[] = "#[version = \"irm-0.1\"]\n"
                             "def @main(%x: Tensor[(1, 1, 3, 3), float32], %w: Tensor[(1, 1, 2, 2), float32]) {\n"
                             "  %0 = nn.conv2d(%x, %w);\n"
                             "  %1 = nn.relu(%0);\n"
                             "  %2 = exp(%0);\n"
                             "  %3 = multiply(%1, %2);\n"
                             "  %4 = nn.softmax(%3);\n"
                             "  %5 = (%4, %3);\n"
                             "  %5\n"
                             "}\n";
  irm_module *parsed = NULL;
  fuse_ctx c = {NULL, NULL, NULL};
  ck_assert_int_eq(irm_dataflow_parse(text, sizeof text - 1, &parsed), 0);
  ck_assert_int_eq(irm_dataflow_infer_type(parsed, &c.mod), 0);
  ck_assert_int_eq(irm_dataflow_fuse_ops(c.mod, 256, &c.want), 0);
  operation op = {.what = "irm_dataflow_fuse_ops", .run = run_fuse_ops, .after = after_fuse_ops, .ctx = &c};
  sweep(&op);
  irm_object_release(c.want);
  irm_object_release(c.mod);
  irm_object_release(parsed);
}
END_TEST

/* ---- SimplifyInference, then FoldScaleAxis ------------------------------------- */

/* Both on the untyped module (so the typing they do first fails too). */
static int run_fold_batch_norm(void *ctx) {
  fuse_ctx *c = ctx;
  irm_module *mid = NULL;
  int rc = irm_dataflow_simplify_inference(c->mod, &mid);
  ck_require(rc == 0 || mid == NULL, "irm_dataflow_simplify_inference failed but gave a result");
  if (!rc) rc = irm_dataflow_fold_scale_axis(mid, &c->out);
  ck_require(rc == 0 || c->out == NULL, "irm_dataflow_fold_scale_axis failed but gave a result");
  irm_object_release(mid);
  return rc;
}

START_TEST(test_oom_fold_batch_norm) {
  static const char text[] = "#[version = \"irm-0.1\"]\n"
                             "def @main(%x: Tensor[(1, 2, 3, 3), float32], %c: Tensor[(2,), float32]) {\n"
                             "  %0 = nn.conv2d(%x, const(float32, [2, 2, 1, 1], [1, 2, 3, 4]));\n"
                             "  %1 = nn.bias_add(%0, %c);\n"
                             "  %2 = multiply(%1, const(float32, [2, 1, 1], [0.5, -2]));\n"
                             "  %3 = nn.batch_norm(%2, %c, %c, %c, %c);\n"
                             "  %4 = nn.dropout(%3);\n"
                             "  %4\n"
                             "}\n";
  fuse_ctx c = {NULL, NULL, NULL};
  ck_assert_int_eq(irm_dataflow_parse(text, sizeof text - 1, &c.mod), 0);
  ck_assert_int_eq(run_fold_batch_norm(&c), 0);
  c.want = c.out;
  c.out = NULL;
  operation op = {.what = "SimplifyInference + FoldScaleAxis",
                  .run = run_fold_batch_norm,
                  .after = after_fuse_ops,
                  .ctx = &c};
  sweep(&op);
  irm_object_release(c.want);
  irm_object_release(c.mod);
}
END_TEST

static Suite *pass_dataflow_alloc_suite(void) {
  Suite *s = suite_create("pass_dataflow_alloc");

  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_fuse_ops);
  tcase_add_test(tc, test_oom_fold_batch_norm);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_pass_dataflow_alloc") != 0) return EXIT_FAILURE;
  return run_suite(pass_dataflow_alloc_suite());
}
