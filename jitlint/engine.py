"""One engine behind the CLI and the flake8 plugin: source text -> findings."""
from __future__ import annotations

import io
import re
import tokenize
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.analysis.discovery import ModuleIndex
from jitlint.analysis.tracedness import analyse_module
from jitlint.analysis.values import Reason
from jitlint.config import Config
from jitlint.diagnostics import Diagnostic, FileError, FileResult
from jitlint.registry import is_enabled, selected_rules
from jitlint.rules.base import RawFinding, Rule, run_rules

NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z][A-Z0-9]*(?:[,\s]+[A-Z][A-Z0-9]*)*))?", re.IGNORECASE)


class SourceError(Exception):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


def decode_source(data: bytes) -> str:
    """Decode like Python does: BOM, then the encoding cookie, else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(1, 1, f"cannot decode: {exc}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        line = data[: getattr(exc, "start", 0)].count(b"\n") + 1
        raise SourceError(line, 1, f"cannot decode as {encoding}: {exc.reason if hasattr(exc, 'reason') else exc}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def parse(source: str) -> cst.Module:
    if "\x00" in source:
        line = source[: source.index("\x00")].count("\n") + 1
        raise SourceError(line, 1, "source contains a NUL byte")
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        raise SourceError(exc.raw_line, exc.raw_column + 1, f"syntax error: {exc.message}") from None
    except RecursionError:
        raise SourceError(1, 1, "too deeply nested to parse") from None


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


def _render_reason(reason: Optional[Reason], positions, module: cst.Module) -> Tuple[str, ...]:
    if reason is None:
        return ()
    from jitlint.analysis.syntax import short_code

    out: List[str] = []
    for link in reason.chain():
        text = link.text
        if link.node is not None:
            pos = positions.get(link.node)
            line = str(pos.start.line) if pos is not None else "?"
            if "{code}" in text:
                text = text.replace("{code}", short_code(module, link.node))
            text = text.replace("{line}", line)
        else:
            text = text.replace("{code}", "...").replace("{line}", "?")
        if out and out[-1] == text:
            continue
        out.append(text)
    return tuple(out)


def analyse(module: cst.Module, config: Config, rules: Sequence[Type[Rule]]) -> List[RawFinding]:
    index = ModuleIndex(module, config.extend_jit_decorators)
    facts = analyse_module(index)
    return run_rules(index, facts, rules)


def lint_module(module: cst.Module, source: str, path: str, config: Config,
                rules: Optional[Sequence[Type[Rule]]] = None) -> List[Diagnostic]:
    if rules is None:
        rules = rules_for(path, config)
    if not rules:
        return []
    raw = analyse(module, config, rules)
    if not raw:
        return []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    lines = source.splitlines()
    seen: Dict[Tuple[int, str], Diagnostic] = {}
    for finding in raw:
        pos = positions.get(finding.node)
        if pos is None:
            continue
        line = pos.start.line
        key = (line, finding.code)
        if key in seen:
            continue
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if is_suppressed(finding.code, text):
            continue
        seen[key] = Diagnostic(
            path=path,
            line=line,
            column=pos.start.column + 1,
            end_line=pos.end.line,
            end_column=pos.end.column + 1,
            code=finding.code,
            message=finding.message,
            reason=_render_reason(finding.reason, positions, module),
            fix=None,
        )
    return sorted(seen.values(), key=lambda d: (d.line, d.column, d.code))


def rules_for(path: str, config: Config) -> List[Type[Rule]]:
    ignore = list(config.ignore) + list(config.ignores_for(path))
    return selected_rules(config.select, ignore)


def lint_source(source: str, path: str = "<string>", config: Optional[Config] = None) -> FileResult:
    """Lint Python source text. Never raises on bad user code."""
    config = config or Config()
    result = FileResult(path)
    try:
        module = parse(source)
        result.diagnostics = lint_module(module, source, path, config)
    except SourceError as exc:
        result.error = FileError(path, exc.line, exc.column, exc.message)
    except RecursionError:
        result.error = FileError(path, 1, 1, "too deeply nested to analyse")
    return result


def lint_bytes(data: bytes, path: str, config: Optional[Config] = None) -> FileResult:
    try:
        source = decode_source(data)
    except SourceError as exc:
        return FileResult(path, error=FileError(path, exc.line, exc.column, exc.message))
    return lint_source(source, path, config)
