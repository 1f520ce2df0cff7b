/* Helpers of the C kernel generator's suites (tests/backend/check_codegen_c*.c):
 * a batch of cases (IR text of a module whose @main, typed by InferType,
 * is the kernel's function) is generated through codegen.CKernel into one C
 * file with a small exported runner per kernel, compiled with the system
 * `cc -std=c11 -Wall -Werror -O2` into a shared object under the build
 * folder, opened with dlopen, run on random inputs and compared with
 * ir.Evaluate. Static inline only (check_util.h's rule). */
#ifndef IRM_TESTS_CHECK_CODEGEN_C_UTIL_H
#define IRM_TESTS_CHECK_CODEGEN_C_UTIL_H

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <irm/dataflow/evaluate.h>
#include <irm/dataflow/expr.h>
#include <irm/dataflow/passes.h>
#include <irm/dataflow/text.h>
#include <irm/target.h>
#include <irm/tensor.h>

#include "check_util.h"

#ifndef IRM_CG_TEST_DIR
#define IRM_CG_TEST_DIR "."
#endif

#define CG_HEADER "#[version = \"irm-0.1\"]\n"

typedef struct cg_case {
  const char *name; /* the kernel's symbol */
  const char *text; /* a module (without the version line) with @main */
  double tol;       /* relative tolerance of float results (0: 1e-5) */
} cg_case;

typedef int32_t (*cg_runner)(void **in, void **out, void *scratch);

static inline irm_module *cg_typed(const char *text) {
  size_t n = strlen(CG_HEADER) + strlen(text) + 1;
  char *full = malloc(n);
  snprintf(full, n, "%s%s", CG_HEADER, text);
  irm_module *m = NULL, *t = NULL;
  int rc = irm_dataflow_parse(full, strlen(full), &m);
  ck_require(rc == 0, "parse failed: %s\n%s", irm_last_error(), full);
  free(full);
  rc = irm_dataflow_infer_type(m, &t);
  ck_require(rc == 0, "InferType failed: %s\n%s", irm_last_error(), text);
  irm_object_release(m);
  return t;
}

/* codegen.CKernel(func, symbol [, target]): the Map, or NULL with the error set. */
static inline irm_object *cg_kernel(const irm_object *func, const char *symbol, irm_target *target) {
  irm_any args[3] = {irm_any_object((irm_object *)func), irm_any_str(symbol), irm_any_object((irm_object *)target)};
  irm_any r = irm_any_none();
  int rc = irm_func_call_global("codegen.CKernel", args, target ? 3 : 2, &r);
  return rc ? NULL : r.v_obj;
}

static inline int64_t cg_map_int(const irm_object *m, const char *key) {
  const irm_any *v = irm_map_find_cstr(m, key);
  ck_require(v && v->type_code == IRM_INT, "no int '%s'", key);
  return v->v_int;
}

static inline const char *cg_map_str(const irm_object *m, const char *key) {
  const irm_any *v = irm_map_find_cstr(m, key);
  ck_require(v && v->type_code == IRM_OBJECT, "no string '%s'", key);
  return irm_string_data(v->v_obj);
}

/* Whether the kernel codegen.CKernel makes of fn (named name, for target)
 * contains needle; codegen must succeed. */
static inline int cg_code_has(const irm_object *fn, const char *name, irm_target *target, const char *needle) {
  irm_object *res = cg_kernel(fn, name, target);
  ck_require(res != NULL, "%s: codegen failed: %s", name, irm_last_error());
  int has = strstr(cg_map_str(res, "code"), needle) != NULL;
  irm_object_release(res);
  return has;
}

/* Appends text to a growing malloc'd string. */
static inline void cg_cat(char **s, size_t *len, const char *text) {
  size_t n = strlen(text);
  *s = realloc(*s, *len + n + 1);
  memcpy(*s + *len, text, n + 1);
  *len += n;
}

/* The prelude for target (NULL: plain). */
static inline char *cg_prelude(irm_target *target) {
  irm_object *arr = NULL;
  irm_any t = irm_any_object((irm_object *)target);
  ck_assert_ok(irm_array_new(&t, target ? 1 : 0, &arr));
  irm_any a = irm_any_object(arr), r = irm_any_none();
  ck_assert_ok(irm_func_call_global("codegen.CPrelude", &a, 1, &r));
  char *s = strdup(irm_string_data(r.v_obj));
  irm_any_release(&r);
  irm_object_release(arr);
  return s;
}

