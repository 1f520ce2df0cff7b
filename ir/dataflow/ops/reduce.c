/* The reductions: sum, mean, max, min, prod, argmax, argmin and
 * collapse_sum_like (COMM_REDUCE), argsort (OPAQUE, as TVM's; a stable sort), and
 * nn.softmax and nn.log_softmax (OUT_ELEMWISE_FUSABLE), with TVM's
 * attributes. Reductions accumulate in double (floats) or int64 (ints,
 * wrapped once when stored); the mean of ints truncates toward zero, as
 * TVM's integer division does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_internal.h"
#include "ops_util.h"

static const char *const data_arg[] = {"data"};

/* ---- sum and mean ---------------------------------------------------------------------- */

/* Which axes are reduced: axis absent means all; negative axes count from
 * the end; exclude reduces the others. *a: the decoded attributes. */
static int reduced_axes(const ops_ctx *c, int32_t ndim, int *reduced, irm_reduce_attrs *a) {
  int rc = irm_reduce_attrs_decode(c->def->name, c->attrs, a);
  if (rc) return rc;
  int32_t n = a->n_axis;
  for (int32_t i = 0; i < ndim; i++) reduced[i] = n < 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t ax = 0;
    if ((rc = irm_ops_norm_axis_(c, 0, a->axis[i], ndim, &ax))) return rc;
    if (reduced[ax]) {
      char s[OPS_SHAPE_BUF];
      return irm_error(IRM_EVALUE, "%s: axis %s repeats axis %d", c->def->name, irm_ops_shape_text_(a->axis, n, s),
                       (int)ax);
    }
    reduced[ax] = 1;
  }
  if (n >= 0 && a->exclude)
    for (int32_t i = 0; i < ndim; i++) reduced[i] = !reduced[i];
  return IRM_OK;
}

static int reduce_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), n = 0;
  int reduced[OPS_MAX_NDIM];
  irm_reduce_attrs a;
  int rc = reduced_axes(c, ndim, reduced, &a);
  if (rc) return rc;
  int keep = a.keepdims;
  int64_t shape[OPS_MAX_NDIM];
  for (int32_t i = 0; i < ndim; i++)
    if (!reduced[i]) shape[n++] = in[i];
    else if (keep) shape[n++] = 1;
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, n, out);
}

