"""A report that shows fixes by their titles (``jitlint check``'s text, GitHub annotations, flake8)
has them decided but not written: the same findings, titles and safety as a lint that builds the
edits, and no edit generation.  JSON, SARIF, ``--fix`` and ``--diff`` get the edits."""
from __future__ import annotations

import json
import os
import pickle
import re
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

import jitlint.fixes
import jitlint.fixes.wrap
from jitlint.cli import main
from jitlint.config import Config
from jitlint.diagnostics import Applicability, Diagnostic, Edit, EditsNotBuilt, Fix
from jitlint.engine import analyse_unit, decode_source, parse
from jitlint.fixes import preferring_static
from jitlint.fixes.context import FixContext
from jitlint.fixing import fix_source

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
FIX_DIR = os.path.join(FIXTURES, "fix")
LINT_DIR = os.path.join(FIXTURES, "lint")
CASES = sorted([os.path.join(FIX_DIR, n) for n in os.listdir(FIX_DIR) if n.endswith(".in.py")]
               + [os.path.join(LINT_DIR, n) for n in os.listdir(LINT_DIR) if n.endswith(".py")])
OPTIONS = re.compile(r"^#\s*fix-options:\s*(.*)$", re.MULTILINE)

#: JIT201 (both forms), JIT202 and JIT203, their fixes all decided before they are written
CONTROL_FLOW = """\
import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def f(x, n):
    y = jnp.sin(x)
    if y.sum() > 0:
        y = -y
    for i in range(n):
        y = y + i
    while y.sum() < 10:
        y = y * 2
    if x.sum() > 0:
        return y
    return x
"""


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    """A builder's internal error (a fix offered that cannot be written) fails the test."""
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


def _prefer(source: str) -> Optional[bool]:
    found = OPTIONS.search(source)
    words = set(found.group(1).replace(",", " ").split()) if found else set()
    return True if "prefer-static" in words else False if "prefer-rewrite" in words else None


def _lint(path: str, source: str, edits: bool) -> List[Diagnostic]:
    with preferring_static(_prefer(source)):
        found, _ = analyse_unit(path, source, parse(source), Config(), edits=edits)
    return [d for diags in found.values() for d in diags]


def _seen(diag: Diagnostic) -> Tuple:
    """What a report that shows no edits shows of a finding."""
    fix = (diag.fix.applicability, diag.fix.title) if diag.fix is not None else None
    return diag.path, diag.line, diag.column, diag.end_line, diag.end_column, diag.code, diag.message, \
        diag.reason, diag.subject, fix


@pytest.mark.parametrize("path", CASES, ids=lambda p: os.path.relpath(p, FIXTURES))
def test_titles_are_those_of_the_built_fixes(path):
    source = decode_source(Path(path).read_bytes())
    titles, built = _lint(path, source, edits=False), _lint(path, source, edits=True)
    assert [_seen(d) for d in titles] == [_seen(d) for d in built]
    for left, full in zip(titles, built):
        if left.fix is None:
            continue
        assert full.fix is not None and full.fix.edits_built and not full.fix.pending
        # a fix left unbuilt was offered with edits: building them gave some
        assert left.fix.edits_built or full.fix.edits, (left.code, left.line, full.fix.title)
        if left.fix.applicability is Applicability.DISPLAY_ONLY:
            assert left.fix == full.fix and not full.fix.edits  # advice has no edits to leave out


