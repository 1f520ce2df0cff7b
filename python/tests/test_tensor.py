"""irm.Tensor: making tensors from Python values and buffers, reading them,
DLPack both ways and the buffer protocol, all without numpy; the numpy
exchange only where numpy is installed."""
import array
import ctypes
import gc
import struct
import sys

import pytest

import irm
from irm import _ffi


def _ptr(t):
    # ffi.TensorData: where the tensor's bytes are.
    return _ffi._global("ffi.TensorData")(t).value


# ---- making and reading -------------------------------------------------------

def test_nested_lists_infer_the_dtype_and_read_back():
    t = irm.tensor([[1, 2, 3], [4, 5, 6]])
    assert isinstance(t, irm.Tensor)
    assert (t.shape, t.dtype, t.nbytes, t.ndim, t.size) == ((2, 3), "int32", 24, 2, 6)
    assert t.tolist() == [[1, 2, 3], [4, 5, 6]]
    assert len(t) == 2
    assert irm.tensor([1.5, 2]).dtype == "float32"
    assert irm.tensor([True, False]).tolist() == [True, False]
    assert irm.tensor([True, False]).dtype == "bool"
    assert irm.tensor([]).shape == (0,)
    scalar = irm.tensor(2.5)
    assert (scalar.shape, scalar.tolist()) == ((), 2.5)
    with pytest.raises(TypeError, match="0-d"):
        len(scalar)


@pytest.mark.parametrize("dtype,values", [
    ("float32", [[1.5, -2.0]]), ("float16", [[0.5, 65504.0]]), ("int32", [[-7, 2 ** 31 - 1]]),
    ("int8", [[-128, 127]]), ("uint8", [[0, 255]]), ("bool", [[True, False]])])
def test_every_dtype_round_trips(dtype, values):
    t = irm.tensor(values, dtype=dtype)
    assert t.dtype == dtype and t.shape == (1, 2)
    assert t.tolist() == values
    assert irm.Tensor(values, dtype).tolist() == values
    assert irm.tensor(t).tolist() == values  # a copy
    assert _ptr(irm.tensor(t)) != _ptr(t)


def test_tensors_compare_structurally_and_print():
    a, b = irm.tensor([1, 2]), irm.tensor([1, 2])
    assert a == b and hash(a) == hash(b) and not a.same_as(b)
    assert a != irm.tensor([1, 3])
    assert repr(a) == "Tensor(int32, [2], [1, 2])"
    assert irm.from_json(a.to_json()) == a


def test_zero_size_shapes():
    t = irm.tensor([[], []], dtype="float32")
    assert t.shape == (2, 0) and t.nbytes == 0
    assert t.tolist() == [[], []]
    assert memoryview(t).shape == (2, 0)
    assert memoryview(t).tobytes() == b""


def test_conversion_errors_name_the_value_and_dtype():
    with pytest.raises(ValueError, match="300 does not fit in uint8"):
        irm.tensor([300], dtype="uint8")
    with pytest.raises(TypeError, match="int32 element must be an int, got float"):
        irm.tensor([1.5], dtype="int32")
    with pytest.raises(TypeError, match="must be a number, got str"):
        irm.tensor(["a"], dtype="float32")
    with pytest.raises(TypeError, match="bool element"):
        irm.tensor([2], dtype="bool")
    with pytest.raises(ValueError, match="does not fit in float16"):
        irm.tensor([1e6], dtype="float16")
    with pytest.raises(ValueError, match="ragged"):
        irm.tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match="ragged"):
        irm.tensor([[1, 2], 3])
    with pytest.raises(ValueError, match="did you mean 'float32'"):
        irm.tensor([1], dtype="flaot32")
    with pytest.raises(ValueError, match="unsupported dtype 'uint16'|unknown dtype 'uint16'"):
        irm.tensor([1], dtype="uint16")


# ---- buffers in -----------------------------------------------------------------

