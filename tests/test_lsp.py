"""`jitlint server`, driven over stdio by a real LSP client (pytest-lsp)."""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import sys
import threading
import time
from pathlib import Path
from typing import List, Sequence, Set, Tuple

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install 'pygls>=2')")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="the LSP tests need pytest-lsp (the test extra)")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from frontend_support import CLEAN, HAZARDS, SEEDED  # noqa: E402
from jitlint.config import Config  # noqa: E402
from jitlint.engine import lint_source  # noqa: E402
from jitlint.fixing import fix_source  # noqa: E402
from jitlint.lsp import FIX_ALL  # noqa: E402
from jitlint.runner import lint_files  # noqa: E402
from synthetic import jitted_functions  # noqa: E402

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "jitlint", "server"])


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    yield
    await lsp_client.shutdown_session()


async def open_document(client: LanguageClient, path: Path, text: str) -> List[types.Diagnostic]:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    return client.diagnostics[uri]


def offset(text: str, position: types.Position) -> int:
    """An LSP position (UTF-16 code units, the default encoding) as an index into ``text``."""
    lines = text.splitlines(True)
    line = lines[position.line] if position.line < len(lines) else ""
    units, column = 0, 0
    while column < len(line) and units < position.character:
        units += 2 if ord(line[column]) > 0xFFFF else 1
        column += 1
    return sum(len(s) for s in lines[:position.line]) + column


def apply(text: str, edits: Sequence[types.TextEdit]) -> str:
    spans = sorted(((offset(text, e.range.start), offset(text, e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def code_actions(client: LanguageClient, path: Path, line: int, only=None):
    where = types.Range(types.Position(line, 0), types.Position(line, 0))
    return client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()), range=where,
        context=types.CodeActionContext(diagnostics=[], only=only)))


@pytest.mark.asyncio
async def test_open_reports_findings_with_code_link_and_reason_chain(client: LanguageClient, tmp_path):
    path = tmp_path / "relu.py"
    path.write_text(SEEDED)
    (diag,) = await open_document(client, path, SEEDED)
    assert (diag.code, diag.source) == ("JIT201", "jitlint")
    assert diag.message.startswith("Python `if` on traced value `x > 0`")
    assert diag.range == types.Range(types.Position(4, 7), types.Position(4, 12))  # `x > 0`, line 5 col 8
    assert diag.code_description.href.endswith("/docs/rules/JIT201.md")
    expected = lint_source(SEEDED, str(path)).diagnostics[0].reason
    assert [info.message for info in diag.related_information] == [f"why: {link}" for link in expected]
    assert all(info.location.uri == path.as_uri() for info in diag.related_information)


@pytest.mark.asyncio
async def test_a_notebook_opened_as_its_json_text_gets_no_diagnostics(client: LanguageClient, tmp_path):
    """Its findings are lines of its cells, not of the JSON an editor would show (`jitlint check` reads it)."""
    import json

    path = tmp_path / "demo.ipynb"
    text = json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                  "source": SEEDED.splitlines(keepends=True)}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    path.write_text(text)
    assert list(await open_document(client, path, text)) == []


@pytest.mark.asyncio
async def test_change_and_save_update_the_diagnostics(client: LanguageClient, tmp_path):
    path = tmp_path / "relu.py"
    assert len(await open_document(client, path, SEEDED)) == 1
    uri = path.as_uri()
    whole = types.Range(types.Position(0, 0), types.Position(len(SEEDED.splitlines()), 0))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=whole, text=CLEAN)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []
    # an edit that brings the hazard back: one line changed, incrementally
    line = CLEAN.splitlines().index("    return jnp.where(x > 0, x, 0.0)")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, 4), types.Position(line, 35)),
            text="print(x)\n    return x")]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["JIT103"]
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["JIT103"]


@pytest.mark.asyncio
async def test_positions_are_in_utf16_units(client: LanguageClient, tmp_path):
    text = SEEDED.replace("    if x > 0:", '    s = "\U0001F600"; print(x)\n    if x > 0:')
    diags = await open_document(client, tmp_path / "emoji.py", text)
    printed = next(d for d in diags if d.code == "JIT103")
    # `print(x)` starts at code point 13 (0-based); the emoji before it takes two UTF-16 units
    assert printed.range == types.Range(types.Position(4, 14), types.Position(4, 22))


