"""The command-line options of ``jitlint verify`` and ``jitlint check --verify``.

Apart from :mod:`jitlint.verify.command` so that building ``jitlint``'s argument parser (every run of
``jitlint check`` does it) imports only :mod:`jitlint.verify.options`, not the verifier.
"""
from __future__ import annotations

import argparse

from jitlint.verify.options import DEVICES, parse_shape, parse_timeout, parse_tolerance


def _argument_type(parse):
    """An argparse ``type`` from a parser that raises ValueError: argparse reports it (exit 2)."""
    def convert(value: str):
        try:
            return parse(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = parse.__name__
    return convert


def _memory(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"expected a number of MiB, 0 or more, got {text!r}")
    return value


_tolerance = _argument_type(parse_tolerance)
_shape = _argument_type(parse_shape)
_timeout = _argument_type(parse_timeout)


def add_verify_arguments(parser: argparse.ArgumentParser, prefix: str = "") -> None:
    """The options shared by ``verify`` and ``check --verify`` (``prefix`` keeps check's names apart).

    For ``check``, ``--examples`` may come without a file: the modules' own ``EXAMPLES`` (read anyway).
    """
    optional = {"nargs": "?", "const": ""} if prefix else {}
    parser.add_argument("--examples", metavar="FILE.py", **optional,  # type: ignore[arg-type]
                        help="a Python file defining EXAMPLES = {'module.function': [(args, kwargs), ...]}"
                             " (each module's own EXAMPLES dict is read too)")
    parser.add_argument("--calls", metavar="FILE.pkl",
                        help="calls recorded by `pytest -p jitlint.record --jitlint-record=FILE.pkl`")
    parser.add_argument("--no-derive", action="store_true",
                        help="use only the inputs given (EXAMPLES, --examples, annotations, --calls): derive none "
                             "from how a function uses its parameters")
    parser.add_argument("--device", choices=DEVICES, help="run on this device (default: JAX's default backend)")
    parser.add_argument("--cross-check", choices=("cpu",), default=None,
                        help="cpu: also run the original and the fixed version on a CPU device and compare them "
                             "there, and the fixed version's results on the main device (a GPU or TPU) with the "
                             "CPU's; reports the largest difference")
    parser.add_argument("--cross-device", action="store_true", help=argparse.SUPPRESS)  # the old name of it
    parser.add_argument(f"--{prefix}timeout", type=_timeout, default=120.0, metavar="SECONDS",
                        help="seconds for importing a module, and for verifying each function (default: 120)")
    parser.add_argument("--memory-limit", type=_argument_type(_memory), default=8192, metavar="MIB",
                        help="memory of the subprocess, in MiB, before it is stopped (default: 8192; 0: no limit)")
    parser.add_argument("--python", metavar="PATH",
                        help="run the verified code with this Python interpreter (or virtual environment), which "
                             "must have JAX and the code's dependencies (default: the interpreter of the project's "
                             ".venv or venv, next to its configuration file, if there is one; else jitlint's own)")
    parser.add_argument("--tolerance", type=_tolerance, action="append", metavar="DTYPE=RTOL[:ATOL]",
                        help="tolerances for one dtype, e.g. float32=1e-4:1e-5 (repeatable)")
    parser.add_argument("--default-shape", type=_shape, default=(3,), metavar="N,M",
                        help="shape of arrays generated for `jax.Array` annotations (default: 3)")


def add_verify_parser(sub) -> argparse.ArgumentParser:  # sub: argparse._SubParsersAction
    verify = sub.add_parser("verify", help="run fixes and findings with example inputs (imports your code)",
                            description="Verify jitlint's fixes by running them: the original eagerly, the fixed "
                                        "version under jax.jit, compared leaf by leaf. This imports and runs the "
                                        "checked code (in a subprocess).")
    verify.add_argument("paths", nargs="+", help="files or folders")
    verify.add_argument("--fixed", metavar="FILE",
                        help="verify this file as the fixed version of the one PATH (instead of jitlint's fixes)")
    verify.add_argument("--safe-fixes-only", action="store_true",
                        help="verify only the fixes `--fix` applies without `--unsafe-fixes`")
    verify.add_argument("--format", choices=("text", "json"), default="text", help="report format")
    verify.add_argument("--write-examples", action="store_true",
                        help="write the inputs derived for functions that had none into their module, as an "
                             "EXAMPLES block at its end (keep it, edit it: the next run uses it)")
    verify.add_argument("--output-file", help="write the report here instead of stdout")
    verify.add_argument("--config", help="read options from this pyproject.toml / setup.cfg")
    verify.add_argument("--isolated", action="store_true", help="ignore configuration files")
    add_verify_arguments(verify)
    verify.set_defaults(select=None, ignore=None, extend_select=None, exclude=None, extend_exclude=None,
                        extend_jit_decorators=None, stdin_filename=None)
    return verify


def add_check_arguments(check: argparse.ArgumentParser) -> None:
    """``check --verify`` and the verifier's options, under names that cannot clash with check's."""
    group = check.add_argument_group("verification (with --fix: write only the fixes that verified)")
    group.add_argument("--verify", action="store_true",
                       help="with --fix: run each fix with example inputs (imports your code) and write only "
                            "the fixes that verified")
    add_verify_arguments(group, prefix="verify-")  # type: ignore[arg-type]
