#!/usr/bin/env python3
"""Checks that docs/globals.md documents exactly the registered globals.

usage: check_globals_doc.py LIBIRM DOC [--cc CC] [--flags "SANITIZE FLAGS"]

Loads LIBIRM with ctypes, asks ffi.ListGlobalFuncNames for the registered
names, and compares them with the names in the first column of DOC's
tables (rows starting "| `name`"). Fails listing every registered name the
doc misses and every documented name that is not registered.
"""
import argparse
import ctypes
import os
import re
import subprocess
import sys

IRM_INT = 1
IRM_OBJECT = 6

ROW_NAME = re.compile(r"^\|\s*`([A-Za-z_][\w]*\.[\w.]+)`\s*\|")


class Any(ctypes.Structure):
    """irm_any: int32 type_code, int32 padding, 8-byte union."""

    class Value(ctypes.Union):
        _fields_ = [("v_int", ctypes.c_int64), ("v_obj", ctypes.c_void_p)]

    _anonymous_ = ("value",)
    _fields_ = [("type_code", ctypes.c_int32), ("reserved_", ctypes.c_int32), ("value", Value)]


def preload_asan(cc, flags):
    """An ASan-instrumented libirm loads only into a process that starts
    with the ASan runtime: re-run this script with it preloaded. Leak
    checking is off because the interpreter itself keeps memory to exit."""
    if "-fsanitize=address" not in flags or os.environ.get("LD_PRELOAD"):
        return
    asan = subprocess.run([cc, "-print-file-name=libasan.so"], capture_output=True, text=True,
                          check=True).stdout.strip()
    env = dict(os.environ, LD_PRELOAD=asan, ASAN_OPTIONS="detect_leaks=0")
    os.execve(sys.executable, [sys.executable] + sys.argv, env)


class Irm:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.irm_func_get_global.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.irm_func_call.argtypes = [ctypes.c_void_p, ctypes.POINTER(Any), ctypes.c_int32,
                                      ctypes.POINTER(Any)]
        lib.irm_object_release.argtypes = [ctypes.c_void_p]
        lib.irm_any_release.argtypes = [ctypes.POINTER(Any)]
        lib.irm_string_data.argtypes = [ctypes.c_void_p]
        lib.irm_string_data.restype = ctypes.c_char_p
        lib.irm_last_error.restype = ctypes.c_char_p
        self.lib = lib

    def check(self, rc, what):
        if rc:
            raise RuntimeError("%s failed: %s" % (what, self.lib.irm_last_error().decode()))

    def call(self, name, *args):
        """Calls global name with args (irm_any values, borrowed); returns a
        NEW irm_any the caller releases."""
        f = ctypes.c_void_p()
        self.check(self.lib.irm_func_get_global(name.encode(), ctypes.byref(f)), name)
        if not f.value:
            raise RuntimeError("global %s is not registered" % name)
        try:
            argv = (Any * max(len(args), 1))(*args)
            ret = Any()
            self.check(self.lib.irm_func_call(f, argv, len(args), ctypes.byref(ret)), name)
            return ret
        finally:
            self.lib.irm_object_release(f)

    def global_names(self):
        names = self.call("ffi.ListGlobalFuncNames")
        try:
            assert names.type_code == IRM_OBJECT, "ffi.ListGlobalFuncNames gave no object"
            size = self.call("ffi.ArraySize", names)
            count = size.v_int
            result = []
            for i in range(count):
                item = self.call("ffi.ArrayGetItem", names, Any(IRM_INT, 0, Any.Value(v_int=i)))
                try:
                    data = self.lib.irm_string_data(item.v_obj) if item.type_code == IRM_OBJECT else None
                    if data is None:
                        raise RuntimeError("ffi.ListGlobalFuncNames item %d is not a String" % i)
                    result.append(data.decode())
                finally:
                    self.lib.irm_any_release(ctypes.byref(item))
            return result
        finally:
            self.lib.irm_any_release(ctypes.byref(names))


def documented_names(doc):
    with open(doc, encoding="utf-8") as f:
        return [m.group(1) for m in map(ROW_NAME.match, f) if m]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lib")
    parser.add_argument("doc")
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--flags", default="")
    opts = parser.parse_args()
    preload_asan(opts.cc, opts.flags)

    registered = Irm(opts.lib).global_names()
    documented = documented_names(opts.doc)
    errors = []
    twice = sorted({n for n in documented if documented.count(n) > 1})
    if twice:
        errors.append("documented more than once: " + ", ".join(twice))
    missing = sorted(set(registered) - set(documented))
    if missing:
        errors.append("registered but missing from %s:\n  %s" % (opts.doc, "\n  ".join(missing)))
    extra = sorted(set(documented) - set(registered))
    if extra:
        errors.append("documented in %s but not registered:\n  %s" % (opts.doc, "\n  ".join(extra)))
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    print("%d registered globals, all documented" % len(registered))
    return 0


if __name__ == "__main__":
    sys.exit(main())
