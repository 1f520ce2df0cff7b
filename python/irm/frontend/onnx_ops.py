"""The converters of the ONNX frontend: op_type -> function(graph, inputs,
attrs, node) -> list of output Values. inputs are Values (None for an
optional input left empty); attrs hold the node's attributes as Python
values. Defaults are the ONNX operator specification's (opsets 11-17)."""
import numpy as np

from .onnx_ops_util import ONNX_TO_IRM, _need_const, _ints, _axis, _scalar  # noqa: F401
from .onnx_ops_qnn import CONVERTERS_QNN
from .onnx_ops_nn import (_conv, _conv_transpose, _batch_norm, _pool, _global_pool, _gemm, _matmul,
                          _softmax)  # noqa: F401
from .onnx_ops_rnn import RNN_CONVERTERS
from .onnx_ops_random import RANDOM_CONVERTERS


# ---- elementwise --------------------------------------------------------------------------------

def _binary(op):
    def conv(g, x, a, node):
        lhs, rhs = x[0], x[1]
        if op == "power" and lhs.dtype != rhs.dtype:
            rhs = g.emit("cast", [rhs], dtype=lhs.dtype)
        return [g.emit(op, [lhs, rhs])]
    return conv


def _variadic(op, mean=False):
    def conv(g, x, a, node):
        acc = x[0]
        for v in x[1:]:
            acc = g.emit(op, [acc, v])
        if mean and len(x) > 1:
            acc = g.emit("divide", [acc, g.const(np.array(len(x), dtype=acc.dtype))])
        return [acc]
    return conv


def _unary(op):
    return lambda g, x, a, node: [g.emit(op, [x[0]])]


def _reciprocal(g, x, a, node):
    return [g.emit("divide", [g.const(np.array(1, dtype=x[0].dtype)), x[0]])]


def _clip(g, x, a, node):
    lo = _need_const(x[1], "Clip's min") if len(x) > 1 and x[1] is not None else a.get("min")
    hi = _need_const(x[2], "Clip's max") if len(x) > 2 and x[2] is not None else a.get("max")
    return [g.emit("clip", [x[0]], a_min=None if lo is None else float(lo), a_max=None if hi is None else float(hi))]


def _leaky_relu(g, x, a, node):
    return [g.emit("nn.leaky_relu", [x[0]], alpha=float(a.get("alpha", 0.01)))]


def _cast(g, x, a, node):
    to = a["to"]
    if to not in ONNX_TO_IRM:
        raise NotImplementedError("Cast to ONNX element type %d" % to)
    if x[0].dtype == ONNX_TO_IRM[to]:
        return [x[0]]
    return [g.emit("cast", [x[0]], dtype=ONNX_TO_IRM[to])]


def _identity(g, x, a, node):
    return [x[0]]


def _dropout(g, x, a, node):
    training = len(x) > 2 and x[2] is not None and bool(np.asarray(_need_const(x[2], "Dropout's training_mode")))
    if training or (a.get("is_test", 1) == 0 and g.opset < 7):
        raise NotImplementedError("Dropout in training mode (random): irm imports inference graphs")
    outs = [x[0]]
    if len(node.output) > 1:
        outs.append(g.const(np.ones(x[0].shape, dtype=bool)))
    return outs


def _where(g, x, a, node):
    return [g.emit("where", [x[0], x[1], x[2]])]


def _elu(g, x, a, node):
    v, alpha = x[0], float(a.get("alpha", 1.0))
    neg = g.emit("multiply", [_scalar(g, v, alpha), g.emit("subtract", [g.emit("exp", [v]), _scalar(g, v, 1)])])
    return [g.emit("where", [g.emit("less", [v, _scalar(g, v, 0)]), neg, v])]


def _selu(g, x, a, node):
    v = x[0]
    alpha, gamma = float(a.get("alpha", 1.67326319217681884765625)), float(a.get("gamma", 1.05070102214813232421875))
    elu = _elu(g, [v], {"alpha": alpha}, node)[0]
    return [g.emit("multiply", [_scalar(g, v, gamma), elu])]


def _celu(g, x, a, node):
    v, alpha = x[0], float(a.get("alpha", 1.0))
    scaled = g.emit("divide", [v, _scalar(g, v, alpha)])
    neg = g.emit("multiply", [_scalar(g, v, alpha), g.emit("subtract", [g.emit("exp", [scaled]), _scalar(g, v, 1)])])
    return [g.emit("add", [g.emit("nn.relu", [v]), g.emit("minimum", [_scalar(g, v, 0), neg])])]


