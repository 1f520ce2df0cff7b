"""Executors and runtimes (ir.Executor, ir.Runtime), shaped like tvm.relay.backend."""
from ._ffi import Object, register_object, _global
from .target import _schema


class _Config(Object):
    """Shared by Executor and Runtime: a kind name and typed, checked options."""

    __slots__ = ()
    _prefix = None

    def __init__(self, name, options=None):
        args = (name,) if options is None else (name, options)
        made = _global(self._prefix + ".Create")(*args)
        self._take(made)

    @property
    def name(self):
        """The kind name ("aot", "crt", ...)."""
        return _global(self._prefix + ".Name")(self)

    @property
    def attrs(self):
        """Every option with its value (defaults filled in), as a dict."""
        return _global(self._prefix + ".Attrs")(self).to_dict()

    def __getitem__(self, key):
        # An unknown option is the library's AttributeError (closest name).
        return _global(self._prefix + ".GetAttr")(self, key)

    def __contains__(self, key):
        return key in self.attrs

    def get(self, key, default=None):
        value = _global(self._prefix + ".GetAttr")(self, key)
        return default if value is None else value

    def __str__(self):
        return self.name

    @classmethod
    def list_registered(cls):
        """The registered kind names."""
        return list(_global(cls._prefix + ".ListKinds")())

    @classmethod
    def list_registered_options(cls, name):
        """Option name -> type name for a kind (a name, or an instance)."""
        return _global(cls._prefix + ".ListOptions")(str(name)).to_dict()

    @classmethod
    def set_kind_attr(cls, kind, attr, value, plevel=10):
        """Sets a kind attribute (higher plevel replaces, lower is ignored)."""
        _global(cls._prefix + ".SetKindAttr")(kind, attr, value, plevel)

    @classmethod
    def get_kind_attr(cls, kind, attr):
        """A kind attribute's value, or None."""
        return _global(cls._prefix + ".GetKindAttr")(kind, attr)


@register_object("ir.Executor")
class Executor(_Config):
    """How the compiled model is run: ``Executor("aot", {"unpacked-api": True})``
    or ``Executor({"kind": "aot", "unpacked-api": True})``. str() is the kind
    name; repr() the full form."""

    __slots__ = ()
    _prefix = "executor"


@register_object("ir.Runtime")
class Runtime(_Config):
    """The runtime the compiled model links against: ``Runtime("crt",
    {"system-lib": True})`` or ``Runtime({"kind": "crt", ...})``."""

    __slots__ = ()
    _prefix = "runtime"


def _register(prefix, name, options, attrs):
    _global(prefix + ".RegisterKind")(name, _schema(options or {}))
    for attr, value in (attrs or {}).items():
        _global(prefix + ".SetKindAttr")(name, attr, value)


def register_executor_kind(name, options=None, attrs=None):
    """Registers an executor kind. options: option name -> type name, or ->
    {"type", "default", "doc"}; attrs: kind attributes (name -> value)."""
    _register("executor", name, options, attrs)


def register_runtime_kind(name, options=None, attrs=None):
    """Registers a runtime kind (as register_executor_kind)."""
    _register("runtime", name, options, attrs)
