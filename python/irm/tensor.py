"""Tensors (ffi.Tensor): dense CPU arrays shared with other libraries without
copies, through DLPack (``__dlpack__``, :func:`from_dlpack`) and the buffer
protocol (``memoryview(t)``, ``numpy.asarray(t)``). numpy is optional.

The dtypes are float32, float16, int32, int8, uint8, float64, int64 and bool. A tensor is
read-only once made: its buffer is exported read-only, and DLPack consumers
must not write through what they get.
"""
import ctypes
import struct
import sys

from ._ffi import Object, register_object, _global, api_global

# dtype -> struct/buffer format character, and back.
_FORMATS = {"float32": "f", "float16": "e", "int32": "i", "int8": "b", "uint8": "B", "float64": "d", "int64": "q",
            "bool": "?"}
_SIZES = {"float32": 4, "float16": 2, "int32": 4, "int8": 1, "uint8": 1, "float64": 8, "int64": 8, "bool": 1}
_FORMAT_BYTES = {name: fmt.encode() for name, fmt in _FORMATS.items()}  # kept alive: views point at them
# Buffer formats irm has no dtype for, named for the message.
_OTHER_FORMATS = {"Q": "uint64", "h": "int16", "H": "uint16",
                  "I": "uint32", "c": "char", "n": "ssize_t", "N": "size_t", "P": "pointer"}
_INT_RANGES = {"int64": (-(1 << 63), (1 << 63) - 1), "int32": (-(1 << 31), (1 << 31) - 1),
               "int8": (-128, 127), "uint8": (0, 255)}


def _dtype_of_format(fmt, itemsize):
    """The irm dtype of a buffer format (or None), and a name for it."""
    code = fmt
    if code[:1] in ("@", "=") or (code[:1] == "<" and sys.byteorder == "little"):
        code = code[1:]
    if code in ("l", "L"):  # C long: int32 or int64 by platform
        code = {("l", 4): "i", ("L", 4): "I", ("l", 8): "q", ("L", 8): "Q"}.get((code, itemsize), code)
    for name, char in _FORMATS.items():
        if code == char and _SIZES[name] == itemsize:
            return name, name
    return None, _OTHER_FORMATS.get(code, "format %r" % fmt)


def _check_dtype(dtype):
    if dtype not in _FORMATS:
        # The library's message: the closest dtype and the list of them.
        api_global("tensor()", "ffi.Tensor", "dtype shape", "data dtype")(str(dtype), [0])
        raise ValueError("tensor(): unknown dtype %r" % (dtype,))  # not reached


def _flatten(data):
    """(shape, flat list of elements) of nested lists/tuples, level by level
    (no recursion). ValueError for ragged nesting."""
    if not isinstance(data, (list, tuple)):
        return (), [data]
    shape, level = [], [data]
    while True:
        sizes = {len(x) for x in level}
        if len(sizes) != 1:
            raise ValueError("irm.tensor: ragged nested sequence at dimension %d (lengths %s)"
                             % (len(shape), sorted(sizes)))
        shape.append(sizes.pop())
        items = [y for x in level for y in x]
        if not items:
            return tuple(shape), []
        nested = [isinstance(y, (list, tuple)) for y in items]
        if not any(nested):
            return tuple(shape), items
        if not all(nested):
            raise ValueError("irm.tensor: ragged nested sequence at dimension %d (sequences mixed "
                             "with scalars)" % len(shape))
        level = items


def _infer_dtype(flat):
    if flat and all(isinstance(v, bool) for v in flat):
        return "bool"
    if flat and all(isinstance(v, int) or _is_integer(v) for v in flat):
        return "int32"
    return "float32"


def _is_integer(v):
    try:
        import numpy
        return isinstance(v, (numpy.integer, numpy.bool_))
    except ImportError:
        return False


def _convert(flat, dtype):
    """The elements as Python values struct packs for dtype."""
    out = []
    if dtype in ("float32", "float16", "float64"):
        for v in flat:
            if isinstance(v, (str, bytes)) or v is None:
                raise TypeError("irm.tensor: %s element must be a number, got %s"
                                % (dtype, type(v).__name__))
            out.append(float(v))
    elif dtype == "bool":
        for v in flat:
            if isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)) or _is_integer(v):
                out.append(bool(v))
            else:
                raise TypeError("irm.tensor: bool element must be a bool (or 0 or 1), got %r" % (v,))
    else:
        lo, hi = _INT_RANGES[dtype]
        for v in flat:
            if not (isinstance(v, int) or _is_integer(v)):
                raise TypeError("irm.tensor: %s element must be an int, got %s %r"
                                % (dtype, type(v).__name__, v))
            v = int(v)
            if not lo <= v <= hi:
                raise ValueError("irm.tensor: %d does not fit in %s [%d, %d]" % (v, dtype, lo, hi))
            out.append(v)
    return out


