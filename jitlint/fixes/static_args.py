"""Fix for JIT201/JIT202: make a configuration parameter static.

When the traced value of a finding is a parameter of the jitted function that
is used only where a static value is needed -- ``range()`` bounds, ``if`` /
``while`` tests, shapes, slice bounds, ``axis=`` -- the fix adds it to the
static arguments of its ``jax.jit``: in the decorator (``@jax.jit`` ->
``@partial(jax.jit, static_argnames=("n",))``; an existing ``partial(jax.jit,
...)`` or ``jax.jit(...)`` factory gets the name merged in) or at the
``jax.jit(f, ...)`` call site.

``static_argnums`` and ``static_argnames`` are kept consistent: JAX infers one
from the other only when a single one is given, so a function jitted with
``static_argnums=0`` gets the new parameter's index, not a second keyword that
would switch the inference off (catalog D4).

Safety: always UNSAFE.  JAX compiles once per distinct value of a static
argument, the value must be hashable (an array passed there raises
``ValueError: Non-hashable static arguments``), and callers that pass a traced
value (from another jitted function) break.
"""
from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.discovery import ClassInfo, EntryPoint, FunctionInfo
from jitlint.analysis.scopes import BindingKind
from jitlint.analysis.syntax import (bind_arguments, int_value, iter_children, literal_elements, name_references,
                                     string_value, unpacked_targets)
from jitlint.analysis.values import Kind
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.common import appended, literal_value, template_format
from jitlint.fixes.context import FixContext
from jitlint.fixes.dataflow import assigned_in, block_statements, reads
from jitlint.fixes.registry import rewrites, static_alternative
from jitlint.rules.compilation import (array_valued, frozen_dataclass, unhashable_argument, unhashable_dataclass,
                                       unhashable_static_argument)

#: keyword arguments that need static values
STATIC_KEYWORDS = frozenset({"shape", "axis", "axes", "num", "length", "size", "num_segments", "k",
                             "total_repeat_length", "repeats", "ndim", "dtype", "indices_or_sections",
                             "max_length", "fill_value_size", "N", "M", "n"})

#: positional arguments that must be static beyond the analysis's table of shapes and sizes
#: (``jax_api.SHAPE_ARGUMENTS``): the diagonal ``k`` of ``eye``/``tri``, the count of ``repeat``
_MORE_SHAPE_POSITIONS = {"jax.numpy.eye": (2,), "jax.numpy.tri": (2,), "jax.numpy.repeat": (1,)}


def _positional_slot(q: str, position: int) -> Optional[str]:
    """What the argument at ``position`` of the function ``q`` needs: ``"shape"`` (a shape, a size, a
    count: one Python int), ``"keyword"`` (an axis), or None."""
    for at, keyword in jax_api.SHAPE_ARGUMENTS.get(q, ()):
        if at == position:
            return "keyword" if keyword == "axis" else "shape"
    if position in _MORE_SHAPE_POSITIONS.get(q, ()):
        return "shape"
    if position in jax_api.AXIS_POSITIONS.get(q, ()):
        return "keyword"
    return None


#: array methods whose arguments are shapes or axes
SHAPE_METHODS = frozenset({"reshape", "transpose", "sum", "mean", "max", "min", "any", "all", "swapaxes",
                           "squeeze", "repeat", "tile", "cumsum", "argmax", "argmin", "std", "var", "prod"})

#: builtins that keep a static argument static
STATIC_BUILTINS = frozenset({"int", "len", "min", "max", "abs", "bool", "round", "range", "str", "repr", "format"})


#: parameter names that count steps or time: a different value on (nearly) every call
_COUNTER_NAMES = frozenset({"step", "t", "i", "it", "epoch", "iteration", "iter", "count", "counter", "time",
                            "timestep", "num_updates", "update_count"})


def counter_like(name: str) -> bool:
    return name in _COUNTER_NAMES or name.endswith(("_step", "_count", "_iter", "_epoch"))


@static_alternative("JIT201", first=True)
@static_alternative("JIT202", first=False)
def to_static_argnames(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """Add the parameters behind ``node`` to the ``static_argnames`` of their ``jax.jit``."""
    return static_parameters_fix(node, ctx)


def static_parameters_fix(node: cst.CSTNode, ctx: FixContext, through_locals: bool = False) -> Optional[Fix]:
    """:func:`to_static_argnames`; ``through_locals``: also behind a local bound once (a size:
    :func:`traced_parameters`)."""
    fn = ctx.enclosing_function(node)
    if fn is None or not isinstance(fn.node, cst.FunctionDef):
        return None
    params = traced_parameters(node, fn, ctx, through_locals)
    if params and all(_numeric_selector(fn.node, p, ctx) for p in params):
        # `if method == 0: ... elif method == 1:` on an id a caller may pass as an array (a device int): a
        # static argument raises there (unhashable), while the branches rewritten as a select take either
        return None
    return checked_static_fix(fn, params, ctx)


def _numeric_selector(fn_node: cst.FunctionDef, name: str, ctx: FixContext) -> bool:
    """Every read of parameter ``name`` in the function compares it, ``==`` or ``!=``, with a number
    literal -- an id that picks a branch, as well a 0-d integer array as a Python int -- or by order
    with a float literal (``if trough < 5.0:``): a quantity measured against a threshold, which callers
    pass as an array (unhashable as a static argument) and whose every value would compile anew."""
    reads = [n for n in name_references(fn_node.body, name) if ctx.facts.read_scope.get(n) in ("local", None)]
    if not reads:
        return False
    for n in reads:
        parent = ctx.parent(n)
        if isinstance(parent, cst.ComparisonTarget):
            comparison = ctx.parent(parent)
            other = comparison.left if isinstance(comparison, cst.Comparison) else None
        elif isinstance(parent, cst.Comparison) and parent.left is n and len(parent.comparisons) == 1:
            comparison, other = parent, parent.comparisons[0].comparator
        else:
            return False
        if not isinstance(comparison, cst.Comparison) or len(comparison.comparisons) != 1:
            return False
        value = literal_value(other) if other is not None else None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if not isinstance(comparison.comparisons[0].operator, (cst.Equal, cst.NotEqual)) \
                and not isinstance(value, float):
            return False
    return True


def checked_static_fix(fn: FunctionInfo, params: List[str], ctx: FixContext) -> Optional[Fix]:
    """``params`` made static, when none is a step counter, none is assigned in the function and each is
    used only where a static value is needed."""
    if not params or not isinstance(fn.node, cst.FunctionDef):
        return None
    if any(counter_like(p) for p in params):
        return None  # a step counter takes a new value on every call: static would compile each time
    order = [p.name.value for p, _ in fn.params]
    params.sort(key=order.index)
    # once per function and parameter, not once per finding (a chain of n `elif` has n findings)
    key = ("static_args.assigned", fn.node)
    if key not in ctx.memo:
        ctx.memo[key] = assigned_in(block_statements(fn.node.body))
    reassigned = ctx.memo[key]
    for p in params:
        if p in reassigned:  # type: ignore[operator]
            return None
        key = ("static_args.only_static_uses", fn.node, p)
        if key not in ctx.memo:
            ctx.memo[key] = _only_static_uses(fn.node, p, ctx)
        if not ctx.memo[key]:
            return None
    return static_argnames_fix(fn, params, ctx)


def static_argnames_fix(fn: FunctionInfo, params: List[str], ctx: FixContext,
                        dropped: Sequence[str] = ()) -> Optional[Fix]:
    """``params`` (parameters of ``fn``, in order) added to the static arguments of its one ``jax.jit``
    (and the static parameters ``dropped`` taken out of them)."""
    entries = [e for e in ctx.index.entries if e.function is fn]
    if len(entries) != 1:
        return None  # traced in several places (or only as a helper): one spec cannot cover them
    entry = entries[0]
    if isinstance(entry.site, cst.Call):
        target = next((a.value for a in entry.site.args if a.keyword is None and not a.star), None)
        if isinstance(target, cst.Attribute) and target.attr.value != fn.name:
            if target.attr.value == "apply" and fn.name == "__call__" and not dropped:
                return _linen_apply_static(entry, fn, params, ctx)
            return None  # `jax.jit(model.apply)` runs `__call__`: apply's own signature decides the positions
    t = entry.transform
    if t is None or not t.static_argnames_kw or not t.static_argnums_kw or entry.partial_positional \
            or entry.partial_keywords:
        return None
    positional = [p.name.value for p, kind in fn.params if kind in ("posonly", "positional")]
    kinds = {p.name.value: kind for p, kind in fn.params}
    if entry.self_bound:
        positional = positional[1:]
    indices = {}
    for p in list(params) + list(dropped):
        if kinds.get(p) in ("posonly", "positional"):
            indices[p] = positional.index(p)
        elif kinds.get(p) != "kwonly":
            return None
    for call in entry.visible_calls():
        scope = ctx.index.call_scopes.get(call, (None, None))[0]
        if any(param is not None and param.name.value in params and array_valued(arg.value, ctx.index, scope)
               for arg, param in entry.bind_args(call)):
            return None  # (`board(jnp.float32(length), ...)`: an array made static is unhashable: ValueError)
        if any(arg.star for arg in call.args):
            # (`Nuclei_potential(*args)`: what reaches the parameter is not seen -- a dict there, made static,
            # raises `ValueError: Non-hashable static arguments`)
            return None
    edit = _edit_site(entry, params, indices, positional, ctx, dropped)
    if edit is None:
        return None
    names = ", ".join(f"`{p}`" for p in params)
    title = f"Mark {names} static (`static_argnames`): compiles once per value"
    if dropped:
        title += "; " + ", ".join(f"`{p}`" for p in dropped) + " traced (it holds array data)"
    return ctx.fix(Applicability.UNSAFE, title, edit)


def _linen_apply_static(entry: EntryPoint, fn: FunctionInfo, params: List[str], ctx: FixContext) -> Optional[Fix]:
    """``jax.jit(MODEL.apply)`` of a flax linen Module whose ``__call__`` needs ``params`` static: linen's
    ``apply(variables, *args)`` hands its positional arguments after the variables on to ``__call__`` (flax
    0.12), so ``__call__``'s k-th parameter after ``self`` is apply's argument k + 1 -> ``static_argnums``
    (apply takes ``*args``: no names to give).  Only positional parameters, and a jit with no static options
    yet."""
    cls = fn.cls
    if cls is None or not any(b is not None and ctx.index.qualify(b) == "flax.linen.Module" for b in cls.base_nodes):
        return None
    site = entry.site
    if not isinstance(site, cst.Call) or entry.transform is None or any(
            a.keyword is not None and a.keyword.value in entry.transform.static_argnums_kw
            + entry.transform.static_argnames_kw or a.star for a in site.args):
        return None
    positional = [p.name.value for p, kind in fn.params if kind in ("posonly", "positional")][1:]
    if any(p not in positional for p in params):
        return None
    for call in entry.visible_calls():
        if any(a.star or a.keyword is not None for a in call.args):
            return None  # (a keyword of apply goes to `__call__` by name: positions would not cover it)
    numbers = sorted(positional.index(p) + 1 for p in params)
    spec = "(" + ", ".join(str(n) for n in numbers) + ("," if len(numbers) == 1 else "") + ")"
    args = list(site.args)
    args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(cst.Arg(cst.parse_expression(spec), keyword=cst.Name("static_argnums"),
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace(""))))
    edit = ctx.replace(site, site.with_changes(args=args))
    if edit is None:
        return None
    names = ", ".join(f"`{p}`" for p in params)
    return ctx.fix(Applicability.UNSAFE, f"Mark {names} static (`static_argnums={spec}` of `apply`, which passes "
                   "them on to `__call__`): compiles once per value", (edit,))


