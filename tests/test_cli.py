"""`jitlint check`: paths, stdin, selection, formats, excludes and exit codes."""
from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

import jitlint
import jitlint.cli
from jitlint.registry import RULES_BY_CODE
from frontend_support import (CLEAN, HAZARDS, HAZARDS_FINDINGS, SEEDED, SEEDED_FINDING, console_script, run_cli,
                              run_process, write)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """pkg/ with findings two folders down, a clean module and a non-Python file."""
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/clean.py", CLEAN)
    write(tmp_path, "pkg/models/deep/relu.py", SEEDED)
    write(tmp_path, "pkg/notes.txt", SEEDED)
    return tmp_path


def feed_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


# --- paths ---------------------------------------------------------------------------------------

def test_check_file_reports_each_finding_with_location(capsys):
    outcome = run_cli(capsys, "check", "--format", "json", str(HAZARDS))
    assert outcome.status == 1
    assert outcome.findings() == HAZARDS_FINDINGS


def test_check_is_the_default_command(capsys):
    explicit = run_cli(capsys, "check", str(HAZARDS))
    short = run_cli(capsys, str(HAZARDS))
    assert short == explicit
    assert short.status == 1


def test_clean_file_exits_0_and_says_so(tmp_path, capsys):
    path = write(tmp_path, "clean.py", CLEAN)
    outcome = run_cli(capsys, "check", str(path))
    assert (outcome.status, outcome.out, outcome.err) == (0, "All checks passed.\n", "")


def test_folder_is_walked_recursively_for_python_files_only(tree, capsys):
    outcome = run_cli(capsys, "check", "--format", "json", str(tree))
    assert outcome.located() == {("relu.py", *SEEDED_FINDING[::2])}
    assert outcome.json()[0]["path"] == str(tree / "pkg" / "models" / "deep" / "relu.py")


def test_files_are_reported_once_and_in_sorted_order(tmp_path, capsys):
    b = write(tmp_path, "b.py", SEEDED)
    a = write(tmp_path, "a.py", SEEDED)
    outcome = run_cli(capsys, "check", "--format", "json", str(tmp_path), str(a), str(b))
    assert [d["path"] for d in outcome.json()] == [str(a), str(b)]


def test_relative_folder_paths_are_reported_without_dot_slash(tree, capsys, monkeypatch):
    monkeypatch.chdir(tree)
    outcome = run_cli(capsys, "check", "--no-reason", "-q")
    assert outcome.out == "pkg/models/deep/relu.py:5:8: JIT201 Python `if` on traced value `x > 0`\n"


def test_without_paths_the_current_folder_is_checked(tree, capsys, monkeypatch):
    monkeypatch.chdir(tree / "pkg")
    outcome = run_cli(capsys, "--format", "json")
    assert [d["path"] for d in outcome.json()] == ["models/deep/relu.py"]


# --- excludes ------------------------------------------------------------------------------------

@pytest.mark.parametrize("folder", [".git", ".venv", "venv", "build", "dist", "__pycache__", "node_modules",
                                    "pkg.egg-info", ".tox"])
def test_default_excludes_skip_tool_folders(tmp_path, capsys, folder):
    write(tmp_path, f"{folder}/hazard.py", SEEDED)
    write(tmp_path, "src/hazard.py", SEEDED)
    outcome = run_cli(capsys, "check", "--format", "json", str(tmp_path))
    assert [d["path"] for d in outcome.json()] == [str(tmp_path / "src" / "hazard.py")]


def test_any_virtual_environment_is_skipped_whatever_its_name(tmp_path, capsys):
    write(tmp_path, "py311env/pyvenv.cfg", "home = /usr/bin\n")
    write(tmp_path, "py311env/lib/site.py", SEEDED)
    outcome = run_cli(capsys, "check", str(tmp_path))
    assert (outcome.status, outcome.out, outcome.err) == (0, "", f"warning: no Python files found in {tmp_path}\n")


def test_a_folder_named_on_the_command_line_is_linted_even_if_excluded(tmp_path, capsys):
    path = write(tmp_path, "build/hazard.py", SEEDED)
    outcome = run_cli(capsys, "check", "--format", "json", str(tmp_path / "build"))
    assert [d["path"] for d in outcome.json()] == [str(path)]


