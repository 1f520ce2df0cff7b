/* FCodegenC of the elementwise ops: add, subtract, multiply, divide,
 * maximum, negative, exp, sqrt, nn.relu, cast and nn.bias_add, each a
 * scalar C expression so that chains fuse into one loop.
 *
 * The semantics are the evaluator's (docs/ops.md): float32 results are
 * rounded once to float (+, -, *, / and sqrt in float are exactly the
 * double operation rounded once; exp computes in double), ints compute in
 * int64 and wrap to their width, maximum and relu propagate NaN, integer
 * division by zero sets the kernel's status (the helpers live in the
 * prelude, codegen_c.c). */
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_

static int is_float(cg_dt dt) { return irm_cg_is_float_(dt); }

static int binary_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  const char *op = c->op, *t = irm_cg_ctype_(c->out.dt);
  char sym = strcmp(op, "add") == 0 ? '+' : strcmp(op, "subtract") == 0 ? '-' : strcmp(op, "multiply") == 0 ? '*' : strcmp(op, "divide") == 0 ? '/' : 0;
  if (is_float(c->out.dt)) {
    if (sym) P(b, "(%s %c %s)", a[0], sym, a[1]);
    else P(b, "irm_cg_%cmax(%s, %s)", c->out.dt == CG_F64 ? 'd' : 'f', a[0], a[1]);
  } else if (sym == '/') {
    P(b, "(%s)irm_cg_idiv(%s, %s, &st)", t, a[0], a[1]);
  } else if (sym) {
    P(b, "(%s)irm_cg_wrap((uint64_t)(int64_t)%s %c (uint64_t)(int64_t)%s)", t, a[0], sym, a[1]);
  } else {
    P(b, "(%s)irm_cg_imax(%s, %s)", t, a[0], a[1]);
  }
  return IRM_OK;
}

static int unary_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  const char *op = c->op, *t = irm_cg_ctype_(c->out.dt);
  int f = is_float(c->out.dt);
  if (strcmp(op, "negative") == 0) {
    if (f) P(b, "(-%s)", a[0]);
    else P(b, "(%s)irm_cg_wrap(0 - (uint64_t)(int64_t)%s)", t, a[0]);
  } else if (strcmp(op, "exp") == 0) {
    P(b, "(%s)exp((double)%s)", t, a[0]);
  } else if (strcmp(op, "sqrt") == 0) {
    P(b, "(%s)sqrt((double)%s)", t, a[0]);
  } else if (f) { /* nn.relu */
    P(b, "irm_cg_%crelu(%s)", c->out.dt == CG_F64 ? 'd' : 'f', a[0]);
  } else {
    P(b, "(%s)irm_cg_imax(%s, 0)", t, a[0]);
  }
  return IRM_OK;
}

static int cast_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  cg_dt from = c->in[0].dt, to = c->out.dt;
  if (to == CG_BOOL) P(b, "(uint8_t)(%s != 0)", a[0]);
  else if (from == to && from != CG_BOOL) P(b, "%s", a[0]);
  else if (to == CG_F32 && from == CG_I64) P(b, "(float)(double)%s", a[0]);
  else if (irm_cg_is_float_(to)) P(b, "(%s)%s", irm_cg_ctype_(to), a[0]);
  else if (irm_cg_is_float_(from)) P(b, "irm_cg_f2%s(%s)", irm_cg_dtname_(to), a[0]);
  else if (from == CG_BOOL) P(b, "(%s)(%s != 0)", irm_cg_ctype_(to), a[0]);
  else P(b, "(%s)%s", irm_cg_ctype_(to), a[0]);
  return IRM_OK;
}

static int bias_add_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  if (is_float(c->out.dt)) P(b, "(%s + %s)", a[0], a[1]);
  else P(b, "(%s)irm_cg_wrap((uint64_t)(int64_t)%s + (uint64_t)(int64_t)%s)", irm_cg_ctype_(c->out.dt), a[0], a[1]);
  return IRM_OK;
}

static void bias_add_map(const cg_call *c, size_t i, int32_t *map) {
  if (i == 0) {
    for (int32_t d = 0; d < c->out.ndim; d++) map[d] = d;
    return;
  }
  int64_t axis = irm_cg_attr_int_(c, "axis", 1);
  if (axis < 0) axis += c->out.ndim;
  map[0] = (int32_t)axis;
}

const cg_op irm_cg_elemwise_ops_[] = {
    {"add", binary_expr, NULL, NULL},
    {"subtract", binary_expr, NULL, NULL},
    {"multiply", binary_expr, NULL, NULL},
    {"divide", binary_expr, NULL, NULL},
    {"maximum", binary_expr, NULL, NULL},
    {"negative", unary_expr, NULL, NULL},
    {"exp", unary_expr, NULL, NULL},
    {"sqrt", unary_expr, NULL, NULL},
    {"nn.relu", unary_expr, NULL, NULL},
    {"cast", cast_expr, NULL, NULL},
    {"nn.bias_add", bias_add_expr, bias_add_map, NULL},
};
const size_t irm_cg_elemwise_ops_count_ = sizeof irm_cg_elemwise_ops_ / sizeof irm_cg_elemwise_ops_[0];
