/* Reference counting and the runtime type registry.
 *
 * Types live in a table of fixed-size chunks that never move, so the hot
 * paths (release, type checks) read an entry by index without a lock. Keys
 * are found through a uthash table under a reader-writer lock; a type's
 * former keys (irm_type_info.former_keys) sit in the same table, pointing
 * at the same index, so every look-up by key resolves them alike. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "builtin_types.h"
#include "error_internal.h"
#include "irm/error.h"
#include "irm/journal.h"
#include "journal_internal.h"
#include "builtins.h"
#include "lazy.h"
#include "object_internal.h"
#include "uthash_irm.h"

/* ThreadSanitizer does not model a standalone fence (gcc says
 * __SANITIZE_THREAD__, clang __has_feature). */
#if defined(__SANITIZE_THREAD__)
#define IRM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define IRM_TSAN 1
#endif
#endif

#define TYPE_CHUNK 64
#define TYPE_CHUNKS 1024 /* up to 65 536 types */

typedef struct type_entry {
  irm_type_info info; /* info.type_key points at key, info.former_keys at former */
  char *key;
  char **former;  /* NULL-terminated copies of the former keys; NULL when none */
  int32_t parent; /* -1 for the root */
  int32_t depth;  /* 0 for the root */
} type_entry;

typedef struct key_entry {
  UT_hash_handle hh; /* hh.key: the entry's key or one of its former keys */
  int32_t index;
  int former; /* nonzero for a former key */
} key_entry;

#define BUILTIN(idx, k, fin)                                                                  \
  [idx] = {.info = {sizeof(irm_type_info), k, NULL, fin, NULL, NULL, NULL, NULL, NULL, NULL}, \
           .key = (char *)k,                                                                  \
           .parent = IRM_TYPE_OBJECT,                                                         \
           .depth = 1}

