"""The compilation driver from Python: build() and compilation_config()."""
import pytest

import irm


def test_build_sets_every_attribute_and_freezes():
    mod = irm.ir.example_model("mlp")
    result = irm.build(mod, "llvm", mod_name="mlp")
    out = result["module"]
    assert out.is_frozen
    assert out.get_attr("target").kind == "llvm"
    assert out.get_attr("executor").name == "graph"
    assert out.get_attr("runtime").name == "cpp"
    assert out.get_attr("mod_name") == "mlp"
    assert sorted(result["artifacts"]) == ["mlp.json", "mlp.params", "tvmgen_mlp.c"]  # the graph executor's
    assert result.module is out and isinstance(result, irm.BuildResult)
    assert len(result["params"]) == 6
    assert mod.get_attr("target") is None  # the input is untouched


def test_build_errors_name_both_sides():
    mod = irm.ir.example_model("mlp")
    with pytest.raises(ValueError, match="executor 'aot' with runtime 'cpp' needs unpacked-api = false"):
        irm.build(mod, "c", executor=irm.Executor({"kind": "aot", "unpacked-api": True}), runtime="cpp")
    with pytest.raises(ValueError, match="target kind 'cuda' cannot be built"):
        irm.build(mod, "cuda")


def test_compilation_config_of_a_module():
    mod = irm.IRModule().with_attr("target", irm.Target("c --host=llvm"))
    cfg = irm.compilation_config(mod)
    assert cfg["host_target"].kind == "llvm"
    assert cfg["default_primitive_target"].kind == "c"
    assert cfg["executor"].name == "graph" and cfg["runtime"].name == "cpp"
    with pytest.raises(ValueError, match="module has no 'target' attribute"):
        irm.compilation_config(irm.IRModule())


@pytest.mark.parametrize("executor,runtime", [("aot", "crt"), ("graph", "cpp")])
def test_load_by_mod_name(tmp_path, executor, runtime):
    """runtime.Load finds the module by its tvmgen_<mod_name>_metadata and
    dispatches on the executor it names (docs/runtime.md, "Loading")."""
    result = irm.build(irm.ir.example_model("mlp"), "c", executor=irm.Executor(executor), runtime=runtime,
                       mod_name="net")
    result.export_library(tmp_path / "net.so")
    assert irm.runtime.load(tmp_path / "net.so").metadata["executor"] == executor
    assert irm.runtime.load(tmp_path / "net.so", "net").metadata["mod_name"] == "net"
    with pytest.raises(ValueError, match=r"has no module 'other' \(no tvmgen_other_metadata\); it holds: net"):
        irm.runtime.load(tmp_path / "net.so", mod_name="other")
