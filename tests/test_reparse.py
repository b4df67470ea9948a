"""Parsing an edited document again only where it changed (jitlint.analysis.reparse): the module it gives
is the one a full parse gives, on random edits of every lint fixture, or it declines and a full parse runs."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Callable, List

import libcst as cst
import pytest

from jitlint.analysis.reparse import full_parse, parse_document, reparse, reparsing
from jitlint.source import SourceError
from synthetic import jitted_functions

#: edited text that does not parse is handed to CPython's parser for its message, which warns on some
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

FIXTURES = Path(__file__).parent / "fixtures"
SOURCES = sorted(p for p in (FIXTURES / "lint").rglob("*.py"))


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""


def _edits(rng: random.Random) -> List[Callable[[str], str]]:
    """Edits an editor makes: whole lines and single characters, valid and not."""

    def at_line(change: Callable[[List[str], int], None]) -> Callable[[str], str]:
        def edit(text: str) -> str:
            lines = text.splitlines(keepends=True)
            if lines:
                change(lines, rng.randrange(len(lines)))
            return "".join(lines)
        return edit

    def at_char(change: Callable[[str, int], str]) -> Callable[[str], str]:
        return lambda text: change(text, rng.randrange(len(text) + 1)) if text else text

    def set_line(lines: List[str], k: int, value: str) -> None:
        lines[k] = value

    pieces = ["(", ")", ":", "\n", "    ", "#", "'", '"""', "\\\n", "x", "@d\n", "def g():\n    return 1\n",
              "if x:\n", "    pass\n", "print(x)\n", "\t", "[", "]", " = ", "else:\n"]
    return [
        at_line(lambda lines, k: lines.pop(k)),
        at_line(lambda lines, k: lines.insert(k, lines[k])),
        at_line(lambda lines, k: lines.insert(k, "# a comment\n")),
        at_line(lambda lines, k: lines.insert(k, "\n")),
        at_line(lambda lines, k: lines.insert(k, "    # indented comment\n")),
        at_line(lambda lines, k: set_line(lines, k, lines[k].rstrip("\r\n") + "  # edit\n")),
        at_line(lambda lines, k: set_line(lines, k, "    " + lines[k])),
        at_line(lambda lines, k: set_line(lines, k, lines[k].lstrip(" "))),
        at_char(lambda text, i: text[:i] + text[i + 1:]),
        at_char(lambda text, i: text[:i] + rng.choice(pieces) + text[i:]),
    ]


def _agrees(previous, text: str) -> str:
    """'reparsed' or 'declined'; fails when a reparse differs from the full parse of ``text``."""
    done = reparse(previous, text)
    if done is None:
        return "declined"
    try:
        whole = cst.parse_module(text)
    except cst.ParserSyntaxError:
        pytest.fail(f"reparsed text that does not parse whole:\n{text}")
    assert done.module.code == text
    assert done.module.deep_equals(whole)
    assert done.offsets == full_parse(text).offsets
    return "reparsed"


@pytest.mark.parametrize("path", SOURCES[::3], ids=lambda p: str(p.relative_to(FIXTURES)))
def test_random_edits_reparse_as_a_full_parse(path: Path):
    text = _text(path)
    try:
        previous = full_parse(text)
    except SourceError:
        pytest.skip("the fixture itself does not parse")
    rng = random.Random(str(path.name))
    edits = _edits(rng)
    for _ in range(12):
        _agrees(previous, rng.choice(edits)(text))


