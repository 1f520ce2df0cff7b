/* PassContext config options (pass.h): the registry of option keys (type,
 * default, the module attribute an option migrates to) and of their
 * aliases (whose table is pass_config_alias.c's), the check of a
 * context's config Map, irm_pass_get_config's resolution order (module
 * attribute, then PassContext, then default) and the MigratePassConfig
 * pass that copies migrated options onto the module.
 *
 * The registry is a kept name table (registry/internal/name_table.h): ordered,
 * journaled, locked. Entries never change once published and are never
 * freed (a rolled-back one is set aside), so their strings and values may
 * be read unlocked. */
#include <stdio.h>
#include <string.h>

#include "irm_internal.h"
#include "context_impl.h"
#include "irm/alloc.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/structural.h"
#include "pass_config_alias.h"
#include "pass_config_deprecated.h"

typedef struct config_entry {
  irm_option_type type;
  irm_any default_value; /* owned; NONE when there is none */
  char *module_attr;     /* NULL when the option does not migrate */
  char name[];           /* its own copy: readable the moment it is published */
} config_entry;

static const irm_name_hooks kept = {NULL, NULL, NULL};
static irm_name_table configs = IRM_NAME_TABLE_INIT(&kept);

static config_entry *find(const char *key) { return irm_name_table_get_(&configs, key); }

/* The published entries in registration order as a NEW C array (*n of
 * them); NULL with MemoryError set. */
static config_entry **snapshot(size_t *n) {
  irm_name_snapshot snap;
  config_entry **items = NULL;
  *n = 0;
  if (irm_name_table_snapshot_(&configs, &snap) == IRM_OK) {
    items = irm_malloc((snap.n ? snap.n : 1) * sizeof *items);
    if (items) memcpy(items, snap.values, snap.n * sizeof *items);
    *n = snap.n;
    irm_name_snapshot_free_(&configs, &snap);
  }
  if (!items) (void)irm_error_nomem_("listing config options");
  return items;
}

/* AttributeError for an unknown key, with the closest registered one. */
static int unknown_key(const char *key) {
  /* The closest registered name competes with the aliases. */
  char *registered = NULL;
  irm_name_snapshot snap;
  if (irm_name_table_closest_(&configs, key, &registered))
    return irm_error_nomem_("reporting an unknown config option");
  if (irm_pass_config_aliases_(&snap)) {
    irm_free(registered);
    return irm_error_nomem_("reporting an unknown config option");
  }
  const char **names = irm_malloc((snap.n + 1) * sizeof *names);
  if (!names) {
    irm_pass_config_aliases_free_(&snap);
    irm_free(registered);
    return irm_error_nomem_("reporting an unknown config option");
  }
  size_t n = 0;
  if (registered) names[n++] = registered;
  for (size_t i = 0; i < snap.n; i++) names[n++] = snap.names[i];
  const char *best = irm_closest_name(key, names, n);
  int rc = best ? irm_error(IRM_EATTR, "unknown PassContext config option '%s' (did you mean '%s'?)",
                            irm_error_quote(key), best)
                : irm_error(IRM_EATTR, "unknown PassContext config option '%s'; see transform.ListConfigs",
                            irm_error_quote(key));
  irm_free(names);
  irm_pass_config_aliases_free_(&snap);
  irm_free(registered);
  return rc;
}

/* Serializes registering options and aliases, so that a name cannot become
 * both at once (lookups take the tables' own locks). */
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- registering ------------------------------------------------------------------- */

/* ValueError "<what>: '<key>' is no registered config option (did you mean
 * '<the closest option>'?)". */
static int not_an_option(const char *what, const char *key) {
  char *closest = NULL;
  if (irm_name_table_closest_(&configs, key, &closest)) return irm_error_nomem_("reporting an unknown config option");
  int rc = irm_error(IRM_EVALUE, "%s: '%s' is no registered config option%s%s%s", what, irm_error_quote(key),
                     closest ? " (did you mean '" : "", closest ? closest : "", closest ? "'?)" : "");
  irm_free(closest);
  return rc;
}

