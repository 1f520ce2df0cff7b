"""irm.compile and reuse from the ONNX file (docs/build.md#reuse-from-the-onnx-file):
a second call takes the library without importing, the source key misses on
a changed byte (even with the mtime forced back), frontend option, target,
executor option, PassContext config, irm version or compiler, the stat memo
is exact (a fresh file is not memoized; a corrupt or unreadable memo is
ignored), IRM_CACHE=0 / cache=False import every time, a model with external
data is not reused, another file of the same model takes the
model-level entry and is then stored under its own source key, and a warm
call in a fresh process runs no compiler."""
import os
import subprocess
import sys
import time

import pytest

import irm
from irm._ffi import api_global

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx")  # Debian's python3-onnx
from onnx import helper, numpy_helper, TensorProto  # noqa: E402

import irm.frontend.onnx as frontend  # noqa: E402

AOT = irm.Executor("aot", {"interface-api": "c", "unpacked-api": True, "link-params": True})
W = np.linspace(-1, 1, 8, dtype=np.float32)


def write_model(path, w=W, doc=""):
    """y = relu(x + w) * x, x of shape (N, 8) (N: 2 unless shape= says)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Relu", ["s"], ["r"]),
             helper.make_node("Mul", ["r", "x"], ["y"])]
    graph = helper.make_graph(nodes, "net", [x], [y], [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    model.doc_string = doc
    path.write_bytes(model.SerializeToString())
    return str(path)


def compile_(src, lib, **kw):
    kw.setdefault("shape", {"x": [2, 8]})
    return irm.compile(src, kw.pop("target", "c"), str(lib), executor=kw.pop("executor", AOT), runtime="crt", **kw)


def run(lib, x):
    got = irm.runtime.load(lib).run(x)
    return got[0] if isinstance(got, list) else got


def digest(path):
    got = api_global("test", "driver.FileDigest", "path")(str(path))
    return got[0], bool(got[1])


def source_key(path, frontend_text="onnx", target="c", executor=AOT, version=None):
    got = api_global("test", "driver.SourceKey", "path frontend target target_host executor runtime mod_name v")(
        str(path), frontend_text, target, None, executor, "crt", "default", version)
    return None if got is None else got[0]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("IRM_CACHE", raising=False)
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def old_models(tmp_path_factory):
    """Two model files whose times are more than 2 s old (the stat memo
    records only such files), one per test that needs one: written once,
    then waited for."""
    folder = tmp_path_factory.mktemp("old")
    paths = [write_model(folder / name) for name in ("a.onnx", "b.onnx")]
    ctime = max(os.stat(p).st_ctime for p in paths)
    time.sleep(max(0.0, ctime + 2.1 - time.time()))
    return paths


def count_imports(monkeypatch):
    calls = []
    real = frontend.from_onnx

    def counted(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(frontend, "from_onnx", counted)
    return calls


def test_a_second_call_takes_the_library_without_importing(tmp_path, cache, monkeypatch):
    src = write_model(tmp_path / "net.onnx")
    first = compile_(src, tmp_path / "a.so")
    assert not first.reused and os.fspath(first) == str(tmp_path / "a.so")
    assert set(first.times) == {"key", "import", "build", "export"}
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    want = run(first, x)
    np.testing.assert_allclose(want, np.maximum(x + W, 0) * x, rtol=1e-6)

    def no_import(*args, **kw):
        raise AssertionError("from_onnx called on a warm compile")

    monkeypatch.setattr(frontend, "from_onnx", no_import)
    monkeypatch.setattr(frontend, "_parse_file", no_import)
    again = compile_(src, tmp_path / "b.so")
    assert again.reused and set(again.times) == {"key"}
    assert (tmp_path / "b.so").read_bytes() == (tmp_path / "a.so").read_bytes()
    np.testing.assert_array_equal(run(again, x), want)
    copy = tmp_path / "copy.onnx"  # the same bytes elsewhere: the same key
    copy.write_bytes((tmp_path / "net.onnx").read_bytes())
    assert compile_(copy, tmp_path / "c.so").reused


def test_the_source_key_is_exact(tmp_path, cache):
    src = write_model(tmp_path / "net.onnx")
    base = source_key(src)
    assert base == source_key(src) and len(base) == 64
    assert source_key(src, frontend_text="onnx shape=(4, 8)") != base
    assert source_key(src, target="c -mcpu=generic") != base
    no_link_params = irm.Executor("aot", {"interface-api": "c", "unpacked-api": True, "link-params": False})
    assert source_key(src, executor=no_link_params) != base
    assert source_key(src, version="irm 0.0.0-a") != source_key(src, version="irm 0.0.0-b")
    with irm.transform.PassContext(config={"relay.FuseOps.max_depth": 3}):
        assert source_key(src) != base
    with irm.transform.PassContext(opt_level=3):
        assert source_key(src) != base
    w = W.copy()
    w[3] = 5.0
    write_model(tmp_path / "net.onnx", w)
    assert source_key(src) != base


def test_compile_misses_on_a_frontend_option_and_a_changed_file(tmp_path, cache, monkeypatch):
    src = write_model(tmp_path / "net.onnx")
    compile_(src, tmp_path / "a.so")
    calls = count_imports(monkeypatch)
    other = compile_(src, tmp_path / "b.so", shape={"x": [4, 8]})
    assert not other.reused and calls == [1]
    x = np.ones((4, 8), np.float32)
    np.testing.assert_allclose(run(other, x), np.maximum(x + W, 0) * x)
    assert compile_(src, tmp_path / "c.so", shape={"x": [4, 8]}).reused and calls == [1]


def test_no_reuse_when_the_build_cannot_be_vouched_for(tmp_path, cache, monkeypatch):
    src = write_model(tmp_path / "net.onnx")
    with irm.transform.PassContext(instruments=[irm.transform.PassTimingInstrument()]):
        assert source_key(src) is None
        calls = count_imports(monkeypatch)
        assert not compile_(src, tmp_path / "a.so").reused
        assert not compile_(src, tmp_path / "b.so").reused and calls == [1, 1]


def test_a_changed_compiler_misses(tmp_path, cache):
    src = write_model(tmp_path / "net.onnx")
    compile_(src, tmp_path / "a.so")
    wrapper = tmp_path / "my-cc"  # another --version: another compiler
    wrapper.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo "my-cc 99"; exit 0; fi\nexec cc "$@"\n')
    os.chmod(wrapper, 0o755)
    assert compile_(src, tmp_path / "b.so").reused
    assert not compile_(src, tmp_path / "c.so", cc=str(wrapper)).reused
    assert compile_(src, tmp_path / "d.so", cc=str(wrapper)).reused  # stored for that compiler now


FRESH = """import sys, irm
r = irm.compile(sys.argv[1], "c -mcpu=native", sys.argv[2], shape={"x": [2, 8]}, runtime="crt",
                executor=irm.Executor("aot", {"interface-api": "c", "unpacked-api": True, "link-params": True}))
