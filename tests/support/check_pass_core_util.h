/* Helpers of the pass core suites (check_pass.c, check_pass_registry.c,
 * check_sequential.c): C passes that log their runs, passes that fail or
 * change the module, contexts, and running a pass. Static inline only. */
#ifndef IRM_TESTS_CHECK_PASS_CORE_UTIL_H
#define IRM_TESTS_CHECK_PASS_CORE_UTIL_H

#include <stdio.h>
#include <string.h>

#include <irm/pass.h>

#include "check_module_util.h"

/* The names of the passes that ran, comma-separated, on this thread
 * (each Check test runs in its own process). */
static _Thread_local char pass_log[512];

static inline void log_run(const char *name) {
  size_t used = strlen(pass_log);
  snprintf(pass_log + used, sizeof pass_log - used, "%s%s", used ? "," : "", name);
}

/* Logs the name in resource and returns its input. */
static inline int noop_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                            irm_module **out) {
  (void)ctx;
  (void)options;
  log_run(resource);
  irm_object_retain(mod);
  *out = mod;
  return 0;
}

/* Logs and returns mod with attribute "count" one higher. */
static inline int count_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                             irm_module **out) {
  (void)ctx;
  (void)options;
  log_run(resource);
  irm_any v = irm_any_none();
  int rc = irm_module_get_attr(mod, "count", &v);
  if (rc) return rc;
  irm_any next = irm_any_int(v.type_code == IRM_INT ? v.v_int + 1 : 1);
  return irm_module_with_attr(mod, "count", &next, out);
}

static inline int fail_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                            irm_module **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  (void)out;
  log_run(resource);
  return irm_error(IRM_EVALUE, "bad shape");
}

/* Replaces the pass-invariant executor with a graph executor. */
static inline int executor_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                                irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_object *e = NULL;
  int rc = irm_executor_create("graph", NULL, &e);
  if (rc) return rc;
  irm_any v = irm_any_object(e);
  rc = irm_module_with_attr(mod, IRM_ATTR_EXECUTOR, &v, out);
  irm_object_release(e);
  return rc;
}

/* A NEW module pass called name running fn (which logs name). */
static inline irm_pass *c_pass(const char *name, int opt_level, irm_module_pass_fn fn) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_module_pass_new(name, opt_level, NULL, 0, NULL, fn, (void *)name, NULL, &p));
  ck_assert_ptr_nonnull(p);
  return p;
}

static inline irm_pass *c_pass_req(const char *name, int opt_level, const char *const *req, size_t n,
                                   irm_module_pass_fn fn) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_module_pass_new(name, opt_level, req, n, NULL, fn, (void *)name, NULL, &p));
  return p;
}

static inline irm_pass *sequential(irm_pass *const *passes, size_t n, int opt_level, const char *name) {
  irm_pass *p = NULL;
  ck_assert_ok(irm_sequential_new(passes, n, opt_level, name, &p));
  ck_assert_ptr_nonnull(p);
  return p;
}

/* A NEW Array of the strings names[0..n). */
static inline irm_object *str_array(const char *const *names, size_t n) {
  irm_any items[16];
  ck_assert_uint_le(n, 16);
  for (size_t i = 0; i < n; i++) items[i] = irm_any_str(names[i]);
  return new_array(items, n);
}

/* Makes and enters a context (required/disabled: n names each). */
static inline irm_pass_context *enter_context(int opt_level, const char *const *required, size_t n_required,
                                              const char *const *disabled, size_t n_disabled) {
  irm_object *req = str_array(required, n_required), *dis = str_array(disabled, n_disabled);
  irm_pass_context *ctx = NULL;
  ck_assert_ok(irm_pass_context_new(opt_level, req, dis, NULL, NULL, &ctx));
  ck_assert_ok(irm_pass_context_enter(ctx));
  irm_object_release(req);
  irm_object_release(dis);
  return ctx;
}

static inline void leave_context(irm_pass_context *ctx) {
  ck_assert_ok(irm_pass_context_exit(ctx));
  irm_object_release(ctx);
}

/* Runs pass on mod, asserting success. NEW. */
static inline irm_module *run_ok(irm_pass *pass, irm_module *mod) {
  irm_module *out = NULL;
  int rc = irm_pass_run(pass, mod, &out);
  ck_require(rc == 0, "irm_pass_run failed: %s", irm_last_error());
  ck_require(out != NULL, "irm_pass_run gave no module");
  return out;
}

/* The int attribute "count" of mod (0 when unset). */
static inline int64_t count_of(const irm_module *mod) {
  irm_any v = irm_any_none();
  ck_assert_ok(irm_module_get_attr(mod, "count", &v));
  return v.type_code == IRM_INT ? v.v_int : 0;
}

/* The same without Check assertions, for other threads; -1 on error. */
static inline int64_t count_of_quiet(const irm_module *mod) {
  irm_any v = irm_any_none();
  if (irm_module_get_attr(mod, "count", &v)) return -1;
  return v.type_code == IRM_INT ? v.v_int : 0;
}

/* A module with functions "main" and "helper". */
static inline irm_module *two_function_module(void) {
  const char *names[] = {"main", "helper"};
  return module_of(names, 2);
}

#endif /* IRM_TESTS_CHECK_PASS_CORE_UTIL_H */
