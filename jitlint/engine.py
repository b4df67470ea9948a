"""One engine behind the CLI and the flake8 plugin: source text -> findings."""
from __future__ import annotations

import os
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.analysis.cancel import checkpoint
from jitlint.analysis.positions import Layout, module_layout
from jitlint.analysis.values import Reason
from jitlint.config import Config
from jitlint.diagnostics import Diagnostic, FileError, FileResult, Fix
from jitlint.registry import RULES_BY_CODE, is_enabled, selected_rules
from jitlint.rules.base import RawFinding, run_rules
from jitlint.rules.noqa import (NOQA, is_suppressed, noqa_codes,  # noqa: F401 - NOQA, noqa_codes re-exported
                                reports_unused_noqa, unused_noqa)
from jitlint.source import (SourceError, collector_paused, decode_source, parse,  # noqa: F401 - re-exported
                            with_deep_stack)

if TYPE_CHECKING:
    from jitlint.analysis.project import Project


def _positions(module: cst.Module):
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


def _render_reason(reason: Optional[Reason], positions, module: cst.Module,
                   other_positions: Optional[Dict[int, Any]] = None,
                   layout: Optional[Layout] = None) -> Tuple[str, ...]:
    """The reason chain in words; ``layout`` (the engine's pass over ``module``) gives the code of
    the links in ``module`` without generating it again."""
    if reason is None:
        return ()
    from jitlint.analysis.syntax import short_code, short_text

    out: List[str] = []
    # a chain leaves this module at a helper's parameter; the links after it are
    # in the caller's module, until the next such parameter
    current_module, current_path = module, None
    for link in reason.chain():
        text = link.text
        if link.module is not None:
            current_module, current_path = link.module, link.path
        if link.node is not None:
            link_module, link_positions, where = module, positions, ""
            if current_module is not module:
                cache = other_positions if other_positions is not None else {}
                if id(current_module) not in cache:
                    cache[id(current_module)] = _positions(current_module)
                link_module, link_positions = current_module, cache[id(current_module)]
                where = f" of {_shown_path(current_path)}" if current_path else ""
            pos = link_positions.get(link.node)
            line = (str(pos.start.line) + where) if pos is not None else "?"
            if "{code}" in text:
                known = layout.text_of(link.node) if layout is not None and link_module is module else None
                code = short_text(known) if known is not None else short_code(link_module, link.node)
                text = text.replace("{code}", code)
            text = text.replace("{line}", line)
        else:
            text = text.replace("{code}", "...").replace("{line}", "?")
        if out and out[-1] == text:
            continue
        out.append(text)
    return tuple(out)


def _shown_path(path: str) -> str:
    """A module's path as findings show theirs: relative to the working directory when it is under it
    (a module reached through an import is found by its absolute path)."""
    if os.path.isabs(path):
        try:
            relative = os.path.relpath(path)
        except ValueError:  # another drive
            return path
        if not relative.startswith(os.pardir):
            return relative
    return path


