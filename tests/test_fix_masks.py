"""JIT401 / JIT402 mask fixes: offered only where the mask's shape and the value written are proven."""
import textwrap

import pytest

import jitlint.fixes
from jitlint.config import Config
from jitlint.diagnostics import Applicability
from jitlint.engine import lint_source

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


def finding(body: str, code: str):
    source = HEADER + textwrap.dedent(body)
    result = lint_source(source, "case.py", Config())
    assert result.error is None, result.error
    matching = [d for d in result.diagnostics if d.code == code]
    assert len(matching) == 1, result.diagnostics
    return matching[0]


NO_FIX = {
    "where indices held in a name used twice": """
        @jax.jit
        def f(x):
            idx = jnp.where(x > 0)
            return x[idx].sum() + x[idx].mean()
        """,
    "where indices held while what the condition reads is rebound": """
        @jax.jit
        def f(x):
            idx = jnp.where(x > 0)
            x = x - 1.0
            return x[idx].sum()
        """,
    "where indices held in a name used in another block": """
        @jax.jit
        def f(x, flag: bool):
            idx = jnp.where(x > 0)
            if flag:
                return x[idx].sum()
            return x
        """,
    "a mask of unknown rank over an expression written twice": """
        @jax.jit
        def f(x, y):
            return (x * 2)[y > 0].sum()
        """,
    "a reduction with no identity to fill with and no where= (a quantile)": """
        @jax.jit
        def f(x):
            return jnp.quantile(x[(x > 0) * 1 > 0.5], 0.9)
        """,
    "a maximum over another axis than 0": """
        @jax.jit
        def f(x):
            return x[x > 0].max(axis=1)
        """,
    "a maximum of an expression that its fill would compute again": """
        @jax.jit
        def f(x, y):
            return (x * 2)[y > 0].max()
        """,
    "a held selection read otherwise than reduced": """
        @jax.jit
        def f(x):
            sel = x[x > 0]
            return sel.sum(), sel
        """,
    "a held selection whose mask's inputs are rebound before a read": """
        @jax.jit
        def f(x):
            sel = x[x > 0]
            total = sel.sum()
            x = x * 2
            return total + sel.mean()
        """,
    "a held selection read in another block": """
        @jax.jit
        def f(x, flag: bool):
            sel = x[x > 0]
            if flag:
                return sel.sum()
            return x
        """,
    "positions counted for a shape": """
        @jax.jit
        def f(x):
            active = jnp.argwhere(x > 0)
            return jnp.zeros(active.shape[0])
        """,
    "positions counted and read": """
        @jax.jit
        def f(x):
            active = jnp.flatnonzero(x > 0)
            return len(active) + active[1]
        """,
    "the size of an argwhere (positions times rank)": """
        @jax.jit
        def f(x):
            return jnp.argwhere(x > 0).size * 1.0
        """,
    "a held selection whose count is a shape": """
        @jax.jit
        def f(x):
            sel = x[x > 0]
            return jnp.zeros(len(sel)) + sel.sum()
        """,
    "a sum over another axis than 0": """
        @jax.jit
        def f(x):
            return x[x > 0].sum(axis=1)
        """,
    "an update with mode=": """
        @jax.jit
        def f(x):
            return x.at[x > 0].set(0.0, mode="drop")
        """,
    "an add whose array is an expression written twice": """
        @jax.jit
        def f(x):
            return (x * 2).at[x * 2 > 0].add(1)
        """,
    "a mask name assigned twice": """
        @jax.jit
        def f(x):
            m = x > 0
            m = x[::-1] > 0
            return x[m].sum()
        """,
    "a floor division write": """
        @jax.jit
        def f(x):
            y = x.copy()
            y[y > 0] //= 2
            return y
        """,
}


@pytest.mark.parametrize("name", sorted(NO_FIX))
def test_no_fix_without_proof(name):
    diag = finding(NO_FIX[name], "JIT401")
    assert diag.fix is None, diag.fix


