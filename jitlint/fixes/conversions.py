"""Fixes for JIT301: ``int(x)`` / ``float(x)`` / ``x.item()`` of a traced value that only feeds
array arithmetic -> the same value kept as a 0-d array.

* ``int(x)`` -> ``jnp.asarray(x, dtype=int)``: the conversion truncates toward zero, as ``int()``
  does, for finite values in the range of the integer dtype;
* ``float(x)`` -> ``jnp.asarray(x, dtype=float)``;
* ``x.item()`` -> ``jnp.reshape(x, ())``: the one element, in ``x``'s own dtype;
* ``bool(x)`` -> ``jnp.asarray(x, dtype=bool)``, only where the value is returned (below) or is the
  condition of ``jnp.where``.

``int`` and ``float`` as dtypes are JAX's default integer and float types: int32 and float32
unless x64 is enabled, int64 and float64 when it is (no warning either way, unlike
``jnp.float64``).  ``jnp.asarray`` takes a Python number as well as an array, so a helper also
called with plain numbers keeps working.

Precondition, proven from the code or no fix is offered: the Python number the conversion makes
is used only where an array serves the same purpose.  Followed from the conversion upwards, while
the original value is still a Python number, it may

* be an operand of ``+ - * / // %`` (``**`` for a float) with a number literal, a constant the
  analysis knows to be a number, a size (``x.shape[i]``, ``x.ndim`` of a traced ``x``, ``len(...)``),
  another such conversion, or a traced array -- with an array the original result is an array
  already, and the rest of the code sees what it saw;
* be negated (``-``, ``+``);
* be a positional operand of an element-wise ``jax.numpy`` function (``jnp.maximum``,
  ``jnp.where``, ``jnp.clip`` and its ``min=`` / ``max=``), the value of ``jnp.asarray`` /
  ``jnp.array``, or an element of the list or tuple given to ``jnp.array`` / ``jnp.stack``;
* be returned (alone, or in a returned tuple, list or dict display, nested or not) by a function
  every call of which goes through ``jax.jit`` -- jitted where it is defined (``@jax.jit``), or a
  private module-level function whose name is read only to make jit wrappers (``step_jit =
  jax.jit(_step)``):
  outside, every result of ``jax.jit`` is an array anyway; or by a module-level helper whose name the
  module reads only to call it from traced code, each call's result used as above (``return
  ent.mean().item()`` in a helper whose result a jitted function returns): its result only ever
  reaches a trace, where the number could not be made and is not needed;
* be a bound of ``lax.fori_loop`` (``lax.fori_loop(0, int(t / dt), body, init)``), which takes a traced
  trip count (it then runs as a ``lax.while_loop``: the same iterations, not reverse-differentiable);
* for an ``int``, be the whole index of a JAX array (``table[int(jnp.argmax(q))]``, the table
  traced): a 0-d integer array selects the same element (a negative position counts from the end,
  one past the end is clamped, in both);
* be one side of an order or equality test with a number or a traced array, whose flag is only an
  operand of ``+ - *`` with a Python number (``ORDER_COST * (units > 0)``) or used where a bool is above
  (the condition of ``jnp.where``, returned): a 0-d bool array does the same there;
* be bound to a local name, bound nowhere else in the function, whose every read (none of them in
  a nested function, lambda or comprehension) is one of these uses.

Anything else -- a comparison whose flag is used otherwise, an ``if``, ``range``, a shape, an index of a
list, a string, a dict key, an argument of any other call, a ``return`` from a function that is not
jitted where it is defined -- may need the Python number, and the conversion is left as it is.

Safety: always UNSAFE.  The original never ran under ``jax.jit`` (the conversion raises
``ConcretizationTypeError`` there), so the fix is measured against eager execution, where it
differs: the result is a strongly typed int32 / float32 array where the Python number was weakly
typed (``h * float(x)`` stays float16 for a float16 ``h``, ``h * jnp.asarray(x, dtype=float)`` is
float32; ``i8 + int(x)`` stays int8); arithmetic that Python did in float64 or in unbounded
integers is done in float32 / int32 (an integer past 2**31 wraps, one past 2**24 is rounded in
float32); ``int(nan)`` and ``int(inf)`` raise where the conversion gives 0 and the largest int32;
an int32 beyond 2**24 converted with ``float()`` is rounded in float32.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis.discovery import init_fields
from jitlint.analysis.syntax import key_parts, name_references
from jitlint.analysis.scopes import BindingKind
from jitlint.analysis.values import NO_CONSTANT, Kind
from jitlint.diagnostics import Applicability, Fix
from jitlint.fixes.common import literal_value
from jitlint.fixes.context import FixContext
from jitlint.fixes.registry import rewrites
from jitlint.fixes.templates import Replacement

#: ``jax.numpy`` functions whose positional arguments (all of them, or the first n) are array
#: operands, and their keyword arguments that are
_ARRAY_OPERANDS = {("jax.numpy." + n): (None, ()) for n in (
    "abs", "absolute", "negative", "positive", "sign", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10",
    "sqrt", "cbrt", "square", "reciprocal", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin", "arccos",
    "arctan", "arctan2", "floor", "ceil", "trunc", "maximum", "minimum", "fmax", "fmin", "add", "subtract",
    "multiply", "divide", "true_divide", "floor_divide", "power", "mod", "remainder", "hypot", "logaddexp",
    "where", "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint32")}
_ARRAY_OPERANDS.update({
    "jax.numpy.clip": (None, ("min", "max")),
    "jax.numpy.asarray": (1, ()),
    "jax.numpy.array": (1, ()),
    # a traced trip count: fori_loop then runs as a while_loop, the same iterations
    "jax.lax.fori_loop": (2, ("lower", "upper")),
})
#: functions whose first argument may be a list or tuple of array operands
_SEQUENCE_OF_OPERANDS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "jax.numpy.stack"})

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo)
_COMPILING = frozenset({"jax.jit", "jax.pjit", "jax.experimental.pjit.pjit", "flax.nnx.jit", "flax.linen.jit",
                        "equinox.filter_jit"})
_NESTED_SCOPES = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp, cst.Lambda)

#: how far a value is followed through names (``a = int(x)``; ``b = a * 2``; ...)
_DEPTH = 4


def _converted(call: cst.Call, ctx: FixContext) -> Optional[Tuple[str, cst.BaseExpression]]:
    """``("int" | "float" | "bool" | "item", x)`` for ``int(x)``, ``float(x)``, ``bool(x)``, ``x.item()``."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in ("int", "float", "bool"):
        if ctx.facts.read_scope.get(func) != "builtin" or len(call.args) != 1:
            return None
        arg = call.args[0]
        if arg.keyword is not None or arg.star:
            return None
        return func.value, arg.value
    if isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args:
        return "item", func.value
    return None


