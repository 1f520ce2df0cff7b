/* The decoders of include/irm/dataflow/op_attrs.h: each built-in op's
 * attributes into its typed struct, with the op's defaults, read once by
 * the type rule, the evaluator and the C generator. The readers below hold
 * the parsing rules the ops share (windows, TVM's padding, names from a
 * list); their messages are the ones the type rules have always given. */
#include "irm/dataflow/op_attrs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/error.h"

/* ---- readers: an absent (or NONE) attribute leaves *out as it is ---------------------------- */

static const irm_any *find(const irm_object *attrs, const char *name) {
  const irm_any *v = attrs ? irm_map_find_cstr(attrs, name) : NULL;
  return v && v->type_code != IRM_NONE ? v : NULL;
}

static int required(const char *op, const char *name) {
  return irm_error(IRM_EVALUE, "%s: attribute '%s' is required", op, name);
}

static int get_int(const char *op, const irm_object *attrs, const char *name, int64_t *out) {
  const irm_any *v = find(attrs, name);
  int rc = v ? irm_any_to_int(v, out) : IRM_OK;
  return rc ? irm_error_context(rc, "%s: attribute '%s'", op, name) : IRM_OK;
}

static int get_bool(const char *op, const irm_object *attrs, const char *name, int *out) {
  const irm_any *v = find(attrs, name);
  bool b = false;
  int rc = v ? irm_any_to_bool(v, &b) : IRM_OK;
  if (rc) return irm_error_context(rc, "%s: attribute '%s'", op, name);
  if (v) *out = b;
  return IRM_OK;
}

static int get_float(const char *op, const irm_object *attrs, const char *name, double *out) {
  const irm_any *v = find(attrs, name);
  int rc = v ? irm_any_to_float(v, out) : IRM_OK;
  return rc ? irm_error_context(rc, "%s: attribute '%s'", op, name) : IRM_OK;
}

/* *out borrowed from attrs. */
static int get_str(const char *op, const irm_object *attrs, const char *name, const char **out) {
  const irm_any *v = find(attrs, name);
  int rc = v ? irm_any_to_str(v, out, NULL) : IRM_OK;
  return rc ? irm_error_context(rc, "%s: attribute '%s'", op, name) : IRM_OK;
}

/* An array<int> attribute: at most max values into out, *n their count
 * (-1 when absent). */
static int get_ints(const char *op, const irm_object *attrs, const char *name, int64_t *out, int32_t max, int32_t *n) {
  const irm_any *v = find(attrs, name);
  *n = -1;
  if (!v) return IRM_OK;
  irm_object *arr = NULL;
  int rc = irm_any_to_object(v, "ffi.Array", &arr);
  if (rc) return irm_error_context(rc, "%s: attribute '%s'", op, name);
  size_t size = irm_array_size(arr);
  if ((int64_t)size > max)
    return irm_error(IRM_EVALUE, "%s: attribute '%s' has %zu values, at most %d are allowed", op, name, size, (int)max);
  for (size_t i = 0; i < size; i++) {
    rc = irm_any_to_int(irm_array_at(arr, i), &out[i]);
    if (rc) return irm_error_context(rc, "%s: attribute '%s' item %zu", op, name, i);
  }
  *n = (int32_t)size;
  return IRM_OK;
}

/* A name from names (n of them): *out its index. ValueError naming the op,
 * the attribute and the closest name. */
