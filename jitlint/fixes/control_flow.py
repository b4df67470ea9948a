"""Fixes for JIT2xx: Python control flow on traced values -> ``jnp.where`` / ``lax.cond`` / loops.

JIT201 ``if`` / conditional expression:

* early return -- ``if c: return a`` + ``return b`` (or ``else: return b``) ->
  ``return jnp.where(c, a, b)`` when both are cheap elementwise expressions,
  else ``return lax.cond(c, lambda: a, lambda: b)``; branches with more code
  become local functions, and the code after the ``if`` becomes the false
  branch;
* branches that assign -- every variable assigned in either branch and live
  afterwards is carried (a tuple for several); a variable assigned in one branch
  only keeps its earlier value in the other; one variable with cheap
  elementwise values -> ``y = jnp.where(c, a, b)``;
* ``a if c else b`` -> ``jnp.where(c, a, b)`` or ``lax.cond(c, lambda: a, lambda: b)``.

``and`` / ``or`` / ``not`` in the condition become ``jnp.logical_*``; chained
comparisons are split.  ``jnp.where`` is used only when neither branch holds a
function with a restricted domain or an unbounded derivative (``sqrt``, ``log``,
division, ``**``, ``exp``, ``arcsin``...): where evaluates both branches, and
the untaken one would put NaN into gradients.  Those get ``lax.cond``.  Literal
branches are matched to the other branch's dtype (``jnp.zeros_like(x)``,
``0.0`` rather than ``0``) because ``lax.cond`` rejects branches whose types
differ.

No fix when a branch returns on one path only, has ``break`` / ``continue`` /
``yield``, side effects (both branches are traced, or evaluated), or assigns a
variable that is used afterwards without being defined before on both paths.

JIT202 ``for i in range(n)`` -> ``lax.fori_loop(0, n, body_fun, init)``;
JIT203 ``while c:`` -> ``lax.while_loop(cond_fun, body_fun, init)``.  The carry
is exactly the variables assigned in the loop that are live at its head
(read after the loop, or read in the body or the condition before being
assigned); each must be defined before the loop.  No fix for a step other than
1, ``break`` / ``continue`` / ``return`` / ``yield``, appending to a list,
side effects, ``for ... else``, or a loop index used after the loop or as a
Python int (``range(i)``, ``x[:i]``).

Safety: every rewrite here is UNSAFE.  ``lax.cond`` traces both branches and
fails for branches of different dtypes or shapes that eager Python accepted;
``jnp.where`` broadcasts and promotes; ``fori_loop`` with a traced bound and
``while_loop`` are not reverse-mode differentiable (the Python loop was,
under plain ``jax.grad``); loop carries must keep their dtype.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis.syntax import (calls_in, int_value, iter_children, literal_elements, name_references,
                                     returned_values, stored_values, string_value, substitute_names)
from jitlint.analysis.values import Kind
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.common import comments_in, keep_comments, kind_of, literal_value, template_format, with_leading_lines
from jitlint.fixes.context import FixContext
from jitlint.fixes.conversions import conversion, not_numeric, operand_kind
from jitlint.fixes.dataflow import (
    Definitions,
    Liveness,
    assigned_in,
    block_statements,
    live_in,
    reads,
    surely_assigned,
)
from jitlint.fixes.registry import rewrites
from jitlint.fixes.side_effects import is_logging_call
from jitlint.fixes.templates import Replacement
from jitlint.fixes.wrap import with_comments

ARRAY_MODULES = ("jax.numpy.", "jax.nn.", "jax.lax.")

#: jnp functions that work element by element (cheap enough to evaluate both sides)
ELEMENTWISE = frozenset({
    "abs", "absolute", "maximum", "minimum", "fmax", "fmin", "clip", "where", "sign", "square", "negative",
    "positive", "sin", "cos", "tanh", "arctan", "arcsinh", "floor", "ceil", "round", "rint", "trunc", "real",
    "imag", "conj", "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isfinite", "isinf",
    "heaviside", "relu", "sigmoid", "softplus", "silu", "gelu", "exp", "expm1", "exp2", "log", "log1p", "log2",
    "log10", "sqrt", "rsqrt", "cbrt", "arcsin", "arccos", "arctanh", "arccosh", "tan", "power", "float_power",
    "divide", "true_divide", "reciprocal", "mod", "remainder", "floor_divide", "sinh", "cosh", "arctan2",
    "asarray", "float32", "float64", "int32",
})

#: elementwise functions with a restricted domain or an unbounded derivative:
#: under jnp.where the untaken branch turns gradients into NaN
RESTRICTED = frozenset({
    "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "cbrt", "arcsin", "arccos",
    "arctanh", "arccosh", "tan", "power", "float_power", "divide", "true_divide", "reciprocal", "mod",
    "remainder", "floor_divide", "sinh", "cosh", "arctan2",
})

CHEAP, RESTRICTED_KIND = 1, 2

#: jnp functions whose result is a bool array
_BOOL_REDUCTIONS = frozenset("jax.numpy." + n for n in ("any", "all", "array_equal", "array_equiv", "allclose"))

_PREDICATE_ADVICE = ("Rewrite with `jnp.where` / `lax.cond` once the test is a boolean array (a comparison such "
                     "as `x > 0`); the truth of a container, `None` or a number is not one")
_STRUCTURE_ADVICE = ("Rewrite with `lax.cond` once both branches give the same structure (the same variables, "
                     "tuples of the same length); `lax.cond` rejects branches whose outputs differ")

_FUNCTION_ADVICE = ("Choose the function where it is called: `lax.cond(c, f, g, *args)` (or `lax.switch(i, [f, g, h], "
                    "*args)`); `lax.cond` and `jnp.where` give arrays, not functions")
_SHAPE_ADVICE = ("A slice with a traced bound has a shape known only at run time: keep the full array and mask "
                 "it (`jnp.where(jnp.arange(n) < k, x, 0)`), or make the bound static")
_EMPTY_ADVICE = ("One branch gives an empty array and the other an array the data sizes: `lax.cond` needs both of "
                 "one shape -- make the test static (a size is known when tracing), or keep the full array")


class _NoFix(Exception):
    pass


class _Advice(Exception):
    """A precondition of the rewrite cannot be proven: display-only advice instead (the message)."""


class _Builder:
    """Spells the JAX names a rewrite needs and collects the imports that adds."""

    def __init__(self, ctx: FixContext) -> None:
        self.ctx = ctx
        self.imports: List[Edit] = []
        self._names: Dict[str, str] = {}
        #: the fix is decided (see :func:`_later`): a name not spelled yet is a bug of the builder
        self.sealed = False

    def name(self, qualified: str) -> str:
        found = self._names.get(qualified)
        if found is None:
            if self.sealed:
                raise RuntimeError(f"`{qualified}` is spelled after the fix was decided: spell it before")
            spelled = self.ctx.import_name(qualified)
            if spelled is None:
                raise _NoFix
            found, edits = spelled
            for e in edits:
                if e not in self.imports:
                    self.imports.append(e)
            self._names[qualified] = found
        return found

    @property
    def lax(self) -> str:
        return self.name("jax.lax")

    @property
    def jnp(self) -> str:
        return self.name("jax.numpy")

    def expr(self, template: str, **nodes) -> cst.BaseExpression:
        return self.ctx.expr(template, **nodes)

    # ------------------------------------------------------------ predicate
    def bool_array(self, e: cst.BaseExpression) -> bool:
        """``e`` (as :meth:`predicate` rewrites it) is a traced array of dtype bool."""
        if isinstance(e, cst.BooleanOperation):
            return self.boolish(e.left) and self.boolish(e.right) and (
                self.bool_array(e.left) or self.bool_array(e.right))
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
            return self.ctx.facts.value(e.expression).kind is Kind.TRACED
        if isinstance(e, cst.Comparison) and _order_ops(e) is None:
            return False
        if isinstance(e, cst.Comparison) and any(self._side(side) is not side for side in _sides(e)) \
                and not any(_not_a_number(side, self.ctx) for side in _sides(e)):
            return True  # `float(x) > c`, compared as `x > c`: x traced, c a number
        value = self.ctx.facts.value(e)
        if isinstance(e, cst.Name) and value.kind is Kind.TRACED and not value.is_bool:
            # a local bound once to such a test (`reached = jnp.all(pos == goal)`)
            function = self.ctx.enclosing_def(e)
            info = self.ctx.index.infos.get(function) if function is not None else None
            bound = info.scope.single_value(e.value) if info is not None else None
            if isinstance(bound, (cst.Call, cst.Comparison)) and not info.scope.bindings[e.value][0].loops:
                return self.bool_array(bound)
        if isinstance(e, cst.Call) and value.kind is Kind.TRACED and not value.container and value.items is None:
            q = self.ctx.index.qualify(e.func)
            if q in _BOOL_REDUCTIONS:
                return True
            if q is None and isinstance(e.func, cst.Attribute) and e.func.attr.value in ("any", "all") \
                    and self.ctx.facts.value(e.func.value).traced_array:
                return True
        return value.kind is Kind.TRACED and value.is_bool and not value.container and value.items is None

    def boolish(self, e: cst.BaseExpression) -> bool:
        """``e`` (as :meth:`predicate` rewrites it) is a bool array or a Python bool: ``&`` / ``|``
        on two of them is ``and`` / ``or``."""
        if isinstance(e, cst.Name) and e.value in ("True", "False"):
            return True
        if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not):
            return True  # rewritten to `~` on a bool array or to jnp.logical_not
        if self.bool_array(e):
            return True
        value = self.ctx.facts.value(e)
        return value.kind is Kind.STATIC and value.known and isinstance(value.const, bool)

    def predicate(self, test: cst.BaseExpression, value: bool = False) -> cst.BaseExpression:
        """``and`` / ``or`` / ``not`` and chained comparisons as array operations.

        ``a and b`` -> ``a & b`` when both are bool arrays or Python bools (``&`` is then the
        logical and, and a comparison gives one); otherwise ``jnp.logical_and(a, b)``, which tests
        the truth of numbers too -- in a test only (``value``: the result is used as a value,
        where Python's ``and`` gives one of its operands, not a bool: no rewrite).  ``not a`` ->
        ``~a`` for a bool array only (``~True`` is -2, ``~`` of an int array is bitwise),
        otherwise ``jnp.logical_not(a)``.  ``a < x <= b`` -> ``(a < x) & (x <= b)``."""
        if isinstance(test, cst.BooleanOperation):
            left, right = self.predicate(test.left, value), self.predicate(test.right, value)
            if self.boolish(test.left) and self.boolish(test.right):
                op = cst.BitAnd() if isinstance(test.operator, cst.And) else cst.BitOr()
                out: cst.BaseExpression = cst.BinaryOperation(left=_operand(left), operator=op,
                                                              right=_operand(right, right_side=True))
                return _keep_parens(test, out)
            if value:
                raise _NoFix
            fn = "logical_and" if isinstance(test.operator, cst.And) else "logical_or"
            return self.expr(f"{self.jnp}.{fn}({{a}}, {{b}})", a=_bare(left), b=_bare(right))
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self.predicate(test.expression, value)
            if self.bool_array(test.expression):
                return _keep_parens(test, cst.UnaryOperation(operator=cst.BitInvert(), expression=_operand(
                    inner, unary=True)))
            if value and self.ctx.facts.value(test.expression).kind is not Kind.TRACED:
                raise _NoFix
            return self.expr(f"{self.jnp}.logical_not({{a}})", a=_bare(inner))
        if isinstance(test, cst.Comparison) and len(test.comparisons) > 1:
            if _order_ops(test) is None or not self.bool_array(test):
                raise _NoFix
            pieces: List[cst.BaseExpression] = []
            left = self._side(test.left)
            for target in test.comparisons:
                right = self._side(target.comparator)
                pieces.append(cst.Comparison(left=_bare(left), comparisons=[target.with_changes(
                    comparator=_bare(right))]))
                left = right
            out = _operand(pieces[0])
            for piece in pieces[1:]:
                out = cst.BinaryOperation(left=out, operator=cst.BitAnd(), right=_operand(piece))
            return _keep_parens(test, out)
        if isinstance(test, cst.Comparison):
            return test.with_changes(left=self._side(test.left), comparisons=[
                t.with_changes(comparator=self._side(t.comparator)) for t in test.comparisons])
        return test

    def _side(self, e: cst.BaseExpression) -> cst.BaseExpression:
        """A side of a comparison of a test, ``x`` for ``float(x)`` of a traced ``x``: ``float(x) > c`` and
        ``x > c`` are the same test of the same number (the array promotes to float when ``c`` is one; in
        float32 unless x64 is enabled, where Python compared in float64).  Not ``int()``: ``int(2.5) > 2``
        is False, ``2.5 > 2`` True."""
        found = conversion(e, self.ctx) if isinstance(e, cst.Call) else None
        if found is None or found[0] != "float":
            return e
        inner = found[1]
        if isinstance(inner, (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.BinaryOperation)) or inner.lpar:
            return inner.with_changes(lpar=e.lpar, rpar=e.rpar) if e.lpar and not inner.lpar else inner
        return inner.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    # -------------------------------------------------------------- values
    def names_function(self, e: cst.BaseExpression) -> bool:
        """``e`` is a function (a lambda, a function of this module or another of the project's):
        ``jnp.where`` and ``lax.cond`` select arrays, not functions."""
        facts = self.ctx.facts
        return isinstance(e, cst.Lambda) or facts.value(e).func is not None or e in facts.function_names

    def classify(self, expr: cst.BaseExpression) -> Optional[int]:
        """CHEAP or RESTRICTED_KIND for an elementwise expression, None otherwise."""
        worst = CHEAP
        stack: List[cst.CSTNode] = [expr]
        while stack:
            n = stack.pop()
            if isinstance(n, cst.Name):
                if n.value == "None" or self.ctx.facts.value(n).items is not None or self.names_function(n):
                    return None
                continue
            if isinstance(n, (cst.Integer, cst.Float, cst.Imaginary)):
                continue
            if isinstance(n, cst.Attribute):
                if self.names_function(n):
                    return None
                stack.append(n.value)
                continue
            if isinstance(n, cst.Subscript):
                if _traced_slice(self, n):
                    return None  # (a shape known at run time only: see _same_structure)
                continue  # indexing: cheap, whatever the index
            if isinstance(n, cst.BinaryOperation):
                op = n.operator
                if isinstance(op, cst.MatrixMultiply):
                    return None
                if isinstance(op, (cst.Divide, cst.FloorDivide, cst.Modulo)):
                    worst = RESTRICTED_KIND
                if isinstance(op, cst.Power):
                    exponent = literal_value(n.right)
                    if not (isinstance(exponent, int) and exponent >= 0):
                        worst = RESTRICTED_KIND
                stack.extend((n.left, n.right))
                continue
            if isinstance(n, cst.UnaryOperation):
                if isinstance(n.operator, cst.Not):
                    return None
                stack.append(n.expression)
                continue
            if isinstance(n, cst.Comparison):
                if any(isinstance(t.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for t in n.comparisons):
                    return None
                stack.append(n.left)
                stack.extend(t.comparator for t in n.comparisons)
                continue
            if isinstance(n, cst.Call):
                q = self.ctx.index.qualify(n.func)
                if q is None or not q.startswith(ARRAY_MODULES):
                    return None
                tail = q.rsplit(".", 1)[-1]
                if tail not in ELEMENTWISE:
                    return None
                if tail in RESTRICTED:
                    worst = RESTRICTED_KIND
                for arg in n.args:
                    if arg.star:
                        return None
                    if arg.keyword is None:
                        stack.append(arg.value)
                continue
            return None
        return worst

    def like(self, literal: cst.BaseExpression, other: cst.BaseExpression) -> cst.BaseExpression:
        """A literal branch value with the dtype and shape of the other branch."""
        value = literal_value(literal)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return literal
        if isinstance(value, float) and not value.is_integer():
            return literal
        if kind_of(self.ctx, other) is not Kind.TRACED or not _is_simple(other):
            # a float literal is accepted against any float branch (weakly typed)
            return cst.Float(repr(float(value))) if isinstance(value, int) else literal
        if value == 0:
            return self.expr(f"{self.jnp}.zeros_like({{o}})", o=other)
        if value == 1:
            return self.expr(f"{self.jnp}.ones_like({{o}})", o=other)
        return self.expr(f"{self.jnp}.full_like({{o}}, {{v}})", o=other, v=literal)

    def matched(self, a: cst.BaseExpression, b: cst.BaseExpression) -> Tuple[cst.BaseExpression, cst.BaseExpression]:
        """``lax.cond`` needs equal output types: literals follow the other branch."""
        if isinstance(a, cst.Tuple) and isinstance(b, cst.Tuple) and len(a.elements) == len(b.elements):
            pairs = [self.matched(x.value, y.value) for x, y in zip(a.elements, b.elements)]
            return (a.with_changes(elements=[e.with_changes(value=p[0]) for e, p in zip(a.elements, pairs)]),
                    b.with_changes(elements=[e.with_changes(value=p[1]) for e, p in zip(b.elements, pairs)]))
        la, lb = _number(a), _number(b)
        if la is not None and lb is not None:
            if isinstance(la, float) and isinstance(lb, int):
                return a, cst.Float(repr(float(lb)))
            if isinstance(lb, float) and isinstance(la, int):
                return cst.Float(repr(float(la))), b
            return a, b
        if la is not None:
            return self.like(a, b), b
        if lb is not None:
            return a, self.like(b, a)
        return a, b

    # ------------------------------------------------------------ building
    def lambda_(self, params: Sequence[str], body: cst.BaseExpression) -> cst.Lambda:
        head = "lambda " + ", ".join(params) + ": " if params else "lambda: "
        return cst.ensure_type(self.expr(head + "{b}", b=body), cst.Lambda)

    def function(self, name: str, params: Sequence[str], body: Sequence[cst.CSTNode],
                 header: Optional[cst.TrailingWhitespace] = None,
                 leading: Sequence[cst.EmptyLine] = ()) -> cst.FunctionDef:
        module = self.ctx.module
        nl, indent = module.default_newline, module.default_indent
        node = cst.ensure_type(cst.parse_statement(f"def {name}({', '.join(params)}):{nl}{indent}pass{nl}",
                                                   config=self.ctx.config), cst.FunctionDef)
        block = cst.ensure_type(node.body, cst.IndentedBlock).with_changes(body=as_lines(body))
        if header is not None:
            block = block.with_changes(header=header)
        return node.with_changes(body=block, leading_lines=list(leading))

    def statement(self, template: str, **nodes) -> cst.BaseStatement:
        return self.ctx.stmt(template, **nodes)


def _order_ops(test: cst.Comparison) -> Optional[bool]:
    """True when every operator of ``test`` is an ordering or (in)equality (None for ``is`` / ``in``)."""
    if any(isinstance(t.operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)) for t in test.comparisons):
        return None
    return True


_LOOSE = (cst.Comparison, cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)


def _bare(e: cst.BaseExpression) -> cst.BaseExpression:
    """``e`` without a redundant pair of parentheses of its own (for a call argument)."""
    return e


def _operand(e: cst.BaseExpression, right_side: bool = False, unary: bool = False) -> cst.BaseExpression:
    """``e`` parenthesized where it is an operand of ``&`` / ``|`` (or of ``~``: ``unary``) and
    would otherwise bind differently."""
    if e.lpar:
        return e
    loose = isinstance(e, _LOOSE) or (isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not))
    if isinstance(e, cst.BinaryOperation):
        if unary:
            loose = True
        elif isinstance(e.operator, (cst.BitOr, cst.BitXor)):
            loose = True
        elif right_side and isinstance(e.operator, cst.BitAnd):
            loose = True
    if loose:
        return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return e


def _keep_parens(old: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    """``new`` in the parentheses ``old`` had."""
    if old.lpar:
        return new.with_changes(lpar=old.lpar, rpar=old.rpar)
    return new


def _is_simple(node: cst.BaseExpression) -> bool:
    """A name or a chain of attributes: cheap to repeat in ``jnp.zeros_like(...)``."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _number(node: cst.BaseExpression):
    v = literal_value(node)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def as_lines(stmts: Sequence[cst.CSTNode]) -> List[cst.BaseStatement]:
    """Statements for an indented block: small statements of a one-line suite get lines of their own."""
    out: List[cst.BaseStatement] = []
    for s in stmts:
        if isinstance(s, cst.BaseSmallStatement):
            out.append(cst.SimpleStatementLine(body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]))
        else:
            out.append(cst.ensure_type(s, cst.BaseStatement))
    return out


#: nested scopes, which :func:`_contains` does not look into (concrete classes: tested by exact type)
_NESTED_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})


