/* An example plugin adding an executor kind, "micro-aot": ahead-of-time
 * code for microcontrollers. Its options have defaults and docs; its kind
 * attributes say which runtime it expects, and "FCheckCompat" (also its
 * "executor.validate") is the compatibility check the build calls with
 * (executor, runtime): micro-aot needs the crt runtime. It plugs into
 * irm_build with no change to the driver: "executor.pipeline" gives its
 * own pipeline and "executor.codegen" its code generator, aot's code with
 * a timer around every kernel call (irm_crt.h's kernel hooks); its
 * libraries' metadata names "micro-aot", so runtime.Load hands them to its
 * "executor.load" with no change to the loader: aot's loader, after a
 * check that the library has the timers, with "kernel_timing" added to the
 * metadata. Everything is registered in init. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <irm/irm.h>

static int check_compat(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  (void)ret;
  irm_object *executor = NULL, *runtime = NULL;
  int rc = irm_arg_count("micro-aot.FCheckCompat", nargs, 2, 2);
  if (!rc) rc = irm_arg_object("micro-aot.FCheckCompat", args, 0, "ir.Executor", &executor);
  if (!rc) rc = irm_arg_object("micro-aot.FCheckCompat", args, 1, "ir.Runtime", &runtime);
  if (rc) return rc;
  if (strcmp(irm_config_kind_name(runtime), "crt") != 0)
    return irm_error(IRM_EVALUE, "executor 'micro-aot' needs runtime 'crt', got '%s'", irm_config_kind_name(runtime));
  return IRM_OK;
}

static int add_options(irm_kind *k) {
  irm_any c = irm_any_str("c"), sixteen = irm_any_int(16), no = irm_any_bool(false);
  int rc = irm_kind_add_option(k, "interface-api", IRM_OPTION_STR, &c,
                               "calling convention of the generated entry point (\"c\" only)", 0);
  if (!rc)
    rc = irm_kind_add_option(k, "workspace-byte-alignment", IRM_OPTION_INT, &sixteen,
                             "alignment of the static workspace, in bytes", 0);
  if (!rc)
    rc = irm_kind_add_option(k, "link-params", IRM_OPTION_BOOL, &no, "embed the parameters in the generated code", 0);
  return rc;
}

/* ---- its own pipeline and code generator ------------------------------------------ */

/* executor.pipeline: the default passes without ConvertLayout (the kernels
 * of a microcontroller keep the model's layout). (config) -> Pass. */
static int pipeline(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "micro-aot.pipeline";
  static const char *const names[] = {"InferType",    "BindParams",          "SimplifyExpr",
                                      "FoldConstant", "DeadCodeElimination", "FuseOps"};
  enum { N = sizeof names / sizeof names[0] };
  (void)args;
  (void)resource;
  int rc = irm_arg_count(fn, nargs, 0, 1);
  irm_pass *passes[N] = {NULL}, *seq = NULL;
  for (size_t i = 0; !rc && i < N; i++) rc = irm_pass_get(names[i], NULL, &passes[i]);
  if (!rc) rc = irm_sequential_new(passes, N, 0, "micro-aot.pipeline", &seq);
  for (size_t i = 0; i < N; i++) irm_object_release(passes[i]);
  return irm_ret_object(fn, rc, &seq, ret);
}

