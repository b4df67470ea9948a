"""`jitlint server`, driven over stdio by a real LSP client (pytest-lsp)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Sequence

import pytest

pytest.importorskip("pygls", reason="the language server needs pygls (pip install 'pygls>=2')")
pytest_lsp = pytest.importorskip("pytest_lsp", reason="the LSP tests need pytest-lsp (the test extra)")

from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

from frontend_support import CLEAN, HAZARDS, SEEDED  # noqa: E402
from jitlint.fixing import fix_source  # noqa: E402
from jitlint.engine import lint_source  # noqa: E402

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
