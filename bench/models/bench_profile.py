"""bench_models.py's per-layer view of resnet18: each conv layer's time and
GFLOP/s in irm's kernels next to ONNX Runtime's per-node profile, and the
other kernels and nodes, so the next gap is visible.

irm's side comes from a profiled build of each configuration: the generated
code compiled with -DIRM_CRT_KERNEL_HOOKS and kernel_profile.c, whose hooks
keep each step's best wall time (models_build.build_library(profiled=True)).
A step is mapped to its ONNX Conv by the conv's FLOPs and output shape, the
k-th such step to the k-th such Conv. ONNX Runtime's side is its
enableProfiling trace (bench_ort.mjs): each node's best duration; a node is
mapped to its ONNX Conv by name (ORT names a fused or NCHWc node after the
conv or the Relu it absorbed, output name + "_nchwc")."""
import ctypes
import os

import models_build as mb

RUNS = 5
BOUND_CONV_GFLOPS = 150


def irm_steps(folder, x):
    """(best CPU ns per step, best wall ns per step, symbols, (best CPU s, best
    wall s) of a whole run) of a profiled library."""
    import time
    import irm
    path = os.path.join(folder, "default.so")
    module = irm.runtime.load(path)
    lib = ctypes.CDLL(path)  # the same handle: dlopen counts references
    lib.irm_bench_profile_read.restype = ctypes.c_int32
    lib.irm_bench_profile_read.argtypes = [ctypes.POINTER(ctypes.c_int64)] * 2 + [ctypes.c_int32]
    lib.irm_bench_profile_symbol.restype = ctypes.c_char_p
    lib.irm_bench_profile_symbol.argtypes = [ctypes.c_int32]
    module.run(x)
    lib.irm_bench_profile_reset()
    cpu, wall = [], []
    for _ in range(RUNS):
        c, t = time.process_time(), time.perf_counter()
        module.run(x)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    n = lib.irm_bench_profile_read(None, None, 0)
    cpu_ns, wall_ns = (ctypes.c_int64 * n)(), (ctypes.c_int64 * n)()
    lib.irm_bench_profile_read(cpu_ns, wall_ns, n)
    symbols = [lib.irm_bench_profile_symbol(i).decode() for i in range(n)]
    return list(cpu_ns), list(wall_ns), symbols, (min(cpu), min(wall))


def ort_names(onnx_bytes):
    """ONNX Runtime's possible names of each Conv -> the Conv's name: its own
    name and output, and the output of a Relu/Clip right after it."""
    import onnx
    g = onnx.load_from_string(onnx_bytes).graph
    names, out_of = {}, {}
    for node in g.node:
        if node.op_type == "Conv":
            names[node.name] = names[node.output[0]] = node.name
            out_of[node.output[0]] = node.name
        elif node.op_type in ("Relu", "Clip") and node.input[0] in out_of:
            names[node.output[0]] = out_of[node.input[0]]
    return names


