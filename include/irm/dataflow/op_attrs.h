/* The built-in ops' call attributes, decoded: one typed struct per op (or
 * per group of ops that share their attributes) and one decoder that fills
 * it, with the op's defaults. The ops' type rules and evaluators
 * (ir/dataflow/ops/) and the C generators (backend/codegen/) all read
 * attributes through these decoders, so a default or a parsing rule (TVM's
 * 1-, 2- or 4-value padding, a 1- or 2-value window, a layout name) is
 * written once. Passes and plugins that read a built-in op's attributes
 * may use them too.
 *
 * Every decoder has the form
 *
 *   int irm_<name>_attrs_decode(const char *op, const irm_object *attrs,
 *                               irm_<name>_attrs *out);
 *
 * op: the op's name, used only in messages ("nn.max_pool2d: strides [0]
 * must be positive"), so a decoder shared by several ops names the one
 * called. attrs: the call's attribute Map, borrowed (irm_call_attrs, or
 * the Map FInferType and FEvaluate receive): normally already checked by
 * irm_op_check_attrs, which converts values to the schema's types and fills
 * in the schema's defaults. attrs may also be NULL or lack entries (or hold
 * NONE): those attributes take the defaults documented on each struct,
 * which are the schema's (docs/ops.md lists both). *out is written in full:
 * the defaults first, then each given attribute.
 *
 * Errors (*out then holds defaults for the attributes not yet read):
 * TypeError "<op>: attribute 'groups': expected int, got float 0.5" for a
 * value of the wrong type (an array item is named by its index);
 * ValueError for a required attribute that is absent, and, in the words
 * the type rules have always used, for what a struct's comment lists:
 * windows, padding, layout and mode names (with the closest name), dtypes,
 * an array longer than the struct holds. Checks that need the argument
 * types (an axis against the rank, a kernel that must fit the input, pad
 * widths against the rank) stay in the ops' type rules; decoded axes are
 * as given (negative ones count from the end).
 *
 * The structs hold no references: nothing to release. A decoder only
 * reads attrs. Thread safety: every decoder may be called from any
 * thread.
 *
 * Attributes not decoded here: nn.dropout's rate (the inference identity
 * never reads it). */
#ifndef IRM_OP_ATTRS_H
#define IRM_OP_ATTRS_H

#include <stddef.h>
#include <stdint.h>

#include "irm/object.h"
#include "irm/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- names as enums ---------------------------------------------------- */

/* data_layout / layout of the 2-D nn ops: data and result. */
enum { IRM_LAYOUT_NCHW = 0, IRM_LAYOUT_NHWC = 1 };
/* kernel_layout of nn.conv2d. */
enum { IRM_KERNEL_LAYOUT_OIHW = 0, IRM_KERNEL_LAYOUT_HWIO = 1 };
/* image.resize2d's method, coordinate_transformation_mode and
 * rounding_method (the order of runtime/kernels/irm_kernel_image.h). */
enum { IRM_RESIZE_NEAREST_NEIGHBOR = 0, IRM_RESIZE_LINEAR = 1, IRM_RESIZE_CUBIC = 2 };
enum {
  IRM_RESIZE_COORD_HALF_PIXEL = 0,
  IRM_RESIZE_COORD_PYTORCH_HALF_PIXEL = 1,
  IRM_RESIZE_COORD_ALIGN_CORNERS = 2,
  IRM_RESIZE_COORD_ASYMMETRIC = 3,
  IRM_RESIZE_COORD_TF_HALF_PIXEL_FOR_NN = 4,
  IRM_RESIZE_COORD_TF_CROP_AND_RESIZE = 5
};
enum {
  IRM_RESIZE_ROUND_PREFER_FLOOR = 0,
  IRM_RESIZE_ROUND_PREFER_CEIL = 1,
  IRM_RESIZE_ROUND_FLOOR = 2,
  IRM_RESIZE_ROUND_CEIL = 3
};
/* nn.pad's pad_mode. */
enum { IRM_PAD_CONSTANT = 0, IRM_PAD_EDGE = 1, IRM_PAD_REFLECT = 2 };
/* scatter_elements' and scatter_nd's reduction. */
enum { IRM_SCATTER_NONE = 0, IRM_SCATTER_ADD = 1, IRM_SCATTER_MUL = 2 };

/* ---- conv ------------------------------------------------------------- */

