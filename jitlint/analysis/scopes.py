"""One binding model: the scopes of a module and what each name is bound to in each.

pyflakes' ``Binding`` / ``Scope`` classes are the model.  A :class:`Scope` (the module, a class
body, a function, a lambda, a comprehension) holds, for each name, its :class:`Binding` objects in
source order -- each with a :class:`BindingKind` and the node that binds it -- and the names it
declares ``global`` or ``nonlocal``.  Discovery's one walk of the tree records them
(:class:`ScopeBuilder`); analysis, rules and fixes ask the scopes instead of listing bindings again.

What binds is defined once, by :func:`node_bindings`; where it binds follows Python's rules:

* a comprehension is a scope of its own: its targets do not leak, its first iterable is evaluated
  in the enclosing scope, and a walrus inside it binds in the nearest enclosing scope that is not a
  comprehension;
* a class body is a scope that the functions (and comprehensions) inside it do not see;
* parameters belong to the function; decorators, defaults and annotations to the scope around it;
* ``global`` / ``nonlocal`` make the name's bindings in that scope bind in the module or in the
  enclosing function (the binding is kept where it is written; :meth:`Scope.resolve` follows the
  declaration).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis.syntax import assigned_names, dotted_name, iter_children


class BindingKind(enum.Enum):
    PARAMETER = "parameter"
    ASSIGNMENT = "assignment"
    AUGMENTED = "augmented assignment"
    ANNOTATED = "annotated assignment"
    IMPORT = "import"
    GLOBAL = "global declaration"
    NONLOCAL = "nonlocal declaration"
    FOR = "for target"
    WITH = "with ... as"
    EXCEPT = "except ... as"
    MATCH = "match capture"
    COMPREHENSION = "comprehension target"
    WALRUS = "assignment expression"
    FUNCTION = "function definition"
    CLASS = "class definition"
    DEL = "del"


#: kinds that declare where a name lives rather than bind it
DECLARATIONS = frozenset({BindingKind.GLOBAL, BindingKind.NONLOCAL})


@dataclass(frozen=True, eq=False, slots=True)
class Binding:
    """One binding of a name: its kind, the node that binds it (the ``Assign``, ``For``, ``CompFor``,
    ``WithItem``, ``ExceptHandler``, ``NamedExpr``, ``MatchAs``, ``Param``, ``FunctionDef``, ...),
    the value of a plain ``name = value`` (or ``name: T = value``), the qualified name an import binds,
    and the loops around it in its own scope (outermost first; a for target's own loop included)."""

    name: str
    kind: BindingKind
    node: cst.CSTNode
    value: Optional[cst.BaseExpression] = None
    qualified: Optional[str] = None
    loops: Tuple[cst.CSTNode, ...] = ()

    @property
    def binds_value(self) -> bool:
        """Whether it gives the name a value (not a declaration, nor a bare annotation ``x: int``)."""
        return self.kind not in DECLARATIONS and not (self.kind is BindingKind.ANNOTATED and self.value is None)


class Scope:
    """A module, class body, function, lambda or comprehension, and the names bound in it."""

    __slots__ = ("kind", "node", "parent", "bindings", "local", "globals", "nonlocals")

    MODULE, CLASS, FUNCTION, LAMBDA, COMPREHENSION = "module", "class", "function", "lambda", "comprehension"

    def __init__(self, kind: str, node: cst.CSTNode, parent: Optional["Scope"]) -> None:
        self.kind = kind
        self.node = node
        self.parent = parent
        #: name -> its bindings here, in the order the walk met them
        self.bindings: Dict[str, List[Binding]] = {}
        #: names bound here other than by a declaration (a name also declared global stays listed)
        self.local: Set[str] = set()
        self.globals: Set[str] = set()
        self.nonlocals: Set[str] = set()

    def __repr__(self) -> str:
        name = getattr(getattr(self.node, "name", None), "value", "")
        return f"Scope({self.kind}{' ' + name if name else ''})"

    def add(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)
        kind = binding.kind
        if kind is BindingKind.GLOBAL:
            self.globals.add(binding.name)
        elif kind is BindingKind.NONLOCAL:
            self.nonlocals.add(binding.name)
        else:
            self.local.add(binding.name)

    # ---------------------------------------------------------------- queries
    def bindings_of(self, name: str) -> List[Binding]:
        """Every binding of ``name`` written in this scope (declarations included)."""
        return self.bindings.get(name, [])

    def is_local(self, name: str) -> bool:
        """``name`` lives in this scope: bound here and declared neither ``global`` nor ``nonlocal``."""
        return name in self.local and name not in self.globals and name not in self.nonlocals

    def declares(self, name: str) -> bool:
        return name in self.globals or name in self.nonlocals

    def single_value(self, name: str) -> Optional[cst.BaseExpression]:
        """The value of ``name`` when its one binding here is a plain ``name = value``."""
        found = self.bindings.get(name)
        if not found or len(found) != 1 or self.declares(name):
            return None
        return found[0].value if found[0].kind is BindingKind.ASSIGNMENT else None

    def module(self) -> "Scope":
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope

    def resolve(self, name: str) -> Optional["Scope"]:
        """The scope whose binding of ``name`` a read here sees (LEGB): this scope, then the enclosing
        functions, lambdas and comprehensions -- never an enclosing class body -- then the module;
        ``global`` sends the read to the module, ``nonlocal`` to the nearest enclosing function that
        binds the name.  None: a builtin, or not bound anywhere it could be seen."""
        scope: Optional[Scope] = self
        first = True
        while scope is not None:
            if name in scope.globals:
                module = scope.module()
                return module if name in module.local else None
            if scope.kind == Scope.MODULE:
                return scope if name in scope.local else None
            if (first or scope.kind != Scope.CLASS) and name not in scope.nonlocals and name in scope.local:
                return scope
            first = False
            scope = scope.parent
            while scope is not None and scope.kind == Scope.CLASS:
                scope = scope.parent  # a class body is not seen from the scopes inside it
        return None

    def binding_scope(self) -> "Scope":
        """Where a walrus written here binds: the nearest scope that is not a comprehension."""
        scope = self
        while scope.kind == Scope.COMPREHENSION and scope.parent is not None:
            scope = scope.parent
        return scope


# ----------------------------------------------------------- what binds

def _import_bindings(node) -> Iterator[Tuple[str, Optional[str]]]:
    """(local name, qualified name) for each name an import binds (``import a.b`` binds ``a``)."""
    if isinstance(node.names, cst.ImportStar):
        return
    base = ""
    if isinstance(node, cst.ImportFrom):
        module = dotted_name(node.module) if node.module is not None else None
        base = "." * len(node.relative) + (module or "")
    for alias in node.names:
        full = dotted_name(alias.name) or ""
        if isinstance(node, cst.ImportFrom):
            full = f"{base}.{full}" if base and not base.endswith(".") else base + full
        if alias.asname is not None:
            if isinstance(alias.asname.name, cst.Name):
                yield alias.asname.name.value, full
            continue
        head = alias.name
        while isinstance(head, cst.Attribute):
            head = head.value
        if isinstance(head, cst.Name):
            yield head.value, full if isinstance(node, cst.ImportFrom) else full.split(".")[0]


def _match_captures(node: cst.CSTNode) -> Iterator[str]:
    if isinstance(node, (cst.MatchAs, cst.MatchStar)):
        if node.name is not None:
            yield node.name.value
    elif isinstance(node, cst.MatchMapping) and node.rest is not None:
        yield node.rest.value


#: the node types :func:`node_bindings` answers for
BINDING_NODES = frozenset({
    cst.Assign, cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.WithItem, cst.ExceptHandler,
    cst.ExceptStarHandler, cst.NamedExpr, cst.Del, cst.Import, cst.ImportFrom, cst.MatchAs, cst.MatchStar,
    cst.MatchMapping, cst.FunctionDef, cst.ClassDef, cst.Global, cst.Nonlocal})


#: what :func:`node_bindings` gives for each name: (name, kind, value, qualified name)
NodeBinding = Tuple[str, BindingKind, Optional[cst.BaseExpression], Optional[str]]


def node_bindings(node: cst.CSTNode) -> Iterator[NodeBinding]:
    """(name, kind, value, qualified name) for each name ``node`` itself binds -- not the nodes
    inside it: ``value`` for a plain ``name = value`` / ``name: T = value``, ``qualified`` for an
    import.  The one place that says what binds; the scope walk and the statement-level data flow
    of the fixes both ask it."""
    kind = type(node)
    if kind is cst.Assign:
        for target in node.targets:
            t = target.target
            for name in assigned_names(t):
                yield name.value, BindingKind.ASSIGNMENT, node.value if name is t else None, None
    elif kind is cst.AnnAssign:
        if isinstance(node.target, cst.Name):
            yield node.target.value, BindingKind.ANNOTATED, node.value, None
    elif kind is cst.AugAssign:
        if isinstance(node.target, cst.Name):
            yield node.target.value, BindingKind.AUGMENTED, None, None
    elif kind is cst.For or kind is cst.CompFor:
        how = BindingKind.FOR if kind is cst.For else BindingKind.COMPREHENSION
        for name in assigned_names(node.target):
            yield name.value, how, None, None
    elif kind is cst.WithItem:
        if node.asname is not None:
            for name in assigned_names(node.asname.name):
                yield name.value, BindingKind.WITH, None, None
    elif kind is cst.ExceptHandler or kind is cst.ExceptStarHandler:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            yield node.name.name.value, BindingKind.EXCEPT, None, None
    elif kind is cst.NamedExpr:
        for name in assigned_names(node.target):
            yield name.value, BindingKind.WALRUS, None, None
    elif kind is cst.Del:
        for name in assigned_names(node.target):
            yield name.value, BindingKind.DEL, None, None
    elif kind is cst.Import or kind is cst.ImportFrom:
        for local, qualified in _import_bindings(node):
            yield local, BindingKind.IMPORT, None, qualified
    elif kind is cst.MatchAs or kind is cst.MatchStar or kind is cst.MatchMapping:
        for name in _match_captures(node):
            yield name, BindingKind.MATCH, None, None
    elif kind is cst.FunctionDef:
        yield node.name.value, BindingKind.FUNCTION, None, None
    elif kind is cst.ClassDef:
        yield node.name.value, BindingKind.CLASS, None, None
    elif kind is cst.Global or kind is cst.Nonlocal:
        how = BindingKind.GLOBAL if kind is cst.Global else BindingKind.NONLOCAL
        for item in node.names:
            yield item.name.value, how, None, None


def bound_by(node: cst.CSTNode) -> Set[str]:
    """The names ``node`` itself binds or unbinds (declarations and bare annotations aside)."""
    return {name for name, kind, value, _ in node_bindings(node)
            if kind not in DECLARATIONS and not (kind is BindingKind.ANNOTATED and value is None)}


def names_bound_in(node: cst.CSTNode) -> Set[str]:
    """The names a statement or block binds in the scope it is in: every binding inside it (a walrus
    inside one of its comprehensions included), not those of the bodies of the functions, lambdas and
    classes it defines (their own scopes; their names count), nor comprehension targets."""
    out: Set[str] = set()
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind in BINDING_NODES and kind is not cst.CompFor:
            out |= bound_by(item)
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        stack.extend(iter_children(item))
    return out


# ------------------------------------------------------------- building

#: the node types that make a comprehension scope
COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})


