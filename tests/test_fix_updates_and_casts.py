"""JIT105's rewrite (an in-place write -> `x = x.at[...].<update>(...)`, a dropped `.at` update kept) and
JIT301's rewrite of a cast a helper returns; what they leave alone."""
import textwrap

import pytest

import jitlint.fixes
from jitlint.config import Config
from jitlint.diagnostics import Applicability
from jitlint.engine import lint_source
from jitlint.fixing import fix_source

HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


def jit105(body: str):
    result = lint_source(HEADER + textwrap.dedent(body), "case.py", Config())
    found = [d for d in result.diagnostics if d.code == "JIT105"]
    assert len(found) == 1, result.diagnostics
    return found[0]


def test_a_dropped_update_is_kept():
    source = HEADER + textwrap.dedent("""
        @jax.jit
        def f(x):
            y = jnp.zeros(3) + x
            y.at[0].set(5.0)
            return y
        """)
    diag = jit105(source[len(HEADER):])
    assert diag.fix.applicability is Applicability.UNSAFE
    fixed = fix_source(source, "case.py", Config(), unsafe=True).fixed
    assert "    y = y.at[0].set(5.0)\n" in fixed


@pytest.mark.parametrize("body, why", [
    ("""
     @jax.jit
     def f(x):
         y = jnp.zeros(3) + x
         y[y > 0] = 0.0
         return y
     """, "a boolean mask: JIT401's jnp.where rewrite"),
    ("""
     @jax.jit
     def f(x):
         y = jnp.zeros(3) + x
         y[0] //= 2
         return y
     """, "floor division: no .at update does it"),
])
def test_no_rewrite(body, why):
    diag = jit105(body)
    assert diag.fix is None or not diag.fix.edits, why


def test_augmented_operators_map_to_at_methods():
    source = HEADER + textwrap.dedent("""
        @jax.jit
        def f(x):
            y = jnp.ones((2, 2)) * x
            y[0, 0] += 1.0
            y[0, 1] -= 1.0
            y[1, 0] *= 2.0
            y[1, 1] /= 2.0
            y[:, 0] **= 2
            return y
        """)
    fixed = fix_source(source, "case.py", Config(), unsafe=True).fixed
    for method, index in (("add", "0, 0"), ("subtract", "0, 1"), ("multiply", "1, 0"), ("divide", "1, 1"),
                          ("power", ":, 0")):
        assert f"y = y.at[{index}].{method}(" in fixed, method


def test_a_helper_called_also_eagerly_keeps_its_cast():
    # (JIT301's rewrite of a returned cast in a helper: only where every call of it is traced code)
    source = HEADER + textwrap.dedent("""
        def entropy(p):
            return float(-(p * jnp.log(p)).sum())

        @jax.jit
        def stats(p):
            return entropy(p) * 2.0

        def report(p):
            return f"{entropy(p):.3f}"
        """)
    assert fix_source(source, "case.py", Config(), unsafe=True).fixed == source
    traced_only = source.replace('def report(p):\n    return f"{entropy(p):.3f}"\n', "")
    assert "jnp.asarray(" in fix_source(traced_only, "case.py", Config(), unsafe=True).fixed


def test_a_helper_whose_result_is_used_as_an_array_returns_the_array():
    source = HEADER + textwrap.dedent("""
        def count(x):
            return int(x.sum())

        @jax.jit
        def f(x):
            return count(x) * 2
        """)
    fixed = fix_source(source, "case.py", Config(), unsafe=True).fixed
    assert "return jnp.asarray(x.sum(), dtype=int)" in fixed