def _contains(stmts: Sequence[cst.CSTNode], kinds) -> bool:
    """Whether a node of one of the concrete classes ``kinds`` is in ``stmts`` (not in nested scopes)."""
    wanted = frozenset(kinds) if isinstance(kinds, tuple) else frozenset((kinds,))
    stack: List[cst.CSTNode] = list(stmts)
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind in wanted:
            return True
        if kind in _NESTED_SCOPES:
            continue
        stack.extend(iter_children(n))
    return False


def _ends_in_return(stmts: Sequence[cst.CSTNode]) -> bool:
    """Every path through ``stmts`` ends in ``return <value>``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        last = last.body[-1]
    if isinstance(last, cst.Return):
        return last.value is not None
    if isinstance(last, cst.If):
        if isinstance(last.orelse, cst.If):
            rest: Optional[Sequence[cst.CSTNode]] = [last.orelse]
        elif isinstance(last.orelse, cst.Else):
            rest = block_statements(last.orelse.body)
        else:
            return False
        return _ends_in_return(block_statements(last.body)) and _ends_in_return(rest)
    return False


def _single_return(stmts: Sequence[cst.CSTNode]) -> Optional[cst.BaseExpression]:
    """The value of a block that is only ``return value``."""
    if len(stmts) != 1:
        return None
    s = stmts[0]
    if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1:
        s = s.body[0]
    if isinstance(s, cst.Return) and s.value is not None:
        return s.value
    return None


def _ordered(names, stmts: Sequence[cst.CSTNode]) -> List[str]:
    """``names`` in the order they are first spelled in ``stmts``."""
    wanted = set(names)
    out: List[str] = []
    stack: List[cst.CSTNode] = list(reversed(list(stmts)))
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value in wanted and n.value not in out:
            out.append(n.value)
        stack.extend(reversed(list(iter_children(n))))
    out.extend(sorted(wanted - set(out)))
    return out


def _tuple(ctx: FixContext, names: Sequence[str]) -> cst.BaseExpression:
    return cst.parse_expression(", ".join(names) if len(names) > 1 else names[0], config=ctx.config)


def _return(ctx: FixContext, names: Sequence[str]) -> cst.BaseStatement:
    """``return a, b`` (no parentheses)."""
    return cst.ensure_type(cst.parse_statement(f"return {', '.join(names)}{ctx.module.default_newline}",
                                               config=ctx.config), cst.BaseStatement)


def _target(names: Sequence[str]) -> str:
    return ", ".join(names)


def _uses_global_state(ctx: FixContext, fn_node: cst.FunctionDef, names) -> bool:
    info = ctx.index.infos.get(fn_node)
    return info is None or bool(set(names) & (info.global_names | info.nonlocal_names))


# =========================================================== staged checks

_CHECK_TITLE = ("Check it on every call: raise from `jax.debug.callback` (under jit the error arrives as a "
                "`JaxRuntimeError`)")
_ASSERT_ADVICE = ("Check traced values with `checkify.check` (`jax.experimental.checkify`), which raises after "
                  "the call")
#: the module-level function the staged checks call, and its code (reused where the module has it)
_RAISER = "_raise_where"
_RAISER_CODE = (
    "def {name}(error, failed):\n"
    '    """Raise ``error`` if ``failed`` holds a true value: a check of traced values, run on every call\n'
    '    by ``jax.debug.callback``."""\n'
    "    if failed.any():\n"
    "        raise error\n"
)


