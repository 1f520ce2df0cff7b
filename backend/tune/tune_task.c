/* tune.ExtractTasks (irm/tune_measure.h, docs/tuning.md "Tasks and
 * measurement"): the tunable workloads tune.ListTunables finds (the same
 * walk, tune_list.c), each with a module of its one call that a
 * measurement builds. */
#include <stdio.h>
#include <string.h>

#include "backend_internal.h"
#include "irm/config.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/json.h"
#include "irm/tune_measure.h"
#include "tune_internal.h"

static const char *map_str(const irm_object *m, const char *key) {
  const irm_any *v = irm_map_find_cstr(m, key);
  const char *s = NULL;
  return v && !irm_any_to_str(v, &s, NULL) ? s : "";
}

/* main(p0, p1, ...) = op(p0, p1, ...) with call's attributes; *out NEW. */
static int one_call(const irm_object *call, irm_object **out) {
  size_t n = irm_call_arg_count(call);
  irm_object **params = irm_calloc(n + 1, sizeof *params), *body = NULL;
  if (!params) return irm_error(IRM_ENOMEM, "out of memory making a task");
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) {
    char name[32];
    snprintf(name, sizeof name, "p%zu", i);
    rc = irm_var_new(name, irm_expr_type(irm_call_arg(call, i)), &params[i]);
  }
  if (!rc) rc = irm_call_new(irm_call_callee(call), params, n, irm_call_attrs(call), &body);
  if (!rc) rc = irm_function_new(params, n, body, irm_expr_type(call), NULL, out);
  for (size_t i = 0; i < n; i++) irm_object_release(params[i]);
  irm_free(params);
  irm_object_release(body);
  return rc;
}

/* The aot executor with the C interface and plain-pointer kernels, and
 * the crt runtime (one thread): what a measuring child calls directly. */
static int task_config(irm_object **executor, irm_object **runtime) {
  irm_object *opts = NULL;
  const char *keys[] = {"interface-api", "unpacked-api"};
  irm_any vals[] = {irm_any_str("c"), irm_any_bool(true)};
  int rc = irm_map_from_pairs(keys, vals, 2, &opts);
  if (!rc) rc = irm_executor_create("aot", opts, executor);
  if (!rc) rc = irm_runtime_create("crt", NULL, runtime);
  irm_object_release(opts);
  return rc;
}

/* The task's fields as ToJSON text (the tune.task attribute). */
static int task_json(const irm_object *fields, irm_object **out) {
  irm_any v = irm_any_object((irm_object *)fields);
  return irm_to_json(&v, out);
}

/* The task Map of found item f built for target (text, features). */
static int task_of(const irm_tune_found_list_ *l, const irm_tune_found_ *f, const char *target, const char *features,
                   irm_object **out) {
  irm_text_buf key;
  irm_text_buf_init_(&key, NULL, 0);
  const char *parts[] = {map_str(f->space, "family"), "|", map_str(f->space, "workload"), "|float32|", target, "|",
                         features};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) irm_text_buf_puts_(&key, parts[i]);
  if (key.failed) {
    irm_text_buf_free_(&key);
    return irm_error(IRM_ENOMEM, "out of memory making a task");
  }
  const irm_any *knobs = irm_map_find_cstr(f->space, "knobs"), *size = irm_map_find_cstr(f->space, "size");
  double sz = 0;
  if (size && irm_any_to_float(size, &sz)) irm_clear_error();
  const char *keys[] = {"family", "workload", "op", "knobs", "size", "calls", "target", "features", "key"};
  irm_any vals[] = {irm_any_str(map_str(f->space, "family")),
                    irm_any_str(map_str(f->space, "workload")),
                    irm_any_str(f->op),
                    knobs ? *knobs : irm_any_none(),
                    irm_any_int((int64_t)sz),
                    irm_any_int(f->calls),
                    irm_any_str(target),
                    irm_any_str(features),
                    irm_any_str(irm_text_buf_cstr_(&key))};
  irm_object *fields = NULL, *json = NULL, *main = NULL, *funcs = NULL, *attrs = NULL, *executor = NULL,
             *runtime = NULL;
  irm_module *task = NULL;
  int rc = irm_map_from_pairs(keys, vals, 9, &fields);
  irm_text_buf_free_(&key);
  if (!rc) rc = task_json(fields, &json);
  if (!rc) rc = one_call(f->call, &main);
  if (!rc) rc = task_config(&executor, &runtime);
  if (!rc) {
    const char *fkeys[] = {"main"};
    irm_any fvals[] = {irm_any_object(main)};
    rc = irm_map_from_pairs(fkeys, fvals, 1, &funcs);
  }
  if (!rc) {
    const char *akeys[] = {"target", "executor", "runtime", IRM_TUNE_TASK_KEY};
    irm_any avals[] = {irm_any_object(l->target), irm_any_object(executor), irm_any_object(runtime),
                       irm_any_object(json)};
    rc = irm_map_from_pairs(akeys, avals, 4, &attrs);
  }
  if (!rc) rc = irm_module_new(funcs, attrs, &task);
  irm_any tv = irm_any_object((irm_object *)task);
  if (!rc) rc = irm_map_set_move(&fields, "task", &tv);
  irm_object_release((irm_object *)task);
  irm_object_release(json);
  irm_object_release(main);
  irm_object_release(funcs);
  irm_object_release(attrs);
  irm_object_release(executor);
  irm_object_release(runtime);
  if (rc) {
    irm_object_release(fields);
    return rc;
  }
  *out = fields;
  return IRM_OK;
}

int irm_tune_extract_tasks(const irm_module *mod, const irm_any *target, irm_object **out) {
  if (!mod || !irm_object_is((const irm_object *)mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "irm_tune_extract_tasks: mod must be an ir.IRModule");
  irm_tune_found_list_ l;
  int rc = irm_tune_collect_(mod, target, &l);
  if (rc) return rc;
  char *text = NULL;
  irm_cc_isa_ isa;
  if (irm_cc_target_isa_(l.target, &isa)) { /* another architecture's CPU: records keyed on no features */
    irm_clear_error();
    isa.features[0] = '\0';
  }
  irm_any *items = irm_calloc(l.n + 1, sizeof *items);
  rc = items ? irm_tune_target_text_(l.target, &text) : irm_error(IRM_ENOMEM, "out of memory making tasks");
  for (size_t i = 0; i < l.n && !rc; i++) {
    irm_object *t = NULL;
    rc = task_of(&l, &l.items[i], text, isa.features, &t);
    items[i] = irm_any_object(t);
  }
  if (!rc) rc = irm_array_new(items, l.n, out);
  for (size_t i = 0; items && i < l.n; i++) irm_any_release(&items[i]);
  irm_free(items);
  irm_free(text);
  irm_tune_found_list_free_(&l);
  return rc;
}

/* tune.ExtractTasks(mod, target) -> Array of Map (irm_tune_extract_tasks) */
static int extract_tasks(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "tune.ExtractTasks";
  (void)resource;
  irm_object *mod = NULL, *list = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_tune_extract_tasks((irm_module *)mod, &args[1], &list);
  if (rc) return irm_error_context_global_(rc, fn);
  *ret = irm_any_object(list);
  return IRM_OK;
}

int irm_register_tune_task_globals_(void) {
  static const irm_builtin_global globals[] = {{"tune.ExtractTasks", extract_tasks}};
  int rc = irm_module_attr_register(IRM_TUNE_TASK_KEY, "str", 0);
  return rc ? rc : irm_global_register_builtins_(globals, 1);
}
