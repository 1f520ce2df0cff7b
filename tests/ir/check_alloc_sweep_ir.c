/* Out of memory in the IR layer: config objects (Executors), Targets
 * (parsing and printing), IRModules (making, setting attributes on shared
 * and sole-owner modules, freezing, JSON), PassContexts, running passes
 * under an instrumented context, textual pipelines and pass config
 * options. Each sweep warms the operation up once (so lazy built-in starts
 * are done), then runs it with N = 1, 2, 3, ... (allocation N fails, then:
 * every allocation after N fails) until it succeeds without meeting the
 * failure, and checks each time that irm either succeeded or reported
 * MemoryError, leaked nothing, left the registry of globals as it was and
 * left its inputs unchanged.
 *
 * N is sampled past the first few (see check_alloc_util.h).
 *
 * main() installs the counting allocator of check_alloc_util.h before any
 * other irm call. */
#include <check.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/config.h>
#include <irm/dataflow/passes.h>
#include <irm/dataflow/text.h>
#include <irm/module.h>
#include <irm/pass.h>
#include <irm/target.h>

#include "check_alloc_util.h"
#include "check_module_util.h"

/* ---- the sweep ----------------------------------------------------------- */

enum { ir_sweep_cap = 20000 };

typedef struct operation {
  const char *what;
  /* Runs with failures off before each run (may be NULL): makes the
   * run's inputs (a sole-owner module, an entered context). */
  void (*prepare)(void *ctx);
  /* Runs with failures armed; releases everything it made except what
   * `after` undoes. Returns 0 or the first failing status. */
  int (*run)(void *ctx);
  /* Runs with failures off: checks the state the run left behind (rc is
   * its status) and releases what the run or prepare kept. May be NULL. */
  void (*after)(void *ctx, int rc);
  void *ctx;
  /* The operation may need no memory at all (replacing an object in place,
   * reading a value); the sweep then checks only that. */
  int may_not_allocate;
} operation;

/* Every global name joined by '\n', in plain malloc memory. */
static char *global_names(void) {
  irm_object *names = NULL;
  int rc = irm_func_list_globals(&names);
  ck_require(rc == 0, "irm_func_list_globals: %s", irm_last_error());
  size_t total = 1;
  for (size_t i = 0; i < irm_array_size(names); i++)
    total += irm_string_size(irm_array_at(names, i)->v_obj) + 1;
  char *joined = malloc(total), *p = joined;
  ck_require(joined != NULL, "out of memory in the test");
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_object *s = irm_array_at(names, i)->v_obj;
    memcpy(p, irm_string_data(s), irm_string_size(s));
    p += irm_string_size(s);
    *p++ = '\n';
  }
  *p = '\0';
  irm_object_release(names);
  return joined;
}

static void run_once_without_failures(const operation *op) {
  if (op->prepare != NULL) op->prepare(op->ctx);
  int rc = op->run(op->ctx);
  ck_assert_msg(rc == 0, "%s without failures: %d (%s)", op->what, rc, irm_last_error());
  if (op->after != NULL) op->after(op->ctx, 0);
}

