"""Inputs derived from how a function uses its parameters, when it has none from anywhere else.

The first tests read specs only (LibCST, no JAX); the others run the verifier's subprocess.
"""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import textwrap

import pytest

from jitlint.cli import main
from jitlint.engine import lint_source
from jitlint.verify import VerifyOptions, verify_module
from jitlint.verify.report import MISMATCH, VERIFIED
from jitlint.verify.targets import plan_targets

needs_jax = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def derived(source: str, name: str) -> dict:
    targets = plan_targets(source, None, lint_source(source, "m.py").diagnostics)
    (target,) = [t for t in targets if t.qualname == name]
    return target.callables[0].derived


def kinds(spec: dict) -> list:
    return [s["t"] for s in spec["args"]] + [f"{k}={s['t']}" for k, s in spec["kwargs"]]


SHAPES = src('''
    from functools import partial

    import jax
    import jax.numpy as jnp


    def loss(params, x):
        return jnp.mean((x @ params["w"] + params["b"]) ** 2)


    @jax.jit
    def arithmetic(x, y):
        if jnp.sum(x * y) > 0:
            return x - y
        return x + y


    @partial(jax.jit, static_argnums=(1,))
    def bounded(x, n):
        total = x
        for i in range(n):
            total = total + x[i:]
        return total.sum() > 0 and print(total)


    @partial(jax.jit, static_argnames=("normalize",))
    def flagged(x, normalize, center=True):
        if center:
            x = x - 1.0
        if normalize:
            x = x / 2.0
        return print(x)


    @jax.jit
    def through_grad(params, x):
        value, grads = jax.value_and_grad(loss)(params, x)
        return print(value)


    @jax.jit
    def attributes(state, key):
        noise = jax.random.normal(key, state.mean.shape)
        return print(state.mean + state.scale * noise)


    @jax.jit
    def shapes(a, b, c):
        return print(a @ b, c.shape[1], jnp.dot(c, a).T)
''')


def test_arithmetic_gives_float_arrays_of_a_few_ranks():
    spec = derived(SHAPES, "arithmetic")
    assert spec["args"] == [{"t": "darray", "ranks": [1, 0, 2], "dtype": "float32"}] * 2 and spec["kwargs"] == []


def test_a_range_bound_slice_or_index_is_a_small_int():
    spec = derived(SHAPES, "bounded")
    assert kinds(spec) == ["darray", "int"]
    assert spec["args"][0]["ranks"] == [1, 2]  # sliced: at least one dimension


def test_a_flag_is_a_bool_even_with_a_default():
    spec = derived(SHAPES, "flagged")
    assert kinds(spec) == ["darray", "flag", "center=flag"]


def test_dict_pytree_read_through_a_function_it_is_passed_to():
    spec = derived(SHAPES, "through_grad")
    params, x = spec["args"]
    assert params["t"] == "dict"
    fields = dict((k, v) for k, v in params["fields"])
    assert set(fields) == {"w", "b"}
    # x @ params["w"]: both matmul operands, a matrix first
    assert fields["w"]["ranks"] == [2, 1] and x["ranks"] == [2, 1] and fields["b"]["ranks"] == [1, 0, 2]


def test_attribute_pytree_and_a_random_key():
    spec = derived(SHAPES, "attributes")
    state, key = spec["args"]
    assert state["t"] == "record" and [k for k, _ in state["fields"]] == ["mean", "scale"]
    assert key == {"t": "key"}


def test_matmul_shape_and_transpose_constrain_ranks():
    spec = derived(SHAPES, "shapes")
    a, b, c = spec["args"]
    assert a["ranks"] == [2, 1] and b["ranks"] == [2, 1]
    assert c["ranks"] == [2]  # c.shape[1] and jnp.dot(c, ...).T: two dimensions


MORE = src('''
    from functools import partial

    import jax
    import jax.numpy as jnp


    def velocity(state, damping):
        x, v = state
        return jnp.array([v, -x - damping * v])


    @jax.jit
    def euler(state0, dt, steps):
        state = state0
        for _ in range(steps):
            state = state + dt * velocity(state, 0.1)
        return state


    @jax.jit
    def pad(rows, pad_to):
        n, width = rows.shape
        return jnp.zeros((pad_to - n, width))


    @jax.jit
    def near_identity(rot):
        if jnp.allclose(rot, jnp.eye(3)):
            return jnp.eye(3)
        return rot


    class Solver:
        def __init__(self, epsilon):
            self.epsilon = epsilon

        @partial(jax.jit, static_argnums=0)
        def run(self, cost, n):
            for _ in range(n):
                cost = cost / self.epsilon
            return jax.random.split(jax.random.PRNGKey(0), n)
''')


def test_unpacking_aliases_size_expressions_and_shapes_read_from_other_operands():
    state0, dt, steps = derived(MORE, "euler")["args"]
    # state = state0, then x, v = state in the function it is passed to: a vector of length 2
    assert state0 == {"t": "darray", "ranks": [1, 2], "dtype": "float32", "lead": 2}
    assert steps == {"t": "int"} and dt["t"] == "darray"
    rows, pad_to = derived(MORE, "pad")["args"]
    assert rows["ranks"] == [2] and pad_to == {"t": "int"}  # n, width = rows.shape; zeros((pad_to - n, ...))
    assert derived(MORE, "near_identity")["args"][0]["ranks"] == [2]  # allclose with jnp.eye(3)


def test_a_method_gets_an_instance_built_from_its_init():
    spec = derived(MORE, "Solver.run")
    instance, cost, n = spec["args"]
    assert instance["t"] == "instance" and instance["class"] == "Solver"
    assert [s["t"] for s in instance["init"]["args"]] == ["darray"]
    assert cost["t"] == "darray" and n == {"t": "int"}  # range(n), and split's count


