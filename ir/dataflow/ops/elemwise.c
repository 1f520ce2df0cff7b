/* Elementwise ops: add, subtract, multiply, divide, maximum, minimum,
 * power, mod (truncated, C's fmod) and floor_mod (the divisor's sign) with
 * NumPy broadcasting (pattern BROADCAST); negative, exp, sqrt, relu,
 * sigmoid, tanh, log, erf, abs, floor, ceil, the trigonometric and
 * hyperbolic functions, round, sign, clip, cast and cast_like, and the
 * creation ops zeros, ones, full and their _like forms (ELEMWISE). Floats
 * compute in double and round once when stored; ints
 * compute in int64 and wrap to their width, as C's unsigned arithmetic and
 * TVM's generated code do. Integer division truncates toward zero (TVM's
 * `divide` on ints); dividing an int by zero is a ValueError. */
#include <math.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "ops_util.h"

/* ---- binary broadcasting ops ------------------------------------------------------- */

static const char *const binary_args[] = {"lhs", "rhs"};

static int binary_infer(const ops_ctx *c, irm_object **out) { return irm_ops_binary_infer_(c, NULL, out); }

typedef enum binop { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MAX, OP_MIN, OP_POW, OP_MOD, OP_FMOD } binop;

static binop binop_of(const ops_ctx *c) {
  const char *n = c->def->name;
  return strcmp(n, "add") == 0         ? OP_ADD
         : strcmp(n, "subtract") == 0  ? OP_SUB
         : strcmp(n, "multiply") == 0  ? OP_MUL
         : strcmp(n, "divide") == 0    ? OP_DIV
         : strcmp(n, "minimum") == 0   ? OP_MIN
         : strcmp(n, "power") == 0     ? OP_POW
         : strcmp(n, "floor_mod") == 0 ? OP_MOD
         : strcmp(n, "mod") == 0       ? OP_FMOD
                                       : OP_MAX;
}

/* Integer power by squaring, wrapping; a negative exponent gives 0 except
 * for bases 1 and -1 (C's integer pow has no fractions, as NumPy's). */
static int64_t ipow(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
  uint64_t r = 1, x = (uint64_t)a;
  for (; b; b >>= 1, x *= x)
    if (b & 1) r *= x;
  return (int64_t)r;
}

static inline double fbin(binop op, double a, double b) {
  switch (op) {
  case OP_ADD: return a + b;
  case OP_SUB: return a - b;
  case OP_MUL: return a * b;
  case OP_DIV: return a / b;
  case OP_POW: return pow(a, b);
  case OP_FMOD: return fmod(a, b);
  case OP_MOD: { /* the sign of the divisor, as NumPy's mod */
    double r = fmod(a, b);
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
  }
  case OP_MIN: return isnan(a) || isnan(b) ? NAN : a < b ? a : b;
  default: return isnan(a) || isnan(b) ? NAN : a > b ? a : b; /* NumPy's maximum propagates NaN */
  }
}

/* Wrapping int64 arithmetic, through uint64 so int64 operands wrap as
 * defined behaviour (TVM's generated code wraps the same way). */
static inline int64_t wrap64(uint64_t u) { return u > (uint64_t)INT64_MAX ? -(int64_t)(~u) - 1 : (int64_t)u; }

static inline int64_t ibin(binop op, int64_t a, int64_t b) {
  switch (op) {
  case OP_ADD: return wrap64((uint64_t)a + (uint64_t)b);
  case OP_SUB: return wrap64((uint64_t)a - (uint64_t)b);
  case OP_MUL: return wrap64((uint64_t)a * (uint64_t)b);
  case OP_DIV: return b == -1 ? wrap64(0 - (uint64_t)a) : a / b; /* b != 0: checked by the caller */
  case OP_POW: return ipow(a, b);
  case OP_FMOD:
  case OP_MOD: {
    int64_t r = b == -1 ? 0 : a % b; /* b != 0: checked by the caller */
    return op == OP_MOD && r != 0 && (r < 0) != (b < 0) ? r + b : r;
  }
  case OP_MIN: return a < b ? a : b;
  default: return a > b ? a : b;
  }
}