def _make(dtype, shape, raw):
    """A new tensor of dtype and shape holding the bytes raw (copied)."""
    if raw:
        return _global("ffi.Tensor")(dtype, list(shape), ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p))
    return _global("ffi.Tensor")(dtype, list(shape))


def _make_from_contiguous(dtype, view):
    """A new tensor copying a C-contiguous view's bytes straight from its buffer: no bytes
    object in between (weights of tens of MB are copied once, not twice)."""
    buf = _PyBuffer()
    _PyObject_GetBuffer(view, ctypes.byref(buf), _PyBUF_ND)
    try:
        return _global("ffi.Tensor")(dtype, list(view.shape), ctypes.c_void_p(buf.buf))
    finally:
        _PyBuffer_Release(ctypes.byref(buf))


def _from_values(shape, flat, dtype):
    values = _convert(flat, dtype)
    try:
        raw = struct.pack("<%d%s" % (len(values), _FORMATS[dtype]), *values)
    except (OverflowError, struct.error) as err:  # float16 out of range
        raise ValueError("irm.tensor: a value does not fit in %s: %s" % (dtype, err)) from None
    return _make(dtype, shape, raw)


def _from_buffer(view, dtype):
    name, what = _dtype_of_format(view.format, view.itemsize)
    if name is None and dtype is None:
        raise ValueError("irm.tensor: buffer of %s is not a supported dtype (the dtypes are %s); "
                         "pass dtype= to convert" % (what, ", ".join(_FORMATS)))
    if name is not None and (dtype is None or dtype == name):
        if view.c_contiguous and view.nbytes:
            return _make_from_contiguous(name, view)
        return _make(name, view.shape, view.tobytes())
    # Convert element by element (Python's float64 and int64 views read fine).
    try:
        flat = view.cast("B").cast(view.format).tolist() if view.ndim != 1 else view.tolist()
    except (TypeError, ValueError, NotImplementedError):
        flat = list(struct.unpack("%d%s" % (view.nbytes // view.itemsize, view.format.lstrip("@=<")),
                                  view.tobytes()))
    return _from_values(view.shape, flat, dtype)


def tensor(data, dtype=None):
    """A new tensor holding a copy of data: nested lists or tuples of numbers,
    a number (a 0-d tensor), or any object with the buffer protocol (bytes,
    array.array, memoryview, numpy arrays) whose format is one of the
    dtypes. dtype (a name) converts; without it, lists give bool when every
    element is a bool, int32 when every one is an int, else float32."""
    if dtype is not None:
        _check_dtype(dtype)
    if isinstance(data, Tensor):
        if dtype is None or dtype == data.dtype:
            return _make(data.dtype, data.shape, data.tobytes())
        return _from_values(data.shape, _flatten(data.tolist())[1], dtype)
    if not isinstance(data, (list, tuple, int, float)):
        try:
            view = memoryview(data)
        except TypeError:
            view = None
        if view is not None:
            with view:
                return _from_buffer(view, dtype)
    shape, flat = _flatten(data)
    return _from_values(shape, flat, dtype or _infer_dtype(flat))


# ---- DLPack ----------------------------------------------------------------

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


# Capsule names must outlive the capsules (PyCapsule keeps the pointer).
_DLTENSOR = b"dltensor"
_USED_DLTENSOR = b"used_dltensor"
_DLTENSOR_P = ctypes.c_char_p(_DLTENSOR)
_USED_DLTENSOR_P = ctypes.c_char_p(_USED_DLTENSOR)


def _capi(name, restype, *argtypes):
    # Our own PyDLL handle, so that the argtypes set here reach no one else's
    # use of ctypes.pythonapi.
    fn = getattr(ctypes.PyDLL(None), name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_PyCapsule_New = _capi("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                       ctypes.c_void_p)
_PyCapsule_IsValid = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_PyCapsule_GetPointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object,
                              ctypes.c_char_p)
_PyCapsule_SetName = _capi("PyCapsule_SetName", ctypes.c_int, ctypes.py_object, ctypes.c_char_p)
_PyCapsule_GetName = _capi("PyCapsule_GetName", ctypes.c_char_p, ctypes.py_object)
# The destructor sees a capsule whose count is already 0: it must take no
# reference to it, so these read it through a raw pointer.
_raw_IsValid = _capi("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_raw_GetPointer = _capi("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)


def _call_deleter(managed):
    deleter = _DLManagedTensor.from_address(managed).deleter
    if deleter:
        _DELETER(deleter)(managed)


def _capsule_destructor(capsule):
    # A capsule nobody consumed still owns its DLManagedTensor; a consumer
    # renamed it "used_dltensor" and owns it then.
    if _raw_IsValid(capsule, _DLTENSOR_P):
        _call_deleter(_raw_GetPointer(capsule, _DLTENSOR_P))


_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_capsule_destructor)


def from_dlpack(obj):
    """A tensor sharing the memory of obj, without a copy: any object with
    ``__dlpack__`` (numpy >= 1.22 arrays, torch CPU tensors, irm tensors) or a
    DLPack capsule, which this consumes. CPU only; the dtypes are irm's."""
    if type(obj).__name__ == "PyCapsule":
        capsule = obj
    else:
        export = getattr(obj, "__dlpack__", None)
        if export is None:
            raise TypeError("irm.from_dlpack: %s has no __dlpack__ and is not a DLPack capsule"
                            % type(obj).__name__)
        device = getattr(obj, "__dlpack_device__", None)
        if device is not None:
            kind = tuple(device())[0]
            if int(kind) != 1:
                raise BufferError("irm.from_dlpack: irm tensors live on the CPU (device type 1), "
                                  "got device type %d" % int(kind))
        capsule = export()
    if not _PyCapsule_IsValid(capsule, _DLTENSOR_P):
        name = _PyCapsule_GetName(capsule) if type(capsule).__name__ == "PyCapsule" else None
        raise ValueError("irm.from_dlpack: expected a capsule named 'dltensor', got %s"
                         % (repr(name.decode()) if name else type(capsule).__name__)
                         + (" (consumed already)" if name == _USED_DLTENSOR else ""))
    managed = _PyCapsule_GetPointer(capsule, _DLTENSOR_P)
    # On failure the library takes nothing: the capsule keeps its tensor and
    # its destructor frees it.
    made = api_global("from_dlpack()", "ffi.TensorFromDLPack", "obj")(ctypes.c_void_p(managed))
    _PyCapsule_SetName(capsule, _USED_DLTENSOR_P)
    return made


# ---- the buffer protocol ----------------------------------------------------

class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_void_p), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("suboffsets", ctypes.c_void_p),
                ("internal", ctypes.c_void_p)]


