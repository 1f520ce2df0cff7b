"""Targets (target.Target): what to compile for, shaped like tvm.target.Target."""
from ._ffi import Object, register_object, _global


def _schema(options):
    """Option schema dict -> what *.RegisterKind takes: name -> type, or
    name -> {"type", "default", "doc"}."""
    return {name: spec if isinstance(spec, (str, dict)) else dict(spec)
            for name, spec in options.items()}


@register_object("target.Target")
class Target(Object):
    """A compilation target.

    ``Target("llvm -mcpu=skylake")``, ``Target({"kind": "llvm", "mcpu": "skylake"})``
    or a tag ``Target("raspberry-pi/4b-aarch64")``; ``host=`` takes the same
    forms (or a Target). ``str()`` is the canonical text, which parses back to
    an equal target. A Target is a context manager: inside ``with target:``
    ``Target.current()`` is it.
    """

    __slots__ = ()

    def __init__(self, target, host=None):
        args = (target,) if host is None else (target, host)
        made = _global("target.Target")(*args)
        self._take(made)

    @property
    def kind(self):
        """The kind name ("llvm", "c", ...)."""
        return _global("target.Kind")(self)

    @property
    def keys(self):
        """The target's keys, most specific first."""
        return list(_global("target.Keys")(self))

    @property
    def host(self):
        """The host Target, or None."""
        return _global("target.Host")(self)

    @property
    def attrs(self):
        """The options set on the target, as a dict (without kind, keys, host)."""
        return {k: v for k, v in _global("target.Export")(self).items()
                if k not in ("kind", "keys", "host")}

    def get_attr(self, key):
        """The value of option key, or None when unset."""
        return _global("target.GetAttr")(self, key)

    def export(self):
        """The full configuration as a dict (target.Export)."""
        return _global("target.Export")(self).to_dict()

    def __str__(self):
        return _global("target.AsString")(self)

    def __enter__(self):
        _global("target.EnterScope")(self)
        return self

    def __exit__(self, *exc):
        _global("target.ExitScope")(self)

    @staticmethod
    def current(allow_none=True):
        """The innermost target scope's Target of this thread, or None."""
        target = _global("target.Current")()
        if target is None and not allow_none:
            raise ValueError("ValueError: no target in scope")
        return target

    @staticmethod
    def list_kinds():
        """The registered target kind names."""
        return list(_global("target.ListKinds")())

    @staticmethod
    def list_kind_options(kind):
        """Option name -> type name for a target kind."""
        return _global("target.ListKindOptions")(kind).to_dict()

    @staticmethod
    def list_tags():
        """The registered tag names."""
        return list(_global("target.ListTags")())

    @staticmethod
    def register_tag(name, config):
        """Registers a tag naming a target configuration (a dict)."""
        _global("target.RegisterTag")(name, config)

    @staticmethod
    def convert_legacy(text):
        """(Target, Executor or None, Runtime or None) from a target string with
        legacy executor/runtime options."""
        return tuple(_global("target.ConvertLegacy")(text))

    @staticmethod
    def set_kind_attr(kind, attr, value, plevel=10):
        """Sets a kind attribute (higher plevel replaces, lower is ignored)."""
        _global("target.SetKindAttr")(kind, attr, value, plevel)

    @staticmethod
    def get_kind_attr(kind, attr):
        """A kind attribute's value, or None."""
        return _global("target.GetKindAttr")(kind, attr)


def register_target_kind(name, options=None, attrs=None):
    """Registers a target kind with an option schema: a dict of option name ->
    type name ("bool", "int", "float", "str", "array<str>", "array<int>",
    "map", "target") or -> {"type": ..., "default": ..., "doc": ...}.
    attrs (dict) sets kind attributes."""
    _global("target.RegisterKind")(name, _schema(options or {}))
    for attr, value in (attrs or {}).items():
        _global("target.SetKindAttr")(name, attr, value)
