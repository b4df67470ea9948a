"""Apply fixes: non-overlapping edits, to a fixed point, written atomically.

Each round lints the current text, keeps the fixes whose applicability is
allowed (SAFE; UNSAFE too with ``unsafe=True``; never DISPLAY_ONLY), applies
those whose edits do not overlap an edit already taken, and checks that the
result parses.  Fixes left out because they overlapped are picked up by the
next round, on the new text.  The loop stops when nothing applicable is left
or after :data:`MAX_ROUNDS` rounds (then the file is reported as not converged).  A file is written only when its text
changed, through a temporary file in the same folder and ``os.replace`` (so a
crash never leaves half a file), keeping the file's mode, encoding and BOM.
A file that does not parse is never written, nor one that is read-only, nor
one that changed on disk while it was being fixed.
"""
from __future__ import annotations

import bisect
import codecs
import difflib
import errno
import io
import os
import re
import stat
import tempfile
import time
import tokenize
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple

from jitlint.config import Config
from jitlint.diagnostics import Applicability, Diagnostic, Edit, FileError, Fix
from jitlint.files import removed_on_failure

#: rounds of lint-and-fix before giving up on reaching a fixed point (each round fixes at least one
#: more level of nested statements, whose rewrites overlap; deeper nesting than this is reported)
MAX_ROUNDS = 24


@dataclass(frozen=True)
class AppliedFix:
    """A fix that was applied.  ``line`` is the line of its finding in the *original* text, whatever
    round applied it (a later round sees a text whose lines earlier fixes moved): what ``--show-fixes``
    prints and the verifier locates, like the ``-`` side of the diff."""

    code: str
    line: int
    title: str
    applicability: Applicability
    #: for each line of the text after this fix's round, the line of the original text it comes from
    origins: Tuple[int, ...] = field(default=(), compare=False, repr=False)
    #: in a notebook: the cell ``line`` is a line of
    cell: Optional[int] = None


@dataclass(frozen=True)
class FixResult:
    """What fixing one text gave: the new text, the fixes applied, what is left."""

    path: str
    original: str
    fixed: str
    applied: Tuple[AppliedFix, ...] = ()
    remaining: Tuple[Diagnostic, ...] = ()
    rounds: int = 0
    #: no applicable fix was left at the end
    converged: bool = True
    error: Optional[FileError] = None
    #: the findings of the original text (what stays reported when the fix cannot be written)
    before: Tuple[Diagnostic, ...] = ()

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


def is_allowed(fix: Optional[Fix], unsafe: bool) -> bool:
    if fix is None:
        return False
    if fix.applicability is Applicability.SAFE:
        return True
    return unsafe and fix.applicability is Applicability.UNSAFE


def _conflicts(a: Edit, b: Edit) -> bool:
    """Edits that touch or overlap (two insertions at one point included), unless identical."""
    return a != b and a.start <= b.end and b.start <= a.end


def apply_fixes(source: str, fixes: Sequence[Fix]) -> Tuple[str, List[int]]:
    """Apply the fixes whose edits do not conflict with earlier ones; the indices of those applied."""
    taken: List[Edit] = []
    applied: List[int] = []
    for i, fix in enumerate(fixes):
        if not fix.edits or any(e.start < 0 or e.end > len(source) or e.start > e.end for e in fix.edits):
            continue
        if any(_conflicts(e, t) for e in fix.edits for t in taken):
            continue
        own = list(fix.edits)
        if any(_conflicts(a, b) for j, a in enumerate(own) for b in own[j + 1:]):
            continue
        for e in own:
            if e not in taken:
                taken.append(e)
        applied.append(i)
    text = source
    for e in sorted(taken, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: e.start] + e.replacement + text[e.end:]
    return text, applied


def _drops_a_used_import(old: str, new: str) -> bool:
    """A name an import of ``old`` binds is bound by no import of ``new`` and read there (a fix removed an
    import that another fix of the same round uses)."""
    import ast

    def imported(tree: ast.AST) -> set:
        out = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                out |= {(alias.asname or alias.name).split(".")[0] for alias in node.names if alias.name != "*"}
        return out

    try:
        before, after = ast.parse(old), ast.parse(new)
    except (SyntaxError, ValueError):
        return False
    gone = imported(before) - imported(after)
    return bool(gone) and any(isinstance(node, ast.Name) and node.id in gone for node in ast.walk(after))


