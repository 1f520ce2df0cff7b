"""Model-level reuse (docs/build.md#model-level-reuse): the model key is
exact (a changed weight byte, option, pass config, irm version or target
misses), a rebuild of the same module takes the finished library from the
cache without running the passes, the result's fields still build on
demand, and a library changed in place through its hard link is found out."""
import os

import pytest

import irm
from irm._ffi import api_global

np = pytest.importorskip("numpy")  # Debian's python3-numpy

NET = '''#[version = "irm-0.1"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {
  %0 = add(%x, %w);
  %1 = nn.relu(%0);
  %2 = multiply(%1, %x);
  %2
}
'''
# w has more elements than the key prints (16): it enters as a hash of its bytes
W = np.linspace(-1, 1, 32, dtype=np.float32).reshape(2, 16)
NET_WIDE = NET.replace("(2, 8)", "(2, 16)")
AOT = {"interface-api": "c", "unpacked-api": True, "link-params": True}


def model_key(mod=None, target="c", executor=None, params=None, version=None, mod_name="net"):
    got = api_global("test", "driver.ModelKey", "mod target target_host executor runtime params mod_name irm_version")(
        mod if mod is not None else irm.ir.parse(NET_WIDE), target, None, irm.Executor("aot", executor or AOT), "crt",
        {"w": irm.tensor(W if params is None else params)}, mod_name, version)
    return None if got is None else got[0]


def test_the_key_is_exact():
    base = model_key()
    assert base == model_key() and len(base) == 64
    w = W.copy()
    w.reshape(-1).view(np.uint8)[37] ^= 1  # one bit of one weight
    assert model_key(params=w) != base
    assert model_key(executor=dict(AOT, **{"link-params": False})) != base
    assert model_key(target="c -mcpu=generic") != base
    assert model_key(mod_name="other") != base
    assert model_key(version="irm 0.0.0-other") != model_key(version="irm 0.0.1-other")
    assert model_key(version="irm 0.0.1-other") == model_key(version="irm 0.0.1-other")
    with irm.transform.PassContext(opt_level=3):
        assert model_key() != base
    with irm.transform.PassContext(config={"relay.FuseOps.max_depth": 3}):
        assert model_key() != base
    text = NET_WIDE.replace("nn.relu(%0)", "nn.leaky_relu(%0, alpha=0.25)")
    other = model_key(irm.ir.parse(text))
    assert other != base and other != model_key(irm.ir.parse(text.replace("0.25", "0.2500001")))


def test_no_key_when_the_build_cannot_be_vouched_for():
    timing = irm.transform.PassTimingInstrument()
    with irm.transform.PassContext(instruments=[timing]):
        assert model_key() is None  # instruments must see the passes
    with irm.transform.PassContext(config={"tune.database": "/nonexistent/tune.db"}):
        assert model_key() is None  # a file the key does not read


def test_a_bad_argument_fails_as_the_build_does():
    with pytest.raises(ValueError, match="params entry 'nosuch'"):
        irm.build(irm.ir.parse(NET), "c", executor=irm.Executor("aot", AOT), runtime="crt",
                  params={"nosuch": np.ones((2, 8), np.float32)})


def build(mod_text=NET_WIDE, w=W):
    return irm.build(irm.ir.parse(mod_text), "c", executor=irm.Executor("aot", AOT), runtime="crt",
                     params={"w": w}, mod_name="net")


def test_a_rebuild_takes_the_library_whole(tmp_path, monkeypatch):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    x = np.random.default_rng(0).standard_normal((2, 16)).astype(np.float32)
    first = build()
    assert first._result is not None  # nothing held yet: built at once, as without the cache
    first.export_library(tmp_path / "a.so")
    want = irm.runtime.load(tmp_path / "a.so").run(x)[0]
    again = build()
    assert again._result is None  # held: no pass ran
    again.export_library(tmp_path / "b.so")
    assert again._result is None  # nor did the export build
    assert (tmp_path / "b.so").read_bytes() == (tmp_path / "a.so").read_bytes()
    np.testing.assert_array_equal(irm.runtime.load(tmp_path / "b.so").run(x)[0], want)
    # the fields build on demand, to what a build without the cache gives
    assert "tvmgen_net.c" in again.artifacts and again.module.get_attr("mod_name") == "net"
    # another weight byte misses and builds
    w = W.copy()
    w[0, 0] = 7.0
    changed = build(w=w)
    assert changed._result is not None
    changed.export_library(tmp_path / "c.so")
    assert not np.array_equal(irm.runtime.load(tmp_path / "c.so").run(x)[0], want)
    # cache=False never reads the cache
    off = build()
    off.export_library(tmp_path / "d.so", cache=False)
    assert off._result is not None


def test_the_lazy_build_runs_under_the_pass_context_it_was_made_in(tmp_path, monkeypatch):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    with irm.transform.PassContext(opt_level=3):
        build().export_library(tmp_path / "a.so")
        lazy = build()
    assert lazy._result is None
    with irm.transform.PassContext(opt_level=0):
        assert lazy.module.get_attr("mod_name") == "net"  # built under opt_level=3, not 0


def test_a_library_changed_through_its_link_is_found_out(tmp_path, monkeypatch):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    build().export_library(tmp_path / "a.so")
    with open(tmp_path / "a.so", "r+b") as f:  # in place: the cache's file too when it is a hard link
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 0xFF]))
    lazy = build()
    lazy.export_library(tmp_path / "b.so")  # the entry fails its check: built and exported again
    x = np.ones((2, 16), np.float32)
    want = np.maximum(x + W, 0) * x
    got = irm.runtime.load(tmp_path / "b.so").run(x)
    np.testing.assert_allclose(got[0] if isinstance(got, list) else got, want, rtol=1e-6)


def test_a_params_file_beside_the_library_is_not_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    ex = irm.Executor("aot", dict(AOT, **{"link-params": False}))
    for name in ("a", "b"):
        r = irm.build(irm.ir.parse(NET_WIDE), "c", executor=ex, runtime="crt", params={"w": W}, mod_name="net")
        assert r._result is not None
        r.export_library(tmp_path / ("%s.so" % name))
        assert os.path.exists(tmp_path / "net.params")


def test_irm_cache_off_builds_at_once(tmp_path, monkeypatch):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    build().export_library(tmp_path / "a.so")
    monkeypatch.setenv("IRM_CACHE", "0")
    assert build()._result is not None