static int reduce_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *src = irm_tensor_dl(in[0]);
  int32_t ndim = src->ndim;
  int reduced[OPS_MAX_NDIM];
  irm_reduce_attrs at;
  int rc = reduced_axes(c, ndim, reduced, &at);
  if (rc) return rc;
  /* The output offset of each input element: strides over the kept axes. */
  int64_t kept_shape[OPS_MAX_NDIM], kept_strides[OPS_MAX_NDIM], step[OPS_MAX_NDIM], idx[OPS_MAX_NDIM] = {0};
  int32_t nk = 0;
  int64_t count = 1;
  for (int32_t i = 0; i < ndim; i++)
    if (!reduced[i]) kept_shape[nk++] = src->shape[i];
    else count *= src->shape[i];
  irm_ops_strides_(kept_shape, nk, kept_strides);
  for (int32_t i = 0, k = 0; i < ndim; i++) step[i] = reduced[i] ? 0 : kept_strides[k++];
  int64_t n_out = irm_tensor_numel(out), n_in = irm_tensor_numel(in[0]);
  ops_kind kind = irm_ops_kind_of_(src->dtype);
  const char *name = c->def->name;
  int is_float = irm_ops_kind_is_float_(kind), mean = strcmp(name, "mean") == 0;
  /* max and min keep the extreme (NaN wins, as NumPy's), prod multiplies;
   * a reduction over no elements gives the identity (-inf/lowest, +inf/highest, 1). */
  int op = strcmp(name, "max") == 0 ? 1 : strcmp(name, "min") == 0 ? 2 : strcmp(name, "prod") == 0 ? 3 : 0;
  double *fsum = is_float ? irm_calloc((size_t)(n_out ? n_out : 1), sizeof *fsum) : NULL;
  int64_t *isum = is_float ? NULL : irm_calloc((size_t)(n_out ? n_out : 1), sizeof *isum);
  if (!fsum && !isum) return irm_error_nomem_("evaluating a reduction");
  for (int64_t o = 0; o < n_out && op; o++) {
    if (is_float) fsum[o] = op == 1 ? -INFINITY : op == 2 ? INFINITY : 1.0;
    else isum[o] = op == 1 ? INT64_MIN : op == 2 ? INT64_MAX : 1;
  }
  int64_t off = 0;
  for (int64_t i = 0; i < n_in; i++) {
    if (is_float) {
      double x = irm_ops_load_f64_(in[0], kind, i), *a = &fsum[off];
      if (op == 0) *a += x;
      else if (op == 3) *a *= x;
      else if (isnan(x) || isnan(*a)) *a = NAN;
      else if (op == 1 ? x > *a : x < *a) *a = x;
    } else {
      int64_t x = irm_ops_load_i64_(in[0], kind, i), *a = &isum[off];
      if (op == 0) *a = (int64_t)((uint64_t)*a + (uint64_t)x);
      else if (op == 3) *a = (int64_t)((uint64_t)*a * (uint64_t)x);
      else if (op == 1 ? x > *a : x < *a) *a = x;
    }
    for (int32_t d = ndim - 1; d >= 0; d--) {
      off += step[d];
      if (++idx[d] < src->shape[d]) break;
      off -= step[d] * src->shape[d];
      idx[d] = 0;
    }
  }
  for (int64_t o = 0; o < n_out; o++) {
    if (is_float) irm_ops_store_f64_(out, kind, o, mean ? fsum[o] / (double)count : fsum[o]);
    else irm_ops_store_i64_(out, kind, o, mean ? (count ? isum[o] / count : 0) : isum[o]);
  }
  irm_free(fsum);
  irm_free(isum);
  return IRM_OK;
}

/* ---- argmax, argmin ----------------------------------------------------------------------- */

static int arg_axis(const ops_ctx *c, int32_t *axis, irm_argreduce_attrs *a) {
  int32_t ndim = irm_tensor_type_ndim(c->types[0]);
  int rc = irm_argreduce_attrs_decode(c->def->name, c->attrs, a);
  if (rc) return rc;
  if (ndim == 0)
    return irm_error(IRM_ETYPE, "%s: argument 1 (data) is a scalar; it needs rank 1 or more", c->def->name);
  return irm_ops_norm_axis_(c, 0, a->axis, ndim, axis);
}

static int argreduce_infer(const ops_ctx *c, irm_object **out) {
  int32_t axis = 0;
  irm_argreduce_attrs a;
  int rc = arg_axis(c, &axis, &a);
  if (rc) return rc;
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), n = 0;
  int64_t shape[OPS_MAX_NDIM];
  for (int32_t i = 0; i < ndim; i++)
    if (i != axis) shape[n++] = in[i];
    else if (a.keepdims) shape[n++] = 1;
  DLDataType i64 = {kDLInt, 64, 1};
  return irm_ops_make_type_(c, i64, shape, n, out);
}

/* The index of the first (select_last_index: the last) extreme along the
 * axis; a NaN counts as the extreme, as NumPy's argmax. */
static int argreduce_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  int32_t axis = 0;
  irm_argreduce_attrs at;
  int rc = arg_axis(c, &axis, &at);
  if (rc) return rc;
  const DLTensor *d = irm_tensor_dl(in[0]);
  int64_t outer = 1, inner = 1, len = d->shape[axis];
  for (int32_t i = 0; i < axis; i++) outer *= d->shape[i];
  for (int32_t i = axis + 1; i < d->ndim; i++) inner *= d->shape[i];
  int is_max = strcmp(c->def->name, "argmax") == 0, last = at.select_last_index;
  ops_kind k = irm_ops_kind_of_(d->dtype);
  int64_t *o = irm_tensor_data(out);
  for (int64_t a = 0; a < outer; a++)
    for (int64_t b = 0; b < inner; b++) {
      int64_t best = 0;
      double top = 0;
      for (int64_t j = 0; j < len; j++) {
        double x = irm_ops_load_f64_(in[0], k, (a * len + j) * inner + b);
        if (j > 0 && isnan(top)) break;
        int better = j == 0 || isnan(x) || (is_max ? x > top : x < top) || (last && x == top);
        if (better) {
          best = j;
          top = x;
        }
      }
      o[a * inner + b] = best;
    }
  return IRM_OK;
}

