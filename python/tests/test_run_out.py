"""Runs into the caller's arrays (docs/runtime.md, docs/graph.md):
Module.run(..., out=...) for aot and graph libraries, its errors, and
GraphModule.set_output_zero_copy / set_input_zero_copy."""
import pytest

import irm

np = pytest.importorskip("numpy")  # Debian's python3-numpy; the package itself needs none

TWO_OUTPUTS = '''#[version = "irm-0.1"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {
  %0 = add(%x, %w);
  %1 = nn.relu(%0);
  %2 = multiply(%1, %x);
  %3 = sum(%2, axis=[1]);
  %4 = (%1, %3);
  %4
}
'''

ONE_OUTPUT = '''#[version = "irm-0.1"]
def @main(%x: Tensor[(2, 8), float32], %w: Tensor[(2, 8), float32]) {
  %0 = add(%x, %w);
  %1 = nn.relu(%0);
  %1
}
'''

W = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)


def build(tmp_path, text, executor, runtime):
    result = irm.build(irm.ir.parse(text), "c", executor=irm.Executor(executor), runtime=irm.Runtime(runtime),
                       params={"w": W}, mod_name="net")
    result.export_library(tmp_path / "net.so")
    return irm.runtime.load(tmp_path / "net.so")


def inputs(seed):
    return np.random.default_rng(seed).standard_normal((2, 8)).astype(np.float32)


@pytest.mark.parametrize("executor,runtime", [("aot", "crt"), ("aot", "cpp"), ("graph", "cpp")])
def test_run_into_numpy_and_tensors(tmp_path, executor, runtime):
    module = build(tmp_path, TWO_OUTPUTS, executor, runtime)
    y0, y1 = np.full((2, 8), 7, np.float32), np.full((2,), 7, np.float32)
    for seed in range(3):  # repeated runs into the same arrays
        x = inputs(seed)
        want = module.run(x)
        out = (y0, y1)
        assert module.run(x, out=out) is out
        np.testing.assert_array_equal(y0, want[0])
        np.testing.assert_array_equal(y1, want[1])
    # a list, and by name
    x = inputs(9)
    want = module.run(x)
    out = [y0, y1]
    assert module.run(x=x, out=out) is out
    np.testing.assert_array_equal(y1, want[1])
    # irm tensors are written in place
    t0, t1 = irm.tensor(np.zeros((2, 8), np.float32)), irm.tensor(np.zeros((2,), np.float32))
    module.run(x, out=(t0, t1))
    np.testing.assert_array_equal(t0.numpy(), want[0])
    np.testing.assert_array_equal(t1.numpy(), want[1])


def test_run_into_one_output(tmp_path):
    module = build(tmp_path, ONE_OUTPUT, "aot", "crt")
    x = inputs(1)
    y = np.empty((2, 8), np.float32)
    assert module.run(x, out=y) is y
    np.testing.assert_array_equal(y, module.run(x))


def test_run_into_errors_change_nothing(tmp_path):
    module = build(tmp_path, TWO_OUTPUTS, "aot", "crt")
    x = inputs(2)
    y0, y1 = np.full((2, 8), 7, np.float32), np.full((2,), 7, np.float32)

    def unchanged():
        assert (y0 == 7).all() and (y1 == 7).all()

    with pytest.raises(ValueError, match="out has 1 array; module 'net' has 2 outputs"):
        module.run(x, out=y0)
    with pytest.raises(ValueError, match=r"out for output 'output1': expected shape \(2,\), got \(3,\)"):
        module.run(x, out=(y0, np.zeros(3, np.float32)))
    unchanged()
    with pytest.raises(TypeError, match="out for output 'output1': expected dtype float32, got float64"):
        module.run(x, out=(y0, np.zeros(2)))
    unchanged()
    wide = np.zeros((2, 16), np.float32)
    with pytest.raises(ValueError, match="output 'output0': the array is not C-contiguous"):
        module.run(x, out=(wide[:, ::2], y1))
    frozen = np.zeros((2,), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="output 'output1': the array is read-only"):
        module.run(x, out=(y0, frozen))
    with pytest.raises(TypeError, match="expected a numpy array or irm Tensor, got list"):
        module.run(x, out=(y0, [0.0, 0.0]))
    unchanged()
    # an output that is an input (numpy inputs are shared, not copied)
    with pytest.raises(ValueError, match="output 'output0' of module 'net' shares memory with input 'x'"):
        module.run(x, out=(x, y1))
    # an irm tensor of the wrong shape: the library names the output
    with pytest.raises(ValueError, match=r"output 'output1' of module 'net': expected shape \(2,\), got \(4,\)"):
        module.run(x, out=(y0, irm.tensor(np.zeros(4, np.float32))))
    unchanged()


def test_inputs_of_every_kind(tmp_path):
    module = build(tmp_path, ONE_OUTPUT, "aot", "crt")
    x = inputs(6)
    want = module.run(irm.tensor(x))
    frozen = x.copy()
    frozen.flags.writeable = False  # numpy does not export read-only arrays: copied
    np.testing.assert_array_equal(module.run(frozen), want)
    np.testing.assert_array_equal(module.run(np.asfortranarray(x)), want)  # not C-contiguous: copied
    np.testing.assert_array_equal(module.run(x.tolist()), want)
    with pytest.raises(ValueError, match="expected dtype float32, got float64"):
        module.run(x.astype(np.float64))


def test_graph_module_set_output_zero_copy(tmp_path):
    gm = irm.runtime.GraphModule(build(tmp_path, TWO_OUTPUTS, "graph", "cpp"))
    x = inputs(3)
    gm.set_input("x", x)
    gm.run()
    want = [gm.get_output(0).copy(), gm.get_output(1).copy()]
    y1 = np.zeros((2,), np.float32)
    gm.set_output_zero_copy(1, y1)
    gm.run()
    assert gm.get_output(1) is y1
    np.testing.assert_array_equal(y1, want[1])
    np.testing.assert_array_equal(gm.get_output(0), want[0])
    x2 = inputs(4)
    gm.set_input_zero_copy("x", x2)
    gm.run()  # later runs write into the same array
    np.testing.assert_array_equal(y1, gm.module.run(x2)[1])
    x2 *= 2  # a zero-copy input is read when the run happens
    gm.run()
    np.testing.assert_array_equal(y1, gm.module.run(x2)[1])
    with pytest.raises(ValueError, match="expected shape"):
        gm.set_output_zero_copy(0, np.zeros((8, 2), np.float32))
    with pytest.raises(IndexError, match="out of range"):
        gm.set_output_zero_copy(2, y1)