def test_exclude_option_adds_to_the_defaults(tmp_path, capsys):
    write(tmp_path, "generated/a.py", SEEDED)
    write(tmp_path, "build/a.py", SEEDED)
    write(tmp_path, "src/a.py", SEEDED)
    outcome = run_cli(capsys, "check", "--format", "json", "--exclude", "generated", str(tmp_path))
    assert [d["path"] for d in outcome.json()] == [str(tmp_path / "src" / "a.py")]


def test_exclude_patterns_match_file_names_and_paths(tmp_path, capsys):
    write(tmp_path, "src/legacy_model.py", SEEDED)
    write(tmp_path, "src/vendor/lib.py", SEEDED)
    write(tmp_path, "other/vendor/lib.py", SEEDED)
    write(tmp_path, "src/model.py", SEEDED)
    outcome = run_cli(capsys, "check", "--format", "json", "--exclude", "legacy_*.py",
                      "--extend-exclude", "src/vendor", str(tmp_path))
    assert [Path(d["path"]).relative_to(tmp_path).as_posix() for d in outcome.json()] == [
        "other/vendor/lib.py", "src/model.py"]


# --- stdin ---------------------------------------------------------------------------------------

def test_stdin_is_linted_and_reported_under_stdin_filename(monkeypatch, capsys):
    feed_stdin(monkeypatch, SEEDED.encode())
    outcome = run_cli(capsys, "check", "-", "--stdin-filename", "src/relu.py")
    assert outcome.status == 1
    lines = outcome.out.splitlines()
    assert lines[0] == "src/relu.py:5:8: JIT201 Python `if` on traced value `x > 0`"
    assert lines[1:3] == [" 5 |     if x > 0:", "   |        ^^^^^"]


def test_stdin_without_a_filename_is_reported_as_dash(monkeypatch, capsys):
    feed_stdin(monkeypatch, SEEDED.encode())
    outcome = run_cli(capsys, "-", "--format", "json")
    assert [(d["path"], d["line"], d["column"], d["code"]) for d in outcome.json()] == [("-", 5, 8, "JIT201")]


def test_stdin_can_be_given_once(monkeypatch, capsys):
    feed_stdin(monkeypatch, SEEDED.encode())
    outcome = run_cli(capsys, "check", "-", "-")
    assert outcome.status == 2
    assert outcome.err == "jitlint: error: `-` (stdin) can be given once\n"


# --- selection -----------------------------------------------------------------------------------

@pytest.mark.parametrize("options, codes", [
    ([], ["JIT103", "JIT201", "JIT202", "JIT101", "JIT203", "JIT203"]),
    (["--select", "JIT2"], ["JIT201", "JIT202", "JIT203", "JIT203"]),
    (["--select", "jit1"], ["JIT103", "JIT101"]),
    (["--select", "JIT101,JIT202"], ["JIT202", "JIT101"]),
    (["--select", "JIT101", "--select", "JIT202"], ["JIT202", "JIT101"]),
    (["--ignore", "JIT2"], ["JIT103", "JIT101"]),
    (["--ignore", "JIT203,JIT103"], ["JIT201", "JIT202", "JIT101"]),
    (["--select", "JIT2", "--ignore", "JIT203"], ["JIT201", "JIT202"]),
    (["--select", "JIT203", "--ignore", "JIT2"], ["JIT203", "JIT203"]),
    (["--select", "JIT1", "--extend-select", "JIT202"], ["JIT103", "JIT202", "JIT101"]),
])
def test_select_and_ignore_by_code_or_prefix(capsys, options, codes):
    outcome = run_cli(capsys, "check", "--format", "json", *options, str(HAZARDS))
    assert [code for _, _, code in outcome.findings()] == codes


