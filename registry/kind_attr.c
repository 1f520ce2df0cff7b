/* Kind attributes with priority levels (kind.h), journaled like every
 * registration: undo restores the value (and level) that was there. */
#include <string.h>

#include "error_internal.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "journal_internal.h"
#include "kind_internal.h"

typedef struct attr_undo {
  irm_kind *kind;
  int had_previous;
  irm_any previous; /* owned while held here */
  int previous_plevel;
  int plevel;     /* the level this change left, to know it is still ours */
  int was_set;    /* 1: set_attr, 0: reset */
  int added_name; /* the category learned the attribute name here */
  char name[];
} attr_undo;

_Atomic uint64_t irm_kind_generation_ = 1;

/* Under the kind lock, after a change. */
static void attrs_changed(void) { atomic_fetch_add_explicit(&irm_kind_generation_, 1, memory_order_release); }

static attr_value *value_find(const irm_kind *k, const char *attr) {
  attr_value *v = NULL;
  HASH_FIND_STR(k->attrs, attr, v);
  return v;
}

static attr_name *name_find(const category *c, const char *attr) {
  attr_name *n = NULL;
  HASH_FIND_STR(c->attr_names, attr, n);
  return n;
}

static int kind_has_attr(const irm_name_entry *e, void *attr) { return value_find(e->value, attr) != NULL; }

static int name_in_use(category *c, const char *attr) {
  return irm_name_table_visit_(&c->kinds, kind_has_attr, (void *)attr);
}

void irm_kind_forget_attr_names_locked_(irm_kind *gone) {
  attrs_changed(); /* the kind leaves: caches of its attributes go stale */
  category *c = gone->cat;
  for (attr_value *v = gone->attrs; v; v = v->hh.next) {
    attr_name *n = name_find(c, v->name);
    if (n && !name_in_use(c, v->name)) {
      HASH_DEL(c->attr_names, n);
      irm_free(n);
    }
  }
}

/* ---- undo ------------------------------------------------------------------- */

static void attr_undo_run(void *data) {
  attr_undo *u = data;
  irm_any drop = irm_any_none();
  attr_value *dead = NULL;
  attr_name *dead_name = NULL;
  pthread_rwlock_wrlock(&irm_kind_lock_);
  attr_value *v = value_find(u->kind, u->name);
  int ours = u->was_set ? v && v->plevel == u->plevel : v == NULL;
  if (ours && u->had_previous) {
    if (!v) { /* undoing a reset: the entry we removed is kept in previous */
      v = irm_calloc(1, sizeof *v + strlen(u->name) + 1);
      if (v) {
        int irm_hash_oom = 0;
        strcpy(v->name, u->name);
        HASH_ADD_STR(u->kind->attrs, name, v);
        if (irm_hash_oom) {
          irm_free(v);
          v = NULL;
        }
      }
    } else {
      drop = v->value;
    }
    if (v) {
      v->value = u->previous;
      v->plevel = u->previous_plevel;
      u->previous = irm_any_none();
    }
  } else if (ours && v) {
    HASH_DEL(u->kind->attrs, v);
    drop = v->value;
    dead = v;
  }
  if (u->added_name && !name_in_use(u->kind->cat, u->name) && (dead_name = name_find(u->kind->cat, u->name)))
    HASH_DEL(u->kind->cat->attr_names, dead_name);
  attrs_changed();
  pthread_rwlock_unlock(&irm_kind_lock_);
  irm_any_release(&drop);
  irm_free(dead);
  irm_free(dead_name);
}

static void attr_undo_dispose(void *data) {
  attr_undo *u = data;
  irm_any_release(&u->previous);
  irm_free(u);
}

/* ---- set / reset / get ------------------------------------------------------ */

/* What set_attr prepares outside the lock, so the locked part cannot fail
 * for lack of memory except in uthash's own tables. */
typedef struct attr_change {
  irm_any value;
  attr_value *fresh;
  attr_name *fresh_name;
  attr_undo *undo;
} attr_change;

static void change_free(attr_change *c) {
  irm_any_release(&c->value);
  irm_free(c->fresh);
  irm_free(c->fresh_name);
  if (c->undo) attr_undo_dispose(c->undo);
}

static int change_prepare(const char *attr, const irm_any *value, attr_change *c) {
  size_t len = strlen(attr);
  memset(c, 0, sizeof *c);
  int rc = value ? irm_any_copy(value, &c->value) : IRM_OK;
  if (rc) return rc;
  c->fresh = irm_calloc(1, sizeof *c->fresh + len + 1);
  c->fresh_name = irm_calloc(1, sizeof *c->fresh_name + len + 1);
  if (irm_journal_active()) c->undo = irm_calloc(1, sizeof *c->undo + len + 1);
  if (!c->fresh || !c->fresh_name || (irm_journal_active() && (!c->undo || irm_journal_reserve_(1)))) {
    change_free(c);
    return irm_error_nomem_("setting a kind attribute");
  }
  memcpy(c->fresh->name, attr, len + 1);
  memcpy(c->fresh_name->name, attr, len + 1);
  if (c->undo) memcpy(c->undo->name, attr, len + 1);
  return IRM_OK;
}

/* Applies a set under the write lock: the value moves from c into the
 * registry, and the value it replaces into c's undo record, or into *old
 * for the caller to release after the lock. Returns 0, IRM_EKEY (same
 * level), IRM_ENOMEM, or 1 when a lower level is ignored. */
