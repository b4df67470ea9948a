"""Checking many files: pre-filter, the project around them, units of work, cache, processes.

Each file that can contain traced code is one *unit*: it is parsed and
analysed together with the project modules its traced code calls into (loaded
lazily, see :mod:`jitlint.analysis.project`).  A unit's result is the findings
of every module it reached; the report of a checked file is the union over all
units of the findings that land in it.  The units are the checked files and
the files of the project around them that import a checked one (their traced
code can call into it), so a file gets the same findings whether it is checked
alone or with its whole project.  A unit's cache entry is keyed by its own
text and lists the digests of the modules it read (see :mod:`jitlint.cache`);
units run in any order, in any process.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar

from jitlint import __version__, incremental
from jitlint.analysis.cancel import checkpoint
from jitlint.cache import (Cache, checked_type, diagnostic_from_json, digest, error_from_json, error_to_json, keyed,
                           summaries_from_json)
from jitlint.config import Config
from jitlint.diagnostics import Diagnostic, FileError, FileResult, Fix
from jitlint.files import DEFAULT_MAX_FILE_SIZE, project_files, project_root, read_source_file
from jitlint.notebook import (CellMap, NotebookError, NotebookSource, in_cells, is_notebook, notebook_source,
                              read_notebook, rebuild)
from jitlint.fixing import (MAX_ROUNDS, AppliedFix, Encoded, FileFixResult, FixResult, decode_file, encode_file,
                            file_outcome, fix_round, is_allowed)
from jitlint.source import imported_modules  # noqa: F401 - (its home was here)

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

#: the process-pool machinery, imported when first used: a run in this process (``-j1``, a few files)
#: never needs it, and importing it (multiprocessing, its connections, sockets) costs tens of
#: milliseconds of every ``jitlint check``.  Read as attributes of this module (``_pool_part``), so
#: that a name set on the module (a test's stand-in pool) is the one used.
_POOL_PARTS = {
    "multiprocessing": ("multiprocessing", None),
    "ProcessPoolExecutor": ("concurrent.futures", "ProcessPoolExecutor"),
    "BrokenProcessPool": ("concurrent.futures.process", "BrokenProcessPool"),
    "CancelledError": ("concurrent.futures", "CancelledError"),
    "FutureTimeout": ("concurrent.futures", "TimeoutError"),
    "FIRST_COMPLETED": ("concurrent.futures", "FIRST_COMPLETED"),
    "wait": ("concurrent.futures", "wait"),
}


def __getattr__(name: str):
    where = _POOL_PARTS.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(where[0])
    value = module if where[1] is None else getattr(module, where[1])
    globals()[name] = value
    return value


def _pool_part(name: str):
    """One of :data:`_POOL_PARTS`, imported now if it was not yet."""
    return getattr(sys.modules[__name__], name)


T = TypeVar("T")

#: words that name a way into traced code; a file without any of them has no
#: traced code of its own (its functions can still be traced as helpers of
#: another module: those are loaded lazily by the units that call them).
#: Matched as words: `lax.cond` counts, `second` and `condition` do not.
TRACE_WORDS = ("jit", "pmap", "vmap", "scan", "fori_loop", "while_loop", "cond", "switch", "checkpoint", "remat",
               "shard_map", "filter_jit", "lax.map", "eval_shape", "make_jaxpr", "checkify", "associative_scan",
               "custom_root", "custom_linear_solve")

_WORD_PATTERNS: Dict[Tuple[str, ...], "re.Pattern[bytes]"] = {}


def _trace_word_pattern(extra: Tuple[str, ...]) -> "re.Pattern[bytes]":
    pattern = _WORD_PATTERNS.get(extra)
    if pattern is None:
        words = TRACE_WORDS + tuple(name.rsplit(".", 1)[-1] for name in extra)
        alternatives = b"|".join(re.escape(w.encode()) for w in words)
        # (and `.at[`: a JAX array update whose result is dropped is reported wherever it is, see JIT105)
        pattern = _WORD_PATTERNS[extra] = re.compile(rb"(?<![A-Za-z0-9])(?:" + alternatives + rb")(?![A-Za-z0-9])"
                                                     rb"|\.at\[")
    return pattern


def may_contain_traced_code(data: bytes, config: Config) -> bool:
    return _trace_word_pattern(tuple(config.extend_jit_decorators)).search(data) is not None




class ImportGraph:
    """Which files import which, from the import lines of their text (see :func:`imported_modules`)."""

    def __init__(self, imports: Dict[str, Sequence[str]], roots: Sequence[str]) -> None:
        from jitlint.analysis.project import Project

        self.imports = imports
        self._resolver = Project(roots=roots)
        self._real = {os.path.realpath(p): p for p in imports}
        known = {os.path.abspath(p) for p in imports}
        #: a module file is one of the listed files (no file system look-up for each import)
        self._exists = lambda candidate: candidate in known
        self._direct: Dict[str, List[str]] = {}
        self._files: Dict[Tuple[str, str], Optional[str]] = {}
        self._roots: Dict[str, str] = {}
        self._reverse: Optional[Dict[str, List[str]]] = None

    def _resolve(self, from_path: str, name: str) -> Optional[str]:
        directory = os.path.dirname(from_path)
        key = (directory if name.startswith(".") else self._package_root(directory), name)
        if key not in self._files:
            files = self._resolver._module_files(from_path, name, self._exists)  # noqa: SLF001 - as analysis does
            target = self._real.get(os.path.realpath(files[0])) if files else None
            self._files[key] = target
        return self._files[key]

    def _package_root(self, directory: str) -> str:
        root = self._roots.get(directory)
        if root is None:
            from jitlint.analysis.project import package_roots

            root = self._roots[directory] = package_roots(os.path.abspath(directory))[0]
        return root

    def direct(self, path: str) -> List[str]:
        if path not in self._direct:
            out = []
            for name in self.imports.get(path, ()):
                target = self._resolve(path, name)
                if target is not None and target != path and target not in out:
                    out.append(target)
            self._direct[path] = out
        return self._direct[path]

    def _importers(self) -> Dict[str, List[str]]:
        if self._reverse is None:
            self._reverse = {}
            for path in self.imports:
                for target in self.direct(path):
                    self._reverse.setdefault(target, []).append(path)
        return self._reverse

    def direct_importers(self, target: str) -> List[str]:
        """The files that import ``target`` themselves."""
        return sorted(self._importers().get(target, ()))

    def importers_of(self, targets: Iterable[str]) -> Set[str]:
        """The files that import one of ``targets``, directly or not (the targets excluded)."""
        reverse = self._importers()
        start = set(targets)
        seen: Set[str] = set()
        todo = list(start)
        while todo:
            for importer in reverse.get(todo.pop(), ()):
                if importer not in seen and importer not in start:
                    seen.add(importer)
                    todo.append(importer)
        return seen


# ----------------------------------------------------------------------- cache
def _config_key(config: Config) -> str:
    fields = asdict(replace(config, source=None))
    return json.dumps(fields, sort_keys=True, default=str)


def code_key() -> bytes:
    """A digest of jitlint's own source: results of another build are never reused."""
    global _CODE_KEY
    if _CODE_KEY is None:
        h = hashlib.sha256(__version__.encode())
        package = os.path.dirname(os.path.abspath(__file__))
        for folder, dirs, files in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    with open(os.path.join(folder, name), "rb") as fh:
                        h.update(name.encode() + b"\0" + fh.read())
        _CODE_KEY = h.digest()
    return _CODE_KEY


