"""The analysis of the editor server (``jitlint server``), in a process of its own.

LibCST's parser is native code that holds the interpreter lock for as long as it parses (seconds for a
module of tens of thousands of lines), and it cannot be stopped halfway: an analysis on a thread of the
server freezes the server while it parses.  So every analysis runs in one long-lived worker process
(:func:`serve`, started with ``spawn``: the server has threads, and a forked copy of a process with
threads can deadlock), and the server's side (:class:`Worker`) only hands it work and reads the answers,
on a thread of its own.

* One request at a time.  For each document only its newest text waits (a burst of edits is analysed
  once); other work (building fixes, fix-all, forgetting a closed document) goes first.
* When a request's document gets a newer text (or is closed) while the process works on it, the process
  is asked to stop (a shared flag that its checkpoints read, :mod:`jitlint.analysis.cancel`); when it has
  not stopped after :data:`GRACE` seconds (it is parsing), it is killed, and a spare process, started
  beforehand, takes its place.  Nothing of the stopped request is delivered.
* The process keeps the last lint of each document, with its fixes deferred, and builds fixes from it
  when asked; a process that was killed lost them, and lints that version again when asked for its fixes.
* What crosses between the processes is pickled: jobs, findings (without their deferred fixes), LSP
  diagnostics, fixes.
* The processes die with the server (:func:`jitlint.runner.die_with`), and :meth:`Worker.stop` kills
  them.
"""
from __future__ import annotations

import bisect
import collections
import concurrent.futures
import functools
import logging
import multiprocessing
import os
import re
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Deque, Dict, List, Optional, Sequence, Tuple

from jitlint.analysis.cancel import checking, checkpoint
from jitlint.analysis.reparse import Parsed, parse_document, reparsing
from jitlint.config import Config, ConfigError, find_config
from jitlint.diagnostics import LINE_END as _LINE_END
from jitlint.diagnostics import REASON_LINE as _LINE
from jitlint.diagnostics import Diagnostic, FileError, FileResult, Fix
from jitlint.incremental import Analysis, reanalysing
from jitlint.notebook import is_notebook
from jitlint.source import SourceError, parse

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

SOURCE = "jitlint"
#: seconds a request that was asked to stop may take to stop at a checkpoint before its process is killed
GRACE = 0.3
#: seconds between two looks at whether the request in progress was superseded
POLL = 0.02
_log = logging.getLogger(__name__)


def path_of(uri: str) -> str:
    """The file a ``file:`` URI names (the URI itself for unsaved documents)."""
    from urllib.parse import unquote, urlparse

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


class Superseded(BaseException):
    """The document changed (or closed) while its analysis ran: the analysis stops and is dropped.

    A BaseException, so that no ``except Exception`` of the analysis (a rule's crash guard, the
    runner's) turns it into a finding."""


class Snapshot:
    """One version of a document's text, split into lines once (converting each position must not
    split a 200,000-line text again), with the position encoding the client asked for."""

    def __init__(self, uri: str, version: Optional[int], text: str, codec: PositionCodec) -> None:
        self.uri, self.version, self.text, self.codec = uri, version, text, codec

    @functools.cached_property
    def starts(self) -> List[int]:
        """The offset where each line starts (split when first needed)."""
        return [0] + [m.end() for m in _LINE_END.finditer(self.text)]

    @functools.cached_property
    def lines(self) -> List[str]:
        return [self.text[a:b] for a, b in zip(self.starts, self.starts[1:] + [len(self.text)])]

    def line_text(self, line: int) -> Optional[str]:
        """Line ``line`` (1-based) without its line break; None past the end."""
        if not 0 < line <= len(self.lines):
            return None
        return self.lines[line - 1].rstrip("\r\n")

    def position(self, line: int, column: int) -> types.Position:
        """1-based line and code-point column -> an LSP position in the client's units (UTF-16 by default)."""
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(max(line - 1, 0), max(column - 1, 0)))

    def at_offset(self, offset: int) -> types.Position:
        """An index into the text -> an LSP position."""
        row = bisect.bisect_right(self.starts, offset) - 1
        return self.codec.position_to_client_units(self.lines, ServerTextPosition(row, offset - self.starts[row]))

    def line_range(self, line: int) -> types.Range:
        text = self.line_text(line) or ""
        start = len(text) - len(text.lstrip())
        return types.Range(self.position(line, start + 1), self.position(line, len(text) + 1))

    def edit_range(self, start: int, end: int) -> types.Range:
        return types.Range(self.at_offset(start), self.at_offset(end))