def conversion(call: cst.Call, ctx: FixContext) -> Optional[Tuple[str, cst.BaseExpression]]:
    """:func:`_converted` of a traced ``x``."""
    found = _converted(call, ctx)
    if found is None or ctx.facts.value(found[1]).kind is not Kind.TRACED:
        return None
    return found


def kept_as_array(call: cst.Call, ctx: FixContext) -> bool:
    """Whether the Python number that ``int(x)``, ``float(x)`` or ``x.item()`` (``call``) gives is used only
    where an array does the same: once ``x`` is a traced array, JIT301's rewrite keeps the value an array
    there (whether ``x`` is traced now or not)."""
    found = _converted(call, ctx)
    if found is None or found[0] == "bool":
        return False
    kind = found[0]
    function = ctx.enclosing_def(call)
    if function is None:
        return False
    ctx.memo["conversions.tables"] = []
    try:
        return _array_use(call, ctx, function, kind == "float", 0) and not ctx.memo["conversions.tables"]
    finally:
        ctx.memo.pop("conversions.tables", None)


@rewrites("JIT301")
def to_array_value(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``int(x)`` -> ``jnp.asarray(x, dtype=int)`` (``float``; ``x.item()`` -> ``jnp.reshape(x, ())``)."""
    if not isinstance(node, cst.Call):
        return None
    found = conversion(node, ctx)
    if found is None:
        return None
    kind, operand = found
    function = ctx.enclosing_def(node)
    rounded = _rounded_by(node, ctx) if kind in ("float", "item") else None
    if rounded is not None and function is not None:
        return _to_jnp_round(rounded, operand, ctx, function)
    ctx.memo["conversions.tables"] = []
    if function is None or not _array_use(node, ctx, function, kind == "float", 0, kind == "bool"):
        return None
    tables: List[cst.Subscript] = list(ctx.memo.pop("conversions.tables", []))  # type: ignore[arg-type]
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    jnp, imports = spelled
    if kind == "item":
        new = ctx.expr(f"{jnp}.reshape({{x}}, ())", x=operand)
        shown, what = f"`{jnp}.reshape(x, ())`", "`x.item()`"
    else:
        new = ctx.expr(f"{jnp}.asarray({{x}}, dtype={kind})", x=operand)
        shown, what = f"`{jnp}.asarray(x, dtype={kind})`", f"`{kind}(x)`"
    new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
    changes: Dict[cst.CSTNode, Replacement] = {node: new}
    for table in tables:  # `SCALE[idx]` -> `jnp.asarray(SCALE)[idx]`: the index an array now
        changes[table.value] = ctx.expr(f"{jnp}.asarray({{t}})", t=table.value)
    edits = ctx.replace_per_statement(changes) if tables else [ctx.replace(node, new)]
    if edits is None or None in edits:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Keep the value as an array: {shown} for {what}"
                   + (f", and index the table as an array, `{jnp}.asarray(...)`" if tables else ""),
                   tuple(edits) + tuple(imports))


def _rounded_by(node: cst.Call, ctx: FixContext) -> Optional[cst.Call]:
    """The builtin ``round(node, n)`` call whose first argument ``node`` is, ``n`` an int literal; None
    otherwise (``round(x)`` alone gives a Python int, which ``jnp.round`` does not)."""
    arg = ctx.parent(node)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name) or call.func.value != "round" \
            or ctx.facts.read_scope.get(call.func) != "builtin" or len(call.args) != 2 or call.args[0] is not arg:
        return None
    digits = call.args[1]
    count = literal_value(digits.value)
    if digits.star or (digits.keyword is not None and digits.keyword.value != "ndigits") \
            or not isinstance(count, int) or isinstance(count, bool):
        return None
    return call


def _to_jnp_round(rounded: cst.Call, operand: cst.BaseExpression, ctx: FixContext,
                  function: cst.FunctionDef) -> Optional[Fix]:
    """``round(float(x), 2)`` whose result is only array data -> ``jnp.round(x, 2)``: the same rounding to
    the nearest multiple of ``10**-2``, ties to even, done on the array (in float32, where Python rounded a
    float64)."""
    if not _array_use(rounded, ctx, function, True, 0):
        return None
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    jnp, imports = spelled
    bare = operand.with_changes(lpar=(), rpar=()) if getattr(operand, "lpar", ()) else operand  # (an argument now)
    new = ctx.expr(f"{jnp}.round({{x}}, {{n}})", x=bare, n=rounded.args[1].value)
    new = new.with_changes(lpar=rounded.lpar, rpar=rounded.rpar)
    return ctx.fix(Applicability.UNSAFE, f"Round the array: `{jnp}.round(x, n)` for `round(float(x), n)`",
                   (ctx.replace(rounded, new),) + tuple(imports))


@rewrites("JIT301")
def to_unpacked_array(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``a, b, c = x.tolist()`` of a traced ``x`` -> ``a, b, c = x``: unpacking the array gives its items
    along the first axis, as many as the list had, each a 0-d array where the list gave a Python number
    (of a 1-d ``x``) -- where every name is used only as array data (:func:`_array_use`), and bound only
    there."""
    if not _tolist_of_traced(node, ctx):
        return None
    assign = ctx.parent(node)
    if not (isinstance(assign, cst.Assign) and assign.value is node and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))):
        return None
    names = [el.value for el in assign.targets[0].target.elements]
    if not names or not all(isinstance(n, cst.Name) and isinstance(el, cst.Element)
                            for n, el in zip(names, assign.targets[0].target.elements)):
        return None
    function = ctx.enclosing_def(node)
    if function is None:
        return None
    for target in names:
        for ref in name_references(function, target.value):
            if ref is target:
                continue
            if ctx.facts.read_scope.get(ref) != "local" or not _plain_read(ref, ctx, function) \
                    or not _array_use(ref, ctx, function, True, 1):
                return None
    edit = ctx.replace(node, node.func.value.with_changes(lpar=node.lpar, rpar=node.rpar))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, "Unpack the array itself: its items are the list's, as 0-d arrays",
                   (edit,))


