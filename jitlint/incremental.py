"""The editor's re-analysis after an edit: only the module statements the edit can affect.

After an edit, :func:`analyse` finds the module statements whose findings may change
(:func:`jitlint.analysis.influence.affected`: the edited statements and everything linked to them
by a name) and analyses them in a *reduced module*: those statements, what they read (their imports,
every line of imports), and in place of every other statement a blank of exactly its size (a bytes
literal, or comment lines, with the same line breaks).  So every line, column and offset of the
reduced module is the real module's, and its findings, reason chains and fixes need no translation.
The findings of the other statements are the last analysis's, moved by the lines the edit added or
removed.

The result is the one a whole analysis gives (``tests/test_incremental.py`` compares the two on
edits of every lint fixture).  Where that cannot be shown cheaply, the whole module is analysed:
the analysis read another module (its callers or helpers could link statements that share no name
here), a statement reaches names the analysis cannot see, most statements are affected anyway, or the
last analysis had a finding outside every statement.

A finding kept from the last analysis gets its fix built, when asked, by a reduced analysis around
its own statement; a fix built in a reduced module is checked not to use a name that one of the
statements left out binds (it could collide there), else it is built by a whole analysis.

:func:`reanalysing` keeps each document's last analysis (the editor's worker process sets it around
its lints, as :func:`jitlint.analysis.reparse.reparsing`); elsewhere every analysis is a whole one.
"""
from __future__ import annotations

import bisect
import difflib
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis.influence import Summary, affected, needed, summarize
from jitlint.analysis.syntax import is_docstring
from jitlint.diagnostics import LINE_END as _LINE_END
from jitlint.diagnostics import REASON_LINE as _LINE
from jitlint.diagnostics import Diagnostic, Fix

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: above this share of the module's statements affected, the whole module is analysed
MOST = 0.5


@dataclass
class Analysis:
    """A document's last analysis: its text, module, where its statements start, its own findings
    and the (line, code) pairs a ``# noqa`` silenced, and its statements' summaries."""

    key: tuple
    source: str
    module: cst.Module
    offsets: List[int]
    diagnostics: List[Diagnostic]
    silenced: Set[Tuple[int, str]]
    summaries: Dict[int, Tuple[cst.CSTNode, Summary]] = field(default_factory=dict)
    #: how the last analysis was made: "whole", or "reduced N of M" statements (for tests and logs)
    how: str = "whole"


_KEPT: ContextVar[Optional[Dict[str, Analysis]]] = ContextVar("jitlint_reanalyse", default=None)


@contextmanager
def reanalysing(kept: Dict[str, Analysis]) -> Iterator[None]:
    """Within the block, :func:`analyse` keeps each document's last analysis in ``kept``."""
    token = _KEPT.set(kept)
    try:
        yield
    finally:
        _KEPT.reset(token)


def active() -> bool:
    return _KEPT.get() is not None


#: the whole analysis: (source, module) -> (findings by real path, silenced by real path, modules read)
Found = Tuple[Dict[str, List[Diagnostic]], Dict[str, Set[Tuple[int, str]]], Dict[str, str]]
Analyse = Callable[[str, cst.Module, bool], Found]


def analyse(path: str, source: str, module: cst.Module, offsets: Optional[List[int]], key: tuple,
            run: Analyse) -> Found:
    """The findings of ``module`` (at ``path``), by a reduced analysis where the last one of the same
    document allows it, else by ``run`` (the whole analysis; its third argument: build fixes now);
    the analysis is kept for the next edit when :func:`reanalysing` is active."""
    kept = _KEPT.get()
    own = os.path.realpath(path)
    previous = kept.get(own) if kept is not None else None
    done = None
    if previous is not None and previous.key == key and offsets:
        done = _reduced(previous, own, source, module, offsets, run)
    if done is None:
        found, silenced, read = run(source, module, False)
        if kept is not None:
            kept.pop(own, None)
            if offsets and set(found) <= {own} and not read and source.endswith(("\n", "\r")):
                summaries = _pruned(previous.summaries, module) if previous is not None else {}
                kept[own] = Analysis(key, source, module, offsets, list(found.get(own, [])),
                                     set(silenced.get(own, ())), summaries)
        return found, silenced, read
    diagnostics, silenced_own, analysis = done
    kept[own] = analysis
    return {own: diagnostics}, ({own: silenced_own} if silenced_own else {}), {}