_CODE_KEY: Optional[bytes] = None


def unit_key(path: str, text_digest: str, config_key: str) -> str:
    """jitlint's own code, the configuration, the file's place and text, under the user's secret.

    The other modules the unit reads are not in the key: the entry lists them
    with their digests, checked on every hit (:func:`_still_valid`).
    """
    # the folder the run starts from too: other modules are named relative to it in the reasons
    return keyed(b"unit", code_key(), config_key.encode(), os.path.abspath(path).encode("utf-8", "surrogatepass"),
                 os.getcwd().encode("utf-8", "surrogatepass"), text_digest.encode())


def _unit_from_json(raw: dict) -> "UnitResult":
    decided = raw.get("fixes_built") is True  # each finding's fix, or that it has none, is in the entry
    diagnostics = {checked_type(p, str): tuple(diagnostic_from_json(d, decided) for d in checked_type(ds, list))
                   for p, ds in checked_type(raw["diagnostics"], dict).items()}
    deps = {checked_type(p, str): checked_type(d, str) for p, d in checked_type(raw.get("deps", {}), dict).items()}
    suppressed = {checked_type(p, str): tuple((checked_type(line, int), checked_type(code, str)) for line, code in checked_type(pairs, list))
                  for p, pairs in checked_type(raw.get("suppressed", {}), dict).items()}
    return UnitResult(diagnostics, error_from_json(raw.get("error")), deps, suppressed)


def _unit_to_json(result: "UnitResult") -> dict:
    return {"diagnostics": {p: [d.to_json(unbuilt_edits=True) for d in ds] for p, ds in result.diagnostics.items()},
            "error": error_to_json(result.error), "deps": result.deps,
            "suppressed": {p: [list(pair) for pair in pairs] for p, pairs in result.suppressed.items()}}


class _StoreWithFixes:
    """Stores the units' findings again under their keys, with their fixes built (edits included).
    Stopped at a checkpoint, it goes on where it stopped when called again (the fixes built so far kept)."""

    def __init__(self, cache: Cache, fresh: Sequence[Tuple[str, "UnitResult"]]) -> None:
        self.cache, self.fresh = cache, list(fresh)
        self.built: Dict[Tuple[int, str, int], Optional[Fix]] = {}

    def __call__(self) -> None:
        for n, (key, result) in enumerate(self.fresh):
            diagnostics = {}
            for path, found in result.diagnostics.items():
                complete = []
                for i, d in enumerate(found):
                    if d.deferred_fix is not None:
                        if (n, path, i) not in self.built:
                            checkpoint()
                            self.built[n, path, i] = d.built_fix()
                        d = replace(d, fix=self.built[n, path, i], deferred_fix=None)
                    complete.append(d)
                diagnostics[path] = tuple(complete)
            self.cache.store(key, dict(_unit_to_json(replace(result, diagnostics=diagnostics)), fixes_built=True))


def _cacheable(result: "UnitResult") -> bool:
    from jitlint.rules.base import INTERNAL_ERROR_CODE

    if result.error is not None and result.error.internal:
        return False
    return not any(d.code == INTERNAL_ERROR_CODE for ds in result.diagnostics.values() for d in ds)


# ----------------------------------------------------------------------- units
@dataclass(frozen=True)
class UnitResult:
    #: findings per module the analysis reached, by real path
    diagnostics: Dict[str, Tuple[Diagnostic, ...]]
    error: Optional[FileError] = None
    #: digest of every other module the analysis read (MISSING: it could not be read), by real path
    deps: Dict[str, str] = field(default_factory=dict)
    #: (line, code) of the findings a ``# noqa`` silenced, per module by real path (what JIT900 needs)
    suppressed: Dict[str, Tuple[Tuple[int, str], ...]] = field(default_factory=dict)


MISSING = "missing"

#: seconds one unit may take before it is stopped (``--file-timeout``)
DEFAULT_FILE_TIMEOUT = 600.0


#: modules parsed in this process, by their text, the latest last (at most :data:`PARSED_CHARACTERS` of
#: text): the analysis of one file loads the project modules its traced code reaches, which are files of
#: the same run and loaded again by their neighbours' analyses -- each is parsed once while it is among
#: the latest.  A LibCST tree is immutable, and each analysis keeps its facts about one apart.
_PARSED: Dict[str, object] = {}
#: about 30 bytes of tree per character of text
PARSED_CHARACTERS = 1_000_000
_parsed_characters = 0


def parse_once(source: str):
    """The LibCST module of ``source``, parsed only if it is not among the latest parsed here."""
    from jitlint.engine import parse

    global _parsed_characters
    module = _PARSED.pop(source, None)
    if module is None:
        module = parse(source)
        _parsed_characters += len(source)
    _PARSED[source] = module
    while _parsed_characters > PARSED_CHARACTERS and len(_PARSED) > 1:
        oldest = next(iter(_PARSED))
        del _PARSED[oldest]
        _parsed_characters -= len(oldest)
    return module


def _loader(overrides: Dict[str, bytes], digests: Dict[str, str], limit: Optional[int]):
    """Reads a module for the analysis (an override first), noting its digest."""
    from jitlint.engine import SourceError, decode_source

    def peek(path: str) -> Optional[bytes]:
        """The bytes of a module, read without parsing it (what was read is noted all the same)."""
        real = os.path.realpath(path)
        try:
            data = overrides[real] if real in overrides else read_source_file(path, limit)
        except OSError:
            digests[real] = MISSING
            return None
        digests[real] = digest(data)
        return data

    def load(path: str):
        data = peek(path)
        if data is None:
            return None
        try:
            source = decode_source(data)
            return source, parse_once(source)
        except (SourceError, RecursionError):
            return None

    load.peek = peek  # type: ignore[attr-defined]
    return load


