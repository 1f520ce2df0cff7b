"""Values, objects, functions and errors across the irm C ABI."""
import ctypes
import threading

from . import _lib
from ._lib import Any, NONE, INT, BOOL, FLOAT, PTR, STR, OBJECT

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_CEXT = None  # the C fast path, loaded at the end of this module when built


# ---- errors ----------------------------------------------------------------

class PluginError(RuntimeError):
    """A plugin could not be loaded (irm's PluginError)."""


PluginError.__module__ = "irm"


class _KeyError(KeyError):
    """KeyError whose str() is the library's message (the builtin quotes it)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


_KeyError.__name__ = _KeyError.__qualname__ = "KeyError"


# Library kind -> Python exception class; also the order in which a Python
# exception raised in a callback is matched to a kind (most specific first).
_KINDS = [("PluginError", PluginError), ("MemoryError", MemoryError),
          ("KeyError", _KeyError), ("IndexError", IndexError),
          ("AttributeError", AttributeError), ("TypeError", TypeError),
          ("ValueError", ValueError), ("RuntimeError", RuntimeError)]
_KIND_CLASS = dict(_KINDS)
_tls = threading.local()


def _last_error():
    msg = _lib.irm_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


def _split_kind(msg):
    """(exception class, text) of a library message "Kind: text": the class
    says the kind, so the text goes without it (RuntimeError and the whole
    message for a kind irm does not know)."""
    kind, sep, text = msg.partition(": ")
    cls = _KIND_CLASS.get(kind) if sep else None
    return (cls, text) if cls is not None else (RuntimeError, msg)


def raise_last_error(rc, api=None):
    """Raises the Python exception matching the calling thread's irm error:
    its class says the kind, its message is the library's without "Kind: ".
    api (an _Api) names the Python API that called the failing global."""
    pending = getattr(_tls, "pending", None)
    if pending is not None:
        # A BaseException (KeyboardInterrupt, SystemExit) escaped a Python
        # callback that C called: re-raise it rather than an irm error.
        _tls.pending = None
        raise pending
    msg = _last_error() or "RuntimeError: irm call failed with status %d" % rc
    cls, text = _split_kind(msg)
    raise cls(api.rename(text) if api is not None else text)


def check(rc):
    if rc != 0:
        raise_last_error(rc)


def _error_text(exc):
    """'Kind: text' for a Python exception raised inside a callback, so that
    C callers read it as any library error and Python callers get the same
    class and text back."""
    kind = "RuntimeError"
    for name, cls in _KINDS:
        if isinstance(exc, cls if cls is not _KeyError else KeyError):
            kind = name
            break
    text = exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], str) else str(exc)
    return "%s: %s" % (kind, text)


# ---- objects ---------------------------------------------------------------

_CLASSES = {}  # type key -> Python class
_REFINE = {}  # type key -> f(obj) -> a subclass of its class, chosen by the object's fields


def register_object(type_key):
    """Class decorator: objects of type_key (and its subtypes, when no closer
    class is registered) come back from the library as this class."""

    def wrap(cls):
        _CLASSES[type_key] = cls
        cls._type_key = type_key
        return cls

    return wrap


class Object:
    """A reference-counted irm object. The handle owns one reference, which
    __del__ releases."""

    __slots__ = ("handle", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError("%s objects are made by the library" % type(self).__name__)

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle and _lib is not None and _lib.irm_object_release is not None:
            self.handle = None
            _lib.irm_object_release(handle)

    def _take(self, made):
        # Constructors of subclasses call the library, then take the
        # reference of the object it made.
        self.handle, made.handle = made.handle, None

    @property
    def type_key(self):
        """The runtime type key, such as "ir.IRModule"."""
        return _lib.irm_object_type_key(self.handle).decode()

    def __repr__(self):
        return _global("ffi.Repr")(self)

    def __eq__(self, other):
        if not isinstance(other, Object):
            return NotImplemented
        return bool(_global("ffi.StructuralEqual")(self, other))

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return _global("ffi.StructuralHash")(self)

    def same_as(self, other):
        """True when both handles are the same object (identity, not structure)."""
        return isinstance(other, Object) and self.handle == other.handle

    def to_json(self):
        """The object as JSON text (ffi.ToJSON); irm.from_json reads it back."""
        return api_global("Object.to_json()", "ffi.ToJSON", "self")(self)

    @property
    def _refcount(self):
        return _lib.irm_object_refcount(self.handle)


def _wrap(handle):
    """Wraps a NEW reference in the Python class of its type."""
    key = _lib.irm_object_type_key(handle).decode()
    if key == "ffi.String":
        data = _lib.irm_string_data(handle)
        raw = ctypes.string_at(data, _lib.irm_string_size(handle))
        _lib.irm_object_release(handle)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw
    cls = _CLASSES.get(key)
    if cls is None:
        cls = Object
        for other_key, other in _CLASSES.items():
            if issubclass(other, cls) and _lib.irm_object_is(handle, other_key.encode()):
                cls = other
    obj = cls.__new__(cls)
    obj.handle = handle
    refine = _REFINE.get(key)
    if refine is not None:  # one type key, a class per kind (patterns: CallPattern, ...)
        obj.__class__ = refine(obj)
    return obj


def from_any(value):
    """Converts a returned irm_any (owning its object) to Python."""
    code = value.type_code
    if code == OBJECT:
        return _wrap(value.v_int) if value.v_int else None
    if code == INT:
        return value.v_int
    if code == BOOL:
        return bool(value.v_int)
    if code == FLOAT:
        return value.v_float
    if code == NONE:
        return None
    if code == PTR:
        return ctypes.c_void_p(value.v_ptr)
    if code == STR:
        return ctypes.string_at(value.v_ptr).decode("utf-8", "replace")
    raise TypeError("irm: unknown type code %d" % code)


def _borrowed_arg(value):
    """Converts one borrowed argument to Python (objects get their own reference)."""
    if value.type_code == OBJECT and value.v_int:
        _lib.irm_object_retain(value.v_int)
    return from_any(value)


def _new_string(data):
    handle = ctypes.c_void_p()
    check(_lib.irm_string_new(data, len(data), ctypes.byref(handle)))
    obj = Object.__new__(Object)
    obj.handle = handle.value
    return obj


def to_any(value, slot, keep):
    """Stores value in the Any slot, borrowed; keep collects what must stay
    alive until the call returns."""
    if value is None:
        slot.type_code = NONE
        slot.v_int = 0
    elif isinstance(value, Object):
        slot.type_code = OBJECT
        slot.v_int = value.handle
    elif value is True or value is False:
        slot.type_code = BOOL
        slot.v_int = int(value)
    elif isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise OverflowError("irm: int %d does not fit in int64" % value)
        slot.type_code = INT
        slot.v_int = value
    elif isinstance(value, float):
        slot.type_code = FLOAT
        slot.v_float = value
    elif isinstance(value, ctypes.c_void_p):  # an opaque pointer, never owned
        slot.type_code = PTR
        slot.v_ptr = value.value
    elif isinstance(value, str):
        data = value.encode("utf-8")
        if b"\0" in data:  # a C string cannot hold it: pass a String
            obj = _new_string(data)
            keep.append(obj)
            slot.type_code = OBJECT
            slot.v_int = obj.handle
        else:
            keep.append(data)
            slot.type_code = STR
            slot.v_int = ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value
    else:
        obj = as_object(value)
        if not isinstance(obj, Object):  # a numpy scalar became a Python one
            return to_any(obj, slot, keep)
        keep.append(obj)
        slot.type_code = OBJECT
        slot.v_int = obj.handle
    return slot


def as_object(value):
    """Converts a Python value that is not a scalar to an irm Object."""
    if isinstance(value, Object):
        return value
    convert = getattr(value, "_as_irm_object", None)
    if convert is not None:
        return convert()
    if isinstance(value, (bytes, bytearray)):
        return _new_string(bytes(value))
    if isinstance(value, str):
        return _new_string(value.encode("utf-8"))
    if isinstance(value, (list, tuple)):
        return _global("ffi.Array")(*value)
    if isinstance(value, dict):
        flat = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("irm: Map keys must be str, got %s" % type(key).__name__)
            flat.extend((key, item))
        return _global("ffi.Map")(*flat)
    if callable(value):
        return convert_func(value)
    try:
        import numpy  # optional: numpy scalars become Python scalars
        if isinstance(value, numpy.generic):
            return value.item()
    except ImportError:
        pass
    raise TypeError("irm: cannot convert %s to an irm value" % type(value).__name__)


def to_owned_any(value, slot):
    """Stores value in slot owning a NEW reference (callback results)."""
    if isinstance(value, str) or isinstance(value, (bytes, bytearray)):
        value = as_object(value)
    keep = []
    to_any(value, slot, keep)
    if slot.type_code == OBJECT:
        _lib.irm_object_retain(slot.v_int)


def _pack(args):
    keep = []
    n = len(args)
    if not n:
        return None, keep
    array = (Any * n)()
    for i, arg in enumerate(args):
        if isinstance(arg, Object):  # the common case first
            slot = array[i]
            slot.type_code = OBJECT
            slot.v_int = arg.handle
        else:
            to_any(arg, array[i], keep)
    return array, keep


# ---- functions -------------------------------------------------------------

_func_call = _lib.irm_func_call
_byref = ctypes.byref


# Native functions of scalar signatures are called straight through a ctypes
# prototype built from irm_func_signature and irm_func_native_pointer: the
# same C call irm would make, without packing irm_any arrays. Arguments must
# have exactly the Python type and range of their C type; anything else takes
# the library's path, which converts or reports the error.
_CTYPES = {
    "i64": (ctypes.c_int64, int, _INT64_MIN, _INT64_MAX),
    "i32": (ctypes.c_int32, int, -(1 << 31), (1 << 31) - 1),
    "u64": (ctypes.c_uint64, int, 0, (1 << 64) - 1),
    "f64": (ctypes.c_double, float, None, None),
    "f32": (ctypes.c_float, float, None, None),
    "bool": (ctypes.c_bool, bool, None, None),
}


_MISSING = object()
_DIRECT_CLASSES = {}  # (native address, signature) -> its Function subclass
_direct_lock = threading.Lock()


def _direct_class(handle):
    """The Function subclass whose __call__ calls the native scalar function
    behind handle straight through a ctypes prototype, checking each
    argument's exact type and range inline (generated once per function and
    signature: a loop over argument checks would cost as much as the call);
    None for any other function."""
    sig = _lib.irm_func_signature(handle)
    if not sig:
        return None
    key = (_lib.irm_func_native_pointer(handle), sig)
    cls = _DIRECT_CLASSES.get(key)
    if cls is not None:
        return cls
    ret, _, rest = sig.decode().partition("(")
    names = [a for a in rest.rstrip(")").split(",") if a]
    if any(a not in _CTYPES for a in names) or (ret != "void" and ret not in _CTYPES):
        return None
    restype = None if ret == "void" else _CTYPES[ret][0]
    fn = ctypes.CFUNCTYPE(restype, *[_CTYPES[a][0] for a in names])(key[0])
    params = ["a%d" % i for i in range(len(names))]
    checks = []
    for p, a in zip(params, names):
        kind, lo, hi = _CTYPES[a][1:]
        checks.append("type(%s) is %s" % (p, kind.__name__))
        if lo is not None:
            checks.append("%d <= %s <= %d" % (lo, p, hi))
    src = ("def __call__(self, %s*rest):\n"
           "    if not rest and %s:\n"
           "        return fn(%s)\n"
           "    return _call_packed(self.handle, tuple(a for a in (%s) if a is not _MISSING) + rest)\n"
           % ("".join("%s=_MISSING, " % p for p in params), " and ".join(checks) or "True",
              ", ".join(params), "".join("%s, " % p for p in params)))
    scope = {"fn": fn, "_call_packed": _call_packed, "_MISSING": _MISSING}
    exec(src, scope)  # noqa: S102 - the source is built above from fixed pieces
    with _direct_lock:
        cls = _DIRECT_CLASSES.setdefault(
            key, type("Function", (Function,), {"__slots__": (), "__call__": scope["__call__"],
                                                "__module__": "irm", "_fn": fn}))
    return cls


@register_object("ffi.Function")
class Function(Object):
    """An irm function object; calling it calls the library. A native
    function of a scalar signature (i64(i64,i64), f64(f64), ...) becomes an
    instance of a generated subclass on its first call, which calls the C
    function directly when the arguments have exactly its types; any other
    function becomes a plain packed caller."""

    __slots__ = ()

    def __call__(self, *args):
        # With the C fast path every call goes through it (packing in C beats
        # a ctypes prototype); without it, a native scalar function is
        # called through a generated ctypes caller.
        cls = (_direct_class(self.handle) if _CEXT is None else None) or _PackedFunction
        self.__class__ = cls  # decided once per object
        return cls.__call__(self, *args)

    def __repr__(self):
        return "<irm.Function at 0x%x>" % self.handle


def _call_packed(handle, args):
    if _CEXT is not None:
        return _CEXT.call(handle, args)
    array, keep = _pack(args)
    ret = Any()
    rc = _func_call(handle, array, len(args), _byref(ret))
    if rc != 0:
        raise_last_error(rc)
    return from_any(ret)


class _PackedFunction(Function):
    """A Function that takes the library's packed path."""

    __slots__ = ()

    def __call__(self, *args):
        if _CEXT is not None:
            return _CEXT.call(self.handle, args)
        return _call_packed(self.handle, args)