def test_a_csv_row_written_from_the_callback_is_the_eager_row(tmp_path):
    jax = pytest.importorskip("jax")
    import importlib.util
    import os

    fixtures = os.path.join(os.path.dirname(__file__), "fixtures", "fix")
    rows = []
    for kind in ("in", "out"):
        spec = importlib.util.spec_from_file_location(f"log_csv_row_{kind}",
                                                      os.path.join(fixtures, f"log_csv_row.{kind}.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        args = module.EXAMPLES["evaluate"][0][0]
        if kind == "in":
            with jax.disable_jit():
                module.evaluate(*args)
                module.evaluate(*args)
        else:
            module.evaluate(*args)
            module.evaluate(*args)
            jax.effects_barrier()
        rows.append(module.LOG.getvalue().splitlines())
    assert rows[0] == rows[1] and len(rows[0]) == 2, rows


def test_the_tracker_gets_the_value_of_each_call():
    jax = pytest.importorskip("jax")
    import importlib.util
    import os

    import numpy as np

    path = os.path.join(os.path.dirname(__file__), "fixtures", "fix", "log_host_attribute.out.py")
    spec = importlib.util.spec_from_file_location("log_host_attribute_out", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen = []
    for args, _ in module.EXAMPLES["train_step"]:
        module.train_step(*args)
        jax.effects_barrier()
        seen.append(float(np.asarray(module.TRACKER.last_grad_norm)))
    assert seen == pytest.approx([5.0, 1.0])


@pytest.mark.parametrize("body", [
    """
    def f(x, backend):
        if backend == "numpy":
            return np.outer(x, x).sum()
        elif backend == "jax":
            return jnp.outer(x, x).sum()
        raise ValueError(backend)
    """,
    """
    def f(x, backend):
        if backend == "numpy":
            return np.outer(x, x).sum()
        return jnp.outer(x, x).sum()
    """,
])
def test_the_numpy_arm_of_a_library_dispatch_is_not_rewritten(body):
    # (JIT302's rewrite: where another arm does the same with jax.numpy, the NumPy arm is for NumPy values)
    source = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\nBACKEND = 'jax'\n" + textwrap.dedent(body) \
        + "\n\nf_jit = jax.jit(f, static_argnames=('backend',))\nprint(f_jit(jnp.ones(2), BACKEND))\n"
    found = [d for d in lint_source(source, "case.py", Config()).diagnostics if d.code == "JIT302"]
    assert found, "the NumPy call is reported"
    assert fix_source(source, "case.py", Config(), unsafe=True).fixed == source


def test_a_clock_read_from_the_callback_is_read_on_every_call():
    pytest.importorskip("jax")
    import importlib.util
    import os

    import jax.numpy as jnp

    counts = {}
    for kind in ("in", "out"):
        path = os.path.join(os.path.dirname(__file__), "fixtures", "fix", f"log_append_clock.{kind}.py")
        spec = importlib.util.spec_from_file_location(f"log_append_clock_{kind}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _, n, ordered = module.run(jnp.ones(3), 5)
        counts[kind] = (n, ordered, len(set(module.CALL_TIMES)))
    assert counts["in"][0] == 1  # the original: one reading, when `forces` was traced
    assert counts["out"] == (5, True, 5), counts  # the fix: one reading per call, in order


def test_a_cast_stored_in_a_field_is_kept_where_a_read_needs_a_number():
    """JIT301's rewrite of `self.f = float(x)` holds only where every read of `.f` in the module is array
    arithmetic; one read that needs a Python number (a format spec) keeps the cast."""
    source = HEADER + textwrap.dedent("""
        class Gauge:
            def __init__(self, reading):
                self.reading = float(reading)

            def scaled(self):
                return jnp.sqrt(self.reading) * 2.0

        @jax.jit
        def f(x):
            return Gauge(x[0]).scaled() + x
        """)
    fixed = fix_source(source, "case.py", Config(), unsafe=True).fixed
    assert "self.reading = jnp.asarray(reading, dtype=float)" in fixed
    shown = source + "\n\ndef show(g):\n    return f\"{g.reading:.2f}\"\n"
    assert fix_source(shown, "case.py", Config(), unsafe=True).fixed == shown


def test_a_cast_given_to_a_field_is_kept_unless_the_class_annotates_an_array():
    """JIT301's rewrite of `C(x=float(v))`: where `C` annotates the field `jax.Array`; a field annotated
    `float` keeps the cast (a caller may read it as a Python number)."""
    source = HEADER + textwrap.dedent("""
        from typing import NamedTuple

        class Fit(NamedTuple):
            depth: jax.Array

        @jax.jit
        def f(x):
            return Fit(depth=float(x.sum()))
        """)
    assert "Fit(depth=jnp.asarray(x.sum(), dtype=float))" in fix_source(source, "case.py", Config(), unsafe=True).fixed
    plain = source.replace("depth: jax.Array", "depth: float")
    assert fix_source(plain, "case.py", Config(), unsafe=True).fixed == plain
