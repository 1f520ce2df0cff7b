/* Pattern introspection (pattern.h): the fields of a pattern from C, and
 * the global dataflow.pattern.Fields, which gives them by TVM's names to
 * other languages (python/irm/pattern.py's CallPattern.op, ...). */
#include "irm/container.h"
#include "irm/dataflow/op.h"
#include "irm/error.h"
#include "irm/tensor.h"
#include "pattern_internal.h"

static int has_sub(irm_pattern_kind k, int i) {
  switch (k) {
  case IRM_PATTERN_CALL:
  case IRM_PATTERN_TUPLE_GET_ITEM:
  case IRM_PATTERN_ATTR:
  case IRM_PATTERN_TYPE:
  case IRM_PATTERN_DTYPE:
  case IRM_PATTERN_SHAPE:
  case IRM_PATTERN_CAPTURE:
  case IRM_PATTERN_FUNCTION: return i == 0;
  case IRM_PATTERN_ALT: return i == 0 || i == 1;
  case IRM_PATTERN_DOMINATOR:
  case IRM_PATTERN_LET: return i >= 0 && i < 3;
  default: return 0;
  }
}

irm_object *irm_pattern_sub(const irm_object *p, int i) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  return pp && has_sub(pp->kind, i) ? pp->sub[i] : NULL;
}

irm_object *irm_pattern_list(const irm_object *p) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  return pp && (pp->kind == IRM_PATTERN_CALL || pp->kind == IRM_PATTERN_TUPLE || pp->kind == IRM_PATTERN_FUNCTION)
             ? pp->list
             : NULL;
}

irm_object *irm_pattern_data(const irm_object *p) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  if (!pp) return NULL;
  switch (pp->kind) {
  case IRM_PATTERN_OP:
  case IRM_PATTERN_EXPR:
  case IRM_PATTERN_ATTR:
  case IRM_PATTERN_TYPE: return pp->data;
  default: return NULL; /* names and shapes have their own accessors */
  }
}

int64_t irm_pattern_index(const irm_object *p) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  return pp && pp->kind == IRM_PATTERN_TUPLE_GET_ITEM ? pp->index : -1;
}

DLDataType irm_pattern_dtype(const irm_object *p) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  return pp && pp->kind == IRM_PATTERN_DTYPE ? pp->dtype : (DLDataType){0, 0, 0};
}

const int64_t *irm_pattern_shape(const irm_object *p, int32_t *ndim) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  int shape = pp && pp->kind == IRM_PATTERN_SHAPE;
  if (ndim) *ndim = shape ? irm_tensor_type_ndim(pp->data) : 0;
  return shape ? irm_tensor_type_shape(pp->data) : NULL;
}

const char *irm_pattern_name(const irm_object *p) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  if (!pp) return NULL;
  if (pp->kind == IRM_PATTERN_OP) return irm_op_name(pp->data);
  if ((pp->kind == IRM_PATTERN_VAR || pp->kind == IRM_PATTERN_CAPTURE) && pp->data) return irm_string_data(pp->data);
  return NULL;
}

/* ---- dataflow.pattern.Fields ----------------------------------------------- */

/* TVM's class names (DataTypePattern, ...); irm's own kinds keep theirs. */
static const char *const tvm_names[] = {"",
                                        "WildcardPattern",
                                        "OpPattern",
                                        "CallPattern",
                                        "ConstantPattern",
                                        "VarPattern",
                                        "ExprPattern",
                                        "TuplePattern",
                                        "TupleGetItemPattern",
                                        "AltPattern",
                                        "AttrPattern",
                                        "TypePattern",
                                        "DataTypePattern",
                                        "ShapePattern",
                                        "DominatorPattern",
                                        "CapturePattern",
                                        "FunctionPattern",
                                        "LetPattern"};

