/* The shape ops, with TVM's names and patterns (INJECTIVE, expand_dims
 * and the broadcast_to forms BROADCAST): reshape, reshape_like, transpose, concatenate (any
 * number of inputs), strided_slice, squeeze, expand_dims, broadcast_to, broadcast_to_like,
 * take (gather along an axis), gather (ONNX GatherElements),
 * scatter_elements, scatter_nd and nn.pad (constant, edge or reflect). They
 * move elements without arithmetic, so every dtype works the same: bytes
 * are copied. */
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "ops_util.h"

static const char *const data_arg[] = {"data"};

static int same_dtype_all(const ops_ctx *c, size_t n) {
  for (size_t i = 1; i < n; i++) {
    int rc = irm_ops_same_dtype_(c, 0, i);
    if (rc) return rc;
  }
  return IRM_OK;
}

static size_t nargs_of(const ops_ctx *c) { return c->nargs; }

/* ---- reshape -------------------------------------------------------------------------- */

static int reshape_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t in_ndim = irm_tensor_type_ndim(c->types[0]), n = 0;
  int64_t shape[OPS_MAX_NDIM], in_numel = irm_tensor_type_numel(c->types[0]), known = 1;
  irm_reshape_attrs at;
  int rc = irm_reshape_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  const int64_t *spec = at.newshape;
  n = at.n_newshape;
  int32_t infer_at = -1;
  char a[64], s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
  for (int32_t i = 0; i < n; i++) {
    if (spec[i] == 0) { /* keep the input's dimension */
      if (i >= in_ndim)
        return irm_error(IRM_ETYPE, "reshape: newshape %s keeps dimension %d (0), but %s has rank %d",
                         irm_ops_shape_text_(spec, n, s1), (int)i, irm_ops_arg_text_(c, 0, a), (int)in_ndim);
      shape[i] = in[i];
    } else if (spec[i] == -1) {
      if (infer_at >= 0)
        return irm_error(IRM_EVALUE, "reshape: newshape %s has more than one -1", irm_ops_shape_text_(spec, n, s1));
      infer_at = i;
      shape[i] = 1;
    } else if (spec[i] < 0) {
      return irm_error(
          IRM_EVALUE, "reshape: newshape %s: %lld is not a size (use a size, 0 to keep a dimension or -1 to infer one)",
          irm_ops_shape_text_(spec, n, s1), (long long)spec[i]);
    } else {
      shape[i] = spec[i];
    }
    if (shape[i] && known > OPS_MAX_NUMEL / shape[i])
      return irm_error(IRM_ETYPE, "reshape: cannot reshape %s of shape %s (%lld elements) to %s",
                       irm_ops_arg_text_(c, 0, a), irm_ops_shape_text_(in, in_ndim, s1), (long long)in_numel,
                       irm_ops_shape_text_(spec, n, s2));
    known *= shape[i];
  }
  if (infer_at >= 0) {
    if (known == 0 || in_numel % known != 0)
      return irm_error(IRM_ETYPE, "reshape: cannot reshape %s of shape %s (%lld elements) to %s",
                       irm_ops_arg_text_(c, 0, a), irm_ops_shape_text_(in, in_ndim, s1), (long long)in_numel,
                       irm_ops_shape_text_(spec, n, s2));
    shape[infer_at] = in_numel / known;
    known = in_numel;
  }
  if (known != in_numel)
    return irm_error(IRM_ETYPE, "reshape: cannot reshape %s of shape %s (%lld elements) to %s (%lld elements)",
                     irm_ops_arg_text_(c, 0, a), irm_ops_shape_text_(in, in_ndim, s1), (long long)in_numel,
                     irm_ops_shape_text_(shape, n, s2), (long long)known);
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, n, out);
}

static const ops_attr_def reshape_attrs[] = {
    {"newshape", IRM_OPTION_ARRAY_INT, NULL, "the new shape; 0 keeps the input's dimension, -1 infers one", 1},
};

/* ---- transpose ------------------------------------------------------------------------ */

/* The permutation: axes, or reversed dimensions when axes is absent or empty. */
static int transpose_axes(const ops_ctx *c, int32_t ndim, int32_t *perm) {
  irm_transpose_attrs at;
  int rc = irm_transpose_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  const int64_t *axes = at.axes;
  int32_t n = at.n_axes;
  if (n <= 0) {
    for (int32_t i = 0; i < ndim; i++) perm[i] = ndim - 1 - i;
    return IRM_OK;
  }
  char a[64], s[OPS_SHAPE_BUF];
  if (n != ndim)
    return irm_error(IRM_ETYPE, "transpose: axes %s has %d entries, %s has rank %d", irm_ops_shape_text_(axes, n, s),
                     (int)n, irm_ops_arg_text_(c, 0, a), (int)ndim);
  int seen[OPS_MAX_NDIM] = {0};
  for (int32_t i = 0; i < n; i++) {
    if ((rc = irm_ops_norm_axis_(c, 0, axes[i], ndim, &perm[i]))) return rc;
    if (seen[perm[i]]++)
      return irm_error(IRM_EVALUE, "transpose: axes %s repeats axis %d", irm_ops_shape_text_(axes, n, s), (int)perm[i]);
  }
  return IRM_OK;
}

