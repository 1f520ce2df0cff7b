/* The kind attributes the driver and the loader read (build.h, runtime.h):
 * the default pipeline of graph and aot, aot's compatibility check with
 * the runtime, and each one's code generator and executor.load. */
#include <string.h>

#include "backend_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/pass.h"
#include "irm/runtime.h"
#include "irm/target.h"
#include "load/load_internal.h"

/* The level of built-in attributes (executor.SetKindAttr's default), so
 * replacing one takes a higher level. */
enum { BUILTIN_PLEVEL = 10 };

int irm_backend_kind_attr_(const irm_kind *kind, const char *attr, irm_any *out) {
  *out = irm_any_none();
  int rc = irm_kind_get_attr(kind, attr, out);
  if (rc == IRM_EATTR) { /* no kind of the category has it: none */
    irm_clear_error();
    rc = IRM_OK;
  }
  return rc;
}

/* ---- the default pipeline -------------------------------------------------------- */

/* FakeQuantizationToInteger turns a QDQ model's dequantize -> float op ->
 * quantize regions into integer ops (the int8 kernels), right after
 * BindParams: the weights are still dequantize calls there, which
 * FoldConstant would fold to floats. A module without qnn.quantize is left
 * as it is. SimplifyInference turns batch norms into a scale and a shift,
 * the first FoldConstant folds them (FoldScaleAxis needs a Constant
 * scale), and FoldScaleAxis moves the scale into the convolution before
 * it: batch norms cost nothing at run time. */
static const char *const default_passes[] = {
    "InferType",
    "BindParams",
    "FakeQuantizationToInteger",
    "SimplifyInference",
    "FoldConstant",
    "FoldScaleAxis",
    "ConvertLayout",
    "SimplifyExpr",
    "InferType", /* FakeQuantizationToInteger's new nodes: AlterOpLayout reads types */
    "AlterOpLayout",
    "InferType",
    "FoldConstant",
    "DeadCodeElimination",
    "FuseOps"};

/* AlterOpLayout's options for the config's target: the channel block of
 * runtime/kernels under its flags, for a c or llvm target (none for
 * another kind, or when the compiler cannot tell). *out NEW or NULL. */
static int alter_layout_options(const irm_any *args, int32_t nargs, irm_object **out) {
  *out = NULL;
  if (nargs < 1 || args[0].type_code != IRM_OBJECT || !irm_object_is(args[0].v_obj, IRM_COMPILATION_CONFIG_TYPE_KEY))
    return IRM_OK;
  const irm_object *t = irm_compilation_config_default_primitive_target(args[0].v_obj);
  const char *kind = t && irm_is_target(t) ? irm_target_kind_name((const irm_target *)t) : NULL;
  if (!kind) return IRM_OK;
  irm_cc_isa_ isa;
  if (strcmp(kind, "c") != 0 && strcmp(kind, "llvm") != 0) return IRM_OK;
  if (irm_cc_target_isa_(t, &isa)) {
    irm_clear_error();
    return IRM_OK;
  }
  const char *key = "block";
  irm_any v = irm_any_int(isa.kernel_block);
  return irm_map_from_pairs(&key, &v, 1, out);
}

/* driver.DefaultPipeline([config]) -> Pass: the executor.pipeline of graph
 * and aot. The config's target sets AlterOpLayout's block (the convs then
 * run runtime/kernels on NCHW{x}c data). */
static int default_pipeline(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "driver.DefaultPipeline";
  (void)resource;
  int rc = irm_arg_count(fn, nargs, 0, 1);
  if (rc) return rc;
  enum { N = sizeof default_passes / sizeof default_passes[0] };
  irm_pass *passes[N] = {NULL};
  irm_object *alter = NULL;
  rc = alter_layout_options(args, nargs, &alter);
  for (size_t i = 0; i < N && !rc; i++)
    rc = irm_pass_get(default_passes[i], strcmp(default_passes[i], "AlterOpLayout") == 0 ? alter : NULL, &passes[i]);
  irm_object_release(alter);
  irm_pass *seq = NULL;
  if (!rc) rc = irm_sequential_new(passes, N, 0, "driver.default", &seq);
  for (size_t i = 0; i < N; i++) irm_object_release(passes[i]);
  return irm_ret_object(fn, rc, &seq, ret);
}

