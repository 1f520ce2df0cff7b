/* Comparisons and selection: equal, not_equal, less, less_equal, greater,
 * greater_equal (NumPy broadcasting, bool result; pattern BROADCAST, as in
 * TVM), logical_and, logical_or, logical_not on bool, and where(condition,
 * x, y) broadcasting all three. Floats compare as doubles (NaN compares
 * unequal to everything), ints as int64. */
#include <string.h>

#include "irm/error.h"
#include "ops_util.h"

static const DLDataType bool_dtype = {IRM_DLPACK_BOOL, 8, 1};

/* ---- comparisons ---------------------------------------------------------------------- */

static const char *const cmp_args[] = {"lhs", "rhs"};

static int cmp_infer(const ops_ctx *c, irm_object **out) { return irm_ops_binary_infer_(c, &bool_dtype, out); }

typedef enum cmpop { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_AND, CMP_OR } cmpop;

static const char *const cmp_names[] = {"equal",   "not_equal",     "less",        "less_equal",
                                        "greater", "greater_equal", "logical_and", "logical_or"};

static cmpop cmp_of(const ops_ctx *c) {
  for (size_t i = 0; i < sizeof cmp_names / sizeof cmp_names[0]; i++)
    if (strcmp(c->def->name, cmp_names[i]) == 0) return (cmpop)i;
  return CMP_EQ;
}

#define CMP(op, a, b)                         \
  ((op) == CMP_EQ    ? (a) == (b)             \
   : (op) == CMP_NE  ? (a) != (b)             \
   : (op) == CMP_LT  ? (a) < (b)              \
   : (op) == CMP_LE  ? (a) <= (b)             \
   : (op) == CMP_GT  ? (a) > (b)              \
   : (op) == CMP_GE  ? (a) >= (b)             \
   : (op) == CMP_AND ? ((a) != 0 && (b) != 0) \
                     : ((a) != 0 || (b) != 0))

static int cmp_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *o = irm_tensor_dl(out), *a = irm_tensor_dl(in[0]), *b = irm_tensor_dl(in[1]);
  int64_t sa[OPS_MAX_NDIM], sb[OPS_MAX_NDIM];
  irm_ops_broadcast_strides_(a->shape, a->ndim, o->shape, o->ndim, sa);
  irm_ops_broadcast_strides_(b->shape, b->ndim, o->shape, o->ndim, sb);
  int64_t numel = irm_tensor_numel(out);
  cmpop op = cmp_of(c);
  ops_kind k = irm_ops_kind_of_(a->dtype);
  uint8_t *po = o->data;
  if (irm_ops_kind_is_float_(k)) {
    BROADCAST_LOOP(o->shape, o->ndim, numel, sa, sb, {
      double x = irm_ops_load_f64_(in[0], k, ia), y = irm_ops_load_f64_(in[1], k, ib);
      po[oi] = (uint8_t)CMP(op, x, y);
    });
  } else {
    BROADCAST_LOOP(o->shape, o->ndim, numel, sa, sb, {
      int64_t x = irm_ops_load_i64_(in[0], k, ia), y = irm_ops_load_i64_(in[1], k, ib);
      po[oi] = (uint8_t)CMP(op, x, y);
    });
  }
  return IRM_OK;
}

/* logical_and / logical_or / logical_not take bool only. */
static int need_bool(const ops_ctx *c, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (irm_ops_kind_of_(irm_tensor_type_dtype(c->types[i])) != OPS_BOOL) {
      char a[64];
      return irm_error(IRM_ETYPE, "%s: %s has dtype %s; %s takes bool", c->def->name, irm_ops_arg_text_(c, i, a),
                       irm_ops_dtype_text_(irm_tensor_type_dtype(c->types[i])), c->def->name);
    }
  return IRM_OK;
}

static int logical_infer(const ops_ctx *c, irm_object **out) {
  int rc = need_bool(c, 2);
  return rc ? rc : cmp_infer(c, out);
}

static const char *const data_arg[] = {"data"};

static int not_infer(const ops_ctx *c, irm_object **out) {
  int rc = need_bool(c, 1);
  if (rc) return rc;
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int not_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  const uint8_t *p = irm_tensor_data_const(in[0]);
  uint8_t *po = irm_tensor_data(out);
  for (int64_t i = 0, n = irm_tensor_numel(out); i < n; i++) po[i] = p[i] == 0;
  return IRM_OK;
}

/* ---- where ------------------------------------------------------------------------------- */

static const char *const where_args[] = {"condition", "x", "y"};

static int where_infer(const ops_ctx *c, irm_object **out) {
  int rc = need_bool(c, 1);
  if (!rc) rc = irm_ops_same_dtype_(c, 1, 2);
  if (rc) return rc;
  int64_t s1[OPS_MAX_NDIM], s2[OPS_MAX_NDIM];
  int32_t n1 = 0, n2 = 0;
  rc = irm_ops_broadcast_("where", irm_tensor_type_shape(c->types[1]), irm_tensor_type_ndim(c->types[1]),
                          irm_tensor_type_shape(c->types[2]), irm_tensor_type_ndim(c->types[2]), s1, &n1);
  if (!rc)
    rc = irm_ops_broadcast_("where", irm_tensor_type_shape(c->types[0]), irm_tensor_type_ndim(c->types[0]), s1, n1, s2,
                            &n2);
  return rc ? rc : irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[1]), s2, n2, out);
}

static int where_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  const DLTensor *o = irm_tensor_dl(out);
  int64_t st[3][OPS_MAX_NDIM], off[3] = {0, 0, 0}, idx[OPS_MAX_NDIM] = {0};
  for (int i = 0; i < 3; i++) {
    const DLTensor *t = irm_tensor_dl(in[i]);
    irm_ops_broadcast_strides_(t->shape, t->ndim, o->shape, o->ndim, st[i]);
  }
  size_t size = irm_dtype_size(o->dtype);
  const uint8_t *cond = irm_tensor_data_const(in[0]);
  const char *x = irm_tensor_data_const(in[1]), *y = irm_tensor_data_const(in[2]);
  char *po = o->data;
  for (int64_t oi = 0, n = irm_tensor_numel(out); oi < n; oi++) {
    memcpy(po + (size_t)oi * size, cond[off[0]] ? x + (size_t)off[1] * size : y + (size_t)off[2] * size, size);
    for (int32_t d = o->ndim - 1; d >= 0; d--) {
      for (int i = 0; i < 3; i++) off[i] += st[i][d];
      if (++idx[d] < o->shape[d]) break;
      for (int i = 0; i < 3; i++) off[i] -= st[i][d] * o->shape[d];
      idx[d] = 0;
    }
  }
  return IRM_OK;
}

/* ---- the table ----------------------------------------------------------------------- */

#define COMPARE(name) \
  { name, 2, cmp_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, NULL, 0, cmp_infer, cmp_eval }
#define LOGICAL(name) \
  { name, 2, cmp_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, NULL, 0, logical_infer, cmp_eval }

const ops_op_def irm_ops_compare_[] = {
    COMPARE("equal"),
    COMPARE("not_equal"),
    COMPARE("less"),
    COMPARE("less_equal"),
    COMPARE("greater"),
    COMPARE("greater_equal"),
    LOGICAL("logical_and"),
    LOGICAL("logical_or"),
    {"logical_not", 1, data_arg, IRM_OP_ELEMWISE, OPS_ANY_DTYPE, NULL, 0, not_infer, not_eval},
    {"where", 3, where_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, NULL, 0, where_infer, where_eval},
};
const size_t irm_ops_compare_count_ = sizeof irm_ops_compare_ / sizeof irm_ops_compare_[0];
