"""The tuning database (docs/tuning.md): irm.tune.Database, the schedules
measured for kernel workloads in one SQLite file that builds read through
the module's ``tune.database`` setting. The same C component as the C
API (irm/tune_db.h) and ``irm tune --show``: there is no second format."""
import json
import os
import sqlite3
import urllib.parse

from .._ffi import api_global


class Database:
    """The tuning database at path. Opening makes the file when missing
    and migrates an older schema (read_only=True opens it as it is, which
    a read-only file allows). Raises ValueError for a damaged file, one
    that is no tuning database or of a newer schema. ``opened_version``
    is the schema version the file had (0 for a new one)."""

    def __init__(self, path, read_only=False):
        self.path = os.fspath(path)
        self.read_only = bool(read_only)
        self.opened_version = api_global("tune.Database()", "tune.DatabaseOpen", "path read_only")(
            self.path, self.read_only)

    def add_workload(self, family, shapes, dtypes, target, features=""):
        """Adds the workload unless present and returns its id. family is
        a kernel family ("conv2d_nchwc"), shapes its shape fields (JSON
        text), dtypes ("float32"), target the target's text, features
        the CPU features it was measured on (comma-separated)."""
        return api_global("Database.add_workload()", "tune.DatabaseAddWorkload",
                          "path family shapes dtypes target features")(
            self.path, family, shapes, dtypes, str(target), features)

    def add_measurement(self, workload_id, knobs, mean=0.0, spread=0.0, error=None, compiler=""):
        """Records a measurement of the candidate knobs (a JSON object's
        text) of workload_id: mean and spread in seconds, or error (the
        reason it failed: never applied). Returns its id."""
        return api_global("Database.add_measurement()", "tune.DatabaseAddMeasurement",
                          "path workload_id knobs mean spread error compiler")(
            self.path, workload_id, knobs, float(mean), float(spread), error, compiler)

    def best(self, family, shapes, dtypes, target, features=""):
        """The best record of the workload, the one a build applies: a
        dict {found, knobs, mean (the median of the candidate's times),
        spread, measurements (how many), compiler, irm_version, time (the
        newest one's), reason}; found False with the reason (another
        target or CPU, every measurement failed) when none applies. The
        lowest median wins, but the default rule ({}) stays unless beaten
        by 2% (IRM_TUNE_DB_MIN_GAIN), and a candidate that failed once
        never wins."""
        record = api_global("Database.best()", "tune.DatabaseBest", "path family shapes dtypes target features")(
            self.path, family, shapes, dtypes, str(target), features)
        return {key: record[key] for key in record.keys()}

    def measured(self, workload_id):
        """The measurements recorded for workload_id, oldest first: a list
        of (knobs dict, mean seconds, error text or None). Read with
        Python's sqlite3 from the same file (read-only, so a reader never
        blocks the writers); tune() uses it to resume without measuring a
        candidate twice."""
        uri = "file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(self.path))
        con = sqlite3.connect(uri, uri=True, timeout=30)
        try:
            rows = con.execute("SELECT c.knobs, m.mean, m.error FROM measurements m JOIN candidates c "
                               "ON m.candidate_id = c.id WHERE c.workload_id = ? ORDER BY m.id",
                               (int(workload_id),)).fetchall()
        finally:
            con.close()
        return [(json.loads(knobs), mean, error) for knobs, mean, error in rows]

    def __repr__(self):
        return "Database(%r%s)" % (self.path, ", read_only=True" if self.read_only else "")


def list_tunables(mod, target):
    """The tunable kernel workloads of mod built for target: a list of
    dicts {op, family, workload (JSON text), knobs ({knob: [legal
    values]}), size (candidates), calls}, one per distinct workload, from
    the FTuneSpace of each call's op (docs/tuning.md, "Search spaces")."""
    found = api_global("list_tunables()", "tune.ListTunables", "mod target")(mod, target)
    return [{key: item[key] for key in item.keys()} for item in found]