def traced_parameters(expr: cst.CSTNode, fn: FunctionInfo, ctx: FixContext, through_locals: bool = False
                      ) -> List[str]:
    """Parameters whose tracedness makes ``expr`` traced; [] when something else is traced too.  With
    ``through_locals`` (a size: it is static, or the code fails), a local bound once, by a plain assignment
    (``extra = target_len - x.shape[1]``), is traced by what its value reads -- not for a test (``rho =
    actual / predicted; if rho > 0.75``), which data decides, and whose rewrite keeps it traced."""
    param_names = {p.name.value for p, _ in fn.params}
    out: List[str] = []
    followed: Set[str] = set()
    stack: List[cst.CSTNode] = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name):
            if ctx.facts.value(n).kind is Kind.STATIC:
                continue
            if n.value in param_names and ctx.facts.read_scope.get(n) == "local":
                if n.value not in out:
                    out.append(n.value)
                continue
            # (`scope.single_value`: a plain `name = value`, the local's one binding in the function)
            value = fn.scope.single_value(n.value) if through_locals and n.value not in followed \
                and len(followed) < 4 and ctx.facts.read_scope.get(n) == "local" else None
            if value is None:
                return []
            followed.add(n.value)
            stack.append(value)
            continue
        if isinstance(n, cst.Call):
            if not (isinstance(n.func, cst.Name) and n.func.value in STATIC_BUILTINS
                    and ctx.facts.read_scope.get(n.func) == "builtin") and not template_format(n):
                return []
            stack.extend(a.value for a in n.args)
            continue
        if isinstance(n, cst.Attribute):
            if ctx.facts.value(n).kind is not Kind.STATIC:
                return []
            continue
        if isinstance(n, (cst.Subscript, cst.Lambda)):
            if ctx.facts.value(n).kind is not Kind.STATIC:
                return []
            continue
        stack.extend(iter_children(n))
    return out


def _only_static_uses(fn_node: cst.FunctionDef, name: str, ctx: FixContext) -> bool:
    """Every read of ``name`` in the function sits where a static value is needed -- or, where one read is
    a shape (a Python int is needed there, so the argument is one number, and no traced value can stand for
    it), where that number serves as well as the 0-d tracer it was: an operand of arithmetic with a traced
    array (``jnp.ones(n) / n``), or an argument of a ``jax.numpy`` / ``jax.lax`` function.  A read that
    only computes a local (``horizon = x.shape[0] - n``) counts as the reads of that local."""
    found = _static_reads(fn_node, name, ctx, 0)
    return found is not None and found[0] and (found[1] or not found[2])


def _static_reads(fn_node: cst.FunctionDef, name: str, ctx: FixContext, depth: int
                  ) -> Optional[Tuple[bool, bool, bool]]:
    """For :func:`_only_static_uses`: (a static use found, a size among them, a number use found), or None
    where a read is neither."""
    found = sized = data = ranged = neutral = False
    stack: List[cst.CSTNode] = list(block_statements(fn_node.body))
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value == name:
            if ctx.facts.read_scope.get(n) not in ("local", None):
                continue
            if isinstance(ctx.parent(n), cst.Attribute) and ctx.parent(n).attr is n:  # type: ignore[union-attr]
                continue
            if isinstance(ctx.parent(n), cst.Arg) and ctx.parent(n).keyword is n:  # type: ignore[union-attr]
                continue
            if isinstance(ctx.parent(n), cst.AssignTarget):
                continue  # (a local's one binding, see _computed_local)
            if isinstance(ctx.parent(n), cst.FormattedStringExpression) and _in_raise(n, ctx):
                continue  # (`raise ValueError(f"unknown method {method}")`: an error message formats any value)
            if not is_static_use(n, ctx):
                local = _computed_local(n, fn_node, ctx) if depth < 2 else None
                through = _static_reads(fn_node, local, ctx, depth + 1) if local is not None else None
                if through is not None and through[0] and not through[2]:
                    found, sized = True, sized or through[1]
                    continue
                if _static_arithmetic(n, ctx):
                    neutral = True  # (`t / (n - 1)` with a loop index `t`: Python numbers once `n` is static)
                    continue
                passed = _passed_to_helper(n, ctx) if depth < 3 else None
                if passed is not None:
                    # (`anti_alias(audio, factor)`: what the helper does with it, as a Python number)
                    inner = _static_reads(passed[0], passed[1], ctx, depth + 1)
                    if inner is None:
                        return None
                    found, sized, data = found or inner[0], sized or inner[1], data or inner[2]
                    continue
                if not number_use(n, ctx):
                    return None
                data = True
                continue
            found = True
            slot = static_slot(n, ctx)
            # (a math function's argument needs one Python number too: `comb(n, k)`)
            sized = sized or slot == "python" or _size_use(n, fn_node, ctx)
            ranged = ranged or slot == "range"
            continue
        if isinstance(n, (cst.FunctionDef, cst.Lambda)):
            params = n.params
            if any(p.name.value == name for p in list(params.params) + list(params.kwonly_params)
                   + list(params.posonly_params)):
                continue
        stack.extend(iter_children(n))
    # arithmetic with Python numbers is the value's own only for a count (a range bound, a size): of a
    # value tested by an `if` (`x * 2` of `if x > 0`) it is data
    return found, sized, data or (neutral and not (ranged or sized))


def array_argument(arg: cst.CSTNode, ctx: FixContext) -> bool:
    """``arg`` is a positional argument that takes array data: of a ``jax.numpy`` / ``jax.nn`` /
    ``jax.scipy`` function, or the first of a ``jax.lax`` one (``lax.with_sharding_constraint(x, sharding)``
    takes a sharding second, ``lax.dynamic_slice(x, starts, sizes)`` sizes third: not array data)."""
    if not isinstance(arg, cst.Arg) or arg.keyword is not None or arg.star:
        return False
    call = ctx.parent(arg)
    if not isinstance(call, cst.Call):
        return False
    q = ctx.index.qualify(call.func) or ""
    if q.startswith(("jax.numpy.", "jax.nn.", "jax.scipy.")):
        return True
    return q.startswith("jax.lax.") and call.args[0] is arg


#: methods and properties of an array value that keep it an array operand (or read its static shape)
_ARRAY_MEMBERS = frozenset({"shape", "dtype", "ndim", "size", "T", "sum", "mean", "max", "min", "std", "var",
                            "astype", "reshape", "ravel", "at", "real", "imag", "conj", "transpose", "squeeze"})


def array_operand(read: cst.BaseExpression, ctx: FixContext) -> bool:
    """``read`` (``self.mean``, ``hparams["l2"]``) sits where an array goes: an operand of arithmetic, array data
    of a ``jax`` function (:func:`array_argument`), indexed, a member of an array, returned or bound to a name --
    not a test, a shape, a callee: a traced argument serves there as the value did."""
    if is_static_use(read, ctx):  # type: ignore[arg-type]
        return False
    parent = ctx.parent(read)
    if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if isinstance(parent, cst.Attribute):
        return parent.value is read and parent.attr.value in _ARRAY_MEMBERS
    if isinstance(parent, cst.Subscript):
        return parent.value is read
    if isinstance(parent, cst.Arg):
        return array_argument(parent, ctx)
    return isinstance(parent, (cst.Return, cst.Assign)) and parent.value is read


def _passed_to_helper(name: cst.Name, ctx: FixContext) -> Optional[Tuple[cst.FunctionDef, str]]:
    """``name`` is an argument of a call of a function of the module (``anti_alias(audio, factor)``): that
    function's definition and the parameter the argument fills (a plain one: not ``*args`` / ``**kwargs``)."""
    arg = ctx.parent(name)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) and not arg.star else None
    if not isinstance(call, cst.Call) or arg not in call.args:
        return None
    scope, cls = ctx.index.call_scopes.get(call, (None, None))
    fn, _ = ctx.index.resolve_function(call.func, scope, cls)
    if fn is None or not isinstance(fn.node, cst.FunctionDef) or fn.is_method:
        return None
    for given, param in bind_arguments(fn.params, call.args):
        if given is arg and param is not None:
            return fn.node, param.name.value
    return None


def _in_raise(node: cst.CSTNode, ctx: FixContext) -> bool:
    """``node`` is part of a ``raise`` statement."""
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, (cst.BaseStatement, cst.BaseSmallStatement)):
        parent = ctx.parent(parent)
    return isinstance(parent, cst.Raise)