@rewrites("JIT201", "JIT301")
def to_staged_check(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """A check of traced values that raises -> the same check made on every call, by ``jax.debug.callback``:

    * JIT201 ``assert c, msg`` -> ``jax.debug.callback(partial(_raise_where, AssertionError(msg)),
      jnp.logical_not(c))``;
    * JIT201 ``if c: raise E(...)`` (nothing else in the branch, no ``else``) -> the same with ``c``;
    * JIT301 ``ok = bool(c)`` whose one use is ``if not ok: raise E(...)`` right after -> ``ok = c`` and the
      same with ``jnp.logical_not(ok)``.

    ``c`` must be a boolean array (a comparison, ``jnp.all``, ...), the exception built from Python values
    only (it is made when the check is traced, and bound to the callback), and the check not inside a
    ``try`` (the error now comes from the callback).  Eagerly the callback raises the exception itself; under
    jit JAX raises a ``JaxRuntimeError`` that carries it, after the call: UNSAFE."""
    try:
        if isinstance(node, cst.Call) and isinstance(ctx.parent(node), cst.Assign):
            return _checked_bool(node, ctx)  # JIT301 `ok = bool(c)`
        test = _test_around(node, ctx)
        parent = ctx.parent(test)
        if isinstance(parent, cst.Assert) and parent.test is test:
            return _staged(ctx, parent, test, negate=True, error=_assertion_error(parent, ctx)) \
                or Fix(Applicability.DISPLAY_ONLY, _ASSERT_ADVICE, ())
        if isinstance(parent, cst.If) and parent.test is test:
            error = _raised(parent, ctx)
            return None if error is None else _staged(ctx, parent, test, negate=False, error=error)
    except _NoFix:
        return None
    return None


def _raised(stmt: cst.If, ctx: FixContext) -> Optional[cst.BaseExpression]:
    """The exception ``if c: raise E(...)`` raises, when the ``if`` does nothing else."""
    if stmt.orelse is not None or not isinstance(stmt.body, cst.IndentedBlock) or len(stmt.body.body) != 1:
        return None
    line = stmt.body.body[0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    small = line.body[0]
    if not isinstance(small, cst.Raise) or small.exc is None or small.cause is not None:
        return None
    return small.exc


def _assertion_error(stmt: cst.Assert, ctx: FixContext) -> cst.BaseExpression:
    msg = stmt.msg
    return ctx.expr("AssertionError()") if msg is None else ctx.expr("AssertionError({m})", m=msg)


def _checked_bool(call: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """JIT301 ``ok = bool(c)``, then ``if not ok: raise E(...)`` (or ``if ok: raise``), ``ok`` used nowhere else."""
    if not (isinstance(call.func, cst.Name) and call.func.value == "bool" and len(call.args) == 1
            and call.args[0].keyword is None and not call.args[0].star):
        return None
    assign, line = ctx.parent(call), None
    if isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1:
        line = ctx.parent(assign)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    target = assign.targets[0].target  # type: ignore[union-attr]
    located = ctx.block_of(line)
    fn = ctx.enclosing_def(line)
    if not isinstance(target, cst.Name) or located is None or fn is None:
        return None
    block, k = located
    after = block.body[k + 1] if k + 1 < len(block.body) else None
    if not isinstance(after, cst.If):
        return None
    test, negate = after.test, False
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, negate = test.expression, True
    error = _raised(after, ctx)
    if not (isinstance(test, cst.Name) and test.value == target.value) or error is None:
        return None
    uses = [n for n in name_references(fn.body, target.value) if n is not target]
    info = ctx.index.infos.get(fn)
    if uses != [test] or info is None or len([b for b in info.scope.bindings_of(target.value) if b.binds_value]) != 1:
        return None  # `ok` is this check's alone
    value = call.args[0].value
    bld = _Builder(ctx)
    if not bld.bool_array(value):
        return None
    return _staged(ctx, after, test, negate=negate, error=error, also={call: _bare(value)}, bld=bld)


def _staged(ctx: FixContext, stmt: cst.CSTNode, test: cst.BaseExpression, *, negate: bool,
            error: cst.BaseExpression, also: Optional[Dict[cst.CSTNode, Replacement]] = None,
            bld: Optional["_Builder"] = None) -> Optional[Fix]:
    """``stmt`` (an ``assert`` or an ``if`` that raises) -> the callback check of ``test`` (negated for an
    ``assert`` or ``if not``), raising ``error``."""
    bld = bld or _Builder(ctx)
    if also is None and not bld.bool_array(test):
        return None
    fn = ctx.enclosing_def(stmt)
    if fn is None or any(isinstance(a, cst.Try) for a in _ancestors_within(ctx, stmt, fn)):
        return None
    written = (stmt.msg if isinstance(stmt, cst.Assert) else error)  # (the code the user wrote)
    for name in _names_read(written) if written is not None else ():
        scope = ctx.facts.read_scope.get(name)
        if scope in ("global", "builtin"):
            continue
        if name not in ctx.facts.values or ctx.facts.value(name).kind is not Kind.STATIC:
            return None  # the message would be made from a tracer (or what may be one), at trace time
    if not _plain_exception(error):
        return None  # made on every traced call now, not only when the check fails
    callback = bld.name("jax.debug.callback")
    partial = bld.name("functools.partial")
    raiser, helper = _raiser(ctx)
    pred = bld.predicate(test)
    if negate:
        # `jnp.logical_not`, not `~`: right for a Python bool too (`~True` is -2, which would fail the check)
        pred = bld.expr(f"{bld.jnp}.logical_not({{a}})", a=_bare(pred))
    imports = list(bld.imports) + ([helper] if helper is not None else [])
    bld.sealed = True
    line = ctx.parent(stmt) if isinstance(stmt, cst.Assert) else stmt

    def make() -> Dict[cst.CSTNode, Replacement]:
        check = bld.expr(f"{callback}({partial}({raiser}, {{e}}), {{p}})", e=error, p=pred)
        statement = cst.SimpleStatementLine(body=[cst.Expr(check)])
        if isinstance(stmt, cst.Assert):
            # (only the `assert` of its line: `y = f(x); assert ...` keeps `y = f(x)`)
            out: Dict[cst.CSTNode, Replacement] = {line: line.with_changes(body=[
                cst.Expr(check, semicolon=small.semicolon) if small is stmt else small for small in line.body])}
        else:
            out = {stmt: cst.FlattenSentinel(keep_comments([stmt], with_leading_lines([statement], stmt)))}
        out.update(also or {})
        return out

    olds = [line] + list(also or {})
    return ctx.fix_later(Applicability.UNSAFE, _CHECK_TITLE, olds, make, imports)


#: calls a message may make: they only format values
_FORMATTING = frozenset({"str", "repr", "len", "type", "format", "round", "int", "float", "tuple", "list"})


def _plain_exception(error: cst.BaseExpression) -> bool:
    """``E``, or ``E(args)`` whose arguments only format values (literals, names, attributes, f-strings,
    ``%`` / ``+`` / ``.format()``, ``str()`` and the like): making it has no effect of its own."""
    if isinstance(error, (cst.Name, cst.Attribute)):
        return True
    if not isinstance(error, cst.Call) or not isinstance(error.func, (cst.Name, cst.Attribute)):
        return False
    stack: List[cst.CSTNode] = [a.value for a in error.args]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call):
            func = n.func
            if isinstance(func, cst.Name) and func.value in _FORMATTING:
                pass
            elif template_format(n):
                pass
            else:
                return False
        elif isinstance(n, (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr)):
            return False
        stack.extend(iter_children(n))
    return True


def _ancestors_within(ctx: FixContext, node: cst.CSTNode, fn: cst.CSTNode):
    for a in ctx.ancestors(node):
        if a is fn:
            return
        yield a


def _names_read(node: cst.CSTNode) -> List[cst.Name]:
    """The names ``node`` reads (not the attribute names after a dot)."""
    out: List[cst.Name] = []
    stack: List[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            out.append(n)
        elif isinstance(n, cst.Attribute):
            stack.append(n.value)
        else:
            stack.extend(iter_children(n))
    return out


def _raiser(ctx: FixContext) -> Tuple[str, Optional[Edit]]:
    """The module-level function the check calls: one the module has (made by an earlier fix), or a new one,
    inserted before the module's first function or class (the same edit for every check of the module)."""
    found = ctx.memo.get(("raiser",))
    if found is not None:
        return found  # type: ignore[return-value]
    nl = ctx.module.default_newline
    body = ctx.module.body
    for stmt in body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value.startswith(_RAISER):
            code = ctx.code(stmt.with_changes(leading_lines=[]))
            if code.replace("\r\n", "\n") == _RAISER_CODE.format(name=stmt.name.value):
                ctx.memo[("raiser",)] = out = (stmt.name.value, None)
                return out
    name = ctx.fresh_name(_RAISER, ctx.module, ctx.module_names())
    first = next((i for i, stmt in enumerate(body) if isinstance(stmt, (cst.FunctionDef, cst.ClassDef))), None)
    if first is None:
        raise _NoFix
    at = ctx.statement_offset(first)
    text = _RAISER_CODE.format(name=name).replace("\n", nl)
    if at > 0:
        text = nl + nl + text
    if len(getattr(body[first], "leading_lines", ())) < 2:
        text += nl * (2 - len(body[first].leading_lines))
    ctx.memo[("raiser",)] = out = (name, Edit(at, at, text))
    return out


# =================================================================== JIT201


@rewrites("JIT201")
def to_branch_rewrite(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT201: an ``if`` statement or conditional expression -> ``jnp.where`` / ``lax.cond``."""
    test = _test_around(node, ctx)
    parent = ctx.parent(test)
    try:
        if isinstance(parent, cst.If) and parent.test is test:
            return _if_statement(parent, ctx)
        if isinstance(parent, cst.IfExp) and parent.test is test:
            return _ternary(parent, ctx)
        if isinstance(parent, cst.CompIf) and parent.test is test:
            return _filtered_sum(parent, ctx)
        return _logical_value(node, ctx)
    except _NoFix:
        return None
    except _Advice as advice:
        return Fix(Applicability.DISPLAY_ONLY, str(advice), ())


@rewrites("JIT301")
def to_branch_on_array(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT301 ``if float(x) > limit:`` (a side of an order or equality test in an ``if`` statement or
    conditional expression) -> the ``jnp.where`` / ``lax.cond`` JIT201's builder makes of ``if x > limit:``
    (:meth:`_Builder._side`), where ``limit`` is not known to be something a float does not compare with."""
    if not isinstance(node, cst.Call):
        return None
    found = conversion(node, ctx)
    comparison = ctx.parent(node)
    if found is None or found[0] != "float" or not isinstance(comparison, cst.Comparison) \
            or _order_ops(comparison) is None:
        return None
    if any(_not_a_number(side, ctx) for side in _sides(comparison) if side is not node):
        return None
    test = _test_around(comparison, ctx)
    parent = ctx.parent(test)
    if not (isinstance(parent, (cst.If, cst.IfExp)) and parent.test is test):
        return None
    try:
        if isinstance(parent, cst.If):
            return _if_statement(parent, ctx)
        return _ternary(parent, ctx)
    except (_NoFix, _Advice):
        return None


def _not_a_number(side: cst.BaseExpression, ctx: FixContext) -> bool:
    """``side`` is known to be something Python does not order against a float (a string, a container,
    ``None``): the original raised ``TypeError`` there.  Anything it did compare with a float is a number
    or an array (a parameter of the function around, a closure value), and compares with ``x`` alike."""
    return operand_kind(side, ctx) is None and not_numeric(side, ctx)


def _sides(comparison: cst.Comparison) -> List[cst.BaseExpression]:
    return [comparison.left] + [t.comparator for t in comparison.comparisons]


def _test_around(node: cst.CSTNode, ctx: FixContext) -> cst.CSTNode:
    """The whole condition ``node`` is an operand of, through ``not`` / ``and`` / ``or``
    (``if not x > 0:`` is reported at ``x > 0``; the statement is what is rewritten)."""
    top = node
    while True:
        parent = ctx.parent(top)
        if isinstance(parent, cst.BooleanOperation) or (
                isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not)):
            top = parent
            continue
        return top


def _array_test(bld: "_Builder", test: cst.BaseExpression) -> None:
    """``lax.cond`` / ``jnp.where`` need a boolean array as the test: a comparison of traced
    values, a boolean jnp function, ``and`` / ``or`` / ``not`` of those.  The truth of anything
    else (``if params:`` on a dict-or-None, ``if n:`` on a number) is not proven to be one."""
    if not bld.bool_array(test):
        raise _Advice(_PREDICATE_ADVICE)


def _structure(bld: "_Builder", e: cst.BaseExpression):
    """What ``lax.cond`` compares of a branch output, as far as the code shows it: a tuple's
    length (and its items'), ``None``, a container, a string; "?" for an array or an unknown value."""
    if isinstance(e, cst.Tuple):
        if any(isinstance(el, cst.StarredElement) for el in e.elements):
            return "*"
        return ("tuple",) + tuple(_structure(bld, el.value) for el in e.elements)
    if isinstance(e, cst.Name) and e.value == "None":
        return "None"
    if isinstance(e, cst.Dict) and all(isinstance(el, cst.DictElement) and string_value(el.key) is not None
                                       for el in e.elements):
        # a dict display's keys are its pytree structure: branches giving other keys cannot be joined
        return ("dict",) + tuple(sorted(((string_value(el.key), _structure(bld, el.value)) for el in e.elements),
                                        key=lambda item: item[0]))
    if isinstance(e, cst.List) and not any(isinstance(el, cst.StarredElement) for el in e.elements):
        return ("list",) + tuple(_structure(bld, el.value) for el in e.elements)
    if isinstance(e, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return "container"
    if isinstance(e, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return "str"
    if bld.names_function(e):
        return "function"
    made = _returned_by_module_function(bld, e)
    if made is not None:
        return made
    if _traced_slice(bld, e):
        return "dynamic"
    if _empty_array(bld, e):
        return "empty"
    value = bld.ctx.facts.value(e)
    if value.items is not None:
        return ("tuple",) + ("?",) * len(value.items)
    if value.container:
        return "container"
    return "?"


def _returned_by_module_function(bld: "_Builder", e: cst.BaseExpression, depth: int = 0):
    """The structure a call of a module-level function of this module gives, where every ``return`` of it gives
    one display structure (``initial_state()`` returning ``{"pos": ..., "t": ...}``); None otherwise."""
    if depth > 2 or not (isinstance(e, cst.Call) and isinstance(e.func, cst.Name)):
        return None
    info = bld.ctx.index.globals.get(e.func.value)
    node = info.node if info is not None and info.kind == "function" and info.assignments == 1 else None
    if not isinstance(node, cst.FunctionDef) or node.decorators or bld.ctx.facts.read_scope.get(e.func) != "global":
        return None
    returned = returned_values(node.body)
    if not returned or any(r is None for r in returned):
        return None
    shapes = {_structure(bld, r) for r in returned}  # (in the function's own terms: its displays' structure)
    if len(shapes) != 1:
        return None
    shape = shapes.pop()
    return shape if isinstance(shape, tuple) else None


def _traced_slice(bld: "_Builder", e: cst.BaseExpression) -> bool:
    """``e`` slices with a traced bound (``data[:T - tau]``): its shape depends on a traced value, so
    no branch that gives it has a shape ``lax.cond`` or ``jnp.where`` could match (JIT402's hazard)."""
    value = bld.ctx.facts.value
    stack: List[cst.CSTNode] = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Subscript):
            for element in n.slice:
                if isinstance(element.slice, cst.Slice) and any(
                        part is not None and value(part).kind is Kind.TRACED
                        for part in (element.slice.lower, element.slice.upper, element.slice.step)):
                    return True
        if isinstance(n, (cst.Lambda, cst.FunctionDef)):
            continue
        stack.extend(iter_children(n))
    return False


def _empty_array(bld: "_Builder", e: cst.BaseExpression) -> bool:
    """``jnp.zeros(0)``, ``jnp.empty((0,))``, ``jnp.array([])``: an array of no element, whose shape a branch
    computing an array from the data (``A @ x - b``) matches only when that one is empty too."""
    if not isinstance(e, cst.Call) or not e.args or e.args[0].keyword is not None:
        return False
    q = bld.ctx.index.qualify(e.func) or ""
    first = e.args[0].value
    if q in ("jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty", "jax.numpy.full"):
        sizes = literal_elements(first) if isinstance(first, (cst.Tuple, cst.List)) else [first]
        return sizes is not None and any(int_value(size) == 0 for size in sizes)
    if q in ("jax.numpy.array", "jax.numpy.asarray"):
        return isinstance(first, (cst.List, cst.Tuple)) and not first.elements
    return False


def _same_structure(bld: "_Builder", outputs: Sequence[cst.BaseExpression]) -> None:
    """Every output has one structure (the same tuple length, no tuple against an array)."""
    shapes = {_structure(bld, e) for e in outputs}
    if "function" in shapes:
        raise _Advice(_FUNCTION_ADVICE)
    if "dynamic" in shapes:
        raise _Advice(_SHAPE_ADVICE)
    if "empty" in shapes and len(shapes) > 1:
        raise _Advice(_EMPTY_ADVICE)  # (an empty array against one the data sizes: equal only when that is empty)
    if len(shapes) > 1 or "*" in shapes:
        raise _Advice(_STRUCTURE_ADVICE)


def _returns(stmts: Sequence[cst.CSTNode]) -> List[cst.BaseExpression]:
    """The values of the ``return`` statements in ``stmts`` (not of nested functions)."""
    out: List[cst.BaseExpression] = []
    stack: List[cst.CSTNode] = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Return) and n.value is not None:
            out.append(n.value)
        if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        stack.extend(iter_children(n))
    return out


def _assigned_values(stmts: Sequence[cst.CSTNode], var: str) -> List[Optional[cst.BaseExpression]]:
    """The values ``var`` is given in ``stmts``: an expression for ``var = e``, None for any other
    binding (augmented, unpacked, in a loop...)."""
    return list(stored_values(stmts, lambda t: isinstance(t, cst.Name) and t.value == var))


def _carried_structures(bld: "_Builder", carry: Sequence[str], true_stmts, false_stmts) -> None:
    """Each carried variable has one structure on both paths: what it is assigned in either branch,
    and (where a branch may leave it) its value before the ``if``."""
    for var in carry:
        outputs: List[cst.BaseExpression] = []
        for part in (true_stmts, false_stmts or []):
            values = _assigned_values(part, var)
            if any(v is None for v in values):
                continue  # an augmented or unpacked assignment keeps no structure the code shows
            outputs.extend(v for v in values if v is not None)
            if var not in surely_assigned(part):
                outputs.append(cst.Name(var))
        _same_structure(bld, outputs)


def _filtered_sum(cond: cst.CompIf, ctx: FixContext) -> Optional[Fix]:
    """``sum(E for v in xs if C)`` (a generator or list comprehension, one ``for``, one ``if``), ``xs`` a
    traced array, ``E`` and ``C`` element-wise in ``v`` (arithmetic, comparisons and ``&`` / ``|`` / ``~``
    of ``v``, literals and static values) -> ``jnp.sum(jnp.where(C, E, 0), axis=0)`` with ``xs`` for ``v``;
    ``sum(1 for ...)`` -> ``jnp.sum(C, axis=0)``: the count of the elements that pass.  Iterating a traced
    array gives its rows and the ``if`` needs a scalar test, so code that ran had a 1-D ``xs``.  UNSAFE:
    an int (or float) array where the builtin gave a Python number; ``sum`` of no element gave ``0``."""
    comp = ctx.parent(ctx.parent(cond))
    if not isinstance(comp, (cst.GeneratorExp, cst.ListComp)) or len(comp.for_in.ifs) != 1 \
            or comp.for_in.ifs[0] is not cond \
            or comp.for_in.inner_for_in is not None or comp.for_in.asynchronous is not None \
            or not isinstance(comp.for_in.target, cst.Name):
        return None
    arg = ctx.parent(comp)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "sum"
            and ctx.facts.read_scope.get(call.func) == "builtin" and len(call.args) == 1
            and call.args[0].value is comp and call.args[0].keyword is None and not call.args[0].star):
        return None
    xs = comp.for_in.iter
    if not (isinstance(xs, cst.Name) and ctx.facts.value(xs).traced_array):
        return None
    var = comp.for_in.target.value
    # other traced values in the test were scalars where the code ran (`if` took their truth): they
    # broadcast over the whole array as over one element; the summed value may read them too
    scalars = {n.value for n in name_references(cond.test) if n.value != var
               and ctx.facts.value(n).kind is Kind.TRACED and not ctx.facts.value(n).container}
    if not (_elementwise(comp.elt, var, ctx, scalars) and _elementwise(cond.test, var, ctx, scalars)):
        return None
    whole = {var: cst.Name(xs.value)}  # (element-wise: the whole array for one element)
    test = substitute_names(cond.test, whole)
    counted = isinstance(comp.elt, cst.Integer) and comp.elt.value == "1"

    def build(jnp: str) -> cst.BaseExpression:
        new = ctx.expr(f"{jnp}.sum({{c}}, axis=0)", c=test) if counted else ctx.expr(
            f"{jnp}.sum({jnp}.where({{c}}, {{e}}, 0), axis=0)", c=test, e=substitute_names(comp.elt, whole))
        return new.with_changes(lpar=call.lpar, rpar=call.rpar)

    return _in_jax_numpy(ctx, call, build, "Use `{jnp}.sum` over the elements that pass, selected in the trace")


def _elementwise(expr: cst.BaseExpression, var: str, ctx: FixContext, scalars: Set[str]) -> bool:
    """``expr`` computes element by element from ``var``: arithmetic, comparisons, ``&`` / ``|`` / ``~``
    of ``var``, number literals, static names and the traced ``scalars``."""
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value == var or expr.value in scalars or ctx.facts.value(expr).kind is Kind.STATIC
    if isinstance(expr, cst.BinaryOperation):
        return _elementwise(expr.left, var, ctx, scalars) and _elementwise(expr.right, var, ctx, scalars)
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        return _elementwise(expr.expression, var, ctx, scalars)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "abs" \
            and ctx.facts.read_scope.get(expr.func) == "builtin" and len(expr.args) == 1 \
            and expr.args[0].keyword is None and not expr.args[0].star:
        return _elementwise(expr.args[0].value, var, ctx, scalars)  # (an array's abs is element-wise)
    if isinstance(expr, cst.Comparison):
        return _elementwise(expr.left, var, ctx, scalars) and len(expr.comparisons) == 1 and isinstance(
            expr.comparisons[0].operator, (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual,
                                           cst.Equal, cst.NotEqual)) \
            and _elementwise(expr.comparisons[0].comparator, var, ctx, scalars)
    return False


def _logical_value(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT201 outside a test: ``a and b`` / ``a or b`` / ``not a`` / ``a < x < b`` used as a value
    -> ``a & b`` / ``a | b`` / ``~a`` (or ``jnp.logical_not(a)``) / ``(a < x) & (x < b)``."""
    from jitlint.fixes.static_args import array_argument

    top = node
    parent = ctx.parent(top)
    if isinstance(parent, cst.BooleanOperation) and parent.left is node:
        top = parent
    elif not (isinstance(node, cst.Comparison) and len(node.comparisons) > 1) and not (
            isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not)):
        return None
    top = _test_around(top, ctx)
    parent = ctx.parent(top)
    if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert, cst.CompIf)) and \
            getattr(parent, "test", None) is top:
        return None  # the statement's own finding
    if isinstance(parent, cst.Arg) and not array_argument(parent, ctx):
        # (`nn.Dropout(rate, deterministic=not train)`: a callee that may test it as a Python bool, where an
        # array would raise as the tracer did)
        return None
    scope = ctx.enclosing_function(top)
    if scope is None or not ctx.purity.expression(top, scope):
        return None  # a split comparison evaluates its middle operand twice
    if comments_in(top):
        return None
    bld = _Builder(ctx)
    if not bld.bool_array(top) and not (isinstance(top, cst.UnaryOperation) and
                                        ctx.facts.value(top.expression).traced_array):
        return _select(bld, top)
    new = bld.predicate(top, value=True)
    return _later(bld, "Use `&` / `|` / `~` on boolean arrays", [top], lambda: {top: new})


def _select(bld: _Builder, top: cst.CSTNode) -> Optional[Fix]:
    """``a or b`` / ``a and b`` used as a value, ``a`` a traced number and ``b`` a number literal:
    Python gives one of the operands, chosen by the truth of ``a`` (``span = (hi - lo) or 1.0``) ->
    ``jnp.where(a, a, b)`` / ``jnp.where(a, b, a)``, which picks by the same truth (non-zero) and
    keeps ``a``'s shape.  ``b`` must be a literal: one of another shape would broadcast the result,
    and one with effects runs whatever ``a`` is.  The dtype may widen (an int ``a`` against a float
    ``b`` gives a float), which keeps the values: unsafe, as the fixes of JIT201 are."""
    if not isinstance(top, cst.BooleanOperation):
        return None
    a, b = top.left, top.right
    if isinstance(a, cst.BooleanOperation) or not bld.ctx.facts.value(a).traced_array:
        return None
    literal = b.expression if isinstance(b, cst.UnaryOperation) and isinstance(b.operator, cst.Minus) else b
    if not isinstance(literal, (cst.Integer, cst.Float)):
        return None
    jnp = bld.jnp
    if not isinstance(a, (cst.Tuple, cst.GeneratorExp)):
        a = a.with_changes(lpar=[], rpar=[])  # a call's argument needs no parentheses of its own
    first, second = (a, b) if isinstance(top.operator, cst.Or) else (b, a)
    return _later(bld, "Use `jnp.where` to pick the operand `or` / `and` would", [top], lambda: {
        # (a call binds tighter than any operator: the parentheses the `or` needed go)
        top: bld.expr(f"{jnp}.where({{c}}, {{t}}, {{f}})", c=a, t=first, f=second)})


def _later(bld: _Builder, title: str, olds: Sequence[cst.CSTNode],
           make: Callable[[], Dict[cst.CSTNode, Replacement]]) -> Optional[Fix]:
    """The unsafe fix that replaces ``olds`` by what ``make()`` gives, offered now and written when its
    edits are built (:meth:`FixContext.fix_later`).  Everything that decides the fix, or its title, is
    done by now: the names the new code spells (and the imports they need) included."""
    bld.sealed = True
    ctx = bld.ctx
    elifs = [old for old in olds if isinstance(old, cst.If) and isinstance(ctx.parent(old), cst.If)
             and ctx.parent(old).orelse is old]
    if elifs:
        inner = make

        def make() -> Dict[cst.CSTNode, Replacement]:
            # an `elif` rewritten: its statements become the `else:` block of the `if` above it
            changes = inner()
            for old in elifs:
                new = changes[old]
                stmts = list(new.nodes) if isinstance(new, cst.FlattenSentinel) else [new]
                changes[old] = cst.Else(body=cst.IndentedBlock(body=stmts))
            return changes
    return ctx.fix_later(Applicability.UNSAFE, title, olds, make, bld.imports)


_WHERE_TITLE = "Use `jnp.where` (evaluates both branches)"
_COND_TITLE = "Use `lax.cond` (traces both branches)"


def _recurses(nodes: Sequence[cst.CSTNode], fn_node: Optional[cst.CSTNode]) -> bool:
    """``nodes`` call the function they are in (``f(...)``, or ``self.f(...)`` in a method): under
    ``lax.cond`` / ``jnp.where`` both branches are traced, so a recursion that the test was ending
    recurses until Python's limit (RecursionError at trace time)."""
    if not isinstance(fn_node, cst.FunctionDef):
        return False
    name = fn_node.name.value
    stack: List[cst.CSTNode] = list(nodes)
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Call):
            func = n.func
            if (isinstance(func, cst.Name) and func.value == name) or (
                    isinstance(func, cst.Attribute) and func.attr.value == name and isinstance(func.value, cst.Name)
                    and func.value.value in ("self", "cls")):
                return True
        stack.extend(iter_children(n))
    return False


def _ternary(node: cst.IfExp, ctx: FixContext) -> Optional[Fix]:
    scope = ctx.enclosing_function(node)
    a, b = node.body, node.orelse
    if _recurses([a, b], ctx.enclosing_def(node)):
        return None
    if not all(ctx.purity.expression(e, scope) for e in (node.test, a, b)):
        return None
    if any(isinstance(e, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)) or
           (isinstance(e, cst.Name) and e.value == "None") for e in (a, b)):
        return None
    if comments_in(node):
        return None
    bld = _Builder(ctx)
    _array_test(bld, node.test)
    pred = bld.predicate(node.test)
    ka, kb = bld.classify(a), bld.classify(b)
    if ka == CHEAP and kb == CHEAP:
        jnp = bld.jnp
        return _later(bld, _WHERE_TITLE, [node], lambda: {
            node: bld.expr(f"{jnp}.where({{c}}, {{a}}, {{b}})", c=pred, a=a, b=b)})
    _same_structure(bld, [a, b])
    a2, b2 = bld.matched(a, b)
    lax = bld.lax
    return _later(bld, _COND_TITLE, [node], lambda: {node: bld.expr(
        f"{lax}.cond({{c}}, {{t}}, {{f}})", c=pred, t=bld.lambda_((), a2), f=bld.lambda_((), b2))})


def _if_statement(stmt: cst.If, ctx: FixContext) -> Optional[Fix]:
    fn_node = ctx.enclosing_def(stmt)
    located = ctx.block_of(stmt)
    holder = ctx.parent(stmt)
    an_elif = located is None and isinstance(holder, cst.If) and holder.orelse is stmt
    if fn_node is None or (located is None and not an_elif):
        return None
    true_stmts = block_statements(stmt.body)
    false_stmts: Optional[List[cst.CSTNode]] = None
    if isinstance(stmt.orelse, cst.Else):
        false_stmts = block_statements(stmt.orelse.body)
    elif isinstance(stmt.orelse, cst.If):
        false_stmts = [stmt.orelse]  # `elif` becomes an `if` inside the false branch
    if _contains([stmt.test] + true_stmts + (false_stmts or []), (cst.Yield, cst.Await)):
        return None
    if an_elif:
        # (an `elif` after a static test: rewritten in place, it becomes the `else:` block of that `if`;
        # one whose branches return would also need the statements after the whole `if`)
        branches = true_stmts + (false_stmts or [])
        if _contains(branches, cst.Return) or _recurses(branches, fn_node):
            return None
        _array_test(_Builder(ctx), stmt.test)
        return _assign_form(stmt, ctx, fn_node, true_stmts, false_stmts)
    block, k = located
    after = list(block.body[k + 1:]) if false_stmts is None else []  # (what a `return` branch skips)
    if _recurses(true_stmts + (false_stmts or []) + after, fn_node):
        return None  # both branches are traced: the recursion the test ends would never end
    _array_test(_Builder(ctx), stmt.test)
    if _contains(true_stmts + (false_stmts or []), cst.Return):
        chain = _return_chain(stmt, ctx, fn_node, located)
        if chain is not None:
            return chain
        return _return_form(stmt, ctx, fn_node, located, true_stmts, false_stmts)
    chain = _assign_chain(stmt, ctx, fn_node)
    if chain is not None:
        return chain
    return _assign_form(stmt, ctx, fn_node, true_stmts, false_stmts)


def _single_assignment(stmts: Sequence[cst.CSTNode]) -> Optional[Tuple[str, cst.BaseExpression]]:
    """``name = value`` as the one statement of a branch: the name and the value; None otherwise."""
    if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine) or len(stmts[0].body) != 1:
        return None
    small = stmts[0].body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1 \
            or not isinstance(small.targets[0].target, cst.Name):
        return None
    return small.targets[0].target.value, small.value


