"""A small regression training loop with three classic jit hazards.

Run ``jitlint check examples/`` to see them reported with the reason chain.
"""
from functools import partial

import jax
import jax.numpy as jnp

learning_rate = 0.1


def set_learning_rate(value):
    """Called by the schedule between epochs; the jitted step never sees the change."""
    global learning_rate
    learning_rate = value


def loss_fn(params, x, y):
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def train_step(params, x, y):
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    print("loss:", loss)
    if loss > 1e3:
        grads = jax.tree_util.tree_map(lambda g: g / 10.0, grads)
    new_params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
    return new_params, loss


@partial(jax.jit, static_argnames=("clip",))
def clipped_step(params, x, y, lr, clip=True):
    """The same step done right: the rate is an argument, the branch is on a static flag."""
    loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
    jax.debug.print("loss: {loss}", loss=loss)
    if clip:
        grads = jax.tree_util.tree_map(lambda g: jnp.clip(g, -1.0, 1.0), grads)
    scale = jnp.where(loss > 1e3, 0.1, 1.0)
    return jax.tree_util.tree_map(lambda p, g: p - lr * scale * g, params, grads), loss
