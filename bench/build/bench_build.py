"""bench/build (issue 36): how long from an ONNX file to a loaded irm library
(irm.compile: import, build, export_library; then runtime.load), next to ONNX
Runtime's session creation for the same file in the same run, and the issue's
bounds.

    IRM_LIBRARY=build/lib/libirm.so PYTHONPATH=python \\
        /usr/bin/python3 bench/build/bench_build.py [--quick] [--rounds 3] [--jobs N] [names...]

For each network of bench/models (torchvision, random weights, seed 0, ONNX
opset 13; the ONNX files are cached in bench/models/.cache) every round times:
irm cold (an empty build cache: IRM_CACHE_DIR a fresh folder), irm warm (the
same file compiled again into a new library path with that cache: irm.compile
takes the library by the file's source key, docs/build.md#reuse-from-the-onnx-file), and ONNX
Runtime's InferenceSession.create in a Node child (onnxruntime-node from
bench/models: `cd bench/models && npm ci --ignore-scripts`; skipped, saying
so, when missing). Best of the rounds, wall time (cc runs in child processes,
their CPU time is shown beside). irm builds aot (interface-api c, unpacked,
link-params: the weights as data) for `c -mcpu=native`.

The columns: the cold run's stages as irm.compile times them (key: the source
key; import: the file parsed and from_onnx; build; export), the CPU time of the whole
irm.compile (cc's included), load, the cold and warm totals with the warm
key, ONNX Runtime's session creation and the ratios. Then, each in cold
caches: a model with a 2M-float constant built with and without
link-params (bound: with <= 1.2x without), and chains of 1,000 and
10,000 add calls built and exported (bound: 10k <= 10x 1k). The end prints
the bounds as PASS/FAIL lines (informational):
  cold <= 5x ONNX Runtime's session creation, warm <= 1.5x, for every network.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))
import models_build as mb  # noqa: E402

EXECUTOR = {"interface-api": "c", "unpacked-api": True, "link-params": True}
TARGET = "c -mcpu=native"
BOUND_COLD, BOUND_WARM, BOUND_WEIGHTS, BOUND_CHAIN = 5.0, 1.5, 1.2, 10.0


def log(line=""):
    print(line)
    sys.stdout.flush()


def children_cpu():
    t = os.times()
    return t.children_user + t.children_system


class Clock:
    """Wall and CPU (this process and its children: cc) of a block."""

    def __enter__(self):
        self.w0, self.c0, self.k0 = time.perf_counter(), time.process_time(), children_cpu()
        return self

    def __exit__(self, *exc):
        self.wall = time.perf_counter() - self.w0
        self.cpu = time.process_time() - self.c0 + children_cpu() - self.k0


def onnx_file(name, cache):
    path = os.path.join(cache, "%s.onnx" % name)
    if not os.path.exists(path):
        net, x = mb.make_network(name, 224)
        with open(path + ".tmp", "wb") as f:
            f.write(mb.export_onnx(net, x))
        os.rename(path + ".tmp", path)
    return path


def irm_from_onnx(path, lib, jobs):
    """Seconds of each stage, ONNX file to loaded library: irm.compile (its
    stages as it times them) and runtime.load."""
    import irm
    with Clock() as c:
        result = irm.compile(path, TARGET, lib, executor=irm.Executor("aot", EXECUTOR), runtime="crt", jobs=jobs)
    stages = {stage: result.times.get(stage, 0.0) for stage in ("key", "import", "build", "export")}
    stages["compile"], stages["cpu"] = c.wall, c.cpu
    with Clock() as c:
        irm.runtime.load(result)
    stages["load"] = c.wall
    stages["total"] = stages["compile"] + stages["load"]
    return stages


class Ort:
    """ONNX Runtime's session creation in a Node child, or why not."""

    def __init__(self):
        self.proc, self.missing = None, None
        node = shutil.which("node")
        if not node:
            self.missing = "node is not installed"
            return
        self.proc = subprocess.Popen([node, os.path.join(HERE, "ort_session.mjs")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        first = json.loads(self.proc.stdout.readline() or '{"missing": "the Node child died"}')
        if "missing" in first:
            self.missing = first["missing"]
            self.proc.wait()
            self.proc = None

    def create(self, path):
        self.proc.stdin.write(path + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        if self.proc:
            self.proc.stdin.close()
            self.proc.wait()


def bench_network(name, args, ort, work):
    path = onnx_file(name, args.onnx_cache)
    best = {"cold": None, "warm": None, "ort": math.inf}
    for r in range(args.rounds):
        cache = tempfile.mkdtemp(prefix="cache-", dir=work)
        os.environ["IRM_CACHE_DIR"] = cache
        for kind in ("cold", "warm"):
            s = irm_from_onnx(path, os.path.join(work, "%s-%s-%d.so" % (name, kind, r)), args.jobs)
            if best[kind] is None or s["total"] < best[kind]["total"]:
                best[kind] = s
        shutil.rmtree(cache, ignore_errors=True)
        if ort.proc:
            best["ort"] = min(best["ort"], ort.create(path)["wall_ms"] / 1e3)
    return best


def elementwise_model(text_lines, shape):
    import irm
    head = '#[version = "irm-0.1"]\ndef @main(%%x: Tensor[%s, float32], %%w: Tensor[%s, float32]) {\n' % (shape, shape)
    return irm.ir.parse(head + "".join(text_lines) + "}\n")


def build_export(mod, params, executor, lib):
    import irm
    with Clock() as c:
        result = irm.build(mod, TARGET, executor=irm.Executor("aot", executor), runtime="crt", params=params)
        result.export_library(lib)
    return c.wall


def best_cold(fn, rounds, work):
    best = math.inf
    for r in range(rounds):
        cache = tempfile.mkdtemp(prefix="cache-", dir=work)
        os.environ["IRM_CACHE_DIR"] = cache
        best = min(best, fn(r))
        shutil.rmtree(cache, ignore_errors=True)
    return best


def bench_weights(args, work):
    """Export of add(x, w) with a 2M-float w: link-params on against off."""
    import numpy as np
    n = 2 * 1024 * 1024
    mod = elementwise_model(["  %0 = add(%x, %w);\n", "  %0\n"], "(1, %d)" % n)
    params = {"w": np.random.default_rng(0).standard_normal((1, n)).astype(np.float32)}
    times = {}
    for lp in (True, False):
        ex = dict(EXECUTOR, **{"link-params": lp})
        times[lp] = best_cold(lambda r: build_export(mod, params, ex, os.path.join(work, "w-%d-%d.so" % (lp, r))),
                              args.rounds, work)
    return times


def bench_chain(args, work):
    """Build and export of chains of 1,000 and 10,000 add calls."""
    times = {}
    for n in (1000, 10000):
        lines = ["  %%%d = add(%s, %%x);\n" % (i, "%%%d" % (i - 1) if i else "%w") for i in range(n)]
        mod = elementwise_model(lines + ["  %%%d\n" % (n - 1)], "(4)")
        ex = dict(EXECUTOR, **{"link-params": False})
        times[n] = best_cold(lambda r: build_export(mod, None, ex, os.path.join(work, "c-%d-%d.so" % (n, r))),
                             args.rounds, work)
    return times


def verdict(ok):
    return "PASS" if ok else "FAIL"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("names", nargs="*", help="networks (default: all six): " + ", ".join(mb.NETWORKS))
    p.add_argument("--quick", action="store_true", help="resnet18 only: a smoke run")
    p.add_argument("--rounds", type=int, default=3, help="rounds, best kept (default 3)")
    p.add_argument("--jobs", type=int, default=None, help="export_library's jobs (default: its own)")
    p.add_argument("--onnx-cache", default=os.path.join(mb.HERE, ".cache"), help="ONNX files (default %(default)s)")
    p.add_argument("--no-extra", action="store_true", help="skip the weights and chain bounds")
    p.add_argument("--extra-only", action="store_true", help="only the weights and chain bounds")
    args = p.parse_args()
    names = [] if args.extra_only else ["resnet18"] if args.quick else args.names or list(mb.NETWORKS)
    os.makedirs(args.onnx_cache, exist_ok=True)
    work = tempfile.mkdtemp(prefix="irm-bench-build-")
    saved_cache = os.environ.get("IRM_CACHE_DIR")
    a, b, c = os.getloadavg()
    log("# bench/build: %d round(s), best kept; load %.2f %.2f %.2f, %d cpus; jobs %s" %
        (args.rounds, a, b, c, os.cpu_count(), args.jobs or "default"))
    ort = Ort()
    if ort.missing:
        log("# ONNX Runtime skipped: " + ort.missing)
    bounds = []
    try:
        log("%-20s %8s %8s %8s %8s %8s %8s | %8s %8s %8s | %8s %9s %9s" % (
            "network", "key", "import", "build", "export", "(cpu)", "load", "cold s", "warm s", "(key)", "ORT s",
            "cold/ORT", "warm/ORT"))
        for name in names:
            best = bench_network(name, args, ort, work)
            cold, warm = best["cold"], best["warm"]
            row = "%-20s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f | %8.3f %8.3f %8.3f |" % (
                name, cold["key"], cold["import"], cold["build"], cold["export"], cold["cpu"], cold["load"],
                cold["total"], warm["total"], warm["key"])
            if ort.proc:
                rc, rw = cold["total"] / best["ort"], warm["total"] / best["ort"]
                row += " %8.3f %9.2f %9.2f" % (best["ort"], rc, rw)
                for kind, ratio, bound in (("cold", rc, BOUND_COLD), ("warm", rw, BOUND_WARM)):
                    bounds.append("%s %s %.2fx <= %.1fx ONNX Runtime: %s" % (name, kind, ratio, bound,
                                                                             verdict(ratio <= bound)))
            log(row)
        if not args.no_extra:
            w = bench_weights(args, work)
            rw = w[True] / w[False]
            log("2M-float constant: link-params %.3f s, without %.3f s" % (w[True], w[False]))
            bounds.append("link-params %.2fx <= %.1fx without: %s" % (rw, BOUND_WEIGHTS, verdict(rw <= BOUND_WEIGHTS)))
            ch = bench_chain(args, work)
            rc = ch[10000] / ch[1000]
            log("add chains built and exported: 1,000 calls %.3f s, 10,000 calls %.3f s" % (ch[1000], ch[10000]))
            bounds.append("10k chain %.2fx <= %.0fx the 1k chain: %s" % (rc, BOUND_CHAIN, verdict(rc <= BOUND_CHAIN)))
    finally:
        ort.close()
        shutil.rmtree(work, ignore_errors=True)
        if saved_cache is None:
            os.environ.pop("IRM_CACHE_DIR", None)
        else:
            os.environ["IRM_CACHE_DIR"] = saved_cache
    log()
    for line in bounds:
        log(line)


if __name__ == "__main__":
    main()
