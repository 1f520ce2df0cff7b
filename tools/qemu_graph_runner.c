/* irm-graph-runner: runs a graph library built for another architecture,
 * under qemu-user, for `irm run` (cli_qemu.c). irm compiles this file with
 * the target's cross compiler beside the library, together with the graph
 * runner's own sources (runtime/graph_runner*.c, library.c,
 * cpu_features.c: their texts are embedded in irm, qemu_runner_text.h)
 * and the target's jansson, linked statically. Driven through files:
 *
 *   irm-graph-runner LIB MOD run OUT IN...
 *       Loads module MOD of LIB (its params file beside it), sets input i
 *       from the raw bytes of file IN_i, runs once and writes output j's
 *       raw bytes to the file OUT<j>.bin; prints one line per output on
 *       stdout: "output J DTYPE_CODE BITS NDIM D0 D1 ...".
 *
 * Exit status 0 success; 1 a failure, said on stderr in one line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_graph_runner.h"

static int fail(const char *what, const char *detail) {
  fprintf(stderr, "irm-graph-runner: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

static size_t nbytes(DLDataType dt, int32_t ndim, const int64_t *shape) {
  size_t n = ((size_t)dt.bits * dt.lanes + 7) / 8;
  for (int32_t d = 0; d < ndim; d++) n *= (size_t)shape[d];
  return n;
}

/* File path's bytes into data (want bytes exactly). */
static int read_exact(const char *path, void *data, size_t want) {
  FILE *f = fopen(path, "rb");
  int ok = f && fread(data, 1, want, f) == want;
  if (f) fclose(f);
  return ok ? 0 : fail("cannot read the input file (or it is too short)", path);
}

static int write_all(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(data, 1, n, f) == n;
  if (f && fclose(f)) ok = 0;
  return ok ? 0 : fail("cannot write the output file", path);
}

/* Sets, runs, gets: files[0..n_in) the inputs, out the outputs' prefix. */
static int run(irm_graph_runner *r, char **files, int n_in, const char *out) {
  int n_out = (int)irm_graph_runner_num_outputs(r);
  if ((size_t)n_in != irm_graph_runner_num_inputs(r))
    return fail("run: the number of input files differs from the module's inputs", NULL);
  int rc = 0;
  for (int i = 0; !rc && i < n_in; i++) {
    DLTensor t = {0};
    const int64_t *shape = NULL;
    const char *name = NULL;
    irm_graph_runner_input_info(r, (size_t)i, &name, &t.dtype, &t.ndim, &shape);
    t.shape = (int64_t *)(uintptr_t)shape;
    t.device.device_type = kDLCPU;
    size_t n = nbytes(t.dtype, t.ndim, shape);
    t.data = malloc(n + 1);
    if (!t.data) return fail("out of memory", NULL);
    rc = read_exact(files[i], t.data, n);
    if (!rc && irm_graph_runner_set_input(r, (size_t)i, &t)) rc = fail("set_input", irm_graph_runner_error(r));
    free(t.data);
  }
  if (!rc && irm_graph_runner_run(r)) rc = fail("the run failed", irm_graph_runner_error(r));
  for (int j = 0; !rc && j < n_out; j++) {
    DLTensor t = {0};
    const int64_t *shape = NULL;
    irm_graph_runner_output_info(r, (size_t)j, &t.dtype, &t.ndim, &shape);
    t.shape = (int64_t *)(uintptr_t)shape;
    t.device.device_type = kDLCPU;
    size_t n = nbytes(t.dtype, t.ndim, shape);
    t.data = malloc(n + 1);
    if (!t.data) return fail("out of memory", NULL);
    if (irm_graph_runner_get_output(r, (size_t)j, &t)) rc = fail("get_output", irm_graph_runner_error(r));
    char path[4096];
    snprintf(path, sizeof path, "%s%d.bin", out, j);
    if (!rc) rc = write_all(path, t.data, n);
    free(t.data);
    if (!rc) {
      printf("output %d %u %u %d", j, (unsigned)t.dtype.code, (unsigned)t.dtype.bits, (int)t.ndim);
      for (int32_t d = 0; d < t.ndim; d++) printf(" %lld", (long long)shape[d]);
      printf("\n");
    }
  }
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 5 || strcmp(argv[3], "run") != 0) return fail("usage: irm-graph-runner LIB MOD run OUT IN...", NULL);
  char err[1024];
  irm_graph_runner *r = NULL;
  if (irm_graph_runner_load_module(argv[1], argv[2], &r, err, sizeof err)) return fail("cannot load", err);
  int rc = run(r, argv + 5, argc - 5, argv[4]);
  irm_graph_runner_free(r);
  return rc;
}
