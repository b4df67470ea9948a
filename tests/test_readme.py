"""The README, docs/index.md, examples/ and .ci/run say what is true."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


# ------------------------------------------------------------------------------ runnable shell blocks
#: ``<!-- runnable: exit=N [after-setup] [expect="TEXT"] (why) -->`` on the line before a ```sh block:
#: each command line of the block is run in a copy of the checkout and must exit N, printing TEXT.
#: ``after-setup``: only what follows the last `` && `` runs (the set-up before it makes a venv and
#: installs from a package index), with the venv of this test run as the copy's ``.venv``.
RUNNABLE = re.compile(r"<!-- runnable:(?P<options>[^\n]*?)-->\n```(?:sh|bash)\n(?P<body>.*?)```", re.DOTALL)
DOCUMENTS = ["README.md"] + sorted(f"docs/{p.name}" for p in (REPO / "docs").glob("*.md"))


def runnable_blocks():
    for name in DOCUMENTS:
        text = (REPO / name).read_text(encoding="utf-8")
        for match in RUNNABLE.finditer(text):
            options = match.group("options")
            status = re.search(r"\bexit=(\d+)", options)
            expect = re.search(r'\bexpect="([^"]*)"', options)
            line = text[:match.start()].count("\n") + 1
            yield (f"{name}:{line}", int(status.group(1)) if status else 0, "after-setup" in options.split(),
                   expect.group(1) if expect else None,
                   [c for c in match.group("body").splitlines() if c.strip() and not c.lstrip().startswith("#")])


BLOCKS = list(runnable_blocks())


def test_the_runnable_markers_are_where_they_should_be():
    where = [place.split(":")[0] for place, *_ in BLOCKS]
    assert where.count("README.md") == 2 and "docs/usage.md" in where
    # the test command is not run by the tests (it is them), and says why
    assert "<!-- not runnable by tests/test_readme.py: it is the test suite itself" in README
    assert all(commands for *_, commands in BLOCKS)


@pytest.fixture(scope="module")
def checkout_copy(tmp_path_factory):
    """The files of the checkout (tracked, and untracked but not ignored), copied; its `.venv` is the
    venv running the tests."""
    copy = tmp_path_factory.mktemp("checkout")
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=str(REPO), capture_output=True, check=True).stdout.decode().split("\0")
        names = [n for n in listed if n and (REPO / n).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: everything but the venvs
        names = [str(p.relative_to(REPO)) for p in REPO.rglob("*") if p.is_file()
                 and not {".git", ".venv", "venv"} & set(p.relative_to(REPO).parts)]
    for name in names:
        target = copy / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(str(REPO / name), str(target))
    (copy / ".venv").symlink_to(Path(sys.prefix))  # in a venv, the venv
    return copy


@pytest.mark.parametrize("place, status, after_setup, expect, commands", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_runnable_block_does_what_the_docs_say(checkout_copy, place, status, after_setup, expect, commands):
    bin_dir = os.path.dirname(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JITLINT_", "FORCE_COLOR", "PYTHON"))}
    env.update(NO_COLOR="1", PATH=bin_dir + os.pathsep + env.get("PATH", ""))
    for command in commands:
        if after_setup:
            command = command.rsplit(" && ", 1)[-1]
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=str(checkout_copy), env=env,
                              capture_output=True, text=True, timeout=60)
        out = proc.stdout + proc.stderr
        assert proc.returncode == status, f"{place}: `{command}` exited {proc.returncode}:\n{out[-3000:]}"
        if expect is not None:
            assert expect in out, f"{place}: `{command}` did not print {expect!r}:\n{out[-3000:]}"
