"""irm.ir.pattern: TVM's dataflow pattern names, rules, rewrite callbacks,
pattern passes and partitioning, from Python."""
import pytest

import irm
from irm.ir.pattern import (DFPatternCallback, FunctionPattern, dominates, has_attr, has_dtype, has_shape, has_type,
                            is_constant, is_expr, is_op, is_tuple, is_tuple_get_item, is_var, pattern_pass,
                            register_pattern_pass, rewrite, rule, rules, wildcard)

HEAD = '#[version = "irm-0.1"]\n'
T23 = "Tensor[(2, 3), float32]"


def typed(body, params="%x: " + T23):
    mod = irm.ir.parse(HEAD + "def @main(%s) {\n%s}\n" % (params, body))
    return irm.transform.Pass.get("InferType")(mod)


def body(mod):
    return mod["main"].body


def test_each_feature_matches_and_refuses():
    mod = typed("  %0 = multiply(%x, const(float32, [], [2]));\n  %1 = nn.relu(%0);\n  %2 = (%1, %x);\n"
                "  %3 = %2.0;\n  %3\n")
    item = body(mod)
    tup = item.tuple_value
    relu = tup.fields[0]
    mul = relu.args[0]
    assert is_op("nn.relu")(wildcard()).match(relu)
    assert not is_op("nn.relu")(wildcard()).match(mul)
    assert is_op("multiply")(is_var("x"), is_constant()).match(mul)
    assert not is_op("multiply")(is_var("y"), is_constant()).match(mul)
    assert (is_op("exp")(wildcard()) | is_op("nn.relu")(wildcard())).match(relu)
    assert is_op("multiply")(wildcard(), wildcard()).optional(lambda p: is_op("nn.relu")(p)).match(relu)
    assert is_tuple([wildcard(), wildcard()]).match(tup) and not is_tuple([wildcard()]).match(tup)
    assert is_tuple_get_item(is_tuple(), 0).match(item) and not is_tuple_get_item(is_tuple(), 1).match(item)
    assert has_dtype("float32").match(relu) and not has_dtype("int8").match(relu)
    assert has_shape([2, 3]).match(relu) and not has_shape([3, 2]).match(relu)
    assert has_type(relu.checked_type).match(mul)
    assert is_expr(mul).match(mul) and not is_expr(mul).match(relu)
    nested = typed("  %0 = transpose(%x, axes=[1, 0]);\n  %0\n")
    assert is_op("transpose")(wildcard()).has_attr({"axes": [1, 0]}).match(body(nested))
    assert not has_attr({"axes": [0, 1]}, is_op("transpose")(wildcard())).match(body(nested))


def test_captures_and_dominators():
    mod = irm.transform.Pass.get("InferType")(irm.ir.example_model("residual"))
    add = body(mod)
    while add.op.name != "add":
        add = add.args[0]
    pat = is_op("add")(wildcard(), wildcard()).dominates(is_op("nn.relu")(wildcard()).capture("p"))
    found = pat.match_captures(add)
    assert found is not None and found["p"].same_as(add.args[1])
    assert dominates(is_op("nn.relu")(wildcard()), is_op("nn.conv2d")(wildcard(), wildcard()),
                     is_op("add")(wildcard(), wildcard())).match_captures(add) is None


def test_rules_text_and_rewrite():
    mod = typed("  %0 = nn.relu(%x);\n  %0\n")
    (r,) = rules("rule relu_to_max : nn.relu(%x) => maximum(%x, const(0f))")
    out = rewrite(r, body(mod))
    assert out.op.name == "maximum"
    assert rewrite(r, out).same_as(out)  # nothing fired: the input itself
    with pytest.raises(TypeError, match="right-hand side has type"):
        rules("rule bad : nn.relu(%x) => sum(%x)")
    with pytest.raises(ValueError, match="line 1, column 12: expected a pattern"):
        rules("rule bad : 3 => %x")


def test_rule_from_python_expressions():
    x = irm.ir.Var("x")
    r = rule("keep", is_op("nn.relu")(wildcard().capture("x")), x)
    mod = typed("  %0 = nn.relu(%x);\n  %0\n")
    assert r.apply(body(mod)).same_as(mod["main"].params[0])


class ReluToExp(DFPatternCallback):
    def __init__(self):
        self.pattern = is_op("nn.relu")(wildcard().capture("x"))

    def callback(self, pre, post, node_map):
        return irm.ir.Call(irm.ir.Op.get("exp"), [node_map["x"]])


def test_callback_class_and_pattern_pass():
    mod = typed("  %0 = nn.relu(%x);\n  %1 = nn.relu(%0);\n  %1\n")
    out = pattern_pass("ReluToExp", [ReluToExp()])(mod)
    assert "nn.relu" not in irm.ir.text(out) and irm.ir.text(out).count("exp(") == 2
    register_pattern_pass("PyReluToExp", [ReluToExp()])
    piped = irm.parse_pipeline("Sequential(PyReluToExp)")(mod)
    assert irm.ir.text(piped) == irm.ir.text(out)


