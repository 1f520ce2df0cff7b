/* Partitioning (partition.h): composite functions from pattern matches
 * (irm_pattern_partition, MergeComposite) and PartitionForTarget, the
 * BYOC pipeline for a target kind's external code generator. */
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/partition.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "pattern/pattern_driver.h"

/* ---- composite functions ----------------------------------------------------- */

typedef struct outline {
  const irm_object *inputs; /* Array of the match's inputs */
  irm_object **params;
} outline;

static size_t input_index(const outline *o, const irm_object *e) {
  size_t n = irm_array_size(o->inputs);
  for (size_t i = 0; i < n; i++)
    if (irm_array_at(o->inputs, i)->v_obj == e) return i;
  return n;
}

static int outline_pre(void *ctx, irm_object *node, int *descend) {
  if (input_index(ctx, node) < irm_array_size(((outline *)ctx)->inputs)) *descend = 0;
  return IRM_OK;
}

static int outline_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  const outline *o = ctx;
  size_t i = input_index(o, original);
  irm_object *r = i < irm_array_size(o->inputs) ? o->params[i] : rebuilt;
  irm_object_retain(r);
  *out = r;
  return IRM_OK;
}

/* call(fn(params) { root with inputs as params }, inputs), typed as root. */
static int make_composite(irm_object *root, const irm_object *inputs, const irm_object *fattrs, irm_object **out) {
  size_t n = irm_array_size(inputs);
  outline o = {inputs, irm_calloc(n ? n : 1, sizeof(irm_object *))};
  irm_object **args = irm_calloc(n ? n : 1, sizeof *args);
  int rc = o.params && args ? IRM_OK : irm_error_nomem_("partitioning");
  for (size_t i = 0; !rc && i < n; i++) {
    irm_object *in = irm_array_at(inputs, i)->v_obj;
    char name[32];
    snprintf(name, sizeof name, "p%zu", i);
    args[i] = in;
    /* untyped IR partitions too, as in TVM: the parameters stay untyped
     * (InferType types them later) */
    rc = irm_var_new(name, irm_expr_type(in), &o.params[i]);
  }
  irm_object *body = NULL, *fn = NULL, *call = NULL;
  irm_expr_rewriter rw = {outline_pre, outline_post, &o};
  if (!rc) rc = irm_expr_rewrite(&rw, root, &body);
  if (!rc) rc = irm_function_new(o.params, n, body, irm_expr_type(root), fattrs, &fn);
  if (!rc) rc = irm_call_new(fn, args, n, NULL, &call);
  if (!rc && !irm_expr_type(root)) {
    irm_object_retain(call);
    *out = call;
  } else if (!rc) {
    rc = irm_expr_with_type(call, irm_expr_type(root), out);
  }
  for (size_t i = 0; o.params && i < n; i++) irm_object_release(o.params[i]);
  irm_free(o.params);
  irm_free(args);
  irm_object_release(body);
  irm_object_release(fn);
  irm_object_release(call);
  return rc;
}

typedef struct part {
  const irm_object *pattern;
  const irm_object *fattrs; /* attrs with Composite */
} part;

static int is_composite(const irm_object *e) {
  irm_any v = irm_any_none();
  if (irm_expr_kind_of(e) != IRM_EXPR_FUNCTION || irm_base_func_get_attr(e, IRM_FUNC_ATTR_COMPOSITE, &v)) return 0;
  int yes = v.type_code != IRM_NONE;
  irm_any_release(&v);
  return yes;
}

static int part_pre(void *ctx, irm_object *node, int *descend) {
  (void)ctx;
  if (is_composite(node) ||
      (irm_expr_kind_of(node) == IRM_EXPR_FUNCTION && irm_base_func_should_skip(node, IRM_SKIP_DEFAULT)))
    *descend = 0;
  return IRM_OK;
}

