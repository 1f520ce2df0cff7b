/* executor.load of the graph executor (graph_loader.h, load/load_internal.h):
 * the graph runner of runtime/ behind a runtime.Module. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "graph_loader.h"
#include "irm/error.h"
#include "irm/function.h"
#include "irm/tensor.h"
#include "irm_graph_runner.h"
#include "load/load_internal.h"

static void io_json(irm_text_buf *b, const char *name, DLDataType dt, int32_t ndim, const int64_t *shape) {
  irm_text_buf_puts_(b, "{\"name\": \"");
  irm_text_buf_escaped_(b, name, strlen(name), "\"\\");
  irm_text_buf_puts_(b, "\", \"shape\": [");
  for (int32_t d = 0; d < ndim; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", shape[d]);
  irm_text_buf_printf_(b, "], \"dtype\": \"%s\"}", irm_dtype_name(dt));
}

int irm_graph_open_(const char *path, const char *mod_name, const char *fields, void **runner, irm_object **metadata) {
  irm_graph_runner *r = NULL;
  char err[1024];
  int got = irm_graph_runner_load_module(path, mod_name, &r, err, sizeof err);
  if (got)
    return irm_error(got == IRM_GRAPH_ELOAD    ? IRM_ERUNTIME
                     : got == IRM_GRAPH_ENOMEM ? IRM_ENOMEM
                                               : IRM_EVALUE,
                     "%s", err);
  irm_text_buf b;
  irm_text_buf_init_(&b, NULL, 0);
  size_t shared = 0, unshared = 0;
  irm_graph_runner_storage_bytes(r, &shared, &unshared);
  irm_text_buf_printf_(&b,
                       "{\"version\": 1, \"interface_api\": \"packed\", \"entry\": \"" IRM_LIBRARY_PREFIX
                       "%s" IRM_LIBRARY_GRAPH_JSON "\", "
                       "\"storage_bytes\": %zu, \"unshared_bytes\": %zu, ",
                       mod_name, shared, unshared);
  size_t n = strlen(fields);
  if (n < 2 || fields[0] != '{' || fields[n - 1] != '}') {
    irm_graph_runner_free(r);
    return irm_error(IRM_EVALUE, "library '%s': the metadata of module '%s' is no JSON object", path, mod_name);
  }
  irm_text_buf_append_(&b, fields + 1, n - 2); /* the library's own fields (executor, mod_name, params file) */
  irm_text_buf_puts_(&b, ", \"inputs\": [");
  for (size_t i = 0; i < irm_graph_runner_num_inputs(r); i++) {
    const char *name = NULL;
    DLDataType dt;
    int32_t nd = 0;
    const int64_t *shape = NULL;
    irm_graph_runner_input_info(r, i, &name, &dt, &nd, &shape);
    if (i) irm_text_buf_puts_(&b, ", ");
    io_json(&b, name, dt, nd, shape);
  }
  irm_text_buf_puts_(&b, "], \"outputs\": [");
  for (size_t j = 0; j < irm_graph_runner_num_outputs(r); j++) {
    DLDataType dt;
    int32_t nd = 0;
    const int64_t *shape = NULL;
    char name[32];
    irm_graph_runner_output_info(r, j, &dt, &nd, &shape);
    snprintf(name, sizeof name, "output%zu", j);
    if (j) irm_text_buf_puts_(&b, ", ");
    io_json(&b, irm_graph_runner_num_outputs(r) == 1 ? "output" : name, dt, nd, shape);
  }
  irm_text_buf_puts_(&b, "]}");
  int rc = irm_text_buf_take_string_(&b, "for the metadata", metadata);
  if (rc) {
    irm_graph_runner_free(r);
    return rc;
  }
  *runner = r;
  return IRM_OK;
}

int irm_graph_call_(void *runner, const DLTensor *in, size_t n_in, const DLTensor *out, size_t n_out) {
  irm_graph_runner *r = runner;
  int got = IRM_GRAPH_OK;
  for (size_t i = 0; !got && i < n_in; i++) got = irm_graph_runner_set_input(r, i, &in[i]);
  /* the outputs bound for this run only: the kernels write into them
   * where the runner can (else it copies at the end of the run) */
  for (size_t j = 0; !got && j < n_out; j++) got = irm_graph_runner_set_output_zero_copy(r, j, &out[j]);
  if (!got) got = irm_graph_runner_run(r);
  int rc = got ? irm_error(IRM_ERUNTIME, "graph runner: %s", irm_graph_runner_error(r)) : IRM_OK;
  for (size_t j = 0; j < n_out; j++) irm_graph_runner_set_output_zero_copy(r, j, NULL);
  return rc;
}

