/* irm_build (build.h): the compilation driver. The steps, each failing
 * with "in build of '<mod_name>': " as context and leaving the input
 * untouched (it is immutable; the driver works on a new module):
 *   1. targets, executor and runtime from the arguments (build_args.c);
 *   2. every target kind buildable (c, llvm, or a "codegen" attribute);
 *   3. the executor's and runtime's validate attributes;
 *   4. a new module with target, executor, runtime, mod_name and params
 *      (each key a parameter of main), its CompilationConfig, and the
 *      functions' pinned targets checked;
 *   5. MigratePassConfig, freeze, the executor's pipeline (the pass
 *      manager verifies after each pass);
 *   6. external codegens (codegen.ext.<Compiler>), the symbols main calls
 *      defined by their C artifacts, and executor.codegen;
 *   7. the result Map. */
#include <stdio.h>
#include <string.h>

#include "lower/plan.h"
#include "backend_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/pass.h"
#include "irm/structural.h"
#include "irm/target.h"

/* ---- checks ------------------------------------------------------------------------ */

static int check_buildable(const irm_object *t) {
  for (; t; t = irm_target_host(t)) {
    const char *kind = irm_target_kind_name(t);
    if (strcmp(kind, "c") == 0 || strcmp(kind, "llvm") == 0) continue;
    irm_any cg = irm_any_none();
    int rc = irm_backend_kind_attr_(irm_target_kind(t), IRM_TARGET_CODEGEN_ATTR, &cg);
    int has = cg.type_code != IRM_NONE;
    irm_any_release(&cg);
    if (rc) return rc;
    if (!has)
      return irm_error(IRM_EVALUE,
                       "target kind '%s' cannot be built: code is generated for 'c' and 'llvm'; "
                       "register a '%s' kind attribute for '%s' (target.SetKindAttr) to build it",
                       kind, IRM_TARGET_CODEGEN_ATTR, kind);
  }
  return IRM_OK;
}

/* Calls attr of cfg's kind with (executor, runtime) when it is set. */
static int run_validate(const irm_object *cfg, const char *attr, irm_object *e, irm_object *r) {
  irm_any f = irm_any_none();
  int rc = irm_backend_kind_attr_(irm_config_kind(cfg), attr, &f);
  if (rc || f.type_code == IRM_NONE) return rc;
  irm_any args[2] = {irm_any_object(e), irm_any_object(r)}, ret = irm_any_none();
  if (f.type_code != IRM_OBJECT || irm_object_type_index(f.v_obj) != IRM_TYPE_FUNCTION)
    rc = irm_error(IRM_ETYPE, "kind attribute '%s' of %s '%s': expected ffi.Function, got %s", attr,
                   cfg == e ? "executor" : "runtime", irm_config_kind_name(cfg), irm_any_describe_(&f));
  else rc = irm_func_call(f.v_obj, args, 2, &ret);
  irm_any_release(&ret);
  irm_any_release(&f);
  return rc;
}

/* Each function pinned by its `target` attribute names one of cfg's
 * primitive targets (the target of its device type, equal once given the
 * build's host). */
static int check_pinned(const irm_module *mod, const irm_compilation_config *cfg) {
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_any t = irm_any_none();
    rc = irm_base_func_get_attr(irm_module_function(mod, name), IRM_BASE_FUNC_ATTR_TARGET, &t);
    if (rc || t.type_code == IRM_NONE) continue;
    int64_t device = -1;
    rc = irm_target_device_type(t.v_obj, &device);
    irm_object *mine = rc ? NULL : irm_compilation_config_find_primitive_target(cfg, device);
    irm_object *pinned = NULL, *text = NULL;
    int eq = 0;
    if (!rc && mine) rc = irm_target_with_host(t.v_obj, irm_compilation_config_host_target(cfg), &pinned);
    if (!rc && mine) {
      irm_any a = irm_any_object(pinned), b = irm_any_object(mine);
      rc = irm_structural_equal(&a, &b, &eq);
    }
    if (!rc && !eq) {
      irm_object *ours = NULL;
      rc = irm_target_as_string(t.v_obj, &text);
      if (!rc && mine) rc = irm_target_as_string(mine, &ours);
      if (!rc)
        rc = mine ? irm_error(IRM_EVALUE,
                              "function '%s' is pinned to target '%s', but the build's target for "
                              "device type %lld is '%s'",
                              name, irm_string_data(text), (long long)device, irm_string_data(ours))
                  : irm_error(IRM_EVALUE,
                              "function '%s' is pinned to target '%s' (device type %lld), which is "
                              "none of the build's targets",
                              name, irm_string_data(text), (long long)device);
      irm_object_release(ours);
    }
    irm_object_release(text);
    irm_object_release(pinned);
    irm_any_release(&t);
  }
  irm_object_release(names);
  return rc;
}

