"""Sampling helpers: loops whose trip count is a traced value."""
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def power(x, n):
    y = jnp.ones_like(x)
    for _ in range(n):
        y = y * x
    return y


@jax.jit
def halve_until_small(x):
    while jnp.max(jnp.abs(x)) > 1.0:
        x = x / 2
    return x


@jax.jit
def power_fori(x, n):
    """Correct: a traced trip count belongs in lax.fori_loop."""
    return lax.fori_loop(0, n, lambda i, y: y * x, jnp.ones_like(x))


@jax.jit
def halve_while(x):
    """Correct: a traced condition belongs in lax.while_loop."""
    return lax.while_loop(lambda v: jnp.max(jnp.abs(v)) > 1.0, lambda v: v / 2, x)


def unroll(x, n):
    """Not traced: plain Python may loop over anything."""
    for _ in range(n):
        x = x * 2
    return x
