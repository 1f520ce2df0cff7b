/* ir.IRModule (module.h): global functions (a Map name -> ir.BaseFunc, in
 * insertion order) and module attributes (a DictAttrs), with copy-on-write
 * changes: `*_with_*` make a new module sharing whatever did not change;
 * `*_move` change the module in place when the caller holds the only
 * reference. Every result keeps the frozen flag of the module it came
 * from. Freezing is in module_freeze.c, the type's hooks in
 * module_fields.c. */
#include <string.h>

#include "ir_internal.h"
#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "module_internal.h"

_Atomic int32_t irm_module_type_ = -1;

int irm_module_type_error_(const char *fn, const irm_object *o) {
  return irm_error(IRM_ETYPE, "%s: expected ir.IRModule, got %s", fn, o ? irm_object_type_key(o) : "NULL");
}

int irm_module_make_(irm_object *functions, irm_object *attrs, int frozen, irm_module **out) {
  irm_object *m = NULL;
  int rc = irm_object_new(atomic_load_explicit(&irm_module_type_, memory_order_acquire), sizeof(module_payload), &m);
  if (rc) {
    irm_object_release(functions);
    irm_object_release(attrs);
    return rc;
  }
  module_payload *p = irm_object_payload(m);
  p->functions = functions;
  p->attrs = attrs;
  p->frozen = frozen;
  atomic_init(&p->config_cache, NULL);
  *out = m;
  return IRM_OK;
}

int irm_module_missing_error_(const char *what, const irm_object *map, const char *key) {
  size_t n = irm_map_size(map);
  const char **names = irm_malloc((n ? n : 1) * sizeof *names);
  if (!names) return irm_error_nomem_("reporting a missing key");
  irm_map_iter it = irm_map_iter_begin(map);
  const irm_object *k;
  const irm_any *v;
  for (size_t i = 0; irm_map_iter_next(&it, &k, &v); i++) names[i] = irm_string_data(k);
  const char *best = irm_closest_name(key, names, n);
  int rc = best ? irm_error(IRM_EKEY, "module has no %s '%s' (did you mean '%s'?)", what, irm_error_quote(key), best)
                : irm_error(IRM_EKEY, "module has no %s '%s'", what, irm_error_quote(key));
  irm_free(names);
  return rc;
}

/* ---- making modules ---------------------------------------------------------------- */

static int check_function(const char *fn, const char *name, const irm_object *func) {
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "%s: a function name must be a non-empty string", fn);
  if (!irm_is_base_func_(func))
    return irm_error(IRM_ETYPE, "%s: function '%s': expected ir.BaseFunc, got %s", fn, irm_error_quote(name),
                     func ? irm_object_type_key(func) : "none");
  return IRM_OK;
}

static int check_functions(const irm_object *functions) {
  if (functions && irm_object_type_index(functions) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "irm_module_new: functions: expected ffi.Map, got %s", irm_object_type_key(functions));
  irm_map_iter it = irm_map_iter_begin(functions);
  const irm_object *name;
  const irm_any *f;
  while (irm_map_iter_next(&it, &name, &f)) {
    const char *fname = irm_string_data(name);
    if (fname && fname[0] && f->type_code != IRM_OBJECT) /* name the value given */
      return irm_error(IRM_ETYPE, "irm_module_new: function '%s': expected ir.BaseFunc, got %s", irm_error_quote(fname),
                       irm_any_describe_(f));
    int rc = check_function("irm_module_new", fname, f->type_code == IRM_OBJECT ? f->v_obj : NULL);
    if (rc) return rc;
  }
  return IRM_OK;
}

/* A DictAttrs of attrs' entries, each checked against the key registry
 * and stored as converted. */
static int checked_attrs(const irm_object *attrs, irm_object **out) {
  if (attrs && irm_object_type_index(attrs) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "irm_module_new: attrs: expected ffi.Map, got %s", irm_object_type_key(attrs));
  irm_object *map = NULL;
  int rc = irm_map_new(&map);
  irm_map_iter it = irm_map_iter_begin(attrs);
  const irm_object *key;
  const irm_any *value;
  while (rc == IRM_OK && irm_map_iter_next(&it, &key, &value)) {
    const char *name = irm_string_data(key);
    const attr_key *k = irm_attr_key_find_(&irm_module_attr_keys_, name, &rc);
    irm_any stored = irm_any_none();
    if (!rc) rc = irm_attr_key_check_(&irm_module_attr_keys_, k, name, value, &stored);
    if (!rc) rc = irm_map_set_move_n(&map, name, irm_string_size(key), &stored);
    irm_any_release(&stored);
  }
  if (rc) {
    irm_object_release(map);
    return rc;
  }
  return irm_dict_attrs_wrap_(map, out);
}