/* runtime/kernels' headers, which float32 dense and softmax (and the
 * blocked ops) include on any target with a kernel block. */
#ifdef IRM_CG_KERNELS_DIR
#define CG_KERNELS_INCLUDE "-I'" IRM_CG_KERNELS_DIR "'"
#else
#define CG_KERNELS_INCLUDE ""
#endif

/* Writes text into <dir>/<stem>.c, compiles it into a shared object and
 * opens it (extra: more cc arguments). Fails the test with cc's output. */
static inline void *cg_compile(const char *stem, const char *text, const char *extra) {
  char c_path[512], so_path[512], log_path[512], cmd[2048];
  snprintf(c_path, sizeof c_path, "%s/%s_%d.c", IRM_CG_TEST_DIR, stem, (int)getpid());
  snprintf(so_path, sizeof so_path, "%s/%s_%d.so", IRM_CG_TEST_DIR, stem, (int)getpid());
  snprintf(log_path, sizeof log_path, "%s/%s_%d.log", IRM_CG_TEST_DIR, stem, (int)getpid());
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", IRM_CG_TEST_DIR);
  ck_require(system(cmd) == 0, "cannot make %s", IRM_CG_TEST_DIR);
  FILE *f = fopen(c_path, "w");
  ck_require(f != NULL, "cannot write %s", c_path);
  fputs(text, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cc -std=c11 -Wall -Werror -O2 -shared -fPIC -o '%s' '%s' %s%s%s -lm > '%s' 2>&1", so_path,
           c_path, CG_KERNELS_INCLUDE, extra ? " " : "", extra ? extra : "", log_path);
  if (system(cmd) != 0) {
    char log[8192] = "";
    FILE *l = fopen(log_path, "r");
    if (l) {
      size_t n = fread(log, 1, sizeof log - 1, l);
      log[n] = '\0';
      fclose(l);
    }
    ck_abort_msg("cc failed on %s:\n%s", c_path, log);
  }
  void *h = dlopen(so_path, RTLD_NOW | RTLD_LOCAL);
  ck_require(h != NULL, "dlopen %s: %s", so_path, dlerror());
  if (!getenv("IRM_CG_KEEP")) remove(c_path), remove(so_path), remove(log_path); /* IRM_CG_KEEP=1 keeps them */
  return h;
}

static inline uint64_t cg_rand(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s >> 33;
}

/* A random tensor of type (ints nonzero, so that divisions are defined). */
static inline irm_tensor *cg_random(const irm_object *type, uint64_t *seed) {
  irm_tensor *t = NULL;
  DLDataType dt = irm_tensor_type_dtype(type);
  ck_assert_ok(irm_tensor_new(dt, irm_tensor_type_shape(type), irm_tensor_type_ndim(type), NULL, &t));
  int64_t n = irm_tensor_numel(t);
  void *p = irm_tensor_data(t);
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = cg_rand(seed);
    if (dt.code == kDLFloat && dt.bits == 64)
      ((double *)p)[i] = (double)(r % 100000) / 25000.0 - 2.0 + 1e-9 * (double)(r % 7);
    else if (dt.code == kDLInt && dt.bits == 64)
      ((int64_t *)p)[i] = r % 5 == 0                   ? (int64_t)(r << 31) | 1
                          : (int64_t)(r % 2001) - 1000 ? (int64_t)(r % 2001) - 1000
                                                       : 7;
    else if (dt.code == kDLFloat && dt.bits == 16) /* float16: stored as its bits */
      ((uint16_t *)p)[i] = irm_f32_to_f16((float)((double)(r % 100000) / 25000.0 - 2.0));
    else if (dt.code == kDLFloat) ((float *)p)[i] = (float)((double)(r % 100000) / 25000.0 - 2.0);
    else if (dt.code == kDLInt && dt.bits == 32)
      ((int32_t *)p)[i] = (int32_t)(r % 2001) - 1000 ? (int32_t)(r % 2001) - 1000 : 7;
    else if (dt.code == kDLInt) ((int8_t *)p)[i] = (int8_t)((int)(r % 255) - 127 ? (int)(r % 255) - 127 : 3);
    else if (dt.code == kDLUInt) ((uint8_t *)p)[i] = (uint8_t)(r % 255 + 1);
    else ((uint8_t *)p)[i] = (uint8_t)(r & 1);
  }
  return t;
}

