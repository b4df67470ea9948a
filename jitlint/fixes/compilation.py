"""Fixes for JIT501: a jit wrapper made again and again -> made once, and the copy reused.

``jax.jit(jax.grad(loss))`` evaluated on every loop iteration, for every element of a
comprehension, or on every call of a function, is a new function object each time, and each is
traced and compiled anew.  The fix evaluates the wrapper once and names it:

* in a loop: just before the outermost loop of its function (or of the module) that holds it,
  ``loss_grad_jit = jax.jit(jax.grad(loss))``, and the loop calls ``loss_grad_jit``;
* in a comprehension: just before the statement holding the comprehension;
* made on every call of a function: at module level, just above the top-level statement (the
  ``def``, or the ``class`` of a method) that holds it;
* a lambda or ``functools.partial`` that holds values for a function of this module
  (:func:`to_lifted_wrapper`): the function is jitted once at module level and each call passes
  the held values (``jax.jit(lambda p: mse(p, xb, yb))(params)`` -> ``mse_jit(params, xb, yb)``).

Preconditions, proven from the code or no fix is offered.  The wrapper expression, evaluated where
it goes, must give the same function every time the original evaluated it:

* it is built only of transforms (``jax.jit``, ``jax.grad``, ``jax.vmap``, ... and
  ``functools.partial``) applied to a callable, with options that are literals (numbers, strings,
  ``True`` / ``False`` / ``None`` and tuples or lists of them);
* the callable is a function, class or imported name bound once at module level and never declared
  ``global`` (so nothing rebinds it), an attribute of an imported module (``jnp.sin``), a lambda
  that reads only such names and its parameters, or -- for a hoist within the function -- a
  parameter of the function that it never rebinds.  A nested function, ``self.method``, a local
  variable or anything a loop assigns keeps the expression where it is;
* hoisted to module level, every name it reads is bound above the new statement, and it reads no
  parameter or local;
* the module has no JIT101 finding: traced code that reads a global which changes would read it
  once instead of on every iteration.

The new name is fresh: unused in the module (and the function), so that it shadows nothing.

Safety: always UNSAFE.  The values the function reads from outside at trace time -- globals,
attributes, the variables a lambda closes over -- were read afresh by every new wrapper; the one
wrapper reads them at its first trace and keeps them.  The wrapper is also made when the loop runs
no iteration, so an invalid option (``jax.vmap(f, in_axes=[0])``) raises before the loop instead of
inside it.
"""
from __future__ import annotations

import builtins
import keyword
from typing import Iterable, List, Optional, Sequence, Tuple, Union

import libcst as cst

from jitlint.analysis.discovery import FunctionInfo, is_property
from jitlint.analysis.jax_api import COMPILING_TRANSFORMS, FRESH_FUNCTION_TRANSFORMS
from jitlint.analysis.scopes import BindingKind, names_bound_in
from jitlint.analysis.syntax import (any_node, chain_root, dotted_name, flat_targets, iter_children, name_references,
                                     returned_values, walk)
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.common import ById, comments_in, forwarding_def, keyword_arg, literal_value, string_literal
from jitlint.fixes.context import FixContext, names_in
from jitlint.fixes.dataflow import assigned_in, reads
from jitlint.fixes.imports import removal
from jitlint.fixes.registry import rewrites
from jitlint.fixes.static_args import array_operand, is_static_use, number_use
from jitlint.fixes.templates import PathReplacer

_TRANSFORMS = COMPILING_TRANSFORMS | FRESH_FUNCTION_TRANSFORMS | frozenset({"jax.checkpoint", "jax.remat"})
_PARTIAL = "functools.partial"
_BUILTINS = frozenset(dir(builtins))
_FUNCTION_KEYWORDS = ("fun", "f", "func", "fn")


@rewrites("JIT501")
def to_hoisted_wrapper(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``jax.jit(jax.grad(loss))`` made repeatedly -> ``loss_grad_jit``, made once before: at module
    level when it reads module-level names only (also for a loop in a function: then every call of the
    function shares it), else before the loop or statement, in the function."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) not in COMPILING_TRANSFORMS:
        return None
    scope = ctx.index.owner_of(node)
    if isinstance(scope, cst.ClassDef):
        return None
    function = scope if isinstance(scope, FunctionInfo) else None
    if function is not None and not isinstance(function.node, cst.FunctionDef):
        return None  # made in a lambda: there is no statement to put it before
    loops = ctx.index.loops_of.get(node, ())
    region: Optional[cst.CSTNode] = loops[0] if loops else None
    if region is None and node in ctx.index.per_element:
        region = _statement_of(node, ctx)
    if region is None and function is None:
        return None
    module_level = region is None or function is None
    stale = ctx.findings.get("JIT101")
    if stale and not _reaches_frozen_reads([node], stale, ctx):
        stale = []  # (a frozen global read elsewhere in the module: the wrapped code reads none)
    if stale and (module_level or _changes_frozen_globals(region, stale, ctx)):
        # a global read frozen in a trace (JIT101): a wrapper made anew traces anew and reads its current
        # value; made once at module level it would not -- nor made once before a loop that changes it
        return None
    parts = _Parts(function, allow_parameters=False)
    if _wrapper(node, ctx, parts, 0):
        if function is not None and function.parent is None and not stale:
            # made of module-level names only: once at module level serves every call of the function too
            region, module_level = None, True
    else:
        parts = _Parts(function, allow_parameters=True)
        if module_level or not _wrapper(node, ctx, parts, 0):
            return None
        if parts.bound_parameters and _offers(to_lifted_wrapper, node, ctx):
            return None  # (the wrapper made once at module level, the values passed at each call, is offered)
    before = ctx.top_index(region if region is not None else node)
    if before is None:
        return None
    if module_level and any(ctx.index.globals[name].last_statement >= before for name in parts.globals):
        return None  # bound below where the wrapper would go
    # unused anywhere in the module, and not given to another wrapper in this round: a function never
    # gets a local of the name a module-level wrapper it reads has
    name = ctx.fresh_name(parts.name(), ctx.module, ctx.module_names())
    if region is None:
        edits = _at_module_level(node, name, before, ctx)
        where = "at module level"
    elif function is None:
        edits = _before_module_statement(node, name, region, before, ctx)
        where = "before the loop" if loops else "before the statement"
    else:
        edits = _before_statement(node, name, region, ctx)
        where = "before the loop" if loops else "before the statement"
    if edits is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Make `{ctx.code(node.func)}(...)` once, {where}, as `{name}`", edits)


def _changes_frozen_globals(region: Optional[cst.CSTNode], reads: Sequence[cst.CSTNode], ctx: FixContext) -> bool:
    """The loop ``region`` may change a global that traced code reads frozen (``reads``, JIT101's findings):
    it names the global, or a function of the module that rebinds or changes it (``use_tokenizer(...)``,
    which updates ``SPECIAL_IDS``), or it calls something the analysis cannot follow."""
    if region is None:
        return True
    names = {n.value for n in reads if isinstance(n, cst.Name)}
    if len(names) != len(reads):
        return True  # (a finding on something else than a name)
    changers = {fn.name for name in names for fn in (ctx.index.global_writers.get(name, set())
                                                     | ctx.index.mutated_in_functions.get(name, set()))}
    named = {n.value for n in name_references(region)}
    return bool(named & (names | changers))


def _reaches_frozen_reads(roots: Sequence[cst.CSTNode], reads: Sequence[cst.CSTNode], ctx: FixContext) -> bool:
    """Whether the code of ``roots`` -- a wrapper and the callable it wraps -- may run one of ``reads``, the
    reads of globals frozen in a trace (JIT101's findings): one lies in it, or in a function or class of
    the module it names (followed by name), or in a method of the module named like an attribute it reads.
    A wrapper of such code made once would freeze the global; one that reaches none may be made once."""
    if not reads:
        return False
    read_ids = {id(r) for r in reads}
    methods = set()
    for r in reads:
        fn = ctx.enclosing_function(r)
        while fn is not None:
            if fn.cls is not None:
                methods.add(fn.name)
            fn = fn.parent
    seen: set = set()
    todo: List[cst.CSTNode] = list(roots)
    while todo:
        stack = [todo.pop()]
        while stack:
            n = stack.pop()
            if id(n) in read_ids:
                return True
            if isinstance(n, cst.Attribute) and n.attr.value in methods:
                return True
            if isinstance(n, cst.Name):
                found = ctx.index.functions.get(n.value)
                cls = ctx.index.classes.get(n.value)
                for target in ([found.node] if found is not None else []) + ([cls.node] if cls is not None else []):
                    if id(target) not in seen:
                        seen.add(id(target))
                        todo.append(target)
            stack.extend(iter_children(n))
    return False


def _offers(builder, node: cst.CSTNode, ctx: FixContext) -> bool:
    """Whether ``builder`` gives ``node`` a fix, asked without keeping the names it took for it."""
    with ctx.tentatively():
        return builder(node, ctx) is not None


class _Parts:
    """What the wrapper expression is made of: the module-level names it reads, its transforms
    and innermost callable (for the new name)."""

    def __init__(self, function: Optional[FunctionInfo], allow_parameters: bool) -> None:
        #: the function the wrapper is made in, and whether its parameters may be read
        self.function = function
        self.allow_parameters = allow_parameters
        #: a parameter of the function is bound by a `functools.partial` of the wrapper
        self.bound_parameters = False
        self.globals: List[str] = []
        self.transforms: List[str] = []
        self.callable = "fn"

    def name(self) -> str:
        return "_".join([self.callable] + list(reversed(self.transforms)))


# ------------------------------------------------------------------ the expression


def _wrapper(call: cst.BaseExpression, ctx: FixContext, parts: _Parts, depth: int) -> bool:
    """``call`` is a transform (or ``functools.partial``) of a stable callable, with literal options."""
    if depth > 8 or not isinstance(call, cst.Call):
        return False
    q = ctx.index.qualify(call.func)
    if q not in _TRANSFORMS and q != _PARTIAL:
        return False
    target = _function_argument(call)
    if target is None:
        return False
    for arg in call.args:
        if arg is target:
            continue
        if arg.star:
            return False
        if not _constant(arg.value) and not _unchanged_argument(arg.value, ctx, parts):
            return False
    if q != _PARTIAL:
        parts.transforms.append(q.rsplit(".", 1)[-1])
    return _callable(target.value, ctx, parts, depth + 1)


def _unchanged_argument(value: cst.BaseExpression, ctx: FixContext, parts: _Parts) -> bool:
    """A parameter of the function the wrapper is made in, never bound again there, bound by the wrapper
    (``partial(make_batch, window=window)``): made before the loop, the wrapper holds the same value."""
    function = parts.function
    found = parts.allow_parameters and function is not None and isinstance(value, cst.Name) \
        and value.value in function.local_names and _unchanged_parameter(value.value, function, ctx)
    parts.bound_parameters = parts.bound_parameters or found
    return found


def _function_argument(call: cst.Call) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in _FUNCTION_KEYWORDS:
            return arg
    return None


def _constant(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _constant(e.value) for e in node.elements)
    return literal_value(node) is not None or (isinstance(node, cst.Name) and node.value == "None")


def _callable(node: cst.BaseExpression, ctx: FixContext, parts: _Parts, depth: int) -> bool:
    function = parts.function
    if isinstance(node, cst.Call):
        return _wrapper(node, ctx, parts, depth)
    if isinstance(node, cst.Name):
        parts.callable = node.value.lstrip("_") or "fn"
        if function is not None and node.value in function.local_names:
            return parts.allow_parameters and _unchanged_parameter(node.value, function, ctx)
        return _stable_global(node.value, ctx, parts, function)
    if isinstance(node, cst.Attribute):
        parts.callable = node.attr.value.lstrip("_") or "fn"
        root: cst.BaseExpression = node
        while isinstance(root, cst.Attribute):
            root = root.value
        return isinstance(root, cst.Name) and (
            _stable_global(root.value, ctx, parts, function) and ctx.index.globals[root.value].kind == "import"
            or _untouched_object(root.value, ctx, parts, function))
    if isinstance(node, cst.Lambda):
        parts.callable = "fn"
        if any(p.default is not None for p in _lambda_params(node)):
            return False
        own = {p.name.value for p in _lambda_params(node)}
        if _has_walrus(node.body):
            return False
        return all(name in _BUILTINS and name not in ctx.index.globals and (
            function is None or name not in function.local_names)
            or _stable_global(name, ctx, parts, function)
            or _untouched_object(name, ctx, parts, function) for name in reads(node.body) - own)
    return False


def _lambda_params(node: cst.Lambda) -> List[cst.Param]:
    p = node.params
    out = list(p.posonly_params) + list(p.params) + list(p.kwonly_params)
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            out.append(star)
    return out


def _has_walrus(node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.NamedExpr, cst.Yield, cst.Await)):
            return True
        stack.extend(n.children)
    return False


