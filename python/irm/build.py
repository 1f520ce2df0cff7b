"""The compilation driver (docs/build.md): build() and the typed
CompilationConfig view of a module's configuration. Code generation is not
built yet: a build's artifacts come from external codegens
(codegen.ext.<Compiler>) and an executor kind's executor.codegen only."""
from ._ffi import api_global


def build(mod, target, target_host=None, executor=None, runtime=None, params=None, mod_name=None):
    """Builds mod for target (a Target, target text, a dict config, or a
    list of them) and returns a dict {"module": the final frozen IRModule,
    "artifacts": {file name: str}, "params": params}. executor and runtime
    are Executor/Runtime objects, kind names or dict configs (default graph
    and cpp); mod_name defaults to "default". Raises ValueError when the
    configuration disagrees (the message names both sides)."""
    result = api_global("build()", "driver.Build",
                        "mod target target_host executor runtime params mod_name")(
        mod, target, target_host, executor, runtime, params, mod_name)
    return {key: result[key] for key in ("module", "artifacts", "params")}


def compilation_config(mod):
    """The module's CompilationConfig (cached in the module) as a dict
    {host_target, primitive_targets, default_primitive_target, executor,
    runtime}."""
    cfg = api_global("compilation_config()", "ir.CompilationConfig", "mod")(mod)
    fields = api_global("compilation_config()", "ir.CompilationConfigFields", "mod")(cfg)
    return {key: fields[key] for key in ("host_target", "primitive_targets", "default_primitive_target",
                                         "executor", "runtime")}