def _lint(source: str, path: str, config: Config, prefer_static: Optional[bool]):
    from jitlint.engine import SourceError, lint_module, parse
    from jitlint.fixes import preferring_static

    try:
        module = parse(source)
        with preferring_static(prefer_static):
            return lint_module(module, source, path, config), None
    except SourceError as exc:
        return None, FileError(path, exc.line, exc.column, exc.message)


def _line_starts(text: str) -> List[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _stripped_lines(text: str, starts: Sequence[int], first: int, last: int) -> List[str]:
    """Lines ``first`` to ``last`` (1-based, inclusive) of ``text``, without their indentation."""
    return [text[starts[i - 1]:starts[i] if i < len(starts) else len(text)].strip() for i in range(first, last + 1)]


def line_origins(old: str, new: str, edits: Sequence[Edit]) -> List[int]:
    """For each line of ``new`` (``old`` with the non-overlapping ``edits`` applied), the 1-based
    line of ``old`` it comes from.  A line outside the edits is the same line, moved by the lines
    the edits above it added or removed; a line inside a replacement is the old line of the same
    text (indentation aside) in the replaced span, in order, else the line where the span began."""
    old_starts, new_starts = _line_starts(old), _line_starts(new)

    def old_line(offset: int) -> int:
        return bisect.bisect_right(old_starts, offset)

    def new_line(offset: int) -> int:
        return bisect.bisect_right(new_starts, offset)

    spans = []  # (start and end in new, start and end in old)
    shift = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        spans.append((edit.start + shift, edit.start + shift + len(edit.replacement), edit.start, edit.end))
        shift += len(edit.replacement) - (edit.end - edit.start)
    inside = {}  # a line of new inside a replacement -> its old line
    for new_start, new_end, old_start, old_end in spans:
        first_new, last_new = new_line(new_start), new_line(new_end)
        first_old, last_old = old_line(old_start), old_line(old_end)
        new_texts = _stripped_lines(new, new_starts, first_new, last_new)
        old_texts = _stripped_lines(old, old_starts, first_old, last_old)
        matched = {}
        for block in difflib.SequenceMatcher(None, old_texts, new_texts, autojunk=False).get_matching_blocks():
            for k in range(block.size):
                if old_texts[block.a + k]:  # a blank line says nothing about where it came from
                    matched[first_new + block.b + k] = first_old + block.a + k
        for line in range(first_new, last_new + 1):
            if new_start < new_starts[line - 1] < new_end:
                inside[line] = matched.get(line, first_old)
    origins = []
    moved = passed = 0  # the characters the spans ending before this line added; how many spans those are
    for line, offset in enumerate(new_starts, start=1):
        while passed < len(spans) and spans[passed][1] <= offset:
            new_start, new_end, old_start, old_end = spans[passed]
            moved += (new_end - new_start) - (old_end - old_start)
            passed += 1
        origins.append(inside[line] if line in inside else old_line(offset - moved))
    return origins


def fix_round(current: str, diagnostics: Sequence[Diagnostic], path: str,
              unsafe: bool, earlier: Sequence[AppliedFix] = ()) -> Tuple[str, List[AppliedFix], Optional[FileError]]:
    """One round: the allowed fixes that do not conflict, applied; the new text must parse.

    Returns the text (``current`` when nothing applied), the fixes applied, and
    an internal error when the fixes would have produced code that does not parse.
    ``earlier``: the fixes the previous rounds applied to this file, which give
    the fixes of this round their lines in the original text.
    """
    from jitlint.engine import SourceError, parse

    candidates = [d for d in diagnostics if is_allowed(d.fix, unsafe)]
    if not candidates:
        return current, [], None
    fixes = [d.fix for d in candidates if d.fix is not None]
    text, taken = apply_fixes(current, fixes)
    if len(taken) > 1 and any("import" in current[e.start:e.end] for i in taken for e in fixes[i].edits) \
            and _drops_a_used_import(current, text):
        # one fix removed an import it left unused while another, made against the same text, uses that name
        # (`partial` gone with one decorator, added to another): this round applies the first fix alone
        text, first = apply_fixes(current, [fixes[taken[0]]])
        taken = [taken[0]] if first else []
    if text == current:
        return current, [], None
    try:
        parse(text)
    except SourceError as exc:
        return current, [], FileError(path, exc.line, exc.column,
                                      f"internal error: a fix produced code that does not parse ({exc.message}); "
                                      "the fixes of that round were not applied", internal=True)
    before = earlier[-1].origins if earlier and earlier[-1].origins else None

    def original(line: int) -> int:
        return before[line - 1] if before is not None and 0 < line <= len(before) else line

    edits = [e for i in taken for e in (candidates[i].fix.edits if candidates[i].fix else ())]
    origins = tuple(original(line) for line in line_origins(current, text, list(dict.fromkeys(edits))))
    applied = []
    for i in taken:
        fix = candidates[i].fix
        assert fix is not None
        applied.append(AppliedFix(candidates[i].code, original(candidates[i].line), fix.title, fix.applicability,
                                  origins))
    return text, applied, None


def fix_source(source: str, path: str = "<string>", config: Optional[Config] = None, *, unsafe: bool = False,
               prefer_static: Optional[bool] = None, max_rounds: int = MAX_ROUNDS) -> FixResult:
    """Fix ``source``, on its own, to a fixed point.  Never raises on bad user code."""
    config = config or Config()
    current = source
    applied: List[AppliedFix] = []
    diagnostics, error = _lint(current, path, config, prefer_static)
    if error is not None:
        return FixResult(path, source, source, error=error)
    before = tuple(diagnostics)
    rounds = 0
    while rounds < max_rounds:
        text, taken, error = fix_round(current, diagnostics, path, unsafe, applied)
        if not taken:
            break
        rounds += 1
        applied += taken
        current = text
        diagnostics, lint_error = _lint(current, path, config, prefer_static)
        if lint_error is not None:  # cannot happen after a successful parse, but never loop on it
            error = lint_error
            break
    converged = not any(is_allowed(d.fix, unsafe) for d in diagnostics)
    return FixResult(path, source, current, tuple(applied), tuple(diagnostics), rounds, converged, error, before)


# --------------------------------------------------------------- files


@dataclass(frozen=True)
class Encoded:
    """A decoded file and how to encode it back exactly."""

    text: str
    encoding: str
    bom: bool


def decode_file(data: bytes) -> Encoded:
    """Decode as Python does (raises engine.SourceError when it cannot)."""
    from jitlint.engine import decode_source

    text = decode_source(data)
    bom = data.startswith(codecs.BOM_UTF8)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    return Encoded(text, encoding, bom)


def encode_file(text: str, like: Encoded) -> bytes:
    data = text.encode(like.encoding)
    return codecs.BOM_UTF8 + data if like.bom else data


class FileChangedError(OSError):
    """The file on disk is no longer the text that was fixed (another tool wrote it meanwhile)."""


#: a temporary file of ours older than this was left by a run that was killed: removed
STALE_TEMPORARY_SECONDS = 3600


def write_atomic(path: str, data: bytes, expected: Optional[bytes] = None,
                 within: Optional[Sequence[str]] = None) -> None:
    """Replace ``path`` by ``data`` at once: temp file in the same folder, then ``os.replace``.

    The file keeps its mode (and owner, where that is allowed); a symlink stays a
    link and its target is replaced -- but only a target inside one of the
    folders ``within`` (when given): a link out of the checked tree is refused.
    A file with several hard links is refused (a new file would split them).
    A read-only file is not forced: PermissionError.
    With ``expected`` (the bytes the fix was computed from), a file that no longer
    holds them -- another tool, or a second jitlint, wrote it meanwhile -- is left
    as it is: FileChangedError.  Temporary files that a killed run left next to
    the file are removed.
    """
    target = os.path.realpath(path)
    st = os.stat(target)
    if not stat.S_ISREG(st.st_mode):
        raise IsADirectoryError(errno.EISDIR, "not a regular file", path)
    if within is not None and target != os.path.abspath(path) and not any(
            target == root or target.startswith(root.rstrip(os.sep) + os.sep)
            for root in (os.path.realpath(r) for r in within)):
        raise PermissionError(errno.EPERM, f"a symbolic link to {target}, outside the checked folders "
                                           "(fix the target itself)", path)
    if st.st_nlink > 1:
        raise PermissionError(errno.EMLINK, f"the file has {st.st_nlink} hard links (a new file would split "
                                            "them; fix it where the other links do not matter)", path)
    if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, "the file is read-only", path)
    folder = os.path.dirname(target)
    _remove_stale_temporaries(folder, os.path.basename(target))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".jitlint", dir=folder)
    with removed_on_failure(tmp):
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:
                pass  # only root may give a file away: it stays the writer's
        if expected is not None:
            with open(target, "rb") as fh:
                if fh.read() != expected:
                    raise FileChangedError(errno.EAGAIN, "the file changed while it was being fixed", path)
        os.replace(tmp, target)


