#!/usr/bin/env python3
"""Issue 37's tuning benchmark (docs/tuning.md, "Tuning a model"): tunes
torchvision's resnet18 and mobilenet_v2 (bench/models/models_build.py makes
them: random weights, seed 0) with a budget of trials per workload, then
compares the tuned and default builds in this process, interleaved, best of
several rounds, and prints each bound with PASS or FAIL:

- the network: tuned / default time <= 0.85;
- each kernel (its task measured with the default rule and with the best
  record, interleaved): tuned / default <= 1 (with --noise slack, 2% by
  default: two runs of one code differ that much here);
- a database tuned with DaskRunner on a 2-worker LocalCluster applies like
  a LocalRunner one: the same kernels tuned in both builds;
- the overhead per trial outside compile and measurement (search, model,
  database, runner) <= 10% of the trial (with --jobs 1, where the time of a
  trial is its compile and run).

Not a ctest: it takes minutes (a trial compiles a kernel). Prints
"skipped: ..." and exits 0 when something it needs is missing (torch,
torchvision, onnx, irm.tune_measure, distributed for the Dask part).

usage: bench_tune.py [--quick] [--trials N] [--target T] [--rounds R] [--keep DIR] [networks...]"""
import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "models"))

NETWORKS = ("resnet18", "mobilenet_v2")


def log(line=""):
    print(line, flush=True)


def verdict(ok):
    return "PASS" if ok else "FAIL"


def missing():
    """Why the benchmark cannot run here, or None."""
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        return "%s (torch, torchvision and onnx make the networks)" % e
    try:
        import irm
        from irm import tune_measure  # noqa: F401
    except ImportError as e:
        return "%s (irm's package with task extraction and measurement)" % e
    if not hasattr(irm.tune, "tune"):
        return "irm.tune.tune is missing"
    return None


def load_network(name, size):
    """(mod, params, input) of the torchvision network through ONNX."""
    import onnx
    import models_build as mb
    from irm.frontend import from_onnx
    net, x = mb.make_network(name, size)
    mod, params = from_onnx(onnx.load_from_string(mb.export_onnx(net, x)))
    return mod, params, x.numpy()


def build(mod, params, target, database, folder):
    """The loaded library of mod built for target (tune.database set when
    database is not None)."""
    import irm
    import models_build as mb
    if database is not None:
        mod = mod.with_attr("tune.database", database)
    result = irm.build(mod, target, executor=irm.Executor("aot", mb.EXECUTOR), runtime="crt", params=params)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "default.so")
    result.export_library(path)
    return irm.runtime.load(path, num_threads=1)


def tuned_kernels(lib):
    return sorted(s["kernel"] for s in lib.metadata.get("schedules", []) if s.get("tuned"))


def interleaved(systems, rounds):
    """{label: best seconds} over rounds, each round running every system
    once, the first one rotating (as bench/models/bench_models.py)."""
    labels = list(systems)
    best = {k: float("inf") for k in labels}
    for fn in systems.values():
        fn()
    for r in range(rounds):
        for i in range(len(labels)):
            k = labels[(i + r) % len(labels)]
            t0 = time.perf_counter()
            systems[k]()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def kernel_ratios(tasks, summaries, rounds):
    """(task, default s, tuned s) for each tuned workload: its task measured
    with the default rule and the best record, interleaved, best of rounds."""
    from irm import tune_measure
    best_knobs = {s["key"]: s["best_knobs"] for s in summaries if s["best_knobs"]}
    out = []
    for task in tasks:
        knobs = best_knobs.get(task["key"])
        if knobs is None:
            continue
        times = {"default": float("inf"), "tuned": float("inf")}
        for r in range(rounds):
            for label in (("default", "tuned") if r % 2 == 0 else ("tuned", "default")):
                got = tune_measure.measure(task, {} if label == "default" else knobs, repeat=3)
                if not got["error"]:
                    times[label] = min(times[label], got["mean"])
        out.append((task, times["default"], times["tuned"]))
    return out


