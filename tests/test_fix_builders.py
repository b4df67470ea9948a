"""Fix builders: when a fix is offered, with which safety, and when none is (a wrong fix is worse than none)."""
import glob
import importlib
import os
import re
import textwrap
import subprocess
import sys

import pytest

import jitlint.fixes
from jitlint.config import Config
from jitlint.diagnostics import Applicability
from jitlint.engine import lint_source
from jitlint.fixes import preferring_static
from jitlint.fixing import fix_source

HEADER = "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n\n\n"


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


def findings(body: str, prefer=None, header: str = HEADER):
    source = header + textwrap.dedent(body)
    with preferring_static(prefer):
        result = lint_source(source, "case.py", Config())
    assert result.error is None, result.error
    return source, list(result.diagnostics)


def only(body: str, code: str, prefer=None, header: str = HEADER):
    source, diags = findings(body, prefer, header)
    matching = [d for d in diags if d.code == code]
    assert len(matching) == 1, diags
    return source, matching[0]


def fixed(body: str, prefer=None, header: str = HEADER, unsafe: bool = True) -> str:
    source = header + textwrap.dedent(body)
    result = fix_source(source, "case.py", Config(), unsafe=unsafe, prefer_static=prefer)
    assert result.error is None, result.error
    return result.fixed[len(header):] if result.fixed.startswith(header) else result.fixed


# ------------------------------------------------------------------ no fix

NO_FIX = {
    "jit of a method made per call in an equinox module: no attribute can be added in __init__": ("""
        import equinox as eqx

        class Op(eqx.Module):
            scale: float

            def __init__(self, scale):
                self.scale = scale

            def forward(self, x):
                return x * self.scale

            def __call__(self, x):
                f = jax.jit(self.forward)
                return f(x)
        """, "JIT501"),
    "jit of a vmapped method made per call with axes the call passes: each call may make another wrapper": ("""
        class Op:
            def __init__(self, gain):
                self.gain = gain

            def forward(self, x):
                return x * self.gain

            def __call__(self, x, axes):
                f = jax.jit(jax.vmap(self.forward, in_axes=axes))
                return f(x)
        """, "JIT501"),
    "a changing attribute the jitted method tests (a traced argument there would raise)": ("""
        class Gate:
            def __init__(self):
                self.open = True
                self.f = jax.jit(self._f)

            def _f(self, x):
                if self.open:
                    return x
                return -x

            def toggle(self):
                self.open = not self.open
        """, "JIT503"),
    "a changing attribute read by a method the jitted method calls": ("""
        class Scaler:
            def __init__(self):
                self.k = jnp.ones(())
                self.f = jax.jit(self._f)

            def _gain(self):
                return self.k * 2

            def _f(self, x):
                return self._gain() * x

            def set_k(self, k):
                self.k = k
        """, "JIT503"),
    "a jitted method handed on by name (a call through it would miss the new arguments)": ("""
        class Scaler:
            def __init__(self):
                self.k = jnp.ones(())
                self.f = jax.jit(self._f)

            def _f(self, x):
                return self.k * x

            def set_k(self, k):
                self.k = k

            def over(self, xs):
                return jax.lax.map(self.f, xs)
        """, "JIT503"),
    ".item() compared with a parameter that defaults to a string (not a number that meets an array)": ("""
        @jax.jit
        def f(w, mode="fast"):
            ess = 1.0 / jnp.sum(w ** 2)
            low = ess.item() < mode
            return jnp.where(low, 1, 0)
        """, "JIT301"),
    "a factory's container part read as a flag (a traced argument there would raise)": ("""
        def make(cfg):
            @jax.jit
            def f(x):
                if cfg["clip"]:
                    return jnp.clip(x, -1, 1)
                return x
            return f

        def run(x):
            cfg = {"clip": True}
            f = make(cfg)
            out = []
            for flag in (True, False):
                cfg["clip"] = flag
                out.append(f(x))
            return out
        """, "JIT101"),
    "a changing attribute given to lax as a sharding, not array data (traced, it would raise)": ("""
        class Engine:
            def __init__(self, sharding):
                self.sharding = sharding
                self.step = jax.jit(self._step)

            def _step(self, x):
                return jax.lax.with_sharding_constraint(x * 2, self.sharding)

            def reshard(self, sharding):
                self.sharding = sharding
        """, "JIT503"),
    "an item write on a module dict that traced code also reads (it would still see the trace's value)": ("""
        STATS = {"norm": 0.0}

        @jax.jit
        def f(x):
            STATS["norm"] = jnp.linalg.norm(x)
            return x / (STATS["norm"] + 1.0)
        """, "JIT102"),
    "`not` of a traced flag handed to a function that may test it (an array there raises as the tracer did)": ("""
        def dropout(x, deterministic):
            if deterministic:
                return x
            return x * 0.5

        @jax.jit
        def f(x, train):
            return dropout(x, deterministic=not train)
        """, "JIT201"),
    "jit of a method made per call in a class with __slots__": ("""
        class Op:
            __slots__ = ("gain",)

            def __init__(self, gain):
                self.gain = gain

            def forward(self, x):
                return x * self.gain

            def __call__(self, x):
                f = jax.jit(self.forward)
                return f(x)
        """, "JIT501"),
    "static name left by a rename, two string parameters it starts": ("""
        from functools import partial

        @partial(jax.jit, static_argnames=("mode",))
        def f(x, mode_a="a", mode_b="b"):
            return x
        """, "JIT502"),
    "print to a file": ("""
        import sys

        @jax.jit
        def f(x):
            print("x", x, file=sys.stderr)
            return x
        """, "JIT103"),
    "print with flush": ("""
        @jax.jit
        def f(x):
            print("x", x, flush=True)
            return x
        """, "JIT103"),
    "print without a final newline": ("""
        @jax.jit
        def f(x):
            print("x", x, end="")
            return x
        """, "JIT103"),
    "print of *args": ("""
        @jax.jit
        def f(x):
            print(*x)
            return x
        """, "JIT103"),
    "print whose result is used": ("""
        @jax.jit
        def f(x):
            y = print(x)
            return x
        """, "JIT103"),
    "self-documenting f-string field": ("""
        @jax.jit
        def f(x):
            print(f"{x=}")
            return x
        """, "JIT103"),
    "return on one path of the branch only": ("""
        @jax.jit
        def f(x):
            y = x
            if x.sum() > 0:
                if x.ndim > 1:
                    return x
                y = x * 2
            return y
        """, "JIT201"),
    "break in the branch": ("""
        @jax.jit
        def f(x):
            y = x
            for i in range(3):
                if x[i] > 0:
                    y = y + 1
                    break
            return y
        """, "JIT201"),
    "side effect in a branch": ("""
        LOG = []

        @jax.jit
        def f(x):
            y = x
            if x.sum() > 0:
                LOG.append(1)
                y = x * 2
            return y
        """, "JIT201"),
    "variable assigned in one branch only, used after, undefined before": ("""
        @jax.jit
        def f(x):
            if x.sum() > 0:
                y = x * 2
            return y
        """, "JIT201"),
    "loop step other than 1": ("""
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            y = 0.0
            for i in range(0, n, 2):
                y = y + i
            return y
        """, "JIT202"),
    "break in the loop": ("""
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            y = 0.0
            for i in range(n):
                y = y + i
                if i > 3:
                    break
            return y
        """, "JIT202"),
    "list append in the loop": ("""
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            out = []
            for i in range(n):
                out.append(i)
            return out
        """, "JIT202"),
    "for-else": ("""
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            y = 0.0
            for i in range(n):
                y = y + i
            else:
                y = y + 1
            return y
        """, "JIT202"),
    "loop index read after the loop": ("""
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            y = 0.0
            for i in range(n):
                y = y + i
            return y + i
        """, "JIT202"),
    "loop index used as a Python int": ("""
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            y = 0.0
            for i in range(n):
                y = y + x[:i].sum()
            return y
        """, "JIT202"),
    "carried variable undefined before the loop": ("""
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            for i in range(n):
                y = i * 2
            return y
        """, "JIT202"),
    "global written in the loop": ("""
        TOTAL = 0.0

        @jax.jit
        def f(x):
            global TOTAL
            n = x.sum().astype(int)
            for i in range(n):
                TOTAL = TOTAL + i
            return x
        """, "JIT202"),
    "while with break": ("""
        @jax.jit
        def f(x):
            while x > 1:
                x = x / 2
                if x < 3:
                    break
            return x
        """, "JIT203"),
    # (the body reads it: computed again there, while_walrus_test)
    "while whose test binds a name read after the loop": ("""
        @jax.jit
        def f(x):
            while (half := x / 2) > 1:
                x = half - 0.5
            return x + half
        """, "JIT203"),
    "while with a print in the body": ("""
        @jax.jit
        def f(x):
            while x > 1:
                x = x / 2
                print("x", 1)
            return x
        """, "JIT203"),
    # a function parameter called in the condition: one call passes a function that prints
    "while condition calls a passed function, one of them impure": ("""
        def shrink(f, x, t):
            while f(x - t) > f(x):
                t = t / 2
            return t

        def noisy(y):
            print("evaluating")
            return y * y

        @jax.jit
        def g(x):
            return shrink(jnp.square, x, 1.0) + shrink(noisy, x, 1.0)
        """, "JIT203"),
    # the loop carries a Python int that sizes an array in a helper (`jnp.linspace(a, b, n + 1)`): as the
    # while_loop's traced carry it would raise ConcretizationTypeError
    "while carrying a Python int used as a size": ("""
        def simpson(f, a, b, n):
            x = jnp.linspace(a, b, n + 1)
            return jnp.sum(f(x)) * (b - a) / n

        def integrand(x):
            return jnp.sqrt(1.0 + x ** 2)

        @jax.jit
        def arc(a, b, tol=1e-4):
            n = 4
            s_old, s = simpson(integrand, a, b, n), simpson(integrand, a, b, 2 * n)
            while jnp.abs(s - s_old) > tol:
                n *= 2
                s_old, s = s, simpson(integrand, a, b, 2 * n)
            return s
        """, "JIT203"),
    # a scan body's appends: the list is also read in the body (its length), so it is not only the outputs
    "scan body append whose list is read in the body": ("""
        @jax.jit
        def f(xs):
            out = []

            def step(c, x):
                out.append(c * x)
                return c + len(out), None

            lax.scan(step, 0.0, xs)
            return jnp.stack(out)
        """, "JIT102"),
    # the append is under an `if`: not every step appends, the stacked outputs would have one per step
    "scan body append under a condition": ("""
        @jax.jit
        def f(xs, flag: bool = True):
            out = []

            def step(c, x):
                if flag:
                    out.append(c * x)
                return c + x, None

            lax.scan(step, 0.0, xs)
            return jnp.stack(out)
        """, "JIT102"),
    # after the scan the list is used as a list (concatenated), not stacked
    "scan body append whose list is used as a list after": ("""
        @jax.jit
        def f(xs):
            out = []

            def step(c, x):
                out.append(c * x)
                return c + x, None

            lax.scan(step, 0.0, xs)
            return jnp.stack(out + [xs[0]])
        """, "JIT102"),
    # the value appended is rebound after the append: the return would give the new one
    "scan body append of a value changed after it": ("""
        @jax.jit
        def f(xs):
            out = []

            def step(c, x):
                out.append(c)
                c = c + x
                return c, None

            lax.scan(step, 0.0, xs)
            return jnp.stack(out)
        """, "JIT102"),
    # the function is also handed on (to a list): a caller the module does not show may pass anything
    "while condition calls a parameter of a function that escapes": ("""
        def shrink(f, x, t):
            while f(x - t) > f(x):
                t = t / 2
            return t

        SOLVERS = [shrink]

        @jax.jit
        def g(x):
            return shrink(lambda y: y * y, x, 1.0)
        """, "JIT203"),
    # the counter adds up the values of its argument, not its shape: the wrapper would add concrete sums where the
    # trace stored a tracer, but the core would have to return them
    "counter that adds a parameter's values": ("""
        def make():
            total = 0

            @jax.jit
            def f(x):
                nonlocal total
                total += x.sum()
                return x * 2

            return f
        """, "JIT102"),
    # the positions are also returned: their length would change
    "nonzero positions returned besides the update": ("""
        @jax.jit
        def f(counts, flags):
            where = jnp.flatnonzero(flags)
            return counts.at[where].add(1), where
        """, "JIT401"),
    # updates of two arrays: no one index is out of range for both
    "nonzero positions updating two arrays": ("""
        @jax.jit
        def f(a, b, flags):
            where = jnp.flatnonzero(flags)
            return a.at[where].add(1), b.at[where].set(0)
        """, "JIT401"),
    # the counts the loop collects are also summed into a size: there they must stay Python ints
    "while carry collected into a list that also sizes an array": ("""
        @jax.jit
        def f(cdf, n):
            idx = []
            j = 0
            for i in range(4):
                while cdf[j] < i / 4:
                    j = j + 1
                idx.append(j)
            return jnp.zeros(sum(idx))
        """, "JIT203"),
    "an early return before an update of an object that is not an optax transformation (it may keep state)": ("""
        class Tracker:
            def __init__(self):
                self.seen = []

            def update(self, g, state, w):
                self.seen.append(g)
                return g, state

        TRACKER = Tracker()

        @jax.jit
        def step(w, state, g):
            if not jnp.isfinite(g).all():
                return w, state
            updates, state2 = TRACKER.update(g, state, w)
            return w - updates, state2
        """, "JIT201"),
}


