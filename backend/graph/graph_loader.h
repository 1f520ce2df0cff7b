/* Private to backend/: loading a graph-executor library (graph_loader.c,
 * docs/graph.md). The graph kind's executor.load (irm_graph_load_packed_,
 * load/load_internal.h) opens module mod_name with these; its runs go
 * through the graph runner (runtime/include/irm_graph_runner.h). */
#ifndef IRM_BACKEND_GRAPH_LOADER_H
#define IRM_BACKEND_GRAPH_LOADER_H

#include <stddef.h>

#include <dlpack/dlpack.h>

#include "irm_internal.h"

/* A graph runner over module mod_name of the library at path (its params
 * loaded) in *runner, and the module's metadata JSON in the loader's
 * layout (fields, the library's own metadata object, with the runner's
 * storage bytes and the inputs and outputs with name, shape, dtype) as a
 * NEW String. Errors: RuntimeError (the library or its params file cannot be
 * loaded), ValueError (a bad graph JSON, a missing kernel, a params file
 * that does not match, each as the runner says), MemoryError. */
int irm_graph_open_(const char *path, const char *mod_name, const char *fields, void **runner, irm_object **metadata);

/* Sets the inputs (n_in compact CPU tensors, checked by the caller), runs
 * into out (its kernels write there directly where the runner can bind
 * the output's storage, irm_graph_runner_set_output_zero_copy, else the
 * runner copies; the binding is undone after the run). Errors: RuntimeError with the runner's
 * message. Not thread-safe for one runner. */
int irm_graph_call_(void *runner, const DLTensor *in, size_t n_in, const DLTensor *out, size_t n_out);

void irm_graph_close_(void *runner);

#endif
