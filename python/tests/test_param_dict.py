"""irm.runtime.save_param_dict / load_param_dict: TVM's param dict
(relay.save_param_dict's bytes) for every dtype irm has, and bad bytes."""
import struct

import pytest

np = pytest.importorskip("numpy")

from irm.runtime import load_param_dict, save_param_dict  # noqa: E402

DTYPES = ["float32", "float16", "float64", "int32", "int64", "int8", "uint8", "bool"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips(dtype):
    params = {"w": (np.arange(6).reshape(2, 3) % 2).astype(dtype), "s": np.array(1, dtype=dtype),
              "e": np.zeros((0, 4), dtype=dtype)}
    data = save_param_dict(params)
    assert isinstance(data, bytes)
    assert struct.unpack("<QQQ", data[:24]) == (0xF7E58D4F05049CB7, 0, 3)
    back = load_param_dict(data)
    assert list(back) == ["w", "s", "e"]
    for k, v in params.items():
        got = np.asarray(back[k].numpy())
        assert got.dtype == v.dtype and got.shape == v.shape and np.array_equal(got, v)


def test_bad_bytes_and_values():
    data = save_param_dict({"w": np.ones(3, dtype="float32")})
    with pytest.raises(ValueError, match="truncated"):
        load_param_dict(data[:-1])
    with pytest.raises(ValueError, match="bad magic number"):
        load_param_dict(b"\0" + data[1:])
    with pytest.raises(TypeError, match="data must be bytes"):
        load_param_dict("text")
    with pytest.raises(TypeError, match="params must be a dict"):
        save_param_dict([1])
    assert load_param_dict(save_param_dict({})) == {}
