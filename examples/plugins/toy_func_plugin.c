/* A plugin that brings its own function type: toy.Func, an ir.BaseFunc
 * subtype whose body is one integer. The pass manager knows nothing of the
 * IR a function holds, so modules, function passes, function attributes and
 * JSON work on toy.Func as on any ir.BaseFunc; the Python tests use it to
 * put real functions in modules.
 *
 * Globals: toy.Func(body int [, attrs Map]) -> toy.Func; toy.FuncBody(f) -> int. */
#include <irm/irm.h>

#define TOY_FUNC_KEY "toy.Func"

typedef struct toy_func {
  irm_base_func_head head; /* first: the function attributes (a DictAttrs) */
  int64_t body;
} toy_func;

static int32_t toy_func_type = -1;

static void toy_finalize(irm_object *self) {
  toy_func *f = irm_object_payload(self);
  irm_object_release(f->head.attrs);
}

static int toy_to_fields(const irm_object *self, irm_object **out) {
  const toy_func *f = irm_object_payload_const(self);
  const char *keys[] = {"attrs", "body"};
  irm_any values[] = {irm_any_object(f->head.attrs), irm_any_int(f->body)};
  return irm_map_from_pairs(keys, values, 2, out);
}

/* A toy.Func of body with attrs (a DictAttrs, retained). */
static int toy_new(int64_t body, irm_object *attrs, irm_object **out) {
  irm_object *o = NULL;
  int rc = irm_object_new(toy_func_type, sizeof(toy_func), &o);
  if (rc) return rc;
  toy_func *f = irm_object_payload(o);
  irm_object_retain(attrs);
  f->head.attrs = attrs;
  f->body = body;
  *out = o;
  return IRM_OK;
}

static int toy_from_fields(const irm_object *fields, irm_object **out) {
  const irm_any *attrs = irm_map_find_cstr(fields, "attrs");
  const irm_any *body = irm_map_find_cstr(fields, "body");
  if (!attrs || attrs->type_code != IRM_OBJECT || !irm_object_is(attrs->v_obj, "ir.DictAttrs"))
    return irm_error(IRM_ETYPE, "toy.Func: field 'attrs' must be an ir.DictAttrs");
  if (!body || body->type_code != IRM_INT) return irm_error(IRM_ETYPE, "toy.Func: field 'body' must be an int");
  return toy_new(body->v_int, attrs->v_obj, out);
}

/* toy.Func(body int [, attrs Map]) -> toy.Func */
static int g_func(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  const char *fn = "toy.Func";
  int64_t body = 0;
  irm_object *map = NULL, *attrs = NULL, *out = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 2);
  if (!rc) rc = irm_arg_int(fn, args, 0, &body);
  if (!rc && irm_arg_present(args, nargs, 1)) rc = irm_arg_object(fn, args, 1, "ffi.Map", &map);
  if (!rc) rc = irm_dict_attrs_new(map, &attrs);
  if (!rc) rc = toy_new(body, attrs, &out);
  irm_object_release(attrs);
  return irm_ret_object(fn, rc, &out, ret);
}

/* toy.FuncBody(f toy.Func) -> int */
static int g_body(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)resource;
  const char *fn = "toy.FuncBody";
  irm_object *f = NULL;
  int rc = irm_arg_count(fn, nargs, 1, 1);
  if (!rc) rc = irm_arg_object(fn, args, 0, TOY_FUNC_KEY, &f);
  if (!rc) *ret = irm_any_int(((const toy_func *)irm_object_payload_const(f))->body);
  return rc;
}

static int register_global(const char *name, irm_packed_cfunc fn) {
  irm_object *f = NULL;
  int rc = irm_func_new_packed(fn, NULL, NULL, &f);
  if (!rc) rc = irm_func_register_global(name, f, 0);
  irm_object_release(f);
  return rc;
}

static int toy_init(void) {
  irm_type_info info = {0};
  info.struct_size = sizeof info;
  info.type_key = TOY_FUNC_KEY;
  info.parent_key = "ir.BaseFunc";
  info.finalize = toy_finalize;
  info.to_fields = toy_to_fields;
  info.from_fields = toy_from_fields;
  (void)irm_base_func_type(); /* ir.BaseFunc exists before its subtype */
  int rc = irm_type_ensure(&info, &toy_func_type);
  if (!rc) rc = register_global("toy.Func", g_func);
  if (!rc) rc = register_global("toy.FuncBody", g_body);
  return rc;
}

static const irm_plugin_info info = IRM_PLUGIN_INFO("toy-func", "1.0.0", toy_init);
IRM_PLUGIN_EXPORT(info);
