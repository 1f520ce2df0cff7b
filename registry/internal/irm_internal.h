/* Private to libirm: the one header of layer 0's internals that upper layers
 * (ir/, passes/, lib/) may include. Its folder is the only one of layer 0's
 * private folders on their include path, so anything else in registry/ stays
 * out of their reach (tests/layers checks it too). Add here only what an
 * upper layer truly needs, as a function or an accessor, never a struct of
 * layer 0 beyond the object header. */
#ifndef IRM_REGISTRY_IRM_INTERNAL_H
#define IRM_REGISTRY_IRM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "irm/alloc.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/kind.h"

/* ---- errors ---------------------------------------------------------------- */

/* "MemoryError: out of memory <what>"; returns IRM_ENOMEM. */
int irm_error_nomem_(const char *what);

/* The library's way to warn: once per process for each distinct text (so a
 * pipeline run a thousand times warns once), under the warnings policy.
 * IRM_OK; IRM_ENOMEM (no message set) when the text could not be made;
 * IRM_ERUNTIME with the message set under IRM_WARNINGS_ERROR, which callers
 * that can fail pass on. A deprecation starts its text with
 * IRM_DEPRECATION_PREFIX. */
int irm_warn_unique_(const char *fmt, ...) IRM_PRINTF_(1, 2);

/* The context a global adds to the error of the work it did: "<fn>: " in
 * front, standing in for the name of the C API function that failed when
 * the message starts with one ("irm_module_new: function 'f': ..." becomes
 * "ir.IRModule: function 'f': ..."), since the caller called fn, not that
 * function. Returns code (IRM_ENOMEM when the message is lost). */
int irm_error_context_global_(int code, const char *fn);

/* How a message names a value given where another type was expected
 * ("expected int, got str 'four'"): "int 4", "float 0.5", "bool true",
 * "str '...'" (for a str and an ffi.String), "none", "ptr", or an object's
 * type key ("ffi.Map"). A text is quoted as irm_error_quote cuts it (its
 * first IRM_ERROR_QUOTE_MAX bytes, whole characters, then "...") and
 * escaped so that the message stays valid UTF-8 on one line: \' and \\,
 * \n \t \r, and \xNN for other control bytes and bytes that are not
 * UTF-8. Borrowed: static, or a thread-local buffer valid until the second
 * next call on the calling thread. Never fails. (registry/any.c) */
const char *irm_any_describe_(const irm_any *v);

/* ---- UTF-8 (registry/string.c) ---------------------------------------------- */

/* Offset of the first byte of s[0..len) that is not UTF-8 as JSON (jansson)
 * accepts it: shortest forms, no surrogates, at most U+10FFFF; len when all
 * of it is. Text parsers check their input with it, so what parses can be
 * saved as JSON. */
size_t irm_utf8_invalid_at_(const char *s, size_t len);

/* IRM_OK when the NUL-terminated text is UTF-8, else "ValueError: <what> is
 * not valid UTF-8 (byte 0xNN at offset K)", returning IRM_EVALUE. The text
 * itself is not quoted: the message stays valid UTF-8. */
int irm_utf8_check_(const char *what, const char *text);

/* ---- objects ------------------------------------------------------------- */

/* The header every object starts with: 16 bytes, so a payload that follows
 * is aligned for any C type. dead_next links objects waiting to be finalized
 * (see irm_object_release). Upper layers read only type_index, through
 * irm_is_type_ and irm_payload_if_type_. */
struct irm_object {
  _Atomic uint32_t refcount;
  int32_t type_index;
  struct irm_object *dead_next;
};

/* The payload offset of objects made by irm_object_new. */
#define IRM_PAYLOAD_OFFSET_ sizeof(struct irm_object)

static inline int irm_is_type_(const irm_object *o, int32_t type_index) {
  return o != NULL && o->type_index == type_index;
}