/* The field names of sub[0..2] per kind, TVM's. */
static const char *sub_name(irm_pattern_kind k, int i) {
  static const char *const alt[] = {"left", "right"}, *const dom[] = {"parent", "path", "child"},
                           *const let[] = {"var", "value", "body"};
  switch (k) {
  case IRM_PATTERN_FUNCTION: return "body";
  case IRM_PATTERN_LET: return let[i];
  case IRM_PATTERN_CALL: return "op";
  case IRM_PATTERN_TUPLE_GET_ITEM: return "tuple";
  case IRM_PATTERN_ALT: return alt[i];
  case IRM_PATTERN_DOMINATOR: return dom[i];
  default: return "pattern";
  }
}

static int set_obj(irm_object **map, const char *key, irm_object *o) {
  irm_any v = irm_any_object(o);
  return o ? irm_map_set_move(map, key, &v) : IRM_OK;
}

/* A NEW Array of the sizes of a shape pattern. */
static int shape_array(const irm_object *p, irm_object **out) {
  int32_t nd = 0;
  const int64_t *dims = irm_pattern_shape(p, &nd);
  irm_any items[IRM_TENSOR_MAX_NDIM];
  for (int32_t i = 0; i < nd && i < IRM_TENSOR_MAX_NDIM; i++) items[i] = irm_any_int(dims[i]);
  return irm_array_new(items, (size_t)nd, out);
}

/* The fields of p as a NEW Map: "kind" (TVM's class name) and each field
 * by TVM's name; a field that is "any" (args, fields, index -1, a var's
 * name) is left out. */
static int pattern_fields(const irm_object *p, irm_object **out) {
  const irm_pattern_ *pp = irm_pattern_payload_(p);
  irm_any kind = irm_any_str(tvm_names[pp->kind]);
  int rc = irm_map_new(out);
  if (!rc) rc = irm_map_set_move(out, "kind", &kind);
  for (int i = 0; !rc && i < 3; i++)
    if (has_sub(pp->kind, i)) rc = set_obj(out, sub_name(pp->kind, i), pp->sub[i]);
  static const char *const list_names[] =
      {[IRM_PATTERN_CALL] = "args", [IRM_PATTERN_TUPLE] = "fields", [IRM_PATTERN_FUNCTION] = "params"};
  if (!rc && pp->list) rc = set_obj(out, list_names[pp->kind], pp->list);
  switch (rc ? IRM_PATTERN_NONE : pp->kind) {
  case IRM_PATTERN_OP:
  case IRM_PATTERN_EXPR: rc = set_obj(out, "expr", pp->data); break;
  case IRM_PATTERN_ATTR: rc = set_obj(out, "attrs", pp->data); break;
  case IRM_PATTERN_TYPE: rc = set_obj(out, "type", pp->data); break;
  case IRM_PATTERN_VAR:
  case IRM_PATTERN_CAPTURE: rc = set_obj(out, "name", pp->data); break;
  case IRM_PATTERN_TUPLE_GET_ITEM:
    if (pp->index >= 0) {
      irm_any v = irm_any_int(pp->index);
      rc = irm_map_set_move(out, "index", &v);
    }
    break;
  case IRM_PATTERN_DTYPE: {
    irm_any v = irm_any_str(irm_dtype_name(pp->dtype));
    rc = irm_map_set_move(out, "dtype", &v);
    break;
  }
  case IRM_PATTERN_SHAPE: {
    irm_object *shape = NULL;
    if (!(rc = shape_array(p, &shape))) rc = set_obj(out, "shape", shape);
    irm_object_release(shape);
    break;
  }
  default: break;
  }
  if (rc) {
    irm_object_release(*out);
    *out = NULL;
  }
  return rc;
}

/* Fields(pattern) -> Map (registered with the other globals, pattern_globals.c) */
int irm_pattern_g_fields_(const irm_any *args, int32_t nargs, irm_any *ret, void *res) {
  (void)res;
  const char *fn = "dataflow.pattern.Fields";
  irm_object *p = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, "dataflow.DFPattern", &p);
  if (!rc) rc = pattern_fields(p, &out);
  return irm_ret_object(fn, rc, &out, ret);
}
