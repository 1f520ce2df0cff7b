"""Threads from Python (docs/threads.md): irm.runtime.load(num_threads=...)
and Module.num_threads with IRM_NUM_THREADS and the Runtime's num-threads,
the errors for bad counts, GraphModule's num_threads, and one module run
from two Python threads at once (the run releases the GIL)."""
import os
import sys
import threading

import pytest

import irm

np = pytest.importorskip("numpy")  # Debian's python3-numpy; the package itself needs none

# one conv above the kernels' split threshold, so the cpp build calls the pool
CONV = '''#[version = "irm-0.1"]
def @main(%x: Tensor[(1, 16, 32, 32), float32], %w: Tensor[(32, 16, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1]);
  %1 = nn.relu(%0);
  %1
}
'''
W = np.random.default_rng(1).standard_normal((32, 16, 3, 3)).astype(np.float32)


def export(tmp_path_factory, executor, runtime, name):
    path = tmp_path_factory.mktemp(name) / "lib.so"
    result = irm.build(irm.ir.parse(CONV), "c", executor=irm.Executor(executor), runtime=runtime,
                       params={"w": W}, mod_name=name)
    result.export_library(path)
    return path


@pytest.fixture(scope="module")
def libs(tmp_path_factory):
    return {
        "aot": export(tmp_path_factory, "aot", irm.Runtime("cpp", {"num-threads": 2}), "thr_aot"),
        "graph": export(tmp_path_factory, "graph", irm.Runtime("cpp", {"num-threads": 2}), "thr_graph"),
        "crt": export(tmp_path_factory, "aot", irm.Runtime("crt"), "thr_crt"),
    }


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("IRM_NUM_THREADS", raising=False)
    return monkeypatch


def test_num_threads_precedence(libs, no_env):
    aot = libs["aot"]
    assert irm.runtime.load(aot).num_threads == 2  # the Runtime's num-threads
    assert irm.runtime.load(aot, num_threads=3).num_threads == 3
    assert irm.runtime.load(aot, "thr_aot", 5).num_threads == 5
    assert irm.runtime.load(aot, num_threads=0).num_threads == len(os.sched_getaffinity(0))
    no_env.setenv("IRM_NUM_THREADS", "3")
    assert irm.runtime.load(aot).num_threads == 3  # the environment over the option
    assert irm.runtime.load(aot, num_threads=1).num_threads == 1  # the argument over both
    # a crt library runs on the calling thread whatever is asked
    assert irm.runtime.load(libs["crt"]).num_threads == 1
    assert irm.runtime.load(libs["crt"], num_threads=4).num_threads == 1


@pytest.mark.parametrize("bad", ["2", 2.0, True, [2]])
def test_num_threads_type_errors(libs, bad):
    with pytest.raises(TypeError, match="num_threads"):
        irm.runtime.load(libs["aot"], num_threads=bad)


@pytest.mark.parametrize("bad", [-1, 257, 10**12])
def test_num_threads_value_errors(libs, no_env, bad):
    with pytest.raises(ValueError, match="num_threads"):
        irm.runtime.load(libs["aot"], num_threads=bad)


@pytest.mark.parametrize("bad", ["x", "-1", "999"])
def test_bad_environment_is_a_value_error_naming_it(libs, no_env, bad):
    no_env.setenv("IRM_NUM_THREADS", bad)
    with pytest.raises(ValueError, match="IRM_NUM_THREADS='%s'" % bad):
        irm.runtime.load(libs["aot"])
    assert irm.runtime.load(libs["aot"], num_threads=2).num_threads == 2  # an argument does not read it


def test_metadata_records_the_threads(libs):
    meta = irm.runtime.load(libs["aot"]).metadata
    assert (meta["num_threads"], meta["parallel"], meta["thread_affinity"]) == (2, True, False)
    split = meta["schedules"][0]["choices"]["split"]
    assert 1 <= split["chunk"] < split["items"]
    meta = irm.runtime.load(libs["crt"]).metadata
    assert (meta["num_threads"], meta["parallel"]) == (1, False)