static int binary_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *o = irm_tensor_dl(out);
  int64_t sa[OPS_MAX_NDIM], sb[OPS_MAX_NDIM];
  const DLTensor *a = irm_tensor_dl(in[0]), *b = irm_tensor_dl(in[1]);
  irm_ops_broadcast_strides_(a->shape, a->ndim, o->shape, o->ndim, sa);
  irm_ops_broadcast_strides_(b->shape, b->ndim, o->shape, o->ndim, sb);
  int64_t numel = irm_tensor_numel(out);
  binop op = binop_of(c);
  ops_kind k = irm_ops_kind_of_(o->dtype);
  if (k == OPS_F32) { /* the common case, without conversions */
    const float *pa = a->data, *pb = b->data;
    float *po = o->data;
    BROADCAST_LOOP(o->shape, o->ndim, numel, sa, sb, po[oi] = (float)fbin(op, pa[ia], pb[ib]));
  } else if (irm_ops_kind_is_float_(k)) {
    BROADCAST_LOOP(
        o->shape, o->ndim, numel, sa, sb,
        irm_ops_store_f64_(out, k, oi, fbin(op, irm_ops_load_f64_(in[0], k, ia), irm_ops_load_f64_(in[1], k, ib))));
  } else {
    int zero = 0;
    BROADCAST_LOOP(o->shape, o->ndim, numel, sa, sb, {
      int64_t x = irm_ops_load_i64_(in[0], k, ia), y = irm_ops_load_i64_(in[1], k, ib);
      if ((op == OP_DIV || op == OP_MOD || op == OP_FMOD) && y == 0) {
        zero = 1;
        break;
      }
      irm_ops_store_i64_(out, k, oi, ibin(op, x, y));
    });
    if (zero) return irm_error(IRM_EVALUE, "%s: integer division by zero", c->def->name);
  }
  return IRM_OK;
}

/* ---- unary ops ------------------------------------------------------------------------ */

static const char *const unary_args[] = {"data"};

static int same_type_infer(const ops_ctx *c, irm_object **out) {
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

typedef enum unop {
  OP_NEG,
  OP_EXP,
  OP_SQRT,
  OP_RELU,
  OP_SIGMOID,
  OP_TANH,
  OP_LOG,
  OP_ERF,
  OP_ABS,
  OP_FLOOR,
  OP_CEIL,
  OP_SIN,
  OP_COS,
  OP_TAN,
  OP_ASIN,
  OP_ACOS,
  OP_ATAN,
  OP_SINH,
  OP_COSH,
  OP_ASINH,
  OP_ACOSH,
  OP_ATANH,
  OP_ROUND,
  OP_SIGN
} unop;

static const char *const unop_names[] = {"negative", "exp",   "sqrt", "nn.relu", "sigmoid", "tanh",  "log",   "erf",
                                         "abs",      "floor", "ceil", "sin",     "cos",     "tan",   "asin",  "acos",
                                         "atan",     "sinh",  "cosh", "asinh",   "acosh",   "atanh", "round", "sign"};

static unop unop_of(const ops_ctx *c) {
  for (size_t i = 0; i < sizeof unop_names / sizeof unop_names[0]; i++)
    if (strcmp(c->def->name, unop_names[i]) == 0) return (unop)i;
  return OP_RELU;
}

static inline double fun(unop op, double x) {
  switch (op) {
  case OP_NEG: return -x;
  case OP_EXP: return exp(x);
  case OP_SQRT: return sqrt(x);
  case OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
  case OP_TANH: return tanh(x);
  case OP_LOG: return log(x);
  case OP_ERF: return erf(x);
  case OP_ABS: return fabs(x);
  case OP_FLOOR: return floor(x);
  case OP_CEIL: return ceil(x);
  case OP_SIN: return sin(x);
  case OP_COS: return cos(x);
  case OP_TAN: return tan(x);
  case OP_ASIN: return asin(x);
  case OP_ACOS: return acos(x);
  case OP_ATAN: return atan(x);
  case OP_SINH: return sinh(x);
  case OP_COSH: return cosh(x);
  case OP_ASINH: return asinh(x);
  case OP_ACOSH: return acosh(x);
  case OP_ATANH: return atanh(x);
  case OP_ROUND: return nearbyint(x);                  /* half to even, as NumPy's and ONNX's Round */
  case OP_SIGN: return x > 0 ? 1.0 : x < 0 ? -1.0 : x; /* NaN and -0.0 stay */
  default: return x > 0 ? x : isnan(x) ? x : 0.0;
  }
}

static int unary_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  int64_t numel = irm_tensor_numel(out);
  unop op = unop_of(c);
  ops_kind k = irm_ops_tensor_kind_(out);
  if (k == OPS_F32) {
    const float *p = irm_tensor_data_const(in[0]);
    float *po = irm_tensor_data(out);
    for (int64_t i = 0; i < numel; i++) po[i] = (float)fun(op, p[i]);
  } else if (irm_ops_kind_is_float_(k)) {
    for (int64_t i = 0; i < numel; i++) irm_ops_store_f64_(out, k, i, fun(op, irm_ops_load_f64_(in[0], k, i)));
  } else { /* negative, relu, abs: the float-only ops refuse ints in their type check */
    for (int64_t i = 0; i < numel; i++) {
      int64_t x = irm_ops_load_i64_(in[0], k, i);
      int neg = op == OP_NEG || (op == OP_ABS && x < 0);
      if (op == OP_SIGN) x = x > 0 ? 1 : x < 0 ? -1 : 0;
      irm_ops_store_i64_(out, k, i, neg ? wrap64(0 - (uint64_t)x) : op == OP_RELU && x < 0 ? 0 : x);
    }
  }
  return IRM_OK;
}