def bench_network(name, args, scratch):
    import numpy as np
    import irm
    log("# %s: tuning %d trials per workload for '%s' with LocalRunner(jobs=%s)"
        % (name, args.trials, args.target, args.jobs))
    mod, params, x = load_network(name, args.size)
    db = os.path.join(scratch, name + "-local.db")
    t0 = time.perf_counter()
    summaries = irm.tune.tune(mod, args.target, database=db, trials=args.trials,
                              runner=irm.tune.LocalRunner(args.jobs), progress=True, seed=0)
    wall = time.perf_counter() - t0
    busy = sum(s["busy_seconds"] for s in summaries)
    trials = sum(s["measured"] for s in summaries)
    results = {}
    if trials and args.jobs == 1:
        # the search, the cost model, the database and the runner's own work
        # against the time waiting for the measurements
        in_runner = sum(s["runner_seconds"] for s in summaries)
        overhead = max(0.0, sum(s["wall_seconds"] for s in summaries) - in_runner) / in_runner
        results["overhead"] = overhead <= 0.10
        log("%s overhead per trial outside compile+measure: %.1f%% (%d trials, %.0f s, %.0f%% of the measure "
            "calls in their compiles and runs; bound 10%%)"
            % (verdict(results["overhead"]), overhead * 100, trials, wall, 100 * busy / in_runner))
    else:
        log("# overhead not judged: %d trials measured now, jobs %s (needs jobs 1)" % (trials, args.jobs))
    default = build(mod, params, args.target, None, os.path.join(scratch, name + "-default"))
    tuned = build(mod, params, args.target, db, os.path.join(scratch, name + "-tuned"))
    diff = float(np.abs(default.run(x) - tuned.run(x)).max())
    best = interleaved({"default": lambda: default.run(x), "tuned": lambda: tuned.run(x)}, args.rounds)
    ratio = best["tuned"] / best["default"]
    results["network"] = ratio <= 0.85
    log("%s %s network tuned/default %.3f (%.2f ms / %.2f ms, best of %d, %d kernels tuned, max diff %.2g; "
        "bound 0.85)" % (verdict(results["network"]), name, ratio, best["tuned"] * 1e3, best["default"] * 1e3,
                         args.rounds, len(tuned_kernels(tuned)), diff))
    from irm import tune_measure
    tasks = tune_measure.extract_tasks(mod, args.target)
    slower = 0
    for task, d, t in kernel_ratios(tasks, summaries, args.rounds):
        bad = t > d * (1 + args.noise)
        slower += bad
        log("  %s %s %s: tuned/default %.3f (%.4f / %.4f ms)"
            % ("SLOWER" if bad else "ok", task["family"], task["workload"][:60], t / d, t * 1e3, d * 1e3))
    results["kernels"] = slower == 0
    log("%s %s: %d kernels slower tuned than default (bound none, %.0f%% noise)"
        % (verdict(results["kernels"]), name, slower, args.noise * 100))
    return mod, params, results


def bench_dask(name, mod, params, args, scratch):
    """Tunes mod with DaskRunner on a LocalCluster and with LocalRunner(2),
    a few trials each, and checks that both databases tune the same kernels."""
    try:
        import distributed
    except ImportError as e:
        log("skipped: Dask vs Local (%s; apt-get install python3-distributed)" % e)
        return {}
    import irm
    trials = min(args.trials, 4)
    dbs = {label: os.path.join(scratch, "%s-%s.db" % (name, label)) for label in ("dask", "local2")}
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0") as cluster, distributed.Client(cluster) as client:
        irm.tune.tune(mod, args.target, database=dbs["dask"], trials=trials, runner=irm.tune.DaskRunner(client=client))
    irm.tune.tune(mod, args.target, database=dbs["local2"], trials=trials, runner=irm.tune.LocalRunner(2))
    kernels = {label: tuned_kernels(build(mod, params, args.target, db, os.path.join(scratch, name + "-" + label)))
               for label, db in dbs.items()}
    ok = kernels["dask"] == kernels["local2"] and bool(kernels["dask"])
    log("%s %s: DaskRunner's database tunes %d kernels, LocalRunner's %d, the same ones: %s (%d trials each)"
        % (verdict(ok), name, len(kernels["dask"]), len(kernels["local2"]), kernels["dask"] == kernels["local2"],
           trials))
    return {"dask": ok}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="networks (default: %s)" % ", ".join(NETWORKS))
    p.add_argument("--quick", action="store_true", help="resnet18 at 64x64, 4 trials, 3 rounds: a smoke run")
    p.add_argument("--trials", type=int, default=32)
    p.add_argument("--target", default="c -mcpu=native")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--jobs", type=int, default=1, help="LocalRunner's jobs (default 1: the overhead is judged)")
    p.add_argument("--noise", type=float, default=0.02, help="a kernel counts as slower past this fraction")
    p.add_argument("--no-dask", action="store_true")
    p.add_argument("--keep", metavar="DIR", help="keep the databases and libraries in DIR (default: a temporary one)")
    args = p.parse_args(argv)
    if args.quick:
        args.names, args.trials, args.rounds, args.size = args.names or ["resnet18"], 4, 3, 64
    names = args.names or list(NETWORKS)
    why = missing()
    if why:
        log("skipped: %s" % why)
        return 0
    results = {}
    with tempfile.TemporaryDirectory(prefix="irm-bench-tune-") as temporary:
        scratch = args.keep or temporary
        os.makedirs(scratch, exist_ok=True)
        for name in names:
            mod, params, got = bench_network(name, args, scratch)
            results.update({"%s %s" % (name, k): v for k, v in got.items()})
            if not args.no_dask and name == names[0]:
                got = bench_dask(name, mod, params, args, scratch)
                results.update({"%s %s" % (name, k): v for k, v in got.items()})
    failed = [k for k, ok in results.items() if not ok]
    log("# %d bounds checked, %d failed%s" % (len(results), len(failed), (": " + ", ".join(failed)) if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
