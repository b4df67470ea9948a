"""JIT501: a jitted lambda or partial that holds values -> the function it calls jitted once, the
values passed; the cases where that would change what runs are left alone."""
import textwrap

import pytest

from jitlint.config import Config
from jitlint.engine import lint_source
from jitlint.fixing import fix_source

HEADER = """import functools

import jax
import jax.numpy as jnp
from somewhere import imported_loss


def loss(w, x, n):
    return jnp.sum((x @ w) ** n)


def rolled(w, x, n):
    for _ in range(n):
        w = w * 0.5
    return jnp.sum(x @ w)

"""


def run(body: str):
    source = HEADER + textwrap.dedent(body)
    codes = [d.code for d in lint_source(source, "case.py", Config()).diagnostics]
    return source, codes, fix_source(source, "case.py", Config(), unsafe=True).fixed


@pytest.mark.parametrize("body", [
    # the held value is a `range()` bound in the callee: traced, it would fail
    """
    def f(w, xs, n):
        return [jax.jit(lambda v: rolled(v, x, n))(w) for x in xs]
    """,
    # a held value computed in the lambda: it would be computed outside the jit instead
    """
    def f(w, xs):
        return [jax.jit(lambda v: loss(v, x * 2.0, 2))(w) for x in xs]
    """,
    # a lambda parameter inside an expression
    """
    def f(w, xs):
        return [jax.jit(lambda v: loss(v * 2.0, x, 2))(w) for x in xs]
    """,
    # a callee of another module: which of its parameters must stay static is not known
    """
    def f(w, xs):
        return [jax.jit(lambda v: imported_loss(v, x))(w) for x in xs]
    """,
    # static arguments named for the lambda's parameters
    """
    def f(w, xs):
        return [jax.jit(lambda v, k: loss(v, x, k), static_argnames=("k",))(w, 2) for x in xs]
    """,
    # a held local that is not a parameter: it may change before the named wrapper is called
    """
    def f(w, xs):
        out = []
        for x in xs:
            scale = w * 2.0
            g = jax.jit(functools.partial(loss, scale))
            scale = w
            out.append(g(x, 2))
        return out
    """,
    # a lambda that reads the loop's value as a size: traced, it would fail where the constant worked
    """
    def f(w, sizes):
        out = []
        for n in sizes:
            out.append(jax.jit(lambda v: jnp.zeros(n) + v.sum())(w))
        return out
    """,
    # a lambda that hands the local it reads to a function it cannot see (a mode, a flag: anything)
    """
    def f(w, modes):
        out = []
        for mode in modes:
            out.append(jax.jit(lambda v: imported_loss(v, mode))(w))
        return out
    """,
    # a lambda that reads a local the loop rebinds between making the wrapper and calling it
    """
    def f(w, xs):
        out = []
        for x in xs:
            scale = x * 2.0
            g = jax.jit(lambda v: jnp.tanh(v * scale))
            scale = x
            out.append(g(w))
        return out
    """,
])
def test_left_alone(body):
    source, codes, fixed = run(body)
    assert "JIT501" in codes
    assert "_jit(" not in fixed and "_jit =" not in fixed, fixed


def test_a_lambda_of_its_own_takes_the_locals_it_read_as_parameters():
    _, codes, fixed = run("""
    def f(w, xs):
        out = []
        for x in xs:
            g = jax.jit(lambda v: jnp.sum(jnp.abs(v - x)))
            out.append(g(w))
        return out
    """)
    assert "JIT501" in codes
    assert "g_jit = jax.jit(lambda v, x: jnp.sum(jnp.abs(v - x)))" in fixed
    assert "out.append(g_jit(w, x))" in fixed and "g = " not in fixed


def test_held_values_are_passed_in_the_body_order():
    _, _, fixed = run("""
    def f(w, xs):
        return [jax.jit(lambda v: loss(x, v, n=3))(w) for x in xs]
    """)
    assert "loss_jit = jax.jit(loss)" in fixed
    assert "return [loss_jit(x, w, n=3) for x in xs]" in fixed


def test_a_named_partial_called_twice_passes_the_value_at_each_call():
    _, codes, fixed = run("""
    def f(w, xs):
        out = []
        for x in xs:
            g = jax.jit(functools.partial(loss, w, n=2))
            out.append(g(x))
        return out
    """)
    assert "JIT501" in codes
    assert "out.append(loss_jit(w, x, n=2))" in fixed and "g = " not in fixed


def test_a_partial_called_at_once_in_a_loop():
    _, codes, fixed = run("""
    def f(w, xs):
        out = []
        for x in xs:
            out.append(jax.jit(functools.partial(loss, w))(x, 2))
        return out
    """)
    assert "JIT501" in codes
    assert "loss_jit = jax.jit(loss)" in fixed and "out.append(loss_jit(w, x, 2))" in fixed


def test_a_named_partial_of_the_loop_variable_called_in_the_same_iteration():
    """The value held is the loop's variable, which nothing rebinds between the wrapper and its call: the
    call reads the same value, and passes it to one wrapper made at module level."""
    source, codes, fixed = run("""
    def f(w, xs, scales):
        out = []
        for scale in scales:
            g = jax.jit(functools.partial(loss, n=scale))
            out.append(g(w, xs))
        return out
    """)
    assert "JIT501" in codes
    assert "loss_jit = jax.jit(loss)" in fixed
    assert "out.append(loss_jit(w, xs, n=scale))" in fixed
    assert "functools.partial" not in fixed