def run_unit(path: str, data: bytes, config: Config, roots: Sequence[str] = (),
             overrides: Optional[Dict[str, bytes]] = None, max_file_size: Optional[int] = DEFAULT_MAX_FILE_SIZE,
             build_fixes: bool = True, edits: bool = True,
             importers: Optional[Sequence[str]] = None,
             graph: Optional[Dict[str, Tuple[str, ...]]] = None) -> UnitResult:
    """Analyse one file with the project modules its traced code reaches; never raises.  Without
    ``build_fixes`` fixes are built when asked for (see ``Diagnostic.built_fix``): in-process only;
    without ``edits`` a fix is reported by its title and applicability (``Fix.without_edits``).
    ``graph``: by real path, the files of the project that import each module (see ``importers_key``)."""
    from jitlint.analysis.reparse import last_offsets, parse_document
    from jitlint.engine import SourceError, decode_source
    from jitlint.source import collector_paused

    whole = _whole_analysis(path, config, roots, overrides, max_file_size, build_fixes, edits, importers, graph)
    try:
        with collector_paused():  # see there: the tree and the analysis's facts live until the end
            source = decode_source(data)
            module = parse_document(source, path, parse_once)
            if incremental.active() and not build_fixes:  # the editor: only what the edit can change
                state = (_config_key(config), tuple(roots), max_file_size, edits)
                found, silenced, digests = incremental.analyse(path, source, module, last_offsets(path), state, whole)
            else:
                found, silenced, digests = whole(source, module, False)
    except SourceError as exc:
        return UnitResult({}, FileError(path, exc.line, exc.column, exc.message))
    except Exception as exc:  # noqa: BLE001 - a bug in jitlint must not stop the run
        return UnitResult({}, FileError(path, 1, 1, f"internal error: {type(exc).__name__}: {exc}", internal=True))
    return UnitResult({key: tuple(diags) for key, diags in found.items()}, None, digests,
                      {key: tuple(sorted(pairs)) for key, pairs in silenced.items() if pairs})


def _whole_analysis(path: str, config: Config, roots: Sequence[str], overrides: Optional[Dict[str, bytes]],
                    max_file_size: Optional[int], build_fixes: bool, edits: bool,
                    importers: Optional[Sequence[str]], graph: Optional[Dict[str, Tuple[str, ...]]] = None
                    ) -> Callable:
    """The whole analysis of the unit ``path`` as ``incremental`` calls it: (source, module, build its fixes
    now) -> (findings by real path, silenced by real path, the other modules read, and the lists of
    importers it asked for, under ``importers_key``)."""
    from jitlint.engine import analyse_unit

    def whole(source: str, module, fixes_now: bool):
        read: Dict[str, str] = {}
        silenced: Dict[str, Set[Tuple[int, str]]] = {}
        found, project = analyse_unit(path, source, module, config, roots=roots,
                                      load_source=_loader(overrides or {}, read, max_file_size),
                                      suppressed=silenced, build_fixes=build_fixes or fixes_now, edits=edits,
                                      importers=importers, graph_importers=graph)
        for real, found_importers in project.consulted_importers.items():
            read[importers_key(real)] = importers_digest(found_importers)
        if build_fixes:  # nothing refers back to the analysis (the editor's deferred fixes would)
            project.release()
        read.pop(os.path.realpath(path), None)
        return found, silenced, read

    return whole


def _fix_of_cached(path: str, data: bytes, config: Config, roots: Sequence[str], overrides: Dict[str, bytes],
                   max_file_size: Optional[int], edits: bool, importers: Optional[Sequence[str]],
                   finding: Diagnostic) -> Optional[Fix]:
    """The fix of a finding of ``path`` read from the results cache without it (the editor, a file opened
    again): built by an analysis of the finding's statement and what is linked to it, as after an edit
    (``incremental``), not of the whole module; by the unit's whole analysis where that cannot be shown
    to give the same."""
    from jitlint.analysis.reparse import full_parse, keeping, last_offsets, parse_document
    from jitlint.engine import decode_source
    from jitlint.source import collector_paused

    whole = _whole_analysis(path, config, roots, overrides, max_file_size, False, edits, importers)
    key = (_config_key(config), tuple(roots), max_file_size, edits)
    try:
        with collector_paused():
            source = decode_source(data)
            # (the editor's last parse and analysis of the document, kept around its lints, serve when
            # they are of this text: a file closed and opened again)
            if keeping():
                module = parse_document(source, path, parse_once)
                offsets = last_offsets(path) or []
            else:  # (where each statement starts comes with a parse of its own)
                parsed = full_parse(source)
                module, offsets = parsed.module, parsed.offsets
            return incremental.fix_in_text(path, source, module, offsets, whole, finding, key)
    except Exception:  # noqa: BLE001 - (it parsed and was analysed before): no fix rather than a crash
        return None


def fix_unbuilt(diag: Diagnostic) -> bool:
    """Read from the cache without its fix (or with its title only), when its rule has fix builders:
    building it needs an analysis."""
    from jitlint.fixes import FIXABLE_CODES

    return diag.deferred_fix is None and not diag.fix_decided and diag.code in FIXABLE_CODES \
        and (diag.fix is None or not (diag.fix.edits_built or diag.fix.pending))


def _with_cached_fixes(hit: UnitResult, path: str, build: Callable[[Diagnostic], Optional[Fix]]) -> UnitResult:
    """``hit`` (a unit read from the cache without its fixes) whose own findings build theirs, when asked,
    by ``build(finding)``."""
    own = os.path.realpath(path)
    diags = hit.diagnostics.get(own)
    if not diags:
        return hit
    rebuilt = tuple(replace(d, fix=None, deferred_fix=partial(build, d)) if fix_unbuilt(d) else d for d in diags)
    return replace(hit, diagnostics={**hit.diagnostics, own: rebuilt})


_POOL_SHARED: Dict[str, object] = {}


