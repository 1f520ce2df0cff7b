"""Loading and running an exported AOT library (docs/runtime.md):
irm.runtime.load(path [, mod_name]) gives a Module whose run() takes numpy arrays or
irm tensors and returns numpy arrays (irm tensors without numpy)."""
import json

from ._ffi import api_global


class Module:
    """A loaded AOT library. ``inputs`` / ``outputs``: lists of dicts
    {name, shape, dtype} from the library's metadata."""

    def __init__(self, handle, path):
        self._handle = handle
        self.path = path
        self.metadata = json.loads(str(api_global("Module.metadata", "runtime.ModuleMetadata", "module")(handle)))
        self.inputs = [{k: d[k] for k in ("name", "shape", "dtype")} for d in self.metadata["inputs"]]
        self.outputs = [{k: d[k] for k in ("name", "shape", "dtype")} for d in self.metadata["outputs"]]

    def run(self, *args, **named):
        """Runs the module on its inputs, given in order or by name (not
        both); returns one array, or a tuple of arrays for several outputs.
        Raises TypeError for a missing or unknown input name and
        ValueError (from the library) for a wrong dtype or shape."""
        names = [d["name"] for d in self.inputs]
        if args and named:
            raise TypeError("Module.run: give the inputs in order or by name, not both")
        if named:
            unknown = sorted(set(named) - set(names))
            if unknown:
                raise TypeError("Module.run: unknown input %r; the inputs are %s" % (unknown[0], names))
            missing = [n for n in names if n not in named]
            if missing:
                raise TypeError("Module.run: missing input %r" % missing[0])
            args = [named[n] for n in names]
        from .tensor import Tensor, tensor
        tensors = [a if isinstance(a, Tensor) else tensor(a) for a in args]
        outs = api_global("Module.run()", "runtime.ModuleRun", "module inputs")(self._handle, tensors)
        results = []
        for t in outs:
            try:
                results.append(t.numpy().copy())
            except ImportError:
                results.append(t)
        return results[0] if len(results) == 1 else tuple(results)

    def __repr__(self):
        return "irm.runtime.Module(%r, mod_name=%r)" % (self.path, self.metadata["mod_name"])


def load(path, mod_name=None):
    """Loads module mod_name of the library at path (exported by
    BuildResult.export_library; mod_name None: the library's only module)
    through the executor.load of the executor kind that built it; reads the
    params file beside it when the library was built with link-params =
    false. Raises RuntimeError (cannot load) or ValueError (not an irm
    library, several modules and no mod_name, an executor kind that is not
    registered or has no executor.load)."""
    if mod_name is None:
        return Module(api_global("irm.runtime.load()", "runtime.Load", "path")(str(path)), str(path))
    return Module(api_global("irm.runtime.load()", "runtime.Load", "path, mod_name")(str(path), str(mod_name)),
                  str(path))


from .graph_module import GraphModule  # noqa: E402,F401  (docs/graph.md)
