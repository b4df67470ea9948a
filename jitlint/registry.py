"""Rule codes: lookup and selection by code or prefix."""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Type

from jitlint.rules import ALL_RULES
from jitlint.rules.base import Rule

RULES_BY_CODE: Dict[str, Type[Rule]] = {rule.code: rule for rule in ALL_RULES}


def _matches(code: str, patterns: Iterable[str]) -> int:
    """Length of the longest pattern that is a prefix of ``code`` (0 = none)."""
    best = 0
    for p in patterns:
        p = p.strip().upper()
        if p in ("ALL",):
            best = max(best, 1)
        elif p and code.startswith(p):
            best = max(best, len(p))
    return best


def is_enabled(code: str, select: Optional[Sequence[str]], ignore: Sequence[str],
               default_enabled: bool = True) -> bool:
    """Selected (explicitly, or on by default) and not ignored by a more specific pattern."""
    if select is None:
        sel = len(code) if default_enabled else 0
        sel = sel if sel else 0
        if not default_enabled:
            return False
        sel = 1
    else:
        sel = _matches(code, select)
        if not sel:
            return False
    ign = _matches(code, ignore)
    return not ign or ign < sel


def selected_rules(select: Optional[Sequence[str]], ignore: Sequence[str]) -> List[Type[Rule]]:
    return [r for r in ALL_RULES if is_enabled(r.code, select, ignore, r.default_enabled)]


def known_code(pattern: str) -> bool:
    p = pattern.strip().upper()
    return p == "ALL" or any(code.startswith(p) for code in RULES_BY_CODE) or p in ("J", "JI", "JIT")
