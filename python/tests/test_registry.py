"""Global functions from Python: look up, register (decorator or call),
list and remove."""
import pytest

import irm


def test_get_global_func_calls_the_c_function():
    size = irm.get_global_func("ffi.ArraySize")
    assert isinstance(size, irm.Function) and size([1, 2, 3]) == 3


def test_missing_global_is_a_key_error_with_the_closest_name():
    with pytest.raises(KeyError) as info:
        irm.get_global_func("ffi.ArraySiz")
    assert str(info.value) == ("global function 'ffi.ArraySiz' is not registered "
                               "(did you mean 'ffi.ArraySize'?)")
    assert irm.get_global_func("ffi.ArraySiz", allow_missing=True) is None


def test_register_func_as_a_call_is_seen_by_c_callers():
    irm.register_func("test.registry.add", lambda a, b: a + b)
    try:
        assert "test.registry.add" in irm.list_global_func_names()
        assert irm.get_global_func("test.registry.add")(2, 40) == 42
    finally:
        irm.remove_global_func("test.registry.add")
    assert "test.registry.add" not in irm.list_global_func_names()


def test_register_func_as_a_decorator_with_and_without_a_name():
    @irm.register_func("test.registry.named")
    def named(x):
        return x + 1

    @irm.register_func
    def test_registry_bare():
        return "bare"

    try:
        assert named(1) == 2  # the decorator returns the Python function
        assert irm.get_global_func("test.registry.named")(1) == 2
        assert irm.get_global_func("test_registry_bare")() == "bare"
    finally:
        irm.remove_global_func("test.registry.named")
        irm.remove_global_func("test_registry_bare")


def test_registering_an_existing_name_needs_override():
    irm.register_func("test.registry.twice", lambda: 1)
    try:
        with pytest.raises(KeyError):
            irm.register_func("test.registry.twice", lambda: 2)
        assert irm.get_global_func("test.registry.twice")() == 1
        irm.register_func("test.registry.twice", lambda: 2, override=True)
        assert irm.get_global_func("test.registry.twice")() == 2
    finally:
        irm.remove_global_func("test.registry.twice")


def test_removing_a_missing_global_is_a_key_error():
    with pytest.raises(KeyError):
        irm.remove_global_func("test.registry.never")


def test_a_held_function_outlives_its_removal():
    irm.register_func("test.registry.held", lambda: "still here")
    held = irm.get_global_func("test.registry.held")
    irm.remove_global_func("test.registry.held")
    assert held() == "still here"


def test_list_global_func_names_lists_the_builtins():
    names = irm.list_global_func_names()
    assert names == sorted(names)
    assert {"ffi.Array", "target.Target", "executor.Create", "transform.RunPass"} <= set(names)