static int get_name(const char *op, const irm_object *attrs, const char *name, const char *const *names, size_t n,
                    int *out) {
  const char *s = NULL;
  int rc = get_str(op, attrs, name, &s);
  if (rc || !s) return rc;
  for (size_t i = 0; i < n; i++)
    if (strcmp(s, names[i]) == 0) {
      *out = (int)i;
      return IRM_OK;
    }
  const char *best = irm_closest_name(s, names, n);
  char list[192] = "";
  size_t used = 0;
  for (size_t i = 0; i < n && used < sizeof list; i++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
  return irm_error(IRM_EVALUE, "%s: %s '%s' is not supported%s%s%s; supported: %s", op, name, irm_error_quote(s),
                   best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "", list);
}

/* A dtype name; absent leaves *out. */
static int get_dtype(const char *op, const irm_object *attrs, const char *name, DLDataType *out) {
  const char *s = NULL;
  int rc = get_str(op, attrs, name, &s);
  if (!rc && s && (rc = irm_dtype_parse(s, out))) return irm_error_context(rc, "%s: attribute '%s'", op, name);
  return rc;
}

/* "[1, 2, 3]" into buf (128 bytes). */
static const char *ints_text(const int64_t *v, int32_t n, char *buf) {
  size_t used = 0;
  buf[used++] = '[';
  for (int32_t i = 0; i < n && used < 100; i++)
    used += (size_t)snprintf(buf + used, 128 - used, "%s%lld", i ? ", " : "", (long long)v[i]);
  snprintf(buf + used, 128 - used, "]");
  return buf;
}

/* A window attribute of dims (2 or 3) axes (pool_size, strides, dilation,
 * kernel_size): 1 value (every axis) or dims values, each 1..INT32_MAX. */
static int get_window(const char *op, const irm_object *attrs, const char *name, int64_t *out, int32_t dims) {
  int64_t v[6];
  int32_t n = 0;
  int rc = get_ints(op, attrs, name, v, 6, &n);
  if (rc || n < 0) return rc;
  char text[128];
  ints_text(v, n, text);
  if (n != 1 && n != dims) return irm_error(IRM_EVALUE, "%s: %s %s must have 1 or %d values", op, name, text, dims);
  for (int32_t i = 0; i < dims; i++) out[i] = v[n == 1 ? 0 : i];
  for (int32_t i = 0; i < dims; i++)
    if (out[i] < 1) return irm_error(IRM_EVALUE, "%s: %s %s must be positive", op, name, text);
  for (int32_t i = 0; i < dims; i++)
    if (out[i] > INT32_MAX)
      return irm_error(IRM_EVALUE, "%s: %s %s must be at most %d", op, name, text, (int)INT32_MAX);
  return IRM_OK;
}

static int get_pair(const char *op, const irm_object *attrs, const char *name, int64_t out[2]) {
  return get_window(op, attrs, name, out, 2);
}

/* A padding attribute of dims (2 or 3) axes as TVM reads it: 1 value (all
 * sides), dims (each axis at both ends) or 2 * dims (every axis' begin,
 * then every axis' end), each 0..INT32_MAX. out: the begins, then the ends
 * (2-D: top, left, bottom, right). */
static int get_padding_nd(const char *op, const irm_object *attrs, const char *name, int64_t *out, int32_t dims) {
  int64_t v[6];
  int32_t n = 0;
  int rc = get_ints(op, attrs, name, v, 6, &n);
  if (rc || n < 0) return rc;
  char text[128];
  ints_text(v, n, text);
  if (n != 1 && n != dims && n != 2 * dims)
    return irm_error(IRM_EVALUE, "%s: %s %s must have 1, %d or %d values", op, name, text, dims, 2 * dims);
  for (int32_t i = 0; i < 2 * dims; i++) out[i] = n == 1 ? v[0] : n == dims ? v[i % dims] : v[i];
  for (int32_t i = 0; i < 2 * dims; i++) {
    if (out[i] < 0) return irm_error(IRM_EVALUE, "%s: %s %s must not be negative", op, name, text);
    if (out[i] > INT32_MAX)
      return irm_error(IRM_EVALUE, "%s: %s %s must be at most %d", op, name, text, (int)INT32_MAX);
  }
  return IRM_OK;
}

static int get_padding(const char *op, const irm_object *attrs, const char *name, int64_t out[4]) {
  return get_padding_nd(op, attrs, name, out, 2);
}

static const char *const layouts[] = {"NCHW", "NHWC"};
static const char *const kernel_layouts[] = {"OIHW", "HWIO"};

/* ---- conv ------------------------------------------------------------------------------------ */

/* What nn.conv2d and nn.conv3d share past their windows: groups (>= 1),
 * out_dtype (empty: the data's), channels and kernel_size (dims values)
 * when given. */
typedef struct conv_rest {
  int64_t groups, channels;
  int has_channels, has_kernel_size, has_out_dtype;
  DLDataType out_dtype;
} conv_rest;

static int get_conv_rest(const char *op, const irm_object *attrs, int32_t dims, int64_t *kernel_size, conv_rest *out) {
  const char *out_dtype = NULL;
  memset(out, 0, sizeof *out);
  out->groups = 1;
  int rc = get_int(op, attrs, "groups", &out->groups);
  if (!rc && out->groups < 1)
    rc = irm_error(IRM_EVALUE, "%s: groups %lld must be positive", op, (long long)out->groups);
  if (!rc) rc = get_str(op, attrs, "out_dtype", &out_dtype);
  if (!rc && out_dtype && out_dtype[0]) { /* empty: the data's dtype */
    out->has_out_dtype = 1;
    rc = get_dtype(op, attrs, "out_dtype", &out->out_dtype);
  }
  if (!rc && find(attrs, "channels")) {
    out->has_channels = 1;
    rc = get_int(op, attrs, "channels", &out->channels);
  }
  if (!rc && find(attrs, "kernel_size")) {
    out->has_kernel_size = 1;
    rc = get_window(op, attrs, "kernel_size", kernel_size, dims);
  }
  return rc;
}

int irm_conv2d_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_attrs *out) {
  static const irm_conv2d_attrs defaults = {.strides = {1, 1}, .dilation = {1, 1}, .groups = 1};
  conv_rest rest;
  *out = defaults;
  int rc = get_name(op, attrs, "data_layout", layouts, 2, &out->data_layout);
  if (!rc) rc = get_name(op, attrs, "kernel_layout", kernel_layouts, 2, &out->kernel_layout);
  if (!rc) rc = get_pair(op, attrs, "strides", out->strides);
  if (!rc) rc = get_pair(op, attrs, "dilation", out->dilation);
  if (!rc) rc = get_padding(op, attrs, "padding", out->padding);
  if (!rc) rc = get_conv_rest(op, attrs, 2, out->kernel_size, &rest);
  out->groups = rest.groups, out->channels = rest.channels, out->has_channels = rest.has_channels;
  out->has_kernel_size = rest.has_kernel_size, out->has_out_dtype = rest.has_out_dtype;
  out->out_dtype = rest.out_dtype;
  return rc;
}

/* A blocked layout name: prefix (such as "NCHW"), then for each of
 * n_blocks sub-axes a positive block size and its letter (such as "8c" or
 * "8i16o"); the blocks into out. */