static int transpose_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), perm[OPS_MAX_NDIM];
  int rc = transpose_axes(c, ndim, perm);
  if (rc) return rc;
  int64_t shape[OPS_MAX_NDIM];
  for (int32_t i = 0; i < ndim; i++) shape[i] = in[perm[i]];
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, ndim, out);
}

static int transpose_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *src = irm_tensor_dl(in[0]), *dst = irm_tensor_dl(out);
  int32_t ndim = src->ndim, perm[OPS_MAX_NDIM];
  int rc = transpose_axes(c, ndim, perm);
  if (rc) return rc;
  int64_t in_strides[OPS_MAX_NDIM], step[OPS_MAX_NDIM], idx[OPS_MAX_NDIM] = {0};
  irm_ops_strides_(src->shape, ndim, in_strides);
  for (int32_t i = 0; i < ndim; i++) step[i] = in_strides[perm[i]];
  size_t size = irm_dtype_size(src->dtype);
  const char *from = src->data;
  char *to = dst->data;
  int64_t numel = irm_tensor_numel(out), off = 0;
  for (int64_t o = 0; o < numel; o++) {
    memcpy(to + (size_t)o * size, from + (size_t)off * size, size);
    for (int32_t d = ndim - 1; d >= 0; d--) {
      off += step[d];
      if (++idx[d] < dst->shape[d]) break;
      off -= step[d] * dst->shape[d];
      idx[d] = 0;
    }
  }
  return IRM_OK;
}

static const ops_attr_def transpose_attrs[] = {
    {"axes", IRM_OPTION_ARRAY_INT, NULL, "the permutation of the dimensions; absent or empty reverses them", 0},
};

/* ---- concatenate -------------------------------------------------------------------------- */

static int concat_infer(const ops_ctx *c, irm_object **out) {
  size_t n = nargs_of(c);
  if (n == 0) return irm_error(IRM_ETYPE, "concatenate takes at least 1 argument, got 0");
  int rc = same_dtype_all(c, n);
  if (rc) return rc;
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), axis = 0;
  if (ndim == 0) return irm_error(IRM_ETYPE, "concatenate: argument 1 (data) is a scalar; it needs rank 1 or more");
  irm_concatenate_attrs at;
  if ((rc = irm_concatenate_attrs_decode(c->def->name, c->attrs, &at))) return rc;
  if ((rc = irm_ops_norm_axis_(c, 0, at.axis, ndim, &axis))) return rc;
  int64_t shape[OPS_MAX_NDIM];
  memcpy(shape, irm_tensor_type_shape(c->types[0]), sizeof *shape * (size_t)ndim);
  for (size_t i = 1; i < n; i++) {
    const int64_t *s = irm_tensor_type_shape(c->types[i]);
    char a[64], s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
    int bad = irm_tensor_type_ndim(c->types[i]) != ndim;
    for (int32_t d = 0; !bad && d < ndim; d++) bad = d != axis && s[d] != shape[d];
    if (bad)
      return irm_error(IRM_ETYPE, "concatenate: %s has shape %s, which does not match %s along every axis but %d",
                       irm_ops_arg_text_(c, i, a), irm_ops_shape_text_(s, irm_tensor_type_ndim(c->types[i]), s1),
                       irm_ops_shape_text_(irm_tensor_type_shape(c->types[0]), ndim, s2), (int)axis);
    shape[axis] += s[axis];
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, ndim, out);
}

static int concat_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *o = irm_tensor_dl(out);
  int32_t axis = 0;
  irm_concatenate_attrs ca;
  int rc = irm_concatenate_attrs_decode(c->def->name, c->attrs, &ca);
  if (!rc) rc = irm_ops_norm_axis_(c, 0, ca.axis, o->ndim, &axis);
  if (rc) return rc;
  size_t size = irm_dtype_size(o->dtype);
  int64_t outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; d++) outer *= o->shape[d];
  for (int32_t d = axis + 1; d < o->ndim; d++) inner *= o->shape[d];
  size_t row = (size_t)(o->shape[axis] * inner) * size, at = 0;
  for (size_t i = 0; i < nargs_of(c); i++) {
    const DLTensor *t = irm_tensor_dl(in[i]);
    size_t chunk = (size_t)(t->shape[axis] * inner) * size;
    for (int64_t r = 0; r < outer && chunk; r++)
      memcpy((char *)o->data + (size_t)r * row + at, (const char *)t->data + (size_t)r * chunk, chunk);
    at += chunk;
  }
  return IRM_OK;
}

static const ops_attr_def concat_attrs[] = {
    {"axis", IRM_OPTION_INT, "0", "the axis to join along (negative counts from the end)", 0},
};

/* ---- strided_slice ------------------------------------------------------------------------- */

typedef struct slice_geom {
  int64_t begin[OPS_MAX_NDIM], step[OPS_MAX_NDIM], len[OPS_MAX_NDIM];
} slice_geom;

/* begin/end/strides per axis (axes absent: the first ones), clamped as
 * NumPy and ONNX Slice clamp: negative values count from the end. */
