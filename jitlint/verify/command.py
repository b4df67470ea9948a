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
import shutil
import sys
from dataclasses import replace
from typing import Dict, List, Optional, Sequence, Set, Tuple

from jitlint.diagnostics import Applicability, Fix
from jitlint.files import STDIN, UsageError, is_virtualenv, iter_files, project_root
from jitlint.notebook import is_notebook
from jitlint.verify.arguments import add_check_arguments, add_verify_arguments, add_verify_parser  # noqa: F401
from jitlint.verify.options import VerifyOptions
from jitlint.verify.report import NO_FIX, UNVERIFIED, FileReport, FunctionVerdict, format_json, format_text
from jitlint.verify.sandbox import child_environment, interpreter_problem
from jitlint.verify.targets import function_spans, is_import_line, plan_targets, unplanned_changes
from jitlint.verify.verifier import splice, verify_module


def verify_options_for_check(args: argparse.Namespace, config=None) -> VerifyOptions:
    """``check --fix --verify``: the verifier's options; a usage error for stdin, missing files, no JAX."""
    from jitlint.config import find_config

    if STDIN in args.paths:
        raise UsageError("--verify needs files: code read from stdin cannot be imported")
    if args.examples and os.path.isdir(args.examples):
        # `--examples DIR`: a bare --examples followed by the folder to check
        args.paths = [args.examples] if args.paths == ["."] else args.paths + [args.examples]
        args.examples = None
    try:
        options = options_from_args(args, "verify_timeout")
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    if config is None:
        config = find_config(_start(args.paths)) if not (args.isolated or args.config) else None
    source = args.config or (config.source if config is not None else None)
    return replace(options, python=interpreter_for(args.python, args.paths, source, options))


def options_from_args(args: argparse.Namespace, timeout_name: str = "timeout") -> VerifyOptions:
    base = VerifyOptions()
    tolerances = dict(base.tolerances)
    for name, pair in args.tolerance or ():
        tolerances[name] = pair
    for path in (args.examples, args.calls):
        if path and not os.path.isfile(path):
            raise FileNotFoundError(f"no such file: {path}")
    return replace(base, timeout=getattr(args, timeout_name), memory_mb=args.memory_limit, device=args.device,
                   cross_device=bool(args.cross_device or getattr(args, "cross_check", None) == "cpu"),
                   examples_file=os.path.abspath(args.examples) if args.examples else None,
                   calls_file=os.path.abspath(args.calls) if args.calls else None,
                   default_shape=tuple(args.default_shape), tolerances=tolerances,
                   derive=not getattr(args, "no_derive", False))


# ---------------------------------------------------------------- the interpreter
#: the names of a project's virtual environment, in the order they are looked for
VENV_NAMES = (".venv", "venv")


def _start(paths: Sequence[str]) -> str:
    named = [p for p in paths if p != STDIN]
    return named[0] if named and os.path.exists(named[0]) else "."


def venv_python(folder: str) -> Optional[str]:
    """The interpreter of the virtual environment ``folder`` (its path as is: a venv runs from its own path)."""
    for parts in (("bin", "python"), ("bin", "python3"), ("Scripts", "python.exe")):
        candidate = os.path.join(folder, *parts)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    return None


def project_python(start: str, config_source: Optional[str] = None) -> Optional[str]:
    """The interpreter of the project's ``.venv`` or ``venv``: next to its configuration file, or else
    at the top of the project around ``start`` (None: there is none)."""
    folders = [os.path.dirname(os.path.abspath(config_source))] if config_source else []
    root = project_root(start)
    if root is not None:
        folders.append(root)
    for folder in folders:
        for name in VENV_NAMES:
            venv = os.path.join(folder, name)
            python = venv_python(venv) if is_virtualenv(venv) else None
            if python is not None:
                return python
    return None


def choose_python(explicit: Optional[str], start: str = ".", config_source: Optional[str] = None) -> str:
    """The interpreter that runs the verified code: ``--python`` (an interpreter, a name on PATH or a
    virtual environment's folder), else the project's virtual environment's, else this one."""
    if not explicit:
        return project_python(start, config_source) or sys.executable
    if os.path.isdir(explicit):
        python = venv_python(explicit)
        if python is None:
            raise UsageError(f"--python {explicit}: a folder without bin/python (not a virtual environment)")
        return python
    found = explicit if os.sep in explicit or (os.altsep and os.altsep in explicit) else shutil.which(explicit)
    if not found or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise UsageError(f"--python {explicit}: no such Python interpreter")
    return os.path.abspath(found)


