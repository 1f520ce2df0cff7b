"""The compilation driver (docs/build.md): build() with the RFC's call
shape, the BuildResult it returns (the final module, the artifacts, the
params, write() and export_library()), and the typed CompilationConfig
view of a module's configuration."""
import os

from ._ffi import api_global

_CACHE_OFF = ("0", "off", "false", "no")


class BuildResult:
    """What build() gives: ``module`` (the final frozen IRModule),
    ``artifacts`` ({file name: str}; a params file is a str of bytes) and
    ``params``. ``result["module"]`` reads the same fields.

    When the build cache holds the library of the same build
    (docs/build.md#model-level-reuse), build() runs no pass and
    export_library() takes that library; the build itself runs, under the
    PassContext build() saw, when a field is first read, on write(), or
    when the entry went meanwhile."""

    def __init__(self, result=None, run=None, model=None):
        self._result, self._run, self._model, self._fields = None, run, model, None
        if result is not None:
            self._take(result)

    def _take(self, result):
        self._result = result
        self._fields = {key: result[key] for key in ("module", "artifacts", "params")}  # one object each

    def _built(self):
        if self._result is None:
            self._take(self._run())
        return self._result

    @property
    def module(self):
        self._built()
        return self._fields["module"]

    @property
    def artifacts(self):
        self._built()
        return self._fields["artifacts"]

    @property
    def params(self):
        self._built()
        return self._fields["params"]

    def __getitem__(self, key):
        if key not in ("module", "artifacts", "params"):
            raise KeyError(key)
        return getattr(self, key)

    def write(self, directory):
        """Writes every artifact into directory (made when missing)."""
        api_global("BuildResult.write()", "driver.BuildWrite", "result directory")(self._built(), str(directory))

    def export_library(self, path, jobs=None, cache=None, cc=None):
        """Compiles the C artifacts into the shared library path with the
        C compiler cc (None: for a target whose -mtriple names another
        architecture, <triple>-gcc, e.g. aarch64-linux-gnu-gcc; else the CC
        environment variable, else cc; a params file goes beside it);
        irm.runtime.load(path) loads it (a library of another architecture
        runs through `irm run`, under qemu). The generated C
        compiles as several units at once: jobs of them (None: the
        IRM_BUILD_JOBS environment variable, else the processors
        available), each object taken from the build cache when it holds
        it (cache None: on unless IRM_CACHE=0; the folder IRM_CACHE_DIR,
        default ~/.cache/irm; docs/build.md). A model built as before is
        taken from the cache whole, without running the passes. Progress
        shows on a terminal. Raises RuntimeError naming the failing unit
        with the compiler's first error, command and output."""
        path = str(path)
        reuse = self._model is not None and cache is not False
        if reuse and self._result is None and (jobs is None or (type(jobs) is int and 0 <= jobs <= 1024)):
            if self._fetch(path, cc):
                return
        api_global("BuildResult.export_library()", "driver.ExportLibrary", "result path jobs cache cc")(
            self._built(), path, jobs, cache, cc)
        if reuse:
            try:
                api_global("BuildResult.export_library()", "driver.ModelLibraryStore",
                           "key prepared result path cc")(self._model[0], self._model[1], self._result, path, cc)
            except Exception:  # noqa: BLE001 -- the library is there; only its reuse is lost
                pass

    def _fetch(self, path, cc):
        """Whether the cache held the library and it is now at path; anything amiss (a compiler
        that cannot be found, a folder that cannot be written) is left to the full export to
        report in its own words."""
        try:
            return bool(api_global("BuildResult.export_library()", "driver.ModelLibraryFetch",
                                   "key prepared path cc")(self._model[0], self._model[1], path, cc))
        except Exception:  # noqa: BLE001
            return False

    def __repr__(self):
        return "BuildResult(mod_name=%r, artifacts=%s)" % (self.module.get_attr("mod_name"),
                                                           sorted(self.artifacts.keys()))


def build(mod, target, target_host=None, executor=None, runtime=None, params=None, mod_name="default"):
    """Builds mod for target (a Target, target text, a dict config, or a
    list of them) and returns a BuildResult. executor and runtime are
    Executor/Runtime objects, kind names or dict configs (default graph
    and cpp); params maps names to tensors (numpy arrays are converted);
    mod_name defaults to "default". Raises ValueError when the
    configuration disagrees (the message names both sides).

    With the build cache on (IRM_CACHE not 0), when it holds the library
    of a build of the same module, arguments, PassContext and irm
    (docs/build.md#model-level-reuse), the passes and code generation wait:
    export_library() takes that library, and reading a field of the result
    builds."""
    if params is not None:
        from .tensor import tensor, Tensor
        params = {name: value if isinstance(value, Tensor) else tensor(value) for name, value in params.items()}
    args = (mod, target, target_host, executor, runtime, params, mod_name)

    def run():
        return api_global("build()", "driver.Build", "mod target target_host executor runtime params mod_name")(*args)

    if os.environ.get("IRM_CACHE", "").strip().lower() in _CACHE_OFF:
        return BuildResult(run())
    try:
        model = api_global("build()", "driver.ModelKey",
                           "mod target target_host executor runtime params mod_name")(*args)
    except Exception:  # noqa: BLE001 -- the build says what is wrong, in its own words
        model = None
    if model is None:
        return BuildResult(run())
    model = (model[0], model[1])
    try:
        held = api_global("build()", "driver.ModelLibraryFetch", "key prepared path")(model[0], model[1], None)
    except Exception:  # noqa: BLE001 -- a compiler not found: export_library will say so
        held = False
    if not held:
        return BuildResult(run(), model=model)  # build now, as without the cache
    from .transform import PassContext
    ctx = PassContext.current()

    def run_later():
        with ctx:
            return run()

    return BuildResult(run=run_later, model=model)


def compilation_config(mod):
    """The module's CompilationConfig (cached in the module) as a dict
    {host_target, primitive_targets, default_primitive_target, executor,
    runtime}."""
    cfg = api_global("compilation_config()", "ir.CompilationConfig", "mod")(mod)
    fields = api_global("compilation_config()", "ir.CompilationConfigFields", "mod")(cfg)
    return {key: fields[key] for key in ("host_target", "primitive_targets", "default_primitive_target",
                                         "executor", "runtime")}
