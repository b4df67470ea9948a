"""The text report: ``path:line:col: CODE message``, the line with carets under the span,
the reason chain and the fix as notes, and a summary line.

::

    examples/training.py:28:8: JIT201 Python `if` on traced value `loss > 1e3`
     28 |     if loss > 1e3:
        |        ^^^^^^^^^^
        = why: `loss` is assigned a traced value on line 26
               ...
        = unsafe fix available: Use `lax.cond` (traces both branches); run with --unsafe-fixes
"""
from __future__ import annotations

import unicodedata
from collections import Counter
from typing import Dict, List, Optional, Sequence, Tuple

from jitlint.diagnostics import Applicability, Diagnostic, FileResult, printable
from jitlint.output.style import PLAIN, Style


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: wide (CJK, emoji) characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _indent(diag: Diagnostic) -> str:
    return " " * (len(str(diag.line)) + 2)


def source_excerpt(diag: Diagnostic, lines: Sequence[str], style: Style = PLAIN) -> List[str]:
    """The line of the finding with carets under its span, in a numbered gutter."""
    if not 0 < diag.line <= len(lines):
        return []
    text = lines[diag.line - 1].replace("\t", " ")
    start = max(diag.column - 1, 0)
    end = diag.end_column - 1 if diag.end_line == diag.line else len(text.rstrip())
    gutter = " " * len(str(diag.line))
    carets = "^" * max(1, display_width(text[start:end]))
    return [style("gutter", f" {diag.line} |") + f" {text}",
            style("gutter", f" {gutter} |") + f" {' ' * display_width(text[:start])}" + style("caret", carets)]


def reason_lines(diag: Diagnostic, style: Style = PLAIN) -> List[str]:
    """``= why:`` and the chain of reasons, one per line, each explaining the one above."""
    indent = _indent(diag)
    return [f"{indent}{style('note', '= why:') + ' ' if i == 0 else '       '}{link}"
            for i, link in enumerate(diag.reason)]


def fix_note(diag: Diagnostic, style: Style = PLAIN) -> Optional[str]:
    """What can be done about the finding: the fix jitlint offers and how to apply it,
    or the remedy the rule suggests when it has no fix for this instance."""
    fix = diag.fix
    if fix is None:
        from jitlint.registry import RULES_BY_CODE

        rule = RULES_BY_CODE.get(diag.code)
        title = getattr(rule, "fix_title", None)
        return f"{_indent(diag)}{style('note', '= help:')} {title}" if title else None
    if fix.applicability is Applicability.SAFE:
        return f"{_indent(diag)}{style('fix', '= fix available:')} {fix.title}"
    if fix.applicability is Applicability.UNSAFE:
        return f"{_indent(diag)}{style('unsafe', '= unsafe fix available:')} {fix.title}; run with --fix --unsafe-fixes"
    return f"{_indent(diag)}{style('note', '= suggestion:')} {fix.title}"


def heading(diag: Diagnostic, style: Style = PLAIN) -> str:
    where = f"{printable(diag.path)}:{diag.where}:"
    return f"{style('location', where)} {style('code', diag.code)} {diag.message}"


def format_text(results: Sequence[FileResult], with_reason: bool = True, style: Style = PLAIN) -> str:
    """Every finding; with ``with_reason``, each in a block of its own with its source line and notes
    (in a notebook, the line of its cell)."""
    blocks: List[str] = []
    for result in results:
        lines = (result.source or "").splitlines()
        for diag in result.diagnostics:
            block = [heading(diag, style)]
            if with_reason:
                if diag.cell is not None and result.cells is not None:
                    lines = result.cells.cell_lines(diag.cell)
                block += source_excerpt(diag, lines, style) + reason_lines(diag, style)
                note = fix_note(diag, style)
                if note:
                    block.append(note)
            blocks.append("\n".join(block) + "\n")
    return ("\n" if with_reason else "").join(blocks)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def fix_counts(diagnostics: Sequence[Diagnostic]) -> Tuple[int, int]:
    """(findings ``--fix`` fixes, findings only ``--fix --unsafe-fixes`` fixes)."""
    kinds = Counter(d.fix.applicability for d in diagnostics if d.fix is not None)
    return kinds[Applicability.SAFE], kinds[Applicability.UNSAFE]


def _fixable_note(safe: int, unsafe: int) -> str:
    if safe and unsafe:
        return f" ({safe} fixable with --fix, {unsafe} more with --unsafe-fixes)"
    if safe:
        return f" ({safe} fixable with --fix)"
    if unsafe:
        return f" ({unsafe} fixable with --fix --unsafe-fixes)"
    return ""


def summary(results: Sequence[FileResult], style: Style = PLAIN) -> str:
    """``Found 8 findings in 3 files (1 fixable with --fix, 3 more with --unsafe-fixes).``"""
    diagnostics = [d for r in results for d in r.diagnostics]
    with_findings = sum(1 for r in results if r.diagnostics)
    failed = sum(1 for r in results if r.error is not None and not r.error.partial)
    partly = sum(1 for r in results if r.error is not None and r.error.partial)
    parts = []
    if diagnostics:
        note = _fixable_note(*fix_counts(diagnostics))
        parts.append(f"Found {_plural(len(diagnostics), 'finding')} in {_plural(with_findings, 'file')}{note}.")
    if failed:
        parts.append(f"{_plural(failed, 'file')} could not be checked.")
    if partly:
        parts.append(f"{_plural(partly, 'notebook')} with a cell that could not be checked.")
    return style("summary", " ".join(parts or ["All checks passed."])) + "\n"


def statistics_rows(results: Sequence[FileResult]) -> List[Dict[str, object]]:
    """Per code: how many findings, and how many of them each kind of fix fixes; most frequent first."""
    from jitlint.registry import RULES_BY_CODE

    by_code: Dict[str, List[Diagnostic]] = {}
    for result in results:
        for diag in result.diagnostics:
            by_code.setdefault(diag.code, []).append(diag)
    rows = []
    for code, diags in sorted(by_code.items(), key=lambda item: (-len(item[1]), item[0])):
        safe, unsafe = fix_counts(diags)
        rule = RULES_BY_CODE.get(code)
        rows.append({"code": code, "name": rule.name if rule else "", "count": len(diags),
                     "fixable": safe, "unsafe_fixable": unsafe})
    return rows


def format_statistics(results: Sequence[FileResult], style: Style = PLAIN) -> str:
    """``--statistics``: one line per code, ``count  CODE  name  fixes``."""
    rows = statistics_rows(results)
    if not rows:
        return ""
    width = max(len(str(row["count"])) for row in rows)
    name_width = max(len(str(row["name"])) for row in rows)
    lines = []
    for row in rows:
        fixes = _fixable_note(int(row["fixable"]), int(row["unsafe_fixable"])).strip(" ()")
        line = f"{row['count']:>{width}}  {style('code', str(row['code']))}  {str(row['name']):<{name_width}}  {fixes}"
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"
