"""Dataflow patterns with TVM's names (``tvm.relay.dataflow_pattern``), rewrite
rules and partitioning, over the dataflow.pattern.* globals (docs/patterns.md).

    from irm.ir.pattern import is_op, wildcard, is_constant, rewrite, DFPatternCallback
    conv = is_op("nn.conv2d")(wildcard(), is_constant())
    conv.match(expr)                      # True / False
    rules("rule r : nn.relu(%x) => maximum(%x, const(0f))")
"""
from ._ffi import Object, register_object, _global, _REFINE


@register_object("dataflow.DFPattern")
class DFPattern(Object):
    """A pattern over dataflow expressions. ``p(a, b)`` is a call pattern with
    p as the callee, ``a | b`` an alternative."""

    __slots__ = ()

    def __call__(self, *args):
        return _global("dataflow.pattern.Call")(self, [_pat(a) for a in args])

    def __or__(self, other):
        return _global("dataflow.pattern.Alt")(self, _pat(other))

    def __getitem__(self, index):
        return is_tuple_get_item(self, index)

    # TVM's arithmetic on patterns: a + b is is_op("add")(a, b)
    def __add__(self, other):
        return is_op("add")(self, other)

    def __sub__(self, other):
        return is_op("subtract")(self, other)

    def __mul__(self, other):
        return is_op("multiply")(self, other)

    def __truediv__(self, other):
        return is_op("divide")(self, other)

    def has_attr(self, attrs):
        return has_attr(attrs, self)

    def has_type(self, ttype):
        return has_type(ttype, self)

    def has_dtype(self, dtype):
        return has_dtype(dtype, self)

    def has_shape(self, shape):
        return has_shape(shape, self)

    def optional(self, option_constructor):
        """self | option_constructor(self), as TVM's optional."""
        return self | option_constructor(self)

    def dominates(self, parent, path=None):
        """Matches self when parent dominates it through nodes matching path
        (default: any)."""
        return dominates(parent, path if path is not None else wildcard(), self)

    def capture(self, name):
        """This pattern, remembered under name (the captures of match_captures
        and the %name of rules)."""
        return _global("dataflow.pattern.Capture")(name, self)

    def text(self):
        """The pattern in the rules text (``nn.relu(%x)``), which rules() reads
        back; ValueError for a pattern the text cannot say."""
        return _global("dataflow.pattern.Text")(self)

    def match(self, expr):
        """True when the pattern matches expr."""
        return _global("dataflow.pattern.Match")(self, expr) is not None

    def match_captures(self, expr):
        """The captures as a dict name -> expression, or None when no match."""
        found = _global("dataflow.pattern.Match")(self, expr)
        return None if found is None else found.to_dict()

    def partition(self, expr, attrs=None, name="composite"):
        """Each match of the pattern in expr becomes a call of a function with
        attribute Composite = name (and attrs)."""
        args = [self, name, expr] + ([attrs] if attrs else [])
        return _global("dataflow.pattern.Partition")(*args)


# ---- TVM's pattern classes: one library type, a Python class per kind -------

def _fields(pattern):
    return _global("dataflow.pattern.Fields")(pattern)


def _field(key, doc, convert=None, default=None):
    def get(self):
        value = _fields(self).get(key, default)
        return convert(value) if convert is not None and value is not None else value
    return property(get, doc=doc)


class WildcardPattern(DFPattern):
    """``WildcardPattern()``: any expression (``wildcard()``)."""

    __slots__ = ()

    def __init__(self):
        self._take(wildcard())


class ExprPattern(DFPattern):
    """``ExprPattern(expr)``: an expression structurally equal to expr."""

    __slots__ = ()

    def __init__(self, expr):
        self._take(is_expr(expr))

    expr = _field("expr", "The expression (for is_op(name): the Op).")


class OpPattern(ExprPattern):
    """``is_op(name)``: the op; an ExprPattern of the Op, as in TVM."""

    __slots__ = ()

    def __init__(self, name):
        self._take(is_op(name))

    @property
    def name(self):
        return self.expr.name


class CallPattern(DFPattern):
    """``CallPattern(op, args)``: a call; args None: any arguments."""

    __slots__ = ()

    def __init__(self, op, args=None):
        self._take(_global("dataflow.pattern.Call")(_pat(op), None if args is None else [_pat(a) for a in args]))

    op = _field("op", "The callee pattern.")
    args = _field("args", "The argument patterns (None: any).", list)