static const ops_attr_def argreduce_attrs[] = {
    {"axis", IRM_OPTION_ARRAY_INT, "0", "the one axis to reduce (negative counts from the end)", 0},
    {"keepdims", IRM_OPTION_BOOL, "false", "keep the reduced axis as a dimension of size 1", 0},
    {"select_last_index", IRM_OPTION_BOOL, "false", "on ties, the last index instead of the first", 0},
};

/* ---- argsort ------------------------------------------------------------------------------- */

static int argsort_infer(const ops_ctx *c, irm_object **out) {
  int32_t ndim = irm_tensor_type_ndim(c->types[0]), axis = 0;
  if (ndim == 0) return irm_error(IRM_ETYPE, "argsort: argument 1 (data) is a scalar; it needs rank 1 or more");
  irm_argsort_attrs a;
  int rc = irm_argsort_attrs_decode(c->def->name, c->attrs, &a);
  if (!rc) rc = irm_ops_norm_axis_(c, 0, a.axis, ndim, &axis);
  return rc ? rc : irm_ops_make_type_(c, a.dtype, irm_tensor_type_shape(c->types[0]), ndim, out);
}

/* a before b: by value (NaN last when ascending, first when descending), then by index. */
static int sorts_before(double a, double b, int64_t ia, int64_t ib, int ascend) {
  int na = isnan(a), nb = isnan(b);
  if (na != nb) return ascend ? nb : na;
  if (!na && a != b) return ascend ? a < b : a > b;
  return ia < ib;
}

/* A stable merge sort of the indices in ix (n of them) by key, tmp scratch. */
static void merge_sort(int64_t *ix, int64_t *tmp, int64_t n, const double *key, int ascend) {
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, o = lo;
      while (i < mid && j < hi)
        tmp[o++] = sorts_before(key[ix[j]], key[ix[i]], ix[j], ix[i], ascend) ? ix[j++] : ix[i++];
      while (i < mid) tmp[o++] = ix[i++];
      while (j < hi) tmp[o++] = ix[j++];
    }
    memcpy(ix, tmp, (size_t)n * sizeof *ix);
  }
}

static int argsort_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  const DLTensor *d = irm_tensor_dl(in[0]);
  int32_t axis = 0;
  irm_argsort_attrs at;
  int rc = irm_argsort_attrs_decode(c->def->name, c->attrs, &at);
  if (!rc) rc = irm_ops_norm_axis_(c, 0, at.axis, d->ndim, &axis);
  if (rc) return rc;
  int64_t outer = 1, inner = 1, len = d->shape[axis];
  for (int32_t i = 0; i < axis; i++) outer *= d->shape[i];
  for (int32_t i = axis + 1; i < d->ndim; i++) inner *= d->shape[i];
  int ascend = at.is_ascend;
  size_t n = (size_t)(len ? len : 1);
  double *key = irm_malloc(n * sizeof *key);
  int64_t *ix = irm_malloc(n * sizeof *ix), *tmp = irm_malloc(n * sizeof *tmp);
  if (!key || !ix || !tmp) rc = irm_error_nomem_("evaluating argsort");
  ops_kind k = irm_ops_kind_of_(d->dtype), ko = irm_ops_tensor_kind_(out);
  for (int64_t a = 0; !rc && a < outer; a++)
    for (int64_t b = 0; b < inner; b++) {
      for (int64_t j = 0; j < len; j++) {
        key[j] = irm_ops_load_f64_(in[0], k, (a * len + j) * inner + b);
        ix[j] = j;
      }
      merge_sort(ix, tmp, len, key, ascend);
      for (int64_t j = 0; j < len; j++) irm_ops_store_i64_(out, ko, (a * len + j) * inner + b, ix[j]);
    }
  irm_free(key);
  irm_free(ix);
  irm_free(tmp);
  return rc;
}

