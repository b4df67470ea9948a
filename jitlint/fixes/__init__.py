"""Fix builders: pure functions from a finding's node to a :class:`~jitlint.diagnostics.Fix`.

The package mirrors :mod:`jitlint.rules`: ``parameters`` fixes JIT101 (a changing global read in
a jitted function -> an argument of it), ``side_effects`` JIT103,
``control_flow`` JIT201-JIT203, ``static_args`` offers ``static_argnames``
for JIT201/JIT202 and corrects JIT502 specs (a misspelt name, an index out of
range), ``conversions`` fixes JIT301 (``int(x)`` used as array data -> ``jnp.asarray(x, dtype=int)``),
``numpy_calls`` JIT302 (``np.f`` -> ``jnp.f``), ``masks`` JIT401/JIT402 (a boolean mask or a
traced slice bound -> ``jnp.where`` over the whole array) and ``compilation`` JIT501 (a jit
wrapper made again and again -> made once and reused).  Every fix
places the imports it adds as isort would (``imports``) and keeps its new
lines within the project's line length, comments on their lines (``wrap``).  Each builder takes the node the rule reported and a
:class:`FixContext` and returns a ``Fix`` or ``None``; none of them writes
anything, and none raises on user code (:func:`build_fix` turns a builder's
internal error into "no fix").

Each builder module declares which rule codes its builders fix (:mod:`jitlint.fixes.registry`);
this package imports them all.  When both a rewrite and ``static_argnames`` apply, the order
(declared with the static builder) is:

* JIT201: ``static_argnames`` first -- a parameter used only in ``if`` tests is
  a mode flag, which takes few values;
* JIT202: ``lax.fori_loop`` first -- a loop bound may take many values, and a
  static one unrolls the loop, whose compile time grows with it; the
  parameter is made static only when the loop cannot be rewritten.

``preferring_static(True)`` (static first) or ``preferring_static(False)``
(rewrite first) overrides both for the findings computed inside it.
"""
from __future__ import annotations

import importlib
import pkgutil
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Callable, Iterator, List, Optional, Sequence

import libcst as cst

from jitlint.config import DEFAULT_LINE_LENGTH
from jitlint.diagnostics import Fix
from jitlint.fixes.context import FixContext
from jitlint.fixes.registry import REWRITES, STATIC_ALTERNATIVES, Builder, builders_for

if TYPE_CHECKING:
    from jitlint.analysis.discovery import ModuleIndex
    from jitlint.analysis.tracedness import Facts
    from jitlint.rules.base import RawFinding


def _declare_all() -> None:
    """Import every builder module of this package: each declares what it fixes
    (:mod:`jitlint.fixes.registry`), so a new one needs no entry here."""
    for found in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{found.name}")


_declare_all()

#: the rule codes some builder fixes
FIXABLE_CODES = frozenset(REWRITES) | frozenset(STATIC_ALTERNATIVES)


#: tests set this to see a builder's internal errors instead of "no fix"
RAISE_ERRORS = False