class ScopeBuilder:
    """Records scopes and bindings for a walk of the tree that already visits every node once
    (discovery's): the walk asks :meth:`enter` for the scope of a def, lambda, class or
    comprehension, and calls :meth:`record` on each node of a type in :data:`BINDING_NODES`."""

    def __init__(self, module: cst.Module) -> None:
        self.module_scope = Scope(Scope.MODULE, module, None)
        #: the module, each def, lambda, class and comprehension node -> its scope
        self.scopes: Dict[cst.CSTNode, Scope] = {module: self.module_scope}

    def enter(self, node: cst.CSTNode, parent: Scope) -> Scope:
        kind = type(node)
        if kind is cst.FunctionDef:
            what = Scope.FUNCTION
        elif kind is cst.Lambda:
            what = Scope.LAMBDA
        elif kind is cst.ClassDef:
            what = Scope.CLASS
        else:
            what = Scope.COMPREHENSION
        scope = self.scopes[node] = Scope(what, node, parent)
        return scope

    @staticmethod
    def parameters(scope: Scope, params: Sequence[cst.Param]) -> None:
        for p in params:
            scope.add(Binding(p.name.value, BindingKind.PARAMETER, p))

    @staticmethod
    def record(node: cst.CSTNode, scope: Scope, loops: Tuple[cst.CSTNode, ...] = ()) -> None:
        if type(node) is cst.NamedExpr:
            scope = scope.binding_scope()
        for name, kind, value, qualified in node_bindings(node):
            scope.add(Binding(name, kind, node, value, qualified, loops))
