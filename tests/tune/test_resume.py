"""Resume after SIGINT: a tuning run interrupted once the database has a
measurement, then run again, measures no candidate twice (but the
confirmation's) and ends with the whole budget. Waits on the database's
rows, not on a time."""
import collections
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TRIALS = 12


def count(path):
    if not os.path.exists(path):
        return 0
    try:
        with sqlite3.connect("file:%s?mode=ro" % path, uri=True) as con:
            return con.execute("SELECT count(*) FROM measurements").fetchone()[0]
    except sqlite3.OperationalError:  # not made yet
        return 0


def knobs(path):
    with sqlite3.connect(path) as con:
        return con.execute("SELECT w.shapes, c.knobs FROM measurements m JOIN candidates c ON m.candidate_id = c.id "
                           "JOIN workloads w ON c.workload_id = w.id").fetchall()


def interrupt_when_measured(command, db):
    """Starts command, sends it SIGINT once db has a measurement; its exit
    status and stderr."""
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while count(db) < 1 and child.poll() is None:
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return child.returncode, err.decode()


def test_resume_after_sigint(tmp_path):
    db = str(tmp_path / "tune.db")
    script = [sys.executable, os.path.join(HERE, "synthetic.py"), db, str(TRIALS)]
    status, err = interrupt_when_measured(script + ["0.1"], db)
    first = count(db)
    assert first >= 1
    if first < 2 * TRIALS:  # interrupted mid-run (else the run beat the signal: nothing to resume)
        assert status == 130, err
    subprocess.run(script + ["0"], check=True, timeout=60)
    rows = collections.Counter(knobs(db))
    assert len(rows) == 2 * TRIALS
    # no candidate measured twice but by the confirmation, each to its count
    # (the default rule and the best record, 3 times)
    repeated = sorted(knobs for (_, knobs), n in rows.items() if n > 1)
    assert all(rows[key] == 3 for key in rows if rows[key] > 1), rows
    assert repeated.count("{}") == 2 and len(repeated) == 4, repeated


def test_cli_resume_after_sigint(tmp_path):
    irm_program = os.environ.get("IRM_TEST_PROGRAM")
    if not irm_program:
        pytest.skip("IRM_TEST_PROGRAM (the irm program) not set")
    try:
        import irm.tune_measure  # noqa: F401
    except ImportError:
        pytest.skip("irm.tune_measure (task extraction) is not in this tree")
    # the real extraction and measurement of the example CNN's two workloads
    db = str(tmp_path / "tune.db")
    command = [irm_program, "tune", "cnn", "--db", db, "--trials", "1", "--jobs", "1", "--timeout", "5"]
    status, err = interrupt_when_measured(command, db)
    assert count(db) >= 1
    if status:
        assert "interrupted" in err, err
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = knobs(db)
    assert len(rows) == len(set(rows)) == 2 and "2 workloads tuned into" in done.stdout
