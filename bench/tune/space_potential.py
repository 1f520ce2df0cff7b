#!/usr/bin/env python3
"""What a larger tuning space could gain (docs/tuning.md, "The space's
potential"): for each distinct blocked conv workload of a network (not the
depthwise ones), times the conv laid out as the default rule lays it out and
as each alternative, every one with the default rule's tile choices:

- the algorithm: Winograd's F(2x2, 3x3) ("winograd"), F(4x4, 3x3)
  ("winograd4") or the direct conv (for a 3x3, stride-1, groups-1 conv
  reading blocked data);
- oc_vecs 1, 2, 4: the output-channel vectors of the packed weight
  (OIHW{x}i{V*x}o, Winograd's HWOI{x}i{V*x}o), where they divide the
  output's channel blocks.

Each alternative is a task module of its own (the extracted task's
attributes, its main rewritten), measured with irm.tune_measure.measure
(a child process, best of batches: its weight stays in the caches), the
variants interleaved, best of ROUNDS. With --cold, each is built with its
weight a constant, as in the network, and one run is timed in this process
after writing 96 MB (the caches flushed: in a network every weight comes
from memory), best of ROUNDS. Prints a line per workload, the sum over the network's calls of the
default and of the best alternative, and writes the rows as JSON.

Not a ctest: minutes. Run it under SCHED_FIFO on a shared machine:

    IRM_LIBRARY=build/lib/libirm.so PYTHONPATH=python chrt -f 10 \\
        /usr/bin/python3 bench/tune/space_potential.py resnet18 mobilenet_v2

usage: space_potential.py [--cold] [--rounds R] [--size S] [--target T] [--json FILE] networks..."""
import argparse
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))

SIGNATURE = re.compile(r"\(%p0: Tensor\[\(([^)]*)\), float32\], %p1: Tensor\[\(([^)]*)\), float32\]\) "
                       r"-> Tensor\[\(([^)]*)\), float32\]")


TASK_ATTR = re.compile(r',\n  tune\.task = "(?:[^"\\]|\\.)*"')
PARAMS = re.compile(r"%p\d: Tensor\[\(([^)]*)\)")


def dims(text):
    return [int(v) for v in text.split(",")]


