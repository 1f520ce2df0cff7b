"""TVM's creation and _like op constructors (irm.op, issue 40): the calls
they make, their values through ir.evaluate, and their errors."""
import numpy as np
import pytest

import irm
from irm import ir, op


def _run(expr, params, *inputs):
    mod = ir.IRModule.from_expr(ir.Function(params, expr))
    outs = _as_list(ir.evaluate(mod, "main", list(inputs)))
    return [np.asarray(t.numpy() if hasattr(t, "numpy") else t) for t in outs]


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def test_creation_ops_make_tvm_calls():
    z = op.zeros((2, 3), "int8")
    assert z.op.name == "zeros" and list(z.attrs["shape"]) == [2, 3] and z.attrs["dtype"] == "int8"
    f = op.full(2.5, (2,), "float32")
    assert f.op.name == "full" and isinstance(f.args[0], ir.Constant)
    assert op.full(3, 4).attrs.get("dtype") is None  # "" takes the fill value's dtype


def test_like_ops_evaluate():
    a = ir.Var("a", ir.TensorType((2, 3), "float32"))
    b = ir.Var("b", ir.TensorType((3,), "float32"))
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.array([1, 2, 3], dtype="float32")
    out = _run(ir.Tuple([op.ones_like(a), op.full_like(b, 7.0), op.cast_like(a, op.zeros((1,), "int32")),
                         op.reshape_like(a, op.zeros((3, 2))), op.broadcast_to_like(b, a),
                         op.collapse_sum_like(a, b), op.ones((2, 3))]),
               [a, b], x, y)
    np.testing.assert_array_equal(out[0], np.ones((2, 3), "float32"))
    np.testing.assert_array_equal(out[1], np.full((3,), 7.0, "float32"))
    assert out[2].dtype == np.int32
    assert out[3].shape == (3, 2)
    np.testing.assert_array_equal(out[4], np.broadcast_to(y, (2, 3)))
    np.testing.assert_array_equal(out[5], x.sum(axis=0))


def test_like_op_errors_name_the_op():
    a = ir.Var("a", ir.TensorType((2, 3), "float32"))
    mod = ir.IRModule.from_expr(ir.Function([a], op.reshape_like(a, op.zeros((4,)))))
    with pytest.raises(TypeError, match="reshape_like: cannot reshape argument 1 .data. of shape .2, 3."):
        irm.transform.Pass.get("InferType")(mod)
    with pytest.raises(ValueError, match="shape has a negative size -1"):
        irm.transform.Pass.get("InferType")(ir.IRModule.from_expr(ir.Function([], op.zeros((2, -1)))))
