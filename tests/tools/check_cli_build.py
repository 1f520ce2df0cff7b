#!/usr/bin/env python3
"""irm build and irm run with good and bad input: output, files, messages
and exit status (0 success, 1 failure, 2 usage error) of every flag.

usage: check_cli_build.py IRM_PROGRAM [FAILING_PASS_PLUGIN] [build|run|all]
(the plugin, examples/plugins/failing_pass_plugin.c, drives --load-plugin,
IRM_PLUGIN_PATH and a build whose --passes pipeline fails; without it those
cases are skipped). irm run compiles with the system's cc."""
import base64
import json
import os
import re
import shutil
import struct
import sys

from cli_harness import ENV, FAILURES, PLUGIN, TMP, finish, run, tmp


def irm_json(root_node_builder):
    """ffi.ToJSON text: root_node_builder(add) returns the root value,
    add(node) appends a node and returns {"ref": i}."""
    nodes = []

    def add(node):
        nodes.append(node)
        return {"ref": len(nodes) - 1}

    root = root_node_builder(add)
    return json.dumps({"irm_json": 1, "root": root, "nodes": nodes})


def tensor_node(add, shape, values):
    dtype = add({"type": "ffi.String", "data": "float32"})
    dims = add({"type": "ffi.Array", "items": list(shape)})
    data = add({"type": "ffi.String", "data": base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()})
    fields = add({"type": "ffi.Map", "keys": ["dtype", "shape", "data"], "values": [dtype, dims, data]})
    return add({"type": "ffi.Tensor", "fields": fields})


def write(name, text):
    with open(tmp(name), "w") as f:
        f.write(text)
    return tmp(name)


def largest_difference(text):
    m = re.search(r"largest difference from ir\.Evaluate: (\S+)", text)
    return float(m.group(1)) if m else float("inf")


def outputs(text):
    return [line for line in text.splitlines() if line.startswith("output ")]


CNN = tmp("cnn-aot")  # irm run's usage errors name it; run_cases builds it


