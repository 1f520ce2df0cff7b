/* irm-runner: runs an aot library built for another architecture, under
 * qemu-user, for `irm run` (cli_qemu.c). irm compiles this file with the
 * target's cross compiler beside the library (its text is embedded in
 * irm, qemu_runner_text.h) and drives it through files, so it stays
 * small: the C library and dlopen, nothing of irm.
 *
 *   irm-runner LIB MOD metadata
 *       prints tvmgen_MOD_metadata() (the library's JSON) on stdout
 *   irm-runner LIB MOD run WS_BYTES WS_ALIGN CHECK SETTER PARAMS IN... -- OUT=BYTES...
 *       CHECK: the link-params check symbol, or "-"; SETTER and PARAMS:
 *       the set_params symbol and the params file, or "-". Each IN is a
 *       file of one input's raw bytes, in order; each OUT=BYTES the file
 *       an output's raw bytes go to and its size. Runs
 *       tvmgen_MOD_run_workspace once.
 *
 * Exit status 0 success; 1 a failure, said on stderr in one line. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const char *detail) {
  fprintf(stderr, "irm-runner: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

/* The symbol tvmgen_<mod><suffix>, or a named one (suffix NULL). */
static void *symbol(void *lib, const char *mod, const char *name, const char *suffix) {
  char full[512];
  if (suffix) snprintf(full, sizeof full, "tvmgen_%s%s", mod, suffix);
  else snprintf(full, sizeof full, "%s", name);
  return dlsym(lib, full);
}

/* A file's bytes in a 64-byte aligned block (the kernels' loads). */
static void *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = n >= 0 ? aligned_alloc(64, ((size_t)n + 64) / 64 * 64) : NULL;
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

static int call_status(void *sym, const char *name) {
  int32_t (*fn)(void) = NULL;
  memcpy(&fn, &sym, sizeof fn);
  int32_t got = fn();
  char code[32];
  snprintf(code, sizeof code, "code %d", (int)got);
  return got ? fail(name, code) : 0;
}

static int run(void *lib, const char *mod, int argc, char **argv) {
  if (argc < 5) return fail("run: expected WS_BYTES WS_ALIGN CHECK SETTER PARAMS IN... -- OUT=BYTES...", NULL);
  size_t ws_bytes = strtoull(argv[0], NULL, 10), ws_align = strtoull(argv[1], NULL, 10);
  if (ws_align < 1 || ws_align > 4096 || (ws_align & (ws_align - 1))) return fail("run: bad WS_ALIGN", argv[1]);
  void *check = strcmp(argv[2], "-") ? symbol(lib, mod, argv[2], NULL) : NULL;
  if (strcmp(argv[2], "-") && !check) return fail("no symbol", argv[2]);
  if (check && call_status(check, argv[2])) return 1;
  if (strcmp(argv[3], "-")) {
    void *sym = symbol(lib, mod, argv[3], NULL);
    int32_t (*set)(const void *, size_t) = NULL;
    size_t size = 0;
    void *blob = sym ? read_file(argv[4], &size) : NULL;
    if (!sym) return fail("no symbol", argv[3]);
    if (!blob) return fail("cannot read the params file", argv[4]);
    memcpy(&set, &sym, sizeof set);
    int32_t got = set(blob, size);
    free(blob);
    if (got) return fail("set_params refuses the params file", argv[4]);
  }
  int first = 5, sep = first;
  while (sep < argc && strcmp(argv[sep], "--")) sep++;
  if (sep == argc) return fail("run: no -- before the outputs", NULL);
  int n_in = sep - first, n_out = argc - sep - 1;
  void **ptrs = calloc((size_t)(n_in + n_out) + 1, sizeof *ptrs);
  size_t *out_bytes = calloc((size_t)n_out + 1, sizeof *out_bytes);
  void *ws = aligned_alloc(ws_align, (ws_bytes + ws_align) / ws_align * ws_align);
  int rc = !ptrs || !out_bytes || !ws ? fail("out of memory", NULL) : 0;
  for (int i = 0; !rc && i < n_in; i++) {
    size_t size = 0;
    if (!(ptrs[i] = read_file(argv[first + i], &size))) rc = fail("cannot read the input file", argv[first + i]);
  }
  for (int j = 0; !rc && j < n_out; j++) {
    const char *eq = strrchr(argv[sep + 1 + j], '=');
    out_bytes[j] = eq ? strtoull(eq + 1, NULL, 10) : 0;
    if (!eq || !(ptrs[n_in + j] = aligned_alloc(64, (out_bytes[j] + 64) / 64 * 64)))
      rc = fail("bad output (OUT=BYTES) or out of memory", argv[sep + 1 + j]);
  }
  void *entry = rc ? NULL : symbol(lib, mod, NULL, "_run_workspace");
  if (!rc && !entry) rc = fail("the library has no tvmgen_<mod>_run_workspace", mod);
  if (!rc) {
    int32_t (*fn)(void *const *, void *const *, void *) = NULL;
    memcpy(&fn, &entry, sizeof fn);
    int32_t got = fn(ptrs, ptrs + n_in, ws);
    char code[32];
    snprintf(code, sizeof code, "code %d", (int)got);
    /* an index error's own words (irm_crt.h): the op, the index, the range, the kernel */
    void *why = got ? symbol(lib, mod, NULL, "_last_error") : NULL;
    const char *(*text)(void) = NULL;
    if (why) memcpy(&text, &why, sizeof text);
    if (got) rc = fail("the run failed", text && *text() ? text() : code);
  }
  for (int j = 0; !rc && j < n_out; j++) {
    char path[4096];
    snprintf(path, sizeof path, "%.*s", (int)(strrchr(argv[sep + 1 + j], '=') - argv[sep + 1 + j]), argv[sep + 1 + j]);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(ptrs[n_in + j], 1, out_bytes[j], f) == out_bytes[j];
    if (f && fclose(f)) ok = 0;
    if (!ok) rc = fail("cannot write the output file", path);
  }
  for (int i = 0; ptrs && i < n_in + n_out; i++) free(ptrs[i]);
  free(ptrs);
  free(out_bytes);
  free(ws);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 4) return fail("usage: irm-runner LIB MOD metadata | run ...", NULL);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fail("cannot load the library", dlerror());
  int rc = 0;
  if (strcmp(argv[3], "metadata") == 0) {
    void *sym = symbol(lib, argv[2], NULL, "_metadata");
    const char *(*meta)(void) = NULL;
    if (!sym) rc = fail("the library has no tvmgen_<mod>_metadata", argv[2]);
    else {
      memcpy(&meta, &sym, sizeof meta);
      fputs(meta(), stdout);
      fputc('\n', stdout);
    }
  } else if (strcmp(argv[3], "run") == 0) {
    rc = run(lib, argv[2], argc - 4, argv + 4);
  } else {
    rc = fail("unknown command (metadata, run)", argv[3]);
  }
  dlclose(lib);
  return rc;
}
