"""JIT3xx: traced values turned into concrete Python or NumPy values."""
from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.syntax import error_statements, key_parts, name_references
from jitlint.analysis.values import Kind, Value
from jitlint.rules.base import Rule
from jitlint.rules.control_flow import is_python_container
from jitlint.rules.side_effects import format_error

_CONCRETIZING_BUILTINS = frozenset({"bool", "int", "float", "complex", "hash"})
_CONCRETIZING_METHODS = frozenset({"item", "tolist", "tobytes", "__index__", "__int__", "__float__"})


def _traced_array(value: Value) -> bool:
    return value.kind is Kind.TRACED and not is_python_container(value)


#: SciPy's result classes: dicts with attribute access (``OdeResult`` subclasses ``OptimizeResult``)
#: that store what they are given, tracers too, without converting it
_SCIPY_CONTAINERS = frozenset({"OptimizeResult", "OdeResult"})


class ConcretizeTracer(Rule):
    """## What it does
    Flags conversions of a traced value to a concrete Python value: `bool()`,
    `int()`, `float()`, `complex()`, `hash()`, `.item()`, `.tolist()`,
    `.tobytes()`, `math.*` functions, `operator.index`, indexing a Python
    list or tuple (or looking up a Python dict) with a traced index, and
    repeating a Python list by a traced count (`[0.0] * n`). Not `math.prod`:
    it multiplies its items with `*`, which arrays (tracers too) do as
    arrays -- `math.prod(x)`, `math.prod(gen, start=x)` give the traced product
    (run on JAX 0.10.2); where that product is used as a size, JIT402 says so.

    ## Why is this bad?
    A tracer has no value while JAX traces: `int(x)` raises
    `jax.errors.ConcretizationTypeError: Abstract tracer value encountered where
    concrete value is expected`, `bool(x)` raises `TracerBoolConversionError`,
    and `L[i]` raises `TracerIntegerConversionError`. Under plain `jax.grad`
    some of these work, and `.item()` silently cuts the gradient.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def n_samples(duration, dt):
        return int(jnp.ceil(duration / dt))
    ```

    Use instead:
    ```python
    import math
    from functools import partial

    import jax

    @partial(jax.jit, static_argnames=("duration", "dt"))
    def n_samples(duration, dt):
        return int(math.ceil(duration / dt))
    ```
    or keep the value as an array (`jnp.ceil(...).astype(jnp.int32)`).

    ## Fix safety
    When the Python number is only used as array data, the fix keeps it an
    array: `int(x)` -> `jnp.asarray(x, dtype=int)` (truncated toward zero, as
    `int()` does), `float(x)` -> `jnp.asarray(x, dtype=float)`, `bool(x)` ->
    `jnp.asarray(x, dtype=bool)`, `x.item()` -> `jnp.reshape(x, ())`. `int`
    and `float` are JAX's default dtypes: int32 and float32, int64 and float64
    with x64 enabled. "Only as array data" is proven from the code: followed
    upwards while it is still a Python number, the value meets only
    `+ - * / // %` (`**` for a float) with number literals, known numeric
    constants, sizes (`x.shape[i]`, `x.ndim`, `len(x)`), other such
    conversions or traced arrays; element-wise `jax.numpy` functions
    (`jnp.maximum`, `jnp.where`, `jnp.clip` and its `min=` / `max=`),
    `jnp.asarray` / `jnp.array` / `jnp.stack`; the value of a field a class
    of the module annotates `jax.Array` (`Transit(depth_ppm=float(d))`, a
    NamedTuple or dataclass with no `__init__` of its own); a `return` -- alone, or in a
    returned tuple, list or dict display -- from a function every call of which
    goes through `jax.jit` (jitted where it is defined, or a private
    module-level function whose name is read only to make jit wrappers of
    it: its results are arrays anyway); for an `int`, the whole index of a
    JAX array (`table[int(jnp.argmax(q))]`: a 0-d integer array selects the
    same element, negative positions and clamping alike), or the index of a
    module-level list or tuple of number literals, which the fix then indexes
    as an array (`SCALE[idx]` -> `jnp.asarray(SCALE)[idx]`, the same numbers
    as 0-d arrays); a local name bound only there whose every read is such
    a use; or an attribute a method stores it in (`self.temp_c = float(t)`,
    also in `self.a, self.b = float(a), float(b)`: a constructor run in the
    trace, a dataclass's `__post_init__`) whose every read in the module is
    such a use -- a read in a format spec or an `if` keeps the cast. A
    `bool(x)` is kept an array only where it is returned, or selects: the
    condition of `jnp.where`, the predicate of `lax.cond` / `lax.select`
    (a 0-d boolean array picks as the bool did). A comparison of the value
    with a number or a traced array counts where its flag is only an operand
    of `+ - *` with a Python number (`ORDER_COST * (units > 0)`: `5.0 * True`
    and `5.0 * jnp.asarray(True)` are both 5) or is used where a bool is
    kept (not two flags added: `True + True` is 2, `|` on bool arrays). No fix
    when the value reaches anything else: an `if`, another comparison, `range`, a
    shape, an index of another list, a
    string, a dict key, an argument of another function, a `return` from a
    helper, a nested function or lambda.

    `if float(x) > limit:` (`float()` as a side of an order or equality test
    of an `if` statement or conditional expression) -> the `jnp.where` /
    `lax.cond` JIT201's fix makes of `if x > limit:`: the same test of the
    same number (UNSAFE, as JIT201's rewrite; in float32 where Python
    compared in float64). Not `int()`: `int(2.5) > 2` is False, `2.5 > 2`
    True; and not where `limit` is known to be something a float does not
    compare with (a string, a container).

    The fix is always UNSAFE. The original never ran under `jax.jit`, so it is
    measured against eager execution, and differs from it: the result is a
    strongly typed int32 / float32 array where the Python number was weakly
    typed (`h * float(x)` is float16 for a float16 `h`; with the fix, float32),
    arithmetic Python did in float64 or in unbounded integers is done in
    float32 / int32 (wrapping past 2**31), and `int(nan)` / `int(inf)` raise
    where the conversion gives 0 and 2**31 - 1.

    `round(float(x), n)` (or `round(x.item(), n)`), `n` an int literal,
    whose result is only array data as above -> `jnp.round(x, n)`: UNSAFE,
    the same rounding to `n` decimals, ties to even, done on the array in
    float32 where Python rounded a float64. Not `round(x)` alone, which
    gives a Python int.

    `math.exp(x)` (and `log`, `sqrt`, the trigonometric and hyperbolic
    functions, `atan2`, `hypot`, `pow`, ...) of a traced value -> the
    `jax.numpy` function of the same meaning (`jnp.exp`, `jnp.arctan2`,
    `jnp.power`): UNSAFE, as above (an array in float32 where `math`
    computed a Python float in float64); `import math` stays. Not `floor`,
    `ceil`, `trunc`: they give a Python int, `jnp.floor` a float. So does
    `lat, lon = map(math.radians, a)` unpacked at once -> `lat, lon =
    jnp.radians(a)`: unpacking the array gives its items along the first
    axis, as the map gave the converted items (UNSAFE, as above).

    `a, b, c, d = x.tolist()` of a traced `x` -> `a, b, c, d = x`, where
    every name is used only as array data (as above): unpacking the array
    gives its items along the first axis, 0-d arrays where the list gave
    Python numbers. UNSAFE, as above.

    A Python dict looked up with a key made of the jitted function's
    parameters (`TABLE[k]`, `PAIRS[a, b]`), each used only where a static
    value is needed -> those parameters added to `static_argnames` (UNSAFE:
    one compile per key, and a caller passing an array now fails). A
    parameter also used as data gets no fix.

    `ok = bool(test)` whose one use is `if not ok: raise E(...)` (or `if ok:`)
    just after, `test` a boolean array: `ok` stays the array and the raise
    becomes a check made on every call, as JIT201 rewrites `if test: raise`
    (`jax.debug.callback(partial(_raise_where, E(...)), jnp.logical_not(ok))`; UNSAFE: under
    jit the error arrives as a `JaxRuntimeError` carrying `E`).

    ## References
    - [`ConcretizationTypeError`](https://docs.jax.dev/en/latest/errors.html)
    - [Static vs traced operations](https://docs.jax.dev/en/latest/notebooks/thinking_in_jax.html)
    """

    code = "JIT301"
    name = "concretize-tracer"
    fix_title = "Keep the value as an array (`jnp.asarray(x, dtype=int)` for `int(x)`)"

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        func = node.func
        first = node.args[0].value if node.args else None
        if isinstance(func, cst.Name) and func.value == "map" and ctx.facts.read_scope.get(func) == "builtin" \
                and len(node.args) == 2 and not any(arg.star or arg.keyword for arg in node.args):
            # `map(math.radians, a)`: the function runs on each item of a traced `a`, a 0-d tracer
            each = node.args[0].value
            named = ctx.qualify(each) or (each.value if isinstance(each, cst.Name)
                                          and ctx.facts.read_scope.get(each) == "builtin" else "")
            if ((named.startswith("math.") and named != "math.prod") or named in _CONCRETIZING_BUILTINS) \
                    and _traced_array(ctx.value(node.args[1].value)):
                self.report(node, f"`{ctx.code(each)}` mapped over traced `{ctx.code(node.args[1].value)}` needs a "
                                  "concrete value for each item", ctx.value(node.args[1].value).reason)
            return
        if isinstance(func, cst.Name) and func.value in _CONCRETIZING_BUILTINS:
            value = ctx.value(first) if first is not None else None
            if value is not None and func.value == "bool" and not value.traced_array:
                return  # the truth of a pytree of unknown structure is a static structure test
            if ctx.facts.read_scope.get(func) == "builtin" and first is not None and _traced_array(value):
                self.report(node, f"`{func.value}()` of traced `{ctx.code(first)}` needs a concrete value",
                            ctx.value(first).reason)
            return
        q = ctx.qualify(func)
        if q is not None:
            if q == "math.prod":
                return  # (it multiplies with `*`: arrays, traced ones too, give the array product; run on JAX 0.10.2)
            if q.startswith("math.") or q == "operator.index":
                for arg in node.args:
                    if _traced_array(ctx.value(arg.value)):
                        self.report(node, f"`{ctx.code(func)}()` of traced `{ctx.code(arg.value)}` needs a "
                                          "concrete value", ctx.value(arg.value).reason)
                        return
            return
        if isinstance(func, cst.Attribute) and func.attr.value in _CONCRETIZING_METHODS:
            receiver = ctx.value(func.value)
            if _traced_array(receiver):
                self.report(node, f"`.{func.attr.value}()` of traced `{ctx.code(func.value)}` needs a concrete value",
                            receiver.reason)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        ctx = self.ctx
        base = ctx.value(node.value)
        if not is_python_container(base) or base.numpy_array:
            return  # (a Python list or dict, whatever it holds: its index must be a Python value)
        # (`PAIRS[(a, b)]` is `PAIRS[a, b]`: a tuple key, hashed with its items, and a tracer is unhashable)
        parts = key_parts(node) if base.mapping else [
            element.slice.value for element in node.slice if isinstance(element.slice, cst.Index)]
        for part in parts or ():
            key = ctx.value(part)
            if _traced_array(key) and (key.traced_array or (not base.mapping and base.items is not None)):
                # (a dict key is hashed, not used as a number: only an array is known to fail; and a
                # container of unknown kind indexed by a pytree value may be a dict looked up by key)
                index = part if len(parts) == 1 or not base.mapping else node.slice
                shown = ctx.code(index) if not isinstance(index, Sequence) else ", ".join(ctx.code(p) for p in parts)
                what = "dict `{}` looked up with traced key" if base.mapping else "sequence `{}` indexed with traced"
                self.report(node, f"Python {what.format(ctx.code(node.value))} `{shown}`", key.reason)
                return

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """``[0.0] * n``: repeating a Python list or tuple needs a Python int."""
        if not isinstance(node.operator, cst.Multiply):
            return
        ctx = self.ctx
        for seq, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(seq, (cst.List, cst.Tuple)) and _traced_array(ctx.value(count)):
                self.report(node, f"Python sequence `{ctx.code(seq)}` repeated a traced `{ctx.code(count)}` times",
                            ctx.value(count).reason)
                return