@pytest.mark.parametrize("body", [
    # two statements: not one call the function only passes values on to
    """
    class M:
        def __init__(self, w):
            self.w = w

        def __call__(self, x):
            @jax.jit
            def g(v):
                v = v * 2.0
                return loss(self.w, v, 2)

            return g(x)
    """,
    # handed on, not only called: the caller may keep it
    """
    class M:
        def __init__(self, w):
            self.w = w

        def __call__(self, x):
            @jax.jit
            def g(v):
                return loss(self.w, v, 2)

            return g
    """,
])
def test_a_jitted_nested_function_is_lifted_only_when_it_only_passes_values_on(body):
    source, codes, fixed = run(body)
    assert "loss_jit" not in fixed


def test_a_jitted_nested_function_that_passes_values_on_is_lifted():
    source, codes, fixed = run("""
    class M:
        def __init__(self, w):
            self.w = w

        def __call__(self, x):
            @jax.jit
            def g(v):
                return loss(self.w, v, 2)

            return g(x)
    """)
    assert "JIT501" in codes
    assert "loss_jit = jax.jit(loss)" in fixed and "return loss_jit(self.w, x, 2)" in fixed
    assert "def g(" not in fixed


OBJECT = """
class Affine:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x, train):
        return x * self.scale if train else x


MODEL = Affine(2.0)
{extra}

def validate(xs):
    out = []
    for x in xs:
        out.append(jax.jit(functools.partial(MODEL.apply, train=False))(x))
    return out
"""


@pytest.mark.parametrize("extra, hoisted", [
    ("", True),
    # the object is changed: a method read later may be another one
    ("\ndef retune():\n    MODEL.apply = lambda x, train: x\n", False),
    ("\ndef rescale():\n    MODEL.scale = 3.0\n", False),
    # bound twice: which object the loop reads depends on when
    ("MODEL = Affine(3.0)\n", False),
    ("\ndef swap():\n    global MODEL\n    MODEL = Affine(1.0)\n", False),
])
def test_a_wrapper_of_a_module_objects_method_is_hoisted_only_when_nothing_changes_the_object(extra, hoisted):
    source, codes, fixed = run(OBJECT.format(extra=extra))
    assert "JIT501" in codes
    assert ("apply_jit = jax.jit(functools.partial(MODEL.apply, train=False))" in fixed) is hoisted


CLOSURE = """
class Stepper:
    def __init__(self, lr, n):
        self.lr = lr
        self.n = n

    def act(self, x):
        return x * 2.0

    def step(self, params, grads):
{body}


def train(stepper, params, grad_seq):
    for g in grad_seq:
        params = stepper.step(params, g)
    return params
"""


@pytest.mark.parametrize("body, lifted", [
    ("""
        @jax.jit
        def _update(p, g):
            return p - self.lr * g

        return _update(params, grads)
    """, "def _update(p, g, *, lr):|_update(params, grads, lr=self.lr)"),
    # a size: traced, it fails
    ("""
        @jax.jit
        def _update(p, g):
            return p - g * jnp.ones(self.n)

        return _update(params, grads)
    """, None),
    # a method of the object: not an array
    ("""
        @jax.jit
        def _update(p, g):
            return p - self.act(g)

        return _update(params, grads)
    """, None),
    # a branch on the value: a test needs a Python value
    ("""
        @jax.jit
        def _update(p, g):
            if self.lr > 0.5:
                return p
            return p - self.lr * g

        return _update(params, grads)
    """, None),
    # a value computed around it: read where the one call is
    ("""
        scale = 2.0 * self.lr

        @jax.jit
        def _update(p, g):
            return p - scale * g

        return _update(params, grads)
    """, "def _update(p, g, *, scale):|_update(params, grads, scale=scale)"),
])
def test_a_jitted_nested_function_is_moved_to_module_level_only_when_its_closure_values_can_be_passed(body, lifted):
    source, codes, fixed = run(CLOSURE.format(body=textwrap.indent(textwrap.dedent(body), "        ")))
    assert "JIT501" in codes
    if lifted is None:
        assert "*," not in fixed and "@jax.jit\n        def _update" in fixed
    else:
        assert all(part in fixed for part in lifted.split("|")), fixed
        assert "@jax.jit\ndef _update" in fixed


@pytest.mark.parametrize("made, lifted", [
    ("jax.jit(jax.vmap(lambda v: loss(w, v, 2)))", "loss_vmap_jit = jax.jit(jax.vmap(loss, in_axes=(None, 0, None)))"),
    # vmap maps keyword arguments: a held value given by keyword would be mapped
    ("jax.jit(jax.vmap(lambda v: loss(w, x=v, n=2)))", None),
    # options of the vmap name the lambda's parameters
    ("jax.jit(jax.vmap(lambda v: loss(w, v, 2), in_axes=1))", None),
])
def test_a_jitted_vmap_of_a_lambda_is_lifted_with_the_held_values_unmapped(made, lifted):
    source, codes, fixed = run(f"""
    def f(ws, xs):
        out = []
        for w in ws:
            scorer = {made}
            out.append(scorer(xs))
        return out
    """)
    assert "JIT501" in codes
    if lifted is None:
        assert "_vmap_jit" not in fixed
    else:
        assert lifted in fixed and "out.append(loss_vmap_jit(w, xs, 2))" in fixed, fixed


def test_static_argnums_of_a_partial_keep_the_wrapper_as_it_is_made_once_before():
    """static_argnums count the positions a partial leaves: not lifted (its values passed, the positions
    would move); the same wrapper, of a parameter the function never rebinds, is made once before the
    statement instead."""
    _, codes, fixed = run("""
    def f(w, xs):
        return [jax.jit(functools.partial(loss, w), static_argnums=(1,))(x, 2) for x in xs]
    """)
    assert "JIT501" in codes
    assert "jax.jit(loss)" not in fixed
    assert "    loss_jit = jax.jit(functools.partial(loss, w), static_argnums=(1,))\n" \
           "    return [loss_jit(x, 2) for x in xs]\n" in fixed, fixed
