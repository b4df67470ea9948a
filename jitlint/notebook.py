"""Jupyter notebooks (``.ipynb``): their code cells read as one Python module.

A notebook runs its code cells in order in one namespace, as a script of its cells would run: a
``@jax.jit`` function defined in one cell and called in another, or a global rebound in a later
cell, is what the module of the cells shows.  So the code cells, in order, make one module --
each cell's lines as they are, except the lines IPython reads and Python does not (``%time f(x)``,
``!pip install jax``, ``x?``, ``timeit -n 5 f(x)`` with automagic), which become ``pass`` at the same indentation, so that every line
of the module is the same line of its cell; as IPython does, the indentation of a cell's first
line is taken off every line that has it.  A cell magic that runs the cell as Python (``%%time``,
``%%timeit``, ``%%capture``) keeps its body, and so does one jitlint does not know whose body
parses as Python (a library's own, penzai's ``%%autovisualize``); IPython's others (``%%bash``,
``%%writefile``) make the whole cell blank lines.  Markdown and raw cells are left out.

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
#: IPython's cell magics whose body is another language or a file's text; a magic of neither list (one a
#: library registers: penzai's ``%%autovisualize``) is read as Python where its body parses as Python
OTHER_CELL_MAGICS = frozenset({"bash", "sh", "script", "html", "HTML", "javascript", "js", "latex", "markdown", "svg",
                               "SVG", "writefile", "file", "perl", "ruby", "sql", "R", "sx", "system", "python2", "pypy"})
#: a line IPython reads and Python does not: a line magic, a shell escape, help (``x?``, ``?x``)
_IPYTHON_LINE = re.compile(r"^([ \t]*)(?:[%!?]|[^#\n]*[^\s#]\?\??[ \t]*$)")
#: a line magic written without its ``%`` (IPython's automagic: ``timeit -n 5 f(x)``), where the line is not
#: Python
_AUTOMAGIC = re.compile(r"^([ \t]*)(?:timeit|time|pip|conda|cd|ls|pwd|env|load_ext|matplotlib|config|who|whos|run|"
                        r"prun|history|reset|xmode|autoreload|alias|precision|pdb|save|store|sx|system)"
                        r"[ \t]+(?![=.(\[,:)\]}]|[-+*/%<>!&|^@]=|[-+*/%<>&|^@] )")
#: ``x = !ls``, ``x = %time f()``, ``times[c] = %timeit -o f(c)``: an assignment from a magic or a shell escape
_ASSIGNED_ESCAPE = re.compile(r"^([ \t]*)[A-Za-z_][\w., \t\[\]'\"]*=[ \t]*[%!]")
_LINE_REFERENCE = re.compile(r"\bline (\d+)\b(?! of )")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> List[str]:
    """The lines of a cell as Python reads them (broken at ``\\n``, ``\\r\\n`` and ``\\r`` only)."""
    lines = _LINE_BREAK.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


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
    #: the cells that are not Python (:func:`cell_syntax_error`): (module line, column, message) of each error
    broken: Tuple[Tuple[int, int, str], ...] = ()

    def locate(self, line: int) -> Tuple[int, int]:
        """(cell number, line in the cell) of a line of the module."""
        k = max(bisect.bisect_right(self.first_lines, line) - 1, 0)
        return self.numbers[k], line - self.first_lines[k] + 1

    def cell_text(self, number: int) -> str:
        return self.texts[self.numbers.index(number)] if number in self.numbers else ""

    def cell_lines(self, number: int) -> List[str]:
        return _lines(self.cell_text(number))

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


def _without_comment(line: str) -> str:
    """``line`` up to its comment: a ``#`` outside the line's string literals (``print(f"### {c}")`` has
    none); the brackets inside its strings stay in (the bracket count is an approximation)."""
    quote = ""
    i = 0
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                i += len(quote)
                quote = ""
                continue
        elif ch in "'\"":
            quote = line[i:i + 3] if line[i:i + 3] in ("'''", '"""') else ch
            i += len(quote)
            continue
        elif ch == "#":
            return line[:i]
        i += 1
    return line


