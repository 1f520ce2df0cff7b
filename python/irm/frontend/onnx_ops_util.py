"""Helpers the ONNX converters share (onnx_ops.py, onnx_ops_nn.py): dtype codes,
constant inputs read at import, axes, scalars."""
import numpy as np

ONNX_TO_IRM = {1: "float32", 10: "float16", 11: "float64", 6: "int32", 7: "int64", 3: "int8", 2: "uint8", 9: "bool"}


def _need_const(v, what):
    if v is None:
        return None
    if v.const is None:
        raise NotImplementedError("%s must be known at import (a constant, an initializer or a folded shape "
                                  "computation); a computed one is not supported" % what)
    return v.const


def _ints(v, what):
    c = _need_const(v, what)
    return None if c is None else [int(x) for x in np.asarray(c).reshape(-1)]


def _axis(axis, rank):
    return axis + rank if axis < 0 else axis


def _scalar(g, like, value):
    return g.const(np.array(value, dtype=like.dtype))
