/* The name table (name_table.h): uthash under a writer-preferring rwlock,
 * journaled changes, per-entry plugin attribution. Everything that can
 * fail (allocating the entry, the undo record, the journal's slot) happens
 * before the write lock; under it only uthash may fail, and it leaves the
 * table as it was. Values leave through the hooks after unlocking. */
#include <stdio.h>
#include <string.h>

#include "irm/alloc.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "journal_internal.h"
#include "name_table.h"

static int counted(const irm_name_table *t) { return t->hooks && t->hooks->release; }

static void retain(const irm_name_table *t, void *value) {
  if (counted(t) && value) t->hooks->retain(value);
}

static void release(const irm_name_table *t, void *value) {
  if (counted(t) && value) t->hooks->release(value);
}

void irm_name_table_init_(irm_name_table *t, const irm_name_hooks *hooks) {
  *t = (irm_name_table){.entries = NULL, .detached = NULL, .hooks = hooks};
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  pthread_rwlock_init(&t->lock, &attr);
  pthread_rwlockattr_destroy(&attr);
}

static void free_entry(const irm_name_table *t, irm_name_entry *e) {
  release(t, e->value);
  irm_free(e);
}

void irm_name_table_destroy_(irm_name_table *t) {
  irm_name_entry *e, *tmp;
  HASH_ITER(hh, t->entries, e, tmp) {
    HASH_DELETE(hh, t->entries, e);
    free_entry(t, e);
  }
  for (e = t->detached; e; e = tmp) {
    tmp = e->hh.next;
    irm_free(e);
  }
  t->detached = NULL;
  pthread_rwlock_destroy(&t->lock);
}

static irm_name_entry *find_locked(const irm_name_table *t, const char *name) {
  irm_name_entry *e = NULL;
  HASH_FIND_STR(t->entries, name, e);
  return e;
}

/* 0 or IRM_ENOMEM (e not added). */
static int add_locked(irm_name_table *t, irm_name_entry *e) {
  int irm_hash_oom = 0;
  HASH_ADD_KEYPTR(hh, t->entries, e->name, strlen(e->name), e);
  return irm_hash_oom ? IRM_ENOMEM : IRM_OK;
}

/* A kept table's entry that left: set aside for the process (lock held). */
static void set_aside_locked(irm_name_table *t, irm_name_entry *e) {
  e->hh.next = t->detached;
  t->detached = e;
}

/* Takes e off the aside list again (lock held). */
static void unlink_aside_locked(irm_name_table *t, irm_name_entry *e) {
  irm_name_entry **p = &t->detached;
  while (*p && *p != e) p = (irm_name_entry **)&(*p)->hh.next;
  if (*p) *p = e->hh.next;
}

/* After unlocking: e (out of the table) is freed or reported detached. */
static void left_table(irm_name_table *t, irm_name_entry *e, void *value) {
  if (counted(t)) {
    free_entry(t, e);
  } else if (value && t->hooks && t->hooks->detached) {
    t->hooks->detached(value);
  }
}

/* ---- journal records ------------------------------------------------------ */

typedef enum { NAME_ADDED, NAME_REPLACED, NAME_REMOVED } name_change;

typedef struct name_undo {
  irm_name_table *table;
  name_change change;
  void *added;    /* ADDED, REPLACED: what this change put there (a reference if counted) */
  void *replaced; /* REPLACED: the value it replaced (owned) */
  const char *replaced_plugin;
  irm_name_entry *removed; /* REMOVED: the entry, owned while out of the table */
  char name[];
} name_undo;

/* Reverts one change if the table still holds what it put there; a later
 * change by another thread is not ours to undo. */
static void name_undo_run(void *data) {
  name_undo *u = data;
  irm_name_table *t = u->table;
  irm_name_entry *gone = NULL;
  void *dropped = NULL;
  pthread_rwlock_wrlock(&t->lock);
  irm_name_entry *e = find_locked(t, u->name);
  switch (u->change) {
  case NAME_ADDED:
    if (e && e->value == u->added) {
      HASH_DELETE(hh, t->entries, e);
      if (!counted(t)) set_aside_locked(t, e);
      gone = e;
      dropped = e->value;
    }
    break;
  case NAME_REPLACED:
    if (e && e->value == u->added) {
      dropped = e->value;
      e->value = u->replaced;
      e->plugin = u->replaced_plugin;
      u->replaced = NULL;
    }
    break;
  case NAME_REMOVED:
    if (e) break;
    if (!counted(t)) unlink_aside_locked(t, u->removed);
    if (add_locked(t, u->removed) == IRM_OK) u->removed = NULL;
    else if (!counted(t)) set_aside_locked(t, u->removed);
    break;
  }
  pthread_rwlock_unlock(&t->lock);
  if (gone) left_table(t, gone, dropped);
  else release(t, dropped);
}

