/* What the suites of the built-in IR passes share: modules from the text
 * form, printing, and evaluation on seeded inputs. */
#ifndef IRM_TESTS_CHECK_IR_PASS_UTIL_H
#define IRM_TESTS_CHECK_IR_PASS_UTIL_H

#include "check_util.h"

/* A module parsed from text (the test fails on a parse error). */
static inline irm_module *parse_module(const char *text) {
  irm_module *m = NULL;
  int rc = irm_ir_parse(text, strlen(text), &m);
  ck_require(rc == 0, "parse failed: %s\n%s", irm_last_error(), text);
  return m;
}

/* The text of m as a NEW String's data: the caller releases *s. */
static inline const char *module_text(const irm_module *m, irm_object **s) {
  ck_assert_ok(irm_ir_print(m, s));
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
  int rc = irm_ir_evaluate(m, "main", inputs, out);
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

#endif