def _unpacked_from_tolist(name: cst.Name, ctx: FixContext) -> Optional[cst.Call]:
    """The ``x.tolist()`` of a traced ``x`` whose unpacking (``a, b = x.tolist()``) is the one binding of the
    local ``name`` in its function."""
    function = ctx.enclosing_def(name)
    if function is None or ctx.facts.read_scope.get(name) != "local":
        return None
    found = None
    for ref in name_references(function, name.value):
        element = ctx.parent(ref)
        if not isinstance(element, cst.Element):
            if isinstance(element, (cst.AssignTarget, cst.Param, cst.AugAssign, cst.For, cst.CompFor,
                                    cst.NamedExpr, cst.AnnAssign)):
                return None  # bound another way too
            continue
        target = ctx.parent(ctx.parent(element))
        assign = ctx.parent(target)
        value = assign.value if isinstance(target, cst.AssignTarget) and isinstance(assign, cst.Assign) else None
        if not _tolist_of_traced(value, ctx) or found is not None:
            return None
        found = value
    return found


def _tolist_of_traced(call: Optional[cst.CSTNode], ctx: FixContext) -> bool:
    """``x.tolist()`` of a traced ``x``."""
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "tolist" \
        and not call.args and ctx.facts.value(call.func.value).kind is Kind.TRACED


#: the functions of `math` that jax.numpy has under the same name, taking and giving the same numbers
#: (elementwise on arrays); `math.log(x, base)` has two arguments and is left alone, and `floor` / `ceil` /
#: `trunc` give a Python int where jax.numpy gives a float (an index or a size made of one would break)
_MATH_TWINS = frozenset({"exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "sin", "cos", "tan",
                         "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
                         "fabs", "hypot", "copysign", "degrees", "radians", "pow"})
#: where jax.numpy spells it otherwise
_MATH_RENAMED = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2", "asinh": "arcsinh",
                 "acosh": "arccosh", "atanh": "arctanh", "fabs": "abs", "pow": "power"}