/* nn.conv2d. Windows: 1 or 2 values (1 means both), each 1..INT32_MAX;
 * padding: 1 value (all sides), 2 (top and bottom, left and right) or 4,
 * each 0..INT32_MAX, stored top, left, bottom, right. Defaults: strides
 * (1, 1), padding 0, dilation (1, 1), groups 1 (must be >= 1), channels
 * and kernel_size absent, data_layout NCHW, kernel_layout OIHW, out_dtype
 * absent (the data's dtype). */
typedef struct irm_conv2d_attrs {
  int64_t strides[2], padding[4], dilation[2], groups;
  int64_t channels, kernel_size[2]; /* valid when has_channels / has_kernel_size */
  int has_channels, has_kernel_size;
  int data_layout;   /* IRM_LAYOUT_* */
  int kernel_layout; /* IRM_KERNEL_LAYOUT_* */
  int has_out_dtype;
  DLDataType out_dtype; /* valid when has_out_dtype (a non-empty out_dtype) */
} irm_conv2d_attrs;
IRM_API int irm_conv2d_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_attrs *out);

/* nn.contrib_conv2d_NCHWc (TVM's): data in NCHW{x}c, the weight packed as
 * OIHW{i}i{o}o, the result in NCHW{y}c. Windows, padding and groups as
 * nn.conv2d (the same defaults). channels (required): the result's
 * channels; in_channels (irm's): the channels of data that hold values,
 * the rest of its last block being zero padding (0: every lane). The
 * layouts are decoded into their blocks: data_layout "NCHW{x}c" (required)
 * gives data_block x; kernel_layout "OIHW{i}i{o}o" (required) gives
 * kernel_in_block and kernel_out_block; out_layout (default "": as
 * data_layout) gives out_block. ValueError for another layout form. */
typedef struct irm_conv2d_nchwc_attrs {
  int64_t strides[2], padding[4], dilation[2], groups;
  int64_t channels, in_channels, kernel_size[2]; /* kernel_size valid when has_kernel_size */
  int has_kernel_size;
  int64_t data_block, kernel_in_block, kernel_out_block, out_block;
  int has_out_dtype;
  DLDataType out_dtype;
} irm_conv2d_nchwc_attrs;
IRM_API int irm_conv2d_nchwc_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_nchwc_attrs *out);

/* nn.contrib_conv2d_winograd_weight_transform (TVM's): tile_size, the
 * output tile's side (default 2; irm computes F(2x2, 3x3) and F(4x4,
 * 3x3), tile_size 2 or 4, which the type rule checks). */
typedef struct irm_winograd_weight_transform_attrs {
  int64_t tile_size;
} irm_winograd_weight_transform_attrs;
IRM_API int irm_winograd_weight_transform_attrs_decode(const char *op, const irm_object *attrs,
                                                       irm_winograd_weight_transform_attrs *out);

/* nn.contrib_conv2d_winograd_without_weight_transform (TVM's) on blocked
 * data: tile_size (default 2; or 4), padding, strides, dilation and groups as
 * nn.conv2d (only 1, 1 and 1 compute), channels (required), data_layout
 * "NCHW{x}c" (required: data_block), kernel_layout "HWOI{i}i{o}o" (the
 * transformed weight [a][a][O/o][I/i][i][o], a = tile_size + 2, required: kernel_in_block and
 * kernel_out_block), out_dtype as nn.conv2d. */
typedef struct irm_conv2d_winograd_attrs {
  int64_t tile_size, strides[2], padding[4], dilation[2], groups, channels;
  int64_t data_block, kernel_in_block, kernel_out_block;
  int has_out_dtype;
  DLDataType out_dtype;
} irm_conv2d_winograd_attrs;
IRM_API int irm_conv2d_winograd_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_winograd_attrs *out);

/* nn.conv2d_transpose. strides, padding, dilation as nn.conv2d;
 * output_padding: 0, 1 or 2 values (one means both; none: 0). Defaults:
 * strides (1, 1), padding 0, dilation (1, 1), output_padding (0, 0),
 * groups 1 (checked against the channels by the type rule). */
typedef struct irm_conv2d_transpose_attrs {
  int64_t strides[2], padding[4], dilation[2], output_padding[2], groups;
} irm_conv2d_transpose_attrs;
IRM_API int irm_conv2d_transpose_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_transpose_attrs *out);