def _pruned(summaries: Dict[int, Tuple[cst.CSTNode, Summary]],
            module: cst.Module) -> Dict[int, Tuple[cst.CSTNode, Summary]]:
    """The summaries of the statements ``module`` still has (an edit keeps the nodes it did not touch)."""
    live = {id(s): s for s in module.body}
    return {ident: known for ident, known in summaries.items() if live.get(ident) is known[0]}


# ------------------------------------------------------------------ statements and lines

def _ends(source: str, module: cst.Module, offsets: List[int]) -> List[int]:
    return offsets[1:] + [len(source) - len(_footer_code(module))]


def _statement_texts(source: str, module: cst.Module, offsets: List[int]) -> List[str]:
    return [source[a:b] for a, b in zip(offsets, _ends(source, module, offsets))]


def _footer_code(module: cst.Module) -> str:
    if not module.footer:
        return ""
    return cst.Module(body=[], header=(), footer=module.footer, default_newline=module.default_newline,
                      default_indent=module.default_indent, encoding=module.encoding,
                      has_trailing_newline=module.has_trailing_newline).code


def _first_lines(source: str, offsets: List[int]) -> List[int]:
    """The 1-based line each statement starts on (its leading blank and comment lines included)."""
    starts = [0] + [m.end() for m in _LINE_END.finditer(source)]
    return [bisect.bisect_right(starts, at) for at in offsets]


def _statement_of(first_lines: List[int], line: int) -> int:
    return bisect.bisect_right(first_lines, line) - 1


def _summary(analysis_summaries: Dict[int, Tuple[cst.CSTNode, Summary]], node: cst.CSTNode) -> Summary:
    known = analysis_summaries.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    made = summarize(node)
    analysis_summaries[id(node)] = (node, made)
    return made


def _align(old: List[str], new: List[str], old_nodes: Sequence[cst.CSTNode],
           new_nodes: Sequence[cst.CSTNode]) -> Dict[int, int]:
    """New statement index -> the old one it is the same as (same text, same order)."""
    same: Dict[int, int] = {}
    n_old, n_new = len(old), len(new)
    head = 0
    while head < min(n_old, n_new) and (old_nodes[head] is new_nodes[head] or old[head] == new[head]):
        same[head] = head
        head += 1
    tail = 0
    while tail < min(n_old, n_new) - head:
        i, j = n_old - 1 - tail, n_new - 1 - tail
        if not (old_nodes[i] is new_nodes[j] or old[i] == new[j]):
            break
        same[j] = i
        tail += 1
    middle = difflib.SequenceMatcher(None, old[head:n_old - tail], new[head:n_new - tail], autojunk=False)
    for block in middle.get_matching_blocks():
        for k in range(block.size):
            same[head + block.b + k] = head + block.a + k
    return same


# ------------------------------------------------------------------ the reduced module

def _blank_lines(text: str, default_newline: str) -> List[cst.EmptyLine]:
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        newline = cst.Newline(None if ending == default_newline else ending)
        comment = cst.Comment("#" + " " * (len(body) - 1)) if body else None
        out.append(cst.EmptyLine(indent=False, comment=comment, newline=newline))
    return out


Blank = Tuple[List[cst.EmptyLine], Optional[cst.SimpleStatementLine], List[cst.EmptyLine]]