def build_cases():
    """The build side: help, the graph build, the PassContext flags, usage
    errors and failures of irm build."""
    # ---- help --------------------------------------------------------------------------------
    for flag in ["--executor", "--runtime", "--target-host", "--params", "--mod-name", "--bisect-limit", "-o DIR"]:
        run(["build", "--help"], 0, out=["usage: irm build", flag], name="build --help " + flag)
    run(["run", "--help"], 0, out=["usage: irm run DIR", "--seed", "--input NAME=FILE", "--tolerance", "--inputs",
                                   "--outputs", "--repeat", "--number", "--profile", "--num-threads", "--check"])
    run(["--help"], 0, out=["build", "run"], not_out=["not built yet"])

    # ---- the default build: the graph executor, the example CNN, ./build-default --------------
    run(["build"], 0, out=["build of the example model 'cnn'", "configuration", "executor    ir.Executor(kind=\"graph\"",
                           "mod_name    default", "passes run", "    FuseOps: ", "files written",
                           "build-default/tvmgen_default.c", "build-default/default.json",
                           "build-default/irm-build.json", "irm run build-default"])
    if not os.path.isfile(tmp("build-default/irm-build.json")):
        FAILURES.append("irm build wrote no build-default/irm-build.json")
    o, _ = run(["run", "build-default", "--check"], 0, out=["output 0: Tensor[(1, 10), float32]"])
    if largest_difference(o) > 1e-4:
        FAILURES.append("irm run of the graph build: difference above 1e-4\n" + o)
    # An executor kind without a pipeline: the driver's error, nothing written.
    run(["build", "--executor", "vm", "-o", tmp("vm")], 1, err=["executor 'vm' has no 'executor.pipeline'"],
        not_out=["files written"])
    if os.path.exists(tmp("vm")):
        FAILURES.append("irm build --executor vm (a failed build) made its folder")

    # ---- the PassContext flags --------------------------------------------------------------------
    g = tmp("flags")
    run(["build", "--opt-level", "3", "--pass-config", "FuseOps.max_depth=2", "-o", g], 0,
        out=["opt_level   3", "config      FuseOps.max_depth = 2"])
    o, _ = run(["build", "--disable-pass", "FoldConstant", "-o", g], 0, out=["passes run"])
    if "FoldConstant: " in o:
        FAILURES.append("irm build --disable-pass FoldConstant: FoldConstant still ran\n" + o)
    run(["build", "--required-pass", "FuseOps", "--opt-level", "0", "-o", g], 0, out=["    FuseOps: "])
    run(["build", "--passes", "Sequential(InferType,SimplifyExpr)", "-o", g], 0,
        out=["passes      Sequential(InferType,SimplifyExpr)", "  SimplifyExpr: "])
    run(["build", "--print-ir-before", "FuseOps", "-o", g], 0, err=["; IR before pass 'FuseOps'"])
    run(["build", "--print-ir-after", "all", "-o", g], 0, err=["; IR after pass 'InferType'", "; IR after pass 'FuseOps'"])
    run(["build", "--print-ir-after", "FuseOp", "-o", g], 0, err=["did you mean 'FuseOps'"])
    # Bisection skips the driver's pipeline, FuseOps with it: code generation refuses the unfused main.
    run(["build", "--bisect-limit", "1", "-o", g], 1, err=["not running pass #2 'driver.default'", "run FuseOps"])
    # 16: the driver's own passes, driver.default and its fourteen passes all run.
    run(["build", "--bisect-limit", "16", "-o", g], 0, not_err=["not running pass"])
    if PLUGIN:
        run(["build", "--load-plugin", PLUGIN, "--passes", "FailingPass", "-o", g], 1,
            err=["FailingPass always fails"], not_out=["files written"])
        run(["build", "--passes", "FailingPass", "-o", g], 1, err=["FailingPass always fails"],
            env=dict(ENV, IRM_PLUGIN_PATH=PLUGIN), name="build with IRM_PLUGIN_PATH")
        run(["build", "--passes", "FailingPass", "-o", g], 2, err=["--passes"], name="build without the plugin")

    # ---- usage errors (status 2) ---------------------------------------------------------------------
    run(["build", "--exectuor", "aot"], 2, err=["unknown flag '--exectuor' (did you mean '--executor'?)",
                                                 "(irm build --help for usage)"])
    run(["run", "--sede", "1", CNN], 2, err=["did you mean '--seed'?"])
    run(["biuld"], 2, err=["did you mean 'build'?"])
    run(["build", "--executor", "aut"], 2, err=["--executor 'aut'", "aot"])
    run(["build", "--executor", "aot,unpacked_api=1"], 2, err=["did you mean 'unpacked-api'"])
    run(["build", "--executor", "aot,unpacked-api=maybe"], 2, err=["--executor"])
    run(["build", "--executor", "{bad"], 2, err=["malformed JSON"])
    run(["build", "--executor", "[1]"], 2, err=["--executor"])
    run(["build", "--executor", '{"kind": 3}'], 2, err=["--executor"])
    run(["build", "--executor", '{"unpacked-api": true}'], 2, err=["kind"])
    run(["build", "--runtime", "crt,system-lib=x"], 2, err=["--runtime"])
    run(["build", "--runtime", "cp"], 2, err=["cpp"])
    run(["build", "--executor", ","], 2, err=["--executor"])
    run(["build", "--executor", ""], 2, err=["--executor"])
    run(["build", "--opt-level", "x"], 2, err=["--opt-level: expected an integer"])
    run(["build", "--bisect-limit", "1e3"], 2, err=["--bisect-limit"])
    run(["build", "--pass-config", "FuseOps.max_dept=2"], 2, err=["did you mean 'FuseOps.max_depth'"])
    run(["build", "--passes", "Sequential("], 2, err=["--passes"])
    run(["build", "--mod-name", "a/b"], 2, err=["--mod-name"])
    run(["build", "cnn", "mlp"], 2, err=["unexpected argument 'mlp'"])
    run(["build", "--target"], 2, err=["needs a value"])
    run(["run"], 2, err=["expected DIR"])
    run(["run", CNN, CNN], 2, err=["unexpected argument"])
    run(["run", CNN, "--seed", "-1"], 2, err=["--seed"])
    run(["run", CNN, "--tolerance", "abc"], 2, err=["--tolerance"])
    run(["run", CNN, "--tolerance", "nan"], 2, err=["--tolerance"])
    run(["run", CNN, "--show", "x"], 2, err=["--show"])

    # ---- failures (status 1) and odd input that must not crash ------------------------------------------
    run(["build", "--target", "lvm", "-o", tmp("t-bad")], 1, err=["did you mean 'llvm'"])
    run(["build", tmp("no-such-model.irm")], 1, err=["cannot read"])
    run(["build", "nosuchmodel"], 1, err=["no file and no example model"])
    run(["build", "-o", tmp("no/such/folder")], 1, err=["cannot make the folder"])
    run(["build", "--executor", "aot", b"\xff\xfe-model"], 1, err=["\\xFF"], name="build of a non-UTF-8 name")
    run(["build", "x" * 5000], 1, err=["..."], name="build of a very long name")
    with open("/dev/full", "w") as full:
        run(["build", "-o", tmp("full")], 1, stdout=full, err=["cannot write the output"], name="build >/dev/full")