def python_lines(text: str) -> List[str]:
    """A code cell's lines as Python reads them (see the module's docstring), one for each line; a cell
    that is not Python even so (:func:`cell_syntax_error`) is blank lines."""
    lines = _python_lines(_lines(text))
    return lines if cell_syntax_error(lines) is None else ["" for _ in lines]


def cell_syntax_error(lines: List[str]) -> Optional[Tuple[int, int, str]]:
    """Where a cell's Python lines (:func:`_python_lines`) fail to parse: (line, column, message), or None.
    Jupyter compiles each cell alone, so a cell that does not parse (Markdown typed into a code cell, a
    stray ``<<<<<<<`` of a merge) raises ``SyntaxError`` when it runs, defines nothing, and leaves the
    other cells running: it is blank lines in the module of the cells, and reported."""
    import ast

    code = "\n".join(lines) + "\n"
    try:
        ast.parse(code)
        return None
    except SyntaxError as exc:
        error = max(exc.lineno or 1, 1), max(exc.offset or 1, 1), exc.msg or "invalid syntax"
    except (ValueError, RecursionError, MemoryError) as exc:
        error = 1, 1, str(exc) or type(exc).__name__
    # (this Python's parser, checked first because it is fast, may not know a newer Python's syntax,
    # which the parser of the analysis reads: a cell is not Python only when neither parses it)
    import libcst as cst

    try:
        cst.parse_module(code)
    except (cst.ParserSyntaxError, ValueError, RecursionError, MemoryError):
        return error
    return None


def _python_lines(lines: List[str]) -> List[str]:
    if not lines:
        return []
    # a cell magic starts the cell, or follows only comments and blank lines there (Colab's form
    # fields: `#@title Setup` above `%%bash`), which stay as they are
    start = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#")), 0)
    first = lines[start].strip()
    if first.startswith("%%"):
        magic = first[2:].split(None, 1)[0] if first[2:].strip() else ""
        body = _python_lines(lines[start + 1:]) if magic not in OTHER_CELL_MAGICS else None
        if body is None or (magic not in PYTHON_CELL_MAGICS and not _parses("\n".join(body))):
            return lines[:start] + ["" for _ in lines[start:]]
        return lines[:start] + ["pass"] + body
    # IPython takes the indentation of a cell's first line off every line that has it
    indent = lines[0][:len(lines[0]) - len(lines[0].lstrip(" \t"))]
    if indent and lines[0].strip():
        lines = [line[len(indent):] if line.startswith(indent) else line for line in lines]
    out = []
    depth = 0  # brackets open at the start of the line (a line inside them continues a statement)
    continued = False
    in_escape = False  # the line before was an escape's, ended by a backslash: this one goes on with it
    begun = 0  # where the statement the line belongs to begins
    for line in lines:
        if depth == 0 and not continued:
            begun = len(out)
        if depth > 0 and not in_escape and _assigned_escape_after_brackets(line, depth):
            # `times[lib][\n    name\n] = %timeit -o f(x)`: a target written over several lines, assigned
            # from a magic (IPython reads the logical line): the whole statement stands as `pass`
            first = out[begun]
            out[begun] = first[:len(first) - len(first.lstrip(" \t"))] + "pass"
            out[begun + 1:] = [""] * (len(out) - begun - 1)
            out.append("")
            depth, continued = 0, False
            in_escape = line.endswith("\\")
            continue
        if in_escape:
            # IPython joins an escape's lines ended by a backslash into one command (`!pip install a \`)
            out.append("")
            in_escape = line.endswith("\\")
            continue
        escape = _IPYTHON_LINE.match(line) or _ASSIGNED_ESCAPE.match(line)
        if escape is None and depth == 0 and not continued:
            escape = _AUTOMAGIC.match(line)
            opened = sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
            escape = escape if escape is not None and opened <= 0 and not _parses(line.strip()) else None
        if escape is not None and depth == 0 and not continued and not _in_code_only(line):
            out.append(escape.group(1) + "pass")
            in_escape = line.endswith("\\")
            continue
        out.append(line)
        code = _without_comment(line)
        depth = max(depth + sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}"), 0)
        continued = code.rstrip().endswith("\\")
    return out