static void name_undo_dispose(void *data) {
  name_undo *u = data;
  release(u->table, u->added);
  release(u->table, u->replaced);
  if (u->removed && counted(u->table)) free_entry(u->table, u->removed);
  irm_free(u);
}

/* Undo data for the open journal with its slot reserved, or NULL when
 * nothing records. *rc is IRM_ENOMEM when a journal records but memory is
 * short. */
static name_undo *undo_new(irm_name_table *t, const char *name, int *rc) {
  *rc = IRM_OK;
  if (!irm_journal_active()) return NULL;
  size_t len = strlen(name);
  name_undo *u = irm_calloc(1, sizeof *u + len + 1);
  if (!u || irm_journal_reserve_(1) != IRM_OK) {
    irm_free(u);
    *rc = IRM_ENOMEM;
    return NULL;
  }
  u->table = t;
  memcpy(u->name, name, len + 1);
  return u;
}

/* Cannot fail: undo_new reserved the slot. */
static void record(name_undo *u) { (void)irm_journal_record(name_undo_run, name_undo_dispose, u); }

/* ---- changes ---------------------------------------------------------------- */

static irm_name_entry *entry_new(const char *name, void *value) {
  size_t len = strlen(name);
  irm_name_entry *e = irm_malloc(sizeof *e + len + 1);
  if (!e) return NULL;
  memset(&e->hh, 0, sizeof e->hh);
  memcpy(e->name, name, len + 1);
  e->value = value;
  /* Built-ins registered lazily inside a plugin's init run with the
   * journal paused: they are nobody's. */
  e->plugin = irm_journal_active() ? irm_plugin_current_name_() : NULL;
  return e;
}

int irm_name_table_add_(irm_name_table *t, const char *name, void *value, irm_name_policy policy,
                        irm_name_existing *existing, irm_name_entry **entry) {
  if (existing) *existing = (irm_name_existing){NULL, NULL};
  if (entry) *entry = NULL;
  if (policy == IRM_NAME_OVERRIDE && !counted(t)) policy = IRM_NAME_UNIQUE;
  int rc;
  name_undo *undo = undo_new(t, name, &rc);
  irm_name_entry *fresh = rc ? NULL : entry_new(name, value);
  if (!fresh) {
    irm_free(undo);
    return IRM_ENOMEM;
  }
  void *replaced = NULL;
  const char *replaced_plugin = NULL;
  int published = 0, replacing = 0;
  pthread_rwlock_wrlock(&t->lock);
  irm_name_entry *e = find_locked(t, name);
  if (e && policy != IRM_NAME_OVERRIDE) {
    rc = policy == IRM_NAME_UNIQUE ? IRM_EKEY : IRM_OK;
    if (existing) {
      *existing = (irm_name_existing){e->value, e->plugin};
      retain(t, e->value);
    }
  } else if (e) {
    replaced = e->value;
    replaced_plugin = e->plugin;
    replacing = 1;
    retain(t, value);
    e->value = value;
    e->plugin = fresh->plugin;
    published = 1;
  } else if ((rc = add_locked(t, fresh)) == IRM_OK) {
    retain(t, value); /* a counted value has another reference: no finalizer can run here */
    e = fresh;
    fresh = NULL;
    published = 1;
  }
  pthread_rwlock_unlock(&t->lock);
  irm_free(fresh);
  if (!published) {
    irm_free(undo);
    return rc;
  }
  if (entry) *entry = e;
  if (existing && replacing) {
    *existing = (irm_name_existing){replaced, replaced_plugin};
    retain(t, replaced);
  }
  if (undo) {
    undo->change = replacing ? NAME_REPLACED : NAME_ADDED;
    undo->added = value;
    retain(t, value);
    undo->replaced = replaced;
    undo->replaced_plugin = replaced_plugin;
    record(undo);
  } else {
    release(t, replaced);
  }
  return IRM_OK;
}

