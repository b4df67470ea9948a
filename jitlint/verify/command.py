"""``jitlint verify PATH...`` and ``jitlint check --fix --verify``: options, the command, the gate.

User code runs only here, and only in a subprocess: ``verify`` imports each
file that has findings (the original and the fixed text) in a child
interpreter; ``check --fix --verify`` does the same for each file a fix would
change, and writes only the fixes that verified.  Plain ``jitlint check``
never comes here.
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import List, Optional, Sequence, Set, Tuple

from jitlint.verify.options import DEVICES, VerifyOptions, parse_shape, parse_tolerance
from jitlint.verify.report import FileReport, format_json, format_text
from jitlint.verify.targets import function_spans, plan_targets, unplanned_changes
from jitlint.verify.verifier import splice, verify_module


def _tolerance(value: str) -> Tuple[str, Tuple[float, float]]:
    try:
        return parse_tolerance(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _shape(value: str) -> Tuple[int, ...]:
    try:
        return parse_shape(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
    parser.add_argument("--device", choices=DEVICES, help="run on this device (default: JAX's default backend)")
    parser.add_argument("--cross-device", action="store_true",
                        help="also run the fixed version on the CPU and compare (when the device is not the CPU)")
    parser.add_argument(f"--{prefix}timeout", type=float, default=120.0, metavar="SECONDS",
                        help="seconds for importing a module, and for verifying each function (default: 120)")
    parser.add_argument("--memory-limit", type=int, default=8192, metavar="MIB",
                        help="memory of the subprocess, in MiB, before it is stopped (default: 8192)")
    parser.add_argument("--tolerance", type=_tolerance, action="append", metavar="DTYPE=RTOL[:ATOL]",
                        help="tolerances for one dtype, e.g. float32=1e-4:1e-5 (repeatable)")
    parser.add_argument("--default-shape", type=_shape, default=(3,), metavar="N,M",
                        help="shape of arrays generated for `jax.Array` annotations (default: 3)")


def verify_options_for_check(args: argparse.Namespace) -> VerifyOptions:
    """``check --fix --verify``: the verifier's options; a usage error for stdin or missing files."""
    from jitlint.cli import STDIN, UsageError

    if STDIN in args.paths:
        raise UsageError("--verify needs files: code read from stdin cannot be imported")
    if args.examples and os.path.isdir(args.examples):
        # `--examples DIR`: a bare --examples followed by the folder to check
        args.paths = [args.examples] if args.paths == ["."] else args.paths + [args.examples]
        args.examples = None
    try:
        return options_from_args(args, "verify_timeout")
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None


def options_from_args(args: argparse.Namespace, timeout_name: str = "timeout") -> VerifyOptions:
    base = VerifyOptions()
    tolerances = dict(base.tolerances)
    for name, pair in args.tolerance or ():
        tolerances[name] = pair
    for path in (args.examples, args.calls):
        if path and not os.path.isfile(path):
            raise FileNotFoundError(f"no such file: {path}")
    return replace(base, timeout=getattr(args, timeout_name), memory_mb=args.memory_limit, device=args.device,
                   cross_device=args.cross_device,
                   examples_file=os.path.abspath(args.examples) if args.examples else None,
                   calls_file=os.path.abspath(args.calls) if args.calls else None,
                   default_shape=tuple(args.default_shape), tolerances=tolerances)


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


# ---------------------------------------------------------------- verify PATH...
def _read_text(path: str) -> str:
    from jitlint.fixing import decode_file

    with open(path, "rb") as fh:
        return decode_file(fh.read()).text


def verify_file(path: str, config, options: VerifyOptions, fixed_path: Optional[str] = None,
                unsafe: bool = True) -> FileReport:
    """Lint ``path``, fix it in memory (or read ``fixed_path``), verify; nothing is written."""
    from jitlint.engine import SourceError, lint_source

    try:
        original = _read_text(path)
        fixed: Optional[str] = _read_text(fixed_path) if fixed_path is not None else None
    except (OSError, SourceError) as exc:
        return FileReport(path, note=f"cannot read: {getattr(exc, 'message', None) or exc}", failed=True)
    result = lint_source(original, path, config)
    if result.error is not None:
        return FileReport(path, note=f"cannot check: {result.error.message}", failed=True)
    titles: List[Tuple[int, str]] = []
    if fixed_path is None:
        from jitlint.fixing import fix_source

        fix = fix_source(original, path, config, unsafe=unsafe)
        fixed = fix.fixed if fix.changed else None
        titles = [(a.line, a.title) for a in fix.applied]
    if not result.diagnostics and fixed is None:
        return FileReport(path)
    return verify_module(path, original, fixed, result.diagnostics, titles, options, config.extend_jit_decorators)


