/* The generic kind registry (kind.h): categories of kinds, each kind with an
 * ordered option schema and prioritized attributes. Categories and each
 * category's kinds are kept name tables (name_table.h), which journal
 * them; one reader-writer lock guards options and attributes. No user code
 * runs under any of these locks. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "error_internal.h"
#include "irm/container.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "irm/kind.h"
#include "journal_internal.h"
#include "kind_internal.h"
#include "plugin_defer.h"
#include "uthash_irm.h"

pthread_rwlock_t irm_kind_lock_ = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

static void kind_detached(void *kind);
static const irm_name_hooks kept_categories = {NULL, NULL, NULL};
static const irm_name_hooks kept_kinds = {NULL, NULL, kind_detached};
static irm_name_table categories = IRM_NAME_TABLE_INIT(&kept_categories);

/* ---- lookups -------------------------------------------------------------- */

static category *category_find(const char *name) { return irm_name_table_get_(&categories, name); }

static irm_kind *kind_find(category *c, const char *name) { return c ? irm_name_table_get_(&c->kinds, name) : NULL; }

static option_def *option_find(const irm_kind *k, const char *name) {
  for (size_t i = 0; i < k->n_options; i++)
    if (strcmp(k->options[i].name, name) == 0) return &k->options[i];
  return NULL;
}

static int compare_cstr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The kind names of c, sorted, in a new array of pointers borrowed from
 * the kinds (which live for the process). */
static const char **sorted_kind_names(category *c, size_t *n) {
  irm_name_snapshot snap = {0, NULL, NULL, NULL};
  if (c && irm_name_table_snapshot_(&c->kinds, &snap)) return NULL;
  *n = snap.n;
  const char **names = irm_malloc((*n ? *n : 1) * sizeof *names);
  for (size_t i = 0; names && i < *n; i++) names[i] = ((const irm_kind *)snap.values[i])->name;
  if (c) irm_name_snapshot_free_(&c->kinds, &snap);
  if (names) qsort(names, *n, sizeof *names, compare_cstr);
  return names;
}

/* "a, b, c" into list (a cut list ends with " and N more"); "none". */
static void format_names(const char **names, size_t n, char *list, size_t size) {
  size_t used = 0, shown = 0;
  snprintf(list, size, "none");
  /* Room is kept for the " and N more" that ends a cut list. */
  while (shown < n && used + strlen(names[shown]) + 2 < size - 32) {
    used += (size_t)snprintf(list + used, size - used, "%s%s", shown ? ", " : "", names[shown]);
    shown++;
  }
  if (shown < n) snprintf(list + used, size - used, " and %zu more", n - shown);
}

/* ValueError for an unknown kind: the closest name and the full list. */
static int unknown_kind_error(category *c, const char *category_name, const char *name) {
  size_t n = 0;
  const char **names = sorted_kind_names(c, &n);
  if (!names) return irm_error_nomem_("reporting an unknown kind");
  char list[1024];
  format_names(names, n, list, sizeof list);
  char *best = NULL;
  int rc = c ? irm_name_table_closest_(&c->kinds, name, &best) : IRM_OK;
  if (rc) {
    irm_free(names);
    return irm_error_nomem_("reporting an unknown kind");
  }
  if (best)
    rc = irm_error(IRM_EVALUE, "unknown %s kind '%s' (did you mean '%s'?); registered kinds: %s", category_name,
                   irm_error_quote(name), best, list);
  else
    rc =
        irm_error(IRM_EVALUE, "unknown %s kind '%s'; registered kinds: %s", category_name, irm_error_quote(name), list);
  irm_free(best);
  irm_free(names);
  return rc;
}

int irm_kind_list_text(const char *category_name, char *buf, size_t size) {
  if (!buf || size < 64) return irm_error(IRM_EVALUE, "irm_kind_list_text: buf must hold at least 64 bytes");
  int rc = category_name ? irm_builtins_ready_() : irm_error(IRM_EVALUE, "irm_kind_list_text: NULL category");
  if (rc) return rc;
  size_t n = 0;
  const char **names = sorted_kind_names(category_find(category_name), &n);
  if (names) format_names(names, n, buf, size);
  irm_free(names);
  return names ? IRM_OK : irm_error_nomem_("listing kinds");
}