def _stable_global(name: str, ctx: FixContext, parts: _Parts, function: Optional[FunctionInfo]) -> bool:
    """A function, class or import bound once at module level, never declared ``global`` or
    ``nonlocal`` anywhere, and not shadowed by a local of the function."""
    if function is not None and any(name in scope.local_names for scope in _enclosing_functions(function)):
        return False
    info = ctx.index.globals.get(name)
    if info is None or info.kind not in ("function", "class", "import") or info.assignments != 1:
        return False
    if name in ctx.index.declared_names or name in ctx.index.global_written:
        return False
    parts.globals.append(name)
    return True


def _untouched_object(name: str, ctx: FixContext, parts: _Parts, function: Optional[FunctionInfo]) -> bool:
    """A module-level object bound once (``MODEL = Head(features=2)``), never declared ``global``, whose
    attributes and items nothing stores, deletes or changes by a method (no ``MODEL.apply = ...``, no
    ``MODEL.params.update(...)``), and not shadowed by a local of the function: reading an attribute
    of it (``MODEL.apply``) once, where it is bound, gives what every later read gives."""
    if function is not None and any(name in scope.local_names for scope in _enclosing_functions(function)):
        return False
    info = ctx.index.globals.get(name)
    if info is None or info.kind != "value" or info.assignments != 1 or name in ctx.index.declared_names \
            or name in ctx.index.global_written or name in ctx.index.mutated_names:
        return False
    parts.globals.append(name)
    return True


def _enclosing_functions(function: FunctionInfo) -> Iterable[FunctionInfo]:
    scope: Optional[FunctionInfo] = function
    while scope is not None:
        yield scope
        scope = scope.parent


def _module_constant(name: str, ctx: FixContext) -> bool:
    """A module-level name bound once, to a literal (``LR = 0.1``), and rebound nowhere (no ``global``
    of it): read at the call, it is the value the fresh callable held."""
    info = ctx.index.globals.get(name)
    return info is not None and info.kind == "value" and info.assignments == 1 \
        and isinstance(info.node, cst.Assign) and literal_value(info.node.value) is not None \
        and name not in ctx.index.declared_names and name not in ctx.index.global_written


def _unchanged_parameter(name: str, function: FunctionInfo, ctx: FixContext) -> bool:
    """A parameter of ``function`` that nothing in it rebinds."""
    if not any(p.name.value == name for p, _ in function.params):
        return False
    return name not in ctx.index.declared_names and all(
        b.kind is BindingKind.PARAMETER or not b.binds_value for b in function.scope.bindings_of(name))


# ------------------------------------------------------------------ where it goes


