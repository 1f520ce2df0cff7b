/* Helpers of the IRModule suites (check_module.c, check_module_attrs.c,
 * check_module_freeze.c): a small ir.BaseFunc subtype of their own,
 * test.Func {attrs, body, name}, until the dataflow IR exists; one without
 * to_fields/from_fields hooks; builders for modules and config objects;
 * calling globals; and a snapshot of a module that proves a call left it as
 * it was (same functions, same attrs, same pointers). Static inline only. */
#ifndef IRM_TESTS_CHECK_MODULE_UTIL_H
#define IRM_TESTS_CHECK_MODULE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <irm/irm.h>
#include <irm/module.h>

#include "check_util.h"

/* ---- test.Func: an ir.BaseFunc subtype -------------------------------------- */

#define TEST_FUNC_KEY "test.Func"

typedef struct test_func {
  irm_base_func_head head; /* must come first: attrs, a DictAttrs */
  int64_t body;
  irm_object *name; /* a String or NULL */
} test_func;

static inline int32_t test_func_type(void);

static inline void test_func_finalize(irm_object *self) {
  test_func *f = irm_object_payload(self);
  irm_object_release(f->head.attrs);
  irm_object_release(f->name);
}

static inline int test_func_to_fields(const irm_object *self, irm_object **out) {
  const test_func *f = irm_object_payload_const(self);
  const char *keys[] = {"attrs", "body", "name"};
  irm_any values[] = {irm_any_object(f->head.attrs), irm_any_int(f->body), irm_any_object(f->name)};
  return irm_map_from_pairs(keys, values, 3, out);
}

/* Strict on purpose: "attrs" must be the DictAttrs module.h promises. */
static inline int test_func_from_fields(const irm_object *fields, irm_object **out) {
  const irm_any *attrs = irm_map_find_cstr(fields, "attrs");
  const irm_any *body = irm_map_find_cstr(fields, "body");
  const irm_any *name = irm_map_find_cstr(fields, "name");
  if (attrs == NULL || attrs->type_code != IRM_OBJECT || !irm_object_is(attrs->v_obj, "ir.DictAttrs"))
    return irm_error(IRM_ETYPE, "test.Func: field 'attrs' must be an ir.DictAttrs, got %s",
                     attrs ? irm_any_type_name(attrs) : "nothing");
  if (body == NULL || body->type_code != IRM_INT) return irm_error(IRM_ETYPE, "test.Func: field 'body' must be an int");
  if (name != NULL && name->type_code != IRM_NONE &&
      !(name->type_code == IRM_OBJECT && irm_string_data(name->v_obj) != NULL))
    return irm_error(IRM_ETYPE, "test.Func: field 'name' must be a String");
  irm_object *o = NULL;
  int rc = irm_object_new(test_func_type(), sizeof(test_func), &o);
  if (rc != 0) return rc;
  test_func *f = irm_object_payload(o);
  f->head.attrs = attrs->v_obj;
  irm_object_retain(f->head.attrs);
  f->body = body->v_int;
  if (name != NULL && name->type_code == IRM_OBJECT) {
    f->name = name->v_obj;
    irm_object_retain(f->name);
  }
  *out = o;
  return IRM_OK;
}

static inline int32_t test_func_type(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.parent_key = "ir.BaseFunc";
  info.finalize = test_func_finalize;
  info.to_fields = test_func_to_fields;
  info.from_fields = test_func_from_fields;
  if (index < 0) (void)irm_base_func_type(); /* ir.BaseFunc must exist first */
  return type_once(&index, TEST_FUNC_KEY, info);
}

/* A new DictAttrs of map (NULL: empty). */
static inline irm_object *new_dict_attrs(const irm_object *map) {
  irm_object *d = NULL;
  ck_assert_ok(irm_dict_attrs_new(map, &d));
  ck_assert_ptr_nonnull(d);
  return d;
}

/* A new test.Func called name (NULL: no name) with the given body and
 * function attributes (attrs a Map or NULL). */
static inline irm_object *new_func_attrs(const char *name, int64_t body, const irm_object *attrs) {
  irm_object *o = new_object(test_func_type(), sizeof(test_func));
  test_func *f = irm_object_payload(o);
  f->head.attrs = new_dict_attrs(attrs);
  f->body = body;
  if (name != NULL) f->name = new_string(name);
  return o;
}

static inline irm_object *new_func(const char *name, int64_t body) { return new_func_attrs(name, body, NULL); }

static inline int64_t func_body(const irm_object *f) {
  ck_assert_str_eq(irm_object_type_key(f), TEST_FUNC_KEY);
  return ((const test_func *)irm_object_payload_const(f))->body;
}

/* ---- test.HooklessFunc: an ir.BaseFunc without to_fields/from_fields ----- */

