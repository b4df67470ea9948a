"""Methods that store the same values every time they run (JIT503's idempotent writers).

A method that takes nothing but ``self`` and computes what it stores only from attributes that
construction alone binds, from literals, and from locals it builds from those (arithmetic, lists and
dicts it makes itself, ``len``/``range`` and the like, NumPy and ``math`` functions other than
``numpy.random``) stores equal values on every call. Once construction has run it, calling it again
changes nothing a trace saw. Anything else -- a parameter, a read of an attribute another method
rebinds, a call of another method of the class or of a function not known to be pure, a global that
the module rebinds, a mutation of an object it did not build -- leaves it an ordinary writer.

A call of a method on an attribute that only construction binds (``self._cosmo.distance(z)``) is
taken as a function of that object, as JIT503 takes such an attribute to be fixed, unless the method
has a name that draws or consumes state (``normal``, ``pop``, ``read``: ``_STATEFUL_METHODS``) or the
attribute holds a random generator (bound from ``numpy.random`` or ``random``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Set, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.scopes import BindingKind
from jitlint.analysis.syntax import is_docstring, iter_children, unpacked_targets

if TYPE_CHECKING:
    from jitlint.analysis.scopes import Scope
    from jitlint.analysis.discovery import ClassInfo, FunctionInfo, ModuleIndex

#: builtins whose result depends only on their arguments: the pure ones, less those that call a function they
#: are given or read an attribute by a computed name (which the attribute checks here would not see)
_PURE_BUILTINS = jax_api.PURE_BUILTINS - {"map", "filter", "getattr", "hasattr"}
#: modules whose functions (and constants) are taken as pure, less the random ones
_PURE_MODULES = ("numpy.", "math.", "jax.numpy.")
_IMPURE_PARTS = (".random",)
#: methods that change the container, draw from or consume a state: never pure on an object the method did not
#: build
_STATEFUL_METHODS = jax_api.MUTATING_METHODS | frozenset({"sort", "reverse"}) | frozenset({
    "read", "readline", "readlines", "write", "send", "seek", "next", "__next__", "normal", "uniform",
    "integers", "random", "choice", "shuffle", "permutation", "permuted", "standard_normal", "rand",
    "randn", "randint", "random_sample", "poisson", "binomial", "exponential", "gamma", "beta",
    "multivariate_normal", "sample", "bytes", "getrandbits", "fill", "resize", "itemset", "put", "setfield",
    "setflags", "partition", "byteswap", "__setitem__", "__delitem__",
})
#: name beginnings of methods taken to change the object they are called on (``set_h``, ``reset``, ``step``)
_STATEFUL_PREFIXES = ("set", "reset", "update", "add", "push", "pop", "next", "draw", "sample", "step",
                      "increment", "advance", "__i")
#: NumPy functions that write into an array they are given
_IN_PLACE_FUNCTIONS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis", "at"})
_FRESH_FACTORIES = frozenset({"list", "dict", "set"})
#: NumPy functions that return a new array (never a view of their argument): writing into it changes no other object
_NEW_ARRAYS = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full", "numpy.eye", "numpy.identity",
                         "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like", "numpy.arange",
                         "numpy.linspace", "numpy.array"})


def stores_same_values(index: "ModuleIndex", cls: "ClassInfo", method: "FunctionInfo",
                       fixed: Set[str]) -> bool:
    """Whether every run of ``method`` (a method of ``cls``) stores the same values; ``fixed`` holds the
    attributes that no method of ``cls`` binds after construction."""
    node = method.node
    if not isinstance(node, cst.FunctionDef) or node.asynchronous is not None or node.decorators:
        return False
    params = node.params
    if (len(params.params) != 1 or params.posonly_params or params.kwonly_params
            or not isinstance(params.star_arg, cst.MaybeSentinel) or params.star_kwarg is not None):
        return False
    self_name = params.params[0].name.value
    return _Checker(index, cls, node, self_name, fixed, method.local_names - {self_name}).body(node.body)


class _Checker:
    def __init__(self, index: "ModuleIndex", cls: "ClassInfo", function: cst.FunctionDef, self_name: str,
                 fixed: Set[str], local_names: Set[str]) -> None:
        self.index = index
        self.cls = cls
        self.function = function
        self.self_name = self_name
        self.fixed = fixed
        self.locals = local_names
        #: attributes the method has bound (at its top level) by the statement being checked
        self.own: Set[str] = set()
        #: those bound to a new list, dict or set (the method may append to them)
        self.own_fresh: Set[str] = set()
        self.fresh_locals = {name for name in local_names if self._only_fresh(name)}
        self._random_attrs: Optional[Set[str]] = None
        #: a call of a JAX library's factory (``optax.adam(lr)``) counts as giving the same value for
        #: the same arguments (what a trace holds behaves alike), though not as free of effects
        self.factories = False
        #: checking a method called for its result (``self.make_mask()``): it may ``return``, must bind no
        #: attribute of the object, and calls such methods at most this many levels deep
        self.returning = False
        self.depth = 0
        #: names of the function not followed (its parameters and locals, where ``locals`` is left empty): never
        #: the module's globals they shadow
        self.unknown: Set[str] = set()

    # ------------------------------------------------------------------ statements
    def body(self, suite: cst.BaseSuite) -> bool:
        for i, stmt in enumerate(_statements(suite)):
            if i == 0 and is_docstring(stmt):
                continue
            if not self.statement(stmt):
                return False
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign):
                        for t in small.targets:
                            attr = self._self_attr(t.target)
                            if attr is not None:
                                self.own.add(attr)
                                if _is_fresh(small.value, self.index):
                                    self.own_fresh.add(attr)
        return True

    def block(self, suite: cst.BaseSuite) -> bool:
        return all(self.statement(stmt) for stmt in _statements(suite))

    def statement(self, stmt: cst.CSTNode) -> bool:
        if isinstance(stmt, cst.SimpleStatementLine):
            return all(self.small(s) for s in stmt.body)
        if isinstance(stmt, cst.If):
            return (self.expr(stmt.test) and self.block(stmt.body)
                    and (stmt.orelse is None or self.statement(stmt.orelse)))
        if isinstance(stmt, cst.Else):
            return self.block(stmt.body)
        if isinstance(stmt, cst.FunctionDef) and self.returning:
            return not stmt.decorators  # (a closure made to be returned: defining it runs nothing)
        if isinstance(stmt, cst.For):
            return (stmt.asynchronous is None and self.target(stmt.target) and self.expr(stmt.iter)
                    and self.block(stmt.body) and (stmt.orelse is None or self.block(stmt.orelse.body)))
        return False

    def small(self, stmt: cst.BaseSmallStatement) -> bool:
        if isinstance(stmt, cst.Pass):
            return True
        if isinstance(stmt, cst.Assign):
            return all(self.target(t.target) for t in stmt.targets) and self.expr(stmt.value)
        if isinstance(stmt, cst.AugAssign):
            # `x += y` changes a list or array in place: only on a local that holds a number, an
            # arithmetic result or a container the method built, never on one that may alias an attribute
            return (isinstance(stmt.target, cst.Name) and stmt.target.value in self.locals
                    and self._owns_value(stmt.target.value) and self.expr(stmt.value))
        if isinstance(stmt, cst.Expr):
            return isinstance(stmt.value, cst.Call) and self.expr(stmt.value)
        if isinstance(stmt, cst.Return) and self.returning:
            return stmt.value is None or self.expr(stmt.value)
        return False

    def target(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.locals
        if isinstance(node, (cst.Tuple, cst.List)):
            return all(not isinstance(e, cst.StarredElement) and self.target(e.value) for e in node.elements)
        if self._self_attr(node) is not None:
            return not self.returning
        if isinstance(node, cst.Subscript):  # d[k] = v: only into a container the method built
            return self._built_here(node.value) and all(self._slice(s) for s in node.slice)
        return False

    # ------------------------------------------------------------------ expressions
    def expr(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)):
            return True
        if isinstance(node, cst.Name):
            return self._name(node)
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Subscript):
            return self.expr(node.value) and all(self._slice(s) for s in node.slice)
        if isinstance(node, (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)):
            return self._comprehension(node)
        if isinstance(node, (cst.Lambda, cst.Yield, cst.Await, cst.NamedExpr)):
            return False
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation, cst.BooleanOperation, cst.Comparison,
                             cst.IfExp, cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ConcatenatedString,
                             cst.FormattedString, cst.FormattedStringExpression, cst.Element, cst.StarredElement,
                             cst.DictElement, cst.StarredDictElement, cst.ComparisonTarget,
                             cst.FormattedStringText)):
            return all(self.expr(child) for child in _value_children(node))
        return False

    def _comprehension(self, node) -> bool:
        """``[f(v) for v in pure if cond]``: its loop names are locals of its own."""
        saved = self.locals
        try:
            comp = node.for_in
            while comp is not None:
                if comp.asynchronous is not None or not self.expr(comp.iter):
                    return False
                names = _names_in(comp.target)
                if len(names) == 0:
                    return False
                self.locals = self.locals | {n.value for n in names}
                if not all(self.expr(cond.test) for cond in comp.ifs):
                    return False
                comp = comp.inner_for_in
            parts = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
            return all(self.expr(part) for part in parts)
        finally:
            self.locals = saved

    def _slice(self, element: cst.SubscriptElement) -> bool:
        s = element.slice
        if isinstance(s, cst.Index):
            return self.expr(s.value)
        return all(part is None or self.expr(part) for part in (s.lower, s.upper, s.step))

    def _name(self, node: cst.Name) -> bool:
        name = node.value
        if name in self.locals or name in ("True", "False", "None"):
            return True
        if name in self.unknown:
            return False
        info = self.index.globals.get(name)
        if info is None:
            return name in _PURE_BUILTINS  # (a builtin named: `dtype=int`)
        # a module constant bound once, that no function rebinds or changes, or a function of the module named (not
        # called: `jax.vmap(step)` makes a new function of it)
        return (info.kind in ("value", "function") and info.assignments == 1 and not info.mutable_container
                and not self.index.changed_after_import(name) and not self.index.rebound_by_calls(name))

    def _attribute(self, node: cst.Attribute) -> bool:
        attr = self._self_attr(node)
        if attr is not None:
            return attr in self.fixed or attr in self.own
        q = self.index.qualify(node)
        if q is not None:
            return _pure_module_name(q)
        return self.expr(node.value)  # arr.shape, self._cosmo.h0

    def _call(self, node: cst.Call) -> bool:
        if not all(self.expr(arg.value) for arg in node.args):
            return False
        if any(arg.keyword is not None and arg.keyword.value == "out" for arg in node.args):
            return False  # np.add(a, b, out=...) writes into an array
        func = node.func
        if isinstance(func, cst.Name) and func.value not in self.locals and func.value not in self.index.globals:
            return func.value in _PURE_BUILTINS
        q = self.index.qualify(func)
        if q is not None:
            # (a JAX transform makes a new function of the one it is given, and runs nothing)
            return _pure_module_name(q) or q in jax_api.WRAPPER_MAKERS \
                or (self.factories and q.startswith(jax_api.ECOSYSTEM_PACKAGES) and ".random" not in q)
        if isinstance(func, cst.Name) and self.index.record_class(func.value):
            return True  # a dataclass or NamedTuple of the module stores its arguments
        if isinstance(func, cst.Name) and func.value not in self.locals and func.value not in self.unknown:
            function = module_function(self.index, func.value)
            return function is not None and self.depth < 2 and _pure_body(self, function, "")
        if not isinstance(func, cst.Attribute):
            return False
        receiver, method = func.value, func.attr.value
        if isinstance(receiver, cst.Name) and receiver.value == self.self_name and method not in self.own:
            return self._pure_method(method)
        if isinstance(receiver, cst.Subscript) and isinstance(receiver.value, cst.Attribute) \
                and receiver.value.attr.value == "at" and _self_root(receiver, self.self_name) is None:
            # `D.at[0, 1].set(c)`: JAX's update of a local array gives a new array and changes nothing
            return self.expr(receiver.value.value) and all(self._slice(el) for el in receiver.slice)
        if self._built_here(receiver):
            return True  # lst.append(x), d.items() on a container the method made
        if self._self_attr(receiver) is None and _self_root(receiver, self.self_name) is None:
            # a method of a local (arr.reshape(...), bkg.distance(z)): not one that draws or mutates
            return not _stateful(method) and self.expr(receiver)
        root = _self_root(receiver, self.self_name)
        if root is None or not self.expr(receiver):
            return False  # self.method(...): another method of the class
        if root in self.own:
            return not _stateful(method)
        return not _stateful(method) and root not in self._random_attributes()

    def _pure_method(self, name: str) -> bool:
        """``self.name(...)`` (its arguments checked by the caller): a plain method of the class whose body
        is checked the same way, binds no attribute of the object and returns what it computes
        (``self.create_mask()`` from the object's fixed sizes), two calls deep at most."""
        method = self.cls.methods.get(name) if self.cls is not None else None
        node = method.node if method is not None else None
        if self.depth >= 2 or not isinstance(node, cst.FunctionDef) or not node.params.params:
            return False
        return _pure_body(self, node, node.params.params[0].name.value)

    # ------------------------------------------------------------------ helpers
    def _self_attr(self, node: cst.CSTNode) -> Optional[str]:
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == self.self_name:
            return node.attr.value
        return None

    def _built_here(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            return node.value in self.fresh_locals
        attr = self._self_attr(node)
        return attr is not None and attr in self.own_fresh

    def _owns_value(self, name: str) -> bool:
        """Every binding of the local ``name`` is a number, an arithmetic result or a new container
        (so ``name += ...`` cannot change an object some attribute holds)."""
        return all(value is not None and (isinstance(value, (cst.Integer, cst.Float, cst.BinaryOperation,
                                                             cst.UnaryOperation)) or _is_fresh(value, self.index))
                   for value in self._bindings(name))

    def _only_fresh(self, name: str) -> bool:
        """Every binding of the local ``name`` is a new list, dict or set."""
        values = self._bindings(name)
        return bool(values) and all(value is not None and _is_fresh(value, self.index) for value in values)

    def _bindings(self, name: str) -> List[Optional[cst.BaseExpression]]:
        """The value of each ``name = value`` in the method; None for a binding of another kind (a loop
        target, unpacking, an annotated assignment). ``name += ...`` keeps the object and is left out."""
        out: List[Optional[cst.BaseExpression]] = []
        stack: List[cst.CSTNode] = [self.function.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    if isinstance(t.target, cst.Name) and t.target.value == name:
                        out.append(node.value)
                    elif any(n.value == name for n in _names_in(t.target)):
                        out.append(None)
            elif isinstance(node, (cst.AnnAssign, cst.For)) and any(n.value == name for n in _names_in(node.target)):
                out.append(None)
            stack.extend(iter_children(node))
        return out

    def _random_attributes(self) -> Set[str]:
        """Attributes construction binds to something made by ``numpy.random`` or ``random``."""
        if self._random_attrs is None:
            found: Set[str] = set()
            for method in self.cls.methods.values():
                stack: List[cst.CSTNode] = [method.node]
                while stack:
                    node = stack.pop()
                    if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
                        q = self.index.qualify(node.value.func) or ""
                        if q.startswith(("numpy.random", "random.")):
                            for t in node.targets:
                                attr = _attr_of(t.target)
                                if attr is not None:
                                    found.add(attr)
                    stack.extend(iter_children(node))
            self._random_attrs = found
        return self._random_attrs


def module_function(index: "ModuleIndex", name: str) -> Optional[cst.FunctionDef]:
    """The module-level ``def name`` when it is the name's one binding, never rebound or changed."""
    info = index.globals.get(name)
    if info is None or info.kind != "function" or info.assignments != 1 or not isinstance(info.node, cst.FunctionDef) \
            or index.rebound_by_calls(name):
        return None
    return info.node


def pure_function(index: "ModuleIndex", node: cst.FunctionDef) -> bool:
    """A module function whose body computes what it returns from its parameters, constants and pure functions
    only, and changes nothing (``make_buffer(max_length, min_length)`` that defines closures and returns a
    NamedTuple of them): equal arguments give equivalent results."""
    checker = _Checker(index, None, node, "", set(), set())  # type: ignore[arg-type]
    return _pure_body(checker, node, "")


def pure_method(index: "ModuleIndex", cls: "ClassInfo", name: str, fixed: Set[str]) -> bool:
    """``self.name(...)`` is a plain method of ``cls`` that computes what it returns from its parameters,
    constants, pure functions and the attributes ``fixed`` only, and binds nothing (``self.CalculateDMatrix2D(E,
    nu)`` returning ``jnp.array(...)``): equal arguments give equivalent results."""
    method = cls.methods.get(name)
    node = method.node if method is not None else None
    if not isinstance(node, cst.FunctionDef) or not node.params.params:
        return False
    checker = _Checker(index, cls, node, node.params.params[0].name.value, fixed, set())
    return _pure_body(checker, node, node.params.params[0].name.value)


def _pure_body(caller: "_Checker", node: cst.FunctionDef, self_name: str) -> bool:
    """``node``'s body checked as a function called for its result, one level below ``caller``."""
    if node.decorators or node.asynchronous is not None \
            or any(p.default is not None and not caller.expr(p.default) for p in node.params.params):
        return False
    scope = caller.index.scope_model.scopes.get(node)
    if scope is None:
        return False
    checker = _Checker(caller.index, caller.cls, node, self_name, caller.fixed, set(scope.local) - {self_name})
    checker.returning, checker.depth, checker.factories = True, caller.depth + 1, caller.factories
    return checker.body(node.body)


def _names_in(target: cst.CSTNode) -> List[cst.Name]:
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names_in(e.value)]
    return []


def _attr_of(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return node.attr.value
    return None


def _self_root(node: cst.CSTNode, self_name: str) -> Optional[str]:
    """``self.a`` in ``self.a.b.c`` (the attribute of self that an attribute chain starts from)."""
    while isinstance(node, cst.Attribute):
        if isinstance(node.value, cst.Name) and node.value.value == self_name:
            return node.attr.value
        node = node.value
    return None


def _stateful(method: str) -> bool:
    return method in _STATEFUL_METHODS or method.startswith(_STATEFUL_PREFIXES)


def _pure_module_name(q: str) -> bool:
    return (q.startswith(_PURE_MODULES) and not any(part in q for part in _IMPURE_PARTS)
            and q.rsplit(".", 1)[-1] not in _IN_PLACE_FUNCTIONS)


def _is_fresh(value: cst.BaseExpression, index: "ModuleIndex") -> bool:
    if isinstance(value, (cst.List, cst.Dict, cst.Set)):
        return True
    if isinstance(value, cst.Call) and index.qualify(value.func) in _NEW_ARRAYS:
        return True
    return (isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in _FRESH_FACTORIES
            and value.func.value not in index.globals)


def _statements(suite: cst.BaseSuite) -> List[cst.CSTNode]:
    if isinstance(suite, cst.IndentedBlock):
        return list(suite.body)
    return [cst.SimpleStatementLine(body=suite.body)] if isinstance(suite, cst.SimpleStatementSuite) else []


def _value_children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The expressions inside an operator, display or f-string (not its operators or whitespace)."""
    out: List[cst.CSTNode] = []
    for child in iter_children(node):
        if isinstance(child, (cst.BaseExpression, cst.BaseElement, cst.BaseDictElement, cst.ComparisonTarget,
                              cst.BaseFormattedStringContent)):
            out.append(child)
    return out


def stores_one_value(index: "ModuleIndex", cls: "ClassInfo", method: "FunctionInfo", attr: str,
                     fixed: Set[str], guards_choose_whether: bool = False) -> bool:
    """Every ``self.<attr> = value`` in ``method`` (its own body, not nested functions) stores a value
    computed only from literals, constants, pure module functions and attributes in ``fixed`` (that
    no method binds after construction), under ``if`` tests made of the same: each run stores the
    same value, whatever the method's other arguments (``self.tx = optax.adam(self.cfg.lr)``).
    With ``guards_choose_whether`` (every write of it in the class stores one expression), the writes may
    stand under any test: a test chooses whether to store that value, not which value."""
    node = method.node
    if not isinstance(node, cst.FunctionDef) or node.asynchronous is not None or not node.params.params:
        return False
    self_name = node.params.params[0].name.value
    checker = _Checker(index, cls, node, self_name, fixed, set())
    checker.factories = True
    checker.unknown = method.local_names - {self_name}
    writes = 0
    guarded = False
    stack: List[cst.CSTNode] = [node.body]
    while stack:
        item = stack.pop()
        if isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(item, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in item.targets] if isinstance(item, cst.Assign) else [item.target]
            for target in targets:
                if checker._self_attr(target) == attr:
                    if isinstance(item, cst.AugAssign) or len(targets) != 1 or item.value is None \
                            or not checker.expr(item.value):
                        return False
                    writes += 1
                elif any(checker._self_attr(n) == attr for n in _attribute_nodes(target)):
                    return False  # unpacked into, or an item of it set
        if isinstance(item, (cst.If, cst.While)) and not checker.expr(item.test) \
                and assigns_attribute(item, self_name, attr):
            guarded = True  # by a test that may differ between runs
        stack.extend(iter_children(item))
    return writes > 0 and (not guarded or guards_choose_whether)


def _attribute_nodes(node: cst.CSTNode) -> List[cst.CSTNode]:
    out: List[cst.CSTNode] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Attribute):
            out.append(n)
        stack.extend(iter_children(n))
    return out


def assigns_attribute(node: cst.CSTNode, self_name: str, attr: str) -> bool:
    """``<self_name>.<attr> = ...`` (or ``+=``, annotated) somewhere in ``node``, not in the functions,
    lambdas and classes it defines."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
            targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
            # (`self.a, self.b = ...` binds each)
            if any(isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == self_name
                   and t.attr.value == attr for target in targets for t in unpacked_targets(target)):
                return True
        if n is node or not isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(iter_children(n))
    return False


def built_from_self(scope: "Scope", value: cst.BaseExpression, attr: str, changing: Set[str], calls_ok,
                    fixed_params: bool = False) -> bool:
    """Whether ``value`` (stored to ``self.<attr>`` in the function whose scope is ``scope``) is
    computed from the object and constants only: ``self`` (but not ``self.<attr>`` itself: an
    accumulator), globals and builtins, lambdas over those, and locals bound once (``name = value``)
    to values built the same way -- never from another parameter. Run again on the same object, it
    stores an equivalent value (``self.buffer = Buffer(self.n)``, ``self._step = lambda x:
    self._update(x, grad_fn)`` with ``grad_fn = jax.grad(self._loss)``). An attribute in
    ``changing`` (one a method rebinds once the object exists) read for it makes the value differ
    between runs: not built from the object then. What runs when the value is made may call only
    what ``calls_ok`` accepts (a JAX function, a class of the module): a builtin such as ``len`` may
    read a container that changes in place, ``np.random`` draws; a lambda's body runs later, on the
    object as it is then, and is not restricted.  With ``fixed_params`` every call of the function passes the
    same values (what the object was constructed with): its parameters count as the object's."""
    function = scope.node
    if not isinstance(function, cst.FunctionDef):
        return False
    params = function.params
    every = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    if not every:
        return False
    others = {p.name.value for p in every[1:]}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            others.add(star.name.value)
    fixed = frozenset(others) if fixed_params else frozenset()  # (read as the object's own values)
    return _from_self(value, every[0].name.value, {attr} | set(changing), others - fixed, scope, frozenset(),
                      calls_ok, False, fixed)


def _local_values(scope: "Scope", name: str) -> Optional[List[cst.CSTNode]]:
    """What the function's plain bindings of the local ``name`` store: its one value, or the value of each
    branch of ``if``/``else`` tests that bind it (``model_class = A`` under ``if self.wide:``, ``= B`` under
    ``else``), with those tests, which decide the value stored as much as the values do; None where another
    kind of binding, or one in a loop or anywhere else, makes it something else."""
    single = scope.single_value(name)
    if single is not None:
        return [single]
    found = scope.bindings.get(name)
    if found and len(found) == 1 and not found[0].loops and not scope.declares(name) \
            and _unpacked_from(found[0].node, name) is not None:
        return [_unpacked_from(found[0].node, name)]  # `opt_init, update, get_params = self.opt`: a part of it
    if not found or scope.declares(name) or any(b.kind is not BindingKind.ASSIGNMENT or b.value is None or b.loops
                                                for b in found):
        return None
    holders = {id(b.node) for b in found}
    out: List[cst.CSTNode] = [b.value for b in found]
    tests: dict = {}  # the tests of the `if`s around a binding, by id (in one walk, each `if` noted as it is entered)
    stack: List[Tuple[cst.CSTNode, Tuple[cst.BaseExpression, ...]]] = \
        [(scope.node.body, ())] if isinstance(scope.node, cst.FunctionDef) else []
    placed = 0
    while stack:
        node, around = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if id(node) in holders:
            placed += 1
            tests.update((id(test), test) for test in around)
        inner = around + (node.test,) if isinstance(node, cst.If) else around
        stack.extend((child, inner) for child in iter_children(node))
    return out + list(tests.values()) if placed == len(found) else None


def _unpacking(node: cst.CSTNode) -> Optional[Tuple[List[cst.BaseExpression], cst.BaseExpression]]:
    """The targets and the value of ``a, b.c = value`` (one target, a tuple or list of plain names and
    attributes, none starred): each target gets a part of that value."""
    if not (isinstance(node, cst.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0].target, (cst.Tuple, cst.List))):
        return None
    elements = node.targets[0].target.elements
    if any(isinstance(el, cst.StarredElement) or not isinstance(el.value, (cst.Name, cst.Attribute))
           for el in elements):
        return None
    return [el.value for el in elements], node.value


def _unpacked_from(node: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    """``a, name, b = value``: the value unpacked (see :func:`_unpacking`)."""
    found = _unpacking(node)
    return found[1] if found is not None and any(isinstance(t, cst.Name) and t.value == name
                                                  for t in found[0]) else None


def unpacked_into(node: cst.CSTNode, self_name: str, attr: str) -> Optional[cst.BaseExpression]:
    """``a, self.<attr>, b = value``: the value unpacked (see :func:`_unpacking`)."""
    found = _unpacking(node)
    hits = [t for t in found[0] if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name)
            and t.value.value == self_name and t.attr.value == attr] if found is not None else []
    return found[1] if len(hits) == 1 else None  # type: ignore[index]


def _from_self(value: cst.CSTNode, self_name: str, moving: Set[str], others: Set[str], scope: "Scope",
               seen: frozenset, calls_ok, deferred: bool, shadowed: frozenset) -> bool:
    stack: List[cst.CSTNode] = [value]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Lambda):
            own = frozenset(p.name.value for p in list(n.params.params) + list(n.params.kwonly_params))
            if not _from_self(n.body, self_name, moving, others, scope, seen, calls_ok, True, shadowed | own):
                return False
            continue
        if isinstance(n, cst.Call) and not deferred and not calls_ok(n):
            return False
        if isinstance(n, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp, cst.NamedExpr)):
            return False  # (names it binds: not followed here)
        if isinstance(n, cst.Attribute):
            if isinstance(n.value, cst.Name) and n.value.value == self_name and n.attr.value in moving:
                return False  # reads what it writes (an accumulator), or what another method changes
            stack.append(n.value)
            continue
        if isinstance(n, cst.Arg):
            stack.append(n.value)
            continue
        if isinstance(n, cst.Name):
            name = n.value
            if name == self_name or name in shadowed or not scope.bindings_of(name):
                continue  # the object, a lambda's parameter, or a global or builtin
            if name in others or name in seen:
                return False
            values = _local_values(scope, name)
            if values is None or not all(_from_self(v, self_name, moving, others, scope, seen | {name}, calls_ok,
                                                    False, shadowed) for v in values):
                return False
            continue
        stack.extend(iter_children(n))
    return True