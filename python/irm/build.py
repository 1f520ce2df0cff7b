"""The compilation driver (docs/build.md): build() with the RFC's call
shape, the BuildResult it returns (the final module, the artifacts, the
params, write() and export_library()), and the typed CompilationConfig
view of a module's configuration."""
from ._ffi import api_global


class BuildResult:
    """What build() gives: ``module`` (the final frozen IRModule),
    ``artifacts`` ({file name: str}; a params file is a str of bytes) and
    ``params``. ``result["module"]`` reads the same fields."""

    def __init__(self, result):
        self._result = result
        self.module = result["module"]
        self.artifacts = result["artifacts"]
        self.params = result["params"]

    def __getitem__(self, key):
        if key not in ("module", "artifacts", "params"):
            raise KeyError(key)
        return getattr(self, key)

    def write(self, directory):
        """Writes every artifact into directory (made when missing)."""
        api_global("BuildResult.write()", "driver.BuildWrite", "result directory")(self._result, str(directory))

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
        default ~/.cache/irm; docs/build.md). Progress shows on a terminal.
        Raises RuntimeError naming the failing unit with the compiler's
        first error, command and output."""
        api_global("BuildResult.export_library()", "driver.ExportLibrary", "result path jobs cache cc")(
            self._result, str(path), jobs, cache, cc)

    def __repr__(self):
        return "BuildResult(mod_name=%r, artifacts=%s)" % (self.module.get_attr("mod_name"),
                                                           sorted(self.artifacts.keys()))


def build(mod, target, target_host=None, executor=None, runtime=None, params=None, mod_name="default"):
    """Builds mod for target (a Target, target text, a dict config, or a
    list of them) and returns a BuildResult. executor and runtime are
    Executor/Runtime objects, kind names or dict configs (default graph
    and cpp); params maps names to tensors (numpy arrays are converted);
    mod_name defaults to "default". Raises ValueError when the
    configuration disagrees (the message names both sides)."""
    if params is not None:
        from .tensor import tensor, Tensor
        params = {name: value if isinstance(value, Tensor) else tensor(value) for name, value in params.items()}
    result = api_global("build()", "driver.Build",
                        "mod target target_host executor runtime params mod_name")(
        mod, target, target_host, executor, runtime, params, mod_name)
    return BuildResult(result)


def compilation_config(mod):
    """The module's CompilationConfig (cached in the module) as a dict
    {host_target, primitive_targets, default_primitive_target, executor,
    runtime}."""
    cfg = api_global("compilation_config()", "ir.CompilationConfig", "mod")(mod)
    fields = api_global("compilation_config()", "ir.CompilationConfigFields", "mod")(cfg)
    return {key: fields[key] for key in ("host_target", "primitive_targets", "default_primitive_target",
                                         "executor", "runtime")}
