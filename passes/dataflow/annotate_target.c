/* AnnotateTarget (TVM's): each call of an op, or of a composite function
 * (MergeComposite's), gets compiler_begin on each argument and
 * compiler_end on its result, for the first of the given compilers that
 * supports it, else for "default". An op is supported by compiler C when
 * its kind attribute `target.C` is true or is a function of the call
 * returning true (TVM's register_op_attr(op, "target.C")); a composite
 * when its `Compiler` attribute, else its `Composite` name up to the
 * first '.', is C. Calls with a tuple argument or result, and calls of
 * anything else, stay outside the regions. */
#include <stdio.h>
#include <string.h>

#include "compiler_regions.h"
#include "irm/container.h"
#include "irm/dataflow/partition.h"
#include "irm/error.h"
#include "irm/function.h"

typedef struct annotator {
  const irm_object *targets; /* Array of compiler names */
  irm_object **attrs;        /* per target, then "default": {compiler: name} */
} annotator;

static int is_tensor(const irm_object *e) {
  return irm_dataflow_type_kind_of(irm_expr_type(e)) == IRM_DATAFLOW_TYPE_TENSOR;
}

static const char *target_at(const annotator *a, size_t k) {
  return irm_string_data(irm_array_at(a->targets, k)->v_obj);
}

/* Whether op attribute target.<compiler> says call is supported. */
static int op_supports(const irm_object *call, const char *compiler, int *yes) {
  irm_object *op = irm_call_callee(call);
  char key[160];
  snprintf(key, sizeof key, "target.%s", compiler);
  irm_any v = irm_any_none(), r = irm_any_none();
  *yes = 0;
  int rc = irm_op_get_attr(op, key, &v);
  if (rc == IRM_EATTR) { /* no op has it */
    irm_clear_error();
    return IRM_OK;
  }
  if (!rc && v.type_code == IRM_OBJECT && irm_object_is(v.v_obj, "ffi.Function")) {
    irm_any arg = irm_any_object((irm_object *)call);
    rc = irm_func_call(v.v_obj, &arg, 1, &r);
    bool b = false;
    if (!rc && (rc = irm_any_to_bool(&r, &b)))
      rc = irm_error_context(rc, "op attribute '%s' of %s returned no bool", key, irm_op_name(op));
    *yes = b;
  } else if (!rc && v.type_code != IRM_NONE) {
    bool b = false;
    if ((rc = irm_any_to_bool(&v, &b)))
      rc = irm_error_context(rc, "op attribute '%s' of %s must be a bool or a function (call) -> bool", key,
                             irm_op_name(op));
    *yes = b;
  } else if (rc) {
    rc = irm_error_context(rc, "op attribute '%s' of %s", key, irm_op_name(op));
  }
  irm_any_release(&r);
  irm_any_release(&v);
  return rc;
}

/* The compiler a composite function names: Compiler, else Composite up
 * to its first '.'; written to buf, "" for none. */
static void composite_compiler(const irm_object *fn, char *buf, size_t size) {
  irm_any v = irm_any_none();
  const char *s = NULL;
  buf[0] = '\0';
  if (!irm_base_func_get_attr(fn, IRM_BASE_FUNC_ATTR_COMPILER, &v) && v.type_code != IRM_NONE &&
      !irm_any_to_str(&v, &s, NULL)) {
    snprintf(buf, size, "%s", s);
  } else {
    irm_any_release(&v);
    v = irm_any_none();
    if (!irm_base_func_get_attr(fn, IRM_FUNC_ATTR_COMPOSITE, &v) && v.type_code != IRM_NONE &&
        !irm_any_to_str(&v, &s, NULL))
      snprintf(buf, size, "%.*s", (int)strcspn(s, "."), s);
  }
  irm_clear_error();
  irm_any_release(&v);
}

/* The index of call's compiler in targets, its count for "default", or -1
 * for a call left outside the regions. */
static int choose(const annotator *a, const irm_object *call, long *out) {
  irm_object *callee = irm_call_callee(call);
  size_t n = irm_array_size(a->targets);
  *out = -1;
  if (!is_tensor(call)) return IRM_OK;
  for (size_t j = 0; j < irm_call_arg_count(call); j++)
    if (!is_tensor(irm_call_arg(call, j))) return IRM_OK;
  if (irm_expr_kind_of(callee) == IRM_EXPR_FUNCTION) {
    char c[128];
    composite_compiler(callee, c, sizeof c);
    for (size_t k = 0; k < n; k++)
      if (strcmp(c, target_at(a, k)) == 0) {
        *out = (long)k;
        return IRM_OK;
      }
    *out = (long)n;
    return IRM_OK;
  }
  if (irm_expr_kind_of(callee) != IRM_EXPR_OP || irm_dataflow_is_call_of_(call, CR_BEGIN_OP) ||
      irm_dataflow_is_call_of_(call, CR_END_OP))
    return IRM_OK;
  for (size_t k = 0; k < n; k++) {
    int yes = 0, rc = op_supports(call, target_at(a, k), &yes);
    if (rc) return rc;
    if (yes) {
      *out = (long)k;
      return IRM_OK;
    }
  }
  *out = (long)n;
  return IRM_OK;
}