/* irm_type_ensure, then the index published in *slot (release order): how
 * every built-in type registers. Errors as irm_type_ensure; *slot is left
 * as it was on error. */
int irm_type_ensure_into_(const irm_type_info *info, _Atomic int32_t *slot);

/* The payload of o when o's type is exactly *type, else NULL. Inline:
 * reading an attribute is a hot path, and the exported accessors cost a call
 * each. *type is a type index set once at registration (-1 before). */
static inline const void *irm_payload_if_type_(const irm_object *o, _Atomic int32_t *type) {
  int32_t t = atomic_load_explicit(type, memory_order_relaxed); /* set before any such object exists */
  return t >= 0 && irm_is_type_(o, t) ? (const char *)o + IRM_PAYLOAD_OFFSET_ : NULL;
}

/* The packed C function and resource behind an ffi.Function (for a native
 * function, irm's dispatcher and its state); 1, or 0 (outputs untouched) for
 * any other object. */
int irm_func_packed_parts_(const irm_object *f, irm_packed_cfunc *fn, void **resource);

/* irm_structural_equal and irm_structural_hash without TVM's float
 * tolerance: doubles equal only when their bits are (0.0 and -0.0 differ,
 * one NaN equals only its own bits), objects with an equal or hash hook
 * only themselves (a hook may use the tolerance). What uniquing needs:
 * values it merges must be interchangeable, and the tolerance chains every
 * finite double to every other, so they all hash alike. Same errors and
 * thread safety as the public pair (registry/structural.c). */
int irm_structural_equal_exact_(const irm_any *a, const irm_any *b, int *out_equal);
int irm_structural_hash_exact_(const irm_any *value, uint64_t *out_hash);

/* ---- built-in registrations ------------------------------------------------ */

/* One layer's provider of built-in registrations. Each must be safe to run
 * again after a partial failure: it skips what is already registered. */
typedef struct irm_builtin_provider {
  const char *layer; /* for messages: "registry", "ir", ... */
  int (*register_builtins)(void);
} irm_builtin_provider;

/* Defined in lib/builtins.c, the one file that knows every layer, lowest
 * layer first. */
extern const irm_builtin_provider irm_builtin_providers_[];
extern const size_t irm_builtin_provider_count_;

/* Runs every provider unless all have succeeded before. Registry entry
 * points call it first; a failure (out of memory) is returned with context
 * and retried on the next call. */
int irm_builtins_ready_(void);

/* Layer 0's provider (registry/builtins.c). */
int irm_register_registry_builtins_(void);

/* One built-in global: its name and packed function. */
typedef struct irm_builtin_global {
  const char *name;
  irm_packed_cfunc fn;
} irm_builtin_global;

/* Registers a table of built-in globals (skipping names already there),
 * stopping at the first failure. For providers only: no journal, no lazy
 * start. */
int irm_global_register_builtins_(const irm_builtin_global *table, size_t n);

/* Registers the former names of built-in globals of table (n rows):
 * renamed[i] = {former name, current name}, m pairs. A former name calls
 * the same C function through a function object of its own (so each is
 * named as called); ffi.ListGlobalFuncNames lists both. Skips names
 * already there; stops at the first failure. */
int irm_global_register_former_names_(const irm_builtin_global *table, size_t n, const char *const (*renamed)[2],
                                      size_t m);

/* A once-only initialisation that is retried after a failure, unlike
 * pthread_once: an out-of-memory during first use is reported, not baked in
 * for the life of the process. */
typedef struct irm_lazy {
  atomic_int done;
  pthread_mutex_t lock;
} irm_lazy;

#define IRM_LAZY_INIT \
  { 0, PTHREAD_MUTEX_INITIALIZER }

int irm_lazy_run_slow_(irm_lazy *l, int (*init)(void));

/* Runs init once it has succeeded; 0 or init's status. */
static inline int irm_lazy_run_(irm_lazy *l, int (*init)(void)) {
  if (atomic_load_explicit(&l->done, memory_order_acquire)) return 0;
  return irm_lazy_run_slow_(l, init);
}

