/* Private to backend/: what the graph executor's emitter files share
 * (docs/graph.md); like the AOT executor's, they read only the lowered
 * plan (lower/plan.h). graph_plan.c turns the plan (tensors, kernels,
 * steps, and the buffers the memory planner gave storages) into graph
 * nodes, entries and storage ids and writes the graph JSON;
 * graph_codegen.c is the `graph` kind's executor.codegen and writes the C
 * source, with the kernels' C the AOT emitter shares (aot_internal.h). */
#ifndef IRM_BACKEND_GRAPH_INTERNAL_H
#define IRM_BACKEND_GRAPH_INTERNAL_H

#include "aot/aot_internal.h"

/* The graph executor's options and what names the generated code. */
typedef struct graph_options {
  bool link_params;
  const char *mod_name;
  const char *runtime;  /* the runtime kind's name */
  const char *executor; /* the executor kind's name (the metadata's "executor") */
} graph_options;

/* The graph of main: nodes are main's inputs, then its constants (op
 * "null"), then one "tvm_op" node per step; entry e of node n is tensor
 * entry_tensor[row_ptr[n] + e]. */
typedef struct graph_plan {
  const lowered_plan *p; /* borrowed */
  size_t n_nodes;        /* n_inputs + n_consts + n_steps */
  size_t *row_ptr;       /* n_nodes + 1 */
  size_t *entry_tensor;  /* row_ptr[n_nodes] entries: tensor ids */
  size_t *tensor_entry;  /* per tensor id: its entry */
  size_t *storage_id;    /* per entry */
} graph_plan;

/* Plans p's graph: entries and storage ids. Inputs and constants each
 * have their own storage; a temporary's is its buffer's storage (p lowered
 * with a buffer per temporary, placed by storage_best_fit: temporaries
 * whose lifetimes do not overlap share one, main's outputs keep theirs).
 * Errors: MemoryError. */
int irm_graph_plan_(const lowered_plan *p, graph_plan *g);
void irm_graph_plan_free_(graph_plan *g);

/* The node of step s, of input i, of constant k. */
static inline size_t irm_graph_step_node_(const graph_plan *g, size_t s) { return g->p->n_inputs + g->p->n_consts + s; }

/* The graph JSON (TVM's graph executor layout; docs/graph.md). */
void irm_graph_json_(const graph_plan *g, irm_text_buf *out);

#endif
