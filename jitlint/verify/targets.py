"""Which functions to verify, and how to call them (parent side: never imports jax or user code).

A *target* is a function that a fix rewrites (found by diffing the original
and the fixed text) or that has a finding.  It is verified through a
*callable*: a module attribute (``step``, ``Model.apply``) that the
subprocess looks up and calls with example inputs.  A top-level function or
method is its own callable; a nested function is verified through the
top-level function that contains it; a helper that only jitted code calls may
also be verified through the functions that call it.  The first callable for
which inputs exist is used.

Each callable has a *mode*:

* ``jitted`` -- the module jits it (decorator or ``name = jax.jit(f, ...)``):
  called as the module defines it, eagerly under ``jax.disable_jit()``;
* ``wrap`` -- traced elsewhere (``jax.jit(f)`` inside a function, a lax body,
  a helper of jitted code): the verifier applies ``jax.jit`` with the static
  arguments that the module gives it (or, with none given, those whose values
  are not arrays);
* ``as_is`` -- a driver whose traced parts the module traces itself
  (``lax.scan(body, ...)`` inside): called as defined.
"""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.analysis.discovery import EntryPoint, FunctionInfo, ModuleIndex
from jitlint.diagnostics import Diagnostic
from jitlint.verify.derive import derived_inputs
from jitlint.verify.inputs import InputSpec, annotation_inputs

#: transforms whose result is a compiled callable (the others trace as they run)
JIT_LIKE = frozenset({
    "jax.jit", "jax.pjit", "jax.experimental.pjit.pjit", "jax.pmap", "equinox.filter_jit",
    "flax.nnx.jit", "flax.linen.jit",
})


@dataclass(frozen=True)
class Finding:
    code: str
    line: int
    message: str
    #: the name or expression the finding is about (the engine's structured subject)
    subject: str = ""

    def to_json(self) -> dict:
        return {"code": self.code, "line": self.line, "message": self.message, "subject": self.subject}


@dataclass(frozen=True)
class BranchSite:
    """A Python branch of the original that the fix turned into a traced one."""

    line: int
    kind: str  # "if", "ifexp", "while"
    test: str  # the test's source text, to find it again in the subprocess
    rewrite: str  # "jnp.where", "lax.cond", ...

    def to_json(self) -> dict:
        return {"line": self.line, "kind": self.kind, "test": self.test, "rewrite": self.rewrite}


@dataclass(frozen=True)
class Callable:
    """A module attribute to call, how, and what inputs its signature allows."""

    name: str  # attribute path: "step", "Model.apply"
    mode: str  # "jitted", "wrap", "as_is"
    static_argnums: Tuple[int, ...] = ()
    static_argnames: Tuple[str, ...] = ()
    #: the module gave no static arguments: the verifier picks non-array ones
    auto_static: bool = False
    annotations: Optional[InputSpec] = None
    #: the static arguments the fixed version gives it (a fix may add some)
    fixed_static: Optional[Tuple[Tuple[int, ...], Tuple[str, ...]]] = None
    #: inputs derived from how the body uses each parameter (:mod:`jitlint.verify.derive`), the last resort
    derived: Optional[dict] = None

    def to_json(self) -> dict:
        fixed = self.fixed_static if self.fixed_static is not None else (self.static_argnums, self.static_argnames)
        return {
            "name": self.name,
            "mode": self.mode,
            "static_argnums": list(self.static_argnums),
            "static_argnames": list(self.static_argnames),
            "fixed_static": [list(fixed[0]), list(fixed[1])],
            "auto_static": self.auto_static,
            "annotations": self.annotations.to_json() if self.annotations is not None else None,
            "derived": self.derived,
        }