def _assign_chain(stmt: cst.If, ctx: FixContext, fn_node: cst.FunctionDef) -> Optional[Fix]:
    """``if a: g = x`` / ``elif b: g = y`` ... / ``else: g = z``, every branch one assignment of a cheap
    element-wise value to the same name, every test a boolean array -> ``g = jnp.where(a, x, jnp.where(b,
    y, z))``: the first test that holds picks its value, as the chain does (the tests are pure, so
    evaluating them all changes nothing).  None for a chain of one ``if`` (:func:`_assign_form`)."""
    tests: List[cst.BaseExpression] = []
    values: List[cst.BaseExpression] = []
    node = stmt
    target = None
    while True:
        found = _single_assignment(block_statements(node.body))
        if found is None or (target is not None and found[0] != target):
            return None
        target = found[0]
        tests.append(node.test)
        values.append(found[1])
        if not isinstance(node.orelse, cst.If):
            break
        node = node.orelse
    last = _single_assignment(block_statements(node.orelse.body)) if isinstance(node.orelse, cst.Else) else None
    if last is None or last[0] != target or len(tests) < 2:
        return None
    scope = ctx.index.infos.get(fn_node)
    if not all(ctx.purity.expression(t, scope) for t in tests):
        return None
    if any(target in {n.value for n in name_references(t)} for t in tests[1:]):
        return None  # (a later test reads the name a branch before it binds)
    built = _where_chain(ctx, tests, values, last[1])
    if built is None:
        return None
    bld, nested = built

    def make() -> Dict[cst.CSTNode, Replacement]:
        new = keep_comments([stmt], with_leading_lines([bld.statement(f"{target} = {{v}}", v=nested())], stmt))
        return {stmt: cst.FlattenSentinel(new)}

    return _later(bld, _WHERE_TITLE, [stmt], make)


