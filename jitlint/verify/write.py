"""``jitlint verify --write-examples``: the derived inputs written into the module as an ``EXAMPLES`` block.

The block goes at the end of the module, where the verifier's next run reads
it (as the module's own ``EXAMPLES``, ahead of anything derived), and the
user can keep and edit it.  A module that already has an ``EXAMPLES``
assignment gets ``EXAMPLES = {**EXAMPLES, ...}`` instead, so its entries stay
first.  Only functions whose inputs were derived are written: a second run
finds them in ``EXAMPLES``, derives nothing, and writes nothing.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Tuple

from jitlint.verify.report import FileReport

MARKER = "# Example inputs for `jitlint verify`, derived from how each function uses its parameters"
DERIVED_SOURCE = "derived from the code"


def derived_entries(report: FileReport) -> Tuple[List[Tuple[str, List[str]]], Dict[str, List[str]]]:
    """([(callable name, [call source, ...])], record classes) of the functions whose inputs were derived."""
    entries: List[Tuple[str, List[str]]] = []
    classes: Dict[str, List[str]] = {}
    seen = set()
    for v in report.verdicts:
        raw = v.raw or {}
        derived = raw.get("derived") or {}
        name = raw.get("callable")
        if raw.get("input_source") != DERIVED_SOURCE or not derived.get("sources") or not name or name in seen:
            continue
        seen.add(name)
        entries.append((name, list(derived["sources"])))
        classes.update(derived.get("classes") or {})
    return entries, classes


def _has_examples(source: str) -> bool:
    for stmt in ast.parse(source).body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] if isinstance(
            stmt, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == "EXAMPLES" for t in targets):
            return True
    return False


def examples_block(source: str, entries: Sequence[Tuple[str, List[str]]], classes: Dict[str, List[str]]) -> str:
    """The text to append to ``source``."""
    lines = ["", "", MARKER, "# (written by `jitlint verify --write-examples`: keep them, edit them).", ]
    if classes:
        lines.append("import collections as _collections")
    lines.append("import jax.numpy as _jnp")
    if classes:
        lines.append("")
        for name, fields in sorted(classes.items()):
            lines.append(f"{name} = _collections.namedtuple(\"Record\", {fields!r})")
    lines.append("")
    head = "EXAMPLES = {**EXAMPLES," if _has_examples(source) else "EXAMPLES = {"
    lines.append(head)
    for name, calls in entries:
        lines.append(f"    {name!r}: [")
        lines.extend(f"        {call}," for call in calls)
        lines.append("    ],")
    lines.append("}")
    prefix = "" if source.endswith("\n") or not source else "\n"
    return prefix + "\n".join(lines[1:] if source.endswith("\n\n") else lines) + "\n"


def write_examples(path: str, report: FileReport) -> Optional[str]:
    """Append the derived inputs of ``report`` to the module at ``path``; a line saying what was written,
    or None when there was nothing to write.  The new text must parse; the write is atomic."""
    from jitlint.fixing import decode_file, encode_file, write_atomic

    entries, classes = derived_entries(report)
    if not entries:
        return None
    with open(path, "rb") as fh:
        data = fh.read()
    encoded = decode_file(data)
    text = encoded.text + examples_block(encoded.text, entries, classes)
    ast.parse(text)  # a block that does not parse is never written (SyntaxError)
    write_atomic(path, encode_file(text, encoded), expected=data)
    names = ", ".join(name for name, _ in entries)
    return f"{path}: wrote EXAMPLES for {names}"
