"""Ops registered from Python (irm.ir.register_op): the Python infer_type
and evaluate run inside parse, InferType, FoldConstant and ir.evaluate;
their exceptions become the library's errors naming the op. ir.evaluate's
tensors are read without a copy (memoryview, DLPack, numpy when present)."""
import ctypes
import itertools

import pytest

import irm
from irm import ir

_count = itertools.count()


def _unique(prefix):
    # Ops live for the process: each test registers its own names (letters:
    # the text form's op names take no digits after the dot).
    n, suffix = next(_count), ""
    while True:
        n, r = divmod(n, 26)
        suffix += "abcdefghijklmnopqrstuvwxyz"[r]
        if not n:
            return "%s_%s" % (prefix, suffix)


def _same_type(arg_types, attrs):
    return arg_types[0]


def _square(inputs, attrs, result_type):
    x = inputs[0]
    scale = attrs.get("scale", 1.0)
    return irm.tensor([v * v * scale for v in x.tolist()], dtype=x.dtype)


def _register_square(name, calls=None):
    def infer(arg_types, attrs):
        if calls is not None:
            calls.append(("infer", [t.shape for t in arg_types], dict(attrs)))
        return arg_types[0]

    def evaluate(inputs, attrs, result_type):
        if calls is not None:
            calls.append(("evaluate", [t.shape for t in inputs], result_type))
        assert all(isinstance(t, irm.Tensor) for t in inputs)
        return _square(inputs, attrs, result_type)

    return ir.register_op(name, 1, attrs={"scale": {"type": "float", "default": 1.0,
                                                    "doc": "factor on the square"}},
                          infer_type=infer, evaluate=evaluate, pattern="elemwise")


def _text(op, call_attrs=""):
    return """#[version = "irm-0.1"]
def @main(%%x: Tensor[(4), float32]) {
  %%0 = %s(%%x%s);
  %%0
}
""" % (op, call_attrs)


def test_register_op_and_read_it_back():
    name = _unique("py.square")
    op = _register_square(name)
    assert isinstance(op, ir.Op) and op.name == name and op.same_as(ir.Op.get(name))
    assert name in ir.list_ops() and ir.list_ops() == sorted(ir.list_ops())
    assert op.num_inputs == 1
    assert op.list_options() == {"scale": "float"}
    assert op.get_attr("TOpPattern") == 0
    assert isinstance(op.get_attr("FInferType"), irm.Function)


def test_parsed_module_infers_and_evaluates_through_python():
    name = _unique("py.square")
    calls = []
    _register_square(name, calls)
    mod = ir.parse(_text(name, ", scale=2.0"))
    typed = irm.transform.Pass.get("InferType")(mod)
    body = typed["main"].body
    assert body.checked_type == ir.TensorType((4,), "float32")
    assert body.attrs == {"scale": 2.0}
    assert ("infer", [(4,)], {"scale": 2.0}) in calls
    out = ir.evaluate(typed, "main", [[1.0, 2.0, -3.0, 0.5]])
    assert isinstance(out, irm.Tensor)
    assert out.tolist() == [2.0, 8.0, 18.0, 0.5]
    assert calls[-1] == ("evaluate", [(4,)], ir.TensorType((4,), "float32"))


def test_default_attr_and_list_result_are_converted():
    name = _unique("py.plus1")

    def evaluate(inputs, attrs, result_type):
        # A nested list, not a Tensor: converted with the result's dtype.
        return [int(v) + attrs["k"] for v in inputs[0].tolist()]

    ir.register_op(name, 1, attrs={"k": {"type": "int", "default": 1}}, infer_type=_same_type,
                   evaluate=evaluate)
    x = ir.Var("x", ir.TensorType((3,), "int32"))
    mod = irm.IRModule({"main": ir.Function([x], ir.Call(name, [x]))})
    out = ir.evaluate(mod, "main", [irm.tensor([1, 2, 3], dtype="int32")])
    assert out.dtype == "int32" and out.tolist() == [2, 3, 4]


def test_tuple_result():
    name = _unique("py.split2")

    def infer(arg_types, attrs):
        return ir.TupleType([arg_types[0], arg_types[0]])

    def evaluate(inputs, attrs, result_type):
        assert isinstance(result_type, ir.TupleType)
        return (inputs[0], [0.0] * inputs[0].size)

    ir.register_op(name, 1, infer_type=infer, evaluate=evaluate, pattern=8)
    x = ir.Var("x", ir.TensorType((2,), "float32"))
    mod = irm.IRModule({"main": ir.Function([x], ir.Call(name, [x]))})
    first, second = ir.evaluate(mod, "main", [[1.0, 2.0]])
    assert isinstance(first, irm.Tensor) and isinstance(second, irm.Tensor)
    assert first.tolist() == [1.0, 2.0] and second.tolist() == [0.0, 0.0]


