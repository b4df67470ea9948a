"""Index a module once: imports, functions, classes, globals, and the entry
points where JAX starts tracing (decorators, transform call sites, lax bodies).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.cancel import checkpoint
from jitlint.analysis.idempotence import stores_same_values
from jitlint.analysis.names import ImportTable
from jitlint.analysis.scopes import (
    BINDING_NODES,
    bound_by,
    Binding,
    COMPREHENSIONS,
    BindingKind,
    Scope,
    ScopeBuilder,
    names_bound_in,
)
from jitlint.analysis.syntax import (
    walk,
    flat_targets,
    stored_values,
    substitute_names,
    any_between,
    any_node,
    ends_path,
    is_docstring,
    handler_catches,
    name_references,
    unpacked_targets,
    changes_in_place,
    returned_values,
    assigned_names,
    bind_arguments,
    call_argument,
    calls_in,
    dotted_name,
    int_value,
    iter_children,
    literal_elements,
    none_test,
    params_of,
    reachable_count,
    string_value,
)

FunctionNode = Union[cst.FunctionDef, cst.Lambda]


#: the methods that build an instance: what they assign to ``self`` is its starting state, not a later change
#: (unittest's ``setUp`` and pytest's ``setup_method`` run once on each test's own fresh instance, before
#: the test's body)
CONSTRUCTION_METHODS = frozenset({"__init__", "__post_init__", "setup", "__new__", "setUp", "asyncSetUp",
                                  "setup_method"})

#: statements the index looks at for mutations (``x[i] = ...``, ``self.a = ...``, ``del x[i]``)
_STATEMENTS_OF_INTEREST = frozenset({cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del})


def _is_bare_self_call(stmt: cst.CSTNode, name: str) -> bool:
    """``self.name()`` as a statement of its own."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
        return False
    call = stmt.body[0].value
    return (isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name) and call.func.value.value == "self"
            and call.func.attr.value == name)


def _binds_or_calls(stmt: cst.CSTNode, attrs: Set[str], methods: Set[str]) -> bool:
    """``stmt`` binds ``self.a`` (``a`` in ``attrs``) or mentions ``self.m`` (``m`` in ``methods``)."""
    stack: List[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for t in targets:
                if any(isinstance(a, cst.Attribute) and isinstance(a.value, cst.Name) and a.value.value == "self"
                       and a.attr.value in attrs for a in [t] + [e.value for e in getattr(t, "elements", ())]):
                    return True
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self" \
                and node.attr.value in methods:
            return True
        stack.extend(iter_children(node))
    return False


def _may_return(statements: Sequence[cst.CSTNode]) -> bool:
    """A ``return`` in ``statements`` (not in a function or class they define)."""
    stack: List[cst.CSTNode] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Return):
            return True
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(iter_children(node))
    return False


def _short(code: str, limit: int = 48) -> str:
    code = " ".join(code.split())
    return code if len(code) <= limit else code[: limit - 4] + "...)"


def _is_container_literal(value: cst.BaseExpression, index: "ModuleIndex") -> bool:
    if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    if isinstance(value, cst.Call):
        callee = index.qualify(value.func) or (value.func.value if isinstance(value.func, cst.Name) else None)
        return callee in jax_api.MUTABLE_FACTORIES
    return False


@dataclass(eq=False)
class ClassInfo:
    node: cst.ClassDef
    name: str
    methods: Dict[str, "FunctionInfo"] = field(default_factory=dict)
    bases: List[str] = field(default_factory=list)
    #: the expressions the bases are written as (the class subscripted, for ``Base[T]``), by position
    base_nodes: List[Optional[cst.BaseExpression]] = field(default_factory=list)
    decorators: List[cst.BaseExpression] = field(default_factory=list)
    #: attributes of self assigned by methods other than the construction methods -> those methods
    #: (helpers they call included; ModuleIndex.changed_after_construction leaves those out)
    mutated_attributes: Dict[str, Set[str]] = field(default_factory=dict)


@dataclass(eq=False)
class FunctionInfo:
    node: FunctionNode
    name: str
    qualname: str
    #: its scope in the module's binding model (its parameters and every name its body binds)
    scope: Scope
    parent: Optional["FunctionInfo"] = None
    cls: Optional[ClassInfo] = None
    nested: Dict[str, "FunctionInfo"] = field(default_factory=dict)
    is_static_method: bool = False
    #: defined inside a loop body (a new function object per iteration)
    defined_in_loop: bool = False

    @property
    def local_names(self) -> Set[str]:
        """Names bound in the function's own scope (parameters included; a name declared
        ``global`` or ``nonlocal`` and assigned is listed too)."""
        return self.scope.local

    @property
    def global_names(self) -> Set[str]:
        return self.scope.globals

    @property
    def nonlocal_names(self) -> Set[str]:
        return self.scope.nonlocals

    @property
    def params(self) -> List[Tuple[cst.Param, str]]:
        return params_of(self.node.params)

    @property
    def is_method(self) -> bool:
        return self.cls is not None and not self.is_static_method

    @property
    def label(self) -> str:
        """How messages name it: its qualified name (``outer.<locals>.<lambda>`` for a lambda)."""
        return self.qualname


#: where a call is made: the function (or lambda) it is in, the class whose body it is directly in,
#: or None (module level)
Owner = Union[FunctionInfo, cst.ClassDef, None]


#: standard decorators whose result shows the decorated function's signature (``functools.update_wrapper``)
_SIGNATURE_KEEPING_DECORATORS = frozenset({"functools.cache", "functools.lru_cache", "functools.wraps"})


@dataclass(eq=False)
class EntryPoint:
    """A place where JAX traces a function: what traces it and how."""

    function: FunctionInfo
    #: what a message calls the tracer: "`@jax.jit`", "`lax.fori_loop`", ...
    label: str
    site: cst.CSTNode
    transform: Optional[jax_api.Transform] = None
    static_nums: Optional[Tuple[int, ...]] = ()
    static_names: Optional[Tuple[str, ...]] = ()
    #: the first parameter is bound (``jax.jit(self.method)``)
    self_bound: bool = False
    #: the arguments that functools.partial binds (after the function), in order
    partial_args: Tuple[cst.Arg, ...] = ()
    #: how many positional arguments the traced callable takes before the function's own: a Flax
    #: module's ``apply`` (``jax.jit(model.apply)``, which runs ``__call__``) takes the variables first (1);
    #: a Haiku transform's ``apply`` its params and rng (2; 3 with state; one less without the rng)
    leading: int = 0
    #: every parameter is traced (lax bodies)
    all_traced: bool = False
    in_axes_static: Tuple[int, ...] = ()
    #: calls through which user code calls the traced function
    call_names: Tuple[str, ...] = ()
    direct_calls: Tuple[cst.Call, ...] = ()
    #: both static_argnums and static_argnames given (no signature inference)
    both_static_kinds: bool = False
    #: the function scope the site is in (None: module level)
    scope: Optional[FunctionInfo] = None
    #: the static_argnums / static_argnames keyword nodes, for JIT502 positions
    spec_args: Tuple[cst.Arg, ...] = ()
    #: the static arguments come from a name shared with other functions (``@static_jit``, bound
    #: to ``partial(jax.jit, static_argnames=...)``): a fix must not edit them for this one
    shared_spec: bool = False
    #: the site is itself wrapped by another transform (``jax.jit(jax.vmap(f))``)
    under_cache: bool = False
    #: a wrapper made by a decorator of this module (``@jax.jit @log_calls def f``): the
    #: decorator function and the parameter of it that holds the decorated function
    wrapper_of: Optional[Tuple[FunctionInfo, str, FunctionInfo]] = None
    #: the calls through which this module calls the traced function (set once the module is indexed)
    calls: Tuple[cst.Call, ...] = ()
    #: the traced function is a lambda written in the site, and what the site makes is used there and
    #: then (a wrapper called at once, ``jax.jit(lambda x: ...)(y)``, or a lax body): each evaluation
    #: of the site makes a new function object, and JAX keys its trace caches on that object, so the
    #: trace is never reused and nothing it reads from outside is frozen across evaluations
    fresh: bool = False
    #: a decorator below the jit's (``@partial(jax.jit, static_argnames=...)`` over ``@add_flag``) gives it
    #: a function whose signature the code does not show: JAX checks the static spec against that one
    signature_hidden: bool = False

    def visible_calls(self) -> Tuple[cst.Call, ...]:
        """Every call of the traced function this module shows: the wrapper called at once
        (``jax.jit(f)(x)``), then the calls of each name it is called through."""
        return self.calls

    @property
    def partial_positional(self) -> int:
        """How many leading positional parameters functools.partial binds."""
        return sum(1 for a in self.partial_args if a.keyword is None and not a.star)

    @property
    def partial_keywords(self) -> Tuple[str, ...]:
        """The parameters functools.partial binds by keyword."""
        return tuple(a.keyword.value for a in self.partial_args if a.keyword is not None)

    def positional_params(self) -> List[cst.Param]:
        """The positional parameters a caller fills, after a bound ``self`` (``jax.jit(self.m)``) and
        those ``functools.partial`` binds by position: what ``static_argnums`` counts (JAX reads the
        signature of the partial, so in ``jax.jit(partial(f, 2.0), static_argnums=0)`` 0 is f's second)."""
        positional = [p for p, kind in self.function.params if kind in ("posonly", "positional")]
        return positional[(1 if self.self_bound else 0) + self.partial_positional:]

    def static_by_position(self) -> Set[str]:
        """The parameters ``static_argnums`` names (a negative number counts from the end)."""
        positional = self.positional_params()
        out: Set[str] = set()
        for i in self.static_nums or ():
            j = i + len(positional) if i < 0 else i - self.leading
            if 0 <= j < len(positional):
                out.add(positional[j].name.value)
        return out

    def unknown_static_names(self) -> List[str]:
        """The ``static_argnames`` that name no parameter (JAX rejects them when ``jax.jit`` is called)."""
        kinds = {kind for _, kind in self.function.params}
        if not self.static_names or "varkw" in kinds or self.signature_hidden:
            return []
        names = {p.name.value for p, _ in self.function.params}
        return [n for n in self.static_names if n not in names]

    def out_of_range_static_nums(self) -> List[int]:
        """The ``static_argnums`` past the positional parameters (JAX rejects them at the call)."""
        if not self.static_nums or any(kind == "vararg" for _, kind in self.function.params) \
                or self.signature_hidden:
            return []
        count = len(self.positional_params()) + self.leading
        return [i for i in self.static_nums if not -count <= i < count]

    def spec_rejected(self) -> bool:
        """JAX rejects the static spec, so the function is never traced as written: which of its
        parameters are static is not known until the spec is corrected."""
        return bool(self.unknown_static_names() or self.out_of_range_static_nums())

    @property
    def compiles(self) -> bool:
        """A compiling transform (``jax.jit``, ``pmap``, ...) traces the function, not only a tracing one."""
        return self.transform is not None and self.transform.name in jax_api.COMPILING_TRANSFORMS \
            and not self.all_traced

    def static_params(self) -> Set[str]:
        """The parameters the transform holds static: by ``static_argnames`` or ``static_argnums``."""
        return set(self.static_names or ()) | self.static_by_position()

    def bind_args(self, call: cst.Call) -> List[Tuple[cst.Arg, Optional[cst.Param]]]:
        """Each argument of ``call`` with the parameter of the traced function it binds, as Python
        binds them: positional arguments in order (after ``self``, bound by ``jax.jit(self.m)`` or, on a
        method jitted by its decorator, by the receiver of ``obj.m(...)``; then those a
        ``functools.partial`` binds), keywords by name (not a positional-only parameter).  None for an argument that goes to ``*args`` / ``**kwargs`` or to
        no parameter, for an unpacking (``*xs``, ``**kw``), and for a positional argument after ``*xs``
        (which position it takes is unknown)."""
        params = self.function.params
        positional = [p for p, kind in params if kind in ("posonly", "positional")]
        bound = (1 if self.self_bound else 0) + self.partial_positional + (1 if self.binds_self(call) else 0)
        skipped = set(positional[:bound])
        args = call.args
        lead = args[:self.leading]
        if self.leading and len(lead) == self.leading and all(a.keyword is None and not a.star for a in lead):
            args = args[self.leading:]  # the variables (params, rng, state), which ``apply`` takes itself
        return bind_arguments([(p, kind) for p, kind in params if p not in skipped], args)

    def in_axes_length(self) -> Optional[int]:
        """How many entries the ``in_axes`` sequence of ``jax.vmap(f, in_axes=(...))`` has (None: not a
        vmap made by a call, or ``in_axes`` one value for all, or not known)."""
        t = self.transform
        site = self.site
        if t is None or t.in_axes_kw is None or not isinstance(site, cst.Call) or self.partial_args:
            return None
        spec = call_argument(site, t.in_axes_pos if t.in_axes_pos is not None else 99, t.in_axes_kw)
        if spec is None:
            return None
        axes = in_axes_entries(spec.value)
        return len(axes) if axes is not None else None

    def accepts(self, call: cst.Call) -> bool:
        """Whether ``call``'s arguments fit the traced function: a call that passes more positional
        arguments than it takes, or a keyword it has no parameter for, raises ``TypeError``, and a
        vmap whose ``in_axes`` tuple has k entries takes exactly k positional arguments (``ValueError``
        otherwise, JAX 0.10.2). Such a call calls something else bound to the same name (``f`` made
        twice in one function), or fails. A call that unpacks (``*xs``, ``**kw``) fits."""
        if any(arg.star for arg in call.args):
            return True
        positional = sum(1 for arg in call.args if arg.keyword is None)
        axes = self.in_axes_length()
        if axes is not None and positional != axes:
            return False
        params = self.function.params
        kinds = {kind for _, kind in params}
        taken = len([p for p, kind in params if kind in ("posonly", "positional")]) \
            - (1 if self.self_bound else 0) - self.partial_positional
        if "vararg" not in kinds and positional > taken:
            return False
        names = {p.name.value for p, kind in params if kind != "posonly"}
        return "varkw" in kinds or all(arg.keyword.value in names for arg in call.args if arg.keyword is not None)

    def argument_for(self, call: cst.Call, param: cst.Param) -> Optional[cst.Arg]:
        """The argument ``call`` surely binds to ``param``, if any."""
        return next((arg for arg, bound in self.bind_args(call) if bound is param), None)

    def binds_self(self, call: cst.Call) -> bool:
        """Whether ``call`` is ``obj.m(...)`` of a method jitted by decorator
        (``@partial(jax.jit, static_argnums=0)``): Python binds ``obj`` to the first parameter, so the
        call's arguments start at the second (``jax.jit(self.m)`` wraps the bound method instead:
        ``self_bound``)."""
        fn = self.function
        return fn.is_method and not self.self_bound and isinstance(call.func, cst.Attribute) \
            and isinstance(self.site, cst.Decorator)


#: builtins through which code reaches a module's bindings by names it does not spell
_DYNAMIC_ACCESS = ("globals", "locals", "vars", "eval", "exec")
#: calls that make an object whose attributes or items are plain data (see ModuleIndex._plain_data)
_PLAIN_DATA_MAKERS = frozenset({"types.SimpleNamespace", "argparse.Namespace", "dict", "json.load", "json.loads",
                                "yaml.safe_load", "yaml.load", "yaml.full_load"})


@dataclass
class GlobalInfo:
    assignments: int = 0
    mutable_container: bool = False
    jax_array: bool = False
    kind: str = "value"  # value, function, class, import
    node: Optional[cst.CSTNode] = None
    #: ``NAME = SomeClass(...)``: the class name
    instance_of: Optional[str] = None
    #: index in the module body of the last module-level statement that binds it
    last_statement: int = 0
    #: the indices in the module body of every module-level statement that binds it
    statements: List[int] = field(default_factory=list)
    numpy_array: bool = False
    #: a tuple, list or dict literal: indexing it with a tracer fails
    sequence: bool = False
    mapping: bool = False


#: Haiku's transforms (haiku 0.0.17), with how many positional arguments their ``apply`` takes before
#: the transformed function's own: params and rng, and state between them
_HAIKU_TRANSFORMS = {"haiku.transform": 2, "haiku.transform_with_state": 3}

#: statements whose bodies can hold imports (walked by ``_collect_imports``)
_STATEMENT_CONTAINERS = frozenset({cst.Module, cst.IndentedBlock, cst.SimpleStatementLine, cst.If, cst.Else,
                                   cst.Try, cst.TryStar, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally,
                                   cst.With, cst.FunctionDef, cst.ClassDef, cst.For, cst.While})
_WITH_MORE_BLOCKS = frozenset({cst.If, cst.Try, cst.TryStar, cst.For, cst.While})


#: callables that hand on each element of what they iterate, one for one
_ELEMENT_BY_ELEMENT = frozenset({"enumerate", "list", "tuple", "iter", "reversed", "sorted", "tqdm.tqdm",
                                 "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm"})


def _import_bindings(node: Union[cst.Import, cst.ImportFrom]) -> Set[str]:
    """The local names an import statement binds (``import a.b`` binds ``a``)."""
    if isinstance(node.names, cst.ImportStar):
        return set()
    out = set()
    for alias in node.names:
        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
            out.add(alias.asname.name.value)
        else:
            out.add((dotted_name(alias.name) or "").split(".")[0])
    return out


def _module_level_imports(module: cst.Module) -> Set[str]:
    """The names the module's own statements import (also in an ``if`` or ``try`` at module level), not
    those a function or class body imports."""
    out: Set[str] = set()
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Import or kind is cst.ImportFrom:
            out |= _import_bindings(node)  # type: ignore[arg-type]
        elif kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        elif kind in _STATEMENT_CONTAINERS or kind in (cst.SimpleStatementSuite, cst.Else, cst.ExceptHandler):
            stack.extend(iter_children(node))
    return out


def applies_module(callee: cst.BaseExpression, fn: "FunctionInfo") -> bool:
    """``model.apply`` resolved to ``__call__`` (:meth:`ModuleIndex.resolve_function`): a Flax module's
    ``apply(variables, *args)`` runs ``__call__(*args)``, so its first positional argument is the variables."""
    return fn.name == "__call__" and isinstance(callee, cst.Attribute) and callee.attr.value == "apply"