static type_entry builtin_chunk[TYPE_CHUNK] = {
    [IRM_TYPE_OBJECT] = {.info = {sizeof(irm_type_info), "ffi.Object", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
                         .key = (char *)"ffi.Object",
                         .parent = -1,
                         .depth = 0},
    BUILTIN(IRM_TYPE_STRING, "ffi.String", NULL),
    BUILTIN(IRM_TYPE_ARRAY, "ffi.Array", irm_array_finalize_),
    BUILTIN(IRM_TYPE_MAP, "ffi.Map", irm_map_finalize_),
    BUILTIN(IRM_TYPE_FUNCTION, "ffi.Function", irm_function_finalize_),
    BUILTIN(IRM_TYPE_NATIVE_CLOSURE, "ffi.NativeClosure", irm_closure_finalize_),
};

static type_entry *_Atomic chunks[TYPE_CHUNKS] = {builtin_chunk};
static _Atomic int32_t type_count = IRM_TYPE_FIRST_DYNAMIC;

static pthread_rwlock_t key_lock = PTHREAD_RWLOCK_INITIALIZER;
static key_entry *keys; /* key -> index, for registered (not rolled back) types */
static irm_lazy keys_lazy = IRM_LAZY_INIT;

static type_entry *entry_at(int32_t index) {
  if (index < 0 || index >= atomic_load_explicit(&type_count, memory_order_acquire)) return NULL;
  type_entry *chunk = atomic_load_explicit(&chunks[index / TYPE_CHUNK], memory_order_acquire);
  if (!chunk) return NULL;
  type_entry *e = &chunk[index % TYPE_CHUNK];
  return e->key ? e : NULL;
}

/* ---- reference counting ------------------------------------------------ */

/* Objects whose count reached zero wait here, so finalizers that release
 * children never recurse: the outermost release drains the list. */
static _Thread_local irm_object *dead_head __attribute__((tls_model("initial-exec")));
static _Thread_local int draining __attribute__((tls_model("initial-exec")));

void irm_object_retain(irm_object *o) {
  if (o) atomic_fetch_add_explicit(&o->refcount, 1, memory_order_relaxed);
}

static void destroy(irm_object *o) {
  type_entry *e = entry_at(o->type_index);
  if (e && e->info.finalize) e->info.finalize(o);
  irm_free(o);
}

void irm_object_release(irm_object *o) {
  if (!o) return;
  if (atomic_fetch_sub_explicit(&o->refcount, 1, memory_order_release) != 1) return;
    /* The last owner must see every other owner's writes before finalizing.
   * An acquire fence does that at no cost on the common path; TSan cannot
   * see through fences, so under TSan an acquire load of the counter (the
   * same ordering, as Rust's Arc does) makes the release path report-free. */
#ifdef IRM_TSAN
  (void)atomic_load_explicit(&o->refcount, memory_order_acquire);
#else
  atomic_thread_fence(memory_order_acquire);
#endif
  o->dead_next = dead_head;
  dead_head = o;
  if (draining) return;
  draining = 1;
  while ((o = dead_head) != NULL) {
    dead_head = o->dead_next;
    destroy(o);
  }
  draining = 0;
}

uint32_t irm_object_refcount(const irm_object *o) {
  return o ? atomic_load_explicit(&((irm_object *)o)->refcount, memory_order_acquire) : 0;
}

int irm_object_alloc_(int32_t type_index, size_t total_size, irm_object **out) {
  irm_object *o = irm_calloc(1, total_size);
  if (!o)
    return irm_error(IRM_ENOMEM, "out of memory creating a %s object",
                     irm_type_key(type_index) ? irm_type_key(type_index) : "?");
  atomic_init(&o->refcount, 1);
  o->type_index = type_index;
  *out = o;
  return IRM_OK;
}

int irm_object_new(int32_t type_index, size_t payload_size, irm_object **out) {
  if (!out) return irm_error(IRM_EVALUE, "irm_object_new: out must not be NULL");
  *out = NULL;
  if (!entry_at(type_index)) return irm_error(IRM_EKEY, "irm_object_new: no type with index %d", (int)type_index);
  if (payload_size > SIZE_MAX - IRM_PAYLOAD_OFFSET_)
    return irm_error(IRM_EVALUE, "irm_object_new: payload size %zu is too large", payload_size);
  return irm_object_alloc_(type_index, IRM_PAYLOAD_OFFSET_ + payload_size, out);
}

void *irm_object_payload(irm_object *o) { return o ? (char *)o + IRM_PAYLOAD_OFFSET_ : NULL; }

const void *irm_object_payload_const(const irm_object *o) { return o ? (const char *)o + IRM_PAYLOAD_OFFSET_ : NULL; }

int32_t irm_object_type_index(const irm_object *o) { return o ? o->type_index : -1; }

const char *irm_object_type_key(const irm_object *o) { return o ? irm_type_key(o->type_index) : NULL; }

/* ---- type registry ----------------------------------------------------- */

const char *irm_type_key(int32_t type_index) {
  type_entry *e = entry_at(type_index);
  return e ? e->key : NULL;
}

const irm_type_info *irm_type_info_of(int32_t type_index) {
  type_entry *e = entry_at(type_index);
  return e ? &e->info : NULL;
}

int irm_type_is_subtype(int32_t type_index, int32_t ancestor) {
  type_entry *a = entry_at(ancestor);
  type_entry *e = entry_at(type_index);
  if (!a || !e) return 0;
  while (e && e->depth > a->depth) e = entry_at(e->parent);
  return e == a;
}

/* key must live as long as the entry (a type entry's own strings do). */
static int key_insert_locked(const char *key, int32_t index, int former) {
  int irm_hash_oom = 0;
  key_entry *k = irm_malloc(sizeof *k);
  if (!k) return IRM_ENOMEM;
  k->index = index;
  k->former = former;
  HASH_ADD_KEYPTR(hh, keys, key, strlen(key), k);
  if (irm_hash_oom) {
    irm_free(k);
    return IRM_ENOMEM;
  }
  return IRM_OK;
}

static key_entry *key_get_locked(const char *key) {
  key_entry *k = NULL;
  HASH_FIND_STR(keys, key, k);
  return k;
}

static int32_t key_find_locked(const char *key) {
  key_entry *k = key_get_locked(key);
  return k ? k->index : -1;
}

/* Drops key if it names index (a key registered again since is kept). */
static void key_remove_locked(const char *key, int32_t index) {
  key_entry *k = key_get_locked(key);
  if (k && k->index == index) {
    HASH_DEL(keys, k);
    irm_free(k);
  }
}

/* Drops the key and every former key of the type at index. */
static void keys_remove_locked(const char *key, char *const *former, int32_t index) {
  key_remove_locked(key, index);
  for (size_t i = 0; former && former[i]; i++) key_remove_locked(former[i], index);
}

/* Indexes the built-in keys; re-runnable after running out of memory. */
static int keys_init(void) {
  int rc = IRM_OK;
  pthread_rwlock_wrlock(&key_lock);
  for (int32_t i = 0; i < IRM_TYPE_FIRST_DYNAMIC && rc == IRM_OK; i++)
    if (builtin_chunk[i].key && key_find_locked(builtin_chunk[i].key) < 0)
      rc = key_insert_locked(builtin_chunk[i].key, i, 0);
  pthread_rwlock_unlock(&key_lock);
  return rc ? irm_error_nomem_("starting the type registry") : IRM_OK;
}

static int keys_ready(void) { return irm_lazy_run_(&keys_lazy, keys_init); }

/* Finds a key: its index, or -1 when absent. *rc receives the status of
 * starting the registry (built-in types of every layer come first). */
static int32_t key_lookup(const char *key, int *rc) {
  if ((*rc = keys_ready()) != IRM_OK || (*rc = irm_builtins_ready_()) != IRM_OK) return -1;
  pthread_rwlock_rdlock(&key_lock);
  int32_t idx = key_find_locked(key);
  pthread_rwlock_unlock(&key_lock);
  return idx;
}

/* KeyError "no type 'x' (did you mean 'y'?)" built from the registered
 * keys; a typo of a former key suggests the type's current key. */
static int unknown_type_error(const char *what, const char *key) {
  const char **names = NULL;
  size_t n = 0;
  pthread_rwlock_rdlock(&key_lock);
  size_t total = HASH_COUNT(keys);
  if (!total) total = 1;
  /* names, then the index each names (int32_t needs no more alignment) */
  names = irm_malloc(total * (sizeof *names + sizeof(int32_t)));
  int32_t *owners = names ? (int32_t *)(void *)(names + total) : NULL;
  if (names) {
    for (key_entry *k = keys; k; k = k->hh.next) {
      owners[n] = k->index;
      names[n++] = k->hh.key;
    }
  }
  const char *best = names ? irm_closest_name(key, names, n) : NULL;
  for (size_t i = 0; best && i < n; i++)
    if (names[i] == best) {
      best = entry_at(owners[i])->key;
      break;
    }
  /* best points into a type entry, which lives forever; safe after unlock */
  pthread_rwlock_unlock(&key_lock);
  if (!names) return irm_error_nomem_("reporting an unknown type");
  irm_free(names);
  if (best)
    return irm_error(IRM_EKEY, "%s '%s' is not registered (did you mean '%s'?)", what, irm_error_quote(key), best);
  return irm_error(IRM_EKEY, "%s '%s' is not registered", what, irm_error_quote(key));
}

int irm_type_find(const char *type_key, int32_t *out_index) {
  if (!type_key || !out_index) return irm_error(IRM_EVALUE, "irm_type_find: type_key and out_index must not be NULL");
  int rc;
  int32_t idx = key_lookup(type_key, &rc);
  if (rc) return rc;
  if (idx < 0) return unknown_type_error("type", type_key);
  *out_index = idx;
  return IRM_OK;
}

int irm_object_is(const irm_object *o, const char *type_key) {
  if (!o || !type_key) return 0;
  type_entry *e = entry_at(o->type_index);
  /* Fast path: the object's own type, then a walk up the parents; each
   * with its former keys, if any. */
  while (e) {
    if (strcmp(e->key, type_key) == 0) return 1;
    for (char **f = e->former; f && *f; f++)
      if (strcmp(*f, type_key) == 0) return 1;
    e = e->parent >= 0 ? entry_at(e->parent) : NULL;
  }
  return 0;
}

/* Journal undo: the key and the former keys disappear; the entry stays,
 * since objects of the type may still be alive and reach it by index. */
static void type_unregister(void *data) {
  int32_t index = (int32_t)(intptr_t)data;
  type_entry *e = entry_at(index);
  if (!e) return;
  pthread_rwlock_wrlock(&key_lock);
  keys_remove_locked(e->key, e->former, index);
  pthread_rwlock_unlock(&key_lock);
}

/* The former keys of info; NULL when none or when its struct_size stops
 * before the field (a caller built against an older header). */
static const char *const *former_keys_of(const irm_type_info *info) {
  size_t end = offsetof(irm_type_info, former_keys) + sizeof info->former_keys;
  return info->struct_size >= end ? info->former_keys : NULL;
}

static int check_type_info(const irm_type_info *info, int32_t *out_index) {
  if (!info || !out_index) return irm_error(IRM_EVALUE, "irm_type_register: info and out_index must not be NULL");
  if (info->struct_size < offsetof(irm_type_info, to_fields))
    return irm_error(IRM_EVALUE,
                     "irm_type_register: struct_size %u is smaller than the oldest "
                     "supported irm_type_info (%zu bytes)",
                     (unsigned)info->struct_size, offsetof(irm_type_info, to_fields));
  if (!info->type_key || !info->type_key[0])
    return irm_error(IRM_EVALUE, "irm_type_register: type_key must be a non-empty string");
  const char *const *former = former_keys_of(info);
  for (size_t i = 0; former && former[i]; i++) {
    if (!former[i][0])
      return irm_error(IRM_EVALUE, "irm_type_register: former key %zu of type '%s' is empty", i,
                       irm_error_quote(info->type_key));
    if (!strcmp(former[i], info->type_key))
      return irm_error(IRM_EVALUE, "irm_type_register: type '%s' lists its own key as a former key",
                       irm_error_quote(info->type_key));
    for (size_t j = 0; j < i; j++)
      if (!strcmp(former[i], former[j]))
        return irm_error(IRM_EVALUE, "irm_type_register: former key '%s' of type '%s' appears twice",
                         irm_error_quote(former[i]), irm_error_quote(info->type_key));
  }
  return IRM_OK;
}

static void free_former(char **former) {
  for (size_t i = 0; former && former[i]; i++) irm_free(former[i]);
  irm_free(former);
}

/* Copies a NULL-terminated key list; *out NULL when there is none. */
static int copy_former(const char *const *src, char ***out) {
  size_t n = 0;
  while (src && src[n]) n++;
  *out = NULL;
  if (!n) return IRM_OK;
  char **copy = irm_calloc(n + 1, sizeof *copy);
  for (size_t i = 0; copy && i < n; i++)
    if (!(copy[i] = irm_strdup(src[i]))) {
      free_former(copy);
      copy = NULL;
    }
  if (!copy) return IRM_ENOMEM;
  *out = copy;
  return IRM_OK;
}

/* Registers key and each former key for index; all or none. */
static int insert_keys_locked(const char *key, char *const *former, int32_t index) {
  if (key_insert_locked(key, index, 0)) return IRM_ENOMEM;
  for (size_t i = 0; former && former[i]; i++)
    if (key_insert_locked(former[i], index, 1)) {
      keys_remove_locked(key, former, index);
      return IRM_ENOMEM;
    }
  return IRM_OK;
}

/* Claims the next slot, allocating its chunk when needed. Caller holds the
 * write lock. */
static int32_t claim_slot_locked(void) {
  int32_t index = atomic_load_explicit(&type_count, memory_order_relaxed);
  if (index >= TYPE_CHUNK * TYPE_CHUNKS) return -1;
  if (!chunks[index / TYPE_CHUNK]) {
    type_entry *chunk = irm_calloc(TYPE_CHUNK, sizeof *chunk);
    if (!chunk) return -2;
    atomic_store_explicit(&chunks[index / TYPE_CHUNK], chunk, memory_order_release);
  }
  return index;
}

int irm_type_register(const irm_type_info *info, int32_t *out_index) {
  int rc = check_type_info(info, out_index);
  if (rc) return rc;
  const char *parent_key = info->parent_key ? info->parent_key : "ffi.Object";
  if ((rc = keys_ready())) return rc;
  /* Room in the journal first, so recording after the change cannot fail. */
  if ((rc = irm_journal_reserve_(1))) return rc;
  char *key = irm_strdup(info->type_key);
  char **former = NULL;
  if (!key || copy_former(former_keys_of(info), &former)) {
    irm_free(key);
    return irm_error_nomem_("registering a type");
  }

  pthread_rwlock_wrlock(&key_lock);
  int32_t parent = key_find_locked(parent_key);
  const key_entry *existing = key_get_locked(key), *taken = NULL;
  const char *taken_key = NULL;
  for (size_t i = 0; former && former[i] && !existing && !taken; i++)
    if ((taken = key_get_locked(former[i]))) taken_key = info->former_keys[i];
  /* copies of what an error reports, read under the lock */
  int32_t existing_index = existing ? existing->index : -1, taken_index = taken ? taken->index : -1;
  int existing_former = existing && existing->former, taken_former = taken && taken->former;
  int32_t index = parent >= 0 && !existing && !taken ? claim_slot_locked() : -3;
  if (index >= 0) {
    type_entry *e = &chunks[index / TYPE_CHUNK][index % TYPE_CHUNK];
    size_t n = info->struct_size < sizeof e->info ? info->struct_size : sizeof e->info;
    memcpy(&e->info, info, n);
    e->info.struct_size = sizeof e->info;
    e->info.type_key = key;
    e->info.parent_key = entry_at(parent)->key;
    e->info.former_keys = (const char *const *)former;
    e->former = former;
    e->parent = parent;
    e->depth = entry_at(parent)->depth + 1;
    if (insert_keys_locked(key, former, index) != IRM_OK) {
      memset(e, 0, sizeof *e);
      index = -2;
    } else {
      e->key = key; /* publish: entry_at now sees it */
      atomic_store_explicit(&type_count, index + 1, memory_order_release);
    }
  }
  pthread_rwlock_unlock(&key_lock);

  if (index < 0) {
    irm_free(key);
    free_former(former);
    if (existing_index >= 0 && existing_former)
      return irm_error(IRM_EKEY, "type '%s' is already registered: it is a former key of type '%s' (index %d)",
                       irm_error_quote(info->type_key), irm_type_key(existing_index), (int)existing_index);
    if (existing_index >= 0)
      return irm_error(IRM_EKEY, "type '%s' is already registered (index %d)", irm_error_quote(info->type_key),
                       (int)existing_index);
    if (taken_index >= 0)
      return irm_error(IRM_EKEY, "type '%s': former key '%s' already names type '%s'%s (index %d)",
                       irm_error_quote(info->type_key), irm_error_quote(taken_key), irm_type_key(taken_index),
                       taken_former ? " as one of its former keys" : "", (int)taken_index);
    if (parent < 0) return unknown_type_error("parent type", parent_key);
    if (index == -1) return irm_error(IRM_ERUNTIME, "too many types registered (limit %d)", TYPE_CHUNK * TYPE_CHUNKS);
    return irm_error_nomem_("registering a type");
  }
  (void)irm_journal_record(type_unregister, NULL, (void *)(intptr_t)index); /* reserved */
  *out_index = index;
  return IRM_OK;
}

int irm_type_ensure(const irm_type_info *info, int32_t *out_index) {
  int rc = check_type_info(info, out_index);
  if (rc) return rc;
  int32_t index = key_lookup(info->type_key, &rc);
  if (rc) return rc;
  if (index >= 0) {
    *out_index = index;
    return IRM_OK;
  }
  return irm_type_register(info, out_index);
}

int irm_type_ensure_into_(const irm_type_info *info, _Atomic int32_t *slot) {
  int32_t index = -1;
  int rc = irm_type_ensure(info, &index);
  if (!rc) atomic_store_explicit(slot, index, memory_order_release);
  return rc;
}
