"""Builds the irm package for pip (pyproject.toml names this backend):

    python3 -m pip install --no-build-isolation <this folder>

<this folder> is python/ of a source tree or <prefix>/share/irm/python of an
installed tree. Either way the built package records the absolute folder
holding libirm, as LIBDIR in irm/_install_paths.py (irm/_lib.py reads it):

- from a source tree: the lib folder of the build folder IRM_BUILD_DIR
  (absolute, or relative to the source tree's root) when it is set, else
  of the first of build, build-test that holds libirm;
- from an install prefix: the prefix's libdir, which the
  irm/_install_paths.py written by cmake --install gives relative to the
  package (so the prefix may have moved since it was installed).

The package does not copy libirm: rebuilding the build folder updates what
Python loads; moving or deleting that folder (or the prefix) after pip
install means installing the package again (or setting IRM_LIBRARY).

Nothing is written into <this folder> (a prefix may be read-only):
setuptools' build and egg-info folders go to a temporary folder.
"""
import atexit
import os
import re
import shutil
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PATHS = os.path.join(HERE, "irm", "_install_paths.py")
REPO = os.path.dirname(HERE)
VERSION_H = os.path.join(REPO, "include", "irm", "version.h")
NAMES = ("libirm.so.0", "libirm.so")
BUILD_FOLDERS = ("build", "build-test")


def _fail(message):
    raise SystemExit("irm: " + message)


def _installed():
    """The values cmake --install wrote, or None in a source tree."""
    if not os.path.isfile(PATHS):
        return None
    values = {}
    with open(PATHS, encoding="utf-8") as f:
        exec(compile(f.read(), PATHS, "exec"), values)  # pylint: disable=exec-used
    return values


def _has_libirm(folder):
    return any(os.path.exists(os.path.join(folder, name)) for name in NAMES)


def _version():
    installed = _installed()
    if installed:
        return installed["VERSION"]
    if not os.path.isfile(VERSION_H):
        _fail("%s is neither python/ of a source tree (no %s) nor an install prefix's"
              " share/irm/python (no %s)" % (HERE, VERSION_H, PATHS))
    with open(VERSION_H, encoding="utf-8") as f:
        text = f.read()
    parts = [re.search(r"#define IRM_VERSION_%s (\d+)" % part, text) for part in
             ("MAJOR", "MINOR", "PATCH")]
    if not all(parts):
        _fail("no IRM_VERSION_MAJOR, _MINOR, _PATCH in " + VERSION_H)
    return ".".join(match.group(1) for match in parts)


def _libdir():
    """(libirm's folder, a description of where it comes from)."""
    installed = _installed()
    if installed:
        prefix_libdir = os.path.normpath(os.path.join(HERE, "irm", installed["LIBDIR_FROM_PACKAGE"]))
        if not _has_libirm(prefix_libdir):
            _fail("no libirm in %s, the libdir of this install prefix" % prefix_libdir)
        prefix = os.path.normpath(os.path.join(HERE, "irm", installed["PREFIX_FROM_PACKAGE"]))
        return prefix_libdir, "the install prefix " + prefix
    chosen = os.environ.get("IRM_BUILD_DIR")
    builds = [os.path.join(REPO, chosen)] if chosen else [os.path.join(REPO, b) for b in BUILD_FOLDERS]
    for build in builds:
        for libdir in (os.path.join(build, "lib"), build):
            if _has_libirm(libdir):
                return os.path.normpath(libdir), "the build folder " + os.path.normpath(build)
    _fail("no libirm in %s: build it first (./scripts/run), or name the build folder with"
          " IRM_BUILD_DIR=<folder>" % " or ".join(builds))
    return None


class BuildPy(build_py):
    """build_py, then irm/_install_paths.py recording libirm's folder."""

    def run(self):
        super().run()
        libdir, source = _libdir()
        target = os.path.join(self.build_lib, "irm", "_install_paths.py")
        if os.path.exists(target):  # the prefix's copy, maybe read-only
            os.remove(target)
        with open(target, "w", encoding="utf-8") as f:
            f.write("# Written by python/setup.py when pip built this package: the folder of\n"
                    "# the libirm it uses (see irm/_lib.py).\n"
                    "VERSION = %r\nLIBDIR = %r\nLIBDIR_SOURCE = %r\n"
                    % (self.distribution.get_version(), libdir, source))


def _check_wheel_support():
    """pip builds a wheel: setuptools before 70.1 needs the wheel package
    for that, and without it fails with "invalid command 'bdist_wheel'".
    Say what to do instead (a pyenv or conda python3 first on PATH has
    neither Debian's python3-wheel nor, often, wheel itself)."""
    import sys

    import setuptools
    try:
        import wheel  # noqa: F401
        return
    except ImportError:
        pass
    version = tuple(int(p) for p in re.findall(r"\d+", setuptools.__version__)[:2])
    if version >= (70, 1):
        return  # bdist_wheel is setuptools' own
    _fail("%s has setuptools %s and no 'wheel' package, which pip needs to build this package. Use Debian's "
          "python: /usr/bin/python3 -m venv --system-site-packages ENV (python3-pip brings python3-wheel); or, in "
          "this Python's environment, pip install wheel (from PyPI) first; or skip pip: "
          "export PYTHONPATH=%s" % (sys.executable, setuptools.__version__, HERE))


_check_wheel_support()
_SCRATCH = tempfile.mkdtemp(prefix="irm-setup-")
atexit.register(shutil.rmtree, _SCRATCH, True)

setup(
    version=_version(),
    packages=["irm", "irm.frontend", "irm.tune"],
    cmdclass={"build_py": BuildPy},
    options={"build": {"build_base": os.path.join(_SCRATCH, "build")},
             "egg_info": {"egg_base": _SCRATCH}},
)
