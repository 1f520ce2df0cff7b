"""The ONNX frontend's converters of the quantized ops into irm's QNN ops
(docs/ops.md, "Quantized ops"): QuantizeLinear, DequantizeLinear (per
axis too), QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger,
DynamicQuantizeLinear and com.microsoft's QLinearAdd / QLinearMul;
onnx_ops.CONVERTERS maps their op types (a non-default domain's as
"<domain>.<op_type>"). The QLinear ops are an integer op with int32 sums,
then qnn.requantize with input scale a_scale * b_scale (float32, as ONNX's
reference computes it) and input zero point 0."""
import numpy as np

from .onnx_ops_util import _axis
from .onnx_ops_nn import _window


def _zp(g, v, like_dtype):
    """A zero point, or 0 of like_dtype when the input is absent."""
    return v if v is not None else g.const(np.zeros((), dtype=like_dtype))


def _per_axis(scale, data, a, default=1):
    """The axis a 1-D scale of several values runs along; -1 (per tensor) otherwise."""
    if len(scale.shape) == 1 and scale.shape[0] > 1:
        return _axis(int(a.get("axis", default)), len(data.shape))
    return -1


def _opt(x, i):
    return x[i] if len(x) > i else None


def _quantize(g, x, a, node):
    data, scale = x[0], x[1]
    zp = _zp(g, _opt(x, 2), "uint8")
    if zp.dtype not in ("int8", "uint8", "int32"):
        raise NotImplementedError("QuantizeLinear to %s: irm quantizes to int8, uint8 and int32" % zp.dtype)
    if data.dtype != "float32":
        raise NotImplementedError("QuantizeLinear of %s data: irm quantizes float32" % data.dtype)
    return [g.emit("qnn.quantize", [data, scale, zp], axis=_per_axis(scale, data, a), out_dtype=zp.dtype)]


def _dequantize(g, x, a, node):
    data, scale = x[0], x[1]
    zp = _zp(g, _opt(x, 2), data.dtype)
    # not folded: FakeQuantizationToInteger reads the quantized weights (FoldConstant folds what stays float)
    return [g.emit("qnn.dequantize", [data, scale, zp], fold=False, axis=_per_axis(scale, data, a))]


def _requantize(g, acc, a_scale, b_scale, y_scale, y_zp, axis):
    in_scale = g.emit("multiply", [a_scale, b_scale])
    zero = g.const(np.zeros((), dtype="int32"))
    return g.emit("qnn.requantize", [acc, in_scale, zero, y_scale, y_zp], axis=axis, out_dtype=y_zp.dtype)


def _qconv(g, data, w, x_zp, w_zp, x_scale, w_scale, a):
    if len(data.shape) != 4:
        raise NotImplementedError("quantized convolution on rank %d data: irm takes 2-D (NCHW) only"
                                  % len(data.shape))
    kernel = a.get("kernel_shape", list(w.shape[2:]))
    strides, dilations, pads = _window(data, a, kernel, "Conv")
    return g.emit("qnn.conv2d", [data, w, x_zp, w_zp, x_scale, w_scale], strides=strides, padding=pads,
                  dilation=dilations, groups=int(a.get("group", 1)))


def _one(g):
    return g.const(np.ones((), dtype="float32"))


def _conv_integer(g, x, a, node):
    data, w = x[0], x[1]
    acc = _qconv(g, data, w, _zp(g, _opt(x, 2), data.dtype), _zp(g, _opt(x, 3), w.dtype), _one(g), _one(g), a)
    return [acc]


def _qlinear_conv(g, x, a, node):
    data, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp = x[:8]
    acc = _qconv(g, data, w, x_zp, w_zp, x_scale, w_scale, a)
    bias = _opt(x, 8)
    if bias is not None:
        acc = g.emit("add", [acc, g.emit("reshape", [bias], newshape=[-1, 1, 1])])
    return [_requantize(g, acc, x_scale, w_scale, y_scale, y_zp, 1)]


def _int_matmul(g, A, B, a_zp, b_zp):
    """(A - a_zp) @ (B - b_zp) in int32: qnn.dense for a 2-D B with per-tensor a_zp, else int32 matmul
    (a_zp per row of A, b_zp per column of B)."""
    if len(B.shape) == 2 and len(A.shape) >= 1 and int(np.prod(a_zp.shape, dtype=np.int64)) == 1:
        one = _one(g)
        bt = g.emit("transpose", [B], axes=[1, 0])
        return g.emit("qnn.dense", [A, bt, a_zp, b_zp, one, one])
    ai = g.emit("cast", [A], dtype="int32")
    bi = g.emit("cast", [B], dtype="int32")
    az = g.emit("cast", [a_zp], dtype="int32")
    if len(a_zp.shape) == 1 and a_zp.shape[0] > 1:
        az = g.emit("reshape", [az], newshape=[-1, 1])
    ai = g.emit("subtract", [ai, az])
    bi = g.emit("subtract", [bi, g.emit("cast", [b_zp], dtype="int32")])
    return g.emit("matmul", [ai, bi])


def _qlinear_matmul(g, x, a, node):
    A, a_scale, a_zp, B, b_scale, b_zp, y_scale, y_zp = x[:8]
    acc = _int_matmul(g, A, B, a_zp, b_zp)
    axis = len(acc.shape) - 1 if int(np.prod(b_scale.shape, dtype=np.int64)) > 1 else -1
    return [_requantize(g, acc, a_scale, b_scale, y_scale, y_zp, axis)]


def _matmul_integer(g, x, a, node):
    A, B = x[0], x[1]
    return [_int_matmul(g, A, B, _zp(g, _opt(x, 2), A.dtype), _zp(g, _opt(x, 3), B.dtype))]


def _qlinear_binary(op):
    def conv(g, x, a, node):
        A, a_scale, a_zp, B, b_scale, b_zp, y_scale = x[:7]
        y_zp = _zp(g, _opt(x, 7), A.dtype)
        return [g.emit(op, [A, B, a_scale, a_zp, b_scale, b_zp, y_scale, y_zp])]
    return conv


def _dynamic_quantize(g, x, a, node):
    """ONNX's formulas: scale = (max(x, 0) - min(x, 0)) / 255 (1 / 255 when both are 0), zero point
    rint(clip(-min / scale, 0, 255)), y = QuantizeLinear(x, scale, zero point) as uint8."""
    data = x[0]
    f = lambda v: g.const(np.array(v, dtype="float32"))  # noqa: E731
    lo = g.emit("minimum", [g.emit("min", [data]), f(0)])
    hi = g.emit("maximum", [g.emit("max", [data]), f(0)])
    span = g.emit("subtract", [hi, lo])
    span = g.emit("where", [g.emit("equal", [hi, lo]), f(1), span])
    scale = g.emit("divide", [span, f(255)])
    zp = g.emit("clip", [g.emit("divide", [g.emit("negative", [lo]), scale])], a_min=0.0, a_max=255.0)
    zp = g.emit("cast", [g.emit("round", [zp])], dtype="uint8")
    y = g.emit("qnn.quantize", [data, scale, zp], out_dtype="uint8")
    return [y, scale, zp]


CONVERTERS_QNN = {
    "QuantizeLinear": _quantize, "DequantizeLinear": _dequantize, "QLinearConv": _qlinear_conv,
    "QLinearMatMul": _qlinear_matmul, "ConvInteger": _conv_integer, "MatMulInteger": _matmul_integer,
    "DynamicQuantizeLinear": _dynamic_quantize,
    "com.microsoft.QLinearAdd": _qlinear_binary("qnn.add"), "com.microsoft.QLinearMul": _qlinear_binary("qnn.mul"),
}