static const ops_attr_def argsort_attrs[] = {
    {"axis", IRM_OPTION_INT, "-1", "the axis to sort along (negative counts from the end)", 0},
    {"is_ascend", IRM_OPTION_BOOL, "true", "ascending (NaN last); false: descending (NaN first)", 0},
    {"dtype", IRM_OPTION_STR, "int32", "the indices' dtype: int32 or int64", 0},
};

static const ops_attr_def reduce_attrs[] = {
    {"axis", IRM_OPTION_ARRAY_INT, NULL, "the axes to reduce (negative counts from the end); absent: all", 0},
    {"keepdims", IRM_OPTION_BOOL, "false", "keep reduced axes as dimensions of size 1", 0},
    {"exclude", IRM_OPTION_BOOL, "false", "reduce every axis except those in axis", 0},
};

/* ---- nn.softmax ------------------------------------------------------------------------------ */

static const char *const softmax_args[] = {"data"};

static int softmax_axis(const ops_ctx *c, int32_t *axis) {
  irm_softmax_attrs a;
  int rc = irm_softmax_attrs_decode(c->def->name, c->attrs, &a);
  return rc ? rc : irm_ops_norm_axis_(c, 0, a.axis, irm_tensor_type_ndim(c->types[0]), axis);
}

static int softmax_infer(const ops_ctx *c, irm_object **out) {
  int32_t axis = 0;
  int rc = softmax_axis(c, &axis);
  if (rc) return rc;
  irm_object_retain(c->types[0]);
  *out = c->types[0];
  return IRM_OK;
}

static int softmax_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  int32_t axis = 0;
  int rc = softmax_axis(c, &axis);
  if (rc) return rc;
  const DLTensor *d = irm_tensor_dl(in[0]);
  int64_t inner = 1, outer = 1, len = d->shape[axis];
  for (int32_t i = 0; i < axis; i++) outer *= d->shape[i];
  for (int32_t i = axis + 1; i < d->ndim; i++) inner *= d->shape[i];
  ops_kind k = irm_ops_kind_of_(d->dtype);
  int log_out = strcmp(c->def->name, "nn.log_softmax") == 0;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t i = 0; i < inner; i++) {
      int64_t base = o * len * inner + i;
      double top = -INFINITY, total = 0;
      for (int64_t j = 0; j < len; j++) top = fmax(top, irm_ops_load_f64_(in[0], k, base + j * inner));
      for (int64_t j = 0; j < len; j++) total += exp(irm_ops_load_f64_(in[0], k, base + j * inner) - top);
      for (int64_t j = 0; j < len; j++) {
        double x = irm_ops_load_f64_(in[0], k, base + j * inner) - top;
        irm_ops_store_f64_(out, k, base + j * inner, log_out ? x - log(total) : exp(x) / total);
      }
    }
  return IRM_OK;
}

static const ops_attr_def softmax_attrs[] = {
    {"axis", IRM_OPTION_INT, "-1", "the axis the probabilities sum to 1 along (negative counts from the end)", 0},
};

/* ---- the table ------------------------------------------------------------------------- */

/* ---- collapse_sum_like: sums data down to the second argument's shape ------------------------ */

static const char *const collapse_args[] = {"data", "collapse_type"};

/* The second argument's shape must broadcast to data's (NumPy's rules):
 * the sum undoes that broadcast. */
static int collapse_infer(const ops_ctx *c, irm_object **out) {
  const int64_t *d = irm_tensor_type_shape(c->types[0]), *want = irm_tensor_type_shape(c->types[1]);
  int32_t nd = irm_tensor_type_ndim(c->types[0]), nw = irm_tensor_type_ndim(c->types[1]);
  int ok = nw <= nd;
  for (int32_t i = 0; ok && i < nw; i++) ok = want[nw - 1 - i] == 1 || want[nw - 1 - i] == d[nd - 1 - i];
  if (!ok) {
    char s1[OPS_SHAPE_BUF], s2[OPS_SHAPE_BUF];
    return irm_error(
        IRM_ETYPE,
        "collapse_sum_like: the shape %s of argument 2 (collapse_type) does not broadcast to the shape %s of argument 1 (data)",
        irm_ops_shape_text_(want, nw, s1), irm_ops_shape_text_(d, nd, s2));
  }
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), want, nw, out);
}

