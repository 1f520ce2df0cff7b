"""Passes, pipelines, PassContext and instruments, shaped like tvm.transform."""
import functools

from ._ffi import Object, register_object, _global, api_global as _A


class PassInfo:
    """What instruments learn about a pass: name, opt_level, required."""

    __slots__ = ("name", "opt_level", "required")

    def __init__(self, info):
        self.name = info["name"]
        self.opt_level = info["opt_level"]
        self.required = list(info["required"])

    def __repr__(self):
        return "PassInfo(name=%r, opt_level=%d, required=%r)" % (
            self.name, self.opt_level, self.required)


@register_object("transform.Pass")
class Pass(Object):
    """A pass: calling it on an IRModule runs it under the current PassContext
    and returns the new module. str() is its pipeline text."""

    __slots__ = ()

    def __call__(self, mod):
        return _A("Pass.__call__()", "transform.RunPass", "self mod")(self, mod)

    @property
    def info(self):
        return PassInfo(_global("transform.PassInfo")(self))

    @property
    def name(self):
        return self.info.name

    def __str__(self):
        return _global("transform.PrintPipeline")(self)

    @staticmethod
    def get(name, options=None):
        """The registered pass name, with options (a dict) applied."""
        return _A("Pass.get()", "transform.GetPass", "name options")(
            *((name,) if options is None else (name, options)))

    @staticmethod
    def list_registered():
        """The names of the registered passes."""
        return list(_global("transform.ListPasses")())


def Sequential(passes, opt_level=0, name="sequential"):  # noqa: N802 (TVM's name)
    """A pass running passes in order (itself a pass, so instruments see it)."""
    return _A("Sequential()", "transform.Sequential", "passes opt_level name")(list(passes), opt_level, name)


# ---- BYOC: TVM's annotation flow (docs/patterns.md#byoc-annotating-merging-partitioning) ----

def AnnotateTarget(targets, include_non_call_ops=True):  # noqa: N802 (TVM's name)
    """The pass wrapping each call a compiler of targets (a name or a list,
    first match wins) supports in annotation.compiler_begin/compiler_end,
    the others for "default". Support: the op attribute ``target.<name>``
    (irm.ir.register_op_attr), or a composite function's Compiler (or its
    Composite name up to the first '.'). include_non_call_ops is TVM's
    option and has no effect: tuples stay outside the regions."""
    if isinstance(targets, str):
        targets = [targets]
    return Pass.get("AnnotateTarget", {"targets": list(targets),
                                       "include_non_call_ops": bool(include_non_call_ops)})


def MergeComposite(pattern_table):  # noqa: N802 (TVM's name)
    """The pass outlining each match of the table's patterns (``[(name,
    pattern), ...]``, highest priority first) into a function with
    Composite=name (transform.MergeComposite); AnnotateTarget takes a
    composite for the compiler its name starts with ("accel.conv" ->
    "accel"). TVM's optional third item, a check function, is refused:
    ValueError."""
    table = []
    for entry in pattern_table:
        if len(entry) != 2:
            raise ValueError("MergeComposite: entry %r: expected (name, pattern); check functions are not "
                             "supported" % (entry[0] if entry else entry,))
        table.append([entry[0], entry[1]])
    merge = _A("MergeComposite()", "transform.MergeComposite", "mod pattern_table")

    def run(mod, ctx):
        return merge(mod, table)
    return _make_pass("transform.CreateModulePass", run, 0, "MergeComposite", None)


def MergeCompilerRegions():  # noqa: N802 (TVM's name)
    """The pass making neighbouring annotated regions of one compiler one
    region, unless that would make a cycle."""
    return Pass.get("MergeCompilerRegions")


def PartitionGraph(mod_name="default"):  # noqa: N802 (TVM's name)
    """The pass outlining each annotated region (but "default" ones) into a
    function ``tvmgen_<mod_name>_<compiler>_main_<k>`` with Compiler,
    global_symbol and Primitive=1, and removing the annotations."""
    return Pass.get("PartitionGraph", {"mod_name": mod_name})


def parse_pipeline(text):
    """The pass a pipeline text describes, e.g. "Sequential(A,B{x=1})";
    str(pass) prints it back."""
    return _A("parse_pipeline()", "transform.ParsePipeline", "text")(text)


def get_config(mod, key):
    """A config value: the module attribute, then the PassContext, then the
    registered default."""
    return _A("get_config()", "transform.GetConfig", "mod key")(mod, key)


def migrate_pass_config(mod):
    """A module with the current PassContext's migrated options copied onto its
    attributes (the module wins on conflict)."""
    return _A("migrate_pass_config()", "transform.MigratePassConfig", "mod")(mod)


def register_config(key, type_name, default=None, module_attr=None):
    """Registers a PassContext config option with its type (and default, and
    the module attribute it migrates to)."""
    _A("register_config()", "transform.RegisterConfig", "key type_name default module_attr")(
        key, type_name, default, module_attr)


def _make_pass(create, fn, opt_level, name, required):
    args = [fn, opt_level, name or getattr(fn, "__name__", "python_pass")]
    if required:
        args.append(list(required))
    api = "module_pass()" if create == "transform.CreateModulePass" else "function_pass()"
    return _A(api, create, "pass_func opt_level name required")(*args)


def _pass_decorator(create, call, pass_func, opt_level, name, required):
    def make(target):
        if isinstance(target, type):  # a class with transform_module/transform_function
            @functools.wraps(target)
            def factory(*args, **kwargs):
                inst = target(*args, **kwargs)
                return _make_pass(create, getattr(inst, call), opt_level,
                                  name or target.__name__, required)
            return factory
        return _make_pass(create, target, opt_level, name, required)

    return make(pass_func) if pass_func is not None else make