@rewrites("JIT301")
def to_jnp_math(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``math.exp(x)`` of a traced ``x`` -> ``jnp.exp(x)``: `math` converts its argument to a Python float
    (``ConcretizationTypeError`` under jit); jax.numpy computes the same function on the array."""
    if not isinstance(node, cst.Call):
        return None
    found = _math_twin(node.func, ctx)
    if found is None or any(arg.keyword is not None or arg.star for arg in node.args):
        return None
    name, twin, jnp, imports = found
    if len(node.args) != (2 if name in _TWO_ARGUMENTS else 1):
        return None
    new = node.with_changes(func=ctx.expr(f"{jnp}.{twin}"))
    edit = ctx.replace(node, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Use `{jnp}.{twin}`, which computes on arrays: `math.{name}` needs a "
                   "Python float", (edit,) + imports + _math_import_left_unused(node.func, ctx))


_TWO_ARGUMENTS = frozenset({"atan2", "hypot", "copysign", "pow"})


def _math_twin(func: cst.BaseExpression, ctx: FixContext) -> Optional[Tuple[str, str, str, Tuple[Edit, ...]]]:
    """For ``math.<name>`` with a ``jax.numpy`` twin: the name, the twin's name, how ``jax.numpy`` is spelled
    here and the edits importing it."""
    q = ctx.index.qualify(func)
    name = q[len("math."):] if q is not None and q.startswith("math.") else None
    spelled = ctx.import_name("jax.numpy") if name in _MATH_TWINS else None
    if spelled is None:
        return None
    return name, _MATH_RENAMED.get(name, name), spelled[0], tuple(spelled[1])  # type: ignore[return-value]


def _math_import_left_unused(reference: cst.BaseExpression, ctx: FixContext) -> Tuple[Edit, ...]:
    """The edit removing the import of ``math`` (or of the function) when ``reference`` is its only use."""
    from jitlint.fixes.imports import removal

    head = reference
    while isinstance(head, cst.Attribute):
        head = head.value
    if not isinstance(head, cst.Name):
        return ()
    edit = removal(ctx, head.value, [head])
    return (edit,) if edit is not None else ()


@rewrites("JIT301")
def to_jnp_math_map(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``a, b = map(math.radians, x)`` of a traced ``x`` unpacked at once -> ``a, b = jnp.radians(x)``: the
    array's items along its first axis, as the map gave the converted items."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "map"
            and len(node.args) == 2):
        return None
    assign = ctx.parent(node)
    if not (isinstance(assign, cst.Assign) and assign.value is node and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))):
        return None
    found = _math_twin(node.args[0].value, ctx)
    if found is None or found[0] in _TWO_ARGUMENTS:
        return None
    name, twin, jnp, imports = found
    edit = ctx.replace(node, cst.Call(func=ctx.expr(f"{jnp}.{twin}"), args=[node.args[1].with_changes(
        comma=cst.MaybeSentinel.DEFAULT)]))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Use `{jnp}.{twin}` on the array: `math.{name}` needs a Python float for "
                   "each item", (edit,) + imports + _math_import_left_unused(node.args[0].value, ctx))


@rewrites("JIT301")
def to_static_key(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """A Python dict looked up with a key made of the jitted function's parameters (``TABLE[k]``,
    ``PAIRS[a, b]``), each used only where a static value is needed -> those parameters static: the
    lookup then runs in Python on every trace, once per key."""
    if not isinstance(node, cst.Subscript) or not ctx.facts.value(node.value).mapping:
        return None
    fn = ctx.enclosing_function(node)
    if fn is None:
        return None
    from jitlint.fixes.static_args import checked_static_fix, traced_parameters

    parts = key_parts(node)
    if parts is None:
        return None
    params: List[str] = []
    for part in parts:
        found = traced_parameters(part, fn, ctx)
        if ctx.facts.value(part).kind is not Kind.STATIC and not found:
            return None  # (a key traced by something other than a parameter)
        params += [p for p in found if p not in params]
    return checked_static_fix(fn, params, ctx)


# ------------------------------------------------------------------ uses


def _array_use(expr: cst.BaseExpression, ctx: FixContext, function: cst.FunctionDef, is_float: bool,
               depth: int, returned_only: bool = False) -> bool:
    """The Python number ``expr`` evaluates to is used only where an array does the same (with
    ``returned_only``, a ``bool``: only returned from the jitted function, or bound to a name that is)."""
    parent = ctx.parent(expr)
    stored = _stored_attribute(expr, ctx, function)
    if stored is not None:
        return depth < _DEPTH and _attribute_use(stored, expr, ctx, is_float, depth)
    if isinstance(parent, (cst.Element, cst.DictElement)) and parent.value is expr \
            and not (isinstance(parent, cst.Element) and _operand_sequence(parent, ctx)):
        ret = _returned_holder(parent, ctx)
        if ret is None:
            # `metrics = {"loss": float(loss)}`, then `return ..., metrics`: the display's name is only returned
            assign = _assigned_display(parent, ctx)
            return assign is not None and depth < _DEPTH \
                and _name_use(assign, ctx, function, is_float, depth, returned_only=True)
        return _returned_from_jit(ret, ctx, function, is_float, depth)
    if isinstance(parent, cst.Return):
        return _returned_from_jit(parent, ctx, function, is_float, depth)
    if isinstance(parent, cst.Assign) and parent.value is expr and depth < _DEPTH:
        return _name_use(parent, ctx, function, is_float, depth, returned_only)
    if returned_only:
        # a `bool`: also the condition of `jnp.where`, the predicate of `lax.cond` / `lax.select` (a 0-d bool
        # array selects as True / False do, and `lax.cond` takes no other under jit)
        return isinstance(parent, cst.Arg) and parent.keyword is None and not parent.star \
            and isinstance(ctx.parent(parent), cst.Call) and ctx.parent(parent).args[0] is parent \
            and ctx.index.qualify(ctx.parent(parent).func) in _PREDICATE_TAKERS  # type: ignore[union-attr]
    if isinstance(parent, cst.Comparison):
        return _compared_use(parent, expr, ctx, function, depth)
    if isinstance(parent, cst.ComparisonTarget) and parent.comparator is expr:  # (the right side: `x >= k + 1`)
        comparison = ctx.parent(parent)
        return isinstance(comparison, cst.Comparison) and _compared_use(comparison, expr, ctx, function, depth)
    if isinstance(parent, cst.BinaryOperation):
        if not isinstance(parent.operator, _ARITHMETIC + ((cst.Power,) if is_float else ())):
            return False
        other = parent.right if parent.left is expr else parent.left
        kind = operand_kind(other, ctx)
        if kind == "array":
            return True
        if kind is None and is_float and not not_numeric(other, ctx):
            # (a Python float does `+ - * / // % **` with numbers and arrays only: `2.0 * [1]`, `2.0 + "a"`
            # raise; so an operand the code does not show, `self.bps` of `float(x) * self.bps`, is one)
            kind = "float"
        if kind is None:
            return False
        is_float = is_float or kind == "float" or isinstance(parent.operator, cst.Divide)
        return _array_use(parent, ctx, function, is_float, depth)
    if isinstance(parent, cst.UnaryOperation):
        if not isinstance(parent.operator, (cst.Minus, cst.Plus)):
            return False
        return _array_use(parent, ctx, function, is_float, depth)
    if isinstance(parent, cst.Arg):
        return _operand_argument(parent, ctx)
    if isinstance(parent, cst.Element):
        return _operand_sequence(parent, ctx)
    if isinstance(parent, cst.Index) and not is_float:
        return _array_index(parent, ctx)
    if isinstance(parent, cst.FormattedStringExpression) and not is_float:
        return _printed_field(parent, ctx)
    return False


def _printed_field(field: cst.FormattedStringExpression, ctx: FixContext) -> bool:
    """``print(f"root {root} ...")``: an int formatted with no conversion or spec into an f-string that the
    builtin ``print`` is given, in traced code (JIT103's finding, whose fix prints the value on every call):
    a 0-d int array formats as the int does (``f"{jnp.asarray(7)}"`` is ``"7"``)."""
    if field.conversion is not None or field.format_spec is not None or field.equal is not None:
        return False
    string = ctx.parent(field)
    arg = ctx.parent(string) if isinstance(string, cst.FormattedString) else None
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) and arg.keyword is None and not arg.star else None
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "print" \
        and ctx.facts.read_scope.get(call.func) == "builtin"


#: functions whose first argument selects, as a Python bool or a 0-d boolean array alike
_PREDICATE_TAKERS = frozenset({"jax.numpy.where", "jax.lax.cond", "jax.lax.select"})


def not_numeric(other: cst.BaseExpression, ctx: FixContext) -> bool:
    """``other`` is known to be something that is not a number or an array: a string, a container, None."""
    value = ctx.facts.value(other)
    return isinstance(other, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple,
                              cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.GeneratorExp)) \
        or value.container or value.mapping or value.items is not None \
        or (value.known and not isinstance(value.const, (int, float, complex)))


def _compared_use(comparison: cst.Comparison, expr: cst.BaseExpression, ctx: FixContext,
                  function: cst.FunctionDef, depth: int) -> bool:
    """``expr`` is one side of an order or equality test (``units > 0``) whose other side is a number or a
    traced array: with a 0-d array in place of the number the test gives a 0-d bool array where it gave
    a Python bool -- the same wherever that flag is only an operand of ``+ - *`` with a Python number
    (``ORDER_COST * (units > 0)``: ``5.0 * True`` and ``5.0 * jnp.asarray(True)`` are both 5), or where a
    bool is (:func:`_array_use` with ``returned_only``: returned from a jitted function, the condition of
    ``jnp.where``).  Against a traced array the test gave an array already.  Not with two flags (``True +
    True`` is 2, a logical or on bool arrays), not negated (``-`` of a bool array raises), not as an ``if``
    test, which is JIT201's."""
    if len(comparison.comparisons) != 1 or not isinstance(comparison.comparisons[0].operator, _ORDER_OR_EQUAL):
        return False
    other = comparison.comparisons[0].comparator if comparison.left is expr else comparison.left
    kind = operand_kind(other, ctx)
    if kind == "array":
        return True
    if kind is None:
        return False
    parent = ctx.parent(comparison)
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, (cst.Add, cst.Subtract, cst.Multiply)):
        number = operand_kind(parent.right if parent.left is comparison else parent.left, ctx)
        if number not in ("int", "float"):
            return False
        return _array_use(parent, ctx, function, number == "float", depth)
    return _array_use(comparison, ctx, function, False, depth, returned_only=True)