static int unknown_option_error(const irm_kind *k, const char *option) {
  const char **names = irm_malloc((k->n_options ? k->n_options : 1) * sizeof *names);
  if (!names) return irm_error_nomem_("reporting an unknown option");
  for (size_t i = 0; i < k->n_options; i++) names[i] = k->options[i].name;
  const char *best = irm_closest_name(option, names, k->n_options);
  int rc = best ? irm_error(IRM_EATTR, "%s '%s' has no option '%s' (did you mean '%s'?)", k->cat->name, k->name,
                            irm_error_quote(option), best)
                : irm_error(IRM_EATTR, "%s '%s' has no option '%s'", k->cat->name, k->name, irm_error_quote(option));
  irm_free(names);
  return rc;
}

/* ---- categories and kinds ----------------------------------------------- */

static int check_name(const char *what, const char *name) {
  if (!name || !name[0]) return irm_error(IRM_EVALUE, "%s must be a non-empty string", what);
  return irm_utf8_check_(what, name);
}

static void option_free(option_def *o);

/* The category named name, created if needed; *created tells whether it
 * is new (and journaled by the table). NULL when out of memory. */
static category *category_get(const char *name, int *created) {
  category *c = category_find(name);
  *created = 0;
  if (c) return c;
  size_t len = strlen(name);
  c = irm_calloc(1, sizeof *c + len + 1);
  if (!c) return NULL;
  memcpy(c->name, name, len + 1);
  irm_name_table_init_(&c->kinds, &kept_kinds);
  irm_name_existing was;
  if (irm_name_table_add_(&categories, name, c, IRM_NAME_EXISTING, &was, NULL) || was.value) {
    irm_name_table_destroy_(&c->kinds);
    irm_free(c);
    return was.value; /* another thread's, or NULL */
  }
  *created = 1;
  return c;
}

int irm_kind_category_register(const char *name) {
  int rc = check_name("a kind category", name);
  if (rc || (rc = irm_builtins_ready_())) return rc;
  int created;
  return category_get(name, &created) ? IRM_OK : irm_error_nomem_("registering a kind category");
}

/* Frees a kind nobody has seen (prepare failed, or another thread won the
 * race to register the same name). */
static void kind_free_unpublished(irm_kind *k) {
  pthread_rwlock_wrlock(&irm_kind_lock_); /* before the kinds' table lock */
  irm_kind_forget_attr_names_locked_(k);  /* names its prepare taught the category */
  pthread_rwlock_unlock(&irm_kind_lock_);
  for (size_t i = 0; i < k->n_options; i++) option_free(&k->options[i]);
  irm_free(k->options);
  attr_value *v, *tmp;
  HASH_ITER(hh, k->attrs, v, tmp) {
    HASH_DEL(k->attrs, v);
    irm_any_release(&v->value);
    irm_free(v);
  }
  irm_free(k);
}

/* A new kind of category c, prepared (c's prepare function run on it)
 * before anyone else can see it. Its options need no undo records: the
 * kind's own undo takes them along. */
static int kind_new_prepared(category *c, const char *name, irm_kind **out) {
  size_t len = strlen(name);
  irm_kind *k = irm_calloc(1, sizeof *k + len + 1);
  if (!k) return irm_error_nomem_("registering a kind");
  memcpy(k->name, name, len + 1);
  k->cat = c;
  if (c->prepare) {
    irm_journal_pause_();
    int rc = c->prepare(k);
    irm_journal_resume_();
    if (rc) {
      kind_free_unpublished(k);
      return irm_error_context(rc, "preparing %s kind '%s'", c->name, irm_error_quote(name));
    }
  }
  *out = k;
  return IRM_OK;
}

int irm_kind_register(const char *category_name, const char *name, irm_kind **out) {
  int rc = check_name("a kind category", category_name);
  if (!rc) rc = check_name("a kind name", name);
  if (rc || (rc = irm_builtins_ready_())) return rc;
  int created_cat = 0;
  category *c = category_get(category_name, &created_cat);
  if (!c) return irm_error_nomem_("registering a kind category");
  irm_kind *k = kind_find(c, name), *fresh = NULL;
  if (!k && (rc = kind_new_prepared(c, name, &fresh))) return rc;
  if (fresh) {
    irm_name_existing was; /* another thread may have won the race */
    rc = irm_name_table_add_(&c->kinds, name, fresh, IRM_NAME_EXISTING, &was, NULL);
    k = rc || was.value ? was.value : fresh;
    if (k != fresh) kind_free_unpublished(fresh);
    if (!k) return irm_error_nomem_("registering a kind");
  }
  if (out) *out = k;
  return IRM_OK;
}

