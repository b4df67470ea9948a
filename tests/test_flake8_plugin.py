"""`flake8 --select JIT` reports what `jitlint check` reports, at the same line and column."""
from __future__ import annotations

from pathlib import Path

import pytest

from frontend_support import (EXAMPLES, HAZARDS, HAZARDS_FINDINGS, SEEDED, flake8_findings, run_cli, run_flake8,
                              write)

pytest.importorskip("flake8")

CUSTOM_JIT = """\
import mylib


@mylib.compiled
def clip(x):
    if x > 1.0:
        return 1.0
    return x
"""
CUSTOM_FINDING = ("custom.py", 6, 8, "JIT201")


def cli_findings(capsys, *paths: Path, options=()):
    report = run_cli(capsys, "check", "--isolated", "--format", "json", *options, *map(str, paths)).json()
    return {(Path(d["path"]).name, d["line"], d["column"], d["code"]) for d in report}


def test_flake8_reports_the_hazards_fixture_like_the_cli(tmp_path, capsys):
    outcome = run_flake8([str(HAZARDS)], tmp_path)
    assert outcome.status == 1, outcome.err
    assert flake8_findings(outcome) == {("hazards.py", *finding) for finding in HAZARDS_FINDINGS}
    assert flake8_findings(outcome) == cli_findings(capsys, HAZARDS)


def test_flake8_and_cli_agree_on_the_examples(tmp_path, capsys):
    files = sorted(EXAMPLES.glob("*.py"))
    outcome = run_flake8([str(f) for f in files], tmp_path)
    from_cli = cli_findings(capsys, *files)
    assert len(from_cli) >= 8
    assert flake8_findings(outcome) == from_cli


def test_flake8_message_is_code_then_the_cli_message(tmp_path, capsys):
    outcome = run_flake8([str(HAZARDS)], tmp_path, "--format", "%(row)d:%(col)d: %(code)s %(text)s")
    report = run_cli(capsys, "check", "--isolated", "--format", "json", str(HAZARDS)).json()
    assert outcome.out.splitlines() == [f"{d['line']}:{d['column']}: {d['code']} {d['message']}" for d in report]


def test_noqa_is_honoured_by_flake8_and_by_the_cli(tmp_path, capsys):
    path = write(tmp_path, "noqa.py", SEEDED.replace("if x > 0:", "if x > 0:  # noqa: JIT201"))
    blanket = write(tmp_path, "blanket.py", SEEDED.replace("if x > 0:", "if x > 0:  # NOQA"))
    other = write(tmp_path, "other.py", SEEDED.replace("if x > 0:", "if x > 0:  # noqa: JIT103"))
    paths = [path, blanket, other]
    expected = {("other.py", 5, 8, "JIT201")}
    assert flake8_findings(run_flake8([str(p) for p in paths], tmp_path)) == expected
    assert cli_findings(capsys, *paths) == expected


def test_noqa_lines_of_the_hazards_fixture_are_silent_in_both(tmp_path, capsys):
    quiet_lines = {27, 29}  # `# noqa: JIT201` and a bare `# noqa`
    for found in (flake8_findings(run_flake8([str(HAZARDS)], tmp_path)), cli_findings(capsys, HAZARDS)):
        assert not {row for _, row, _, _ in found} & quiet_lines
        assert ("hazards.py", 30, 11, "JIT203") in found  # `# noqa: JIT103` does not silence JIT203


def test_extend_jit_decorators_option_on_the_command_line(tmp_path, capsys):
    path = write(tmp_path, "custom.py", CUSTOM_JIT)
    assert flake8_findings(run_flake8([str(path)], tmp_path)) == set()
    with_option = run_flake8([str(path)], tmp_path, "--jitlint-extend-jit-decorators", "other.wrap,mylib.compiled")
    assert flake8_findings(with_option) == {CUSTOM_FINDING}
    assert cli_findings(capsys, path, options=("--extend-jit-decorators", "mylib.compiled")) == {CUSTOM_FINDING}


@pytest.mark.parametrize("config_name", ["setup.cfg", "tox.ini", ".flake8"])
def test_extend_jit_decorators_option_from_flake8_config(tmp_path, config_name):
    write(tmp_path, "custom.py", CUSTOM_JIT)
    write(tmp_path, config_name, "[flake8]\njitlint-extend-jit-decorators =\n    other.wrap,\n    mylib.compiled\n")
    outcome = run_flake8(["custom.py"], tmp_path, isolated=False)
    assert flake8_findings(outcome) == {CUSTOM_FINDING}, outcome.err


def test_flake8_reports_e999_for_unparsable_code_and_the_plugin_stays_quiet(tmp_path):
    write(tmp_path, "broken.py", "def f(:\n    pass\n")
    outcome = run_flake8(["broken.py"], tmp_path, "--select", "JIT,E999")
    assert [line.rsplit(":", 1)[1] for line in outcome.out.splitlines()] == ["E999"]
    assert "Traceback" not in outcome.err


def test_flake8_with_crlf_bom_and_latin1_matches_the_cli(tmp_path, capsys):
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(SEEDED.replace("\n", "\r\n").encode())
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + SEEDED.encode())
    latin = tmp_path / "latin.py"
    latin_source = "# -*- coding: latin-1 -*-\n" + SEEDED.replace("if x > 0:", "if x > 0:  # café")
    latin.write_bytes(latin_source.encode("latin-1"))
    outcome = run_flake8([str(crlf), str(bom), str(latin)], tmp_path)
    assert flake8_findings(outcome) == {("crlf.py", 5, 8, "JIT201"), ("bom.py", 5, 8, "JIT201"),
                                        ("latin.py", 6, 8, "JIT201")}
    assert flake8_findings(outcome) == cli_findings(capsys, crlf, bom, latin)