static void sweep_mode(const operation *op, fail_mode mode) {
  const char *mode_name = mode == fail_nth ? "fail allocation N" : "fail all after N";
  char *names_before = global_names();
  uint64_t salt = sweep_salt(op->what, mode);
  long n = mode == fail_nth ? 1 : 0;
  long failures_met = 0, tried = 0;
  for (;; n = sweep_next(n, salt), tried++) {
    char message[512];
    ck_require(n < ir_sweep_cap, "%s (%s): still meeting failures at N=%ld", op->what, mode_name, n);
    settle_error();
    long live_before = atomic_load(&live_blocks);
    if (op->prepare != NULL) op->prepare(op->ctx);
    settle_error();
    long injected_before = atomic_load(&injected);

    if (mode == fail_nth)
      fail_nth_from_now(n);
    else
      fail_all_after(n);
    int rc = op->run(op->ctx);
    stop_failing();
    int hit = atomic_load(&injected) != injected_before;
    snprintf(message, sizeof message, "%s", irm_last_error());

    if (rc != 0) {
      ck_require(rc == IRM_ENOMEM, "%s (%s, N=%ld): status %d, message '%s'", op->what, mode_name, n, rc,
                 message);
      ck_require(strncmp(message, "MemoryError: ", 13) == 0, "%s (%s, N=%ld): message '%s' is not a MemoryError",
                 op->what, mode_name, n, message);
      ck_require(hit, "%s (%s, N=%ld): failed although no allocation failed: %s", op->what, mode_name, n,
                 message);
    }
    if (op->after != NULL) op->after(op->ctx, rc);

    char *names_after = global_names();
    ck_require(strcmp(names_before, names_after) == 0, "%s (%s, N=%ld, status %d): global names changed",
               op->what, mode_name, n, rc);
    free(names_after);
    settle_error();
    long live_after = atomic_load(&live_blocks);
    ck_require(live_after == live_before, "%s (%s, N=%ld, status %d '%s'): %ld blocks live before, %ld after",
               op->what, mode_name, n, rc, message, live_before, live_after);
    ck_require(atomic_load(&foreign_frees) == 0, "%s (%s, N=%ld): a block irm did not allocate was freed",
               op->what, mode_name, n);
    failures_met += hit;
    if (rc == 0 && !hit) break;
  }
  ck_assert_msg(failures_met > 0 || op->may_not_allocate, "%s (%s): never allocated, nothing was tested", op->what, mode_name);
  free(names_before);
  sweep_note(op->what, mode_name, n, tried + 1, failures_met);
}

/* Warms irm and the operation up, then sweeps both failure modes. */
static void sweep(const operation *op) {
  char *warm = global_names();
  free(warm);
  settle_error();
  run_once_without_failures(op);
  run_once_without_failures(op);
  sweep_mode(op, fail_nth);
  sweep_mode(op, fail_after);
}

/* ---- shared fixtures ----------------------------------------------------- */

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

/* ---- Executors ------------------------------------------------------------ */

static const char *const aot_keys[] = {"link-params", "unpacked-api", "interface-api", "workspace-byte-alignment"};

static irm_object *aot_options(int with_kind) {
  const char *keys[5];
  irm_any values[5] = {irm_any_bool(false), irm_any_bool(true), irm_any_str("c"), irm_any_int(8),
                       irm_any_str("aot")};
  memcpy(keys, aot_keys, sizeof aot_keys);
  keys[4] = "kind";
  return new_map(keys, values, with_kind ? 5 : 4);
}

static void check_aot(const irm_executor *e) {
  ck_require(e != NULL && irm_object_is(e, "ir.Executor"), "not an Executor");
  ck_require(strcmp(irm_config_kind_name(e), "aot") == 0, "kind %s", irm_config_kind_name(e));
  const irm_object *attrs = irm_config_attrs(e);
  ck_require(irm_map_size(attrs) == 5, "%zu attrs", irm_map_size(attrs));
  const irm_any *v = irm_map_find_cstr(attrs, "workspace-byte-alignment");
  ck_require(v != NULL && v->type_code == IRM_INT && v->v_int == 8, "workspace-byte-alignment lost");
  v = irm_map_find_cstr(attrs, "interface-api");
  ck_require(v != NULL && v->type_code == IRM_OBJECT && strcmp(irm_string_data(v->v_obj), "c") == 0,
             "interface-api lost");
}

static int run_executor_create(void *ctx) {
  irm_executor *e = NULL;
  int rc = irm_executor_create("aot", ctx, &e);
  if (rc != 0) {
    ck_require(e == NULL, "irm_executor_create failed but set *out");
    return rc;
  }
  check_aot(e);
  irm_object_release(e);
  return 0;
}

static int run_executor_from_map(void *ctx) {
  irm_executor *e = NULL;
  int rc = irm_executor_from_map(ctx, &e);
  if (rc != 0) {
    ck_require(e == NULL, "irm_executor_from_map failed but set *out");
    return rc;
  }
  check_aot(e);
  irm_object_release(e);
  return 0;
}

