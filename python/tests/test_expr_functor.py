"""irm.ir.ExprVisitor and ExprMutator (TVM's method names): every node kind
dispatched, a DAG visited once per node, sharing kept by the mutator, the
same object back when nothing changed, 10 000-deep chains."""
import pytest

from irm import ir


def _f32(*shape):
    return ir.TensorType(shape, "float32")


class _Counter(ir.ExprVisitor):
    def __init__(self):
        super().__init__()
        self.seen = []

    def visit_call(self, call):
        self.seen.append(call.op.name if isinstance(call.op, ir.Op) else "fn")
        super().visit_call(call)

    def visit_var(self, var):
        self.seen.append(var.name)

    def visit_constant(self, const):
        self.seen.append("const")

    def visit_global_var(self, gvar):
        self.seen.append("@" + gvar.name)


def test_visitor_dispatches_each_kind_and_visits_a_dag_once():
    x = ir.Var("x", _f32(2))
    shared = ir.Call("nn.relu", [x])
    tup = ir.Tuple([shared, ir.Call("add", [shared, ir.Constant([1.0, 2.0])])])
    v = ir.Var("v")
    body = ir.Let(v, ir.TupleGetItem(tup, 1), ir.Call(ir.GlobalVar("g"), [v]))
    fn = ir.Function([x], body)
    c = _Counter()
    assert c.visit(fn) is None
    assert sorted(c.seen) == sorted(["x", "nn.relu", "add", "const", "v", "fn", "@g"])
    assert c.seen.count("nn.relu") == 1  # shared: once
    before = len(c.seen)
    c.visit(fn)  # memoized: nothing new
    assert len(c.seen) == before


def test_mutator_returns_the_same_object_when_nothing_changes():
    x = ir.Var("x", _f32(2))
    fn = ir.Function([x], ir.Tuple([ir.Call("nn.relu", [x]), ir.TupleGetItem(ir.Tuple([x]), 0)]))
    assert ir.ExprMutator().visit(fn).same_as(fn)


class _ReluToSigmoid(ir.ExprMutator):
    def visit_call(self, call):
        new = super().visit_call(call)
        if isinstance(new.op, ir.Op) and new.op.name == "nn.relu":
            return ir.Call("sigmoid", new.args)
        return new


def test_mutator_rebuilds_only_what_changed_and_keeps_sharing():
    x = ir.Var("x", _f32(2))
    relu = ir.Call("nn.relu", [x])
    untouched = ir.Call("exp", [x])
    softmax = ir.Call("nn.softmax", [relu], {"axis": 0})
    fn = ir.Function([x], ir.Tuple([softmax, ir.Call("add", [relu, relu]), untouched]),
                     attrs={"Primitive": 1})
    out = _ReluToSigmoid().visit(fn)
    assert not out.same_as(fn)
    assert out.attrs["Primitive"] == 1 and out.params[0].same_as(x)
    a, b, c = out.body.fields
    assert c.same_as(untouched)
    assert a.attrs["axis"] == 0 and a.args[0].op.name == "sigmoid"
    assert b.args[0].same_as(b.args[1]) and b.args[0].same_as(a.args[0])  # one sigmoid node, shared
    mod = ir.IRModule.from_expr(out)
    got = ir.evaluate(mod, "main", [[0.0, 1.0]])
    assert [round(v, 4) for v in got[0].tolist()] == [0.4425, 0.5575]  # softmax of sigmoid([0, 1])


def test_mutator_rebuilds_let_function_and_getitem():
    x = ir.Var("x", _f32(2))
    v = ir.Var("v")
    inner = ir.Function([v], ir.Call("nn.relu", [v]))
    body = ir.Let(v, ir.Call("nn.relu", [x]), ir.TupleGetItem(ir.Tuple([ir.Call(inner, [v])]), 0))
    out = _ReluToSigmoid().visit(ir.Function([x], body))
    assert isinstance(out.body, ir.Let) and out.body.value.op.name == "sigmoid"
    call = out.body.body.tuple_value.fields[0]
    assert isinstance(call.op, ir.Function) and call.op.body.op.name == "sigmoid"


def test_ten_thousand_deep_chains():
    x = ir.Var("x", _f32(2))
    e = x
    for _ in range(10000):
        e = ir.Call("nn.relu", [e])
    c = _Counter()
    c.visit(e)
    assert len(c.seen) == 10001
    out = _ReluToSigmoid().visit(e)
    assert out.op.name == "sigmoid" and out.args[0].args[0].op.name == "sigmoid"


def test_visit_refuses_what_is_not_ir():
    with pytest.raises(TypeError, match="ExprVisitor.visit: int is not an irm.ir expression"):
        ir.ExprVisitor().visit(3)


def test_importable_where_tvm_code_looks():
    from irm.ir.expr_functor import ExprMutator, ExprVisitor
    assert ExprMutator is ir.ExprMutator and ExprVisitor is ir.ExprVisitor