static int get_blocked_layout(const char *op, const irm_object *attrs, const char *name, const char *prefix,
                              const char *letters, int64_t *out, int need) {
  const char *s = NULL;
  int rc = get_str(op, attrs, name, &s);
  if (rc) return rc;
  if (!s || !s[0]) return need ? required(op, name) : IRM_OK;
  size_t plen = strlen(prefix);
  int ok = strncmp(s, prefix, plen) == 0;
  const char *p = s + plen;
  for (size_t k = 0; ok && letters[k]; k++) {
    int64_t v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9' && v < INT32_MAX; p++, digits++) v = v * 10 + (*p - '0');
    ok = digits > 0 && v > 0 && v <= 4096 && *p == letters[k];
    if (ok) {
      out[k] = v;
      p++;
    }
  }
  if (!ok || *p) {
    char form[64] = "";
    size_t used = (size_t)snprintf(form, sizeof form, "%s", prefix);
    for (size_t k = 0; letters[k] && used < sizeof form; k++)
      used += (size_t)snprintf(form + used, sizeof form - used, "{%c}%c", letters[k] - 'a' + 'A', letters[k]);
    return irm_error(IRM_EVALUE, "%s: %s '%s' is not of the form %s with blocks of 1 to 4096 (such as %s%s)", op, name,
                     irm_error_quote(s), form, prefix, letters[1] ? "8i16o" : "8c");
  }
  return IRM_OK;
}

/* What the blocked convs' attributes share with nn.conv2d's: the windows,
 * padding and groups, the required positive channels, out_dtype. */
static int get_blocked_conv(const char *op, const irm_object *attrs, int64_t strides[2], int64_t dilation[2],
                            int64_t padding[4], int64_t *groups, int64_t *channels, int *has_out_dtype,
                            DLDataType *out_dtype) {
  const char *dt = NULL;
  int rc = get_pair(op, attrs, "strides", strides);
  if (!rc) rc = get_pair(op, attrs, "dilation", dilation);
  if (!rc) rc = get_padding(op, attrs, "padding", padding);
  if (!rc) rc = get_int(op, attrs, "groups", groups);
  if (!rc && !find(attrs, "channels")) rc = required(op, "channels");
  if (!rc) rc = get_int(op, attrs, "channels", channels);
  if (!rc && *channels < 1) rc = irm_error(IRM_EVALUE, "%s: channels %lld must be positive", op, (long long)*channels);
  if (!rc) rc = get_str(op, attrs, "out_dtype", &dt);
  if (!rc && dt && dt[0]) {
    *has_out_dtype = 1;
    rc = get_dtype(op, attrs, "out_dtype", out_dtype);
  }
  return rc;
}

int irm_conv2d_nchwc_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_nchwc_attrs *out) {
  static const irm_conv2d_nchwc_attrs defaults = {.strides = {1, 1}, .dilation = {1, 1}, .groups = 1};
  int64_t kb[2] = {0, 0};
  *out = defaults;
  int rc = get_blocked_layout(op, attrs, "data_layout", "NCHW", "c", &out->data_block, 1);
  if (!rc) rc = get_blocked_layout(op, attrs, "kernel_layout", "OIHW", "io", kb, 1);
  if (!rc) rc = get_blocked_layout(op, attrs, "out_layout", "NCHW", "c", &out->out_block, 0);
  if (!rc && !out->out_block) out->out_block = out->data_block;
  out->kernel_in_block = kb[0];
  out->kernel_out_block = kb[1];
  if (!rc)
    rc = get_blocked_conv(op, attrs, out->strides, out->dilation, out->padding, &out->groups, &out->channels,
                          &out->has_out_dtype, &out->out_dtype);
  if (!rc && out->groups < 1)
    rc = irm_error(IRM_EVALUE, "%s: groups %lld must be positive", op, (long long)out->groups);
  if (!rc) rc = get_int(op, attrs, "in_channels", &out->in_channels);
  if (!rc && out->in_channels < 0)
    rc = irm_error(IRM_EVALUE, "%s: in_channels %lld must not be negative", op, (long long)out->in_channels);
  if (!rc && find(attrs, "kernel_size")) {
    out->has_kernel_size = 1;
    rc = get_pair(op, attrs, "kernel_size", out->kernel_size);
  }
  return rc;
}

int irm_winograd_weight_transform_attrs_decode(const char *op, const irm_object *attrs,
                                               irm_winograd_weight_transform_attrs *out) {
  out->tile_size = 2;
  int rc = get_int(op, attrs, "tile_size", &out->tile_size);
  if (!rc && out->tile_size < 1)
    rc = irm_error(IRM_EVALUE, "%s: tile_size %lld must be positive", op, (long long)out->tile_size);
  return rc;
}

int irm_conv2d_winograd_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_winograd_attrs *out) {
  static const irm_conv2d_winograd_attrs defaults = {.tile_size = 2,
                                                     .strides = {1, 1},
                                                     .dilation = {1, 1},
                                                     .groups = 1};
  int64_t kb[2] = {0, 0};
  *out = defaults;
  int rc = get_blocked_layout(op, attrs, "data_layout", "NCHW", "c", &out->data_block, 1);
  if (!rc) rc = get_blocked_layout(op, attrs, "kernel_layout", "HWOI", "io", kb, 1);
  out->kernel_in_block = kb[0];
  out->kernel_out_block = kb[1];
  if (!rc) rc = get_int(op, attrs, "tile_size", &out->tile_size);
  if (!rc)
    rc = get_blocked_conv(op, attrs, out->strides, out->dilation, out->padding, &out->groups, &out->channels,
                          &out->has_out_dtype, &out->out_dtype);
  return rc;
}

