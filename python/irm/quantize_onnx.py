"""The QDQ model irm.quantize made, written as ONNX (docs/quantization.md):
``export_qdq_onnx(model, table, path=None, shape=None, dtype=None) ->
onnx.ModelProto``.

model is the float ONNX model (a ModelProto or a path) whose import
(``irm.frontend.from_onnx(model, shape, dtype)``) was quantized, table the
third result of ``irm.quantize.quantize``. The model is imported again,
recording which ONNX tensor each node of ``main`` comes from (the table's
keys are post-order positions, the same for every import of one model),
and QuantizeLinear / DequantizeLinear nodes are inserted with the table's
scales and zero points:

- a weight or bias initializer W becomes ``W_quantized`` (int8 values,
  or int32 for a bias, computed from W as irm.quantize computes them),
  ``W_scale`` and ``W_zero_point`` (per axis, DequantizeLinear's ``axis``
  attribute), read through ``DequantizeLinear`` whose output
  ``W_dequantized`` every consumer of W reads;
- an activation T produced by a node: the node writes ``T_float``,
  ``QuantizeLinear`` makes ``T_quantized`` and ``DequantizeLinear`` writes
  T, so every consumer (and a graph output) reads the dequantized value,
  as in irm's QDQ module; a graph input T is read as ``T_dequantized``.

The result imports through from_onnx as the same model as irm.quantize's
QDQ module (tests/onnx/test_quantize.py), and ONNX Runtime runs it with its
QDQ fusions. path, when given, is where the model is also saved.

Errors: ValueError when the table was not made from this model (a key
naming a node of another op, or a position main does not have) or names a
tensor with no ONNX name, or when per-axis weights need opset 13 and the
model's is older; ImportError without the onnx package. Thread safety: the
re-import taps the frontend's converters for the calling thread only, so
other threads may import at the same time.
"""
import threading

import numpy as np

from . import quantize as _q

_TAP = threading.local()  # .seen: the (ONNX name, Value) pairs of the calling thread's import, or None
_lock = threading.Lock()  # wrapping the converters once


def _tapped(convert):
    """convert, also recording its node's input and output names with their Values while a tap is on."""
    def run(g, x, a, node):
        outs = convert(g, x, a, node)
        seen = getattr(_TAP, "seen", None)
        if seen is not None:
            seen.extend(zip(node.input, x))
            seen.extend(zip(node.output, outs))
        return outs
    run.irm_tap = convert
    return run


def _import_recording(model, shape, dtype):
    """(mod, {node handle: ONNX name}): from_onnx's result with the ONNX tensor of each expression."""
    from .frontend import onnx as fo, onnx_ops
    conv = onnx_ops.CONVERTERS
    with _lock:
        for k, f in list(conv.items()):
            if not hasattr(f, "irm_tap"):
                conv[k] = _tapped(f)
    _TAP.seen = []
    try:
        mod, _ = fo.from_onnx(model, shape=shape, dtype=dtype)
        seen = _TAP.seen
    finally:
        _TAP.seen = None
    names = {}
    for name, v in seen:  # a node's inputs come before its outputs: an alias (Identity) keeps the first name
        if v is not None and v.expr is not None and name:
            names.setdefault(_q._key(v.expr), name)
    return mod, names


def _locate(mod, names, table):
    """{table key: ONNX tensor name}, checking the table against mod."""
    order = _q.post_order(mod["main"].body)
    by_var = {p.name: p for p in mod["main"].params}
    out = {}
    for key in table:
        if key in by_var:
            e = by_var[key]
        else:
            op, _, index = key.rpartition(":")
            if not index.isdigit() or int(index) >= len(order) or _q.node_name(order[int(index)], int(index)) != key:
                got = _q.node_name(order[int(index)], int(index)) if index.isdigit() and int(index) < len(order) \
                    else "nothing"
                raise ValueError("export_qdq_onnx: the table was not made from this model: its key '%s' is %s "
                                 "in this model's import" % (key, got))
            e = order[int(index)]
        name = names.get(_q._key(e))
        if name is None:
            raise ValueError("export_qdq_onnx: the table's tensor '%s' has no ONNX tensor name in this model" % key)
        out[key] = name
    return out


