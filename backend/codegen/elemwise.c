/* FCodegenC of the elementwise ops (ir/dataflow/ops/elemwise.c): add,
 * subtract, multiply, divide, maximum, minimum, power, mod, floor_mod,
 * negative, exp, sqrt, nn.relu, the float functions (sigmoid, tanh, log,
 * erf, floor, ceil, round, the trigonometric and hyperbolic ones), abs,
 * sign, clip, cast and cast_like, and the creation ops (zeros, ones, full
 * and their _like forms), each a scalar C expression so that chains fuse
 * into one loop.
 *
 * The semantics are the evaluator's (docs/ops.md): float32 results are
 * rounded once to float (+, -, *, / and sqrt in float are exactly the
 * double operation rounded once; the other functions compute in double),
 * ints compute in int64 and wrap to their width (through uint64_t),
 * maximum and relu propagate NaN, integer division and mod by zero set the
 * kernel's status (the helpers live in the prelude, codegen_c_prelude.c). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c_text.h"
#include "codegen_c_internal.h"

#define P irm_text_buf_printf_
#define LL(x) ((long long)(x))

static int is_float(cg_dt dt) { return irm_cg_is_float_(dt); }

static int binary_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  const char *op = c->op, *t = irm_cg_ctype_(c->out.dt);
  char sym = strcmp(op, "add") == 0        ? '+'
             : strcmp(op, "subtract") == 0 ? '-'
             : strcmp(op, "multiply") == 0 ? '*'
             : strcmp(op, "divide") == 0   ? '/'
                                           : 0;
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

/* a, of element type from, converted to `to` as cast converts. */
static void cast_text(cg_dt from, cg_dt to, const char *a0, irm_text_buf *b) {
  const char *a[1] = {a0};
  if (to == CG_BOOL) P(b, "(uint8_t)(%s != 0)", a[0]);
  else if (from == to && from != CG_BOOL) P(b, "%s", a[0]);
  else if (to == CG_F32 && from == CG_I64) P(b, "(float)(double)%s", a[0]);
  else if (irm_cg_is_float_(to)) P(b, "(%s)%s", irm_cg_ctype_(to), a[0]);
  else if (irm_cg_is_float_(from)) P(b, "irm_cg_f2%s(%s)", irm_cg_dtname_(to), a[0]);
  else if (from == CG_BOOL) P(b, "(%s)(%s != 0)", irm_cg_ctype_(to), a[0]);
  else P(b, "(%s)%s", irm_cg_ctype_(to), a[0]);
}

/* cast and cast_like (whose second input only gives the dtype: named as
 * void so that its loop offset is used). */
static int cast_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  if (c->n_in > 1) P(b, "((void)%s, ", a[1]);
  cast_text(c->in[0].dt, c->out.dt, a[0], b);
  if (c->n_in > 1) P(b, ")");
  return IRM_OK;
}

static int f64(const cg_call *c) { return c->out.dt == CG_F64; }

static int binary2_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  const char *op = c->op, *t = irm_cg_ctype_(c->out.dt);
  if (irm_cg_is_float_(c->out.dt)) {
    if (strcmp(op, "minimum") == 0) P(b, "irm_cg_%cmin(%s, %s)", f64(c) ? 'd' : 'f', a[0], a[1]);
    else if (strcmp(op, "power") == 0) P(b, "(%s)pow((double)%s, (double)%s)", t, a[0], a[1]);
    else if (strcmp(op, "mod") == 0) P(b, "(%s)fmod((double)%s, (double)%s)", t, a[0], a[1]);
    else P(b, "(%s)irm_cg_dfloormod((double)%s, (double)%s)", t, a[0], a[1]);
  } else {
    if (strcmp(op, "minimum") == 0) P(b, "(%s)irm_cg_imin(%s, %s)", t, a[0], a[1]);
    else if (strcmp(op, "power") == 0) P(b, "(%s)irm_cg_ipow(%s, %s)", t, a[0], a[1]);
    else P(b, "(%s)irm_cg_imod(%s, %s, %d, &st)", t, a[0], a[1], strcmp(op, "floor_mod") == 0);
  }
  return IRM_OK;
}

/* The float functions: the C function of double applied to the input. */
static const char *const float_fns[][2] = {
    {"tanh", "tanh"},       {"log", "log"},     {"erf", "erf"},   {"floor", "floor"}, {"ceil", "ceil"},
    {"round", "nearbyint"}, {"sin", "sin"},     {"cos", "cos"},   {"tan", "tan"},     {"asin", "asin"},
    {"acos", "acos"},       {"atan", "atan"},   {"sinh", "sinh"}, {"cosh", "cosh"},   {"asinh", "asinh"},
    {"acosh", "acosh"},     {"atanh", "atanh"},
};

static int unary2_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  const char *op = c->op, *t = irm_cg_ctype_(c->out.dt);
  int fl = irm_cg_is_float_(c->out.dt);
  if (strcmp(op, "sigmoid") == 0) {
    P(b, "(%s)(1.0 / (1.0 + exp(-(double)%s)))", t, a[0]);
  } else if (strcmp(op, "abs") == 0) {
    if (fl) P(b, "(%s)fabs((double)%s)", t, a[0]);
    else P(b, "(%s)irm_cg_iabs(%s)", t, a[0]);
  } else if (strcmp(op, "sign") == 0) {
    if (fl) P(b, "(%s)irm_cg_dsign((double)%s)", t, a[0]);
    else P(b, "(%s)irm_cg_imax(irm_cg_imin(%s, 1), -1)", t, a[0]);
  } else {
    for (size_t i = 0; i < sizeof float_fns / sizeof float_fns[0]; i++)
      if (strcmp(op, float_fns[i][0]) == 0) return P(b, "(%s)%s((double)%s)", t, float_fns[i][1], a[0]), IRM_OK;
    return irm_cg_fail_(c, "no C expression for this op");
  }
  return IRM_OK;
}

