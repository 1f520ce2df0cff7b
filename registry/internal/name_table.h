/* Private to libirm, for every layer: the name table every registry is
 * built on. A table maps names to values (void *) in insertion order,
 * behind a reader-writer lock that prefers writers. Each change made
 * while a registration journal is open on the thread is recorded in it,
 * so a rollback undoes it: an added name goes, a replaced value comes
 * back, a removed name returns (last in the order). Each entry remembers the plugin whose init
 * registered it, so a clash can name that plugin.
 *
 * Two kinds of table, chosen by the value hooks:
 * - counted (retain and release set): the table holds a reference to each
 *   value and drops it, after unlocking, when the value leaves the table;
 * - kept (release NULL): values live for the process and are never freed
 *   by the table; an entry that leaves the table is kept aside, so names
 *   and values handed out stay valid. Kept tables do not replace values.
 *
 * Status codes: IRM_EKEY and IRM_ENOMEM come back WITHOUT a message, since
 * each registry words its own ("global function 'x' is already
 * registered"); everything else about messages is the caller's.
 *
 * Threads: every function takes the table's lock itself; none runs a
 * value hook or other caller code under it except the visitor of
 * irm_name_table_visit_, which must not call back into the table. */
#ifndef IRM_REGISTRY_NAME_TABLE_H
#define IRM_REGISTRY_NAME_TABLE_H

#include <pthread.h>
#include <stddef.h>

#include "irm_internal.h" /* uthash on irm's allocator */

typedef struct irm_name_entry {
  UT_hash_handle hh; /* insertion order through hh.next */
  void *value;
  const char *plugin; /* the plugin whose init added it, or NULL */
  char name[];
} irm_name_entry;

typedef struct irm_name_hooks {
  void (*retain)(void *value);   /* counted tables: take a reference */
  void (*release)(void *value);  /* counted tables: drop one; NULL: a kept table */
  void (*detached)(void *value); /* kept tables, may be NULL: value left the table */
} irm_name_hooks;

typedef struct irm_name_table {
  pthread_rwlock_t lock;
  irm_name_entry *entries;
  irm_name_entry *detached; /* kept tables: entries that left, linked by hh.next */
  const irm_name_hooks *hooks;
} irm_name_table;

#define IRM_NAME_TABLE_INIT(hooks) \
  { PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP, NULL, NULL, (hooks) }

/* What irm_name_table_add_ does when the name is there already. */
typedef enum irm_name_policy {
  IRM_NAME_UNIQUE,   /* IRM_EKEY */
  IRM_NAME_OVERRIDE, /* replace the value (counted tables only) */
  IRM_NAME_EXISTING, /* keep the existing entry and report it, IRM_OK */
} irm_name_policy;

/* The entry a name already had. value is a NEW reference in counted
 * tables (release it), borrowed for the process in kept ones; NULL when
 * the name was free. plugin lives for the process. */
typedef struct irm_name_existing {
  void *value;
  const char *plugin;
} irm_name_existing;

/* Starts a table made at run time, like IRM_NAME_TABLE_INIT. */
void irm_name_table_init_(irm_name_table *t, const irm_name_hooks *hooks);

/* Frees every entry and detached entry (releasing counted values) and the
 * lock. Only for tables nobody uses any more and no open journal records. */
void irm_name_table_destroy_(irm_name_table *t);

/* Adds name -> value (value borrowed: a counted table retains it; a kept
 * table owns it from then on). On a name already there, policy decides;
 * *existing (may be NULL) then tells what was there. *entry (may be NULL)
 * receives the new entry, valid while it stays in the table (for the
 * process in kept tables). IRM_OK, IRM_EKEY or IRM_ENOMEM; a failure
 * changes nothing and records nothing. */
int irm_name_table_add_(irm_name_table *t, const char *name, void *value, irm_name_policy policy,
                        irm_name_existing *existing, irm_name_entry **entry);

/* Removes name; its value is released after unlocking (counted) or kept
 * aside (kept). IRM_OK, IRM_EKEY (no such name) or IRM_ENOMEM. */
int irm_name_table_remove_(irm_name_table *t, const char *name);

/* The value of name (a NEW reference in counted tables), NULL if absent. */
void *irm_name_table_get_(irm_name_table *t, const char *name);

/* The number of names. */
size_t irm_name_table_count_(irm_name_table *t);

/* The registered name closest to name (irm_closest_name) into *best as a
 * NEW string (irm_free it), NULL when none is close. IRM_ENOMEM (no message
 * set) when memory is short: a suggestion is never dropped silently. */
int irm_name_table_closest_(irm_name_table *t, const char *name, char **best);

/* The entries in insertion order, as copies: names[i] and plugins[i]
 * (borrowed for the process) and values[i] (NEW references in counted
 * tables). Free with irm_name_snapshot_free_. */
typedef struct irm_name_snapshot {
  size_t n;
  const char **names;
  void **values;
  const char **plugins;
} irm_name_snapshot;

int irm_name_table_snapshot_(irm_name_table *t, irm_name_snapshot *out);
void irm_name_snapshot_free_(irm_name_table *t, irm_name_snapshot *s);

/* Calls fn on each entry in insertion order under the read lock, stopping
 * at the first nonzero result, which it returns. fn is library code that
 * neither blocks nor touches the table. */
int irm_name_table_visit_(irm_name_table *t, int (*fn)(const irm_name_entry *e, void *ctx), void *ctx);

/* " (by plugin 'p')" when plugin is set, "" otherwise: for clash messages. */
const char *irm_name_by_plugin_(const char *plugin, char *buf, size_t size);

/* The name of the plugin whose init (or deferred registrations) this
 * thread is running, or NULL (plugin.c). */
const char *irm_plugin_current_name_(void);

#endif
