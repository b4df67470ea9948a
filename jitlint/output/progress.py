"""A progress bar for long runs, on stderr, only on a terminal.

Nothing is drawn when stderr is piped or redirected, with ``--quiet``, or for runs that end before
``delay`` seconds (so short checks never flicker); the bar is erased when the work is done, so
the report that follows starts on a clean line.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Iterable, Iterator, Optional, TextIO, TypeVar

T = TypeVar("T")

WIDTH = 30


def _clock(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}:{secs:02d}"


def is_terminal(stream: Optional[TextIO]) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):
        return False


class Progress:
    """``with Progress(total, "checking", unit="files") as bar: ... bar.advance()``."""

    def __init__(self, total: int, label: str, unit: str = "files", stream: Optional[TextIO] = None,
                 enabled: Optional[bool] = None, delay: float = 0.5, interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = max(total, 0)
        self.label = label
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = is_terminal(self.stream) if enabled is None else enabled
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.done = 0
        self.started = clock()
        self.drawn_at: Optional[float] = None
        self.shown = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def line(self) -> str:
        fraction = self.done / self.total if self.total else 1.0
        filled = int(WIDTH * fraction)
        bar = "#" * filled + "-" * (WIDTH - filled)
        elapsed = _clock(self.clock() - self.started)
        return f"{self.label} [{bar}] {self.done}/{self.total} {self.unit} {elapsed}"

    def advance(self, n: int = 1) -> None:
        self.done = min(self.done + n, self.total)
        if not self.enabled:
            return
        now = self.clock()
        if now - self.started < self.delay:
            return
        if self.drawn_at is not None and now - self.drawn_at < self.interval and self.done < self.total:
            return
        self._draw(self.line())
        self.drawn_at = now

    def _draw(self, text: str) -> None:
        try:
            self.stream.write("\r\x1b[K" + text)
            self.stream.flush()
            self.shown = True
        except (OSError, ValueError):
            self.enabled = False

    def close(self) -> None:
        """Erase the bar (if it was drawn)."""
        if self.shown:
            try:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self.shown = False


def track(items: Iterable[T], total: int, label: str, unit: str = "files", **options) -> Iterator[T]:
    """Yield ``items``, advancing a :class:`Progress` after each."""
    with Progress(total, label, unit, **options) as bar:
        for item in items:
            yield item
            bar.advance()
