"""``jitlint server``: a Language Server (LSP over stdio, built on pygls) for editors.

* Diagnostics when a document is opened, changed and saved, from the same engine as
  ``jitlint check``, with the configuration that ``jitlint check FILE`` would use; each
  carries its code, a link to the rule's page, and the reason chain as related information
  (pointing at the line a reason names, where it names one).
* Code actions: the fix each finding offers (SAFE ones marked preferred, UNSAFE ones say so in
  the title), ``# noqa: CODE`` for the line, and ``source.fixAll.jitlint``, which applies
  every safe fix of the document the way ``jitlint check --fix`` does.

Like ``jitlint check``, it never imports JAX or the code it reads. Needs pygls (jitlint's ``lsp`` extra).
"""
from __future__ import annotations

import os
import re
import sys
from typing import Any, Dict, List, Optional, Set
from urllib.parse import unquote, urlparse

from jitlint import __version__
from jitlint.config import Config, ConfigError, find_config
from jitlint.diagnostics import Applicability, Diagnostic, FileError, FileResult

try:
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.workspace import TextDocument
    from pygls.workspace.position_codec import ServerTextPosition
except ImportError:  # pragma: no cover - reported by run_server
    LanguageServer = None  # type: ignore[assignment,misc]

SOURCE = "jitlint"
FIX_ALL = "source.fixAll.jitlint"
#: seconds of quiet after a change before the document is linted again
CHANGE_DELAY = 0.2
_LINE = re.compile(r"\bline (\d+)\b(?! of )")