/* Whether node is a Constant holding the tensor ctx (stops the walk). */
static int holds_tensor(void *ctx, irm_object *node) {
  return irm_expr_kind_of(node) == IRM_EXPR_CONSTANT && irm_constant_data(node) == ctx ? 1 : IRM_OK;
}

/* Every key of the module's params binds something: it names a parameter of
 * main, or its tensor is a constant of main already (BindParams ran before
 * the build). The key names the constant in the generated code and the
 * params file, so a key that binds nothing is a mistake (and is data no
 * generated file should carry). */
static int check_params(const irm_module *m) {
  const irm_object *params = irm_module_params(m);
  irm_object *main = irm_module_function(m, "main");
  if (!params || !main || irm_expr_kind_of(main) != IRM_EXPR_FUNCTION) return IRM_OK;
  size_t n = irm_function_param_count(main);
  irm_map_iter it = irm_map_iter_begin(params);
  const irm_object *key;
  const irm_any *v;
  while (irm_map_iter_next(&it, &key, &v)) {
    const char *name = irm_string_data(key);
    bool found = false;
    for (size_t i = 0; i < n && !found; i++) found = strcmp(irm_var_name(irm_function_param(main, i)), name) == 0;
    if (!found && v->type_code == IRM_OBJECT)
      found = irm_expr_visit(irm_function_body(main), holds_tensor, v->v_obj) == 1;
    if (found) continue;
    irm_text_buf list;
    irm_text_buf_init_(&list, NULL, 0);
    const char **names = irm_calloc(n ? n : 1, sizeof *names);
    for (size_t i = 0; i < n; i++) {
      const char *p = irm_var_name(irm_function_param(main, i));
      if (names) names[i] = p;
      if (i < 16) irm_text_buf_printf_(&list, "%s%%%s", i ? ", " : "", p);
    }
    if (n > 16) irm_text_buf_printf_(&list, ", ... (%zu in all)", n);
    const char *best = names ? irm_closest_name(name, names, n) : NULL;
    int rc = irm_error(IRM_EVALUE, "params entry '%s' names no parameter of main%s%s%s; main's parameters: %s",
                       irm_error_quote(name), best ? " (closest: %" : "", best ? best : "", best ? ")" : "",
                       n ? irm_text_buf_cstr_(&list) : "none");
    irm_free(names);
    irm_text_buf_free_(&list);
    return rc;
  }
  return IRM_OK;
}

/* ---- the module ------------------------------------------------------------------------ */

/* A new (unfrozen) module with mod's functions and attributes, and the
 * build's configuration set. */
static int configured_module(const irm_module *mod, irm_object *targets, irm_object *e, irm_object *r,
                             const irm_object *params, const char *mod_name, irm_module **out) {
  irm_object *names = NULL, *functions = NULL, *attrs = NULL;
  int rc = irm_module_function_names(mod, &names);
  if (!rc) rc = irm_map_new(&functions);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_any f = irm_any_object(irm_module_function(mod, name));
    rc = irm_map_set_move(&functions, name, &f);
  }
  if (!rc) {
    attrs = (irm_object *)irm_dict_attrs_map(irm_module_attrs(mod));
    irm_object_retain(attrs);
  }
  irm_any t = irm_any_object(targets), ea = irm_any_object(e), ra = irm_any_object(r), n = irm_any_str(mod_name),
          p = irm_any_object((irm_object *)params);
  if (!rc) rc = irm_map_set_move(&attrs, IRM_ATTR_TARGET, &t);
  if (!rc) rc = irm_map_set_move(&attrs, IRM_ATTR_EXECUTOR, &ea);
  if (!rc) rc = irm_map_set_move(&attrs, IRM_ATTR_RUNTIME, &ra);
  if (!rc) rc = irm_map_set_move(&attrs, IRM_ATTR_MOD_NAME, &n);
  if (!rc && params) rc = irm_map_set_move(&attrs, IRM_ATTR_PARAMS, &p);
  if (!rc) rc = irm_module_new(functions, attrs, out);
  irm_object_release(names);
  irm_object_release(functions);
  irm_object_release(attrs);
  return rc;
}