def test_fold_constant_folds_a_python_op_on_constants():
    name = _unique("py.square")
    calls = []
    _register_square(name, calls)
    c = ir.Constant(irm.tensor([1.0, -2.0, 3.0, 4.0]))
    x = ir.Var("x", ir.TensorType((4,), "float32"))
    body = ir.Call("add", [x, ir.Call(name, [c])])
    mod = irm.IRModule({"main": ir.Function([x], body)})
    seq = irm.transform.Sequential([irm.transform.Pass.get("InferType"),
                                    irm.transform.Pass.get("FoldConstant")])
    folded = seq(mod)
    new_body = folded["main"].body
    assert new_body.kind == "Call" and new_body.op.name == "add"
    const = new_body.args[1]
    assert const.kind == "Constant" and const.data.tolist() == [1.0, 4.0, 9.0, 16.0]
    assert any(c[0] == "evaluate" for c in calls)
    assert name not in ir.text(folded)


def test_infer_type_exception_names_the_op():
    name = _unique("py.bad_infer")

    def infer(arg_types, attrs):
        raise TypeError("inputs must be int32")

    ir.register_op(name, 1, infer_type=infer, evaluate=_square)
    mod = ir.parse(_text(name))
    with pytest.raises(TypeError) as info:
        irm.transform.Pass.get("InferType")(mod)
    assert name in str(info.value) and "inputs must be int32" in str(info.value)


def test_infer_type_value_error_keeps_its_kind():
    name = _unique("py.bad_infer")

    def infer(arg_types, attrs):
        raise ValueError("rank 3 expected")

    ir.register_op(name, 1, infer_type=infer)
    with pytest.raises(ValueError) as info:
        irm.transform.Pass.get("InferType")(ir.parse(_text(name)))
    assert name in str(info.value) and "rank 3 expected" in str(info.value)


def test_infer_type_wrong_return_type():
    name = _unique("py.bad_infer")
    ir.register_op(name, 1, infer_type=lambda arg_types, attrs: (4,))
    with pytest.raises(TypeError) as info:
        irm.transform.Pass.get("InferType")(ir.parse(_text(name)))
    assert name in str(info.value) and "not an irm.ir type" in str(info.value)


def test_evaluate_wrong_return_type_names_the_op():
    name = _unique("py.bad_eval")
    ir.register_op(name, 1, infer_type=_same_type,
                   evaluate=lambda inputs, attrs, result_type: "four")
    with pytest.raises(TypeError) as info:
        ir.evaluate(ir.parse(_text(name)), "main", [[1.0, 2.0, 3.0, 4.0]])
    assert name in str(info.value) and "str" in str(info.value)
    ir.register_op(name + "b", 1, infer_type=_same_type,
                   evaluate=lambda inputs, attrs, result_type: None)
    with pytest.raises(TypeError, match=name + "b"):
        ir.evaluate(ir.parse(_text(name + "b")), "main", [[1.0, 2.0, 3.0, 4.0]])


def test_evaluate_exception_names_the_op():
    name = _unique("py.bad_eval")

    def evaluate(inputs, attrs, result_type):
        raise IndexError("no element 7")

    ir.register_op(name, 1, infer_type=_same_type, evaluate=evaluate)
    with pytest.raises(IndexError) as info:
        ir.evaluate(ir.parse(_text(name)), "main", [[1.0, 2.0, 3.0, 4.0]])
    assert name in str(info.value) and "no element 7" in str(info.value)


def test_registration_errors_change_nothing():
    name = _unique("py.square")
    _register_square(name)
    with pytest.raises(KeyError, match=name):
        _register_square(name)
    with pytest.raises(KeyError, match="nn.relu"):
        ir.register_op("nn.relu", 1, infer_type=_same_type)
    bad = _unique("py.bad_schema")
    with pytest.raises(ValueError, match="flaot"):
        ir.register_op(bad, 1, attrs={"k": "flaot"}, infer_type=_same_type)
    with pytest.raises(ValueError, match="elemwise"):
        ir.register_op(bad, 1, infer_type=_same_type, pattern="elemwsie")
    with pytest.raises(ValueError, match="pattern"):
        ir.register_op(bad, 1, infer_type=_same_type, pattern=5)
    with pytest.raises(ValueError, match="num_inputs"):
        ir.register_op(bad, -2, infer_type=_same_type)
    with pytest.raises(TypeError, match="callable"):
        ir.register_op(bad, 1, infer_type="not a function")
    assert bad not in ir.list_ops()
    ir.register_op(bad, 1, attrs={"k": "float"}, infer_type=_same_type)  # the name is still free
    assert bad in ir.list_ops()


