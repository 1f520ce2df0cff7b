/* MemoryError, as pass.h documents it for every allocating function: each
 * status-returning function of pass.h that allocates is called once with
 * every allocation failing, and must report a MemoryError ("MemoryError: "
 * first) and leave no result. The other error kinds of pass.h are
 * check_pass_errors.c's. Allocations fail through the counting allocator
 * (check_alloc_util.h), which main() installs before any other irm call;
 * each test runs in its own process (Check forks). */
#include <check.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/pass.h>

#include "check_alloc_util.h"
#include "check_pass_util.h"

/* ---- fixture ------------------------------------------------------------------------ */

/* Drops warnings: irm_register_static_pass warns the error it returns. */
static void drop_warning(const char *msg, void *user) {
  (void)msg;
  (void)user;
}

static void setup(void) {
  irm_set_warning_handler(drop_warning, NULL);
  register_test_passes();
}

static void teardown(void) { irm_set_warning_handler(NULL, NULL); }

/* ---- the calls -----------------------------------------------------------------------------------------------
 * Each case prepares with allocation working, then makes every allocation
 * fail for one call, which must report a MemoryError. */

typedef struct oom_case {
  const char *name;
  int (*call)(void); /* the call, made while allocations fail */
} oom_case;

static irm_object *made; /* what the call under test made, released after */
static irm_any made_any;

#define FAILING(expr) (fail_all_after(0), rc_ = (expr), stop_failing(), rc_)

static int oom_module_pass_new(void) {
  int rc_;
  return FAILING(irm_module_pass_new("P", 0, NULL, 0, NULL, tp_nop, NULL, NULL, &made));
}
static int oom_function_pass_new(void) {
  int rc_;
  return FAILING(irm_function_pass_new("F", 0, NULL, 0, NULL, fn_nop, NULL, NULL, &made));
}
static int oom_module_pass_from_func(void) {
  irm_object *f = new_const(1);
  int rc_ = FAILING(irm_module_pass_from_func(f, 0, "M", NULL, &made));
  irm_object_release(f);
  return rc_;
}
static int oom_function_pass_from_func(void) {
  irm_object *f = new_const(1);
  int rc_ = FAILING(irm_function_pass_from_func(f, 0, "F", NULL, &made));
  irm_object_release(f);
  return rc_;
}
static int oom_sequential_new(void) {
  irm_pass *nop = get_pass("TestNop");
  int rc_ = FAILING(irm_sequential_new(&nop, 1, 0, NULL, &made));
  irm_object_release(nop);
  return rc_;
}
static int oom_pass_run(void) {
  irm_pass *mark = get_pass("TestMark");
  irm_module *mod = empty_module();
  irm_object_release(run_ok(mark, mod)); /* the context stack exists */
  int rc_ = FAILING(irm_pass_run(mark, mod, &made));
  irm_object_release(mod);
  irm_object_release(mark);
  return rc_;
}
static int oom_pass_register(void) {
  int rc_;
  return FAILING(irm_pass_register("Fresh", tf_nop, NULL));
}
static int ex_factory(const irm_object *o, void *resource, irm_pass **out) {
  (void)resource;
  return tf_nop(o, out);
}
static int oom_pass_register_ex(void) {
  int rc_;
  return FAILING(irm_pass_register_ex("Fresh", ex_factory, &made, NULL, NULL));
}
static int oom_function_pass_apply(void) {
  irm_module *mod = empty_module();
  int rc_ = FAILING(irm_function_pass_apply(mod, fn_nop, NULL, NULL, NULL, &made));
  irm_object_release(mod);
  return rc_;
}
static int oom_pass_register_func(void) {
  irm_object *f = new_const(1);
  int rc_ = FAILING(irm_pass_register_func("Fresh", f, NULL));
  irm_object_release(f);
  return rc_;
}
static int oom_pass_get(void) {
  int rc_;
  return FAILING(irm_pass_get("TestNop", NULL, &made));
}
static int oom_pass_list(void) {
  int rc_;
  return FAILING(irm_pass_list(&made));
}
static int oom_register_static_pass(void) {
  int rc_;
  return FAILING(irm_register_static_pass("Fresh", tf_nop, NULL));
}
static int oom_pass_context_new(void) {
  int rc_;
  return FAILING(irm_pass_context_new(2, NULL, NULL, NULL, NULL, &made));
}
static int oom_pass_context_enter(void) {
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, NULL, &ctx));
  int rc_ = FAILING(irm_pass_context_enter(ctx)); /* this thread's first enter */
  irm_object_release(ctx);
  return rc_;
}
static int oom_pass_context_current(void) {
  int rc_;
  return FAILING(irm_pass_context_current(&made)); /* this thread's first context */
}
static int oom_pass_context_info(void) {
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, NULL, &ctx));
  int rc_ = FAILING(irm_pass_context_info(ctx, &made));
  irm_object_release(ctx);
  return rc_;
}
static int oom_override_instruments(void) {
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, NULL, NULL, NULL, NULL, &ctx));
  int rc_ = FAILING(irm_pass_context_override_instruments(ctx, NULL));
  irm_object_release(ctx);
  return rc_;
}
static int oom_pass_config_register(void) {
  int rc_;
  return FAILING(irm_pass_config_register("T.fresh", "int", NULL, NULL));
}
static int oom_pass_config_register_alias(void) {
  int rc_;
  return FAILING(irm_pass_config_register_alias("T.alias", "usmp.enable"));
}
static int oom_pass_config_list(void) {
  int rc_;
  return FAILING(irm_pass_config_list(&made));
}
static int oom_pass_get_config(void) {
  int rc_;
  return FAILING(irm_pass_get_config(NULL, "FuseOps.max_depth", &made_any));
}
static int oom_pass_setting(void) {
  int rc_;
  return FAILING(irm_pass_setting(NULL, "max_depth", NULL, "FuseOps.max_depth", &made_any));
}
static int oom_instrument_new(void) {
  int rc_;
  return FAILING(irm_instrument_new("x", NULL, NULL, NULL, NULL, NULL, &made));
}
static int oom_timing_instrument_new(void) {
  int rc_;
  return FAILING(irm_timing_instrument_new(&made));
}
static int oom_timing_render(void) {
  irm_instrument *timing = NULL;
  ck_assert_ok(irm_timing_instrument_new(&timing));
  int rc_ = FAILING(irm_timing_render(timing, &made));
  irm_object_release(timing);
  return rc_;
}
static int oom_printing_instrument_new(void) {
  int rc_;
  return FAILING(irm_printing_instrument_new(NULL, 0, 1, &made));
}
static int oom_bisect_instrument_new(void) {
  int rc_;
  return FAILING(irm_bisect_instrument_new(3, &made));
}
static int oom_pipeline_parse(void) {
  int rc_;
  return FAILING(irm_pipeline_parse("Sequential(TestNop,FoldConstant)", &made));
}
static int oom_pipeline_print(void) {
  irm_pass *nop = get_pass("TestNop");
  int rc_ = FAILING(irm_pipeline_print(nop, &made));
  irm_object_release(nop);
  return rc_;
}

