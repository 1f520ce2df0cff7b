"""irm.compile: an ONNX file to an exported library in one call (import,
build, export_library), in the spirit of TVM's ``tvmc compile``, with reuse
keyed by the file (docs/build.md#reuse-from-the-onnx-file): rebuilding from
an unchanged file with the same options takes the finished library from the
build cache without reading the file."""
import importlib.util
import json
import os
import time

from ._ffi import api_global
from .build import build, _CACHE_OFF

_FRONTEND_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frontend")


class CompileResult:
    """What compile() gives: ``library`` (the path of the library, str),
    ``reused`` (True when the build cache held it: nothing was imported,
    built or exported) and ``times`` (wall seconds of each stage run:
    ``key`` (the source key), and when not reused ``import`` (from_onnx),
    ``build`` and ``export``). ``os.fspath(result)`` and ``str(result)`` are
    the library's path, so irm.runtime.load(result) loads it."""

    __slots__ = ("library", "reused", "times")

    def __init__(self, library, reused, times):
        self.library, self.reused, self.times = library, reused, times

    def __fspath__(self):
        return self.library

    def __str__(self):
        return self.library

    def __repr__(self):
        return "CompileResult(library=%r, reused=%r)" % (self.library, self.reused)


def _canonical(value):
    """An option as text that equal options share (dict order does not matter)."""
    return json.dumps(value, sort_keys=True, default=repr)


def _frontend_text(shape, dtype, max_constant_bytes):
    """What decides the module the frontend makes of a file, beside its bytes:
    the options and the frontend's own identity (its files' size and time, and
    the onnx package's), so that an edited frontend or another onnx misses."""
    lines = ["irm onnx source 1", "shape " + _canonical(shape), "dtype " + _canonical(dtype),
             "max_constant_bytes " + _canonical(max_constant_bytes)]
    with os.scandir(_FRONTEND_DIR) as entries:
        files = sorted((e.name, e.stat()) for e in entries if e.name.endswith(".py"))
    lines += ["%s %d %d" % (name, st.st_size, st.st_mtime_ns) for name, st in files]
    spec = importlib.util.find_spec("onnx")
    origin = spec.origin if spec is not None else None
    if origin:
        st = os.stat(origin)
        lines.append("onnx %s %d %d" % (origin, st.st_size, st.st_mtime_ns))
    return "\n".join(lines) + "\n"


def _uses_external_data(model):
    """Whether a tensor of the model lives in another file (its bytes are then
    not in the file the key hashes: such a model is not reused)."""
    import onnx
    external = onnx.TensorProto.EXTERNAL

    def graph_uses(g):
        if any(t.data_location == external for t in g.initializer):
            return True
        if any(s.values.data_location == external for s in g.sparse_initializer):
            return True
        for node in g.node:
            for a in node.attribute:
                tensors = ([a.t] if a.HasField("t") else []) + list(a.tensors)
                if any(t.data_location == external for t in tensors):
                    return True
                graphs = ([a.g] if a.HasField("g") else []) + list(a.graphs)
                if any(graph_uses(sub) for sub in graphs):
                    return True
        return False

    return graph_uses(model.graph)


def _cache_on(cache):
    if cache is not None:
        return bool(cache)
    return os.environ.get("IRM_CACHE", "").strip().lower() not in _CACHE_OFF


def compile(path, target, library, *, shape=None, dtype=None, max_constant_bytes=None, executor=None,
            runtime=None, target_host=None, mod_name="default", jobs=None, cache=None, cc=None):
    """Imports the ONNX file path (irm.frontend.from_onnx with shape, dtype
    and max_constant_bytes), builds it (irm.build with target, target_host,
    executor, runtime, mod_name, under the current PassContext) and exports
    the library to library (BuildResult.export_library with jobs, cache and
    cc); returns a CompileResult (os.fspath of it is the library's path).

    With the build cache on (cache None: unless IRM_CACHE=0; False: off),
    a **source key** over the file's content digest (memoized per stat in
    the cache: an unchanged file is not read again), the frontend options
    and identity, irm, the PassContext and the resolved build configuration
    names the library in the cache: when it is there, it is put at library
    (a hard link) and nothing is imported, built or exported; else the
    library is stored under it after the export. Not reused: what
    irm.build's model-level reuse does not reuse (a PassContext with
    instruments, a tune.database, an executor other than aot and graph, a
    library with a params file beside it), and a model with tensors in
    external data files. Errors are those of from_onnx, irm.build and
    export_library."""
    path, library = os.fspath(path), os.fspath(library)
    times = {}
    t0 = time.perf_counter()
    source = None
    jobs_ok = jobs is None or (type(jobs) is int and 0 <= jobs <= 1024)  # else export_library reports it
    if _cache_on(cache) and jobs_ok:
        source = _source_key(path, target, target_host, executor, runtime, mod_name,
                             _frontend_text(shape, dtype, max_constant_bytes))
        if source is not None and _library_call("driver.ModelLibraryFetch", "key prepared path cc",
                                                source[0], source[1], library, cc):
            times["key"] = time.perf_counter() - t0
            return CompileResult(library, True, times)
    t1 = time.perf_counter()
    times["key"] = t1 - t0
    from .frontend import onnx as frontend
    model = frontend._parse_file(path)
    if source is not None and _uses_external_data(model):
        source = None
    frontend._load_external(model, path)
    from_onnx = frontend.from_onnx
    mod, params = from_onnx(model, shape=shape, dtype=dtype, max_constant_bytes=max_constant_bytes)
    t2 = time.perf_counter()
    times["import"] = t2 - t1
    result = build(mod, target, target_host=target_host, executor=executor, runtime=runtime, params=params,
                   mod_name=mod_name)
    t3 = time.perf_counter()
    times["build"] = t3 - t2
    result.export_library(library, jobs=jobs, cache=cache, cc=cc)
    times["export"] = time.perf_counter() - t3
    if source is not None:  # result._result None: the library came whole from a model-level entry (it stands alone)
        _library_call("driver.ModelLibraryStore", "key prepared result path cc", source[0], source[1],
                      result._result, library, cc)
    return CompileResult(library, False, times)


def _source_key(path, target, target_host, executor, runtime, mod_name, frontend):
    """(key, prepared module), or None when the build cannot be reused or the
    key cannot be taken (a file that cannot be read, a bad argument: the
    import and the build report those in their own words)."""
    try:
        got = api_global("compile()", "driver.SourceKey", "path frontend target target_host executor runtime mod_name")(
            path, frontend, target, target_host, executor, runtime, mod_name)
    except Exception:  # noqa: BLE001
        return None
    return None if got is None else (got[0], got[1])


def _library_call(name, names, *args):
    """driver.ModelLibraryFetch / Store; anything amiss (a compiler not found,
    a folder that cannot be written) only loses the reuse."""
    try:
        return bool(api_global("compile()", name, names)(*args))
    except Exception:  # noqa: BLE001
        return False