static int part_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  const part *pt = ctx;
  irm_object *cur = rebuilt, *typed = NULL, *inputs = NULL;
  int rc = IRM_OK, matched = 0;
  if (cur != original && irm_expr_type(original) && !irm_expr_type(cur)) { /* keep the type a child change dropped */
    if ((rc = irm_expr_with_type(cur, irm_expr_type(original), &typed))) return rc;
    cur = typed;
  }
  if (irm_expr_kind_of(cur) != IRM_EXPR_FUNCTION)
    rc = irm_pattern_match_inputs(pt->pattern, cur, &matched, NULL, &inputs);
  if (!rc && matched) rc = make_composite(cur, inputs, pt->fattrs, out);
  else if (!rc) {
    irm_object_retain(cur);
    *out = cur;
  }
  irm_object_release(inputs);
  irm_object_release(typed);
  return rc;
}

static int composite_attrs(const char *composite, const irm_object *attrs, irm_object **out) {
  irm_any name = irm_any_str(composite);
  if (!attrs) {
    const char *key = IRM_FUNC_ATTR_COMPOSITE;
    return irm_map_from_pairs(&key, &name, 1, out);
  }
  return irm_map_with_set(attrs, IRM_FUNC_ATTR_COMPOSITE, &name, out);
}

int irm_pattern_partition(const irm_object *pattern, const char *composite, const irm_object *attrs, irm_object *expr,
                          irm_object **out) {
  const char *fn = "irm_pattern_partition";
  if (!out) return irm_error(IRM_EVALUE, "%s: out must not be NULL", fn);
  *out = NULL;
  if (irm_pattern_kind_of(pattern) == IRM_PATTERN_NONE)
    return irm_error(IRM_ETYPE, "%s: pattern must be a dataflow.DFPattern", fn);
  if (irm_expr_kind_of(expr) == IRM_EXPR_NONE) return irm_error(IRM_ETYPE, "%s: expr must be an expression", fn);
  if (!composite || !composite[0]) return irm_error(IRM_EVALUE, "%s: a composite needs a name", fn);
  if (attrs && !irm_object_is(attrs, "ffi.Map")) return irm_error(IRM_ETYPE, "%s: attrs must be a Map", fn);
  part pt = {pattern, NULL};
  int rc = composite_attrs(composite, attrs, (irm_object **)&pt.fattrs);
  irm_expr_rewriter rw = {part_pre, part_post, &pt};
  if (!rc) rc = irm_expr_rewrite(&rw, expr, out);
  irm_object_release((irm_object *)pt.fattrs);
  return rc;
}

/* ---- MergeComposite ------------------------------------------------------------- */

static int check_table(const irm_object *table) {
  if (!irm_object_is(table, "ffi.Array"))
    return irm_error(IRM_ETYPE, "a pattern table is an Array of [name, pattern] pairs");
  for (size_t i = 0; i < irm_array_size(table); i++) {
    const irm_any *e = irm_array_at(table, i);
    if (e->type_code != IRM_OBJECT || !irm_object_is(e->v_obj, "ffi.Array") || irm_array_size(e->v_obj) != 2 ||
        !irm_string_data(irm_array_at(e->v_obj, 0)->v_obj) ||
        irm_pattern_kind_of(irm_array_at(e->v_obj, 1)->v_obj) == IRM_PATTERN_NONE)
      return irm_error(IRM_ETYPE, "pattern table entry %zu: expected [name, pattern], got %s", i, irm_any_describe_(e));
  }
  return IRM_OK;
}

static int merge_body(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                      void *resource, irm_object **out) {
  (void)mod;
  (void)ctx;
  (void)options;
  const irm_object *table = resource;
  irm_object *cur = func;
  irm_object_retain(cur);
  int rc = IRM_OK;
  for (size_t i = 0; !rc && irm_expr_kind_of(cur) == IRM_EXPR_FUNCTION && i < irm_array_size(table); i++) {
    const irm_object *entry = irm_array_at(table, i)->v_obj;
    irm_object *next = NULL, *body = irm_function_body(cur), *new_body = NULL;
    rc = irm_pattern_partition(irm_array_at(entry, 1)->v_obj, irm_string_data(irm_array_at(entry, 0)->v_obj), NULL,
                               body, &new_body);
    if (!rc && new_body != body) { /* a Function's children: its params, then its body */
      size_t n = irm_function_param_count(cur);
      irm_object **kids = irm_malloc((n + 1) * sizeof *kids);
      if (!kids) rc = irm_error_nomem_("partitioning");
      for (size_t k = 0; kids && k < n; k++) kids[k] = irm_function_param(cur, k);
      if (kids) {
        kids[n] = new_body;
        rc = irm_expr_with_children(cur, kids, n + 1, &next);
      }
      irm_free(kids);
    }
    irm_object_release(new_body);
    if (next) {
      irm_object_release(cur);
      cur = next;
    }
  }
  if (rc) irm_object_release(cur);
  else *out = cur;
  return rc;
}

