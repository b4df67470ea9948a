"""What the verifier reports and writes: trace counts alike in text and JSON; SAFE fixes without inputs.

``check --fix --verify`` writes a function's SAFE fixes when it has no inputs
to verify them with (they do not change what the code computes); its UNSAFE
fixes are withheld, and the report names the ways to give inputs.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import textwrap

import pytest

from jitlint.cli import main
from jitlint.engine import lint_source
from jitlint.fixing import fix_source
from jitlint.verify import VerifyOptions, verify_module
from jitlint.verify.report import INPUTS_HINT, VERIFIED, format_json, format_text, trace_counts, trace_text

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")

EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")

#: one trace per static value: two inputs, two traces
STATIC = textwrap.dedent('''
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames=("mode",))
    def f(x, mode):
        if x.sum() > 0:
            x = x - 1
        return x + 1 if mode == "a" else x * 2


    EXAMPLES = {"f": [((jnp.ones(3),), {"mode": "a"}), ((-jnp.ones(3),), {"mode": "b"})]}
''').lstrip("\n")


def test_trace_counts_are_the_same_in_text_and_json(tmp_path):
    path = tmp_path / "static.py"
    path.write_text(STATIC)
    fix = fix_source(STATIC, str(path), unsafe=True)
    report = verify_module(str(path), STATIC, fix.fixed, lint_source(STATIC, str(path)).diagnostics,
                           [(a.line, a.title) for a in fix.applied], VerifyOptions(device="cpu", timeout=60))
    (v,) = report.verdicts
    assert v.verdict == VERIFIED, v
    data = json.loads(format_json([report], report.device))["functions"][0]
    counts = data["trace_counts"]
    assert counts["traces"] == 2 and counts["inputs"] == 2 and counts["signatures"] == 2
    assert counts == trace_counts(v.raw["traces"])
    text = format_text([report], report.device)
    line = next(d for d in v.details if "trace" in d)
    assert line.startswith(trace_text(counts)) and f"      {line}" in text
    assert line.startswith("2 traces for 2 inputs (2 signatures), none more for 3 calls with the same input")
    # every number the text gives is the JSON's
    said = re.match(r"(\d+) traces for (\d+) inputs \((\d+) signatures\), none more for (\d+) calls", line)
    named = ("traces", "inputs", "signatures", "repeated_calls")
    assert [int(n) for n in said.groups()] == [counts[key] for key in named]
    assert counts["retraces"] == 0


def test_trace_text_for_counts_of_every_kind():
    assert trace_text({"traces": 1, "inputs": 1, "signatures": 1, "repeated_calls": 3, "retraces": 0}) == \
        "1 trace for 1 input (1 signature), none more for 3 calls with the same input"
    assert trace_text({"traces": 0, "inputs": 2, "signatures": 1, "repeated_calls": 3, "retraces": 0}) == \
        "0 traces for 2 inputs (1 signature, traced before), none more for 3 calls with the same input"
    assert trace_text({"traces": None, "first_input": 1, "repeated_calls": 3, "retraces": None,
                       "recompiles": 0}) == "1 trace for the first input, none more for 3 calls with the same input"
    assert trace_counts(None) is None


def _copy_examples(tmp_path):
    folder = tmp_path / "examples"
    shutil.copytree(EXAMPLES_DIR, folder, ignore=shutil.ignore_patterns("__pycache__", ".jitlint_cache"))
    return folder


def _changed(folder) -> dict:
    out = {}
    for name in sorted(os.listdir(EXAMPLES_DIR)):
        if name.endswith(".py"):
            with open(os.path.join(EXAMPLES_DIR, name), encoding="utf-8") as fh:
                before = fh.read()
            after = (folder / name).read_text()
            if after != before:
                out[name] = (before, after)
    return out


LOG_FIX = ('log.info("updating %s", x)', 'jax.debug.callback(lambda x: log.info("updating %s", x), x)')
PRINT_FIX = ('    print("loss:", loss)\n', '    jax.debug.print("loss: {!s}", loss)\n')


def _fix_examples(tmp_path, capsys, *options) -> str:
    """``check --fix --verify --no-derive`` on a copy of the examples (only the inputs given: none): its report,
    once only the safe fixes were written (the print and the logging call)."""
    folder = _copy_examples(tmp_path)
    code = main(["check", "--fix", *options, "--verify", "--no-derive", "--isolated", "--no-cache", "--no-reason",
                 "--device", "cpu", str(folder)])
    out = capsys.readouterr().out
    assert code == 1, out  # findings remain
    changed = _changed(folder)
    # train_step's safe print fix alone: not its lax.cond, nor the import that one needs; and
    # noisy_update's logging call
    assert list(changed) == ["logging_state.py", "training.py"]
    before, after = changed["training.py"]
    assert after == before.replace(*PRINT_FIX)
    before, after = changed["logging_state.py"]
    assert after == before.replace(*LOG_FIX)
    assert "Fixed 2 findings in 2 files;" in out
    return out


def test_safe_fixes_are_written_without_inputs(tmp_path, capsys):
    out = _fix_examples(tmp_path, capsys)
    assert "train_step (line 24): unverified: no inputs" in out
    assert "      written unverified: its fixes are all safe (they do not change what the code computes)\n" in out


def test_unsafe_fixes_without_inputs_are_withheld_and_the_ways_to_give_inputs_named(tmp_path, capsys):
    out = _fix_examples(tmp_path, capsys, "--unsafe-fixes")
    folder = tmp_path / "examples"
    assert "only its safe fixes are written" in out
    for name in ("power", "halve_until_small"):
        assert re.search(rf"  {name} \(line \d+\): unverified: no inputs -- tried {name}\n"
                         r"      not written: an unsafe fix is written once it has verified, which needs inputs\n"
                         rf"      {re.escape(INPUTS_HINT)}\n", out), out
    for way in ("`EXAMPLES = {", "`--examples FILE.py`", "calls recorded from your tests", "--calls calls.pkl"):
        assert way in INPUTS_HINT
    # given inputs, the unsafe fixes verify and are written
    (folder / "inputs.py").write_text(textwrap.dedent('''
        import jax.numpy as jnp

        EXAMPLES = {
            "sampling.power": [((jnp.array([1.0, 2.0]), 3), {})],
            "sampling.halve_until_small": [((jnp.array([0.5, 8.0]),), {}), ((jnp.array([0.5]),), {})],
        }
    '''))
    code = main(["check", "--fix", "--unsafe-fixes", "--verify", "--isolated", "--no-cache", "--no-reason",
                 "--device", "cpu", "--examples", str(folder / "inputs.py"), str(folder / "sampling.py")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"power (line 7): {VERIFIED}" in out and f"halve_until_small (line 15): {VERIFIED}" in out, out
    assert "sampling.py" in _changed(folder)


def test_unsafe_fixes_verified_with_derived_inputs_are_written(tmp_path, capsys):
    """Without --no-derive the functions without inputs get some from the code: the unsafe fixes verify."""
    folder = _copy_examples(tmp_path)
    code = main(["check", "--fix", "--unsafe-fixes", "--verify", "--isolated", "--no-cache", "--no-reason",
                 "--device", "cpu", str(folder)])
    out = capsys.readouterr().out
    changed = _changed(folder)
    assert code == 1, out  # noisy_update's other findings have no fix
    for name in ("train_step (line 24)", "power (line 7)", "halve_until_small (line 15)", "noisy_update (line 12)"):
        assert f"{name}: {VERIFIED} -- " in out and "(derived from the code)" in out, out
    assert set(changed) == {"logging_state.py", "sampling.py", "training.py"}
    assert "lax.while_loop" in changed["sampling.py"][1] and "lax.cond" in changed["training.py"][1]
    assert "no inputs" not in out