def _pool_init(config: Config, roots: Sequence[str], overrides: Dict[str, bytes], max_file_size,
               owner: int, edits: bool = True, importers: Optional[Dict[str, Tuple[str, ...]]] = None,
               graph: Optional[Dict[str, Tuple[str, ...]]] = None) -> None:
    die_with(owner)
    _POOL_SHARED.update(config=config, roots=roots, overrides=overrides, max_file_size=max_file_size, edits=edits,
                        importers=importers or {}, graph=graph)


def die_with(owner: int) -> None:
    """A worker never outlives the jitlint process that started it (``owner``), however that one ends.

    On Linux the kernel sends SIGKILL when the parent goes; everywhere, a
    watchdog thread checks once a second that the owner is still there.
    """
    import signal
    import threading

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass

    def gone() -> bool:
        if os.getppid() == 1:
            return True
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass  # alive, but not ours to signal
        return False

    def watch() -> None:
        while not gone():
            time.sleep(1.0)
        os._exit(1)

    if gone():
        os._exit(1)
    threading.Thread(target=watch, name="jitlint-watchdog", daemon=True).start()


def _run_unit_in_pool(item: Tuple[str, bytes]) -> UnitResult:
    path, data = item
    return run_unit(path, data, _POOL_SHARED["config"], _POOL_SHARED["roots"],  # type: ignore[arg-type]
                    _POOL_SHARED["overrides"], _POOL_SHARED["max_file_size"],  # type: ignore[arg-type]
                    edits=bool(_POOL_SHARED["edits"]),
                    importers=_POOL_SHARED["importers"].get(path),  # type: ignore[union-attr]
                    graph=_POOL_SHARED.get("graph"))  # type: ignore[arg-type]


# --------------------------------------------------------------- the project
#: the import graph of the last project listed, reused while no file's imports changed (a long-lived
#: process -- the editor, one flake8 worker -- checks file after file of the same project)
_GRAPHS: Dict[Tuple[str, ...], Tuple[str, ImportGraph]] = {}


def _graph_of(imports: Dict[str, Sequence[str]], roots: List[str]) -> ImportGraph:
    state = hashlib.sha256(json.dumps(sorted((p, list(names)) for p, names in imports.items())).encode()).hexdigest()
    key = tuple(roots)
    known = _GRAPHS.get(key)
    if known is None or known[0] != state:
        _GRAPHS.clear()  # one project at a time: memory stays bounded
        known = _GRAPHS[key] = (state, ImportGraph(imports, roots))
    return known[1]


_SUMMARY_TABLES: Dict[Tuple[Optional[str], str], Dict[str, tuple]] = {}
#: the listing of a project, reused for a few seconds by the same process (one flake8 worker, the editor)
_LISTINGS: Dict[Tuple[Tuple[str, ...], str], Tuple[float, List[Tuple[str, str]]]] = {}
LISTING_TTL = 5.0


def _listed(project_roots: List[str], config: Config) -> List[Tuple[str, str]]:
    """(path, real path) of every Python file of the projects."""
    key = (tuple(project_roots), _config_key(config) + os.getcwd())
    now = time.monotonic()
    known = _LISTINGS.get(key)
    if known is None or now - known[0] > LISTING_TTL:
        known = _LISTINGS[key] = (now, [(p, os.path.realpath(p)) for p in project_files(project_roots, config)])
    return known[1]


class Summaries:
    """Per file: size, mtime, digest, whether it has a way into traced code, what it imports.

    Kept in the cache under a key of the trace words, and reused while a file's
    size and modification time are unchanged: the files of the project around
    the checked ones are listed without being read again.
    """

    def __init__(self, cache: Optional[Cache], config: Config) -> None:
        self.cache = cache
        self.config = config
        self.key = keyed(b"summaries", code_key(), "\0".join(config.extend_jit_decorators).encode())
        # one table per process and key: a long-lived process (the editor, flake8's workers) reads it once
        self.table: Dict[str, tuple] = _SUMMARY_TABLES.setdefault((cache.directory if cache else None, self.key), {})
        if cache is not None and not self.table:
            self.table.update(cache.load(self.key, summaries_from_json) or {})
        self.changed = False

    def of(self, path: str, real: str, limit: Optional[int]) -> Optional[Tuple[str, bool, Tuple[str, ...]]]:
        """(digest, has trace words, imports) of a file on disk (``real``: its real path); None when unreadable."""
        try:
            st = os.stat(real)
        except OSError:
            return None
        known = self.table.get(real)
        if known is not None and known[0] == st.st_size and known[1] == st.st_mtime_ns:
            return known[2], known[3], known[4]
        try:
            data = read_source_file(path, limit)
        except OSError:
            return None
        entry = (st.st_size, st.st_mtime_ns, digest(data), may_contain_traced_code(data, self.config),
                 tuple(imported_modules(data)))
        self.table[real] = entry
        self.changed = True
        return entry[2], entry[3], entry[4]

    def save(self) -> None:
        if self.cache is not None and self.changed:
            self.cache.store(self.key, {p: list(e[:4]) + [list(e[4])] for p, e in self.table.items()})