int irm_conv2d_transpose_attrs_decode(const char *op, const irm_object *attrs, irm_conv2d_transpose_attrs *out) {
  static const irm_conv2d_transpose_attrs defaults = {.strides = {1, 1}, .dilation = {1, 1}, .groups = 1};
  *out = defaults;
  int64_t opad[2] = {0, 0};
  int32_t n = 0;
  int rc = get_pair(op, attrs, "strides", out->strides);
  if (!rc) rc = get_pair(op, attrs, "dilation", out->dilation);
  if (!rc) rc = get_padding(op, attrs, "padding", out->padding);
  if (!rc) rc = get_ints(op, attrs, "output_padding", opad, 2, &n);
  if (!rc) rc = get_int(op, attrs, "groups", &out->groups);
  out->output_padding[0] = n > 0 ? opad[0] : 0;
  out->output_padding[1] = n > 1 ? opad[1] : out->output_padding[0];
  return rc;
}

/* ---- pool ------------------------------------------------------------------------------------- */

/* The decimal number at *d (stops past INT32_MAX); *d moves past its digits. */
static int64_t decimal(const char **d) {
  int64_t x = 0;
  for (; **d >= '0' && **d <= '9' && x <= INT32_MAX; (*d)++) x = x * 10 + (**d - '0');
  return x;
}

/* x of "NCHW{x}c" (decimal, no leading zero, 1..INT32_MAX), else 0. */
static int64_t nchwc_block(const char *s) {
  if (strncmp(s, "NCHW", 4) != 0 || s[4] == '0') return 0;
  const char *e = s + 4;
  int64_t x = decimal(&e);
  return x > 0 && x <= INT32_MAX && e[0] == 'c' && e[1] == '\0' ? x : 0;
}

/* The pools' layout (op_attrs.h): *layout and *block. Another name gets
 * get_name's ValueError; a name with digits in it is also compared with
 * NCHW<those digits>c ("NCHW16C", "nchw8c" suggest NCHW16c, NCHW8c). */
static int get_pool_layout(const char *op, const irm_object *attrs, int *layout, int64_t *block) {
  const char *s = NULL;
  int rc = get_str(op, attrs, "layout", &s);
  if (rc || !s) return rc;
  if ((*block = nchwc_block(s))) {
    *layout = IRM_LAYOUT_NCHW;
    return IRM_OK;
  }
  for (int i = 0; i < 2; i++)
    if (strcmp(s, layouts[i]) == 0) {
      *layout = i;
      return IRM_OK;
    }
  char blocked[32] = "";
  const char *digits = s + strcspn(s, "123456789");
  int64_t x = decimal(&digits);
  if (x > 0 && x <= INT32_MAX) snprintf(blocked, sizeof blocked, "NCHW%lldc", (long long)x);
  const char *names[] = {blocked[0] ? blocked : NULL, layouts[0], layouts[1]}; /* ties go to the digits' name */
  const char *best = irm_closest_name(s, names, 3);
  return irm_error(IRM_EVALUE, "%s: layout '%s' is not supported%s%s%s; supported: NCHW, NHWC, NCHW{x}c (x > 0)", op,
                   irm_error_quote(s), best ? " (did you mean '" : "", best ? best : "", best ? "'?)" : "");
}

int irm_pool2d_attrs_decode(const char *op, const irm_object *attrs, irm_pool2d_attrs *out) {
  static const irm_pool2d_attrs defaults = {.pool_size = {1, 1}, .strides = {1, 1}, .dilation = {1, 1}};
  *out = defaults;
  int rc = get_pool_layout(op, attrs, &out->layout, &out->layout_block);
  if (!rc) rc = get_pair(op, attrs, "pool_size", out->pool_size);
  if (!rc) rc = get_pair(op, attrs, "strides", out->strides);
  if (!rc) rc = get_pair(op, attrs, "dilation", out->dilation);
  if (!rc) rc = get_padding(op, attrs, "padding", out->padding);
  if (!rc) rc = get_bool(op, attrs, "ceil_mode", &out->ceil_mode);
  if (!rc) rc = get_bool(op, attrs, "count_include_pad", &out->count_include_pad);
  return rc;
}

int irm_global_pool2d_attrs_decode(const char *op, const irm_object *attrs, irm_global_pool2d_attrs *out) {
  out->layout = IRM_LAYOUT_NCHW;
  out->layout_block = 0;
  return get_pool_layout(op, attrs, &out->layout, &out->layout_block);
}

/* ---- 3-D convolution and pooling ---------------------------------------------------------------- */

static const char *const layouts_3d[] = {"NCDHW"};
static const char *const kernel_layouts_3d[] = {"OIDHW"};

