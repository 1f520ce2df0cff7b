/* AlterOpLayout (dataflow/passes.h), in the spirit of TVM's: float32
 * NCHW convolutions become nn.contrib_conv2d_NCHWc on data blocked by the
 * target's vector width (NCHW{x}c, docs/kernels.md), their weights
 * packed by a layout_transform that FoldConstant folds at build, and the
 * ops between convs follow them into the blocked layout, so transforms
 * stand only at the graph's edges and around ops that need NCHW.
 *
 * Each rewritten op gets a blocked twin: the pass returns, for the
 * original node, layout_transform(twin, NCHW{x}c -> NCHW) with the
 * original's type, and a user that runs blocked reads the twin instead.
 * A back transform nobody reads is not part of the result. An op runs
 * blocked when:
 *   nn.conv2d          NCHW/OIHW, float32, groups 1, or depthwise
 *                      (groups == channels); its data is the twin or is
 *                      transformed, or, for an input of fewer channels
 *                      than a block (the RGB image), read as NCHW1c (a
 *                      reshape: the stem writes NCHW{x}c from NCHW);
 *                      a 3x3 stride-1 one on a map of 14x14 or more runs
 *                      Winograd's F(4x4, 3x3) (F(2x2, 3x3) on a map less
 *                      than 25 wide), its weight transformed by
 *                      nn.contrib_conv2d_winograd_weight_transform (also
 *                      folded)
 *   elementwise (1 arg)     its argument has a twin
 *   broadcasting (2 args)   one argument has a twin and the other is the
 *                      same shape, a per-channel value ([C,1,1],
 *                      [1,C,1,1]), or a scalar; nn.bias_add on axis 1
 *   the 2-D pools      NCHW, their data has a twin
 *   concatenate        on the channels, every part a multiple of x
 *   strided_slice      whole blocks of the channels, the rest whole
 *   mean, max          over H and W: the global pools
 *   a channel shuffle  reshape -> transpose -> reshape (ShuffleNet's),
 *                      each group whole blocks: a shuffle of blocks and
 *                      lanes (alter_shuffle)
 * A twin whose channels are not whole blocks carries padding lanes, which
 * a conv reading it skips (in_channels) and the transform back cuts
 * (strided_slice); concatenate takes only whole blocks.
 * The block is the option `block` (else the module attribute, else the
 * PassContext option AlterOpLayout.block); 0 (the default) changes
 * nothing. build() sets it from the target's features. New inner nodes
 * are untyped: run InferType after. */
#include <stdio.h>
#include <string.h>

#include "irm/container.h"
#include "irm/dataflow/op_attrs.h"
#include "irm/error.h"
#include "alter_qnn_layout.h"
#include "irm/pass_config.h"
#include "pass_util.h"

typedef struct twin {
  irm_ptr_entry_ base;
  irm_object *key;     /* owned: its address stays its own while the table lives */
  irm_object *blocked; /* owned */
} twin;

typedef struct alter_ctx {
  int64_t x;
  int64_t winograd_tile; /* the winograd_tile setting: 0 the rule (winograd_tile), 2 or 4 */
  char data_layout[32];  /* "NCHW{x}c" */
  irm_ptr_table_ twins;
  irm_alter_qnn_state_ *qnn; /* the quantized rules (alter_qnn_layout.c): NCHW16c bytes */
} alter_ctx;

/* op(args) with attributes from keys/values (n of them; attrs given
 * instead when not NULL), typed when its arguments are
 * (irm_dataflow_op_call_). *out NEW. */
static int call_of(const char *op, irm_object *const *args, size_t nargs, const irm_object *attrs,
                   const char *const *keys, const irm_any *values, size_t n, irm_object **out) {
  irm_object *made = NULL;
  int rc = !attrs && n ? irm_map_from_pairs(keys, values, n, &made) : IRM_OK;
  if (!rc) rc = irm_dataflow_op_call_(op, args, nargs, attrs ? attrs : made, out);
  irm_object_release(made);
  return rc;
}

/* layout_transform(x, src, dst). *out NEW. */
static int transform(irm_object *x, const char *src, const char *dst, irm_object **out) {
  const char *keys[] = {"src_layout", "dst_layout"};
  irm_any values[] = {irm_any_str(src), irm_any_str(dst)};
  return call_of("layout_transform", &x, 1, NULL, keys, values, 2, out);
}

/* A weight's transform, folded into a Constant when the weight is one:
 * a large packed weight is past FoldConstant's limit, and left to run
 * time it would be packed on every call. *call taken, *out NEW. */
static int folded(irm_object *call, irm_object **out) {
  int rc = irm_dataflow_fold_call_(call, out);
  irm_object_release(call);
  return rc;
}

static irm_object *twin_of(alter_ctx *c, const irm_object *e) {
  twin *t = irm_ptr_table_find_(&c->twins, e);
  return t ? t->blocked : NULL;
}

