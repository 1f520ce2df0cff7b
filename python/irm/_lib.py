"""Finds and loads libirm, and declares the C ABI of irm/c_api.h to ctypes.

libirm is looked for in this order; the first path that loads wins:

1. IRM_LIBRARY, the library's path (when it does not load: ImportError).
2. Beside the package: irm/libirm.so.0, irm/libirm.so.
3. The folder recorded when pip built the package (LIBDIR of
   irm/_install_paths.py, written by python/setup.py): the lib folder of a
   build folder when installed from the source tree, the install prefix's
   libdir when installed from <prefix>/share/irm/python.
4. The install prefix holding the package (LIBDIR_FROM_PACKAGE of
   irm/_install_paths.py, written by cmake --install; relative, so the
   prefix may move): for PYTHONPATH=<prefix>/share/irm/python.
5. The build folders of the source tree (build, build-test; their lib
   folder, then the folder itself), when the package is python/irm of a
   source tree.
6. The system loader (ctypes.util.find_library("irm"), libirm.so.0,
   libirm.so).

When none loads, ImportError lists every path tried and why it failed.
"""
import ctypes
import ctypes.util
import os

try:  # absent in a source tree; see python/setup.py and cmake/IrmInstall.cmake
    from . import _install_paths as _PATHS
except ImportError:
    _PATHS = None

_HERE = os.path.dirname(os.path.abspath(__file__))
# python/irm -> the repository root (when run from a source tree).
_REPO = os.path.dirname(os.path.dirname(_HERE))
_NAMES = ("libirm.so.0", "libirm.so")
_BUILD_FOLDERS = ("build", "build-test")


def _in(folder):
    return [os.path.join(folder, name) for name in _NAMES]


def _candidates():
    """Yields (where, path) in search order (the system loader aside)."""
    env = os.environ.get("IRM_LIBRARY")
    if env:
        yield "IRM_LIBRARY", env
    for path in _in(_HERE):
        yield "beside the package", path
    libdir = getattr(_PATHS, "LIBDIR", None)
    if libdir:
        where = "recorded by pip install (%s)" % getattr(_PATHS, "LIBDIR_SOURCE", "?")
        for path in _in(libdir):
            yield where, path
    relative = getattr(_PATHS, "LIBDIR_FROM_PACKAGE", None)
    if relative:
        for path in _in(os.path.normpath(os.path.join(_HERE, relative))):
            yield "the install prefix", path
    if os.path.isfile(os.path.join(_REPO, "include", "irm", "version.h")):
        for build in _BUILD_FOLDERS:
            for sub in ("lib", ""):
                for path in _in(os.path.join(_REPO, build, sub)):
                    yield "the source tree's %s folder" % build, path


def _load():
    tried = []
    for where, path in _candidates():
        if where != "IRM_LIBRARY" and not os.path.exists(path):
            tried.append("%s: %s (no such file)" % (where, path))
            continue
        try:
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as err:
            if where == "IRM_LIBRARY":
                raise ImportError("irm: cannot load IRM_LIBRARY=%s: %s" % (path, err)) from err
            tried.append("%s: %s (%s)" % (where, path, err))
    found = ctypes.util.find_library("irm")
    for name in ([found] if found else []) + list(_NAMES):
        try:
            return ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError as err:
            tried.append("the system loader: %s (%s)" % (name, err))
    raise ImportError(
        "irm: cannot find libirm. Tried, in order:\n  " + "\n  ".join(tried)
        + "\nSet IRM_LIBRARY to libirm's path, or install the package with pip from a"
        " source tree with a build or from an install prefix (README.md, 'Python').")


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
