"""``jitlint server``: a Language Server (LSP over stdio, built on pygls) for editors.

* Diagnostics when a document is opened, changed and saved, from the same engine as
  ``jitlint check``, with the configuration that ``jitlint check FILE`` would use: the same
  findings, with the same messages; each carries its code, a link to the rule's page, and the
  reason chain as related information (pointing at the line a reason names, where it names one).
  Code that does not parse gets one diagnostic where it stops.
* Code actions: the fix each finding in the range offers (SAFE ones marked preferred, UNSAFE ones
  say so in the title), ``# noqa: CODE`` for the line, and, when the request asks for
  ``source.fixAll`` (or ``source``) by kind, ``source.fixAll.jitlint``, which applies every safe
  fix of the document the way ``jitlint check --fix`` does.

The analysis runs in a worker process (:mod:`jitlint.lsp_worker`), never in the server's
process: the message loop reads, answers and publishes, and never parses or analyses a document,
so it answers requests (a code action, shutdown) while a large document is analysed, also while
LibCST parses it (native code that holds the interpreter lock of the process it runs in).  For
each document only its latest text waits for the worker (a burst of edits is analysed once, as
its newest text); an analysis whose document changes again while it runs is stopped (at its next
checkpoint, :mod:`jitlint.analysis.cancel`, or, in the middle of a parse, by killing the worker
process, whose place a spare process takes) and never published; a result that arrives after the
document moved on is dropped too.  A change is linted after :data:`CHANGE_DELAY` seconds of quiet.
Measured on a 27,000-line generated module (``benchmarks/lsp_blocking.py 3000``, a 2-CPU machine at a
load average of about 10): a code action on another file, asked every 10 ms during the analysis,
waited at most 4.58 s when the analysis ran on a thread of this process, and 0.20 s with the worker
process (1.39 s for the one that waited while the module's 3,000 diagnostics were written out).  On
a 200,000-line module (load average about 2): 25.1 s on a thread; 0.27 s with the worker process, and
4.11 s while its 22,222 diagnostics were taken in and written out (that stall remains, on this loop).

Diagnostics are published from a lint that builds no fix: the worker process keeps the last lint
of each document, and builds a finding's fix when a code action asks for a range that holds it
(the fix-all lint runs only when asked for).  While nothing else waits, it then builds the fixes of
that lint and stores them with its findings in the results cache, so that the same text opened again
(a file closed and reopened, the editor started again) gets its findings and its fixes from the cache
without an analysis.  Findings read from an entry without them (the analysis was stopped before it
was done), and a worker process started after the lint, which does not hold it, need the analysis:
that version of the document is then analysed again (its fixes still unbuilt) while nothing else
waits, given up as soon as another lint or another document's request comes; a code action asked
before that is done waits for it (or, when it was given up, makes it).

Like ``jitlint check``, it never imports JAX or the code it reads. Needs pygls (jitlint's ``lsp`` extra).
"""
from __future__ import annotations

import logging
import sys
from typing import Any, Dict, List, Optional, Set

from jitlint import __version__
from jitlint.diagnostics import Applicability, Diagnostic, FileResult, Fix

try:
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer

    from jitlint.lsp_worker import Job, Snapshot, Worker, path_of
except ImportError:  # pragma: no cover - reported by run_server
    LanguageServer = None  # type: ignore[assignment,misc]

FIX_ALL = "source.fixAll.jitlint"
#: seconds of quiet after a change before the document is linted again
CHANGE_DELAY = 0.2
_log = logging.getLogger(__name__)


class Linted:
    """The findings of one version of a document (their fixes unbuilt), with their LSP diagnostics
    (same order), as the worker process sent them; ``fixes`` holds the fixes built so far (by
    finding index)."""

    def __init__(self, job: "Job", snapshot: "Snapshot", result: FileResult,
                 diagnostics: List["types.Diagnostic"]) -> None:
        self.job, self.snapshot, self.result, self.diagnostics = job, snapshot, result, diagnostics
        self.version = job.version
        self.fixes: Dict[int, Optional[Fix]] = {}


def may_have_fix(diag: Diagnostic) -> bool:
    """Whether a fix may be offered for the finding, known without building it: its rule has fix
    builders (the findings the server holds carry neither their fixes nor the means to build them)."""
    from jitlint.fixes import FIXABLE_CODES

    return diag.fix is not None or (diag.code in FIXABLE_CODES and not diag.fix_decided)


