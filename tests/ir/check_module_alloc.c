/* Out of memory in IRModules (the ir module core): making a module with
 * config attributes, setting attributes on shared and sole-owner modules
 * (irm_module_with_attr, irm_module_set_attr_move), freezing, and a JSON
 * round trip of a configured module.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/config.h>
#include <irm/module.h>
#include <irm/target.h>

#include "check_alloc_sweep_util.h"
#include "check_module_util.h"

/* The target of the module irm_module_new makes. */
static const char target_text[] =
    "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon,+crc -num-cores=4 --host='llvm -mcpu=a'";

/* ---- irm_module_new ---------------------------------------------------------- */

typedef struct module_new_ctx {
  irm_object *functions;
  irm_object *attrs;
  irm_object *target, *executor, *runtime, *params;
} module_new_ctx;

static int run_module_new(void *ctx) {
  module_new_ctx *c = ctx;
  irm_module *m = NULL;
  int rc = irm_module_new(c->functions, c->attrs, &m);
  if (rc != 0) {
    ck_require(m == NULL, "irm_module_new failed but set *out");
    return rc;
  }
  ck_require(irm_module_function_count(m) == 1, "functions lost");
  ck_require(irm_module_target(m) == c->target, "target lost");
  ck_require(irm_module_executor(m) == c->executor, "executor lost");
  ck_require(irm_module_runtime(m) == c->runtime, "runtime lost");
  ck_require(irm_module_params(m) == c->params, "params lost");
  ck_require(irm_module_mod_name(m) != NULL && strcmp(irm_module_mod_name(m), "tiny") == 0, "mod_name lost");
  ck_require(!irm_module_is_frozen(m), "a new module is frozen");
  irm_object_release(m);
  return 0;
}

START_TEST(test_oom_module_new_with_config_attrs) {
  module_new_ctx c;
  irm_object *main_fn = new_func("main", 1);
  c.functions = map1("main", irm_any_object(main_fn));
  irm_object_release(main_fn);
  c.target = new_target(target_text);
  c.executor = new_aot_executor();
  c.runtime = new_crt_runtime();
  irm_any dims[] = {irm_any_int(2), irm_any_int(3)};
  irm_object *shape = new_array(dims, 2);
  const char *pkeys[] = {"w", "shape"};
  irm_any pvalues[] = {irm_any_str("weights"), irm_any_object(shape)};
  c.params = new_map(pkeys, pvalues, 2);
  irm_object_release(shape);
  const char *keys[] = {IRM_ATTR_TARGET, IRM_ATTR_EXECUTOR, IRM_ATTR_RUNTIME, IRM_ATTR_MOD_NAME, IRM_ATTR_PARAMS};
  irm_any values[] = {irm_any_object(c.target), irm_any_object(c.executor), irm_any_object(c.runtime),
                      irm_any_str("tiny"), irm_any_object(c.params)};
  c.attrs = new_map(keys, values, 5);
  operation op = {.what = "irm_module_new (target, executor, runtime, mod_name, params)",
                  .run = run_module_new,
                  .ctx = &c};
  sweep(&op);
  irm_object_release(c.functions);
  irm_object_release(c.attrs);
  irm_object_release(c.target);
  irm_object_release(c.executor);
  irm_object_release(c.runtime);
  irm_object_release(c.params);
}
END_TEST

/* ---- setting attributes ------------------------------------------------------ */

typedef struct attr_ctx {
  irm_module *base; /* a configured module, kept for the whole test */
  const char *key;
  irm_any value;     /* borrowed */
  int sole;          /* set_attr_move on a module only the run owns */
  irm_module *mod;   /* the module the run works on (prepare) */
  irm_module *other; /* a second reference to it when shared */
  module_snapshot snap;
} attr_ctx;

/* The value of key in mod must be c->value (same object, or an equal
 * String for an IRM_STR). */
static void check_attr_set(const attr_ctx *c, const irm_module *mod) {
  const irm_any *v = irm_map_find_cstr(irm_dict_attrs_map(irm_module_attrs(mod)), c->key);
  ck_require(v != NULL, "attribute %s missing after a success", c->key);
  if (c->value.type_code == IRM_STR)
    ck_require(v->type_code == IRM_OBJECT && strcmp(irm_string_data(v->v_obj), c->value.v_str) == 0,
               "attribute %s has another value", c->key);
  else
    ck_require(v->type_code == c->value.type_code && v->v_int == c->value.v_int, "attribute %s has another value",
               c->key);
}