def _parses(code: str) -> bool:
    import ast

    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _assigned_escape_after_brackets(line: str, depth: int) -> bool:
    """The line closes the ``depth`` brackets still open, and what follows them is ``= %...`` or
    ``= !...``: the end of an assignment from a magic or a shell escape (Python has no ``= %``)."""
    code = _without_comment(line)
    for i, char in enumerate(code):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return re.match(r"[ \t]*=[ \t]*[%!]", code[i + 1:]) is not None
    return False


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
    broken: List[Tuple[int, int, str]] = []
    line = 1
    for number, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        text = cell_source(cell)
        lines = _python_lines(_lines(text))
        error = cell_syntax_error(lines)
        if error is not None:
            broken.append((line + error[0] - 1, error[1], error[2]))
            lines = ["" for _ in lines]
        numbers.append(number)
        first_lines.append(line)
        texts.append(text)
        parts.extend(lines)
        line += len(lines)
    return "".join(part + "\n" for part in parts), CellMap(tuple(numbers), tuple(first_lines), tuple(texts),
                                                          tuple(broken))


def in_cells(result: Any) -> Any:
    """A notebook's :class:`~jitlint.diagnostics.FileResult` with its findings (and error) placed in
    its cells: each finding's cell, its lines those of the cell, the lines its reasons name too; a fix
    keeps its title and safety, not its edits (offsets into the module of the cells, not the file)."""
    from dataclasses import replace

    from jitlint.diagnostics import Fix

    cells: Optional[CellMap] = result.cells
    if cells is None:
        return result
    diagnostics = []
    for diag in result.diagnostics:
        cell, line = cells.locate(diag.line)
        end_cell, end_line = cells.locate(diag.end_line)
        end_line, end_column = (end_line, diag.end_column) if end_cell == cell else (line, diag.column)
        fix = None if diag.fix is None else Fix.unbuilt(diag.fix.applicability, diag.fix.title)
        diagnostics.append(replace(diag, cell=cell, line=line, end_line=end_line, end_column=end_column,
                                   reason=tuple(cells.in_reason(r) for r in diag.reason), fix=fix, deferred_fix=None))
    error = result.error
    if error is not None and not error.internal and error.line >= 1 and cells.numbers:
        cell, line = cells.locate(error.line)
        error = replace(error, line=line, cell=cell)
    return replace(result, diagnostics=tuple(diagnostics), error=error, source=None)


@dataclass
class NotebookSource:
    """A notebook read to be fixed: its document and how it was written (so that what a fix does not
    touch is written back byte for byte), and, for each line of its module, the code cell it is in and
    the cell's own line where the module has a stand-in for it (``pass`` for a magic)."""

    document: dict
    indent: Optional[int]
    ensure_ascii: bool
    final_newline: bool
    #: the index in ``document["cells"]`` of each code cell, in module order
    code_cells: List[int]
    #: per line of the module (0-based): its code cell (an index into ``code_cells``)
    line_cells: List[int]
    #: per line of the module: the cell's own line where the module has a stand-in, else None
    originals: List[Optional[str]]
    text: str
    cells: CellMap


def _dumped(document: Any, indent: Optional[int], ensure_ascii: bool, final_newline: bool) -> str:
    return json.dumps(document, indent=indent, ensure_ascii=ensure_ascii) + ("\n" if final_newline else "")


