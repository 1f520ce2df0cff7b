"""Where tuning jobs run (docs/tuning.md, "Runners"): LocalRunner, a pool
of processes on this machine, and DaskRunner, the workers of a Dask
cluster. A job is a dict {"task": the task module as IR text, "candidate":
{knob: value}, "options": measure()'s keywords}; a runner calls
measure(task_text, candidate, options) for each and hands back the result
dicts. Runners never write the database: tune() does, in one process."""
import concurrent.futures
import multiprocessing
import os

# a job lost with its process (a pool broken by a dead worker, a Dask
# worker killed) is sent again this many times before it counts as failed
RESUBMITS = 3

_parsed = {}


def measure_task(task_text, candidate, options):
    """The default measure: irm.tune_measure.measure of the task (parsed
    from its IR text once per process) with the candidate."""
    from .. import ir, tune_measure
    mod = _parsed.get(task_text)
    if mod is None:
        _parsed.clear()  # one task at a time is the usual order: keep one
        mod = _parsed[task_text] = ir.parse(task_text)
    return tune_measure.measure(mod, candidate, **options)


def run_job(measure, job):
    """One job on whichever process runs it: measure's result, or the
    exception's text as a result with error_kind "runner"."""
    try:
        return dict(measure(job["task"], job["candidate"], job["options"]))
    except Exception as e:  # a result, not a dead run: tune() counts it as an error
        return runner_error("%s: %s" % (type(e).__name__, e))


def runner_error(text):
    """A result for a job that produced no measurement (never written to
    the database: the candidate may be fine)."""
    return {"mean": 0.0, "spread": 0.0, "error": text, "error_kind": "runner", "compile_seconds": 0.0,
            "run_seconds": 0.0, "compiler": ""}


def _pin(cores):
    # each worker takes one core of its own: two measurements never share one
    try:
        os.sched_setaffinity(0, {cores.get_nowait()})
    except Exception:  # no affinity on this platform, or more workers than cores: run unpinned
        pass


class LocalRunner:
    """Jobs on this machine. jobs: how many candidates are compiled and
    measured at once (default: the usable cores less one, at least one, so
    a core is left to the tuning process and the system). With jobs > 1,
    each job runs in a pool process (spawned: it starts afresh, sharing no
    thread pool with this one) pinned to a core of its own, where it
    compiles its candidate and then measures it, so two measurements never
    run on one core. With jobs == 1 the jobs run one after the other in
    this process (a measurement runs in a child process of its own anyway).
    A pool broken by a dead process is made again and its jobs sent again.
    Not thread-safe: one map() at a time."""

    def __init__(self, jobs=None):
        usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        self.jobs = max(1, usable - 1) if jobs is None else int(jobs)
        if self.jobs < 1:
            raise ValueError("LocalRunner: jobs must be at least 1, not %d" % self.jobs)
        self._pool = None

    def _new_pool(self):
        context = multiprocessing.get_context("spawn")
        cores = context.Queue()
        for core in sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []:
            cores.put(core)
        return concurrent.futures.ProcessPoolExecutor(self.jobs, mp_context=context, initializer=_pin,
                                                      initargs=(cores,))

    def map(self, measure, jobs):
        """Yields (index, result) for each of jobs as they finish."""
        if self.jobs == 1:
            for i, job in enumerate(jobs):
                yield i, run_job(measure, job)
            return
        todo, sent = dict(enumerate(jobs)), {}
        while todo:
            if self._pool is None:
                self._pool = self._new_pool()
            futures = {self._pool.submit(run_job, measure, job): i for i, job in todo.items()}
            for future in concurrent.futures.as_completed(futures):
                i = futures[future]
                try:
                    result = future.result()
                except concurrent.futures.process.BrokenProcessPool:
                    sent[i] = sent.get(i, 0) + 1
                    if sent[i] <= RESUBMITS:
                        continue
                    result = runner_error("LocalRunner: the process measuring it died %d times" % sent[i])
                del todo[i]
                yield i, result
            if todo:  # the pool broke: a new one takes the jobs it lost
                self._pool.shutdown(wait=True, cancel_futures=True)
                self._pool = None

    def close(self):
        """Stops the pool's processes (a later map() makes a new pool)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __repr__(self):
        return "LocalRunner(jobs=%d)" % self.jobs


class DaskRunner:
    """Jobs on the workers of a Dask cluster (Debian's python3-distributed):
    address, a scheduler's address ("tcp://host:8786"), or client, a
    distributed.Client. Each job goes to a worker as (task text, candidate)
    and comes back as the result dict; the worker measures on its own
    machine with the same measure code, and needs irm's Python package and
    libirm. Start workers with one thread each (`dask-worker --nthreads 1`)
    so that two measurements never share a core. A job whose worker died is
    run again elsewhere: the scheduler reschedules it (retries= covers
    failures it reports) and a KilledWorker is submitted again, up to
    RESUBMITS times; none is lost. Only this process writes the database."""

    def __init__(self, address=None, client=None, retries=RESUBMITS):
        import distributed
        if (address is None) == (client is None):
            raise ValueError("DaskRunner: give a scheduler address or a client, one of them")
        self._own = client is None
        self.client = distributed.Client(address) if client is None else client
        self.retries = int(retries)
        workers = self.client.scheduler_info().get("workers", {})
        self.jobs = max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))

    def map(self, measure, jobs):
        """Yields (index, result) for each of jobs as they finish."""
        import distributed
        jobs = list(jobs)
        sent = [0] * len(jobs)

        def submit(i):
            return self.client.submit(run_job, measure, jobs[i], pure=False, retries=self.retries)

        futures = {submit(i): i for i in range(len(jobs))}
        done = distributed.as_completed(list(futures))
        for future in done:
            i = futures.pop(future)
            try:
                result = future.result()
            except Exception as e:  # a KilledWorker, a lost connection: the job goes again
                sent[i] += 1
                if sent[i] <= RESUBMITS:
                    again = submit(i)
                    futures[again] = i
                    done.add(again)
                    continue
                result = runner_error("DaskRunner: %s: %s" % (type(e).__name__, e))
            yield i, result

    def close(self):
        """Closes the client when this runner made it."""
        if self._own:
            self.client.close()

    def __repr__(self):
        return "DaskRunner(%r)" % (self.client.scheduler.address,)