def report(res, configs, args, log):
    onnx_bytes = res["onnx"]
    convs = mb.onnx_convs(onnx_bytes)
    _, x = mb.make_network("resnet18", args.size)
    xs = x.numpy()
    log()
    log("## resnet18 per layer: best of %d profiled runs each; GF/s = GFLOP/s (2 FLOP per multiply-add); irm: CPU "
        "time of the kernel (kernel hooks), ort: the node's duration in its trace" % RUNS)
    per_conv = {c[0]: {} for c in convs}
    others = {}
    wholes = {}
    for label in configs:
        try:
            folder, info = mb.build_library(onnx_bytes, mb.CONFIGS[label], args.cache, log, profiled=True)
            ns, wall_ns, symbols, whole = irm_steps(folder, xs)
        except Exception as e:
            log("# irm:%s: no per-kernel profile: %s" % (label, str(e).splitlines()[0][:300]))
            continue
        kernels = info["kernels"]
        # steps run in the order of main's calls; a symbol names its first ops
        same = len(kernels) == len(ns) and all(
            ops and ops[0].replace(".", "_") in sym for (ops, _), sym in zip(kernels, symbols))
        wholes[label] = (whole, sum(ns) / 1e9, sum(wall_ns) / 1e9)
        if not same:
            log("# irm:%s: the steps do not match the module's calls (%d steps, %d calls): no per-conv mapping"
                % (label, len(ns), len(kernels)))
        used = set()
        for i, sym in enumerate(symbols):
            sig = kernels[i][1] if same else None
            match = None
            if sig:
                match = next((c[0] for c in convs if list(c[1:5]) == list(sig) and c[0] not in used), None)
            if match:
                used.add(match)
                per_conv[match][label] = ns[i] / 1e9
            else:
                short = sym.split("_fused_", 1)[-1]
                others.setdefault(label, []).append((short, ns[i] / 1e9))
    prof = res.get("ort_profile")
    ort_conv, ort_other = {}, []
    if prof:
        names = ort_names(onnx_bytes)
        for n in prof["nodes"]:
            key = n["name"][:-6] if n["name"].endswith("_nchwc") else n["name"]
            conv = names.get(key) if n["op"] in ("Conv", "FusedConv", "NchwcConv") else None
            if conv and conv not in ort_conv:
                ort_conv[conv] = (n["us"] / 1e6, n["op"])
            else:
                ort_other.append(("%s %s" % (n["op"], n["name"]), n["us"] / 1e6))
    else:
        log("# ONNX Runtime's profile: not measured")
    head = "%-46s %-22s %7s" % ("conv (ONNX node)", "shape", "MFLOP")
    for label in configs:
        head += " %19s" % ("irm:" + label)
    head += " %19s" % "ort"
    log(head)
    totals = {k: 0.0 for k in list(configs) + ["ort"]}
    for name, flops, h, w, c, desc in convs:
        s = "%-46s %-22s %7.1f" % (name[-46:], desc, flops / 1e6)
        for label in configs:
            t = per_conv[name].get(label)
            s += " %19s" % ("%6.3f ms %6.1f GF/s" % (t * 1e3, flops / t / 1e9) if t else "-")
            totals[label] += t or 0.0
        t = ort_conv.get(name)
        s += " %19s" % ("%6.3f ms %6.1f GF/s" % (t[0] * 1e3, flops / t[0] / 1e9) if t else "-")
        totals["ort"] += t[0] if t else 0.0
        log(s)
    total_flops = sum(c[1] for c in convs)
    s = "%-46s %-22s %7.1f" % ("all convs", "", total_flops / 1e6)
    for k in list(configs) + ["ort"]:
        s += " %19s" % ("%6.2f ms %6.1f GF/s" % (totals[k] * 1e3, total_flops / totals[k] / 1e9)
                        if totals[k] else "-")
    log(s)
    # the issue's kernel bound: the 3x3 64->64 56x56 conv (resnet18's layer1) at >= 150 GFLOP/s on one core
    layer1 = [c for c in convs if c[5].startswith("3x3 64->64 s1 56x56")]
    for label in list(configs) + ["ort"]:
        times = [ort_conv[c[0]][0] if label == "ort" and c[0] in ort_conv else per_conv[c[0]].get(label)
                 for c in layer1]
        times = [t for t in times if t]
        if times:
            gf = layer1[0][1] / min(times) / 1e9
            log("%s %s 3x3 64->64 56x56 conv %.1f GFLOP/s >= %d (best of its %d layers)"
                % ("PASS" if gf >= BOUND_CONV_GFLOPS else "FAIL" if label != "ort" else "INFO",
                   "irm:" + label if label != "ort" else "ort", gf, BOUND_CONV_GFLOPS, len(times)))
    for label in configs:
        if label in others:
            log("# irm:%s other kernels: %s" % (label, ", ".join(
                "%s %.3f ms" % (k, t * 1e3) for k, t in sorted(others[label], key=lambda kv: -kv[1]))))
        if label in wholes:
            (cpu, wall), steps_cpu, steps_wall = wholes[label]
            log("# irm:%s whole network (profiled build, best of %d): cpu %.2f ms, wall %.2f ms; its steps sum to "
                "cpu %.2f ms, wall %.2f ms" % (label, RUNS, cpu * 1e3, wall * 1e3, steps_cpu * 1e3, steps_wall * 1e3))
    if prof:
        other = sorted(ort_other, key=lambda kv: -kv[1])
        log("# ort other nodes: %s" % ", ".join("%s %.3f ms" % (k, t * 1e3) for k, t in other))
        log("# ort whole network (profiled session, best of %d): %.2f ms (model_run); its nodes sum to %.2f ms"
            % (RUNS, prof["model_run_us"] / 1e3, sum(n["us"] for n in prof["nodes"]) / 1e3))
        unmatched = [c[0] for c in convs if c[0] not in ort_conv]
        if unmatched:
            log("# ort: %d convs not found by name in the profile: %s" % (len(unmatched), ", ".join(unmatched)))