def test_ignoring_everything_found_exits_0(capsys):
    outcome = run_cli(capsys, "check", "--ignore", "JIT", str(HAZARDS))
    assert (outcome.status, outcome.out) == (0, "All checks passed.\n")


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_unknown_code_is_a_usage_error(capsys, option):
    outcome = run_cli(capsys, "check", option, "JIT888", str(HAZARDS))
    assert outcome.status == 2
    assert outcome.out == ""
    assert f"error: argument {option}: unknown rule code or prefix: JIT888" in outcome.err


# --- output formats ------------------------------------------------------------------------------

def test_json_report_has_the_documented_fields(capsys):
    outcome = run_cli(capsys, "check", "--format", "json", str(HAZARDS))
    report = outcome.json()
    assert len(report) == len(HAZARDS_FINDINGS)
    for item in report:
        assert list(item) == ["path", "line", "column", "end_line", "end_column", "code", "message", "subject", "reason",
                             "fix", "url"]
        assert item["path"] == str(HAZARDS)
        assert item["fix"] is None or set(item["fix"]) == {"applicability", "title", "edits"}
        assert item["reason"] and all(isinstance(link, str) and link for link in item["reason"])
    range_finding = report[2]
    assert (range_finding["line"], range_finding["column"], range_finding["end_line"],
            range_finding["end_column"]) == (18, 14, 18, 22)  # `range(n)`
    assert range_finding["message"] == "`range()` with traced bound `n`"
    assert range_finding["subject"] == "range(n)"


def test_json_report_of_clean_code_is_an_empty_list(tmp_path, capsys):
    path = write(tmp_path, "clean.py", CLEAN)
    outcome = run_cli(capsys, "check", "--format", "json", str(path))
    assert (outcome.status, outcome.out) == (0, "[]\n")


def test_text_report_shows_location_source_carets_and_reason_chain(capsys):
    report = run_cli(capsys, "check", "--format", "json", str(HAZARDS)).json()
    text = run_cli(capsys, "check", str(HAZARDS)).out
    blocks = text.split("\n\n")
    assert len(blocks) == len(report) + 1
    branch, item = blocks[1].splitlines(), report[1]
    assert branch[0] == f"{HAZARDS}:16:8: JIT201 {item['message']}"
    assert branch[1:3] == [" 16 |     if x.sum() > 0:",
                           "    |        ^^^^^^^^^^^"]
    assert branch[3] == f"    = why: {item['reason'][0]}"
    assert branch[4:-1] == [f"           {link}" for link in item["reason"][1:]]
    assert branch[-1] == f"    = unsafe fix available: {item['fix']['title']}; run with --fix --unsafe-fixes"
    assert blocks[-1] == "Found 6 findings in 1 file (1 fixable with --fix, 5 more with --unsafe-fixes).\n"


def test_carets_line_up_under_wide_characters(tmp_path, capsys):
    path = write(tmp_path, "wide.py", SEEDED.replace("    if x > 0:", '    s = "漢字"; print(x)\n    if x > 0:'))
    lines = run_cli(capsys, "check", "--isolated", "--select", "JIT103", str(path)).out.splitlines()
    assert lines[0].startswith(f"{path}:5:15: JIT103 ")
    assert lines[1:3] == [' 5 |     s = "漢字"; print(x)',
                          "   |                 ^^^^^^^^"]


def test_no_reason_prints_one_line_per_finding(capsys):
    outcome = run_cli(capsys, "check", "--no-reason", str(HAZARDS))
    lines = outcome.out.splitlines()
    assert [line.split(": ")[0] for line in lines[:-1]] == [
        f"{HAZARDS}:{line}:{column}" for line, column, _ in HAZARDS_FINDINGS]
    assert lines[-1] == "Found 6 findings in 1 file (1 fixable with --fix, 5 more with --unsafe-fixes)."


def test_quiet_leaves_out_the_summary(tmp_path, capsys):
    path = write(tmp_path, "clean.py", CLEAN)
    assert run_cli(capsys, "check", "-q", str(path)).out == ""
    assert not run_cli(capsys, "check", "-q", "--no-reason", str(HAZARDS)).out.startswith("Found")


def test_output_file_receives_the_report(tmp_path, capsys):
    target = tmp_path / "report.json"
    outcome = run_cli(capsys, "check", "--format", "json", "--output-file", str(target), str(HAZARDS))
    assert (outcome.status, outcome.out) == (1, "")
    assert len(__import__("json").loads(target.read_text())) == len(HAZARDS_FINDINGS)


