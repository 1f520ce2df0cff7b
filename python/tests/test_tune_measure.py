"""irm.tune_measure (docs/tuning.md, "Tasks and measurement"): tasks of
the example CNN, a candidate measured, a failing one as a result, a task
sent as text, bad arguments."""
import pytest

import irm
from irm import tune_measure


@pytest.fixture(scope="module")
def conv_task():
    tasks = tune_measure.extract_tasks(irm.ir.example_model("cnn"), "c")
    assert [t.family for t in tasks] == ["winograd_nchwc", "conv2d_nchwc"]
    return tasks[1]


def test_task_fields(conv_task):
    t = conv_task
    assert t.size == 32 and t.calls == 1 and t.op == "nn.contrib_conv2d_NCHWc"
    assert t.knobs["order"] == ["oc_outer", "row_outer"] and t.knobs["ow_tile"] == list(range(1, 9))
    assert t.key == "|".join([t.family, t.workload, "float32", t.target, t.features])
    assert isinstance(t["task"], irm.ir.IRModule)


def test_measure(conv_task, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    fine = tune_measure.measure(conv_task, {"ow_tile": 4, "order": "row_outer"}, repeat=2, min_repeat_ms=1)
    assert fine["error"] == "" and fine["error_kind"] == "" and fine["mean"] > 0 and fine["spread"] >= 0
    assert set(fine) == {"mean", "spread", "error", "error_kind", "compile_seconds", "run_seconds", "compiler"}
    illegal = tune_measure.measure(conv_task, {"ow_tile": 40})
    assert illegal["error_kind"] == "illegal" and "ow_tile 40 is not one of" in illegal["error"]
    # the task as text, as a remote runner gets it
    again = irm.ir.parse(irm.ir.text(conv_task["task"]))
    assert tune_measure.measure(again, {}, repeat=1, min_repeat_ms=1)["error_kind"] == ""
    # warm: the weights stay in the caches between runs
    warm = tune_measure.measure(conv_task, {}, repeat=1, min_repeat_ms=1, flush=False)
    assert warm["error"] == "" and warm["mean"] > 0
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments(conv_task):
    with pytest.raises(TypeError, match="candidate must be a dict"):
        tune_measure.measure(conv_task, "[1]")
    with pytest.raises(ValueError, match="no tuning task"):
        tune_measure.measure(irm.ir.example_model("cnn"), {})
    with pytest.raises(ValueError, match="option 'repeat' must be at least 1"):
        tune_measure.measure(conv_task, {}, repeat=0)