def _return_form(stmt: cst.If, ctx: FixContext, fn_node: cst.FunctionDef, located, true_stmts,
                 false_stmts) -> Optional[Fix]:
    block, k = located
    if not _ends_in_return(true_stmts):
        return None  # returns on one path only
    rest: List[cst.CSTNode] = []
    if false_stmts is not None:
        if not _ends_in_return(false_stmts):
            return None
        false_part = list(false_stmts)
    else:
        if block is not fn_node.body:
            return None  # falling off a nested block goes on after it
        rest = list(block.body[k + 1:])
        if not _ends_in_return(rest):
            return None
        false_part = rest
    scope = ctx.index.infos.get(fn_node)
    if not ctx.purity.expression(stmt.test, scope):
        return None
    for part in (true_stmts, false_part):
        if not ctx.purity.statements(part, scope, staged_effects=True, allow_return=True):
            return None
    assigned = assigned_in(true_stmts) | assigned_in(false_part)
    if _uses_global_state(ctx, fn_node, assigned):
        return None
    exposed = (live_in(true_stmts, set()) & assigned_in(true_stmts)) | (
        live_in(false_part, set()) & assigned_in(false_part))
    defined = Definitions(fn_node, [stmt]).defined_before(stmt)
    if exposed - defined:
        return None
    ops = _ordered(exposed, [stmt])
    bld = _Builder(ctx)
    _same_structure(bld, _returns(true_stmts) + _returns(false_part))
    parts = ((true_stmts, "true_fn"), (false_part, "false_fn"))
    a, b = _single_return(true_stmts), _single_return(false_part)
    values = a is not None and b is not None and not ops  # `return a` / `return b`: no local functions
    where = values and bld.classify(a) == CHEAP and bld.classify(b) == CHEAP
    try:
        pred = bld.predicate(stmt.test)
        jnp = bld.jnp if where else ""
        a2, b2 = bld.matched(a, b) if values and not where else (a, b)
        names = {} if values else {base: ctx.fresh_name(base, fn_node) for part, base in parts
                                   if _single_return(part) is None}
        lax = "" if where else bld.lax
    except _NoFix:
        return None

    def make() -> Dict[cst.CSTNode, Replacement]:
        new: List[cst.BaseStatement] = []
        trailing: Optional[str] = None
        if values:
            if where:
                value = bld.expr(f"{jnp}.where({{c}}, {{a}}, {{b}})", c=pred, a=a, b=b)
            else:
                value = bld.expr(f"{lax}.cond({{c}}, {{t}}, {{f}})", c=pred, t=bld.lambda_((), a2),
                                 f=bld.lambda_((), b2))
            value, trailing = _with_comments(ctx, value, stmt, true_stmts, false_part, "return ")
        else:
            branches = []
            for part, base in parts:
                single = _single_return(part)
                if single is not None:
                    branches.append(bld.lambda_(ops, single))
                    continue
                new.append(bld.function(names[base], ops, part, header=_header(stmt, part is true_stmts)))
                branches.append(cst.Name(names[base]))
            operands = "".join(", " + o for o in ops)
            value = bld.expr(f"{lax}.cond({{c}}, {{t}}, {{f}}{operands})", c=pred, t=branches[0], f=branches[1])
        new.append(_trailing(bld.statement("return {v}", v=value), trailing))
        new = keep_comments([stmt] + rest, with_leading_lines(new, stmt))
        changes: Dict[cst.CSTNode, Replacement] = {stmt: cst.FlattenSentinel(new)}
        for r in rest:
            changes[r] = cst.RemovalSentinel.REMOVE
        return changes

    return _later(bld, _WHERE_TITLE if where else _COND_TITLE, [stmt] + rest, make)


def _return_chain(stmt: cst.If, ctx: FixContext, fn_node: cst.FunctionDef, located) -> Optional[Fix]:
    """``if a: return x`` / ``elif b: return y`` ... / ``return z`` (or ``else: return z``), every branch one
    ``return`` of a cheap element-wise value, every test a boolean array -> ``return jnp.where(a, x,
    jnp.where(b, y, z))``: the first test that holds picks its value, as the chain does (the tests are pure,
    so evaluating them all changes nothing).  None for a chain of one ``if`` (:func:`_return_form`)."""
    block, k = located
    tests: List[cst.BaseExpression] = []
    values: List[cst.BaseExpression] = []
    node = stmt
    while True:
        value = _single_return(block_statements(node.body))
        if value is None:
            return None
        tests.append(node.test)
        values.append(value)
        if not isinstance(node.orelse, cst.If):
            break
        node = node.orelse
    rest: List[cst.CSTNode] = []
    if isinstance(node.orelse, cst.Else):
        last = _single_return(block_statements(node.orelse.body))
    elif block is fn_node.body:
        rest = list(block.body[k + 1:])
        last = _single_return(rest)
    else:
        return None
    if last is None or len(tests) < 2:
        return None
    scope = ctx.index.infos.get(fn_node)
    if not all(ctx.purity.expression(t, scope) for t in tests):
        return None
    built = _where_chain(ctx, tests, values, last)
    if built is None:
        return None
    bld, nested = built

    def make() -> Dict[cst.CSTNode, Replacement]:
        new = keep_comments([stmt] + rest, with_leading_lines([bld.statement("return {v}", v=nested())], stmt))
        changes: Dict[cst.CSTNode, Replacement] = {stmt: cst.FlattenSentinel(new)}
        for r in rest:
            changes[r] = cst.RemovalSentinel.REMOVE
        return changes

    return _later(bld, _WHERE_TITLE, [stmt] + rest, make)


def _where_chain(ctx: FixContext, tests: List[cst.BaseExpression], values: List[cst.BaseExpression],
                 last: cst.BaseExpression):
    """For a chain of tests (each a boolean array) and the cheap value each picks, ``last`` for none:
    the builder and a maker of ``jnp.where(t1, v1, jnp.where(t2, v2, last))``; None when a value is not
    cheap, the values' structures differ or a test cannot be a predicate."""
    bld = _Builder(ctx)
    for t in tests:
        _array_test(bld, t)
    if any(bld.classify(v) != CHEAP for v in values + [last]):
        return None
    _same_structure(bld, values + [last])
    try:
        preds = [bld.predicate(t) for t in tests]
        jnp = bld.jnp
    except _NoFix:
        return None

    def nested() -> cst.BaseExpression:
        value = last
        for pred, picked in reversed(list(zip(preds, values))):
            value = bld.expr(f"{jnp}.where({{c}}, {{a}}, {{b}})", c=pred, a=picked, b=value)
        return value

    return bld, nested


def _header(stmt: cst.If, true_part: bool) -> Optional[cst.TrailingWhitespace]:
    """The end of the ``if`` line (true branch) or of the ``else:`` line: a local function's ``def``
    line takes it, with its comment."""
    block = stmt.body if true_part else stmt.orelse.body if isinstance(stmt.orelse, cst.Else) else None
    return block.header if isinstance(block, cst.IndentedBlock) else None


def _with_comments(ctx: FixContext, value: cst.BaseExpression, stmt: cst.If, true_stmts: Sequence[cst.CSTNode],
                   false_stmts: Sequence[cst.CSTNode], prefix: str) -> Tuple[cst.BaseExpression, Optional[str]]:
    """``value`` (``jnp.where(c, a, b)`` / ``lax.cond(c, t, f, ...)``) with the comments of the ``if``
    each on the line of the argument its code became: the test's (and the ``if`` line's), the true
    branch's, the false branch's (and the ``else:`` line's).  A lone comment of the ``if`` line ends
    the new statement's line instead (returned), when ``prefix`` (``return ``, ``y = ``), the value
    and the comment fit on it."""
    test = comments_in(stmt.test) + comments_in(stmt.body.header if isinstance(stmt.body, cst.IndentedBlock) else
                                                cst.TrailingWhitespace())
    true = [c for node in true_stmts for c in comments_in(node)]
    false: List[str] = []
    if isinstance(stmt.orelse, cst.Else):
        false = [line.comment.value for line in stmt.orelse.leading_lines if line.comment is not None]
        false += comments_in(_header(stmt, False) or cst.TrailingWhitespace())
    false += [c for node in false_stmts for c in comments_in(node)]
    if len(test) == 1 and not true and not false:
        line = _indentation(ctx, stmt) + prefix + ctx.code(value) + "  " + test[0]
        if len(line) <= ctx.line_length:
            return value, test[0]
    if not isinstance(value, cst.Call) or not (test or true or false):
        return value, None
    return with_comments(ctx, value, [test, true, false]), None


def _indentation(ctx: FixContext, stmt: cst.CSTNode) -> str:
    """The indentation of the line ``stmt`` starts on."""
    return "".join(block.indent if block.indent is not None else ctx.module.default_indent
                   for block in ctx.ancestors(stmt) if isinstance(block, cst.IndentedBlock))


def _trailing(line: cst.BaseStatement, comment: Optional[str]) -> cst.BaseStatement:
    """``line`` ending in ``comment``, if any."""
    if comment is None or not isinstance(line, cst.SimpleStatementLine):
        return line
    return line.with_changes(trailing_whitespace=cst.TrailingWhitespace(
        whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(comment)))


def _branch_value(stmts: Optional[Sequence[cst.CSTNode]], var: str, bld: _Builder) -> Optional[cst.BaseExpression]:
    """The value ``var`` gets in a branch that is a single assignment to it (or nothing)."""
    if stmts is None or len(stmts) == 0:
        return cst.Name(var)
    if len(stmts) != 1:
        return None
    s = stmts[0]
    if isinstance(s, cst.SimpleStatementLine):
        if len(s.body) != 1:
            return None
        s = s.body[0]
    if isinstance(s, cst.Assign) and len(s.targets) == 1:
        t = s.targets[0].target
        if isinstance(t, cst.Name) and t.value == var:
            return s.value
    if isinstance(s, cst.AugAssign) and isinstance(s.target, cst.Name) and s.target.value == var:
        op = s.operator
        binary = {cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
                  cst.DivideAssign: cst.Divide, cst.PowerAssign: cst.Power, cst.FloorDivideAssign: cst.FloorDivide,
                  cst.ModuloAssign: cst.Modulo}.get(type(op))
        if binary is None:
            return None
        right = s.value
        if isinstance(right, (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp, cst.Lambda)) \
                and not right.lpar:
            right = right.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.BinaryOperation(left=cst.Name(var), operator=binary(), right=right)
    return None


