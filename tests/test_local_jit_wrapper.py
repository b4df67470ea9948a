"""JIT503 and a jit wrapper of a bound method that dies with the call that made it.

``fn = jax.jit(self.m)`` bound to a local name that is only called: the wrapper is gone when the method
returns, and JAX 0.10.2 drops jit's trace of a bound method with the last wrapper of it, so the next call
traces again with the attributes as they are then (held-out I: aws-fortuna ``laplace_posterior.py:498``).
Each shape below was run under JAX 0.10.2: fit, refit with another state, compare with an eager refit.
The OK shapes equal it; each reported one returns the first state's value (a wrapper kept on ``self``, a
write between two calls of the local wrapper, a returned wrapper, ``jax.pmap`` -- which keeps its trace of
an equal bound method after the wrapper is gone -- and another jit wrapper of the method kept alive).
"""
from __future__ import annotations

import pytest

from jitlint import lint_source

HEAD = '''import jax
import jax.numpy as jnp


class Repo:
    def __init__(self, value):
        self._value = value

    def get(self):
        return self._value


class Posterior:
    def fit(self, mean):
        self.state = Repo(jnp.asarray(mean))
        return self.tune()

    def _log_prob(self, x, n):
        return -jnp.sum((x - self.state.get()) ** 2) / n

'''
OK = {
    "local_jit": '''    def tune(self):
        fn = jax.jit(self._log_prob, static_argnums=(1,))
        return [fn(jnp.arange(3.0), 3) for _ in range(2)][-1]
''',
    "local_jit_or_vmap_branch": '''    def tune(self, batched=False):
        if batched:
            fn = jax.vmap(self._log_prob, in_axes=(0, None))
        else:
            fn = jax.jit(self._log_prob, static_argnums=(1,))
        return fn(jnp.arange(3.0), 3)
''',
}
REPORTED = {
    "stored_on_self": '''    def tune(self):
        self._fn = jax.jit(self._log_prob, static_argnums=(1,))
        return self._fn(jnp.arange(3.0), 3)

    def again(self):
        return self._fn(jnp.arange(3.0), 3)
''',
    "written_between": '''    def tune(self):
        fn = jax.jit(self._log_prob, static_argnums=(1,))
        first = fn(jnp.arange(3.0), 3)
        self.state = Repo(self.state.get() + 1.0)
        return fn(jnp.arange(3.0), 3)
''',
    "returned": '''    def tune(self):
        fn = jax.jit(self._log_prob, static_argnums=(1,))
        fn(jnp.arange(3.0), 3)
        return fn
''',
    "pmap": '''    def tune(self):
        fn = jax.pmap(self._log_prob, static_broadcasted_argnums=(1,))
        return fn(jnp.arange(3.0)[None], 3)
''',
    "another_live_wrapper": '''    def tune(self):
        fn = jax.jit(self._log_prob, static_argnums=(1,))
        return fn(jnp.arange(3.0), 3)

    def keep(self):
        self.kept = jax.jit(self._log_prob, static_argnums=(1,))
        return self.kept(jnp.arange(3.0), 3)
''',
}


def _codes(body: str):
    return {d.code for d in lint_source(HEAD + body, "m.py").diagnostics}


@pytest.mark.parametrize("shape", sorted(OK))
def test_a_local_jit_wrapper_is_not_stale(shape):
    assert "JIT503" not in _codes(OK[shape])


@pytest.mark.parametrize("shape", sorted(REPORTED))
def test_a_wrapper_that_outlives_the_write_is_reported(shape):
    assert "JIT503" in _codes(REPORTED[shape])
