"""The ONNX frontend's converters of the nn ops (convolutions, pools,
normalization, dense and matmul, softmax); onnx_ops.CONVERTERS maps
their op types. Defaults are the ONNX operator specification's."""
import numpy as np

from .onnx_ops_util import _axis


# ---- nn --------------------------------------------------------------------------------------------

def _same_pads(in_hw, kernel, strides, dilations, mode):
    pads_begin, pads_end = [], []
    for n, k, s, d in zip(in_hw, kernel, strides, dilations):
        out = -(-n // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
        small, big = total // 2, total - total // 2
        pads_begin.append(big if mode == "SAME_LOWER" else small)
        pads_end.append(small if mode == "SAME_LOWER" else big)
    return pads_begin + pads_end


def _window(x, a, kernel, op_type):
    if len(x.shape) not in (4, 5):
        raise NotImplementedError("%s on rank %d data: irm takes 2-D (NCHW) and 3-D (NCDHW) %s only"
                                  % (op_type, len(x.shape), "convolutions" if op_type == "Conv" else "pools"))
    dims = len(x.shape) - 2
    strides = a.get("strides", [1] * dims)
    dilations = a.get("dilations", [1] * dims)
    auto_pad = a.get("auto_pad", "NOTSET")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        pads = _same_pads(x.shape[2:], kernel, strides, dilations, auto_pad)
    elif auto_pad == "VALID":
        pads = [0] * (2 * dims)
    else:
        pads = a.get("pads", [0] * (2 * dims))
    return strides, dilations, pads  # ONNX pads: the begins, then the ends (irm's 4- and 6-value order)


def _as_2d(g, x, a, node, conv):
    """A 1-D convolution or pool as a 2-D one of height 1 (expand_dims,
    then squeeze)."""
    a = dict(a)
    for key, one in (("kernel_shape", 1), ("strides", 1), ("dilations", 1), ("output_padding", 0),
                     ("output_shape", 1)):
        if key in a:
            a[key] = [one] + list(a[key])
    if "pads" in a:
        a["pads"] = [0, a["pads"][0], 0, a["pads"][1]]
    x = list(x)
    x[0] = g.emit("expand_dims", [x[0]], axis=2)
    if node.op_type in ("Conv", "ConvTranspose"):
        x[1] = g.emit("expand_dims", [x[1]], axis=2)
    outs = conv(g, x, a, node)
    return [g.emit("squeeze", [outs[0]], axis=[2])] + outs[1:]


def _conv(g, x, a, node):
    data, weight = x[0], x[1]
    if len(data.shape) == 3:
        return _as_2d(g, x, a, node, _conv)
    kernel = a.get("kernel_shape", list(weight.shape[2:]))
    strides, dilations, pads = _window(data, a, kernel, "Conv")
    op = "nn.conv3d" if len(data.shape) == 5 else "nn.conv2d"
    out = g.emit(op, [data, weight], strides=strides, padding=pads, dilation=dilations, groups=int(a.get("group", 1)))
    if len(x) > 2 and x[2] is not None:
        out = g.emit("nn.bias_add", [out, x[2]], axis=1)
    return [out]


def _conv_transpose(g, x, a, node):
    data, weight = x[0], x[1]
    if len(data.shape) == 3:
        return _as_2d(g, x, a, node, _conv_transpose)
    if len(data.shape) not in (4, 5):
        raise NotImplementedError("ConvTranspose on rank %d data: irm takes 1-D, 2-D and 3-D only" % len(data.shape))
    dims = len(data.shape) - 2
    kernel = a.get("kernel_shape", list(weight.shape[2:]))
    strides, dilations = a.get("strides", [1] * dims), a.get("dilations", [1] * dims)
    opad = list(a.get("output_padding", [0] * dims))
    group = int(a.get("group", 1))
    full = [(data.shape[2 + i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 + opad[i] for i in range(dims)]
    if "output_shape" in a:
        want = a["output_shape"][-dims:]
        total = [full[i] - want[i] for i in range(dims)]
    elif a.get("auto_pad", "NOTSET") in ("SAME_UPPER", "SAME_LOWER"):
        total = [full[i] - data.shape[2 + i] * strides[i] for i in range(dims)]
    else:
        total = None
    if total is not None:
        if any(t < 0 for t in total):  # a larger output: extra rows and columns at the end
            opad = [opad[i] - min(total[i], 0) for i in range(dims)]
            total = [max(t, 0) for t in total]
        lower = a.get("auto_pad", "NOTSET") == "SAME_LOWER"
        begin = [(t + 1) // 2 if lower else t // 2 for t in total]
        pads = begin + [total[i] - begin[i] for i in range(dims)]
    else:
        pads = a.get("pads", [0] * (2 * dims))
    op = "nn.conv3d_transpose" if dims == 3 else "nn.conv2d_transpose"
    out = g.emit(op, [data, weight], strides=strides, padding=pads, dilation=dilations, output_padding=opad,
                 groups=group)
    if len(x) > 2 and x[2] is not None:
        out = g.emit("nn.bias_add", [out, x[2]], axis=1)
    return [out]


def _batch_norm(g, x, a, node):
    if a.get("training_mode", 0):
        raise NotImplementedError("BatchNormalization with training_mode=1")
    return [g.emit("nn.batch_norm", x[:5], epsilon=float(a.get("epsilon", 1e-5)), axis=1)]


def _pool(op):
    def conv(g, x, a, node):
        if len(node.output) > 1 and node.output[1]:
            raise NotImplementedError("MaxPool's Indices output")
        if len(x[0].shape) == 3:
            return _as_2d(g, x, a, node, conv)
        kernel = a["kernel_shape"]
        strides, dilations, pads = _window(x[0], a, kernel, node.op_type)
        extra = {"count_include_pad": bool(a.get("count_include_pad", 0))} if op == "nn.avg_pool2d" else {}
        if a.get("storage_order", 0):
            raise NotImplementedError("MaxPool with storage_order=1")
        name = op.replace("2d", "3d") if len(x[0].shape) == 5 else op
        return [g.emit(name, [x[0]], pool_size=kernel, strides=strides, padding=pads, dilation=dilations,
                       ceil_mode=bool(a.get("ceil_mode", 0)), **extra)]
    return conv


def _global_pool(op):
    def conv(g, x, a, node):
        if len(x[0].shape) != 4:
            raise NotImplementedError("%s on rank %d data: irm takes NCHW only" % (node.op_type, len(x[0].shape)))
        return [g.emit(op, [x[0]])]
    return conv


def _gemm(g, x, a, node):
    A, B = x[0], x[1]
    if a.get("transA", 0):
        A = g.emit("transpose", [A], axes=[1, 0])
    if not a.get("transB", 0):
        B = g.emit("transpose", [B], axes=[1, 0])
    out = g.emit("nn.dense", [A, B])
    alpha, beta = float(a.get("alpha", 1.0)), float(a.get("beta", 1.0))
    if alpha != 1.0:
        out = g.emit("multiply", [out, g.const(np.array(alpha, dtype=out.dtype))])
    if len(x) > 2 and x[2] is not None:
        C = x[2]
        if beta != 1.0:
            C = g.emit("multiply", [C, g.const(np.array(beta, dtype=C.dtype))])
        out = g.emit("add", [out, C])
    return [out]


def _matmul(g, x, a, node):
    A, B = x[0], x[1]
    squeeze = []
    if len(A.shape) == 1:
        A = g.emit("expand_dims", [A], axis=0)
        squeeze.append(-2)
    if len(B.shape) == 1:
        B = g.emit("expand_dims", [B], axis=1)
        squeeze.append(-1)
    out = g.emit("matmul", [A, B])
    if squeeze:
        rank = len(out.shape)
        out = g.emit("squeeze", [out], axis=[_axis(s, rank) for s in squeeze])
    return [out]


def _softmax(op):
    def conv(g, x, a, node):
        data = x[0]
        rank = len(data.shape)
        if g.opset >= 13:
            return [g.emit(op, [data], axis=int(a.get("axis", -1)))]
        axis = _axis(int(a.get("axis", 1)), rank)  # before 13: coerced to 2-D at axis
        outer = int(np.prod(data.shape[:axis], dtype=np.int64))
        flat = g.emit("reshape", [data], newshape=[outer, -1])
        out = g.emit(op, [flat], axis=-1)
        return [g.emit("reshape", [out], newshape=list(data.shape))]
    return conv