@pytest.mark.parametrize("case", sorted(NO_FIX))
def test_no_fix(case):
    body, code = NO_FIX[case]
    _, diag = only(body, code)
    assert diag.fix is None, diag.fix


def test_branches_returning_dicts_of_different_keys_get_advice_only():
    # pytrees of another structure, which lax.cond rejects (TypeError: cond branch outputs must have the
    # same pytree structure, JAX 0.10.2)
    _, diag = only("""
        @jax.jit
        def f(x):
            p = jnp.abs(x).sum()
            if p < 0.05:
                return {"winner": x > 0, "p": p}
            return {"p": p, "needed": jnp.ceil(1.0 / p)}
        """, "JIT201")
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY


def test_a_branch_returning_a_module_function_of_other_keys_gets_advice_only():
    # `reset()` returns a dict of one key, the other branch a dict of two: lax.cond rejects them (TypeError on
    # JAX 0.10.2), so the rewrite is shown, not applied
    _, diag = only("""
        def reset():
            return {"pos": jnp.zeros(2)}

        @jax.jit
        def f(state, x):
            done = jnp.all(x > 0)
            if done:
                return reset()
            return {"pos": x, "t": state}
        """, "JIT201")
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY


@pytest.mark.parametrize("empty", ["jnp.zeros(0)", "jnp.empty((0,))", "jnp.array([])"])
def test_an_empty_array_against_one_the_data_sizes_gets_advice_only(empty):
    # `jnp.zeros(0) if n == 0 else A @ x - b` (cvxjax's residuals): lax.cond needs both branches of one shape
    # (TypeError: cond branches must have equal output types, JAX 0.10.2) -- equal only when the other is empty
    _, diag = only(f"""
        @jax.jit
        def f(A, x, b, n):
            r = {empty} if n == 0 else A @ x - b
            return r
        """, "JIT201")
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY
    assert "empty array" in diag.fix.title


def test_branches_returning_dicts_of_the_same_keys_are_joined():
    _, diag = only("""
        @jax.jit
        def f(x):
            p = jnp.abs(x).sum()
            if p < 0.05:
                return {"p": p, "size": p * 2.0}
            return {"size": jnp.ceil(1.0 / p), "p": p}
        """, "JIT201")
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE


def test_static_is_not_offered_for_data_parameters():
    # `n` is also used as data (`x * n`): making it static is not the fix; the loop is rewritten
    _, diag = only("""
        @jax.jit
        def f(x, n):
            y = x * n
            for i in range(n):
                y = y + i
            return y
        """, "JIT202", prefer=True)
    assert diag.fix is not None and "fori_loop" in diag.fix.title


@pytest.mark.parametrize("name, static", [("step", False), ("global_step", False), ("epoch", False),
                                          ("mode_id", True), ("n_layers", True)])
def test_static_is_not_offered_for_a_step_counter(name, static):
    # a counter has a new value on every call: static_argnames would compile each time
    _, diag = only(f"""
        @jax.jit
        def f(x, {name}):
            if {name} < 100:
                x = x * 2
            return x
        """, "JIT201")
    assert diag.fix is not None
    assert ("static_argnames" in diag.fix.title) is static, diag.fix.title


@pytest.mark.parametrize("caller, static", [("f(x, 3)", True), ("f(*args)", False)])
def test_static_is_not_offered_where_a_starred_call_fills_the_parameter(caller, static):
    # what `f(*args)` passes is not seen: a dict or an array made static raises ValueError (ofdft_nflows'
    # `Nuclei_potential(*args)`, whose callers pass the molecule as a dict)
    _, diag = only(f"""
        @jax.jit
        def f(x, mode_id):
            if mode_id < 100:
                x = x * 2
            return x

        def call(x, args):
            return {caller}
        """, "JIT201")
    assert diag.fix is not None
    assert ("static_argnames" in diag.fix.title) is static, diag.fix.title


def test_static_is_not_offered_through_flax_apply():
    # `jax.jit(model.apply)` runs `__call__`, but `apply(variables, *args)` takes the arguments:
    # static_argnames=("num_steps",) would not reach `__call__`'s parameter
    _, diag = only("""
        import flax.linen as nn


        class Net(nn.Module):
            def __call__(self, x, num_steps):
                for _ in range(num_steps):
                    x = x * 2
                return x


        model = Net()
        forward = jax.jit(model.apply)
        """, "JIT202")
    assert diag.fix is None or "static" not in diag.fix.title


# ---------------------------------------------------------------- safety

def test_single_print_of_traced_value_is_safe():
    _, diag = only("""
        @jax.jit
        def f(x):
            print("x", x)
            return x
        """, "JIT103")
    assert diag.fix.applicability is Applicability.SAFE


def test_several_prints_are_unsafe_as_debug_prints_are_unordered():
    _, diags = findings("""
        @jax.jit
        def f(x):
            print("a", x)
            print("b", x)
            return x
        """)
    assert [d.fix.applicability for d in diags] == [Applicability.UNSAFE] * 2


def test_print_of_a_value_that_may_be_traced_is_unsafe():
    _, diag = only("""
        import somelib

        @jax.jit
        def f(x):
            print("x", x, somelib.thing(x))
            return x
        """, "JIT103")
    assert diag.fix.applicability is Applicability.UNSAFE


@pytest.mark.parametrize("shown", ["x.shape", "x.shape[0] * 2", "len(x)", "n", "steps", "str(x.dtype)", "(x.ndim, 3)"])
def test_print_of_values_proven_static_is_safe(shown):
    """A literal, a shape, ``len``, a static parameter, a local bound once to one: Python values in
    every trace, formatted at trace time as eager ``print`` formats them."""
    _, diag = only(f"""
        from functools import partial

        @partial(jax.jit, static_argnames=("n",))
        def f(x, n):
            steps = 10
            print("x", x, {shown})
            return x
        """, "JIT103")
    assert diag.fix.applicability is Applicability.SAFE


@pytest.mark.parametrize("shown", ["q_i", "zeros", "table"])
def test_print_of_values_static_only_by_default_is_unsafe(shown):
    """What no trace jitlint sees reaches is static by default: a closure of a function nobody jits
    here (a caller elsewhere may trace it), the result of an unknown library's call. Formatted at
    trace time it would print a tracer's repr wherever a caller traces it: not proven, so UNSAFE
    (levanter ``flash_attention.py:209``)."""
    _, diag = only(f"""
        import somelib
        from jax import lax

        def attention(q, table):
            def body(state):
                i, o = state
                q_i = q[i]
                zeros = somelib.zeros(3)
                print(i, {shown})
                return i + 1, o
            return lax.while_loop(lambda s: s[0] < 3, body, (0, q))
        """, "JIT103")
    assert diag.fix.applicability is Applicability.UNSAFE


@pytest.mark.parametrize("body, code", [
    ("""
     @jax.jit
     def f(x):
         return x if x > 0 else -x
     """, "JIT201"),
    ("""
     @jax.jit
     def f(x, n):
         y = x * n
         for i in range(n):
             y = y + i
         return y
     """, "JIT202"),
    ("""
     @jax.jit
     def f(x):
         while x > 1:
             x = x / 2
         return x
     """, "JIT203"),
    ("""
     @jax.jit
     def f(x, flag: bool):
         if flag:
             x = x + 1
         return x
     """, "JIT201"),
])
def test_control_flow_and_static_fixes_are_unsafe(body, code):
    _, diag = only(body, code)
    assert diag.fix is not None
    assert diag.fix.applicability is Applicability.UNSAFE


def test_safe_only_fixing_leaves_unsafe_fixes_alone():
    body = """
        @jax.jit
        def f(x):
            print("x", x)
            return x if x > 0 else -x
        """
    out = fixed(body, unsafe=False)
    assert 'jax.debug.print("x {!s}", x)' in out
    assert "x if x > 0 else -x" in out


# ------------------------------------------------------------- rewrites


def test_restricted_domain_branch_uses_cond_not_where():
    out = fixed("""
        @jax.jit
        def f(x):
            if x > 0:
                y = jnp.log(x)
            else:
                y = x
            return y
        """)
    assert "lax.cond(x > 0, lambda: jnp.log(x), lambda: x)" in out
    assert "where" not in out


