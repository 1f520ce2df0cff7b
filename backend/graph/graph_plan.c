/* The graph executor's plan and JSON (graph_internal.h): nodes, entries
 * and storage ids over the AOT analysis of main, written in the layout of
 * TVM's graph executor JSON (docs/graph.md). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "graph_internal.h"
#include "irm/error.h"
#include "irm/dataflow/type.h"
#include "irm/tensor.h"

void irm_graph_plan_free_(graph_plan *g) {
  irm_free(g->row_ptr);
  irm_free(g->entry_tensor);
  irm_free(g->tensor_entry);
  irm_free(g->storage_id);
  irm_free(g->storage_bytes);
  memset(g, 0, sizeof *g);
}

/* Storage ids: inputs and constants each their own; a step's results take
 * the best-fitting storage free at that step (none of its tensors read at
 * this step or later), else the largest free one (grown), else a new one.
 * main's outputs are never freed. */
static void assign_storage(graph_plan *g, size_t *owner, unsigned char *is_out) {
  const dataflow_plan *p = g->p;
  size_t n_entries = g->row_ptr[g->n_nodes];
  for (size_t e = 0; e < n_entries; e++) g->storage_id[e] = SIZE_MAX;
  for (size_t e = 0; e < p->n_inputs + p->n_consts; e++) {
    g->storage_id[e] = g->n_storage;
    g->storage_bytes[g->n_storage] = p->tensors[g->entry_tensor[e]].bytes;
    owner[g->n_storage++] = g->entry_tensor[e];
  }
  size_t first_temp = g->n_storage;
  for (size_t s = 0; s < p->n_steps; s++) {
    size_t node = irm_graph_step_node_(g, s);
    for (size_t e = g->row_ptr[node]; e < g->row_ptr[node + 1]; e++) {
      size_t t = g->entry_tensor[e], bytes = p->tensors[t].bytes, best = SIZE_MAX;
      for (size_t sid = first_temp; sid < g->n_storage; sid++) {
        size_t o = owner[sid];
        if (o != SIZE_MAX && (is_out[o] || p->tensors[o].last >= s)) continue; /* still live */
        if (best == SIZE_MAX) {
          best = sid;
          continue;
        }
        size_t have = g->storage_bytes[best], cand = g->storage_bytes[sid];
        int fits = cand >= bytes, best_fits = have >= bytes;
        if ((fits && (!best_fits || cand < have)) || (!fits && !best_fits && cand > have)) best = sid;
      }
      if (best == SIZE_MAX) {
        best = g->n_storage++;
        g->storage_bytes[best] = 0;
      }
      if (g->storage_bytes[best] < bytes) g->storage_bytes[best] = bytes;
      owner[best] = t;
      g->storage_id[e] = best;
    }
  }
}

int irm_graph_plan_(const dataflow_plan *p, graph_plan *g) {
  memset(g, 0, sizeof *g);
  g->p = p;
  g->n_nodes = p->n_inputs + p->n_consts + p->n_steps;
  size_t n_entries = p->n_inputs + p->n_consts;
  for (size_t s = 0; s < p->n_steps; s++) n_entries += p->kernels[p->steps[s].kernel].info.n_outputs;
  g->row_ptr = irm_calloc(g->n_nodes + 1, sizeof *g->row_ptr);
  g->entry_tensor = irm_calloc(n_entries + 1, sizeof *g->entry_tensor);
  g->tensor_entry = irm_calloc(p->n_tensors + 1, sizeof *g->tensor_entry);
  g->storage_id = irm_calloc(n_entries + 1, sizeof *g->storage_id);
  g->storage_bytes = irm_calloc(n_entries + 1, sizeof *g->storage_bytes);
  size_t *owner = irm_calloc(n_entries + 1, sizeof *owner);
  unsigned char *is_out = irm_calloc(p->n_tensors + 1, 1);
  if (!g->row_ptr || !g->entry_tensor || !g->tensor_entry || !g->storage_id || !g->storage_bytes || !owner ||
      !is_out) {
    irm_free(owner);
    irm_free(is_out);
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
    const irm_c_kernel_info_ *info = &p->kernels[st->kernel].info;
    g->row_ptr[node++] = e;
    for (size_t j = 0; j < info->n_outputs; j++) {
      size_t t = st->args[info->n_inputs + j];
      g->entry_tensor[e] = t;
      g->tensor_entry[t] = e++;
    }
  }
  g->row_ptr[node] = e;
  for (size_t j = 0; j < p->n_outputs; j++) is_out[p->outputs[j].tensor] = 1;
  assign_storage(g, owner, is_out);
  irm_free(owner);
  irm_free(is_out);
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
  const dataflow_plan *p = g->p;
  const plan_step *st = &p->steps[s];
  const plan_kernel *k = &p->kernels[st->kernel];
  irm_text_buf_puts_(b, ",\n    {\"op\": \"tvm_op\", \"name\": ");
  json_str(b, k->symbol);
  irm_text_buf_puts_(b, ", \"attrs\": {\"func_name\": ");
  irm_text_buf_printf_(b, "\"%s_packed\", \"num_inputs\": \"%zu\", \"num_outputs\": \"%zu\", \"flatten_data\": \"0\", "
                       "\"scratch_bytes\": \"%zu\"}, \"inputs\": [", k->symbol, k->info.n_inputs, k->info.n_outputs,
                       k->info.scratch_bytes);
  for (size_t i = 0; i < k->info.n_inputs; i++) {
    if (i) irm_text_buf_puts_(b, ", ");
    entry_ref(g, st->args[i], b);
  }
  irm_text_buf_puts_(b, "]}");
}

void irm_graph_json_(const graph_plan *g, irm_text_buf *b) {
  const dataflow_plan *p = g->p;
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
    irm_text_buf_printf_(b, "%s\"%s\"", e ? ", " : "",
                         irm_dtype_name(irm_tensor_type_dtype(p->tensors[g->entry_tensor[e]].type)));
  irm_text_buf_puts_(b, "]],\n    \"storage_id\": [\"list_int\", [");
  for (size_t e = 0; e < n_entries; e++) irm_text_buf_printf_(b, "%s%zu", e ? ", " : "", g->storage_id[e]);
  irm_text_buf_puts_(b, "]],\n    \"shape\": [\"list_shape\", [");
  for (size_t e = 0; e < n_entries; e++) {
    irm_object *type = p->tensors[g->entry_tensor[e]].type;
    int32_t nd = irm_tensor_type_ndim(type);
    const int64_t *shape = irm_tensor_type_shape(type);
    irm_text_buf_puts_(b, e ? ", [" : "[");
    for (int32_t d = 0; d < nd; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", shape[d]);
    irm_text_buf_putc_(b, ']');
  }
  irm_text_buf_puts_(b, "]]\n  },\n  \"node_row_ptr\": [");
  for (size_t n = 0; n <= g->n_nodes; n++) irm_text_buf_printf_(b, "%s%zu", n ? ", " : "", g->row_ptr[n]);
  irm_text_buf_puts_(b, "]\n}\n");
}
