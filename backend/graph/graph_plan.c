/* The graph executor's plan and JSON (graph_internal.h): nodes, entries
 * and storage ids over the lowered plan of main, written in the layout of
 * TVM's graph executor JSON (docs/graph.md). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "graph_internal.h"
#include "irm/error.h"
#include "irm/tensor.h"

void irm_graph_plan_free_(graph_plan *g) {
  irm_free(g->row_ptr);
  irm_free(g->entry_tensor);
  irm_free(g->tensor_entry);
  irm_free(g->storage_id);
  memset(g, 0, sizeof *g);
}

/* Storage ids: inputs and constants each their own, then the storages
 * of the temporaries' buffers (the memory planner's storage_best_fit). */
static void assign_storage(graph_plan *g) {
  const lowered_plan *p = g->p;
  size_t n_entries = g->row_ptr[g->n_nodes], first_temp = p->n_inputs + p->n_consts;
  for (size_t e = 0; e < n_entries; e++) {
    const plan_tensor *t = &p->tensors[g->entry_tensor[e]];
    g->storage_id[e] = e < first_temp ? e : first_temp + p->buffers[t->buffer].storage;
  }
}

int irm_graph_plan_(const lowered_plan *p, graph_plan *g) {
  memset(g, 0, sizeof *g);
  g->p = p;
  g->n_nodes = p->n_inputs + p->n_consts + p->n_steps;
  size_t n_entries = p->n_inputs + p->n_consts;
  for (size_t s = 0; s < p->n_steps; s++) n_entries += p->kernels[p->steps[s].kernel].n_outputs;
  g->row_ptr = irm_calloc(g->n_nodes + 1, sizeof *g->row_ptr);
  g->entry_tensor = irm_calloc(n_entries + 1, sizeof *g->entry_tensor);
  g->tensor_entry = irm_calloc(p->n_tensors + 1, sizeof *g->tensor_entry);
  g->storage_id = irm_calloc(n_entries + 1, sizeof *g->storage_id);
  if (!g->row_ptr || !g->entry_tensor || !g->tensor_entry || !g->storage_id) {
    irm_graph_plan_free_(g);
    return irm_error(IRM_ENOMEM, "graph codegen: out of memory");
  }
  /* main's inputs, then its constants: tensors of kind PLAN_INPUT / PLAN_CONST, by index */
  for (size_t t = 0; t < p->n_tensors; t++) {
    const plan_tensor *x = &p->tensors[t];
    if (x->kind == PLAN_TEMP) continue;
    size_t at = x->kind == PLAN_INPUT ? x->index : p->n_inputs + x->index;
    g->entry_tensor[at] = t;
    g->tensor_entry[t] = at;
  }
  size_t e = 0, node = 0;
  for (; node < p->n_inputs + p->n_consts; node++) g->row_ptr[node] = e++;
  for (size_t s = 0; s < p->n_steps; s++) {
    const plan_step *st = &p->steps[s];
    const plan_kernel *k = &p->kernels[st->kernel];
    g->row_ptr[node++] = e;
    for (size_t j = 0; j < k->n_outputs; j++) {
      size_t t = st->args[k->n_inputs + j];
      g->entry_tensor[e] = t;
      g->tensor_entry[t] = e++;
    }
  }
  g->row_ptr[node] = e;
  assign_storage(g);
  return IRM_OK;
}

/* ---- the JSON ------------------------------------------------------------------ */

/* A name as a JSON string (names are identifiers: no control bytes). */
static void json_str(irm_text_buf *b, const char *s) {
  irm_text_buf_putc_(b, '"');
  irm_text_buf_escaped_(b, s, strlen(s), "\"\\");
  irm_text_buf_putc_(b, '"');
}

static void entry_ref(const graph_plan *g, size_t tensor, irm_text_buf *b) {
  size_t e = g->tensor_entry[tensor], lo = 0, hi = g->n_nodes; /* the last node starting at or before e */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->row_ptr[mid] <= e) lo = mid;
    else hi = mid;
  }
  irm_text_buf_printf_(b, "[%zu, %zu, 0]", lo, e - g->row_ptr[lo]);
}