/* Accumulates in double (floats) or int64 (ints, wrapped once when stored),
 * as sum does. */
static int collapse_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  (void)c;
  const DLTensor *d = irm_tensor_dl(in[0]), *o = irm_tensor_dl(out);
  int64_t so[OPS_MAX_NDIM], none[OPS_MAX_NDIM] = {0}, n = irm_tensor_numel(out);
  irm_ops_broadcast_strides_(o->shape, o->ndim, d->shape, d->ndim, so);
  ops_kind k = irm_ops_tensor_kind_(out);
  int fl = irm_ops_kind_is_float_(k);
  double *fs = fl ? calloc((size_t)(n ? n : 1), sizeof *fs) : NULL;
  int64_t *is = fl ? NULL : calloc((size_t)(n ? n : 1), sizeof *is);
  if (!fs && !is) return irm_error(IRM_ENOMEM, "collapse_sum_like: out of memory");
  BROADCAST_LOOP(d->shape, d->ndim, irm_tensor_numel(in[0]), so, none, {
    if (fl) fs[ia] += irm_ops_load_f64_(in[0], k, oi);
    else is[ia] = (int64_t)((uint64_t)is[ia] + (uint64_t)irm_ops_load_i64_(in[0], k, oi));
  });
  for (int64_t i = 0; i < n; i++) {
    if (fl) irm_ops_store_f64_(out, k, i, fs[i]);
    else irm_ops_store_i64_(out, k, i, is[i]);
  }
  free(fs);
  free(is);
  return IRM_OK;
}

const ops_op_def irm_ops_reduce_[] = {
    {"sum", 1, data_arg, IRM_OP_COMM_REDUCE, OPS_NUMERIC, reduce_attrs, 3, reduce_infer, reduce_eval},
    {"mean", 1, data_arg, IRM_OP_COMM_REDUCE, OPS_NUMERIC, reduce_attrs, 3, reduce_infer, reduce_eval},
    {"max", 1, data_arg, IRM_OP_COMM_REDUCE, OPS_NUMERIC, reduce_attrs, 3, reduce_infer, reduce_eval},
    {"min", 1, data_arg, IRM_OP_COMM_REDUCE, OPS_NUMERIC, reduce_attrs, 3, reduce_infer, reduce_eval},
    {"prod", 1, data_arg, IRM_OP_COMM_REDUCE, OPS_NUMERIC, reduce_attrs, 3, reduce_infer, reduce_eval},
    {"argmax", 1, data_arg, IRM_OP_COMM_REDUCE, OPS_NUMERIC, argreduce_attrs, 3, argreduce_infer, argreduce_eval},
    {"argsort", 1, data_arg, IRM_OP_OPAQUE, OPS_NUMERIC, argsort_attrs, 3, argsort_infer, argsort_eval},
    {"argmin", 1, data_arg, IRM_OP_COMM_REDUCE, OPS_NUMERIC, argreduce_attrs, 3, argreduce_infer, argreduce_eval},
    {"collapse_sum_like", 2, collapse_args, IRM_OP_COMM_REDUCE, OPS_NUMERIC, NULL, 0, collapse_infer, collapse_eval},
    {"nn.softmax", 1, softmax_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, softmax_attrs, 1, softmax_infer,
     softmax_eval},
    {"nn.log_softmax", 1, softmax_args, IRM_OP_OUT_ELEMWISE_FUSABLE, OPS_FLOAT, softmax_attrs, 1, softmax_infer,
     softmax_eval},
};
const size_t irm_ops_reduce_count_ = sizeof irm_ops_reduce_ / sizeof irm_ops_reduce_[0];
