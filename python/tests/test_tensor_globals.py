"""The ffi.Tensor* globals reached from Python through the generic call path
(irm.get_global_func), with bytes passed by address and DLPack pointers
handed back and forth. A Tensor class of the package may build on these."""
import ctypes

import pytest

import irm


def _g(name):
    return irm.get_global_func(name)


def test_tensor_copies_data_and_reads_back():
    data = (ctypes.c_float * 4)(1.0, 2.5, -3.0, 4.0)
    t = _g("ffi.Tensor")("float32", [2, 2], ctypes.cast(data, ctypes.c_void_p))
    assert list(_g("ffi.TensorShape")(t)) == [2, 2]
    assert _g("ffi.TensorDtype")(t) == "float32"
    nbytes = _g("ffi.TensorNbytes")(t)
    assert nbytes == 16
    ptr = _g("ffi.TensorData")(t)
    assert isinstance(ptr, ctypes.c_void_p) and ptr.value != ctypes.addressof(data)
    assert ctypes.string_at(ptr.value, nbytes) == bytes(data)
    assert _g("ffi.Repr")(t) == "Tensor(float32, [2, 2], [[1.0, 2.5], [-3.0, 4.0]])"
    back = irm.from_json(_g("ffi.ToJSON")(t))
    assert _g("ffi.StructuralEqual")(t, back)


def test_tensor_without_data_is_zeros_and_errors_name_the_argument():
    t = _g("ffi.Tensor")("int8", [3])
    assert ctypes.string_at(_g("ffi.TensorData")(t).value, 3) == b"\0\0\0"
    with pytest.raises(ValueError, match="did you mean 'float32'"):
        _g("ffi.Tensor")("flaot32", [1])
    with pytest.raises(ValueError, match="dimension 0 is negative"):
        _g("ffi.Tensor")("int8", [-1])


def test_dlpack_pointers_round_trip_without_copies():
    t = _g("ffi.Tensor")("uint8", [2])
    managed = _g("ffi.TensorToDLPack")(t)
    back = _g("ffi.TensorFromDLPack")(managed)  # takes the DLManagedTensor over
    assert _g("ffi.TensorData")(back).value == _g("ffi.TensorData")(t).value
