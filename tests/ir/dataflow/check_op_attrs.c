/* The attribute decoders of irm/dataflow/op_attrs.h: their defaults (and
 * that they are the op schemas' defaults), the values they read, and
 * their errors, which name the op and the attribute. */
#include <math.h>

#include "check_util.h"

/* An Array of n ints. */
static irm_object *ints(const int64_t *v, size_t n) {
  irm_any items[32];
  for (size_t i = 0; i < n; i++) items[i] = irm_any_int(v[i]);
  return new_array(items, n);
}

#define INTS(...) ints((const int64_t[]){__VA_ARGS__}, sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

/* A Map of one attribute holding an Array (the Array released). */
static irm_object *map_ints(const char *key, irm_object *arr) {
  irm_object *m = map1(key, irm_any_object(arr));
  irm_object_release(arr);
  return m;
}

START_TEST(test_decoders_fill_defaults_without_attributes) {
  irm_conv2d_attrs conv;
  ck_assert_ok(irm_conv2d_attrs_decode("nn.conv2d", NULL, &conv));
  ck_assert(conv.strides[0] == 1 && conv.strides[1] == 1 && conv.dilation[0] == 1 && conv.dilation[1] == 1);
  ck_assert(conv.padding[0] == 0 && conv.padding[1] == 0 && conv.padding[2] == 0 && conv.padding[3] == 0);
  ck_assert_int_eq(conv.groups, 1);
  ck_assert(!conv.has_channels && !conv.has_kernel_size && !conv.has_out_dtype);
  ck_assert_int_eq(conv.data_layout, IRM_LAYOUT_NCHW);
  ck_assert_int_eq(conv.kernel_layout, IRM_KERNEL_LAYOUT_OIHW);

  irm_conv2d_transpose_attrs convt;
  ck_assert_ok(irm_conv2d_transpose_attrs_decode("nn.conv2d_transpose", NULL, &convt));
  ck_assert(convt.strides[1] == 1 && convt.output_padding[0] == 0 && convt.output_padding[1] == 0 && convt.groups == 1);

  irm_pool2d_attrs pool;
  ck_assert_ok(irm_pool2d_attrs_decode("nn.max_pool2d", NULL, &pool));
  ck_assert(pool.pool_size[0] == 1 && pool.pool_size[1] == 1 && pool.strides[0] == 1 && pool.padding[3] == 0);
  ck_assert(pool.layout == IRM_LAYOUT_NCHW && !pool.ceil_mode && !pool.count_include_pad);

  irm_batch_norm_attrs bn;
  ck_assert_ok(irm_batch_norm_attrs_decode("nn.batch_norm", NULL, &bn));
  ck_assert(bn.axis == 1 && bn.epsilon == 1e-5 && bn.center && bn.scale);

  irm_clip_attrs clip;
  ck_assert_ok(irm_clip_attrs_decode("clip", NULL, &clip));
  ck_assert(isinf(clip.a_min) && clip.a_min < 0 && isinf(clip.a_max) && clip.a_max > 0);

  irm_reduce_attrs red;
  ck_assert_ok(irm_reduce_attrs_decode("sum", NULL, &red));
  ck_assert(red.n_axis == -1 && !red.keepdims && !red.exclude);

  irm_argsort_attrs sort;
  ck_assert_ok(irm_argsort_attrs_decode("argsort", NULL, &sort));
  ck_assert(sort.axis == -1 && sort.is_ascend && sort.dtype.code == kDLInt && sort.dtype.bits == 32);

  irm_leaky_relu_attrs leaky;
  ck_assert_ok(irm_leaky_relu_attrs_decode("nn.leaky_relu", NULL, &leaky));
  ck_assert(leaky.alpha == 0.01);

  irm_expand_dims_attrs ex;
  ck_assert_ok(irm_expand_dims_attrs_decode("expand_dims", NULL, &ex));
  ck_assert(ex.axis == 0 && ex.num_newaxis == 1);

  irm_scatter_attrs sc;
  ck_assert_ok(irm_scatter_attrs_decode("scatter_elements", NULL, &sc));
  ck_assert(sc.axis == 0 && sc.reduction == IRM_SCATTER_NONE);

  irm_transpose_attrs tr;
  ck_assert_ok(irm_transpose_attrs_decode("transpose", NULL, &tr));
  ck_assert_int_eq(tr.n_axes, -1);
}
END_TEST