def _hard_sigmoid(g, x, a, node, alpha=None, beta=None):
    v = x[0]
    alpha = float(a.get("alpha", 0.2)) if alpha is None else alpha
    beta = float(a.get("beta", 0.5)) if beta is None else beta
    lin = g.emit("add", [g.emit("multiply", [v, _scalar(g, v, alpha)]), _scalar(g, v, beta)])
    return [g.emit("clip", [lin], a_min=0.0, a_max=1.0)]


def _hard_swish(g, x, a, node):
    return [g.emit("multiply", [x[0], _hard_sigmoid(g, x, a, node, 1.0 / 6, 0.5)[0]])]


def _softplus(g, x, a, node):
    v = x[0]
    return [g.emit("log", [g.emit("add", [g.emit("exp", [v]), _scalar(g, v, 1)])])]


def _softsign(g, x, a, node):
    v = x[0]
    return [g.emit("divide", [v, g.emit("add", [g.emit("abs", [v]), _scalar(g, v, 1)])])]


def _thresholded_relu(g, x, a, node):
    v = x[0]
    keep = g.emit("greater", [v, _scalar(g, v, float(a.get("alpha", 1.0)))])
    return [g.emit("where", [keep, v, _scalar(g, v, 0)])]


def _prelu(g, x, a, node):
    v, slope = x[0], x[1]
    if len(slope.shape) == 1 and len(v.shape) > 2 and slope.shape[0] == v.shape[1] != v.shape[-1]:
        # one slope per channel (PyTorch's export before opset 7's broadcasting)
        slope = g.emit("reshape", [slope], newshape=[-1] + [1] * (len(v.shape) - 2))
    return [g.emit("where", [g.emit("less", [v, _scalar(g, v, 0)]), g.emit("multiply", [v, slope]), v])]


def _xor(g, x, a, node):
    return [g.emit("not_equal", [x[0], x[1]])]


def _isnan(g, x, a, node):
    return [g.emit("not_equal", [x[0], x[0]])]


def _isinf(g, x, a, node):
    v = x[0]
    pos = g.emit("equal", [v, _scalar(g, v, np.inf)])
    neg = g.emit("equal", [v, _scalar(g, v, -np.inf)])
    dp, dn = a.get("detect_positive", 1), a.get("detect_negative", 1)
    if dp and dn:
        return [g.emit("logical_or", [pos, neg])]
    return [pos if dp else neg if dn else g.emit("logical_and", [pos, neg])]


# ---- shapes ----------------------------------------------------------------------------------------

def _reshape(g, x, a, node):
    data, spec = x[0], _ints(x[1], "Reshape's shape")
    allowzero = a.get("allowzero", 0)
    shape = [data.shape[i] if d == 0 and not allowzero else d for i, d in enumerate(spec)]
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
        total = int(np.prod(data.shape, dtype=np.int64))
        shape[shape.index(-1)] = total // known if known else 0
    if 0 in shape:  # irm's reshape reads 0 as "keep": an empty result is an empty constant
        return [g.const(np.zeros(shape, dtype=data.dtype))]
    return [g.emit("reshape", [data], newshape=shape)]


def _flatten(g, x, a, node):
    data = x[0]
    axis = _axis(int(a.get("axis", 1)), len(data.shape))
    outer = int(np.prod(data.shape[:axis], dtype=np.int64))
    inner = int(np.prod(data.shape[axis:], dtype=np.int64))
    return [g.emit("reshape", [data], newshape=[outer, inner])]


def _transpose(g, x, a, node):
    perm = a.get("perm", list(range(len(x[0].shape)))[::-1])
    return [g.emit("transpose", [x[0]], axes=perm)]


def _concat(g, x, a, node):
    parts = [v for v in x if v is not None]
    axis = int(a["axis"])
    while len(parts) > 16:  # the native call's argument limit
        parts = [g.emit("concatenate", parts[:16], axis=axis)] + parts[16:]
    return [g.emit("concatenate", parts, axis=axis)]