def interpreter_for(explicit: Optional[str], paths: Sequence[str], config_source: Optional[str],
                    options: VerifyOptions) -> str:
    """:func:`choose_python`, checked: a usage error, in one line, when it has no JAX or does not start."""
    python = choose_python(explicit, _start(paths), config_source)
    problem = interpreter_problem(python, child_environment(options.device, options.cross_device))
    if problem is not None:
        raise UsageError(problem)
    return python


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
    from jitlint.settings import resolve_config
    from jitlint.output.progress import Progress  # on a terminal only: each file takes seconds

    if STDIN in args.paths:
        raise UsageError("verify needs files: code read from stdin cannot be imported")
    try:
        options = options_from_args(args)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    config = resolve_config(args)
    files = [f for f in iter_files(args.paths, config) if not is_notebook(f)]  # (a notebook is not imported)
    if args.fixed is not None and len(files) != 1:
        raise UsageError("--fixed needs exactly one PATH")
    options = replace(options, python=interpreter_for(args.python, args.paths, args.config or config.source,
                                                      options))
    reports: List[FileReport] = []
    with Progress(len(files), "verifying", delay=0) as bar:
        bar.advance(0)
        for path in files:
            reports.append(verify_file(path, config, options, args.fixed, unsafe=not args.safe_fixes_only))
            if getattr(args, "write_examples", False):
                _write_examples(path, reports[-1])
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
    # a function with a finding and no fix is described as it is: it fails no fix
    return 0 if all(v.ok or v.kind == NO_FIX for v in verdicts) and not any(r.failed for r in reports) else 1


def _write_examples(path: str, report: FileReport) -> None:
    from jitlint.verify.write import write_examples

    try:
        said = write_examples(path, report)
    except (OSError, SyntaxError, ValueError) as exc:
        said = f"{path}: EXAMPLES not written: {exc}"
    if said:
        sys.stderr.write(said + "\n")