int irm_kind_category_set_prepare(const char *category_name, irm_kind_setup_fn prepare) {
  int rc = irm_kind_category_register(category_name);
  if (rc) return rc;
  pthread_rwlock_wrlock(&irm_kind_lock_);
  category_find(category_name)->prepare = prepare;
  pthread_rwlock_unlock(&irm_kind_lock_);
  return IRM_OK;
}

int irm_kind_find(const char *category_name, const char *name, irm_kind **out) {
  if (!category_name || !name || !out)
    return irm_error(IRM_EVALUE, "irm_kind_find: category, name and out must not be NULL");
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  category *c = category_find(category_name);
  irm_kind *k = kind_find(c, name);
  if (!k) rc = unknown_kind_error(c, category_name, name);
  *out = k;
  return rc;
}

int irm_kind_list(const char *category_name, irm_object **out) {
  if (!category_name || !out) return irm_error(IRM_EVALUE, "irm_kind_list: category and out must not be NULL");
  *out = NULL;
  int rc = irm_builtins_ready_();
  if (rc) return rc;
  size_t n = 0;
  const char **names = sorted_kind_names(category_find(category_name), &n);
  irm_any *items = names ? irm_calloc(n ? n : 1, sizeof *items) : NULL;
  for (size_t i = 0; items && i < n; i++) items[i] = irm_any_str(names[i]);
  rc = items ? irm_array_new(items, n, out) : irm_error_nomem_("listing kinds");
  irm_free(items);
  irm_free(names);
  return rc;
}

const char *irm_kind_name(const irm_kind *kind) { return kind ? kind->name : NULL; }
const char *irm_kind_category(const irm_kind *kind) { return kind ? kind->cat->name : NULL; }

/* ---- journal undo ------------------------------------------------------- */

/* A rolled-back kind has left its category's table (which keeps it
 * aside): handles held by anyone stay valid, and registering on them
 * reports the detachment. */
static void kind_detached(void *kind) {
  irm_kind *k = kind;
  pthread_rwlock_wrlock(&irm_kind_lock_);
  irm_kind_forget_attr_names_locked_(k);
  k->detached = 1;
  pthread_rwlock_unlock(&irm_kind_lock_);
}

int irm_kind_attached_(const irm_kind *k) {
  pthread_rwlock_rdlock(&irm_kind_lock_);
  int attached = !k->detached;
  pthread_rwlock_unlock(&irm_kind_lock_);
  return attached;
}

int irm_kind_detached_error_(const irm_kind *k) {
  return irm_error(IRM_ERUNTIME, "%s kind '%s' was rolled back; register it again", k->cat->name, k->name);
}

/* ---- options ------------------------------------------------------------ */

typedef struct option_undo {
  irm_kind *kind;
  char name[];
} option_undo;

static void option_free(option_def *o) {
  irm_free(o->name);
  irm_free(o->doc);
  irm_any_release(&o->default_value);
}

static void option_undo_run(void *data) {
  option_undo *u = data;
  option_def gone = {0};
  pthread_rwlock_wrlock(&irm_kind_lock_);
  option_def *o = option_find(u->kind, u->name);
  if (o) {
    gone = *o;
    size_t i = (size_t)(o - u->kind->options);
    memmove(o, o + 1, (u->kind->n_options - i - 1) * sizeof *o);
    u->kind->n_options--;
  }
  pthread_rwlock_unlock(&irm_kind_lock_);
  if (o) option_free(&gone);
}

static int check_option_args(const irm_kind *kind, const char *option, irm_option_type type,
                             const irm_any *default_value, int required) {
  if (!kind) return irm_error(IRM_EVALUE, "irm_kind_add_option: kind must not be NULL");
  int rc = check_name("an option name", option);
  if (rc) return rc;
  if (!irm_option_type_name(type))
    return irm_error(IRM_EVALUE, "option '%s' of %s '%s': invalid option type %d", irm_error_quote(option),
                     kind->cat->name, kind->name, (int)type);
  if (required && default_value && default_value->type_code != IRM_NONE)
    return irm_error(IRM_EVALUE, "option '%s' of %s '%s' is required, so it cannot have a default",
                     irm_error_quote(option), kind->cat->name, kind->name);
  return IRM_OK;
}