/* ---- pool ------------------------------------------------------------- */

/* The layout of the pools: "NCHW", "NHWC", or TVM's blocked "NCHW{x}c"
 * (data [N, C/x, H, W, x]; x a positive decimal integer, no leading zero,
 * at most INT32_MAX: "NCHW8c", "NCHW16c"), which decodes to layout
 * IRM_LAYOUT_NCHW with layout_block x. Another name: ValueError with the
 * closest name. */

/* nn.max_pool2d and nn.avg_pool2d. Windows and padding as nn.conv2d.
 * Defaults: pool_size (1, 1), strides (1, 1), padding 0, dilation (1, 1),
 * layout NCHW (layout_block 0), ceil_mode 0, count_include_pad 0 (only
 * nn.avg_pool2d has it). */
typedef struct irm_pool2d_attrs {
  int64_t pool_size[2], strides[2], padding[4], dilation[2];
  int layout;           /* IRM_LAYOUT_* */
  int64_t layout_block; /* 0 for NCHW and NHWC; x for NCHW{x}c (layout is then IRM_LAYOUT_NCHW) */
  int ceil_mode, count_include_pad;
} irm_pool2d_attrs;
IRM_API int irm_pool2d_attrs_decode(const char *op, const irm_object *attrs, irm_pool2d_attrs *out);

/* nn.global_max_pool2d and nn.global_avg_pool2d. Default: layout NCHW
 * (layout_block 0). */
typedef struct irm_global_pool2d_attrs {
  int layout;           /* IRM_LAYOUT_* */
  int64_t layout_block; /* 0 for NCHW and NHWC; x for NCHW{x}c (layout is then IRM_LAYOUT_NCHW) */
} irm_global_pool2d_attrs;
IRM_API int irm_global_pool2d_attrs_decode(const char *op, const irm_object *attrs, irm_global_pool2d_attrs *out);

/* ---- 3-D convolution and pooling (NCDHW) ------------------------------- */

/* nn.conv3d: data NCDHW, weight OIDHW (the only layouts: data_layout and
 * kernel_layout name them; another is a ValueError). Windows: 1 or 3
 * values (depth, height, width), each 1..INT32_MAX; padding: 1 value (all
 * sides), 3 (each axis at both ends) or 6 (front, top, left, back, bottom,
 * right), stored in that 6-value order. Defaults: strides (1, 1, 1),
 * padding 0, dilation (1, 1, 1), groups 1 (>= 1), channels and kernel_size
 * absent, out_dtype absent (the data's dtype). */
typedef struct irm_conv3d_attrs {
  int64_t strides[3], padding[6], dilation[3], groups;
  int64_t channels, kernel_size[3]; /* valid when has_channels / has_kernel_size */
  int has_channels, has_kernel_size;
  int has_out_dtype;
  DLDataType out_dtype; /* valid when has_out_dtype */
} irm_conv3d_attrs;
IRM_API int irm_conv3d_attrs_decode(const char *op, const irm_object *attrs, irm_conv3d_attrs *out);

/* nn.conv3d_transpose: data NCDHW, weight IODHW (C, O / groups, KD, KH,
 * KW), as TVM's. strides, padding, dilation as nn.conv3d; output_padding:
 * 0, 1 or 3 values (one means all; none: 0), each below its stride (or
 * dilation), checked by the type rule. Defaults: strides, dilation (1, 1,
 * 1), padding 0, output_padding 0, groups 1 (>= 1). */
typedef struct irm_conv3d_transpose_attrs {
  int64_t strides[3], padding[6], dilation[3], output_padding[3], groups;
} irm_conv3d_transpose_attrs;
IRM_API int irm_conv3d_transpose_attrs_decode(const char *op, const irm_object *attrs, irm_conv3d_transpose_attrs *out);

/* nn.max_pool3d and nn.avg_pool3d on NCDHW data (layout "NCDHW", the only
 * one). Windows and padding as nn.conv3d. Defaults: pool_size, strides and
 * dilation (1, 1, 1), padding 0, ceil_mode 0, count_include_pad 0 (only
 * nn.avg_pool3d has it). */
typedef struct irm_pool3d_attrs {
  int64_t pool_size[3], strides[3], padding[6], dilation[3];
  int ceil_mode, count_include_pad;
} irm_pool3d_attrs;
IRM_API int irm_pool3d_attrs_decode(const char *op, const irm_object *attrs, irm_pool3d_attrs *out);

