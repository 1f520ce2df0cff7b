/* irm_graph_runner.h: the graph runner of the cpp runtime (docs/graph.md).
 * Stands alone: C11, the C library, DLPack's header, jansson and dlopen;
 * nothing of libirm. Library target irm_graph_runtime.
 *
 * It reads a graph JSON in the layout of TVM's graph executor (nodes with
 * op "null" or "tvm_op", arg_nodes, heads, node_row_ptr, attrs shape /
 * dltype / storage_id), binds every tvm_op node's func_name through a
 * resolver (dlsym of a shared object, or the caller's table of linked-in
 * functions; irm_crt.h's packed convention), allocates one buffer per
 * storage id (its size the largest entry using it), and runs the nodes in
 * order. A node's attr "scratch_bytes" (an irm extension) is the scratch
 * the kernel gets as its `resource` argument.
 *
 * Inputs are the arg nodes no params blob has filled; params fill arg
 * nodes by name. Every arg node must be set (input or param) before run.
 *
 * Errors: functions return IRM_GRAPH_OK (0) or a negative IRM_GRAPH_E*
 * code, and the runner keeps a message naming what is wrong
 * (irm_graph_runner_error); the creating functions write theirs into the
 * caller's buffer. A failing call changes nothing it has not named (a
 * params blob is checked whole before any copy).
 *
 * Thread safety: a runner is used by one thread at a time; distinct
 * runners are independent (a kernel's library may keep no state). */
#ifndef IRM_GRAPH_RUNNER_H
#define IRM_GRAPH_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  IRM_GRAPH_OK = 0,
  IRM_GRAPH_EJSON = -1,   /* the graph JSON does not parse or has a wrong field */
  IRM_GRAPH_EKERNEL = -2, /* a missing kernel, or a kernel that failed */
  IRM_GRAPH_EPARAMS = -3, /* a params blob that does not parse or does not match */
  IRM_GRAPH_EARG = -4,    /* a wrong argument: an index, a name, a tensor's dtype or shape */
  IRM_GRAPH_ENOMEM = -5,
  IRM_GRAPH_ELOAD = -6, /* a shared object or params file that cannot be loaded */
  IRM_GRAPH_EUNSET = -7 /* run with an input never set */
};

typedef struct irm_graph_runner irm_graph_runner;

/* Finds a symbol by name; NULL when there is none. */
typedef void *(*irm_graph_resolver)(void *ctx, const char *name);

/* A runner over json (len bytes, not necessarily NUL-terminated) whose
 * kernels resolve(ctx, func_name) finds. *out NEW (free it with
 * irm_graph_runner_free). On failure *out is NULL and err (err_size bytes,
 * may be NULL) holds the message: EJSON (with the line and column of a
 * syntax error, or the field at fault), EKERNEL (naming the missing
 * func_name), ENOMEM. */
int irm_graph_runner_create(const char *json, size_t len, irm_graph_resolver resolve, void *ctx, irm_graph_runner **out,
                            char *err, size_t err_size);

/* A runner over module mod_name of the shared object at path exported by
 * irm for the graph executor: the graph JSON it embeds
 * (tvmgen_<mod_name>_graph_json, irm_library.h), its kernels, and its
 * parameters (linked in, or the params file its metadata names, beside
 * path). mod_name NULL: the library's only module (EARG when it holds
 * several, naming them). The runner keeps the object loaded. Errors as
 * irm_graph_runner_create, and ELOAD, EPARAMS, EARG. */
int irm_graph_runner_load_module(const char *path, const char *mod_name, irm_graph_runner **out, char *err,
                                 size_t err_size);

/* irm_graph_runner_load_module of the library's only module. */
int irm_graph_runner_load(const char *path, irm_graph_runner **out, char *err, size_t err_size);

void irm_graph_runner_free(irm_graph_runner *r);

/* The message of the last failed call ("" when none). Valid until the
 * next call on r. */
const char *irm_graph_runner_error(const irm_graph_runner *r);

/* Copies the parameters of a params blob (irm_params.h layout) into the
 * arg nodes of their names; afterwards these are not inputs. Every entry
 * is checked first: its name (an arg node of that name), dtype and shape.
 * Errors: EPARAMS naming the entry and what differs. */
int irm_graph_runner_load_params(irm_graph_runner *r, const void *blob, size_t size);

size_t irm_graph_runner_num_inputs(const irm_graph_runner *r);
size_t irm_graph_runner_num_outputs(const irm_graph_runner *r);

/* The index of the input named name. Errors: EARG. */
int irm_graph_runner_input_index(irm_graph_runner *r, const char *name, size_t *index);

/* Input / output i's name (inputs; outputs are "output<i>"), dtype, ndim
 * and shape (borrowed, valid while r lives). Errors: EARG. */
int irm_graph_runner_input_info(irm_graph_runner *r, size_t i, const char **name, DLDataType *dtype, int32_t *ndim,
                                const int64_t **shape);
int irm_graph_runner_output_info(irm_graph_runner *r, size_t i, DLDataType *dtype, int32_t *ndim,
                                 const int64_t **shape);

/* Copies t (CPU, compact, of the input's dtype and shape) into input i.
 * Errors: EARG. */
int irm_graph_runner_set_input(irm_graph_runner *r, size_t i, const DLTensor *t);
int irm_graph_runner_set_input_by_name(irm_graph_runner *r, const char *name, const DLTensor *t);

/* Runs every node in order. Errors: EUNSET naming the input, EKERNEL
 * naming the node and the kernel's error. */
int irm_graph_runner_run(irm_graph_runner *r);

/* Copies output i into t (CPU, compact, of its dtype and shape).
 * Errors: EARG. */
int irm_graph_runner_get_output(irm_graph_runner *r, size_t i, DLTensor *t);

/* Makes later runs write output i into t's memory (CPU, compact, of its
 * dtype and shape; t NULL: back to the runner's own storage). When the
 * output's storage holds nothing else that must outlive it (no input,
 * parameter or other output, no entry larger than the output), its views
 * are pointed at t's memory and the kernels write there directly (TVM's
 * set_output_zero_copy); otherwise each run copies the output there at
 * its end. No allocation either way. t's memory must stay valid, and
 * overlap no other output's, until output i is set again or r is freed.
 * Errors: EARG (changing nothing). */
int irm_graph_runner_set_output_zero_copy(irm_graph_runner *r, size_t i, const DLTensor *t);

/* The bytes of all storage, and those a storage per entry would take. */
void irm_graph_runner_storage_bytes(const irm_graph_runner *r, size_t *shared, size_t *unshared);

#ifdef __cplusplus
}
#endif

#endif
