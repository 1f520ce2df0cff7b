"""IRModule (ir.IRModule): functions by name plus typed module attributes."""
from ._ffi import Object, register_object, _global


@register_object("ir.IRModule")
class IRModule(Object):
    """A module: functions by name and typed attributes (target, executor,
    runtime, ...). Modules are values: with_attr/without_attr return a new
    module. ``IRModule(functions=None, attrs=None)`` takes dicts."""

    __slots__ = ()

    def __init__(self, functions=None, attrs=None):
        args = [functions or {}] + ([attrs] if attrs else [])
        made = _global("ir.IRModule")(*args)
        self._take(made)

    def get_attr(self, key):
        """The value of attribute key, or None when unset."""
        return _global("ir.ModuleGetAttr")(self, key)

    def with_attr(self, key, value):
        """A module like this one with attribute key set to value (type-checked
        against the registered attribute keys)."""
        return _global("ir.ModuleWithAttr")(self, key, value)

    def without_attr(self, key):
        """A module like this one without attribute key."""
        return _global("ir.ModuleWithoutAttr")(self, key)

    @property
    def attrs(self):
        """The attributes as a dict."""
        return _global("ir.ModuleAttrs")(self).to_dict()

    def freeze(self):
        """A frozen module: its attributes can no longer change."""
        return _global("ir.ModuleFreeze")(self)

    @property
    def is_frozen(self):
        return bool(_global("ir.ModuleIsFrozen")(self))

    @property
    def function_names(self):
        """The names of the module's functions."""
        return list(_global("ir.ModuleFunctionNames")(self))

    def __getitem__(self, name):
        return _global("ir.ModuleGetFunction")(self, name)

    def __contains__(self, name):
        return name in self.function_names

    def with_function(self, name, func):
        """A module like this one with func added (or replaced) under name."""
        return _global("ir.ModuleWithFunction")(self, name, func)

    def without_function(self, name):
        """A module like this one without function name."""
        return _global("ir.ModuleWithoutFunction")(self, name)

    def verify(self):
        """Checks that the module is well formed (ir.Verify): raises
        ValueError naming the function and the expression at fault."""
        _global("ir.Verify")(self)

    @staticmethod
    def list_attr_keys():
        """Registered module attribute key -> type name."""
        return _global("ir.ListModuleAttrKeys")().to_dict()

    @staticmethod
    def register_attr_key(key, type_name, pass_invariant=False):
        """Registers a module attribute key with its type."""
        _global("ir.RegisterModuleAttrKey")(key, type_name, pass_invariant)
