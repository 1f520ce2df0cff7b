/* The registries of module and function attribute keys (module.h): each
 * key has a value type (an option type of kind.h or an object type key)
 * and, for module keys, a pass-invariant flag. A hash table for lookups,
 * an array for registration order and, for module keys, an array of the
 * pass-invariant ones, so irm_module_check_invariants costs their number.
 * One reader-writer lock (preferring writers) per registry; no user code
 * runs under it. Registrations are journaled; entries are never freed, so
 * key names handed out stay valid for the process. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "module_internal.h"

typedef struct key_entry {
  attr_key key; /* first: an entry is handed out as its attr_key */
  UT_hash_handle hh;
  attr_key_registry *registry;
  struct key_entry *next_detached;
  char *type_name;
  char name[];
} key_entry;

struct attr_key_registry {
  const char *what; /* "module attribute" */
  pthread_rwlock_t lock;
  key_entry *table;
  key_entry **order; /* registration order */
  size_t n_order, cap_order;
  key_entry **invariant; /* the pass-invariant ones, in order */
  size_t n_invariant, cap_invariant;
  key_entry *detached; /* rolled back: kept, since names were handed out */
};

attr_key_registry irm_module_attr_keys_ = {"module attribute", PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP,
                                           NULL, NULL, 0, 0, NULL, 0, 0, NULL};
attr_key_registry irm_func_attr_keys_ = {"function attribute", PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP,
                                         NULL, NULL, 0, 0, NULL, 0, 0, NULL};

const char *irm_attr_key_what_(const attr_key_registry *r) { return r->what; }

/* ---- lookups -------------------------------------------------------------------- */

static key_entry *find_locked(const attr_key_registry *r, const char *key) {
  key_entry *e = NULL;
  HASH_FIND_STR(r->table, key, e);
  return e;
}

const attr_key *irm_attr_key_find_(attr_key_registry *r, const char *key, int *rc) {
  if ((*rc = irm_builtins_ready())) return NULL;
  pthread_rwlock_rdlock(&r->lock);
  key_entry *e = find_locked(r, key);
  pthread_rwlock_unlock(&r->lock);
  return e ? &e->key : NULL;
}

size_t irm_module_attr_invariant_keys_(const char **buf, size_t cap) {
  attr_key_registry *r = &irm_module_attr_keys_;
  if (irm_builtins_ready()) return 0; /* no keys without the built-ins */
  pthread_rwlock_rdlock(&r->lock);
  size_t n = r->n_invariant;
  for (size_t i = 0; i < n && i < cap; i++) buf[i] = r->invariant[i]->name;
  pthread_rwlock_unlock(&r->lock);
  return n;
}

/* ---- checking values -------------------------------------------------------------- */

/* An object type also takes a borrowed str when a String would do. */
static int object_value_ok(const char *type_name, const irm_any *v) {
  if (v->type_code == IRM_OBJECT) return irm_object_is(v->v_obj, type_name);
  return v->type_code == IRM_STR && v->v_str &&
         (strcmp(type_name, "ffi.String") == 0 || strcmp(type_name, "ffi.Object") == 0);
}

int irm_attr_key_check_(const attr_key_registry *r, const attr_key *k, const char *key, const irm_any *value,
                        irm_any *out) {
  *out = irm_any_none();
  if (!k) return irm_any_copy(value, out);
  if (k->is_option) {
    int rc = irm_option_check_value(k->option, value, out);
    return rc ? irm_error_context(rc, "%s '%s'", r->what, irm_error_quote(key)) : IRM_OK;
  }
  if (!object_value_ok(k->type_name, value))
    return irm_error(IRM_ETYPE, "%s '%s': expected %s, got %s", r->what, irm_error_quote(key), k->type_name,
                     irm_any_type_name(value));
  return irm_any_copy(value, out);
}

/* ---- registering ------------------------------------------------------------------ */

static int resolve_type(const attr_key_registry *r, const char *key, const char *type, attr_key *out);
static int define(attr_key_registry *r, key_entry *fresh, key_entry **existing);
static void key_undo(void *data);

/* "ir.Executor, pass-invariant" for messages about module keys. */
static void describe(const attr_key_registry *r, const char *type, int pass_invariant, char *buf, size_t size) {
  if (r == &irm_module_attr_keys_)
    snprintf(buf, size, "%s, %s", type, pass_invariant ? "pass-invariant" : "not pass-invariant");
  else
    snprintf(buf, size, "%s", type);
}

