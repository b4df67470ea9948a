"""Equality in traced code: with a number it is an array (an ``if`` on it raises under jit); with a
string, a Python bool, a ``slice`` or ``...``, on a value not known to be an array (an attribute of a pytree of unknown
class, such as ace-jax's ``out.radial_learned == learned`` on an Equinox module's static field), it
is a test of the pytree's flags, not of array values."""
import pytest

from jitlint.config import Config
from jitlint.engine import lint_source

SOURCE = """
import jax


@jax.jit
def relabel(model, x, learned=True):
    if {test}:
        return x
    return -x
"""


@pytest.mark.parametrize("test, flagged", [
    ("model.learned == learned", False),
    ("model.learned == True", False),
    ('model.kind == "analytic"', False),
    ("model.learned != False", False),
    ("model.index == slice(None)", False),  # nifty8: a tuple of indices, one of which may be a slice
    ("model.index == ...", False),
    ("model.scale == 1.0", True),
    ("x == learned", True),  # `x` is known to be an array (used as one below)
])
def test_equality_with_a_flag_is_a_flag_test(test, flagged):
    found = lint_source(SOURCE.format(test=test), "relabel.py", Config(select=("JIT201",))).diagnostics
    assert bool(found) is flagged
