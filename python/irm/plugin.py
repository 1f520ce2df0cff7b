"""Plugins: shared objects that register kinds, passes and globals."""
from ._ffi import api_global


def load_plugin(path):
    """Loads a plugin shared object and returns its info dict {name, version,
    path}. Loading the same file again is a no-op. Raises irm.PluginError."""
    return api_global("load_plugin()", "plugin.Load", "path")(str(path)).to_dict()


def list_plugins():
    """The loaded plugins' info dicts, in load order."""
    return [info.to_dict() for info in api_global("list_plugins()", "plugin.List")()]
