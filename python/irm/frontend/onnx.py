"""The ONNX frontend: an ONNX model as an irm IRModule, as TVM's
``relay.frontend.from_onnx``.

``from_onnx(model, shape=None, dtype=None, max_constant_bytes=None) -> (IRModule, params)``:

- model: an ``onnx.ModelProto`` or the path of a ``.onnx`` file.
- shape: dict graph input name -> shape, overriding (or completing) the
  shapes the model declares; every input needs a static shape.
- dtype: a dtype name for every input, or a dict name -> dtype name.
- max_constant_bytes: the most bytes a value evaluated at import may have
  (default 8 MiB, FoldConstant's default ``FoldConstant.max_bytes``).

The module's ``main`` takes the graph's inputs, then the initializers it
uses, in the order the graph lists them; the initializers' values are the
module attribute ``params`` (and the returned params dict), so BindParams,
FoldConstant and the build treat them as they treat the example models'
weights. Names are kept (characters the text form does not take become
``_``). The attributes ``frontend.opset`` and ``frontend.producer`` record
the default domain's opset and the producer.

Opsets 11 to 17 are supported, with the ONNX defaults of every attribute.
Only the nodes an output of the graph reads (directly or through other
nodes) are imported: the rest are dropped before anything is evaluated.
Nodes whose inputs are all known at import (Shape of a static tensor,
Constant, the arithmetic on shapes a Reshape or an Expand reads, ...) are
evaluated at import with the ops' own FEvaluate and become constants, so
shape subgraphs fold away; a value larger than max_constant_bytes stays a
run-time computation (or, where the frontend needs the value itself, the
import fails naming the node and the bytes). A model with ops the frontend does not know is
one NotImplementedError listing every such op with its count and the node
names.

Command line: ``python3 -m irm.frontend.onnx MODEL.onnx -o MODEL.irm
[--params-out FILE] [--shape NAME=D0,D1,...] [--dtype NAME=DTYPE]`` writes the
text form (with the params inside, or, with --params-out, the params in FILE
as TVM's param dict, ``irm.runtime.save_param_dict``'s bytes). Every failure
is one line on stderr and status 1 (3 when the onnx package is missing).
"""
import re
import sys

import numpy as np

from .. import ir as _ir
from .._ffi import _global, as_object as _as_object
from ..ir import IRModule
from ..tensor import tensor as _tensor
from . import onnx_ops


def _contig(a):
    """a as a C-contiguous array, 0-d staying 0-d (np.ascontiguousarray makes it 1-d)."""
    return np.asarray(a, order="C")


OPSET_MIN, OPSET_MAX = 11, 17
# Older opsets import too when the ops' semantics are the converters' (most
# ops have not changed since); ONNX's node tests of such ops use them.
OPSET_ACCEPTED = 1

# ONNX TensorProto element types -> irm dtype names.
ONNX_DTYPES = onnx_ops.ONNX_TO_IRM
ONNX_DTYPE_NAMES = {0: "undefined", 4: "uint16", 5: "int16", 8: "string", 12: "uint32", 13: "uint64",
                    14: "complex64", 15: "complex128", 16: "bfloat16"}


def dtype_of_onnx(code, what):
    if code not in ONNX_DTYPES:
        raise NotImplementedError("%s has ONNX element type %s; irm takes %s"
                                  % (what, ONNX_DTYPE_NAMES.get(code, code), ", ".join(ONNX_DTYPES.values())))
    return ONNX_DTYPES[code]


class Value:
    """One ONNX tensor during conversion: an IR expression with its static
    shape and dtype, and its numpy value when it is known at import."""
    __slots__ = ("expr", "shape", "dtype", "const", "param", "_type")

    def __init__(self, expr, shape, dtype, const=None, param=None):
        self.expr, self.shape, self.dtype, self.const = expr, tuple(int(d) for d in shape), dtype, const
        self.param = param  # an initializer's name: used as an expression, it becomes a parameter
        self._type = None

    def type(self):
        if self._type is None:  # made once: a value feeds several nodes
            self._type = _ir.TensorType(list(self.shape), self.dtype)
        return self._type


def _repr(obj):
    return _global("ffi.Repr")(obj)


_TENSOR_TYPE_TEXT = re.compile(r"Tensor\[\(([0-9, ]*)\), ([a-z0-9]+)\]$")


def _type_fields(t):
    """(shape, dtype) of a result type, None for a type that is no TensorType: read from its
    one-line text, one call into libirm where its fields take one per dimension."""
    if not isinstance(t, _ir.TensorType):
        return None
    m = _TENSOR_TYPE_TEXT.match(_repr(t))
    if m is None:  # a form this reading does not know: the fields
        f = t._fields()
        return tuple(f["shape"]), f["dtype"]
    return tuple(int(d) for d in m.group(1).split(",") if d.strip()), m.group(2)