def test_buffers_are_copied_with_their_format_and_shape():
    src = array.array("f", [1.0, 2.0, 3.0, 4.0])
    t = irm.tensor(memoryview(src).cast("B").cast("f", (2, 2)))
    assert (t.dtype, t.shape, t.tolist()) == ("float32", (2, 2), [[1.0, 2.0], [3.0, 4.0]])
    assert _ptr(t) != src.buffer_info()[0]
    src[0] = 9.0
    assert t.tolist()[0][0] == 1.0  # a copy
    assert irm.tensor(b"\x01\xff").tolist() == [1, 255]
    assert irm.tensor(b"\x01\xff").dtype == "uint8"
    assert irm.tensor(array.array("b", [-1, 2])).dtype == "int8"
    assert irm.tensor(array.array("i", [5])).dtype == "int32"
    assert irm.tensor(array.array("B", [1, 2]), dtype="float32").tolist() == [1.0, 2.0]


def test_a_uint16_buffer_is_refused_naming_the_dtype_unless_converted():
    shorts = array.array("H", [1, 2])
    with pytest.raises(ValueError, match="uint16 is not a supported dtype"):
        irm.tensor(shorts)
    assert irm.tensor(shorts, dtype="float32").tolist() == [1.0, 2.0]


def test_float64_and_int64_buffers_keep_their_dtype():
    doubles = array.array("d", [1.0, 2.5])
    t = irm.tensor(doubles)
    assert (t.dtype, t.tolist()) == ("float64", [1.0, 2.5])
    assert irm.tensor(doubles, dtype="float32").tolist() == [1.0, 2.5]
    big = irm.tensor(array.array("q", [1 << 62, -3]))
    assert (big.dtype, big.tolist()) == ("int64", [1 << 62, -3])
    assert irm.tensor([1, 2], dtype="int64").dtype == "int64"
    with pytest.raises(ValueError, match="does not fit in int64"):
        irm.tensor([1 << 63], dtype="int64")
    assert irm.tensor(memoryview(doubles), dtype="float16").tolist() == [1.0, 2.5]


# ---- buffers out ------------------------------------------------------------------

@pytest.mark.parametrize("dtype,fmt", [("float32", "f"), ("float16", "e"), ("int32", "i"),
                                       ("int8", "b"), ("uint8", "B"), ("bool", "?")])
def test_memoryview_shares_the_data_with_format_and_shape(dtype, fmt):
    t = irm.tensor([[1, 0, 1], [0, 1, 1]], dtype=dtype)
    view = memoryview(t)
    assert (view.format, view.shape, view.readonly) == (fmt, (2, 3), True)
    assert view.itemsize == struct.calcsize(fmt) and view.nbytes == t.nbytes
    assert view.strides == (3 * view.itemsize, view.itemsize)
    assert view.tobytes() == ctypes.string_at(_ptr(t), t.nbytes)
    if fmt != "e":  # memoryview.tolist has no float16 before Python 3.12
        assert view.tolist() == t.tolist()
    assert bytes(t) == t.tobytes()


def test_memoryview_data_pointer_is_the_tensor_data():
    t = irm.tensor([1.0, 2.0, 3.0])
    assert ctypes.string_at(_ptr(t), 12) == memoryview(t).tobytes()
    # the exported buffer's address is the tensor's data (zero-copy)
    buf = ctypes.c_void_p()
    size = ctypes.c_ssize_t()
    pythonapi = ctypes.PyDLL(None)
    getbuf = pythonapi.PyObject_GetBuffer

    class PyBuffer(ctypes.Structure):
        _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                    ("rest", ctypes.c_char * 64)]

    pb = PyBuffer()
    getbuf.argtypes = [ctypes.py_object, ctypes.POINTER(PyBuffer), ctypes.c_int]
    getbuf.restype = ctypes.c_int
    assert getbuf(t, ctypes.byref(pb), 0) == 0
    buf.value, size.value = pb.buf, pb.len
    release = pythonapi.PyBuffer_Release
    release.argtypes = [ctypes.POINTER(PyBuffer)]
    release.restype = None
    release(ctypes.byref(pb))
    assert (buf.value, size.value) == (_ptr(t), 12)


