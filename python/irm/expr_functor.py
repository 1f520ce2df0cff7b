"""TVM's ExprVisitor and ExprMutator over irm's dataflow IR (irm.ir).

Subclass and override any of visit_call, visit_var, visit_constant,
visit_tuple, visit_tuple_getitem, visit_function, visit_let, visit_op and
visit_global_var; call ``self.visit(child)`` inside them. Both memoize per
node by identity (not structure: two equal subtrees that are distinct
objects are visited twice), so a DAG is visited once per node and the
mutator keeps its sharing. ExprMutator rebuilds a node only when one of its
children changed and returns the very same object otherwise.

The visit is recursive, as TVM's is; the outermost ``visit`` raises the
interpreter's recursion limit for its duration so chains of tens of
thousands of nodes work. Not thread safe: one instance per thread.
"""
import sys

from ._ffi import Object
from .ir import Call, Constant, Function, GlobalVar, Let, Op, Tuple, TupleGetItem, Var

# Python frames per IR level (visit, dispatch, visit_<kind>, with headroom).
_FRAMES_PER_LEVEL = 4
_DEEPEST = 100000  # IR levels the raised limit allows


class _Functor:
    """The dispatch and memo both classes share."""

    def __init__(self):
        self.memo_map = {}  # node handle -> (node, result); the node kept alive so its handle stays unique
        self._depth = 0

    def visit(self, expr):
        """The result for expr: memoized, else dispatched on its kind."""
        if not isinstance(expr, Object):
            raise TypeError("%s.visit: %s is not an irm.ir expression or function"
                            % (type(self).__name__, type(expr).__name__))
        if "memo_map" not in self.__dict__:  # a subclass __init__ that skipped ours
            _Functor.__init__(self)
        key = expr.handle
        hit = self.memo_map.get(key)
        if hit is not None:
            return hit[1]
        if self._depth == 0:
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(max(old, _FRAMES_PER_LEVEL * _DEEPEST))
        else:
            old = None
        self._depth += 1
        try:
            result = self._dispatch(expr)
        finally:
            self._depth -= 1
            if old is not None:
                sys.setrecursionlimit(old)
        self.memo_map[key] = (expr, result)
        return result

    def _dispatch(self, expr):
        for cls, method in _METHODS:
            if isinstance(expr, cls):
                return getattr(self, method)(expr)
        raise TypeError("%s.visit: %s is not an irm.ir expression or function"
                        % (type(self).__name__, type(expr).__name__))


# Most specific first: Function is not an Expr subclass in irm.ir.
_METHODS = ((Call, "visit_call"), (Var, "visit_var"), (Constant, "visit_constant"), (Tuple, "visit_tuple"),
            (TupleGetItem, "visit_tuple_getitem"), (Function, "visit_function"), (Let, "visit_let"),
            (Op, "visit_op"), (GlobalVar, "visit_global_var"))


class ExprVisitor(_Functor):
    """Visits every node reachable from the expression given to visit(),
    each once; the default methods only descend and return None."""

    def visit_call(self, call):
        self.visit(call.op)
        for arg in call.args:
            self.visit(arg)

    def visit_var(self, var):
        pass

    def visit_constant(self, const):
        pass

    def visit_tuple(self, tup):
        for field in tup.fields:
            self.visit(field)

    def visit_tuple_getitem(self, t):
        self.visit(t.tuple_value)

    def visit_function(self, fn):
        for param in fn.params:
            self.visit(param)
        self.visit(fn.body)

    def visit_let(self, let):
        self.visit(let.var)
        self.visit(let.value)
        self.visit(let.body)

    def visit_op(self, op):
        pass

    def visit_global_var(self, gvar):
        pass


def _changed(old, new):
    return any(not a.same_as(b) for a, b in zip(old, new))


class ExprMutator(_Functor):
    """Returns a rewritten copy of the expression given to visit(): the
    default methods rebuild a node from its visited children when one of
    them changed (attributes, ret_type and function attributes kept; the
    checked type is dropped, as in TVM: run InferType again) and return
    the node itself otherwise."""

    def visit_call(self, call):
        op = self.visit(call.op)
        args = [self.visit(a) for a in call.args]
        if op.same_as(call.op) and not _changed(call.args, args):
            return call
        attrs = call._field("attrs")
        return Call(op, args, attrs.to_dict() if attrs is not None and isinstance(op, Op) else None)

    def visit_var(self, var):
        return var

    def visit_constant(self, const):
        return const

    def visit_tuple(self, tup):
        fields = [self.visit(f) for f in tup.fields]
        return Tuple(fields) if _changed(tup.fields, fields) else tup

    def visit_tuple_getitem(self, t):
        value = self.visit(t.tuple_value)
        return t if value.same_as(t.tuple_value) else TupleGetItem(value, t.index)

    def visit_function(self, fn):
        params = [self.visit(p) for p in fn.params]
        body = self.visit(fn.body)
        if body.same_as(fn.body) and not _changed(fn.params, params):
            return fn
        return Function(params, body, fn.ret_type, fn.attrs)

    def visit_let(self, let):
        var, value, body = self.visit(let.var), self.visit(let.value), self.visit(let.body)
        if var.same_as(let.var) and value.same_as(let.value) and body.same_as(let.body):
            return let
        return Let(var, value, body)

    def visit_op(self, op):
        return op

    def visit_global_var(self, gvar):
        return gvar
