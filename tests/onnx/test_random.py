"""The ONNX frontend's random ops (onnx_ops_random.py): RandomUniform,
RandomNormal, their Like forms and Multinomial. ONNX's node tests cannot
check random values, so these check the distributions (range, mean,
deviation, Multinomial's frequencies against the softmax of its input),
determinism (the same seed gives the same values on every import, in
ir.Evaluate and in compiled C, bit for bit; no seed is seed 0.0), that
seeds differ, the counter-based generator's definition, and the errors."""
import os
import struct

import numpy as np
import pytest

import irm
from irm.frontend import from_onnx
from irm.frontend.onnx_ops_random import uniform

onnx = pytest.importorskip("onnx")
from onnx import helper, TensorProto  # noqa: E402


def _model(nodes, inputs, outputs, opset=15):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _vi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def _evaluate(model, *inputs):
    mod, params = from_onnx(model)
    names = [p.name for p in mod["main"].params][len(inputs):]
    return np.asarray(irm.ir.evaluate(mod, "main", [irm.tensor(np.asarray(x)) for x in inputs] +
                                      [params[n] for n in names]))


def _uniform_model(**attrs):
    node = helper.make_node("RandomUniform", [], ["y"], shape=[100, 100], **attrs)
    return _model([node], [], [_vi("y", [100, 100])])


def test_uniform_range_and_mean():
    y = _evaluate(_uniform_model(low=-2.0, high=3.0, seed=5.0))
    assert y.shape == (100, 100) and y.dtype == np.float32
    assert y.min() >= -2.0 and y.max() < 3.0
    assert abs(y.mean() - 0.5) < 0.05 and abs(y.std() - 5 / np.sqrt(12)) < 0.05
    # every tenth of the range holds about a tenth of the values
    counts = np.histogram(y, bins=10, range=(-2, 3))[0]
    assert counts.min() > 900 and counts.max() < 1100


def test_same_seed_same_values_other_seed_other_values_no_seed_is_zero():
    a, b = _evaluate(_uniform_model(seed=1.0)), _evaluate(_uniform_model(seed=1.0))
    np.testing.assert_array_equal(a, b)
    c = _evaluate(_uniform_model(seed=2.0))
    assert np.mean(a == c) < 0.01
    np.testing.assert_array_equal(_evaluate(_uniform_model()), _evaluate(_uniform_model(seed=0.0)))


def test_the_generator_is_splitmix64_by_element_index():
    # element i: splitmix64(key + (i + 1) * golden), key = splitmix64 of the seed's double bits, as documented
    def mix(z):
        m = (1 << 64) - 1
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        return z ^ (z >> 31)
    golden, m = 0x9E3779B97F4A7C15, (1 << 64) - 1
    key = mix((struct.unpack("<Q", struct.pack("<d", 7.0))[0] + golden) & m)
    want = [(mix((key + (i + 1) * golden) & m) >> 11) / float(1 << 53) for i in range(5)]
    np.testing.assert_array_equal(uniform(7.0, 5), want)


def test_normal_mean_and_deviation():
    node = helper.make_node("RandomNormal", [], ["y"], shape=[200, 100], mean=1.5, scale=2.0, seed=3.0,
                            dtype=TensorProto.DOUBLE)
    y = _evaluate(_model([node], [], [_vi("y", [200, 100], TensorProto.DOUBLE)]))
    assert y.dtype == np.float64
    assert abs(y.mean() - 1.5) < 0.05 and abs(y.std() - 2.0) < 0.05
    assert abs(np.mean(np.abs(y - 1.5) < 2.0) - 0.6827) < 0.02  # within one deviation


