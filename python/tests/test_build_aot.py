"""The aot executor from Python: irm.build with the RFC's call shape,
BuildResult.write / export_library, irm.runtime.load and Module.run
against the reference evaluator, and the errors on the way."""
import os
import re

import pytest

import irm

np = pytest.importorskip("numpy")  # Debian's python3-numpy; the package itself needs none

ELEMWISE = '''#[version = "irm-0.1"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {
  %0 = add(%x, %w);
  %1 = nn.relu(%0);
  %2 = multiply(%1, %x);
  %3 = (%2, %1);
  %3
}
'''

CONFIGS = [
    ({"interface-api": "c", "unpacked-api": True}, "crt"),
    ({"interface-api": "packed", "unpacked-api": False}, "crt"),
    ({"interface-api": "packed", "unpacked-api": False}, "cpp"),
]


def evaluate(mod, inputs):
    out = irm.get_global_func("ir.Evaluate")(mod, "main", [irm.tensor(a) for a in inputs])
    return [t.numpy() for t in out] if isinstance(out, irm.Array) else [out.numpy()]


@pytest.mark.parametrize("options,runtime", CONFIGS)
@pytest.mark.parametrize("link_params", [True, False])
def test_build_export_load_run(tmp_path, options, runtime, link_params):
    mod = irm.ir.parse(ELEMWISE)
    w = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)
    result = irm.build(mod, "c", executor=irm.Executor("aot", dict(options, **{"link-params": link_params})),
                       runtime=irm.Runtime(runtime), params={"w": w}, mod_name="net")
    assert ("net.params" in result.artifacts) == (not link_params)
    # the artifacts print, a binary params file escaped (\xNN), as UTF-8 text
    assert isinstance(repr(result.artifacts), str) and "tvmgen_net.c" in repr(result.artifacts)
    assert ("tvmgen_net.h" in result.artifacts) == (options["interface-api"] == "c")
    result.write(tmp_path / "src")
    assert (tmp_path / "src" / "tvmgen_net.c").exists()
    result.export_library(tmp_path / "net.so")
    module = irm.runtime.load(tmp_path / "net.so")
    assert module.inputs == [{"name": "x", "shape": [2, 8], "dtype": "float32"}]
    assert [o["name"] for o in module.outputs] == ["output0", "output1"]
    x = np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32)
    got = module.run(x)
    want = evaluate(mod, [x, w])
    assert len(got) == 2
    for g, e in zip(got, want):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
    named = module.run(x=x)
    np.testing.assert_allclose(named[0], got[0])


def test_run_errors(tmp_path):
    mod = irm.ir.parse(ELEMWISE)
    result = irm.build(mod, "c", executor=irm.Executor("aot", {"interface-api": "c", "unpacked-api": True}),
                       runtime="crt", params={"w": np.ones((2, 8), np.float32)}, mod_name="net")
    result.export_library(str(tmp_path / "net.so"))
    module = irm.runtime.load(str(tmp_path / "net.so"))
    with pytest.raises(ValueError, match=r"input 'x' of module 'net': expected shape \(2, 8\), got \(8, 2\)"):
        module.run(np.ones((8, 2), np.float32))
    with pytest.raises(ValueError, match="expected dtype float32, got int32"):
        module.run(np.ones((2, 8), np.int32))
    with pytest.raises(TypeError, match="unknown input 'y'"):
        module.run(y=np.ones((2, 8), np.float32))
    with pytest.raises(RuntimeError, match="cannot load the library"):
        irm.runtime.load(str(tmp_path / "missing.so"))


def test_export_failure_shows_the_command(tmp_path):
    mod = irm.ir.parse(ELEMWISE)
    result = irm.build(mod, "llvm -mattr=+nosuchfeature",
                       executor=irm.Executor("aot", {"interface-api": "c", "unpacked-api": True}), runtime="crt",
                       mod_name="net")
    cc = re.escape(os.environ.get("CC", "cc").strip() or "cc")  # the sanitizer build's suite sets CC
    with pytest.raises(RuntimeError,
                       match="(?s)the compiler failed on 'tvmgen_net__.*command: cd .* && %s .*-mnosuchfeature" % cc):
        result.export_library(str(tmp_path / "net.so"))


def test_export_jobs_and_cache(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("IRM_CACHE_DIR", str(tmp_path / "cache"))
    mod = irm.ir.parse(ELEMWISE)
    w = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)
    result = irm.build(mod, "c", executor=irm.Executor("aot", {"interface-api": "c", "unpacked-api": True}),
                       runtime="crt", params={"w": w}, mod_name="net")
    x = np.ones((2, 8), np.float32)
    want = evaluate(mod, [x, w])
    for jobs, cache in ((1, False), (2, True), (None, True), (None, None)):
        result.export_library(tmp_path / "net.so", jobs=jobs, cache=cache)
        np.testing.assert_allclose(irm.runtime.load(tmp_path / "net.so").run(x)[0], want[0], rtol=1e-6)
    assert any((tmp_path / "cache" / "objects").iterdir())  # stored, then taken
    assert "compiling" not in capfd.readouterr().err  # no progress when stderr is no terminal
    with pytest.raises(ValueError, match="jobs must be from 0"):
        result.export_library(tmp_path / "net.so", jobs=-1)


def test_usmp_algorithm_from_the_pass_context():
    mod = irm.ir.parse(ELEMWISE)
    with irm.PassContext(config={"tir.usmp.enable": True, "tir.usmp.algorithm": "greedy_by_sise"}):
        with pytest.raises(ValueError, match="did you mean 'greedy_by_size'"):
            irm.build(mod, "c", executor=irm.Executor("aot", {"interface-api": "c", "unpacked-api": True}),
                      runtime="crt", mod_name="net")


@pytest.mark.parametrize("executor,runtime", [("aot", "crt"), ("graph", "cpp")])
def test_an_index_out_of_range_names_op_index_range_and_kernel(tmp_path, executor, runtime):
    # issue 39, D9: the kernel's own words reach RuntimeError
    mod = irm.ir.parse('''#[version = "irm-0.1"]
def @main(%x: Tensor[(5, 2), float32], %i: Tensor[(3), int64]) {
  %0 = take(%x, %i, axis=0);
  %0
}
''')
    result = irm.build(mod, "c", executor=irm.Executor(executor), runtime=runtime, mod_name="tk")
    result.export_library(tmp_path / "tk.so")
    module = irm.runtime.load(tmp_path / "tk.so")
    x = np.ones((5, 2), np.float32)
    np.testing.assert_allclose(module.run(x, np.array([0, -5, 4])), np.ones((3, 2), np.float32))
    with pytest.raises(RuntimeError, match=r"take: index 7 is out of range \[-5, 5\) on axis 0 "
                                           r"\(kernel tvmgen_tk_fused_take"):
        module.run(x, np.array([1, 7, 0]))