/* Compares a kernel output with the evaluator's. */
static inline void cg_compare(const char *name, size_t k, const void *got, const irm_tensor *want, double tol) {
  const DLTensor *dl = irm_tensor_dl(want);
  int64_t n = irm_tensor_numel(want);
  const void *w = irm_tensor_data_const(want);
  for (int64_t i = 0; i < n; i++) {
    if (dl->dtype.code == kDLFloat) {
      int f64 = dl->dtype.bits == 64, f16 = dl->dtype.bits == 16;
      double a = f64   ? ((const double *)got)[i]
                 : f16 ? irm_f16_to_f32(((const uint16_t *)got)[i])
                       : ((const float *)got)[i],
             b = f64   ? ((const double *)w)[i]
                 : f16 ? irm_f16_to_f32(((const uint16_t *)w)[i])
                       : ((const float *)w)[i];
      if ((isnan(a) && isnan(b)) || a == b) continue;
      double scale = fabs(b) > 1.0 ? fabs(b) : 1.0;
      ck_require(fabs(a - b) <= tol * scale, "%s: output %zu element %lld: generated %.9g, evaluator %.9g", name, k,
                 (long long)i, a, b);
    } else {
      size_t sz = dl->dtype.bits / 8;
      ck_require(memcmp((const char *)got + i * sz, (const char *)w + i * sz, sz) == 0,
                 "%s: output %zu element %lld differs from the evaluator's", name, k, (long long)i);
    }
  }
}

/* The tensors of a result, nested Arrays flattened in order. */
static inline void cg_flatten(const irm_object *v, const irm_tensor **out, size_t *n) {
  if (irm_is_tensor(v)) {
    if (*n < 64) out[(*n)++] = v;
    return;
  }
  for (size_t i = 0; i < irm_array_size(v); i++) cg_flatten(irm_array_at(v, i)->v_obj, out, n);
}

/* A module whose @main is fn (NEW). */
static inline irm_module *cg_module_of(irm_object *fn) {
  irm_object *fns = NULL;
  irm_any v = irm_any_object(fn);
  ck_assert_ok(irm_map_new(&fns));
  ck_assert_ok(irm_map_set_move(&fns, "main", &v));
  irm_module *m = NULL;
  ck_assert_ok(irm_module_new(fns, NULL, &m));
  irm_object_release(fns);
  return m;
}

/* Generates a kernel per function (named names[i]), compiles them into one
 * shared object (with target when not NULL; extra: more cc arguments) and
 * checks each against ir.Evaluate of the function on rounds random input
 * sets (tols[i] relative for floats; 0: 1e-5). */