def test_division_in_branch_uses_cond():
    out = fixed("""
        @jax.jit
        def f(x, s):
            return x / s if s != 0 else x
        """)
    assert "lax.cond(s != 0, lambda: x / s, lambda: x)" in out


def test_literal_branch_matches_the_dtype_of_the_other():
    out = fixed("""
        @jax.jit
        def f(x):
            return x.sum() if x.sum() > 0 else 0
        """)
    assert "lambda: 0.0" in out  # not `0`: lax.cond rejects int32 against float32


def test_int_literal_against_a_traced_name_becomes_zeros_like():
    out = fixed("""
        @jax.jit
        def f(x):
            s = x.sum()
            t = x @ x if s > 0 else 0
            return t
        """)
    assert "lambda: jnp.zeros_like(x @ x)" not in out
    assert "lax.cond(s > 0, lambda: x @ x, lambda: 0.0)" in out


def test_variable_assigned_in_one_branch_keeps_its_value_in_the_other():
    out = fixed("""
        @jax.jit
        def f(a, b, q):
            if q.sum() > 0:
                a = a @ a
                b = b + 1
            return a, b
        """)
    assert "def false_fn" not in out
    assert "lax.cond(q.sum() > 0, true_fn, lambda a, b: (a, b), a, b)" in out


def test_only_live_variables_are_carried():
    out = fixed("""
        @jax.jit
        def f(x, n):
            y = x * n
            t = x
            for i in range(n):
                t = y * 2
                y = t + i
            return y
        """)
    assert "def body_fun(i, y):" in out
    assert "y = lax.fori_loop(0, n, body_fun, y)" in out


def test_existing_names_are_reused():
    header = "import jax\nimport jax.numpy as np\nimport jax.lax as L\n\n\n"
    out = fixed("""
        @jax.jit
        def f(x):
            if x > 0:
                return x
            return jnp_like(x)

        def jnp_like(x):
            return -x

        @jax.jit
        def g(x):
            return x * 2 if x > 0 else x
        """, header=header)
    assert "L.cond(" in out and "np.where(" in out
    assert "import" not in out


def test_lax_name_taken_falls_back_to_jax_lax():
    out = fixed("""
        lax = "a string, not the module"

        @jax.jit
        def f(x):
            while x > 1:
                x = x / 2
            return x
        """, header="import jax\n\n\n")
    assert "jax.lax.while_loop(" in out


def test_missing_jax_import_is_added():
    out = fixed("""
        @jit
        def f(x):
            print("x", x)
            return x
        """, header="from jax import jit\n\n\n")
    assert out.startswith("import jax\nfrom jax import jit\n"), "isort's order: `import x` before `from x import y`"


def test_static_argnums_only_spec_gets_an_index():
    out = fixed("""
        from functools import partial

        @partial(jax.jit, static_argnums=(0,))
        def f(k, x, n):
            for i in range(n):
                x = x + k
            return x
        """, prefer=True)
    assert "@partial(jax.jit, static_argnums=(0, 2))" in out


def test_static_argnums_spec_and_keyword_only_parameter_get_both():
    out = fixed("""
        from functools import partial

        @partial(jax.jit, static_argnums=(0,))
        def f(k, x, *, n):
            for i in range(n):
                x = x + k
            return x
        """, prefer=True)
    assert '@partial(jax.jit, static_argnums=(0,), static_argnames=("k", "n"))' in out


# ------------------------------------------------------- NumPy -> jax.numpy

NUMPY_HEADER = "import jax\nimport numpy as np\n\n\n"

NUMPY_NO_FIX = {
    "np.unique: jnp.unique has a value-dependent size (JIT401)": """
        @jax.jit
        def f(x):
            return np.unique(x)
        """,
    "np.nonzero: jnp.nonzero has a value-dependent size (JIT401)": """
        @jax.jit
        def f(x):
            return np.nonzero(x)
        """,
    "one-argument np.where is nonzero": """
        @jax.jit
        def f(x):
            return np.where(x > 0)
        """,
    "out= (jax arrays are immutable)": """
        @jax.jit
        def f(x, buf):
            return np.exp(x, out=buf)
        """,
    "positional out of a ufunc": """
        @jax.jit
        def f(x, buf):
            return np.add(x, 1.0, buf)
        """,
    "a ufunc's where=": """
        @jax.jit
        def f(x):
            return np.sqrt(x, where=x > 0)
        """,
    "casting=": """
        @jax.jit
        def f(x):
            return np.concatenate([x, x], casting="same_kind")
        """,
    "order=": """
        @jax.jit
        def f(x):
            return np.ravel(x, order="F")
        """,
    "subok=": """
        @jax.jit
        def f(x):
            return np.zeros_like(x, subok=False)
        """,
    "a_min= (jnp.clip takes min=)": """
        @jax.jit
        def f(x):
            return np.clip(x, a_min=0.0, a_max=1.0)
        """,
    "**kwargs": """
        @jax.jit
        def f(x, opts):
            return np.percentile(x, 50.0, **opts)
        """,
    "traced reps: jnp.tile needs them static (JIT402)": """
        @jax.jit
        def f(x):
            n = x.sum().astype(int)
            return np.tile(x, n)
        """,
    "traced axis": """
        @jax.jit
        def f(x, k):
            return np.append(x, x, axis=k)
        """,
    "NumPy array indexed with a tracer": """
        TABLE = np.arange(4.0)

        @jax.jit
        def f(i):
            return TABLE[i]
        """,
    # the result goes on to a use that needs a concrete value: jnp would move the failure there
    "result converted by int() for a loop count": """
        @jax.jit
        def f(x):
            n = np.ceil(x)
            for _ in range(int(n)):
                x = x * 2
            return x
        """,
    "result used as a shape": """
        @jax.jit
        def f(x):
            return jax.numpy.zeros(np.floor(x))
        """,
    "result tested by if": """
        @jax.jit
        def f(x):
            big = np.exp(x)
            if big:
                return x
            return -x
        """,
    "result goes on to np.unique, which jax.numpy cannot replace (value-dependent size)": """
        @jax.jit
        def f(x):
            v = np.abs(x)
            w = np.sort(v)
            return np.unique(w)
        """,
    "result passed to .item() for a shape": """
        @jax.jit
        def f(x):
            return jax.numpy.ones(np.sqrt(x).item() * 2)
        """,
}


@pytest.mark.parametrize("case", sorted(NUMPY_NO_FIX))
def test_numpy_call_without_fix(case):
    _, diag = only(NUMPY_NO_FIX[case], "JIT302", header=NUMPY_HEADER)
    assert diag.fix is None, diag.fix


def test_numpy_call_fix_is_unsafe_and_names_the_function():
    _, diag = only("""
        @jax.jit
        def f(x):
            return np.log10(x)
        """, "JIT302", header=NUMPY_HEADER)
    assert diag.fix is not None
    assert diag.fix.applicability is Applicability.UNSAFE
    assert diag.fix.title == "Use `jnp.log10` (jax.numpy), which traces; remove the import of `np`, now unused"


def test_numpy_call_fix_is_not_applied_with_safe_fixes_only():
    body = """
        @jax.jit
        def f(x):
            return np.exp(x)
        """
    assert fixed(body, header=NUMPY_HEADER, unsafe=False) == textwrap.dedent(body)


def test_numpy_import_added_once_for_two_calls():
    source, diags = findings("""
        @jax.jit
        def f(x):
            a = np.exp(x)
            b = np.log1p(x)
            return a + b
        """, header=NUMPY_HEADER)
    fixes = [d.fix for d in diags if d.code == "JIT302"]
    assert len(fixes) == 2 and all(f is not None for f in fixes)
    result = fix_source(source, "case.py", Config(), unsafe=True)
    assert result.rounds == 1, "both calls are fixed in one round"
    assert result.fixed.count("import jax.numpy as jnp\n") == 1
    assert result.fixed.startswith("import jax\nimport jax.numpy as jnp\n\n"), "in its block; NumPy's import removed"
    assert "a = jnp.exp(x)\n" in result.fixed and "b = jnp.log1p(x)\n" in result.fixed


def test_numpy_call_fix_keeps_arguments_and_static_ones():
    out = fixed("""
        @jax.jit
        def f(x):
            return np.append(x, x[:1], axis=0), np.tile(x, x.shape[0]), np.sort(x, axis=-1, stable=True)
        """, header=NUMPY_HEADER)
    assert ("jnp.append(x, x[:1], axis=0), jnp.tile(x, x.shape[0]), jnp.sort(x, axis=-1, stable=True)"
            in out)


def test_numpy_call_fix_spells_jax_numpy_through_jax_when_jnp_is_taken():
    out = fixed("""
        jnp = "not the module"

        @jax.jit
        def f(x):
            return np.exp(x)
        """, header=NUMPY_HEADER)
    assert "return jax.numpy.exp(x)" in out and "import jax.numpy" not in out


# ------------------------------------------------------------ robustness

# ------------------------------------------------------- JIT301: a conversion kept as an array

CAST_NO_FIX = {
    "a shape": """
        @jax.jit
        def f(x):
            n = int(x)
            return jnp.zeros(n)
        """,
    "a range bound": """
        @jax.jit
        def f(x, y):
            for i in range(int(x)):
                y = y + 1
            return y
        """,
    "an if test on int() (int(0.5) > 0 is False, 0.5 > 0 True)": """
        @jax.jit
        def f(x, y):
            if int(x) > 0:
                return y
            return -y
        """,
    "an if test comparing float() with a string": """
        @jax.jit
        def f(x, y):
            if float(x) > "a":
                return y
            return -y
        """,
    "a comparison kept in a name": """
        @jax.jit
        def f(x, y):
            big = float(x) > 1.0
            return y * big
        """,
    "a Python index": """
        TABLE = [1.0, 2.0, 3.0]

        def pick(i):
            return TABLE[i]

        @jax.jit
        def f(i, y):
            return y * pick(int(i))
        """,
    "an index of a list that is not all numbers": """
        TABLE = [1.0, "two", 3.0]

        @jax.jit
        def f(i, y):
            return y * len(str(TABLE[int(i)]))
        """,
    "an index of a list bound twice": """
        TABLE = [1.0, 2.0, 3.0]
        TABLE = [4.0, 5.0]

        @jax.jit
        def f(i, y):
            return y * TABLE[int(i)]
        """,
    "a dict key": """
        @jax.jit
        def f(k, y):
            return {int(k): y}
        """,
    "string formatting": """
        @jax.jit
        def f(x, y):
            name = "step-%d" % int(x)
            return y, name
        """,
    "string repetition": """
        @jax.jit
        def f(x, y):
            return y, "-" * int(x)
        """,
    "an argument of a function of this module": """
        def g(n, y):
            return y[:n]

        @jax.jit
        def f(x, y):
            return g(int(x), y)
        """,
    "returned by a helper whose caller needs the number": """
        def count(x):
            return int(x.sum())

        @jax.jit
        def f(x):
            return x * len(range(count(x)))
        """,
    "returned by a function jitted at a call, not where it is defined": """
        def f(x):
            return float(x) * 2.0

        g = jax.jit(f)
        """,
    "the name is bound again": """
        @jax.jit
        def f(x, y):
            n = int(x)
            n = n + 1
            return y * n
        """,
    "the name is read by a lambda": """
        @jax.jit
        def f(x, y):
            n = float(x)
            scale = lambda v: v * n
            return scale(y)
        """,
    "an integer power (a negative exponent differs)": """
        @jax.jit
        def f(x, y):
            return y * int(x) ** 2
        """,
    "a jnp argument that must be static": """
        @jax.jit
        def f(x, d):
            return jnp.round(x, int(d))
        """,
    "an unknown other operand": """
        @jax.jit
        def f(x, y, unit):
            return y, int(x) * unit()
        """,
    "int() with a base": """
        @jax.jit
        def f(x, y):
            return y * int(x, 2)
        """,
}