static int apply_set_locked(irm_kind *kind, const char *attr, int plevel, attr_change *c, irm_any *old) {
  int irm_hash_oom = 0;
  attr_value *v = value_find(kind, attr);
  if (v && v->plevel == plevel) return IRM_EKEY;
  if (v && v->plevel > plevel) return 1;
  if (!name_find(kind->cat, attr)) {
    HASH_ADD_STR(kind->cat->attr_names, name, c->fresh_name);
    if (irm_hash_oom) return IRM_ENOMEM;
    c->fresh_name = NULL;
    if (c->undo) c->undo->added_name = 1;
  }
  int existed = v != NULL;
  if (!v) {
    HASH_ADD_STR(kind->attrs, name, c->fresh);
    if (irm_hash_oom) return IRM_ENOMEM; /* the name stays known: harmless */
    v = c->fresh;
    c->fresh = NULL;
    v->value = irm_any_none();
  }
  if (c->undo) {
    c->undo->had_previous = existed;
    c->undo->previous = v->value;
    c->undo->previous_plevel = v->plevel;
  } else {
    *old = v->value;
  }
  v->value = c->value;
  v->plevel = plevel;
  c->value = irm_any_none();
  return 0;
}

int irm_kind_set_attr(irm_kind *kind, const char *attr, const irm_any *value, int plevel) {
  if (!kind || !attr || !attr[0] || !value)
    return irm_error(IRM_EVALUE, "irm_kind_set_attr: kind, a non-empty attr and value must be given");
  attr_change c;
  int rc = change_prepare(attr, value, &c);
  if (rc) return rc;
  irm_any old = irm_any_none();
  pthread_rwlock_wrlock(&irm_kind_lock_);
  rc = kind->detached ? IRM_ERUNTIME : apply_set_locked(kind, attr, plevel, &c, &old);
  attrs_changed();
  pthread_rwlock_unlock(&irm_kind_lock_);
  irm_any_release(&old); /* outside the lock: a finalizer is user code */
  if (rc == 0 && c.undo) {
    c.undo->kind = kind;
    c.undo->plevel = plevel;
    c.undo->was_set = 1;
    (void)irm_journal_record(attr_undo_run, attr_undo_dispose, c.undo);
    c.undo = NULL;
  }
  change_free(&c);
  if (rc == IRM_ERUNTIME) return irm_kind_detached_error_(kind);
  if (rc == IRM_EKEY)
    return irm_error(IRM_EKEY,
                     "attribute '%s' of %s '%s' is already set at level %d; use a higher level to "
                     "replace it",
                     irm_error_quote(attr), kind->cat->name, kind->name, plevel);
  if (rc == IRM_ENOMEM) return irm_error_nomem_("setting a kind attribute");
  return IRM_OK; /* 1: a lower level is ignored, as in TVM */
}

int irm_kind_reset_attr(irm_kind *kind, const char *attr) {
  if (!kind || !attr) return irm_error(IRM_EVALUE, "irm_kind_reset_attr: kind and attr must not be NULL");
  attr_change c;
  int rc = change_prepare(attr, NULL, &c);
  if (rc) return rc;
  pthread_rwlock_wrlock(&irm_kind_lock_);
  attr_value *v = kind->detached ? NULL : value_find(kind, attr);
  if (v) HASH_DEL(kind->attrs, v);
  attrs_changed();
  pthread_rwlock_unlock(&irm_kind_lock_);
  if (v && c.undo) {
    c.undo->kind = kind;
    c.undo->had_previous = 1;
    c.undo->previous = v->value;
    c.undo->previous_plevel = v->plevel;
    (void)irm_journal_record(attr_undo_run, attr_undo_dispose, c.undo);
    c.undo = NULL;
  } else if (v) {
    irm_any_release(&v->value);
  }
  irm_free(v);
  change_free(&c);
  return kind->detached ? irm_kind_detached_error_(kind) : IRM_OK;
}

/* AttributeError for an attribute no kind of the category has set. */
static int unknown_attr_error(const irm_kind *kind, const char *attr) {
  size_t n = HASH_COUNT(kind->cat->attr_names), i = 0;
  const char **names = irm_malloc((n ? n : 1) * sizeof *names);
  const char *best = NULL;
  if (names) {
    for (attr_name *a = kind->cat->attr_names; a; a = a->hh.next) names[i++] = a->name;
    best = irm_closest_name(attr, names, n);
  } else {
    return irm_error_nomem_("reporting an unknown attribute");
  }
  int rc = best ? irm_error(IRM_EATTR, "no %s kind has attribute '%s' (did you mean '%s'?)", kind->cat->name,
                            irm_error_quote(attr), best)
                : irm_error(IRM_EATTR, "no %s kind has attribute '%s'", kind->cat->name, irm_error_quote(attr));
  irm_free(names);
  return rc;
}

int irm_kind_get_attr(const irm_kind *kind, const char *attr, irm_any *out) {
  if (!kind || !attr || !out) return irm_error(IRM_EVALUE, "irm_kind_get_attr: kind, attr and out must not be NULL");
  *out = irm_any_none();
  int rc = IRM_OK;
  pthread_rwlock_rdlock(&irm_kind_lock_);
  if (!name_find(kind->cat, attr)) rc = unknown_attr_error(kind, attr);
  else {
    const attr_value *v = value_find(kind, attr);
    if (v) rc = irm_any_copy(&v->value, out);
  }
  pthread_rwlock_unlock(&irm_kind_lock_);
  return rc;
}
