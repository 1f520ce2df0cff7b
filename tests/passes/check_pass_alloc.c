/* Out of memory in the pass manager (passes): making a PassContext with
 * config and an instrument, running a Sequential under a timing context
 * (entered beforehand, and entered and exited in the run), parsing and
 * printing textual pipelines, and reading pass config options.
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
#include <string.h>

#include <irm/irm.h>
#include <irm/module.h>
#include <irm/pass.h>

#include "check_alloc_sweep_util.h"
#include "check_module_util.h"

/* ---- fixtures ------------------------------------------------------------ */

/* A no-op module pass. */
static int nop_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                    irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_object_retain(mod);
  *out = mod;
  return 0;
}

static int factory_a(const irm_object *o, irm_pass **out) {
  return irm_module_pass_new("A", 0, NULL, 0, o, nop_pass, NULL, NULL, out);
}

static int factory_b(const irm_object *o, irm_pass **out) {
  return irm_module_pass_new("B", 0, NULL, 0, o, nop_pass, NULL, NULL, out);
}

static void register_a_and_b(void) {
  ck_assert_ok(irm_pass_register("A", factory_a, NULL));
  ck_assert_ok(irm_pass_register("B", factory_b, NULL));
}

/* An instrument hook that does nothing. */
static int pk_nothing(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)args;
  (void)nargs;
  (void)resource;
  *ret = irm_any_none();
  return 0;
}

/* ---- PassContext ---------------------------------------------------------------- */

typedef struct context_ctx {
  irm_object *required, *disabled, *config, *instruments;
} context_ctx;

static int run_pass_context_new(void *ctx) {
  context_ctx *c = ctx;
  irm_pass_context *pc = NULL;
  int rc = irm_pass_context_new(3, c->required, c->disabled, c->config, c->instruments, &pc);
  if (rc != 0) {
    ck_require(pc == NULL, "irm_pass_context_new failed but set *out");
    return rc;
  }
  ck_require(irm_pass_context_opt_level(pc) == 3, "opt_level lost");
  ck_require(irm_map_size(irm_pass_context_config(pc)) == 2, "config lost");
  ck_require(irm_array_size(irm_pass_context_required(pc)) == 1, "required lost");
  irm_object_release(pc);
  return 0;
}

START_TEST(test_oom_pass_context_new_with_config_and_an_instrument) {
  context_ctx c;
  irm_object *hook = new_packed(pk_nothing, NULL, NULL);
  irm_instrument *inst = NULL;
  ck_assert_ok(irm_instrument_new("probe", hook, hook, NULL, hook, hook, &inst));
  irm_object_release(hook);
  irm_any inst_item = irm_any_object(inst);
  c.instruments = new_array(&inst_item, 1);
  irm_object_release(inst);
  irm_any req = irm_any_str("A"), dis = irm_any_str("B");
  c.required = new_array(&req, 1);
  c.disabled = new_array(&dis, 1);
  const char *keys[] = {"FuseOps.max_depth", "tir.disable_vectorize"};
  irm_any values[] = {irm_any_int(4), irm_any_bool(true)};
  c.config = new_map(keys, values, 2);
  operation op = {.what = "irm_pass_context_new (config, instrument)", .run = run_pass_context_new, .ctx = &c};
  sweep(&op);
  irm_object_release(c.instruments);
  irm_object_release(c.required);
  irm_object_release(c.disabled);
  irm_object_release(c.config);
}
END_TEST

/* ---- running a Sequential under an instrumented context -------------------------- */

typedef struct run_ctx {
  irm_pass *seq;
  irm_module *mod;
  irm_pass_context *pc;
  irm_instrument *timing;
  module_snapshot snap;
} run_ctx;

static void prepare_pass_run(void *ctx) {
  run_ctx *c = ctx;
  int rc = irm_pass_context_enter(c->pc);
  ck_require(rc == 0, "entering the context: %s", irm_last_error());
}

static int run_pass_run(void *ctx) {
  run_ctx *c = ctx;
  irm_module *out = NULL;
  int rc = irm_pass_run(c->seq, c->mod, &out);
  if (rc != 0) {
    ck_require(out == NULL, "irm_pass_run failed but set *out");
    return rc;
  }
  ck_require(out == c->mod, "no-op passes changed the module");
  irm_object_release(out);
  return 0;
}

static void after_pass_run(void *ctx, int rc) {
  run_ctx *c = ctx;
  irm_object *text = NULL;
  if (rc == 0) {
    int r = irm_timing_render(c->timing, &text);
    ck_require(r == 0, "irm_timing_render: %s", irm_last_error());
    ck_require(strstr(irm_string_data(text), "A:") != NULL && strstr(irm_string_data(text), "B:") != NULL,
               "timing misses a pass: '%s'", irm_string_data(text));
    irm_object_release(text);
  }
  int r = irm_pass_context_exit(c->pc);
  ck_require(r == 0, "exiting the context: %s", irm_last_error());
  assert_unchanged(&c->snap);
}

