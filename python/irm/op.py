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


def _shape_of(data):
    t = data.checked_type if not isinstance(data, Var) or data.type_annotation is None else data.type_annotation
    if t is None or not hasattr(t, "shape"):
        raise ValueError("split: a number of sections needs data's shape (a typed Var, or run InferType)")
    return list(t.shape)


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