def analyse_unit(path: str, source: str, module: cst.Module, config: Config, *, roots: Sequence[str] = (),
                 load_source: Optional[Callable[[str], Optional[Tuple[str, cst.Module]]]] = None,
                 suppressed: Optional[Dict[str, Set[Tuple[int, str]]]] = None, build_fixes: bool = True,
                 edits: bool = True, importers: Optional[Sequence[str]] = None,
                 graph_importers: Optional[Dict[str, Tuple[str, ...]]] = None,
                 ) -> Tuple[Dict[str, List[Diagnostic]], "Project"]:
    """The one analysis every front end runs: a module, with the project modules its traced code reaches.

    Returns the findings of every module the analysis reached (keyed by real
    path; each finding's ``path`` is the path the module was loaded under),
    and the project, whose loaded modules are what the result depends on.
    ``load_source`` reads another module (None: it cannot be read); without it,
    no other module is read.  Per-file ignores are not applied here: see
    :func:`without_file_ignores`.  ``suppressed`` (when given) gets, by real path, the (line, code) of
    the findings a ``# noqa`` silenced.  Without ``build_fixes``, a finding's fix is built only when
    asked for (``Diagnostic.built_fix``), as the editor does for a code action.  Without ``edits``
    a fix is reported by its title and applicability, its edits left unbuilt where its builder
    can leave them (``Fix.without_edits``): what a report that shows no edits needs.  ``importers``:
    the files of the project that import the module (their classes' instances reach its functions; none:
    nothing in its project imports it; None: not known); ``graph_importers``: the same for every module of
    the project, by real path (the analysis records the lists it reads: ``Project.consulted_importers``).
    SourceError when the code is too deep to analyse.
    """
    from jitlint.analysis.project import Project
    from jitlint.fixes import attach_fixes  # every front end gets the fixes the rules' builders offer

    project = Project(config.extend_jit_decorators, roots, load_source=load_source or (lambda p: None),
                      importers=None if importers is None else {path: tuple(importers)},
                      graph_importers=graph_importers)
    own = project.add(path, source, module)
    own.analysed = True
    rules = selected_rules(config.select, config.ignore)
    out: Dict[str, List[Diagnostic]] = {}
    positions_cache: Dict[int, Any] = {}

    def run() -> None:
        own.analyzer.run()
        for key, state in list(project.states.items()):
            if state is None or (state is not own and not state.analyzer.facts.bodies):
                continue
            checkpoint()  # between modules, and between a module's analysis and its rules
            raw = run_rules(state.index, state.analyzer.facts, rules, module_level=state is own)
            raw = attach_fixes(raw, state.index, state.analyzer.facts)
            checkpoint()
            out[key] = diagnostics_from(raw, state.module, state.source, state.path, positions_cache,
                                        None if suppressed is None else suppressed.setdefault(key, set()),
                                        build_fixes, edits)

    with collector_paused():
        with_deep_stack(run, "analyse")
    return out, project


def without_file_ignores(diagnostics: Sequence[Diagnostic], path: str, config: Config) -> List[Diagnostic]:
    """``per-file-ignores`` of ``path`` applied (the analysis runs every selected rule everywhere)."""
    ignored = config.ignores_for(path)
    if not ignored:
        return list(diagnostics)
    return [d for d in diagnostics if is_enabled(d.code, config.select, list(config.ignore) + list(ignored),
                                                 RULES_BY_CODE[d.code].default_enabled)
            or d.code not in RULES_BY_CODE]


def diagnostics_from(raw: Sequence[RawFinding], module: cst.Module, source: str, path: str,
                     other_positions: Optional[Dict[int, Any]] = None,
                     suppressed: Optional[Set[Tuple[int, str]]] = None, build_fixes: bool = True,
                     edits: bool = True) -> List[Diagnostic]:
    """Positions, noqa, one finding per line and code, reason chains rendered; ``suppressed`` (when
    given) gets the (line, code) of the findings a ``# noqa`` silenced.  Without ``build_fixes``
    each finding that may have a fix carries the means to build it instead (``deferred_fix``);
    without ``edits`` a fix's edits are built only where its builder made them already."""
    if not raw:
        return []
    # one pass generates the module's code and the ranges of the reported nodes and of the links
    # of their reasons in this module (not a range for every node: see jitlint.analysis.positions)
    layout = module_layout(module, _nodes_to_place(raw, module))
    generated, positions, statement_offsets = layout.code, layout.ranges, layout.statement_offsets
    lines = source.splitlines()

    def fix_of(finding: RawFinding, with_edits: bool = True) -> Optional[Fix]:
        from jitlint.fixes import DeferredFix, built

        # a fix's edits are offsets into the module's code: offered only where LibCST gives back
        # the source exactly (it drops a form feed that starts a line of code, and a final lone CR)
        if finding.fix is None or generated != source:
            return None
        fix = finding.fix.build(generated, statement_offsets) if isinstance(finding.fix, DeferredFix) \
            else finding.fix
        if not isinstance(fix, Fix):
            return None
        return built(fix) if with_edits else fix.without_edits()

    seen: Dict[Tuple[int, str], Diagnostic] = {}
    for finding in raw:
        checkpoint()
        pos = positions.get(finding.node)
        if pos is None:
            continue
        line = pos.start.line
        key = (line, finding.code)
        if key in seen:
            continue
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if is_suppressed(finding.code, text):
            if suppressed is not None:
                suppressed.add(key)
            continue
        seen[key] = Diagnostic(
            path=path,
            line=line,
            column=pos.start.column + 1,
            end_line=pos.end.line,
            end_column=pos.end.column + 1,
            code=finding.code,
            message=finding.message,
            reason=_render_reason(finding.reason, positions, module, other_positions, layout),
            fix=fix_of(finding, edits) if build_fixes else None,
            # a DeferredFix builds once, however often it is asked for
            deferred_fix=None if build_fixes or finding.fix is None else partial(fix_of, finding),
            subject=finding.subject if finding.subject is not None else _subject(module, finding.node, layout),
        )
    return sorted(_drop_superseded(seen).values(), key=lambda d: (d.line, d.column, d.code))


