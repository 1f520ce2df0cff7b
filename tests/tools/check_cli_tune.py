#!/usr/bin/env python3
"""irm tune --show (docs/tuning.md): the best record of each workload of a
tuning database, the --workload filter, a version 1 file read as it is,
and bad input (a missing or damaged file, no --show, irm tune MODEL's
flags and an unknown model);
irm list tunables: a model's tunable workloads and their search spaces.

usage: check_cli_tune.py IRM_PROGRAM"""
import json
import os
import sqlite3
import sys

from cli_harness import ENV, finish, run, tmp

# A version 1 file written with SQLite directly (irm tune --show reads it
# read-only, without migrating it).
db = tmp("v1.db")
with sqlite3.connect(db) as con:
    con.executescript("""
CREATE TABLE workloads(id INTEGER PRIMARY KEY, family TEXT NOT NULL, shapes TEXT NOT NULL, dtypes TEXT NOT NULL,
                       target TEXT NOT NULL, UNIQUE(family, shapes, dtypes, target));
CREATE TABLE candidates(id INTEGER PRIMARY KEY, workload_id INTEGER NOT NULL, knobs TEXT NOT NULL,
                        UNIQUE(workload_id, knobs));
CREATE TABLE measurements(id INTEGER PRIMARY KEY, candidate_id INTEGER NOT NULL, mean REAL, spread REAL, error TEXT,
                          irm_version TEXT NOT NULL, time TEXT NOT NULL DEFAULT 'T');
INSERT INTO workloads VALUES (1, 'conv2d_nchwc', '{"ic":64}', 'float32', 'llvm'),
                             (2, 'depthwise_nchwc', '{"ic":32}', 'float32', 'llvm');
INSERT INTO candidates VALUES (1, 1, '{"ow_tile":4}'), (2, 1, '{"ow_tile":6}'), (3, 2, '{"ow_tile":8}');
INSERT INTO measurements(candidate_id, mean, spread, error, irm_version, time) VALUES
  (1, 0.002, 0.0001, NULL, '0.0.9', '2026-01-01T00:00:00Z'), (2, 0.001, 0.0001, NULL, '0.0.9', '2026-01-01T00:00:00Z'),
  (3, NULL, NULL, 'crashed: signal 11', '0.0.9', '2026-01-01T00:00:00Z');
PRAGMA user_version = 1;
""")
run(["tune", "--show", db], 0,
    out=["(schema version 1)", "conv2d_nchwc {\"ic\":64} float32", "best 1.0000 ms (median of 1,", "with {\"ow_tile\":6}",
         "measured 2026-01-01T00:00:00Z by irm 0.0.9", "2 measurements, 0 failed", "depthwise_nchwc",
         "no record applies: every measurement failed (1), one with: crashed: signal 11"])
run(["tune", "--show", db, "--workload", "depthwise"], 0, out=["depthwise_nchwc"], not_out=["conv2d_nchwc"])
run(["tune", "--show", db, "--workload", "winograd"], 0, out=["no workload matches"])
with sqlite3.connect(db) as con:
    assert con.execute("PRAGMA user_version").fetchone()[0] == 1  # left as it was

run(["tune", "--help"], 0, out=["usage: irm tune MODEL --db DB", "irm tune --show DB", "--dask ADDRESS"])
run(["tune"], 2, err=["expected MODEL --db DB (tune it) or --show DB"])
# irm tune MODEL: its flags checked before Python starts (tuning itself: tests/tune/test_resume.py)
run(["tune", "resnet18.onnx"], 2, err=["MODEL needs --db DB"])
run(["tune", "cnn", "extra", "--db", tmp("t.db")], 2, err=["unexpected argument 'extra'"])
run(["tune", "cnn", "--db", tmp("t.db"), "--trials", "0"], 2, err=["--trials: expected an integer at least 1, got '0'"])
run(["tune", "cnn", "--db", tmp("t.db"), "--seconds", "soon"], 2, err=["--seconds: expected a number of seconds"])
run(["tune", "cnn", "--db", tmp("t.db"), "--jobs", "2", "--dask", "tcp://127.0.0.1:1"], 2,
    err=["either --jobs (this machine) or --dask, not both"])
run(["tune", "cnn", "--db", tmp("t.db"), "--show", db], 2, err=["either MODEL (tune it) or --show DB"])
run(["tune", "--show", db, "--trials", "3"], 2, err=["--show DB takes only --workload"])
env = dict(ENV)
if os.environ.get("IRM_TEST_ASAN_PRELOAD"):  # the sanitizer build: Python loads an instrumented libirm
    env["IRM_PYTHON"] = tmp("asan-python")
    with open(env["IRM_PYTHON"], "w") as f:
        f.write('#!/bin/sh\nLD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0 exec %s "$@"\n'
                % (os.environ["IRM_TEST_ASAN_PRELOAD"], sys.executable))
    os.chmod(env["IRM_PYTHON"], 0o755)
run(["tune", "no-such-model", "--db", tmp("t.db")], 1,
    err=["irm: tune: example_model(): unknown example model 'no-such-model' (the models: cnn"], env=env)
run(["tune", "cnn", "--db", tmp("t.db")], 1, err=["irm: tune: needs Python 3 with irm's package; '",
                                                  "cannot be run (or set IRM_PYTHON)"],
    env=dict(ENV, IRM_PYTHON=tmp("no-such-python")))
run(["tune", "--shwo", db], 2, err=["unknown flag '--shwo' (did you mean '--show'?)"])
run(["tune", "--show", tmp("missing.db")], 1, err=["irm: tune: ValueError: no tuning database '"])
with open(tmp("junk.db"), "wb") as f:
    f.write(b"not a database" * 20)
run(["tune", "--show", tmp("junk.db")], 1, err=["not a readable tuning database", "file is not a database"])
# ---- irm list tunables MODEL [TARGET] ------------------------------------------------------
run(["list", "tunables", "cnn"], 0,
    out=["2 tunable workloads for target c", "winograd_nchwc {\"n\": 1, \"ic\": 8", "8 candidates: block 4; oc_vecs 2; ow_tile 1..8",
         "conv2d_nchwc {\"n\": 1, \"ic\": 3", "op nn.contrib_conv2d_NCHWc, 1 call, 32 candidates",
         "unroll 1; order \"oc_outer\", \"row_outer\"; padded false, true"])
o, _ = run(["list", "--json", "tunables", "cnn"], 0, out=['"family": "conv2d_nchwc"', '"size": 32'])
assert len(json.loads(o)) == 2
run(["list", "tunables"], 2, err=["tunables needs a MODEL"])
run(["list", "tunables", "cnn", "c", "extra"], 2, err=["unexpected argument 'extra'"])
run(["list", "tunables", "no-such-model"], 1, err=["no-such-model"])
run(["list", "tunables", "cnn", "nosuchkind"], 1, err=["nosuchkind"])
run(["list", "--help"], 0, out=["tunables MODEL [TARGET]"])
finish("irm tune")
