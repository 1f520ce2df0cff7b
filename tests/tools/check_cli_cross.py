#!/usr/bin/env python3
"""Cross-compiling through the irm program: the example CNN, the residual
model and a small ONNX network (through the Python frontend) built for
aarch64-linux-gnu (llvm and c targets, link-params on and off), exported
with aarch64-linux-gnu-gcc and run by `irm run` under qemu-aarch64,
compared with ir.Evaluate, and the CNN as a graph library (the graph
runner cross-compiled with aarch64's jansson; skipped, saying so, without
libjansson-dev:arm64); NEON recorded in the metadata; the clear errors
for a missing cross compiler and a bad triple. Skips (saying so) when the
cross compiler or qemu-aarch64 is missing.

usage: check_cli_cross.py IRM_PROGRAM"""
import os
import shutil
import subprocess

from cli_harness import ENV, finish, run, tmp

TRIPLE = "aarch64-linux-gnu"


def elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    return int.from_bytes(head[18:20], "little")


def build_and_run(name, model, target, executor, runtime="cpp"):
    out = tmp(name)
    run(["build", model, "--target", target, "--executor", executor, "--runtime", runtime, "-o", out, "--export"], 0,
        out=["library"])
    lib = os.path.join(out, "libdefault.so")
    if os.path.exists(lib) and elf_machine(lib) != 183:  # EM_AARCH64
        from cli_harness import FAILURES
        FAILURES.append(f"{name}: {lib} is not an aarch64 library (ELF machine {elf_machine(lib)})")
    o, _ = run(["run", out, "--check"], 0, out=["largest difference from ir.Evaluate", "output 0"])
    return out, o


ONNX_MODEL = """
import sys
import numpy as np
from onnx import TensorProto, helper, save
rng = np.random.default_rng(3)
def init(name, *shape):
    return helper.make_tensor(name, TensorProto.FLOAT, shape, rng.standard_normal(shape).astype(np.float32).ravel())
nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("Flatten", ["p"], ["f"]),
         helper.make_node("Gemm", ["f", "g", "b"], ["y"], transB=1)]
graph = helper.make_graph(nodes, "small", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])],
                          [init("w", 4, 3, 3, 3), init("g", 5, 64), init("b", 5)])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), sys.argv[1])
"""


def onnx_case():
    """A small ONNX network (conv, relu, pool, gemm) through the Python
    frontend, built for aarch64 and run under qemu against ir.Evaluate."""
    pythonpath = os.environ.get("IRM_TEST_PYTHONPATH")
    python = "/usr/bin/python3"
    if not pythonpath or subprocess.run([python, "-c", "import onnx, numpy"], capture_output=True).returncode:
        print("SKIP: the ONNX case needs /usr/bin/python3 with onnx and numpy (python3-onnx) and a build "
              "without sanitizers")
        return
    env = dict(os.environ, PYTHONPATH=pythonpath)
    model, text, params = tmp("small.onnx"), tmp("small.irm"), tmp("small.params.json")
    for args in ([python, "-c", ONNX_MODEL, model],
                 [python, "-m", "irm.frontend.onnx", model, "-o", text, "--params-out", params]):
        p = subprocess.run(args, env=env, capture_output=True, timeout=120)
        if p.returncode:
            from cli_harness import FAILURES
            FAILURES.append("onnx case: %s failed:\n%s" % (args[1], p.stderr.decode(errors="replace")))
            return
    out = tmp("onnx-a64")
    run(["build", text, "--params", params, "--target", "llvm -mtriple=" + TRIPLE, "--executor", "aot", "-o", out,
         "--export"], 0)
    run(["run", out, "--check"], 0, out=["largest difference from ir.Evaluate", "output 0: Tensor[(1, 5), float32]"])


