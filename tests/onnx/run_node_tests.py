"""ONNX conformance for irm's ONNX frontend: runs ONNX's own backend test
data (libonnx-testdata: node tests, PyTorch-converted layer tests and
PyTorch operator tests) through irm.frontend.from_onnx and ir.Evaluate,
and compares with the expected outputs within ONNX's tolerances (rtol
1e-3, atol 1e-7, as onnx's backend test runner; dtypes and shapes must
match exactly).

A test is *claimed* when every op of its model is one the frontend
converts; every claimed test runs and counts as passed or failed (with its
reason); the others are listed as not claimed.

    python3 tests/onnx/run_node_tests.py [--data DIR] [--markdown FILE] [--filter SUBSTR]
                                         [--expect-failures FILE] [-v]

--markdown rewrites the generated part of docs/onnx.md (between the
markers). --expect-failures names a file listing the tests known to fail,
one a line (with the reason after a tab): the exit status is 1 when a
claimed test fails that is not listed, or a listed one now passes (so the
list stays honest), 0 otherwise.
"""
import argparse
import collections
import glob
import os
import sys
import time

import numpy as np


def _contig(a):
    """a as a C-contiguous array, 0-d staying 0-d (np.ascontiguousarray makes it 1-d)."""
    return np.asarray(a, order="C")

DATA = "/usr/share/libonnx-testdata/data"
SUITES = ("node", "pytorch-converted", "pytorch-operator")
RTOL, ATOL = 1e-3, 1e-7
BEGIN, END = "<!-- BEGIN GENERATED: run_node_tests.py -->", "<!-- END GENERATED -->"