/* The module's `target` becomes the config's primitive targets, each with
 * the one host (*m is the caller's only reference: changed in place, which
 * empties its cache), and *cfg the config of the result. */
static int with_hosts(irm_module **m, irm_object **cfg) {
  const irm_object *prims = irm_compilation_config_primitive_targets(*cfg);
  irm_any t = irm_array_size(prims) == 1 && irm_is_target(irm_module_target(*m)) ? *irm_array_at(prims, 0)
                                                                                 : irm_any_object((irm_object *)prims);
  int rc = irm_module_set_attr_move(m, IRM_ATTR_TARGET, &t);
  if (rc) return rc;
  irm_object_release(*cfg);
  *cfg = NULL;
  return irm_module_compilation_config(*m, cfg);
}

/* The executor kind's pipeline, run on the frozen module. */
static int run_pipeline(irm_module *frozen, const irm_compilation_config *cfg, irm_module **out) {
  irm_object *e = irm_compilation_config_executor(cfg);
  irm_any f = irm_any_none(), pass = irm_any_none();
  int rc = irm_backend_kind_attr_(irm_config_kind(e), IRM_EXECUTOR_PIPELINE_ATTR, &f);
  if (!rc && f.type_code == IRM_NONE)
    rc = irm_error(IRM_EVALUE,
                   "executor '%s' has no '%s' kind attribute: set a Function (config) -> Pass with "
                   "executor.SetKindAttr('%s', '%s', ...)",
                   irm_config_kind_name(e), IRM_EXECUTOR_PIPELINE_ATTR, irm_config_kind_name(e),
                   IRM_EXECUTOR_PIPELINE_ATTR);
  if (!rc && (f.type_code != IRM_OBJECT || irm_object_type_index(f.v_obj) != IRM_TYPE_FUNCTION))
    rc = irm_error(IRM_ETYPE, "kind attribute '%s' of executor '%s': expected ffi.Function, got %s",
                   IRM_EXECUTOR_PIPELINE_ATTR, irm_config_kind_name(e), irm_any_describe_(&f));
  irm_any arg = irm_any_object((irm_object *)cfg);
  if (!rc) rc = irm_func_call(f.v_obj, &arg, 1, &pass);
  if (!rc && (pass.type_code != IRM_OBJECT || !irm_object_is(pass.v_obj, "transform.Pass")))
    rc = irm_error(IRM_ETYPE, "the '%s' of executor '%s' gave %s, not a transform.Pass", IRM_EXECUTOR_PIPELINE_ATTR,
                   irm_config_kind_name(e), irm_any_describe_(&pass));
  if (!rc) rc = irm_pass_run(pass.v_obj, frozen, out);
  irm_any_release(&pass);
  irm_any_release(&f);
  return rc;
}

/* ---- code generation ------------------------------------------------------------------- */

/* Adds file name (a code generator's artifact); a name given before is a
 * ValueError (two code generators would overwrite each other's file). */
static int add_artifact(irm_object **artifacts, const char *name, const irm_any *v, const char *who) {
  if (irm_map_find_cstr(*artifacts, name))
    return irm_error(IRM_EVALUE,
                     "%s gave the artifact '%s', which another code generator gave already: name "
                     "artifacts after their function",
                     who, name);
  return irm_map_set_move(artifacts, name, v);
}

/* Adds what a codegen gave: a String as file `name`, or a Map of files. */
static int add_artifacts(irm_object **artifacts, const irm_any *got, const char *name, const char *who) {
  if (got->type_code == IRM_OBJECT && irm_string_data(got->v_obj)) return add_artifact(artifacts, name, got, who);
  if (got->type_code != IRM_OBJECT || irm_object_type_index(got->v_obj) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "%s gave %s; expected a String or a Map file name -> String", who,
                     irm_any_describe_(got));
  irm_map_iter it = irm_map_iter_begin(got->v_obj);
  const irm_object *k;
  const irm_any *v;
  int rc = IRM_OK;
  while (!rc && irm_map_iter_next(&it, &k, &v)) {
    if (v->type_code != IRM_OBJECT || !irm_string_data(v->v_obj))
      rc = irm_error(IRM_ETYPE, "%s: artifact '%s': expected a String, got %s", who, irm_string_data(k),
                     irm_any_describe_(v));
    else rc = add_artifact(artifacts, irm_string_data(k), v, who);
  }
  return rc;
}