# ---------------------------------------------------------------- check --fix --verify
def gate_fix(outcome, path: str, config, options: VerifyOptions):
    """Keep only the fixes that passed: (the file outcome to write, the verification report).

    ``outcome`` is a :class:`jitlint.fixing.FileFixResult`.  A function passes
    when its fix verified, or when it could not be run for want of inputs and
    its fixes are all SAFE (they do not change what the code computes).  A
    function without inputs whose fixes mix SAFE and UNSAFE ones gets only
    the SAFE ones; UNSAFE fixes without inputs are withheld, and the report
    says how to give inputs.  The other functions whose fix did not pass are
    put back as they were; when that leaves a mix, the result is verified
    again, and written only if every function still fixed in it passed.
    Nothing passed: nothing is written.
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
    spans = function_spans(result.original, config.extend_jit_decorators)
    kinds = _fix_kinds(result.applied, spans)
    safe_only = {qual for qual, seen in kinds.items() if seen == {Applicability.SAFE}}
    no_inputs = {v.qualname for v in report.verdicts if v.kind == UNVERIFIED}
    passed: Set[str] = {v.qualname for v in report.verdicts if v.ok} | (no_inputs & safe_only)
    failed: Set[str] = {v.qualname for v in report.verdicts} - passed
    # without inputs, fixes mixing SAFE and UNSAFE ones: the SAFE ones alone
    partial = {qual for qual in no_inputs - safe_only if Applicability.SAFE in kinds.get(qual, ())}
    text = result.fixed
    if failed:
        text, partial = _kept_text(result, passed, failed, partial, kinds, path, config)
        if text != result.original:
            again = verify_module(path, result.original, text, findings, titles, options,
                                  config.extend_jit_decorators, include_findings=False)
            if not all(v.ok or (v.kind == UNVERIFIED and v.qualname in safe_only | partial)
                       for v in again.verdicts):
                text = result.original
    report.verdicts = [_without_inputs(v, safe_only, partial) for v in report.verdicts]
    if not failed:
        return outcome, report
    if text == result.original:
        new_bytes = None
        applied: tuple = ()
    else:
        with open(path, "rb") as fh:
            encoded = decode_file(fh.read())
        new_bytes = encode_file(text, encoded)
        applied = tuple(a for a in result.applied if _function_at(spans, a.line) not in failed
                        or (_function_at(spans, a.line) in partial and a.applicability is Applicability.SAFE))
    relinted = lint_source(text, path, config)
    remaining = _withheld(relinted.diagnostics, text, failed, report, config.extend_jit_decorators)
    new_result = replace(result, fixed=text, applied=applied, remaining=remaining)
    return replace(outcome, result=new_result, new_bytes=new_bytes), report


def _withheld(diagnostics, text: str, failed: Set[str], report, extra_jit: Sequence[str]) -> tuple:
    """The findings left in ``text``, those in a function whose fix the verifier withheld offering
    that fix as display-only advice that says why: the next ``--fix --verify`` would make and
    withhold the same rewrite, so it is not "available" (the run stays idempotent)."""
    spans = function_spans(text, extra_jit)
    why = {v.qualname: v.verdict for v in report.verdicts}
    out = []
    for d in diagnostics:
        qual = _function_at(spans, d.line)
        if d.fix is not None and d.fix.edits and qual in failed:
            reason = why.get(qual, "")
            note = ("no inputs to verify it with (add EXAMPLES)" if reason == UNVERIFIED
                    else f"the verifier rejected it ({reason})" if reason else "the verifier rejected it")
            d = replace(d, fix=Fix(Applicability.DISPLAY_ONLY, f"{d.fix.title} -- withheld: {note}", ()))
        out.append(d)
    return tuple(out)


def _fix_kinds(applied, spans) -> Dict[str, Set[Applicability]]:
    """The applicabilities of the fixes applied in each function."""
    kinds: Dict[str, Set[Applicability]] = {}
    for fix in applied:
        qual = _function_at(spans, fix.line)
        if qual is not None:
            kinds.setdefault(qual, set()).add(fix.applicability)
    return kinds


def _kept_text(result, passed: Set[str], failed: Set[str], partial: Set[str], kinds: Dict[str, Set[Applicability]],
               path: str, config) -> Tuple[str, Set[str]]:
    """The text to write: the functions that passed as fixed, those in ``partial`` with their SAFE fixes
    alone, the others as they were; and the functions of ``partial`` so changed."""
    from jitlint.fixing import fix_source

    extra = config.extend_jit_decorators
    if not passed and not partial:
        return result.original, set()
    safe = fix_source(result.original, path, config, unsafe=False) if partial else None
    if safe is not None and not any(Applicability.UNSAFE in kinds.get(qual, ()) for qual in passed):
        # no UNSAFE fix is kept: the SAFE fixes alone, with the imports they need (and no other)
        taken = _changed_functions(result.original, safe.fixed, partial, extra)
        text = splice(result.original, safe.fixed, failed - taken, extra)
    else:
        text = splice(result.original, result.fixed, failed, extra)
        taken = set()
        present = set(text.splitlines())
        # function bodies only: when the SAFE fixes need an import that ``text`` lacks, nothing is taken
        if safe is not None and not any(is_import_line(line) and line not in present
                                        for line in safe.fixed.splitlines()):
            taken = _changed_functions(result.original, safe.fixed, partial, extra)
            text = splice(safe.fixed, text, taken, extra) if taken else text
    if not passed and not taken:
        return result.original, set()
    return text, taken


def _changed_functions(original: str, fixed: str, functions: Set[str], extra_jit: Sequence[str]) -> Set[str]:
    """Those of ``functions`` that ``fixed`` changes."""
    spans_o = function_spans(original, extra_jit)
    spans_f = function_spans(fixed, extra_jit)
    return {qual for qual in functions if qual in spans_f and qual in spans_o
            and _body(fixed, spans_f[qual]) != _body(original, spans_o[qual])}


def _body(text: str, span: Tuple[int, int]) -> List[str]:
    return text.splitlines()[span[0] - 1:span[1]]


def _without_inputs(verdict: FunctionVerdict, safe_only: Set[str], partial: Set[str]) -> FunctionVerdict:
    """A verdict without inputs says what becomes of the function's fixes."""
    if verdict.kind != UNVERIFIED:
        return verdict
    if verdict.qualname in safe_only:
        said = "written unverified: its fixes are all safe (they do not change what the code computes)"
    elif verdict.qualname in partial:
        said = "only its safe fixes are written (unverified: they do not change what the code computes); " \
               "an unsafe fix is written once it has verified, which needs inputs"
    else:
        said = "not written: an unsafe fix is written once it has verified, which needs inputs"
    return replace(verdict, details=(said,) + verdict.details)


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
