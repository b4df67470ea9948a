"""JIT900 unused-noqa: a `# noqa: JITxxx` that silences nothing is reported (when selected), judged
by every unit of the check, and fixed by taking the code out of the comment."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from frontend_support import run_cli
from jitlint.config import Config
from jitlint.engine import lint_source
from jitlint.fixing import fix_source

STALE = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x, n):
        if x > 0:  # noqa: JIT201
            y = x  # noqa: E501, JIT201, JIT999 - old
        z = jnp.sin(x)  # type: ignore  # noqa: JIT2
        w = x + 1  # noqa
        # noqa: JIT101
        s = "# noqa: JIT203"
        for i in range(n):  # noqa: JIT202,JIT301
            pass
        v = x * 2  # noqa: JIT201, JIT900
        return y + z + w + v
""")

FIXED = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x, n):
        if x > 0:  # noqa: JIT201
            y = x  # noqa: E501 - old
        z = jnp.sin(x)  # type: ignore
        w = x + 1  # noqa
        s = "# noqa: JIT203"
        for i in range(n):  # noqa: JIT202
            pass
        v = x * 2  # noqa: JIT201, JIT900
        return y + z + w + v
""")

SELECTED = Config(select=("JIT2", "JIT1", "JIT3", "JIT900"))


def _found(source: str, config: Config = SELECTED):
    result = lint_source(source, "m.py", config)
    assert result.error is None
    return [(d.line, d.column, d.message) for d in result.diagnostics if d.code == "JIT900"]


def test_off_by_default():
    assert _found(STALE, Config()) == []


def test_each_kind_of_unused_code_once_per_comment():
    assert _found(STALE) == [
        (8, 30, "unused `noqa` codes `JIT201`, `JIT999`: nothing of that code is found on this line; "
                "JIT999 is no jitlint rule"),
        (9, 45, "unused `noqa` code `JIT2`: nothing of that code is found on this line"),
        (11, 13, "unused `noqa` code `JIT101`: nothing of that code is found on this line"),
        (13, 40, "unused `noqa` code `JIT301`: nothing of that code is found on this line"),
    ]  # never: a code in use (7, 13), a blanket noqa (10), a string (12), a comment naming JIT900 (15)


def test_a_code_whose_rule_does_not_run_is_reported_with_an_unsafe_fix():
    source = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:  # noqa: JIT201\n        return x\n    return -x\n"
    assert _found(source) == []
    result = lint_source(source, "m.py", Config(select=("JIT900",)))
    (diag,) = result.diagnostics
    assert diag.message == "unused `noqa` code `JIT201`: JIT201 does not run for this file"
    assert diag.fix is not None and diag.fix.applicability.value == "unsafe"
    ignored = Config(select=("JIT", "JIT900"), per_file_ignores=(("m.py", ("JIT201",)),))
    assert [d.code for d in lint_source(source, "m.py", ignored).diagnostics] == ["JIT900"]


def test_the_fix_takes_out_the_unused_codes_and_is_safe():
    result = fix_source(STALE, "m.py", SELECTED)
    assert result.fixed == FIXED
    assert {a.applicability.value for a in result.applied} == {"safe"}
    assert _found(result.fixed) == []


def test_fix_keeps_line_endings_and_other_comments():
    source = "import jax\r\n\r\n@jax.jit\r\ndef f(x):\r\n    return x  # keep  # noqa: JIT201 why\r\n"
    assert fix_source(source, "m.py", SELECTED).fixed == source.replace("  # noqa: JIT201 why", "")
    alone = "import jax\n\n@jax.jit\ndef f(x):\n    # noqa: JIT201\n    return x\n"
    assert fix_source(alone, "m.py", SELECTED).fixed == alone.replace("    # noqa: JIT201\n", "")


def test_per_file_ignores_turn_it_off():
    config = Config(select=SELECTED.select, per_file_ignores=(("m.py", ("JIT900",)),))
    assert _found(STALE, config) == []


# ---------------------------------------------------------------------------------------- the whole check

HELPER = "def helper(x):\n    if x > 0:  # noqa: JIT201\n        return x\n    return -x  # noqa: JIT202\n"
CALLER = "import jax\n\nfrom pkg.util import helper\n\n\n@jax.jit\ndef f(x):\n    return helper(x)\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "util.py").write_text(HELPER)
    (tmp_path / "model.py").write_text(CALLER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("jobs", ["1", "4"])
def test_a_noqa_used_by_a_finding_from_another_module_is_not_reported(project, capsys, jobs):
    """The JIT201 in the helper comes from the unit of model.py (its caller): checked alone, or with
    the caller, and from the cache, the helper's first comment is in use, the second is not."""
    for argv in (["pkg/util.py"], ["pkg/util.py", "model.py", "pkg/__init__.py"], ["pkg/util.py"]):
        outcome = run_cli(capsys, "check", "--extend-select", "JIT900", "--no-reason", "-j", jobs,
                          "--cache-dir", str(project / ".cache"), *argv)
        assert outcome.out.splitlines()[:-1] == [
            "pkg/util.py:4:24: JIT900 unused `noqa` code `JIT202`: nothing of that code is found on this line"], argv
    assert run_cli(capsys, "check", "--no-cache", "pkg/util.py").status == 0  # off by default


def test_fix_through_the_cli_then_clean(project, capsys):
    outcome = run_cli(capsys, "check", "--no-cache", "--extend-select", "JIT900", "--fix", "pkg/util.py")
    assert outcome.status == 0, outcome.out
    assert (project / "pkg" / "util.py").read_text() == HELPER.replace("  # noqa: JIT202", "")
    assert run_cli(capsys, "check", "--no-cache", "--extend-select", "JIT900", ".").status == 0


def test_nothing_is_reported_when_a_unit_could_not_be_analysed(project, capsys):
    (project / "broken.py").write_text("import jax\n\n@jax.jit\ndef g(x:\n")
    outcome = run_cli(capsys, "check", "--no-cache", "--extend-select", "JIT900", "--no-reason",
                      "pkg/util.py", "broken.py")
    assert outcome.status == 1
    assert "JIT900" not in outcome.out and "broken.py:4" in outcome.err