def _assign_form(stmt: cst.If, ctx: FixContext, fn_node: cst.FunctionDef, true_stmts,
                 false_stmts) -> Optional[Fix]:
    scope = ctx.index.infos.get(fn_node)
    if not ctx.purity.expression(stmt.test, scope):
        return None
    parts = [true_stmts] + ([false_stmts] if false_stmts is not None else [])
    for part in parts:
        if not ctx.purity.statements(part, scope, staged_effects=True):
            return None
    assigned_t = assigned_in(true_stmts)
    assigned_f = assigned_in(false_stmts or [])
    order = _ordered(assigned_t | assigned_f, [stmt])
    if _uses_global_state(ctx, fn_node, order):
        return None
    live = Liveness(fn_node, [stmt]).live_after(stmt)
    carry = [v for v in order if v in live]
    if not carry:
        return _effect_form(stmt, ctx, fn_node, true_stmts, false_stmts)
    defined = Definitions(fn_node, [stmt]).defined_before(stmt)
    sure_t = surely_assigned(true_stmts)
    sure_f = surely_assigned(false_stmts or [])
    for v in carry:
        if v not in defined and not (v in sure_t and v in sure_f):
            return None  # used afterwards, undefined on some path
    exposed = (live_in(true_stmts, set()) & assigned_t) | (live_in(false_stmts or [], set()) & assigned_f)
    keep_old = {v for v in carry if not (v in sure_t and v in sure_f)}
    needed = exposed | keep_old
    if needed - defined:
        return None
    ops = [v for v in order if v in needed]
    bld = _Builder(ctx)
    _carried_structures(bld, carry, true_stmts, false_stmts)
    parts = ((true_stmts, "true_fn"), (false_stmts, "false_fn"))
    single = None  # the values of the one variable carried, where each branch is one assignment to it
    if len(carry) == 1:
        a = _branch_value(true_stmts, carry[0], bld)
        b = _branch_value(false_stmts, carry[0], bld)
        if a is not None and b is not None:
            single = (a, b)
    where = single is not None and bld.classify(single[0]) == CHEAP and bld.classify(single[1]) == CHEAP
    try:
        pred = bld.predicate(stmt.test)
        jnp = bld.jnp if where else ""
        a2, b2 = bld.matched(*single) if single is not None and not where else (None, None)
        names = {} if single is not None else {base: ctx.fresh_name(base, fn_node) for part, base in parts if part}
        lax = "" if where else bld.lax
    except _NoFix:
        return None
    operands = "".join(", " + o for o in ops)

    def make() -> Dict[cst.CSTNode, Replacement]:
        new: List[cst.BaseStatement] = []
        trailing: Optional[str] = None
        if single is not None:
            if where:
                value = bld.expr(f"{jnp}.where({{c}}, {{a}}, {{b}})", c=pred, a=single[0], b=single[1])
            else:
                value = bld.expr(f"{lax}.cond({{c}}, {{t}}, {{f}}{operands})", c=pred, t=bld.lambda_(ops, a2),
                                 f=bld.lambda_(ops, b2))
            value, trailing = _with_comments(ctx, value, stmt, true_stmts, false_stmts or [],
                                              f"{_target(carry)} = ")
        else:
            result = _tuple(ctx, carry)
            ret = _return(ctx, carry)
            branches: List[cst.BaseExpression] = []
            for part, base in parts:
                if not part:
                    branches.append(bld.lambda_(ops, result))
                    continue
                new.append(bld.function(names[base], ops, list(as_lines(part)) + [ret],
                                        header=_header(stmt, part is true_stmts)))
                branches.append(cst.Name(names[base]))
            value = bld.expr(f"{lax}.cond({{c}}, {{t}}, {{f}}{operands})", c=pred, t=branches[0], f=branches[1])
        new.append(_trailing(bld.statement(f"{_target(carry)} = {{v}}", v=value), trailing))
        return {stmt: cst.FlattenSentinel(keep_comments([stmt], with_leading_lines(new, stmt)))}

    return _later(bld, _WHERE_TITLE if where else _COND_TITLE, [stmt], make)


def _debug_effect(ctx: FixContext, stmts: Sequence[cst.CSTNode]) -> bool:
    """``stmts`` call ``jax.debug.print`` / ``jax.debug.callback`` (as statements)."""
    for s in stmts:
        smalls = s.body if isinstance(s, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else [s]
        for small in smalls:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                q = ctx.index.qualify(small.value.func)
                if q in ("jax.debug.print", "jax.debug.callback"):
                    return True
    return False


def _effect_form(stmt: cst.If, ctx: FixContext, fn_node: cst.FunctionDef, true_stmts,
                 false_stmts) -> Optional[Fix]:
    """An ``if`` that only prints (``if step % n == 0: jax.debug.print(...)``), nothing it assigns
    used afterwards -> ``lax.cond(test, lambda: jax.debug.print(...), lambda: None)``: the print
    is staged in the branch taken.  Both branches give ``None`` (``jax.debug.print`` and
    ``jax.debug.callback`` return it), so their structures agree."""
    parts = [true_stmts] + ([false_stmts] if false_stmts else [])
    if not any(_debug_effect(ctx, part) for part in parts):
        return None
    if any(_returns(part) for part in parts) or _contains(true_stmts + (false_stmts or []), cst.Return):
        return None
    bld = _Builder(ctx)
    parts = ((true_stmts, "true_fn"), (false_stmts, "false_fn"))
    try:
        pred = bld.predicate(stmt.test)
        names = {base: ctx.fresh_name(base, fn_node) for part, base in parts
                 if part and _single_call(part) is None}
        lax = bld.lax
    except _NoFix:
        return None

    def make() -> Dict[cst.CSTNode, Replacement]:
        new: List[cst.BaseStatement] = []
        branches: List[cst.BaseExpression] = []
        for part, base in parts:
            single = _single_call(part)
            if not part:
                branches.append(bld.lambda_((), cst.Name("None")))
            elif single is not None:
                branches.append(bld.lambda_((), single))
            else:
                new.append(bld.function(names[base], (), part, header=_header(stmt, part is true_stmts)))
                branches.append(cst.Name(names[base]))
        value = bld.expr(f"{lax}.cond({{c}}, {{t}}, {{f}})", c=pred, t=branches[0], f=branches[1])
        value, trailing = _with_comments(ctx, value, stmt, true_stmts, false_stmts or [], "")
        new.append(_trailing(cst.SimpleStatementLine(body=[cst.Expr(value)]), trailing))
        return {stmt: cst.FlattenSentinel(keep_comments([stmt], with_leading_lines(new, stmt)))}

    return _later(bld, "Use `lax.cond` to print in the branch taken", [stmt], make)


def _single_call(stmts: Optional[Sequence[cst.CSTNode]]) -> Optional[cst.BaseExpression]:
    """The call of a block that is one expression statement."""
    if not stmts or len(stmts) != 1:
        return None
    s = stmts[0]
    if isinstance(s, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and len(s.body) == 1:
        s = s.body[0]
    if isinstance(s, cst.Expr) and isinstance(s.value, cst.Call):
        return s.value
    return None


# ============================================================== JIT202/203


def _loop_checks(loop: cst.CSTNode, ctx: FixContext) -> Optional[Tuple[cst.FunctionDef, List[cst.CSTNode]]]:
    fn_node = ctx.enclosing_def(loop)
    if fn_node is None or getattr(loop, "orelse", None) is not None:
        return None
    body = block_statements(loop.body)  # type: ignore[attr-defined]
    scope = ctx.index.infos.get(fn_node)
    if _contains(body, (cst.Yield, cst.Await)):
        return None
    if not ctx.purity.statements(body, scope, staged_effects=True):
        return None  # break / continue / return, appends, side effects
    return fn_node, body


def _carry(loop: cst.CSTNode, fn_node: cst.FunctionDef, body, exclude=()) -> Optional[List[str]]:
    liveness = Liveness(fn_node, [loop])
    head = liveness.head(loop)
    assigned = assigned_in(body) - set(exclude)
    carry = [v for v in _ordered(assigned, body) if v in head]
    if not carry:
        return None
    defined = Definitions(fn_node, [loop]).defined_before(loop)
    if set(carry) - defined:
        return None
    return carry


def _static_carry_escapes(loop: cst.CSTNode, carry: List[str], ctx: FixContext) -> bool:
    """A carried variable that is a Python value in the loop as written (``n = 4``, ``n *= 2``) and
    reaches a place where it may have to stay one: a static slot (a shape, a ``range`` bound, a slice), or
    an argument of a call that is a Python value too (``simpson(f, a, b, 2 * n)``, where ``n`` sizes a
    ``jnp.linspace``).  The loop's carry is traced: there it would fail (ConcretizationTypeError)."""
    from jitlint.fixes.static_args import arithmetic_top, static_slot

    names = set(carry)
    stack: List[cst.CSTNode] = [loop]
    # after the loop the carry holds what the loop gave back, traced: a size made of it there fails as well
    # (`while left > 0: trips += 1`, then `jnp.arange(trips)`: a value-dependent length, no loop can give it)
    stack += _statements_after(loop, ctx)
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value in names and ctx.facts.value(n).kind is Kind.STATIC \
                and not isinstance(ctx.parent(n), (cst.AssignTarget, cst.AugAssign)):
            if static_slot(n, ctx) not in (None, "test"):
                return True  # (a test is rewritten with the loop, or by the branch fix after it)
            child = arithmetic_top(n, ctx)
            parent = ctx.parent(child)
            if isinstance(parent, cst.Arg) and ctx.facts.value(child).kind is Kind.STATIC:
                call = ctx.parent(parent)
                if isinstance(call, cst.Call) and not (ctx.index.qualify(call.func) or "").startswith(
                        ("jax.numpy.", "jax.lax.", "math.", "jax.debug.")) and not _printing(call, ctx) \
                        and not _collected_for_an_array(call, loop, ctx):
                    return True
        stack.extend(iter_children(n))
    return False


def _collected_for_an_array(call: cst.Call, loop: cst.CSTNode, ctx: FixContext) -> bool:
    """``idx.append(j)`` into a list the function binds once, to ``[]``, and reads otherwise only as an argument
    of ``jax.numpy`` functions (``jnp.stack(idx)``): an array is made of what it collects, a tracer as well as
    a number."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value in ("append", "insert")
            and isinstance(func.value, cst.Name)):
        return False
    scope = ctx.enclosing_function(loop)
    if scope is None or not isinstance(scope.node, cst.FunctionDef):
        return False
    name = func.value.value
    value = scope.scope.single_value(name)
    if not (isinstance(value, cst.List) and not value.elements):
        return False
    for ref in name_references(scope.node.body, name):
        holder = ctx.parent(ref)
        if holder is func or isinstance(holder, cst.AssignTarget):
            continue
        outer = ctx.parent(holder) if isinstance(holder, cst.Arg) else None
        if not (isinstance(outer, cst.Call) and (ctx.index.qualify(outer.func) or "").startswith("jax.numpy.")):
            return False
    return True


def _printing(call: cst.Call, ctx: FixContext) -> bool:
    """The builtin ``print``, or a logging call JIT104's fix moves into a callback (``log.info("after %s
    sweeps", n)``): it shows a traced value as well (JIT103 / JIT104 report it, and their fixes,
    ``jax.debug.print`` / ``jax.debug.callback``, pass the value as an array)."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value == "print" and ctx.facts.read_scope.get(func) == "builtin"
    return is_logging_call(call, ctx)


def _statements_after(stmt: cst.CSTNode, ctx: FixContext) -> List[cst.CSTNode]:
    """The statements that run after ``stmt`` in its function: those after it in its block, and after each
    statement around it, up to the function."""
    out: List[cst.CSTNode] = []
    current: Optional[cst.CSTNode] = stmt
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda, cst.Module)):
        found = ctx.block_of(current)
        if found is not None:
            block, index = found
            out.extend(getattr(block, "body", ())[index + 1:])
        current = ctx.parent(current)
    return out


def _unpack(bld: _Builder, carry: List[str], param: str) -> List[cst.BaseStatement]:
    if len(carry) == 1:
        return []
    return [bld.statement(f"{_target(carry)} = {param}")]


def _loop_param(ctx: FixContext, carry: List[str], fn_node, body) -> str:
    if len(carry) == 1:
        return carry[0]
    return ctx.fresh_name("carry", fn_node, taken=carry)


#: the builtins of JIT204 that have an element-wise ``jax.numpy`` twin of two arguments
_ELEMENTWISE_TWINS = {"max": "maximum", "min": "minimum"}