int irm_pass_config_deprecate(const char *key, const char *hint) {
  if (!key || !key[0] || !hint || !hint[0])
    return irm_error(IRM_EVALUE, "deprecating a config option needs its key and a hint saying what to use instead");
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  const char *was = NULL, *of = NULL;
  pthread_mutex_lock(&names_lock);
  config_entry *e = find(key);
  if (e) rc = irm_pass_config_deprecated_add_(e->name, hint, &was);
  else of = irm_pass_config_alias_of_(key);
  pthread_mutex_unlock(&names_lock);
  if (rc) return irm_error_nomem_("deprecating a config option");
  if (of)
    return irm_error(IRM_EVALUE, "cannot deprecate '%s': it is an alias of '%s'; deprecate the option",
                     irm_error_quote(key), of);
  if (!e) return not_an_option("cannot deprecate a config option", key);
  if (was && strcmp(was, hint) != 0)
    return irm_error(IRM_EKEY, "config option '%s' is already deprecated with another hint ('%s')",
                     irm_error_quote(key), irm_error_quote(was));
  return IRM_OK;
}

static int same_definition(const config_entry *e, irm_option_type type, const irm_any *def, const char *module_attr,
                           int *same);
static void describe(irm_option_type type, const irm_any *def, const char *module_attr, char *buf, size_t size);
static void entry_free(config_entry *e);

int irm_pass_config_register(const char *key, const char *type, const irm_any *default_value, const char *module_attr) {
  if (!key || !key[0]) return irm_error(IRM_EVALUE, "a config option key must be a non-empty string");
  if (!type) return irm_error(IRM_EVALUE, "config option '%s': the type must not be NULL", irm_error_quote(key));
  if (module_attr && !module_attr[0])
    return irm_error(IRM_EVALUE, "config option '%s': the module attribute must be NULL or non-empty",
                     irm_error_quote(key));
  int rc = irm_builtins_ready_();
  irm_option_type t;
  if (!rc && (rc = irm_option_type_parse(type, &t)))
    return irm_error_context(rc, "config option '%s'", irm_error_quote(key));
  if (rc) return rc;
  size_t len = strlen(key);
  config_entry *fresh = irm_calloc(1, sizeof *fresh + len + 1);
  if (!fresh) return irm_error_nomem_("registering a config option");
  memcpy(fresh->name, key, len + 1);
  fresh->type = t;
  if (default_value && default_value->type_code != IRM_NONE &&
      (rc = irm_option_check_value(t, default_value, &fresh->default_value))) {
    entry_free(fresh);
    return irm_error_context(rc, "config option '%s': default", irm_error_quote(key));
  }
  if (module_attr && !(fresh->module_attr = irm_strdup(module_attr))) {
    entry_free(fresh);
    return irm_error_nomem_("registering a config option");
  }
  irm_name_existing was;
  pthread_mutex_lock(&names_lock);
  const char *alias_of = irm_pass_config_alias_of_(key);
  if (!alias_of) rc = irm_name_table_add_(&configs, key, fresh, IRM_NAME_EXISTING, &was, NULL);
  pthread_mutex_unlock(&names_lock);
  if (alias_of || rc) {
    entry_free(fresh);
    return alias_of ? irm_error(IRM_EKEY, "config option '%s' is already registered as an alias of '%s'",
                                irm_error_quote(key), alias_of)
                    : irm_error_nomem_("registering a config option");
  }
  const config_entry *existing = was.value;
  if (!existing) return IRM_OK;
  /* An existing entry never changes: comparing unlocked is safe. */
  int same = 0;
  rc = same_definition(existing, t, &fresh->default_value, module_attr, &same);
  if (!rc && !same) {
    char was_text[256], now[256], by[256];
    describe(existing->type, &existing->default_value, existing->module_attr, was_text, sizeof was_text);
    describe(t, &fresh->default_value, module_attr, now, sizeof now);
    rc = irm_error(IRM_EKEY, "config option '%s' is already registered%s as (%s); cannot register it as (%s)",
                   irm_error_quote(key), irm_name_by_plugin_(was.plugin, by, sizeof by), was_text, now);
  }
  entry_free(fresh);
  return rc;
}

