"""Applying fixes: edits, the fixed-point loop, atomic writes, and the `--fix` / `--diff` front ends."""
import io
import json
import os
import stat
import subprocess
import sys

import pytest

from jitlint.cli import main
from jitlint.config import Config
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.engine import lint_source
from jitlint.fixing import apply_fixes, fix_bytes, fix_file, fix_source, unified_diff, write_atomic

FIXABLE = (
    "import jax\n"
    "import jax.numpy as jnp\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def f(x):\n"
    "    print(\"x\", x)  # keep me\n"
    "    return x if x > 0 else -x\n"
)
SAFE_FIXED = FIXABLE.replace('print("x", x)', 'jax.debug.print("x {!s}", x)')
ALL_FIXED = SAFE_FIXED.replace("x if x > 0 else -x", "jnp.where(x > 0, x, -x)")
CLEAN = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x * 2\n"


def fix_of(*edits, applicability=Applicability.SAFE):
    return Fix(applicability, "test", tuple(edits))


# ---------------------------------------------------------------- edits


def test_non_overlapping_fixes_are_all_applied():
    text, taken = apply_fixes("abcdef", [fix_of(Edit(0, 1, "A")), fix_of(Edit(4, 5, "E"))])
    assert (text, taken) == ("AbcdEf", [0, 1])


def test_overlapping_and_touching_fixes_wait_for_the_next_round():
    fixes = [fix_of(Edit(1, 3, "X")), fix_of(Edit(2, 4, "Y")), fix_of(Edit(3, 3, "Z")), fix_of(Edit(5, 5, "W"))]
    text, taken = apply_fixes("abcdef", fixes)
    assert (text, taken) == ("aXdeWf", [0, 3])


def test_identical_edits_of_two_fixes_are_applied_once():
    shared = Edit(0, 0, "import x\n")
    text, taken = apply_fixes("a\nb\n", [fix_of(shared, Edit(2, 3, "B")), fix_of(shared, Edit(0, 1, "A"))])
    # the second fix's own edit touches the shared insertion point: it waits
    assert text == "import x\na\nB\n" and taken == [0]
    text, taken = apply_fixes("a\nb\nc\n", [fix_of(shared, Edit(2, 3, "B")), fix_of(shared, Edit(4, 5, "C"))])
    assert text == "import x\na\nB\nC\n" and taken == [0, 1]


def test_edits_outside_the_text_are_ignored():
    assert apply_fixes("abc", [fix_of(Edit(2, 9, "x"))]) == ("abc", [])


# --------------------------------------------------------------- loop


def test_safe_fixes_only_unless_unsafe():
    assert fix_source(FIXABLE).fixed == SAFE_FIXED
    assert fix_source(FIXABLE, unsafe=True).fixed == ALL_FIXED


def test_fixed_point_and_round_cap():
    source = FIXABLE.replace("x if x > 0 else -x", "x if x > 0 else (-x if x < -1 else 0.0)")
    full = fix_source(source, unsafe=True)
    assert full.converged and full.rounds >= 2
    capped = fix_source(source, unsafe=True, max_rounds=1)
    assert capped.rounds == 1
    assert capped.fixed != full.fixed


def test_a_fix_that_breaks_the_code_is_not_applied(monkeypatch):
    from dataclasses import replace

    def attach(findings, index, facts, source=None):
        broken = Fix(Applicability.SAFE, "broken", (Edit(0, 0, "def (:\n"),))
        return [replace(f, fix=broken) for f in findings]

    monkeypatch.setattr("jitlint.fixes.attach_fixes", attach)
    result = fix_source(FIXABLE, unsafe=True)
    assert result.fixed == FIXABLE
    assert result.error is not None and result.error.internal


@pytest.mark.parametrize("source", [
    FIXABLE.replace("@jax.jit", "\f@jax.jit"),  # a form feed that starts a line of code
    FIXABLE.replace("\n", "\r"),  # old Mac line endings: the final lone CR
], ids=["form-feed", "cr"])
def test_no_fix_is_offered_where_libcst_does_not_give_back_the_source(source, tmp_path):
    """LibCST drops these characters from its code, so edits computed on it would land off by
    one (the fuzz test found print fixes that mangled the line): the findings stay, unfixed."""
    result = lint_source(source)
    assert [(d.line, d.code, d.fix) for d in result.diagnostics] == [(7, "JIT103", None), (8, "JIT201", None)]
    assert fix_source(source, unsafe=True).fixed == source
    path = write(tmp_path, "f.py", source.encode())
    assert not fix_file(path, unsafe=True).written
    assert open(path, "rb").read() == source.encode()


