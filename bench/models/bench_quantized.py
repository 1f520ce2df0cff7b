"""The quantized rows (issue 41, docs/quantization.md): resnet18 and
mobilenet_v2 (bench_models' networks, 1x3x224x224) quantized by
irm.quantize from 8 random calibration inputs (uint8 activations by
min/max, per-channel int8 weights), exported as a QDQ ONNX model
(irm.quantize_onnx.export_qdq_onnx), then timed on one thread in one Node
process (bench_ort.mjs, interleaved, best of the rounds, CPU time):

- irm int8: the QDQ ONNX model imported by from_onnx, InferType,
  BindParams and FakeQuantizationToInteger, built for this CPU (the very
  file ONNX Runtime runs, so both are the same model), with compute_dtype
  float32 (ONNX Runtime's requantize and QLinearAdd arithmetic; --compute-dtype
  float64 for ONNX's reference);
- irm float32: the float ONNX model built for this CPU (bench_models'
  'native' library);
- ONNX Runtime on the QDQ model (its int8 QDQ fusions).

    IRM_LIBRARY=build/lib/libirm.so PYTHONPATH=python \\
        /usr/bin/python3 bench/models/bench_quantized.py [--rounds 10] [names...]

Checks, printed as PASS/FAIL lines (informational: benchmarks never fail
CI): irm int8 <= 0.6x irm float32 (resnet18), irm int8 <= 1.0x ONNX
Runtime; irm int8's output equals ir.Evaluate of the converted module
exactly (--no-exact skips it: the evaluator takes about a minute on
resnet18) and is within 1% of ONNX Runtime's, relative to the largest
logit; and the top-1 agreement of irm int8 with irm float32 on 100 random
inputs is reported. The QDQ models and libraries are cached in --cache
(keyed by the ONNX bytes, irm and this quantization's settings).
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import time

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

import bench_models as bm  # noqa: E402
import models_build as mb  # noqa: E402

NETWORKS = ("resnet18", "mobilenet_v2")
TARGET = "c -mcpu=native"
BOUND_FLOAT, BOUND_ORT, BOUND_DIFF = 0.6, 1.0, 0.01
log = bm.log


def calibration(n, shape, seed=1):
    rng = np.random.default_rng(seed)
    return [{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(n)]


def qdq_model(name, onnx_bytes, args):
    """The QDQ ONNX bytes of the network (irm.quantize, export_qdq_onnx), cached."""
    import irm
    h = hashlib.sha256(onnx_bytes)
    with open(os.path.join(mb.ROOT, "python", "irm", "quantize.py"), "rb") as f:
        h.update(f.read())
    h.update(json.dumps([args.calibration, args.dtype, args.activations, mb.irm_identity()]).encode())
    path = os.path.join(args.cache, "qdq-%s-%s.onnx" % (name, h.hexdigest()[:16]))
    if os.path.exists(path):
        with open(path, "rb") as f:
            return f.read()
    import onnx
    from irm.frontend import from_onnx
    from irm.quantize_onnx import export_qdq_onnx
    model = onnx.load_from_string(onnx_bytes)
    mod, params = from_onnx(model)
    t0 = time.perf_counter()
    shape = tuple(mod["main"].params[0].type_annotation.shape)
    _, _, table = irm.quantize.quantize(mod, params, calibration(args.calibration, shape), dtype=args.dtype,
                                        activations=args.activations)
    t1 = time.perf_counter()
    out = export_qdq_onnx(model, table).SerializeToString()
    log("# %s: irm.quantize on %d calibration inputs in %.1f s (%d tensors), QDQ ONNX in %.1f s"
        % (name, args.calibration, t1 - t0, len(table), time.perf_counter() - t1))
    with open(path + ".tmp", "wb") as f:
        f.write(out)
    os.replace(path + ".tmp", path)
    return out


def converted(qdq_bytes, compute_dtype):
    """The QDQ model imported and lowered to integer ops (FakeQuantizationToInteger
    with this compute_dtype)."""
    import onnx
    from irm.frontend import from_onnx
    from irm.transform import Pass, Sequential
    mod, _ = from_onnx(onnx.load_from_string(qdq_bytes))
    seq = Sequential([Pass.get("InferType"), Pass.get("BindParams"),
                      Pass.get("FakeQuantizationToInteger", {"compute_dtype": compute_dtype})])
    return seq(mod).without_attr("params")


def int8_library(qdq_bytes, cache, compute_dtype):
    """The folder of irm's int8 library (default.so, info.json), built unless cached."""
    import irm
    folder = os.path.join(cache, "lib-int8-%s-%s" % (compute_dtype, mb.cache_key(qdq_bytes, TARGET, False)))
    if os.path.exists(os.path.join(folder, "info.json")):
        return folder
    tmp = folder + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    t0 = time.perf_counter()
    executor = irm.Executor("aot", mb.EXECUTOR)
    result = irm.build(converted(qdq_bytes, compute_dtype), TARGET, executor=executor, runtime="crt")
    t1 = time.perf_counter()
    result.export_library(os.path.join(tmp, "default.so"))
    with open(os.path.join(tmp, "info.json"), "w") as f:
        json.dump({"target": TARGET, "build_s": t1 - t0, "export_s": time.perf_counter() - t1}, f)
    shutil.rmtree(folder, ignore_errors=True)
    os.rename(tmp, folder)
    log("# built %s in %.1f s (+ %.1f s cc)" % (os.path.basename(folder), t1 - t0, time.perf_counter() - t1))
    return folder