class ConstantPattern(DFPattern):
    """``ConstantPattern()``: any Constant."""

    __slots__ = ()

    def __init__(self):
        self._take(is_constant())


class VarPattern(DFPattern):
    """``VarPattern(name_hint="")``: a Var (of that name hint; "": any)."""

    __slots__ = ()

    def __init__(self, name_hint=""):
        self._take(is_var(name_hint))

    name = _field("name", "The name hint to match (\"\": any).", default="")
    name_hint = name


class TuplePattern(DFPattern):
    """``TuplePattern(fields)``: a Tuple; fields None: any fields."""

    __slots__ = ()

    def __init__(self, fields=None):
        self._take(is_tuple(fields))

    fields = _field("fields", "The field patterns (None: any).", list)


class TupleGetItemPattern(DFPattern):
    """``TupleGetItemPattern(tuple_value, index=None)``: a projection (index -1: any)."""

    __slots__ = ()

    def __init__(self, tuple_value, index=None):
        self._take(is_tuple_get_item(tuple_value, index))

    tuple = _field("tuple", "The tuple pattern.")
    tuple_value = tuple
    index = _field("index", "The index (-1: any).", default=-1)


class AltPattern(DFPattern):
    """``AltPattern(left, right)``: left, else right (``left | right``)."""

    __slots__ = ()

    def __init__(self, left, right):
        self._take(_pat(left) | right)

    left = _field("left", "The first alternative.")
    right = _field("right", "The second alternative.")


class AttrPattern(DFPattern):
    """``AttrPattern(pattern, attrs)``: pattern, with those attributes."""

    __slots__ = ()

    def __init__(self, pattern, attrs):
        self._take(has_attr(attrs, pattern))

    pattern = _field("pattern", "The inner pattern.")
    attrs = _field("attrs", "The attributes to hold (a Map).")


class TypePattern(DFPattern):
    """``TypePattern(pattern, ttype)``: pattern, with that checked type."""

    __slots__ = ()

    def __init__(self, pattern, ttype):
        self._take(has_type(ttype, pattern))

    pattern = _field("pattern", "The inner pattern.")
    type = _field("type", "The type.")


class DataTypePattern(DFPattern):
    """``DataTypePattern(pattern, dtype)``: pattern, with a tensor type of that dtype."""

    __slots__ = ()

    def __init__(self, pattern, dtype):
        self._take(has_dtype(dtype, pattern))

    pattern = _field("pattern", "The inner pattern.")
    dtype = _field("dtype", "The dtype, as a string.")


class ShapePattern(DFPattern):
    """``ShapePattern(pattern, shape)``: pattern, with a tensor type of that shape."""

    __slots__ = ()

    def __init__(self, pattern, shape):
        self._take(has_shape(shape, pattern))

    pattern = _field("pattern", "The inner pattern.")
    shape = _field("shape", "The shape, a list of ints.", list)


class DominatorPattern(DFPattern):
    """``DominatorPattern(parent, path, child)``."""

    __slots__ = ()

    def __init__(self, parent, path, child):
        self._take(dominates(parent, path, child))

    parent = _field("parent", "The dominating pattern.")
    path = _field("path", "The pattern of the nodes between.")
    child = _field("child", "The dominated pattern.")


class CapturePattern(DFPattern):
    """``p.capture(name)``: p, remembered under name (irm's own)."""

    __slots__ = ()

    def __init__(self, name, pattern):
        self._take(pattern.capture(name))

    pattern = _field("pattern", "The inner pattern.")
    name = _field("name", "The capture's name.")


class FunctionPattern(DFPattern):
    """``FunctionPattern(params, body)``: a Function whose parameters match
    params (None: any parameters) and whose body matches body."""

    __slots__ = ()

    def __init__(self, params, body):
        self._take(_global("dataflow.pattern.Function")(None if params is None else [_pat(p) for p in params],
                                                        _pat(body)))

    params = _field("params", "The parameter patterns (None: any).", list)
    body = _field("body", "The body pattern.")


class LetPattern(DFPattern):
    """``LetPattern(var, value, body)``: a Let whose variable, value and body match."""

    __slots__ = ()

    def __init__(self, var, value, body):
        self._take(is_let(var, value, body))

    var = _field("var", "The variable pattern.")
    value = _field("value", "The value pattern.")
    body = _field("body", "The body pattern.")