int irm_module_new(const irm_object *functions, const irm_object *attrs, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_new: out must not be NULL");
  *out = NULL;
  irm_object *funcs = NULL, *dict = NULL;
  int rc = irm_builtins_ready_();
  if (!rc) rc = check_functions(functions);
  if (!rc) rc = checked_attrs(attrs, &dict);
  if (rc) return rc;
  /* Sharing the caller's Map is safe: it is copied before any change
   * while the caller still holds it. */
  if (functions) irm_object_retain(funcs = (irm_object *)functions);
  else if ((rc = irm_map_new(&funcs))) {
    irm_object_release(dict);
    return rc;
  }
  return irm_module_make_(funcs, dict, 0, out);
}

/* ---- functions ---------------------------------------------------------------------- */

size_t irm_module_function_count(const irm_module *mod) {
  const module_payload *p = irm_module_payload_(mod);
  return p ? irm_map_size(p->functions) : 0;
}

irm_object *irm_module_function(const irm_module *mod, const char *name) {
  const module_payload *p = irm_module_payload_(mod);
  const irm_any *v = p && name ? irm_map_find_cstr(p->functions, name) : NULL;
  return v && v->type_code == IRM_OBJECT ? v->v_obj : NULL;
}

int irm_module_function_names(const irm_module *mod, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_function_names: out must not be NULL");
  *out = NULL;
  const module_payload *p = irm_module_payload_(mod);
  if (!p) return irm_module_type_error_("irm_module_function_names", mod);
  size_t n = irm_map_size(p->functions);
  irm_any *names = irm_malloc((n ? n : 1) * sizeof *names);
  if (!names) return irm_error_nomem_("listing function names");
  irm_map_iter it = irm_map_iter_begin(p->functions);
  const irm_object *k;
  const irm_any *v;
  for (size_t i = 0; irm_map_iter_next(&it, &k, &v); i++) names[i] = irm_any_object((irm_object *)k);
  int rc = irm_array_new(names, n, out);
  irm_free(names);
  return rc;
}

/* A module with functions (taken) and mod's attributes and flag. */
static int with_functions(const module_payload *p, int rc, irm_object *functions, irm_module **out) {
  if (rc) return rc;
  irm_object_retain(p->attrs);
  return irm_module_make_(functions, p->attrs, p->frozen, out);
}

int irm_module_with_function(const irm_module *mod, const char *name, irm_object *func, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_with_function: out must not be NULL");
  *out = NULL;
  const module_payload *p = irm_module_payload_(mod);
  if (!p) return irm_module_type_error_("irm_module_with_function", mod);
  int rc = check_function("irm_module_with_function", name, func);
  if (rc) return rc;
  irm_any v = irm_any_object(func);
  irm_object *functions = NULL;
  rc = irm_map_with_set(p->functions, name, &v, &functions);
  return with_functions(p, rc, functions, out);
}

int irm_module_without_function(const irm_module *mod, const char *name, irm_module **out) {
  if (!name || !out) return irm_error(IRM_EVALUE, "irm_module_without_function: name and out must not be NULL");
  *out = NULL;
  const module_payload *p = irm_module_payload_(mod);
  if (!p) return irm_module_type_error_("irm_module_without_function", mod);
  if (!irm_map_find_cstr(p->functions, name)) return irm_module_missing_error_("function", p->functions, name);
  irm_object *functions = NULL;
  int rc = irm_map_with_erase(p->functions, name, &functions);
  return with_functions(p, rc, functions, out);
}

/* The module *ref points to, writable when the caller holds the only
 * reference; NULL (and *sole 0) when it must be copied. */
static module_payload *sole_payload(irm_module **ref, const char *fn, int *rc) {
  *rc = !ref                         ? irm_error(IRM_EVALUE, "%s: ref must not be NULL", fn)
        : !irm_module_payload_(*ref) ? irm_module_type_error_(fn, *ref)
                                     : IRM_OK;
  if (*rc || irm_object_refcount(*ref) != 1) return NULL;
  module_payload *p = irm_object_payload(*ref);
  /* The caller holds the only reference, so no other thread reads the
   * slot: what was derived from the old content goes. */
  irm_object_release(atomic_exchange_explicit(&p->config_cache, NULL, memory_order_acq_rel));
  return p;
}