static const oom_case oom_cases[] = {
    {"irm_module_pass_new", oom_module_pass_new},
    {"irm_function_pass_new", oom_function_pass_new},
    {"irm_module_pass_from_func", oom_module_pass_from_func},
    {"irm_function_pass_from_func", oom_function_pass_from_func},
    {"irm_sequential_new", oom_sequential_new},
    {"irm_pass_run", oom_pass_run},
    {"irm_pass_register", oom_pass_register},
    {"irm_pass_register_ex", oom_pass_register_ex},
    {"irm_function_pass_apply", oom_function_pass_apply},
    {"irm_pass_register_func", oom_pass_register_func},
    {"irm_pass_get", oom_pass_get},
    {"irm_pass_list", oom_pass_list},
    {"irm_register_static_pass", oom_register_static_pass},
    {"irm_pass_context_new", oom_pass_context_new},
    {"irm_pass_context_enter", oom_pass_context_enter},
    {"irm_pass_context_current", oom_pass_context_current},
    {"irm_pass_context_info", oom_pass_context_info},
    {"irm_pass_context_override_instruments", oom_override_instruments},
    {"irm_pass_config_register", oom_pass_config_register},
    {"irm_pass_config_register_alias", oom_pass_config_register_alias},
    {"irm_pass_config_list", oom_pass_config_list},
    {"irm_pass_get_config", oom_pass_get_config},
    {"irm_pass_setting", oom_pass_setting},
    {"irm_instrument_new", oom_instrument_new},
    {"irm_timing_instrument_new", oom_timing_instrument_new},
    {"irm_timing_render", oom_timing_render},
    {"irm_printing_instrument_new", oom_printing_instrument_new},
    {"irm_bisect_instrument_new", oom_bisect_instrument_new},
    {"irm_pipeline_parse", oom_pipeline_parse},
    {"irm_pipeline_print", oom_pipeline_print},
};

enum { n_oom_cases = sizeof oom_cases / sizeof oom_cases[0] };

/* setup() registered the test passes and started irm; nothing has entered
 * a context or asked for the current one yet. */
START_TEST(test_every_allocating_function_reports_memory_error) {
  const oom_case *c = &oom_cases[_i];
  made = NULL;
  made_any = irm_any_none();
  int rc = c->call();
  ck_assert_msg(rc == IRM_ENOMEM, "%s: expected MemoryError, got %d (%s)", c->name, rc, irm_last_error());
  ck_assert_msg(strncmp(irm_last_error(), "MemoryError: ", 13) == 0, "%s: got '%s'", c->name, irm_last_error());
  ck_assert_msg(made == NULL && made_any.type_code == IRM_NONE, "%s left a result after failing", c->name);
}
END_TEST

/* ---- the suite -------------------------------------------------------------------------------------------------- */

static Suite *pass_memory_errors_suite(void) {
  Suite *s = suite_create("pass_memory_errors");
  TCase *tc = tcase_create("documented");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, test_every_allocating_function_reports_memory_error, 0, n_oom_cases);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: allocations can be made to fail. */
  if (install_counting_allocator("check_pass_memory_errors") != 0) return EXIT_FAILURE;
  return run_suite(pass_memory_errors_suite());
}
