"""irm.quantize: static post-training quantization of a float module
(docs/quantization.md), in the spirit of TVM's relay.quantize.

``quantize(mod, params=None, calibration=..., activations="minmax",
percentile=99.99, dtype="uint8") -> (qdq_mod, qdq_params, table)``

The float module's ``main`` runs on each calibration input with the
reference evaluator (ir.Evaluate), returning every activation it will
quantize at once; then a QDQ module is written:

- weights of ``nn.conv2d`` (NCHW / OIHW) and ``nn.dense`` (and a
  ``matmul``'s constant 2-D right operand): int8, symmetric, per output
  channel (scale max|w| / 127, zero point 0, values in [-127, 127]), read
  through ``qnn.dequantize`` (axis 0; axis 1 for the matmul operand);
- their biases (an ``nn.bias_add`` of a conv, an ``add`` of a dense's
  1-D constant): int32 with zero point 0 and scale ``sx * sw`` computed in
  float32, as FakeQuantizationToInteger folds them;
- activations per tensor (``dtype``: uint8 or int8, asymmetric): the
  data inputs of conv2d, dense, matmul, add and concatenate, and the
  outputs of the regions FakeQuantizationToInteger converts (a conv or
  dense with its bias and a following ``nn.relu``, an ``add`` of two
  activations with its relu, a concatenate); ``nn.max_pool2d``,
  ``reshape`` and ``nn.relu`` of a quantized tensor take its scale and
  zero point (those regions convert only so); a conv or dense region whose
  only user is a ``clip`` (relu6) takes the clip output's (one rounding
  instead of two, the clip changing nothing). Each such tensor T becomes
  ``qnn.dequantize(qnn.quantize(T, s, z), s, z)`` for every use.

Ranges: "minmax" takes the smallest and largest value over the calibration
inputs, "percentile" the ``100 - percentile`` and ``percentile``
percentiles of the values; either range is widened to hold 0 (so 0 is
exact), scale = (hi - lo) / (qmax - qmin) in float32 (1 for an all-zero
tensor), zero point rint(qmin - lo / scale) clipped to the dtype.

Returns the QDQ module (its ``params`` attribute the new params), the new
params (int8 weights and int32 biases under their old names, the other
float params as they were) and the table: tensor key -> dict with
"scale" (numpy float32, shape () or (C,)), "zero_point" (numpy array of
the quantized dtype), "dtype", "axis" (-1 per tensor), "kind"
("activation", "weight" or "bias") and "op" (the producing op, or
"input" / "param"). Keys: a Var's name for inputs and params, otherwise
"<op>:<n>", n the call's position in main's body in post-order (arguments
left to right, each node once): the same for every import of one model,
which is how :func:`export_qdq_onnx` (irm.quantize_onnx) finds the ONNX
tensor of each key.

Errors (nothing is changed): ValueError for no calibration inputs, an input
name main does not take (the closest name given) or a missing one, an
unknown ``activations`` or ``dtype``, a percentile outside (50, 100], a
calibration array of another shape than its input's;
TypeError for a module that is not float32 (an input or a weight of another
dtype), a main holding a Let or a function call (quantize rewrites graphs of
op calls, as the frontends make them) or a calibration entry that is not a
dict. Thread safety: none
needed (nothing global is kept).
"""
import difflib

import numpy as np

from . import ir as _ir
from .tensor import tensor as _tensor

DTYPES = {"uint8": (0, 255), "int8": (-128, 127)}
ACTIVATIONS = ("minmax", "percentile")
_WEIGHTED = ("nn.conv2d", "nn.dense", "matmul")
_SHARES = ("nn.max_pool2d", "reshape", "nn.relu")  # exact only with the input's scale and zero point


def _key(e):
    h = e.handle
    return h.value if hasattr(h, "value") else h


