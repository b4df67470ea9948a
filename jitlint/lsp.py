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

The analysis runs on one worker thread, never on the thread that reads and answers messages: the
server answers requests (a code action, shutdown) while a large document is being analysed, except
while LibCST parses it (native code that holds the interpreter lock, and cannot be stopped).  For
each document only its latest text waits for the worker (a burst of edits is analysed once, as its
newest text), and an analysis whose document has changed again since it started stops at its next
checkpoint (:mod:`jitlint.analysis.cancel`) and is dropped; a result that arrives after the
document moved on is dropped too, so a stale version is never published.  A change is linted after
:data:`CHANGE_DELAY` seconds of quiet.

Diagnostics are published from a lint that builds no fix: a finding's fix is built (on the worker)
when a code action asks for a range that holds it, and the fix-all lint runs only when asked for.
Findings read from the results cache come without the means to build their fixes; the first code
action that needs one lints that version of the document again, with fixes.

Like ``jitlint check``, it never imports JAX or the code it reads. Needs pygls (jitlint's ``lsp`` extra).
"""
from __future__ import annotations

import bisect
import collections
import concurrent.futures
import functools
import logging
import os
import re
import sys
import threading
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Set, Tuple
from urllib.parse import unquote, urlparse

from jitlint import __version__
from jitlint.analysis.cancel import checking, checkpoint
from jitlint.config import Config, ConfigError, find_config
from jitlint.diagnostics import Applicability, Diagnostic, FileError, FileResult, Fix

try:
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.workspace.position_codec import PositionCodec, ServerTextPosition
except ImportError:  # pragma: no cover - reported by run_server
    LanguageServer = None  # type: ignore[assignment,misc]

SOURCE = "jitlint"
FIX_ALL = "source.fixAll.jitlint"
#: seconds of quiet after a change before the document is linted again
CHANGE_DELAY = 0.2
_LINE = re.compile(r"\bline (\d+)\b(?! of )")
#: what ends a line for LSP positions (and for LibCST's line numbers): not a form feed or U+2028
_LINE_END = re.compile(r"\r\n|\r|\n")
_log = logging.getLogger(__name__)


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


class _Superseded(BaseException):
    """The document changed (or closed) while its analysis ran: the analysis stops and is dropped.

    A BaseException, so that no ``except Exception`` of the analysis (a rule's crash guard, the
    runner's) turns it into a finding."""


class Snapshot:
    """One version of a document's text, split into lines once (converting each position must not
    split a 200,000-line text again), with the position encoding the client asked for."""

    def __init__(self, uri: str, version: Optional[int], text: str, codec: "PositionCodec") -> None:
        self.uri, self.version, self.text, self.codec = uri, version, text, codec

    @functools.cached_property
    def starts(self) -> List[int]:
        """The offset where each line starts (split on the worker, when first needed)."""
        return [0] + [m.end() for m in _LINE_END.finditer(self.text)]

    @functools.cached_property
    def lines(self) -> List[str]:
        return [self.text[a:b] for a, b in zip(self.starts, self.starts[1:] + [len(self.text)])]

    def line_text(self, line: int) -> Optional[str]:
        """Line ``line`` (1-based) without its line break; None past the end."""
        if not 0 < line <= len(self.lines):
            return None
        return self.lines[line - 1].rstrip("\r\n")

    def position(self, line: int, column: int) -> "types.Position":
        """1-based line and code-point column -> an LSP position in the client's units (UTF-16 by default)."""
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(max(line - 1, 0), max(column - 1, 0)))

    def at_offset(self, offset: int) -> "types.Position":
        """An index into the text -> an LSP position."""
        row = bisect.bisect_right(self.starts, offset) - 1
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(row, offset - self.starts[row]))

    def line_range(self, line: int) -> "types.Range":
        text = self.line_text(line) or ""
        start = len(text) - len(text.lstrip())
        return types.Range(self.position(line, start + 1), self.position(line, len(text) + 1))

    def edit_range(self, start: int, end: int) -> "types.Range":
        return types.Range(self.at_offset(start), self.at_offset(end))