static int slice_geometry(const ops_ctx *c, slice_geom *g) {
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t ndim = irm_tensor_type_ndim(c->types[0]);
  irm_strided_slice_attrs at;
  int rc = irm_strided_slice_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  const int64_t *b = at.begin, *e = at.end, *s = at.strides, *axes = at.axes;
  int32_t nb = at.n_begin, ne = at.n_end, ns = at.n_strides, na = at.n_axes;
  if (ne != nb || (ns > 0 && ns != nb) || (na >= 0 && na != nb))
    return irm_error(IRM_EVALUE, "strided_slice: begin, end%s need the same number of values (%d, %d%s)",
                     na >= 0 ? ", strides and axes" : " and strides", (int)nb, (int)(ne < 0 ? 0 : ne), "");
  for (int32_t d = 0; d < ndim; d++) {
    g->begin[d] = 0;
    g->step[d] = 1;
    g->len[d] = in[d];
  }
  int done[OPS_MAX_NDIM] = {0};
  for (int32_t i = 0; i < nb; i++) {
    int32_t d = i;
    if (na >= 0 && (rc = irm_ops_norm_axis_(c, 0, axes[i], ndim, &d))) return rc;
    if (d >= ndim)
      return irm_error(IRM_ETYPE, "strided_slice: %d values for argument 1 (data) of rank %d", (int)nb, (int)ndim);
    if (done[d]) return irm_error(IRM_EVALUE, "strided_slice: axis %d is sliced twice", (int)d);
    done[d] = 1;
    int64_t step = ns > 0 ? s[i] : 1, n = in[d], lo = b[i], hi = e[i];
    if (step == 0) return irm_error(IRM_EVALUE, "strided_slice: stride 0 on axis %d", (int)d);
    if (lo < 0) lo += n;
    if (hi < 0 && hi > INT64_MIN / 2) hi += n;
    if (step > 0) {
      lo = lo < 0 ? 0 : lo > n ? n : lo;
      hi = hi < 0 ? 0 : hi > n ? n : hi;
      g->len[d] = hi > lo ? (hi - lo + step - 1) / step : 0;
    } else {
      lo = lo < 0 ? -1 : lo > n - 1 ? n - 1 : lo;
      hi = hi < -1 ? -1 : hi > n - 1 ? n - 1 : hi;
      g->len[d] = lo > hi ? (lo - hi + (-step) - 1) / (-step) : 0;
    }
    g->begin[d] = lo;
    g->step[d] = step;
  }
  return IRM_OK;
}

static int slice_infer(const ops_ctx *c, irm_object **out) {
  slice_geom g;
  int rc = slice_geometry(c, &g);
  return rc ? rc
            : irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), g.len, irm_tensor_type_ndim(c->types[0]), out);
}

static int slice_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  slice_geom g;
  int rc = slice_geometry(c, &g);
  if (rc) return rc;
  const DLTensor *src = irm_tensor_dl(in[0]), *dst = irm_tensor_dl(out);
  int32_t ndim = src->ndim;
  int64_t st[OPS_MAX_NDIM], idx[OPS_MAX_NDIM] = {0}, off = 0;
  irm_ops_strides_(src->shape, ndim, st);
  for (int32_t d = 0; d < ndim; d++) off += g.begin[d] * st[d];
  size_t size = irm_dtype_size(src->dtype);
  for (int64_t o = 0, n = irm_tensor_numel(out); o < n; o++) {
    memcpy((char *)dst->data + (size_t)o * size, (const char *)src->data + (size_t)off * size, size);
    for (int32_t d = ndim - 1; d >= 0; d--) {
      off += g.step[d] * st[d];
      if (++idx[d] < dst->shape[d]) break;
      off -= g.step[d] * st[d] * dst->shape[d];
      idx[d] = 0;
    }
  }
  return IRM_OK;
}

static const ops_attr_def slice_attrs[] = {
    {"begin", IRM_OPTION_ARRAY_INT, NULL, "the first index per sliced axis (negative counts from the end)", 1},
    {"end", IRM_OPTION_ARRAY_INT, NULL, "the end (exclusive) per sliced axis, clamped to the axis", 1},
    {"strides", IRM_OPTION_ARRAY_INT, NULL, "the step per sliced axis (negative walks backwards); absent: 1", 0},
    {"axes", IRM_OPTION_ARRAY_INT, NULL, "the sliced axes; absent: the first len(begin) axes", 0},
};

/* ---- squeeze, expand_dims, broadcast_to: the bytes stay, the shape changes ------------------- */

static int squeeze_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), n = 0, m = 0;
  int64_t shape[OPS_MAX_NDIM];
  int drop[OPS_MAX_NDIM] = {0};
  irm_squeeze_attrs at;
  int rc = irm_squeeze_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  const int64_t *axes = at.axis;
  n = at.n_axis;
  for (int32_t d = 0; d < ndim && n < 0; d++) drop[d] = in[d] == 1;
  for (int32_t i = 0; i < n; i++) {
    int32_t d = 0;
    if ((rc = irm_ops_norm_axis_(c, 0, axes[i], ndim, &d))) return rc;
    if (in[d] != 1) {
      char s[OPS_SHAPE_BUF];
      return irm_error(IRM_ETYPE, "squeeze: axis %d of argument 1 (data) of shape %s has size %lld, not 1", (int)d,
                       irm_ops_shape_text_(in, ndim, s), (long long)in[d]);
    }
    drop[d] = 1;
  }
  for (int32_t d = 0; d < ndim; d++)
    if (!drop[d]) shape[m++] = in[d];
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, m, out);
}