def agreement(int8, fp32, shape, n, seed=3):
    rng = np.random.default_rng(seed)
    same = 0
    for _ in range(n):
        x = rng.standard_normal(shape).astype(np.float32)
        same += int(np.argmax(int8.run(x)) == np.argmax(fp32.run(x)))
    return same


def bench_network(name, args, node, checks):
    import irm
    net, x = mb.make_network(name, args.size)
    onnx_bytes = mb.export_onnx(net, x)
    xs = x.numpy()
    log(bm.load_line("before " + name))
    qdq = qdq_model(name, onnx_bytes, args)
    folders = {"int8": int8_library(qdq, args.cache, args.compute_dtype),
               "float32": mb.build_library(onnx_bytes, TARGET, args.cache, log)[0]}
    libs = {k: irm.runtime.load(os.path.join(v, "default.so"), num_threads=1) for k, v in folders.items()}
    got = np.asarray(libs["int8"].run(xs))
    scale = float(np.abs(got).max())
    if args.exact:
        t0 = time.perf_counter()
        want = np.asarray(irm.ir.evaluate(converted(qdq, args.compute_dtype), "main", [irm.tensor(xs)]))
        same = bool(np.array_equal(got, want))
        checks.append("%s %s: irm int8 == ir.Evaluate of the converted module exactly (max diff %.3g; evaluator "
                      "%.0f s)" % ("PASS" if same else "FAIL", name, float(np.abs(got - want).max()),
                                   time.perf_counter() - t0))
    n = args.agreement
    top1 = agreement(libs["int8"], libs["float32"], xs.shape, n)
    log("# %s: top-1 agreement of irm int8 with irm float32 on %d random inputs: %d/%d" % (name, n, top1, n))
    checks.append("INFO %s: top-1 agreement int8 / float32 %d%% (%d random inputs)" % (name, 100 * top1 // n, n))
    if not node:
        systems = {"irm:" + k: (lambda m=m: m.run(xs)) for k, m in libs.items()}
        best = bm.interleaved(systems, args.rounds)
        for k in systems:
            log(bm.row(name, k, *best[k], base=best["irm:float32"], base_name="irm:float32"))
        ratio = best["irm:int8"][0] / best["irm:float32"][0]
        if name == "resnet18":
            checks.append("%s %s: irm int8 / irm float32 %.2f <= %.1f"
                          % ("PASS" if ratio <= BOUND_FLOAT else "FAIL", name, ratio, BOUND_FLOAT))
        return
    ins, ref_path, onnx_path = mb.write_ort_inputs(args.cache, "qdq-" + name, xs, got, qdq)
    cfg = {"network": name, "onnx": onnx_path, "input": ins, "input_shape": list(xs.shape), "reference": ref_path,
           "rounds": args.rounds, "libs": [{"label": k, "folder": v, "threads": 1} for k, v in folders.items()],
           "pool_shim": mb.pool_shim(args.cache), "profile": None}
    out = bm.run_node(node, cfg, args.cache)
    if not out:
        checks.append("FAIL %s: bench_ort.mjs gave no result" % name)
        return
    sy = out["systems"]
    log("# %s: irm int8 / float32 against ONNX Runtime %s on the QDQ model (1 thread, optimization 'all') in one "
        "Node process, best of %d, interleaved; diff = max abs difference from irm int8's logits (largest %.3g)"
        % (name, out["ort_version"], args.rounds, scale))
    ort = sy.get("ort")
    for k, v in sy.items():
        log(bm.row(name, k, v["cpu_ms"] / 1e3, v["wall_ms"] / 1e3,
                   base=(ort["cpu_ms"] / 1e3, ort["wall_ms"] / 1e3) if ort and k != "ort" else None,
                   base_name="ort int8", diff=v["diff"], scale=scale))
    i8, f32 = sy.get("irm:int8"), sy.get("irm:float32")
    if i8 and f32:
        ratio = i8["cpu_ms"] / f32["cpu_ms"]
        line = "%s: irm int8 / irm float32 %.2f" % (name, ratio)
        checks.append(("%s %s <= %.1f" % ("PASS" if ratio <= BOUND_FLOAT else "FAIL", line, BOUND_FLOAT))
                      if name == "resnet18" else "INFO " + line)
    if i8 and ort:
        ratio = i8["cpu_ms"] / ort["cpu_ms"]
        checks.append("%s %s: irm int8 / ORT int8 %.2f <= %.1f"
                      % ("PASS" if ratio <= BOUND_ORT else "FAIL", name, ratio, BOUND_ORT))
        rel = ort["diff"] / scale
        checks.append("%s %s: ORT's logits within %.0f%% of irm int8's, relative to the largest (%.2g)"
                      % ("PASS" if rel <= BOUND_DIFF else "FAIL", name, 100 * BOUND_DIFF, rel))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("names", nargs="*", help="networks (default: both): " + ", ".join(NETWORKS))
    p.add_argument("--rounds", type=int, default=10, help="rounds of the interleaved timing (default 10)")
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--calibration", type=int, default=8, help="calibration inputs (default 8)")
    p.add_argument("--agreement", type=int, default=100, help="random inputs of the top-1 agreement (default 100)")
    p.add_argument("--dtype", default="uint8", choices=("uint8", "int8"), help="activations' dtype (uint8)")
    p.add_argument("--activations", default="minmax", choices=("minmax", "percentile"),
                   help="activation ranges (minmax; percentile: 99.99)")
    p.add_argument("--compute-dtype", default="float32", choices=("float32", "float64"),
                   help="the requantize / add arithmetic (FakeQuantizationToInteger's compute_dtype): float32, "
                        "ONNX Runtime's (default: the logits compare exactly); float64, ONNX's reference")
    p.add_argument("--no-exact", dest="exact", action="store_false", help="skip the comparison with ir.Evaluate")
    p.add_argument("--no-ort", action="store_true", help="skip ONNX Runtime (irm int8 against float32 only)")
    p.add_argument("--cache", default=os.path.join(mb.HERE, ".cache"), help="built libraries (default %(default)s)")
    args = p.parse_args(argv)
    names = args.names or list(NETWORKS)
    bad = [n for n in names if n not in mb.NETWORKS]
    if bad:
        p.error("unknown network: %s" % ", ".join(bad))
    ready = bm.prepare(args)
    if not ready:
        return 0
    _, node, why = ready
    import irm
    log("# irm %s (libirm %s), %d rounds; %s" % (irm.__version__, mb._libirm_path(), args.rounds,
                                                 "node %s" % node if node else "skipping ONNX Runtime: " + why))
    checks = []
    for name in names:
        bench_network(name, args, node, checks)
    log()
    log("## the issue's quantized bounds (informational), CPU time")
    for line in checks:
        log(line)
    log(bm.load_line("at end"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