/* ---- the decoders' defaults are the schemas' ------------------------------------------------ */

typedef int (*decode_fn)(const char *op, const irm_object *attrs, void *out);

#define WRAP(name)                                                            \
  static int dec_##name(const char *op, const irm_object *attrs, void *out) { \
    return irm_##name##_attrs_decode(op, attrs, out);                         \
  }
WRAP(conv2d)
WRAP(conv2d_transpose)
WRAP(pool2d)
WRAP(global_pool2d)
WRAP(conv3d)
WRAP(conv3d_transpose)
WRAP(pool3d)
WRAP(resize2d)
WRAP(layout_transform)
WRAP(dense)
WRAP(bias_add)
WRAP(batch_norm)
WRAP(leaky_relu)
WRAP(clip)
WRAP(cast)
WRAP(full)
WRAP(reduce)
WRAP(argreduce)
WRAP(argsort)
WRAP(softmax)
WRAP(reshape)
WRAP(transpose)
WRAP(concatenate)
WRAP(strided_slice)
WRAP(squeeze)
WRAP(expand_dims)
WRAP(broadcast_to)
WRAP(take)
WRAP(scatter)
WRAP(pad)
/* the quantized ops (qnn.conv2d reads conv2d's decoder; its schema's out_dtype is int32) */
WRAP(qnn_quantize)
WRAP(qnn_dequantize)
WRAP(qnn_binary)
WRAP(qnn_dense)
WRAP(qnn_conv2d_nchwc)

typedef struct decoder_case {
  const char *op;
  decode_fn decode;
  size_t size;
  const char *required; /* one required attribute, or NULL */
} decoder_case;

#define CASE(op, name, req) \
  { op, dec_##name, sizeof(irm_##name##_attrs), req }
static const decoder_case cases[] = {
    CASE("nn.conv2d", conv2d, NULL),
    CASE("nn.conv2d_transpose", conv2d_transpose, NULL),
    CASE("nn.max_pool2d", pool2d, NULL),
    CASE("nn.avg_pool2d", pool2d, NULL),
    CASE("nn.global_max_pool2d", global_pool2d, NULL),
    CASE("nn.global_avg_pool2d", global_pool2d, NULL),
    CASE("nn.conv3d", conv3d, NULL),
    CASE("nn.conv3d_transpose", conv3d_transpose, NULL),
    CASE("nn.max_pool3d", pool3d, NULL),
    CASE("nn.avg_pool3d", pool3d, NULL),
    CASE("image.resize2d", resize2d, "size"),
    CASE("layout_transform", layout_transform, "src_layout"),
    CASE("nn.dense", dense, NULL),
    CASE("nn.bias_add", bias_add, NULL),
    CASE("nn.batch_norm", batch_norm, NULL),
    CASE("nn.leaky_relu", leaky_relu, NULL),
    CASE("clip", clip, NULL),
    CASE("cast", cast, "dtype"),
    CASE("zeros", full, "shape"),
    CASE("ones", full, "shape"),
    CASE("full", full, "shape"),
    CASE("sum", reduce, NULL),
    CASE("mean", reduce, NULL),
    CASE("max", reduce, NULL),
    CASE("min", reduce, NULL),
    CASE("prod", reduce, NULL),
    CASE("argmax", argreduce, NULL),
    CASE("argmin", argreduce, NULL),
    CASE("argsort", argsort, NULL),
    CASE("nn.softmax", softmax, NULL),
    CASE("nn.log_softmax", softmax, NULL),
    CASE("reshape", reshape, "newshape"),
    CASE("transpose", transpose, NULL),
    CASE("concatenate", concatenate, NULL),
    CASE("strided_slice", strided_slice, "begin"),
    CASE("squeeze", squeeze, NULL),
    CASE("expand_dims", expand_dims, NULL),
    CASE("broadcast_to", broadcast_to, "shape"),
    CASE("take", take, NULL),
    CASE("gather", take, NULL),
    CASE("scatter_elements", scatter, NULL),
    CASE("scatter_nd", scatter, NULL),
    CASE("nn.pad", pad, "pad_width"),
    CASE("qnn.quantize", qnn_quantize, NULL),
    CASE("qnn.requantize", qnn_quantize, NULL),
    CASE("qnn.dequantize", qnn_dequantize, NULL),
    CASE("qnn.add", qnn_binary, NULL),
    CASE("qnn.mul", qnn_binary, NULL),
    CASE("qnn.dense", qnn_dense, NULL),
    CASE("qnn.concatenate", concatenate, NULL),
    CASE("qnn.contrib_conv2d_NCHWc", qnn_conv2d_nchwc, "channels"),
};

/* The required attributes of a case, given. */
static irm_object *required_attrs(const decoder_case *k) {
  if (!k->required) return NULL;
  if (strcmp(k->required, "dtype") == 0) return map1("dtype", irm_any_str("int8"));
  if (strcmp(k->required, "channels") == 0) return map1("channels", irm_any_int(20));
  if (strcmp(k->required, "src_layout") == 0) {
    const char *keys[] = {"src_layout", "dst_layout"};
    irm_any values[] = {irm_any_str("NCHW"), irm_any_str("NCHW8c")};
    return new_map(keys, values, 2);
  }
  if (strcmp(k->required, "begin") == 0) {
    const char *keys[] = {"begin", "end"};
    irm_object *b = INTS(0), *e = INTS(1);
    irm_any values[] = {irm_any_object(b), irm_any_object(e)};
    irm_object *m = new_map(keys, values, 2);
    irm_object_release(b);
    irm_object_release(e);
    return m;
  }
  return map_ints(k->required, INTS(2, 3));
}

START_TEST(test_decoder_defaults_are_the_schema_defaults) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const decoder_case *k = &cases[i];
    irm_object *op = NULL, *given = required_attrs(k), *checked = NULL;
    ck_assert_ok(irm_op_get(k->op, &op));
    ck_assert_ok(irm_op_check_attrs(op, given, &checked)); /* the schema's defaults filled in */
    unsigned char own[4096], schema[4096];
    ck_assert_uint_le(k->size, sizeof own);
    memset(own, 0, sizeof own);
    memset(schema, 0, sizeof schema);
    ck_assert_ok(k->decode(k->op, given, own));
    ck_assert_ok(k->decode(k->op, checked, schema));
    ck_assert_msg(memcmp(own, schema, k->size) == 0, "%s: the decoder's defaults differ from the schema's", k->op);
    irm_object_release(checked);
    irm_object_release(given);
    irm_object_release(op);
  }
}
END_TEST