def test_partition_from_python():
    mod = typed("  %0 = add(%x, %x);\n  %1 = nn.relu(%0);\n  %1\n")
    pat = is_op("nn.relu")(is_op("add")(wildcard(), wildcard()))
    out = pat.partition(body(mod), name="py.add_relu")
    assert out.op.attrs["Composite"] == "py.add_relu"


def test_rules_file_is_a_plugin(tmp_path):
    path = tmp_path / "py_lower.rules"
    path.write_text("pass PyFileLowerRelu {\n  rule relu_to_max : nn.relu(%x) => maximum(%x, const(0f))\n}\n")
    info = irm.load_plugin(str(path))
    assert info["name"] == "py_lower.rules" and info["version"] == ""
    assert irm.list_plugins()[-1] == info  # listed, last loaded
    mod = typed("  %0 = nn.relu(%x);\n  %0\n")
    out = irm.parse_pipeline("Sequential(PyFileLowerRelu)")(mod)
    assert "maximum(" in irm.ir.text(out)
    bad = tmp_path / "bad.rules"
    bad.write_text("pass PyBad {\n  rule r : nn.relu(%x) %x\n}\n")
    with pytest.raises(irm.PluginError, match="line 2, column 24"):
        irm.load_plugin(str(bad))
    assert "PyBad" not in irm.transform.Pass.list_registered()
    assert all(p["name"] != "bad.rules" for p in irm.list_plugins())


def test_introspection_with_tvms_names():
    from irm.ir.pattern import (AltPattern, AttrPattern, CallPattern, ConstantPattern, DataTypePattern,
                                ExprPattern, ShapePattern, TupleGetItemPattern, TuplePattern, TypePattern,
                                VarPattern, WildcardPattern)
    x, c = wildcard(), is_constant()
    call = is_op("add")(x, c)
    assert isinstance(call, CallPattern) and isinstance(x, WildcardPattern) and isinstance(c, ConstantPattern)
    assert isinstance(call.op, ExprPattern) and call.op.expr.same_as(irm.ir.Op.get("add"))
    assert [a.same_as(b) for a, b in zip(call.args, [x, c])] == [True, True]
    assert CallPattern(is_op("exp"), None).args is None  # any arguments
    tup = is_tuple([x, call])
    assert isinstance(tup, TuplePattern) and len(tup.fields) == 2 and tup.fields[1].same_as(call)
    item = is_tuple_get_item(tup, 1)
    assert isinstance(item, TupleGetItemPattern) and item.tuple.same_as(tup) and item.index == 1
    assert is_tuple_get_item(tup).index == -1
    alt = call | x
    assert isinstance(alt, AltPattern) and alt.left.same_as(call) and alt.right.same_as(x)
    attr = call.has_attr({"axis": 1})
    assert isinstance(attr, AttrPattern) and attr.pattern.same_as(call) and attr.attrs["axis"] == 1
    t = irm.ir.TensorType((2, 3))
    tp = has_type(t, x)
    assert isinstance(tp, TypePattern) and tp.type == t and tp.pattern.same_as(x)
    dp, sp = has_dtype("int8", x), has_shape([2, 3], x)
    assert isinstance(dp, DataTypePattern) and dp.dtype == "int8"
    assert isinstance(sp, ShapePattern) and sp.shape == [2, 3]
    v = is_var("w")
    assert isinstance(v, VarPattern) and v.name == "w" and v.name_hint == "w" and is_var().name == ""
    e = is_expr(irm.ir.Var("q"))
    assert isinstance(e, ExprPattern) and e.expr.name == "q"
    # TVM's constructors make the same patterns as the functions
    made = CallPattern(is_op("add"), [WildcardPattern(), ConstantPattern()])
    assert isinstance(made, CallPattern) and len(made.args) == 2
    assert isinstance(TuplePattern([x]), TuplePattern) and VarPattern("z").name == "z"
    assert AltPattern(x, c).right.same_as(c) and ShapePattern(x, [4]).shape == [4]
    assert DataTypePattern(x, "float16").dtype == "float16" and TupleGetItemPattern(tup, 0).index == 0
    assert AttrPattern(x, {"k": "v"}).attrs["k"] == "v" and TypePattern(x, t).type == t


CONV = ("%x: Tensor[(1, 2, 4, 4), float32], %w: Tensor[(3, 2, 1, 1), float32], %b: Tensor[(3), float32]")


