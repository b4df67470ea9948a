"""Verify one module: plan the targets, run them in a child interpreter, judge the results.

:func:`verify_module` takes the original and the fixed text of a module (or
only the original, to verify the functions with findings as they are) and
returns a :class:`~jitlint.verify.report.FileReport`.  Nothing here imports
jax or user code; the child does (:mod:`jitlint.verify.runner`).
"""
from __future__ import annotations

import os
import time
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from jitlint.diagnostics import Diagnostic
from jitlint.verify.options import VerifyOptions
from jitlint.verify.report import FileReport, FunctionVerdict, judge
from jitlint.verify.sandbox import child_environment, describe_exit, run_child
from jitlint.verify.targets import Target, function_spans, module_location, plan_targets


def _import_failure(event: dict) -> str:
    error = event.get("error") or {}
    variant = event.get("variant", "original")
    if event.get("what") == "inputs":
        return f"reading the example inputs failed: {error.get('type')}: {error.get('message')}"
    if error.get("type") == "SystemExit":
        return f"the {variant} module calls {error.get('message')} when imported"
    where = f" (line {error['lines'][-1]})" if error.get("lines") else ""
    return f"importing the {variant} module failed: {error.get('type')}: {error.get('message')}{where}"


def run_targets(path: str, original: str, fixed: Optional[str], targets: Sequence[Target],
                options: VerifyOptions):
    """Run every target, in as many children as it takes.

    Returns (results, failures, device name, seconds, last output line of a child that died),
    the dictionaries by target index.
    """
    name, root = module_location(path)
    job = {
        "module": {"path": os.path.abspath(path), "name": name, "sys_path": [root, os.getcwd()],
                   "original": original, "fixed": fixed},
        "targets": [t.to_json() for t in targets],
        "options": options.to_json(),
    }
    env = child_environment(options.device, options.cross_device)
    results: Dict[int, dict] = {}
    failures: Dict[int, str] = {}
    seconds: Dict[int, float] = {}
    outputs: Dict[int, str] = {}
    device: Optional[str] = None
    pending = set(range(len(targets)))
    while pending:
        job["skip"] = sorted(set(range(len(targets))) - pending)
        outcome = run_child(job, options.timeout, options.memory_mb, options.output_tail, env=env,
                            python=options.python)
        current: Optional[int] = None
        finished = False
        fatal: Optional[str] = None
        for event in outcome.events:
            kind = event.get("event")
            if kind == "ready":
                if not event.get("ok"):
                    for i in pending:
                        failures[i] = event.get("error", "no device")
                    return results, failures, device, seconds, outputs
                device = event.get("device")
            elif kind == "import" and not event.get("ok"):
                reason = _import_failure(event)
                for i in pending:
                    failures[i] = reason
                return results, failures, device, seconds, outputs
            elif kind == "start":
                current = event["target"]
            elif kind == "result":
                i = event["target"]
                results[i] = event["data"]
                seconds[i] = float(event["data"].get("seconds", 0.0))
                pending.discard(i)
                current = None
            elif kind == "done":
                finished = True
            elif kind == "fatal":
                fatal = event.get("error")
        if finished:
            for i in pending:
                failures[i] = "the verifier skipped it"
            break
        reason = outcome.stopped or (f"the verifier failed: {fatal}" if fatal else
                                     f"the subprocess {describe_exit(outcome.returncode)}")
        last = outcome.output_tail.strip().splitlines()[-1][-200:] if outcome.output_tail.strip() else ""
        if last:
            outputs[current if current is not None else -1] = last
        if current is None:
            # it never got to a function: the import (or starting jax) is what failed
            for i in pending:
                failures[i] = reason + (" while importing the module" if device is not None else
                                        " while starting")
                if -1 in outputs:
                    outputs[i] = outputs[-1]
            break
        failures[current] = reason
        seconds[current] = options.timeout if outcome.stopped and "timed out" in outcome.stopped else 0.0
        pending.discard(current)
    return results, failures, device, seconds, outputs


def verify_module(path: str, original: str, fixed: Optional[str] = None, diagnostics: Iterable[Diagnostic] = (),
                  fix_titles: Iterable[Tuple[int, str]] = (), options: Optional[VerifyOptions] = None,
                  extra_jit: Sequence[str] = (), include_findings: bool = True,
                  only: Optional[Set[str]] = None) -> FileReport:
    """Verify the functions that ``fixed`` rewrites (and, with ``include_findings``, those with findings).

    ``only`` limits the targets to these qualified names.
    """
    from jitlint.engine import SourceError

    options = options or VerifyOptions()
    start = time.monotonic()
    try:
        targets = plan_targets(original, fixed, diagnostics, fix_titles, extra_jit, options.default_shape,
                               include_findings)
    except SourceError as exc:
        return FileReport(path, note=f"cannot verify: line {exc.line}: {exc.message}", failed=True)
    if only is not None:
        targets = [t for t in targets if t.qualname in only]
    report = FileReport(path)
    if not targets:
        report.note = "nothing to verify"
        return report
    runnable = [t for t in targets if not t.missing_in_fixed]
    results, failures, device, seconds, outputs = run_targets(path, original, fixed, runnable, options) \
        if runnable else ({}, {}, None, {}, {})
    report.device = device
    index = {id(t): i for i, t in enumerate(runnable)}
    verdicts: List[FunctionVerdict] = []
    for t in targets:
        i = index.get(id(t))
        if i is None:
            verdicts.append(judge(path, t, None))
        elif i in failures:
            verdicts.append(judge(path, t, None, failures[i], seconds.get(i, 0.0), outputs.get(i)))
        else:
            verdicts.append(judge(path, t, results.get(i), None, seconds.get(i, 0.0)))
    report.verdicts = verdicts
    report.seconds = round(time.monotonic() - start, 3)
    return report


# ---------------------------------------------------------------- partial fixes
def splice(original: str, fixed: str, revert: Iterable[str], extra_jit: Sequence[str] = ()) -> str:
    """``fixed`` with the functions named in ``revert`` put back as they are in ``original``."""
    spans_o = function_spans(original, extra_jit)
    spans_f = function_spans(fixed, extra_jit)
    lines_o = original.splitlines(keepends=True)
    lines_f = fixed.splitlines(keepends=True)
    chosen = sorted(((spans_f[q], spans_o[q]) for q in set(revert) if q in spans_f and q in spans_o),
                    key=lambda pair: pair[0][0], reverse=True)
    covered: List[Tuple[int, int]] = []
    # outermost spans win: a reverted function brings its nested ones back with it
    by_size = sorted(chosen, key=lambda pair: pair[0][1] - pair[0][0], reverse=True)
    keep = []
    for span_f, span_o in by_size:
        if any(s <= span_f[0] and span_f[1] <= e for s, e in covered):
            continue
        covered.append(span_f)
        keep.append((span_f, span_o))
    for (fs, fe), (os_, oe) in sorted(keep, key=lambda pair: pair[0][0], reverse=True):
        lines_f[fs - 1:fe] = lines_o[os_ - 1:oe]
    return "".join(lines_f)