START_TEST(test_oom_pass_run_of_a_sequential_under_a_timing_context) {
  run_ctx c;
  register_a_and_b();
  irm_pass *a = NULL, *b = NULL;
  ck_assert_ok(irm_pass_get("A", NULL, &a));
  ck_assert_ok(irm_pass_get("B", NULL, &b));
  irm_pass *passes[] = {a, b};
  c.seq = NULL;
  ck_assert_ok(irm_sequential_new(passes, 2, 0, NULL, &c.seq));
  irm_object_release(a);
  irm_object_release(b);
  c.mod = new_configured_module();
  c.snap = snapshot(c.mod);
  ck_assert_ok(irm_timing_instrument_new(&c.timing));
  irm_any item = irm_any_object(c.timing);
  irm_object *insts = new_array(&item, 1);
  c.pc = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, insts, &c.pc));
  irm_object_release(insts);
  operation op = {.what = "irm_pass_run (Sequential(A,B), timing)",
                  .prepare = prepare_pass_run,
                  .run = run_pass_run,
                  .after = after_pass_run,
                  .ctx = &c};
  sweep(&op);
  irm_object_release(c.pc);
  irm_object_release(c.timing);
  irm_object_release(c.mod);
  irm_object_release(c.seq);
}
END_TEST

/* The same with entering and exiting a fresh context armed too. */
typedef struct enter_run_ctx {
  run_ctx *base;
  irm_pass_context *pc;
  irm_instrument *timing;
} enter_run_ctx;

static void prepare_enter_run(void *ctx) {
  enter_run_ctx *c = ctx;
  int rc = irm_timing_instrument_new(&c->timing);
  ck_require(rc == 0, "irm_timing_instrument_new: %s", irm_last_error());
  irm_any item = irm_any_object(c->timing);
  irm_object *insts = NULL;
  rc = irm_array_new(&item, 1, &insts);
  ck_require(rc == 0, "irm_array_new: %s", irm_last_error());
  c->pc = NULL;
  rc = irm_pass_context_new(2, NULL, NULL, NULL, insts, &c->pc);
  ck_require(rc == 0, "irm_pass_context_new: %s", irm_last_error());
  irm_object_release(insts);
}

static int run_enter_run_exit(void *ctx) {
  enter_run_ctx *c = ctx;
  irm_module *out = NULL;
  int rc = irm_pass_context_enter(c->pc);
  if (rc != 0) return rc;
  rc = irm_pass_run(c->base->seq, c->base->mod, &out);
  if (rc != 0) ck_require(out == NULL, "irm_pass_run failed but set *out");
  irm_object_release(out);
  int exit_rc = irm_pass_context_exit(c->pc);
  return rc != 0 ? rc : exit_rc;
}

static void after_enter_run_exit(void *ctx, int rc) {
  enter_run_ctx *c = ctx;
  irm_pass_context *current = NULL;
  (void)rc;
  int r = irm_pass_context_current(&current);
  ck_require(r == 0, "irm_pass_context_current: %s", irm_last_error());
  ck_require(current != c->pc, "the context is still entered");
  irm_object_release(current);
  assert_unchanged(&c->base->snap);
  irm_object_release(c->pc);
  irm_object_release(c->timing);
  c->pc = NULL;
  c->timing = NULL;
}

START_TEST(test_oom_entering_running_and_exiting_a_timing_context) {
  run_ctx c;
  register_a_and_b();
  irm_pass *a = NULL, *b = NULL;
  ck_assert_ok(irm_pass_get("A", NULL, &a));
  ck_assert_ok(irm_pass_get("B", NULL, &b));
  irm_pass *passes[] = {a, b};
  c.seq = NULL;
  ck_assert_ok(irm_sequential_new(passes, 2, 0, NULL, &c.seq));
  irm_object_release(a);
  irm_object_release(b);
  c.mod = new_configured_module();
  c.snap = snapshot(c.mod);
  enter_run_ctx e = {&c, NULL, NULL};
  operation op = {.what = "enter a timing context, irm_pass_run (Sequential(A,B)), exit",
                  .prepare = prepare_enter_run,
                  .run = run_enter_run_exit,
                  .after = after_enter_run_exit,
                  .ctx = &e};
  sweep(&op);
  irm_object_release(c.mod);
  irm_object_release(c.seq);
}
END_TEST