@pytest.mark.asyncio
async def test_code_actions_offer_the_fixes_safe_first(client: LanguageClient, tmp_path):
    text = HAZARDS.read_text()
    path = tmp_path / "hazards.py"
    await open_document(client, path, text)
    print_line = next(i for i, line in enumerate(text.splitlines()) if "print(" in line)
    actions = await code_actions(client, path, print_line)
    fix = actions[0]
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    assert fix.title.startswith("JIT103: Use `jax.debug.print`")
    fixed = apply(text, fix.edit.changes[path.as_uri()])
    assert "jax.debug.print(" in fixed
    assert not [d for d in lint_source(fixed, str(path)).diagnostics if d.code == "JIT103"]
    assert any(a.title == "JIT103: silence on this line (# noqa: JIT103)" for a in actions)

    branch_line = next(i for i, line in enumerate(text.splitlines()) if line.strip().startswith("if "))
    (unsafe, *rest) = await code_actions(client, path, branch_line, only=[types.CodeActionKind.QuickFix])
    assert unsafe.title.startswith("JIT201: ") and unsafe.title.endswith("(unsafe: may change behaviour)")
    assert not unsafe.is_preferred
    noqa = rest[-1]
    silenced = apply(text, noqa.edit.changes[path.as_uri()])
    assert silenced.splitlines()[branch_line].endswith("  # noqa: JIT201")
    assert "JIT201" not in {d.code for d in lint_source(silenced, str(path)).diagnostics}


@pytest.mark.asyncio
async def test_fix_all_applies_the_safe_fixes_like_check_fix(client: LanguageClient, tmp_path):
    text = HAZARDS.read_text()
    path = tmp_path / "hazards.py"
    await open_document(client, path, text)
    (action,) = await code_actions(client, path, 0, only=["source.fixAll"])
    assert action.kind == "source.fixAll.jitlint"
    assert apply(text, action.edit.changes[path.as_uri()]) == fix_source(text, str(path)).fixed


@pytest.mark.asyncio
async def test_the_files_configuration_applies(client: LanguageClient, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nignore = ["JIT201"]\n')
    path = tmp_path / "pkg" / "relu.py"
    path.parent.mkdir()
    assert list(await open_document(client, path, SEEDED)) == []


@pytest.mark.asyncio
async def test_a_burst_of_changes_is_linted_once_and_close_clears(client: LanguageClient, tmp_path):
    path = tmp_path / "relu.py"
    uri = path.as_uri()
    assert len(await open_document(client, path, SEEDED)) == 1
    everything = types.Range(types.Position(0, 0), types.Position(100, 0))
    waiting = client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    for version, text in ((2, CLEAN), (3, SEEDED), (4, CLEAN)):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=everything, text=text)]))
    published = await waiting
    assert (published.version, list(published.diagnostics)) == (4, [])
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


# ------------------------------------------------------------------ the worker, large documents, lazy fixes

#: a generated module (tests/synthetic.py) whose analysis takes far longer than a message's round trip
DENSE_FUNCTIONS = 300
DENSE = jitted_functions(DENSE_FUNCTIONS)


def record_publishes(client: LanguageClient) -> List[types.PublishDiagnosticsParams]:
    """Every publishDiagnostics the client gets from now on, in order (``client.diagnostics`` keeps the last)."""
    published: List[types.PublishDiagnosticsParams] = []
    features = client.protocol.fm.features
    default = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams) -> None:
        published.append(params)
        default(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    return published


async def until_published(client: LanguageClient, published, uri: str, version: int) -> types.PublishDiagnosticsParams:
    async def wait() -> types.PublishDiagnosticsParams:
        while True:
            for params in published:
                if params.uri == uri and params.version == version:
                    return params
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), 600)  # a bound for a hung server, not a speed target


def check_findings(path: Path, text: str) -> List[tuple]:
    """What ``jitlint check`` reports for the text (ASCII: a column is a UTF-16 unit)."""
    result, = lint_files([str(path)], Config(), overrides={str(path): text.encode()})
    return [(d.line, d.column, d.end_line, d.end_column, d.code, d.message) for d in result.diagnostics]