def _split(g, x, a, node):
    data = x[0]
    rank = len(data.shape)
    axis = _axis(int(a.get("axis", 0)), rank)
    sizes = _ints(x[1], "Split's split") if len(x) > 1 and x[1] is not None else a.get("split")
    n = len(node.output)
    if sizes is None:
        dim = data.shape[axis]
        step = -(-dim // n)
        sizes = [min(step, dim - i * step) for i in range(n)]
    outs, at = [], 0
    for s in sizes:
        outs.append(g.emit("strided_slice", [data], begin=[at], end=[at + s], axes=[axis]))
        at += s
    return outs


def _axes_of(g, x, a, what):
    if len(x) > 1 and x[1] is not None:
        return _ints(x[1], "%s's axes" % what)
    return a.get("axes")


def _squeeze(g, x, a, node):
    axes = _axes_of(g, x, a, "Squeeze")
    return [g.emit("squeeze", [x[0]], axis=axes)]


def _unsqueeze(g, x, a, node):
    data = x[0]
    axes = _axes_of(g, x, a, "Unsqueeze")
    rank = len(data.shape) + len(axes)
    axes = sorted(_axis(int(ax), rank) for ax in axes)
    shape = list(data.shape)
    for ax in axes:
        shape.insert(ax, 1)
    if len(axes) == 1:
        return [g.emit("expand_dims", [data], axis=axes[0])]
    return [g.emit("reshape", [data], newshape=shape)]


def _slice(g, x, a, node):
    data = x[0]
    if len(x) == 1:  # before opset 10: attributes
        starts, ends = a["starts"], a["ends"]
        axes, steps = a.get("axes", list(range(len(starts)))), [1] * len(starts)
    else:
        starts, ends = _ints(x[1], "Slice's starts"), _ints(x[2], "Slice's ends")
        axes = _ints(x[3], "Slice's axes") if len(x) > 3 and x[3] is not None else list(range(len(starts)))
        steps = _ints(x[4], "Slice's steps") if len(x) > 4 and x[4] is not None else [1] * len(starts)
    big = 1 << 62
    clamp = [max(min(v, big), -big) for v in ends]
    return [g.emit("strided_slice", [data], begin=[max(min(v, big), -big) for v in starts], end=clamp,
                   strides=steps, axes=[_axis(ax, len(data.shape)) for ax in axes])]


def _gather(g, x, a, node):
    return [g.emit("take", [x[0], x[1]], axis=int(a.get("axis", 0)))]


def _gather_elements(g, x, a, node):
    return [g.emit("gather", [x[0], x[1]], axis=int(a.get("axis", 0)))]


def _trilu(g, x, a, node):
    v = x[0]
    k = int(np.asarray(_need_const(x[1], "Trilu's k")).reshape(-1)[0]) if len(x) > 1 and x[1] is not None else 0
    rows, cols = v.shape[-2], v.shape[-1]
    mask = np.triu(np.ones((rows, cols), bool), k) if a.get("upper", 1) else np.tril(np.ones((rows, cols), bool), k)
    return [g.emit("where", [g.const(mask), v, _scalar(g, v, 0)])]


def _cast_like(g, x, a, node):
    if x[0].dtype == x[1].dtype:
        return [x[0]]
    return [g.emit("cast_like", [x[0], x[1]])]  # TVM's mapping


def _nll(g, logp, target, weight, a):
    """ONNX NegativeLogLikelihoodLoss of log-probabilities logp (N, C, ...)."""
    ignore = a.get("ignore_index")
    t = target
    valid = None
    if ignore is not None:
        valid = g.emit("not_equal", [t, g.const(np.array(ignore, dtype=t.dtype))])
        t = g.emit("where", [valid, t, g.const(np.array(0, dtype=t.dtype))])
    picked = g.emit("gather", [logp, g.emit("expand_dims", [t], axis=1)], axis=1)
    loss = g.emit("negative", [g.emit("squeeze", [picked], axis=[1])])
    w = g.emit("take", [weight, t], axis=0) if weight is not None else None
    if valid is not None:
        ones = g.const(np.ones(t.shape, dtype=logp.dtype)) if w is None else w
        w = g.emit("where", [valid, ones, _scalar(g, logp, 0)])
    if w is not None:
        loss = g.emit("multiply", [loss, w])
    reduction = a.get("reduction", "mean")
    if reduction == "none":
        return loss
    if reduction == "sum":
        return g.emit("sum", [loss])
    if w is None:
        return g.emit("mean", [loss])
    return g.emit("divide", [g.emit("sum", [loss]), g.emit("sum", [w])])


def _nll_loss(g, x, a, node):
    return [_nll(g, x[0], x[1], x[2] if len(x) > 2 else None, a)]


def _softmax_ce(g, x, a, node):
    logp = g.emit("nn.log_softmax", [x[0]], axis=1)
    return [_nll(g, logp, x[1], x[2] if len(x) > 2 else None, a), logp]


def _cumsum(g, x, a, node):
    """A product with a triangular matrix of ones along the axis."""
    v = x[0]
    rank = len(v.shape)
    axis = _axis(int(np.asarray(_need_const(x[1], "CumSum's axis")).reshape(-1)[0]), rank)
    n = v.shape[axis]
    i, j = np.indices((n, n))
    rev, excl = a.get("reverse", 0), a.get("exclusive", 0)
    mask = (i > j if excl else i >= j) if rev else (i < j if excl else i <= j)
    perm = [d for d in range(rank) if d != axis] + [axis]
    back = list(np.argsort(perm))
    moved = g.emit("transpose", [v], axes=perm) if axis != rank - 1 else v
    out = g.emit("matmul", [moved if rank > 1 else g.emit("expand_dims", [moved], axis=0),
                            g.const(mask.astype(v.dtype))])
    if rank == 1:
        out = g.emit("squeeze", [out], axis=[0])
    return [g.emit("transpose", [out], axes=[int(b) for b in back]) if axis != rank - 1 else out]


def _hardmax(g, x, a, node):
    v = x[0]
    rank = len(v.shape)
    axis = _axis(int(a.get("axis", -1 if g.opset >= 13 else 1)), rank)
    if g.opset < 13:
        raise NotImplementedError("Hardmax before opset 13 (the 2-D coercion)")
    top = g.emit("argmax", [v], axis=[axis], keepdims=True)
    shape = [1] * rank
    shape[axis] = v.shape[axis]
    hot = g.emit("equal", [top, g.const(np.arange(v.shape[axis], dtype=np.int64).reshape(shape))])
    return [g.emit("cast", [hot], dtype=v.dtype)]


def _one_hot(g, x, a, node):
    idx = x[0]
    depth = int(np.asarray(_need_const(x[1], "OneHot's depth")).reshape(-1)[0])
    values = x[2]
    rank = len(idx.shape) + 1
    axis = _axis(int(a.get("axis", -1)), rank)
    if idx.dtype != "int64":
        idx = g.emit("cast", [idx], dtype="int64")
    wrapped = g.emit("where", [g.emit("less", [idx, g.const(np.array(0, np.int64))]),
                               g.emit("add", [idx, g.const(np.array(depth, np.int64))]), idx])
    shape = [1] * rank
    shape[axis] = depth
    hot = g.emit("equal", [g.emit("expand_dims", [wrapped], axis=axis),
                           g.const(np.arange(depth, dtype=np.int64).reshape(shape))])
    off = g.emit("take", [values, g.const(np.array(0, np.int64))], axis=0)
    on = g.emit("take", [values, g.const(np.array(1, np.int64))], axis=0)
    return [g.emit("where", [hot, on, off])]


_RESIZE_METHODS = {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}


def _resize(g, x, a, node):
    v = x[0]
    if len(v.shape) != 4:
        raise NotImplementedError("Resize of rank %d data: irm resizes NCHW (rank 4) only" % len(v.shape))
    if len(x) < 3:
        raise NotImplementedError("Resize before opset 11 (scales as the second input)")
    roi = _need_const(x[1], "Resize's roi") if x[1] is not None and int(np.prod(x[1].shape)) else None
    scales = _need_const(x[2], "Resize's scales") if len(x) > 2 and x[2] is not None else None
    sizes = _ints(x[3], "Resize's sizes") if len(x) > 3 and x[3] is not None else None
    if scales is not None and np.size(scales) == 0:
        scales = None
    if sizes is not None:
        out = sizes
        sh = sw = None
    else:
        scales = [float(f) for f in np.asarray(scales).reshape(-1)]
        out = [int(np.floor(d * f)) for d, f in zip(v.shape, scales)]
        sh, sw = scales[2], scales[3]
    if out[0] != v.shape[0] or out[1] != v.shape[1]:
        raise NotImplementedError("Resize of the batch or channel axes")
    extra = {}
    mode = a.get("coordinate_transformation_mode", "half_pixel")
    if mode == "tf_crop_and_resize" and roi is not None:
        r = [float(f) for f in np.asarray(roi).reshape(-1)]
        extra = {"roi_y1": r[2], "roi_x1": r[3], "roi_y2": r[6], "roi_x2": r[7]}
    return [g.emit("image.resize2d", [v], size=[out[2], out[3]], method=_RESIZE_METHODS[a.get("mode", "nearest")],
                   coordinate_transformation_mode=mode, rounding_method=a.get("nearest_mode", "round_prefer_floor"),
                   cubic_alpha=float(a.get("cubic_coeff_a", -0.75)), cubic_exclude=bool(a.get("exclude_outside", 0)),
                   extrapolation_value=float(a.get("extrapolation_value", 0.0)), scale_h=sh, scale_w=sw, **extra)]


def _eye_like(g, x, a, node):
    v = x[0]
    dtype = ONNX_TO_IRM.get(a["dtype"], None) if "dtype" in a else v.dtype
    if dtype is None:
        raise NotImplementedError("EyeLike to ONNX element type %d" % a["dtype"])
    return [g.const(np.eye(v.shape[0], v.shape[1], k=int(a.get("k", 0)), dtype=dtype))]


def _shrink(g, x, a, node):
    v = x[0]
    lambd, bias = float(a.get("lambd", 0.5)), float(a.get("bias", 0.0))
    low = g.emit("less", [v, _scalar(g, v, -lambd)])
    high = g.emit("greater", [v, _scalar(g, v, lambd)])
    inner = g.emit("where", [high, g.emit("subtract", [v, _scalar(g, v, bias)]), _scalar(g, v, 0)])
    return [g.emit("where", [low, g.emit("add", [v, _scalar(g, v, bias)]), inner])]


def _lrn(g, x, a, node):
    """x / (bias + alpha / size * sum of squares over a window of channels)^beta"""
    v = x[0]
    size = int(a["size"])
    alpha, beta, bias = float(a.get("alpha", 1e-4)), float(a.get("beta", 0.75)), float(a.get("bias", 1.0))
    rank = len(v.shape)
    sq = g.emit("multiply", [v, v])
    before, after = (size - 1) // 2, size - 1 - (size - 1) // 2
    width = [0, 0] * rank
    width[2], width[3] = before, after
    padded = g.emit("nn.pad", [sq], pad_width=width)
    c = v.shape[1]
    total = None
    for i in range(size):
        part = g.emit("strided_slice", [padded], begin=[i], end=[i + c], axes=[1])
        total = part if total is None else g.emit("add", [total, part])
    scale = g.emit("add", [_scalar(g, v, bias), g.emit("multiply", [total, _scalar(g, v, alpha / size)])])
    return [g.emit("divide", [v, g.emit("power", [scale, _scalar(g, v, beta)])])]


def _upsample(g, x, a, node):
    """Upsample (opsets 7-9): Resize with asymmetric coordinates, nearest rounding down."""
    v = x[0]
    if len(x) < 2:
        scales = a.get("scales")
    else:
        scales = [float(f) for f in np.asarray(_need_const(x[1], "Upsample's scales")).reshape(-1)]
    attrs = {"mode": a.get("mode", "nearest"), "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    return _resize(g, [v, None, g.const(np.array(scales, dtype=np.float32))], attrs, node)


def _scatter(op):
    def conv(g, x, a, node):
        extra = {"axis": int(a.get("axis", 0))} if op == "scatter_elements" else {}
        return [g.emit(op, [x[0], x[1], x[2]], reduction=a.get("reduction", "none"), **extra)]
    return conv


def _gather_nd(g, x, a, node):
    """Linear indices into data with its first K axes flattened, then take."""
    data, idx = x[0], x[1]
    if a.get("batch_dims", 0):
        raise NotImplementedError("GatherND with batch_dims")
    k = idx.shape[-1]
    dims = np.array(data.shape[:k], dtype=np.int64)
    strides = np.array([int(np.prod(dims[i + 1:], dtype=np.int64)) for i in range(k)], dtype=np.int64)
    if idx.dtype != "int64":
        idx = g.emit("cast", [idx], dtype="int64")
    idx = g.emit("where", [g.emit("less", [idx, g.const(np.array(0, np.int64))]),
                           g.emit("add", [idx, g.const(dims)]), idx])
    lin = g.emit("sum", [g.emit("multiply", [idx, g.const(strides)])], axis=[-1])
    flat = g.emit("reshape", [data], newshape=[int(np.prod(dims, dtype=np.int64))] + list(data.shape[k:]))
    return [g.emit("take", [flat, lin], axis=0)]


def _compress(g, x, a, node):
    data = x[0]
    cond = np.asarray(_need_const(x[1], "Compress's condition")).astype(bool).reshape(-1)
    if "axis" not in a:
        data = g.emit("reshape", [data], newshape=[-1])
        axis = 0
    else:
        axis = _axis(int(a["axis"]), len(data.shape))
    keep = np.nonzero(cond[:data.shape[axis]])[0].astype(np.int64)
    return [g.emit("take", [data, g.const(keep)], axis=axis)]


def _topk(g, x, a, node):
    """argsort (stable: ties keep the smaller index first), the first k, and gather."""
    v = x[0]
    k = int(np.asarray(_need_const(x[1], "TopK's k")).reshape(-1)[0])
    rank = len(v.shape)
    axis = _axis(int(a.get("axis", -1)), rank)
    order = g.emit("argsort", [v], axis=axis, is_ascend=not a.get("largest", 1), dtype="int64")
    idx = g.emit("strided_slice", [order], begin=[0], end=[k], axes=[axis])
    return [g.emit("gather", [v, idx], axis=axis), idx]


def _mod(g, x, a, node):
    return [g.emit("mod" if a.get("fmod", 0) else "floor_mod", [x[0], x[1]])]


def _pad(g, x, a, node):
    data = x[0]
    mode = a.get("mode", "constant")
    pads = _ints(x[1], "Pad's pads") if len(x) > 1 else a.get("pads", a.get("paddings"))
    value = float(a.get("value", 0.0))  # before opset 11: attributes
    if len(x) > 2 and x[2] is not None:
        value = float(np.asarray(_need_const(x[2], "Pad's constant_value")).reshape(-1)[0])
    rank = len(data.shape)
    width = []
    for i in range(rank):
        width += [pads[i], pads[i + rank]]
    if any(p < 0 for p in width):
        raise NotImplementedError("Pad with negative pads (cropping)")
    return [g.emit("nn.pad", [data], pad_width=width, pad_value=value, pad_mode=mode)]


def _shape(g, x, a, node):
    shape = np.array(x[0].shape, dtype=np.int64)
    rank = len(shape)
    start, end = int(a.get("start", 0)), a.get("end")
    start = max(0, min(rank, _axis(start, rank)))
    end = rank if end is None else max(0, min(rank, _axis(int(end), rank)))
    return [g.const(shape[start:end])]


def _size(g, x, a, node):
    return [g.const(np.array(int(np.prod(x[0].shape, dtype=np.int64)), dtype=np.int64))]


def _constant(g, x, a, node):
    if "value" in a:
        return [g.const(np.asarray(a["value"]))]
    for key, dt in (("value_float", np.float32), ("value_floats", np.float32), ("value_int", np.int64),
                    ("value_ints", np.int64)):
        if key in a:
            return [g.const(np.array(a[key], dtype=dt))]
    raise NotImplementedError("Constant with attribute %s" % ", ".join(a) or "none")


def _constant_of_shape(g, x, a, node):
    shape = _ints(x[0], "ConstantOfShape's input")
    value = np.asarray(a.get("value", np.zeros(1, dtype=np.float32))).reshape(-1)
    # TVM's full, so a value beyond max_constant_bytes is made at run time, never here
    return [g.emit("full", [g.const(value[:1].reshape(()))], shape=shape)]


def _expand(g, x, a, node):
    return [g.emit("broadcast_to", [x[0]], shape=_ints(x[1], "Expand's shape"))]


def _range(g, x, a, node):
    start, limit, delta = (np.asarray(_need_const(v, "Range's inputs")) for v in x[:3])
    if delta == 0:
        raise ValueError("Range's delta is 0")
    n = max(int(np.ceil((float(limit) - float(start)) / float(delta))), 0)
    g.check_bytes([n], start.dtype, "Range")
    return [g.const(np.arange(start, limit, delta).astype(start.dtype))]


def _reduce(op, pre=None, post=None):
    def conv(g, x, a, node):
        data = x[0]
        if pre is not None:
            data = pre(g, data)
        # ReduceSum takes axes as an input from opset 13 (the others from 18).
        axes = _ints(x[1], "%s's axes" % node.op_type) if len(x) > 1 and x[1] is not None else a.get("axes")
        if axes is not None and len(axes) == 0:
            axes = None
        if axes is None and a.get("noop_with_empty_axes", 0):
            return [data]
        out = g.emit(op, [data], axis=axes, keepdims=bool(a.get("keepdims", 1)))
        return [post(g, out) if post is not None else out]
    return conv


def _argreduce(op):
    def conv(g, x, a, node):
        return [g.emit(op, [x[0]], axis=[int(a.get("axis", 0))], keepdims=bool(a.get("keepdims", 1)),
                       select_last_index=bool(a.get("select_last_index", 0)))]
    return conv


def _square(g, v):
    return g.emit("multiply", [v, v])


def _tile(g, x, a, node):
    data, reps = x[0], _ints(x[1], "Tile's repeats")
    inter, target, final = [], [], []
    for d, r in zip(data.shape, reps):
        inter += [1, d]
        target += [r, d]
        final.append(r * d)
    v = g.emit("reshape", [data], newshape=inter) if inter else data
    return [g.emit("reshape", [g.emit("broadcast_to", [v], shape=target)], newshape=final)]


def _depth_to_space(g, x, a, node):
    v, b = x[0], int(a["blocksize"])
    n, c, h, w = v.shape
    if a.get("mode", "DCR") == "DCR":
        t = g.emit("reshape", [v], newshape=[n, b, b, c // (b * b), h, w])
        t = g.emit("transpose", [t], axes=[0, 3, 4, 1, 5, 2])
    else:
        t = g.emit("reshape", [v], newshape=[n, c // (b * b), b, b, h, w])
        t = g.emit("transpose", [t], axes=[0, 1, 4, 2, 5, 3])
    return [g.emit("reshape", [t], newshape=[n, c // (b * b), h * b, w * b])]


def _space_to_depth(g, x, a, node):
    v, b = x[0], int(a["blocksize"])
    n, c, h, w = v.shape
    t = g.emit("reshape", [v], newshape=[n, c, h // b, b, w // b, b])
    t = g.emit("transpose", [t], axes=[0, 3, 5, 1, 2, 4])
    return [g.emit("reshape", [t], newshape=[n, c * b * b, h // b, w // b])]


def _normalize(g, v, axes, eps, stats=False):
    mean = g.emit("mean", [v], axis=axes, keepdims=True)
    centered = g.emit("subtract", [v, mean])
    var = g.emit("mean", [_square(g, centered)], axis=axes, keepdims=True)
    std = g.emit("sqrt", [g.emit("add", [var, _scalar(g, v, eps)])])
    out = g.emit("divide", [centered, std])
    return (out, mean, g.emit("divide", [_scalar(g, v, 1), std])) if stats else out


def _instance_norm(g, x, a, node):
    v, scale, bias = x[0], x[1], x[2]
    rank = len(v.shape)
    out = _normalize(g, v, list(range(2, rank)), float(a.get("epsilon", 1e-5)))
    shape = [-1] + [1] * (rank - 2)
    out = g.emit("multiply", [out, g.emit("reshape", [scale], newshape=shape)])
    return [g.emit("add", [out, g.emit("reshape", [bias], newshape=shape)])]


def _layer_norm(g, x, a, node):
    v = x[0]
    rank = len(v.shape)
    axis = _axis(int(a.get("axis", -1)), rank)
    out, mean, inv_std = _normalize(g, v, list(range(axis, rank)), float(a.get("epsilon", 1e-5)), stats=True)
    out = g.emit("multiply", [out, x[1]])
    if len(x) > 2 and x[2] is not None:
        out = g.emit("add", [out, x[2]])
    return [out, mean, inv_std]


def _mvn(g, x, a, node):
    return [_normalize(g, x[0], a.get("axes", [0, 2, 3]), 1e-9)]


CONVERTERS = {
    "Add": _binary("add"), "Sub": _binary("subtract"), "Mul": _binary("multiply"), "Div": _binary("divide"),
    "Pow": _binary("power"),
    "Max": _variadic("maximum"), "Min": _variadic("minimum"), "Sum": _variadic("add"),
    "Mean": _variadic("add", mean=True),
    "Relu": _unary("nn.relu"), "Sigmoid": _unary("sigmoid"), "Tanh": _unary("tanh"), "Exp": _unary("exp"),
    "Log": _unary("log"), "Sqrt": _unary("sqrt"), "Erf": _unary("erf"), "Abs": _unary("abs"),
    "Neg": _unary("negative"), "Floor": _unary("floor"), "Ceil": _unary("ceil"), "Reciprocal": _reciprocal,
    "Clip": _clip, "LeakyRelu": _leaky_relu, "Cast": _cast, "Identity": _identity, "Dropout": _dropout,
    "Equal": _binary("equal"), "Less": _binary("less"), "Greater": _binary("greater"),
    "LessOrEqual": _binary("less_equal"), "GreaterOrEqual": _binary("greater_equal"),
    "And": _binary("logical_and"), "Or": _binary("logical_or"), "Not": _unary("logical_not"), "Where": _where,
    "Conv": _conv, "ConvTranspose": _conv_transpose, "BatchNormalization": _batch_norm,
    "MaxPool": _pool("nn.max_pool2d"), "AveragePool": _pool("nn.avg_pool2d"),
    "GlobalAveragePool": _global_pool("nn.global_avg_pool2d"),
    "GlobalMaxPool": _global_pool("nn.global_max_pool2d"),
    "Gemm": _gemm, "MatMul": _matmul, "Softmax": _softmax("nn.softmax"), "LogSoftmax": _softmax("nn.log_softmax"),
    "Reshape": _reshape, "Flatten": _flatten, "Transpose": _transpose, "Concat": _concat, "Split": _split,
    "Squeeze": _squeeze, "Unsqueeze": _unsqueeze, "Slice": _slice, "Gather": _gather, "Pad": _pad,
    "Shape": _shape, "Size": _size, "Constant": _constant, "ConstantOfShape": _constant_of_shape,
    "Expand": _expand, "Range": _range,
    "ReduceSum": _reduce("sum"), "ReduceMean": _reduce("mean"), "ReduceMax": _reduce("max"),
    "ReduceMin": _reduce("min"), "ReduceProd": _reduce("prod"),
    "ReduceL1": _reduce("sum", pre=lambda g, v: g.emit("abs", [v])),
    "ReduceL2": _reduce("sum", pre=_square, post=lambda g, v: g.emit("sqrt", [v])),
    "ReduceSumSquare": _reduce("sum", pre=_square),
    "ReduceLogSum": _reduce("sum", post=lambda g, v: g.emit("log", [v])),
    "ReduceLogSumExp": _reduce("sum", pre=lambda g, v: g.emit("exp", [v]), post=lambda g, v: g.emit("log", [v])),
    "Sin": _unary("sin"), "Cos": _unary("cos"), "Tan": _unary("tan"), "Asin": _unary("asin"),
    "Acos": _unary("acos"), "Atan": _unary("atan"), "Sinh": _unary("sinh"), "Cosh": _unary("cosh"),
    "Asinh": _unary("asinh"), "Acosh": _unary("acosh"), "Atanh": _unary("atanh"), "Round": _unary("round"),
    "Sign": _unary("sign"),
    "Elu": _elu, "Selu": _selu, "Celu": _celu, "HardSigmoid": _hard_sigmoid, "HardSwish": _hard_swish,
    "Softplus": _softplus, "Softsign": _softsign, "ThresholdedRelu": _thresholded_relu, "PRelu": _prelu,
    "Xor": _xor, "IsNaN": _isnan, "IsInf": _isinf, "Tile": _tile, "DepthToSpace": _depth_to_space,
    "SpaceToDepth": _space_to_depth, "InstanceNormalization": _instance_norm,
    "LayerNormalization": _layer_norm, "MeanVarianceNormalization": _mvn,
    "GatherElements": _gather_elements, "Mod": _mod, "Trilu": _trilu, "CastLike": _cast_like,
    "ScatterElements": _scatter("scatter_elements"), "Scatter": _scatter("scatter_elements"),
    "ScatterND": _scatter("scatter_nd"), "GatherND": _gather_nd, "Compress": _compress,
    "TopK": _topk,
    "Resize": _resize, "Upsample": _upsample, "CumSum": _cumsum, "EyeLike": _eye_like, "Shrink": _shrink, "LRN": _lrn,
    "Hardmax": _hardmax, "OneHot": _one_hot,
    "NegativeLogLikelihoodLoss": _nll_loss, "SoftmaxCrossEntropyLoss": _softmax_ce,
    "ArgMax": _argreduce("argmax"), "ArgMin": _argreduce("argmin"),
}
CONVERTERS.update(RNN_CONVERTERS)
CONVERTERS.update(RANDOM_CONVERTERS)
# The quantized ops (onnx_ops_qnn.py); a non-default domain's op types are keyed "<domain>.<op_type>".
CONVERTERS.update(CONVERTERS_QNN)
