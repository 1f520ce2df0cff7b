#!/usr/bin/env python3
"""examples/embed/ as its README runs it, against an installed irm: the
build tree installed into a temporary prefix; the example CNN built by
the installed irm for the C interface (crt, link-params off); embed built
from a copy of examples/embed with its Makefile (pkg-config irm-runtime)
and with its CMakeLists.txt (find_package(irm), irm::runtime); both run on
one input file; their outputs equal ir.Evaluate of the model on it
(through the installed Python package). Also: a params file the model
refuses, and a Makefile run without irm-runtime on PKG_CONFIG_PATH, fail
with their messages. No LD_LIBRARY_PATH: embed uses nothing of irm at run
time.

usage: embed_test.py SOURCE_DIR BUILD_DIR CMAKE LIBDIR"""
import array
import os
import random
import shutil
import subprocess
import sys
import tempfile

src, build, cmake, libdir = sys.argv[1:5]
work = tempfile.mkdtemp(prefix="irm_embed_")
env = dict(os.environ)
env.pop("LD_LIBRARY_PATH", None)
env.pop("PKG_CONFIG_PATH", None)


def step(what, args, ok=True, cwd=None, env_extra=None, expect=None):
    e = dict(env, **(env_extra or {}))
    p = subprocess.run(args, cwd=cwd or work, env=e, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
    out = p.stdout.decode("utf-8", "replace")
    if (p.returncode == 0) != ok or (expect and expect not in out):
        verdict = "failed" if ok else "succeeded but must fail"
        lacking = " lacking %r" % expect if expect else ""
        print("embed test: %s %s (exit %d)%s:\n%s" % (what, verdict, p.returncode, lacking, out))
        sys.exit(1)
    return out


def floats(path):
    a = array.array("f")
    with open(path, "rb") as f:
        a.frombytes(f.read())
    return list(a)


try:
    prefix = os.path.join(work, "prefix")
    step("cmake --install", [cmake, "--install", build, "--prefix", prefix])
    irm = os.path.join(prefix, "bin", "irm")
    model = os.path.join(work, "model")
    step("irm build", [irm, "build", "cnn", "--target", "c", "--runtime", "crt", "--mod-name", "model", "-o", model,
                       "--executor", "aot,interface-api=c,unpacked-api=1,link-params=0"])
    copy = os.path.join(work, "embed")
    shutil.copytree(os.path.join(src, "examples", "embed"), copy)
    pc = {"PKG_CONFIG_PATH": os.path.join(prefix, libdir, "pkgconfig")}
    step("make without irm-runtime on PKG_CONFIG_PATH", ["make", "MODEL_DIR=" + model], ok=False, cwd=copy,
         expect="irm-runtime")
    step("make", ["make", "MODEL_DIR=" + model], cwd=copy, env_extra=pc)
    cbuild = os.path.join(work, "cmake-build")
    step("cmake configure", [cmake, "-S", copy, "-B", cbuild, "-DCMAKE_PREFIX_PATH=" + prefix, "-DMODEL_DIR=" + model])
    step("cmake build", [cmake, "--build", cbuild])

    rng = random.Random(5)
    x = array.array("f", [rng.uniform(-1, 1) for _ in range(3 * 32 * 32)])
    xin = os.path.join(work, "x.bin")
    with open(xin, "wb") as f:
        x.tofile(f)
    got = {}
    for name, program in (("make", os.path.join(copy, "embed")), ("cmake", os.path.join(cbuild, "embed"))):
        out = os.path.join(work, name + ".out")
        printed = step("embed (" + name + ")", [program, model, xin, out])
        got[name] = floats(out)
        if len(printed.split()) != 10:
            print("embed test: embed (%s) printed %r, not 10 values" % (name, printed))
            sys.exit(1)

    # what ir.Evaluate gives on the same input, through the installed package
    code = ("import array, sys, irm\n"
            "mod = irm.ir.example_model('cnn')\n"
            "params = mod.get_attr('params')\n"
            "x = array.array('f'); x.frombytes(open(sys.argv[1], 'rb').read())\n"
            "rows = [[[list(x[(c * 32 + i) * 32:(c * 32 + i + 1) * 32]) for i in range(32)] for c in range(3)]]\n"
            "args = [irm.tensor(rows, dtype='float32')] + [params[v.name_hint] for v in mod['main'].params[1:]]\n"
            "out = irm.get_global_func('ir.Evaluate')(mod, 'main', args)\n"
            "print(' '.join(repr(v) for v in out.tolist()[0]))\n")
    want = [float(v) for v in step("ir.Evaluate", [sys.executable, "-c", code, xin],
                                   env_extra={"PYTHONPATH": os.path.join(prefix, "share", "irm", "python")}).split()]
    for name, values in got.items():
        worst = max(abs(a - b) for a, b in zip(values, want)) if len(values) == len(want) else float("inf")
        if not worst <= 1e-4:
            print("embed test: embed (%s) differs from ir.Evaluate by %g:\n%r\n%r" % (name, worst, values, want))
            sys.exit(1)

    # a params file the model refuses: the message names it and the reason
    with open(os.path.join(model, "model.params"), "r+b") as f:
        f.write(b"\0" * 8)
    step("embed with a broken params file", [os.path.join(copy, "embed"), model], ok=False, expect="model.params")
    print("embed test: make and cmake builds run and match ir.Evaluate")
finally:
    shutil.rmtree(work, ignore_errors=True)
