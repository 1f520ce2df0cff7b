"""Issue 40, TVM's behaviour: split with indices_or_sections (a Tuple of
strided slices through FuseOps and both executors), tuple-shaped outputs
(nested tuples flattened, parameters passed straight through)."""
import numpy as np
import pytest

import irm
from irm import ir, op


def _run_both(tmp_path, mod, *inputs):
    """Each executor's outputs, as lists of arrays."""
    outs = []
    for ex, rt in (("graph", "cpp"), ("aot", "crt")):
        res = irm.build(mod, "c", executor=irm.Executor(ex), runtime=rt)
        path = tmp_path / ("m_%s.so" % ex)
        res.export_library(path)
        got = irm.runtime.load(path).run(*inputs)
        outs.append([np.asarray(g) for g in (got if isinstance(got, tuple) else (got,))])
    return outs


def test_split_sections_and_indices(tmp_path):
    x = ir.Var("x", ir.TensorType((4, 6), "float32"))
    parts = op.split(x, 3, axis=1).astuple()
    pieces = op.split(x, [1, 3], axis=0)
    assert len(parts) == 3 and len(pieces) == 3
    body = ir.Tuple([parts[0], parts[2], pieces[1], pieces[2]])
    mod = ir.IRModule.from_expr(ir.Function([x], body))
    a = np.arange(24, dtype="float32").reshape(4, 6)
    want = [a[:, 0:2], a[:, 4:6], a[1:3], a[3:]]
    for got in _run_both(tmp_path, mod, a):
        assert len(got) == 4
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_split_errors():
    x = ir.Var("x", ir.TensorType((4, 6), "float32"))
    with pytest.raises(ValueError, match="4 sections do not divide axis 1 of size 6 evenly"):
        op.split(x, 4, axis=1)
    with pytest.raises(ValueError, match="axis 2 is out of range for data of rank 2"):
        op.split(x, 2, axis=2)
    with pytest.raises(ValueError, match="needs data's shape"):
        op.split(ir.Var("y"), 2)


def test_nested_tuple_outputs_flatten_and_params_pass_through(tmp_path):
    a = ir.Var("a", ir.TensorType((2, 3), "float32"))
    b = ir.Var("b", ir.TensorType((3,), "float32"))
    s = ir.Call("add", [a, b])
    mod = ir.IRModule.from_expr(ir.Function([a, b], ir.Tuple([ir.Tuple([s, b]), a, s])))
    x = np.arange(6, dtype="float32").reshape(2, 3)
    y = np.array([1, 2, 3], dtype="float32")
    for got in _run_both(tmp_path, mod, x, y):
        assert [g.shape for g in got] == [(2, 3), (3,), (2, 3), (2, 3)]
        np.testing.assert_array_equal(got[0], x + y)
        np.testing.assert_array_equal(got[1], y)
        np.testing.assert_array_equal(got[2], x)
        np.testing.assert_array_equal(got[3], x + y)


def test_take_without_axis_flattens(tmp_path):
    x = ir.Var("x", ir.TensorType((2, 3), "float32"))
    mod = ir.IRModule.from_expr(ir.Function([x], ir.Tuple([op.take(x, [5, -1, 1]), op.take(x, [1], axis=1)])))
    a = np.arange(6, dtype="float32").reshape(2, 3)
    for got in _run_both(tmp_path, mod, a):
        np.testing.assert_array_equal(got[0], np.take(a, [5, -1, 1]))
        np.testing.assert_array_equal(got[1], np.take(a, [1], axis=1))


