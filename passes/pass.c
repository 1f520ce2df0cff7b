/* Pass objects (pass.h): the transform.Pass types, making module,
 * function and Sequential passes, and reading their PassInfo. Running them
 * is in pass_run.c, pass_body.c and sequential.c, the registry in pass_registry.c, the globals in
 * pass_globals.c. */
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/structural.h"
#include "pass_internal.h"

_Atomic int32_t irm_pass_type_ = -1;
_Atomic int32_t irm_module_pass_type_ = -1;
_Atomic int32_t irm_function_pass_type_ = -1;
_Atomic int32_t irm_sequential_type_ = -1;

static int make_pass(irm_pass_kind_ kind, const char *name, int opt_level, irm_object *required,
                     const irm_object *options, irm_pass_payload_ *body, irm_pass **out);
static int required_from_names(const char *const *names, size_t n, irm_object **out);
static int required_from_array(const irm_object *required, irm_object **out);

/* ---- making passes ------------------------------------------------------------ */

int irm_module_pass_new(const char *name, int opt_level, const char *const *required, size_t n_required,
                        const irm_object *options, irm_module_pass_fn fn, void *resource, void (*finalizer)(void *),
                        irm_pass **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_module_pass_new: out must not be NULL");
  *out = NULL;
  if (!fn)
    return irm_error(IRM_EVALUE, "module pass '%s': the pass function must not be NULL",
                     irm_error_quote(name ? name : ""));
  irm_object *req = NULL;
  int rc = required_from_names(required, n_required, &req);
  if (rc) return rc;
  irm_pass_payload_ body = {0};
  body.module_fn = fn;
  body.resource = resource;
  body.finalizer = finalizer;
  return make_pass(IRM_PASS_MODULE_, name, opt_level, req, options, &body, out);
}

int irm_function_pass_new(const char *name, int opt_level, const char *const *required, size_t n_required,
                          const irm_object *options, irm_function_pass_fn fn, void *resource, void (*finalizer)(void *),
                          irm_pass **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_function_pass_new: out must not be NULL");
  *out = NULL;
  if (!fn)
    return irm_error(IRM_EVALUE, "function pass '%s': the pass function must not be NULL",
                     irm_error_quote(name ? name : ""));
  irm_object *req = NULL;
  int rc = required_from_names(required, n_required, &req);
  if (rc) return rc;
  irm_pass_payload_ body = {0};
  body.function_fn = fn;
  body.resource = resource;
  body.finalizer = finalizer;
  return make_pass(IRM_PASS_FUNCTION_, name, opt_level, req, options, &body, out);
}

static int pass_from_func(irm_pass_kind_ kind, irm_object *func, int opt_level, const char *name,
                          const irm_object *required, irm_pass **out) {
  const char *what = kind == IRM_PASS_MODULE_ ? "module" : "function";
  if (!out) return irm_error(IRM_EVALUE, "irm_%s_pass_from_func: out must not be NULL", what);
  *out = NULL;
  if (!irm_object_is(func, "ffi.Function"))
    return irm_error(IRM_ETYPE, "%s pass '%s': expected an ffi.Function, got %s", what,
                     irm_error_quote(name ? name : ""), func ? irm_object_type_key(func) : "NULL");
  irm_object *req = NULL;
  int rc = required_from_array(required, &req);
  if (rc) return irm_error_context(rc, "%s pass '%s'", what, irm_error_quote(name ? name : ""));
  irm_pass_payload_ body = {0};
  body.func = func;
  return make_pass(kind, name, opt_level, req, NULL, &body, out);
}

int irm_module_pass_from_func(irm_object *func, int opt_level, const char *name, const irm_object *required,
                              irm_pass **out) {
  return pass_from_func(IRM_PASS_MODULE_, func, opt_level, name, required, out);
}

int irm_function_pass_from_func(irm_object *func, int opt_level, const char *name, const irm_object *required,
                                irm_pass **out) {
  return pass_from_func(IRM_PASS_FUNCTION_, func, opt_level, name, required, out);
}

int irm_sequential_new(irm_pass *const *passes, size_t n, int opt_level, const char *name, irm_pass **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_sequential_new: out must not be NULL");
  *out = NULL;
  if (!name) name = "sequential";
  if (n && !passes) return irm_error(IRM_EVALUE, "Sequential '%s': passes must not be NULL", irm_error_quote(name));
  for (size_t i = 0; i < n; i++)
    if (!irm_pass_payload_of_(passes[i]))
      return irm_error(IRM_ETYPE, "Sequential '%s': passes[%zu]: expected a transform.Pass, got %s",
                       irm_error_quote(name), i, passes[i] ? irm_object_type_key(passes[i]) : "NULL");
  irm_object *arr = NULL, *req = NULL;
  int rc = irm_array_new(NULL, 0, &arr);
  for (size_t i = 0; rc == IRM_OK && i < n; i++) {
    irm_any item = irm_any_object(passes[i]);
    rc = irm_array_append_move(&arr, &item);
  }
  if (!rc) rc = required_from_names(NULL, 0, &req);
  if (rc) {
    irm_object_release(arr);
    return rc;
  }
  irm_pass_payload_ body = {0};
  body.passes = arr;
  return make_pass(IRM_PASS_SEQUENTIAL_, name, opt_level, req, NULL, &body, out);
}