def test_fixes_are_built_only_for_the_findings_reported(monkeypatch):
    """Nested conditional expressions on one line are n JIT201 findings and one report: building
    a fix for each took O(n) apiece, minutes for 1,000 of them.  Only reported findings get one."""
    import jitlint.fixes

    built = []
    real = jitlint.fixes.build_fix
    monkeypatch.setattr(jitlint.fixes, "build_fix", lambda code, node, ctx: built.append(code) or real(code, node, ctx))
    nested = " if x > 0 else ".join(["x"] * 50)
    source = FIXABLE.replace("return x if x > 0 else -x", f"return {nested}")
    result = lint_source(source)
    assert [(d.line, d.code) for d in result.diagnostics] == [(7, "JIT103"), (8, "JIT201")]
    assert sorted(built) == ["JIT103", "JIT201"]
    assert all(d.fix is not None for d in result.diagnostics)


def test_static_argnames_looks_at_a_function_once_for_all_its_findings(monkeypatch):
    """A chain of n ``elif`` is n findings in one function: each walked the whole function (900
    took a minute to fix); now once per function and parameter."""
    from jitlint.fixes import static_args

    walks = []
    real = static_args._only_static_uses
    monkeypatch.setattr(static_args, "_only_static_uses",
                        lambda fn, name, ctx: walks.append(name) or real(fn, name, ctx))
    chain = "".join(f"    elif n > {i}:\n        y = {i}\n" for i in range(50))
    source = f"import jax\n\n\n@jax.jit\ndef f(x, n):\n    if n > 0:\n        y = 0\n{chain}    return x * y\n"
    result = lint_source(source)
    assert len([d for d in result.diagnostics if d.code == "JIT201"]) == 51
    assert walks == ["n"]


def test_json_fix_edits_reproduce_the_fix():
    diag = [d for d in lint_source(FIXABLE).diagnostics if d.code == "JIT103"][0]
    payload = diag.to_json()["fix"]
    assert payload["applicability"] == "safe"
    assert payload["title"].startswith("Use `jax.debug.print`")
    text = FIXABLE
    for e in sorted(payload["edits"], key=lambda e: e["start"], reverse=True):
        text = text[: e["start"]] + e["content"] + text[e["end"]:]
    assert text == SAFE_FIXED


# ---------------------------------------------------------------- files


def write(tmp_path, name, data: bytes, mode=0o640):
    path = tmp_path / name
    path.write_bytes(data)
    os.chmod(path, mode)
    return str(path)


def test_write_atomic_keeps_the_mode_and_leaves_no_temp_file(tmp_path):
    path = write(tmp_path, "a.py", b"old\n", mode=0o751)
    write_atomic(path, b"new\n")
    assert open(path, "rb").read() == b"new\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    assert os.listdir(tmp_path) == ["a.py"]


def test_unchanged_files_are_not_written(tmp_path):
    path = write(tmp_path, "clean.py", CLEAN.encode())
    before = os.stat(path)
    outcome = fix_file(path, unsafe=True)
    after = os.stat(path)
    assert not outcome.written and outcome.error is None
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_a_file_that_does_not_parse_is_never_written(tmp_path):
    data = FIXABLE.encode() + b"def broken(:\n"
    path = write(tmp_path, "bad.py", data)
    outcome = fix_file(path, unsafe=True)
    assert outcome.error is not None and not outcome.written
    assert open(path, "rb").read() == data


@pytest.mark.parametrize("transform", [
    lambda s: s.replace("\n", "\r\n").encode(),
    lambda s: s.replace("    ", "\t").encode(),
    lambda s: b"\xef\xbb\xbf" + s.encode(),
    lambda s: ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + s).encode("latin-1"),
])
def test_everything_outside_the_rewritten_statements_is_kept(tmp_path, transform):
    data = transform(FIXABLE)
    expected = transform(SAFE_FIXED)
    path = write(tmp_path, "f.py", data)
    outcome = fix_file(path)
    assert outcome.written
    assert open(path, "rb").read() == expected


def test_fix_bytes_reports_undecodable_files():
    outcome = fix_bytes(b"x = '\xff'\n", "bad.py")
    assert outcome.error is not None and outcome.new_bytes is None


