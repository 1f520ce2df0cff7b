/* Private to backend/export/: SHA-256 (sha256.c), the build cache
 * (cache.c, public API in irm/build_cache.h), the units a generated C
 * file splits into (units.c) and the parallel compile (compile_jobs.c)
 * that export.c drives. */
#ifndef IRM_BACKEND_EXPORT_INTERNAL_H
#define IRM_BACKEND_EXPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "backend_internal.h"
#include "irm/build_cache.h"

typedef struct irm_sha256_ {
  uint32_t h[8];
  uint64_t len;
  unsigned char buf[64];
  size_t fill;
} irm_sha256_;

void irm_sha256_init_(irm_sha256_ *s);
void irm_sha256_update_(irm_sha256_ *s, const void *data, size_t n);
/* The digest as 64 hex digits and a NUL; s is spent. */
void irm_sha256_hex_(irm_sha256_ *s, char out[65]);

/* A fast 128-bit hash of n bytes as 32 hex digits and a NUL (hash128.c):
 * for bulk bytes (cache entries' payloads, params files), not as a key
 * against an adversary. */
void irm_hash128_hex_(const void *data, size_t n, char out[33]);
/* The same hash over pieces, for a file read in chunks: init with the
 * total length n, update with pieces whose lengths are multiples of 16,
 * final with the rest (any length; the pieces and the rest total n). */
typedef struct irm_hash128_ {
  uint64_t a, b;
} irm_hash128_;
void irm_hash128_init_(irm_hash128_ *h, uint64_t n);
void irm_hash128_update_(irm_hash128_ *h, const void *data, size_t len);
void irm_hash128_final_(irm_hash128_ *h, const void *rest, size_t len, char out[33]);

/* The payload of the entry key (cache.c), NEW into *payload (NUL-terminated,
 * irm_free) with its size, and *status HIT; a missing entry is a MISS, one
 * failing its digest is removed (CORRUPT), *payload NULL for both. Errors:
 * ValueError (a bad key), MemoryError. */
int irm_build_cache_get_(struct irm_build_cache *cache, const char *key, char **payload, size_t *n,
                         irm_build_cache_status *status);
/* Stores size bytes under key as irm_build_cache_store stores a file. */
int irm_build_cache_put_(struct irm_build_cache *cache, const char *key, const void *data, size_t size);

/* The model key's common part (model_cache.c): irm_build_prepare_ of mod
 * with the build's arguments into *prepared (NEW), then the SHA-256 of tag,
 * irm's identity (irm_version when not NULL), the thread's PassContext and
 * plugins, the prepared module's text (big tensors by their hash) and the
 * len bytes of extra. key "" and *prepared NULL when the build cannot be
 * reused (irm_build_model_key's cases). Errors: irm_build_model_key's. */
int irm_build_reuse_key_(const char *tag, const void *extra, size_t len, const irm_module *mod, const irm_any *target,
                         const irm_any *target_host, const irm_object *executor, const irm_object *runtime,
                         const irm_object *params, const char *mod_name, const char *irm_version, char key[65],
                         irm_module **prepared);

/* One translation unit to compile: its file name (in the export's
 * temporary folder) and its text, or for an assembler file only its name
 * (it is written as an artifact already). */
typedef struct export_unit_ {
  char *name;      /* owned: "tvmgen_m__kernels_conv2d_0.c", "tvmgen_m_params.s" */
  char *text;      /* owned; NULL: the file is there already */
  size_t size;     /* of text */
  const char *opt; /* " -O3" (kernels) or " -O1" (glue) */
  int uncached;    /* an assembler file (the params blob): assembled by a job of its own, beside the C units, never
                     cached (its object is as large as the weights) */
} export_unit_;

/* Splits one C artifact into units at its irm-unit markers
 * (IRM_UNIT_MARKER_, written by the executors' emitters): every unit gets
 * the text before the first marker and each "common" section, then its own
 * section; a file without markers is one unit. Appends to *units (*n of
 * *cap, grown). Errors: MemoryError. */
