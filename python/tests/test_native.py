"""Native C functions called from Python: scalar signatures go straight
through a ctypes prototype; anything the prototype cannot take exactly goes
through the library, which converts or reports the error."""
import ctypes
import ctypes.util
import os

import pytest

import irm
from irm import _ffi, _lib

LIBC = ctypes.CDLL(ctypes.util.find_library("c"))
LIBM = ctypes.CDLL(ctypes.util.find_library("m"))


def native(name, c_function, signature):
    """Registers c_function under name with signature and returns it."""
    new_native = _lib.LIB.irm_func_new_native
    new_native.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p))
    new_native.restype = ctypes.c_int
    handle = ctypes.c_void_p()
    address = ctypes.cast(c_function, ctypes.c_void_p).value
    assert new_native(address, signature.encode(), ctypes.byref(handle)) == 0
    assert _lib.irm_func_register_global(name.encode(), handle.value, 1) == 0
    _lib.irm_object_release(handle.value)
    return irm.get_global_func(name)


@pytest.fixture
def labs():
    f = native("test.labs", LIBC.labs, "i64(i64)")
    yield f
    irm.remove_global_func("test.labs")


@pytest.fixture
def fabs():
    f = native("test.fabs", LIBM.fabs, "f64(f64)")
    yield f
    irm.remove_global_func("test.fabs")


def test_native_pointer_and_signature_are_visible():
    f = native("test.labs2", LIBC.labs, "i64(i64)")
    try:
        assert _lib.irm_func_signature(f.handle) == b"i64(i64)"
        assert _lib.irm_func_native_pointer(f.handle) == ctypes.cast(LIBC.labs, ctypes.c_void_p).value
        packed = irm.get_global_func("ffi.ArraySize")
        assert _lib.irm_func_native_pointer(packed.handle) is None
    finally:
        irm.remove_global_func("test.labs2")


def test_scalar_native_call_takes_the_direct_path(labs):
    assert labs(-42) == 42
    if _ffi._CEXT is not None:  # the C fast path packs in C for every function
        assert not hasattr(type(labs), "_fn")
        return
    assert isinstance(type(labs)._fn, ctypes._CFuncPtr)  # a generated direct caller
    assert isinstance(labs, irm.Function) and type(labs).__name__ == "Function"
    again = irm.get_global_func("test.labs")
    assert again(-7) == 7 and type(again) is type(labs)  # one class per C function


def test_direct_and_library_paths_agree(labs, fabs):
    for value in (0, 1, -1, 2**62, -(2**63) + 1):
        assert labs(value) == abs(value)
    assert fabs(-2.5) == 2.5
    # An int where f64 is expected is not exactly float: the library converts it.
    assert fabs(-3) == fabs(-3.0) == 3.0


def test_out_of_range_int_still_overflows(labs):
    with pytest.raises(OverflowError):
        labs(2**63)


def test_wrong_type_is_the_library_type_error(labs):
    with pytest.raises(TypeError) as info:
        labs("seven")
    assert str(info.value) == "function 'test.labs' (i64(i64)): argument 1: expected i64, got str 'seven'"


def test_wrong_argument_count_is_the_library_error(labs):
    with pytest.raises(TypeError) as many:
        labs(1, 2)
    with pytest.raises(TypeError) as none:
        labs()
    assert str(many.value) == "function 'test.labs' (i64(i64)) takes 1 argument, got 2"
    assert str(none.value) == "function 'test.labs' (i64(i64)) takes 1 argument, got 0"


def test_packed_functions_have_no_direct_path():
    size = irm.get_global_func("ffi.ArraySize")
    assert size(irm.get_global_func("ffi.Array")(1, 2)) == 2
    assert not hasattr(type(size), "_fn")
    assert _ffi._direct_class(size.handle) is None


def test_the_c_fast_path_is_used_when_built_and_not_when_switched_off():
    expect = os.environ.get("IRM_TEST_EXPECT_CEXT")
    if expect is None:
        pytest.skip("run by ctest, which says whether irm._cext was built")
    assert (_ffi._CEXT is not None) == (expect == "1")