def _blank(text: str, default_newline: str) -> Blank:
    """Code of exactly ``text``'s size and line breaks that does nothing: comment lines before and
    after, and between them one bytes literal over the long lines (a literal is one node, however many
    lines it spans; a bytes literal is never a docstring)."""
    lines = text.splitlines(keepends=True)
    bodies = [line.rstrip("\r\n") for line in lines]
    first = next((i for i, b in enumerate(bodies) if len(b) >= 4), None)
    last = next((i for i in range(len(bodies) - 1, -1, -1) if len(bodies[i]) >= 3), None)
    if first is None or last is None or last <= first:
        return _blank_lines(text, default_newline), None, []
    inner = [" " * (len(bodies[first]) - 4) + lines[first][len(bodies[first]):]]
    inner += [" " * len(bodies[i]) + lines[i][len(bodies[i]):] for i in range(first + 1, last)]
    inner.append(" " * (len(bodies[last]) - 3))
    ending = lines[last][len(bodies[last]):]
    literal = cst.SimpleStatementLine(
        body=[cst.Expr(cst.SimpleString('b"""' + "".join(inner) + '"""'))],
        trailing_whitespace=cst.TrailingWhitespace(
            newline=cst.Newline(None if ending == default_newline else ending)))
    return (_blank_lines("".join(lines[:first]), default_newline), literal,
            _blank_lines("".join(lines[last + 1:]), default_newline))


def reduced_module(module: cst.Module, source: str, texts: List[str],
                   keep: Set[int]) -> Optional[Tuple[cst.Module, str]]:
    """``module`` (of ``source``) with the statements not in ``keep`` blanked out, and its code; None
    when that code does not have ``source``'s size and line breaks (it always should)."""
    newline = module.default_newline
    body: List[cst.BaseStatement] = []
    pending: List[cst.EmptyLine] = []
    run: List[str] = []

    def flush() -> None:
        if run:
            before, literal, after = _blank("".join(run), newline)
            pending.extend(before)
            if literal is not None:
                body.append(literal.with_changes(leading_lines=pending[:]))
                pending.clear()
            pending.extend(after)
            run.clear()

    for i, statement in enumerate(module.body):
        if i in keep:
            flush()
            body.append(statement.with_changes(leading_lines=[*pending, *statement.leading_lines])
                        if pending else statement)
            pending.clear()
        else:
            run.append(texts[i])
    flush()
    reduced = module.with_changes(body=body, footer=[*pending, *module.footer])
    code = reduced.code
    if len(code) != len(source) or _breaks(code) != _breaks(source):
        return None
    return reduced, code


def _breaks(text: str) -> List[int]:
    return [m.start() for m in _LINE_END.finditer(text)]


# ------------------------------------------------------------------ the re-analysis

