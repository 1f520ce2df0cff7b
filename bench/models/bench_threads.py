"""irm's compiled networks on 1 and 2 threads against ONNX Runtime on 1 and
2 intra-op threads (docs/threads.md, issue "Every core"). For each network
of models_build.NETWORKS: the `native` build (crt runtime: serial code, the
build without threads) and the `native-cpp` build (cpp runtime: kernels
split over a thread pool), run in one Node process beside ONNX Runtime
(bench_ort.mjs: each system once a round, the order rotating, best of the
rounds, CPU and wall time; a sample is as many inferences back to back as
last 10 ms), the cpp library through pool_shim.c's pool of
1 and 2 threads (a copy of the library per count: the pool pointer is the
library's). Then the throughput of one loaded module (irm.runtime.load,
one thread a run) run by 1 and by 2 Python threads at once, interleaved.

    IRM_LIBRARY=build/lib/libirm.so PYTHONPATH=python \\
        /usr/bin/python3 bench/models/bench_threads.py [--rounds 7] [names...]

The end prints the issue's bounds as PASS/FAIL lines (informational):
wall speedup 1 -> 2 threads >= 1.7 for resnet18 and googlenet and >= 1.5
for every network; 2-thread irm <= 1.0x 2-thread ONNX Runtime (geomean);
the cpp build at 1 thread within 2% of the crt build; throughput >= 1.8x.
"""
import argparse
import math
import os
import shutil
import sys
import threading
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")


import models_build as mb  # noqa: E402
from bench_models import load_line, log, node_command, run_node  # noqa: E402


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def throughput(path, x, rounds, runs):
    """Inferences per second of one module (one thread a run) driven by 1
    and by 2 Python threads, best of rounds, interleaved."""
    import irm
    m = irm.runtime.load(path, num_threads=1)
    m.run(x)
    best = {1: 0.0, 2: 0.0}

    def drive(k):
        for _ in range(runs):
            m.run(x)

    for r in range(rounds):
        for n in ((1, 2) if r % 2 == 0 else (2, 1)):
            threads = [threading.Thread(target=drive, args=(k,)) for k in range(n)]
            t0 = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            best[n] = max(best[n], n * runs / (time.perf_counter() - t0))
    return best


def bench_network(name, args, node, results):
    import torch
    net, x = mb.make_network(name, args.size)
    onnx_bytes = mb.export_onnx(net, x)
    with torch.inference_mode():
        ref = net(x).numpy()
    xs = x.numpy()
    log(load_line("before " + name))
    crt, _ = mb.build_library(onnx_bytes, mb.CONFIGS["native"], args.cache, log)
    cpp, _ = mb.build_library(onnx_bytes, mb.CONFIGS["native-cpp"], args.cache, log, runtime="cpp")
    two = os.path.join(cpp, "default-2t.so")  # its own copy: its own pool pointer
    if not os.path.exists(two):
        shutil.copyfile(os.path.join(cpp, "default.so"), two)
    res = results.setdefault(name, {})
    ins, refp, onnx_path = mb.write_ort_inputs(args.cache, name, xs, ref, onnx_bytes)
    cfg = {"network": name, "onnx": onnx_path, "input": ins, "input_shape": list(xs.shape), "reference": refp,
           "rounds": args.rounds, "ort_threads": [1, 2], "pool_shim": mb.pool_shim(args.cache), "profile": None,
           "libs": [{"label": "crt", "folder": crt, "threads": 1},
                    {"label": "cpp@1", "folder": cpp, "threads": 1},
                    {"label": "cpp@2", "folder": cpp, "so": "default-2t.so", "threads": 2}]}
    out = run_node(node, cfg, args.cache) if node else None
    if out:
        sy = out["systems"]
        log("# %s: ONNX Runtime %s and irm in one Node process, best of %d, interleaved "
            "(ms an inference; xN: a sample is N inferences back to back)" % (name, out["ort_version"], args.rounds))
        for k, v in sy.items():
            log("%-18s %-10s cpu %8.2f wall %8.2f x%-3d diff %.2g"
                % (name, k, v["cpu_ms"], v["wall_ms"], v.get("number", 1), v["diff"]))
        res["systems"] = sy
    tp = throughput(os.path.join(cpp, "default.so"), xs, args.rounds, args.runs)
    log("%-18s throughput: 1 thread %.1f/s, 2 threads %.1f/s: %.2fx" % (name, tp[1], tp[2], tp[2] / tp[1]))
    res["throughput"] = tp[2] / tp[1]


def summary(results):
    log()
    log("%-18s %9s %9s %9s %9s %9s %9s" % ("network", "1->2 irm", "1->2 ort", "irm2/ort2", "irm1/ort1", "cpp1/crt",
                                          "thruput"))
    ratios, bounds = [], []
    for name, r in results.items():
        s = r.get("systems")
        if not s or "ort@2" not in s:
            log("%-18s (no ONNX Runtime figures)" % name)
            continue
        w = {k: v["wall_ms"] for k, v in s.items()}
        up = w["irm:cpp@1"] / w["irm:cpp@2"]
        row = (up, w["ort"] / w["ort@2"], w["irm:cpp@2"] / w["ort@2"], w["irm:cpp@1"] / w["ort"],
               w["irm:cpp@1"] / w["irm:crt"], r["throughput"])
        log("%-18s %9.2f %9.2f %9.2f %9.2f %9.3f %9.2f" % ((name,) + row))
        ratios.append(row[2])
        need = 1.7 if name in ("resnet18", "googlenet") else 1.5
        bounds.append(("%s: speedup 1 -> 2 threads %.2f >= %.1f" % (name, up, need), up >= need))
        bounds.append(("%s: cpp at 1 thread / crt %.3f <= 1.02" % (name, row[4]), row[4] <= 1.02))
        bounds.append(("%s: throughput of 2 threads %.2fx >= 1.8" % (name, row[5]), row[5] >= 1.8))
    if ratios:
        g = geomean(ratios)
        bounds.append(("geomean of 2-thread irm / 2-thread ORT %.2f <= 1.0" % g, g <= 1.0))
    for text, ok in bounds:
        log("%s %s" % ("PASS" if ok else "FAIL", text))
    log(load_line("at the end"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", default=list(mb.NETWORKS))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=10, help="inferences per thread per throughput round")
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--cache", default=os.path.join(mb.HERE, ".cache"), help="built libraries (default %(default)s)")
    args = ap.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    node, why = node_command()
    if not node:
        log("# skipping ONNX Runtime: %s" % why)
    log(load_line("at the start"))
    results = {}
    for name in args.names:
        bench_network(name, args, node, results)
    summary(results)


if __name__ == "__main__":
    sys.exit(main())
