"""Reports: the text format people read, and the machine formats CI and editors read.

``render(fmt, results, ...)`` turns the per-file results into the report of that format:
``text`` (:mod:`.text`), ``json``, ``sarif`` (:mod:`.sarif`, SARIF 2.1.0 for GitHub code
scanning) and ``github`` (:mod:`.github`, workflow annotations).
"""
from __future__ import annotations

import bisect
import json
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from jitlint.diagnostics import FileResult
from jitlint.output.style import PLAIN, Style

FORMATS = ("text", "json", "sarif", "github")


def format_json(results: Sequence[FileResult]) -> str:
    """One object per finding: its location, code, documentation URL, message, reason chain and fix;
    a fix's edits carry character offsets and 1-based line / column ranges, like the findings."""
    return json.dumps([item for r in results for item in json_findings(r)], indent=2) + "\n"


def json_findings(result: FileResult) -> List[dict]:
    from jitlint.rules.base import rule_url
    from jitlint.registry import RULES_BY_CODE

    locate: Optional[Callable[[int], Tuple[int, int]]] = None
    urls: Dict[str, Optional[str]] = {}  # a rule's URL once per file: finding it reads the file system
    out = []
    for diag in result.diagnostics:
        item = diag.to_json()
        if diag.code not in urls:
            urls[diag.code] = rule_url(diag.code) if diag.code in RULES_BY_CODE else None
        item["url"] = urls[diag.code]
        if item["fix"] is not None and item["fix"]["edits"]:
            locate = locate or _locator(result)
            for edit in item["fix"]["edits"]:
                (edit["line"], edit["column"]), (edit["end_line"], edit["end_column"]) = \
                    locate(edit["start"]), locate(edit["end"])
        out.append(item)
    return out


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _locator(result: FileResult) -> Callable[[int], Tuple[int, int]]:
    """Character offset -> (1-based line, 1-based column in code points) in the file's source,
    with LibCST's line breaks (``\\n``, ``\\r\\n``, ``\\r``)."""
    source = result.source if result.source is not None else _read_source(result.path)
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(source)]

    def locate(offset: int) -> Tuple[int, int]:
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1

    return locate


def _read_source(path: str) -> str:
    from jitlint.files import read_source_file
    from jitlint.source import decode_source

    return decode_source(read_source_file(path))


def format_json_statistics(results: Sequence[FileResult]) -> str:
    from jitlint.output.text import statistics_rows

    return json.dumps(statistics_rows(results), indent=2) + "\n"


def reads_edits(fmt: str, statistics: bool = False) -> bool:
    """Whether the report in format ``fmt`` shows the edits of fixes (JSON and SARIF do; text and
    GitHub annotations show a fix's title and safety only): the lint builds them only then."""
    return fmt == "sarif" or (fmt == "json" and not statistics)


def render(fmt: str, results: Sequence[FileResult], *, with_reason: bool = True, quiet: bool = False,
           statistics: bool = False, style: Style = PLAIN) -> str:
    """The report of ``results`` in format ``fmt``; for text, the findings (or, with ``statistics``,
    the counts per code) and, unless ``quiet``, the summary line."""
    if fmt == "json":
        return format_json_statistics(results) if statistics else format_json(results)
    if fmt == "sarif":
        from jitlint.output.sarif import format_sarif

        return format_sarif(results)
    if fmt == "github":
        from jitlint.output.github import format_github

        return format_github(results)
    from jitlint.output.text import format_statistics, format_text, summary

    if statistics:
        report = format_statistics(results, style)
        separate = False
    else:
        report = format_text(results, with_reason=with_reason, style=style)
        separate = with_reason
    if not quiet:
        report += ("\n" if report and separate else "") + summary(results, style)
    return report


__all__ = ["FORMATS", "format_json", "reads_edits", "render"]