def run_verify(args: argparse.Namespace) -> int:
    """The ``verify`` command: 0 when every function verified, 1 otherwise, 2 for usage errors."""
    from jitlint.cli import STDIN, UsageError, iter_files, resolve_config
    from jitlint.output.progress import Progress  # on a terminal only: each file takes seconds

    if STDIN in args.paths:
        raise UsageError("verify needs files: code read from stdin cannot be imported")
    try:
        options = options_from_args(args)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    config = resolve_config(args)
    files = list(iter_files(args.paths, config))
    if args.fixed is not None and len(files) != 1:
        raise UsageError("--fixed needs exactly one PATH")
    reports: List[FileReport] = []
    with Progress(len(files), "verifying", delay=0) as bar:
        bar.advance(0)
        for path in files:
            reports.append(verify_file(path, config, options, args.fixed, unsafe=not args.safe_fixes_only))
            bar.advance()
    device = next((r.device for r in reports if r.device), None)
    if args.format == "json":
        text = format_json(reports, device)
    else:
        text = format_text(reports, device)
    if args.output_file:
        with open(args.output_file, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    verdicts = [v for r in reports for v in r.verdicts]
    return 0 if all(v.ok for v in verdicts) and not any(r.failed for r in reports) else 1


# ---------------------------------------------------------------- check --fix --verify
def gate_fix(outcome, path: str, config, options: VerifyOptions):
    """Keep only the fixes that verified: (the file outcome to write, the verification report).

    ``outcome`` is a :class:`jitlint.fixing.FileFixResult`.  The functions
    whose fix did not verify are put back as they were; when that leaves a
    mix, the result is verified again, and written only if every fix still in
    it verified.  Nothing verified: nothing is written.
    """
    from jitlint.engine import lint_source
    from jitlint.fixing import decode_file, encode_file

    result = outcome.result
    if result is None or outcome.new_bytes is None or not result.changed:
        return outcome, None
    titles = [(a.line, a.title) for a in result.applied]
    findings = lint_source(result.original, path, config).diagnostics  # they locate the rewritten branches
    targets = plan_targets(result.original, result.fixed, findings, titles, config.extend_jit_decorators,
                           options.default_shape, include_findings=False)
    outside = unplanned_changes(result.original, result.fixed, targets, config.extend_jit_decorators)
    if outside:
        # a change that no function's verdict would cover: nothing of this file is written
        note = f"not written: the fix changes line(s) {', '.join(map(str, outside))} outside the functions " \
               "that can be verified"
        return _unchanged(outcome, result, path, config), FileReport(path, note=note, failed=True)
    report = verify_module(path, result.original, result.fixed, findings, titles, options,
                           config.extend_jit_decorators, include_findings=False)
    failed: Set[str] = {v.qualname for v in report.verdicts if not v.ok}
    if not failed:
        return outcome, report
    kept: Set[str] = {v.qualname for v in report.verdicts if v.ok}
    text = result.original
    if kept:
        text = splice(result.original, result.fixed, failed, config.extend_jit_decorators)
        if text != result.original:
            again = verify_module(path, result.original, text, findings, titles, options,
                                  config.extend_jit_decorators, include_findings=False)
            if not all(v.ok for v in again.verdicts):
                text = result.original
    if text == result.original:
        new_bytes = None
        applied: tuple = ()
    else:
        with open(path, "rb") as fh:
            encoded = decode_file(fh.read())
        new_bytes = encode_file(text, encoded)
        spans = function_spans(result.original, config.extend_jit_decorators)
        applied = tuple(a for a in result.applied if _function_at(spans, a.line) not in failed)
    relinted = lint_source(text, path, config)
    new_result = replace(result, fixed=text, applied=applied, remaining=relinted.diagnostics)
    return replace(outcome, result=new_result, new_bytes=new_bytes), report


def _unchanged(outcome, result, path: str, config):
    """The file outcome of writing nothing: the original text, its findings remaining."""
    from jitlint.engine import lint_source

    relinted = lint_source(result.original, path, config)
    new_result = replace(result, fixed=result.original, applied=(), remaining=relinted.diagnostics)
    return replace(outcome, result=new_result, new_bytes=None)


def _function_at(spans, line: int) -> Optional[str]:
    """The innermost function whose span (qualname -> (first, last line)) holds ``line``."""
    best, size = None, None
    for qual, (start, end) in spans.items():
        if start <= line <= end and (size is None or end - start < size):
            best, size = qual, end - start
    return best


def verification_text(reports: Sequence[FileReport], as_json: bool = False) -> str:
    reports = [r for r in reports if r is not None]
    device = next((r.device for r in reports if r.device), None)
    if as_json:
        return format_json(reports, device)
    if not any(r.verdicts for r in reports):
        return ""
    return "\nVerification of the fixes (only verified fixes are written):\n" + format_text(reports, device)