def _reduced(previous: Analysis, own: str, source: str, module: cst.Module, offsets: List[int],
             run: Analyse) -> Optional[Tuple[List[Diagnostic], Set[Tuple[int, str]], Analysis]]:
    if not source.endswith(("\n", "\r")) or len(offsets) != len(module.body) or not module.body:
        return None
    old_texts = _statement_texts(previous.source, previous.module, previous.offsets)
    new_texts = _statement_texts(source, module, offsets)
    same = _align(old_texts, new_texts, previous.module.body, module.body)
    summaries = previous.summaries
    new_summaries = [_summary(summaries, s) for s in module.body]
    matched_old = set(same.values())
    gone = [i for i in range(len(old_texts)) if i not in matched_old]
    changed = [j for j in range(len(new_texts)) if j not in same]
    every = new_summaries + [_summary(summaries, previous.module.body[i]) for i in gone]
    reach = affected(every, changed + list(range(len(new_texts), len(every))))
    if reach is None:
        return None
    redo = {j for j in reach if j < len(new_texts)}
    if len(redo) > MOST * len(new_texts):
        return None
    # findings kept from the last analysis: each statement's own, moved by its lines
    old_first = _first_lines(previous.source, previous.offsets)
    new_first = _first_lines(source, offsets)
    back = {old: new for new, old in same.items()}

    def moved(line: int) -> Optional[int]:
        k = _statement_of(old_first, line)
        if k < 0 or k not in back:
            return None
        return line + new_first[back[k]] - old_first[k]

    if not redo:
        return None
    keep = needed(new_summaries, redo)
    if module.body and is_docstring(module.body[0]):
        keep.add(0)
    kept_findings: List[Diagnostic] = []
    for d in previous.diagnostics:
        k = _statement_of(old_first, d.line)
        if k < 0:
            return None
        if k not in back or back[k] in redo:
            continue
        shifted = _shift(d, moved)
        if shifted is None:
            return None
        kept_findings.append(shifted)
    kept_silenced: Set[Tuple[int, str]] = set()
    for line, code in previous.silenced:
        k = _statement_of(old_first, line)
        if k < 0:
            return None
        if k in back and back[k] not in redo:
            kept_silenced.add((line + new_first[back[k]] - old_first[k], code))
    made = reduced_module(module, source, new_texts, keep)
    if made is None:
        return None
    found, silenced, read = run(made[1], made[0], False)
    if read or set(found) - {own}:
        return None
    blind = _blind(new_summaries, offsets, _ends(source, module, offsets), keep, redo)
    whole = partial(_fix_by_whole_analysis, source, module, run)
    fresh = []
    for d in found.get(own, []):
        if _statement_of(new_first, d.line) in redo:
            fresh.append(replace(d, deferred_fix=partial(_checked_fix, d.deferred_fix, blind, whole, d))
                         if d.deferred_fix is not None else d)
    fresh_silenced = {(line, code) for line, code in silenced.get(own, ())
                      if _statement_of(new_first, line) in redo}
    analysis = Analysis(previous.key, source, module, offsets, [], kept_silenced | fresh_silenced, summaries,
                        how=f"reduced {len(keep)} of {len(new_texts)}")
    # a kept finding's fix: a reduced analysis around its statement, made when asked
    kept_findings = [replace(d, fix=None, deferred_fix=partial(_fix_around, analysis, run, own, d))
                     for d in kept_findings]
    diagnostics = sorted(kept_findings + fresh, key=lambda d: (d.line, d.column, d.code))
    analysis.diagnostics = diagnostics
    analysis.summaries = _pruned(summaries, module)
    return diagnostics, analysis.silenced, analysis


def _shift(d: Diagnostic, moved: Callable[[int], Optional[int]]) -> Optional[Diagnostic]:
    line, end_line = moved(d.line), moved(d.end_line)
    if line is None or end_line is None:
        return None
    reasons = []
    for text in d.reason:
        out = _shift_lines(text, moved)
        if out is None:
            return None
        reasons.append(out)
    if line == d.line and end_line == d.end_line and tuple(reasons) == d.reason:
        return d
    return replace(d, line=line, end_line=end_line, reason=tuple(reasons))


def _shift_lines(text: str, moved: Callable[[int], Optional[int]]) -> Optional[str]:
    """``text`` with each "line N" outside its quoted code moved; None when one cannot be."""
    parts = text.split("`")
    for i in range(0, len(parts), 2):
        failed = False

        def one(match: "re.Match[str]") -> str:
            nonlocal failed
            to = moved(int(match.group(1)))
            if to is None:
                failed = True
                return match.group(0)
            return f"line {to}"

        parts[i] = _LINE.sub(one, parts[i])
        if failed:
            return None
    return "`".join(parts)


# ------------------------------------------------------------------ fixes

@dataclass(frozen=True)
class _Blind:
    """What a reduced analysis did not see: the names that the statements it left out mention or
    bind and the statements it kept do not, and every statement it did not analyse (it saw the
    imports only as context)."""

    names: Set[str]
    #: the spans of the statements it analysed
    chosen: Tuple[Tuple[int, int], ...]
    #: the spans of the lines of imports
    imports: Tuple[Tuple[int, int], ...]

    def sees(self, start: int, end: int) -> bool:
        """Whether an edit of ``[start, end)`` is one the reduced analysis decides as the whole one
        would: inside a statement it analysed (code inserted between statements is placed by the
        module's layout, which it does not see), or an import inserted next to a line of imports."""
        if start == end and any(start in (a, b) for a, b in self.imports):
            return True
        return any(a <= start and end <= b and (a < start or start < end) for a, b in self.chosen)


