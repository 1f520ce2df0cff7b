/* The global function registry: name -> Function, behind a reader-writer
 * lock that prefers writers. Functions are released only after the lock is
 * dropped, since a finalizer is user code. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "error_internal.h"
#include "global_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "journal_internal.h"
#include "builtins.h"
#include "object_internal.h"
#include "plugin_defer.h"
#include "uthash_irm.h"

/* One allocation per name: the handle, the function and the name itself. */
typedef struct global_entry {
  UT_hash_handle hh;
  irm_object *func;
  char name[];
} global_entry;

static global_entry *globals;
/* Lookups dominate, but a steady stream of them must not starve a
 * registration: the lock prefers writers. */
static pthread_rwlock_t globals_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

/* Every layer's built-ins are registered on first use; a failure (out of
 * memory) is reported and retried on the next call. */
static inline int globals_ready(void) { return irm_builtins_ready(); }

static global_entry *entry_new(const char *name, irm_object *func) {
  size_t len = strlen(name);
  global_entry *e = irm_malloc(sizeof *e + len + 1);
  if (!e) return NULL;
  memcpy(e->name, name, len + 1);
  e->func = func;
  return e;
}

static global_entry *find_locked(const char *name) {
  global_entry *e = NULL;
  HASH_FIND_STR(globals, name, e);
  return e;
}

/* Adds e; 0 or IRM_ENOMEM (e not added). */
static int add_locked(global_entry *e) {
  int irm_hash_oom = 0;
  HASH_ADD_KEYPTR(hh, globals, e->name, strlen(e->name), e);
  return irm_hash_oom ? IRM_ENOMEM : IRM_OK;
}

/* KeyError for a missing name with the closest registered one. Runs under
 * the read lock so the suggestion cannot be freed while formatting. */
static int missing_name_error(const char *what, const char *name) {
  pthread_rwlock_rdlock(&globals_lock);
  size_t n = HASH_COUNT(globals), i = 0;
  const char **names = irm_malloc((n ? n : 1) * sizeof *names);
  const char *best = NULL;
  if (names) {
    for (global_entry *e = globals; e; e = e->hh.next) names[i++] = e->name;
    best = irm_closest_name(name, names, n);
  }
  int rc = best ? irm_error(IRM_EKEY, "%s '%s' is not registered (did you mean '%s'?)", what, irm_error_quote(name), best)
                : irm_error(IRM_EKEY, "%s '%s' is not registered", what, irm_error_quote(name));
  pthread_rwlock_unlock(&globals_lock);
  irm_free(names);
  return rc;
}

/* ---- journal records --------------------------------------------------- */

enum undo_kind { UNDO_ADDED, UNDO_OVERRIDDEN, UNDO_REMOVED };

typedef struct global_undo {
  enum undo_kind kind;
  global_entry *removed; /* UNDO_REMOVED: the entry, owned here while out */
  irm_object *old_func;  /* UNDO_OVERRIDDEN: the replaced function (owned) */
  irm_object *new_func;  /* what this registration put there (owned ref) */
  char name[];
} global_undo;

/* Reverts one registration if the registry still holds what it put there;
 * a later change by another thread is not ours to undo. */
static void global_undo_run(void *data) {
  global_undo *u = data;
  irm_object *drop = NULL;
  global_entry *drop_entry = NULL;
  pthread_rwlock_wrlock(&globals_lock);
  global_entry *e = find_locked(u->name);
  switch (u->kind) {
    case UNDO_ADDED:
      if (e && e->func == u->new_func) {
        HASH_DELETE(hh, globals, e);
        drop = e->func;
        drop_entry = e;
      }
      break;
    case UNDO_OVERRIDDEN:
      if (e && e->func == u->new_func) {
        drop = e->func;
        e->func = u->old_func;
        u->old_func = NULL;
      }
      break;
    case UNDO_REMOVED:
      if (!e && add_locked(u->removed) == IRM_OK) u->removed = NULL;
      break;
  }
  pthread_rwlock_unlock(&globals_lock);
  irm_object_release(drop);
  irm_free(drop_entry);
}

static void global_undo_dispose(void *data) {
  global_undo *u = data;
  irm_object_release(u->old_func);
  irm_object_release(u->new_func);
  if (u->removed) {
    irm_object_release(u->removed->func);
    irm_free(u->removed);
  }
  irm_free(u);
}

/* Undo data for the open journal, or NULL when nothing records. It also
 * reserves the journal's slot, so recording after the change cannot fail.
 * *nomem is set when a journal is open but memory is short. */