if LanguageServer is not None:

    class JitlintServer(LanguageServer):
        def __init__(self) -> None:
            super().__init__("jitlint", __version__,
                             text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
            self.linted: Dict[str, Linted] = {}
            self.pending: Dict[str, Any] = {}  # uri -> the timer of a lint after a change
            self.open_uris: Set[str] = set()
            self.config_errors: Dict[str, str] = {}
            #: uri -> the version handed to the worker last
            self.submitted: Dict[str, Optional[int]] = {}
            #: uri -> the requests waiting for the findings of the document's current version
            self.waiters: Dict[str, List[Any]] = {}
            self.worker = Worker(self._deliver_soon)
            self.loop: Any = None

        # ---------------------------------------------------------- on the message loop

        def schedule(self, uri: str, again: bool = False) -> None:
            """Hand the document's current text to the worker (unless that version is there already)."""
            import asyncio

            pending = self.pending.pop(uri, None)
            if pending is not None:
                pending.cancel()
            if uri not in self.open_uris:
                return
            self.loop = asyncio.get_running_loop()
            document = self.workspace.get_text_document(uri)
            if not again and uri in self.submitted and self.submitted[uri] == document.version:
                return
            self.submitted[uri] = document.version
            overrides = self.open_texts()
            self.worker.lint(Job(uri, document.version, document.source, overrides,
                                 self.workspace.position_codec.encoding))

        def schedule_soon(self, uri: str) -> None:
            """Lint after a pause in typing (a burst of changes is linted once)."""
            import asyncio

            pending = self.pending.pop(uri, None)
            if pending is not None:
                pending.cancel()
            self.pending[uri] = asyncio.get_running_loop().call_later(CHANGE_DELAY, self.schedule, uri)

        def open_texts(self) -> Dict[str, bytes]:
            out: Dict[str, bytes] = {}
            for uri in self.open_uris:
                out[path_of(uri)] = self.workspace.get_text_document(uri).source.encode("utf-8", "surrogatepass")
            return out

        def close(self, uri: str) -> None:
            self.open_uris.discard(uri)
            pending = self.pending.pop(uri, None)
            if pending is not None:
                pending.cancel()
            self.worker.forget(uri)
            self.submitted.pop(uri, None)
            self.linted.pop(uri, None)
            for waiter in self.waiters.pop(uri, []):
                if not waiter.done():
                    waiter.set_result(None)
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

        def is_current(self, uri: str, version: Optional[int]) -> bool:
            return uri in self.open_uris and self.workspace.get_text_document(uri).version == version

        def _deliver_soon(self, job: "Job", outcome: Any) -> None:
            """(On the worker's thread.) The outcome of a lint, handed to the message loop."""
            try:
                self.loop.call_soon_threadsafe(self._deliver, job, outcome)
            except RuntimeError:  # the loop is closed: the server is exiting
                pass

        def _deliver(self, job: "Job", outcome: Any) -> None:
            if not self.is_current(job.uri, job.version):
                return  # the document moved on (its newer text is on its way) or was closed: never published
            linted: Optional[Linted] = None
            if isinstance(outcome, tuple):
                result, diagnostics, config_error = outcome
                self.show_config_error(job.path, config_error)
                linted = self.linted[job.uri] = Linted(job, job.snapshot(), result, diagnostics)
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                    uri=job.uri, diagnostics=diagnostics, version=job.version))
                if any(may_have_fix(d) for d in result.diagnostics):
                    self.worker.prepare(job)  # (findings read from the cache: analysed again while idle)
            else:
                self.submitted.pop(job.uri, None)  # the lint failed (logged): the next request tries again
            for waiter in self.waiters.pop(job.uri, []):
                if not waiter.done():
                    waiter.set_result(linted)

        def show_config_error(self, path: str, error: Optional[str]) -> None:
            """A configuration that could not be read (the defaults applied): said once per file and error."""
            if error is not None and self.config_errors.get(path) != error:
                self.config_errors[path] = error
                self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"jitlint: {error}"))

        async def findings(self, uri: str) -> Optional[Linted]:
            """The findings of the document as it is now (waiting for the worker when they are not
            there yet); None when it is not open, or changed again while they were made."""
            if uri not in self.open_uris:
                return None
            version = self.workspace.get_text_document(uri).version
            linted = self.linted.get(uri)
            if linted is not None and linted.version == version:
                return linted
            self.schedule(uri)  # at once, if a change is still waiting for its quiet moment
            waiter = self.loop.create_future()
            self.waiters.setdefault(uri, []).append(waiter)
            linted = await waiter
            return linted if linted is not None and self.is_current(uri, linted.version) else None

        async def on_worker(self, linted: Linted, what: str, *args: Any) -> Any:
            """``Analyser.<what>(linted.job, *args)`` in the worker process (None: the document changed
            meanwhile)."""
            import asyncio

            return await asyncio.wrap_future(self.worker.call(linted.job.uri, what, linted.job, *args))

        async def fix_all_action(self, linted: Linted) -> Optional["types.CodeAction"]:
            fixed = await self.on_worker(linted, "fix_all")
            if fixed is None:
                return None
            applied, text = fixed
            whole = linted.snapshot.edit_range(0, len(linted.snapshot.text))
            return types.CodeAction(
                title=f"jitlint: apply {applied} safe fix{'es' if applied != 1 else ''}", kind=FIX_ALL,
                edit=types.WorkspaceEdit(changes={linted.job.uri: [types.TextEdit(range=whole, new_text=text)]}))

        # -------------------------------------------------------------------------- code actions

        async def code_actions(self, params: "types.CodeActionParams") -> List["types.CodeAction"]:
            uri = params.text_document.uri
            linted = await self.findings(uri)
            if linted is None:
                return []
            only = params.context.only
            asked = (lambda kind: only is not None and any(kind == k or kind.startswith(k + ".") for k in only))
            actions: List[types.CodeAction] = []
            found = [(i, d, lsp) for i, (d, lsp) in enumerate(zip(linted.result.diagnostics, linted.diagnostics))
                     if _overlaps(lsp.range, params.range)]
            if only is None or asked(types.CodeActionKind.QuickFix):
                for i, d, _ in found:  # read from a cache entry that holds the fixes
                    if d.fix is not None and d.fix.edits_built:
                        linted.fixes.setdefault(i, d.fix)
                wanted = [i for i, d, _ in found if may_have_fix(d) and i not in linted.fixes]
                if wanted:
                    linted.fixes.update(await self.on_worker(linted, "fixes", wanted) or {})
                fixes, noqas = [], []
                for i, diag, lsp in found:
                    fix = linted.fixes.get(i)
                    if fix is not None and fix.edits:
                        fixes.append(self.fix_action(linted.snapshot, diag, lsp, fix))
                    noqa = self.noqa_action(linted.snapshot, diag, lsp)
                    if noqa is not None:
                        noqas.append(noqa)
                fixes.sort(key=lambda a: not a.is_preferred)  # safe fixes first
                actions += fixes + noqas
            # the whole-file fix runs only when asked for by kind (an editor's fix-on-save), not for a cursor
            if asked(FIX_ALL) and any(may_have_fix(d) for d in linted.result.diagnostics):
                action = await self.fix_all_action(linted)
                if action is not None:
                    actions.append(action)
            if not self.is_current(uri, linted.version):
                return []  # the document changed while the fixes were built: their edits are for the old text
            return actions

        @staticmethod
        def fix_action(snapshot: Snapshot, diag: Diagnostic, lsp: "types.Diagnostic", fix: Fix) -> "types.CodeAction":
            safe = fix.applicability is Applicability.SAFE
            label = {Applicability.SAFE: "", Applicability.UNSAFE: " (unsafe: may change behaviour)",
                     Applicability.DISPLAY_ONLY: " (suggestion)"}[fix.applicability]
            edits = [types.TextEdit(range=snapshot.edit_range(e.start, e.end), new_text=e.replacement)
                     for e in fix.edits]
            return types.CodeAction(
                title=f"{diag.code}: {fix.title}{label}", kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp], is_preferred=safe,
                edit=types.WorkspaceEdit(changes={snapshot.uri: edits}))

        @staticmethod
        def noqa_action(snapshot: Snapshot, diag: Diagnostic, lsp: "types.Diagnostic") -> Optional["types.CodeAction"]:
            text = snapshot.line_text(diag.line)
            if text is None or "noqa" in text:
                return None
            end = snapshot.position(diag.line, len(text) + 1)
            return types.CodeAction(
                title=f"{diag.code}: silence on this line (# noqa: {diag.code})", kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp],
                edit=types.WorkspaceEdit(changes={snapshot.uri: [
                    types.TextEdit(range=types.Range(end, end), new_text=f"  # noqa: {diag.code}")]}))

        def shutdown(self) -> None:
            """(When the server stops, however it stops.)"""
            self.worker.stop(wait=True)  # no worker process outlives the server
            super().shutdown()


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
        ls.schedule(params.text_document.uri, again=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JitlintServer, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.open_uris:
            ls.schedule_soon(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JitlintServer, params: types.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri in ls.open_uris:  # never read a file the editor does not hold (a FIFO blocks)
            ls.schedule(params.text_document.uri, again=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JitlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]))
    async def code_action(ls: JitlintServer, params: types.CodeActionParams) -> List[types.CodeAction]:
        return await ls.code_actions(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: JitlintServer, params: None) -> None:
        ls.worker.stop()  # the worker processes are killed (on the worker's thread)

    return server


def run_server() -> int:
    """``jitlint server``: serve one client over stdin/stdout until it exits."""
    try:
        server = build_server()
    except RuntimeError as exc:
        sys.stderr.write(f"jitlint: error: {exc}\n")
        return 2
    server.start_io()  # which ends with server.shutdown(): the worker processes are killed
    return 0
