"""The ONNX frontend's recurrent ops (LSTM, GRU, RNN, onnx_ops_rnn.py):
torch.nn.LSTM/GRU/RNN exports against PyTorch, the attributes PyTorch does
not export (sequence_lens, reverse, clip, activations with alpha and beta,
GRU's linear_before_reset=0) against a direct numpy transcription of the
ONNX specification's equations, and the errors."""
import io
import os

import numpy as np
import pytest

import irm
from irm.frontend import from_onnx

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper, TensorProto  # noqa: E402

NO_TORCH = pytest.mark.skipif(os.environ.get("IRM_TEST_SANITIZED") == "1",
                              reason="ASan's __cxa_throw check aborts inside libtorch (uninstrumented C++ "
                                     "exceptions); the plain build runs these")


def _evaluate(mod, params, inputs):
    names = [p.name for p in mod["main"].params][len(inputs):]
    out = irm.ir.evaluate(mod, "main", [irm.tensor(np.asarray(x, order="C")) for x in inputs] +
                          [params[n] for n in names])
    if isinstance(out, (list, tuple)):
        return [np.asarray(o) for o in out]
    return [np.asarray(out)]


# ---- against PyTorch ---------------------------------------------------------------------------------

@NO_TORCH
@pytest.mark.parametrize("kind,kw", [
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("LSTM", dict(batch_first=True)),
    ("GRU", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(batch_first=True)),
    ("RNN", dict(nonlinearity="relu", bidirectional=True)),
])
def test_torch_exports_match_pytorch(kind, kw):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = getattr(torch.nn, kind)(input_size=5, hidden_size=7, **kw).eval()
    seq, batch = 6, 3
    shape = (batch, seq, 5) if kw.get("batch_first") else (seq, batch, 5)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1))
    buf = io.BytesIO()
    torch.onnx.export(net, (x,), buf, opset_version=14, input_names=["x"])
    mod, params = from_onnx(onnx.load_from_string(buf.getvalue()))
    with torch.no_grad():
        ref = net(x)
    y_ref = ref[0].numpy()
    h_ref = (ref[1][0] if kind == "LSTM" else ref[1]).numpy()
    got = _evaluate(mod, params, [x.numpy()])
    np.testing.assert_allclose(got[0], y_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[1], h_ref, rtol=1e-4, atol=1e-5)
    if kind == "LSTM":
        np.testing.assert_allclose(got[2], ref[1][1].numpy(), rtol=1e-4, atol=1e-5)


# ---- against the specification's equations ----------------------------------------------------------

def _act(name, alpha, beta):
    return {"Sigmoid": lambda v: 1 / (1 + np.exp(-v)), "Tanh": np.tanh, "Relu": lambda v: np.maximum(v, 0),
            "Affine": lambda v: alpha * v + beta, "ScaledTanh": lambda v: alpha * np.tanh(beta * v),
            "LeakyRelu": lambda v: np.where(v >= 0, v, alpha * v),
            "HardSigmoid": lambda v: np.clip(alpha * v + beta, 0, 1)}[name]


