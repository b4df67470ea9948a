"""All rules, one module per family (JIT1xx side effects, JIT2xx control flow, ..., JIT9xx noqa comments)."""
from __future__ import annotations

from typing import List, Type

from jitlint.rules.base import Rule
from jitlint.rules.compilation import RULES as _COMPILATION
from jitlint.rules.control_flow import RULES as _CONTROL_FLOW
from jitlint.rules.conversions import RULES as _CONVERSIONS
from jitlint.rules.noqa import RULES as _NOQA
from jitlint.rules.shapes import RULES as _SHAPES
from jitlint.rules.side_effects import RULES as _SIDE_EFFECTS

ALL_RULES: List[Type[Rule]] = sorted(
    [*_SIDE_EFFECTS, *_CONTROL_FLOW, *_CONVERSIONS, *_SHAPES, *_COMPILATION, *_NOQA], key=lambda r: r.code)