@dataclass(frozen=True)
class Target:
    qualname: str
    line: int
    rewritten: bool
    findings: Tuple[Finding, ...] = ()
    branches: Tuple[BranchSite, ...] = ()
    callables: Tuple[Callable, ...] = ()
    #: titles of the fixes applied inside the function, when known
    fixes: Tuple[str, ...] = ()
    #: the fixed text has no function of this name (it cannot be compared)
    missing_in_fixed: bool = False

    def to_json(self) -> dict:
        return {
            "qualname": self.qualname,
            "line": self.line,
            "rewritten": self.rewritten,
            "findings": [f.to_json() for f in self.findings],
            "branches": [b.to_json() for b in self.branches],
            "callables": [c.to_json() for c in self.callables],
            "fixes": list(self.fixes),
            "missing_in_fixed": self.missing_in_fixed,
        }


@dataclass
class _Parsed:
    module: cst.Module
    index: ModuleIndex
    #: FunctionDef -> (first line, counting decorators; last line)
    spans: Dict[cst.FunctionDef, Tuple[int, int]] = field(default_factory=dict)
    positions: object = None

    def functions(self) -> List[FunctionInfo]:
        return [info for node, info in self.index.infos.items() if isinstance(node, cst.FunctionDef)]

    def by_qualname(self) -> Dict[str, FunctionInfo]:
        out: Dict[str, FunctionInfo] = {}
        for info in self.functions():
            out.setdefault(info.qualname, info)
        return out

    def innermost_at(self, line: int) -> Optional[FunctionInfo]:
        best: Optional[FunctionInfo] = None
        best_size = None
        for info in self.functions():
            start, end = self.spans[info.node]
            if start <= line <= end and (best_size is None or end - start < best_size):
                best, best_size = info, end - start
        return best

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)


def _parse(source: str, extra_jit: Sequence[str]) -> _Parsed:
    from jitlint.engine import parse

    module = parse(source)
    index = ModuleIndex(module, extra_jit)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    parsed = _Parsed(module, index, positions=positions)
    for node in index.infos:
        if isinstance(node, cst.FunctionDef):
            pos = positions[node]
            start = min([pos.start.line] + [positions[d].start.line for d in node.decorators])
            parsed.spans[node] = (start, pos.end.line)
    return parsed