/* A double as an exact C literal. */
static void dbl(double v, irm_text_buf *b) { irm_c_double_(b, v); }

/* Converts to float without overflow (infinities included). */
static int float_bound(double v) { return isinf(v) || fabs(v) <= FLT_MAX; }

/* A float_bound double rounded to float, as a C literal. */
static void flt(double v, irm_text_buf *b) { irm_c_float_(b, (float)v); }

static int clip_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  irm_clip_attrs at;
  int rc = irm_clip_attrs_decode(c->op, c->attrs, &at);
  if (rc) return rc;
  double lo = at.a_min, hi = at.a_max;
  if (c->out.dt == CG_F32 && lo <= hi && float_bound(lo) && float_bound(hi)) {
    /* in float with the bounds rounded to float: rounding is monotone, so
     * the result is the double clamp's, rounded (lo > hi keeps double) */
    P(b, "irm_cg_fclip(%s, ", a[0]);
    flt(lo, b);
    irm_text_buf_puts_(b, ", ");
    flt(hi, b);
    irm_text_buf_puts_(b, ")");
    return IRM_OK;
  }
  if (irm_cg_is_float_(c->out.dt)) P(b, "(%s)irm_cg_dclip((double)%s, ", irm_cg_ctype_(c->out.dt), a[0]);
  else P(b, "(%s)irm_cg_iclip(%s, ", irm_cg_ctype_(c->out.dt), a[0]);
  dbl(lo, b);
  irm_text_buf_puts_(b, ", ");
  dbl(hi, b);
  irm_text_buf_puts_(b, ")");
  return IRM_OK;
}

/* zeros, ones and their _like forms: 0 or 1 of the output type; a _like
 * form's input is named (as void) so that its loop offset is used. */
static int zeros_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  int one = strncmp(c->op, "ones", 4) == 0;
  if (c->n_in) P(b, "((void)%s, (%s)%d)", a[0], irm_cg_ctype_(c->out.dt), one);
  else P(b, "((%s)%d)", irm_cg_ctype_(c->out.dt), one);
  return IRM_OK;
}

/* full and full_like: the scalar fill value (the last input), cast. */
static int full_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  size_t k = c->n_in - 1;
  if (k) P(b, "((void)%s, ", a[0]);
  cast_text(c->in[k].dt, c->out.dt, a[k], b);
  if (k) P(b, ")");
  return IRM_OK;
}

const cg_op irm_cg_elemwise_ops_[] = {
    {"add", binary_expr, NULL, NULL},
    {"subtract", binary_expr, NULL, NULL},
    {"multiply", binary_expr, NULL, NULL},
    {"divide", binary_expr, NULL, NULL},
    {"maximum", binary_expr, NULL, NULL},
    {"minimum", binary2_expr, NULL, NULL},
    {"power", binary2_expr, NULL, NULL},
    {"mod", binary2_expr, NULL, NULL},
    {"floor_mod", binary2_expr, NULL, NULL},
    {"negative", unary_expr, NULL, NULL},
    {"exp", unary_expr, NULL, NULL},
    {"sqrt", unary_expr, NULL, NULL},
    {"nn.relu", unary_expr, NULL, NULL},
    {"sigmoid", unary2_expr, NULL, NULL},
    {"tanh", unary2_expr, NULL, NULL},
    {"log", unary2_expr, NULL, NULL},
    {"erf", unary2_expr, NULL, NULL},
    {"abs", unary2_expr, NULL, NULL},
    {"floor", unary2_expr, NULL, NULL},
    {"ceil", unary2_expr, NULL, NULL},
    {"round", unary2_expr, NULL, NULL},
    {"sign", unary2_expr, NULL, NULL},
    {"sin", unary2_expr, NULL, NULL},
    {"cos", unary2_expr, NULL, NULL},
    {"tan", unary2_expr, NULL, NULL},
    {"asin", unary2_expr, NULL, NULL},
    {"acos", unary2_expr, NULL, NULL},
    {"atan", unary2_expr, NULL, NULL},
    {"sinh", unary2_expr, NULL, NULL},
    {"cosh", unary2_expr, NULL, NULL},
    {"asinh", unary2_expr, NULL, NULL},
    {"acosh", unary2_expr, NULL, NULL},
    {"atanh", unary2_expr, NULL, NULL},
    {"clip", clip_expr, NULL, NULL},
    {"cast", cast_expr, NULL, NULL},
    {"zeros_like", zeros_expr, NULL, NULL},
    {"cast_like", cast_expr, irm_cg_like_map_, NULL},
    {"ones_like", zeros_expr, NULL, NULL},
    {"full_like", full_expr, NULL, NULL},
    {"zeros", zeros_expr, NULL, NULL},
    {"ones", zeros_expr, NULL, NULL},
    {"full", full_expr, NULL, NULL},
};
const size_t irm_cg_elemwise_ops_count_ = sizeof irm_cg_elemwise_ops_ / sizeof irm_cg_elemwise_ops_[0];