print(r.reused)
"""


@pytest.mark.skipif(not os.access("/proc/cpuinfo", os.R_OK), reason="the CPU cannot be told without a compiler run")
def test_a_fresh_process_warm_call_runs_no_compiler(tmp_path, cache):
    """The compiler's --version and what -mcpu=native resolves to are
    remembered in the cache (backend/export/cc_memo.c): a warm call in a new
    process runs no compiler (CC: a wrapper that logs its runs)."""
    src = write_model(tmp_path / "net.onnx")
    log, wrapper = tmp_path / "cc.log", tmp_path / "log-cc"
    wrapper.write_text('#!/bin/sh\necho "$*" >> "%s"\nexec cc "$@"\n' % log)
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, CC=str(wrapper))

    def fresh(lib):
        out = subprocess.run([sys.executable, "-c", FRESH, src, str(tmp_path / lib)], env=env, check=True,
                             capture_output=True, text=True).stdout
        return out.strip() == "True", log.read_text().count("\n") if log.exists() else 0

    reused, cold_runs = fresh("a.so")
    assert not reused and cold_runs > 0
    assert fresh("b.so") == (True, cold_runs)


def test_the_cache_off_imports_every_time(tmp_path, cache, monkeypatch):
    src = write_model(tmp_path / "net.onnx")
    calls = count_imports(monkeypatch)
    assert not compile_(src, tmp_path / "a.so", cache=False).reused
    assert not compile_(src, tmp_path / "b.so", cache=False).reused
    monkeypatch.setenv("IRM_CACHE", "0")
    assert not compile_(src, tmp_path / "c.so").reused
    assert not compile_(src, tmp_path / "d.so").reused
    assert calls == [1, 1, 1, 1]


def test_the_memo_skips_reading_an_unchanged_file_and_misses_a_changed_one(old_models, cache):
    old_model = old_models[0]
    first, hit = digest(old_model)
    assert not hit and len(first) == 32
    assert digest(old_model) == (first, True)
    key = source_key(old_model)
    st = os.stat(old_model)
    data = bytearray(open(old_model, "rb").read())
    data[-5] ^= 0x01  # one byte of the weights, same size
    try:
        with open(old_model, "r+b") as f:
            f.write(data)
        os.utime(old_model, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime forced back: the ctime still moves
        assert os.stat(old_model).st_mtime_ns == st.st_mtime_ns and os.stat(old_model).st_size == st.st_size
        changed, hit = digest(old_model)
        assert changed != first and not hit
        assert source_key(old_model) != key
    finally:
        data[-5] ^= 0x01
        with open(old_model, "r+b") as f:
            f.write(data)


def test_a_fresh_file_is_not_memoized(tmp_path, cache):
    src = write_model(tmp_path / "net.onnx")
    assert not digest(src)[1] and not digest(src)[1]  # changed within 2 s: hashed each time


def memo_entries(cache_dir):
    found = []
    for root, _, files in os.walk(cache_dir / "objects"):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                if b"irm-stat-memo" in f.read():
                    found.append(path)
    return found


def test_a_corrupt_or_unreadable_memo_is_ignored(tmp_path, old_models, cache, monkeypatch):
    old_model = old_models[1]
    want, _ = digest(old_model)
    assert digest(old_model) == (want, True)
    compile_(old_model, tmp_path / "a.so")
    (entry,) = memo_entries(cache)
    with open(entry, "r+b") as f:  # one digit of the digest flipped: its check fails
        body = bytearray(f.read())
        body[-3] = ord("0") if body[-3] != ord("0") else ord("1")
        f.seek(0)
        f.write(body)
    assert digest(old_model) == (want, False)  # hashed again, and memoized again
    assert digest(old_model) == (want, True)
    os.unlink(entry)
    os.mkdir(entry)  # a memo that cannot be read (nor replaced)
    assert digest(old_model) == (want, False)
    calls = count_imports(monkeypatch)
    again = compile_(old_model, tmp_path / "b.so")
    assert again.reused and calls == []


def test_a_bad_argument_is_reported_on_a_warm_call_too(tmp_path, cache):
    src = write_model(tmp_path / "net.onnx")
    compile_(src, tmp_path / "a.so")
    with pytest.raises((ValueError, TypeError), match="jobs"):
        compile_(src, tmp_path / "b.so", jobs=-1)


def test_errors_come_from_the_import(tmp_path, cache):
    with pytest.raises(RuntimeError, match="missing.onnx"):
        digest(tmp_path / "missing.onnx")
    with pytest.raises(FileNotFoundError):  # the key is not taken: from_onnx says what is wrong
        compile_(tmp_path / "missing.onnx", tmp_path / "a.so")
    (tmp_path / "empty.onnx").write_bytes(b"")
    with pytest.raises(ValueError, match="is empty"):
        compile_(tmp_path / "empty.onnx", tmp_path / "a.so")
    assert not os.path.exists(tmp_path / "a.so")


def test_a_model_with_external_data_is_not_reused(tmp_path, cache):
    src = write_model(tmp_path / "net.onnx")  # its weights then go to net.data, which the key does not read
    onnx.save_model(onnx.load(src), src, save_as_external_data=True, location="net.data", size_threshold=0)
    x = np.ones((2, 8), np.float32)
    for lib in ("a.so", "b.so"):
        got = compile_(src, tmp_path / lib)
        assert not got.reused
        np.testing.assert_allclose(run(got, x), np.maximum(x + W, 0) * x, rtol=1e-6)


def test_a_file_of_the_same_model_takes_the_model_level_entry(tmp_path, cache, monkeypatch):
    src = write_model(tmp_path / "net.onnx")
    compile_(src, tmp_path / "a.so")
    other = write_model(tmp_path / "other.onnx", doc="another producer's note")  # other bytes, the same module
    calls = count_imports(monkeypatch)
    builds = []
    real_build = irm.BuildResult._built

    def counted(self):
        builds.append(1)
        return real_build(self)

    monkeypatch.setattr(irm.BuildResult, "_built", counted)
    first = compile_(other, tmp_path / "b.so")
    assert not first.reused and calls == [1] and builds == []  # imported, the library taken by the model key
    again = compile_(other, tmp_path / "c.so")  # stored under its source key without building
    assert again.reused and calls == [1] and builds == []
    x = np.ones((2, 8), np.float32)
    np.testing.assert_allclose(run(again, x), np.maximum(x + W, 0) * x, rtol=1e-6)