# --------------------------------------------------------------------- lint
def lint_files(paths: Sequence[str], config: Config, jobs: int = 1, cache_dir: Optional[str] = None,
               roots: Sequence[str] = (), read=None,
               progress: Optional[Callable[[int], None]] = None,
               overrides: Optional[Dict[str, bytes]] = None, context: bool = True,
               max_file_size: Optional[int] = DEFAULT_MAX_FILE_SIZE,
               timeout: Optional[float] = DEFAULT_FILE_TIMEOUT, build_fixes: bool = True,
               edits: bool = True, place_cells: bool = True,
               store_fixes: Optional[List[Callable[[], None]]] = None) -> List[FileResult]:
    """Lint files (not stdin), in the order given: the one project-level lint of every front end.

    Each checked file that can contain traced code is a unit; so is every other
    file of the project around them (``context``: the folder of the nearest
    ``pyproject.toml``/``setup.cfg``/``.git``) that can contain traced code and
    imports a checked file, directly or not: its traced code may call into the
    checked files.  The findings reported are those that land in checked files,
    so checking one file reports what checking its whole project reports there.
    ``overrides`` (real path -> bytes) replaces a file's text on disk (an
    editor's unsaved buffer, a fix in progress).
    ``progress(n)`` is called as files are done (n of them at a time): a progress bar's ``advance``.
    A unit whose analysis takes longer than ``timeout`` seconds is stopped: an error for its file.
    Without ``build_fixes`` (the editor, publishing findings) the findings carry the means to build
    their fixes when asked (``Diagnostic.built_fix``); the units then run in this process, and their
    results are cached apart from those with fixes.  Without ``edits`` (a report that shows a fix's
    title, not its edits) a fix's edits are not built (``Fix.without_edits``); cached apart too.
    ``store_fixes`` (with ``build_fixes`` off and a cache) gets a callable that builds the fixes of
    the units analysed now and stores them with their findings (the editor calls it while idle): a
    later lint of the same text, read from the cache, then comes with its fixes.
    """
    overrides = {os.path.realpath(p): d for p, d in (overrides or {}).items()}
    read = read or (lambda p: read_source_file(p, max_file_size))
    datas: Dict[str, bytes] = {}
    results: Dict[str, FileResult] = {}
    notebooks: Dict[str, CellMap] = {}
    for path in paths:
        real = os.path.realpath(path)
        try:
            datas[path] = overrides[real] if real in overrides else read(path)
        except OSError as exc:
            results[path] = FileResult(path, error=FileError(path, 1, 1, f"cannot read: {exc.strerror or exc}"))
            continue
        if is_notebook(path):  # its code cells, as one module (jitlint.notebook)
            try:
                text, notebooks[path] = read_notebook(datas[path])
            except NotebookError as exc:
                del datas[path]
                results[path] = FileResult(path, error=FileError(path, 1, 1, str(exc)))
                continue
            datas[path] = text.encode("utf-8", "surrogatepass")
    cache = Cache(cache_dir) if cache_dir else None
    checked = {os.path.realpath(p): p for p in datas}
    digests = {os.path.realpath(p): digest(d) for p, d in datas.items()}
    units = [p for p in paths if p in datas and may_contain_traced_code(datas[p], config)]
    unit_set = set(units)
    skipped = [p for p in paths if p in datas and p not in unit_set]
    roots = list(roots)
    importers: Dict[str, Tuple[str, ...]] = {}
    graph: Dict[str, Tuple[str, ...]] = {}
    if context and datas:
        callers, project_roots = _callers_in_project(datas, checked, digests, overrides, config, cache, roots,
                                                     max_file_size, importers, graph)
        for real, found_importers in graph.items():  # (what a cached analysis that asked for them checks)
            digests[importers_key(real)] = importers_digest(found_importers)
        roots += [r for r in project_roots if r not in roots]
        for caller, data in callers.items():
            datas[caller] = data
            units.append(caller)
    keys: Dict[str, str] = {}
    done: Dict[str, UnitResult] = {}
    if cache is not None:
        config_key = _config_key(config) + ("" if build_fixes else "\0fixes deferred") + ("" if edits else "\0no edits")
        for path in units:
            keys[path] = unit_key(path, digests[os.path.realpath(path)],
                                  config_key + ("" if path not in importers
                                                else "\0imported by:" + "\0".join(importers[path])))
            hit = cache.load(keys[path], _unit_from_json)
            if hit is not None and _still_valid(hit, digests, overrides, max_file_size):
                if not build_fixes and incremental.active() and path not in notebooks:
                    # (the editor: a finding's fix is built when asked, by an analysis around it)
                    hit = _with_cached_fixes(hit, path, partial(
                        _fix_of_cached, path, datas[path], config, tuple(roots), overrides, max_file_size,
                        edits, importers.get(path)))
                done[path] = hit
    todo = [p for p in units if p not in done]
    work = [(p, datas[p]) for p in todo]
    tick = progress or (lambda n: None)
    own = [p in set(paths) for p in todo]  # a caller from the project around is not on the progress bar
    tick(len(paths) - sum(own))  # unreadable, pre-filtered out, or cached: done already
    init = (config, roots, overrides, max_file_size, os.getpid(), edits, importers, graph)
    if jobs > 1 and len(work) >= 4 and build_fixes:  # a pool costs more than a few small files
        # fork is cheapest; but never fork a process that has imported jax (its threads can deadlock)
        method = "forkserver" if "jax" in sys.modules else "fork"
        BrokenProcessPool = _pool_part("BrokenProcessPool")
        pool = _pool_part("ProcessPoolExecutor")(max_workers=min(jobs, len(work)),
                                                 mp_context=_pool_part("multiprocessing").get_context(method),
                                                 initializer=_pool_init, initargs=init)
        try:
            # largest files first, one at a time: the workers finish together
            futures: Dict[str, Optional[Future]] = {}
            for p, d in sorted(work, key=lambda item: -len(item[1])):
                try:
                    futures[p] = pool.submit(_run_unit_in_pool, (p, d))
                except BrokenProcessPool:  # a worker died already: the rest run alone below
                    futures[p] = None
            _quick_check_all(skipped, datas, results, cache)
            finished = _collect(pool, futures, timeout, lambda p: tick(1) if p in set(paths) else None)
        finally:
            _stop(pool)
        computed = [finished.get(p) for p in todo]
        for i, result in enumerate(computed):
            if result is None:  # a worker died (a crash in native code) or hung: its files again, one process each
                computed[i] = _run_unit_alone(todo[i], datas[todo[i]], init, method, timeout)
    else:
        _quick_check_all(skipped, datas, results, cache)
        computed = list(_ticking((_time_limited(timeout, run_unit, p, d, *init[:4], build_fixes, edits,
                                                importers.get(p), graph)
                                  for p, d in work),
                                 tick, own))
    for path, result in zip(todo, computed):
        done[path] = result
        if cache is not None and _cacheable(result):
            cache.store(keys[path], _unit_to_json(result))
    if cache is not None:
        cache.prune()
        fresh = [(keys[p], done[p]) for p in todo if _cacheable(done[p])]
        if store_fixes is not None and not build_fixes and fresh:
            store_fixes.append(_StoreWithFixes(cache, fresh))
    merged = [_with_broken_cells(r, notebooks[r.path]) if r.path in notebooks else r
              for r in _merge(paths, units, done, results, datas, checked, config)]
    # a notebook's findings placed in its cells (``place_cells``), or left in its module, with their fixes
    return [(in_cells if place_cells else _same)(replace(r, cells=notebooks[r.path])) if r.path in notebooks else r
            for r in merged]


def _same(result: FileResult) -> FileResult:
    return result