def _remove_stale_temporaries(folder: str, name: str) -> None:
    prefix = "." + name + "."
    try:
        entries = [e for e in os.listdir(folder) if e.startswith(prefix) and e.endswith(".jitlint")]
    except OSError:
        return
    now = time.time()
    for entry in entries:
        path = os.path.join(folder, entry)
        try:
            if stat.S_ISREG(os.lstat(path).st_mode) and now - os.lstat(path).st_mtime > STALE_TEMPORARY_SECONDS:
                os.unlink(path)
        except OSError:
            pass


@dataclass(frozen=True)
class FileFixResult:
    path: str
    result: Optional[FixResult] = None
    error: Optional[FileError] = None
    written: bool = False
    new_bytes: Optional[bytes] = None
    #: the bytes the fix was computed from (None: not read)
    data: Optional[bytes] = None
    #: of a notebook: where its findings are (:class:`jitlint.notebook.CellMap`), after the fixes and before
    cells: Optional[Any] = None
    original_cells: Optional[Any] = None


def fix_bytes(data: bytes, path: str, config: Optional[Config] = None, *, unsafe: bool = False,
              prefer_static: Optional[bool] = None) -> FileFixResult:
    """Fix the bytes of a file; ``new_bytes`` is what the file should hold (None: unchanged)."""
    from jitlint.engine import SourceError

    try:
        encoded = decode_file(data)
    except SourceError as exc:
        return FileFixResult(path, error=FileError(path, exc.line, exc.column, exc.message))
    result = fix_source(encoded.text, path, config, unsafe=unsafe, prefer_static=prefer_static)
    return file_outcome(path, result, encoded, data)