static int expand_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), axis = 0;
  irm_expand_dims_attrs at;
  int rc = irm_expand_dims_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  int64_t k = at.num_newaxis, shape[OPS_MAX_NDIM];
  if (k < 0 || ndim + k > OPS_MAX_NDIM)
    return irm_error(IRM_EVALUE, "expand_dims: num_newaxis %lld must be 0..%d for argument 1 (data) of rank %d",
                     (long long)k, (int)(OPS_MAX_NDIM - ndim), (int)ndim);
  rc = irm_ops_norm_axis_(c, 0, at.axis, ndim + 1, &axis);
  if (rc) return rc;
  int32_t m = 0;
  for (int32_t d = 0; d <= ndim; d++) {
    if (d == axis)
      for (int64_t j = 0; j < k; j++) shape[m++] = 1;
    if (d < ndim) shape[m++] = in[d];
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, m, out);
}

static int bcast_to_infer(const ops_ctx *c, irm_object **out) {
  int64_t shape[OPS_MAX_NDIM];
  int32_t m = 0;
  irm_broadcast_to_attrs at;
  int rc = irm_broadcast_to_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  const int64_t *want = at.shape;
  int32_t n = at.ndim;
  for (int32_t i = 0; i < n; i++)
    if (want[i] < 0) return irm_error(IRM_EVALUE, "broadcast_to: shape has a negative size %lld", (long long)want[i]);
  rc = irm_ops_broadcast_("broadcast_to", irm_tensor_type_shape(c->types[0]), irm_tensor_type_ndim(c->types[0]), want,
                          n < 0 ? 0 : n, shape, &m);
  return rc ? rc : irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, m, out);
}

static int bcast_to_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  const DLTensor *o = irm_tensor_dl(out), *a = irm_tensor_dl(in[0]);
  int64_t sa[OPS_MAX_NDIM], sb[OPS_MAX_NDIM] = {0};
  irm_ops_broadcast_strides_(a->shape, a->ndim, o->shape, o->ndim, sa);
  size_t size = irm_dtype_size(o->dtype);
  BROADCAST_LOOP(o->shape, o->ndim, irm_tensor_numel(out), sa, sb,
                 memcpy((char *)o->data + (size_t)oi * size, (const char *)a->data + (size_t)ia * size, size));
  return IRM_OK;
}

/* reshape_like and broadcast_to_like: the shape of the second argument
 * (its dtype unused); reshape_like keeps the element count. */
static int reshape_like_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *want = irm_tensor_type_shape(c->types[1]), *have = irm_tensor_type_shape(c->types[0]);
  int32_t nw = irm_tensor_type_ndim(c->types[1]), nh = irm_tensor_type_ndim(c->types[0]);
  if (irm_ops_numel_(want, nw) != irm_ops_numel_(have, nh)) {
    char s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
    return irm_error(
        IRM_ETYPE,
        "reshape_like: cannot reshape argument 1 (data) of shape %s to the shape %s of argument 2 (shape_like)",
        irm_ops_shape_text_(have, nh, s1), irm_ops_shape_text_(want, nw, s2));
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), want, nw, out);
}

static int bcast_like_infer(const ops_ctx *c, irm_object **out) {
  int64_t shape[OPS_MAX_NDIM];
  int32_t m = 0, nw = irm_tensor_type_ndim(c->types[1]);
  const int64_t *want = irm_tensor_type_shape(c->types[1]);
  int rc = irm_ops_broadcast_(c->def->name, irm_tensor_type_shape(c->types[0]), irm_tensor_type_ndim(c->types[0]), want,
                              nw, shape, &m);
  if (!rc && (m != nw || memcmp(shape, want, sizeof *shape * (size_t)m) != 0)) {
    char s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
    return irm_error(
        IRM_ETYPE,
        "broadcast_to_like: argument 1 (data) of shape %s does not broadcast to the shape %s of argument 2 (broadcast_type)",
        irm_ops_shape_text_(irm_tensor_type_shape(c->types[0]), irm_tensor_type_ndim(c->types[0]), s1),
        irm_ops_shape_text_(want, nw, s2));
  }
  return rc ? rc : irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, m, out);
}

static const char *const reshape_like_args[] = {"data", "shape_like"};
static const char *const bcast_like_args[] = {"data", "broadcast_type"};

static const ops_attr_def squeeze_attrs[] = {
    {"axis", IRM_OPTION_ARRAY_INT, NULL, "the axes of size 1 to drop; absent: every one of size 1", 0},
};
static const ops_attr_def expand_attrs[] = {
    {"axis", IRM_OPTION_INT, "0", "where the new axes go, in 0..rank (negative counts from the end)", 0},
    {"num_newaxis", IRM_OPTION_INT, "1", "how many axes of size 1 to insert", 0},
};
static const ops_attr_def bcast_to_attrs[] = {
    {"shape", IRM_OPTION_ARRAY_INT, NULL, "the shape to broadcast to (NumPy's rules)", 1},
};

