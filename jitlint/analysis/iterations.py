"""Values that are a new ``jax.jit`` cache key on every iteration of a loop (JIT501's inherent compiles).

A static argument is part of jit's cache key: hashed by identity for an ordinary class, by value for a
frozen dataclass, a tuple, a string. A static argument that is a new object of a class, built in this
iteration of a loop (or for this element of a comprehension) from what the iteration varies (the loop's
target, or the counter a ``while`` loop advances), is a new key on every iteration: a new object of an
ordinary class never equals an earlier one, and an object holding the loop variable differs as the variable
does. One compile per iteration is then the design, wherever the jit wrapper is made (measured on JAX
0.10.2: as many compiles with the wrapper made once before the loop).

"Holds" is structural, so that the value cannot repeat while the loop variable does not: the name itself, a
list, tuple, set or dict display holding it, a ``dict``/``list``/``tuple`` call or a new object of a class
given it, or a local of the same iteration bound once to one of those. Arithmetic, ``%``, comparisons,
indexing and other calls can map many iterations to one value (``int(i % 2)``, ``len(name)``) and do not
count. Nor does a class of this module that hashes by value (a dataclass, ``__eq__``/``__hash__``, a base
from elsewhere such as ``NamedTuple`` or ``eqx.Module``): its keys repeat when the loop's values do. A
class imported from outside JAX, NumPy and the standard library is taken as constructed, hashing unknown: an
object holding the loop variable is still a new key whenever the loop variable takes a new value.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Optional, Set, Union

import libcst as cst

from jitlint.analysis.scopes import BindingKind, Scope, names_bound_in
from jitlint.analysis.syntax import assigned_names, iter_children

if TYPE_CHECKING:
    from jitlint.analysis.discovery import ClassInfo, ModuleIndex

#: operators whose result keeps changing when an operand does (not ``%``, ``&``: bounded)
GROWING_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Power, cst.LeftShift)
GROWING_ASSIGN_OPERATORS = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign,
                            cst.FloorDivideAssign, cst.PowerAssign, cst.LeftShiftAssign)
#: builtins that build a container of what they are given
_CONTAINER_BUILTINS = frozenset({"dict", "list", "tuple"})
#: packages whose classes are values (dtypes, shapes, shardings, numbers, paths): equal when built alike
_VALUE_PACKAGES = frozenset(getattr(sys, "stdlib_module_names", ())) | {"jax", "jaxlib", "numpy", "ml_dtypes"}
#: bases that leave hashing and equality to ``object``
_IDENTITY_BASES = frozenset({"object", "ABC"})
#: the loop statement, or the comprehension, whose one iteration (element) a value is made in
Iteration = Union[cst.For, cst.While, cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp]


def iteration_of(node: cst.CSTNode, index: "ModuleIndex") -> Optional[Iteration]:
    """The innermost loop around ``node`` (a call or definition), or the comprehension whose element it is
    evaluated for; None outside both."""
    comprehension = index.per_element.get(node) if isinstance(node, cst.Call) else None
    if comprehension is not None:
        return comprehension.node
    loops = index.loops_of.get(node)
    return loops[-1] if loops else None


def new_key_each_iteration(value: cst.BaseExpression, iteration: Iteration, scope: Scope,
                           index: "ModuleIndex") -> bool:
    """``value`` (an argument of a call in ``iteration``, read in ``scope``) is a new object of a class,
    built in this iteration from what the iteration varies: a new jit cache key on every iteration."""
    varying = _varying_names(iteration, scope)
    if not varying:
        return False
    if isinstance(value, cst.Name) and value.value not in varying:
        value = _bound_in(value.value, iteration, scope)
        if value is None:
            return False
    return isinstance(value, cst.Call) and _constructs(value, index, identity_only=True) and any(
        _holds(arg.value, varying, iteration, scope, index, 0) for arg in value.args)


def _varying_names(iteration: Iteration, scope: Scope) -> Set[str]:
    """What changes from one iteration to the next: a for loop's targets, the innermost ``for`` of a
    comprehension's targets, the names a while loop advances (``level += 1``)."""
    if isinstance(iteration, cst.For):
        return {n.value for n in assigned_names(iteration.target)}
    if isinstance(iteration, cst.While):
        return {name for name, bindings in scope.bindings.items() for b in bindings
                if b.kind is BindingKind.AUGMENTED and iteration in b.loops
                and isinstance(b.node.operator, GROWING_ASSIGN_OPERATORS)}
    clause = iteration.for_in
    while clause.inner_for_in is not None:
        clause = clause.inner_for_in
    return {n.value for n in assigned_names(clause.target)}


