"""JIT502 fixes: a misspelt `static_argnames` name, an out-of-range `static_argnums` index, and
advice (display only) for an unhashable static value."""
import textwrap

import pytest

import jitlint.fixes
from jitlint.config import Config
from jitlint.diagnostics import Applicability
from jitlint.engine import lint_source
from jitlint.fixing import fix_source

HEADER = "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


def jit502(body: str):
    result = lint_source(HEADER + textwrap.dedent(body), "case.py", Config())
    found = [d for d in result.diagnostics if d.code == "JIT502"]
    assert len(found) == 1, result.diagnostics
    return found[0]


@pytest.mark.parametrize("spec, params", [
    ('static_argnames=("nmu",)', "x, num"),            # too short to be close (ratio 0.67)
    ('static_argnames=("width_",)', "x, width, widths"),  # close to two
    ('static_argnames=("zzz",)', "x, n"),              # close to none
    ('static_argnames=("lrn2",)', "x, lrn1, lrn3"),     # one edit from two
    ("static_argnames=NAMES", "x, n"),                 # not a literal
])
def test_no_fix_for_a_name_not_close_to_exactly_one_parameter(spec, params):
    diag = jit502(f"""
        NAMES = ("zz",)

        @partial(jax.jit, {spec})
        def f({params}):
            return x
        """)
    assert diag.fix is None


@pytest.mark.parametrize("typo, param", [("tmep", "temp"), ("nmae", "name"), ("rate", "rates"),
                                         ("modes", "mode"), ("axsi", "axis"), ("sizr", "size")])
def test_one_slip_of_the_keyboard_on_a_short_name_is_fixed(typo, param):
    diag = jit502(f"""
        @partial(jax.jit, static_argnames=("{typo}",))
        def f(x, {param}, other):
            return x
        """)
    assert diag.fix is not None and f"`{param}`" in diag.fix.title


def test_two_misspellings_of_one_parameter_are_not_fixed():
    diag = jit502("""
        @partial(jax.jit, static_argnames=("num_step", "num_stepz"))
        def f(x, num_steps):
            return x
        """)
    assert diag.fix is None


def test_name_fix_is_unsafe_and_says_which_parameter_becomes_static():
    diag = jit502("""
        @partial(jax.jit, static_argnames=("num_step",))
        def f(x, num_steps):
            return x * num_steps
        """)
    assert diag.fix.applicability is Applicability.UNSAFE
    assert diag.fix.title == ("`static_argnames`: `num_step` -> `num_steps` (the parameter closest to it, "
                              "made static)")


def test_several_candidate_indices_are_advice_only():
    diag = jit502("""
        @partial(jax.jit, static_argnums=(3,))
        def f(x, n, m):
            return jnp.zeros(n) + jnp.ones(m).sum() + x
        """)
    assert diag.fix.applicability is Applicability.DISPLAY_ONLY and diag.fix.edits == ()
    assert "`n` is index 1, `m` is index 2" in diag.fix.title


def test_several_indices_out_of_range_with_a_candidate_are_advice_only():
    diag = jit502("""
        @partial(jax.jit, static_argnums=(2, 3))
        def f(x, n):
            return jnp.zeros(n) + x
        """)
    assert diag.fix.applicability is Applicability.DISPLAY_ONLY


def test_bound_method_index_counts_without_self():
    source = HEADER + textwrap.dedent("""
        class Model:
            def __init__(self):
                self.run = jax.jit(self.step, static_argnums=2)

            def step(self, x, n):
                return jnp.tile(x, n)
        """)
    result = fix_source(source, "case.py", Config(), unsafe=True)
    assert "jax.jit(self.step, static_argnums=1)" in result.fixed


@pytest.mark.parametrize("value, advice", [
    ('{"a": 1}', "Pass a frozen dataclass (`@dataclasses.dataclass(frozen=True)`) or a tuple of pairs"),
    ("[n for n in range(3)]", "Pass `tuple([n for n in range(3)])` as `sizes`"),
    ("jnp.arange(3)", "Pass a tuple (`tuple(jnp.arange(3).tolist())` for an array) or a frozen dataclass"),
    ("[4, width]", "Pass a tuple, `(4, width)`, as `sizes`"),  # an item that may be unhashable
])
def test_unhashable_static_value_gets_display_only_advice(value, advice):
    source = HEADER + textwrap.dedent(f"""
        @partial(jax.jit, static_argnames=("sizes",))
        def init(key, sizes):
            return [jax.random.normal(key, (m,)) for m in sizes]

        width = 3
        params = init(jax.random.key(0), sizes={value})
        """)
    result = lint_source(source, "case.py", Config())
    diag = next(d for d in result.diagnostics if d.code == "JIT502")
    assert diag.fix.applicability is Applicability.DISPLAY_ONLY and diag.fix.edits == ()
    assert diag.fix.title.startswith(advice), diag.fix.title
    assert fix_source(source, "case.py", Config(), unsafe=True).fixed == source, "advice is never applied"