class Job:
    """One version of a document, as the worker process gets it (taken on the server's message loop).

    ``overrides`` holds the text of every open document: the analysis reads the editor's buffers,
    not the files on disk."""

    def __init__(self, uri: str, version: Optional[int], text: str, overrides: Dict[str, bytes],
                 encoding: str) -> None:
        self.uri, self.version, self.text, self.overrides, self.encoding = uri, version, text, overrides, encoding
        self.generation = 0  # set by the Worker

    @property
    def path(self) -> str:
        return path_of(self.uri)

    def snapshot(self) -> Snapshot:
        return Snapshot(self.uri, self.version, self.text, PositionCodec(self.encoding))


# ------------------------------------------------------------------------ in the worker process

def to_lsp(snapshot: Snapshot, diag: Diagnostic) -> types.Diagnostic:
    from jitlint.rules.base import rule_url

    here = types.Range(snapshot.position(diag.line, diag.column), snapshot.position(diag.end_line, diag.end_column))
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


def error_to_lsp(snapshot: Snapshot, error: FileError) -> types.Diagnostic:
    here = types.Range(snapshot.position(error.line, error.column), snapshot.position(error.line, error.column + 1))
    return types.Diagnostic(range=here, message=error.message, severity=types.DiagnosticSeverity.Error,
                            code="syntax-error" if not error.internal else "internal-error", source=SOURCE)


def config_for(path: str) -> Tuple[Optional[Config], Optional[str]]:
    """The configuration ``jitlint check PATH`` would use (None when the file is excluded), and the
    error of a configuration that could not be read (the defaults apply then)."""
    if not os.path.isabs(path):
        return Config(), None
    try:
        config = find_config(os.path.dirname(path))
    except ConfigError as exc:
        return Config(), str(exc)
    if config.source is not None:
        root = os.path.dirname(os.path.abspath(config.source))
        if os.path.abspath(path).startswith(root + os.sep) and config.is_excluded(path, root):
            return None, None
    return config, None


#: what a lint sends back: the findings (their fixes unbuilt), their LSP diagnostics (the same order, then
#: the error's), and the error of a configuration that could not be read
Linted = Tuple[FileResult, List[types.Diagnostic], Optional[str]]


class _Lint:
    """The last lint of a document, kept in the worker process: its findings carry their deferred
    fixes, except those read from the results cache, which come without the means to build them;
    ``analysed`` is then the same text analysed again (not from the cache), its fixes still unbuilt:
    made while the server is idle (see :meth:`Analyser.prepare`), or by the first code action that
    needs a fix."""

    def __init__(self, job: Job, config: Optional[Config], result: FileResult,
                 store_fixes: Optional[List[Callable[[], None]]] = None) -> None:
        self.job, self.config, self.result = job, config, result
        self.analysed: Optional[FileResult] = None
        #: builds the fixes of this lint's findings and stores them in the results cache (while idle)
        self.store_fixes = store_fixes or []

    def from_cache(self) -> bool:
        """Some finding whose rule has fix builders came without the means to build its fix."""
        return any(_needs_analysis(d) for d in self.result.diagnostics)


def _needs_analysis(diag: Diagnostic) -> bool:
    """Read from the cache without its fix (or with its title only), when its rule has fix builders."""
    from jitlint.runner import fix_unbuilt

    return fix_unbuilt(diag)


