"""Jupyter notebooks (``.ipynb``): their code cells read as one Python module.

A notebook runs its code cells in order in one namespace, as a script of its cells would run: a
``@jax.jit`` function defined in one cell and called in another, or a global rebound in a later
cell, is what the module of the cells shows.  So the code cells, in order, make one module --
each cell's lines as they are, except the lines IPython reads and Python does not (``%time f(x)``,
``!pip install jax``, ``x?``), which become ``pass`` at the same indentation, so that every line
of the module is the same line of its cell.  A cell magic that runs the cell as Python
(``%%time``, ``%%timeit``, ``%%capture``) keeps its body; any other (``%%bash``, ``%%writefile``)
makes the whole cell blank lines.  Markdown and raw cells are left out.

Findings are reported where the notebook shows them: ``cell N`` (the cell's place among all the
notebook's cells, markdown included, as an editor numbers them) and the line in that cell
(:class:`CellMap`).  Nothing here imports JAX or runs a cell.
"""
from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

SUFFIX = ".ipynb"
#: cell magics whose body is Python that IPython runs as it is (timed, or with its output captured)
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug"})
#: a line IPython reads and Python does not: a line magic, a shell escape, help (``x?``, ``?x``)
_IPYTHON_LINE = re.compile(r"^([ \t]*)(?:[%!?]|[^#\n]*[^\s#]\?\??[ \t]*$)")
#: ``x = !ls`` and ``x = %time f()``: an assignment from a magic or a shell escape
_ASSIGNED_ESCAPE = re.compile(r"^([ \t]*)[A-Za-z_][\w., \t]*=[ \t]*[%!]")
_LINE_REFERENCE = re.compile(r"\bline (\d+)\b(?! of )")


class NotebookError(ValueError):
    """The file is not a notebook jitlint can read (not JSON, or no list of cells)."""


def is_notebook(path: str) -> bool:
    return path.endswith(SUFFIX)


@dataclass(frozen=True)
class CellMap:
    """Where each line of a notebook's module is in the notebook: the code cells' numbers (1-based,
    among all cells), the module line each starts at (1-based), and each cell's text as the
    notebook holds it (for quoting a line)."""

    numbers: Tuple[int, ...]
    first_lines: Tuple[int, ...]
    texts: Tuple[str, ...]

    def locate(self, line: int) -> Tuple[int, int]:
        """(cell number, line in the cell) of a line of the module."""
        k = max(bisect.bisect_right(self.first_lines, line) - 1, 0)
        return self.numbers[k], line - self.first_lines[k] + 1

    def cell_text(self, number: int) -> str:
        return self.texts[self.numbers.index(number)] if number in self.numbers else ""

    def in_reason(self, text: str) -> str:
        """A reason's "line N" (of this module) said as "line L of cell C"."""
        def place(match: "re.Match[str]") -> str:
            cell, line = self.locate(int(match.group(1)))
            return f"line {line} of cell {cell}"

        return _LINE_REFERENCE.sub(place, text)


def cell_source(cell: Any) -> str:
    """A cell's text: nbformat writes it as one string or as a list of lines."""
    source = cell.get("source", "") if isinstance(cell, dict) else ""
    if isinstance(source, list):
        return "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else ""


def python_lines(text: str) -> List[str]:
    """A code cell's lines as Python reads them (see the module's docstring), one for each line."""
    lines = text.splitlines()
    if not lines:
        return []
    first = lines[0].strip()
    if first.startswith("%%"):
        magic = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        if magic not in PYTHON_CELL_MAGICS:
            return ["" for _ in lines]
        lines = ["pass"] + lines[1:]
    out = []
    depth = 0  # brackets open at the start of the line (a line inside them continues a statement)
    continued = False
    for line in lines:
        escape = _IPYTHON_LINE.match(line) or _ASSIGNED_ESCAPE.match(line)
        if escape is not None and depth == 0 and not continued and not _in_code_only(line):
            out.append(escape.group(1) + "pass")
            continue
        out.append(line)
        code = line.split("#", 1)[0]
        depth = max(depth + sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}"), 0)
        continued = code.rstrip().endswith("\\")
    return out


def _in_code_only(line: str) -> bool:
    """A line that looks like an escape only inside a string or comment (``print("100%")`` does not
    start with one; ``d = {"a?": 1}`` does not end with one): kept."""
    stripped = line.strip()
    return stripped.startswith("#") or (stripped.endswith("?") and ('"' in stripped or "'" in stripped))


def read_notebook(data: bytes) -> Tuple[str, CellMap]:
    """The module of a notebook's code cells, and where its lines are in the notebook."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotebookError(f"not a notebook: the file is not JSON ({exc})") from None
    cells = document.get("cells") if isinstance(document, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: no list of cells")
    parts: List[str] = []
    numbers: List[int] = []
    first_lines: List[int] = []
    texts: List[str] = []
    line = 1
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = cell_source(cell)
        lines = python_lines(text)
        numbers.append(number)
        first_lines.append(line)
        texts.append(text)
        parts.extend(lines)
        line += len(lines)
    return "".join(part + "\n" for part in parts), CellMap(tuple(numbers), tuple(first_lines), tuple(texts))


def located(cells: Optional[CellMap], line: int) -> Tuple[Optional[int], int]:
    """(cell number or None, line) of a module line: the cell's line in a notebook."""
    if cells is None:
        return None, line
    return cells.locate(line)


def cell_lines(cells: CellMap, number: int) -> Sequence[str]:
    return cells.cell_text(number).splitlines()


def in_cells(result: Any) -> Any:
    """A notebook's :class:`~jitlint.diagnostics.FileResult` with its findings (and error) placed in
    its cells: each finding's cell, its lines those of the cell, the lines its reasons name too; a
    notebook's fixes are not applied (its file is JSON), so none is offered."""
    from dataclasses import replace

    cells: Optional[CellMap] = result.cells
    if cells is None:
        return result
    diagnostics = []
    for diag in result.diagnostics:
        cell, line = cells.locate(diag.line)
        end_cell, end_line = cells.locate(diag.end_line)
        end_line, end_column = (end_line, diag.end_column) if end_cell == cell else (line, diag.column)
        diagnostics.append(replace(diag, cell=cell, line=line, end_line=end_line, end_column=end_column,
                                   reason=tuple(cells.in_reason(r) for r in diag.reason), fix=None,
                                   deferred_fix=None))
    error = result.error
    if error is not None and not error.internal and error.line >= 1 and cells.numbers:
        cell, line = cells.locate(error.line)
        error = replace(error, line=line, cell=cell)
    return replace(result, diagnostics=tuple(diagnostics), error=error, source=None)