static global_undo *undo_new(enum undo_kind kind, const char *name, int *nomem) {
  *nomem = 0;
  if (!irm_journal_active()) return NULL;
  size_t len = strlen(name);
  global_undo *u = irm_calloc(1, sizeof *u + len + 1);
  if (!u || irm_journal_reserve_(1) != IRM_OK) {
    irm_free(u);
    *nomem = 1;
    return NULL;
  }
  u->kind = kind;
  memcpy(u->name, name, len + 1);
  return u;
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
  pthread_rwlock_rdlock(&globals_lock);
  global_entry *e = find_locked(name);
  irm_object *f = e ? e->func : NULL;
  irm_object_retain(f);
  pthread_rwlock_unlock(&globals_lock);
  *out = f;
  return IRM_OK;
}

static int check_register_args(const char *name, const irm_object *f) {
  if (!name || !name[0])
    return irm_error(IRM_EVALUE, "irm_func_register_global: name must be a non-empty string");
  if (!irm_is_type_(f, IRM_TYPE_FUNCTION))
    return irm_error(IRM_ETYPE, "cannot register global '%s': expected ffi.Function, got %s", irm_error_quote(name),
                     f ? irm_object_type_key(f) : "NULL");
  return IRM_OK;
}

/* Registers without lazy start; used by the public call and the built-ins. */
static int global_register(const char *name, irm_object *f, int override) {
  int rc = check_register_args(name, f);
  if (rc) return rc;
  int nomem;
  global_undo *undo = undo_new(UNDO_ADDED, name, &nomem);
  irm_object *label = NULL;
  global_entry *fresh = entry_new(name, f);
  if (nomem || !fresh || irm_string_from_cstr(name, &label) != IRM_OK) {
    irm_free(undo);
    irm_free(fresh);
    irm_object_release(label);
    return irm_error_nomem_("registering a global function");
  }
  irm_object *replaced = NULL;
  pthread_rwlock_wrlock(&globals_lock);
  global_entry *e = find_locked(name);
  if (e && !override) {
    rc = IRM_EKEY;
  } else if (e) {
    replaced = e->func;
    irm_object_retain(f);
    e->func = f;
  } else {
    irm_object_retain(f);
    rc = add_locked(fresh);
    if (rc) irm_object_release(f); /* count was > 1: no finalizer runs */
    else fresh = NULL;
  }
  pthread_rwlock_unlock(&globals_lock);
  irm_free(fresh);

  if (rc == IRM_EKEY) {
    irm_free(undo);
    irm_object_release(label);
    return irm_error(IRM_EKEY,
                     "global function '%s' is already registered; pass override to replace it",
                     irm_error_quote(name));
  }
  if (rc) {
    irm_free(undo);
    irm_object_release(label);
    return irm_error_nomem_("registering a global function");
  }
  irm_func_set_name_(f, label);
  irm_object_release(label);
  if (undo) {
    undo->kind = replaced ? UNDO_OVERRIDDEN : UNDO_ADDED;
    undo->old_func = replaced;
    undo->new_func = f;
    irm_object_retain(f);
    replaced = NULL;
    /* Cannot fail: undo_new reserved the journal slot. */
    (void)irm_journal_record(global_undo_run, global_undo_dispose, undo);
  }
  irm_object_release(replaced);
  return IRM_OK;
}

int irm_func_register_global(const char *name, irm_object *f, int override) {
  int rc = globals_ready();
  return rc ? rc : global_register(name, f, override);
}

int irm_global_register_builtin_(const char *name, irm_packed_cfunc fn) {
  pthread_rwlock_rdlock(&globals_lock);
  int present = find_locked(name) != NULL; /* from an earlier, partial start */
  pthread_rwlock_unlock(&globals_lock);
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

int irm_register_static_(const char *name, int made, irm_object *f) {
  int rc = made ? made : irm_func_register_global(name, f, 0);
  irm_object_release(f);
  if (rc) irm_warn("static registration of global '%s' failed: %s", irm_error_quote(name),
                   irm_last_error());
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
  int nomem, rc = globals_ready();
  if (rc) return rc;
  global_undo *undo = undo_new(UNDO_REMOVED, name, &nomem);
  if (nomem) return irm_error_nomem_("removing a global function");
  pthread_rwlock_wrlock(&globals_lock);
  global_entry *e = find_locked(name);
  if (e) HASH_DELETE(hh, globals, e);
  pthread_rwlock_unlock(&globals_lock);
  if (!e) {
    irm_free(undo);
    return missing_name_error("global function", name);
  }
  if (undo) {
    undo->removed = e;
    (void)irm_journal_record(global_undo_run, global_undo_dispose, undo);
    return IRM_OK;
  }
  irm_object_release(e->func);
  irm_free(e);
  return IRM_OK;
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
  pthread_rwlock_rdlock(&globals_lock);
  size_t n = HASH_COUNT(globals), i = 0;
  irm_any *names = irm_calloc(n ? n : 1, sizeof *names);
  if (names) {
    for (global_entry *e = globals; e && rc == IRM_OK; e = e->hh.next, i++) {
      irm_object *s = NULL;
      rc = irm_string_from_cstr(e->name, &s);
      names[i] = irm_any_object(s);
    }
  }
  pthread_rwlock_unlock(&globals_lock);
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