static int run_with_attr(void *ctx) {
  attr_ctx *c = ctx;
  irm_module *out = NULL;
  int rc = irm_module_with_attr(c->base, c->key, &c->value, &out);
  if (rc != 0) {
    ck_require(out == NULL, "irm_module_with_attr failed but set *out");
    return rc;
  }
  ck_require(out != c->base, "irm_module_with_attr gave its argument back");
  check_attr_set(c, out);
  irm_object_release(out);
  return 0;
}

static void after_with_attr(void *ctx, int rc) {
  attr_ctx *c = ctx;
  (void)rc;
  assert_unchanged(&c->snap);
}

static void prepare_set_attr(void *ctx) {
  attr_ctx *c = ctx;
  if (c->sole) {
    /* a fresh module owned once: a copy of base with one more attribute */
    irm_any v = irm_any_int(7);
    int rc = irm_module_with_attr(c->base, "test.sole", &v, &c->mod);
    ck_require(rc == 0, "preparing a sole-owner module: %s", irm_last_error());
    c->other = NULL;
  } else {
    irm_object_retain(c->base);
    c->mod = c->base;
    irm_object_retain(c->base);
    c->other = c->base;
  }
  c->snap = snapshot(c->mod);
}

static int run_set_attr_move(void *ctx) {
  attr_ctx *c = ctx;
  irm_module *before = c->mod;
  int rc = irm_module_set_attr_move(&c->mod, c->key, &c->value);
  if (rc != 0) {
    ck_require(c->mod == before, "irm_module_set_attr_move failed but replaced *ref");
    return rc;
  }
  if (c->sole) ck_require(c->mod == before, "a sole-owner module was copied");
  else ck_require(c->mod != before, "a shared module was changed in place");
  check_attr_set(c, c->mod);
  return 0;
}

static void after_set_attr_move(void *ctx, int rc) {
  attr_ctx *c = ctx;
  if (rc != 0) assert_unchanged(&c->snap); /* the module is as it was */
  if (c->other != NULL) {
    c->snap.mod = c->other; /* the other reference never changes */
    assert_unchanged(&c->snap);
    irm_object_release(c->other);
    c->other = NULL;
  }
  irm_object_release(c->mod);
  c->mod = NULL;
}

typedef struct attr_case {
  const char *key;
  int kind; /* 0: a str, 1: an Executor, 2: an int, 3: a params Map */
} attr_case;

static const attr_case attr_cases[] = {
    {IRM_ATTR_MOD_NAME, 0}, /* a registered key replaced; the str stored as a String */
    {IRM_ATTR_EXECUTOR, 1}, /* a registered object key, type-checked */
    {"test.extra", 2},      /* an unregistered new key */
    {IRM_ATTR_PARAMS, 3},   /* a registered map key replaced */
};

static void sweep_attr(int move, int sole) {
  attr_ctx c;
  memset(&c, 0, sizeof c);
  c.base = new_configured_module();
  irm_object *exec = new_aot_executor();
  irm_object *params = map1("w", irm_any_str("other weights"));
  for (size_t i = 0; i < sizeof attr_cases / sizeof attr_cases[0]; i++) {
    char what[160];
    c.key = attr_cases[i].key;
    switch (attr_cases[i].kind) {
    case 0: c.value = irm_any_str("renamed"); break;
    case 1: c.value = irm_any_object(exec); break;
    case 2: c.value = irm_any_int(42); break;
    default: c.value = irm_any_object(params); break;
    }
    c.sole = sole;
    snprintf(what, sizeof what, "%s '%s' (%s module)", move ? "irm_module_set_attr_move" : "irm_module_with_attr",
             c.key, sole ? "sole-owner" : "shared");
    if (move) {
      /* replacing an object attribute of a sole-owner module in place may
       * need no memory */
      operation op = {.what = what,
                      .prepare = prepare_set_attr,
                      .run = run_set_attr_move,
                      .after = after_set_attr_move,
                      .ctx = &c,
                      .may_not_allocate = sole && (attr_cases[i].kind == 1 || attr_cases[i].kind == 3)};
      sweep(&op);
    } else {
      c.snap = snapshot(c.base);
      operation op = {.what = what, .run = run_with_attr, .after = after_with_attr, .ctx = &c};
      sweep(&op);
    }
  }
  irm_object_release(params);
  irm_object_release(exec);
  irm_object_release(c.base);
}

