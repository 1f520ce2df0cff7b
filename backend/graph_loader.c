/* runtime.Load of graph-executor libraries (graph_loader.h): the graph
 * runner of runtime/ behind a runtime.Module. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "graph_loader.h"
#include "irm/error.h"
#include "irm/tensor.h"
#include "irm_graph_runner.h"

static void io_json(irm_text_buf *b, const char *name, DLDataType dt, int32_t ndim, const int64_t *shape) {
  irm_text_buf_puts_(b, "{\"name\": \"");
  irm_text_buf_escaped_(b, name, strlen(name), "\"\\");
  irm_text_buf_puts_(b, "\", \"shape\": [");
  for (int32_t d = 0; d < ndim; d++) irm_text_buf_printf_(b, "%s%" PRId64, d ? ", " : "", shape[d]);
  irm_text_buf_printf_(b, "], \"dtype\": \"%s\"}", irm_dtype_name(dt));
}

/* The library's own description (mod_name, params file), without braces. */
static const char *library_fields(const char *path) {
  char local[4096];
  snprintf(local, sizeof local, "./%s", path); /* as the runner opened it */
  void *h = dlopen(strchr(path, '/') ? path : local, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  const char *(*meta)(void) = NULL;
  void *sym = h ? dlsym(h, "irm_graph_metadata") : NULL;
  if (sym) memcpy(&meta, &sym, sizeof meta);
  const char *text = meta ? meta() : NULL;
  if (h) dlclose(h); /* RTLD_NOLOAD: the runner's reference keeps it */
  return text;
}

int irm_graph_open_(const char *path, void **runner, irm_object **metadata) {
  irm_graph_runner *r = NULL;
  char err[1024];
  int got = irm_graph_runner_load(path, &r, err, sizeof err);
  if (got)
    return irm_error(got == IRM_GRAPH_ELOAD ? IRM_ERUNTIME : got == IRM_GRAPH_ENOMEM ? IRM_ENOMEM : IRM_EVALUE, "%s",
                     err);
  irm_text_buf b;
  irm_text_buf_init_(&b, NULL, 0);
  const char *fields = library_fields(path);
  size_t shared = 0, unshared = 0;
  irm_graph_runner_storage_bytes(r, &shared, &unshared);
  irm_text_buf_printf_(&b, "{\"version\": 1, \"interface_api\": \"packed\", \"entry\": \"irm_graph_json\", "
                       "\"storage_bytes\": %zu, \"unshared_bytes\": %zu, ", shared, unshared);
  if (fields && fields[0] == '{') irm_text_buf_printf_(&b, "%s, ", fields + 1);
  else irm_text_buf_puts_(&b, "{\"executor\": \"graph\", \"mod_name\": \"default\"}, ");
  b.len -= 3; /* the closing brace and ", " */
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
  if (!got) got = irm_graph_runner_run(r);
  for (size_t j = 0; !got && j < n_out; j++) got = irm_graph_runner_get_output(r, j, (DLTensor *)&out[j]);
  return got ? irm_error(IRM_ERUNTIME, "graph runner: %s", irm_graph_runner_error(r)) : IRM_OK;
}

void irm_graph_close_(void *runner) { irm_graph_runner_free(runner); }
