/* The ir.* globals of the dataflow IR (docs/globals.md): thin packed
 * wrappers over dataflow/type.h, expr.h and op.h, so that other languages build
 * and inspect types and expressions. Errors are the C constructors', with
 * the global's name as context; arguments that are not even objects are
 * reported here, naming the argument (and the item of an Array). */
#include "expr_internal.h"
#include "irm/container.h"
#include "irm/error.h"

/* An argument that must be an object (its kind is the constructor's to
 * check, so its message names the role the object plays). NONE is refused
 * unless optional, which gives NULL. */
static int object_arg(const char *fn, const irm_any *args, int32_t nargs, int32_t i, const char *what, int optional,
                      irm_object **out) {
  *out = NULL;
  if (optional && !irm_arg_present(args, nargs, i)) return IRM_OK;
  const irm_any *v = &args[i];
  if (v->type_code != IRM_OBJECT || !v->v_obj)
    return irm_error(IRM_ETYPE, "%s: argument %d: expected %s, got %s", fn, (int)i + 1, what, irm_any_describe_(v));
  *out = v->v_obj;
  return IRM_OK;
}

/* Argument i, an Array of objects, as a new C array of borrowed pointers
 * (*out; irm_free it) of *n items. */
static int objects_arg(const char *fn, const irm_any *args, int32_t i, const char *what, irm_object ***out, size_t *n) {
  *out = NULL;
  *n = 0;
  irm_object *arr = NULL;
  int rc = irm_arg_object(fn, args, i, "ffi.Array", &arr);
  if (rc) return rc;
  size_t size = irm_array_size(arr);
  irm_object **items = irm_malloc((size ? size : 1) * sizeof *items);
  if (!items) return irm_error_nomem_("reading an Array argument");
  for (size_t k = 0; k < size; k++) {
    const irm_any *v = irm_array_at(arr, k);
    if (v->type_code != IRM_OBJECT || !v->v_obj) {
      irm_free(items);
      return irm_error(IRM_ETYPE, "%s: argument %d: item %zu: expected %s, got %s", fn, (int)i + 1, k, what,
                       irm_any_describe_(v));
    }
    items[k] = v->v_obj;
  }
  *out = items;
  *n = size;
  return IRM_OK;
}

/* An expression argument (any IR expression, dataflow.Function included). */
static int expr_arg(const char *fn, const irm_any *args, int32_t nargs, int32_t i, irm_object **out) {
  int rc = object_arg(fn, args, nargs, i, "an IR expression", 0, out);
  if (!rc && irm_expr_kind_of(*out) == IRM_EXPR_NONE)
    rc = irm_error(IRM_ETYPE, "%s: argument %d: expected an IR expression, got %s", fn, (int)i + 1,
                   irm_object_type_key(*out));
  if (rc) *out = NULL;
  return rc;
}

/* ---- types ---------------------------------------------------------------- */

/* ir.TensorType(dtype str, shape Array of int) */
static int g_tensor_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.TensorType", *name = NULL;
  DLDataType dtype;
  irm_object *shape_arr = NULL, *t = NULL;
  int64_t shape[IRM_TENSOR_MAX_NDIM];
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (!rc && (rc = irm_dtype_parse(name, &dtype))) rc = irm_error_context(rc, "%s: argument 1", fn);
  if (!rc) rc = irm_arg_object(fn, args, 1, "ffi.Array", &shape_arr);
  if (rc) return rc;
  size_t n = irm_array_size(shape_arr);
  if (n > IRM_TENSOR_MAX_NDIM)
    return irm_error(IRM_EVALUE, "%s: argument 2: shape has %zu dimensions; a tensor type has 0 to %d", fn, n,
                     IRM_TENSOR_MAX_NDIM);
  for (size_t k = 0; k < n; k++) {
    const irm_any *item = irm_array_at(shape_arr, k);
    if (item->type_code != IRM_INT)
      return irm_error(IRM_ETYPE, "%s: argument 2: shape item %zu: expected int, got %s", fn, k,
                       irm_any_describe_(item));
    shape[k] = item->v_int;
  }
  return irm_ret_object(fn, irm_tensor_type_new(dtype, shape, (int32_t)n, &t), &t, ret);
}

