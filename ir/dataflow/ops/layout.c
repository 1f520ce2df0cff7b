/* layout_transform (TVM's; pattern INJECTIVE): data from one layout string
 * to another (irm_layout_parse: "NCHW" -> "NCHW8c", "OIHW" -> "OIHW8i16o",
 * and back). Each primal axis keeps its logical extent: the primal dim
 * times its src factor; dst splits it into ceil(extent / f) blocks of f
 * lanes, the lanes past the extent zero (the blocked conv kernels rely on
 * it). Out of a blocked layout nothing is dropped: the extent is outer * f,
 * as in TVM. The evaluator folds packed weights at build, so it is a plain
 * index mapping with no per-element division: per primal axis, a table
 * from the logical index to its src offset (or -1 in padding), walked with
 * an odometer over dst. */
#include <string.h>

#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "ops_util.h"

static const char *const data_arg[] = {"data"};

#define LAYOUT_TEXT (IRM_LAYOUT_MAX_AXES * 11 + 1)

/* One primal axis: where it sits in src and dst, split or not, and its
 * logical extent; padded is its extent in dst's blocks. */
typedef struct prim {
  int src_outer, src_inner, dst_outer, dst_inner; /* positions; inner -1 when not split */
  int64_t src_f, dst_f;                           /* 1 when not split */
  int64_t extent, padded;
} prim;

/* The primal axes of a checked transform of data of shape (src's ndim
 * dims); *n their count. */
static void prims_of(const irm_layout_transform_attrs *a, const int64_t *shape, prim *p, int *n) {
  const irm_layout *s = &a->src_layout, *d = &a->dst_layout;
  *n = 0;
  for (int i = 0; i < s->ndim; i++) {
    if (s->factor[i]) continue;
    char sub = (char)(s->axis[i] - 'A' + 'a');
    prim *q = &p[(*n)++];
    q->src_outer = i;
    q->src_inner = irm_layout_find(s, sub);
    q->dst_outer = irm_layout_find(d, s->axis[i]);
    q->dst_inner = irm_layout_find(d, sub);
    q->src_f = q->src_inner < 0 ? 1 : s->factor[q->src_inner];
    q->dst_f = q->dst_inner < 0 ? 1 : d->factor[q->dst_inner];
    q->extent = shape[i] * q->src_f;
    q->padded = (q->extent + q->dst_f - 1) / q->dst_f * q->dst_f;
  }
}

static int layout_infer(const ops_ctx *c, irm_object **out) {
  irm_layout_transform_attrs a;
  int rc = irm_layout_transform_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  const irm_layout *s = &a.src_layout, *d = &a.dst_layout;
  int32_t nd = irm_tensor_type_ndim(c->types[0]);
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  char st[LAYOUT_TEXT], sh[OPS_SHAPE_BUF];
  irm_layout_text(s, st, sizeof st);
  if (nd != s->ndim)
    return irm_error(IRM_ETYPE, "%s: argument 1 (data) has rank %d, src_layout '%s' has %d axes", c->def->name, (int)nd,
                     st, s->ndim);
  for (int i = 0; i < s->ndim; i++) {
    if (s->factor[i] && in[i] != s->factor[i])
      return irm_error(IRM_ETYPE,
                       "%s: argument 1 (data) of shape %s: dimension %d is sub-axis '%c' of src_layout '%s' "
                       "and must be %lld",
                       c->def->name, irm_ops_shape_text_(in, nd, sh), i, s->axis[i], st, (long long)s->factor[i]);
    int j = s->factor[i] ? -1 : irm_layout_find(s, (char)(s->axis[i] - 'A' + 'a'));
    if (j >= 0 && in[i] > OPS_MAX_NUMEL / s->factor[j])
      return irm_error(IRM_ETYPE, "%s: axis '%c' of argument 1 (data) of shape %s has more than 2^62 elements",
                       c->def->name, s->axis[i], irm_ops_shape_text_(in, nd, sh));
  }
  prim p[IRM_LAYOUT_MAX_AXES];
  int np = 0;
  int64_t shape[IRM_LAYOUT_MAX_AXES];
  prims_of(&a, in, p, &np);
  for (int k = 0; k < np; k++) {
    shape[p[k].dst_outer] = p[k].padded / p[k].dst_f;
    if (p[k].dst_inner >= 0) shape[p[k].dst_inner] = p[k].dst_f;
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, d->ndim, out);
}

/* The row loop of one element size: the inner dst axis runs through the
 * table t of its primal axis with step m; base is the rest's src offset. */
