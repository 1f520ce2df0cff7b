"""Kernel counts of bench_models.py's six networks (docs/codegen.md,
"Deduplication"): for each, the kernels irm's aot build generates with
codegen.dedup_kernels off (one per fused call) and on (one per distinct
workload), and main's calls. Builds only: nothing is compiled.

    IRM_LIBRARY=build/lib/libirm.so PYTHONPATH=python \\
        /usr/bin/python3 bench/models/kernel_counts.py [--target c] [names...]
"""
import argparse
import os
import re
import sys
import time

import models_build as mb

# definitions only: the glue's prototypes end with ';'
KERNEL = re.compile(r"^(?:static|IRM_KERNEL_LINKAGE) int32_t (tvmgen_\w+?_fused_\w+)\([^;{\n]*\) \{$", re.M)


def kernel_count(result):
    """The kernels defined in the build's C artifacts."""
    return sum(len(KERNEL.findall(str(text))) for name, text in result.artifacts.items() if name.endswith(".c"))


def build(mod, params, target, dedup):
    import irm
    from irm.transform import PassContext
    with PassContext(config={"codegen.dedup_kernels": dedup}):
        t0 = time.perf_counter()
        result = irm.build(mod, target, executor=irm.Executor("aot", mb.EXECUTOR), runtime="crt", params=params)
    return result, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="c")
    ap.add_argument("names", nargs="*", default=list(mb.NETWORKS))
    args = ap.parse_args()
    import onnx
    from irm.frontend import from_onnx
    print("| network | calls | kernels, dedup off | kernels, dedup on |")
    print("|---|---|---|---|")
    for name in args.names:
        if name not in mb.NETWORKS:
            sys.exit("unknown network '%s'; choose from %s" % (name, ", ".join(mb.NETWORKS)))
        net, x = mb.make_network(name, 224)
        mod, params = from_onnx(onnx.load_from_string(mb.export_onnx(net, x)))
        off, _ = build(mod, params, args.target, False)
        on, _ = build(mod, params, args.target, True)
        calls = len(mb._calls_post_order(on.module["main"].body))
        print("| %s | %d | %d | %d |" % (name, calls, kernel_count(off), kernel_count(on)))
        sys.stdout.flush()


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