@pytest.mark.parametrize("case", sorted(CAST_NO_FIX))
def test_conversion_without_fix(case):
    _, diag = only(CAST_NO_FIX[case], "JIT301")
    assert diag.fix is None, diag.fix


@pytest.mark.parametrize("call, dtype", [("int(x)", "dtype=int"), ("float(x)", "dtype=float")])
def test_conversion_fix_is_unsafe_and_keeps_an_array(call, dtype):
    source, diag = only(f"""
        @jax.jit
        def f(x, y):
            return y * {call}
        """, "JIT301")
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE
    assert fixed(f"""
        @jax.jit
        def f(x, y):
            return y * {call}
        """).endswith(f"return y * jnp.asarray(x, {dtype})\n")
    assert fixed(f"""
        @jax.jit
        def f(x, y):
            return y * {call}
        """, unsafe=False).endswith(f"return y * {call}\n")


# ------------------------------------------------------- JIT501: a wrapper made once

HOIST_NO_FIX = {
    # (a lambda closing over the loop variable that only passes it on: see test_fix_lifted_wrapper.py)
    "a lambda closing over the loop variable, used in it": """
        def loss(p, x):
            return jnp.sum(p * x)

        def run(p, xs):
            return [jax.jit(lambda q: loss(q, x) + x.sum())(p) for x in xs]
        """,
    "a bound method (its object may change)": """
        class Model:
            def loss(self, x):
                return jnp.sum(x)

            def run(self, xs):
                return [jax.jit(jax.grad(self.loss))(x) for x in xs]
        """,
    "a nested function (it may read what the loop changes)": """
        def run(p, xs):
            scale = 1.0

            def loss(q):
                return jnp.sum(q) * scale

            for x in xs:
                scale = x
                p = jax.jit(jax.grad(loss))(p)
            return p
        """,
    "a parameter the loop rebinds": """
        def loss(p):
            return jnp.sum(p ** 2)

        def damped(f):
            return lambda q: f(q) * 0.5

        def run(f, p, xs):
            for x in xs:
                p = jax.jit(jax.grad(f))(p)
                f = damped(f)
            return p
        """,
    "a module function bound twice": """
        def loss(p):
            return jnp.sum(p ** 2)

        def run(p, xs):
            for x in xs:
                p = jax.jit(jax.grad(loss))(p)
            return p

        def loss(p):
            return jnp.sum(p)
        """,
    "traced code reads a global that the loop changes (JIT101)": """
        SCALE = 1.0

        def set_scale(s):
            global SCALE
            SCALE = s

        def loss(p):
            return jnp.sum(p) * SCALE

        def run(p, xs):
            for x in xs:
                set_scale(x)
                p = jax.jit(jax.grad(loss))(p)
            return p
        """,
    "made per call from a parameter (module level cannot read it)": """
        def step(f, p):
            return jax.jit(jax.grad(f))(p)

        def loss(p):
            return jnp.sum(p ** 2)

        def run(p, xs):
            for x in xs:
                p = step(loss, p)
            return p
        """,
    "made per call from a function defined below": """
        def step(p):
            return jax.jit(jax.grad(loss))(p)

        def run(p, xs):
            for x in xs:
                p = step(p)
            return p

        def loss(p):
            return jnp.sum(p ** 2)
        """,
    "a static argument changing per iteration": """
        from functools import partial

        @partial(jax.jit, static_argnums=1)
        def f(x, n):
            for _ in range(n):
                x = x * 2
            return x

        def run(x):
            for n in range(3):
                x = f(x, n)
            return x
        """,
}


@pytest.mark.parametrize("case", sorted(HOIST_NO_FIX))
def test_wrapper_not_hoisted(case):
    source, diags = findings(HOIST_NO_FIX[case])
    matching = [d for d in diags if d.code == "JIT501"]
    assert matching, diags
    # no rewrite (a static argument that changes, needed static -- a loop count --, gets advice only)
    assert all(d.fix is None or (d.fix.applicability is Applicability.DISPLAY_ONLY and not d.fix.edits)
               for d in matching), [d.fix for d in matching]
    if case == "a static argument changing per iteration":
        assert all(d.fix is not None and d.fix.title.startswith("Pass `n` traced") for d in matching)


def test_a_wrapper_reading_a_frozen_global_is_made_before_the_loop_not_at_module_level():
    """Traced code reads a global another function changes (JIT101): made anew on every call of `run`, the
    wrapper traces with that call's value; made once at module level it would keep the first one."""
    _, diag = only("""
        SCALE = 1.0

        def set_scale(s):
            global SCALE
            SCALE = s

        def loss(p):
            return jnp.sum(p) * SCALE

        def run(p, xs):
            for x in xs:
                p = jax.jit(jax.grad(loss))(p)
            return p
        """, "JIT501")
    assert diag.fix is not None and "before the loop" in diag.fix.title, diag.fix


HOISTED_BEFORE_THE_LOOP = {
    "a partial of a parameter the loop never rebinds": """
        import functools

        def loss(n, x):
            return jnp.sum(x[:n])

        def run(n, xs):
            out = []
            for x in xs:
                out.append(jax.jit(functools.partial(loss, n))(x))
            return out
        """,
    "an option read from a parameter the loop never rebinds": """
        def loss(p, n):
            return jnp.sum(p) * n

        def run(p, xs, which):
            for x in xs:
                p = jax.jit(jax.grad(loss, argnums=which))(p, x)
            return p
        """,
}


@pytest.mark.parametrize("case", sorted(HOISTED_BEFORE_THE_LOOP))
def test_a_wrapper_of_unchanged_parameters_is_made_before_the_loop(case):
    """What the wrapper binds is a parameter of the function that nothing binds again: made once before
    the loop (never at module level, which cannot read it) it holds the same value on every iteration."""
    _, diag = only(HOISTED_BEFORE_THE_LOOP[case], "JIT501")
    assert diag.fix is not None and "before the loop" in diag.fix.title, diag.fix


def test_hoisted_wrapper_is_unsafe_and_named_freshly():
    body = """
        def loss(p):
            return jnp.sum(p ** 2)

        loss_grad_jit = None

        def run(p, xs):
            for x in xs:
                p = jax.jit(jax.grad(loss))(p)
            return p
        """
    _, diag = only(body, "JIT501")
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE
    out = fixed(body)
    # (module-level names only: made once at module level, under a name no module-level name has)
    assert "\nloss_grad_jit_1 = jax.jit(jax.grad(loss))\n\n\ndef run(p, xs):\n    for x in xs:\n" \
           "        p = loss_grad_jit_1(p)\n" in out
    assert fixed(body, unsafe=False) == textwrap.dedent(body)


# ------------------------------------------------------- JIT101: the global passed as an argument

PARAM_SETTER = """
        SCALE = 2.0

        def set_scale(s):
            global SCALE
            SCALE = s
"""

PARAM_ADVICE_ONLY = {
    "a public function with another decorator (the plain function would lose it)": """
        import functools

        @functools.lru_cache
        @jax.jit
        def f(x):
            return x * SCALE
        """,
    "passed to another function": """
        @jax.jit
        def _f(x):
            return x * SCALE

        def run(xs):
            return list(map(_f, xs))
        """,
    "wrapped by another transform": """
        @jax.jit
        def _f(x):
            return jnp.sum(x * SCALE)

        def run(x):
            return jax.grad(_f)(x)
        """,
    "jitted at a call, and also called as itself": """
        def _f(x):
            return x * SCALE

        _g = jax.jit(_f)

        def run(x):
            return _g(x) + _f(x)
        """,
    "read in a helper that calls the jitted function back": """
        def _helper(x, n):
            return x * SCALE if n == 0 else _f(x, n - 1)

        @jax.jit
        def _f(x, n):
            return _helper(x, n) + 1.0

        def run(x):
            return _f(x, 2)
        """,
    "a method": """
        class Model:
            @jax.jit
            def _f(self, x):
                return x * SCALE
        """,
    "a kind the module's assignments do not show": """
        import os

        OFFSET = float(os.environ.get("OFFSET", "0"))

        def set_offset(v):
            global OFFSET
            OFFSET = v

        @jax.jit
        def _f(x):
            return x + OFFSET

        def run(x):
            return _f(x)
        """,
    "an array needed as a shape": """
        SIZES = jnp.array([3])

        def set_sizes(v):
            global SIZES
            SIZES = v

        @jax.jit
        def _f(x):
            return jnp.zeros(SIZES) + x

        def run(x):
            return _f(x)
        """,
}


#: another module may call the function, or a call cannot take the argument: it keeps its name and
#: signature as a plain function in front of the jitted body
PARAM_BEHIND_WRAPPER = {
    "a public function, no __all__ (another module may call it)": """
        @jax.jit
        def f(x):
            return x * SCALE

        def run(x):
            return f(x)
        """,
    "listed in __all__": """
        __all__ = ["_f"]

        @jax.jit
        def _f(x):
            return x * SCALE
        """,
    "a call unpacking **kwargs": """
        @jax.jit
        def _f(x):
            return x * SCALE

        def run(kw):
            return _f(**kw)
        """,
    "the global is shadowed at a call": """
        @jax.jit
        def _f(x):
            return x * SCALE

        def run(x, SCALE):
            return _f(x)
        """,
    "called by itself": """
        @jax.jit
        def _f(x):
            return x * SCALE + _f(x)
        """,
}


@pytest.mark.parametrize("case", sorted(PARAM_ADVICE_ONLY))
def test_global_read_gets_advice_only(case):
    _, diags = findings(PARAM_SETTER + PARAM_ADVICE_ONLY[case])
    matching = [d for d in diags if d.code == "JIT101"]
    assert matching, diags
    for diag in matching:
        assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY, diag.fix
        assert not diag.fix.edits