def _static_arithmetic(name: cst.Name, ctx: FixContext) -> bool:
    """``name`` is an operand of arithmetic every other operand of which is a Python value (a literal, a
    ``range`` index, a static parameter): with ``name`` static too it computes a Python number, as the
    trace's constant would."""
    top = arithmetic_top(name, ctx)
    return top is not name and _python_number(top, name.value, ctx)


def arithmetic_top(node: cst.BaseExpression, ctx: FixContext) -> cst.BaseExpression:
    """The largest arithmetic expression (binary and unary operations) that ``node`` is an operand of,
    or ``node`` itself."""
    parent = ctx.parent(node)
    while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
        node, parent = parent, ctx.parent(parent)
    return node


def _python_number(expr: cst.BaseExpression, param: str, ctx: FixContext,
                   seen: Optional[Set[str]] = None) -> bool:
    """``expr`` is a Python value once ``param`` is static: static already, ``param`` itself, or
    arithmetic of literals, static names, indices of a ``for`` loop over ``range()`` of ``param`` and
    locals every binding of which is such arithmetic (``prod = prod * (1 - t / n)``)."""
    if ctx.facts.value(expr).kind is Kind.STATIC:
        return True
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
        parts = [expr.left, expr.right] if isinstance(expr, cst.BinaryOperation) else [expr.expression]
        return all(_python_number(p, param, ctx, seen) for p in parts)
    if not isinstance(expr, cst.Name):
        return False
    if expr.value == param:
        return True
    seen = set() if seen is None else seen
    if expr.value in seen:
        return True  # (a local that feeds itself: the other bindings decide)
    if len(seen) > 8:
        return False
    seen.add(expr.value)
    scope = ctx.enclosing_function(expr)
    bindings = scope.scope.bindings_of(expr.value) if scope is not None else []
    if len(bindings) == 1 and bindings[0].kind is BindingKind.FOR:
        loop = bindings[0].node
        return isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call) \
            and isinstance(loop.iter.func, cst.Name) and loop.iter.func.value == "range" \
            and reads(loop.iter) <= {"range", param}
    values = [b.value if b.value is not None else _unpacked_value(b.node, expr.value) for b in bindings
              if b.kind is BindingKind.ASSIGNMENT]
    return bool(bindings) and len(values) == len(bindings) and all(
        v is not None and _python_number(v, param, ctx, seen) for v in values)


def _unpacked_value(node: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    """In ``a, b = x, y`` (a tuple display of as many items), the value ``name`` gets."""
    if not (isinstance(node, cst.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0].target, (cst.Tuple, cst.List))
            and isinstance(node.value, (cst.Tuple, cst.List))
            and len(node.targets[0].target.elements) == len(node.value.elements)):
        return None
    for target, value in zip(node.targets[0].target.elements, node.value.elements):
        if isinstance(target.value, cst.Name) and target.value.value == name \
                and not isinstance(value, cst.StarredElement):
            return value.value
    return None


def _computed_local(name: cst.Name, fn_node: cst.FunctionDef, ctx: FixContext) -> Optional[str]:
    """``h`` where ``name`` (through arithmetic) is the value of ``h = ...``, h a local of ``fn_node``
    bound only there."""
    child = arithmetic_top(name, ctx)
    parent = ctx.parent(child)
    if not (isinstance(parent, cst.Assign) and parent.value is child and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)):
        return None
    local = parent.targets[0].target.value
    info = ctx.index.infos.get(fn_node)
    bindings = info.scope.bindings_of(local) if info is not None else []
    return local if len(bindings) == 1 and bindings[0].node is parent else None


def number_use(name: cst.Name, ctx: FixContext, float_operand: bool = False) -> bool:
    """``name`` is an operand of arithmetic whose other side is a traced array, or (through arithmetic and
    indexing) an argument of a ``jax.numpy`` / ``jax.lax`` function or an index of a traced array (not a
    slice bound): a Python number there gives what the tracer gave.
    With ``float_operand`` (``name`` holds a float), any traced value that is not a Python container
    counts as the other side (a leaf unpacked from a carry): a float does arithmetic with a tracer alone."""
    child: cst.CSTNode = name
    parent = ctx.parent(child)
    while isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.ComparisonTarget, cst.Comparison)) \
            or isinstance(parent, cst.Subscript) and parent.value is child:  # (an item or slice of it: data too)
        if isinstance(parent, cst.Comparison):
            # an elementwise comparison with a traced array (`ratio > threshold`): a mask of the same values
            own = child.comparator if isinstance(child, cst.ComparisonTarget) else child
            sides = [parent.left] + [t.comparator for t in parent.comparisons]
            if any(side is not own and ctx.facts.value(side).traced_array for side in sides):
                return True
            return False
        if isinstance(parent, cst.BinaryOperation):
            other = parent.right if parent.left is child else parent.left
            value = ctx.facts.value(other)
            if value.traced_array or float_operand and value.kind is Kind.TRACED and not value.container:
                return True
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, cst.Arg) and not parent.star and parent.keyword is None:
        call = ctx.parent(parent)
        q = ctx.index.qualify(call.func) if isinstance(call, cst.Call) else None
        return q is not None and q.startswith(("jax.numpy.", "jax.lax."))
    if isinstance(parent, cst.Index):
        # an index of a traced array (`r[i, j]`, not a slice bound): a tracer indexes it as the number did
        element = ctx.parent(parent)
        subscript = ctx.parent(element) if isinstance(element, cst.SubscriptElement) else None
        if not isinstance(subscript, cst.Subscript) or any(isinstance(e.slice, cst.Slice) for e in subscript.slice):
            return False
        held = ctx.facts.value(subscript.value)
        # (several axes: only an array takes them -- a tuple or a list takes one int, which a tracer is not)
        return held.traced_array or (held.kind is Kind.TRACED and len(subscript.slice) > 1)
    return False


def _size_use(name: cst.Name, fn_node: cst.FunctionDef, ctx: FixContext) -> bool:
    """A static use of ``name`` that needs one Python int and that nothing traced can stand for: a shape,
    the length of a slice (``x[:n]``, ``x[k:k + n]``: the result's shape) or its stride -- a ``range()`` bound has
    ``lax.fori_loop`` and a slice of fixed length at a traced start ``lax.dynamic_slice``, which keep the
    value traced."""
    slot = static_slot(name, ctx)
    if slot == "shape":
        return True
    if slot != "slice":
        return False
    bound: cst.CSTNode = name
    cut = ctx.parent(bound)
    while cut is not None and not isinstance(cut, cst.Slice):
        bound, cut = cut, ctx.parent(cut)
    if not isinstance(cut, cst.Slice):
        return False
    if cut.step is not None:
        # a stride (`x[:, ::factor]`) sets how many elements are kept: no traced value stands for it
        return bound is cut.step
    lower, upper = cut.lower, cut.upper
    if lower is None or upper is None:
        return True
    # `x[s:s + w]`: the length is w, the same for every s
    width = upper.right if isinstance(upper, cst.BinaryOperation) and isinstance(upper.operator, cst.Add) \
        and upper.left.deep_equals(lower) else None
    return width is None or name.value in _reads_through_locals(width, fn_node, ctx)


def _reads_through_locals(expr: cst.CSTNode, fn_node: cst.FunctionDef, ctx: FixContext) -> Set[str]:
    """The names ``expr`` reads, and those the locals it reads were computed from (one binding each)."""
    info = ctx.index.infos.get(fn_node)
    out: Set[str] = set()
    todo = list(reads(expr))
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        value = info.scope.single_value(name) if info is not None else None
        if value is not None:
            todo.extend(reads(value))
    return out


def is_static_use(name: cst.Name, ctx: FixContext) -> bool:
    """``name`` sits in an ``if``/``while`` test, a ``range()`` bound, a shape, a slice bound or ``axis=``."""
    return static_slot(name, ctx) is not None


#: keywords that give a shape or a size
_SHAPE_KEYWORDS = frozenset({"shape", "length", "size", "num"})


def static_slot(name: cst.Name, ctx: FixContext) -> Optional[str]:
    """Where ``name`` (through arithmetic, comparisons, static builtins and tuples of sizes) needs a static
    value: ``"test"`` (an ``if`` / ``while`` / ``assert`` test), ``"slice"``, ``"range"``, ``"shape"`` (a
    shape argument or keyword, a ``reshape``-like method), ``"keyword"`` (``axis=`` and the like), ``"key"``
    (a Python dict's key) or ``"python"`` (an argument of a ``math`` function); None for no such place."""
    child: cst.CSTNode = name
    parent = ctx.parent(child)
    while True:
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.ComparisonTarget,
                               cst.BooleanOperation)):
            child, parent = parent, ctx.parent(parent)
        elif isinstance(parent, cst.Subscript) and parent.value is child:
            child, parent = parent, ctx.parent(parent)  # an item or a slice of it (`jnp.zeros(shape[0])`)
        elif isinstance(parent, cst.Arg) and _static_builtin_call(ctx.parent(parent), ctx):
            child = ctx.parent(parent)
            parent = ctx.parent(child)
        elif isinstance(parent, cst.Element) and isinstance(ctx.parent(parent), (cst.Tuple, cst.List)):
            child = ctx.parent(parent)  # (n, m) as a shape
            parent = ctx.parent(child)
        else:
            break
    if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert)) and parent.test is child:
        return "test"
    if isinstance(parent, cst.Slice):
        return "slice"
    if isinstance(parent, cst.Index):
        # a key of a Python dict (`TABLE[k]`, `PAIRS[a, b]`): hashed, which a tracer cannot be
        lookup = ctx.parent(ctx.parent(parent))
        if isinstance(lookup, cst.Subscript) and ctx.facts.value(lookup.value).mapping \
                and not ctx.facts.value(lookup.value).numpy_array:
            return "key"
        return None
    if not isinstance(parent, cst.Arg):
        return None
    call = ctx.parent(parent)
    if not isinstance(call, cst.Call):
        return None
    if isinstance(call.func, cst.Name) and call.func.value == "range" \
            and ctx.facts.read_scope.get(call.func) == "builtin":
        return "range"
    if parent.keyword is not None and parent.keyword.value in STATIC_KEYWORDS:
        return "shape" if parent.keyword.value in _SHAPE_KEYWORDS else "keyword"
    q = ctx.index.qualify(call.func)
    if q is not None and q.startswith("math."):
        return "python"  # Python's math functions take Python numbers (`comb(n, k)`): a tracer raises
    if q is not None and parent.keyword is None and not parent.star:
        position = [a for a in call.args if a.keyword is None].index(parent)
        found = _positional_slot(q, position)
        if found is not None:
            return found
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in SHAPE_METHODS and q is None:
        return "shape"
    return None


