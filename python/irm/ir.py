"""IRModule (ir.IRModule): functions by name plus typed module attributes."""
from ._ffi import Array, Object, register_object, _global, api_global

_A = api_global  # the globals below, as the Python APIs that call them
_MODULE = _A("IRModule()", "ir.IRModule", "functions attrs")
_MOD_GET_ATTR = _A("IRModule.get_attr()", "ir.ModuleGetAttr", "self key")
_MOD_WITH_ATTR = _A("IRModule.with_attr()", "ir.ModuleWithAttr", "self key value")
_MOD_WITHOUT_ATTR = _A("IRModule.without_attr()", "ir.ModuleWithoutAttr", "self key")
_MOD_ATTRS = _A("IRModule.attrs", "ir.ModuleAttrs", "self")
_MOD_FREEZE = _A("IRModule.freeze()", "ir.ModuleFreeze", "self")
_MOD_IS_FROZEN = _A("IRModule.is_frozen", "ir.ModuleIsFrozen", "self")
_MOD_FUNCTION_NAMES = _A("IRModule.function_names", "ir.ModuleFunctionNames", "self")
_MOD_GET_FUNCTION = _A(None, "ir.ModuleGetFunction", "self name")
_MOD_WITH_FUNCTION = _A("IRModule.with_function()", "ir.ModuleWithFunction", "self name func")
_MOD_WITHOUT_FUNCTION = _A("IRModule.without_function()", "ir.ModuleWithoutFunction", "self name")
_MOD_VERIFY = _A("IRModule.verify()", "ir.Verify", "self")
_LIST_ATTR_KEYS = _A("IRModule.list_attr_keys()", "ir.ListModuleAttrKeys")
_REGISTER_ATTR_KEY = _A("IRModule.register_attr_key()", "ir.RegisterModuleAttrKey", "key type_name pass_invariant")


@register_object("ir.IRModule")
class IRModule(Object):
    """A module: functions by name and typed attributes (target, executor,
    runtime, ...). Modules are values: with_attr/without_attr return a new
    module. ``IRModule(functions=None, attrs=None)`` takes dicts."""

    __slots__ = ()

    def __init__(self, functions=None, attrs=None):
        args = [functions or {}] + ([attrs] if attrs else [])
        made = _MODULE(*args)
        self._take(made)

    def get_attr(self, key):
        """The value of attribute key, or None when unset."""
        return _MOD_GET_ATTR(self, key)

    def with_attr(self, key, value):
        """A module like this one with attribute key set to value (type-checked
        against the registered attribute keys)."""
        return _MOD_WITH_ATTR(self, key, value)

    def without_attr(self, key):
        """A module like this one without attribute key."""
        return _MOD_WITHOUT_ATTR(self, key)

    @property
    def attrs(self):
        """The attributes as a dict."""
        return _MOD_ATTRS(self).to_dict()

    def freeze(self):
        """A frozen module: its attributes can no longer change."""
        return _MOD_FREEZE(self)

    @property
    def is_frozen(self):
        return bool(_MOD_IS_FROZEN(self))

    @property
    def function_names(self):
        """The names of the module's functions."""
        return list(_MOD_FUNCTION_NAMES(self))

    def __getitem__(self, name):
        return _MOD_GET_FUNCTION(self, name)

    def __contains__(self, name):
        return name in self.function_names

    def with_function(self, name, func):
        """A module like this one with func added (or replaced) under name."""
        return _MOD_WITH_FUNCTION(self, name, func)

    def without_function(self, name):
        """A module like this one without function name."""
        return _MOD_WITHOUT_FUNCTION(self, name)

    @staticmethod
    def from_expr(expr, functions=None, attrs=None):
        """A module whose "main" is expr (TVM's IRModule.from_expr): a Function
        as it is, any other expression as the body of a Function taking its
        free variables (free_vars order) as parameters. functions adds other
        functions by name; attrs the module's attributes."""
        if not isinstance(expr, Function):
            expr = Function(free_vars(expr), expr)
        funcs = dict(functions or {})
        funcs["main"] = expr
        return IRModule(funcs, attrs)

    def verify(self):
        """Checks that the module is well formed (ir.Verify): raises
        ValueError naming the function and the expression at fault."""
        _MOD_VERIFY(self)

    @staticmethod
    def list_attr_keys():
        """Registered module attribute key -> type name."""
        return _LIST_ATTR_KEYS().to_dict()

    @staticmethod
    def register_attr_key(key, type_name, pass_invariant=False):
        """Registers a module attribute key with its type."""
        _REGISTER_ATTR_KEY(key, type_name, pass_invariant)

    def text(self, elide_larger_than=None):
        """The module in the IR text form (ir.Print); :func:`parse` reads it back.

        elide_larger_than=N prints tensors (constants, the ``params``
        attribute) with more than N elements as ``const(float32, [32, 64],
        <elided 2048 elements>)``: text for reading, which :func:`parse`
        refuses. None or 0 prints everything. ``str(mod)`` / ``repr(mod)``
        elide above 16 elements."""
        return text(self, elide_larger_than)