@pytest.mark.parametrize("case", sorted(PARAM_BEHIND_WRAPPER))
def test_global_read_behind_a_plain_function(case):
    body = PARAM_SETTER + PARAM_BEHIND_WRAPPER[case]
    _, diags = findings(body)
    [diag] = [d for d in diags if d.code == "JIT101"]
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE, diag.fix
    out = fixed(body)
    name = "f" if "def f(" in body else "_f"
    private = "_f" if name == "f" else "_f_1"
    assert f"def {name}(x):\n    return {private}(x, scale=SCALE)\n\n\n@jax.jit\ndef {private}(x, *, scale):" in out, out
    assert "x * scale" in out and "x * SCALE" not in out
    assert fixed(body, unsafe=False) == textwrap.dedent(body)


def test_global_passed_as_argument_is_unsafe():
    body = PARAM_SETTER + """
        @jax.jit
        def _f(x):
            return x * SCALE

        def run(x):
            return _f(x)
        """
    _, diag = only(body, "JIT101")
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE
    out = fixed(body)
    assert "def _f(x, *, scale):\n    return x * scale\n" in out and "return _f(x, scale=SCALE)\n" in out
    assert fixed(body, unsafe=False) == textwrap.dedent(body)


LINT_FIXTURES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fixtures", "lint", "*.py")))


@pytest.mark.parametrize("path", LINT_FIXTURES, ids=os.path.basename)
def test_fixing_real_looking_code_never_breaks_it(path):
    with open(path, encoding="utf-8") as fh:
        source = fh.read()
    result = fix_source(source, path, Config(), unsafe=True)
    assert result.error is None, result.error
    compile(result.fixed, path, "exec")
    again = fix_source(result.fixed, path, Config(), unsafe=True)
    assert again.fixed == result.fixed


def test_rules_that_claim_a_fix_have_a_builder():
    from jitlint.fixes import FIXABLE_CODES
    from jitlint.rules import ALL_RULES

    from jitlint.rules.noqa import UnusedNoqa

    # JIT900 is judged at the project-level merge, after every rule ran: its fix is built there
    claimed = {rule.code for rule in ALL_RULES if rule.fix_title} - {UnusedNoqa.code}
    assert claimed == set(FIXABLE_CODES)
    assert UnusedNoqa.code not in FIXABLE_CODES


def test_every_builder_declares_what_it_fixes():
    """A ``to_*`` builder of the package that no rule code reaches would be dead code: each one
    is declared, as a rewrite or as a static alternative, by the decorator next to it."""
    import inspect
    import pkgutil

    import jitlint.fixes
    from jitlint.fixes.registry import REWRITES, STATIC_ALTERNATIVES

    declared = {b for found in REWRITES.values() for b in found} | {b for b, _ in STATIC_ALTERNATIVES.values()}
    defined = set()
    for found in pkgutil.iter_modules(jitlint.fixes.__path__):
        module = importlib.import_module(f"jitlint.fixes.{found.name}")
        defined |= {f for name, f in inspect.getmembers(module, inspect.isfunction)
                    if name.startswith("to_") and f.__module__ == module.__name__
                    and set(inspect.signature(f).parameters) == {"node", "ctx"}}
    assert len(defined) >= 13
    assert defined == declared


def test_static_alternative_order_is_declared_and_can_be_overridden():
    from jitlint.fixes.masks import to_dynamic_window, to_masked_rows_reductions, to_masked_slice_sum, to_static_size
    from jitlint.fixes.registry import builders_for, static_alternative
    from jitlint.fixes.static_args import to_static_argnames

    assert builders_for("JIT201")[0] is to_static_argnames  # a mode flag: static first
    assert builders_for("JIT202")[-1] is to_static_argnames  # a loop bound: the loop first
    assert builders_for("JIT402") == [to_masked_slice_sum, to_masked_rows_reductions, to_dynamic_window,
                                      to_static_size]
    assert builders_for("JIT402", prefer_static=True) == [to_static_size, to_masked_slice_sum,
                                                          to_masked_rows_reductions, to_dynamic_window]
    assert builders_for("JIT203", prefer_static=True)[0] is not to_static_argnames  # none declared
    with pytest.raises(ValueError, match="already has a static alternative"):
        static_alternative("JIT402", first=True)(to_static_argnames)


# ------------------------------------------------------------ staged checks

@pytest.mark.parametrize("body, why", [
    ("""
    @jax.jit
    def f(x):
        if jnp.any(x < 0):
            raise ValueError(f"negative: {x}")
        return x
    """, "the message formats a tracer: it would be made at trace time"),
    ("""
    @jax.jit
    def f(x):
        try:
            assert jnp.all(x > 0), "positive"
        except AssertionError:
            x = -x
        return x
    """, "caught where it is raised: the callback's error is not"),
    ("""
    @jax.jit
    def f(x):
        if jnp.any(x < 0):
            raise ValueError(describe(x))
        return x
    """, "the message calls a function: it would run on every call"),
    ("""
    @jax.jit
    def f(x):
        if jnp.any(x < 0):
            raise ValueError("negative") from None
        return x
    """, "a raise with a cause"),
    ("""
    @jax.jit
    def f(x):
        if jnp.any(x < 0):
            x = -x
            raise ValueError("negative")
        return x
    """, "the branch does more than raise"),
    ("""
    @jax.jit
    def f(x):
        ok = bool(jnp.all(x > 0))
        if not ok:
            raise ValueError("negative")
        return x, ok
    """, "`ok` is used again: it must stay a Python bool there"),
])
def test_a_staged_check_is_not_offered(body, why):
    source, diags = findings(body)
    for d in diags:
        fix = d.built_fix() if d.deferred_fix is not None else d.fix
        assert fix is None or "jax.debug.callback" not in fix.title, (why, fix)


def test_an_assert_on_a_value_not_proven_boolean_gets_advice():
    _, diag = only("""
    @jax.jit
    def f(x):
        assert x.sum(), "empty"
        return x
    """, "JIT201")
    fix = diag.built_fix() if diag.deferred_fix is not None else diag.fix
    assert fix is not None and fix.applicability is Applicability.DISPLAY_ONLY and "checkify" in fix.title


def test_staged_checks_of_one_module_share_one_raiser_and_a_second_fix_changes_nothing():
    body = """
    @jax.jit
    def f(x):
        assert jnp.all(x > 0), "f"
        return x


    @jax.jit
    def g(x):
        if jnp.any(x > 9):
            raise ValueError("g")
        return x
    """
    once = fixed(body)
    assert once.count("def _raise_where(") == 1 and once.count("_raise_where,") == 2, once
    assert fixed(once, header="") == once


@pytest.mark.parametrize("body", [
    """
    @jax.jit
    def basis(x, k):
        if jnp.sum(k) == 0:
            return jnp.ones_like(x)
        return x * basis(x, k - 1)
    """,
    """
    @jax.jit
    def basis(x, k):
        return jnp.ones_like(x) if jnp.sum(k) == 0 else x * basis(x, k - 1)
    """,
])
def test_no_branch_rewrite_of_a_recursion_the_test_ends(body):
    """`lax.cond` / `jnp.where` trace both branches: the recursive one would be traced at the base case
    too, and tracing would recurse until RecursionError (held-out P: a rewrite of jax-sbgeom's Cox-de Boor
    recursion did that)."""
    _, diag = only(body, "JIT201")
    fix = diag.built_fix() if diag.deferred_fix is not None else diag.fix
    assert fix is None or not fix.edits, fix


def test_a_staged_assert_negates_with_logical_not():
    """`~` of a Python bool is -2, which `failed.any()` takes for a failure: an `assert` whose test is a
    Python bool after all (a shape comparison the analysis took for an array) would fail on every call.
    `jnp.logical_not` is right for both."""
    out = fixed("""
    @jax.jit
    def f(x):
        assert jnp.all(x > 0), "positive"
        return x
    """)
    assert "jnp.logical_not(jnp.all(x > 0))" in out and "~" not in out, out


def test_a_staged_assert_keeps_the_other_statements_of_its_line():
    out = fixed("""
    @jax.jit
    def f(x):
        y = x * 2; assert jnp.all(y > 0), "positive"
        return y
    """)
    assert "y = x * 2;" in out and "jax.debug.callback(" in out and "assert" not in out, out


#: a module-level scale that a function changes: a read of it in traced code is JIT101
SCALE_PREAMBLE = """
    SCALE = 2.0

    def set_scale(v):
        global SCALE
        SCALE = v
    """

HELPER_READ_ADVICE_ONLY = {
    # (a plain public one keeps its name as a wrapper: param_public_helper*)
    "a decorated helper another module may call": """
        def _logged(f):
            return f

        @_logged
        def scaled(x):
            return x * SCALE

        @jax.jit
        def step(x):
            return scaled(x)
        """,
    "a helper two jitted functions call": """
        def _scaled(x):
            return x * SCALE

        @jax.jit
        def step(x):
            return _scaled(x)

        @jax.jit
        def other(x):
            return _scaled(x) * 2
        """,
    # (called from a function nested in the jitted one, it is threaded: param_thread_scan_body)
    "a helper called also from a function nested elsewhere": """
        def _scaled(x):
            return x * SCALE

        def make():
            return lambda y: _scaled(y)

        @jax.jit
        def step(x):
            return _scaled(x)
        """,
    # (handed to a JAX transform that calls it, it is threaded: param_thread_vmap, param_thread_grad_chain)
    "a helper passed, not only called": """
        def _scaled(x):
            return x * SCALE

        def _apply(f, x):
            return f(x)

        @jax.jit
        def step(x):
            return _apply(_scaled, x)
        """,
    "a helper mapped in two jitted functions": """
        def _scaled(x):
            return x * SCALE

        @jax.jit
        def step(x):
            return jax.vmap(_scaled)(x)

        @jax.jit
        def other(x):
            return jax.vmap(_scaled)(x) + 1.0
        """,
}


@pytest.mark.parametrize("case", sorted(HELPER_READ_ADVICE_ONLY))
def test_helper_read_rewritten_only_where_every_call_is_seen(case):
    """JIT101 in a helper: the value is threaded through the helper and its one jitted caller only
    where the helper's signature can change (no other module, no other caller, only called, each call
    in the caller's own body); otherwise the advice is display-only."""
    _, diags = findings(textwrap.dedent(SCALE_PREAMBLE) + textwrap.dedent(HELPER_READ_ADVICE_ONLY[case]))
    reads = [d for d in diags if d.code == "JIT101"]
    assert reads, diags
    assert all(d.fix is not None and d.fix.applicability is Applicability.DISPLAY_ONLY for d in reads), \
        [d.fix for d in reads]


# ------------------------------------------------------------------ branches that select a function
_TWO_LAWS = """
        def ccm(w):
            return w * 2

        def odd(w):
            return w + 1
        """
