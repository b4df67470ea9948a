"""JIT5xx: compilation hazards -- recompiling, and static arguments that cannot work."""
from __future__ import annotations

from typing import Iterable, List, Set

import libcst as cst

from jitlint.analysis.discovery import EntryPoint, FunctionInfo
from jitlint.rules.base import Rule

#: transforms that compile and cache per function object
_COMPILING = frozenset({"jax.jit", "jax.pjit", "jax.experimental.pjit.pjit", "jax.pmap", "equinox.filter_jit",
                        "equinox.filter_pmap", "flax.nnx.jit", "flax.linen.jit"})
_FROZEN_DECORATORS = ("frozen=True", "struct.dataclass", "register_static", "register_dataclass",
                      "register_pytree_node_class", "register_pytree_with_keys_class")


def _compiling(entry: EntryPoint) -> bool:
    return entry.transform is not None and entry.transform.name in _COMPILING and not entry.all_traced


def _positional(fn: FunctionInfo) -> List[cst.Param]:
    return [p for p, kind in fn.params if kind in ("posonly", "positional")]


def _static_params(entry: EntryPoint) -> Set[str]:
    positional = _positional(entry.function)
    if entry.self_bound and positional:
        positional = positional[1:]
    names = set(entry.static_names or ())
    for i in entry.static_nums or ():
        j = i + len(positional) if i < 0 else i
        if 0 <= j < len(positional):
            names.add(positional[j].name.value)
    return names


def _what(fn: FunctionInfo, entry: EntryPoint) -> str:
    if isinstance(fn.node, cst.Lambda):
        return "a lambda"
    if entry.partial_positional or entry.partial_keywords:
        return "a `functools.partial`"
    return "a nested function"


def _runs_once(scope: FunctionInfo) -> bool:
    """Test functions and entry points run once: compiling there is not a hazard."""
    top = scope
    while top.parent is not None:
        top = top.parent
    cls_name = top.cls.name if top.cls is not None else ""
    script = any(word in top.name for word in ("example", "demo", "benchmark"))
    return script or top.name.startswith(("test", "_test")) or top.name in ("main", "_main") or (
        cls_name.startswith("Test") or cls_name.endswith("Test"))


def _visible_calls(rule: Rule, entry: EntryPoint) -> Iterable[cst.Call]:
    yield from entry.direct_calls
    for name in entry.call_names:
        yield from rule.ctx.index.calls_by_name.get(name, ())