START_TEST(test_oom_executor_create_from_4_options) {
  irm_object *opts = aot_options(0);
  operation op = {"irm_executor_create(aot, 4 options)", NULL, run_executor_create, NULL, opts, 0};
  sweep(&op);
  irm_object_release(opts);
}
END_TEST

START_TEST(test_oom_executor_from_map) {
  irm_object *config = aot_options(1);
  operation op = {"irm_executor_from_map", NULL, run_executor_from_map, NULL, config, 0};
  sweep(&op);
  irm_object_release(config);
}
END_TEST

/* ---- Targets -------------------------------------------------------------- */

static const char target_text[] =
    "llvm -mtriple=aarch64-linux-gnu -mcpu=cortex-a72 -mattr=+neon,+crc -num-cores=4 --host='llvm -mcpu=a'";

static int run_target_parse(void *ctx) {
  irm_target *t = NULL;
  (void)ctx;
  int rc = irm_target_parse(target_text, &t);
  if (rc != 0) {
    ck_require(t == NULL, "irm_target_parse failed but set *out");
    return rc;
  }
  ck_require(strcmp(irm_target_kind_name(t), "llvm") == 0, "kind %s", irm_target_kind_name(t));
  ck_require(irm_target_host(t) != NULL, "the host is lost");
  const irm_any *mattr = irm_map_find_cstr(irm_target_attrs(t), "mattr");
  ck_require(mattr != NULL && mattr->type_code == IRM_OBJECT && irm_array_size(mattr->v_obj) == 2,
             "mattr lost");
  irm_object_release(t);
  return 0;
}

START_TEST(test_oom_target_parse) {
  operation op = {"irm_target_parse", NULL, run_target_parse, NULL, NULL, 0};
  sweep(&op);
}
END_TEST

typedef struct as_string_ctx {
  irm_target *target;
  char expected[512];
} as_string_ctx;

static int run_target_as_string(void *ctx) {
  as_string_ctx *c = ctx;
  irm_object *s = NULL;
  int rc = irm_target_as_string(c->target, &s);
  if (rc != 0) {
    ck_require(s == NULL, "irm_target_as_string failed but set *out");
    return rc;
  }
  ck_require(strcmp(irm_string_data(s), c->expected) == 0, "printed '%s', expected '%s'", irm_string_data(s),
             c->expected);
  irm_object_release(s);
  return 0;
}

START_TEST(test_oom_target_as_string) {
  as_string_ctx c;
  c.target = new_target(target_text);
  irm_object *s = NULL;
  ck_assert_ok(irm_target_as_string(c.target, &s));
  ck_assert_uint_lt(irm_string_size(s), sizeof c.expected);
  strcpy(c.expected, irm_string_data(s));
  irm_object_release(s);
  operation op = {"irm_target_as_string", NULL, run_target_as_string, NULL, &c, 0};
  sweep(&op);
  irm_object_release(c.target);
}
END_TEST

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
  ck_require(irm_module_mod_name(m) != NULL && strcmp(irm_module_mod_name(m), "tiny") == 0,
             "mod_name lost");
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
  operation op = {"irm_module_new (target, executor, runtime, mod_name, params)", NULL, run_module_new, NULL, &c, 0};
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
  irm_module *base;   /* a configured module, kept for the whole test */
  const char *key;
  irm_any value;      /* borrowed */
  int sole;           /* set_attr_move on a module only the run owns */
  irm_module *mod;    /* the module the run works on (prepare) */
  irm_module *other;  /* a second reference to it when shared */
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
    ck_require(v->type_code == c->value.type_code && v->v_int == c->value.v_int,
               "attribute %s has another value", c->key);
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
      operation op = {what, prepare_set_attr, run_set_attr_move, after_set_attr_move, &c,
                      sole && (attr_cases[i].kind == 1 || attr_cases[i].kind == 3)};
      sweep(&op);
    } else {
      c.snap = snapshot(c.base);
      operation op = {what, NULL, run_with_attr, after_with_attr, &c, 0};
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
  operation op = {"irm_module_freeze", NULL, run_freeze, after_freeze, &c, 0};
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
  operation op = {"ffi.ToJSON + ffi.FromJSON of a configured module", NULL, run_json_round_trip,
                  after_json_round_trip, &c, 0};
  sweep(&op);
  irm_object_release(c.mod);
}
END_TEST

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
  operation op = {"irm_pass_context_new (config, instrument)", NULL, run_pass_context_new, NULL, &c, 0};
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
  operation op = {"irm_pass_run (Sequential(A,B), timing)", prepare_pass_run, run_pass_run, after_pass_run, &c, 0};
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
  operation op = {"enter a timing context, irm_pass_run (Sequential(A,B)), exit", prepare_enter_run,
                  run_enter_run_exit, after_enter_run_exit, &e, 0};
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
  operation op = {"irm_pipeline_parse(Sequential(A,B))", NULL, run_pipeline_parse, NULL, NULL, 0};
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
  operation op = {"irm_pipeline_print(Sequential(A,B))", NULL, run_pipeline_print, NULL, p, 0};
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
  operation op = {"irm_pass_get_config (context, module attribute, default)", NULL, run_get_config, NULL, &c,
                  1 /* values are retained, not copied */};
  sweep(&op);
  ck_assert_ok(irm_pass_context_exit(pc));
  irm_object_release(pc);
  irm_object_release(c.mod);
}
END_TEST