def run_cases():
    """aot builds run against ir.Evaluate, and irm run's failures."""
    # ---- aot: build, run, seeds -----------------------------------------------------------------
    cnn = CNN
    o, e = run(["build", "--executor", "aot", "-o", CNN, "--time-passes", "--target", "c", "--target-host", "c"], 0,
               out=["executor    ir.Executor(kind=\"aot\"", "target      c -keys=cpu", "target-host c -keys=cpu",
                    "passes run", "files written", cnn + "/tvmgen_default.c", cnn + "/irm-build.json",
                    "irm run " + CNN], err=["FuseOps: "])
    o0, _ = run(["run", CNN, "--check"], 0,
                out=["compiled to " + cnn + "/libdefault.so", "3072 float32 values (random, seed 0)",
                     "output 0: Tensor[(1, 10), float32] = [", "... (2 more)", "largest difference from ir.Evaluate: "])
    if largest_difference(o0) > 1e-4:
        FAILURES.append("irm run of the aot CNN: difference above 1e-4\n" + o0)
    o0b, _ = run(["run", CNN, "--seed", "0", "--show", "0", "--tolerance", "0.001"], 0, not_out=["more)"])
    o7, _ = run(["run", CNN, "--seed", "7"], 0, out=["(random, seed 7)"])
    if outputs(o0) == outputs(o7):
        FAILURES.append("irm run: seeds 0 and 7 gave the same outputs")
    if outputs(o0)[0].split(" = [")[1].split(",")[0] != outputs(o0b)[0].split(" = [")[1].split(",")[0]:
        FAILURES.append("irm run: the same seed gave different outputs")

    # Without --check: no ir.Evaluate. The library is reused while newer than its sources.
    o, _ = run(["run", CNN], 0, out=["reuses " + cnn + "/libdefault.so", "output 0: Tensor[(1, 10), float32]"],
               not_out=["largest difference", "compiled to"])
    os.utime(os.path.join(CNN, "tvmgen_default.c"))  # a source newer than the library: compiled again
    run(["run", CNN], 0, out=["compiled to " + cnn + "/libdefault.so"])
    run(["run", CNN], 0, out=["reuses " + cnn + "/libdefault.so"])
    # --repeat/--number: the timing report's fields; --num-threads
    o, _ = run(["run", CNN, "--repeat", "3", "--number", "2", "--num-threads", "1"], 0,
               out=["execution time (ms), 3 repeats of 2 runs each:"])
    fields = o.split("execution time")[1].splitlines()
    if fields[1].split() != ["mean", "median", "max", "min", "std"] or len(fields[2].split()) != 5 or \
            not all(float(x) >= 0 for x in fields[2].split()):
        FAILURES.append("irm run --repeat: the report's fields\n" + o)
    else:
        mean, median, hi, lo, _ = (float(x) for x in fields[2].split())
        if not lo <= median <= hi or not lo <= mean <= hi:
            FAILURES.append("irm run --repeat: min <= mean, median <= max fails\n" + o)
    run(["run", CNN, "--repeat", "0"], 2, err=["--repeat"])
    run(["run", CNN, "--number", "x"], 2, err=["--number"])
    run(["run", CNN, "--num-threads", "999"], 2, err=["--num-threads"])
    # --profile: every kernel the entry point calls, from the profiled library
    with open(os.path.join(CNN, "tvmgen_default.c")) as f:
        kernels = sorted(set(re.findall(r'IRM_CRT_KERNEL_ENTER\(\d+, "([^"]+)"\)', f.read())))
    o, _ = run(["run", CNN, "--profile"], 0, out=["kernel profile, 1 runs (%d kernels" % len(kernels), "calls",
                                                   "total ms", "share"])
    listed = sorted(line.split()[0] for line in o.split("kernel profile")[1].splitlines()[2:2 + len(kernels)])
    if not kernels or listed != kernels:
        FAILURES.append("irm run --profile: kernels %s, listed %s\n%s" % (kernels, listed, o))
    if not os.path.isfile(os.path.join(CNN, "libdefault.profile.so")):
        FAILURES.append("irm run --profile wrote no libdefault.profile.so")
    # graph: the MLP's weights unchanged by the build: the record names the params artifact, and no second
    # copy is written
    run(["build", "mlp", "-o", tmp("graph-mlp")], 0, out=["graph-mlp/default.params"], not_out=["model.params"])
    if os.path.exists(tmp("graph-mlp/default.model.params")):
        FAILURES.append("irm build of the MLP wrote its unchanged weights twice")
    run(["run", tmp("graph-mlp"), "--check"], 0, out=["largest difference from ir.Evaluate: "])
    # --profile of a graph build: the kernel wrappers the runner calls bracket each kernel with the hooks
    with open(tmp("graph-mlp/tvmgen_default.c")) as f:
        kernels = sorted(set(re.findall(r'IRM_CRT_KERNEL_ENTER\(\d+, "([^"]+)"\)', f.read())))
    o, _ = run(["run", tmp("graph-mlp"), "--profile"], 0, out=["kernel profile, 1 runs (%d kernels" % len(kernels)])
    listed = sorted(line.split()[0] for line in o.split("kernel profile")[1].splitlines()[2:2 + len(kernels)])
    if not kernels or listed != kernels:
        FAILURES.append("irm run --profile of a graph build: kernels %s, listed %s\n%s" % (kernels, listed, o))

    # The C interface with the crt runtime, a module name, an example model by name.
    m1 = tmp("mlp-c")
    run(["build", "mlp", "--executor", "aot,unpacked-api=1,interface-api=c", "--runtime", "crt", "--mod-name", "m1",
         "-o", m1], 0, out=["build of 'mlp'", "\"unpacked-api\": true", "\"interface-api\": \"c\"",
                            "ir.Runtime(kind=\"crt\"", "mod_name    m1", "tvmgen_m1.c"])
    o, _ = run(["run", m1, "--check"], 0, out=["libm1.so", "64 float32 values"])
    if largest_difference(o) > 1e-4:
        FAILURES.append("irm run of mlp (C interface): difference above 1e-4\n" + o)

    # Executor and runtime as JSON objects; weights in a params file beside the library.
    res = tmp("residual-json")
    run(["build", "residual", "--executor", '{"kind": "aot", "link-params": false}', "--runtime", '{"kind": "cpp"}',
         "-o", res], 0, out=["\"link-params\": false", "default.params"])
    o, _ = run(["run", res, "--check"], 0)
    if largest_difference(o) > 1e-4:
        FAILURES.append("irm run of residual (params file): difference above 1e-4\n" + o)

    # Legacy target options become the executor and runtime, with their warnings; a JSON target.
    leg = tmp("mlp-legacy")
    run(["build", "mlp", "--target", "c -executor=aot -runtime=c -unpacked-api=1 -interface-api=c", "-o", leg], 0,
        out=["ir.Executor(kind=\"aot\"", "\"interface-api\": \"c\"", "ir.Runtime(kind=\"crt\""],
        err=["DeprecationWarning: target option '-executor=aot' is deprecated"])
    run(["run", leg, "--check"], 0, out=["largest difference"])
    # -mcpu=native is resolved at build to the CPU cc names (docs/build.md, "The CPU").
    run(["build", "mlp", "--target", '{"kind": "c", "mcpu": "native"}', "--executor", "aot", "-o", tmp("mlp-json")],
        0, out=["target      c -keys=cpu ", " -mcpu="], not_out=["-mcpu=native"])

    # The graph executor with the weights linked in.
    gl = tmp("residual-graph")
    run(["build", "residual", "--executor", "graph,link-params=1", "-o", gl], 0,
        out=["ir.Executor(kind=\"graph\", attrs={\"link-params\": true", "default.json"])
    o, _ = run(["run", gl, "--check", "--seed", "2"], 0)
    if largest_difference(o) > 1e-4:
        FAILURES.append("irm run of residual (graph, link-params): difference above 1e-4\n" + o)

    # --params: all-zero weights make the MLP's softmax uniform (0.1 each).
    shapes = {"fc1_weight": (32, 64), "fc1_bias": (32,), "fc2_weight": (16, 32), "fc2_bias": (16,),
              "fc3_weight": (10, 16), "fc3_bias": (10,)}


    def zero_params(add):
        keys, values = [], []
        for k, shape in shapes.items():
            n = 1
            for d in shape:
                n *= d
            keys.append(k)
            values.append(tensor_node(add, shape, [0.0] * n))
        return add({"type": "ffi.Map", "keys": keys, "values": values})


    zeros = write("zeros.json", irm_json(zero_params))
    mz = tmp("mlp-zero")
    run(["build", "mlp", "--executor", "aot", "--params", zeros, "-o", mz], 0, out=["files written"])
    o, _ = run(["run", mz, "--check"], 0, out=["= [0.1, 0.1, 0.1"])
    if largest_difference(o) > 1e-6:
        FAILURES.append("irm run with --params: difference above 1e-6\n" + o)
    # The weights irm build keeps: TVM's param dict, DIR/<mod_name>.model.params, or the params artifact
    # when the build left them unchanged (no second copy); the record names the file without copying a tensor;
    # --params reads it back (told from JSON by its magic number).
    wname = "default.model.params"
    if not os.path.exists(os.path.join(mz, wname)):
        wname = "tvmgen_default_params.bin"
    with open(os.path.join(mz, wname), "rb") as f:
        blob = f.read()
    if struct.unpack("<QQQ", blob[:24]) != (0xF7E58D4F05049CB7, 0, len(shapes)):
        FAILURES.append("%s: not TVM's param dict of the MLP's %d weights" % (wname, len(shapes)))
    with open(os.path.join(mz, "irm-build.json")) as f:
        record_text = f.read()
    if "ffi.Tensor" in record_text or '"%s"' % wname not in record_text:
        FAILURES.append("irm-build.json holds a tensor or does not name " + wname)
    run(["build", "mlp", "--executor", "aot", "--params", os.path.join(mz, wname), "-o", tmp("mlp-zero-bin")], 0,
        out=["files written"])
    run(["run", tmp("mlp-zero-bin"), "--check"], 0, out=["= [0.1, 0.1, 0.1"])
    with open(tmp("trunc.params"), "wb") as f:
        f.write(blob[:len(blob) // 2])
    run(["build", "mlp", "--params", tmp("trunc.params"), "-o", tmp("p-bad")], 1,
        err=["--params", "trunc.params", "not a valid param dict: the params blob is truncated"])
    at = blob.index(struct.pack("<Q", 0xDD5E40F096B4A13F))
    with open(tmp("magic.params"), "wb") as f:
        f.write(blob[:at] + b"\0" + blob[at + 1:])
    run(["build", "mlp", "--params", tmp("magic.params"), "-o", tmp("p-bad")], 1, err=["bad magic number"])
    if os.path.exists(tmp("p-bad")):
        FAILURES.append("irm build with bad --params wrote p-bad")
    # irm run: the weights' file missing or broken
    os.remove(os.path.join(tmp("mlp-zero-bin"), wname))
    run(["run", tmp("mlp-zero-bin")], 1, err=["cannot read", wname])
    shutil.copy(tmp("trunc.params"), os.path.join(tmp("mlp-zero-bin"), wname))
    run(["run", tmp("mlp-zero-bin")], 1, err=["the weights", "truncated"])
    # --input: a given data tensor (ones), an input name mistyped, a file without a Tensor.
    ones = write("ones.json", irm_json(lambda add: tensor_node(add, (1, 64), [1.0] * 64)))
    o, _ = run(["run", m1, "--check", "--input", "data=" + ones], 0, out=["(given)"])
    if largest_difference(o) > 1e-4:
        FAILURES.append("irm run --input: difference above 1e-4\n" + o)
    run(["run", m1, "--input", "dta=" + ones], 2, err=["no input 'dta' (did you mean 'data'?)"])
    run(["run", m1, "--input", "data=" + zeros], 1, err=["holds no Tensor"])
    run(["run", m1, "--input", "data=" + tmp("missing.json")], 1, err=["cannot read"])
    run(["run", m1, "--input", "data"], 2, err=["expected NAME=FILE"])
    run(["run", m1, "--input", "data=" + write("small.json", irm_json(lambda add: tensor_node(add, (1, 3), [1, 2, 3])))],
        1, err=["input 'data'", "expected shape (1, 64), got (1, 3)"])
    # A library whose weights are not the record's: the outputs differ, status 1.
    mixed = tmp("mlp-mixed")
    run(["build", "mlp", "--executor", "aot", "-o", mixed], 0)
    with open(os.path.join(mixed, "irm-build.json")) as f:
        text = f.read()
    weights = "default.model.params" if '"default.model.params"' in text else "tvmgen_default_params.bin"
    # the record's weights: the MLP's own, under another name; the library's: the zeros
    shutil.copy(os.path.join(mixed, weights), os.path.join(mixed, "own.params"))
    with open(os.path.join(mixed, "irm-build.json"), "w") as f:
        f.write(text.replace('"%s"' % weights, '"own.params"', 1))
    for name in ("tvmgen_default.c", "tvmgen_default_params.bin"):  # link-params: the weights are the .bin
        shutil.copy(os.path.join(mz, name), os.path.join(mixed, name))
    run(["run", mixed, "--check"], 1, out=["= [0.1, 0.1"],
        err=["the outputs differ from ir.Evaluate by", "more than --tolerance"])
    run(["run", mixed, "--tolerance", "1"], 0)
    run(["build", "--params", ones, "-o", tmp("p-bad")], 1, err=["--params", "expected a Map"])
    run(["build", "--params", tmp("missing.json"), "-o", tmp("p-bad")], 1, err=["cannot read"])

    run(["run", tmp("nothing-here")], 1, err=["holds no irm-build.json"])
    run(["run", TMP], 1, err=["holds no irm-build.json"])
    broken = tmp("broken")
    os.makedirs(broken, exist_ok=True)
    write("broken/irm-build.json", "{not json")
    run(["run", broken], 1, err=["malformed JSON"])
    write("broken/irm-build.json", irm_json(lambda add: add({"type": "ffi.Map", "keys": [], "values": []})))
    run(["run", broken], 1, err=["no record of irm build"])
    # The record is data (issue 39, D3): a mod_name that is no C identifier, files that lead out of DIR.
    esc = tmp("escape")
    run(["build", "mlp", "--executor", "aot", "--mod-name", "m3x", "-o", esc], 0)
    record = os.path.join(esc, "irm-build.json")
    with open(record) as f:
        text = f.read()
    with open(record, "w") as f:
        f.write(text.replace('"m3x"', '"/../../../escaped"'))
    run(["run", esc], 1, err=["gives mod_name '/../../../escaped', which is no C identifier"])
    for made in (os.path.join(esc, "lib", "..", "..", "..", "escaped.so"), os.path.join(TMP, "escaped.so")):
        if os.path.exists(made):
            FAILURES.append("irm run wrote " + made + " outside DIR")
    with open(record, "w") as f:
        f.write(text)
    source = os.path.join(esc, "tvmgen_m3x.c")
    outside = write("outside.c", open(source).read())
    os.remove(source)
    os.symlink(outside, source)
    run(["run", esc], 1, err=["tvmgen_m3x.c' (an artifact) leads out of"])
    os.remove(source)
    shutil.copy(outside, source)
    os.symlink(write("outside.so", ""), os.path.join(esc, "libm3x.so"))
    run(["run", esc], 1, err=["libm3x.so' (the library) leads out of"])
    os.remove(os.path.join(esc, "libm3x.so"))
    run(["run", esc], 0)
    # A C source that does not compile: the compiler's message, status 1.
    bad_c = tmp("bad-c")
    run(["build", "mlp", "--executor", "aot", "-o", bad_c], 0)
    with open(os.path.join(bad_c, "tvmgen_default.c"), "a") as f:
        f.write("\nthis is not C;\n")
    run(["run", bad_c], 1, err=["the compiler failed"])
    os.remove(os.path.join(bad_c, "tvmgen_default.c"))
    run(["run", bad_c], 1, err=["cannot read"])
    with open("/dev/full", "w") as full:
        run(["run", m1], 1, stdout=full, err=["cannot write the output"], name="run >/dev/full")

    # ---- irm build --export and irm cache (a cache folder of this test's own) -----------------
    env = dict(ENV, IRM_CACHE_DIR=tmp("cli-cache"))
    shutil.rmtree(tmp("cli-cache"), ignore_errors=True)
    run(["cache", "info"], 0, out=["build cache", "cli-cache", "0 entries"], env=env)
    ex = tmp("export")
    run(["build", "mlp", "--executor", "aot", "-o", ex, "--export", "-j", "2"], 0,
        out=["library", "libdefault.so: ", " 0 from the build cache"], not_err=["compiling"], env=env)
    if not os.path.isfile(os.path.join(ex, "libdefault.so")):
        FAILURES.append("irm build --export wrote no libdefault.so")
    o, _ = run(["build", "mlp", "--executor", "aot", "-o", ex, "--export"], 0, out=["library"], env=env)
    if " 0 from the build cache" in o:
        FAILURES.append("irm build --export twice: nothing from the cache\n" + o)
    run(["build", "mlp", "--executor", "aot", "-o", ex, "--export", "--no-cache"], 0,
        out=[" 0 from the build cache"], env=env)
    run(["build", "--export", "-j", "0", "-o", ex], 2, err=["--jobs: expected a count from 1 to 1024"])
    o, _ = run(["cache", "info", "--json"], 0, out=['"entries": '], env=env)
    if json.loads(o)["entries"] < 1:
        FAILURES.append("irm cache info --json: no entries after a build\n" + o)
    run(["cache", "clear"], 0, out=["entries removed"], env=env)
    run(["cache", "info"], 0, out=["0 entries"], env=env)
    run(["cache", "inf"], 2, err=["did you mean 'info'"], env=env)
    run(["cache"], 2, err=["expected 'info' or 'clear'"], env=env)
    run(["cache", "clear", "--json"], 2, err=["--json goes with info"], env=env)
    run(["cache", "--help"], 0, out=["usage: irm cache", "IRM_CACHE_DIR"])


def onnx_cases():
    """irm build MODEL.onnx through the Python frontend (needs an interpreter
    with onnx: this script runs under it), its flags, and bad model files."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array(np.random.RandomState(0).randn(4, 3).astype(np.float32), "W")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"]), helper.make_node("Relu", ["y"], ["z"])],
                              "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], [w])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    for name, content in [("tiny.onnx", data), ("tiny.model", data), ("empty.onnx", b""),
                          ("trunc.onnx", data[:len(data) // 2]),
                          ("random.onnx", bytes(np.random.RandomState(1).randint(0, 256, 300, dtype=np.uint8)))]:
        with open(tmp(name), "wb") as f:
            f.write(content)
    python = sys.executable
    preload = os.environ.get("IRM_TEST_ASAN_PRELOAD")
    if preload:  # the sanitizer build: the interpreter loads an instrumented libirm, irm keeps its leak checks
        python = tmp("asan-python")
        with open(python, "w") as f:
            f.write('#!/bin/sh\nLD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 exec %s "$@"\n' % (preload, sys.executable))
        os.chmod(python, 0o755)
    env = dict(ENV, IRM_PYTHON=python)
    run(["build", "tiny.onnx", "--input-shapes", "x:2x4", "--executor", "aot", "-o", tmp("onnx-aot")], 0,
        out=["build of 'tiny.onnx'", "files written"], env=env)
    o, _ = run(["run", tmp("onnx-aot"), "--check"], 0, out=["output 0: Tensor[(2, 3), float32]"], env=env)
    if largest_difference(o) > 1e-5:
        FAILURES.append("irm run of the ONNX build: difference above 1e-5\n" + o)
    # another name: recognised by its first bytes
    run(["build", "tiny.model", "--input-shapes", "x:1x4", "--input-dtypes", "x:float32", "-o", tmp("onnx-g")], 0,
        out=["build of 'tiny.model'"], env=env)
    run(["build", "tiny.onnx", "-o", tmp("onnx-dyn")], 1, err=["input 'x' has a dynamic dimension 0"], env=env)
    run(["build", "tiny.onnx", "--input-shapes", "bad:2x4"], 1,
        err=["names 'bad', which is no input of the model; its inputs: 'x'"], env=env)
    run(["build", "tiny.onnx", "--input-shapes", "x:2y4"], 2, err=["'2y4' is no shape"], env=env)
    run(["build", "tiny.onnx", "--input-shapes", "x"], 2, err=["expected NAME:D0xD1x...[,...]"], env=env)
    run(["build", "tiny.onnx", "--input-shapes", "x:2x4", "--input-dtypes", "x:flaot32"], 2,
        err=["did you mean 'float32'"], env=env)
    run(["build", "cnn", "--input-shapes", "x:2x4"], 2, err=["apply to an ONNX model only"], env=env)
    for name, message in [("empty.onnx", "'empty.onnx' is empty (0 bytes), not an ONNX model"),
                          ("trunc.onnx", "'trunc.onnx' is not an ONNX model"),
                          ("random.onnx", "'random.onnx' is not an ONNX model")]:
        _, e = run(["build", name, "-o", tmp("bad-" + name)], 1, err=[message], not_err=["Traceback"], env=env)
        if len(e.strip().splitlines()) != 1:
            FAILURES.append(f"irm build {name}: more than one line on stderr\n{e}")
        if os.path.exists(tmp("bad-" + name)):
            FAILURES.append(f"irm build {name}: wrote {tmp('bad-' + name)}")
    run(["build", "missing.onnx"], 1, err=["cannot read 'missing.onnx'"], env=env)
    foo = helper.make_graph([helper.make_node("Foo", ["x"], ["y"])], "g",
                            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(foo, opset_imports=[helper.make_opsetid("", 13)]), tmp("foo.onnx"))
    run(["build", "foo.onnx"], 1, err=["'foo.onnx': 1 unsupported op: Foo"], not_err=["Traceback"], env=env)
    # irm run --inputs / --outputs through numpy: .npz and .npy in, .npz out, against numpy's own result
    x = np.random.RandomState(2).uniform(-1, 1, (2, 4)).astype(np.float32)
    want = np.maximum(x @ numpy_helper.to_array(w), 0)
    np.savez(tmp("in.npz"), x=x)
    np.save(tmp("in.npy"), x)
    for given in ("in.npz", "in.npy"):
        out = tmp("out-" + given + ".npz")
        run(["run", tmp("onnx-aot"), "--inputs", tmp(given), "--outputs", out, "--check"], 0,
            out=["(given)", "outputs written to"], env=env)
        if not os.path.isfile(out):
            continue  # the failing run is recorded
        got = np.load(out)
        if got.files != ["output_0"] or got["output_0"].dtype != np.float32 or \
                not np.allclose(got["output_0"], want, atol=1e-6):
            FAILURES.append("irm run --inputs %s --outputs: %s, expected %s" % (given, dict(got), want))
    # an index out of range at run time: the kernel's own words, for aot and graph (issue 39, D9)
    take = write("take.irm", '#[version = "irm-0.1"]\ndef @main(%x: Tensor[(5, 2), float32], '
                             '%i: Tensor[(3), int32]) {\n  %0 = take(%x, %i, axis=0);\n  %0\n}\n')
    np.savez(tmp("take-in.npz"), x=np.ones((5, 2), np.float32), i=np.array([1, 7, 0], np.int32))
    for executor in ("aot", "graph"):
        run(["build", take, "--executor", executor, "-o", tmp("take-" + executor)], 0, env=env)
        run(["run", tmp("take-" + executor), "--inputs", tmp("take-in.npz")], 1,
            err=["take: index 7 is out of range [-5, 5) on axis 0 (kernel tvmgen_default_fused_take"], env=env)
    np.savez_compressed(tmp("inc.npz"), x=x)
    run(["run", tmp("onnx-aot"), "--inputs", tmp("inc.npz")], 1, err=["compressed (numpy.savez_compressed)"],
        env=env)
    np.savez(tmp("bad-name.npz"), y=x)
    run(["run", tmp("onnx-aot"), "--inputs", tmp("bad-name.npz")], 2, err=["entry 'y' names no input of the model"],
        env=env)
    np.save(tmp("f64.npy"), x.astype(np.float64))
    run(["run", tmp("onnx-aot"), "--inputs", tmp("f64.npy")], 1, err=["expected dtype float32, got float64"], env=env)
    np.save(tmp("u16.npy"), x.astype(np.uint16))
    run(["run", tmp("onnx-aot"), "--inputs", tmp("u16.npy")], 1, err=["numpy dtype '<u2'"], env=env)
    with open(tmp("junk.npz"), "wb") as f:
        f.write(b"PK\3\4" + bytes(40))
    run(["run", tmp("onnx-aot"), "--inputs", tmp("junk.npz")], 1, err=["junk.npz", "no zip end record"], env=env)
    run(["run", tmp("onnx-aot"), "--outputs", "/nonexistent/o.npz"], 1, err=["cannot write '/nonexistent/o.npz'"],
        env=env)
    run(["build", "tiny.onnx"], 1, err=["'/nonexistent/python3' cannot be run", "apt-get install python3-onnx"],
        env=dict(env, IRM_PYTHON="/nonexistent/python3"))
    # an interpreter without onnx: a Python whose import of onnx fails
    fake = tmp("fake-python")
    with open(fake, "w") as f:
        f.write("#!%s\nimport runpy, sys\nsys.modules['onnx'] = None\nsys.argv = [sys.argv[0]] + sys.argv[3:]\n"
                "runpy.run_module('irm.frontend.onnx', run_name='__main__')\n" % sys.executable)
    if preload:
        os.rename(fake, fake + ".py")
        with open(fake, "w") as f:
            f.write('#!/bin/sh\nLD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 exec %s %s "$@"\n'
                    % (preload, sys.executable, fake + ".py"))
    os.chmod(fake, 0o755)
    run(["build", "tiny.onnx"], 1, err=["needs the Python package onnx", "apt-get install python3-onnx"],
        env=dict(env, IRM_PYTHON=fake))


# Two ctest cases (cli_build, cli_run) keep each short; "all" runs both;
# "onnx" (cli_onnx) runs under an interpreter that has onnx.
PART = sys.argv[3] if len(sys.argv) > 3 else "all"
if PART in ("build", "all"):
    build_cases()
if PART in ("run", "all"):
    run_cases()
if PART == "onnx":
    onnx_cases()
finish(f"irm build and run ({PART})")