def _static_builtin_call(call: Optional[cst.CSTNode], ctx: FixContext) -> bool:
    """``int(n)``, ``max(n, 1)``...: builtins that keep a static argument static (not ``range``)."""
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in (
        STATIC_BUILTINS - {"range"}) and ctx.facts.read_scope.get(call.func) == "builtin"


# ------------------------------------------------------------------ sites


def _literal_spec(node: cst.BaseExpression, ints: bool) -> Optional[List]:
    single = int_value(node) if ints else string_value(node)
    if single is not None:
        return [single]
    elements = literal_elements(node)
    if elements is None:
        return None
    out = []
    for el in elements:
        v = int_value(el) if ints else string_value(el)
        if v is None:
            return None
        out.append(v)
    return out


def _spec_text(values: List, ints: bool) -> str:
    items = [str(v) if ints else '"' + v + '"' for v in values]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def merged_static_args(args: List[cst.Arg], params: List[str], indices, positional: List[str],
                       ctx: FixContext, t, dropped: Sequence[str] = ()) -> Optional[List[cst.Arg]]:
    """The arguments of a jit call with ``params`` added to its static spec and ``dropped`` taken out
    (``indices``: the positions of the positional ones among ``positional``); a keyword left empty by
    ``dropped`` goes."""
    nums_arg = next((a for a in args if a.keyword is not None and a.keyword.value in t.static_argnums_kw), None)
    names_arg = next((a for a in args if a.keyword is not None and a.keyword.value in t.static_argnames_kw), None)
    if any(a.star == "**" for a in args):
        return None
    nums = _literal_spec(nums_arg.value, True) if nums_arg is not None else []
    names = _literal_spec(names_arg.value, False) if names_arg is not None else []
    if nums is None or names is None:
        return None
    has_nums, has_names = nums_arg is not None, names_arg is not None
    gone = {indices[p] for p in dropped if p in indices}
    new_nums = [n for n in nums if n % max(len(positional), 1) not in gone]
    new_names = [n for n in names if n not in dropped]
    for p in params:
        if p in indices and indices[p] not in [n % max(len(positional), 1) for n in nums]:
            new_nums.append(indices[p])
        if p not in new_names:
            new_names.append(p)
    all_positional = all(p in indices for p in params)
    emit_nums, emit_names = has_nums, has_names
    if not has_nums and not has_names:
        emit_names = True
    elif has_nums and not has_names and not all_positional:
        # a keyword-only parameter: static_argnames too, with the names JAX inferred before
        inferred = [positional[n] for n in new_nums if -len(positional) <= n < len(positional)]
        new_names = inferred + [p for p in new_names if p not in inferred]
        emit_names = True
    no_space = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    out = list(args)
    specs = ((emit_nums, nums_arg, "static_argnums", new_nums, True),
             (emit_names, names_arg, "static_argnames", new_names, False))
    for emit, existing, key, values, ints in specs:
        if not emit:
            continue
        if not values and dropped and existing is not None:
            out = [a for a in out if a is not existing]
            if out:
                out[-1] = out[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            continue
        value = cst.parse_expression(_spec_text(values, ints))
        if existing is not None:
            out = [a.with_changes(value=value) if a is existing else a for a in out]
        else:
            out.append(cst.Arg(value, keyword=cst.Name(key), equal=no_space))
    return out


def _edit_site(entry: EntryPoint, params: List[str], indices, positional: List[str], ctx: FixContext,
               dropped: Sequence[str] = ()):
    t = entry.transform
    site = entry.site
    if entry.shared_spec:
        return None  # `@static_jit`: its static arguments are shared by every function it decorates
    if isinstance(site, cst.Decorator):
        d = site.decorator
        if isinstance(d, (cst.Name, cst.Attribute)):
            spelled = ctx.import_name("functools.partial", at=d)
            if spelled is None:
                return None
            partial, imports = spelled
            args = merged_static_args([], params, indices, positional, ctx, t, dropped)
            if args is None:
                return None
            new = cst.Call(func=cst.parse_expression(partial), args=[cst.Arg(d)] + args)
            edit = ctx.replace(d, new)
            return None if edit is None else (edit,) + imports
        if isinstance(d, cst.Call):
            return _edit_call(d, params, indices, positional, ctx, t, dropped)
        return None
    if isinstance(site, cst.Call):
        call = site
        if isinstance(call.func, cst.Call):
            call = call.func  # jax.jit(**kw)(f) / partial(jax.jit, ...)(f)
        return _edit_call(call, params, indices, positional, ctx, t, dropped)
    return None


def _edit_call(call: cst.Call, params, indices, positional, ctx: FixContext, t, dropped: Sequence[str] = ()):
    args = list(call.args)
    head: List[cst.Arg] = []
    if ctx.index.qualify(call.func) == "functools.partial":
        head, args = args[:1], args[1:]
    merged = merged_static_args(args, params, indices, positional, ctx, t, dropped)
    if merged is None:
        return None
    edit = ctx.replace(call, call.with_changes(args=head + merged))
    return None if edit is None else (edit,)


@rewrites("JIT303")
def to_static_formatted(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT303: a string used as data (a dict key, a key looked up, a name's value, a returned value) built from
    parameters of the jitted function (``f"return/agent_{agent_id}": ret``) -> those parameters static, where none
    is rebound and every read of each takes a Python value as well: in a string, where a static value is
    needed, as an operand of array arithmetic or of a ``jax.numpy`` / ``jax.lax`` function, as an
    index.  UNSAFE: one compile per value.  (A string given to a call -- a print, a log, an
    error -- is left alone: there the value wanted is the one of each call.)"""
    fn = ctx.enclosing_function(node)
    if fn is None or not isinstance(fn.node, cst.FunctionDef):
        return None
    holder = ctx.parent(node)
    while isinstance(holder, cst.BinaryOperation) and isinstance(holder.operator, cst.Add):
        node, holder = holder, ctx.parent(holder)  # `"expert" + str(expert_id)`: the whole string
    if not ((isinstance(holder, cst.DictElement) and holder.key is node)
            or (isinstance(holder, (cst.Assign, cst.Return)) and holder.value is node)
            or (isinstance(holder, cst.Index) and holder.value is node)):  # (`params[f"dense_{depth}"]`)
        return None
    params = traced_parameters(node, fn, ctx)
    if not params or any(counter_like(p) for p in params):
        return None
    body = block_statements(fn.node.body)
    if set(params) & assigned_in(body):
        return None
    for p in params:
        for ref in name_references(fn.node.body, p):
            if ctx.facts.read_scope.get(ref) != "local" or not _python_value_use(ref, ctx):
                return None
    order = [p.name.value for p, _ in fn.params]
    return static_argnames_fix(fn, sorted(params, key=order.index), ctx)


def _python_value_use(ref: cst.Name, ctx: FixContext) -> bool:
    """A read of a parameter that serves as well with a Python value as with a tracer (see
    :func:`to_static_formatted`)."""
    parent = ctx.parent(ref)
    if isinstance(parent, cst.FormattedStringExpression) and parent.expression is ref:
        return True
    if isinstance(parent, cst.Arg) and not parent.star:
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and (
                (call.args[0] is parent and parent.keyword is None and isinstance(call.func, cst.Name)
                 and call.func.value in ("str", "repr", "format") and ctx.facts.read_scope.get(call.func) == "builtin")
                or template_format(call)):
            return True  # `"expert" + str(expert_id)`, `"{}-{}".format(season, tier)`: in a string
    if isinstance(parent, cst.BinaryOperation) and isinstance(parent.operator, cst.Modulo) and parent.right is ref \
            and isinstance(literal_value(parent.left), str):
        return True  # `"expert%d" % expert_id`
    if isinstance(parent, cst.Index) and isinstance(ctx.parent(parent), cst.SubscriptElement):
        return True  # an index: a Python int selects what the tracer did, of a list or a dict as of an array
    return is_static_use(ref, ctx) or number_use(ref, ctx)


# ================================================================ JIT502


@rewrites("JIT502")
def to_valid_static_spec(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT502: a ``static_argnames`` name that is not a parameter -> the one parameter close to it;
    an out-of-range ``static_argnums`` index -> the one parameter that needs to be static, or
    removed when none does (advice only when several might be meant)."""
    if isinstance(node, cst.Call):
        fix = _untraceable_argument(node, ctx)
        if fix is None:
            fix = _names_for_both(node, ctx)
        return fix if fix is not None else _hashable_value(node, ctx)
    if not isinstance(node, cst.Arg) or node.keyword is None:
        return None  # (a keyword call: nothing)
    entries = [e for e in ctx.index.entries if any(a is node for a in e.spec_args)]
    if not entries or any(e.function is not entries[0].function or e.shared_spec for e in entries):
        # one spec for several functions (also a shared `static_jit = partial(jax.jit, ...)`, which
        # another module may import): what fits one may not fit another
        return None
    entry = entries[0]
    t = entry.transform
    if t is None or not isinstance(entry.function.node, cst.FunctionDef):
        return None
    if node.keyword.value in t.static_argnames_kw:
        return _close_names(node, entry, ctx)
    if node.keyword.value in t.static_argnums_kw:
        return _valid_numbers(node, entry, ctx)
    return None


def _names_for_both(call: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """A call passing by keyword a parameter that ``static_argnums`` makes static where ``static_argnames`` is
    given too (JAX then infers neither from the other: the keyword argument is traced) -> one
    ``static_argnames`` naming every static parameter, ``static_argnums`` dropped: JAX infers the positions
    from the names, so each of them is static passed either way.  SAFE: the same parameters are static at
    every call that passed them by position, and the keyword calls get what the spec meant."""
    entries = [e for e in ctx.index.entries if e.both_static_kinds and call in e.visible_calls()]
    if len(entries) != 1 or entries[0].shared_spec or entries[0].transform is None:
        return None
    entry = entries[0]
    t = entry.transform
    fn = entry.function.node
    if not isinstance(fn, cst.FunctionDef) or isinstance(fn.params.star_arg, cst.Param):
        return None  # (an index may fall in `*args`, which no name can make static)
    keyword = [a.keyword.value for a, _ in entry.bind_args(call) if a.keyword is not None]
    if not set(keyword) & (entry.static_by_position() - set(entry.static_names or ())):
        return None
    site = entry.site.decorator if isinstance(entry.site, cst.Decorator) else entry.site
    if not isinstance(site, cst.Call):
        return None
    spec = site.func if isinstance(site.func, cst.Call) else site
    args = list(spec.args)
    nums_arg = next((a for a in args if a.keyword is not None and a.keyword.value in t.static_argnums_kw), None)
    names_arg = next((a for a in args if a.keyword is not None and a.keyword.value in t.static_argnames_kw), None)
    if nums_arg is None or names_arg is None:
        return None
    positional = [p.name.value for p in entry.positional_params()]
    nums = _literal_spec(nums_arg.value, True)
    names = _literal_spec(names_arg.value, False)
    if nums is None or names is None or any(not -len(positional) <= n < len(positional) for n in nums):
        return None
    merged = [positional[n] for n in nums] + [n for n in names if n not in {positional[n] for n in nums}]
    out = [a for a in args if a is not nums_arg]
    out = [a.with_changes(value=cst.parse_expression(_spec_text(merged, False))) if a is names_arg else a
           for a in out]
    out[-1] = out[-1].with_changes(comma=args[-1].comma if args[-1] is not nums_arg else cst.MaybeSentinel.DEFAULT)
    edit = ctx.replace(spec, spec.with_changes(args=out))
    if edit is None:
        return None
    return ctx.fix(Applicability.SAFE, f"Name every static parameter: `static_argnames={_spec_text(merged, False)}`, "
                                       "static either way it is passed", (edit,))


def _untraceable_argument(call: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """A string or a function passed to a traced parameter (the finding's subject): the parameter made
    static where no call seen gives it an unhashable value and the function never rebinds it.  A
    parameter the spec makes static instead, that a call seen gives an array (unhashable: that call
    fails on it too), and that no read needs static, is taken out of the spec in the same edit
    (``static_argnums=(0,)`` put on the array, not on the flag).  UNSAFE: one compile per value.
    Otherwise advice.  None when the subject is not such a parameter."""
    name = ctx.subject
    entries = [e for e in ctx.index.entries if e.transform is not None and call in e.visible_calls()]
    if name is None or len(entries) != 1 or entries[0].static_names is None or entries[0].static_nums is None:
        return None
    entry = entries[0]
    fn = entry.function
    static = entry.static_params()
    if name in static or name not in {p.name.value for p, _ in fn.params}:
        return None  # (the finding is about a static argument: an unhashable value)
    advice = Fix(Applicability.DISPLAY_ONLY, f"Make `{name}` static: `static_argnames=(\"{name}\",)`", ())
    if not isinstance(fn.node, cst.FunctionDef) or name in assigned_in(block_statements(fn.node.body)):
        return advice
    # the call seen passes a value JAX cannot trace, so the function works only with `name` static; it
    # must stay hashable at every call seen (`getattr(jnp, kind)`, `fn(x)`, `if kind == ...` all read a
    # static value as they read the string)
    if any(param is not None and param.name.value == name and (arg.star or unhashable_argument(
            arg.value, c, ctx.index) is not None) for c in entry.visible_calls() for arg, param in entry.bind_args(c)):
        return advice
    given_arrays = {param.name.value for c in entry.visible_calls() for arg, param in entry.bind_args(c)
                    if param is not None and param.name.value in static and not arg.star
                    and unhashable_argument(arg.value, c, ctx.index) is not None}
    # (read as the analysis saw it, static: what matters is that no read needs a static value)
    dropped = [p for p, _ in fn.params if p.name.value in given_arrays
               and p.name.value not in assigned_in(block_statements(fn.node.body))
               and not any(ctx.facts.read_scope.get(ref) != "local" or is_static_use(ref, ctx)
                           for ref in name_references(fn.node.body, p.name.value))]
    fix = static_argnames_fix(fn, [name], ctx, [p.name.value for p in dropped])
    return fix if fix is not None else advice


def _hashable_value(call: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """An unhashable value passed to a static parameter: a list display written at the call ->
    the tuple of the same items, where the function uses the parameter only as a tuple would
    serve it (SAFE); otherwise advice on a hashable form (display-only)."""
    for entry in ctx.index.entries:
        if entry.transform is None or call not in entry.visible_calls():
            continue
        found = unhashable_static_argument(entry, call, ctx.index)
        if found is None:
            continue
        arg, name, value = found
        if isinstance(value, cst.List) and _flat(value) and isinstance(entry.function.node, cst.FunctionDef) \
                and _read_as_a_sequence(name, entry.function.node, ctx):
            edit = None
            if arg.value is value:
                edit = ctx.replace(value, _as_tuple(value), wrap=False)
            elif isinstance(arg.value, cst.Name) and "tuple" not in ctx.index.globals:
                # a name bound once to the list (`LAYER_SIZES = [3, 16, 2]`): a tuple of it at the call
                edit = ctx.replace(arg.value, cst.Call(cst.Name("tuple"), [cst.Arg(arg.value)]), wrap=False)
            if edit is not None:
                return ctx.fix(Applicability.SAFE, f"Pass a tuple as `{name}`: a static argument must be hashable",
                               (edit,))
        if _list_of_hashables(value, ctx) and arg.value is value and isinstance(entry.function.node, cst.FunctionDef) \
                and _read_as_a_sequence(name, entry.function.node, ctx) and "tuple" not in ctx.index.globals:
            # `list(BASES)`, BASES a string: `tuple(BASES)` holds the same items, and is hashable
            edit = ctx.replace(value.func, cst.Name("tuple"), wrap=False)
            if edit is not None:
                return ctx.fix(Applicability.SAFE, f"Pass a tuple as `{name}`: a static argument must be hashable",
                               (edit,))
        frozen = _as_frozenset(arg, name, value, entry, ctx)
        if frozen is not None:
            return frozen
        scope, _ = ctx.index.call_scopes.get(call, (None, None))
        cls = unhashable_dataclass(value.func.value, ctx.index) \
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) else None
        fix = _frozen(cls, ctx) if cls is not None else \
            _traced_instead(entry, name, ctx) if array_valued(value, ctx.index, scope) \
            or _numbers_dict(value, ctx) else None
        if fix is None and _integer_scalar(value, ctx):
            fix = _as_python_int(arg, name, call, ctx)
        return fix or Fix(Applicability.DISPLAY_ONLY, _hashable_advice(value, ctx.code(value), name), ())
    return None


#: jax.numpy functions whose result, on any array, is one integer (a 0-d int array)
_INT_SCALAR_RESULTS = frozenset({"jax.numpy.argmin", "jax.numpy.argmax", "jax.numpy.count_nonzero",
                                 "jax.numpy.nanargmin", "jax.numpy.nanargmax"})


def _integer_scalar(value: cst.BaseExpression, ctx: FixContext) -> bool:
    """``value`` is one integer held in an array: ``jnp.argmin(a)`` (no ``axis``), ``+`` / ``-`` an int literal."""
    while isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract)) \
            and isinstance(value.right, cst.Integer):
        value = value.left
    return isinstance(value, cst.Call) and ctx.index.qualify(value.func) in _INT_SCALAR_RESULTS \
        and len(value.args) == 1 and value.args[0].keyword is None and not value.args[0].star


def _as_python_int(arg: cst.Arg, name: str, call: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """A 0-d integer array given to a static parameter -> ``int(...)`` of it at the call: the Python int it
    holds is hashable, and the call, outside traced code, has the concrete value (UNSAFE: another caller
    may still pass the array; the function sees a Python int where it saw an array)."""
    if ctx.in_traced_code(call):
        return None  # (in traced code `int()` of a tracer raises)
    if "int" in ctx.index.globals or arg.star:
        return None
    edit = ctx.replace(arg.value, cst.Call(cst.Name("int"), [cst.Arg(arg.value)]), wrap=False)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Pass the Python int it holds as `{name}` (`int(...)`): a static "
                   "argument must be hashable, and an array is not", (edit,))


#: field annotations whose values hash: a frozen dataclass holding only these hashes
_HASHABLE_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "complex", "bytes", "None", "tuple", "frozenset",
                                   "typing.Tuple", "typing.FrozenSet", "typing.Optional", "typing.Literal",
                                   "typing.Union"})


def _frozen(cls: ClassInfo, ctx: FixContext) -> Optional[Fix]:
    """An instance of a ``@dataclass`` (unhashable: ``eq`` sets ``__hash__`` to None) passed as a static
    argument -> the dataclass made ``frozen=True``, which hashes it by its fields' values.  Where
    its fields are annotated only with hashable types (numbers, strings, tuples, ``Optional`` of
    them), no field has a ``field(...)`` default (a ``default_factory`` gives a list or a dict), the
    module assigns no attribute of that name on anything (a frozen instance raises
    FrozenInstanceError), and no class of the module subclasses it.  UNSAFE: code elsewhere
    that sets an attribute of an instance now raises, and equal configurations share one compile.
    Otherwise None (advice)."""
    decorator = cls.decorators[0]  # (its one decorator: see unhashable_dataclass)
    fields = _hashable_fields(cls, ctx)
    if not fields:
        return None
    if any(cls.name in other.bases for other in ctx.index.classes.values()):
        return None
    for node in ctx.index.module.body:
        for found in _attribute_writes(node):
            if found in fields or found == "__dict__":
                return None
    if isinstance(decorator, cst.Call):
        new = decorator.with_changes(args=appended(list(decorator.args), cst.Arg(
            cst.Name("True"), keyword=cst.Name("frozen"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))))
    else:
        new = cst.Call(decorator, [cst.Arg(cst.Name("True"), keyword=cst.Name("frozen"), equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))])
    edit = ctx.replace(decorator, new, wrap=False)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Make `{cls.name}` a frozen dataclass (`frozen=True`): a static argument "
                                         "must be hashable, and a frozen dataclass hashes by its fields", (edit,))