int irm_pass_config_register_alias(const char *alias, const char *key) {
  if (!alias || !alias[0] || !key || !key[0])
    return irm_error(IRM_EVALUE, "a config option alias needs a non-empty alias and option key");
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  const char *was = NULL, *of = NULL;
  pthread_mutex_lock(&names_lock);
  config_entry *e = find(key);
  const config_entry *taken = find(alias);
  if (e && !taken) rc = irm_pass_config_alias_add_(alias, e->name, &was);
  if (!e) of = irm_pass_config_alias_of_(key);
  pthread_mutex_unlock(&names_lock);
  if (rc) return irm_error_nomem_("registering a config option alias");
  if (taken)
    return irm_error(IRM_EKEY, "cannot make '%s' an alias of '%s': it is a registered config option",
                     irm_error_quote(alias), irm_error_quote(key));
  if (of)
    return irm_error(IRM_EVALUE, "config option alias '%s': '%s' is itself an alias (of '%s'); name the option",
                     irm_error_quote(alias), irm_error_quote(key), of);
  if (!e) {
    char what[IRM_ERROR_QUOTE_MAX + 32];
    snprintf(what, sizeof what, "config option alias '%s'", irm_error_quote(alias));
    return not_an_option(what, key);
  }
  if (was && strcmp(was, e->name) != 0)
    return irm_error(IRM_EKEY, "config option alias '%s' already stands for '%s'; cannot make it an alias of '%s'",
                     irm_error_quote(alias), was, irm_error_quote(key));
  return IRM_OK;
}

static int same_definition(const config_entry *e, irm_option_type type, const irm_any *def, const char *module_attr,
                           int *same) {
  *same = 0;
  if (e->type != type) return IRM_OK;
  if ((e->module_attr == NULL) != (module_attr == NULL)) return IRM_OK;
  if (module_attr && strcmp(e->module_attr, module_attr) != 0) return IRM_OK;
  return irm_structural_equal(&e->default_value, def, same);
}

static void describe(irm_option_type type, const irm_any *def, const char *module_attr, char *buf, size_t size) {
  irm_object *text = NULL;
  if (irm_repr(def, &text)) irm_clear_error();
  snprintf(buf, size, "%s, default %s, %s%s%s", irm_option_type_name(type), text ? irm_string_data(text) : "?",
           module_attr ? "migrates to module attribute '" : "does not migrate", module_attr ? module_attr : "",
           module_attr ? "'" : "");
  irm_object_release(text);
}

static void entry_free(config_entry *e) {
  irm_any_release(&e->default_value);
  irm_free(e->module_attr);
  irm_free(e);
}

/* ---- listing ------------------------------------------------------------------------------ */

/* Adds name -> {type, default, module_attr, alias_of, deprecated} for e's
 * option (alias_of: the option name is an alias of, NONE for the option
 * itself; deprecated: what to use instead, NONE when it is not). */
static int list_entry(irm_object **list, const char *name, const config_entry *e, const char *alias_of) {
  const char *keys[] = {"type", "default", "module_attr", "alias_of", "deprecated"};
  const char *hint = irm_pass_config_deprecated_hint_(e->name);
  irm_any values[] = {irm_any_str(irm_option_type_name(e->type)), e->default_value,
                      e->module_attr ? irm_any_str(e->module_attr) : irm_any_none(),
                      alias_of ? irm_any_str(alias_of) : irm_any_none(), hint ? irm_any_str(hint) : irm_any_none()};
  irm_object *info = NULL;
  int rc = irm_map_from_pairs(keys, values, 5, &info);
  irm_any v = irm_any_object(info);
  if (!rc) rc = irm_map_set_move(list, name, &v);
  irm_object_release(info);
  return rc;
}

int irm_pass_config_list(irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_config_list: out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  size_t n = 0;
  config_entry **items = snapshot(&n);
  if (!items) return IRM_ENOMEM;
  irm_object *list = NULL;
  rc = irm_map_new(&list);
  for (size_t i = 0; !rc && i < n; i++) rc = list_entry(&list, items[i]->name, items[i], NULL);
  irm_name_snapshot aliases = {0, NULL, NULL, NULL};
  if (!rc && (rc = irm_pass_config_aliases_(&aliases))) rc = irm_error_nomem_("listing config options");
  for (size_t i = 0; !rc && i < aliases.n; i++) {
    config_entry *e = find(aliases.values[i]); /* gone when a journal took the option back */
    if (e) rc = list_entry(&list, aliases.names[i], e, e->name);
  }
  if (aliases.names) irm_pass_config_aliases_free_(&aliases);
  irm_free(items);
  if (rc) {
    irm_object_release(list);
    return rc;
  }
  *out = list;
  return IRM_OK;
}