class Analyser:
    """What the worker process does for the server; it keeps the last lint of each document."""

    def __init__(self) -> None:
        self.lints: Dict[str, _Lint] = {}
        #: the last parse of each document, by path: the next version is parsed again only where it changed
        self.parses: Dict[str, Parsed] = {}
        #: the last analysis of each document, by real path: the next version's analysis redoes only
        #: the statements an edit can affect
        self.analyses: Dict[str, Analysis] = {}

    def lint(self, job: Job) -> Linted:
        """One version of a document linted as ``jitlint check`` would, its fixes left unbuilt."""
        from jitlint.runner import lint_files

        config, config_error = config_for(job.path)
        store_fixes: List[Callable[[], None]] = []
        if config is None or is_notebook(job.path):
            # (a notebook opened as the text of its JSON: its findings are lines of cells, not of that text;
            # an editor shows a notebook's cells as documents of their own)
            result = FileResult(job.path)
        else:
            with reparsing(self.parses), reanalysing(self.analyses):
                result, = lint_files([job.path], config, cache_dir=cache_dir_for(job.path),
                                     overrides=job.overrides, context=os.path.isabs(job.path), build_fixes=False,
                                     store_fixes=store_fixes)
        snapshot = job.snapshot()
        diagnostics = []
        for diag in result.diagnostics:
            checkpoint()
            diagnostics.append(to_lsp(snapshot, diag))
        if result.error is not None:  # code that does not parse (yet): one diagnostic where it stops
            diagnostics.append(error_to_lsp(snapshot, result.error))
        self.lints[job.uri] = _Lint(job, config, result, store_fixes)
        return result, diagnostics, config_error

    def _lint_of(self, job: Job) -> _Lint:
        """The lint of ``job`` this process holds (linted again when it does not: it was started
        after that lint)."""
        lint = self.lints.get(job.uri)
        if lint is None or (lint.job.version, lint.job.text) != (job.version, job.text):
            self.lint(job)
            lint = self.lints[job.uri]
        return lint

    def fixes(self, job: Job, indices: Sequence[int]) -> Dict[int, Optional[Fix]]:
        """The fixes of the findings ``indices`` of the lint of ``job``."""
        lint = self._lint_of(job)
        out: Dict[int, Optional[Fix]] = {}
        for i in indices:
            checkpoint()
            diag = lint.result.diagnostics[i]
            if not _needs_analysis(diag):
                with reparsing(self.parses), reanalysing(self.analyses):  # (what a cached finding's fix reuses)
                    out[i] = diag.built_fix()
                continue
            # read from the cache: the fix of the same finding of the text analysed again
            if lint.analysed is None:
                lint.analysed = self._analyse_again(lint)
            same = next((d for d in lint.analysed.diagnostics
                         if (d.line, d.column, d.code) == (diag.line, diag.column, diag.code)), None)
            out[i] = same.built_fix() if same is not None else None
        return out

    def prepare(self, job: Job) -> bool:
        """While the server is idle: when findings of the lint of ``job`` were read from the cache, analyse
        that text again (its fixes unbuilt), so that a code action asked later builds one fix, not the
        whole analysis.  Whether it analysed."""
        lint = self._lint_of(job)
        if lint.analysed is None and lint.from_cache():
            lint.analysed = self._analyse_again(lint)
            return True
        kept = self.parses.get(job.path)
        if lint.config is None or is_notebook(job.path) or (kept is not None and kept.source == job.text) \
                or not any(d.deferred_fix is not None for d in lint.result.diagnostics):
            return False
        # read from the cache with fixes built around their statements when asked: the text parsed now (and
        # kept), which is most of what building one costs when the worker never parsed it (a restart)
        with reparsing(self.parses):
            try:
                parse_document(job.text, job.path, parse)
            except SourceError:
                return False
        return True

    def store_fixes(self, job: Job) -> bool:
        """While the server is idle, after a lint that analysed (not read from the cache): build its
        findings' fixes and store them with its findings in the results cache, so that the same text
        opened again (a file reopened, the editor started again) gets its fixes without an analysis.  Stopped
        by any other request, it goes on later where it stopped.  Whether it stored something."""
        lint = self._lint_of(job)
        stored = False
        while lint.store_fixes:
            lint.store_fixes[0]()
            lint.store_fixes.pop(0)
            stored = True
        return stored

    def _analyse_again(self, lint: _Lint) -> FileResult:
        from jitlint.runner import lint_files

        job = lint.job
        if lint.config is None:
            return FileResult(job.path)
        with reparsing(self.parses), reanalysing(self.analyses):
            result, = lint_files([job.path], lint.config, cache_dir=None, overrides=job.overrides,
                                 context=os.path.isabs(job.path), build_fixes=False)
        return result

    @staticmethod
    def fix_all(job: Job) -> Optional[Tuple[int, str]]:
        """Every safe fix of the document, as ``jitlint check --fix`` makes them: how many, and the
        fixed text (None when nothing changes)."""
        from jitlint.runner import fix_files

        config, _ = config_for(job.path)
        if config is None:
            return None
        fixed = fix_files([job.path], config, unsafe=False, cache_dir=cache_dir_for(job.path),
                          overrides=job.overrides, context=os.path.isabs(job.path))[job.path].result
        if fixed is None or fixed.error is not None or not fixed.changed:
            return None
        return len(fixed.applied), fixed.fixed

    def forget(self, uri: str) -> None:
        lint = self.lints.pop(uri, None)
        if lint is not None:
            self.parses.pop(lint.job.path, None)
            self.analyses.pop(os.path.realpath(lint.job.path), None)