_PyBUF_WRITABLE, _PyBUF_FORMAT, _PyBUF_ND, _PyBUF_STRIDES = 0x1, 0x4, 0x8, 0x18
_PyObject_GetBuffer = _capi("PyObject_GetBuffer", ctypes.c_int, ctypes.py_object, ctypes.c_void_p,
                            ctypes.c_int)
_PyBuffer_Release = _capi("PyBuffer_Release", None, ctypes.c_void_p)


def _holder(t):
    """A ctypes char array over t's bytes that keeps t (and the shape and
    strides a buffer view points at) alive."""
    nbytes = t.nbytes
    ptr = t._data_ptr
    arr = (ctypes.c_char * nbytes).from_address(ptr) if ptr else (ctypes.c_char * 0)()
    shape = t.shape
    itemsize = _SIZES[t.dtype]
    strides, step = [], itemsize
    for dim in reversed(shape):
        strides.insert(0, step)
        step *= dim
    arr.irm_tensor = t
    arr.irm_shape = (ctypes.c_ssize_t * max(len(shape), 1))(*shape)
    arr.irm_strides = (ctypes.c_ssize_t * max(len(shape), 1))(*strides)
    return arr


def _getbuffer(exporter, view, flags):
    # bf_getbuffer of Tensor. It cannot raise through ctypes: a refusal
    # returns -1, which Python reports as a TypeError or SystemError.
    try:
        if flags & _PyBUF_WRITABLE:
            return -1  # tensors are read-only once made
        arr = _holder(exporter)
        if _PyObject_GetBuffer(arr, view, 0) != 0:  # sets view->obj = arr, never fails
            return -1
        v = _PyBuffer.from_address(view)
        v.readonly = 1
        v.suboffsets = None
        if flags & _PyBUF_ND == _PyBUF_ND:
            v.itemsize = _SIZES[exporter.dtype]
            v.ndim = len(exporter.shape)
            v.shape = ctypes.addressof(arr.irm_shape) if v.ndim else None
            v.strides = (ctypes.addressof(arr.irm_strides)
                         if v.ndim and flags & _PyBUF_STRIDES == _PyBUF_STRIDES else None)
            fmt = _FORMAT_BYTES[exporter.dtype]
        else:  # a flat run of bytes
            v.itemsize, v.ndim, v.shape, v.strides = 1, 1, None, None
            fmt = b"B"
        v.format = ctypes.cast(ctypes.c_char_p(fmt), ctypes.c_void_p).value \
            if flags & _PyBUF_FORMAT else None
        return 0
    except BaseException:  # noqa: B902 - nothing may escape into C
        return -1


