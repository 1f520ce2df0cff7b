"""Constructors of built-in op calls with TVM's names and argument orders
(``relay.zeros``, ``relay.full_like``, ...): ``irm.op.zeros((2, 3), "float32")``
is ``Call("zeros", [], {"shape": [2, 3], "dtype": "float32"})``. A Python
number where TVM takes a fill value becomes a scalar Constant. Errors are
the ops' own (a TypeError or ValueError naming the op) when the call's
type is inferred, or at once for attributes the op's schema refuses."""
from .ir import Call, Constant, Expr, Tuple, Var


def _expr(value, dtype=None):
    """An Expr as it is; a number or a list as a Constant (of dtype when given)."""
    if isinstance(value, Expr):
        return value
    from .tensor import tensor
    return Constant(tensor(value, dtype))


def _shape(shape):
    return [int(d) for d in (shape if isinstance(shape, (list, tuple)) else [shape])]


def zeros(shape, dtype="float32"):
    """A tensor of shape and dtype, every element 0."""
    return Call("zeros", [], {"shape": _shape(shape), "dtype": dtype})


def ones(shape, dtype="float32"):
    """A tensor of shape and dtype, every element 1."""
    return Call("ones", [], {"shape": _shape(shape), "dtype": dtype})


def full(fill_value, shape=(), dtype=""):
    """A tensor of shape, every element fill_value (a scalar Expr or a
    number); dtype "" takes the fill value's."""
    attrs = {"shape": _shape(shape)}
    if dtype:
        attrs["dtype"] = dtype
    return Call("full", [_expr(fill_value, dtype or None)], attrs)


def zeros_like(data):
    """data's type, every element 0."""
    return Call("zeros_like", [data])


def ones_like(data):
    """data's type, every element 1."""
    return Call("ones_like", [data])


def full_like(data, fill_value):
    """data's type, every element fill_value (a scalar Expr or a number)."""
    return Call("full_like", [data, _expr(fill_value)])


def cast_like(data, dtype_like):
    """data cast to dtype_like's dtype."""
    return Call("cast_like", [data, dtype_like])


def reshape_like(data, shape_like):
    """data with shape_like's shape (the same element count)."""
    return Call("reshape_like", [data, shape_like])


def broadcast_to_like(data, broadcast_type):
    """data broadcast (NumPy's rules) to broadcast_type's shape."""
    return Call("broadcast_to_like", [data, broadcast_type])


def collapse_sum_like(data, collapse_type):
    """data summed down to collapse_type's shape (undoing a broadcast)."""
    return Call("collapse_sum_like", [data, collapse_type])


# An end beyond any axis: strided_slice clamps it to the axis's size.
_END = 1 << 62


def _type_of(data, what):
    if isinstance(data, Constant):
        return data.data.shape, data.data.dtype
    t = data.checked_type if not isinstance(data, Var) or data.type_annotation is None else data.type_annotation
    if t is None or not hasattr(t, "shape"):
        raise ValueError("%s needs data's shape (a typed Var or a Constant, or run InferType)" % what)
    return list(t.shape), t.dtype


def _shape_of(data, what="split: a number of sections"):
    return list(_type_of(data, what)[0])