_PackedFunction.__name__ = _PackedFunction.__qualname__ = "Function"


class _Api:
    """A global that a Python API calls: calling this calls the global, and
    an error names the API instead of the global. The global's context
    ("executor.Create: ") becomes the API's ("Executor(): "), or goes when
    the API has no name to give (a subscript); and "argument K", the
    global's K-th argument, becomes the API's argument of that role,
    "argument P (name)" (P counts the API's parameters from 1, self not
    included). Errors without the global's context (raised deeper, such as
    in a pass the call runs) keep their text.

    args names the global's arguments in order by the API's parameters
    ("self key value"); params lists the API's parameters in order when it
    differs (a name in args but not in params, such as self, keeps the
    global's number)."""

    __slots__ = ("api", "global_name", "_prefix", "_labels")

    def __init__(self, api, global_name, args="", params=None):
        self.api = api
        self.global_name = global_name
        self._prefix = global_name + ": "
        names = args.split()
        order = params.split() if params is not None else [n for n in names if n != "self"]
        self._labels = {"argument %d" % (k + 1): "argument %d (%s)" % (order.index(n) + 1, n)
                        for k, n in enumerate(names) if n in order}

    def __call__(self, *args):
        handle = _global(self.global_name).handle
        if _CEXT is not None:
            return _CEXT.call(handle, args, self)
        array, keep = _pack(args)
        ret = Any()
        rc = _func_call(handle, array, len(args), _byref(ret))
        if rc != 0:
            raise_last_error(rc, self)
        return from_any(ret)

    def rename(self, text):
        """The library's text of an error of this call, as the API says it."""
        if not text.startswith(self._prefix):
            return text
        text = text[len(self._prefix):]
        head, sep, rest = text.partition(":")
        label = self._labels.get(head)
        if sep and label is not None:
            text = label + sep + rest
        return "%s: %s" % (self.api, text) if self.api else text


