"""JIT104: a logging call in traced code -> ``jax.debug.callback``; where the fix declines."""
import textwrap

import pytest

from jitlint.config import Config
from jitlint.diagnostics import Applicability
from jitlint.engine import lint_source
from jitlint.fixing import fix_source

HEADER = """import logging
import time

import jax
import jax.numpy as jnp

logger = logging.getLogger(__name__)

"""


def fixed(body: str, unsafe: bool = True) -> str:
    source = HEADER + textwrap.dedent(body)
    return fix_source(source, "case.py", Config(), unsafe=unsafe).fixed


def jit104(body: str):
    source = HEADER + textwrap.dedent(body)
    return [d for d in lint_source(source, "case.py", Config()).diagnostics if d.code == "JIT104"]


@pytest.mark.parametrize("body", [
    # the exception being handled is not there when the callback runs
    """
    @jax.jit
    def f(x):
        try:
            y = x + 1
        except ValueError:
            logger.exception("failed at %s", x)
            raise
        return y
    """,
    # `{x=}` would show the lambda parameter's name
    """
    @jax.jit
    def f(x):
        logger.info(f"{x.sum()=}")
        return x
    """,
    # the result is used
    """
    @jax.jit
    def f(x):
        done = logger.info("x %s", x)
        return x
    """,
    # unpacked arguments
    """
    @jax.jit
    def f(x, *rest):
        logger.info("values", *rest)
        return x
    """,
    # not logging: another side effect
    """
    @jax.jit
    def f(x):
        return x + time.time()
    """,
])
def test_no_rewrite(body):
    source = HEADER + textwrap.dedent(body)
    assert jit104(body) or "exception" in body, "each case must be reported"
    assert fixed(body) == source


def test_a_value_of_unknown_kind_makes_the_fix_unsafe():
    """What an unknown library returns may be a Python value, which would reach the callback as an
    array."""
    body = """
    import somelib

    @jax.jit
    def f(x):
        v = somelib.transform(x)
        logger.info("value %s", v)
        return x
    """
    [diag] = jit104(body)
    assert diag.fix.applicability is Applicability.UNSAFE
    assert "jax.debug.callback(lambda v: logger.info(\"value %s\", v), v)" in fixed(body)
    assert fixed(body, unsafe=False) == HEADER + textwrap.dedent(body)


def test_two_records_in_one_function_are_unsafe():
    """Callbacks are unordered: two records may come out in another order."""
    body = """
    @jax.jit
    def f(x):
        logger.info("first %s", x)
        logger.info("second %s", x * 2)
        return x
    """
    assert {d.fix.applicability for d in jit104(body)} == {Applicability.UNSAFE}
    out = fixed(body)
    assert out.count("jax.debug.callback(") == 2 and "logger.info(\"second %s\", x_2)" in out


def test_names_do_not_shadow_what_the_lambda_reads():
    """An expression's parameter gets a name the call does not use already."""
    body = """
    @jax.jit
    def f(x, x_sum):
        logger.info("%s %s", x.sum(), x_sum)
        return x
    """
    out = fixed(body)
    assert "lambda x_sum_1, x_sum: logger.info(\"%s %s\", x_sum_1, x_sum), x.sum(), x_sum" in out
