"""AlterOpLayout's quantized rules (passes/dataflow/alter_qnn_layout.c,
docs/passes.md) and the blocked int8 conv they make,
qnn.contrib_conv2d_NCHWc (docs/kernels.md "int8"): where the rewrite
happens and where it must not, the packed weights folded at build, the
chain conv -> add -> requantize -> maximum / clip in one op, and the
results bit for bit equal to ir.Evaluate of the module before the pass,
by the evaluator and by aot and graph builds."""
import numpy as np
import pytest

import irm
from irm import ir
from irm.transform import Pass, Sequential

TARGET = "c -mcpu=native"


def _c(dt, a):
    a = np.asarray(a)
    vals = ", ".join(str(int(v)) if dt != "float32" else repr(float(v)) for v in a.reshape(-1))
    return "const(%s, [%s], [%s])" % (dt, ", ".join(str(d) for d in a.shape), vals)


def _w(rng, o, i, k, dt="int8"):
    return rng.integers(-60, 61, (o, i, k, k)) + (128 if dt == "uint8" else 0)


def _net(dt, xz, oz, groups=1):
    """A residual int8 block: a stem conv (3 channels) with per-channel
    scales and weight zero points, bias, requantize, ReLU (maximum) and a
    max pool; a conv with per-tensor parameters, requantize and a clip; a
    residual qnn.add, a maximum; a 1x1 conv left in int32. 20 channels: a
    block of 16 and a part."""
    rng = np.random.default_rng(5)
    wdt = "uint8" if dt == "int8" else "int8"  # int8 data by a uint8 weight, and the other way round
    wz1 = rng.integers(-50, 51, 20) + (128 if wdt == "uint8" else 0)
    lo, hi = (-128, 127) if dt == "int8" else (0, 255)
    s = lambda v: _c("float32", [v])  # noqa: E731
    z = lambda v: _c(dt, [v])  # noqa: E731
    return (
        "def @main(%%x: Tensor[(1, 3, 11, 13), %(dt)s]) {\n"
        "  %%0 = qnn.conv2d(%%x, %(w1)s, %(xz)s, %(wz1)s, %(s1)s, %(ws1)s, padding=[1, 1], strides=[1, 1]);\n"
        "  %%1 = add(%%0, %(b1)s);\n"
        "  %%2 = qnn.requantize(%%1, %(rs1)s, %(i0)s, %(s2)s, %(oz)s, axis=1, out_dtype=\"%(dt)s\");\n"
        "  %%3 = maximum(%%2, %(oz)s);\n"
        "  %%4 = nn.max_pool2d(%%3, pool_size=[2, 2], strides=[2, 2], padding=[0, 0, 1, 1]);\n"
        "  %%5 = qnn.conv2d(%%4, %(w2)s, %(oz)s, %(wz2)s, %(s2)s, %(s3)s, padding=[1, 1], groups=%(g)d);\n"
        "  %%6 = add(%%5, %(b2)s);\n"
        "  %%7 = qnn.requantize(%%6, %(s4)s, %(i0)s, %(s5)s, %(hi)s, out_dtype=\"%(dt)s\");\n"
        "  %%8 = clip(%%7, a_min=%(cl)d, a_max=%(ch)d);\n"
        "  %%9 = qnn.add(%%8, %%4, %(s5)s, %(hi)s, %(s2)s, %(oz)s, %(s6)s, %(lo)s);\n"
        "  %%10 = maximum(%%9, %(lo)s);\n"
        "  %%11 = qnn.conv2d(%%10, %(w3)s, %(lo)s, %(wz3)s, %(s6)s, %(s3)s);\n"
        "  %%11\n}\n"
        % dict(dt=dt, w1=_c(wdt, _w(rng, 20, 3, 3, wdt)), xz=z(xz), wz1=_c(wdt, wz1), s1=s(0.02),
               ws1=_c("float32", rng.uniform(0.005, 0.02, 20)), b1=_c("int32", rng.integers(-900, 900, (20, 1, 1))),
               rs1=_c("float32", rng.uniform(1e-4, 4e-4, 20)), i0=_c("int32", [0]), s2=s(0.05), oz=z(oz),
               w2=_c(wdt, _w(rng, 20, 20 // groups, 3, wdt)), wz2=_c(wdt, [128 if wdt == "uint8" else 0]),
               s3=s(0.01), b2=_c("int32", rng.integers(-500, 500, (1, 20, 1, 1))), s4=s(5e-4), s5=s(0.06),
               hi=z(hi), cl=lo + 3, ch=hi - 15, s6=s(0.07), lo=z(lo), w3=_c(wdt, _w(rng, 5, 20, 1, wdt)),
               wz3=_c(wdt, [128 if wdt == "uint8" else 0]), g=groups))


def _module(text):
    return Pass.get("InferType")(ir.parse('#[version = "irm-0.1"]\n' + text))


def _altered(mod):
    seq = Sequential([Pass.get("AlterOpLayout", {"block": 16}), Pass.get("InferType"), Pass.get("FoldConstant")])
    return seq(mod)


def _input(dt, seed=1):
    info = np.iinfo(dt)
    return np.random.default_rng(seed).integers(info.min, info.max + 1, (1, 3, 11, 13)).astype(dt)


def _eval(mod, x):
    return np.asarray(ir.evaluate(mod, "main", [irm.tensor(x)]))


CASES = [("uint8", 0, 0), ("uint8", 255, 128), ("int8", -128, 127), ("int8", 127, -128)]


@pytest.mark.parametrize("dt,xz,oz", CASES)
def test_the_chain_runs_blocked_and_keeps_the_results(dt, xz, oz):
    mod = _module(_net(dt, xz, oz))
    out = _altered(mod)
    text = out.text(elide_larger_than=1)
    assert "qnn.conv2d(" not in text and "pack_weight" not in text and "weight_sum" not in text
    assert text.count("qnn.contrib_conv2d_NCHWc(") == 3
    # the requantize, ReLU and clip went into the convs; the max pool, qnn.add and maximum run blocked
    assert "qnn.requantize(" not in text and "clip(" not in text and 'layout="NCHW16c"' in text
    assert text.count("layout_transform(") == 2  # the input and the int32 result
    for seed in (1, 2):
        x = _input(dt, seed)
        np.testing.assert_array_equal(_eval(out, x), _eval(mod, x))


def test_what_stays_as_it_is():
    # groups 2: the second conv stays, the first is blocked
    text = _altered(_module(_net("uint8", 0, 0, groups=2))).text(elide_larger_than=1)
    assert text.count("qnn.conv2d(") == 1 and text.count("qnn.contrib_conv2d_NCHWc(") == 2
    # a weight that is no Constant, and one whose w - wz leaves int8 (127 - (-128))
    w, z, s1 = _c("int8", np.full((4, 3, 1, 1), 127)), _c("uint8", [3]), _c("float32", [1.0])
    for weight, wz in (("%w", _c("int8", [0])), (w, _c("int8", [-128]))):
        src = ("def @main(%%x: Tensor[(1, 3, 4, 4), uint8], %%w: Tensor[(4, 3, 1, 1), int8]) {\n"
               "  %%0 = qnn.conv2d(%%x, %s, %s, %s, %s, %s);\n  %%0\n}\n" % (weight, z, wz, s1, s1))
        got = _altered(_module(src)).text(elide_larger_than=1)
        assert "qnn.conv2d(" in got and "NCHWc" not in got and "layout_transform" not in got


@pytest.mark.parametrize("executor,runtime,case", [("aot", "crt", CASES[1]), ("graph", "cpp", CASES[2])])
def test_built_equals_the_evaluator(tmp_path, executor, runtime, case):
    dt, xz, oz = case
    mod = _module(_net(dt, xz, oz))
    result = irm.build(mod, TARGET, executor=irm.Executor(executor), runtime=runtime)
    assert "qnn.contrib_conv2d_NCHWc(" in result.module.text(elide_larger_than=1)
    result.export_library(str(tmp_path / "q.so"))
    lib = irm.runtime.load(str(tmp_path / "q.so"))
    for seed in (1, 2):
        x = _input(dt, seed)
        np.testing.assert_array_equal(np.asarray(lib.run(x)), _eval(mod, x))


@pytest.mark.parametrize("dt,xz,oz", [CASES[1], CASES[2]])
def test_a_depthwise_conv_runs_blocked_too(dt, xz, oz):
    # groups 20 (one filter a channel): the second conv folds its chain into a depthwise blocked conv
    mod = _module(_net(dt, xz, oz, groups=20))
    out = _altered(mod)
    text = out.text(elide_larger_than=1)
    assert "qnn.conv2d(" not in text and "pack_weight" not in text and "weight_sum" not in text
    assert text.count("qnn.contrib_conv2d_NCHWc(") == 3 and "groups=20" in text
    assert "qnn.requantize(" not in text and text.count("layout_transform(") == 2
    for seed in (1, 2):
        x = _input(dt, seed)
        np.testing.assert_array_equal(_eval(out, x), _eval(mod, x))


@pytest.mark.parametrize("executor,runtime,case", [("aot", "crt", CASES[1]), ("graph", "cpp", CASES[2])])
def test_a_built_depthwise_conv_equals_the_evaluator(tmp_path, executor, runtime, case):
    dt, xz, oz = case
    mod = _module(_net(dt, xz, oz, groups=20))
    result = irm.build(mod, TARGET, executor=irm.Executor(executor), runtime=runtime)
    built = result.module.text(elide_larger_than=1)
    assert "groups=20" in built and "qnn.conv2d(" not in built
    result.export_library(str(tmp_path / "q.so"))
    lib = irm.runtime.load(str(tmp_path / "q.so"))
    for seed in (1, 2):
        x = _input(dt, seed)
        np.testing.assert_array_equal(np.asarray(lib.run(x)), _eval(mod, x))


def test_the_ops_errors_name_the_fault():
    def conv(zp, kernel=(1, 1, 1, 1, 16, 4), out="uint8"):
        return _module(
            "def @main(%%x: Tensor[(1, 1, 4, 4, 16), uint8]) {\n"
            "  %%0 = qnn.contrib_conv2d_NCHWc(%%x, %s, %s, %s, %s, %s, %s, %s, %s, channels=16, "
            "out_dtype=\"%s\", clip_min=0, clip_max=200);\n  %%0\n}\n"
            % (_c("int8", np.ones(kernel, np.int8)), _c("int32", np.full(16, 4)), _c("int32", [zp]), _c("int32", [7]),
               _c("float32", [0.5]), _c("int32", [0]), _c("float32", [1.0]), _c("int32", [3]), out))

    x = np.arange(256, dtype=np.uint8).reshape(1, 1, 4, 4, 16)
    got = _eval(conv(2), x)  # lanes 0-3 of each pixel: (sum x - 2 * 4 + 7) / 2 + 3 rounded, at most 200
    want = np.clip(np.rint((x[..., :4].astype(np.int64).sum(-1, keepdims=True) - 8 + 7) * 0.5 + 3), 0, 200)
    np.testing.assert_array_equal(got, np.broadcast_to(want, got.shape))
    with pytest.raises(Exception, match="data_zero_point 300 is outside the range of the data's dtype uint8"):
        _eval(conv(300), x)
    with pytest.raises(Exception, match="do not fit 16 channels in blocks of 16"):
        conv(0, kernel=(2, 1, 1, 1, 16, 4))
    with pytest.raises(Exception, match="out_dtype float32 is not supported"):
        conv(0, out="float32")


def test_the_depthwise_ops_errors_name_the_fault():
    def conv(groups, blocks=1):
        return _module(
            "def @main(%%x: Tensor[(1, %d, 4, 4, 16), uint8]) {\n"
            "  %%0 = qnn.contrib_conv2d_NCHWc(%%x, %s, %s, %s, %s, %s, %s, %s, %s, channels=20, groups=%d, "
            "out_dtype=\"uint8\");\n  %%0\n}\n"
            % (blocks, _c("int32", np.ones((2, 3, 3, 16), np.int32)), _c("int32", np.full(32, 9)), _c("uint8", [2]),
               _c("int32", np.zeros(20)), _c("float32", np.full(20, 0.5)), _c("int32", [0]), _c("float32", [1.0]),
               _c("uint8", [3]), groups))

    assert "groups=20" in conv(20, 2).text()
    with pytest.raises(Exception, match=r"groups 4 is not supported; supported: 1, or the channels \(20: depthwise\)"):
        conv(4, 2)
    with pytest.raises(Exception, match="do not fit 20 depthwise channels in blocks of 16"):
        conv(20, 1)


@pytest.mark.parametrize("dt,c", [("uint8", 3), ("int8", 6)])
def test_bytes_go_to_nchw4c_lane_by_lane(tmp_path, dt, c):
    """The int8 stem's NCHW -> NCHW4c of bytes (its own loop in the C
    generator): every lane in place, the padding lanes of the last block
    zero; 6 channels: a whole block and one of two lanes."""
    text = ('def @main(%%x: Tensor[(2, %d, 5, 7), %s]) {\n'
            '  %%0 = layout_transform(%%x, src_layout="NCHW", dst_layout="NCHW4c");\n  %%0\n}\n' % (c, dt))
    result = irm.build(_module(text), TARGET, executor=irm.Executor("graph"), runtime="cpp")
    result.export_library(str(tmp_path / "t.so"))
    lib = irm.runtime.load(str(tmp_path / "t.so"))
    info = np.iinfo(dt)
    x = np.random.default_rng(3).integers(info.min, info.max + 1, (2, c, 5, 7)).astype(dt)
    want = np.zeros((2, (c + 3) // 4 * 4, 5, 7), dt)
    want[:, :c] = x
    want = want.reshape(2, (c + 3) // 4, 4, 5, 7).transpose(0, 1, 3, 4, 2)
    np.testing.assert_array_equal(np.asarray(lib.run(x)), want)