@rewrites("JIT502")
def to_static_frozen_self(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT502: ``@jax.jit`` on a method of a frozen standard-library dataclass (``self`` is no JAX type: every
    call raises ``TypeError``) -> ``self`` static (``static_argnums=0``): a frozen dataclass hashes and compares
    by its fields, so an equal instance finds the compiled code and another compiles its own.  Where every
    field is annotated with a hashable type (numbers, strings, tuples, ``Optional`` of them) with no
    ``field(...)`` default, and no class of the module subclasses it.  UNSAFE: each distinct instance compiles
    once (as a static argument does)."""
    fn_node = ctx.parent(node)
    if not isinstance(fn_node, cst.FunctionDef) or fn_node.name is not node:
        return None
    fn = ctx.index.infos.get(fn_node)
    cls = fn.cls if fn is not None else None
    if cls is None or not fn.params or not frozen_dataclass(cls, ctx.index) or not _hashable_fields(cls, ctx) \
            or any(cls.name in other.bases for other in ctx.index.classes.values()):
        return None
    fix = static_argnames_fix(fn, [fn.params[0][0].name.value], ctx)
    if fix is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Make `{fn.params[0][0].name.value}` static: "
                   f"a frozen `{cls.name}` hashes and compares by its fields", fix.edits)


def _hashable_fields(cls: ClassInfo, ctx: FixContext) -> Optional[List[str]]:
    """The fields of the dataclass ``cls``, where each is annotated with a hashable type and none has a
    ``field(...)`` default (a ``default_factory`` gives a list or a dict); None otherwise."""
    fields: List[str] = []
    for line in cls.node.body.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                if not _hashable_annotation(small.annotation.annotation, ctx) or isinstance(small.value, cst.Call):
                    return None
                fields.append(small.target.value)
    return fields


def _hashable_annotation(annotation: cst.BaseExpression, ctx: FixContext) -> bool:
    if isinstance(annotation, cst.Subscript):
        return _hashable_annotation(annotation.value, ctx) and all(
            isinstance(el.slice, cst.Index) and _hashable_annotation(el.slice.value, ctx) for el in annotation.slice)
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        return _hashable_annotation(annotation.left, ctx) and _hashable_annotation(annotation.right, ctx)
    if isinstance(annotation, (cst.SimpleString, cst.Ellipsis)):
        return isinstance(annotation, cst.Ellipsis) or annotation.value.strip("'\"") in _HASHABLE_ANNOTATIONS
    if isinstance(annotation, cst.Name) and annotation.value in _HASHABLE_ANNOTATIONS \
            and ctx.facts.read_scope.get(annotation) in (None, "builtin"):
        return True
    if isinstance(annotation, cst.Name) and annotation.value == "None":
        return True
    q = ctx.index.qualify(annotation) if isinstance(annotation, (cst.Name, cst.Attribute)) else None
    return q in _HASHABLE_ANNOTATIONS


def _attribute_writes(node: cst.CSTNode) -> Iterator[str]:
    """The attribute names assigned anywhere under ``node`` (``x.a = ...``, ``x.a += ...``,
    ``setattr(x, "a", ...)``: "__dict__" for a ``setattr`` whose name is not a literal)."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        targets: List[cst.BaseExpression] = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
            targets = [n.target]
        for t in targets:
            for leaf in unpacked_targets(t):
                if isinstance(leaf, cst.Attribute):
                    yield leaf.attr.value
        if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value in ("setattr", "delattr"):
            literal = string_value(n.args[1].value) if len(n.args) > 1 else None
            yield literal if literal is not None else "__dict__"
        stack.extend(iter_children(n))


def _numbers_dict(value: cst.BaseExpression, ctx: FixContext) -> bool:
    """A dict display whose values are all number literals (``{"pde": 1.0, "bc": 10.0}``), or a module name bound
    once to one: a pytree of numbers, which passed traced gives the function the same numbers as arrays."""
    if isinstance(value, cst.Name):
        held = ctx.index.single_value(value.value, None)
        value = held if isinstance(held, cst.Dict) else value
    if not isinstance(value, cst.Dict) or not value.elements:
        return False
    numbers = []
    for element in value.elements:
        if not isinstance(element, cst.DictElement):
            return False
        item = element.value
        if isinstance(item, cst.UnaryOperation) and isinstance(item.operator, cst.Minus):
            item = item.expression
        numbers.append(isinstance(item, (cst.Integer, cst.Float)))
    return all(numbers)


def _traced_instead(entry: EntryPoint, name: str, ctx: FixContext) -> Optional[Fix]:
    """An array passed as a static argument (unhashable: every such call raises) -> the parameter
    taken out of the static arguments, where the function never rebinds it and reads it only as
    array data (:func:`_data_only`).  UNSAFE: a call that passed it a hashable value (a tuple) now
    traces that too.  Otherwise None (advice)."""
    fn = entry.function
    if not isinstance(fn.node, cst.FunctionDef) or entry.shared_spec \
            or name in assigned_in(block_statements(fn.node.body)) or not _data_only(fn.node, name, ctx):
        return None
    fix = _spec_without(entry, fn, name, ctx)
    if fix is None:
        return None
    return ctx.fix(fix.applicability, f"Make `{name}` a traced argument (out of the static arguments): it holds "
                                      "array data, and an array is unhashable", fix.edits)


def _hashable_advice(value: cst.BaseExpression, code: str, name: str) -> str:
    """What to pass instead of the unhashable ``value`` when it is not rewritten: which hashable form
    keeps the function's meaning depends on how it uses the value (``sizes + [1]`` fails on a tuple)."""
    if isinstance(value, (cst.List, cst.Set)) and all(isinstance(el, cst.Element) for el in value.elements):
        items = [el.value for el in value.elements]
        inner = ", ".join(cst.Module([]).code_for_node(v) for v in items) + ("," if len(items) == 1 else "")
        return f"Pass a tuple, `({inner})`, as `{name}`: a static argument must be hashable"
    if isinstance(value, (cst.Dict, cst.DictComp)):
        return (f"Pass a frozen dataclass (`@dataclasses.dataclass(frozen=True)`) or a tuple of pairs as "
                f"`{name}`: a static argument must be hashable")
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list" \
            and len(value.args) == 1 and not value.args[0].star and value.args[0].keyword is None:
        inner = cst.Module([]).code_for_node(value.args[0].value)
        return f"Pass `tuple({inner})` as `{name}`: a static argument must be hashable"
    if isinstance(value, (cst.List, cst.ListComp, cst.Set, cst.SetComp)):
        return f"Pass `tuple({code})` as `{name}`: a static argument must be hashable"
    if not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        code = f"({code})"  # (`tuple((a + 1).tolist())`, not `tuple(a + 1.tolist())`)
    return (f"Pass a tuple (`tuple({code}.tolist())` for an array) or a frozen dataclass as `{name}`, or "
            f"make `{name}` a traced argument if it holds data: a static argument must be hashable")


def _list_of_hashables(value: cst.BaseExpression, ctx: FixContext) -> bool:
    """``list(x)`` (the builtin) of what has hashable items: a string, a ``range``, or a module-level name
    bound once to a string or to a tuple of literals (``BASES = "ACGT"``)."""
    def builtin(name: cst.Name) -> bool:  # (read where no analysis ran: a name the module does not bind)
        return ctx.facts.read_scope.get(name, "builtin" if name.value not in ctx.index.globals else None) \
            == "builtin"

    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list"
            and builtin(value.func) and len(value.args) == 1
            and value.args[0].keyword is None and not value.args[0].star):
        return False
    source = value.args[0].value
    if isinstance(source, cst.Name) and source.value in ctx.index.globals \
            and ctx.facts.read_scope.get(source, "global") == "global":
        info = ctx.index.globals.get(source.value)
        bound = ctx.index.single_value(source.value, None) if info is not None and info.assignments == 1 \
            and source.value not in ctx.index.global_written else None
        source = bound if bound is not None else source
    if isinstance(source, (cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(source, cst.Tuple):
        return all(isinstance(el, cst.Element) and literal_value(el.value) is not None for el in source.elements)
    return isinstance(source, cst.Call) and isinstance(source.func, cst.Name) and source.func.value == "range" \
        and builtin(source.func)


def _flat(value: cst.List) -> bool:
    """Items that are hashable literals: a tuple of them is hashable."""
    return all(isinstance(el, cst.Element) and literal_value(el.value) is not None for el in value.elements)


def _as_tuple(value: cst.List) -> cst.Tuple:
    """``[a, b]`` -> ``(a, b)``; ``[a]`` -> ``(a,)``; the spacing and comments inside kept."""
    elements = list(value.elements)
    if len(elements) == 1 and isinstance(elements[0].comma, cst.MaybeSentinel):
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return cst.Tuple(elements, lpar=[cst.LeftParen(whitespace_after=value.lbracket.whitespace_after)],
                     rpar=[cst.RightParen(whitespace_before=value.rbracket.whitespace_before)])


#: builtins that read a sequence's items and care not whether it is a list or a tuple
_SEQUENCE_READERS = frozenset({"len", "tuple", "list", "zip", "enumerate", "sum", "min", "max", "sorted",
                               "reversed", "any", "all", "iter", "set", "frozenset"})


def _as_frozenset(arg: cst.Arg, name: str, value: cst.BaseExpression, entry: EntryPoint,
                  ctx: FixContext) -> Optional[Fix]:
    """A set written at the call (``set(enabled)``, ``{0, 2}``, a set comprehension) given to a static
    parameter that the function only tests for members, iterates, measures or combines without changing
    (``z in zones_on``) -> ``frozenset(...)``: the same members, hashable.  UNSAFE: iterating a frozenset
    may give its members in another order than the set did."""
    if arg.value is not value or not isinstance(entry.function.node, cst.FunctionDef) \
            or "frozenset" in ctx.index.globals:
        return None
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "set" \
            and ctx.index.qualify(value.func) is None and len(value.args) <= 1:
        new: cst.BaseExpression = value.with_changes(func=cst.Name("frozenset"))
    elif isinstance(value, (cst.Set, cst.SetComp)):
        new = cst.Call(cst.Name("frozenset"), [cst.Arg(value)])
    else:
        return None
    uses = list(name_references(entry.function.node.body, name))
    if not uses or not all(_set_use(use, ctx) for use in uses):
        return None
    edit = ctx.replace(value, new, wrap=False)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Pass a `frozenset` as `{name}`: the same members, and a static "
                   "argument must be hashable", (edit,))


#: methods of a set that read it (what ``frozenset`` has too)
_SET_READERS = frozenset({"issubset", "issuperset", "isdisjoint", "union", "intersection", "difference",
                          "symmetric_difference", "copy"})


def _set_use(node: cst.BaseExpression, ctx: FixContext) -> bool:
    """A use of a set that a frozenset serves alike: a membership test, a loop over it, an argument of a
    builtin that reads it, an operand of ``|`` ``&`` ``-`` ``^``, a reading method."""
    parent = ctx.parent(node)
    if isinstance(parent, cst.Attribute) and parent.value is node:
        return parent.attr.value in _SET_READERS
    if isinstance(parent, cst.BinaryOperation) and isinstance(
            parent.operator, (cst.BitOr, cst.BitAnd, cst.Subtract, cst.BitXor)):
        return True
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
        return True
    if isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)) \
            and parent.comparator is node:
        return True
    if isinstance(parent, cst.Arg) and parent.star == "" and parent.keyword is None:
        call = ctx.parent(parent)
        return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) \
            and call.func.value in _SEQUENCE_READERS | {"frozenset", "set"} \
            and ctx.facts.read_scope.get(call.func) == "builtin"
    return False