def as_findings(diagnostics: Sequence[types.Diagnostic]) -> List[tuple]:
    return [(d.range.start.line + 1, d.range.start.character + 1, d.range.end.line + 1, d.range.end.character + 1,
             d.code, d.message) for d in diagnostics]


def open_without_waiting(client: LanguageClient, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)))
    return uri


def cache_entries() -> int:
    """The results in the server's cache (the test's own: see conftest.py)."""
    return sum(name.endswith(".json") for _, _, names in os.walk(os.environ["JITLINT_CACHE_DIR"]) for name in names)


@pytest.mark.asyncio
async def test_an_edit_supersedes_the_analysis_of_the_older_text_which_is_never_published(client, tmp_path):
    path = tmp_path / "dense.py"
    published = record_publishes(client)
    uri = open_without_waiting(client, path, DENSE)
    # at once, before the analysis of version 1 can end: the first function's `if` becomes a jnp.where
    line = DENSE.splitlines().index("    if y.sum() > 0:")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, 0), types.Position(line + 2, 0)),
            text="    y = jnp.where(y.sum() > 0, -y, y)\n")]))
    newer = await until_published(client, published, uri, 2)
    edited = DENSE.replace("    if y.sum() > 0:\n        y = -y\n", "    y = jnp.where(y.sum() > 0, -y, y)\n", 1)
    assert as_findings(newer.diagnostics) == check_findings(path, edited)
    assert len(newer.diagnostics) == DENSE_FUNCTIONS - 1
    await code_actions(client, path, 0)  # a round trip: whatever the server sent before its answer is here now
    assert [p.version for p in published if p.uri == uri] == [2]  # version 1 was never published, before or after


@pytest.mark.asyncio
async def test_requests_are_answered_while_a_large_document_is_analysed(client, tmp_path):
    small = tmp_path / "relu.py"
    await open_document(client, small, SEEDED)
    first = await code_actions(client, small, 4)  # builds the fix of the finding (the worker is idle)
    assert first[0].title.startswith("JIT201: ")
    published = record_publishes(client)
    big = open_without_waiting(client, tmp_path / "dense.py", DENSE)
    again = await code_actions(client, small, 4)
    assert [p.uri for p in published] == []  # answered while the large document was still being analysed
    assert [a.title for a in again] == [a.title for a in first]
    done = await until_published(client, published, big, 1)
    assert len(done.diagnostics) == DENSE_FUNCTIONS


@pytest.mark.asyncio
async def test_a_fix_is_built_for_a_finding_read_from_the_cache(client, tmp_path):
    text = HAZARDS.read_text()
    path = tmp_path / "hazards.py"
    assert len(await open_document(client, path, text)) == 6
    stored = cache_entries()
    assert stored >= 1
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(
        path.as_uri())))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert as_findings(await open_document(client, path, text)) == check_findings(path, text)
    assert cache_entries() == stored  # read from the cache: no closures to build the fixes with
    print_line = next(i for i, line in enumerate(text.splitlines()) if "print(" in line)
    fix = (await code_actions(client, path, print_line, only=[types.CodeActionKind.QuickFix]))[0]
    assert fix.title.startswith("JIT103: Use `jax.debug.print`") and fix.is_preferred
    fixed = apply(text, fix.edit.changes[path.as_uri()])
    assert not [d for d in lint_source(fixed, str(path)).diagnostics if d.code == "JIT103"]
    assert cache_entries() == stored  # the same text analysed again, outside the cache