int irm_conv3d_attrs_decode(const char *op, const irm_object *attrs, irm_conv3d_attrs *out) {
  static const irm_conv3d_attrs defaults = {.strides = {1, 1, 1}, .dilation = {1, 1, 1}, .groups = 1};
  conv_rest rest;
  int layout = 0;
  *out = defaults;
  int rc = get_name(op, attrs, "data_layout", layouts_3d, 1, &layout);
  if (!rc) rc = get_name(op, attrs, "kernel_layout", kernel_layouts_3d, 1, &layout);
  if (!rc) rc = get_window(op, attrs, "strides", out->strides, 3);
  if (!rc) rc = get_window(op, attrs, "dilation", out->dilation, 3);
  if (!rc) rc = get_padding_nd(op, attrs, "padding", out->padding, 3);
  if (!rc) rc = get_conv_rest(op, attrs, 3, out->kernel_size, &rest);
  out->groups = rest.groups, out->channels = rest.channels, out->has_channels = rest.has_channels;
  out->has_kernel_size = rest.has_kernel_size, out->has_out_dtype = rest.has_out_dtype;
  out->out_dtype = rest.out_dtype;
  return rc;
}

int irm_conv3d_transpose_attrs_decode(const char *op, const irm_object *attrs, irm_conv3d_transpose_attrs *out) {
  static const irm_conv3d_transpose_attrs defaults = {.strides = {1, 1, 1}, .dilation = {1, 1, 1}, .groups = 1};
  int64_t opad[3] = {0, 0, 0};
  int32_t n = 0;
  *out = defaults;
  int rc = get_window(op, attrs, "strides", out->strides, 3);
  if (!rc) rc = get_window(op, attrs, "dilation", out->dilation, 3);
  if (!rc) rc = get_padding_nd(op, attrs, "padding", out->padding, 3);
  if (!rc) rc = get_ints(op, attrs, "output_padding", opad, 3, &n);
  if (!rc && n != -1 && n != 0 && n != 1 && n != 3)
    rc = irm_error(IRM_EVALUE, "%s: output_padding must have 1 or 3 values, got %d", op, (int)n);
  if (!rc) rc = get_int(op, attrs, "groups", &out->groups);
  if (!rc && out->groups < 1)
    rc = irm_error(IRM_EVALUE, "%s: groups %lld must be positive", op, (long long)out->groups);
  for (int i = 0; i < 3; i++) out->output_padding[i] = n == 3 ? opad[i] : n == 1 ? opad[0] : 0;
  return rc;
}

int irm_pool3d_attrs_decode(const char *op, const irm_object *attrs, irm_pool3d_attrs *out) {
  static const irm_pool3d_attrs defaults = {.pool_size = {1, 1, 1}, .strides = {1, 1, 1}, .dilation = {1, 1, 1}};
  int layout = 0;
  *out = defaults;
  int rc = get_name(op, attrs, "layout", layouts_3d, 1, &layout);
  if (!rc) rc = get_window(op, attrs, "pool_size", out->pool_size, 3);
  if (!rc) rc = get_window(op, attrs, "strides", out->strides, 3);
  if (!rc) rc = get_window(op, attrs, "dilation", out->dilation, 3);
  if (!rc) rc = get_padding_nd(op, attrs, "padding", out->padding, 3);
  if (!rc) rc = get_bool(op, attrs, "ceil_mode", &out->ceil_mode);
  if (!rc) rc = get_bool(op, attrs, "count_include_pad", &out->count_include_pad);
  return rc;
}

/* ---- image ------------------------------------------------------------------------------------ */

static const char *const resize_methods[] = {"nearest_neighbor", "linear", "cubic"};
static const char *const resize_coords[] = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                            "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
static const char *const resize_roundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};

int irm_resize2d_attrs_decode(const char *op, const irm_object *attrs, irm_resize2d_attrs *out) {
  static const irm_resize2d_attrs defaults = {.method = IRM_RESIZE_LINEAR,
                                              .coordinate_transformation_mode = IRM_RESIZE_COORD_HALF_PIXEL,
                                              .rounding_method = IRM_RESIZE_ROUND_PREFER_FLOOR,
                                              .cubic_alpha = -0.75,
                                              .roi = {0.0, 0.0, 1.0, 1.0}};
  *out = defaults;
  int32_t n = 0;
  int rc = get_ints(op, attrs, "size", out->size, 2, &n);
  if (!rc && n < 0) rc = required(op, "size");
  if (!rc && n != 2) rc = irm_error(IRM_EVALUE, "%s: size must have 2 values (height, width), got %d", op, (int)n);
  if (!rc && (out->size[0] < 0 || out->size[1] < 0 || out->size[0] > INT32_MAX || out->size[1] > INT32_MAX))
    rc = irm_error(IRM_EVALUE, "%s: size values must be 0..%d", op, (int)INT32_MAX);
  if (!rc) rc = get_name(op, attrs, "method", resize_methods, 3, &out->method);
  if (!rc)
    rc = get_name(op, attrs, "coordinate_transformation_mode", resize_coords, 6, &out->coordinate_transformation_mode);
  if (!rc) rc = get_name(op, attrs, "rounding_method", resize_roundings, 4, &out->rounding_method);
  if (!rc) rc = get_bool(op, attrs, "cubic_exclude", &out->cubic_exclude);
  if (!rc) rc = get_float(op, attrs, "cubic_alpha", &out->cubic_alpha);
  if (!rc) rc = get_float(op, attrs, "extrapolation_value", &out->extrapolation_value);
  if (!rc) rc = get_float(op, attrs, "scale_h", &out->scale[0]);
  if (!rc) rc = get_float(op, attrs, "scale_w", &out->scale[1]);
  if (!rc) rc = get_float(op, attrs, "roi_y1", &out->roi[0]);
  if (!rc) rc = get_float(op, attrs, "roi_x1", &out->roi[1]);
  if (!rc) rc = get_float(op, attrs, "roi_y2", &out->roi[2]);
  if (!rc) rc = get_float(op, attrs, "roi_x2", &out->roi[3]);
  return rc;
}

