"""Target, Executor and Runtime, and kinds registered from Python."""
import pytest

import irm


def test_target_from_text_dict_and_tag():
    text = irm.Target("llvm -mcpu=skylake")
    from_dict = irm.Target({"kind": "llvm", "mcpu": "skylake"})
    assert text == from_dict and str(text) == "llvm -keys=cpu -mcpu=skylake"
    assert text.kind == "llvm" and text.keys == ["cpu"] and text.attrs == {"mcpu": "skylake"}
    assert text.get_attr("mcpu") == "skylake" and text.get_attr("mattr") is None
    assert irm.Target(str(text)) == text  # canonical text parses back
    tag = irm.Target.list_tags()[0]
    assert irm.Target(tag).type_key == "target.Target"


def test_target_host_and_export():
    target = irm.Target("llvm", host="c")
    assert target.host == irm.Target("c") and irm.Target("llvm").host is None
    exported = target.export()
    assert exported["kind"] == "llvm" and exported["host"]["kind"] == "c"
    assert irm.Target(exported) == target


def test_a_wrongly_typed_target_option_is_a_type_and_a_value_error():
    """Issue 40: TVM raises ValueError here; irm's TypeError is also one."""
    from irm.target import TargetOptionTypeError
    for config in ({"kind": "llvm", "mcpu": 3}, {"kind": "llvm", "num-cores": "x"}):
        with pytest.raises(ValueError, match="expected"):
            irm.Target(config)
        with pytest.raises(TypeError) as info:
            irm.Target(config)
        assert isinstance(info.value, TargetOptionTypeError)
    with pytest.raises(ValueError, match="expected int, got 'abc'"):  # text: a ValueError, as before
        irm.Target("llvm -num-cores=abc")


def test_target_lists_kinds_and_kind_options():
    assert {"llvm", "c", "cuda"} <= set(irm.Target.list_kinds())
    assert irm.Target.list_kind_options("llvm")["mcpu"] == "str"


def test_target_is_a_scope():
    assert irm.Target.current() is None
    with irm.Target("cuda") as outer:
        assert irm.Target.current() == outer
        with irm.Target("llvm"):
            assert irm.Target.current().kind == "llvm"
        assert irm.Target.current().kind == "cuda"
    assert irm.Target.current() is None
    with pytest.raises(ValueError):
        irm.Target.current(allow_none=False)


def test_target_tag_and_legacy_conversion():
    irm.Target.register_tag("test/board", {"kind": "llvm", "mcpu": "cortex-a72"})
    assert irm.Target("test/board").get_attr("mcpu") == "cortex-a72"
    assert "test/board" in irm.Target.list_tags()
    target, executor, runtime = irm.Target.convert_legacy("llvm --executor=aot --runtime=crt")
    assert target.kind == "llvm" and executor.name == "aot" and runtime.name == "crt"


def test_executor_both_call_shapes():
    positional = irm.Executor("aot", {"unpacked-api": True})
    rfc = irm.Executor({"kind": "aot", "unpacked-api": True})
    assert positional == rfc and rfc.name == "aot" and rfc["unpacked-api"] is True
    assert rfc["link-params"] is True  # the default is filled in
    assert str(rfc) == "aot" and repr(rfc).startswith('ir.Executor(kind="aot", attrs={')
    assert "interface-api" in rfc and "nope" not in rfc


def test_executor_and_runtime_listings_take_a_name_or_an_instance():
    assert {"aot", "graph", "vm"} <= set(irm.Executor.list_registered())
    options = irm.Executor.list_registered_options("aot")
    assert options["unpacked-api"] == "bool"
    assert irm.Executor.list_registered_options(irm.Executor("aot")) == options
    runtime = irm.Runtime("crt", {"system-lib": True})
    assert str(runtime) == "crt" and runtime.attrs == {"system-lib": True, "num-threads": 1}
    assert runtime["system-lib"] is True and runtime.get("system-lib") is True
    assert irm.Runtime.list_registered_options(runtime) == {"system-lib": "bool", "num-threads": "int"}
    assert irm.Runtime.list_registered_options("cpp") == {"system-lib": "bool", "num-threads": "int",
                                                          "thread-affinity": "bool"}
    assert {"cpp", "crt"} <= set(irm.Runtime.list_registered())


def test_executor_errors_name_the_closest_option_and_kind():
    with pytest.raises(AttributeError, match=r"did you mean 'unpacked-api'"):
        irm.Executor("aot")["unpacked-apu"]
    with pytest.raises(ValueError, match=r"did you mean 'aot'"):
        irm.Executor("aoo")
    with pytest.raises(TypeError, match="expected bool"):
        irm.Executor("aot", {"link-params": 3})


def test_executor_kind_registered_from_python_with_a_schema():
    irm.register_executor_kind(
        "test-aot",
        {"fast": "bool", "level": {"type": "int", "default": 3, "doc": "how hard to try"}},
        attrs={"default_runtime": "crt"})
    assert "test-aot" in irm.Executor.list_registered()
    assert irm.Executor.list_registered_options("test-aot") == {"fast": "bool", "level": "int"}
    executor = irm.Executor("test-aot", {"fast": True})
    assert executor.attrs == {"fast": True, "level": 3}
    with pytest.raises(AttributeError, match=r"has no option 'fsat' \(did you mean 'fast'\?\)"):
        irm.Executor("test-aot", {"fsat": True})
    assert irm.Executor.get_kind_attr("test-aot", "default_runtime") == "crt"
    mod = irm.IRModule().with_attr("executor", executor)
    assert mod.get_attr("executor")["level"] == 3


def test_kind_attributes_follow_priority_levels():
    irm.register_runtime_kind("test-rt", {"threads": "int"})
    irm.Runtime.set_kind_attr("test-rt", "test_flavour", "low", 5)
    irm.Runtime.set_kind_attr("test-rt", "test_flavour", "high", 20)
    irm.Runtime.set_kind_attr("test-rt", "test_flavour", "ignored", 1)
    assert irm.Runtime.get_kind_attr("test-rt", "test_flavour") == "high"
    with pytest.raises(AttributeError):
        irm.Runtime.get_kind_attr("test-rt", "test_never_registered")


def test_target_kind_registered_from_python():
    irm.register_target_kind("test_dev", {"cores": "int"}, attrs={"test_vendor": "acme"})
    target = irm.Target("test_dev -cores=4")
    assert target.kind == "test_dev" and target.attrs == {"cores": 4}
    assert irm.Target.get_kind_attr("test_dev", "test_vendor") == "acme"
    with pytest.raises(AttributeError):
        irm.Target("test_dev -corse=4")
