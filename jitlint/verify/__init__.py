"""The dynamic verifier: runs fixes and findings against example inputs, in a subprocess.

This package is the only part of jitlint that imports jax or user code, and
it does so only in a child interpreter (:mod:`jitlint.verify.runner`), started
by ``jitlint verify`` or ``jitlint check --fix --verify`` -- never while
linting.  Importing this package imports neither.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jitlint.verify.options import VerifyOptions
    from jitlint.verify.report import FileReport, FunctionVerdict
    from jitlint.verify.verifier import splice, verify_module

__all__ = ["FileReport", "FunctionVerdict", "VerifyOptions", "splice", "verify_module"]

#: where each public name is defined: imported when first asked for, so that importing one of this
#: package's modules (``jitlint check`` builds its options from :mod:`jitlint.verify.arguments`)
#: does not import the verifier
_HOMES = {"FileReport": "jitlint.verify.report", "FunctionVerdict": "jitlint.verify.report",
          "VerifyOptions": "jitlint.verify.options", "splice": "jitlint.verify.verifier",
          "verify_module": "jitlint.verify.verifier"}


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