def _read_tensor(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def _load_set(test_dir):
    """(inputs, outputs) of the first data set, or None when it holds
    something other than tensors (sequences, optionals)."""
    sets = sorted(glob.glob(os.path.join(test_dir, "test_data_set_*")))
    if not sets:
        return None
    files_in = sorted(glob.glob(os.path.join(sets[0], "input_*.pb")), key=lambda p: int(p.split("_")[-1][:-3]))
    files_out = sorted(glob.glob(os.path.join(sets[0], "output_*.pb")), key=lambda p: int(p.split("_")[-1][:-3]))
    try:
        return [_read_tensor(p) for p in files_in], [_read_tensor(p) for p in files_out]
    except Exception:  # noqa: BLE001 - a sequence or optional proto
        return None


# Operands the frontend reads at import (shapes, axes, bounds): a test that
# feeds one from its data set gets it as an initializer instead, as TVM's
# from_onnx(freeze_params=True) does.
STATIC_OPERANDS = {"Reshape": [1], "Slice": [1, 2, 3, 4], "Clip": [1, 2], "Pad": [1, 2], "Expand": [1], "Split": [1],
                   "Squeeze": [1], "Unsqueeze": [1], "ReduceSum": [1], "ReduceMean": [1], "ReduceMax": [1],
                   "ReduceMin": [1], "ReduceProd": [1], "Range": [0, 1, 2], "ConstantOfShape": [0], "Dropout": [1, 2],
                   "Tile": [1], "ReduceL1": [1], "ReduceL2": [1], "ReduceSumSquare": [1], "ReduceLogSum": [1],
                   "ReduceLogSumExp": [1], "Trilu": [1], "CumSum": [1], "OneHot": [1], "Resize": [1, 2, 3], "Upsample": [1],
                   "Compress": [1], "TopK": [1], "LSTM": [4], "GRU": [4], "RNN": [4]}


def _freeze_static_inputs(model, inputs):
    """(model, inputs) with the graph inputs that feed static operands moved
    to initializers."""
    from onnx import numpy_helper
    init = {t.name for t in model.graph.initializer}
    names = [vi.name for vi in model.graph.input if vi.name not in init]
    static = {node.input[i] for node in model.graph.node for i in STATIC_OPERANDS.get(node.op_type, [])
              if i < len(node.input) and node.input[i] in names}
    if not static:
        return model, inputs
    import copy
    model = copy.deepcopy(model)
    kept = []
    for n, a in zip(names, inputs):
        if n in static:
            model.graph.initializer.append(numpy_helper.from_array(a, n))
        else:
            kept.append(a)
    return model, kept


def run_one(test_dir, model):
    """None when the test passes, else the reason it fails."""
    import irm
    from irm.frontend.onnx import from_onnx
    data = _load_set(test_dir)
    if data is None:
        return "its data set holds sequences or optionals, not tensors"
    inputs, expected = data
    model, inputs = _freeze_static_inputs(model, inputs)
    graph_inputs = [vi.name for vi in model.graph.input if vi.name not in {t.name for t in model.graph.initializer}]
    shapes = {n: a.shape for n, a in zip(graph_inputs, inputs)}
    try:
        mod, params = from_onnx(model, shape=shapes)
    except Exception as exc:  # noqa: BLE001 - reported
        return "import: %s: %s" % (type(exc).__name__, str(exc).splitlines()[0][:300])
    names = [p.name for p in mod["main"].params][len(inputs):]
    args = [irm.tensor(_contig(a)) for a in inputs] + [params[n] for n in names]
    try:
        got = irm.ir.evaluate(mod, "main", args)
    except Exception as exc:  # noqa: BLE001 - reported
        return "evaluate: %s: %s" % (type(exc).__name__, str(exc).splitlines()[0][:300])
    got = got if isinstance(got, list) else [got]
    if len(got) != len(expected):
        return "%d outputs, expected %d" % (len(got), len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        g = np.asarray(g)
        if g.dtype != e.dtype:
            return "output %d has dtype %s, expected %s" % (i, g.dtype, e.dtype)
        if g.shape != e.shape:
            return "output %d has shape %s, expected %s" % (i, g.shape, e.shape)
        try:
            np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL)
        except AssertionError:
            bad = ~np.isclose(g, e, rtol=RTOL, atol=ATOL, equal_nan=True)
            return "output %d: %d of %d elements differ (max abs diff %.3g)" % (
                i, int(bad.sum()), bad.size, float(np.max(np.abs(g.astype(np.float64) - e.astype(np.float64)))))
    return None


def collect(data, name_filter=None):
    import onnx
    from irm.frontend import onnx_ops
    tests = []
    for suite in SUITES:
        for d in sorted(glob.glob(os.path.join(data, suite, "test_*"))):
            name = "%s/%s" % (suite, os.path.basename(d))
            if name_filter and name_filter not in name:
                continue
            path = os.path.join(d, "model.onnx")
            if not os.path.exists(path):
                continue
            model = onnx.load(path)
            ops = sorted({n.op_type if n.domain in ("", "ai.onnx") else n.domain + "." + n.op_type
                          for n in model.graph.node})
            claimed = all(op in onnx_ops.CONVERTERS for op in ops)
            tests.append((name, d, model, ops, claimed))
    return tests


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=DATA)
    p.add_argument("--markdown")
    p.add_argument("--filter")
    p.add_argument("--expect-failures")
    p.add_argument("-v", "--verbose", action="store_true")
    args = p.parse_args(argv)
    if not os.path.isdir(args.data):
        print("SKIP: no ONNX test data at %s (Debian package libonnx-testdata)" % args.data)
        return 0
    start = time.time()
    tests = collect(args.data, args.filter)
    per_op = collections.defaultdict(lambda: [0, 0])
    failures, passed, unclaimed = {}, [], collections.Counter()
    for name, d, model, ops, claimed in tests:
        if not claimed:
            from irm.frontend import onnx_ops
            for op in ops:
                if op not in onnx_ops.CONVERTERS:
                    unclaimed[op] += 1
            continue
        t0 = time.time()
        reason = run_one(d, model)
        if args.verbose:
            print("%-60s %s (%.2fs)" % (name, "ok" if reason is None else "FAIL: " + reason, time.time() - t0))
        for op in ops:
            per_op[op][0 if reason is None else 1] += 1
        if reason is None:
            passed.append(name)
        else:
            failures[name] = reason
    claimed_n = len(passed) + len(failures)
    print("claimed %d of %d tests: %d passed, %d failed (%.1f s)"
          % (claimed_n, len(tests), len(passed), len(failures), time.time() - start))
    for name, reason in sorted(failures.items()):
        print("FAIL %s: %s" % (name, reason))
    if args.markdown:
        _write_markdown(args.markdown, per_op, failures, claimed_n, len(tests), len(passed), unclaimed)
    status = 0
    if args.expect_failures is not None:
        known = {}
        if os.path.exists(args.expect_failures):
            for line in open(args.expect_failures):
                line = line.rstrip("\n")
                if line and not line.startswith("#"):
                    known[line.split("\t")[0]] = line
        new = sorted(set(failures) - set(known))
        fixed = sorted(n for n in known if n in passed)
        for n in new:
            print("NEW FAILURE %s: %s" % (n, failures[n]))
        for n in fixed:
            print("NOW PASSES (remove it from %s): %s" % (args.expect_failures, n))
        status = 1 if new or fixed else 0
    return status


def _write_markdown(path, per_op, failures, claimed, total, passed, unclaimed):
    lines = [BEGIN, "",
             "Generated by `tests/onnx/run_node_tests.py --markdown docs/onnx.md`: %d of the %d tests of "
             "libonnx-testdata are claimed (every op of the model is supported); %d pass, %d fail."
             % (claimed, total, passed, len(failures)), "",
             "| ONNX op | tests passed | failed |", "|---|---|---|"]
    for op in sorted(per_op):
        ok, bad = per_op[op]
        lines.append("| %s | %d | %d |" % (op, ok, bad))
    lines += ["", "Failing tests, with the reason:", ""]
    lines += ["- `%s`: %s" % (n, r.replace("|", "\\|")) for n, r in sorted(failures.items())] or ["- none"]
    lines += ["", "Unsupported ops, with the number of (unclaimed) tests using them: " +
              ", ".join("%s (%d)" % (op, n) for op, n in sorted(unclaimed.items())), "", END]
    text = open(path).read() if os.path.exists(path) else ""
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + "\n".join(lines) + text[text.index(END) + len(END):]
    else:
        text = text + "\n" + "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())
