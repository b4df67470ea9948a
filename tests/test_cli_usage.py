"""Usage errors a newcomer makes, answered in one line with what was probably meant; `rule` and `rules`."""
from __future__ import annotations

import json

import pytest

from frontend_support import CLEAN, HAZARDS, run_cli, write
from jitlint.docs import rule_summary, rule_url
from jitlint.fixes import FIXABLE_CODES
from jitlint.registry import RULES_BY_CODE


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The current folder: src/ with a finding in it."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "src/model.py", HAZARDS.read_text())
    return tmp_path


# --- mistyped commands ----------------------------------------------------------------------------

@pytest.mark.parametrize("typo, meant", [("chekc", "check"), ("chek", "check"), ("rulse", "rule"), ("verfy", "verify"),
                                         ("sever", "server"), ("Check", "check")])
def test_a_mistyped_command_is_a_usage_error_with_a_suggestion(project, capsys, typo, meant):
    outcome = run_cli(capsys, typo, "src")
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err == f"jitlint: error: unknown command `{typo}`; did you mean `{meant}`?\n"


def test_a_bare_word_that_is_neither_a_command_nor_a_path_is_a_usage_error(project, capsys):
    outcome = run_cli(capsys, "lintify", "src")
    assert (outcome.status, outcome.out) == (2, "")
    assert outcome.err == ("jitlint: error: unknown command `lintify`, and no file or folder of that name "
                           "(commands: check, rule, rules, verify, server)\n")


def test_an_existing_file_or_folder_named_like_a_typo_is_checked(project, capsys):
    write(project, "chekc/model.py", HAZARDS.read_text())
    write(project, "verfy", CLEAN)  # a file without an extension
    folder = run_cli(capsys, "--no-reason", "chekc")
    assert folder.status == 1 and folder.out.startswith("chekc/model.py:")
    assert run_cli(capsys, "verfy").status == 0


def test_what_looks_like_a_path_is_a_path_even_when_it_does_not_exist(project, capsys):
    for path in ("missing.py", "src/missing", "./chekc"):
        outcome = run_cli(capsys, path)
        assert outcome.status == 1 and "cannot read" in outcome.err, path


def test_a_command_wins_over_a_folder_of_its_name_which_check_or_a_slash_reaches(project, capsys):
    write(project, "rules/model.py", HAZARDS.read_text())
    listing = run_cli(capsys, "rules")
    assert (listing.status, listing.out.split()[0]) == (0, "JIT101")
    for argv in (["check", "rules"], ["rules/"]):
        assert run_cli(capsys, "--no-reason", *argv).out.startswith("rules/model.py:"), argv


# --- one-line usage errors ------------------------------------------------------------------------

@pytest.mark.parametrize("argv, err", [
    (["--select", "JIT888"], "argument --select: unknown rule code or prefix: JIT888"),
    (["--ignore", "jit2o1"], "argument --ignore: unknown rule code or prefix: jit2o1; did you mean `JIT201`?"),
    (["--extend-select", "JIT3O3"], "argument --extend-select: unknown rule code or prefix: JIT3O3; "
                                    "did you mean `JIT303`?"),
    (["--select", "python-branch-on-tracer"], "argument --select: unknown rule code or prefix: "
                                              "python-branch-on-tracer; did you mean `JIT201` "
                                              "(python-branch-on-tracer)?"),
    (["--exit-zeroo"], "unrecognized arguments: --exit-zeroo; did you mean `--exit-zero`?"),
    (["--format", "xml"], "argument --format: invalid choice: 'xml' (choose from 'text', 'json', 'sarif', "
                          "'github')"),
])
def test_usage_errors_are_one_line_without_the_usage_block(project, capsys, argv, err):
    for command in (["check"], []):
        outcome = run_cli(capsys, *command, *argv, "src")
        assert (outcome.status, outcome.out, outcome.err) == (2, "", f"jitlint: error: {err}\n")


def test_help_still_prints_the_usage(capsys):
    outcome = run_cli(capsys, "check", "--help")
    assert outcome.status == 0 and outcome.out.startswith("usage: jitlint check")


# --- jitlint rule: by code, name or prefix --------------------------------------------------------

def test_rule_by_name_is_the_rule_by_code(capsys):
    by_name = run_cli(capsys, "rule", "python-branch-on-tracer")
    assert by_name.status == 0
    assert by_name.out == run_cli(capsys, "rule", "JIT201").out
    assert by_name.out.startswith("# JIT201 (python-branch-on-tracer)\n")


def test_rule_by_prefix_prints_every_rule_of_the_family(capsys):
    outcome = run_cli(capsys, "rule", "JIT2")
    headings = [line for line in outcome.out.splitlines() if line.startswith("# JIT")]
    assert headings == [f"# {code} ({RULES_BY_CODE[code].name})" for code in sorted(RULES_BY_CODE)
                        if code.startswith("JIT2")]
    assert len(headings) >= 4
    assert outcome.out == "\n".join(run_cli(capsys, "rule", code).out for code in sorted(RULES_BY_CODE)
                                    if code.startswith("JIT2"))


def test_unknown_rule_suggests_the_closest(capsys):
    assert run_cli(capsys, "rule", "python-branch-on-tracr").err == \
        "jitlint: error: unknown rule: python-branch-on-tracr; did you mean `JIT201` (python-branch-on-tracer)?\n"
    assert run_cli(capsys, "rule", "JIT2O2").err == "jitlint: error: unknown rule: JIT2O2; did you mean `JIT202`?\n"


# --- jitlint rules --format json ------------------------------------------------------------------

def test_rules_as_json(capsys):
    outcome = run_cli(capsys, "rules", "--format", "json")
    assert outcome.status == 0
    rules = json.loads(outcome.out)
    assert [r["code"] for r in rules] == sorted(RULES_BY_CODE)
    for item in rules:
        rule = RULES_BY_CODE[item["code"]]
        assert item == {"code": rule.code, "name": rule.name, "summary": rule_summary(rule),
                        "fixable": rule.code in FIXABLE_CODES, "on_by_default": rule.default_enabled,
                        "url": rule_url(rule.code)}
    assert any(r["fixable"] for r in rules) and not all(r["fixable"] for r in rules)
    text = [line.split() for line in run_cli(capsys, "rules").out.splitlines()]
    assert [(code, name, fix == "fix", default == "on") for code, name, fix, default in text] == \
        [(r["code"], r["name"], r["fixable"], r["on_by_default"]) for r in rules]
