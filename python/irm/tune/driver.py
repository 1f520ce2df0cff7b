"""irm.tune.tune (docs/tuning.md, "Tuning a model"): each tunable workload
of a model searched (search.py) with measurements run by a runner
(runners.py) and written, errors too, to the tuning database, skipping
what the database has (resume)."""
import json
import sys
import time
import zlib

from .database import Database
from .runners import LocalRunner, measure_task
from .search import Search
from .space import canonical

MEASURE_DEFAULTS = {"repeat": 5, "min_repeat_ms": 10, "warmup": 1, "timeout": 10.0}


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
    return "[%d/%d] %s %s: %d trials, %s, %d errors" % (number, total, summary["family"],
                                                        _compact(summary["workload"]), summary["trials"], text,
                                                        summary["errors"])


def _report(progress, summary, number, total):
    if progress is True:
        print(_progress_line(summary, number, total), file=sys.stdout, flush=True)
    elif callable(progress):
        progress(summary)


def tune(mod, target, params=None, database="tune.db", trials=32, runner=None, seconds=None, early_stopping=None,
         seed=0, progress=False, measure_options=None, tasks=None, measure=None):
    """Tunes the kernel workloads of mod (an IRModule, or a list of them:
    their shared workloads are tuned once) for target and records every
    measurement in the tuning database at database. Returns a list with a
    summary dict per workload: family, workload, key, trials (measurements
    of it in the database, resumed ones included), measured (by this call),
    errors, best_seconds, best_knobs ({} when the default rule is the
    best), default_seconds (the default rule's time), gflops (when the task
    gives its flops), the time spent in compiles and runs (busy_seconds, as
    measure reports them), waiting for the runner (runner_seconds) and in
    all (wall_seconds). The first trial of a workload is its default rule, the
    candidate {} (no knob set), so the database's best is never slower.

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
                                 None if seconds is None else start + seconds, out_of_time)
            summaries.append(summary)
            _report(progress, summary, number + 1, len(tasks))
    finally:
        if own_runner:
            runner.close()
    return summaries


def _tune_task(task, db, runner, measure, options, trials, early_stopping, seed, deadline, out_of_time):
    begin = time.monotonic()
    wid = db.add_workload(task["family"], task["workload"], task.get("dtypes", "float32"), task["target"],
                          task.get("features", ""))
    # the default rule is measured too, as the candidate {} (no knob set: the
    # build keeps the rule's choices), the first trial: the database's best
    # is then never slower than the default rule
    search = Search(task["knobs"], trials=trials - 1, seed=seed, early_stopping=early_stopping)
    default = {"done": False, "seconds": None}
    errors = 0
    for knobs, mean, error in db.measured(wid):  # resume: what an earlier run measured counts
        if knobs == {}:
            default.update(done=True, seconds=None if error else mean)
        elif search.space.digits(knobs) is None:
            continue  # measured in another space (an older irm's knobs): no trial of this one
        else:
            search.tell(knobs, None if error else mean)
        errors += bool(error)
    resumed = len(search.results) + default["done"]
    busy = in_runner = 0.0
    text = None if out_of_time or (default["done"] and search.done()) else _task_text(task)
    while text is not None and (deadline is None or time.monotonic() < deadline):
        batch = [] if default["done"] else [{}]
        batch += search.propose(max(1, runner.jobs) - len(batch)) if not search.done() else []
        if not batch:
            break
        jobs = [{"task": text, "candidate": c, "options": options} for c in batch]
        results = [None] * len(batch)
        started = time.monotonic()
        for i, result in runner.map(measure, jobs):
            results[i] = result
        in_runner += time.monotonic() - started
        # written and told in the order proposed: the search stays deterministic
        for candidate, result in zip(batch, results):
            busy += float(result.get("compile_seconds", 0.0)) + float(result.get("run_seconds", 0.0))
            error = result.get("error") or None
            if result.get("error_kind") == "runner":
                errors += 1  # no measurement: not recorded, not proposed again this run
                seconds = None
            else:
                db.add_measurement(wid, canonical(candidate), result.get("mean", 0.0), result.get("spread", 0.0),
                                   error=error, compiler=result.get("compiler", ""))
                errors += bool(error)
                seconds = None if error else result["mean"]
            if candidate:
                search.tell(candidate, seconds)
            else:
                default.update(done=True, seconds=seconds)
    best = search.best
    if default["seconds"] is not None and (best is None or default["seconds"] <= best[0]):
        best = (default["seconds"], {})
    flops = _flops(task)
    total = len(search.results) + default["done"]
    return {"family": task["family"], "workload": task["workload"], "key": task.get("key", ""),
            "trials": total, "measured": total - resumed, "errors": errors,
            "best_seconds": best[0] if best else None, "best_knobs": best[1] if best else None,
            "default_seconds": default["seconds"],
            "gflops": flops / best[0] / 1e9 if best and flops else None, "busy_seconds": busy,
            "runner_seconds": in_runner, "wall_seconds": time.monotonic() - begin}
