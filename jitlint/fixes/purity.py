"""Is moving this code into a traced branch or loop body free of Python side effects?

`lax.cond` traces both branches, `jnp.where` evaluates both, and a loop body
becomes a function traced once: code that prints, logs, mutates a container or
draws Python random numbers would run at the wrong time or not at all.  A
rewrite is offered only for code made of operations known to be pure: JAX and
NumPy functions, arithmetic, array methods, a few builtins, and functions of
the same module whose own bodies are pure.  Anything unknown counts as impure.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Set

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.discovery import FunctionInfo, ModuleIndex
from jitlint.analysis.scopes import BindingKind, Scope
from jitlint.analysis.syntax import bind_arguments, iter_children, params_of
from jitlint.analysis.tracedness import Facts
from jitlint.analysis.values import Kind
from jitlint.fixes.dataflow import assigned_in, block_statements


#: JAX functions that are effects: staged (printed or called when the compiled code runs)
STAGED_EFFECTS = ("jax.debug.", "jax.experimental.io_callback", "jax.experimental.host_callback.",
                  "jax.pure_callback", "jax.effects_barrier")

#: modules whose functions are side effects
IMPURE_MODULES = ("numpy.random.", "random.", "time.", "logging.", "os.", "sys.", "io.", "builtins.",
                  "absl.logging.", "pickle.", "shutil.", "subprocess.", "warnings.")

#: modules whose functions are pure (or staged by JAX)
PURE_MODULES = ("jax.", "numpy.", "math.", "operator.", "functools.partial", "optax.", "chex.",
                "jaxtyping.", "einops.", "equinox.", "flax.linen.", "flax.nnx.")


#: the methods of ``x.at[...]``: each returns a new array (JAX's functional update)
_AT_UPDATES = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply",
                         "get"})


class Purity:
    """Answers purity questions about code of one module; memoises helper functions."""

    def __init__(self, index: ModuleIndex, facts: Facts) -> None:
        self.index = index
        self.facts = facts
        self._functions: Dict[FunctionInfo, bool] = {}
        #: functions whose passed-in function parameters are being looked at (recursion)
        self._passing: Set[FunctionInfo] = set()

    # ------------------------------------------------------------ public
    def expression(self, node: cst.CSTNode, scope: Optional[FunctionInfo], staged_effects: bool = False,
                   walrus: bool = False) -> bool:
        """Evaluating ``node`` has no Python side effect (staged JAX effects allowed if asked); with
        ``walrus``, a ``name := value`` binding is allowed (the caller makes the binding local to where
        the expression moves), its value checked as any other part."""
        return self._expr(node, scope, staged_effects, walrus=walrus)

    def statements(self, stmts: Sequence[cst.CSTNode], scope: Optional[FunctionInfo],
                   staged_effects: bool = False, allow_return: bool = False) -> bool:
        """Statements to move into a traced function: assignments to names, pure calls, nested ifs/loops.

        No ``break``/``continue``/``yield``, no ``global``/``nonlocal``, no
        writes to attributes or items, no nested ``def``; ``return`` only
        when ``allow_return`` (the statements become a function of their own).
        """
        for stmt in stmts:
            if not self._stmt(stmt, scope, staged_effects, set(), in_function=allow_return):
                return False
        return True

    def function(self, fn: FunctionInfo) -> bool:
        """Calling ``fn`` has no Python side effect (its body is pure; it may build local containers)."""
        known = self._functions.get(fn)
        if known is not None:
            return known
        self._functions[fn] = True  # recursion: assume pure while looking
        node = fn.node
        if isinstance(node, cst.Lambda):
            ok = self._expr(node.body, fn, False)
        else:
            ok = not self._is_generator_or_async(node)
            params = {p.name.value for p, _ in params_of(node.params)}
            local_containers = assigned_in(block_statements(node.body)) - params
            if ok:
                ok = all(self._expr(d.decorator, fn.parent, False) for d in node.decorators)
            if ok:
                for stmt in block_statements(node.body):
                    if not self._stmt(stmt, fn, False, local_containers, in_function=True):
                        ok = False
                        break
        self._functions[fn] = ok
        return ok

    # ----------------------------------------------------------- helpers
    @staticmethod
    def _is_generator_or_async(node: cst.FunctionDef) -> bool:
        if node.asynchronous is not None:
            return True
        stack: List[cst.CSTNode] = list(block_statements(node.body))
        while stack:
            n = stack.pop()
            if isinstance(n, (cst.Yield, cst.Await)):
                return True
            if isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                continue
            stack.extend(iter_children(n))
        return False

    def _stmt(self, stmt: cst.CSTNode, scope: Optional[FunctionInfo], staged: bool, local_containers: Set[str],
              in_function: bool) -> bool:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return all(self._small(s, scope, staged, local_containers, in_function) for s in stmt.body)
        if isinstance(stmt, cst.BaseSmallStatement):
            return self._small(stmt, scope, staged, local_containers, in_function)
        if isinstance(stmt, cst.If):
            if not self._expr(stmt.test, scope, staged):
                return False
            blocks = [block_statements(stmt.body)]
            if isinstance(stmt.orelse, cst.If):
                blocks.append([stmt.orelse])
            elif isinstance(stmt.orelse, cst.Else):
                blocks.append(block_statements(stmt.orelse.body))
            return all(self._stmt(s, scope, staged, local_containers, in_function) for b in blocks for s in b)
        if isinstance(stmt, (cst.For, cst.While)):
            if stmt.orelse is not None:
                return False
            head = stmt.iter if isinstance(stmt, cst.For) else stmt.test
            if not self._expr(head, scope, staged):
                return False
            if isinstance(stmt, cst.For) and not all(isinstance(n, cst.Name) for n in _target_parts(stmt.target)):
                return False
            return all(self._loop_stmt(s, scope, staged, local_containers, in_function)
                       for s in block_statements(stmt.body))
        if isinstance(stmt, cst.FunctionDef) and in_function and self._is_helper_def(stmt):
            # defining a helper is pure; calling it is checked where it is called
            return all(self._expr(d.decorator, scope, staged) for d in stmt.decorators)
        return False

    def _is_helper_def(self, stmt: cst.FunctionDef) -> bool:
        info = self.index.infos.get(stmt)
        return info is not None and not info.global_names and not info.nonlocal_names

    def _loop_stmt(self, stmt: cst.CSTNode, scope, staged, local_containers, in_function) -> bool:
        """Inside a nested loop, ``break``/``continue`` belong to that loop."""
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return all(isinstance(s, (cst.Break, cst.Continue))
                       or self._small(s, scope, staged, local_containers, in_function) for s in stmt.body)
        return self._stmt(stmt, scope, staged, local_containers, in_function)

    def _small(self, small: cst.CSTNode, scope, staged, local_containers: Set[str], in_function: bool) -> bool:
        if isinstance(small, cst.Pass):
            return True
        if isinstance(small, cst.Expr):
            value = small.value
            if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
                return True  # a docstring
            return self._expr(value, scope, staged, local_containers)
        if isinstance(small, cst.Assign):
            return all(self._target(t.target, scope, staged, local_containers) for t in small.targets) \
                and self._expr(small.value, scope, staged)
        if isinstance(small, (cst.AugAssign, cst.AnnAssign)):
            if isinstance(small, cst.AnnAssign) and small.value is None:
                return True
            return self._target(small.target, scope, staged, local_containers) \
                and self._expr(small.value, scope, staged)
        if isinstance(small, cst.Return):
            return in_function and (small.value is None or self._expr(small.value, scope, staged))
        return False  # raise, assert, del, global, nonlocal, import, break, continue

    def _target(self, target: cst.CSTNode, scope, staged, local_containers: Set[str]) -> bool:
        if isinstance(target, cst.Name):
            return True
        if isinstance(target, (cst.Tuple, cst.List)):
            return all(self._target(el.value, scope, staged, local_containers) for el in target.elements)
        if isinstance(target, cst.StarredElement):
            return self._target(target.value, scope, staged, local_containers)
        if isinstance(target, (cst.Subscript, cst.Attribute)):
            root = _root(target)
            return isinstance(root, cst.Name) and root.value in local_containers and self._expr(
                target, scope, staged)
        return False

    def _expr(self, node: cst.CSTNode, scope: Optional[FunctionInfo], staged: bool,
              local_containers: Iterable[str] = (), walrus: bool = False) -> bool:
        stack: List[cst.CSTNode] = [node]
        while stack:
            n = stack.pop()
            kind = type(n)  # concrete classes: the exact type tells, without an ABC check per class
            if kind is cst.NamedExpr and walrus and isinstance(n.target, cst.Name):
                stack.append(n.value)
                continue
            if kind is cst.Yield or kind is cst.Await or kind is cst.NamedExpr:
                return False
            if kind is cst.Call and not self._call(n, scope, staged, local_containers):
                return False
            if kind is cst.Lambda:
                stack.append(n.body)
                stack.extend(p.default for p, _ in params_of(n.params) if p.default is not None)
                continue
            stack.extend(iter_children(n))
        return True

    def _call(self, call: cst.Call, scope: Optional[FunctionInfo], staged: bool, local_containers) -> bool:
        func = call.func
        q = self.index.qualify(func)
        if q is not None:
            if q.startswith(STAGED_EFFECTS):
                return staged
            if q.startswith(IMPURE_MODULES) or q in ("builtins.open", "builtins.print"):
                return False
            if q.startswith(PURE_MODULES):
                return self._function_args_pure(call, scope)
            return False
        if isinstance(func, cst.Name):
            scope_kind = self.facts.read_scope.get(func)
            if scope_kind == "builtin" or (scope_kind is None and func.value in jax_api.PURE_BUILTINS
                                           and not self._is_bound(func.value, scope)):
                return func.value in jax_api.PURE_BUILTINS and self._function_args_pure(call, scope)
            fn, _ = self.index.resolve_function(func, scope, scope.cls if scope is not None else None)
            if fn is not None:
                return self.function(fn) and self._function_args_pure(call, scope)
            made = self._made_wrapper(func, scope)
            if made is not None:
                # `dq_dy = jax.grad(manning_q)`, then `dq_dy(y)`: as `jax.grad(manning_q)(y)`
                return self._call(made, scope, staged, local_containers) and self._function_args_pure(call, scope)
            return self._passed_function(func, scope) and self._function_args_pure(call, scope)
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            root = _root(func.value)
            if isinstance(func.value, cst.Subscript) and isinstance(func.value.value, cst.Attribute) \
                    and func.value.value.attr.value == "at" and method in _AT_UPDATES:
                # `vel.at[i].add(impulse)`: JAX's functional update gives a new array, `vel` unchanged
                return self._expr(func.value.value.value, scope, staged) and all(
                    self._expr(el.slice.value, scope, staged) for el in func.value.slice
                    if isinstance(el.slice, cst.Index)) and self._function_args_pure(call, scope)
            if method in ("init", "update") and isinstance(func.value, cst.Name) \
                    and self._optax_made(func.value, scope):
                # `OPTIMIZER.update(grads, state, params)`: an optax GradientTransformation is a pair of pure
                # functions (its state goes in and comes out; nothing is kept on the object)
                return self._function_args_pure(call, scope)
            if method in jax_api.MUTATING_METHODS:
                return isinstance(root, cst.Name) and root.value in set(local_containers)
            if isinstance(func.value, cst.Name) and func.value.value in ("self", "cls") and scope is not None:
                fn, _ = self.index.resolve_function(func, scope, scope.cls)
                return fn is not None and self.function(fn) and self._function_args_pure(call, scope)
            if isinstance(root, (cst.SimpleString, cst.ConcatenatedString)):
                return True
            if isinstance(func.value, cst.Call) and not self._call(func.value, scope, staged, local_containers):
                return False
            if self._is_array(func.value) or (root is not None and self._is_array(root)):
                return self._function_args_pure(call, scope)
            return False
        if isinstance(func, cst.Call) and (self.index.qualify(func.func) or "") in jax_api.WRAPPER_MAKERS | {
                "functools.partial"}:
            # `jax.grad(residual)(y)`: the transform of a pure function, called: pure when what it wraps is
            return self._call(func, scope, staged, local_containers) and self._function_args_pure(call, scope)
        return False

    def _optax_made(self, name: cst.Name, scope: Optional[FunctionInfo]) -> bool:
        """``name`` is bound once, to the result of a call of an ``optax`` function (``optax.adam(1e-3)``,
        ``optax.chain(...)``): a GradientTransformation."""
        value = self.index.single_value(name.value, scope)
        return isinstance(value, cst.Call) and (self.index.qualify(value.func) or "").startswith("optax.")

    def _made_wrapper(self, func: cst.Name, scope: Optional[FunctionInfo]) -> Optional[cst.Call]:
        """The call a local of ``scope`` bound once is the result of, where that call makes a wrapper of a
        function (``jax.grad(f)``, ``jax.vmap(f)``, ``functools.partial(f, a)``)."""
        if scope is None:
            return None
        value = scope.scope.single_value(func.value) if func.value in scope.local_names else None
        if isinstance(value, cst.Call) and (self.index.qualify(value.func) or "") in jax_api.WRAPPER_MAKERS | {
                "functools.partial"}:
            return value
        return None

    def _passed_function(self, func: cst.Name, scope: Optional[FunctionInfo], depth: int = 0) -> bool:
        """``f(x)`` where ``f`` is a parameter of a function (this one or one around it), bound nowhere
        else: it is whatever the callers pass.  Pure when that function is only ever called in this module
        (its name appears nowhere else but as the callee of its calls, so no caller hides behind a
        reference) and every call passes a pure function of the module for ``f`` (a def, a lambda, what a
        factory returns, or a parameter of the caller that is itself such a pass-through)."""
        if scope is None or depth > 3:
            return False
        home = scope.scope.resolve(func.value)
        owner = self.index.infos.get(home.node) if home is not None and home.kind == Scope.FUNCTION else None
        binds = home.bindings_of(func.value) if home is not None else []
        if owner is None or owner.is_method or not isinstance(owner.node, cst.FunctionDef) or len(binds) != 1 \
                or binds[0].kind is not BindingKind.PARAMETER or owner in self._passing:
            return False
        name = owner.node.name.value
        calls = self.index.calls_by_name.get(name, [])
        callees = {id(call.func) for call in calls}
        if not calls or any(m is not owner.node.name and id(m) not in callees for m in self.index.mentions(name)):
            return False
        param = binds[0].node
        self._passing.add(owner)
        try:
            for call in calls:
                here, cls = self.index.call_scopes.get(call, (None, None))
                cls = here.cls if here is not None else cls
                if self.index.resolve_function(call.func, here, cls)[0] is not owner:
                    return False
                bound = [arg.value for arg, p in bind_arguments(owner.params, call.args) if p is param]
                value = bound[0] if bound else param.default
                if value is None:
                    return False
                fn, _ = self.index.resolve_function(value, here, cls)
                if fn is not None:
                    if not self.function(fn):
                        return False
                elif not (isinstance(value, cst.Name) and self._passed_function(value, here, depth + 1)):
                    return False
            return True
        finally:
            self._passing.discard(owner)

    def _is_array(self, node: cst.CSTNode) -> bool:
        value = self.facts.value(node)
        return value.kind is Kind.TRACED or value.is_array or value.jax_array

    def _is_bound(self, name: str, scope: Optional[FunctionInfo]) -> bool:
        s = scope
        while s is not None:
            if name in s.local_names:
                return True
            s = s.parent
        return name in self.index.globals

    def _function_args_pure(self, call: cst.Call, scope: Optional[FunctionInfo]) -> bool:
        """Functions handed to a call are called by it: user functions among them must be pure."""
        for arg in call.args:
            value = arg.value
            if isinstance(value, (cst.Name, cst.Attribute)) and self.index.qualify(value) is None:
                fn, _ = self.index.resolve_function(value, scope, scope.cls if scope is not None else None)
                if fn is not None and not self.function(fn):
                    return False
        return True


def _root(node: cst.CSTNode) -> Optional[cst.CSTNode]:
    while isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node


def _target_parts(target: cst.CSTNode) -> List[cst.CSTNode]:
    if isinstance(target, (cst.Tuple, cst.List)):
        out: List[cst.CSTNode] = []
        for el in target.elements:
            out.extend(_target_parts(el.value))
        return out
    return [target]


__all__ = ["Purity"]