/* ---- given values --------------------------------------------------------------------------- */

START_TEST(test_conv2d_reads_windows_padding_layouts_and_dtype) {
  const char *keys[] = {"strides",       "padding",   "dilation", "data_layout",
                        "kernel_layout", "out_dtype", "channels", "kernel_size"};
  irm_object *s = INTS(2), *p = INTS(1, 2), *d = INTS(1, 3), *k = INTS(3);
  irm_any values[] = {irm_any_object(s),   irm_any_object(p),    irm_any_object(d), irm_any_str("NHWC"),
                      irm_any_str("HWIO"), irm_any_str("int32"), irm_any_int(8),    irm_any_object(k)};
  irm_object *attrs = new_map(keys, values, 8);
  irm_conv2d_attrs a;
  ck_assert_ok(irm_conv2d_attrs_decode("nn.conv2d", attrs, &a));
  ck_assert(a.strides[0] == 2 && a.strides[1] == 2);
  ck_assert(a.padding[0] == 1 && a.padding[1] == 2 && a.padding[2] == 1 && a.padding[3] == 2);
  ck_assert(a.dilation[0] == 1 && a.dilation[1] == 3);
  ck_assert(a.data_layout == IRM_LAYOUT_NHWC && a.kernel_layout == IRM_KERNEL_LAYOUT_HWIO);
  ck_assert(a.has_out_dtype && a.out_dtype.code == kDLInt && a.out_dtype.bits == 32);
  ck_assert(a.has_channels && a.channels == 8 && a.has_kernel_size && a.kernel_size[0] == 3 && a.kernel_size[1] == 3);
  irm_object_release(attrs);
  irm_object_release(s);
  irm_object_release(p);
  irm_object_release(d);
  irm_object_release(k);
}
END_TEST

