/* irm_kernel_image.h: image.resize2d's coordinate and tap formulas (ONNX
 * Resize's), the one copy that the evaluator (ir/dataflow/ops/image.c) and
 * the C generator (backend/codegen/image.c, which computes the taps at
 * generation time and emits them as tables) both call, so the two agree
 * to the bit. Stands alone: C11 and the C library, nothing of libirm;
 * everything is static inline and pure (safe on any thread). */
#ifndef IRM_KERNEL_IMAGE_H
#define IRM_KERNEL_IMAGE_H

#include <math.h>
#include <stdint.h>

/* The methods, coordinate modes and nearest roundings, in the order of
 * image.resize2d's attribute values (docs/ops.md): the values of the
 * IRM_RESIZE_* names its decoder gives (irm/dataflow/op_attrs.h;
 * ir/dataflow/ops/image.c asserts they agree). */
enum { IRM_KERNEL_RESIZE_NEAREST, IRM_KERNEL_RESIZE_LINEAR, IRM_KERNEL_RESIZE_CUBIC };
enum {
  IRM_KERNEL_COORD_HALF_PIXEL,
  IRM_KERNEL_COORD_PYTORCH_HALF_PIXEL,
  IRM_KERNEL_COORD_ALIGN_CORNERS,
  IRM_KERNEL_COORD_ASYMMETRIC,
  IRM_KERNEL_COORD_TF_HALF_PIXEL_FOR_NN,
  IRM_KERNEL_COORD_TF_CROP_AND_RESIZE
};
enum { IRM_KERNEL_ROUND_PREFER_FLOOR, IRM_KERNEL_ROUND_PREFER_CEIL, IRM_KERNEL_ROUND_FLOOR, IRM_KERNEL_ROUND_CEIL };

/* The input coordinate of output index x along one axis of in input and
 * out output positions. scale > 0: the scale the coordinates use (ONNX's
 * length_resized is then in * scale, not rounded); otherwise out / in.
 * roi_lo, roi_hi: tf_crop_and_resize's normalized region on this axis. */
static inline double irm_kernel_resize_source(int coord, double scale_attr, double roi_lo, double roi_hi, int64_t x,
                                              int64_t in, int64_t out) {
  double scale = scale_attr > 0 ? scale_attr : (in ? (double)out / (double)in : 1.0);
  double len = scale_attr > 0 ? (double)in * scale_attr : (double)out;
  switch (coord) {
  case IRM_KERNEL_COORD_PYTORCH_HALF_PIXEL: return len > 1 ? ((double)x + 0.5) / scale - 0.5 : 0.0;
  case IRM_KERNEL_COORD_ALIGN_CORNERS: return len > 1 ? (double)x * (double)(in - 1) / (len - 1) : 0.0;
  case IRM_KERNEL_COORD_ASYMMETRIC: return (double)x / scale;
  case IRM_KERNEL_COORD_TF_HALF_PIXEL_FOR_NN: return ((double)x + 0.5) / scale;
  case IRM_KERNEL_COORD_TF_CROP_AND_RESIZE:
    return len > 1 ? roi_lo * (double)(in - 1) + (double)x * (roi_hi - roi_lo) * (double)(in - 1) / (len - 1)
                   : 0.5 * (roi_lo + roi_hi) * (double)(in - 1);
  default: return ((double)x + 0.5) / scale - 0.5;
  }
}

/* The cubic convolution kernel at distance d with coefficient a. */
static inline double irm_kernel_resize_cubic_weight(double d, double a) {
  d = fabs(d);
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

/* The taps of input coordinate x along an axis of in positions: clamped
 * indices into idx and weights into w (room for 4 each). Returns their
 * count (1 nearest, 2 linear, 4 cubic), or -1 when x lies outside the
 * input in tf_crop_and_resize (the output is then the extrapolation
 * value). exclude: cubic taps outside the input get weight 0 and the rest
 * are renormalized. */
static inline int irm_kernel_resize_taps(int method, int coord, int rounding, int exclude, double alpha, double x,
                                         int64_t in, int64_t *idx, double *w) {
  if (coord == IRM_KERNEL_COORD_TF_CROP_AND_RESIZE && (x < 0 || x > (double)(in - 1))) return -1;
  if (method == IRM_KERNEL_RESIZE_NEAREST) {
    double f = floor(x), frac = x - f;
    double v = rounding == IRM_KERNEL_ROUND_FLOOR  ? f
               : rounding == IRM_KERNEL_ROUND_CEIL ? ceil(x)
               : frac == 0.5                       ? (rounding == IRM_KERNEL_ROUND_PREFER_FLOOR ? f : f + 1)
                                                   : nearbyint(x);
    int64_t i = (int64_t)v;
    idx[0] = i < 0 ? 0 : i >= in ? in - 1 : i;
    w[0] = 1;
    return 1;
  }
  int64_t base = (int64_t)floor(x);
  double s = x - (double)base, total = 0;
  int n = method == IRM_KERNEL_RESIZE_LINEAR ? 2 : 4;
  int64_t first = method == IRM_KERNEL_RESIZE_LINEAR ? base : base - 1;
  for (int t = 0; t < n; t++) {
    int64_t i = first + t;
    w[t] = method == IRM_KERNEL_RESIZE_LINEAR ? (t == 0 ? 1 - s : s)
                                              : irm_kernel_resize_cubic_weight((double)t - 1 - s, alpha);
    if (exclude && (i < 0 || i >= in)) w[t] = 0;
    total += w[t];
    idx[t] = i < 0 ? 0 : i >= in ? in - 1 : i;
  }
  if (exclude && total != 0)
    for (int t = 0; t < n; t++) w[t] /= total;
  return n;
}

#endif
