"""Reports: the text format people read, and the machine formats CI and editors read.

``render(fmt, results, ...)`` turns the per-file results into the report of that format:
``text`` (:mod:`.text`), ``json``, ``sarif`` (:mod:`.sarif`, SARIF 2.1.0 for GitHub code
scanning) and ``github`` (:mod:`.github`, workflow annotations).
"""
from __future__ import annotations

import json
from typing import Sequence

from jitlint.diagnostics import FileResult
from jitlint.output.style import PLAIN, Style

FORMATS = ("text", "json", "sarif", "github")


def format_json(results: Sequence[FileResult]) -> str:
    return json.dumps([d.to_json() for r in results for d in r.diagnostics], indent=2) + "\n"


def format_json_statistics(results: Sequence[FileResult]) -> str:
    from jitlint.output.text import statistics_rows

    return json.dumps(statistics_rows(results), indent=2) + "\n"


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


__all__ = ["FORMATS", "format_json", "render"]