START_TEST(test_resize2d_reads_names_as_the_kernel_enums) {
  const char *keys[] = {"size", "method", "coordinate_transformation_mode", "rounding_method", "scale_w", "roi_x2"};
  irm_object *size = INTS(4, 6);
  irm_any values[] = {irm_any_object(size), irm_any_str("cubic"), irm_any_str("tf_crop_and_resize"),
                      irm_any_str("floor"), irm_any_float(2.5),   irm_any_int(3)};
  irm_object *attrs = new_map(keys, values, 6);
  irm_resize2d_attrs r;
  ck_assert_ok(irm_resize2d_attrs_decode("image.resize2d", attrs, &r));
  ck_assert(r.size[0] == 4 && r.size[1] == 6);
  ck_assert_int_eq(r.method, IRM_RESIZE_CUBIC);
  ck_assert_int_eq(r.coordinate_transformation_mode, IRM_RESIZE_COORD_TF_CROP_AND_RESIZE);
  ck_assert_int_eq(r.rounding_method, IRM_RESIZE_ROUND_FLOOR);
  ck_assert(r.scale[0] == 0.0 && r.scale[1] == 2.5 && r.roi[3] == 3.0 && r.cubic_alpha == -0.75);
  irm_object_release(attrs);
  irm_object_release(size);
}
END_TEST

/* ---- errors --------------------------------------------------------------------------------- */

START_TEST(test_wrong_typed_attribute_names_op_and_attribute) {
  irm_object *attrs = map1("groups", irm_any_float(0.5));
  irm_conv2d_attrs conv;
  ck_assert_error(irm_conv2d_attrs_decode("nn.conv2d", attrs, &conv), IRM_ETYPE,
                  "TypeError: nn.conv2d: attribute 'groups': expected int, got float 0.5");
  ck_assert_int_eq(conv.groups, 1); /* the default stays */
  irm_object_release(attrs);

  attrs = map1("strides", irm_any_int(2));
  irm_pool2d_attrs pool;
  ck_assert_error(irm_pool2d_attrs_decode("nn.avg_pool2d", attrs, &pool), IRM_ETYPE,
                  "TypeError: nn.avg_pool2d: attribute 'strides':");
  irm_object_release(attrs);

  irm_any items[] = {irm_any_int(1), irm_any_str("two")};
  irm_object *arr = new_array(items, 2);
  attrs = map_ints("axis", arr);
  irm_reduce_attrs red;
  ck_assert_error(irm_reduce_attrs_decode("mean", attrs, &red), IRM_ETYPE, "TypeError: mean: attribute 'axis' item 1:");
  irm_object_release(attrs);

  const char *pad_keys[] = {"pad_width", "pad_mode"};
  arr = INTS(0, 0);
  irm_any pad_values[] = {irm_any_object(arr), irm_any_int(1)};
  attrs = new_map(pad_keys, pad_values, 2);
  irm_object_release(arr);
  irm_pad_attrs pad;
  ck_assert_error(irm_pad_attrs_decode("nn.pad", attrs, &pad), IRM_ETYPE, "TypeError: nn.pad: attribute 'pad_mode':");
  irm_object_release(attrs);

  attrs = map1("keepdims", irm_any_int(2));
  ck_assert_error(irm_reduce_attrs_decode("sum", attrs, &red), IRM_ETYPE, "TypeError: sum: attribute 'keepdims':");
  irm_object_release(attrs);

  attrs = map1("a_min", irm_any_str("low"));
  irm_clip_attrs clip;
  ck_assert_error(irm_clip_attrs_decode("clip", attrs, &clip), IRM_ETYPE, "TypeError: clip: attribute 'a_min':");
  irm_object_release(attrs);
}
END_TEST