@pytest.mark.parametrize("op", ["RandomUniformLike", "RandomNormalLike"])
def test_like_takes_the_shape_and_dtype(op):
    node = helper.make_node(op, ["x"], ["y"], seed=4.0)
    y = _evaluate(_model([node], [_vi("x", [3, 5], TensorProto.DOUBLE)], [_vi("y", [3, 5], TensorProto.DOUBLE)]),
                  np.zeros((3, 5)))
    assert y.shape == (3, 5) and y.dtype == np.float64
    node = helper.make_node(op, ["x"], ["y"], seed=4.0, dtype=TensorProto.FLOAT16)
    y16 = _evaluate(_model([node], [_vi("x", [3, 5], TensorProto.INT32)], [_vi("y", [3, 5], TensorProto.FLOAT16)]),
                    np.zeros((3, 5), np.int32))
    assert y16.dtype == np.float16
    np.testing.assert_array_equal(y16, y.astype(np.float16))


def _multinomial_model(batch, classes, samples, dtype=TensorProto.INT32, seed=11.0):
    node = helper.make_node("Multinomial", ["x"], ["y"], sample_size=samples, seed=seed, dtype=dtype)
    return _model([node], [_vi("x", [batch, classes])], [_vi("y", [batch, samples], dtype)])


def test_multinomial_frequencies_follow_the_softmax():
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.0001, 0.2, 0.0999]], np.float32))
    y = _evaluate(_multinomial_model(2, 4, 4000), logits)
    assert y.shape == (2, 4000) and y.dtype == np.int32
    assert y.min() >= 0 and y.max() <= 3
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    for b in range(2):
        freq = np.bincount(y[b], minlength=4) / 4000.0
        np.testing.assert_allclose(freq, probs[b], atol=0.03)
    y64 = _evaluate(_multinomial_model(2, 4, 4000, TensorProto.INT64), logits)
    assert y64.dtype == np.int64
    np.testing.assert_array_equal(y64, y)  # the same seed, the same samples


@pytest.mark.skipif(os.environ.get("IRM_TEST_SANITIZED") == "1", reason="cc in the sanitizer build: the plain "
                    "build runs this")
def test_compiled_c_gives_the_evaluators_values_bit_for_bit(tmp_path):
    nodes = [helper.make_node("RandomUniformLike", ["x"], ["u"], seed=9.0),
             helper.make_node("Add", ["x", "u"], ["s"]),
             helper.make_node("Multinomial", ["s"], ["y"], sample_size=50, seed=9.0)]
    model = _model(nodes, [_vi("x", [3, 6])], [_vi("y", [3, 50], TensorProto.INT32)])
    x = np.random.default_rng(0).standard_normal((3, 6)).astype(np.float32)
    want = _evaluate(model, x)
    mod, params = from_onnx(model)
    result = irm.build(mod, "c", executor=irm.Executor("aot"), params=params)
    path = tmp_path / "random.so"
    result.export_library(str(path))
    got = np.asarray(irm.runtime.load(str(path)).run(x))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("node,inputs,exc,words", [
    (helper.make_node("RandomUniform", [], ["y"], shape=[2], dtype=TensorProto.INT32), [], NotImplementedError,
     "random values of ONNX element type 6; irm draws float32, float16, float64"),
    (helper.make_node("RandomNormal", [], ["y"]), [], ValueError, "RandomNormal needs its 'shape' attribute"),
    (helper.make_node("RandomUniformLike", ["x"], ["y"]), [_vi("x", [2], TensorProto.INT32)], NotImplementedError,
     "RandomUniformLike of a int32 input needs a float 'dtype' attribute"),
    (helper.make_node("Multinomial", ["x"], ["y"]), [_vi("x", [4])], ValueError,
     r"Multinomial takes input of shape \(batch, classes\), got rank 1"),
    (helper.make_node("Multinomial", ["x"], ["y"], dtype=TensorProto.FLOAT), [_vi("x", [1, 4])],
     NotImplementedError, r"Multinomial's dtype 1; ONNX takes int32 \(6\) or int64 \(7\)"),
    (helper.make_node("RandomUniform", [], ["y"], shape=[1 << 20, 1 << 10]), [], ValueError,
     "more than max_constant_bytes"),
])
def test_errors_name_the_fault(node, inputs, exc, words):
    with pytest.raises(exc, match=words):
        from_onnx(_model([node], inputs, [_vi("y", None)]))