static inline void hookless_finalize(irm_object *self) {
  irm_base_func_head *h = irm_object_payload(self);
  irm_object_release(h->attrs);
}

static inline irm_object *new_hookless_func(void) {
  static int32_t index = -1;
  irm_type_info info = {0};
  info.parent_key = "ir.BaseFunc";
  info.finalize = hookless_finalize;
  if (index < 0) (void)irm_base_func_type();
  irm_object *o = new_object(type_once(&index, "test.HooklessFunc", info), sizeof(irm_base_func_head));
  ((irm_base_func_head *)irm_object_payload(o))->attrs = new_dict_attrs(NULL);
  return o;
}

/* ---- config objects ------------------------------------------------------------ */

static inline irm_object *new_target(const char *text) {
  irm_object *t = NULL;
  ck_assert_ok(irm_target_parse(text, &t));
  return t;
}

static inline irm_object *new_executor(const char *kind, const irm_object *options) {
  irm_object *e = NULL;
  ck_assert_ok(irm_executor_create(kind, options, &e));
  return e;
}

static inline irm_object *new_runtime(const char *kind, const irm_object *options) {
  irm_object *r = NULL;
  ck_assert_ok(irm_runtime_create(kind, options, &r));
  return r;
}

/* aot {unpacked-api: true, interface-api: "c"}. */
static inline irm_object *new_aot_executor(void) {
  const char *keys[] = {"unpacked-api", "interface-api"};
  irm_any values[] = {irm_any_bool(true), irm_any_str("c")};
  irm_object *opts = new_map(keys, values, 2);
  irm_object *e = new_executor("aot", opts);
  irm_object_release(opts);
  return e;
}

/* crt {system-lib: true}. */
static inline irm_object *new_crt_runtime(void) {
  irm_object *opts = map1("system-lib", irm_any_bool(true));
  irm_object *r = new_runtime("crt", opts);
  irm_object_release(opts);
  return r;
}

/* ---- modules ------------------------------------------------------------------- */

static inline irm_module *new_module(const irm_object *functions, const irm_object *attrs) {
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(functions, attrs, &m));
  ck_assert_ptr_nonnull(m);
  ck_assert_str_eq(irm_object_type_key(m), "ir.IRModule");
  return m;
}

/* A module of n fresh test.Funcs names[i] with body i + 1, no attrs. */
static inline irm_module *module_of(const char *const *names, size_t n) {
  irm_any funcs[16];
  ck_assert_uint_le(n, 16);
  for (size_t i = 0; i < n; i++) funcs[i] = irm_any_object(new_func(names[i], (int64_t)i + 1));
  irm_object *map = new_map(names, funcs, n);
  for (size_t i = 0; i < n; i++) irm_any_release(&funcs[i]);
  irm_module *m = new_module(map, NULL);
  irm_object_release(map);
  return m;
}

/* mod with key set to value, asserting success. NEW. */
static inline irm_module *with_attr(const irm_module *mod, const char *key, irm_any value) {
  irm_module *out = NULL;
  ck_assert_ok(irm_module_with_attr(mod, key, &value, &out));
  ck_assert_ptr_nonnull(out);
  return out;
}

/* Replaces *mod by *mod with key set to value. */
static inline void set_attr(irm_module **mod, const char *key, irm_any value) {
  irm_module *next = with_attr(*mod, key, value);
  irm_object_release(*mod);
  *mod = next;
}

/* A module with one function "main" and every config attribute: a Target
 * with a host, an aot Executor with options, a crt Runtime, mod_name
 * "tiny", and params {"w": "weights", "n": 3, "shape": [2, 3], "names": ["a"]}. */
static inline irm_module *new_configured_module(void) {
  const char *main_name = "main";
  irm_module *m = module_of(&main_name, 1);
  irm_object *t = new_target("c -mcpu=cortex-m55 --host='llvm -mtriple=aarch64-linux-gnu'");
  irm_object *e = new_aot_executor();
  irm_object *r = new_crt_runtime();
  irm_any dims[] = {irm_any_int(2), irm_any_int(3)};
  irm_any labels[] = {irm_any_str("a")};
  irm_object *shape = new_array(dims, 2);
  irm_object *names = new_array(labels, 1);
  const char *pkeys[] = {"w", "n", "shape", "names"};
  irm_any pvalues[] = {irm_any_str("weights"), irm_any_int(3), irm_any_object(shape), irm_any_object(names)};
  irm_object *params = new_map(pkeys, pvalues, 4);
  set_attr(&m, IRM_ATTR_TARGET, irm_any_object(t));
  set_attr(&m, IRM_ATTR_EXECUTOR, irm_any_object(e));
  set_attr(&m, IRM_ATTR_RUNTIME, irm_any_object(r));
  set_attr(&m, IRM_ATTR_MOD_NAME, irm_any_str("tiny"));
  set_attr(&m, IRM_ATTR_PARAMS, irm_any_object(params));
  irm_object_release(t);
  irm_object_release(e);
  irm_object_release(r);
  irm_object_release(shape);
  irm_object_release(names);
  irm_object_release(params);
  return m;
}