def _read_as_a_sequence(name: str, fn: cst.FunctionDef, ctx: FixContext) -> bool:
    """Every use of parameter ``name`` in ``fn`` reads its items or its length, or passes it as a
    shape: uses a tuple serves exactly as a list.  (Not a write, a concatenation, a comparison, a
    type test, nor a call that might do any of these.)"""
    uses = list(name_references(fn.body, name))
    return bool(uses) and all(_sequence_use(use, ctx) for use in uses)


def _sequence_use(node: cst.BaseExpression, ctx: FixContext) -> bool:
    parent = ctx.parent(node)
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.iter is node:
        return True
    if isinstance(parent, cst.Subscript) and parent.value is node:
        if all(isinstance(el.slice, cst.Index) for el in parent.slice):
            return True  # an item
        return _sequence_use(parent, ctx)  # a slice is a tuple as the parameter is: its uses count
    if isinstance(parent, cst.ComparisonTarget) and isinstance(parent.operator, (cst.In, cst.NotIn)) \
            and parent.comparator is node:
        return True
    if isinstance(parent, cst.StarredElement) or (isinstance(parent, cst.Arg) and parent.star == "*"):
        return True  # its items, unpacked
    if isinstance(parent, cst.Assign) and parent.value is node \
            and all(isinstance(t.target, (cst.Tuple, cst.List)) for t in parent.targets):
        return True  # `a, b = sizes`
    if isinstance(parent, cst.Arg) and parent.star == "":
        call = ctx.parent(parent)
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value in _SEQUENCE_READERS \
                and ctx.facts.read_scope.get(call.func) == "builtin":
            return True
        q = ctx.index.qualify(call.func) if isinstance(call, cst.Call) else None
        if q is not None and q.startswith(("jax.numpy.", "jax.lax.")) and q not in jax_api.TRACED_BODIES:
            return True  # window dimensions, axes, an array-like: a sequence, a tuple as a list
        return is_static_use(node, ctx)  # a shape: a tuple or a list alike
    return False


