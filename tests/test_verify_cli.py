"""``jitlint verify`` and ``jitlint check --fix --verify`` from the command line."""
from __future__ import annotations

import importlib.util
import json
import textwrap

import pytest

from jitlint.cli import main

#: the verifier's subprocesses need jax; this process never imports it (the runner tests fork)
pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


#: lax.cond with a Python int in one branch and a float32 in the other does not trace;
#: the second rewrite is right
MIXED = src('''
    import jax
    import jax.numpy as jnp


    @jax.jit
    def relu_total(x):
        total = 0
        if x.sum() > 0:
            total = x.sum()
        return total


    @jax.jit
    def clip_low(x):
        if x.min() < 0:
            x = x - x.min()
        return x


    EXAMPLES = {
        "relu_total": [((jnp.array([1.0, -2.0, 3.0]),), {})],
        "clip_low": [((jnp.array([1.0, -2.0, 3.0]),), {})],
    }
''')
ONLY_BAD = MIXED[: MIXED.index("@jax.jit\ndef clip_low")] + src('''
    EXAMPLES = {"relu_total": [((jnp.array([1.0, -2.0, 3.0]),), {})]}
''')


def test_fix_verify_writes_only_the_fixes_that_verified(tmp_path, capsys):
    path = tmp_path / "mixed.py"
    path.write_text(MIXED)
    code = main(["check", "--fix", "--unsafe-fixes", "--verify", "--no-reason", "--isolated", str(path)])
    out = capsys.readouterr().out
    assert code == 1
    text = path.read_text()
    assert "    x = lax.cond(x.min() < 0, lambda x: x - x.min(), lambda x: x, x)\n" in text
    assert "    total = 0\n    if x.sum() > 0:\n        total = x.sum()\n" in text  # put back as it was
    assert "relu_total (line 5): fails to trace -- TypeError: cond branches must have equal output types" in out
    assert "clip_low (line 13): verified -- 1 input (EXAMPLES) + 1 generated, branches 2/2 sides" in out
    assert "Fixed 1 finding in 1 file; 1 remaining." in out
    assert f"{path}:9:8: JIT201" in out  # the finding whose fix was withheld, in the written file


def test_fix_verify_leaves_a_file_unchanged_when_its_fix_fails(tmp_path, capsys):
    path = tmp_path / "only_bad.py"
    path.write_bytes(ONLY_BAD.encode())
    code = main(["check", "--fix", "--unsafe-fixes", "--verify", "--isolated", str(path)])
    out = capsys.readouterr().out
    assert code == 1
    assert path.read_bytes() == ONLY_BAD.encode()
    assert "relu_total (line 5): fails to trace" in out
    assert "Fixed 0 findings in 0 files; 1 remaining." in out
    # the withheld fix is advice now, not "available": a second run makes and withholds it again
    assert "= suggestion: Use `lax.cond` (traces both branches) -- withheld: the verifier rejected it " \
           "(fails to trace)" in out
    assert "unsafe fix available" not in out
    assert main(["check", "--fix", "--unsafe-fixes", "--verify", "--isolated", str(path)]) == 1
    again = capsys.readouterr().out
    assert path.read_bytes() == ONLY_BAD.encode()
    assert again.split("[")[0] == out.split("[")[0]  # the same report, up to the timings


def test_verify_command_json_with_an_examples_file_and_a_fixed_file(tmp_path, capsys):
    clean = MIXED.replace("total = 0\n", "total = 0.0\n")
    (tmp_path / "clean.py").write_text(clean)
    (tmp_path / "examples.py").write_text(src('''
        import jax.numpy as jnp

        EXAMPLES = {"clean.relu_total": [((jnp.array([-1.0, -2.0]),), {}), ((jnp.array([4.0]),), {})]}
    '''))
    code = main(["verify", "--isolated", "--device", "cpu", "--format", "json", "--examples",
                 str(tmp_path / "examples.py"), str(tmp_path / "clean.py")])
    data = json.loads(capsys.readouterr().out)
    assert code == 0, data
    assert data["device"] == "cpu"
    by_name = {f["function"]: f for f in data["functions"]}
    assert by_name["relu_total"]["verdict"] == "verified"
    assert by_name["relu_total"]["input_source"] == "--examples" and by_name["relu_total"]["inputs"] == 2
    assert by_name["clip_low"]["input_source"] == "EXAMPLES"
    assert data["counts"]["verified"] == 2
    # a rewrite of your own, with one sign wrong
    wrong = tmp_path / "mine.py"
    wrong.write_text(clean.replace("    if x.min() < 0:\n        x = x - x.min()\n",
                                   "    x = jnp.where(x.min() < 0, x + x.min(), x)\n"))
    code = main(["verify", "--isolated", "--fixed", str(wrong), str(tmp_path / "clean.py")])
    out = capsys.readouterr().out
    assert code == 1
    assert "clip_low (line 13): mismatch -- worst leaf (result): max abs error 4, max rel error inf on input #1" \
        in out
    assert "relu_total (line 5): no fix -- as it is, under jit it fails: jax.errors.TracerBoolConversionError" in out


def test_usage_errors_and_nothing_to_verify(tmp_path, capsys):
    ok = tmp_path / "ok.py"
    ok.write_text("import jax\n\n\n@jax.jit\ndef f(x):\n    return x + 1\n")
    assert main(["verify", "--isolated", str(ok)]) == 0
    assert capsys.readouterr().out.endswith("0 functions verified or checked: nothing to verify\n")
    assert main(["check", "--verify", str(ok)]) == 2
    assert "--verify needs --fix or --diff" in capsys.readouterr().err
    assert main(["verify", "-"]) == 2
    assert "code read from stdin cannot be imported" in capsys.readouterr().err
    assert main(["verify", "--examples", str(tmp_path / "missing.py"), str(ok)]) == 2
    assert "no such file" in capsys.readouterr().err
    other = tmp_path / "other.py"
    other.write_text(ok.read_text())
    assert main(["verify", "--fixed", str(ok), str(ok), str(other)]) == 2
    assert "--fixed needs exactly one PATH" in capsys.readouterr().err
