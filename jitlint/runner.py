"""Checking many files: pre-filter, one unit of work per file, cache, processes.

Each file that can contain traced code is one *unit*: it is parsed and
analysed together with the project modules its traced code calls into (loaded
lazily, see :mod:`jitlint.analysis.project`).  A unit's result is the findings
of its own module plus those it causes in the helpers it reaches; the report of
a file is the union over all units.  A unit depends only on its own text and on
the modules it imports (transitively, within the checked folders), so that set
of texts is its cache key, and units can run in any order, in any process.
"""
from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import sys
import tempfile
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, replace
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar

from jitlint import __version__
from jitlint.config import Config
from jitlint.diagnostics import Applicability, Diagnostic, Edit, FileError, FileResult, Fix

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
        pattern = _WORD_PATTERNS[extra] = re.compile(rb"(?<![A-Za-z0-9])(?:" + alternatives + rb")(?![A-Za-z0-9])")
    return pattern


def may_contain_traced_code(data: bytes, config: Config) -> bool:
    return _trace_word_pattern(tuple(config.extend_jit_decorators)).search(data) is not None


_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+([^\n#]+)|import[ \t]+([^\n#]+))", re.M)


# --------------------------------------------------------------------- imports
def imported_modules(data: bytes) -> List[str]:
    """Module names a file imports (relative ones keep their dots), from its text."""
    out: List[str] = []
    for match in _IMPORT.finditer(data):
        base, names, plain = match.group(1), match.group(2), match.group(3)
        if base is not None:
            base_s = base.decode("ascii", "replace")
            out.append(base_s)
            for name in names.decode("ascii", "replace").strip("()\\ \t").split(","):
                name = name.strip().split(" as ")[0].strip()
                if name and name != "*":
                    out.append(base_s + name if base_s.endswith(".") else f"{base_s}.{name}")
        else:
            for name in plain.decode("ascii", "replace").split(","):
                name = name.strip().split(" as ")[0].strip()
                if name:
                    out.append(name)
    return out


class ImportGraph:
    """Which checked files import which, from the import lines of their text."""

    def __init__(self, datas: Dict[str, bytes], roots: Sequence[str]) -> None:
        from jitlint.analysis.project import Project

        self.datas = datas
        self._resolver = Project(roots=roots)
        self._real = {os.path.realpath(p): p for p in datas}
        self._direct: Dict[str, List[str]] = {}
        self._files: Dict[Tuple[str, str], Optional[str]] = {}
        self._roots: Dict[str, str] = {}

    def _resolve(self, from_path: str, name: str) -> Optional[str]:
        directory = os.path.dirname(from_path)
        key = (directory if name.startswith(".") else self._package_root(directory), name)
        if key not in self._files:
            files = self._resolver._module_files(from_path, name)  # noqa: SLF001 - same resolution as analysis
            target = self._real.get(os.path.realpath(files[0])) if files else None
            self._files[key] = target
        return self._files[key]

    def _package_root(self, directory: str) -> str:
        root = self._roots.get(directory)
        if root is None:
            from jitlint.analysis.project import _package_roots

            root = self._roots[directory] = _package_roots(os.path.abspath(directory))[0]
        return root

    def direct(self, path: str) -> List[str]:
        if path not in self._direct:
            out = []
            for name in imported_modules(self.datas.get(path, b"")):
                target = self._resolve(path, name)
                if target is not None and target != path and target not in out:
                    out.append(target)
            self._direct[path] = out
        return self._direct[path]

    def closure(self, path: str) -> List[str]:
        """The checked files ``path`` imports, directly or not (itself excluded)."""
        seen: Set[str] = set()
        todo = [path]
        while todo:
            for target in self.direct(todo.pop()):
                if target != path and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return sorted(seen)


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


def unit_key(path: str, digests: Dict[str, bytes], deps: Sequence[str], config_key: str) -> str:
    """jitlint's own code, the configuration, and the text of the file and of what it imports."""
    h = hashlib.sha256()
    h.update(code_key())
    h.update(config_key.encode())
    for name in [path, *deps]:
        h.update(name.encode() + b"\0")
        h.update(digests[name])
    return h.hexdigest()


def _diag_from_json(d: dict) -> Diagnostic:
    fix = d.get("fix")
    if fix is not None:
        fix = Fix(Applicability(fix["applicability"]), fix["title"],
                  tuple(Edit(e["start"], e["end"], e["content"]) for e in fix["edits"]))
    return Diagnostic(d["path"], d["line"], d["column"], d["end_line"], d["end_column"], d["code"], d["message"],
                      tuple(d.get("reason", ())), fix)


class Cache:
    """Unit results on disk, one JSON file per key; unreadable entries are misses."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key: str) -> Optional["UnitResult"]:
        try:
            with open(self._file(key), encoding="utf-8") as fh:
                raw = json.load(fh)
            return UnitResult(
                {p: tuple(_diag_from_json(d) for d in ds) for p, ds in raw["diagnostics"].items()},
                FileError(**raw["error"]) if raw.get("error") else None)
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, result: "UnitResult") -> None:
        from jitlint.rules.base import INTERNAL_ERROR_CODE

        if result.error is not None and result.error.internal:
            return
        if any(d.code == INTERNAL_ERROR_CODE for ds in result.diagnostics.values() for d in ds):
            return  # a crash of jitlint is never replayed from the cache
        target = self._file(key)
        try:
            os.makedirs(os.path.dirname(target), exist_ok=True)
            payload = {"diagnostics": {p: [d.to_json() for d in ds] for p, ds in result.diagnostics.items()},
                       "error": asdict(result.error) if result.error else None}
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh)
            os.replace(tmp, target)
        except OSError:
            pass  # a cache that cannot be written is only slower


# ----------------------------------------------------------------------- units
@dataclass(frozen=True)
class UnitResult:
    #: findings per path: the unit's own file and the helpers it reached
    diagnostics: Dict[str, Tuple[Diagnostic, ...]]
    error: Optional[FileError] = None


def run_unit(path: str, data: bytes, config: Config, checked: Dict[str, str], roots: Sequence[str]) -> UnitResult:
    """``checked`` maps the real path of every checked file to the path to report it under."""
    """Analyse one file with the helpers it calls; never raises."""
    from jitlint.engine import SourceError, decode_source, parse, with_deep_stack

    try:
        source = decode_source(data)
        module = parse(source)
        return with_deep_stack(lambda: _analyse_unit(path, source, module, config, checked, roots), "analyse")
    except SourceError as exc:
        return UnitResult({}, FileError(path, exc.line, exc.column, exc.message))
    except Exception as exc:  # noqa: BLE001 - a bug in jitlint must not stop the run
        return UnitResult({}, FileError(path, 1, 1, f"internal error: {type(exc).__name__}: {exc}", internal=True))


def _analyse_unit(path: str, source: str, module, config: Config, checked: Dict[str, str],
                  roots: Sequence[str]) -> UnitResult:
    from jitlint.analysis.project import Project
    from jitlint.engine import diagnostics_from, rules_for
    from jitlint.rules.base import run_rules

    project = Project(config.extend_jit_decorators, roots)
    state = project.add(path, source, module)
    state.analysed = True
    state.analyzer.run()
    checked_real = checked
    out: Dict[str, Tuple[Diagnostic, ...]] = {}
    positions_cache: Dict[int, object] = {}
    for key, other in project.states.items():
        if other is None or (other is not state and key not in checked_real):
            continue
        if other is not state and not other.analyzer.facts.bodies:
            continue
        report_path = path if other is state else checked_real[key]
        rules = rules_for(report_path, config)
        if not rules:
            continue
        raw = run_rules(other.index, other.analyzer.facts, rules, module_level=other is state)
        out[report_path] = tuple(diagnostics_from(raw, other.module, other.source, report_path, positions_cache))
    return UnitResult(out)


_POOL_SHARED: Dict[str, object] = {}


def _pool_init(checked: Dict[str, str], config: Config, roots: Sequence[str]) -> None:
    _POOL_SHARED.update(checked=checked, config=config, roots=roots)


def _run_unit_in_pool(item: Tuple[str, bytes]) -> UnitResult:
    path, data = item
    return run_unit(path, data, _POOL_SHARED["config"], _POOL_SHARED["checked"], _POOL_SHARED["roots"])


def lint_files(paths: Sequence[str], config: Config, jobs: int = 1, cache_dir: Optional[str] = None,
               roots: Sequence[str] = (), read=None,
               progress: Optional[Callable[[int], None]] = None) -> List[FileResult]:
    """Lint files (not stdin), in the order given; see the module docstring.

    ``progress(n)`` is called as files are done (n of them at a time): a progress bar's ``advance``.
    """
    read = read or _read
    datas: Dict[str, bytes] = {}
    results: Dict[str, FileResult] = {}
    for path in paths:
        try:
            datas[path] = read(path)
        except OSError as exc:
            results[path] = FileResult(path, error=FileError(path, 1, 1, f"cannot read: {exc.strerror or exc}"))
    roots = list(roots)
    units = [p for p in paths if p in datas and may_contain_traced_code(datas[p], config)]
    unit_set = set(units)
    skipped = [p for p in paths if p in datas and p not in unit_set]
    cache = Cache(cache_dir) if cache_dir else None
    keys: Dict[str, str] = {}
    done: Dict[str, UnitResult] = {}
    if cache is not None:
        graph = ImportGraph(datas, roots)
        digests = {p: hashlib.sha256(d).digest() for p, d in datas.items()}
        config_key = _config_key(config)
        for path in units:
            keys[path] = unit_key(path, digests, graph.closure(path), config_key)
            hit = cache.get(keys[path])
            if hit is not None:
                done[path] = hit
    todo = [p for p in units if p not in done]
    checked = {os.path.realpath(p): p for p in datas}
    work = [(p, datas[p]) for p in todo]
    tick = progress or (lambda n: None)
    tick(len(paths) - len(work))  # unreadable, pre-filtered out, or cached: done already
    if jobs > 1 and len(work) >= 4:  # a pool costs more than a few small files
        # fork is cheapest; but never fork a process that has imported jax (its threads can deadlock)
        method = "forkserver" if "jax" in sys.modules else "fork"
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context(method),
                                 initializer=_pool_init, initargs=(checked, config, roots)) as pool:
            # largest files first, one at a time: the workers finish together
            futures: Dict[str, Optional[Future]] = {}
            for p, d in sorted(work, key=lambda item: -len(item[1])):
                try:
                    futures[p] = pool.submit(_run_unit_in_pool, (p, d))
                except BrokenProcessPool:  # a worker died already: the rest run alone below
                    futures[p] = None
            _quick_check_all(skipped, datas, results, cache)
            computed = list(_ticking((_result_or_none(futures[p]) for p in todo), tick))
        for i, result in enumerate(computed):
            if result is None:  # a worker died (a crash in native code): its files again, one process each
                computed[i] = _run_unit_alone(todo[i], datas[todo[i]], config, checked, roots, method)
    else:
        _quick_check_all(skipped, datas, results, cache)
        computed = list(_ticking((run_unit(p, d, config, checked, roots) for p, d in work), tick))
    for path, result in zip(todo, computed):
        done[path] = result
        if cache is not None:
            cache.put(keys[path], result)
    merged: Dict[str, Dict[Tuple[int, int, str], Diagnostic]] = {p: {} for p in paths}
    errors: Dict[str, FileError] = {}
    for path in units:
        result = done[path]
        if result.error is not None:
            errors[path] = result.error
        for target, diags in result.diagnostics.items():
            bucket = merged.setdefault(target, {})
            for d in diags:
                bucket.setdefault((d.line, d.column, d.code), d)
    out: List[FileResult] = []
    for path in paths:
        if path in results:
            out.append(results[path])
            continue
        if path in errors:
            out.append(FileResult(path, error=errors[path]))
            continue
        diags = sorted(merged.get(path, {}).values(), key=lambda d: (d.line, d.column, d.code))
        out.append(FileResult(path, tuple(_one_per_line(diags)), source=_text(datas[path]) if diags else None))
    return out


def _result_or_none(future: Optional[Future]) -> Optional[UnitResult]:
    if future is None:
        return None
    try:
        return future.result()
    except BrokenProcessPool:
        return None


def _run_unit_alone(path: str, data: bytes, config: Config, checked: Dict[str, str], roots: Sequence[str],
                    method: str) -> UnitResult:
    """One unit in a process of its own: a crash that kills it is that file's internal error."""
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method),
                                 initializer=_pool_init, initargs=(checked, config, roots)) as pool:
            return pool.submit(_run_unit_in_pool, (path, data)).result()
    except BrokenProcessPool:
        return UnitResult({}, FileError(path, 1, 1, "internal error: jitlint crashed on this file "
                                                    "(its worker process died)", internal=True))


def _ticking(items: Iterable[T], tick: Callable[[int], None]) -> Iterator[T]:
    for item in items:
        yield item
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
            key = "syntax-" + hashlib.sha256(code_key() + datas[path]).hexdigest()
            hit = cache.get(key)
            if hit is not None:
                if hit.error is not None:
                    results[path] = FileResult(path, error=replace(hit.error, path=path))
                continue
        error = quick_check(path, datas[path])
        if error is not None:
            results[path] = FileResult(path, error=error)
        if key is not None:
            cache.put(key, UnitResult({}, error))


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


def _read(path: str) -> bytes:
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a directory")
    with open(path, "rb") as fh:
        return fh.read()
