/* What the built-in op suites share: tensor types and tensors from short
 * specs, call attributes from text ("strides=2,2;padding=1"), calling an
 * op's FInferType and FEvaluate through irm_op_get_attr + irm_func_call,
 * and comparing results. */
#ifndef IRM_TESTS_CHECK_OPS_UTIL_H
#define IRM_TESTS_CHECK_OPS_UTIL_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "check_util.h"

/* A tensor type "float32" of ndim dims. NEW. */
static inline irm_object *ttype(const char *dtype, int ndim, const int64_t *shape) {
  DLDataType d;
  ck_assert_ok(irm_dtype_parse(dtype, &d));
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_type_new(d, shape, ndim, &t));
  return t;
}

/* Shapes as compound literals: SHAPE(2, 3). */
#define SHAPE(...) ((const int64_t[]){__VA_ARGS__}), (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
/* ttype with a shape literal: T("float32", SHAPE(2, 3)). */
#define T(dtype, shape_and_ndim) ttype_s(dtype, shape_and_ndim)
static inline irm_object *ttype_s(const char *dtype, const int64_t *shape, int ndim) {
  return ttype(dtype, ndim, shape);
}
/* A scalar tensor type. */
static inline irm_object *tscalar(const char *dtype) { return ttype(dtype, 0, NULL); }

/* A tensor of dtype and shape holding vals (numel doubles; NULL: 0, 1, 2, ...).
 * NEW. */
static inline irm_object *tensor_v(const char *dtype, const int64_t *shape, int ndim, const double *vals) {
  DLDataType d;
  ck_assert_ok(irm_dtype_parse(dtype, &d));
  irm_object *t = NULL;
  ck_assert_ok(irm_tensor_new(d, shape, ndim, NULL, &t));
  int64_t n = irm_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) irm_tensor_set_f64(t, i, vals ? vals[i] : (double)i);
  return t;
}
/* TENSOR("float32", SHAPE(2, 2), ((double[]){1, 2, 3, 4})) */
#define TENSOR(dtype, shape_and_ndim, vals) tensor_v_s(dtype, shape_and_ndim, vals)
static inline irm_object *tensor_v_s(const char *dtype, const int64_t *shape, int ndim, const double *vals) {
  return tensor_v(dtype, shape, ndim, vals);
}
#define VALS(...) ((const double[]){__VA_ARGS__})

/* Call attributes from "key=value;key=value" text, each value parsed as
 * the op's option type (irm_option_parse_text). NULL or "": no attrs
 * (NULL returned). NEW. */
static inline irm_object *op_attrs(const char *op, const char *text) {
  if (!text || !*text) return NULL;
  irm_kind *kind = NULL;
  ck_assert_ok(irm_kind_find("op", op, &kind));
  irm_object *m = NULL;
  ck_assert_ok(irm_map_new(&m));
  char buf[512];
  snprintf(buf, sizeof buf, "%s", text);
  for (char *save = NULL, *item = strtok_r(buf, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(item, '=');
    ck_assert_ptr_nonnull(eq);
    *eq = '\0';
    irm_option_type type;
    irm_any v = irm_any_none();
    if (irm_kind_option(kind, item, &type, NULL) == 0) {
      ck_assert_ok(irm_option_parse_text(type, eq + 1, &v));
    } else { /* an unknown attribute: pass it as a string so the op refuses it */
      irm_clear_error();
      v = irm_any_str(eq + 1);
    }
    ck_assert_ok(irm_map_set_move(&m, item, &v));
    irm_any_release(&v);
  }
  return m;
}

/* The op's attribute attr (a Function), NEW. */
static inline irm_object *op_func(const char *op, const char *attr) {
  irm_object *node = NULL;
  ck_assert_ok(irm_op_get(op, &node));
  irm_any f = irm_any_none();
  ck_assert_ok(irm_op_get_attr(node, attr, &f));
  irm_object_release(node);
  ck_assert_int_eq(f.type_code, IRM_OBJECT);
  return f.v_obj;
}

/* FInferType(types, attrs): the status; *out NEW type on success. Takes the
 * n types (releases them). */
static inline int infer_n(const char *op, const char *attrs_text, irm_object **out, size_t n, irm_object **types) {
  irm_any items[8];
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(types[i]);
  irm_object *arr = new_array(items, n), *attrs = op_attrs(op, attrs_text), *f = op_func(op, "FInferType");
  for (size_t i = 0; i < n; i++) irm_object_release(types[i]);
  irm_any args[] = {irm_any_object(arr), attrs ? irm_any_object(attrs) : irm_any_none()}, ret;
  int rc = irm_func_call(f, args, 2, &ret);
  irm_object_release(f);
  irm_object_release(arr);
  irm_object_release(attrs);
  *out = rc ? NULL : ret.v_obj;
  if (!rc) ck_assert_int_eq(ret.type_code, IRM_OBJECT);
  return rc;
}
#define INFER(op, attrs, out, ...) \
  infer_n(op, attrs, out, sizeof((irm_object *[]){__VA_ARGS__}) / sizeof(irm_object *), (irm_object *[]){__VA_ARGS__})

/* "(2, 3) float32" for a tensor type. */
static inline const char *type_text(const irm_object *t, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "(");
  int32_t n = irm_tensor_type_ndim(t);
  const int64_t *s = irm_tensor_type_shape(t);
  for (int32_t i = 0; i < n; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "", (long long)s[i]);
  snprintf(buf + used, size - used, "%s) %s", n == 1 ? "," : "", irm_dtype_name(irm_tensor_type_dtype(t)));
  return buf;
}