int irm_name_table_remove_(irm_name_table *t, const char *name) {
  int rc;
  name_undo *undo = undo_new(t, name, &rc);
  if (rc) return rc;
  pthread_rwlock_wrlock(&t->lock);
  irm_name_entry *e = find_locked(t, name);
  if (e) {
    HASH_DELETE(hh, t->entries, e);
    if (!counted(t)) set_aside_locked(t, e);
  }
  pthread_rwlock_unlock(&t->lock);
  if (!e) {
    irm_free(undo);
    return IRM_EKEY;
  }
  if (!counted(t) && t->hooks && t->hooks->detached) t->hooks->detached(e->value);
  if (undo) {
    undo->change = NAME_REMOVED;
    undo->removed = e;
    record(undo);
  } else if (counted(t)) {
    free_entry(t, e);
  }
  return IRM_OK;
}

/* ---- reading ------------------------------------------------------------------ */

void *irm_name_table_get_(irm_name_table *t, const char *name) {
  pthread_rwlock_rdlock(&t->lock);
  irm_name_entry *e = find_locked(t, name);
  void *value = e ? e->value : NULL;
  retain(t, value);
  pthread_rwlock_unlock(&t->lock);
  return value;
}

size_t irm_name_table_count_(irm_name_table *t) {
  pthread_rwlock_rdlock(&t->lock);
  size_t n = HASH_COUNT(t->entries);
  pthread_rwlock_unlock(&t->lock);
  return n;
}

int irm_name_table_closest_(irm_name_table *t, const char *name, char **best) {
  int rc = IRM_OK;
  *best = NULL;
  pthread_rwlock_rdlock(&t->lock);
  size_t n = HASH_COUNT(t->entries), i = 0;
  const char **names = irm_malloc((n ? n : 1) * sizeof *names);
  if (names) {
    for (irm_name_entry *e = t->entries; e; e = e->hh.next) names[i++] = e->name;
    const char *found = irm_closest_name(name, names, n);
    if (found && !(*best = irm_strdup(found))) rc = IRM_ENOMEM;
  } else {
    rc = IRM_ENOMEM;
  }
  pthread_rwlock_unlock(&t->lock);
  irm_free(names);
  return rc;
}

int irm_name_table_snapshot_(irm_name_table *t, irm_name_snapshot *out) {
  *out = (irm_name_snapshot){0, NULL, NULL, NULL};
  pthread_rwlock_rdlock(&t->lock);
  size_t n = HASH_COUNT(t->entries), chars = 0;
  for (irm_name_entry *e = t->entries; e; e = e->hh.next) chars += strlen(e->name) + 1;
  /* One block: names, values, plugins, then the name characters. */
  size_t slots = n ? n : 1;
  char *block = irm_malloc(3 * slots * sizeof(void *) + chars);
  if (block) {
    out->n = n;
    out->names = (const char **)block;
    out->values = (void **)(block + slots * sizeof(void *));
    out->plugins = (const char **)(block + 2 * slots * sizeof(void *));
    char *text = block + 3 * slots * sizeof(void *);
    size_t i = 0;
    for (irm_name_entry *e = t->entries; e; e = e->hh.next, i++) {
      size_t len = strlen(e->name) + 1;
      memcpy(text, e->name, len);
      out->names[i] = text;
      text += len;
      out->values[i] = e->value;
      retain(t, e->value);
      out->plugins[i] = e->plugin;
    }
  }
  pthread_rwlock_unlock(&t->lock);
  return block ? IRM_OK : IRM_ENOMEM;
}

void irm_name_snapshot_free_(irm_name_table *t, irm_name_snapshot *s) {
  for (size_t i = 0; s->names && i < s->n; i++) release(t, s->values[i]);
  irm_free((void *)s->names);
  *s = (irm_name_snapshot){0, NULL, NULL, NULL};
}

int irm_name_table_visit_(irm_name_table *t, int (*fn)(const irm_name_entry *e, void *ctx), void *ctx) {
  int rc = 0;
  pthread_rwlock_rdlock(&t->lock);
  for (irm_name_entry *e = t->entries; e && rc == 0; e = e->hh.next) rc = fn(e, ctx);
  pthread_rwlock_unlock(&t->lock);
  return rc;
}

const char *irm_name_by_plugin_(const char *plugin, char *buf, size_t size) {
  if (!plugin) return "";
  snprintf(buf, size, " (by plugin '%s')", plugin);
  return buf;
}