# ---- the dataflow IR: types ---------------------------------------------------

def _as_list(values, what):
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError("%s must be a list, got %s" % (what, type(values).__name__))
    return list(values)


@register_object("dataflow.Type")
class Type(Object):
    """An IR type (dataflow.TensorType, dataflow.TupleType,
    dataflow.FuncType). Equality and hashing are structural."""

    __slots__ = ()

    def _fields(self):
        return _global("dataflow.TypeFields")(self)


@register_object("dataflow.TensorType")
class TensorType(Type):
    """``TensorType((1, 3, 224, 224), "float32")``: a static shape and a dtype."""

    __slots__ = ()

    def __init__(self, shape, dtype="float32"):
        self._take(_A("TensorType()", "ir.TensorType", "dtype shape", "shape dtype")(
            dtype, _as_list(shape, "TensorType shape")))

    @property
    def shape(self):
        return tuple(self._fields()["shape"])

    @property
    def dtype(self):
        return self._fields()["dtype"]

    @property
    def concrete_shape(self):  # TVM's name
        return self.shape


@register_object("dataflow.TupleType")
class TupleType(Type):
    """``TupleType([t1, t2])``."""

    __slots__ = ()

    def __init__(self, fields):
        self._take(_A("TupleType()", "ir.TupleType", "fields")(_as_list(fields, "TupleType fields")))

    @property
    def fields(self):
        return list(self._fields()["fields"])


@register_object("dataflow.FuncType")
class FuncType(Type):
    """``FuncType([param types], ret_type)``."""

    __slots__ = ()

    def __init__(self, arg_types, ret_type):
        self._take(_A("FuncType()", "ir.FuncType", "arg_types ret_type")(
            _as_list(arg_types, "FuncType arg_types"), ret_type))

    @property
    def arg_types(self):
        return list(self._fields()["params"])

    @property
    def ret_type(self):
        return self._fields()["ret"]


# ---- the dataflow IR: expressions ------------------------------------------------

class _Node(Object):
    """What every IR node shares: its kind, checked type and fields."""

    __slots__ = ()

    def _field(self, key):
        return _global("dataflow.ExprFields")(self)[key]

    @property
    def kind(self):
        """"Var", "Call", ... (ir.ExprKind)."""
        return _global("dataflow.ExprKind")(self)

    @property
    def checked_type(self):
        """The type InferType found, or None when not known yet."""
        return _global("dataflow.ExprType")(self)

    @property
    def span(self):
        """(line, column) where the text parser read this node (TVM's Span),
        or None; AnnotateSpans gives every node one in the printed module."""
        found = _global("dataflow.ExprSpan")(self)
        return None if found is None else tuple(found)

    def with_type(self, type_):
        """A copy of this node with checked type type_ (None clears it).
        Vars and Constants have fixed types (TypeError for another one)."""
        return _A(type(self).__name__ + ".with_type()", "dataflow.ExprWithType", "self type_")(self, type_)

    def fields(self):
        """Every field of the node as a dict (ir.ExprFields)."""
        return _global("dataflow.ExprFields")(self).to_dict()


@register_object("dataflow.Expr")
class Expr(_Node):
    """An IR expression. Equality and hashing are structural (up to renaming
    of variables)."""

    __slots__ = ()


