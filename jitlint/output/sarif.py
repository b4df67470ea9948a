"""``--format sarif``: SARIF 2.1.0, the format GitHub code scanning uploads.

One run; the driver lists every rule with its description, its documentation (help, in text and
Markdown) and the URI of its page; each result has its rule, location and region (1-based lines,
columns in Unicode code points), the reason chain, and the fix jitlint offers as a SARIF ``fix``.
Files that could not be checked are tool execution notifications.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Dict, List, Optional, Sequence
from urllib.parse import quote

from jitlint import __version__
from jitlint.diagnostics import Applicability, Diagnostic, FileResult

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"


def _uri(path: str, root: str) -> Dict[str, str]:
    """An artifact location: relative to ``root`` (``uriBaseId`` %SRCROOT%) where the file is below it."""
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    if not relative.startswith(".."):
        return {"uri": quote(relative.replace(os.sep, "/")), "uriBaseId": SRCROOT}
    return {"uri": Path(absolute).as_uri()}


def rule_descriptor(rule) -> dict:
    from jitlint.fixes import FIXABLE_CODES
    from jitlint.rules.base import rule_doc, rule_family, rule_sections, rule_summary, rule_url

    what = rule_sections(rule).get("What it does", rule_summary(rule))
    doc = rule_doc(rule)
    descriptor = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule_summary(rule)},
        "fullDescription": {"text": " ".join(what.split()), "markdown": what},
        "help": {"text": doc, "markdown": doc},
        "helpUri": rule_url(rule.code),
        "defaultConfiguration": {"enabled": bool(rule.default_enabled), "level": "error"},
        "properties": {"tags": ["jax", "jit", rule_family(rule).split(":")[0]], "fixable": rule.code in FIXABLE_CODES},
    }
    if descriptor["helpUri"] is None:  # no documentation to point at: SARIF leaves the property out
        del descriptor["helpUri"]
    return descriptor


def _fix(diag: Diagnostic, artifact: Dict[str, str]) -> Optional[dict]:
    fix = diag.fix
    if fix is None or not fix.edits_built or not fix.edits:  # (a notebook's fix: its edits are in its module)
        return None
    return {
        "description": {"text": f"{fix.title} ({fix.applicability.value} fix)"},
        "artifactChanges": [{
            "artifactLocation": artifact,
            "replacements": [{"deletedRegion": {"charOffset": e.start, "charLength": e.end - e.start},
                              "insertedContent": {"text": e.replacement}} for e in fix.edits],
        }],
    }


def _result(diag: Diagnostic, index: Dict[str, int], root: str) -> dict:
    artifact = _uri(diag.path, root)
    region = {"startLine": diag.line, "startColumn": diag.column,
              "endLine": diag.end_line, "endColumn": diag.end_column}
    message = diag.message if diag.cell is None else f"cell {diag.cell}: {diag.message}"
    if diag.reason:
        message += "\n" + "\n".join(f"- {link}" for link in diag.reason)
    result: dict = {
        "ruleId": diag.code,
        "level": "error",
        "message": {"text": message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
        "properties": {"reason": list(diag.reason), **({} if diag.cell is None else {"cell": diag.cell})},
    }
    if diag.code in index:
        result["ruleIndex"] = index[diag.code]
    fix = _fix(diag, artifact)
    if fix is not None:
        result["fixes"] = [fix]
        result["properties"]["fixApplicability"] = diag.fix.applicability.value
        result["properties"]["fixSafe"] = diag.fix.applicability is Applicability.SAFE
    return result


def sarif_log(results: Sequence[FileResult], root: Optional[str] = None) -> dict:
    """The SARIF log of a run, as a JSON-ready dict. Paths are relative to ``root`` (default: the current folder)."""
    from jitlint.rules.base import docs_url
    from jitlint.registry import RULES_BY_CODE

    root = os.path.abspath(root or os.getcwd())
    codes = sorted(RULES_BY_CODE)
    index = {code: i for i, code in enumerate(codes)}
    notifications: List[dict] = []
    for r in results:
        if r.error is None:
            continue
        notifications.append({
            "level": "error",
            "message": {"text": r.error.message if r.error.cell is None else f"cell {r.error.cell}: {r.error.message}"},
            "locations": [{"physicalLocation": {
                "artifactLocation": _uri(r.error.path, root),
                "region": {"startLine": max(r.error.line, 1), "startColumn": max(r.error.column, 1)}}}],
            "descriptor": {"id": "internal-error" if r.error.internal else "file-error"},
        })
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "jitlint",
                "version": __version__,
                "semanticVersion": __version__,
                **({"informationUri": docs_url()} if docs_url() is not None else {}),
                "rules": [rule_descriptor(RULES_BY_CODE[c]) for c in codes],
            }},
            "invocations": [{
                "executionSuccessful": not any(r.error is not None and r.error.internal for r in results),
                "toolExecutionNotifications": notifications,
            }],
            "originalUriBaseIds": {SRCROOT: {"uri": Path(root).as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": [_result(d, index, root) for r in results for d in r.diagnostics],
        }],
    }


def format_sarif(results: Sequence[FileResult], root: Optional[str] = None) -> str:
    return json.dumps(sarif_log(results, root), indent=2) + "\n"