class RecompilationHazard(Rule):
    """## What it does
    Flags code that makes `jax.jit` compile again and again: a jit wrapper
    created per call or per loop iteration around a fresh callable (a
    `lambda`, a nested `def`, a `functools.partial`), and a static argument
    given a value that changes on every call (a loop counter).

    Re-wrapping the same top-level function, `jax.jit(f)` in a loop, is not
    flagged: the compilation cache is keyed on the function object.

    ## Why is this bad?
    The cache is keyed on the function object and the static arguments. A new
    lambda or partial each time is a new function: every call traces and
    compiles from scratch (three iterations, three compilations), which is
    often slower than not jitting at all.

    ## Example
    ```python
    def evaluate(params, batches):
        for xb, yb in batches:
            loss = jax.jit(lambda p: mse(p, xb, yb))(params)
    ```

    Use instead:
    ```python
    mse_jit = jax.jit(mse)

    def evaluate(params, batches):
        for xb, yb in batches:
            loss = mse_jit(params, xb, yb)
    ```

    ## Fix safety
    No automatic fix: hoisting changes what the function closes over.

    ## References
    - [`jax.jit` caching](https://docs.jax.dev/en/latest/jit-compilation.html#caching)
    """

    code = "JIT501"
    name = "recompilation-hazard"

    def check_module(self) -> None:
        index = self.ctx.index
        traced_scopes = set(self.ctx.facts.bodies)
        for entry in index.entries:
            if not _compiling(entry):
                continue
            if entry.scope is not None and entry.scope in traced_scopes:
                continue  # inside traced code jit is inlined, not compiled per call
            self._fresh_wrapper(entry)
            self._changing_static(entry)

    def _fresh_wrapper(self, entry: EntryPoint) -> None:
        """A jit wrapper around a new function object each time, used once.

        Created in a loop around a callable made in that loop; or, outside loops,
        made and called once per call of the enclosing function (a wrapper that is
        then called many times in a loop amortises its compilation and is fine).
        Functions run once by design -- tests, ``main`` -- are left alone.
        """
        index = self.ctx.index
        fn = entry.function
        site = entry.site
        scope = entry.scope
        if scope is not None and _runs_once(scope):
            return
        if isinstance(site, cst.Decorator):
            if fn.parent is None:
                return
            calls = index.scope_calls.get((fn.parent, fn.name), [])
            if fn.defined_in_loop or (len(calls) == 1 and calls[0] not in index.calls_in_loops):
                self.report(site, f"`{fn.name}` is jitted anew on every call of `{fn.parent.label}` and used once: "
                                  "each new function object is traced and compiled again")
            return
        if not isinstance(site, cst.Call):
            return
        made_per_call = isinstance(fn.node, cst.Lambda) or bool(entry.partial_positional or entry.partial_keywords)
        if not made_per_call and fn.parent is None:
            return  # a top-level function: the cache is keyed on it, no recompilation
        if site in index.calls_in_loops:
            if made_per_call or fn.defined_in_loop:
                self.report(site, f"`jax.jit` of {_what(fn, entry)} on every loop iteration: a fresh callable is "
                                  "traced and compiled each time")
            return
        if scope is None:
            return
        calls = [c for name in entry.call_names if not name.startswith(("self.", "."))
                 for c in index.scope_calls.get((scope, name), [])]
        if site in index.called_immediately:
            calls.append(index.called_immediately[site])
        if len(calls) == 1 and calls[0] not in index.calls_in_loops:
            self.report(site, f"`jax.jit` of {_what(fn, entry)} on every call of `{scope.label}`, used once: a "
                              "fresh callable is traced and compiled each time")

    def _changing_static(self, entry: EntryPoint) -> None:
        index = self.ctx.index
        static = _static_params(entry)
        filter_static = entry.transform is not None and entry.transform.filter_static
        if not static and not filter_static:
            return
        positional = _positional(entry.function)
        if entry.self_bound and positional:
            positional = positional[1:]
        for call in _visible_calls(self, entry):
            loops = index.calls_in_loops.get(call)
            if not loops:
                continue
            loop_vars = {name for marker in loops for name in marker.split(",") if name != "*"}
            position = 0
            for arg in call.args:
                if arg.star:
                    break
                if arg.keyword is None:
                    name = positional[position].name.value if position < len(positional) else None
                    position += 1
                else:
                    name = arg.keyword.value
                if (name in static or filter_static) and isinstance(arg.value, cst.Name) \
                        and arg.value.value in loop_vars:
                    self.report(call, f"static argument `{name}` changes on every iteration (`{arg.value.value}`): "
                                      "each new value compiles the function again")
                    return


class BadStaticArguments(Rule):
    """## What it does
    Flags `static_argnames` naming a parameter that does not exist,
    `static_argnums` out of range, an unhashable value (list, dict, set,
    array) passed to or defaulted for a static parameter, and a parameter
    passed by keyword when both `static_argnums` and `static_argnames` are
    given (JAX then does not map one onto the other, so it is silently
    traced).

    ## Why is this bad?
    `ValueError: Jitted function has invalid argnames {'nope'} in
    static_argnames`; `ValueError: Non-hashable static arguments are not
    supported`; or a parameter meant to be static is traced after all.

    ## Example
    ```python
    @partial(jax.jit, static_argnames=("layer_sizes",))
    def init(key, layer_sizes): ...

    init(key, layer_sizes=[4, 3])
    ```

    Use instead:
    ```python
    init(key, layer_sizes=(4, 3))
    ```

    ## Fix safety
    No automatic fix.

    ## References
    - [`jax.jit` static arguments](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)
    """

    code = "JIT502"
    name = "bad-static-arguments"

    def check_module(self) -> None:
        for entry in self.ctx.index.entries:
            if entry.transform is None or entry.all_traced or not entry.spec_args:
                continue
            self._check_spec(entry)
            self._check_calls(entry)

    def _check_spec(self, entry: EntryPoint) -> None:
        fn = entry.function
        kinds = {kind for _, kind in fn.params}
        names = {p.name.value for p, _ in fn.params}
        positional = _positional(fn)
        if entry.self_bound and positional:
            positional = positional[1:]
        for arg in entry.spec_args:
            key = arg.keyword.value if arg.keyword is not None else ""
            if key in entry.transform.static_argnames_kw and entry.static_names and "varkw" not in kinds:
                missing = [n for n in entry.static_names if n not in names]
                if missing:
                    self.report(arg, f"`static_argnames` names {', '.join(repr(m) for m in missing)}, which "
                                     f"`{fn.label}` does not take")
            elif key in entry.transform.static_argnums_kw and entry.static_nums and "vararg" not in kinds:
                bad = [i for i in entry.static_nums if not (-len(positional) <= i < len(positional))]
                if bad:
                    self.report(arg, f"`{key}={bad[0]}` is out of range: `{fn.label}` takes "
                                     f"{len(positional)} positional argument(s)")
        for p, _ in fn.params:
            if p.name.value in _static_params(entry) and p.default is not None and _unhashable(p.default):
                self.report(p, f"static parameter `{p.name.value}` defaults to an unhashable value")

    def _check_calls(self, entry: EntryPoint) -> None:
        static = _static_params(entry)
        positional = _positional(entry.function)
        if entry.self_bound and positional:
            positional = positional[1:]
        nums_names = set()
        for i in entry.static_nums or ():
            j = i + len(positional) if i < 0 else i
            if 0 <= j < len(positional):
                nums_names.add(positional[j].name.value)
        for call in _visible_calls(self, entry):
            position = 0
            for arg in call.args:
                if arg.star:
                    break
                if arg.keyword is None:
                    name = positional[position].name.value if position < len(positional) else None
                    position += 1
                else:
                    name = arg.keyword.value
                    if entry.both_static_kinds and name in nums_names and name not in (entry.static_names or ()):
                        self.report(call, f"`{name}` is passed by keyword, but it is static only by position "
                                          "(`static_argnums` and `static_argnames` are both given): it is traced")
                        return
                if name in static and _unhashable(arg.value):
                    self.report(call, f"unhashable value `{self.ctx.code(arg.value)}` passed to static "
                                      f"argument `{name}`")
                    return