/* ---- take --------------------------------------------------------------------------------- */

static const char *const take_args[] = {"data", "indices"};

/* take's and gather's axis, normalized for rank nd; *flat (may be NULL)
 * 1 when take's axis is absent (TVM's axis=None: data flattened, axis 0
 * of it). */
static int take_axis_flat(const ops_ctx *c, int32_t nd, int32_t *axis, int *flat) {
  irm_take_attrs at;
  int rc = irm_take_attrs_decode(c->def->name, c->attrs, &at);
  if (flat) *flat = !rc && !at.has_axis;
  if (!rc && !at.has_axis) *axis = 0;
  return rc || !at.has_axis ? rc : irm_ops_norm_axis_(c, 0, at.axis, nd, axis);
}

static int take_axis(const ops_ctx *c, int32_t nd, int32_t *axis) { return take_axis_flat(c, nd, axis, NULL); }

static int take_infer(const ops_ctx *c, irm_object **out) {
  ops_kind k = irm_ops_kind_of_(irm_tensor_type_dtype(c->types[1]));
  if (irm_ops_kind_is_float_(k) || k == OPS_BOOL) {
    char a[64];
    return irm_error(IRM_ETYPE, "take: %s has dtype %s; indices must be integers", irm_ops_arg_text_(c, 1, a),
                     irm_ops_dtype_text_(irm_tensor_type_dtype(c->types[1])));
  }
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *ix = irm_tensor_type_shape(c->types[1]);
  int32_t nd = irm_tensor_type_ndim(c->types[0]), ni = irm_tensor_type_ndim(c->types[1]), axis = 0, m = 0;
  int flat = 0;
  int rc = take_axis_flat(c, nd, &axis, &flat);
  if (rc) return rc;
  if (flat) nd = 1; /* the result: indices' shape */
  else if (nd == 0) return irm_error(IRM_ETYPE, "take: argument 1 (data) is a scalar; it needs rank 1 or more");
  if (nd - 1 + ni > OPS_MAX_NDIM)
    return irm_error(IRM_ETYPE, "take: the result would have rank %d, more than %d", (int)(nd - 1 + ni), OPS_MAX_NDIM);
  int64_t shape[OPS_MAX_NDIM];
  for (int32_t i = 0; i < axis; i++) shape[m++] = d[i];
  for (int32_t i = 0; i < ni; i++) shape[m++] = ix[i];
  for (int32_t i = axis + 1; i < nd; i++) shape[m++] = d[i];
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, m, out);
}

static int take_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *src = irm_tensor_dl(in[0]);
  int32_t axis = 0;
  int flat = 0;
  int rc = take_axis_flat(c, src->ndim, &axis, &flat);
  if (rc) return rc;
  int64_t outer = 1, inner = 1, n = flat ? irm_tensor_numel(in[0]) : src->shape[axis], count = irm_tensor_numel(in[1]);
  for (int32_t d = 0; d < axis && !flat; d++) outer *= src->shape[d];
  for (int32_t d = axis + 1; d < src->ndim && !flat; d++) inner *= src->shape[d];
  ops_kind k = irm_ops_tensor_kind_(in[1]);
  size_t size = irm_dtype_size(src->dtype), chunk = (size_t)inner * size;
  char *o = irm_tensor_data(out);
  for (int64_t j = 0; j < count; j++) {
    int64_t i = irm_ops_load_i64_(in[1], k, j);
    if (i < -n || i >= n)
      return irm_error(IRM_EVALUE, "take: index %lld is out of range for axis %d of size %lld", (long long)i, (int)axis,
                       (long long)n);
  }
  for (int64_t r = 0; r < outer; r++)
    for (int64_t j = 0; j < count && chunk; j++) {
      int64_t i = irm_ops_load_i64_(in[1], k, j);
      if (i < 0) i += n; /* one negative wrap, as ONNX Gather and NumPy */
      memcpy(o + ((size_t)(r * count + j)) * chunk, (const char *)src->data + ((size_t)(r * n + i)) * chunk, chunk);
    }
  return IRM_OK;
}

static const ops_attr_def take_attrs[] = {
    {"axis", IRM_OPTION_INT, NULL, "the axis to gather along (negative counts from the end); absent: data flattened",
     0},
};
static const ops_attr_def gather_attrs[] = {
    {"axis", IRM_OPTION_INT, "0", "the axis to gather along (negative counts from the end)", 0},
};

/* ---- gather (ONNX GatherElements) ----------------------------------------------------------- */

