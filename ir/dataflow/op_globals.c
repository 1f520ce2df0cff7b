/* The op.* globals for other languages: op.Register (an op with its schema,
 * FInferType, FEvaluate and pattern, all or nothing), op.ListOps,
 * op.GetAttr, op.ListOptions and op.DescribeOptions. */
#include "irm/config.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "irm/dataflow/op.h"
#include "expr_internal.h"
#include "irm_internal.h"


/* A Function argument or NONE. */
static int arg_func(const char *fn, const irm_any *args, int32_t nargs, int32_t i, irm_object **out) {
  *out = NULL;
  return irm_arg_present(args, nargs, i) ? irm_arg_object(fn, args, i, "ffi.Function", out) : IRM_OK;
}

static int set_func(irm_kind *kind, const char *attr, irm_object *f) {
  if (!f) return IRM_OK;
  irm_any v = irm_any_object(f);
  return irm_kind_set_attr(kind, attr, &v, 10);
}

/* Everything op.Register does, inside the caller's journal. */
static int register_op(const char *name, int32_t num_inputs, const irm_object *schema, irm_object *infer,
                       irm_object *eval, const irm_any *pattern) {
  irm_kind *kind = NULL;
  int rc = irm_op_register(name, num_inputs, &kind); /* KeyError when it exists */
  if (!rc && schema) rc = irm_config_register_kind(IRM_OP_CATEGORY, name, schema);
  if (!rc && pattern) rc = irm_kind_set_attr(kind, IRM_OP_ATTR_PATTERN, pattern, 10);
  if (!rc) rc = set_func(kind, IRM_OP_ATTR_INFER_TYPE, infer);
  if (!rc) rc = set_func(kind, IRM_OP_ATTR_EVALUATE, eval);
  return rc;
}

/* op.Register(name, num_inputs, schema Map or NONE, infer_type Function or
 * NONE, evaluate Function or NONE [, pattern int]) -> NONE */
static int g_register(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "op.Register", *name = NULL;
  int64_t num_inputs = 0, pattern = 0;
  irm_object *schema = NULL, *infer = NULL, *eval = NULL;
  (void)ret;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 5, 6);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (!rc) rc = irm_arg_int(fn, args, 1, &num_inputs);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_object(fn, args, 2, "ffi.Map", &schema);
  if (!rc) rc = arg_func(fn, args, nargs, 3, &infer);
  if (!rc) rc = arg_func(fn, args, nargs, 4, &eval);
  int has_pattern = !rc && irm_arg_present(args, nargs, 5);
  if (has_pattern) rc = irm_arg_int(fn, args, 5, &pattern);
  if (rc) return rc;
  if (num_inputs < -1 || num_inputs > INT32_MAX)
    return irm_error(IRM_EVALUE, "%s: argument 2: num_inputs %lld must be -1 (any number) or from 0 to %d", fn,
                     (long long)num_inputs, (int)INT32_MAX);
  if (has_pattern && (pattern < 0 || pattern > 8 || !irm_op_pattern_name((irm_op_pattern)pattern)))
    return irm_error(IRM_EVALUE,
                     "%s: argument 6: %lld is not an op pattern; patterns: 0 (elemwise), 1 (broadcast), "
                     "2 (injective), 3 (reduce), 4 (out-elemwise-fusable), 7 (tuple), 8 (opaque)",
                     fn, (long long)pattern);
  irm_journal *journal = NULL;
  if ((rc = irm_journal_open(&journal))) return irm_error_context_global_(rc, fn);
  irm_any p = irm_any_int(pattern);
  rc = register_op(name, (int32_t)num_inputs, schema, infer, eval, has_pattern ? &p : NULL);
  if (!rc && !(rc = irm_journal_commit(journal))) return IRM_OK;
  (void)irm_journal_rollback(journal); /* undo sets no errors */
  return irm_error_context_global_(rc, fn);
}

