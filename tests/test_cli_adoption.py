"""Flags for adopting jitlint on existing code: --exit-zero, --add-noqa, --show-settings, --show-files,
and the warning for a folder with nothing to check."""
from __future__ import annotations

import ast
import sys
import textwrap

import pytest

import jitlint.cli
from frontend_support import CLEAN, HAZARDS, HAZARDS_FINDINGS, SEEDED, run_cli, write
from jitlint.cli import add_noqa_directives
from jitlint.diagnostics import FileError, FileResult

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = None


# --- --exit-zero -----------------------------------------------------------------------------------

def test_exit_zero_with_findings(capsys):
    outcome = run_cli(capsys, "check", "--isolated", "--exit-zero", "--no-reason", str(HAZARDS))
    assert outcome.status == 0
    assert len(outcome.out.splitlines()) == len(HAZARDS_FINDINGS) + 1  # the findings are still reported


def test_exit_zero_with_a_diff_to_show(tmp_path, capsys):
    path = write(tmp_path, "seeded.py", SEEDED)
    assert run_cli(capsys, "check", "--isolated", "--diff", "--unsafe-fixes", str(path)).status == 1
    outcome = run_cli(capsys, "check", "--isolated", "--diff", "--unsafe-fixes", "--exit-zero", str(path))
    assert outcome.status == 0 and outcome.out.startswith("---")


def test_exit_zero_still_fails_on_usage_and_internal_errors(tmp_path, capsys, monkeypatch):
    assert run_cli(capsys, "check", "--exit-zero", "--select", "JIT999", str(HAZARDS)).status == 2
    assert run_cli(capsys, "check", "--exit-zero", "--fix", "--exit-non-zero-on-fix", str(HAZARDS)).status == 2

    def broken(args, config):
        return [FileResult("boom.py", error=FileError("boom.py", 1, 1, "internal error: boom", internal=True))]

    monkeypatch.setattr(jitlint.cli, "lint_all", broken)
    outcome = run_cli(capsys, "check", "--exit-zero", str(HAZARDS))
    assert (outcome.status, outcome.err) == (2, "boom.py:1:1: error: internal error: boom\n")


# --- --add-noqa ------------------------------------------------------------------------------------

#: every kind of line a finding can be on
LEGACY = textwrap.dedent('''\
    import jax

    @jax.jit
    def step(x, n):
        print("x =", x)  # noqa: E501
        if x.sum() > 0:  # the sign matters here
            x = x * 2
        for i in range(n): x = x + i
        print(f"{x:.3f}"); print(x)  # noqa:E501 because it is long
        s = """
        {}""".format(print(x))
        y = x + \\
            print(n)
        return x
''')


def lint_json(capsys, path) -> list:
    return run_cli(capsys, "check", "--isolated", "--no-cache", "--format", "json", str(path)).json()


def test_add_noqa_then_the_next_run_is_clean_and_the_file_still_parses(tmp_path, capsys):
    path = write(tmp_path, "legacy.py", LEGACY)
    before = {(d["line"], d["code"]) for d in lint_json(capsys, path)}
    assert len(before) >= 6
    outcome = run_cli(capsys, "check", "--isolated", "--no-cache", "--add-noqa", str(path))
    assert (outcome.status, outcome.out, outcome.err) == (0, f"Added {len(before) + 1} noqa directives.\n", "")
    text = path.read_text()
    ast.parse(text)
    assert lint_json(capsys, path) == []
    assert text.splitlines() == LEGACY.replace(
        '"x =", x)  # noqa: E501', '"x =", x)  # noqa: E501, JIT103').replace(
        "# the sign matters here", "# the sign matters here  # noqa: JIT201").replace(
        "x = x + i", "x = x + i  # noqa: JIT202").replace(
        "# noqa:E501 because", "# noqa:E501, JIT103, JIT303 because").replace(  # JIT303 was superseded by JIT103
        "{}\"\"\".format(print(x))", "{}\"\"\".format(print(x))  # noqa: JIT103").replace(
        "print(n)", "print(n)  # noqa: JIT103").splitlines()
    again = run_cli(capsys, "check", "--isolated", "--no-cache", "--add-noqa", str(path))
    assert (again.status, again.out) == (0, "Added 0 noqa directives.\n")
    assert path.read_text() == text


def test_a_line_that_ends_inside_a_string_or_continues_is_skipped_and_reported(tmp_path, capsys):
    source = textwrap.dedent('''\
        import jax

        @jax.jit
        def step(x):
            s = f"""{print(x)}
            """
            if x.sum() > 0 and \\
                    x.max() > 1:
                x = -x
            return x
    ''')
    path = write(tmp_path, "strings.py", source)
    outcome = run_cli(capsys, "check", "--isolated", "--no-cache", "--add-noqa", str(path))
    assert outcome.status == 1
    assert outcome.out == "Added 0 noqa directives (2 findings skipped).\n"
    assert outcome.err.splitlines() == [
        f"{path}:5: JIT103 not silenced: the line ends inside a string, where a comment would become part of it",
        f"{path}:7: JIT201 not silenced: the line continues with a backslash, which a comment cannot follow"]
    assert path.read_text() == source  # the string is unchanged


def test_add_noqa_keeps_line_endings_and_encoding(tmp_path, capsys):
    source = "# -*- coding: latin-1 -*-\n# café\n" + SEEDED
    path = tmp_path / "latin.py"
    path.write_bytes(source.replace("\n", "\r\n").encode("latin-1"))
    assert run_cli(capsys, "check", "--isolated", "--no-cache", "--add-noqa", str(path)).status == 0
    assert path.read_bytes() == source.replace("    if x > 0:", "    if x > 0:  # noqa: JIT201").replace(
        "\n", "\r\n").encode("latin-1")


