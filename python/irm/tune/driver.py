"""irm.tune.tune (docs/tuning.md, "Tuning a model"): each tunable workload
of a model searched (search.py) with measurements run by a runner
(runners.py) and written, errors too, to the tuning database, skipping
what the database has (resume)."""
import json
import statistics
import sys
import time
import zlib

from .database import Database
from .runners import LocalRunner, measure_task
from .search import Search
from .space import canonical

MEASURE_DEFAULTS = {"repeat": 5, "min_repeat_ms": 10, "warmup": 1, "timeout": 10.0}
# a confirmation round measures the database's best record and the default
# rule again; a workload has at most this many rounds (each leader that
# loses its place on being measured again costs one)
CONFIRM_ROUNDS = 8


def _task_text(task):
    from .. import ir
    mod = task.get("task")
    return mod if isinstance(mod, str) else ir.text(mod)


def _as_dict(task):
    if isinstance(task, dict):
        return task
    if hasattr(task, "keys"):
        return {key: task[key] for key in task.keys()}
    return dict(vars(task))


def extract(mods, target, params=None):
    """The tasks of each module (irm.tune_measure.extract_tasks), those of
    one database key (workloads shared between models) kept once."""
    from .. import tune_measure
    tasks = {}
    for mod in mods:
        for task in tune_measure.extract_tasks(mod, target):
            task = _as_dict(task)
            tasks.setdefault(task["key"], task)
    return list(tasks.values())


def _flops(task):
    value = task.get("flops")
    return float(value) if value else None


def _compact(workload):
    try:
        return json.dumps(json.loads(workload), separators=(",", ":"))
    except ValueError:
        return workload


def _progress_line(summary, number, total):
    best = summary["best_seconds"]
    if best is None:
        text = "no valid candidate"
    elif summary["gflops"] is not None:
        text = "best %.2f GFLOP/s (%.4f ms)" % (summary["gflops"], best * 1e3)
    else:
        text = "best %.4f ms" % (best * 1e3)
    if summary["best_knobs"] == {}:
        text += " (the default rule)"
    elif best is not None and summary["default_seconds"]:
        ratio = best / summary["default_seconds"]
        text += " (%.3fx the default rule, median of %d)" % (ratio, summary["best_measurements"])
    return "[%d/%d] %s %s: %d trials, %s, %d errors" % (number, total, summary["family"],
                                                        _compact(summary["workload"]), summary["trials"], text,
                                                        summary["errors"])


def _report(progress, summary, number, total):
    if progress is True:
        print(_progress_line(summary, number, total), file=sys.stdout, flush=True)
    elif callable(progress):
        progress(summary)


def tune(mod, target, params=None, database="tune.db", trials=32, runner=None, seconds=None, early_stopping=None,
         seed=0, progress=False, measure_options=None, tasks=None, measure=None, confirmations=3):
    """Tunes the kernel workloads of mod (an IRModule, or a list of them:
    their shared workloads are tuned once) for target and records every
    measurement in the tuning database at database. Returns a list with a
    summary dict per workload: family, workload, key, trials (candidates
    of it in the database, resumed ones included), measured (trials by this
    call), confirmed (confirmation measurements by this call), errors,
    best_seconds, best_knobs ({} when the default rule is the best) and
    best_measurements (the database's best record: what a build applies),
    default_seconds (the median of the default rule's times), gflops (when
    the task gives its flops), the time spent in compiles and runs
    (busy_seconds, as measure reports them), waiting for the runner
    (runner_seconds) and in all (wall_seconds). The first trial of a
    workload is its default rule, the candidate {} (no knob set).

    After the search, while the database's best record is not the default
    rule, it and the default rule are measured again, in one batch a round,
    until each has `confirmations` measurements (a leader measured once by
    luck loses its place on the next; at most CONFIRM_ROUNDS rounds). The database ranks candidates by
    their median time and keeps the default rule unless a candidate beats
    it by IRM_TUNE_DB_MIN_GAIN (docs/tuning.md, "The best record");
    confirmations=1 measures nothing again.

    trials: the budget of measurements per workload; seconds: a budget of
    wall time for the whole call (no new job starts past it); early_stopping:
    a workload stops when its best has not improved for this many trials.
    runner: LocalRunner (the default, LocalRunner()) or DaskRunner. seed
    makes the search deterministic. progress: True prints a line per
    workload (trials, best, errors), a callable gets each summary dict.
    measure_options: measure()'s keywords (repeat, min_repeat_ms, warmup,
    timeout, seed). Candidates the database already has for a workload are
    not measured again and count towards its trials (resume). params is
    taken for irm.build's signature: workloads depend on shapes only.

    For tests and experiments: tasks, a list of task dicts, replaces the
    extraction; measure, a function (task text, candidate, options) ->
    result dict importable by the runner's processes, replaces
    irm.tune_measure.measure. Errors: ValueError for a bad budget or a
    database that cannot be opened; not thread-safe for one database path
    within a process (several processes may tune into one file)."""
    if int(trials) < 1:
        raise ValueError("tune: trials must be at least 1, not %r" % (trials,))
    if int(confirmations) < 1:
        raise ValueError("tune: confirmations must be at least 1, not %r" % (confirmations,))
    db = Database(database)
    start = time.monotonic()
    if tasks is None:
        mods = mod if isinstance(mod, (list, tuple)) else [mod]
        tasks = extract(mods, target, params)
    tasks = [_as_dict(t) for t in tasks]
    own_runner = runner is None
    runner = LocalRunner() if runner is None else runner
    options = dict(MEASURE_DEFAULTS, **(measure_options or {}))
    options.setdefault("seed", seed)
    measure = measure_task if measure is None else measure
    summaries = []
    try:
        for number, task in enumerate(tasks):
            out_of_time = seconds is not None and time.monotonic() - start >= seconds
            # each workload's own seed, from its key: the same search whichever model or order it comes in
            task_seed = seed * 1000003 + zlib.crc32(task.get("key", task["workload"]).encode())
            summary = _tune_task(task, db, runner, measure, options, trials, early_stopping, task_seed,
                                 None if seconds is None else start + seconds, out_of_time, int(confirmations))
            summaries.append(summary)
            _report(progress, summary, number + 1, len(tasks))
    finally:
        if own_runner:
            runner.close()
    return summaries


