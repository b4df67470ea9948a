"""Fixes for JIT401 and JIT402: a selection whose size depends on traced values -> a mask of fixed shape.

JIT401 (boolean-mask indexing):

* ``x[m] = v`` -> ``x = jnp.where(m, v, x)``; ``x[m] += v`` (``-=``, ``*=``) -> ``x = jnp.where(m, x + v, x)``;
* ``x.at[m].set(v)`` -> ``jnp.where(m, v, x)`` (``.add``, ``.multiply``, ``.min``, ``.max`` likewise);
* ``x[m].sum()`` / ``jnp.sum(x[m])`` -> ``jnp.where(m, x, 0).sum()``;
  ``x[m].mean()`` / ``jnp.mean(x[m])`` -> ``jnp.where(m, x, 0).sum() / m.sum()``; also with
  ``axis=0``; ``prod``, ``any``, ``all`` likewise, with their identities (1, False, True) in place of
  the elements left out, and ``max`` / ``min`` with the lowest / highest value (``-jnp.inf`` /
  ``jnp.inf``, or ``jnp.iinfo(x.dtype)``'s bounds for an array known to hold ints); ``x[m].std()`` /
  ``.var()`` (no axis) -> ``x.std(where=m)``, JAX's reduction over the elements ``where`` keeps;
* ``sel = x[m]`` whose every read is such a reduction or a count (``len(sel)``, ``sel.shape[0]``,
  ``sel.size`` for a mask of ``x``'s shape -> ``m.sum()``): each read is rewritten and the selection
  goes (the mask kept in ``sel_mask`` where several reads need it);
* positions that are only counted (``len(jnp.nonzero(m)[0])``, ``jnp.argwhere(m).shape[0]``,
  ``jnp.flatnonzero(m).size``, also through a name) -> ``jnp.count_nonzero(m)``; distinct values only
  counted (``len(jnp.unique(x))``) -> ``jnp.count_nonzero(jnp.diff(jnp.sort(x, axis=None)) != 0) +
  (x.size > 0)``;
* an index ``x[jnp.where(c)]`` (one-argument ``where``) selects what the mask ``c`` selects: the
  same rewrites, with ``c`` as the mask; also through a name used once (``idx = jnp.where(c)``,
  then ``x[idx]`` in a later simple statement of the same block, none in between rebinding what
  ``c`` reads): the assignment goes and ``c`` is written at the use.

JIT402 (a traced slice bound): ``x[:k].sum()`` -> ``jnp.where(jnp.indices(x.shape)[0] < k, x, 0).sum()``
(``x[j:]``: ``>= j``; ``x[j:k]``: both): ``jnp.indices(x.shape)[0]`` is the position of every element
along the first axis, in ``x``'s shape, so the mask fits an array of any rank.  A traced size is made
static instead by :func:`to_static_size` (``static_argnames``, the JIT201/JIT202 builder).

Preconditions, each proven from the code or no fix is written:

* the mask has the shape of ``x``: it is boolean (a single comparison, ``jnp.isnan`` and the other
  boolean functions, ``~``, ``&``, ``|``, ``^`` of those, ``.astype(bool)``) and element-wise in
  ``x`` itself (``x`` is an operand of the comparison, possibly through arithmetic and element-wise
  ``jnp`` functions).  Its shape is then ``x``'s broadcast with the other operands, and boolean
  indexing accepts only a mask of ``x``'s shape there, so the original ran only where it is
  exactly ``x``'s shape.  A mask held in a name is followed to the one assignment of that name in
  the function;
* else, a mask that is certainly boolean but of unknown rank (rows chosen by ``labels == j``)
  covers the leading axes of ``x`` (boolean indexing takes nothing else), which ``jnp.where``
  would broadcast against the trailing ones: both are reversed (``.T``) so that the mask meets
  the axes it covers -- ``jnp.where(m.T, x.T, 0).sum()``, ``x.at[m].set(v)`` ->
  ``jnp.where(m.T, v, x.T).T``; a reduction over axis 0 of the selection sums the first
  ``m.ndim`` axes: ``jnp.where(m.T, x.T, 0).T.sum(axis=tuple(range(m.ndim)))``.  ``x`` is then a
  name or an attribute of one;
* the value written is a number (``0``, ``-1.0``, ``jnp.nan``), a constant the analysis knows, one
  value of an array (a reduction over every axis, ``jnp.median(x)``, or a name bound once to one), or
  (for a mask of ``x``'s shape) ``y[m]`` with the same mask (``x[m] = y[m]`` -> ``jnp.where(m, y, x)``): anything else may be an
  array of the selected size, which ``jnp.where`` cannot place.  Otherwise the fix is display-only;
* an expression the rewrite writes twice (``x`` of ``.at[m].add(v)``, the mask of a mean, the
  array of a slice sum) is a name or an attribute of one.

Safety: a masked ``.sum()`` (``prod``, ``any``, ``all``) with the mask written in place is SAFE: the
same elements are combined, with the identity in place of the others (the float result may differ in
its last bits, as sums in another order do).  A maximum or minimum of an empty selection raised
eagerly where the rewrite gives the fill value, and ``-jnp.inf`` promotes an int array whose dtype is
not known to float; a count becomes a traced int where eager gave a Python int (not rewritten where it
is a shape, a ``range()`` or slice bound or a test).  The rest is UNSAFE: ``x[m] = v`` could only run on a NumPy array, which it
changed in place for every other name bound to it, where the rewrite binds a new array; a value of
another dtype is cast to ``x``'s by an indexed write but promotes ``jnp.where``'s result
(``0.5`` into an int array); a mean of ``float16`` values is summed in ``float16``; a mask held in
a name is shape-checked at its assignment, not at its use; a mask of unknown rank is proven only
by the indexing having run; a negative slice bound counts from the
end in a slice but selects nothing (``:k``) or everything (``k:``) in a mask.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple, Union

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.scopes import names_bound_in
from jitlint.analysis.syntax import call_argument, chain_root, int_value, iter_children, name_references, walk
from jitlint.analysis.values import Kind
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.common import calls_by_name, literal_value
from jitlint.fixes.context import FixContext
from jitlint.fixes.templates import Replacement
from jitlint.fixes.registry import rewrites, static_alternative

#: ``jax.numpy`` functions that work element by element (their result has the broadcast shape of
#: their positional arguments)
_ELEMENTWISE = frozenset("jax.numpy." + n for n in (
    "abs", "absolute", "negative", "positive", "sign", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10",
    "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos",
    "arctan", "arctan2", "floor", "ceil", "round", "rint", "trunc", "clip", "maximum", "minimum", "fmax", "fmin",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "mod", "remainder", "hypot",
    "real", "imag", "conj", "isnan", "isinf", "isfinite", "isneginf", "isposinf", "signbit", "logical_and",
    "logical_or", "logical_not", "logical_xor", "greater", "greater_equal", "less", "less_equal", "equal",
    "not_equal", "isclose", "where"))

#: boolean results among them
_BOOLEAN = frozenset(jax_api.BOOLEAN_ARRAY_FUNCTIONS) - {"jax.numpy.isin", "jax.random.bernoulli"}

_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)

#: qualified constants that are numbers
_NUMBER_CONSTANTS = frozenset({"jax.numpy.nan", "jax.numpy.inf", "jax.numpy.pi", "jax.numpy.e", "numpy.nan",
                               "numpy.inf", "numpy.pi", "numpy.e", "math.nan", "math.inf", "math.pi", "math.e"})

#: ``.at[m].<method>(v)`` -> the new value where the mask holds, from ``x`` and ``v``
_AT_METHODS = {"set": "{v}", "add": "{x} + {v}", "multiply": "{x} * {v}", "mul": "{x} * {v}",
               "min": "{jnp}.minimum({x}, {v})", "max": "{jnp}.maximum({x}, {v})"}
_AUGMENTED = {cst.AddAssign: "{x} + {v}", cst.SubtractAssign: "{x} - {v}", cst.MultiplyAssign: "{x} * {v}"}


def bare(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` without the parentheses around it (to compare two spellings of one expression)."""
    if getattr(node, "lpar", None):
        return node.with_changes(lpar=[], rpar=[])
    return node