static int annotate_post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  const annotator *a = ctx;
  long k = -1;
  int rc = irm_expr_kind_of(original) == IRM_EXPR_CALL ? choose(a, original, &k) : IRM_OK;
  if (rc || k < 0) return rc ? rc : irm_dataflow_keep_type_(original, rebuilt, out);
  size_t n = irm_call_arg_count(rebuilt);
  irm_object **kids = irm_calloc(n + 1, sizeof *kids), *call = NULL, *typed = NULL;
  if (!kids) return irm_error_nomem_("annotating targets");
  kids[0] = irm_call_callee(rebuilt);
  for (size_t j = 0; !rc && j < n; j++) {
    irm_object *arg = irm_call_arg(rebuilt, j);
    rc = irm_dataflow_op_call_(CR_BEGIN_OP, &arg, 1, a->attrs[k], &kids[j + 1]);
  }
  if (!rc) rc = irm_expr_with_children(rebuilt, kids, n + 1, &call);
  if (!rc) rc = irm_dataflow_keep_type_(original, call, &typed);
  if (!rc) rc = irm_dataflow_op_call_(CR_END_OP, &typed, 1, a->attrs[k], out);
  for (size_t j = 1; j <= n; j++) irm_object_release(kids[j]);
  irm_free(kids);
  irm_object_release(call);
  irm_object_release(typed);
  return rc;
}

static int annotate_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                             void *resource, irm_object **out) {
  (void)mod, (void)ctx, (void)options;
  if (irm_expr_kind_of(func) != IRM_EXPR_FUNCTION) {
    irm_object_retain(func);
    *out = func;
    return IRM_OK;
  }
  irm_expr_rewriter rw = {irm_cr_skip_functions_, annotate_post, resource};
  irm_object *body = NULL;
  int rc = irm_expr_rewrite(&rw, irm_function_body(func), &body);
  if (!rc) rc = irm_cr_with_body_(func, body, out);
  irm_object_release(body);
  return rc;
}

int irm_annotate_target(irm_module *mod, const irm_object *targets, int include_non_call_ops, irm_module **out) {
  (void)include_non_call_ops; /* tuples always stay outside: the annotations take tensors */
  if (!out) return irm_error(IRM_EVALUE, "irm_annotate_target: out must not be NULL");
  *out = NULL;
  if (!irm_object_is(targets, "ffi.Array") || !irm_array_size(targets))
    return irm_error(IRM_EVALUE, "AnnotateTarget: targets must be a non-empty Array of compiler names");
  size_t n = irm_array_size(targets);
  for (size_t k = 0; k < n; k++) {
    const irm_any *t = irm_array_at(targets, k);
    if (t->type_code != IRM_OBJECT || !irm_string_data(t->v_obj) || !irm_string_data(t->v_obj)[0])
      return irm_error(IRM_ETYPE, "AnnotateTarget: target %zu is %s, not a compiler name", k, irm_any_describe_(t));
  }
  annotator a = {targets, irm_calloc(n + 1, sizeof(irm_object *))};
  int rc = a.attrs ? IRM_OK : irm_error_nomem_("annotating targets");
  for (size_t k = 0; !rc && k <= n; k++) {
    const char *key = "compiler";
    irm_any name = irm_any_str(k < n ? target_at(&a, k) : CR_DEFAULT);
    rc = irm_map_from_pairs(&key, &name, 1, &a.attrs[k]);
  }
  irm_module *typed = NULL;
  if (!rc) rc = irm_dataflow_infer_type(mod, &typed);
  if (!rc) rc = irm_function_pass_apply(typed, annotate_function, NULL, NULL, &a, out);
  irm_object_release((irm_object *)typed);
  for (size_t k = 0; a.attrs && k <= n; k++) irm_object_release(a.attrs[k]);
  irm_free(a.attrs);
  return rc ? irm_error_context(rc, "AnnotateTarget") : IRM_OK;
}

static int annotate_pass(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                         irm_module **out) {
  (void)ctx, (void)resource;
  const irm_any *t = irm_map_find_cstr(options, "targets");
  const irm_any *inc = irm_map_find_cstr(options, "include_non_call_ops");
  if (!t || t->type_code != IRM_OBJECT)
    return irm_error(IRM_EVALUE, "AnnotateTarget needs its option targets (AnnotateTarget{targets=accel})");
  return irm_annotate_target(mod, t->v_obj, !inc || inc->type_code == IRM_NONE || inc->v_int, out);
}

static int annotate_setup(irm_kind *kind) {
  irm_option_type t;
  if (irm_kind_option(kind, "targets", &t, NULL) == IRM_OK) return IRM_OK; /* idempotent */
  irm_clear_error();
  irm_any yes = irm_any_bool(true);
  int rc =
      irm_kind_add_option(kind, "targets", IRM_OPTION_ARRAY_STR, NULL, "the compilers to annotate for, in order", 0);
  if (!rc)
    rc = irm_kind_add_option(kind, "include_non_call_ops", IRM_OPTION_BOOL, &yes,
                             "TVM's option; tuples stay outside the regions either way", 0);
  return rc;
}

int irm_register_annotate_target_pass_(void) {
  static const irm_dataflow_pass_def_ def = {"AnnotateTarget", 0, annotate_pass, NULL, annotate_setup};
  return irm_dataflow_pass_register_(&def);
}
