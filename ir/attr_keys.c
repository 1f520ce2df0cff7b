/* The registries of module and function attribute keys (module.h): each
 * key has a value type (an option type of kind.h or an object type key)
 * and, for module keys, a pass-invariant flag. Each registry is a kept
 * name table (registry/internal/name_table.h): ordered, journaled, locked, and its
 * entries are never freed, so key names handed out stay valid for the
 * process. */
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
  char *type_name;
  char name[]; /* its own copy: readable the moment it is published */
} key_entry;

struct attr_key_registry {
  const char *what; /* "module attribute" */
  irm_name_table table;
};

static const irm_name_hooks kept = {NULL, NULL, NULL};
attr_key_registry irm_module_attr_keys_ = {"module attribute", IRM_NAME_TABLE_INIT(&kept)};
attr_key_registry irm_base_func_attr_keys_ = {"function attribute", IRM_NAME_TABLE_INIT(&kept)};

const char *irm_attr_key_what_(const attr_key_registry *r) { return r->what; }

/* ---- lookups -------------------------------------------------------------------- */

const attr_key *irm_attr_key_find_(attr_key_registry *r, const char *key, int *rc) {
  if ((*rc = irm_builtins_ready_())) return NULL;
  key_entry *e = irm_name_table_get_(&r->table, key);
  return e ? &e->key : NULL;
}

typedef struct invariant_names {
  const char **buf;
  size_t cap, n;
} invariant_names;

static int collect_invariant(const irm_name_entry *e, void *ctx) {
  invariant_names *c = ctx;
  const key_entry *k = e->value;
  if (k->key.pass_invariant && c->n++ < c->cap) c->buf[c->n - 1] = k->name;
  return 0;
}

size_t irm_module_attr_invariant_keys_(const char **buf, size_t cap) {
  if (irm_builtins_ready_()) return 0; /* no keys without the built-ins */
  invariant_names c = {buf, cap, 0};
  (void)irm_name_table_visit_(&irm_module_attr_keys_.table, collect_invariant, &c);
  return c.n;
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
    if (rc == IRM_ETYPE && k->has_alt) {
      rc = irm_option_check_value(k->alt, value, out);
      if (rc == IRM_ETYPE)
        return irm_error(IRM_ETYPE, "%s '%s': expected %s or %s, got %s", r->what, irm_error_quote(key),
                         irm_option_type_name(k->option), irm_option_type_name(k->alt), irm_any_describe_(value));
    }
    return rc ? irm_error_context(rc, "%s '%s'", r->what, irm_error_quote(key)) : IRM_OK;
  }
  if (!object_value_ok(k->type_name, value))
    return irm_error(IRM_ETYPE, "%s '%s': expected %s, got %s", r->what, irm_error_quote(key), k->type_name,
                     irm_any_describe_(value));
  return irm_any_copy(value, out);
}

/* ---- registering ------------------------------------------------------------------ */

static int resolve_type(const attr_key_registry *r, const char *key, const char *type, attr_key *out);
static int resolve_union(const attr_key_registry *r, const char *key, const char *type, attr_key *def, char *buf,
                         size_t size);

/* "ir.Executor, pass-invariant" for messages about module keys. */
static void describe(const attr_key_registry *r, const char *type, int pass_invariant, char *buf, size_t size) {
  if (r == &irm_module_attr_keys_)
    snprintf(buf, size, "%s, %s", type, pass_invariant ? "pass-invariant" : "not pass-invariant");
  else snprintf(buf, size, "%s", type);
}