def test_gather_nd_upsampling_and_batch_norm_three_results(tmp_path):
    x = ir.Var("x", ir.TensorType((2, 3, 2), "float32"))
    i = ir.Var("i", ir.TensorType((2, 2), "int32"))
    img = ir.Var("img", ir.TensorType((1, 2, 2, 3), "float32"))
    g, b = ir.Var("g", ir.TensorType((2,), "float32")), ir.Var("b", ir.TensorType((2,), "float32"))
    mean, var = ir.Var("m", ir.TensorType((2,), "float32")), ir.Var("v", ir.TensorType((2,), "float32"))
    bn = op.nn.batch_norm(img, g, b, mean, var, epsilon=1e-3)
    body = ir.Tuple([op.gather_nd(x, i), op.nn.upsampling(img, 2, 3), bn[0], bn[1], bn[2]])
    mod = ir.IRModule.from_expr(ir.Function([x, i, img, g, b, mean, var], body))
    a = np.arange(12, dtype="float32").reshape(2, 3, 2)
    ix = np.array([[1, -2], [2, 0]], dtype="int32")  # (M=2, Y=2): points (1, 2) and (-2, 0)
    im = np.arange(12, dtype="float32").reshape(1, 2, 2, 3)
    gv, bv = np.array([1, 2], "float32"), np.array([0, 1], "float32")
    mv, vv = np.array([1, 2], "float32"), np.array([4, 9], "float32")
    for got in _run_both(tmp_path, mod, a, ix, im, gv, bv, mv, vv):
        np.testing.assert_array_equal(got[0], np.stack([a[1, 2], a[0, 0]]))
        np.testing.assert_array_equal(got[1], im.repeat(2, axis=2).repeat(3, axis=3))
        want = (im - mv[None, :, None, None]) / np.sqrt(vv[None, :, None, None] + 1e-3) * gv[None, :, None, None] \
            + bv[None, :, None, None]
        np.testing.assert_allclose(got[2], want, rtol=1e-5)
        np.testing.assert_array_equal(got[3], mv)
        np.testing.assert_array_equal(got[4], vv)
    with pytest.raises(ValueError, match="indices index 4 axes; data has rank 3"):
        op.gather_nd(x, ir.Var("j", ir.TensorType((4, 1), "int32")))
    with pytest.raises(ValueError, match="method 'trilinear' is not one of"):
        op.nn.upsampling(img, 2, 2, method="trilinear")


def test_graph_plan_reshape_is_a_nop_sharing_its_input_storage(tmp_path):
    """TVM's __nop: a reshape (alone in its fused function) whose input dies
    there shares the input's storage and runs nothing; one whose input lives
    on gets its own storage."""
    import json
    text = ('#[version = "irm-0.1"]\n'
            'def @main(%a: Tensor[(2, 6), float32]) {\n'
            '  %0 = nn.softmax(%a); %1 = reshape(%0, newshape=[3, 4]); %2 = nn.softmax(%1);\n'
            '  %3 = reshape(%2, newshape=[12]); %4 = nn.softmax(%3); %5 = reshape(%4, newshape=[4, 3]);\n'
            '  %6 = (%5, %4); %6\n}\n')
    res = irm.build(ir.parse(text), "c", executor=irm.Executor("graph"), runtime="cpp", mod_name="m")
    raw = res["artifacts"]["m.json"]
    g = json.loads(raw if isinstance(raw, str) else bytes(raw).decode())
    funcs = [n["attrs"]["func_name"] for n in g["nodes"] if n["op"] == "tvm_op"]
    assert funcs[1] == funcs[3] == "__nop" and "__nop" not in (funcs[0], funcs[2], funcs[4])
    sid = g["attrs"]["storage_id"][1]
    assert sid[1] == sid[2] and sid[3] == sid[4]  # softmax -> reshape: one storage
    assert funcs[5] != "__nop"  # %4 is an output too: the last reshape copies
    res.export_library(tmp_path / "m.so")
    a = (np.arange(12, dtype="float32") / 10).reshape(2, 6)
    out = irm.runtime.load(tmp_path / "m.so").run(a)

    def sm(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    want = sm(sm(sm(a).reshape(3, 4)).reshape(12))
    np.testing.assert_allclose(np.asarray(out[1]), want, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out[0]), want.reshape(4, 3), rtol=1e-6)


def test_creation_ops_left_for_run_time_run_in_both_executors(tmp_path):
    """zeros/ones (no inputs) and full not folded (FoldConstant.max_bytes)
    become kernels of their own in both executors."""
    a = ir.Var("a", ir.TensorType((4, 8), "float32"))
    body = ir.Tuple([op.ones((4, 8)), op.full(2.5, (3, 8), "float32"), op.collapse_sum_like(a, op.zeros((8,)))])
    mod = ir.IRModule.from_expr(ir.Function([a], body))
    x = np.arange(32, dtype="float32").reshape(4, 8)
    with irm.transform.PassContext(config={"FoldConstant.max_bytes": 16}):
        for got in _run_both(tmp_path, mod, x):
            np.testing.assert_array_equal(got[0], np.ones((4, 8), "float32"))
            np.testing.assert_array_equal(got[1], np.full((3, 8), 2.5, "float32"))
            np.testing.assert_array_equal(got[2], x.sum(axis=0))
