"""The JIT302 table says which NumPy functions fail on tracers; check it against JAX.

And the JIT302 fix (``np.f`` -> ``jnp.f``): every name it writes exists in
``jax.numpy`` and takes the arguments the fix keeps, NumPy takes them too, and
the table's example call, so rewritten, runs under ``jax.jit``.
"""
import inspect

import pytest

from jitlint.analysis.jax_api import (NUMPY_CONVERTS_SEQUENCES, NUMPY_FAILS_ON_TRACER, NUMPY_WITHOUT_JAX_EQUIVALENT,
                                     NUMPY_WORKS_ON_TRACER, SIZE_KEYWORD_FUNCTIONS)
from jitlint.fixes.numpy_calls import SIGNATURES, jax_numpy_name

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


@pytest.mark.parametrize("name", sorted(NUMPY_CONVERTS_SEQUENCES))
def test_delegating_function_fails_on_a_list_of_tracers(name):
    # the table's call with its array argument `x` made a list of two tracers, `[x, x]`
    listed = NUMPY_WORKS_ON_TRACER[name].replace("(x", "([x, x]", 1)
    with pytest.raises(jax.errors.TracerArrayConversionError):
        _run_jitted(listed)


def test_table_entries_call_the_function_they_name():
    for table in (NUMPY_FAILS_ON_TRACER, NUMPY_WORKS_ON_TRACER):
        for name, snippet in table.items():
            assert snippet.startswith(f"np.{name}("), (name, snippet)
    assert not set(NUMPY_FAILS_ON_TRACER) & set(NUMPY_WORKS_ON_TRACER)


# ------------------------------------------------------------------ the JIT302 fix

def _attribute(module, dotted):
    for part in dotted.split("."):
        module = getattr(module, part)
    return module


def test_fix_covers_the_table_except_value_dependent_sizes():
    assert set(SIGNATURES) <= set(NUMPY_FAILS_ON_TRACER)
    for name in NUMPY_FAILS_ON_TRACER:
        sized = f"jax.numpy.{name}" in SIZE_KEYWORD_FUNCTIONS
        left = sized or name in NUMPY_WITHOUT_JAX_EQUIVALENT
        assert (name in SIGNATURES) is not left, name
        assert jax_numpy_name(f"numpy.{name}") == (None if left else name)


@pytest.mark.parametrize("name", sorted(NUMPY_WITHOUT_JAX_EQUIVALENT))
def test_functions_left_unrewritten_have_no_jax_numpy_equivalent(name):
    with pytest.raises(AttributeError):
        _attribute(jnp, name)


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_every_name_the_fix_writes_exists_in_jax_numpy(name):
    """`np.<name>` -> `jnp.<name>`: the function exists, and takes the arguments the fix keeps."""
    function = _attribute(jnp, name)
    assert callable(function), name
    sig = SIGNATURES[name]
    positional = list(range(len(sig.positional))) + ([0, 0] if sig.varargs else [])
    if isinstance(function, jnp.ufunc):  # ufunc(*args, out=None, where=None)
        assert len(sig.positional) == function.nin and not sig.keywords and not sig.varargs, name
        return
    signature = inspect.signature(function)
    parameters = signature.parameters
    signature.bind_partial(*positional)
    for keyword in sig.keywords:
        signature.bind_partial(**{keyword: 0})
    # a parameter jax.numpy takes only as None (`out`, `kind`, `order` of sort) is never passed on
    by_position = [p for p in parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for param in by_position[:len(sig.positional)] + [parameters[k] for k in sig.keywords if k in parameters]:
        assert str(param.annotation) != "None", (name, param.name)


#: NumPy functions whose positional parameters the table names otherwise (the meaning is the same)
_RENAMED_POSITIONAL = {
    "einsum": "np.einsum(*operands): the first operand is the subscripts",
    "clip": "np.clip(a, a_min, a_max) is jnp.clip(arr, min, max)",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_numpy_takes_the_arguments_the_fix_keeps(name):
    """The kept arguments are NumPy's too, at the same positions (a guard against typos in the table)."""
    sig = SIGNATURES[name]
    function = _attribute(np, name)
    if isinstance(function, np.ufunc):
        assert len(sig.positional) == function.nin and not sig.keywords and not sig.varargs, name
        return
    if isinstance(function, type):  # a scalar type: np.float32(x)
        assert sig.positional == ("x",) and not sig.keywords, name
        return
    signature = inspect.signature(function)
    signature.bind_partial(*range(len(sig.positional)), *([0, 0] if sig.varargs else []))
    for keyword in sig.keywords:
        signature.bind_partial(**{keyword: 0})
    names = [p.name for p in signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert tuple(names[:len(sig.positional)]) == sig.positional or name in _RENAMED_POSITIONAL, (name, names)


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype:UserWarning")  # float64 -> float32: documented
@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_fixed_call_traces(name):
    """The table's own example call, with `np.` replaced by `jnp.` as the fix does, runs under jax.jit."""
    snippet = NUMPY_FAILS_ON_TRACER[name]
    fixed = "jnp." + snippet[len("np."):]
    _run_jitted(fixed)