def _np(t):
    return np.array(np.asarray(t), copy=True)


MAX_CONSTANT_BYTES = 8 << 20  # FoldConstant.max_bytes' default


class Graph:
    """Emits calls, folding those whose arguments are all known and whose
    result is at most max_bytes."""

    def __init__(self, opset, names, max_bytes=MAX_CONSTANT_BYTES):
        self.opset = opset
        self.names = names
        self.max_bytes = max_bytes
        self.params = []  # (Var, Value) of the initializers used as expressions, in first-use order
        self.ops = {}  # op name -> (op, FInferType, FEvaluate), looked up once per import

    def check_bytes(self, shape, dtype, what):
        """ValueError unless a constant of shape and dtype fits max_bytes (checked before it is made)."""
        n = np.dtype(dtype).itemsize
        for d in shape:
            n *= max(int(d), 0)
        if n > self.max_bytes:
            raise ValueError("%s would be a constant of %d bytes, more than max_constant_bytes (%d)"
                             % (what, n, self.max_bytes))

    def const(self, array, dtype=None):
        a = _contig(array if dtype is None else np.asarray(array).astype(dtype))
        if a.dtype.name not in ONNX_DTYPES.values():
            raise NotImplementedError("a constant of numpy dtype %s" % a.dtype)
        return Value(None, a.shape, a.dtype.name, a)

    def expr(self, v):
        if v.expr is None and v.param is not None:
            v.expr = _ir.Var(self.names(v.param), v.type())
            self.params.append((v.expr, v))
        elif v.expr is None:
            v.expr = _ir.Constant(_tensor(_contig(v.const)))
        return v.expr

    def emit(self, op, args, fold=True, **attrs):
        """op(args) with attrs; fold=False keeps a call of known arguments (a dequantized weight, which
        FakeQuantizationToInteger reads) for FoldConstant to fold later."""
        attrs = {k: v for k, v in attrs.items() if v is not None}
        found = self.ops.get(op)
        if found is None:
            o = _ir.Op.get(op)
            found = self.ops[op] = (o, o.get_attr("FInferType"), o.get_attr("FEvaluate"))
        o, infer, evaluate = found
        if attrs:  # one irm Map for the type rule, the evaluator and the call
            attrs = _as_object(attrs)
        t = infer([a.type() for a in args], attrs)
        fields = _type_fields(t)
        if fold and all(a.const is not None for a in args):
            try:
                self.check_bytes(*(fields or (getattr(t, "shape", ()), getattr(t, "dtype", "int8"))), op)
            except ValueError:
                pass  # too large to fold: computed at run time
            else:
                out = evaluate([_tensor(_contig(a.const)) for a in args], attrs)
                return self.const(_np(out))
        shape, dtype = fields or (t.shape, t.dtype)
        return Value(_ir.Call(o, [self.expr(a) for a in args], attrs), shape, dtype)


def _attr_value(a):
    import onnx
    from onnx import numpy_helper
    kind = a.type
    A = onnx.AttributeProto
    if kind == A.FLOAT:
        return float(a.f)
    if kind == A.INT:
        return int(a.i)
    if kind == A.STRING:
        return a.s.decode()
    if kind == A.TENSOR:
        return numpy_helper.to_array(a.t)
    if kind == A.FLOATS:
        return [float(x) for x in a.floats]
    if kind == A.INTS:
        return [int(x) for x in a.ints]
    if kind == A.STRINGS:
        return [s.decode() for s in a.strings]
    raise NotImplementedError("attribute '%s' of type %s" % (a.name, A.AttributeType.Name(kind)))


_NAME_OK = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


class _Names:
    """ONNX names -> names the text form takes, unique."""

    def __init__(self):
        self.used = set()

    def __call__(self, name):
        n = re.sub(r"[^A-Za-z0-9_]", "_", name) or "v"
        if not _NAME_OK.match(n):
            n = "v_" + n
        base, i = n, 1
        while n in self.used:
            n, i = "%s_%d" % (base, i), i + 1
        self.used.add(n)
        return n


def _load(model):
    import onnx
    if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
        return _load_file(model)
    if not isinstance(model, onnx.ModelProto):
        raise TypeError("from_onnx: model must be an onnx.ModelProto or a path, got %s" % type(model).__name__)
    return model


def _load_file(path):
    """The ModelProto in the file at path, its external data read in."""
    model = _parse_file(path)
    _load_external(model, path)
    return model


