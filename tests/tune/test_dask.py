"""irm.tune.DaskRunner on an in-process LocalCluster of 2 worker processes
(loopback only): a worker killed by its own job mid-run (the run completes
and the database has every candidate), and the example CNN measured
on the workers from its tasks' IR text."""
import sqlite3

import pytest

import irm
from irm.tune import DaskRunner, tune
import synthetic

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address="127.0.0.1:0", silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def measured(path):
    with sqlite3.connect(path) as con:
        return con.execute("SELECT c.knobs, m.error FROM measurements m JOIN candidates c "
                           "ON m.candidate_id = c.id").fetchall()


def test_dask_runner_survives_a_killed_worker(tmp_path, client):
    tasks = [{"family": "conv2d_nchwc", "workload": '{"ic":8}', "knobs": synthetic.KNOBS, "target": "c",
              "features": "", "key": "k", "task": "task"}]
    marker = tmp_path / "killed"
    runner = DaskRunner(client=client)
    assert runner.jobs == 2
    got = tune(None, "c", database=tmp_path / "d.db", trials=8, runner=runner, tasks=tasks,
               measure=synthetic.measure_killing_once, measure_options={"marker": str(marker)})
    assert marker.exists()  # a worker did die
    knobs = [k for k, _ in measured(tmp_path / "d.db")]
    # every candidate once, the confirmation's (the best and the default rule) more
    assert got[0]["trials"] == 8 and len(set(knobs)) == 8 and len(knobs) == 8 + got[0]["confirmed"]


def test_dask_runner_measures_real_tasks(tmp_path, client):
    try:
        from irm import tune_measure  # noqa: F401
    except ImportError:
        pytest.skip("irm.tune_measure (task extraction) is not in this tree")
    got = tune(irm.ir.example_model(), "c", database=tmp_path / "r.db", trials=1, runner=DaskRunner(client=client),
               measure_options={"timeout": 5.0, "repeat": 2, "min_repeat_ms": 1})
    rows = measured(tmp_path / "r.db")
    assert len(got) == 2 and len(rows) == 2 and all(error is None for _, error in rows), rows


def test_dask_runner_arguments():
    with pytest.raises(ValueError, match="one of them"):
        DaskRunner()