def module_location(path: str) -> Tuple[str, str]:
    """(dotted module name, folder to put on ``sys.path``), as pytest's default import mode finds them."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    parts = [os.path.splitext(os.path.basename(path))[0]]
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parts.insert(0, os.path.basename(folder))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts), folder


# ------------------------------------------------------------------ changes
def changed_lines(original: str, fixed: str) -> Set[int]:
    """Lines of the original (1-based) that the fixed text replaces, deletes or inserts before."""
    a, b = original.splitlines(), fixed.splitlines()
    out: Set[int] = set()
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if i1 == i2:  # insertion before line i1 + 1: it belongs to the line above
            out.add(max(i1, 1))
        else:
            out.update(range(i1 + 1, i2 + 1))
    return out


def _jit_bindings(parsed: _Parsed) -> Dict[str, List[EntryPoint]]:
    """Module-level ``name = jax.jit(f, ...)``: function qualname -> its entry points."""
    out: Dict[str, List[EntryPoint]] = {}
    for entry in parsed.index.entries:
        if entry.scope is None and entry.call_names and not isinstance(entry.site, cst.Decorator):
            out.setdefault(entry.function.qualname, []).append(entry)
    return out


def _statement_lines(parsed: _Parsed, node: cst.CSTNode) -> Tuple[int, int]:
    pos = parsed.positions[node]  # type: ignore[index]
    return pos.start.line, pos.end.line


def _is_jit_like(entry: EntryPoint) -> bool:
    return entry.transform is not None and (entry.transform.name in JIT_LIKE
                                            or entry.transform.static_argnums_kw == ("static_argnums",)
                                            and entry.transform.static_argnames_kw == ("static_argnames",))


def _static(entry: Optional[EntryPoint]) -> Tuple[Tuple[int, ...], Tuple[str, ...], bool]:
    if entry is None:
        return (), (), True
    nums = tuple(entry.static_nums or ())
    names = tuple(entry.static_names or ())
    return nums, names, False


def _decorated_jit(parsed: _Parsed, info: FunctionInfo) -> Optional[EntryPoint]:
    for entry in parsed.index.entries:
        if entry.function is info and isinstance(entry.site, cst.Decorator) and _is_jit_like(entry):
            return entry
    return None


def _callables_for(parsed: _Parsed, info: FunctionInfo, with_annotations: bool,
                   default_shape: Tuple[int, ...]) -> List[Callable]:
    """The ways to call ``info``, best first: itself, its module-level jit bindings,
    its top-level function, the top-level functions that call it."""
    out: List[Callable] = []
    seen: Set[str] = set()
    bindings = _jit_bindings(parsed)

    def spec_of(fn: FunctionInfo, skip_first: bool) -> Optional[InputSpec]:
        if not with_annotations or not isinstance(fn.node, cst.FunctionDef):
            return None
        return annotation_inputs(fn.node, parsed.index, parsed.module, default_shape, skip_first)

    def add(name: str, mode: str, fn: FunctionInfo, entry: Optional[EntryPoint]) -> None:
        if name in seen:
            return
        seen.add(name)
        nums, names, auto = _static(entry)
        if mode != "wrap":
            auto = False
        derived = None
        if with_annotations and isinstance(fn.node, cst.FunctionDef):
            derived = derived_inputs(fn.node, parsed.index, nums, names, fn.cls if fn.is_method else None)
        out.append(Callable(name, mode, nums, names, auto, spec_of(fn, skip_first=False), derived=derived))

    def add_function(fn: FunctionInfo) -> None:
        top_level = fn.parent is None and (fn.cls is None or _class_is_top_level(parsed, fn))
        if not top_level:
            return
        name = fn.qualname
        decorated = _decorated_jit(parsed, fn)
        if decorated is not None:
            add(name, "jitted", fn, decorated)
        else:
            entries = [e for e in parsed.index.entries if e.function is fn]
            jit_entries = [e for e in entries if _is_jit_like(e)]
            if jit_entries:
                add(name, "wrap", fn, jit_entries[0])
            elif entries or _only_traced_helper(parsed, fn):
                add(name, "wrap", fn, None)
            else:
                add(name, "as_is", fn, None)
        for entry in bindings.get(fn.qualname, ()):
            for bound in entry.call_names:
                if "." not in bound:
                    add(bound, "jitted", fn, entry)

    chain: List[FunctionInfo] = []
    node: Optional[FunctionInfo] = info
    while node is not None:
        chain.append(node)
        node = node.parent
    for fn in chain:
        add_function(fn)
    # callers at module level, two levels up
    frontier = [chain[-1]]
    for _depth in range(2):
        nxt: List[FunctionInfo] = []
        for fn in frontier:
            for caller in _callers(parsed, fn):
                if caller.qualname not in seen:
                    add_function(caller)
                    nxt.append(caller)
        frontier = nxt
    return out


def _class_is_top_level(parsed: _Parsed, fn: FunctionInfo) -> bool:
    return fn.cls is not None and parsed.index.classes.get(fn.cls.name) is fn.cls


def _callers(parsed: _Parsed, fn: FunctionInfo) -> List[FunctionInfo]:
    """Top-level functions and methods whose bodies call ``fn`` by its name."""
    key = fn.name if fn.cls is None else "self." + fn.name
    out: List[FunctionInfo] = []
    for call in parsed.index.calls_by_name.get(key, ()):
        pos = parsed.positions[call]  # type: ignore[index]
        caller = parsed.innermost_at(pos.start.line)
        while caller is not None and caller.parent is not None:
            caller = caller.parent
        if caller is not None and caller is not fn and caller not in out:
            out.append(caller)
    return out


def _only_traced_helper(parsed: _Parsed, fn: FunctionInfo) -> bool:
    """Called from traced code (a caller is jitted) and never a driver of its own traces."""
    for caller in _callers(parsed, fn):
        if _decorated_jit(parsed, caller) is not None or caller.qualname in _jit_bindings(parsed):
            return True
    return False


# ------------------------------------------------------------------ branches
class _Tests(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: List[Tuple[str, cst.BaseExpression]] = []

    def visit_If(self, node: cst.If) -> None:
        self.found.append(("if", node.test))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.found.append(("ifexp", node.test))

    def visit_While(self, node: cst.While) -> None:
        self.found.append(("while", node.test))


def _tests_in(node: cst.CSTNode) -> List[Tuple[str, cst.BaseExpression]]:
    visitor = _Tests()
    node.visit(visitor)
    return visitor.found


def _rewrite_name(kind: str, original_code: str, fixed_code: str, titles: Sequence[str]) -> str:
    """What replaced a Python branch: from the fix titles, else from the calls the fix added."""
    names = ("lax.while_loop",) if kind == "while" else ("lax.cond", "jnp.where", "lax.select", "lax.switch")
    for title in titles:
        for name in names:
            if name.split(".")[-1] in title:
                return name
    for name in names:
        tail = name.split(".")[-1] + "("
        if fixed_code.count(tail) > original_code.count(tail):
            return name
    return "a traced branch"


def branch_sites(original: _Parsed, fixed: Optional[_Parsed], info: FunctionInfo,
                 findings: Sequence[Finding], titles: Sequence[str]) -> List[BranchSite]:
    """The ``if`` / ternary / ``while`` tests with a JIT201/JIT203 finding that the fix removed."""
    if fixed is None:
        return []
    fixed_info = fixed.by_qualname().get(info.qualname)
    if fixed_info is None:
        return []
    lines = {f.line for f in findings if f.code in ("JIT201", "JIT203")}
    if not lines:
        return []
    fixed_code = fixed.code(fixed_info.node)
    original_code = original.code(info.node)
    remaining = {(kind, fixed.code(test).strip()) for kind, test in _tests_in(fixed_info.node)}
    sites: List[BranchSite] = []
    for kind, test in _tests_in(info.node):
        start, end = _statement_lines(original, test)
        if not any(start <= line <= end for line in lines):
            continue
        text = original.code(test).strip()
        if (kind, text) in remaining:
            continue  # still a Python branch (e.g. the fix made its operand static)
        sites.append(BranchSite(start, kind, text, _rewrite_name(kind, original_code, fixed_code, titles)))
    return sites


# ------------------------------------------------------------------ plan
def plan_targets(original_source: str, fixed_source: Optional[str], diagnostics: Iterable[Diagnostic] = (),
                 fix_titles: Iterable[Tuple[int, str]] = (), extra_jit: Sequence[str] = (),
                 default_shape: Tuple[int, ...] = (3,), include_findings: bool = True) -> List[Target]:
    """The functions to verify, in source order.

    ``fixed_source`` None (or equal to the original) verifies the functions
    with findings as they are.  ``fix_titles`` are (line, title) of the fixes
    applied, used to name branch rewrites.
    """
    original = _parse(original_source, extra_jit)
    fixed = _parse(fixed_source, extra_jit) if fixed_source is not None and fixed_source != original_source else None
    findings_by_fn: Dict[FunctionInfo, List[Finding]] = {}
    for diag in diagnostics:
        fn = original.innermost_at(diag.line)
        if fn is not None:
            findings_by_fn.setdefault(fn, []).append(Finding(diag.code, diag.line, diag.message, diag.subject or ""))
    titles_by_fn: Dict[FunctionInfo, List[str]] = {}
    for line, title in fix_titles:
        fn = original.innermost_at(line)
        if fn is not None:
            titles_by_fn.setdefault(fn, []).append(title)

    rewritten: Set[FunctionInfo] = set()
    if fixed is not None:
        bindings = _jit_bindings(original)
        binding_lines = {}
        for qual, entries in bindings.items():
            for entry in entries:
                stmt_start, stmt_end = _statement_lines(original, entry.site)
                binding_lines.update({line: qual for line in range(stmt_start, stmt_end + 1)})
        by_qual = original.by_qualname()
        for line in changed_lines(original_source, fixed_source or ""):
            fn = original.innermost_at(line)
            if fn is None and line in binding_lines:
                fn = by_qual.get(binding_lines[line])
            if fn is not None:
                rewritten.add(fn)

    chosen = rewritten | (set(findings_by_fn) if include_findings or fixed is None else set())
    fixed_by_name = fixed.by_qualname() if fixed is not None else {}
    targets: List[Target] = []
    for info in sorted(chosen, key=lambda i: original.spans[i.node][0]):
        findings = tuple(findings_by_fn.get(info, ()))
        titles = tuple(titles_by_fn.get(info, ()))
        targets.append(Target(
            qualname=info.qualname,
            line=original.spans[info.node][0],
            rewritten=info in rewritten,
            findings=findings,
            branches=tuple(branch_sites(original, fixed, info, findings, titles)) if info in rewritten else (),
            callables=tuple(_with_fixed_static(_callables_for(original, info, True, default_shape),
                                               fixed, fixed_by_name.get(info.qualname), default_shape)),
            fixes=titles,
            missing_in_fixed=fixed is not None and info.qualname not in fixed_by_name,
        ))
    return targets


def _with_fixed_static(callables: List[Callable], fixed: Optional[_Parsed], fixed_info: Optional[FunctionInfo],
                       default_shape: Tuple[int, ...]) -> List[Callable]:
    if fixed is None or fixed_info is None:
        return callables
    by_name = {c.name: c for c in _callables_for(fixed, fixed_info, False, default_shape)}
    out = []
    for c in callables:
        other = by_name.get(c.name)
        if other is not None:
            c = replace(c, fixed_static=(other.static_argnums, other.static_argnames))
        out.append(c)
    return out


def is_import_line(line: str) -> bool:
    return line.strip().startswith(("import ", "from "))


def _is_import_or_blank(line: str) -> bool:
    text = line.strip()
    return not text or is_import_line(text) or text.startswith("#")


def unplanned_changes(original: str, fixed: str, targets: Sequence[Target], extra_jit: Sequence[str] = ()) -> List[int]:
    """Lines of the original that the fix changes outside every target (imports aside).

    Such a change was not verified by any function's verdict, so a fix that
    makes one is not written by ``--fix --verify``.
    """
    spans = function_spans(original, extra_jit)
    covered = [spans[t.qualname] for t in targets if t.qualname in spans]
    parsed = _parse(original, extra_jit)
    for qual, entries in _jit_bindings(parsed).items():
        if any(t.qualname == qual for t in targets):
            covered.extend(_statement_lines(parsed, e.site) for e in entries)
    a, b = original.splitlines(), fixed.splitlines()
    out: List[int] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if all(_is_import_or_blank(line) for line in a[i1:i2] + b[j1:j2]):
            continue
        lines = list(range(i1 + 1, i2 + 1)) or [max(i1, 1)]
        if i1 == i2 and i1 < len(a):
            lines.append(i1 + 1)  # an insertion between two lines: inside a function if either is
        if not any(start <= line <= end for line in lines for start, end in covered):
            out.extend(lines[:1])
    return out


def function_spans(source: str, extra_jit: Sequence[str] = ()) -> Dict[str, Tuple[int, int]]:
    """qualname -> (first line with decorators, last line), for splicing verified functions."""
    parsed = _parse(source, extra_jit)
    return {info.qualname: parsed.spans[info.node] for info in parsed.functions()}
