"""JIT2xx: Python control flow on traced values."""
from __future__ import annotations

from typing import Optional

import libcst as cst

from jitlint.analysis.syntax import boolean_operands, returned_values
from jitlint.analysis.values import Kind
from jitlint.diagnostics import Applicability, Fix
from jitlint.rules.base import Rule


def _bool_context_owner(rule: Rule, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The statement or expression whose test ``node`` is part of (through and/or/not/parens)."""
    ctx = rule.ctx
    child = node
    parent = ctx.parent(child)
    while isinstance(parent, (cst.BooleanOperation, cst.UnaryOperation)) and (
            not isinstance(parent, cst.UnaryOperation) or isinstance(parent.operator, cst.Not)):
        child = parent
        parent = ctx.parent(child)
    if isinstance(parent, (cst.If, cst.While, cst.IfExp, cst.Assert)) and parent.test is child:
        return parent
    if isinstance(parent, cst.CompIf):
        return parent
    return None


def truth_operand(test: cst.BaseExpression) -> cst.BaseExpression:
    """``not not x`` -> ``x``: what a test converts to bool (``not`` makes a static bool)."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test = test.expression
    return test


def is_python_container(value) -> bool:
    """A list/tuple/dict of traced values: its truth is its (static) length."""
    return value.container or value.items is not None


def is_traced_array(value) -> bool:
    """A tracer by evidence, whose truth needs a concrete value.  A traced value of unknown
    structure (a parameter never used as a number) may be a dict, tuple, ``None`` or dataclass:
    its truth, like ``is None`` and ``len``, is a static structure test."""
    return value.traced_array


class PythonBranchOnTracer(Rule):
    """## What it does
    Flags Python `if` / `elif`, conditional expressions, `assert`, `and` /
    `or` / `not` and chained comparisons whose truth depends on a traced value.
    In a test, `a and b` / `a or b` converts `a` to bool first, so a traced
    `a` is flagged whatever `b` is (`if not x > 0 and flag:`).

    Also flagged: an identity test of a traced value with `True` or `False`
    (`if validate is True:`, a flag passed to the jit but not static). It
    raises nothing: a tracer is never one of Python's bools, so under jit
    the test always has one answer and its branch never runs (nor is it
    traced), where eagerly a `True` passed runs it.

    ## Why is this bad?
    Python needs a concrete `True` or `False`, and a tracer has none:
    `jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced
    array with shape bool[].` (Under `jax.grad` alone the tracer still holds a
    concrete value, so such code can work eagerly and under `grad`, and fail
    only once it is jitted.)

    ## Example
    ```python
    import jax

    @jax.jit
    def relu(x):
        if x > 0:
            return x
        return 0.0
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def relu(x):
        return jnp.where(x > 0, x, 0.0)
    ```
    or `jax.lax.cond(x > 0, lambda: x, lambda: 0.0)`, or mark the argument
    static (`static_argnames`) when it is a configuration value.

    ## Fix safety
    Every rewrite of this rule is UNSAFE: `--fix` applies it only with
    `--unsafe-fixes`, because each can change what some inputs compute.
    Where no rewrite applies, an `if` whose body starts with `break` and an
    `assert` get advice instead, display-only (shown, never applied): stop
    the loop in the condition of a `lax.while_loop`; check with
    `checkify.check`.

    - a loop over `range` that ends early on a traced test, last in its
      body (`for i in range(n): ...; if test: break`) -> `lax.while_loop`
      carrying the loop's variables, the count and whether the test held:
      `cond_fun` runs another step while the count is below `n` and the
      test has not held, `body_fun` runs the body and computes the test (a
      `lax.while_loop` is not reverse-mode differentiable).
    - a check that raises (`assert test, msg`, or `if test: raise E(...)`
      with nothing else in the branch) on a boolean array -> the same check
      made on every call:
      `jax.debug.callback(partial(_raise_where, E(...)), test)`
      (`jnp.logical_not(test)` for an `assert`: right for a Python bool
      too, where `~True` is -2), with `_raise_where(error, failed)` added
      once at module level (before the first definition). Eagerly the
      callback raises `E`
      itself; under `jax.jit` JAX raises a `JaxRuntimeError` carrying it,
      when the call runs (not when it is traced), and code catching `E`
      does not see it: no rewrite inside a `try`. The exception is made
      when the check is traced, so it may only format Python values (no
      tracer, no call other than `str()`, `repr()`, `len()`, `.format()`,
      ...). `checkify` is the other way, but it changes what the jitted
      function returns (an error value to `.throw()`).

    - `if` / conditional expression -> `jnp.where(test, a, b)`, when both
      branches are cheap element-wise expressions: both are computed for
      every element, so a branch meant only for where the test holds
      (`jnp.sqrt(x)` under `x > 0`, `jnp.log`, a division) gives NaN or inf
      there, and `jax.grad` through the `jnp.where` can be NaN. An `if` /
      `elif` chain whose every branch returns one cheap value, with the
      value returned after it (or the `else:`), becomes nested `jnp.where`
      (`jnp.where(a, x, jnp.where(b, y, z))`): the first test that holds
      picks, as the chain does, and the pure tests are all computed; so
      does an `if` / `elif` / `else` chain whose every branch assigns one
      cheap value to the same name (`grade = 0` ... `grade = 1`). A
      parameter compared by order with a float literal (`if trough <
      5.0:`) is a quantity, not a setting: it is not made static (callers
      pass arrays, unhashable as static arguments).
    - otherwise -> `lax.cond(test, true_fn, false_fn)`: both branches are
      traced, so their trace-time Python runs for both; they must return the
      same shapes and dtypes; under `jax.vmap` a batched test runs both.
      Branches of other structures (dicts of other keys, a tuple against an
      array, an empty array such as `jnp.zeros(0)` against one the data
      sizes) get the rewrite as advice only.
      A branch may update an array with `x.at[i].add(...)` (or `.set`,
      `.multiply`, ...): JAX's functional update gives a new array and
      leaves `x` as it was, so the branch is pure.
    - an `elif` on a traced test after an `if` on a static one (`if mode ==
      "flat": ... elif x > edge: ... else: ...`) -> the `else:` block of the
      static `if`, holding the select or the `lax.cond` of the `elif` and
      what follows it (not where a branch returns: the statements after the
      whole `if` would be needed).
    - `and` / `or` / `not` / a chained comparison used as a value, on
      boolean arrays -> `&` / `|` / `~` / `(a < x) & (x < b)`; not where
      the value is an argument of a function other than `jax.numpy` /
      `jax.lax` / `jax.nn` ones (`nn.Dropout(rate, deterministic=not
      train)`: a callee that tests it as a Python bool raises on an array
      as it did on the tracer).
    - `a or b` / `a and b` used as a value, `a` a traced number and `b` a
      number literal (`span = (hi - lo) or 1.0`) -> `jnp.where(a, a, b)` /
      `jnp.where(a, b, a)`: the same truth (non-zero) picks the same
      operand, but the result is an array, of the dtype both promote to (an
      int `a` against `1.0` gives a float), and `a` is computed twice.
    - `sum(E for v in xs if C)` (a generator or list comprehension), `xs`
      a traced array, `E` and `C` element-wise in `v` ->
      `jnp.sum(jnp.where(C, E, 0), axis=0)` with `xs` for `v`
      (`sum(1 for ...)` -> `jnp.sum(C, axis=0)`, the count): the code ran on
      a 1-D `xs` (the `if` took a scalar's truth), and traced values in the
      test were scalars; an array where the builtin gave a Python number.
    - a parameter used only where a static value is needed -> added to
      `static_argnames`: JAX compiles again for every new value, the value
      must be hashable, and a caller passing a traced value now fails. Not
      for an id only compared with numbers (`if kind == 0: ... elif kind ==
      1:`): a caller may pass it as a device integer, which a static
      argument rejects (unhashable); the branches become selects instead.

    Layout only, whatever the applicability: a `jnp.where` / `lax.cond` line
    past the project's line length (`line-length`, else flake8's
    `max-line-length`, else ruff's `line-length`, else 88) is broken inside
    its brackets; the comments of the `if` stay on the lines of the code
    they were on (the test's, the true branch's, the false branch's, as
    one argument per line), a lone comment of the `if` line ends the new
    line when it fits; `from jax import lax` / `import jax.numpy as jnp` go
    into their import block in isort's order. While the function's
    `static_argnames` / `static_argnums` has a JIT502 fix, no rewrite is
    offered: the corrected spec decides what is traced.

    ## References
    - [Control flow and logical operators with JIT](https://docs.jax.dev/en/latest/control-flow.html)
    - [`TracerBoolConversionError`](https://docs.jax.dev/en/latest/errors.html)
    """

    code = "JIT201"
    name = "python-branch-on-tracer"
    fix_title = "Use `jnp.where` or `lax.cond`, or make the parameter static"

    def _check(self, test: cst.BaseExpression, what: str, advice: Optional[str] = None) -> None:
        test = truth_operand(test)
        for part in boolean_operands(test):
            flag = self._identity_with_bool(part)
            if flag is not None:
                operand, answer = flag
                name = self.ctx.code(operand)
                self.report(part, f"`{self.ctx.code(part)}` is always {answer} under jit: a traced value is never "
                                  f"Python's `True` or `False` (eagerly a bool passed as `{name}` decides it); make "
                                  f"`{name}` static", self.ctx.value(operand).reason)
        value = self.ctx.value(test)
        while not is_traced_array(value) and isinstance(test, cst.BooleanOperation):
            # `a and b` / `a or b` converts `a` to bool whatever `b` is: a traced `a` fails first
            test = truth_operand(test.left)
            value = self.ctx.value(test)
        if is_traced_array(value):
            # where neither rewrite applies, the advice that does (shown as the finding's help)
            hint = Fix(Applicability.DISPLAY_ONLY, advice, ()) if advice else None
            self.report(test, f"Python {what} on traced value `{self.ctx.code(test)}`", value.reason, hint)

    def _identity_with_bool(self, test: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, str]]:
        """``x is True`` / ``x is not False`` (either way round), ``x`` a traced value: ``x`` and what the test
        always gives under jit."""
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))):
            return None
        left, right = test.left, test.comparisons[0].comparator
        if _is_bool_literal(left):
            left, right = right, left
        value = self.ctx.value(left)
        if not _is_bool_literal(right) or _is_bool_literal(left) or not is_traced_array(value) or value.optional:
            return None
        return left, "True" if isinstance(test.comparisons[0].operator, cst.IsNot) else "False"

    def visit_If(self, node: cst.If) -> None:
        # (`if test: break`: the fix layer rewrites the loop, or advises `lax.while_loop` where it cannot)
        self._check(node.test, "`if`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check(node.test, "conditional expression")

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check(node.test, "`assert`")  # (its fix, or the advice where there is none, is the fix layer's)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self._check(node.test, "comprehension `if`")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        owner = _bool_context_owner(self, node)
        if owner is not None:
            return  # reported (or not) with its statement
        left = self.ctx.value(node.left)
        if is_traced_array(left):
            op = "and" if isinstance(node.operator, cst.And) else "or"
            self.report(node.left, f"`{op}` converts traced `{self.ctx.code(node.left)}` to a Python bool",
                        left.reason)

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if not isinstance(node.operator, cst.Not) or _bool_context_owner(self, node) is not None:
            return
        value = self.ctx.value(node.expression)
        if is_traced_array(value):
            self.report(node, f"`not` converts traced `{self.ctx.code(node.expression)}` to a Python bool",
                        value.reason)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) < 2 or _bool_context_owner(self, node) is not None:
            return
        value = self.ctx.value(node)
        if value.kind is Kind.TRACED:
            self.report(node, f"chained comparison `{self.ctx.code(node)}` converts a traced value to a Python bool",
                        value.reason)