def _merge(paths: Sequence[str], units: Sequence[str], done: Dict[str, UnitResult], results: Dict[str, FileResult],
           datas: Dict[str, bytes], checked: Dict[str, str], config: Config) -> List[FileResult]:
    """Each checked file's findings: the union over the units, under the path it was named by; and the
    ``# noqa`` comments that silence nothing in any unit (JIT900, when it runs and every unit ran)."""
    from jitlint.engine import noqa_context, reports_unused_noqa, unused_noqa, without_file_ignores

    merged: Dict[str, Dict[Tuple[int, int, str], Diagnostic]] = {p: {} for p in paths}
    silenced: Dict[str, List[Tuple[int, str]]] = {}
    errors: Dict[str, FileError] = {}
    for path in units:
        result = done[path]
        if result.error is not None and os.path.realpath(path) in checked:
            errors[path] = result.error
        for real, pairs in result.suppressed.items():
            if real in checked:
                silenced.setdefault(checked[real], []).extend(pairs)
        for real, diags in result.diagnostics.items():
            target = checked.get(real)
            if target is None:
                continue
            bucket = merged.setdefault(target, {})
            for d in diags:
                bucket.setdefault((d.line, d.column, d.code), d if d.path == target else replace(d, path=target))
    out: List[FileResult] = []
    for path in paths:
        if path in results:
            out.append(results[path])
            continue
        if path in errors:
            out.append(FileResult(path, error=errors[path]))
            continue
        diags = sorted(merged.get(path, {}).values(), key=lambda d: (d.line, d.column, d.code))
        if reports_unused_noqa(config) and not any(done[unit].error is not None for unit in units):
            text = _text(datas[path])
            codes = noqa_context(diags, silenced.get(path, ()))
            diags = sorted(diags + unused_noqa(path, text or "", codes, config, config.ignores_for(path)),
                           key=lambda d: (d.line, d.column, d.code))
        diags = without_file_ignores(_one_per_line(diags), path, config)
        out.append(FileResult(path, tuple(diags), source=_text(datas[path]) if diags else None))
    return out


def importers_key(real: str) -> str:
    """The key, among the modules a unit's analysis read, of the list of files importing ``real`` it asked
    for: a cached result is still valid while the project's imports give the same list."""
    return "\0importers of " + real


def importers_digest(importers: Sequence[str]) -> str:
    return digest("\n".join(sorted(importers)).encode("utf-8", "surrogatepass"))


def _still_valid(hit: UnitResult, digests: Dict[str, str], overrides: Dict[str, bytes],
                 limit: Optional[int]) -> bool:
    """Every module the cached analysis read still has the text it had then."""
    for real, recorded in hit.deps.items():
        now = digests.get(real)
        if now is None:
            try:
                now = digests[real] = digest(overrides[real] if real in overrides else read_source_file(real, limit))
            except OSError:
                now = digests[real] = MISSING
        if now != recorded:
            return False
    return True


def _callers_in_project(datas: Dict[str, bytes], checked: Dict[str, str], digests: Dict[str, str],
                        overrides: Dict[str, bytes], config: Config, cache: Optional[Cache], roots: Sequence[str],
                        limit: Optional[int], importers: Optional[Dict[str, Tuple[str, ...]]] = None,
                        graph_importers: Optional[Dict[str, Tuple[str, ...]]] = None,
                        ) -> Tuple[Dict[str, bytes], List[str]]:
    """The other files of the projects around the checked ones whose traced code may reach them;
    ``importers`` gets, for each unit, the files of the projects that import it themselves (none: nothing
    in its project imports it), and ``graph_importers`` the same for every file of the projects, by real
    path."""
    roots_of = {p: project_root(p) for p in datas}
    project_roots = sorted({r for r in roots_of.values() if r is not None})
    if not project_roots:
        return {}, []
    summaries = Summaries(cache, config)
    imports: Dict[str, Sequence[str]] = {p: imported_modules(d) for p, d in datas.items()}
    traced: Dict[str, bool] = {}
    for path, real in _listed(project_roots, config):
        if real in checked:
            continue
        if real in overrides:
            data = overrides[real]
            found = (digest(data), may_contain_traced_code(data, config), tuple(imported_modules(data)))
        else:
            found = summaries.of(path, real, limit)
        if found is None:
            continue
        digests[real], traced[path], imports[path] = found
    summaries.save()
    graph = _graph_of(imports, list(roots) + project_roots)
    out: Dict[str, bytes] = {}
    callers = sorted(graph.importers_of(list(datas)))
    if importers is not None:
        # (a checked file outside every project -- a folder of scripts with no marker -- has importers no
        # one knows, whatever else the same command checks: its answer must not depend on that)
        for unit in [p for p in datas if roots_of[p] is not None] + [p for p in callers if traced.get(p)]:
            importers[unit] = tuple(graph.direct_importers(unit))
    if graph_importers is not None:
        for path in imports:
            if path not in roots_of or roots_of[path] is not None:
                graph_importers[os.path.realpath(path)] = tuple(graph.direct_importers(path))
    for path in callers:
        if not traced.get(path):
            continue
        real = os.path.realpath(path)
        try:
            data = overrides[real] if real in overrides else read_source_file(path, limit)
        except OSError:
            continue
        if digest(data) != digests.get(real):  # changed since it was listed: read afresh
            digests[real] = digest(data)
        out[path] = data
    return out, project_roots


def _collect(pool: ProcessPoolExecutor, futures: Dict[str, Optional[Future]], timeout: Optional[float],
             done_one: Callable[[str], None]) -> Dict[str, UnitResult]:
    """The results of the pool, as they come; when none comes for ``timeout`` seconds the workers
    are stuck (an endless loop, a stopped process): they are killed, and what is left runs alone."""
    wait, BrokenProcessPool, CancelledError = _pool_part("wait"), _pool_part("BrokenProcessPool"), \
        _pool_part("CancelledError")
    pending = {future: path for path, future in futures.items() if future is not None}
    out: Dict[str, UnitResult] = {}
    while pending:
        finished, _ = wait(list(pending), timeout=timeout, return_when=_pool_part("FIRST_COMPLETED"))
        if not finished:
            _stop(pool, kill=True)
            break
        for future in finished:
            path = pending.pop(future)
            try:
                out[path] = future.result()
            except (BrokenProcessPool, CancelledError):
                continue
            done_one(path)
    return out