/* ---- clip ------------------------------------------------------------------------------ */

static int clip_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_clip_attrs a;
  int rc = irm_clip_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  double lo = a.a_min, hi = a.a_max;
  int64_t numel = irm_tensor_numel(out);
  ops_kind k = irm_ops_tensor_kind_(out);
  for (int64_t i = 0; i < numel; i++) {
    double x = irm_ops_load_f64_(in[0], k, i); /* NaN stays NaN */
    if (irm_ops_kind_is_float_(k)) irm_ops_store_f64_(out, k, i, x < lo ? lo : x > hi ? hi : x);
    else {
      int64_t y = irm_ops_load_i64_(in[0], k, i);
      if ((double)y < lo) y = (int64_t)ceil(lo);
      if ((double)y > hi) y = (int64_t)floor(hi);
      irm_ops_store_i64_(out, k, i, y);
    }
  }
  return IRM_OK;
}

static const ops_attr_def clip_attrs[] = {
    {"a_min", IRM_OPTION_FLOAT, NULL, "the lower bound; absent: none", 0},
    {"a_max", IRM_OPTION_FLOAT, NULL, "the upper bound; absent: none", 0},
};

/* ---- cast ------------------------------------------------------------------------------ */

static int cast_infer(const ops_ctx *c, irm_object **out) {
  irm_cast_attrs a;
  int rc = irm_cast_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  return irm_ops_make_type_(c, a.dtype, irm_tensor_type_shape(c->types[0]), irm_tensor_type_ndim(c->types[0]), out);
}

static int cast_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  int64_t numel = irm_tensor_numel(out);
  ops_kind from = irm_ops_tensor_kind_(in[0]), to = irm_ops_tensor_kind_(out);
  if (irm_ops_kind_is_float_(from))
    for (int64_t i = 0; i < numel; i++) irm_ops_store_f64_(out, to, i, irm_ops_load_f64_(in[0], from, i));
  else
    for (int64_t i = 0; i < numel; i++) irm_ops_store_i64_(out, to, i, irm_ops_load_i64_(in[0], from, i));
  return IRM_OK;
}

/* cast_like: cast to the second argument's dtype (its shape unused). */
static int cast_like_infer(const ops_ctx *c, irm_object **out) {
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[1]), irm_tensor_type_shape(c->types[0]),
                            irm_tensor_type_ndim(c->types[0]), out);
}

/* ---- creation: zeros, ones, full and their _like forms -------------------------------------- */

/* zeros and zeros_like: every element 0 (the result tensor is made
 * zeroed). */
static int zeros_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c, (void)in, (void)out;
  return IRM_OK;
}

static int ones_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c, (void)in;
  ops_kind k = irm_ops_tensor_kind_(out);
  int64_t numel = irm_tensor_numel(out);
  for (int64_t i = 0; i < numel; i++) irm_ops_store_i64_(out, k, i, 1);
  return IRM_OK;
}

/* full and full_like: every element the scalar fill value (the last
 * argument), converted as cast converts. */
static int full_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const irm_tensor *fill = in[c->nargs - 1];
  ops_kind from = irm_ops_tensor_kind_(fill), to = irm_ops_tensor_kind_(out);
  int64_t numel = irm_tensor_numel(out);
  if (irm_ops_kind_is_float_(from)) {
    double v = irm_ops_load_f64_(fill, from, 0);
    for (int64_t i = 0; i < numel; i++) irm_ops_store_f64_(out, to, i, v);
  } else {
    int64_t v = irm_ops_load_i64_(fill, from, 0);
    for (int64_t i = 0; i < numel; i++) irm_ops_store_i64_(out, to, i, v);
  }
  return IRM_OK;
}

/* TypeError unless the fill value (argument i) is a scalar, as TVM's
 * full and full_like require. */
static int need_scalar(const ops_ctx *c, size_t i) {
  if (irm_tensor_type_ndim(c->types[i]) == 0) return IRM_OK;
  char a[64], t[OPS_TYPE_BUF];
  return irm_error(IRM_ETYPE, "%s: %s must be a scalar (rank 0), got %s", c->def->name, irm_ops_arg_text_(c, i, a),
                   irm_ops_type_text_(c->types[i], t));
}

