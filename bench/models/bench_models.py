"""irm's compiled networks against ONNX Runtime and PyTorch on one thread
(docs/testing.md, "Model benchmarks"). torchvision's resnet18, mobilenet_v2,
squeezenet1_1, shufflenet_v2_x0_5, googlenet and densenet121 (random weights,
seed 0, batch-norm statistics of one random batch, eval mode, 1x3x224x224) are
exported to ONNX opset 13 and built by irm (aot, interface-api c) for each
configuration of models_build.CONFIGS, cached.

    IRM_LIBRARY=build/lib/libirm.so PYTHONPATH=python \\
        /usr/bin/python3 bench/models/bench_models.py [--quick] [--rounds 10] [names...]

Each ratio comes from one process that ran both sides, interleaved (each
round runs every system once, the order rotating), best of the rounds, in
CPU time (wall time beside it): irm/PyTorch here (torch.set_num_threads(1)),
irm/ONNX Runtime in bench_ort.mjs under Node (onnxruntime-node, 1 intra-op
and 1 inter-op thread, graph optimization 'all'; install it with
`cd bench/models && npm ci --ignore-scripts`). A system that is not installed
is skipped, saying so. The end prints the issue's bounds as PASS/FAIL lines
(informational), and for resnet18 each conv layer's GFLOP/s in irm (kernel
hooks, kernel_profile.c) next to ONNX Runtime's per-node profile.

--stages adds the earlier rows: the ONNX import, the default pipeline and
ir.Evaluate before and after it, as ratios to PyTorch (bench_stages.py).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

# one thread everywhere, before numpy, torch or an irm library loads OpenBLAS
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

import models_build as mb  # noqa: E402

BOUND_GEOMEAN, BOUND_EACH, BOUND_TORCH = 1.0, 1.3, 0.6


def log(line=""):
    print(line)
    sys.stdout.flush()


def load_line(when):
    a, b, c = os.getloadavg()
    return "# load %.2f %.2f %.2f (1/5/15 min, %d cpus) %s" % (a, b, c, os.cpu_count(), when)


def interleaved(systems, rounds):
    """{label: (cpu s, wall s)}, best of rounds; each round runs every
    system once, the starting one rotating."""
    labels = list(systems)
    best = {k: [math.inf, math.inf] for k in labels}
    for fn in systems.values():  # warm-up: first-touch page faults, lazy loading
        fn()
    for r in range(rounds):
        for i in range(len(labels)):
            k = labels[(i + r) % len(labels)]
            c0, w0 = time.process_time(), time.perf_counter()
            systems[k]()
            w, c = time.perf_counter() - w0, time.process_time() - c0
            best[k][0] = min(best[k][0], c)
            best[k][1] = min(best[k][1], w)
    return best


def node_command():
    from shutil import which
    node = which("node")
    if not node:
        return None, "node is not installed"
    if not os.path.isdir(os.path.join(mb.HERE, "node_modules", "onnxruntime-node")):
        return None, "onnxruntime-node is not installed (cd bench/models && npm ci --ignore-scripts)"
    return node, None


def run_node(node, cfg, cache):
    path = os.path.join(cache, "ort-config.json")
    with open(path, "w") as f:
        json.dump(cfg, f)
    proc = subprocess.run([node, "--expose-gc", os.path.join(mb.HERE, "bench_ort.mjs"), path], cwd=mb.HERE,
                          capture_output=True, text=True)
    result = None
    for line in proc.stdout.splitlines():
        if line.startswith("@json "):
            result = json.loads(line[6:])
        elif line.startswith("@error "):
            log("# %s: bench_ort.mjs failed: %s" % (cfg["network"], line[7:]))
        else:
            log(line)
    if proc.returncode and not result:
        log("# %s: bench_ort.mjs exited with %d: %s" % (cfg["network"], proc.returncode, proc.stderr.strip()[-2000:]))
    return result


def row(network, label, cpu, wall, base=None, base_name=None, diff=None, scale=None):
    s = "%-18s %-18s cpu %8.2f ms  wall %8.2f ms" % (network, label, cpu * 1e3, wall * 1e3)
    if base:
        s += "  %6.2fx %s (wall %.2fx)" % (cpu / base[0], base_name, wall / base[1])
    if diff is not None:
        s += "  diff %.2g" % diff
        if scale:
            s += " (rel %.1e)" % (diff / scale)
    return s


def bench_network(name, args, configs, node, results):
    import torch
    import irm
    net, x = mb.make_network(name, args.size)
    onnx_bytes = mb.export_onnx(net, x)
    with torch.inference_mode():
        ref = net(x).numpy()
    xs = x.numpy()
    scale = float(np.abs(ref).max())
    log(load_line("before " + name))
    folders = {}
    for label in configs:
        try:
            folders[label], _ = mb.build_library(onnx_bytes, mb.CONFIGS[label], args.cache, log,
                                                 runtime=mb.RUNTIMES.get(label, "crt"))
        except Exception as e:  # a build that fails is a finding, not the end of the run
            log("# %s: irm:%s failed to build: %s" % (name, label, str(e).splitlines()[0][:300]))
    res = results.setdefault(name, {"torch": {}, "ort": {}, "scale": scale})
    mods = {}
    for label, folder in folders.items():
        mods[label] = irm.runtime.load(os.path.join(folder, "default.so"), num_threads=1)  # one thread here
        got = mods[label].run(xs)
        res.setdefault("diff", {})[label] = float(np.abs(got - ref).max())
    if not args.no_torch:
        systems = {"pytorch": lambda: net(x)}
        systems.update({"irm:" + k: (lambda m=m: m.run(xs)) for k, m in mods.items()})
        with torch.inference_mode():
            best = interleaved(systems, args.rounds)
        log("# %s: irm against PyTorch %s (1 thread) in this process, best of %d, interleaved; diff = max abs "
            "difference of the logits from PyTorch's (largest |logit| %.3g)"
            % (name, torch.__version__, args.rounds, scale))
        log(row(name, "pytorch", *best["pytorch"]))
        for k in mods:
            log(row(name, "irm:" + k, *best["irm:" + k], base=best["pytorch"], base_name="pytorch",
                    diff=res["diff"][k], scale=scale))
        res["torch"] = {k: v for k, v in best.items()}
    if node and not args.no_ort:
        ins, refp, onnx_path = mb.write_ort_inputs(args.cache, name, xs, ref, onnx_bytes)
        profile = args.profile and name == "resnet18"
        cfg = {"network": name, "onnx": onnx_path, "input": ins, "input_shape": list(xs.shape), "reference": refp,
               "rounds": args.rounds, "libs": [{"label": k, "folder": v, "threads": 1} for k, v in folders.items()],
               "pool_shim": mb.pool_shim(args.cache),
               "profile": {"prefix": os.path.join(args.cache, "ort-profile"), "runs": 5} if profile else None}
        out = run_node(node, cfg, args.cache)
        if out:
            sy = out["systems"]
            log("# %s: irm against ONNX Runtime %s (1 intra-op, 1 inter-op thread, optimization 'all') in one Node "
                "process, best of %d, interleaved" % (name, out["ort_version"], args.rounds))
            ort = sy.get("ort")
            base = (ort["cpu_ms"] / 1e3, ort["wall_ms"] / 1e3) if ort else None
            for k, v in sy.items():
                log(row(name, k, v["cpu_ms"] / 1e3, v["wall_ms"] / 1e3, base=base if k != "ort" else None,
                        base_name="ort", diff=v["diff"], scale=scale))
            res["ort"] = {k: (v["cpu_ms"] / 1e3, v["wall_ms"] / 1e3) for k, v in sy.items()}
            res["ort_version"] = out["ort_version"]
            if out.get("profile"):
                res["ort_profile"] = out["profile"]
    res["onnx"] = onnx_bytes
    res["folders"] = folders


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summary(results, configs, names):
    log()
    log("## summary: CPU ms (wall ms); ratios from the process that ran both sides")
    head = "%-18s %16s %16s" % ("network", "pytorch", "ort")
    for k in configs:
        head += " %16s %7s %7s" % ("irm:" + k, "/ort", "/torch")
    log(head)
    for name in names:
        r = results.get(name)
        if not r:
            continue
        t, o = r["torch"].get("pytorch"), r["ort"].get("ort")
        s = "%-18s %16s %16s" % (name, "%.2f (%.2f)" % (t[0] * 1e3, t[1] * 1e3) if t else "-",
                                 "%.2f (%.2f)" % (o[0] * 1e3, o[1] * 1e3) if o else "-")
        for k in configs:
            mine_t, mine_o = r["torch"].get("irm:" + k), r["ort"].get("irm:" + k)
            mine = mine_t or mine_o
            s += " %16s %7s %7s" % ("%.2f (%.2f)" % (mine[0] * 1e3, mine[1] * 1e3) if mine else "-",
                                    "%.2f" % (mine_o[0] / o[0]) if mine_o and o else "-",
                                    "%.2f" % (mine_t[0] / t[0]) if mine_t and t else "-")
        log(s)
    log()
    log("## the issue's bounds (informational: benchmarks never fail CI), per irm configuration, CPU time")
    for k in configs:
        ort = {n: r["ort"]["irm:" + k][0] / r["ort"]["ort"][0] for n, r in results.items()
               if "irm:" + k in r["ort"] and "ort" in r["ort"]}
        torch = {n: r["torch"]["irm:" + k][0] / r["torch"]["pytorch"][0] for n, r in results.items()
                 if "irm:" + k in r["torch"] and "pytorch" in r["torch"]}
        partial = " (over %d of 6 networks)" % len(ort) if len(ort) != 6 else ""
        if ort:
            g = geomean(list(ort.values()))
            log("%s irm:%s geomean irm/ort %.2f <= %.1f%s"
                % ("PASS" if g <= BOUND_GEOMEAN else "FAIL", k, g, BOUND_GEOMEAN, partial))
            worst = max(ort, key=ort.get)
            log("%s irm:%s every network irm/ort <= %.1f (worst %s %.2f)" % (
                "PASS" if ort[worst] <= BOUND_EACH else "FAIL", k, BOUND_EACH, worst, ort[worst]))
        else:
            log("SKIP irm:%s irm/ort bounds: ONNX Runtime not measured" % k)
        if torch:
            worst = max(torch, key=torch.get)
            log("%s irm:%s every network irm/pytorch <= %.1f (worst %s %.2f, geomean %.2f)" % (
                "PASS" if torch[worst] <= BOUND_TORCH else "FAIL", k, BOUND_TORCH, worst, torch[worst],
                geomean(list(torch.values()))))
        else:
            log("SKIP irm:%s irm/pytorch bound: PyTorch not measured" % k)
    diffs = [(n, k, d / r["scale"]) for n, r in results.items() for k, d in r.get("diff", {}).items()]
    if diffs:
        n, k, d = max(diffs, key=lambda t: t[2])
        log("# largest difference of irm's logits from PyTorch's, relative to the largest logit: %.1e (%s, irm:%s)"
            % (d, n, k))


def prepare(args):
    """(torch, node, why node is None) once the cache folder exists and torch, torchvision and onnx
    import (one thread), or None when one is missing, said so (bench_quantized.py shares it)."""
    os.makedirs(args.cache, exist_ok=True)
    try:
        import torch
        import torchvision  # noqa: F401
        import onnx  # noqa: F401
    except ImportError as e:
        log("# cannot run: %s (torch, torchvision and onnx make the networks)" % e)
        return None
    torch.set_num_threads(1)
    node, why = (None, "--no-ort") if args.no_ort else node_command()
    return torch, node, why


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="networks (default: all six): " + ", ".join(mb.NETWORKS))
    p.add_argument("--quick", action="store_true", help="resnet18 only, 3 rounds: a smoke run")
    p.add_argument("--rounds", type=int, default=10, help="rounds of the interleaved timing (default 10)")
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--configs", default="native,native-cblas,c",
                   help="irm configurations, of: " + ", ".join("%s (%s)" % kv for kv in mb.CONFIGS.items()))
    p.add_argument("--cache", default=os.path.join(mb.HERE, ".cache"), help="built libraries (default %(default)s)")
    p.add_argument("--no-ort", action="store_true", help="skip ONNX Runtime")
    p.add_argument("--no-torch", action="store_true", help="skip PyTorch")
    p.add_argument("--no-profile", dest="profile", action="store_false", help="skip resnet18's per-layer profile")
    p.add_argument("--stages", action="store_true", help="also time import, pipeline and ir.Evaluate")
    args = p.parse_args(argv)
    names = args.names or (["resnet18"] if args.quick else list(mb.NETWORKS))
    if args.quick:
        args.rounds = 3
    configs = [c for c in args.configs.split(",") if c]
    bad = [n for n in names if n not in mb.NETWORKS] + [c for c in configs if c not in mb.CONFIGS]
    if bad:
        p.error("unknown network or configuration: %s" % ", ".join(bad))
    ready = prepare(args)
    if not ready:
        return 0
    torch, node, why = ready
    import irm
    systems = "node %s" % node if node else "skipping ONNX Runtime: " + why
    log("# irm %s (libirm %s), torch %s, %d rounds; %s"
        % (irm.__version__, mb._libirm_path(), torch.__version__, args.rounds, systems))
    log(load_line("at start"))
    results = {}
    for name in names:
        bench_network(name, args, configs, node, results)
    summary(results, configs, names)
    if args.profile and "resnet18" in results:
        import bench_profile
        bench_profile.report(results["resnet18"], configs, args, log)
    if args.stages:
        import bench_stages
        bench_stages.run(names, args, log)
    log(load_line("at end"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