@register_object("dataflow.Var")
class Var(Expr):
    """``Var("x", TensorType((2, 3)))``: a fresh variable; two Vars are the
    same variable only if they are the same object."""

    __slots__ = ()

    def __init__(self, name_hint, type_annotation=None):
        args = (name_hint,) if type_annotation is None else (name_hint, type_annotation)
        self._take(_A("Var()", "dataflow.Var", "name_hint type_annotation")(*args))

    @property
    def name(self):
        return self._field("name")

    name_hint = name

    @property
    def type_annotation(self):
        return self._field("type")


@register_object("dataflow.GlobalVar")
class GlobalVar(Expr):
    """``GlobalVar("main")``: a module function by name."""

    __slots__ = ()

    def __init__(self, name_hint):
        self._take(_A("GlobalVar()", "ir.GlobalVar", "name_hint")(name_hint))

    @property
    def name(self):
        return self._field("name")

    name_hint = name


@register_object("dataflow.Constant")
class Constant(Expr):
    """``Constant(irm.tensor([1.0, 2.0]))``: a tensor (anything irm.tensor
    takes is converted)."""

    __slots__ = ()

    def __init__(self, data):
        from .tensor import Tensor, tensor
        self._take(_A("Constant()", "dataflow.Constant", "data")(data if isinstance(data, Tensor) else tensor(data)))

    @property
    def data(self):
        return self._field("data")


@register_object("dataflow.Tuple")
class Tuple(Expr):
    """``Tuple([a, b])``."""

    __slots__ = ()

    def __init__(self, fields):
        self._take(_A("Tuple()", "dataflow.Tuple", "fields")(_as_list(fields, "Tuple fields")))

    @property
    def fields(self):
        return list(self._field("fields"))

    def __len__(self):
        return len(self._field("fields"))

    def __getitem__(self, index):
        return self.fields[index]

    def astuple(self):
        """The tuple itself (TVM's TupleWrapper.astuple, for irm.op.split's result)."""
        return self


@register_object("dataflow.TupleGetItem")
class TupleGetItem(Expr):
    """``TupleGetItem(tup, 1)``."""

    __slots__ = ()

    def __init__(self, tuple_value, index):
        self._take(_A("TupleGetItem()", "dataflow.TupleGetItem", "tuple_value index")(tuple_value, index))

    @property
    def tuple_value(self):
        return self._field("tuple")

    @property
    def index(self):
        return self._field("index")


@register_object("dataflow.Op")
class Op(Expr):
    """``Op("nn.relu")``: the op's one interned node (Op.get is the same)."""

    __slots__ = ()

    def __init__(self, name):
        self._take(_A("Op()", "ir.Op", "name")(name))

    @staticmethod
    def get(name):
        """The op's node (KeyError naming the closest op for an unknown name)."""
        return _A("Op.get()", "ir.Op", "name")(name)

    def get_attr(self, attr):
        """An op attribute ("num_inputs", "TOpPattern", "FInferType", ...),
        None when the op has none (op.GetAttr)."""
        return _A("Op.get_attr()", "op.GetAttr", "self attr")(self.name, attr)

    @property
    def num_inputs(self):
        """The op's number of inputs (-1: any number)."""
        return self.get_attr("num_inputs")

    def list_options(self):
        """The op's attributes (options): name -> type name, schema order."""
        return _A("Op.list_options()", "op.ListOptions", "self")(self.name).to_dict()

    @property
    def name(self):
        return self._field("name")


@register_object("dataflow.Call")
class Call(Expr):
    """``Call(Op("nn.softmax"), [x], {"axis": -1})``: op may also be an op's
    name. An op's attrs are checked against its schema, defaults filled in."""

    __slots__ = ()

    def __init__(self, op, args, attrs=None):
        if isinstance(op, str):
            op = Op(op)
        args = _as_list(args, "Call args")
        call = _A("Call()", "dataflow.Call", "op args attrs")
        self._take(call(op, args, attrs) if attrs else call(op, args))

    @property
    def op(self):
        return self._field("callee")

    @property
    def args(self):
        return list(self._field("args"))

    @property
    def attrs(self):
        """The checked attributes as a dict."""
        return self._field("attrs").to_dict()


@register_object("dataflow.Let")
class Let(Expr):
    """``Let(var, value, body)``: let var = value in body."""

    __slots__ = ()

    def __init__(self, var, value, body):
        self._take(_A("Let()", "dataflow.Let", "var value body")(var, value, body))

    @property
    def var(self):
        return self._field("var")

    @property
    def value(self):
        return self._field("value")

    @property
    def body(self):
        return self._field("body")


