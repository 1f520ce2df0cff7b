/* What the evaluator harnesses (fuzz_evaluate.c, fuzz_pass_sequence.c)
 * share: parsing the input as IR text, random inputs for a function's
 * parameters, and comparing results within a tolerance. */
#ifndef IRM_FUZZ_EVAL_UTIL_H
#define IRM_FUZZ_EVAL_UTIL_H

#include <math.h>

#include "fuzz_util.h"

/* The evaluator's limit in the harnesses: well below libFuzzer's
 * -malloc_limit_mb (fuzz/run.sh), so a program that asks for too much is
 * refused with a message instead of tripping the fuzzer. */
#define FUZZ_EVAL_MAX_BYTES ((size_t)16 << 20)
/* The most elements of one random input. */
#define FUZZ_EVAL_MAX_INPUT 4096
/* The longest error message the evaluator and the passes may give. */
#define FUZZ_MAX_MESSAGE 8192

static inline void fuzz_eval_setup(void) {
  fuzz_quiet();
  irm_dataflow_evaluate_set_max_bytes(FUZZ_EVAL_MAX_BYTES);
}

/* The module the text parses to, or NULL (the failure checked). */
static inline irm_module *fuzz_parse_ir(const uint8_t *data, size_t size) {
  char *text = malloc(size ? size : 1); /* exact size: reads past the end show */
  if (!text) abort();
  if (size) memcpy(text, data, size);
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(text, size, &m);
  free(text);
  if (rc) {
    fuzz_check_error(rc);
    irm_clear_error();
    return NULL;
  }
  return m;
}

/* A failure of the evaluator or a pass: a code, a message of bounded size. */
static inline void fuzz_check_bounded_error(int rc) {
  fuzz_check_error(rc);
  FUZZ_CHECK(strlen(irm_last_error()) < FUZZ_MAX_MESSAGE, "error messages are bounded");
  irm_clear_error();
}

/* A tiny deterministic generator (splitmix64). */
static inline uint64_t fuzz_next(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* An Array with one random tensor per parameter of @main, from seed; NULL
 * when @main is missing, a parameter has no tensor annotation, or an input
 * would be too big. Values are small (-4..4 in quarters, ints -8..8), so
 * exp and products stay finite. */
static inline irm_object *fuzz_random_inputs(const irm_module *m, uint64_t seed) {
  irm_object *f = irm_module_function(m, "main");
  if (!f || irm_expr_kind_of(f) != IRM_EXPR_FUNCTION) return NULL;
  size_t n = irm_function_param_count(f);
  if (n > 16) return NULL;
  irm_any items[16];
  size_t made = 0;
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) {
    const irm_object *t = irm_expr_type(irm_function_param(f, i));
    if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR || irm_tensor_type_numel(t) > FUZZ_EVAL_MAX_INPUT) {
      ok = 0;
      break;
    }
    irm_tensor *x = NULL;
    FUZZ_CHECK(irm_tensor_new(irm_tensor_type_dtype(t), irm_tensor_type_shape(t), irm_tensor_type_ndim(t), NULL, &x) ==
                   0,
               "a small input tensor is made");
    DLDataType dt = irm_tensor_type_dtype(t);
    for (int64_t k = 0; k < irm_tensor_numel(x); k++) {
      uint64_t r = fuzz_next(&seed);
      double v = dt.code == kDLFloat ? (double)((int64_t)(r % 33) - 16) / 4.0 : (double)((int64_t)(r % 17) - 8);
      irm_tensor_set_f64(x, k, v);
    }
    items[made++] = irm_any_object(x);
  }
  irm_object *arr = NULL;
  if (ok) FUZZ_CHECK(irm_array_new(items, made, &arr) == 0, "the inputs Array is made");
  for (size_t i = 0; i < made; i++) irm_object_release(items[i].v_obj);
  return arr;
}

static inline int fuzz_close(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (a == b) return 1; /* infinities, and -0.0 == 0.0 */
  double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
  return fabs(a - b) <= 1e-3 * (scale > 1 ? scale : 1);
}

/* Whether a and b (Tensors, or Arrays of values) have the same dtypes and
 * shapes and elements within the tolerance. */
static inline int fuzz_same_value(const irm_any *a, const irm_any *b) {
  if (a->type_code != IRM_OBJECT || b->type_code != IRM_OBJECT) return 0;
  if (irm_is_tensor(a->v_obj) || irm_is_tensor(b->v_obj)) {
    const DLTensor *x = irm_tensor_dl(a->v_obj), *y = irm_tensor_dl(b->v_obj);
    if (!x || !y || !irm_dtype_equal(x->dtype, y->dtype) || x->ndim != y->ndim) return 0;
    for (int32_t d = 0; d < x->ndim; d++)
      if (x->shape[d] != y->shape[d]) return 0;
    for (int64_t i = 0; i < irm_tensor_numel(a->v_obj); i++)
      if (!fuzz_close(irm_tensor_get_f64(a->v_obj, i), irm_tensor_get_f64(b->v_obj, i))) return 0;
    return 1;
  }
  if (!irm_object_is(a->v_obj, "ffi.Array") || !irm_object_is(b->v_obj, "ffi.Array")) return 0;
  size_t n = irm_array_size(a->v_obj);
  if (n != irm_array_size(b->v_obj)) return 0;
  for (size_t i = 0; i < n; i++)
    if (!fuzz_same_value(irm_array_at(a->v_obj, i), irm_array_at(b->v_obj, i))) return 0;
  return 1;
}

/* Evaluates @main of m on inputs: IRM_OK with *out, or a checked failure. */
static inline int fuzz_evaluate(const irm_module *m, const irm_object *inputs, irm_any *out) {
  int rc = irm_dataflow_evaluate(m, "main", inputs, out);
  if (rc) fuzz_check_bounded_error(rc);
  return rc;
}

/* A seed from the input's bytes (FNV-1a). */
static inline uint64_t fuzz_seed(const uint8_t *data, size_t size) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211u;
  return h;
}

#endif