def test_edits_inside_a_long_module_are_reparsed_not_parsed_whole():
    text = jitted_functions(120)
    previous = full_parse(text)
    rng = random.Random(7)
    lines = text.splitlines(keepends=True)
    counts = {"reparsed": 0, "declined": 0}
    # lines well inside the module: not in its first two statements nor its last one
    for k in rng.sample(range(len(lines) // 10, len(lines) * 9 // 10), 60):
        edited = lines[:]
        edited[k] = edited[k].rstrip("\n") + "  # edit\n" if edited[k].strip() else "\n\n"
        counts[_agrees(previous, "".join(edited))] += 1
    assert counts == {"reparsed": 60, "declined": 0}


def test_a_chain_of_edits_each_against_the_last():
    text = jitted_functions(40)
    kept: dict = {}
    rng = random.Random(3)
    edits = _edits(rng)
    with reparsing(kept):
        parse_document(text, "m.py")
        for _ in range(80):
            candidate = rng.choice(edits)(text)
            try:
                whole = cst.parse_module(candidate)
            except cst.ParserSyntaxError:
                with pytest.raises(SourceError):
                    parse_document(candidate, "m.py")
                assert kept["m.py"].source == text  # the last version that parsed is kept
                continue
            module = parse_document(candidate, "m.py")
            assert module.deep_equals(whole) and module.code == candidate
            text = candidate


def test_unchanged_statements_are_the_same_nodes():
    text = jitted_functions(10)
    previous = full_parse(text)
    lines = text.splitlines(keepends=True)
    middle = len(lines) // 2
    lines[middle] = lines[middle].rstrip("\n") + "  # edit\n"
    done = reparse(previous, "".join(lines))
    assert done is not None
    kept = sum(1 for a, b in zip(previous.module.body, done.module.body) if a is b)
    assert len(done.module.body) - 3 <= kept < len(done.module.body)


def test_without_reparsing_nothing_is_kept():
    kept: dict = {}
    text = jitted_functions(3)
    assert parse_document(text, "m.py").code == text
    assert kept == {}
    with reparsing(kept):
        parse_document(text, "m.py")
    assert list(kept) == ["m.py"]


def test_an_edit_near_the_ends_is_parsed_whole():
    text = jitted_functions(5)
    previous = full_parse(text)
    assert reparse(previous, "# new first line\n" + text) is None
    assert reparse(previous, text + "x = 1\n") is None
    assert reparse(previous, text) is previous


def test_a_block_indented_otherwise_than_the_module_is_parsed_whole():
    # the part alone would take its first block's indent as its own, and be written back with the module's
    functions = [f"def f{i}(x):\n    y = x + {i}\n    return y\n\n\n" for i in range(8)]
    functions[3] = "a = 1\n"  # the part starts here, one statement before the edit: no block of its own
    previous = full_parse("".join(functions))
    functions[4] = functions[4].replace("\n    ", "\n        ")
    assert _agrees(previous, "".join(functions)) == "declined"


def test_the_editor_worker_reparses_and_reports_as_a_fresh_lint(tmp_path, monkeypatch):
    from jitlint.lsp_worker import Analyser, Job

    monkeypatch.setenv("JITLINT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "m.py"
    text = jitted_functions(30)
    path.write_text(text)
    uri = path.as_uri()
    lines = text.splitlines(keepends=True)
    middle = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("    return"))
    lines.insert(middle, "    print(y)\n")  # a new finding (JIT103) in the middle of the module
    edited = "".join(lines)

    def job(version: int, body: str) -> Job:
        return Job(uri, version, body, {str(path): body.encode()}, "utf-16")

    worker = Analyser()
    worker.lint(job(1, text))
    before = worker.parses[str(path)].module
    result, diagnostics, _ = worker.lint(job(2, edited))
    after = worker.parses[str(path)].module
    assert after.code == edited and after.body[0] is before.body[0] and after.body[-1] is before.body[-1]
    fresh, fresh_diagnostics, _ = Analyser().lint(job(2, edited))
    assert [(d.line, d.code) for d in result.diagnostics] == [(d.line, d.code) for d in fresh.diagnostics]
    assert "JIT103" in {d.code for d in result.diagnostics}
    assert diagnostics == fresh_diagnostics
    worker.forget(uri)
    assert worker.parses == {}