START_TEST(test_oom_module_with_attr) { sweep_attr(0, 0); }
END_TEST

START_TEST(test_oom_module_set_attr_move_on_a_shared_module) { sweep_attr(1, 0); }
END_TEST

START_TEST(test_oom_module_set_attr_move_on_a_sole_owner_module) { sweep_attr(1, 1); }
END_TEST

/* ---- freezing -------------------------------------------------------------- */

typedef struct freeze_ctx {
  irm_module *mod;
  module_snapshot snap;
} freeze_ctx;

static int run_freeze(void *ctx) {
  freeze_ctx *c = ctx;
  irm_module *frozen = NULL;
  int rc = irm_module_freeze(c->mod, &frozen);
  if (rc != 0) {
    ck_require(frozen == NULL, "irm_module_freeze failed but set *out");
    return rc;
  }
  ck_require(irm_module_is_frozen(frozen), "not frozen");
  ck_require(irm_module_target(frozen) == irm_module_target(c->mod), "target lost");
  ck_require(irm_module_function_count(frozen) == 1, "functions lost");
  irm_object_release(frozen);
  return 0;
}

static void after_freeze(void *ctx, int rc) {
  freeze_ctx *c = ctx;
  (void)rc;
  assert_unchanged(&c->snap);
}

START_TEST(test_oom_module_freeze) {
  freeze_ctx c;
  c.mod = new_configured_module();
  c.snap = snapshot(c.mod);
  operation op = {.what = "irm_module_freeze", .run = run_freeze, .after = after_freeze, .ctx = &c};
  sweep(&op);
  irm_object_release(c.mod);
}
END_TEST

/* ---- JSON --------------------------------------------------------------------- */

typedef struct json_ctx {
  irm_module *mod;
  irm_module *back; /* the run's result, checked and released by after */
} json_ctx;

static int run_json_round_trip(void *ctx) {
  json_ctx *c = ctx;
  irm_any arg = irm_any_object(c->mod), text = irm_any_none(), back = irm_any_none();
  int rc = irm_func_call_global("ffi.ToJSON", &arg, 1, &text);
  if (rc != 0) {
    ck_require(text.type_code == IRM_NONE, "ffi.ToJSON failed but gave a result");
    return rc;
  }
  rc = irm_func_call_global("ffi.FromJSON", &text, 1, &back);
  irm_any_release(&text);
  if (rc != 0) {
    ck_require(back.type_code == IRM_NONE, "ffi.FromJSON failed but gave a result");
    return rc;
  }
  ck_require(back.type_code == IRM_OBJECT && irm_object_is(back.v_obj, "ir.IRModule"), "gave back %s",
             irm_any_type_name(&back));
  c->back = back.v_obj;
  return 0;
}

static void after_json_round_trip(void *ctx, int rc) {
  json_ctx *c = ctx;
  if (rc == 0) {
    ck_require(objects_equal(c->mod, c->back), "the module read back differs");
    irm_object_release(c->back);
    c->back = NULL;
  }
}

START_TEST(test_oom_json_round_trip_of_a_configured_module) {
  json_ctx c = {new_configured_module(), NULL};
  operation op = {.what = "ffi.ToJSON + ffi.FromJSON of a configured module",
                  .run = run_json_round_trip,
                  .after = after_json_round_trip,
                  .ctx = &c};
  sweep(&op);
  irm_object_release(c.mod);
}
END_TEST

static Suite *module_alloc_suite(void) {
  Suite *s = suite_create("module_alloc");

  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_module_new_with_config_attrs);
  tcase_add_test(tc, test_oom_module_with_attr);
  tcase_add_test(tc, test_oom_module_set_attr_move_on_a_shared_module);
  tcase_add_test(tc, test_oom_module_set_attr_move_on_a_sole_owner_module);
  tcase_add_test(tc, test_oom_module_freeze);
  tcase_add_test(tc, test_oom_json_round_trip_of_a_configured_module);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_module_alloc") != 0) return EXIT_FAILURE;
  return run_suite(module_alloc_suite());
}