@register_object("dataflow.Function")
class Function(_Node):
    """``Function([x], body, ret_type=None, attrs=None)``: an IR function,
    which modules hold and calls may call."""

    __slots__ = ()

    def __init__(self, params, body, ret_type=None, attrs=None):
        args = [_as_list(params, "Function params"), body]
        if ret_type is not None or attrs:
            args.append(ret_type)
        if attrs:
            args.append(attrs)
        self._take(_A("Function()", "dataflow.Function", "params body ret_type attrs")(*args))

    @property
    def params(self):
        return list(self._field("params"))

    @property
    def body(self):
        return self._field("body")

    @property
    def ret_type(self):
        return self._field("ret_type")

    @property
    def attrs(self):
        """The function attributes as a dict."""
        return self._field("attrs").to_dict()

    def with_attr(self, key, value):
        """A copy with attribute key set (checked against registered keys)."""
        return _A("Function.with_attr()", "ir.FuncWithAttr", "self key value")(self, key, value)


# ---- text, models, checks -------------------------------------------------------

def parse(text):
    """The IRModule the text form describes (ir.Parse)."""
    return _A("parse()", "ir.Parse", "text")(text)


def text(node, elide_larger_than=None):
    """The text form of a module or IR node (ir.Print); elide_larger_than=N
    elides the data of tensors with more than N elements (None or 0: print
    everything, the text that parse reads back)."""
    if elide_larger_than is None:
        return _A("text()", "ir.Print", "node")(node)
    return _A("text()", "ir.Print", "node elide_larger_than")(node, {"elide_larger_than": elide_larger_than})


def example_model(name=None):
    """One of the library's example models (ir.ExampleModel) as an IRModule."""
    return _A("example_model()", "ir.ExampleModel", "name")(*(() if name is None else (name,)))


def free_vars(expr):
    """The free variables of expr (ir.FreeVars, TVM's analysis.free_vars):
    the Vars it uses that no Let or Function inside it binds, each once, in
    post-order."""
    return list(_A("free_vars()", "dataflow.FreeVars", "expr")(expr))


def verify(mod):
    """Checks that mod is well formed (ir.Verify); ValueError naming the
    function and the expression otherwise."""
    _A("verify()", "ir.Verify", "mod")(mod)


def evaluate(mod, name, inputs):
    """Runs function name of mod on inputs (tensors, or what irm.tensor
    takes) with the reference interpreter (ir.Evaluate): a Tensor, or a
    list of them for a tuple result."""
    from .tensor import Tensor, tensor
    inputs = [x if isinstance(x, Tensor) else tensor(x) for x in inputs]
    result = _A("evaluate()", "ir.Evaluate", "mod name inputs")(mod, name, inputs)
    return list(result) if isinstance(result, Array) else result


# ---- ops from Python ---------------------------------------------------------------

# Pattern names (irm_op_pattern_name) -> the ints op.Register takes.
OP_PATTERNS = {"elemwise": 0, "broadcast": 1, "injective": 2, "reduce": 3,
               "out-elemwise-fusable": 4, "tuple": 7, "opaque": 8}


def list_ops():
    """The names of the registered ops, sorted (op.ListOps)."""
    return list(_A("list_ops()", "op.ListOps")())


def _attrs_dict(attrs):
    return attrs.to_dict() if attrs is not None else {}


def _wrap_infer_type(name, infer_type):
    def call(arg_types, attrs):
        result = infer_type(list(arg_types), _attrs_dict(attrs))
        if not isinstance(result, Type):
            raise TypeError("%s: infer_type returned %s, not an irm.ir type (TensorType, "
                            "TupleType or FuncType)" % (name, type(result).__name__))
        return result
    return call


