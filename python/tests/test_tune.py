"""irm.tune.Database (docs/tuning.md): the C tuning database through its
globals, read back with Python's own sqlite3, and its errors."""
import sqlite3

import pytest

import irm

CONV = ("conv2d_nchwc", '{"ic":64,"oc":64}', "float32", "llvm -mcpu=x", "avx2,fma")


def test_database_round_trip(tmp_path):
    path = tmp_path / "tune.db"
    db = irm.tune.Database(path)
    assert db.opened_version == 0
    wid = db.add_workload(*CONV)
    assert db.add_workload(*CONV) == wid
    db.add_measurement(wid, '{"ow_tile": 6}', 2e-3, 1e-5, compiler="cc 12")
    db.add_measurement(wid, '{"ow_tile": 4}', 1e-3, 1e-5)
    db.add_measurement(wid, '{"ow_tile": 14}', error="crashed: signal 11")
    best = db.best(*CONV)
    assert best["found"] and best["knobs"] == '{"ow_tile":4}' and best["mean"] == pytest.approx(1e-3)
    other = db.best(*CONV[:4], "sse2")
    assert not other["found"] and "recorded on a CPU with features 'avx2,fma'" in other["reason"]
    assert irm.tune.Database(path, read_only=True).opened_version == 2
    # a plain SQLite file: Python's sqlite3 reads it
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == 2
        assert con.execute("SELECT count(*), count(error) FROM measurements").fetchone() == (3, 1)


def test_database_errors(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database" * 10)
    with pytest.raises(ValueError, match="not a readable tuning database .*file is not a database"):
        irm.tune.Database(junk)
    assert junk.read_bytes() == b"not a database" * 10
    with pytest.raises(ValueError, match="no tuning database"):
        irm.tune.Database(tmp_path / "missing.db", read_only=True)
    db = irm.tune.Database(tmp_path / "tune.db")
    wid = db.add_workload(*CONV)
    with pytest.raises(ValueError, match="knobs must be a JSON object"):
        db.add_measurement(wid, "[1]", 1e-3)


def test_list_tunables():
    found = irm.tune.list_tunables(irm.ir.example_model(), "c")
    families = sorted(item["family"] for item in found)
    assert families == ["conv2d_nchwc", "winograd_nchwc"]
    conv = next(item for item in found if item["family"] == "conv2d_nchwc")
    # the CNN's first conv is a stem reading NCHW1c: unroll must divide its input block, 1
    assert conv["size"] == 32 and list(conv["knobs"]["unroll"]) == [1] and conv["calls"] == 1
