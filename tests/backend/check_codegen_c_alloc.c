/* Out of memory in the C kernel generator (backend/codegen/): a sweep
 * (check_alloc_sweep_util.h) over codegen.CKernel of a function with a
 * conv2d, an elementwise chain, a reshape view, a constant and a tuple
 * result, and over codegen.CPrelude: each run either gives the same code
 * as the warm-up or MemoryError, and leaks nothing. main() installs the
 * counting allocator before any other irm call. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/dataflow/passes.h>
#include <irm/dataflow/text.h>

#include "check_alloc_sweep_util.h"

static const char text[] =
    "#[version = \"irm-0.1\"]\n"
    "def @main(%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(3, 2, 3, 3), float32], %b: Tensor[(3,), float32]) {\n"
    "  %0 = nn.conv2d(%x, %w, padding=[1, 1]);\n"
    "  %1 = nn.bias_add(%0, %b);\n"
    "  %2 = nn.relu(%1);\n"
    "  %3 = reshape(%2, newshape=[3, 25]);\n"
    "  %4 = sum(%3, axis=[1]);\n"
    "  %5 = add(%4, const(float32, [3], [1, 2, 3]));\n"
    "  %6 = (%5, %2);\n"
    "  %6\n"
    "}\n";

/* nn.contrib_conv2d_NCHWc at block 4 (target "c"): runtime/kernels' conv,
 * whose call records its schedule */
static const char blocked[] =
    "#[version = \"irm-0.1\"]\n"
    "def @main(%d: Tensor[(1, 2, 7, 9, 4), float32], %w: Tensor[(2, 2, 3, 3, 4, 8), float32]) {\n"
    "  %0 = nn.contrib_conv2d_NCHWc(%d, %w, padding=[1, 1], channels=12, data_layout=\"NCHW4c\", "
    "kernel_layout=\"OIHW4i8o\");\n"
    "  %1 = nn.relu(%0);\n"
    "  %1\n"
    "}\n";

typedef struct kernel_ctx {
  irm_object *fn;
  const char *fname;
  irm_any want, out;
  irm_object *target; /* NULL: plain "c" */
} kernel_ctx;

static int run_kernel(void *ctx) {
  kernel_ctx *c = ctx;
  irm_any args[3] = {irm_any_object(c->fn), irm_any_str("k"), irm_any_object(c->target)};
  c->out = irm_any_none();
  return irm_func_call_global(c->fname, args, c->fn ? (c->target ? 3 : 2) : 0, &c->out);
}

static const char *code_of(const irm_any *v) {
  if (v->type_code != IRM_OBJECT) return "";
  if (irm_string_data(v->v_obj)) return irm_string_data(v->v_obj);
  const irm_any *code = irm_map_find_cstr(v->v_obj, "code");
  return code ? irm_string_data(code->v_obj) : "";
}

static void after_kernel(void *ctx, int rc) {
  kernel_ctx *c = ctx;
  if (rc == 0) ck_require(strcmp(code_of(&c->out), code_of(&c->want)) == 0, "the generated code differs");
  irm_any_release(&c->out);
}

static void sweep_global(const char *fname, irm_object *fn, irm_object *target) {
  kernel_ctx c = {fn, fname, irm_any_none(), irm_any_none(), target};
  ck_assert_int_eq(run_kernel(&c), 0);
  c.want = c.out;
  c.out = irm_any_none();
  operation op = {.what = fname, .run = run_kernel, .after = after_kernel, .ctx = &c};
  sweep(&op);
  irm_any_release(&c.want);
}

START_TEST(test_oom_kernel) {
  irm_module *m = NULL, *t = NULL;
  ck_assert_int_eq(irm_dataflow_parse(text, sizeof text - 1, &m), 0);
  ck_assert_int_eq(irm_dataflow_infer_type(m, &t), 0);
  sweep_global("codegen.CKernel", irm_module_function(t, "main"), NULL);
  irm_object_release(m);
  irm_object_release(t);
}
END_TEST

START_TEST(test_oom_blocked_kernel) {
  irm_module *m = NULL, *t = NULL;
  irm_target *target = NULL;
  ck_assert_int_eq(irm_dataflow_parse(blocked, sizeof blocked - 1, &m), 0);
  ck_assert_int_eq(irm_dataflow_infer_type(m, &t), 0);
  ck_assert_int_eq(irm_target_parse("c", &target), 0);
  kernel_ctx probe = {irm_module_function(t, "main"), "codegen.CKernel", irm_any_none(), irm_any_none(), target};
  ck_assert_int_eq(run_kernel(&probe), 0);
  ck_require(strstr(code_of(&probe.out), "irm_kernel_conv2d_nchwc") != NULL, "not on the kernels' path");
  irm_any_release(&probe.out);
  sweep_global("codegen.CKernel", irm_module_function(t, "main"), target);
  irm_object_release(target);
  irm_object_release(m);
  irm_object_release(t);
}
END_TEST

START_TEST(test_oom_prelude) { sweep_global("codegen.CPrelude", NULL, NULL); }
END_TEST

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_codegen_c_alloc") != 0) return EXIT_FAILURE;
  Suite *s = suite_create("codegen_c_alloc");
  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_kernel);
  tcase_add_test(tc, test_oom_blocked_kernel);
  tcase_add_test(tc, test_oom_prelude);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
