"""libirm's warnings through Python's ``warnings`` module.

libirm warns only about what a user should change, and each distinct
warning once per process. A deprecation (its text starts with
"DeprecationWarning: ") becomes :class:`IrmDeprecationWarning`, anything
else :class:`IrmWarning`, so the usual filters apply
(``warnings.simplefilter("error", irm.IrmWarning)``, ``-W``). To drop
warnings or make them errors inside libirm itself, for C and Python alike,
set ``IRM_WARNINGS=ignore`` or ``IRM_WARNINGS=error`` in the environment.
"""
import atexit
import ctypes
import os
import sys
import warnings

from . import _lib

_DEPRECATION = "DeprecationWarning: "


class IrmWarning(UserWarning):
    """A warning from libirm."""


class IrmDeprecationWarning(IrmWarning, FutureWarning):
    """libirm says something is deprecated (a legacy target option, a
    deprecated config option). A FutureWarning, so it shows by default."""


IrmWarning.__module__ = IrmDeprecationWarning.__module__ = "irm"

_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)
_set_handler = _lib._decl("irm_set_warning_handler", None, _HANDLER, ctypes.c_void_p)


def _deliver(msg, user_data):
    text = msg.decode("utf-8", "replace")
    category = IrmWarning
    if text.startswith(_DEPRECATION):
        text, category = text[len(_DEPRECATION):], IrmDeprecationWarning
    try:
        warnings.warn(text, category, stacklevel=_user_stacklevel())
    except Exception:  # a filter turned it into an error: C cannot take it
        pass


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _user_stacklevel():
    """The stacklevel of the first frame outside this package, so the
    warning points at the user's line that called into irm."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        level, frame = level + 1, frame.f_back
    return level


_callback = _HANDLER(_deliver)  # kept alive as long as the module


def install():
    """Routes libirm's warnings to the ``warnings`` module."""
    _set_handler(_callback, None)


@atexit.register
def _uninstall():
    # The interpreter is going away; C code running later (other atexit
    # handlers, threads) must not call back into it.
    _set_handler(ctypes.cast(None, _HANDLER), None)