/* zeros, ones (no arguments) and full (the fill value): shape and dtype
 * from the attributes; full's dtype absent is the fill value's. */
static int creation_infer(const ops_ctx *c, irm_object **out) {
  irm_full_attrs a;
  int rc = irm_full_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc && c->nargs == 1) {
    rc = need_scalar(c, 0);
    if (!a.has_dtype) a.dtype = irm_tensor_type_dtype(c->types[0]);
  }
  return rc ? rc : irm_ops_make_type_(c, a.dtype, a.shape, a.ndim, out);
}

static int full_like_infer(const ops_ctx *c, irm_object **out) {
  int rc = need_scalar(c, 1);
  return rc ? rc : same_type_infer(c, out);
}

static const ops_attr_def creation_attrs[] = {
    {"shape", IRM_OPTION_ARRAY_INT, NULL, "the result shape", 1},
    {"dtype", IRM_OPTION_STR, NULL, "the result dtype; absent: float32 (full: the fill value's)", 0},
};
static const char *const full_args[] = {"fill_value"};
static const char *const full_like_args[] = {"data", "fill_value"};
static const char *const cast_like_args[] = {"data", "dtype_like"};

static const ops_attr_def cast_attrs[] = {
    {"dtype", IRM_OPTION_STR, NULL, "the result dtype: float32, float16, int32, int8, uint8, float64, int64 or bool",
     1},
};

/* ---- the table ----------------------------------------------------------------------- */

#define BINARY(name) \
  { name, 2, binary_args, IRM_OP_BROADCAST, OPS_NUMERIC, NULL, 0, binary_infer, binary_eval }
#define UNARY(name, dtypes) \
  { name, 1, unary_args, IRM_OP_ELEMWISE, dtypes, NULL, 0, same_type_infer, unary_eval }

const ops_op_def irm_ops_elemwise_[] = {
    BINARY("add"),
    BINARY("subtract"),
    BINARY("multiply"),
    BINARY("divide"),
    BINARY("maximum"),
    BINARY("minimum"),
    BINARY("power"),
    BINARY("mod"),
    BINARY("floor_mod"),
    UNARY("negative", OPS_NUMERIC),
    UNARY("exp", OPS_FLOAT),
    UNARY("sqrt", OPS_FLOAT),
    UNARY("nn.relu", OPS_NUMERIC),
    UNARY("sigmoid", OPS_FLOAT),
    UNARY("tanh", OPS_FLOAT),
    UNARY("log", OPS_FLOAT),
    UNARY("erf", OPS_FLOAT),
    UNARY("abs", OPS_NUMERIC),
    UNARY("floor", OPS_FLOAT),
    UNARY("ceil", OPS_FLOAT),
    UNARY("sin", OPS_FLOAT),
    UNARY("cos", OPS_FLOAT),
    UNARY("tan", OPS_FLOAT),
    UNARY("asin", OPS_FLOAT),
    UNARY("acos", OPS_FLOAT),
    UNARY("atan", OPS_FLOAT),
    UNARY("sinh", OPS_FLOAT),
    UNARY("cosh", OPS_FLOAT),
    UNARY("asinh", OPS_FLOAT),
    UNARY("acosh", OPS_FLOAT),
    UNARY("atanh", OPS_FLOAT),
    UNARY("round", OPS_FLOAT),
    UNARY("sign", OPS_NUMERIC),
    {"clip", 1, unary_args, IRM_OP_ELEMWISE, OPS_NUMERIC, clip_attrs, 2, same_type_infer, clip_eval},
    {"cast", 1, unary_args, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, cast_attrs, 1, cast_infer, cast_eval},
    {"cast_like", 2, cast_like_args, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, NULL, 0, cast_like_infer, cast_eval},
    {"zeros_like", 1, unary_args, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, NULL, 0, same_type_infer, zeros_eval},
    {"ones_like", 1, unary_args, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, NULL, 0, same_type_infer, ones_eval},
    {"full_like", 2, full_like_args, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, NULL, 0, full_like_infer, full_eval},
    {"zeros", 0, NULL, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, creation_attrs, 2, creation_infer, zeros_eval},
    {"ones", 0, NULL, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, creation_attrs, 2, creation_infer, ones_eval},
    {"full", 1, full_args, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, creation_attrs, 2, creation_infer, full_eval},
};
const size_t irm_ops_elemwise_count_ = sizeof irm_ops_elemwise_ / sizeof irm_ops_elemwise_[0];