def test_add_noqa_over_a_folder_honours_the_selection(tmp_path, capsys):
    write(tmp_path, "a.py", HAZARDS.read_text())
    write(tmp_path, "b/c.py", SEEDED)
    write(tmp_path, "clean.py", CLEAN)
    outcome = run_cli(capsys, "check", "--isolated", "--no-cache", "--select", "JIT2", "--add-noqa", str(tmp_path))
    assert outcome.status == 0
    assert run_cli(capsys, "check", "--isolated", "--no-cache", "--select", "JIT2", str(tmp_path)).status == 0
    assert {d["code"] for d in lint_json(capsys, tmp_path)} == {"JIT101", "JIT103"}
    assert (tmp_path / "clean.py").read_text() == CLEAN


def test_add_noqa_needs_files_and_no_fix(capsys):
    assert "cannot read `-`" in run_cli(capsys, "check", "--add-noqa", "-").err
    assert run_cli(capsys, "check", "--add-noqa", "--fix", str(HAZARDS)).status == 2


@pytest.mark.parametrize("line, codes, expected", [
    ("x = f(y)", {"JIT103"}, "x = f(y)  # noqa: JIT103"),
    ("x = f(y)   ", {"JIT201", "JIT103"}, "x = f(y)  # noqa: JIT103, JIT201"),
    ("x = f(y)  # noqa: E501,W291", {"JIT103"}, "x = f(y)  # noqa: E501,W291, JIT103"),
    ("x = f(y)  # noqa: e501", {"JIT103"}, "x = f(y)  # noqa: e501, JIT103"),
    ("x = f('# not a comment')  # note", {"JIT103"}, "x = f('# not a comment')  # note  # noqa: JIT103"),
])
def test_noqa_directives_merge_with_the_comment_of_the_line(line, codes, expected):
    assert add_noqa_directives(line + "\n", {1: codes}) == (expected + "\n", len(codes), [])


def test_a_noqa_that_jitlint_would_not_read_is_not_added():
    """A `# noqa: E501` inside a string earlier on the line is the one jitlint reads."""
    line = "x = f('# noqa: E501')\n"
    text, added, skipped = add_noqa_directives(line, {1: {"JIT103"}})
    assert (text, added) == (line, 0)
    assert [(n, code) for n, code, _ in skipped] == [(1, "JIT103")]


# --- --show-settings and --show-files --------------------------------------------------------------

def test_show_settings_prints_the_configuration_after_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", '[tool.jitlint]\nselect = ["JIT2"]\nexclude = ["gen"]\n'
                                      '[tool.jitlint.per-file-ignores]\n"tests/*" = ["JIT201"]\n')
    write(tmp_path, "src/model.py", SEEDED)
    outcome = run_cli(capsys, "check", "--show-settings", "--extend-select", "JIT303", "--ignore", "JIT204", "src")
    assert (outcome.status, outcome.err) == (0, "")
    assert f"# read from: {tmp_path / 'pyproject.toml'}" in outcome.out.splitlines()
    assert "# rules that run: JIT201 JIT202 JIT203 JIT303" in outcome.out.splitlines()
    if tomllib is not None:
        settings = tomllib.loads(outcome.out)["tool"]["jitlint"]  # valid TOML, as a configuration file has it
        expected = {"select": ["JIT2", "JIT303"], "ignore": ["JIT204"], "exclude": ["gen"],
                    "per-file-ignores": {"tests/*": ["JIT201"]}, "extend-exclude": [], "extend-jit-decorators": []}
        assert {key: settings.get(key) for key in expected} == expected


def test_show_settings_without_a_configuration_file(tmp_path, capsys):
    outcome = run_cli(capsys, "check", "--isolated", "--show-settings", str(tmp_path))
    assert outcome.status == 0
    assert "# read from: no configuration file (--isolated)" in outcome.out
    assert "# select: not set (the rules on by default run)" in outcome.out


def test_show_files_lists_what_a_check_reads(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("src/b.py", "src/a.py", "src/pkg/c.pyi", "src/build/d.py", "src/notes.txt", "tests/t.py"):
        write(tmp_path, name, CLEAN)
    outcome = run_cli(capsys, "check", "--isolated", "--show-files", "--extend-exclude", "tests", "src", "tests",
                      "src/a.py")
    assert (outcome.status, outcome.err) == (0, "")
    assert outcome.out.splitlines() == ["src/a.py", "src/b.py", "src/pkg/c.pyi", "tests/t.py"]


# --- a folder with nothing to check ---------------------------------------------------------------

def test_a_folder_without_python_files_is_a_warning_not_a_pass(tmp_path, capsys):
    write(tmp_path, "docs/index.md", "# hi\n")
    outcome = run_cli(capsys, "check", "--isolated", str(tmp_path / "docs"))
    assert (outcome.status, outcome.out, outcome.err) == (
        0, "", f"warning: no Python files found in {tmp_path / 'docs'}\n")
    assert run_cli(capsys, "check", "--isolated", "-q", str(tmp_path / "docs")).err == ""


def test_an_empty_folder_beside_files_is_warned_of_and_the_rest_reported(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    path = write(tmp_path, "clean.py", CLEAN)
    outcome = run_cli(capsys, "check", "--isolated", str(tmp_path / "empty"), str(path))
    assert (outcome.status, outcome.out) == (0, "All checks passed.\n")
    assert outcome.err == f"warning: no Python files found in {tmp_path / 'empty'}\n"
