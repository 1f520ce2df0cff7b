"""irm.tune.DaskRunner on an in-process LocalCluster of 2 worker processes
(loopback only), one of them killed by its own job mid-run: the run
completes and the database has every candidate once."""
import sqlite3

import pytest

from irm.tune import DaskRunner, tune
import synthetic

distributed = pytest.importorskip("distributed")


def test_dask_runner_survives_a_killed_worker(tmp_path):
    tasks = [{"family": "conv2d_nchwc", "workload": '{"ic":8}', "knobs": synthetic.KNOBS, "target": "c",
              "features": "", "key": "k", "task": "task"}]
    marker = tmp_path / "killed"
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=50) as cluster, \
            distributed.Client(cluster) as client:
        runner = DaskRunner(client=client)
        assert runner.jobs == 2
        got = tune(None, "c", database=tmp_path / "d.db", trials=8, runner=runner, tasks=tasks,
                   measure=synthetic.measure_killing_once, measure_options={"marker": str(marker)})
    assert marker.exists()  # a worker did die
    with sqlite3.connect(tmp_path / "d.db") as con:
        knobs = [r[0] for r in con.execute("SELECT c.knobs FROM measurements m JOIN candidates c "
                                           "ON m.candidate_id = c.id")]
    assert got[0]["trials"] == 8 and len(knobs) == 8 and len(set(knobs)) == 8


def test_dask_runner_arguments():
    with pytest.raises(ValueError, match="one of them"):
        DaskRunner()
