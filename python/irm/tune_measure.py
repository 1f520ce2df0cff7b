"""Tuning tasks and the measurement of one candidate (docs/tuning.md,
"Tasks and measurement"); the C API is irm/tune_measure.h.

A task is one tunable workload of a model as a module of its own (its
``main`` the one kernel call over fresh parameters), which prints and
parses, so it can be measured on another machine. ``measure`` builds it
with the default rule and with a candidate, runs both in child processes
and compares them; a failing candidate is a result (``error_kind``), never
an exception."""
import json

from ._ffi import api_global

_TASK_FIELDS = ("family", "workload", "op", "knobs", "size", "calls", "target", "features", "key", "task")


class Task(dict):
    """One tunable workload: a dict with the keys family, workload
    (canonical JSON text), op, knobs ({knob: [legal values]}), size,
    calls, target, features, key (the database's workload identity) and
    task (the IRModule measure takes); also readable as attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _plain(value):
    """A library Array or Map as a Python list or dict (recursively)."""
    if hasattr(value, "keys") and not isinstance(value, (dict, str)):
        return {key: _plain(value[key]) for key in value.keys()}
    if hasattr(value, "__len__") and hasattr(value, "__getitem__") and not isinstance(value, (str, bytes, dict)):
        return [_plain(v) for v in value]
    return value


def extract_tasks(mod, target):
    """The tasks of mod built for target (a Target or its text), one per
    distinct workload (equal workloads of several calls once, ``calls``
    counting them)."""
    found = api_global("extract_tasks()", "tune.ExtractTasks", "mod target")(mod, target)
    tasks = []
    for item in found:
        task = Task()
        for key in _TASK_FIELDS:
            task[key] = item[key] if key == "task" else _plain(item[key])
        tasks.append(task)
    return tasks


def measure(task, candidate=None, repeat=5, min_repeat_ms=10, warmup=1, timeout=10.0, seed=0, cpu=None, flush=True):
    """Measures candidate ({knob: value}; None or {} the default rule) of
    task (a Task or its ``task`` module). Returns a dict {mean, spread
    (seconds: the best batch's time per run, the batches' max - min),
    error ("" when fine), error_kind ("", "compile", "crash", "timeout",
    "wrong", "illegal"), compile_seconds, run_seconds, compiler}. cpu
    (an int) pins the measuring child to that CPU, so a runner keeps
    measurements off each other's cores. flush (the default) evicts the
    weights (every input but the first) from the caches before each timed
    run, as a network's kernel finds them; False measures everything warm."""
    module = task["task"] if isinstance(task, dict) else task
    if candidate is None:
        candidate = {}
    if not isinstance(candidate, dict):
        raise TypeError("measure(): candidate must be a dict {knob: value}, got %s" % type(candidate).__name__)
    options = {"repeat": int(repeat), "min_repeat_ms": int(min_repeat_ms), "warmup": int(warmup),
               "timeout": float(timeout), "seed": int(seed), "flush": bool(flush)}
    if cpu is not None:
        options["cpu"] = int(cpu)
    result = api_global("measure()", "tune.Measure", "task candidate options")(
        module, json.dumps(candidate, sort_keys=True), options)
    return {key: result[key] for key in result.keys()}