def _parse_file(path):
    """The ModelProto in the file at path, as stored (external data not read);
    ValueError naming the file for one that is empty, does not parse
    (truncated, random bytes) or has no graph: protobuf reads an empty file
    as an empty model, which must not build."""
    import onnx
    from google.protobuf.message import DecodeError
    with open(path, "rb") as f:
        data = f.read()
    where = "from_onnx: '%s'" % (path.decode(errors="replace") if isinstance(path, bytes) else str(path))
    if not data:
        raise ValueError("%s is empty (0 bytes), not an ONNX model" % where)
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise ValueError("%s is not an ONNX model (truncated or not protobuf: %s)" % (where, exc)) from None
    if not model.HasField("graph") or not model.graph.output:
        raise ValueError("%s is not an ONNX model (it has no graph with outputs; truncated or another format?)"
                         % where)
    return model


def _load_external(model, path):
    """Reads the initializers model keeps in external data, which lives
    beside the file path (as onnx.load finds it)."""
    import onnx
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer):
        import os
        from onnx.external_data_helper import load_external_data_for_model
        load_external_data_for_model(model, os.path.dirname(os.path.abspath(path)))


class ShapeNameError(ValueError, AssertionError):
    """from_onnx's shape= or dtype= names an input the model lacks: a
    ValueError, and an AssertionError as TVM's from_onnx raises, so
    handlers of either catch it."""


def _check_input_names(graph, shape, dtype):
    """ShapeNameError when shape= or dtype= names an input the graph does not have."""
    init = {t.name for t in graph.initializer}
    names = [vi.name for vi in graph.input if vi.name not in init]
    for what, given in (("shape", shape), ("dtype", dtype)):
        if isinstance(given, dict):
            for name in given:
                if name not in names:
                    raise ShapeNameError("from_onnx: %s= names '%s', which is no input of the model; its inputs: %s"
                                         % (what, name, ", ".join("'%s'" % n for n in names) or "none"))


def _opset_of(model):
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return int(imp.version)
    return OPSET_MAX


def _op_key(node):
    """The converter key of a node: its op type, "<domain>.<op_type>" outside the default domain."""
    return node.op_type if node.domain in ("", "ai.onnx") else "%s.%s" % (node.domain, node.op_type)


def unsupported_ops(model):
    """{op_type: [node names]} of the nodes the frontend cannot convert."""
    out = {}
    for i, node in enumerate(model.graph.node):
        key = _op_key(node)
        if key not in onnx_ops.CONVERTERS:
            out.setdefault(key, []).append(node.name or "#%d" % i)
    return out


def _check_supported(model):
    missing = unsupported_ops(model)
    if missing:
        parts = ["%s (%d: %s)" % (op, len(names), ", ".join(names[:8]) + (", ..." if len(names) > 8 else ""))
                 for op, names in sorted(missing.items())]
        plural = "" if len(missing) == 1 else "s"
        raise NotImplementedError("from_onnx: %d unsupported op%s: %s" % (len(missing), plural, "; ".join(parts)))


def _input_shape(vi, shape, dtype):
    name = vi.name
    tt = vi.type.tensor_type
    dt = dtype.get(name) if isinstance(dtype, dict) else dtype
    dt = dt or dtype_of_onnx(tt.elem_type, "input '%s'" % name)
    if shape and name in shape:
        return tuple(int(d) for d in shape[name]), dt
    dims = []
    for i, d in enumerate(tt.shape.dim):
        if not d.HasField("dim_value"):
            raise ValueError("from_onnx: input '%s' has a dynamic dimension %d (%s); give its shape with "
                             "shape={'%s': (...)} (irm build: --input-shapes %s:D0xD1x...)"
                             % (name, i, d.dim_param or "?", name, name))
        dims.append(int(d.dim_value))
    return tuple(dims), dt


def _register_attr_keys():
    keys = IRModule.list_attr_keys()
    if "frontend.opset" not in keys:
        IRModule.register_attr_key("frontend.opset", "int")
    if "frontend.producer" not in keys:
        IRModule.register_attr_key("frontend.producer", "str")


def _live_nodes(graph):
    """The indices of the nodes an output of the graph reads, directly or
    through other nodes: the others are dropped before anything is evaluated."""
    producer = {}
    for i, node in enumerate(graph.node):
        for n in node.output:
            if n:
                producer[n] = i
    live, todo = set(), [o.name for o in graph.output]
    while todo:
        i = producer.get(todo.pop())
        if i is not None and i not in live:
            live.add(i)
            todo.extend(n for n in graph.node[i].input if n)
    return live


