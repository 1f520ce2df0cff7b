/* The pass registry (pass.h): kind category "pass", each registered pass a
 * kind whose options are its option schema and whose "factory" attribute is
 * a Function (options Map -> Pass). A C factory is wrapped in a Function
 * whose resource remembers the C pointers (the factory, and the resource of
 * irm_pass_register_ex), so registering the same C factory twice is
 * recognised. Locking and journaling are the kind registry's; factories
 * run with no lock held. */
#include <string.h>

#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/journal.h"
#include "irm_internal.h"
#include "pass_internal.h"

/* The level the factory attribute is set at (TVM's default plevel). */
enum { FACTORY_PLEVEL = 10 };

/* A C factory: fn (irm_pass_register) or fn_ex with its resource
 * (irm_pass_register_ex); the other one NULL. */
typedef struct c_factory {
  irm_pass_factory_fn fn;
  irm_pass_factory_ex_fn fn_ex;
  void *resource;
} c_factory;

static int register_factory(const char *name, irm_object *factory, const c_factory *c, irm_kind **out);

int irm_register_pass_registry_(void) { return irm_kind_category_register(IRM_PASS_CATEGORY); }

/* ---- registering ---------------------------------------------------------------- */

static int call_c_factory(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  const c_factory *cf = resource;
  irm_object *options = NULL;
  irm_pass *pass = NULL;
  int rc = irm_arg_count("pass factory", nargs, 1, 1);
  if (!rc) rc = irm_arg_object("pass factory", args, 0, "ffi.Map", &options);
  if (!rc) rc = cf->fn ? cf->fn(options, &pass) : cf->fn_ex(options, cf->resource, &pass);
  if (rc) return rc;
  *ret = irm_any_object(pass);
  return IRM_OK;
}

/* Registers name with the C factory c (copied into the Function). */
static int register_c(const char *name, const c_factory *c, irm_kind **kind) {
  if (kind) *kind = NULL;
  if (!c->fn && !c->fn_ex)
    return irm_error(IRM_EVALUE, "pass '%s': the factory must not be NULL", irm_error_quote(name ? name : ""));
  c_factory *cf = irm_malloc(sizeof *cf);
  if (!cf) return irm_error(IRM_ENOMEM, "out of memory registering pass '%s'", irm_error_quote(name ? name : ""));
  *cf = *c;
  irm_object *f = NULL;
  int rc = irm_func_new_packed(call_c_factory, cf, irm_free, &f);
  if (rc) {
    irm_free(cf);
    return rc;
  }
  rc = register_factory(name, f, c, kind);
  irm_object_release(f);
  return rc;
}

int irm_pass_register(const char *name, irm_pass_factory_fn factory, irm_kind **kind) {
  c_factory c = {factory, NULL, NULL};
  return register_c(name, &c, kind);
}

/* The registration and setup in a journal of their own, so that a failing
 * setup takes the registration back with what it added. */
int irm_pass_register_ex(const char *name, irm_pass_factory_ex_fn factory, void *resource, irm_kind_setup_fn setup,
                         irm_kind **kind) {
  if (kind) *kind = NULL;
  c_factory c = {NULL, factory, resource};
  irm_kind *k = NULL;
  irm_journal *j = NULL;
  int rc = irm_journal_open(&j);
  if (rc) return rc;
  rc = register_c(name, &c, &k);
  if (!rc && setup && (rc = setup(k))) rc = irm_error_context(rc, "setting up pass '%s'", irm_error_quote(name));
  if (!rc && !(rc = irm_journal_commit(j))) {
    if (kind) *kind = k;
    return IRM_OK;
  }
  (void)irm_journal_rollback(j); /* undo sets no errors */
  return rc;
}

int irm_pass_register_func(const char *name, irm_object *factory, irm_kind **kind) {
  if (kind) *kind = NULL;
  if (!irm_object_is(factory, "ffi.Function"))
    return irm_error(IRM_ETYPE, "pass '%s': the factory must be an ffi.Function, got %s",
                     irm_error_quote(name ? name : ""), factory ? irm_object_type_key(factory) : "NULL");
  return register_factory(name, factory, NULL, kind);
}

/* Whether the registered factory is the one being registered again: the
 * same Function, or a wrapper of the same C factory (and resource). */
static int same_factory(const irm_object *old, const irm_object *factory, const c_factory *c) {
  if (old == factory) return 1;
  irm_packed_cfunc fn = NULL;
  void *resource = NULL;
  if (!c || !irm_func_packed_parts_(old, &fn, &resource) || fn != call_c_factory) return 0;
  const c_factory *was = resource;
  return was->fn == c->fn && was->fn_ex == c->fn_ex && was->resource == c->resource;
}

