/* Private to backend/: the parts of loading an exported library that the
 * executor kinds share (docs/runtime.md, "Loading"). runtime.Load
 * (loader.c) finds the library's tvmgen_<mod_name>_metadata (irm_library.h),
 * reads its "executor" and calls that kind's executor.load:
 *
 *   executor.load(path str, mod_name str, metadata str, handle ptr)
 *     -> Map {"run": Function, "metadata": str (optional)}
 *
 * path is the file as dlopen() was given it, handle the library's dlopen()
 * handle (borrowed: the runtime.Module keeps it open while it lives),
 * metadata the text of tvmgen_<mod_name>_metadata. "run" is called as
 * run(inputs Array of Tensors, outputs Array of Tensors) -> NONE and
 * writes the outputs, which the loader made from the metadata's
 * "outputs" or the caller gave (runtime.ModuleRunInto); the loader checks
 * the inputs and outputs against the metadata and serializes runs unless
 * the Map says "concurrent": true. A run allocates nothing in steady
 * state: what it needs is allocated at load (or on first need, for a
 * run beside others) and reused. "metadata" replaces the library's text when the kind knows more
 * (it must have "mod_name", "inputs" and "outputs"). */
#ifndef IRM_BACKEND_LOAD_INTERNAL_H
#define IRM_BACKEND_LOAD_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include <dlpack/dlpack.h>

#include "irm/runtime.h"
#include "irm_internal.h"
#include "irm_library.h"

/* Runs and set_params calls hold it: a generated library has static state
 * (its workspace, its parameters) and one library may back several
 * modules. */
extern pthread_mutex_t irm_runtime_run_lock_;

/* library_metadata.c: writes the C definition of
 * `const char *tvmgen_<mod_name>_metadata(void)` returning json, the one
 * description every generated library has. mod_name is a C identifier
 * (the code generators check it). */
void irm_library_metadata_emit_(irm_text_buf *b, const char *mod_name, const char *json);

/* load_arch.c: ValueError when the file path is an ELF library for
 * another architecture than this machine's (naming both and suggesting
 * `irm run`, which uses qemu); IRM_OK for this machine's and for files
 * that are no ELF or cannot be read (dlopen then says why). */
int irm_load_check_arch_(const char *path);

/* load_args.c: the arguments of an executor.load (fn names it in errors):
 * path, mod_name, metadata borrowed from args, and the handle. */
int irm_load_args_(const char *fn, const irm_any *args, int32_t nargs, const char **path, const char **mod_name,
                   const char **metadata, void **handle);

/* The result of an executor.load: a Map {"run": a new packed function over
 * run and resource (finalizer called when it dies, also on failure here),
 * "metadata": metadata when not NULL, "concurrent": true when concurrent
 * (run may be called from several threads at once; else the loader takes
 * the run lock around it)} into *ret. */
int irm_load_result_(const char *fn, irm_packed_cfunc run, void *resource, void (*finalizer)(void *),
                     irm_object *metadata, bool concurrent, irm_any *ret);

/* The arguments of a run function: the n_in input and n_out output
 * Tensors as DLTensors (views of their data) into dl (n_in + n_out of
 * them, the caller's: a run allocates nothing). Errors: TypeError,
 * ValueError for the counts. */
int irm_load_run_tensors_(const char *fn, const irm_any *args, int32_t nargs, size_t n_in, size_t n_out, DLTensor *dl);

/* The contents of the file `file` beside path (NUL-terminated) as a NEW
 * irm_malloc'd buffer. Errors: RuntimeError naming the file. */
int irm_load_file_beside_(const char *path, const char *file, char **data, size_t *size, char **full);

/* load_threads.c: the module's thread count (*threads: requested if >= 0,
 * else IRM_NUM_THREADS, else built, the metadata's num_threads; 0 every
 * CPU) and, when the library has tvmgen_<mod_name>_set_pool, the shared
 * pool grown to it (pinned with affinity) handed to the library. A
 * library without it runs serially: *threads 1. Errors: ValueError (a
 * count above 256, a bad IRM_NUM_THREADS), MemoryError. */
int irm_load_threads_(void *handle, const char *mod_name, int32_t requested, int64_t built, bool affinity,
                      int32_t *threads);

/* load_args.c: a module's free list of what one run needs (aot's run
 * contexts, graph's runners): a run takes one, or makes one when every one
 * is in use (runs beside each other), and gives it back, so steady state
 * allocates nothing. An item starts with an irm_load_item_ (its link). */
typedef struct irm_load_item_ {
  struct irm_load_item_ *next;
} irm_load_item_;
typedef struct irm_load_free_list_ {
  pthread_mutex_t lock;
  irm_load_item_ *head;
} irm_load_free_list_;

void irm_load_free_list_init_(irm_load_free_list_ *l);
/* An item of the list, NULL when it is empty (the caller then makes one). */
irm_load_item_ *irm_load_free_list_take_(irm_load_free_list_ *l);
void irm_load_free_list_give_(irm_load_free_list_ *l, irm_load_item_ *item);
/* Frees every item with free_item, and the lock. */
void irm_load_free_list_free_(irm_load_free_list_ *l, void (*free_item)(irm_load_item_ *));

/* load_threads.c: sets the thread count the calling thread's runs use
 * (the running module's; 0: none) and returns the one set before, to be
 * put back after the run. */
int32_t irm_load_run_threads_(int32_t threads);

/* aot_load.c and graph_loader.c: the executor.load of aot and graph. */
int irm_aot_load_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);
int irm_graph_load_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource);

#endif