/* ---- the common part ------------------------------------------------------------ */

static int32_t type_of_kind(irm_pass_kind_ kind) {
  switch (kind) {
  case IRM_PASS_MODULE_: return atomic_load_explicit(&irm_module_pass_type_, memory_order_acquire);
  case IRM_PASS_FUNCTION_: return atomic_load_explicit(&irm_function_pass_type_, memory_order_acquire);
  default: return atomic_load_explicit(&irm_sequential_type_, memory_order_acquire);
  }
}

static int check_name(const char *name) {
  if (!name || !*name) return irm_error(IRM_EVALUE, "a pass needs a non-empty name");
  for (const char *c = name; *c; c++)
    if ((unsigned char)*c < 0x20)
      return irm_error(IRM_EVALUE, "pass name '%s' contains a control character", irm_error_quote(name));
  return IRM_OK;
}

static int make_info(const irm_object *name, int opt_level, const irm_object *required, irm_object **out) {
  const char *keys[] = {"name", "opt_level", "required"};
  irm_any values[] = {irm_any_object((irm_object *)name), irm_any_int(opt_level),
                      irm_any_object((irm_object *)required)};
  return irm_map_from_pairs(keys, values, 3, out);
}

/* Takes required (NEW) and the references in body (func, passes: func is
 * borrowed and retained here, passes NEW) whatever happens. */
static int make_pass(irm_pass_kind_ kind, const char *name, int opt_level, irm_object *required,
                     const irm_object *options, irm_pass_payload_ *body, irm_pass **out) {
  irm_object *name_str = NULL, *opts = NULL, *info = NULL, *obj = NULL;
  int rc = check_name(name);
  if (!rc && opt_level < 0)
    rc = irm_error(IRM_EVALUE, "pass '%s': opt_level must be >= 0, got %d", irm_error_quote(name), opt_level);
  if (!rc && options && !irm_object_is(options, "ffi.Map"))
    rc = irm_error(IRM_ETYPE, "pass '%s': options: expected an ffi.Map, got %s", irm_error_quote(name),
                   irm_object_type_key(options));
  if (!rc) rc = irm_builtins_ready_();
  if (!rc) rc = irm_string_from_cstr(name, &name_str);
  if (!rc) {
    if (options) {
      opts = (irm_object *)options;
      irm_object_retain(opts);
    } else {
      rc = irm_map_new(&opts);
    }
  }
  if (!rc) rc = make_info(name_str, opt_level, required, &info);
  if (!rc) rc = irm_object_new(type_of_kind(kind), sizeof(irm_pass_payload_), &obj);
  if (rc) {
    irm_object_release(name_str);
    irm_object_release(opts);
    irm_object_release(info);
    irm_object_release(required);
    irm_object_release(body->passes);
    return rc;
  }
  irm_pass_payload_ *p = irm_object_payload(obj);
  *p = *body;
  p->kind = kind;
  p->opt_level = opt_level;
  p->name = name_str;
  p->required = required;
  p->options = opts;
  p->info = info;
  if (p->func) irm_object_retain(p->func);
  *out = obj;
  return IRM_OK;
}

static int required_from_names(const char *const *names, size_t n, irm_object **out) {
  *out = NULL;
  if (n && !names) return irm_error(IRM_EVALUE, "required pass names must not be NULL when n_required > 0");
  irm_object *arr = NULL;
  int rc = irm_array_new(NULL, 0, &arr);
  for (size_t i = 0; rc == IRM_OK && i < n; i++) {
    if (!names[i] || !*names[i]) {
      rc = irm_error(IRM_EVALUE, "required pass %zu has no name", i);
      break;
    }
    irm_any item = irm_any_str(names[i]);
    rc = irm_array_append_move(&arr, &item);
  }
  if (rc) {
    irm_object_release(arr);
    return rc;
  }
  *out = arr;
  return IRM_OK;
}

static int required_from_array(const irm_object *required, irm_object **out) {
  *out = NULL;
  if (!required) return irm_array_new(NULL, 0, out);
  if (!irm_object_is(required, "ffi.Array"))
    return irm_error(IRM_ETYPE, "required: expected an ffi.Array of str, got %s", irm_object_type_key(required));
  for (size_t i = 0; i < irm_array_size(required); i++) {
    const irm_any *item = irm_array_at(required, i);
    if (!(item->type_code == IRM_OBJECT && irm_string_data(item->v_obj)))
      return irm_error(IRM_ETYPE, "required[%zu]: expected str, got %s", i, irm_any_type_name(item));
  }
  irm_object_retain((irm_object *)required);
  *out = (irm_object *)required;
  return IRM_OK;
}