/* The function names of mod joined by commas ("main,helper"). */
static inline void names_text(const irm_module *mod, char *buf, size_t size) {
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(mod, &names));
  ck_assert_str_eq(irm_object_type_key(names), "ffi.Array");
  buf[0] = '\0';
  size_t used = 0;
  for (size_t i = 0; i < irm_array_size(names); i++) {
    const irm_any *item = irm_array_at(names, i);
    ck_assert_int_eq(item->type_code, IRM_OBJECT);
    int n = snprintf(buf + used, size - used, "%s%s", i ? "," : "", irm_string_data(item->v_obj));
    ck_assert(n >= 0 && (size_t)n < size - used);
    used += (size_t)n;
  }
  irm_object_release(names);
}

#define assert_names(mod, expected)                   \
  do {                                                \
    char names_buf_[256];                             \
    names_text((mod), names_buf_, sizeof names_buf_); \
    ck_assert_str_eq(names_buf_, (expected));         \
  } while (0)

/* ---- calling globals ------------------------------------------------------------- */

/* ir.ModuleIsFrozen as a C int, checking that it gives a bool. */
static inline int global_is_frozen(const irm_module *mod) {
  irm_any arg = irm_any_object((irm_object *)mod);
  irm_any ret = call_ok("ir.ModuleIsFrozen", &arg, 1);
  ck_assert_int_eq(ret.type_code, IRM_BOOL);
  return (int)ret.v_int;
}

/* The type name registered for key in a Map key -> type name; NULL if absent. */
static inline const char *listed_type(const irm_object *list, const char *key) {
  const irm_any *v = irm_map_find_cstr(list, key);
  if (v == NULL) return NULL;
  ck_assert_int_eq(v->type_code, IRM_OBJECT);
  ck_assert_ptr_nonnull(irm_string_data(v->v_obj));
  return irm_string_data(v->v_obj);
}

/* ---- structural equality and JSON ------------------------------------------------ */

static inline int objects_equal(const irm_object *a, const irm_object *b) {
  irm_any va = irm_any_object((irm_object *)a), vb = irm_any_object((irm_object *)b);
  return equal(&va, &vb);
}

/* mod written to JSON and read back (a NEW module). */
static inline irm_module *json_round_trip(const irm_module *mod) {
  irm_any v = irm_any_object((irm_object *)mod);
  irm_object *text = NULL;
  ck_assert_ok(irm_to_json(&v, &text));
  irm_any back = irm_any_none();
  ck_assert_ok(irm_from_json(irm_string_data(text), irm_string_size(text), &back));
  irm_object_release(text);
  ck_require(back.type_code == IRM_OBJECT && irm_object_is(back.v_obj, "ir.IRModule"),
             "JSON gave back %s, not an ir.IRModule", irm_any_type_name(&back));
  return back.v_obj;
}

/* ---- snapshots: proving that a module did not change ----------------------------- */

#define SNAP_MAX 16
#define SNAP_NAME 48

typedef struct module_snapshot {
  const irm_module *mod;
  size_t n_funcs;
  char names[SNAP_MAX][SNAP_NAME];
  const irm_object *funcs[SNAP_MAX];
  const irm_object *attrs;     /* the DictAttrs */
  const irm_object *attrs_map; /* its Map */
  size_t n_attrs;
  char keys[SNAP_MAX][SNAP_NAME];
  irm_any values[SNAP_MAX]; /* shallow: type code and bits, no reference */
  int frozen;
} module_snapshot;

static inline module_snapshot snapshot(const irm_module *mod) {
  module_snapshot s;
  memset(&s, 0, sizeof s);
  s.mod = mod;
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(mod, &names));
  s.n_funcs = irm_module_function_count(mod);
  ck_assert_uint_eq(irm_array_size(names), s.n_funcs);
  ck_assert_uint_le(s.n_funcs, SNAP_MAX);
  for (size_t i = 0; i < s.n_funcs; i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    ck_assert_uint_lt(strlen(name), SNAP_NAME);
    strcpy(s.names[i], name);
    s.funcs[i] = irm_module_function(mod, name);
    ck_assert_ptr_nonnull(s.funcs[i]);
  }
  irm_object_release(names);
  s.attrs = irm_module_attrs(mod);
  ck_assert_ptr_nonnull(s.attrs);
  s.attrs_map = irm_dict_attrs_map(s.attrs);
  ck_assert_ptr_nonnull(s.attrs_map);
  s.n_attrs = irm_map_size(s.attrs_map);
  ck_assert_uint_le(s.n_attrs, SNAP_MAX);
  irm_map_iter it = irm_map_iter_begin(s.attrs_map);
  const irm_object *k;
  const irm_any *v;
  for (size_t i = 0; irm_map_iter_next(&it, &k, &v); i++) {
    ck_assert_uint_lt(irm_string_size(k), SNAP_NAME);
    strcpy(s.keys[i], irm_string_data(k));
    s.values[i] = *v;
  }
  s.frozen = irm_module_is_frozen(mod) != 0;
  return s;
}

