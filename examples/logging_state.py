"""Side effects inside traced code: they run once, at trace time."""
import logging
import random

import jax
import jax.numpy as jnp

log = logging.getLogger(__name__)
history = []


@jax.jit
def noisy_update(x):
    log.info("updating %s", x)
    history.append(x)
    return x + random.random()


@jax.jit
def update(x, key):
    """Correct: randomness from an explicit key; the caller keeps the history."""
    return x + jax.random.normal(key, x.shape)


def record(x, key):
    y = update(x, key)
    history.append(y)
    return y
