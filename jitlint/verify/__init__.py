"""The dynamic verifier: runs fixes and findings against example inputs, in a subprocess.

This package is the only part of jitlint that imports jax or user code, and
it does so only in a child interpreter (:mod:`jitlint.verify.runner`), started
by ``jitlint verify`` or ``jitlint check --fix --verify`` -- never while
linting.  Importing this package imports neither.
"""
from __future__ import annotations

from jitlint.verify.options import VerifyOptions
from jitlint.verify.report import FileReport, FunctionVerdict
from jitlint.verify.verifier import splice, verify_module

__all__ = ["FileReport", "FunctionVerdict", "VerifyOptions", "splice", "verify_module"]