class _Workload:
    """One workload's tuning: its database id, the measure calls and what
    they cost, the task's IR text made when first needed."""

    def __init__(self, task, db, runner, measure, options):
        self.task, self.db, self.runner, self.measure, self.options = task, db, runner, measure, options
        self.wid = db.add_workload(task["family"], task["workload"], task.get("dtypes", "float32"), task["target"],
                                   task.get("features", ""))
        self.text = None
        self.busy = self.in_runner = 0.0
        self.errors = 0

    def run(self, batch):
        """Measures the candidates of batch and records each result; their
        seconds (None for a failure) in the order of batch."""
        if self.text is None:
            self.text = _task_text(self.task)
        jobs = [{"task": self.text, "candidate": c, "options": self.options} for c in batch]
        results = [None] * len(batch)
        started = time.monotonic()
        for i, result in self.runner.map(self.measure, jobs):
            results[i] = result
        self.in_runner += time.monotonic() - started
        out = []
        # written in the order proposed: the search stays deterministic
        for candidate, result in zip(batch, results):
            self.busy += float(result.get("compile_seconds", 0.0)) + float(result.get("run_seconds", 0.0))
            error = result.get("error") or None
            self.errors += bool(error)
            if result.get("error_kind") != "runner":  # a runner's failure measured nothing: not recorded
                self.db.add_measurement(self.wid, canonical(candidate), result.get("mean", 0.0),
                                        result.get("spread", 0.0), error=error, compiler=result.get("compiler", ""))
            out.append(None if error else result["mean"])
        return out

    def good_counts(self):
        """{candidate text: error-free measurements} and the default rule's
        error-free times."""
        counts, default = {}, []
        for knobs, mean, error in self.db.measured(self.wid):
            if not error:
                counts[canonical(knobs)] = counts.get(canonical(knobs), 0) + 1
                if knobs == {}:
                    default.append(mean)
        return counts, default

    def best(self):
        """The database's best record of the workload (Database.best)."""
        t = self.task
        return self.db.best(t["family"], t["workload"], t.get("dtypes", "float32"), t["target"],
                            t.get("features", ""))


def _search(w, trials, early_stopping, seed, deadline, out_of_time):
    """The search's trials of workload w, resuming what the database has;
    (trials in the database, trials measured now)."""
    # the default rule is measured too, as the candidate {} (no knob set: the
    # build keeps the rule's choices), the first trial
    search = Search(w.task["knobs"], trials=trials - 1, seed=seed, early_stopping=early_stopping)
    default_done = False
    for knobs, mean, error in w.db.measured(w.wid):  # resume: what an earlier run measured counts
        if knobs == {}:
            default_done = True
        elif search.space.digits(knobs) is None:
            continue  # measured in another space (an older irm's knobs): no trial of this one
        else:
            search.tell(knobs, None if error else mean)  # a candidate's first measurement; later ones confirm
        w.errors += bool(error)
    resumed = len(search.results) + default_done
    while not out_of_time and (deadline is None or time.monotonic() < deadline):
        batch = [] if default_done else [{}]
        batch += search.propose(max(1, w.runner.jobs) - len(batch)) if not search.done() else []
        if not batch:
            break
        for candidate, seconds in zip(batch, w.run(batch)):
            if candidate:
                search.tell(candidate, seconds)
            default_done = True
    total = len(search.results) + default_done
    return total, total - resumed


def _confirm(w, need, deadline):
    """While the database's best record is not the default rule, measures
    it and the default rule again, one batch a round, until each has need
    error-free measurements or the rounds run out (a default rule that
    leads is applied anyway: nothing to confirm); the number of
    measurements made."""
    made = 0
    for _ in range(CONFIRM_ROUNDS if need > 1 else 0):
        if deadline is not None and time.monotonic() >= deadline:
            break
        best = w.best()
        if not best["found"] or best["knobs"] == "{}":
            break
        counts, _ = w.good_counts()
        batch = [c for c in ({}, json.loads(best["knobs"])) if counts.get(canonical(c), 0) < need]
        if not batch:
            break
        w.run(batch)
        made += len(batch)
    return made


def _tune_task(task, db, runner, measure, options, trials, early_stopping, seed, deadline, out_of_time, need):
    begin = time.monotonic()
    w = _Workload(task, db, runner, measure, options)
    total, measured = _search(w, trials, early_stopping, seed, deadline, out_of_time)
    confirmed = 0 if out_of_time else _confirm(w, need, deadline)
    best = w.best()
    _, default = w.good_counts()
    best_seconds = best["mean"] if best["found"] else None
    flops = _flops(task)
    return {"family": task["family"], "workload": task["workload"], "key": task.get("key", ""),
            "trials": total, "measured": measured, "confirmed": confirmed, "errors": w.errors,
            "best_seconds": best_seconds, "best_knobs": json.loads(best["knobs"]) if best["found"] else None,
            "best_measurements": best["measurements"] if best["found"] else 0,
            "default_seconds": statistics.median(default) if default else None,
            "gflops": flops / best_seconds / 1e9 if best_seconds and flops else None, "busy_seconds": w.busy,
            "runner_seconds": w.in_runner, "wall_seconds": time.monotonic() - begin}
