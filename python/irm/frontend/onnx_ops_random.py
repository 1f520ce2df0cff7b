"""The ONNX frontend's converters of the random ops: RandomUniform,
RandomNormal, RandomUniformLike, RandomNormalLike and Multinomial;
onnx_ops.CONVERTERS maps their op types.

Every random value is drawn at import from a counter-based generator, so a
model gives the same values in ir.Evaluate, in generated C and on every
run: element i of a draw is splitmix64(key + (i + 1) * 0x9E3779B97F4A7C15),
where key is splitmix64 of the IEEE-754 bits of the node's `seed` as a
double (no `seed`: 0.0, so an unseeded model is deterministic too). The top
53 bits of that make a uniform double in [0, 1); a normal value is
Box-Muller's of the uniforms 2i and 2i + 1. RandomUniform(Like) and
RandomNormal(Like) become constants (their shapes are static);
Multinomial draws one uniform per sample (a constant) and compares it with
the cumulative softmax of its input in the graph (nn.softmax, matmul with a
triangular matrix, less_equal, sum), so its samples follow the input's
values."""
import struct

import numpy as np

from .onnx_ops_util import ONNX_TO_IRM

_GOLDEN = 0x9E3779B97F4A7C15
_M64 = (1 << 64) - 1


def _mix(z):
    """splitmix64's finalizer on a uint64 array (wrapping arithmetic)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _key(seed):
    bits = struct.unpack("<Q", struct.pack("<d", float(seed)))[0]
    with np.errstate(over="ignore"):
        return _mix(np.array([(bits + _GOLDEN) & _M64], dtype=np.uint64))[0]


def uniform(seed, n):
    """n uniform doubles in [0, 1) of the generator keyed by seed (see the module's doc)."""
    i = np.arange(1, n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        bits = _mix(_key(seed) + i * np.uint64(_GOLDEN))
    return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def normal(seed, n):
    """n standard normal doubles: Box-Muller of the uniforms 2i and 2i + 1."""
    u = uniform(seed, 2 * n).reshape(n, 2)
    return np.sqrt(-2.0 * np.log1p(-u[:, 0])) * np.cos(2.0 * np.pi * u[:, 1])


def _dtype(a, default):
    code = a.get("dtype")
    if code is None:
        return default
    if code not in ONNX_TO_IRM or ONNX_TO_IRM[code] not in ("float32", "float16", "float64"):
        raise NotImplementedError("random values of ONNX element type %d; irm draws float32, float16, float64" % code)
    return ONNX_TO_IRM[code]


def _draw(g, a, shape, dtype, op_type):
    shape = [int(d) for d in shape]
    g.check_bytes(shape, dtype, op_type)
    n = int(np.prod(shape, dtype=np.int64))
    seed = float(a.get("seed", 0.0))
    if op_type.startswith("RandomUniform"):
        low, high = float(a.get("low", 0.0)), float(a.get("high", 1.0))
        vals = low + (high - low) * uniform(seed, n)
    else:
        vals = float(a.get("mean", 0.0)) + float(a.get("scale", 1.0)) * normal(seed, n)
    return [g.const(vals.reshape(shape).astype(dtype))]


def _random(g, x, a, node):
    if "shape" not in a:
        raise ValueError("%s needs its 'shape' attribute" % node.op_type)
    return _draw(g, a, a["shape"], _dtype(a, "float32"), node.op_type)


def _random_like(g, x, a, node):
    like = x[0]
    dtype = _dtype(a, like.dtype if like.dtype in ("float32", "float16", "float64") else None)
    if dtype is None:
        raise NotImplementedError("%s of a %s input needs a float 'dtype' attribute" % (node.op_type, like.dtype))
    return _draw(g, a, like.shape, dtype, node.op_type)


def _multinomial(g, x, a, node):
    logits = x[0]
    if len(logits.shape) != 2:
        raise ValueError("Multinomial takes input of shape (batch, classes), got rank %d" % len(logits.shape))
    batch, classes = logits.shape
    samples = int(a.get("sample_size", 1))
    code = a.get("dtype", 6)
    if code not in (6, 7):
        raise NotImplementedError("Multinomial's dtype %d; ONNX takes int32 (6) or int64 (7)" % code)
    if samples < 1 or classes < 1:
        raise ValueError("Multinomial needs sample_size >= 1 and at least one class, got %d and %d"
                         % (samples, classes))
    ft = logits.dtype
    probs = g.emit("nn.softmax", [logits], axis=-1)
    cdf = g.emit("matmul", [probs, g.const(np.triu(np.ones((classes, classes), dtype=ft)))])  # (batch, classes)
    u = g.const(uniform(float(a.get("seed", 0.0)), batch * samples).reshape(batch, samples, 1).astype(ft))
    below = g.emit("less_equal", [g.emit("expand_dims", [cdf], axis=1), u])  # (batch, samples, classes)
    index = g.emit("sum", [g.emit("cast", [below], dtype="int32")], axis=[2])
    # rounding can leave the last cumulative value below u: the last class
    index = g.emit("minimum", [index, g.const(np.array(classes - 1, dtype=np.int32))])
    out = ONNX_TO_IRM[code]
    return [index if out == "int32" else g.emit("cast", [index], dtype=out)]


RANDOM_CONVERTERS = {"RandomUniform": _random, "RandomNormal": _random, "RandomUniformLike": _random_like,
                     "RandomNormalLike": _random_like, "Multinomial": _multinomial}
