"""irm.tune.tune with LocalRunner and DaskRunner on synthetic tasks and a
synthetic measure (synthetic.py): the search, the runners, the database
writes and resume, without the C measurement."""
import collections
import json
import sqlite3

import pytest

import irm
from irm.tune import LocalRunner, tune
import synthetic

TASKS = synthetic.TASKS


def rows(path):
    with sqlite3.connect(path) as con:
        return con.execute("SELECT w.shapes, c.knobs, m.error FROM measurements m JOIN candidates c ON "
                           "m.candidate_id = c.id JOIN workloads w ON c.workload_id = w.id").fetchall()


def assert_only_confirmations_repeat(path, need=3):
    """Only the default rule and each workload's best record are measured
    more than once, each need times (the confirmation)."""
    db = irm.tune.Database(path)
    repeated = collections.Counter((shapes, knobs) for shapes, knobs, _ in rows(path))
    for (shapes, knobs), n in repeated.items():
        if n > 1:
            best = db.best("conv2d_nchwc", shapes, "float32", "c", "sse2")
            assert knobs in ("{}", best["knobs"]) and n == need, (shapes, knobs, n)


def test_tune_local_in_process_and_resume(tmp_path):
    db = tmp_path / "tune.db"
    lines = []
    got = tune(None, "c", database=db, trials=12, runner=LocalRunner(jobs=1), tasks=TASKS,
               measure=synthetic.measure, progress=lines.append)
    assert [s["trials"] for s in got] == [12, 12] and len(lines) == 2
    # the best beat the default rule: it and the default were measured twice more
    assert [s["confirmed"] for s in got] == [4, 4] and [s["best_measurements"] for s in got] == [3, 3]
    first = rows(db)
    assert len(first) == 24 + 8 and len(set(first)) == 24
    assert_only_confirmations_repeat(db)
    errors = sum(1 for r in first if r[2])
    assert sum(s["errors"] for s in got) == errors
    assert all(s["gflops"] == pytest.approx(2e6 / s["best_seconds"] / 1e9) for s in got)
    # the same budget again: nothing measured; a larger one: only new candidates
    again = tune(None, "c", database=db, trials=12, runner=LocalRunner(jobs=1), tasks=TASKS,
                 measure=synthetic.measure)
    assert [s["measured"] + s["confirmed"] for s in again] == [0, 0] and len(rows(db)) == 32
    more = tune(None, "c", database=db, trials=20, runner=LocalRunner(jobs=1), tasks=TASKS,
                measure=synthetic.measure)
    assert [s["measured"] for s in more] == [8, 8]
    final = rows(db)
    assert len(final) == 40 + 8 + sum(s["confirmed"] for s in more) and len(set(final)) == 40
    assert_only_confirmations_repeat(db)
    best = irm.tune.Database(db).best("conv2d_nchwc", '{"ic":8}', "float32", "c", "sse2")
    assert best["found"] and best["mean"] == pytest.approx(more[0]["best_seconds"])
    assert json.loads(best["knobs"]) == more[0]["best_knobs"] and best["measurements"] == 3


def test_tune_deterministic_and_pool(tmp_path):
    one = tune(None, "c", database=tmp_path / "a.db", trials=10, runner=LocalRunner(jobs=1), tasks=TASKS[:1],
               measure=synthetic.measure, seed=4)
    runner = LocalRunner(jobs=2)
    try:
        two = tune(None, "c", database=tmp_path / "b.db", trials=10, runner=runner, tasks=TASKS[:1],
                   measure=synthetic.measure, seed=4)
    finally:
        runner.close()
    assert len(rows(tmp_path / "b.db")) == 10 + two[0]["confirmed"]
    # batches of 2 propose differently from batches of 1, but each run is repeatable
    assert two[0]["trials"] == 10 and one[0]["trials"] == 10
    again = tune(None, "c", database=tmp_path / "c.db", trials=10, runner=LocalRunner(jobs=1), tasks=TASKS[:1],
                 measure=synthetic.measure, seed=4)
    assert sorted(rows(tmp_path / "a.db")) == sorted(rows(tmp_path / "c.db"))
    assert again[0]["best_knobs"] == one[0]["best_knobs"]


def test_tune_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="trials must be at least 1"):
        tune(None, "c", database=tmp_path / "x.db", trials=0, tasks=TASKS, measure=synthetic.measure)
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        LocalRunner(jobs=0)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"junk" * 100)
    with pytest.raises(ValueError, match="not a readable tuning database"):
        tune(None, "c", database=junk, trials=4, tasks=TASKS, measure=synthetic.measure)


def test_seconds_budget(tmp_path):
    got = tune(None, "c", database=tmp_path / "t.db", trials=30, seconds=0, runner=LocalRunner(jobs=1),
               tasks=TASKS, measure=synthetic.measure)
    assert [s["measured"] for s in got] == [0, 0]


def test_resume_ignores_records_of_another_space(tmp_path):
    db = irm.tune.Database(tmp_path / "o.db")
    task = TASKS[0]
    wid = db.add_workload(task["family"], task["workload"], "float32", task["target"], task["features"])
    db.add_measurement(wid, '{"ow_tile":99}', 1e-6)  # no candidate of today's space
    got = tune(None, "c", database=tmp_path / "o.db", trials=5, runner=LocalRunner(jobs=1), tasks=[task],
               measure=synthetic.measure)
    assert got[0]["measured"] == 5 and got[0]["best_seconds"] > 1e-6


def test_default_rule_is_the_first_trial(tmp_path):
    only = tune(None, "c", database=tmp_path / "d.db", trials=1, runner=LocalRunner(jobs=1), tasks=TASKS[:1],
                measure=synthetic.measure)
    assert only[0]["best_knobs"] == {} and only[0]["default_seconds"] == synthetic.seconds({})
    assert [k for _, k, _ in rows(tmp_path / "d.db")] == ["{}"]
    more = tune(None, "c", database=tmp_path / "d.db", trials=40, runner=LocalRunner(jobs=1), tasks=TASKS[:1],
                measure=synthetic.measure)
    assert more[0]["measured"] == 39 and more[0]["best_seconds"] < synthetic.seconds({})