static int key_register(attr_key_registry *r, const char *key, const char *type, int pass_invariant) {
  if (!key || !key[0]) return irm_error(IRM_EVALUE, "a %s key must be a non-empty string", r->what);
  if (!type)
    return irm_error(IRM_EVALUE, "%s key '%s': the value type must not be NULL", r->what, irm_error_quote(key));
  int rc = irm_builtins_ready_();
  attr_key def = {0};
  char union_name[64];
  if (!rc)
    rc = strchr(type, '|') ? resolve_union(r, key, type, &def, union_name, sizeof union_name)
                           : resolve_type(r, key, type, &def);
  if (rc) return rc;
  size_t len = strlen(key);
  key_entry *fresh = irm_calloc(1, sizeof *fresh + len + 1);
  char *type_copy = fresh ? irm_strdup(def.type_name) : NULL;
  if (!type_copy) {
    irm_free(fresh);
    return irm_error_nomem_("registering an attribute key");
  }
  memcpy(fresh->name, key, len + 1);
  fresh->type_name = type_copy;
  fresh->key = def;
  fresh->key.name = fresh->name;
  fresh->key.type_name = type_copy;
  fresh->key.pass_invariant = pass_invariant != 0;
  irm_name_existing was;
  rc = irm_name_table_add_(&r->table, key, fresh, IRM_NAME_EXISTING, &was, NULL);
  if (rc == IRM_OK && !was.value) return IRM_OK;
  irm_free(type_copy);
  irm_free(fresh);
  if (rc) return irm_error_nomem_("registering an attribute key");
  /* An existing entry never changes or goes away: reading it unlocked is safe. */
  const key_entry *existing = was.value;
  if (strcmp(existing->type_name, def.type_name) == 0 && existing->key.pass_invariant == (pass_invariant != 0))
    return IRM_OK;
  char was_text[256], now[256], by[256];
  describe(r, existing->type_name, existing->key.pass_invariant, was_text, sizeof was_text);
  describe(r, def.type_name, pass_invariant != 0, now, sizeof now);
  return irm_error(IRM_EKEY, "%s key '%s' is already registered%s as (%s); cannot register it as (%s)", r->what,
                   irm_error_quote(key), irm_name_by_plugin_(was.plugin, by, sizeof by), was_text, now);
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
    rc = irm_error(IRM_EVALUE,
                   "value type of %s key '%s': %s; give an option type (bool, int, float, str, "
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

/* "A|B": either of two option types (the `target` key takes one Target or
 * an Array of them). def->type_name is written into buf. */
static int resolve_union(const attr_key_registry *r, const char *key, const char *type, attr_key *def, char *buf,
                         size_t size) {
  const char *bar = strchr(type, '|');
  size_t n = (size_t)(bar - type);
  if (n == 0 || n >= size || strchr(bar + 1, '|'))
    return irm_error(IRM_EVALUE, "value type of %s key '%s': a union is two option types joined by '|', got '%s'",
                     r->what, irm_error_quote(key), irm_error_quote(type));
  memcpy(buf, type, n);
  buf[n] = '\0';
  irm_option_type a, b;
  int rc = irm_option_type_parse(buf, &a);
  if (!rc) rc = irm_option_type_parse(bar + 1, &b);
  if (rc) return irm_error_context(rc, "value type of %s key '%s'", r->what, irm_error_quote(key));
  snprintf(buf, size, "%s|%s", irm_option_type_name(a), irm_option_type_name(b));
  def->is_option = 1;
  def->option = a;
  def->has_alt = 1;
  def->alt = b;
  def->type_name = buf;
  return IRM_OK;
}

int irm_module_attr_register(const char *key, const char *value_type, int pass_invariant) {
  return key_register(&irm_module_attr_keys_, key, value_type, pass_invariant);
}

int irm_base_func_attr_register(const char *key, const char *value_type) {
  return key_register(&irm_base_func_attr_keys_, key, value_type, 0);
}

/* ---- listing ---------------------------------------------------------------------- */

static int key_list(attr_key_registry *r, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "listing %s keys: out must not be NULL", r->what);
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  /* The entries' strings live forever: the snapshot's values point at them. */
  irm_name_snapshot snap;
  if (irm_name_table_snapshot_(&r->table, &snap)) return irm_error_nomem_("listing attribute keys");
  size_t n = snap.n;
  irm_any *types = irm_malloc((n ? n : 1) * sizeof *types);
  for (size_t i = 0; types && i < n; i++) types[i] = irm_any_str(((const key_entry *)snap.values[i])->type_name);
  rc = types ? irm_map_from_pairs(snap.names, types, n, out) : irm_error_nomem_("listing attribute keys");
  irm_name_snapshot_free_(&r->table, &snap);
  irm_free(types);
  return rc;
}

int irm_module_attr_list(irm_object **out) { return key_list(&irm_module_attr_keys_, out); }

/* {"type": type name, "pass_invariant": bool} of one key (*out NEW). */
static int key_description(const key_entry *k, irm_object **out) {
  static const char *const names[] = {"type", "pass_invariant"};
  irm_any values[2] = {irm_any_str(k->type_name), irm_any_bool(k->key.pass_invariant != 0)};
  return irm_map_from_pairs(names, values, 2, out);
}

int irm_module_attr_describe(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "describing module attribute keys: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  irm_name_snapshot snap;
  if (irm_name_table_snapshot_(&irm_module_attr_keys_.table, &snap))
    return irm_error_nomem_("describing module attribute keys");
  size_t n = snap.n;
  irm_any *descs = irm_calloc(n ? n : 1, sizeof *descs);
  rc = descs ? IRM_OK : irm_error_nomem_("describing module attribute keys");
  for (size_t i = 0; !rc && i < n; i++) {
    irm_object *d = NULL;
    rc = key_description(snap.values[i], &d);
    if (!rc) descs[i] = irm_any_object(d);
  }
  if (!rc) rc = irm_map_from_pairs(snap.names, descs, n, out);
  for (size_t i = 0; descs && i < n; i++) irm_any_release(&descs[i]);
  irm_name_snapshot_free_(&irm_module_attr_keys_.table, &snap);
  irm_free(descs);
  return rc;
}
int irm_base_func_attr_list(irm_object **out) { return key_list(&irm_base_func_attr_keys_, out); }

/* ---- built-in keys -------------------------------------------------------------- */

int irm_register_attr_keys_builtins_(void) {
  static const struct {
    const char *key, *type;
    int pass_invariant;
  } module_keys[] = {
      {IRM_ATTR_MOD_NAME, "str", 1},
      {IRM_ATTR_PARAMS, "map", 0},
  };
  static const struct {
    const char *key, *type;
  } func_keys[] = {
      {IRM_BASE_FUNC_ATTR_GLOBAL_SYMBOL, "str"},      {IRM_BASE_FUNC_ATTR_CALLING_CONV, "int"},
      {IRM_BASE_FUNC_ATTR_PRIMITIVE, "bool"},         {IRM_BASE_FUNC_ATTR_COMPILER, "str"},
      {IRM_BASE_FUNC_ATTR_SKIP_OPTIMIZATION, "bool"},
  };
  /* Registering a key again with the same definition succeeds, so a retry
   * after a partial failure skips what exists. */
  int rc = IRM_OK;
  for (size_t i = 0; rc == IRM_OK && i < sizeof module_keys / sizeof module_keys[0]; i++)
    rc = irm_module_attr_register(module_keys[i].key, module_keys[i].type, module_keys[i].pass_invariant);
  for (size_t i = 0; rc == IRM_OK && i < sizeof func_keys / sizeof func_keys[0]; i++)
    rc = irm_base_func_attr_register(func_keys[i].key, func_keys[i].type);
  return rc;
}
