/* The graph runner's JSON loader (runtime/graph_runner.c) on raw bytes:
 * any input is refused with a message or gives a runner whose inputs,
 * run and outputs work (every kernel name binds to a kernel that checks
 * its arguments and writes nothing). Links irm_graph_runtime only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_crt.h"
#include "irm_graph_runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int32_t any_kernel(void *args, int32_t *codes, int32_t n, void *ret, int32_t *ret_code, void *resource) {
  (void)ret, (void)ret_code, (void)resource;
  for (int32_t i = 0; i < n; i++)
    if (codes[i] != IRM_CRT_DLTENSOR || !((irm_crt_value *)args)[i].v_handle) return IRM_CRT_ETYPE;
  return IRM_CRT_OK;
}

static void *resolve(void *ctx, const char *name) {
  (void)ctx;
  return strcmp(name, "missing") == 0 ? NULL : (void *)(uintptr_t)any_kernel;
}

static void fill_and_run(irm_graph_runner *r) {
  for (size_t i = 0; i < irm_graph_runner_num_inputs(r); i++) {
    DLDataType dt;
    int32_t nd = 0;
    const int64_t *shape = NULL;
    if (irm_graph_runner_input_info(r, i, NULL, &dt, &nd, &shape)) abort();
    size_t n = dt.bits / 8;
    for (int32_t d = 0; d < nd; d++) n *= (size_t)shape[d];
    void *buf = calloc(n ? n : 1, 1);
    DLTensor t = {buf, {kDLCPU, 0}, nd, dt, (int64_t *)shape, NULL, 0};
    if (irm_graph_runner_set_input(r, i, &t)) abort(); /* its own description must be accepted */
    free(buf);
  }
  if (irm_graph_runner_run(r) == IRM_GRAPH_OK) {
    for (size_t j = 0; j < irm_graph_runner_num_outputs(r); j++) {
      DLDataType dt;
      int32_t nd = 0;
      const int64_t *shape = NULL;
      if (irm_graph_runner_output_info(r, j, &dt, &nd, &shape)) abort();
      size_t n = dt.bits / 8;
      for (int32_t d = 0; d < nd; d++) n *= (size_t)shape[d];
      void *buf = calloc(n ? n : 1, 1);
      DLTensor t = {buf, {kDLCPU, 0}, nd, dt, (int64_t *)shape, NULL, 0};
      if (irm_graph_runner_get_output(r, j, &t)) abort();
      free(buf);
    }
  } else if (!irm_graph_runner_error(r)[0]) {
    abort(); /* a failure names itself */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  irm_graph_runner *r = NULL;
  char err[512] = "";
  int rc = irm_graph_runner_create((const char *)data, size, resolve, NULL, &r, err, sizeof err);
  if (rc) {
    if (rc > 0 || r || !err[0]) abort(); /* refused: a negative code, no runner, a message */
    return 0;
  }
  fill_and_run(r);
  irm_graph_runner_free(r);
  return 0;
}