/* ---- layout ----------------------------------------------------------------------------------- */

/* The primal letters of l as a bit set. */
static uint32_t primal_axes(const irm_layout *l) {
  uint32_t set = 0;
  for (int i = 0; i < l->ndim; i++)
    if (!l->factor[i]) set |= UINT32_C(1) << (l->axis[i] - 'A');
  return set;
}

int irm_layout_transform_attrs_decode(const char *op, const irm_object *attrs, irm_layout_transform_attrs *out) {
  const char *src = NULL, *dst = NULL;
  memset(out, 0, sizeof *out);
  int rc = get_str(op, attrs, "src_layout", &src);
  if (!rc) rc = get_str(op, attrs, "dst_layout", &dst);
  if (!rc && !src) rc = required(op, "src_layout");
  if (!rc && !dst) rc = required(op, "dst_layout");
  if (!rc && (rc = irm_layout_parse(src, &out->src_layout)))
    rc = irm_error_context(rc, "%s: attribute 'src_layout'", op);
  if (!rc && (rc = irm_layout_parse(dst, &out->dst_layout)))
    rc = irm_error_context(rc, "%s: attribute 'dst_layout'", op);
  if (!rc && primal_axes(&out->src_layout) != primal_axes(&out->dst_layout))
    rc = irm_error(IRM_EVALUE, "%s: src_layout '%s' and dst_layout '%s' have different primal axes", op,
                   irm_error_quote(src), irm_error_quote(dst));
  return rc;
}

int irm_compiler_attrs_decode(const char *op, const irm_object *attrs, irm_compiler_attrs *out) {
  out->compiler = NULL;
  int rc = get_str(op, attrs, "compiler", &out->compiler);
  if (!rc && (!out->compiler || !out->compiler[0])) rc = required(op, "compiler");
  return rc;
}

/* ---- nn --------------------------------------------------------------------------------------- */

int irm_dense_attrs_decode(const char *op, const irm_object *attrs, irm_dense_attrs *out) {
  out->units = 0;
  out->has_units = find(attrs, "units") != NULL;
  return get_int(op, attrs, "units", &out->units);
}

int irm_bias_add_attrs_decode(const char *op, const irm_object *attrs, irm_bias_add_attrs *out) {
  out->axis = 1;
  return get_int(op, attrs, "axis", &out->axis);
}

int irm_batch_norm_attrs_decode(const char *op, const irm_object *attrs, irm_batch_norm_attrs *out) {
  out->axis = 1, out->epsilon = 1e-5, out->center = 1, out->scale = 1;
  int rc = get_int(op, attrs, "axis", &out->axis);
  if (!rc) rc = get_float(op, attrs, "epsilon", &out->epsilon);
  if (!rc) rc = get_bool(op, attrs, "center", &out->center);
  if (!rc) rc = get_bool(op, attrs, "scale", &out->scale);
  return rc;
}

int irm_leaky_relu_attrs_decode(const char *op, const irm_object *attrs, irm_leaky_relu_attrs *out) {
  out->alpha = 0.01;
  return get_float(op, attrs, "alpha", &out->alpha);
}

/* ---- elemwise --------------------------------------------------------------------------------- */

int irm_clip_attrs_decode(const char *op, const irm_object *attrs, irm_clip_attrs *out) {
  out->a_min = -INFINITY, out->a_max = INFINITY;
  int rc = get_float(op, attrs, "a_min", &out->a_min);
  return rc ? rc : get_float(op, attrs, "a_max", &out->a_max);
}

int irm_cast_attrs_decode(const char *op, const irm_object *attrs, irm_cast_attrs *out) {
  static const DLDataType f32 = {kDLFloat, 32, 1};
  out->dtype = f32;
  if (!find(attrs, "dtype")) return required(op, "dtype");
  return get_dtype(op, attrs, "dtype", &out->dtype);
}

int irm_full_attrs_decode(const char *op, const irm_object *attrs, irm_full_attrs *out) {
  static const DLDataType f32 = {kDLFloat, 32, 1};
  out->dtype = f32, out->has_dtype = find(attrs, "dtype") != NULL;
  int rc = get_ints(op, attrs, "shape", out->shape, IRM_TENSOR_MAX_NDIM, &out->ndim);
  if (!rc && out->ndim < 0) {
    out->ndim = 0;
    rc = required(op, "shape");
  }
  for (int32_t i = 0; !rc && i < out->ndim; i++)
    if (out->shape[i] < 0)
      rc = irm_error(IRM_EVALUE, "%s: shape has a negative size %lld", op, (long long)out->shape[i]);
  return rc || !out->has_dtype ? rc : get_dtype(op, attrs, "dtype", &out->dtype);
}

/* ---- reduce ----------------------------------------------------------------------------------- */