class ConvBiasToAdd(DFPatternCallback):
    """As TVM's documentation writes callbacks: patterns kept on self, read back through node_map[p][0]."""

    def __init__(self, require_type=False):
        super().__init__(require_type)
        self.data, self.weight, self.bias = wildcard(), wildcard(), wildcard()
        self.conv = is_op("nn.conv2d")(self.data, self.weight)
        self.pattern = is_op("nn.bias_add")(self.conv, self.bias)

    def callback(self, pre, post, node_map):
        assert node_map[self.pattern][0].same_as(pre)
        conv, bias = node_map[self.conv][0], node_map[self.bias][0]
        assert node_map[self.data][0].name_hint == "x" and node_map[self.weight][0].name_hint == "w"
        bias = irm.ir.Call(irm.ir.Op.get("expand_dims"), [bias], {"axis": 1, "num_newaxis": 2})
        return irm.ir.Call(irm.ir.Op.get("add"), [conv, bias])


def test_tvm_callback_idioms():
    mod = typed("  %0 = nn.conv2d(%x, %w);\n  %1 = nn.bias_add(%0, %b);\n  %2 = nn.relu(%1);\n  %2\n", CONV)
    out = rewrite(ConvBiasToAdd(), body(mod))  # on an expression
    assert out.args[0].op.name == "add" and out.args[0].args[1].op.name == "expand_dims"
    func = rewrite(ConvBiasToAdd(), mod["main"])  # on a module's function
    assert isinstance(func, irm.ir.Function) and func.body.args[0].op.name == "add"
    new_mod = irm.transform.Pass.get("InferType")(mod.with_function("main", func))
    assert new_mod["main"].body.checked_type == mod["main"].body.checked_type
    # require_type: an untyped expression is typed first, so type patterns hold
    raw = irm.ir.parse(HEAD + "def @main(%s) {\n  %%0 = nn.conv2d(%%x, %%w);\n"
                       "  %%1 = nn.bias_add(%%0, %%b);\n  %%1\n}\n" % CONV)["main"]
    assert raw.body.checked_type is None
    assert rewrite(ConvBiasToAdd(require_type=True), raw).body.op.name == "add"

    class Typed(ConvBiasToAdd):
        def __init__(self):
            super().__init__(require_type=True)
            self.pattern = has_shape([1, 3, 4, 4], self.pattern)
    assert rewrite(Typed(), raw).body.op.name == "add"
    assert rewrite(ConvBiasToAdd(), raw).body.op.name == "add"  # untyped matching works too

    class Missing(ConvBiasToAdd):
        def callback(self, pre, post, node_map):
            node_map[wildcard()]
    with pytest.raises(KeyError, match="matched nothing"):
        rewrite(Missing(), body(mod))


def test_pattern_arithmetic_and_rewrite_once():
    x, y = wildcard(), wildcard()
    mod = typed("  %0 = add(%x, %x);\n  %1 = multiply(%0, %x);\n  %1\n")
    assert (x + y).match(body(mod).args[0]) and ((x + y) * y).match(body(mod))
    assert not (x - y).match(body(mod).args[0]) and (x / y).op.expr.name == "divide"

    class Wrap(DFPatternCallback):
        """relu(e) for every multiply e: with rewrite_once it fires once, not for ever."""

        def __init__(self):
            super().__init__(rewrite_once=True)
            self.pattern = is_op("multiply")(wildcard(), wildcard()) | is_op("nn.relu")(wildcard())

        def callback(self, pre, post, node_map):
            return irm.ir.Call(irm.ir.Op.get("nn.relu"), [post])
    out = rewrite(Wrap(), body(mod))
    assert irm.ir.text(irm.ir.IRModule.from_expr(out)).count("nn.relu") == 1


def _call(name, *args, **attrs):
    return irm.ir.Call(irm.ir.Op.get(name), list(args), attrs or None)


def test_function_pattern():
    from irm.ir.pattern import CallPattern
    a, b = wildcard(), wildcard()
    body_pat = is_op("nn.relu")(is_op("add")(a, b))
    fn_pat = FunctionPattern([a, b], body_pat)
    assert isinstance(fn_pat, FunctionPattern) and fn_pat.params[0].same_as(a) and fn_pat.params[1].same_as(b)
    assert fn_pat.body.same_as(body_pat) and isinstance(fn_pat.body, CallPattern)
    x, y = irm.ir.Var("x"), irm.ir.Var("y")
    fn = irm.ir.Function([x, y], _call("nn.relu", _call("add", x, y)))
    assert fn_pat.match(fn)
    assert not fn_pat.match(fn.body)  # no function
    assert not FunctionPattern([a], body_pat).match(fn)  # one parameter too few
    assert not FunctionPattern([a, b], is_op("exp")(wildcard())).match(fn)  # another body
    assert FunctionPattern(None, wildcard()).match(fn) and FunctionPattern(None, wildcard()).params is None
    # the parameters are the body's variables: var patterns by name tie them together
    xp, yp = is_var("x"), is_var("y")
    assert FunctionPattern([xp, yp], is_op("nn.relu")(is_op("add")(xp, yp))).match(fn)
    assert not FunctionPattern([yp, xp], is_op("nn.relu")(is_op("add")(wildcard(), xp))).match(fn)
    # a call of a function literal, and the composite functions partitioning makes
    call = irm.ir.Call(fn, [irm.ir.Var("p"), irm.ir.Var("q")])
    assert CallPattern(FunctionPattern(None, body_pat), None).match(call)
    mod = typed("  %0 = add(%x, %x);\n  %1 = nn.relu(%0);\n  %1\n")
    parted = is_op("nn.relu")(is_op("add")(wildcard(), wildcard())).partition(body(mod), name="py.add_relu")
    composite = FunctionPattern(None, wildcard()).has_attr({"Composite": "py.add_relu"})
    assert composite.match(parted.op) and not composite.has_attr({"Composite": "other"}).match(parted.op)


