/* Loading and running an exported library (docs/runtime.md,
 * docs/graph.md).
 *
 * irm_build_export_library (build.h) compiles a build into a shared
 * library. Every module such a library holds defines
 * `const char *tvmgen_<mod_name>_metadata(void)` (runtime/include/
 * irm_library.h), a JSON description naming the executor kind that built
 * it ("executor"), mod_name, the inputs and outputs with name, shape and
 * dtype, and what that kind's loader needs. runtime.Load finds it in the
 * library's dynamic symbol table (no fixed name: libraries of different
 * mod_names link into one program), and hands the library to the
 * `executor.load` kind attribute of that executor (IRM_EXECUTOR_LOAD_ATTR;
 * aot and graph register theirs, a plugin's kind registers its own;
 * docs/plugins.md). aot's finds the entry point and, with link-params =
 * false, hands the params file beside the library to its set_params;
 * graph's opens the module with the graph runner of runtime/
 * (irm_graph_runner.h), whose metadata adds "storage_bytes" and
 * "unshared_bytes".
 *
 * Threads (docs/threads.md): a library built for the cpp runtime splits
 * its kernels over a thread pool. runtime.Load gives it the process's
 * shared pool (irm_threadpool.h), or the application's
 * (irm_runtime_set_thread_pool), limited to the module's thread count:
 * the num_threads argument when it is 0 or more, else the environment
 * variable IRM_NUM_THREADS, else the Runtime's num-threads option the
 * library was built with (its metadata's "num_threads"); 0 means every
 * CPU the process may use (sched_getaffinity).
 *
 * Globals: runtime.Load(path [, mod_name [, num_threads]]) -> runtime.Module,
 * runtime.ModuleNumThreads(module) -> int,
 * runtime.ModuleRun(module, Array of Tensors) -> Array of Tensors,
 * runtime.ModuleRunInto(module, inputs Array, outputs Array) -> None,
 * runtime.ModuleMetadata(module) -> String (the JSON).
 *
 * Ownership follows c_api.h: out-parameters are NEW references, arguments
 * are borrowed. Thread safety: every function may be called from any
 * thread. Runs of aot and graph libraries go on at once, each with its
 * own workspace from a small pool the module keeps (made on first need,
 * reused after); runs of a kind whose executor.load does not say
 * "concurrent" take turns under a process-wide lock. */
#ifndef IRM_RUNTIME_H
#define IRM_RUNTIME_H

#include <stdint.h>

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_runtime_module;

#define IRM_RUNTIME_MODULE_TYPE_KEY "runtime.Module"

/* The kind attribute runtime.Load calls: executor.load(path str, mod_name
 * str, metadata str, handle ptr) -> Map {"run": Function, "metadata": str
 * (optional)}; run(inputs Array of Tensors, outputs Array of Tensors) ->
 * NONE writes the outputs (docs/runtime.md, "Loading"). */
#define IRM_EXECUTOR_LOAD_ATTR "executor.load"

/* The architecture the ELF file at path is built for (its machine:
 * "x86_64", "aarch64", "arm", "i386", "riscv64", "ppc64le"; NULL for
 * another, a file that is no ELF or cannot be read) into *arch, a static
 * string, and *native 1 when this machine can load it (its machine is
 * this one's, or the file is no ELF: dlopen then says why), else 0. Never
 * fails. Thread safety: any thread. */
IRM_API void irm_runtime_library_arch(const char *path, const char **arch, int *native);

/* Loads module mod_name of the library at path (dlopen with RTLD_NOW |
 * RTLD_LOCAL; a library stays loaded while a module refers to it);
 * mod_name NULL: the library's only module. *out NEW. Errors:
 * RuntimeError (the library cannot be loaded, with the loader's reason; a
 * params file that cannot be read, naming its path), ValueError (a library
 * built for another architecture, naming it and `irm run`'s qemu; no
 * tvmgen_<mod_name>_metadata: not an irm library; several modules and no
 * mod_name, naming them; no module mod_name; an executor kind that is not
 * registered, naming it and the registered kinds; a kind without
 * executor.load; metadata that does not parse or lacks a field; whatever
 * the kind's executor.load reports: for aot a missing entry symbol or a
 * params file the library refuses, for graph a bad graph JSON, missing
 * kernel or mismatched params file), MemoryError. */
IRM_API int irm_runtime_load_module(const char *path, const char *mod_name, irm_runtime_module **out);

/* irm_runtime_load_module of the library's only module. */
IRM_API int irm_runtime_load(const char *path, irm_runtime_module **out);

/* irm_runtime_load_module with a thread count: num_threads 0 is every CPU
 * the process may use, a negative one "not given" (then IRM_NUM_THREADS,
 * then the library's num-threads). A library without threads (crt, or
 * built before them) runs on the calling thread whatever the count.
 * Errors: those of irm_runtime_load_module, and ValueError (num_threads
 * above 256; IRM_NUM_THREADS set to something else than a count from 0 to
 * 256, naming its value). */
IRM_API int irm_runtime_load_threads(const char *path, const char *mod_name, int32_t num_threads,
                                     irm_runtime_module **out);

/* The threads the module's kernels may use (*out; 1 for a library without
 * threads). Errors: TypeError. */
IRM_API int irm_runtime_module_num_threads(const irm_runtime_module *module, int32_t *out);

/* The application's thread pool (runtime/include/irm_parallel.h, installed
 * beside the runtime headers; borrowed: it must stay valid until it is
 * replaced), which every module's kernels then split their work on
 * instead of irm's (so irm adds no threads to a host that has its own);
 * NULL goes back to irm's. Applies to runs that start afterwards: set it
 * while no run is in flight. Always succeeds (returns 0). */
struct irm_parallel_pool;
IRM_API int irm_runtime_set_thread_pool(const struct irm_parallel_pool *pool);

/* Runs the module on inputs (an Array of ffi.Tensor, one per input in
 * order; borrowed) into *outputs (a NEW Array of new Tensors, one per
 * output). Errors: TypeError (module is no runtime.Module, inputs no
 * Array, an input no Tensor), ValueError (the number of inputs, an
 * input's dtype or shape, naming the input and both values),
 * RuntimeError (the library's entry returned an error, with its
 * description), MemoryError. A failed run leaves the inputs unchanged. */
IRM_API int irm_runtime_module_run(const irm_runtime_module *module, const irm_object *inputs, irm_object **outputs);

/* Runs the module on inputs into the caller's outputs (an Array of
 * ffi.Tensor, one per output in order, each of the output's dtype and
 * shape; borrowed). The generated code writes the outputs' data directly:
 * no tensor is made and, with aot and graph libraries, nothing is
 * allocated during the run (what a run needs is allocated at load). The
 * outputs' bytes are written although the Array and the caller hold
 * references: pass tensors that nothing else reads as constant (not an
 * IR Constant's), and none that shares memory with an input or another
 * output. Errors: those of irm_runtime_module_run, and TypeError (outputs
 * no Array, an output no Tensor), ValueError (the number of outputs, an
 * output's dtype or shape, naming the output and both values; an output
 * sharing memory with an input or output, naming both). Every check
 * comes before the run: on such an error nothing is written. When the
 * library's entry fails (RuntimeError), outputs may be partly written.
 * Thread safety: two threads must not pass the same output tensors at
 * once. */
IRM_API int irm_runtime_module_run_into(const irm_runtime_module *module, const irm_object *inputs,
                                        irm_object *outputs);

/* The library's metadata JSON as a NEW String. Errors: TypeError. */
IRM_API int irm_runtime_module_metadata(const irm_runtime_module *module, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