#: the comparison operators whose result a 0-d array gives as a 0-d bool array
_ORDER_OR_EQUAL = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual)


def _stored_attribute(expr: cst.BaseExpression, ctx: FixContext, function: cst.FunctionDef) -> Optional[str]:
    """``X`` where ``expr`` is what a method stores in ``self.X`` (``self.X = float(x)``, or its place in
    ``self.X, self.Y = float(x), float(y)``)."""
    parent = ctx.parent(expr)
    target: Optional[cst.BaseExpression] = None
    if isinstance(parent, cst.Assign) and parent.value is expr and len(parent.targets) == 1:
        target = parent.targets[0].target
    elif isinstance(parent, cst.Element) and parent.value is expr and isinstance(ctx.parent(parent), cst.Tuple):
        display = ctx.parent(parent)
        assign = ctx.parent(display)
        if isinstance(assign, cst.Assign) and assign.value is display and len(assign.targets) == 1 \
                and isinstance(assign.targets[0].target, cst.Tuple) \
                and len(assign.targets[0].target.elements) == len(display.elements):  # type: ignore[union-attr]
            position = next(i for i, el in enumerate(display.elements) if el is parent)  # type: ignore[union-attr]
            target = assign.targets[0].target.elements[position].value
    params = function.params.params
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and params \
            and target.value.value == params[0].name.value \
            and ctx.index.infos.get(function) is not None and ctx.index.infos[function].cls is not None:
        return target.attr.value
    return None


def _attribute_use(attr: str, stored: cst.BaseExpression, ctx: FixContext, is_float: bool, depth: int) -> bool:
    """Every read of an attribute ``attr`` in the module (``reading.temp_c``, ``self.temp_c``) but those
    in ``stored``, what is stored (``float(self.temp_c)``), is in a function and an array use there: what
    a method stored in it may be an array instead of a number."""
    inside = {id(node) for node in _walk(stored)}
    checked: Set[str] = ctx.memo.setdefault("conversions.attributes", set())  # type: ignore[assignment]
    checked.add(attr)
    try:
        for node in _attribute_reads(ctx, attr):
            if id(node) in inside:
                continue
            function = ctx.enclosing_def(node)
            if function is None or not _array_use(node, ctx, function, is_float, depth + 1):
                return False
        return True
    finally:
        checked.discard(attr)


def _attributes_named(ctx: FixContext, attr: str) -> List[cst.Attribute]:
    """Every ``.attr`` of the module, read or stored into (one walk per name, kept in the fix context)."""
    key = f"conversions.attributes.{attr}"
    if key not in ctx.memo:
        found: List[cst.Attribute] = []
        stack: List[cst.CSTNode] = [ctx.module]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Attribute) and node.attr.value == attr:
                found.append(node)
            stack.extend(node.children)
        ctx.memo[key] = found
    return list(ctx.memo[key])  # type: ignore[arg-type]


def _attribute_reads(ctx: FixContext, attr: str) -> List[cst.Attribute]:
    """The ``.attr`` of the module that are read (not stored into)."""
    return [node for node in _attributes_named(ctx, attr) if not _stored_into(node, ctx)]


def _walk(node: cst.CSTNode) -> List[cst.CSTNode]:
    out, stack = [], [node]
    while stack:
        here = stack.pop()
        out.append(here)
        stack.extend(here.children)
    return out


def _stored_into(node: cst.Attribute, ctx: FixContext) -> bool:
    parent = ctx.parent(node)
    if isinstance(parent, cst.Element):
        parent = ctx.parent(parent)
        while isinstance(parent, (cst.Tuple, cst.List, cst.Element)):
            holder = ctx.parent(parent)
            if isinstance(holder, cst.AssignTarget):
                return True
            parent = holder
        return False
    return isinstance(parent, (cst.AssignTarget, cst.Del)) or (
        isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node)


def _array_index(index: cst.Index, ctx: FixContext) -> bool:
    """The whole index of a JAX array (``table[i]``, the table traced or a module's ``jnp`` array): a 0-d integer array indexes it as the Python int did, negative positions counted
    from the end alike, and a position past the end clamped in both (JAX's gather)."""
    element = ctx.parent(index)
    subscript = ctx.parent(element) if isinstance(element, cst.SubscriptElement) else None
    if not isinstance(subscript, cst.Subscript) or len(subscript.slice) != 1 or subscript.slice[0] is not element:
        return False
    value = ctx.facts.value(subscript.value)
    if (value.kind is Kind.TRACED and value.traced_array) or value.jax_array:
        return True
    if _number_table(subscript.value, ctx):
        # `SCALE[idx]` of a module-level list of numbers: indexed as `jnp.asarray(SCALE)[idx]` by the fix
        ctx.memo.setdefault("conversions.tables", []).append(subscript)  # type: ignore[union-attr]
        return True
    return value.kind is not Kind.STATIC and not value.container and not value.mapping and value.items is None \
        and _given_to_jax_numpy(subscript.value, ctx)


