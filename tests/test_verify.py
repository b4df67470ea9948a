"""The dynamic verifier end to end: user code runs in a subprocess, verdicts come back.

Each test starts one or a few child interpreters (each imports jax: about a
second or two), so the modules below pack several cases each.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
import time

import pytest

from jitlint.engine import lint_source
from jitlint.verify import VerifyOptions, verify_module
from jitlint.verify.report import FAILS_TO_TRACE, MISMATCH, RECOMPILES, UNVERIFIED, VERIFIED

#: the verifier's subprocesses need jax; this process never imports it (the runner tests fork)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")

FIX_FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "fix")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def run(tmp_path, original: str, fixed=None, name: str = "mod.py", include_findings: bool = True, **options):
    path = tmp_path / name
    path.write_text(original)
    diags = lint_source(original, str(path)).diagnostics
    opts = VerifyOptions(device=options.pop("device", "cpu"), timeout=options.pop("timeout", 60), **options)
    report = verify_module(str(path), original, fixed, diags, options=opts, include_findings=include_findings)
    return report, {v.qualname: v for v in report.verdicts}


CLIP = src('''
    from functools import partial

    import jax
    import jax.numpy as jnp


    def global_norm(tree):
        return jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(tree)))


    @partial(jax.jit, static_argnames=("max_norm",))
    def clipped_sgd(params, grads, lr, max_norm=1.0):
        norm = global_norm(grads)
        if norm > max_norm:
            grads = jax.tree_util.tree_map(lambda g: g * max_norm / norm, grads)
        return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


    @jax.jit
    def no_inputs(x):
        if x.sum() > 0:
            return x
        return -x


    PARAMS = {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}
    GRADS = {"w": jnp.full((2, 2), 3.0), "b": jnp.array([1.0, -1.0])}
    EXAMPLES = {"clipped_sgd": [((PARAMS, GRADS, 0.1), {"max_norm": 1.0})]}
''')
CLIP_RIGHT = CLIP.replace('''    if norm > max_norm:
        grads = jax.tree_util.tree_map(lambda g: g * max_norm / norm, grads)
''', '''    scale = jnp.where(norm > max_norm, max_norm / norm, 1.0)
    grads = jax.tree_util.tree_map(lambda g: g * scale, grads)
''')
CLIP_SWAPPED = CLIP_RIGHT.replace("jnp.where(norm > max_norm, max_norm / norm, 1.0)",
                                  "jnp.where(norm > max_norm, 1.0, max_norm / norm)")


def test_a_right_fix_verifies_with_branch_coverage_and_the_finding_confirmed(tmp_path):
    report, verdicts = run(tmp_path, CLIP, CLIP_RIGHT, cross_device=True, derive=False)
    assert report.device == "cpu"
    v = verdicts["clipped_sgd"]
    assert v.verdict == VERIFIED, v
    # the one example takes the clipping side; a generated input (zeros) takes the other
    assert v.raw["inputs"] == 1 and v.raw["generated"] >= 1 and v.raw["input_source"] == "EXAMPLES"
    (site,) = v.raw["coverage"]
    assert (site["line"], site["kind"], site["rewrite"]) == (14, "if", "jnp.where")
    assert site["true"] >= 1 and site["false"] >= 1
    assert v.summary.startswith("1 input (EXAMPLES) + ") and v.summary.endswith("branches 2/2 sides")
    assert v.raw["traces"]["traces_first"] == 1 and v.raw["traces"]["retraces"] == 0
    assert v.raw["jaxpr"]["ok"]
    (c,) = v.confirmations
    assert c.confirmed and c.detail == ("the original raises jax.errors.TracerBoolConversionError at line 14 "
                                        "under jit")
    assert any(d.startswith("cross-check on cpu:0 (the same device) against cpu, ") for d in v.details), v.details
    # a function with a finding and nothing to call it with is reported, never passed
    other = verdicts["no_inputs"]
    assert other.verdict == UNVERIFIED and not other.rewritten
    assert other.summary == "tried no_inputs"


def test_a_wrong_rewrite_is_a_mismatch_with_the_worst_leaf(tmp_path):
    _, verdicts = run(tmp_path, CLIP, CLIP_SWAPPED, include_findings=False)
    v = verdicts["clipped_sgd"]
    assert v.verdict == MISMATCH
    first = v.raw["comparisons"][0]
    # b: 0 - 0.1 * [1, -1] / sqrt(38) eagerly, 0 - 0.1 * [1, -1] with the swapped where; the leaf furthest
    # from its tolerance (w is off by 0.251, but relative to 0.95)
    assert first["input"] == "#1" and first["leaf"] == "['b']"
    assert first["max_abs"] == pytest.approx(0.1 * (1 - 1 / 38 ** 0.5), rel=1e-4)
    assert first["max_rel"] == pytest.approx(38 ** 0.5 - 1, rel=1e-4)
    # the worst input is a generated one: zero gradients, where the swapped where scales by max_norm / 0
    worst = v.to_json()["worst"]
    assert worst["input"].startswith("generated from #1: ") and worst["max_abs"] == "inf"
    assert v.summary.startswith(f"worst leaf {worst['leaf']}: max abs error inf, max rel error inf on input "
                                f"{worst['input']} (")


CHAOS = src('''
    import os
    import sys

    import jax
    import jax.numpy as jnp

    os.write(1, b"x" * 5_000_000)  # floods the real stdout at import
    print("y" * 5_000_000)


    @jax.jit
    def hangs(x):
        while True:
            pass


    @jax.jit
    def exits(x):
        sys.exit(5)


    @jax.jit
    def dies(x):
        os._exit(7)


    @jax.jit
    def fine(x):
        return x + 1


    EXAMPLES = {name: [((jnp.ones(2),), {})] for name in ("hangs", "exits", "dies", "fine")}
''')


def _touch_every_function(source: str) -> str:
    """A fixed version that differs in every function (a comment), so each is verified."""
    return source.replace("(x):\n", "(x):  # reviewed\n")


def test_user_code_that_hangs_exits_or_crashes_is_reported_and_the_run_goes_on(tmp_path):
    start = time.monotonic()
    _, verdicts = run(tmp_path, CHAOS, _touch_every_function(CHAOS), timeout=3)
    assert verdicts["hangs"].verdict == "error: timed out after 3 s"
    exits = verdicts["exits"]
    assert exits.verdict == UNVERIFIED
    assert exits.summary == "the original fails eagerly on all 1 input"
    assert any("SystemExit: sys.exit(5)" in d for d in exits.details)
    assert verdicts["dies"].verdict == "error: the subprocess exited with status 7"
    assert verdicts["fine"].verdict == VERIFIED
    assert time.monotonic() - start < 60


@pytest.mark.parametrize("body, verdict", [
    ("while True:\n    pass\n", "error: timed out after 2 s while importing the module"),
    ("import sys\nsys.exit(3)\n", "error: the original module calls sys.exit(3) when imported"),
    ("raise RuntimeError('no GPU here')\n",
     "error: importing the original module failed: RuntimeError: no GPU here (line 10)"),
])
def test_a_module_that_cannot_be_imported_is_reported(tmp_path, body, verdict):
    original = src('''
        import jax


        @jax.jit
        def f(x):
            if x > 0:
                return x
            return -x
    ''') + "\n" + body
    _, verdicts = run(tmp_path, original, timeout=2)
    assert verdicts["f"].verdict == verdict


def test_a_device_that_is_not_there_is_reported(tmp_path):
    original = src('''
        import jax


        @jax.jit
        def f(x):
            if x > 0:
                return x
            return -x
    ''')
    report, verdicts = run(tmp_path, original, device="tpu")
    assert verdicts["f"].verdict.startswith("error: no tpu device: ")
    assert report.device is None


def test_memory_hog_is_stopped(tmp_path):
    original = src('''
        import jax
        import numpy as np


        @jax.jit
        def f(x):
            return x


        def hog(x):
            blocks = [np.ones(8 * 1024 * 1024) for _ in range(40)]
            return x + len(blocks)


        EXAMPLES = {"hog": [((1.0,), {})]}
    ''')
    fixed = original.replace("return x + len(blocks)", "return x + len(blocks)  # same")
    _, verdicts = run(tmp_path, original, fixed, include_findings=False, memory_mb=500)
    assert verdicts["hog"].verdict == "error: stopped: used more than 500 MiB of memory"


BROKEN = src('''
    import jax
    import jax.numpy as jnp
    from jax import lax


    @jax.jit
    def still_branches(x):
        if x.sum() > 0:
            return x * 2
        return x


    @jax.jit
    def relu_total(x):
        total = 0
        if x.sum() > 0:
            total = x.sum()
        return total


    def new_jit_each_call(x):
        return jax.jit(lambda v: v * 2)(x)


    EXAMPLES = {name: [((jnp.array([1.0, -2.0, 3.0]),), {})]
                for name in ("still_branches", "relu_total", "new_jit_each_call")}
''')
BROKEN_FIXED = BROKEN.replace(
    "    if x.sum() > 0:\n        return x * 2\n",
    "    if x.sum() > 0:  # still a Python branch\n        return x * 2\n",
).replace(
    "    if x.sum() > 0:\n        total = x.sum()\n",
    "    total = lax.cond(x.sum() > 0, lambda t: x.sum(), lambda t: t, total)\n",
).replace("return jax.jit(lambda v: v * 2)(x)", "return jax.jit(lambda v: v * 2.0)(x)")


def test_fixes_that_fail_to_trace_or_recompile(tmp_path):
    _, verdicts = run(tmp_path, BROKEN, BROKEN_FIXED, include_findings=False)
    v = verdicts["still_branches"]
    assert v.verdict == FAILS_TO_TRACE
    assert v.summary.startswith("jax.errors.TracerBoolConversionError: Attempted boolean conversion of traced "
                                "array with shape bool[]. (line 8 of the fixed version) on input #1")
    v = verdicts["relu_total"]
    assert v.verdict == FAILS_TO_TRACE and v.summary.startswith("TypeError: cond branches must have equal output")
    v = verdicts["new_jit_each_call"]
    assert v.verdict == RECOMPILES and v.raw["mode"] == "as_is"
    assert v.raw["traces"]["recompiles"] == 2  # each of the two repeated calls compiles again


ANNOTATED = src('''
    from __future__ import annotations

    import dataclasses
    from typing import TYPE_CHECKING

    import jax
    import jax.numpy as jnp

    if TYPE_CHECKING:
        from jaxtyping import Array, Float


    @jax.tree_util.register_dataclass
    @dataclasses.dataclass(frozen=True)
    class Config:
        scale: float


    @jax.jit
    def flip(x: Float[Array, "3 4"], bias: float):
        if x.sum() > 0:
            return x + bias
        return -x


    @jax.jit
    def scaled(cfg: Config, x: jax.Array):
        return x * cfg.scale
''')
ANNOTATED_FIXED = ANNOTATED.replace(
    "    if x.sum() > 0:\n        return x + bias\n    return -x\n", "    return jnp.where(x.sum() > 0, x + bias, -x)\n"
).replace("return x * cfg.scale", "return jnp.multiply(x, cfg.scale)")


def test_inputs_from_annotations(tmp_path):
    _, verdicts = run(tmp_path, ANNOTATED, ANNOTATED_FIXED, include_findings=False, default_shape=(2, 3))
    flip = verdicts["flip"]
    assert flip.verdict == VERIFIED and flip.raw["input_source"] == "annotations"
    assert flip.raw["comparisons"][0]["call"].startswith("(float32[3,4], 0.5)")
    (site,) = flip.raw["coverage"]
    assert site["true"] >= 1 and site["false"] >= 1  # the generated negation takes the other side
    scaled = verdicts["scaled"]
    assert scaled.verdict == VERIFIED and scaled.raw["input_source"] == "annotations"
    assert scaled.raw["comparisons"][0]["call"].startswith("(Config(scale=0.5), float32[2,3][[ 0.12573 , ")


EXAMPLES_FILE = src('''
    import jax.numpy as jnp

    from mod import Scale

    EXAMPLES = {"mod.apply": [((Scale(2.0), jnp.arange(3.0)), {})]}
''')
WITH_CLASS = src('''
    import dataclasses

    import jax
    import jax.numpy as jnp


    @dataclasses.dataclass(frozen=True)
    class Scale:
        k: float


    @jax.jit
    def apply(s, x):
        if x.sum() > 0:
            return x * 2
        return x


    EXAMPLES = {"apply": [((Scale(1.0), jnp.ones(3)), {})]}
''')


def test_an_examples_file_comes_before_the_module_examples(tmp_path):
    examples = tmp_path / "examples.py"
    examples.write_text(EXAMPLES_FILE)
    fixed = WITH_CLASS.replace("    if x.sum() > 0:\n        return x * 2\n    return x\n",
                               "    return jnp.where(x.sum() > 0, x * 2, x)\n")
    assert fixed != WITH_CLASS
    _, verdicts = run(tmp_path, WITH_CLASS, fixed, include_findings=False, examples_file=str(examples))
    v = verdicts["apply"]
    # a frozen dataclass is not a JAX type: jax.jit cannot trace it, eagerly it is fine
    assert v.verdict == FAILS_TO_TRACE and v.raw["input_source"] == "--examples"
    assert "(Scale(k=2.0), float32[3][0., 1., 2.])" in v.summary


TESTED = src('''
    import jax
    import jax.numpy as jnp


    @jax.jit
    def leaky_relu(x, slope):
        if x.sum() > 0:
            return x
        return x * slope
''')
TESTS = src('''
    import jax.numpy as jnp

    from tested import leaky_relu


    def test_positive():
        assert leaky_relu(jnp.ones(3), 0.1).shape == (3,)


    def test_negative():
        assert leaky_relu(-jnp.ones((2, 2)), 0.1).shape == (2, 2)
''')


def test_recorded_calls_are_replayed(tmp_path):
    (tmp_path / "tested.py").write_text(TESTED)
    (tmp_path / "test_tested.py").write_text(TESTS)
    calls = tmp_path / "calls.pkl"
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "jitlint.record",
                           f"--jitlint-record={calls}", "-p", "no:cacheprovider", "test_tested.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    # the Python branch fails under jit: the recording is of the calls, whatever they do
    assert calls.exists(), proc.stdout + proc.stderr
    from jitlint.verify.record import load_calls

    records = load_calls(str(calls))
    assert [r["qualname"] for r in records] == ["leaky_relu", "leaky_relu"]
    fixed = TESTED.replace("    if x.sum() > 0:\n        return x\n    return x * slope\n",
                           "    return jnp.where(x.sum() > 0, x, x * slope)\n")
    assert fixed != TESTED
    _, verdicts = run(tmp_path, TESTED, fixed, name="tested.py", include_findings=False, calls_file=str(calls))
    v = verdicts["leaky_relu"]
    assert v.verdict == VERIFIED and v.raw["input_source"] == "recorded calls" and v.raw["inputs"] == 2
    assert v.summary == "2 inputs (recorded calls), branches 2/2 sides"


@pytest.mark.skipif(not os.path.isdir(FIX_FIXTURES), reason="no fix fixtures")
@pytest.mark.parametrize("name", ["branch_grad_clip", "fori_euler", "while_newton", "print_scan_body"])
def test_fix_fixtures_verify(tmp_path, name):
    base = os.path.join(FIX_FIXTURES, name)
    if not os.path.exists(base + ".in.py"):
        pytest.skip(f"no fixture {name}")
    with open(base + ".in.py", encoding="utf-8", newline="") as fh:
        original = fh.read()
    with open(base + ".out.py", encoding="utf-8", newline="") as fh:
        fixed = fh.read()
    report = verify_module(base + ".in.py", original, fixed, options=VerifyOptions(device="cpu", timeout=60),
                           include_findings=False)
    assert report.verdicts and all(v.verdict == VERIFIED for v in report.verdicts), report.verdicts


LOG_AND_DRAW = src('''
    import logging
    import random

    import jax
    import jax.numpy as jnp

    logger = logging.getLogger(__name__)


    @jax.jit
    def step(x):
        logger.info("step")
        noise = random.random()
        return x * 2.0 + noise * 0.0


    @jax.jit
    def drawn(x):
        logger.info("drawn")
        return x + random.random()


    EXAMPLES = {"step": [((jnp.ones(3),), {})], "drawn": [((jnp.ones(3),), {})]}
''')


def test_a_side_effect_is_confirmed_by_what_its_own_line_did(tmp_path):
    """The log line of a function confirms its own JIT104 finding, not the random draw's on the next
    line: each is judged by what its line did (a record per eager call, one per trace under jit) or
    by the result (frozen where eager varies)."""
    _, verdicts = run(tmp_path, LOG_AND_DRAW, include_findings=True)
    by_line = {c.finding.line: c for c in verdicts["step"].confirmations}
    # (the traces were made before the observed calls: 0 records in them)
    assert by_line[12].confirmed and re.fullmatch(
        r"logs at trace time only: line 12 made [01] for 3 jitted calls, 3 eagerly", by_line[12].detail)
    # the draw is multiplied by 0: nothing shows it was frozen, and the log's count is not its evidence
    assert not by_line[13].confirmed, by_line[13]
    by_line = {c.finding.line: c for c in verdicts["drawn"].confirmations}
    assert by_line[19].confirmed and by_line[19].detail.startswith("logs at trace time only: line 19")
    assert by_line[20].confirmed and by_line[20].detail.startswith("the jitted result is frozen"), by_line[20]