#define COPY_ROWS(T)                                                                 \
  do {                                                                               \
    const T *src = irm_tensor_data_const(in[0]);                                     \
    T *dst = irm_tensor_data(out);                                                   \
    for (int64_t r = 0, o = 0; r < rows; r++, o += inner) {                          \
      int64_t base = 0;                                                              \
      int pad = 0;                                                                   \
      for (int k = 0; k < np; k++) {                                                 \
        if (k == ki) continue;                                                       \
        int64_t v = tab[k][lx[k]];                                                   \
        pad |= v < 0;                                                                \
        base += v;                                                                   \
      }                                                                              \
      if (!pad) {                                                                    \
        const int64_t *t = tab[ki] + lx[ki];                                         \
        for (int64_t i = 0; i < inner; i++)                                          \
          if (t[i * m] >= 0) dst[o + i] = src[base + t[i * m]];                      \
      }                                                                              \
      for (int d = nd - 2; d >= 0; d--) { /* the odometer over the outer dst axes */ \
        lx[pk[d]] += mult[d];                                                        \
        if (++idx[d] < shape[d]) break;                                              \
        lx[pk[d]] -= mult[d] * shape[d];                                             \
        idx[d] = 0;                                                                  \
      }                                                                              \
    }                                                                                \
  } while (0)

static int layout_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_layout_transform_attrs a;
  int rc = irm_layout_transform_attrs_decode(c->def->name, c->attrs, &a);
  if (rc) return rc;
  const DLTensor *sd = irm_tensor_dl(in[0]), *dd = irm_tensor_dl(out);
  if (irm_tensor_numel(out) == 0) return IRM_OK;
  prim p[IRM_LAYOUT_MAX_AXES];
  int np = 0, nd = dd->ndim;
  prims_of(&a, sd->shape, p, &np);
  int64_t st[IRM_LAYOUT_MAX_AXES], total = 0;
  irm_ops_strides_(sd->shape, sd->ndim, st);
  for (int k = 0; k < np; k++) total += p[k].padded;
  int64_t *tables = irm_malloc((size_t)total * sizeof *tables);
  if (!tables) return irm_error_nomem_("evaluating layout_transform");
  /* tab[k][L]: the src offset of logical index L of primal axis k, -1 past its extent */
  const int64_t *tab[IRM_LAYOUT_MAX_AXES];
  int64_t *at = tables;
  for (int k = 0; k < np; k++) {
    const prim *q = &p[k];
    int64_t so = st[q->src_outer], si = q->src_inner < 0 ? 0 : st[q->src_inner];
    for (int64_t L = 0; L < q->padded; L++) at[L] = L < q->extent ? L / q->src_f * so + L % q->src_f * si : -1;
    tab[k] = at;
    at += q->padded;
  }
  /* each dst axis: its primal axis and the logical step of one index */
  int pk[IRM_LAYOUT_MAX_AXES];
  int64_t mult[IRM_LAYOUT_MAX_AXES], lx[IRM_LAYOUT_MAX_AXES] = {0}, idx[IRM_LAYOUT_MAX_AXES] = {0};
  for (int k = 0; k < np; k++) {
    pk[p[k].dst_outer] = k, mult[p[k].dst_outer] = p[k].dst_f;
    if (p[k].dst_inner >= 0) pk[p[k].dst_inner] = k, mult[p[k].dst_inner] = 1;
  }
  const int64_t *shape = dd->shape;
  int64_t inner = shape[nd - 1], rows = irm_tensor_numel(out) / inner, m = mult[nd - 1];
  int ki = pk[nd - 1];
  switch (dd->dtype.bits) {
  case 8: COPY_ROWS(uint8_t); break;
  case 16: COPY_ROWS(uint16_t); break;
  case 32: COPY_ROWS(uint32_t); break;
  default: COPY_ROWS(uint64_t); break;
  }
  irm_free(tables);
  return IRM_OK;
}

static const ops_attr_def layout_attrs[] = {
    {"src_layout", IRM_OPTION_STR, NULL, "the data's layout, as TVM writes it: \"NCHW\", \"NCHW8c\", \"OIHW8i16o\"", 1},
    {"dst_layout", IRM_OPTION_STR, NULL, "the result's layout; the same primal axes as src_layout", 1},
};

const ops_op_def irm_ops_layout_[] = {
    {"layout_transform", 1, data_arg, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, layout_attrs, 2, layout_infer, layout_eval},
};
const size_t irm_ops_layout_count_ = sizeof irm_ops_layout_ / sizeof irm_ops_layout_[0];
