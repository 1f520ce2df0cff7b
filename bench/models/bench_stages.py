"""bench_models.py --stages: the frontend and the reference interpreter on
the same networks, as ratios to PyTorch's own CPU inference on one thread
(best of the rounds, same process): import (irm.frontend.from_onnx),
pipeline (InferType, BindParams, SimplifyExpr, FoldConstant,
DeadCodeElimination, FuseOps), evaluate (ir.Evaluate of the imported module)
and evaluate_fused (of the pipeline's result). Rows read `name seconds ratio
baseline`, like bench/."""
import time

import numpy as np

import models_build as mb

PIPELINE = ["InferType", "BindParams", "SimplifyExpr", "FoldConstant", "DeadCodeElimination", "FuseOps"]


def best(fn, rounds):
    times = []
    out = None
    for _ in range(rounds):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def run(names, args, log):
    import onnx
    import torch
    import irm
    from irm.frontend import from_onnx
    from irm.transform import Pass, Sequential
    rounds = min(args.rounds, 3)  # ir.Evaluate takes seconds per network
    log()
    log("## stages: import, pipeline and ir.Evaluate against PyTorch (1 thread), best of %d" % rounds)
    for name in names:
        net, x = mb.make_network(name, args.size)
        model = onnx.load_from_string(mb.export_onnx(net, x))
        with torch.inference_mode():
            t_torch, ref = best(lambda: net(x), rounds)
        t_import, (mod, params) = best(lambda: from_onnx(model), rounds)
        seq = Sequential([Pass.get(n) for n in PIPELINE])
        t_pipe, fused = best(lambda: seq(mod), rounds)
        names_ = [q.name for q in mod["main"].params][1:]
        inputs = [irm.tensor(x.numpy())] + [params[n] for n in names_]
        t_eval, out = best(lambda: irm.ir.evaluate(mod, "main", inputs), rounds)
        t_fused, _ = best(lambda: irm.ir.evaluate(fused, "main", inputs[:1]), rounds)
        diff = float(np.abs(np.asarray(out) - ref.numpy()).max())
        log("# %s torch_1_thread %.4f (max abs diff of ir.Evaluate %.2g)" % (name, t_torch, diff))
        for row, t in (("import", t_import), ("pipeline", t_pipe), ("evaluate", t_eval),
                       ("evaluate_fused", t_fused)):
            log("%s.%s %.4f %.2f torch_1_thread" % (name, row, t, t / t_torch))