int irm_reduce_attrs_decode(const char *op, const irm_object *attrs, irm_reduce_attrs *out) {
  out->n_axis = -1, out->keepdims = 0, out->exclude = 0;
  int rc = get_ints(op, attrs, "axis", out->axis, IRM_TENSOR_MAX_NDIM, &out->n_axis);
  if (!rc) rc = get_bool(op, attrs, "keepdims", &out->keepdims);
  if (!rc) rc = get_bool(op, attrs, "exclude", &out->exclude);
  return rc;
}

int irm_argreduce_attrs_decode(const char *op, const irm_object *attrs, irm_argreduce_attrs *out) {
  int64_t axes[IRM_TENSOR_MAX_NDIM];
  int32_t n = 0;
  out->axis = 0, out->keepdims = 0, out->select_last_index = 0;
  int rc = get_ints(op, attrs, "axis", axes, IRM_TENSOR_MAX_NDIM, &n);
  if (!rc && n >= 0 && n != 1) rc = irm_error(IRM_EVALUE, "%s: axis must hold exactly one axis, got %d", op, (int)n);
  if (!rc && n == 1) out->axis = axes[0];
  if (!rc) rc = get_bool(op, attrs, "keepdims", &out->keepdims);
  if (!rc) rc = get_bool(op, attrs, "select_last_index", &out->select_last_index);
  return rc;
}

int irm_argsort_attrs_decode(const char *op, const irm_object *attrs, irm_argsort_attrs *out) {
  static const DLDataType i32 = {kDLInt, 32, 1};
  out->axis = -1, out->is_ascend = 1, out->dtype = i32;
  int rc = get_int(op, attrs, "axis", &out->axis);
  if (!rc) rc = get_bool(op, attrs, "is_ascend", &out->is_ascend);
  if (!rc) rc = get_dtype(op, attrs, "dtype", &out->dtype);
  if (!rc && (out->dtype.code != kDLInt || out->dtype.bits < 32)) {
    const char *name = irm_dtype_name(out->dtype);
    rc = irm_error(IRM_EVALUE, "%s: dtype must be int32 or int64, got %s", op, name ? name : "unknown");
  }
  return rc;
}

int irm_softmax_attrs_decode(const char *op, const irm_object *attrs, irm_softmax_attrs *out) {
  out->axis = -1;
  return get_int(op, attrs, "axis", &out->axis);
}

/* ---- shape ------------------------------------------------------------------------------------ */

int irm_reshape_attrs_decode(const char *op, const irm_object *attrs, irm_reshape_attrs *out) {
  int rc = get_ints(op, attrs, "newshape", out->newshape, IRM_TENSOR_MAX_NDIM, &out->n_newshape);
  if (!rc && out->n_newshape < 0) {
    out->n_newshape = 0;
    rc = required(op, "newshape");
  }
  return rc;
}

int irm_transpose_attrs_decode(const char *op, const irm_object *attrs, irm_transpose_attrs *out) {
  return get_ints(op, attrs, "axes", out->axes, IRM_TENSOR_MAX_NDIM, &out->n_axes);
}

int irm_concatenate_attrs_decode(const char *op, const irm_object *attrs, irm_concatenate_attrs *out) {
  out->axis = 0;
  return get_int(op, attrs, "axis", &out->axis);
}

int irm_strided_slice_attrs_decode(const char *op, const irm_object *attrs, irm_strided_slice_attrs *out) {
  out->n_begin = out->n_end = out->n_strides = out->n_axes = -1;
  int rc = get_ints(op, attrs, "begin", out->begin, IRM_TENSOR_MAX_NDIM, &out->n_begin);
  if (!rc) rc = get_ints(op, attrs, "end", out->end, IRM_TENSOR_MAX_NDIM, &out->n_end);
  if (!rc) rc = get_ints(op, attrs, "strides", out->strides, IRM_TENSOR_MAX_NDIM, &out->n_strides);
  if (!rc) rc = get_ints(op, attrs, "axes", out->axes, IRM_TENSOR_MAX_NDIM, &out->n_axes);
  if (!rc && out->n_begin < 0) rc = required(op, "begin");
  if (!rc && out->n_end < 0) rc = required(op, "end");
  return rc;
}

int irm_squeeze_attrs_decode(const char *op, const irm_object *attrs, irm_squeeze_attrs *out) {
  return get_ints(op, attrs, "axis", out->axis, IRM_TENSOR_MAX_NDIM, &out->n_axis);
}

int irm_expand_dims_attrs_decode(const char *op, const irm_object *attrs, irm_expand_dims_attrs *out) {
  out->axis = 0, out->num_newaxis = 1;
  int rc = get_int(op, attrs, "axis", &out->axis);
  return rc ? rc : get_int(op, attrs, "num_newaxis", &out->num_newaxis);
}

int irm_broadcast_to_attrs_decode(const char *op, const irm_object *attrs, irm_broadcast_to_attrs *out) {
  int rc = get_ints(op, attrs, "shape", out->shape, IRM_TENSOR_MAX_NDIM, &out->ndim);
  if (!rc && out->ndim < 0) {
    out->ndim = 0;
    rc = required(op, "shape");
  }
  return rc;
}

int irm_take_attrs_decode(const char *op, const irm_object *attrs, irm_take_attrs *out) {
  out->axis = 0, out->has_axis = strcmp(op, "take") != 0 || find(attrs, "axis") != NULL; /* gather: 0 */
  return get_int(op, attrs, "axis", &out->axis);
}