static int key_register(attr_key_registry *r, const char *key, const char *type, int pass_invariant) {
  if (!key || !key[0]) return irm_error(IRM_EVALUE, "a %s key must be a non-empty string", r->what);
  if (!type) return irm_error(IRM_EVALUE, "%s key '%s': the value type must not be NULL", r->what, irm_error_quote(key));
  int rc = irm_builtins_ready();
  attr_key def = {0};
  if (!rc) rc = resolve_type(r, key, type, &def);
  if (!rc) rc = irm_journal_reserve_(1); /* so that recording cannot fail after the change */
  if (rc) return rc;
  size_t len = strlen(key);
  key_entry *fresh = irm_calloc(1, sizeof *fresh + len + 1);
  char *type_copy = fresh ? irm_strdup(def.type_name) : NULL;
  if (!type_copy) {
    irm_free(fresh);
    return irm_error_nomem_("registering an attribute key");
  }
  memcpy(fresh->name, key, len + 1);
  fresh->registry = r;
  fresh->type_name = type_copy;
  fresh->key = def;
  fresh->key.name = fresh->name;
  fresh->key.type_name = type_copy;
  fresh->key.pass_invariant = pass_invariant != 0;
  key_entry *existing = NULL;
  rc = define(r, fresh, &existing);
  if (rc == IRM_OK && !existing) {
    (void)irm_journal_record(key_undo, NULL, fresh); /* room reserved above */
    return IRM_OK;
  }
  irm_free(type_copy);
  irm_free(fresh);
  if (rc) return irm_error_nomem_("registering an attribute key");
  /* An existing entry never changes or goes away: reading it unlocked is safe. */
  if (strcmp(existing->type_name, def.type_name) == 0 &&
      existing->key.pass_invariant == (pass_invariant != 0))
    return IRM_OK;
  char was[256], now[256];
  describe(r, existing->type_name, existing->key.pass_invariant, was, sizeof was);
  describe(r, def.type_name, pass_invariant != 0, now, sizeof now);
  return irm_error(IRM_EKEY, "%s key '%s' is already registered as (%s); cannot register it as (%s)", r->what,
                   irm_error_quote(key), was, now);
}

/* An option type name of kind.h, or a registered object type key (which
 * has a dot). ValueError with the closest name otherwise. def->type_name
 * points into static or registry storage. */
static int resolve_type(const attr_key_registry *r, const char *key, const char *type, attr_key *def) {
  irm_option_type option;
  if (!strchr(type, '.')) {
    int rc = irm_option_type_parse(type, &option);
    if (rc) return irm_error_context(rc, "value type of %s key '%s'", r->what, irm_error_quote(key));
    def->is_option = 1;
    def->option = option;
    def->type_name = irm_option_type_name(option);
    return IRM_OK;
  }
  int32_t index = -1;
  int rc = irm_type_find(type, &index);
  if (rc == IRM_EKEY) {
    /* The type registry's KeyError, with its closest key, as a ValueError. */
    const char *msg = irm_last_error();
    const char *text = strncmp(msg, "KeyError: ", 10) == 0 ? msg + 10 : msg;
    char *copy = irm_strdup(text);
    if (!copy) return irm_error_nomem_("reporting an unknown value type");
    rc = irm_error(IRM_EVALUE, "value type of %s key '%s': %s; give an option type (bool, int, float, str, "
                   "array<str>, array<int>, map, target) or a registered object type key",
                   r->what, irm_error_quote(key), copy);
    irm_free(copy);
    return rc;
  }
  if (rc) return rc;
  def->is_option = 0;
  def->type_name = irm_type_key(index); /* static for the process */
  return IRM_OK;
}

static int grow(key_entry ***items, size_t n, size_t *cap) {
  if (n < *cap) return IRM_OK;
  size_t c = *cap ? *cap * 2 : 16;
  key_entry **grown = irm_realloc(*items, c * sizeof *grown);
  if (!grown) return IRM_ENOMEM;
  *items = grown;
  *cap = c;
  return IRM_OK;
}

/* Publishes fresh unless the key exists (*existing then). IRM_ENOMEM
 * leaves the registry as it was. */