/* ---- image ------------------------------------------------------------ */

/* image.resize2d. size is required: 2 values, each 0..INT32_MAX (absent:
 * ValueError). Defaults: method linear, coordinate_transformation_mode
 * half_pixel, rounding_method round_prefer_floor, cubic_alpha -0.75,
 * cubic_exclude 0, extrapolation_value 0, scale_h and scale_w absent
 * (stored as 0: the scale is out / in), roi (0, 0, 1, 1). */
typedef struct irm_resize2d_attrs {
  int64_t size[2];                    /* height, width */
  int method;                         /* IRM_RESIZE_NEAREST_NEIGHBOR, _LINEAR, _CUBIC */
  int coordinate_transformation_mode; /* IRM_RESIZE_COORD_* */
  int rounding_method;                /* IRM_RESIZE_ROUND_* */
  int cubic_exclude;
  double cubic_alpha, extrapolation_value;
  double scale[2]; /* scale_h, scale_w; 0: absent */
  double roi[4];   /* roi_y1, roi_x1, roi_y2, roi_x2 */
} irm_resize2d_attrs;
IRM_API int irm_resize2d_attrs_decode(const char *op, const irm_object *attrs, irm_resize2d_attrs *out);

/* ---- layout ----------------------------------------------------------- */

/* The most axes a layout string has: one per tensor dimension. */
#define IRM_LAYOUT_MAX_AXES IRM_TENSOR_MAX_NDIM

/* A layout as TVM writes it ("NCHW", "NHWC", "NCHW8c", "OIHW8i16o"): one
 * entry per tensor dimension, in order. An upper-case letter is a primal
 * axis; a number followed by a lower-case letter is a sub-axis of the
 * primal axis of that letter, split by that factor: "NCHW8c" is
 * [N][C/8][H][W][8], axis C split into blocks of 8 lanes. */
typedef struct irm_layout {
  int ndim;                            /* 1..IRM_LAYOUT_MAX_AXES */
  char axis[IRM_LAYOUT_MAX_AXES];      /* 'A'..'Z' primal, 'a'..'z' sub-axis */
  int64_t factor[IRM_LAYOUT_MAX_AXES]; /* a sub-axis' factor, 1..INT32_MAX; 0 for a primal axis */
} irm_layout;

/* Parses a layout string into *out. Each letter appears at most once as a
 * primal axis and once as a sub-axis; a sub-axis needs its primal axis in
 * the same layout (before or after it). Errors (ValueError, *out then
 * unspecified): "layout 'NCHW8': the factor 8 must be followed by a
 * lower-case axis letter", an empty or NULL name, a sub-axis without a
 * factor, a factor of 0 or above INT32_MAX, a repeated axis, a sub-axis
 * without its primal axis, a character that is not an axis letter, more
 * than IRM_LAYOUT_MAX_AXES axes. Reads only name; any thread. */
IRM_API int irm_layout_parse(const char *name, irm_layout *out);

/* The position of axis (a primal or a sub-axis letter) in l, or -1. */
IRM_API int irm_layout_find(const irm_layout *l, char axis);

/* The text of l ("NCHW8c") into buf (size bytes, truncated to fit, always
 * terminated when size > 0); returns buf. A parsed layout's text has at
 * most IRM_LAYOUT_MAX_AXES * 11 bytes and parses back to the same l. */
IRM_API const char *irm_layout_text(const irm_layout *l, char *buf, size_t size);

/* layout_transform. src_layout and dst_layout are required (absent:
 * ValueError), each parsed by irm_layout_parse (its ValueError names the
 * attribute), and must have the same primal axes: ValueError
 * "layout_transform: src_layout 'NCHW' and dst_layout 'NCW8c' have
 * different primal axes". No defaults. */
typedef struct irm_layout_transform_attrs {
  irm_layout src_layout, dst_layout;
} irm_layout_transform_attrs;
IRM_API int irm_layout_transform_attrs_decode(const char *op, const irm_object *attrs, irm_layout_transform_attrs *out);

/* annotation.compiler_begin and annotation.compiler_end. compiler is
 * required (absent or empty: ValueError); it points into attrs and lives
 * as long as attrs does. No defaults. */
typedef struct irm_compiler_attrs {
  const char *compiler;
} irm_compiler_attrs;
IRM_API int irm_compiler_attrs_decode(const char *op, const irm_object *attrs, irm_compiler_attrs *out);