_BY_KIND = {cls.__name__: cls for cls in (WildcardPattern, OpPattern, CallPattern, ConstantPattern, VarPattern,
                                          ExprPattern, TuplePattern, TupleGetItemPattern, AltPattern, AttrPattern,
                                          TypePattern, DataTypePattern, ShapePattern, DominatorPattern,
                                          CapturePattern, FunctionPattern, LetPattern)}
_REFINE["dataflow.DFPattern"] = lambda obj: _BY_KIND.get(_fields(obj)["kind"], DFPattern)


def _pat(p):
    if isinstance(p, DFPattern):
        return p
    return is_expr(p)


def wildcard():
    return _global("dataflow.pattern.Wildcard")()


def is_op(name):
    return _global("dataflow.pattern.Op")(name)


def is_constant():
    return _global("dataflow.pattern.Constant")()


def is_var(name=""):
    return _global("dataflow.pattern.Var")(name)


def is_expr(expr):
    return _global("dataflow.pattern.Expr")(expr)


def is_tuple(fields=None):
    return _global("dataflow.pattern.Tuple")(None if fields is None else [_pat(f) for f in fields])


def is_tuple_get_item(tuple_value, index=None):
    return _global("dataflow.pattern.TupleGetItem")(_pat(tuple_value), -1 if index is None else index)


def is_let(var, value, body):
    """A Let whose variable, value and body match (TVM's is_let)."""
    return _global("dataflow.pattern.Let")(_pat(var), _pat(value), _pat(body))


def has_attr(attrs, pattern=None):
    return _global("dataflow.pattern.HasAttr")(pattern if pattern is not None else wildcard(), dict(attrs))


def has_type(ttype, pattern=None):
    return _global("dataflow.pattern.HasType")(pattern if pattern is not None else wildcard(), ttype)


def has_dtype(dtype, pattern=None):
    return _global("dataflow.pattern.HasDType")(pattern if pattern is not None else wildcard(), str(dtype))


def has_shape(shape, pattern=None):
    return _global("dataflow.pattern.HasShape")(pattern if pattern is not None else wildcard(), list(shape))


def dominates(parent, path, child):
    return _global("dataflow.pattern.Dominates")(parent, path, child)


@register_object("dataflow.RewriteRule")
class RewriteRule(Object):
    """A rule: a pattern and a right-hand side or a callback."""

    __slots__ = ()

    def apply(self, expr):
        """The replacement at expr, or None."""
        return _global("dataflow.pattern.ApplyRule")(self, expr)


def rule(name, lhs, rhs, benefit=0):
    """A rule lhs => rhs; rhs's free variables named like captures of lhs
    stand for them. Checked now: sides of different types are refused."""
    return _global("dataflow.pattern.Rule")(name, lhs, rhs, benefit)


def rules(text):
    """The rules of a rules text (``rule NAME : LHS [where ...] => RHS``)."""
    return list(_global("dataflow.pattern.ParseRules")(text))


class _NodeMap:
    """TVM's node_map: ``node_map[p]`` is the list of expressions pattern p
    (the callback's pattern or any pattern inside it) matched, ``node_map["x"]``
    the expression captured as x (irm's captures)."""

    __slots__ = ("_pattern", "_matched", "_captures", "_nodes")

    def __init__(self, pattern, matched, captures):
        self._pattern, self._matched, self._captures, self._nodes = pattern, matched, captures, None

    def _by_pattern(self):
        if self._nodes is None:  # matched again only when a pattern is asked for
            self._nodes = {}
            for pat, expr in _global("dataflow.pattern.MatchNodes")(self._pattern, self._matched) or []:
                found = self._nodes.setdefault(pat.handle, [])
                if not any(e.same_as(expr) for e in found):
                    found.append(expr)
        return self._nodes

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._captures[key]
        if not isinstance(key, DFPattern):
            raise TypeError("node_map keys are patterns or capture names, got %s" % type(key).__name__)
        found = self._by_pattern().get(key.handle)
        if found is None:
            raise KeyError("the pattern %r matched nothing in this match" % key)
        return found

    def __contains__(self, key):
        if isinstance(key, str):
            return key in self._captures
        return isinstance(key, DFPattern) and key.handle in self._by_pattern()

    def get(self, key, default=None):
        return self[key] if key in self else default

    def keys(self):
        return self._captures.keys()

    def items(self):
        return self._captures.items()