SELECTED_FUNCTIONS = {
    "if/else on module functions": _TWO_LAWS + """
        @jax.jit
        def f(w):
            if w.sum() > 0:
                law = ccm
            else:
                law = odd
            return law(w)
        """,
    "conditional expression on module functions": _TWO_LAWS + """
        @jax.jit
        def f(w):
            law = ccm if w.sum() > 0 else odd
            return law(w)
        """,
    "if/else on lambdas": """
        @jax.jit
        def f(w):
            if w.sum() > 0:
                law = lambda v: v * 2
            else:
                law = lambda v: v * 3
            return law(w)
        """,
}


@pytest.mark.parametrize("case", sorted(SELECTED_FUNCTIONS))
def test_a_branch_that_selects_a_function_gets_advice(case):
    """``lax.cond`` and ``jnp.where`` give arrays: a branch choosing a function has no rewrite there
    (JAX 0.10.2: ``lax.cond`` returning a function raises TypeError); the advice names the call."""
    _, diag = only(SELECTED_FUNCTIONS[case], "JIT201")
    fix = diag.built_fix() if diag.deferred_fix is not None else diag.fix
    assert fix is None or (fix.applicability is Applicability.DISPLAY_ONLY and "lax.switch" in fix.title), fix


def test_a_function_of_another_module_is_not_selected_by_a_rewrite(tmp_path):
    """The same through an import of another module of the project (``dust.ccm``, ``from .dust import
    odd``): the analysis notes the names of functions the project defines."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (pkg / "__init__.py").write_text("")
    (pkg / "dust.py").write_text("def ccm(w):\n    return w * 2\n\n\ndef odd(w):\n    return w + 1\n")
    (pkg / "model.py").write_text(
        "import jax\n\nfrom . import dust\nfrom .dust import odd\n\n\n"
        "@jax.jit\ndef f(w):\n    if w.sum() > 0:\n        law = dust.ccm\n    else:\n        law = odd\n"
        "    return law(w)\n\n\n"
        "@jax.jit\ndef g(w):\n    law = dust.ccm if w.sum() > 0 else dust.odd\n    return law(w)\n\n\n"
        "@jax.jit\ndef h(w):\n    y = w * 2 if w.sum() > 0 else w\n    return y\n")
    before = (pkg / "model.py").read_text()
    proc = subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "--no-cache", "--fix",
                           "--unsafe-fixes", str(pkg)], capture_output=True, text=True, cwd=tmp_path)
    after = (pkg / "model.py").read_text()
    assert "law = dust.ccm\n" in after and "law = odd\n" in after and "law = dust.ccm if w.sum() > 0 else dust.odd" in after
    assert "where(w.sum() > 0, w * 2, w)" in after, (proc.stdout, proc.stderr)  # an array: still rewritten
    assert after != before


# ------------------------------------------------------- JIT102: an append moved into a host callback


def test_appended_values_reach_the_list_on_every_call(tmp_path):
    """`HISTORY.append(energy)` in a jitted step -> `jax.debug.callback(HISTORY.append, energy)`: after four
    jitted calls the list holds the four energies eager code appends (NumPy arrays, equal values); the
    original under jit holds one tracer.  Not offered when traced code also reads the list, or for a list
    that a function binds anew."""
    jax = pytest.importorskip("jax")
    import importlib.util

    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "fix", "log_list_append")

    def load(suffix, name):
        spec = importlib.util.spec_from_file_location(name, fixture + suffix)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    x0 = jax.numpy.array([0.0, 2.0, -1.0])
    original, rewritten = load(".in.py", "append_in"), load(".out.py", "append_out")
    with jax.disable_jit():
        _, eager = original.relax(x0)
    _, jitted = rewritten.relax(x0)
    assert len(jitted) == 4 and bool(jax.numpy.allclose(eager, jitted))
    original.relax.__globals__["HISTORY"].clear()
    with pytest.raises(Exception):
        original.relax(x0)  # the original under jit: one tracer in the list, which leaks
    read_too = """
        HISTORY = []

        @jax.jit
        def step(x):
            HISTORY.append(x.sum())
            return x * len(HISTORY)
        """
    reported = [d for d in findings(read_too)[1] if d.code == "JIT102"]
    assert reported and all(d.fix is None or not d.fix.edits for d in reported)
    rebound = """
        HISTORY = []

        def reset():
            global HISTORY
            HISTORY = []

        @jax.jit
        def step(x):
            HISTORY.append(x.sum())
            return x
        """
    reported = [d for d in findings(rebound)[1] if d.code == "JIT102"]
    assert reported and all(d.fix is None or not d.fix.edits for d in reported)


def test_the_static_argument_taken_out_is_the_one_that_changes():
    """Two static arguments given names at the call, one of them a new value on every iteration: the fix
    works on the parameter the finding names (`m`), not on the first static one (`n`, a loop count)."""
    body = """
        from functools import partial

        @partial(jax.jit, static_argnums=(1, 2))
        def f(x, n, m):
            for _ in range(n):
                x = x * m
            return x

        def run(x, n):
            for k in range(3):
                x = f(x, n, 0.5 * k)
            return x
        """
    _, diag = only(body, "JIT501")
    assert diag.fix is not None and diag.fix.title.startswith("Take `m` out of the static arguments")
    assert "static_argnums=(1,)" in fixed(body)


def test_a_method_wrapper_is_made_in_init_only_where_nothing_it_reads_changes():
    """`jax.jit(self._forward)` per call is made once in `__init__` -- but not where `_forward` reads, in a
    lambda it makes, an attribute another method changes (`fit` rescales), nor where the attribute name the
    wrapper would take is used already (in a method)."""
    made = """
        class Model:
            def __init__(self, scale):
                self.scale = scale

            def _forward(self, x):
                return jax.tree.map(lambda p: p * self.scale, x)

            def predict(self, xs):
                return [jax.jit(self._forward)(x) for x in xs]
        """
    assert "self._forward_jit = jax.jit(self._forward)" in fixed(made)
    rescaled = made.replace("            def predict", "            def fit(self, s):\n                self.scale = s\n\n"
                                                      "            def predict")
    taken = made.replace("            def predict", "            def reset(self):\n"
                                                  "                self._forward_jit = None\n\n            def predict")
    for body in (rescaled, taken):
        _, diag = only(body, "JIT501")
        assert diag.fix is None or not diag.fix.edits or "__init__" not in diag.fix.title, body


STATIC_HASHABLE_ADVICE_ONLY = {
    # a frozen instance could not hold a list: hashing it would raise still
    "a list field": """
        @dataclass
        class Cfg:
            sizes: list = field(default_factory=lambda: [4, 2])
        """,
    # the module sets a field: a frozen instance raises FrozenInstanceError there
    "a field set later": """
        @dataclass
        class Cfg:
            rho: float = 1.0

        def tune(cfg):
            cfg.rho = 2.0
        """,
    # a subclass of a frozen dataclass must be frozen too (TypeError at class creation otherwise)
    "a subclass": """
        @dataclass
        class Cfg:
            rho: float = 1.0

        @dataclass
        class Wider(Cfg):
            width: int = 2
        """,
    # an annotation that names a class of unknown hashability
    "an unknown field type": """
        @dataclass
        class Cfg:
            rho: Schedule = None
        """,
}


@pytest.mark.parametrize("case", sorted(STATIC_HASHABLE_ADVICE_ONLY))
def test_unhashable_dataclass_made_frozen_only_when_nothing_breaks(case):
    header = "from dataclasses import dataclass, field\nfrom functools import partial\nimport jax\n"
    body = STATIC_HASHABLE_ADVICE_ONLY[case] + """
        @partial(jax.jit, static_argnames=("cfg",))
        def solve(a, cfg):
            return a * 2.0

        def run(a):
            return solve(a, Cfg())
        """
    _, diags = findings(body, header=header)
    matching = [d for d in diags if d.code == "JIT502"]
    assert len(matching) == 1, diags
    fix = matching[0].fix
    assert fix is not None and fix.applicability is Applicability.DISPLAY_ONLY and not fix.edits, fix


STATIC_ARRAY_KEPT = {
    "a shape": "return jnp.zeros(taps.shape[0] + len(taps))\n",
    "an if": "if taps[0] > 0:\n                return a\n            return -a\n",
    "rebound": "taps = taps * 2\n            return a * taps\n",
}


@pytest.mark.parametrize("case", sorted(STATIC_ARRAY_KEPT))
def test_static_array_made_traced_only_when_read_as_data(case):
    body = f"""
        @partial(jax.jit, static_argnames=("taps",))
        def smooth(a, taps):
            {STATIC_ARRAY_KEPT[case]}
        def run(a):
            return smooth(a, np.ones(3))
        """
    header = "from functools import partial\nimport jax\nimport jax.numpy as jnp\nimport numpy as np\n"
    _, diags = findings(body, header=header)
    matching = [d for d in diags if d.code == "JIT502"]
    assert len(matching) == 1, diags
    fix = matching[0].fix
    assert fix is None or (fix.applicability is Applicability.DISPLAY_ONLY and not fix.edits), fix


def test_an_in_place_write_the_caller_reads_back_gets_advice_only():
    """`grid[iy, ix] = v` on a parameter: eagerly NumPy changes the caller's array, which the caller reads
    again (JAX 0.10.2: `build_map`'s grid stays zeros after `grid = grid.at[...].set(...)`); the rewrite
    cannot change it, so it is advice.  A caller that does not read it again, or a function that writes
    into its own copy, keeps the rewrite."""
    header = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"
    reads_back = """
        @jax.jit
        def mark(grid, i):
            scale = grid.shape[0] * 1.0
            grid[i] = 2.0
            return jnp.sum(grid) * scale

        def build(n):
            grid = np.zeros(n)
            total = mark(grid, 1)
            return grid, total
        """
    _, diag = only(reads_back, "JIT105", header=header)
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY and not diag.fix.edits
    for body in (reads_back.replace("return grid, total", "return total"),
                 reads_back.replace("            grid[i] = 2.0\n            return jnp.sum(grid) * scale",
                                    "            out = grid * scale\n            out[i] = 2.0\n            return jnp.sum(out)")):
        _, diag = only(body, "JIT105", header=header)
        assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE and diag.fix.edits, body


def test_an_int_global_handed_to_an_unseen_function_is_passed_static():
    """An int global read only as array data is passed traced; handed to a function jitlint cannot see
    (`particle_filter(n_particles=N)`, where it may be a size) it is passed static, as the trace's constant
    it was (JAX 0.10.2: a traced particle count raises in `jnp.zeros((n,))`)."""
    header = "import jax\nimport jax.numpy as jnp\nfrom pf import particle_filter\n"
    body = """
        N = 500

        @jax.jit
        def _loglik(theta):
            return particle_filter(theta, n_particles=N)

        def set_n(n):
            global N
            N = n
        """
    out = fixed(body, header=header)
    assert 'static_argnames=("n",)' in out and "_loglik(theta, *, n)" in out, out
    data = body.replace("particle_filter(theta, n_particles=N)", "jnp.sum(theta) * N")
    out = fixed(data, header=header)
    assert "static_argnames" not in out and "_loglik(theta, *, n)" in out, out


HAIKU = "import haiku as hk\nimport jax\nimport jax.numpy as jnp\n\n"
HAIKU_FORWARD = """
    SCALE = 2.0


    def _forward(x):
        return hk.Linear(2)(x) * SCALE


    MODEL = hk.transform(_forward)


    def set_scale(s):
        global SCALE
        SCALE = s
    """


@pytest.mark.parametrize("uses, threaded", [
    # every call that runs `_forward` is outside traced code: each passes the value
    ("""
     predict = jax.jit(MODEL.apply)


     def run(params, x):
         return predict(params, None, x)
     """, True),
    # called from a jitted function: the read would move into traced code, frozen there as before
    ("""
     @jax.jit
     def run(params, x):
         return MODEL.apply(params, None, x)
     """, False),
    # a static spec counts apply's arguments: not edited
    ("""
     predict = jax.jit(MODEL.apply, static_argnums=3)


     def run(params, x):
         return predict(params, None, x, True)
     """, False),
    # the wrapper handed on: calls the analysis cannot see would miss the value
    ("""
     predict = jax.jit(MODEL.apply)
     HANDLERS = [predict]
     """, False),
])
def test_a_global_read_by_a_haiku_function_is_passed_through_apply(uses, threaded):
    """Haiku's apply and init hand keyword arguments on to the function they transformed (haiku 0.0.17), so
    `_forward(x, *, scale)` takes the value from every call that runs it -- where all of them are seen and
    none is in traced code; otherwise the fix is advice only."""
    body = textwrap.dedent(HAIKU_FORWARD) + textwrap.dedent(uses)
    _, diag = only(body, "JIT101", header=HAIKU)
    assert diag.fix is not None
    assert (diag.fix.applicability is Applicability.UNSAFE) is threaded, diag.fix.title
    if threaded:
        out = fixed(body, header=HAIKU)
        assert "def _forward(x, *, scale):" in out and "* scale" in out
        assert "predict(params, None, x, scale=SCALE)" in out


@pytest.mark.parametrize("call, rewritten", [
    ("math.exp(-x / t)", True),
    ("math.atan2(x, t)", True),
    ("math.floor(x / t)", False),  # a Python int eagerly, a float from jnp.floor: an index of it would break
    ("math.log(x, 2.0)", False),  # two arguments: no twin of the same meaning
])
def test_math_functions_become_their_jax_numpy_twins(call, rewritten):
    body = f"""
    @jax.jit
    def f(x, t):
        return {call}
    """
    header = "import math\n\n" + HEADER
    _, diag = only(body, "JIT301", header=header)
    twin = diag.fix is not None and diag.fix.title.startswith("Use `jnp.")
    assert twin is rewritten, diag.fix


# ------------------------------------------------------------------ item stores into what may be a dict
STORES_INTO_MAYBE_A_DICT = {
    # paxml's train step: the state's variables copied, a collection replaced under a constant of
    # another package (a string there: `.at` of a dict raises AttributeError) -- here read as an array
    # (`ndim`: `.copy()` alone is a dict's method too, and gives no finding), its creation unseen
    "a key imported from another package": """
        from somewhere import base_layer

        KEY = base_layer.NON_TRAINABLE

        @jax.pmap
        def step(states, updated):
            variables = states.variables.copy()
            assert variables.ndim == 2
            variables[KEY] = updated[KEY]
            return variables
        """,
    "a key a function of another package gives": """
        from somewhere import collection_name

        @jax.jit
        def step(states, updated):
            variables = states.variables.copy()
            assert variables.ndim == 2
            variables[collection_name()] = updated
            return variables
        """,
}


@pytest.mark.parametrize("case", sorted(STORES_INTO_MAYBE_A_DICT))
def test_item_store_with_a_key_of_unknown_type_gets_advice_only(case):
    """JIT105's `.at[...]` rewrite needs the container to be an array: where nothing shows it (not made by
    JAX or NumPy) and the key is not one an array takes (a slice, an int, a `range` index, a traced array),
    the fix is display-only."""
    _, diags = findings(textwrap.dedent(STORES_INTO_MAYBE_A_DICT[case]))
    stores = [d for d in diags if d.code == "JIT105"]
    assert stores, diags
    assert all(d.fix is not None and d.fix.applicability is Applicability.DISPLAY_ONLY and not d.fix.edits
               for d in stores), [d.fix for d in stores]


@pytest.mark.parametrize("use", ["zones.add(3)", "zones.discard(0)", "helper(zones)", "zones == {0}"])
def test_a_static_set_changed_or_handed_on_gets_advice_only(use):
    """`frozenset(...)` serves a set read for its members; a set the function changes, hands to a function
    it cannot see, or compares with a set display (a frozenset compares equal, but the test reads the
    value as a set) keeps the advice."""
    _, diag = only(f"""
        from functools import partial

        def helper(z):
            return z

        @partial(jax.jit, static_argnames=("zones",))
        def f(x, zones):
            {use}
            return x * len(zones)

        def run(x):
            return f(x, zones=set([0, 2]))
        """, "JIT502")
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY, diag.fix


@pytest.mark.parametrize("body", [
    # the update reads a parameter: moved out, it would read the argument eagerly, not the traced value
    "global TOTAL\n    TOTAL += x.sum()\n    return x * 2",
    # the rest reads what is updated: the jitted core would read it frozen
    "global CALLS\n    CALLS += 1\n    return x * CALLS",
    # not at the top: the update follows traced work
    "y = x * 2\n    global CALLS\n    CALLS += 1\n    return y",
])
def test_host_update_wrapper_needs_a_leading_update_of_outer_values_only(body):
    source = fixed("CALLS = 0\nTOTAL = 0.0\n\n\n@jax.jit\ndef f(x):\n    " + body + "\n")
    assert "def _f(" not in source, source


def test_a_size_a_call_passes_as_an_array_is_not_made_static():
    """`board(x, jnp.int32(8))`: making `n_points` static would hand jit an array to hash (ValueError:
    Non-hashable static arguments); the count passed as a Python int is made static."""
    array_call = fixed("""
        @jax.jit
        def board(load, n_points):
            return jnp.linspace(0.0, load, n_points)

        def pool():
            return board(jnp.float32(1.5), jnp.int32(8))
        """)
    assert "static_argnames" not in array_call
    int_call = fixed("""
        @jax.jit
        def board(load, n_points):
            return jnp.linspace(0.0, load, n_points)

        def pool():
            return board(jnp.float32(1.5), 8)
        """)
    assert 'static_argnames=("n_points",)' in int_call


def test_an_id_compared_with_numbers_is_not_made_static_but_a_mode_string_is():
    """`if kind == 0:` picks a branch on an id a caller may pass as a device integer: making it static
    raises there (unhashable, JAX 0.10.2), the select rewrite takes both; a flag tested for its truth
    stays the static fix's."""
    _, numeric = only("""
        @jax.jit
        def f(kind, x):
            if kind == 0:
                y = x * 2.0
            else:
                y = x + 1.0
            return y
        """, "JIT201")
    assert numeric.fix is not None and "static" not in numeric.fix.title
    _, mode = only("""
        @jax.jit
        def f(double, x):
            if double:
                y = x * 2.0
            else:
                y = x + 1.0
            return y
        """, "JIT201")
    assert mode.fix is not None and "static" in mode.fix.title


