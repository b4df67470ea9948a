"""The data jitlint reports: findings, fixes, per-file results."""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple


#: characters that end a line or drive a terminal: never printed raw from a file name (a name holding
#: a newline and ``::warning ...::`` would be a GitHub Actions workflow command on a line of its own)
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


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    title: str
    edits: Tuple[Edit, ...]


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

    def __getstate__(self) -> dict:
        """What is pickled (to and from a worker process): not ``deferred_fix``, a closure over the
        analysis; a finding unpickled reads the default, None."""
        return {name: value for name, value in self.__dict__.items() if name != "deferred_fix"}

    def built_fix(self) -> Optional[Fix]:
        """The fix, built now if it was deferred."""
        if self.fix is None and self.deferred_fix is not None:
            return self.deferred_fix()
        return self.fix

    def to_json(self) -> dict:
        fix = None
        if self.fix is not None:
            fix = {
                "applicability": self.fix.applicability.value,
                "title": self.fix.title,
                "edits": [{"start": e.start, "end": e.end, "content": e.replacement} for e in self.fix.edits],
            }
        return {
            "path": self.path,
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

    ``internal`` marks a failure of jitlint itself rather than of the input.
    """

    path: str
    line: int
    column: int
    message: str
    internal: bool = False

    def render(self) -> str:
        """The one line the user sees: ``path:line:col: error: reason``."""
        return f"{printable(self.path)}:{self.line}:{self.column}: error: {printable(self.message)}"


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
