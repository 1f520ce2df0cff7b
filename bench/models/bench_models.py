"""Real networks through irm against PyTorch on one thread: torchvision's
resnet18 and mobilenet_v2 (random weights, seed 0), 1x3x224x224 input.

    IRM_LIBRARY=build-test/lib/libirm.so PYTHONPATH=python \
        /usr/bin/python3 bench/models/bench_models.py [--size 224] [--rounds 3] [names...]

Per network it prints `name seconds ratio baseline` lines, like bench/:
the baseline is PyTorch's own CPU inference (torch.set_num_threads(1),
best of the rounds, measured in the same process), and the rows are
- import: irm.frontend.from_onnx of the exported model,
- pipeline: InferType, BindParams, SimplifyExpr, FoldConstant,
  DeadCodeElimination, FuseOps,
- evaluate: ir.Evaluate of the imported module (the reference
  interpreter, single-threaded),
- evaluate_fused: ir.Evaluate of the pipeline's result.
Compiled execution is not measured yet (the build of C code for these ops
comes with the backend's work). Compare ratios, not seconds.
"""
import argparse
import io
import sys
import time

import numpy as np


def best(fn, rounds):
    times = []
    out = None
    for _ in range(rounds):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*", default=["resnet18", "mobilenet_v2"])
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    import onnx
    import torch
    import torchvision
    import irm
    from irm.frontend import from_onnx
    from irm.transform import Pass, Sequential
    torch.set_num_threads(1)
    pipeline = ["InferType", "BindParams", "SimplifyExpr", "FoldConstant", "DeadCodeElimination", "FuseOps"]
    for name in args.names:
        torch.manual_seed(0)
        net = getattr(torchvision.models, name)().eval()
        x = torch.randn(1, 3, args.size, args.size)
        buf = io.BytesIO()
        torch.onnx.export(net, x, buf, opset_version=13, input_names=["input"])
        model = onnx.load_from_string(buf.getvalue())
        with torch.no_grad():
            t_torch, ref = best(lambda: net(x), args.rounds)
        t_import, (mod, params) = best(lambda: from_onnx(model), args.rounds)
        seq = Sequential([Pass.get(n) for n in pipeline])
        t_pipe, fused = best(lambda: seq(mod), args.rounds)
        names = [q.name for q in mod["main"].params][1:]
        inputs = [irm.tensor(x.numpy())] + [params[n] for n in names]
        t_eval, out = best(lambda: irm.ir.evaluate(mod, "main", inputs), args.rounds)
        t_fused, out2 = best(lambda: irm.ir.evaluate(fused, "main", inputs[:1]), args.rounds)
        diff = float(np.abs(np.asarray(out) - ref.numpy()).max())
        print("# %s torch_1_thread %.4f (max abs diff of ir.Evaluate %.2g)" % (name, t_torch, diff))
        for row, t in (("import", t_import), ("pipeline", t_pipe), ("evaluate", t_eval),
                       ("evaluate_fused", t_fused)):
            print("%s.%s %.4f %.2f torch_1_thread" % (name, row, t, t / t_torch))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