class Job:
    """What the worker needs to lint one version of a document (taken on the message loop)."""

    def __init__(self, snapshot: Snapshot, overrides: Dict[str, bytes]) -> None:
        self.snapshot = snapshot
        self.uri = snapshot.uri
        self.path = path_of(snapshot.uri)
        #: the text of every open document: the analysis reads the buffers, not the files on disk
        self.overrides = overrides
        self.generation = 0  # set by the worker


class Linted:
    """The findings of one version of a document, with their LSP diagnostics (same order).

    ``fixes`` holds the fixes built so far (by finding index), ``with_fixes`` the lint of the same
    text that built every fix (made only when a finding read from the cache needs its fix); both
    are written by the worker only."""

    def __init__(self, job: Job, config: Optional[Config], result: FileResult,
                 diagnostics: List["types.Diagnostic"]) -> None:
        self.job, self.config, self.result, self.diagnostics = job, config, result, diagnostics
        self.snapshot = job.snapshot
        self.version = job.snapshot.version
        self.fixes: Dict[int, Optional[Fix]] = {}
        self.with_fixes: Optional[FileResult] = None


def may_have_fix(diag: Diagnostic) -> bool:
    """Whether a fix may be offered for the finding, known without building it: its rule has fix
    builders (a finding read from the cache carries neither its fix nor the means to build it)."""
    from jitlint.fixes import FIXABLE_CODES

    return diag.fix is not None or diag.deferred_fix is not None or diag.code in FIXABLE_CODES


