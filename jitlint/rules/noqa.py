"""JIT9xx: the comments that silence jitlint.

The ``# noqa`` comment that silences a finding lives here, with the rule that
reports one silencing nothing.  JIT900 is not a visitor of traced code: what
it needs is every finding of a line, silenced or not, from every unit of the
check, so it is computed where those meet (:func:`jitlint.runner.lint_files`,
and :func:`jitlint.engine.lint_module` for a module on its own).
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from jitlint.config import Config
from jitlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from jitlint.rules.base import Rule

NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z][A-Z0-9]*(?:[,\s]+[A-Z][A-Z0-9]*)*))?", re.IGNORECASE)

#: one code in a ``# noqa: ...`` list (a word that is not one ends the list: it explains the comment)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")


def noqa_codes(line_text: str) -> Optional[Tuple[str, ...]]:
    """None: no noqa; (): blanket noqa; else the codes listed."""
    match = NOQA.search(line_text)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return ()
    return tuple(c.upper() for c in re.split(r"[,\s]+", codes) if c)


def is_suppressed(code: str, line_text: str) -> bool:
    codes = noqa_codes(line_text)
    if codes is None:
        return False
    return not codes or any(code.startswith(c) for c in codes)


class UnusedNoqa(Rule):
    """## What it does
    Flags the JIT codes of a `# noqa: JITxxx` comment that silence nothing: no
    finding of that code (or code prefix) is on its line, or the code is no
    jitlint rule at all. Off by default: turn it on with
    `--extend-select JIT900`, or add it to `select` in the configuration.

    ## Why is this bad?
    A `# noqa` left behind after the code was fixed silences the next real
    finding on that line, unseen. A blanket `# noqa` (without codes) may be
    there for another linter and is never reported, nor are the codes of other
    linters (`# noqa: E501`).

    A code is judged by the check that runs: the findings of every file of the
    check, and of the project around it, on that line. When the rule of a code
    does not run for the file (it is not selected, or `ignore` or
    `per-file-ignores` turn it off), the comment silences nothing either, and is
    reported too, saying so. When a file of the check could not be analysed
    (a syntax error, an internal error), nothing is reported: the finding a
    comment silences may have come from it.

    ## Example
    The `print` was made a `jax.debug.print`; its `# noqa` stayed:
    ```python
    import jax

    @jax.jit
    def step(x):
        jax.debug.print("x = {}", x)  # noqa: JIT103
        return x * 2
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def step(x):
        jax.debug.print("x = {}", x)
        return x * 2
    ```

    ## Fix safety
    The fix removes the unused codes from the comment, and the whole `# noqa`
    when it names nothing else (an explanation after it goes with it; a
    comment before it stays). It is SAFE when every code it removes belongs to
    a rule that ran on the file, or to no rule; it is UNSAFE when a code's rule
    did not run here, as the comment may still matter where that rule runs.

    ## References
    - [ruff's `unused-noqa` (RUF100)](https://docs.astral.sh/ruff/rules/unused-noqa/), which this rule follows
    """

    code = "JIT900"
    name = "unused-noqa"
    default_enabled = False
    fix_title = "Remove the unused `noqa` codes"


RULES = [UnusedNoqa]

_NOT_A_CODE = ("JIT000",)  # the internal-error finding: a comment may silence it while jitlint is fixed


def reports_unused_noqa(config: Config, file_ignores: Sequence[str] = ()) -> bool:
    """Whether JIT900 runs (it is off by default) for a file with these ``per-file-ignores``."""
    from jitlint.registry import is_enabled

    return is_enabled(UnusedNoqa.code, config.select, list(config.ignore) + list(file_ignores),
                      UnusedNoqa.default_enabled)


def unused_noqa(path: str, source: str, found: Mapping[int, Iterable[str]], config: Config,
                file_ignores: Sequence[str] = ()) -> List[Diagnostic]:
    """The JIT900 findings of ``source``: one per ``# noqa`` comment with JIT codes that silence nothing.

    ``found`` maps a line to the codes found there by the check, reported or silenced.
    ``file_ignores``: the codes ``per-file-ignores`` turns off for ``path``.
    """
    from jitlint.registry import RULES_BY_CODE, is_enabled

    if not reports_unused_noqa(config, file_ignores) or "noqa" not in source.lower() or "jit" not in source.lower():
        return []
    comments = _noqa_comments(source)
    if not comments:
        return []
    ignore = list(config.ignore) + list(file_ignores)

    def runs(code: str) -> bool:
        return is_enabled(code, config.select, ignore, RULES_BY_CODE[code].default_enabled)

    out: List[Diagnostic] = []
    for line, start, comment in comments:
        match = NOQA.search(comment)
        items = _code_items(comment, match)
        jit = [(s, e, text.upper()) for s, e, text in items if text.upper().startswith("JIT")]
        if not jit or any(UnusedNoqa.code.startswith(code) for _, _, code in jit):
            continue  # `# noqa: JIT900` (or a prefix of it) keeps this comment as it is
        on_line = set(found.get(line, ()))
        unused: List[Tuple[int, int, str]] = []
        elsewhere = False
        for s, e, code in jit:
            if code in _NOT_A_CODE or any(f.startswith(code) and f in RULES_BY_CODE and runs(f) for f in on_line):
                continue  # it silences a finding of a rule that runs here
            rules = [r for r in RULES_BY_CODE if r.startswith(code) and r != UnusedNoqa.code]
            unused.append((s, e, code))
            elsewhere = elsewhere or not all(runs(r) for r in rules)
        if not unused:
            continue
        names = ", ".join(f"`{code}`" for _, _, code in unused)
        why = _why(unused, RULES_BY_CODE, runs)
        first_start, first_end = unused[0][0], unused[0][1]
        edit = _removal(source, start, comment, match, items, {s for s, _, _ in unused})
        fix = Fix(Applicability.UNSAFE if elsewhere else Applicability.SAFE, UnusedNoqa.fix_title or "", (edit,))
        column = _column(source, start) + first_start
        out.append(Diagnostic(path, line, column + 1, line, column + (first_end - first_start) + 1, UnusedNoqa.code,
                              f"unused `noqa` code{'s' if len(unused) > 1 else ''} {names}: {why}", fix=fix))
    return out


def _why(unused: Sequence[Tuple[int, int, str]], rules_by_code: Mapping[str, object], runs) -> str:
    unknown = [code for _, _, code in unused if not any(r.startswith(code) for r in rules_by_code)]
    off = [code for _, _, code in unused if code not in unknown
           and not all(runs(r) for r in rules_by_code if r.startswith(code) and r != UnusedNoqa.code)]
    parts = []
    if len(unknown) + len(off) < len(unused):
        parts.append("nothing of that code is found on this line")
    if off:
        parts.append(f"{', '.join(off)} {'does' if len(off) == 1 else 'do'} not run for this file")
    if unknown:
        parts.append(f"{', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} no jitlint rule")
    return "; ".join(parts)


def _noqa_comments(source: str) -> List[Tuple[int, int, str]]:
    """(line, offset of the comment in ``source``, the comment) of each ``# noqa`` comment, where the
    lines tokenize reads are the lines the engine reads noqa comments from (else none)."""
    lines = io.StringIO(source).readlines()
    if [line.rstrip("\r\n") for line in lines] != source.splitlines():
        return []  # a form feed, a lone CR or another line break that tokenize does not split on
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    out: List[Tuple[int, int, str]] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT and NOQA.search(tok.string):
                row, col = tok.start
                if NOQA.search(lines[row - 1]).start() == col + NOQA.search(tok.string).start():
                    out.append((row, starts[row - 1] + col, tok.string))
    except (tokenize.TokenError, SyntaxError, IndexError):
        return []
    return out


def _column(source: str, offset: int) -> int:
    """The 0-based column (in characters) of ``offset``."""
    return offset - (max(source.rfind("\n", 0, offset), source.rfind("\r", 0, offset)) + 1)


def _code_items(comment: str, match: "re.Match[str]") -> List[Tuple[int, int, str]]:
    """(start, end, text) in ``comment`` of each code of the noqa list, up to the first word that is not one."""
    if match.group("codes") is None:
        return []
    items: List[Tuple[int, int, str]] = []
    for word in re.finditer(r"[A-Za-z0-9]+", comment[match.start("codes"):match.end("codes")]):
        if not _CODE.fullmatch(word.group()):
            break
        items.append((match.start("codes") + word.start(), match.start("codes") + word.end(), word.group()))
    return items


def _removal(source: str, start: int, comment: str, match: "re.Match[str]", items: Sequence[Tuple[int, int, str]],
             removed: Set[int]) -> Edit:
    """The edit that takes the codes starting at ``removed`` out of the comment at ``start``."""
    kept = [item for item in items if item[0] not in removed]
    if kept:
        first, last = items[0][0], items[-1][1]
        text = kept[0][2]
        for item in kept[1:]:
            before = max(i for i in range(len(items)) if items[i][0] < item[0])
            text += comment[items[before][1]:item[0]] + item[2]
        return Edit(start + first, start + last, text)
    end = start + len(comment)
    if match.start() == 0:  # the comment is the noqa: it goes, with the blanks before it
        begin = start
        while begin > 0 and source[begin - 1] in " \t":
            begin -= 1
        line_start = max(source.rfind("\n", 0, begin), source.rfind("\r", 0, begin)) + 1
        if begin > line_start:
            return Edit(begin, end, "")
        newline = re.match(r"\r\n|\r|\n", source[end:end + 2])  # a line of its own: the line goes
        return Edit(line_start, end + (newline.end() if newline else 0), "")
    begin = start + match.start()
    while begin > start and source[begin - 1] in " \t":
        begin -= 1
    return Edit(begin, end, "")