def serve(conn: Connection, stop: Any, owner: int) -> None:
    """The worker process: answer the requests ``(id, what, args)`` that come over ``conn``, one at a
    time, until it closes; a request stops at its next checkpoint once ``stop.value`` is its id."""
    from jitlint.runner import die_with

    die_with(owner)
    os.dup2(2, 1)  # its standard output is the server's, the editor's channel: nothing may be written there
    sys.stdout = sys.stderr
    from jitlint import engine, runner  # noqa: F401 - imported now: their time is start-up, not the first lint

    analyser = Analyser()

    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        ident, what, args = request

        def stopped(ident: int = ident) -> None:
            if stop.value == ident:
                raise Superseded()

        try:
            stopped()
            conn.send((ident, "started", None))
            with checking(stopped):
                reply = (ident, "done", getattr(analyser, what)(*args))
        except Superseded:
            reply = (ident, "superseded", None)
        except Exception:  # noqa: BLE001 - handed to the server, which logs it
            reply = (ident, "failed", traceback.format_exc())
        conn.send(reply)


# -------------------------------------------------------------------------- in the server

class _Failed(Exception):
    """The worker process failed a request (a bug in jitlint) or died."""


class _Process:
    """A worker process and the server's end of its pipe (started on the Worker's thread: the kernel's
    parent-death signal, see :func:`jitlint.runner.die_with`, follows the thread that started it)."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.stop = context.RawValue("q", 0)
        self.process = context.Process(target=serve, args=(child, self.stop, os.getpid()),
                                       name="jitlint-lsp-worker", daemon=True)
        self.process.start()
        child.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.join()
        self.conn.close()


class Worker:
    """The server's side of the worker process: a thread that hands it one request at a time.

    ``waiting`` holds, per document, only the newest text to lint (not a queue of versions); tasks are the other
    work a request needs (building fixes, fix-all, forgetting a closed document), run before the waiting lints;
    ``idle`` holds work done only when nothing else waits (getting a lint read from the cache ready for code
    actions), stopped as soon as something does. ``deliver(job, outcome)`` gets, on this thread, what a lint gave (a
    :data:`Linted`, or the exception of a failed one); a lint that was superseded delivers nothing."""

    def __init__(self, deliver: Callable[[Job, Any], None]) -> None:
        self._deliver = deliver
        self._cond = threading.Condition()
        self.waiting: Dict[str, Job] = {}
        #: per document, a lint to prepare for code actions (see Analyser.prepare): run only when nothing
        #: else waits, and given up as soon as something does
        self.idle: Dict[str, Job] = {}
        self._tasks: Deque[Tuple[tuple, Optional["concurrent.futures.Future[Any]"], str, int]] = collections.deque()
        #: per document: a generation, bumped by every new version and by closing it (the work of an older
        #: generation is superseded), and the version it is of (None once closed)
        self._latest: Dict[str, Tuple[int, Optional[int]]] = {}
        self._stopped = False
        self._thread: Optional[threading.Thread] = None
        self._process: Optional[_Process] = None
        self._spare: Optional[_Process] = None
        self._requests = 0
        #: how many worker processes were killed because what they worked on was superseded
        self.killed = 0

    def lint(self, job: Job) -> None:
        """Lint ``job`` next (replacing the text of the same document that waits, if any)."""
        with self._cond:
            generation, version = self._latest.get(job.uri, (0, None))
            if version is None or version != job.version:  # the same text again (a save) supersedes nothing
                generation += 1
            self._latest[job.uri] = (generation, job.version)
            job.generation = generation
            self.idle.pop(job.uri, None)
            self.waiting[job.uri] = job
            self._start()
            self._cond.notify()

    def forget(self, uri: str) -> None:
        """The document was closed: its waiting text is dropped, work on it in progress stops, and the
        worker process forgets its last lint."""
        with self._cond:
            self.waiting.pop(uri, None)
            self.idle.pop(uri, None)
            generation = self._generation(uri) + 1
            self._latest[uri] = (generation, None)
            if self._thread is not None:
                self._tasks.append((("forget", (uri,)), None, uri, generation))
                self._cond.notify()

    def prepare(self, job: Job) -> None:
        """When nothing else waits, have the worker process get the lint of ``job`` (a version it
        delivered) ready for code actions (see Analyser.prepare)."""
        with self._cond:
            if self._stopped or self._generation(job.uri) != job.generation:
                return
            self.idle[job.uri] = job
            self._start()
            self._cond.notify()

    def call(self, uri: str, what: str, *args: Any) -> "concurrent.futures.Future[Any]":
        """``Analyser.<what>(*args)`` in the worker process, before the waiting lints; its future
        (cancelled: not run) gives None when the document changed meanwhile."""
        future: "concurrent.futures.Future[Any]" = concurrent.futures.Future()
        with self._cond:
            if self._stopped:
                future.set_result(None)
                return future
            self._tasks.append(((what, args), future, uri, self._generation(uri)))
            self._start()
            self._cond.notify()
        return future

    def stop(self, wait: bool = False) -> None:
        """No more work; the worker processes are killed (``wait``: before this returns)."""
        with self._cond:
            self._stopped = True
            self._cond.notify()
            thread = self._thread
        if wait and thread is not None and thread is not threading.current_thread():
            thread.join(timeout=10)

    @property
    def pids(self) -> List[int]:
        """The worker processes alive now (the one in use first, then the spare)."""
        return [p.process.pid for p in (self._process, self._spare) if p is not None and p.process.is_alive()]

    def _start(self) -> None:
        if self._thread is None and not self._stopped:
            self._thread = threading.Thread(target=self._run, name="jitlint-lsp-worker", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    while not (self._stopped or self._tasks or self.waiting or self.idle):
                        self._cond.wait()
                    if self._stopped:
                        return
                    task = self._tasks.popleft() if self._tasks else None
                    job = self.waiting.pop(next(iter(self.waiting))) if task is None and self.waiting else None
                    spare = self.idle.pop(next(iter(self.idle))) if task is None and job is None else None
                if task is not None:
                    self._run_task(*task)
                elif job is not None:
                    self._run_lint(job)
                elif spare is not None:
                    self._run_idle(spare)
        finally:
            for process in (self._process, self._spare):
                if process is not None:
                    process.kill()
            self._process = self._spare = None

    def _generation(self, uri: str) -> int:
        return self._latest.get(uri, (0, None))[0]

    def _superseded(self, uri: str, generation: int) -> bool:
        return self._stopped or self._generation(uri) != generation

    def _run_task(self, request: tuple, future: Optional["concurrent.futures.Future[Any]"], uri: str,
                  generation: int) -> None:
        if future is None:  # forget: nothing to do when no process holds anything
            if self._process is not None:
                try:
                    self._ask(request, uri, generation)
                except Superseded:
                    pass  # the document was opened again meanwhile: its new lint replaces what was kept
                except _Failed as exc:
                    _log.error("jitlint: forgetting %s failed: %s", uri, exc)
            return
        if not future.set_running_or_notify_cancel():
            return  # the request was cancelled before its turn came
        try:
            future.set_result(self._ask(request, uri, generation))
        except Superseded:
            future.set_result(None)
        except _Failed as exc:
            future.set_exception(exc)

    def _run_lint(self, job: Job) -> None:
        try:
            outcome = self._ask(("lint", (job,)), job.uri, job.generation)
        except Superseded:
            return  # a newer text waits (or none is wanted): nothing of this one is kept
        except _Failed as exc:  # a bug in jitlint must not stop the server
            _log.error("jitlint: linting %s failed: %s", job.uri, exc)
            outcome = exc
        self._deliver(job, outcome)

    def _run_idle(self, job: Job) -> None:
        try:
            self._ask(("prepare", (job,)), job.uri, job.generation, idle=True)
        except Superseded:
            return  # other work came (or a new version): the first code action prepares it, if one comes
        except _Failed as exc:
            _log.error("jitlint: preparing %s for code actions failed: %s", job.uri, exc)
            return
        try:
            self._ask(("store_fixes", (job,)), job.uri, job.generation, idle=True, for_any=True)
        except Superseded:
            with self._cond:  # made way for other work: it goes on when nothing else waits
                if not self._superseded(job.uri, job.generation) and job.uri not in self.idle:
                    self.idle[job.uri] = job
        except _Failed as exc:
            _log.error("jitlint: storing the fixes of %s failed: %s", job.uri, exc)

    def _other_work(self, uri: str, for_any: bool = False) -> bool:
        """Something waits that idle work on ``uri`` must make way for: a lint, or a request about
        another document (one about this document waits for what the idle work makes, unless
        ``for_any``: work that no request waits for makes way for every request)."""
        return bool(self.waiting) or any(for_any or task[2] != uri for task in list(self._tasks))

    def _ready(self) -> _Process:
        """The process to ask: the one in use, else the spare, else a new one; and a new spare."""
        if self._process is None or not self._process.process.is_alive():
            if self._process is not None:
                self._process.kill()
            self._process, self._spare = self._spare or _Process(), None
        return self._process

    def _died(self, process: _Process) -> _Failed:
        """A worker process that died of itself (a crash in native code, the out-of-memory killer)."""
        self._process = None
        process.kill()
        return _Failed("the worker process died")

    def _ask(self, request: tuple, uri: str, generation: int, idle: bool = False, for_any: bool = False) -> Any:
        """Send ``request`` to the worker process and wait for its answer, asking it to stop when the
        document moves on meanwhile, and killing it when it does not stop within :data:`GRACE`."""
        if self._superseded(uri, generation):
            raise Superseded()
        process = self._ready()
        self._requests += 1
        ident = self._requests
        try:
            process.conn.send((ident,) + request)
        except OSError:  # it died (and was not killed by us: that happens only below)
            raise self._died(process) from None
        if self._spare is None:  # started now, while the request runs: ready when the next kill comes
            self._spare = _Process()
        started = False
        asked_to_stop: Optional[float] = None
        while True:
            if wait([process.conn, process.process.sentinel], timeout=POLL):
                try:
                    got, status, payload = process.conn.recv()
                except (EOFError, OSError):
                    raise self._died(process) from None
                if got != ident:
                    continue
                if status == "started":
                    started = True
                    continue
                if status == "done":
                    return payload
                if status == "superseded":
                    raise Superseded()
                raise _Failed(payload)
            if asked_to_stop is None and (self._superseded(uri, generation)
                                          or (idle and self._other_work(uri, for_any))):
                process.stop.value = ident
                asked_to_stop = time.monotonic()
            if asked_to_stop is not None and (
                    self._stopped or (started and time.monotonic() - asked_to_stop > GRACE)):
                self._process = None
                process.kill()  # in native code (the parse) that cannot be stopped: no other way
                self.killed += 1
                raise Superseded()