/* ir.TupleType(Array of types) */
static int g_tuple_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.TupleType";
  irm_object **fields = NULL, *t = NULL;
  size_t n = 0;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = objects_arg(fn, args, 0, "an IR type", &fields, &n);
  if (rc) return rc;
  rc = irm_ret_object(fn, irm_tuple_type_new(fields, n, &t), &t, ret);
  irm_free(fields);
  return rc;
}

/* ir.FuncType(params Array of types, ret type) */
static int g_func_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.FuncType";
  irm_object **params = NULL, *result = NULL, *t = NULL;
  size_t n = 0;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = object_arg(fn, args, nargs, 1, "an IR type", 0, &result);
  if (!rc) rc = objects_arg(fn, args, 0, "an IR type", &params, &n);
  if (rc) return rc;
  rc = irm_ret_object(fn, irm_func_type_new(params, n, result, &t), &t, ret);
  irm_free(params);
  return rc;
}

/* ---- nodes ---------------------------------------------------------------- */

/* dataflow.Var(name [, type]) */
static int g_var(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.Var", *name = NULL;
  irm_object *type = NULL, *v = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (!rc) rc = object_arg(fn, args, nargs, 1, "an IR type", 1, &type);
  if (rc) return rc;
  return irm_ret_object(fn, irm_var_new(name, type, &v), &v, ret);
}

/* ir.GlobalVar(name) */
static int g_global_var(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.GlobalVar", *name = NULL;
  irm_object *v = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (rc) return rc;
  return irm_ret_object(fn, irm_global_var_new(name, &v), &v, ret);
}

/* dataflow.Constant(tensor) */
static int g_constant(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.Constant";
  irm_object *tensor = NULL, *c = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "ffi.Tensor", &tensor);
  if (rc) return rc;
  return irm_ret_object(fn, irm_constant_new(tensor, &c), &c, ret);
}

/* dataflow.Tuple(Array of expressions) */
static int g_tuple(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.Tuple";
  irm_object **fields = NULL, *t = NULL;
  size_t n = 0;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = objects_arg(fn, args, 0, "an IR expression", &fields, &n);
  if (rc) return rc;
  rc = irm_ret_object(fn, irm_tuple_new(fields, n, &t), &t, ret);
  irm_free(fields);
  return rc;
}

/* dataflow.TupleGetItem(tuple, index int) */
static int g_tuple_get_item(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.TupleGetItem";
  irm_object *tuple = NULL, *e = NULL;
  int64_t index = 0;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = object_arg(fn, args, nargs, 0, "an IR expression", 0, &tuple);
  if (!rc) rc = irm_arg_int(fn, args, 1, &index);
  if (rc) return rc;
  return irm_ret_object(fn, irm_tuple_get_item_new(tuple, index, &e), &e, ret);
}

/* dataflow.Call(callee, args Array [, attrs Map]) */
static int g_call(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.Call";
  irm_object *callee = NULL, *attrs = NULL, **call_args = NULL, *c = NULL;
  size_t n = 0;
  int rc = irm_arg_count(fn, nargs, 2, 3);
  if (!rc)
    rc = object_arg(fn, args, nargs, 0, "a dataflow.Op, dataflow.GlobalVar, dataflow.Function or dataflow.Var", 0,
                    &callee);
  if (!rc && irm_arg_present(args, nargs, 2)) rc = irm_arg_object(fn, args, 2, "ffi.Map", &attrs);
  if (!rc) rc = objects_arg(fn, args, 1, "an IR expression", &call_args, &n);
  if (rc) return rc;
  rc = irm_ret_object(fn, irm_call_new(callee, call_args, n, attrs, &c), &c, ret);
  irm_free(call_args);
  return rc;
}