/* ---- checking a context's config ------------------------------------------------------------ */

/* ValueError: given names the option key, which config already gave under
 * another name (the option's own, or an alias). */
static int given_twice(const irm_object *config, const char *given, const char *key) {
  const char *first = key;
  irm_map_iter it = irm_map_iter_begin(config);
  const irm_object *k;
  const irm_any *v;
  while (irm_map_iter_next(&it, &k, &v)) {
    const char *name = irm_string_data(k);
    if (strcmp(name, given) && strcmp(irm_pass_config_resolve_(name), key) == 0) {
      first = name;
      break;
    }
  }
  return irm_error(IRM_EVALUE,
                   "PassContext config gives option '%s' twice: as '%s' and as '%s' (one is an alias "
                   "of the other); give it once",
                   key, first, given);
}

int irm_pass_config_check_(const irm_object *config, irm_object **out) {
  *out = NULL;
  if (config && irm_object_type_index(config) != IRM_TYPE_MAP)
    return irm_error(IRM_ETYPE, "expected an ffi.Map of option key -> value, got %s", irm_object_type_key(config));
  irm_object *checked = NULL;
  int rc = irm_map_new(&checked);
  irm_map_iter it = irm_map_iter_begin(config);
  const irm_object *k;
  const irm_any *v;
  while (!rc && irm_map_iter_next(&it, &k, &v)) {
    const char *given = irm_string_data(k), *key = irm_pass_config_resolve_(given);
    config_entry *e = find(key);
    if (!e) {
      rc = unknown_key(given);
      break;
    }
    if (irm_map_find_cstr(checked, key)) {
      rc = given_twice(config, given, key);
      break;
    }
    irm_any value = irm_any_none();
    if ((rc = irm_option_check_value(e->type, v, &value))) {
      rc = irm_error_context(rc, "option '%s'", irm_error_quote(given));
      break;
    }
    const char *hint = irm_pass_config_deprecated_hint_(key);
    if (hint && (rc = irm_warn_unique_(IRM_DEPRECATION_PREFIX "PassContext config option '%s' is deprecated: %s",
                                       irm_error_quote(given), hint))) {
      irm_any_release(&value);
      if (rc == IRM_ENOMEM) rc = irm_error_nomem_("delivering a deprecation warning");
      break;
    }
    rc = irm_map_set_move(&checked, key, &value);
    irm_any_release(&value);
  }
  if (rc) {
    irm_object_release(checked);
    return rc;
  }
  *out = checked;
  return IRM_OK;
}

static int warn_if_disagreeing(const char *site, const config_entry *e, const irm_any *on_mod, const irm_any *from_ctx);

/* ---- reading an option --------------------------------------------------------------------------- */

int irm_pass_get_config(const irm_module *mod, const char *key, irm_any *out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_pass_get_config: out must not be NULL");
  *out = irm_any_none();
  if (!key) return irm_error(IRM_EVALUE, "irm_pass_get_config: key must not be NULL");
  if (mod && !irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "irm_pass_get_config: expected ir.IRModule, got %s", irm_object_type_key(mod));
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  config_entry *e = find(irm_pass_config_resolve_(key));
  if (!e) return unknown_key(key);
  key = e->name; /* an alias reads its option, silently: TVM's names work as written */
  /* 1. the module attribute the option migrates to; reading it from the
   * context instead is the migration at work, and silent, unless the two
   * disagree */
  if (mod && e->module_attr && (rc = irm_module_get_attr(mod, e->module_attr, out))) return rc;
  /* 2. the current PassContext */
  irm_pass_context *ctx = NULL;
  if ((rc = irm_pass_context_current(&ctx))) return rc;
  const irm_any *v = irm_map_find_cstr(irm_pass_context_config(ctx), key);
  if (out->type_code != IRM_NONE) {
    if (v) rc = warn_if_disagreeing("reading config option", e, out, v);
  } else if (v) {
    rc = irm_any_copy(v, out);
  } else {
    /* 3. the registered default */
    rc = irm_any_copy(&e->default_value, out);
  }
  irm_object_release(ctx);
  if (rc) irm_any_release(out);
  return rc;
}

/* One warning (once per process for these values) when the module
 * attribute and the PassContext give an option different values: the
 * module wins, since a module carries its own configuration. */