int irm_kind_add_option(irm_kind *kind, const char *option, irm_option_type type, const irm_any *default_value,
                        const char *doc, int required) {
  int rc = check_option_args(kind, option, type, default_value, required);
  if (rc) return rc;
  option_def def = {0};
  def.type = type;
  def.required = required != 0;
  if (default_value && default_value->type_code != IRM_NONE &&
      (rc = irm_option_check_value(type, default_value, &def.default_value)))
    return irm_error_context(rc, "default of option '%s' of %s '%s'", irm_error_quote(option), kind->cat->name,
                             kind->name);
  size_t len = strlen(option);
  option_undo *undo = irm_journal_active() ? irm_malloc(sizeof *undo + len + 1) : NULL;
  def.name = irm_strdup(option);
  def.doc = irm_strdup(doc ? doc : "");
  if (!def.name || !def.doc || (irm_journal_active() && (!undo || irm_journal_reserve_(1)))) {
    option_free(&def);
    irm_free(undo);
    return irm_error_nomem_("adding an option");
  }
  pthread_rwlock_wrlock(&irm_kind_lock_);
  if (kind->detached) rc = IRM_ERUNTIME;
  else if (option_find(kind, option)) rc = IRM_EKEY;
  else if (kind->n_options == kind->cap_options) {
    size_t cap = kind->cap_options ? kind->cap_options * 2 : 8;
    option_def *grown = irm_realloc(kind->options, cap * sizeof *grown);
    if (grown) {
      kind->options = grown;
      kind->cap_options = cap;
    } else {
      rc = IRM_ENOMEM;
    }
  }
  if (rc == IRM_OK) kind->options[kind->n_options++] = def;
  pthread_rwlock_unlock(&irm_kind_lock_);
  if (rc) {
    option_free(&def);
    irm_free(undo);
    if (rc == IRM_ERUNTIME) return irm_kind_detached_error_(kind);
    if (rc == IRM_EKEY)
      return irm_error(IRM_EKEY, "%s '%s' already has an option '%s'", kind->cat->name, kind->name,
                       irm_error_quote(option));
    return irm_error_nomem_("adding an option");
  }
  if (undo) {
    undo->kind = kind;
    memcpy(undo->name, option, len + 1);
    (void)irm_journal_record(option_undo_run, irm_free, undo);
  }
  return IRM_OK;
}

/* Builds a Map option -> (type name, or a description Map). */
static int options_map(const irm_kind *kind, int describe, irm_object **out) {
  if (!kind || !out) return irm_error(IRM_EVALUE, "kind and out must not be NULL");
  *out = NULL;
  irm_object *map = NULL;
  int rc = irm_map_new(&map);
  pthread_rwlock_rdlock(&irm_kind_lock_);
  for (size_t i = 0; rc == IRM_OK && i < kind->n_options; i++) {
    const option_def *o = &kind->options[i];
    irm_any type = irm_any_str(irm_option_type_name(o->type));
    if (!describe) {
      rc = irm_map_set_move(&map, o->name, &type);
      continue;
    }
    const char *keys[] = {"type", "default", "doc", "required"};
    irm_any values[] = {type, o->default_value, irm_any_str(o->doc), irm_any_bool(o->required)};
    irm_object *info = NULL;
    rc = irm_map_from_pairs(keys, values, 4, &info);
    irm_any v = irm_any_object(info);
    if (rc == IRM_OK) rc = irm_map_set_move(&map, o->name, &v);
    irm_object_release(info);
  }
  pthread_rwlock_unlock(&irm_kind_lock_);
  if (rc) {
    irm_object_release(map);
    return rc;
  }
  *out = map;
  return IRM_OK;
}

int irm_kind_list_options(const irm_kind *kind, irm_object **out) { return options_map(kind, 0, out); }
int irm_kind_describe_options(const irm_kind *kind, irm_object **out) { return options_map(kind, 1, out); }

