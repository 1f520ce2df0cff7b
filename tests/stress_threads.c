/* Thread stress: four threads at once register, override, look up, call and
 * remove globals; register kinds and options; make and parse targets; load
 * plugins; enter and leave PassContexts; run pipelines on shared modules.
 * A bounded number of rounds (not a time), so runs repeat. Built in every
 * build and, with IRM_SANITIZE_THREAD, under ThreadSanitizer, where it must
 * run without a report. Every object of the type it registers
 * ("stress.Token") and every function resource it makes must be finalised
 * by the end: it counts both.
 *
 * usage: stress_threads PASS_PLUGIN EXECUTOR_PLUGIN [ROUNDS] */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

enum { n_threads = 4, n_shared_globals = 4, default_rounds = 150 };

static atomic_long tokens_made, tokens_finalised, resources_made, resources_finalised;
static atomic_long failures;
static int32_t token_type;
static const char *plugin_paths[2];
static irm_module *shared_modules[2];
static long rounds = default_rounds;

/* A broken expectation: counted and reported (the first few), never fatal,
 * so one run shows them all. */
__attribute__((format(printf, 2, 3))) static void fail(int thread, const char *fmt, ...) {
  if (atomic_fetch_add(&failures, 1) >= 10) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "thread %d: ", thread);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (last error: %s)\n", irm_last_error());
  va_end(ap);
}

static void token_finalize(irm_object *self) {
  (void)self;
  atomic_fetch_add(&tokens_finalised, 1);
}

/* A new stress.Token as an irm_any owning it; NONE on failure. */
static irm_any token_new(void) {
  irm_object *o = NULL;
  if (irm_object_new(token_type, sizeof(long), &o)) return irm_any_none();
  *(long *)irm_object_payload(o) = atomic_fetch_add(&tokens_made, 1);
  return irm_any_object(o);
}

static void resource_finalize(void *resource) {
  free(resource);
  atomic_fetch_add(&resources_finalised, 1);
}

/* x -> x + *resource, holding a Token in a local Array while it runs. */
static int add_k(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  int64_t x;
  int rc = irm_arg_count("stress.add", nargs, 1, 1);
  if (!rc) rc = irm_arg_int("stress.add", args, 0, &x);
  if (rc) return rc;
  irm_any token = token_new();
  irm_object *arr = NULL;
  rc = irm_array_new(&token, 1, &arr);
  irm_any_release(&token);
  irm_object_release(arr);
  *ret = irm_any_int(x + *(const int64_t *)resource);
  return rc;
}

static irm_object *make_add(int64_t k) {
  int64_t *r = malloc(sizeof *r);
  irm_object *f = NULL;
  if (!r) return NULL;
  *r = k;
  if (irm_func_new_packed(add_k, r, resource_finalize, &f)) {
    free(r);
    return NULL;
  }
  atomic_fetch_add(&resources_made, 1);
  return f;
}

/* The pass StressMark: records a Token in the module attribute
 * "stress.mark". */
static int mark(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource, irm_module **out) {
  (void)ctx;
  (void)options;
  (void)resource;
  irm_any token = token_new();
  int rc = irm_module_with_attr(mod, "stress.mark", &token, out);
  irm_any_release(&token);
  return rc;
}

static int make_mark(const irm_object *options, irm_pass **out) {
  return irm_module_pass_new("StressMark", 0, NULL, 0, options, mark, NULL, NULL, out);
}

static void stress_globals(int id, long round) {
  char name[64];
  snprintf(name, sizeof name, "stress.shared%ld", (round + id) % n_shared_globals);
  irm_object *f = make_add(id), *g = NULL;
  if (!f) {
    fail(id, "making a function");
    return;
  }
  if (irm_func_register_global(name, f, 1)) fail(id, "overriding %s", name);
  irm_object_release(f);
  if (irm_func_get_global(name, &g) == 0 && g) {
    irm_any arg = irm_any_int(1), ret = irm_any_none();
    if (irm_func_call(g, &arg, 1, &ret)) fail(id, "calling %s", name);
    else if (ret.v_int < 1 || ret.v_int > n_threads) fail(id, "%s gave %lld", name, (long long)ret.v_int);
    irm_object_release(g);
  }
  /* Another thread may have removed it first: a KeyError, not a failure. */
  if (round % 3 == 0) (void)irm_func_remove_global(name);
}

static void stress_kinds(int id, long round) {
  char name[64];
  irm_kind *kind = NULL;
  irm_object *executor = NULL;
  irm_any level = irm_any_int(round), got = irm_any_none();
  snprintf(name, sizeof name, "stress-%d-%ld", id, round);
  if (irm_kind_register("executor", name, &kind) ||
      irm_kind_add_option(kind, "level", IRM_OPTION_INT, &level, "the round", 0)) {
    fail(id, "registering executor kind %s", name);
    return;
  }
  if (irm_executor_create(name, NULL, &executor) || irm_config_get_attr(executor, "level", &got) || got.v_int != round)
    fail(id, "executor %s", name);
  irm_any_release(&got);
  irm_object_release(executor);
  /* A kind another thread is registering right now: found or not, never torn. */
  snprintf(name, sizeof name, "stress-%d-%ld", (id + 1) % n_threads, round);
  if (irm_kind_find("executor", name, &kind) == 0 && strcmp(irm_kind_name(kind), name) != 0)
    fail(id, "kind %s found under another name", name);
}