def test_a_fix_of_a_finding_read_from_the_cache_is_built_around_its_statement(tmp_path, monkeypatch):
    """A finding read from a cache entry without its fix builds it when asked, by an analysis of its
    statement and what is linked to it (as after an edit), not of the whole module: while idle the worker
    only parses the text, and the fix is the one a whole analysis builds."""
    from jitlint import incremental
    from jitlint.lsp_worker import Analyser, Job

    text = HAZARDS.read_text()
    path = tmp_path / "hazards.py"
    path.write_text(text)
    job = Job(path.as_uri(), 1, text, {}, "utf-16")
    first = Analyser()
    first.lint(job)  # analysed, and stored in the cache (its fixes not built: it is never idle)
    later = Analyser()  # a worker process started after that lint
    later.lint(job)
    assert not later.lints[job.uri].from_cache()
    assert later.prepare(job) is True  # (while idle: the text parsed, and kept)
    assert later.prepare(job) is False  # once
    analysed = []
    monkeypatch.setattr(later, "_analyse_again", lambda lint: analysed.append(lint))
    whole = []
    real_whole = incremental._fix_by_whole_analysis
    monkeypatch.setattr(incremental, "_fix_by_whole_analysis", lambda *a: whole.append(a) or real_whole(*a))
    findings = later.lints[job.uri].result.diagnostics
    wanted = [i for i, d in enumerate(findings) if d.code in ("JIT103", "JIT201")]
    fixes = later.fixes(job, wanted)
    assert len(wanted) >= 2 and all(fixes[i] is not None and fixes[i].edits for i in wanted)
    assert analysed == [] and whole == []
    expected = {(d.line, d.code): d.fix for d in lint_source(text, str(path)).diagnostics}
    assert all(fixes[i] == expected[(findings[i].line, findings[i].code)] for i in wanted)


def test_fixes_built_while_idle_are_stored_and_a_text_opened_again_needs_no_analysis(tmp_path, monkeypatch):
    """After a lint that analysed, ``prepare`` builds its findings' fixes and stores them with the findings
    in the cache: the same text linted by another worker process comes with every fix (and with the
    knowledge of which findings have none), the same fixes the analysis builds, without analysing."""
    from jitlint.lsp_worker import Analyser, Job

    text = HAZARDS.read_text() + "\n\n@jax.jit\ndef unfixable(x):\n    return x[x > 0]\n"
    path = tmp_path / "hazards.py"
    path.write_text(text)
    job = Job(path.as_uri(), 1, text, {}, "utf-16")
    first = Analyser()
    result, _, _ = first.lint(job)
    expected = first.fixes(job, range(len(result.diagnostics)))
    assert first.prepare(job) is False  # analysed: nothing to analyse again
    assert first.store_fixes(job) is True  # the fixes built and stored
    assert first.store_fixes(job) is False
    later = Analyser()
    cached, _, _ = later.lint(job)
    assert [dataclasses.replace(d, fix=None) for d in cached.diagnostics] == list(result.diagnostics)
    assert not later.lints[job.uri].from_cache() and later.prepare(job) is False
    assert later.store_fixes(job) is False
    monkeypatch.setattr(later, "_analyse_again", lambda lint: pytest.fail("analysed again"))
    got = later.fixes(job, range(len(cached.diagnostics)))
    assert got == expected
    assert any(fix is None for fix in got.values()) and any(fix is not None for fix in got.values())
    assert all(d.fix_decided for d in cached.diagnostics)
    edited = text.replace("print(", "print( ", 1)
    changed = Job(path.as_uri(), 2, edited, {str(path): edited.encode()}, "utf-16")
    assert later.lint(changed)[0].diagnostics and later.lints[job.uri].store_fixes  # a new text: analysed


@pytest.mark.asyncio
async def test_fix_all_runs_only_when_asked_for_by_kind(client, tmp_path):
    text = HAZARDS.read_text()
    path = tmp_path / "hazards.py"
    await open_document(client, path, text)
    stored = cache_entries()
    for only in (None, [types.CodeActionKind.QuickFix], [types.CodeActionKind.Refactor]):
        assert [a.kind for a in await code_actions(client, path, 0, only=only)] == []  # no finding on line 1
    assert cache_entries() == stored  # and nothing was linted for a fix-all
    for only in (["source"], ["source.fixAll"], [FIX_ALL]):
        (action,) = await code_actions(client, path, 0, only=only)
        assert action.kind == FIX_ALL
        assert apply(text, action.edit.changes[path.as_uri()]) == fix_source(text, str(path)).fixed
    assert cache_entries() > stored