/* The 4-D shape of e's checked type when it is a float32 tensor, else 0. */
static int shape4(const irm_object *e, int64_t s[4]) {
  const irm_object *t = irm_expr_type(e);
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR || irm_tensor_type_ndim(t) != 4) return 0;
  DLDataType d = irm_tensor_type_dtype(t);
  if (d.code != kDLFloat || d.bits != 32 || d.lanes != 1) return 0;
  memcpy(s, irm_tensor_type_shape(t), 4 * sizeof *s);
  return 1;
}

/* x[:, lo:hi] (of an NCHW x, or the blocks of a blocked one). *out NEW. */
static int channel_range(irm_object *x, int64_t lo, int64_t hi, irm_object **out) {
  irm_any b = irm_any_int(lo), e = irm_any_int(hi), one = irm_any_int(1);
  irm_object *begin = NULL, *end = NULL, *axes = NULL;
  int rc = irm_array_new(&b, 1, &begin);
  if (!rc) rc = irm_array_new(&e, 1, &end);
  if (!rc) rc = irm_array_new(&one, 1, &axes);
  const char *keys[] = {"begin", "end", "axes"};
  irm_any values[] = {irm_any_object(begin), irm_any_object(end), irm_any_object(axes)};
  if (!rc) rc = call_of("strided_slice", &x, 1, NULL, keys, values, 3, out);
  irm_object_release(begin);
  irm_object_release(end);
  irm_object_release(axes);
  return rc;
}

/* The original's replacement: blocked's twin, transformed back to NCHW
 * (its padding lanes cut when the channels are not whole blocks) with
 * original's type. *out NEW. */
/* blocked (of ch channels) transformed back to NCHW, its padding lanes
 * cut when the channels are not whole blocks. *out NEW. */
static int unblocked(alter_ctx *c, irm_object *blocked, int64_t ch, irm_object **out) {
  irm_object *back = NULL;
  int rc = transform(blocked, c->data_layout, "NCHW", &back);
  if (rc || ch % c->x == 0) return *out = back, rc;
  rc = channel_range(back, 0, ch, out);
  irm_object_release(back);
  return rc;
}

static int finish(alter_ctx *c, const irm_object *original, irm_object *blocked, irm_object **out) {
  irm_object *back = NULL;
  int64_t o[4] = {0, 0, 0, 0};
  (void)shape4(original, o);
  int rc = unblocked(c, blocked, o[1], &back);
  if (!rc) rc = irm_expr_with_type(back, irm_expr_type(original), out);
  irm_object_release(back);
  twin *t = rc ? NULL : irm_ptr_table_add_(&c->twins, *out, sizeof *t);
  if (!rc && !t) rc = irm_error_nomem_("AlterOpLayout");
  if (rc) {
    irm_object_release(blocked);
    return rc;
  }
  t->blocked = blocked; /* takes the reference */
  t->key = *out;
  irm_object_retain(*out);
  return IRM_OK;
}

/* e in the blocked layout: its twin (retained), or a transform of it (an
 * NCHW tensor of c channels). *out NEW. */
static int blocked_arg(alter_ctx *c, irm_object *e, irm_object **out) {
  irm_object *t = twin_of(c, e);
  if (t) {
    irm_object_retain(t);
    *out = t;
    return IRM_OK;
  }
  return transform(e, "NCHW", c->data_layout, out);
}

/* ---- nn.conv2d -------------------------------------------------------------------------------- */

/* Winograd's output tile for a 3x3 stride-1 conv of output o (the
 * winograd_tile setting when given): F(4x4, 3x3) (2.25 multiplies an
 * output against F(2x2)'s 4) where a row of the map holds at least 7 of
 * its 4x4 tiles (25 or more wide), F(2x2, 3x3) below. Each row of tiles
 * streams the whole transformed weight, 2.25x larger for F(4x4): on
 * narrower maps (resnet18's 14x14, 256 channels: 9.4 MB a row of 4 tiles)
 * that traffic outweighs the multiplies saved. Measured on resnet18,
 * googlenet and densenet121 (docs/tuning.md, "Winograd F(4x4, 3x3)"). */
static int64_t winograd_tile(const alter_ctx *c, const int64_t o[4]) {
  if (c->winograd_tile) return c->winograd_tile;
  return (o[3] + 3) / 4 >= 7 ? 4 : 2;
}

