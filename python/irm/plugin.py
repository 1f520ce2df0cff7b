"""Plugins: shared objects that register kinds, passes and globals, and
files of rewrite rules (*.rules) that register passes."""
from ._ffi import api_global


def load_plugin(path):
    """Loads a plugin (a shared object or a *.rules file) and returns its
    info dict {name, version, path}; a rules file's name is its file name and
    its version "". Loading the same file again is a no-op. Raises
    irm.PluginError."""
    return api_global("load_plugin()", "plugin.Load", "path")(str(path)).to_dict()


def list_plugins():
    """The loaded plugins' info dicts (shared objects and rules files), in
    load order."""
    return [info.to_dict() for info in api_global("list_plugins()", "plugin.List")()]
