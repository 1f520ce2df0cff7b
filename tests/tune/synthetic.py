"""Synthetic objectives for the search and runner tests: known optima, no
C side, cheap to evaluate. Module-level so that worker processes (spawned
pools, Dask workers) can import them by name."""
import math
import os
import signal

KNOBS = {"ow_tile": list(range(1, 17)), "unroll": [1, 2, 4, 8, 16], "order": ["oc_outer", "row_outer"],
         "padded": [False, True]}
OPTIMUM = {"ow_tile": 6, "unroll": 4, "order": "row_outer", "padded": False}
# what the candidate {} (the default rule) stands for
DEFAULT = {"ow_tile": 4, "unroll": 1, "order": "oc_outer", "padded": False}


def seconds(c):
    """A smooth bowl in log2 of the numeric knobs with an interaction, plus
    a step for each categorical knob: its only minimum is OPTIMUM. {} is
    DEFAULT."""
    c = dict(DEFAULT, **c)
    t, u = math.log2(c["ow_tile"]) - math.log2(6), math.log2(c["unroll"]) - 2
    cost = 0.6 * t * t + 0.3 * u * u + 0.2 * t * u + (0.0 if c["order"] == "row_outer" else 0.4)
    cost += 0.25 if c["padded"] else 0.0
    return 1e-3 * math.exp(cost)


def result(mean):
    """A measure function's result: mean seconds, or for None a failure as
    a crash gives."""
    if mean is None:
        return {"mean": 0.0, "spread": 0.0, "error": "crashed: signal 11", "error_kind": "crash",
                "compile_seconds": 0.0, "run_seconds": 0.0, "compiler": "synthetic"}
    return {"mean": mean, "spread": 0.0, "error": "", "error_kind": "", "compile_seconds": 0.001,
            "run_seconds": 0.001, "compiler": "synthetic"}


def measure(task_text, candidate, options):
    """A runner's measure function over seconds(); a candidate with
    ow_tile 13 fails as a crash would, so that errors are exercised."""
    return result(None if candidate.get("ow_tile") == 13 else seconds(candidate))


def measure_killing_once(task_text, candidate, options):
    """measure(), but the first job that finds no marker file (its path in
    options["marker"]) makes it and kills its own process with SIGKILL: a
    worker dying mid-run."""
    marker = options["marker"]
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return measure(task_text, candidate, options)
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
    return None


def measure_slowly(task_text, candidate, options):
    """measure(), taking options["sleep"] seconds: a run long enough to be
    interrupted after its first measurements."""
    import time
    time.sleep(options.get("sleep", 0.0))
    return measure(task_text, candidate, options)


_calls = {}


def measure_scripted(task_text, candidate, options):
    """options["script"]: {candidate's canonical text: [seconds of its
    first measurement, of its second, ...]}, the last repeating; None
    fails as a crash would. Counts calls in this process (LocalRunner
    with jobs 1 runs them here); options["script_id"] keeps tests apart."""
    from irm.tune import canonical
    key = (options["script_id"], canonical(candidate))
    n = _calls[key] = _calls.get(key, 0) + 1
    script = options["script"][canonical(candidate)]
    return result(script[min(n, len(script)) - 1])


TASKS = [{"family": "conv2d_nchwc", "workload": '{"ic":%d}' % ic, "knobs": KNOBS, "target": "c",
          "features": "sse2", "key": "k%d" % ic, "task": "task %d" % ic, "flops": 2e6} for ic in (8, 16)]


if __name__ == "__main__":
    # python3 synthetic.py DB TRIALS SLEEP: tune() of TASKS with measure_slowly,
    # what the SIGINT test interrupts and runs again
    import sys
    from irm.tune import LocalRunner, tune
    try:
        tune(None, "c", database=sys.argv[1], trials=int(sys.argv[2]), runner=LocalRunner(jobs=1), tasks=TASKS,
             measure=measure_slowly, measure_options={"sleep": float(sys.argv[3])})
    except KeyboardInterrupt:
        sys.exit(130)