static int alter_conv(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  irm_conv2d_attrs a;
  int64_t d[4], o[4], w[4];
  if (irm_conv2d_attrs_decode("nn.conv2d", irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  if (a.data_layout != IRM_LAYOUT_NCHW || a.kernel_layout != IRM_KERNEL_LAYOUT_OIHW || a.has_out_dtype ||
      !shape4(irm_call_arg(call, 0), d) || !shape4(irm_call_arg(call, 1), w) || !shape4(original, o))
    return IRM_OK;
  int64_t x = c->x, ch = o[1], in = d[1];
  int depthwise = a.groups > 1;
  if (depthwise && (a.groups != in || a.groups != ch)) return IRM_OK;
  int64_t vecs = depthwise ? 1 : (ch / x) % 2 == 0 ? 2 : 1;
  /* Winograd's F(2x2, 3x3) where its tiles fill the map: 2.25x fewer
   * multiplies than the direct conv */
  int winograd = !depthwise && a.groups == 1 && w[2] == 3 && w[3] == 3 && a.strides[0] == 1 && a.strides[1] == 1 &&
                 a.dilation[0] == 1 && a.dilation[1] == 1 && o[2] * o[3] >= 196 && in >= x;
  /* A stem (an NCHW input of fewer channels than a block, the RGB image)
   * reads its input as NCHW1c, a view: no transform writes x lanes a pixel */
  int stem = !depthwise && in < x && !twin_of(c, irm_call_arg(call, 0));
  char kernel[48];
  if (depthwise) snprintf(kernel, sizeof kernel, "OIHW1i%lldo", (long long)x);
  else
    snprintf(kernel, sizeof kernel, "%s%lldi%lldo", winograd ? "HWOI" : "OIHW", (long long)(stem ? 1 : x),
             (long long)(vecs * x));
  irm_object *args[2] = {NULL, NULL}, *conv = NULL, *u = NULL;
  const int64_t lanes1[5] = {d[0], d[1], d[2], d[3], 1};
  int rc = stem ? irm_dataflow_reshape_(irm_call_arg(call, 0), lanes1, 5, &args[0])
                : blocked_arg(c, irm_call_arg(call, 0), &args[0]);
  irm_object *t = NULL;
  const int64_t tile = winograd ? winograd_tile(c, o) : 0;
  const char *tile_key[] = {"tile_size"};
  const irm_any tile_value[] = {irm_any_int(tile)};
  if (!rc && winograd) {
    rc = call_of("nn.contrib_conv2d_winograd_weight_transform", (irm_object *const[]){irm_call_arg(call, 1)}, 1, NULL,
                 tile_key, tile_value, 1, &t);
    if (!rc) rc = folded(t, &u);
    if (!rc) rc = transform(u, "HWOI", kernel, &t);
  } else if (!rc) rc = transform(irm_call_arg(call, 1), "OIHW", kernel, &t);
  if (!rc) rc = folded(t, &args[1]);
  irm_object_release(u);
  irm_any strides[2], pad[4], dil[2];
  for (int i = 0; i < 2; i++) strides[i] = irm_any_int(a.strides[i]), dil[i] = irm_any_int(a.dilation[i]);
  for (int i = 0; i < 4; i++) pad[i] = irm_any_int(a.padding[i]);
  irm_object *sa = NULL, *pa = NULL, *da = NULL;
  if (!rc) rc = irm_array_new(strides, 2, &sa);
  if (!rc) rc = irm_array_new(pad, 4, &pa);
  if (!rc) rc = irm_array_new(dil, 2, &da);
  /* the Winograd conv takes the first five */
  const char *keys[] = {"padding", "channels", "data_layout", "kernel_layout", "tile_size",
                        "strides", "dilation", "groups",      "in_channels",   "out_layout"};
  irm_any values[] = {irm_any_object(pa),         irm_any_int(ch),       irm_any_str(stem ? "NCHW1c" : c->data_layout),
                      irm_any_str(kernel),        tile_value[0],         irm_any_object(sa),
                      irm_any_object(da),         irm_any_int(a.groups), irm_any_int(!stem && in % x ? in : 0),
                      irm_any_str(c->data_layout)};
  if (!rc && winograd)
    rc = call_of("nn.contrib_conv2d_winograd_without_weight_transform", args, 2, NULL, keys, values, 5, &conv);
  else if (!rc) {
    /* the direct conv: every key but tile_size */
    const char *dk[9];
    irm_any dv[9];
    for (int i = 0, j = 0; i < 10; i++)
      if (i != 4) dk[j] = keys[i], dv[j++] = values[i];
    rc = call_of("nn.contrib_conv2d_NCHWc", args, 2, NULL, dk, dv, stem ? 9 : 8, &conv);
  }
  irm_object_release(sa);
  irm_object_release(pa);
  irm_object_release(da);
  irm_object_release(args[0]);
  irm_object_release(args[1]);
  return rc ? rc : finish(c, original, conv, out);
}

/* ---- elementwise and broadcasting ops --------------------------------------------------------------- */

/* A value of shape s that broadcasts along only the channels of an
 * [N, C, H, W] result: [C,1,1], [1,C,1,1] (or C == 1 there). */
static int per_channel(const irm_object *e, int64_t ch) {
  const irm_object *t = irm_expr_type(e);
  if (irm_dataflow_type_kind_of(t) != IRM_DATAFLOW_TYPE_TENSOR) return 0;
  int32_t nd = irm_tensor_type_ndim(t);
  const int64_t *s = irm_tensor_type_shape(t);
  if (nd != 3 && nd != 4) return 0;
  if (nd == 4 && s[0] != 1) return 0;
  return s[nd - 3] == ch && s[nd - 2] == 1 && s[nd - 1] == 1;
}

static int is_scalar(const irm_object *e) {
  const irm_object *t = irm_expr_type(e);
  return irm_dataflow_type_kind_of(t) == IRM_DATAFLOW_TYPE_TENSOR && irm_tensor_type_numel(t) == 1 &&
         irm_tensor_type_ndim(t) <= 1;
}

/* A per-channel e of ch channels as [1, ch/x, 1, 1, x]. *out NEW. */
static int blocked_channels(alter_ctx *c, irm_object *e, int64_t ch, irm_object **out) {
  const int64_t dims[4] = {1, ch, 1, 1};
  irm_object *r = NULL;
  int rc = irm_dataflow_reshape_(e, dims, 4, &r);
  if (!rc) rc = transform(r, "NCHW", c->data_layout, out);
  irm_object_release(r);
  return rc;
}

/* The other argument of a binary op beside a blocked one, blocked; *out
 * NULL when it cannot be. */
static int blocked_operand(alter_ctx *c, irm_object *e, const int64_t o[4], irm_object **out) {
  int64_t s[4];
  *out = NULL;
  if (twin_of(c, e) || (shape4(e, s) && memcmp(s, o, sizeof s) == 0)) return blocked_arg(c, e, out);
  if (per_channel(e, o[1])) return blocked_channels(c, e, o[1], out);
  if (is_scalar(e)) {
    irm_object_retain(e);
    *out = e;
  }
  return IRM_OK;
}

static int alter_binary(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  int64_t o[4], s[4];
  if (!shape4(original, o)) return IRM_OK;
  irm_object *a = irm_call_arg(call, 0), *b = irm_call_arg(call, 1), *args[2] = {NULL, NULL}, *r = NULL;
  int ta = twin_of(c, a) && shape4(a, s) && memcmp(s, o, sizeof s) == 0;
  int tb = twin_of(c, b) && shape4(b, s) && memcmp(s, o, sizeof s) == 0;
  if (!ta && !tb) return IRM_OK;
  int rc = ta ? blocked_arg(c, a, &args[0]) : blocked_operand(c, a, o, &args[0]);
  if (!rc) rc = tb ? blocked_arg(c, b, &args[1]) : blocked_operand(c, b, o, &args[1]);
  if (!rc && args[0] && args[1])
    rc = call_of(irm_op_name(irm_call_callee(call)), args, 2, irm_call_attrs(call), NULL, NULL, 0, &r);
  irm_object_release(args[0]);
  irm_object_release(args[1]);
  return rc || !r ? rc : finish(c, original, r, out);
}

/* nn.bias_add(x, b, axis=1) on a blocked x: add(x', b as [1, C/x, 1, 1, x]). */
static int alter_bias_add(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  irm_bias_add_attrs a;
  int64_t o[4];
  if (irm_bias_add_attrs_decode("nn.bias_add", irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  if ((a.axis != 1 && a.axis != -3) || !shape4(original, o) || !twin_of(c, irm_call_arg(call, 0))) return IRM_OK;
  irm_object *args[2] = {NULL, NULL}, *r = NULL;
  int rc = blocked_arg(c, irm_call_arg(call, 0), &args[0]);
  if (!rc) rc = blocked_channels(c, irm_call_arg(call, 1), o[1], &args[1]);
  if (!rc) rc = call_of("add", args, 2, NULL, NULL, NULL, 0, &r);
  irm_object_release(args[0]);
  irm_object_release(args[1]);
  return rc ? rc : finish(c, original, r, out);
}

static int alter_unary(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  int64_t o[4];
  if (!shape4(original, o) || !twin_of(c, irm_call_arg(call, 0))) return IRM_OK;
  irm_object *arg = NULL, *r = NULL;
  int rc = blocked_arg(c, irm_call_arg(call, 0), &arg);
  if (!rc) rc = call_of(irm_op_name(irm_call_callee(call)), &arg, 1, irm_call_attrs(call), NULL, NULL, 0, &r);
  irm_object_release(arg);
  return rc ? rc : finish(c, original, r, out);
}

/* ---- moves of channels not on whole blocks ------------------------------------------------------ */

/* e in NCHW: a transform of its twin of its own (so that the fused kernel
 * reading it holds the transform, not a buffer), else e. *out NEW. */
static int nchw_of(alter_ctx *c, irm_object *e, irm_object **out) {
  irm_object *t = twin_of(c, e);
  int64_t s[4] = {0, 0, 0, 0};
  if (t && shape4(e, s)) return unblocked(c, t, s[1], out);
  irm_object_retain(e);
  *out = e;
  return IRM_OK;
}

/* A move of channels the rules on whole blocks cannot make (a slice or
 * concatenation not on block boundaries, a shuffle of 2 groups that are
 * not whole blocks: ShuffleNet's 24-channel halves in blocks of 16): the
 * op on its arguments in NCHW, transformed back into the blocked layout
 * at once. Each argument is a transform of its twin of its own, so FuseOps
 * fuses the whole move into one kernel of blocked tensors, which the C
 * backend runs in one pass (a channel map, runtime/kernels); no NCHW
 * tensor is left between kernels. Its callers allow only moves whose
 * output blocks each take lanes from at most two input blocks (runs of
 * x/2 channels), which that pass needs. shuffled: call is the shuffle's
 * last reshape and shuffled its input x; else call's own arguments are
 * taken. */
static int moved(alter_ctx *c, const irm_object *original, irm_object *call, irm_object *shuffled, irm_object **out) {
  size_t n = shuffled ? 1 : irm_call_arg_count(call);
  irm_object *args[256] = {NULL}, *r = NULL, *blocked = NULL;
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) rc = nchw_of(c, shuffled ? shuffled : irm_call_arg(call, i), &args[i]);
  if (!rc && shuffled) { /* reshape(transpose(reshape(x))) rebuilt on the NCHW x */
    irm_object *tr = irm_call_arg(call, 0), *rs = irm_call_arg(tr, 0), *split = NULL, *moved_ = NULL;
    const irm_object *mt = irm_expr_type(rs);
    int64_t o[4];
    (void)shape4(original, o);
    rc = irm_dataflow_reshape_(args[0], irm_tensor_type_shape(mt), 5, &split);
    if (!rc) rc = call_of("transpose", &split, 1, irm_call_attrs(tr), NULL, NULL, 0, &moved_);
    if (!rc) rc = irm_dataflow_reshape_(moved_, o, 4, &r);
    irm_object_release(split);
    irm_object_release(moved_);
  } else if (!rc) rc = call_of(irm_op_name(irm_call_callee(call)), args, n, irm_call_attrs(call), NULL, NULL, 0, &r);
  for (size_t i = 0; i < n; i++) irm_object_release(args[i]);
  if (!rc) rc = transform(r, "NCHW", c->data_layout, &blocked);
  irm_object_release(r);
  return rc ? rc : finish(c, original, blocked, out);
}

/* ---- pools and concatenate ---------------------------------------------------------------------- */

static int alter_pool(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  int64_t o[4];
  const char *op = irm_op_name(irm_call_callee(call));
  int layout = -1;
  if (strstr(op, "global")) {
    irm_global_pool2d_attrs a;
    if (!irm_global_pool2d_attrs_decode(op, irm_call_attrs(call), &a)) layout = a.layout;
  } else {
    irm_pool2d_attrs a;
    if (!irm_pool2d_attrs_decode(op, irm_call_attrs(call), &a)) layout = a.layout;
  }
  irm_clear_error();
  if (layout != IRM_LAYOUT_NCHW || !shape4(original, o) || !twin_of(c, irm_call_arg(call, 0))) return IRM_OK;
  irm_object *arg = NULL, *attrs = NULL, *r = NULL;
  irm_any v = irm_any_str(c->data_layout);
  int rc = blocked_arg(c, irm_call_arg(call, 0), &arg);
  if (!rc) rc = irm_map_with_set(irm_call_attrs(call), "layout", &v, &attrs);
  if (!rc) rc = call_of(op, &arg, 1, attrs, NULL, NULL, 0, &r);
  irm_object_release(arg);
  irm_object_release(attrs);
  return rc ? rc : finish(c, original, r, out);
}

static int alter_concat(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  irm_concatenate_attrs a;
  int64_t o[4], s[4];
  size_t n = irm_call_arg_count(call), twins = 0;
  if (irm_concatenate_attrs_decode("concatenate", irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  if ((a.axis != 1 && a.axis != -3) || !shape4(original, o) || n == 0 || n > 256) return IRM_OK;
  int whole = 1, halves = 1;
  for (size_t i = 0; i < n; i++) {
    if (!shape4(irm_call_arg(call, i), s)) return IRM_OK;
    whole &= s[1] % c->x == 0;
    halves &= s[1] % (c->x / 2) == 0;
    twins += twin_of(c, irm_call_arg(call, i)) != NULL;
  }
  if (!whole) return twins == n && halves && c->x % 2 == 0 ? moved(c, original, call, NULL, out) : IRM_OK;
  if (!twins) return IRM_OK;
  irm_object *args[256] = {NULL}, *r = NULL;
  int rc = IRM_OK;
  for (size_t i = 0; i < n && !rc; i++) rc = blocked_arg(c, irm_call_arg(call, i), &args[i]);
  if (!rc) rc = call_of("concatenate", args, n, irm_call_attrs(call), NULL, NULL, 0, &r);
  for (size_t i = 0; i < n; i++) irm_object_release(args[i]);
  return rc ? rc : finish(c, original, r, out);
}

/* mean / max over H and W of a blocked x (ShuffleNet's x.mean([2, 3])):
 * the global pool of its blocks, transformed back (and flattened without
 * keepdims) only at the end, a vector per channel block. */
static int alter_spatial_reduce(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  irm_reduce_attrs a;
  int64_t s[4];
  const char *op = irm_op_name(irm_call_callee(call));
  irm_object *x = irm_call_arg(call, 0);
  if (irm_reduce_attrs_decode(op, irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  if (!twin_of(c, x) || !shape4(x, s) || a.exclude || a.n_axis != 2) return IRM_OK;
  int64_t a0 = a.axis[0] < 0 ? a.axis[0] + 4 : a.axis[0], a1 = a.axis[1] < 0 ? a.axis[1] + 4 : a.axis[1];
  if (!((a0 == 2 && a1 == 3) || (a0 == 3 && a1 == 2))) return IRM_OK;
  irm_object *arg = NULL, *r = NULL, *back = NULL, *flat = NULL;
  const char *key = "layout";
  irm_any v = irm_any_str(c->data_layout);
  int rc = blocked_arg(c, x, &arg);
  if (!rc)
    rc = call_of(strcmp(op, "mean") == 0 ? "nn.global_avg_pool2d" : "nn.global_max_pool2d", &arg, 1, NULL, &key, &v, 1,
                 &r);
  irm_object_release(arg);
  if (rc || a.keepdims) return rc ? rc : finish(c, original, r, out);
  const int64_t nc[2] = {s[0], s[1]};
  rc = unblocked(c, r, s[1], &back);
  irm_object_release(r);
  if (!rc) rc = irm_dataflow_reshape_(back, nc, 2, &flat);
  if (!rc) rc = irm_expr_with_type(flat, irm_expr_type(original), out);
  irm_object_release(back);
  irm_object_release(flat);
  return rc;
}

/* ---- strided_slice and channel shuffle ----------------------------------------------------------- */

/* x[:, b:e] on whole blocks of a blocked x: the slice of its blocks. The
 * other axes must be taken whole, in steps of 1. */
static int alter_slice(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  irm_strided_slice_attrs a;
  int64_t o[4], s[4], lo = 0;
  irm_object *x = irm_call_arg(call, 0);
  if (irm_strided_slice_attrs_decode("strided_slice", irm_call_attrs(call), &a)) return irm_clear_error(), IRM_OK;
  if (!shape4(original, o) || !shape4(x, s) || !twin_of(c, x)) return IRM_OK;
  for (int32_t i = 0; i < a.n_begin; i++) {
    int64_t d = a.n_axes >= 0 ? a.axes[i] : i, b = a.begin[i];
    if (d < 0) d += 4;
    if (d < 0 || d > 3 || (a.n_strides > 0 && a.strides[i] != 1)) return IRM_OK;
    if (b < 0) b += s[d];
    b = b < 0 ? 0 : b > s[d] ? s[d] : b;
    if (d == 1) lo = b;
    else if (b != 0) return IRM_OK;
  }
  if (o[0] != s[0] || o[2] != s[2] || o[3] != s[3]) return IRM_OK;
  if (lo % c->x || o[1] % c->x) return moved(c, original, call, NULL, out);
  irm_object *arg = NULL, *r = NULL;
  int rc = blocked_arg(c, x, &arg);
  if (!rc) rc = channel_range(arg, lo / c->x, (lo + o[1]) / c->x, &r);
  irm_object_release(arg);
  return rc ? rc : finish(c, original, r, out);
}

/* The channel shuffle reshape(transpose(reshape(x, [N, g, C/g, H, W]),
 * [0, 2, 1, 3, 4]), [N, C, H, W]) (ShuffleNet's): *g and x, else 0. */
static int shuffle_of(irm_object *call, int64_t *g, irm_object **x) {
  irm_transpose_attrs t;
  irm_object *tr = irm_call_arg(call, 0), *rs = NULL;
  int64_t s[4], m[5];
  if (irm_expr_kind_of(tr) != IRM_EXPR_CALL || irm_call_arg_count(tr) != 1 ||
      irm_expr_kind_of(irm_call_callee(tr)) != IRM_EXPR_OP || strcmp(irm_op_name(irm_call_callee(tr)), "transpose"))
    return 0;
  rs = irm_call_arg(tr, 0);
  if (irm_expr_kind_of(rs) != IRM_EXPR_CALL || irm_call_arg_count(rs) != 1 ||
      irm_expr_kind_of(irm_call_callee(rs)) != IRM_EXPR_OP || strcmp(irm_op_name(irm_call_callee(rs)), "reshape"))
    return 0;
  if (irm_transpose_attrs_decode("transpose", irm_call_attrs(tr), &t) || t.n_axes != 5) return irm_clear_error(), 0;
  static const int64_t perm[5] = {0, 2, 1, 3, 4};
  if (memcmp(t.axes, perm, sizeof perm) != 0) return 0;
  const irm_object *mt = irm_expr_type(rs);
  *x = irm_call_arg(rs, 0);
  if (!shape4(*x, s) || irm_dataflow_type_kind_of(mt) != IRM_DATAFLOW_TYPE_TENSOR || irm_tensor_type_ndim(mt) != 5)
    return 0;
  memcpy(m, irm_tensor_type_shape(mt), sizeof m);
  if (m[0] != s[0] || m[1] * m[2] != s[1] || m[3] != s[2] || m[4] != s[3]) return 0;
  *g = m[1];
  return 1;
}

/* The channel shuffle of a blocked x (C channels, g groups, blocks of
 * x channels) as a shuffle of its
 * blocks and lanes: channel j*(C/g) + k goes to k*g + j. With k = kb*x +
 * kh*(x/g) + kl, it sits at block j*(C/g)/x + kb, lane kh*(x/g) + kl, and
 * goes to block kb*g + kh, lane kl*g + j: a transpose of the blocked
 * tensor seen as [N, g, C/(g*x), H, W, g, x/g], axes [0, 2, 5, 3, 4, 6, 1].
 * It needs C/g a multiple of x (each group whole blocks) and x of g. */
static int alter_shuffle(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  int64_t g = 0, o[4], s[4];
  irm_object *x = NULL;
  if (!shuffle_of(call, &g, &x) || !twin_of(c, x) || !shape4(original, o) || !shape4(x, s)) return IRM_OK;
  if (g < 2 || s[1] % g || memcmp(o, s, sizeof o) != 0) return IRM_OK;
  if ((s[1] / g) % c->x || c->x % g)
    return g == 2 && c->x % 2 == 0 && (s[1] / 2) % (c->x / 2) == 0 ? moved(c, original, call, x, out) : IRM_OK;
  const int64_t seven[7] = {s[0], g, s[1] / g / c->x, s[2], s[3], g, c->x / g};
  const int64_t five[5] = {s[0], s[1] / c->x, s[2], s[3], c->x};
  irm_any axes[7];
  static const int64_t perm[7] = {0, 2, 5, 3, 4, 6, 1};
  for (int i = 0; i < 7; i++) axes[i] = irm_any_int(perm[i]);
  irm_object *arg = NULL, *split = NULL, *moved = NULL, *arr = NULL, *r = NULL;
  int rc = blocked_arg(c, x, &arg);
  if (!rc) rc = irm_dataflow_reshape_(arg, seven, 7, &split);
  if (!rc) rc = irm_array_new(axes, 7, &arr);
  const char *key = "axes";
  irm_any v = irm_any_object(arr);
  if (!rc) rc = call_of("transpose", &split, 1, NULL, &key, &v, 1, &moved);
  if (!rc) rc = irm_dataflow_reshape_(moved, five, 5, &r);
  irm_object_release(arg);
  irm_object_release(split);
  irm_object_release(arr);
  irm_object_release(moved);
  return rc ? rc : finish(c, original, r, out);
}

/* ---- the rewrite ---------------------------------------------------------------------------------- */

static int is_pool(const char *op) {
  return strcmp(op, "nn.max_pool2d") == 0 || strcmp(op, "nn.avg_pool2d") == 0 ||
         strcmp(op, "nn.global_avg_pool2d") == 0 || strcmp(op, "nn.global_max_pool2d") == 0;
}

static int alter(alter_ctx *c, const irm_object *original, irm_object *call, irm_object **out) {
  const irm_object *callee = irm_call_callee(call);
  if (irm_expr_kind_of(callee) != IRM_EXPR_OP || !irm_expr_type(original)) return IRM_OK;
  const char *op = irm_op_name(callee);
  size_t n = irm_call_arg_count(call);
  irm_op_pattern p = irm_op_pattern_of(callee);
  int rc = irm_alter_qnn_call_(c->qnn, original, call, out);
  if (rc || *out) return rc;
  if (strcmp(op, "nn.conv2d") == 0 && n == 2) return alter_conv(c, original, call, out);
  if (strcmp(op, "nn.bias_add") == 0 && n == 2) return alter_bias_add(c, original, call, out);
  if (strcmp(op, "concatenate") == 0) return alter_concat(c, original, call, out);
  if (strcmp(op, "strided_slice") == 0 && n == 1) return alter_slice(c, original, call, out);
  if ((strcmp(op, "mean") == 0 || strcmp(op, "max") == 0) && n == 1)
    return alter_spatial_reduce(c, original, call, out);
  if (strcmp(op, "reshape") == 0 && n == 1) return alter_shuffle(c, original, call, out);
  if (is_pool(op) && n == 1) return alter_pool(c, original, call, out);
  if (p == IRM_OP_ELEMWISE && n == 1) return alter_unary(c, original, call, out);
  if ((p == IRM_OP_ELEMWISE || p == IRM_OP_BROADCAST) && n == 2) return alter_binary(c, original, call, out);
  return IRM_OK;
}

static int post(void *ctx, irm_object *original, irm_object *rebuilt, irm_object **out) {
  *out = NULL;
  int rc = irm_expr_kind_of(rebuilt) == IRM_EXPR_CALL ? alter(ctx, original, rebuilt, out) : IRM_OK;
  if (rc || *out) return rc;
  irm_object *t = irm_expr_type(original);
  if (rebuilt != original && t && !irm_expr_type(rebuilt)) return irm_expr_with_type(rebuilt, t, out);
  irm_object_retain(rebuilt);
  *out = rebuilt;
  return IRM_OK;
}

static int alter_function_with(irm_object *func, int64_t block, int64_t tile, irm_object **out) {
  if (block <= 0) {
    irm_object_retain(func);
    *out = func;
    return IRM_OK;
  }
  alter_ctx c;
  memset(&c, 0, sizeof c);
  c.x = block;
  c.winograd_tile = tile;
  snprintf(c.data_layout, sizeof c.data_layout, "NCHW%lldc", (long long)block);
  irm_expr_rewriter rw = {NULL, post, &c};
  int rc = irm_alter_qnn_new_(&c.qnn);
  if (!rc) rc = irm_dataflow_rewrite_function_(func, &rw, out);
  irm_alter_qnn_free_(c.qnn);
  for (irm_ptr_entry_ *e = c.twins.head; e; e = e->next) {
    irm_object_release(((twin *)e)->key);
    irm_object_release(((twin *)e)->blocked);
  }
  irm_ptr_table_free_(&c.twins);
  return rc;
}

static int block_setting(const irm_object *options, const irm_module *mod, int64_t *block) {
  irm_any v = irm_any_none();
  *block = 0;
  int rc = irm_pass_setting(options, "block", mod, "AlterOpLayout.block", &v);
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_int(&v, block);
  irm_any_release(&v);
  if (!rc && (*block < 0 || *block > 64))
    rc = irm_error(IRM_EVALUE, "AlterOpLayout: block must be 0 (off) to 64 channels, got %lld", (long long)*block);
  return rc;
}

/* The winograd_tile setting: 0 (the rule), 2 (F(2x2, 3x3)) or 4 (F(4x4,
 * 3x3)) for every Winograd conv. */
static int tile_setting(const irm_object *options, const irm_module *mod, int64_t *tile) {
  irm_any v = irm_any_none();
  *tile = 0;
  int rc = irm_pass_setting(options, "winograd_tile", mod, "AlterOpLayout.winograd_tile", &v);
  if (!rc && v.type_code != IRM_NONE) rc = irm_any_to_int(&v, tile);
  irm_any_release(&v);
  if (!rc && *tile != 0 && *tile != 2 && *tile != 4)
    rc = irm_error(IRM_EVALUE,
                   "AlterOpLayout: winograd_tile must be 0 (the default rule), 2 (F(2x2, 3x3)) or 4 (F(4x4, 3x3)), "
                   "got %lld",
                   (long long)*tile);
  return rc;
}

static int alter_function(irm_object *func, irm_module *mod, irm_pass_context *ctx, const irm_object *options,
                          void *resource, irm_object **out) {
  (void)ctx;
  (void)resource;
  int64_t block = 0, tile = 0;
  int rc = block_setting(options, mod, &block);
  if (!rc) rc = tile_setting(options, mod, &tile);
  return rc ? rc : alter_function_with(func, block, tile, out);
}

static int alter_setup(irm_kind *k) {
  if (irm_kind_option(k, "block", NULL, NULL) == IRM_OK) return IRM_OK;
  irm_clear_error();
  int rc = irm_kind_add_option(k, "block", IRM_OPTION_INT, NULL,
                               "the channel block of the NCHW{x}c layout (the target's float lanes); 0: off", 0);
  if (!rc)
    rc = irm_kind_add_option(k, "winograd_tile", IRM_OPTION_INT, NULL,
                             "Winograd's output tile for the 3x3 stride-1 convs: 0 the default rule, 2 or 4", 0);
  return rc;
}

/* AlterOpLayout.block and AlterOpLayout.winograd_tile: module attributes,
 * and the PassContext options that migrate onto them. */
int irm_register_alter_op_layout_pass_(void) {
  irm_any off = irm_any_int(0);
  int rc = irm_module_attr_register("AlterOpLayout.block", "int", 0);
  if (!rc) rc = irm_pass_config_register("AlterOpLayout.block", "int", &off, "AlterOpLayout.block");
  if (!rc) rc = irm_module_attr_register("AlterOpLayout.winograd_tile", "int", 0);
  if (!rc) rc = irm_pass_config_register("AlterOpLayout.winograd_tile", "int", &off, "AlterOpLayout.winograd_tile");
  static const irm_dataflow_pass_def_ def = {"AlterOpLayout", 2, NULL, alter_function, alter_setup};
  return rc ? rc : irm_dataflow_pass_register_(&def);
}