def module_pass(pass_func=None, opt_level=0, name=None, required=None):
    """Makes a Python function ``f(mod, ctx) -> mod`` into a module pass that
    runs anywhere a C pass does (inside C Sequentials, pipelines, builds).
    Use as ``@module_pass``, ``@module_pass(opt_level=2, name=...)`` or on a
    class with ``transform_module(self, mod, ctx)``."""
    return _pass_decorator("transform.CreateModulePass", "transform_module", pass_func,
                           opt_level, name, required)


def function_pass(pass_func=None, opt_level=0, name=None, required=None):
    """Makes a Python function ``f(func, mod, ctx) -> func`` into a function
    pass (called on each function of the module); as module_pass."""
    return _pass_decorator("transform.CreateFunctionPass", "transform_function", pass_func,
                           opt_level, name, required)


@register_object("transform.PassContext")
class PassContext(Object):
    """The settings passes run under: ``with PassContext(opt_level=3,
    config={...}, instruments=[...]):``. Unknown config keys raise
    AttributeError with the closest registered name."""

    __slots__ = ()

    def __init__(self, opt_level=2, required_pass=None, disabled_pass=None, config=None,
                 instruments=None):
        made = _A("PassContext()", "transform.PassContext",
                  "opt_level required_pass disabled_pass config instruments")(
            opt_level, list(required_pass or []), list(disabled_pass or []), dict(config or {}),
            list(instruments or []))
        self._take(made)

    def __enter__(self):
        _A("PassContext.__enter__()", "transform.EnterPassContext", "self")(self)
        return self

    def __exit__(self, *exc):
        _A("PassContext.__exit__()", "transform.ExitPassContext", "self")(self)

    def _info(self):
        return _global("transform.PassContextInfo")(self)

    @property
    def opt_level(self):
        return self._info()["opt_level"]

    @property
    def required_pass(self):
        return list(self._info()["required"])

    @property
    def disabled_pass(self):
        return list(self._info()["disabled"])

    @property
    def config(self):
        return self._info()["config"].to_dict()

    @property
    def instruments(self):
        return list(self._info()["instruments"])

    def override_instruments(self, instruments):
        """Replaces the context's instruments (None: none)."""
        _A("PassContext.override_instruments()", "transform.OverrideInstruments", "self instruments")(
            self, None if instruments is None else list(instruments))

    @staticmethod
    def current():
        """The innermost PassContext of this thread (the default one outside any)."""
        return _global("transform.CurrentPassContext")()

    @staticmethod
    def list_configs():
        """Registered config key -> {"type", "default", "module_attr", ...}."""
        return {k: v.to_dict() for k, v in _global("transform.ListConfigs")().items()}


_HOOKS = (("enter_pass_ctx", "enter"), ("exit_pass_ctx", "exit"), ("should_run", "should_run"),
          ("run_before_pass", "before"), ("run_after_pass", "after"))


class PassInstrument:
    """Subclass and define any of enter_pass_ctx(), exit_pass_ctx(),
    should_run(mod, info), run_before_pass(mod, info), run_after_pass(mod, info)
    (or the short names enter, exit, before, after); pass instances in
    PassContext(instruments=[...]). info is a PassInfo.

    Each use makes a fresh library instrument that holds this Python object,
    so no reference cycle crosses the C boundary."""

    def __init__(self, name=None):
        self._name = name or type(self).__name__

    def _hook(self, long_name, short_name):
        for attr in (long_name, short_name):
            method = getattr(self, attr, None)
            if method is not None and callable(method):
                return method
        return None

    def _as_irm_object(self):
        hooks = []
        for long_name, short_name in _HOOKS:
            method = self._hook(long_name, short_name)
            if method is None:
                hooks.append(None)
            elif long_name in ("enter_pass_ctx", "exit_pass_ctx"):
                hooks.append(method)
            elif long_name == "should_run":
                hooks.append(lambda mod, info, m=method: bool(m(mod, PassInfo(info))))
            else:
                hooks.append(lambda mod, info, m=method: m(mod, PassInfo(info)) and None)
        return _A("PassInstrument", "transform.PassInstrument", "name")(self._name, *hooks)


class _BuiltinInstrument:
    """A library instrument held by Python (timing, printing, bisect)."""

    def __init__(self, obj):
        self._obj = obj

    def _as_irm_object(self):
        return self._obj


class PassTimingInstrument(_BuiltinInstrument):
    """Times every pass; render() gives the nested report."""

    def __init__(self):
        super().__init__(_global("transform.PassTimingInstrument")())

    def render(self):
        return _global("transform.RenderTiming")(self._obj)


class PassPrintingInstrument(_BuiltinInstrument):
    """Prints the module before and/or after the named passes ("all": every
    pass), tensors with more than elide_larger_than elements elided (0:
    print every tensor in full)."""

    def __init__(self, names="all", before=False, after=True, elide_larger_than=16):
        names = names if isinstance(names, str) else list(names)
        super().__init__(_A("PassPrintingInstrument()", "transform.PassPrintingInstrument",
                            "names before after elide_larger_than")(names, before, after, elide_larger_than))


class PassBisectInstrument(_BuiltinInstrument):
    """Lets only the first limit passes run (to find the pass that breaks)."""

    def __init__(self, limit):
        super().__init__(_A("PassBisectInstrument()", "transform.PassBisectInstrument", "limit")(limit))
