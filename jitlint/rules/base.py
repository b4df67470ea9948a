"""The rule interface and the walker that drives rules over traced code.

A rule is a small visitor: ``visit_If(self, node)`` and so on, asking the
analysis facts (:class:`jitlint.analysis.tracedness.Facts`) and calling
``self.report``.  One walker visits every traced body once and dispatches each
node to every rule that has a method for its type (a batched visitor over the
traced code only; nested functions are walked as bodies of their own).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Dict, List, Optional, Sequence, Tuple, Type

import libcst as cst

from jitlint.analysis.discovery import FunctionInfo, ModuleIndex
from jitlint.analysis.syntax import iter_children, short_code
from jitlint.analysis.tracedness import BodyInfo, Facts
from jitlint.analysis.values import Kind, Reason, Value


@dataclass(frozen=True)
class RawFinding:
    """A finding before positions are computed."""

    node: cst.CSTNode
    code: str
    message: str
    reason: Optional[Reason]
    fix: object = None


class RuleContext:
    def __init__(self, index: ModuleIndex, facts: Facts) -> None:
        self.index = index
        self.facts = facts
        self.module = index.module
        self.body: Optional[BodyInfo] = None
        self.parents: Dict[cst.CSTNode, cst.CSTNode] = {}
        self.findings: List[RawFinding] = []

    @property
    def function(self) -> FunctionInfo:
        assert self.body is not None
        return self.body.function

    def value(self, node: Optional[cst.CSTNode]) -> Value:
        return self.facts.value(node)

    def is_traced(self, node: Optional[cst.CSTNode]) -> bool:
        return self.facts.value(node).kind is Kind.TRACED

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(node)

    def code(self, node: cst.CSTNode, limit: int = 40) -> str:
        return short_code(self.module, node, limit)

    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        return self.index.qualify(node)


class Rule:
    """Base class of all rules. Subclasses set ``code`` and ``name`` and define visit_* methods."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    #: rules off by default are only run when selected explicitly
    default_enabled: ClassVar[bool] = True
    #: title of the fix this rule can offer, if any
    fix_title: ClassVar[Optional[str]] = None
    #: codes that, reported on the same line, make this finding redundant
    superseded_by: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx

    def report(self, node: cst.CSTNode, message: str, reason: Optional[Reason] = None, fix: object = None) -> None:
        self.ctx.findings.append(RawFinding(node, self.code, message, reason, fix))


def run_rules(index: ModuleIndex, facts: Facts, rule_classes: Sequence[Type[Rule]],
              module_level: bool = True) -> List[RawFinding]:
    """Run the rules over every traced body; ``module_level`` also runs their
    ``check_module`` (not for a helper module reached from another one)."""
    ctx = RuleContext(index, facts)
    rules = [cls(ctx) for cls in rule_classes]
    dispatch: Dict[type, List] = {}

    def handlers(node_type: type) -> List:
        found = dispatch.get(node_type)
        if found is None:
            method = "visit_" + node_type.__name__
            found = dispatch[node_type] = [getattr(r, method) for r in rules if hasattr(r, method)]
        return found

    for rule in rules if module_level else ():
        check_module = getattr(rule, "check_module", None)
        if check_module is not None:
            ctx.body = None
            check_module()
    for body in facts.bodies.values():
        ctx.body = body
        ctx.parents = {}
        fn = body.function.node
        roots: List[cst.CSTNode]
        if isinstance(fn, cst.Lambda):
            roots = [fn.body]
        else:
            roots = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else list(fn.body.body)
        stack = [(r, fn) for r in reversed(roots)]
        while stack:
            node, parent = stack.pop()
            ctx.parents[node] = parent
            for handler in handlers(type(node)):
                handler(node)
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                # decorators and defaults run here; the body is its own traced body (or not traced)
                inner = list(node.decorators)
                if isinstance(node, cst.FunctionDef):
                    inner += [p.default for p, _ in _params(node) if p.default is not None]
                stack.extend((c, node) for c in reversed(inner))
                continue
            if isinstance(node, cst.Lambda):
                stack.extend((p.default, node) for p, _ in _params(node) if p.default is not None)
                continue
            children = list(iter_children(node))
            stack.extend((c, node) for c in reversed(children))
    from jitlint.fixes import attach_fixes  # every front end gets the fixes the rules' builders offer

    return attach_fixes(ctx.findings, index, facts)


def _params(node):
    from jitlint.analysis.syntax import params_of

    return params_of(node.params)
