"""What the irm program's test scripts share (check_cli.py,
check_cli_build.py): running the program with arguments and checking its
exit status and the text of each stream, collecting failures."""
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

IRM = sys.argv[1]
PLUGIN = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
TMP = tempfile.mkdtemp(prefix="irm_cli_")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)  # a failure's report holds what it needs
FAILURES = []
ENV = dict(os.environ)
ENV.pop("IRM_PLUGIN_PATH", None)
# A sanitizer's report must not pass for the exit status 1 a case expects.
ENV["ASAN_OPTIONS"] = ENV.get("ASAN_OPTIONS", "") + ":exitcode=86"
ENV["UBSAN_OPTIONS"] = ENV.get("UBSAN_OPTIONS", "") + ":exitcode=86"


def run(args, rc, out=(), err=(), not_out=(), not_err=(), stdout=None, env=None, name=None, cwd=None):
    """Runs irm with args (in cwd, default TMP); checks the status and the
    texts each stream holds (or lacks). Returns (stdout, stderr)."""
    label = name or " ".join(a if isinstance(a, str) else repr(a) for a in args)[:120]
    p = subprocess.run([IRM] + list(args), stdout=stdout or subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env or ENV, timeout=120, cwd=cwd or TMP)
    o = p.stdout.decode("utf-8", "replace") if p.stdout is not None else ""
    e = p.stderr.decode("utf-8", "replace")
    problems = []
    if p.returncode != rc:
        problems.append(f"exit status {p.returncode}, expected {rc}")
    if "Sanitizer" in e or "runtime error" in e:
        problems.append("a sanitizer reported")
    problems += [f"stdout lacks {s!r}" for s in out if s not in o]
    problems += [f"stderr lacks {s!r}" for s in err if s not in e]
    problems += [f"stdout has {s!r}" for s in not_out if s in o]
    problems += [f"stderr has {s!r}" for s in not_err if s in e]
    try:
        p.stderr.decode("utf-8")
    except UnicodeDecodeError:
        problems.append("stderr is not valid UTF-8")
    if problems:
        FAILURES.append(f"irm {label}: " + "; ".join(problems) + f"\n--- stdout:\n{o[:2000]}\n--- stderr:\n{e[:2000]}")
    return o, e


def tmp(name):
    return os.path.join(TMP, name)


def finish(what):
    """Prints the failures and exits 1, or says every case passed."""
    if FAILURES:
        print(f"{len(FAILURES)} failing case(s):\n")
        print("\n\n".join(FAILURES))
        sys.exit(1)
    print(f"{what}: every case passed")
