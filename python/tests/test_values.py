"""Values both ways, objects, containers, JSON and reference counting."""
import gc

import pytest

import irm
from irm import _ffi


@pytest.fixture(scope="module")
def echo():
    irm.register_func("test.values.echo", lambda *args: args[0] if len(args) == 1 else list(args))
    yield irm.get_global_func("test.values.echo")
    irm.remove_global_func("test.values.echo")


@pytest.mark.parametrize("value", [None, True, False, 0, -1, (1 << 63) - 1, -(1 << 63), 2.5,
                                   "text", "ünïcode", ""])
def test_scalars_round_trip_through_a_c_call(echo, value):
    result = echo(value)
    assert result == value and type(result) is type(value)


def test_pointers_travel_as_opaque_pointers(echo):
    import ctypes

    result = echo(ctypes.c_void_p(0x1234))
    assert isinstance(result, ctypes.c_void_p) and result.value == 0x1234


def test_int_outside_int64_is_an_overflow_error(echo):
    with pytest.raises(OverflowError):
        echo(1 << 63)
    with pytest.raises(OverflowError):
        echo(-(1 << 63) - 1)


def test_bytes_and_strings_with_nul_keep_every_byte(echo):
    assert echo(b"a\0b") == "a\0b"
    assert echo("x\0y") == "x\0y"
    assert echo(b"\xff\xfe") == b"\xff\xfe"  # not UTF-8: comes back as bytes


def test_list_tuple_and_dict_become_array_and_map(echo):
    array = echo([1, "two", 3.0, None, [True]])
    assert isinstance(array, irm.Array) and array.type_key == "ffi.Array"
    assert len(array) == 5 and array[1] == "two" and array[-1] == [True]
    assert list(echo((1, 2))) == [1, 2]
    mapping = echo({"b": 1, "a": {"c": "d"}})
    assert isinstance(mapping, irm.Map) and mapping.keys() == ["b", "a"] and len(mapping) == 2
    assert mapping["a"]["c"] == "d" and "b" in mapping and "z" not in mapping
    assert mapping.get("z", 7) == 7


def test_map_keys_must_be_strings(echo):
    with pytest.raises(TypeError):
        echo({1: 2})


def test_array_index_out_of_range_is_an_index_error(echo):
    array = echo([1, 2])
    with pytest.raises(IndexError):
        array[2]
    with pytest.raises(IndexError, match="^ffi.ArrayGetItem: index 5 is out of range"):
        irm.get_global_func("ffi.ArrayGetItem")(array, 5)


def test_missing_map_key_is_a_key_error_with_the_library_message(echo):
    with pytest.raises(KeyError) as info:
        echo({"a": 1})["b"]
    assert str(info.value) == "key 'b' is not in the Map"  # no kind, no global: a subscript


def test_python_callable_becomes_a_function_object(echo):
    func = echo(lambda x: x * 2)
    assert isinstance(func, irm.Function) and func.type_key == "ffi.Function"
    assert func(21) == 42


def test_unconvertible_value_is_a_type_error(echo):
    with pytest.raises(TypeError):
        echo(object())


def test_repr_eq_hash_are_structural():
    a, b = irm.Executor("aot", {"unpacked-api": True}), irm.Executor({"kind": "aot", "unpacked-api": True})
    assert repr(a).startswith('ir.Executor(kind="aot"')
    assert a == b and hash(a) == hash(b) and not a.same_as(b)
    assert a != irm.Executor("aot")


def test_json_round_trips_an_object():
    mod = irm.IRModule().with_attr("executor", irm.Executor("graph"))
    back = irm.from_json(mod.to_json())
    assert back.type_key == "ir.IRModule" and back == mod
    with pytest.raises(ValueError, match="^from_json\\(\\): malformed JSON"):
        irm.from_json("{")


def test_objects_are_made_by_the_library():
    with pytest.raises(TypeError):
        irm.Object()


def test_refcount_stays_flat_over_100000_calls():
    executor = irm.Executor("aot")
    mod = irm.IRModule().with_attr("executor", executor)
    get_attr = irm.get_global_func("ir.ModuleGetAttr")
    before = (executor._refcount, mod._refcount)
    for _ in range(100000):
        get_attr(mod, "executor")
    gc.collect()
    assert (executor._refcount, mod._refcount) == before


def test_a_dropped_python_function_releases_its_callback():
    gc.collect()
    baseline = _ffi.live_callbacks()
    funcs = [_ffi.convert_func(lambda i=i: i) for i in range(100)]
    assert _ffi.live_callbacks() == baseline + 100 and funcs[7]() == 7
    del funcs
    gc.collect()
    assert _ffi.live_callbacks() == baseline


def test_a_registered_python_function_lives_until_removed():
    calls = []
    irm.register_func("test.values.kept", lambda: calls.append(1))
    baseline = _ffi.live_callbacks()
    irm.remove_global_func("test.values.kept")
    assert _ffi.live_callbacks() == baseline - 1
