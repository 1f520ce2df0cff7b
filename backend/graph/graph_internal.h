/* Private to backend/: what the graph executor's code generator files
 * share (docs/graph.md). graph_plan.c turns the AOT analysis of main
 * (aot_internal.h: tensors, kernels, steps) into graph nodes, entries and
 * storage ids and writes the graph JSON; graph_codegen.c is the `graph`
 * kind's executor.codegen and writes the C source. */
#ifndef IRM_BACKEND_GRAPH_INTERNAL_H
#define IRM_BACKEND_GRAPH_INTERNAL_H

#include "aot/aot_internal.h"

/* The graph of main: nodes are main's inputs, then its constants (op
 * "null"), then one "tvm_op" node per step; entry e of node n is tensor
 * entry_tensor[row_ptr[n] + e]. */
typedef struct graph_plan {
  const dataflow_plan *p; /* borrowed */
  size_t n_nodes;       /* n_inputs + n_consts + n_steps */
  size_t *row_ptr;      /* n_nodes + 1 */
  size_t *entry_tensor; /* row_ptr[n_nodes] entries: tensor ids */
  size_t *tensor_entry; /* per tensor id: its entry */
  size_t *storage_id;   /* per entry */
  size_t *storage_bytes; /* per storage id */
  size_t n_storage;
} graph_plan;

/* Plans p's graph: entries and storage ids (temporaries whose lifetimes
 * do not overlap share one; inputs, constants and main's outputs keep
 * their own). Errors: MemoryError. */
int irm_graph_plan_(const dataflow_plan *p, graph_plan *g);
void irm_graph_plan_free_(graph_plan *g);

/* The node of step s, of input i, of constant k. */
static inline size_t irm_graph_step_node_(const graph_plan *g, size_t s) {
  return g->p->n_inputs + g->p->n_consts + s;
}

/* The graph JSON (TVM's graph executor layout; docs/graph.md). */
void irm_graph_json_(const graph_plan *g, irm_text_buf *out);

#endif