def from_onnx(model, shape=None, dtype=None, max_constant_bytes=None):
    """(IRModule, params dict name -> irm.Tensor) for the ONNX model; see the
    module's doc."""
    from onnx import numpy_helper
    if max_constant_bytes is None:
        max_constant_bytes = MAX_CONSTANT_BYTES
    if isinstance(max_constant_bytes, bool) or not isinstance(max_constant_bytes, int) or max_constant_bytes < 0:
        raise ValueError("from_onnx: max_constant_bytes must be an int >= 0, got %r" % (max_constant_bytes,))
    model = _load(model)
    opset = _opset_of(model)
    if not OPSET_ACCEPTED <= opset <= OPSET_MAX:
        raise NotImplementedError("from_onnx: opset %d; irm's ONNX frontend takes opsets %d to %d (and %d to %d "
                                  "where the ops are unchanged)"
                                  % (opset, OPSET_MIN, OPSET_MAX, OPSET_ACCEPTED, OPSET_MIN - 1))
    _check_supported(model)
    graph = model.graph
    _check_input_names(graph, shape, dtype)
    names = _Names()
    g = Graph(opset, names, max_constant_bytes)
    values = {"": None}
    init = {t.name: t for t in graph.initializer}
    inputs = []
    for vi in graph.input:
        if vi.name in init:
            continue
        shp, dt = _input_shape(vi, shape, dtype)
        var = _ir.Var(names(vi.name), _ir.TensorType(list(shp), dt))
        inputs.append(var)
        values[vi.name] = Value(var, shp, dt)
    for name, t in init.items():
        dtype_of_onnx(t.data_type, "initializer '%s'" % name)
        arr = _contig(numpy_helper.to_array(t))
        values[name] = Value(None, arr.shape, arr.dtype.name, arr, param=name)
    live = _live_nodes(graph)
    for i, node in enumerate(graph.node):
        if i not in live:
            continue
        args = [values[n] if n in values else _missing(node, n) for n in node.input]
        attrs = {a.name: _attr_value(a) for a in node.attribute}
        try:
            outs = onnx_ops.CONVERTERS[_op_key(node)](g, args, attrs, node)
        except (TypeError, ValueError, NotImplementedError, KeyError) as exc:
            raise type(exc)("from_onnx: node %s (%s): %s" % (node.name or "#%d" % i, node.op_type, exc)) from None
        for n, v in zip(node.output, outs):
            if n:
                values[n] = v
    body = _body([g.expr(values[o.name]) for o in graph.output])
    params = {var.name: _tensor(v.const) for var, v in g.params}
    func = _ir.Function(inputs + [var for var, _ in g.params], body)
    _register_attr_keys()
    mod = IRModule({"main": func})
    if params:
        mod = mod.with_attr("params", params)
    mod = mod.with_attr("frontend.opset", opset)
    mod = mod.with_attr("frontend.producer", ("%s %s" % (model.producer_name, model.producer_version)).strip())
    return mod, params


def _body(exprs):
    return exprs[0] if len(exprs) == 1 else _ir.Tuple(exprs)


def _missing(node, name):
    raise ValueError("from_onnx: node %s (%s) reads '%s', which no input, initializer or earlier node gives"
                     % (node.name, node.op_type, name))


# main's exit status when the onnx package is missing: irm build says what to install.
EXIT_NO_ONNX = 3


def main(argv=None):
    """The command line; every failure is one line on stderr ("error: ..."),
    never a traceback, and status 1 (EXIT_NO_ONNX without the onnx package)."""
    import argparse
    p = argparse.ArgumentParser(prog="python3 -m irm.frontend.onnx",
                                description="Convert an ONNX model to irm's text form.")
    p.add_argument("model", help="the .onnx file")
    p.add_argument("-o", "--output", required=True, help="the .irm text file to write")
    p.add_argument("--params-out", help="write the params here (TVM's param dict, irm.runtime.save_param_dict), "
                                        "and leave them out of the text")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=D0,D1,...",
                   help="the shape of an input (repeatable)")
    p.add_argument("--dtype", action="append", default=[], metavar="NAME=DTYPE",
                   help="the dtype of an input (repeatable)")
    args = p.parse_args(argv)
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("error: the Python package 'onnx' is missing (apt-get install python3-onnx)", file=sys.stderr)
        return EXIT_NO_ONNX
    try:
        shapes, dtypes = {}, {}
        for s in args.shape:
            name, _, dims = s.partition("=")
            try:
                shapes[name] = [int(d) for d in dims.split(",") if d]
            except ValueError:
                raise ValueError("--shape %s: expected NAME=D0,D1,... with integer dimensions" % s) from None
        for s in args.dtype:
            name, _, dt = s.partition("=")
            dtypes[name] = dt
        mod, params = from_onnx(args.model, shape=shapes or None, dtype=dtypes or None)
        if args.params_out:
            from ..runtime import save_param_dict
            with open(args.params_out, "wb") as f:
                f.write(save_param_dict(params))
            mod = mod.without_attr("params")
        with open(args.output, "w") as f:
            f.write(mod.text(elide_larger_than=0))
    except Exception as exc:  # noqa: BLE001 -- one line, never a traceback
        text = " ".join(str(exc).split()) or type(exc).__name__
        if not isinstance(exc, (NotImplementedError, ValueError, TypeError)):
            text = "%s: %s" % (type(exc).__name__, text)
        print("error: %s" % text, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
