"""Import-time behaviour, each in a fresh interpreter: finding libirm,
loading IRM_PLUGIN_PATH, and what `import irm` leaves for first use."""
import ctypes.util
import os
import shutil
import subprocess
import sys

import pytest

import irm

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(irm.__file__)))


def _import(**env):
    full = dict(os.environ, PYTHONPATH=PACKAGE_DIR, PYTHONDONTWRITEBYTECODE="1")
    full.pop("IRM_PLUGIN_PATH", None)
    full.update(env)
    return subprocess.run([sys.executable, "-c", "import irm; print(irm.__version__)"],
                          env=full, capture_output=True, text=True, timeout=60)


def test_irm_library_is_used_as_given():
    result = _import(IRM_LIBRARY=irm._lib.LIB._name)
    assert result.returncode == 0 and result.stdout.strip() == irm.__version__


def test_a_bad_irm_library_is_an_import_error_naming_it():
    result = _import(IRM_LIBRARY="/nonexistent/libirm.so")
    assert result.returncode != 0
    assert "ImportError: irm: cannot load IRM_LIBRARY=/nonexistent/libirm.so" in result.stderr


def test_a_bad_irm_plugin_path_fails_the_import_with_a_plugin_error():
    result = _import(IRM_LIBRARY=irm._lib.LIB._name, IRM_PLUGIN_PATH="/nonexistent/p.so")
    assert result.returncode != 0
    assert "irm.PluginError: IRM_PLUGIN_PATH: cannot load plugin" in result.stderr


def _copy_of_the_package(tmp_path, install_paths=None):
    """The package alone in tmp_path (outside any source tree), with an
    irm/_install_paths.py holding install_paths when given."""
    shutil.copytree(os.path.join(PACKAGE_DIR, "irm"), str(tmp_path / "irm"),
                    ignore=shutil.ignore_patterns("__pycache__", "_install_paths.py"))
    if install_paths is not None:
        (tmp_path / "irm" / "_install_paths.py").write_text(install_paths)
    return str(tmp_path)


def _import_copy(path, code="import irm; print(irm._lib.LIB._name)"):
    full = dict(os.environ, PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1")
    for name in ("IRM_PLUGIN_PATH", "IRM_LIBRARY", "LD_LIBRARY_PATH"):
        full.pop(name, None)
    return subprocess.run([sys.executable, "-c", code], env=full, cwd=path,
                          capture_output=True, text=True, timeout=60)


LIBDIR = os.path.dirname(os.path.abspath(irm._lib.LIB._name))


def test_the_folder_recorded_by_pip_is_used(tmp_path):
    path = _copy_of_the_package(tmp_path, "LIBDIR = %r\nLIBDIR_SOURCE = 'a test'\n" % LIBDIR)
    result = _import_copy(path)
    assert result.returncode == 0, result.stderr
    assert os.path.dirname(result.stdout.strip()) == LIBDIR


def test_the_libdir_relative_to_the_package_is_used(tmp_path):
    relative = os.path.relpath(LIBDIR, str(tmp_path / "irm"))
    result = _import_copy(_copy_of_the_package(tmp_path, "LIBDIR_FROM_PACKAGE = %r\n" % relative))
    assert result.returncode == 0, result.stderr
    assert os.path.normpath(os.path.dirname(result.stdout.strip())) == LIBDIR


@pytest.mark.skipif(ctypes.util.find_library("irm") is not None,
                    reason="the system loader finds a libirm")
def test_no_libirm_is_an_import_error_listing_every_path_tried(tmp_path):
    path = _copy_of_the_package(
        tmp_path, "LIBDIR = '/nonexistent/recorded'\nLIBDIR_SOURCE = 'a test'\n"
        "LIBDIR_FROM_PACKAGE = '../no-prefix/lib'\n")
    result = _import_copy(path)
    assert result.returncode != 0
    assert "ImportError: irm: cannot find libirm. Tried, in order:" in result.stderr
    package = os.path.join(path, "irm")
    for line in ("beside the package: %s/libirm.so.0 (no such file)" % package,
                 "beside the package: %s/libirm.so (no such file)" % package,
                 "recorded by pip install (a test): /nonexistent/recorded/libirm.so.0 (no such file)",
                 "the install prefix: %s/libirm.so (no such file)"
                 % os.path.join(path, "no-prefix", "lib"),
                 "the system loader: libirm.so.0 ("):
        assert "\n  " + line in result.stderr, result.stderr
    assert "Set IRM_LIBRARY" in result.stderr
    assert "source tree" not in result.stderr.split("Set IRM_LIBRARY")[0]


def test_tuning_is_imported_on_first_use():
    # irm.tune's sqlite3, multiprocessing and concurrent.futures were a third
    # of `import irm`; a build or a run never needs them.
    code = ("import sys, irm; heavy = [m for m in ('irm.tune', 'irm.tune_measure', 'sqlite3', 'multiprocessing',"
            " 'concurrent.futures') if m in sys.modules]; print(heavy); from irm import tune;"
            " print(irm.tune.Database.__name__, irm.tune_measure.__name__, tune is irm.tune)")
    full = dict(os.environ, PYTHONPATH=PACKAGE_DIR, PYTHONDONTWRITEBYTECODE="1", IRM_LIBRARY=irm._lib.LIB._name)
    full.pop("IRM_PLUGIN_PATH", None)
    result = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["[]", "Database irm.tune_measure True"]