LOOP = """
@partial(jax.jit, static_argnames=({spec!r},))
def f(x, num_steps):
    for _ in range(num_steps):
        x = x * 2
    return x
"""


def test_control_flow_waits_for_the_spec_fix():
    """`range(num_steps)` is traced only because the spec misspells it, and JAX rejects the spec
    (the function never runs): only the spec is reported; it is corrected, and the loop stays a
    Python loop over a static bound."""
    source = HEADER + LOOP.format(spec="num_step")
    codes = [d.code for d in lint_source(source, "case.py", Config()).diagnostics]
    assert codes == ["JIT502"]
    result = fix_source(source, "case.py", Config(), unsafe=True)
    assert "static_argnames=('num_steps',)" in result.fixed and "fori_loop" not in result.fixed
    assert result.converged


def test_control_flow_is_reported_once_the_spec_is_valid():
    """A spec name close to no parameter is not corrected: until it is, the loop is not reported
    (what is static is unknown); with the bad name removed, the loop gets its rewrite."""
    rejected = HEADER + LOOP.format(spec="zzz")
    assert [d.code for d in lint_source(rejected, "case.py", Config()).diagnostics] == ["JIT502"]
    assert "fori_loop" not in fix_source(rejected, "case.py", Config(), unsafe=True).fixed
    corrected = rejected.replace("static_argnames=('zzz',)", "static_argnames=()")
    assert [d.code for d in lint_source(corrected, "case.py", Config()).diagnostics] == ["JIT202"]
    assert "lax.fori_loop" in fix_source(corrected, "case.py", Config(), unsafe=True).fixed


SIZES = """
@partial(jax.jit, static_argnames=("sizes",))
def init(key, sizes):
    {use}
    return [jax.random.normal(key, (m,)) for m in sizes]

params = init(jax.random.key(0), sizes=[4, 3])
"""


@pytest.mark.parametrize("use", [
    "sizes = sizes + [1]",  # concatenation with a list: TypeError on a tuple
    "sizes.append(1)",  # a list method
    "assert isinstance(sizes, list)",  # a type test
    "assert sizes == [4, 3]",  # a list never equals a tuple
    "print(helper(sizes))",  # a call that may do any of these
    "key = key if sizes else key",  # (a truth test is fine, but not proven one by one: left)
])
def test_a_list_used_as_only_a_list_serves_is_not_rewritten(use):
    """A use that treats the parameter as a list (or might): the tuple could change what the
    function does, so the list stays and the advice is shown."""
    source = HEADER + SIZES.format(use=use)
    diag = next(d for d in lint_source(source, "case.py", Config()).diagnostics if d.code == "JIT502")
    assert diag.fix.applicability is Applicability.DISPLAY_ONLY and diag.fix.edits == ()
    assert diag.fix.title.startswith("Pass a tuple, `(4, 3)`, as `sizes`"), diag.fix.title
    assert fix_source(source, "case.py", Config(), unsafe=True).fixed == source


@pytest.mark.parametrize("use", [
    "n = len(sizes)",
    "first, *rest = sizes",
    "_ = jnp.zeros(sizes)",
    "_ = [a * b for a, b in zip(sizes, sizes[1:])]",
    "_ = sizes[0] + sizes[-1]",
])
def test_a_list_read_as_a_sequence_becomes_a_tuple(use):
    source = HEADER + SIZES.format(use=use)
    diag = next(d for d in lint_source(source, "case.py", Config()).diagnostics if d.code == "JIT502")
    assert diag.fix.applicability is Applicability.SAFE
    result = fix_source(source, "case.py", Config(), unsafe=False)
    assert "sizes=(4, 3))" in result.fixed and "sizes=[4, 3]" not in result.fixed
    assert result.fixed.replace("sizes=(4, 3))", "sizes=[4, 3])") == source


@pytest.mark.parametrize("body, why", [
    ("""
     @jax.jit
     def f(x, mode):
         mode = mode.lower()
         return x if mode == "id" else -x

     def g(x):
         return f(x, "ID")
     """, "rebound in the body"),
    ("""
     @jax.jit
     def f(x, mode):
         return x if mode == "id" else -x

     def g(x):
         return f(x, "id") + f(x, ["neg"])
     """, "another call gives it a list"),
])
def test_a_string_argument_stays_advice_where_static_cannot_be_shown_to_work(body, why):
    diag = jit502(body)
    assert "receives the string" in diag.message
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY, why
    assert 'static_argnames=("mode",)' in diag.fix.title


def test_a_static_index_on_an_array_stays_when_a_read_needs_it_static():
    source = HEADER + textwrap.dedent("""
        @partial(jax.jit, static_argnums=(0,))
        def f(n, kind):
            y = jnp.arange(3) * 2
            return y[:n] if kind == "head" else y

        def g():
            return f(jnp.ones(3), "head")
        """)
    fixed = fix_source(source, "case.py", Config(), unsafe=True)
    assert "static_argnums=(0, 1)" in fixed.fixed  # `n` is a slice bound: not taken out
