/* The global function registry: name -> Function in a name table, which
 * releases functions only after dropping its lock (a finalizer is user
 * code) and journals every change. */
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "global_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "builtins.h"
#include "name_table.h"
#include "object_internal.h"
#include "plugin_defer.h"

static void retain_object(void *f) { irm_object_retain(f); }
static void release_object(void *f) { irm_object_release(f); }
static const irm_name_hooks function_hooks = {retain_object, release_object, NULL};

/* name -> Function; lookups dominate, but the table's lock prefers
 * writers, so a steady stream of them cannot starve a registration. */
static irm_name_table globals = IRM_NAME_TABLE_INIT(&function_hooks);


/* Every layer's built-ins are registered on first use; a failure (out of
 * memory) is reported and retried on the next call. */
static inline int globals_ready(void) { return irm_builtins_ready_(); }

/* KeyError for a missing name with the closest registered one. */
static int missing_name_error(const char *what, const char *name) {
  char *best = NULL;
  if (irm_name_table_closest_(&globals, name, &best)) return irm_error_nomem_("reporting a missing name");
  int rc =
      best ? irm_error(IRM_EKEY, "%s '%s' is not registered (did you mean '%s'?)", what, irm_error_quote(name), best)
           : irm_error(IRM_EKEY, "%s '%s' is not registered", what, irm_error_quote(name));
  irm_free(best);
  return rc;
}

/* ---- public API -------------------------------------------------------- */

int irm_func_get_global(const char *name, irm_object **out) {
  if (!name || !out) {
    if (out) *out = NULL;
    return irm_error(IRM_EVALUE, "irm_func_get_global: name and out must not be NULL");
  }
  int rc = globals_ready();
  if (rc) {
    *out = NULL;
    return rc;
  }
  *out = irm_name_table_get_(&globals, name);
  return IRM_OK;
}

static int check_register_args(const char *name, const irm_object *f) {
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "irm_func_register_global: name must be a non-empty string");
  int rc = irm_utf8_check_("the global function name", name);
  if (rc) return rc;
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION))
    return irm_error(IRM_ETYPE, "cannot register global '%s': expected ffi.Function, got %s", irm_error_quote(name),
                     f ? irm_object_type_key(f) : "NULL");
  return IRM_OK;
}

/* Registers without lazy start; used by the public call and the built-ins. */
static int global_register(const char *name, irm_object *f, int override) {
  int rc = check_register_args(name, f);
  if (rc) return rc;
  irm_object *label = NULL;
  if (irm_string_from_cstr(name, &label) != IRM_OK) return irm_error_nomem_("registering a global function");
  irm_name_existing was;
  rc = irm_name_table_add_(&globals, name, f, override ? IRM_NAME_OVERRIDE : IRM_NAME_UNIQUE, &was, NULL);
  irm_object_release(was.value);
  if (rc) {
    irm_object_release(label);
    if (rc != IRM_EKEY) return irm_error_nomem_("registering a global function");
    char by[256];
    return irm_error(IRM_EKEY, "global function '%s' is already registered%s; pass override to replace it",
                     irm_error_quote(name), irm_name_by_plugin_(was.plugin, by, sizeof by));
  }
  irm_func_set_name_(f, label);
  irm_object_release(label);
  return IRM_OK;
}

int irm_func_register_global(const char *name, irm_object *f, int override) {
  int rc = globals_ready();
  return rc ? rc : global_register(name, f, override);
}

int irm_global_register_builtin_(const char *name, irm_packed_cfunc fn) {
  irm_object *present = irm_name_table_get_(&globals, name); /* from an earlier, partial start */
  irm_object_release(present);
  if (present) return IRM_OK;
  irm_object *f = NULL;
  int rc = irm_func_new_packed(fn, NULL, NULL, &f);
  if (rc == IRM_OK) rc = global_register(name, f, 0);
  irm_object_release(f);
  return rc;
}

int irm_global_register_builtins_(const irm_builtin_global *table, size_t n) {
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < n; i++) rc = irm_global_register_builtin_(table[i].name, table[i].fn);
  return rc;
}

int irm_global_register_former_names_(const irm_builtin_global *table, size_t n, const char *const (*renamed)[2],
                                      size_t m) {
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < m; i++) {
    size_t k = 0;
    while (k < n && strcmp(table[k].name, renamed[i][1]) != 0) k++;
    rc = k < n ? irm_global_register_builtin_(renamed[i][0], table[k].fn)
               : irm_error(IRM_EVALUE, "former name '%s': no built-in global '%s' in its table", renamed[i][0],
                           renamed[i][1]);
  }
  return rc;
}

int irm_register_static_(const char *name, int made, irm_object *f) {
  int rc = made ? made : irm_func_register_global(name, f, 0);
  irm_object_release(f);
  if (rc) irm_warn("static registration of global '%s' failed: %s", irm_error_quote(name), irm_last_error());
  return rc;
}

int irm_register_static_packed(const char *name, irm_packed_cfunc fn) {
  int deferred_rc;
  if (irm_plugin_defer_packed_(name, fn, &deferred_rc)) return deferred_rc; /* a plugin's: in its init */
  irm_object *f = NULL;
  int made = irm_func_new_packed(fn, NULL, NULL, &f); /* before f is read */
  return irm_register_static_(name, made, f);
}

int irm_func_remove_global(const char *name) {
  if (!name) return irm_error(IRM_EVALUE, "irm_func_remove_global: name must not be NULL");
  int rc = globals_ready();
  if (!rc) rc = irm_name_table_remove_(&globals, name);
  if (rc == IRM_EKEY) return missing_name_error("global function", name);
  return rc == IRM_ENOMEM ? irm_error_nomem_("removing a global function") : rc;
}

static int compare_names(const void *a, const void *b) {
  const irm_any *x = a, *y = b;
  return strcmp(irm_string_data(x->v_obj), irm_string_data(y->v_obj));
}

int irm_func_list_globals(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_func_list_globals: out must not be NULL");
  *out = NULL;
  int rc = globals_ready();
  if (rc) return rc;
  irm_name_snapshot snap;
  if (irm_name_table_snapshot_(&globals, &snap)) return irm_error_nomem_("listing global functions");
  size_t n = snap.n;
  irm_any *names = irm_calloc(n ? n : 1, sizeof *names);
  for (size_t i = 0; names && rc == IRM_OK && i < n; i++) {
    irm_object *s = NULL;
    rc = irm_string_from_cstr(snap.names[i], &s);
    names[i] = irm_any_object(s);
  }
  irm_name_snapshot_free_(&globals, &snap);
  if (!names) return irm_error_nomem_("listing global functions");
  if (rc == IRM_OK) {
    qsort(names, n, sizeof *names, compare_names);
    rc = irm_array_new(names, n, out);
  }
  for (size_t k = 0; k < n; k++) irm_any_release(&names[k]);
  irm_free(names);
  return rc;
}

int irm_func_call_global(const char *name, const irm_any *args, int32_t nargs, irm_any *ret) {
  irm_object *f = NULL;
  int rc = irm_func_get_global(name, &f);
  if (rc) return rc;
  if (!f) {
    if (ret) *ret = irm_any_none();
    return missing_name_error("global function", name);
  }
  rc = irm_func_call(f, args, nargs, ret);
  irm_object_release(f);
  return rc;
}