int irm_kind_option(const irm_kind *kind, const char *option, irm_option_type *type, irm_any *default_value) {
  if (!kind || !option) return irm_error(IRM_EVALUE, "irm_kind_option: kind and option must not be NULL");
  if (default_value) *default_value = irm_any_none();
  int rc = IRM_OK;
  pthread_rwlock_rdlock(&irm_kind_lock_);
  const option_def *o = option_find(kind, option);
  if (!o) rc = unknown_option_error(kind, option);
  else {
    if (type) *type = o->type;
    if (default_value) rc = irm_any_copy(&o->default_value, default_value);
  }
  pthread_rwlock_unlock(&irm_kind_lock_);
  return rc;
}

/* ---- validation ----------------------------------------------------------- */

static int skipped(const char *key, const char *const *skip, size_t n_skip) {
  for (size_t i = 0; i < n_skip; i++)
    if (skip[i] && strcmp(skip[i], key) == 0) return 1;
  return 0;
}

/* Checks every given option (read lock held); values[i] receives option
 * i's converted value, NONE when not given. */
static int check_given(const irm_kind *k, const irm_object *options, const char *const *skip, size_t n_skip,
                       irm_any *values) {
  irm_map_iter it = irm_map_iter_begin(options);
  const irm_object *key;
  const irm_any *value;
  while (irm_map_iter_next(&it, &key, &value)) {
    const char *name = irm_string_data(key);
    if (skipped(name, skip, n_skip)) continue;
    const option_def *o = option_find(k, name);
    if (!o) return unknown_option_error(k, name);
    size_t i = (size_t)(o - k->options);
    int rc = irm_option_check_value(o->type, value, &values[i]);
    if (rc) return irm_error_context(rc, "%s '%s' option '%s'", k->cat->name, k->name, irm_error_quote(name));
  }
  return IRM_OK;
}

int irm_kind_validate(const irm_kind *kind, const irm_object *options, const char *const *skip, size_t n_skip,
                      irm_object **out) {
  if (!kind || !out) return irm_error(IRM_EVALUE, "irm_kind_validate: kind and out must not be NULL");
  *out = NULL;
  if (options && !irm_object_is(options, "ffi.Map"))
    return irm_error(IRM_ETYPE, "options of %s '%s': expected ffi.Map, got %s", kind->cat->name, kind->name,
                     irm_object_type_key(options));
  pthread_rwlock_rdlock(&irm_kind_lock_);
  size_t n = kind->n_options;
  irm_any *values = irm_calloc(n ? n : 1, sizeof *values);
  irm_object *result = NULL;
  int rc = values ? irm_map_new(&result) : irm_error_nomem_("validating options");
  if (rc == IRM_OK && options) rc = check_given(kind, options, skip, n_skip, values);
  for (size_t i = 0; rc == IRM_OK && i < n; i++) {
    const option_def *o = &kind->options[i];
    const irm_any *v = values[i].type_code != IRM_NONE ? &values[i] : &o->default_value;
    if (v->type_code != IRM_NONE) rc = irm_map_set_move(&result, o->name, v);
    else if (o->required)
      rc = irm_error(IRM_EVALUE, "%s '%s' requires option '%s' (%s)", kind->cat->name, kind->name, o->name,
                     irm_option_type_name(o->type));
  }
  pthread_rwlock_unlock(&irm_kind_lock_);
  for (size_t i = 0; values && i < n; i++) irm_any_release(&values[i]);
  irm_free(values);
  if (rc) {
    irm_object_release(result);
    return rc;
  }
  *out = result;
  return IRM_OK;
}

/* ---- static registration -------------------------------------------------- */

int irm_register_static_kind(const char *category_name, const char *name, irm_kind_setup_fn setup) {
  int deferred_rc;
  if (irm_plugin_defer_kind_(category_name, name, setup, &deferred_rc)) return deferred_rc; /* a plugin's */
  irm_kind *k = NULL;
  int rc = irm_kind_register(category_name, name, &k);
  if (rc == IRM_OK && setup) rc = setup(k);
  if (rc)
    irm_warn("static registration of %s kind '%s' failed: %s", category_name ? category_name : "(null)",
             irm_error_quote(name), irm_last_error());
  return rc;
}
