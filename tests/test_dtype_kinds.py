"""Dtype kinds: what ``dtype_kind_of`` reads from a dtype expression, and ``jnp.issubdtype`` decided
where the kind of the array is known (the fixtures ``ok_dtype_dispatch.py`` and ``dtype_dispatch_near.py``
run the program shapes under JAX 0.10.2)."""
import libcst as cst
import pytest

from jitlint.analysis.tracedness import dtype_kind_of
from jitlint.config import Config
from jitlint.engine import lint_source


def _kind(code):
    qualify = {"jnp.float32": "jax.numpy.float32", "jnp.int8": "jax.numpy.int8", "np.uint16": "numpy.uint16",
               "jnp.bool_": "jax.numpy.bool_", "jnp.bfloat16": "jax.numpy.bfloat16",
               "np.complex64": "numpy.complex64", "jnp.float8_e4m3fn": "jax.numpy.float8_e4m3fn"}
    node = cst.parse_expression(code)
    read_scope = {node: "builtin"} if isinstance(node, cst.Name) else {}
    return dtype_kind_of(node, lambda n: qualify.get(cst.Module([]).code_for_node(n)), read_scope)


@pytest.mark.parametrize("code, kind", [
    ("jnp.float32", "f"), ("jnp.int8", "i"), ("np.uint16", "u"), ("jnp.bool_", "b"), ("jnp.bfloat16", "f"),
    ("np.complex64", "c"), ('"float64"', "f"), ('"int32"', "i"), ("float", "f"), ("bool", "b"),
    ("jnp.float8_e4m3fn", None), ('"f4"', None), ("dtype", None)])
def test_kind_of_a_dtype_expression(code, kind):
    assert _kind(code) == kind


SOURCE = """
import jax
import jax.numpy as jnp


def pick(x):
    if jnp.issubdtype(x.dtype, {category}):
        return x.sum()
    return jnp.zeros(x.max())


@jax.jit
def run(y):
    return pick({made})
"""


@pytest.mark.parametrize("made, category, flagged", [
    ("jax.nn.one_hot(y, 3)", "jnp.floating", False),
    ("jax.nn.one_hot(y, 3)", "jnp.integer", True),
    ("y.astype(jnp.int32)", "jnp.integer", False),
    ("y.astype(jnp.int32)", "jnp.inexact", True),
    ("y > 0", "jnp.bool_", False),
    ("jnp.zeros(3, dtype=jnp.complex64)", "jnp.complexfloating", False),
    ("y", "jnp.floating", True),  # the kind of a parameter is not known: both branches run
])
def test_issubdtype_decides_the_branch_where_the_kind_is_known(made, category, flagged):
    found = lint_source(SOURCE.format(made=made, category=category), "pick.py", Config(select=("JIT402",)))
    assert bool(found.diagnostics) is flagged
