"""The JIT302 table says which NumPy functions fail on tracers; check it against JAX."""
import pytest

from jitlint.analysis.jax_api import NUMPY_FAILS_ON_TRACER, NUMPY_WORKS_ON_TRACER

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
np = pytest.importorskip("numpy")


def _run_jitted(snippet):
    def fn(x):
        return eval(snippet, {"np": np, "jnp": jnp}, {"x": x})  # noqa: S307 - table entries only

    return jax.jit(fn)(jnp.arange(1.0, 4.0, dtype=jnp.float32))


@pytest.mark.parametrize("name", sorted(NUMPY_FAILS_ON_TRACER))
def test_listed_function_fails_on_a_tracer(name):
    with pytest.raises((TypeError, NotImplementedError, jax.errors.ConcretizationTypeError,
                        jax.errors.TracerArrayConversionError)):
        _run_jitted(NUMPY_FAILS_ON_TRACER[name])


@pytest.mark.parametrize("name", sorted(NUMPY_WORKS_ON_TRACER))
def test_delegating_function_works_on_a_tracer(name):
    _run_jitted(NUMPY_WORKS_ON_TRACER[name])


def test_table_entries_call_the_function_they_name():
    for table in (NUMPY_FAILS_ON_TRACER, NUMPY_WORKS_ON_TRACER):
        for name, snippet in table.items():
            assert snippet.startswith(f"np.{name}("), (name, snippet)
    assert not set(NUMPY_FAILS_ON_TRACER) & set(NUMPY_WORKS_ON_TRACER)