def _close_names(node: cst.Arg, entry: EntryPoint, ctx: FixContext) -> Optional[Fix]:
    """Each name that is not a parameter replaced by the single parameter ``difflib`` finds close
    to it (cutoff 0.8) -- or, with none that close, the single parameter the body uses where a
    static value is needed (an ``if`` test, a shape) that starts the name, is started by it, or is
    close to it at 0.6 (``"reduce"`` for ``reduction``, tested by ``if reduction == "sum"``) -- or
    dropped when that parameter is listed already; no fix when a name has none or several."""
    import difflib

    fn = entry.function
    params = [p.name.value for p, kind in fn.params if kind in ("positional", "kwonly")]
    if entry.self_bound and params and fn.is_method:
        params = params[1:]
    strings = [node.value] if string_value(node.value) is not None else literal_elements(node.value)
    if not strings:
        return None
    names = [string_value(el) for el in strings]
    if any(n is None for n in names):
        return None
    respelled: Dict[cst.CSTNode, cst.BaseExpression] = {}
    dropped: List[cst.CSTNode] = []
    said: List[str] = []
    chosen: List[str] = []
    for el, name in zip(strings, names):
        if name in params:
            continue
        close = difflib.get_close_matches(name, params, n=2, cutoff=0.8)  # type: ignore[arg-type]
        if not close and len(name) >= 4:  # type: ignore[arg-type]
            # one slip of the keyboard (a letter added, dropped, replaced, or two swapped: `nmae` for
            # `name`), which the ratio above misses on short names
            close = [p for p in params if _one_edit_apart(name, p)]  # type: ignore[arg-type]
        if not close:  # a looser spelling, of a parameter the body needs static (`"reduce"`: `reduction`)
            close = [p for p in params if p not in names and _needs_static(fn, p, ctx) and (
                p.startswith(name) or name.startswith(p)  # type: ignore[arg-type]
                or difflib.SequenceMatcher(None, name, p).ratio() >= 0.6)]
        if len(close) != 1 or close[0] in chosen:
            return None
        chosen.append(close[0])
        if close[0] in names:
            dropped.append(el)
            said.append(f"drop `{name!s}`, a misspelling of `{close[0]}` (listed already)")
        else:
            respelled[el] = _respelled(el, close[0])
            said.append(f"`{name!s}` -> `{close[0]}` (the parameter closest to it, made static)")
    value = _sequence_with(node.value, respelled, dropped)
    if value is None or not said:
        return None
    edit = ctx.replace(node.value, value)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, "`static_argnames`: " + "; ".join(said), (edit,))