def post_order(body):
    """main's nodes in post-order (arguments left to right, each node once):
    a list of Exprs, Vars and Constants included."""
    seen, order, stack = set(), [], [(body, False)]
    while stack:
        e, done = stack.pop()
        if done:
            order.append(e)
            continue
        k = _key(e)
        if k in seen:
            continue
        seen.add(k)
        stack.append((e, True))
        kids = []
        if isinstance(e, _ir.Call):
            kids = e.args
        elif isinstance(e, _ir.Tuple):
            kids = e.fields
        elif isinstance(e, _ir.TupleGetItem):
            kids = [e.tuple_value]
        for kid in reversed(kids):
            stack.append((kid, False))
    return order


def _op_name(e):
    return e.op.name if isinstance(e, _ir.Call) and isinstance(e.op, _ir.Op) else None


def _closest(name, names):
    close = difflib.get_close_matches(name, names, 1)
    return " (did you mean '%s'?)" % close[0] if close else ""


def _check_inputs(func, params, calibration):
    """The input Vars of func (the params not in params), checked against calibration."""
    inputs = [v for v in func.params if v.name not in params]
    names = [v.name for v in inputs]
    if calibration is None or not hasattr(calibration, "__iter__") or isinstance(calibration, (str, dict)):
        raise ValueError("irm.quantize: calibration must be a list of {input name: array} dicts, got %s"
                         % type(calibration).__name__)
    calibration = list(calibration)
    if not calibration:
        raise ValueError("irm.quantize: no calibration inputs (give at least one {input name: array} dict; "
                         "main's inputs: %s)" % ", ".join(names))
    for i, feed in enumerate(calibration):
        if not isinstance(feed, dict):
            raise TypeError("irm.quantize: calibration[%d] is a %s, not a {input name: array} dict"
                            % (i, type(feed).__name__))
        for name in feed:
            if name not in names:
                raise ValueError("irm.quantize: calibration[%d] names input '%s', which main does not take%s; "
                                 "its inputs: %s" % (i, name, _closest(str(name), names), ", ".join(names)))
        for v in inputs:
            if v.name not in feed:
                raise ValueError("irm.quantize: calibration[%d] lacks input '%s'" % (i, v.name))
            want = tuple(v.type_annotation.shape) if isinstance(v.type_annotation, _ir.TensorType) else None
            got = tuple(np.shape(feed[v.name]))
            if want is not None and got != want:
                raise ValueError("irm.quantize: calibration[%d]['%s'] has shape %s; main takes %s"
                                 % (i, v.name, got, want))
    for v in func.params:
        t = v.type_annotation
        if t is None or not isinstance(t, _ir.TensorType) or t.dtype != "float32":
            what = "input" if v.name not in params else "parameter"
            raise TypeError("irm.quantize: %s '%s' is %s; quantize takes a float32 module (not one quantized already)"
                            % (what, v.name, t.dtype if isinstance(t, _ir.TensorType) else t))
    return inputs, calibration


