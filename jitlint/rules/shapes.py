"""JIT4xx: shapes that depend on traced values."""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.syntax import call_argument, has_keyword
from jitlint.analysis.values import Kind, Reason
from jitlint.rules.base import Rule, RuleContext
from jitlint.rules.control_flow import is_python_container


class ValueDependentShape(Rule):
    """## What it does
    Flags operations whose output shape depends on traced values: boolean-mask
    indexing (`x[x > 0]`, `x.at[mask].set(v)`) with a traced mask (a
    comparison, `jnp.isnan(x)`, `jax.random.bernoulli(...)`,
    `m.astype(bool)`), `jnp.nonzero` / `argwhere` / `flatnonzero` / `unique`
    / `compress` / `extract` / set operations and the `.nonzero()` method
    without `size=`, `jnp.bincount` without `length=`, `jnp.repeat(x, counts)`
    with traced `counts` and no `total_repeat_length=`, and one-argument
    `jnp.where`. Those functions are flagged on module-level NumPy or JAX
    constants too: inside traced code `jnp` turns a constant into a traced
    array (`np.nonzero(CONST)` stays static).

    ## Why is this bad?
    XLA compiles for fixed shapes. `x[x > 0]` raises
    `jax.errors.NonConcreteBooleanIndexError: Array boolean indices must be
    concrete`; `jnp.nonzero(x)` raises `ConcretizationTypeError`.

    ## Example
    ```python
    import jax

    @jax.jit
    def positive_sum(x):
        return x[x > 0].sum()
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def positive_sum(x):
        return jnp.where(x > 0, x, 0).sum()
    ```
    or pass `size=` (an upper bound; results are padded, and silently
    truncated if the bound is too small).

    ## Fix safety
    A boolean mask becomes a `jnp.where` over the whole array: `x[m] = v` ->
    `x = jnp.where(m, v, x)` (`+=`, `-=`, `*=` too), `x.at[m].set(v)` ->
    `jnp.where(m, v, x)` (`.add`, `.multiply`, `.min`, `.max` too),
    `x[m].sum()` -> `jnp.where(m, x, 0).sum()` (also a selection under
    element-wise work held in a name only reduced, `excess = t[t > b] - b;
    excess.sum()` -> `jnp.where(t > b, t - b, 0).sum()`: a traced operand
    there meets a selection whose length the data decides, so only a single
    value broadcasts against it), `x[m].mean()` ->
    `jnp.where(m, x, 0).sum() / m.sum()`, `x[m].std()` / `.var()` ->
    `x.std(where=m)` (JAX reduces over the elements `where` keeps); an
    index `x[jnp.where(c)]` counts as
    the mask `c`, also through a name used once (`idx = jnp.where(c)` and
    then `x[idx]`, with nothing in between rebinding what `c` reads: the
    assignment goes, `c` is written at the use). Only where the mask is proven to have `x`'s shape: boolean
    (a comparison, `jnp.isnan`..., `~`/`&`/`|` of those, `.astype(bool)`) and
    element-wise in `x` itself (then indexing ran only where its shape is
    `x`'s), in place or through the one assignment of a name. A boolean mask
    of unknown rank (`X[labels == j]`) covers the leading axes of `x`: mask
    and array are reversed so that `jnp.where` broadcasts it over the others
    (`jnp.where(m.T, x.T, 0).T.sum(axis=tuple(range(m.ndim)))` for
    `.sum(axis=0)`). The value written must be a number, a module constant,
    one value of an array (a reduction over every axis, `jnp.median(x)`, or a
    name bound once to one: broadcast as a number is), or `y[m]` with a mask
    of `x`'s shape (else the fix is display-only: a value of the selected
    size has no fixed shape).

    The masked `.sum()` with the mask in place is SAFE: the same elements
    are added, zeros standing for the others. The rest is UNSAFE: `x[m] = v`
    ran only on a NumPy array, changed in place for every name bound to it;
    `jnp.where` promotes where an indexed write casts (`0.5` into an int
    array); a `float16` mean is summed in `float16`; a named mask is checked
    where it is assigned. `size=` is added only where the code reads fixed
    leading positions and nothing else of `jnp.nonzero` / `jnp.argwhere` /
    `jnp.flatnonzero` (`rows, cols = jnp.nonzero(grid == GOAL)`, then
    `rows[0]`, `cols[0]`: `size=1`): UNSAFE, where fewer positions are found
    eager indexing raised `IndexError` and the sized call gives 0. Elsewhere
    the padding `size=` brings must be handled by the code that follows.
    `jnp.unique(x)` read only as the values a membership test checks against
    (`jnp.isin(catalog, jnp.unique(recommended))`, also through a name bound
    once to it; not with `assume_unique=True`) becomes `x` itself: SAFE,
    repeats do not change membership, and `x` has a fixed shape. Positions
    read only by sums and means (`ys, xs = jnp.nonzero(img > t)`, then
    `ys.mean()`, `jnp.sum(xs)`) become every position, `jnp.indices(mask.shape)`,
    summed where the mask holds (`jnp.where(mask, ys, 0).sum()`, a mean
    divided by `mask.sum()`; the mask bound to a name first): UNSAFE, an
    integer sum is of the default integer type. Positions read only as the
    index of updates of one array (`idx = jnp.nonzero(m)[0][:k]`, then `out
    = out.at[idx].set(y[idx])`, `.add`, ...) get `size=m.size,
    fill_value=out.shape[0]`: the positions found come first as before, and
    the padding indexes one past `out`'s end, an update JAX drops (UNSAFE:
    the index array is longer; not with a `mode=`).

    ## References
    - [`NonConcreteBooleanIndexError`](https://docs.jax.dev/en/latest/errors.html)
    - [`jax.numpy.nonzero`](https://docs.jax.dev/en/latest/_autosummary/jax.numpy.nonzero.html)
    """

    code = "JIT401"
    name = "value-dependent-shape"
    fix_title = "Select with `jnp.where` over the whole array instead of indexing with the mask"

    def visit_Subscript(self, node: cst.Subscript) -> None:
        ctx = self.ctx
        base = ctx.value(node.value)
        if base.kind is not Kind.TRACED and not base.jax_array:
            return
        for element in node.slice:
            if not isinstance(element.slice, cst.Index):
                continue
            if ctx.traced_mask(element.slice.value):
                self.report(node, f"boolean mask `{ctx.code(element.slice.value)}` makes the shape of "
                                  f"`{ctx.code(node)}` depend on traced values", ctx.value(element.slice.value).reason)
                return

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        q = ctx.qualify(node.func)
        if q is None:
            if isinstance(node.func, cst.Attribute):
                self._method(node, node.func)
            return
        short = q.replace("jax.numpy.", "jnp.")
        count = jax_api.COUNT_ARGUMENTS.get(q)
        if count is not None:
            self._traced_count(node, count, f"`{short}()`")
            return
        keyword = jax_api.SIZE_KEYWORD_FUNCTIONS.get(q)
        if keyword is not None:
            if has_keyword(node, keyword) or not node.args:
                return
            value = ctx.value(node.args[0].value)
            if value.kind is Kind.TRACED or ((value.jax_array or value.numpy_array) and ctx.body.staged):
                self.report(node, f"`{short}()` without `{keyword}=` has an output shape that depends on "
                                  "traced values", self._why(node.args[0].value))
        elif q == "jax.numpy.where":
            positional = [a for a in node.args if a.keyword is None and not a.star]
            if len(positional) == 1 and len(node.args) == 1:
                value = ctx.value(positional[0].value)
                if value.kind is Kind.TRACED or ((value.jax_array or value.numpy_array) and ctx.body.staged):
                    self.report(node, "one-argument `jnp.where()` has an output shape that depends on traced "
                                      "values; pass `size=` or use three arguments", self._why(positional[0].value))

    def _why(self, arg: cst.BaseExpression) -> Optional[Reason]:
        value = self.ctx.value(arg)
        if value.kind is Kind.TRACED:
            return value.reason
        # a module-level constant: jnp turns it into a traced array inside staged traced code
        return Reason(arg, "`{code}` is a module-level constant, but inside traced code `jnp` turns it into a "
                           "traced array: use the NumPy function (`np.nonzero`, `np.unique`, ...) for a static "
                           "result")

    def _method(self, node: cst.Call, func: cst.Attribute) -> None:
        """``(g != 0).nonzero()``, ``x.repeat(counts)`` on a traced array."""
        ctx = self.ctx
        method = func.attr.value
        receiver = ctx.value(func.value)
        if (receiver.kind is not Kind.TRACED and not receiver.jax_array) or is_python_container(receiver):
            return
        keyword = jax_api.SIZE_KEYWORD_METHODS.get(method)
        if keyword is not None and not has_keyword(node, keyword):
            self.report(node, f"`.{method}()` without `{keyword}=` has an output shape that depends on traced "
                              "values", receiver.reason)
            return
        count = jax_api.COUNT_METHODS.get(method)
        if count is not None:
            self._traced_count(node, count, f"`.{method}()`")

    def _traced_count(self, node: cst.Call, count, label: str) -> None:
        (position, name), bound = count
        if has_keyword(node, bound):
            return
        arg = call_argument(node, position, name)
        if arg is None:
            return
        value = self.ctx.value(arg.value)
        if value.kind is Kind.TRACED and not is_python_container(value):
            self.report(node, f"{label} with traced {name} `{self.ctx.code(arg.value)}` and without "
                              f"`{bound}=` has an output shape that depends on traced values", value.reason)