static int gather_infer(const ops_ctx *c, irm_object **out) {
  ops_kind k = irm_ops_kind_of_(irm_tensor_type_dtype(c->types[1]));
  char a[64];
  if (irm_ops_kind_is_float_(k) || k == OPS_BOOL)
    return irm_error(IRM_ETYPE, "gather: %s has dtype %s; indices must be integers", irm_ops_arg_text_(c, 1, a),
                     irm_ops_dtype_text_(irm_tensor_type_dtype(c->types[1])));
  int32_t nd = irm_tensor_type_ndim(c->types[0]), axis = 0;
  if (irm_tensor_type_ndim(c->types[1]) != nd)
    return irm_error(IRM_ETYPE, "gather: %s has rank %d, argument 1 (data) rank %d; they must be equal",
                     irm_ops_arg_text_(c, 1, a), (int)irm_tensor_type_ndim(c->types[1]), (int)nd);
  int rc = take_axis(c, nd, &axis);
  return rc ? rc
            : irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), irm_tensor_type_shape(c->types[1]), nd, out);
}

/* out[i0, .., ia, ..] = data[i0, .., indices[i0, .., ia, ..], ..] */
static int gather_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *d = irm_tensor_dl(in[0]), *o = irm_tensor_dl(out);
  int32_t axis = 0;
  int rc = take_axis(c, d->ndim, &axis);
  if (rc) return rc;
  int64_t st[OPS_MAX_NDIM], idx[OPS_MAX_NDIM] = {0};
  irm_ops_strides_(d->shape, d->ndim, st);
  ops_kind k = irm_ops_tensor_kind_(in[1]);
  size_t size = irm_dtype_size(d->dtype);
  for (int64_t i = 0, n = irm_tensor_numel(out); i < n; i++) {
    int64_t j = irm_ops_load_i64_(in[1], k, i), len = d->shape[axis], off = 0;
    if (j < -len || j >= len)
      return irm_error(IRM_EVALUE, "gather: index %lld is out of range for axis %d of size %lld", (long long)j,
                       (int)axis, (long long)len);
    for (int32_t q = 0; q < d->ndim; q++) {
      if (q != axis && idx[q] >= d->shape[q])
        return irm_error(IRM_ETYPE, "gather: argument 2 (indices) is larger than argument 1 (data) along axis %d",
                         (int)q);
      off += (q == axis ? (j < 0 ? j + len : j) : idx[q]) * st[q];
    }
    memcpy((char *)o->data + (size_t)i * size, (const char *)d->data + (size_t)off * size, size);
    for (int32_t q = o->ndim - 1; q >= 0; q--) {
      if (++idx[q] < o->shape[q]) break;
      idx[q] = 0;
    }
  }
  return IRM_OK;
}

/* ---- scatter_elements, scatter_nd (ONNX ScatterElements, ScatterND) --------------------------- */

static const char *const scatter_args[] = {"data", "indices", "updates"};
static int scatter_check(const ops_ctx *c, int nd_form) {
  char a[64];
  ops_kind k = irm_ops_kind_of_(irm_tensor_type_dtype(c->types[1]));
  if (irm_ops_kind_is_float_(k) || k == OPS_BOOL)
    return irm_error(IRM_ETYPE, "%s: %s has dtype %s; indices must be integers", c->def->name,
                     irm_ops_arg_text_(c, 1, a), irm_ops_dtype_text_(irm_tensor_type_dtype(c->types[1])));
  irm_scatter_attrs at;
  int rc = irm_ops_same_dtype_(c, 0, 2);
  if (!rc) rc = irm_scatter_attrs_decode(c->def->name, c->attrs, &at);
  if (rc) return rc;
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *ix = irm_tensor_type_shape(c->types[1]),
                *u = irm_tensor_type_shape(c->types[2]);
  int32_t nd = irm_tensor_type_ndim(c->types[0]), ni = irm_tensor_type_ndim(c->types[1]),
          nu = irm_tensor_type_ndim(c->types[2]), axis = 0;
  int bad = 0;
  if (!nd_form) {
    bad = ni != nd || nu != ni;
    for (int32_t i = 0; !bad && i < ni; i++) bad = ix[i] != u[i];
    if (!bad && (rc = irm_ops_norm_axis_(c, 0, at.axis, nd, &axis))) return rc;
  } else { /* indices (..., K) with K <= rank; updates = indices[:-1] + data[K:] */
    int64_t kk = ni ? ix[ni - 1] : 0;
    bad = ni < 1 || kk > nd || nu != ni - 1 + nd - kk;
    for (int32_t i = 0; !bad && i < ni - 1; i++) bad = u[i] != ix[i];
    for (int32_t i = 0; !bad && i < nd - kk; i++) bad = u[ni - 1 + i] != d[kk + i];
  }
  if (bad) {
    char s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF], s3[OPS_SHAPE_BUF];
    return irm_error(IRM_ETYPE, "%s: shapes %s (data), %s (indices) and %s (updates) do not fit", c->def->name,
                     irm_ops_shape_text_(d, nd, s1), irm_ops_shape_text_(ix, ni, s2), irm_ops_shape_text_(u, nu, s3));
  }
  return IRM_OK;
}

