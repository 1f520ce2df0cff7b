"""Targets (target.Target): what to compile for, shaped like tvm.target.Target."""
from ._ffi import Object, register_object, api_global

_TARGET = api_global("Target()", "target.Target", "target host")
_KIND = api_global("Target.kind", "target.Kind", "self")
_KEYS = api_global("Target.keys", "target.Keys", "self")
_HOST = api_global("Target.host", "target.Host", "self")
_EXPORT = api_global("Target.export()", "target.Export", "self")
_ATTRS = api_global("Target.attrs", "target.Export", "self")
_GET_ATTR = api_global("Target.get_attr()", "target.GetAttr", "self key")
_AS_STRING = api_global("Target.__str__()", "target.AsString", "self")
_ENTER = api_global("Target.__enter__()", "target.EnterScope", "self")
_EXIT = api_global("Target.__exit__()", "target.ExitScope", "self")
_CURRENT = api_global("Target.current()", "target.Current")
_LIST_KINDS = api_global("Target.list_kinds()", "target.ListKinds")
_LIST_KIND_OPTIONS = api_global("Target.list_kind_options()", "target.ListKindOptions", "kind")
_LIST_TAGS = api_global("Target.list_tags()", "target.ListTags")
_REGISTER_TAG = api_global("Target.register_tag()", "target.RegisterTag", "name config")
_CONVERT_LEGACY = api_global("Target.convert_legacy()", "target.ConvertLegacy", "text")
_SET_KIND_ATTR = api_global("Target.set_kind_attr()", "target.SetKindAttr", "kind attr value plevel")
_GET_KIND_ATTR = api_global("Target.get_kind_attr()", "target.GetKindAttr", "kind attr")
_REGISTER_KIND = api_global("register_target_kind()", "target.RegisterKind", "name options")
_REGISTER_KIND_ATTR = api_global("register_target_kind()", "target.SetKindAttr", "name attr value",
                                 "name options attrs")


def _schema(options):
    """Option schema dict -> what *.RegisterKind takes: name -> type, or
    name -> {"type", "default", "doc"}."""
    return {name: spec if isinstance(spec, (str, dict)) else dict(spec)
            for name, spec in options.items()}


class TargetOptionTypeError(TypeError, ValueError):
    """A target option given a value of the wrong type: a TypeError, and a
    ValueError as TVM raises, so handlers written for either catch it (as
    numpy's AxisError is both a ValueError and an IndexError)."""


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
        try:
            made = _TARGET(*args)
        except TypeError as e:
            if "option '" not in str(e):
                raise
            raise TargetOptionTypeError(str(e)) from None
        self._take(made)

    @property
    def kind(self):
        """The kind name ("llvm", "c", ...)."""
        return _KIND(self)

    @property
    def keys(self):
        """The target's keys, most specific first."""
        return list(_KEYS(self))

    @property
    def host(self):
        """The host Target, or None."""
        return _HOST(self)

    @property
    def attrs(self):
        """The options set on the target, as a dict (without kind, keys, host)."""
        return {k: v for k, v in _ATTRS(self).items()
                if k not in ("kind", "keys", "host")}

    def get_attr(self, key):
        """The value of option key, or None when unset."""
        return _GET_ATTR(self, key)

    def export(self):
        """The full configuration as a dict (target.Export)."""
        return _EXPORT(self).to_dict()

    def __str__(self):
        return _AS_STRING(self)

    def __enter__(self):
        _ENTER(self)
        return self

    def __exit__(self, *exc):
        _EXIT(self)

    @staticmethod
    def current(allow_none=True):
        """The innermost target scope's Target of this thread, or None."""
        target = _CURRENT()
        if target is None and not allow_none:
            raise ValueError("Target.current(): no target in scope")
        return target

    @staticmethod
    def list_kinds():
        """The registered target kind names."""
        return list(_LIST_KINDS())

    @staticmethod
    def list_kind_options(kind):
        """Option name -> type name for a target kind."""
        return _LIST_KIND_OPTIONS(kind).to_dict()

    @staticmethod
    def list_tags():
        """The registered tag names."""
        return list(_LIST_TAGS())

    @staticmethod
    def register_tag(name, config):
        """Registers a tag naming a target configuration (a dict)."""
        _REGISTER_TAG(name, config)

    @staticmethod
    def convert_legacy(text):
        """(Target, Executor or None, Runtime or None) from a target string with
        legacy executor/runtime options."""
        return tuple(_CONVERT_LEGACY(text))

    @staticmethod
    def set_kind_attr(kind, attr, value, plevel=10):
        """Sets a kind attribute (higher plevel replaces, lower is ignored)."""
        _SET_KIND_ATTR(kind, attr, value, plevel)

    @staticmethod
    def get_kind_attr(kind, attr):
        """A kind attribute's value, or None."""
        return _GET_KIND_ATTR(kind, attr)


def register_target_kind(name, options=None, attrs=None):
    """Registers a target kind with an option schema: a dict of option name ->
    type name ("bool", "int", "float", "str", "array<str>", "array<int>",
    "map", "target") or -> {"type": ..., "default": ..., "doc": ...}.
    attrs (dict) sets kind attributes."""
    _REGISTER_KIND(name, _schema(options or {}))
    for attr, value in (attrs or {}).items():
        _REGISTER_KIND_ATTR(name, attr, value)