def path_of(uri: str) -> str:
    """The file a ``file:`` URI names (the URI itself for unsaved documents)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    if os.name == "nt" and re.match(r"/[A-Za-z]:", path):
        path = path[1:]
    return path


def cache_dir_for(path: str) -> Optional[str]:
    """The results cache of the project a document belongs to (``$JITLINT_CACHE_DIR`` first)."""
    from jitlint.files import project_root

    if os.environ.get("JITLINT_CACHE_DIR"):
        return os.environ["JITLINT_CACHE_DIR"]
    root = project_root(path) if os.path.isabs(path) else None
    return os.path.join(root, ".jitlint_cache") if root else None


class Linted:
    """The findings of one version of a document, with their LSP diagnostics (same order)."""

    def __init__(self, version: Optional[int], result: FileResult, diagnostics: List["types.Diagnostic"]) -> None:
        self.version = version
        self.result = result
        self.diagnostics = diagnostics


if LanguageServer is not None:

    class JitlintServer(LanguageServer):
        def __init__(self) -> None:
            super().__init__("jitlint", __version__,
                             text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
            self.linted: Dict[str, Linted] = {}
            self.pending: Dict[str, Any] = {}  # uri -> the timer of a lint after a change
            self.open_uris: Set[str] = set()
            self.config_errors: Dict[str, str] = {}

        # ---------------------------------------------------------------------------- linting

        def config_for(self, path: str) -> Optional[Config]:
            """The configuration ``jitlint check PATH`` would use; None when the file is excluded."""
            if not os.path.isabs(path):
                return Config()
            try:
                config = find_config(os.path.dirname(path))
            except ConfigError as exc:
                if self.config_errors.get(path) != str(exc):
                    self.config_errors[path] = str(exc)
                    self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"jitlint: {exc}"))
                return Config()
            if config.source is not None:
                root = os.path.dirname(os.path.abspath(config.source))
                if os.path.abspath(path).startswith(root + os.sep) and config.is_excluded(path, root):
                    return None
            return config

        def open_texts(self) -> Dict[str, bytes]:
            """The text of every open document: the analysis reads the buffers, not the files on disk."""
            out: Dict[str, bytes] = {}
            for uri in self.open_uris:
                document = self.workspace.get_text_document(uri)
                out[path_of(uri)] = document.source.encode("utf-8", "surrogatepass")
            return out

        def lint(self, document: "TextDocument") -> Linted:
            from jitlint.runner import lint_files

            path = path_of(document.uri)
            config = self.config_for(path)
            if config is None:
                result = FileResult(path)
            else:
                texts = self.open_texts()
                texts[path] = document.source.encode("utf-8", "surrogatepass")
                result, = lint_files([path], config, cache_dir=cache_dir_for(path), overrides=texts,
                                     context=os.path.isabs(path))
            diagnostics = [self.to_lsp(document, d) for d in result.diagnostics]
            if result.error is not None:  # code that does not parse (yet): one diagnostic where it stops
                diagnostics.append(self.error_to_lsp(document, result.error))
            linted = Linted(document.version, result, diagnostics)
            self.linted[document.uri] = linted
            return linted

        def current(self, uri: str) -> Optional[Linted]:
            """The findings of the document as it is now (linting it again if it changed); None when not open."""
            if uri not in self.open_uris:
                return None
            document = self.workspace.get_text_document(uri)
            linted = self.linted.get(uri)
            if linted is None or linted.version != document.version:
                linted = self.lint(document)
            return linted

        def publish_soon(self, uri: str) -> None:
            """Lint after a pause in typing (a burst of changes is linted once)."""
            import asyncio

            pending = self.pending.pop(uri, None)
            if pending is not None:
                pending.cancel()
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                self.publish(uri)
                return
            self.pending[uri] = loop.call_later(CHANGE_DELAY, self._publish_pending, uri)

        def _publish_pending(self, uri: str) -> None:
            self.pending.pop(uri, None)
            if uri in self.open_uris:
                self.publish(uri)

        def publish(self, uri: str) -> None:
            pending = self.pending.pop(uri, None)
            if pending is not None:
                pending.cancel()
            linted = self.lint(self.workspace.get_text_document(uri))
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=linted.diagnostics, version=linted.version))

        # ------------------------------------------------------------------------- conversions

        @staticmethod
        def position(document: "TextDocument", line: int, column: int) -> "types.Position":
            """1-based line and code-point column -> an LSP position in the client's units (UTF-16 by default)."""
            return document.position_to_client_units(ServerTextPosition(max(line - 1, 0), max(column - 1, 0)))

        def line_range(self, document: "TextDocument", line: int) -> "types.Range":
            lines = document.lines
            text = lines[line - 1].rstrip("\r\n") if 0 < line <= len(lines) else ""
            start = len(text) - len(text.lstrip())
            return types.Range(self.position(document, line, start + 1), self.position(document, line, len(text) + 1))

        def to_lsp(self, document: "TextDocument", diag: Diagnostic) -> "types.Diagnostic":
            from jitlint.rules.base import rule_url

            here = types.Range(self.position(document, diag.line, diag.column),
                               self.position(document, diag.end_line, diag.end_column))
            related = []
            for link in diag.reason:
                match = _LINE.search(link)
                where = self.line_range(document, int(match.group(1))) if match else here
                related.append(types.DiagnosticRelatedInformation(
                    location=types.Location(uri=document.uri, range=where), message=f"why: {link}"))
            message = diag.message
            if diag.fix is not None:
                kind = "fix" if diag.fix.applicability is Applicability.SAFE else f"{diag.fix.applicability.value} fix"
                message += f" ({kind} available: {diag.fix.title})"
            page = rule_url(diag.code)
            return types.Diagnostic(
                range=here, message=message, severity=types.DiagnosticSeverity.Warning, code=diag.code,
                code_description=types.CodeDescription(href=page) if page is not None else None, source=SOURCE,
                related_information=related or None)

        def error_to_lsp(self, document: "TextDocument", error: "FileError") -> "types.Diagnostic":
            here = types.Range(self.position(document, error.line, error.column),
                               self.position(document, error.line, error.column + 1))
            return types.Diagnostic(range=here, message=error.message, severity=types.DiagnosticSeverity.Error,
                                    code="syntax-error" if not error.internal else "internal-error", source=SOURCE)

        def edit_range(self, document: "TextDocument", start: int, end: int) -> "types.Range":
            return types.Range(document.client_position_at_offset(start), document.client_position_at_offset(end))

        # -------------------------------------------------------------------------- code actions

        def code_actions(self, params: "types.CodeActionParams") -> List["types.CodeAction"]:
            uri = params.text_document.uri
            linted = self.current(uri)
            if linted is None:
                return []
            document = self.workspace.get_text_document(uri)
            only = params.context.only
            wants = (lambda kind: not only or any(kind == k or kind.startswith(k + ".") for k in only))
            actions: List[types.CodeAction] = []
            pairs = [(d, lsp) for d, lsp in zip(linted.result.diagnostics, linted.diagnostics)
                     if _overlaps(lsp.range, params.range)]
            if wants(types.CodeActionKind.QuickFix):
                fixes, noqas = [], []
                for diag, lsp in pairs:
                    if diag.fix is not None and diag.fix.edits:
                        fixes.append(self.fix_action(document, diag, lsp))
                    noqa = self.noqa_action(document, diag, lsp)
                    if noqa is not None:
                        noqas.append(noqa)
                fixes.sort(key=lambda a: not a.is_preferred)  # safe fixes first
                actions += fixes + noqas
            if wants(FIX_ALL) and any(d.fix is not None and d.fix.applicability is Applicability.SAFE
                                      for d in linted.result.diagnostics):
                action = self.fix_all_action(document)
                if action is not None:
                    actions.append(action)
            return actions

        def fix_action(self, document: "TextDocument", diag: Diagnostic, lsp: "types.Diagnostic") -> "types.CodeAction":
            fix = diag.fix
            assert fix is not None
            safe = fix.applicability is Applicability.SAFE
            label = {Applicability.SAFE: "", Applicability.UNSAFE: " (unsafe: may change behaviour)",
                     Applicability.DISPLAY_ONLY: " (suggestion)"}[fix.applicability]
            edits = [types.TextEdit(range=self.edit_range(document, e.start, e.end), new_text=e.replacement)
                     for e in fix.edits]
            return types.CodeAction(
                title=f"{diag.code}: {fix.title}{label}", kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp], is_preferred=safe,
                edit=types.WorkspaceEdit(changes={document.uri: edits}))

        def noqa_action(self, document: "TextDocument", diag: Diagnostic,
                        lsp: "types.Diagnostic") -> Optional["types.CodeAction"]:
            lines = document.lines
            if not 0 < diag.line <= len(lines) or "noqa" in lines[diag.line - 1]:
                return None
            text = lines[diag.line - 1].rstrip("\r\n")
            end = self.position(document, diag.line, len(text) + 1)
            return types.CodeAction(
                title=f"{diag.code}: silence on this line (# noqa: {diag.code})", kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp],
                edit=types.WorkspaceEdit(changes={document.uri: [
                    types.TextEdit(range=types.Range(end, end), new_text=f"  # noqa: {diag.code}")]}))

        def fix_all_action(self, document: "TextDocument") -> Optional["types.CodeAction"]:
            from jitlint.runner import fix_files

            path = path_of(document.uri)
            config = self.config_for(path)
            if config is None:
                return None
            texts = self.open_texts()
            texts[path] = document.source.encode("utf-8", "surrogatepass")
            outcome = fix_files([path], config, unsafe=False, cache_dir=cache_dir_for(path), overrides=texts,
                                context=os.path.isabs(path))[path]
            fixed = outcome.result
            if fixed is None or fixed.error is not None or not fixed.changed:
                return None
            whole = self.edit_range(document, 0, len(document.source))
            return types.CodeAction(
                title=f"jitlint: apply {len(fixed.applied)} safe fix{'es' if len(fixed.applied) != 1 else ''}",
                kind=FIX_ALL,
                edit=types.WorkspaceEdit(changes={document.uri: [types.TextEdit(range=whole, new_text=fixed.fixed)]}))