static int scatter_elements_infer(const ops_ctx *c, irm_object **out) {
  int rc = scatter_check(c, 0);
  if (rc) return rc;
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int scatter_nd_infer(const ops_ctx *c, irm_object **out) {
  int rc = scatter_check(c, 1);
  if (rc) return rc;
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static void scatter_one(irm_tensor *out, ops_kind k, int64_t at, const irm_tensor *upd, int64_t from, int red) {
  if (red == 0 && !irm_ops_kind_is_float_(k)) irm_ops_store_i64_(out, k, at, irm_ops_load_i64_(upd, k, from));
  else if (!irm_ops_kind_is_float_(k)) {
    uint64_t x = (uint64_t)irm_ops_load_i64_(out, k, at), y = (uint64_t)irm_ops_load_i64_(upd, k, from);
    irm_ops_store_i64_(out, k, at, (int64_t)(red == 1 ? x + y : x * y));
  } else {
    double x = irm_ops_load_f64_(out, k, at), y = irm_ops_load_f64_(upd, k, from);
    irm_ops_store_f64_(out, k, at, red == 0 ? y : red == 1 ? x + y : x * y);
  }
}

/* out = data; then each update lands where its index says, in order. */
static int scatter_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *d = irm_tensor_dl(in[0]), *ix = irm_tensor_dl(in[1]);
  int nd_form = strcmp(c->def->name, "scatter_nd") == 0;
  int32_t axis = 0;
  irm_scatter_attrs at;
  int rc = irm_scatter_attrs_decode(c->def->name, c->attrs, &at);
  if (!rc && !nd_form) rc = irm_ops_norm_axis_(c, 0, at.axis, d->ndim, &axis);
  if (rc) return rc;
  int red = at.reduction;
  if (irm_tensor_nbytes(out)) memcpy(irm_tensor_data(out), irm_tensor_data_const(in[0]), irm_tensor_nbytes(out));
  int64_t st[OPS_MAX_NDIM], idx[OPS_MAX_NDIM] = {0};
  irm_ops_strides_(d->shape, d->ndim, st);
  ops_kind k = irm_ops_tensor_kind_(out), ki = irm_ops_tensor_kind_(in[1]);
  if (!nd_form) {
    for (int64_t i = 0, n = irm_tensor_numel(in[1]); i < n; i++) {
      int64_t j = irm_ops_load_i64_(in[1], ki, i), len = d->shape[axis], off = 0;
      if (j < -len || j >= len)
        return irm_error(IRM_EVALUE, "%s: index %lld is out of range for axis %d of size %lld", c->def->name,
                         (long long)j, (int)axis, (long long)len);
      for (int32_t q = 0; q < d->ndim; q++) off += (q == axis ? (j < 0 ? j + len : j) : idx[q]) * st[q];
      scatter_one(out, k, off, in[2], i, red);
      for (int32_t q = ix->ndim - 1; q >= 0; q--) {
        if (++idx[q] < ix->shape[q]) break;
        idx[q] = 0;
      }
    }
    return IRM_OK;
  }
  int64_t kk = ix->shape[ix->ndim - 1], slice = 1, count = kk ? irm_tensor_numel(in[1]) / kk : 0;
  for (int32_t q = (int32_t)kk; q < d->ndim; q++) slice *= d->shape[q];
  for (int64_t i = 0; i < count; i++) {
    int64_t off = 0;
    for (int64_t q = 0; q < kk; q++) {
      int64_t j = irm_ops_load_i64_(in[1], ki, i * kk + q), len = d->shape[q];
      if (j < -len || j >= len)
        return irm_error(IRM_EVALUE, "%s: index %lld is out of range for axis %d of size %lld", c->def->name,
                         (long long)j, (int)q, (long long)len);
      off += (j < 0 ? j + len : j) * st[q];
    }
    for (int64_t e = 0; e < slice; e++) scatter_one(out, k, off + e, in[2], i * slice + e, red);
  }
  return IRM_OK;
}

static const ops_attr_def scatter_elements_attrs[] = {
    {"axis", IRM_OPTION_INT, "0", "the axis the indices point along (negative counts from the end)", 0},
    {"reduction", IRM_OPTION_STR, "none", "none (replace), add or mul", 0},
};
static const ops_attr_def scatter_nd_attrs[] = {
    {"reduction", IRM_OPTION_STR, "none", "none (replace), add or mul", 0},
};

/* ---- nn.pad ------------------------------------------------------------------------------- */

static const char *const pad_modes[] = {"constant", "edge", "reflect"};

/* The attributes, and pad_width checked: 2 * rank values, (before, after)
 * per axis, as TVM's flattened. */
static int pad_attrs_of(const ops_ctx *c, irm_pad_attrs *a) {
  int32_t ndim = irm_tensor_type_ndim(c->types[0]);
  int rc = irm_pad_attrs_decode(c->def->name, c->attrs, a);
  if (rc) return rc;
  const int64_t *w = a->pad_width;
  int32_t n = a->n_pad_width;
  if (n != 2 * ndim)
    return irm_error(IRM_ETYPE,
                     "nn.pad: pad_width has %d values; argument 1 (data) of rank %d needs %d (before, after per axis)",
                     (int)n, (int)ndim, (int)(2 * ndim));
  for (int32_t i = 0; i < n; i++)
    if (w[i] < 0 || w[i] > INT32_MAX)
      return irm_error(IRM_EVALUE, "nn.pad: pad_width value %lld must be 0..%d", (long long)w[i], (int)INT32_MAX);
  return IRM_OK;
}

static int pad_infer(const ops_ctx *c, irm_object **out) {
  int64_t shape[OPS_MAX_NDIM];
  irm_pad_attrs at;
  int rc = pad_attrs_of(c, &at);
  if (rc) return rc;
  const int64_t *w = at.pad_width;
  int mode = at.pad_mode;
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t ndim = irm_tensor_type_ndim(c->types[0]);
  for (int32_t d = 0; d < ndim; d++) {
    if (mode && in[d] == 0 && (w[2 * d] || w[2 * d + 1]))
      return irm_error(IRM_ETYPE, "nn.pad: %s padding of an empty axis %d", pad_modes[mode], (int)d);
    if (mode == 2 && (w[2 * d] >= in[d] || w[2 * d + 1] >= in[d]))
      return irm_error(IRM_ETYPE, "nn.pad: reflect padding of axis %d needs widths below its size %lld", (int)d,
                       (long long)in[d]);
    shape[d] = in[d] + w[2 * d] + w[2 * d + 1];
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, ndim, out);
}

static int pad_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_pad_attrs at;
  int rc = pad_attrs_of(c, &at);
  if (rc) return rc;
  const int64_t *w = at.pad_width;
  int mode = at.pad_mode;
  const DLTensor *src = irm_tensor_dl(in[0]), *dst = irm_tensor_dl(out);
  int32_t ndim = src->ndim;
  double value = at.pad_value;
  ops_kind k = irm_ops_tensor_kind_(out);
  int64_t st[OPS_MAX_NDIM], idx[OPS_MAX_NDIM] = {0};
  irm_ops_strides_(src->shape, ndim, st);
  size_t size = irm_dtype_size(src->dtype);
  for (int64_t o = 0, n = irm_tensor_numel(out); o < n; o++) {
    int64_t off = 0;
    int inside = 1;
    for (int32_t d = 0; d < ndim; d++) {
      int64_t i = idx[d] - w[2 * d], len = src->shape[d];
      if (i < 0 || i >= len) {
        if (mode == 0) inside = 0;
        else if (mode == 1) i = i < 0 ? 0 : len - 1;
        else i = i < 0 ? -i : 2 * (len - 1) - i;
      }
      off += i * st[d];
    }
    if (inside) memcpy((char *)dst->data + (size_t)o * size, (const char *)src->data + (size_t)off * size, size);
    else irm_ops_store_f64_(out, k, o, value);
    for (int32_t d = ndim - 1; d >= 0; d--) {
      if (++idx[d] < dst->shape[d]) break;
      idx[d] = 0;
    }
  }
  return IRM_OK;
}

