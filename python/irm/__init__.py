"""irm from Python: the registries, kinds, module attributes and passes of
libirm through ctypes (nothing to compile).

The library is found through IRM_LIBRARY, then beside this package, then the
repository's build folders (build, build-test), then the system loader.
Plugins named by IRM_PLUGIN_PATH are loaded at import.
"""
from . import _lib
from ._ffi import (Object, Function, Array, Map, PluginError, get_global_func,
                   register_func, list_global_func_names, remove_global_func,
                   from_json, register_object)
from .target import Target, register_target_kind
from .config import Executor, Runtime, register_executor_kind, register_runtime_kind
from .ir import IRModule
from . import transform
from .transform import (PassContext, Pass, Sequential, PassInstrument, module_pass,
                        function_pass, parse_pipeline, get_config, migrate_pass_config)
from .plugin import load_plugin, list_plugins

__version__ = _lib.irm_version().decode()

from ._ffi import check as _check  # noqa: E402

_check(_lib.irm_plugin_load_from_env())