def _overlaps(a: "types.Range", b: "types.Range") -> bool:
    """Whether the two ranges share a line: a cursor anywhere on a finding's line gets its actions."""
    return a.start.line <= b.end.line and b.start.line <= a.end.line


def build_server() -> "JitlintServer":
    """The server, with its handlers registered."""
    if LanguageServer is None:
        raise RuntimeError("jitlint server needs pygls: pip install 'pygls>=2' (the lsp extra of jitlint)")
    server = JitlintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JitlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.open_uris.add(params.text_document.uri)
        ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JitlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish_soon(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JitlintServer, params: types.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri in ls.open_uris:  # never read a file the editor does not hold (a FIFO blocks)
            ls.publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JitlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.open_uris.discard(params.text_document.uri)
        pending = ls.pending.pop(params.text_document.uri, None)
        if pending is not None:
            pending.cancel()
        ls.linted.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
    def code_action(ls: JitlintServer, params: types.CodeActionParams) -> List[types.CodeAction]:
        return ls.code_actions(params)

    return server


def run_server() -> int:
    """``jitlint server``: serve one client over stdin/stdout until it exits."""
    try:
        server = build_server()
    except RuntimeError as exc:
        sys.stderr.write(f"jitlint: error: {exc}\n")
        return 2
    server.start_io()
    return 0