def test_a_while_loop_whose_count_sizes_an_array_after_it_is_not_rewritten():
    """`while left > 0: trips += 1`, then `jnp.arange(trips)`: as a `lax.while_loop` carry the count is
    traced, and the length it gives after the loop depends on the data (ConcretizationTypeError on JAX
    0.10.2): no loop rewrite can give it, so none is offered; the same count only returned is rewritten."""
    sized = """
        @jax.jit
        def f(cars, capacity):
            trips = 0
            left = cars
            while left > 0:
                left = left - capacity
                trips += 1
            return jnp.arange(trips) * 2.0
        """
    _, diag = only(sized, "JIT203")
    assert diag.fix is None or not diag.fix.edits
    _, returned = only(sized.replace("jnp.arange(trips) * 2.0", "trips"), "JIT203")
    assert returned.fix is not None and "while_loop" in returned.fix.title


def test_a_jitted_def_in_a_loop_moves_before_it_only_when_it_reads_nothing_the_loop_binds():
    """Moved before the loop, the def is made once: right where it reads only names bound before the loop;
    one that reads the loop's variable (or a name the body assigns) is a different function each
    iteration, and stays."""
    body = """
        def run(x, rate):
            for k in range(4):
                @jax.jit
                def step(v):
                    return v * rate
                x = step(x)
            return x
        """
    source, diag = only(body, "JIT501")
    assert diag.fix is not None and "before the loop" in diag.fix.title
    fixed = fix_source(source, "case.py", Config(), unsafe=True).fixed
    assert "    @jax.jit\n    def step(v):\n        return v * rate\n\n    for k in range(4):\n" in fixed
    _, reads_loop = findings(body.replace("return v * rate", "return v * rate * k"))
    assert all(d.fix is None or "before the loop" not in d.fix.title for d in reads_loop if d.code == "JIT501")


def test_a_break_on_a_traced_test_becomes_a_while_loop_where_the_loop_allows_it():
    """`for i in range(n): ...; if test: break` -> `lax.while_loop` (the count and the test carried); a loop
    over anything but `range`, or with more after the `if`, keeps the advice alone."""
    body = """
        @jax.jit
        def f(x):
            for i in range(10):
                x = x * 0.5
                if x.sum() < 1.0:
                    break
            return x
        """
    _, diag = only(body, "JIT201")
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE and "while_loop" in diag.fix.title
    _, listed = only(body.replace("range(10)", "[1, 2, 3]"), "JIT201")
    assert listed.fix is not None and listed.fix.applicability is Applicability.DISPLAY_ONLY
    assert "while_loop" in listed.fix.title
    _, more = only("""
        @jax.jit
        def f(x):
            for i in range(10):
                x = x * 0.5
                if x.sum() < 1.0:
                    break
                x = x + 1.0
            return x
        """, "JIT201")
    assert more.fix is not None and more.fix.applicability is Applicability.DISPLAY_ONLY


