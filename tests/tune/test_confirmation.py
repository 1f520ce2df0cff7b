"""The confirmation after a workload's search (docs/tuning.md, "The best
record"): a candidate measured fast once by luck is measured again and
loses its place; a gain within IRM_TUNE_DB_MIN_GAIN keeps the default
rule; a candidate failing when measured again is never applied. Scripted
times (synthetic.measure_scripted), no C side."""
import collections
import sqlite3

import irm
from irm.tune import LocalRunner, tune
import synthetic

TASK = {"family": "conv2d_nchwc", "workload": '{"ic":4}', "knobs": {"ow_tile": [2, 3, 5]}, "target": "c",
        "features": "sse2", "key": "k4", "task": "task 4"}
MS = 1e-3


def run(tmp_path, script, name):
    db = tmp_path / (name + ".db")
    # 4 trials: the default rule and the whole space, in the search's order
    got = tune(None, "c", database=db, trials=4, runner=LocalRunner(jobs=1), tasks=[TASK], progress=True,
               measure=synthetic.measure_scripted, measure_options={"script": script, "script_id": name})
    with sqlite3.connect(db) as con:
        counts = collections.Counter(k for (k,) in con.execute("SELECT c.knobs FROM measurements m JOIN candidates c "
                                                               "ON m.candidate_id = c.id"))
    best = irm.tune.Database(db).best(TASK["family"], TASK["workload"], "float32", "c", "sse2")
    return got[0], counts, best


def test_a_lucky_candidate_loses_its_place(tmp_path, capsys):
    script = {"{}": [1.0 * MS], '{"ow_tile":2}': [0.5 * MS, 1.1 * MS], '{"ow_tile":3}': [0.99 * MS],
              '{"ow_tile":5}': [0.95 * MS]}
    summary, counts, best = run(tmp_path, script, "lucky")
    # ow_tile 2 led twice (0.5, then the median 0.8) and lost at its third
    # measurement (1.1); ow_tile 5, 5% faster every time, is applied
    assert summary["best_knobs"] == {"ow_tile": 5} and best["knobs"] == '{"ow_tile":5}'
    assert best["measurements"] == 3 and abs(best["mean"] - 0.95 * MS) < 1e-12
    assert counts == {"{}": 3, '{"ow_tile":2}': 3, '{"ow_tile":3}': 1, '{"ow_tile":5}': 3}
    assert summary["measured"] == 4 and summary["confirmed"] == 6
    assert summary["default_seconds"] == 1.0 * MS and summary["best_measurements"] == 3
    line = capsys.readouterr().out
    assert "4 trials, best 0.9500 ms (0.950x the default rule, median of 3), 0 errors" in line, line


def test_a_gain_within_the_noise_keeps_the_default_rule(tmp_path, capsys):
    script = {"{}": [1.0 * MS], '{"ow_tile":2}': [1.2 * MS], '{"ow_tile":3}': [0.99 * MS],
              '{"ow_tile":5}': [1.5 * MS]}
    summary, counts, best = run(tmp_path, script, "noise")
    assert summary["best_knobs"] == {} and best["knobs"] == "{}"
    # the default rule leads from the start: nothing to confirm
    assert summary["confirmed"] == 0 and set(counts.values()) == {1}
    assert "best 1.0000 ms (the default rule)" in capsys.readouterr().out


def test_a_candidate_failing_when_measured_again_is_never_applied(tmp_path):
    script = {"{}": [1.0 * MS], '{"ow_tile":2}': [0.5 * MS, None], '{"ow_tile":3}': [0.9 * MS],
              '{"ow_tile":5}': [1.5 * MS]}
    summary, counts, best = run(tmp_path, script, "crash")
    assert summary["best_knobs"] == {"ow_tile": 3} and best["measurements"] == 3
    assert counts['{"ow_tile":2}'] == 2 and summary["errors"] == 1


def test_confirmations_one_measures_nothing_again(tmp_path):
    db = tmp_path / "one.db"
    script = {"{}": [1.0 * MS], '{"ow_tile":2}': [0.5 * MS, 1.1 * MS], '{"ow_tile":3}': [0.99 * MS],
              '{"ow_tile":5}': [0.95 * MS]}
    got = tune(None, "c", database=db, trials=4, runner=LocalRunner(jobs=1), tasks=[TASK], confirmations=1,
               measure=synthetic.measure_scripted, measure_options={"script": script, "script_id": "one"})
    assert got[0]["confirmed"] == 0 and got[0]["best_knobs"] == {"ow_tile": 2}