class _Plan:
    """What becomes what: weights and biases by Var/Constant key, activations by node key."""

    def __init__(self, order, params):
        self.order = order
        self.index = {_key(e): i for i, e in enumerate(order)}
        self.params = params
        self.users = {}
        for e in order:
            for a in (e.args if isinstance(e, _ir.Call) else []):
                self.users.setdefault(_key(a), []).append(e)
        self.weights = {}   # key -> (expr, axis, the conv/dense call)
        self.biases = {}    # key -> (expr, the weighted call's key, the data operand's key)
        self.acts = []      # node keys, in post-order
        self.shared = {}    # node key -> the key whose scale and zero point it takes
        self._plan()

    def constant(self, e):
        """e's float value when it is a Constant or a bound parameter, else None."""
        if isinstance(e, _ir.Constant):
            return np.asarray(e.data)
        if isinstance(e, _ir.Var) and e.name in self.params:
            return np.asarray(self.params[e.name])
        return None

    def only_user(self, e, op):
        users = self.users.get(_key(e), [])
        return users[0] if len(users) == 1 and _op_name(users[0]) == op else None

    def _weight(self, call):
        op = _op_name(call)
        data, w = call.args
        wv = self.constant(w)
        if wv is None or wv.dtype != np.float32 or self.constant(data) is not None:
            return None
        if op == "nn.conv2d":
            a = call.attrs
            if a.get("data_layout", "NCHW") != "NCHW" or a.get("kernel_layout", "OIHW") != "OIHW" or wv.ndim != 4:
                return None
            axis = 0
        elif op == "nn.dense":
            axis = 0 if wv.ndim == 2 else None
        else:
            axis = 1 if wv.ndim == 2 else None
        return axis

    def _bias_user(self, e, op):
        """e's only user when it adds a float32 1-D constant bias along e's channel axis (1 for a conv,
        the last for a product), the way FakeQuantizationToInteger folds it."""
        users = self.users.get(_key(e), [])
        if len(users) != 1 or _op_name(users[0]) not in ("nn.bias_add", "add") or _key(users[0].args[0]) != _key(e):
            return None
        user = users[0]
        b = self.constant(user.args[1])
        if b is None or b.ndim != 1 or b.dtype != np.float32:
            return None
        rank = len(e.checked_type.shape) if e.checked_type is not None else None
        if _op_name(user) == "nn.bias_add":
            axis = int(user.attrs.get("axis", 1))
            axis = axis + rank if axis < 0 and rank else axis
            want = 1 if op == "nn.conv2d" else (rank - 1 if rank else None)
            return user if axis == want else None
        return user if op != "nn.conv2d" else None

    def _plan(self):
        acts = set()

        def act(e):
            if self.constant(e) is None and _key(e) not in acts:
                acts.add(_key(e))

        for e in self.order:
            op = _op_name(e)
            if op in _WEIGHTED and len(e.args) == 2:
                axis = self._weight(e)
                if axis is None:
                    continue
                self.weights[_key(e.args[1])] = (e.args[1], axis, e)
                act(e.args[0])
                root = e
                user = self._bias_user(e, op)
                if user is not None:
                    self.biases[_key(user.args[1])] = (user.args[1], _key(e), _key(e.args[0]))
                    root = user
                relu = self.only_user(root, "nn.relu")
                clip = self.only_user(root, "clip") if relu is None else None
                act(relu if relu is not None else root)
                if clip is not None:
                    # relu6: the region saturates at the clip's range, so the clip (float between one
                    # dequantize and one quantize of equal parameters) changes nothing: one rounding, not two
                    act(clip)
                    self.shared[_key(root)] = _key(clip)
            elif op == "add" and len(e.args) == 2 and all(self.constant(a) is None for a in e.args):
                for a in e.args:
                    act(a)
                relu = self.only_user(e, "nn.relu")
                act(relu if relu is not None else e)
            elif op == "concatenate" and len(e.args) == 1 and isinstance(e.args[0], _ir.Tuple):
                for a in e.args[0].fields:
                    act(a)
                act(e)
        # the ops that keep their input's scale (max pool, reshape, relu), in post-order so chains follow
        self.acts = [_key(e) for e in self.order if _key(e) in acts]
        quantized = set(self.acts)
        for e in self.order:
            if _op_name(e) in _SHARES and len(e.args) == 1 and _key(e.args[0]) in quantized:
                src = self.shared.get(_key(e.args[0]), _key(e.args[0]))
                self.shared[_key(e)] = src
                quantized.add(_key(e))
        self.acts = [_key(e) for e in self.order if _key(e) in quantized]


def _ranges(mod, func, params, inputs, calibration, keys, order_by_key, activations, percentile):
    """{key: (lo, hi)} of the calibrated activations (shared ones excepted)."""
    exprs = [order_by_key[k] for k in keys]
    if not exprs:
        return {}
    probe = _ir.Function(func.params, _ir.Tuple(exprs))
    pm = _ir.IRModule({"main": probe})
    values = {k: [] for k in keys}
    rest = [params[v.name] for v in func.params if v.name in params]
    for feed in calibration:
        args = [_tensor(np.ascontiguousarray(feed[v.name], dtype=np.float32)) for v in inputs] + rest
        outs = _ir.evaluate(pm, "main", args)
        outs = outs if isinstance(outs, list) else [outs]
        for k, o in zip(keys, outs):
            values[k].append(np.asarray(o, dtype=np.float32).ravel())
    out = {}
    for k in keys:
        v = np.concatenate(values[k])
        if activations == "minmax":
            lo, hi = float(v.min()), float(v.max())
        else:
            lo, hi = (float(x) for x in np.percentile(v, [100.0 - percentile, percentile]))
        out[k] = (min(lo, 0.0), max(hi, 0.0))
    return out


