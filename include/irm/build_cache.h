/* The build cache (docs/build.md#the-build-cache): a content-addressed
 * store of compiled objects that irm_build_export_library (build.h) uses
 * so that rebuilding a model, or one sharing kernels with an earlier one,
 * compiles only what changed.
 *
 * A key is the SHA-256 of everything that decides an object's bytes: the
 * unit's source text, the headers it includes, the compiler's identity
 * (its path and `--version`) and the flags (irm_build_cache_key). An entry
 * is a file objects/<first two hex digits>/<key> under the cache folder
 * holding a digest of its payload, checked on every read: a corrupt entry
 * is removed and counts as a miss. Writes go to tmp/ and are renamed into
 * place, so builds sharing one folder (processes or threads) never see a
 * partial entry. The folder is size-capped: irm_build_cache_trim removes
 * the least recently used entries (a hit refreshes an entry's time).
 *
 * Environment: IRM_CACHE_DIR names the folder (default
 * $XDG_CACHE_HOME/irm, else $HOME/.cache/irm); IRM_CACHE=0 turns the
 * cache off for export; IRM_CACHE_SIZE caps it (bytes, or with a K, M or
 * G suffix; default 1G).
 *
 * Thread safety: every function may be called from any thread; one
 * handle may be shared by threads (its counters are atomic). */
#ifndef IRM_BUILD_CACHE_H
#define IRM_BUILD_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "irm/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct irm_build_cache irm_build_cache;

/* What a lookup found. */
typedef enum irm_build_cache_status {
  IRM_BUILD_CACHE_MISS = 0,
  IRM_BUILD_CACHE_HIT = 1,
  IRM_BUILD_CACHE_CORRUPT = 2 /* an entry whose digest failed: removed, a miss */
} irm_build_cache_status;

/* The cache folder the environment names (IRM_CACHE_DIR, else
 * $XDG_CACHE_HOME/irm, else $HOME/.cache/irm) into buf. ValueError when
 * none is set or it does not fit in size bytes. */
IRM_API int irm_build_cache_default_dir(char *buf, size_t size);

/* 0 when the environment turns the cache off (IRM_CACHE=0, "off",
 * "false" or "no"), else 1. */
IRM_API int irm_build_cache_enabled_by_env(void);

/* The cap the environment gives (IRM_CACHE_SIZE; default 1 GiB). A value
 * that does not parse is reported once as a warning and the default used. */
IRM_API uint64_t irm_build_cache_cap_by_env(void);

/* Opens the cache in dir (NULL: irm_build_cache_default_dir), making its
 * folders when missing. A folder that cannot be made or written is no
 * error: a warning names it and the reason, and the handle reads what it
 * can and stores nothing (irm_build_cache_writable gives 0). *out is NEW
 * (irm_build_cache_close). Errors: ValueError (no folder named),
 * MemoryError, RuntimeError when IRM_WARNINGS=error turns that warning
 * into an error. */
IRM_API int irm_build_cache_open(const char *dir, irm_build_cache **out);
IRM_API void irm_build_cache_close(irm_build_cache *cache);
/* The folder (borrowed from the handle) and whether entries can be stored. */
IRM_API const char *irm_build_cache_dir(const irm_build_cache *cache);
IRM_API int irm_build_cache_writable(const irm_build_cache *cache);

/* The key of n byte strings (lengths included, so parts never run into
 * each other): 64 lowercase hex digits and a NUL into out. */
IRM_API void irm_build_cache_key(const void *const *parts, const size_t *sizes, size_t n, char out[65]);

/* Looks key up; on a hit writes the object to the file dest (replaced).
 * *status says what was found. Errors: ValueError (a key that is not 64
 * hex digits), RuntimeError (dest cannot be written). An entry that
 * cannot be read is a miss, not an error. */
IRM_API int irm_build_cache_fetch(irm_build_cache *cache, const char *key, const char *dest,
                                  irm_build_cache_status *status);

/* Stores the file src under key (atomically: written to tmp/, then
 * renamed). Does nothing on a handle that cannot store. A failure to
 * write is no error (the build goes on without it); it returns IRM_OK
 * and is counted (irm_build_cache_counts). Errors: ValueError (bad key),
 * MemoryError. */
IRM_API int irm_build_cache_store(irm_build_cache *cache, const char *key, const char *src);

/* A linked entry: the file src itself (a finished library), kept as
 * objects/<2 hex>/<key>.lib beside an entry <key> that records its size
 * and a 128-bit hash. The store and the fetch hand it over by a hard link
 * when the cache and the other path share a filesystem (no bytes copied),
 * else by a copy. The fetch checks size and hash first (a file changed in
 * place through a link is found out: removed, a miss), then makes dest
 * the file. Errors, counts and atomicity as irm_build_cache_store and
 * irm_build_cache_fetch; dest should be a fresh name (it is replaced). */
IRM_API int irm_build_cache_store_linked(irm_build_cache *cache, const char *key, const char *src);
IRM_API int irm_build_cache_fetch_linked(irm_build_cache *cache, const char *key, const char *dest,
                                         irm_build_cache_status *status);

/* Removes the least recently used entries until the folder holds at most
 * cap bytes, and leftovers of interrupted writes older than an hour;
 * *removed (may be NULL) gets how many entries went. */
IRM_API int irm_build_cache_trim(irm_build_cache *cache, uint64_t cap, uint64_t *removed);

/* What the handle did: hits, misses (corrupt ones included), corrupt
 * entries found, entries stored, failed stores. Any pointer may be NULL. */
IRM_API void irm_build_cache_counts(const irm_build_cache *cache, uint64_t *hits, uint64_t *misses, uint64_t *corrupt,
                                    uint64_t *stored, uint64_t *store_failures);

/* What a folder holds. */
typedef struct irm_build_cache_info_t {
  uint64_t entries; /* objects */
  uint64_t bytes;   /* their size on disk */
  uint64_t cap;     /* irm_build_cache_cap_by_env() */
} irm_build_cache_info_t;

/* The entries and bytes of the cache in dir (NULL: the default); a folder
 * that does not exist holds nothing. Errors: ValueError (no folder named). */
IRM_API int irm_build_cache_info(const char *dir, irm_build_cache_info_t *out);

/* Removes every entry (and leftover temporary) of the cache in dir (NULL:
 * the default); *removed (may be NULL) gets how many objects went.
 * Errors: ValueError (no folder named), RuntimeError (an entry that
 * cannot be removed, naming it). */
IRM_API int irm_build_cache_clear(const char *dir, uint64_t *removed);

#ifdef __cplusplus
}
#endif

#endif