def test_graph_module_num_threads(libs, no_env):
    gm = irm.runtime.GraphModule(libs["graph"], num_threads=3)
    assert gm.num_threads == 3
    assert irm.runtime.GraphModule(libs["graph"]).num_threads == 2
    with pytest.raises(TypeError, match="num_threads"):
        irm.runtime.GraphModule(irm.runtime.load(libs["graph"]), num_threads=2)
    with pytest.raises(TypeError, match="num_threads"):
        irm.runtime.GraphModule(libs["graph"], num_threads="2")


def inputs(seed):
    return np.random.default_rng(seed).standard_normal((1, 16, 32, 32)).astype(np.float32)


@pytest.mark.parametrize("executor", ["aot", "graph"])
def test_results_equal_for_every_thread_count(libs, executor):
    x = inputs(3)
    want = irm.runtime.load(libs["crt"]).run(x)
    for n in (1, 2, 3, 8):
        got = irm.runtime.load(libs[executor], num_threads=n).run(x)
        assert np.array_equal(got, want), n


@pytest.mark.parametrize("executor", ["aot", "graph"])
def test_two_python_threads_run_one_module(libs, executor):
    module = irm.runtime.load(libs[executor], num_threads=2)
    xs = [inputs(10 + i) for i in range(2)]
    wants = [module.run(x) for x in xs]
    errors, done = [], [0, 0]

    def work(i):
        try:
            for _ in range(10):
                if not np.array_equal(module.run(xs[i]), wants[i]):
                    errors.append("thread %d: a result differs" % i)
                done[i] += 1
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and done == [10, 10]


def test_a_run_releases_the_gil(libs):
    """With Python's thread switching practically off, another Python thread
    gets the GIL only when a library call releases it: the watcher sees the
    runner inside runtime.ModuleRunInto, called with ready arguments so
    nothing else runs meanwhile (no timing is measured). The runs go on
    until it has (the OS may leave the watcher unscheduled through a few
    runs on a loaded machine: 50 were once not enough under ASan), at most
    2000: a GIL kept through the call is never seen."""
    module = irm.runtime.load(libs["aot"], num_threads=1)
    make_array = irm.get_global_func("ffi.Array")
    ins = make_array(irm.tensor(inputs(4)))
    outs = make_array(irm.tensor(np.zeros((1, 32, 32, 32), dtype=np.float32)))
    run_into = irm.get_global_func("runtime.ModuleRunInto")
    state = {"in_run": False, "finished": False, "seen": 0}

    def watch():
        while not state["finished"]:
            state["seen"] += state["in_run"]
            threading.Event().wait(0.0001)  # gives the GIL back

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        watcher = threading.Thread(target=watch)
        watcher.start()
        for _ in range(2000):
            state["in_run"] = True
            run_into(module._handle, ins, outs)
            state["in_run"] = False
            if state["seen"]:
                break
        state["finished"] = True
        watcher.join()
    finally:
        sys.setswitchinterval(old)
    assert state["seen"] > 0


def concat_source(shape):
    """The generated C of concatenate(x, x, axis=1) of shape, for 2 threads."""
    text = '''#[version = "irm-0.1"]
def @main(%%x: Tensor[%s, float32]) {
  %%0 = concatenate(%%x, %%x, axis=1);
  %%0
}
''' % (shape,)
    result = irm.build(irm.ir.parse(text), "c", executor=irm.Executor("aot"),
                       runtime=irm.Runtime("cpp", {"num-threads": 2}), mod_name="cat")
    return "\n".join(str(v) for k, v in result.artifacts.items() if str(k).endswith(".c"))


def test_concatenate_splits_rows_of_a_useful_size():
    # rows of 96 floats (384 bytes) are copied by rows across threads
    wide = concat_source("(1, 64, 24, 96)")
    assert "irm_parallel_for" in wide and "irm_c < 64" in wide
    # rows of 7 floats (28 bytes) would cost more in memcpy calls: one copy per input
    narrow = concat_source("(1, 512, 7, 7)")
    assert "irm_c <" not in narrow and narrow.count("memcpy(out0 + r * ") == 2