# ---------------------------------------------------------------- in the subprocess
MODULE = src('''
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames=("normalize",))
    def step(params, x, normalize):
        y = x @ params["w"] + params["b"]
        if normalize:
            y = y / 10.0
        if y.sum() > 0:
            y = y * 2.0
        return y


    @partial(jax.jit, static_argnums=(1,))
    def smooth(state, k):
        out = state.mean
        for _ in range(k):
            out = out * state.decay
        if out.max() > state.mean.max():
            out = out - 1.0
        return out
''')
RIGHT = MODULE.replace('''    if y.sum() > 0:
        y = y * 2.0
''', '''    y = jnp.where(y.sum() > 0, y * 2.0, y)
''').replace('''    if out.max() > state.mean.max():
        out = out - 1.0
''', '''    out = jnp.where(out.max() > state.mean.max(), out - 1.0, out)
''')
#: the second rewrite takes the sides the wrong way round
WRONG = RIGHT.replace("jnp.where(out.max() > state.mean.max(), out - 1.0, out)",
                      "jnp.where(out.max() > state.mean.max(), out, out - 1.0)")


def _verify(tmp_path, original: str, fixed: str):
    path = tmp_path / "derived_mod.py"
    path.write_text(original)
    diags = lint_source(original, str(path)).diagnostics
    report = verify_module(str(path), original, fixed, diags, options=VerifyOptions(device="cpu", timeout=90),
                           include_findings=False)
    return {v.qualname: v for v in report.verdicts}


@needs_jax
def test_derived_inputs_verify_a_right_rewrite_with_both_sides_and_both_flags(tmp_path):
    assert RIGHT.count("jnp.where") == 2 and WRONG != RIGHT
    verdicts = _verify(tmp_path, MODULE, RIGHT)
    for name in ("step", "smooth"):
        v = verdicts[name]
        assert v.verdict == VERIFIED, (name, v.summary, v.details)
        assert v.raw["input_source"] == "derived from the code" and v.raw["derived"]["kept"] >= 1
        assert all(site["true"] and site["false"] for site in v.raw["coverage"]), v.raw["coverage"]
        assert v.to_json()["branches_both_sides"] == {"branches": 1, "both_sides": 1}
        assert any(d.startswith("inputs derived from how it uses its parameters") for d in v.details)
    # the static flag was tried both ways, and the record reached the function with its fields
    calls = verdicts["step"].raw["derived"]["calls"]
    assert any(c.endswith(", True)") for c in calls) and any(c.endswith(", False)") for c in calls), calls
    assert all(c.startswith("(Record(mean=") for c in verdicts["smooth"].raw["derived"]["calls"])


@needs_jax
def test_a_wrong_rewrite_is_still_caught_with_derived_inputs(tmp_path):
    verdicts = _verify(tmp_path, MODULE, WRONG)
    assert verdicts["step"].verdict == VERIFIED
    bad = verdicts["smooth"]
    assert bad.verdict == MISMATCH, (bad.summary, bad.details)
    assert bad.raw["input_source"] == "derived from the code"
    assert bad.summary.startswith("worst leaf (result): max abs error 1,")


@needs_jax
def test_write_examples_round_trip(tmp_path, capsys):
    module = tmp_path / "derived_mod.py"
    mine = tmp_path / "mine.py"
    module.write_text(MODULE)
    mine.write_text(RIGHT)
    args = ["verify", "--isolated", "--format", "json", "--write-examples", "--fixed", str(mine), str(module)]
    assert main(args) == 0
    captured = capsys.readouterr()
    first = json.loads(captured.out)
    assert "wrote EXAMPLES for step, smooth" in captured.err
    written = module.read_text()
    assert written.startswith(MODULE) and "\nEXAMPLES = {\n" in written
    tree = ast.parse(written)  # it parses, and defines EXAMPLES at module level
    assert any(isinstance(s, ast.Assign) and s.targets[0].id == "EXAMPLES" for s in tree.body
               if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name))
    # the fixed file needs them too: the same block (the verifier reads each version's own EXAMPLES)
    mine.write_text(RIGHT + written[len(MODULE):])
    assert main(args) == 0
    captured = capsys.readouterr()
    second = json.loads(captured.out)
    assert captured.err == "" and module.read_text() == written  # nothing more derived, nothing written
    for a, b in zip(first["functions"], second["functions"]):
        assert (a["function"], a["verdict"], a["inputs"], a["generated"], a["coverage"]) == \
            (b["function"], b["verdict"], b["inputs"], b["generated"], b["coverage"])
        assert a["input_source"] == "derived from the code" and b["input_source"] == "EXAMPLES"
        worst_a, worst_b = a["worst"] or {}, b["worst"] or {}
        assert (worst_a.get("call"), worst_a.get("max_abs")) == (worst_b.get("call"), worst_b.get("max_abs"))


@needs_jax
def test_the_bundled_examples_verify_with_derived_inputs(tmp_path, capsys):
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES_DIR, folder)
    assert main(["verify", "--isolated", "--format", "json", str(folder)]) == 0
    data = json.loads(capsys.readouterr().out)
    functions = data["functions"]
    assert functions and data["counts"]["unverified: no inputs"] == 0
    for f in functions:
        assert f["input_source"] == "derived from the code", f
        assert f["verdict"] in (VERIFIED, "no fix"), f
        if f["rewritten"]:
            assert f["verdict"] == VERIFIED
            both = f["branches_both_sides"]
            assert both["both_sides"] == both["branches"], f["coverage"]
    assert sum(f["branches_both_sides"]["branches"] for f in functions) >= 2
