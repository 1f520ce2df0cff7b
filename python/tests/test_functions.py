"""Functions in modules, from Python: the toy-func example plugin brings an
ir.BaseFunc subtype (toy.Func, a function whose body is one integer), so
modules hold real functions that function passes rewrite. ctest passes the
plugin's path in IRM_TEST_TOY_FUNC_PLUGIN."""
import os

import pytest

import irm
from irm import IRModule, PassContext


@pytest.fixture(scope="module")
def toy():
    path = os.environ.get("IRM_TEST_TOY_FUNC_PLUGIN")
    if not path:
        pytest.skip("IRM_TEST_TOY_FUNC_PLUGIN is not set (ctest sets it)")
    irm.load_plugin(path)
    return irm.get_global_func("toy.Func"), irm.get_global_func("toy.FuncBody")


def test_functions_by_name(toy):
    make, body = toy
    mod = IRModule({"main": make(1), "helper": make(2)})
    assert mod.function_names == ["main", "helper"]
    assert "main" in mod and "absent" not in mod
    assert body(mod["helper"]) == 2
    assert mod["main"].type_key == "toy.Func"


def test_with_and_without_function_copy_on_write(toy):
    make, body = toy
    mod = IRModule({"main": make(1)})
    more = mod.with_function("extra", make(7))
    assert mod.function_names == ["main"]
    assert more.function_names == ["main", "extra"]
    replaced = more.with_function("main", make(9))
    assert replaced.function_names == ["main", "extra"]  # replacing keeps the position
    assert body(replaced["main"]) == 9
    assert more.without_function("extra").function_names == ["main"]


def test_missing_function_is_a_key_error_with_the_closest_name(toy):
    make, _ = toy
    mod = IRModule({"main": make(1)})
    with pytest.raises(KeyError) as info:
        mod.without_function("mian")
    assert "main" in str(info.value)


def test_function_attributes_and_json(toy):
    make, body = toy
    func = make(3, {"global_symbol": "entry"})
    assert irm.get_global_func("ir.FuncGetAttr")(func, "global_symbol") == "entry"
    tagged = irm.get_global_func("ir.FuncWithAttr")(func, "Primitive", 1)
    assert irm.get_global_func("ir.FuncGetAttr")(tagged, "Primitive") == 1
    assert irm.get_global_func("ir.FuncGetAttr")(func, "Primitive") is None
    mod = IRModule({"main": tagged}, {"mod_name": "toy"})
    back = irm.from_json(mod.to_json())
    assert back == mod
    assert body(back["main"]) == 3


def test_python_function_pass_rewrites_each_function(toy):
    make, body = toy
    seen = []

    @irm.transform.function_pass(opt_level=0, name="DoubleBody")
    def double(func, mod, ctx):
        seen.append(body(func))
        return make(body(func) * 2)

    mod = IRModule({"main": make(1), "helper": make(5)})
    with PassContext():
        out = double(mod)
    assert seen == [1, 5]
    assert [body(out[n]) for n in out.function_names] == [2, 10]
    assert [body(mod[n]) for n in mod.function_names] == [1, 5]  # the input is unchanged


def test_function_pass_skips_functions_for_an_external_compiler(toy):
    make, body = toy

    @irm.transform.function_pass(opt_level=0, name="Bump")
    def bump(func, mod, ctx):
        return make(body(func) + 1)

    mod = IRModule({"main": make(1), "ext": make(1, {"Compiler": "ccompiler"})})
    with PassContext():
        out = bump(mod)
    assert body(out["main"]) == 2
    assert body(out["ext"]) == 1


def test_function_pass_returning_its_input_gives_the_module_itself(toy):
    make, _ = toy

    @irm.transform.function_pass(opt_level=0, name="Identity")
    def identity(func, mod, ctx):
        return func

    mod = IRModule({"main": make(1)})
    with PassContext():
        out = identity(mod)
    assert out.handle == mod.handle