def _statement_of(node: cst.CSTNode, ctx: FixContext) -> Optional[cst.CSTNode]:
    """The statement holding ``node``, as an element of its block."""
    for a in ctx.ancestors(node):
        if isinstance(a, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            return a
    return None


def _assignment(name: str, node: cst.Call, ctx: FixContext) -> str:
    return f"{name} = {ctx.code(node.with_changes(lpar=[], rpar=[]))}"


def _before_statement(node: cst.Call, name: str, region: cst.CSTNode, ctx: FixContext) -> Optional[Tuple[Edit, ...]]:
    """Inside a function: ``name = <wrapper>`` as a statement of its own just before ``region``, whose
    wrapper is replaced by ``name``.  Blank lines above ``region`` go above the new statement; comments
    stay with ``region``."""
    block = ctx.block_of(region)
    if block is None or not isinstance(block[0], cst.IndentedBlock):
        return None
    suite, i = block
    assert isinstance(suite, cst.IndentedBlock)
    assert isinstance(region, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    blank, rest = _split_leading(region)
    assign = cst.parse_statement(_assignment(name, node, ctx) + ctx.module.default_newline, config=ctx.config)
    assign = assign.with_changes(leading_lines=blank)
    moved = region.deep_replace(node, cst.Name(name))
    assert isinstance(moved, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    moved = moved.with_changes(leading_lines=rest)
    body = list(suite.body[:i]) + [assign, moved] + list(suite.body[i + 1:])
    edit = ctx.replace(suite, suite.with_changes(body=body), wrap=False)
    return None if edit is None else (edit,)


def _split_leading(stmt: Union[cst.SimpleStatementLine, cst.BaseCompoundStatement]) -> Tuple[list, list]:
    """The leading lines of ``stmt``: the blank ones before its first comment, and the rest."""
    lines = list(stmt.leading_lines)
    k = 0
    while k < len(lines) and lines[k].comment is None:
        k += 1
    return lines[:k], lines[k:]


def _own_line_offset(index: int, ctx: FixContext) -> int:
    """Where module statement ``index`` starts after its blank lines (before its comments)."""
    stmt = ctx.module.body[index]
    assert isinstance(stmt, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    _, rest = _split_leading(stmt)
    full = ctx.code(stmt)
    kept = ctx.code(stmt.with_changes(leading_lines=rest))
    return ctx.statement_offset(index) + len(full) - len(kept)


def _before_module_statement(node: cst.Call, name: str, region: cst.CSTNode, index: int,
                             ctx: FixContext) -> Optional[Tuple[Edit, ...]]:
    """At module level (a script's loop): ``name = <wrapper>`` just above the loop."""
    if ctx.module.body[index] is not region:
        return None
    replaced = ctx.replace(node, cst.Name(name), wrap=False)
    if replaced is None:
        return None
    at = _own_line_offset(index, ctx)
    return Edit(at, at, _assignment(name, node, ctx) + ctx.module.default_newline), replaced


def _at_module_level(node: cst.Call, name: str, index: int, ctx: FixContext) -> Optional[Tuple[Edit, ...]]:
    """Made on every call of a function: ``name = <wrapper>`` at module level, above the top-level
    statement holding the function, set off by two blank lines."""
    replaced = ctx.replace(node, cst.Name(name), wrap=False)
    if replaced is None:
        return None
    at = _own_line_offset(index, ctx)
    nl = ctx.module.default_newline
    return Edit(at, at, _assignment(name, node, ctx) + nl * 3), replaced


# ------------------------------------------------------------------ values passed, not closed over


@rewrites("JIT501")
def to_lifted_wrapper(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``jax.jit(lambda p: loss(p, xb, yb))(params)`` or ``jax.jit(functools.partial(loss, cfg))(x)``
    made repeatedly -> ``loss_jit(params, xb, yb)`` / ``loss_jit(cfg, x)``, with ``loss_jit =
    jax.jit(loss)`` made once: the values the fresh callable held become arguments."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) not in COMPILING_TRANSFORMS:
        return None
    function = ctx.index.owner_of(node)
    if not isinstance(function, FunctionInfo) or not isinstance(function.node, cst.FunctionDef):
        return None
    if _reaches_frozen_reads([node], ctx.findings.get("JIT101", ()), ctx):
        return None  # made once at module level, it would read the frozen global once
    target = _function_argument(node)
    if target is None or any(a is not target and (a.star or not _constant(a.value)) for a in node.args):
        return None
    options = [a for a in node.args if a is not target]
    calls = _wrapper_calls(node, function, ctx)
    if not calls:
        return None
    called_at_once = calls[0].func is node
    lifted = _Lifting(target.value, ctx, function, called_at_once, calls)
    statics = [a for a in options if a.keyword is not None and a.keyword.value in ("static_argnums", "static_argnames")]
    if lifted.callee is None or (statics and (lifted.what == "lambda" or lifted.partial_positional)):
        return None  # (static arguments name the lambda's parameters, count the partial's positions)
    found = _lifted_calls(lifted, calls, node, ctx.code(node.func), ctx, static_allowed=not statics)
    if found is None:
        return None
    changes, name, before = found
    callee = lifted.callee
    if lifted.vmap is not None:
        callee = cst.Call(lifted.vmap, _comma_separated([cst.Arg(lifted.callee),
                                                         keyword_arg("in_axes", lifted.in_axes())]))
    if lifted.static:
        names = ", ".join(string_literal(n) for n in lifted.static) + ("," if len(lifted.static) == 1 else "")
        options = options + [keyword_arg("static_argnames", ctx.expr(f"({names})"))]
    wrapper = node.with_changes(args=_comma_separated([target.with_changes(value=callee)] + options), lpar=[],
                                rpar=[])
    if not called_at_once:
        assignment = _assignment_statement(node, ctx)
        if assignment is None or not _remove_keeping_comments(assignment, changes, ctx):
            return None
    replaced = ctx.replace_many(changes)
    if replaced is None:
        return None
    made = _module_wrapper(name, ctx.code(wrapper), before, ctx)
    fresh = target.value
    # `partial` or `functools` (of `functools.partial`), used only here
    root = chain_root(fresh.func) if isinstance(fresh, cst.Call) and lifted.what == "partial" else None
    unused = removal(ctx, root.value, [root]) if root is not None else None
    return ctx.fix(Applicability.UNSAFE, f"Make `{ctx.code(wrapper)}` once, at module level, as `{name}`, and "
                   f"pass it the values the {lifted.what} held", (made, replaced) + ((unused,) if unused else ()))


def _module_wrapper(name: str, wrapper: str, before: int, ctx: FixContext) -> Edit:
    """``name = wrapper`` as a module statement of its own above module statement ``before``."""
    at = _own_line_offset(before, ctx)
    return Edit(at, at, f"{name} = {wrapper}" + ctx.module.default_newline * 3)


def _lifted_calls(lifted: "_Lifting", calls: Sequence[cst.Call], node: cst.CSTNode, transform: str,
                  ctx: FixContext, static_allowed: bool = False) -> Optional[Tuple[dict, str, int]]:
    """The calls of a lifted wrapper rewritten to call ``<callee>_jit`` with the held values: (the changes,
    the new module-level name, the module statement it goes above); None where the callee cannot be
    jitted once at module level or a held value cannot be traced (nor, ``static_allowed``, be named in a
    ``static_argnames`` of the wrapper: :attr:`_Lifting.static`)."""
    new_calls = {}
    for call in calls:
        merged = lifted.arguments(call)
        if merged is None:
            return None
        new_calls[call] = merged
    parts = _Parts(None, allow_parameters=False)
    if not _callable(lifted.callee, ctx, parts, 0):
        return None
    if isinstance(lifted.callee, cst.Lambda) and isinstance(node, cst.Call):
        bound = ctx.parent(node)  # (`nearest = jax.jit(lambda ...)`: named after `nearest`)
        if isinstance(bound, cst.Assign) and len(bound.targets) == 1 and isinstance(bound.targets[0].target, cst.Name):
            parts.callable = bound.targets[0].target.value.lstrip("_") or "fn"
    static = _held_static(lifted, ctx)
    if static is None or (static and not static_allowed):
        return None
    lifted.static = static
    before = ctx.top_index(node)
    if before is None or any(ctx.index.globals[g].last_statement >= before for g in parts.globals):
        return None
    parts.transforms.append(transform.rsplit(".", 1)[-1])
    if lifted.vmap is not None:
        parts.transforms.append("vmap")  # (inside the jit: `bm25_vmap_jit`)
    name = ctx.fresh_name(parts.name(), ctx.module, ctx.module_names())
    return {call: call.with_changes(func=cst.Name(name), args=args) for call, args in new_calls.items()}, name, before


@rewrites("JIT501")
def to_lifted_decorated(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``@jax.jit def _apply(x): return mlp(self.params, x)`` made on every call of a method, then
    ``_apply(x)`` -> ``mlp_jit(self.params, x)`` with ``mlp_jit = jax.jit(mlp)`` made once at module level: a
    jitted nested function whose one statement returns a call of a stable function, its parameters and values
    it held passed as they are, is the jitted lambda ``to_lifted_wrapper`` lifts."""
    found = _jitted_nested_def(node, ctx)
    if found is None:
        return None
    inner, _, function = found
    body = inner.body.body if isinstance(inner.body, cst.IndentedBlock) else ()
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(body[0].body) != 1 \
            or not isinstance(body[0].body[0], cst.Return) or not isinstance(body[0].body[0].value, cst.Call):
        return None
    name = inner.name.value
    uses = [ref for ref in name_references(function.node.body, name) if ref is not inner.name]
    calls = [ctx.parent(ref) for ref in uses]
    if not calls or any(not (isinstance(call, cst.Call) and call.func is ref) for ref, call in zip(uses, calls)) \
            or len([b for b in function.scope.bindings_of(name) if b.binds_value]) != 1:
        return None
    lambda_form = cst.Lambda(params=inner.params, body=body[0].body[0].value)
    lifted = _Lifting(lambda_form, ctx, function, False, calls)
    if lifted.callee is None:
        return None
    found = _lifted_calls(lifted, calls, node, ctx.code(node.decorator), ctx)
    if found is None:
        return None
    changes, made_name, before = found
    changes[inner] = cst.RemovalSentinel.REMOVE
    comments = [cst.EmptyLine(indent=True, comment=cst.Comment(c)) for c in comments_in(inner)]
    if not _onto_following(inner, comments, changes, ctx, opens_block=True):
        return None
    replaced = ctx.replace_many(changes)
    if replaced is None:
        return None
    wrapper = f"{ctx.code(node.decorator)}({ctx.code(lifted.callee)})"
    made = _module_wrapper(made_name, wrapper, before, ctx)
    return ctx.fix(Applicability.UNSAFE, f"Make `{wrapper}` once, at module level, as `{made_name}`, and pass it the "
                   f"values `{name}` held", (made, replaced))


def _jitted_nested_def(node: cst.CSTNode, ctx: FixContext
                       ) -> Optional[Tuple[cst.FunctionDef, FunctionInfo, FunctionInfo]]:
    """``node``, the bare transform decorating a ``def`` (its only decorator, not async) nested in another
    ``def`` whose code reads no global frozen in a trace (JIT101): that ``def``, its info and the function
    around it."""
    if not isinstance(node, cst.Decorator) or ctx.index.qualify(node.decorator) not in COMPILING_TRANSFORMS:
        return None
    inner = ctx.parent(node)
    if not isinstance(inner, cst.FunctionDef) or len(inner.decorators) != 1 or inner.asynchronous is not None:
        return None
    if _reaches_frozen_reads([inner], ctx.findings.get("JIT101", ()), ctx):
        return None
    info = ctx.index.infos.get(inner)
    function = info.parent if info is not None else None
    if info is None or function is None or not isinstance(function.node, cst.FunctionDef):
        return None
    return inner, info, function


def _wrapper_calls(node: cst.Call, function: FunctionInfo, ctx: FixContext) -> List[cst.Call]:
    """The calls of the wrapper: ``node`` called at once, or every use of the one local name it is
    assigned to, each a call, after the assignment, in the same function."""
    parent = ctx.parent(node)
    if isinstance(parent, cst.Call) and parent.func is node:
        return [parent]
    assign = _assignment_statement(node, ctx)
    if assign is None:
        return []
    small = assign.body[0]
    assert isinstance(small, cst.Assign)
    name = small.targets[0].target.value  # type: ignore[union-attr]
    if name in ctx.index.declared_names:
        return []
    bindings = [b for b in function.scope.bindings_of(name) if b.binds_value]
    if len(bindings) != 1:
        return []
    uses = [n for n in name_references(function.node.body, name) if n is not small.targets[0].target]
    calls = []
    for use in uses:
        call = ctx.parent(use)
        if not isinstance(call, cst.Call) or call.func is not use:
            return []
        calls.append(call)
    return calls


def _remove_keeping_comments(line: cst.SimpleStatementLine, changes: dict, ctx: FixContext) -> bool:
    """``line`` removed; its comments (above it, and at its end) go above the statement after it."""
    changes[line] = cst.RemovalSentinel.REMOVE
    comments = [ln for ln in line.leading_lines if ln.comment is not None]
    trailing = line.trailing_whitespace.comment
    if trailing is not None:
        comments.append(cst.EmptyLine(indent=True, comment=trailing))
    return not comments or _onto_following(line, comments, changes, ctx, opens_block=False)


def _onto_following(removed: cst.CSTNode, comments: List[cst.EmptyLine], changes: dict, ctx: FixContext,
                    opens_block: bool) -> bool:
    """The statement after ``removed`` in its block takes ``comments`` as lines above it (its own changes
    folded in); with ``opens_block``, a removed first statement of its block, it also loses the blank lines
    that set the removed one off.  False when nothing follows ``removed``."""
    block = ctx.block_of(removed)
    if block is None or block[1] + 1 >= len(block[0].body):  # type: ignore[attr-defined]
        return False
    following = block[0].body[block[1] + 1]  # type: ignore[attr-defined]
    moved = following
    for old in [old for old in changes if following in ctx.ancestors(old)]:
        moved = moved.deep_replace(old, changes.pop(old))
    blank = [ln for ln in following.leading_lines if ln.comment is None and not (opens_block and block[1] == 0)]
    changes[following] = moved.with_changes(
        leading_lines=blank + comments + [ln for ln in following.leading_lines if ln.comment is not None])
    return True


def _assignment_statement(node: cst.Call, ctx: FixContext) -> Optional[cst.SimpleStatementLine]:
    """``name = <node>``, a statement line of its own."""
    small = ctx.parent(node)
    line = ctx.parent(small) if isinstance(small, cst.Assign) else None
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or len(small.targets) != 1 \
            or not isinstance(small.targets[0].target, cst.Name):
        return None
    return line


class _Lifting:
    """A fresh callable that only binds values for a stable callee: a lambda whose body calls the
    callee with each of its parameters as one whole argument, or a ``functools.partial`` of it."""

    def __init__(self, fresh: cst.BaseExpression, ctx: FixContext, function: FunctionInfo,
                 called_at_once: bool, calls: Sequence[cst.Call] = ()) -> None:
        self.ctx = ctx
        self.called_at_once = called_at_once
        self.calls = calls
        self.made = fresh
        self.callee: Optional[cst.BaseExpression] = None
        self.params: List[str] = []
        self.body_args: List[cst.Arg] = []
        self.partial_positional = 0
        self.what = "lambda"
        #: the callee's parameters a held value goes to that must stay static (:func:`_held_static`)
        self.static: List[str] = []
        #: ``jax.vmap`` around the lambda (``jax.jit(jax.vmap(lambda tf: score(q, tf)))``): the lambda's
        #: parameters are mapped, the held values not (``in_axes`` None)
        self.vmap: Optional[cst.BaseExpression] = None
        inner = _applied_vmap(fresh, ctx)
        if inner is not None:
            # `lambda s: jax.vmap(lambda a: f(a, x0))(s)` is `jax.vmap(lambda a: f(a, x0))`: the lambda only
            # applies the map to its parameters, in order
            fresh = inner
        if isinstance(fresh, cst.Lambda):
            self._lambda(fresh, function)
        elif isinstance(fresh, cst.Call) and ctx.index.qualify(fresh.func) == _PARTIAL:
            self._partial(fresh, function)
        elif isinstance(fresh, cst.Call) and ctx.index.qualify(fresh.func) == "jax.vmap" and len(fresh.args) == 1 \
                and fresh.args[0].keyword is None and isinstance(fresh.args[0].value, cst.Lambda):
            self._lambda(fresh.args[0].value, function)
            if any(arg.keyword is not None for arg in self.body_args):
                self.callee = None  # (vmap maps every keyword argument: a held value there would be mapped)
            self.vmap = fresh.func
            self.what = "vmapped lambda"

    def _lambda(self, fresh: cst.Lambda, function: FunctionInfo) -> None:
        p = fresh.params
        if p.posonly_params or p.kwonly_params or isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None \
                or any(q.default is not None for q in p.params):
            return
        body = fresh.body
        self.params = [q.name.value for q in p.params]
        if not self._forwarding(body, function):
            self._closed_over(fresh, function)

    def _forwarding(self, body: cst.BaseExpression, function: FunctionInfo) -> bool:
        """The lambda calls one function with its parameters and held values (``lambda p: loss(p, xb, yb)``):
        that function is the callee."""
        if not isinstance(body, cst.Call) or any(a.star for a in body.args):
            return False
        own = set(self.params)
        used = []
        for arg in body.args:
            if isinstance(arg.value, cst.Name) and arg.value.value in own:
                used.append(arg.value.value)
            elif reads(arg.value) & own or not self._held(arg.value, function):
                return False
        if sorted(used) != sorted(self.params) or reads(body.func) & own:
            return False
        self.body_args = list(body.args)
        self.callee = body.func
        return True

    def _closed_over(self, fresh: cst.Lambda, function: FunctionInfo) -> None:
        """Any other lambda (``lambda cars: jnp.argmin(jnp.abs(cars - floor))``): the locals of the function
        around it that it reads become parameters of its own (``lambda cars, floor: ...``), the callee, given
        the values the lambda held at the call (module-level names stay where they are)."""
        body = fresh.body
        held = sorted(n for n in reads(body) - set(self.params) if n in function.local_names)
        if not held or _has_walrus(body) or any(not self._held(cst.Name(n), function) for n in held):
            return
        params = list(fresh.params.params) + [cst.Param(cst.Name(n)) for n in held]
        for i, q in enumerate(params[:-1]):
            params[i] = q.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        params[-1] = params[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self.callee = fresh.with_changes(params=fresh.params.with_changes(params=params), lpar=[], rpar=[])
        self.body_args = [cst.Arg(cst.Name(n)) for n in self.params + held]

    def _partial(self, fresh: cst.Call, function: FunctionInfo) -> None:
        self.what = "partial"
        target = _function_argument(fresh)
        if target is None or target is not fresh.args[0]:
            return
        for arg in fresh.args[1:]:
            if arg.star or not self._held(arg.value, function):
                return
            if arg.keyword is None:
                self.partial_positional += 1
        self.body_args = list(fresh.args[1:])
        self.callee = target.value

    def in_axes(self) -> cst.Tuple:
        """``in_axes`` for the callee under the vmap: 0 for what the lambda's parameters give, None for a
        held value."""
        own = set(self.params)
        axes = [cst.Integer("0") if isinstance(a.value, cst.Name) and a.value.value in own else cst.Name("None")
                for a in self.body_args]
        elements = [cst.Element(v, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    for v in axes[:-1]] + [cst.Element(axes[-1], comma=cst.Comma() if len(axes) == 1
                                                       else cst.MaybeSentinel.DEFAULT)]
        return cst.Tuple(elements)

    def _held(self, value: cst.BaseExpression, function: FunctionInfo) -> bool:
        """A value the fresh callable held that the call site can read instead: a literal, or a
        name (with attributes and constant items): for a wrapper called where it is made, any name
        (nothing runs in between); for a wrapper called through a name, a parameter nothing
        rebinds, a stable module-level name or a module constant (``LR = 0.1``)."""
        if literal_value(value) is not None:
            return True
        root = value
        while isinstance(root, (cst.Attribute, cst.Subscript)):
            if isinstance(root, cst.Subscript) and not all(
                    isinstance(el.slice, cst.Index) and literal_value(el.slice.value) is not None for el in root.slice):
                return False
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        if self.called_at_once:
            return True
        if root.value not in function.local_names:
            return root.value in self.ctx.index.globals \
                and (_stable_global(root.value, self.ctx, _Parts(None, False), None)
                     or _module_constant(root.value, self.ctx))
        return _unchanged_parameter(root.value, function, self.ctx) or self._unchanged_until_calls(root.value)

    def _unchanged_until_calls(self, name: str) -> bool:
        """Every call of the wrapper is in a later statement of the block whose statement makes it, and no
        statement from there up to the call binds ``name``: the call reads the value the wrapper held (a
        loop's variable, read by the calls of the same iteration)."""
        made = _statement_of(self.made, self.ctx)
        if made is None or not self.calls:
            return False
        block = self.ctx.parent(made)
        statements = list(getattr(block, "body", ()))
        if made not in statements:
            return False
        start = statements.index(made)
        for call in self.calls:
            holder = next((s for s in statements[start + 1:] if any(a is s for a in self.ctx.ancestors(call))), None)
            if holder is None:
                return False
            end = statements.index(holder)
            if any(name in names_bound_in(s) for s in statements[start:end]):
                return False
            if isinstance(holder, cst.SimpleStatementLine) and len(holder.body) == 1:
                continue
            if name in names_bound_in(holder):
                return False
        return True

    def arguments(self, call: cst.Call) -> Optional[List[cst.Arg]]:
        """The arguments of the callee for one call of the wrapper."""
        if any(a.star for a in call.args):
            return None
        if self.what == "partial":
            positional = [a for a in self.body_args if a.keyword is None]
            keywords = [a for a in self.body_args if a.keyword is not None]
            given = [a for a in call.args if a.keyword is None]
            named = [a for a in call.args if a.keyword is not None]
            if {a.keyword.value for a in keywords} & {a.keyword.value for a in named}:  # type: ignore[union-attr]
                return None  # a call overriding a bound keyword
            return _comma_separated(positional + given + keywords + named)
        if len(call.args) != len(self.params) or any(a.keyword is not None for a in call.args):
            return None
        by_param = dict(zip(self.params, (a.value for a in call.args)))
        out = []
        for arg in self.body_args:
            if isinstance(arg.value, cst.Name) and arg.value.value in by_param:
                arg = arg.with_changes(value=by_param[arg.value.value])
            out.append(arg)
        return _comma_separated(out)


def _applied_vmap(fresh: cst.BaseExpression, ctx: FixContext) -> Optional[cst.Call]:
    """``jax.vmap(<lambda>)`` where ``fresh`` is ``lambda s: jax.vmap(<lambda>)(s)``: a lambda whose body applies a
    vmap of a lambda (no vmap options) to the lambda's own parameters, each once, in order."""
    if not isinstance(fresh, cst.Lambda) or not isinstance(fresh.body, cst.Call):
        return None
    p = fresh.params
    if p.posonly_params or p.kwonly_params or isinstance(p.star_arg, cst.Param) or p.star_kwarg is not None \
            or any(q.default is not None for q in p.params) or not p.params:
        return None
    mapped = fresh.body.func
    if not (isinstance(mapped, cst.Call) and ctx.index.qualify(mapped.func) == "jax.vmap" and len(mapped.args) == 1
            and mapped.args[0].keyword is None and not mapped.args[0].star
            and isinstance(mapped.args[0].value, cst.Lambda)):
        return None
    given = fresh.body.args
    if len(given) != len(p.params) or any(a.keyword is not None or a.star or not isinstance(a.value, cst.Name)
                                           or a.value.value != q.name.value for a, q in zip(given, p.params)):
        return None
    return mapped


def _comma_separated(args: List[cst.Arg]) -> List[cst.Arg]:
    """The arguments with a comma after each but the last."""
    out = []
    for i, arg in enumerate(args):
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT
        out.append(arg.with_changes(comma=comma))
    return out


def _held_static(lifted: _Lifting, ctx: FixContext) -> Optional[List[str]]:
    """The parameters of the callee, a function of this module, that a held value goes to and that it uses
    where a static value is needed (a ``range()`` bound, an ``if`` test, a shape): traced, they would fail
    where the constants they were worked, so the wrapper made once names them in ``static_argnames`` -- a
    partial's keyword only (it compiles once per value, as each fresh wrapper compiled for its own).  None
    where such a value is held positionally or the callee is not known."""
    callee = lifted.callee
    if isinstance(callee, cst.Lambda):
        # a lambda given the values it held: each must be only data there (a parameter of a lambda has no
        # `static_argnames` place of its own to go to)
        own = set(lifted.params)
        for param in _lambda_params(callee):
            if param.name.value not in own and not all(
                    number_use(use, ctx) and not is_static_use(use, ctx)
                    for use in name_references(callee.body, param.name.value)):
                return None  # (given to a function it cannot see, a held value may be anything: a mode, a flag)
        return []
    fn = ctx.index.functions.get(callee.value) if isinstance(callee, cst.Name) else None
    if fn is None or not isinstance(fn.node, cst.FunctionDef):
        return None
    positional = [p.name.value for p, kind in fn.params if kind in ("posonly", "positional")]
    static: List[str] = []
    k = 0
    for arg in lifted.body_args:
        if arg.keyword is not None:
            name = arg.keyword.value
        elif k < len(positional):
            name = positional[k]
            k += 1
        else:
            return None
        if isinstance(arg.value, cst.Name) and arg.value.value in lifted.params:
            continue  # a value the call passes: traced already
        if any(is_static_use(use, ctx) for use in name_references(fn.node.body, name)):
            if arg.keyword is None or lifted.what != "partial":
                return None
            static.append(name)
    return static


# ------------------------------------------------------------------ a method's wrapper made with the object


@rewrites("JIT501")
def to_wrapper_in_init(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``jax.jit(self._forward)`` made on every call of a method -> ``self._forward_jit``, made once
    at the end of the class's own ``__init__``: the wrapper goes with the object, as a bound method
    does, and its trace is kept.

    Preconditions: the class is a plain one, which takes a new attribute in ``__init__`` (no equinox or flax
    module, no decorator, no ``__slots__``, every base such a class); the wrapper wraps a method of the class (no
    property), given no other argument than constant options; ``__init__`` is defined in the class and has no
    ``return``; the new
    attribute's name is used nowhere in the module; and nothing changes, once the object is built,
    an attribute the method reads -- directly or through the methods it calls on ``self`` --
    (``changed_after_construction``), nor does code outside the class store an attribute of that
    name on any object: the trace kept then computes what a fresh one would.
    UNSAFE: an object made without ``__init__`` (``copy``, ``__new__``) lacks the wrapper, and a
    change made from outside the class, which the analysis cannot see, is no longer seen."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) not in COMPILING_TRANSFORMS:
        return None
    function = ctx.index.owner_of(node)
    if not isinstance(function, FunctionInfo) or function.cls is None or not function.params \
            or function.name == "__init__" or not isinstance(function.node, cst.FunctionDef):
        return None
    me = function.params[0][0].name.value
    target = _function_argument(node)
    if target is None or any(a is not target and (a.star or a.keyword is None or not _constant(a.value))
                             for a in node.args):
        return None
    bound = _bound_method_within(target.value, me, ctx)
    if bound is None:
        return None
    cls = function.cls
    method = cls.methods.get(bound.attr.value)
    init = cls.methods.get("__init__")
    if method is None or init is None or not isinstance(method.node, cst.FunctionDef) or is_property(method.node) \
            or method.is_static_method or not isinstance(init.node, cst.FunctionDef) \
            or not isinstance(init.node.body, cst.IndentedBlock) or not init.params:
        return None
    if _returns(init.node.body):
        return None
    if not ctx.index.plain_class(cls.name, not_a_pytree=True) or any_node(
            [cls.node.body], lambda n: isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name)
            and n.target.value == "__slots__"):
        # an attribute stored in `__init__` needs a class that takes new attributes: not an equinox or flax
        # module, a frozen dataclass, a record or a class with `__slots__` (equinox 0.13.8: FrozenInstanceError)
        return None
    changed = ctx.index.changed_after_construction(cls)
    read = _attributes_read(cls, method, set())
    if set(changed) & read or _stored_outside(read, cls, ctx):
        return None
    attr = f"_{bound.attr.value.lstrip('_')}_jit"
    if attr in ctx.module_names() or any_node([ctx.module], lambda n: isinstance(n, cst.Attribute)
                                                  and n.attr.value == attr):
        return None
    init_self = cst.Name(init.params[0][0].name.value)
    wrapper = node.deep_replace(bound, bound.with_changes(value=init_self)).with_changes(lpar=[], rpar=[])
    made = cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Attribute(init_self,
                                                                                            cst.Name(attr)))],
                                                    value=wrapper)])
    last = init.node.body.body[-1]
    changes = {node: cst.Attribute(cst.Name(me), cst.Name(attr)).with_changes(lpar=node.lpar, rpar=node.rpar),
               last: cst.FlattenSentinel([last, made])}
    edit = ctx.replace_many(changes)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Make `{ctx.code(node)}` once, in `__init__`, as `{me}.{attr}`: "
                   "nothing changes what the method reads once the object is built", (edit,))


#: transforms that make a new function of the one they wrap and keep nothing else: one made once is as good
#: as one made per call
_REMADE_THE_SAME = frozenset({"jax.vmap", "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev",
                              "jax.hessian", "jax.checkpoint", "jax.remat"})


def _bound_method_within(expr: cst.BaseExpression, me: str, ctx: FixContext) -> Optional[cst.Attribute]:
    """``self.method`` where ``expr`` is it, or it wrapped by transforms of constant options
    (``jax.vmap(self._chain)``, ``jax.grad(self.loss, argnums=1)``); None otherwise."""
    for _ in range(4):
        if isinstance(expr, cst.Attribute):
            return expr if isinstance(expr.value, cst.Name) and expr.value.value == me else None
        if not isinstance(expr, cst.Call) or ctx.index.qualify(expr.func) not in _REMADE_THE_SAME:
            return None
        inner = _function_argument(expr)
        if inner is None or any(a is not inner and (a.star or a.keyword is None or not _constant(a.value))
                                for a in expr.args):
            return None
        expr = inner.value
    return None


def _stored_outside(attributes: set, cls, ctx: FixContext) -> bool:
    """Code of the module outside the class stores one of ``attributes`` on some object
    (``model.params = new``): it may be an instance of the class."""
    def stores(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        else:
            return False
        return any(isinstance(t, cst.Attribute) and t.attr.value in attributes
                   for target in targets for t in flat_targets(target))

    return any_node([stmt for stmt in ctx.module.body if stmt is not cls.node], stores)


def _returns(body: cst.CSTNode) -> bool:
    """A ``return`` of the function whose body this is (not one of a function it defines)."""
    stack: List[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            return True
        stack.extend(child for child in iter_children(node)
                     if not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)))
    return False


def _attributes_read(cls, method: FunctionInfo, seen: set) -> set:
    """The attributes of ``self`` that ``method`` reads, and the methods of the class it calls on
    ``self`` read, a few levels deep."""
    if id(method) in seen or len(seen) > 8 or not method.params or not isinstance(method.node, cst.FunctionDef):
        return set()
    seen.add(id(method))
    me = method.params[0][0].name.value
    found = set()
    stack: List[cst.CSTNode] = [method.node.body]  # (the lambdas and functions it makes read them too)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == me:
            found.add(node.attr.value)
            called = cls.methods.get(node.attr.value)
            if called is not None:
                found |= _attributes_read(cls, called, seen)
        stack.extend(iter_children(node))
    return found


@rewrites("JIT501")
def to_cached_property(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``@property def step(self): return jax.jit(lambda ...)`` gotten and called on every loop iteration
    -> ``@functools.cached_property``: the wrapper is made on the first access of each object and kept
    in its ``__dict__``, so each object compiles once.  Only for a plain class (no base but ``object``,
    no ``__slots__``, no setter or deleter of the property), where an object's ``__dict__`` may hold it.
    UNSAFE: what the wrapped function reads of the object while it is traced (``self.drag``) is then
    read at the first call only; the property read it at every access."""
    if not isinstance(node, cst.Call) or ctx.index.qualify(node.func) not in COMPILING_TRANSFORMS:
        return None
    function = ctx.enclosing_def(node)
    info = ctx.index.infos.get(function) if function is not None else None
    if info is None or info.cls is None or info.parent is not None \
            or not any(value is node for value in returned_values(function.body)):
        return None
    decorators = function.decorators
    if len(decorators) != 1 or not isinstance(decorators[0].decorator, cst.Name) \
            or decorators[0].decorator.value != "property" or ctx.facts.read_scope.get(decorators[0].decorator) \
            not in ("builtin", None):
        return None
    cls = info.cls
    if any(base not in ("object",) for base in cls.bases) or cls.decorators:
        return None
    for stmt in cls.node.body.body if isinstance(cls.node.body, cst.IndentedBlock) else ():
        if isinstance(stmt, cst.SimpleStatementLine) and "__slots__" in names_bound_in(stmt):
            return None
        if isinstance(stmt, cst.FunctionDef) and stmt is not function and any(
                isinstance(d.decorator, cst.Attribute) and isinstance(d.decorator.value, cst.Name)
                and d.decorator.value.value == info.name for d in stmt.decorators):
            return None  # (`@step.setter`: a cached_property takes none)
    spelled = ctx.import_name("functools.cached_property")
    if spelled is None:
        return None
    name, imports = spelled
    edit = ctx.replace(decorators[0].decorator, ctx.expr(name))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Make the wrapper once per object: `@{name}` instead of `@property`",
                   (edit,) + tuple(imports))


@rewrites("JIT501")
def to_def_before_loop(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``for ...: @jax.jit def step(...): ...; step(x)`` -> the decorated ``def`` moved just before the loop,
    where it reads nothing the loop binds (its target, the names its body assigns): each iteration made
    the same function anew, and jit compiled each one; made once, it compiles once.  The name must be bound
    by this ``def`` alone in its function (or module).  UNSAFE: what the function reads from outside
    (``p_spread``) is read at its first trace, and the ``def`` runs even when the loop runs no iteration."""
    if not isinstance(node, cst.Decorator) or ctx.index.qualify(
            node.decorator.func if isinstance(node.decorator, cst.Call) else node.decorator) not in COMPILING_TRANSFORMS:
        return None
    inner = ctx.parent(node)
    if not isinstance(inner, cst.FunctionDef) or inner.asynchronous is not None:
        return None
    block = ctx.parent(inner)
    loop = ctx.parent(block) if isinstance(block, cst.IndentedBlock) else None
    if not isinstance(loop, (cst.For, cst.While)) or loop.body is not block or loop.orelse is not None \
            or getattr(loop, "asynchronous", None) is not None:
        return None
    info = ctx.index.infos.get(inner)
    if info is None:
        return None
    owner = info.parent
    bindings = owner.scope.bindings_of(inner.name.value) if owner is not None \
        else ctx.index.scope_model.module_scope.bindings_of(inner.name.value)
    if len(bindings) != 1:
        return None
    in_loop = set(assigned_in([loop]))  # (its target, and what its body binds)
    in_loop.discard(inner.name.value)
    own = set(info.scope.local)
    free = {ref.value for ref in name_references(inner) if ref.value not in own}
    decorators = {ref.value for d in inner.decorators for ref in name_references(d)}
    if (free | decorators) & in_loop or any_node([inner], lambda n: isinstance(n, (cst.Global, cst.Nonlocal))):
        return None
    rest = [stmt for stmt in block.body if stmt is not inner]
    if not rest:
        return None
    if block.body[0] is inner:  # (the blank line after the def goes with it)
        rest[0] = rest[0].with_changes(leading_lines=[line for line in rest[0].leading_lines if line.comment])
    moved = inner.with_changes(leading_lines=[line for line in inner.leading_lines if line.comment])
    new_loop = loop.with_changes(body=block.with_changes(body=rest),
                                 leading_lines=[cst.EmptyLine(indent=False), *loop.leading_lines])
    edit = ctx.replace(loop, cst.FlattenSentinel([moved, new_loop]))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Define `{inner.name.value}` once, before the loop: its jit then compiles "
                   "once", (edit,))


@rewrites("JIT501")
def to_lifted_closure(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``@jax.jit def _update(p, v, g): v = self.beta * v + g; ...`` made on every call of a method, then
    ``_update(params, vel, grads)`` -> the ``def`` moved to module level, once, with a keyword-only
    parameter for each value it read from the function around it (``*, beta, lr``, the reads replaced),
    called ``_update(params, vel, grads, beta=self.beta, lr=self.lr)``: one function object, one compile
    per signature, where each call of the method made and compiled another.

    Preconditions: the decorator is the transform alone (no options); the ``def`` is bound once and
    every use of its name is a call of it in the function; what it reads from around it is names or
    attribute chains of them (``self.lr``), each used only as array data (an operand of arithmetic with
    a traced array, an argument of a ``jax.numpy`` / ``jax.lax`` function) -- a traced argument then
    computes what the constant did -- and read where the call is: the ``def`` and its one call in the
    same loop iteration, or each read rooted at a parameter of the function that nothing in it rebinds
    or stores into.  UNSAFE: the values become traced (a Python number arrives as a weakly typed array)."""
    found = _jitted_nested_def(node, ctx)
    if found is None:
        return None
    inner, info, function = found
    params = inner.params
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None or params.kwonly_params \
            or any(literal_value(p.default) is None for p in params.params if p.default is not None):
        return None
    calls = ctx.index.calls_of_nested_def(info)
    returned = _returned_only(inner, function, ctx) if calls is None else None
    if not (calls or returned) or any(a.star for call in calls or () for a in call.args) \
            or any_node([inner], lambda n: isinstance(n, (cst.Global, cst.Nonlocal, cst.Yield, cst.Await))):
        return None
    decorator_root = chain_root(node.decorator)
    if decorator_root is None or any(
            decorator_root.value in scope.local_names for scope in _enclosing_functions(function)):
        return None
    held = _closure_reads(inner, info, function, ctx)
    if held is None:
        return None  # (`held` empty: it reads only its parameters and globals, and moves as it is)
    if returned is not None:
        # what a returned function read when called is what the names held when the factory returned
        if any("." in code for code in held):
            return None  # (an attribute may change between the return and the first call)
    elif not _read_at_the_call(held, inner, calls, function, ctx):
        return None
    names: dict = {}
    # (a name read from around it keeps its name: every read of it becomes the parameter's)
    taken = (names_in(inner) - {code for code in held if "." not in code}) | {p.name.value for p in params.params}
    for code in held:
        base = code.rsplit(".", 1)[-1].lstrip("_") or "value"
        name, n = base, 1
        while name in taken or keyword.iskeyword(name):
            name, n = f"{base}_{n}", n + 1
        names[code] = name
        taken.add(name)
    lifted = _lifted_def(inner, held, names, ctx)
    # (a local of another function may share the name: the global it becomes is shadowed there)
    made_name = ctx.fresh_name(inner.name.value, None, ctx.module_names() - {inner.name.value})
    lifted = lifted.with_changes(name=cst.Name(made_name), leading_lines=[])
    changes: dict = {}
    extra = [keyword_arg(names[code], cst.parse_expression(code)) for code in held]
    for call in calls or ():
        changes[call] = call.with_changes(func=cst.Name(made_name), args=_comma_separated(list(call.args) + extra))
    imports: Tuple[Edit, ...] = ()
    if returned is not None and not held:
        changes[returned] = cst.Name(made_name)
    elif returned is not None:
        spelled = ctx.import_name("functools.partial", at=function.node)
        if spelled is None:
            return None
        imports = tuple(spelled[1])
        bound = _comma_separated([cst.Arg(cst.Name(made_name))] + extra)
        changes[returned] = cst.Call(cst.parse_expression(spelled[0]), bound)
    changes[inner] = cst.RemovalSentinel.REMOVE
    comments = [cst.EmptyLine(indent=True, comment=line.comment) for line in inner.leading_lines if line.comment]
    if not _onto_following(inner, comments, changes, ctx, opens_block=True):
        return None
    replaced = ctx.replace_many(changes)
    before = ctx.top_index(function.node)
    if replaced is None or before is None:
        return None
    bound = ctx.index.globals.get(decorator_root.value)
    if bound is None or bound.last_statement >= before:
        return None  # (the decorator's name is bound below where the def would go)
    at = _own_line_offset(before, ctx)
    newline = ctx.module.default_newline
    made = Edit(at, at, ctx.module.code_for_node(lifted).rstrip("\r\n") + newline * 3)
    passed = ", ".join(f"`{code}`" for code in held)
    how = "bind them with `functools.partial` where it is returned" if returned is not None else "at each call"
    title = f"Define `{made_name}` once, at module level, and pass it {passed}: {how}" if held else \
        f"Define `{made_name}` once, at module level: it reads only its parameters and module names"
    return ctx.fix(Applicability.UNSAFE, title, (made, replaced) + imports)


def _returned_only(inner: cst.FunctionDef, function: FunctionInfo, ctx: FixContext) -> Optional[cst.Name]:
    """The name in ``return <name>``, the one use of the nested ``def`` in the function around it, which
    binds the name once and makes the ``def`` outside any loop of its own: a factory of a jitted function."""
    name = inner.name.value
    if len(function.scope.bindings_of(name)) != 1 or any(
            isinstance(a, (cst.For, cst.While)) for a in ctx.ancestors(inner) if a is not function.node):
        return None
    uses = [ref for ref in name_references(function.node.body, name) if ref is not inner.name]
    if len(uses) != 1 or not isinstance(ctx.parent(uses[0]), cst.Return):
        return None
    return uses[0]


def _closure_reads(inner: cst.FunctionDef, info: FunctionInfo, function: FunctionInfo,
                   ctx: FixContext) -> Optional[dict]:
    """What ``inner`` reads from the functions around it: the code of each name or attribute chain
    (``self.lr``) -> its reads; None where one is called, stored into, read by a nested scope or used
    other than as array data."""
    enclosing = set()
    for scope in _enclosing_functions(function):
        enclosing |= scope.local_names
    own = set(info.scope.local)
    held: dict = {}
    for ref in name_references(inner.body):
        if ref.value in own or ref.value not in enclosing:
            continue
        if ctx.facts.read_scope.get(ref) != "closure":
            return None  # (a nested scope of its own reads it, or the analysis did not see it)
        whole: cst.BaseExpression = ref
        while isinstance(ctx.parent(whole), cst.Attribute) and ctx.parent(whole).value is whole:
            whole = ctx.parent(whole)
        holder = ctx.parent(whole)
        if isinstance(holder, cst.Call) and holder.func is whole:
            return None  # a method or a function: not an array
        if not number_use(whole, ctx) or is_static_use(whole, ctx):
            return None
        held.setdefault(ctx.code(whole), []).append(whole)
    order = {id(n): i for i, n in enumerate(_in_order(inner.body))}
    return dict(sorted(held.items(), key=lambda item: min(order[id(r)] for r in item[1])))


def _in_order(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    yield node
    for child in iter_children(node):
        yield from _in_order(child)


def _read_at_the_call(held: dict, inner: cst.FunctionDef, calls: Sequence[cst.Call], function: FunctionInfo,
                      ctx: FixContext) -> bool:
    """Passing each held value at the call gives what the closure read at the trace: one call, in the
    iteration that made the function; or each value rooted at a parameter of ``function`` that nothing
    in it rebinds, with nothing stored into an attribute of it."""
    loops_of = lambda n: [a for a in ctx.ancestors(n) if isinstance(a, (cst.For, cst.While, cst.CompFor))]  # noqa: E731
    if len(calls) == 1 and loops_of(calls[0]) == loops_of(inner):
        return True
    for code in held:
        root = code.split(".", 1)[0]
        if not _unchanged_parameter(root, function, ctx) or ("." in code and _stores_into(function.node.body, root)):
            return False
    return True


def _stores_into(body: cst.CSTNode, root: str) -> bool:
    """Some statement in ``body`` assigns an attribute or item reached from ``root`` (``self.lr = ...``,
    ``self.opt.lr *= ...``)."""
    def stores(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        else:
            return False
        return any(isinstance(t, (cst.Attribute, cst.Subscript)) and getattr(chain_root(t), "value", None) == root
                   for target in targets for t in flat_targets(target))
    return any_node([body], stores)


def _lifted_def(inner: cst.FunctionDef, held: dict, names: dict, ctx: FixContext) -> cst.FunctionDef:
    """``inner`` with each held read replaced by its new parameter, the parameters keyword-only after the
    others (``inner`` itself where it holds nothing)."""
    if not held:
        return inner
    replacements = {read: cst.Name(names[code]) for code, reads_of in held.items() for read in reads_of}
    on_path = {a for read in replacements for a in ctx.ancestors(read)}
    body = cst.ensure_type(inner.body.visit(PathReplacer(replacements, on_path)), cst.BaseSuite)
    kwonly = [cst.Param(name=cst.Name(names[code])) for code in held]
    return inner.with_changes(body=body, params=inner.params.with_changes(star_arg=cst.ParamStar(),
                                                                          kwonly_params=kwonly))


# ------------------------------------------------------------------ changing attributes passed as arguments


@rewrites("JIT503")
def to_changing_attributes_as_arguments(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """A jitted method with ``self`` static (``self._f = jax.jit(self._impl)`` in ``__init__``, or
    ``@partial(jax.jit, static_argnums=0)``) that reads attributes other methods change -> those attributes
    become keyword-only parameters of the method, read in its body under their own names, and every call of
    the jitted method (and of the method itself) passes the object's current values
    (``self._f(x, mean=self.mean)``): they are traced arguments, so a changed value is computed with, and a
    value of the same shape compiles nothing new.

    Preconditions: every changing attribute the traced code reads is read in the method's own body (not in
    a method it calls), where an array goes (arithmetic, a ``jnp`` function's argument, indexing, a member
    of an array: not a test, a shape, a call, an attribute of an object); ``__init__`` binds it to no
    function or instance of a class of the module; ``self`` appears in the body only to read attributes or
    call methods.  A wrapper made in ``__init__`` (``self._f = jax.jit(self._impl)``): every mention of its
    name and of the method in the module is a call on a plain name inside the class (``self._f(...)``) with no
    ``*``/``**`` argument, and each gets the new arguments.  A decorated method keeps its name and signature
    as a plain method that passes the values on to a jitted twin: no call is edited.
    UNSAFE: a changed value of another shape or dtype compiles again (as a new object would), and an
    attribute holding something that is not an array (``None``, an object) set later would not trace."""
    entry = next((e for e in ctx.index.entries if e.site is node), None)
    if entry is None or not entry.compiles:
        return None
    fn = entry.function
    cls = fn.cls
    if cls is None or not fn.is_method or not isinstance(fn.node, cst.FunctionDef) or not fn.params:
        return None
    params = fn.node.params
    if params.star_kwarg is not None or params.posonly_params:
        return None
    me = fn.params[0][0].name.value
    changed = ctx.index.changed_after_construction(cls)
    read_anywhere = _attributes_read(cls, fn, set())
    stale = sorted(a for a in read_anywhere if a in changed)
    if not stale:
        return None
    reads_here: dict = {}
    for n in walk(fn.node.body):
        if isinstance(n, cst.Name) and n.value == me:
            holder = ctx.parent(n)
            if not (isinstance(holder, cst.Attribute) and holder.value is n):
                return None  # `self` handed on whole: what it reads there is not seen
            called = cls.methods.get(holder.attr.value)
            if called is not None and set(stale) & _attributes_read(cls, called, set()):
                return None  # a changing attribute read by a method it calls
            if holder.attr.value in stale:
                if not array_operand(holder, ctx):
                    return None
                reads_here.setdefault(holder.attr.value, []).append(holder)
    if set(reads_here) != set(stale) or not _array_bound_in_init(cls, stale, ctx):
        return None
    # the names the object is called through: the jitted attribute (made in __init__) or the method itself
    names = {fn.name}
    stored = isinstance(node, cst.Call) and isinstance(ctx.parent(node), cst.Assign)
    site_edit = None
    if stored and _module_wrapper_of_object(node, fn, ctx):
        # `win_probability = jax.jit(LEAGUE.win_probability)`: the name gets the plain bound method, whose body
        # passes the object's current values to a jitted twin, as for a decorated method
        stored = False
        site_edit = _function_argument(node).value
    if stored:
        store = ctx.parent(node)
        if not isinstance(ctx.parent(store), cst.SimpleStatementLine) or len(store.targets) != 1:
            return None
        target = store.targets[0].target
        if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)):
            return None
        names.add(target.attr.value)
        wrapped = _function_argument(node)
        if wrapped is None or not (isinstance(wrapped.value, cst.Attribute) and wrapped.value.attr.value == fn.name):
            return None
    taken = set(names_in(fn.node))
    new_names = {}
    for attr in stale:
        base = attr.lstrip("_") or "value"
        if base in taken or keyword.iskeyword(base) or base in dir(builtins):
            return None
        new_names[attr] = base
        taken.add(base)
    changes: dict = {}
    for n in walk(ctx.module) if stored else ():
        if isinstance(n, cst.Attribute) and n.attr.value in names and n not in changes:
            holder = ctx.parent(n)
            if n is _function_argument(node).value:
                continue  # the method wrapped at the site
            if isinstance(holder, cst.AssignTarget):
                if holder is ctx.parent(node).targets[0]:
                    continue  # the store of the wrapper
                return None
            if not (isinstance(holder, cst.Call) and holder.func is n and isinstance(n.value, cst.Name)) \
                    or any(a.star for a in holder.args) or not any_node([cls.node], lambda m: m is holder):
                return None  # (a call from outside the class: the fix stays within the class statement)
            receiver = n.value.value
            args = list(holder.args)
            if args:
                args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            for i, attr in enumerate(stale):
                args.append(cst.Arg(cst.Attribute(cst.Name(receiver), cst.Name(attr)),
                                    keyword=cst.Name(new_names[attr]),
                                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                          whitespace_after=cst.SimpleWhitespace("")),
                                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                                    if i < len(stale) - 1 else cst.MaybeSentinel.DEFAULT))
            changes[holder] = holder.with_changes(args=args)
        elif isinstance(n, cst.Name) and n.value in names and not isinstance(ctx.parent(n), cst.Attribute) \
                and n is not fn.node.name:
            return None  # the method or the wrapper named bare (handed on, or another binding of the name)
    added = [cst.Param(cst.Name(new_names[a])) for a in stale]
    if params.star_arg is None or isinstance(params.star_arg, cst.ParamStar):
        new_params = params.with_changes(star_arg=params.star_arg if params.star_arg is not None else cst.ParamStar(),
                                         kwonly_params=list(params.kwonly_params) + added)
    else:
        new_params = params.with_changes(kwonly_params=list(params.kwonly_params) + added)
    renamed = {id(read): cst.Name(new_names[attr]).with_changes(lpar=read.lpar, rpar=read.rpar)
               for attr, nodes in reads_here.items() for read in nodes}
    body = fn.node.body.visit(ById(renamed))
    if stored:
        changes[fn.node] = fn.node.with_changes(params=new_params, body=body)
    else:
        # a decorated method keeps its name and signature as a plain method that passes the object's current
        # values on to the jitted one (callers in other modules keep working)
        jitted = f"_{fn.name.lstrip('_')}_jit"
        if jitted in ctx.module_names() or any_node([ctx.module], lambda n: isinstance(n, cst.Attribute)
                                                       and n.attr.value == jitted):
            return None
        wrapper = forwarding_def(fn.name, params, f"{me}.{jitted}", [f"{new_names[a]}={me}.{a}" for a in stale],
                                 ctx.module, skip_first=True).with_changes(leading_lines=fn.node.leading_lines,
                                                                          decorators=[])
        twin = fn.node.with_changes(name=cst.Name(jitted), params=new_params, body=body,
                                    leading_lines=[cst.EmptyLine(indent=False)])
        if site_edit is not None:
            spelled = ctx.import_name("functools.partial", at=fn.node)
            if spelled is None or fn.node.decorators:
                return None
            partial_name, imports = spelled
            twin = twin.with_changes(decorators=[cst.Decorator(cst.parse_expression(
                f"{partial_name}({ctx.code(node.func)}, static_argnums=0)"))])
            changes[node] = site_edit
        changes[fn.node] = cst.FlattenSentinel([wrapper, twin])
    if any(any_node([c], lambda m: m is fn.node) for c in changes if c is not fn.node):
        return None  # (a call inside the method itself: one edit would overwrite the other)
    edits = ctx.replace_per_statement(changes)
    if edits is None:
        return None
    if site_edit is not None:
        edits = list(edits) + list(imports)
    passed = ", ".join(f"`{me}.{a}`" for a in stale)
    how = "as arguments" if stored else f"as arguments of a jitted `{jitted}` that `{fn.name}` calls"
    return ctx.fix(Applicability.UNSAFE, f"Pass {passed} to `{fn.name}` {how}: traced, a changed value is "
                   "used instead of the one the first trace kept", tuple(edits))


def _module_wrapper_of_object(node: cst.Call, fn: FunctionInfo, ctx: FixContext) -> bool:
    """``W = jax.jit(OBJ.method)`` as a module statement, the transform given only the bound method: ``OBJ`` a
    module name bound once, to an instance of the method's class, ``W`` a plain name."""
    store = ctx.parent(node)
    if not (isinstance(store, cst.Assign) and len(store.targets) == 1 and isinstance(store.targets[0].target, cst.Name)
            and isinstance(ctx.parent(store), cst.SimpleStatementLine) and ctx.top_index(store) is not None
            and not isinstance(ctx.index.owner_of(node), FunctionInfo)) or len(node.args) != 1:
        return False
    wrapped = _function_argument(node)
    target = wrapped.value if wrapped is not None else None
    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.attr.value == fn.name):
        return False
    made = ctx.index.single_value(target.value.value, None)
    return isinstance(made, cst.Call) and isinstance(made.func, cst.Name) and fn.cls is not None \
        and made.func.value == fn.cls.name


