"""Call overhead of the irm package against raw ctypes, interleaved in one
process. Prints `name ns_per_op ratio baseline` lines like bench/.

- call_c_global: a C global (ffi.ArraySize) called through irm.Function
  vs the same irm_func_call through raw ctypes with argtypes set and the
  argument array built once.
- call_python_from_c: a Python function registered through the package,
  called from C (irm_func_call), vs the same call of a function made from a
  raw ctypes CFUNCTYPE packed callback.
"""
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
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


def main():
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
    two = (_lib.Any * 2)(_lib.Any(type_code=_lib.INT, v_int=20),
                            _lib.Any(type_code=_lib.INT, v_int=22))

    def through(fn_handle):
        def run(n):
            for _ in range(n):
                call(fn_handle, two, 2, ctypes.byref(raw_ret))
        return run

    compare("call_python_from_c", through(py_func.handle), through(raw_fn.value))
    _lib.irm_object_release(raw_fn.value)
    irm.remove_global_func("bench.add")


if __name__ == "__main__":
    main()
