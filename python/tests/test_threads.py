"""Four Python threads calling globals and running pipelines, each under its
own PassContext."""
import threading

import irm

THREADS, ROUNDS = 4, 200


def test_threads_call_globals_and_run_pipelines_under_their_own_contexts():
    irm.register_func("test.threads.square", lambda x: x * x)
    errors, results = [], {}

    def work(index):
        try:
            square = irm.get_global_func("test.threads.square")
            levels = []

            @irm.module_pass
            def Level(mod, ctx):
                levels.append(irm.PassContext.current().opt_level)
                return mod

            pipeline = irm.Sequential([Level])
            total = 0
            with irm.PassContext(opt_level=index):
                for i in range(ROUNDS):
                    total += square(i)
                    pipeline(irm.IRModule())
            results[index] = (total, set(levels))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    irm.remove_global_func("test.threads.square")
    assert errors == []
    expected = sum(i * i for i in range(ROUNDS))
    assert results == {i: (expected, {i}) for i in range(THREADS)}