def same_expression(a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    return bare(a).deep_equals(bare(b))


def _is_pure_reference(node: cst.BaseExpression) -> bool:
    """A name, or an attribute of one (``self.x``): reading it twice reads the same value."""
    node = bare(node)
    while isinstance(node, cst.Attribute):
        node = bare(node.value)
    return isinstance(node, cst.Name)


# ------------------------------------------------------------------ the mask


def _elementwise_in(expr: cst.BaseExpression, base: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> bool:
    """``base`` is an operand of ``expr`` through element-wise operations only (so ``expr`` has the
    broadcast shape of ``base`` and the other operands)."""
    if depth > 20:
        return False
    if same_expression(expr, base):
        return True
    expr = bare(expr)
    if isinstance(expr, cst.BinaryOperation) and not isinstance(expr.operator, cst.MatrixMultiply):
        return _elementwise_in(expr.left, base, ctx, depth + 1) or _elementwise_in(expr.right, base, ctx, depth + 1)
    if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
        return _elementwise_in(expr.expression, base, ctx, depth + 1)
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1 \
            and isinstance(expr.comparisons[0].operator, _ORDERING):
        return _elementwise_in(expr.left, base, ctx, depth + 1) \
            or _elementwise_in(expr.comparisons[0].comparator, base, ctx, depth + 1)
    if isinstance(expr, cst.Call):
        if _astype_receiver(expr) is not None:
            return _elementwise_in(_astype_receiver(expr), base, ctx, depth + 1)  # type: ignore[arg-type]
        if ctx.index.qualify(expr.func) in _ELEMENTWISE:
            return any(_elementwise_in(a.value, base, ctx, depth + 1) for a in expr.args
                       if a.keyword is None and not a.star)
    return False


def _astype_receiver(call: cst.Call) -> Optional[cst.BaseExpression]:
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "astype":
        return call.func.value
    return None


def _is_boolean(expr: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> bool:
    """``expr`` is certainly a boolean array (of the shape of its operands)."""
    if depth > 20:
        return False
    expr = bare(expr)
    if isinstance(expr, cst.Comparison):
        return len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, _ORDERING)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
        return _is_boolean(expr.expression, ctx, depth + 1)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
        return _is_boolean(expr.left, ctx, depth + 1) and _is_boolean(expr.right, ctx, depth + 1)
    if isinstance(expr, cst.Call):
        if _astype_receiver(expr) is not None:
            args = [a for a in expr.args if not a.star]
            if len(args) != 1:
                return False
            dtype = args[0].value
            if isinstance(dtype, cst.Name) and dtype.value == "bool" and ctx.facts.read_scope.get(dtype) == "builtin":
                return True
            return ctx.index.qualify(dtype) in jax_api.BOOL_DTYPES or literal_value(dtype) in ("bool", "bool_")
        return ctx.index.qualify(expr.func) in _BOOLEAN
    if isinstance(expr, cst.Name):
        # a name bound once in its function to a boolean array (the analysis followed its value)
        scope = ctx.enclosing_function(expr)
        if scope is None or len([b for b in scope.scope.bindings_of(expr.value) if b.binds_value]) != 1:
            return False
        value = ctx.facts.value(expr)
        return value.kind is Kind.TRACED and value.is_bool
    return False


def _store_positions(scope: cst.CSTNode, name: str, ctx: FixContext) -> List[cst.Name]:
    """The ``Name`` nodes in ``scope`` that bind ``name`` (targets, loop variables, ``as`` names...)."""
    out = []
    for ref in name_references(scope, name):
        child: cst.CSTNode = ref
        parent = ctx.parent(child)
        while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
            child, parent = parent, ctx.parent(parent)
        if isinstance(parent, (cst.AssignTarget, cst.AsName, cst.Param, cst.Del, cst.ImportAlias)) or (
                isinstance(parent, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr))
                and parent.target is child):
            out.append(ref)
        elif isinstance(parent, (cst.Global, cst.Nonlocal, cst.NameItem)):
            out.append(ref)
    return out


def _mask_definition(mask: cst.BaseExpression, ctx: FixContext) -> Optional[cst.BaseExpression]:
    """The expression a mask name holds: the value of its one assignment in the function."""
    if not isinstance(mask, cst.Name):
        return None
    scope = ctx.enclosing_def(mask)
    if scope is None or ctx.facts.read_scope.get(mask) != "local":
        return None
    stores = _store_positions(scope, mask.value, ctx)
    if len(stores) != 1:
        return None
    target = ctx.parent(stores[0])
    assign = ctx.parent(target) if isinstance(target, cst.AssignTarget) else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or ctx.enclosing_def(assign) is not scope:
        return None
    return assign.value


def mask_fits(mask: cst.BaseExpression, base: cst.BaseExpression, ctx: FixContext) -> Optional[bool]:
    """Whether ``mask`` is a boolean array of ``base``'s shape: True when written in place, False when
    proven through a name's assignment, None when not proven."""
    if _is_boolean(mask, ctx) and _elementwise_in(mask, base, ctx):
        return True
    held = _mask_definition(bare(mask), ctx)
    if held is not None and isinstance(bare(base), cst.Name) and _is_boolean(held, ctx) \
            and _elementwise_in(held, base, ctx):
        return False
    return None


# ------------------------------------------------------------------ values


def _is_number(value: cst.BaseExpression, ctx: FixContext) -> bool:
    literal = literal_value(value)
    if isinstance(literal, (int, float)):  # bool too
        return True
    bare_value = bare(value)
    if isinstance(bare_value, cst.UnaryOperation) and isinstance(bare_value.operator, cst.Minus):
        return _is_number(bare_value.expression, ctx)
    if ctx.index.qualify(bare_value) in _NUMBER_CONSTANTS:
        return True
    const = ctx.facts.value(value).const
    if isinstance(const, (int, float)):
        return True
    return isinstance(bare_value, cst.Name) and _module_number(bare_value, ctx)


#: ``jax.numpy`` reductions: given only the array, each gives one value (a 0-d array)
_FULL_REDUCTIONS = frozenset({"sum", "mean", "median", "max", "min", "amax", "amin", "std", "var", "prod",
                              "nansum", "nanmean", "nanmedian", "nanmax", "nanmin", "nanstd", "nanvar"})


def _is_scalar(value: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> bool:
    """A number, or one value of an array: a reduction over every axis (``jnp.median(x)``, ``x.sum()``
    of a traced array) or a local name bound once, in the function, to one.  ``jnp.where`` broadcasts
    a 0-d array as it does a number."""
    if _is_number(value, ctx):
        return True
    inner = bare(value)
    if isinstance(inner, cst.Call) and not inner.args:
        func = inner.func
        return isinstance(func, cst.Attribute) and func.attr.value in _FULL_REDUCTIONS \
            and ctx.facts.value(func.value).traced_array
    if isinstance(inner, cst.Call) and len(inner.args) == 1 and inner.args[0].keyword is None \
            and not inner.args[0].star:
        q = ctx.index.qualify(inner.func) or ""
        return q.startswith("jax.numpy.") and q.rpartition(".")[2] in _FULL_REDUCTIONS
    held = _mask_definition(inner, ctx) if depth < 3 else None
    return held is not None and _is_scalar(held, ctx, depth + 1)


def _module_number(name: cst.Name, ctx: FixContext) -> bool:
    """A module-level name assigned once, to a number, and declared ``global`` nowhere."""
    if ctx.facts.read_scope.get(name) != "global":
        return False
    info = ctx.index.globals.get(name.value)
    if info is None or info.assignments != 1 or not isinstance(info.node, cst.Assign) \
            or len(info.node.targets) != 1 or not isinstance(literal_value(info.node.value), (int, float)):
        return False
    key = ("masks.declared_global",)
    if key not in ctx.memo:
        declared = set()
        for node in walk(ctx.module):
            if isinstance(node, cst.Global):
                declared |= {item.name.value for item in node.names}
        ctx.memo[key] = declared
    return name.value not in ctx.memo[key]  # type: ignore[operator]


def _written_value(value: cst.BaseExpression, mask: cst.BaseExpression,
                   ctx: FixContext) -> Optional[cst.BaseExpression]:
    """What ``jnp.where`` takes where the mask holds: a number or one value as it is, ``y`` for
    ``y[mask]``."""
    if _is_scalar(value, ctx):
        return value
    inner = bare(value)
    if isinstance(inner, cst.Subscript) and len(inner.slice) == 1 and isinstance(inner.slice[0].slice, cst.Index) \
            and same_expression(inner.slice[0].slice.value, mask):
        return inner.value
    return None


# ------------------------------------------------------------------ builders


def _mask_of(node: cst.CSTNode, ctx: FixContext) -> Optional[Tuple[cst.Subscript, cst.BaseExpression]]:
    """The subscript a JIT401 finding is about and its mask: ``x[m]`` / ``x.at[m]``, or ``x[jnp.where(c)]``
    (then ``c``)."""
    if isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index) \
                or node.slice[0].slice.star is not None:
            return None
        return node, node.slice[0].slice.value
    if isinstance(node, cst.Call) and ctx.index.qualify(node.func) == "jax.numpy.where" and len(node.args) == 1 \
            and node.args[0].keyword is None and not node.args[0].star:
        index = ctx.parent(node)
        element = ctx.parent(index) if isinstance(index, cst.Index) else None
        subscript = ctx.parent(element) if isinstance(element, cst.SubscriptElement) else None
        if isinstance(subscript, cst.Subscript) and len(subscript.slice) == 1 and not node.lpar:
            return subscript, node.args[0].value
    return None


@rewrites("JIT401")
def to_masked_select(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT401: boolean-mask indexing -> ``jnp.where`` over the whole array."""
    found = _mask_of(node, ctx)
    held = _held_where(node, ctx) if found is None else None
    if held is not None:
        subscript, mask, line = held
        fix = _select(subscript, mask, ctx)
        if fix is None or not fix.edits:
            return fix
        removed = ctx.replace(line, cst.RemovalSentinel.REMOVE, wrap=False)
        return None if removed is None else ctx.fix(fix.applicability, fix.title, fix.edits + (removed,))
    if found is None:
        return None
    return _select(*found, ctx)


#: positions of what is selected, their number depending on the values unless ``size=`` is given
_POSITION_FUNCTIONS = frozenset({"jax.numpy.nonzero", "jax.numpy.argwhere", "jax.numpy.flatnonzero"})


@rewrites("JIT401")
def to_leading_positions(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT401: ``jnp.nonzero`` / ``jnp.argwhere`` / ``jnp.flatnonzero`` whose result is read only at
    fixed leading positions (``rows, cols = jnp.nonzero(grid == GOAL)`` then ``rows[0]``, ``cols[0]``;
    ``jnp.argwhere(m)[0]``) -> ``size=`` one past the last position read: the same first positions,
    of fixed shape.  Each read is a literal index ``[k]`` (``k >= 0``, or ``[k, j]`` of an argwhere's
    rows) of the call, of one of its parts (``[i]``) or of a local name bound once to either, read
    nowhere else.  UNSAFE: where fewer positions are found, eager indexing raised ``IndexError`` and
    the sized call gives the fill value, 0."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) not in _POSITION_FUNCTIONS or not node.args \
            or any(a.keyword is not None and a.keyword.value == "size" for a in node.args) \
            or any(a.star for a in node.args) or ctx.enclosing_function(node) is None:
        return None
    wanted = _leading_reads(node, ctx, tuple_parts=ctx.index.qualify(node.func) == "jax.numpy.nonzero")
    if not wanted:
        return None
    size = max(wanted) + 1
    new = node.with_changes(args=[*node.args[:-1], node.args[-1].with_changes(comma=_COMMA),
                                  cst.Arg(cst.Integer(str(size)), keyword=cst.Name("size"),
                                          equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                                cst.SimpleWhitespace("")))])
    edit = ctx.replace(node, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Pass `size={size}`: only the first {size} position"
                   f"{'s are' if size > 1 else ' is'} read (where fewer are found, the rest is filled with 0 "
                   "where indexing raised)", (edit,))


_COMMA = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


#: the ``.at[...]`` updates that drop an out-of-range index (JAX's default for scatters)
_AT_UPDATES = frozenset({"set", "add", "multiply", "divide", "min", "max", "power"})


@rewrites("JIT401")
def to_dropped_positions(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT401: ``idx = jnp.nonzero(m)[0]`` (or ``jnp.flatnonzero(m)``), perhaps cut to its first ``k``
    (``[:k]``), whose every read is the index of an update of one array, ``out = out.at[idx].set(v)`` (or
    ``add``, ...), ``v`` perhaps gathering ``y[idx]`` -> ``size=m.size, fill_value=out.shape[0]``: the
    positions found come first, as before, and the slots past them hold an index one past ``out``'s end,
    whose update JAX drops (a gather there clamps, for a value that is dropped). UNSAFE: an update with
    ``mode="clip"`` or ``"promise_in_bounds"`` would not drop it (not taken: no ``mode=``), and the index
    array is longer, of fixed length."""
    q = ctx.index.qualify(node.func) if isinstance(node, cst.Call) else None
    if q not in ("jax.numpy.nonzero", "jax.numpy.flatnonzero") or len(node.args) != 1 \
            or node.args[0].keyword is not None or node.args[0].star:  # type: ignore[union-attr]
        return None
    positions: cst.BaseExpression = node  # type: ignore[assignment]
    if q == "jax.numpy.nonzero":
        parent = ctx.parent(node)
        if not isinstance(parent, cst.Subscript) or parent.value is not node or len(parent.slice) != 1 \
                or not isinstance(parent.slice[0].slice, cst.Index) or int_value(parent.slice[0].slice.value) != 0:
            return None
        positions = parent
    parent = ctx.parent(positions)
    if isinstance(parent, cst.Subscript) and parent.value is positions and len(parent.slice) == 1 \
            and isinstance(parent.slice[0].slice, cst.Slice) and parent.slice[0].slice.lower is None \
            and parent.slice[0].slice.step is None:
        positions = parent  # (its first `k`)
    assign = ctx.parent(positions)
    fn = ctx.enclosing_function(node)
    if fn is None or not (isinstance(assign, cst.Assign) and assign.value is positions and len(assign.targets) == 1
                          and isinstance(assign.targets[0].target, cst.Name)):
        return None
    name = assign.targets[0].target.value
    if len([b for b in fn.scope.bindings_of(name)]) != 1:
        return None
    updated: Set[str] = set()
    updates: List[cst.Call] = []
    gathers: List[cst.Subscript] = []
    for ref in name_references(fn.node.body, name):
        if ref is assign.targets[0].target:
            continue
        element = ctx.parent(ctx.parent(ref))  # Index -> SubscriptElement
        item = ctx.parent(element)
        if not (isinstance(ctx.parent(ref), cst.Index) and isinstance(item, cst.Subscript) and len(item.slice) == 1):
            return None
        at = item.value
        method = ctx.parent(item)
        call = ctx.parent(method)
        if isinstance(at, cst.Attribute) and at.attr.value == "at" and isinstance(at.value, cst.Name) \
                and isinstance(method, cst.Attribute) and method.attr.value in _AT_UPDATES \
                and isinstance(call, cst.Call) and call.func is method \
                and not any(a.keyword is not None and a.keyword.value == "mode" for a in call.args):
            updated.add(at.value.value)
            updates.append(call)
        else:
            gathers.append(item)
    if len(updated) != 1 or any(not any(_within(g, call, ctx) for call in updates) for g in gathers):
        return None
    mask = node.args[0].value  # type: ignore[union-attr]
    size = ctx.expr("{m}.size", m=mask if isinstance(mask, (cst.Name, cst.Attribute)) else
                    mask.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
    fill = ctx.expr(f"{next(iter(updated))}.shape[0]")
    eq = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    new = node.with_changes(args=[node.args[0].with_changes(comma=_COMMA),  # type: ignore[union-attr]
                                  cst.Arg(size, keyword=cst.Name("size"), equal=eq, comma=_COMMA),
                                  cst.Arg(fill, keyword=cst.Name("fill_value"), equal=eq)])
    edit = ctx.replace(node, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, "Pass `size=` and an out-of-range `fill_value=`: the positions keep a "
                   "fixed length, and the updates at the fill index are dropped", (edit,))


def _within(node: cst.CSTNode, call: cst.Call, ctx: FixContext) -> bool:
    """``node`` is inside one of ``call``'s arguments."""
    return any(a is call for a in ctx.ancestors(node))


@rewrites("JIT401")
def to_position_count(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT401: positions that are only counted -- ``len(jnp.argwhere(c))``, ``jnp.argwhere(c).shape[0]``,
    ``len(jnp.nonzero(c)[0])``, ``jnp.flatnonzero(c).size`` -- -> ``jnp.count_nonzero(c)``, also through a
    local name bound once to the positions, every read of it such a count in a later simple statement of
    the same block with nothing in between rebinding what ``c`` reads (the name's assignment then holds the
    count, under a new name).  UNSAFE: the count is a traced int where eager gave a Python int (not taken
    where it is used as a shape, a ``range()`` or slice bound or a test)."""
    q = ctx.index.qualify(node.func) if isinstance(node, cst.Call) else None
    if (q not in _POSITION_FUNCTIONS and q != "jax.numpy.unique") or len(node.args) != 1 \
            or node.args[0].keyword is not None or node.args[0].star \
            or ctx.enclosing_function(node) is None:  # type: ignore[union-attr]
        return None
    rows: cst.BaseExpression = node  # type: ignore[assignment]
    if q == "jax.numpy.nonzero":  # its first part: the positions along the first axis, one per element found
        parent = ctx.parent(node)
        if not isinstance(parent, cst.Subscript) or parent.value is not node or len(parent.slice) != 1 \
                or not isinstance(parent.slice[0].slice, cst.Index) or int_value(parent.slice[0].slice.value) != 0:
            return None
        rows = parent
    flat = q != "jax.numpy.argwhere"
    condition = node.args[0].value  # type: ignore[union-attr]
    spelled = _jnp(ctx)
    if spelled is None:
        return None
    jnp, imports = spelled
    count = ctx.expr(f"{jnp}.count_nonzero({{c}})", c=bare(condition))
    title = f"Count with `{jnp}.count_nonzero`: the number of positions, without their array"
    if q == "jax.numpy.unique":
        if not _is_pure_reference(bare(condition)):
            return None  # (written twice)
        # the distinct values: where the sorted values change, and the first one (none of an empty array)
        count = ctx.expr(f"{jnp}.count_nonzero({jnp}.diff({jnp}.sort({{x}}, axis=None)) != 0) + ({{x}}.size > 0)",
                         x=bare(condition))
        title = f"Count the distinct values where `{jnp}.sort` changes: their number, without their array"
    direct = _count_read(rows, ctx, flat)
    if direct is not None:
        new = count.with_changes(lpar=direct.lpar, rpar=direct.rpar)
        if isinstance(new, cst.BinaryOperation) and not direct.lpar and isinstance(
                ctx.parent(direct), (cst.BinaryOperation, cst.UnaryOperation, cst.Attribute, cst.Subscript)):
            new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])  # (`len(...) / n`)
        return _fix_of(ctx, False, title, direct, new, imports)
    held = _held_name(rows, condition, ctx)
    if held is None:
        return None
    assign, uses = held
    reads = [_count_read(use, ctx, flat) for use in uses]
    if not reads or any(read is None for read in reads):
        return None
    fn = ctx.enclosing_function(node)
    name = cst.Name(ctx.fresh_name(assign.targets[0].target.value + "_count", fn.node))  # type: ignore
    changes: Dict[cst.CSTNode, Replacement] = {assign: assign.with_changes(targets=[cst.AssignTarget(name)],
                                                                           value=count)}
    changes.update({read: name.with_changes(lpar=read.lpar, rpar=read.rpar) for read in reads})  # type: ignore
    edit = ctx.replace_many(changes)
    return None if edit is None else ctx.fix(Applicability.UNSAFE, title, (edit,) + imports)


@rewrites("JIT401")
def to_masked_position_reductions(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT401: ``ys, xs = jnp.nonzero(img > t)`` whose parts are read only by sums and means (``ys.mean()``,
    ``jnp.sum(xs)``) -> the coordinates of every element, ``ys, xs = jnp.indices(mask.shape)``, each sum
    taken where the mask holds (``jnp.where(mask, ys, 0).sum()``) and each mean divided by the mask's
    count: the same numbers, of fixed shape.  The mask is bound to a name first where it is not one.
    UNSAFE: an integer sum is of the default integer type; a mean of no position is ``nan`` either way."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) != "jax.numpy.nonzero" \
            or len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
        return None
    assign = ctx.parent(node)
    line = ctx.parent(assign) if isinstance(assign, cst.Assign) else None
    fn = ctx.enclosing_function(node)
    if fn is None or not isinstance(fn.node, cst.FunctionDef) or not isinstance(line, cst.SimpleStatementLine) \
            or len(line.body) != 1 or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, (cst.Tuple, cst.List)):
        return None
    parts = [el.value for el in assign.targets[0].target.elements]
    if not parts or not all(isinstance(p, cst.Name) and len(fn.scope.bindings_of(p.value)) == 1 for p in parts):
        return None
    mask = node.args[0].value
    reductions: Dict[cst.CSTNode, Tuple[str, str]] = {}
    for part in parts:
        uses = [n for n in name_references(fn.node.body, part.value) if n is not part]
        if not uses:
            return None
        for use in uses:
            found = _reduction_of(use, ctx)
            if found is None:
                return None
            reductions[found[0]] = (found[1], use.value)
    spelled = _jnp(ctx)
    if spelled is None:
        return None
    jnp, imports = spelled
    named = _is_pure_reference(mask)
    if named:
        root = chain_root(bare(mask))
        if root is None or len(fn.scope.bindings_of(root.value)) > 1 \
                or root.value not in fn.local_names and not isinstance(bare(mask), cst.Name):
            return None  # (rebound, or an attribute that may change, between the positions and their reads)
    mask_name = ctx.code(bare(mask)) if named else ctx.fresh_name("mask", fn.node)
    changes: Dict[cst.CSTNode, Replacement] = {}
    for whole, (how, name) in reductions.items():
        total = f"{jnp}.where({mask_name}, {name}, 0).sum()"
        text = total if how == "sum" else f"({total} / {mask_name}.sum())"
        changes[whole] = cst.parse_expression(text).with_changes(lpar=whole.lpar, rpar=whole.rpar)  # type: ignore
    positions = node.with_changes(func=cst.parse_expression(f"{jnp}.indices"),
                                  args=[cst.Arg(cst.parse_expression(f"{mask_name}.shape"))])
    new_line = line.with_changes(body=[assign.with_changes(value=positions)])
    if named:
        changes[line] = new_line
    else:
        bound = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(mask_name))], bare(mask))],
                                        leading_lines=line.leading_lines)
        changes[line] = cst.FlattenSentinel([bound, new_line.with_changes(leading_lines=[])])
    edit = ctx.replace_per_statement(changes)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Reduce over every position where `{mask_name}` holds "
                   f"(`{jnp}.indices`, `{jnp}.where`): the same sums and means, of fixed shape", tuple(edit) + imports)


def _reduction_of(use: cst.Name, ctx: FixContext) -> Optional[Tuple[cst.BaseExpression, str]]:
    """``use.sum()`` / ``use.mean()`` or ``jnp.sum(use)`` / ``jnp.mean(use)`` (no other argument): that
    call and ``"sum"`` or ``"mean"``."""
    parent = ctx.parent(use)
    if isinstance(parent, cst.Attribute) and parent.value is use and parent.attr.value in ("sum", "mean"):
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and call.func is parent and not call.args:
            return call, parent.attr.value
        return None
    call = ctx.parent(parent) if isinstance(parent, cst.Arg) else None
    if isinstance(call, cst.Call) and len(call.args) == 1 and parent.keyword is None and not parent.star \
            and ctx.index.qualify(call.func) in ("jax.numpy.sum", "jax.numpy.mean"):
        return call, ctx.index.qualify(call.func).rsplit(".", 1)[-1]  # type: ignore[union-attr]
    return None


#: membership tests whose second argument is a collection of values: only the set of its values matters
_MEMBERSHIP = frozenset({"jax.numpy.isin", "jax.numpy.in1d"})


@rewrites("JIT401")
def to_membership_values(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT401: ``jnp.unique(x)`` read only as the values a membership test checks against
    (``jnp.isin(catalog, jnp.unique(recommended))``, also through a local name bound once to it) ->
    ``x`` itself: ``isin`` asks whether each element is among the values, which repeated values do not
    change, and ``x`` has a fixed shape.  SAFE: the same answer for every input (not where the test is
    told ``assume_unique=True``)."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) != "jax.numpy.unique" or len(node.args) != 1 \
            or node.args[0].keyword is not None or node.args[0].star or ctx.enclosing_function(node) is None:
        return None
    values = node.args[0].value

    def tested_against(expr: cst.BaseExpression) -> bool:
        arg = ctx.parent(expr)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or ctx.index.qualify(call.func) not in _MEMBERSHIP \
                or any(a.keyword is not None and a.keyword.value == "assume_unique" or a.star for a in call.args):
            return False
        return arg.keyword is not None and arg.keyword.value == "test_elements" \
            or arg.keyword is None and call.args.index(arg) == 1

    if tested_against(node):
        return _fix_of(ctx, True, "Test against the values themselves: membership does not change with repeats",
                       node, bare(values).with_changes(lpar=node.lpar, rpar=node.rpar), ())
    held = _held_name(node, values, ctx)
    if held is None or not all(tested_against(use) for use in held[1]):
        return None
    assign = held[0]
    edit = ctx.replace(node, bare(values).with_changes(lpar=node.lpar, rpar=node.rpar))
    if edit is None:
        return None
    return ctx.fix(Applicability.SAFE, f"Bind `{ctx.code(assign.targets[0].target)}` to the values themselves: the "
                   "membership tests that read it do not change with repeats", (edit,))


def _held_name(value: cst.BaseExpression, reads: cst.BaseExpression, ctx: FixContext
               ) -> Optional[Tuple[cst.Assign, List[cst.Name]]]:
    """``name = value`` (one target, a simple statement, the name's one binding in its function) and
    the reads of ``name``, each in a later simple statement of the same block, with no statement from
    the assignment to the last read binding a name that ``reads`` reads (it means the same at every
    read; the last read's statement may bind it after reading)."""
    assign = ctx.parent(value)
    line = ctx.parent(assign) if isinstance(assign, cst.Assign) else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or len(assign.targets) != 1 \
            or not isinstance(assign.targets[0].target, cst.Name) or assign.value is not value:
        return None
    name = assign.targets[0].target.value
    fn = ctx.enclosing_function(value)
    if fn is None or not isinstance(fn.node, cst.FunctionDef) or name in ctx.index.declared_names \
            or len([b for b in fn.scope.bindings_of(name) if b.binds_value]) != 1:
        return None
    uses = [n for n in name_references(fn.node.body, name) if n is not assign.targets[0].target]
    block = ctx.block_of(line)
    if not uses or block is None:
        return None
    body = list(block[0].body)  # type: ignore[attr-defined]
    last = block[1]
    for use in uses:
        statement = next((a for a in ctx.ancestors(use) if ctx.parent(a) is block[0]), None)
        if not isinstance(statement, cst.SimpleStatementLine) or statement not in body \
                or body.index(statement) <= block[1]:
            return None  # (in a compound statement, or before: another path may reach the read)
        last = max(last, body.index(statement))
    names = {read.value for read in name_references(reads)}
    # (the last read's own statement binds after it reads, where it is one small statement: `x = x.at[idx]...`)
    end = last if len(body[last].body) == 1 else last + 1  # type: ignore[attr-defined]
    if any(names & names_bound_in(stmt) for stmt in body[block[1] + 1:end]):
        return None
    return assign, uses


def _leading_reads(expr: cst.BaseExpression, ctx: FixContext, tuple_parts: bool, depth: int = 0) -> List[int]:
    """The literal leading positions read from ``expr`` (a call of ``_POSITION_FUNCTIONS``, one of its
    parts, or a name bound to one); empty when any use is something else."""
    parent = ctx.parent(expr)
    if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1:
        target = parent.targets[0].target
        if isinstance(target, cst.Name):
            return _reads_of_name(target, ctx, tuple_parts, depth)
        if tuple_parts and isinstance(target, (cst.Tuple, cst.List)) and all(
                isinstance(el, cst.Element) and isinstance(el.value, cst.Name) for el in target.elements):
            found: List[int] = []
            for el in target.elements:
                reads = _reads_of_name(el.value, ctx, False, depth)  # type: ignore[arg-type]
                if not reads:
                    return []
                found += reads
            return found
        return []
    if not isinstance(parent, cst.Subscript) or parent.value is not expr or depth > 2:
        return []
    subscript = parent
    first = subscript.slice[0].slice
    k = int_value(first.value) if isinstance(first, cst.Index) else None
    if k is None or k < 0:
        return []
    if tuple_parts and len(subscript.slice) == 1:  # `jnp.nonzero(m)[0]`: the first axis's positions
        return _leading_reads(subscript, ctx, False, depth + 1)
    if len(subscript.slice) > 2 or any(not isinstance(el.slice, cst.Index) or int_value(el.slice.value) is None
                                       for el in subscript.slice[1:]):
        return []
    return [k]


def _reads_of_name(target: cst.Name, ctx: FixContext, tuple_parts: bool, depth: int) -> List[int]:
    """Every read of the local name ``target`` (bound only there, in the same function) is a literal
    leading position."""
    scope = ctx.enclosing_def(target)
    if scope is None or len(_store_positions(scope, target.value, ctx)) != 1:
        return []
    found: List[int] = []
    for ref in name_references(scope, target.value):
        if ref is target:
            continue
        if ctx.enclosing_def(ref) is not scope or ctx.facts.read_scope.get(ref) != "local":
            return []
        reads = _leading_reads(ref, ctx, tuple_parts, depth + 1)
        if not reads:
            return []
        found += reads
    return found


def _held_where(node: cst.CSTNode, ctx: FixContext
                ) -> Optional[Tuple[cst.Subscript, cst.BaseExpression, cst.SimpleStatementLine]]:
    """``idx = jnp.where(c)`` (one argument) whose name is used once, as the index of ``x[idx]``:
    that subscript, ``c``, and the assignment, which the rewrite removes.  The use is in a later
    simple statement of the same block, and no statement in between binds a name ``c`` reads, so ``c``
    means the same there (:func:`_held_name`)."""
    if not (isinstance(node, cst.Call) and ctx.index.qualify(node.func) == "jax.numpy.where" and len(node.args) == 1
            and node.args[0].keyword is None and not node.args[0].star):
        return None
    condition = node.args[0].value
    held = _held_name(node, condition, ctx)
    if held is None or len(held[1]) != 1:
        return None
    assign, (use,) = held
    index = ctx.parent(use)
    element = ctx.parent(index) if isinstance(index, cst.Index) else None
    subscript = ctx.parent(element) if isinstance(element, cst.SubscriptElement) else None
    if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1:
        return None
    return subscript, condition, ctx.parent(assign)  # type: ignore[return-value]


def _select(subscript: cst.Subscript, mask: cst.BaseExpression, ctx: FixContext) -> Optional[Fix]:
    parent = ctx.parent(subscript)
    target = subscript.value
    if isinstance(target, cst.Attribute) and target.attr.value == "at" and isinstance(parent, cst.Attribute):
        return _at_update(subscript, target.value, mask, ctx)
    if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.AugAssign) and parent.target is subscript):
        return _indexed_write(subscript, mask, ctx)
    return _masked_reduction(subscript, mask, ctx)


def _expr(ctx: FixContext, template: str, **holes: cst.BaseExpression) -> cst.BaseExpression:
    """``ctx.expr`` with only the holes ``template`` uses."""
    return ctx.expr(template, **{k: v for k, v in holes.items() if "{" + k + "}" in template})


def _jnp(ctx: FixContext) -> Optional[Tuple[str, Tuple[Edit, ...]]]:
    return ctx.import_name("jax.numpy")


def _fix_of(ctx: FixContext, safe: bool, title: str, old: cst.CSTNode, new: cst.CSTNode,
            imports: Tuple[Edit, ...]) -> Optional[Fix]:
    edit = ctx.replace(old, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.SAFE if safe else Applicability.UNSAFE, title, (edit,) + imports)


def _display_only(ctx: FixContext, subscript: cst.Subscript, base: cst.BaseExpression) -> Fix:
    """Advice only: the value written may be an array of the selected size, which cannot be placed."""
    return Fix(Applicability.DISPLAY_ONLY, f"If the value written is a number or has the shape of "
               f"`{ctx.code(bare(base))}`, write `{ctx.code(bare(subscript))}` as "
               f"`jnp.where(mask, value, {ctx.code(bare(base))})`; a value of the selected size has no fixed shape", ())


def _update(subscript: cst.Subscript, base: cst.BaseExpression, mask: cst.BaseExpression,
            written: cst.BaseExpression, template: str,
            ctx: FixContext) -> Union[None, Fix, Tuple[cst.BaseExpression, str, Tuple[Edit, ...]]]:
    """``jnp.where(mask, new, base)``, ``new`` from ``template`` (``{x}``: the array, ``{v}``: the value
    written), with the spelling of ``jax.numpy`` and the imports it needs; advice only when the value
    is not proven to fit, None when the mask is not."""
    fits = mask_fits(mask, base, ctx)
    if fits is None and not (_is_boolean(mask, ctx) and _is_pure_reference(base)):
        return None
    value = _written_value(written, mask, ctx) if fits is not None else (
        written if _is_scalar(written, ctx) else None)  # `y[m]` fits `x` only through a mask of its shape
    if value is None:
        return _display_only(ctx, subscript, base)
    spelled = _jnp(ctx)
    if spelled is None:
        return None
    jnp, imports = spelled
    if fits is None:  # over the leading axes: both reversed, so that the mask meets the axes it covers
        transposed = ctx.expr("{x}.T", x=_wrapped(base))
        new_value = _expr(ctx, template.format(x="{x}", v="{v}", jnp=jnp), x=transposed, v=value)
        return ctx.expr(f"{jnp}.where({{n}}.T, {{new}}, {{x}}).T", n=_wrapped(mask), new=new_value,
                        x=transposed), jnp, imports
    new_value = _expr(ctx, template.format(x="{x}", v="{v}", jnp=jnp), x=base, v=value)
    return ctx.expr(f"{jnp}.where({{m}}, {{new}}, {{x}})", m=mask, new=new_value, x=base), jnp, imports


def _indexed_write(subscript: cst.Subscript, mask: cst.BaseExpression, ctx: FixContext) -> Optional[Fix]:
    """``x[m] = v`` -> ``x = jnp.where(m, v, x)`` (and the augmented forms)."""
    statement = ctx.parent(subscript)
    if isinstance(statement, cst.AssignTarget):
        assign = ctx.parent(statement)
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        template = "{v}"
    else:
        assign = statement
        template = _AUGMENTED.get(type(assign.operator))  # type: ignore[union-attr]
        if template is None:
            return None
    base = subscript.value
    if not isinstance(base, cst.Name):
        return None
    update = _update(subscript, base, mask, assign.value, template, ctx)  # type: ignore[union-attr]
    if not isinstance(update, tuple):
        return update
    where, jnp, imports = update
    new = cst.Assign(targets=[cst.AssignTarget(cst.Name(base.value))], value=where)
    title = f"Use `{base.value} = {jnp}.where(...)`: it writes every element, the mask choosing which value"
    return _fix_of(ctx, False, title, assign, new, imports)  # type: ignore[arg-type]


def _at_update(subscript: cst.Subscript, base: cst.BaseExpression, mask: cst.BaseExpression,
               ctx: FixContext) -> Optional[Fix]:
    """``x.at[m].set(v)`` -> ``jnp.where(m, v, x)``; ``.add(v)`` -> ``jnp.where(m, x + v, x)``..."""
    method = ctx.parent(subscript)
    call = ctx.parent(method) if isinstance(method, cst.Attribute) else None
    if not isinstance(call, cst.Call) or call.func is not method:
        return None
    template = _AT_METHODS.get(method.attr.value)  # type: ignore[union-attr]
    if template is None or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
        return None  # `mode=`, `indices_are_sorted=`...: not a plain update
    if "{x}" in template and not _is_pure_reference(base):
        return None
    update = _update(subscript, base, mask, call.args[0].value, template, ctx)
    if not isinstance(update, tuple):
        return update
    where, jnp, imports = update
    where = where.with_changes(lpar=call.lpar, rpar=call.rpar)
    title = f"Use `{jnp}.where(mask, ..., {ctx.code(bare(base))})`: the same update, of fixed shape"
    return _fix_of(ctx, False, title, call, where, imports)


#: reductions of a selection -> what an element left out is replaced by (a format of ``jnp``, ``x``):
#: the reduction's identity, so that the elements left out change nothing; ``mean`` sums, then divides
_FILL = {"sum": "0", "mean": "0", "prod": "1", "any": "False", "all": "True"}
#: max / min by the kind of the array's dtype: the lowest / highest value it holds (a float or an
#: unknown dtype: infinity, which promotes an int array to float)
_EXTREME = {("max", "i"): "{jnp}.iinfo({x}.dtype).min", ("max", "u"): "0", ("max", "b"): "False",
            ("min", "i"): "{jnp}.iinfo({x}.dtype).max", ("min", "u"): "{jnp}.iinfo({x}.dtype).max",
            ("min", "b"): "True", ("max", None): "-{jnp}.inf", ("min", None): "{jnp}.inf"}
_REDUCTIONS = frozenset(_FILL) | {"max", "min", "std", "var"}
#: reductions JAX takes a ``where=`` mask for, where no fill value gives the same result
_WHERE_REDUCTIONS = frozenset({"std", "var"})
#: ``jax.numpy`` functions -> the reduction they make
_REDUCTION_FUNCTIONS = {**{f"jax.numpy.{r}": r for r in _REDUCTIONS}, "jax.numpy.amax": "max",
                        "jax.numpy.amin": "min", "jax.numpy.median": "median"}


def _reduction_call(subscript: cst.BaseExpression,
                    ctx: FixContext) -> Optional[Tuple[cst.Call, str, bool]]:
    """``x[m].sum()`` or ``jnp.sum(x[m])`` (``mean``, ``prod``, ``max``, ``min``, ``any``, ``all``), with
    no other argument than ``axis=0``: the call, its reduction, and whether it reduces over axis 0 only."""
    parent = ctx.parent(subscript)
    if isinstance(parent, cst.Attribute) and parent.value is subscript and parent.attr.value in _REDUCTIONS:
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and call.func is parent:
            axis = _axis_zero(call.args, 0, ctx)
            return None if axis is None else (call, parent.attr.value, axis)
        return None
    if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and call.args[0] is parent:
            reduction = _REDUCTION_FUNCTIONS.get(ctx.index.qualify(call.func) or "")
            if reduction is not None:
                axis = _axis_zero(call.args[1:], 1, ctx)
                return None if axis is None else (call, reduction, axis)
    return None


def _through_elementwise(use: cst.BaseExpression, ctx: FixContext) -> cst.BaseExpression:
    """The largest expression around ``use`` made of element-wise operations on it and numbers or single
    values (``sel ** 2``; ``jnp.abs(sel - sel.mean())`` is not: its other operand reads ``sel``): where
    ``use`` is a selection, that expression is the same work on the selected elements.  A traced operand
    that reads neither the selection nor what it selects from (``tmean[m] - base_c``) counts as a single
    value too: it meets a selection whose length the data decides, which only a single value broadcasts
    against whatever that length is."""
    current: cst.BaseExpression = use
    selected = {n.value for n in name_references(use.value if isinstance(use, cst.Subscript) else use)}
    for _ in range(8):
        parent = ctx.parent(current)
        if isinstance(parent, cst.BinaryOperation) and not isinstance(parent.operator, cst.MatrixMultiply):
            other = parent.right if parent.left is current else parent.left
            if not _is_scalar(other, ctx) and not _broadcast_operand(other, selected, ctx):
                break
            current = parent
        elif isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, (cst.Minus, cst.Plus)):
            current = parent
        elif isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
            call = ctx.parent(parent)
            if not isinstance(call, cst.Call) or ctx.index.qualify(call.func) not in _ELEMENTWISE \
                    or any(a is not parent and not _is_scalar(a.value, ctx) for a in call.args):
                break
            current = call
        else:
            break
    return current


def _broadcast_operand(other: cst.BaseExpression, selected: Set[str], ctx: FixContext) -> bool:
    """A traced value that is not a container and reads none of ``selected`` (see
    :func:`_through_elementwise`)."""
    value = ctx.facts.value(other)
    return value.kind is Kind.TRACED and not value.container and not value.mapping and value.items is None \
        and not ({n.value for n in name_references(other)} & selected)


def _count_read(subscript: cst.BaseExpression, ctx: FixContext, flat: bool = False) -> Optional[cst.BaseExpression]:
    """``len(x[m])`` or ``x[m].shape[0]`` -- how many rows are selected; with ``flat`` (a vector), also
    ``.size`` -- where a traced count serves as well (not a shape, a ``range()`` bound, a slice bound, an
    ``if`` test): the expression."""
    from jitlint.fixes.static_args import is_static_use

    parent = ctx.parent(subscript)
    if flat and isinstance(parent, cst.Attribute) and parent.value is subscript and parent.attr.value == "size":
        return None if is_static_use(parent, ctx) else parent  # type: ignore[arg-type]
    read: Optional[cst.BaseExpression] = None
    if isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star:
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and len(call.args) == 1 and isinstance(call.func, cst.Name) \
                and call.func.value == "len" and ctx.facts.read_scope.get(call.func) == "builtin":
            read = call
    elif isinstance(parent, cst.Attribute) and parent.value is subscript and parent.attr.value == "shape":
        item = ctx.parent(parent)
        if isinstance(item, cst.Subscript) and item.value is parent and len(item.slice) == 1 \
                and isinstance(item.slice[0].slice, cst.Index) and int_value(item.slice[0].slice.value) == 0:
            read = item
    if read is None or is_static_use(read, ctx):  # type: ignore[arg-type]
        return None
    return read


def _reduced(call: cst.Call, reduction: str, axis_zero: bool, mask: cst.BaseExpression,
             base: cst.BaseExpression, fits: Optional[bool], ctx: FixContext
             ) -> Optional[Tuple[cst.BaseExpression, str, bool, Tuple[Edit, ...]]]:
    """What stands for the reduction ``call`` of ``base[mask]``: the expression, the fix's title, whether it
    is certainly the same value (a sum, product, ``any`` or ``all`` over a mask written in place), and the
    imports it needs."""
    if reduction in _WHERE_REDUCTIONS:
        # (the spread of the selected elements: JAX's reduction over the elements `where` keeps)
        if axis_zero:
            return None
        template = "{x}.%s(where={m})" % reduction if fits is not None else "{x}.T.%s(where={n}.T)" % reduction
        new = _expr(ctx, template, m=mask, x=_wrapped(base), n=_wrapped(mask)).with_changes(
            lpar=call.lpar, rpar=call.rpar)
        return new, f"`{reduction}` with `where=mask`: over the selected elements only", False, ()
    spelled = _jnp(ctx)
    if spelled is None:
        return None
    jnp, imports = spelled
    if reduction == "median":
        # the elements left out as NaN, which `nanmedian` skips: the median of those selected (a NaN the
        # data holds itself is skipped too, where `median` gave NaN)
        if axis_zero:
            return None
        template = f"{jnp}.nanmedian({jnp}.where({{m}}, {{x}}, {jnp}.nan))" if fits is not None else \
            f"{jnp}.nanmedian({jnp}.where({{n}}.T, {{x}}.T, {jnp}.nan))"
        new = _expr(ctx, template, m=mask, x=_wrapped(base), n=_wrapped(mask)).with_changes(
            lpar=call.lpar, rpar=call.rpar)
        return new, f"`nanmedian` over `{jnp}.where(mask, x, {jnp}.nan)`: the median of the selected elements", \
            False, imports
    fill = _FILL.get(reduction)
    if fill is None:
        kind = ctx.facts.value(bare(base)).dtype_kind
        fill = _EXTREME.get((reduction, kind if kind in ("i", "u", "b") else None))
        if fill is None or ("{x}" in fill and not _is_pure_reference(bare(base))):
            return None  # (the fill reads the array again)
    op = "sum" if reduction == "mean" else reduction
    fill = fill.replace("{jnp}", jnp)
    if fits is not None:
        where = f"{jnp}.where({{m}}, {{x}}, {fill}).{op}()"
    elif axis_zero:
        where = f"{jnp}.where({{n}}.T, {{x}}.T, {fill}).T.{op}(axis=tuple(range({{n}}.ndim)))"
    else:
        where = f"{jnp}.where({{n}}.T, {{x}}.T, {fill}).{op}()"
    if reduction == "mean":
        where += " / {n}.sum()"
    new = _expr(ctx, where, m=mask, x=_wrapped(base), n=_wrapped(mask))
    new = new.with_changes(lpar=call.lpar, rpar=call.rpar)
    if reduction == "mean" and _needs_parentheses(call, ctx) and not call.lpar:
        new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if reduction in ("sum", "mean"):
        title = f"Sum with `{jnp}.where(mask, x, 0)`: zeros in place of the elements left out" + (
            ", divided by the number selected" if reduction == "mean" else "")
    else:
        title = f"`{op}` over `{jnp}.where(mask, x, {fill})`: the elements left out cannot change it"
    exact = fits is True and reduction in ("sum", "prod", "any", "all")
    return new, title, exact, imports


def _axis_zero(args, first: int, ctx: FixContext) -> Optional[bool]:
    """No arguments (False), or only the axis, 0 (True); else None.  ``first``: the position of the
    axis among the call's positional arguments (0 for a method, 1 for ``jnp.sum``)."""
    if not args:
        return False
    if len(args) != 1 or args[0].star or (args[0].keyword is not None and args[0].keyword.value != "axis"):
        return None
    return True if literal_value(args[0].value) == 0 and literal_value(args[0].value) is not False else None


def _wrapped(mask: cst.BaseExpression) -> cst.BaseExpression:
    """``mask`` ready for ``.attr``: in parentheses unless it is a name or an attribute."""
    inner = bare(mask)
    if _is_pure_reference(inner) or isinstance(inner, (cst.Call, cst.Subscript)):
        return inner
    return inner.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _masked_reduction(subscript: cst.Subscript, mask: cst.BaseExpression, ctx: FixContext) -> Optional[Fix]:
    """``x[m].sum()`` -> ``jnp.where(m, x, 0).sum()``; ``x[m].mean()`` -> ``... .sum() / m.sum()``;
    ``prod``, ``any``, ``all``, ``max`` and ``min`` with their identities in place of the elements left
    out; ``len(x[m])`` -> ``m.sum()``.  Also ``sel = x[m]`` where every read of ``sel`` is one of those
    (:func:`_held_selection`).

    A mask of ``x``'s shape selects a vector, whose axis 0 is all of it; a boolean mask of unknown
    rank covers the leading axes of ``x``, and ``axis=0`` of the selection is all of those."""
    base = subscript.value
    fits = mask_fits(mask, base, ctx)
    if fits is None and not (_is_boolean(mask, ctx) and _is_pure_reference(base)):
        return None
    found = _reduction_call(subscript, ctx)
    if found is None:
        return _held_selection(subscript, mask, fits, ctx)
    call, reduction, axis_zero = found
    made = _reduced(call, reduction, axis_zero, mask, base, fits, ctx)
    if made is None:
        return None
    new, title, exact, imports = made
    return _fix_of(ctx, exact, title, call, new, imports)


def _held_selection(subscript: cst.Subscript, mask: cst.BaseExpression, fits: Optional[bool],
                    ctx: FixContext, rows: bool = False) -> Optional[Fix]:
    """``sel = x[m]`` (a name bound once in the function, by this simple statement) whose every read is a
    reduction (``sel.sum()``, ``jnp.max(sel)``, ...) or its count (``len(sel)``, ``sel.shape[0]``), in
    later simple statements of the same block, none of the statements from the assignment to the last
    read binding a name that ``x`` or ``m`` reads: each read gets its masked form, and the assignment
    goes.  UNSAFE: the reads happen later than the selection did (the same values, proven by the
    bindings), and a count becomes a traced int."""
    # `sel = x[m]`, or the selection under element-wise work (`excess = tmean[m] - base_c`): the same work on
    # the whole array (`tmean - base_c`), reduced under the mask, gives what reducing the held value gave
    top = _through_elementwise(subscript, ctx)
    held_name = _held_name(top, top, ctx)
    if held_name is None:
        return None
    assign, uses = held_name
    name = assign.targets[0].target.value  # type: ignore[attr-defined]
    fn = ctx.enclosing_function(subscript)
    base = subscript.value if top is subscript else top.deep_replace(subscript, subscript.value)
    if top is not subscript and fits is None and not _is_pure_reference(bare(subscript.value)):
        return None
    held = None  # the mask written once, in a name, where the reads would write it several times
    first = _reduction_call(_through_elementwise(uses[0], ctx), ctx)
    if not _is_pure_reference(bare(mask)) and (len(uses) > 1 or first is None or first[1] == "mean"):
        held = cst.Name(ctx.fresh_name(name + "_mask", fn.node))  # type: ignore[union-attr]
    written = held if held is not None else mask
    replaced: List[Tuple[cst.CSTNode, cst.BaseExpression]] = []
    imports: Tuple[Edit, ...] = ()
    for use in uses:
        reduced = _through_elementwise(use, ctx)
        found = _reduction_call(reduced, ctx)
        if rows and (found is None or found[2]):
            return None  # (rows kept whole: a count or a reduction along axis 0 is not the mask's)
        if found is not None:
            # (`jnp.mean(sel ** 2)`: the same element-wise work on the whole array, reduced under the mask)
            whole = base if reduced is use else reduced.deep_replace(use, base)
            if reduced is not use and fits is None and not _is_pure_reference(bare(base)):
                return None
            made = _reduced(found[0], found[1], found[2], written, whole, fits, ctx)
            if made is None:
                return None
            replaced.append((found[0], made[0]))
            imports = made[3]
            continue
        count = _count_read(use, ctx, flat=fits is not None)
        if count is None:
            return None
        replaced.append((count, _expr(ctx, "{n}.sum()", n=_wrapped(written)).with_changes(
            lpar=count.lpar, rpar=count.rpar)))  # type: ignore[attr-defined]
    changes: Dict[cst.CSTNode, Replacement] = dict(replaced)
    if held is not None:
        changes[assign] = assign.with_changes(targets=[cst.AssignTarget(held)], value=bare(mask))
    else:
        changes[ctx.parent(assign)] = cst.RemovalSentinel.REMOVE  # type: ignore[index]
    edit = ctx.replace_many(changes)  # (one edit: the lines it writes are wrapped together)
    if edit is None:
        return None
    title = f"Reduce `{ctx.code(bare(base))}` under the mask where `{name}` is read: the selection goes"
    return ctx.fix(Applicability.UNSAFE, title, (edit,) + imports)


def _needs_parentheses(call: cst.Call, ctx: FixContext) -> bool:
    """A division put where ``call`` stands would bind differently (``2 ** x.mean()``, ``-x.mean()``,
    ``y / x.mean()``, ``x.mean().item()``)."""
    parent = ctx.parent(call)
    return isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Attribute, cst.Subscript,
                               cst.Call)) and not (isinstance(parent, cst.Call) and parent.func is not call)


# ------------------------------------------------------------------ JIT402


def _slice_of(node: cst.CSTNode) -> Optional[Tuple[cst.BaseExpression, Optional[cst.BaseExpression],
                                                   Optional[cst.BaseExpression]]]:
    """``x[j:k]`` on the first axis, no step: (x, j, k)."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1:
        return None
    part = node.slice[0].slice
    if not isinstance(part, cst.Slice) or part.step is not None:
        return None
    return node.value, part.lower, part.upper


def _bounded_rows(node: cst.CSTNode) -> Optional[Tuple[cst.BaseExpression, Optional[cst.BaseExpression],
                                                       Optional[cst.BaseExpression]]]:
    """``x[j:k]`` of a name ``x``, with a bound: (x, j, k)."""
    sliced = _slice_of(node)
    if sliced is None or not _is_pure_reference(sliced[0]) or (sliced[1] is None and sliced[2] is None):
        return None
    return sliced


@rewrites("JIT402")
def to_masked_slice_sum(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT402: ``x[:k].sum()`` -> ``jnp.where(jnp.arange(x.shape[0]) < k, x, 0).sum()``."""
    sliced = _bounded_rows(node)
    if sliced is None:
        return None
    base, lower, upper = sliced
    found = _reduction_call(node, ctx)  # type: ignore[arg-type]
    if found is None or found[1] != "sum":
        return None
    call, _, axis_zero = found
    spelled = _jnp(ctx)
    if spelled is None:
        return None
    jnp, imports = spelled
    places = f"{jnp}.indices({ctx.code(bare(base))}.shape)[0]"  # the position along axis 0, in x's shape
    tests = []
    if lower is not None:
        tests.append(("{j} <= {i}" if upper is not None else "{i} >= {j}"))
    if upper is not None:
        tests.append("{i} < {k}")
    holes: Dict[str, cst.BaseExpression] = {"x": base}
    if lower is not None:
        holes["j"] = lower
    if upper is not None:
        holes["k"] = upper
    mask_text = f"({tests[0]}) & ({tests[1]})" if len(tests) == 2 else tests[0]
    mask_text = mask_text.replace("{i}", places)
    axes = "axis=0" if axis_zero else ""
    new = ctx.expr(f"{jnp}.where({mask_text}, {{x}}, 0).sum({axes})", **holes)
    new = new.with_changes(lpar=call.lpar, rpar=call.rpar)
    bound = " and ".join(ctx.code(b) for b in (lower, upper) if b is not None)
    title = f"Sum under a mask of positions (`{bound}` traced): the shape stays fixed"
    edit = ctx.replace(call, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, title, (edit,) + imports)


@rewrites("JIT402")
def to_masked_rows_reductions(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT402: the rows ``x[j:k]`` (a traced bound) read only by reductions over all their elements --
    ``x[:k].mean()``, ``jnp.max(jnp.abs(x[:k]))``, or a name bound once to them (or to element-wise work on
    them) whose every read is one (``valid = rec[:length]``, then ``jnp.mean(valid)``,
    ``jnp.sqrt(jnp.mean(valid ** 2))``) -> the same reductions of the whole array under the mask of those rows,
    ``jnp.indices(x.shape)[0] < k``: the rows left out get the reduction's identity, a mean divides by the
    number of elements kept.  Not for a count of the rows or a reduction along an axis (the mask covers every
    element, the slice keeps rows whole).  UNSAFE: a slice of no row gives the identity (a mean: nan) where
    ``max`` of it raised, and a bound past the end or negative reads differently (a slice clips it or counts
    from the end)."""
    sliced = _bounded_rows(node)
    if sliced is None:
        return None
    base, lower, upper = sliced
    direct = _reduction_call(_through_elementwise(node, ctx), ctx)  # type: ignore[arg-type]
    if direct is not None and (direct[1] == "sum" or direct[2]):
        return None  # (a sum of the rows: to_masked_slice_sum)
    spelled = _jnp(ctx)
    if spelled is None:
        return None
    jnp, imports = spelled
    places = f"{jnp}.indices({ctx.code(bare(base))}.shape)[0]"
    tests = []
    holes: Dict[str, cst.BaseExpression] = {}
    if lower is not None:
        tests.append(f"({{j}} <= {places})" if upper is not None else f"{places} >= {{j}}")
        holes["j"] = lower
    if upper is not None:
        tests.append(f"({places} < {{k}})" if lower is not None else f"{places} < {{k}}")
        holes["k"] = upper
    mask = ctx.expr(" & ".join(tests), **holes)
    if direct is not None:
        call, reduction, _ = direct
        top = _through_elementwise(node, ctx)  # type: ignore[arg-type]
        whole = base if top is node else top.deep_replace(node, base)
        if reduction == "mean":
            # (the mask written once: `jnp.mean(x, where=m)` averages the elements it keeps)
            new = _expr(ctx, f"{jnp}.mean({{x}}, where={{m}})", x=whole, m=mask).with_changes(
                lpar=call.lpar, rpar=call.rpar)
            edit = ctx.replace(call, new)
            return ctx.fix(Applicability.UNSAFE, f"`{jnp}.mean` with `where=` the mask of the rows: the mean of "
                           "those kept, of fixed shape", (edit,) + tuple(imports)) if edit else None
        made = _reduced(call, reduction, False, mask, whole, True, ctx)
        if made is None:
            return None
        new, title, _, more = made
        edit = ctx.replace(call, new)
        return ctx.fix(Applicability.UNSAFE, title, (edit,) + tuple(more) + tuple(imports)) if edit else None
    fix = _held_selection(node, mask, True, ctx, rows=True)  # type: ignore[arg-type]
    if fix is None:
        return None
    return ctx.fix(Applicability.UNSAFE, fix.title, tuple(fix.edits) + tuple(imports))


@rewrites("JIT402")
def to_dynamic_window(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT402: a slice of fixed width at a traced place -- ``x[:, s - p:s + q]``, ``x[s:s + w]``,
    ``x[s - p:s]``, the width (``p + q``, ``w``, ``p``) static -> ``lax.dynamic_slice_in_dim(x, s - p,
    p + q, axis=1)``: the shape is the width, known when tracing; the place is read at run time.
    Every other index of the subscript a full ``:`` (the axis is the slice's position), no step.

    UNSAFE: where the window runs past an end, Python's slice is shorter (or, from a negative start,
    counts from the end), while ``dynamic_slice`` moves the window inside the array; a width that
    is negative gave an empty slice and now fails."""
    if not isinstance(node, cst.Subscript) or not node.slice:
        return None
    axis = None
    for i, element in enumerate(node.slice):
        part = element.slice
        if not isinstance(part, cst.Slice) or part.step is not None:
            return None
        if part.lower is None and part.upper is None:
            continue
        if axis is not None:
            return None  # (two bounded slices: one window per call is all this writes)
        axis = i
    if axis is None:
        return None
    part = node.slice[axis].slice
    assert isinstance(part, cst.Slice)
    lower, upper = part.lower, part.upper
    if lower is None or upper is None or ctx.facts.value(lower).kind is not Kind.TRACED:
        return None
    width = _window_width(lower, upper, ctx)
    if width is None or not _is_pure_reference(node.value):
        return None
    spelled = ctx.import_name("jax.lax")
    if spelled is None:
        return None
    lax, imports = spelled
    args = "{x}, {start}, {width}" + (f", axis={axis}" if axis else "")
    new = ctx.expr(f"{lax}.dynamic_slice_in_dim({args})", x=bare(node.value), start=bare(lower), width=width)
    edit = ctx.replace(node, new.with_changes(lpar=node.lpar, rpar=node.rpar))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Take a window of static width `{ctx.code(width)}` at a traced place: "
                   f"`{lax}.dynamic_slice_in_dim`", (edit,) + imports)


def _window_width(lower: cst.BaseExpression, upper: cst.BaseExpression,
                  ctx: FixContext) -> Optional[cst.BaseExpression]:
    """``upper - lower`` when it is a static expression that does not read the traced place:
    ``s:s + w`` -> ``w``; ``s - p:s + q`` -> ``p + q``; ``s - p:s`` -> ``p``."""
    def split(e: cst.BaseExpression) -> Tuple[str, Optional[cst.BaseExpression], int]:
        """(the place's code, the offset, its sign) of ``s + w`` / ``s - p`` / ``s``."""
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, (cst.Add, cst.Subtract)) \
                and ctx.facts.value(e.right).kind is Kind.STATIC:
            return ctx.code(bare(e.left)), e.right, 1 if isinstance(e.operator, cst.Add) else -1
        return ctx.code(bare(e)), None, 0

    low_place, low_offset, low_sign = split(lower)
    up_place, up_offset, up_sign = split(upper)
    if low_place != up_place:
        return None
    if low_sign >= 0 and up_sign > 0 and low_offset is None:
        return up_offset  # s:s + w
    if low_sign < 0 and up_sign > 0:
        return ctx.expr("{p} + {q}", p=_paren(low_offset), q=_paren(up_offset))  # s - p:s + q
    if low_sign < 0 and up_offset is None:
        return low_offset  # s - p:s
    return None