def _reference(kind, X, W, R, B, lens, h0, c0, acts, clip, lbr, direction, input_forget=0):
    """Y, Y_h, Y_c of the ONNX equations, one batch entry and step at a time."""
    seq, batch, _ = X.shape
    nd, H = W.shape[0], R.shape[2]
    n = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    per = len(acts) // nd
    Y = np.zeros((seq, nd, batch, H))
    Yh, Yc = np.zeros((nd, batch, H)), np.zeros((nd, batch, H))
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    for d in range(nd):
        f = [_act(*acts[d * per + k]) for k in range(per)]
        Wd, Rd, Wb, Rb = W[d], R[d], B[d][:n * H], B[d][n * H:]
        gate = lambda M, k: M[k * H:(k + 1) * H]  # noqa: E731
        for b in range(batch):
            h, c = h0[d, b].copy(), c0[d, b].copy()
            steps = range(lens[b]) if direction == "forward" and d == 0 else reversed(range(lens[b]))
            for t in steps:
                x = X[t, b]
                pre = [gate(Wd, k) @ x + gate(Rd, k) @ h + gate(Wb, k) + gate(Rb, k) for k in range(n)]
                if kind == "RNN":
                    h = f[0](cl(pre[0]))
                elif kind == "GRU":
                    z, r = f[0](cl(pre[0])), f[0](cl(pre[1]))
                    if lbr:
                        hc = gate(Wd, 2) @ x + r * (gate(Rd, 2) @ h + gate(Rb, 2)) + gate(Wb, 2)
                    else:
                        hc = gate(Wd, 2) @ x + gate(Rd, 2) @ (r * h) + gate(Rb, 2) + gate(Wb, 2)
                    h = (1 - z) * f[1](cl(hc)) + z * h
                else:
                    i, o, fg, cc = f[0](cl(pre[0])), f[0](cl(pre[1])), f[0](cl(pre[2])), f[1](cl(pre[3]))
                    fg = 1 - i if input_forget else fg
                    c = fg * c + i * cc
                    h = o * f[2](c)
                Y[t, d, b] = h
            Yh[d, b], Yc[d, b] = h, c
    return Y, Yh, Yc


def _model(kind, attrs, shapes, inits, outputs=3):
    ins = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c"][:len(shapes) + len(inits)]
    names = [n for n in ins if n not in inits]
    node = helper.make_node(kind, ins, ["Y", "Y_h", "Y_c"][:outputs], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n])
                                            for n in names],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
                               for n in ["Y", "Y_h", "Y_c"][:outputs]],
                              initializer=[numpy_helper.from_array(v, n) for n, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])


@pytest.mark.parametrize("kind,direction,acts,clip,lbr,layout", [
    ("GRU", "bidirectional", None, None, 0, 0),
    ("GRU", "reverse", [("HardSigmoid", 0.3, 0.4), ("ScaledTanh", 0.9, 1.1)], 2.5, 1, 0),
    ("RNN", "bidirectional", [("Affine", 0.5, 0.1), ("LeakyRelu", 0.2, 0.0)], None, 0, 1),
    ("LSTM", "bidirectional", None, 1.0, 0, 1),
    ("LSTM", "reverse", [("Sigmoid", 0, 0), ("Tanh", 0, 0), ("Affine", 0.7, -0.2)], None, 0, 0),
    ("LSTM", "forward", None, None, 1, 0),  # lbr stands for input_forget here
])
def test_attributes_match_the_specification(kind, direction, acts, clip, lbr, layout):
    rng = np.random.default_rng(3)
    seq, batch, inp, H = 5, 3, 4, 6
    nd = 2 if direction == "bidirectional" else 1
    n = {"LSTM": 4, "GRU": 3, "RNN": 1}[kind]
    defaults = {"LSTM": [("Sigmoid", 0, 0), ("Tanh", 0, 0), ("Tanh", 0, 0)],
                "GRU": [("Sigmoid", 0, 0), ("Tanh", 0, 0)], "RNN": [("Tanh", 0, 0)]}[kind]
    acts = acts if acts and len(acts) == len(defaults) * nd else (acts or defaults) * nd  # per direction
    W = rng.normal(size=(nd, n * H, inp)).astype(np.float32)
    R = rng.normal(size=(nd, n * H, H)).astype(np.float32) * 0.5
    B = rng.normal(size=(nd, 2 * n * H)).astype(np.float32)
    lens = np.array([5, 2, 0], dtype=np.int32)
    h0 = rng.normal(size=(nd, batch, H)).astype(np.float32)
    c0 = rng.normal(size=(nd, batch, H)).astype(np.float32)
    X = rng.normal(size=(seq, batch, inp)).astype(np.float32)
    attrs = {"hidden_size": H, "direction": direction, "activations": [a[0] for a in acts], "layout": layout}
    alphas = [a[1] for a in acts if a[0] in ("Affine", "ScaledTanh", "LeakyRelu", "HardSigmoid")]
    betas = [a[2] for a in acts if a[0] in ("Affine", "ScaledTanh", "HardSigmoid")]
    if alphas:
        attrs["activation_alpha"] = alphas
    if betas:
        attrs["activation_beta"] = betas
    if clip is not None:
        attrs["clip"] = clip
    if kind == "GRU":
        attrs["linear_before_reset"] = lbr
    if kind == "LSTM":
        attrs["input_forget"] = lbr
    states = (lambda v: v.transpose(1, 0, 2).copy()) if layout else (lambda v: v)  # (batch, num_dir, H)
    inits = {"W": W, "R": R, "B": B, "sequence_lens": lens, "initial_h": states(h0)}
    if kind == "LSTM":
        inits["initial_c"] = states(c0)
    outputs = 3 if kind == "LSTM" else 2
    Xin = X.transpose(1, 0, 2).copy() if layout else X
    model = _model(kind, attrs, {"X": list(Xin.shape)}, inits, outputs)
    mod, params = from_onnx(model)
    got = _evaluate(mod, params, [Xin])
    if layout:  # back to the sequence-major forms
        got = [got[0].transpose(1, 2, 0, 3)] + [v.transpose(1, 0, 2) for v in got[1:]]
    want = _reference(kind, X.astype(np.float64), W, R, B, lens, h0, c0 if kind == "LSTM" else h0 * 0, acts,
                      clip, lbr if kind == "GRU" else 0, "forward" if direction != "reverse" else "reverse",
                      input_forget=lbr if kind == "LSTM" else 0)
    for g_, w_ in zip(got, want):
        np.testing.assert_allclose(g_, w_, rtol=1e-4, atol=1e-5)
    assert not np.any(got[0][2:, :, 1]) and not np.any(got[0][:, :, 2])  # past each length: zeros
    np.testing.assert_allclose(got[1][:, 2], h0[:, 2])  # length 0: the initial state


