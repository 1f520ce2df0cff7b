/* FCodegenC of the elementwise ops the ONNX frontend added: minimum,
 * power, mod, floor_mod, the float functions (sigmoid, tanh, log, erf,
 * floor, ceil, round, the trigonometric and hyperbolic ones), abs, sign,
 * clip, the comparisons and logical ops (bool results), where,
 * nn.leaky_relu and nn.dropout (the inference identity). Each is a scalar
 * C expression, so chains fuse into one loop like the built-in
 * elementwise ops (codegen_c_elemwise.c).
 *
 * The semantics are the evaluator's (docs/ops.md): floats compute in
 * double and round once to the output type; ints compute in int64 and
 * wrap (through uint64_t); integer mod by zero sets the kernel's status as
 * division does; comparisons of floats are double comparisons (NaN
 * unequal to everything), of ints int64 ones. */
#include <math.h>
#include <string.h>

#include "codegen_c_internal.h"

#define P irm_text_buf_printf_

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
    {"tanh", "tanh"},   {"log", "log"},     {"erf", "erf"},     {"floor", "floor"}, {"ceil", "ceil"},
    {"round", "nearbyint"}, {"sin", "sin"}, {"cos", "cos"},     {"tan", "tan"},     {"asin", "asin"},
    {"acos", "acos"},   {"atan", "atan"},   {"sinh", "sinh"},   {"cosh", "cosh"},   {"asinh", "asinh"},
    {"acosh", "acosh"}, {"atanh", "atanh"},
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
  } else if (strcmp(op, "nn.dropout") == 0) {
    P(b, "%s", a[0]);
  } else {
    for (size_t i = 0; i < sizeof float_fns / sizeof float_fns[0]; i++)
      if (strcmp(op, float_fns[i][0]) == 0) return P(b, "(%s)%s((double)%s)", t, float_fns[i][1], a[0]), IRM_OK;
    return irm_cg_fail_(c, "no C expression for this op");
  }
  return IRM_OK;
}

/* A float attribute (absent or not a float: def). */
static double attr_float(const cg_call *c, const char *name, double def) {
  const irm_any *v = c->attrs ? irm_map_find_cstr(c->attrs, name) : NULL;
  return v && v->type_code == IRM_FLOAT ? v->v_float : v && v->type_code == IRM_INT ? (double)v->v_int : def;
}

/* A double as an exact C literal. */
static void dbl(double v, irm_text_buf *b) {
  if (v != v) irm_text_buf_puts_(b, "NAN");
  else if (isinf(v)) irm_text_buf_puts_(b, v > 0 ? "INFINITY" : "-INFINITY");
  else P(b, "%a", v);
}

static int clip_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  double lo = attr_float(c, "a_min", -INFINITY), hi = attr_float(c, "a_max", INFINITY);
  if (irm_cg_is_float_(c->out.dt)) P(b, "(%s)irm_cg_dclip((double)%s, ", irm_cg_ctype_(c->out.dt), a[0]);
  else P(b, "(%s)irm_cg_iclip(%s, ", irm_cg_ctype_(c->out.dt), a[0]);
  dbl(lo, b);
  irm_text_buf_puts_(b, ", ");
  dbl(hi, b);
  irm_text_buf_puts_(b, ")");
  return IRM_OK;
}

static int leaky_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  P(b, "(%s)irm_cg_leaky((double)%s, ", irm_cg_ctype_(c->out.dt), a[0]);
  dbl(attr_float(c, "alpha", 0.01), b);
  irm_text_buf_puts_(b, ")");
  return IRM_OK;
}

static int compare_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  static const char *const ops[][2] = {{"equal", "=="},  {"not_equal", "!="},   {"less", "<"},
                                       {"less_equal", "<="}, {"greater", ">"}, {"greater_equal", ">="}};
  const char *sym = "==";
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strcmp(c->op, ops[i][0]) == 0) sym = ops[i][1];
  const char *as = irm_cg_is_float_(c->in[0].dt) ? "double" : "int64_t";
  P(b, "(uint8_t)((%s)%s %s (%s)%s)", as, a[0], sym, as, a[1]);
  return IRM_OK;
}

static int logical_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  if (strcmp(c->op, "logical_not") == 0) P(b, "(uint8_t)(%s == 0)", a[0]);
  else P(b, "(uint8_t)((%s != 0) %c (%s != 0))", a[0], strcmp(c->op, "logical_and") == 0 ? '&' : '|', a[1]);
  return IRM_OK;
}

static int where_expr(const cg_call *c, const char *const *a, irm_text_buf *b) {
  (void)c;
  P(b, "(%s ? %s : %s)", a[0], a[1], a[2]);
  return IRM_OK;
}

const cg_op irm_cg_elemwise2_ops_[] = {
    {"minimum", binary2_expr, NULL, NULL},   {"power", binary2_expr, NULL, NULL},
    {"mod", binary2_expr, NULL, NULL},       {"floor_mod", binary2_expr, NULL, NULL},
    {"sigmoid", unary2_expr, NULL, NULL},    {"tanh", unary2_expr, NULL, NULL},
    {"log", unary2_expr, NULL, NULL},        {"erf", unary2_expr, NULL, NULL},
    {"abs", unary2_expr, NULL, NULL},        {"floor", unary2_expr, NULL, NULL},
    {"ceil", unary2_expr, NULL, NULL},       {"round", unary2_expr, NULL, NULL},
    {"sign", unary2_expr, NULL, NULL},       {"sin", unary2_expr, NULL, NULL},
    {"cos", unary2_expr, NULL, NULL},        {"tan", unary2_expr, NULL, NULL},
    {"asin", unary2_expr, NULL, NULL},       {"acos", unary2_expr, NULL, NULL},
    {"atan", unary2_expr, NULL, NULL},       {"sinh", unary2_expr, NULL, NULL},
    {"cosh", unary2_expr, NULL, NULL},       {"asinh", unary2_expr, NULL, NULL},
    {"acosh", unary2_expr, NULL, NULL},      {"atanh", unary2_expr, NULL, NULL},
    {"clip", clip_expr, NULL, NULL},         {"nn.leaky_relu", leaky_expr, NULL, NULL},
    {"nn.dropout", unary2_expr, NULL, NULL}, {"equal", compare_expr, NULL, NULL},
    {"not_equal", compare_expr, NULL, NULL}, {"less", compare_expr, NULL, NULL},
    {"less_equal", compare_expr, NULL, NULL}, {"greater", compare_expr, NULL, NULL},
    {"greater_equal", compare_expr, NULL, NULL}, {"logical_and", logical_expr, NULL, NULL},
    {"logical_or", logical_expr, NULL, NULL}, {"logical_not", logical_expr, NULL, NULL},
    {"where", where_expr, NULL, NULL},
};
const size_t irm_cg_elemwise2_ops_count_ = sizeof irm_cg_elemwise2_ops_ / sizeof irm_cg_elemwise2_ops_[0];
