"""jitlint: a static linter for JAX JIT-safety."""
from __future__ import annotations

__version__ = "0.1.0"

from jitlint.engine import lint_source  # noqa: E402

__all__ = ["__version__", "lint_source"]
