"""The ONNX frontend's converters of the recurrent ops (LSTM, GRU, RNN):
each becomes a static loop over the sequence, unrolled one time step at a
time with existing ops (dense, add, multiply, the activations, strided_slice,
concatenate, where). onnx_ops.CONVERTERS maps their op types. Defaults are
the ONNX operator specification's (opsets 7-17).

The input projection of every step is one dense over the whole sequence
(seq * batch rows); each step adds its recurrent dense. A constant
`sequence_lens` masks the steps past a batch entry's length: its state
holds and its Y rows are 0; a reverse direction first reverses each batch
entry within its own length (a constant gather), and reverses Y back."""
import numpy as np

from .onnx_ops_util import _need_const, _scalar

# ONNX's default activations per direction; the gate count of W's rows.
_DEFAULT_ACTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"], "RNN": ["Tanh"]}
_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}
# activation name (lower case) -> (uses alpha, uses beta, default alpha, default beta)
_ACT_PARAMS = {"affine": (True, True, 1.0, 0.0), "leakyrelu": (True, False, 0.01, 0.0),
               "thresholdedrelu": (True, False, 1.0, 0.0), "scaledtanh": (True, True, 1.0, 1.0),
               "hardsigmoid": (True, True, 0.2, 0.5), "elu": (True, False, 1.0, 0.0)}
_ACT_PLAIN = {"sigmoid": "sigmoid", "tanh": "tanh", "relu": "nn.relu"}


def _activations(a, op_type, num_dir):
    """The activations of each direction as [(lower-case name, alpha, beta)];
    alphas and betas are consumed in order by the activations that take them."""
    names = a.get("activations") or _DEFAULT_ACTS[op_type] * num_dir
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in names]
    per_dir = len(_DEFAULT_ACTS[op_type])
    if len(names) != per_dir * num_dir:
        raise ValueError("%s takes %d activations for %d direction(s), got %d (%s)"
                         % (op_type, per_dir * num_dir, num_dir, len(names), ", ".join(names)))
    alphas, betas = list(a.get("activation_alpha", [])), list(a.get("activation_beta", []))
    out = []
    for n in names:
        key = n.lower()
        if key not in _ACT_PLAIN and key not in _ACT_PARAMS and key not in ("softsign", "softplus"):
            known = sorted(set(_ACT_PLAIN) | set(_ACT_PARAMS) | {"softsign", "softplus"})
            raise NotImplementedError("%s activation '%s'; irm takes %s" % (op_type, n, ", ".join(known)))
        use_a, use_b, alpha, beta = _ACT_PARAMS.get(key, (False, False, 0.0, 0.0))
        if use_a and alphas:
            alpha = float(alphas.pop(0))
        if use_b and betas:
            beta = float(betas.pop(0))
        out.append((key, alpha, beta))
    return [out[d * per_dir:(d + 1) * per_dir] for d in range(num_dir)]


def _act(g, v, act, node):
    from . import onnx_ops  # the shared activation converters (imported late: onnx_ops imports this module)
    key, alpha, beta = act
    if key in _ACT_PLAIN:
        return g.emit(_ACT_PLAIN[key], [v])
    if key == "affine":
        return g.emit("add", [g.emit("multiply", [v, _scalar(g, v, alpha)]), _scalar(g, v, beta)])
    if key == "scaledtanh":
        scaled = g.emit("multiply", [v, _scalar(g, v, beta)])
        return g.emit("multiply", [_scalar(g, v, alpha), g.emit("tanh", [scaled])])
    conv = {"leakyrelu": onnx_ops._leaky_relu, "thresholdedrelu": onnx_ops._thresholded_relu,
            "hardsigmoid": onnx_ops._hard_sigmoid, "elu": onnx_ops._elu, "softsign": onnx_ops._softsign,
            "softplus": onnx_ops._softplus}[key]
    return conv(g, [v], {"alpha": alpha, "beta": beta}, node)[0]


def _cat(g, parts, axis):
    """concatenate of any number of parts (Concat's converter chunks them)."""
    from . import onnx_ops
    return parts[0] if len(parts) == 1 else onnx_ops._concat(g, parts, {"axis": axis}, None)[0]


def _rows(g, v, begin, end, axis):
    return g.emit("strided_slice", [v], begin=[begin], end=[end], axes=[axis])


def _at(g, v, i, axis=0):
    """v's i-th entry along axis, that axis dropped."""
    return g.emit("squeeze", [_rows(g, v, i, i + 1, axis)], axis=[axis])


def _reverse_within(g, x, lens, seq, batch):
    """x (seq, batch, ...) with each batch entry b's first lens[b] steps reversed
    (the rest kept): a gather of the (seq * batch) rows by constant indices."""
    idx = np.empty((seq, batch), dtype=np.int64)
    for b in range(batch):
        n = int(lens[b])
        for s in range(seq):
            idx[s, b] = ((n - 1 - s) if s < n else s) * batch + b
    flat = g.emit("reshape", [x], newshape=[seq * batch] + list(x.shape[2:]))
    rows = g.emit("take", [flat, g.const(idx.reshape(-1))], axis=0)
    return g.emit("reshape", [rows], newshape=list(x.shape))


