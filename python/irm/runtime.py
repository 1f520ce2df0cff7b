"""Loading and running an exported AOT library (docs/runtime.md):
irm.runtime.load(path [, mod_name]) gives a Module whose run() takes numpy arrays or
irm tensors and returns numpy arrays (irm tensors without numpy), or writes into
the caller's arrays (``run(..., out=...)``)."""
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

    def run(self, *args, out=None, **named):
        """Runs the module on its inputs, given in order or by name (not
        both); returns one array, or a tuple of arrays for several outputs.
        With ``out`` (a numpy array or irm Tensor, or a tuple or list of them
        with one per output) writes the outputs into it without a copy
        (runtime.ModuleRunInto) and returns ``out``: a numpy array must be
        C-contiguous, writeable and of the output's dtype (TypeError or
        ValueError naming the output otherwise), and a wrong shape is a
        ValueError from the library; nothing is written on these errors.
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
        tensors = [_in_tensor(a) for a in args]
        if out is not None:
            api_global("Module.run()", "runtime.ModuleRunInto", "module inputs outputs")(
                self._handle, tensors, self._out_tensors(out))
            return out
        outs = api_global("Module.run()", "runtime.ModuleRun", "module inputs")(self._handle, tensors)
        results = []
        for t in outs:
            try:
                results.append(t.numpy().copy())
            except ImportError:
                results.append(t)
        return results[0] if len(results) == 1 else tuple(results)

    def _out_tensors(self, out):
        """out as irm tensors sharing its memory, one per output."""
        many = isinstance(out, (tuple, list))
        items = list(out) if many else [out]
        if len(items) != len(self.outputs):
            raise ValueError("Module.run: out has %d array%s; module %r has %d output%s"
                             % (len(items), "" if len(items) == 1 else "s", self.metadata["mod_name"],
                                len(self.outputs), "" if len(self.outputs) == 1 else "s"))
        return [_out_tensor(a, d) for a, d in zip(items, self.outputs)]

    @property
    def num_threads(self):
        """The threads this module's kernels may use (1 for a library
        without threads)."""
        return int(api_global("Module.num_threads", "runtime.ModuleNumThreads", "module")(self._handle))

    def __repr__(self):
        return "irm.runtime.Module(%r, mod_name=%r)" % (self.path, self.metadata["mod_name"])


def _in_tensor(a):
    """a as an irm tensor: shared without a copy when it is an irm Tensor or
    a compact, writeable array of an irm dtype (numpy's DLPack export
    refuses read-only arrays), a new tensor holding a copy otherwise."""
    from .tensor import Tensor, from_dlpack, tensor
    if isinstance(a, Tensor):
        return a
    flags = getattr(a, "flags", None)
    if flags is not None and hasattr(a, "__dlpack__") and flags["C_CONTIGUOUS"] and flags["WRITEABLE"]:
        try:
            return from_dlpack(a)
        except (TypeError, ValueError, BufferError):
            pass  # a dtype irm lacks, an odd offset: tensor() copies, or says why not
    return tensor(a)


def _out_tensor(a, desc):
    """An irm tensor sharing a's memory, for output desc; a numpy array is
    wrapped through DLPack, which shares it only when it is compact and
    writeable."""
    from .tensor import Tensor, from_dlpack
    if isinstance(a, Tensor):
        return a
    what = "Module.run: out for output %r" % desc["name"]
    flags = getattr(a, "flags", None)
    if flags is None or not hasattr(a, "__dlpack__"):
        raise TypeError("%s: expected a numpy array or irm Tensor, got %s" % (what, type(a).__name__))
    dtype = str(a.dtype)
    if dtype != desc["dtype"]:
        raise TypeError("%s: expected dtype %s, got %s (it is written in place: no conversion)"
                        % (what, desc["dtype"], dtype))
    if tuple(a.shape) != tuple(desc["shape"]):
        raise ValueError("%s: expected shape %s, got %s" % (what, tuple(desc["shape"]), tuple(a.shape)))
    if not flags["C_CONTIGUOUS"]:
        raise ValueError("%s: the array is not C-contiguous, so it cannot be written without a copy "
                         "(numpy.ascontiguousarray makes one that is)" % what)
    if not flags["WRITEABLE"]:
        raise ValueError("%s: the array is read-only" % what)
    return from_dlpack(a)


def load(path, mod_name=None, num_threads=None):
    """Loads module mod_name of the library at path (exported by
    BuildResult.export_library; mod_name None: the library's only module)
    through the executor.load of the executor kind that built it; reads the
    params file beside it when the library was built with link-params =
    false. num_threads: the threads its kernels may use (0: every CPU the
    process may use; None: the IRM_NUM_THREADS environment variable, else
    the Runtime's num-threads the library was built with; docs/threads.md).
    Raises RuntimeError (cannot load) or ValueError (not an irm library,
    several modules and no mod_name, an executor kind that is not
    registered or has no executor.load, a thread count out of range)."""
    if num_threads is not None:
        if isinstance(num_threads, bool) or not isinstance(num_threads, int):
            raise TypeError("irm.runtime.load: num_threads must be an int, got %s" % type(num_threads).__name__)
        if num_threads < 0:
            raise ValueError("irm.runtime.load: num_threads must be 0 (every CPU) or a thread count, got %d"
                             % num_threads)
        handle = api_global("irm.runtime.load()", "runtime.Load", "path, mod_name, num_threads")(
            str(path), None if mod_name is None else str(mod_name), num_threads)
    elif mod_name is None:
        handle = api_global("irm.runtime.load()", "runtime.Load", "path")(str(path))
    else:
        handle = api_global("irm.runtime.load()", "runtime.Load", "path, mod_name")(str(path), str(mod_name))
    return Module(handle, str(path))


def save_param_dict(params):
    """The weights params (a dict name -> irm Tensor or numpy array) as
    bytes in TVM's param-dict layout (relay.save_param_dict's; the params
    file irm build writes; include/irm/param_dict.h). TypeError for a value
    that is no tensor."""
    from .tensor import Tensor, tensor
    if not isinstance(params, dict):
        raise TypeError("irm.runtime.save_param_dict: params must be a dict name -> tensor, got %s"
                        % type(params).__name__)
    converted = {str(k): v if isinstance(v, Tensor) else tensor(v) for k, v in params.items()}
    data = api_global("irm.runtime.save_param_dict()", "runtime.SaveParams", "params")(converted)
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def load_param_dict(data):
    """The dict name -> irm Tensor that data (bytes of TVM's param-dict
    layout, as save_param_dict gives) holds. ValueError naming what is
    wrong for bytes that are no param dict (bad magic, truncated, ...)."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("irm.runtime.load_param_dict: data must be bytes, got %s" % type(data).__name__)
    m = api_global("irm.runtime.load_param_dict()", "runtime.LoadParams", "data")(bytes(data))
    return {k: m[k] for k in m.keys()}


from .graph_module import GraphModule  # noqa: E402,F401  (docs/graph.md)