def _nodes_to_place(raw: Sequence[RawFinding], module: cst.Module) -> List[cst.CSTNode]:
    """The reported nodes, and the nodes of their reason chains that are in ``module``."""
    out: List[cst.CSTNode] = []
    for finding in raw:
        out.append(finding.node)
        if finding.reason is None:
            continue
        current = module
        for link in finding.reason.chain():
            if link.module is not None:
                current = link.module
            if link.node is not None and current is module:
                out.append(link.node)
    return out


def _subject(module: cst.Module, node: cst.CSTNode, layout: Optional[Layout] = None) -> str:
    """The source of the reported node, on one line (a name, or the flagged expression); from the
    code ``layout`` generated for it, when given."""
    from jitlint.analysis.syntax import short_code, short_text

    known = layout.text_of(node) if layout is not None else None
    return short_text(known) if known is not None else short_code(module, node)


def _drop_superseded(seen: Dict[Tuple[int, str], Diagnostic]) -> Dict[Tuple[int, str], Diagnostic]:
    """One finding per line for overlapping rules: the more specific one wins."""
    return {key: diag for key, diag in seen.items()
            if key[1] not in RULES_BY_CODE  # JIT000, an internal error, is never superseded
            or not any((key[0], other) in seen for other in RULES_BY_CODE[key[1]].superseded_by)}


def lint_module(module: cst.Module, source: str, path: str, config: Config) -> List[Diagnostic]:
    """The findings of one module on its own (no other module is read); SourceError when too deep."""
    import os

    silenced: Dict[str, Set[Tuple[int, str]]] = {}
    found, _ = analyse_unit(path, source, module, config, suppressed=silenced)
    own = found.get(os.path.realpath(path), [])
    codes = noqa_context(own, silenced.get(os.path.realpath(path), ()))
    own = sorted(own + unused_noqa(path, source, codes, config, config.ignores_for(path)),
                 key=lambda d: (d.line, d.column, d.code))
    return without_file_ignores(own, path, config)


def noqa_context(diagnostics: Sequence[Diagnostic], suppressed: Sequence[Tuple[int, str]]) -> Dict[int, Set[str]]:
    """The codes found on each line, reported or silenced by a ``# noqa``: what JIT900 judges a comment by."""
    codes: Dict[int, Set[str]] = {}
    for line, code in list(suppressed) + [(d.line, d.code) for d in diagnostics]:
        codes.setdefault(line, set()).add(code)
    return codes


def lint_source(source: str, path: str = "<string>", config: Optional[Config] = None) -> FileResult:
    """Lint Python source text. Never raises on bad user code."""
    config = config or Config()
    try:
        module = parse(source)
        diagnostics = lint_module(module, source, path, config)
    except SourceError as exc:
        return FileResult(path, error=FileError(path, exc.line, exc.column, exc.message), source=source)
    return FileResult(path, tuple(diagnostics), source=source)


def lint_bytes(data: bytes, path: str, config: Optional[Config] = None) -> FileResult:
    """Lint the bytes of a file: decoded as Python would, or a decoding error for the file."""
    try:
        source = decode_source(data)
    except SourceError as exc:
        return FileResult(path, error=FileError(path, exc.line, exc.column, exc.message))
    return lint_source(source, path, config)
