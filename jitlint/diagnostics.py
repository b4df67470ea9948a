"""The data jitlint reports: findings, fixes, per-file results."""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, Tuple


#: characters that end a line or drive a terminal: never printed raw from a file name (a name holding
#: a newline and ``::warning ...::`` would be a GitHub Actions workflow command on a line of its own)
#: a line number in a finding's reason chain ("assigned on line 12"), not one of another file ("line 3 of
#: util.py"): where the editor points the reason's related information, and what an edit moves
REASON_LINE = re.compile(r"\bline (\d+)\b(?! of )")
#: what ends a line for LibCST's line numbers and for LSP positions: not a form feed or U+2028
LINE_END = re.compile(r"\r\n|\r|\n")

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str) -> str:
    """``text`` with its control characters written as escapes (``\\n``, ``\\x1b``): one line, inert."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class Applicability(enum.Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True)
class Edit:
    start: int  # byte offsets into the source text (str indices)
    end: int
    replacement: str


class EditsNotBuilt(Exception):
    """The edits of a fix reported by its title only were read (see :meth:`Fix.without_edits`)."""


class Fix:
    """What jitlint offers for a finding: how safe it is, a title naming the remedy, and the edits.

    A builder that decides first and writes the new code after returns :meth:`Fix.later`: the
    title and the applicability are final, and the edits are made when :meth:`built` is called
    (the engine does that at once, unless the front end reports titles only). A fix reported
    without its edits (:meth:`without_edits`: ``jitlint check`` printing text) raises
    :class:`EditsNotBuilt` when they are read. Immutable.
    """

    __slots__ = ("applicability", "title", "_edits", "_make")

    applicability: Applicability
    title: str

    def __init__(self, applicability: Applicability, title: str, edits: Sequence[Edit] = ()) -> None:
        self._set(applicability, title, tuple(edits), None)

    def _set(self, applicability: Applicability, title: str, edits: Optional[Tuple[Edit, ...]],
             make: Optional[Callable[[], Tuple[Edit, ...]]]) -> None:
        for name, value in (("applicability", applicability), ("title", title), ("_edits", edits), ("_make", make)):
            object.__setattr__(self, name, value)

    @classmethod
    def later(cls, applicability: Applicability, title: str, make: Callable[[], Tuple[Edit, ...]]) -> "Fix":
        """A fix whose (non-empty) edits ``make()`` gives when they are built: everything that decides
        whether there is a fix, its title and its applicability has been decided before."""
        fix = cls.__new__(cls)
        fix._set(applicability, title, None, make)
        return fix

    @classmethod
    def unbuilt(cls, applicability: Applicability, title: str) -> "Fix":
        """A fix known by its title and applicability only: its edits were never built."""
        fix = cls.__new__(cls)
        fix._set(applicability, title, None, None)
        return fix

    @property
    def pending(self) -> bool:
        """Made by :meth:`later`, its edits not built yet: it has some."""
        return self._make is not None

    @property
    def edits(self) -> Tuple[Edit, ...]:
        if self._edits is None:
            raise EditsNotBuilt(f"the edits of the fix {self.title!r} were not built: lint with the edits asked for")
        return self._edits

    @property
    def edits_built(self) -> bool:
        """Whether :attr:`edits` can be read (not pending, not reported without them)."""
        return self._edits is not None

    def built(self) -> "Fix":
        """This fix with its edits (a pending fix's made now: that may raise, on a builder's internal error)."""
        if self._make is None:
            return self
        return Fix(self.applicability, self.title, self._make())

    def without_edits(self) -> "Fix":
        """This fix, its edits left unbuilt when they are not built yet (and never built after)."""
        return Fix.unbuilt(self.applicability, self.title) if self._make is not None else self

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Fix is immutable: cannot set {name}")

    def _key(self) -> tuple:
        return (self.applicability, self.title, self._edits, self._make)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Fix) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        edits = "<pending>" if self._make is not None else "<not built>" if self._edits is None else self._edits
        return f"Fix(applicability={self.applicability!r}, title={self.title!r}, edits={edits!r})"

    def __reduce__(self):
        """Pickled (to and from a worker process) with its edits built, or known to be unbuilt."""
        fix = self.built()
        if fix._edits is None:
            return (Fix.unbuilt, (fix.applicability, fix.title))
        return (Fix, (fix.applicability, fix.title, fix._edits))


@dataclass(frozen=True)
class Diagnostic:
    path: str
    line: int
    column: int  # 1-based
    end_line: int
    end_column: int
    code: str
    message: str
    reason: Tuple[str, ...] = ()
    fix: Optional[Fix] = None
    #: what the finding is about: a name (the global of JIT101/JIT102) or the source of the flagged expression
    subject: Optional[str] = None
    #: when the fix was not built with the finding (the editor builds a fix only for a code action):
    #: builds it, or gives None when the rule offers none here; never cached, never pickled
    deferred_fix: Optional[Callable[[], Optional[Fix]]] = field(default=None, compare=False, repr=False)
    #: in a notebook: the cell (its place among all the notebook's cells, 1-based); ``line`` and
    #: ``end_line`` are then lines of that cell
    cell: Optional[int] = None
    #: the fix (with its edits), or that there is none, is known without the analysis: read from a cache
    #: entry the editor completed while idle (``jitlint.runner.lint_files``' ``store_fixes``)
    fix_decided: bool = field(default=False, compare=False, repr=False)

    @property
    def where(self) -> str:
        """``line:column``, or ``cell N:line:column`` in a notebook."""
        return f"{'' if self.cell is None else f'cell {self.cell}:'}{self.line}:{self.column}"

    def __getstate__(self) -> dict:
        """What is pickled (to and from a worker process): not ``deferred_fix``, a closure over the
        analysis; a finding unpickled reads the default, None."""
        return {name: value for name, value in self.__dict__.items() if name != "deferred_fix"}

    def built_fix(self) -> Optional[Fix]:
        """The fix, built now if it was deferred."""
        if self.fix is None and self.deferred_fix is not None:
            return self.deferred_fix()
        return self.fix

    def to_json(self, unbuilt_edits: bool = False) -> dict:
        """The finding as JSON; its fix's edits must have been built, unless ``unbuilt_edits``
        (a cache entry of a lint that reported titles only): then edits not built are ``null``."""
        fix = None
        if self.fix is not None:
            edits = None
            if self.fix.edits_built or not (unbuilt_edits or self.cell is not None):  # (a notebook's: in its module)
                edits = [{"start": e.start, "end": e.end, "content": e.replacement} for e in self.fix.edits]
            fix = {"applicability": self.fix.applicability.value, "title": self.fix.title, "edits": edits}
        return {
            "path": self.path,
            **({} if self.cell is None else {"cell": self.cell}),
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "message": self.message,
            "subject": self.subject,
            "reason": list(self.reason),
            "fix": fix,
        }


@dataclass(frozen=True)
class FileError:
    """A file that could not be read or parsed: reported, never linted or written.

    ``internal`` marks a failure of jitlint itself rather than of the input.  ``partial``: a notebook
    of which one code cell is not Python (:func:`jitlint.notebook.cell_syntax_error`), its other cells
    linted all the same (the file is not written).
    """

    path: str
    line: int
    column: int
    message: str
    internal: bool = False
    #: in a notebook: the cell ``line`` is a line of
    cell: Optional[int] = None
    partial: bool = False

    def render(self) -> str:
        """The one line the user sees: ``path:line:col: error: reason`` (``path:cell N:line:col`` in a notebook)."""
        where = f"{'' if self.cell is None else f'cell {self.cell}:'}{self.line}:{self.column}"
        return f"{printable(self.path)}:{where}: error: {printable(self.message)}"


@dataclass(frozen=True)
class FileResult:
    """What linting one file gave: findings, or the error that stopped it.

    ``source`` is the decoded text, kept so that reports can quote lines of
    input that has no file on disk (stdin) or is not UTF-8.
    """

    path: str
    diagnostics: Tuple[Diagnostic, ...] = ()
    error: Optional[FileError] = None
    source: Optional[str] = None
    #: of a notebook: where each line of its module (``source``) is in its cells
    #: (:class:`jitlint.notebook.CellMap`); the findings' lines are the module's
    cells: Optional[Any] = None