/* ---- the registration journal ----------------------------------------------- */

/* Built-in registrations run lazily, possibly while the user has a journal
 * open; they must not be recorded in it (a rollback would remove built-ins).
 * Calls nest. */
void irm_journal_pause_(void);
void irm_journal_resume_(void);

/* Makes room for n more records in the innermost journal, so a registry can
 * record after changing itself without a failure in between. 0 when no
 * journal records. */
int irm_journal_reserve_(size_t n);

/* ---- kinds ------------------------------------------------------------------- */

/* Whether k is still its category's kind of its name. A kind leaves only
 * when its registration is rolled back, and never comes back, so a handle
 * held since then answers 0 for good (cheaper than looking the name up). */
int irm_kind_attached_(const irm_kind *k);

/* Bumped by every change of a kind attribute (set, reset, undo) and by a
 * kind's detachment, under the kind lock (kind_attr.c). An upper layer's
 * cache of attribute values (the dataflow ops' hooks, ir/dataflow/op.c)
 * stays valid while it reads the value it was built at, so its readers
 * take no lock. */
extern _Atomic uint64_t irm_kind_generation_;

/* ---- plugins --------------------------------------------------------------- */

/* A registration an upper layer replays inside a plugin's journal. */
typedef int (*irm_plugin_replay_fn)(const char *name, void (*fn)(void), irm_kind_setup_fn setup);

/* While a plugin is being opened, queues replay(name, fn, setup) for its init
 * and returns 1 (*rc: 0, or the queueing failure); otherwise returns 0 and
 * the caller registers at once. */
int irm_plugin_defer_call_(irm_plugin_replay_fn replay, const char *name, void (*fn)(void), irm_kind_setup_fn setup,
                           int *rc);

/* Plugins that are files of another kind (registry/plugin_files.c): an
 * upper layer registers the loader of an extension (".rules"); the
 * function registers what the file declares (journaled by the caller:
 * irm_plugin_load opens a journal around it and rolls it back on
 * failure). Registering the same pair again is a no-op; KeyError for an
 * extension with another loader. */
typedef int (*irm_plugin_file_loader_fn)(const char *path);
int irm_plugin_file_loader_register_(const char *ext, irm_plugin_file_loader_fn fn);

/* For the plugin loader: whether name ends with a registered extension,
 * and loading such a file (*handled 0: not such a file, nothing done);
 * *info (may be NULL) a NEW Map {name, version, path} once loaded. */
int irm_plugin_file_is_loadable_(const char *name);
int irm_plugin_file_load_(const char *path, int *handled, irm_object **info);

/* Load order across both kinds of plugin: the next number (plugin.c). */
uint64_t irm_plugin_load_seq_(void);

/* The loaded plugin files for irm_plugin_list: *n info Maps (NEW) in
 * *items and their load numbers in *seqs, in load order; both arrays
 * irm_malloc'ed (NULL when n is 0). MemoryError. */
int irm_plugin_files_loaded_(irm_any **items, uint64_t **seqs, size_t *n);

/* ---- uthash through irm's allocator ------------------------------------------ */

#define HASH_NONFATAL_OOM 1
#define uthash_malloc(sz) irm_malloc(sz)
#define uthash_free(ptr, sz) irm_free(ptr)
#define uthash_nonfatal_oom(elt) (irm_hash_oom = 1)
#define uthash_fatal(msg) ((void)0)

#include <uthash.h>

/* ---- the name table every registry is built on ------------------------------ */

#include "name_table.h"

/* ---- option types upper layers plug in (target, array<target>) --------------- */

#include "option_types.h"

/* ---- the text buffer every printer writes into ------------------------------ */

#include "text_buf.h"

/* ---- the entry pool, identity tables and stacks of every walk over the IR ---- */

#include "walk_pool.h"
#include "ptr_table.h"
#include "walk_stack.h"

#endif
