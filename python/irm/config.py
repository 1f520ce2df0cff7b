"""Executors and runtimes (ir.Executor, ir.Runtime), shaped like tvm.relay.backend."""
from ._ffi import Object, register_object, api_global
from .target import _schema


def _api(cls, op, api, args=""):
    """The global <prefix>.<op> as cls's API api calls it; api is formatted
    with the class name ("{}()" -> "Executor()")."""
    return api_global(api.format(cls.__name__) if api else None, cls._prefix + "." + op, args)


class _Config(Object):
    """Shared by Executor and Runtime: a kind name and typed, checked options."""

    __slots__ = ()
    _prefix = None

    def __init__(self, name, options=None):
        args = (name,) if options is None else (name, options)
        made = _api(type(self), "Create", "{}()", "name options")(*args)
        self._take(made)

    @property
    def name(self):
        """The kind name ("aot", "crt", ...)."""
        return _api(type(self), "Name", "{}.name", "self")(self)

    @property
    def attrs(self):
        """Every option with its value (defaults filled in), as a dict."""
        return _api(type(self), "Attrs", "{}.attrs", "self")(self).to_dict()

    def __getitem__(self, key):
        # An unknown option is the library's AttributeError (closest name).
        return _api(type(self), "GetAttr", None, "self key")(self, key)

    def __contains__(self, key):
        return key in self.attrs

    def get(self, key, default=None):
        value = _api(type(self), "GetAttr", "{}.get()", "self key")(self, key)
        return default if value is None else value

    def __str__(self):
        return self.name

    @classmethod
    def list_registered(cls):
        """The registered kind names."""
        return list(_api(cls, "ListKinds", "{}.list_registered()")())

    @classmethod
    def list_registered_options(cls, name):
        """Option name -> type name for a kind (a name, or an instance)."""
        return _api(cls, "ListOptions", "{}.list_registered_options()", "name")(str(name)).to_dict()

    @classmethod
    def set_kind_attr(cls, kind, attr, value, plevel=10):
        """Sets a kind attribute (higher plevel replaces, lower is ignored)."""
        _api(cls, "SetKindAttr", "{}.set_kind_attr()", "kind attr value plevel")(kind, attr, value, plevel)

    @classmethod
    def get_kind_attr(cls, kind, attr):
        """A kind attribute's value, or None."""
        return _api(cls, "GetKindAttr", "{}.get_kind_attr()", "kind attr")(kind, attr)


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


def _register(cls, api, name, options, attrs):
    api_global(api, cls._prefix + ".RegisterKind", "name options")(name, _schema(options or {}))
    for attr, value in (attrs or {}).items():
        api_global(api, cls._prefix + ".SetKindAttr", "name attr value", "name options attrs")(name, attr, value)


def register_executor_kind(name, options=None, attrs=None):
    """Registers an executor kind. options: option name -> type name, or ->
    {"type", "default", "doc"}; attrs: kind attributes (name -> value)."""
    _register(Executor, "register_executor_kind()", name, options, attrs)


def register_runtime_kind(name, options=None, attrs=None):
    """Registers a runtime kind (as register_executor_kind)."""
    _register(Runtime, "register_runtime_kind()", name, options, attrs)