def _number_table(table: cst.BaseExpression, ctx: FixContext) -> bool:
    """``table`` is a module-level name bound once to a list or tuple display of number literals, read as
    the global where it is indexed: ``jnp.asarray(table)`` holds the same numbers."""
    if not isinstance(table, cst.Name) or ctx.facts.read_scope.get(table) != "global":
        return False
    info = ctx.index.globals.get(table.value)
    value = info.node.value if info is not None and info.assignments == 1 and isinstance(info.node, cst.Assign) \
        else None
    if not isinstance(value, (cst.List, cst.Tuple)) or not value.elements:
        return False
    return all(isinstance(el, cst.Element) and isinstance(_bare_number(el.value), (cst.Integer, cst.Float))
               for el in value.elements)


def _bare_number(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.expression if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) else node


def _given_to_jax_numpy(table: cst.BaseExpression, ctx: FixContext) -> bool:
    """``table`` is a local name the function also passes to a ``jax.numpy`` function (``jnp.argmax(q)``),
    which takes arrays only (a list or a dict raises there): it is an array."""
    function = ctx.enclosing_def(table)
    if not isinstance(table, cst.Name) or function is None:
        return False
    for ref in name_references(function, table.value):
        arg = ctx.parent(ref)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) and arg.value is ref and not arg.star else None
        if isinstance(call, cst.Call) and (ctx.index.qualify(call.func) or "").startswith("jax.numpy."):
            return True
    return False


def _operand_sequence(element: cst.Element, ctx: FixContext) -> bool:
    """``element`` is an item of the list or tuple given to ``jnp.array`` / ``jnp.stack``."""
    sequence = ctx.parent(element)
    holder = ctx.parent(sequence) if isinstance(sequence, (cst.List, cst.Tuple)) else None
    if isinstance(holder, cst.Arg) and not holder.star and holder.keyword is None:
        call = ctx.parent(holder)
        return isinstance(call, cst.Call) and call.args[0] is holder \
            and ctx.index.qualify(call.func) in _SEQUENCE_OF_OPERANDS
    return False


def _display_holder(element: cst.CSTNode, ctx: FixContext) -> Optional[Tuple[cst.CSTNode, cst.CSTNode]]:
    """What holds the outermost display that holds ``element`` (an item of a tuple, list or dict display, a
    dict's value), through displays nested in one another, with that display; None when the display
    is held by another display's key, or is no display."""
    node = element
    while isinstance(node, (cst.Element, cst.DictElement)):
        display = ctx.parent(node)
        if not isinstance(display, (cst.Tuple, cst.List, cst.Dict)):
            return None
        holder = ctx.parent(display)
        if not isinstance(holder, (cst.Element, cst.DictElement)):
            return holder, display
        node = holder
    return None


def _assigned_display(element: cst.CSTNode, ctx: FixContext) -> Optional[cst.Assign]:
    """The assignment whose value is the display holding ``element``."""
    found = _display_holder(element, ctx)
    return found[0] if found is not None and isinstance(found[0], cst.Assign) \
        and found[0].value is found[1] else None  # type: ignore[return-value]


def _returned_holder(element: cst.CSTNode, ctx: FixContext) -> Optional[cst.Return]:
    """The ``return`` whose value is the display holding ``element``; None when it is anything else."""
    found = _display_holder(element, ctx)
    return found[0] if found is not None and isinstance(found[0], cst.Return) else None  # type: ignore[return-value]