def _stop(pool: ProcessPoolExecutor, kill: bool = False) -> None:
    """Shut the pool down; ``kill``: its workers first, so that none is left running."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    if kill:
        for process in processes:
            try:
                process.kill()
            except (OSError, AttributeError):
                pass
    pool.shutdown(wait=not kill, cancel_futures=True)
    for process in processes:
        process.join(timeout=5)


def _run_unit_alone(path: str, data: bytes, init: tuple, method: str, timeout: Optional[float]) -> UnitResult:
    """One unit in a process of its own: a crash that kills it, or a hang, is that file's error."""
    BrokenProcessPool, FutureTimeout = _pool_part("BrokenProcessPool"), _pool_part("FutureTimeout")
    context = _pool_part("multiprocessing").get_context(method)
    pool = _pool_part("ProcessPoolExecutor")(max_workers=1, mp_context=context, initializer=_pool_init, initargs=init)
    stuck = False
    try:
        return pool.submit(_run_unit_in_pool, (path, data)).result(timeout=timeout)
    except BrokenProcessPool:
        return UnitResult({}, FileError(path, 1, 1, "internal error: jitlint crashed on this file "
                                                    "(its worker process died)", internal=True))
    except FutureTimeout:
        stuck = True
        return _timed_out(path, timeout)
    finally:
        _stop(pool, kill=stuck)


def _timed_out(path: str, timeout: Optional[float]) -> UnitResult:
    return UnitResult({}, FileError(path, 1, 1, f"the analysis took longer than {timeout:g} s and was stopped "
                                                "(raise the limit with --file-timeout)", internal=True))


class _Expired(BaseException):
    """The in-process time limit of a unit ran out (a BaseException: no `except Exception` swallows it)."""


def _time_limited(timeout: Optional[float], function: Callable[..., UnitResult], path: str,
                  *args: object) -> UnitResult:
    """``function(path, *args)`` with a time limit, in this process (a timer signal, main thread only)."""
    import signal
    import threading

    if timeout is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return function(path, *args)

    def expire(signum, frame):
        raise _Expired()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return function(path, *args)
    except _Expired:
        return _timed_out(path, timeout)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _ticking(items: Iterable[T], tick: Callable[[int], None], counted: Sequence[bool]) -> Iterator[T]:
    for item, counts in zip(items, counted):
        yield item
        if counts:
            tick(1)


def _one_per_line(diags: Iterable[Diagnostic]) -> List[Diagnostic]:
    seen: Set[Tuple[int, str]] = set()
    out = []
    for d in diags:
        if (d.line, d.code) not in seen:
            seen.add((d.line, d.code))
            out.append(d)
    return out


def _quick_check_all(paths: Sequence[str], datas: Dict[str, bytes], results: Dict[str, FileResult],
                     cache: Optional[Cache] = None) -> None:
    """Syntax checks of the files the pre-filter skips; a file seen unchanged before is not parsed again."""
    for path in paths:
        key = None
        if cache is not None:
            key = keyed(b"syntax", code_key(), datas[path])
            hit = cache.load(key, lambda raw: (error_from_json(raw),))
            if hit is not None:
                if hit[0] is not None:
                    results[path] = FileResult(path, error=replace(hit[0], path=path))
                continue
        error = quick_check(path, datas[path])
        if error is not None:
            results[path] = FileResult(path, error=error)
        if key is not None:
            cache.store(key, error_to_json(error))


def quick_check(path: str, data: bytes) -> Optional[FileError]:
    """Errors of a file the pre-filter skips: it must still decode and parse.

    Python's own parser is the cheap first try; LibCST (which knows newer
    syntax than the running Python) decides when that fails.
    """
    import ast

    from jitlint.engine import SourceError, decode_source, parse

    try:
        source = decode_source(data)
    except SourceError as exc:
        return FileError(path, exc.line, exc.column, exc.message)
    try:
        ast.parse(source)
        if "\x00" not in source:
            return None
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        parse(source)
    except SourceError as exc:
        return FileError(path, exc.line, exc.column, exc.message)
    except RecursionError:
        return FileError(path, 1, 1, "too deeply nested to parse")
    return None


def _text(data: bytes) -> Optional[str]:
    from jitlint.engine import SourceError, decode_source

    try:
        return decode_source(data)
    except SourceError:
        return None


def default_cache_dir() -> str:
    return os.environ.get("JITLINT_CACHE_DIR") or ".jitlint_cache"




