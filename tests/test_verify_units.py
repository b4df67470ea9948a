"""The verifier's parts that need no subprocess: planning, inputs from annotations, comparison, verdicts."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from jitlint.engine import lint_source
from jitlint.verify.options import parse_shape, parse_tolerance
from jitlint.verify.report import (FAILS_TO_TRACE, MISMATCH, NO_FIX, RECOMPILES, UNVERIFIED, VERIFIED, confirm,
                                   coverage_text, judge)
from jitlint.verify.targets import Finding, Target, changed_lines, module_location, plan_targets, unplanned_changes
from jitlint.verify.verifier import splice


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


CLIP = src('''
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames=("max_norm",))
    def clipped(g, max_norm=1.0):
        norm = jnp.linalg.norm(g)
        if norm > max_norm:
            g = g * max_norm / norm
        return g


    def _step(x, n):
        for _ in range(n):
            x = x * 2
        return x


    step = jax.jit(_step, donate_argnums=0)


    def helper(x):
        if x.sum() > 0:
            return x
        return -x


    @jax.jit
    def uses_helper(x):
        return helper(x) + 1


    def driver(xs):
        def body(c, x):
            return c + x, c
        return jax.lax.scan(body, 0.0, xs)
''')

CLIP_FIXED = CLIP.replace('''    if norm > max_norm:
        g = g * max_norm / norm
''', '''    g = jnp.where(norm > max_norm, g * max_norm / norm, g)
''')


# ---------------------------------------------------------------- planning
def test_changed_lines_maps_replacements_and_insertions():
    before = "a\nb\nc\nd\n"
    assert changed_lines(before, "a\nB\nc\nd\n") == {2}
    assert changed_lines(before, "a\nb\nnew\nc\nd\n") == {2}  # inserted after line 2
    assert changed_lines(before, "a\nd\n") == {2, 3}


def test_plan_finds_the_rewritten_function_and_its_branch():
    diags = lint_source(CLIP, "clip.py").diagnostics
    targets = plan_targets(CLIP, CLIP_FIXED, diags)
    by_name = {t.qualname: t for t in targets}
    clipped = by_name["clipped"]
    assert clipped.rewritten and clipped.line == 7
    assert [(b.line, b.kind, b.test, b.rewrite) for b in clipped.branches] == [(10, "if", "norm > max_norm",
                                                                                "jnp.where")]
    assert clipped.callables[0].name == "clipped" and clipped.callables[0].mode == "jitted"
    assert clipped.callables[0].static_argnames == ("max_norm",)
    # functions with findings and no fix are verified as they are
    assert not by_name["helper"].rewritten
    assert {f.code for f in by_name["helper"].findings} == {"JIT201"}


def test_plan_without_findings_keeps_only_rewritten_functions():
    targets = plan_targets(CLIP, CLIP_FIXED, lint_source(CLIP, "clip.py").diagnostics, include_findings=False)
    assert [t.qualname for t in targets] == ["clipped"]


def test_callables_follow_bindings_helpers_and_nesting():
    diags = lint_source(CLIP, "clip.py").diagnostics
    targets = {t.qualname: t for t in plan_targets(CLIP, None, diags)}
    step = targets["_step"]
    assert [(c.name, c.mode) for c in step.callables] == [("_step", "wrap"), ("step", "jitted")]
    assert not step.callables[0].auto_static  # the module's jax.jit says which are static: none
    helper = targets["helper"]
    assert [(c.name, c.mode) for c in helper.callables] == [("helper", "wrap"), ("uses_helper", "jitted")]
    assert helper.callables[0].auto_static  # no jit of its own gives static arguments


def test_module_location_walks_packages(tmp_path):
    pkg = tmp_path / "pkg" / "sub"
    pkg.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    assert module_location(str(pkg / "mod.py")) == ("pkg.sub.mod", str(tmp_path))
    assert module_location(str(tmp_path / "plain.py")) == ("plain", str(tmp_path))


# ---------------------------------------------------------------- annotations
ANNOTATED = src('''
    from __future__ import annotations

    import dataclasses
    from typing import TYPE_CHECKING, NamedTuple

    import jax
    import jax.numpy as jnp

    if TYPE_CHECKING:
        from jaxtyping import Array, Float, Int


    @dataclasses.dataclass(frozen=True)
    class Config:
        scale: float
        steps: int = 3


    class Pair(NamedTuple):
        a: jax.Array
        b: "Float[Array, 'n']"


    @jax.jit
    def f(x: Float[Array, "batch 4"], y: Float[Array, "batch"], k: Int[Array, ""], flag: bool, n: int = 2):
        return x

    @jax.jit
    def g(cfg: Config, p: Pair, *, z: jnp.ndarray):
        return p.a

    @jax.jit
    def h(x, y: float):
        return x
''')


def _spec(name: str, shape=(3,)):
    targets = plan_targets(ANNOTATED, None, [_finding_in(name)], default_shape=shape)
    (target,) = [t for t in targets if t.qualname == name]
    return target.callables[0].annotations


def _finding_in(name: str):
    line = next(i for i, text in enumerate(ANNOTATED.splitlines(), 1) if f"def {name}(" in text) + 1
    from jitlint.diagnostics import Diagnostic

    return Diagnostic("m.py", line, 1, line, 2, "JIT201", "x")


def test_jaxtyping_annotations_give_shapes_and_dtypes():
    spec = _spec("f")
    assert spec.args == ({"t": "array", "shape": [3, 4], "dtype": "float32"},
                         {"t": "array", "shape": [3], "dtype": "float32"},
                         {"t": "array", "shape": [], "dtype": "int32"},
                         {"t": "scalar", "type": "bool"})
    assert spec.kwargs == ()  # n keeps its default


def test_dataclasses_namedtuples_and_default_shape():
    spec = _spec("g", shape=(2, 5))
    cfg, pair = spec.args
    assert cfg == {"t": "class", "name": "Config", "fields": [["scale", {"t": "scalar", "type": "float"}]]}
    assert pair["name"] == "Pair" and pair["fields"][0] == ["a", {"t": "array", "shape": [2, 5], "dtype": "float32"}]
    assert pair["fields"][1][1]["shape"] == [3]
    assert spec.kwargs == (("z", {"t": "array", "shape": [2, 5], "dtype": "float32"}),)


def test_an_unannotated_parameter_means_no_annotation_inputs():
    assert _spec("h") is None


def test_tolerance_and_shape_options():
    assert parse_tolerance("float32=1e-4:1e-6") == ("float32", (1e-4, 1e-6))
    assert parse_tolerance("bfloat16=0.02") == ("bfloat16", (0.02, 0.02))
    with pytest.raises(ValueError):
        parse_tolerance("float32")
    assert parse_shape("3,4") == (3, 4)
    assert parse_shape("()") == ()


# ---------------------------------------------------------------- comparison
COMPARE_CHECKS = src('''
    import jax.numpy as jnp
    import numpy as np

    from jitlint.verify.compare import compare
    from jitlint.verify.options import DEFAULT_TOLERANCES as TOL

    a = {"w": jnp.ones((2, 2)), "b": jnp.array([1.0, np.nan])}
    assert compare(a, {"w": jnp.ones((2, 2)) + 1e-7, "b": jnp.array([1.0, np.nan])}, TOL)["ok"]
    worst = compare(a, {"w": jnp.ones((2, 2)) * 1.5, "b": jnp.array([1.1, np.nan])}, TOL)
    assert not worst["ok"] and worst["leaf"] == "['w']", worst
    assert abs(worst["max_abs"] - 0.5) < 1e-6 and abs(worst["max_rel"] - 0.5) < 1e-6, worst
    assert compare(a, [a["w"], a["b"]], TOL)["problem"] == "structure"
    assert compare(jnp.ones(3), jnp.ones(4), TOL)["problem"] == "shape"
    assert compare(jnp.ones(3), jnp.ones(3, dtype=jnp.int32), TOL)["problem"] == "dtype"
    assert compare(2.0, jnp.float32(2.0), TOL)["ok"]  # a Python float reads as float32, like JAX reads it
    assert compare(jnp.arange(3), jnp.arange(3) + 1, TOL)["problem"] == "values"
    assert compare("a", "b", TOL)["problem"] == "values"
    print("compare ok")
''')


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_compare_leaf_by_leaf():
    # in a subprocess: this process must not import jax (other tests fork)
    proc = subprocess.run([sys.executable, "-c", COMPARE_CHECKS], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert proc.returncode == 0 and proc.stdout.strip() == "compare ok", proc.stderr


# ---------------------------------------------------------------- verdicts
def _target(**kw):
    base = dict(qualname="f", line=3, rewritten=True, findings=(Finding("JIT201", 5, "Python `if` on `x`"),))
    base.update(kw)
    return Target(**base)


def _raw(**kw):
    base = {"callable": "f", "mode": "jitted", "inputs": 2, "input_source": "EXAMPLES", "generated": 0,
            "eager_failures": [], "comparisons": [{"input": "#1", "call": "(x)", "ok": True, "max_abs": 1e-7,
                                                   "max_rel": 1e-7, "leaf": "", "ratio": 0.1}],
            "fixed_error": None, "traces": {"calls": 3, "compiles_first": 1, "recompiles": 0, "traces_first": 1,
                                            "retraces": 0, "error": None},
            "jaxpr": {"ok": True, "equations": 4}, "coverage": [], "observations": {}, "notes": []}
    base.update(kw)
    return base


def test_judge_verified_mismatch_and_fails():
    assert judge("m.py", _target(), _raw()).verdict == VERIFIED
    bad = {"input": "#2", "call": "(x=3)", "ok": False, "problem": "values", "leaf": "['w']", "max_abs": 0.25,
           "max_rel": 0.5, "ratio": 1e5, "detail": "expected 1, got 2"}
    v = judge("m.py", _target(), _raw(comparisons=[_raw()["comparisons"][0], bad]))
    assert v.verdict == MISMATCH
    assert v.summary == "worst leaf ['w']: max abs error 0.25, max rel error 0.5 on input #2 (x=3)"
    err = {"type": "jax.errors.TracerBoolConversionError", "message": "Attempted boolean conversion", "lines": [9],
           "input": "#1", "call": "(x)"}
    v = judge("m.py", _target(), _raw(fixed_error=err))
    assert v.verdict == FAILS_TO_TRACE and "(line 9 of the fixed version)" in v.summary
    assert judge("m.py", _target(), _raw(jaxpr={"ok": False, "error": err})).verdict == FAILS_TO_TRACE
    retrace = _raw(traces={"calls": 3, "retraces": 2, "recompiles": 2, "traces_first": 1})
    assert judge("m.py", _target(), retrace).verdict == RECOMPILES
    same_shapes = _raw(traces={"calls": 3, "retraces": 0, "recompiles": 0, "traces_first": 1, "input_traces": 3,
                               "signatures": 1, "inputs": 3})
    v = judge("m.py", _target(), same_shapes)
    assert v.verdict == RECOMPILES and v.summary.startswith("traced 3 times for 3 inputs of 1 shape signature(s)")
    v = judge("m.py", _target(), _raw(callable=None, tried=["f", "g"]))
    assert v.verdict == UNVERIFIED and v.summary == "tried f, g"
    v = judge("m.py", _target(), None, "timed out after 2 s")
    assert v.verdict == "error: timed out after 2 s" and v.kind == "error"


def test_a_function_without_a_fix_is_judged_as_it_is():
    err = {"type": "jax.errors.TracerBoolConversionError", "message": "Attempted boolean conversion", "lines": [5],
           "input": "#1", "call": "(x)"}
    raising = {"repeats": 3, "jit_error": {"type": "jax.errors.TracerBoolConversionError", "lines": [5]}}
    v = judge("m.py", _target(rewritten=False), _raw(fixed_error=err, observations=raising))
    assert v.verdict == NO_FIX and not v.ok
    assert v.summary.startswith("as it is, under jit it fails: jax.errors.TracerBoolConversionError")
    assert v.confirmations[0].confirmed
    v = judge("m.py", _target(rewritten=False), _raw(callable=None, tried=["f"]))
    assert v.verdict == UNVERIFIED  # no inputs stays no inputs


def test_confirmations_from_observations():
    raising = {"repeats": 3, "jit_error": {"type": "jax.errors.TracerBoolConversionError", "lines": [5]}}
    (c,) = confirm([Finding("JIT201", 5, "m")], _raw(observations=raising), True)
    assert c.confirmed and "TracerBoolConversionError at line 5" in c.detail
    printing = {"repeats": 3, "eager_stdout_lines": 3, "jit_stdout_lines": 1, "jit_prints_tracer": True}
    (c,) = confirm([Finding("JIT103", 7, "m")], _raw(observations=printing), True)
    assert c.confirmed and c.detail.startswith("prints at trace time only: 1 line(s) for 3 jitted calls, 3 eagerly")
    frozen = {"repeats": 3, "frozen": {"scale": {"changed": True, "eager_moved": True, "jit_moved": False}}}
    (c,) = confirm([Finding("JIT101", 7, "read of mutable global `scale`", "scale")], _raw(observations=frozen), True)
    assert c.confirmed and "`scale` is frozen" in c.detail
    leaked = {"repeats": 3, "state": {"LOG": {"before": {"len": 0}, "after_eager": {"len": 3},
                                              "after_jit": {"len": 4}}}}
    (c,) = confirm([Finding("JIT102", 9, "append to global `LOG`", "LOG")], _raw(observations=leaked), True)
    assert c.confirmed and "changed by 1 over 3 jitted calls, by 3 eagerly" in c.detail
    quiet = {"repeats": 3, "jit_differs": None}
    (c,) = confirm([Finding("JIT201", 5, "m")], _raw(observations=quiet), True)
    assert not c.confirmed and c.detail.startswith("not observed")


def test_coverage_text_counts_sides():
    summary, lines = coverage_text([{"line": 4, "kind": "if", "rewrite": "lax.cond", "true": 2, "false": 0},
                                    {"line": 9, "kind": "while", "rewrite": "lax.while_loop", "true": 5,
                                     "false": 1}])
    assert summary == "branches 3/4 sides"
    assert lines[0] == "branch line 4 `if` -> lax.cond: true 2, false 0 (false side never taken)"
    assert lines[1] == "branch line 9 `while` -> lax.while_loop: entered 5, exited 1"


# ---------------------------------------------------------------- partial fixes
def test_splice_puts_back_failed_functions_only():
    original = src('''
        import jax


        def a(x):
            return x + 1


        def b(x):
            return x + 2
    ''')
    fixed = "from jax import lax\n" + original.replace("x + 1", "x + 10").replace("x + 2", "x + 20")
    out = splice(original, fixed, {"b"})
    assert "x + 10" in out and "x + 2\n" in out and out.startswith("from jax import lax\n")
    assert splice(original, fixed, {"a", "b"}) == "from jax import lax\n" + original


def test_check_examples_without_a_file(tmp_path):
    """`check --fix --verify --examples DIR`: a bare --examples, then the folder to check."""
    from jitlint.cli import build_parser
    from jitlint.verify.command import verify_options_for_check

    args = build_parser().parse_args(["check", "--fix", "--verify", "--examples", str(tmp_path)])
    options = verify_options_for_check(args)
    assert args.paths == [str(tmp_path)] and options.examples_file is None
    args = build_parser().parse_args(["check", "--fix", "--verify", "--verify-timeout", "7", "--tolerance",
                                      "float32=1e-3", "--default-shape", "2,2", "--examples"])
    options = verify_options_for_check(args)
    assert args.paths == ["."] and options.examples_file is None and options.timeout == 7.0
    assert options.tolerances["float32"] == (1e-3, 1e-3) and options.default_shape == (2, 2)


def test_a_finding_after_the_line_that_raises_is_not_confirmed():
    raising = {"repeats": 3, "jit_error": {"type": "jax.errors.TracerBoolConversionError", "lines": [33]},
               "jit_prints_tracer": True,
               "state": {"ACCEPTED": {"before": {"len": 0}, "after_eager": {"len": 3}, "after_jit": {"len": 3}}}}
    found = confirm([Finding("JIT104", 32, "np.random"), Finding("JIT102", 34, "append to global `ACCEPTED`", "ACCEPTED"),
                     Finding("JIT103", 30, "print")], _raw(observations=raising), True)
    assert [(c.confirmed, c.detail.split(":")[0]) for c in found] == [
        (False, "not observable"), (False, "not reached"),
        (True, "prints a tracer at trace time (then raises jax.errors.TracerBoolConversionError at line 33)")]


def test_changes_outside_every_function_are_found():
    diags = lint_source(CLIP, "clip.py").diagnostics
    targets = plan_targets(CLIP, CLIP_FIXED, diags, include_findings=False)
    assert unplanned_changes(CLIP, CLIP_FIXED, targets) == []
    with_import = "from jax import lax\n" + CLIP_FIXED
    assert unplanned_changes(CLIP, with_import, plan_targets(CLIP, with_import, diags)) == []
    module_level = CLIP_FIXED.replace("step = jax.jit(_step, donate_argnums=0)", "step = jax.jit(_step)")
    assert unplanned_changes(CLIP, module_level, targets) == [21]  # _step is not a target here
    elsewhere = CLIP_FIXED + "\nTABLE = [1, 2]\n"
    assert unplanned_changes(CLIP, elsewhere, targets) == [38]