START_TEST(test_bad_values_keep_the_type_rules_words) {
  irm_object *attrs = map_ints("padding", INTS(1, 2, 3));
  irm_pool2d_attrs pool;
  ck_assert_error(irm_pool2d_attrs_decode("nn.max_pool2d", attrs, &pool), IRM_EVALUE,
                  "ValueError: nn.max_pool2d: padding [1, 2, 3] must have 1, 2 or 4 values");
  irm_object_release(attrs);

  attrs = map_ints("pool_size", INTS(0, 2));
  ck_assert_error(irm_pool2d_attrs_decode("nn.max_pool2d", attrs, &pool), IRM_EVALUE,
                  "ValueError: nn.max_pool2d: pool_size [0, 2] must be positive");
  irm_object_release(attrs);

  attrs = map1("layout", irm_any_str("NCWH"));
  ck_assert_error(
      irm_pool2d_attrs_decode("nn.max_pool2d", attrs, &pool), IRM_EVALUE,
      "ValueError: nn.max_pool2d: layout 'NCWH' is not supported (did you mean 'NCHW'?); supported: NCHW, NHWC");
  irm_object_release(attrs);

  attrs = map1("dtype", irm_any_str("float32"));
  irm_argsort_attrs sort;
  ck_assert_error(irm_argsort_attrs_decode("argsort", attrs, &sort), IRM_EVALUE,
                  "ValueError: argsort: dtype must be int32 or int64, got float32");
  irm_object_release(attrs);

  attrs = map_ints("axis", INTS(0, 1));
  irm_argreduce_attrs arg;
  ck_assert_error(irm_argreduce_attrs_decode("argmin", attrs, &arg), IRM_EVALUE,
                  "ValueError: argmin: axis must hold exactly one axis, got 2");
  irm_object_release(attrs);

  irm_resize2d_attrs r;
  ck_assert_error(irm_resize2d_attrs_decode("image.resize2d", NULL, &r), IRM_EVALUE,
                  "ValueError: image.resize2d: attribute 'size' is required");
  attrs = map_ints("size", INTS(4));
  ck_assert_error(irm_resize2d_attrs_decode("image.resize2d", attrs, &r), IRM_EVALUE,
                  "ValueError: image.resize2d: size must have 2 values (height, width), got 1");
  irm_object_release(attrs);

  irm_layout_transform_attrs lt;
  ck_assert_error(irm_layout_transform_attrs_decode("layout_transform", NULL, &lt), IRM_EVALUE,
                  "ValueError: layout_transform: attribute 'src_layout' is required");
  attrs = map1("src_layout", irm_any_str("NCHW"));
  ck_assert_error(irm_layout_transform_attrs_decode("layout_transform", attrs, &lt), IRM_EVALUE,
                  "ValueError: layout_transform: attribute 'dst_layout' is required");
  irm_object_release(attrs);

  irm_compiler_attrs ca;
  ck_assert_error(irm_compiler_attrs_decode("annotation.compiler_end", NULL, &ca), IRM_EVALUE,
                  "ValueError: annotation.compiler_end: attribute 'compiler' is required");
  attrs = map1("compiler", irm_any_str(""));
  ck_assert_error(irm_compiler_attrs_decode("annotation.compiler_begin", attrs, &ca), IRM_EVALUE,
                  "ValueError: annotation.compiler_begin: attribute 'compiler' is required");
  irm_object_release(attrs);
  attrs = map1("compiler", irm_any_str("accel"));
  ck_assert_ok(irm_compiler_attrs_decode("annotation.compiler_begin", attrs, &ca));
  ck_assert_str_eq(ca.compiler, "accel");
  irm_object_release(attrs);

  irm_cast_attrs cast;
  ck_assert_error(irm_cast_attrs_decode("cast", NULL, &cast), IRM_EVALUE,
                  "ValueError: cast: attribute 'dtype' is required");
  attrs = map1("dtype", irm_any_str("flaot32"));
  ck_assert_error(irm_cast_attrs_decode("cast", attrs, &cast), IRM_EVALUE, "ValueError: cast: attribute 'dtype':");
  ck_assert_error_mentions("did you mean 'float32'?");
  irm_object_release(attrs);

  int64_t many[17] = {0};
  attrs = map_ints("axes", ints(many, 17));
  irm_transpose_attrs tr;
  ck_assert_error(irm_transpose_attrs_decode("transpose", attrs, &tr), IRM_EVALUE,
                  "ValueError: transpose: attribute 'axes' has 17 values, at most 16 are allowed");
  irm_object_release(attrs);
}
END_TEST

static Suite *op_attrs_suite(void) {
  Suite *s = suite_create("op_attrs");
  TCase *defaults = tcase_create("defaults");
  tcase_add_test(defaults, test_decoders_fill_defaults_without_attributes);
  tcase_add_test(defaults, test_decoder_defaults_are_the_schema_defaults);
  suite_add_tcase(s, defaults);
  TCase *values = tcase_create("values");
  tcase_add_test(values, test_conv2d_reads_windows_padding_layouts_and_dtype);
  tcase_add_test(values, test_resize2d_reads_names_as_the_kernel_enums);
  suite_add_tcase(s, values);
  TCase *errors = tcase_create("errors");
  tcase_add_test(errors, test_wrong_typed_attribute_names_op_and_attribute);
  tcase_add_test(errors, test_bad_values_keep_the_type_rules_words);
  suite_add_tcase(s, errors);
  return s;
}

int main(void) { return run_suite(op_attrs_suite()); }