static inline void cg_check_funcs(const char *stem, irm_object *const *fns, const char *const *names,
                                  const double *tols, size_t n, irm_target *target, const char *extra, int rounds) {
  char *src = cg_prelude(target);
  size_t len = strlen(src);
  int64_t *scratch = calloc(n, sizeof *scratch), *nout = calloc(n, sizeof *nout);
  for (size_t c = 0; c < n; c++) {
    irm_object *k = cg_kernel(fns[c], names[c], target);
    ck_require(k != NULL, "%s: codegen failed: %s", names[c], irm_last_error());
    cg_cat(&src, &len, cg_map_str(k, "code"));
    scratch[c] = cg_map_int(k, "scratch_bytes");
    nout[c] = cg_map_int(k, "n_outputs");
    size_t nin = (size_t)cg_map_int(k, "n_inputs");
    ck_require(nin == irm_function_param_count(fns[c]), "%s: n_inputs %zu", names[c], nin);
    char runner[1024];
    int w = snprintf(runner, sizeof runner, "int32_t run_%s(void **in, void **out, void *scratch) {\n  return %s(",
                     names[c], names[c]);
    for (size_t i = 0; i < nin; i++) w += snprintf(runner + w, sizeof runner - (size_t)w, "in[%zu], ", i);
    for (int64_t i = 0; i < nout[c]; i++)
      w += snprintf(runner + w, sizeof runner - (size_t)w, "out[%lld], ", (long long)i);
    snprintf(runner + w, sizeof runner - (size_t)w, "scratch);\n}\n");
    cg_cat(&src, &len, runner);
    irm_object_release(k);
  }
  void *h = cg_compile(stem, src, extra);
  uint64_t seed = 12345;
  for (size_t c = 0; c < n; c++) {
    char sym[256];
    snprintf(sym, sizeof sym, "run_%s", names[c]);
    cg_runner run = (cg_runner)(uintptr_t)dlsym(h, sym);
    ck_require(run != NULL, "no %s", sym);
    irm_module *mod = cg_module_of(fns[c]);
    size_t nin = irm_function_param_count(fns[c]);
    double tol = tols && tols[c] > 0 ? tols[c] : 1e-5;
    for (int round = 0; round < rounds; round++) {
      irm_any *items = calloc(nin + 1, sizeof *items);
      void **in = calloc(nin + 1, sizeof *in);
      for (size_t i = 0; i < nin; i++) {
        irm_tensor *t = cg_random(irm_expr_type(irm_function_param(fns[c], i)), &seed);
        items[i] = irm_any_object(t);
        in[i] = irm_tensor_data(t);
      }
      irm_object *arr = NULL;
      ck_assert_ok(irm_array_new(items, nin, &arr));
      irm_any want = irm_any_none();
      int rc = irm_dataflow_evaluate(mod, "main", arr, &want);
      ck_require(rc == 0, "%s: evaluate failed: %s", names[c], irm_last_error());
      const irm_tensor *wants[64];
      size_t nw = 0;
      cg_flatten(want.v_obj, wants, &nw);
      ck_require((int64_t)nw == nout[c], "%s: %zu outputs, the kernel has %lld", names[c], nw, (long long)nout[c]);
      void *out[64];
      for (size_t k = 0; k < nw; k++) out[k] = calloc(1, irm_tensor_nbytes(wants[k]) + 1);
      void *sc = scratch[c] ? aligned_alloc(64, ((size_t)scratch[c] + 63) / 64 * 64) : NULL;
      ck_require(run(in, out, sc) == 0, "%s: the kernel returned an error", names[c]);
      for (size_t k = 0; k < nw; k++) {
        cg_compare(names[c], k, out[k], wants[k], tol);
        free(out[k]);
      }
      free(sc);
      irm_any_release(&want);
      irm_object_release(arr);
      for (size_t i = 0; i < nin; i++) irm_any_release(&items[i]);
      free(items), free(in);
    }
    irm_object_release(mod);
  }
  free(scratch), free(nout), free(src);
  dlclose(h);
}

/* cg_check_funcs on the @main of each case's module. */
static inline void cg_check_cases(const char *stem, const cg_case *cases, size_t n, irm_target *target,
                                  const char *extra, int rounds) {
  irm_module **mods = calloc(n, sizeof *mods);
  irm_object **fns = calloc(n, sizeof *fns);
  const char **names = calloc(n, sizeof *names);
  double *tols = calloc(n, sizeof *tols);
  for (size_t c = 0; c < n; c++) {
    mods[c] = cg_typed(cases[c].text);
    fns[c] = irm_module_function(mods[c], "main");
    names[c] = cases[c].name;
    tols[c] = cases[c].tol;
  }
  cg_check_funcs(stem, fns, names, tols, n, target, extra, rounds);
  for (size_t c = 0; c < n; c++) irm_object_release(mods[c]);
  free(mods), free(fns), free(names), free(tols);
}


/* Whether code cc builds with -march=native runs in this process: not
 * under an emulator (valgrind) that hides AVX-512 the CPU has, which
 * /proc/cpuinfo still lists. The native-target cases skip otherwise. */
static inline int cg_native_runs_here(void) {
#if defined(__GNUC__) && defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 1;
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[8192];
  int listed = 0;
  while (f && !listed && fgets(line, sizeof line, f))
    listed = strncmp(line, "flags", 5) == 0 && strstr(line, " avx512f");
  if (f) fclose(f);
  if (listed) printf("the CPU has AVX-512 but this process cannot run it (valgrind?): native-target case skipped\n");
  return !listed;
#else
  return 1;
#endif
}

#endif
