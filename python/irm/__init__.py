"""irm from Python: the registries, kinds, module attributes and passes of
libirm through ctypes (nothing to compile; numpy optional).

libirm is found through IRM_LIBRARY, then beside this package, then the
folder recorded when pip installed it, then the install prefix holding it,
then the source tree's build folders (build, build-test), then the system
loader (the order is documented in irm/_lib.py); ImportError lists every
path tried. The plugins named by IRM_PLUGIN_PATH are loaded at import (a
failure raises irm.PluginError). libirm's warnings arrive through the
``warnings`` module as irm.IrmWarning and irm.IrmDeprecationWarning.
"""
import sys as _sys

from . import _lib
from ._ffi import (Object, Function, Array, Map, PluginError, check as _check,
                   get_global_func, register_func, list_global_func_names,
                   remove_global_func, from_json, register_object)
from .target import Target, register_target_kind
from .config import Executor, Runtime, register_executor_kind, register_runtime_kind
from .ir import IRModule
from . import ir
# irm.tensor is the function (the module stays reachable as irm.Tensor's home).
from .tensor import Tensor, tensor, from_dlpack
from . import transform
from .transform import (PassContext, Pass, PassInfo, Sequential, PassInstrument,
                        PassTimingInstrument, PassPrintingInstrument, PassBisectInstrument,
                        module_pass, function_pass, parse_pipeline, get_config,
                        migrate_pass_config, register_config)
from .plugin import load_plugin, list_plugins
from .build import build, compilation_config, BuildResult
# irm.compile is the function (an ONNX file to a library; the module stays in sys.modules).
from .compile import compile, CompileResult  # noqa: A004
from . import runtime
from . import pattern
from . import op  # TVM's op constructors (irm.op.zeros, irm.op.full_like, ...)
from . import expr_functor  # ExprVisitor, ExprMutator (irm.ir's too)
from ._warnings import IrmWarning, IrmDeprecationWarning, install as _install_warnings
ir.pattern = pattern  # irm.ir.pattern, TVM's place for it (irm.ir is a module, not a package)
_sys.modules[__name__ + ".ir.pattern"] = pattern
_sys.modules[__name__ + ".ir.expr_functor"] = expr_functor  # as tvm.relay.expr_functor

__version__ = _lib.irm_version().decode()

_install_warnings()

_check(_lib.irm_plugin_load_from_env())


def __getattr__(name):
    # Imported on first use: irm.quantize needs numpy, and irm.tune and
    # irm.tune_measure bring sqlite3, multiprocessing and concurrent.futures
    # (a third of `import irm`'s time), which a build or a run never needs.
    if name in ("quantize", "tune", "tune_measure"):
        import importlib
        return importlib.import_module(__name__ + "." + name)
    raise AttributeError("module 'irm' has no attribute '%s'" % name)