/* Functions with a `Compiler` go to codegen.ext.<Compiler>(function, name);
 * a String result is the file "<name>.<Compiler>". */
static int external_codegens(const irm_module *mod, irm_object **artifacts) {
  irm_object *names = NULL;
  int rc = irm_module_function_names(mod, &names);
  for (size_t i = 0; !rc && i < irm_array_size(names); i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    irm_object *func = irm_module_function(mod, name);
    irm_any c = irm_any_none(), got = irm_any_none();
    rc = irm_base_func_get_attr(func, IRM_BASE_FUNC_ATTR_COMPILER, &c);
    const char *compiler = NULL;
    if (rc || c.type_code == IRM_NONE || irm_any_to_str(&c, &compiler, NULL)) {
      irm_any_release(&c);
      continue;
    }
    char global[256], file[512], who[320];
    snprintf(global, sizeof global, "codegen.ext.%s", compiler);
    snprintf(file, sizeof file, "%s.%s", name, compiler);
    snprintf(who, sizeof who, "%s for function '%s'", global, name);
    irm_object *f = NULL;
    rc = irm_func_get_global(global, &f);
    if (!rc && !f)
      rc = irm_error(IRM_EVALUE,
                     "function '%s' has Compiler '%s', but no global '%s' is registered: register "
                     "it to generate its code",
                     name, irm_error_quote(compiler), global);
    irm_any args[2] = {irm_any_object(func), irm_any_str(name)};
    if (!rc) rc = irm_func_call(f, args, 2, &got);
    if (rc == IRM_OK) rc = add_artifacts(artifacts, &got, file, who);
    else if (f) rc = irm_error_context(rc, "%s", who);
    irm_any_release(&got);
    irm_object_release(f);
    irm_any_release(&c);
  }
  irm_object_release(names);
  return rc;
}

/* executor.codegen(mod, config) -> Map of files, when the kind has one. */
static int executor_codegen(irm_module *mod, const irm_compilation_config *cfg, irm_object **artifacts) {
  irm_object *e = irm_compilation_config_executor(cfg);
  irm_any f = irm_any_none(), got = irm_any_none();
  int rc = irm_backend_kind_attr_(irm_config_kind(e), IRM_EXECUTOR_CODEGEN_ATTR, &f);
  if (rc || f.type_code == IRM_NONE) return rc; /* a kind without a code generator */
  char who[128];
  snprintf(who, sizeof who, "the '%s' of executor '%s'", IRM_EXECUTOR_CODEGEN_ATTR, irm_config_kind_name(e));
  irm_any args[2] = {irm_any_object(mod), irm_any_object((irm_object *)cfg)};
  if (f.type_code != IRM_OBJECT || irm_object_type_index(f.v_obj) != IRM_TYPE_FUNCTION)
    rc = irm_error(IRM_ETYPE, "%s: expected ffi.Function, got %s", who, irm_any_describe_(&f));
  if (!rc) rc = irm_func_call(f.v_obj, args, 2, &got);
  if (!rc) rc = add_artifacts(artifacts, &got, "module", who);
  irm_any_release(&got);
  irm_any_release(&f);
  return rc;
}

/* ---- the driver --------------------------------------------------------------------------- */