/* op.ListOps() -> Array of op names, sorted */
static int g_list_ops(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  irm_object *ops = NULL;
  (void)args;
  (void)res;
  int rc = irm_arg_count("op.ListOps", nargs, 0, 0);
  return rc ? rc : irm_ret_object("op.ListOps", irm_kind_list(IRM_OP_CATEGORY, &ops), &ops, ret);
}

/* op.GetAttr(name, attr) -> value or NONE */
static int g_get_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "op.GetAttr", *name = NULL, *attr = NULL;
  irm_object *op = NULL;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (!rc) rc = irm_arg_str(fn, args, 1, &attr, NULL);
  if (rc) return rc; /* argument errors name fn already */
  rc = irm_op_get(name, &op);
  if (!rc) rc = irm_op_get_attr(op, attr, ret);
  irm_object_release(op);
  return rc ? irm_error_context_global_(rc, fn) : IRM_OK;
}

/* The kind of the op the first argument names. */
static int arg_kind(const char *fn, const irm_any *args, int32_t nargs, irm_kind **out) {
  const char *name = NULL;
  irm_object *op = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (rc) return rc; /* argument errors name fn already */
  rc = irm_op_get(name, &op);
  if (!rc && !(*out = irm_op_kind(op)))
    rc = irm_error(IRM_EKEY, "op '%s' is no longer registered", irm_error_quote(name));
  irm_object_release(op);
  return rc ? irm_error_context_global_(rc, fn) : IRM_OK;
}

/* op.ListOptions(name) -> Map attribute -> type name */
static int g_list_options(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  irm_kind *kind = NULL;
  irm_object *out = NULL;
  (void)res;
  int rc = arg_kind("op.ListOptions", args, nargs, &kind);
  return rc ? rc : irm_ret_object("op.ListOptions", irm_kind_list_options(kind, &out), &out, ret);
}

/* op.DescribeOptions(name) -> Map attribute -> {type, default, doc, required} */
static int g_describe_options(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  irm_kind *kind = NULL;
  irm_object *out = NULL;
  (void)res;
  int rc = arg_kind("op.DescribeOptions", args, nargs, &kind);
  return rc ? rc : irm_ret_object("op.DescribeOptions", irm_kind_describe_options(kind, &out), &out, ret);
}

/* op.SetAttr(name, attr, value [, plevel int = 10]) -> NONE: TVM's
 * register_op_attr, e.g. "target.<compiler>" for AnnotateTarget. */
static int g_set_attr(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  const char *fn = "op.SetAttr", *attr = NULL;
  int64_t plevel = 10;
  irm_kind *kind = NULL;
  (void)ret;
  (void)res;
  int rc = irm_arg_count(fn, nargs, 3, 4);
  if (!rc) rc = irm_arg_str(fn, args, 1, &attr, NULL);
  if (!rc && irm_arg_present(args, nargs, 3)) rc = irm_arg_int(fn, args, 3, &plevel);
  if (!rc && (plevel < INT32_MIN || plevel > INT32_MAX))
    rc = irm_error(IRM_EVALUE, "%s: argument 4: plevel %lld is beyond int32", fn, (long long)plevel);
  if (!rc) rc = arg_kind(fn, args, 1, &kind); /* the op's name, alone */
  if (rc) return rc;
  rc = irm_kind_set_attr(kind, attr, &args[2], (int)plevel);
  return rc ? irm_error_context_global_(rc, fn) : IRM_OK;
}

int irm_register_op_globals_(void) {
  static const irm_builtin_global table[] = {
      {"op.Register", g_register}, {"op.ListOps", g_list_ops},         {"op.GetAttr", g_get_attr},
      {"op.SetAttr", g_set_attr},  {"op.ListOptions", g_list_options}, {"op.DescribeOptions", g_describe_options},
  };
  return irm_global_register_builtins_(table, sizeof table / sizeof table[0]);
}
