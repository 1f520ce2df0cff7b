"""Import-time behaviour, each in a fresh interpreter: finding libirm and
loading IRM_PLUGIN_PATH."""
import os
import subprocess
import sys

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
