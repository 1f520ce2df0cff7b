"""python3 -m irm.tune MODEL --target T --db FILE [...]: what `irm tune
MODEL` runs as a child process (tools/cmd_tune.c; docs/cli.md). MODEL is
an ONNX file, a file of IR text, or an example model's name. Prints a
progress line per workload on stdout; an error is one line on stderr
(exit 1; 3 when the onnx package is missing, as the ONNX frontend's
exit). SIGINT stops it with exit 130: the database keeps every measurement
written, and the same command resumes."""
import argparse
import os
import sys

EXIT_FAIL = 1
EXIT_NO_ONNX = 3
EXIT_INTERRUPTED = 130


def _is_onnx(path):
    if path.endswith(".onnx"):
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(3)
    except OSError:
        return False
    # a ModelProto starts with ir_version (tag 0x08), as tools/cmd_onnx.c checks
    return len(head) == 3 and head[0] == 0x08 and 1 <= head[1] < 0x80


def load_model(name):
    """(IRModule, params or None) of MODEL: an ONNX file, an IR text file
    (- for stdin) or an example model's name."""
    from .. import ir
    if name == "-":
        return ir.parse(sys.stdin.read()), None
    if os.path.isfile(name):
        if _is_onnx(name):
            from ..frontend import onnx as frontend
            return frontend.from_onnx(name)
        with open(name, encoding="utf-8") as f:
            return ir.parse(f.read()), None
    return ir.example_model(name), None


def parse_args(argv):
    p = argparse.ArgumentParser(prog="irm tune", description="Tunes MODEL's kernel workloads into a database.")
    p.add_argument("model")
    p.add_argument("--target", default="c")
    p.add_argument("--trials", type=int, default=32)
    p.add_argument("--db", required=True)
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--dask", default=None)
    p.add_argument("--seconds", type=float, default=None)
    p.add_argument("--early-stopping", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=None)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    from . import DaskRunner, LocalRunner, tune
    runner = None
    try:
        mod, params = load_model(args.model)
        if args.dask:
            try:
                runner = DaskRunner(args.dask)
            except ImportError:
                print("error: --dask needs Python's distributed package (apt-get install python3-distributed)",
                      file=sys.stderr)
                return EXIT_FAIL
        else:
            runner = LocalRunner(args.jobs)
        options = {} if args.timeout is None else {"timeout": args.timeout}
        summaries = tune(mod, args.target, params=params, database=args.db, trials=args.trials, runner=runner,
                         seconds=args.seconds, early_stopping=args.early_stopping, seed=args.seed, progress=True,
                         measure_options=options)
        print("%d workload%s tuned into %s" % (len(summaries), "" if len(summaries) == 1 else "s", args.db))
        return 0
    except KeyboardInterrupt:
        print("error: interrupted; %s keeps what was measured: the same command resumes" % args.db, file=sys.stderr)
        return EXIT_INTERRUPTED
    except ImportError as e:
        if getattr(e, "name", None) == "onnx":
            print("error: No module named 'onnx'", file=sys.stderr)
            return EXIT_NO_ONNX
        print("error: %s" % e, file=sys.stderr)
        return EXIT_FAIL
    except (ValueError, TypeError, OSError, LookupError) as e:
        text = e.args[0] if isinstance(e, LookupError) and e.args and isinstance(e.args[0], str) else str(e)
        print("error: %s" % text, file=sys.stderr)
        return EXIT_FAIL
    finally:
        if runner is not None:
            runner.close()


if __name__ == "__main__":
    sys.exit(main())