# ---------------------------------------------------------------------- fix
def fix_files(paths: Sequence[str], config: Config, *, unsafe: bool = False, jobs: int = 1,
              cache_dir: Optional[str] = None, roots: Sequence[str] = (),
              overrides: Optional[Dict[str, bytes]] = None, context: bool = True,
              max_rounds: int = MAX_ROUNDS, max_file_size: Optional[int] = DEFAULT_MAX_FILE_SIZE,
              timeout: Optional[float] = DEFAULT_FILE_TIMEOUT, fix_notebooks: bool = True) -> Dict[str, FileFixResult]:
    """Fix files to a fixed point with the findings :func:`lint_files` reports: ``--fix`` fixes what ``check`` shows.

    Each round lints every file still being fixed, with the texts fixed so far
    (a fix in a helper module and one in its caller see each other), and applies
    each file's allowed fixes.  Nothing is written: ``new_bytes`` is what a
    file should hold (None: unchanged).  A notebook is fixed as the module of its
    cells, and written back cell by cell (:func:`jitlint.notebook.rebuild`); one whose
    JSON could not be written back unchanged, or any with ``fix_notebooks`` off, is
    checked and left as it is.
    """
    from jitlint.engine import SourceError

    kept = [p for p in paths if is_notebook(p) and not (fix_notebooks and _rewritable(p, overrides, max_file_size))]
    if kept:  # checked, not fixed
        plain = [p for p in paths if p not in kept]
        out = fix_files(plain, config, unsafe=unsafe, jobs=jobs, cache_dir=cache_dir, roots=roots, overrides=overrides,
                        context=context, max_rounds=max_rounds, max_file_size=max_file_size,
                        timeout=timeout) if plain else {}
        for result in lint_files(kept, config, jobs=jobs, cache_dir=cache_dir,
                                 roots=roots, context=context, max_file_size=max_file_size, timeout=timeout):
            try:
                data: Optional[bytes] = read_source_file(result.path, max_file_size)
            except OSError:
                data = None
            same = FixResult(result.path, "", "", (), result.diagnostics, 0, True, result.error, result.diagnostics)
            out[result.path] = FileFixResult(result.path, same, error=result.error, data=data, cells=result.cells)
        return {p: out[p] for p in paths}
    if cache_dir is None:  # the rounds still share unit results: a unit whose modules did not change is not redone
        import tempfile

        with tempfile.TemporaryDirectory(prefix="jitlint-fix-") as scratch:
            return fix_files(paths, config, unsafe=unsafe, jobs=jobs, cache_dir=scratch, roots=roots,
                             overrides=overrides, context=context, max_rounds=max_rounds,
                             max_file_size=max_file_size, timeout=timeout, fix_notebooks=fix_notebooks)
    overrides = {os.path.realpath(p): d for p, d in (overrides or {}).items()}
    out: Dict[str, FileFixResult] = {}
    encoded: Dict[str, Encoded] = {}
    originals: Dict[str, bytes] = {}
    notebooks: Dict[str, NotebookSource] = {}
    for path in paths:
        real = os.path.realpath(path)
        try:
            originals[path] = overrides[real] if real in overrides else read_source_file(path, max_file_size)
            if is_notebook(path):
                notebook, _ = notebook_source(originals[path])
                assert notebook is not None  # (see _rewritable)
                notebooks[path] = notebook
                encoded[path] = Encoded(notebook.text, "utf-8", False)
                continue
            encoded[path] = decode_file(originals[path])
        except OSError as exc:
            out[path] = FileFixResult(path, error=FileError(path, 1, 1, f"cannot read: {exc.strerror or exc}"))
        except SourceError as exc:
            out[path] = FileFixResult(path, error=FileError(path, exc.line, exc.column, exc.message))
    current = {p: e.text for p, e in encoded.items()}
    applied: Dict[str, List[AppliedFix]] = {p: [] for p in current}
    errors: Dict[str, Optional[FileError]] = {p: None for p in current}
    rounds: Dict[str, int] = {p: 0 for p in current}
    texts = dict(overrides)
    active = list(current)
    lint_options = dict(jobs=jobs, cache_dir=cache_dir, roots=roots, context=context, max_file_size=max_file_size,
                        timeout=timeout)
    latest: Dict[str, FileResult] = {}
    first: Dict[str, Tuple[Diagnostic, ...]] = {}
    for round_number in range(max_rounds + 1):
        for path in active:
            if path in notebooks:  # the notebook as it would be written (its cells hold the fixed module)
                texts[os.path.realpath(path)] = _notebook_bytes(notebooks[path], current[path], applied[path])
                continue
            try:
                texts[os.path.realpath(path)] = encode_file(current[path], encoded[path])
            except UnicodeEncodeError:  # reported when the file is written; analysed as UTF-8 meanwhile
                texts[os.path.realpath(path)] = current[path].encode("utf-8", "surrogatepass")
        linted = lint_files(list(current), config, overrides=texts, place_cells=False, **lint_options)
        latest = {r.path: r for r in linted}
        if round_number == 0:
            first = {path: result.diagnostics for path, result in latest.items()}
        if round_number == max_rounds:
            break
        active = []
        for path in current:
            result = latest[path]
            if result.error is not None:
                error = result.error
                if error.partial:  # (its cell would be written back as it is, but the rest was read without it)
                    error = replace(error, message=error.message + "; the notebook is not fixed")
                errors[path] = errors[path] or error
                continue
            text, taken, error = fix_round(current[path], result.diagnostics, path, unsafe, applied[path])
            if error is not None:
                errors[path] = error
            if taken and path in notebooks:
                _, why = rebuild(notebooks[path], text, taken[-1].origins)
                if why:  # these fixes would not go back into the cells: the notebook keeps the last round's
                    errors[path] = errors[path] or FileError(path, 1, 1, f"notebook fixes not applied: {why}")
                    continue
            if taken:
                current[path] = text
                applied[path] += taken
                rounds[path] += 1
                active.append(path)
        if not active:
            break
    for path, text in current.items():
        result = latest[path]
        remaining = result.diagnostics
        fixed = FixResult(path, encoded[path].text, text, tuple(applied[path]), tuple(remaining), rounds[path],
                          not any(is_allowed(d.fix, unsafe) for d in remaining), errors[path], first[path])
        if path in notebooks:
            out[path] = _notebook_outcome(path, fixed, notebooks[path], originals[path])
            continue
        out[path] = file_outcome(path, fixed, encoded[path], originals[path])
    return {p: out[p] for p in paths}


def _with_broken_cells(result: FileResult, cells: CellMap) -> FileResult:
    """A notebook's result with the first of its cells that are not Python reported as its error (its
    other cells linted all the same; a notebook with an error is not fixed)."""
    if not cells.broken or result.error is not None:
        return result
    line, column, message = cells.broken[0]
    more = len(cells.broken) - 1
    note = f" (and {more} more cell{'s' if more > 1 else ''})" if more else ""
    return replace(result, error=FileError(result.path, line, column, f"syntax error: {message}: the cell is "
                                           f"skipped{note}, the other cells are checked", partial=True))


def _rewritable(path: str, overrides: Optional[Dict[str, bytes]], limit: Optional[int]) -> bool:
    """A notebook whose JSON :func:`jitlint.notebook.rebuild` writes back unchanged where no fix goes."""
    real = os.path.realpath(path)
    try:
        data = (overrides or {}).get(real) or read_source_file(path, limit)
        return notebook_source(data)[0] is not None
    except (OSError, NotebookError, ValueError):
        return False


def _notebook_bytes(notebook: NotebookSource, text: str, applied: Sequence[AppliedFix]) -> bytes:
    origins = applied[-1].origins if applied else tuple(range(1, text.count("\n") + 2))
    data, why = rebuild(notebook, text, origins)
    assert data is not None, why  # (each round is taken only when it goes back into the cells)
    return data


def _notebook_outcome(path: str, fixed: FixResult, notebook: NotebookSource, original: bytes) -> FileFixResult:
    """What fixing a notebook's module gives the notebook: its JSON with the fixed cells, and the findings
    and fixes placed in their cells (the findings left, in the cells as they are after the fixes)."""
    data = _notebook_bytes(notebook, fixed.fixed, fixed.applied) if fixed.changed else original
    _, after = read_notebook(data)
    placed = []
    for a in fixed.applied:
        cell, line = notebook.cells.locate(a.line)
        placed.append(replace(a, line=line, cell=cell))
    fixed = replace(fixed, applied=tuple(placed),
                    remaining=in_cells(FileResult(path, fixed.remaining, cells=after)).diagnostics,
                    before=in_cells(FileResult(path, fixed.before, cells=notebook.cells)).diagnostics)
    error = in_cells(FileResult(path, error=fixed.error, cells=notebook.cells)).error
    return FileFixResult(path, fixed, error=error, new_bytes=data if data != original else None, data=original,
                         cells=after, original_cells=notebook.cells)