int irm_export_split_units_(const char *file, const char *text, size_t size, export_unit_ **units, size_t *n,
                            size_t *cap);
void irm_export_units_free_(export_unit_ *units, size_t n);
/* Room for one more unit in *units (*n used of *cap). Errors: MemoryError. */
int irm_export_units_grow_(export_unit_ **units, size_t *n, size_t *cap);
/* Appends s in single quotes, for sh (export.c). */
void irm_export_quote_(irm_text_buf *b, const char *s);

/* What the compile of a set of units is told. */
typedef struct export_compile_ {
  const char *dir;      /* the temporary folder: sources there, objects written there */
  const char *cc;       /* the compiler command (irm_cc_command_()) */
  const char *flags;    /* every flag but the unit's -O level and -o */
  const char *identity; /* the compiler's identity for cache keys */
  const char *headers;  /* the text of the generated headers, part of every key */
  int jobs;
  int progress;                  /* draw progress on stderr */
  struct irm_build_cache *cache; /* NULL: off */
  size_t hits, compiled;         /* out */
} export_compile_;

/* Compiles units[i] into <dir>/<name>.o, up to jobs at a time, taking
 * objects from the cache and storing new ones. On failure the first
 * failing unit's error: its file name, the compiler's first error line,
 * the command and the output. Errors: RuntimeError, MemoryError. */
int irm_export_compile_units_(export_unit_ *units, size_t n, export_compile_ *c);

/* The compiler command: the environment's CC (a command and its
 * arguments) when set, else "cc". */
const char *irm_cc_command_(void);
/* The compiler's identity: its resolved path and `--version` output, as
 * text into out (remembered per path, inode, size and times, in the
 * process and in the build cache: cc_memo.c). */
int irm_cc_identity_(const char *cc, irm_text_buf *out);

/* Compiler answers remembered across processes (cc_memo.c), as small
 * entries of the default build cache. irm_cc_memo_get_ appends what was
 * stored for (what, key) to value and gives 1, else 0 (no entry, a corrupt
 * one, IRM_CACHE=0, no cache). irm_cc_memo_put_ stores value (text) under
 * (what, key), silently doing nothing when it cannot. Neither sets an
 * error. Any thread. */
int irm_cc_memo_get_(const char *what, const char *key, irm_text_buf *value);
void irm_cc_memo_put_(const char *what, const char *key, const char *value);
/* This machine's CPU as /proc/cpuinfo names it (the first processor's
 * model and feature lines), appended to out: 1, or 0 when it cannot be
 * read (then nothing that depends on the CPU is remembered). */
int irm_cc_cpu_identity_(irm_text_buf *out);
/* irm_build_cache_open without the warning for a folder that cannot be
 * written (the handle then stores nothing): for the memos, which do
 * without the cache. */
int irm_build_cache_open_quiet_(const char *dir, struct irm_build_cache **out);

/* The text that, beside its artifacts, decides the library a built
 * module exports into (export.c): the compiler command chosen for its
 * target (cc_given when not NULL), the compiler's identity, the flags, the
 * libraries and the runtime headers' digests, appended to out. Errors:
 * those of export_library's choice of compiler, MemoryError. */
int irm_export_toolchain_key_(const irm_module *mod, const char *cc_given, irm_text_buf *out);
/* The library the cache holds under key, if any, written to path through a
 * temporary file renamed into place (*hit 1); else path is untouched (*hit
 * 0). Errors: RuntimeError (path cannot be written), MemoryError. */
int irm_export_fetch_library_(struct irm_build_cache *cache, const char *key, const char *path, int *hit);

/* The marker line an emitter writes before each section of a generated
 * C file: the marker, the section name, then the comment closed and a
 * newline. Sections named common go to every unit; those named kernels*
 * compile at the kernels' optimization level, the others at the glue's. */
#define IRM_UNIT_MARKER_ "/* irm-unit: "

#endif