def _one_edit_apart(a: str, b: str) -> bool:
    """``b`` is ``a`` with one letter added, dropped or replaced, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                   and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1:]


def _needs_static(fn: FunctionInfo, name: str, ctx: FixContext) -> bool:
    """A read of parameter ``name`` in ``fn``'s own body sits where a static value is needed, or its default is a
    string (a string is no JAX type: jit raises ``TypeError`` for one passed as a traced argument)."""
    node = fn.node
    if not isinstance(node, cst.FunctionDef):
        return False
    if any(p.name.value == name and p.default is not None and string_value(p.default) is not None
           for p, _ in fn.params):
        return True
    return any(ctx.facts.read_scope.get(ref) == "local" and is_static_use(ref, ctx)
               for ref in name_references(node.body, name))


def _sequence_with(value: cst.BaseExpression, replaced: Dict[cst.CSTNode, cst.BaseExpression],
                   dropped: List[cst.CSTNode]) -> Optional[cst.BaseExpression]:
    """A literal ``static_arg*`` value (one item, or a tuple or list of them) with items replaced and
    items dropped, its brackets and quotes as they were; None when nothing would be left."""
    if value in replaced:
        return replaced[value]
    if not isinstance(value, (cst.Tuple, cst.List)):
        return None if value in dropped else value
    kept = [el.with_changes(value=replaced.get(el.value, el.value)) for el in value.elements
            if el.value not in dropped]
    if not kept:
        return None
    if len(kept) < len(value.elements):
        space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        kept = [el.with_changes(comma=space) for el in kept[:-1]] + [kept[-1].with_changes(
            comma=cst.Comma() if isinstance(value, cst.Tuple) and len(kept) == 1 else cst.MaybeSentinel.DEFAULT)]
    return value.with_changes(elements=kept)


def _respelled(string: cst.CSTNode, name: str) -> cst.BaseExpression:
    """``string`` (a literal) spelling ``name``, in its own quotes."""
    if isinstance(string, cst.SimpleString):
        return string.with_changes(value=string.prefix + string.quote + name + string.quote)
    return cst.SimpleString('"' + name + '"')


def _valid_numbers(node: cst.Arg, entry: EntryPoint, ctx: FixContext) -> Optional[Fix]:
    """Out-of-range indices removed, or the one that is out of range pointed at the one positional
    parameter that is used only where a static value is needed (and is not static yet)."""
    fn = entry.function
    positional = [p.name.value for p, kind in fn.params if kind in ("posonly", "positional")]
    if entry.self_bound and positional:
        positional = positional[1:]
    items = [node.value] if int_value(node.value) is not None else literal_elements(node.value)
    nums = [int_value(el) for el in items or ()]
    if not items or any(n is None for n in nums):
        return None
    size = len(positional)
    bad = [el for el, i in zip(items, nums) if not -size <= i < size]  # type: ignore[operator]
    static = {positional[i] for el, i in zip(items, nums) if el not in bad} | set(entry.static_names or ())
    if not bad:
        return None
    wanted = [name for name in positional if name not in static
              and _only_static_uses(fn.node, name, ctx)]  # type: ignore[arg-type]
    shown = ", ".join(str(int_value(el)) for el in bad)
    if wanted and (len(wanted) > 1 or len(bad) > 1):
        advice = ", ".join(f"`{w}` is index {positional.index(w)}" for w in wanted)
        return Fix(Applicability.DISPLAY_ONLY, f"`static_argnums` index {shown} is out of range for "
                   f"`{fn.label}` ({size} positional parameters); which was meant cannot be told: {advice}", ())
    if wanted:
        index = positional.index(wanted[0])
        title = f"`static_argnums`: {shown} -> {index} (`{wanted[0]}`, used only where a static value is needed)"
        value = _sequence_with(node.value, {bad[0]: cst.Integer(str(index))}, [])
    else:
        title = f"Remove `static_argnums` index {shown}: `{fn.label}` takes {size} positional argument(s)"
        value = _sequence_with(node.value, {}, bad)
        if value is None:
            return _without_argument(node, title, ctx)
    edit = ctx.replace(node.value, value) if value is not None else None
    return None if edit is None else ctx.fix(Applicability.UNSAFE, title, (edit,))


def _without_argument(node: cst.Arg, title: str, ctx: FixContext) -> Optional[Fix]:
    """The keyword argument ``node`` removed from its call; ``partial(jax.jit)`` left alone in a
    decorator becomes ``jax.jit`` (and an import of ``partial`` it leaves unused goes)."""
    from jitlint.fixes.imports import removal

    call = ctx.parent(node)
    if not isinstance(call, cst.Call):
        return None
    args = [a for a in call.args if a is not node]
    if args:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma if call.args[-1] is not node
                                         else cst.MaybeSentinel.DEFAULT)
    edits: List[Edit] = []
    new: cst.BaseExpression = call.with_changes(args=args)
    if isinstance(ctx.parent(call), cst.Decorator) and ctx.index.qualify(call.func) == "functools.partial" \
            and len(args) == 1 and args[0].keyword is None and not args[0].star:
        new = args[0].value
        head = call.func
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name):
            unused = removal(ctx, head.value, [head])
            if unused is not None:
                edits.append(unused)
    edit = ctx.replace(call, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, title, [edit] + edits)


@rewrites("JIT501")
def to_traced_argument(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT501, a static argument given a new value on every iteration (the call is the finding): the
    parameter taken out of ``static_argnames`` / ``static_argnums`` where the function only computes
    with it -- every read an operand of arithmetic with a traced array or an argument of a
    ``jax.numpy`` / ``jax.lax`` function, none where a static value is needed, none in a nested
    function, never rebound -- so one compile serves every value.  UNSAFE: a Python number becomes a
    weakly typed 0-d array (``x / t`` keeps ``x``'s dtype either way).  Otherwise advice."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) in jax_api.COMPILING_TRANSFORMS:
        return None
    entries = [e for e in ctx.index.entries if any(c is node for c in e.visible_calls())]
    if not entries:
        entries = _entries_passed_on_to(node, ctx)
        if len(entries) != 1 or entries[0].static_names is None or entries[0].static_nums is None \
                or ctx.subject not in entries[0].static_params():
            return None
        return _without_static(entries[0], ctx.subject, ctx)
    if len(entries) == 1 and entries[0].transform is not None and entries[0].transform.filter_static:
        return _as_array_argument(node, entries[0], ctx)
    if len(entries) != 1 or entries[0].static_names is None or entries[0].static_nums is None:
        return None
    entry = entries[0]
    static = entry.static_params()
    changing = []
    for arg, param in entry.bind_args(node):
        name = param.name.value if param is not None else arg.keyword.value if arg.keyword is not None else None
        if name in static and literal_value(arg.value) is None and name not in changing:
            changing.append(name)
    if ctx.subject in changing:
        changing = [ctx.subject]  # (the parameter the finding names: the one whose value changes)
    if not changing:
        return None
    if len(changing) != 1:
        return _traced_advice(changing[0])
    return _without_static(entry, changing[0], ctx)


def _traced_advice(name: str) -> Fix:
    return Fix(Applicability.DISPLAY_ONLY, f"Pass `{name}` traced if the function only computes with it; "
               "if it must be static (a shape, a loop count, a branch), keep the values it takes few", ())


def _without_static(entry: EntryPoint, name: str, ctx: FixContext) -> Fix:
    """``name`` taken out of ``entry``'s static spec where the function only computes with it, else advice."""
    fn = entry.function
    if not isinstance(fn.node, cst.FunctionDef) or entry.shared_spec \
            or name in assigned_in(block_statements(fn.node.body)) or not _data_only(fn.node, name, ctx):
        return _traced_advice(name)
    edit = _spec_without(entry, fn, name, ctx)
    return edit if edit is not None else _traced_advice(name)


def _entries_passed_on_to(call: cst.Call, ctx: FixContext) -> List[EntryPoint]:
    """The traced functions ``call``, a call of a plain module-level function, reaches through that
    function's own call of them with the parameter the finding names passed on (``leapfrog(pos, dt)`` ->
    ``_leapfrog``'s static ``dt``)."""
    out = []
    for entry in ctx.index.entries:
        for inner in entry.visible_calls():
            found = ctx.index.forwarding_function(entry, inner)
            if found is not None and ctx.subject in found[1] and any(c is call for c in found[2]) \
                    and entry not in out:
                out.append(entry)
    return out


def _as_array_argument(call: cst.Call, entry: EntryPoint, ctx: FixContext) -> Optional[Fix]:
    """A filter transform (``eqx.filter_jit``) keeps a Python number static, so one that changes every
    iteration compiles every time: where the function only computes with the parameter, the call passes
    ``jnp.asarray(beta)``, an array the transform traces -- one compile serves every value.  UNSAFE: the
    function sees a weakly typed 0-d array where it saw a Python float."""
    name = ctx.subject
    fn = entry.function
    found = [(arg, param) for arg, param in entry.bind_args(call)
             if param is not None and param.name.value == name and not arg.star]
    if len(found) != 1 or not isinstance(fn.node, cst.FunctionDef) \
            or name in assigned_in(block_statements(fn.node.body)) or not _data_only(fn.node, name, ctx):
        return Fix(Applicability.DISPLAY_ONLY, f"Pass `{name}` as an array (`jnp.asarray(...)`) if the function "
                   "only computes with it: a filter transform traces arrays and keeps Python numbers static", ())
    spelled = ctx.import_name("jax.numpy.asarray")
    if spelled is None:
        return None
    text, imports = spelled
    arg = found[0][0]
    edit = ctx.replace(arg.value, ctx.expr(f"{text}({{v}})", v=arg.value), wrap=False)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Pass `{name}` as an array, `{text}(...)`: the filter transform traces "
                   f"it, so one compile serves every value", (edit,) + tuple(imports))


def _data_only(fn_node: cst.FunctionDef, name: str, ctx: FixContext, depth: int = 0) -> bool:
    """Every read of parameter ``name`` in the function is array data (``number_use``), in its own
    scope or a function nested in it (a ``lax.scan`` body reading it: traced there too), or the argument
    of a function of the module whose parameter it binds is array data there (``envelope(spring,
    damping, t)``, followed twice deep), and there is one."""
    refs = [ref for ref in name_references(fn_node.body, name)]
    return bool(refs) and all(ctx.facts.read_scope.get(ref) in ("local", "closure") and not is_static_use(ref, ctx)
                              and (number_use(ref, ctx) or _data_in_helper(ref, ctx, depth)) for ref in refs)


def _data_in_helper(ref: cst.Name, ctx: FixContext, depth: int) -> bool:
    """``ref`` is an argument of a call of a plain function of the module (no method, no ``*``), which binds
    it to a parameter it never rebinds and only computes with (:func:`_data_only`)."""
    arg = ctx.parent(ref)
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) and arg.value is ref and not arg.star else None
    if depth >= 2 or not isinstance(call, cst.Call):
        return False
    here, cls = ctx.index.call_scopes.get(call, (None, None))
    func = call.func
    if isinstance(func, cst.Call) and func.args and func.args[0].keyword is None and not func.args[0].star \
            and ctx.index.qualify(func.func) in jax_api.FRESH_FUNCTION_TRANSFORMS:
        func = func.args[0].value  # `jax.value_and_grad(loss, has_aux=True)(params, xs, w)`: `loss` gets them
    callee, bound_self = ctx.index.resolve_function(func, here, cls)
    if callee is None or bound_self or callee.is_method or not isinstance(callee.node, cst.FunctionDef):
        return False
    params = [param for a, param in bind_arguments(callee.params, call.args) if a is arg]
    if len(params) != 1 or params[0] is None:
        return False
    param = params[0].name.value
    return param not in assigned_in(block_statements(callee.node.body)) \
        and _data_only(callee.node, param, ctx, depth + 1)


def _spec_without(entry: EntryPoint, fn: FunctionInfo, name: str, ctx: FixContext) -> Optional[Fix]:
    """The entry's static spec with parameter ``name`` taken out: its string from ``static_argnames``,
    its index from ``static_argnums`` (a keyword left empty goes, and ``partial(jax.jit)`` with it)."""
    positions = [p.name.value for p, kind in fn.params if kind in ("posonly", "positional")]
    title = f"Take `{name}` out of the static arguments (`static_argnames`/`static_argnums`): `{fn.label}` " \
            "only computes with it, so one compile serves every value"
    edits: List[Edit] = []
    for spec in entry.spec_args:
        elements = [spec.value] if (string_value(spec.value) is not None or int_value(spec.value) is not None) \
            else literal_elements(spec.value)
        if elements is None:
            return None
        dropped = [el for el in elements if string_value(el) == name
                   or (int_value(el) is not None and name in positions and int_value(el) == positions.index(name))]
        if not dropped:
            continue
        if len(dropped) == len(elements):
            fix = _without_argument(spec, title, ctx)
            return fix if len(entry.spec_args) == 1 else None
        value = _sequence_with(spec.value, {}, dropped)
        edit = ctx.replace(spec.value, value) if value is not None else None
        if edit is None:
            return None
        edits.append(edit)
    return ctx.fix(Applicability.UNSAFE, title, edits) if edits else None


__all__ = ["checked_static_fix", "static_argnames_fix", "static_parameters_fix", "to_static_argnames",
           "to_static_formatted", "to_traced_argument", "to_valid_static_spec"]