def main():
    missing = [p for p in (TRIPLE + "-gcc", "qemu-aarch64") if not shutil.which(p)]
    if missing:
        # The missing compiler is still a clear error, whatever else is absent.
        if TRIPLE + "-gcc" in missing:
            env = dict(ENV)
            run(["build", "cnn", "--target", "llvm -mtriple=" + TRIPLE, "--executor", "aot", "-o", tmp("nocc"),
                 "--export"], 1, err=[TRIPLE + "-gcc", "apt-get install gcc-" + TRIPLE, "--cross-compiler"], env=env)
        print("SKIP: cross-compiling cases need " + " and ".join(missing) +
              " (Debian: apt-get install gcc-aarch64-linux-gnu qemu-user)")
        finish("cli_cross (partly skipped)")
        return
    cnn, text = build_and_run("cnn-a64", "cnn", "llvm -mtriple=" + TRIPLE, "aot")
    # NEON is what the aarch64 compiler enables: the metadata records it as a feature and as the kernels' path
    with open(os.path.join(cnn, "tvmgen_default.c")) as f:
        text = f.read()
    for want in ('\\"target_features\\": \\"neon', '\\"kernel_isa\\": \\"neon\\"'):
        if want not in text:
            from cli_harness import FAILURES
            FAILURES.append("cnn-a64: the generated code's metadata lacks " + want)
    build_and_run("res-a64", "residual", "c -mtriple=" + TRIPLE, "aot,link-params=0,interface-api=c,unpacked-api=1",
                  runtime="crt")
    onnx_case()
    # the runner is reused: a second run compiles nothing new and still matches
    run(["run", cnn, "--seed", "3", "--check"], 0, out=["largest difference from ir.Evaluate"])
    # an explicit cross compiler (a wrapper script) is used, not only the default
    wrapper = tmp("my-cross-gcc")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\necho used >> '%s'\nexec %s-gcc \"$@\"\n" % (tmp("wrapper.log"), TRIPLE))
    os.chmod(wrapper, 0o755)
    run(["build", "mlp", "--target", "llvm -mtriple=" + TRIPLE, "--executor", "aot", "-o", tmp("mlp-a64"), "--export",
         "--cross-compiler", wrapper, "--no-cache"], 0)
    if not os.path.exists(tmp("wrapper.log")):
        from cli_harness import FAILURES
        FAILURES.append("--cross-compiler: the given compiler was not run")
    # irm run compiles the library and its qemu runner with the compiler the record names, not <triple>-gcc
    os.remove(tmp("wrapper.log"))
    os.remove(os.path.join(tmp("mlp-a64"), "libdefault.so"))
    env = dict(ENV)
    env["IRM_CACHE"] = "0"
    run(["run", tmp("mlp-a64"), "--check"], 0, out=["largest difference from ir.Evaluate"], env=env)
    if not os.path.exists(tmp("wrapper.log")) or open(tmp("wrapper.log")).read().count("used") < 2:
        from cli_harness import FAILURES
        FAILURES.append("irm run: the recorded --cross-compiler did not compile both the library and the runner")
    # -mcpu and -mattr become ARM's flags (-mcpu=cortex-a72+simd+nosve), -mcpu=native is dropped for a cross target
    run(["build", "mlp", "--target", "llvm -mtriple=%s -mcpu=cortex-a72 -mattr=+neon,-sve" % TRIPLE, "--executor",
         "aot", "-o", tmp("a72"), "--export"], 0, out=["library"])
    run(["run", tmp("a72"), "--check"], 0, out=["largest difference from ir.Evaluate"])
    run(["build", "mlp", "--target", "llvm -mtriple=%s -mcpu=native" % TRIPLE, "--executor", "aot", "-o",
         tmp("native-a64"), "--export"], 0, out=["library"])
    # a compiler that does not exist: the export fails, naming it
    env = dict(ENV)
    env["PATH"] = "/nonexistent"
    env["IRM_CACHE"] = "0"
    run(["build", "cnn", "--target", "llvm -mtriple=" + TRIPLE, "--executor", "aot", "-o", tmp("nocc"), "--export"], 1,
        err=["'" + TRIPLE + "-gcc' is not installed", "apt-get install gcc-" + TRIPLE], env=env)
    # a graph library (the default executor) of another architecture: the graph runner cross-compiled with the
    # target's jansson (Debian's libjansson-dev:arm64, multiarch), the CNN against ir.Evaluate
    if os.path.exists("/usr/lib/%s/libjansson.a" % TRIPLE):
        build_and_run("graph-a64", "cnn", "llvm -mtriple=" + TRIPLE, "graph")
    else:
        run(["build", "cnn", "--target", "llvm -mtriple=" + TRIPLE, "-o", tmp("graph-a64")], 0)
        run(["run", tmp("graph-a64")], 1, err=["needs aarch64's jansson", "apt-get install libjansson-dev:arm64"])
        print("SKIP: the graph case under qemu needs libjansson-dev:arm64 (Debian: dpkg --add-architecture arm64 "
              "&& apt-get update && apt-get install libjansson-dev:arm64)")
    # a bad triple never reaches a shell
    run(["build", "cnn", "--target", "llvm -mtriple=aarch64$HOME-linux", "--executor", "aot", "-o", tmp("bad"),
         "--export"], 1, err=["is no target triple"])
    finish("cli_cross")


main()