_APIS = {}


def api_global(api, global_name, args="", params=None):
    """The global global_name as the Python API api calls it (see _Api);
    made once per distinct call, so wrappers may ask for it on each call."""
    key = (api, global_name, args, params)
    found = _APIS.get(key)
    if found is None:
        found = _APIS[key] = _Api(api, global_name, args, params)
    return found


# Every Python callable handed to the library shares one packed trampoline;
# its resource is a key into _CALLBACKS, removed by the shared finalizer when
# the library drops the function.
_CALLBACKS = {}
_callback_lock = threading.Lock()
_next_key = [1]


def _trampoline(args, nargs, ret, resource):
    try:
        fn = _CALLBACKS[resource]
        py_args = []
        for i in range(nargs):
            arg = args[i]
            # ints first: the common case, and cheaper than _borrowed_arg.
            py_args.append(arg.v_int if arg.type_code == INT else _borrowed_arg(arg))
        result = fn(*py_args)
        if result is None:
            return 0  # irm set *ret to NONE before the call
        if type(result) is int and _INT64_MIN <= result <= _INT64_MAX:
            slot = ret[0]
            slot.type_code = INT
            slot.v_int = result
        else:
            to_owned_any(result, ret[0])
        return 0
    except Exception as exc:  # becomes the irm error of this call
        _lib.irm_set_last_error(_error_text(exc).encode("utf-8", "replace"))
        return -1
    except BaseException as exc:  # noqa: B902 - not swallowed: re-raised by the caller
        _tls.pending = exc
        _lib.irm_set_last_error(("RuntimeError: interrupted by %s" % type(exc).__name__).encode())
        return -1