/* ---- nn --------------------------------------------------------------- */

/* nn.dense. Default: units absent. */
typedef struct irm_dense_attrs {
  int64_t units; /* valid when has_units */
  int has_units;
} irm_dense_attrs;
IRM_API int irm_dense_attrs_decode(const char *op, const irm_object *attrs, irm_dense_attrs *out);

/* nn.bias_add. Default: axis 1. */
typedef struct irm_bias_add_attrs {
  int64_t axis;
} irm_bias_add_attrs;
IRM_API int irm_bias_add_attrs_decode(const char *op, const irm_object *attrs, irm_bias_add_attrs *out);

/* nn.batch_norm. Defaults: axis 1, epsilon 1e-5, center 1, scale 1. */
typedef struct irm_batch_norm_attrs {
  int64_t axis;
  double epsilon;
  int center, scale;
} irm_batch_norm_attrs;
IRM_API int irm_batch_norm_attrs_decode(const char *op, const irm_object *attrs, irm_batch_norm_attrs *out);

/* nn.leaky_relu. Default: alpha 0.01. */
typedef struct irm_leaky_relu_attrs {
  double alpha;
} irm_leaky_relu_attrs;
IRM_API int irm_leaky_relu_attrs_decode(const char *op, const irm_object *attrs, irm_leaky_relu_attrs *out);

/* ---- elemwise --------------------------------------------------------- */

/* clip. Defaults: a_min -INFINITY, a_max INFINITY (absent: no bound). */
typedef struct irm_clip_attrs {
  double a_min, a_max;
} irm_clip_attrs;
IRM_API int irm_clip_attrs_decode(const char *op, const irm_object *attrs, irm_clip_attrs *out);

/* cast. dtype is required (absent: ValueError). */
typedef struct irm_cast_attrs {
  DLDataType dtype;
} irm_cast_attrs;
IRM_API int irm_cast_attrs_decode(const char *op, const irm_object *attrs, irm_cast_attrs *out);

/* zeros, ones and full (TVM's creation ops). shape is required (absent:
 * ValueError); dtype absent: has_dtype 0 and dtype float32 (full then takes
 * its fill value's dtype). */
typedef struct irm_full_attrs {
  int64_t shape[IRM_TENSOR_MAX_NDIM];
  int32_t ndim;
  DLDataType dtype;
  int has_dtype;
} irm_full_attrs;
IRM_API int irm_full_attrs_decode(const char *op, const irm_object *attrs, irm_full_attrs *out);

/* ---- reduce ----------------------------------------------------------- */

/* sum, mean, max, min and prod. Defaults: axis absent (n_axis -1: every
 * axis), keepdims 0, exclude 0. */
typedef struct irm_reduce_attrs {
  int64_t axis[IRM_TENSOR_MAX_NDIM];
  int32_t n_axis; /* -1: absent */
  int keepdims, exclude;
} irm_reduce_attrs;
IRM_API int irm_reduce_attrs_decode(const char *op, const irm_object *attrs, irm_reduce_attrs *out);

/* argmax and argmin. axis: exactly one value (ValueError otherwise).
 * Defaults: axis 0, keepdims 0, select_last_index 0. */
typedef struct irm_argreduce_attrs {
  int64_t axis;
  int keepdims, select_last_index;
} irm_argreduce_attrs;
IRM_API int irm_argreduce_attrs_decode(const char *op, const irm_object *attrs, irm_argreduce_attrs *out);

/* argsort. dtype: int32 or int64 (ValueError otherwise). Defaults: axis
 * -1, is_ascend 1, dtype int32. */
typedef struct irm_argsort_attrs {
  int64_t axis;
  int is_ascend;
  DLDataType dtype;
} irm_argsort_attrs;
IRM_API int irm_argsort_attrs_decode(const char *op, const irm_object *attrs, irm_argsort_attrs *out);

/* nn.softmax and nn.log_softmax. Default: axis -1. */
typedef struct irm_softmax_attrs {
  int64_t axis;
} irm_softmax_attrs;
IRM_API int irm_softmax_attrs_decode(const char *op, const irm_object *attrs, irm_softmax_attrs *out);

/* ---- shape ------------------------------------------------------------ */

