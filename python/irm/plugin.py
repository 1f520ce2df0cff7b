"""Plugins: shared objects that register kinds, passes and globals."""
from ._ffi import _global


def load_plugin(path):
    """Loads a plugin shared object and returns its info dict {name, version,
    path}. Loading the same file again is a no-op. Raises irm.PluginError."""
    return _global("plugin.Load")(str(path)).to_dict()


def list_plugins():
    """The loaded plugins' info dicts, in load order."""
    return [info.to_dict() for info in _global("plugin.List")()]