/* dataflow.Let(var, value, body) */
static int g_let(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.Let";
  irm_object *var = NULL, *value = NULL, *body = NULL, *e = NULL;
  int rc = irm_arg_count(fn, nargs, 3, 3);
  if (!rc) rc = object_arg(fn, args, nargs, 0, "a dataflow.Var", 0, &var);
  if (!rc) rc = object_arg(fn, args, nargs, 1, "an IR expression", 0, &value);
  if (!rc) rc = object_arg(fn, args, nargs, 2, "an IR expression", 0, &body);
  if (rc) return rc;
  return irm_ret_object(fn, irm_let_new(var, value, body, &e), &e, ret);
}

/* dataflow.Function(params Array of Vars, body [, ret_type] [, attrs Map]) */
static int g_function(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.Function";
  irm_object **params = NULL, *body = NULL, *ret_type = NULL, *attrs = NULL, *f = NULL;
  size_t n = 0;
  int rc = irm_arg_count(fn, nargs, 2, 4);
  if (!rc) rc = object_arg(fn, args, nargs, 1, "an IR expression", 0, &body);
  if (!rc) rc = object_arg(fn, args, nargs, 2, "an IR type", 1, &ret_type);
  if (!rc) rc = object_arg(fn, args, nargs, 3, "an ffi.Map", 1, &attrs);
  if (!rc) rc = objects_arg(fn, args, 0, "a dataflow.Var", &params, &n);
  if (rc) return rc;
  rc = irm_ret_object(fn, irm_function_new(params, n, body, ret_type, attrs, &f), &f, ret);
  irm_free(params);
  return rc;
}

/* ir.Op(name) -> the interned op node */
static int g_op(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "ir.Op", *name = NULL;
  irm_object *op = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_str(fn, args, 0, &name, NULL);
  if (rc) return rc;
  return irm_ret_object(fn, irm_op_get(name, &op), &op, ret);
}

/* ---- inspection ------------------------------------------------------------ */

/* dataflow.ExprKind(e) -> "Var", "Call", ... */
static int g_expr_kind(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.ExprKind";
  irm_object *e = NULL, *s = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = expr_arg(fn, args, nargs, 0, &e);
  if (rc) return rc;
  return irm_ret_object(fn, irm_string_from_cstr(irm_expr_kind_name(irm_expr_kind_of(e)), &s), &s, ret);
}

/* dataflow.ExprType(e) -> the checked type or NONE */
static int g_expr_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.ExprType";
  irm_object *e = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = expr_arg(fn, args, nargs, 0, &e);
  if (rc) return rc;
  irm_object *type = irm_expr_type(e);
  irm_object_retain(type);
  *ret = type ? irm_any_object(type) : irm_any_none();
  return IRM_OK;
}

/* dataflow.ExprSpan(e) -> [line, column] where the text parser read e, or NONE */
static int g_expr_span(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.ExprSpan";
  irm_object *e = NULL, *out = NULL;
  uint32_t line = 0, col = 0;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = expr_arg(fn, args, nargs, 0, &e);
  if (rc || !irm_expr_span(e, &line, &col)) return rc; /* NONE */
  irm_any lc[2] = {irm_any_int(line), irm_any_int(col)};
  rc = irm_array_new(lc, 2, &out);
  return irm_ret_object(fn, rc, &out, ret);
}

/* dataflow.ExprWithType(e, type or NONE) -> a copy of e with that checked type */
static int g_expr_with_type(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.ExprWithType";
  irm_object *e = NULL, *type = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 2, 2);
  if (!rc) rc = expr_arg(fn, args, nargs, 0, &e);
  if (!rc) rc = object_arg(fn, args, nargs, 1, "an IR type", 1, &type);
  if (rc) return rc;
  return irm_ret_object(fn, irm_expr_with_type(e, type, &out), &out, ret);
}

/* The to_fields Map of o, whose type's hook is there (the IR types all
 * have one). */