_GETBUFFER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p, ctypes.c_int)


def _install_buffer_slot(cls):
    """Gives cls a bf_getbuffer (memoryview(t) on any Python 3; __buffer__
    needs 3.12) by writing the slot of its heap type. Checks the type's
    layout first; False when it is not the one expected."""
    if ctypes.sizeof(ctypes.c_void_p) != 8:
        return False
    base = id(cls)
    ssize = ctypes.c_ssize_t
    if (ssize.from_address(base + 32).value != cls.__basicsize__
            or ssize.from_address(base + 40).value != cls.__itemsize__
            or ctypes.c_ulong.from_address(base + 168).value != cls.__flags__):
        return False
    procs = ctypes.c_void_p.from_address(base + 160).value  # tp_as_buffer
    # A heap type's PyBufferProcs live inside its own type object.
    if not procs or not base < procs < base + type(cls).__basicsize__:
        return False
    slots = (ctypes.c_void_p * 2).from_address(procs)
    if slots[0] or slots[1]:
        return False
    callback = _GETBUFFER(_getbuffer)
    cls._irm_getbuffer = callback  # lives as long as the class
    slots[0] = ctypes.cast(callback, ctypes.c_void_p).value
    return True


@register_object("ffi.Tensor")
class Tensor(Object):
    """A dense CPU tensor (ffi.Tensor). ``Tensor(data, dtype=None)`` is
    :func:`irm.tensor`. Read-only; shares its memory through DLPack and the
    buffer protocol."""

    __slots__ = ()

    def __init__(self, data, dtype=None):
        self._take(tensor(data, dtype))

    @property
    def shape(self):
        return tuple(_global("ffi.TensorShape")(self))

    @property
    def dtype(self):
        return _global("ffi.TensorDtype")(self)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        """The element count (1 for a 0-d tensor)."""
        n = 1
        for dim in self.shape:
            n *= dim
        return n

    @property
    def nbytes(self):
        return _global("ffi.TensorNbytes")(self)

    @property
    def _data_ptr(self):
        return _global("ffi.TensorData")(self).value or 0

    def tobytes(self):
        """The data, row-major, as bytes."""
        n = self.nbytes
        return ctypes.string_at(self._data_ptr, n) if n else b""

    def tolist(self):
        """The elements as nested lists of Python numbers (a number for a 0-d
        tensor)."""
        shape = self.shape
        items = list(struct.unpack("<%d%s" % (self.size, _FORMATS[self.dtype]), self.tobytes()))
        if not shape:
            return items[0]
        # Group innermost dimensions first; a zero anywhere gives empty lists.
        groups = self.size
        for k in range(len(shape) - 1, 0, -1):
            dim = shape[k]
            groups = 1
            for d in shape[:k]:
                groups *= d
            items = [items[i * dim:(i + 1) * dim] for i in range(groups)]
        return items

    def numpy(self):
        """A read-only numpy array sharing this tensor's memory (needs numpy)."""
        import numpy
        return numpy.asarray(memoryview(self))

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule ("dltensor") sharing this tensor's data. CPU
        only: stream must be None."""
        del max_version  # irm gives unversioned capsules, which every consumer reads
        if stream is not None:
            raise BufferError("irm tensors live on the CPU: stream must be None, got %r" % (stream,))
        if dl_device is not None and tuple(dl_device) != (1, 0):
            raise BufferError("irm tensors live on the CPU (1, 0); cannot export to %r" % (dl_device,))
        source = tensor(self) if copy else self
        managed = _global("ffi.TensorToDLPack")(source).value
        try:
            return _PyCapsule_New(managed, _DLTENSOR_P, ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p))
        except BaseException:
            _call_deleter(managed)
            raise

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]


if not _install_buffer_slot(Tensor) and sys.version_info >= (3, 12):
    def _buffer(self, flags):  # PEP 688 fallback: no float16, no zero-size shapes
        if flags & _PyBUF_WRITABLE:
            raise BufferError("irm tensors are read-only")
        view = memoryview(_holder(self)).toreadonly().cast("B")
        return view.cast(_FORMATS[self.dtype], self.shape) if self.shape else view.cast(
            _FORMATS[self.dtype])

    Tensor.__buffer__ = _buffer
