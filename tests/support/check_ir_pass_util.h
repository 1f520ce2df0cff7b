/* What the suites of the built-in IR passes share: modules from the text
 * form, printing, and evaluation on seeded inputs. The ip_* helpers
 * (SimplifyExpr, DeadCodeElimination, BindParams, ConvertLayout suites) add
 * typed modules, runs by name and pipeline, and before/after checks. */
#ifndef IRM_TESTS_CHECK_IR_PASS_UTIL_H
#define IRM_TESTS_CHECK_IR_PASS_UTIL_H

#include <math.h>
#include <stdio.h>

#include <irm/irm.h>

#include "check_util.h"

/* A module parsed from text (the test fails on a parse error). */
static inline irm_module *parse_module(const char *text) {
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(text, strlen(text), &m);
  ck_require(rc == 0, "parse failed: %s\n%s", irm_last_error(), text);
  return m;
}

/* The text of m as a NEW String's data: the caller releases *s. */
static inline const char *module_text(const irm_module *m, irm_object **s) {
  ck_assert_ok(irm_dataflow_print(m, s));
  return irm_string_data(*s);
}

/* Asserts a and b are structurally equal, printing both when not. */
static inline void assert_same_module(const irm_module *a, const irm_module *b) {
  irm_any x = irm_any_object((irm_object *)a), y = irm_any_object((irm_object *)b);
  if (equal(&x, &y)) return;
  irm_object *ta = NULL, *tb = NULL;
  module_text(a, &ta);
  module_text(b, &tb);
  ck_abort_msg("modules differ:\n%s\n---- expected ----\n%s", irm_string_data(ta), irm_string_data(tb));
}

/* A float32 tensor of shape with values from a small seeded generator. */
static inline irm_object *seeded_tensor(const int64_t *shape, int ndim, uint64_t seed) {
  DLDataType f32;
  ck_assert_ok(irm_dtype_parse("float32", &f32));
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, ndim, NULL, &t));
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    irm_tensor_set_f64(t, i, (double)(int64_t)(seed >> 40) / (double)(1LL << 23) - 1.0);
  }
  return t;
}

/* Evaluates "main" of m on inputs; *out NEW. */
static inline void evaluate_main(const irm_module *m, const irm_object *inputs, irm_any *out) {
  int rc = irm_dataflow_evaluate(m, "main", inputs, out);
  ck_require(rc == 0, "evaluate failed: %s", irm_last_error());
}

/* Asserts two evaluation results (Tensors) agree within rel. */
static inline void assert_close(const irm_any *a, const irm_any *b, double rel) {
  ck_assert(irm_is_tensor(a->v_obj) && irm_is_tensor(b->v_obj));
  ck_assert_int_eq(irm_tensor_numel(a->v_obj), irm_tensor_numel(b->v_obj));
  for (int64_t i = 0; i < irm_tensor_numel(a->v_obj); i++) {
    double x = irm_tensor_get_f64(a->v_obj, i), y = irm_tensor_get_f64(b->v_obj, i);
    double tol = rel * (1.0 + (x < 0 ? -x : x));
    ck_require(x - y <= tol && y - x <= tol, "element %lld: %g vs %g", (long long)i, x, y);
  }
}

/* ---- ip_*: runs by name / pipeline, typed modules, before/after ---- */

#define IP_HEAD "#[version = \"irm-0.1\"]\n"

static inline irm_module *ip_parse(const char *text) {
  irm_module *m = NULL;
  int rc = irm_dataflow_parse(text, strlen(text), &m);
  ck_require(rc == 0, "parse failed: %s\n--- text ---\n%s", irm_last_error(), text);
  return m;
}

static inline char *ip_text(const irm_module *m) {
  irm_object *s = NULL;
  ck_assert_ok(irm_dataflow_print(m, &s));
  char *copy = strdup(irm_string_data(s));
  irm_object_release(s);
  return copy;
}

/* InferType'd module from text. */
static inline irm_module *ip_typed(const char *text) {
  irm_module *m = ip_parse(text), *t = NULL;
  ck_assert_ok(irm_dataflow_infer_type(m, &t));
  irm_object_release(m);
  return t;
}

/* Runs the pipeline text on mod; *out NEW. Returns the status. */
static inline int ip_pipeline(const char *text, irm_module *mod, irm_module **out) {
  irm_pass *p = NULL;
  int rc = irm_pipeline_parse(text, &p);
  if (!rc) rc = irm_pass_run(p, mod, out);
  irm_object_release((irm_object *)p);
  return rc;
}

/* transform.GetPass(name) run on mod. */
static inline int ip_run_named(const char *name, irm_module *mod, irm_module **out) {
  irm_any arg = irm_any_str(name), ret = irm_any_none();
  int rc = irm_func_call_global("transform.GetPass", &arg, 1, &ret);
  if (rc) return rc;
  rc = irm_pass_run((irm_pass *)ret.v_obj, mod, out);
  irm_any_release(&ret);
  return rc;
}

static inline int ip_equal(const irm_module *a, const irm_module *b) {
  irm_any va = irm_any_object((irm_object *)a), vb = irm_any_object((irm_object *)b);
  return equal(&va, &vb);
}

#define ip_assert_equal(got, want)                                             \
  do {                                                                         \
    if (!ip_equal((got), (want))) {                                            \
      char *g_ = ip_text(got), *w_ = ip_text(want);                            \
      ck_abort_msg("modules differ\n--- got ---\n%s--- want ---\n%s", g_, w_); \
    }                                                                          \
  } while (0)

/* A float32 tensor of the shape with deterministic values in [-1, 1). */
static inline irm_object *ip_tensor(const int64_t *shape, int32_t ndim, unsigned seed) {
  DLDataType f32 = {kDLFloat, 32, 1};
  irm_tensor *t = NULL;
  ck_assert_ok(irm_tensor_new(f32, shape, ndim, NULL, &t));
  unsigned s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < irm_tensor_numel(t); i++) {
    s = s * 1103515245u + 12345u;
    irm_tensor_set_f64(t, i, (double)((s >> 8) % 2000) / 1000.0 - 1.0);
  }
  return (irm_object *)t;
}

/* Evaluates function name of mod on inputs (an Array, borrowed); NEW tensor. */
static inline irm_object *ip_eval(const irm_module *mod, const char *name, const irm_object *inputs) {
  irm_any out = irm_any_none();
  int rc = irm_dataflow_evaluate(mod, name, inputs, &out);
  ck_require(rc == 0, "evaluate failed: %s", irm_last_error());
  return out.v_obj;
}

static inline void ip_assert_close(const irm_object *a, const irm_object *b) {
  const irm_tensor *x = (const irm_tensor *)a, *y = (const irm_tensor *)b;
  ck_assert_int_eq(irm_tensor_numel(x), irm_tensor_numel(y));
  for (int64_t i = 0; i < irm_tensor_numel(x); i++) {
    double u = irm_tensor_get_f64(x, i), v = irm_tensor_get_f64(y, i);
    ck_require(fabs(u - v) <= 1e-5 * fmax(1.0, fmax(fabs(u), fabs(v))), "element %lld: %g vs %g", (long long)i, u, v);
  }
}

/* Both modules' main give the same tensor on inputs. */
static inline void ip_assert_same_result(const irm_module *a, const irm_module *b, const irm_object *inputs) {
  irm_object *x = ip_eval(a, "main", inputs), *y = ip_eval(b, "main", inputs);
  ip_assert_close(x, y);
  irm_object_release(x);
  irm_object_release(y);
}

#endif