class NumpyOnTracer(Rule):
    """## What it does
    Flags a NumPy or SciPy function called on a traced value, when that
    function really fails on tracers: ufuncs (`np.exp`, `np.sin`, ...),
    `np.asarray` / `np.array`, `np.clip`, `np.concatenate`, `np.append`,
    `np.linalg.*`, ... It also flags indexing a NumPy array (a module-level one,
    or one made in the traced code: `np.zeros(n)`) with a traced index, and
    storing a traced value into one (`out[i] = x[i]`: `ValueError: setting an
    array element with a sequence`; an array of `dtype=object` stores any
    object and is not flagged). The table of functions is `NUMPY_FAILS_ON_TRACER` in
    `jitlint/analysis/jax_api.py`, checked against JAX by the test suite.

    Functions that NumPy hands to the array's own method (`np.sum`,
    `np.mean`, `np.max`, `np.reshape`, `np.transpose`, ...) work on tracers
    and are not flagged; nor is NumPy on static values (`np.prod(x.shape)`).
    Given a list or tuple of tracers instead (`np.mean([x, y])`, or a list
    that traced code filled with `append`), those functions convert it
    first, which fails: that is flagged (`NUMPY_CONVERTS_SEQUENCES`).
    `import jax.numpy as np` makes `np.*` JAX, and it is not flagged either.
    Nor is a value read from a library's object (`u: FourierSeries` of
    jaxdf, `np.asarray(u.domain.dx)`; a field annotated with such a class;
    a class of the module that a library's decorator registers): which of
    its fields are leaves and which static metadata is that library's
    choice, and handed to NumPy only metadata runs (as JIT402 holds for
    shapes).

    ## Why is this bad?
    NumPy needs the data: `jax.errors.TracerArrayConversionError: The
    numpy.ndarray conversion method __array__() was called on traced array`.

    ## Example
    ```python
    import jax
    import numpy as np

    @jax.jit
    def f(x):
        return np.exp(x)
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        return jnp.exp(x)
    ```

    ## Fix safety
    The fix replaces the callee only: `np.log10(x)` -> `jnp.log10(x)`,
    `np.linalg.eigh(m)` -> `jnp.linalg.eigh(m)`, and `percentile(x, 90)`
    after `from numpy import percentile` -> `jnp.percentile(x, 90)`. The
    arguments and their comments stay as they are, but a list or tuple
    display where `jax.numpy` takes an array is wrapped in `jnp.asarray`
    (`np.percentile(x, [50, 95])` -> `jnp.percentile(x, jnp.asarray([50,
    95]))`: `jax.numpy` rejects a list there; a sequence of arrays, as
    `np.concatenate([a, b])` takes, and static arguments stay); an existing
    `import jax.numpy as jnp` is reused, otherwise it is added.

    It is always UNSAFE: the result is a JAX array, float32 (int32) unless
    x64 is enabled, where NumPy computes in float64 (`np.float64(x)` becomes
    a float32 cast); some functions differ at the edges (`jnp.take` fills
    out-of-bounds indices instead of raising, `jnp.linalg.pinv` has another
    default cutoff, `jnp.empty_like` gives zeros); and the result is now
    traced, so code that needed a concrete NumPy value is reported in turn.

    `import jax.numpy as jnp` is added in its import block, in isort's order.
    When the fixes rewrite every use of the NumPy name (`np`), the import
    goes too: each of those calls' fixes then rewrites them all and removes
    the import, so that the import is never removed while a use is left. It
    stays when the name is used anywhere else (eager code, `del`, `global`,
    a parameter of that name), listed in `__all__` (or `__all__` is built in
    a way that cannot be read), re-exported (`import numpy as numpy`), the
    import is conditional or carries `noqa`, or a call keeps its finding
    under `noqa`.

    No fix when the `jax.numpy` function has a value-dependent output size
    (`np.unique`, `np.nonzero`, `np.argwhere`, one-argument `np.where`: that
    is JIT401), when an argument that `jax.numpy` needs static (`axis`, `n`,
    `k`, `reps`, `shape`, `pad_width`, `bins`, ...) is traced, when an
    argument is passed that `jax.numpy` does not take or takes with another
    meaning (`out=`, a ufunc's `where=` or `dtype=`, `casting=`, `order=`,
    `subok=`, `kind=`, `**kwargs`, positional arguments past the shared
    ones), when its result goes on to a use that needs a concrete value (a
    `range` bound, a shape, an `if` test, `int()` or `.item()` of it used as
    a Python number: the traced result would fail there; an `int()`,
    `float()` or `.item()` whose number is only returned or computed with as
    an array would be is no such use: JIT301's fix keeps it an array in the
    next round, `tip = u[-1].item()` -> `jnp.reshape(u[-1], ())`), nor for
    SciPy functions or an indexed NumPy array. Nor for the
    NumPy arm of a dispatch between the two libraries: an `if` / `elif` arm
    (or the code after an `if` whose arm returns) calls the same function of
    `jax.numpy` (`if backend == "numpy": return np.outer(x, y)` ... `return
    jnp.outer(x, y)`): that arm is meant for NumPy values, and rewriting it
    would make both arms JAX.

    ## References
    - [`TracerArrayConversionError`](https://docs.jax.dev/en/latest/errors.html)
    - [JAX sharp bits: NumPy vs jax.numpy](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html)
    """

    code = "JIT302"
    name = "numpy-on-tracer"
    fix_title = "Use the `jax.numpy` function (`jnp.f` for `np.f`)"

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        q = ctx.qualify(node.func)
        if q is None:
            return
        if jax_api.numpy_fails_on_tracer(q):
            library = "NumPy"
        elif q.startswith("scipy.") and q.count(".") >= 2 and q.rpartition(".")[2] not in _SCIPY_CONTAINERS:
            library = "SciPy"
        elif jax_api.numpy_converts_sequence(q):
            self._sequence_of_tracers(node)
            return
        else:
            return
        name = ctx.code(node.func)
        if "." not in name:  # `from scipy.special import logsumexp`: say where it comes from
            name = f"{name}` (`{q}`)"
        else:
            name = f"{name}`"
        for arg in node.args:
            value = ctx.value(arg.value)
            if value.kind is Kind.TRACED and not value.foreign:
                # (a field of a library's object, `np.asarray(u.domain.dx)` of `u: FourierSeries`: leaf or
                # metadata is that library's choice, and handed to NumPy only metadata runs, as JIT402 holds)
                self.report(node, f"{library} function `{name} called on traced "
                                  f"`{ctx.code(arg.value)}`", value.reason)
                return

    def _sequence_of_tracers(self, node: cst.Call) -> None:
        """``np.mean([x, y])``: NumPy hands an array to its own ``mean``, but a list or tuple it
        converts first, and converting a tracer raises."""
        if not node.args or node.args[0].keyword is not None or node.args[0].star:
            return
        arg = node.args[0].value
        value = self.ctx.value(arg)
        if value.kind is Kind.TRACED and (value.container or value.items is not None) and not value.mapping \
                and not value.is_array:
            self.report(node, f"NumPy function `{self.ctx.code(node.func)}` converts `{self.ctx.code(arg)}`, "
                              "a list or tuple of traced values", value.reason)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._stored_in_numpy(target.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._stored_in_numpy(node.target, node.value)

    def _stored_in_numpy(self, target: cst.BaseExpression, stored: cst.BaseExpression) -> None:
        """``out[i] = v`` on a NumPy array with ``v`` traced: NumPy converts what it stores, and
        converting a tracer raises (``ValueError: setting an array element with a sequence``)."""
        ctx = self.ctx
        if not isinstance(target, cst.Subscript) or not ctx.value(target.value).numpy_array:
            return
        value = ctx.value(stored)
        if value.kind is Kind.TRACED:
            self.report(target, f"traced `{ctx.code(stored)}` stored into NumPy array `{ctx.code(target.value)}`: "
                                "NumPy converts it to a concrete value", value.reason)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        ctx = self.ctx
        if not ctx.value(node.value).numpy_array:
            return
        for element in node.slice:
            if isinstance(element.slice, cst.Index) and ctx.is_traced(element.slice.value):
                index = element.slice.value
                self.report(node, f"NumPy array `{ctx.code(node.value)}` indexed with traced `{ctx.code(index)}`",
                            ctx.value(index).reason)
                return


class FormatTracer(Rule):
    """## What it does
    Flags a traced value formatted into a string: an f-string, `%`
    formatting, `str.format`, or `str()` / `repr()` used as data -- and an
    f-string passed as the format of `jax.debug.print`.

    Not flagged when the string only feeds a `print`, a logging call or a
    file write that is already reported (JIT103 / JIT104), nor in the message
    of a `raise` or `assert` -- written there, or bound to a name that only a
    `raise` or `assert` of the same function reads (`msg = f"..."`,
    `raise ValueError(msg)`).

    ## Why is this bad?
    While JAX traces there is no value to format. A format spec fails loudly
    (`f"{x:.3f}"`, `"{:.3f}".format(x)`, `format(x, ".3f")`: `TypeError:
    unsupported format string passed to DynamicJaxprTracer.__format__`), and
    so does a numeric `%` conversion (`"%.3f" % x` calls `float()`:
    `ConcretizationTypeError`; `"%d" % x`: `TypeError`); the message then
    names the error. Plain formatting (`f"{x}"`, `"%s" % x`, `str(x)`)
    silently produces `JitTracer(float32[])`, once, at trace time.
    `jax.debug.print(f"x={x}")` prints that text on every call.

    ## Example
    ```python
    import jax

    @jax.jit
    def step(x):
        jax.debug.print(f"x={x}")
        return x
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def step(x):
        jax.debug.print("x={x}", x=x)
        return x
    ```

    ## Fix safety
    A string used as data -- a dict key, a name's value, a returned value --
    built from parameters of the jitted function (`{f"agent_{agent_id}":
    ret}`) makes those parameters static (`static_argnames`), where none is
    rebound and every other read of each takes a Python value as well (a
    string, a shape or a test, array arithmetic, a `jax.numpy` argument, an
    index). UNSAFE: one compile per value, and a caller passing a
    traced value breaks. No fix for a string given to a call (a print, a
    log line, an error), where the value of each call is what is wanted.

    ## References
    - [`jax.debug.print`](https://docs.jax.dev/en/latest/_autosummary/jax.debug.print.html)
    """

    code = "JIT303"
    name = "format-tracer"
    superseded_by = ("JIT103", "JIT104")
    fix_title = "Mark the parameters the string is built from static (`static_argnames`)"

    def _check(self, node: cst.CSTNode) -> None:
        ctx = self.ctx
        value = ctx.value(node)
        if value.formats_tracer is None:
            return
        parent = ctx.parent(node)
        if isinstance(parent, (cst.FormattedStringExpression, cst.ConcatenatedString, cst.BinaryOperation)):
            if ctx.value(parent).formats_tracer is not None:
                return  # the enclosing string is reported
        if self._in_error_message(node) or self._discarded(node) or self._message_by_name(node):
            return
        raised = format_error(ctx, node)
        if raised is not None:
            traced, error, why = raised
            self.report(node, f"`{ctx.code(node)}` raises `{error}` while tracing: {why}",
                        ctx.value(traced).reason or value.formats_tracer)
            return
        self.report(node, f"traced value formatted into a string: `{ctx.code(node)}` shows a tracer, not "
                          "its value", value.formats_tracer)

    def _discarded(self, node: cst.CSTNode) -> bool:
        """A string nobody reads shows nothing: a bare expression statement, or bound to ``_``
        (``_ = msg.format(*args)`` checks that the format string is well formed)."""
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Expr):
            return True
        return isinstance(parent, cst.Assign) and all(
            isinstance(t.target, cst.Name) and t.target.value == "_" for t in parent.targets)

    def _message_by_name(self, node: cst.CSTNode) -> bool:
        """``msg = f"... {x}"`` whose every use is in a ``raise`` or ``assert`` of the same function:
        the message, bound to a name first (``raise ValueError(msg)``), as in the direct form."""
        parent = self.ctx.parent(node)
        if not isinstance(parent, cst.Assign) or len(parent.targets) != 1 \
                or not isinstance(parent.targets[0].target, cst.Name):
            return False
        fn = self.ctx.function
        name = parent.targets[0].target.value
        if isinstance(fn.node, cst.Lambda) or fn.scope.single_value(name) is not node:
            return False  # another binding of the name, or one that is not local
        uses = sum(1 for _ in name_references(fn.node.body, name)) - 1
        in_messages = sum(1 for stmt in error_statements(fn.node.body) for _ in name_references(stmt, name))
        return uses > 0 and uses == in_messages

    def _in_error_message(self, node: cst.CSTNode) -> bool:
        current: Optional[cst.CSTNode] = node
        while current is not None:
            if isinstance(current, (cst.Raise, cst.Assert)):
                return True
            if isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                return False
            current = self.ctx.parent(current)
        return False

    def visit_FormattedString(self, node: cst.FormattedString) -> None:
        self._check(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.Modulo):
            self._check(node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("str", "repr", "format"):
            self._check(node)
        elif isinstance(func, cst.Attribute) and func.attr.value in ("format", "format_map"):
            self._check(node)


#: what a concrete JAX array has and a tracer of any transform lacks (jax 0.10.2): methods, then
#: attributes; each raises AttributeError or ConcretizationTypeError on a tracer
_CONCRETE_ONLY_METHODS = frozenset({"block_until_ready", "copy_to_host_async", "devices", "delete", "is_deleted",
                                    "on_device_size_in_bytes", "unsafe_buffer_pointer", "addressable_data",
                                    "__dlpack__"})
_CONCRETE_ONLY_ATTRIBUTES = frozenset({"sharding", "device", "committed", "addressable_shards",
                                       "is_fully_addressable"})
#: what to do instead, where there is something
_INSTEAD = {
    "block_until_ready": "remove it: nothing runs while JAX traces, so there is nothing to wait for; wait on the "
                         "result outside the jitted function",
    "copy_to_host_async": "remove it, and copy the result outside the jitted function",
    "sharding": "read the sharding from the type, `jax.typeof(x).sharding`",
}


class ConcreteOnlyArrayApi(Rule):
    """## What it does
    Flags what only a concrete JAX array has, used on a traced one: the
    methods `block_until_ready()`, `copy_to_host_async()`, `devices()`,
    `delete()`, `is_deleted()`, `on_device_size_in_bytes()`,
    `unsafe_buffer_pointer()`, `addressable_data()`, `__dlpack__()`, the
    attributes `.sharding`, `.device`, `.committed`, `.addressable_shards`,
    `.is_fully_addressable`, and `pickle.dumps()` of a tracer. Only a value
    known to be an array tracer (made by a JAX operation, or used as a
    number) is checked: an object of a pytree may have such methods itself.

    ## Why is this bad?
    While JAX traces there is no buffer on any device: a tracer of `jit`,
    `vmap` or `grad` has none of these, and the call raises on every trace
    (`AttributeError: The 'block_until_ready' method is not available on
    traced array`, `ConcretizationTypeError` for the others). A helper that
    waits for its result, or checks where it lives, works when called
    eagerly and breaks once it is jitted or vmapped.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(x):
        y = jnp.tanh(x) * 2
        return y.block_until_ready()
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(x):
        return jnp.tanh(x) * 2

    y = step(jnp.ones(3)).block_until_ready()
    ```

    ## Fix safety
    A wait goes: `y.block_until_ready()` used as a value becomes `y` (the
    method returns the array itself); `y.block_until_ready()` or
    `y.copy_to_host_async()` as a statement of its own is removed when `y`
    is a name or an attribute of one, and `f(x).block_until_ready()` keeps
    the call `f(x)`. A statement that is its block's only one or carries a
    comment is left alone, as is `copy_to_host_async()` used as a value (it
    gives `None`). UNSAFE: under a transform the original raises, so the fix
    is measured against eager execution, where it changes only when the host
    waits (an eager caller timing the function no longer waits inside it).
    The other attributes get no fix; the message says what to use instead
    (`jax.typeof(x).sharding` for the sharding).

    ## References
    - [Asynchronous dispatch](https://docs.jax.dev/en/latest/async_dispatch.html)
    - [`jax.typeof`](https://docs.jax.dev/en/latest/_autosummary/jax.typeof.html)
    """

    code = "JIT304"
    name = "concrete-only-array-api"
    fix_title = "Wait for, copy or inspect the result outside the traced function"

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = node.attr.value
        parent = self.ctx.parent(node)
        called = isinstance(parent, cst.Call) and parent.func is node
        if called and name in _CONCRETE_ONLY_METHODS:
            what = f"`.{name}()` on traced `{self.ctx.code(node.value)}`"
        elif not called and name in _CONCRETE_ONLY_ATTRIBUTES and not self._written(node, parent):
            what = f"`.{name}` of traced `{self.ctx.code(node.value)}`"
        else:
            return
        self._check(node.value, what, name, parent if called else node)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualify(node.func) in ("pickle.dumps", "pickle.dump") and node.args and not node.args[0].star:
            self._check(node.args[0].value, f"`{self.ctx.code(node.func)}()` of traced "
                                            f"`{self.ctx.code(node.args[0].value)}`", "", node)

    @staticmethod
    def _written(node: cst.Attribute, parent: Optional[cst.CSTNode]) -> bool:
        return isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, cst.AugAssign) and parent.target is node)

    def _check(self, receiver: cst.BaseExpression, what: str, name: str, where: cst.CSTNode) -> None:
        value = self.ctx.value(receiver)
        if not value.traced_array:
            return
        instead = _INSTEAD.get(name)
        self.report(where, f"{what} raises while JAX traces: a tracer has no buffer on a device"
                           + (f"; {instead}" if instead else ""), value.reason)


RULES = [ConcretizeTracer, NumpyOnTracer, FormatTracer, ConcreteOnlyArrayApi]
