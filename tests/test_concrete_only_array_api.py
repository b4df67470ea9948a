"""JIT304: what only a concrete JAX array has, used on a traced one. Every flagged line is run under
the transform that traces it (jax 0.10.2) and raises there; every line left alone runs."""
import importlib.util

import pytest
from case_runs import raised_by_each

from jitlint.config import Config
from jitlint.engine import lint_source

#: (a statement in a function of `x`, an array; the transform; whether it raises under it)
CASES = [
    ("y = jnp.tanh(x) * 2\n    y.block_until_ready()", "jax.jit", True),
    ("return (x + 1).block_until_ready()", "jax.vmap", True),
    ("return (x * 2).copy_to_host_async()", "jax.jit", True),
    ("s = (x + 1).sharding", "jax.jit", True),
    ("d = jnp.sin(x).device", "jax.jit", True),
    ("d = jnp.sin(x).devices()", "jax.jit", True),
    ("n = jnp.cos(x).addressable_shards", "jax.jit", True),
    ("b = pickle.dumps(x + 1)", "jax.jit", True),
    ("c = (-x).committed", "jax.jit", True),
    ("return jax.block_until_ready(x * 2)", "jax.jit", False),
    ("return jax.device_get(x * 2)", "jax.jit", False),
    ("s = jax.typeof(x + 1).sharding", "jax.jit", False),
    ("s = W.sharding", "jax.jit", False),  # a concrete array of the module
    ("y = (x + 1).shape", "jax.jit", False),
]


def _source():
    lines = ["import pickle", "", "import jax", "import jax.numpy as jnp", "", "W = jnp.ones(3)", ""]
    for i, (stmt, transform, _) in enumerate(CASES):
        body = stmt if stmt.startswith("return") else stmt + "\n    return jnp.sum(x)"
        lines += ["", f"def case{i}(x):", f"    {body}", "", f"run{i} = {transform}(case{i})", ""]
    return "\n".join(lines) + "\n"


def test_flagged_exactly_on_tracers():
    source = _source()
    result = lint_source(source, "cases.py", Config(select=("JIT304",)))
    flagged = {d.line for d in result.diagnostics}
    lines = source.splitlines()
    for i, (stmt, _, raises) in enumerate(CASES):
        start = lines.index(f"def case{i}(x):") + 2
        span = set(range(start, start + stmt.count("\n") + 1))
        assert bool(flagged & span) == raises, (stmt, sorted(flagged & span))


def test_not_in_eager_code():
    source = "import jax.numpy as jnp\n\n\ndef f(x):\n    y = jnp.tanh(x)\n    y.block_until_ready()\n    return y.sharding\n"
    assert not lint_source(source, "eager.py", Config(select=("JIT304",))).diagnostics


def test_message_says_what_to_use_instead():
    source = _source()
    messages = [d.message for d in lint_source(source, "cases.py", Config(select=("JIT304",))).diagnostics]
    assert any(m.startswith("`.sharding` of traced `(x + 1)` raises while JAX traces")
               and m.endswith("`jax.typeof(x).sharding`") for m in messages)
    assert any(m.startswith("`pickle.dumps()` of traced `x + 1`") for m in messages)


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_each_case_raises_exactly_when_flagged(tmp_path):
    outcomes = raised_by_each(tmp_path, _source(), "globals()[f'run{i}'](jnp.ones(3))", len(CASES))
    for i, (stmt, _, raises) in enumerate(CASES):
        assert (outcomes[i] != "None") == raises, (stmt, outcomes[i])
        if raises:
            assert outcomes[i] in ("AttributeError", "ConcretizationTypeError"), (stmt, outcomes[i])
