"""Which module statements an edit can change the findings of (the editor's re-analysis after an edit).

The analysis of a module is whole-module: a finding in one function can depend on another function
(a helper it calls, the callers that pass it tracers, a global that another function rebinds or
mutates, a method of a class that another statement defines).  But every one of those links goes
through a *name* that both statements mention: the helper's name, the global's, the attribute's.  So
two module statements that share no such name cannot change each other's findings, and after an edit
only the statements linked to the edited ones, directly or through others, need to be analysed again.

A name links every statement that mentions it (in any scope, as a name, an attribute or a string
constant: the analysis matches calls by name across scopes, and ``getattr(obj, "f")`` names ``f``)
when it is one of:

* a name bound at module level by anything but an import, or declared ``global`` anywhere;
* the name of a function or class defined anywhere (a method, a nested function);
* a name bound in any scope and called as a bare name anywhere (``fn(x)``);
* an attribute name that is stored, deleted, or bound in a class body (a field, a method);
* a name whose object is changed in place (``X[k] = v``, ``X.a = v``, ``X.append(v)``).

A name bound only by imports and never changed (``jnp``, ``partial``) links only one way: the import
statement to the statements that read it (reading ``jnp`` in one function says nothing about another).
Builtins and names local to one function link nothing.

A statement that reaches names the analysis cannot see (``from m import *``, ``globals()``,
``exec``), or a module-level call that switches a library's behaviour for the whole module (flax's
``nnx.var_defaults(hijax=True)``), links everything: the whole module is analysed again.

:func:`summarize` gives one statement's names (a statement left unchanged by an edit keeps its summary:
the editor's parse keeps its node); :func:`affected` gives the statements to analyse again, and
:func:`needed` what their analysis must see.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set

import libcst as cst

from jitlint.analysis.jax_api import MUTATING_METHODS
from jitlint.analysis.scopes import BINDING_NODES, COMPREHENSIONS, BindingKind, node_bindings
from jitlint.analysis.syntax import flat_targets, iter_children

#: names through which code reaches bindings the analysis cannot see
_DYNAMIC = frozenset({"globals", "vars", "locals", "exec", "eval", "__import__"})
#: module-level calls that switch a library's behaviour for the whole module, which the rules read wherever
#: the library's objects are written (flax's ``nnx.var_defaults(hijax=True)``): such a statement links everything
_SWITCHES = frozenset({"var_defaults"})
_STORES = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)


@dataclass(frozen=True)
class Summary:
    """The names one module statement mentions, binds and changes."""

    #: every identifier in it: names (any scope, any context), attribute names, identifier-like strings
    mentions: FrozenSet[str]
    #: names it binds at module level (an import's included), or declares ``global`` somewhere inside
    module_binds: FrozenSet[str]
    #: of those, the names bound by imports only
    imported: FrozenSet[str]
    #: names bound anywhere in it (any scope), parameters included, imports excluded
    bound_anywhere: FrozenSet[str]
    #: names of the functions and classes it defines, at any depth
    defined: FrozenSet[str]
    #: names called as bare names (``fn(x)``)
    called: FrozenSet[str]
    #: attribute names stored, deleted, or bound directly in a class body
    attributes: FrozenSet[str]
    #: names whose object it changes in place, and names it declares ``global``
    changed: FrozenSet[str]
    #: it reaches names the analysis cannot see: every statement is linked to it
    dynamic: bool
    #: a plain line of imports (what a fix's inserted import is placed against)
    is_import: bool


def summarize(statement: cst.CSTNode) -> Summary:
    """The names of one module statement (one walk of it)."""
    mentions: Set[str] = set()
    module_binds: Set[str] = set()
    non_import_module_binds: Set[str] = set()
    bound_anywhere: Set[str] = set()
    defined: Set[str] = set()
    called: Set[str] = set()
    attributes: Set[str] = set()
    changed: Set[str] = set()
    dynamic = False
    Name, Attribute, Call, SimpleString = cst.Name, cst.Attribute, cst.Call, cst.SimpleString
    FunctionDef, ClassDef, Lambda = cst.FunctionDef, cst.ClassDef, cst.Lambda
    # (node, at module level, directly in a class body)
    stack: List[tuple] = [(statement, True, False)]
    pop, push = stack.pop, stack.append
    while stack:
        node, at_module, in_class = pop()
        kind = type(node)
        if kind is Name:
            mentions.add(node.value)
            if node.value in _DYNAMIC:
                dynamic = True
            continue
        if kind is Attribute:
            mentions.add(node.attr.value)
            push((node.value, at_module, False))
            continue
        if kind is SimpleString:
            try:
                value = node.evaluated_value
            except Exception:  # noqa: BLE001 - an odd literal is no name
                value = None
            if isinstance(value, str) and value.isidentifier():
                mentions.add(value)
            continue
        if kind is cst.ImportStar:
            dynamic = True
            continue
        if kind is Call:
            func = node.func
            if type(func) is Name:
                called.add(func.value)
            elif type(func) is Attribute and func.attr.value in MUTATING_METHODS and type(func.value) is Name:
                changed.add(func.value.value)
            if at_module and type(func) is Attribute and func.attr.value in _SWITCHES:
                dynamic = True
            if at_module and type(func) is Attribute and func.attr.value == "update" and node.args \
                    and type(node.args[0].value) is SimpleString and "jax_disable_jit" in node.args[0].value.value:
                dynamic = True  # (`jax.config.update("jax_disable_jit", True)`: how every traced body runs)
        if kind in BINDING_NODES:
            for name, how, _value, _qualified in node_bindings(node):
                if how is BindingKind.GLOBAL:
                    module_binds.add(name)
                    non_import_module_binds.add(name)
                    changed.add(name)
                    continue
                if how is BindingKind.NONLOCAL:
                    continue
                if how is not BindingKind.IMPORT:
                    bound_anywhere.add(name)
                if at_module:
                    module_binds.add(name)
                    if how is not BindingKind.IMPORT:
                        non_import_module_binds.add(name)
                if in_class:
                    attributes.add(name)
            if kind in _STORES:
                for target in _store_targets(node):
                    _note_store(target, attributes, changed)
        if kind is FunctionDef or kind is ClassDef:
            defined.add(node.name.value)
            mentions.add(node.name.value)
        if kind is FunctionDef or kind is Lambda:
            params = node.params
            for group in (params.posonly_params, params.params, params.kwonly_params):
                for p in group:
                    bound_anywhere.add(p.name.value)
            for p in (params.star_arg, params.star_kwarg):
                if isinstance(p, cst.Param):
                    bound_anywhere.add(p.name.value)
            for child in iter_children(node):
                inner = child is node.body or (kind is Lambda and child is node.body)
                push((child, at_module and not inner, False))
            continue
        if kind is ClassDef:
            for child in iter_children(node):
                push((child, at_module and child is not node.body, child is node.body))
            continue
        if kind in COMPREHENSIONS:
            for child in iter_children(node):
                push((child, False, False))
            continue
        blocks = kind is cst.IndentedBlock or kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite
        for child in iter_children(node):
            push((child, at_module, in_class if blocks or kind in _CLASS_STATEMENTS else False))
    imported = frozenset(module_binds - non_import_module_binds)
    is_import = type(statement) is cst.SimpleStatementLine and all(
        type(s) is cst.Import or type(s) is cst.ImportFrom for s in statement.body)
    return Summary(frozenset(mentions), frozenset(module_binds), imported, frozenset(bound_anywhere),
                   frozenset(defined), frozenset(called), frozenset(attributes), frozenset(changed), dynamic,
                   is_import)


#: statements whose direct children stay directly in the class body they are in
_CLASS_STATEMENTS = frozenset({cst.If, cst.Else, cst.Try, cst.ExceptHandler, cst.Finally, cst.With, cst.For,
                               cst.While, cst.Match, cst.MatchCase, cst.TryStar, cst.ExceptStarHandler})


def _store_targets(node: cst.CSTNode) -> Iterable[cst.BaseExpression]:
    if type(node) is cst.Assign:
        for target in node.targets:
            yield from flat_targets(target.target)
    elif type(node) is cst.Del:
        yield from flat_targets(node.target)
    else:
        yield node.target


def _note_store(target: cst.BaseExpression, attributes: Set[str], changed: Set[str]) -> None:
    """``X.a = ...`` stores attribute ``a`` and changes ``X``; ``X[k] = ...`` changes ``X``."""
    if isinstance(target, cst.Attribute):
        attributes.add(target.attr.value)
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        base = target.value
        while isinstance(base, (cst.Attribute, cst.Subscript)):
            base = base.value
        if isinstance(base, cst.Name):
            changed.add(base.value)


def _linking_names(summaries: Sequence[Summary]) -> Set[str]:
    """The names that link every statement mentioning them (the module docstring's list)."""
    out: Set[str] = set()
    bound: Set[str] = set()
    called: Set[str] = set()
    for s in summaries:
        out |= s.module_binds - s.imported
        out |= s.defined
        out |= s.attributes
        out |= s.changed
        bound |= s.bound_anywhere
        called |= s.called
    return out | (called & bound)


class _Groups:
    """Union-find over statement indices."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def join(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def affected(summaries: Sequence[Summary], seeds: Iterable[int]) -> Optional[Set[int]]:
    """The statements (indices into ``summaries``) whose findings may change when the statements
    ``seeds`` change: every statement linked to one of them, directly or through others, and the
    readers of a name an import among them binds.  None: every statement (a dynamic one is involved).

    ``summaries`` may hold statements that are not in the module any more (an edited statement's old
    version, a deleted one) next to the module's: seeds among them link what they linked."""
    seeds = list(seeds)
    if any(s.dynamic for s in summaries):
        return None
    linking = _linking_names(summaries)
    groups = _Groups(len(summaries))
    first_of: Dict[str, int] = {}
    readers: Dict[str, List[int]] = {}
    for i, s in enumerate(summaries):
        for name in s.mentions:
            if name in linking:
                if name in first_of:
                    groups.join(i, first_of[name])
                else:
                    first_of[name] = i
            else:
                readers.setdefault(name, []).append(i)
    roots = {groups.find(i) for i in seeds}
    for i in seeds:
        for name in summaries[i].imported:
            if name not in linking:
                roots |= {groups.find(r) for r in readers.get(name, ())}
    return {i for i in range(len(summaries)) if groups.find(i) in roots}


def needed(summaries: Sequence[Summary], chosen: Set[int]) -> Set[int]:
    """What the analysis of the statements ``chosen`` must see besides them: the statements that bind
    the names they read (imports), and every plain line of imports (a fix places its import among them)."""
    mentioned: Set[str] = set()
    for i in chosen:
        mentioned |= summaries[i].mentions
    out = set(chosen)
    for i, s in enumerate(summaries):
        if i not in out and (s.is_import or s.module_binds & mentioned):
            out.add(i)
    return out