def notebook_source(data: bytes) -> Tuple[Optional[NotebookSource], str]:
    """The notebook read to be fixed, or None and why not: only a notebook whose JSON this module
    writes back exactly as it was read (nbformat's own layout) is fixed."""
    text, cells = read_notebook(data)
    raw = data.decode("utf-8-sig")
    document = json.loads(raw)
    lines = raw.split("\n", 2)
    indent = len(lines[1]) - len(lines[1].lstrip(" ")) if len(lines) > 1 and lines[1].startswith(" ") else None
    for ensure_ascii in (False, True):
        if _dumped(document, indent, ensure_ascii, raw.endswith("\n")) == raw and not data.startswith(b"\xef\xbb\xbf"):
            break
    else:
        return None, "its JSON is not laid out as nbformat writes it, so it could not be written back unchanged"
    code_cells: List[int] = []
    line_cells: List[int] = []
    originals: List[Optional[str]] = []
    for index, cell in enumerate(document["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        own = _lines(cell_source(cell))
        for line, stand_in in zip(own, python_lines(cell_source(cell))):
            line_cells.append(len(code_cells))
            originals.append(line if line != stand_in else None)
        code_cells.append(index)
    source = NotebookSource(document, indent, ensure_ascii, raw.endswith("\n"), code_cells, line_cells, originals,
                            text, cells)
    if rebuild(source, text, range(1, len(line_cells) + 1))[0] != data:
        return None, "its cells could not be written back unchanged"
    return source, ""


def rebuild(notebook: NotebookSource, text: str, origins: Sequence[int]) -> Tuple[Optional[bytes], str]:
    """The notebook with its module's new ``text`` written back into its cells, or None and why not.

    ``origins`` gives, for each line of ``text``, the module line (1-based) it comes from; a line goes
    to the cell of its origin.  Refused when that would move code across cells out of order, or change
    a line the module only stands in for (a magic)."""
    from copy import deepcopy

    new_lines = text.split("\n")
    if new_lines and new_lines[-1] == "":
        new_lines.pop()
    if not notebook.code_cells:
        return (None, "it has no code cell") if new_lines else (None, "nothing changed")
    last_origin = len(notebook.line_cells) - 1
    found = [min(max((origins[i] if i < len(origins) else last_origin + 1) - 1, 0), max(last_origin, 0))
             for i in range(len(new_lines))]
    stand_ins = notebook.text.split("\n")
    firsts = {}  # the first module line of each code cell that has one
    for line, cell in enumerate(notebook.line_cells):
        firsts.setdefault(cell, line)
    final = {o: i for i, o in enumerate(found)}  # the last new line from each module line: the line itself
    per_cell: List[List[str]] = [[] for _ in notebook.code_cells]
    restored = set()
    last = 0
    for i, line in enumerate(new_lines):
        origin = found[i]
        cell = notebook.line_cells[origin] if notebook.line_cells else 0
        inserted = i < final[origin]  # a line a fix put before this module line
        if inserted and firsts.get(cell) == origin and cell > 0:
            cell = max(k for k in range(cell) if k in firsts or k == 0)  # (at a cell's top: the end of the one before)
        if cell < last:
            return None, "a fix would move code into an earlier cell"
        last = cell
        original = notebook.originals[origin] if notebook.line_cells else None
        if original is not None and line == stand_ins[origin] and origin not in restored:
            line = original
            restored.add(origin)
        per_cell[cell].append(line)
    if any(o not in restored for o, original in enumerate(notebook.originals) if original is not None):
        return None, "a fix would change a line read otherwise than it is written (a magic, an escape, an indent)"
    document = deepcopy(notebook.document)
    for k, index in enumerate(notebook.code_cells):
        cell = document["cells"][index]
        old = cell_source(cell)
        new = "\n".join(per_cell[k]) + ("\n" if old.endswith("\n") and per_cell[k] else "")
        if new == old:
            continue
        cell["source"] = new.splitlines(keepends=True) if isinstance(cell.get("source"), list) else new
    out = _dumped(document, notebook.indent, notebook.ensure_ascii, notebook.final_newline)
    return out.encode("utf-8"), ""


def cell_diffs(path: str, before: bytes, after: bytes) -> str:
    """``--diff`` of a notebook: a unified diff of each code cell a fix changed, headed ``path:cell N``."""
    import difflib

    old = json.loads(before.decode("utf-8-sig"))["cells"]
    new = json.loads(after.decode("utf-8-sig"))["cells"]
    out: List[str] = []
    for number, (a, b) in enumerate(zip(old, new), 1):
        a_text, b_text = cell_source(a), cell_source(b)
        if a_text != b_text:
            name = f"{path}:cell {number}"
            out += difflib.unified_diff(_with_ends(a_text), _with_ends(b_text), name, name)
    return "".join(out)


def _with_ends(text: str) -> List[str]:
    return [line + "\n" for line in text.splitlines()]