def test_the_view_keeps_the_tensor_alive():
    view = memoryview(irm.tensor([7, 8, 9], dtype="int8"))
    gc.collect()
    assert view.tolist() == [7, 8, 9]
    scalar = memoryview(irm.tensor(3, dtype="int32"))
    assert (scalar.shape, scalar.tolist()) == ((), 3)


def test_writable_buffer_requests_are_refused():
    t = irm.tensor([1, 2], dtype="int32")
    with pytest.raises(TypeError, match="read-write"):
        struct.pack_into("i", t, 0, 5)
    assert t.tolist() == [1, 2]


# ---- DLPack ----------------------------------------------------------------------------

def test_dlpack_round_trip_shares_the_data_and_deletes_once():
    t = irm.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert t.__dlpack_device__() == (1, 0)
    base = t._refcount
    capsule = t.__dlpack__()
    assert type(capsule).__name__ == "PyCapsule" and "dltensor" in repr(capsule)
    assert t._refcount == base + 1  # the managed tensor holds a reference
    back = irm.from_dlpack(capsule)
    assert "used_dltensor" in repr(capsule)  # consumed, per the DLPack protocol
    assert _ptr(back) == _ptr(t) and back.tolist() == t.tolist() and not back.same_as(t)
    del capsule
    gc.collect()
    assert t._refcount == base + 1  # the consumed capsule deleted nothing
    del back
    gc.collect()
    assert t._refcount == base  # the deleter ran exactly once


def test_an_unconsumed_capsule_calls_the_deleter_when_it_dies():
    t = irm.tensor([1, 2, 3], dtype="uint8")
    base = t._refcount
    capsule = t.__dlpack__()
    assert t._refcount == base + 1
    del capsule
    gc.collect()
    assert t._refcount == base
    # from an object with __dlpack__ directly
    back = irm.from_dlpack(t)
    assert _ptr(back) == _ptr(t) and t._refcount == base + 1
    del back
    assert t._refcount == base


def test_dlpack_errors():
    t = irm.tensor([1, 2])
    capsule = t.__dlpack__()
    irm.from_dlpack(capsule)
    with pytest.raises(ValueError, match="consumed already"):
        irm.from_dlpack(capsule)
    with pytest.raises(TypeError, match="has no __dlpack__"):
        irm.from_dlpack([1, 2])
    with pytest.raises(BufferError, match="stream"):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="CPU"):
        t.__dlpack__(dl_device=(2, 0))
    copied = irm.from_dlpack(t.__dlpack__(copy=True))
    assert _ptr(copied) != _ptr(t) and copied == t

    class OnGpu:
        def __dlpack__(self, stream=None):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            return (2, 0)

    with pytest.raises(BufferError, match="device type 2"):
        irm.from_dlpack(OnGpu())


def test_a_refused_capsule_is_left_to_its_destructor():
    # A DLPack tensor of a dtype irm does not have: the library refuses it
    # and takes nothing, so the capsule's destructor frees it.
    t = irm.tensor([1, 2, 3, 4], dtype="int32")
    base = t._refcount
    capsule = t.__dlpack__()
    module = sys.modules["irm.tensor"]
    managed = module._PyCapsule_GetPointer(capsule, b"dltensor")
    dl = module._DLManagedTensor.from_address(managed).dl_tensor
    dl.dtype.bits = 16  # now an int16 tensor
    with pytest.raises(ValueError, match="int16|dtype"):
        irm.from_dlpack(capsule)
    assert "used" not in repr(capsule)
    del capsule
    gc.collect()
    assert t._refcount == base


