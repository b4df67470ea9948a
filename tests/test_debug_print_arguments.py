"""JIT107: a `jax.debug.print` whose arguments do not fit its literal format string. What it says
raises is run under jax.jit (jax 0.10.2): every flagged call raises that error, every other runs."""
import importlib.util

import pytest
from case_runs import raised_by_each

from jitlint.config import Config
from jitlint.engine import lint_source
from jitlint.rules.side_effects import debug_print_mismatch

#: (the call, in a jitted function of `x` and `y`; the error it raises or None)
CASES = [
    ('jax.debug.print("x={}", x, y)', "ValueError"),
    ('jax.debug.print("x={}", x, y=y)', "ValueError"),
    ('jax.debug.print("x:", x)', "ValueError"),
    ('jax.debug.print("x={a}", x, a=x)', "ValueError"),
    ('jax.debug.print("x={1}", x, y)', "ValueError"),
    ('jax.debug.print("x={} y={}", x)', "IndexError"),
    ('jax.debug.print("x={a}", b=x)', "KeyError"),
    ('jax.debug.print("x={} {0}", x, y)', "ValueError"),
    ('jax.debug.print("{{}}", x)', "ValueError"),
    ('jax.debug.print(fmt="x={}")', "IndexError"),
    ('jax.debug.print("x={}" " y={}", x, y)', None),
    ('jax.debug.print("x={0} again {0}", x)', None),
    ('jax.debug.print("x={x} {x.shape} {x[0]:.3f}", x=x, ordered=True)', None),
    ('jax.debug.print("y={:{w}}", y, w=8)', None),
    ('jax.debug.print("{a} {}", y, a=x)', None),
    ('jax.debug.print("x:", x, skip_format_check=True)', None),
    ('jax.debug.print(FMT, x, y)', None),  # a name: not read
    ('jax.debug.print("x={}", *pair)', None),  # how many arguments is not written
    ('jax.debug.print(ordered=True)("x={}", x)', None),  # the two-call form
]


def _source(cases):
    lines = ["import jax", "import jax.numpy as jnp", "", 'FMT = "{} {}"', ""]
    for i, (call, _) in enumerate(cases):
        lines += ["", f"def step{i}(x, y):", "    pair = (x, y)", f"    {call}", "    return x", ""]
        lines += [f"step{i}_jit = jax.jit(step{i})", ""]
    return "\n".join(lines) + "\n"


def _flagged(source):
    result = lint_source(source, "steps.py", Config(select=("JIT107",)))
    return {d.line: d.message for d in result.diagnostics}


def test_flagged_exactly_when_the_arguments_do_not_fit():
    source = _source(CASES)
    flagged = _flagged(source)
    lines = source.splitlines()
    for i, (call, error) in enumerate(CASES):
        line = next(n for n, text in enumerate(lines, 1) if text == f"    {call}" and lines[n - 3] == f"def step{i}(x, y):")
        if error is None:
            assert line not in flagged, (call, flagged.get(line))
        else:
            assert line in flagged and f"raises `{error}`" in flagged[line], (call, flagged.get(line))


def test_why_names_the_argument_or_field():
    assert debug_print_mismatch("x={}", 2, []) == (
        "ValueError", "no field of the format string takes positional argument #2 (of 2)")
    assert debug_print_mismatch("x", 0, ["loss"]) == ("ValueError", "no field of the format string takes `loss=`")
    assert debug_print_mismatch("{a}", 0, []) == (
        "KeyError", "the format string has a field `a` and no `a=` argument is given")
    assert debug_print_mismatch("{0.shape} {0[1]} {0!r:>{1}}", 2, []) is None


def test_not_in_eager_code():
    source = 'import jax\n\njax.debug.print("x:", 1.0)\n'
    assert _flagged(source) == {}


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_what_jitlint_says_raises_is_what_jax_raises(tmp_path):
    source = _source(CASES)
    outcomes = raised_by_each(tmp_path, source, "globals()[f'step{i}_jit'](jnp.ones(2), jnp.float32(2.0))",
                              len(CASES))
    for i, (call, error) in enumerate(CASES):
        if "*pair" in call or "FMT" in call:
            continue  # not judged by jitlint (it raises: the point is that it is not read)
        assert outcomes[i] == str(error), (call, outcomes[i])