static const char *const scatter_reductions[] = {"none", "add", "mul"};

int irm_scatter_attrs_decode(const char *op, const irm_object *attrs, irm_scatter_attrs *out) {
  out->axis = 0, out->reduction = IRM_SCATTER_NONE;
  int rc = get_int(op, attrs, "axis", &out->axis);
  return rc ? rc : get_name(op, attrs, "reduction", scatter_reductions, 3, &out->reduction);
}

static const char *const pad_modes[] = {"constant", "edge", "reflect"};

int irm_pad_attrs_decode(const char *op, const irm_object *attrs, irm_pad_attrs *out) {
  out->pad_value = 0.0, out->pad_mode = IRM_PAD_CONSTANT;
  int rc = get_ints(op, attrs, "pad_width", out->pad_width, 2 * IRM_TENSOR_MAX_NDIM, &out->n_pad_width);
  if (!rc && out->n_pad_width < 0) {
    out->n_pad_width = 0;
    rc = required(op, "pad_width");
  }
  if (!rc) rc = get_float(op, attrs, "pad_value", &out->pad_value);
  if (!rc) rc = get_name(op, attrs, "pad_mode", pad_modes, 3, &out->pad_mode);
  return rc;
}

/* ---- qnn ---------------------------------------------------------------------------------------- */

static const char *const qnn_roundings[] = {"TONEAREST", "UPWARD"};
static const char *const qnn_compute_dtypes[] = {"float64", "float32"};

int irm_qnn_quantize_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_quantize_attrs *out) {
  static const DLDataType i8 = {kDLInt, 8, 1};
  out->axis = -1, out->out_dtype = i8, out->rounding = IRM_QNN_ROUND_TONEAREST;
  out->compute_dtype = IRM_QNN_COMPUTE_FLOAT64;
  int rc = get_int(op, attrs, "axis", &out->axis);
  if (!rc) rc = get_dtype(op, attrs, "out_dtype", &out->out_dtype);
  if (!rc) rc = get_name(op, attrs, "rounding", qnn_roundings, 2, &out->rounding);
  if (!rc) rc = get_name(op, attrs, "compute_dtype", qnn_compute_dtypes, 2, &out->compute_dtype);
  return rc;
}

int irm_qnn_dequantize_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_dequantize_attrs *out) {
  static const DLDataType f32 = {kDLFloat, 32, 1};
  out->axis = -1, out->out_dtype = f32;
  int rc = get_int(op, attrs, "axis", &out->axis);
  return rc ? rc : get_dtype(op, attrs, "out_dtype", &out->out_dtype);
}

int irm_qnn_binary_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_binary_attrs *out) {
  out->lhs_axis = -1, out->rhs_axis = -1, out->compute_dtype = IRM_QNN_COMPUTE_FLOAT64;
  int rc = get_int(op, attrs, "lhs_axis", &out->lhs_axis);
  if (!rc) rc = get_int(op, attrs, "rhs_axis", &out->rhs_axis);
  return rc ? rc : get_name(op, attrs, "compute_dtype", qnn_compute_dtypes, 2, &out->compute_dtype);
}

int irm_qnn_dense_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_dense_attrs *out) {
  static const DLDataType i32 = {kDLInt, 32, 1};
  out->units = 0, out->out_dtype = i32;
  out->has_units = find(attrs, "units") != NULL;
  int rc = get_int(op, attrs, "units", &out->units);
  return rc ? rc : get_dtype(op, attrs, "out_dtype", &out->out_dtype);
}

int irm_qnn_conv2d_nchwc_attrs_decode(const char *op, const irm_object *attrs, irm_qnn_conv2d_nchwc_attrs *out) {
  static const irm_qnn_conv2d_nchwc_attrs defaults = {.strides = {1, 1},
                                                      .dilation = {1, 1},
                                                      .clip_min = INT32_MIN,
                                                      .clip_max = INT32_MAX,
                                                      .groups = 1,
                                                      .out_dtype = {kDLInt, 32, 1}};
  *out = defaults;
  int rc = get_pair(op, attrs, "strides", out->strides);
  if (!rc) rc = get_pair(op, attrs, "dilation", out->dilation);
  if (!rc) rc = get_padding(op, attrs, "padding", out->padding);
  if (!rc && !find(attrs, "channels")) rc = required(op, "channels");
  if (!rc) rc = get_int(op, attrs, "channels", &out->channels);
  if (!rc && out->channels < 1)
    rc = irm_error(IRM_EVALUE, "%s: channels %lld must be positive", op, (long long)out->channels);
  if (!rc) rc = get_dtype(op, attrs, "out_dtype", &out->out_dtype);
  if (!rc) rc = get_name(op, attrs, "rounding", qnn_roundings, 2, &out->rounding);
  if (!rc) rc = get_name(op, attrs, "compute_dtype", qnn_compute_dtypes, 2, &out->compute_dtype);
  if (!rc) rc = get_int(op, attrs, "clip_min", &out->clip_min);
  if (!rc) rc = get_int(op, attrs, "clip_max", &out->clip_max);
  if (!rc) rc = get_int(op, attrs, "groups", &out->groups);
  if (!rc && out->groups < 1)
    rc = irm_error(IRM_EVALUE, "%s: groups %lld must be positive", op, (long long)out->groups);
  return rc;
}
