"""irm.quantize (docs/quantization.md): static post-training quantization
of ir.example_model's CNN and of a small residual ONNX CNN. The QDQ
structure, FakeQuantizationToInteger converting every region, the built
int8 network equal to the evaluator, the error against the float model,
percentile against min/max, the ONNX QDQ export read back by from_onnx,
and the errors."""
import re

import numpy as np
import pytest

import irm
from irm import ir
from irm.transform import Pass, Sequential

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper  # noqa: E402

from irm.frontend import from_onnx  # noqa: E402
from irm.quantize_onnx import export_qdq_onnx  # noqa: E402
from test_frontend import _model, _vi  # noqa: E402

SHAPE = (1, 3, 32, 32)


def _inputs(n, seed, shape=SHAPE, name="data"):
    rng = np.random.default_rng(seed)
    return [{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(n)]


def _ops(mod):
    """op name -> number of calls in mod's text."""
    counts = {}
    for op in re.findall(r"= ([a-z_.0-9]+)\(", mod.text(elide_larger_than=1)):
        counts[op] = counts.get(op, 0) + 1
    return counts


def _lower(mod):
    seq = Sequential([Pass.get(n) for n in ("InferType", "BindParams", "FakeQuantizationToInteger")])
    out = seq(mod)
    return out.without_attr("params") if out.get_attr("params") is not None else out


def _run(mod, params, x):
    names = [p.name for p in mod["main"].params][1:]
    return np.asarray(ir.evaluate(mod, "main", [irm.tensor(x)] + [params[n] for n in names]))


@pytest.fixture(scope="module")
def cnn():
    mod = ir.example_model()
    qmod, qparams, table = irm.quantize.quantize(mod, calibration=_inputs(8, 0))
    return mod, qmod, qparams, table


def test_qdq_structure(cnn):
    mod, qmod, qparams, table = cnn
    # the data input, conv1's relu, the max pool, conv2's relu, the dense's input and its biased output
    acts = {k: v for k, v in table.items() if v["kind"] == "activation"}
    assert sorted(v["op"] for v in acts.values()) == ["input", "nn.bias_add", "nn.max_pool2d", "nn.relu", "nn.relu",
                                                      "reshape"]
    ops = _ops(qmod)
    assert ops["qnn.quantize"] == 6 and ops["qnn.dequantize"] == 6 + 3 + 3
    for name in ("conv1_weight", "conv2_weight", "dense_weight"):
        w, t = np.asarray(qparams[name]), table[name]
        assert w.dtype == np.int8 and t["axis"] == 0 and t["scale"].shape == (w.shape[0],)
        assert np.abs(w).max() == 127 and w.min() >= -127 and not t["zero_point"].any()
        # symmetric per channel: each channel reaches 127 in magnitude
        assert (np.abs(w.reshape(w.shape[0], -1)).max(axis=1) == 127).all()
    x_scale = {"conv1_bias": acts["data"]["scale"], "conv2_bias": acts["nn.max_pool2d:6"]["scale"],
               "dense_bias": acts["reshape:13"]["scale"]}
    for name, sx in x_scale.items():
        assert np.asarray(qparams[name]).dtype == np.int32
        w = name.replace("bias", "weight")
        np.testing.assert_array_equal(table[name]["scale"], np.float32(sx) * table[w]["scale"])
    # min/max ranges hold 0; a relu's output starts at 0: zero point 0 (uint8)
    for v in acts.values():
        assert v["dtype"] == "uint8" and v["zero_point"].dtype == np.uint8
    assert int(acts["nn.relu:5"]["zero_point"]) == 0
    # the max pool keeps its input's scale and zero point (its region converts only so)
    assert acts["nn.max_pool2d:6"]["scale"] == acts["nn.relu:5"]["scale"]
    assert qmod.get_attr("params")["conv1_weight"].dtype == "int8"


def test_fake_quantization_to_integer_converts_every_region(cnn):
    _, qmod, _, _ = cnn
    ops = _ops(_lower(qmod))
    assert ops.get("qnn.conv2d") == 2 and ops.get("qnn.dense") == 1 and ops.get("qnn.requantize") == 3
    assert "nn.conv2d" not in ops and "nn.dense" not in ops
    # left in float: global average pooling and the softmax, between one dequantize and one quantize each
    assert ops.get("qnn.quantize") == 2 and ops.get("qnn.dequantize") == 2


def _logits(mod):
    """mod without its final softmax (float in both the compiled code and the evaluator, which may round the
    exponentials differently): the logits, still quantized in the QDQ module."""
    f = mod["main"]
    assert f.body.op.name == "nn.softmax"
    return mod.with_function("main", ir.Function(f.params, f.body.args[0]))


def test_built_int8_equals_the_evaluator_and_stays_near_float(cnn, tmp_path):
    mod, qmod, qparams, _ = cnn
    low = _lower(_logits(qmod))
    result = irm.build(low, "c", executor=irm.Executor("aot"))
    path = tmp_path / "int8.so"
    result.export_library(str(path))
    lib = irm.runtime.load(str(path))
    fmod, params = _logits(mod), mod.get_attr("params")
    agree, worst = 0, 0.0
    for feed in _inputs(20, 7):
        x = feed["data"]
        got = np.asarray(lib.run(x))
        np.testing.assert_array_equal(got, np.asarray(ir.evaluate(low, "main", [irm.tensor(x)])))
        ref = _run(fmod, params, x)
        agree += int(np.argmax(got) == np.argmax(ref))
        worst = max(worst, float(np.abs(got - ref).max() / np.abs(ref).max()))
    # the int8 logits within 6% of the largest float logit (measured 4.4%: uint8 steps over 4 quantized
    # layers); top-1 the same on 18 of 20 inputs (measured 20)
    assert worst <= 0.06 and agree >= 18


def test_percentile_narrows_the_ranges_and_int8_centres_them():
    mod = ir.example_model()
    cal = _inputs(4, 1)
    _, _, mm = irm.quantize.quantize(mod, calibration=cal)
    _, _, pc = irm.quantize.quantize(mod, calibration=cal, activations="percentile", percentile=99.0)
    acts = [k for k, v in mm.items() if v["kind"] == "activation"]
    assert all(pc[k]["scale"] <= mm[k]["scale"] for k in acts)
    assert pc["data"]["scale"] < 0.8 * mm["data"]["scale"]  # a normal input's tails are clipped
    for k in mm:  # the weights do not depend on the calibration
        if mm[k]["kind"] == "weight":
            np.testing.assert_array_equal(mm[k]["scale"], pc[k]["scale"])
    _, _, i8 = irm.quantize.quantize(mod, calibration=cal, dtype="int8")
    assert i8["data"]["zero_point"].dtype == np.int8 and abs(int(i8["data"]["zero_point"])) <= 10
    assert int(i8["nn.relu:5"]["zero_point"]) == -128


def test_relu6_region_takes_the_clip_output_parameters():
    rng = np.random.default_rng(8)
    x = ir.Var("data", ir.TensorType(SHAPE))
    w = ir.Constant(irm.tensor((rng.standard_normal((4, 3, 3, 3)) * 0.5).astype(np.float32)))
    b = ir.Constant(irm.tensor(rng.standard_normal(4).astype(np.float32)))
    y = ir.Call("nn.bias_add", [ir.Call("nn.conv2d", [x, w], {"padding": [1, 1]}), b])
    mod = ir.IRModule.from_expr(ir.Call("clip", [y], {"a_min": 0.0, "a_max": 6.0}))
    qmod, _, table = irm.quantize.quantize(mod, calibration=_inputs(4, 9))
    acts = {v["op"]: v for v in table.values() if v["kind"] == "activation"}
    assert acts["nn.bias_add"]["scale"] == acts["clip"]["scale"]
    assert acts["nn.bias_add"]["zero_point"] == acts["clip"]["zero_point"] == 0
    assert table["nn.bias_add:4"]["op"] == "nn.bias_add"
    low = _lower(qmod)
    assert _ops(low).get("qnn.conv2d") == 1 and "nn.conv2d" not in _ops(low)
    feed = _inputs(1, 10)[0]["data"]
    # the clip is exact on the saturated values: the QDQ module and the integer one agree exactly
    np.testing.assert_array_equal(np.asarray(ir.evaluate(low, "main", [irm.tensor(feed)])),
                                  np.asarray(ir.evaluate(qmod, "main", [irm.tensor(feed)])))


def _residual_onnx():
    """x (1, 3, 16, 16): conv relu, max pool, conv + the pool (add) relu, global pool, flatten, gemm."""
    rng = np.random.default_rng(4)
    f = lambda *s: (rng.standard_normal(s) * 0.3).astype(np.float32)  # noqa: E731
    init = [numpy_helper.from_array(v, k) for k, v in
            {"w1": f(8, 3, 3, 3), "b1": f(8), "w2": f(8, 8, 3, 3), "b2": f(8), "fc": f(5, 8), "fcb": f(5)}.items()]
    n = helper.make_node
    nodes = [n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]), n("Relu", ["c1"], ["r1"]),
             n("MaxPool", ["r1"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             n("Conv", ["p", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]), n("Add", ["c2", "p"], ["s"]),
             n("Relu", ["s"], ["r2"]), n("GlobalAveragePool", ["r2"], ["g"]), n("Flatten", ["g"], ["fl"]),
             n("Gemm", ["fl", "fc", "fcb"], ["y"], transB=1)]
    return _model(nodes, [_vi("x", [1, 3, 16, 16])], [_vi("y", [1, 5])], init)


def test_onnx_qdq_export_reads_back_as_the_same_model(tmp_path):
    model = _residual_onnx()
    mod, params = from_onnx(model)
    cal = _inputs(4, 2, (1, 3, 16, 16), "x")
    qmod, qparams, table = irm.quantize.quantize(mod, params, cal)
    path = tmp_path / "qdq.onnx"
    qonnx = irm.quantize.export_qdq_onnx(model, table, path=path)
    onnx.checker.check_model(qonnx)
    kinds = [nd.op_type for nd in qonnx.graph.node]
    acts = sum(v["kind"] == "activation" for v in table.values())
    assert kinds.count("QuantizeLinear") == acts and kinds.count("DequantizeLinear") == len(table)
    # a per-axis weight, its int8 values those of irm's QDQ module
    w = {t.name: numpy_helper.to_array(t) for t in qonnx.graph.initializer}
    np.testing.assert_array_equal(w["w2_quantized"], np.asarray(qparams["w2"]))
    np.testing.assert_array_equal(w["fcb_quantized"], np.asarray(qparams["fcb"]))
    back, bparams = from_onnx(str(path))
    lowered = _lower(back)
    ops = _ops(lowered)
    assert ops.get("qnn.conv2d") == 2 and ops.get("qnn.add") == 1 and ops.get("qnn.dense") == 1
    for feed in _inputs(3, 5, (1, 3, 16, 16), "x"):
        x = feed["x"]
        np.testing.assert_array_equal(_run(back, bparams, x), _run(qmod, qparams, x))
        np.testing.assert_array_equal(np.asarray(ir.evaluate(lowered, "main", [irm.tensor(x)])),
                                      np.asarray(ir.evaluate(_lower(qmod), "main", [irm.tensor(x)])))


def test_errors_name_the_fault_and_change_nothing(cnn):
    mod = ir.example_model()
    before = mod.text()
    with pytest.raises(ValueError, match="no calibration inputs"):
        irm.quantize.quantize(mod, calibration=[])
    with pytest.raises(ValueError, match="'dta'.*did you mean 'data'"):
        irm.quantize.quantize(mod, calibration=[{"dta": np.zeros(SHAPE, np.float32)}])
    with pytest.raises(ValueError, match="lacks input 'data'"):
        irm.quantize.quantize(mod, calibration=[{}])
    with pytest.raises(ValueError, match=r"\['data'\] has shape \(3, 32, 32\); main takes \(1, 3, 32, 32\)"):
        irm.quantize.quantize(mod, calibration=[{"data": np.zeros(SHAPE[1:], np.float32)}])
    with pytest.raises(TypeError, match="not a .input name: array. dict"):
        irm.quantize.quantize(mod, calibration=[np.zeros(SHAPE)])
    with pytest.raises(ValueError, match="did you mean 'percentile'"):
        irm.quantize.quantize(mod, calibration=_inputs(1, 0), activations="percentil")
    with pytest.raises(ValueError, match="dtype='int16'.*uint8, int8"):
        irm.quantize.quantize(mod, calibration=_inputs(1, 0), dtype="int16")
    with pytest.raises(ValueError, match=r"percentile=20.*\(50, 100\]"):
        irm.quantize.quantize(mod, calibration=_inputs(1, 0), activations="percentile", percentile=20)
    assert mod.text() == before
    x = ir.Var("data", ir.TensorType(SHAPE))
    v = ir.Var("v")
    let = ir.IRModule.from_expr(ir.Let(v, ir.Call("nn.relu", [x]), v))
    with pytest.raises(TypeError, match="main holds a Let"):
        irm.quantize.quantize(let, calibration=_inputs(1, 0))
    _, qmod, _, table = cnn
    with pytest.raises(TypeError, match="parameter 'conv1_weight' is int8; quantize takes a float32 module"):
        irm.quantize.quantize(qmod, calibration=_inputs(1, 0))
    with pytest.raises(ValueError, match="table was not made from this model"):
        export_qdq_onnx(_residual_onnx(), {k: v for k, v in table.items() if ":" in k})
    old = _residual_onnx()
    old.opset_import[0].version = 11
    omod, oparams = from_onnx(old)
    _, _, otable = irm.quantize.quantize(omod, oparams, _inputs(1, 2, (1, 3, 16, 16), "x"))
    with pytest.raises(ValueError, match="per-axis weights need opset 13; the model's is 11"):
        export_qdq_onnx(old, otable)


def test_compute_dtype_float32_reaches_the_build_through_the_pass_context(tmp_path):
    """FakeQuantizationToInteger.compute_dtype (docs/passes.md) as a PassContext option of irm.build, whose
    default pipeline converts the QDQ model: every requantize and the qnn.add compute as ONNX Runtime does,
    and the library equals the evaluator of the module the pass makes with the option."""
    model = _residual_onnx()
    mod, params = from_onnx(model)
    _, _, table = irm.quantize.quantize(mod, params, _inputs(4, 2, (1, 3, 16, 16), "x"))
    back, bparams = from_onnx(irm.quantize.export_qdq_onnx(model, table))
    key = "FakeQuantizationToInteger.compute_dtype"
    with irm.transform.PassContext(config={key: "float32"}):
        result = irm.build(back, "c", executor=irm.Executor("aot"), params=bparams)
    text = result.module.text(elide_larger_than=1)
    assert text.count('compute_dtype="float32"') >= 3  # two requantizes (or their fused forms) and the add
    path = tmp_path / "f32.so"
    result.export_library(str(path))
    lib = irm.runtime.load(str(path))
    seq = Sequential([Pass.get("InferType"), Pass.get("BindParams"),
                      Pass.get("FakeQuantizationToInteger", {"compute_dtype": "float32"})])
    low = seq(back.with_attr("params", bparams)).without_attr("params")
    assert 'compute_dtype="float32"' in low.text(elide_larger_than=1)
    assert 'compute_dtype' not in _lower(back.with_attr("params", bparams)).text(elide_larger_than=1)
    for feed in _inputs(3, 9, (1, 3, 16, 16), "x"):
        x = feed["x"]
        np.testing.assert_array_equal(np.asarray(lib.run(x)), np.asarray(ir.evaluate(low, "main", [irm.tensor(x)])))
    with pytest.raises(ValueError, match="compute_dtype 'float16' is not supported"):
        Sequential([Pass.get("FakeQuantizationToInteger", {"compute_dtype": "float16"})])(low)