def _is_bool_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


class RangeOverTracer(Rule):
    """## What it does
    Flags `range(n)` in traced code where `n` (or a start/stop/step) is
    traced: `for ... in range(n)`, and wrapped forms such as
    `reversed(range(n))`, `enumerate(range(n))` or `list(range(n))`.

    ## Why is this bad?
    `range` needs a Python int: `jax.errors.TracerIntegerConversionError: The
    __index__() method was called on traced array with shape int32[]`.
    Python ints passed to a jitted function are traced too, unless static.

    ## Example
    ```python
    import jax

    @jax.jit
    def power(x, n):
        y = x
        for _ in range(n - 1):
            y = y * x
        return y
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def power(x, n):
        return jax.lax.fori_loop(0, n - 1, lambda i, y: y * x, x)
    ```
    or `@partial(jax.jit, static_argnames="n")` when `n` takes few values.

    ## Fix safety
    Both fixes are UNSAFE (applied with `--unsafe-fixes` only):
    `for i in range(a, b)` -> `lax.fori_loop(a, b, body_fun, carry)`: with a
    traced bound `fori_loop` lowers to a `while_loop`, which reverse-mode
    autodiff (`jax.grad`) rejects, and the carried values must keep their
    shapes and dtypes from one iteration to the next. Where a `jax.grad`,
    `value_and_grad`, `vjp` or `jacrev` of the module reaches the loop's
    function (not through a `custom_vjp`), the loop gets display-only advice
    instead (a bounded `lax.scan`, or a `custom_vjp`). A bound that is a
    parameter used only as a static value -> `static_argnames`: JAX compiles
    again for every new value, and a caller passing a traced one fails. A
    parameter that also sets the length of a slice (`x[:n]`, or through a
    local, `m = len(x) - n; x[k:k + m]`: the result's shape) is made static
    even where it is also arithmetic data (`decay ** n`): no mask or dynamic
    slice can stand for a length, and a Python int computes as the 0-d tracer
    did. Arithmetic of the bound with Python numbers only (literals, the
    loop's own index, locals made of those: `prod * (1 - t / (n - 1))`)
    stays Python arithmetic once it is static.

    ## References
    - [`jax.lax.fori_loop`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html)
    - [`TracerIntegerConversionError`](https://docs.jax.dev/en/latest/errors.html)
    """

    code = "JIT202"
    name = "range-over-tracer"
    fix_title = "Use `lax.fori_loop`, or make the bound static"

    def visit_Call(self, it: cst.Call) -> None:
        # wherever it is: `reversed(range(n))`, `enumerate(range(n))`, `list(range(n))` fail as well
        if not (isinstance(it.func, cst.Name) and it.func.value == "range"):
            return
        if self.ctx.facts.read_scope.get(it.func) != "builtin":
            return
        for arg in it.args:
            value = self.ctx.value(arg.value)
            if value.kind is Kind.TRACED:
                self.report(it, f"`range()` with traced bound `{self.ctx.code(arg.value)}`", value.reason)
                return