def _module_level_definitions(stmt: cst.CSTNode) -> Iterator[Union[cst.FunctionDef, cst.ClassDef]]:
    """The defs and classes a module statement makes at import time: itself, or those in the blocks
    of an ``if`` / ``try`` / ``with`` / loop at module level (not those inside a def or a class)."""
    stack: List[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            yield node
        elif isinstance(node, cst.BaseCompoundStatement) or type(node) in _STATEMENT_CONTAINERS:
            stack.extend(child for child in iter_children(node) if isinstance(child, (
                cst.BaseStatement, cst.BaseSuite, cst.If, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
                cst.Finally, cst.MatchCase)))


#: "not known" (where None means something)
_UNKNOWN = object()


def _statement_order(body: cst.CSTNode, nodes: Sequence[cst.CSTNode]) -> Dict[cst.CSTNode, int]:
    """For each of ``nodes`` in ``body`` (a module, or a function's body; not inside a nested def,
    class or lambda), the index in source order of the simple statement or compound-statement header
    that holds it."""
    wanted = {id(n): n for n in nodes}
    out: Dict[cst.CSTNode, int] = {}
    position = 0
    # statements in source order: a block's statements, each compound statement's header before its blocks
    pending: List[cst.CSTNode] = [body]  # a stack: the next statement in source order is last
    while pending and len(out) < len(wanted):
        node = pending.pop()
        if isinstance(node, (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite)):
            pending.extend(reversed(node.body))
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            continue
        position += 1
        blocks = [c for c in iter_children(node) if isinstance(c, (cst.BaseSuite, cst.Else, cst.ExceptHandler,
                                                                    cst.ExceptStarHandler, cst.Finally,
                                                                    cst.MatchCase))]
        stack = [c for c in iter_children(node) if not any(c is b for b in blocks)] + [node]
        while stack:
            item = stack.pop()
            if id(item) in wanted:
                out.setdefault(wanted[id(item)], position)
            if item is not node and not isinstance(item, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
                stack.extend(iter_children(item))
        pending.extend(reversed([block if isinstance(block, cst.BaseSuite) else block.body for block in blocks]))
    return out


def _holds(outer: cst.CSTNode, node: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> bool:
    """``node`` is ``outer`` or inside it (climbing the parents: no walk of ``outer``)."""
    while node is not None:
        if node is outer:
            return True
        node = parents.get(id(node))
    return False


def _enclosing(scope: Optional[FunctionInfo]) -> Iterator[Optional[FunctionInfo]]:
    """``scope``, the functions around it, then None (the module)."""
    while scope is not None:
        yield scope
        scope = scope.parent
    yield None


def _attributes_of(expr: cst.CSTNode, receiver: str) -> Iterator[cst.Attribute]:
    """The ``receiver.attr`` reads in ``expr``."""
    stack: List[cst.CSTNode] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == receiver:
            yield node
            continue
        stack.extend(iter_children(node))


def _set_from_aux_data(unflatten: FunctionInfo) -> Set[str]:
    """The attributes that a pytree class's unflatten function sets on the object it rebuilds from
    anything but the children (its last parameter): from the aux data, constants, or attributes so
    set (``out.offsets = aux_data["offsets"]``, ``out.num_diags = len(out.offsets)``).  Under jit the
    object is rebuilt this way, and only the children are tracers: these are Python values.  Only the
    statements of the function's own block are read (one in an ``if`` or a loop is not counted)."""
    node = unflatten.node
    params = [p.name.value for p, _ in unflatten.params]
    if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock) or len(params) < 2:
        return set()
    tainted = {params[-1]}  # the children, and names computed from them
    from_children: Set[str] = set()
    static: Set[str] = set()
    for stmt in node.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            target, value = small.targets[0].target, small.value
            uses = {n.value for n in name_references(value)}
            if isinstance(target, cst.Name):
                if uses & tainted:
                    tainted.add(target.value)
            elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                    and target.value.value not in tainted:
                read = {a.attr.value for a in _attributes_of(value, target.value.value)}
                if uses & tainted or read - static:  # (an attribute read that is not known static)
                    from_children.add(target.attr.value)
                else:
                    static.add(target.attr.value)
    return static - from_children


def condition_key(module: cst.Module, test: cst.BaseExpression) -> str:
    """A condition's code with its whitespace folded, outer parentheses dropped: the same
    condition written in two places has one key."""
    while test.lpar and test.rpar:
        test = test.with_changes(lpar=[], rpar=[])
    return " ".join(module.code_for_node(test).split())


def _with_literal_arguments(value: cst.BaseExpression, fn: cst.FunctionDef, call: cst.Call) -> cst.BaseExpression:
    """``value``, returned by ``fn``, with each parameter that ``call`` gives a literal (``True``, a
    number, a string) -- or that keeps a literal default -- replaced by that literal: ``_meta(static=True)``
    of ``def _meta(static=False): return field(metadata={"static": static})`` gives
    ``field(metadata={"static": True})``."""
    params = params_of(fn.params)
    values: Dict[str, cst.BaseExpression] = {p.name.value: p.default for p, _ in params
                                             if _plain_literal(p.default)}
    for arg, param in bind_arguments(params, call.args):
        if param is not None:
            if _plain_literal(arg.value):
                values[param.name.value] = arg.value
            else:
                values.pop(param.name.value, None)
    return substitute_names(value, values) if values else value


def _plain_literal(expr: Optional[cst.BaseExpression]) -> bool:
    """A number (also negated), a string, ``True``, ``False`` or ``None``."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)) or (
        isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"))


def _arithmetic_of_names(expr: Optional[cst.BaseExpression], reads: Set[str]) -> bool:
    """``expr`` is a literal, a name (added to ``reads``), or arithmetic of those (``+ - * / // % **``,
    a sign, parentheses): no call, no subscript, nothing that can give another value for the same inputs."""
    if expr is None:
        return False
    if _plain_literal(expr):
        return True
    if isinstance(expr, cst.Name):
        reads.add(expr.value)
        return True
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        return _arithmetic_of_names(expr.expression, reads)
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (
            cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)):
        return _arithmetic_of_names(expr.left, reads) and _arithmetic_of_names(expr.right, reads)
    return False


def _assigned_values(fn: FunctionInfo, name: str) -> List[cst.BaseExpression]:
    """Every value a local of ``fn`` is assigned (``x = ...`` each time); empty when it is bound any
    other way too (a parameter, a loop target, an augmented assignment) or not a local."""
    bindings = fn.scope.bindings_of(name) if name in fn.scope.local else []
    values = [b.value for b in bindings if b.kind is BindingKind.ASSIGNMENT and b.value is not None]
    return values if bindings and len(values) == len(bindings) else []


#: what a failed import raises (a handler of ``Exception`` or a bare ``except`` catches it too)
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})

#: packages whose class decorators make no pytree (the standard library's, typing and validation ones):
#: a class they decorate is not one whose fields a library registers (see library_registered_fields)
_STDLIB_DECORATOR_PACKAGES = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "dataclasses", "enum", "functools", "typing", "typing_extensions", "attr", "attrs", "pydantic", "beartype",
    "typeguard", "jaxtyping", "abc"}

#: the calls of JAX that register a class as a pytree (qualified-name suffixes; see helper_registered_classes)
_REGISTRATIONS = ("tree_util.register_pytree_node", "tree_util.register_pytree_with_keys", "register_dataclass",
                  "tree_util.register_pytree_node_class")


def _most_yields(body: Sequence[cst.CSTNode]) -> Optional[float]:
    """The most ``yield`` s a run of the statements ``body`` can make: a sum along a sequence, the larger
    arm of an ``if``, unbounded for a ``yield`` in a loop or a ``yield from``; None when there is no
    ``yield`` at all (not a generator).  Nested functions and classes are their own code."""
    total = 0.0
    seen = False
    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(stmt, cst.If):
            arms = [_most_yields(stmt.body.body)]
            orelse = stmt.orelse
            while isinstance(orelse, cst.If):
                arms.append(_most_yields(orelse.body.body))
                orelse = orelse.orelse
            if orelse is not None:
                arms.append(_most_yields(orelse.body.body))
            found = [a for a in arms if a is not None]
            test = _yields_in(stmt.test)
            if found or test:
                seen = True
                total += (max(found) if found else 0) + test
            continue
        count = _yields_in(stmt)
        if count:
            seen = True
            if isinstance(stmt, (cst.For, cst.While)) or count == float("inf"):
                return float("inf")
            total += count
    return total if seen else None


def _yields_in(node: cst.CSTNode) -> float:
    """The ``yield`` expressions in ``node`` outside nested functions (``inf`` for a ``yield from``)."""
    count = 0.0
    todo = [node]
    while todo:
        here = todo.pop()
        if isinstance(here, (cst.FunctionDef, cst.Lambda, cst.ClassDef)) and here is not node:
            continue
        if isinstance(here, cst.Yield):
            if isinstance(here.value, cst.From):
                return float("inf")
            count += 1
        todo.extend(here.children)
    return count


def _imports_jax(block: cst.BaseSuite) -> bool:
    """A statement of the block imports ``jax`` or a module of it."""
    for stmt in block.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Import) and any(
                    (dotted_name(alias.name) or "").split(".")[0] == "jax" for alias in small.names):
                return True
            if isinstance(small, cst.ImportFrom) and small.module is not None \
                    and (dotted_name(small.module) or "").split(".")[0] == "jax":
                return True
    return False


def _computed_from(expr: cst.BaseExpression, static: Set[str],
                   qualify: Optional[Callable[[cst.BaseExpression], Optional[str]]] = None,
                   local: Optional[Callable[[str], Sequence[cst.BaseExpression]]] = None,
                   module: Optional[Callable[[str], Optional[Sequence[cst.BaseExpression]]]] = None) -> bool:
    """Whether ``expr`` reads ``self`` only through static fields (or static attributes such as
    ``.shape``), and otherwise only literals, builtins, NumPy and ``math`` (given ``qualify``), the
    locals whose values ``local`` gives (every one assigned) and the module's names whose values
    ``module`` gives (a constant global: nothing; a function: what it returns), computed so too: its
    value is a Python value. The shape, dtype... and ``len()`` of anything are too: a tracer's length
    is its static leading dimension."""
    stack: List[cst.CSTNode] = [expr]
    seen: Set[str] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value in seen:
            continue  # (a local whose value is being checked already)
        if isinstance(node, cst.Name) and local is not None:
            bound = local(node.value)
            if bound:
                seen.add(node.value)  # (`box = np.asarray(self.box_size)`: what it holds is checked)
                stack.extend(bound)
                continue
        if isinstance(node, cst.Name) and module is not None:
            given = module(node.value)
            if given is not None:
                seen.add(node.value)  # (`get_mesh()` returning the module's `_MESH`: what it returns is checked)
                stack.extend(given)
                continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len":
            continue
        if isinstance(node, cst.Call) and qualify is not None \
                and (qualify(node.func) or "").startswith(("numpy.", "math.")):
            # NumPy and math of Python values are host values (`np.min(np.asarray(self.box) / 2)`)
            stack.extend(arg.value for arg in node.args)
            continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "getattr" \
                and len(node.args) in (2, 3) and isinstance(node.args[0].value, cst.Name) \
                and node.args[0].value.value == "self" and string_value(node.args[1].value) is not None:
            # `getattr(self, "_radixes")` reads the field `self._radixes` (a default, if any, is checked too)
            if string_value(node.args[1].value) not in static:
                return False
            stack.extend(arg.value for arg in node.args[2:])
            continue
        if isinstance(node, cst.Attribute) and node.attr.value in jax_api.STATIC_ATTRIBUTES:
            continue  # the shape, dtype... of any value, a field or an element of one
        if isinstance(node, cst.Attribute):
            chain = []
            inner: cst.CSTNode = node
            while isinstance(inner, cst.Attribute):
                chain.append(inner.attr.value)
                inner = inner.value
            if isinstance(inner, cst.Name) and inner.value == "self":
                if chain[-1] in static or any(a in jax_api.STATIC_ATTRIBUTES for a in chain):
                    continue
                return False
            stack.append(inner)
            continue
        if isinstance(node, cst.Name) and node.value not in ("len", "int", "tuple", "sum", "max", "min", "bool",
                                                             "True", "False", "None", "range", "sorted"):
            return False
        if isinstance(node, (cst.Lambda, cst.Await, cst.Yield)):
            return False
        stack.extend(iter_children(node))
    return True


def _is_main_guard(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"``."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)):
        return False
    sides = [test.left, test.comparisons[0].comparator]
    return any(isinstance(x, cst.Name) and x.value == "__name__" for x in sides) and any(
        string_value(x) == "__main__" for x in sides)


def _bool_parameter(param: cst.Param) -> bool:
    """A parameter annotated ``bool`` or defaulting to ``True`` / ``False``."""
    annotation = param.annotation.annotation if param.annotation is not None else None
    if isinstance(annotation, cst.Name) and annotation.value == "bool":
        return True
    return isinstance(param.default, cst.Name) and param.default.value in ("True", "False")


def _contains(root: cst.CSTNode, target: cst.CSTNode) -> bool:
    stack = [root]
    while stack:
        node = stack.pop()
        if node is target:
            return True
        stack.extend(iter_children(node))
    return False


def in_axes_entries(node: cst.BaseExpression, depth: int = 0) -> Optional[List[bool]]:
    """For each entry of an ``in_axes`` sequence, whether it is ``None``: literals, ``+`` of two
    sequences and ``*`` by an int literal; None when the sequence is not known."""
    if depth > 8:
        return None
    elements = literal_elements(node)
    if elements is not None:
        return [isinstance(el, cst.Name) and el.value == "None" for el in elements]
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Add):
            left, right = in_axes_entries(node.left, depth + 1), in_axes_entries(node.right, depth + 1)
            return left + right if left is not None and right is not None else None
        if isinstance(node.operator, cst.Multiply):
            for seq, count in ((node.left, node.right), (node.right, node.left)):
                n = int_value(count)
                entries = in_axes_entries(seq, depth + 1)
                if n is not None and entries is not None and 0 <= n <= 256:
                    return entries * n
    return None


def _returned_def(fn: cst.FunctionDef) -> Optional[cst.FunctionDef]:
    """The function defined in ``fn``'s body that ``fn`` returns by name (a decorator factory's
    decorator), when every return of its body returns it."""
    defs = {s.name.value: s for s in fn.body.body if isinstance(s, cst.FunctionDef)} \
        if isinstance(fn.body, cst.IndentedBlock) else {}
    returned = returned_values(fn.body)
    names = {v.value for v in returned if isinstance(v, cst.Name)}
    if not returned or len(names) != 1 or any(not isinstance(v, cst.Name) for v in returned):
        return None
    return defs.get(names.pop())


def _jit_of_parameter(fn: cst.FunctionDef, name: str, index: "ModuleIndex") -> Optional[cst.Call]:
    """A call in ``fn``'s body, or in a function it defines that does not bind ``name`` again (the
    wrapper it returns, jitting on its first call), that applies a compiling transform to ``fn``'s
    parameter ``name``: ``jax.jit(fun, static_argnames=...)``."""
    stack: List[cst.CSTNode] = [fn.body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Lambda, cst.ClassDef)) or (
                isinstance(node, cst.FunctionDef) and name in names_bound_in(node.body) | {
                    p.name.value for p, _ in params_of(node.params)}):
            continue
        if isinstance(node, cst.Call) and node.args and node.args[0].keyword is None \
                and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == name:
            t = index.transform_of(node.func)
            if t is not None and t.name in jax_api.COMPILING_TRANSFORMS:
                return node
        stack.extend(iter_children(node))
    return None


def _is_literal(node: cst.BaseExpression) -> bool:
    """A literal, or a list, tuple or set of literals."""
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)) or (
            isinstance(node, cst.Name) and node.value in ("None", "True", "False")):
        return True
    elements = literal_elements(node)
    return elements is not None and all(_is_literal(e) for e in elements)


def _declares_static(value: cst.BaseExpression, pytree_node_metadata: bool = True, name: Optional[str] = None,
                     helper: Optional[Callable[[cst.Call], bool]] = None) -> bool:
    """``field(static=True)``, ``field(pytree_node=False)``, ``field(metadata={"static": True})``,
    ``field(metadata={"pytree_node": False})``, ``field(on_setattr=[..., freeze])``, ``jax.tree.static()`` or
    ``static_field(...)``, whichever library the ``field`` comes from.  ``pytree_node_metadata``:
    whether the class's registration reads the ``pytree_node`` metadata key (flax's and penzai's
    structs do; ``jax.tree_util.register_dataclass`` reads only ``static``, checked on JAX 0.10.2).
    ``name``: what the callee is (its qualified name: ``tc_field`` imported as an alias of
    ``pytreeclass...field``); ``helper``: whether a call of another function gives such a field (a
    helper of the checked code that returns one, see ``ModuleIndex.field_helper_declares_static``)."""
    if not isinstance(value, cst.Call):
        return False
    name = name or dotted_name(value.func) or ""
    last = name.rsplit(".", 1)[-1]
    if last == "static_field" or name == "jax.tree.static":
        return True  # (`jax.tree.static()`: a `dataclasses.field` with `metadata={"static": True}`, JAX 0.10.2)
    if last != "field":
        return helper is not None and helper(value)
    for arg in value.args:
        key = arg.keyword.value if arg.keyword is not None else None
        code = cst.Module([]).code_for_node(arg.value).replace(" ", "")
        if key == "static" and code == "True" or key == "pytree_node" and code == "False":
            return True
        if key == "metadata" and any(flag in code for flag in ("static=True", "'static':True", '"static":True')):
            return True
        if key == "metadata" and pytree_node_metadata and any(flag in code for flag in (
                "pytree_node=False", "'pytree_node':False", '"pytree_node":False')):
            return True  # dataclasses.field(metadata={"pytree_node": False}) (penzai, flax's struct)
        if key == "on_setattr" and _freezes(arg.value):
            return True
    return False


def _freezes(setters: cst.BaseExpression) -> bool:
    """A field's setters (``on_setattr=[*extra, tc.freeze]``) end with or hold ``freeze``: the value
    is stored frozen, a pytree with no leaves whose value is its tree structure (pytreeclass's
    ``freeze``): JAX keeps it static through jit and lax control flow, as the aux data it is."""
    if not isinstance(setters, (cst.List, cst.Tuple)):
        return False
    return any(not isinstance(el, cst.StarredElement) and (dotted_name(el.value) or "").rpartition(".")[2] == "freeze"
               for el in setters.elements)


class ModuleIndex:
    """Everything jitlint needs to know about a module before analysing values."""

    def __init__(self, module: cst.Module, extra_jit: Sequence[str] = (),
                 resolve_function: Optional[Callable[[str], Optional[Tuple["ModuleIndex", str]]]] = None,
                 never_imported: bool = False, in_package: bool = False,
                 resolve_class: Optional[Callable[[str], Optional[Tuple["ModuleIndex", str]]]] = None) -> None:
        self.module = module
        #: nothing imports the module (a notebook; a script nothing in its project imports): its functions run
        #: where its own statements call them, or after all of them ran
        self.never_imported = never_imported
        #: the module is part of a package (an ``__init__.py`` beside it): its public names are there to be
        #: imported, by code of other projects too
        self.in_package = in_package
        #: the module (its index) and name of a module-level function of another module of the
        #: checked code, by qualified name (given by the project); None when checked alone
        self.resolve_function_elsewhere = resolve_function
        self._jit_disabled: Optional[bool] = None
        #: the same for a class of another module of the checked code
        self.resolve_class_elsewhere = resolve_class
        self.imports = ImportTable()
        #: the import tables of functions that import names themselves, by the function node's id
        self._local_imports: Dict[int, ImportTable] = {}
        #: the names those functions import
        self._locally_imported: Set[str] = set()
        self._redefined_imports: Set[str] = set()
        self.extra_jit = {name: jax_api.Transform(name, ("static_argnums",), ("static_argnames",))
                          for name in extra_jit}
        self.functions: Dict[str, FunctionInfo] = {}
        self.classes: Dict[str, ClassInfo] = {}
        #: classes registered by a module-level ``register_pytree_node_class(C)`` call (found lazily)
        self._node_classes_by_call: Optional[Set[str]] = None
        self.infos: Dict[FunctionNode, FunctionInfo] = {}
        #: the parent of every node of the module that can hold code (the children ``iter_children``
        #: gives), by the node's id: noted by the one walk, so that the fixes need no walk of their own
        self.parents: Dict[int, cst.CSTNode] = {}
        self.globals: Dict[str, GlobalInfo] = {}
        #: top-level def/class statement -> its index in the module body
        self.statement_index: Dict[cst.CSTNode, int] = {}
        self.global_written: Set[str] = set()
        #: name -> the functions that declare it ``global`` (and may rebind it)
        self.global_writers: Dict[str, Set[FunctionInfo]] = {}
        self.mutated_names: Set[str] = set()
        #: module globals mutated (items, in-place methods) inside a function -> those functions
        self.mutated_in_functions: Dict[str, Set[FunctionInfo]] = {}
        #: module-level functions that run while the module is imported (decorators,
        #: calls in module-level statements)
        self.import_time_names: Set[str] = set()
        self.module_assigned: Set[str] = set()
        #: module-level names rebound to ``functools.partial(...)``
        self.module_partial_names: Set[str] = set()
        #: module globals whose attributes a function assigns
        self.attribute_mutated_in_functions: Dict[str, Set[FunctionInfo]] = {}
        self.logger_names: Set[str] = set()
        #: module globals holding a host random generator (``np.random.default_rng(0)``)
        self.host_rng_names: Set[str] = set()
        #: module globals holding a mutable array reference (``jax.new_ref(...)``)
        self.ref_names: Set[str] = set()
        self.calls_by_name: Dict[str, List[cst.Call]] = {}
        #: (scope, name) -> calls of ``name(...)`` made directly in that scope
        self.scope_calls: Dict[Tuple[Optional[FunctionInfo], str], List[cst.Call]] = {}
        #: calls inside loop bodies -> one marker per enclosing loop (see _loop_marker)
        self.calls_in_loops: Dict[cst.Call, Tuple[str, ...]] = {}
        #: calls whose result is called at once: ``jax.jit(f)(x)``
        self.called_immediately: Dict[cst.Call, cst.Call] = {}
        self.entries: List[EntryPoint] = []
        self.callbacks: Set[FunctionInfo] = set()
        #: function -> whether a decorator of the checked code jits it (see jitted_by_decorator)
        self._jitted_by_decorator: Dict[FunctionInfo, bool] = {}
        self._pending_calls: List[Tuple[cst.Call, Optional[FunctionInfo], Optional[ClassInfo]]] = []
        #: each call -> the scope it is written in (what its bare names resolve from)
        self._call_here: Dict[cst.Call, Scope] = {}
        self._overrides: Dict[Tuple[str, str, int], List[FunctionInfo]] = {}
        self._registration_helpers: Dict[cst.Call, Optional[Tuple[str, ModuleIndex, FunctionInfo]]] = {}
        self._names_given: Optional[Set[str]] = None
        self._pending_decorators: List[FunctionInfo] = []
        #: statements after one that always leaves its block (see ``syntax.reachable_count``)
        self._unreachable: List[cst.CSTNode] = []
        self._assign_targets: Dict[cst.Call, List[str]] = {}
        self._calls_of_result: Dict[cst.Call, Optional[Tuple[cst.Call, ...]]] = {}
        #: a transform's call made inside another's (`jax.vmap(f)` in `jax.jit(jax.vmap(f))`) -> the outermost
        self._wrapped_calls: Dict[cst.CSTNode, cst.Call] = {}
        self._wrappers: Dict[FunctionInfo, Optional[FunctionInfo]] = {}
        self._calls_argument: Dict[FunctionInfo, bool] = {}
        self._pytree_children: Dict[ClassInfo, Optional[Set[str]]] = {}
        #: the binding model: every scope of the module and what each name is bound to there
        self.scope_model = ScopeBuilder(module)
        #: calls evaluated once per element of a comprehension -> the comprehension's scope
        self.per_element: Dict[cst.Call, Scope] = {}
        #: calls and definitions (def, lambda, class) -> the loops around them (outermost first), up to
        #: the function or lambda they are in
        self.loops_of: Dict[cst.CSTNode, Tuple[cst.CSTNode, ...]] = {}
        self._loop_markers: Dict[cst.CSTNode, str] = {}
        #: (name, function, scope where written, which table): a mutation, kept when the name is a global
        self._mutations: List[Tuple[str, FunctionInfo, Scope, Dict[str, Set[FunctionInfo]]]] = []
        #: (global name, attribute, scope) of each ``G.attr = ...`` / ``+=`` / ``del`` in a function
        self._attribute_writes: List[Tuple[str, str, Scope]] = []
        #: module-level name -> the attributes functions of the module assign on it (``PROFILE.half_life_h``)
        self.assigned_attributes: Dict[str, Set[str]] = {}
        self._setattr_names: Optional[Set[str]] = None
        self._declared: Optional[Set[str]] = None
        self._private_references: Optional[Dict[str, List[Tuple[cst.CSTNode, Optional[ClassInfo]]]]] = None
        self._mentions: Optional[Dict[str, List[cst.Name]]] = None
        self._construction_helpers: Dict[ClassInfo, Set[str]] = {}
        self._lineages: Optional[List[List[ClassInfo]]] = None
        self._names_of: Optional[Dict[cst.BaseExpression, List[str]]] = None
        self._import_time_uses: Optional[List[Tuple[int, Set[str], Set[str]]]] = None
        #: module-level function or wrapper -> the names it reads (see _first_trace_of), and its results
        self._names_read: Optional[Dict[str, Set[str]]] = None
        self._first_traces: Dict[str, Optional[int]] = {}
        #: module-level function -> its trace model (see _trace_model), made once
        self._trace_models: Dict[str, tuple] = {}
        self._memos: Dict[str, bool] = {}
        self._exception_classes: Dict[str, List[cst.BaseExpression]] = {}
        self._top_index: Optional[Dict[int, int]] = None
        self._binding_places: Dict[int, Tuple[Optional[int], bool]] = {}
        self._collect_imports(module)
        self._collect_globals(module)
        #: names a module-level ``def`` or ``class`` binds after the module imported them (its last binding): a
        #: function body reading one when it runs, after import, finds the module's own definition
        self._redefined_imports = {name for name, info in self.globals.items()
                                   if info.kind in ("function", "class") and name in self.imports.aliases}
        #: calls in `if __name__ == "__main__":` blocks: the program, run after import, not setup
        self._main_calls: Set[cst.Call] = set()
        for stmt in module.body:
            if isinstance(stmt, cst.If) and _is_main_guard(stmt.test):
                stack: List[cst.CSTNode] = [stmt.body]
                while stack:
                    node = stack.pop()
                    if isinstance(node, cst.Call):
                        self._main_calls.add(node)
                    stack.extend(iter_children(node))
        checkpoint()
        self._block_bindings: Dict[int, Dict[str, List[cst.CSTNode]]] = {}
        self._walk(module)
        self._collect_module_aliases()  # (the binding model is complete after the walk)
        checkpoint()
        for name, fn, here, table in self._mutations:
            if here.resolve(name) in (None, self.scope_model.module_scope):
                table.setdefault(name, set()).add(fn)
        for name, attr, here in self._attribute_writes:
            if here.resolve(name) in (None, self.scope_model.module_scope):
                self.assigned_attributes.setdefault(name, set()).add(attr)
        never_run = self._never_run()
        for info in self._pending_decorators:
            if info.node not in never_run:  # a def that never runs is never decorated
                self._decorator_entries(info)
        for call, scope, cls in self._pending_calls:
            if call not in never_run:
                self._call_entries(call, scope, cls)
        chosen = self._calls_through_choices()
        for entry in self.entries:  # `jax.jit(jax.vmap(f))`: f's trace is kept by the jit around it
            outer = self._wrapped_calls.get(entry.site)
            entry.under_cache = outer is not None
            if outer is not None:  # named by what keeps the trace
                entry.label = f"`{_short(self.module.code_for_node(outer))}`"
            entry.calls = entry.direct_calls + tuple(
                call for name in entry.call_names for call in self.calls_by_name.get(name, ())
                if self._calls_binding_of(entry, name, call)) + tuple(
                call for name in entry.call_names for call in chosen.get(name, ()))
        #: every call in the module, in the order the walk met them -> the function it is in and,
        #: directly in a class body, that class
        self.call_scopes: Dict[cst.Call, Tuple[Optional[FunctionInfo], Optional[ClassInfo]]] = {
            call: (scope, cls) for call, scope, cls in self._pending_calls}
        #: custom_jvp / custom_vjp functions -> their rules (defjvp, defvjp), each with
        #: whether its leading parameters are the nondiff arguments (jvp and bwd rules)
        self.custom_rules: Dict[FunctionInfo, List[Tuple[FunctionInfo, bool]]] = self._custom_rules()
        #: attribute names that a pytree class of this module declares static (metadata):
        #: reading them from a traced pytree gives a Python value
        #: class name -> the attributes it declares static (its own, its bases' in this module, and
        #: properties computed from them)
        self.static_fields_by_class: Dict[str, Set[str]] = {}
        self._library_fields: Optional[Dict[str, Set[str]]] = None
        self._helper_registered: Optional[Set[str]] = None
        self._decorator_registrations: Optional[List[cst.Call]] = None
        #: classes registered by a helper whose data/aux split was read (see _decorator_calls)
        self._read_registrations: Set[str] = set()
        self._annotated: Optional[Dict[str, Set[str]]] = None
        self._jax_import_flags: Optional[Set[str]] = None
        self.static_fields: Set[str] = self._static_fields()

    def _calls_through_choices(self) -> Dict[str, List[cst.Call]]:
        """Module-level names -> the calls that reach them through a local name bound once to a choice
        between functions: ``kernel = f if state is None else f_jit`` then ``kernel(x, state=state)``
        calls ``f_jit`` when the test is False (see :meth:`choice_of`)."""
        out: Dict[str, List[cst.Call]] = {}
        for call, scope, _ in self._pending_calls:
            if scope is None or not isinstance(call.func, cst.Name):
                continue
            choice = self.choice_of(call, scope)
            if choice is None:
                continue
            for arm in (choice.body, choice.orelse):
                if isinstance(arm, cst.Name) and scope.scope.resolve(arm.value) is self.scope_model.module_scope:
                    out.setdefault(arm.value, []).append(call)
        return out

    def choice_of(self, call: cst.Call, scope: Optional[FunctionInfo]) -> Optional[cst.IfExp]:
        """The ``a if test else b`` that the callee of ``call`` is bound to, once, in the function the
        call is in (a name local to it, never rebound): which arm is called depends on ``test``."""
        if scope is None or not isinstance(call.func, cst.Name) or not scope.scope.is_local(call.func.value):
            return None
        value = scope.scope.single_value(call.func.value)
        return value if isinstance(value, cst.IfExp) else None

    # ----------------------------------------------------------------- names
    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        if self._redefined_imports:
            head = node
            while type(head) is cst.Attribute:
                head = head.value
            if type(head) is cst.Name and head.value in self._redefined_imports and self._in_function_body(head):
                return None  # (`from scipy.special import binom`, then `def binom(x, y): ...` below)
        if self._local_imports:
            head = node
            while type(head) is cst.Attribute:
                head = head.value
            if type(head) is cst.Name and head.value in self._locally_imported:
                parent = self.parents.get(id(node))
                while parent is not None:  # the innermost function importing the name decides
                    table = self._local_imports.get(id(parent))
                    if table is not None and head.value in table.aliases:
                        return table.resolve(node)
                    parent = self.parents.get(id(parent))
        return self.imports.resolve(node)

    def _in_function_body(self, node: cst.CSTNode) -> bool:
        """``node`` is in the body of a function or lambda (read when it runs, not when the module runs)."""
        child, parent = node, self.parents.get(id(node))
        while parent is not None:
            if (type(parent) is cst.FunctionDef and child is parent.body) or (type(parent) is cst.Lambda
                                                                           and child is parent.body):
                return True
            child, parent = parent, self.parents.get(id(parent))
        return False

    def transform_of(self, node: cst.BaseExpression) -> Optional[jax_api.Transform]:
        q = self.qualify(node)
        if q is None:
            return None
        t = jax_api.canonical_transform(q)
        if t is None:
            t = self.extra_jit.get(q)
        return t

    def _collect_module_aliases(self) -> None:
        """``jit = jax.jit`` at module level, its one binding in the module, and no function declaring
        it ``global``: an alias of the JAX name, as ``from jax import jit`` would be (``@jit`` is a jit)."""
        model = self.scope_model
        module_scope = model.module_scope
        declared: Set[str] = set()
        for scope in model.scopes.values():
            declared |= scope.globals
        for name in module_scope.bindings:
            value = module_scope.single_value(name)
            if isinstance(value, (cst.Name, cst.Attribute)) and name not in declared \
                    and name not in self.imports.aliases:
                q = self.imports.resolve(value)
                if q is not None and q.startswith("jax."):
                    self.imports.aliases[name] = q

    def _collect_imports(self, module: cst.Module) -> None:
        """Every import of the module (functions' included) into the import table, in the order the
        code runs, so that a name imported twice resolves to its last import (``from scipy.special import
        softmax`` then ``from jax.nn import softmax``: the JAX one is what a function finds when it runs);
        an import in an ``except`` handler only adds a name its ``try`` did not import (the handler runs
        when the ``try``'s import failed)."""
        at_module_level = _module_level_imports(module)
        stack: List[Tuple[cst.CSTNode, bool, Optional[cst.CSTNode]]] = [(module, False, None)]
        while stack:
            node, fallback, function = stack.pop()
            kind = type(node)
            if kind is cst.Import or kind is cst.ImportFrom:
                if function is not None:
                    # a function's own import binds a local name: code outside it keeps the module's import
                    # of that name (`from jax.numpy import sqrt` at the top, `from numpy import sqrt` in a
                    # NumPy reference function); a name only functions import is taken as before
                    local = self._local_imports.setdefault(id(function), ImportTable(self.imports.package))
                    (local.add_import if kind is cst.Import else local.add_import_from)(node)  # type: ignore[arg-type]
                    bound = _import_bindings(node)
                    self._locally_imported |= bound
                    if bound & at_module_level:
                        continue
                before = dict(self.imports.aliases) if fallback else None
                if kind is cst.Import:
                    self.imports.add_import(node)
                else:
                    self.imports.add_import_from(node)
                if before:
                    self.imports.aliases.update(before)  # (a name the `try` imported keeps its import)
                continue
            if kind is cst.FunctionDef:
                function = node
            children: List[Tuple[cst.CSTNode, bool]] = []
            if kind in _STATEMENT_CONTAINERS:
                body = node.body
                children += [(b, fallback) for b in (body if type(body) is list or type(body) is tuple else [body])]
                if kind in _WITH_MORE_BLOCKS:
                    for attr in ("handlers", "orelse", "finalbody"):
                        extra = getattr(node, attr, None)
                        handler = fallback or attr == "handlers"
                        if type(extra) is list or type(extra) is tuple:
                            children += [(e, handler) for e in extra]
                        elif extra is not None:
                            children.append((extra, handler))
            elif kind is cst.SimpleStatementSuite:
                children += [(b, fallback) for b in node.body]
            stack.extend((child, flag, function) for child, flag in reversed(children))  # (popped in code order)

    # --------------------------------------------------------------- globals
    def _collect_globals(self, module: cst.Module) -> None:
        for position, stmt in enumerate(module.body):
            for definition in _module_level_definitions(stmt):
                self.statement_index[definition] = position
            names_here: Dict[str, Tuple[cst.CSTNode, Optional[cst.BaseExpression]]] = {}
            in_loop = isinstance(stmt, (cst.For, cst.While))
            for name, value, node in self._bindings(stmt):
                names_here.setdefault(name, (node, value))
                info = self.globals.setdefault(name, GlobalInfo(node=node))
                info.last_statement = position
                if not info.statements or info.statements[-1] != position:
                    info.statements.append(position)
                if isinstance(node, (cst.Assign, cst.AnnAssign)) and info.assignments:
                    # a module-level name has the kind of its last module-level binding
                    # (`TABLE = np.zeros(...)` ... `TABLE = jnp.array(TABLE)`)
                    self._forget_kind(info, name)
                if isinstance(stmt, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
                    info.assignments += 1
                if value is not None:
                    self._classify_global(info, value, name)
                if isinstance(node, cst.FunctionDef):
                    info.kind = "function"
                elif isinstance(node, cst.ClassDef):
                    info.kind = "class"
                elif isinstance(node, (cst.Import, cst.ImportFrom)):
                    info.kind = "import"
            if not isinstance(stmt, (cst.SimpleStatementLine, cst.FunctionDef, cst.ClassDef)):
                for name in names_here:
                    self.globals[name].assignments += 2 if in_loop else 1

    def _numpy_expression(self, value: cst.BaseExpression, depth: int = 0) -> bool:
        """``np.sin(t).astype(np.float32)``, ``np.arange(8)[::-1]``, ``2 * np.ones(3)``: a NumPy array."""
        if depth > 8:
            return False
        if isinstance(value, cst.Call):
            q = self.qualify(value.func)
            if q is not None:
                return q.startswith("numpy.") and q not in jax_api.HOST_RNG_FACTORIES
            func = value.func
            return isinstance(func, cst.Attribute) and func.attr.value in jax_api.NUMPY_ARRAY_METHODS \
                and self._numpy_expression(func.value, depth + 1)
        if isinstance(value, cst.Subscript):
            return self._numpy_expression(value.value, depth + 1)
        if isinstance(value, cst.BinaryOperation):
            return self._numpy_expression(value.left, depth + 1) or self._numpy_expression(value.right, depth + 1)
        return False

    def _jax_expression(self, value: cst.BaseExpression, depth: int = 0) -> bool:
        """Arithmetic (``+ - * / // % **``, unary minus) with a JAX array made by a ``jax.numpy`` function on
        one side, and on the other a number or such an array: a JAX array."""
        if depth > 8:
            return False
        if isinstance(value, cst.Call):
            q = self.qualify(value.func)
            return q is not None and jax_api.is_array_function(q) and q not in jax_api.STATIC_RESULT_FUNCTIONS
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
            return self._jax_expression(value.expression, depth + 1)
        if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (
                cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power)):
            sides = (value.left, value.right)
            return any(self._jax_expression(side, depth + 1) for side in sides) and all(
                isinstance(side, (cst.Integer, cst.Float)) or self._jax_expression(side, depth + 1) for side in sides)
        return False

    def _forget_kind(self, info: GlobalInfo, name: str) -> None:
        info.mutable_container = info.jax_array = info.numpy_array = info.sequence = info.mapping = False
        info.instance_of = None
        self.host_rng_names.discard(name)
        self.ref_names.discard(name)
        self.logger_names.discard(name)
        self.module_partial_names.discard(name)

    def _classify_global(self, info: GlobalInfo, value: cst.BaseExpression, name: str) -> None:
        if isinstance(value, (cst.Tuple, cst.List, cst.Dict)):
            info.sequence = True
            info.mapping = isinstance(value, cst.Dict)
        if isinstance(value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
            info.mutable_container = True
        elif isinstance(value, cst.Call) and (self.qualify(value.func) or "") in jax_api.HOST_RNG_FACTORIES:
            self.host_rng_names.add(name)
        elif isinstance(value, cst.Call) and (self.qualify(value.func) or "") in jax_api.REF_FACTORIES:
            self.ref_names.add(name)
        elif self._numpy_expression(value):
            info.numpy_array = True  # np.zeros(3), np.sin(t).astype(np.float32), np.arange(8)[::-1]
        elif isinstance(value, (cst.BinaryOperation, cst.UnaryOperation)) and self._jax_expression(value):
            info.jax_array = True  # `jnp.stack(rows) / jnp.sqrt(3.0)`, `-jnp.ones(3)`: arithmetic of JAX arrays
        elif isinstance(value, cst.Call):
            q = self.qualify(value.func)
            callee = q or (value.func.value if isinstance(value.func, cst.Name) else None)
            if callee in jax_api.MUTABLE_FACTORIES:
                info.mutable_container = True
            elif q == "functools.partial":
                self.module_partial_names.add(name)
            elif q is not None and jax_api.is_array_function(q):
                info.jax_array = True
            elif q in ("logging.getLogger", "absl.logging.get_absl_logger", "logging.LoggerAdapter"):
                self.logger_names.add(name)  # (an adapter's `info` logs through the logger it wraps)
            elif q is None and isinstance(value.func, cst.Name):
                info.instance_of = value.func.value

    def _bindings(self, stmt: cst.CSTNode):
        """(name, value, node) bound at this level by a module-level statement."""
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        t = target.target
                        if isinstance(t, (cst.Tuple, cst.List)):
                            # unpacking: each name gets its element of a literal, else an unknown value
                            values = small.value.elements if isinstance(small.value, (cst.Tuple, cst.List)) \
                                and len(small.value.elements) == len(t.elements) and not any(
                                    isinstance(e, cst.StarredElement) for e in t.elements) else None
                            for i, el in enumerate(t.elements):
                                for name in assigned_names(el.value):
                                    value = values[i].value if values is not None and isinstance(
                                        el.value, cst.Name) else None
                                    yield name.value, value, small
                            continue
                        for name in assigned_names(t):
                            yield name.value, small.value, small
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    if isinstance(small.target, cst.Name):
                        yield small.target.value, getattr(small, "value", None), small
                        if isinstance(small, cst.AugAssign):
                            yield small.target.value, None, small
                elif isinstance(small, cst.Import) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                            yield alias.asname.name.value, None, small
                        else:
                            yield (alias.name.value if isinstance(alias.name, cst.Name)
                                   else alias.name.value.value if isinstance(alias.name.value, cst.Name)
                                   else "?"), None, small
                elif isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        local = alias.asname.name if alias.asname is not None else alias.name
                        if isinstance(local, cst.Name):
                            yield local.value, None, small
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            yield stmt.name.value, None, stmt
        elif isinstance(stmt, (cst.If, cst.Try, cst.With, cst.For, cst.While)):
            if isinstance(stmt, cst.For):
                for name in assigned_names(stmt.target):
                    yield name.value, None, stmt
            blocks = [stmt.body]
            for attr in ("orelse", "finalbody"):
                extra = getattr(stmt, attr, None)
                if extra is not None:
                    blocks.append(extra.body if isinstance(extra, (cst.Else, cst.Finally)) else extra)
            for handler in getattr(stmt, "handlers", ()):
                blocks.append(handler.body)
            for block in blocks:
                if isinstance(block, cst.If):
                    yield from self._bindings(block)
                    continue
                body = getattr(block, "body", ())
                for inner in body if isinstance(body, (list, tuple)) else ():
                    yield from self._bindings(inner)

    # ------------------------------------------------------ custom derivatives
    def _custom_rules(self) -> Dict[FunctionInfo, List[Tuple[FunctionInfo, bool]]]:
        """``@f.defjvp def f_jvp``, ``f.defjvp(f_jvp)``, ``f.defvjp(f_fwd, f_bwd)``."""
        out: Dict[FunctionInfo, List[Tuple[FunctionInfo, bool]]] = {}

        def owner(expr: cst.BaseExpression) -> Optional[FunctionInfo]:
            if isinstance(expr, cst.Attribute) and expr.attr.value in ("defjvp", "defvjp", "defjvps") \
                    and isinstance(expr.value, cst.Name):
                return self.functions.get(expr.value.value)
            return None

        for info in self.infos.values():
            if isinstance(info.node, cst.FunctionDef):
                for dec in info.node.decorators:
                    primal = owner(dec.decorator)
                    if primal is not None:
                        out.setdefault(primal, []).append((info, True))
        for call, scope, cls in self._pending_calls:
            primal = owner(call.func)
            if primal is None:
                continue
            fwd = isinstance(call.func, cst.Attribute) and call.func.attr.value == "defvjp"
            positional = [a for a in call.args if a.keyword is None and not a.star]
            for i, arg in enumerate(positional):
                rule, _ = self.resolve_function(arg.value, scope, cls)
                if rule is not None:
                    out.setdefault(primal, []).append((rule, not (fwd and i == 0)))
        return out

    def nondiff_argnums(self, primal: FunctionInfo) -> Tuple[int, ...]:
        """``nondiff_argnums`` of a ``custom_jvp`` / ``custom_vjp`` function's decorator."""
        if not isinstance(primal.node, cst.FunctionDef):
            return ()
        for dec in primal.node.decorators:
            if isinstance(dec.decorator, cst.Call):
                arg = call_argument(dec.decorator, None, "nondiff_argnums")
                if arg is not None:
                    return self._int_tuple(arg.value) or ()
        return ()

    # ------------------------------------------------------ pytree metadata
    def library_registered_fields(self) -> Dict[str, Set[str]]:
        """Classes of this module that a decorator of a library jitlint does not know makes what they
        are (``@pytree`` of jax_primitives on a dataclass), with no base class: class name -> its
        annotated fields.  Which of those fields are pytree leaves and which static metadata is that
        library's choice (jax_primitives keeps ``res_x: int`` static, ``Dynamic[...]`` fields leaves)."""
        if self._library_fields is None:
            self._library_fields = {}
            for cls in self.classes.values():
                if any(base not in ("", "object") for base in cls.bases):
                    continue
                if not any(self._library_decorator(d.func if isinstance(d, cst.Call) else d) for d in cls.decorators):
                    continue
                self._library_fields[cls.name] = self.annotated_fields()[cls.name]
        return self._library_fields

    def helper_registered_classes(self) -> Set[str]:
        """Classes of this module that a decorator of the checked code registers as pytrees by code of
        its own: a function (applied as is, through ``functools.partial`` or called first) whose body
        calls ``register_pytree_node`` / ``register_pytree_with_keys`` / ``register_dataclass`` /
        ``register_pytree_node_class`` (pmwd's ``@partial(pytree_dataclass, aux_fields=Ellipsis)``),
        the class marking none of its fields static itself.  Which fields that code makes leaves and
        which aux data is computed there (``aux_fields is Ellipsis`` -> every field) and is not read:
        a field of such a class is not known to be traced, unless it is declared an array (aux data
        must be hashable, which no array is)."""
        if self._helper_registered is None:
            self._helper_registered = set()
            for cls in self.classes.values():
                if self._marks_static_fields(cls) or cls.name in self._read_registrations:
                    continue  # (its static fields are marked where they are declared, or the helper's split read)
                if any(self._registering_decorator(d) for d in cls.decorators):
                    self._helper_registered.add(cls.name)
        return self._helper_registered

    def _marks_static_fields(self, cls: ClassInfo) -> bool:
        """A field of the class is declared static where it is declared (``field(static=True)``,
        ``Static[int]``...): not a ``ClassVar`` (no field at all) nor a property computed from others."""
        marked = self.static_fields_by_class.get(cls.name, set()) & self.annotated_fields().get(cls.name, set())
        for stmt in cls.node.body.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                        and small.target.value in marked:
                    head = small.annotation.annotation
                    head = head.value if isinstance(head, cst.Subscript) else head
                    if self.qualify(head) not in ("typing.ClassVar", "typing_extensions.ClassVar"):
                        return True
        return False

    def _registering_decorator(self, decorator: cst.BaseExpression) -> bool:
        """See :meth:`helper_registered_classes`."""
        func = decorator.func if isinstance(decorator, cst.Call) else decorator
        if isinstance(decorator, cst.Call) and (self.qualify(func) or "") in ("functools.partial", "partial"):
            if not decorator.args:
                return False
            func = decorator.args[0].value
        if not isinstance(func, (cst.Name, cst.Attribute)):
            return False
        found = self._helper_definition(func)
        if found is None or not isinstance(found[1].node, cst.FunctionDef):
            return False
        index, fn = found
        return any(index._calls_in_helper(inner, suffix) for inner in (fn, *self._nested_functions(fn))
                   for suffix in _REGISTRATIONS)

    @staticmethod
    def _nested_functions(fn: FunctionInfo) -> List[FunctionInfo]:
        """The functions defined in ``fn``, at any depth."""
        out: List[FunctionInfo] = []
        todo = list(fn.nested.values())
        while todo and len(out) < 64:
            inner = todo.pop()
            out.append(inner)
            todo.extend(inner.nested.values())
        return out

    def annotated_fields(self) -> Dict[str, Set[str]]:
        """Class name -> the names annotated in its body (``res_x: int``), for the classes of this module."""
        if self._annotated is None:
            self._annotated = {}
            for cls in self.classes.values():
                names = self._annotated.setdefault(cls.name, set())
                body = cls.node.body.body if isinstance(cls.node.body, cst.IndentedBlock) else ()
                for stmt in body:
                    if isinstance(stmt, cst.SimpleStatementLine):
                        names.update(small.target.value for small in stmt.body if isinstance(small, cst.AnnAssign)
                                     and isinstance(small.target, cst.Name))
        return self._annotated

    def _library_decorator(self, decorator: cst.BaseExpression) -> bool:
        """A decorator imported from a package outside JAX, its known libraries and the standard library
        (an absolute import: a relative one is the project's own code)."""
        if not isinstance(decorator, (cst.Name, cst.Attribute)):
            return False
        root = decorator
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or self.globals.get(root.value) is None \
                or self.globals[root.value].kind != "import":
            return False
        q = self.qualify(decorator)
        return q is not None and "." in q and not q.startswith(".") and not q.startswith(jax_api.EXTERNAL_PACKAGES) \
            and q.split(".")[0] not in _STDLIB_DECORATOR_PACKAGES

    def pytree_children(self, cls: ClassInfo) -> Optional[Set[str]]:
        """For a ``@register_pytree_node_class`` class whose ``tree_flatten`` returns
        ``(self.a, self.b), aux``: the attributes that are children (traced when the instance
        crosses a jit boundary). None when jitlint cannot tell."""
        if cls not in self._pytree_children:
            self._pytree_children[cls] = self._flattened_children(cls)
        return self._pytree_children[cls]

    def _registered_node_class(self, cls: ClassInfo) -> bool:
        """Registered with ``register_pytree_node_class``: as a decorator, or called on the class at
        module level (``jax.tree_util.register_pytree_node_class(State)``), which is the same."""
        if any((self.qualify(d.func if isinstance(d, cst.Call) else d) or "").endswith(
                "register_pytree_node_class") for d in cls.decorators):
            return True
        if self._node_classes_by_call is None:
            self._node_classes_by_call = set()
            for call, scope, _ in self._pending_calls:
                first = call_argument(call, 0, None)
                if scope is None and first is not None and isinstance(first.value, cst.Name) and (
                        self.qualify(call.func) or "").endswith("register_pytree_node_class"):
                    self._node_classes_by_call.add(first.value.value)
        return cls.name in self._node_classes_by_call

    def _flattened_children(self, cls: ClassInfo) -> Optional[Set[str]]:
        if not self._registered_node_class(cls):
            return None
        flatten = cls.methods.get("tree_flatten")
        if flatten is None or not isinstance(flatten.node, cst.FunctionDef):
            return None
        returned = returned_values(flatten.node.body)
        return self._explicit_children(returned, "self", flatten) if len(returned) == 1 else None

    def _pytree_aux_data(self) -> Dict[str, Set[str]]:
        """Attributes that a class registered with ``@register_pytree_node_class`` (its
        ``tree_flatten``) or ``register_pytree_node(cls, flatten, unflatten)`` puts in the aux data
        -- the second element flatten returns -- and not in the children: JAX keeps aux data as
        Python values (part of the tree structure, compared to find a cached trace), so under jit
        they are static."""
        flattens: List[Tuple[str, FunctionInfo]] = []
        unflattens: List[Tuple[str, FunctionInfo]] = []
        for cls in self.classes.values():
            if not self._registered_node_class(cls):
                continue
            unflatten = self.find_method(cls, "tree_unflatten")
            if unflatten is not None:
                unflattens.append((cls.name, unflatten))
            flatten = self.find_method(cls, "tree_flatten")
            if flatten is not None:
                flattens.append((cls.name, flatten))
                if flatten.cls is not None and flatten.cls is not cls:
                    flattens.append((flatten.cls.name, flatten))  # inherited: the base's properties read them
        for call, scope, _ in self._pending_calls:
            if scope is not None or not (self.qualify(call.func) or "").endswith("tree_util.register_pytree_node"):
                continue
            owner, flatten = call_argument(call, 0, "nodetype"), call_argument(call, 1, "flatten_func")
            if owner is not None and flatten is not None and isinstance(owner.value, cst.Name) \
                    and owner.value.value in self.classes:
                fn, _ = self.resolve_function(flatten.value, None, None)
                if fn is not None and isinstance(fn.node, cst.Lambda) and fn.params:
                    # `lambda o: o._tree_flatten()`: the method of the class that it calls does the flattening
                    body = fn.node.body
                    if isinstance(body, cst.Call) and not body.args and isinstance(body.func, cst.Attribute) \
                            and isinstance(body.func.value, cst.Name) \
                            and body.func.value.value == fn.params[0][0].name.value:
                        method = self.find_method(self.classes[owner.value.value], body.func.attr.value)
                        fn = method if method is not None else fn
                if fn is not None:
                    flattens.append((owner.value.value, fn))
                rebuild = call_argument(call, 2, "unflatten_func")
                if owner is not None and rebuild is not None:
                    unflatten, _ = self.resolve_function(rebuild.value, None, None)
                    if unflatten is not None:
                        unflattens.append((owner.value.value, unflatten))
        out: Dict[str, Set[str]] = {}
        for call, scope, _ in self._pending_calls:
            if scope is None:
                for owner, names in self._aux_through_helper(call):
                    out.setdefault(owner, set()).update(names)
        for call in self._decorator_calls():
            for owner, names in self._aux_through_helper(call):
                self._read_registrations.add(owner)
                out.setdefault(owner, set()).update(names)
        for owner, fn in unflattens:
            out.setdefault(owner, set()).update(_set_from_aux_data(fn))
        for owner, fn in flattens:
            params = fn.params
            if not params:
                continue
            receiver = params[0][0].name.value
            returned = [fn.node.body] if isinstance(fn.node, cst.Lambda) else returned_values(fn.node.body)
            children: Set[str] = set()
            aux: Set[str] = set()
            for value in returned:
                if not isinstance(value, cst.Tuple) or len(value.elements) != 2:
                    break
                for part, into in zip(value.elements, (children, aux)):
                    expr = part.value
                    if isinstance(expr, cst.Name):
                        expr = self.single_value(expr.value, fn) or expr
                    into.update(a.attr.value for a in _attributes_of(expr, receiver))
            else:
                if aux - children:
                    out.setdefault(owner, set()).update(aux - children)
                explicit = self._explicit_children(returned, receiver, fn)
                rebuilt = [u for name, u in unflattens if name == owner]
                if explicit is not None and owner in self.classes and len(rebuilt) == 1 \
                        and self._fields_kept(self.classes[owner], rebuilt[0], explicit):
                    # every other field is no leaf: aux data, a Python value (or its default)
                    others = self._dataclass_fields(self.classes[owner]) - explicit
                    if others:
                        out.setdefault(owner, set()).update(others)
        return {owner: attrs for owner, attrs in out.items() if attrs}

    def _explicit_children(self, returned: Sequence[Optional[cst.BaseExpression]], receiver: str,
                           fn: FunctionInfo) -> Optional[Set[str]]:
        """The attributes a flatten function returns as its children when every ``return`` gives them as a
        display of attributes of the object (``return (self.a, self.b), aux``); None otherwise."""
        found: Set[str] = set()
        for value in returned:
            if not isinstance(value, cst.Tuple) or len(value.elements) != 2:
                return None
            children = value.elements[0].value
            if isinstance(children, cst.Name):
                children = self.single_value(children.value, fn)
            elements = literal_elements(children) if children is not None else None
            if elements is None or not all(isinstance(el, cst.Attribute) and isinstance(el.value, cst.Name)
                                           and el.value.value == receiver for el in elements):
                return None
            found.update(el.attr.value for el in elements)  # type: ignore[union-attr]
        return found if returned else None

    def _fields_kept(self, cls: ClassInfo, unflatten: FunctionInfo, children: Set[str]) -> bool:
        """The class is a dataclass whose generated ``__init__`` only stores its arguments (no ``__init__``
        or ``__post_init__`` of its own), and ``unflatten`` rebuilds it with one call of the class that
        gives what it computes from the children (its last parameter) only to the child fields, by
        keyword: every other field gets what the aux data or a default holds."""
        if not any((self.qualify(d.func if isinstance(d, cst.Call) else d) or "").endswith("dataclass")
                   for d in cls.decorators) or {"__init__", "__post_init__"} & set(cls.methods):
            return False
        node = unflatten.node
        params = [p.name.value for p, _ in unflatten.params]
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock) or len(params) < 2:
            return False
        tainted = {params[-1]}
        made: List[cst.Call] = []
        for stmt in node.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                return False
            for small in stmt.body:
                if isinstance(small, cst.Assign) and all(isinstance(n, cst.Name) for t in small.targets
                                                         for n in flat_targets(t.target)):
                    if {n.value for n in name_references(small.value)} & tainted:
                        tainted.update(n.value for t in small.targets for n in name_references(t.target))
                elif isinstance(small, cst.Return) and isinstance(small.value, cst.Call):
                    made.append(small.value)
                else:
                    return False
        if len(made) != 1:
            return False
        func = made[0].func
        makers = {cls.name} | ({params[0]} if len(params) == 3 else set())  # (a classmethod's `cls`)
        if not (isinstance(func, cst.Name) and func.value in makers):
            return False
        for arg in made[0].args:
            if {n.value for n in name_references(arg.value)} & tainted \
                    and (arg.keyword is None or arg.keyword.value not in children):
                return False
        return True

    @staticmethod
    def _dataclass_fields(cls: ClassInfo) -> Set[str]:
        """The fields a dataclass declares: the annotated names of its body."""
        return {small.target.value for stmt in cls.node.body.body if isinstance(stmt, cst.SimpleStatementLine)
                for small in stmt.body if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)}

    def _aux_through_helper(self, call: cst.Call) -> List[Tuple[str, Set[str]]]:
        """``register(Params, aux_field_names=("n_atoms", "cutoff"))`` at module level, ``register`` a
        function of the checked code that calls ``register_pytree_node(cls, flatten, unflatten)`` with
        its own class parameter and a ``flatten`` of its own whose aux data (the second thing it returns)
        is ``getattr(obj, name)`` for each ``name`` of another of its parameters: those attributes are
        aux data, Python values under jit (jaxmm's ``_register_pytree``, run on JAX 0.10.2)."""
        found = self._registration_helper(call)
        if found is None:
            return []
        cls_name, index, fn = found
        out: List[Tuple[str, Set[str]]] = []
        for inner in index._calls_in_helper(fn, "tree_util.register_pytree_node"):
            owner = call_argument(inner, 0, "nodetype")
            flatten = call_argument(inner, 1, "flatten_func")
            given = bound_value(owner.value, fn, call) if owner is not None else None
            if flatten is None or not isinstance(given, cst.Name) or given.value != cls_name:
                continue
            flat = fn.nested.get(flatten.value.value) if isinstance(flatten.value, cst.Name) else \
                index.infos.get(flatten.value) if isinstance(flatten.value, cst.Lambda) else None
            if flat is None or len(flat.params) != 1:
                continue
            names = self._aux_names_of(flat, fn, call)
            if names:
                out.append((cls_name, names))
        return out

    def _made_dataclass(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """``cls`` for ``dataclasses.dataclass(cls)`` and ``dataclasses.dataclass(frozen=True)(cls)``
        (the same class, made a dataclass); ``expr`` for anything else."""
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and expr.args[0].keyword is None:
            func = expr.func.func if isinstance(expr.func, cst.Call) else expr.func
            if (self.qualify(func) or "") == "dataclasses.dataclass":
                return expr.args[0].value
        return expr

    def _decorator_calls(self) -> List[cst.Call]:
        """A class decorator that is a function of the checked code, applied as is or through
        ``functools.partial`` (``@partial(register, meta=("n",))``), written as the call it makes:
        ``register(Cls, meta=("n",))`` -- read as a module-level call registering the class is."""
        if self._decorator_registrations is None:
            self._decorator_registrations = []
            for cls in self.classes.values():
                for dec in cls.decorators:
                    extra: Sequence[cst.Arg] = ()
                    func = dec
                    if isinstance(dec, cst.Call):
                        if (self.qualify(dec.func) or "") not in ("functools.partial", "partial") or not dec.args:
                            continue
                        func, extra = dec.args[0].value, dec.args[1:]
                    if not isinstance(func, (cst.Name, cst.Attribute)) or \
                            (self.qualify(func) or "").startswith(jax_api.EXTERNAL_PACKAGES):
                        continue
                    self._decorator_registrations.append(cst.Call(func, args=(cst.Arg(cst.Name(cls.name)), *extra)))
        return self._decorator_registrations

    def _registration_helper(self, call: cst.Call) -> Optional[Tuple[str, "ModuleIndex", FunctionInfo]]:
        """For a module-level call given a class of this module first (``register(Params, ...)``): the
        class's name and the module-level def it calls, of this module or of another of the checked code.

        Only such a call is looked at: resolving every module-level call's function in another module
        indexes that module too, and in a project such as JAX (a module-level `register_lowering(prim,
        ...)` in nearly every module) that indexed the whole project for each file checked (about 40x
        slower)."""
        if call in self._registration_helpers:
            return self._registration_helpers[call]
        found = None
        first = call.args[0] if call.args else None
        if first is not None and first.keyword is None and not first.star and isinstance(first.value, cst.Name) \
                and first.value.value in self.classes:
            helper = self._helper_definition(call.func)
            if helper is not None and isinstance(helper[1].node, cst.FunctionDef):
                found = first.value.value, helper[0], helper[1]
        self._registration_helpers[call] = found  # (asked by the static fields and by the aux data)
        return found

    def _calls_in_helper(self, fn: FunctionInfo, suffix: str) -> List[cst.Call]:
        """The calls ``fn``'s own body makes of a function whose qualified name ends with ``suffix``."""
        return [inner for inner, scope, _ in self._pending_calls
                if scope is fn and (self.qualify(inner.func) or "").endswith(suffix)]

    def _aux_names_of(self, flat: FunctionInfo, helper: FunctionInfo, call: cst.Call) -> Set[str]:
        """The attribute names a helper's nested ``flatten`` puts in its aux data from a parameter of
        the helper (see :meth:`_aux_through_helper`), as ``call`` gives that parameter; empty if not so."""
        receiver = flat.params[0][0].name.value
        names: Set[str] = set()
        returned = [flat.node.body] if isinstance(flat.node, cst.Lambda) else returned_values(flat.node.body)
        for value in returned:
            if not isinstance(value, cst.Tuple) or len(value.elements) != 2:
                return set()
            aux = value.elements[1].value
            if isinstance(aux, cst.Name):
                aux = self.single_value(aux.value, flat) or aux
            if not isinstance(aux, (cst.DictComp, cst.ListComp, cst.GeneratorExp, cst.SetComp)) \
                    or aux.for_in.inner_for_in is not None or not isinstance(aux.for_in.target, cst.Name):
                return set()
            item = aux.value if isinstance(aux, cst.DictComp) else aux.elt
            loop = aux.for_in.target.value
            if isinstance(item, cst.Tuple) and len(item.elements) == 2:
                item = item.elements[1].value  # `(name, getattr(obj, name))`
            if not (isinstance(item, cst.Call) and isinstance(item.func, cst.Name) and item.func.value == "getattr"
                    and len(item.args) == 2 and isinstance(item.args[0].value, cst.Name)
                    and item.args[0].value.value == receiver and isinstance(item.args[1].value, cst.Name)
                    and item.args[1].value.value == loop):
                return set()
            given = bound_value(aux.for_in.iter, helper, call) if isinstance(aux.for_in.iter, cst.Name) else None
            literal = [string_value(el) for el in (literal_elements(given) or ())] if given is not None else None
            if not literal or any(n is None for n in literal):
                return set()
            names.update(n for n in literal if n is not None)
        return names

    def _static_properties(self, cls: ClassInfo, static: Set[str]) -> Set[str]:
        """Properties computed only from static fields, static attributes of any field and other such
        properties (``@property def dofs(self): return len(self.joint_names)``, ``return
        self.params.shape[0]``, ``return (self.n, self.bands)``): under a trace a field's shape, dtype
        and length are Python values, so reading such a property from a traced instance gives one."""
        properties: Dict[str, List[Optional[cst.BaseExpression]]] = {}
        for name, method in cls.methods.items():
            node = method.node
            if is_property(node):
                properties[name] = returned_values(node.body)
        out: Set[str] = set()
        grew = True
        while grew:  # a property may read another one: repeat until none is added
            grew = False
            for name, returned in properties.items():
                if name not in out and returned and all(
                        v is not None and _computed_from(v, static | out, self.qualify,
                                                         partial(_assigned_values, cls.methods[name]),
                                                         self._host_value_of)
                        for v in returned):
                    out.add(name)
                    grew = True
        return out

    def _host_value_of(self, name: str) -> Optional[Sequence[cst.BaseExpression]]:
        """What a module-level name read in a property stands for, to be checked as the property's own
        value is (see :func:`_computed_from`): nothing for a global bound once at module level that no
        function rebinds or changes (its value was made at import, eagerly: no tracer); the values a
        module-level function returns, when every ``return`` gives one; None for anything else."""
        info = self.globals.get(name)
        if info is None:
            return None
        if info.kind == "value":
            changed = info.assignments != 1 or name in self.global_written or self.mutated_in_functions.get(name)
            return None if changed else ()
        fn = self.functions.get(name)
        if info.kind != "function" or fn is None or not isinstance(fn.node, cst.FunctionDef) or fn.cls is not None:
            return None
        returned = returned_values(fn.node.body)
        if not returned or any(v is None for v in returned):
            return None
        if all(self._imported_attribute(v, fn) for v in returned):
            return ()  # `from jax._src import mesh as mesh_lib; return mesh_lib.thread_resources.env.mesh`
        return returned

    def _imported_attribute(self, value: cst.BaseExpression, fn: "FunctionInfo") -> bool:
        """``value`` is a name an import binds (in ``fn`` or at module level), or an attribute of one:
        a module's object, made when it was imported, not a tracer."""
        while isinstance(value, cst.Attribute):
            value = value.value
        if not isinstance(value, cst.Name):
            return False
        local = fn.scope.bindings_of(value.value) if fn.scope is not None else []
        if local:
            return all(b.kind is BindingKind.IMPORT for b in local)
        info = self.globals.get(value.value)
        return info is not None and info.kind == "import"

    def _registrations_through_helper(self, call: cst.Call) -> List[cst.Call]:
        """``register(Runtime, meta=("n",))`` at module level, ``register`` a function of this module
        or of another module of the project whose body calls ``register_dataclass(cls, ...,
        meta_fields=list(meta))`` with its own parameters: the same registration, written with
        the arguments this call gives (a literal list of names, or the parameter's literal default)
        (see :meth:`_registration_helper` for which calls are looked at)."""
        found = self._registration_helper(call)
        if found is None:
            return []
        _, index, fn = found
        out: List[cst.Call] = []
        for inner in index._calls_in_helper(fn, "register_dataclass"):
            parts = []
            for position, keyword in ((0, "nodetype"), (2, "meta_fields")):
                arg = call_argument(inner, position, keyword)
                given = index._made_dataclass(arg.value) if arg is not None and position == 0 else \
                    arg.value if arg is not None else None
                value = bound_value(given, fn, call) if given is not None else None
                if value is None:
                    break
                parts.append(cst.Arg(value) if position == 0 else cst.Arg(value, keyword=cst.Name("meta_fields")))
            else:
                if isinstance(parts[0].value, cst.Name):
                    out.append(cst.Call(cst.Name("register_dataclass"), args=parts))
        return out

    def _helper_definition(self, func: cst.BaseExpression) -> Optional[Tuple["ModuleIndex", FunctionInfo]]:
        """The module-level function a module-level call calls: of this module, or of another
        module of the checked code (through an import)."""
        if isinstance(func, cst.Name) and func.value in self.functions:
            return self, self.functions[func.value]
        q = self.qualify(func)
        if q is None or self.resolve_function_elsewhere is None:
            return None
        found = self.resolve_function_elsewhere(q)
        if found is None:
            return None
        index, name = found
        return (index, index.functions[name]) if name in index.functions else None

    def _static_annotation(self, annotation: cst.BaseExpression) -> bool:
        """``Static[T]`` of jax_dataclasses: the annotation that makes a field of a
        ``@jax_dataclasses.pytree_dataclass`` aux data (static under jit); and ``ClassVar[T]``: an
        attribute of the class, not of its instances, which no dataclass or pytree machinery takes as a
        field (``dataclasses.fields``, flax's ``struct``, equinox, chex all leave it out), so an
        instance passed to a traced function gives it as the Python value the class holds."""
        head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
        q = self.qualify(head)
        if q in ("typing.ClassVar", "typing_extensions.ClassVar"):
            return True
        return isinstance(annotation, cst.Subscript) and q == "jax_dataclasses.Static"

    def _static_fields(self) -> Set[str]:
        """Fields made static by ``register_dataclass(meta_fields=...)``, ``field(static=True)``
        (equinox), ``field(pytree_node=False)`` (flax), ``field(metadata={"static": True})``
        (jax), ``static_field()``, a ``Static[T]`` annotation (jax_dataclasses), and every field of
        a ``register_static`` class."""
        out: Set[str] = set()
        static_classes: Set[str] = set()
        #: classes registered by jax.tree_util.register_dataclass, which ignores `pytree_node` metadata
        jax_registered: Set[str] = set()
        registrations: List[cst.Call] = []
        for cls in self.classes.values():
            for dec in cls.decorators:
                q = self.qualify(dec.func if isinstance(dec, cst.Call) else dec) or ""
                if q in ("functools.partial", "partial") and isinstance(dec, cst.Call) and dec.args:
                    q = self.qualify(dec.args[0].value) or ""  # partial(register_dataclass, meta_fields=...)
                    dec = dec.with_changes(args=dec.args[1:])
                if q.endswith("register_static") or (not q and self._registers_static(dec)):
                    static_classes.add(cls.name)
                elif q.endswith("register_dataclass") and not isinstance(dec, cst.Call):
                    jax_registered.add(cls.name)
                elif q.endswith("register_dataclass") and isinstance(dec, cst.Call):
                    # as a decorator the class is not an argument: meta_fields is the second
                    registrations.append(dec.with_changes(args=(cst.Arg(cst.Name(cls.name)), *dec.args)))
        for call in self._decorator_calls():
            found = self._registrations_through_helper(call)
            if found:
                self._read_registrations.add(call.args[0].value.value)
                registrations.extend(found)
        for call, scope, _ in self._pending_calls:
            q = (self.qualify(call.func) or "") if scope is None else ""
            first = call_argument(call, 0, None)
            if q.endswith("register_static") and first is not None and isinstance(first.value, cst.Name):
                static_classes.add(first.value.value)
            elif q.endswith("register_dataclass"):
                registrations.append(call)
            elif scope is None:
                registrations.extend(self._registrations_through_helper(call))
        by_class = self.static_fields_by_class
        for call in registrations:
            meta = call_argument(call, 2, "meta_fields")
            owner = call.args[0].value.value if call.args and isinstance(call.args[0].value, cst.Name) else None
            for el in (literal_elements(meta.value) or ()) if meta is not None else ():
                name = string_value(el)
                if name is not None:
                    out.add(name)
                    if owner is not None:
                        by_class.setdefault(owner, set()).add(name)
        jax_registered.update(call.args[0].value.value for call in registrations
                              if call.args and isinstance(call.args[0].value, cst.Name))
        for cls in self.classes.values():
            every = cls.name in static_classes
            node_key = cls.name not in jax_registered
            own = by_class.setdefault(cls.name, set())
            for stmt in cls.node.body.body:
                if not isinstance(stmt, cst.SimpleStatementLine):
                    continue
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                        if every or (small.value is not None and self.declares_static(small.value, node_key)) \
                                or self._static_annotation(small.annotation.annotation):
                            own.add(small.target.value)
                    elif isinstance(small, cst.Assign) and self.declares_static(small.value, node_key):
                        own.update(n.value for t in small.targets for n in assigned_names(t.target))
            out |= own
        for cls, aux in self._pytree_aux_data().items():
            by_class.setdefault(cls, set()).update(aux)
            out |= aux
        for cls in self.classes.values():  # fields a base class of this module declares
            for base in cls.bases:
                if base in by_class and base != cls.name:
                    by_class[cls.name] |= by_class[base]
        for cls in self.classes.values():
            props = self._static_properties(cls, by_class[cls.name])
            by_class[cls.name] |= props
            out |= props
        return out

    def _registers_static(self, decorator: cst.BaseExpression) -> bool:
        """A decorator of this module that registers the class it is given with ``register_static`` on
        every path: ``static_dataclass = lambda cls: jax.tree_util.register_static(dataclasses.dataclass(cls))``
        (or a def returning that).  Such a class is a pytree with no leaves: JAX passes its instances
        through ``jit`` as they are, Python values."""
        if not isinstance(decorator, cst.Name):
            return False
        fn, _ = self.resolve_function(decorator, None, None)
        if fn is None or fn.cls is not None or len(fn.params) != 1:
            return False
        param = fn.params[0][0].name.value
        returned = [fn.node.body] if isinstance(fn.node, cst.Lambda) else returned_values(fn.node.body)
        return bool(returned) and all(
            isinstance(value, cst.Call) and (self.qualify(value.func) or "").endswith("register_static")
            and bool(value.args) and param in {n.value for n in name_references(value.args[0].value, param)}
            for value in returned)

    def declares_static(self, value: cst.BaseExpression, node_key: bool, depth: int = 0) -> bool:
        """A class-body field value that declares the field static (see ``_declares_static``), the
        callee named by what it refers to here."""
        if not isinstance(value, cst.Call):
            return False
        return _declares_static(value, node_key, self.qualify(value.func),
                                lambda call: self.field_helper_declares_static(call, node_key, depth))

    def field_helper_declares_static(self, call: cst.Call, node_key: bool, depth: int = 0) -> bool:
        """A call of a module-level function of the checked code (this module's, or one it imports), or of
        a static method of a class of this module, every return of which declares a field static:
        fdtdx's ``frozen_field(**kw)`` returns
        ``tc_field(..., on_setattr=[*on_setattr, tc.freeze])``, and its ``frozen_private_field``
        returns ``frozen_field(...)``.  Typing overloads (no return) are left aside."""
        if depth > 4:
            return False
        where: Optional[ModuleIndex] = None
        name = None
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in self.classes:
            # a static method of a class of this module (genjax's ``Pytree.static()``): the same helper
            method = self.find_method(self.classes[func.value.value], func.attr.value)
            if method is None or not method.is_static_method or not isinstance(method.node, cst.FunctionDef):
                return False
            returned = [_with_literal_arguments(value, method.node, call) if value is not None else None
                        for value in returned_values(method.node.body)]
            return bool(returned) and all(value is not None and self.declares_static(value, node_key, depth + 1)
                                          for value in returned)
        if isinstance(func, cst.Name) and func.value in self.globals \
                and self.globals[func.value].kind != "import":
            where, name = self, func.value
        elif self.resolve_function_elsewhere is not None:
            q = self.qualify(call.func)
            found = self.resolve_function_elsewhere(q) if q and not (q + ".").startswith(
                jax_api.EXTERNAL_PACKAGES) else None
            if found is not None:
                where, name = found
        if where is None:
            return False
        defs = [stmt for stmt in where.module.body if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name]
        returned = [_with_literal_arguments(value, stmt, call) if value is not None else None
                    for stmt in defs for value in returned_values(stmt.body)]
        return bool(returned) and all(value is not None and where.declares_static(value, node_key, depth + 1)
                                      for value in returned)

    # ------------------------------------------------------------------ walk
    def _walk(self, module: cst.Module) -> None:
        """One walk of the tree: functions, classes, calls, mutations, and the binding model (each
        node of a binding type recorded in the scope it binds in, with the loops around it)."""
        model = self.scope_model
        record = model.record
        stack: List[Tuple[cst.CSTNode, Optional[FunctionInfo], Optional[ClassInfo], Tuple[cst.CSTNode, ...], Scope]]
        stack = [(module, None, None, (), model.module_scope)]
        FunctionDef, Lambda, ClassDef, Call, CompFor = cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Call, cst.CompFor
        Name, Attribute = cst.Name, cst.Attribute
        IndentedBlock, Module, SimpleStatementSuite = cst.IndentedBlock, cst.Module, cst.SimpleStatementSuite
        SimpleStatementLine = cst.SimpleStatementLine
        pop, push = stack.pop, stack.append
        parents = self.parents
        while stack:
            node, scope, cls, loops, here = pop()
            kind = type(node)
            if kind is FunctionDef or kind is Lambda:
                inner_scope = model.enter(node, here)
                info = self._function(node, scope, cls, inner_scope)
                if kind is FunctionDef:
                    record(node, here, loops)
                if loops:
                    self.loops_of[node] = loops
                info.defined_in_loop = bool(loops)
                for child in iter_children(node):
                    parents[id(child)] = node
                    if child is node.body:
                        push((child, info, None, (), inner_scope))
                    else:
                        push((child, scope, cls, loops, here))
                continue
            if kind is ClassDef:
                info_c = ClassInfo(node, node.name.value)
                for base in node.bases:
                    # a generic base (`Base[T]`) is the class subscripted; any other expression (a
                    # call, `*bases`) names no class known here ("": plain_class and the like fail)
                    named = base.value.value if type(base.value) is cst.Subscript else base.value
                    known = base.star == "" and (type(named) is Name or type(named) is Attribute)
                    info_c.bases.append((dotted_name(named) or "") if known else "")
                    info_c.base_nodes.append(named if known else None)
                for dec in node.decorators:
                    info_c.decorators.append(dec.decorator)
                if scope is None and cls is None:
                    self.classes.setdefault(node.name.value, info_c)
                record(node, here, loops)
                if loops:
                    self.loops_of[node] = loops
                body_scope = model.enter(node, here)
                for child in iter_children(node):
                    parents[id(child)] = node
                    if child is node.body:
                        push((child, scope, info_c, loops, body_scope))
                    else:
                        push((child, scope, cls, loops, here))
                continue
            if kind in COMPREHENSIONS:
                here = model.enter(node, here)
            elif kind is CompFor:
                record(node, here, loops)
                first = here.node.for_in is node  # the first iterable is evaluated outside the comprehension
                for child in iter_children(node):
                    parents[id(child)] = node
                    push((child, scope, cls, loops, here.parent if first and child is node.iter else here))
                continue
            elif kind is Call:
                self._note_call(node, scope, cls, loops, here)
            elif kind in BINDING_NODES:
                record(node, here, loops + (node,) if kind is cst.For else loops)  # a for target: every iteration
                if kind in _STATEMENTS_OF_INTEREST:
                    if scope is not None and kind is not cst.Del:
                        self._note_attribute_write(node, scope)
                    if kind is not cst.AnnAssign:
                        self._note_mutation_target(node, scope, here)
                    if kind is cst.Assign and type(node.value) is Call:
                        self._note_assign_targets(node)
                elif kind is cst.Global and scope is not None:
                    for item in node.names:
                        self.global_written.add(item.name.value)
                        self.global_writers.setdefault(item.name.value, set()).add(scope)
            elif kind is IndentedBlock or kind is Module or kind is SimpleStatementSuite or (
                    kind is SimpleStatementLine and len(node.body) > 1):
                body = node.body
                live = reachable_count(body)
                if live < len(body):
                    self._unreachable.extend(body[live:])
            if kind is cst.For or kind is cst.While:
                loop_body = node.body
                # (a `for` over one element runs its body once: nothing in it repeats)
                inner = loops if kind is cst.For and self._one_trip(
                    node.iter, cls or (scope.cls if scope is not None else None)) else loops + (node,)
                for child in iter_children(node):
                    parents[id(child)] = node
                    push((child, scope, cls, inner if child is loop_body else loops, here))
            elif kind is cst.If and loops and _one_iteration_test(node.test, loops[-1]):
                # (`if i == 0:` in `for i, x in enumerate(xs)`: its body runs in one iteration of the loop)
                for child in iter_children(node):
                    parents[id(child)] = node
                    push((child, scope, cls, loops[:-1] if child is node.body else loops, here))
            else:
                for child in iter_children(node):
                    parents[id(child)] = node
                    push((child, scope, cls, loops, here))

    def _one_trip(self, iterable: cst.BaseExpression, cls: Optional[ClassInfo] = None) -> bool:
        """A ``for`` over ``iterable`` runs once: ``range(1)`` (``range(k, k + 1)`` of literals), a list or
        tuple display of one element, a call of a generator of this module that yields at most once
        (``for x in self._generate_x(n):`` with one ``yield`` in each arm of an ``if``), or one of those
        given to what hands on each element of what it iterates (``enumerate``, ``tqdm``, ``list``,
        ``reversed``), or ``trange(1)``."""
        if isinstance(iterable, cst.Call):
            generator = self._generator_called(iterable.func, cls)
            if generator is not None:
                return _most_yields(generator.body.body) <= 1
        while isinstance(iterable, cst.Call) and len(iterable.args) >= 1 and not iterable.args[0].star \
                and iterable.args[0].keyword is None:
            q = self.qualify(iterable.func) or (iterable.func.value if isinstance(iterable.func, cst.Name)
                                                and iterable.func.value not in self.globals else "")
            if q in ("range", "tqdm.trange", "tqdm.auto.trange", "tqdm.notebook.trange"):
                bounds = [int_value(a.value) for a in iterable.args if a.keyword is None and not a.star]
                if len(bounds) == 1:
                    return bounds[0] == 1
                return len(bounds) == 2 and None not in bounds and bounds[1] - bounds[0] == 1  # type: ignore[operator]
            if q not in _ELEMENT_BY_ELEMENT:
                return False
            iterable = iterable.args[0].value
        return isinstance(iterable, (cst.List, cst.Tuple)) and len(iterable.elements) == 1 \
            and isinstance(iterable.elements[0], cst.Element)

    def _generator_called(self, func: cst.BaseExpression, cls: Optional[ClassInfo]) -> Optional[cst.FunctionDef]:
        """The generator function a call calls, read from the code: a module-level ``def`` of the name
        (no other module-level binding of it), or a method of the class around (``self.name``) defined
        in its body; None when it is neither, or has no ``yield``."""
        if isinstance(func, cst.Name):
            block: Sequence[cst.CSTNode] = self.module.body
            name = func.value
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self" \
                and cls is not None and isinstance(cls.node.body, cst.IndentedBlock):
            block, name = cls.node.body.body, func.attr.value
        else:
            return None
        found = self._bindings_by_name(block).get(name, ())
        if len(found) != 1 or not isinstance(found[0], cst.FunctionDef) or found[0].asynchronous is not None \
                or not isinstance(found[0].body, cst.IndentedBlock):
            return None
        return found[0] if _most_yields(found[0].body.body) is not None else None

    def _bindings_by_name(self, block: Sequence[cst.CSTNode]) -> Dict[str, List[cst.CSTNode]]:
        """The statements of a module's or class's body that bind each name (once per body)."""
        key = id(block)
        found = self._block_bindings.get(key)
        if found is None:
            found = {}
            for stmt in block:
                for name in names_bound_in(stmt):
                    found.setdefault(name, []).append(stmt)
            self._block_bindings[key] = found
        return found

    def call_scope(self, call: cst.Call) -> Optional[Scope]:
        """The scope a call of this module is made in (where the names it reads are looked up)."""
        return self._call_here.get(call)

    def _calls_binding_of(self, entry: EntryPoint, name: str, call: cst.Call) -> bool:
        """Whether the bare-name call ``call`` of ``name`` may call what ``entry`` binds to that name:
        its arguments fit (see :meth:`EntryPoint.accepts`), and Python resolves the name from the
        call's scope (LEGB), so a parameter, loop target or local assignment of the same name in a
        function around the call (``for step in steps: step(x, i)``) is another value. Only a call
        whose name resolves to a different scope than the entry's binding is left out; where either
        is unknown the call is kept."""
        if not entry.accepts(call):
            return False
        if entry.scope is None and self._call_here.get(call) is self.scope_model.module_scope:
            binding = self.module_reaching(name, call)
            if isinstance(binding, Binding):  # what the name is bound to where a notebook-style module calls it
                return _holds(binding.node, entry.site, self.parents)
        here = self._call_here.get(call)
        home = self._binding_home(entry, name)
        if here is None or home is None:
            return True
        found = here.resolve(name)
        return found is None or found is home

    def _binding_home(self, entry: EntryPoint, name: str) -> Optional[Scope]:
        """The scope whose binding of ``name`` holds ``entry``'s traced function: where the decorated
        ``def`` is, or where the ``g = jax.jit(f)`` that names it is written."""
        site = entry.site
        if isinstance(site, cst.Decorator):
            own = self.scope_model.scopes.get(entry.function.node)
            where = own.parent if own is not None else None
        else:
            where = self._call_here.get(site) if isinstance(site, cst.Call) else None
        return where.resolve(name) if where is not None else None

    def _never_run(self) -> Set[cst.CSTNode]:
        """The calls and function definitions in statements Python never reaches: a jit, vmap or
        lax call there traces nothing, and a decorator there is never applied."""
        out: Set[cst.CSTNode] = set()
        stack = list(self._unreachable)
        while stack:
            node = stack.pop()
            if type(node) in (cst.Call, cst.FunctionDef, cst.Lambda):
                out.add(node)
            stack.extend(iter_children(node))
        return out

    def _note_call(self, node: cst.Call, scope, cls, loops, here: Scope) -> None:
        self._pending_calls.append((node, scope, cls))
        self._call_here[node] = here
        if loops:
            self.loops_of[node] = loops
            markers = self._loop_markers
            for loop in loops:
                if loop not in markers:
                    markers[loop] = self._loop_marker(loop)
            self.calls_in_loops[node] = tuple(markers[loop] for loop in loops)
        if here.kind == Scope.COMPREHENSION:
            self.per_element[node] = here
        func = node.func
        kind = type(func)
        if kind is cst.Call:
            self.called_immediately[func] = node
        elif kind is cst.Name:
            if scope is None and node not in self._main_calls:
                self.import_time_names.add(func.value)
            self.calls_by_name.setdefault(func.value, []).append(node)
            self.scope_calls.setdefault((scope, func.value), []).append(node)
        elif kind is cst.Attribute:
            self.calls_by_name.setdefault("." + func.attr.value, []).append(node)
            if type(func.value) is cst.Name and func.value.value == "self":
                self.calls_by_name.setdefault("self." + func.attr.value, []).append(node)
            self._note_mutation_call(node, scope, here)

    def _note_assign_targets(self, node: cst.Assign) -> None:
        names = []
        for t in node.targets:
            tgt = t.target
            if isinstance(tgt, cst.Name):
                names.append(tgt.value)
            elif isinstance(tgt, cst.Attribute) and isinstance(tgt.value, cst.Name) and tgt.value.value == "self":
                names.append("self." + tgt.attr.value)
        self._assign_targets[node.value] = names

    def _loop_marker(self, node) -> str:
        """``"*"`` for a while loop; else the names a for loop (or a comprehension's ``for``) binds to
        Python numbers (``range``, ``enumerate`` index, a literal tuple of numbers), joined by commas."""
        if not isinstance(node, (cst.For, cst.CompFor)):
            return "*"
        it = node.iter
        names: List[str] = []
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range":
            names = [n.value for n in assigned_names(node.target)]
        elif isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "enumerate":
            if isinstance(node.target, cst.Tuple) and node.target.elements:
                names = [n.value for n in assigned_names(node.target.elements[0].value)]
        else:
            elements = literal_elements(it)
            if elements and all(isinstance(e, (cst.Integer, cst.Float)) or int_value(e) is not None
                                for e in elements):
                names = [n.value for n in assigned_names(node.target)]
            elif self._python_numbers(it, node):
                names = [n.value for n in assigned_names(node.target)]
        return ",".join(names) or "*"

    def _python_numbers(self, it: cst.BaseExpression, loop: cst.CSTNode) -> bool:
        """``it`` (or the one value a name of the function around ``loop`` is bound to) is a NumPy range's
        ``.tolist()`` -- ``np.linspace(0.2, 3.0, n).tolist()``, ``np.arange(...)``: Python numbers, each
        another value."""
        if isinstance(it, cst.Name):
            # (the walk is under way: the name's one binding, a plain assignment, in the function around the loop)
            holder = self.parents.get(id(loop))
            while holder is not None and not isinstance(holder, (cst.FunctionDef, cst.Module)):
                holder = self.parents.get(id(holder))
            if isinstance(holder, cst.FunctionDef) and it.value in {p.name.value for p, _ in params_of(holder.params)}:
                return False  # (a parameter: what the caller passes)
            binders: List[cst.CSTNode] = []  # (every binding of the name in that body, its functions' aside)
            stack: List[cst.CSTNode] = [holder.body] if isinstance(holder, cst.FunctionDef) else \
                list(getattr(holder, "body", ()))
            while stack:
                node = stack.pop()
                if type(node) in BINDING_NODES and it.value in bound_by(node):
                    binders.append(node)
                if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    stack.extend(iter_children(node))
            if len(binders) != 1:
                return False  # (bound more than once, or some other way)
            assign = binders[0]
            it = assign.value if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None
        if not (isinstance(it, cst.Call) and not it.args and isinstance(it.func, cst.Attribute)
                and it.func.attr.value == "tolist" and isinstance(it.func.value, cst.Call)):
            return False
        return self.qualify(it.func.value.func) in ("numpy.linspace", "numpy.arange", "numpy.logspace",
                                                    "numpy.geomspace")

    def comprehension_markers(self, comprehension: cst.CSTNode) -> Tuple[str, ...]:
        """The loop markers (see :meth:`_loop_marker`) of each ``for`` of a comprehension."""
        out: List[str] = []
        clause = getattr(comprehension, "for_in", None)
        while isinstance(clause, cst.CompFor):
            out.append(self._loop_marker(clause))
            clause = clause.inner_for_in
        return tuple(out)

    def _note_attribute_write(self, node, scope: FunctionInfo) -> None:
        """``self.x = ...`` in a method: the class mutates its instances."""
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
        owner = scope
        while owner.parent is not None:
            if any(p.name.value == "self" for p, _ in owner.params):
                return  # `self` of a method of a class nested in a function: that object's attribute
            owner = owner.parent
        if owner.cls is None:
            return
        for t in (single for target in targets for single in unpacked_targets(target)):  # `self.a, self.b = ...`
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                if owner.name in CONSTRUCTION_METHODS or (owner.name == "build" and self.keras_layer(owner.cls)):
                    continue
                owner.cls.mutated_attributes.setdefault(t.attr.value, set()).add(owner.name)

    def _function(self, node: FunctionNode, scope: Optional[FunctionInfo], cls: Optional[ClassInfo],
                  own: Scope) -> FunctionInfo:
        if isinstance(node, cst.FunctionDef):
            name = node.name.value
        else:
            name = "<lambda>"
        if cls is not None:
            qual = f"{cls.name}.{name}"
        elif scope is not None:
            qual = f"{scope.qualname}.<locals>.{name}"
        else:
            qual = name
        info = FunctionInfo(node, name, qual, own, parent=scope, cls=cls if isinstance(node, cst.FunctionDef) else None)
        self.infos[node] = info
        ScopeBuilder.parameters(own, [p for p, _kind in info.params])
        if isinstance(node, cst.FunctionDef):
            for dec in node.decorators:
                d = dec.decorator
                dn = d.value if isinstance(d, cst.Name) else None
                head = d.func if isinstance(d, cst.Call) else d
                if isinstance(head, cst.Name):
                    self.import_time_names.add(head.value)
                if dn == "staticmethod":
                    info.is_static_method = True
            if cls is not None:
                cls.methods.setdefault(name, info)
            elif scope is not None:
                scope.nested[name] = info
            else:
                self.functions.setdefault(name, info)
            if node.decorators:
                self._pending_decorators.append(info)
        return info

    def _note_mutation_call(self, call: cst.Call, scope: Optional[FunctionInfo], here: Scope) -> None:
        func = call.func
        if changes_in_place(call, lambda n: self.parents.get(id(n)), jax_api.MUTATING_METHODS,
                            jax_api.NONE_RETURNING_METHODS):
            if isinstance(func.value, cst.Name):
                self.mutated_names.add(func.value.value)
                if scope is not None:
                    self._mutations.append((func.value.value, scope, here, self.mutated_in_functions))

    def _note_mutation_target(self, node: cst.CSTNode, scope: Optional[FunctionInfo], here: Scope) -> None:
        targets: List[cst.CSTNode] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        for t in targets:
            if isinstance(t, (cst.Subscript, cst.Attribute)) and isinstance(t.value, cst.Name):
                self.mutated_names.add(t.value.value)
                if scope is not None:
                    table = self.mutated_in_functions if isinstance(t, cst.Subscript) \
                        else self.attribute_mutated_in_functions
                    self._mutations.append((t.value.value, scope, here, table))
                    if isinstance(t, cst.Attribute):
                        self._attribute_writes.append((t.value.value, t.attr.value, here))

    # --------------------------------------------------------- entry points
    def _factory_result(self, call: cst.Call, scope: Optional[FunctionInfo], cls: Optional[ClassInfo],
                        depth: int) -> Optional[FunctionInfo]:
        """``make_step(2.0)``: the one nested function (or lambda) that a function of this module
        returns on every path, so ``jax.jit(make_step(2.0))`` traces it."""
        if not isinstance(call.func, cst.Name) or self.qualify(call.func) is not None:
            return None
        factory, _ = self.resolve_function(call.func, scope, cls, depth + 1)
        if factory is None or isinstance(factory.node, cst.Lambda):
            return None
        found: Set[FunctionInfo] = set()
        for value in returned_values(factory.node.body):
            if isinstance(value, cst.Lambda):
                info = self.infos.get(value)
            elif isinstance(value, cst.Name) and value.value in factory.nested:
                info = factory.nested[value.value]
            else:
                return None
            if info is None:
                return None
            found.add(info)
        return found.pop() if len(found) == 1 else None

    def resolve_function(self, expr: cst.BaseExpression, scope: Optional[FunctionInfo],
                         cls: Optional[ClassInfo], depth: int = 0) -> Tuple[Optional[FunctionInfo], bool]:
        """The function an expression names, and whether its first parameter is bound."""
        if isinstance(expr, cst.Lambda):
            return self.infos.get(expr), False
        if isinstance(expr, cst.Name):
            s = scope
            while s is not None:
                if expr.value in s.nested:
                    return self._nested_def_reaching(s, expr.value, expr) or s.nested[expr.value], False
                if expr.value in s.local_names:
                    break  # a parameter or variable of this function hides a def of that name outside it
                s = s.parent
            if s is None and expr.value in self.functions:
                if scope is None and cls is None:
                    reached = self._reaching_def(expr)
                    if reached is not _UNKNOWN:
                        return reached, False
                return self.def_seen_from(expr.value, scope, expr), False
            # an instance of a class of this module, called: its __call__ (`lax.scan(cell, h, xs)`)
            cls_name = self._instance_class(expr.value, scope)
            if cls_name is not None:
                found = self.find_method(self.classes[cls_name], "__call__")
                if found is not None:
                    return found, not found.is_static_method
            # a lambda bound to the name (`absval = lambda x: ...`), or what a factory returns
            value = self.single_value(expr.value, scope)
            if isinstance(value, (cst.Lambda, cst.Call, cst.Name)) and depth < 4:  # (`fn = loss`)
                return self.resolve_function(value, scope, cls, depth + 1)
            return None, False
        if isinstance(expr, cst.Call) and depth < 4:
            return self._factory_result(expr, scope, cls, depth), False
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            owner = expr.value.value
            method = expr.attr.value
            transformed = self.haiku_transformed(expr, scope)
            if transformed is not None and depth < 4:
                return self.resolve_function(transformed[0], scope, cls, depth + 1)[0], False
            enclosing_cls = cls
            s = scope
            while enclosing_cls is None and s is not None:
                enclosing_cls = s.cls
                s = s.parent
            # (`self.prop` of a property is what its getter returns, not the function it is: the getter
            # runs where the attribute is read, and a setter never runs there)
            if owner in ("self", "cls") and enclosing_cls is not None:
                m = self.find_method(enclosing_cls, method)
                if m is not None and not is_accessor(m.node):
                    return m, not m.is_static_method
            elif owner in self.classes:
                found = self.find_method(self.classes[owner], method)
                return (found, False) if found is None or not is_accessor(found.node) else (None, False)
            else:
                # an instance: `jax.jit(model.apply)` binds it (a module-level one, or one the
                # enclosing function makes); a Flax linen module's `apply` runs its __call__
                cls_name = self._instance_class(owner, scope)
                if cls_name is not None:
                    found = self.find_method(self.classes[cls_name], method)
                    if found is None and method == "apply":
                        found = self.find_method(self.classes[cls_name], "__call__")
                    if found is not None and is_accessor(found.node):
                        return None, False
                    return found, found is not None and not found.is_static_method
        return None, False

    def optax_parts(self, expr: cst.BaseExpression, scope: Optional[FunctionInfo]) -> List[FunctionInfo]:
        """``tx.update`` / ``tx.init`` where ``tx`` is bound once to an optax transformation built from ones this
        module defines (``optax.chain(adaptive_grad_clip(0.05), optax.sgd(0.1))``, or the module function's
        result itself): the ``update_fn`` / ``init_fn`` of each function of the module whose every return is
        ``optax.GradientTransformation(init_fn, update_fn)`` (optax 0.2: chain's ``update`` calls each
        part's ``update`` with the updates, its state and the params)."""
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)
                and expr.attr.value in ("update", "init")):
            return []
        value = self.single_value(expr.value.value, scope)
        position = 1 if expr.attr.value == "update" else 0
        found: List[FunctionInfo] = []
        todo = [value] if isinstance(value, cst.Call) else []
        while todo and len(found) < 16:
            call = todo.pop()
            q = self.qualify(call.func) or ""
            if q.startswith("optax."):
                todo.extend(a.value for a in call.args if isinstance(a.value, cst.Call) and not a.star)
                continue
            maker, _ = self.resolve_function(call.func, scope, None)
            if maker is None or not isinstance(maker.node, cst.FunctionDef):
                continue
            made = returned_values(maker.node.body)
            if not made or not all(isinstance(r, cst.Call) and (self.qualify(r.func) or "") in (
                    "optax.GradientTransformation", "optax.GradientTransformationExtraArgs") for r in made):
                continue
            for r in made:
                keyword = "update" if position == 1 else "init"
                given = next((a.value for a in r.args if a.keyword is not None and a.keyword.value == keyword), None)
                plain = [a.value for a in r.args if a.keyword is None and not a.star]
                given = given if given is not None else plain[position] if len(plain) > position else None
                fn, _ = self.resolve_function(given, maker, None) if given is not None else (None, False)
                if fn is not None and fn not in found:
                    found.append(fn)
        return found

    def haiku_transformed(self, expr: cst.BaseExpression, scope: Optional[FunctionInfo]
                          ) -> Optional[Tuple[cst.BaseExpression, int]]:
        """``model.apply`` / ``model.init`` where ``model`` is a Haiku transform (``hk.transform(f)``, with
        ``hk.without_apply_rng`` or ``hk.transform_with_state`` around or instead, bound once or the
        decorator of a def): the function they run, ``f``, and how many positional arguments they take
        before ``f``'s own (haiku 0.0.17: ``apply(params, rng, *args)``, ``apply(params, state, rng,
        *args)`` with state, no rng after ``without_apply_rng``; ``init(rng, *args)``)."""
        if not (isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name)
                and expr.attr.value in ("apply", "init")):
            return None
        name = expr.value.value
        value: Optional[cst.BaseExpression] = self.single_value(name, scope)
        made = None
        if value is None and not any(s is not None and name in s.local_names for s in _enclosing(scope)):
            fn = self.functions.get(name)
            if fn is not None and isinstance(fn.node, cst.FunctionDef):
                quals = [self.qualify(d.decorator) for d in fn.node.decorators]
                if len(quals) == 1 and quals[0] in _HAIKU_TRANSFORMS:
                    made = (cst.Name(name), _HAIKU_TRANSFORMS[quals[0]])
        rng = True
        if made is None and isinstance(value, cst.Call):
            q = self.qualify(value.func)
            if q == "haiku.without_apply_rng" and value.args and isinstance(value.args[0].value, cst.Call):
                rng, value = False, value.args[0].value
                q = self.qualify(value.func)
            if q in _HAIKU_TRANSFORMS and value.args and value.args[0].keyword is None and not value.args[0].star:
                made = (value.args[0].value, _HAIKU_TRANSFORMS[q])
        if made is None:
            return None
        target, leading = made
        if expr.attr.value == "init":
            return target, 1
        return target, leading - (0 if rng else 1)

    def _nested_def_reaching(self, fn: FunctionInfo, name: str, read: cst.CSTNode) -> Optional[FunctionInfo]:
        """Of the several ``def name`` of function ``fn`` (and no other binding of it), the one a read in
        ``fn`` sees in statement order: walking back from the read, block by block outwards, the first
        statement that always binds the name (a def of it, or an ``if`` every arm of which ends up
        binding it: the first of those arms' defs is taken).  A def after the read in a loop around it
        may be seen on the next run of the loop; so may one in an arm that may not run: None there (the
        first def is then taken, as before)."""
        bindings = [b for b in fn.scope.bindings_of(name) if b.binds_value]
        if len(bindings) < 2 or any(b.kind is not BindingKind.FUNCTION for b in bindings):
            return None
        defs = {id(b.node): b.node for b in bindings}
        path = self._block_path(read, fn.node)
        if path is None:
            return None
        for block, index in reversed(path):
            for stmt in reversed(block.body[:index]):
                kind, found = self._binds_def(stmt, defs)
                if kind == "always":
                    return self.infos.get(found[0])
                if kind == "maybe":
                    return None
            owner = self.parents.get(id(block))
            if isinstance(owner, (cst.For, cst.While)) and owner.body is block and any(
                    self._binds_def(stmt, defs)[0] != "no" for stmt in block.body[index + 1:]):
                return None  # (bound later in the loop: seen by the read on the next run)
        return None

    def _binds_def(self, stmt: cst.CSTNode, defs: Dict[int, cst.CSTNode]) -> Tuple[str, List[cst.FunctionDef]]:
        """Whether running ``stmt`` binds a name to one of the defs ``defs`` (by id): "always" (with the defs
        it may leave bound), "maybe", or "no"."""
        if id(stmt) in defs:
            return "always", [stmt]
        if isinstance(stmt, cst.If):
            arms: List[cst.BaseSuite] = [stmt.body]
            tail = stmt.orelse
            while isinstance(tail, cst.If):
                arms.append(tail.body)
                tail = tail.orelse
            results = [self._block_binds(arm, defs) for arm in arms]
            results.append(self._block_binds(tail.body, defs) if tail is not None else ("no", []))
            if all(kind == "always" for kind, _ in results):
                return "always", [node for _, found in results for node in found]
            return ("no", []) if all(kind == "no" for kind, _ in results) else ("maybe", [])
        if isinstance(stmt, cst.With):
            return self._block_binds(stmt.body, defs)
        if isinstance(stmt, (cst.SimpleStatementLine, cst.ClassDef, cst.FunctionDef)):
            return "no", []  # (a def of the name nested in another def or a class binds in that scope)
        holds = any(self._block_path(node, stmt) is not None for node in defs.values())
        return ("maybe", []) if holds else ("no", [])

    def _block_binds(self, block: cst.BaseSuite, defs: Dict[int, cst.CSTNode]) -> Tuple[str, List[cst.FunctionDef]]:
        for stmt in reversed(getattr(block, "body", ())):
            kind, found = self._binds_def(stmt, defs)
            if kind != "no":
                return kind, found
        return "no", []

    def _block_path(self, node: cst.CSTNode, stop: cst.CSTNode) -> Optional[List[Tuple[cst.BaseSuite, int]]]:
        """Where ``node`` is inside ``stop``: for each block around it, outermost first, the block and
        the index of the statement in it that holds ``node``; None when not inside ``stop``."""
        path: List[Tuple[cst.BaseSuite, int]] = []
        child, parent = node, self.parents.get(id(node))
        while parent is not None and parent is not stop:
            if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementSuite)):
                index = next((i for i, stmt in enumerate(parent.body) if stmt is child), None)
                if index is None:
                    return None
                path.append((parent, index))
            child, parent = parent, self.parents.get(id(parent))
        return path[::-1] if parent is stop else None

    def def_seen_from(self, name: str, scope: Optional[FunctionInfo], read: Optional[cst.CSTNode] = None
                      ) -> FunctionInfo:
        """The module-level function ``name`` a read in ``scope`` (or ``read``, in module-level code) sees:
        where the module defines it several times, not one in another arm of an ``if`` run once that
        holds the read (or the definition of the function read from: ``if example == 1: def objective
        ... def step ... elif example == 2: def objective ...`` -- only one arm runs, so ``step`` never
        sees the other ``objective``) where that leaves one; else the last definition."""
        last = self.functions[name]
        outer = scope
        while outer is not None and outer.parent is not None:
            outer = outer.parent
        anchor = outer.node if outer is not None else read  # (a module-level read: where it is)
        if anchor is None:
            return last
        defs = [b.node for b in self.scope_model.module_scope.bindings_of(name) if b.binds_value]
        if len(defs) < 2 or any(not isinstance(node, cst.FunctionDef) for node in defs):
            return last
        seen = [node for node in defs if not self.exclusive_arms(node, anchor)]
        found = self.infos.get(seen[0]) if len(seen) == 1 else None
        return found if found is not None and last.node not in seen else last

    def _arms(self, node: cst.CSTNode) -> Dict[int, int]:
        """For each ``if`` around ``node`` that runs at most once (in no loop and no function, up to the
        module): the arm ``node`` is in (by id: its body, or what its ``else`` / ``elif`` holds)."""
        out: Dict[int, int] = {}
        child, parent = node, self.parents.get(id(node))
        while parent is not None:
            if isinstance(parent, cst.If) and child is not parent.test:
                out[id(parent)] = id(child)
            elif isinstance(parent, (cst.For, cst.While, cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                out.clear()  # (the `if`s inside run again, or run when called: their arms are not exclusive)
            child, parent = parent, self.parents.get(id(parent))
        return out

    def exclusive_arms(self, a: cst.CSTNode, b: cst.CSTNode) -> bool:
        """``a`` and ``b`` are in different arms of one ``if`` that runs once: never both run."""
        arms_a = self._arms(a)
        return any(arms_a.get(key, arm) != arm for key, arm in self._arms(b).items())

    def _reaching_def(self, read: cst.Name):
        """The function a module-level read of a name sees where the module binds the name more than
        once (see module_reaching): a def or a lambda bound to it, through rebindings that wrap it
        (``f = jax.jit(f)``); None for another value (``f = make()``); ``_UNKNOWN`` where statement
        order does not decide."""
        for _ in range(8):
            binding = self.module_reaching(read.value, read)
            if not isinstance(binding, Binding):
                return _UNKNOWN
            if binding.kind is BindingKind.FUNCTION:
                return self.infos.get(binding.node)
            value = binding.value
            if binding.kind is BindingKind.ASSIGNMENT and isinstance(value, cst.Lambda):
                return self.infos.get(value)
            if binding.kind is not BindingKind.ASSIGNMENT or not isinstance(value, cst.Call) or not value.args \
                    or not isinstance(value.args[0].value, cst.Name) or value.args[0].value.value != read.value:
                return None
            read = value.args[0].value
        return _UNKNOWN

    def _instance_class(self, name: str, scope: Optional[FunctionInfo]) -> Optional[str]:
        """``C`` when ``name`` is bound to an instance of a class ``C`` of this module: by its only
        binding in the function (or module) it resolves to, or a module-level ``name = C(...)``."""
        value = self.single_value(name, scope)
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in self.classes:
            return value.func.value
        info = self.globals.get(name) if value is None else None
        if info is not None and info.instance_of in self.classes and not any(
                s is not None and name in s.local_names for s in _enclosing(scope)):
            return info.instance_of
        return None

    def plain_class(self, name: str, not_a_pytree: bool = False, depth: int = 0, dataclasses_too: bool = False) -> bool:
        """A class of this module (the name bound once) with no metaclass or class keywords, whose
        bases are ``object``, ``typing.Generic`` or such classes: only its own instances and its
        subclasses' pass ``isinstance`` (no ABC or Protocol registers other types).  With
        ``not_a_pytree``, also nothing makes it a pytree: no decorator (with ``dataclasses_too``, but the
        standard library's ``dataclass``, which registers nothing with JAX), no ``__init_subclass__`` in it
        or its bases, and its name given to no call of the module (``register_pytree_node(Cls, ...)``)."""
        cls = self.classes.get(name)
        if cls is None or depth > 8 or cls.node.keywords or self.single_value(name, None) is not None:
            return False
        decorators = [d for d in cls.decorators if not (dataclasses_too and self._stdlib_dataclass(d))]
        if not_a_pytree and (decorators or name in self.names_given_to_calls()
                             or "__init_subclass__" in cls.methods):
            return False  # (`__init_subclass__` may register each subclass as a pytree)
        # (`typing.Generic`, subscripted in the class statement, adds type parameters only: no
        # registration and no metaclass of its own; `abc.ABC` registers no pytree, though its
        # `register` may add virtual subclasses for `isinstance`)
        plain_bases = ("typing.Generic", "abc.ABC") if not_a_pytree else ("typing.Generic",)
        return all(base == "object" or (node is not None and self.qualify(node) in plain_bases)
                   or self.plain_class(base, not_a_pytree, depth + 1, dataclasses_too)
                   for base, node in zip(cls.bases, cls.base_nodes))

    def record_class(self, name: str) -> bool:
        """A class of this module (the name bound once) whose construction only stores its arguments: a
        dataclass (``@dataclass``, ``@chex.dataclass``, ``@struct.dataclass``, called or not) or a
        ``typing.NamedTuple``, with no ``__init__``, ``__post_init__`` or ``__new__`` of its own and no
        base but ``object`` or ``NamedTuple``: equal arguments build equal records, and building one
        runs nothing else."""
        cls = self.classes.get(name)
        if cls is None or cls.node.keywords or self.single_value(name, None) is not None \
                or {"__init__", "__post_init__", "__new__"} & set(cls.methods):
            return False
        named_tuple = [base for base, node in zip(cls.bases, cls.base_nodes)
                       if node is not None and self.qualify(node) == "typing.NamedTuple"]
        if named_tuple:
            return len(cls.bases) == 1 and not cls.decorators
        dataclass = [d for d in cls.decorators
                     if (self.qualify(d.func if isinstance(d, cst.Call) else d) or "").endswith(".dataclass")]
        return len(dataclass) == len(cls.decorators) == 1 and all(base == "object" for base in cls.bases)

    def never_called(self, entry: EntryPoint) -> bool:
        """A wrapper made by a call (``W = jax.jit(f)``) whose name nothing reads: a local of the function
        that makes it, or a global of a module nothing imports (a script, a notebook; in a package, a private
        one: the public names of a package's module are there for others to import), read nowhere else
        in its scope (no ``globals()``, ``eval`` or ``exec`` there either).  Making the wrapper traces
        nothing; only a call of it does, and none can happen."""
        site = entry.site
        assign = self.parents.get(id(site))
        if not (isinstance(site, cst.Call) and isinstance(assign, cst.Assign) and assign.value is site
                and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name)):
            return False
        target = assign.targets[0].target
        owner = self.owner_of(site)
        if isinstance(owner, FunctionInfo):
            if not owner.scope.is_local(target.value):
                return False
            root: cst.CSTNode = owner.node
        elif owner is None and self.never_imported and (target.value.startswith("_") or not self.in_package):
            root = self.module  # (a script's global; a public name of a package's module is its API)
        else:
            return False
        if root is self.module:
            return not self.reaches_names_dynamically() and all(n is target for n in self.mentions(target.value))
        for node in name_references(root):
            if node.value == target.value and node is not target:
                return False
            if node.value in _DYNAMIC_ACCESS:
                return False
        return True

    def reaches_names_dynamically(self) -> bool:
        """The module names ``globals``, ``locals``, ``vars``, ``eval`` or ``exec`` anywhere: a binding may be
        read or written there by a name the code does not spell."""
        return any(self.mentions(name) for name in _DYNAMIC_ACCESS)

    @property
    def main_calls(self) -> Set[cst.Call]:
        """The calls in the module's ``if __name__ == "__main__":`` blocks."""
        return self._main_calls

    def mentions(self, name: str) -> List[cst.Name]:
        """Every ``Name`` node of the module spelled ``name`` (:func:`name_references`, read or bound, in any
        scope), from one walk of the module."""
        if self._mentions is None:
            self._mentions = {}
            for node in name_references(self.module):
                self._mentions.setdefault(node.value, []).append(node)
        return self._mentions.get(name, [])

    def _stdlib_dataclass(self, decorator: cst.BaseExpression) -> bool:
        """``@dataclass`` / ``@dataclasses.dataclass(...)`` of the standard library, whose name every module-level
        binding gives that meaning (not a ``chex.dataclass`` imported in the other branch of ``if
        TYPE_CHECKING:``)."""
        func = decorator.func if isinstance(decorator, cst.Call) else decorator
        if self.qualify(func) != "dataclasses.dataclass":
            return False
        root = func
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        bindings = self.scope_model.module_scope.bindings.get(root.value, [])
        return bool(bindings) and all(b.kind is BindingKind.IMPORT and (b.qualified or "") in (
            "dataclasses", "dataclasses.dataclass") for b in bindings)

    def concrete_final_class(self, name: str) -> bool:
        """A class of this module that is no template for others: no abstract base (``abc.ABC``), no
        ``@abstractmethod``, and no class of this module derives from it (a value annotated with it is an
        instance of it, not of a subclass that may be a pytree)."""
        cls = self.classes.get(name)
        if cls is None:
            return False
        for here in self.ancestors(cls):
            if any(node is not None and self.qualify(node) in ("abc.ABC", "abc.ABCMeta") for node in here.base_nodes):
                return False
            if any(self.qualify(d.decorator) in ("abc.abstractmethod", "abc.abstractproperty")
                   for method in here.methods.values() for d in getattr(method.node, "decorators", ())):
                return False
        return not any(name in other.bases for other in self.classes.values())

    def class_defines(self, name: str, method: str) -> bool:
        """The class ``name`` of this module, or a base class of it in this module, defines ``method``."""
        cls = self.classes.get(name)
        return cls is not None and any(method in here.methods for here in self.ancestors(cls))

    def keras_layer(self, cls: ClassInfo, depth: int = 0) -> bool:
        """A subclass of a Keras layer or model (through the classes of this module): Keras calls its
        ``build(input_shape)`` once, before the first call, so ``build`` is part of its construction."""
        if depth > 10:
            return False
        for base, node in zip(cls.bases, cls.base_nodes):
            q = self.qualify(node) if node is not None else None
            if q is not None and q.startswith(("keras.", "tensorflow.keras.", "tf_keras.")):
                return True
            known = self.classes.get(base)
            if known is not None and known is not cls and self.keras_layer(known, depth + 1):
                return True
        return False

    def names_given_to_calls(self) -> Set[str]:
        """The names passed as arguments of some call of the module (``register_pytree_node(Cls, ...)``
        makes a class a pytree)."""
        if self._names_given is None:
            self._names_given = {a.value.value for call, _, _ in self._pending_calls for a in call.args
                                 if isinstance(a.value, cst.Name)}
        return self._names_given

    def single_value(self, name: str, scope: Optional[FunctionInfo]) -> Optional[cst.BaseExpression]:
        """The value ``name`` certainly has: the one ``name = value`` that binds it in the function
        it resolves to from ``scope`` (or at module level); None when it is a parameter, bound more
        than once or otherwise, or declared ``global`` / ``nonlocal``."""
        for s in _enclosing(scope):
            if s is None:
                break
            own = s.scope
            if name not in own.local and not own.declares(name):
                continue
            if isinstance(s.node, cst.Lambda):
                return None
            return own.single_value(name)
        info = self.globals.get(name)
        if info is None or info.assignments != 1 or not isinstance(info.node, cst.Assign) \
                or name in self.global_written:
            return None
        return info.node.value

    def forwarding_function(self, entry: EntryPoint, call: cst.Call
                            ) -> Optional[Tuple[FunctionInfo, Dict[str, str], List[cst.Call]]]:
        """``call``, a call of ``entry``'s traced function, made in a module-level function that passes
        some of its own parameters on as they came (``def leapfrog(pos, dt): return _leapfrog(pos, dt)``):
        that function, which of the traced function's parameters take which of its own, and the
        module's calls of it by name.  None where the function is bound other than by its one ``def``,
        or no argument is an own parameter that nothing in it rebinds."""
        holder = self.call_scopes.get(call, (None, None))[0]
        if holder is None or holder.parent is not None or holder.cls is not None \
                or not isinstance(holder.node, cst.FunctionDef) or self.functions.get(holder.name) is not holder:
            return None
        info = self.globals.get(holder.name)
        if info is None or info.assignments != 1 or holder.name in self.declared_names \
                or holder.name in self.global_written:
            return None
        own = {p.name.value for p, kind in holder.params if kind in ("posonly", "positional", "kwonly")}
        forwarded: Dict[str, str] = {}
        for arg, param in entry.bind_args(call):
            if param is None or arg.star or not isinstance(arg.value, cst.Name) or arg.value.value not in own:
                continue
            name = arg.value.value
            if name in self.declared_names or any(
                    b.kind is not BindingKind.PARAMETER and b.binds_value for b in holder.scope.bindings_of(name)):
                continue
            forwarded[param.name.value] = name
        if not forwarded:
            return None
        calls = [c for c in self.calls_by_name.get(holder.name, ())
                 if isinstance(c.func, cst.Name) and c.func.value == holder.name]
        return holder, forwarded, calls

    def calls_of_nested_def(self, fn: FunctionInfo) -> Optional[List[cst.Call]]:
        """The calls of ``fn``, a ``def`` nested in a function and bound once there, where every use of its
        name in that function is a call by that name; None where it goes anywhere else (returned, stored,
        passed), so that a caller out of sight may call it."""
        outer = fn.parent
        if outer is None or not isinstance(fn.node, cst.FunctionDef) or not isinstance(outer.node, cst.FunctionDef) \
                or len(outer.scope.bindings_of(fn.name)) != 1:
            return None
        calls: List[cst.Call] = []
        for ref in name_references(outer.node.body, fn.name):
            if ref is fn.node.name:
                continue
            holder = self.parents.get(id(ref))
            if not (isinstance(holder, cst.Call) and holder.func is ref):
                return None
            calls.append(holder)
        return calls

    def calls_of_result(self, call: cst.Call) -> Optional[Tuple[cst.Call, ...]]:
        """The calls that call the function ``call`` returns through the name it is bound to in a
        function body: ``grad_fn = jax.grad(f)``, ``grad_fn = jax.named_call(grad_fn)`` (a wrapper that
        passes its arguments on), then ``grad_fn(params, cfg=cfg)``.  None unless every binding of the
        name in that body is one of those and every read of it is such a call or such a wrapper (the
        function goes nowhere else), and no nested scope reads it."""
        if call not in self._calls_of_result:
            self._calls_of_result[call] = self._find_calls_of_result(call)
        return self._calls_of_result[call]

    def _find_calls_of_result(self, call: cst.Call) -> Optional[Tuple[cst.Call, ...]]:
        scope = self.call_scopes.get(call, (None, None))[0]
        if scope is None or isinstance(scope.node, cst.Lambda):
            return None
        own = scope.scope
        found = [b for bindings in own.bindings.values() for b in bindings if b.value is call]
        if len(found) != 1:
            return None
        name = found[0].name
        if own.declares(name):
            return None
        wrappers = set()
        targets = set()
        for b in own.bindings_of(name):
            value = b.value
            if b.kind is BindingKind.ASSIGNMENT and len(b.node.targets) == 1:
                targets.add(id(b.node.targets[0].target))
            elif b.kind is BindingKind.ANNOTATED and value is not None:
                targets.add(id(b.node.target))  # `grad_fn: GradFn = jax.grad(f)`
            else:
                return None
            if value is call:
                continue
            if not (isinstance(value, cst.Call) and self.qualify(value.func) in jax_api.ARGUMENT_PRESERVING_WRAPPERS
                    and value.args and value.args[0].keyword is None and not value.args[0].star
                    and isinstance(value.args[0].value, cst.Name) and value.args[0].value.value == name):
                return None
            wrappers.add(value.args[0].value)
        calls: List[cst.Call] = []
        skip = targets | {id(w) for w in wrappers}
        stack: List[Tuple[cst.CSTNode, bool]] = [(child, False) for child in iter_children(scope.node.body)]
        while stack:
            node, nested = stack.pop()
            kind = type(node)
            if kind is cst.Name:
                if node.value == name and id(node) not in skip:
                    return None  # read some other way (passed on, returned, stored), or by a nested scope
                continue
            if kind is cst.Call and type(node.func) is cst.Name and node.func.value == name and not nested:
                if any(a.star for a in node.args):
                    return None
                calls.append(node)
                skip.add(id(node.func))
            inner = nested or kind in (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp, cst.SetComp,
                                       cst.DictComp, cst.GeneratorExp)
            if kind is cst.Attribute:
                stack.append((node.value, inner))
                continue
            for child in iter_children(node):
                if not (kind is cst.Arg and child is node.keyword):
                    stack.append((child, inner))
        return tuple(calls) or None

    def owner_of(self, call: cst.Call) -> Owner:
        """The function a call is made in, or the class whose body it is directly in (None: module level)."""
        scope, cls = self.call_scopes.get(call, (None, None))
        return cls.node if cls is not None else scope

    @property
    def declared_names(self) -> Set[str]:
        """Names declared ``global`` or ``nonlocal`` somewhere: their bindings are not all in one scope."""
        if self._declared is None:
            self._declared = set()
            for scope in self.scope_model.scopes.values():
                self._declared |= scope.globals | scope.nonlocals
        return self._declared

    def names_assigned(self, value: cst.BaseExpression) -> List[str]:
        """The names a plain ``name = value`` (or ``name: T = value``) binds to this value node."""
        if self._names_of is None:
            self._names_of = {}
            for scope in self.scope_model.scopes.values():
                for bindings in scope.bindings.values():
                    for b in bindings:
                        if b.value is not None:
                            self._names_of.setdefault(b.value, []).append(b.name)
        return self._names_of.get(value, [])

    def rebound_after(self, name: str, fn: FunctionInfo) -> bool:
        """Module-level code rebinds ``name`` after ``fn`` (its top-level def) exists.

        Rebinding before the function is defined -- ``X = ...; try: X += ...`` at
        import time -- cannot make a trace stale; nor can one after it when no module statement
        traces the function before the last binding: an importer calls it only once the module's
        statements have all run, and that trace reads the last value.
        """
        info = self.globals.get(name)
        if info is None:
            return False
        top = fn
        while top.parent is not None:
            top = top.parent
        node = top.cls.node if top.cls is not None else top.node
        position = self.statement_index.get(node)
        if position is None:
            # a lambda (`f = jax.jit(lambda x: x @ params)`), or a def inside an expression's call: made
            # when the module statement holding it runs; bindings all before that one cannot make it stale
            holder = self._top_statement(node)
            made = self._body_positions().get(id(holder)) if holder is not None else None
            if made is not None and info.last_statement >= made and isinstance(holder, cst.For) \
                    and self._fresh_each_iteration(name, node, holder):
                return False
            if made is not None and info.last_statement >= made and self._replaced_before_use(name, holder, made):
                return False
            if made is not None and isinstance(holder, cst.For) and self._collected_then_used(name, node, holder):
                return False
            if made is not None and info.last_statement >= made and self.never_imported \
                    and self._wrapper_unused_after(holder, min(r for r in info.statements if r >= made)):
                return False
            return made is None or info.last_statement >= made
        if position is not None and info.last_statement > position and self._one_literal_value(name):
            return False  # (`TOL = 1e-11` defined twice: a rebinding that stores the same value)
        if top.cls is None and position is not None and info.last_statement > position:
            first = self._first_trace_of(top.name)
            if first is None or info.last_statement < first:
                # (a script that sets its data up, then runs the jitted loss: traced after; a module whose
                # own statements trace nothing: every trace comes after its import has bound the last value)
                return False
            if self.never_imported and not any(self._traced_after(top.name, r)
                                               for r in info.statements if r > position):
                return False  # (a notebook, a script: no trace made before a rebinding runs after it)
        if top.cls is not None and position is not None and info.last_statement > position:
            first = self._first_use_of_class(top.cls.name, position)
            if first is None or info.last_statement < first:
                return False  # (a notebook that defines a class, sets its data up, then makes the object)
            if self.never_imported and all(r < first or self._class_unused_after(top.cls.name, r)
                                           for r in info.statements if r > position):
                return False  # (a notebook that rebinds the global for another model once this one is done)
        return position is None or info.last_statement > position

    def _first_use_of_class(self, name: str, defined: int) -> Optional[int]:
        """The index of the first module statement after the class ``name`` (defined at ``defined``) that
        names it, or names a module-level function that names it (also through another such function):
        no method of the class can run before an object of it is made or the class is read.  None when
        no module statement does (another module uses the class)."""
        reaching = self._reaching(name)
        for i, stmt in enumerate(self.module.body):
            if i <= defined or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            if any(n.value in reaching for n in name_references(stmt)):
                return i
        return None

    def _class_unused_after(self, name: str, rebinding: int) -> bool:
        """No module statement after ``rebinding`` names the class ``name``, a module-level function or wrapper
        that names it, or an object module-level code made of it (``agent = Agent(...)``) where that binding
        still holds (``agent = dqn.DQN(...)`` before it binds another object): no method of the class runs
        after the rebinding, in a notebook or a script that nothing imports (their own statements are all the
        calls there are). A function that names such an object counts as naming the class."""
        users = set(self._reaching(name))
        made: Dict[str, Set[int]] = {}  # object names -> the assignments binding them to an object of it
        for stmt in self.module.body:
            for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) \
                        and isinstance(_call_root(small.value.func), cst.Name) \
                        and _call_root(small.value.func).value in users:  # type: ignore[union-attr]
                    for target in small.targets:
                        for obj in flat_targets(target.target):
                            if isinstance(obj, cst.Name):
                                made.setdefault(obj.value, set()).add(id(small))
        for obj in made:
            users |= {u for u in self._reaching(obj) if u != obj}  # (functions reading the object)
        for i, stmt in enumerate(self.module.body):
            if i <= rebinding or isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue
            for ref in name_references(stmt):
                if ref.value in users:
                    return False
                if ref.value in made and not isinstance(self.parents.get(id(ref)), cst.AssignTarget):
                    bound = [b for b in self.scope_model.module_scope.bindings_of(ref.value) if b.binds_value]
                    reaching = bound[0] if len(bound) == 1 else self.module_reaching(ref.value, ref)
                    if not isinstance(reaching, Binding) or id(reaching.node) in made[ref.value]:
                        return False
        return True

    def _wrapper_unused_after(self, holder: cst.CSTNode, rebinding: int) -> bool:
        """A notebook's or script's ``W = jax.jit(lambda ...)`` (the module statement ``holder``) whose name is
        read only to call it, and by no module statement after ``rebinding``: every trace of the lambda, and
        every run of it, comes before the global it reads changes (a tutorial's simulator run once)."""
        if not (isinstance(holder, cst.SimpleStatementLine) and len(holder.body) == 1
                and isinstance(holder.body[0], cst.Assign) and len(holder.body[0].targets) == 1
                and isinstance(holder.body[0].targets[0].target, cst.Name)):
            return False
        wrapper = holder.body[0].targets[0].target
        made = self._body_positions().get(id(holder))
        return self._only_called_before(wrapper.value, rebinding, wrapper, depth=0, since=made or 0)

    def _only_called_before(self, name: str, rebinding: int, binding: cst.Name, depth: int, since: int = 0,
                            rebound: Optional[int] = None) -> bool:
        """Every read of the module-level ``name`` calls it (or a transform of it called at once,
        ``jax.vmap(solve)(y0s)``), in a module statement before the one at ``rebinding`` -- or in a module-level function whose own calls all are (``def get_accuracy(): ...
        W(...)``, run in cells before the rebinding only)."""
        # module code after the statement that binds the name again reads the new object (a notebook cell
        # that makes the wrapper anew with the function it changed)
        holder = self._top_statement(binding)
        own = self._body_positions().get(id(holder)) if holder is not None else None
        later = [t for t in (self.globals[name].statements if name in self.globals else []) if own is not None
                 and t > own]
        stop = min(later) if later else None
        # after the statement that binds the name again (or, for a function that calls the wrapper, the one
        # that binds the wrapper's name again: ``rebound``), every read of it, a function's too, finds the
        # new object: a function defined after it cannot be called before it (learnit's `psnr_fn`, made anew
        # with the `mse_fn` made anew in the same cell, and read by a function of that cell)
        if rebound is not None:
            stop = rebound if stop is None else min(stop, rebound)
        for i, stmt in enumerate(self.module.body):
            if i < since and not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                continue  # (module code run before the wrapper is bound reads an earlier value of the name)
            if stop is not None and i > stop:
                continue
            for ref in name_references(stmt, name):
                if ref is binding or self._names_a_local(ref, stmt):
                    continue
                if i == stop and isinstance(self.parents.get(id(ref)), cst.AssignTarget):
                    continue  # (the new binding itself)
                call = self.parents.get(id(ref))
                derived = self._transformed_into(ref, stmt)
                if derived is not None:
                    # (`gradLL = jax.jit(jax.grad(obj))`: each call of the new wrapper traces the function again)
                    if depth > 2 or i >= rebinding or derived.value == name or not self._only_called_before(
                            derived.value, rebinding, derived, depth + 1, since=i):
                        return False
                    continue
                if not (isinstance(call, cst.Call) and call.func is ref) and not self._applied_at_once(ref) \
                        and not self._handed_to_a_run(ref, stmt):
                    return False
                if self._in_kept_lambda(ref, stmt):
                    return False  # (`f = lambda y: W(y)`: the call runs whenever `f` is called)
                if isinstance(stmt, cst.FunctionDef) and ref is not stmt.name:
                    if depth > 2 or stmt.name.value == name \
                            or not self._only_called_before(stmt.name.value, rebinding, stmt.name, depth + 1,
                                                            rebound=stop):
                        return False
                elif i >= rebinding or isinstance(stmt, cst.ClassDef):
                    return False  # (a call in the statement that rebinds it, a loop, runs after it too)
        return True

    def _transformed_into(self, ref: cst.Name, stmt: cst.CSTNode) -> Optional[cst.Name]:
        """``W2 = jax.jit(jax.grad(ref))`` as module statement ``stmt``: the name a chain of JAX transforms of
        ``ref`` (its first argument each) is bound to; None for any other use."""
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1
                and isinstance(stmt.body[0].targets[0].target, cst.Name)):
            return None
        node: cst.CSTNode = ref
        while True:
            arg = self.parents.get(id(node))
            call = self.parents.get(id(arg)) if isinstance(arg, cst.Arg) else None
            if not (isinstance(call, cst.Call) and call.args and call.args[0] is arg and arg.keyword is None
                    and (self.qualify(call.func) or "") in jax_api.WRAPPER_MAKERS):
                return None
            if stmt.body[0].value is call:
                return stmt.body[0].targets[0].target  # type: ignore[return-value]
            node = call

    def _handed_to_a_run(self, ref: cst.Name, stmt: cst.CSTNode) -> bool:
        """``ref`` is an argument of the call that module statement ``stmt`` makes (``train(EF_predictor,
        params, ...)``, or ``out = train(...)``), whose result the module never calls nor calls a method of:
        the callee runs what it is handed there, in that statement; what it returns does not carry it to a
        later statement (a class of this module, whose object may keep it, does not count)."""
        arg = self.parents.get(id(ref))
        call = self.parents.get(id(arg)) if isinstance(arg, cst.Arg) and arg.value is ref and not arg.star else None
        if not isinstance(call, cst.Call) or not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return False
        small = stmt.body[0]
        if isinstance(call.func, cst.Name) and call.func.value in self.classes:
            return False
        if isinstance(small, cst.Expr) and small.value is call:
            return True
        if not (isinstance(small, cst.Assign) and small.value is call):
            return False
        names = [t.value for target in small.targets for t in flat_targets(target.target)]
        if not names or not all(isinstance(t, cst.Name) for target in small.targets
                                for t in flat_targets(target.target)):
            return False
        for use in name_references(self.module):
            if use.value not in names:
                continue
            parent = self.parents.get(id(use))
            if isinstance(parent, cst.Call) and parent.func is use:
                return False
            if isinstance(parent, cst.Attribute) and parent.value is use \
                    and isinstance(self.parents.get(id(parent)), cst.Call):
                return False
        return True

    def _names_a_local(self, ref: cst.Name, stmt: cst.CSTNode) -> bool:
        """``ref`` (in the module statement ``stmt``) names a variable of a function around it, not the
        module's (``def next_loss(...)`` nested in a helper, and its uses there)."""
        child: cst.CSTNode = ref
        node = self.parents.get(id(ref))
        while node is not None and child is not stmt:
            info = self.infos.get(node) if isinstance(node, (cst.FunctionDef, cst.Lambda)) else None
            # (a def's own name, and its decorators and defaults, belong to the scope around it)
            if info is not None and (isinstance(node, cst.Lambda) or child is node.body) \
                    and ref.value in info.local_names:
                return ref.value not in info.global_names  # (`global step`: the module's name)
            child, node = node, self.parents.get(id(node))
        return False

    def _in_kept_lambda(self, ref: cst.CSTNode, stmt: cst.CSTNode) -> bool:
        """``ref`` is inside a lambda of ``stmt`` that is not run where the statement runs: neither called
        itself nor handed to a JAX transform called at once (``jax.grad(lambda y: W(y).sum())(y0)`` is)."""
        node = self.parents.get(id(ref))
        while node is not None and node is not stmt:
            if isinstance(node, cst.Lambda):
                parent = self.parents.get(id(node))
                if not ((isinstance(parent, cst.Call) and parent.func is node) or self._applied_at_once(node)):
                    return True
            node = self.parents.get(id(node))
        return False

    def _applied_at_once(self, ref: cst.BaseExpression) -> bool:
        """``ref`` is the function a JAX transform wraps and the wrapper is called at once
        (``jax.vmap(solve)(y0s)``): the function runs where the statement does, as a call of it would."""
        arg = self.parents.get(id(ref))
        made = self.parents.get(id(arg)) if isinstance(arg, cst.Arg) else None
        if not (isinstance(made, cst.Call) and made.args and made.args[0] is arg and arg.keyword is None
                and not arg.star and self.qualify(made.func) in jax_api.WRAPPER_MAKERS):
            return False
        return made in self.called_immediately

    def _replaced_before_use(self, name: str, holder: cst.CSTNode, made: int) -> bool:
        """A module-level ``W = jax.jit(lambda ...: ...)`` (statement ``made``) whose name is bound again, to
        another wrapper, before anything runs after ``name`` is: the module statements from the first
        rebinding of ``name`` after it up to the one that binds ``W`` again make no call, and nothing
        between reads ``W`` but to call it.  A notebook run as a script, a cell run again: every call of
        the first wrapper comes before ``name`` changes, and the second wrapper is made after it."""
        if not (isinstance(holder, cst.SimpleStatementLine) and len(holder.body) == 1
                and isinstance(holder.body[0], cst.Assign) and len(holder.body[0].targets) == 1
                and isinstance(holder.body[0].targets[0].target, cst.Name)):
            return False
        kept = holder.body[0].targets[0].target.value
        module = self.scope_model.module_scope
        rebound = sorted(at for at, _ in map(self._binding_place, module.bindings_of(name))
                         if at is not None and at > made)
        replaced = min((at for at, direct in map(self._binding_place, module.bindings_of(kept))
                        if direct and at is not None and at > made), default=None)
        if not rebound or replaced is None:
            return False
        body = self.module.body
        for stmt in body[made + 1:replaced]:
            for read in name_references(stmt, kept):
                parent = self.parents.get(id(read))
                if not (isinstance(parent, cst.Call) and parent.func is read):
                    return False  # handed on: the old wrapper may outlive its name
        first = rebound[0]
        return first > replaced or not any_node(body[first:replaced], lambda n: isinstance(n, cst.Call))

    def _collected_then_used(self, name: str, made: cst.CSTNode, top: cst.For) -> bool:
        """A lambda whose wrapper a module-level loop collects (``f.append(jax.jit(lambda x: x @ Qi @ x))``), where
        ``name`` is bound only by statements of that loop's body before the append and the loop reads the list
        only to append to it: no wrapper is called, so none traced, before the loop is done, and every trace
        reads the value ``name`` ends with -- as eager code does (Python's late binding), so the trace holds
        nothing stale.  The loop may stand in an outer module-level loop (a sweep that solves with the wrappers
        it collected) when what can hold the wrappers dies with the outer iteration: the list is made again in
        it before the collecting loop, and every name bound from a holder there is bound again in each
        iteration before it is read, nothing stores a holder elsewhere, and no function reads one (nashopt's
        solve per test: an old wrapper is never called after the next iteration rebinds ``name``; JAX 0.10.2:
        jit equals eager)."""
        wrapper = self.parents.get(id(made))
        while isinstance(wrapper, cst.Arg):
            wrapper = self.parents.get(id(wrapper))  # (the call whose argument it is: `jax.jit(lambda ...)`)
            if not isinstance(wrapper, cst.Call):
                return False
            wrapper = self.parents.get(id(wrapper))
            if isinstance(wrapper, cst.Arg):
                append = self.parents.get(id(wrapper))
                if isinstance(append, cst.Call) and isinstance(append.func, cst.Attribute) \
                        and append.func.attr.value == "append" and isinstance(append.func.value, cst.Name) \
                        and len(append.args) == 1:
                    break
        else:
            return False
        listed = append.func.value.value  # type: ignore[union-attr]
        stmt = self.parents.get(id(append))
        line = self.parents.get(id(stmt)) if isinstance(stmt, cst.Expr) else None
        block = self.parents.get(id(line)) if isinstance(line, cst.SimpleStatementLine) else None
        loop = self.parents.get(id(block)) if isinstance(block, cst.IndentedBlock) else None
        if not isinstance(loop, cst.For) or loop.orelse is not None:
            return False
        at = self._place_in(loop.body, append)
        for binding in self.scope_model.module_scope.bindings.get(name, ()):
            place = self._place_in(loop.body, binding.node)
            if place is None or at is None or place >= at \
                    or not isinstance(loop.body.body[place], cst.SimpleStatementLine):  # type: ignore[union-attr]
                return False  # (bound elsewhere, after the append, or under a condition)
        for ref in name_references(self.module, listed):
            top_of = self._top_statement(ref)
            if self._in_function(ref, top_of) and not self._names_a_local(ref, top_of) \
                    and not isinstance(self.parents.get(id(ref)), cst.Param):
                return False  # a function reading the list may call an old wrapper at any time
            if self._place_in(loop.body, ref) is not None and not (
                    isinstance(self.parents.get(id(ref)), cst.Attribute) and self.parents.get(id(ref)) is append.func):
                return False  # read in the loop: a wrapper may be called before `name` takes its last value
        if loop is top:
            return True  # (every binding of `name` is in the loop: after it, the value stays)
        outer = self.parents.get(id(self.parents.get(id(loop))))
        if outer is not top or self.parents.get(id(loop)) is not top.body or top.orelse is not None:
            return False
        return self._dies_with_iteration(top, loop, {listed})

    def _dies_with_iteration(self, top: cst.For, collecting: cst.For, holders: Set[str]) -> bool:
        """Every name of ``holders`` -- and every name bound in the body of ``top`` from an expression reading
        one (an assignment, a ``for`` over one) -- is bound in the body before it is read there, in the order
        the body is written, is stored nowhere else (no ``lst.append(h)``, ``d[k] = h``, ``obj.a = h``) and is
        read by no function: what one iteration makes is gone when the next one starts."""
        holders = set(holders)
        bound: Set[str] = set()
        targets: Set[int] = set()  # the names that statements of the body bind (not reads)
        body = list(top.body.body) if isinstance(top.body, cst.IndentedBlock) else []

        def bind(names: Iterable[cst.BaseExpression], from_holder: bool) -> bool:
            for t in names:
                if isinstance(t, cst.Name):
                    targets.add(id(t))
                    bound.add(t.value)
                    if from_holder:
                        holders.add(t.value)
                elif from_holder:
                    return False  # (`d[k] = h`, `obj.a = h`: stored where it may outlive the iteration)
            return True

        for stmt in body:
            if stmt is collecting:
                if not holders <= bound:
                    return False  # (the list must be made anew before the loop that fills it)
                continue
            for node in walk(stmt):  # (a function reading a holder is ruled out below)
                if isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                    value = node.value
                    reads = value is not None and any(n.value in holders for n in name_references(value))
                    written = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                    if not bind([t for w in written for t in flat_targets(w)], reads):
                        return False
                elif isinstance(node, (cst.For, cst.CompFor)):
                    reads = any(n.value in holders for n in name_references(node.iter))
                    if not bind(flat_targets(node.target), reads):
                        return False
                elif isinstance(node, cst.Name) and node.value in holders and id(node) not in targets \
                        and not isinstance(self.parents.get(id(node)), cst.AssignTarget):
                    if node.value not in bound or not self._holder_read_ok(node, holders):
                        return False
        for name in holders:
            for ref in name_references(self.module, name):
                top_of = self._top_statement(ref)
                if self._in_function(ref, top_of) and not self._names_a_local(ref, top_of) \
                        and not isinstance(self.parents.get(id(ref)), cst.Param):
                    return False
        return True

    def _holder_read_ok(self, read: cst.Name, holders: Set[str]) -> bool:
        """A read of a holder that keeps it in the iteration: called or a method of it called, an attribute of
        it read, passed to a function named plainly or to one of an imported module, or assigned to names (which
        become holders) -- not handed to a method of another object (``results.append(h)``), which may keep it."""
        node: cst.CSTNode = read
        parent = self.parents.get(id(node))
        while parent is not None and not isinstance(parent, cst.BaseSmallStatement):
            if isinstance(parent, cst.Arg):
                call = self.parents.get(id(parent))
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
                    root = call.func.value
                    while isinstance(root, (cst.Attribute, cst.Subscript, cst.Call)):
                        root = root.value if not isinstance(root, cst.Call) else root.func
                    if not (isinstance(root, cst.Name) and (root.value in holders or all(
                            b.kind is BindingKind.IMPORT
                            for b in self.scope_model.module_scope.bindings_of(root.value)) and
                            self.scope_model.module_scope.bindings_of(root.value))):
                        return False  # (a module's function, `jnp.linalg.norm(h)`, keeps nothing)
            node, parent = parent, self.parents.get(id(parent))
        return isinstance(parent, (cst.Assign, cst.AnnAssign, cst.Expr)) or parent is None

    def _fresh_each_iteration(self, name: str, made: cst.CSTNode, loop: cst.For) -> bool:
        """A lambda made in a module-level ``for`` loop, whose every binding of ``name`` is a statement of the
        loop's body before the one that makes the lambda, and whose wrapper is used only in that iteration:
        it is called where it is made (``jax.jit(lambda x: ...)(y)``), or bound to a name only called,
        and only in the loop (``apply = jax.jit(lambda x: model.apply(p, x))``, then ``apply(x)``).  Each
        iteration makes a new function after binding ``name`` and traces it with that value; the wrappers
        of earlier iterations are never called again."""
        top_loop = loop
        # (a `for` nested in the loop around the lambda's statement: each of its iterations makes it too)
        chain = [loop]
        while True:
            body = chain[-1].body
            at = self._place_in(body, made)
            inner = body.body[at] if at is not None and isinstance(body, cst.IndentedBlock) else None
            if not isinstance(inner, cst.For) or inner.orelse is not None:
                break
            chain.append(inner)
        loop = chain[-1]
        statements = list(loop.body.body) if isinstance(loop.body, cst.IndentedBlock) else []
        holder = self._place_in(loop.body, made)
        if holder is None or loop.orelse is not None:
            return False
        for binding in self.scope_model.module_scope.bindings.get(name, ()):
            if top_loop not in binding.loops:
                continue
            if any(binding.node is outer for outer in chain):
                continue  # (the target of a loop around the lambda: bound as each of its iterations starts)
            at = self._place_in(loop.body, binding.node)
            if at is None or at >= holder or not isinstance(statements[at], cst.SimpleStatementLine):
                return False  # bound after the lambda, or under a condition or a nested block of the loop
        wrapper = self.parents.get(id(made))
        while isinstance(wrapper, cst.Arg):
            call = self.parents.get(id(wrapper))
            if not isinstance(call, cst.Call):
                return False
            outer = self.parents.get(id(call))
            if isinstance(outer, cst.Call) and outer.func is call:
                return True  # called where it is made
            wrapper = outer
        assign = wrapper
        if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)):
            return False
        kept = assign.targets[0].target.value
        assigned_at = self._place_in(loop.body, assign)
        positions = self._body_positions()
        start = positions.get(id(top_loop))
        if start is None:
            return False
        rebound_later = any((positions.get(id(self._top_statement(b.node))) or 0) > start
                            for b in self.scope_model.module_scope.bindings.get(name, ()))
        for read in name_references(self.module, kept):
            if read is assign.targets[0].target:
                continue
            parent = self.parents.get(id(read))
            if isinstance(parent, cst.AssignTarget) and parent.target is read \
                    or isinstance(parent, (cst.FunctionDef, cst.ClassDef)) and parent.name is read:
                continue  # bound again (another wrapper), or a name a def or class binds
            if not (isinstance(parent, cst.Call) and parent.func is read):
                return False  # handed on (stored, passed): an old wrapper may be called after a rebinding
            at = self._place_in(loop.body, read)
            if at is not None:
                if assigned_at is None or at <= assigned_at:
                    return False  # called in the loop before this iteration makes it: the last iteration's
                continue
            top = self._top_statement(read)
            where = positions.get(id(top))
            if where is None or where < start:
                if where is None or (self._in_function(read, top) and rebound_later):
                    return False  # (a function that may run after a later rebinding of `name`)
                continue  # run before the loop: an earlier binding
            if not self._bound_before_in(kept, read, top, start):
                return False  # after the loop, it may call this loop's last wrapper after a rebinding
        return True

    def _bound_before_in(self, name: str, read: cst.Name, top: cst.CSTNode, after: int) -> bool:
        """``name`` is bound again, after module statement ``after``, before ``read`` runs: by a module
        statement between them, or by a simple statement of the body of the loop ``top`` that holds
        ``read``, before the statement holding it."""
        positions = self._body_positions()
        here = positions[id(top)]
        for binding in self.scope_model.module_scope.bindings.get(name, ()):
            stmt = self._top_statement(binding.node)
            at = positions.get(id(stmt))
            if at is None or at <= after:
                continue
            if at < here and stmt is binding.node or (isinstance(stmt, cst.SimpleStatementLine)
                                                       and at < here):
                return True
            if stmt is top and isinstance(top, cst.For) and isinstance(top.body, cst.IndentedBlock):
                bound, used = self._place_in(top.body, binding.node), self._place_in(top.body, read)
                if bound is not None and used is not None and bound < used \
                        and isinstance(top.body.body[bound], cst.SimpleStatementLine):
                    return True
        return False

    def _place_in(self, block: cst.BaseSuite, node: cst.CSTNode) -> Optional[int]:
        """Where in ``block`` the statement holding ``node`` is (None: ``node`` is not in the block)."""
        child, parent = node, self.parents.get(id(node))
        while parent is not None and parent is not block:
            child, parent = parent, self.parents.get(id(parent))
        if parent is None:
            return None
        return next((i for i, stmt in enumerate(block.body) if stmt is child), None)

    def _in_function(self, node: cst.CSTNode, top: Optional[cst.CSTNode]) -> bool:
        """Whether ``node`` is in a function or lambda within the module statement ``top``."""
        return isinstance(top, (cst.FunctionDef, cst.ClassDef)) \
            or any_between(self.parents, node, top, (cst.FunctionDef, cst.Lambda))

    def _traced_after(self, name: str, rebinding: int) -> bool:
        """In a module nothing imports (a notebook, a script: its own statements run it), whether a
        statement after ``rebinding`` may run a trace of the module-level function ``name`` that JAX made
        before it: one that calls the function object (its latest definition before that statement)
        through a wrapper, when a statement between that definition and the rebinding may have traced
        it already.  A function defined anew after the rebinding, or first traced after it, is traced
        with the new value (a notebook cell that redefines the function with the value it reads)."""
        users, tracing, may_trace = self._trace_model(name)
        body = self.module.body
        defined = self.globals[name].statements if name in self.globals else []
        traced_at = [i for i, stmt in enumerate(body)
                     if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and any_node([stmt], may_trace)]

        def reaches(w: str, s: int, depth: int = 0) -> bool:
            """The binding of ``w`` that statement ``s`` sees (its latest before ``s``) names the function
            or one whose binding there reaches it in turn (another definition of the same name may not:
            notebooks redefine; `states = solve(H0)` in a later cell no longer reaches `Ht`)."""
            t = max((t for t in (self.globals[w].statements if w in self.globals else []) if t < s), default=None)
            if t is None:
                return True
            named = {n.value for n in name_references(body[t])} & (users | {name}) - {w}
            if name in named or depth > 8:
                return bool(named)
            return any(reaches(u, t, depth + 1) for u in named)

        for s in traced_at:
            if s <= rebinding:
                continue
            # the names the statement reads (`plot_df = sweep(f)` binds `plot_df`: it calls no earlier one)
            stores = {id(t.target) for small in (body[s].body if isinstance(body[s], cst.SimpleStatementLine) else ())
                      if isinstance(small, cst.Assign) for t in small.targets}
            seen = {n.value for n in name_references(body[s]) if id(n) not in stores}
            called = {w for w in seen & tracing - {name} if reaches(w, s)}
            if name not in seen and not called:
                continue  # (it calls another definition of a name that once reached the function)
            if name not in seen and all(self._fresh_wrapper(w, s, rebinding) for w in called):
                continue  # (`loss_grad_fn = jax.jit(jax.value_and_grad(loss))` made again after the rebinding)
            latest = max((d for d in defined if d < s), default=-1)
            if any(not any(latest <= t < s for t in (self.globals[w].statements if w in self.globals else []))
                   for w in called):
                return True  # (a wrapper made before the function's latest definition)
            if latest > rebinding:
                continue  # defined anew after the rebinding: traced afresh
            after = self._cached_traces(body[s], users, tracing)
            if any(latest < t < rebinding and after & self._cached_traces(body[t], users, tracing)
                   for t in traced_at):
                return True  # traced before the rebinding, run again after it
        return False

    def _cached_traces(self, stmt: cst.CSTNode, users: Set[str], tracing: Set[str]) -> Set[str]:
        """The module-level names reaching the function whose traces JAX may cache when module statement ``stmt``
        runs: the wrappers and decorated functions its calls reach (a jit called inside another trace is cached
        too), and the functions handed on to a transform or a ``lax`` loop (keyed on the function object).  A
        plain function called in a trace is inlined there, cached by none: ``update`` run before a rebinding
        and ``inference`` first run after it share no trace of the helper both call (a script's training loop,
        then its jitted inference)."""
        readers = self._readers()
        starts = {n for n in users if n not in self.functions
                  or (isinstance(self.functions[n].node, cst.FunctionDef) and self.functions[n].node.decorators)}
        found: Set[str] = set()
        seen: Set[str] = set()
        todo: List[Tuple[str, bool]] = []

        def refs(node: cst.CSTNode) -> None:
            for ref in name_references(node):
                if ref.value not in users or self._names_a_local(ref, self.module):
                    continue
                call = self.parents.get(id(ref))
                todo.append((ref.value, not (isinstance(call, cst.Call) and call.func is ref)))

        refs(stmt)
        while todo:
            name, handed = todo.pop()
            if handed or name in starts:
                found.add(name)
            if name in seen or len(seen) > 64:
                continue
            seen.add(name)
            fn = self.functions.get(name)
            if fn is not None and fn.parent is None and fn.cls is None and name in tracing | starts:
                refs(fn.node.body)
            elif fn is None:
                todo.extend((read, True) for read in readers.get(name, ()) if read in users)
        return found

    def _fresh_wrapper(self, wrapper: str, s: int, rebinding: int) -> bool:
        """The binding of ``wrapper`` that module statement ``s`` sees is made after ``rebinding``, as a
        transform of a callable made there too (``jax.jit(jax.value_and_grad(loss))``, ``jax.jit(partial(loss,
        cfg))``, a lambda): JAX keys its trace cache on the callable, and a new one traces anew, reading the
        global's value then.  (``jax.jit(loss)`` made again is not: the cache of ``loss`` gives the old trace.)"""
        made = max((t for t in (self.globals[wrapper].statements if wrapper in self.globals else []) if t < s),
                   default=None)
        line = self.module.body[made] if made is not None and made > rebinding else None
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 \
                or not isinstance(line.body[0], cst.Assign):
            return False
        value = line.body[0].value
        if not (isinstance(value, cst.Call) and value.args and self._transform(value.func)):
            return False
        inner = value.args[0].value
        return isinstance(inner, cst.Lambda) or (isinstance(inner, cst.Call) and self._transform(inner.func))

    def _transform(self, func: cst.BaseExpression) -> bool:
        return (self.qualify(func) or "") in jax_api.WRAPPER_MAKERS | {"functools.partial"}

    def _makes_wrapper(self, func: cst.BaseExpression) -> bool:
        """``func`` returns a wrapper of the function it is given and traces nothing (``jax.jit``,
        ``jax.grad``, ``functools.partial``), also a module function whose body returns such a call of
        its parameter (``def hessian(f): return jacfwd(jacrev(f))``)."""
        if (self.qualify(func) or "") in jax_api.WRAPPER_MAKERS:
            return True
        fn = self.functions.get(func.value) if isinstance(func, cst.Name) else None
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or fn.parent is not None or fn.cls is not None:
            return False
        returned = returned_values(fn.node.body)
        statements = [st for st in fn.node.body.body if not is_docstring(st)] \
            if isinstance(fn.node.body, cst.IndentedBlock) else []
        value = returned[0] if len(returned) == 1 and len(statements) == 1 else None
        while isinstance(value, cst.Call) and (self.qualify(value.func) or "") in jax_api.WRAPPER_MAKERS \
                and value.args:
            value = value.args[0].value
        return isinstance(value, cst.Name) and any(p.name.value == value.value for p, _ in fn.params)

    def _first_trace_of(self, name: str) -> Optional[int]:
        """The index of the first module statement run at import time that may trace the module-level
        function ``name``, or None when none may (its functions run when another module calls them).

        The names that reach it are the functions and module-level wrappers that name it, or name one
        that does.  Of those, calling a wrapper (``step = jax.jit(loss)``), a decorated function, or a
        function whose body may trace it traces; calling a plain function runs it eagerly, tracing
        nothing (``print(misfit(x))`` in a script).  So does calling what a call returns
        (``jax.jit(loss)(x)``), and handing a name that reaches it to a JAX function that traces
        what it is given (``lax.fori_loop(0, n, body, x)``), or a wrapper to anything."""
        if name in self._first_traces:
            return self._first_traces[name]
        _, _, may_trace = self._trace_model(name)
        first: Optional[int] = None
        for i, stmt in enumerate(self.module.body):
            if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and any_node([stmt], may_trace):
                first = i
                break
        self._first_traces[name] = first
        return first

    def _trace_model(self, name: str):
        """For the module-level function ``name``: the names that reach it, those whose call may trace it,
        and a test of whether a node is a call that may trace it (see :meth:`_first_trace_of`)."""
        if name not in self._trace_models:
            self._trace_models[name] = self._make_trace_model(name)
        return self._trace_models[name]

    def _readers(self) -> Dict[str, Set[str]]:
        """The names each module-level function reads, and those a module-level assignment's value reads
        other than as a callee (``step = jax.jit(loss)``: the wrapper reaches ``loss``)."""
        if self._names_read is None:
            self._names_read = {}
            for fn in self.functions.values():
                if fn.parent is None and fn.cls is None:  # (its own variables are not the module's names)
                    # (a parameter's own name is no read of the module's name)
                    self._names_read[fn.name] = {n.value for n in name_references(fn.node)
                                                 if not self._names_a_local(n, fn.node)
                                                 and not (isinstance(self.parents.get(id(n)), cst.Param)
                                                          and self.parents[id(n)].name is n)}
            for stmt in self.module.body:
                for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.Assign):  # `step = jax.jit(loss)`: the wrapper reaches `loss`
                        if self._plain_result(small.value):
                            continue  # (`curve = evaluate(loss, xs)`: a value computed with `loss`, not it)
                        # (`out = loss(x)` holds what the call gave, not a way to call it again; so does
                        # `soln = solver.run(init)` / `y = gp.sample(key)`: what a method computes)
                        called = {id(_call_root(c.func)) for c in calls_in(small.value)
                                  if isinstance(_call_root(c.func), cst.Name)}
                        read = {n.value for n in name_references(small.value) if id(n) not in called}
                        for t in small.targets:
                            if isinstance(t.target, cst.Name):
                                self._names_read.setdefault(t.target.value, set()).update(read)
        return self._names_read

    @property
    def jit_disabled_at_import(self) -> bool:
        """The module runs ``jax.config.update("jax_disable_jit", True)`` as a statement of its own at import, and
        nothing in it sets the flag otherwise: its functions run only once it is imported, with jit disabled for
        the whole process, so ``jax.jit`` and the lax loops and branches run them eagerly on concrete values
        (JAX 0.10.2; ``vmap``, ``grad`` and ``pmap`` still trace)."""
        if self._jit_disabled is None:
            at_import = False
            for stmt in self.module.body:
                for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
                            and self._sets_disable_jit(small.value) is True:
                        at_import = True
            others: List[cst.Call] = []

            def note(node: cst.CSTNode) -> bool:
                if isinstance(node, cst.Call) and (self.qualify(node.func) or "") in (
                        "jax.config.update", "jax.disable_jit") and self._sets_disable_jit(node) is not True:
                    others.append(node)
                return False

            if at_import:
                any_node([self.module], note)
            self._jit_disabled = at_import and not others
        return self._jit_disabled

    def _sets_disable_jit(self, call: cst.Call) -> Optional[bool]:
        """``jax.config.update("jax_disable_jit", True)`` -> True; another value, or ``jax.disable_jit(...)``
        -> False; any other call -> None."""
        q = self.qualify(call.func) or ""
        if q == "jax.disable_jit":
            return False
        if q != "jax.config.update" or len(call.args) != 2 or string_value(call.args[0].value) != "jax_disable_jit":
            return None
        value = call.args[1].value
        return isinstance(value, cst.Name) and value.value == "True"

    def globals_read_by(self, name: str, depth: int = 4) -> Set[str]:
        """The module's names that the module-level function ``name`` reads, and those the module-level functions
        it reads read in turn (``depth`` levels): what a trace of it may find in the module's globals."""
        readers = self._readers()
        out: Set[str] = set()
        todo = [(name, 0)]
        while todo:
            current, level = todo.pop()
            for read in readers.get(current, ()):
                if read in out:
                    continue
                out.add(read)
                if level < depth and read in self.functions and read in readers:
                    todo.append((read, level + 1))
        return out

    def _plain_result(self, value: cst.BaseExpression) -> bool:
        """``value`` is a call of a module-level function of this module that returns no function: no
        ``def`` or lambda in its body, and no ``return`` that gives a parameter as it is or a call of a
        wrapper maker (``jax.jit``, ``functools.partial``...).  What it gives is a value computed with the
        functions it is handed, not a way to call them again."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return False
        fn = self.functions.get(value.func.value)
        if fn is None or fn.parent is not None or fn.cls is not None or not isinstance(fn.node, cst.FunctionDef) \
                or fn.node.decorators or self.globals.get(fn.name) is None or self.globals[fn.name].assignments != 1:
            return False
        if fn.nested or any_node([fn.node.body], lambda n: isinstance(n, (cst.Lambda, cst.Yield))):
            return False
        params = {p.name.value for p, _ in fn.params}
        for returned in returned_values(fn.node.body):
            if returned is None:
                continue
            if isinstance(returned, cst.Name) and returned.value in params:
                return False
            if any(self._makes_wrapper(c.func) for c in calls_in(returned)):
                return False
        return True

    def _reaching(self, name: str) -> Set[str]:
        """``name`` and the module-level functions and names that reach it, to a fixed point."""
        readers = self._readers()
        users = {name}
        grew = True
        while grew:
            grew = False
            for reader, read in readers.items():
                if reader not in users and read & users:
                    users.add(reader)
                    grew = True
        return users

    def _make_trace_model(self, name: str):
        users = self._reaching(name)  # the functions and module-level wrappers that reach it
        # the names whose call may trace it: wrappers (anything but a plain module function) and
        # decorated functions among them, then the functions whose bodies call or hand on those
        tracing = {n for n in users if n not in self.functions
                   or (isinstance(self.functions[n].node, cst.FunctionDef) and self.functions[n].node.decorators)}

        def may_trace(node: cst.CSTNode) -> bool:
            if not isinstance(node, cst.Call):
                return False
            func = node.func
            root = func
            while isinstance(root, cst.Attribute):
                root = root.value
            # (a name a function around the call binds is its own variable, not the module's: `def
            # train(): update = jax.jit(...); update(x)` calls no module-level `update`)
            if isinstance(root, cst.Name) and root.value in tracing and not self._names_a_local(root, self.module):
                return True  # `step(x)`, `step.lower(x)`
            if isinstance(func, cst.Call) and any(n.value in users and not self._names_a_local(n, self.module)
                                                  for n in name_references(func)):
                return True  # `jax.jit(loss)(x)`
            handed = [a.value.value for a in node.args if isinstance(a.value, cst.Name) and a.value.value in users
                      and not self._names_a_local(a.value, self.module)]
            if not handed or self._makes_wrapper(func):
                return False
            return (self.qualify(func) or "").startswith("jax.") or any(n in tracing for n in handed)

        grew = True
        while grew:
            grew = False
            for n in users - tracing:
                fn = self.functions.get(n)
                if fn is not None and any_node([fn.node.body], may_trace):
                    tracing.add(n)
                    grew = True
        return users, tracing, may_trace

    def jax_import_flags(self) -> Set[str]:
        """Module globals that say JAX could be imported: set to True in the body of a module-level
        ``try`` that imports ``jax``, to False only in its handler of ``ImportError`` (or
        ``ModuleNotFoundError``, ``Exception``, a bare ``except``), bound nowhere else.  Where code
        is traced by JAX, the import succeeded: the flag is True there."""
        if self._jax_import_flags is not None:
            return self._jax_import_flags
        found: Set[str] = set()
        for stmt in self.module.body:
            if not isinstance(stmt, cst.Try) or not _imports_jax(stmt.body):
                continue
            caught = [h for h in stmt.handlers if handler_catches(h, _IMPORT_ERRORS)]
            if not caught:
                continue
            set_true = {t.target.value for line in stmt.body.body if isinstance(line, cst.SimpleStatementLine)
                        for small in line.body if isinstance(small, cst.Assign)
                        and isinstance(small.value, cst.Name) and small.value.value == "True"
                        for t in small.targets if isinstance(t.target, cst.Name)}
            for name in set_true:
                bindings = self.scope_model.module_scope.bindings_of(name)
                if self.global_writers.get(name):
                    continue
                false_in_handlers = {id(b.node) for h in caught for b in bindings if _holds(h, b.node, self.parents)}
                if all(isinstance(b.value, cst.Name) and (
                        (b.value.value == "True" and _holds(stmt.body, b.node, self.parents))
                        or (b.value.value == "False" and id(b.node) in false_in_handlers)) for b in bindings):
                    found.add(name)
        self._jax_import_flags = found
        return found

    def _one_literal_value(self, name: str, seen: frozenset = frozenset()) -> bool:
        """Every module-level binding of ``name`` is an assignment of the same literal (a number, a
        string, True / False / None, also negated), or of the same arithmetic of literals and of names
        that are themselves one value so (a notebook's cell that sets its constants again, `omega =
        (m_omega * hbar) / m` then `beta = c / (hbar * omega)`): whichever runs last, the value is one."""
        if name in seen or self.global_writers.get(name) or len(seen) > 8:
            return False
        codes = set()
        reads: Set[str] = set()
        for binding in self.scope_model.module_scope.bindings_of(name):
            value = binding.value if binding.kind is BindingKind.ASSIGNMENT else None
            if not isinstance(binding.node, cst.Assign) or len(binding.node.targets) != 1 or binding.loops \
                    or not _arithmetic_of_names(value, reads):
                return False
            codes.add(self.module.code_for_node(value).strip())
        return len(codes) == 1 and all(self._one_literal_value(read, seen | {name}) for read in reads)

    def attribute_never_assigned(self, name: str, attr: str) -> bool:
        """``name`` is a module-level object whose functions change it only by assigning attributes, none of
        them ``attr``, and ``attr`` is plain data of it: the object is a ``SimpleNamespace`` /
        ``argparse.Namespace``, or an instance of a class of this module with no method, property or
        ``__getattr__`` of that name (which could compute it from attributes that do change).  A read of
        ``name.attr`` then gives the value it was made with."""
        info = self.globals.get(name)
        if info is None or self.mutated_in_functions.get(name) or self.global_writers.get(name) \
                or attr in self.assigned_attributes.get(name, ()) or name in self._setattr_targets():
            return False
        bindings = [b for b in self.scope_model.module_scope.bindings_of(name) if b.binds_value]
        # (bound at module level only -- a script's `config = yaml.safe_load(f)`, then `config = args` --
        # each binding a value whose attributes are plain data)
        return bool(bindings) and all(b.kind is BindingKind.ASSIGNMENT and b.value is not None
                                      and self._plain_data(b.value, attr, 0) for b in bindings)

    def _plain_data(self, value: cst.BaseExpression, attr: str, depth: int) -> bool:
        """``value`` is an object whose attribute ``attr`` is plain data (no method, property or
        ``__getattr__`` computes it): a ``SimpleNamespace`` / ``argparse.Namespace`` (or what an
        ``argparse.ArgumentParser``'s ``parse_args()`` gives), a dict or list (display, ``dict(...)``,
        parsed JSON or YAML), an instance of a plain class of this module without such a member, or a
        module-level name bound once to one of those."""
        if isinstance(value, (cst.Dict, cst.List, cst.Tuple)):
            return True
        if isinstance(value, cst.Name) and depth < 3:
            bound = self.single_value(value.value, None)
            return bound is not None and self._plain_data(bound, attr, depth + 1)
        if not isinstance(value, cst.Call):
            return False
        q = self.qualify(value.func)
        if q in _PLAIN_DATA_MAKERS:
            return True
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value == "parse_args" and isinstance(func.value, cst.Name):
            parser = self.single_value(func.value.value, None)
            return isinstance(parser, cst.Call) and self.qualify(parser.func) == "argparse.ArgumentParser"
        cls = self.classes.get(func.value) if isinstance(func, cst.Name) and q is None else None
        if cls is None or cls.bases and any(base not in ("", "object") for base in cls.bases):
            return False
        return attr not in cls.methods and "__getattr__" not in cls.methods and "__getattribute__" not in cls.methods

    def _setattr_targets(self) -> Set[str]:
        """Names given as the object to ``setattr(obj, ...)`` anywhere in the module."""
        if self._setattr_names is None:
            self._setattr_names = set()
            for call, _, _ in self._pending_calls:
                if isinstance(call.func, cst.Name) and call.func.value in ("setattr", "delattr") and call.args \
                        and isinstance(call.args[0].value, cst.Name):
                    self._setattr_names.add(call.args[0].value.value)
        return self._setattr_names

    def changed_after_import(self, name: str, reader: Optional[FunctionInfo] = None) -> bool:
        """A global that a function changes, other than functions run at import time (before
        ``reader``, the function reading it, is first used at module level).

        Attribute assignment counts only on objects this module constructs
        (``cfg = Config()``), not on objects it imports (``FLAGS = flags.FLAGS``).
        """
        mutators = set(self.mutated_in_functions.get(name, ()))
        info = self.globals.get(name)
        if info is not None and isinstance(info.node, cst.Assign) and isinstance(info.node.value, cst.Call):
            mutators |= self.attribute_mutated_in_functions.get(name, set())
        return self._changed_by_calls(mutators, reader)

    def rebound_by_calls(self, name: str, reader: Optional[FunctionInfo] = None) -> bool:
        """A global that a function rebinds with ``global``, other than a registration API that this
        module's own code never calls (``register_type(t)``: used while importing), and than a
        function run at import time before ``reader`` is first used at module level."""
        if reader is not None and self._bound_once_before_use(name, reader):
            return False
        writers = {w for w in self.global_writers.get(name, set()) if not self._clears_caches_after(w, name)}
        return self._changed_by_calls(writers, reader)

    def _clears_caches_after(self, writer: FunctionInfo, name: str) -> bool:
        """Every binding of global ``name`` in ``writer`` is a statement of its body that a later statement
        of the body follows with ``jax.clear_caches()`` (JORA's ``train_lora``): each trace made before the
        new value is dropped then, and every trace after it reads the new value -- none keeps an old one
        (run on JAX 0.10.2: a second call with another value retraces and uses it)."""
        node = writer.node
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
            return False
        body = list(node.body.body)
        bindings = [b for b in writer.scope.bindings_of(name) if b.binds_value] if writer.scope is not None else []
        if not bindings:
            return False
        clears = [i for i, stmt in enumerate(body) if isinstance(stmt, cst.SimpleStatementLine) and any(
            isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
            and self.qualify(small.value.func) == "jax.clear_caches" for small in stmt.body)]
        if not clears:
            return False
        binding_at = [i for i, stmt in enumerate(body) if name in names_bound_in(stmt)]
        if not binding_at or any(not isinstance(body[i], cst.SimpleStatementLine) for i in binding_at):
            return False  # (a binding inside a block, a loop's: not followed on every path)
        return len(bindings) == len(binding_at) and max(binding_at) < max(clears)

    def _bound_once_before_use(self, name: str, reader: FunctionInfo) -> bool:
        """A global that only one function binds (``global optimize; optimize = optimizer.update`` in
        ``main``), once, in a top-level statement of its body before anything there uses the function
        that reads it (``reader``: by name, or through a function of this module that names it), that
        function called once, from module level and not in a loop, and nothing binds it at module
        level (``optimize: Callable`` declares it): the value a trace reads is the only one it has."""
        top = reader
        while top.parent is not None:
            top = top.parent
        writers = self.global_writers.get(name, set())
        if len(writers) != 1:
            return False
        (writer,) = writers
        node = writer.node
        if writer.parent is not None or writer.cls is not None or not isinstance(node, cst.FunctionDef) \
                or not isinstance(node.body, cst.IndentedBlock):
            return False
        if any(b.binds_value for b in self.scope_model.module_scope.bindings_of(name)):
            return False
        calls = self.calls_by_name.get(writer.name, [])
        if len(calls) != 1 or self.call_scopes.get(calls[0], (None, None))[0] is not None \
                or calls[0] in self.calls_in_loops:
            return False
        body = list(node.body.body)
        binding = [i for i, stmt in enumerate(body) if name in names_bound_in(stmt)]
        if len(binding) != 1 or not isinstance(body[binding[0]], cst.SimpleStatementLine) \
                or sum(1 for b in writer.scope.bindings_of(name) if b.binds_value) != 1:
            return False
        user = top.cls.name if top.cls is not None else top.name

        def uses_reader(n: cst.CSTNode) -> bool:
            if not isinstance(n, cst.Name):
                return False
            if n.value == user:
                return True
            called = self.functions.get(n.value)
            return called is not None and called is not writer \
                and any(True for _ in name_references(called.node, user))

        return not any_node(body[:binding[0] + 1], uses_reader)

    @staticmethod
    def _decorator_like(top: FunctionInfo) -> bool:
        """``top`` is a decorator or makes one: every ``return`` gives its first parameter back
        (``def register(fn): TABLE[fn.__name__] = fn; return fn``) or a function defined in it
        (``def register_impl(prim): def wrap(fn): ...; return wrap``).  A decorator runs where the
        decorated function is defined -- at import, before any trace -- and no function of the module
        calls it (checked where this is asked), so what it stores is there when a trace reads it."""
        if not isinstance(top.node, cst.FunctionDef) or top.cls is not None or not top.params:
            return False
        returned = returned_values(top.node.body)
        first = top.params[0][0].name.value
        return bool(returned) and all(
            isinstance(v, cst.Name) and (v.value == first or v.value in top.nested) for v in returned)

    def _registers_arguments(self, top: FunctionInfo) -> bool:
        """``top`` does nothing but enter what it is given in module tables, or take it out: its statements
        are stores of values made of its parameters (and of the module's classes, functions and imports),
        at a key made of them too, into an item of a global (``_ENVS[name] = ctor``,
        ``_IMPLS[t] = Impl(type=t, flatten=flatten)``),
        ``append`` / ``add`` of such a value, ``TABLE += [t]`` (``TABLE = TABLE + [t]``), ``del TABLE[key]``,
        ``CACHE.clear()``, guards
        that raise, and ``return`` of a parameter -- a registration API, which a program calls while it
        sets up (the module's own functions never calling it is checked where this is asked)."""
        node = top.node
        if not isinstance(node, cst.FunctionDef) or top.cls is not None or not top.params \
                or not isinstance(node.body, cst.IndentedBlock):
            return False
        params = {p.name.value for p, _ in top.params}

        def made_of_arguments(expr: cst.CSTNode) -> bool:
            for ref in name_references(expr):
                if ref.value in params:
                    continue
                info = self.globals.get(ref.value)
                if info is None or info.kind not in ("import", "function", "class"):
                    return False
            return True

        def table(expr: cst.BaseExpression) -> bool:
            return isinstance(expr, cst.Name) and expr.value not in params and expr.value in self.globals

        def given(expr: cst.CSTNode) -> bool:
            """Made of the arguments, and of at least one (``TABLE["scale"] = v`` at a key of its own is a setting)."""
            return made_of_arguments(expr) and any(ref.value in params for ref in name_references(expr))

        stored = False
        for stmt in node.body.body:
            if is_docstring(stmt):
                continue
            if isinstance(stmt, cst.If) and stmt.orelse is None and all(
                    isinstance(inner, cst.SimpleStatementLine) and all(isinstance(x, cst.Raise) for x in inner.body)
                    for inner in stmt.body.body):
                continue  # `if name in TABLE: raise ValueError(...)`
            if not isinstance(stmt, cst.SimpleStatementLine):
                return False
            for small in stmt.body:
                if isinstance(small, cst.Global):
                    continue
                if isinstance(small, cst.Return) and (small.value is None or (
                        isinstance(small.value, cst.Name) and small.value.value in params)):
                    continue
                if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                        and isinstance(small.targets[0].target, cst.Subscript) \
                        and table(small.targets[0].target.value) and given(small.targets[0].target.slice[0]) \
                        and made_of_arguments(small.value):
                    stored = True
                    continue
                if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign) \
                        and table(small.target) and isinstance(small.value, (cst.List, cst.Tuple)) \
                        and given(small.value):
                    stored = True
                    continue
                if isinstance(small, cst.Assign) and len(small.targets) == 1 and table(small.targets[0].target) \
                        and isinstance(small.value, cst.BinaryOperation) and isinstance(small.value.operator, cst.Add) \
                        and isinstance(small.value.left, cst.Name) \
                        and small.value.left.value == small.targets[0].target.value \
                        and isinstance(small.value.right, (cst.List, cst.Tuple)) and given(small.value.right):
                    stored = True  # `TYPES = TYPES + [t]`, as `TYPES += [t]`
                    continue
                if isinstance(small, cst.Del) and isinstance(small.target, cst.Subscript) \
                        and table(small.target.value) and given(small.target.slice[0]):
                    stored = True  # (a deregistration: the entry it was given goes)
                    continue
                call = small.value if isinstance(small, cst.Expr) else None
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and table(call.func.value):
                    method = call.func.attr.value
                    if method in ("append", "add") and len(call.args) == 1 and given(call.args[0].value):
                        stored = True
                        continue
                    if method == "clear" and not call.args:
                        continue
                return False
        return stored

    def _changed_by_calls(self, mutators, reader: Optional[FunctionInfo] = None) -> bool:
        for fn in mutators:
            top = fn
            while top.parent is not None:
                top = top.parent
            if (self._decorator_like(top) or self._registers_arguments(top)) \
                    and not any(scope is not None and called == top.name for scope, called in self.scope_calls):
                continue  # a registration API (`register_impl(prim)(fn)`), not called by this module's code
            if top.cls is not None or top.name not in self.import_time_names:
                return True
            if reader is not None and self._run_after_use(top.name, reader):
                return True
        return False

    def memo_only(self, name: str) -> bool:
        """Global ``name`` is a memo: a dict that every function of this module changes only by
        storing an entry where the code has just found its key missing (``if key not in D:``, after
        ``hit = D.get(key); if hit is not None: return hit`` or ``if key in D: return D[key]``, or
        anywhere under ``if not D:``), by ``setdefault``, or by dropping entries (``clear``, ``pop``,
        ``del``).  A read of it gives what computing the entry again gives, so a trace holding one is
        not stale (what the entry is computed from is read, and checked, where it is computed); and
        no function rebinds it (``global``)."""
        found = self._memos.get(name)
        if found is None:
            info = self.globals.get(name)
            mutators = self.mutated_in_functions.get(name, set())
            found = bool(mutators) and info is not None and isinstance(info.node, (cst.Assign, cst.AnnAssign)) \
                and isinstance(info.node.value, (cst.Dict, cst.Call)) and not self.global_writers.get(name) \
                and all(_memo_block(fn.node.body, name, set(), False, self.module)
                        for fn in mutators if isinstance(fn.node, cst.FunctionDef)) \
                and any(_stores_into(fn.node.body, name) for fn in mutators)  # (only dropping: not a memo)
            self._memos[name] = found
        return found

    def filled_at_import(self, name: str) -> bool:
        """Global ``name`` is a dict that functions of this module change only by filling it while it
        is empty (under ``if not D:``, or after ``if D: return``), and module-level code calls one
        of them at import time before it calls any other function of this module: by the time any
        trace runs it is full, and the filling code never runs again."""
        if not self.memo_only(name):
            return False
        mutators = self.mutated_in_functions.get(name, set())
        if not all(isinstance(fn.node, cst.FunctionDef) and _memo_block(fn.node.body, name, set(), False,
                                                                        self.module, whole=True)
                   for fn in mutators):
            return False
        tops = set()
        for fn in mutators:
            while fn.parent is not None:
                fn = fn.parent
            tops.add(fn)
        names = {top.name for top in tops if top.cls is None}
        for _, _, called in self._module_level_names():
            if called & names:
                return True  # filled here, at import ...
            if called & set(self.functions):
                return False  # ... unless a function of this module (which may trace) runs first
        return False

    def _run_after_use(self, writer: str, reader: FunctionInfo) -> bool:
        """Module-level code calls ``writer`` in a statement after one that uses ``reader``'s
        top-level function (``f(x)`` or ``jax.jit(f)(x)``: a trace may run there, and a write
        after it leaves that trace stale).  Statements that only define or import are not uses."""
        top = reader
        while top.parent is not None:
            top = top.parent
        if top.cls is not None:
            return False
        first_use: Optional[int] = None
        for i, names, called in self._module_level_names():
            if first_use is None and top.name in names:
                first_use = i
            elif first_use is not None and writer in called:
                return True
        return False

    def _module_level_names(self) -> List[Tuple[int, Set[str], Set[str]]]:
        """For each module statement run at import time that is not a def, class or import: its
        index, the names it reads, and the names it calls (``name(...)``)."""
        if self._import_time_uses is None:
            out: List[Tuple[int, Set[str], Set[str]]] = []
            for i, stmt in enumerate(self.module.body):
                if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or (
                        isinstance(stmt, cst.If) and _is_main_guard(stmt.test)):
                    continue
                if isinstance(stmt, cst.SimpleStatementLine) and all(
                        isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body):
                    continue
                names: Set[str] = set()
                called: Set[str] = set()
                stack: List[cst.CSTNode] = [stmt]
                while stack:
                    node = stack.pop()
                    if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                        continue  # defined here, not run here
                    if isinstance(node, cst.Name):
                        names.add(node.value)
                    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
                        called.add(node.func.value)
                    stack.extend(iter_children(node))
                out.append((i, names, called))
            self._import_time_uses = out
        return self._import_time_uses

    def _is_rebound(self, name: str, scope: Optional[FunctionInfo]) -> bool:
        """``f = partial(f, ...)``: the name, where it is read, is bound to a partial, not only the def."""
        s = scope
        while s is not None:
            if name in s.nested or name in s.local_names:
                return any(b.kind is BindingKind.ASSIGNMENT and isinstance(b.node.value, cst.Call)
                           and self.qualify(b.node.value.func) == "functools.partial"
                           for b in s.scope.bindings_of(name))
            s = s.parent
        return name in self.module_partial_names

    def _body_positions(self) -> Dict[int, int]:
        """The index in the module body of each of its statements (by id)."""
        if self._top_index is None:
            self._top_index = {id(stmt): i for i, stmt in enumerate(self.module.body)}
        return self._top_index

    def _top_statement(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement of the module body that holds ``node``."""
        parent = self.parents.get(id(node))
        while parent is not None and not isinstance(parent, cst.Module):
            node, parent = parent, self.parents.get(id(parent))
        return node if parent is not None else None

    def _binding_place(self, binding: Binding) -> Tuple[Optional[int], bool]:
        """The index of the module statement that makes a module-level binding, and whether that
        statement makes it directly (not inside an ``if``/``try``/loop); kept per binding."""
        key = id(binding.node)
        place = self._binding_places.get(key)
        if place is None:
            stmt = self._top_statement(binding.node) if not isinstance(binding.node, cst.Module) else None
            at = self._body_positions().get(id(stmt)) if stmt is not None else None
            direct = stmt is binding.node or (isinstance(stmt, cst.SimpleStatementLine)
                                              and any(small is binding.node for small in stmt.body))
            place = self._binding_places[key] = (at, direct)
        return place

    def module_reaching(self, name: str, read: cst.CSTNode):
        """The module-level binding of ``name`` that a read in module-level code sees, in statement
        order (a notebook-style module that defines ``f``, wraps it, then defines another ``f``):
        the last binding in a statement before the read's, or the read's own statement binding it
        after the read (``f = jax.jit(f)``: the value is read before the name is bound).  None: not
        bound before the read; ``_UNKNOWN`` where order does not decide (a binding inside an
        ``if``/``try``/loop, or in the read's own statement other than around it, or a function
        that rebinds it with ``global``)."""
        module = self.scope_model.module_scope
        bindings = [b for b in module.bindings_of(name) if b.binds_value]
        if len(bindings) < 2 or self.global_writers.get(name):
            return _UNKNOWN
        top = self._top_statement(read)
        where = self._body_positions().get(id(top)) if top is not None else None
        if where is None:
            return _UNKNOWN
        found = None
        for binding in bindings:
            at, direct = self._binding_place(binding)
            if at is None:
                return _UNKNOWN
            if at == where:
                value = getattr(binding.node, "value", None)
                if not (direct and value is not None and _holds(value, read, self.parents)):
                    return _UNKNOWN
                continue
            if at > where:
                continue
            if not direct:
                return _UNKNOWN
            if found is None or at > found[0]:
                found = (at, binding)
        return found[1] if found is not None else None

    def _reaching_partial(self, name: str, scope: Optional[FunctionInfo],
                          read: cst.CSTNode) -> Union[cst.Call, None, object]:
        """Which value a function name rebound by ``name = functools.partial(name, ...)`` has at
        ``read``: the partial call (a read after the rebinding, or from a function nested in the one
        that rebinds it, which runs once the names around it are bound), None for the def itself (a
        read before it), or ``_UNKNOWN`` (bound some other way too, or more than once)."""
        s: Optional[FunctionInfo] = scope
        while s is not None and name not in s.nested and name not in s.local_names:
            s = s.parent
        bindings = s.scope.bindings_of(name) if s is not None else self.scope_model.module_scope.bindings_of(name)
        partials = [b for b in bindings if b.kind is BindingKind.ASSIGNMENT and isinstance(b.value, cst.Call)
                    and self.qualify(b.value.func) == "functools.partial" and b.value.args
                    and isinstance(b.value.args[0].value, cst.Name) and b.value.args[0].value.value == name]
        defs = [b for b in bindings if b.kind is BindingKind.FUNCTION]
        if len(partials) != 1 or len(defs) != 1 or len(bindings) != 2 or partials[0].loops:
            return _UNKNOWN
        rebinding = partials[0].value
        if s is scope:  # read where it is rebound: statement order decides
            body = s.node.body if s is not None else self.module
            order = _statement_order(body, (partials[0].node, read))
            if len(order) != 2:
                return _UNKNOWN
            return rebinding if order[partials[0].node] < order[read] else None
        return rebinding

    def holds_container(self, fn: FunctionInfo, name: str) -> bool:
        """``fn`` binds ``name`` to a list, dict or set literal or comprehension (a plain ``name = [...]``)."""
        return any(b.kind is BindingKind.ASSIGNMENT and b.value is not None and _is_container_literal(b.value, self)
                   for b in fn.scope.bindings_of(name))

    def changed_after_construction(self, cls: ClassInfo) -> Dict[str, Set[str]]:
        """The attributes of ``cls`` that a method may change once an instance exists -> those methods.

        An assignment in a helper that only construction runs sets the starting state, as one in
        ``__init__`` does, so those helpers are left out (see construction_helpers). So is a method
        that stores the same values every run and that construction has already run (see
        rerun_by_construction): running it again changes nothing."""
        if not cls.mutated_attributes:
            return {}
        helpers = self.construction_helpers(cls)
        out: Dict[str, Set[str]] = {}
        for attr, methods in cls.mutated_attributes.items():
            after = methods - helpers
            if after:
                out[attr] = after
        reruns = self.rerun_by_construction(cls, out)
        out = {attr: methods - reruns.get(attr, set()) for attr, methods in out.items()
               if methods - reruns.get(attr, set())}
        return {attr: methods for attr, methods in out.items() if not self._set_once_alike(cls, attr, methods, out)}

    def _set_once_alike(self, cls: ClassInfo, attr: str, writers: Set[str], changes: Dict[str, Set[str]]) -> bool:
        """Construction leaves ``attr`` unset, and each of its writers stores the same value on every run
        (built only from attributes no method changes: ``self.tx = optax.adam(self.cfg.lr)`` in an
        ``init`` called once per run): a trace can only have seen that value, so a later write that
        stores it again leaves nothing stale.

        Construction may also bind it to ``None`` as a placeholder when the class uses it only where
        ``None`` raises (an operand of ``jnp``/``lax`` functions, of arithmetic, indexed, or an attribute
        of it read): a trace that met the placeholder failed and left nothing to reuse. Then writers that
        all store one expression may do so under tests of their arguments (``if keep_structure: self.mask
        = self.make_mask()``): a test decides whether it is stored, not what."""
        from jitlint.analysis.idempotence import assigns_attribute, stores_one_value

        placeholder = False
        for ctor in CONSTRUCTION_METHODS | self.construction_helpers(cls):
            method = cls.methods.get(ctor)
            if method is not None and assigns_attribute(method.node, "self", attr):
                # every binding there a plain `self.<attr> = None` (None from stored_values: another form)
                stores = _stores_of(method.node, attr)
                if not stores or not all(isinstance(v, cst.Name) and v.value == "None" for v in stores) \
                        or not self._none_would_raise(cls, attr):
                    return False
                placeholder = True
        fixed = {a for a in self._attributes_of_class(cls) if a not in changes} - _changed_in_place(cls)
        stored = [v for name in writers if name in cls.methods for v in _stores_of(cls.methods[name].node, attr)]
        one_expression = placeholder and None not in stored \
            and len({self.module.code_for_node(v) for v in stored}) == 1  # type: ignore[arg-type]
        return all(name in cls.methods and stores_one_value(self, cls, cls.methods[name], attr, fixed, one_expression)
                   for name in writers)

    def _none_would_raise(self, cls: ClassInfo, attr: str) -> bool:
        """Every read of ``self.<attr>`` in the methods of ``cls`` fails when it holds ``None``: an argument of
        a ``jax.numpy`` or ``jax.lax`` function, an operand of arithmetic, the value indexed, or an object
        whose (not dunder) attribute is read, or tested by ``if self.<attr> is None: raise ...`` (what follows that
        statement in its method cannot read None). None is read otherwise (tested, passed on, returned)."""
        found = False
        for method in cls.methods.values():
            stack: List[cst.CSTNode] = [method.node.body]
            body = method.node.body.body if isinstance(method.node.body, cst.IndentedBlock) else ()
            for i, stmt in enumerate(body):
                if isinstance(stmt, cst.If) and isinstance(stmt.test, cst.Comparison) \
                        and self._raises_on_none(stmt.test) and isinstance(stmt.test.left, cst.Attribute) \
                        and isinstance(stmt.test.left.value, cst.Name) and stmt.test.left.value.value == "self" \
                        and stmt.test.left.attr.value == attr:
                    stack = list(body[:i + 1])  # (what follows `if self.x is None: raise` reads no None)
                    break
            while stack:
                node = stack.pop()
                stack.extend(iter_children(node))
                if not (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
                        and node.value.value == "self" and node.attr.value == attr):
                    continue
                parent = self.parents.get(id(node))
                if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and parent.value is not node:
                    continue  # bound there, not read
                if isinstance(parent, cst.AssignTarget):
                    continue
                found = True
                if isinstance(parent, cst.BinaryOperation) or \
                        (isinstance(parent, cst.Subscript) and parent.value is node) or \
                        (isinstance(parent, cst.Attribute) and not parent.attr.value.startswith("__")):
                    continue
                call = self.parents.get(id(parent)) if isinstance(parent, cst.Arg) else None
                if isinstance(call, cst.Call) \
                        and (self.qualify(call.func) or "").startswith(("jax.numpy.", "jax.lax.")):
                    continue
                if isinstance(parent, cst.Comparison) and self._raises_on_none(parent):
                    continue  # `if self.mask is None: raise ValueError`
                return False
        return found

    def _raises_on_none(self, test: cst.Comparison) -> bool:
        """``if <x> is None: raise ...`` (the test of an ``if`` whose body starts by raising)."""
        statement = self.parents.get(id(test))
        if not (len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, cst.Is)
                and isinstance(test.comparisons[0].comparator, cst.Name)
                and test.comparisons[0].comparator.value == "None"
                and isinstance(statement, cst.If) and statement.test is test
                and isinstance(statement.body, cst.IndentedBlock)):
            return False
        first = statement.body.body[0]
        return isinstance(first, cst.SimpleStatementLine) and isinstance(first.body[0], cst.Raise)

    def rerun_by_construction(self, cls: ClassInfo, changes: Dict[str, Set[str]]) -> Dict[str, Set[str]]:
        """For each attribute in ``changes`` (attribute -> methods binding it after construction), its
        writer whose later calls store what construction already stored: the attribute's only writer,
        called with no arguments as a statement of its own at the top level of a construction method of
        ``cls`` that binds no such attribute after the call, and whose values depend on nothing but
        attributes no method binds after construction (see idempotence.stores_same_values). An attribute
        another method also binds is left with both: a rerun resets what that method changed (an
        ``init`` that builds ``self.constants`` and resets ``self.regrets`` a step method updates leaves
        ``constants`` as construction made it)."""
        writes: Dict[str, Set[str]] = {}
        for attr, methods in changes.items():
            for name in methods:
                writes.setdefault(name, set()).add(attr)
        fixed = {attr for attr in self._attributes_of_class(cls) if attr not in changes}
        out: Dict[str, Set[str]] = {}
        for name, attrs in writes.items():
            method = cls.methods.get(name)
            own = {attr for attr in attrs if changes[attr] == {name}}
            if method is None or not own:
                continue
            if self._construction_runs_last(cls, name, own) and stores_same_values(self, cls, method, fixed):
                for attr in own:
                    out.setdefault(attr, set()).add(name)
        return out

    @staticmethod
    def _attributes_of_class(cls: ClassInfo) -> Set[str]:
        """Every ``self.x`` the methods of ``cls`` mention."""
        found: Set[str] = set()
        for method in cls.methods.values():
            stack: List[cst.CSTNode] = [method.node]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                    found.add(node.attr.value)
                stack.extend(iter_children(node))
        return found

    def _construction_runs_last(self, cls: ClassInfo, name: str, attrs: Set[str]) -> bool:
        """A construction method of ``cls`` calls ``self.name()`` as a top-level statement, with no
        ``return`` before it, and no statement after it binds ``self.a`` for ``a`` in ``attrs`` or calls another method of ``cls``
        that binds one."""
        rebinders = {m for attr in attrs for m in cls.mutated_attributes.get(attr, ())} - {name}
        for ctor in CONSTRUCTION_METHODS:
            method = cls.methods.get(ctor)
            if method is None or not isinstance(method.node.body, cst.IndentedBlock):
                continue
            body = list(method.node.body.body)
            calls = [i for i, stmt in enumerate(body) if _is_bare_self_call(stmt, name)]
            if not calls:
                continue
            later = body[calls[-1] + 1:]
            if _may_return(body[:calls[0]]) or any(_binds_or_calls(stmt, attrs, rebinders) for stmt in later):
                continue
            return True
        return False

    def construction_helpers(self, cls: ClassInfo) -> Set[str]:
        """The methods of ``cls`` that run only while an instance is being built.

        Such a helper has a private name (``_set_normal``: code outside the module is not meant to call
        it), and every mention of that name in the module is a call ``self.name(...)`` made directly in a
        construction method (``__init__`` and the like, of any class here) or in another such helper of
        ``cls`` -- a chain of helpers works as long as it starts in construction -- or a call on an
        object the calling function has just built (``new = Cls(...)``, then ``new._add(...)``: an
        operator building its result). Anything else makes
        the method callable later: a call from an ordinary method, a call on another object, the bound
        method kept or passed on (``self._cb = self._set_normal``), a call from a function nested in
        ``__init__`` (it may run later), or the name as a string (``getattr(self, "_set_normal")``).
        A method never called here is not a helper either: who calls it cannot be seen.

        ``self.name`` in a class that defines ``name`` itself and shares no instance with ``cls`` (see
        _share_instances) means that class's own method, so it does not count; nor does
        ``super().name`` in a method of ``cls`` or of a class sharing no instance with it (a base
        class's method, reached by an override that runs its parent's setup first).

        Start from every private method and drop, until none changes, those with a mention outside
        construction and the remaining helpers; so helpers that call only one another stay in."""
        found = self._construction_helpers.get(cls)
        if found is not None:
            return found
        references = self._private_name_references()
        helpers = {name for name, method in cls.methods.items()
                   if name.startswith("_") and not name.endswith("__") and method.is_method}

        def in_construction(call: cst.Call) -> bool:
            scope = self.call_scopes.get(call, (None, None))[0]
            if scope is None or scope.cls is None:
                return False
            return scope.name in CONSTRUCTION_METHODS or (scope.cls is cls and scope.name in helpers)

        def elsewhere(name: str, node: cst.CSTNode, owner: Optional[ClassInfo]) -> bool:
            """``self.name`` in another class's method that reaches that class's own ``name``, or
            ``super().name`` in a method of ``cls`` or of a class that shares no instance with it:
            the lookup starts past the method's class in its method resolution order, so it
            reaches a base class's ``name``, never ``cls``'s own (an override that runs its
            parent's setup first)."""
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Call) \
                    and isinstance(node.value.func, cst.Name) and node.value.func.value == "super":
                return owner is not None and (owner is cls or not self._share_instances(owner, cls))
            return (owner is not None and owner is not cls and isinstance(node, cst.Attribute)
                    and isinstance(node.value, cst.Name) and node.value.value == "self"
                    and self.find_method(owner, name) is not None and not self._share_instances(owner, cls))

        def on_new_instance(call: cst.Call) -> bool:
            """``new._add(...)`` where ``new = Cls(...)`` is the calling function's one binding of
            ``new``: the object that function has just built, which nothing else holds yet."""
            func = call.func
            if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
                return False
            scope = self.call_scopes.get(call, (None, None))[0]
            made = self.single_value(func.value.value, scope) if scope is not None else None
            return isinstance(made, cst.Call) and isinstance(made.func, cst.Name) and made.func.value == cls.name

        self._construction_helpers[cls] = set()  # (while the bases are asked: a cycle of modules finds none)
        hooks = self._inherited_construction_hooks(cls)
        changed = True
        while changed:
            changed = False
            for name in sorted(helpers):
                calls = {call.func for call in self.calls_by_name.get("self." + name, ()) if in_construction(call)}
                calls |= {call.func for call in self.calls_by_name.get("." + name, ()) if on_new_instance(call)}
                if (not calls and name not in hooks) or any(node not in calls and not elsewhere(name, node, owner)
                                    for node, owner in references.get(name, ())):
                    helpers.discard(name)
                    changed = True
        self._construction_helpers[cls] = helpers
        return helpers

    def _inherited_construction_hooks(self, cls: ClassInfo) -> Set[str]:
        """The private methods that a base class of ``cls`` defined in another module of the checked code runs
        only while an instance is built (its ``__init__`` calls ``self._build_heads(...)``, a hook the subclass
        overrides): the override runs then too, whatever this module shows of its calls."""
        out: Set[str] = set()
        if self.resolve_class_elsewhere is None:
            return out
        for base, node in zip(cls.bases, cls.base_nodes):
            if base.split(".")[-1] in self.classes or node is None:
                continue
            qualified = self.qualify(node)
            found = self.resolve_class_elsewhere(qualified) if qualified is not None else None
            if found is None:
                continue
            index, name = found
            base_cls = index.classes.get(name)
            if base_cls is not None and index is not self:
                out |= index.construction_helpers(base_cls)
        return out

    def ancestors(self, cls: ClassInfo) -> List[ClassInfo]:
        """``cls`` and the classes of this module it derives from, by base name."""
        out = [cls]
        todo = [cls]
        while todo:
            for base in todo.pop().bases:
                found = self.classes.get(base.split(".")[-1])
                if found is not None and found not in out:
                    out.append(found)
                    todo.append(found)
        return out

    def _share_instances(self, a: ClassInfo, b: ClassInfo) -> bool:
        """An object of this module can be an instance of both classes: one derives from the other, or a
        class here derives from both (a mixin). Then ``self.name`` in one may reach a method of the other."""
        if self._lineages is None:
            self._lineages = [self.ancestors(c) for c in self.classes.values()]
        return any(a in lineage and b in lineage
                   for lineage in [self.ancestors(a), self.ancestors(b)] + self._lineages)

    def _private_name_references(self) -> Dict[str, List[Tuple[cst.CSTNode, Optional[ClassInfo]]]]:
        """Every mention of a private name (``_x``) in the module -> the node, with the class whose
        method (or a function inside one) it is in: the attribute (``obj._x``, the whole
        ``Attribute``), the plain name, or a string holding it. The name a ``def`` or ``class``
        statement gives is not a mention."""
        if self._private_references is None:
            found: Dict[str, List[Tuple[cst.CSTNode, Optional[ClassInfo]]]] = {}
            stack: List[Tuple[cst.CSTNode, Optional[ClassInfo]]] = [(self.module, None)]
            while stack:
                node, owner = stack.pop()
                if isinstance(node, cst.Attribute):
                    if node.attr.value.startswith("_"):
                        found.setdefault(node.attr.value, []).append((node, owner))
                    stack.append((node.value, owner))
                    continue
                if isinstance(node, cst.Name):
                    if node.value.startswith("_"):
                        found.setdefault(node.value, []).append((node, owner))
                    continue
                if isinstance(node, cst.SimpleString):
                    text = string_value(node)
                    if text is not None and text.startswith("_"):
                        found.setdefault(text, []).append((node, owner))
                    continue
                if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                    if isinstance(node, cst.FunctionDef):
                        info = self.infos.get(node)
                        inner = info.cls if info is not None and info.cls is not None else owner
                    else:
                        inner = None
                    for child in iter_children(node):
                        if child is node.body:
                            stack.append((child, inner))
                        elif child is not node.name:
                            stack.append((child, owner))
                    continue
                stack.extend((child, owner) for child in iter_children(node))
            self._private_references = found
        return self._private_references

    def overrides(self, cls: ClassInfo, method: str, caller: FunctionInfo) -> List[FunctionInfo]:
        """``self.method(...)`` in ``caller``, a method of ``cls``: the definitions of ``method`` in this
        module's subclasses of ``cls`` (at any depth) that inherit ``caller`` -- on an instance of one,
        ``caller`` runs and ``self.method`` is that subclass's (the base may define none: a template
        method).  A subclass that defines ``caller`` again never runs this one."""
        key = (cls.name, method, id(caller))
        found = self._overrides.get(key)
        if found is None:
            found = []
            for sub in self.classes.values():
                if sub is cls or not self._derives(sub, cls) or self.find_method(sub, caller.name) is not caller:
                    continue
                own = sub.methods.get(method)
                if own is not None and own not in found:
                    found.append(own)
            self._overrides[key] = found
        return found

    def derives(self, sub: ClassInfo, cls: ClassInfo) -> bool:
        """``sub`` is a subclass of ``cls`` through classes of this module."""
        return self._derives(sub, cls)

    def _derives(self, sub: ClassInfo, cls: ClassInfo, depth: int = 0) -> bool:
        """``sub`` is a subclass of ``cls`` through classes of this module."""
        if depth > 10:
            return False
        for base in sub.bases:
            base_cls = self.classes.get(base.split(".")[-1])
            if base_cls is cls or (base_cls is not None and base_cls is not sub
                                   and self._derives(base_cls, cls, depth + 1)):
                return True
        return False

    def find_method(self, cls: ClassInfo, name: str, depth: int = 0) -> Optional[FunctionInfo]:
        if name in cls.methods:
            return cls.methods[name]
        if depth > 10:
            return None
        for base in cls.bases:
            base_cls = self.classes.get(base.split(".")[-1])
            if base_cls is not None and base_cls is not cls:
                found = self.find_method(base_cls, name, depth + 1)
                if found is not None:
                    return found
        return None

    def _static_spec(self, transform: jax_api.Transform, args: Sequence[cst.Arg], includes_function: bool = False,
                     scope: Optional[FunctionInfo] = None):
        """The ``static_argnums``, ``static_argnames`` and the positions ``in_axes`` leaves unbatched (its
        sequence written at the call, or bound once to a name the call reads from ``scope``), and
        whether both static kinds are given."""
        nums: Optional[Tuple[int, ...]] = ()
        names: Optional[Tuple[str, ...]] = ()
        in_axes: Tuple[int, ...] = ()
        kinds = 0
        position = 0 if includes_function else 1
        for arg in args:
            if arg.keyword is None:
                if arg.star == "**":
                    return None, None, (), False
                if not arg.star and position == transform.in_axes_pos and position is not None:
                    in_axes = self._in_axes(self.value_bound_once(arg.value, scope))
                position += 1
                continue
            key = arg.keyword.value
            if key == transform.passes_through_kw:
                return None, None, (), False
            if key in transform.static_argnums_kw:
                kinds |= 1
                nums = self._int_tuple(arg.value)
            elif key in transform.static_argnames_kw:
                kinds |= 2
                names = self._str_tuple(arg.value)
            elif key == transform.in_axes_kw:
                in_axes = self._in_axes(self.value_bound_once(arg.value, scope))
        return nums, names, in_axes, kinds == 3

    def value_bound_once(self, node: cst.BaseExpression, scope: Optional[FunctionInfo]) -> cst.BaseExpression:
        """The value a name certainly has where ``scope`` reads it (``in_axes = (0, None)`` written on the
        line before ``jax.vmap(f, in_axes=in_axes)``); the node itself otherwise."""
        if isinstance(node, cst.Name):
            return self.single_value(node.value, scope) or node
        return node

    @staticmethod
    def _in_axes(node: cst.BaseExpression) -> Tuple[int, ...]:
        """The positions whose ``in_axes`` entry is ``None`` (not batched: a Python value stays one),
        from a literal or a list expression such as ``[0] + [None] * 9``."""
        axes = in_axes_entries(node)
        if axes is None:
            return ()
        return tuple(i for i, is_none in enumerate(axes) if is_none)

    def _resolve_constant(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(node, cst.Name):
            info = self.globals.get(node.value)
            if info is not None and info.assignments == 1 and isinstance(info.node, cst.Assign):
                return info.node.value
        return node

    def _int_tuple(self, node: cst.BaseExpression) -> Optional[Tuple[int, ...]]:
        node = self._resolve_constant(node)
        single = int_value(node)
        if single is not None:
            return (single,)
        elements = literal_elements(node)
        if elements is None:
            return None
        out = []
        for el in elements:
            v = int_value(el)
            if v is None:
                return None
            out.append(v)
        return tuple(out)

    def _str_tuple(self, node: cst.BaseExpression) -> Optional[Tuple[str, ...]]:
        node = self._resolve_constant(node)
        single = string_value(node)
        if single is not None:
            return (single,)
        elements = literal_elements(node)
        if elements is None:
            return None
        out = []
        for el in elements:
            v = string_value(el)
            if v is None:
                return None
            out.append(v)
        return tuple(out)

    def _transform_call(self, call: cst.Call):
        """For ``T(f, kw)`` / ``T(**kw)(f)`` / ``partial(T, kw)(f)``: (transform, kwargs source, target arg).
        ``T(jax.grad(f))`` traces ``f`` itself: grad keeps the signature, and under a staging
        transform every jit failure comes back (JAX_HAZARDS F note 2)."""
        t, kwargs, target = self._transform_call_parts(call)
        while isinstance(target, cst.Call) and (self.qualify(target.func) in jax_api.NON_STAGING
                                                or self._wraps_its_argument(target.func)):
            # `jax.jit(jax.grad(f))`; `jax.jit(with_logging(f))`, as `@jax.jit @with_logging def f`
            inner = [a for a in target.args if a.keyword is None and not a.star]
            if not inner:
                break
            target = inner[0].value
        return t, kwargs, target

    def not_none_at(self, site: cst.CSTNode, scope: FunctionInfo) -> Set[str]:
        """Names of ``scope`` known not to be None where ``site`` runs: an earlier statement of the same
        body ended the path when they were (``if nbrs is None: return allocate(...)``), and no
        statement rebinds them between; a plain alias (``nbrs = neighbors``) shares the fact.  A nested
        function traced from there sees these closure values."""
        node = scope.node
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
            return set()
        known: Set[str] = set()
        aliases: List[Tuple[str, str]] = []
        for stmt in node.body.body:
            if _contains(stmt, site):
                break
            test = stmt.test if isinstance(stmt, cst.If) and stmt.orelse is None else None
            if test is not None and ends_path(stmt.body):
                tested = none_test(test)
                name = tested[0] if tested is not None and tested[1] else None
                if name is not None:
                    known.add(name)
                    known.update(b if a == name else a for a, b in aliases if name in (a, b))
                continue
            for bound in names_bound_in(stmt):
                known.discard(bound)
                aliases = [(a, b) for a, b in aliases if bound not in (a, b)]
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
                    stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1:
                target, value = stmt.body[0].targets[0].target, stmt.body[0].value
                if isinstance(target, cst.Name) and isinstance(value, cst.Name):
                    aliases.append((target.value, value.value))
        return known

    def _around(self, site: cst.CSTNode, root: cst.CSTNode) -> Iterator[Tuple[cst.CSTNode, cst.CSTNode]]:
        """(node, its child that holds ``site``) for each node between ``site`` and ``root`` (the
        function or module it runs in), climbing the parents: no walk of the code around."""
        child = site
        parent = self.parents.get(id(child))
        while parent is not None and child is not root:
            yield parent, child
            if parent is root:
                return
            child, parent = parent, self.parents.get(id(parent))

    def guards_at(self, site: cst.CSTNode, scope: Optional[FunctionInfo]) -> Dict[str, bool]:
        """Conditions on the process's fixed state whose truth is known where ``site`` (a transform
        or a lax call) runs: ``site`` is in the branch of ``if DEBUG:`` or in its ``else``, of ``if
        "X" in os.environ or DEBUG:`` (in the ``else`` both parts are false), the test made only of
        module globals that no function rebinds, imported modules' attributes (``os.environ``),
        ``os.getenv`` / ``os.environ.get`` and literals.  The function traced there reads the same
        state when it is traced: the same test inside it has the same truth (``if DEBUG: <a Python
        loop> else: lax.fori_loop(0, n, body, x)``: ``if DEBUG: print(...)`` in ``body`` never runs
        in its trace).  Keyed by the condition's code, whitespace folded (see ``condition_key``)."""
        root: Optional[cst.CSTNode] = scope.node if scope is not None else self.module
        if root is None or (scope is not None and not isinstance(root, cst.FunctionDef)):
            return {}
        local = scope.local_names if scope is not None else set()
        out: Dict[str, bool] = {}
        for parent, child in self._around(site, root):
            if isinstance(parent, cst.If) and child is not parent.test \
                    and self._fixed_condition(parent.test, local):
                self._note_condition(parent.test, child is parent.body, out)
            if isinstance(parent, cst.IndentedBlock) and scope is not None:
                # `if FAST: return eager(x)` before the site: the condition is false there
                for stmt in parent.body:
                    if stmt is child:
                        break
                    if isinstance(stmt, cst.If) and stmt.orelse is None and ends_path(stmt.body) \
                            and self._fixed_condition(stmt.test, local):
                        self._note_condition(stmt.test, False, out)
        return out

    def _note_condition(self, test: cst.BaseExpression, truth: bool, out: Dict[str, bool]) -> None:
        """``test`` has this truth: so do its parts that decide it (``a or b`` false: both false)."""
        out[condition_key(self.module, test)] = truth
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            self._note_condition(test.expression, not truth, out)
        elif isinstance(test, cst.BooleanOperation) and (
                isinstance(test.operator, cst.Or) and not truth or isinstance(test.operator, cst.And) and truth):
            self._note_condition(test.left, truth, out)
            self._note_condition(test.right, truth, out)

    def _fixed_condition(self, test: cst.BaseExpression, local: Set[str]) -> bool:
        """``test`` reads only state fixed for the process as far as this module shows: module
        globals that no function rebinds (``global``) and that are not locals of the function
        tested in, imported modules and their attributes, ``os.getenv(...)``, literals."""
        stack: List[cst.CSTNode] = [test]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name):
                if node.value in ("True", "False", "None"):
                    continue
                if node.value in local or node.value not in self.globals or self.global_writers.get(node.value) \
                        or self.globals[node.value].kind in ("function", "class"):
                    return False
            elif isinstance(node, cst.Call):
                if self.qualify(node.func) not in ("os.getenv", "os.environ.get") or any(
                        not isinstance(a.value, (cst.SimpleString, cst.Integer, cst.Name)) for a in node.args):
                    return False
                stack.extend(a.value for a in node.args)
            elif isinstance(node, cst.Attribute):
                root: cst.BaseExpression = node
                while isinstance(root, cst.Attribute):
                    root = root.value
                # an imported module's attribute (`os.environ`, `config.DEBUG`); not an object's
                if not isinstance(root, cst.Name) or root.value in local or root.value not in self.globals \
                        or self.globals[root.value].kind != "import":
                    return False
            elif isinstance(node, cst.Subscript):
                if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index) \
                        or not isinstance(node.slice[0].slice.value, (cst.SimpleString, cst.Integer)):
                    return False
                stack.append(node.value)
            elif isinstance(node, (cst.Comparison, cst.BooleanOperation, cst.UnaryOperation)):
                stack.extend(iter_children(node))
            elif isinstance(node, (cst.ComparisonTarget, cst.BaseCompOp, cst.BaseBooleanOp, cst.BaseUnaryOp,
                                   cst.SimpleString, cst.Integer, cst.Float, cst.LeftParen, cst.RightParen,
                                   cst.BaseParenthesizableWhitespace)):
                stack.extend(iter_children(node))
            else:
                return False
        return True

    def flags_at(self, site: cst.CSTNode, scope: FunctionInfo) -> Dict[str, bool]:
        """Boolean parameters of ``scope`` whose value is known where ``site`` runs: ``site`` is in the
        branch of ``if verbose:`` (True) or in its ``else`` (False), ``verbose`` a parameter annotated
        ``bool`` or defaulting to ``True`` / ``False`` that the function never rebinds.  A nested
        function traced from there sees that value in its closure (``if verbose: <a Python loop over
        step> else: lax.while_loop(cond, step, init)``: the ``if verbose:`` inside ``step`` is dead
        in its trace)."""
        node = scope.node
        if not isinstance(node, cst.FunctionDef):
            return {}
        flags = {p.name.value for p, kind in scope.params if kind in ("posonly", "positional", "kwonly")
                 and _bool_parameter(p)}
        if not flags:
            return {}
        flags -= names_bound_in(node.body)
        out: Dict[str, bool] = {}
        for parent, child in self._around(site, node):
            if isinstance(parent, cst.If) and child is not parent.test:
                test, polarity = parent.test, child is parent.body
                while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                    test, polarity = test.expression, not polarity
                if isinstance(test, cst.Name) and test.value in flags:
                    out[test.value] = polarity
        return out

    def _wraps_its_argument(self, func: cst.BaseExpression) -> bool:
        """``with_logging`` in ``jax.jit(with_logging(f))``: a function whose returned wrapper calls
        the function it was given (a factory such as ``make_step(2.0)`` returns its own function)."""
        wrapper = self.decorator_wrapper(func)
        if wrapper is None or wrapper.parent is None:
            return False
        if wrapper not in self._calls_argument:
            params = [p.name.value for p, kind in wrapper.parent.params if kind in ("posonly", "positional")]
            found = False
            stack: List[cst.CSTNode] = [wrapper.node] if params else []
            while stack and not found:
                node = stack.pop()
                found = isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == params[0]
                stack.extend(iter_children(node))
            self._calls_argument[wrapper] = found
        return self._calls_argument[wrapper]

    def decorator_wrapper(self, func: cst.BaseExpression) -> Optional[FunctionInfo]:
        """For a module-level function of this module that takes a function and returns a wrapper
        (a nested function, the one every ``return`` gives back): that nested function."""
        if not isinstance(func, cst.Name) or func.value not in self.functions:
            return None
        fn = self.functions[func.value]
        if fn not in self._wrappers:
            wrapper = None
            if isinstance(fn.node, cst.FunctionDef) and fn.nested:
                names = {r.value if isinstance(r, cst.Name) else None for r in returned_values(fn.node.body)}
                if len(names) == 1:
                    wrapper = fn.nested.get(names.pop() or "")
            self._wrappers[fn] = wrapper
        return self._wrappers[fn]

    def _transform_call_parts(self, call: cst.Call):
        t = self.transform_of(call.func)
        if t is not None:
            positional = [a for a in call.args if a.keyword is None and not a.star]
            target = positional[0].value if positional else None
            if target is None:
                for a in call.args:
                    if a.keyword is not None and a.keyword.value in ("fun", "f", "func", "fn"):
                        target = a.value
            return t, list(call.args), target
        if isinstance(call.func, cst.Call):
            inner = call.func
            t = self.transform_of(inner.func)
            positional = [a for a in call.args if a.keyword is None and not a.star]
            if t is not None and not any(a.keyword is None and not a.star for a in inner.args):
                return t, list(inner.args), positional[0].value if positional else None
            if self.qualify(inner.func) == "functools.partial" and inner.args:
                t = self.transform_of(inner.args[0].value)
                if t is not None:
                    return t, list(inner.args[1:]), positional[0].value if positional else None
        return None, [], None

    def _decorator_entries(self, info: FunctionInfo) -> None:
        assert isinstance(info.node, cst.FunctionDef)
        for dec in info.node.decorators:
            d = dec.decorator
            t = self.transform_of(d)
            args: List[cst.Arg] = []
            if t is None and isinstance(d, cst.Call):
                t = self.transform_of(d.func)
                args = list(d.args)
                if t is None and self.qualify(d.func) == "functools.partial" and d.args:
                    t = self.transform_of(d.args[0].value)
                    args = list(d.args[1:])
                elif t is not None and any(a.keyword is None for a in args):
                    continue  # e.g. jax.jit(f) used as a decorator: not a decorator factory
            shared = False
            if t is None and isinstance(d, cst.Name):
                t, args = self._transform_partial(d.value, info.parent)
                shared = t is not None
            if t is None:
                continue
            nums, names, in_axes, both = self._static_spec(t, args, scope=info.parent)
            label = "`@" + _short(self.module.code_for_node(d)) + "`"
            calls = [info.name] if not info.is_method else ["self." + info.name]
            # (the static arguments of a shared `name = partial(jax.jit, ...)` are the name's, not
            # this function's alone: no fix edits them)
            self.entries.append(EntryPoint(info, label, dec, t, nums, names, in_axes_static=in_axes,
                                           call_names=tuple(calls), both_static_kinds=both,
                                           scope=info.parent, spec_args=self._spec_args(t, args),
                                           shared_spec=shared, signature_hidden=not self._keeps_signature(info, dec)))
            self._wrapper_entries(info, dec, t, label, bool(nums or names))

    def exception_classes(self, name: str) -> Sequence[cst.BaseExpression]:
        """The classes a module-level name of exception classes holds, for ``except NAME:``: the items of
        the tuples and lists module code binds it to (``_ERRORS = (TypeError, ...)``, ``tuple(_found)``,
        in either branch of an ``if``), and what module code appends to it (``_found.append(...)``).
        Empty when it holds anything else."""
        cache = self._exception_classes
        if name in cache:
            return cache[name]
        cache[name] = []  # (a name built from itself)
        held: List[cst.BaseExpression] = []
        stack: List[cst.CSTNode] = list(self.module.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            bound = (isinstance(node, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name
                                                          for t in node.targets)) \
                or (isinstance(node, cst.AnnAssign) and node.value is not None
                    and isinstance(node.target, cst.Name) and node.target.value == name)
            if bound:
                value = node.value
                if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
                        and value.func.value in ("tuple", "list") and len(value.args) == 1:
                    value = value.args[0].value
                if isinstance(value, (cst.Tuple, cst.List)):
                    held.extend(e.value for e in value.elements)
                elif isinstance(value, cst.Name):
                    held.append(value)  # (another such name: expanded where it is read)
                else:
                    return cache.setdefault(name, [])
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                    and isinstance(node.func.value, cst.Name) and node.func.value.value == name \
                    and node.func.attr.value in ("append", "extend") and len(node.args) == 1:
                arg = node.args[0].value
                if isinstance(arg, (cst.Tuple, cst.List)):
                    held.extend(e.value for e in arg.elements)
                else:
                    held.append(arg)
            else:
                stack.extend(iter_children(node))
        cache[name] = held
        return held

    def filled_by_decorator(self, entry: EntryPoint, param: cst.Param, kind: str) -> bool:
        """A keyword-only parameter without default, which no call seen passes, of a function that a
        decorator not known to keep its signature wraps before the transform traces it (the decorators
        below a transform's own, or all of them where the function is handed to one by name): the
        decorator's wrapper supplies it (``@capture_batched_args def f(x, *, batched_args)``), with a value
        of its own -- not an argument the transform traced."""
        node = entry.function.node
        if kind != "kwonly" or param.default is not None or not isinstance(node, cst.FunctionDef) \
                or not node.decorators:
            return False
        decorators = list(node.decorators)
        if isinstance(entry.site, cst.Decorator):
            if entry.site not in decorators:
                return False
            decorators = decorators[decorators.index(entry.site) + 1:]
        if not decorators or self._decorators_keep_signature(decorators):
            return False
        name = param.name.value
        return not any(arg.keyword is not None and arg.keyword.value == name or arg.star == "**"
                       for call in entry.visible_calls() for arg in call.args)

    def _keeps_signature(self, info: FunctionInfo, dec: cst.Decorator) -> bool:
        """Whether what the decorators below ``dec`` make shows ``info``'s own signature to
        ``inspect.signature``, which JAX checks a static spec against: JAX's own transforms and the
        standard caches (``functools.wraps`` copies it), and a decorator of this module whose wrapper is
        made by ``functools.wraps`` and that sets no ``__signature__``.  Another decorator may return a
        function of any signature (one that adds a keyword and says so in ``__signature__``, or a plain
        ``*args, **kwargs`` wrapper): JAX accepts any name there (measured on JAX 0.10.2)."""
        assert isinstance(info.node, cst.FunctionDef)
        below = list(info.node.decorators)
        return self._decorators_keep_signature(below[below.index(dec) + 1:])

    def _decorators_keep_signature(self, decorators: Sequence[cst.Decorator]) -> bool:
        for inner in decorators:
            d = inner.decorator
            func = d.func if isinstance(d, cst.Call) else d
            q = self.qualify(func) or ""
            if self.transform_of(d) is not None or self.transform_of(func) is not None \
                    or q.startswith("jax.") or q in _SIGNATURE_KEEPING_DECORATORS:
                continue
            wrapper = self.decorator_wrapper(func)
            if wrapper is None or not isinstance(wrapper.node, cst.FunctionDef) or not any(
                    isinstance(w.decorator, cst.Call) and self.qualify(w.decorator.func) == "functools.wraps"
                    for w in wrapper.node.decorators):
                return False
            if wrapper.parent is not None and any_node(
                    [wrapper.parent.node], lambda n: isinstance(n, cst.Attribute) and n.attr.value == "__signature__"):
                return False  # (`wrapped.__signature__ = ...`: it shows the signature it sets)
        return True

    def jitted_by_decorator(self, info: FunctionInfo) -> bool:
        """Whether a decorator of the checked code jits ``info`` (see :meth:`_jitting_decorator`): it
        runs in a trace, and a jit made inside it is traced inline.  (Not analysed as an entry yet.)
        Asked only where it matters, since it may read the module that defines the decorator."""
        known = self._jitted_by_decorator.get(info)
        if known is None:
            known = self._jitted_by_decorator[info] = isinstance(info.node, cst.FunctionDef) and any(
                self.transform_of(d.decorator) is None and self._jitting_decorator(d.decorator) is not None
                for d in info.node.decorators)
        return known

    def _jitting_decorator(self, d: cst.BaseExpression) -> Optional[Tuple[jax_api.Transform, Optional[List[cst.Arg]]]]:
        """``@my_jit`` or ``@jit_with_docstring(static_argnames=[...])``: a function of the checked code
        that applies a jit (``jax.jit(fun, ...)``, any compiling transform) to the function it decorates,
        or a factory whose returned decorator does (also lazily, in the wrapper it returns).  The
        transform, and the arguments of that jit call after the function with a factory's parameters
        replaced by what the decorator passes for them (None: not known)."""
        factory_args: Optional[List[cst.Arg]] = None
        func = d
        if isinstance(d, cst.Call):
            func, factory_args = d.func, list(d.args)
        found = self._helper_definition(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if found is None:
            return None
        index, outer = found
        if not isinstance(outer.node, cst.FunctionDef):
            return None
        decorator = outer.node if factory_args is None else _returned_def(outer.node)
        if decorator is None:
            return None
        params = [p for p, kind in params_of(decorator.params) if kind in ("posonly", "positional")]
        if not params:
            return None
        given = params[0].name.value
        jit_call = _jit_of_parameter(decorator, given, index)
        if jit_call is None:
            return None
        t = index.transform_of(jit_call.func)
        spec: Optional[List[cst.Arg]] = []
        factory_params = params_of(outer.node.params) if factory_args is not None else []
        names_of_factory = {p.name.value: p for p, _ in factory_params}
        for arg in jit_call.args[1:]:
            if arg.keyword is None or arg.star:
                return t, None
            value = arg.value
            if isinstance(value, cst.Name) and value.value in names_of_factory:
                passed = {id(p): a for a, p in bind_arguments(factory_params, factory_args or [])}
                chosen = passed.get(id(names_of_factory[value.value]))
                value = chosen.value if chosen is not None else names_of_factory[value.value].default
                if value is None:
                    return t, None
            if not _is_literal(value):
                return t, None
            spec.append(arg.with_changes(value=value))
        return t, spec

    def _transform_partial(self, name: str, scope: Optional[FunctionInfo]
                           ) -> Tuple[Optional[jax_api.Transform], List[cst.Arg]]:
        """``static_jit = functools.partial(jax.jit, static_argnames=...)``, the one binding of the
        name where ``@static_jit`` reads it: the transform and the arguments the partial binds, as
        ``@partial(jax.jit, static_argnames=...)`` would give them."""
        value = self.single_value(name, scope)
        if isinstance(value, cst.Call) and self.qualify(value.func) == "functools.partial" and value.args \
                and value.args[0].keyword is None and not value.args[0].star:
            t = self.transform_of(value.args[0].value)
            if t is not None and all(a.keyword is not None for a in value.args[1:]):
                return t, list(value.args[1:])
        return None, []

    def _wrapper_entries(self, info: FunctionInfo, dec: cst.Decorator, t: jax_api.Transform, label: str,
                         has_static: bool) -> None:
        """``@jax.jit`` above ``@log_calls``: what jit traces is the wrapper that ``log_calls``
        returns, which calls the decorated function; its own body is traced code too."""
        assert isinstance(info.node, cst.FunctionDef)
        below = list(info.node.decorators)
        below = below[below.index(dec) + 1:]
        for inner in below:
            wrapper = self.decorator_wrapper(inner.decorator)
            if wrapper is None or wrapper.parent is None:
                continue
            deco = wrapper.parent
            params = [p.name.value for p, kind in deco.params if kind in ("posonly", "positional")]
            if not params:
                continue
            nums = names = None if has_static else ()  # static positions of f do not map onto *args
            self.entries.append(EntryPoint(wrapper, label, dec, t, nums, names, scope=deco,
                                           wrapper_of=(deco, params[0], info)))

    def _call_entries(self, call: cst.Call, scope: Optional[FunctionInfo], cls: Optional[ClassInfo]) -> None:
        q = self.qualify(call.func)
        if q is not None and q in jax_api.TRACED_BODIES:
            positional = [a for a in call.args if a.keyword is None and not a.star]
            keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
            short = q.replace("jax.lax.", "lax.")
            for pos, kw in jax_api.TRACED_BODIES[q]:
                arg = positional[pos] if pos < len(positional) else keywords.get(kw)
                if arg is None:
                    continue
                targets = None
                if kw == "branches":
                    branches = arg.value
                    if isinstance(branches, cst.Name):  # `BRANCHES = (f, g)` ... lax.switch(i, BRANCHES, x)
                        branches = self.single_value(branches.value, scope) or branches
                    targets = literal_elements(branches)
                for target in targets if targets is not None else [arg.value]:
                    self._add_target_entry(target, scope, cls, f"`{short}`", call, None, all_traced=True)
            return
        if jax_api.is_callback(q):
            positional = [a for a in call.args if a.keyword is None]
            if positional:
                fn, _ = self.resolve_function(positional[0].value, scope, cls)
                if fn is not None:
                    self.callbacks.add(fn)
            return
        t, kwargs, target = self._transform_call(call)
        if t is None or target is None:
            return
        inner = target
        keeper = self._wrapped_calls.get(call, call if t.name not in jax_api.RETRACES_EVERY_CALL else None)
        while isinstance(inner, cst.Call) and keeper is not None:
            # the transforms inside this one run in its trace, kept by it (or by one around it): a vmap
            # of a vmap keeps nothing
            self._wrapped_calls.setdefault(inner, keeper)
            inner = next((a.value for a in inner.args if a.keyword is None and not a.star), None)
        nums, names, in_axes, both = self._static_spec(t, kwargs, includes_function=kwargs == list(call.args),
                                                       scope=scope)
        label = f"`{_short(self.module.code_for_node(call))}`"
        call_names = tuple(self._assign_targets.get(call, ()))
        self._add_target_entry(target, scope, cls, label, call, t, nums=nums, names=names,
                               in_axes=in_axes, call_names=call_names, both=both,
                               spec_args=self._spec_args(t, kwargs))

    def _jit_disabled_at(self, site: cst.CSTNode) -> bool:
        """``site`` is in the body of a ``with jax.disable_jit():`` of its own function (or of the
        module's code): it runs with jit disabled, so jit and lax loops and branches call their
        functions eagerly, on concrete values (JAX 0.10.2; vmap and grad still trace)."""
        node, child = self.parents.get(id(site)), site
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            if isinstance(node, cst.With) and child is node.body and any(
                    isinstance(item.item, cst.Call) and self.qualify(item.item.func) == "jax.disable_jit"
                    and not item.item.args for item in node.items):
                return True
            node, child = self.parents.get(id(node)), node
        return False

    @staticmethod
    def _spec_args(t: jax_api.Transform, args: Sequence[cst.Arg]) -> Tuple[cst.Arg, ...]:
        keys = set(t.static_argnums_kw) | set(t.static_argnames_kw)
        return tuple(a for a in args if a.keyword is not None and a.keyword.value in keys)

    def _add_target_entry(self, target, scope, cls, label, site, transform, all_traced=False,
                          nums=(), names=(), in_axes=(), call_names=(), both=False, spec_args=()) -> None:
        part_args: Tuple[cst.Arg, ...] = ()
        partial_call = target if isinstance(target, cst.Call) else None
        if isinstance(target, cst.Name) and self._is_rebound(target.value, scope):
            reaching = self._reaching_partial(target.value, scope, site)
            if reaching is _UNKNOWN:
                nums = names = None  # `f = partial(f, ...)` somewhere: which value the name has here is unknown
            partial_call = reaching if isinstance(reaching, cst.Call) else None
        if partial_call is not None and self.qualify(partial_call.func) == "functools.partial" and partial_call.args:
            part_args = tuple(partial_call.args[1:])
            if any(a.star for a in part_args):
                nums = names = None  # bound by **kwargs: which parameters is unknown
            if partial_call is target:
                target = target.args[0].value
        fn, bound = self.resolve_function(target, scope, cls)
        if fn is None:
            return
        transformed = self.haiku_transformed(target, scope)
        leading = transformed[1] if transformed is not None else int(bound and applies_module(target, fn))
        if (transform is None or transform.name.endswith("jit")) and self._jit_disabled_at(site):
            return  # under `jax.disable_jit()` a jit and lax control flow run their function eagerly
        outer = self.called_immediately.get(site) if isinstance(site, cst.Call) else None
        direct: Tuple[cst.Call, ...] = (outer,) if outer is not None else ()
        fresh = isinstance(target, cst.Lambda) and fn.node is target and (
            all_traced or (outer is not None and not call_names)
            or (transform is not None and transform.name in jax_api.APPLIED_AT_ONCE and not call_names))
        self.entries.append(EntryPoint(fn, label, site, transform, nums, names, self_bound=bound,
                                       partial_args=part_args, leading=leading,
                                       all_traced=all_traced, in_axes_static=in_axes,
                                       call_names=call_names, direct_calls=direct,
                                       both_static_kinds=both, scope=scope, spec_args=spec_args,
                                       fresh=fresh))


_DROPPING = frozenset({"clear", "pop", "popitem", "setdefault"})


def _one_iteration_test(test: cst.BaseExpression, loop: cst.CSTNode) -> bool:
    """``counter == <int>`` (either way round) for the iteration counter of the ``for`` loop ``loop`` -- the
    target of ``for i in range(...)`` or the first of ``for i, x in enumerate(...)`` -- that its body never
    binds: true in one iteration at most, so what it guards runs once per run of the loop."""
    if not (isinstance(loop, cst.For) and isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal) and isinstance(loop.iter, cst.Call)
            and isinstance(loop.iter.func, cst.Name)):
        return False
    left, right = test.left, test.comparisons[0].comparator
    if isinstance(left, cst.Integer):
        left, right = right, left
    if not (isinstance(left, cst.Name) and isinstance(right, cst.Integer)):
        return False
    target = loop.target
    if loop.iter.func.value == "enumerate" and isinstance(target, (cst.Tuple, cst.List)) and target.elements:
        counter = target.elements[0].value
    elif loop.iter.func.value == "range":
        counter = target
    else:
        return False
    if not (isinstance(counter, cst.Name) and counter.value == left.value):
        return False
    return counter.value not in names_bound_in(loop.body)


def _stores_of(method: cst.CSTNode, attr: str) -> List[Optional[cst.BaseExpression]]:
    """What the method's own body stores in ``self.<attr>`` (see syntax.stored_values: None for a store of
    another form, unpacked or augmented)."""
    body = method.body if isinstance(method, cst.FunctionDef) else method
    return list(stored_values([body], lambda t: isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name)
                              and t.value.value == "self" and t.attr.value == attr))


def _changed_in_place(cls: ClassInfo) -> Set[str]:
    """The attributes some method of ``cls`` changes without rebinding them: ``self.x.append(v)``,
    ``self.x[k] = v``, ``self.x += v``, ``self.x.y = v`` (outside construction too: what construction
    reads from them may have been different)."""
    out: Set[str] = set()

    def root_attr(node: cst.BaseExpression) -> Optional[str]:
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                return node.attr.value
            node = node.value
        return None

    for method in cls.methods.values():
        stack: List[cst.CSTNode] = [method.node]
        parents: Dict[int, cst.CSTNode] = {}
        while stack:
            n = stack.pop()
            if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
                for t in targets:
                    direct = isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self"
                    found = root_attr(t)
                    if found is not None and (not direct or isinstance(n, cst.AugAssign)):
                        out.add(found)
            elif isinstance(n, cst.Call) and changes_in_place(n, lambda c: parents.get(id(c)),
                                                              jax_api.MUTATING_METHODS, jax_api.NONE_RETURNING_METHODS):
                found = root_attr(n.func.value)
                if found is not None:
                    out.add(found)
            for child in iter_children(n):
                parents[id(child)] = n
                stack.append(child)
    return out


def _memo_block(block: cst.CSTNode, name: str, missing: Set[str], all_missing: bool, module: cst.Module,
                whole: bool = False) -> bool:
    """Every change of dict ``name`` in ``block`` stores an entry whose key the code has just found
    missing (``missing``: the keys' code; ``all_missing``: under ``if not name:``, or after ``if name:
    return``) or drops entries.  With ``whole``, every store is made while ``name`` is empty: the
    dict is filled once, as a whole."""
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else []
    missing = set(missing)
    gets: Dict[str, str] = {}  # `hit = D.get(key)`: hit -> key
    for i, stmt in enumerate(body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue  # its own function, with its own changes
        if isinstance(stmt, cst.If):
            miss = _missing_key(stmt.test, name, gets, module)
            once = _once_guard(stmt, body[i + 1:], module) if miss is None else None
            if once is not None:
                # `if FLAG: return` / `if key in OTHER: return` whose block goes on to set FLAG /
                # OTHER[key]: what follows runs once (for each key), so stores `name`'s entry once
                if not _memo_block(stmt.body, name, missing, all_missing, module, whole):
                    return False
                if once == "":
                    all_missing = True
                else:
                    missing.add(once)
                continue
            if miss is not None and miss[0] == "filled" and _ends_in_return(stmt.body):
                # `if D: return`: what follows in the block runs only while `D` is empty
                if not _memo_block(stmt.body, name, missing, all_missing, module, whole) or (
                        stmt.orelse is not None and not _memo_block(stmt.orelse.body if isinstance(
                            stmt.orelse, cst.Else) else cst.IndentedBlock(body=[stmt.orelse]), name, missing, True,
                            module, whole)):
                    return False
                all_missing = True
                continue
            if miss is not None and _ends_in_return(stmt.body):
                kind, key = miss
                if kind == "hit":  # `if key in D: return ...` / `if hit is not None: return hit`
                    if not _memo_block(stmt.body, name, missing, all_missing, module, whole):
                        return False
                    missing.add(key)
                    if stmt.orelse is not None and not _memo_block(stmt.orelse.body if isinstance(
                            stmt.orelse, cst.Else) else cst.IndentedBlock(body=[stmt.orelse]), name, missing,
                            all_missing, module, whole):
                        return False
                    continue
            inner_missing, inner_all = set(missing), all_missing
            if miss is not None and miss[0] == "miss":
                inner_missing.add(miss[1])
            if (miss is not None and miss[0] == "empty") or (miss is None and _latched_block(stmt, module)):
                inner_all = True  # (under `if not D:`, or under a latch the block sets: filled once)
            if not _memo_block(stmt.body, name, inner_missing, inner_all, module, whole):
                return False
            orelse = stmt.orelse
            if orelse is not None and not _memo_block(orelse.body if isinstance(orelse, cst.Else) else
                                                      cst.IndentedBlock(body=[orelse]), name, missing,
                                                      all_missing, module, whole):
                return False
            continue
        if isinstance(stmt, (cst.For, cst.While, cst.With, cst.Try)):
            parts = [stmt.body] + [h.body for h in getattr(stmt, "handlers", ())]
            for extra in ("orelse", "finalbody"):
                part = getattr(stmt, extra, None)
                if part is not None:
                    parts.append(part.body)
            if not all(_memo_block(part, name, missing, all_missing, module, whole) for part in parts):
                return False
            continue
        if not isinstance(stmt, cst.SimpleStatementLine):
            if _mentions_name(stmt, name):
                return False
            continue
        for small in stmt.body:
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and len(small.targets) == 1 \
                    and isinstance(small.targets[0].target, cst.Name) and _is_method_of(small.value, name, "get") \
                    and small.value.args:
                gets[small.targets[0].target.value] = module.code_for_node(small.value.args[0].value)
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else \
                [small.target] if isinstance(small, (cst.AugAssign, cst.AnnAssign)) else []
            for t in targets:
                if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value == name:
                    if isinstance(small, cst.AugAssign) or len(t.slice) != 1 or \
                            not isinstance(t.slice[0].slice, cst.Index):
                        return False
                    key = module.code_for_node(t.slice[0].slice.value)
                    if not all_missing and (whole or key not in missing):
                        return False
            added = _added_keys(small, name)
            # `SEEN.add(key)` (anywhere in the statement): a set's entry, stored as a dict's is
            if added and not all_missing and (whole or any(module.code_for_node(k) not in missing for k in added)):
                return False
            call = small.value if isinstance(small, cst.Expr) else None
            if _adds_to(call, name) is not None:
                continue
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
                    and isinstance(call.func.value, cst.Name) and call.func.value.value == name \
                    and call.func.attr.value not in _DROPPING and call.func.attr.value not in ("get", "keys",
                                                                                               "values", "items") \
                    and not (all_missing and call.func.attr.value == "update"):
                return False  # (`D.update(table)` while `D` is still to fill: filled once, as a whole)
    return True


def _is_method_of(call: cst.Call, name: str, method: str) -> bool:
    return isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) \
        and call.func.value.value == name and call.func.attr.value == method


def _mentions_name(node: cst.CSTNode, name: str) -> bool:
    stack: List[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value == name:
            return True
        stack.extend(iter_children(n))
    return False


def _ends_in_return(block: cst.BaseSuite) -> bool:
    body = block.body if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else []
    if not body:
        return False
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return isinstance(last.body[-1], (cst.Return, cst.Raise))
    return isinstance(last, (cst.Return, cst.Raise))


def _once_guard(stmt: cst.If, rest: Sequence[cst.CSTNode], module: cst.Module) -> Optional[str]:
    """For ``if FLAG: return`` (``if FLAG is not None: return FLAG``) whose block then sets ``FLAG``,
    "": what follows runs once; for ``if key in OTHER: return ...`` whose block then stores
    ``OTHER[key]`` (or ``OTHER.add(key)``), the key's code: what follows runs once for each key.
    None otherwise (see :func:`stores_state` for where the block may set it)."""
    if stmt.orelse is not None or not _ends_in_return(stmt.body):
        return None
    test = stmt.test
    found = (test.value, None) if isinstance(test, cst.Name) else state_test(test, module, unset=False)
    if found is None:
        return None
    flag, key = found
    if not any(stores_state(small, flag, key, module) for small in top_small_statements(rest)):
        return None
    return "" if key is None or _flag_item(test) is not None else key  # (`DONE[0]`: a latch, once in all)


def _latched_block(stmt: cst.If, module: cst.Module) -> bool:
    """``if not FLAG:`` / ``if not FLAG[0]:`` whose block sets the latch (``FLAG = True``, ``FLAG[0] = True``) in a
    statement of its own: the block runs once."""
    if stmt.orelse is not None or not isinstance(stmt.test, cst.UnaryOperation) \
            or not isinstance(stmt.test.operator, cst.Not):
        return False
    inner = stmt.test.expression
    found = (inner.value, None) if isinstance(inner, cst.Name) else state_test(stmt.test, module, unset=True)
    if found is None:
        return False
    return any(stores_state(small, found[0], found[1], module) for small in top_small_statements(stmt.body.body))


def state_test(test: cst.BaseExpression, module: cst.Module, unset: bool) -> Optional[Tuple[str, Optional[str]]]:
    """``G is None`` / ``key not in G`` (``unset``), ``G is not None`` / ``key in G`` (not): the name
    ``G`` and the code of the key (None for the first form); None for any other test."""
    # `if DONE[0]: return` / `if not DONE[0]:` -- a flag kept in a module list or dict (set by `DONE[0] = True`)
    flag = _flag_item(test.expression) if unset and isinstance(test, cst.UnaryOperation) \
        and isinstance(test.operator, cst.Not) else (None if unset else _flag_item(test))
    if flag is not None:
        return flag[0], module.code_for_node(flag[1])
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    op, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if isinstance(op, cst.Is if unset else cst.IsNot) and isinstance(test.left, cst.Name) \
            and isinstance(right, cst.Name) and right.value == "None":
        return test.left.value, None
    if isinstance(op, cst.NotIn if unset else cst.In) and isinstance(right, cst.Name):
        return right.value, module.code_for_node(test.left)
    return None


def _flag_item(test: cst.BaseExpression) -> Optional[Tuple[str, cst.BaseExpression]]:
    """``G[0]`` / ``G["done"]``: a module container's item at a literal key, tested for its truth."""
    if isinstance(test, cst.Subscript) and isinstance(test.value, cst.Name) and len(test.slice) == 1 \
            and isinstance(test.slice[0].slice, cst.Index) \
            and isinstance(test.slice[0].slice.value, (cst.Integer, cst.SimpleString)):
        return test.value.value, test.slice[0].slice.value
    return None


def top_small_statements(stmts: Sequence[cst.CSTNode]) -> Iterator[cst.BaseSmallStatement]:
    """The small statements at the top of ``stmts``: those that run whenever the block runs to its end,
    the bodies of a ``with`` and a ``try`` there included (a failed ``try`` body raises, and the next
    call runs it again, as it would eagerly)."""
    for stmt in stmts:
        if isinstance(stmt, (cst.With, cst.Try)):
            yield from top_small_statements(stmt.body.body)
        elif isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body


def stores_state(small: cst.CSTNode, name: str, key: Optional[str], module: cst.Module) -> bool:
    """``small`` binds ``name`` (``key`` None), or stores ``name[key]`` or adds ``key`` to the set ``name``."""
    if key is not None and isinstance(small, cst.Expr):
        added = _adds_to(small.value, name)
        if added is not None and module.code_for_node(added) == key:
            return True
    for target in small.targets if isinstance(small, cst.Assign) else ():
        t = target.target
        if key is None and isinstance(t, cst.Name) and t.value == name:
            return True
        if key is not None and isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) \
                and t.value.value == name and len(t.slice) == 1 and isinstance(t.slice[0].slice, cst.Index) \
                and module.code_for_node(t.slice[0].slice.value) == key:
            return True
    return False

def _missing_key(test: cst.BaseExpression, name: str, gets: Dict[str, str],
                 module: cst.Module) -> Optional[Tuple[str, str]]:
    """What a test says of dict ``name``: ("miss", key) for ``key not in D``, ("hit", key) for
    ``key in D`` / ``hit is not None`` after ``hit = D.get(key)``, ("empty", "") for ``not D``,
    ("filled", "") for ``D``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) \
            and isinstance(test.expression, cst.Name) and test.expression.value == name:
        return "empty", ""
    if isinstance(test, cst.Name) and test.value == name:
        return "filled", ""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        # `key is not None and key in D` (a key that may be None: no caching then): a hit on `key`
        found = _missing_key(test.right, name, gets, module)
        guard = test.left
        if found is not None and found[0] == "hit" and isinstance(guard, cst.Comparison) \
                and len(guard.comparisons) == 1 and isinstance(guard.comparisons[0].operator, cst.IsNot) \
                and isinstance(guard.comparisons[0].comparator, cst.Name) \
                and guard.comparisons[0].comparator.value == "None" \
                and module.code_for_node(guard.left) == found[1]:
            return found
        # `hit is None and key not in D`: the branch runs only where the key is missing (and the rest holds)
        for part in (test.left, test.right):
            found = _missing_key(part, name, gets, module)
            if found is not None and found[0] == "miss":
                return found
        return None
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    op, right = test.comparisons[0].operator, test.comparisons[0].comparator
    if isinstance(right, cst.Name) and right.value == name and isinstance(op, (cst.In, cst.NotIn)):
        return ("miss" if isinstance(op, cst.NotIn) else "hit"), module.code_for_node(test.left)
    if isinstance(op, cst.IsNot) and isinstance(right, cst.Name) and right.value == "None" \
            and isinstance(test.left, cst.Name) and test.left.value in gets:
        return "hit", gets[test.left.value]
    if isinstance(op, cst.Is) and isinstance(right, cst.Name) and right.value == "None" \
            and isinstance(test.left, cst.Name) and test.left.value in gets:
        return "miss", gets[test.left.value]
    return None


def _stores_into(node: cst.CSTNode, name: str) -> bool:
    """``name[key] = value`` (or, of a set, ``name.add(key)``; ``name.update(...)``) somewhere in ``node``."""
    return any_node([node], lambda n: (isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Subscript)
                                       and isinstance(n.target.value, cst.Name) and n.target.value.value == name)
                    or _adds_to(n, name) is not None
                    or (isinstance(n, cst.Call) and _is_method_of(n, name, "update")))


def _added_keys(node: cst.CSTNode, name: str) -> List[cst.BaseExpression]:
    """The keys of the ``name.add(key)`` calls in ``node``."""
    out: List[cst.BaseExpression] = []
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        key = _adds_to(item, name)
        if key is not None:
            out.append(key)
        stack.extend(iter_children(item))
    return out


def _adds_to(node: Optional[cst.CSTNode], name: str) -> Optional[cst.BaseExpression]:
    """The key of ``name.add(key)``, a call adding to a set; None for anything else."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "add" \
            and isinstance(node.func.value, cst.Name) and node.func.value.value == name and len(node.args) == 1:
        return node.args[0].value
    return None


def bound_value(expr: cst.BaseExpression, fn: "FunctionInfo", call: cst.Call) -> Optional[cst.BaseExpression]:
    """``expr`` in the body of ``fn`` (a parameter, or ``list(p)`` / ``tuple(p)`` of one), with the
    value ``call`` gives that parameter (else its default) put in; None when it is anything else."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("list", "tuple") \
            and len(expr.args) == 1 and not expr.args[0].star:
        expr = expr.args[0].value
    if not isinstance(expr, cst.Name):
        return expr if literal_elements(expr) is not None else None
    params = fn.params
    for arg, param in bind_arguments(params, call.args):
        if param is not None and param.name.value == expr.value:
            return arg.value
    for param, _kind in params:
        if param.name.value == expr.value:
            return param.default
    return None


def _call_root(func: cst.BaseExpression) -> cst.BaseExpression:
    """The name a callee is read from: ``f`` of ``f(...)``, ``solver`` of ``solver.run(...)``."""
    while isinstance(func, cst.Attribute):
        func = func.value
    return func


def is_accessor(node: FunctionNode) -> bool:
    """A property's getter (see :func:`is_property`), setter or deleter (``@value.setter``): reading
    the attribute runs the getter, so the attribute is not the function."""
    return is_property(node) or (isinstance(node, cst.FunctionDef) and any(
        isinstance(d.decorator, cst.Attribute) and d.decorator.attr.value in ("setter", "getter", "deleter")
        for d in node.decorators))


def is_property(node: FunctionNode) -> bool:
    """A method decorated ``@property`` or ``@functools.cached_property``."""
    return isinstance(node, cst.FunctionDef) and any(
        dotted_name(d.decorator) in ("property", "functools.cached_property", "cached_property")
        for d in node.decorators)


def init_fields(cls: ClassInfo) -> List[Tuple[str, cst.BaseExpression]]:
    """The fields a NamedTuple's or dataclass's generated ``__init__`` takes, in order, with their
    annotations: the names annotated in the class body, but a ``ClassVar`` and a ``field(init=False)``."""
    out: List[Tuple[str, cst.BaseExpression]] = []
    body = cls.node.body.body if isinstance(cls.node.body, cst.IndentedBlock) else ()
    for stmt in body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.AnnAssign) or not isinstance(small.target, cst.Name):
                continue
            annotation = small.annotation.annotation
            head = annotation.value if isinstance(annotation, cst.Subscript) else annotation
            if (dotted_name(head) or "").rsplit(".", 1)[-1] == "ClassVar":
                continue
            value = small.value
            if isinstance(value, cst.Call) and any(
                    a.keyword is not None and a.keyword.value == "init" and isinstance(a.value, cst.Name)
                    and a.value.value == "False" for a in value.args):
                continue
            out.append((small.target.value, annotation))
    return out
