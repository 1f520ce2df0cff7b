"""The IR text form from Python through the generic call path: ir.Parse and
ir.Print round-trip a module, repr() of a module is its text, and parse
errors carry the line and column. str()/repr(), text(elide_larger_than=N)
and the printing instrument elide large tensors, which parse refuses."""
import pytest

import irm

TEXT = """#[version = "irm-0.1"]
attributes {
  mod_name = "net"
}
def @main(%x: Tensor[(1, 4), float32]) {
  %0 = nn.relu(%x);
  %1 = (%0, %x);
  %2 = %1.0;
  %2
}
"""


def _g(name):
    return irm.get_global_func(name)


def test_parse_and_print_round_trip():
    mod = _g("ir.Parse")(TEXT)
    assert _g("ir.Print")(mod) == TEXT
    assert _g("ffi.Repr")(mod) == TEXT
    assert _g("ffi.StructuralEqual")(mod, _g("ir.Parse")(_g("ir.Print")(mod)))


def test_parse_errors_name_the_place():
    with pytest.raises(KeyError) as info:
        _g("ir.Parse")(TEXT.replace("nn.relu", "nn.rleu"))
    assert "line 6, column 8: unknown op 'nn.rleu' (did you mean 'nn.relu'?)" in str(info.value)


def _mlp_bound():
    mod = irm.ir.example_model("mlp")
    return irm.transform.Pass.get("BindParams")(mod)


def test_str_and_repr_elide_large_tensors():
    mod = _mlp_bound()
    full = mod.text()
    assert len(full) > 70000 and "elided" not in full
    for shown in (str(mod), repr(mod)):
        assert len(shown) < 5000
        assert shown.splitlines()[1] == ("// 8 tensors with more than 16 elements elided; "
                                         "print with all constants (elide_larger_than=0) to parse")
        assert '"fc1_weight": const(float32, [32, 64], <elided 2048 elements>)' in shown
        assert "nn.dense(%data, const(float32, [32, 64], <elided 2048 elements>), units=32)" in shown
        assert "const(float32, [16], [-0.0246279724, " in shown  # 16 elements: in full
    # a node's str() too
    assert "const(float32, [32, 64], <elided 2048 elements>)" in str(mod["main"])
    # the full text round-trips
    assert irm.ir.parse(full).text() == full


def test_text_option_and_the_parse_error():
    mod = _mlp_bound()
    assert mod.text(elide_larger_than=16) == str(mod)
    assert mod.text(elide_larger_than=0) == mod.text() == irm.ir.text(mod)
    small = mod.text(elide_larger_than=1000)
    assert small.count("<elided 2048 elements>") == 2  # in params and in @main
    assert small.count("<elided ") == 2 and "const(float32, [16, 32], [" in small
    body = irm.ir.text(mod["main"], elide_larger_than=100)
    assert body.startswith("fn (%data: Tensor[(1, 64), float32])")
    assert body.count("<elided ") == 3
    with pytest.raises(ValueError) as info:
        irm.ir.parse(small)
    assert ("line 5, column 27: the data of this const(float32, [32, 64]) was elided when the text was "
            "printed; print with all constants" in str(info.value))
    with pytest.raises(ValueError, match="must be 0 .print every element. or more, got -1"):
        mod.text(elide_larger_than=-1)
    with pytest.raises(AttributeError, match="did you mean 'elide_larger_than'"):
        _g("ir.Print")(mod, {"elide_larger_tha": 3})


def test_printing_instrument_elides_unless_told(capfd):
    mod = irm.ir.example_model("mlp")
    bind = irm.transform.Pass.get("BindParams")
    with irm.PassContext(instruments=[irm.transform.PassPrintingInstrument(["BindParams"])]):
        bind(mod)
    out = capfd.readouterr().out
    assert "; IR after pass 'BindParams'" in out and len(out) < 5000
    assert "<elided 2048 elements>" in out
    printing = irm.transform.PassPrintingInstrument(["BindParams"], elide_larger_than=0)
    with irm.PassContext(instruments=[printing]):
        bind(mod)
    out = capfd.readouterr().out
    assert len(out) > 70000 and "elided" not in out


def test_spans_from_the_parser_and_annotate_spans():
    text = ('#[version = "irm-0.1"]\ndef @main(%x: Tensor[(2, 3), float32], %y: Tensor[(3, 2), float32]) {\n'
            '  %0 = nn.relu(%x);\n  %1 = add(%0, %y);\n  %1\n}\n')
    mod = irm.ir.parse(text)
    add = mod["main"].body
    assert add.span == (4, 8) and add.args[0].span == (3, 8) and add.args[1].span == (2, 40)
    with pytest.raises(TypeError, match="add: shapes .* at line 4, column 8"):
        irm.transform.Pass.get("InferType")(mod)
    x, y = irm.ir.Var("x", irm.ir.TensorType((2, 3))), irm.ir.Var("y", irm.ir.TensorType((3, 2)))
    relu = irm.ir.Call(irm.ir.Op.get("nn.relu"), [x])
    built = irm.ir.IRModule.from_expr(irm.ir.Function([x, y], irm.ir.Call(irm.ir.Op.get("add"), [relu, y])))
    assert built["main"].body.span is None
    annotated = irm.transform.Pass.get("AnnotateSpans")(built)
    assert annotated["main"].body.span == (4, 8) and annotated.text() == mod.text()
    with pytest.raises(TypeError, match="line 4, column 8"):
        irm.transform.Pass.get("InferType")(annotated)