#: names that hold a count, not an array: ``n``, ``num_bins``, ``n_items``, ``batch_size``, ``seq_len``
_COUNT_NAME = re.compile(r"^_*(n|num|nbins|size|length|count|n_\w+|num_\w+|\w+_(size|len|length|count|num))$")


class TracedShape(Rule):
    """## What it does
    Flags a traced value used where JAX needs a static integer: a shape or
    size (`jnp.zeros(n)`, `jnp.arange(n)`, `x.reshape(n, -1)`,
    `jax.random.normal(key, (n,))`, `jax.image.resize(img, (h, w, c), ...)`,
    `lax.top_k(x, k)`, the size of `lax.dynamic_slice_in_dim`), an `axis=`,
    the indices of `lax.slice` / `lax.slice_in_dim`, or a slice bound
    (`x[:n]`, `x[i:i + k]`). Where an argument may be an array or an int
    (`jax.random.permutation(key, n)`, `jnp.histogram(x, bins=n)`), only a
    clear int is flagged: an `int` parameter or a count-like name (`n`,
    `num_bins`, `batch_size`).

    A size read from a parameter annotated with a class defined outside the
    checked code (`jnp.zeros((model.nv,))` of `model: mjx.Model`) is not
    flagged: whether that field is a leaf or static metadata is the
    library's choice, and a size there is metadata (MJX keeps every field
    that is not an array static) -- used as a shape, the code runs only if it
    is. The same read from an unannotated parameter, or from a class of the
    checked code with the field traced, is flagged.

    ## Why is this bad?
    Shapes are fixed at compile time:
    `TypeError: Shapes must be 1D sequences of concrete values of integer
    type, got (JitTracer(~int32[]),)`, or
    `IndexError: Slice entries must be static integers`. Python ints passed
    to a jitted function are traced unless marked static.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def pad(rows, pad_to):
        return jnp.zeros((pad_to, rows.shape[1]))
    ```

    Use instead:
    ```python
    from functools import partial

    import jax
    import jax.numpy as jnp

    @partial(jax.jit, static_argnames=("pad_to",))
    def pad(rows, pad_to):
        return jnp.zeros((pad_to, rows.shape[1]))
    ```
    For a traced start with a static length use
    `jax.lax.dynamic_slice(x, (i,), (k,))` (it clamps near the end).

    ## Fix safety
    A slice with a traced bound that is summed becomes a mask of positions:
    `x[:k].sum()` -> `jnp.where(jnp.indices(x.shape)[0] < k, x, 0).sum()`
    (`x[j:]`: `>= j`; `x[j:k]`: both; `jnp.indices(x.shape)[0]` is the
    position along the first axis, of `x`'s shape, so any rank fits), when
    the slice has no step and `x` is a name. UNSAFE: a negative bound counts
    from the end in a slice but not in the mask. Rows read only by
    reductions over all their elements -- `x[:k].mean()`, `jnp.max(x[:k])`, or
    a name bound once to them (or to element-wise work on them) whose every
    read is one (`valid = rec[:length]`, then `jnp.mean(valid ** 2)`) -- are
    reduced whole under the mask of the rows: the rows left out get the
    reduction's identity, a mean divides by the number kept
    (`jnp.mean(x, where=mask)`). UNSAFE: a slice of no row gives the identity
    (a mean: nan) where `max` of it raised. Not for a count of the rows or a
    reduction along an axis. A window of static width
    at a traced place (`x[s:s + w]`, `x[:, s - p:s + q]`, `x[s - p:s]`, every
    other index a full `:`, no step) becomes
    `lax.dynamic_slice_in_dim(x, s - p, p + q, axis=1)`. UNSAFE: where the
    window runs past an end the slice was shorter (or, from a negative
    start, counted from the end), while `dynamic_slice` moves the window
    inside the array. Otherwise a traced size or
    bound that is a parameter used only where a static value is needed
    (`jax.random.normal(key, (n,))`, the `k` of `lax.top_k(x, k)`) is made
    static (`static_argnames`): UNSAFE, it recompiles for every new value;
    a slice's stride (`x[:, ::factor]`) counts as a size, and a helper of
    the module it is passed to counts by what the helper does with it; also
    through a local bound once to arithmetic on it (`extra = target_len -
    x.shape[1]`, then `jnp.pad(x, ((0, 0), (0, extra)))`). Only the size
    arguments of the call count (`jnp.linspace(0.0, length, n)` makes `n`
    static, not the traced stop `length`), and not where a call seen passes
    the parameter an array (`jnp.int32(8)`: a static array is unhashable,
    and jit raises). For `__call__` of a flax linen Module jitted as
    `jax.jit(MODEL.apply)`, the position is apply's: linen's `apply(variables,
    *args)` passes its arguments after the variables on to `__call__`, so
    `def __call__(self, x, valid_len)` gets `static_argnums=(2,)` (where
    every call passes it by position).

    ## References
    - [Static arguments in `jax.jit`](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)
    - [`jax.lax.dynamic_slice`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.dynamic_slice.html)
    """

    code = "JIT402"
    name = "traced-shape"
    fix_title = "Mask positions (`jnp.arange(n) < k`) instead of slicing, or make the size static"

    def _traced(self, node: cst.BaseExpression) -> bool:
        """Traced, and not (only) a size a library's object carries: ``jnp.zeros((model.nv,))`` of ``model:
        mjx.Model`` -- such a size used as a shape is that library's static metadata, the only way
        the code runs (MJX keeps every field that is no array static)."""
        value = self.ctx.value(node)
        if value.kind is not Kind.TRACED or value.foreign:
            return False
        items = [self.ctx.value(el.value) for el in node.elements if isinstance(el, cst.Element)] \
            if isinstance(node, (cst.Tuple, cst.List)) else list(value.items or ())
        traced_items = [item for item in items if item.kind is Kind.TRACED]
        return not (traced_items and all(item.foreign for item in traced_items))

    def _clearly_int(self, node: cst.BaseExpression) -> bool:
        """A traced value that is an int size, not an array: an ``int`` parameter or a count-like name,
        possibly in integer arithmetic (``n + 1``)."""
        if isinstance(node, cst.BinaryOperation) and isinstance(
                node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
            sides = [node.left, node.right]
            if all(isinstance(side, cst.Integer) or self._clearly_int(side) for side in sides):
                return any(not isinstance(side, cst.Integer) for side in sides)
            return False
        value = self.ctx.value(node)
        if value.kind is not Kind.TRACED or value.is_array or is_python_container(value):
            return False
        if isinstance(node, cst.Attribute):
            return bool(_COUNT_NAME.match(node.attr.value))
        if not isinstance(node, cst.Name):
            return False
        if _COUNT_NAME.match(node.value):
            return True
        if self.ctx.body is None:
            return False
        for param, _ in self.ctx.function.params:
            if param.name.value == node.value and param.annotation is not None:
                annotation = param.annotation.annotation
                return isinstance(annotation, cst.Name) and annotation.value == "int"
        return False

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
            for position, keyword in jax_api.SIZE_OR_ARRAY_ARGUMENTS.get(q, ()):
                arg = call_argument(node, position, keyword)
                if arg is not None and self._clearly_int(arg.value):
                    self.report(node, f"traced int `{ctx.code(arg.value)}` passed as `{keyword}` of "
                                      f"`{ctx.code(node.func)}()`: an int there is a size, which must be static",
                                ctx.value(arg.value).reason)
                    return
            for position, keyword in jax_api.SHAPE_ARGUMENTS.get(q, ()):
                arg = call_argument(node, position, keyword)
                if arg is not None and self._traced(arg.value):
                    what = keyword if keyword not in ("start", "stop", "step") else "bound"
                    self.report(node, f"traced `{ctx.code(arg.value)}` used as the {what} of "
                                      f"`{ctx.code(node.func)}()`: it must be static", ctx.value(arg.value).reason)
                    return
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value in jax_api.SHAPE_METHODS:
            receiver = ctx.value(node.func.value)
            if (receiver.kind is Kind.TRACED or receiver.is_array) and not own_method(node.func, ctx):
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
        if q is None and (ctx.value(node.func.value).kind is not Kind.TRACED or own_method(node.func, ctx)):
            return
        axis = call_argument(node, None, "axis")
        if axis is not None and self._traced(axis.value):
            self.report(node, f"traced `{ctx.code(axis.value)}` used as `axis=`: axes must be static",
                        ctx.value(axis.value).reason)
            return
        positions = jax_api.AXIS_POSITIONS.get(q or "", ())
        if q is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in jax_api.AXIS_METHODS \
                and not _is_at_update(node.func.value, ctx):
            positions = (0,)  # `x.min(axis)`: an array method's first argument is the axis
        for position in positions:
            arg = call_argument(node, position, None)
            if arg is not None and self._traced(arg.value):
                self.report(node, f"traced `{ctx.code(arg.value)}` used as the axis of `{ctx.code(node.func)}()`: "
                                  "axes must be static", ctx.value(arg.value).reason)
                return


def own_method(func: cst.Attribute, ctx: RuleContext) -> bool:
    """``obj.mean(state, t)`` where ``obj``'s class, a class of the checked code, defines ``mean``: the call
    runs that method, whatever ``mean`` means for an array (hanyas/tox: a policy NamedTuple's
    ``self.mean(state, time)`` is ``K[t] @ state + kff[t]``, not a reduction over an axis).  The class is
    the one the value is known to be an instance of, or, for a method's own ``self``, the method's class."""
    name = func.attr.value
    owner = ctx.value(func.value).pytree_class
    if owner is not None:
        for definition in [owner, *owner.imported_bases()]:
            cls = definition.index.classes.get(definition.name)
            if cls is not None and definition.index.find_method(cls, name) is not None:
                return True
    receiver = func.value
    fn = ctx.function if ctx.body is not None else None
    if not (isinstance(receiver, cst.Name) and fn is not None and fn.is_method and fn.cls is not None
            and fn.params and fn.params[0][0].name.value == receiver.value):
        return False
    if ctx.facts.read_scope.get(receiver) != "local" or len(fn.scope.bindings_of(receiver.value)) != 1:
        return False  # (`self` bound to something else in the method)
    return ctx.index.find_method(fn.cls, name) is not None


def _is_at_update(receiver: cst.BaseExpression, ctx: RuleContext) -> bool:
    """``x.at[i]``, or a local bound once to it (``ref = x.at[i]``): its ``.min(v)`` / ``.max(v)`` are
    scatter updates with values, not reductions (verified on JAX 0.10.2: ``ref.max(values)`` under jit
    scatters ``values``)."""
    if isinstance(receiver, cst.Name) and ctx.body is not None:
        bound = ctx.index.single_value(receiver.value, ctx.function)
        receiver = bound if bound is not None else receiver
    return isinstance(receiver, cst.Subscript) and isinstance(receiver.value, cst.Attribute) \
        and receiver.value.attr.value == "at"


RULES = [ValueDependentShape, TracedShape]