static const ops_attr_def pad_attrs[] = {
    {"pad_width", IRM_OPTION_ARRAY_INT, NULL, "(before, after) per axis, flattened: 2 * rank values", 1},
    {"pad_value", IRM_OPTION_FLOAT, "0", "the value of constant padding", 0},
    {"pad_mode", IRM_OPTION_STR, "constant",
     "constant, edge (repeat the border) or reflect (mirror without the border)", 0},
};

/* ---- the table ----------------------------------------------------------------------- */

const ops_op_def irm_ops_shape_[] = {
    {"reshape", 1, data_arg, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, reshape_attrs, 1, reshape_infer, irm_ops_copy_eval_},
    {"transpose", 1, data_arg, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, transpose_attrs, 1, transpose_infer, transpose_eval},
    {"concatenate", -1, data_arg, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, concat_attrs, 1, concat_infer, concat_eval},
    {"strided_slice", 1, data_arg, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, slice_attrs, 4, slice_infer, slice_eval},
    {"squeeze", 1, data_arg, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, squeeze_attrs, 1, squeeze_infer, irm_ops_copy_eval_},
    {"expand_dims", 1, data_arg, IRM_OP_BROADCAST, OPS_ANY_DTYPE, expand_attrs, 2, expand_infer, irm_ops_copy_eval_},
    {"broadcast_to", 1, data_arg, IRM_OP_BROADCAST, OPS_ANY_DTYPE, bcast_to_attrs, 1, bcast_to_infer, bcast_to_eval},
    {"reshape_like", 2, reshape_like_args, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, NULL, 0, reshape_like_infer,
     irm_ops_copy_eval_},
    {"broadcast_to_like", 2, bcast_like_args, IRM_OP_BROADCAST, OPS_ANY_DTYPE, NULL, 0, bcast_like_infer,
     bcast_to_eval},
    {"take", 2, take_args, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, take_attrs, 1, take_infer, take_eval},
    {"gather", 2, take_args, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, gather_attrs, 1, gather_infer, gather_eval},
    {"scatter_elements", 3, scatter_args, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, scatter_elements_attrs, 2,
     scatter_elements_infer, scatter_eval},
    {"scatter_nd", 3, scatter_args, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, scatter_nd_attrs, 1, scatter_nd_infer,
     scatter_eval},
    {"nn.pad", 1, data_arg, IRM_OP_INJECTIVE, OPS_ANY_DTYPE, pad_attrs, 3, pad_infer, pad_eval},
};
const size_t irm_ops_shape_count_ = sizeof irm_ops_shape_ / sizeof irm_ops_shape_[0];