def operand_kind(other: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> Optional[str]:
    """What the other operand of an arithmetic operation is: ``"array"`` (a traced array),
    ``"int"`` / ``"float"`` (a Python number: a literal, a known constant, a conversion that is
    itself a JIT301 finding), or None (anything else: a string, a list, an unknown value)."""
    if depth > 8:
        return None
    value = literal_value(other)
    if value is None and ctx.facts.value(other).known:
        value = ctx.facts.value(other).const
    if value is None and isinstance(other, cst.Name):
        value = _global_number(other, ctx)
    if isinstance(other, cst.Attribute) and other.attr.value in ctx.memo.get("conversions.attributes", ()):
        return "float"  # (the attribute whose reads are checked: a number, or an array after the fix)
    if isinstance(value, bool):
        return "int"
    if isinstance(value, (int, float)):
        return "float" if isinstance(value, float) else "int"
    facts = ctx.facts.value(other)
    if facts.traced_array:
        return "array"
    alternative = facts.alternative if facts.alternative is not NO_CONSTANT else _number_default(other, ctx)
    if facts.kind is Kind.MAYBE and isinstance(alternative, (int, float)) and not isinstance(alternative, bool):
        # (a defaulted parameter of a jitted function: its number, or a tracer a call passes -- either way an
        # operand that meets a 0-d array as a number does)
        return "float" if isinstance(alternative, float) else "int"
    if facts.kind is Kind.TRACED and not facts.container and not facts.mapping and facts.items is None:
        return "array"  # (a traced operand of arithmetic or an order test that runs is an array, not a pytree)
    if facts.kind is Kind.STATIC and _size_of_array(other, ctx):
        return "int"
    if isinstance(other, cst.Call):
        if ctx.index.qualify(other.func) in _ARRAY_OPERANDS:
            return "array"
        found = conversion(other, ctx)
        if found is not None:
            return "float" if found[0] == "float" else "int"
        return None
    if isinstance(other, cst.Name) and _unpacked_from_tolist(other, ctx) is not None:
        return "float"  # (`a, b = x.tolist()`: Python numbers, themselves a JIT301 finding)
    if isinstance(other, cst.UnaryOperation) and isinstance(other.operator, (cst.Minus, cst.Plus)):
        return operand_kind(other.expression, ctx, depth + 1)
    if isinstance(other, cst.BinaryOperation) and isinstance(other.operator, _ARITHMETIC):
        kinds = (operand_kind(other.left, ctx, depth + 1), operand_kind(other.right, ctx, depth + 1))
        if None in kinds:
            return None
        if "array" in kinds:
            return "array"
        return "float" if "float" in kinds or isinstance(other.operator, cst.Divide) else "int"
    return None


def _number_default(name: cst.BaseExpression, ctx: FixContext):
    """The number a parameter (of this function or one around it, never rebound) defaults to, where ``name``
    reads one (``ess_threshold=0.5``, read in a ``lax.scan`` body the function defines); None otherwise."""
    fn = ctx.enclosing_function(name) if isinstance(name, cst.Name) else None
    home = fn.scope.resolve(name.value) if fn is not None else None  # type: ignore[union-attr]
    bindings = home.bindings_of(name.value) if home is not None else []  # type: ignore[union-attr]
    if len(bindings) != 1 or bindings[0].kind is not BindingKind.PARAMETER:
        return None
    param = bindings[0].node
    return literal_value(param.default) if isinstance(param, cst.Param) and param.default is not None else None


def _global_number(name: cst.Name, ctx: FixContext):
    """The number a module global read here holds when the module binds it once, to a literal (``A =
    17.62``, or its place in ``A, B = 17.62, 243.12``) and no function rebinds it; else None."""
    if ctx.facts.read_scope.get(name) != "global" or name.value in ctx.index.global_written:
        return None
    info = ctx.index.globals.get(name.value)
    if info is None or info.assignments != 1 or not isinstance(info.node, cst.Assign) or len(info.node.targets) != 1:
        return None
    target, value = info.node.targets[0].target, info.node.value
    if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements):
        for element, bound in zip(target.elements, value.elements):
            if isinstance(element.value, cst.Name) and element.value.value == name.value:
                return literal_value(bound.value)
        return None
    return literal_value(value) if isinstance(target, cst.Name) and target.value == name.value else None