def build_fix(code: str, node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """The fix for a finding, or None.  Never raises on user code.  (A finding that depends on which
    parameters are static is not reported while JAX rejects the spec, see
    :data:`jitlint.rules.base.SPEC_DEPENDENT`: the next round sees what the corrected spec makes static.)"""
    advice: Optional[Fix] = None
    for builder in builders_for(code, ctx.prefer_static):
        try:
            fix = builder(node, ctx)
        except Exception:  # noqa: BLE001 - a builder that trips on odd code offers nothing
            if RAISE_ERRORS:
                raise
            fix = None
        if fix is not None and not fix.pending and not fix.edits:
            advice = advice or fix  # display-only: a later builder's edit comes first
        elif fix is not None:
            return fix
    return advice


def built(fix: Fix) -> Optional[Fix]:
    """``fix`` with its edits built (see :meth:`Fix.later`).  None when building them fails: a
    builder's internal error, never a property of user code, since everything user code decides
    was decided before the fix was offered (as :func:`build_fix`, it raises under ``RAISE_ERRORS``)."""
    try:
        return fix.built()
    except Exception:  # noqa: BLE001 - a builder that trips on odd code offers nothing
        if RAISE_ERRORS:
            raise
        return None


#: the fix order for the code running now (set by :func:`preferring_static`)
_PREFER_STATIC: ContextVar[Optional[bool]] = ContextVar("jitlint_prefer_static", default=None)


@contextmanager
def preferring_static(prefer: Optional[bool]) -> Iterator[None]:
    """Within the block, findings get ``static_argnames`` first (True), a rewrite first (False),
    or each rule's default (None)."""
    token = _PREFER_STATIC.set(prefer)
    try:
        yield
    finally:
        _PREFER_STATIC.reset(token)


class DeferredFix:
    """The fix of one finding, built when it is asked for.

    Only the findings that are reported need a fix: the rest (a second finding
    of a rule on one line, one under ``# noqa``) would cost a rewrite each -- for
    ``a if p else b if q else ...`` nested n deep, n rewrites of O(n) each.
    """

    def __init__(self, code: str, node: cst.CSTNode,
                 context: Callable[[Optional[str], Optional[List[int]]], FixContext],
                 subject: Optional[str] = None) -> None:
        self.code, self.node, self._context, self.subject = code, node, context, subject
        self._built = False
        self._fix: Optional[Fix] = None

    def build(self, source: Optional[str] = None, statement_offsets: Optional[List[int]] = None) -> Optional[Fix]:
        """The fix; ``source`` is the module's code, when the caller has generated it already, and
        ``statement_offsets`` where each module statement starts in it."""
        if not self._built:
            ctx = self._context(source, statement_offsets)
            saved, ctx.subject = ctx.subject, self.subject  # (what the finding is about, for its builders)
            try:
                self._fix = build_fix(self.code, self.node, ctx)
            finally:
                ctx.subject = saved
            self._built = True
        return self._fix


#: the line length for the code running now (set by :func:`wrapping_at`)
_LINE_LENGTH: ContextVar[Optional[int]] = ContextVar("jitlint_line_length", default=None)


@contextmanager
def wrapping_at(line_length: Optional[int]) -> Iterator[None]:
    """Within the block, rewritten lines are broken inside their brackets past ``line_length``
    (None: :data:`~jitlint.config.DEFAULT_LINE_LENGTH`), unless the caller of
    :func:`attach_fixes` passes its own."""
    token = _LINE_LENGTH.set(line_length)
    try:
        yield
    finally:
        _LINE_LENGTH.reset(token)


def attach_fixes(findings: Sequence["RawFinding"], index: "ModuleIndex", facts: "Facts",
                 source: Optional[str] = None, line_length: Optional[int] = None) -> List["RawFinding"]:
    """The findings, each with the fix its rule's builders offer (if any), as a :class:`DeferredFix`.

    ``line_length`` is the project's (``Config.line_length``); rewritten lines are wrapped to it."""
    from dataclasses import replace

    prefer_static = _PREFER_STATIC.get()
    width = line_length or _LINE_LENGTH.get() or DEFAULT_LINE_LENGTH
    shared: List[FixContext] = []

    def context(code: Optional[str], statement_offsets: Optional[List[int]]) -> FixContext:
        if not shared:
            ctx = FixContext(index.module, index, facts, source or code, prefer_static, width,
                             statement_offsets if code is not None and source in (None, code) else None)
            for f in findings:
                ctx.findings.setdefault(f.code, []).append(f.node)
            shared.append(ctx)
        return shared[0]

    return [replace(f, fix=DeferredFix(f.code, f.node, context, f.subject))
            if f.fix is None and f.code in FIXABLE_CODES else f for f in findings]


__all__ = ["FIXABLE_CODES", "Builder", "DeferredFix", "FixContext", "attach_fixes", "build_fix", "builders_for",
           "built", "preferring_static", "wrapping_at"]