static int define(attr_key_registry *r, key_entry *fresh, key_entry **existing) {
  int irm_hash_oom = 0, rc = IRM_OK;
  pthread_rwlock_wrlock(&r->lock);
  *existing = find_locked(r, fresh->name);
  if (!*existing) {
    rc = grow(&r->order, r->n_order, &r->cap_order);
    if (!rc && fresh->key.pass_invariant) rc = grow(&r->invariant, r->n_invariant, &r->cap_invariant);
    if (!rc) {
      HASH_ADD_KEYPTR(hh, r->table, fresh->name, strlen(fresh->name), fresh);
      if (irm_hash_oom) rc = IRM_ENOMEM;
    }
    if (!rc) {
      r->order[r->n_order++] = fresh;
      if (fresh->key.pass_invariant) r->invariant[r->n_invariant++] = fresh;
    }
  }
  pthread_rwlock_unlock(&r->lock);
  return rc;
}

static void remove_from(key_entry **items, size_t *n, const key_entry *e) {
  for (size_t i = 0; i < *n; i++)
    if (items[i] == e) {
      memmove(&items[i], &items[i + 1], (*n - i - 1) * sizeof *items);
      (*n)--;
      return;
    }
}

/* A rollback takes the key out of the tables; the entry stays allocated. */
static void key_undo(void *data) {
  key_entry *e = data;
  attr_key_registry *r = e->registry;
  pthread_rwlock_wrlock(&r->lock);
  HASH_DEL(r->table, e);
  remove_from(r->order, &r->n_order, e);
  remove_from(r->invariant, &r->n_invariant, e);
  e->next_detached = r->detached;
  r->detached = e;
  pthread_rwlock_unlock(&r->lock);
}

int irm_module_attr_register(const char *key, const char *value_type, int pass_invariant) {
  return key_register(&irm_module_attr_keys_, key, value_type, pass_invariant);
}

int irm_func_attr_register(const char *key, const char *value_type) {
  return key_register(&irm_func_attr_keys_, key, value_type, 0);
}

/* ---- listing ---------------------------------------------------------------------- */

static int key_list(attr_key_registry *r, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "listing %s keys: out must not be NULL", r->what);
  *out = NULL;
  int rc = irm_builtins_ready();
  if (rc) return rc;
  /* The entries' strings live forever: copy the pointers, build unlocked. */
  pthread_rwlock_rdlock(&r->lock);
  size_t n = r->n_order;
  const char **keys = irm_malloc((n ? n : 1) * sizeof *keys);
  irm_any *types = irm_malloc((n ? n : 1) * sizeof *types);
  for (size_t i = 0; keys && types && i < n; i++) {
    keys[i] = r->order[i]->name;
    types[i] = irm_any_str(r->order[i]->type_name);
  }
  pthread_rwlock_unlock(&r->lock);
  rc = keys && types ? irm_map_from_pairs(keys, types, n, out) : irm_error_nomem_("listing attribute keys");
  irm_free(keys);
  irm_free(types);
  return rc;
}

int irm_module_attr_list(irm_object **out) { return key_list(&irm_module_attr_keys_, out); }
int irm_func_attr_list(irm_object **out) { return key_list(&irm_func_attr_keys_, out); }

/* ---- built-in keys -------------------------------------------------------------- */

int irm_register_attr_keys_builtins_(void) {
  static const struct {
    const char *key, *type;
    int pass_invariant;
  } module_keys[] = {
      {IRM_ATTR_TARGET, "target", 1},
      {IRM_ATTR_EXECUTOR, "ir.Executor", 1},
      {IRM_ATTR_RUNTIME, "ir.Runtime", 1},
      {IRM_ATTR_MOD_NAME, "str", 1},
      {IRM_ATTR_PARAMS, "map", 0},
  };
  static const struct {
    const char *key, *type;
  } func_keys[] = {
      {IRM_FUNC_ATTR_GLOBAL_SYMBOL, "str"}, {IRM_FUNC_ATTR_TARGET, "target"},
      {IRM_FUNC_ATTR_CALLING_CONV, "int"},  {IRM_FUNC_ATTR_PRIMITIVE, "bool"},
      {IRM_FUNC_ATTR_COMPILER, "str"},      {IRM_FUNC_ATTR_SKIP_OPTIMIZATION, "bool"},
  };
  /* Registering a key again with the same definition succeeds, so a retry
   * after a partial failure skips what exists. */
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < sizeof module_keys / sizeof module_keys[0]; i++)
    rc = irm_module_attr_register(module_keys[i].key, module_keys[i].type, module_keys[i].pass_invariant);
  for (size_t i = 0; rc == IRM_OK && i < sizeof func_keys / sizeof func_keys[0]; i++)
    rc = irm_func_attr_register(func_keys[i].key, func_keys[i].type);
  return rc;
}