def _unique(name, taken):
    n, i = name, 1
    while n in taken:
        n, i = "%s_%d" % (name, i), i + 1
    taken.add(n)
    return n


def export_qdq_onnx(model, table, path=None, shape=None, dtype=None):
    """The QDQ ONNX model of table over the float model; see the module's doc."""
    import onnx
    from onnx import helper, numpy_helper
    from .frontend.onnx import _load
    model = _load(model)
    mod, names = _import_recording(model, shape, dtype)
    where = _locate(mod, names, table)
    out = onnx.ModelProto()
    out.CopyFrom(model)
    graph = out.graph
    opset = max([o.version for o in out.opset_import if o.domain in ("", "ai.onnx")] or [0])
    taken = {t.name for t in graph.initializer} | {vi.name for vi in graph.input} | \
        {n for node in graph.node for n in list(node.input) + list(node.output)}
    inits = {t.name: t for t in graph.initializer}
    inputs = {vi.name for vi in graph.input} - set(inits)
    before, after, rename_in = [], {}, {}
    for key, entry in table.items():
        t = where[key]
        scale = np.asarray(entry["scale"], np.float32)
        zp = np.asarray(entry["zero_point"])
        if entry["axis"] >= 0 and scale.size > 1 and opset < 13:
            raise ValueError("export_qdq_onnx: per-axis weights need opset 13; the model's is %d" % opset)
        s_name, z_name = _unique(t + "_scale", taken), _unique(t + "_zero_point", taken)
        graph.initializer.extend([numpy_helper.from_array(scale, s_name), numpy_helper.from_array(zp, z_name)])
        axis = {"axis": int(entry["axis"])} if entry["axis"] >= 0 else {}
        if entry["kind"] in ("weight", "bias"):
            if t not in inits:
                raise ValueError("export_qdq_onnx: the table's %s '%s' is not an initializer of this model"
                                 % (entry["kind"], t))
            w = numpy_helper.to_array(inits[t])
            values = _q.weight_values(w, scale, entry["axis"]) if entry["kind"] == "weight" else \
                _q.bias_values(w, scale)
            q_name, d_name = _unique(t + "_quantized", taken), _unique(t + "_dequantized", taken)
            graph.initializer.extend([numpy_helper.from_array(values, q_name)])
            before.append(helper.make_node("DequantizeLinear", [q_name, s_name, z_name], [d_name], **axis))
            rename_in[t] = d_name
            continue
        q_name = _unique(t + "_quantized", taken)
        if t in inputs:
            d_name = _unique(t + "_dequantized", taken)
            before.append(helper.make_node("QuantizeLinear", [t, s_name, z_name], [q_name]))
            before.append(helper.make_node("DequantizeLinear", [q_name, s_name, z_name], [d_name]))
            rename_in[t] = d_name
        else:
            f_name = _unique(t + "_float", taken)
            after[t] = (f_name, [helper.make_node("QuantizeLinear", [f_name, s_name, z_name], [q_name]),
                                 helper.make_node("DequantizeLinear", [q_name, s_name, z_name], [t])])
    nodes = list(before)
    for node in graph.node:
        n = onnx.NodeProto()
        n.CopyFrom(node)
        for i, name in enumerate(n.input):
            if name in rename_in:
                n.input[i] = rename_in[name]
        tail = []
        for i, name in enumerate(n.output):
            if name in after:
                n.output[i] = after[name][0]
                tail.extend(after[name][1])
        nodes.append(n)
        nodes.extend(tail)
    unused = set(rename_in) & set(inits)
    keep = [t for t in graph.initializer if t.name not in unused]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    keep = [vi for vi in graph.input if vi.name not in unused]  # IR version 3 lists initializers as inputs
    del graph.input[:]
    graph.input.extend(keep)
    del graph.node[:]
    graph.node.extend(nodes)
    if path is not None:
        onnx.save(out, str(path))
    return out