class FunctionBodyToExp(DFPatternCallback):
    def __init__(self):
        super().__init__()
        self.pattern = FunctionPattern(None, is_op("nn.relu")(wildcard()))

    def callback(self, pre, post, node_map):
        return irm.ir.Function(pre.params, _call("exp", pre.body.args[0]))


def test_function_pattern_rewrite():
    x = irm.ir.Var("x")
    fn = irm.ir.Function([x], _call("nn.relu", x))
    out = rewrite(FunctionBodyToExp(), fn)
    assert isinstance(out, irm.ir.Function) and out.body.op.name == "exp"


def test_let_pattern():
    from irm.ir.pattern import LetPattern, is_let
    x, y = irm.ir.Var("x"), irm.ir.Var("y")
    let = irm.ir.Let(x, _call("add", y, y), _call("multiply", x, x))
    pat = LetPattern(is_var("x"), is_op("add")(wildcard(), wildcard()), is_op("multiply")(is_var("x"), wildcard()))
    assert isinstance(pat, LetPattern) and pat.match(let)
    assert isinstance(pat.var, type(is_var("x"))) and pat.var.name == "x" and pat.value.op.expr.name == "add"
    assert not is_let(is_var("z"), wildcard(), wildcard()).match(let)
    assert not is_let(wildcard(), is_op("exp")(wildcard()), wildcard()).match(let)
    assert not is_let(wildcard(), wildcard(), wildcard()).match(let.body)


def test_op_attribute_patterns():
    x, y = irm.ir.Var("x"), irm.ir.Var("y")
    add, relu, dense = _call("add", x, y), _call("nn.relu", x), _call("nn.dense", x, y)
    K_ELEMWISE, K_BROADCAST = 0, 1
    assert is_op("add").has_attr({"TOpPattern": K_BROADCAST})(wildcard(), wildcard()).match(add)
    assert not is_op("nn.dense").has_attr({"TOpPattern": K_ELEMWISE})(wildcard(), wildcard()).match(dense)
    elemwise = wildcard().has_attr({"TOpPattern": K_ELEMWISE})
    assert elemwise(wildcard()).match(relu) and not elemwise(wildcard(), wildcard()).match(add)
    assert is_op("nn.relu").has_attr({"TOpPattern": K_ELEMWISE}).match(relu.op)
    # TVM: on a Call the call's own attributes count, not its op's
    assert not elemwise.match(relu)
    assert not wildcard().has_attr({"NoSuchAttr": 1})(wildcard()).match(relu)  # no op has it: no match
    assert not wildcard().has_attr({"TOpIsCommutative": True})(wildcard()).match(relu)  # relu lacks it
    assert wildcard().has_attr({"TOpIsCommutative": True})(wildcard(), wildcard()).match(add)


def test_new_forms_in_the_rules_text():
    mod = typed("  %0 = add(%x, %x);\n  %1 = nn.relu(%0);\n  %1\n")
    (drop_elemwise,) = rules("rule drop : _[TOpPattern=0](%x) => %x")
    assert drop_elemwise.apply(body(mod)).same_as(body(mod).args[0])
    assert drop_elemwise.apply(body(mod).args[0]) is None  # add is broadcast
    (r,) = rules("rule r : fn(%a, _) { add(%a, _) } => %a")
    x, y = irm.ir.Var("x"), irm.ir.Var("y")
    assert r.apply(irm.ir.Function([x, y], _call("add", x, y))).same_as(x)
    assert FunctionPattern([wildcard().capture("a")], is_op("nn.relu")(wildcard())).text() == \
        "fn(%a) { nn.relu(_) }"
    assert is_op("add").has_attr({"TOpPattern": 1})(wildcard(), wildcard()).text() == "add[TOpPattern=1](_, _)"
    with pytest.raises(ValueError, match="no form in the rules text"):
        is_var("x").text()
