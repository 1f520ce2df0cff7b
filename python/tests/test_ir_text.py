"""The IR text form from Python through the generic call path: ir.Parse and
ir.Print round-trip a module, repr() of a module is its text, and parse
errors carry the line and column."""
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