class _Step:
    """One direction's weights, split per gate: w[k] (H, input) of the input
    projection is folded into one dense, r[k] (H, H), bias[k] (H,) (W's and
    R's biases summed, but GRU's Rbh kept apart for linear_before_reset)."""

    def __init__(self, g, x, a, op_type, d, hidden):
        n = _GATES[op_type]
        self.r = [_rows(g, _at(g, x[2], d), k * hidden, (k + 1) * hidden, 0) for k in range(n)]
        B = x[3] if len(x) > 3 else None
        zero = g.const(np.zeros((hidden,), dtype=x[0].dtype))
        if B is None:
            self.wb, self.rb = [zero] * n, [zero] * n
        else:
            bd = _at(g, B, d)
            self.wb = [_rows(g, bd, k * hidden, (k + 1) * hidden, 0) for k in range(n)]
            self.rb = [_rows(g, bd, (n + k) * hidden, (n + k + 1) * hidden, 0) for k in range(n)]
        P = x[7] if op_type == "LSTM" and len(x) > 7 else None
        self.p = None if P is None else [_rows(g, _at(g, P, d), k * hidden, (k + 1) * hidden, 0) for k in range(3)]


def _clip(g, v, clip):
    return v if clip is None else g.emit("clip", [v], a_min=-clip, a_max=clip)


def _lstm_cell(g, xp, h, c, w, acts, clip, input_forget, node):
    """One LSTM step: xp is this step's input projection per gate (i, o, f, c), biases included."""
    f, gg, hh = acts
    pre = [g.emit("add", [xp[k], g.emit("nn.dense", [h, w.r[k]])]) for k in range(4)]
    if w.p is not None:
        pre[0] = g.emit("add", [pre[0], g.emit("multiply", [c, w.p[0]])])
        pre[2] = g.emit("add", [pre[2], g.emit("multiply", [c, w.p[2]])])
    i = _act(g, _clip(g, pre[0], clip), f, node)
    if input_forget:
        ft = g.emit("subtract", [_scalar(g, i, 1), i])
    else:
        ft = _act(g, _clip(g, pre[2], clip), f, node)
    cand = _act(g, _clip(g, pre[3], clip), gg, node)
    c_new = g.emit("add", [g.emit("multiply", [ft, c]), g.emit("multiply", [i, cand])])
    o_pre = pre[1] if w.p is None else g.emit("add", [pre[1], g.emit("multiply", [c_new, w.p[1]])])
    o = _act(g, _clip(g, o_pre, clip), f, node)
    return g.emit("multiply", [o, _act(g, c_new, hh, node)]), c_new


def _gru_cell(g, xp, h, w, acts, clip, linear_before_reset, node):
    """One GRU step: xp per gate (z, r, h) holds W's biases; R's are added here."""
    f, gg = acts
    z = _act(g, _clip(g, g.emit("add", [xp[0], g.emit("nn.dense", [h, w.r[0]])]), clip), f, node)
    r = _act(g, _clip(g, g.emit("add", [xp[1], g.emit("nn.dense", [h, w.r[1]])]), clip), f, node)
    if linear_before_reset:
        rec = g.emit("multiply", [r, g.emit("add", [g.emit("nn.dense", [h, w.r[2]]), w.rb[2]])])
    else:
        rec = g.emit("add", [g.emit("nn.dense", [g.emit("multiply", [r, h]), w.r[2]]), w.rb[2]])
    cand = _act(g, _clip(g, g.emit("add", [xp[2], rec]), clip), gg, node)
    one_minus_z = g.emit("subtract", [_scalar(g, z, 1), z])
    return g.emit("add", [g.emit("multiply", [one_minus_z, cand]), g.emit("multiply", [z, h])])


def _rnn_cell(g, xp, h, w, acts, clip, node):
    return _act(g, _clip(g, g.emit("add", [xp[0], g.emit("nn.dense", [h, w.r[0]])]), clip), acts[0], node)