class Worker:
    """One thread that runs every analysis of the server, one at a time.

    ``waiting`` holds, per document, only the newest text to lint (not a queue of versions);
    tasks are the other work a request needs (building fixes, fix-all), run before the waiting
    lints.  Both run inside :func:`checking` with a hook that raises :class:`_Superseded` when
    their document got a newer text (or was closed) after they were handed over."""

    def __init__(self, lint: Callable[[Job], Any], deliver: Callable[[Job, Any], None]) -> None:
        self._lint, self._deliver = lint, deliver
        self._cond = threading.Condition()
        self.waiting: Dict[str, Job] = {}
        self._tasks: Deque[Tuple[Callable[[], Any], "concurrent.futures.Future[Any]", str, int]] = collections.deque()
        #: per document: a generation, bumped by every new version and by closing it (the work of an older
        #: generation is superseded), and the version it is of (None once closed)
        self._latest: Dict[str, Tuple[int, Optional[int]]] = {}
        self._stopped = False
        self._thread: Optional[threading.Thread] = None

    def lint(self, job: Job) -> None:
        """Lint ``job`` next (replacing the text of the same document that waits, if any)."""
        with self._cond:
            generation, version = self._latest.get(job.uri, (0, None))
            if version is None or version != job.snapshot.version:  # the same text again (a save) supersedes nothing
                generation += 1
            self._latest[job.uri] = (generation, job.snapshot.version)
            job.generation = generation
            self.waiting[job.uri] = job
            self._start()
            self._cond.notify()

    def forget(self, uri: str) -> None:
        """The document was closed: its waiting text is dropped and a lint of it in progress stops."""
        with self._cond:
            self.waiting.pop(uri, None)
            self._latest[uri] = (self._generation(uri) + 1, None)

    def call(self, uri: str, work: Callable[[], Any]) -> "concurrent.futures.Future[Any]":
        """Run ``work()`` for the text of ``uri`` linted last, on the worker, before the waiting lints;
        its future (cancelled: not run) gives None when the document changed meanwhile."""
        future: "concurrent.futures.Future[Any]" = concurrent.futures.Future()
        with self._cond:
            self._tasks.append((work, future, uri, self._generation(uri)))
            self._start()
            self._cond.notify()
        return future

    def stop(self) -> None:
        """No more work; a lint in progress stops at its next checkpoint."""
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="jitlint-lsp-worker", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not (self._stopped or self._tasks or self.waiting):
                    self._cond.wait()
                if self._stopped:
                    return
                task = self._tasks.popleft() if self._tasks else None
                job = self.waiting.pop(next(iter(self.waiting))) if task is None else None
            if task is not None:
                self._run_task(*task)
            elif job is not None:
                self._run_lint(job)

    def _generation(self, uri: str) -> int:
        return self._latest.get(uri, (0, None))[0]

    def _until_changed(self, uri: str, generation: int) -> Callable[[], None]:
        def superseded() -> None:
            if self._stopped or self._generation(uri) != generation:
                raise _Superseded()

        return superseded

    def _run_task(self, work: Callable[[], Any], future: "concurrent.futures.Future[Any]", uri: str,
                  generation: int) -> None:
        if not future.set_running_or_notify_cancel():
            return  # the request was cancelled before its turn came
        try:
            with checking(self._until_changed(uri, generation)):
                future.set_result(work())
        except _Superseded:
            future.set_result(None)
        except Exception as exc:  # noqa: BLE001 - handed to the request that asked
            future.set_exception(exc)

    def _run_lint(self, job: Job) -> None:
        try:
            with checking(self._until_changed(job.uri, job.generation)):
                outcome = self._lint(job)
        except _Superseded:
            return  # a newer text waits (or none is wanted): nothing of this one is kept
        except Exception as exc:  # noqa: BLE001 - a bug in jitlint must not stop the server
            _log.exception("jitlint: linting %s failed", job.uri)
            outcome = exc
        self._deliver(job, outcome)


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
            self.worker = Worker(self.lint_job, self._deliver_soon)
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
            snapshot = Snapshot(uri, document.version, document.source, self.workspace.position_codec)
            overrides = self.open_texts()
            overrides[path_of(uri)] = snapshot.text.encode("utf-8", "surrogatepass")
            self.worker.lint(Job(snapshot, overrides))

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

        def _deliver_soon(self, job: Job, outcome: Any) -> None:
            """(On the worker.) The outcome of a lint, handed to the message loop."""
            try:
                self.loop.call_soon_threadsafe(self._deliver, job, outcome)
            except RuntimeError:  # the loop is closed: the server is exiting
                pass

        def _deliver(self, job: Job, outcome: Any) -> None:
            if not self.is_current(job.uri, job.snapshot.version):
                return  # the document moved on (its newer text is on its way) or was closed: never published
            if not isinstance(outcome, Linted):
                self.submitted.pop(job.uri, None)  # the lint failed (logged): the next request tries again
                outcome = None
            else:
                self.linted[job.uri] = outcome
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                    uri=job.uri, diagnostics=outcome.diagnostics, version=outcome.version))
            for waiter in self.waiters.pop(job.uri, []):
                if not waiter.done():
                    waiter.set_result(outcome)

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

        async def on_worker(self, linted: Linted, work: Callable[[], Any]) -> Any:
            import asyncio

            return await asyncio.wrap_future(self.worker.call(linted.job.uri, work))

        # ------------------------------------------------------------------ on the worker

        def config_for(self, path: str) -> Optional[Config]:
            """The configuration ``jitlint check PATH`` would use; None when the file is excluded."""
            if not os.path.isabs(path):
                return Config()
            try:
                config = find_config(os.path.dirname(path))
            except ConfigError as exc:
                if self.config_errors.get(path) != str(exc):
                    self.config_errors[path] = str(exc)
                    message = types.ShowMessageParams(types.MessageType.Error, f"jitlint: {exc}")
                    self.loop.call_soon_threadsafe(self.window_show_message, message)
                return Config()
            if config.source is not None:
                root = os.path.dirname(os.path.abspath(config.source))
                if os.path.abspath(path).startswith(root + os.sep) and config.is_excluded(path, root):
                    return None
            return config

        def lint_job(self, job: Job) -> Linted:
            """One version of a document linted as ``jitlint check`` would, its fixes left unbuilt."""
            from jitlint.runner import lint_files

            config = self.config_for(job.path)
            if config is None:
                result = FileResult(job.path)
            else:
                result, = lint_files([job.path], config, cache_dir=cache_dir_for(job.path), overrides=job.overrides,
                                     context=os.path.isabs(job.path), build_fixes=False)
            diagnostics = []
            for diag in result.diagnostics:
                checkpoint()
                diagnostics.append(self.to_lsp(job.snapshot, diag))
            if result.error is not None:  # code that does not parse (yet): one diagnostic where it stops
                diagnostics.append(self.error_to_lsp(job.snapshot, result.error))
            return Linted(job, config, result, diagnostics)

        def build_fixes(self, linted: Linted, indices: Sequence[int]) -> None:
            """The fixes of the findings ``indices``, built into ``linted.fixes``."""
            for i in indices:
                if i in linted.fixes:
                    continue
                diag = linted.result.diagnostics[i]
                if diag.fix is not None or diag.deferred_fix is not None:
                    linted.fixes[i] = diag.built_fix()
                    continue
                # read from the cache: the same text linted again, with its fixes this time
                if linted.with_fixes is None:
                    linted.with_fixes = self.lint_with_fixes(linted)
                linted.fixes[i] = next((d.fix for d in linted.with_fixes.diagnostics
                                        if (d.line, d.column, d.code) == (diag.line, diag.column, diag.code)), None)

        def lint_with_fixes(self, linted: Linted) -> FileResult:
            from jitlint.runner import lint_files

            job = linted.job
            if linted.config is None:
                return FileResult(job.path)
            result, = lint_files([job.path], linted.config, cache_dir=cache_dir_for(job.path), overrides=job.overrides,
                                 context=os.path.isabs(job.path))
            return result

        def fix_all_action(self, linted: Linted) -> Optional["types.CodeAction"]:
            from jitlint.runner import fix_files

            job = linted.job
            if linted.config is None:
                return None
            outcome = fix_files([job.path], linted.config, unsafe=False, cache_dir=cache_dir_for(job.path),
                                overrides=job.overrides, context=os.path.isabs(job.path))[job.path]
            fixed = outcome.result
            if fixed is None or fixed.error is not None or not fixed.changed:
                return None
            whole = linted.snapshot.edit_range(0, len(linted.snapshot.text))
            return types.CodeAction(
                title=f"jitlint: apply {len(fixed.applied)} safe fix{'es' if len(fixed.applied) != 1 else ''}",
                kind=FIX_ALL,
                edit=types.WorkspaceEdit(changes={job.uri: [types.TextEdit(range=whole, new_text=fixed.fixed)]}))

        # ------------------------------------------------------------------------- conversions

        @staticmethod
        def to_lsp(snapshot: Snapshot, diag: Diagnostic) -> "types.Diagnostic":
            from jitlint.rules.base import rule_url

            here = types.Range(snapshot.position(diag.line, diag.column),
                               snapshot.position(diag.end_line, diag.end_column))
            related = []
            for link in diag.reason:
                match = _LINE.search(link)
                where = snapshot.line_range(int(match.group(1))) if match else here
                related.append(types.DiagnosticRelatedInformation(
                    location=types.Location(uri=snapshot.uri, range=where), message=f"why: {link}"))
            page = rule_url(diag.code)
            return types.Diagnostic(
                range=here, message=diag.message, severity=types.DiagnosticSeverity.Warning, code=diag.code,
                code_description=types.CodeDescription(href=page) if page is not None else None, source=SOURCE,
                related_information=related or None)

        @staticmethod
        def error_to_lsp(snapshot: Snapshot, error: "FileError") -> "types.Diagnostic":
            here = types.Range(snapshot.position(error.line, error.column),
                               snapshot.position(error.line, error.column + 1))
            return types.Diagnostic(range=here, message=error.message, severity=types.DiagnosticSeverity.Error,
                                    code="syntax-error" if not error.internal else "internal-error", source=SOURCE)

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
                wanted = [i for i, d, _ in found if may_have_fix(d) and i not in linted.fixes]
                if wanted:
                    await self.on_worker(linted, lambda: self.build_fixes(linted, wanted))
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
                action = await self.on_worker(linted, lambda: self.fix_all_action(linted))
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
            self.worker.stop()
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
        ls.worker.stop()  # an analysis in progress stops at its next checkpoint

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
