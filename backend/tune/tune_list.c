/* tune.ListTunables (docs/tuning.md, "Search spaces"): the tunable
 * workloads of a model for a target. The model is built (the pipeline's
 * layouts decide the workloads), then every call in the final main whose
 * op has FTuneSpace (irm/tune_db.h) is asked for its space; equal
 * workloads are listed once, with how many calls share them. */
#include <string.h>

#include "backend_internal.h"
#include "irm/container.h"
#include "irm/dataflow/expr.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/kind.h"
#include "irm/tune_db.h"
#include "tune_internal.h"

static const char *map_str(const irm_object *m, const char *key) {
  const irm_any *v = irm_map_find_cstr(m, key);
  const char *s = NULL;
  return v && !irm_any_to_str(v, &s, NULL) ? s : "";
}

/* Adds space (NEW, taken) of call unless an equal workload is there. */
static int add(irm_tune_found_list_ *w, irm_object *space, const char *op, irm_object *call) {
  for (size_t i = 0; i < w->n; i++)
    if (!strcmp(map_str(w->items[i].space, "family"), map_str(space, "family")) &&
        !strcmp(map_str(w->items[i].space, "workload"), map_str(space, "workload"))) {
      w->items[i].calls++;
      irm_object_release(space);
      return IRM_OK;
    }
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 8;
    irm_tune_found_ *p = irm_realloc(w->items, cap * sizeof *p);
    if (!p) {
      irm_object_release(space);
      return irm_error(IRM_ENOMEM, "out of memory listing tunables");
    }
    w->items = p, w->cap = cap;
  }
  irm_object_retain(call);
  w->items[w->n++] = (irm_tune_found_){space, op, 1, call};
  return IRM_OK;
}

static int visit(void *ctx, irm_object *node) {
  irm_tune_found_list_ *w = ctx;
  if (irm_expr_kind_of(node) != IRM_EXPR_CALL) return IRM_OK;
  irm_object *op = irm_call_callee(node);
  if (irm_expr_kind_of(op) != IRM_EXPR_OP) return IRM_OK;
  irm_any f = irm_any_none(), space = irm_any_none();
  if (irm_kind_get_attr(irm_op_kind(op), IRM_OP_ATTR_TUNE_SPACE, &f) || f.type_code != IRM_OBJECT) {
    irm_clear_error();
    irm_any_release(&f);
    return IRM_OK;
  }
  irm_any args[2] = {irm_any_object(node), w->target ? irm_any_object(w->target) : irm_any_none()};
  int rc = irm_func_call(f.v_obj, args, 2, &space);
  irm_any_release(&f);
  if (rc) return irm_error_context(rc, "FTuneSpace of op '%s'", irm_op_name(op));
  if (space.type_code == IRM_NONE) return IRM_OK;
  if (space.type_code != IRM_OBJECT || irm_object_type_index(space.v_obj) != IRM_TYPE_MAP) {
    irm_any_release(&space);
    return irm_error(IRM_ETYPE, "FTuneSpace of op '%s' must give a Map or None", irm_op_name(op));
  }
  return add(w, space.v_obj, irm_op_name(op), node);
}

/* The list: one Map per workload, FTuneSpace's fields plus "op" and "calls". */
static int result_of(const irm_tune_found_list_ *w, irm_object **out) {
  irm_any *items = irm_calloc(w->n + 1, sizeof *items);
  if (!items) return irm_error(IRM_ENOMEM, "out of memory listing tunables");
  int rc = IRM_OK;
  for (size_t i = 0; i < w->n && !rc; i++) {
    const char *keys[] = {"op", "family", "workload", "knobs", "size", "calls"};
    const irm_any *k = irm_map_find_cstr(w->items[i].space, "knobs"), *s = irm_map_find_cstr(w->items[i].space, "size");
    irm_any none = irm_any_none();
    irm_any v[] = {irm_any_str(w->items[i].op),
                   irm_any_str(map_str(w->items[i].space, "family")),
                   irm_any_str(map_str(w->items[i].space, "workload")),
                   k ? *k : none,
                   s ? *s : none,
                   irm_any_int(w->items[i].calls)};
    irm_object *m = NULL;
    rc = irm_map_from_pairs(keys, v, 6, &m);
    items[i] = irm_any_object(m);
  }
  if (!rc) rc = irm_array_new(items, w->n, out);
  for (size_t i = 0; i < w->n; i++) irm_any_release(&items[i]);
  irm_free(items);
  return rc;
}

int irm_tune_collect_(const irm_module *mod, const irm_any *target, irm_tune_found_list_ *out) {
  memset(out, 0, sizeof *out);
  int rc = irm_build(mod, target, NULL, NULL, NULL, NULL, "default", &out->result);
  const irm_any *final = out->result ? irm_map_find_cstr(out->result, "module") : NULL;
  if (!rc && !final) rc = irm_error(IRM_ERUNTIME, "the build gave no module");
  if (!rc) rc = irm_module_compilation_config((const irm_module *) final->v_obj, &out->cfg);
  if (!rc) {
    out->target = irm_compilation_config_default_primitive_target(out->cfg);
    irm_object *main = irm_module_function((const irm_module *) final->v_obj, "main");
    if (main) rc = irm_expr_visit(main, visit, out);
  }
  if (rc) irm_tune_found_list_free_(out);
  return rc;
}

void irm_tune_found_list_free_(irm_tune_found_list_ *l) {
  for (size_t i = 0; i < l->n; i++) {
    irm_object_release(l->items[i].space);
    irm_object_release(l->items[i].call);
  }
  irm_free(l->items);
  irm_object_release((irm_object *)l->cfg);
  irm_object_release(l->result);
  memset(l, 0, sizeof *l);
}

/* tune.ListTunables(mod, target) -> Array of Map {op, family, workload,
 * knobs, size, calls} */
static int list_tunables(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "tune.ListTunables";
  (void)resource;
  irm_object *mod = NULL, *list = NULL;
  irm_tune_found_list_ w;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc && !(rc = irm_tune_collect_((irm_module *)mod, &args[1], &w))) {
    rc = result_of(&w, &list);
    irm_tune_found_list_free_(&w);
  }
  if (rc) return irm_error_context_global_(rc, fn);
  *ret = irm_any_object(list);
  return IRM_OK;
}

int irm_register_tune_list_globals_(void) {
  static const irm_builtin_global globals[] = {{"tune.ListTunables", list_tunables}};
  return irm_global_register_builtins_(globals, 1);
}