def _unhashable(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
        tail = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value
        return tail in ("list", "dict", "set", "array", "asarray", "zeros", "ones")
    return False


class MutableStaticSelf(Rule):
    """## What it does
    Flags a jitted method whose `self` is static -- `jax.jit(self.method)`,
    `jax.jit(obj.method)`, or `static_argnums=0` on a method -- when the
    class changes its own attributes outside `__init__` / `setup`.

    ## Why is this bad?
    The compiled function keeps the attribute values it saw while tracing.
    After `obj.k = 10.0` it still computes with the old `k` (stale results),
    and with a `__hash__` over mutable fields a fresh, equal-looking object
    can receive another object's compiled code (cache poisoning).

    ## Example
    ```python
    class Scaler:
        def __init__(self, k):
            self.k = k
            self.f = jax.jit(self._f)

        def _f(self, x):
            return self.k * x

        def set_k(self, k):
            self.k = k
    ```

    Use instead: a frozen dataclass (`dataclasses.replace` to change it), or a
    pytree (`jax.tree_util.register_dataclass`) whose data fields are traced.

    ## Fix safety
    No automatic fix.

    ## References
    - [FAQ: how to use jit with methods](https://docs.jax.dev/en/latest/faq.html#how-to-use-jit-with-methods)
    """

    code = "JIT503"
    name = "mutable-static-self"

    def check_module(self) -> None:
        for entry in self.ctx.index.entries:
            if not _compiling(entry):
                continue
            fn = entry.function
            cls = fn.cls
            if cls is None or not fn.is_method or not cls.mutated_attributes or self._frozen(cls):
                continue
            positional = _positional(fn)
            self_static = entry.self_bound or (positional and positional[0].name.value in _static_params(entry))
            if not self_static:
                continue
            stale = sorted(set(cls.mutated_attributes) & self._attributes_read(fn))
            if not stale:
                continue
            mutator = sorted(cls.mutated_attributes[stale[0]])[0]
            self.report(entry.site, f"`{fn.label}` is jitted with `self` static and reads `self.{stale[0]}`, which "
                                    f"`{cls.name}.{mutator}` changes: later calls reuse the stale value")

    def _attributes_read(self, fn: FunctionInfo, depth: int = 0) -> Set[str]:
        """``self.x`` read in the method and in the methods it calls on self (one level)."""
        from jitlint.analysis.syntax import iter_children

        out: Set[str] = set()
        stack = [fn.node.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                out.add(node.attr.value)
            stack.extend(iter_children(node))
        if depth == 0 and fn.cls is not None:
            for name in list(out):
                method = fn.cls.methods.get(name)
                if method is not None:
                    out |= self._attributes_read(method, depth + 1)
        return out

    def _frozen(self, cls) -> bool:
        module = self.ctx.module
        for dec in cls.decorators:
            text = module.code_for_node(dec)
            if any(marker in text for marker in _FROZEN_DECORATORS):
                return True
        return any(base.split(".")[-1] in ("Module", "PyTreeNode", "NamedTuple") for base in cls.bases)


RULES = [RecompilationHazard, BadStaticArguments, MutableStaticSelf]