/* ---- aot's compatibility with the runtime ------------------------------------------ */

/* (executor, runtime) -> NONE: aot with crt needs unpacked-api = true or
 * interface-api = "packed"; with cpp unpacked-api = false and
 * interface-api = "packed" (TVM's AOT executor codegen checks). */
static int aot_validate(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "executor.validate of executor 'aot'";
  (void)ret;
  (void)resource;
  irm_object *e = NULL, *r = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.Executor", &e);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ir.Runtime", &r);
  if (rc) return rc;
  irm_any unpacked = irm_any_none(), api = irm_any_none();
  bool u = false;
  const char *a = "packed";
  rc = irm_config_get_attr(e, "unpacked-api", &unpacked);
  if (!rc) rc = irm_config_get_attr(e, "interface-api", &api);
  if (!rc && unpacked.type_code != IRM_NONE) rc = irm_any_to_bool(&unpacked, &u);
  if (!rc && api.type_code != IRM_NONE) rc = irm_any_to_str(&api, &a, NULL);
  const char *runtime = irm_config_kind_name(r);
  int packed = strcmp(a, "packed") == 0;
  if (!rc && strcmp(runtime, "crt") == 0 && !u && !packed)
    rc = irm_error(IRM_EVALUE,
                   "executor 'aot' with runtime 'crt' needs unpacked-api = true or interface-api = "
                   "\"packed\"; got unpacked-api = false and interface-api = \"%s\"",
                   irm_error_quote(a));
  if (!rc && strcmp(runtime, "cpp") == 0 && (u || !packed))
    rc = irm_error(IRM_EVALUE,
                   "executor 'aot' with runtime 'cpp' needs unpacked-api = false and interface-api = "
                   "\"packed\"; got unpacked-api = %s and interface-api = \"%s\"",
                   u ? "true" : "false", irm_error_quote(a));
  irm_any_release(&unpacked);
  irm_any_release(&api);
  return rc;
}

/* ---- registration ------------------------------------------------------------------- */

/* Sets attr of kind to a packed function unless the kind has a value. */
static int set_once(const char *category, const char *kind_name, const char *attr, irm_packed_cfunc cfn) {
  irm_kind *kind = NULL;
  int rc = irm_kind_find(category, kind_name, &kind);
  irm_any current = irm_any_none();
  if (!rc) rc = irm_backend_kind_attr_(kind, attr, &current);
  if (rc || current.type_code != IRM_NONE) {
    irm_any_release(&current);
    return rc;
  }
  irm_object *f = NULL;
  rc = irm_func_new_packed(cfn, NULL, NULL, &f);
  irm_any v = irm_any_object(f);
  if (!rc) rc = irm_kind_set_attr(kind, attr, &v, BUILTIN_PLEVEL);
  irm_object_release(f);
  return rc;
}

int irm_register_build_kinds_(void) {
  int rc = set_once("executor", "graph", IRM_EXECUTOR_PIPELINE_ATTR, default_pipeline);
  if (!rc) rc = set_once("executor", "aot", IRM_EXECUTOR_PIPELINE_ATTR, default_pipeline);
  if (!rc) rc = set_once("executor", "aot", IRM_EXECUTOR_VALIDATE_ATTR, aot_validate);
  if (!rc) rc = set_once("executor", "aot", IRM_EXECUTOR_CODEGEN_ATTR, irm_aot_codegen_packed_);
  if (!rc) rc = set_once("executor", "graph", IRM_EXECUTOR_CODEGEN_ATTR, irm_graph_codegen_packed_);
  if (!rc) rc = set_once("executor", "aot", IRM_EXECUTOR_LOAD_ATTR, irm_aot_load_packed_);
  if (!rc) rc = set_once("executor", "graph", IRM_EXECUTOR_LOAD_ATTR, irm_graph_load_packed_);
  if (!rc) {
    static const irm_builtin_global globals[] = {{"driver.DefaultPipeline", default_pipeline}};
    rc = irm_global_register_builtins_(globals, 1);
  }
  return rc;
}