def live_callbacks():
    """How many Python callables the library holds (for leak checks)."""
    return _CEXT.live_callbacks() if _CEXT is not None else len(_CALLBACKS)


def _finalize(resource):
    with _callback_lock:
        _CALLBACKS.pop(resource, None)


_TRAMPOLINE = _lib.PACKED_CFUNC(_trampoline)
_FINALIZER = _lib.FINALIZER(_finalize)


def convert_func(fn):
    """A new irm Function calling the Python callable fn."""
    if _CEXT is not None:
        func = Function.__new__(Function)
        func.handle = _CEXT.new_callback(fn)
        return func
    with _callback_lock:
        key = _next_key[0]
        _next_key[0] += 1
        _CALLBACKS[key] = fn
    handle = ctypes.c_void_p()
    rc = _lib.irm_func_new_packed(_TRAMPOLINE, key, _FINALIZER, ctypes.byref(handle))
    if rc != 0:
        _finalize(key)
        raise_last_error(rc)
    func = Function.__new__(Function)
    func.handle = handle.value
    return func


_GLOBAL_CACHE = {}
_REACHED = set()  # every global name looked up (the contract test reads it)


def _global(name):
    func = _GLOBAL_CACHE.get(name)
    if func is None:
        func = _GLOBAL_CACHE[name] = get_global_func(name)
    return func


