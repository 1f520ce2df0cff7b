/* Out of memory in the compilation driver (backend/): irm_build of a small
 * module through the default pipeline, and a module's CompilationConfig
 * (a fresh module each run, so that the cache starts empty).
 *
 * Each sweep (check_alloc_sweep_util.h) warms the operation up, then runs
 * it with N = 1, 2, 3, ... (allocation N fails, then: every allocation
 * after N fails) until it succeeds without meeting the failure, and checks
 * each time that irm either succeeded or reported MemoryError, leaked
 * nothing, left the registry of globals as it was and left its inputs
 * unchanged. main() installs the counting allocator of check_alloc_util.h
 * before any other irm call. */
#include <check.h>
#include <stdlib.h>

#include <irm/irm.h>

#include "check_alloc_sweep_util.h"
#include "check_module_util.h"

static const char text[] = "#[version = \"irm-0.1\"]\n"
                           "def @main(%x: Tensor[(4,), float32], %w: Tensor[(4,), float32]) {\n"
                           "  %0 = multiply(%x, %w);\n"
                           "  %1 = nn.relu(%0);\n"
                           "  %1\n"
                           "}\n";

typedef struct build_ctx {
  irm_module *mod;
  irm_object *want, *out;
} build_ctx;

static int run_build(void *ctx) {
  build_ctx *c = ctx;
  irm_any t = irm_any_str("c --host=llvm");
  int rc = irm_build(c->mod, &t, NULL, NULL, NULL, NULL, "net", &c->out);
  ck_require(rc == 0 || c->out == NULL, "irm_build failed but gave a result");
  return rc;
}

static void after_build(void *ctx, int rc) {
  build_ctx *c = ctx;
  ck_require(irm_module_target(c->mod) == NULL && !irm_module_is_frozen(c->mod), "the input module changed");
  if (rc == 0) {
    const irm_any *m = irm_map_find_cstr(c->out, "module"), *w = irm_map_find_cstr(c->want, "module");
    ck_require(objects_equal(m->v_obj, w->v_obj), "the built module differs");
  }
  irm_object_release(c->out);
  c->out = NULL;
}

START_TEST(test_oom_build) {
  build_ctx c = {NULL, NULL, NULL};
  ck_assert_int_eq(irm_dataflow_parse(text, sizeof text - 1, &c.mod), 0);
  ck_assert_int_eq(run_build(&c), 0);
  c.want = c.out;
  c.out = NULL;
  operation op = {.what = "irm_build", .run = run_build, .after = after_build, .ctx = &c};
  sweep(&op);
  irm_object_release(c.want);
  irm_object_release(c.mod);
}
END_TEST

typedef struct config_ctx {
  irm_module *mod;
  irm_object *target, *cfg;
} config_ctx;

static void prepare_config(void *ctx) {
  config_ctx *c = ctx;
  irm_object *targets = NULL, *host = NULL, *cuda = NULL;
  ck_require(irm_target_parse("llvm", &host) == 0, "parse");
  ck_require(irm_target_parse("cuda", &cuda) == 0, "parse");
  irm_any items[] = {irm_any_object(cuda), irm_any_object(c->target)};
  ck_require(irm_array_new(items, 2, &targets) == 0, "array");
  irm_any v = irm_any_object(targets);
  ck_require(irm_module_new(NULL, NULL, &c->mod) == 0, "module");
  ck_require(irm_module_set_attr_move(&c->mod, IRM_ATTR_TARGET, &v) == 0, "set target");
  irm_object_release(targets);
  irm_object_release(host);
  irm_object_release(cuda);
}

static int run_config(void *ctx) {
  config_ctx *c = ctx;
  int rc = irm_module_compilation_config(c->mod, &c->cfg);
  ck_require(rc == 0 || c->cfg == NULL, "irm_module_compilation_config failed but gave a result");
  return rc;
}

static void after_config(void *ctx, int rc) {
  config_ctx *c = ctx;
  if (rc == 0)
    ck_require(irm_array_size(irm_compilation_config_primitive_targets(c->cfg)) == 2 &&
                   strcmp(irm_target_kind_name(irm_compilation_config_default_primitive_target(c->cfg)), "llvm") == 0,
               "the config differs");
  irm_object_release(c->cfg);
  irm_object_release(c->mod);
  c->cfg = NULL;
  c->mod = NULL;
}

START_TEST(test_oom_compilation_config) {
  config_ctx c = {NULL, NULL, NULL};
  ck_assert_int_eq(irm_target_parse("llvm -mcpu=a", &c.target), 0);
  operation op = {.what = "irm_module_compilation_config",
                  .prepare = prepare_config,
                  .run = run_config,
                  .after = after_config,
                  .ctx = &c};
  sweep(&op);
  irm_object_release(c.target);
}
END_TEST

static Suite *build_alloc_suite(void) {
  Suite *s = suite_create("build_alloc");
  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_build);
  tcase_add_test(tc, test_oom_compilation_config);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_build_alloc") != 0) return EXIT_FAILURE;
  return run_suite(build_alloc_suite());
}
