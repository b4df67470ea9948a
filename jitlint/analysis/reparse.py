"""Parsing a new version of a document again only where it changed (the editor's re-lint after an edit).

LibCST's parse is most of what a re-lint costs on real code: on a 10k-line module of JAX itself the
parse takes about ten times the analysis.  After an edit most of the module is the same, and LibCST's
trees are immutable, so the module statements that the edit did not touch are kept as they were, and
only the text from the statement before the edit to the statement after it is parsed, then spliced in
(:func:`reparse`).  The result is the module a full parse would give (tests/test_reparse.py compares the
two on random edits).

A document's last parse (:class:`Parsed`: its text, its module, where each module statement starts) is
kept per path inside :func:`reparsing`, which the editor's worker process sets around its lints; elsewhere
(``jitlint check``, flake8) every parse is a full one.
"""
from __future__ import annotations

import bisect
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Dict, Iterator, List, NamedTuple, Optional

import libcst as cst

from jitlint.analysis.positions import module_layout
from jitlint.source import SourceError, parse

#: parsed in front of the changed text, so that the blank lines and comments before its first statement
#: stay that statement's (alone they would be the module's header); a line of its own in any file
_ANCHOR = "pass"


class Parsed(NamedTuple):
    """A document's text, its module, and where each module statement starts in the text (its blank and
    comment lines included)."""

    source: str
    module: cst.Module
    offsets: List[int]


#: the last parse of each document, by path (None: parses are not kept)
_KEPT: ContextVar[Optional[Dict[str, Parsed]]] = ContextVar("jitlint_reparse", default=None)


@contextmanager
def reparsing(kept: Dict[str, Parsed]) -> Iterator[None]:
    """Within the block, :func:`parse_document` keeps each document's parse in ``kept`` and parses its next
    version again only where it changed."""
    token = _KEPT.set(kept)
    try:
        yield
    finally:
        _KEPT.reset(token)


def parse_document(source: str, path: str, parse_whole: Callable[[str], cst.Module] = parse) -> cst.Module:
    """The module of ``source``: reparsed from the kept parse of ``path`` where one is kept and the edit
    allows it, else parsed whole (by ``parse_whole``).  SourceError for code that is not valid Python."""
    kept = _KEPT.get()
    if kept is None:
        return parse_whole(source)
    previous = kept.get(path)
    done = reparse(previous, source) if previous is not None else None
    # a version that does not parse leaves the last one that did: the next edit is parsed against it
    kept[path] = done or full_parse(source)
    return kept[path].module


def keeping() -> bool:
    """Whether parses are kept here (:func:`reparsing` is active)."""
    return _KEPT.get() is not None


def last_offsets(path: str) -> Optional[List[int]]:
    """Where each statement of the module :func:`parse_document` last gave for ``path`` starts (None
    when parses are not kept, or its code generation did not give back its text)."""
    kept = _KEPT.get()
    parsed = kept.get(path) if kept is not None else None
    return parsed.offsets or None if parsed is not None else None


def full_parse(source: str) -> Parsed:
    """``source`` parsed whole, with where its statements start (one pass of code generation)."""
    module = parse(source)
    layout = module_layout(module, ())
    return Parsed(source, module, layout.statement_offsets if layout.code == source else [])


def reparse(previous: Parsed, source: str) -> Optional[Parsed]:
    """``source`` parsed again where it differs from ``previous.source``, or None where that cannot be
    done (the edit touches the first or the last module statement, or the header or footer of the
    module, or the changed text does not parse alone: a full parse then gives the answer, or the error
    at the right place)."""
    old, module, offsets = previous
    if not offsets or len(offsets) != len(module.body):
        return None
    if source == old:
        return previous
    # the changed text: old[start:old_end] became source[start:new_end]
    start = 0
    limit = min(len(old), len(source))
    while start < limit and old[start] == source[start]:
        start += 1
    tail = 0
    while tail < limit - start and old[-1 - tail] == source[-1 - tail]:
        tail += 1
    old_end = len(old) - tail
    # the statements the change touches, and one more on each side: an edit at a statement's edge can
    # join it to its neighbour (a line break deleted) or give the neighbour a decorator
    first = bisect.bisect_right(offsets, start) - 1 - 1
    last = bisect.bisect_right(offsets, max(old_end - 1, start)) - 1 + 1
    if first < 1 or last + 1 >= len(offsets):
        return None
    chunk_start, old_chunk_end = offsets[first], offsets[last + 1]
    delta = len(source) - len(old)
    chunk = source[chunk_start:old_chunk_end + delta]
    newline = module.default_newline
    anchored = _ANCHOR + newline + chunk
    try:
        part = parse(anchored, module.config_for_parsing)
    except SourceError:
        return None
    if part.header or part.footer or not part.body or not _is_anchor(part.body[0]):
        return None
    if (part.default_indent, part.default_newline) != (module.default_indent, module.default_newline):
        return None  # the part found another indent (its first block's): its blocks are written against it
    layout = module_layout(part, ())
    if layout.code != anchored:
        return None
    skip = len(_ANCHOR + newline)
    new_offsets = ([*offsets[:first]] + [chunk_start + at - skip for at in layout.statement_offsets[1:]]
                   + [at + delta for at in offsets[last + 1:]])
    body = [*module.body[:first], *part.body[1:], *module.body[last + 1:]]
    return Parsed(source, module.with_changes(body=body), new_offsets)


def _is_anchor(statement: cst.BaseStatement) -> bool:
    return (isinstance(statement, cst.SimpleStatementLine) and not statement.leading_lines
            and len(statement.body) == 1 and isinstance(statement.body[0], cst.Pass))