def get_global_func(name, allow_missing=False):
    """The global function registered under name. A missing name raises
    KeyError with the library's closest-name suggestion, or gives None when
    allow_missing is true."""
    handle = ctypes.c_void_p()
    check(_lib.irm_func_get_global(name.encode(), ctypes.byref(handle)))
    if handle.value:
        _REACHED.add(name)
        func = Function.__new__(Function)
        func.handle = handle.value
        return func
    if allow_missing:
        return None
    # irm_func_call_global words the KeyError with the closest registered
    # name; for an absent name it calls nothing.
    ret = Any()
    rc = _lib.irm_func_call_global(name.encode(), None, 0, ctypes.byref(ret))
    if rc != 0:
        raise_last_error(rc)
    _lib.irm_any_release(ctypes.byref(ret))  # registered meanwhile: look again
    return get_global_func(name, allow_missing)


def register_func(name=None, f=None, override=False):
    """Registers a Python function as a global that C code can call.

    Use as ``register_func("my.add", add)``, ``@register_func("my.add")`` or
    ``@register_func`` (the name is then the function's __name__)."""
    if callable(name):
        return register_func(name.__name__, name, override)

    def register(fn):
        func = convert_func(fn)
        check(_lib.irm_func_register_global((name or fn.__name__).encode(), func.handle,
                                            int(bool(override))))
        return fn

    return register(f) if f is not None else register


def list_global_func_names():
    """The names of every registered global function."""
    return list(_global("ffi.ListGlobalFuncNames")())


def remove_global_func(name):
    """Removes a global function (KeyError when absent)."""
    _GLOBAL_CACHE.pop(name, None)
    check(_lib.irm_func_remove_global(name.encode()))


def from_json(text):
    """The object a to_json() text describes (ffi.FromJSON)."""
    return api_global("from_json()", "ffi.FromJSON", "text")(text)