# --- exit codes and errors -----------------------------------------------------------------------

def test_usage_errors_exit_2(capsys):
    outcome = run_cli(capsys, "check", "--no-such-option", str(HAZARDS))
    assert outcome.status == 2
    assert "unrecognized arguments: --no-such-option" in outcome.err


def test_help_and_version_exit_0(capsys):
    assert run_cli(capsys, "--help").status == 0
    version = run_cli(capsys, "--version")
    assert (version.status, version.out) == (0, f"jitlint {jitlint.__version__}\n")


def test_internal_error_exits_2_without_traceback_and_the_rest_is_linted(tmp_path, capsys, monkeypatch):
    write(tmp_path, "a_boom.py", CLEAN)
    write(tmp_path, "b_relu.py", SEEDED)
    import jitlint.engine

    real = jitlint.engine.analyse_unit

    def explode_on_boom(path, *args, **kwargs):
        if path.endswith("a_boom.py"):
            raise RuntimeError("boom")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(jitlint.engine, "analyse_unit", explode_on_boom)
    outcome = run_cli(capsys, "check", "--no-reason", str(tmp_path))
    assert outcome.status == 2
    assert outcome.err == f"{tmp_path / 'a_boom.py'}:1:1: error: internal error: RuntimeError: boom\n"
    assert outcome.out.startswith(f"{tmp_path / 'b_relu.py'}:5:8: JIT201 ")


