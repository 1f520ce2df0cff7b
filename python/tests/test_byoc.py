"""TVM's BYOC annotation flow from Python: an annotator written with
ExprMutator inserting compiler_begin/compiler_end by hand, per-op
``target.<compiler>`` attributes with AnnotateTarget, MergeCompilerRegions
(a diamond it must not merge), regions of two compilers, a region with two
outputs, PartitionGraph, and the partitioned module built with the example
accel plugin by aot and graph, run like the evaluator. Failure paths:
malformed annotations are clear errors and change nothing."""
import os

import numpy as np
import pytest

import irm
from irm import ir, transform

T = ir.TensorType((2, 3), "float32")
RNG = np.random.default_rng(0)
X, Y = (RNG.standard_normal((2, 3)).astype(np.float32) for _ in range(2))


def _begin(e, compiler):
    return ir.Call("annotation.compiler_begin", [e], {"compiler": compiler})


def _end(e, compiler):
    return ir.Call("annotation.compiler_end", [e], {"compiler": compiler})


def _diamond():
    """add -> relu -> exp -> multiply, and add -> multiply."""
    x, y = ir.Var("x", T), ir.Var("y", T)
    a = ir.Call("add", [x, y])
    r = ir.Call("nn.relu", [a])
    e = ir.Call("exp", [r])
    return ir.IRModule.from_expr(ir.Function([x, y], ir.Call("multiply", [e, a])))


def _same_values(before, after):
    want = ir.evaluate(before, "main", [X, Y])
    got = ir.evaluate(after, "main", [X, Y])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def _compilers(mod):
    return sorted((name, mod[name].attrs.get("Compiler")) for name in mod.function_names if name != "main")


class _HandAnnotator(ir.ExprMutator):
    """TVM's usual hand annotator: ops in `supported` go to `compiler`."""

    def __init__(self, compiler, supported):
        super().__init__()
        self.compiler, self.supported = compiler, supported

    def visit_call(self, call):
        new = super().visit_call(call)
        if isinstance(new.op, ir.Op) and new.op.name in self.supported:
            args = [_begin(a, self.compiler) for a in new.args]
            return _end(ir.Call(new.op, args, new.attrs), self.compiler)
        return new


def _annotate(mod, annotator):
    return ir.IRModule.from_expr(annotator.visit(mod["main"]))


def test_hand_annotator_then_merge_and_partition_the_diamond():
    mod = _diamond()
    annotated = _annotate(mod, _HandAnnotator("ccx", {"add", "nn.relu", "multiply"}))
    merged = transform.MergeCompilerRegions()(annotated)
    parted = transform.PartitionGraph()(merged)
    # add+relu merge; multiply would close a cycle through exp: its own region
    assert _compilers(parted) == [("tvmgen_default_ccx_main_0", "ccx"), ("tvmgen_default_ccx_main_1", "ccx")]
    first = parted["tvmgen_default_ccx_main_0"]
    assert first.attrs["global_symbol"] == "tvmgen_default_ccx_main_0" and first.attrs["Primitive"] == 1
    assert isinstance(first.ret_type, ir.TupleType)  # relu for exp, add for multiply: two outputs
    assert "annotation." not in ir.text(parted)
    _same_values(mod, parted)
    # mod_name prefixes the names, TVM's way
    assert "tvmgen_net_ccx_main_0" in transform.PartitionGraph("net")(merged).function_names


def test_op_attributes_drive_annotate_target_for_two_compilers():
    ir.register_op_attr("add", "target.cc_a", True)
    ir.register_op_attr("nn.relu", "target.cc_a", lambda call: call.args[0].checked_type.shape == (2, 3))

    @ir.register_op_attr("exp", "target.cc_b")
    def _exp(call):
        return True
    assert _exp(None) is True  # the decorator hands the function back
    mod = _diamond()
    annotated = transform.AnnotateTarget(["cc_a", "cc_b"])(mod)
    text = ir.text(annotated)
    assert 'compiler="cc_a"' in text and 'compiler="cc_b"' in text and 'compiler="default"' in text
    parted = transform.PartitionGraph()(transform.MergeCompilerRegions()(annotated))
    assert _compilers(parted) == [("tvmgen_default_cc_a_main_0", "cc_a"), ("tvmgen_default_cc_b_main_1", "cc_b")]
    assert "multiply" in ir.text(parted["main"])  # default: stays in main
    _same_values(mod, parted)