def file_outcome(path: str, result: FixResult, encoded: Encoded, original: bytes) -> FileFixResult:
    """What fixing a file's text gives the file: the bytes to write (None: unchanged), or why not."""
    if result.error is not None and not result.changed:
        return FileFixResult(path, result, error=result.error, data=original)
    if not result.changed:
        return FileFixResult(path, result, data=original)
    try:
        new = encode_file(result.fixed, encoded)
    except UnicodeEncodeError as exc:
        return FileFixResult(path, result, data=original, error=FileError(
            path, 1, 1, f"cannot encode the fixed file as {encoded.encoding}: {exc.reason}"))
    return FileFixResult(path, result, error=result.error, new_bytes=new if new != original else None, data=original)


def fix_file(path: str, config: Optional[Config] = None, *, unsafe: bool = False, write: bool = True,
             prefer_static: Optional[bool] = None) -> FileFixResult:
    """Fix one file on disk; written (atomically) only when ``write`` and its bytes change."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        return FileFixResult(path, error=FileError(path, 1, 1, f"cannot read: {exc.strerror or exc}"))
    outcome = fix_bytes(data, path, config, unsafe=unsafe, prefer_static=prefer_static)
    if write and outcome.new_bytes is not None:
        try:
            write_atomic(path, outcome.new_bytes, expected=data)
        except OSError as exc:
            return FileFixResult(path, outcome.result, error=FileError(
                path, 1, 1, f"cannot write: {exc.strerror or exc}"), new_bytes=outcome.new_bytes)
        return FileFixResult(path, outcome.result, outcome.error, True, outcome.new_bytes)
    return outcome


def unified_diff(path: str, before: str, after: str) -> str:
    """A unified diff of one file, as ``diff -u`` / ruff ``--diff`` print it."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=path, tofile=path)
    out: List[str] = []
    for line in lines:
        out.append(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n")
    return "".join(out)