int irm_build_prepare_(const irm_module *mod, const irm_any *target, const irm_any *target_host,
                       const irm_object *executor, const irm_object *runtime, const irm_object *params,
                       const char *mod_name, irm_module **frozen) {
  irm_object *targets = NULL, *le = NULL, *lr = NULL, *e = NULL, *r = NULL, *cfg = NULL;
  irm_module *m = NULL, *migrated = NULL;
  irm_pass *migrate = NULL;
  *frozen = NULL;
  int rc = irm_build_resolve_targets_(target, target_host, &targets, &le, &lr);
  if (!rc) rc = irm_build_pick_config_("executor", executor, le, "graph", &e);
  if (!rc) rc = irm_build_pick_config_("runtime", runtime, lr, "cpp", &r);
  if (!rc) {
    size_t n = irm_is_target(targets) ? 1 : irm_array_size(targets);
    for (size_t i = 0; !rc && i < n; i++)
      rc = check_buildable(n == 1 && irm_is_target(targets) ? targets : irm_array_at(targets, i)->v_obj);
  }
  if (!rc) rc = run_validate(e, IRM_EXECUTOR_VALIDATE_ATTR, e, r);
  if (!rc) rc = run_validate(r, IRM_RUNTIME_VALIDATE_ATTR, e, r);
  if (!rc) rc = configured_module(mod, targets, e, r, params, mod_name, &m);
  if (!rc) rc = check_params(m);
  if (!rc) rc = irm_module_compilation_config(m, &cfg);
  if (!rc) rc = with_hosts(&m, &cfg);
  if (!rc) rc = check_pinned(m, cfg);
  if (!rc) rc = irm_pass_get("MigratePassConfig", NULL, &migrate);
  if (!rc) rc = irm_pass_run(migrate, m, &migrated);
  if (!rc) rc = irm_module_freeze(migrated, frozen);
  irm_object_release(targets);
  irm_object_release(le);
  irm_object_release(lr);
  irm_object_release(e);
  irm_object_release(r);
  irm_object_release(cfg);
  irm_object_release(m);
  irm_object_release(migrated);
  irm_object_release(migrate);
  return rc;
}

static int build(const irm_module *mod, const irm_any *target, const irm_any *target_host, const irm_object *executor,
                 const irm_object *runtime, const irm_object *params, const char *mod_name, irm_object **result) {
  irm_object *cfg = NULL, *artifacts = NULL;
  irm_module *frozen = NULL, *final = NULL;
  int rc = irm_build_prepare_(mod, target, target_host, executor, runtime, params, mod_name, &frozen);
  if (!rc) rc = irm_module_compilation_config(frozen, &cfg); /* the config the pipeline sees (cached in it) */
  if (!rc) rc = run_pipeline(frozen, cfg, &final);
  if (!rc) rc = irm_map_new(&artifacts);
  if (!rc) rc = external_codegens(final, &artifacts);
  if (!rc) rc = irm_plan_check_externs_(final, artifacts);
  if (!rc) rc = executor_codegen(final, cfg, &artifacts);
  if (!rc) {
    irm_object *p = irm_module_params(final), *empty = NULL;
    if (!p) rc = irm_map_new(&empty);
    const char *keys[] = {"module", "artifacts", "params"};
    irm_any values[] = {irm_any_object(final), irm_any_object(artifacts), irm_any_object(p ? p : empty)};
    if (!rc) rc = irm_map_from_pairs(keys, values, 3, result);
    irm_object_release(empty);
  }
  irm_object_release(cfg);
  irm_object_release(artifacts);
  irm_object_release(frozen);
  irm_object_release(final);
  return rc;
}

int irm_build(const irm_module *mod, const irm_any *target, const irm_any *target_host, const irm_object *executor,
              const irm_object *runtime, const irm_object *params, const char *mod_name, irm_object **result) {
  if (!result) return irm_error(IRM_EVALUE, "irm_build: result must not be NULL");
  *result = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  if (!mod_name) mod_name = "default";
  if (!irm_object_is(mod, "ir.IRModule"))
    rc = irm_error(IRM_ETYPE, "module: expected ir.IRModule, got %s", mod ? irm_object_type_key(mod) : "NULL");
  else if (executor && !irm_object_is(executor, "ir.Executor"))
    rc = irm_error(IRM_ETYPE, "executor: expected ir.Executor, got %s", irm_object_type_key(executor));
  else if (runtime && !irm_object_is(runtime, "ir.Runtime"))
    rc = irm_error(IRM_ETYPE, "runtime: expected ir.Runtime, got %s", irm_object_type_key(runtime));
  else if (params && irm_object_type_index(params) != IRM_TYPE_MAP)
    rc = irm_error(IRM_ETYPE, "params: expected ffi.Map, got %s", irm_object_type_key(params));
  else if (!mod_name[0]) rc = irm_error(IRM_EVALUE, "mod_name must not be empty");
  else rc = build(mod, target, target_host, executor, runtime, params, mod_name, result);
  return rc ? irm_error_context(rc, "in build of '%s'", irm_error_quote(mod_name)) : IRM_OK;
}