def _as_result_tensor(name, value, result_type, what):
    """value as a Tensor, converted like irm.tensor() does (with the dtype
    of result_type when it is a TensorType); TypeError naming the op else."""
    from .tensor import Tensor, tensor
    if isinstance(value, Tensor):
        return value
    if value is None or isinstance(value, (str, dict, Object)):
        raise TypeError("%s: evaluate returned %s%s, not an irm.Tensor (or what irm.tensor "
                        "takes)" % (name, type(value).__name__, what))
    dtype = result_type.dtype if isinstance(result_type, TensorType) else None
    try:
        return tensor(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise TypeError("%s: evaluate returned %s%s, which irm.tensor cannot convert: %s"
                        % (name, type(value).__name__, what, exc)) from None


def _wrap_evaluate(name, evaluate):
    def call(inputs, attrs, result_type=None):
        result = evaluate(list(inputs), _attrs_dict(attrs), result_type)
        if isinstance(result_type, TupleType) and isinstance(result, (list, tuple)):
            fields = result_type.fields
            if len(result) != len(fields):
                raise TypeError("%s: evaluate returned %d values for a tuple of %d"
                                % (name, len(result), len(fields)))
            return [_as_result_tensor(name, v, t, " (field %d)" % i)
                    for i, (v, t) in enumerate(zip(result, fields))]
        return _as_result_tensor(name, result, result_type, "")
    return call


def register_op_attr(op_name, attr_key, value=None, level=10):
    """Sets attribute attr_key of op op_name (op.SetAttr), TVM's
    tvm.ir.register_op_attr: with value None, a decorator setting the
    function it decorates. For AnnotateTarget, ``target.<compiler>`` is a
    bool or a function ``f(call) -> bool``. A higher level replaces an
    earlier value, a lower one is ignored; KeyError for the same level
    twice or an unknown op."""
    def _register(v):
        arg = v
        if callable(v) and not isinstance(v, Object):
            from ._ffi import convert_func
            arg = convert_func(lambda call: bool(v(call)))
        _A("register_op_attr()", "op.SetAttr", "op_name attr_key value level")(op_name, attr_key, arg, level)
        return v
    return _register if value is None else _register(value)


def register_op(name, num_inputs, attrs=None, infer_type=None, evaluate=None, pattern=None):
    """Registers op name (op.Register, all or nothing) with Python functions.

    - num_inputs: the number of inputs, -1 for any number.
    - attrs: dict option -> type name ("int", "float", "str", ...) or
      {"type": ..., "default": ..., "doc": ...}; calls get their attrs
      checked against it, defaults filled in.
    - infer_type(arg_types, attrs) -> irm.ir type: arg_types a list of
      irm.ir types, attrs a dict.
    - evaluate(inputs, attrs, result_type) -> irm.Tensor (or what irm.tensor
      takes, converted to result_type's dtype), or a list of them for a
      TupleType result: inputs a list of irm.Tensor.
    - pattern: an int or a name in OP_PATTERNS ("elemwise", ...).

    An exception in infer_type/evaluate becomes the library's error of the
    same kind, with the op named. KeyError when the op exists; ValueError
    for an unknown attr type name or pattern; the op stays registered for
    the life of the process.
    """
    if not isinstance(name, str):
        raise TypeError("register_op: name must be a str, got %s" % type(name).__name__)
    if isinstance(pattern, str):
        if pattern not in OP_PATTERNS:
            import difflib
            close = difflib.get_close_matches(pattern, list(OP_PATTERNS), 1)
            raise ValueError("register_op: %s: unknown op pattern '%s'%s; patterns: %s"
                             % (name, pattern, " (did you mean '%s'?)" % close[0] if close else "",
                                ", ".join(OP_PATTERNS)))
        pattern = OP_PATTERNS[pattern]
    for what, fn in (("infer_type", infer_type), ("evaluate", evaluate)):
        if fn is not None and not callable(fn):
            raise TypeError("register_op: %s: %s must be callable, got %s"
                            % (name, what, type(fn).__name__))
    from ._ffi import convert_func
    args = [name, num_inputs, dict(attrs) if attrs else None,
            convert_func(_wrap_infer_type(name, infer_type)) if infer_type else None,
            convert_func(_wrap_evaluate(name, evaluate)) if evaluate else None]
    if pattern is not None:
        args.append(pattern)
    _A("register_op()", "op.Register", "name num_inputs attrs infer_type evaluate pattern")(*args)
    return Op.get(name)


from .expr_functor import ExprVisitor, ExprMutator  # noqa: E402,F401 (TVM's place: tvm.relay.ExprVisitor)