/* Replaces *ref by *next (made by the call whose status is rc; a pointer,
 * so that it is read after that call). */
static int replace(irm_module **ref, int rc, irm_module **next) {
  if (rc) return rc;
  irm_object_release(*ref);
  *ref = *next;
  return IRM_OK;
}

int irm_module_set_function_move(irm_module **ref, const char *name, irm_object *func) {
  int rc;
  module_payload *p = sole_payload(ref, "irm_module_set_function_move", &rc);
  if (rc) return rc;
  irm_module *next = NULL;
  if (!p) return replace(ref, irm_module_with_function(*ref, name, func, &next), &next);
  if ((rc = check_function("irm_module_set_function_move", name, func))) return rc;
  irm_any v = irm_any_object(func);
  return irm_map_set_move(&p->functions, name, &v);
}

int irm_module_remove_function_move(irm_module **ref, const char *name) {
  int rc;
  module_payload *p = sole_payload(ref, "irm_module_remove_function_move", &rc);
  if (rc) return rc;
  irm_module *next = NULL;
  if (!p) return replace(ref, irm_module_without_function(*ref, name, &next), &next);
  if (!name) return irm_error(IRM_EVALUE, "irm_module_remove_function_move: name must not be NULL");
  if (!irm_map_find_cstr(p->functions, name)) return irm_module_missing_error_("function", p->functions, name);
  return irm_map_erase_move(&p->functions, name);
}

/* ---- attributes ----------------------------------------------------------------------- */

int irm_module_get_attr(const irm_module *mod, const char *key, irm_any *out) {
  if (!key || !out) return irm_error(IRM_EVALUE, "irm_module_get_attr: key and out must not be NULL");
  *out = irm_any_none();
  const module_payload *p = irm_module_payload_(mod);
  if (!p) return irm_module_type_error_("irm_module_get_attr", mod);
  const irm_any *v = irm_map_find_cstr(irm_module_attr_map_(p), key);
  if (!v) return IRM_OK;
  if (v->type_code != IRM_OBJECT) {
    *out = *v; /* a scalar: stored values are never a borrowed str */
    return IRM_OK;
  }
  irm_object_retain(v->v_obj);
  *out = *v;
  return IRM_OK;
}

const irm_object *irm_module_attrs(const irm_module *mod) {
  const module_payload *p = irm_module_payload_(mod);
  return p ? p->attrs : NULL;
}

/* The object stored under key when it is of type_key, borrowed. */
static irm_object *typed_attr(const irm_module *mod, const char *key, const char *type_key) {
  const module_payload *p = irm_module_payload_(mod);
  const irm_any *v = p ? irm_map_find_cstr(irm_module_attr_map_(p), key) : NULL;
  return v && v->type_code == IRM_OBJECT && irm_object_is(v->v_obj, type_key) ? v->v_obj : NULL;
}

irm_object *irm_module_target(const irm_module *mod) { return typed_attr(mod, IRM_ATTR_TARGET, "target.Target"); }

irm_object *irm_module_executor(const irm_module *mod) { return typed_attr(mod, IRM_ATTR_EXECUTOR, "ir.Executor"); }

irm_object *irm_module_runtime(const irm_module *mod) { return typed_attr(mod, IRM_ATTR_RUNTIME, "ir.Runtime"); }

irm_object *irm_module_params(const irm_module *mod) { return typed_attr(mod, IRM_ATTR_PARAMS, "ffi.Map"); }

const char *irm_module_mod_name(const irm_module *mod) {
  return irm_string_data(typed_attr(mod, IRM_ATTR_MOD_NAME, "ffi.String"));
}

/* RuntimeError when k is pass-invariant and the module frozen. */
static int check_not_frozen(const module_payload *p, const attr_key *k, const char *verb, const char *key) {
  if (!p->frozen || !k || !k->pass_invariant) return IRM_OK;
  return irm_error(IRM_ERUNTIME,
                   "cannot %s module attribute '%s': the module is frozen (pass-invariant attributes are fixed "
                   "once build starts)",
                   verb, irm_error_quote(key));
}