int irm_merge_composite(irm_module *mod, const irm_object *table, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_merge_composite: out must not be NULL");
  *out = NULL;
  int rc = check_table(table);
  return rc ? irm_error_context(rc, "irm_merge_composite")
            : irm_function_pass_apply(mod, merge_body, NULL, NULL, (void *)table, out);
}

/* ---- PartitionForTarget ---------------------------------------------------------
 * TVM's BYOC flow in one: MergeComposite with the kind's table,
 * AnnotateTarget for the kind, MergeCompilerRegions, PartitionGraph. */

static int table_of(const char *kind, irm_any *table) {
  irm_kind *k = NULL;
  int rc = irm_kind_find("target", kind, &k);
  if (!rc) rc = irm_kind_get_attr(k, IRM_TARGET_PATTERNS_ATTR, table);
  if (!rc && table->type_code == IRM_NONE)
    rc = irm_error(IRM_EVALUE, "target kind '%s' has no '%s' attribute (the patterns its code generator takes)",
                   irm_error_quote(kind), IRM_TARGET_PATTERNS_ATTR);
  if (!rc && table->type_code != IRM_OBJECT)
    rc = irm_error(IRM_ETYPE, "a pattern table is an Array of [name, pattern] pairs");
  if (!rc) rc = check_table(table->v_obj);
  return rc;
}

int irm_partition_for_target(irm_module *mod, const char *kind, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_partition_for_target: out must not be NULL");
  *out = NULL;
  if (!kind) return irm_error(IRM_EVALUE, "irm_partition_for_target: kind must not be NULL");
  irm_any table = irm_any_none(), name = irm_any_str(kind);
  irm_module *merged = NULL, *annotated = NULL, *regions = NULL, *parted = NULL;
  irm_object *targets = NULL;
  int rc = table_of(kind, &table);
  if (!rc) rc = irm_merge_composite(mod, table.v_obj, &merged);
  if (!rc) rc = irm_array_new(&name, 1, &targets);
  if (!rc) rc = irm_annotate_target(merged, targets, 1, &annotated);
  if (!rc) rc = irm_merge_compiler_regions(annotated, &regions);
  if (!rc) rc = irm_partition_graph(regions, NULL, &parted);
  irm_module *objs[] = {merged, annotated, regions};
  for (size_t i = 0; i < sizeof objs / sizeof objs[0]; i++) irm_object_release((irm_object *)objs[i]);
  irm_object_release(targets);
  irm_any_release(&table);
  if (rc) return irm_error_context(rc, "partitioning for target '%s'", irm_error_quote(kind));
  if (irm_module_function_count(parted) == irm_module_function_count(mod)) { /* nothing taken */
    irm_object_release((irm_object *)parted);
    irm_object_retain((irm_object *)mod);
    parted = mod;
  }
  *out = parted;
  return IRM_OK;
}

/* ---- the pass and globals -------------------------------------------------------------- */

static int partition_pass_body(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                               irm_module **out) {
  (void)ctx;
  (void)resource;
  const irm_any *t = irm_map_find_cstr(options, "target");
  const char *kind = t && t->type_code != IRM_NONE ? irm_string_data(t->v_obj) : NULL;
  if (!kind)
    return irm_error(IRM_EVALUE, "PartitionForTarget needs its option target (PartitionForTarget{target=accel})");
  return irm_partition_for_target(mod, kind, out);
}