def test_control_flow_titles_need_no_edit_generation(tmp_path, monkeypatch, capsys):
    module = tmp_path / "model.py"
    module.write_text(CONTROL_FLOW)
    calls: List[str] = []
    replace_many, wrapped = FixContext.replace_many, jitlint.fixes.wrap.wrapped
    monkeypatch.setattr(FixContext, "replace_many", lambda *a, **k: calls.append("replace") or replace_many(*a, **k))
    monkeypatch.setattr(jitlint.fixes.wrap, "wrapped", lambda *a, **k: calls.append("wrap") or wrapped(*a, **k))
    args = ["check", "--isolated", "--no-cache", "-j1", str(module)]

    assert main(args) == 1
    text = capsys.readouterr().out
    assert calls == []
    assert text.count("unsafe fix available") == 4, text
    assert "(4 fixable with --fix --unsafe-fixes)" in text
    for fmt in ("github", "text --show-fixes", "text --statistics", "json --statistics"):
        assert main(args + ["--format"] + fmt.split()) == 1
        assert calls == [], fmt
    capsys.readouterr()

    assert main(args + ["--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert calls.count("replace") == 4 and "wrap" in calls
    assert [f["code"] for f in findings] == ["JIT201", "JIT202", "JIT203", "JIT201"]
    assert all(f["fix"]["edits"] for f in findings)
    calls.clear()
    assert main(args + ["--format", "sarif"]) == 1
    assert calls.count("replace") == 4


def test_cached_titles_do_not_answer_for_edits(tmp_path, capsys):
    module = tmp_path / "model.py"
    module.write_text(CONTROL_FLOW)
    cache = str(tmp_path / "cache")
    args = ["check", "--isolated", "-j1", "--cache-dir", cache, str(module)]
    assert main(args) == 1
    cold = capsys.readouterr().out
    assert main(args) == 1
    assert capsys.readouterr().out == cold  # the titles from the cache
    assert main(args + ["--format", "json"]) == 1
    from_cache = json.loads(capsys.readouterr().out)
    assert main(["check", "--isolated", "-j1", "--no-cache", "--format", "json", str(module)]) == 1
    assert from_cache == json.loads(capsys.readouterr().out)
    assert all(f["fix"]["edits"] for f in from_cache)


def test_a_fix_left_unbuilt_has_no_edits_to_read():
    made: List[int] = []

    def make() -> Tuple[Edit, ...]:
        made.append(1)
        return (Edit(0, 1, "y"),)

    pending = Fix.later(Applicability.UNSAFE, "Use `lax.cond`", make)
    assert pending.pending and not pending.edits_built
    titled = pending.without_edits()
    assert (titled.applicability, titled.title) == (pending.applicability, pending.title)
    with pytest.raises(EditsNotBuilt):
        titled.edits  # noqa: B018 - reading them is the error
    with pytest.raises(EditsNotBuilt):
        Diagnostic("m.py", 1, 1, 1, 2, "JIT201", "message", fix=titled).to_json()
    assert Diagnostic("m.py", 1, 1, 1, 2, "JIT201", "message", fix=titled).to_json(unbuilt_edits=True)["fix"] == {
        "applicability": "unsafe", "title": "Use `lax.cond`", "edits": None}
    assert made == []
    assert pending.built() == Fix(Applicability.UNSAFE, "Use `lax.cond`", (Edit(0, 1, "y"),)) and made == [1]
    # to a worker process and back: built, or known to be unbuilt
    assert pickle.loads(pickle.dumps(pending)) == Fix(Applicability.UNSAFE, "Use `lax.cond`", (Edit(0, 1, "y"),))
    assert pickle.loads(pickle.dumps(titled)) == titled and not pickle.loads(pickle.dumps(titled)).edits_built
    with pytest.raises(AttributeError):
        titled.title = "other"  # type: ignore[misc]


def test_a_fix_in_the_last_statement_of_a_file_without_a_final_newline():
    """Whether such a fix gives an edit is not known before its code is written: it is written then."""
    source = CONTROL_FLOW.rstrip("\n")
    titles, built = _lint("m.py", source, edits=False), _lint("m.py", source, edits=True)
    assert [_seen(d) for d in titles] == [_seen(d) for d in built] and len(titles) == 4
    assert all(d.fix is not None and d.fix.edits_built and d.fix.edits for d in titles)
    fixed = fix_source(source, "m.py", Config(), unsafe=True)
    assert fixed.converged and len(fixed.applied) == 4
    assert fixed.fixed == fix_source(CONTROL_FLOW, "m.py", Config(), unsafe=True).fixed.rstrip("\n")
