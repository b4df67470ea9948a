"""JIT4xx: shapes that depend on traced values."""
from __future__ import annotations

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.syntax import call_argument, has_keyword
from jitlint.analysis.values import Kind
from jitlint.rules.base import Rule
from jitlint.rules.control_flow import is_python_container


class ValueDependentShape(Rule):
    """## What it does
    Flags operations whose output shape depends on traced values: boolean-mask
    indexing (`x[x > 0]`, `x.at[mask].set(v)`) with a traced mask,
    `jnp.nonzero` / `argwhere` / `flatnonzero` / `unique` / `compress` /
    `extract` / set operations without `size=`, `jnp.bincount` without
    `length=`, and one-argument `jnp.where`.

    ## Why is this bad?
    XLA compiles for fixed shapes. `x[x > 0]` raises
    `jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be
    concrete`; `jnp.nonzero(x)` raises `ConcretizationTypeError`.

    ## Example
    ```python
    @jax.jit
    def positive_sum(x):
        return x[x > 0].sum()
    ```

    Use instead:
    ```python
    @jax.jit
    def positive_sum(x):
        return jnp.where(x > 0, x, 0).sum()
    ```
    or pass `size=` (an upper bound; results are padded, and silently
    truncated if the bound is too small).

    ## Fix safety
    No automatic fix: the padding that `size=` introduces must be handled by
    the code that follows.

    ## References
    - [`NonConcreteBooleanIndexError`](https://docs.jax.dev/en/latest/errors.html)
    - [`jax.numpy.nonzero`](https://docs.jax.dev/en/latest/_autosummary/jax.numpy.nonzero.html)
    """

    code = "JIT401"
    name = "value-dependent-shape"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        ctx = self.ctx
        base = ctx.value(node.value)
        if base.kind is not Kind.TRACED and not base.jax_array:
            return
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            index = ctx.value(element.slice.value)
            if index.kind is Kind.TRACED and index.is_bool:
                self.report(node, f"boolean mask `{ctx.code(element.slice.value)}` makes the shape of "
                                  f"`{ctx.code(node)}` depend on traced values", index.reason)
                return

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        q = ctx.qualify(node.func)
        if q is None:
            return
        short = q.replace("jax.numpy.", "jnp.")
        keyword = jax_api.SIZE_KEYWORD_FUNCTIONS.get(q)
        if keyword is not None:
            if has_keyword(node, keyword) or not node.args:
                return
            value = ctx.value(node.args[0].value)
            if value.kind is Kind.TRACED or value.jax_array:
                self.report(node, f"`{short}()` without `{keyword}=` has an output shape that depends on "
                                  "traced values", value.reason)
        elif q == "jax.numpy.where":
            positional = [a for a in node.args if a.keyword is None and not a.star]
            if len(positional) == 1 and len(node.args) == 1:
                value = ctx.value(positional[0].value)
                if value.kind is Kind.TRACED:
                    self.report(node, "one-argument `jnp.where()` has an output shape that depends on traced "
                                      "values; pass `size=` or use three arguments", value.reason)


class TracedShape(Rule):
    """## What it does
    Flags a traced value used where JAX needs a static integer: a shape or
    size (`jnp.zeros(n)`, `jnp.arange(n)`, `x.reshape(n, -1)`,
    `jax.random.normal(key, (n,))`), an `axis=`, or a slice bound
    (`x[:n]`, `x[i:i + k]`).

    ## Why is this bad?
    Shapes are fixed at compile time:
    `TypeError: Shapes must be 1D sequences of concrete values of integer
    type, got (JitTracer(~int32[]),)`, or
    `IndexError: Slice entries must be static integers`. Python ints passed
    to a jitted function are traced unless marked static.

    ## Example
    ```python
    @jax.jit
    def pad(rows, pad_to):
        return jnp.zeros((pad_to, rows.shape[1]))
    ```

    Use instead:
    ```python
    @partial(jax.jit, static_argnames=("pad_to",))
    def pad(rows, pad_to):
        return jnp.zeros((pad_to, rows.shape[1]))
    ```
    For a traced start with a static length use
    `jax.lax.dynamic_slice(x, (i,), (k,))` (it clamps near the end).

    ## Fix safety
    Making the argument static recompiles for every new value (UNSAFE).

    ## References
    - [Static arguments in `jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)
    - [`jax.lax.dynamic_slice`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_slice.html)
    """

    code = "JIT402"
    name = "traced-shape"

    def _traced(self, node: cst.BaseExpression) -> bool:
        value = self.ctx.value(node)
        return value.kind is Kind.TRACED

    def visit_Subscript(self, node: cst.Subscript) -> None:
        for element in node.slice:
            s = element.slice
            if isinstance(s, cst.Slice):
                for bound in (s.lower, s.upper, s.step):
                    if bound is not None and self._traced(bound) and not is_python_container(self.ctx.value(bound)):
                        self.report(node, f"slice bound `{self.ctx.code(bound)}` is traced: slices need static "
                                          "integers", self.ctx.value(bound).reason)
                        return

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        q = ctx.qualify(node.func)
        if q is not None:
            for position, keyword in jax_api.SHAPE_ARGUMENTS.get(q, ()):
                arg = call_argument(node, position, keyword)
                if arg is not None and self._traced(arg.value):
                    what = keyword if keyword not in ("start", "stop", "step") else "bound"
                    self.report(node, f"traced `{ctx.code(arg.value)}` used as the {what} of "
                                      f"`{ctx.code(node.func)}()`: it must be static", ctx.value(arg.value).reason)
                    return
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in jax_api.SHAPE_METHODS:
            receiver = ctx.value(node.func.value)
            if receiver.kind is Kind.TRACED or receiver.is_array:
                for arg in node.args:
                    if self._traced(arg.value):
                        self.report(node, f"traced `{ctx.code(arg.value)}` used as a shape in "
                                          f"`.{node.func.attr.value}()`: it must be static",
                                    ctx.value(arg.value).reason)
                        return
        if q is None and not isinstance(node.func, cst.Attribute):
            return
        if q is not None and not q.startswith(jax_api.ARRAY_MODULES):
            return
        if q is None and ctx.value(node.func.value).kind is not Kind.TRACED:
            return
        axis = call_argument(node, None, "axis")
        if axis is not None and self._traced(axis.value):
            self.report(node, f"traced `{ctx.code(axis.value)}` used as `axis=`: axes must be static",
                        ctx.value(axis.value).reason)


RULES = [ValueDependentShape, TracedShape]