def _paren(e: Optional[cst.BaseExpression]) -> cst.BaseExpression:
    assert e is not None
    if isinstance(e, (cst.BinaryOperation, cst.BooleanOperation, cst.IfExp, cst.Lambda)) and not e.lpar:
        return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return e


@static_alternative("JIT402", first=False)
def to_static_size(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT402: a traced size or slice bound that is a parameter used only where a static value is
    needed -> ``static_argnames`` (the JIT201/JIT202 builder, on the argument that is traced)."""
    from jitlint.fixes.static_args import static_parameters_fix

    candidates: List[cst.CSTNode] = []
    if isinstance(node, cst.Subscript):
        for element in node.slice:
            if isinstance(element.slice, cst.Slice):
                candidates += [b for b in (element.slice.lower, element.slice.upper, element.slice.step)
                               if b is not None]
    elif isinstance(node, cst.Call):
        slots = jax_api.SHAPE_ARGUMENTS.get(ctx.index.qualify(node.func) or "")
        if slots:  # `jnp.linspace(0.0, length, n)`: only `n` is a size; `length` is traced data
            found = [call_argument(node, position, keyword) for position, keyword in slots]
            candidates += [a.value for a in found if a is not None]
        else:
            candidates += [a.value for a in node.args]
    traced = [c for c in candidates if ctx.facts.value(c).kind is Kind.TRACED]
    if any(_reads_traced_data(c, ctx) for c in traced):
        # (`jnp.arange(0.0, energies.max() + w, w)`: a bound the data decides stays traced whatever
        # parameter is made static)
        return None
    for candidate in traced:
        fix = static_parameters_fix(candidate, ctx, through_locals=True) or _static_in_callers(candidate, ctx)
        if fix is not None:
            return fix
    return None


def _reads_traced_data(size: cst.CSTNode, ctx: FixContext) -> bool:
    """``size`` computes from array data: a call, an attribute or an item of a traced value
    (``energies.max()``, ``jnp.sum(mask)``, ``lengths[i]``) -- not a name or arithmetic on names."""
    stack: List[cst.CSTNode] = [size]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Call, cst.Attribute, cst.Subscript)) and ctx.facts.value(n).kind is Kind.TRACED:
            return True
        if isinstance(n, (cst.Lambda, cst.FunctionDef)):
            continue
        stack.extend(iter_children(n))
    return False


def _static_in_callers(size: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """A size in a helper that is not jitted itself, computed from its parameters: each call of the
    helper in the module passes there a parameter of a jitted function, which is made static there.

    Every call must be such a call (the helper is referenced nowhere else: not passed to a
    transform, not exported through ``__all__`` -- a caller outside the module would not know),
    the parameters are not rebound, not used as arrays (indexed, an attribute or method), and
    none counts steps."""
    from jitlint.fixes.static_args import counter_like, traced_parameters, static_argnames_fix

    helper = ctx.enclosing_function(size)
    if helper is None or not isinstance(helper.node, cst.FunctionDef) or helper.parent is not None \
            or helper.cls is not None or any(e.function is helper for e in ctx.index.entries):
        return None
    names = traced_parameters(size, helper, ctx)
    if not names or any(counter_like(n) or not _plain_parameter(helper, n, ctx) for n in names):
        return None
    if "__all__" in ctx.index.globals:
        return None
    if any(kind not in ("positional", "kwonly") for _, kind in helper.params):
        return None
    positions = [p.name.value for p, kind in helper.params if kind == "positional"]
    wanted: Dict[object, List[str]] = {}
    owners = {}
    calls = calls_by_name(helper, ctx)
    if calls is None or any(a.star for call in calls for a in call.args):
        return None  # passed elsewhere, or arguments whose positions cannot be told
    for call in calls:
        if ctx.facts.read_scope.get(call.func) != "global":
            return None
        for name in names:
            position = positions.index(name) if name in positions else None
            found = call_argument(call, position, name)
            arg = None if found is None else found.value
            caller = ctx.enclosing_function(call)
            if arg is None or caller is None or not isinstance(arg, cst.Name) \
                    or ctx.facts.read_scope.get(arg) != "local" \
                    or arg.value not in [p.name.value for p, _ in caller.params] \
                    or counter_like(arg.value) or not _plain_parameter(caller, arg.value, ctx):
                return None
            owners[id(caller)] = caller
            found = wanted.setdefault(id(caller), [])
            if arg.value not in found:
                found.append(arg.value)
    if not wanted:
        return None
    edits: List[Edit] = []
    for key, chosen in wanted.items():
        caller = owners[key]
        order = [p.name.value for p, _ in caller.params]
        fix = static_argnames_fix(caller, sorted(chosen, key=order.index), ctx)
        if fix is None:
            return None
        edits.extend(fix.edits)
    shown = ", ".join(f"`{n}`" for key in wanted for n in wanted[key])
    return ctx.fix(Applicability.UNSAFE, f"Mark {shown} static (`static_argnames`) where `{helper.name}` is "
                   f"called: its `{', '.join(names)}` is a size; compiles once per value", edits)


def _plain_parameter(fn, name: str, ctx: FixContext) -> bool:
    """Parameter ``name`` of ``fn`` is never rebound and never used as an array (indexed, an
    attribute or a method of it read)."""
    scope = fn.node
    if len(_store_positions(scope, name, ctx)) != 1:  # the parameter itself
        return False
    for ref in name_references(scope.body, name):
        parent = ctx.parent(ref)
        if isinstance(parent, (cst.Subscript, cst.Attribute)) and parent.value is ref:
            return False
    return True


__all__ = ["mask_fits", "to_masked_select", "to_masked_slice_sum", "to_static_size"]
