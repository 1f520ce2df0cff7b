"""Call overhead of the irm package against raw ctypes, interleaved in one
process. Prints `name ns_per_op ratio baseline` lines like bench/.

    python3 bench/python/bench_call.py [path/to/libirm_bench_calls.so]

(the library is built with the benchmarks, in <build>/bench/; the package
finds libirm as it always does, IRM_LIBRARY first).

- call_native_i64: a native C function i64(i64,i64) registered with irm
  (irm_func_new_native) and called through the package, vs the same C
  function called through raw ctypes with argtypes and restype set.
- call_c_global: a C global (ffi.ArraySize) called through irm.Function
  vs the same irm_func_call through raw ctypes with argtypes set and the
  argument array built once.
- call_python_from_c: a Python function registered through the package,
  called from C (irm_func_call), vs the same call of a function made from a
  raw ctypes CFUNCTYPE packed callback.
- python_callback_round_trip: that registered function called from Python
  through the library (Python -> C -> Python), vs calling the Python
  function directly (bound: 10x).

Bounds: the package's native and packed calls <= 1.5x their raw ctypes
baselines. The C fast path (irm._cext, built when python3-dev is there)
is used when present; IRM_PYTHON_CEXT=0 measures the ctypes path.
"""
import ctypes
import os
import sys
import time

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(_HERE, "..", "..", "python"))
import irm  # noqa: E402
from irm import _lib  # noqa: E402

ROUNDS, N = 7, 20000


def best_ns(fn):
    start = time.perf_counter_ns()
    fn(N)
    return (time.perf_counter_ns() - start) / N


def compare(name, candidate, baseline):
    best_c = best_b = float("inf")
    for _ in range(ROUNDS):  # interleaved, best of ROUNDS each
        best_b = min(best_b, best_ns(baseline))
        best_c = min(best_c, best_ns(candidate))
    print("%s %.1f %.2f %.1f" % (name, best_c, best_c / best_b, best_b))


def bench_calls_library():
    """The benchmarks' small shared library holding bench_calls_add_i64."""
    if len(sys.argv) > 1:
        return sys.argv[1]
    repo = os.path.join(_HERE, "..", "..")
    for build in ("build-test", "build", "build-asan"):
        path = os.path.join(repo, build, "bench", "libirm_bench_calls.so")
        if os.path.exists(path):
            return path
    sys.exit("bench_call: pass the path of libirm_bench_calls.so (built with the benchmarks)")


def native_row():
    calls = ctypes.CDLL(bench_calls_library())
    raw = calls.bench_calls_add_i64
    raw.argtypes = (ctypes.c_int64, ctypes.c_int64)
    raw.restype = ctypes.c_int64
    new_native = _lib.LIB.irm_func_new_native
    new_native.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p))
    new_native.restype = ctypes.c_int
    handle = ctypes.c_void_p()
    address = ctypes.cast(raw, ctypes.c_void_p).value
    assert new_native(address, b"i64(i64,i64)", ctypes.byref(handle)) == 0, _lib.irm_last_error()
    assert _lib.irm_func_register_global(b"bench.add_i64", handle.value, 0) == 0, _lib.irm_last_error()
    _lib.irm_object_release(handle.value)
    add = irm.get_global_func("bench.add_i64")
    assert add(20, 22) == raw(20, 22) == 42

    def package(n):
        for _ in range(n):
            add(20, 22)

    def ctypes_direct(n):
        for _ in range(n):
            raw(20, 22)

    compare("call_native_i64", package, ctypes_direct)
    irm.remove_global_func("bench.add_i64")


def main():
    native_row()
    size = irm.get_global_func("ffi.ArraySize")
    array = irm.get_global_func("ffi.Array")(1, 2, 3)

    def package(n):
        for _ in range(n):
            size(array)

    raw_args = (_lib.Any * 1)(_lib.Any(type_code=_lib.OBJECT, v_int=array.handle))
    raw_ret = _lib.Any()
    call = _lib.irm_func_call
    handle = size.handle

    def raw(n):
        for _ in range(n):
            call(handle, raw_args, 1, ctypes.byref(raw_ret))

    compare("call_c_global", package, raw)

    irm.register_func("bench.add", lambda a, b: a + b)
    py_func = irm.get_global_func("bench.add")

    def raw_add(args, nargs, ret, resource):
        ret[0].type_code = _lib.INT
        ret[0].v_int = args[0].v_int + args[1].v_int
        return 0

    raw_cb = _lib.PACKED_CFUNC(raw_add)
    raw_fn = ctypes.c_void_p()
    assert _lib.irm_func_new_packed(raw_cb, None, _lib.FINALIZER(0), ctypes.byref(raw_fn)) == 0
    two = (_lib.Any * 2)(_lib.Any(type_code=_lib.INT, v_int=20), _lib.Any(type_code=_lib.INT, v_int=22))

    def through(fn_handle):
        def run(n):
            for _ in range(n):
                call(fn_handle, two, 2, ctypes.byref(raw_ret))
        return run

    compare("call_python_from_c", through(py_func.handle), through(raw_fn.value))
    _lib.irm_object_release(raw_fn.value)

    plain = lambda a, b: a + b  # noqa: E731

    def round_trip(n):
        for _ in range(n):
            py_func(20, 22)

    def direct(n):
        for _ in range(n):
            plain(20, 22)

    compare("python_callback_round_trip", round_trip, direct)
    irm.remove_global_func("bench.add")
    print("# fast path: %s" % ("irm._cext" if irm._ffi._CEXT is not None else "ctypes only"))


if __name__ == "__main__":
    main()