static int make_partition_pass(const irm_object *options, void *resource, irm_pass **out) {
  (void)resource;
  static const char *const required[] = {"InferType"};
  return irm_module_pass_new("PartitionForTarget", 0, required, 1, options, partition_pass_body, NULL, NULL, out);
}

static int partition_setup(irm_kind *kind) {
  irm_option_type t;
  if (irm_kind_option(kind, "target", &t, NULL) == IRM_OK) return IRM_OK; /* idempotent */
  irm_clear_error();
  return irm_kind_add_option(kind, "target", IRM_OPTION_STR, NULL, "the target kind whose patterns partition", 0);
}

/* dataflow.pattern.Partition(pattern, composite, expr, attrs=None) -> expr */
static int g_partition(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.Partition", *name = NULL;
  size_t n = 0;
  irm_object *pattern = NULL, *expr = NULL, *attrs = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 3, 4);
  if (!rc) rc = irm_arg_object(fn, args, 0, "dataflow.DFPattern", &pattern);
  if (!rc) rc = irm_arg_str(fn, args, 1, &name, &n);
  if (!rc) rc = irm_arg_object(fn, args, 2, "dataflow.Expr", &expr);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_object(fn, args, 3, "ffi.Map", &attrs);
  if (!rc) rc = irm_pattern_partition(pattern, name, attrs, expr, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* transform.PartitionForTarget(mod, kind) -> IRModule */
static int g_partition_for_target(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PartitionForTarget", *kind = NULL;
  size_t n = 0;
  irm_object *mod = NULL;
  irm_module *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_arg_str(fn, args, 1, &kind, &n);
  if (!rc) rc = irm_partition_for_target((irm_module *)mod, kind, &out);
  return irm_ret_object(fn, rc, (irm_object **)&out, ret);
}

/* transform.MergeComposite(mod, table) -> IRModule */
static int g_merge_composite(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.MergeComposite";
  irm_object *mod = NULL, *table = NULL;
  irm_module *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Array", &table);
  if (!rc) rc = irm_merge_composite((irm_module *)mod, table, &out);
  return irm_ret_object(fn, rc, (irm_object **)&out, ret);
}

/* The BYOC passes as functions of a module (the passes themselves are
 * registered by their files). */

/* transform.AnnotateTarget(mod, targets Array [, include_non_call_ops bool]) -> IRModule */
static int g_annotate_target(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.AnnotateTarget";
  irm_object *mod = NULL, *targets = NULL;
  irm_module *out = NULL;
  bool include = true;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Array", &targets);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_bool(fn, args, 2, &include);
  if (!rc) rc = irm_annotate_target((irm_module *)mod, targets, include, &out);
  return irm_ret_object(fn, rc, (irm_object **)&out, ret);
}

/* transform.MergeCompilerRegions(mod) -> IRModule */
static int g_merge_compiler_regions(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.MergeCompilerRegions";
  irm_object *mod = NULL;
  irm_module *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc) rc = irm_merge_compiler_regions((irm_module *)mod, &out);
  return irm_ret_object(fn, rc, (irm_object **)&out, ret);
}

/* transform.PartitionGraph(mod [, mod_name str]) -> IRModule */
static int g_partition_graph(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "transform.PartitionGraph", *mod_name = NULL;
  irm_object *mod = NULL;
  irm_module *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ir.IRModule", &mod);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_str(fn, args, 1, &mod_name, NULL);
  if (!rc) rc = irm_partition_graph((irm_module *)mod, mod_name, &out);
  return irm_ret_object(fn, rc, (irm_object **)&out, ret);
}

int irm_register_partition_builtins_(void) {
  static const irm_builtin_global table[] = {
      {"dataflow.pattern.Partition", g_partition},
      {"transform.PartitionForTarget", g_partition_for_target},
      {"transform.MergeComposite", g_merge_composite},
      {"transform.AnnotateTarget", g_annotate_target},
      {"transform.MergeCompilerRegions", g_merge_compiler_regions},
      {"transform.PartitionGraph", g_partition_graph},
  };
  int rc = irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
  if (!rc) rc = irm_pass_register_ex("PartitionForTarget", make_partition_pass, NULL, partition_setup, NULL);
  return rc;
}