def activation_params(lo, hi, dtype):
    """(scale float32, zero point) of the range [lo, hi] (holding 0) for dtype."""
    qmin, qmax = DTYPES[dtype]
    scale = np.float32((hi - lo) / (qmax - qmin))
    if not scale > 0 or not np.isfinite(scale):
        scale = np.float32(1.0)
    zp = int(np.clip(np.rint(qmin - lo / float(scale)), qmin, qmax))
    return scale, np.array(zp, dtype=dtype)


def weight_params(w, axis):
    """(int8 values, float32 scales of shape (C,)) of w, symmetric per channel along axis."""
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    m = np.abs(moved).max(axis=1) if moved.size else np.zeros(w.shape[axis], np.float32)
    scale = (m / np.float32(127)).astype(np.float32)
    scale[~(scale > 0)] = np.float32(1.0)
    return weight_values(w, scale, axis), scale


def weight_values(w, scale, axis):
    """w's int8 values under per-channel scales along axis (the ONNX export recomputes them so)."""
    shape = [1] * w.ndim
    shape[axis] = -1
    return np.clip(np.rint(w / scale.reshape(shape)), -127, 127).astype(np.int8)


def bias_values(b, scale):
    """b's int32 values under scale (sx * sw): rounded in double, saturated."""
    return np.clip(np.rint(b.astype(np.float64) / scale), -2**31, 2**31 - 1).astype(np.int32)


def _const(a):
    return _ir.Constant(_tensor(np.array(a, order="C")))  # 0-d stays 0-d


def _qdq(x, scale, zp, axis=-1, quantize=True, dtype=None):
    s, z = _const(scale), _const(zp)
    if quantize:
        x = _ir.Call("qnn.quantize", [x, s, z], {"axis": axis, "out_dtype": dtype})
    return _ir.Call("qnn.dequantize", [x, s, z], {"axis": axis})


def _rebuild(plan, table, new_vars):
    """main's body with the plan applied: every node rebuilt on its new arguments, each
    quantized activation read through its quantize/dequantize pair."""
    new = {}
    for e in plan.order:
        k = _key(e)
        if k in new_vars:
            n = new_vars[k]
        elif isinstance(e, _ir.Call):
            n = _ir.Call(e.op, [new[_key(a)] for a in e.args], e.attrs) if e.args else e
        elif isinstance(e, _ir.Tuple):
            n = _ir.Tuple([new[_key(a)] for a in e.fields])
        elif isinstance(e, _ir.TupleGetItem):
            n = _ir.TupleGetItem(new[_key(e.tuple_value)], e.index)
        else:
            n = e
        name = table["by_node"].get(k)
        if name is not None:
            t = table["entries"][name]
            n = _qdq(n, t["scale"], t["zero_point"], t["axis"], t["kind"] == "activation", t["dtype"])
        new[k] = n
    return new[_key(plan.order[-1])]


def node_name(e, index):
    """The table key of node e at post-order position index."""
    return e.name if isinstance(e, _ir.Var) else "%s:%d" % (_op_name(e) or e.kind, index)