/* reshape. newshape is required (absent: ValueError). */
typedef struct irm_reshape_attrs {
  int64_t newshape[IRM_TENSOR_MAX_NDIM];
  int32_t n_newshape;
} irm_reshape_attrs;
IRM_API int irm_reshape_attrs_decode(const char *op, const irm_object *attrs, irm_reshape_attrs *out);

/* transpose. Default: axes absent (n_axes -1); absent or empty reverses
 * the dimensions. */
typedef struct irm_transpose_attrs {
  int64_t axes[IRM_TENSOR_MAX_NDIM];
  int32_t n_axes; /* -1: absent */
} irm_transpose_attrs;
IRM_API int irm_transpose_attrs_decode(const char *op, const irm_object *attrs, irm_transpose_attrs *out);

/* concatenate. Default: axis 0. */
typedef struct irm_concatenate_attrs {
  int64_t axis;
} irm_concatenate_attrs;
IRM_API int irm_concatenate_attrs_decode(const char *op, const irm_object *attrs, irm_concatenate_attrs *out);

/* strided_slice. begin and end are required (absent: ValueError); their
 * counts, and those of strides and axes when given, are checked against
 * each other by the type rule. Defaults: strides absent (n_strides -1:
 * steps of 1), axes absent (n_axes -1: the first n_begin axes). */
typedef struct irm_strided_slice_attrs {
  int64_t begin[IRM_TENSOR_MAX_NDIM], end[IRM_TENSOR_MAX_NDIM];
  int64_t strides[IRM_TENSOR_MAX_NDIM], axes[IRM_TENSOR_MAX_NDIM];
  int32_t n_begin, n_end, n_strides, n_axes; /* -1: absent */
} irm_strided_slice_attrs;
IRM_API int irm_strided_slice_attrs_decode(const char *op, const irm_object *attrs, irm_strided_slice_attrs *out);

/* squeeze. Default: axis absent (n_axis -1: every axis of size 1). */
typedef struct irm_squeeze_attrs {
  int64_t axis[IRM_TENSOR_MAX_NDIM];
  int32_t n_axis; /* -1: absent */
} irm_squeeze_attrs;
IRM_API int irm_squeeze_attrs_decode(const char *op, const irm_object *attrs, irm_squeeze_attrs *out);

/* expand_dims. Defaults: axis 0, num_newaxis 1. */
typedef struct irm_expand_dims_attrs {
  int64_t axis, num_newaxis;
} irm_expand_dims_attrs;
IRM_API int irm_expand_dims_attrs_decode(const char *op, const irm_object *attrs, irm_expand_dims_attrs *out);

/* broadcast_to. shape is required (absent: ValueError). */
typedef struct irm_broadcast_to_attrs {
  int64_t shape[IRM_TENSOR_MAX_NDIM];
  int32_t ndim;
} irm_broadcast_to_attrs;
IRM_API int irm_broadcast_to_attrs_decode(const char *op, const irm_object *attrs, irm_broadcast_to_attrs *out);

/* take and gather. Default: axis 0 (has_axis 1); take's axis absent
 * (has_axis 0) is TVM's axis=None: data flattened. */
typedef struct irm_take_attrs {
  int64_t axis;
  int has_axis;
} irm_take_attrs;
IRM_API int irm_take_attrs_decode(const char *op, const irm_object *attrs, irm_take_attrs *out);

/* scatter_elements and scatter_nd (which has no axis). Defaults: axis 0,
 * reduction none. */
typedef struct irm_scatter_attrs {
  int64_t axis;
  int reduction; /* IRM_SCATTER_* */
} irm_scatter_attrs;
IRM_API int irm_scatter_attrs_decode(const char *op, const irm_object *attrs, irm_scatter_attrs *out);

/* nn.pad. pad_width is required (absent: ValueError): (before, after) per
 * axis, flattened; its count and values are checked against the rank by
 * the type rule. Defaults: pad_value 0, pad_mode constant. */
typedef struct irm_pad_attrs {
  int64_t pad_width[2 * IRM_TENSOR_MAX_NDIM];
  int32_t n_pad_width;
  double pad_value;
  int pad_mode; /* IRM_PAD_* */
} irm_pad_attrs;
IRM_API int irm_pad_attrs_decode(const char *op, const irm_object *attrs, irm_pad_attrs *out);

/* ---- qnn -------------------------------------------------------------- */

/* qnn.requantize's rounding: half to even (ONNX's rint) or half up (TVM's
 * UPWARD). */