static int warn_if_disagreeing(const char *site, const config_entry *e, const irm_any *on_mod,
                               const irm_any *from_ctx) {
  int same = 0;
  int rc = irm_structural_equal(on_mod, from_ctx, &same);
  if (rc || same) return rc;
  irm_object *a = NULL, *b = NULL;
  if (irm_repr(on_mod, &a) || irm_repr(from_ctx, &b)) irm_clear_error();
  rc = irm_warn_unique_("%s: module attribute '%s' = %s and PassContext config option '%s' = %s disagree; the "
                        "module attribute wins (a module carries its own configuration): drop one of them",
                        site, e->module_attr, a ? irm_string_data(a) : "?", e->name, b ? irm_string_data(b) : "?");
  irm_object_release(a);
  irm_object_release(b);
  return rc == IRM_ENOMEM ? irm_error_nomem_("delivering a warning") : rc;
}

/* ---- MigratePassConfig ------------------------------------------------------------------------------ */

static int migrate_one(irm_module **mod, const config_entry *e, const irm_any *from_ctx);

int irm_migrate_pass_config_(irm_module *mod, irm_pass_context *ctx, const irm_object *options, void *resource,
                             irm_module **out) {
  (void)options;
  (void)resource;
  *out = NULL;
  if (!irm_object_is(mod, "ir.IRModule"))
    return irm_error(IRM_ETYPE, "MigratePassConfig: expected ir.IRModule, got %s",
                     mod ? irm_object_type_key(mod) : "NULL");
  irm_pass_context *own = NULL;
  int rc = IRM_OK;
  if (!ctx) {
    if ((rc = irm_pass_context_current(&own))) return rc;
    ctx = own;
  }
  size_t n = 0;
  config_entry **items = snapshot(&n);
  irm_module *cur = mod;
  irm_object_retain(cur);
  if (!items) rc = IRM_ENOMEM;
  for (size_t i = 0; !rc && i < n; i++) {
    const irm_any *v = items[i]->module_attr ? irm_map_find_cstr(irm_pass_context_config(ctx), items[i]->name) : NULL;
    if (v) rc = migrate_one(&cur, items[i], v);
  }
  irm_free(items);
  irm_object_release(own);
  if (rc) {
    irm_object_release(cur);
    return rc;
  }
  *out = cur;
  return IRM_OK;
}

/* Sets e's module attribute to the context's value unless the module has
 * one; a different value on the module wins, with a warning. */
static int migrate_one(irm_module **mod, const config_entry *e, const irm_any *from_ctx) {
  irm_any on_mod = irm_any_none();
  int rc = irm_module_get_attr(*mod, e->module_attr, &on_mod);
  if (rc) return rc;
  if (on_mod.type_code == IRM_NONE) return irm_module_set_attr_move(mod, e->module_attr, from_ctx);
  rc = warn_if_disagreeing("MigratePassConfig", e, &on_mod, from_ctx);
  irm_any_release(&on_mod);
  return rc;
}

/* ---- built-in options --------------------------------------------------------------------------------- */

static int migrate_factory(const irm_object *options, irm_pass **out) {
  (void)options;
  return irm_module_pass_new("MigratePassConfig", 0, NULL, 0, NULL, irm_migrate_pass_config_, NULL, NULL, out);
}

int irm_register_pass_config_builtins_(void) {
  irm_any no = irm_any_bool(false);
  int rc = irm_pass_config_register("tir.disable_vectorize", "bool", &no, NULL);
  irm_any yes = irm_any_bool(true);
  if (!rc) rc = irm_pass_config_register(IRM_PASS_REPRODUCER_CONFIG, "str", NULL, NULL);
  if (!rc) rc = irm_pass_config_register(IRM_PASS_VERIFY_EACH_CONFIG, "bool", &yes, NULL);
  if (!rc) rc = irm_pass_register("MigratePassConfig", migrate_factory, NULL);
  return rc;
}

int irm_pass_setting(const irm_object *options, const char *option, const irm_module *mod, const char *config_key,
                     irm_any *out) {
  if (!out || !option) return irm_error(IRM_EVALUE, "irm_pass_setting: option and out must not be NULL");
  const irm_any *given = irm_map_find_cstr(options, option); /* NULL options: none given */
  if (given && given->type_code != IRM_NONE) return irm_any_copy(given, out);
  return irm_pass_get_config(mod, config_key, out);
}