static int fields_of(const char *fn, const irm_object *o, irm_any *ret) {
  const irm_type_info *info = irm_type_info_of(irm_object_type_index(o));
  if (!info || !info->to_fields) return irm_error(IRM_ETYPE, "%s: %s has no fields", fn, irm_object_type_key(o));
  irm_object *fields = NULL;
  return irm_ret_object(fn, info->to_fields(o, &fields), &fields, ret);
}

/* dataflow.ExprFields(e) -> Map of the node's fields (expr_fields.c lists them);
 * a Function's attrs come as their Map, not the ir.DictAttrs that holds
 * it, so that other languages read them like a Call's. */
static int g_expr_fields(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.ExprFields";
  irm_object *e = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = expr_arg(fn, args, nargs, 0, &e);
  if (!rc) rc = fields_of(fn, e, ret);
  if (rc || irm_expr_kind_of(e) != IRM_EXPR_FUNCTION) return rc;
  const irm_any *attrs = irm_map_find_cstr(ret->v_obj, "attrs");
  const irm_object *map = attrs && attrs->type_code == IRM_OBJECT ? irm_dict_attrs_map(attrs->v_obj) : NULL;
  if (!map) return IRM_OK;
  irm_any value = irm_any_object((irm_object *)map);
  if ((rc = irm_map_set_move(&ret->v_obj, "attrs", &value))) {
    irm_any_release(ret);
    *ret = irm_any_none();
    return irm_error_context_global_(rc, fn);
  }
  return IRM_OK;
}

/* dataflow.TypeFields(t) -> Map: TensorType {dtype, shape}, TupleType {fields},
 * FuncType {params, ret} */
static int g_type_fields(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.TypeFields";
  irm_object *t = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = object_arg(fn, args, nargs, 0, "an IR type", 0, &t);
  if (!rc && irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_NONE)
    rc = irm_error(IRM_ETYPE, "%s: argument 1: expected an IR type, got %s", fn, irm_object_type_key(t));
  return rc ? rc : fields_of(fn, t, ret);
}

int irm_register_expr_globals_(void) {
  static const irm_builtin_global table[] = {
      {"ir.TensorType", g_tensor_type},
      {"ir.TupleType", g_tuple_type},
      {"ir.FuncType", g_func_type},
      {"dataflow.Var", g_var},
      {"ir.GlobalVar", g_global_var},
      {"dataflow.Constant", g_constant},
      {"dataflow.Tuple", g_tuple},
      {"dataflow.TupleGetItem", g_tuple_get_item},
      {"dataflow.Call", g_call},
      {"dataflow.Let", g_let},
      {"dataflow.Function", g_function},
      {"ir.Op", g_op},
      {"dataflow.ExprKind", g_expr_kind},
      {"dataflow.ExprType", g_expr_type},
      {"dataflow.ExprSpan", g_expr_span},
      {"dataflow.ExprWithType", g_expr_with_type},
      {"dataflow.ExprFields", g_expr_fields},
      {"dataflow.TypeFields", g_type_fields},
  };
  /* The nodes' globals were ir.* before; the dialect's names are dataflow.*
   * (TVM's ir.* names above stay). */
  static const char *const former[][2] = {
      {"ir.Var", "dataflow.Var"},
      {"ir.Constant", "dataflow.Constant"},
      {"ir.Tuple", "dataflow.Tuple"},
      {"ir.TupleGetItem", "dataflow.TupleGetItem"},
      {"ir.Call", "dataflow.Call"},
      {"ir.Let", "dataflow.Let"},
      {"ir.Function", "dataflow.Function"},
      {"ir.ExprKind", "dataflow.ExprKind"},
      {"ir.ExprType", "dataflow.ExprType"},
      {"ir.ExprWithType", "dataflow.ExprWithType"},
      {"ir.ExprFields", "dataflow.ExprFields"},
      {"ir.TypeFields", "dataflow.TypeFields"},
  };
  size_t n = sizeof table / sizeof table[0];
  int rc = irm_global_register_builtins_(table, n);
  return rc ? rc : irm_global_register_former_names_(table, n, former, sizeof former / sizeof former[0]);
}