def test_from_dlpack_checks_the_byte_offset():
    # Regression: byte_offset was added to the data pointer unchecked. A
    # misaligned or overflowing one is refused; the capsule keeps its tensor.
    t = irm.tensor([1, 2, 3, 4], dtype="int32")
    base = t._refcount
    module = sys.modules["irm.tensor"]
    for offset, message in ((2, "byte_offset 2 is not aligned for int32"),
                            (2**64 - 4, "byte_offset 18446744073709551612 .*overflows")):
        capsule = t.__dlpack__()
        managed = module._PyCapsule_GetPointer(capsule, b"dltensor")
        module._DLManagedTensor.from_address(managed).dl_tensor.byte_offset = offset
        with pytest.raises(ValueError, match=message):
            irm.from_dlpack(capsule)
        assert "used" not in repr(capsule)
        del capsule
    gc.collect()
    assert t._refcount == base
    capsule = t.__dlpack__()
    managed = module._PyCapsule_GetPointer(capsule, b"dltensor")
    dl = module._DLManagedTensor.from_address(managed).dl_tensor
    dl.byte_offset = 8  # two int32s in, with a shape of two: fine
    shape = (ctypes.c_int64 * 1)(2)  # our own: the exported shape is t's
    dl.shape = ctypes.addressof(shape)
    assert irm.from_dlpack(capsule).tolist() == [3, 4]


# ---- numpy (only where installed) ----------------------------------------------------------

def test_numpy_exchange_without_copies():
    numpy = pytest.importorskip("numpy")
    t = irm.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = t.numpy()
    assert a.shape == (2, 2) and a.dtype == numpy.float32 and not a.flags.writeable
    assert a.ctypes.data == _ptr(t)
    assert numpy.asarray(t).ctypes.data == _ptr(t)
    assert irm.tensor(numpy.arange(6, dtype=numpy.int8).reshape(2, 3)).tolist() == [[0, 1, 2], [3, 4, 5]]
    if hasattr(numpy, "from_dlpack"):
        src = numpy.arange(4, dtype=numpy.float32)
        back = irm.from_dlpack(src)
        assert _ptr(back) == src.ctypes.data
        assert numpy.from_dlpack(t).ctypes.data == _ptr(t)
    with pytest.raises(ValueError, match="uint16"):
        irm.tensor(numpy.zeros(2, dtype=numpy.uint16))
    assert irm.tensor(numpy.zeros(2)).dtype == "float64"
    half = irm.tensor([0.5, 1.5], dtype="float16")
    assert half.numpy().dtype == numpy.float16 and half.numpy().tolist() == [0.5, 1.5]
    assert sys.getrefcount(t) >= 2


def test_float64_and_int64_round_trip_through_json_and_dlpack():
    for t in (irm.tensor([0.1, -2.5], dtype="float64"), irm.tensor([1 << 40, -7], dtype="int64")):
        back = irm.from_json(t.to_json())
        assert (back.dtype, back.tolist()) == (t.dtype, t.tolist())
        again = irm.from_dlpack(t)
        assert (again.dtype, again.tolist()) == (t.dtype, t.tolist())


def test_contiguous_buffers_are_copied_straight_from_their_memory():
    numpy = pytest.importorskip("numpy")
    src = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
    t = irm.tensor(src)  # one copy, read from the buffer itself (no bytes object between)
    src[0, 0] = 99.0
    assert t.tolist()[0][0] == 0.0 and t.tolist()[2] == [8.0, 9.0, 10.0, 11.0]
    ro = numpy.frombuffer(bytes(range(6)), dtype=numpy.uint8).reshape(2, 3)  # a read-only buffer
    assert irm.tensor(ro).tolist() == [[0, 1, 2], [3, 4, 5]]
    for view in (src[:, ::2], numpy.asfortranarray(src), numpy.zeros((0, 3), numpy.float32),
                 numpy.array(2.5, numpy.float32)):
        assert irm.tensor(view).tolist() == view.tolist()
