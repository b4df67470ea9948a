"""A jitted parameter is never None at calls that run only where the argument is not None.

``if state is not None: f_jit(x, state=state)``, the ``else`` of ``if state is None``, code after
``if state is None: return``, and ``kernel = f if state is None else f_jit`` then ``kernel(...)``: the
jitted function is traced only with a ``state`` that is not None, so its ``if state is None:`` branch
(eager-only code: NumPy on the arrays) is not traced.  Every shape below was run under JAX 0.10.2 with
``state`` None and not None: the guarded ones ran clean both ways; each unguarded one raised
TracerArrayConversionError on one of the two calls (``reset=True`` for the rebound one).  Before the
guards were read, each guarded shape gave the same two JIT302 findings as the unguarded ones.
"""
from __future__ import annotations

import pytest

from jitlint import lint_source

HEAD = '''from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np


class State(NamedTuple):
    w: jax.Array


def _sample(x: jax.Array, n: jax.Array, *, state: State | None = None):
    if state is None:
        k = int(np.asarray(n))
        return jnp.asarray(np.cumsum(np.asarray(x)[:k]))
    return x * state.w


_sample_jit = jax.jit(_sample)


'''

GUARDED = {
    "if_not_none": '''def run(x, n, state=None):
    if state is not None:
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
    "else_of_is_none": '''def run(x, n, state=None):
    if state is None:
        out = _sample(x, n)
    else:
        out = _sample_jit(x, n, state=state)
    return out
''',
    "early_return": '''def run(x, n, state=None):
    if state is None:
        return _sample(x, n)
    y = x + 1
    return _sample_jit(y, n, state=state)
''',
    "conjunct": '''def run(x, n, state=None, fast=True):
    if fast and state is not None:
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
    "truthy": '''def run(x, n, state=None):
    if state:
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
    "not_is_none": '''def run(x, n, state=None):
    if not (state is None):
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
    "choice": '''def run(x, n, state=None):
    kernel = _sample if state is None else _sample_jit
    return kernel(x, n, state=state)
''',
    "choice_in_loop": '''def run(xs, n, state=None):
    kernel = _sample_jit if state is not None else _sample
    return [kernel(x, n, state=state) for x in xs]
''',
    "conditional_expression": '''def run(x, n, state=None):
    return _sample_jit(x, n, state=state) if state is not None else _sample(x, n)
''',
}

UNGUARDED = {
    "no_guard": '''def run(x, n, state=None):
    return _sample_jit(x, n, state=state)
''',
    "inverted": '''def run(x, n, state=None):
    if state is None:
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
    "inverted_choice": '''def run(x, n, state=None):
    kernel = _sample_jit if state is None else _sample
    return kernel(x, n, state=state)
''',
    "disjunct": '''def run(x, n, state=None, force=False):
    if state is not None or force:
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
    "rebound_after_guard": '''def run(x, n, state=None, reset=False):
    if state is not None:
        if reset:
            state = None
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
    "other_name_guarded": '''def run(x, n, state=None, other=None):
    if other is not None:
        return _sample_jit(x, n, state=state)
    return _sample(x, n, state=state)
''',
}


FINDINGS = [(14, "JIT302"), (15, "JIT302")]


def _findings(body: str):
    return sorted((d.line, d.code) for d in lint_source(HEAD + body, "m.py").diagnostics)


@pytest.mark.parametrize("shape", sorted(GUARDED))
def test_a_guarded_call_traces_no_none_branch(shape):
    assert _findings(GUARDED[shape]) == []


@pytest.mark.parametrize("shape", sorted(UNGUARDED))
def test_an_unguarded_call_may_pass_none(shape):
    assert _findings(UNGUARDED[shape]) == FINDINGS
