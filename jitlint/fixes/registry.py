"""Which builders fix which rule, declared by each builder where it is defined.

A builder module says what it fixes with a decorator, so a new fixable rule needs its rule
module, its builder, its fixtures and the regenerated docs, and no list elsewhere::

    @rewrites("JIT301")
    def to_array_value(node, ctx): ...

    @static_alternative("JIT202", first=False)
    def to_static_argnames(node, ctx): ...

``rewrites`` builders of one code are tried in the order they are declared.  A static
alternative (make the value a static argument instead of rewriting the code that uses it) is
tried before the rewrites when ``first`` is true, after them otherwise, and the caller may
override that order (:func:`jitlint.fixes.preferring_static`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

import libcst as cst

from jitlint.diagnostics import Fix

if TYPE_CHECKING:
    from jitlint.fixes.context import FixContext

Builder = Callable[[cst.CSTNode, "FixContext"], Optional[Fix]]

#: rule code -> its rewrite builders, in the order declared
REWRITES: Dict[str, List[Builder]] = {}
#: rule code -> (the static-argument builder, whether it comes before the rewrites by default)
STATIC_ALTERNATIVES: Dict[str, Tuple[Builder, bool]] = {}


def rewrites(*codes: str) -> Callable[[Builder], Builder]:
    """Declare ``builder`` as a rewrite for findings of ``codes``."""
    def declare(builder: Builder) -> Builder:
        for code in codes:
            found = REWRITES.setdefault(code, [])
            if builder not in found:  # (a module imported twice declares nothing new)
                found.append(builder)
        return builder
    return declare


def static_alternative(code: str, *, first: bool) -> Callable[[Builder], Builder]:
    """Declare ``builder`` as the static-argument alternative for findings of ``code``."""
    def declare(builder: Builder) -> Builder:
        known = STATIC_ALTERNATIVES.get(code)
        if known is not None and known[0] is not builder:
            raise ValueError(f"{code} already has a static alternative: {known[0].__name__}")
        STATIC_ALTERNATIVES[code] = (builder, first)
        return builder
    return declare


def builders_for(code: str, prefer_static: Optional[bool] = None) -> List[Builder]:
    """The builders to try for a finding of ``code``, in order; ``prefer_static`` overrides the
    declared order of the static alternative (True: first, False: last)."""
    found = list(REWRITES.get(code, ()))
    if code not in STATIC_ALTERNATIVES:
        return found
    static, first = STATIC_ALTERNATIVES[code]
    if prefer_static is not None:
        first = prefer_static
    return [static] + found if first else found + [static]