static void null_node(irm_text_buf *b, const char *name, int first) {
  irm_text_buf_puts_(b, first ? "\n    {\"op\": \"null\", \"name\": " : ",\n    {\"op\": \"null\", \"name\": ");
  json_str(b, name);
  irm_text_buf_puts_(b, ", \"inputs\": []}");
}

static void op_node(const graph_plan *g, size_t s, irm_text_buf *b) {
  const lowered_plan *p = g->p;
  const plan_step *st = &p->steps[s];
  const plan_kernel *k = &p->kernels[st->kernel];
  irm_text_buf_puts_(b, ",\n    {\"op\": \"tvm_op\", \"name\": ");
  json_str(b, k->symbol);
  irm_text_buf_puts_(b, ", \"attrs\": {\"func_name\": ");
  /* a view sharing its input's storage runs nothing: TVM's __nop */
  irm_text_buf_printf_(b,
                       "\"%s%s\", \"num_inputs\": \"%zu\", \"num_outputs\": \"%zu\", \"flatten_data\": \"0\", "
                       "\"scratch_bytes\": \"%zu\"}, \"inputs\": [",
                       st->nop ? "__nop" : k->symbol, st->nop ? "" : "_packed", k->n_inputs, k->n_outputs,
                       st->nop ? (size_t)0 : k->scratch_bytes);
  for (size_t i = 0; i < k->n_inputs; i++) {
    if (i) irm_text_buf_puts_(b, ", ");
    entry_ref(g, st->args[i], b);
  }
  irm_text_buf_puts_(b, "]}");
}

void irm_graph_json_(const graph_plan *g, irm_text_buf *b) {
  const lowered_plan *p = g->p;
  size_t n_entries = g->row_ptr[g->n_nodes];
  irm_text_buf_puts_(b, "{\n  \"nodes\": [");
  for (size_t i = 0; i < p->n_inputs; i++) null_node(b, p->inputs[i].name, i == 0);
  for (size_t k = 0; k < p->n_consts; k++) null_node(b, p->consts[k].name, p->n_inputs + k == 0);
  for (size_t s = 0; s < p->n_steps; s++) op_node(g, s, b);
  irm_text_buf_puts_(b, "\n  ],\n  \"arg_nodes\": [");
  for (size_t i = 0; i < p->n_inputs + p->n_consts; i++) irm_text_buf_printf_(b, "%s%zu", i ? ", " : "", i);
  irm_text_buf_puts_(b, "],\n  \"heads\": [");
  for (size_t j = 0; j < p->n_outputs; j++) {
    if (j) irm_text_buf_puts_(b, ", ");
    entry_ref(g, p->outputs[j].tensor, b);
  }
  irm_text_buf_puts_(b, "],\n  \"attrs\": {\n    \"dltype\": [\"list_str\", [");
  for (size_t e = 0; e < n_entries; e++)
    irm_text_buf_printf_(b, "%s\"%s\"", e ? ", " : "", irm_dtype_name(p->tensors[g->entry_tensor[e]].type.dtype));
  irm_text_buf_puts_(b, "]],\n    \"storage_id\": [\"list_int\", [");
  for (size_t e = 0; e < n_entries; e++) irm_text_buf_printf_(b, "%s%zu", e ? ", " : "", g->storage_id[e]);
  irm_text_buf_puts_(b, "]],\n    \"shape\": [\"list_shape\", [");
  for (size_t e = 0; e < n_entries; e++) {
    const plan_type *type = &p->tensors[g->entry_tensor[e]].type;
    irm_text_buf_puts_(b, e ? ", [" : "[");
    for (int32_t d = 0; d < type->ndim; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", type->shape[d]);
    irm_text_buf_putc_(b, ']');
  }
  irm_text_buf_puts_(b, "]]\n  },\n  \"node_row_ptr\": [");
  for (size_t n = 0; n <= g->n_nodes; n++) irm_text_buf_printf_(b, "%s%zu", n ? ", " : "", g->row_ptr[n]);
  irm_text_buf_puts_(b, "]\n}\n");
}