/* ---- reading passes ---------------------------------------------------------------- */

const irm_pass_payload_ *irm_pass_payload_of_(const irm_pass *p) {
  int32_t base = atomic_load_explicit(&irm_pass_type_, memory_order_acquire);
  int32_t t = irm_object_type_index(p);
  if (!p || base < 0 || t == base || !irm_type_is_subtype(t, base)) return NULL;
  return irm_object_payload_const(p);
}

const char *irm_pass_name(const irm_pass *p) {
  const irm_pass_payload_ *pp = irm_pass_payload_of_(p);
  return pp ? irm_string_data(pp->name) : NULL;
}

int irm_pass_opt_level(const irm_pass *p) {
  const irm_pass_payload_ *pp = irm_pass_payload_of_(p);
  return pp ? pp->opt_level : -1;
}

const irm_object *irm_pass_required(const irm_pass *p) {
  const irm_pass_payload_ *pp = irm_pass_payload_of_(p);
  return pp ? pp->required : NULL;
}

const irm_object *irm_pass_options(const irm_pass *p) {
  const irm_pass_payload_ *pp = irm_pass_payload_of_(p);
  return pp ? pp->options : NULL;
}

const irm_object *irm_sequential_passes(const irm_pass *p) {
  const irm_pass_payload_ *pp = irm_pass_payload_of_(p);
  return pp && pp->kind == IRM_PASS_SEQUENTIAL_ ? pp->passes : NULL;
}

int irm_pass_info(const irm_pass *p, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_info: out must not be NULL");
  *out = NULL;
  const irm_pass_payload_ *pp = irm_pass_payload_of_(p);
  if (!pp)
    return irm_error(IRM_ETYPE, "irm_pass_info: expected a transform.Pass, got %s",
                     p ? irm_object_type_key(p) : "NULL");
  /* The Map is never changed once made, so sharing it is a new reference. */
  irm_object_retain(pp->info);
  *out = pp->info;
  return IRM_OK;
}

/* ---- the types ------------------------------------------------------------------- */

static void pass_finalize(irm_object *self) {
  irm_pass_payload_ *p = irm_object_payload(self);
  if (p->finalizer) p->finalizer(p->resource);
  irm_object_release(p->name);
  irm_object_release(p->required);
  irm_object_release(p->options);
  irm_object_release(p->info);
  irm_object_release(p->func);
  irm_object_release(p->passes);
}

/* transform.ModulePass(name="x", opt_level=2, required=["a"]); a
 * Sequential lists its passes by name, so printing never recurses. */
static int pass_repr(const irm_object *self, irm_object **out) {
  const irm_pass_payload_ *p = irm_object_payload_const(self);
  irm_any req = irm_any_object(p->required);
  irm_object *req_text = NULL, *names = NULL, *names_text = NULL;
  int rc = irm_repr(&req, &req_text);
  if (rc) return rc;
  if (p->kind != IRM_PASS_SEQUENTIAL_) {
    rc = irm_string_format(out, "%s(name=\"%s\", opt_level=%d, required=%s)", irm_object_type_key(self),
                           irm_string_data(p->name), p->opt_level, irm_string_data(req_text));
    irm_object_release(req_text);
    return rc;
  }
  rc = irm_array_new(NULL, 0, &names);
  for (size_t i = 0; rc == IRM_OK && i < irm_array_size(p->passes); i++) {
    irm_any item = irm_any_str(irm_pass_name(irm_array_at(p->passes, i)->v_obj));
    rc = irm_array_append_move(&names, &item);
  }
  irm_any names_any = irm_any_object(names);
  if (!rc) rc = irm_repr(&names_any, &names_text);
  if (!rc)
    rc = irm_string_format(out, "%s(name=\"%s\", opt_level=%d, passes=%s)", irm_object_type_key(self),
                           irm_string_data(p->name), p->opt_level, irm_string_data(names_text));
  irm_object_release(req_text);
  irm_object_release(names);
  irm_object_release(names_text);
  return rc;
}

static int register_type(const char *key, const char *parent, _Atomic int32_t *slot) {
  return irm_type_ensure_into_(&(irm_type_info){.struct_size = sizeof(irm_type_info),
                                                .type_key = key,
                                                .parent_key = parent,
                                                .finalize = pass_finalize,
                                                .repr = pass_repr},
                               slot);
}

int irm_register_pass_types_(void) {
  int rc = register_type(IRM_PASS_KEY, NULL, &irm_pass_type_);
  if (!rc) rc = register_type(IRM_MODULE_PASS_KEY, IRM_PASS_KEY, &irm_module_pass_type_);
  if (!rc) rc = register_type(IRM_FUNCTION_PASS_KEY, IRM_PASS_KEY, &irm_function_pass_type_);
  if (!rc) rc = register_type(IRM_SEQUENTIAL_KEY, IRM_PASS_KEY, &irm_sequential_type_);
  return rc;
}