def test_malformed_annotations_are_errors():
    x = ir.Var("x", T)
    lone_end = ir.IRModule.from_expr(ir.Function([x], _end(ir.Call("nn.relu", [x]), "cc")))
    with pytest.raises(ValueError, match="compiler_end.compiler='cc'. of a call of nn.relu, which no compiler_begin"):
        transform.PartitionGraph()(lone_end)
    before = ir.text(lone_end)
    with pytest.raises(ValueError, match="malformed compiler annotations"):
        transform.MergeCompilerRegions()(lone_end)
    assert ir.text(lone_end) == before
    mixed = ir.IRModule.from_expr(ir.Function([x], _end(ir.Call("add", [_begin(x, "cc"), x]), "cc")))
    with pytest.raises(ValueError, match="takes variable %x from outside it without a compiler_begin"):
        transform.PartitionGraph()(mixed)
    two = ir.IRModule.from_expr(ir.Function([x], _end(ir.Call("add", [_begin(x, "c1"), _begin(x, "c2")]), "c1")))
    with pytest.raises(ValueError, match="regions of compilers 'c1' and 'c2'"):
        transform.PartitionGraph()(two)
    wrong = ir.IRModule.from_expr(ir.Function([x], _end(ir.Call("nn.relu", [_begin(x, "c1")]), "c2")))
    with pytest.raises(ValueError, match="compiler_end.compiler='c2'. closes a region of compiler 'c1'"):
        transform.PartitionGraph()(wrong)
    with pytest.raises(ValueError, match="compiler"):
        ir.Call("annotation.compiler_begin", [x])
    with pytest.raises(ValueError, match="targets"):
        transform.AnnotateTarget([])(lone_end)


@pytest.mark.skipif(not os.environ.get("IRM_TEST_ACCEL_PLUGIN"), reason="the accel example plugin is not built")
@pytest.mark.parametrize("executor", ["aot", "graph"])
def test_partitioned_for_accel_builds_and_runs_like_the_evaluator(tmp_path, executor):
    irm.load_plugin(os.environ["IRM_TEST_ACCEL_PLUGIN"])
    mod = _diamond()
    parted = transform.PartitionGraph()(transform.MergeCompilerRegions()(
        _annotate(mod, _HandAnnotator("accel", {"add", "nn.relu", "multiply"}))))
    result = irm.build(parted, ["c", "accel"], executor=executor, mod_name="byoc_" + executor)
    assert "tvmgen_default_accel_main_0.c" in result.artifacts
    result.export_library(tmp_path / "net.so")
    got = irm.runtime.load(tmp_path / "net.so").run(X, Y)
    got = got[0] if isinstance(got, (list, tuple)) else got
    np.testing.assert_allclose(got, ir.evaluate(mod, "main", [X, Y]).numpy(), rtol=1e-5)


def test_pattern_table_drives_annotate_target():
    from irm import pattern as P
    table = [("cc_pt.add_relu", P.is_op("nn.relu")(P.is_op("add")(P.wildcard(), P.wildcard())))]
    mod = _diamond()
    composed = transform.MergeComposite(table)(mod)
    parted = transform.PartitionGraph()(transform.MergeCompilerRegions()(
        transform.AnnotateTarget("cc_pt")(composed)))
    assert _compilers(parted) == [("tvmgen_default_cc_pt_main_0", "cc_pt")]
    inner = parted["tvmgen_default_cc_pt_main_0"].body
    assert inner.op.attrs["Composite"] == "cc_pt.add_relu"
    _same_values(mod, parted)
    with pytest.raises(ValueError, match="check functions are not supported"):
        transform.MergeComposite([("x", table[0][1], lambda e: True)])