def _direction(g, x, a, op_type, node, d, reverse, lens, acts, state):
    """(Y (seq, batch, H), last h, last c) of direction d."""
    X = x[0]
    seq, batch = X.shape[0], X.shape[1]
    hidden = x[2].shape[2]
    n = _GATES[op_type]
    w = _Step(g, x, a, op_type, d, hidden)
    if reverse:
        X = _reverse_within(g, X, lens, seq, batch)
    # the input projection of all steps at once, with W's and R's biases (GRU's Rbh stays in the cell)
    flat = g.emit("reshape", [X], newshape=[seq * batch, X.shape[2]])
    proj = g.emit("nn.dense", [flat, _at(g, x[1], d)])
    bias = [w.wb[k] if op_type == "GRU" and k == 2 else g.emit("add", [w.wb[k], w.rb[k]]) for k in range(n)]
    proj = g.emit("add", [proj, _cat(g, bias, 0)])
    proj = g.emit("reshape", [proj], newshape=[seq, batch, n * hidden])
    clip = float(a["clip"]) if "clip" in a else None
    h, c = state
    ys = []
    for t in range(seq):
        step = _at(g, proj, t)
        xp = [_rows(g, step, k * hidden, (k + 1) * hidden, 1) for k in range(n)]
        if op_type == "LSTM":
            h_new, c_new = _lstm_cell(g, xp, h, c, w, acts, clip, int(a.get("input_forget", 0)), node)
        elif op_type == "GRU":
            h_new, c_new = _gru_cell(g, xp, h, w, acts, clip, int(a.get("linear_before_reset", 0)), node), None
        else:
            h_new, c_new = _rnn_cell(g, xp, h, w, acts, clip, node), None
        live = None if lens is None else np.asarray(lens) > t
        if live is None or live.all():
            h, c, y = h_new, c_new, h_new
        else:
            mask = g.const(live.reshape(batch, 1))
            h = g.emit("where", [mask, h_new, h])
            c = None if c_new is None else g.emit("where", [mask, c_new, c])
            y = g.emit("where", [mask, h_new, _scalar(g, h_new, 0)])
        ys.append(g.emit("expand_dims", [y], axis=0))
    Y = _cat(g, ys, 0)
    if reverse:
        Y = _reverse_within(g, Y, lens, seq, batch)
    return Y, h, c


def _recurrent(op_type):
    def conv(g, x, a, node):
        x = list(x) + [None] * (8 - len(x))
        X = x[0]
        direction = a.get("direction", "forward")
        direction = direction.decode() if isinstance(direction, bytes) else direction
        if direction not in ("forward", "reverse", "bidirectional"):
            raise ValueError("%s direction '%s'; ONNX takes forward, reverse, bidirectional" % (op_type, direction))
        num_dir = 2 if direction == "bidirectional" else 1
        layout = int(a.get("layout", 0))
        if layout:  # (batch, seq, input) -> (seq, batch, input)
            X = g.emit("transpose", [X], axes=[1, 0, 2])
        seq, batch = X.shape[0], X.shape[1]
        hidden = x[2].shape[2]
        if "hidden_size" in a and int(a["hidden_size"]) != hidden:
            raise ValueError("%s hidden_size=%d but R holds %d" % (op_type, int(a["hidden_size"]), hidden))
        lens = None
        if x[4] is not None:
            lens = np.asarray(_need_const(x[4], "%s's sequence_lens" % op_type)).reshape(-1)
            if lens.shape[0] != batch or (lens < 0).any() or (lens > seq).any():
                raise ValueError("%s sequence_lens %s: takes %d values in 0..%d" % (op_type, lens.tolist(), batch, seq))
        acts = _activations(a, op_type, num_dir)
        inits = []
        for k in (5, 6):
            v = x[k] if k == 5 or op_type == "LSTM" else None
            if v is not None and layout:
                v = g.emit("transpose", [v], axes=[1, 0, 2])
            inits.append(v)
        zero = g.const(np.zeros((batch, hidden), dtype=X.dtype))
        ys, hs, cs = [], [], []
        for d in range(num_dir):
            state = tuple(zero if v is None else _at(g, v, d) for v in inits)
            reverse = direction == "reverse" or d == 1
            dlens = lens if lens is not None or not reverse else np.full((batch,), seq, dtype=np.int64)
            Y, h, c = _direction(g, [X] + x[1:], a, op_type, node, d, reverse, dlens, acts[d], state)
            ys.append(g.emit("expand_dims", [Y], axis=1))
            hs.append(g.emit("expand_dims", [h], axis=0))
            cs.append(None if c is None else g.emit("expand_dims", [c], axis=0))
        Y, Y_h = _cat(g, ys, 1), _cat(g, hs, 0)  # (seq, num_dir, batch, H), (num_dir, batch, H)
        Y_c = _cat(g, cs, 0) if op_type == "LSTM" else None
        if layout:
            Y = g.emit("transpose", [Y], axes=[2, 0, 1, 3])
            Y_h = g.emit("transpose", [Y_h], axes=[1, 0, 2])
            Y_c = None if Y_c is None else g.emit("transpose", [Y_c], axes=[1, 0, 2])
        return [Y, Y_h, Y_c][:3 if op_type == "LSTM" else 2]
    return conv


RNN_CONVERTERS = {"LSTM": _recurrent("LSTM"), "GRU": _recurrent("GRU"), "RNN": _recurrent("RNN")}
