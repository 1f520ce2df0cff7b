"""libirm's warnings through Python's warnings module: deprecations as
irm.IrmDeprecationWarning, others as irm.IrmWarning, pointing at the
caller's line; IRM_WARNINGS=ignore|error in a fresh interpreter."""
import itertools
import os
import subprocess
import sys
import uuid
import warnings

import pytest

import irm

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(irm.__file__)))
CONVERT = irm.get_global_func("target.ConvertLegacy")


_SEEN = itertools.count(10)


def _unique_legacy_target():
    # Each distinct warning goes out once per process: a fresh value each time.
    return "c -executor=aot -workspace-byte-alignment=%d" % (2 ** next(_SEEN))


def test_a_legacy_target_option_is_a_deprecation_warning_at_the_callers_line():
    with pytest.warns(irm.IrmDeprecationWarning) as record:
        CONVERT(_unique_legacy_target())
    messages = [str(w.message) for w in record]
    assert any(m.startswith("target option '-workspace-byte-alignment=") or
               m.startswith("target option '-workspace-byte-alignment'") for m in messages), messages
    assert all(not m.startswith("DeprecationWarning:") for m in messages)  # the class says it
    assert all(w.filename == __file__ for w in record), [(w.filename, __file__) for w in record]
    assert issubclass(irm.IrmDeprecationWarning, irm.IrmWarning)
    assert issubclass(irm.IrmDeprecationWarning, FutureWarning)  # shown by default


def test_the_same_warning_goes_out_once_per_process():
    text = _unique_legacy_target()
    with warnings.catch_warnings(record=True) as first:
        warnings.simplefilter("always")
        CONVERT(text)
    with warnings.catch_warnings(record=True) as second:
        warnings.simplefilter("always")
        CONVERT(text)
    assert len(first) >= 1 and len(second) == 0


def test_module_and_context_disagreeing_is_a_plain_warning_saying_who_wins():
    algorithm = "algo_%s" % uuid.uuid4().hex
    mod = irm.IRModule().with_attr("usmp.algorithm", "greedy_by_size")
    with irm.PassContext(config={"usmp.algorithm": algorithm}):
        with pytest.warns(irm.IrmWarning) as record:
            assert irm.get_config(mod, "usmp.algorithm") == "greedy_by_size"
    (w,) = record
    assert not isinstance(w.message, irm.IrmDeprecationWarning)
    assert "the module attribute wins" in str(w.message) and algorithm in str(w.message)


def test_reading_a_migrated_option_from_the_context_is_silent():
    with irm.PassContext(config={"usmp.algorithm": "hill_climb"}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert irm.get_config(irm.IRModule(), "usmp.algorithm") == "hill_climb"
            assert irm.get_config(irm.IRModule(), "tir.usmp.algorithm") == "hill_climb"


def test_a_filter_making_warnings_errors_does_not_break_the_call():
    with warnings.catch_warnings():
        warnings.simplefilter("error", irm.IrmWarning)
        target, executor, runtime = CONVERT(_unique_legacy_target())
    assert executor.name == "aot"


def _run(code, **env):
    full = dict(os.environ, PYTHONPATH=PACKAGE_DIR, PYTHONDONTWRITEBYTECODE="1")
    full.pop("IRM_PLUGIN_PATH", None)
    full.update(env)
    return subprocess.run([sys.executable, "-W", "always", "-c", code], env=full, capture_output=True,
                          text=True, timeout=60)


LEGACY = "import irm; print(irm.get_global_func('target.ConvertLegacy')('c -executor=aot')[1].name)"


def test_irm_warnings_error_makes_the_warning_the_callers_exception():
    result = _run(LEGACY, IRM_WARNINGS="error")
    assert result.returncode != 0
    assert ("RuntimeError: target.ConvertLegacy: converting legacy target 'c -executor=aot': "
            "DeprecationWarning: target option '-executor=aot' is deprecated") in result.stderr


def test_irm_warnings_ignore_drops_them():
    result = _run(LEGACY, IRM_WARNINGS="ignore")
    assert result.returncode == 0 and result.stdout.strip() == "aot"
    assert "Warning" not in result.stderr


def test_an_unknown_irm_warnings_value_is_itself_a_warning():
    result = _run(LEGACY, IRM_WARNINGS="loud")
    assert result.returncode == 0
    assert "IRM_WARNINGS='loud' is not a policy (default, ignore, error)" in result.stderr
    assert "IrmDeprecationWarning: target option '-executor=aot' is deprecated" in result.stderr
