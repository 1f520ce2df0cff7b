/* image.resize2d (TVM's name; pattern INJECTIVE): resizing NCHW data to
 * `size` with ONNX Resize's semantics: methods nearest_neighbor, linear and
 * cubic; the coordinate transformation modes half_pixel, pytorch_half_pixel,
 * align_corners, asymmetric, tf_half_pixel_for_nn and tf_crop_and_resize;
 * the rounding of nearest; cubic's coefficient and exclude_outside. The
 * scales the coordinates use are out/in unless scale_h/scale_w are given
 * (ONNX's scales input). Separable: each output pixel is a weighted sum of
 * at most 4x4 input pixels, computed in double. */
#include <math.h>
#include <string.h>

#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "irm_kernel_image.h"
#include "ops_util.h"

static const char *const data_arg[] = {"data"};
/* The decoded names are the kernel header's enums (int: they are two enum types). */
_Static_assert((int)IRM_RESIZE_CUBIC == (int)IRM_KERNEL_RESIZE_CUBIC &&
                   (int)IRM_RESIZE_LINEAR == (int)IRM_KERNEL_RESIZE_LINEAR,
               "resize methods");
_Static_assert((int)IRM_RESIZE_COORD_TF_CROP_AND_RESIZE == (int)IRM_KERNEL_COORD_TF_CROP_AND_RESIZE &&
                   (int)IRM_RESIZE_COORD_TF_HALF_PIXEL_FOR_NN == (int)IRM_KERNEL_COORD_TF_HALF_PIXEL_FOR_NN,
               "resize coordinate modes");
_Static_assert((int)IRM_RESIZE_ROUND_CEIL == (int)IRM_KERNEL_ROUND_CEIL &&
                   (int)IRM_RESIZE_ROUND_PREFER_CEIL == (int)IRM_KERNEL_ROUND_PREFER_CEIL,
               "resize roundings");

static int resize_infer(const ops_ctx *c, irm_object **out) {
  irm_resize2d_attrs r;
  int rc = irm_resize2d_attrs_decode(c->def->name, c->attrs, &r);
  if (rc) return rc;
  if (irm_tensor_type_ndim(c->types[0]) != 4)
    return irm_error(IRM_ETYPE, "image.resize2d: argument 1 (data) must have rank 4 (NCHW), got rank %d",
                     (int)irm_tensor_type_ndim(c->types[0]));
  const int64_t *in = irm_tensor_type_shape(c->types[0]);
  int64_t shape[4] = {in[0], in[1], r.size[0], r.size[1]};
  return irm_ops_make_type_(c, irm_tensor_type_dtype(c->types[0]), shape, 4, out);
}

/* The taps of output index x along axis (0 rows, 1 columns): the shared
 * formulas of irm_kernel_image.h; -1 outside tf_crop_and_resize's region. */
static int resize_taps(const irm_resize2d_attrs *r, int axis, int64_t x, int64_t in, int64_t out, int64_t *idx,
                       double *w) {
  int coord = r->coordinate_transformation_mode;
  double at = irm_kernel_resize_source(coord, r->scale[axis], r->roi[axis], r->roi[axis + 2], x, in, out);
  return irm_kernel_resize_taps(r->method, coord, r->rounding_method, r->cubic_exclude, r->cubic_alpha, at, in, idx, w);
}

static int resize_eval(const ops_ctx *c, const irm_tensor *const *in, irm_tensor *out) {
  irm_resize2d_attrs r;
  int rc = irm_resize2d_attrs_decode(c->def->name, c->attrs, &r);
  if (rc) return rc;
  const DLTensor *d = irm_tensor_dl(in[0]);
  int64_t planes = d->shape[0] * d->shape[1], h = d->shape[2], w = d->shape[3], oh = r.size[0], ow = r.size[1];
  if ((h == 0 || w == 0) && oh * ow * planes > 0)
    return irm_error(IRM_ETYPE, "image.resize2d: argument 1 (data) has no pixels to resize");
  ops_kind k = irm_ops_kind_of_(d->dtype);
  for (int64_t y = 0; y < oh; y++) {
    int64_t iy[4], ix[4];
    double wy[4], wx[4];
    int ny = resize_taps(&r, 0, y, h, oh, iy, wy);
    for (int64_t x = 0; x < ow; x++) {
      int nx = resize_taps(&r, 1, x, w, ow, ix, wx);
      for (int64_t p = 0; p < planes; p++) {
        double acc = 0;
        if (ny < 0 || nx < 0) acc = r.extrapolation_value;
        for (int a = 0; a < ny && nx > 0; a++)
          for (int b = 0; b < nx; b++) acc += wy[a] * wx[b] * irm_ops_load_f64_(in[0], k, (p * h + iy[a]) * w + ix[b]);
        irm_ops_store_f64_(out, k, (p * oh + y) * ow + x, acc);
      }
    }
  }
  return IRM_OK;
}

static const ops_attr_def resize_attrs[] = {
    {"size", IRM_OPTION_ARRAY_INT, NULL, "the output (height, width)", 1},
    {"method", IRM_OPTION_STR, "linear", "nearest_neighbor, linear or cubic", 0},
    {"coordinate_transformation_mode", IRM_OPTION_STR, "half_pixel",
     "half_pixel, pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn or tf_crop_and_resize", 0},
    {"rounding_method", IRM_OPTION_STR, "round_prefer_floor",
     "nearest's rounding: round_prefer_floor, round_prefer_ceil, floor or ceil", 0},
    {"cubic_alpha", IRM_OPTION_FLOAT, "-0.75", "the cubic kernel's coefficient", 0},
    {"cubic_exclude", IRM_OPTION_BOOL, "false", "give taps outside the input weight 0 and renormalize", 0},
    {"extrapolation_value", IRM_OPTION_FLOAT, "0", "tf_crop_and_resize's value outside the input", 0},
    {"scale_h", IRM_OPTION_FLOAT, NULL, "the height scale the coordinates use; absent: out / in", 0},
    {"scale_w", IRM_OPTION_FLOAT, NULL, "the width scale the coordinates use; absent: out / in", 0},
    {"roi_y1", IRM_OPTION_FLOAT, "0", "tf_crop_and_resize's region, normalized", 0},
    {"roi_x1", IRM_OPTION_FLOAT, "0", "tf_crop_and_resize's region, normalized", 0},
    {"roi_y2", IRM_OPTION_FLOAT, "1", "tf_crop_and_resize's region, normalized", 0},
    {"roi_x2", IRM_OPTION_FLOAT, "1", "tf_crop_and_resize's region, normalized", 0},
};

const ops_op_def irm_ops_image_[] = {
    {"image.resize2d", 1, data_arg, IRM_OP_INJECTIVE, OPS_FLOAT, resize_attrs, 13, resize_infer, resize_eval},
};
const size_t irm_ops_image_count_ = sizeof irm_ops_image_ / sizeof irm_ops_image_[0];
