/* Loading and running an exported AOT or graph library (docs/runtime.md,
 * docs/graph.md).
 *
 * irm_build_export_library (build.h) compiles a build of the `aot`
 * executor into a shared library. Every such library defines
 * `const char *irm_aot_metadata(void)`, a JSON description (mod_name, the
 * interface API, the entry symbol, inputs and outputs with name, shape
 * and dtype, the params file); the loader reads it, finds the entry
 * point, and, when the library was built with link-params = false, reads
 * the params file beside the library and hands it to the library's
 * set_params function.
 *
 * A library exported from a build with the graph executor defines
 * `irm_graph_json` instead (docs/graph.md): the loader opens it with the
 * graph runner of runtime/ (irm_graph_runner.h), which reads the embedded
 * graph JSON, binds the kernels and reads the params (linked in, or the
 * params file beside the library); runs then set the inputs, run the
 * graph's nodes and copy the outputs out. Its metadata has "executor":
 * "graph" and the storage bytes with and without sharing.
 *
 * Globals: runtime.Load(path) -> runtime.Module, runtime.ModuleRun(module,
 * Array of Tensors) -> Array of Tensors, runtime.ModuleMetadata(module) ->
 * String (the JSON).
 *
 * Ownership follows c_api.h: out-parameters are NEW references, arguments
 * are borrowed. Thread safety: every function may be called from any
 * thread; runs are serialized (a generated library has one static
 * workspace), so two threads running modules at once take turns. */
#ifndef IRM_RUNTIME_H
#define IRM_RUNTIME_H

#include "irm/object.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef irm_object irm_runtime_module;

#define IRM_RUNTIME_MODULE_TYPE_KEY "runtime.Module"

/* Loads the library at path (dlopen with RTLD_NOW | RTLD_LOCAL; a library
 * stays loaded while a module refers to it). *out NEW. Errors:
 * RuntimeError (the library cannot be loaded, with the loader's reason; a
 * params file that cannot be read, naming its path), ValueError (neither
 * irm_aot_metadata nor irm_graph_json: not an irm library; a graph
 * library's bad graph JSON, missing kernel or mismatched params file, as
 * the graph runner names them; metadata that does not parse
 * or lacks a field; a missing entry symbol, naming it; a params file the
 * library refuses, with its reason), MemoryError. */
IRM_API int irm_runtime_load(const char *path, irm_runtime_module **out);

/* Runs the module on inputs (an Array of ffi.Tensor, one per input in
 * order; borrowed) into *outputs (a NEW Array of new Tensors, one per
 * output). Errors: TypeError (module is no runtime.Module, inputs no
 * Array, an input no Tensor), ValueError (the number of inputs, an
 * input's dtype or shape, naming the input and both values),
 * RuntimeError (the library's entry returned an error, with its
 * description), MemoryError. A failed run leaves the inputs unchanged. */
IRM_API int irm_runtime_module_run(const irm_runtime_module *module, const irm_object *inputs,
                                   irm_object **outputs);

/* The library's metadata JSON as a NEW String. Errors: TypeError. */
IRM_API int irm_runtime_module_metadata(const irm_runtime_module *module, irm_object **out);

#ifdef __cplusplus
}
#endif

#endif