# ---- containers ------------------------------------------------------------

@register_object("ffi.Array")
class Array(Object):
    """A read-only sequence of values (ffi.Array)."""

    __slots__ = ()

    def __len__(self):
        return _global("ffi.ArraySize")(self)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("array index %d out of range [0, %d)" % (index, size))
        return _global("ffi.ArrayGetItem")(self, index)

    def __iter__(self):
        get = _global("ffi.ArrayGetItem")
        for i in range(len(self)):
            yield get(self, i)

    def __eq__(self, other):
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return Object.__eq__(self, other)

    __hash__ = Object.__hash__


@register_object("ffi.Map")
class Map(Object):
    """A read-only mapping from str to values, in insertion order (ffi.Map)."""

    __slots__ = ()

    def __len__(self):
        return _global("ffi.MapSize")(self)

    def __getitem__(self, key):
        return api_global(None, "ffi.MapGetItem", "self key")(self, key)

    def items(self):
        flat = list(_global("ffi.MapItems")(self))
        return list(zip(flat[0::2], flat[1::2]))

    def keys(self):
        return [k for k, _ in self.items()]

    def values(self):
        return [v for _, v in self.items()]

    def __iter__(self):
        return iter(self.keys())

    def __contains__(self, key):
        return key in self.keys()

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def to_dict(self):
        return dict(self.items())

    def __eq__(self, other):
        if isinstance(other, dict):
            return self.to_dict() == other
        return Object.__eq__(self, other)

    __hash__ = Object.__hash__


# ---- the optional C fast path ----------------------------------------------
#
# irm._cext (python/irm/_cext.c, built when python3-dev is there) packs
# arguments, calls and converts results in C, and is the trampoline through
# which C calls Python functions. It hands what is not common back to the
# helpers below, which are the ctypes path's own, so both paths behave the
# same. IRM_PYTHON_CEXT=0 keeps to ctypes.

def _slot_of(value):
    keep = []
    slot = Any()
    to_any(value, slot, keep)
    return slot.type_code, (slot.v_float if slot.type_code == FLOAT else slot.v_int), keep


def _from_raw(code, payload):
    return from_any(Any(type_code=code, v_int=payload))


def _owned_slot(value):
    slot = Any()
    to_owned_any(value, slot)
    return slot.type_code, (slot.v_float if slot.type_code == FLOAT else slot.v_int)


def _callback_failed(exc):
    if isinstance(exc, Exception):
        return _error_text(exc)
    _tls.pending = exc  # a BaseException: the caller re-raises it
    return "RuntimeError: interrupted by %s" % type(exc).__name__


def _load_cext():
    import importlib.machinery
    import importlib.util
    import os
    if os.environ.get("IRM_PYTHON_CEXT", "1") == "0":
        return None
    module = None
    try:
        from . import _cext as module  # installed beside the package
    except ImportError:
        # Built beside libirm: <build>/python/irm (libirm in <build>/lib), or
        # an install prefix's share/irm/python/irm.
        libdir = os.path.dirname(os.path.abspath(_lib.LIB._name))
        for folder in (os.path.join(libdir, "..", "python", "irm"),
                       os.path.join(libdir, "..", "share", "irm", "python", "irm")):
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "_cext" + suffix)
                if os.path.exists(path):
                    spec = importlib.util.spec_from_file_location("irm._cext", path)
                    try:
                        module = importlib.util.module_from_spec(spec)
                        spec.loader.exec_module(module)
                    except ImportError:
                        module = None
                    break
            if module is not None:
                break
    if module is None:
        return None
    address = lambda name: ctypes.cast(getattr(_lib.LIB, name), ctypes.c_void_p).value  # noqa: E731
    module.init({name: address(name) for name in ("irm_func_call", "irm_object_retain",
                                                  "irm_func_new_packed", "irm_set_last_error")},
                {"Object": Object, "wrap": _wrap, "raise_error": raise_last_error,
                 "slot_of": _slot_of, "from_raw": _from_raw, "owned_slot": _owned_slot,
                 "callback_failed": _callback_failed})
    return module


_CEXT = _load_cext()