/* The per-call timing hooks of irm_crt.h, and what reads them. */
static const char timing_source[] =
    "/* micro-aot: kernel timing through irm_crt.h's hooks (IRM_CRT_KERNEL_HOOKS). */\n"
    "#define _POSIX_C_SOURCE 199309L\n"
    "#include <stdint.h>\n#include <time.h>\n\n"
    "enum { MICRO_AOT_MAX_STEPS = 4096 };\n"
    "static const char *names[MICRO_AOT_MAX_STEPS];\n"
    "static uint64_t calls[MICRO_AOT_MAX_STEPS], ns[MICRO_AOT_MAX_STEPS], started[MICRO_AOT_MAX_STEPS];\n"
    "static int32_t steps;\n\n"
    "static uint64_t now(void) {\n"
    "  struct timespec t;\n  clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;\n}\n\n"
    "void irm_crt_kernel_enter(int32_t step, const char *symbol) {\n"
    "  if (step < 0 || step >= MICRO_AOT_MAX_STEPS) return;\n"
    "  names[step] = symbol;\n  if (step >= steps) steps = step + 1;\n  started[step] = now();\n}\n\n"
    "void irm_crt_kernel_exit(int32_t step, const char *symbol) {\n"
    "  (void)symbol;\n  if (step < 0 || step >= MICRO_AOT_MAX_STEPS) return;\n"
    "  calls[step]++;\n  ns[step] += now() - started[step];\n}\n\n"
    "int32_t micro_aot_steps(void) { return steps; }\n"
    "const char *micro_aot_step_kernel(int32_t s) { return s >= 0 && s < steps ? names[s] : 0; }\n"
    "uint64_t micro_aot_step_calls(int32_t s) { return s >= 0 && s < steps ? calls[s] : 0; }\n"
    "uint64_t micro_aot_step_ns(int32_t s) { return s >= 0 && s < steps ? ns[s] : 0; }\n";

/* Returns a NEW Map: aot's artifacts, its C file compiled with the kernel
 * hooks on, and micro_aot_timing.c defining them. */
