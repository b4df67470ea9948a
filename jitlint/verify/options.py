"""How the verifier runs: limits, tolerances, device, where inputs come from."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

#: (rtol, atol) per dtype name; integers and booleans compare exactly
DEFAULT_TOLERANCES: Dict[str, Tuple[float, float]] = {
    "float64": (1e-12, 1e-14),
    "float32": (1e-5, 1e-6),
    "float16": (1e-3, 1e-3),
    "bfloat16": (1e-2, 1e-2),
    "complex128": (1e-12, 1e-14),
    "complex64": (1e-5, 1e-6),
}

#: CPU against GPU: different kernels (and TF32 matmuls) round differently
CROSS_DEVICE_SCALE = 1000.0

DEVICES = ("cpu", "gpu", "tpu")


@dataclass(frozen=True)
class VerifyOptions:
    #: seconds a module may take to import, and each function to verify
    timeout: float = 120.0
    #: resident memory of the subprocess, in MiB, before it is stopped
    memory_mb: int = 8192
    #: None: JAX's default backend
    device: Optional[str] = None
    #: ``--cross-check cpu``: also run the original and the fixed version on a CPU device and compare
    cross_device: bool = False
    examples_file: Optional[str] = None
    calls_file: Optional[str] = None
    #: shape of generated arrays annotated only as ``jax.Array`` / ``jnp.ndarray``
    default_shape: Tuple[int, ...] = (3,)
    tolerances: Dict[str, Tuple[float, float]] = field(default_factory=lambda: dict(DEFAULT_TOLERANCES))
    #: calls of the fixed version with the same input, to count traces
    repeats: int = 3
    #: generated inputs tried per function to reach an untaken branch side
    max_generated: int = 24
    #: candidate calls tried per function when its inputs are derived from the code
    max_derived: int = 24
    #: derive inputs from the code for functions that have none (``--no-derive``: only inputs given)
    derive: bool = True
    #: characters of the subprocess's own output kept for the report
    output_tail: int = 2000
    #: the interpreter that runs the child (None: this one); see :func:`jitlint.verify.command.choose_python`
    python: Optional[str] = None

    def __post_init__(self) -> None:
        check_timeout(self.timeout)

    def to_json(self) -> dict:
        return {
            "timeout": self.timeout,
            "device": self.device,
            "cross_device": self.cross_device,
            "examples_file": self.examples_file,
            "calls_file": self.calls_file,
            "default_shape": list(self.default_shape),
            "tolerances": {k: list(v) for k, v in self.tolerances.items()},
            "cross_scale": CROSS_DEVICE_SCALE,
            "repeats": self.repeats,
            "max_generated": self.max_generated,
            "max_derived": self.max_derived,
            "derive": self.derive,
        }


def parse_tolerance(text: str) -> Tuple[str, Tuple[float, float]]:
    """``float32=1e-5`` or ``float32=1e-5:1e-6`` (rtol[:atol]) -> (dtype, (rtol, atol))."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ValueError(f"expected DTYPE=RTOL[:ATOL], got {text!r}")
    parts = values.split(":")
    if len(parts) > 2:
        raise ValueError(f"expected DTYPE=RTOL[:ATOL], got {text!r}")
    rtol = float(parts[0])
    atol = float(parts[1]) if len(parts) == 2 else rtol
    if rtol < 0 or atol < 0:
        raise ValueError(f"tolerances must not be negative: {text!r}")
    return name, (rtol, atol)


def _valid_timeout(seconds: float) -> bool:
    # NaN compares false with everything: as a timeout it would never expire
    return math.isfinite(seconds) and seconds > 0


def check_timeout(seconds: float) -> float:
    """``seconds`` when it is a finite number above 0; else ValueError."""
    if not isinstance(seconds, (int, float)) or not _valid_timeout(seconds):
        raise ValueError(f"the timeout must be a finite number of seconds above 0, got {seconds!r}")
    return float(seconds)


def parse_timeout(text: str) -> float:
    """``--timeout SECONDS``: a finite number above 0 (``nan``, ``inf``, ``0`` and ``-1`` are refused)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not _valid_timeout(seconds):
        raise ValueError(f"expected a finite number of seconds above 0, got {text!r}")
    return seconds


def parse_shape(text: str) -> Tuple[int, ...]:
    """``3,4`` -> (3, 4); ``""`` or ``()`` -> () (a scalar)."""
    text = text.strip().strip("()[]")
    if not text:
        return ()
    shape = tuple(int(p) for p in text.split(",") if p.strip())
    if any(n < 0 for n in shape):
        raise ValueError(f"dimensions must not be negative: {text!r}")
    return shape