class WhileOnTracer(Rule):
    """## What it does
    Flags a `while` loop whose condition depends on a traced value.

    ## Why is this bad?
    Python evaluates the condition to a bool at each iteration; a tracer cannot
    be: `jax.errors.TracerBoolConversionError`.

    ## Example
    ```python
    import jax

    @jax.jit
    def halve_until_small(x):
        while x > 1.0:
            x = x / 2
        return x
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def halve_until_small(x):
        return jax.lax.while_loop(lambda x: x > 1.0, lambda x: x / 2, x)
    ```

    ## Fix safety
    The fix, `while c:` -> `lax.while_loop(cond_fun, body_fun, carry)`, is
    UNSAFE (applied with `--unsafe-fixes` only): `lax.while_loop` is not
    reverse-mode differentiable, where the Python loop was under plain
    `jax.grad`, and the carried values must keep their shapes and dtypes
    from one iteration to the next. Where a `jax.grad`, `value_and_grad`,
    `vjp` or `jacrev` of the module reaches the loop's function (not through
    a `custom_vjp`), display-only advice replaces the rewrite (JAX 0.10.2:
    `ValueError: Reverse-mode differentiation does not work for
    lax.while_loop`). The condition and the body must be free
    of Python side effects (they are traced once): a function they call must
    be pure, and a function passed in as a parameter counts as pure only
    where every call of its function in the module passes a pure function of
    the module and nothing else refers to it (a caller elsewhere is not seen).
    A name the test binds with `:=` for the body (`while (r := f(y) - q) ** 2
    > tol:`) is computed again at the start of `body_fun` (the test is pure:
    the same value), `cond_fun` testing the value alone; not where the body
    rebinds the name or code after the loop reads it. No fix where a carried
    Python number reaches a place that needs it static, in the loop or after
    it (`while left > 0: trips += 1`, then `jnp.arange(trips)`): the carry
    is traced, and a length that depends on the data is no loop's to give.
    A `print`, logging or `jax.debug` call after the loop is no such place (`print("iterations:", n_iter)`,
    `log.info("after %s sweeps", n)`: the print's own fix, JIT103's, and the log's, JIT104's, pass the
    counter to `jax.debug.print` / `jax.debug.callback` as a value, not formatted at trace time).

    ## References
    - [`jax.lax.while_loop`](https://docs.jax.dev/en/latest/_autosummary/jax.lax.while_loop.html)
    """

    code = "JIT203"
    name = "while-on-tracer"
    fix_title = "Use `lax.while_loop`"

    def visit_While(self, node: cst.While) -> None:
        test = truth_operand(node.test)
        value = self.ctx.value(test)
        if is_traced_array(value):
            self.report(node.test, f"`while` condition `{self.ctx.code(node.test)}` depends on a traced value",
                        value.reason)


