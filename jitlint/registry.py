"""Rule codes: lookup and selection by code or prefix."""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Type

from jitlint.rules import ALL_RULES
from jitlint.rules.base import Rule

RULES_BY_CODE: Dict[str, Type[Rule]] = {rule.code: rule for rule in ALL_RULES}


def _matches(code: str, patterns: Iterable[str]) -> int:
    """Length of the longest pattern that is a prefix of ``code`` (0 = none)."""
    best = 0
    for pattern in patterns:
        prefix = pattern.strip().upper()
        if prefix == "ALL":
            best = max(best, 1)
        elif prefix and code.startswith(prefix):
            best = max(best, len(prefix))
    return best


def is_enabled(code: str, select: Optional[Sequence[str]], ignore: Sequence[str],
               default_enabled: bool = True) -> bool:
    """Selected (explicitly, or on by default) and not ignored by a more specific pattern."""
    if select is None:
        if not default_enabled:
            return False
        selected = 1  # on by default: any ignore pattern that matches turns it off
    else:
        selected = _matches(code, select)
        if not selected:
            return False
    ignored = _matches(code, ignore)
    return not ignored or ignored < selected


def selected_rules(select: Optional[Sequence[str]], ignore: Sequence[str]) -> List[Type[Rule]]:
    return [rule for rule in ALL_RULES if is_enabled(rule.code, select, ignore, rule.default_enabled)]


def known_code(pattern: str) -> bool:
    prefix = pattern.strip().upper()
    return prefix == "ALL" or any(code.startswith(prefix) for code in RULES_BY_CODE) or prefix in ("J", "JI", "JIT")
