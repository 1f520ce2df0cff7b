/* The params file reader (runtime/include/irm_params.h) and the graph
 * runner's params loader on raw bytes: the reader's count and entries
 * agree (every entry inside the blob, its size matching shape and dtype),
 * and loading into a runner either succeeds or refuses with a message,
 * changing nothing. Links irm_graph_runtime only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_crt.h"
#include "irm_graph_runner.h"
#include "irm_params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char GRAPH[] =
    "{\"nodes\": [{\"op\": \"null\", \"name\": \"x\", \"inputs\": []}, {\"op\": \"null\", \"name\": \"w\", "
    "\"inputs\": []}], \"arg_nodes\": [0, 1], \"heads\": [[1, 0, 0]], \"attrs\": {\"dltype\": [\"list_str\", "
    "[\"float32\", \"int8\"]], \"storage_id\": [\"list_int\", [0, 1]], \"shape\": [\"list_shape\", [[2, 2], [3]]]}, "
    "\"node_row_ptr\": [0, 1, 2]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t count = 0;
  int prc = irm_params_count(data, size, &count);
  for (uint64_t k = 0; !prc && k < count && k < 64; k++) {
    irm_params_entry e;
    if (irm_params_get(data, size, k, &e)) abort(); /* a checked blob reads back */
    const uint8_t *p = e.data;
    if (p < data || p + e.nbytes > data + size || (const uint8_t *)e.name < data ||
        (const uint8_t *)e.name + e.name_len > data + size)
      abort();
  }
  irm_graph_runner *r = NULL;
  char err[256];
  if (irm_graph_runner_create(GRAPH, sizeof GRAPH - 1, NULL, NULL, &r, err, sizeof err)) abort();
  size_t before = irm_graph_runner_num_inputs(r);
  int rc = irm_graph_runner_load_params(r, data, size);
  if (rc && (rc != IRM_GRAPH_EPARAMS || !irm_graph_runner_error(r)[0] || irm_graph_runner_num_inputs(r) != before))
    abort();
  if (!rc && prc) abort(); /* the runner accepts only what the reader does */
  irm_graph_runner_free(r);
  return 0;
}