void irm_graph_close_(void *runner) { irm_graph_runner_free(runner); }

/* A runner and a run's DLTensors. The module keeps a free list of them:
 * a run takes one (opening another runner over the same library when
 * every one is in use, so runs may overlap, each on its own storage) and
 * gives it back; runs allocate nothing in steady state. */
typedef struct graph_slot {
  irm_load_item_ link; /* in the module's free list */
  irm_graph_runner *runner;
  DLTensor *dl;
} graph_slot;

typedef struct graph_lib {
  char *path, *mod_name; /* to open more runners */
  size_t n_in, n_out;
  irm_load_free_list_ free;
} graph_lib;

static void slot_free(graph_slot *s) {
  if (!s) return;
  irm_graph_close_(s->runner);
  irm_free(s->dl);
  irm_free(s);
}

/* A slot over runner (taken: closed on failure). */
static int slot_new(const graph_lib *g, irm_graph_runner *runner, graph_slot **out) {
  graph_slot *s = irm_calloc(1, sizeof *s);
  if (s) s->dl = irm_calloc(g->n_in + g->n_out + 1, sizeof *s->dl);
  if (!s || !s->dl) {
    if (s) irm_free(s);
    irm_graph_close_(runner);
    return irm_error(IRM_ENOMEM, "graph run: out of memory");
  }
  s->runner = runner;
  *out = s;
  return IRM_OK;
}

static int slot_take(graph_lib *g, graph_slot **out) {
  graph_slot *s = (graph_slot *)(void *)irm_load_free_list_take_(&g->free);
  if (s) {
    *out = s;
    return IRM_OK;
  }
  irm_graph_runner *r = NULL;
  char err[1024];
  int got = irm_graph_runner_load_module(g->path, g->mod_name, &r, err, sizeof err);
  if (got) return irm_error(got == IRM_GRAPH_ENOMEM ? IRM_ENOMEM : IRM_ERUNTIME, "graph run: %s", err);
  return slot_new(g, r, out);
}

static void slot_give(graph_lib *g, graph_slot *s) { irm_load_free_list_give_(&g->free, &s->link); }

/* run(inputs, outputs) through a runner of the run's own. */
static int graph_run(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  (void)ret;
  graph_lib *g = resource;
  graph_slot *s = NULL;
  int rc = slot_take(g, &s);
  if (rc) return rc;
  rc = irm_load_run_tensors_("graph run", args, nargs, g->n_in, g->n_out, s->dl);
  if (!rc) rc = irm_graph_call_(s->runner, s->dl, g->n_in, s->dl + g->n_in, g->n_out);
  slot_give(g, s);
  return rc;
}

static void item_free(irm_load_item_ *item) { slot_free((graph_slot *)(void *)item); }

static void graph_free(void *resource) {
  graph_lib *g = resource;
  if (!g) return;
  irm_load_free_list_free_(&g->free, item_free);
  irm_free(g->path);
  irm_free(g->mod_name);
  irm_free(g);
}

int irm_graph_load_packed_(const irm_any *args, int32_t nargs, irm_any *ret, void *resource) {
  static const char fn[] = "executor.load of executor 'graph'";
  (void)resource;
  const char *path = NULL, *mod = NULL, *text = NULL;
  void *handle = NULL, *runner = NULL;
  irm_object *metadata = NULL;
  int rc = irm_load_args_(fn, args, nargs, &path, &mod, &text, &handle);
  if (!rc) rc = irm_graph_open_(path, mod, text, &runner, &metadata);
  if (rc) return rc;
  graph_lib *g = irm_calloc(1, sizeof *g);
  graph_slot *first = NULL;
  if (g) {
    irm_load_free_list_init_(&g->free);
    g->path = irm_strdup(path);
    g->mod_name = irm_strdup(mod);
    g->n_in = irm_graph_runner_num_inputs(runner);
    g->n_out = irm_graph_runner_num_outputs(runner);
  }
  if (!g || !g->path || !g->mod_name) {
    graph_free(g);
    irm_graph_close_(runner);
    irm_object_release(metadata);
    return irm_error(IRM_ENOMEM, "%s: out of memory", fn);
  }
  rc = slot_new(g, runner, &first);
  if (rc) {
    graph_free(g);
    irm_object_release(metadata);
    return rc;
  }
  slot_give(g, first);
  rc = irm_load_result_(fn, graph_run, g, graph_free, metadata, true, ret);
  irm_object_release(metadata);
  return rc;
}