def variants(task, block):
    """({(algorithm, oc_vecs): task module}, the default's key) of task."""
    import irm
    head, main = str(task["task"]).split("def @main", 1)
    w = json.loads(task["workload"])
    p0, p1, out = SIGNATURE.match(main).groups()
    cb, xi, ob = dims(p0)[1], dims(p0)[4], dims(out)[1]
    in_channels = re.search(r"in_channels=\d+", main)
    extra = (", " + in_channels.group(0) if in_channels else "") + (
        ', out_layout="NCHW%dc"' % block if xi != block else "")
    pad = "[%d, %d, %d, %d]" % (w["padding"][0], w["padding"][1], w["padding"][0], w["padding"][1])
    winograd_ok = (w["kh"] == 3 and w["kw"] == 3 and w["strides"] == [1, 1] and w["dilation"] == [1, 1]
                   and w["groups"] == 1 and xi == block)
    bodies = {}
    for v in (1, 2, 4):
        if ob % v:
            continue
        bodies[("direct", v)] = (
            "(%%p0: Tensor[(%s), float32], %%p1: Tensor[(%d, %d, %d, %d, %d, %d), float32]) -> Tensor[(%s), float32] "
            "{\n  %%0 = nn.contrib_conv2d_NCHWc(%%p0, %%p1, strides=[%d, %d], padding=%s, channels=%d%s, "
            "data_layout=\"NCHW%dc\", kernel_layout=\"OIHW%di%do\");\n  %%0\n}\n"
            % (p0, ob // v, cb, w["kh"], w["kw"], xi, v * block, out, w["strides"][0], w["strides"][1], pad,
               w["oc"], extra, xi, xi, v * block))
        for name, tile in (("winograd", 2), ("winograd4", 4)) if winograd_ok else ():
            bodies[(name, v)] = (
                "(%%p0: Tensor[(%s), float32], %%p1: Tensor[(%d, %d, %d, %d, %d, %d), float32]) -> "
                "Tensor[(%s), float32] {\n  %%0 = nn.contrib_conv2d_winograd_without_weight_transform(%%p0, %%p1, "
                "padding=%s, channels=%d, data_layout=\"NCHW%dc\", kernel_layout=\"HWOI%di%do\", tile_size=%d);"
                "\n  %%0\n}\n"
                % (p0, tile + 2, tile + 2, ob // v, cb, block, v * block, out, pad, w["oc"], block, block, v * block,
                   tile))
    mods = {k: irm.ir.parse(head + "def @main" + body) for k, body in bodies.items()}
    algorithm = "direct"
    if task["family"] == "winograd_nchwc":
        algorithm = "winograd4" if w.get("tile") == 4 else "winograd"
    default = (algorithm, dims(p1)[5] // block)
    mods[("default",) + default] = task["task"]
    return mods, default


def warm_times(task, mods, args):
    """{key: seconds per run} of each variant measured as a task."""
    from irm import tune_measure
    best = {k: float("inf") for k in mods}
    keys = list(mods)
    for r in range(args.rounds):
        for k in keys[r % len(keys):] + keys[:r % len(keys)]:
            got = tune_measure.measure(mods[k], {}, repeat=5, min_repeat_ms=10)
            if got["error"]:
                print("# %s %s: %s" % (describe(task), k, got["error"]), flush=True)
            else:
                best[k] = min(best[k], got["mean"])
    return best


def cold_times(task, mods, args):
    """{key: seconds of one run after the caches are flushed} of each
    variant built with its weight a constant and run in this process."""
    import numpy as np
    import irm
    import models_build as mb
    rng = np.random.default_rng(0)
    flush = np.zeros(96 << 18, np.float32)  # 96 MB, past any last-level cache here
    libs, data = {}, {}
    with tempfile.TemporaryDirectory(prefix="irm-space-") as folder:
        for k, m in mods.items():
            text = TASK_ATTR.sub("", str(m))
            shapes = [dims(v) for v in PARAMS.findall(text)]
            weight = rng.uniform(-1, 1, shapes[1]).astype(np.float32)
            built = irm.build(irm.ir.parse(text), args.target, executor=irm.Executor("aot", mb.EXECUTOR),
                              runtime="crt", params={"p1": weight})
            path = os.path.join(folder, "-".join(str(v) for v in k) + ".so")
            built.export_library(path)
            libs[k] = irm.runtime.load(path, num_threads=1)
            data[k] = rng.uniform(-1, 1, shapes[0]).astype(np.float32)
            libs[k].run(data[k])
        best = {k: float("inf") for k in mods}
        for _ in range(args.rounds):
            for k, lib in libs.items():
                flush += 1.0
                t0 = time.perf_counter()
                lib.run(data[k])
                best[k] = min(best[k], time.perf_counter() - t0)
    return best


def describe(task):
    w = json.loads(task["workload"])
    return "ic%d %dx%d oc%d k%d s%d" % (w["ic"], w["ih"], w["iw"], w["oc"], w["kh"], w["strides"][0])


def network(name, args):
    import bench_tune
    from irm import tune_measure
    mod, _, _ = bench_tune.load_network(name, args.size)
    rows = []
    for task in tune_measure.extract_tasks(mod, args.target):
        if task["family"] == "depthwise_nchwc":
            continue
        block = json.loads(task["workload"])["block"]
        mods, default = variants(task, block)
        best = (cold_times if args.cold else warm_times)(task, mods, args)
        d = best[("default",) + default]
        alts = {"%s%d" % k: t for k, t in best.items() if k[0] != "default"}
        which = min(alts, key=alts.get)
        row = {"network": name, "workload": describe(task), "family": task["family"], "calls": task["calls"],
               "default": "%s%d" % default, "default_ms": d * 1e3, "best": which, "best_ms": alts[which] * 1e3,
               "all_ms": {k: t * 1e3 for k, t in alts.items()}}
        rows.append(row)
        print("%s %-26s x%d default %-9s %.3f ms  best %-9s %.3f ms (%.2f)"
              % (name, row["workload"], row["calls"], row["default"], row["default_ms"], which, row["best_ms"],
                 row["best_ms"] / row["default_ms"]), flush=True)
    sd = sum(r["default_ms"] * r["calls"] for r in rows)
    sb = sum(min(r["best_ms"], r["default_ms"]) * r["calls"] for r in rows)
    print("%s: convs %.3f ms with the default rule, %.3f ms with the best alternatives (%.3f)"
          % (name, sd, sb, sb / sd), flush=True)
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="+")
    p.add_argument("--rounds", type=int, default=None, help="default 3, with --cold 15")
    p.add_argument("--cold", action="store_true", help="time one run after flushing the caches, weights constant")
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--target", default="c -mcpu=native")
    p.add_argument("--json", help="write the rows to this file")
    args = p.parse_args(argv)
    if args.rounds is None:
        args.rounds = 15 if args.cold else 3
    rows = [row for name in args.names for row in network(name, args)]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