@pytest.mark.asyncio
async def test_code_that_does_not_parse_shows_one_diagnostic_where_it_stops(client, tmp_path):
    path = tmp_path / "relu.py"
    uri = path.as_uri()
    assert len(await open_document(client, path, SEEDED)) == 1
    broken = SEEDED.replace("def relu(x):", "def relu(x:")
    everything = types.Range(types.Position(0, 0), types.Position(100, 0))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=everything, text=broken)]))
    published = await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    (error,) = published.diagnostics
    assert (published.version, error.code, error.severity) == (2, "syntax-error", types.DiagnosticSeverity.Error)
    result = lint_source(broken, str(path))
    assert error.message == result.error.message
    assert error.range.start == types.Position(result.error.line - 1, result.error.column - 1)


# ------------------------------------------------------------------ the worker process, huge documents

#: a generated module whose parse takes seconds (18,000 lines: 4 s on a quiet 2-CPU machine, more when loaded)
HUGE_FUNCTIONS = 2000
HUGE = jitted_functions(HUGE_FUNCTIONS)
#: a text whose parse lasts several seconds even on a fast machine, so that an edit sent once its worker has spent
#: half a second of CPU time on it arrives mid-parse, past any checkpoint (with HUGE the parse could end within the
#: grace a worker has to stop by itself, and it then stopped without being killed)
INTERRUPTED = jitted_functions(HUGE_FUNCTIONS * 6)


def parse_time(text: str) -> float:
    """How long LibCST takes to parse ``text`` here and now (the machine's load included)."""
    import libcst

    start = time.perf_counter()
    libcst.parse_module(text)
    return time.perf_counter() - start


def processes_under(parent: int, command: str = "") -> Set[int]:
    """The processes whose parent is ``parent`` (and whose command line holds ``command``), from /proc."""
    out: Set[int] = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as fh:
                    stat = fh.read()
                with open(f"/proc/{name}/cmdline", "rb") as fh:
                    line = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if int(stat.rpartition(")")[2].split()[1]) == parent and command in line:
                out.add(int(name))
    return out


