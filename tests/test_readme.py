"""The README, docs/index.md, examples/ and .ci/run say what is true."""
from __future__ import annotations

import os
import re

from frontend_support import EXAMPLES, REPO, run_cli
from jitlint.registry import RULES_BY_CODE

README = (REPO / "README.md").read_text(encoding="utf-8")
TRY_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/jitlint check examples/"
TEST_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -q"

#: (file, line, code) of what examples/ demonstrates; everything else there is correct code
EXAMPLE_FINDINGS = {
    ("logging_state.py", 14, "JIT104"),
    ("logging_state.py", 15, "JIT102"),
    ("logging_state.py", 16, "JIT104"),
    ("sampling.py", 10, "JIT202"),
    ("sampling.py", 17, "JIT203"),
    ("training.py", 27, "JIT103"),
    ("training.py", 28, "JIT201"),
    ("training.py", 30, "JIT101"),
}


def test_readme_opens_with_what_jitlint_is():
    assert README.startswith("# jitlint\n\njitlint is a static linter for JAX JIT-safety.")


def test_readme_gives_the_two_commands_exactly():
    fenced = re.findall(r"```sh\n(.*?)\n```", README, re.DOTALL)
    assert TRY_COMMAND in fenced
    assert TEST_COMMAND in fenced


def test_examples_show_each_demonstrated_hazard_and_nothing_else(capsys):
    outcome = run_cli(capsys, "check", "--isolated", "--format", "json", str(EXAMPLES))
    assert outcome.status == 1
    assert outcome.located() == EXAMPLE_FINDINGS


def test_readme_finding_is_what_jitlint_prints(capsys, monkeypatch):
    match = re.search(r"<!-- readme-finding:[^>]*-->\n```text\n(.*?)\n```", README, re.DOTALL)
    assert match, "README has lost its example finding"
    monkeypatch.chdir(REPO)
    printed = run_cli(capsys, "check", "--isolated", "examples/").out.split("\n\n")
    assert match.group(1) in [block.rstrip("\n") for block in printed], (
        "the finding in README.md is stale: paste the block `jitlint check examples/` prints for it")


def test_docs_index_links_every_rule_page_by_its_name():
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    links = dict(re.findall(r"\[(JIT\d+)\]\(rules/JIT\d+\.md\) ([a-z-]+)", index))
    assert links == {code: rule.name for code, rule in RULES_BY_CODE.items()}


def test_ci_script_runs_the_readme_test_command_in_a_fresh_venv():
    script = REPO / ".ci" / "run"
    assert os.access(script, os.X_OK)
    text = script.read_text(encoding="utf-8")
    assert text.startswith("#!/usr/bin/env bash\n")
    assert 'VENV="$WORK/venv"' in text and "mktemp -d" in text
    assert "-e '.[test]'" in text
    assert '"$VENV/bin/python" -m pytest -q' in text
    assert '"$status" -eq 5' in text