static void stress_targets(int id, long round) {
  char text[96];
  irm_target *t = NULL, *back = NULL;
  irm_object *s = NULL;
  int eq = 0;
  snprintf(text, sizeof text, "llvm -mcpu=cpu%d -keys=k%ld --host='c -mcpu=h%d'", id, round % 7, id);
  if (irm_target_parse(text, &t) || irm_target_as_string(t, &s) || irm_target_parse(irm_string_data(s), &back)) {
    fail(id, "target %s", text);
  } else {
    irm_any a = irm_any_object(t), b = irm_any_object(back);
    if (irm_structural_equal(&a, &b, &eq) || !eq) fail(id, "target %s does not round-trip", text);
  }
  irm_object_release(back);
  irm_object_release(s);
  irm_object_release(t);
}

static void stress_passes(int id, long round) {
  irm_pass_context *ctx = NULL, *current = NULL;
  irm_pass *pipeline = NULL;
  irm_module *out = NULL;
  if (irm_pass_context_new((int)(round % 4), NULL, NULL, NULL, NULL, &ctx) || irm_pass_context_enter(ctx)) {
    fail(id, "entering a PassContext");
    irm_object_release(ctx);
    return;
  }
  if (irm_pass_context_current(&current) || current != ctx) fail(id, "the current PassContext");
  irm_object_release(current);
  if (irm_pipeline_parse("Sequential{opt_level=0}(ChooseDataLayout,StressMark)", &pipeline) ||
      irm_pass_run(pipeline, shared_modules[round % 2], &out)) {
    fail(id, "running the pipeline");
  } else {
    irm_any mark_value = irm_any_none();
    if (irm_module_get_attr(out, "stress.mark", &mark_value) || mark_value.type_code != IRM_OBJECT)
      fail(id, "the pipeline's mark");
    irm_any_release(&mark_value);
  }
  irm_object_release(out);
  irm_object_release(pipeline);
  if (irm_pass_context_exit(ctx)) fail(id, "leaving a PassContext");
  irm_object_release(ctx);
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  for (long round = 0; round < rounds; round++) {
    /* Every thread loads both plugins; the first load wins, the rest are no-ops. */
    if (round < 2 && irm_plugin_load(plugin_paths[(id + round) % 2])) fail(id, "loading a plugin");
    stress_globals(id, round);
    stress_kinds(id, round);
    stress_targets(id, round);
    if (round >= 2) stress_passes(id, round);
  }
  return NULL;
}

static int setup(void) {
  irm_type_info info = {sizeof info, "stress.Token", NULL, token_finalize, NULL, NULL, NULL, NULL, NULL, NULL};
  irm_target *target = NULL;
  int rc = irm_type_register(&info, &token_type);
  if (!rc) rc = irm_module_attr_register("stress.mark", "stress.Token", 0);
  if (!rc) rc = irm_pass_register("StressMark", make_mark, NULL);
  if (!rc) rc = irm_target_parse("llvm -keys=arm_cpu", &target);
  for (int i = 0; !rc && i < 2; i++) {
    irm_any token = token_new(), t = irm_any_object(target);
    rc = irm_module_new(NULL, NULL, &shared_modules[i]);
    if (!rc) rc = irm_module_set_attr_move(&shared_modules[i], "target", &t);
    if (!rc) rc = irm_module_set_attr_move(&shared_modules[i], "stress.mark", &token);
    irm_any_release(&token);
  }
  irm_object_release(target);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s PASS_PLUGIN EXECUTOR_PLUGIN [ROUNDS]\n", argv[0]);
    return 2;
  }
  plugin_paths[0] = argv[1];
  plugin_paths[1] = argv[2];
  if (argc > 3) rounds = strtol(argv[3], NULL, 10);
  if (setup()) {
    fprintf(stderr, "setup: %s\n", irm_last_error());
    return 1;
  }
  pthread_t threads[n_threads];
  for (int i = 0; i < n_threads; i++)
    if (pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i)) return 1;
  for (int i = 0; i < n_threads; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < 2; i++) irm_object_release(shared_modules[i]);
  for (int i = 0; i < n_shared_globals; i++) {
    char name[64];
    snprintf(name, sizeof name, "stress.shared%d", i);
    (void)irm_func_remove_global(name);
  }
  long made = atomic_load(&tokens_made), gone = atomic_load(&tokens_finalised);
  long fmade = atomic_load(&resources_made), fgone = atomic_load(&resources_finalised);
  printf("stress_threads: %d threads x %ld rounds: %ld tokens made, %ld finalised; "
         "%ld functions made, %ld finalised; %ld failures\n",
         n_threads, rounds, made, gone, fmade, fgone, atomic_load(&failures));
  if (made != gone || fmade != fgone) fprintf(stderr, "stress_threads: objects not finalised\n");
  return atomic_load(&failures) || made != gone || fmade != fgone;
}
