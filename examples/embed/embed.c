/* Runs a model compiled by irm into plain C, with nothing of irm at run
 * time: the files `irm build --executor aot,interface-api=c,unpacked-api=1,
 * link-params=0 --runtime crt --mod-name model` writes (tvmgen_model.c,
 * tvmgen_model.h, model.params) compile into this program against irm's
 * runtime headers (pkg-config irm-runtime, or find_package(irm) and
 * irm::runtime); see README.md.
 *
 *   embed MODEL_DIR [INPUT.bin [OUTPUT.bin]]
 *
 * reads the weights from MODEL_DIR/model.params and hands them to
 * tvmgen_model_set_params, reads the input (raw float32, the size of the
 * model's input; without INPUT.bin a fixed ramp), runs tvmgen_model_run
 * once and prints the outputs (and writes them, raw, to OUTPUT.bin).
 * EMBED_INPUT_FLOATS and EMBED_OUTPUT_FLOATS give the sizes: the example
 * CNN's by default (1x3x32x32 in, 1x10 out); the Makefile and
 * CMakeLists.txt pass other ones on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irm_crt.h"      /* irm_crt_strerror: what a nonzero code means */
#include "tvmgen_model.h" /* generated: the inputs, outputs, run and set_params */

#ifndef EMBED_INPUT_FLOATS
#define EMBED_INPUT_FLOATS 3072
#endif
#ifndef EMBED_OUTPUT_FLOATS
#define EMBED_OUTPUT_FLOATS 10
#endif

/* The whole file at path in a malloc'd block; NULL (and a message) when it
 * cannot be read. */
static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  void *data = NULL;
  long n = -1;
  if (f && fseek(f, 0, SEEK_END) == 0) n = ftell(f);
  if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) data = malloc((size_t)n + 1);
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  if (f) fclose(f);
  if (!data) fprintf(stderr, "embed: cannot read '%s'\n", path);
  *size = data ? (size_t)n : 0;
  return data;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 4) {
    fprintf(stderr, "usage: embed MODEL_DIR [INPUT.bin [OUTPUT.bin]]\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/model.params", argv[1]);
  size_t size = 0;
  void *params = read_file(path, &size);
  if (!params) return 1;
  /* set_params copies what it needs: the blob may go right after */
  int32_t rc = tvmgen_model_set_params(params, size);
  free(params);
  if (rc) {
    fprintf(stderr, "embed: '%s': %s\n", path, irm_crt_strerror(rc));
    return 1;
  }

  static float input[EMBED_INPUT_FLOATS], output[EMBED_OUTPUT_FLOATS];
  if (argc > 2) {
    float *given = read_file(argv[2], &size);
    if (!given) return 1;
    if (size != sizeof input) {
      fprintf(stderr, "embed: '%s' holds %zu bytes; the model's input is %zu (float32)\n", argv[2], size, sizeof input);
      free(given);
      return 1;
    }
    memcpy(input, given, sizeof input);
    free(given);
  } else {
    for (size_t i = 0; i < EMBED_INPUT_FLOATS; i++) input[i] = (float)(i % 17) / 8.0f - 1.0f;
  }

  struct tvmgen_model_inputs in = {input};
  struct tvmgen_model_outputs out = {output};
  rc = tvmgen_model_run(&in, &out);
  if (rc) {
    fprintf(stderr, "embed: the run failed: %s\n", irm_crt_strerror(rc));
    return 1;
  }
  for (size_t i = 0; i < EMBED_OUTPUT_FLOATS; i++) printf("%s%.6g", i ? " " : "", output[i]);
  printf("\n");
  if (argc > 3) {
    FILE *f = fopen(argv[3], "wb");
    int ok = f && fwrite(output, sizeof output, 1, f) == 1;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok) {
      fprintf(stderr, "embed: cannot write '%s'\n", argv[3]);
      return 1;
    }
  }
  return 0;
}
