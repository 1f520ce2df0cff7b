/* The fields of expression nodes, for JSON and for
 * irm_base_func_with_attr: to_fields lists a node's parts as a Map, and
 * each kind's from_fields rebuilds the node through its public
 * constructor, so JSON text gets every check a constructor makes.
 *
 *   Var {name, type}          GlobalVar {name, checked_type}
 *   Constant {data}           Tuple {fields, checked_type}
 *   TupleGetItem {tuple, index, checked_type}
 *   Call {callee, args, attrs, checked_type}
 *   Let {var, value, body, checked_type}
 *   Op {name}
 *   Function {params, body, ret_type, attrs, checked_type}
 */
#include <string.h>

#include "expr_node.h"
#include "irm/container.h"
#include "irm/error.h"

/* ---- to_fields ----------------------------------------------------------------- */

static int children_array(const expr_node *p, size_t from, size_t to, irm_object **out) {
  size_t n = to - from;
  irm_any *items = irm_malloc((n ? n : 1) * sizeof *items);
  if (!items) return irm_error_nomem_("listing a node's fields");
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(p->children[from + i]);
  int rc = irm_array_new(items, n, out);
  irm_free(items);
  return rc;
}

int irm_expr_to_fields_(const irm_object *self, irm_object **out) {
  const expr_node *p = irm_expr_node_(self);
  const char *keys[5];
  irm_any values[5];
  size_t n = 0;
  irm_object *array = NULL;
  int rc = IRM_OK;
#define FIELD(k, v) (keys[n] = (k), values[n++] = (v))
  switch (p->expr_kind) {
  case IRM_EXPR_VAR:
    FIELD("name", irm_any_object(irm_expr_extra_(p)));
    FIELD("type", irm_any_object(p->type));
    break;
  case IRM_EXPR_GLOBAL_VAR: FIELD("name", irm_any_object(irm_expr_extra_(p))); break;
  case IRM_EXPR_OP: FIELD("name", irm_any_object(irm_expr_extra_(p))); break;
  case IRM_EXPR_CONSTANT: FIELD("data", irm_any_object(irm_expr_extra_(p))); break;
  case IRM_EXPR_TUPLE:
    rc = children_array(p, 0, p->n, &array);
    FIELD("fields", irm_any_object(array));
    break;
  case IRM_EXPR_TUPLE_GET_ITEM:
    FIELD("tuple", irm_any_object(p->children[0]));
    FIELD("index", irm_any_int(p->index));
    break;
  case IRM_EXPR_CALL:
    rc = children_array(p, 1, p->n, &array);
    FIELD("callee", irm_any_object(p->children[0]));
    FIELD("args", irm_any_object(array));
    FIELD("attrs", irm_any_object(irm_expr_extra_(p)));
    break;
  case IRM_EXPR_LET:
    FIELD("var", irm_any_object(p->children[1]));
    FIELD("value", irm_any_object(p->children[0]));
    FIELD("body", irm_any_object(p->children[2]));
    break;
  case IRM_EXPR_FUNCTION:
    rc = children_array(p, 0, p->n - 1, &array);
    FIELD("params", irm_any_object(array));
    FIELD("body", irm_any_object(p->children[p->n - 1]));
    FIELD("ret_type", irm_any_object(irm_expr_extra_(p)));
    FIELD("attrs", irm_any_object(p->base.attrs));
    break;
  default: return irm_error(IRM_ETYPE, "irm_expr_to_fields_: not an IR expression");
  }
  if (p->expr_kind != IRM_EXPR_VAR && p->expr_kind != IRM_EXPR_CONSTANT && p->expr_kind != IRM_EXPR_OP)
    FIELD("checked_type", irm_any_object(p->type));
#undef FIELD
  if (!rc) rc = irm_map_from_pairs(keys, values, n, out);
  irm_object_release(array);
  return rc;
}

/* ---- from_fields ------------------------------------------------------------------ */

/* Field key of fields as an object of type_key (NULL type_key: any IR
 * expression); NONE gives NULL when optional. */
static int field_object(const char *node, const irm_object *fields, const char *key, const char *type_key, int optional,
                        irm_object **out) {
  *out = NULL;
  const irm_any *v = irm_map_find_cstr(fields, key);
  if (!v) return irm_error(IRM_EVALUE, "dataflow.%s: missing field '%s'", node, key);
  if (v->type_code == IRM_NONE && optional) return IRM_OK;
  int rc = irm_any_to_object(v, type_key ? type_key : "ffi.Object", out);
  if (!rc && !type_key && irm_expr_kind_of(*out) == IRM_EXPR_NONE)
    rc = irm_error(IRM_ETYPE, "expected an IR expression, got %s", irm_object_type_key(*out));
  return rc ? irm_error_context(rc, "field '%s' of ir.%s", key, node) : IRM_OK;
}

static int field_name(const char *node, const irm_object *fields, const char **out) {
  irm_object *s = NULL;
  int rc = field_object(node, fields, "name", "ffi.String", 0, &s);
  *out = s ? irm_string_data(s) : NULL;
  return rc;
}

/* The objects of an Array field, borrowed into a new C array (*out,
 * irm_free it). */
static int field_items(const char *node, const irm_object *fields, const char *key, irm_object ***out, size_t *n) {
  *out = NULL;
  irm_object *arr = NULL;
  int rc = field_object(node, fields, key, "ffi.Array", 0, &arr);
  if (rc) return rc;
  *n = irm_array_size(arr);
  irm_object **items = irm_malloc((*n ? *n : 1) * sizeof *items);
  if (!items) return irm_error_nomem_("reading a node's fields");
  for (size_t i = 0; i < *n; i++) {
    const irm_any *v = irm_array_at(arr, i);
    items[i] = v->type_code == IRM_OBJECT ? v->v_obj : NULL;
  }
  *out = items;
  return IRM_OK;
}