class BoolBuiltinOnTracer(Rule):
    """## What it does
    Flags Python builtins that compare or test traced values one by one:
    `max` / `min` of tracers, `sorted`, `any` / `all`, and `x in seq` with a
    traced `x`.

    ## Why is this bad?
    They call `bool()` on tracers:
    `jax.errors.TracerBoolConversionError: Attempted boolean conversion of
    traced array with shape bool[].`

    ## Example
    ```python
    import jax

    @jax.jit
    def relu(x):
        return max(x, 0.0)
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def relu(x):
        return jnp.maximum(x, 0.0)
    ```
    (`jnp.max`, `jnp.sort`, `jnp.any`, `jnp.all`, `jnp.isin` likewise.)

    ## Fix safety
    `max(a, b)` / `min(a, b, c)` (positional arguments only, two or more)
    becomes `jnp.maximum(a, b)` / `jnp.minimum(jnp.minimum(a, b), c)`.
    UNSAFE: the builtin returned one of its arguments as it was (a Python
    number where that one was the larger), the rewrite returns an array; and
    the builtin compared scalars only (arrays of several elements raised),
    where `jnp.maximum` broadcasts. No rewrite where the result reaches a
    place that needs a Python value -- a test, a shape, a slice or `range`
    bound -- in place or through arithmetic, a conditional expression and
    locals bound from it (`chunk = min(chunk, n)`, then `n % chunk` in an
    `if`, `x.reshape(-1, chunk)`): an array there breaks the code wherever
    the values were Python numbers after all. `all(a)` / `any(a)` / `max(a)` / `min(a)`
    of one traced array (not a generator, a comprehension or a display)
    becomes `jnp.all(a)` / `jnp.any(a)` / `jnp.max(a)` / `jnp.min(a)`:
    the builtin iterates the first axis and converts each item, which works
    only where each item has one element, and there the reduction gives the
    same value. UNSAFE: the result is a 0-d array, not a Python bool or an
    item. `any(E for g in leaves)` (and `all`, `max`, `min`; a generator or a
    list comprehension over Python values, whose items are traced and
    pure) becomes `jnp.any(jnp.stack([E for g in leaves]))`. UNSAFE: every
    item is computed, where the builtin stopped at the first that decided;
    items of shapes `()` and `(1,)` mixed do not stack; a 0-d array.
    `min(range(n), key=cost)` (or `max`), `cost` a pure function of the
    module, becomes `jnp.argmin(jnp.stack([cost(i) for i in range(n)]))`: the
    first position of the least key, as the builtin picks it (an int array
    where it gave a Python int; every key is computed).
    `sorted(range(n), key=lambda i: scores[i])`, `scores` a traced array,
    becomes `jnp.argsort(scores)` where `n` is its length (`scores.shape[0]`,
    `len(scores)`), else `jnp.argsort(scores[:n])`: both sorts are stable,
    so ties keep their order. UNSAFE: an int array, not a list; an `n` past
    the end raised `IndexError`. `sorted(scores)` of a traced array becomes
    `jnp.sort(scores)` (code that ran sorted a 1-D array; an array, not a
    list); where `scores` is traced but may be a sequence of traced scalars
    (a helper's parameter), `jnp.sort(jnp.asarray(scores))`: `asarray`
    stacks the sequence and leaves an array as it is. `all(abs(r - t) < tol for r in readings)` (and `any`, `max`,
    `min`: one `for` over a traced array, no `if`, the item element-wise in
    the element) becomes `jnp.all(abs(readings - t) < tol, axis=0)`, the
    array for the element (a 0-d array, not a Python bool). The other
    builtins (`sorted` otherwise, `in`) have no automatic fix.

    ## References
    - [`TracerBoolConversionError`](https://docs.jax.dev/en/latest/errors.html)
    """

    code = "JIT204"
    name = "bool-builtin-on-tracer"
    fix_title = ("Use `jnp.maximum` / `jnp.minimum` for `max` / `min` of several values, `jnp.all` / `jnp.any` / "
                 "`jnp.max` / `jnp.min` for one of an array")

    _BUILTINS = {"max": "jnp.maximum / jnp.max", "min": "jnp.minimum / jnp.min", "sorted": "jnp.sort",
                 "any": "jnp.any", "all": "jnp.all"}

    def visit_Call(self, node: cst.Call) -> None:
        ctx = self.ctx
        func = node.func
        if not isinstance(func, cst.Name) or func.value not in self._BUILTINS:
            return
        if ctx.facts.read_scope.get(func) != "builtin":
            return
        positional = [a for a in node.args if a.keyword is None]
        if not positional:
            return
        key = next((a.value for a in node.args if a.keyword is not None and a.keyword.value == "key"), None)
        if key is not None and func.value != "any" and func.value != "all":
            # what is compared is what the key returns (`max(xs, key=lambda v: v.shape[0])`
            # compares ints); a key jitlint cannot see decides nothing
            result = ctx.value(key.body) if isinstance(key, cst.Lambda) else _key_result(ctx, key)
            if result is not None and result.kind is Kind.TRACED and not is_python_container(result):
                by_key = {"min": "`jnp.argmin` of the keys", "max": "`jnp.argmax` of the keys",
                          "sorted": "`jnp.argsort` of the keys"}.get(func.value, self._BUILTINS[func.value])
                self.report(node, f"`{func.value}()` compares traced values in Python (what its `key` returns); "
                                  f"use {by_key}", result.reason)
            return
        if len(positional) >= 2 and func.value in ("max", "min"):
            values = [ctx.value(a.value) for a in positional]
            hit = next((v for v in values if v.kind is Kind.TRACED and not is_python_container(v)), None)
        else:
            value = ctx.value(positional[0].value)
            element = value.element
            hit = None
            if element is not None and element.kind is Kind.TRACED and not is_python_container(element) \
                    and (element.traced_array or func.value not in ("any", "all")):
                hit = element
            elif value.kind is Kind.TRACED and not is_python_container(value) and func.value != "sorted":
                # (iterating an array tracer gives tracers: `all` converts each, `max` compares them)
                hit = value if value.traced_array else None
            elif value.kind is Kind.TRACED and value.element is None and value.items is None and not value.container:
                hit = value
        if hit is not None:
            self.report(node, f"`{func.value}()` compares traced values in Python; use "
                              f"{self._BUILTINS[func.value]}", hit.reason)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        ctx = self.ctx
        left = ctx.value(node.left)
        if not is_traced_array(left):
            return
        for comp in node.comparisons:
            if isinstance(comp.operator, (cst.In, cst.NotIn)):
                if not isinstance(comp.comparator, (cst.Tuple, cst.List, cst.Set)):
                    return  # only a literal sequence is known to compare element by element
                self.report(node, f"`in` tests traced `{ctx.code(node.left)}` against a Python sequence; use "
                                  "`jnp.isin`", left.reason)
                return



def _key_result(ctx, key: cst.BaseExpression):
    """What a key function of this module, named (``key=cost``, a def), returns where the trace ran it:
    a traced value from one of its returns, else None."""
    if not isinstance(key, cst.Name) or ctx.body is None:
        return None
    fn = ctx.function
    found, _ = ctx.index.resolve_function(key, fn, fn.cls)
    if found is None or not isinstance(found.node, cst.FunctionDef):
        return None
    for value in returned_values(found.node.body):
        result = ctx.value(value) if value is not None else None
        if result is not None and result.kind is Kind.TRACED:
            return result
    return None

RULES = [PythonBranchOnTracer, RangeOverTracer, WhileOnTracer, BoolBuiltinOnTracer]