/* The value to store for key on the module of p: *out NEW. */
static int prepare_set(const module_payload *p, const char *key, const irm_any *value, irm_any *out) {
  *out = irm_any_none();
  if (!key || !value) return irm_error(IRM_EVALUE, "setting a module attribute: key and value must not be NULL");
  int rc;
  const attr_key *k = irm_attr_key_find_(&irm_module_attr_keys_, key, &rc);
  if (!rc) rc = check_not_frozen(p, k, "set", key);
  return rc ? rc : irm_attr_key_check_(&irm_module_attr_keys_, k, key, value, out);
}

/* Whether key may be removed from the module of p. */
static int prepare_remove(const module_payload *p, const char *key) {
  if (!key) return irm_error(IRM_EVALUE, "removing a module attribute: key must not be NULL");
  int rc;
  const attr_key *k = irm_attr_key_find_(&irm_module_attr_keys_, key, &rc);
  if (!rc) rc = check_not_frozen(p, k, "remove", key);
  const irm_object *map = irm_module_attr_map_(p);
  if (!rc && !irm_map_find_cstr(map, key)) rc = irm_module_missing_error_("attribute", map, key);
  return rc;
}

/* A module with attrs (made with status rc, taken) and mod's functions. */
static int with_attrs(const module_payload *p, int rc, irm_object *attrs, irm_module **out) {
  if (rc) return rc;
  irm_object_retain(p->functions);
  return irm_module_make_(p->functions, attrs, p->frozen, out);
}

int irm_module_with_attr(const irm_module *mod, const char *key, const irm_any *value, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_with_attr: out must not be NULL");
  *out = NULL;
  const module_payload *p = irm_module_payload_(mod);
  if (!p) return irm_module_type_error_("irm_module_with_attr", mod);
  irm_any stored;
  int rc = prepare_set(p, key, value, &stored);
  if (rc) return rc;
  irm_object *map = NULL, *attrs = NULL;
  rc = irm_map_with_set(irm_module_attr_map_(p), key, &stored, &map);
  irm_any_release(&stored);
  if (!rc) rc = irm_dict_attrs_wrap_(map, &attrs);
  return with_attrs(p, rc, attrs, out);
}

int irm_module_without_attr(const irm_module *mod, const char *key, irm_module **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_without_attr: out must not be NULL");
  *out = NULL;
  const module_payload *p = irm_module_payload_(mod);
  if (!p) return irm_module_type_error_("irm_module_without_attr", mod);
  int rc = prepare_remove(p, key);
  if (rc) return rc;
  irm_object *map = NULL, *attrs = NULL;
  rc = irm_map_with_erase(irm_module_attr_map_(p), key, &map);
  if (!rc) rc = irm_dict_attrs_wrap_(map, &attrs);
  return with_attrs(p, rc, attrs, out);
}

int irm_module_set_attr_move(irm_module **ref, const char *key, const irm_any *value) {
  int rc;
  module_payload *p = sole_payload(ref, "irm_module_set_attr_move", &rc);
  if (rc) return rc;
  irm_module *next = NULL;
  if (!p) return replace(ref, irm_module_with_attr(*ref, key, value, &next), &next);
  irm_any stored;
  if ((rc = prepare_set(p, key, value, &stored))) return rc;
  rc = irm_dict_attrs_set_move_(&p->attrs, key, &stored);
  irm_any_release(&stored);
  return rc;
}

int irm_module_remove_attr_move(irm_module **ref, const char *key) {
  int rc;
  module_payload *p = sole_payload(ref, "irm_module_remove_attr_move", &rc);
  if (rc) return rc;
  irm_module *next = NULL;
  if (!p) return replace(ref, irm_module_without_attr(*ref, key, &next), &next);
  if ((rc = prepare_remove(p, key))) return rc;
  return irm_dict_attrs_erase_move_(&p->attrs, key);
}

/* ---- the config cache slot (ir_internal.h) ------------------------------------------ */

irm_object *irm_module_config_cache_(const irm_module *mod) {
  const module_payload *p = irm_module_payload_(mod);
  return p ? atomic_load_explicit(&((module_payload *)p)->config_cache, memory_order_acquire) : NULL;
}

irm_object *irm_module_config_cache_fill_(const irm_module *mod, irm_object *value) {
  const module_payload *p = irm_module_payload_(mod);
  if (!p || !value) return NULL;
  _Atomic(irm_object *) *slot = &((module_payload *)p)->config_cache;
  irm_object *expected = NULL;
  irm_object_retain(value);
  if (atomic_compare_exchange_strong_explicit(slot, &expected, value, memory_order_acq_rel, memory_order_acquire))
    return value;
  irm_object_release(value); /* another thread filled it first: theirs stays */
  return expected;
}
