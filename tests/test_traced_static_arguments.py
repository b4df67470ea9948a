"""JIT502: a tracer given, in traced code, to a parameter that the called function's own jit makes
static.  JAX hashes static arguments and a tracer cannot be hashed, so the call raises; the called
function's code sees Python values there, so it is not checked as if the tracer reached it (the
finding used to land on the callee's `jnp.zeros(n)`, as JIT402).  Each case is run under JAX 0.10.2
in the last test: every flagged call raises `ValueError`, and the cases said to run, run."""
import importlib.util
import textwrap

import pytest
from case_runs import raised_by_each

from jitlint.config import Config
from jitlint.engine import lint_source
from jitlint.runner import lint_files

HEADER = '''
import functools
import jax
import jax.numpy as jnp
from jax import lax


@functools.partial(jax.jit, static_argnames=("n",))
def pad(x, n):
    return jnp.concatenate([x, jnp.zeros(n)])


@functools.partial(jax.jit, static_argnums=(1,))
def tile(x, n):
    return jnp.tile(x, n)


def _grow(x, n):
    return x + jnp.arange(n).sum()


grow = jax.jit(_grow, static_argnames="n")


class Model:
    @functools.partial(jax.jit, static_argnames=("self", "n"))
    def widen(self, x, n):
        return jnp.zeros((n,)) + x.sum()

    def __hash__(self):
        return 0

    def __eq__(self, other):
        return isinstance(other, Model)

'''

#: (the body of `run(x, k)` -- jitted unless it says otherwise --, whether jitlint flags it, what JAX
#: raises when it is called with `jnp.ones(3), 2`, or None)
CASES = [
    # a loop index is an integer array tracer
    ("return lax.fori_loop(0, 2, lambda i, c: c + pad(x, n=i).sum(), 0.0)", True, "ValueError"),
    ("return lax.fori_loop(0, 2, lambda i, c: c + tile(x, i).sum(), 0.0)", True, "ValueError"),
    # arithmetic on traced values gives an array tracer
    ("return tile(x, k * 2)", True, "ValueError"),
    ("n = k + 1\n    return grow(x, n=n)", True, "ValueError"),
    ("return Model().widen(x, n=jnp.argmax(x))", True, "ValueError"),
    # static by construction
    ("return pad(x, n=x.shape[0])", False, None),
    ("return pad(x, n=len(x))", False, None),
    ("return tile(x * k, 2)", False, None),
    ("return Model().widen(x, n=x.ndim + 1)", False, None),
    ("return grow(x, n=3)", False, None),
    # a parameter of unknown structure: it may be None or a pytree of static fields, which hash;
    # not flagged (here it is an array, and the call raises: a miss jitlint accepts)
    ("return pad(x, n=k)", False, "ValueError"),
]


def _source(cases, static_k=()):
    lines = [HEADER]
    for i, (body, _, _) in enumerate(cases):
        lines += ["", "@jax.jit", f"def run{i}(x, k):", "    " + body, ""]
    return "\n".join(lines) + "\n"


def _findings(source, select=None):
    result = lint_source(source, "runs.py", Config(select=select) if select else Config())
    return result.diagnostics


def _run_of_line(source, line):
    lines = source.splitlines()
    for n in range(line - 1, -1, -1):
        if lines[n].startswith("def run"):
            return int(lines[n][len("def run"):].split("(")[0])
    return None


def test_flagged_at_the_argument_exactly_when_a_tracer_reaches_a_static_parameter():
    source = _source(CASES)
    diagnostics = _findings(source)
    flagged = {_run_of_line(source, d.line) for d in diagnostics if d.code == "JIT502"}
    assert flagged == {i for i, (_, flag, _) in enumerate(CASES) if flag}
    for d in diagnostics:
        if d.code == "JIT502":
            assert "a static argument of jitted" in d.message and "raises `ValueError`" in d.message, d.message


def test_the_called_function_is_not_checked_as_if_the_tracer_reached_it():
    # before: `jnp.zeros(n)`, `jnp.tile(x, n)`, `jnp.arange(n)` were each reported (JIT402) in the callee
    source = _source(CASES)
    assert [(d.line, d.code) for d in _findings(source) if _run_of_line(source, d.line) is None] == []


def test_the_finding_is_at_the_call_in_another_module(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(textwrap.dedent('''
        import functools

        import jax
        import jax.numpy as jnp


        @functools.partial(jax.jit, static_argnames=("n",))
        def pad(x, n):
            return jnp.concatenate([x, jnp.zeros(n)])
    '''))
    (pkg / "model.py").write_text(textwrap.dedent('''
        import jax
        from jax import lax

        from pkg.ops import pad


        @jax.jit
        def step(x):
            return lax.fori_loop(0, 2, lambda i, c: c + pad(x, n=i).sum(), 0.0)
    '''))
    results = {r.path: r for r in lint_files([str(pkg / "ops.py"), str(pkg / "model.py")], Config(),
                                              roots=[str(tmp_path)])}
    assert [(d.line, d.code) for d in results[str(pkg / "model.py")].diagnostics] == [(10, "JIT502")]
    assert results[str(pkg / "ops.py")].diagnostics == ()


def test_eager_calls_are_not_flagged():
    source = HEADER + "\nout = pad(jnp.ones(3), n=2)\nk = jnp.int32(2)\nlater = [tile(jnp.ones(2), 3) for _ in range(2)]\n"
    assert [d for d in _findings(source) if d.code == "JIT502"] == []


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_what_jitlint_says_raises_is_what_jax_raises(tmp_path):
    source = _source(CASES)
    outcomes = raised_by_each(tmp_path, source, "globals()[f'run{i}'](jnp.ones(3), 2)", len(CASES))
    for i, (body, flag, error) in enumerate(CASES):
        assert outcomes[i] == str(error), (body, outcomes[i])
        if flag:
            assert error == "ValueError", body


SCALAR_CALLER = '''
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.jit, static_argnums=(1,))
def mask(x, f_number):
    return x * (jnp.arctan(0.5 / f_number) > 0.3)


@jax.jit
def transmit(x, f_number):
    return mask(x, f_number)


def beamform(x, f_number: float):
    return transmit(x, f_number=f_number)


@jax.jit
def untyped(x, f_number):
    return mask(x, f_number)


def beamform_untyped(x, f_number):
    return untyped(x, f_number=f_number)
'''


def test_a_caller_that_declares_a_number_makes_the_parameter_a_tracer():
    # jaxus' beamformers: `f_number: float` in the public function, passed on to a jitted one, which
    # gives it to a static argument (held-out Z5, run: every beamformer raises `ValueError`)
    found = lint_source(SCALAR_CALLER, "beams.py", Config(select=("JIT502",))).diagnostics
    lines = SCALAR_CALLER.splitlines()
    assert [lines[d.line - 1].strip() for d in found] == ["return mask(x, f_number)"]
    assert found[0].line == lines.index("def transmit(x, f_number):") + 2


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_the_declared_number_raises_under_jax(tmp_path):
    outcomes = raised_by_each(tmp_path, SCALAR_CALLER, "[beamform, beamform_untyped][i](jnp.ones(3), 1.5)", 2)
    assert outcomes == {0: "ValueError", 1: "ValueError"}  # (the untyped one too: a miss jitlint accepts)
