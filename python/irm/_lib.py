"""Finds and loads libirm, and declares the C ABI of irm/c_api.h to ctypes."""
import ctypes
import ctypes.util
import glob
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
# python/irm -> the repository root (when run from a source tree).
_REPO = os.path.dirname(os.path.dirname(_HERE))
_NAMES = ("libirm.so", "libirm.so.0")


def _candidates():
    """Yields (description, path) in search order."""
    env = os.environ.get("IRM_LIBRARY")
    if env:
        yield "IRM_LIBRARY", env
    for name in _NAMES:
        yield "beside the package", os.path.join(_HERE, name)
    for build in ("build", "build-test"):
        for sub in ("lib", ""):
            for name in _NAMES:
                yield "build folder", os.path.join(_REPO, build, sub, name)
    # Installed: <prefix>/share/irm/python/irm beside <prefix>/lib[64][/<multiarch>].
    prefix = os.path.normpath(os.path.join(_HERE, "..", "..", "..", ".."))
    if os.path.basename(os.path.dirname(os.path.dirname(_HERE))) == "irm":
        for pattern in ("lib*/libirm.so.0", "lib/*/libirm.so.0"):
            for path in sorted(glob.glob(os.path.join(prefix, pattern))):
                yield "install prefix", path


def _load():
    tried = []
    for where, path in _candidates():
        if where != "IRM_LIBRARY" and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as err:
            if where == "IRM_LIBRARY":
                raise ImportError("irm: cannot load IRM_LIBRARY=%s: %s" % (path, err)) from err
            tried.append("%s (%s)" % (path, err))
    found = ctypes.util.find_library("irm")
    for name in ([found] if found else []) + list(_NAMES):
        try:
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            tried.append("system loader: " + name)
    raise ImportError("irm: cannot find libirm; set IRM_LIBRARY. Looked in: " + ", ".join(tried))


class _Value(ctypes.Union):
    _fields_ = [("v_int", ctypes.c_int64), ("v_float", ctypes.c_double),
                ("v_ptr", ctypes.c_void_p)]


class Any(ctypes.Structure):
    """irm_any: int32 type_code, int32 padding, 8-byte union (objects and
    strings travel as addresses in v_int)."""

    _anonymous_ = ("value",)
    _fields_ = [("type_code", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("value", _Value)]


NONE, INT, BOOL, FLOAT, PTR, STR, OBJECT = range(7)

PACKED_CFUNC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Any), ctypes.c_int32,
                                ctypes.POINTER(Any), ctypes.c_void_p)
FINALIZER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

LIB = _load()
_vp = ctypes.c_void_p
_P = ctypes.POINTER


def _decl(name, restype, *argtypes):
    fn = getattr(LIB, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


irm_version = _decl("irm_version", ctypes.c_char_p)
irm_last_error = _decl("irm_last_error", ctypes.c_char_p)
irm_set_last_error = _decl("irm_set_last_error", None, ctypes.c_char_p)
irm_object_retain = _decl("irm_object_retain", None, _vp)
irm_object_release = _decl("irm_object_release", None, _vp)
irm_object_type_key = _decl("irm_object_type_key", ctypes.c_char_p, _vp)
irm_object_is = _decl("irm_object_is", ctypes.c_int, _vp, ctypes.c_char_p)
irm_object_refcount = _decl("irm_object_refcount", ctypes.c_uint32, _vp)
irm_any_release = _decl("irm_any_release", None, _P(Any))
irm_string_new = _decl("irm_string_new", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, _P(_vp))
irm_string_data = _decl("irm_string_data", _vp, _vp)
irm_string_size = _decl("irm_string_size", ctypes.c_size_t, _vp)
irm_func_get_global = _decl("irm_func_get_global", ctypes.c_int, ctypes.c_char_p, _P(_vp))
irm_func_call = _decl("irm_func_call", ctypes.c_int, _vp, _P(Any), ctypes.c_int32, _P(Any))
irm_func_call_global = _decl("irm_func_call_global", ctypes.c_int, ctypes.c_char_p, _P(Any),
                             ctypes.c_int32, _P(Any))
irm_func_register_global = _decl("irm_func_register_global", ctypes.c_int, ctypes.c_char_p, _vp,
                                 ctypes.c_int)
irm_func_remove_global = _decl("irm_func_remove_global", ctypes.c_int, ctypes.c_char_p)
irm_func_signature = _decl("irm_func_signature", ctypes.c_char_p, _vp)
irm_func_native_pointer = _decl("irm_func_native_pointer", _vp, _vp)
irm_func_new_packed = _decl("irm_func_new_packed", ctypes.c_int, PACKED_CFUNC, _vp, FINALIZER,
                            _P(_vp))
irm_plugin_load = _decl("irm_plugin_load", ctypes.c_int, ctypes.c_char_p)
irm_plugin_load_from_env = _decl("irm_plugin_load_from_env", ctypes.c_int)