# ---- errors ------------------------------------------------------------------------------------------

def _gru(attrs, lens_as_input=False):
    rng = np.random.default_rng(0)
    inits = {"W": rng.normal(size=(1, 6, 3)).astype(np.float32), "R": rng.normal(size=(1, 6, 2)).astype(np.float32)}
    shapes = {"X": [4, 2, 3]}
    if lens_as_input:
        inits["B"] = np.zeros((1, 12), np.float32)
        ins = ["X", "W", "R", "B", "sequence_lens"]
        node = helper.make_node("GRU", ins, ["Y"], hidden_size=2, **attrs)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4, 2, 3]),
                                                helper.make_tensor_value_info("sequence_lens", TensorProto.INT32,
                                                                              [2])],
                                  [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
                                  initializer=[numpy_helper.from_array(v, n) for n, v in inits.items()])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    return _model("GRU", dict(hidden_size=2, **attrs), shapes, inits, outputs=1)


@pytest.mark.parametrize("attrs,lens_as_input,exc,words", [
    ({"direction": "sideways"}, False, ValueError, "forward, reverse, bidirectional"),
    ({"activations": ["Sigmoid"]}, False, ValueError, "takes 2 activations"),
    ({"activations": ["Sigmoid", "Swish"]}, False, NotImplementedError, "activation 'Swish'; irm takes"),
    ({}, True, NotImplementedError, "sequence_lens must be known at import"),
])
def test_errors_name_the_fault(attrs, lens_as_input, exc, words):
    with pytest.raises(exc, match=words):
        from_onnx(_gru(attrs, lens_as_input))


def test_hidden_size_must_agree_with_r():
    model = _gru({})
    model.graph.node[0].attribute[0].i = 5
    with pytest.raises(ValueError, match="hidden_size=5 but R holds 2"):
        from_onnx(model)