static int check_existing(irm_kind *k, const irm_object *factory, const c_factory *c, int *present) {
  irm_any old = irm_any_none();
  int rc = irm_kind_get_attr(k, IRM_PASS_FACTORY_ATTR, &old);
  if (rc == IRM_EATTR) { /* no pass has a factory yet */
    irm_clear_error();
    *present = 0;
    return IRM_OK;
  }
  if (rc) return rc;
  *present = old.type_code != IRM_NONE;
  if (*present && !(old.type_code == IRM_OBJECT && same_factory(old.v_obj, factory, c)))
    rc = irm_error(IRM_EKEY, "pass '%s' is already registered with another factory", irm_kind_name(k));
  irm_any_release(&old);
  return rc;
}

static int register_factory(const char *name, irm_object *factory, const c_factory *c, irm_kind **out) {
  if (!name || !*name) return irm_error(IRM_EVALUE, "a registered pass needs a non-empty name");
  irm_kind *k = NULL;
  int rc = irm_kind_register(IRM_PASS_CATEGORY, name, &k), present = 0;
  if (!rc) rc = check_existing(k, factory, c, &present);
  if (!rc && !present) {
    irm_any value = irm_any_object(factory);
    rc = irm_kind_set_attr(k, IRM_PASS_FACTORY_ATTR, &value, FACTORY_PLEVEL);
    if (rc == IRM_EKEY) { /* another thread set it first: compare with theirs */
      irm_clear_error();
      rc = check_existing(k, factory, c, &present);
    }
  }
  if (!rc && out) *out = k;
  return rc;
}

/* Replays a pass registration a plugin's constructor queued (plugin_defer.h). */
static int replay_pass(const char *name, void (*fn)(void), irm_kind_setup_fn setup) {
  irm_kind *k = NULL;
  int rc = irm_pass_register(name, (irm_pass_factory_fn)fn, &k);
  if (!rc && setup) rc = setup(k);
  return rc ? irm_error_context(rc, "registering pass '%s'", irm_error_quote(name)) : IRM_OK;
}

int irm_register_static_pass(const char *name, irm_pass_factory_fn factory, irm_kind_setup_fn setup) {
  int deferred_rc; /* a plugin being opened queues it for its init */
  if (irm_plugin_defer_call_(replay_pass, name, (void (*)(void))factory, setup, &deferred_rc)) return deferred_rc;
  irm_kind *k = NULL;
  int rc = irm_pass_register(name, factory, &k);
  if (!rc && setup) rc = setup(k);
  if (rc) irm_warn("static registration of pass '%s' failed: %s", irm_error_quote(name), irm_last_error());
  return rc;
}

/* ---- making and listing ---------------------------------------------------------- */

static int call_factory(const irm_kind *k, const irm_object *options, irm_pass **out) {
  irm_any factory = irm_any_none(), ret = irm_any_none();
  int rc = irm_kind_get_attr(k, IRM_PASS_FACTORY_ATTR, &factory);
  if (rc == IRM_EATTR || (!rc && factory.type_code != IRM_OBJECT)) {
    irm_clear_error();
    irm_any_release(&factory);
    return irm_error(IRM_ERUNTIME, "pass '%s' is registered without a factory", irm_kind_name(k));
  }
  if (rc) return rc;
  irm_any arg = irm_any_object((irm_object *)options);
  rc = irm_func_call(factory.v_obj, &arg, 1, &ret);
  irm_any_release(&factory);
  if (rc) return rc;
  if (ret.type_code != IRM_OBJECT || !irm_pass_payload_of_(ret.v_obj)) {
    rc = irm_error(IRM_ETYPE, "the factory of pass '%s' returned %s, expected a transform.Pass", irm_kind_name(k),
                   irm_any_type_name(&ret));
    irm_any_release(&ret);
    return rc;
  }
  *out = ret.v_obj;
  return IRM_OK;
}

int irm_pass_get(const char *name, const irm_object *options, irm_pass **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_get: out must not be NULL");
  *out = NULL;
  if (!name) return irm_error(IRM_EVALUE, "irm_pass_get: name must not be NULL");
  if (options && !irm_object_is(options, "ffi.Map"))
    return irm_error(IRM_ETYPE, "options of pass '%s': expected an ffi.Map, got %s", irm_error_quote(name),
                     irm_object_type_key(options));
  irm_kind *k = NULL;
  irm_object *validated = NULL;
  int rc = irm_kind_find(IRM_PASS_CATEGORY, name, &k);
  if (rc) return rc;
  if ((rc = irm_kind_validate(k, options, NULL, 0, &validated))) return rc;
  rc = call_factory(k, validated, out);
  irm_object_release(validated);
  return rc ? irm_error_context(rc, "making pass '%s'", irm_error_quote(name)) : IRM_OK;
}

int irm_pass_list(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_list: out must not be NULL");
  *out = NULL;
  return irm_kind_list(IRM_PASS_CATEGORY, out);
}