enum { IRM_QNN_ROUND_TONEAREST = 0, IRM_QNN_ROUND_UPWARD = 1 };

/* The arithmetic of qnn.requantize's scaling (TVM's compute_dtype, and
 * the same attribute on qnn.add and qnn.mul): FLOAT64 ("float64", the
 * default) is ONNX's reference, the product of the value and the float32
 * multiplier in double, rounded once; FLOAT32 ("float32") is ONNX
 * Runtime's arithmetic: the product rounded to float32 first (its
 * QLinearConv and QGemm), and qnn.add / qnn.mul as its QLinearAdd /
 * QLinearMul, through float32 scale ratios (runtime/kernels/
 * irm_kernel_qnn.h gives the formulas). */
enum { IRM_QNN_COMPUTE_FLOAT64 = 0, IRM_QNN_COMPUTE_FLOAT32 = 1 };

/* qnn.quantize and qnn.requantize. Defaults: axis -1 (the data axis that
 * per-channel scales and zero points run along), out_dtype int8 (int8,
 * uint8 or int32: the type rule checks), rounding TONEAREST (requantize
 * only; "TONEAREST" or "UPWARD", ValueError with the closest name),
 * compute_dtype float64 (requantize only). */
typedef struct irm_qnn_quantize_attrs {
  int64_t axis;
  DLDataType out_dtype;
  int rounding;      /* IRM_QNN_ROUND_* */
  int compute_dtype; /* IRM_QNN_COMPUTE_* */
} irm_qnn_quantize_attrs;
IRM_API int irm_qnn_quantize_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_quantize_attrs *out);

/* qnn.dequantize. Defaults: axis -1, out_dtype float32 (the only one the
 * type rule takes). */
typedef struct irm_qnn_dequantize_attrs {
  int64_t axis;
  DLDataType out_dtype;
} irm_qnn_dequantize_attrs;
IRM_API int irm_qnn_dequantize_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_dequantize_attrs *out);

/* qnn.add and qnn.mul. Defaults: lhs_axis -1, rhs_axis -1 (TVM's; irm's
 * scales and zero points are per tensor, so the axes are not read),
 * compute_dtype float64. */
typedef struct irm_qnn_binary_attrs {
  int64_t lhs_axis, rhs_axis;
  int compute_dtype; /* IRM_QNN_COMPUTE_* */
} irm_qnn_binary_attrs;
IRM_API int irm_qnn_binary_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_binary_attrs *out);

/* qnn.dense. Defaults: units absent, out_dtype int32. (qnn.conv2d decodes
 * with irm_conv2d_attrs_decode; its schema's out_dtype default is int32,
 * and an absent one counts as int32.) */
typedef struct irm_qnn_dense_attrs {
  int64_t units; /* valid when has_units */
  int has_units;
  DLDataType out_dtype;
} irm_qnn_dense_attrs;
IRM_API int irm_qnn_dense_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_dense_attrs *out);

/* qnn.contrib_conv2d_NCHWc (irm's, made by AlterOpLayout): qnn.conv2d
 * (groups 1) on NCHW16c bytes by a weight packed at build, with the bias,
 * qnn.requantize and a clip fused. Defaults: strides 1,1, padding 0,
 * dilation 1,1; channels (required) the result's channels; out_dtype
 * int32 (the sums plus the bias; uint8 or int8: requantized, the type
 * rule checks); rounding TONEAREST and compute_dtype float64 (as
 * qnn.requantize's); clip_min and
 * clip_max (defaults -2^31 and 2^31 - 1) narrow the requantized range;
 * groups (default 1) 1 or channels (depthwise: the kernel packed as
 * int32 [ceil(C/16)][KH][KW][16]; the decoder checks groups >= 1, the
 * type rule the rest). */
typedef struct irm_qnn_conv2d_nchwc_attrs {
  int64_t strides[2], padding[4], dilation[2];
  int64_t channels, clip_min, clip_max, groups;
  DLDataType out_dtype;
  int rounding;      /* IRM_QNN_ROUND_* */
  int compute_dtype; /* IRM_QNN_COMPUTE_* */
} irm_qnn_conv2d_nchwc_attrs;
IRM_API int irm_qnn_conv2d_nchwc_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_conv2d_nchwc_attrs *out);

#ifdef __cplusplus
}
#endif

#endif