@rewrites("JIT204")
def to_elementwise_twin(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT204: ``max(a, b)`` / ``min(a, b, c)`` of traced values -> ``jnp.maximum(a, b)`` /
    ``jnp.minimum(jnp.minimum(a, b), c)``.  Only positional arguments (no ``key=``, ``default=``, no
    ``*``), two or more.  UNSAFE: the builtin returned one of its arguments as it was (a Python number
    where that was the larger), the rewrite an array; it compared scalars only (on arrays of several
    elements it raised), where ``jnp.maximum`` broadcasts."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Name) \
            or ctx.facts.read_scope.get(node.func) != "builtin":
        return None
    if node.func.value == "sorted":
        return _sorted_array(node, ctx) if len(node.args) == 1 else _argsort(node, ctx)
    if len(node.args) == 1:
        return _array_reduction(node, ctx) or _items_reduction(node, ctx) or _elementwise_reduction(node, ctx)
    if node.func.value in ("min", "max") and any(a.keyword is not None and a.keyword.value == "key"
                                                 for a in node.args):
        return _arg_best(node, ctx)
    if node.func.value not in _ELEMENTWISE_TWINS or len(node.args) < 2 \
            or any(a.keyword is not None or a.star for a in node.args) or _feeds_static_use(node, ctx):
        return None
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    jnp, imports = spelled
    twin = f"{jnp}.{_ELEMENTWISE_TWINS[node.func.value]}"
    values = [_bare(a.value) for a in node.args]
    new: cst.BaseExpression = values[0]
    for value in values[1:]:
        new = ctx.expr(f"{twin}({{a}}, {{b}})", a=new, b=value)
    edit = ctx.replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Use `{twin}`, which compares element-wise in the trace", (edit,) + imports)


def _feeds_static_use(expr: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> bool:
    """What ``expr`` gives reaches a place that needs a Python value -- a test, a shape, a slice or ``range``
    bound, an axis -- in place or through arithmetic and locals bound once from it (``chunk = min(chunk, n)``,
    then ``rem = n % chunk`` and ``if rem:``): a rewrite that makes it an array breaks there wherever the value
    was in fact a Python number (the finding a false alarm), and fixes nothing where it was traced."""
    from jitlint.fixes.static_args import static_slot

    if static_slot(expr, ctx) is not None:  # type: ignore[arg-type]
        return True
    top, parent = expr, ctx.parent(expr)
    while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) \
            or (isinstance(parent, cst.IfExp) and parent.test is not top):  # (a branch's value is the whole's)
        top, parent = parent, ctx.parent(parent)
    assign = parent
    if depth >= 3 or not (isinstance(assign, cst.Assign) and assign.value is top and len(assign.targets) == 1
                          and isinstance(assign.targets[0].target, cst.Name)):
        return False
    fn = ctx.enclosing_def(assign)
    target = assign.targets[0].target
    return fn is not None and any(ref is not target and _feeds_static_use(ref, ctx, depth + 1)
                                  for ref in name_references(fn.body, target.value))


#: builtins that iterate one array and reduce it -> the jax.numpy reduction that traces
_ARRAY_REDUCTIONS = {"all": "all", "any": "any", "max": "max", "min": "min"}


def _array_reduction(node: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """``all(jnp.abs(err) < tol)`` -- a builtin reduction of one traced array (not a generator, a
    comprehension or a display: those iterate Python values) -> ``jnp.all(...)``.  The builtin iterates
    the first axis and converts each item to a Python bool or compares them, which works only where
    each item has one element (a 1-D array): there ``jnp.all`` / ``jnp.max`` give the same value.
    UNSAFE: the result is a 0-d array instead of a Python bool or an item."""
    arg = node.args[0]
    twin = _ARRAY_REDUCTIONS.get(node.func.value) if isinstance(node.func, cst.Name) else None
    if twin is None or arg.keyword is not None or arg.star or not ctx.facts.value(arg.value).traced_array \
            or isinstance(arg.value, (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.List, cst.Tuple, cst.Set)):
        return None
    return _in_jax_numpy(ctx, node.func, lambda jnp: cst.parse_expression(f"{jnp}.{twin}"),
                         f"Use `{{jnp}}.{twin}`, which reduces the array in the trace", wrap=False)


def _in_jax_numpy(ctx: FixContext, old: cst.CSTNode, build: Callable[[str], cst.CSTNode], title: str,
                  wrap: bool = True) -> Optional[Fix]:
    """The UNSAFE fix replacing ``old`` by ``build(jnp)`` (``jnp``: how this module spells ``jax.numpy``,
    imported if needed); ``title`` may name it as ``{jnp}``."""
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    jnp, imports = spelled
    edit = ctx.replace(old, build(jnp), wrap=wrap)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, title.format(jnp=jnp), (edit,) + imports)


def _sorted_array(node: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """``sorted(scores)``, ``scores`` a traced array (a name) -> ``jnp.sort(scores)``.  The builtin iterates the
    first axis and compares items, which works only on items of one element: code that ran sorted a 1-D
    array, which ``jnp.sort`` sorts alike (ascending, stable).  Where ``scores`` is traced but may be a
    sequence of traced scalars rather than an array (a helper's parameter, a row of a pytree argument),
    ``jnp.sort(jnp.asarray(scores))``: ``asarray`` stacks such a sequence and leaves an array as it is.
    UNSAFE: an array where the builtin gave a list of 0-d arrays (list methods, ``+`` with a list, no
    longer apply)."""
    arg = node.args[0]
    if arg.keyword is not None or arg.star or not isinstance(arg.value, cst.Name):
        return None
    value = ctx.facts.value(arg.value)
    if value.traced_array:
        return _in_jax_numpy(ctx, node.func, lambda jnp: cst.parse_expression(f"{jnp}.sort"),
                             "Use `{jnp}.sort`, which sorts the array in the trace", wrap=False)
    if value.kind is not Kind.TRACED or value.mapping:
        return None
    return _in_jax_numpy(ctx, node, lambda jnp: ctx.expr(f"{jnp}.sort({jnp}.asarray({{x}}))", x=arg.value),
                         "Use `{jnp}.sort` of the values as one array, which sorts them in the trace")


def _elementwise_reduction(node: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """``all(abs(r - target) < tol for r in readings)``: ``all`` / ``any`` / ``max`` / ``min`` of a generator
    or list comprehension with one ``for`` over a traced array (a name) and no ``if``, its item element-wise
    in the element (see :func:`_elementwise`) -> ``jnp.all(abs(readings - target) < tol, axis=0)``, the whole
    array for the element.  Iterating the array gave its rows and the builtin needed one element each, so
    code that ran had a 1-D array.  UNSAFE: a 0-d array where the builtin gave a Python bool or an item;
    ``all`` / ``any`` of no element gave True / False where ``max`` / ``min`` raised, as ``jnp`` does."""
    arg = node.args[0]
    twin = _ARRAY_REDUCTIONS.get(node.func.value) if isinstance(node.func, cst.Name) else None
    comp = arg.value
    if twin is None or arg.keyword is not None or arg.star or not isinstance(comp, (cst.GeneratorExp, cst.ListComp)) \
            or comp.for_in.ifs or comp.for_in.inner_for_in is not None or comp.for_in.asynchronous is not None \
            or not isinstance(comp.for_in.target, cst.Name):
        return None
    xs = comp.for_in.iter
    if not (isinstance(xs, cst.Name) and ctx.facts.value(xs).traced_array):
        return None
    var = comp.for_in.target.value
    scalars = {n.value for n in name_references(comp.elt) if n.value != var
               and ctx.facts.value(n).kind is Kind.TRACED and not ctx.facts.value(n).container}
    if not _elementwise(comp.elt, var, ctx, scalars):
        return None
    whole = substitute_names(comp.elt, {var: cst.Name(xs.value)})
    return _in_jax_numpy(ctx, node, lambda jnp: ctx.expr(f"{jnp}.{twin}({{e}}, axis=0)", e=whole).with_changes(
        lpar=node.lpar, rpar=node.rpar), f"Use `{{jnp}}.{twin}` over the whole array, computed in the trace")


def _items_reduction(node: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """``any(jnp.any(~jnp.isfinite(g)) for g in leaves)`` -- ``any`` / ``all`` / ``max`` / ``min`` of a
    generator or list comprehension over Python values (a list of leaves, a range) whose items are traced
    -> ``jnp.any(jnp.stack([...]))``: the items stacked into one array, reduced in the trace.  The builtin
    converted each item to a Python bool or compared two, which works only on items of one element; eager
    code that ran had such items.  UNSAFE: every item is computed (the builtin stopped at the first that
    decided), so the item must be pure; items of shapes () and (1,) mixed do not stack; a 0-d array
    instead of a Python bool."""
    arg = node.args[0]
    twin = _ARRAY_REDUCTIONS.get(node.func.value) if isinstance(node.func, cst.Name) else None
    comp = arg.value
    if twin is None or arg.keyword is not None or arg.star or not isinstance(comp, (cst.GeneratorExp, cst.ListComp)) \
            or ctx.facts.value(comp.elt).kind is not Kind.TRACED:
        return None
    scope = ctx.enclosing_function(node)
    if scope is None or not ctx.purity.expression(comp, scope) or comments_in(comp):
        return None
    loops: List[cst.CompFor] = []
    fc: Optional[cst.CompFor] = comp.for_in
    while fc is not None:
        loops.append(fc)
        fc = fc.inner_for_in
    if any(fc.asynchronous is not None or ctx.facts.value(fc.iter).traced_array for fc in loops):
        return None  # (iterating a traced array: its length is static, but keep to Python sequences)
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    jnp, imports = spelled
    listed = cst.ListComp(elt=comp.elt, for_in=comp.for_in)
    new = ctx.expr(f"{jnp}.{twin}({jnp}.stack({{items}}))", items=listed)
    edit = ctx.replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Stack the items and use `{jnp}.{twin}`, which reduces them in the trace",
                   (edit,) + imports)


def _range_and_key(node: cst.Call, ctx: FixContext) -> Optional[Tuple[cst.Call, cst.BaseExpression]]:
    """``builtin(range(n), key=k)`` (two arguments, the builtin ``range`` of one): the ``range`` call and
    the key."""
    if len(node.args) != 2 or node.args[0].keyword is not None or node.args[0].star \
            or node.args[1].keyword is None or node.args[1].keyword.value != "key":
        return None
    rng, key = node.args[0].value, node.args[1].value
    if not (isinstance(rng, cst.Call) and isinstance(rng.func, cst.Name) and rng.func.value == "range"
            and ctx.facts.read_scope.get(rng.func) == "builtin" and len(rng.args) == 1
            and rng.args[0].keyword is None and not rng.args[0].star):
        return None
    return rng, key


def _arg_best(node: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """``min(range(n), key=cost)`` (``max`` likewise), ``cost`` a pure function of the module (a def or a
    lambda) whose result is traced -> ``jnp.argmin(jnp.stack([cost(i) for i in range(n)]))``: the first
    position whose key is least, as the builtin gives it (both keep the first of equal keys).  UNSAFE: an
    int array where the builtin gave a Python int; every key is computed; keys of other shapes than
    scalars do not compare as the builtin did."""
    found = _range_and_key(node, ctx)
    if found is None:
        return None
    rng, key = found
    scope = ctx.enclosing_function(node)
    if scope is None:
        return None
    fn, _ = ctx.index.resolve_function(key, scope, scope.cls)
    if fn is None or not ctx.purity.function(fn) or not isinstance(key, (cst.Name, cst.Lambda)):
        return None
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    jnp, imports = spelled
    twin = "argmin" if node.func.value == "min" else "argmax"
    if isinstance(key, cst.Lambda):
        params = key.params
        if len(params.params) != 1 or params.posonly_params or params.kwonly_params or params.star_kwarg \
                or isinstance(params.star_arg, cst.Param) or params.params[0].default is not None:
            return None
        # the lambda's body, its parameter the comprehension's variable (the comprehension is its own scope)
        index, keyed = params.params[0].name.value, key.body
    else:
        index = ctx.fresh_name("i", scope.node)
        keyed = cst.Call(key.deep_clone(), args=[cst.Arg(cst.Name(index))])
    listed = ctx.expr(f"[{{k}} for {index} in {{r}}]", k=keyed, r=rng)
    new = ctx.expr(f"{jnp}.{twin}({jnp}.stack({{items}}))", items=listed)
    edit = ctx.replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Use `{jnp}.{twin}` of the stacked keys, which picks the position in the "
                   "trace", (edit,) + imports)


def _argsort(node: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """``sorted(range(n), key=lambda i: scores[i])``, ``scores`` a traced 1-D array -> ``jnp.argsort(scores)``
    where ``n`` is its length (its ``shape[0]``, ``len``, or a name bound to one), else
    ``jnp.argsort(scores[:n])``: the first ``n`` positions in order of their values, ties in their order
    (Python's sort and jnp.argsort are both stable).  UNSAFE: an int array where the builtin gave a list
    of Python ints; an ``n`` past the end raised ``IndexError``, the slice stops at the end."""
    found = _range_and_key(node, ctx)
    if found is None:
        return None
    rng, key = found
    if not (isinstance(key, cst.Lambda) and len(key.params.params) == 1 and not key.params.posonly_params
            and not key.params.kwonly_params and not isinstance(key.params.star_arg, cst.Param)
            and isinstance(key.body, cst.Subscript) and len(key.body.slice) == 1
            and isinstance(key.body.slice[0].slice, cst.Index)
            and isinstance(key.body.slice[0].slice.value, cst.Name)
            and key.body.slice[0].slice.value.value == key.params.params[0].name.value
            and isinstance(key.body.value, cst.Name)):
        return None
    scores = key.body.value
    if not ctx.facts.value(scores).traced_array:
        return None
    count = rng.args[0].value
    ranked: cst.BaseExpression = scores
    if not _length_of(count, scores.value, ctx):
        # the first `n` positions ordered: `scores[:n]` (where `n` is past the end the builtin raised)
        ranked = cst.Subscript(scores, [cst.SubscriptElement(cst.Slice(lower=None, upper=_bare(count)))])
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    jnp, imports = spelled
    edit = ctx.replace(node, ctx.expr(f"{jnp}.argsort({{a}})", a=ranked).with_changes(lpar=node.lpar, rpar=node.rpar))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Use `{jnp}.argsort`, which orders the positions in the trace",
                   (edit,) + imports)


def _length_of(count: cst.BaseExpression, array: str, ctx: FixContext, depth: int = 0) -> bool:
    """``count`` is the length of the array named ``array``: ``array.shape[0]``, ``len(array)``, or a
    local bound once to one of those; or the length of an array of the same first axis is not known, so
    only those forms."""
    if isinstance(count, cst.Call) and isinstance(count.func, cst.Name) and count.func.value == "len" \
            and len(count.args) == 1 and isinstance(count.args[0].value, cst.Name):
        return count.args[0].value.value == array
    if isinstance(count, cst.Subscript) and isinstance(count.value, cst.Attribute) \
            and count.value.attr.value == "shape" and isinstance(count.value.value, cst.Name) \
            and len(count.slice) == 1 and isinstance(count.slice[0].slice, cst.Index) \
            and isinstance(count.slice[0].slice.value, cst.Integer) and count.slice[0].slice.value.value == "0":
        return count.value.value.value == array
    if isinstance(count, cst.Name) and depth < 2:
        scope = ctx.enclosing_function(count)
        bound = ctx.index.single_value(count.value, scope) if scope is not None else None
        return bound is not None and _length_of(bound, array, ctx, depth + 1)
    return False


#: transforms that differentiate in reverse mode: a ``lax.while_loop`` (or a ``fori_loop`` with a traced bound)
#: under them raises ``ValueError: Reverse-mode differentiation does not work for lax.while_loop``
_REVERSE_MODE = frozenset({"jax.grad", "jax.value_and_grad", "jax.vjp", "jax.jacrev", "jax.hessian",
                           "equinox.filter_grad", "equinox.filter_value_and_grad", "equinox.filter_vjp"})
_REVERSE_ADVICE = ("The loop is differentiated in reverse mode (`jax.grad` reaches it), which `lax.while_loop` "
                   "does not support: bound it (`lax.scan` over a fixed number of steps) or give it a "
                   "`jax.custom_vjp` (implicit differentiation)")


def _reverse_differentiated(fn_node: cst.CSTNode, ctx: FixContext) -> bool:
    """The function ``fn_node`` runs under reverse-mode differentiation: it is, or a function of the module
    that one calls (a few levels deep) is, the function of a ``jax.grad`` / ``value_and_grad`` / ``vjp`` /
    ``jacrev`` of the module -- not through a ``custom_vjp`` / ``custom_jvp`` function, whose rule differentiates
    instead.  (Worked out once per module.)"""
    key = ("control_flow.reverse_differentiated",)
    if key not in ctx.memo:
        ctx.memo[key] = _reverse_differentiated_functions(ctx)
    return fn_node in ctx.memo[key]  # type: ignore[operator]


def _reverse_differentiated_functions(ctx: FixContext) -> Set[cst.CSTNode]:
    """The definitions :func:`_reverse_differentiated` finds: every function a reverse-mode transform of the
    module reaches."""
    index = ctx.index
    todo = [e.function for e in index.entries if e.transform is not None and e.transform.name in _REVERSE_MODE]
    for call in calls_in(ctx.module):
        if call.args and not call.args[0].star and call.args[0].keyword is None \
                and index.qualify(call.func) in _REVERSE_MODE:
            scope, cls = index.call_scopes.get(call, (None, None))
            target, _ = index.resolve_function(call.args[0].value, scope, cls)
            if target is not None:
                todo.append(target)
    for info in index.infos.values():
        if isinstance(info.node, cst.FunctionDef) and any(
                index.qualify(d.decorator) in _REVERSE_MODE for d in info.node.decorators):
            todo.append(info)
    reached: Set[cst.CSTNode] = set()
    while todo and len(reached) < 200:
        fn = todo.pop()
        if fn.node in reached or not isinstance(fn.node, (cst.FunctionDef, cst.Lambda)):
            continue
        if isinstance(fn.node, cst.FunctionDef) and any(
                (index.qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "")
                in ("jax.custom_vjp", "jax.custom_jvp") for d in fn.node.decorators):
            continue
        reached.add(fn.node)
        for call in calls_in(fn.node):
            callee, _ = index.resolve_function(call.func, fn, fn.cls)
            if callee is not None:
                todo.append(callee)
    return reached


@rewrites("JIT202")
def to_fori_loop(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT202: ``for i in range(a, b): ...`` -> ``lax.fori_loop(a, b, body_fun, init)``."""
    loop = ctx.parent(node)
    if not isinstance(loop, cst.For) or loop.iter is not node or not isinstance(node, cst.Call):
        return None
    if loop.asynchronous is not None or not isinstance(loop.target, cst.Name):
        return None
    args = node.args
    if any(a.keyword is not None or a.star for a in args) or not 1 <= len(args) <= 3:
        return None
    if len(args) == 3 and literal_value(args[2].value) != 1:
        return None  # fori_loop has no step
    checked = _loop_checks(loop, ctx)
    if checked is None:
        return None
    fn_node, body = checked
    index = loop.target.value
    if _uses_global_state(ctx, fn_node, assigned_in(body)):
        return None
    if _reverse_differentiated(fn_node, ctx):
        advice = _REVERSE_ADVICE.replace("`lax.while_loop`", "`lax.fori_loop` with a traced bound")
        return Fix(Applicability.DISPLAY_ONLY, advice, ())
    if index in Liveness(fn_node, [loop]).live_after(loop):
        return None  # Python leaves the index bound after the loop
    if _index_used_as_int(body, index, ctx):
        return None
    carry = _carry(loop, fn_node, body, exclude=(index,))
    if carry is None:
        return None
    bld = _Builder(ctx)
    try:
        param = _loop_param(ctx, carry, fn_node, body)
        name = ctx.fresh_name("body_fun", fn_node)
        lax = bld.lax
    except _NoFix:
        return None

    def make() -> Dict[cst.CSTNode, Replacement]:
        ret = _return(ctx, carry)
        header = loop.body.header if isinstance(loop.body, cst.IndentedBlock) else None
        fun = bld.function(name, [index, param], _unpack(bld, carry, param) + as_lines(body) + [ret], header=header)
        start = args[0].value if len(args) >= 2 else cst.Integer("0")
        stop = args[1].value if len(args) >= 2 else args[0].value
        init = _tuple(ctx, carry)
        if len(carry) > 1:
            init = init.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        call = bld.statement(f"{_target(carry)} = {lax}.fori_loop({{a}}, {{b}}, {name}, {{i}})",
                             a=start, b=stop, i=init)
        return {loop: cst.FlattenSentinel(keep_comments([loop], with_leading_lines([fun, call], loop)))}

    return _later(bld, "Use `lax.fori_loop` (not reverse-differentiable with a traced bound)", [loop], make)


def _index_used_as_int(body, index: str, ctx: FixContext) -> bool:
    """The loop index as a Python int: ``range(i)``, ``x[:i]``, an argument of a ``math`` or NumPy
    function (``comb(n, i)``: a binomial weight) -- a tracer there fails."""
    stack: List[cst.CSTNode] = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Slice) and any(index in reads(p) for p in (n.lower, n.upper, n.step) if p is not None):
            return True
        if isinstance(n, cst.Call) and _needs_python_values(n, ctx):
            if any(index in reads(a.value) for a in n.args):
                return True
        stack.extend(iter_children(n))
    return False


def _needs_python_values(call: cst.Call, ctx: FixContext) -> bool:
    """``range``, ``int``, ``len`` (the builtins), or a function of Python's ``math`` module or of NumPy:
    given a tracer they raise (or convert it)."""
    if isinstance(call.func, cst.Name) and call.func.value in ("range", "int", "len") \
            and ctx.facts.read_scope.get(call.func) in ("builtin", None):
        return True
    q = ctx.index.qualify(call.func) or ""
    return q.startswith(("math.", "numpy.")) and not q.startswith("numpy.random.")


@rewrites("JIT203")
def to_while_loop(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT203: ``while c: ...`` -> ``lax.while_loop(cond_fun, body_fun, init)``."""
    loop = ctx.parent(node)
    if not isinstance(loop, cst.While) or loop.test is not node:
        return None
    checked = _loop_checks(loop, ctx)
    if checked is None:
        return None
    fn_node, body = checked
    scope = ctx.index.infos.get(fn_node)
    if not ctx.purity.expression(loop.test, scope, walrus=True) or _uses_global_state(ctx, fn_node, assigned_in(body)):
        return None
    if _reverse_differentiated(fn_node, ctx):
        return Fix(Applicability.DISPLAY_ONLY, _REVERSE_ADVICE, ())
    carry = _carry(loop, fn_node, body)
    if carry is None or _static_carry_escapes(loop, carry, ctx):
        return None
    named = _test_walrus(loop, fn_node, body, carry, ctx)
    if named is None:
        return None
    bld = _Builder(ctx)
    try:
        pred = bld.predicate(loop.test)
        param = _loop_param(ctx, carry, fn_node, body)
        recomputed = [bld.statement(f"{w.target.value} = {{v}}", v=w.value) for w in named]  # type: ignore
        cond_name = ctx.fresh_name("cond_fun", fn_node)
        body_name = ctx.fresh_name("body_fun", fn_node, taken=[cond_name])
        lax = bld.lax
    except _NoFix:
        return None

    def make() -> Dict[cst.CSTNode, Replacement]:
        ret = _return(ctx, carry)
        # (the test's `name := value` bindings serve the body, which computes them again: the test keeps
        # the values alone)
        tested = cst.ensure_type(pred.visit(_Unbound()), cst.BaseExpression) if named else pred
        cond_fun = bld.function(cond_name, [param], _unpack(bld, carry, param) + [
            bld.statement("return {v}", v=tested)])
        header = loop.body.header if isinstance(loop.body, cst.IndentedBlock) else None
        body_fun = bld.function(body_name, [param], _unpack(bld, carry, param) + recomputed + as_lines(body)
                                + [ret], header=header)
        init = _tuple(ctx, carry)
        if len(carry) > 1:
            init = init.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        call = bld.statement(f"{_target(carry)} = {lax}.while_loop({cond_name}, {body_name}, {{i}})", i=init)
        return {loop: cst.FlattenSentinel(keep_comments([loop], with_leading_lines([cond_fun, body_fun, call], loop)))}

    return _later(bld, "Use `lax.while_loop` (not reverse-mode differentiable)", [loop], make)


class _Unbound(cst.CSTTransformer):
    """``(name := value)`` -> ``(value)``."""

    def leave_NamedExpr(self, original_node: cst.NamedExpr, updated_node: cst.NamedExpr) -> cst.BaseExpression:
        return updated_node.value.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)


def _test_walrus(loop: cst.While, fn_node: cst.FunctionDef, body, carry: List[str], ctx: FixContext
                 ) -> Optional[List[cst.NamedExpr]]:
    """The ``:=`` of the loop's test (``while (resid := f(y) - q) ** 2 > tol: y = y - resid / g(y)``), each
    binding a name the body reads but neither rebinds nor carries, and that nothing reads after the loop:
    ``cond_fun`` keeps the test as written, ``body_fun`` computes the value again from the carry before
    its statements (the test is pure, so both give what the test gave).  None when a ``:=`` is otherwise;
    an empty list when the test has none."""
    found: List[cst.NamedExpr] = []
    stack: List[cst.CSTNode] = [loop.test]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.NamedExpr):
            found.append(n)
        if not isinstance(n, cst.Lambda):
            stack.extend(iter_children(n))
    if not found:
        return found
    carried = set(carry)
    live = Liveness(fn_node, [loop]).live_after(loop)
    for w in found:
        if not isinstance(w.target, cst.Name):
            return None
        name = w.target.value
        if name in live or name in assigned_in(body) or name in carried:
            return None
    return found


__all__ = ["to_branch_rewrite", "to_fori_loop", "to_while_loop"]


@rewrites("JIT201")
def to_early_exit_while(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``for i in range(n): <body>; if <test>: break`` -- a traced test that ends the loop early, last in
    its body -> ``lax.while_loop`` carrying the loop's variables, the count and whether the test held:
    ``cond_fun`` runs another step while the count is below ``n`` and the test has not held, ``body_fun``
    runs the body and computes the test, as the Python loop did after each step (JAX's documented way to
    stop a loop on a traced value).  UNSAFE: not reverse-mode differentiable, and the carried values must
    keep their shapes and dtypes from one step to the next."""
    stmt = ctx.parent(node)
    if not isinstance(stmt, cst.If) or stmt.test is not node:
        return None
    inner = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
    if not inner or not isinstance(inner[0], cst.SimpleStatementLine) or not isinstance(inner[0].body[0], cst.Break):
        return None
    rewritten = _early_exit_while(node, stmt, inner, ctx)
    return rewritten if rewritten is not None else Fix(Applicability.DISPLAY_ONLY, _BREAK_ADVICE, ())


_BREAK_ADVICE = "Stop the loop in the condition of a `lax.while_loop` instead of `break`"


def _early_exit_while(node: cst.BaseExpression, stmt: cst.If, inner, ctx: FixContext) -> Optional[Fix]:
    if stmt.orelse is not None or len(inner) != 1 or len(inner[0].body) != 1:
        return None
    block = ctx.parent(stmt)
    loop = ctx.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(loop, cst.For) or loop.body is not block or block.body[-1] is not stmt \
            or loop.orelse is not None or loop.asynchronous is not None or not isinstance(loop.target, cst.Name):
        return None
    call = loop.iter
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "range"
            and ctx.facts.read_scope.get(call.func) in ("builtin", None)) \
            or any(a.keyword is not None or a.star for a in call.args) or not 1 <= len(call.args) <= 2:
        return None
    fn_node = ctx.enclosing_def(loop)
    body = list(block.body[:-1])
    if fn_node is None or not body or _contains(body, (cst.Yield, cst.Await)):
        return None
    scope = ctx.index.infos.get(fn_node)
    if not ctx.purity.statements(body, scope, staged_effects=True) or not ctx.purity.expression(node, scope):
        return None
    index = loop.target.value
    liveness = Liveness(fn_node, [loop])
    if index != "_" and index in liveness.live_after(loop):
        return None  # Python leaves the index bound after the loop
    if _uses_global_state(ctx, fn_node, assigned_in(body)) or _index_used_as_int(body, index, ctx):
        return None
    carry = _carry(loop, fn_node, body, exclude=(index,))
    if carry is None or _static_carry_escapes(loop, carry, ctx):
        return None
    bld = _Builder(ctx)
    try:
        counter = ctx.fresh_name("step", fn_node, taken=carry + [index])
        stopped = ctx.fresh_name("stopped", fn_node, taken=carry + [index, counter])
        param = ctx.fresh_name("carry", fn_node, taken=carry + [index, counter, stopped])
        cond_name = ctx.fresh_name("cond_fun", fn_node)
        body_name = ctx.fresh_name("body_fun", fn_node, taken=[cond_name])
        pred = bld.predicate(node)
        lax = bld.lax
    except _NoFix:
        return None
    start = call.args[0].value if len(call.args) == 2 else cst.Integer("0")
    stop = call.args[-1].value
    names = carry + [counter, stopped]

    def make() -> Dict[cst.CSTNode, Replacement]:
        unpack = bld.statement(f"{_target(names)} = {param}")
        cond_fun = bld.function(cond_name, [param], [
            unpack, bld.statement(f"return ({counter} < {{n}}) & ~{stopped}", n=stop)])
        header = loop.body.header if isinstance(loop.body, cst.IndentedBlock) else None
        named_index = [bld.statement(f"{index} = {counter}")] if index != "_" else []
        body_fun = bld.function(body_name, [param], [unpack] + named_index + as_lines(body) + [
            bld.statement(f"return {_target(carry)}, {counter} + 1, {{t}}", t=pred)], header=header)
        init = ctx.expr(f"({_target(carry)}, {{s}}, False)", s=start)
        result = bld.statement(f"{_target(carry)}, _, _ = {lax}.while_loop({cond_name}, {body_name}, {{i}})",
                               i=init)
        return {loop: cst.FlattenSentinel(keep_comments([loop], with_leading_lines([cond_fun, body_fun, result],
                                                                                 loop)))}

    return _later(bld, "Stop the loop in the condition of a `lax.while_loop` (not reverse-mode differentiable)",
                  [loop], make)