def _bound_in(name: str, iteration: Iteration, scope: Scope) -> Optional[cst.BaseExpression]:
    """The value of ``name`` when its only binding in ``scope`` is a plain assignment in the body of the
    loop ``iteration`` (so each iteration binds it anew before reading it there)."""
    value = scope.single_value(name)
    if value is None or not isinstance(iteration, (cst.For, cst.While)):
        return None
    binding = scope.bindings_of(name)[0]
    return value if iteration in binding.loops else None


def _holds(expr: cst.BaseExpression, varying: Set[str], iteration: Iteration, scope: Scope,
           index: "ModuleIndex", depth: int) -> bool:
    """``expr`` holds a name of ``varying`` as it is (see the module's docstring)."""
    if depth > 4:
        return False
    if isinstance(expr, cst.Name):
        if expr.value in varying:
            return True
        bound = _bound_in(expr.value, iteration, scope)
        return bound is not None and _holds(bound, varying, iteration, scope, index, depth + 1)
    if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
        parts = [el.value for el in expr.elements]
    elif isinstance(expr, cst.Dict):
        parts = [part for el in expr.elements for part in iter_children(el) if isinstance(part, cst.BaseExpression)]
    elif isinstance(expr, cst.Call) and (_container_builtin(expr, scope) or _constructs(expr, index, False)):
        parts = [arg.value for arg in expr.args]
    else:
        return False
    return any(_holds(part, varying, iteration, scope, index, depth + 1) for part in parts)


def _container_builtin(call: cst.Call, scope: Scope) -> bool:
    return isinstance(call.func, cst.Name) and call.func.value in _CONTAINER_BUILTINS \
        and scope.resolve(call.func.value) is None


def _constructs(call: cst.Call, index: "ModuleIndex", identity_only: bool) -> bool:
    """``call`` makes a new object of a class: a class of this module (with ``identity_only``, one that
    hashes by identity), or a CapWords name imported from a package other than JAX, NumPy and the
    standard library (whose hashing is unknown)."""
    func = call.func
    if isinstance(func, cst.Name) and func.value in index.classes:
        return not identity_only or hashes_by_identity(index.classes[func.value], index)
    qualified = index.qualify(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
    if qualified is None:
        return False
    head, _, _ = qualified.lstrip(".").partition(".")
    return qualified.rsplit(".", 1)[-1][:1].isupper() and (qualified.startswith(".") or head not in _VALUE_PACKAGES)


def hashes_by_identity(cls: "ClassInfo", index: "ModuleIndex") -> bool:
    """Instances of ``cls`` hash and compare by identity: neither it nor a class of this module it derives
    from is decorated (a dataclass, a registered pytree) or defines ``__eq__`` or ``__hash__``, and every
    base is one of those, ``object`` or ``abc.ABC`` (a base from elsewhere -- ``NamedTuple``, ``eqx.Module``
    -- may hash by value)."""
    lineage = index.ancestors(cls)
    known = {c.name for c in lineage}
    for c in lineage:
        defined = {name for stmt in c.node.body.body for name in names_bound_in(stmt)}
        if c.decorators or "__eq__" in defined or "__hash__" in defined:
            return False
        if any(base.split(".")[-1] not in known | _IDENTITY_BASES for base in c.bases):
            return False
    return True