/* The module of s must have exactly the functions (same objects, same
 * order), the same DictAttrs with the same entries (same values) and the
 * same frozen flag as when s was taken. */
static inline void assert_unchanged(const module_snapshot *s) {
  const irm_module *mod = s->mod;
  ck_assert_msg(irm_module_function_count(mod) == s->n_funcs, "the module now has %zu functions, had %zu",
                irm_module_function_count(mod), s->n_funcs);
  irm_object *names = NULL;
  ck_assert_ok(irm_module_function_names(mod, &names));
  ck_assert_uint_eq(irm_array_size(names), s->n_funcs);
  for (size_t i = 0; i < s->n_funcs; i++) {
    const char *name = irm_string_data(irm_array_at(names, i)->v_obj);
    ck_assert_msg(strcmp(name, s->names[i]) == 0, "function %zu is now '%s', was '%s'", i, name, s->names[i]);
    ck_assert_msg(irm_module_function(mod, name) == s->funcs[i], "function '%s' is another object now", name);
  }
  irm_object_release(names);
  ck_assert_msg(irm_module_attrs(mod) == s->attrs, "the module's DictAttrs is another object now");
  ck_assert_msg(irm_dict_attrs_map(s->attrs) == s->attrs_map, "the DictAttrs' Map is another object now");
  ck_assert_msg(irm_map_size(s->attrs_map) == s->n_attrs, "the module now has %zu attributes, had %zu",
                irm_map_size(s->attrs_map), s->n_attrs);
  irm_map_iter it = irm_map_iter_begin(s->attrs_map);
  const irm_object *k;
  const irm_any *v;
  for (size_t i = 0; irm_map_iter_next(&it, &k, &v); i++) {
    ck_assert_msg(strcmp(irm_string_data(k), s->keys[i]) == 0, "attribute %zu is now '%s', was '%s'", i,
                  irm_string_data(k), s->keys[i]);
    ck_assert_msg(v->type_code == s->values[i].type_code && v->v_int == s->values[i].v_int,
                  "attribute '%s' has another value now", s->keys[i]);
  }
  ck_assert_msg((irm_module_is_frozen(mod) != 0) == s->frozen, "the module's frozen flag changed");
}

/* ---- helpers ------------------------------------------------------------------------ */

/* ir.ListModuleAttrKeys, a NEW Map. */
static inline irm_object *global_module_keys(void) { return call_obj("ir.ListModuleAttrKeys", NULL, 0, "ffi.Map"); }

/* ir.ListModuleAttrKeys must (or must not) list key, with type type_name. */
static inline void assert_module_key(const char *key, const char *type_name) {
  irm_object *list = global_module_keys();
  const char *t = listed_type(list, key);
  if (type_name == NULL) {
    ck_assert_msg(t == NULL, "'%s' is still listed, as %s", key, t);
  } else {
    ck_assert_msg(t != NULL, "'%s' is not listed", key);
    ck_assert_str_eq(t, type_name);
  }
  irm_object_release(list);
}

/* ir.RegisterModuleAttrKey(key, type, pass_invariant); returns the status. */
static inline int global_register(const char *key, const char *type_name, int pass_invariant) {
  irm_any args[] = {irm_any_str(key), irm_any_str(type_name), irm_any_bool(pass_invariant)};
  irm_any ret = irm_any_int(-1);
  int rc = irm_func_call_global("ir.RegisterModuleAttrKey", args, 3, &ret);
  if (rc == 0) ck_assert_int_eq(ret.type_code, IRM_NONE);
  irm_any_release(&ret);
  return rc;
}

/* irm_module_with_attr of key = value on mod must fail with code; *out stays NULL. */
static inline void with_attr_fails(const irm_module *mod, const char *key, irm_any value, int code,
                                   const char *prefix) {
  irm_module *out = NULL;
  ck_assert_error(irm_module_with_attr(mod, key, &value, &out), code, prefix);
  ck_assert_ptr_null(out);
}


#endif /* IRM_TESTS_CHECK_MODULE_UTIL_H */