def test_a_spread_row_is_printed_field_by_field_only_when_its_length_is_known():
    """`print(*row)`: `jax.debug.print` gets one field per value where the function unpacks the row into
    so many names (it ran, so the row has that many); a row of unknown length keeps `print`."""
    body = """
        @jax.jit
        def f(row):
            a, b = row
            print("row", *row)
            return a + b
        """
    source, diag = only(body, "JIT103")
    assert diag.fix is not None and diag.fix.edits
    assert 'jax.debug.print("row {!s} {!s}", *row)' in fix_source(source, "case.py", Config()).fixed
    _, unknown = only(body.replace("a, b = row", "a, b = row[0], row[1]"), "JIT103")
    assert unknown.fix is None or not unknown.fix.edits


FLOATS = """
RATES = {display}


def retune():
    {change}


def _step(c, _):
    beta, gamma = RATES
    {use}


@jax.jit
def simulate(s):
    return lax.scan(_step, s, None, length=3)[0]
"""


@pytest.mark.parametrize("display, change, use, expected", [
    # elements only array data: passed traced, whole
    ("(0.3, 0.1)", "global RATES\n    RATES = (0.6, 0.1)", "return c * beta - gamma * c, None", "argument"),
    ("[0.3, 0.1]", "RATES[0] = 0.6", "return c * beta - gamma * c, None", "argument"),
    # an element a test needs: a tuple can be static (one compile per value), a list cannot
    ("(0.3, 0.1)", "global RATES\n    RATES = (0.6, 0.1)",
     "return (c * beta if gamma > 0.05 else c), None", "static argument"),
    ("[0.3, 0.1]", "RATES[0] = 0.6", "return (c * beta if gamma > 0.05 else c), None", None),
    # a list the module changes to hold something else, or in a way not seen
    ("[0.3, 0.1]", "RATES[0] = 'fast'", "return c * beta - gamma * c, None", None),
    ("[0.3, 0.1]", "RATES.append('fast')", "return c * beta - gamma * c, None", None),
    # one that grows or shrinks by numbers: passed whole at each call, a new length a new structure (here the
    # unpacking then raises ValueError, eagerly and jitted alike)
    ("[0.3, 0.1]", "RATES.append(0.2)", "return c * beta - gamma * c, None", "argument"),
])
def test_a_tuple_or_list_of_floats_is_passed_whole_when_its_elements_are_data(display, change, use, expected):
    body = FLOATS.format(display=display, change=change, use=use)
    _, diag = only(body, "JIT101")
    if expected is None:
        assert diag.fix is None or diag.fix.applicability is Applicability.DISPLAY_ONLY, diag.fix
    else:
        assert diag.fix is not None and diag.fix.applicability is not Applicability.DISPLAY_ONLY
        assert f"as the {expected} `rates`" in diag.fix.title, diag.fix.title


@pytest.mark.parametrize("use, passed", [
    ("return jnp.isin(ids, jnp.array(SPECIAL)).mean()", True),
    # an item of it in arithmetic: array data too
    ("return (ids * jnp.asarray(SPECIAL, dtype=jnp.int32)[0]).sum()", True),
    ("return ids.sum() if jnp.array(SPECIAL)[0] > 2 else ids.mean()", False),
    # a constant array in the trace can be a test or a shape; a traced one cannot
    ("return ids.sum() if jnp.array(SPECIAL).size > 2 else ids.mean()", False),
])
def test_the_array_a_trace_builds_from_a_global_list_is_built_at_the_call(use, passed):
    body = f"""
SPECIAL = [0, 1]


def register(t):
    SPECIAL.append(t)


@jax.jit
def frac(ids):
    {use}


def session(ids):
    first = frac(ids)
    register(5)
    return first, frac(ids)
"""
    _, diag = only(body, "JIT101")
    rewrites = diag.fix is not None and diag.fix.applicability is not Applicability.DISPLAY_ONLY \
        and re.search(r"`jnp\.\w+\(SPECIAL", diag.fix.title) is not None
    assert rewrites is passed, diag.fix


def test_a_jitted_def_reading_the_loop_variable_is_moved_out_with_it_as_a_parameter():
    # the def cannot go before the loop as it is (it reads `x`), but with `x` a keyword-only parameter,
    # passed by the call in the same iteration, it goes to module level: one compile for every `x`
    out = fixed("""
        def run(p, xs):
            for x in xs:
                @jax.jit
                def f(q):
                    return q * x
                p = f(p)
            return p
        """)
    assert "@jax.jit\ndef f(q, *, x):\n    return q * x" in out and "p = f(p, x=x)" in out, out


@pytest.mark.parametrize("use, traced", [
    ("return jnp.maximum(x[None, :] - strikes[:, None], 0.0)", True),
    # an item of it as a size: it must stay a Python value
    ("return x + jnp.zeros(strikes[0])", False),
    ("return x[: strikes[1]]", False),
])
def test_an_array_given_to_a_static_parameter_is_traced_only_where_its_items_are_data(use, traced):
    body = f"""
from functools import partial

@partial(jax.jit, static_argnames=("strikes",))
def payoff(x, strikes):
    {use}

STRIKES = jnp.array([3, 4])

def book(x):
    return payoff(x, strikes=STRIKES)
"""
    _, diag = only(body, "JIT502")
    made_traced = diag.fix is not None and diag.fix.applicability is not Applicability.DISPLAY_ONLY \
        and "traced argument" in diag.fix.title
    assert made_traced is traced, diag.fix


HISTORY_CLASS = """
class Trainer:
    def __init__(self):
        self.history = []
        self._step = jax.jit(self._sgd_step)

    def _sgd_step(self, w):
        loss = jnp.sum(w ** 2)
        self.history.append(float(loss))
        {extra}
        return w - 0.1 * loss

    def reset(self):
        {reset}

    def fit(self, w):
        for _ in range(3):
            w = self._step(w)
        return w
"""


@pytest.mark.parametrize("extra, reset, fixed_by_callback", [
    ("", "pass", True),
    # the traced method reads the list: it would see the trace's list, not the host's
    ("w = w * len(self.history)", "pass", False),
    # another method binds a new list: which one the callback appends to depends on when it runs
    ("", "self.history = []", False),
])
def test_an_attribute_list_of_the_object_is_appended_from_a_callback_only_when_traced_code_only_appends(
        extra, reset, fixed_by_callback):
    source = HISTORY_CLASS.format(extra=extra, reset=reset)
    diags = [d for d in findings(source)[1] if d.code == "JIT102"]
    assert diags
    made = any(d.fix is not None and d.fix.applicability is not Applicability.DISPLAY_ONLY
               and "jax.debug.callback" in d.fix.title for d in diags)
    assert made is fixed_by_callback, [d.fix for d in diags]


@pytest.mark.parametrize("use", [
    "return jnp.isin(x, u, assume_unique=True).mean()",
    "return jnp.isin(x, u).mean() + u.size",
    "return jnp.isin(u, x).mean()",
])
def test_distinct_values_stay_distinct_unless_only_tested_against(use):
    _, diag = only(f"""
@jax.jit
def f(x, y):
    u = jnp.unique(y)
    {use}
""", "JIT401")
    assert diag.fix is None or "values themselves" not in diag.fix.title, diag.fix


@pytest.mark.parametrize("use, rewritten", [
    ("return ys.mean() + xs.sum()", True),
    # a position read itself, or a reduction along an axis: the positions' own array is needed
    ("return ys.mean() + xs[0]", False),
    ("return ys.mean(axis=0) + xs.sum()", False),
])
def test_positions_are_reduced_over_every_position_only_when_only_summed_or_averaged(use, rewritten):
    _, diag = only(f"""
@jax.jit
def f(img):
    ys, xs = jnp.nonzero(img > 0.5)
    {use}
""", "JIT401")
    made = diag.fix is not None and "jnp.indices" in diag.fix.title
    assert made is rewritten, diag.fix


@pytest.mark.parametrize("body, fixable", [
    # the smaller of two values used as array data: jnp.minimum computes the same in the trace
    ("""
    @jax.jit
    def f(x, cap):
        limit = min(cap, x.max())
        return x * limit
    """, True),
    # a size or a test made of it (through a local, a conditional expression, arithmetic): an array there
    # breaks where the values were Python numbers after all (a false alarm), and fixes nothing where traced
    ("""
    @jax.jit
    def f(x, chunk, total):
        chunk = total if chunk is None else min(chunk, total)
        rem = total % chunk
        if rem:
            x = x[rem:]
        return x.reshape(-1, chunk)
    """, False),
    ("""
    @jax.jit
    def f(x, n, m):
        return jnp.zeros(min(n, m)) + x
    """, False),
])
def test_an_elementwise_twin_is_not_made_where_the_value_must_stay_a_python_number(body, fixable):
    _, diag = only(body, "JIT204")
    assert (diag.fix is not None and diag.fix.applicability is not Applicability.DISPLAY_ONLY) is fixable, diag.fix


def test_an_update_after_other_work_moves_after_the_call_only_where_the_body_leaves_at_its_end():
    """`SCORED += 1` after the work runs on every call eagerly when the body leaves only by its last
    statement; with a `return` before it (a static early exit), the eager call skips it: not moved."""
    _, diag = only("""
        SCORED = 0

        @jax.jit
        def score(x):
            global SCORED
            y = jnp.tanh(x)
            SCORED += 1
            return y
        """, "JIT102")
    assert diag.fix is not None and diag.fix.title.startswith("Update the state in a plain"), diag.fix
    _, diag = only("""
        SCORED = 0

        @jax.jit
        def score(x, fast=False):
            global SCORED
            if fast:
                return x
            y = jnp.tanh(x)
            SCORED += 1
            return y
        """, "JIT102")
    assert diag.fix is None or not diag.fix.title.startswith("Update the state in a plain"), diag.fix


# ------------------------------------------------------------ loops under reverse-mode differentiation

_FIXED_POINT = """
    def solve(z, tol):
        delta = jnp.inf
        while delta > tol:
            z_next = jnp.tanh(z)
            delta = jnp.max(jnp.abs(z_next - z))
            z = z_next
        return z

"""

@pytest.mark.parametrize("body, code", [
    (_FIXED_POINT + """
    def loss(z):
        return solve(z, 1e-4).sum()

    @jax.jit
    def step(z):
        return jax.value_and_grad(loss)(z)
    """, "JIT203"),
    ("""
    @jax.jit
    @jax.grad
    def energy(x):
        total = 0.0
        for i in range((x > 0).sum()):
            total = total + jnp.sum(x ** 2) / (i + 1)
        return total
    """, "JIT202"),
])
def test_a_loop_reverse_mode_differentiates_gets_advice_only(body, code):
    # JAX 0.10.2: `ValueError: Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop
    # with dynamic start/stop values` -- the rewrite would trade one error for another
    _, diag = only(body, code)
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY, diag.fix
    assert "reverse mode" in diag.fix.title


def test_a_loop_differentiated_forward_is_still_rewritten():
    _, diag = only(_FIXED_POINT + """
    @jax.jit
    def step(z):
        return jax.jvp(lambda v: solve(v, 1e-4), (z,), (jnp.ones_like(z),))
    """, "JIT203")
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE
