/* Test passes shared by check_timing.c, check_pipeline.c,
 * check_pass_errors.c and check_pass_memory_errors.c: registered in the
 * pass registry (kind category "pass") with C factories, and fn_nop, a
 * function pass body. Static inline only.
 *   TestNop    does nothing (returns its input)
 *   TestSleep  sleeps 2 ms, then returns its input
 *   TestMark   returns the module with attribute "test.marked" = true
 *   TestOpts   a no-op with one option of each text type, none with a default
 *   FoldConstant  a no-op, for closest-name messages */
#ifndef IRM_TESTS_CHECK_PASS_UTIL_H
#define IRM_TESTS_CHECK_PASS_UTIL_H

#include <stdio.h>
#include <time.h>

#include <irm/irm.h>
#include <irm/pass.h>

#include "check_util.h"

static inline int tp_nop(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                         irm_module **out) {
  (void)ctx;
  (void)options;
  if (resource) {
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
  irm_object_retain(mod);
  *out = mod;
  return 0;
}

static inline int tp_mark(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                          irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_any yes = irm_any_bool(true);
  return irm_module_with_attr(mod, "test.marked", &yes, out);
}

static inline int tp_make(const char *name, const irm_object *options, irm_module_pass_fn fn, void *res,
                          irm_pass **out) {
  return irm_module_pass_new(name, 0, NULL, 0, options, fn, res, NULL, out);
}

/* A function pass body that returns each function as it is. */
static inline int fn_nop(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                         void *resource, irm_object **out) {
  (void)mod, (void)ctx, (void)options, (void)resource;
  irm_object_retain(func);
  *out = func;
  return 0;
}

static inline int tf_nop(const irm_object *o, irm_pass **out) { return tp_make("TestNop", o, tp_nop, NULL, out); }
static inline int tf_sleep(const irm_object *o, irm_pass **out) {
  return tp_make("TestSleep", o, tp_nop, (void *)1, out);
}
static inline int tf_mark(const irm_object *o, irm_pass **out) { return tp_make("TestMark", o, tp_mark, NULL, out); }
static inline int tf_opts(const irm_object *o, irm_pass **out) { return tp_make("TestOpts", o, tp_nop, NULL, out); }

static inline void register_test_passes(void) {
  irm_kind *k = NULL;
  ck_assert_ok(irm_pass_register("TestNop", tf_nop, NULL));
  ck_assert_ok(irm_pass_register("TestSleep", tf_sleep, NULL));
  ck_assert_ok(irm_pass_register("TestMark", tf_mark, NULL));
  /* "FoldConstant" is the built-in pass; the pipeline tests use its name. */
  ck_assert_ok(irm_pass_register("TestOpts", tf_opts, &k));
  ck_assert_ok(irm_kind_add_option(k, "flag", IRM_OPTION_BOOL, NULL, "a bool", 0));
  ck_assert_ok(irm_kind_add_option(k, "count", IRM_OPTION_INT, NULL, "an int", 0));
  ck_assert_ok(irm_kind_add_option(k, "ratio", IRM_OPTION_FLOAT, NULL, "a float", 0));
  ck_assert_ok(irm_kind_add_option(k, "label", IRM_OPTION_STR, NULL, "a str", 0));
  ck_assert_ok(irm_kind_add_option(k, "names", IRM_OPTION_ARRAY_STR, NULL, "an array<str>", 0));
  ck_assert_ok(irm_kind_add_option(k, "sizes", IRM_OPTION_ARRAY_INT, NULL, "an array<int>", 0));
  ck_assert_ok(irm_kind_add_option(k, "device", IRM_OPTION_TARGET, NULL, "a target", 0));
  ck_assert_ok(irm_kind_add_option(k, "config", IRM_OPTION_MAP, NULL, "a map", 0));
}

static inline irm_pass *get_pass(const char *name) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_pass_get(name, NULL, &p));
  return p;
}

static inline irm_pass *sequential_of(irm_pass *const *passes, size_t n, int opt_level, const char *name) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_sequential_new(passes, n, opt_level, name, &p));
  return p;
}

static inline irm_module *empty_module(void) {
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(NULL, NULL, &m));
  return m;
}

/* A context with the given instruments (and required pass names), entered. */
static inline irm_pass_context *enter_with(irm_instrument *const *insts, size_t n, const irm_object *required) {
  irm_any items[4];
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(insts[i]);
  irm_object *arr = new_array(items, n);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(2, required, NULL, NULL, arr, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_object_release(arr);
  return ctx;
}

static inline void leave(irm_pass_context *ctx) {
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(ctx);
}

static inline irm_module *run_ok(irm_pass *p, irm_module *mod) {
  irm_module *out = NULL;
  ck_assert_ok(irm_pass_run(p, mod, &out));
  return out;
}

#endif
