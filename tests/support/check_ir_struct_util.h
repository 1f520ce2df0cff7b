/* Builders of IR expressions for check_ir_structural.c and
 * check_ir_verify.c, and the test ops they call ("ts.add", "ts.mul" with
 * an int attribute "scale" (default 1), "ts.neg"). The builders take over
 * the references they are given (so nested calls read like the program);
 * R(x) retains x for a second use. Static inline only. */
#ifndef IRM_TESTS_CHECK_IR_STRUCT_UTIL_H
#define IRM_TESTS_CHECK_IR_STRUCT_UTIL_H

#include <stdarg.h>
#include <stdint.h>

#include <irm/dataflow/expr.h>
#include <irm/dataflow/type.h>
#include <irm/dataflow/op.h>
#include <irm/structural.h>
#include <irm/tensor.h>

#include "check_util.h"

/* ck_assert_ok, silent on success: the builders run in loops of 100 000. */
#define build_ok(expr)                                                                        \
  do {                                                                                        \
    int build_rc_ = (expr);                                                                   \
    ck_require(build_rc_ == 0, "%s failed with %d (%s)", #expr, build_rc_, irm_last_error()); \
  } while (0)

/* Registers the test ops once per process. */
static inline void ensure_test_ops(void) {
  irm_object *probe = NULL;
  if (irm_op_get("ts.add", &probe) == 0) {
    irm_object_release(probe);
    return;
  }
  irm_kind *k = NULL;
  irm_any one = irm_any_int(1);
  build_ok(irm_op_register("ts.add", 2, &k));
  build_ok(irm_kind_add_option(k, "scale", IRM_OPTION_INT, &one, "a factor", 0));
  build_ok(irm_op_register("ts.mul", 2, &k));
  build_ok(irm_kind_add_option(k, "scale", IRM_OPTION_INT, &one, "a factor", 0));
  build_ok(irm_op_register("ts.neg", 1, NULL));
}

static inline irm_object *R(irm_object *o) {
  irm_object_retain(o);
  return o;
}

static inline irm_object *op(const char *name) {
  irm_object *o = NULL;
  ensure_test_ops();
  build_ok(irm_op_get(name, &o));
  return o;
}

/* A float32 tensor type of the given shape. */
static inline irm_object *ttype(int32_t ndim, const int64_t *shape) {
  irm_object *t = NULL;
  DLDataType f32 = {kDLFloat, 32, 1};
  build_ok(irm_tensor_type_new(f32, shape, ndim, &t));
  return t;
}

/* A float32 tensor type of shape (d,). */
static inline irm_object *vec(int64_t d) { return ttype(1, &d); }

/* A var named name with annotation type (taken; may be NULL). */
static inline irm_object *var(const char *name, irm_object *type) {
  irm_object *v = NULL;
  build_ok(irm_var_new(name, type, &v));
  irm_object_release(type);
  return v;
}

static inline irm_object *gvar(const char *name) {
  irm_object *g = NULL;
  build_ok(irm_global_var_new(name, &g));
  return g;
}

/* callee(args...) with attrs (borrowed, may be NULL); takes callee and
 * the n arguments. */
static inline irm_object *call_attrs(irm_object *callee, const irm_object *attrs, size_t n, ...) {
  irm_object *args[16] = {0};
  va_list ap;
  va_start(ap, n);
  for (size_t i = 0; i < n; i++) args[i] = va_arg(ap, irm_object *);
  va_end(ap);
  irm_object *c = NULL;
  build_ok(irm_call_new(callee, args, n, attrs, &c));
  irm_object_release(callee);
  for (size_t i = 0; i < n; i++) irm_object_release(args[i]);
  return c;
}

static inline irm_object *add(irm_object *a, irm_object *b) { return call_attrs(op("ts.add"), NULL, 2, a, b); }
static inline irm_object *mul(irm_object *a, irm_object *b) { return call_attrs(op("ts.mul"), NULL, 2, a, b); }
static inline irm_object *neg(irm_object *a) { return call_attrs(op("ts.neg"), NULL, 1, a); }

static inline irm_object *tuple2(irm_object *a, irm_object *b) {
  irm_object *f[] = {a, b}, *t = NULL;
  build_ok(irm_tuple_new(f, 2, &t));
  irm_object_release(a);
  irm_object_release(b);
  return t;
}

static inline irm_object *get(irm_object *t, int64_t i) {
  irm_object *g = NULL;
  build_ok(irm_tuple_get_item_new(t, i, &g));
  irm_object_release(t);
  return g;
}

static inline irm_object *let(irm_object *v, irm_object *value, irm_object *body) {
  irm_object *l = NULL;
  build_ok(irm_let_new(v, value, body, &l));
  irm_object_release(v);
  irm_object_release(value);
  irm_object_release(body);
  return l;
}

/* fn(params[0..n)) { body } -> ret: takes params, body and ret (may be
 * NULL); attrs borrowed (may be NULL). */
static inline irm_object *fn(irm_object *const *params, size_t n, irm_object *body, irm_object *ret,
                             const irm_object *attrs) {
  irm_object *f = NULL;
  build_ok(irm_function_new(params, n, body, ret, attrs, &f));
  for (size_t i = 0; i < n; i++) irm_object_release(params[i]);
  irm_object_release(body);
  irm_object_release(ret);
  return f;
}

static inline irm_object *fn1(irm_object *p, irm_object *body) { return fn(&p, 1, body, NULL, NULL); }

static inline irm_object *fn2(irm_object *p, irm_object *q, irm_object *body) {
  irm_object *ps[] = {p, q};
  return fn(ps, 2, body, NULL, NULL);
}

/* e with checked type t (both taken). */
static inline irm_object *typed(irm_object *e, irm_object *t) {
  irm_object *out = NULL;
  build_ok(irm_expr_with_type(e, t, &out));
  irm_object_release(e);
  irm_object_release(t);
  return out;
}

/* A module of one function "main" (taken). */
static inline irm_module *module1(irm_object *f) {
  irm_module *m = NULL, *out = NULL;
  build_ok(irm_module_new(NULL, NULL, &m));
  build_ok(irm_module_with_function(m, "main", f, &out));
  irm_object_release(m);
  irm_object_release(f);
  return out;
}

/* Adds function f (taken) as name. */
static inline irm_module *with_fn(irm_module *m, const char *name, irm_object *f) {
  irm_module *out = NULL;
  build_ok(irm_module_with_function(m, name, f, &out));
  irm_object_release(m);
  irm_object_release(f);
  return out;
}

static inline int struct_eq(const irm_object *a, const irm_object *b) {
  irm_any x = irm_any_object((irm_object *)a), y = irm_any_object((irm_object *)b);
  int eq = -1;
  int rc = irm_structural_equal(&x, &y, &eq);
  ck_require(rc == 0, "irm_structural_equal failed: %s", irm_last_error());
  return eq;
}

static inline uint64_t struct_hash(const irm_object *a) {
  irm_any x = irm_any_object((irm_object *)a);
  uint64_t h = 0;
  int rc = irm_structural_hash(&x, &h);
  ck_require(rc == 0, "irm_structural_hash failed: %s", irm_last_error());
  return h;
}

#endif