def _blind(summaries: Sequence[Summary], offsets: List[int], ends: List[int], keep: Set[int],
           chosen: Set[int]) -> _Blind:
    names: Set[str] = set()
    seen: Set[str] = set()
    for j, s in enumerate(summaries):
        if j not in keep:
            names |= s.mentions | s.bound_anywhere | s.module_binds
        else:
            seen |= s.mentions
    # a name the analysed statements use already was no choice of the fix: only new names are checked
    return _Blind(names - seen, tuple((offsets[j], ends[j]) for j in sorted(chosen)),
                  tuple((offsets[j], ends[j]) for j, s in enumerate(summaries) if s.is_import))


def _checked_fix(build: Callable[[], Optional[Fix]], blind: _Blind, whole: Callable[[Diagnostic], Optional[Fix]],
                 finding: Diagnostic) -> Optional[Fix]:
    """The fix a reduced analysis built, unless it could depend on what that analysis did not see:
    its new code uses a name that a statement left out uses (a collision there, or an import that
    would change what that statement reads), or it edits outside the statements it analysed (removing
    an import that a statement left out reads, placing new code among statements it did not see),
    other than inserting an import; then a whole analysis's."""
    fix = build()
    if fix is None:
        return fix
    from jitlint.fixes import built

    made = built(fix)
    for edit in made.edits:
        if set(_IDENTIFIER.findall(edit.replacement)) & blind.names:
            return whole(finding)
        if not blind.sees(edit.start, edit.end):
            return whole(finding)
    return made


def _fix_by_whole_analysis(source: str, module: cst.Module, run: Analyse, finding: Diagnostic) -> Optional[Fix]:
    found, _, _ = run(source, module, True)
    for diags in found.values():
        for d in diags:
            if (d.line, d.column, d.code) == (finding.line, finding.column, finding.code):
                return d.built_fix()
    return None


def fix_in_text(path: str, source: str, module: cst.Module, offsets: List[int], run: Analyse,
                finding: Diagnostic, key: tuple = ()) -> Optional[Fix]:
    """The fix of ``finding``, a finding of ``source`` (at ``path``) known without its fix (read from the
    results cache): a reduced analysis around its statement, as for a finding kept after an edit (the
    statements' summaries of the document's kept analysis reused when it is of the same text, ``key``)."""
    if not offsets or len(offsets) != len(module.body) or not module.body or not source.endswith(("\n", "\r")):
        return _fix_by_whole_analysis(source, module, run, finding)
    own = os.path.realpath(path)
    kept = _KEPT.get()
    previous = kept.get(own) if kept is not None else None
    summaries = previous.summaries if previous is not None and previous.key == key else {}
    return _fix_around(Analysis(key, source, module, offsets, [], set(), summaries), run, own, finding)


def _fix_around(analysis: Analysis, run: Analyse, own: str, finding: Diagnostic) -> Optional[Fix]:
    """The fix of a finding kept from an earlier analysis: a reduced analysis of its statement and
    what is linked to it."""
    source, module, offsets = analysis.source, analysis.module, analysis.offsets
    texts = _statement_texts(source, module, offsets)
    first = _first_lines(source, offsets)
    at = _statement_of(first, finding.line)
    summaries = [_summary(analysis.summaries, s) for s in module.body]
    reach = affected(summaries, [at])
    whole = partial(_fix_by_whole_analysis, source, module, run)
    if reach is None:
        return whole(finding)
    keep = needed(summaries, reach)
    if is_docstring(module.body[0]):
        keep.add(0)
    made = reduced_module(module, source, texts, keep)
    if made is None:
        return whole(finding)
    found, _, read = run(made[1], made[0], False)
    if read:
        return whole(finding)
    blind = _blind(summaries, offsets, _ends(source, module, offsets), keep, reach)
    for d in found.get(own, []):
        if (d.line, d.column, d.code) == (finding.line, finding.column, finding.code):
            if d.deferred_fix is None:
                return d.fix
            return _checked_fix(d.deferred_fix, blind, whole, d)
    return whole(finding)