def quantize(mod, params=None, calibration=None, activations="minmax", percentile=99.99, dtype="uint8"):
    """(qdq_mod, qdq_params, table): see the module's doc."""
    if not isinstance(mod, _ir.IRModule) or "main" not in mod.function_names:
        raise TypeError("irm.quantize: mod must be an IRModule with a 'main', got %s" % type(mod).__name__)
    if activations not in ACTIVATIONS:
        raise ValueError("irm.quantize: activations='%s'%s; one of: %s"
                         % (activations, _closest(str(activations), list(ACTIVATIONS)), ", ".join(ACTIVATIONS)))
    if dtype not in DTYPES:
        raise ValueError("irm.quantize: dtype='%s'%s; one of: %s"
                         % (dtype, _closest(str(dtype), list(DTYPES)), ", ".join(DTYPES)))
    if activations == "percentile" and not 50.0 < float(percentile) <= 100.0:
        raise ValueError("irm.quantize: percentile=%r; it must be in (50, 100]" % (percentile,))
    if params is None:
        params = mod.get_attr("params")
    params = {k: v for k, v in (params.items() if params is not None else [])}
    from .transform import Pass
    func = Pass.get("InferType")(mod)["main"]  # the channel axes of the biases need the types
    inputs, calibration = _check_inputs(func, params, calibration)
    order = post_order(func.body)
    for e in order:
        if isinstance(e, (_ir.Let, _ir.Function)) or (isinstance(e, _ir.Call) and not isinstance(e.op, _ir.Op)):
            raise TypeError("irm.quantize: main holds a %s; quantize takes a graph of op calls (no Let, no "
                            "function or its call)" % e.kind)
    by_key = {_key(e): e for e in order}
    plan = _Plan(order, params)
    ranges = _ranges(mod, func, params, inputs, calibration, [k for k in plan.acts if k not in plan.shared],
                     by_key, activations, float(percentile))
    entries, by_node, new_vars, new_params = {}, {}, {}, dict(params)

    def entry(e, **fields):
        name = node_name(e, plan.index[_key(e)])
        fields["op"] = "param" if isinstance(e, _ir.Var) and e.name in params else \
            "input" if isinstance(e, _ir.Var) else _op_name(e) or e.kind
        entries[name] = fields
        by_node[_key(e)] = name
        return fields

    for k in sorted(plan.acts, key=lambda k: k in plan.shared):  # a shared tensor's source first
        e = by_key[k]
        if k in plan.shared:
            src = entries[by_node[plan.shared[k]]]
            scale, zp = src["scale"], src["zero_point"]
        else:
            scale, zp = activation_params(*ranges[k], dtype)
        entry(e, scale=scale, zero_point=zp, dtype=dtype, axis=-1, kind="activation")
    for k, (w, axis, call) in plan.weights.items():
        q, scale = weight_params(plan.constant(w).astype(np.float32), axis)
        entry(w, scale=scale, zero_point=np.zeros(scale.shape, np.int8), dtype="int8", axis=axis, kind="weight")
        _replace(w, q, new_vars, new_params)
    for k, (b, call_key, data_key) in plan.biases.items():
        sx = entries[by_node[data_key]]["scale"] if data_key in by_node else None
        sw = entries[by_node[_key(by_key[call_key].args[1])]]["scale"]
        if sx is None:
            continue
        scale = (np.float32(sx) * sw).astype(np.float32)
        bq = bias_values(plan.constant(b), scale)
        entry(b, scale=scale, zero_point=np.zeros(scale.shape, np.int32), dtype="int32", axis=0, kind="bias")
        _replace(b, bq, new_vars, new_params)
    table = {"entries": entries, "by_node": by_node}
    body = _rebuild(plan, table, new_vars)
    fparams = [new_vars.get(_key(v), v) for v in func.params]
    qfunc = _ir.Function(fparams, body)
    qmod = mod.with_function("main", qfunc)
    if new_params:
        qmod = qmod.with_attr("params", {k: _as_tensor(v) for k, v in new_params.items()})
    return qmod, {k: _as_tensor(v) for k, v in new_params.items()}, entries


def _as_tensor(v):
    return v if not isinstance(v, np.ndarray) else _tensor(np.array(v, order="C"))


def _replace(e, values, new_vars, new_params):
    """The weight or bias e as the integer values: a new Var of their type (a param) or a Constant."""
    if isinstance(e, _ir.Var):
        new_vars[_key(e)] = _ir.Var(e.name, _ir.TensorType(list(values.shape), values.dtype.name))
        new_params[e.name] = values
    else:
        new_vars[_key(e)] = _const(values)


def export_qdq_onnx(model, table, path=None, shape=None, dtype=None):
    """irm.quantize_onnx.export_qdq_onnx (imported on use: it needs the onnx package)."""
    from .quantize_onnx import export_qdq_onnx as export
    return export(model, table, path=path, shape=shape, dtype=dtype)