def test_unknown_op_names_the_closest():
    with pytest.raises(KeyError, match="nn.relu"):
        ir.Op.get("nn.rleu")


# ---- zero-copy reads of evaluate's results -----------------------------------------

class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("suboffsets", ctypes.c_void_p),
                ("internal", ctypes.c_void_p)]


def _buffer_address(obj):
    """The data pointer a buffer export of obj gives (PyObject_GetBuffer)."""
    view = _PyBuffer()
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
    release = ctypes.pythonapi.PyBuffer_Release
    release.argtypes = [ctypes.POINTER(_PyBuffer)]
    assert get(obj, ctypes.byref(view), 0) == 0
    try:
        return view.buf
    finally:
        release(ctypes.byref(view))


def _data_ptr(t):
    return irm.get_global_func("ffi.TensorData")(t).value


def _evaluated():
    name = _unique("py.square")
    _register_square(name)
    return ir.evaluate(ir.parse(_text(name)), "main", [[1.0, 2.0, 3.0, 4.0]])


def test_evaluate_result_is_shared_without_a_copy():
    out = _evaluated()
    ptr = _data_ptr(out)
    assert ptr
    view = memoryview(out)
    assert view.readonly and view.format == "f" and view.shape == (4,)
    assert _buffer_address(view) == ptr
    assert view.tolist() == [1.0, 4.0, 9.0, 16.0]
    back = irm.from_dlpack(out)
    assert _data_ptr(back) == ptr and back.tolist() == out.tolist()
    del out  # the view and the DLPack import keep the data alive
    assert view.tolist() == [1.0, 4.0, 9.0, 16.0] and back.tolist() == [1.0, 4.0, 9.0, 16.0]


def test_numpy_reads_evaluate_results_without_a_copy():
    numpy = pytest.importorskip("numpy")
    out = _evaluated()
    ptr = _data_ptr(out)
    if hasattr(numpy, "from_dlpack"):
        a = numpy.from_dlpack(out)
        assert a.ctypes.data == ptr and a.tolist() == [1.0, 4.0, 9.0, 16.0]
    b = numpy.asarray(memoryview(out))
    assert b.ctypes.data == ptr and b.dtype == numpy.float32 and not b.flags.writeable
    c = numpy.asarray(out)
    assert c.ctypes.data == ptr


def test_builtin_ops_evaluate_on_the_example_model():
    if irm.get_global_func("ir.ExampleModel", allow_missing=True) is None:
        pytest.skip("ir.ExampleModel is not registered in this build yet")
    mod = irm.transform.Pass.get("InferType")(ir.example_model())
    main = mod["main"] if "main" in mod else mod[mod.function_names[0]]
    name = "main" if "main" in mod else mod.function_names[0]
    inputs = []
    for p in main.params:
        t = p.type_annotation
        size = 1
        for d in t.shape:
            size *= d
        flat = [((i % 7) - 3) * 0.25 for i in range(size)]
        inputs.append(irm.tensor(flat, dtype=t.dtype) if len(t.shape) <= 1 else
                      _reshape(flat, t.shape, t.dtype))
    out = ir.evaluate(mod, name, inputs)
    results = out if isinstance(out, list) else [out]
    assert results and all(isinstance(r, irm.Tensor) for r in results)
    assert _buffer_address(memoryview(results[0])) == _data_ptr(results[0])


def _reshape(flat, shape, dtype):
    nested = flat
    for d in reversed(shape[1:]):
        nested = [nested[i:i + d] for i in range(0, len(nested), d)]
    return irm.tensor(nested, dtype=dtype)


def test_op_names_must_be_identifiers_of_the_text_form():
    # Regression: op.Register("a b") was accepted; no text could call it.
    for bad in ("a b", "py.1x", "const"):
        with pytest.raises(ValueError, match="op name '%s' is" % bad):
            ir.register_op(bad, 1, infer_type=_same_type, evaluate=_square)
        assert bad not in ir.list_ops()


def test_an_evaluate_result_of_the_wrong_shape_is_an_error_naming_the_op():
    # Regression: a Python op's result was used whatever its shape.
    name = _unique("py.wrong")
    ir.register_op(name, 1, infer_type=_same_type,
                   evaluate=lambda inputs, attrs, result_type: irm.tensor([1.0, 2.0, 3.0]))
    mod = ir.parse(_text(name))
    with pytest.raises(TypeError, match="%s: FEvaluate returned Tensor\\(float32, \\[3\\].*does not "
                                        "match the call's type Tensor\\[\\(4,\\), float32\\]" % name):
        ir.evaluate(mod, "main", [irm.tensor([1.0, 2.0, 3.0, 4.0])])