def test_failure_outside_any_file_exits_2_without_traceback(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("no files today")

    monkeypatch.setattr(jitlint.cli, "iter_files", broken)
    outcome = run_cli(capsys, "check", str(HAZARDS))
    assert (outcome.status, outcome.err) == (2, "jitlint: internal error: ValueError: no files today\n")


class ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_closed_stdout_keeps_the_exit_status_and_prints_no_traceback(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert jitlint.cli.main(["check", "--isolated", str(HAZARDS)]) == 1
    assert capsys.readouterr().err == ""


def test_rule_documentation_and_listing(capsys):
    doc = run_cli(capsys, "rule", "jit202")
    assert doc.status == 0
    assert doc.out.startswith("# JIT202 (range-over-tracer)\n\n## What it does")
    listing = run_cli(capsys, "rules")
    codes = [line.split()[0] for line in listing.out.splitlines()]
    assert codes == sorted(RULES_BY_CODE)
    assert {"JIT101", "JIT102", "JIT103", "JIT104", "JIT201", "JIT202", "JIT203"} <= set(codes)
    assert run_cli(capsys, "rule", "JIT888").err == "jitlint: error: unknown rule: JIT888\n"


# --- installed entry points ----------------------------------------------------------------------

def test_console_script_runs_check(tmp_path):
    outcome = run_process([console_script(), "check", "--format", "json", str(HAZARDS)], cwd=tmp_path)
    assert outcome.status == 1, outcome.err
    assert outcome.findings() == HAZARDS_FINDINGS


def test_console_script_reads_stdin(tmp_path):
    outcome = run_process([console_script(), "-", "--stdin-filename", "relu.py", "--no-reason", "-q"],
                          cwd=tmp_path, stdin=SEEDED.encode())
    assert (outcome.status, outcome.out) == (1, "relu.py:5:8: JIT201 Python `if` on traced value `x > 0`\n")


def test_python_dash_m_jitlint(tmp_path):
    clean = write(tmp_path, "clean.py", CLEAN)
    outcome = run_process([sys.executable, "-m", "jitlint", "check", str(clean)], cwd=tmp_path)
    assert (outcome.status, outcome.out) == (0, "All checks passed.\n")


def test_linting_never_imports_jax(tmp_path):
    """With `import jax` made to fail, the CLI still finds every hazard."""
    code = ("import sys; sys.modules['jax'] = None; from jitlint.cli import main; "
            f"raise SystemExit(main(['check', '--format', 'json', {str(HAZARDS)!r}]))")
    outcome = run_process([sys.executable, "-c", code], cwd=tmp_path)
    assert outcome.status == 1, outcome.err
    assert outcome.findings() == HAZARDS_FINDINGS
    probe = run_process([sys.executable, "-c", "import sys; sys.modules['jax'] = None; import jax"], cwd=tmp_path)
    assert "import of jax halted" in probe.err


def test_linting_loads_no_jax_module(tmp_path):
    code = ("import sys; from jitlint.cli import main; main(['check', '-q', '--no-reason', "
            f"{str(HAZARDS)!r}]); print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'jaxlib')))")
    outcome = run_process([sys.executable, "-c", code], cwd=tmp_path)
    assert outcome.out.splitlines()[-1] == "[]"


def test_check_spares_the_last_collection_what_the_analysis_left(monkeypatch, capsys):
    """The analysis leaves its trees in reference cycles: a check has the process's last garbage
    collection skip them (``gc.freeze`` at exit), registered once however often it runs."""
    import gc

    registered = []
    monkeypatch.setattr(jitlint.cli, "_QUICK_EXIT", False)
    monkeypatch.setattr(jitlint.cli.atexit, "register", lambda fn, *args: registered.append(fn))
    for _ in range(2):
        assert run_cli(capsys, "check", "--no-cache", str(HAZARDS)).status == 1
    assert registered == [gc.freeze]
    assert run_cli(capsys, "rule", "JIT201").status == 0 and registered == [gc.freeze]


def test_deferred_collection_frees_a_files_garbage_when_the_next_file_starts(monkeypatch):
    """In a process that ends with its check, the garbage one paused block leaves (the analysis's
    reference cycles) is collected when the next block starts, and the collector stays off in
    between: the last block's garbage is never walked."""
    import gc
    import weakref

    from jitlint import source

    class Node:
        pass

    monkeypatch.setattr(source._Deferral, "on", True)
    monkeypatch.setattr(source._Deferral, "depth", 0)
    monkeypatch.setattr(source._Deferral, "pending", False)
    was_enabled = gc.isenabled()
    try:
        with source.collector_paused():
            with source.collector_paused():  # (a nested block: the outer one decides)
                node = Node()
                node.me = node  # a cycle: only the collector frees it
                ref = weakref.ref(node)
            assert source._Deferral.pending is False
        del node
        assert not gc.isenabled() and source._Deferral.pending
        assert ref() is not None  # left for now
        with source.collector_paused():
            assert ref() is None  # freed before the next block's work
        assert source._Deferral.pending
    finally:
        if was_enabled:
            gc.enable()


def test_only_jitlints_own_process_defers_collection(monkeypatch, capsys):
    """`main(argv)` (a caller's process: a test, a script) leaves the collector as it was."""
    import gc

    from jitlint import source

    monkeypatch.setattr(source._Deferral, "on", False)
    assert run_cli(capsys, "check", "--no-cache", str(HAZARDS)).status == 1
    assert source._Deferral.on is False
    monkeypatch.setattr(jitlint.cli.sys, "argv", ["jitlint", "rule", "JIT201"])
    assert jitlint.cli.main() == 0 and source._Deferral.on is False  # not a check
    monkeypatch.setattr(jitlint.cli.sys, "argv", ["jitlint", "check", "--no-cache", str(HAZARDS)])
    monkeypatch.setattr(source._Deferral, "pending", False)
    was_enabled = gc.isenabled()
    try:
        assert jitlint.cli.main() == 1 and source._Deferral.on is True
        assert not gc.isenabled()  # the last file's garbage is left to the end of the process
    finally:
        if was_enabled:
            gc.enable()


def test_output_of_a_check_is_whole_when_the_process_ends(tmp_path):
    """With the last collection skipped, everything written still reaches its file."""
    report = tmp_path / "report.json"
    outcome = run_process([sys.executable, "-m", "jitlint", "check", "--format", "json", "--output-file",
                           str(report), str(HAZARDS)], cwd=tmp_path)
    assert outcome.status == 1, outcome.err
    assert sorted((f["line"], f["column"], f["code"]) for f in json.loads(report.read_text())) == \
        sorted(HAZARDS_FINDINGS)
