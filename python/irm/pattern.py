"""Dataflow patterns with TVM's names (``tvm.relay.dataflow_pattern``), rewrite
rules and partitioning, over the dataflow.pattern.* globals (docs/patterns.md).

    from irm.ir.pattern import is_op, wildcard, is_constant, rewrite, DFPatternCallback
    conv = is_op("nn.conv2d")(wildcard(), is_constant())
    conv.match(expr)                      # True / False
    rules("rule r : nn.relu(%x) => maximum(%x, const(0f))")
"""
from ._ffi import Object, register_object, _global


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


class DFPatternCallback:
    """TVM's callback class: set self.pattern in __init__ and define
    callback(pre, post, node_map) returning the replacement (or post to
    keep it). node_map maps capture names to expressions."""

    require_type = False
    benefit = 0

    def rule(self, name=None):
        def fire(matched, captures):
            out = self.callback(matched, matched, captures.to_dict())
            return None if out is None or out.same_as(matched) else out
        return _global("dataflow.pattern.CallbackRule")(name or type(self).__name__, self.pattern, fire,
                                                        self.benefit)


def _as_rules(callbacks):
    if isinstance(callbacks, (DFPatternCallback, RewriteRule)):
        callbacks = [callbacks]
    return [c.rule() if isinstance(c, DFPatternCallback) else c for c in callbacks]


def rewrite(callbacks, expr, mod=None):
    """Rewrites expr with callbacks (DFPatternCallback objects or rules) to a
    fixed point; the input itself when nothing fired."""
    args = [_as_rules(callbacks), expr] + ([mod] if mod is not None else [])
    return _global("dataflow.pattern.Rewrite")(*args)


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


__all__ = ["DFPattern", "wildcard", "is_op", "is_constant", "is_var", "is_expr", "is_tuple",
           "is_tuple_get_item", "has_attr", "has_type", "has_dtype", "has_shape", "dominates",
           "RewriteRule", "rule", "rules", "DFPatternCallback", "rewrite", "partition", "pattern_pass",
           "register_pattern_pass", "partition_for_target"]