@pytest.mark.parametrize("body", [
    """
    @jax.jit
    def f(x, y):
        z = x.copy()
        z[y > 0] = y[y > 0]
        return z
    """,
    """
    @jax.jit
    def f(x, v):
        y = x.copy()
        y[y > 0] = v
        return y
    """,
    """
    @jax.jit
    def f(x, v):
        return x.at[x > 0].set(v)
    """,
])
def test_a_value_of_unknown_shape_gets_advice_only(body):
    diag = finding(body, "JIT401")
    assert diag.fix is not None and diag.fix.applicability is Applicability.DISPLAY_ONLY
    assert not diag.fix.edits


@pytest.mark.parametrize("body, safety", [
    ("return x[x > 0].sum()", Applicability.SAFE),
    ("return jnp.sum(x[jnp.isnan(x)])", Applicability.SAFE),
    ("return x[x > 0].mean()", Applicability.UNSAFE),
    ("m = x > 0\n    return x[m].sum()", Applicability.UNSAFE),
    ("return x.at[x > 0].set(0)", Applicability.UNSAFE),
    ("return x[x[:, 0] > 0].sum()", Applicability.UNSAFE),  # a row mask: over the leading axes
])
def test_safety(body, safety):
    diag = finding(f"@jax.jit\ndef f(x):\n    {body}\n", "JIT401")
    assert diag.fix is not None and diag.fix.applicability is safety


def test_a_mean_of_rows_is_taken_under_the_rows_mask():
    diag = finding("""
        @jax.jit
        def f(x, k):
            return x[:k].mean()
        """, "JIT402")
    assert diag.fix is not None and "where=" in diag.fix.title
    assert "jnp.mean(x, where=jnp.indices(x.shape)[0] < k" in diag.fix.edits[0].replacement


@pytest.mark.parametrize("body", [
    # a count of the rows: the mask counts elements, the slice rows
    """
    @jax.jit
    def f(rec, length):
        valid = rec[:length]
        return valid.sum() / len(valid)
    """,
    # a reduction along axis 0 keeps columns the mask of every element would not
    """
    @jax.jit
    def f(rec, length):
        return jnp.max(rec[:length], axis=0)
    """,
    # the rows read whole, not reduced
    """
    @jax.jit
    def f(x, k):
        return x[:k] * 2
    """,
])
def test_rows_read_otherwise_are_made_static_instead(body):
    diag = finding(body, "JIT402")
    assert diag.fix is not None and "static_argnames" in diag.fix.title


def test_a_size_the_data_decides_is_not_made_static():
    # only the step `width` is a parameter: made static, the stop `energies.max() + width` stays traced
    # (JAX 0.10.2: ConcretizationTypeError either way)
    diag = finding("""
        @jax.jit
        def f(energies, width):
            edges = jnp.arange(0.0, energies.max() + width, width)
            return jnp.histogram(energies, bins=edges)[0]
        """, "JIT402")
    assert diag.fix is None, diag.fix


def test_a_slice_with_a_step_is_not_masked():
    diag = finding("""
        @jax.jit
        def f(x, k):
            return x[:k:2].sum() + k
        """, "JIT402")
    assert diag.fix is None


@pytest.mark.parametrize("reduction", ["std", "var"])
def test_spread_of_a_selection_reduces_with_where(reduction):
    source = HEADER + textwrap.dedent(f"""
        @jax.jit
        def f(x):
            return x[x > 0].{reduction}()
        """)
    result = lint_source(source, "case.py", Config())
    diag = next(d for d in result.diagnostics if d.code == "JIT401")
    assert diag.fix is not None and diag.fix.applicability is Applicability.UNSAFE
    from jitlint.fixing import fix_source
    fixed = fix_source(source, "case.py", Config(), unsafe=True).fixed
    assert f"x.{reduction}(where=x > 0)" in fixed and "x[x > 0]" not in fixed


def test_a_masked_median_skips_what_the_mask_leaves_out_as_nan():
    """`jnp.median(x[m])`: the elements left out become NaN, which `jnp.nanmedian` skips (unsafe: a NaN the
    data holds itself is skipped too, where `median` gave NaN)."""
    diag = finding("""
        @jax.jit
        def f(x):
            return jnp.median(x[(x > 0) * 1 > 0.5])
        """, "JIT401")
    assert diag.fix is not None and diag.fix.applicability.value == "unsafe", diag.fix
    assert "nanmedian(jnp.where((x > 0) * 1 > 0.5, x, jnp.nan)" in diag.fix.edits[0].replacement
