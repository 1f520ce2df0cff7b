"""ir.Verify through the package: IRModule.verify (the malformed cases are
covered by tests/ir/dataflow/check_ir_verify.c)."""
import pytest

import irm


def test_a_well_formed_module_verifies():
    assert irm.IRModule().verify() is None
    assert irm.IRModule(attrs={"mod_name": "net"}).verify() is None


def test_verify_wants_a_module():
    with pytest.raises(TypeError, match="^ir.Verify: argument 1: expected ir.IRModule, got int 3$"):
        irm.get_global_func("ir.Verify")(3)
    with pytest.raises(TypeError, match="^verify\\(\\): argument 1 \\(mod\\): expected ir.IRModule, got int 3$"):
        irm.ir.verify(3)