def _size_of_array(node: cst.BaseExpression, ctx: FixContext) -> bool:
    """``x.shape[i]``, ``x.ndim``, ``x.size`` or ``len(x)``: an ``int`` (of an array, traced or not, a Python
    value; of anything else, what the analysis says is static and is spelled so is taken for one)."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Attribute) \
            and node.value.attr.value == "shape" and len(node.slice) == 1 \
            and isinstance(node.slice[0].slice, cst.Index):
        return True
    if isinstance(node, cst.Attribute) and node.attr.value in ("ndim", "size") \
            and ctx.facts.value(node.value).kind is Kind.TRACED:
        return True
    if isinstance(node, cst.Name) and ctx.facts.value(node).kind is Kind.STATIC:
        # (`n = weights.shape[1]`, bound once in this function or one around it)
        fn = ctx.enclosing_function(node)
        home = fn.scope.resolve(node.value) if fn is not None else None
        value = home.single_value(node.value) if home is not None else None
        return value is not None and not isinstance(value, cst.Name) and _size_of_array(value, ctx)
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" \
        and ctx.facts.read_scope.get(node.func) == "builtin" and len(node.args) == 1


def _operand_argument(arg: cst.Arg, ctx: FixContext) -> bool:
    """``arg`` is an array operand of an element-wise ``jax.numpy`` function, or the value of a field that a
    class of the module annotates as an array (``Transit(depth_ppm=float(d))`` with ``depth_ppm: jax.Array``:
    the class says an array goes there)."""
    call = ctx.parent(arg)
    if not isinstance(call, cst.Call) or arg.star:
        return False
    spec = _ARRAY_OPERANDS.get(ctx.index.qualify(call.func) or "")
    if spec is None:
        return _array_field_argument(arg, call, ctx)
    count, keywords = spec
    if arg.keyword is not None:
        return arg.keyword.value in keywords
    position = next(i for i, a in enumerate(call.args) if a is arg)
    if any(a.star for a in call.args[:position]):
        return False
    return count is None or position < count


#: annotations that say a field holds an array
_ARRAY_ANNOTATIONS = frozenset({"jax.Array", "jax.numpy.ndarray", "jax.typing.ArrayLike"})


def _array_field_argument(arg: cst.Arg, call: cst.Call, ctx: FixContext) -> bool:
    """``arg`` of ``C(...)``, ``C`` a class of the module with no ``__init__`` of its own (a NamedTuple, a
    dataclass: the arguments fill the annotated fields in order), goes to a field annotated as an array."""
    if not isinstance(call.func, cst.Name) or call.func.value not in ctx.index.classes:
        return False
    cls = ctx.index.classes[call.func.value]
    if "__init__" in cls.methods or any(a.star for a in call.args):
        return False
    fields = init_fields(cls)
    if arg.keyword is not None:
        annotation = dict(fields).get(arg.keyword.value)
    else:
        position = next(i for i, a in enumerate(call.args) if a is arg)
        annotation = fields[position][1] if position < len(fields) else None
    return annotation is not None and (ctx.index.qualify(annotation) or "") in _ARRAY_ANNOTATIONS


def _returned_from_jit(ret: cst.Return, ctx: FixContext, function: cst.FunctionDef, is_float: bool = False,
                       depth: int = 0) -> bool:
    """``ret`` returns from ``function`` itself, and every call of it goes through ``jax.jit``, whose
    results are arrays: it is jitted where it is defined (a decorator), or it is a module-level function,
    private to its module (or of a module nothing imports), whose name is read only to make jit wrappers
    of it (``step_jit = jax.jit(_step)``) -- or only to call it from traced code (a helper of the jitted
    functions: its result reaches a trace only)."""
    if ctx.enclosing_def(ret) is not function:
        return False
    info = ctx.index.infos.get(function)
    if info is None:
        return False
    entries = [entry for entry in ctx.index.entries if entry.function is info and entry.transform is not None
               and entry.transform.name in _COMPILING]
    if any(isinstance(entry.site, cst.Decorator) for entry in entries):
        return True
    if info.parent is None and info.cls is not None and not entries:
        return _method_called_only_traced(info, ctx, is_float, depth)
    if info.parent is not None and not entries and _lax_body_only(info, function, ctx):
        return True
    if info.parent is not None or info.cls is not None:
        return False
    if not entries:
        # (UNSAFE as every such fix: another module calling the helper eagerly would get a 0-d array,
        # which serves as the number did in arithmetic and formatting)
        return _called_only_traced(info, function, ctx, is_float, depth)
    if not (info.name.startswith("_") or ctx.index.never_imported):
        return False  # (another module may import the function and call it eagerly)
    made_from = {id(arg.value) for entry in entries if isinstance(entry.site, cst.Call)
                 for arg in entry.site.args[:1]}
    return all(ref is function.name or id(ref) in made_from for ref in name_references(ctx.index.module, info.name))


#: the lax loops whose function's results become arrays (a carry, stacked outputs), and where it is passed
_LOOP_BODIES = {"jax.lax.scan": (0, "f"), "jax.lax.fori_loop": (2, "body_fun"),
                "jax.lax.while_loop": (1, "body_fun"), "jax.lax.map": (0, "f")}


def _lax_body_only(info, function: cst.FunctionDef, ctx: FixContext) -> bool:
    """The nested function is read, in the function around it, only as the body of a lax loop (``lax.scan(step,
    ...)``): what it returns becomes the loop's carry or stacked outputs, arrays (JAX 0.10.2 converts a Python
    number there, and takes an int32 array for a weak-typed carry alike)."""
    parent = info.parent.node if info.parent is not None else None
    if parent is None:
        return False
    refs = [ref for ref in name_references(parent, info.name) if ref is not function.name]
    if not refs:
        return False
    for ref in refs:
        arg = ctx.parent(ref)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or arg.star:  # type: ignore[union-attr]
            return False
        where = _LOOP_BODIES.get(ctx.index.qualify(call.func) or "")
        if where is None:
            return False
        position, keyword = where
        if arg.keyword is not None:  # type: ignore[union-attr]
            if arg.keyword.value != keyword:  # type: ignore[union-attr]
                return False
        elif [a for a in call.args if a.keyword is None].index(arg) != position:  # type: ignore[arg-type]
            return False
    return True


def _called_only_traced(info, function: cst.FunctionDef, ctx: FixContext, is_float: bool, depth: int) -> bool:
    """Every read of the helper's name in its module calls it, from traced code, where the result is
    used as an array would be (:func:`_array_use`, at the call): what it returns only ever reaches a
    trace, where the Python number could not be made (its conversion raises) and is not needed."""
    refs = [ref for ref in name_references(ctx.index.module, info.name) if ref is not function.name]
    return _each_called_in_a_trace(refs, ctx, is_float, depth)


def _each_called_in_a_trace(refs: Sequence[cst.BaseExpression], ctx: FixContext, is_float: bool,
                            depth: int) -> bool:
    """Each of ``refs`` is the callee of a call made in traced code, whose result is used there as an array
    would be (:func:`_array_use`); and there is one."""
    for ref in refs:
        call = ctx.parent(ref)
        if not isinstance(call, cst.Call) or call.func is not ref or depth >= _DEPTH:
            return False
        caller = ctx.enclosing_function(call)
        if caller is None or caller not in ctx.facts.bodies or not isinstance(caller.node, cst.FunctionDef) \
                or not _array_use(call, ctx, caller.node, is_float, depth + 1):
            return False
    return bool(refs)


def _method_called_only_traced(info, ctx: FixContext, is_float: bool, depth: int) -> bool:
    """A method of a class of the module (``FEES.cost(turnover)``) as :func:`_called_only_traced` takes a
    helper: every attribute of its name in the module (whatever object it is read from: another class's
    method of the same name counts too) is called, from traced code, where the result is used as an array
    would be; and nothing stores into an attribute of that name."""
    refs = _attributes_named(ctx, info.name)
    return not any(_stored_into(ref, ctx) for ref in refs) and _each_called_in_a_trace(refs, ctx, is_float, depth)


def _name_use(assign: cst.Assign, ctx: FixContext, function: cst.FunctionDef, is_float: bool, depth: int,
              returned_only: bool = False) -> bool:
    """``n = int(x)``: ``n`` is bound only here in the function, and every read of it is an array use."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return False
    target = assign.targets[0].target
    if ctx.enclosing_def(assign) is not function:
        return False
    for ref in name_references(function, target.value):
        if ref is target:
            continue
        if ctx.facts.read_scope.get(ref) != "local" or not _plain_read(ref, ctx, function):
            return False  # bound again, declared global, or read from a nested scope
        if not _array_use(ref, ctx, function, is_float, depth + 1, returned_only):
            return False
    return True


def _plain_read(ref: cst.Name, ctx: FixContext, function: cst.FunctionDef) -> bool:
    """``ref`` is a read of the name in ``function``'s own scope (not a binding, not in a nested
    function, lambda or comprehension)."""
    parent = ctx.parent(ref)
    if isinstance(parent, (cst.AssignTarget, cst.Param, cst.AsName, cst.Global, cst.Nonlocal, cst.NameItem,
                           cst.Del, cst.ImportAlias)):
        return False
    if isinstance(parent, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)) \
            and parent.target is ref:
        return False
    holder = parent
    while isinstance(holder, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
        holder = ctx.parent(holder)
    if holder is not parent and isinstance(holder, (cst.AssignTarget, cst.For, cst.CompFor, cst.Del)):
        return False  # an unpacking target
    for a in ctx.ancestors(ref):
        if a is function:
            return True
        if isinstance(a, (cst.FunctionDef, cst.ClassDef) + _NESTED_SCOPES):
            return False
    return False