def _with_types(expr):
    """expr, typed by InferType when it has no checked type yet (require_type)."""
    if expr.checked_type is not None:
        return expr
    from .ir import Function, IRModule
    from .transform import Pass
    mod = Pass.get("InferType")(IRModule.from_expr(expr))
    return mod["main"] if isinstance(expr, Function) else mod["main"].body


class DFPatternCallback:
    """TVM's callback class: set self.pattern in __init__ and define
    callback(pre, post, node_map) returning the replacement (or post to
    keep it). ``node_map[p][0]`` is what pattern p (self.pattern or any
    pattern inside it) matched; ``node_map["x"]`` a capture.

    require_type: the expression is typed (InferType) before rewriting.
    rewrite_once: in rewrite(), the callback makes one walk, firing at most
    once at each expression and never at a replacement (TVM's single pass).
    A pattern pass made of it still rewrites to a fixed point."""

    require_type = False
    rewrite_once = False
    benefit = 0

    def __init__(self, require_type=False, rewrite_once=False):
        self.require_type = require_type
        self.rewrite_once = rewrite_once

    def rule(self, name=None):
        pattern = self.pattern

        def fire(matched, captures):
            out = self.callback(matched, matched, _NodeMap(pattern, matched, captures.to_dict()))
            return None if out is None or out.same_as(matched) else out
        return _global("dataflow.pattern.CallbackRule")(name or type(self).__name__, pattern, fire, self.benefit)


def _as_rules(callbacks):
    if isinstance(callbacks, (DFPatternCallback, RewriteRule)):
        callbacks = [callbacks]
    return [c.rule() if isinstance(c, DFPatternCallback) else c for c in callbacks]


def rewrite(callbacks, expr, mod=None):
    """Rewrites expr (an expression or a Function, such as ``mod["main"]``)
    with callbacks (DFPatternCallback objects or rules) to a fixed point; the
    input itself when nothing fired. A callback with require_type has expr
    typed first."""
    if isinstance(callbacks, (DFPatternCallback, RewriteRule)):
        callbacks = [callbacks]
    if any(getattr(c, "require_type", False) for c in callbacks):
        expr = _with_types(expr)
    rules, once = _as_rules(callbacks), [bool(getattr(c, "rewrite_once", False)) for c in callbacks]
    if not any(once):
        return _global("dataflow.pattern.Rewrite")(rules, expr, mod)
    # TVM's loop: each callback walks the expression in turn (a rewrite_once one a single
    # walk), again until nothing changes, unless the last callback is rewrite_once
    for _ in range(100):
        last = expr
        for one, single in zip(rules, once):
            expr = _global("dataflow.pattern.Rewrite")([one], expr, mod, int(single))
        if once[-1] or expr.same_as(last):
            break
    return expr


def partition(pattern, expr, attrs=None, name="composite"):
    return pattern.partition(expr, attrs, name)


def pattern_pass(name, rule_list, opt_level=0):
    """A function pass applying the rules (transform.PatternPass)."""
    return _global("transform.PatternPass")(name, _as_rules(rule_list), opt_level)


def register_pattern_pass(name, rule_list, opt_level=0):
    """Registers the rules as the pass name, for pipelines."""
    _global("transform.RegisterPatternPass")(name, _as_rules(rule_list), opt_level)


def partition_for_target(mod, kind):
    """MergeComposite by the target kind's target.patterns, then outlining for
    its codegen.ext.<kind> (transform.PartitionForTarget)."""
    return _global("transform.PartitionForTarget")(mod, kind)


__all__ = ["DFPattern", "WildcardPattern", "ExprPattern", "OpPattern", "CallPattern", "ConstantPattern",
           "VarPattern", "TuplePattern", "TupleGetItemPattern", "AltPattern", "AttrPattern", "TypePattern",
           "DataTypePattern", "ShapePattern", "DominatorPattern", "CapturePattern", "FunctionPattern", "LetPattern",
           "is_let", "wildcard", "is_op",
           "is_constant", "is_var", "is_expr", "is_tuple",
           "is_tuple_get_item", "has_attr", "has_type", "has_dtype", "has_shape", "dominates",
           "RewriteRule", "rule", "rules", "DFPatternCallback", "rewrite", "partition", "pattern_pass",
           "register_pattern_pass", "partition_for_target"]
