"""irm.tune.tune end to end on the example CNN: the real task extraction
and measurement (irm.tune_measure) through a LocalRunner pool, the
database then applied by a build."""
import pytest

import irm


def test_tune_example_cnn_and_apply(tmp_path):
    try:
        from irm import tune_measure  # noqa: F401
    except ImportError:
        pytest.skip("irm.tune_measure (task extraction) is not in this tree")
    db = tmp_path / "tune.db"
    mod = irm.ir.example_model()
    lines = []
    runner = irm.tune.LocalRunner(jobs=2)
    try:
        got = irm.tune.tune([mod, mod], "c", database=db, trials=2, runner=runner, progress=lines.append,
                            measure_options={"timeout": 5.0, "repeat": 2, "min_repeat_ms": 1})
    finally:
        runner.close()
    # the two modules' shared workloads tuned once
    assert sorted(s["family"] for s in got) == ["conv2d_nchwc", "winograd_nchwc"] and len(lines) == 2
    assert all(s["trials"] == 2 and s["errors"] == 0 and s["best_seconds"] > 0 for s in got)
    # a build reading the database applies a record to each of the two kernels
    path = str(tmp_path / "lib.so")
    irm.build(mod.with_attr("tune.database", str(db)), "c").export_library(path)
    schedules = irm.runtime.load(path).metadata["schedules"]
    tuned = sorted(s["kind"] for s in schedules if s.get("tuned"))
    assert tuned == ["conv2d_nchwc", "winograd_nchwc"], schedules