def split(data, indices_or_sections, axis=0):
    """TVM's split: a Tuple of the pieces of data along axis, as
    strided_slice calls (so FuseOps and both executors handle them as any
    slice). indices_or_sections: an int n, n equal pieces (the axis's
    size must divide by n: ValueError otherwise), or a list of the
    indices where the pieces start after the first."""
    if isinstance(indices_or_sections, bool):
        raise TypeError("split: indices_or_sections must be an int or a list of ints, got a bool")
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        shape = _shape_of(data)
        rank = len(shape)
        if not -rank <= axis < rank:
            raise ValueError("split: axis %d is out of range for data of rank %d" % (axis, rank))
        size = shape[axis]
        if n <= 0 or size % n:
            raise ValueError("split: %d sections do not divide axis %d of size %d evenly" % (n, axis, size))
        bounds = [i * (size // n) for i in range(n)] + [size]
    else:
        starts = [int(i) for i in indices_or_sections]
        bounds = [0] + starts + [_END]
    return Tuple([Call("strided_slice", [data], {"begin": [b], "end": [e], "axes": [axis]})
                  for b, e in zip(bounds[:-1], bounds[1:])])


def take(data, indices, axis=None):
    """TVM's take: elements of data along axis at indices (an Expr, or a
    list made an int64 Constant); axis None takes from data flattened."""
    attrs = {} if axis is None else {"axis": int(axis)}
    return Call("take", [data, _expr(indices, "int64")], attrs or None)


def gather_nd(data, indices):
    """TVM's gather_nd: indices of shape (M, Y...) hold, along their first
    axis, an index into data's first M axes; the result has shape
    Y... + data.shape[M:]. Made of transpose, arithmetic and take (the
    shapes of data and indices must be known)."""
    dshape = _shape_of(data, "gather_nd")
    ishape = _shape_of(indices, "gather_nd")
    m = ishape[0]
    if not 1 <= m <= len(dshape):
        raise ValueError("gather_nd: indices index %d axes; data has rank %d" % (m, len(dshape)))
    dims = dshape[:m]
    strides = [1] * m
    for i in range(m - 2, -1, -1):
        strides[i] = strides[i + 1] * dims[i + 1]
    idx = Call("cast", [indices], {"dtype": "int64"})
    if len(ishape) > 1:  # the index tuples along the last axis
        idx = Call("transpose", [idx], {"axes": list(range(1, len(ishape))) + [0]})
    idx = Call("where", [Call("less", [idx, _expr(0, "int64")]), Call("add", [idx, _expr(dims, "int64")]), idx])
    lin = Call("sum", [Call("multiply", [idx, _expr(strides, "int64")])], {"axis": [-1]})
    total = 1
    for d in dims:
        total *= d
    flat = Call("reshape", [data], {"newshape": [total] + list(dshape[m:])})
    return Call("take", [flat, lin], {"axis": 0})


def _upsampling(data, scale_h=1, scale_w=1, layout="NCHW", method="nearest_neighbor", align_corners=False):
    """TVM's nn.upsampling: image.resize2d to round(H * scale_h),
    round(W * scale_w), asymmetric coordinates (align_corners: aligned),
    nearest rounding down (each pixel repeated, as TVM's reference);
    method nearest_neighbor, bilinear or bicubic."""
    if layout != "NCHW":
        raise ValueError("nn.upsampling: layout %r; irm takes NCHW" % (layout,))
    methods = {"nearest_neighbor": "nearest_neighbor", "bilinear": "linear", "bicubic": "cubic"}
    if method not in methods:
        raise ValueError("nn.upsampling: method %r is not one of %s" % (method, ", ".join(methods)))
    shape = _shape_of(data, "nn.upsampling")
    size = [int(round(shape[2] * scale_h)), int(round(shape[3] * scale_w))]
    return Call("image.resize2d", [data], {"size": size, "method": methods[method], "rounding_method": "floor",
                                           "coordinate_transformation_mode":
                                           "align_corners" if align_corners else "asymmetric"})


def _batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1e-5, center=True, scale=True):
    """TVM's nn.batch_norm with its three results: (the normalized data,
    moving_mean, moving_var) as a Tuple; at inference the statistics pass
    through unchanged (irm's nn.batch_norm op has the first result only)."""
    bn = Call("nn.batch_norm", [data, gamma, beta, moving_mean, moving_var],
              {"axis": int(axis), "epsilon": float(epsilon), "center": bool(center), "scale": bool(scale)})
    return Tuple([bn, moving_mean, moving_var])


class nn:  # noqa: N801 (TVM's namespace: irm.op.nn.batch_norm)
    """TVM's relay.nn constructors that irm builds from its own ops."""
    upsampling = staticmethod(_upsampling)
    batch_norm = staticmethod(_batch_norm)
