"""Error kinds both ways: library errors become Python exceptions and Python
exceptions raised in callbacks become library errors, message unchanged."""
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
        assert str(info.value) == kind + ": went wrong"
    finally:
        irm.remove_global_func("test.errors.fail")


def test_library_errors_map_to_python_kinds():
    with pytest.raises(TypeError, match="^TypeError: ffi.ArraySize: argument 0"):
        irm.get_global_func("ffi.ArraySize")(5)
    with pytest.raises(ValueError, match="unknown target kind 'foo'"):
        irm.Target("foo")
    with pytest.raises(KeyError):
        irm.get_global_func("no.such.function")
    with pytest.raises(AttributeError, match="did you mean 'unpacked-api'"):
        irm.Executor("aot", {"unpacked-apu": True})
    with pytest.raises(IndexError):
        irm.get_global_func("ffi.ArrayGetItem")([1], 3)
    with pytest.raises(irm.PluginError, match="^PluginError: cannot load plugin"):
        irm.load_plugin("/nonexistent/plugin.so")


def test_other_exceptions_become_runtime_errors_with_their_text():
    def fail():
        raise ZeroDivisionError("division by zero")

    irm.register_func("test.errors.zero", fail)
    try:
        with pytest.raises(RuntimeError, match="^RuntimeError: division by zero$"):
            irm.get_global_func("test.errors.zero")()
    finally:
        irm.remove_global_func("test.errors.zero")


def test_error_in_a_python_pass_inside_a_c_pipeline_keeps_kind_and_text():
    @irm.module_pass
    def Explode(mod, ctx):
        raise KeyError("no such layer")

    with pytest.raises(KeyError) as info:
        irm.Sequential([Explode])(irm.IRModule())
    assert str(info.value) == "KeyError: in pass 'sequential': in pass 'Explode': no such layer"


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