def _array_bound_in_init(cls, attributes: Sequence[str], ctx: FixContext) -> bool:
    """``__init__`` binds each of ``attributes`` (``self.mean = jnp.zeros(n)``) to no function, lambda or
    instance of a class of the module: a value that can go into a trace as an argument."""
    init = cls.methods.get("__init__")
    if init is None and ctx.index.record_class(cls.name):
        return _number_fields(cls, attributes)
    if init is None or not isinstance(init.node, cst.FunctionDef) or not init.params:
        return False
    me = init.params[0][0].name.value
    bound = set()
    for n in walk(init.node.body):
        if isinstance(n, cst.Assign):
            for t in n.targets:
                for target in flat_targets(t.target):
                    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                            and target.value.value == me and target.attr.value in attributes:
                        value = n.value
                        if isinstance(value, cst.Lambda) or (isinstance(value, cst.Call) and isinstance(
                                value.func, cst.Name) and value.func.value in ctx.index.classes):
                            return False
                        if isinstance(value, cst.Name) and value.value in ctx.index.globals and ctx.index.globals[
                                value.value].kind in ("function", "class"):
                            return False
                        bound.add(target.attr.value)
    return bound == set(attributes)


#: annotations of a field that holds a number or an array
_NUMBER_ANNOTATIONS = frozenset({"float", "int", "complex", "jax.Array", "jax.numpy.ndarray", "numpy.ndarray"})


def _number_fields(cls, attributes: Sequence[str]) -> bool:
    """Each of ``attributes`` is a field of the dataclass ``cls`` annotated as a number or an array, with no
    default or a number default (what the generated ``__init__`` binds)."""
    found = set()
    for line in cls.node.body.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                    and small.target.value in attributes:
                annotation = (dotted_name(small.annotation.annotation) or "").replace("jnp.", "jax.numpy.")
                if annotation not in _NUMBER_ANNOTATIONS:
                    return False
                if small.value is not None and not isinstance(literal_value(small.value), (int, float)):
                    return False
                found.add(small.target.value)
    return found == set(attributes)
