"""The graph executor from Python (docs/graph.md): irm.build with the
default executor, export_library, irm.runtime.GraphModule with TVM's
method names against the reference evaluator, and its errors."""
import json

import pytest

import irm

np = pytest.importorskip("numpy")  # Debian's python3-numpy; the package itself needs none

TWO_OUTPUTS = '''#[version = "irm-0.1"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {
  %0 = add(%x, %w);
  %1 = nn.relu(%0);
  %2 = multiply(%1, %x);
  %3 = (%2, %1);
  %3
}
'''


def evaluate(mod, inputs):
    out = irm.get_global_func("ir.Evaluate")(mod, "main", [irm.tensor(a) for a in inputs])
    return [t.numpy() for t in out] if isinstance(out, irm.Array) else [out.numpy()]


def example(name):
    return irm.get_global_func("ir.ExampleModel")(name)


@pytest.mark.parametrize("name", ["cnn", "mlp", "residual"])
@pytest.mark.parametrize("link_params", [False, True])
def test_examples(tmp_path, name, link_params):
    mod = example(name)
    result = irm.build(mod, "c", executor=irm.Executor("graph", {"link-params": link_params}),
                       runtime=irm.Runtime("cpp"), mod_name=name)
    assert (name + ".json") in result.artifacts
    assert ((name + ".params") in result.artifacts) == (not link_params)
    graph = json.loads(str(result.artifacts[name + ".json"]))
    assert graph["attrs"]["storage_id"][0] == "list_int"
    result.export_library(tmp_path / "lib.so")
    gm = irm.runtime.GraphModule(irm.runtime.load(tmp_path / "lib.so"))
    assert gm.get_num_inputs() == 1 and gm.get_num_outputs() == 1
    shapes, dtypes = gm.get_input_info()
    data = np.random.default_rng(1).standard_normal(shapes["data"]).astype(np.float32)
    gm.set_input("data", data)
    gm.run()
    got = gm.get_output(0)
    bound = result["module"]  # the weights bound into constants: main takes the data only
    np.testing.assert_allclose(got, evaluate(bound, [data])[0], rtol=1e-4, atol=1e-5)
    gm.run(data=data * 2)  # run(**inputs), as TVM's
    np.testing.assert_allclose(gm.get_output(0), evaluate(bound, [data * 2])[0], rtol=1e-4, atol=1e-5)


def test_two_outputs_by_index_and_name(tmp_path):
    mod = irm.ir.parse(TWO_OUTPUTS)
    w = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)
    result = irm.build(mod, "c", runtime="cpp", params={"w": w}, mod_name="two")
    result.export_library(tmp_path / "two.so")
    gm = irm.runtime.GraphModule(tmp_path / "two.so")
    assert gm.get_num_outputs() == 2
    assert gm.get_input_index("x") == 0
    x = np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)
    gm.set_input(0, x)
    gm.run()
    want = evaluate(mod, [x, w])
    for i in range(2):
        np.testing.assert_allclose(gm.get_output(i), want[i], rtol=1e-5, atol=1e-6)
    assert "two.so" in repr(gm)


def test_errors(tmp_path):
    mod = irm.ir.parse(TWO_OUTPUTS)
    result = irm.build(mod, "c", runtime="cpp", params={"w": np.ones((2, 8), np.float32)}, mod_name="two")
    result.export_library(tmp_path / "two.so")
    gm = irm.runtime.GraphModule(tmp_path / "two.so")
    with pytest.raises(RuntimeError, match="run"):
        gm.get_output(0)
    with pytest.raises(TypeError, match="'x' was never set"):
        gm.run()
    with pytest.raises(ValueError, match="no input named 'w'"):
        gm.set_input("w", np.ones((2, 8), np.float32))
    with pytest.raises(IndexError, match="input 3 out of range"):
        gm.set_input(3, np.ones((2, 8), np.float32))
    gm.set_input("x", np.ones((3, 8), np.float32))
    with pytest.raises(ValueError, match="expected shape"):
        gm.run()
    gm.run(x=np.ones((2, 8), np.float32))
    with pytest.raises(IndexError, match="output 2 out of range"):
        gm.get_output(2)
    aot = irm.build(mod, "c", executor=irm.Executor("aot"), runtime="crt", params={"w": np.ones((2, 8), np.float32)})
    aot.export_library(tmp_path / "aot.so")
    with pytest.raises(ValueError, match="not a graph-executor library"):
        irm.runtime.GraphModule(tmp_path / "aot.so")
