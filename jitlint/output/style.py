"""Terminal colours: on for a terminal, off when piped, when ``NO_COLOR`` is set, or for ``TERM=dumb``."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Optional, TextIO

#: SGR codes of the roles the text report colours
_CODES = {
    "location": "1",      # bold
    "code": "1;31",       # bold red
    "gutter": "1;34",     # bold blue
    "caret": "1;31",
    "note": "1;34",
    "fix": "1;32",        # bold green
    "unsafe": "1;33",     # bold yellow
    "summary": "1",
    "dim": "2",
}


def wants_color(stream: Optional[TextIO], mode: str = "auto", environ: Optional[Mapping[str, str]] = None) -> bool:
    """``--color always|never|auto``: auto means a terminal, with neither ``NO_COLOR`` (https://no-color.org)
    nor ``TERM=dumb`` set; ``FORCE_COLOR`` turns it on even when piped."""
    if mode == "always":
        return True
    if mode == "never":
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    if env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


@dataclass(frozen=True)
class Style:
    """Wraps text in ANSI colours for one role, or leaves it as it is."""

    color: bool = False

    def __call__(self, role: str, text: str) -> str:
        if not self.color or not text:
            return text
        return f"\x1b[{_CODES[role]}m{text}\x1b[0m"


PLAIN = Style(False)