def test_unified_diff():
    diff = unified_diff("f.py", "a\nb\n", "a\nc\n")
    assert diff == "--- f.py\n+++ f.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"


# ------------------------------------------------------------------ cli


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    """The CLI's results cache (if any) lives outside the checked folders and starts empty."""
    monkeypatch.setenv("JITLINT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def run(capsys, *argv):
    status = main(["check", "--isolated", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_fix_writes_safe_fixes_and_reports_the_rest(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE.encode())
    status, out, err = run(capsys, "--fix", "--no-reason", path)
    assert open(path).read() == SAFE_FIXED
    assert status == 1  # the unsafe JIT201 fix was not applied: its finding remains
    assert f"{path}:8:" in out and "JIT201" in out
    assert "Fixed 1 finding in 1 file; 1 remaining (1 more fix with --unsafe-fixes)." in out


def test_cli_unsafe_fixes(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE.encode())
    status, out, _ = run(capsys, "--fix", "--unsafe-fixes", "--show-fixes", path)
    assert open(path).read() == ALL_FIXED
    assert status == 0
    assert "Fixed:\n" in out and "JIT103 [safe]" in out and "JIT201 [unsafe]" in out
    assert "Fixed 2 findings in 1 file; 0 remaining." in out


def test_cli_diff_writes_nothing(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE.encode())
    status, out, err = run(capsys, "--diff", "--unsafe-fixes", path)
    assert open(path).read() == FIXABLE
    assert status == 1
    assert out == unified_diff(path, FIXABLE, ALL_FIXED)
    assert "Would fix 2 findings in 1 file." in err
    clean = write(tmp_path, "clean.py", CLEAN.encode())
    status, out, err = run(capsys, "--diff", clean)
    assert (status, out) == (0, "")


def test_cli_json_carries_fixes(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE.encode())
    status, out, _ = run(capsys, "--format", "json", path)
    report = json.loads(out)
    fixes = {item["code"]: item["fix"] for item in report}
    assert fixes["JIT103"]["applicability"] == "safe"
    assert fixes["JIT201"]["applicability"] == "unsafe"
    assert set(fixes["JIT201"]["edits"][0]) == {"start", "end", "content", "line", "column", "end_line", "end_column"}
    assert open(path).read() == FIXABLE


def test_cli_show_fixes_without_fix_lists_what_is_available(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE.encode())
    status, out, _ = run(capsys, "--show-fixes", "--no-reason", path)
    assert "Available fixes:\n" in out
    assert f"{path}:7:5: JIT103 [safe] Use `jax.debug.print`" in out
    assert open(path).read() == FIXABLE


def test_cli_fix_from_stdin_prints_the_fixed_source(monkeypatch, capsys):
    stdin = io.TextIOWrapper(io.BytesIO(FIXABLE.encode()), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    status = main(["check", "--isolated", "--fix", "--unsafe-fixes", "-q", "-"])
    out, err = capsys.readouterr()
    assert out == ALL_FIXED
    assert status == 0


def test_flake8_never_writes(tmp_path):
    pytest.importorskip("flake8")
    path = write(tmp_path, "f.py", FIXABLE.encode())
    before = os.stat(path)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "JIT", path],
                          capture_output=True, text=True)
    assert "JIT103" in proc.stdout and "JIT201" in proc.stdout
    after = os.stat(path)
    assert open(path, "rb").read() == FIXABLE.encode()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_fixing_uses_the_configuration():
    config = Config(ignore=("JIT103",))
    assert fix_source(FIXABLE, config=config).fixed == FIXABLE


def _nested(depth: int) -> str:
    """Traced `if` / `while` / `for` nested ``depth`` levels deep: each rewrite overlaps the next."""
    lines = ["import jax", "import jax.numpy as jnp", "", "", "@jax.jit", "def f(x, y):"]
    for level in range(depth):
        indent = "    " * (level + 1)
        test = (f"if jnp.sum(x) > {level}:", f"while jnp.max(y) < {level}:", "for k in range(x.shape[0]):")[level % 3]
        lines += [indent + test, indent + "    y = y + 1"]
    return "\n".join(lines + ["    return y", ""])


@pytest.mark.parametrize("depth", [6, 8, 12])
def test_deep_nesting_is_fixed_to_a_fixed_point_in_one_run(tmp_path, capsys, depth):
    path = tmp_path / "nested.py"
    path.write_text(_nested(depth))
    main(["check", "--isolated", "--no-cache", "-q", "--fix", "--unsafe-fixes", str(path)])
    once = path.read_text()
    compile(once, str(path), "exec")
    capsys.readouterr()
    main(["check", "--isolated", "--no-cache", "-q", "--fix", "--unsafe-fixes", str(path)])
    assert path.read_text() == once


def test_a_fix_cut_short_by_the_round_cap_says_so(tmp_path, capsys):
    from jitlint.runner import fix_files

    path = tmp_path / "nested.py"
    path.write_text(_nested(8))
    outcome = fix_files([str(path)], Config(), unsafe=True, max_rounds=1)[str(path)]
    assert outcome.result is not None and not outcome.result.converged and outcome.result.rounds == 1


# ------------------------------------------------ lines of applied fixes

NESTED = (
    "import jax\n"
    "\n"
    "\n"
    "@jax.jit\n"
    "def f(x):\n"
    "    if x > 0:\n"
    "        if x > 1:\n"
    "            y = x * 2\n"
    "        else:\n"
    "            y = x\n"
    "    else:\n"
    "        y = -x\n"
    "    print(\"y\", y)\n"
    "    return y\n"
)


def test_line_origins_follow_the_edits():
    from jitlint.fixing import line_origins

    old = "a\nb\nc\nd\n"
    # b -> three lines (one of them b again), d untouched
    new, _ = apply_fixes(old, [fix_of(Edit(2, 4, "x\nb\ny\n"))])
    assert new == "a\nx\nb\ny\nc\nd\n"
    assert line_origins(old, new, [Edit(2, 4, "x\nb\ny\n")]) == [1, 2, 2, 2, 3, 4, 5]
    # a line removed: what follows moves up
    assert line_origins(old, "a\nc\nd\n", [Edit(2, 4, "")]) == [1, 3, 4, 5]


def test_fixes_of_later_rounds_carry_lines_of_the_original_text():
    # round 1 adds two imports and rewrites the outer if (lines 6-12); the inner if (line 7)
    # is fixed in round 2, on a text where it sits lower down
    result = fix_source(NESTED, unsafe=True)
    assert result.rounds == 2
    lines = NESTED.splitlines()
    where = {(a.code, lines[a.line - 1].strip()) for a in result.applied}
    assert where == {("JIT201", "if x > 0:"), ("JIT201", "if x > 1:"), ("JIT103", 'print("y", y)')}


def test_cli_show_fixes_lines_are_those_of_the_original_file(tmp_path, capsys):
    for mode in ("--fix", "--diff"):
        path = write(tmp_path, "f.py", NESTED.encode())
        status, out, _ = run(capsys, mode, "--unsafe-fixes", "--show-fixes", path)
        listed = out[out.index("Fixed:\n" if mode == "--fix" else "Fixes:\n"):].splitlines()[1:4]
        assert listed == [f"{path}:6: JIT201 [unsafe] Use `lax.cond` (traces both branches)",
                          f"{path}:7: JIT201 [unsafe] Use `jnp.where` (evaluates both branches)",
                          f"{path}:13: JIT103 [safe] Use `jax.debug.print`, which prints the values on every call"]


def test_a_round_never_removes_an_import_another_fix_of_it_uses():
    """One fix turns `@partial(jax.jit, static_argnames=("window",))` into `@jax.jit` and removes the import of
    `partial` it leaves unused; another, made against the same text, writes `@partial(jax.jit, ...)` on
    another function: applied in one round they would leave `partial` unbound (fixset53 1004)."""
    import ast

    from jitlint.config import Config
    from jitlint.fixing import fix_source

    source = (
        "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
        "@partial(jax.jit, static_argnames=(\"window\",))\n"
        "def smooth(x, window):\n    return x * window\n\n\n"
        "@jax.jit\n"
        "def keep(x, n_keep):\n    return jnp.sort(x)[:n_keep]\n\n\n"
        "def run(x):\n    return keep(smooth(x, jnp.float32(2.0)), 2)\n"
    )
    fixed = fix_source(source, "case.py", Config(), unsafe=True).fixed
    tree = ast.parse(fixed)
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert "partial" in used and "partial" in imported, fixed
    assert "static_argnames=(\"n_keep\",)" in fixed or "static_argnames=('n_keep',)" in fixed, fixed
