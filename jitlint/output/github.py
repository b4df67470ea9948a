"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=PATH,line=L,col=C,endLine=L,endColumn=C,title=JIT201::message`` -- the reason chain
and the fix follow the message on lines of their own (escaped as the runner wants).
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from jitlint.diagnostics import FileResult


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _command(path: str, line: int, col: int, title: str, message: str, end_line: int = 0, end_col: int = 0) -> str:
    props = [f"file={_property(path)}", f"line={line}", f"col={col}"]
    if end_line:
        props += [f"endLine={end_line}", f"endColumn={end_col}"]
    props.append(f"title={_property(title)}")
    return f"::error {','.join(props)}::{_data(message)}"


def _in_cell(cell: Optional[int]) -> str:
    """A notebook's finding says its cell (its line is a line of that cell, not of the file)."""
    return "" if cell is None else f"cell {cell}: "


def format_github(results: Sequence[FileResult]) -> str:
    lines: List[str] = []
    for result in results:
        if result.error is not None:
            e = result.error
            lines.append(_command(e.path, e.line, e.column, "jitlint", _in_cell(e.cell) + e.message))
        for d in result.diagnostics:
            message = _in_cell(d.cell) + d.message
            if d.reason:
                message += "\nwhy: " + "\n     ".join(d.reason)
            if d.fix is not None:
                message += f"\n{d.fix.applicability.value} fix: {d.fix.title}"
            lines.append(_command(d.path, d.line, d.column, d.code, message, d.end_line, d.end_column))
    return "".join(line + "\n" for line in lines)