static int with_timing(const irm_object *artifacts, irm_object **out) {
  int rc = irm_map_new(out);
  irm_map_iter it = irm_map_iter_begin(artifacts);
  const irm_object *key;
  const irm_any *v;
  while (!rc && irm_map_iter_next(&it, &key, &v)) {
    const char *name = irm_string_data(key), *text = NULL;
    size_t len = strlen(name);
    if (strncmp(name, "tvmgen_", 7) == 0 && len > 2 && strcmp(name + len - 2, ".c") == 0)
      text = irm_string_data(v->v_obj);
    if (!text) {
      rc = irm_map_set_move(out, name, v);
      continue;
    }
    static const char define[] = "#define IRM_CRT_KERNEL_HOOKS /* micro-aot: kernel timing */\n";
    size_t n = strlen(text);
    char *both = malloc(sizeof define + n);
    if (!both) {
      rc = irm_error(IRM_ENOMEM, "micro-aot: out of memory");
      break;
    }
    memcpy(both, define, sizeof define - 1);
    memcpy(both + sizeof define - 1, text, n + 1);
    irm_object *s = NULL;
    rc = irm_string_new(both, sizeof define - 1 + n, &s);
    free(both);
    irm_any sv = irm_any_object(s);
    if (!rc) rc = irm_map_set_move(out, name, &sv);
    irm_object_release(s);
  }
  irm_object *t = NULL;
  if (!rc) rc = irm_string_new(timing_source, sizeof timing_source - 1, &t);
  irm_any tv = irm_any_object(t);
  if (!rc) rc = irm_map_set_move(out, "micro_aot_timing.c", &tv);
  irm_object_release(t);
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

/* executor.codegen: (mod, config) -> artifacts. aot's code generator (a kind
 * attribute, called as the driver would) with per-call timing added. */
static int codegen(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "micro-aot.codegen";
  (void)resource;
  irm_kind *aot = NULL;
  irm_any f = irm_any_none(), got = irm_any_none();
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_kind_find("executor", "aot", &aot);
  if (!rc) rc = irm_kind_get_attr(aot, "executor.codegen", &f);
  if (!rc && f.type_code != IRM_OBJECT)
    rc = irm_error(IRM_EVALUE, "micro-aot builds on executor 'aot', which has no code generator here");
  if (!rc) rc = irm_func_call(f.v_obj, args, 2, &got);
  if (!rc && (got.type_code != IRM_OBJECT || !irm_object_is(got.v_obj, "ffi.Map")))
    rc = irm_error(IRM_ETYPE, "micro-aot: aot's code generator gave no Map of files");
  irm_object *files = NULL;
  if (!rc) rc = with_timing(got.v_obj, &files);
  irm_any_release(&got);
  irm_any_release(&f);
  return irm_ret_object(fn, rc, &files, ret);
}

/* executor.load: (path, mod_name, metadata, handle) -> {"run", "metadata"}
 * (docs/runtime.md). The code is aot's, so aot's executor.load (a kind
 * attribute, called as runtime.Load would) loads it; micro-aot checks the
 * library is its own and says where the timings are. */
static int load(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "micro-aot.load";
  (void)resource;
  irm_kind *aot = NULL;
  irm_any f = irm_any_none(), got = irm_any_none();
  const char *path = NULL, *text = NULL;
  int rc = irm_arg_count(fn, nargs, 4, 4);
  if (!rc) rc = irm_arg_str(fn, args, 0, &path, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 2, &text, NULL);
  if (!rc && (args[3].type_code != IRM_PTR || !dlsym(args[3].v_ptr, "micro_aot_steps")))
    rc = irm_error(IRM_EVALUE, "micro-aot: library '%s' has no micro_aot_steps: it was not built by micro-aot", path);
  if (!rc) rc = irm_kind_find("executor", "aot", &aot);
  if (!rc) rc = irm_kind_get_attr(aot, "executor.load", &f);
  if (!rc && f.type_code != IRM_OBJECT)
    rc = irm_error(IRM_EVALUE, "micro-aot loads with executor 'aot', which has no executor.load here");
  if (!rc) rc = irm_func_call(f.v_obj, args, 4, &got);
  irm_any_release(&f);
  size_t n = text ? strlen(text) : 0;
  char *more = rc ? NULL : malloc(n + 64);
  if (!rc && !more) rc = irm_error(IRM_ENOMEM, "micro-aot: out of memory");
  irm_object *meta = NULL, *map = NULL;
  if (!rc) { /* the metadata object, one field longer */
    snprintf(more, n + 64, "%.*s, \"kernel_timing\": \"micro_aot_step_ns\"}", (int)(n ? n - 1 : 0), text);
    rc = irm_string_new(more, strlen(more), &meta);
  }
  free(more);
  irm_any mv = irm_any_object(meta);
  if (!rc) rc = irm_map_with_set(got.v_obj, "metadata", &mv, &map);
  irm_object_release(meta);
  irm_any_release(&got);
  return irm_ret_object(fn, rc, &map, ret);
}

/* Sets attr of k to a new packed function over body. */
static int set_func(irm_kind *k, const char *attr, irm_packed_cfunc body) {
  irm_object *f = NULL;
  int rc = irm_func_new_packed(body, NULL, NULL, &f);
  irm_any value = irm_any_object(f);
  if (!rc) rc = irm_kind_set_attr(k, attr, &value, 10);
  irm_object_release(f);
  return rc;
}

static int add_attrs(irm_kind *k) {
  irm_any crt = irm_any_str("crt"), yes = irm_any_bool(true);
  int rc = irm_kind_set_attr(k, "default_runtime", &crt, 10);
  if (!rc) rc = irm_kind_set_attr(k, "static_memory_plan", &yes, 10);
  if (!rc) rc = set_func(k, "FCheckCompat", check_compat);
  if (!rc) rc = set_func(k, "executor.validate", check_compat);
  if (!rc) rc = set_func(k, "executor.pipeline", pipeline);
  if (!rc) rc = set_func(k, "executor.codegen", codegen);
  return rc ? rc : set_func(k, "executor.load", load);
}

static int init(void) {
  irm_kind *k = NULL;
  int rc = irm_kind_register("executor", "micro-aot", &k);
  if (!rc) rc = add_options(k);
  return rc ? rc : add_attrs(k);
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("micro-aot-executor", "0.3.1", init);
IRM_PLUGIN_EXPORT(info);