/* ---- suite -------------------------------------------------------------- */

/* ---- FuseOps ------------------------------------------------------------------ */

typedef struct fuse_ctx {
  irm_module *mod, *want, *out;
} fuse_ctx;

static int run_fuse_ops(void *ctx) {
  fuse_ctx *c = ctx;
  int rc = irm_ir_fuse_ops(c->mod, 256, &c->out);
  ck_require(rc == 0 || c->out == NULL, "irm_ir_fuse_ops failed but gave a result");
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
  ck_assert_int_eq(irm_ir_parse(text, sizeof text - 1, &parsed), 0);
  ck_assert_int_eq(irm_ir_infer_type(parsed, &c.mod), 0);
  ck_assert_int_eq(irm_ir_fuse_ops(c.mod, 256, &c.want), 0);
  operation op = {"irm_ir_fuse_ops", NULL, run_fuse_ops, after_fuse_ops, &c, 0};
  sweep(&op);
  irm_object_release(c.want);
  irm_object_release(c.mod);
  irm_object_release(parsed);
}
END_TEST

static Suite *alloc_sweep_ir_suite(void) {
  Suite *s = suite_create("alloc_sweep_ir");

  TCase *tc = tcase_create("out_of_memory");
  tcase_add_test(tc, test_oom_executor_create_from_4_options);
  tcase_add_test(tc, test_oom_executor_from_map);
  tcase_add_test(tc, test_oom_target_parse);
  tcase_add_test(tc, test_oom_target_as_string);
  tcase_add_test(tc, test_oom_module_new_with_config_attrs);
  tcase_add_test(tc, test_oom_module_with_attr);
  tcase_add_test(tc, test_oom_module_set_attr_move_on_a_shared_module);
  tcase_add_test(tc, test_oom_module_set_attr_move_on_a_sole_owner_module);
  tcase_add_test(tc, test_oom_module_freeze);
  tcase_add_test(tc, test_oom_json_round_trip_of_a_configured_module);
  tcase_add_test(tc, test_oom_pass_context_new_with_config_and_an_instrument);
  tcase_add_test(tc, test_oom_pass_run_of_a_sequential_under_a_timing_context);
  tcase_add_test(tc, test_oom_entering_running_and_exiting_a_timing_context);
  tcase_add_test(tc, test_oom_pipeline_parse);
  tcase_add_test(tc, test_oom_pipeline_print);
  tcase_add_test(tc, test_oom_pass_get_config);
  tcase_add_test(tc, test_oom_fuse_ops);
  tcase_set_timeout(tc, 240);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  /* Before any other irm call: every allocation irm makes is counted. */
  if (install_counting_allocator("check_alloc_sweep_ir") != 0) return EXIT_FAILURE;
  return run_suite(alloc_sweep_ir_suite());
}