/* Gives *made the field "checked_type" (when not NONE). */
static int with_checked_type(const char *node, const irm_object *fields, int rc, irm_object **made) {
  irm_object *type = NULL;
  if (!rc) rc = field_object(node, fields, "checked_type", "dataflow.Type", 1, &type);
  if (!rc && type) {
    irm_object *typed = NULL;
    rc = irm_expr_with_type(*made, type, &typed);
    irm_object_release(*made);
    *made = typed;
  }
  if (rc) {
    irm_object_release(*made);
    *made = NULL;
  }
  return rc;
}

static int var_from_fields(const irm_object *fields, irm_object **out) {
  const char *name;
  irm_object *type = NULL;
  int rc = field_name("Var", fields, &name);
  if (!rc) rc = field_object("Var", fields, "type", "dataflow.Type", 1, &type);
  return rc ? rc : irm_var_new(name, type, out);
}

static int global_var_from_fields(const irm_object *fields, irm_object **out) {
  const char *name;
  int rc = field_name("GlobalVar", fields, &name);
  if (!rc) rc = irm_global_var_new(name, out);
  return with_checked_type("GlobalVar", fields, rc, out);
}

static int op_from_fields(const irm_object *fields, irm_object **out) {
  const char *name;
  int rc = field_name("Op", fields, &name);
  return rc ? rc : irm_op_get(name, out);
}

static int constant_from_fields(const irm_object *fields, irm_object **out) {
  irm_object *data = NULL;
  int rc = field_object("Constant", fields, "data", "ffi.Tensor", 0, &data);
  return rc ? rc : irm_constant_new(data, out);
}

static int tuple_from_fields(const irm_object *fields, irm_object **out) {
  irm_object **items = NULL;
  size_t n = 0;
  int rc = field_items("Tuple", fields, "fields", &items, &n);
  if (!rc) rc = irm_tuple_new(items, n, out);
  irm_free(items);
  return with_checked_type("Tuple", fields, rc, out);
}

static int tuple_get_item_from_fields(const irm_object *fields, irm_object **out) {
  irm_object *tuple = NULL;
  int64_t index = 0;
  int rc = field_object("TupleGetItem", fields, "tuple", NULL, 0, &tuple);
  const irm_any *v = irm_map_find_cstr(fields, "index");
  if (!rc && !v) rc = irm_error(IRM_EVALUE, "dataflow.TupleGetItem: missing field 'index'");
  if (!rc && (rc = irm_any_to_int(v, &index))) irm_error_context(rc, "field 'index' of dataflow.TupleGetItem");
  if (!rc) rc = irm_tuple_get_item_new(tuple, index, out);
  return with_checked_type("TupleGetItem", fields, rc, out);
}

static int call_from_fields(const irm_object *fields, irm_object **out) {
  irm_object *callee = NULL, *attrs = NULL, **args = NULL;
  size_t n = 0;
  int rc = field_object("Call", fields, "callee", NULL, 0, &callee);
  if (!rc) rc = field_object("Call", fields, "attrs", "ffi.Map", 1, &attrs);
  if (!rc) rc = field_items("Call", fields, "args", &args, &n);
  if (!rc) rc = irm_call_new(callee, args, n, attrs, out);
  irm_free(args);
  return with_checked_type("Call", fields, rc, out);
}

static int let_from_fields(const irm_object *fields, irm_object **out) {
  irm_object *var = NULL, *value = NULL, *body = NULL;
  int rc = field_object("Let", fields, "var", NULL, 0, &var);
  if (!rc) rc = field_object("Let", fields, "value", NULL, 0, &value);
  if (!rc) rc = field_object("Let", fields, "body", NULL, 0, &body);
  if (!rc) rc = irm_let_new(var, value, body, out);
  return with_checked_type("Let", fields, rc, out);
}

static int function_from_fields(const irm_object *fields, irm_object **out) {
  irm_object *body = NULL, *ret = NULL, *attrs = NULL, **params = NULL;
  size_t n = 0;
  int rc = field_object("Function", fields, "body", NULL, 0, &body);
  if (!rc) rc = field_object("Function", fields, "ret_type", "dataflow.Type", 1, &ret);
  if (!rc) rc = field_object("Function", fields, "attrs", "ffi.Object", 1, &attrs);
  if (!rc) rc = field_items("Function", fields, "params", &params, &n);
  if (!rc) rc = irm_function_new(params, n, body, ret, attrs, out);
  irm_free(params);
  return with_checked_type("Function", fields, rc, out);
}

int (*const irm_expr_from_fields_table_[IRM_EXPR_FUNCTION + 1])(const irm_object *, irm_object **) = {
    [IRM_EXPR_VAR] = var_from_fields,
    [IRM_EXPR_GLOBAL_VAR] = global_var_from_fields,
    [IRM_EXPR_CONSTANT] = constant_from_fields,
    [IRM_EXPR_TUPLE] = tuple_from_fields,
    [IRM_EXPR_TUPLE_GET_ITEM] = tuple_get_item_from_fields,
    [IRM_EXPR_CALL] = call_from_fields,
    [IRM_EXPR_LET] = let_from_fields,
    [IRM_EXPR_OP] = op_from_fields,
    [IRM_EXPR_FUNCTION] = function_from_fields,
};