/* ---- textual pipelines ---------------------------------------------------------- */

static int run_pipeline_parse(void *ctx) {
  irm_pass *p = NULL;
  (void)ctx;
  int rc = irm_pipeline_parse("Sequential(A,B)", &p);
  if (rc != 0) {
    ck_require(p == NULL, "irm_pipeline_parse failed but set *out");
    return rc;
  }
  const irm_object *passes = irm_sequential_passes(p);
  ck_require(passes != NULL && irm_array_size(passes) == 2, "not a Sequential of two passes");
  ck_require(strcmp(irm_pass_name(irm_array_at(passes, 0)->v_obj), "A") == 0, "first pass lost");
  irm_object_release(p);
  return 0;
}

START_TEST(test_oom_pipeline_parse) {
  register_a_and_b();
  operation op = {.what = "irm_pipeline_parse(Sequential(A,B))", .run = run_pipeline_parse};
  sweep(&op);
}
END_TEST

static int run_pipeline_print(void *ctx) {
  irm_object *text = NULL;
  int rc = irm_pipeline_print(ctx, &text);
  if (rc != 0) {
    ck_require(text == NULL, "irm_pipeline_print failed but set *out");
    return rc;
  }
  ck_require(strcmp(irm_string_data(text), "Sequential(A,B)") == 0, "printed '%s'", irm_string_data(text));
  irm_object_release(text);
  return 0;
}

START_TEST(test_oom_pipeline_print) {
  register_a_and_b();
  irm_pass *p = NULL;
  ck_assert_ok(irm_pipeline_parse("Sequential(A,B)", &p));
  operation op = {.what = "irm_pipeline_print(Sequential(A,B))", .run = run_pipeline_print, .ctx = p};
  sweep(&op);
  irm_object_release(p);
}
END_TEST

/* ---- pass config options ---------------------------------------------------------- */

typedef struct config_ctx {
  irm_module *mod;
} config_ctx;

static int get_one(const irm_module *mod, const char *key, irm_any *out) {
  *out = irm_any_none();
  int rc = irm_pass_get_config(mod, key, out);
  if (rc != 0) ck_require(out->type_code == IRM_NONE, "irm_pass_get_config(%s) failed but gave a value", key);
  return rc;
}

static int run_get_config(void *ctx) {
  config_ctx *c = ctx;
  irm_any v;
  /* from the entered context */
  int rc = get_one(c->mod, "FuseOps.max_depth", &v);
  if (rc != 0) return rc;
  ck_require(v.type_code == IRM_INT && v.v_int == 4, "FuseOps.max_depth from the context lost");
  /* from the module attribute it migrates to */
  if ((rc = get_one(c->mod, "usmp.algorithm", &v)) != 0) return rc;
  ck_require(v.type_code == IRM_OBJECT && strcmp(irm_string_data(v.v_obj), "hill") == 0,
             "usmp.algorithm from the module lost");
  irm_any_release(&v);
  /* the default */
  if ((rc = get_one(c->mod, "tir.disable_vectorize", &v)) != 0) return rc;
  ck_require(v.type_code == IRM_BOOL && v.v_int == 0, "tir.disable_vectorize default lost");
  return 0;
}

START_TEST(test_oom_pass_get_config) {
  config_ctx c;
  irm_module *plain = new_configured_module();
  c.mod = with_attr(plain, "usmp.algorithm", irm_any_str("hill"));
  irm_object_release(plain);
  irm_object *cfg = map1("FuseOps.max_depth", irm_any_int(4));
  irm_pass_context *pc = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, cfg, NULL, &pc));
  irm_object_release(cfg);
  ck_assert_ok(irm_pass_context_enter(pc));
  operation op = {.what = "irm_pass_get_config (context, module attribute, default)",
                  .run = run_get_config,
                  .ctx = &c,
                  .may_not_allocate = 1 /* values are retained, not copied */};
  sweep(&op);
  ck_assert_ok(irm_pass_context_exit(pc));
  irm_object_release(pc);
  irm_object_release(c.mod);
}
END_TEST

static Suite *pass_alloc_suite(void) {
  Suite *s = suite_create("pass_alloc");

  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_pass_context_new_with_config_and_an_instrument);
  tcase_add_test(tc, test_oom_pass_run_of_a_sequential_under_a_timing_context);
  tcase_add_test(tc, test_oom_entering_running_and_exiting_a_timing_context);
  tcase_add_test(tc, test_oom_pipeline_parse);
  tcase_add_test(tc, test_oom_pipeline_print);
  tcase_add_test(tc, test_oom_pass_get_config);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_pass_alloc") != 0) return EXIT_FAILURE;
  return run_suite(pass_alloc_suite());
}
