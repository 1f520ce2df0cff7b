"""Error kinds both ways: library errors become Python exceptions (the class
says the kind, the message is the library's without "Kind: ") and Python
exceptions raised in callbacks become library errors of their kind, message
unchanged; errors of a global that a Python API calls name the API."""
import pytest

import irm

KINDS = [("TypeError", TypeError), ("ValueError", ValueError), ("KeyError", KeyError),
         ("AttributeError", AttributeError), ("IndexError", IndexError),
         ("RuntimeError", RuntimeError), ("MemoryError", MemoryError),
         ("PluginError", irm.PluginError)]


@pytest.mark.parametrize("kind,cls", KINDS)
def test_exception_in_a_callback_comes_back_as_its_kind(kind, cls):
    def fail():
        raise cls("went wrong")

    irm.register_func("test.errors.fail", fail, override=True)
    try:
        with pytest.raises(cls) as info:
            irm.get_global_func("test.errors.fail")()
        assert str(info.value) == "went wrong"  # the class says the kind, once
        # C callers see the kind: a C global calling the callback keeps it.
        assert irm._ffi._error_text(info.value) == kind + ": went wrong"
    finally:
        irm.remove_global_func("test.errors.fail")


def test_library_errors_map_to_python_kinds():
    # A global called by name is named in its errors.
    with pytest.raises(TypeError) as info:
        irm.get_global_func("ffi.ArraySize")(5)
    assert str(info.value) == "ffi.ArraySize: argument 1: expected ffi.Array, got int 5"
    with pytest.raises(ValueError, match="unknown target kind 'foo'"):
        irm.Target("foo")
    with pytest.raises(KeyError):
        irm.get_global_func("no.such.function")
    with pytest.raises(AttributeError, match="did you mean 'unpacked-api'"):
        irm.Executor("aot", {"unpacked-apu": True})
    with pytest.raises(IndexError):
        irm.get_global_func("ffi.ArrayGetItem")([1], 3)
    with pytest.raises(irm.PluginError, match="^cannot load plugin"):
        irm.load_plugin("/nonexistent/plugin.so")


def test_other_exceptions_become_runtime_errors_with_their_text():
    def fail():
        raise ZeroDivisionError("division by zero")

    irm.register_func("test.errors.zero", fail)
    try:
        with pytest.raises(RuntimeError, match="^division by zero$"):
            irm.get_global_func("test.errors.zero")()
    finally:
        irm.remove_global_func("test.errors.zero")


def test_error_in_a_python_pass_inside_a_c_pipeline_keeps_kind_and_text():
    @irm.module_pass
    def Explode(mod, ctx):
        raise KeyError("no such layer")

    with pytest.raises(KeyError) as info:
        irm.Sequential([Explode])(irm.IRModule())
    assert str(info.value) == "in pass 'sequential': in pass 'Explode': no such layer"
    # What C saw (and a C caller would read): the kind in front, once.
    assert irm._ffi._last_error() == "KeyError: in pass 'sequential': in pass 'Explode': no such layer"


def test_base_exception_in_a_callback_is_not_swallowed():
    class Interrupt(BaseException):
        pass

    def interrupt(mod, ctx):
        raise Interrupt()

    with pytest.raises(Interrupt):
        irm.Sequential([irm.module_pass(interrupt)])(irm.IRModule())
    # The next failing call reports its own error, not the interrupt.
    with pytest.raises(TypeError):
        irm.get_global_func("ffi.ArraySize")(5)


def test_keyboard_interrupt_from_a_registered_function_propagates():
    def stop():
        raise KeyboardInterrupt

    irm.register_func("test.errors.stop", stop)
    try:
        with pytest.raises(KeyboardInterrupt):
            irm.get_global_func("test.errors.stop")()
    finally:
        irm.remove_global_func("test.errors.stop")


# ---- messages name the Python API, once, without the kind ---------------------------

def test_a_python_api_names_itself_not_the_global_behind_it():
    with pytest.raises(AttributeError) as info:
        irm.Executor("aot", {"unpacked_api": 1})
    assert str(info.value) == ("Executor(): executor 'aot' has no option 'unpacked_api' "
                               "(did you mean 'unpacked-api'?)")
    with pytest.raises(TypeError) as info:
        irm.Runtime("crt", {"system-lib": "yes"})
    assert str(info.value) == "Runtime(): runtime 'crt' option 'system-lib': expected bool, got str 'yes'"
    with pytest.raises(TypeError) as info:
        irm.Target({"kind": "llvm", "num-cores": "four"})
    assert str(info.value) == "Target(): target 'llvm' option 'num-cores': expected int, got str 'four'"
    with pytest.raises(TypeError) as info:
        irm.IRModule().with_attr("executor", 5)
    assert str(info.value) == "IRModule.with_attr(): module attribute 'executor': expected ir.Executor, got int 5"
    with pytest.raises(AttributeError) as info:
        irm.PassContext(config={"no.such.option": 1})
    assert str(info.value).startswith("PassContext(): ")
    with pytest.raises(ValueError) as info:
        irm.parse_pipeline("Foo(")
    assert str(info.value).startswith("parse_pipeline(): pipeline 'Foo(': unknown pass 'Foo'")
    # A subscript has no name to give: the message goes without the global's.
    with pytest.raises(AttributeError) as info:
        irm.Executor("aot")["nosuch"]
    assert str(info.value) == "executor 'aot' has no option 'nosuch'"
    with pytest.raises(KeyError) as info:
        irm._ffi.as_object({"a": 1})["b"]
    assert str(info.value) == "key 'b' is not in the Map"


def test_a_python_api_numbers_and_names_its_own_arguments():
    # The global's argument 2 (shape) is TensorType's argument 1.
    with pytest.raises(TypeError) as info:
        irm.ir.TensorType((2, "a"))
    assert str(info.value) == "TensorType(): argument 1 (shape): shape item 1: expected int, got str 'a'"
    with pytest.raises(TypeError) as info:
        irm.Executor(5)
    assert str(info.value) == ('Executor(): argument 1 (name): expected a kind name (str) or an ffi.Map '
                               'with "kind", got int 5')
    # self is not counted: key is with_attr's argument 1.
    with pytest.raises(TypeError) as info:
        irm.IRModule().get_attr(5)
    assert str(info.value) == "IRModule.get_attr(): argument 1 (key): expected str, got int 5"
    with pytest.raises(TypeError) as info:
        irm.PassContext(opt_level="3")
    assert str(info.value) == "PassContext(): argument 1 (opt_level): expected int, got str '3'"
    with pytest.raises(TypeError) as info:
        irm.Sequential([1])
    assert str(info.value) == ("Sequential(): argument 1 (passes): passes[0]: expected a transform.Pass, "
                               "got int 1")


def test_python_messages_say_no_kind_either():
    with pytest.raises(IndexError) as info:
        irm._ffi.as_object([1])[3]
    assert str(info.value) == "array index 3 out of range [0, 1)"
    with pytest.raises(ValueError) as info:
        irm.Target.current(allow_none=False)
    assert str(info.value) == "Target.current(): no target in scope"


def test_an_api_error_raised_in_a_callback_keeps_its_api_name_and_kind():
    @irm.module_pass
    def SetBadAttr(mod, ctx):
        return mod.with_attr("executor", 5)

    with pytest.raises(TypeError) as info:
        SetBadAttr(irm.IRModule())
    assert str(info.value) == ("in pass 'SetBadAttr': IRModule.with_attr(): module attribute 'executor': "
                               "expected ir.Executor, got int 5")