def workers_of(server: int) -> Set[int]:
    """The worker processes of a server (not multiprocessing's resource tracker)."""
    return processes_under(server, "spawn_main")


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (dead, waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the process tree from /proc")


@contextlib.asynccontextmanager
async def own_server(tmp_path: Path):
    """A `jitlint server` of the test's own (not the fixture's: the test ends it), with every
    publishDiagnostics it sends, in order."""
    from pygls.lsp.client import LanguageClient as PlainClient

    client = PlainClient("jitlint-test", "1")
    published: List[types.PublishDiagnosticsParams] = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published.append(params)

    await client.start_io(sys.executable, "-m", "jitlint", "server")
    try:
        await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
        client.initialized(types.InitializedParams())
        yield client, published
    finally:
        if client._server is not None and client._server.returncode is None:
            client._server.kill()
        await client.stop()


async def timed(request) -> Tuple[float, object]:
    start = time.perf_counter()
    answer = await request
    return time.perf_counter() - start, answer


async def until(condition, seconds: float = 600) -> None:
    """Wait until ``condition()`` holds (a bound for a hung server, not a speed target)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the server did not get there"
        await asyncio.sleep(0.05)


@needs_proc
@pytest.mark.asyncio
async def test_requests_are_answered_while_a_huge_document_is_parsed_and_no_worker_outlives_the_server(tmp_path):
    parse = parse_time(HUGE)
    bound = parse / 4  # a thread of the server that parses holds the interpreter lock for most of the parse
    async with own_server(tmp_path) as (client, published):
        small = tmp_path / "relu.py"
        open_without_waiting(client, small, SEEDED)
        first = await code_actions(client, small, 4)  # waits for the findings, and builds the fix
        assert first[0].title.startswith("JIT201: ")
        big = open_without_waiting(client, tmp_path / "huge.py", HUGE)
        answers: List[float] = []
        window = time.perf_counter() + 1.5 * parse  # the worker parses at the start of the analysis
        while time.perf_counter() < window:
            elapsed, again = await timed(code_actions(client, small, 4))
            assert [a.title for a in again] == [a.title for a in first]
            if big in {p.uri for p in published}:
                break  # analysed already (this answer may have waited while its diagnostics were written out)
            answers.append(elapsed)
            await asyncio.sleep(0.02)
        assert len(answers) >= 10 and max(answers) < bound, (answers, parse)
        spawned = processes_under(client._server.pid)
        assert workers_of(client._server.pid)  # the worker process and its spare (and multiprocessing's tracker)
        elapsed, _ = await timed(client.shutdown_async(None))
        assert elapsed < bound, (elapsed, parse)
        client.exit(None)
        await asyncio.wait_for(client._server.wait(), 60)
        assert client._server.returncode == 0
        # (multiprocessing's resource tracker ends when it reads the end of its pipe: a moment after)
        deadline = time.monotonic() + 20
        while any(running(pid) for pid in spawned) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert [pid for pid in spawned if running(pid)] == []


@needs_proc
@pytest.mark.asyncio
async def test_an_edit_while_a_huge_document_is_parsed_replaces_the_worker_and_only_the_new_text_is_published(
        client: LanguageClient, tmp_path):
    published = record_publishes(client)
    await open_document(client, tmp_path / "relu.py", SEEDED)  # the worker process is up
    await until(lambda: len(workers_of(client._server.pid)) == 2)  # and its spare
    before = workers_of(client._server.pid)
    path = tmp_path / "huge.py"
    spent = {pid: cpu_seconds(pid) for pid in before}
    uri = open_without_waiting(client, path, INTERRUPTED)
    await until(lambda: any(cpu_seconds(pid) > spent[pid] + 0.5 for pid in before))  # it parses it (for seconds)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=HAZARDS.read_text())]))
    newer = await until_published(client, published, uri, 2)
    assert as_findings(newer.diagnostics) == check_findings(path, HAZARDS.read_text())
    await code_actions(client, path, 0)  # a round trip: whatever the server sent before its answer is here now
    assert [p.version for p in published if p.uri == uri] == [2]  # version 1 was never published
    await until(lambda: len(workers_of(client._server.pid)) == 2)
    after = workers_of(client._server.pid)
    assert len(before - after) == 1  # the worker that parsed version 1 was killed; its spare took over
    assert len(after - before) == 1  # and a new spare was started
    assert not any(running(pid) for pid in before - after)


@needs_proc
def test_the_worker_lints_the_newest_text_only_and_rebuilds_fixes_a_killed_process_held(tmp_path):
    from jitlint.lsp_worker import Job, Worker

    delivered: List[tuple] = []
    arrived = threading.Condition()

    def deliver(job: Job, outcome: object) -> None:
        with arrived:
            delivered.append((job.uri, job.version, outcome))
            arrived.notify_all()

    def job(name: str, version: int, text: str) -> Job:
        path = str(tmp_path / name)
        return Job(Path(path).as_uri(), version, text, {path: text.encode()}, "utf-16")

    def delivery(uri: str, version: int) -> object:
        with arrived:
            assert arrived.wait_for(lambda: any(d[:2] == (uri, version) for d in delivered), 600)
        return next(d[2] for d in delivered if d[:2] == (uri, version))

    worker = Worker(deliver)
    try:
        relu = job("relu.py", 1, SEEDED)
        worker.lint(relu)
        result, diagnostics, config_error = delivery(relu.uri, 1)
        assert [d.code for d in result.diagnostics] == ["JIT201"] and config_error is None
        assert all(d.deferred_fix is None for d in result.diagnostics)  # sent without the closures
        fix = worker.call(relu.uri, "fixes", relu, [0]).result(600)[0]
        assert fix is not None and fix.edits
        first = worker.pids[0]
        # a burst of edits while the worker parses the huge text: it is killed, and only the newest text is linted
        spent = {pid: cpu_seconds(pid) for pid in worker.pids}
        worker.lint(job("huge.py", 1, INTERRUPTED))
        deadline = time.monotonic() + 600
        while not any(cpu_seconds(pid) > spent[pid] + 0.5 for pid in spent):  # it parses it (for seconds)
            assert time.monotonic() < deadline
            time.sleep(0.05)
        for version in (2, 3, 4):
            worker.lint(job("huge.py", version, f"# version {version}\n" + CLEAN))
        delivery(job("huge.py", 4, "").uri, 4)
        assert [d[:2] for d in delivered] == [(relu.uri, 1), (job("huge.py", 4, "").uri, 4)]
        assert worker.killed == 1 and first not in worker.pids and not running(first)
        # the process that held the lint of relu.py is gone: it is linted again for its fix
        assert worker.call(relu.uri, "fixes", relu, [0]).result(600) == {0: fix}
    finally:
        worker.stop(wait=True)
    assert worker.pids == []


@needs_proc
@pytest.mark.asyncio
async def test_the_worker_processes_die_with_a_killed_server_also_in_the_middle_of_a_parse(tmp_path):
    parse = parse_time(HUGE)
    async with own_server(tmp_path) as (client, published):
        open_without_waiting(client, tmp_path / "relu.py", SEEDED)
        await until(lambda: bool(published))
        await until(lambda: len(workers_of(client._server.pid)) == 2)  # the worker and its spare
        workers = workers_of(client._server.pid)
        spent = {pid: cpu_seconds(pid) for pid in workers}
        open_without_waiting(client, tmp_path / "huge.py", HUGE)
        # until the worker has spent a second of CPU time on it: it parses, and would go on for seconds
        await until(lambda: any(cpu_seconds(pid) > spent[pid] + 1.0 for pid in workers))
        start = time.perf_counter()
        client._server.kill()  # no shutdown, no exit: the kernel's parent-death signal ends them
        await until(lambda: not any(running(pid) for pid in workers), 60)
        assert time.perf_counter() - start < parse / 4, parse
        await asyncio.wait_for(client._server.wait(), 60)  # (which waits for the server's pipes: theirs too)


def test_storing_fixes_stopped_midway_goes_on_where_it_stopped(tmp_path, monkeypatch):
    """The idle work that stores a lint's fixes makes way for any request (stopped at a checkpoint); called
    again it builds only the fixes it had not built, and stores them all."""
    from jitlint.analysis.cancel import checking
    from jitlint.diagnostics import Diagnostic
    from jitlint.lsp_worker import Analyser, Job

    text = HAZARDS.read_text()
    path = tmp_path / "hazards.py"
    path.write_text(text)
    job = Job(path.as_uri(), 1, text, {}, "utf-16")
    analyser = Analyser()
    result, _, _ = analyser.lint(job)
    builds = []
    real = Diagnostic.built_fix
    monkeypatch.setattr(Diagnostic, "built_fix", lambda d: builds.append(d.line) or real(d))

    class Stop(Exception):
        pass

    def stop_at_third() -> None:
        if len(builds) == 2:
            raise Stop()

    with checking(stop_at_third), pytest.raises(Stop):
        analyser.store_fixes(job)
    assert len(builds) == 2 and analyser.lints[job.uri].store_fixes  # stopped, its work kept
    assert analyser.store_fixes(job) is True
    fixable = [d.line for d in result.diagnostics if d.deferred_fix is not None]
    assert sorted(builds) == sorted(fixable) and len(fixable) > 2  # each built once
    later = Analyser()
    assert all(d.fix_decided for d in later.lint(job)[0].diagnostics)


def test_a_document_closed_and_opened_again_before_the_worker_forgets_it_is_linted(tmp_path):
    """A close (forget) still waiting when the document is opened again is superseded by the new lint;
    the worker goes on and delivers that lint (before, the superseded forget stopped the worker's thread)."""
    from jitlint.lsp_worker import Job, Worker

    delivered: List[tuple] = []
    arrived = threading.Condition()

    def deliver(job: Job, outcome: object) -> None:
        with arrived:
            delivered.append((job.uri, job.version))
            arrived.notify_all()

    path = str(tmp_path / "relu.py")
    uri = Path(path).as_uri()
    worker = Worker(deliver)
    try:
        worker.lint(Job(uri, 1, SEEDED, {path: SEEDED.encode()}, "utf-16"))
        with arrived:
            assert arrived.wait_for(lambda: (uri, 1) in delivered, 600)
        worker.lint(Job(uri, 2, DENSE, {path: DENSE.encode()}, "utf-16"))  # keeps the worker busy a while
        worker.forget(uri)
        worker.lint(Job(uri, 3, SEEDED + "\n", {path: (SEEDED + "\n").encode()}, "utf-16"))
        with arrived:
            assert arrived.wait_for(lambda: (uri, 3) in delivered, 120)
    finally:
        worker.stop(wait=True)