/* Infers and checks the result's text. */
static inline void expect_type_n(const char *op, const char *attrs, const char *want, size_t n, irm_object **types) {
  irm_object *out = NULL;
  int rc = infer_n(op, attrs, &out, n, types);
  ck_assert_msg(rc == 0, "%s [%s]: %s", op, attrs ? attrs : "", irm_last_error());
  char buf[256];
  ck_assert_str_eq(type_text(out, buf, sizeof buf), want);
  irm_object_release(out);
}
#define EXPECT_TYPE(op, attrs, want, ...)                                                      \
  expect_type_n(op, attrs, want, sizeof((irm_object *[]){__VA_ARGS__}) / sizeof(irm_object *), \
                (irm_object *[]){__VA_ARGS__})

/* Infers, expecting failure with code and exactly the message msg. */
static inline void expect_type_error_n(const char *op, const char *attrs, int code, const char *msg, size_t n,
                                       irm_object **types) {
  irm_object *out = NULL;
  int rc = infer_n(op, attrs, &out, n, types);
  irm_object_release(out);
  ck_assert_msg(rc == code, "%s: expected status %d, got %d (%s)", op, code, rc, irm_last_error());
  if (msg) ck_assert_str_eq(irm_last_error(), msg);
}
#define EXPECT_TYPE_ERROR(op, attrs, code, msg, ...)                                                      \
  expect_type_error_n(op, attrs, code, msg, sizeof((irm_object *[]){__VA_ARGS__}) / sizeof(irm_object *), \
                      (irm_object *[]){__VA_ARGS__})

/* FEvaluate(tensors, attrs): the status; *out NEW tensor. Takes the n
 * tensors (releases them). */
static inline int eval_n(const char *op, const char *attrs_text, irm_object **out, size_t n, irm_object **ts) {
  irm_any items[8];
  for (size_t i = 0; i < n; i++) items[i] = irm_any_object(ts[i]);
  irm_object *arr = new_array(items, n), *attrs = op_attrs(op, attrs_text), *f = op_func(op, "FEvaluate");
  for (size_t i = 0; i < n; i++) irm_object_release(ts[i]);
  irm_any args[] = {irm_any_object(arr), attrs ? irm_any_object(attrs) : irm_any_none()}, ret;
  int rc = irm_func_call(f, args, 2, &ret);
  irm_object_release(f);
  irm_object_release(arr);
  irm_object_release(attrs);
  *out = rc ? NULL : ret.v_obj;
  if (!rc) ck_assert_msg(irm_is_tensor(ret.v_obj), "%s returned no tensor", op);
  return rc;
}
#define EVAL(op, attrs, out, ...) \
  eval_n(op, attrs, out, sizeof((irm_object *[]){__VA_ARGS__}) / sizeof(irm_object *), (irm_object *[]){__VA_ARGS__})

/* t must have shape want_shape and values want (within tol); releases t. */
static inline void expect_values(irm_object *t, const char *dtype, const int64_t *shape, int ndim, const double *want,
                                 double tol) {
  const DLTensor *dl = irm_tensor_dl(t);
  ck_assert_ptr_nonnull(dl);
  ck_assert_str_eq(irm_dtype_name(dl->dtype), dtype);
  ck_assert_int_eq(dl->ndim, ndim);
  for (int i = 0; i < ndim; i++) ck_assert_int_eq(dl->shape[i], shape[i]);
  int64_t n = irm_tensor_numel(t);
  for (int64_t i = 0; i < n; i++) {
    double got = irm_tensor_get_f64(t, i);
    int same = isnan(want[i]) ? isnan(got) : isinf(want[i]) ? got == want[i] : fabs(got - want[i]) <= tol;
    ck_assert_msg(same, "element %lld: got %.9g, want %.9g", (long long)i, got, want[i]);
  }
  irm_object_release(t);
}
#define EXPECT_VALUES(t, dtype, shape_and_ndim, want, tol) expect_values_s(t, dtype, shape_and_ndim, want, tol)
static inline void expect_values_s(irm_object *t, const char *dtype, const int64_t *shape, int ndim, const double *want,
                                   double tol) {
  expect_values(t, dtype, shape, ndim, want, tol);
}

/* Evaluates and expects failure with code and exactly the message msg. */
static inline void expect_eval_error_n(const char *op, const char *attrs, int code, const char *msg, size_t n,
                                       irm_object **ts) {
  irm_object *out = NULL;
  int rc = eval_n(op, attrs, &out, n, ts);
  irm_object_release(out);
  ck_assert_msg(rc == code, "%s: expected status %d, got %d (%s)", op, code, rc, irm_last_error());
  if (msg) ck_assert_str_eq(irm_last_error(), msg);
}
#define EXPECT_EVAL_ERROR(op, attrs, code, msg, ...)                                                      \
  expect_eval_error_n(op, attrs, code, msg, sizeof((irm_object *[]){__VA_ARGS__}) / sizeof(irm_object *), \
                      (irm_object *[]){__VA_ARGS__})

#endif
