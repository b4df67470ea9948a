"""Verdicts: what the subprocess observed, judged and put in words (parent side).

One verdict per function:

* ``verified`` -- on every input, the fixed version under ``jax.jit`` gave the
  original's eager result (same tree, shapes, dtypes, values within the
  tolerances of the dtype), compiled once for repeated calls, and
  ``jax.make_jaxpr`` of it succeeded;
* ``mismatch`` -- some input gave a different result (the worst leaf, its
  errors and the input are reported);
* ``fails to trace`` -- the fixed version raised under jit, or make_jaxpr failed;
* ``recompiles`` -- the fixed version traced again for a repeated call with
  the same input;
* ``unverified: no inputs`` -- nothing to call it with (or the original failed
  eagerly on every input it was given); never counted as a pass;
* ``no fix`` -- a function with a finding that no fix rewrites (``jitlint
  verify``): what the code as it is does under jit is reported, and whether
  that confirms the finding;
* ``error: ...`` -- the module could not be run: it timed out, crashed, called
  ``sys.exit``, used too much memory, or failed to import.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from jitlint.verify.targets import Finding, Target

VERIFIED = "verified"
MISMATCH = "mismatch"
FAILS_TO_TRACE = "fails to trace"
RECOMPILES = "recompiles"
UNVERIFIED = "unverified: no inputs"
NO_FIX = "no fix"
ERROR = "error"

#: the ways to give a function inputs, said wherever it had none
INPUTS_HINT = ("give it inputs: an `EXAMPLES = {'function': [(args, kwargs), ...]}` dict in the module, "
               "`--examples FILE.py` (a file defining EXAMPLES), or calls recorded from your tests "
               "(`pytest -p jitlint.record --jitlint-record=calls.pkl`, then `--calls calls.pkl`)")

#: how the verifier called the function, by the target's mode
MODES = {
    "jitted": "jitted by the module",
    "wrap": "wrapped in jax.jit by the verifier",
    "as_is": "run as the module defines it (its own jit and lax calls trace it)",
}


@dataclass(frozen=True)
class Confirmation:
    finding: Finding
    confirmed: bool
    detail: str

    def to_json(self) -> dict:
        return {**self.finding.to_json(), "confirmed": self.confirmed, "detail": self.detail}


@dataclass(frozen=True)
class FunctionVerdict:
    path: str
    qualname: str
    line: int
    rewritten: bool
    verdict: str
    #: the rest of the verdict line: "2 inputs (EXAMPLES), branches 2/2 sides"
    summary: str = ""
    details: Tuple[str, ...] = ()
    confirmations: Tuple[Confirmation, ...] = ()
    seconds: float = 0.0
    raw: Dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def kind(self) -> str:
        """The verdict without its detail: ``error`` for every ``error: ...``."""
        return ERROR if self.verdict.startswith(ERROR) else self.verdict

    @property
    def ok(self) -> bool:
        return self.verdict == VERIFIED

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "function": self.qualname,
            "line": self.line,
            "rewritten": self.rewritten,
            "verdict": self.verdict,
            "summary": self.summary,
            "details": list(self.details),
            "findings": [c.to_json() for c in self.confirmations],
            "seconds": self.seconds,
            "inputs": self.raw.get("inputs", 0),
            "generated": self.raw.get("generated", 0),
            "input_source": self.raw.get("input_source"),
            "coverage": self.raw.get("coverage", []),
            "branches_both_sides": both_sides(self.raw.get("coverage", [])),
            "derived_inputs": (self.raw.get("derived") or {}).get("calls"),
            "traces": self.raw.get("traces"),
            "trace_counts": trace_counts(self.raw.get("traces")),
            "jaxpr": self.raw.get("jaxpr"),
            "cross_check": self.raw.get("cross_device"),
            "worst": _worst(self.raw),
        }


@dataclass
class FileReport:
    path: str
    device: Optional[str] = None
    verdicts: List[FunctionVerdict] = field(default_factory=list)
    #: why the file has no verdicts (nothing to verify, a parse error)
    note: Optional[str] = None
    seconds: float = 0.0
    #: the note is an error: the file could not be read or verified
    failed: bool = False


# ---------------------------------------------------------------- judging
def _num(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("inf")


def _fmt(x: Any) -> str:
    v = _num(x)
    return f"{v:.3g}" if v != float("inf") else str(x)


def _worst(raw: Dict[str, Any]) -> Optional[dict]:
    """The comparison furthest from its tolerance (a structural difference counts as infinitely far)."""
    done = [c for c in raw.get("comparisons", []) if "max_abs" in c or not c.get("ok")]
    if not done:
        return None
    return max(done, key=lambda c: (not c.get("ok"), _num(c.get("ratio", 0.0)), _num(c.get("max_abs", 0.0))))


def _error_text(error: Optional[dict], fixed: bool = False) -> str:
    if not error:
        return "unknown error"
    where = ""
    if error.get("lines"):
        where = f" (line {error['lines'][-1]}" + (" of the fixed version)" if fixed else ")")
    message = f": {error['message']}" if error.get("message") else ""
    return f"{error.get('type', 'error')}{message}{where}"


def both_sides(coverage: Sequence[dict]) -> Dict[str, int]:
    """How many of the rewritten branches (those measured) saw both of their sides."""
    measured = [site for site in coverage if site.get("found", True)]
    return {"branches": len(measured), "both_sides": sum(1 for site in measured if site["true"] and site["false"])}


def coverage_text(coverage: Sequence[dict]) -> Tuple[str, List[str]]:
    """("branches 3/4 sides", one line per branch)."""
    if not coverage:
        return "", []
    sides = taken = 0
    lines: List[str] = []
    for site in coverage:
        if not site.get("found", True):
            lines.append(f"branch line {site['line']} `{site['kind']}` -> {site['rewrite']}: not measured")
            continue
        names = ("true", "false") if site["kind"] != "while" else ("entered", "exited")
        counts = (site["true"], site["false"])
        sides += 2
        taken += sum(1 for n in counts if n)
        never = [name for name, n in zip(names, counts) if not n]
        text = f"branch line {site['line']} `{site['kind']}` -> {site['rewrite']}: " \
               f"{names[0]} {counts[0]}, {names[1]} {counts[1]}"
        if never:
            text += f" ({' and '.join(never)} side never taken)"
        lines.append(text)
    return (f"branches {taken}/{sides} sides" if sides else ""), lines


def _inputs_text(raw: Dict[str, Any]) -> str:
    n, generated = raw.get("inputs", 0), raw.get("generated", 0)
    text = f"{n} input{'s' if n != 1 else ''}"
    if raw.get("input_source"):
        text += f" ({raw['input_source']})"
    if generated:
        text += f" + {generated} generated"
    return text


def confirm(findings: Sequence[Finding], raw: Dict[str, Any], rewritten: bool) -> List[Confirmation]:
    """Match what the original did under jit against each finding."""
    obs = raw.get("observations") or {}
    out: List[Confirmation] = []
    if not obs:
        why = "not run: no inputs" if not raw.get("inputs") else "not observed"
        return [Confirmation(f, False, why) for f in findings]
    error = obs.get("jit_error")
    for f in findings:
        out.append(_confirm_one(f, obs, error))
    return out


def _confirm_one(f: Finding, obs: Dict[str, Any], error: Optional[dict]) -> Confirmation:
    repeats = obs.get("repeats", 3)
    if error is not None:
        lines = error.get("lines") or []
        if f.line in lines:
            return Confirmation(f, True, f"the original raises {error['type']} at line {f.line} under jit")
        where = f" at line {lines[-1]}" if lines else ""
        if f.code == "JIT103" and obs.get("jit_prints_tracer"):
            return Confirmation(f, True, f"prints a tracer at trace time (then raises {error['type']}{where})")
        for name, st in (obs.get("state") or {}).items():
            if f.code == "JIT102" and name == f.subject and st.get("after_jit") == "tracer":
                return Confirmation(f, True, f"global `{name}` holds a leaked tracer after the jitted calls")
        if lines and lines[-1] < f.line:
            return Confirmation(f, False, f"not reached: under jit the original stops earlier, with "
                                          f"{error['type']}{where}")
        return Confirmation(f, False, f"not observable: under jit the original raises {error['type']}{where}")
    if f.code == "JIT103":
        eager_n, jit_n = obs.get("eager_stdout_lines", 0), obs.get("jit_stdout_lines", 0)
        if obs.get("jit_prints_tracer") or jit_n < eager_n:
            tracer = ", printing a tracer" if obs.get("jit_prints_tracer") else ""
            return Confirmation(f, True, f"prints at trace time only: {jit_n} line(s) for {repeats} jitted calls, "
                                         f"{eager_n} eagerly{tracer}")
    if f.code == "JIT104":
        # what the finding's own line wrote or logged: another statement's output is not its evidence
        # (a random draw next to a log line is not confirmed by the log's count)
        at = str(f.line)
        for what, key in (("writes", "written_at"), ("logs", "logged_at")):
            eager_n = (obs.get("eager_" + key) or {}).get(at, 0)
            jit_n = (obs.get("jit_" + key) or {}).get(at, 0)
            if jit_n < eager_n:
                return Confirmation(f, True, f"{what} at trace time only: line {f.line} made {jit_n} for "
                                             f"{repeats} jitted calls, {eager_n} eagerly")
        if obs.get("eager_varies") and obs.get("jit_constant"):
            return Confirmation(f, True, f"the jitted result is frozen: the same for {repeats} calls, "
                                         "while eager results differ")
    if f.code == "JIT101":
        for name, seen in (obs.get("frozen") or {}).items():
            if name == f.subject and seen.get("changed") and seen.get("eager_moved") and not seen.get("jit_moved"):
                return Confirmation(f, True, f"global `{name}` is frozen at trace time: changing it changes the "
                                             "eager result, not the jitted one")
    if f.code == "JIT102":
        for name, st in (obs.get("state") or {}).items():
            if name != f.subject:
                continue
            if st.get("after_jit") == "tracer":
                return Confirmation(f, True, f"global `{name}` holds a leaked tracer after the jitted calls")
            delta_e = _delta(st.get("before"), st.get("after_eager"))
            delta_j = _delta(st.get("after_eager"), st.get("after_jit"))
            if delta_e is not None and delta_j is not None and delta_e != delta_j:
                return Confirmation(f, True, f"global `{name}` changed by {delta_j} over {repeats} jitted calls, "
                                             f"by {delta_e} eagerly")
    if f.code == "JIT501":
        compiles = obs.get("compiles") or []
        if len(compiles) > 1 and sum(compiles[1:]) > 0:
            return Confirmation(f, True, f"recompiles on repeated calls: {compiles} compilations per call")
    differs = obs.get("jit_differs")
    if differs:
        what = differs.get("detail") or _fmt(differs.get("max_abs"))
        return Confirmation(f, True, f"the jitted original differs from eager at {differs.get('leaf') or 'the result'}"
                                     f" ({differs.get('problem')}: {what})")
    return Confirmation(f, False, f"not observed: the jitted original agrees with eager over {repeats} calls")


def _delta(a: Any, b: Any) -> Any:
    if isinstance(a, dict) and isinstance(b, dict) and "len" in a and "len" in b:
        return b["len"] - a["len"]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return b - a
    return None


def judge(path: str, target: Target, raw: Optional[Dict[str, Any]], failure: Optional[str] = None,
          seconds: float = 0.0, last_output: Optional[str] = None) -> FunctionVerdict:
    """The verdict of one function from the subprocess's result (or the reason there is none)."""
    def make(verdict: str, summary: str = "", details: Sequence[str] = (),
             confirmations: Sequence[Confirmation] = ()) -> FunctionVerdict:
        return FunctionVerdict(path, target.qualname, target.line, target.rewritten, verdict, summary,
                               tuple(details), tuple(confirmations), round(seconds, 3), raw or {})

    if failure is not None:
        return make(f"{ERROR}: {failure}", details=[f"its last output: {last_output}"] if last_output else [])
    if target.missing_in_fixed:
        return make(f"{ERROR}: the fixed version has no function `{target.qualname}`")
    assert raw is not None
    if raw.get("internal_error"):
        return make(f"{ERROR}: internal error in the verifier: {_error_text(raw['internal_error'])}",
                    details=[raw.get("traceback", "")[-400:]])
    details: List[str] = []
    if raw.get("callable"):
        how = "called through" if raw["callable"] != target.qualname else "called as"
        static = raw.get("static") or [[], []]
        named = [f"args[{i}]" for i in static[0]] + list(static[1])
        details.append(f"{how} `{raw['callable']}`, {MODES.get(raw.get('mode'), raw.get('mode'))}"
                       + (f", static: {', '.join(named)}" if named else ""))
    details.extend(raw.get("notes", []))
    derived = raw.get("derived")
    if derived and derived.get("kept"):
        rejected = f"; {derived['rejected']} other(s) tried fail eagerly" if derived.get("rejected") else ""
        if derived.get("unfit"):
            rejected += f"; {derived['unfit']} other(s) fail under jit in the original for another reason than " \
                        "a tracer error"
        details.append(f"inputs derived from how it uses its parameters ({derived['kept']} kept{rejected}): "
                       + "; ".join(derived.get("calls", [])))
    for failure_ in raw.get("eager_failures", []):
        details.append(f"input {failure_['input']} skipped: the original fails eagerly: "
                       f"{_error_text(failure_['error'])}")
    cover_summary, cover_lines = coverage_text(raw.get("coverage", []))
    details.extend(cover_lines)
    confirmations = confirm(target.findings, raw, target.rewritten)
    if raw.get("callable") is None:
        tried = ", ".join(raw.get("tried", [])) or target.qualname
        return make(UNVERIFIED, f"tried {tried}", details + [INPUTS_HINT], confirmations)
    if not raw.get("inputs") and not raw.get("generated"):
        n = len(raw.get("eager_failures", []))
        return make(UNVERIFIED, f"the original fails eagerly on all {n} input{'s' if n != 1 else ''}",
                    details + [INPUTS_HINT], confirmations)
    verdict = _outcome(target, raw, details, cover_summary)
    if target.rewritten:
        return make(verdict[0], verdict[1], details, confirmations)
    # no fix: the verdict describes the code as it is
    said = {VERIFIED: "runs and matches eager", MISMATCH: "differs from eager", FAILS_TO_TRACE: "fails",
            RECOMPILES: "recompiles"}[verdict[0]]
    return make(NO_FIX, f"as it is, under jit it {said}: {verdict[1]}", details, confirmations)


def _outcome(target: Target, raw: Dict[str, Any], details: List[str], cover_summary: str) -> Tuple[str, str]:
    """(verdict, summary) of a function that ran; adds to ``details``."""
    inputs = _inputs_text(raw)
    summary_parts = [inputs] + ([cover_summary] if cover_summary else [])
    if raw.get("fixed_error"):
        err = raw["fixed_error"]
        fixed = target.rewritten
        return FAILS_TO_TRACE, f"{_error_text(err, fixed)} on input {err.get('input')} {err.get('call', '')}"
    worst = _worst(raw)
    if worst is not None and not worst.get("ok"):
        c = worst
        what = c.get("problem")
        leaf = c.get("leaf") or "the result"
        if what == "values":
            text = f"worst leaf {leaf}: max abs error {_fmt(c.get('max_abs'))}, max rel error " \
                   f"{_fmt(c.get('max_rel'))} on input {c['input']} {c['call']}"
        else:
            text = f"{what} differs at {leaf}: {c.get('detail', '')} on input {c['input']} {c['call']}"
        if c.get("detail") and what == "values":
            details.insert(0, c["detail"])
        return MISMATCH, text
    jaxpr = raw.get("jaxpr") or {}
    if jaxpr and not jaxpr.get("ok"):
        return FAILS_TO_TRACE, f"jax.make_jaxpr fails: {_error_text(jaxpr.get('error'), target.rewritten)}"
    traces = raw.get("traces") or {}
    if traces.get("error"):
        return FAILS_TO_TRACE, _error_text(traces["error"], target.rewritten)
    counts = trace_counts(traces) or {}
    if (counts.get("traces") or 0) > (counts.get("signatures") or 0):
        return RECOMPILES, f"traced {counts['traces']} times for {counts['inputs']} inputs of " \
                           f"{counts['signatures']} shape signature(s); " + ", ".join(summary_parts)
    if counts.get("retraces") or counts.get("recompiles"):
        what = f"{counts['retraces']} more trace(s)" if counts.get("retraces") else \
            f"{counts['recompiles']} more compilation(s)"
        return RECOMPILES, f"{what} over {counts.get('repeated_calls')} calls with the same input; " \
            + ", ".join(summary_parts)
    if counts:
        details.append(trace_text(counts) + (f"; make_jaxpr ok ({jaxpr.get('equations')} equations)"
                                             if jaxpr.get("ok") else ""))
    if worst is not None and "max_abs" in worst:
        if _num(worst.get("max_abs")) == 0:
            details.append("results identical on every input")
        else:
            details.append(f"largest difference {_fmt(worst.get('max_abs'))} (abs) at "
                           f"{worst.get('leaf') or 'the result'}")
    cross = raw.get("cross_device")
    if cross:
        details.append(_cross_text(cross))
        if not cross.get("skipped") and not cross.get("ok"):
            return MISMATCH, _cross_text(cross)
    return VERIFIED, ", ".join(summary_parts)


def trace_counts(traces: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """How often the fixed version was traced: the one account that the JSON report gives and the text
    report puts in words (:func:`trace_text`).  None when nothing was counted.

    ``traces``: traces of all the inputs (None where the wrapper cannot tell), one per ``signatures``
    (shapes, dtypes and static values) when nothing recompiles; ``first_input``: traces of the first
    input; ``retraces`` and ``recompiles``: more of them over ``repeated_calls`` calls with the first input.
    """
    if not traces:
        return None
    return {"inputs": traces.get("inputs"), "signatures": traces.get("signatures"),
            "traces": traces.get("input_traces"), "first_input": traces.get("traces_first"),
            "repeated_calls": traces.get("calls"), "retraces": traces.get("retraces"),
            "recompiles": traces.get("recompiles")}


def _plural(n: Any, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def trace_text(counts: Dict[str, Any]) -> str:
    """:func:`trace_counts` in words: "2 traces for 2 inputs (2 signatures), none more for 3 calls ..."."""
    if counts.get("traces") is not None:
        known = ", traced before" if counts["traces"] == 0 else ""  # by an earlier target calling it
        text = f"{_plural(counts['traces'], 'trace')} for {_plural(counts.get('inputs'), 'input')} " \
               f"({_plural(counts.get('signatures'), 'signature')}{known})"
    elif counts.get("first_input") is not None:
        text = f"{_plural(counts['first_input'], 'trace')} for the first input"
    else:
        text = "traces not counted"
    more = counts.get("retraces") if counts.get("retraces") is not None else counts.get("recompiles")
    return text + (f", {'none' if not more else more} more for {counts.get('repeated_calls')} calls with the same "
                   "input")


def _cross_text(cross: Dict[str, Any]) -> str:
    """``--cross-check cpu`` in words: where it ran, and the largest difference between the devices."""
    if cross.get("skipped"):
        return f"cross-check: skipped ({cross['skipped']})"
    if cross.get("error"):
        err = cross["error"]
        return f"cross-check: {err.get('where', 'a run')} fails on input {err.get('input')}: {_error_text(err)}"
    where = f"{cross.get('cpu')}" + (" (the same device)" if cross.get("same_device") else "")
    scale = _num(cross.get("tolerance_scale", 1.0))
    tol = f", tolerances x{scale:g}" if scale != 1.0 else ""
    text = f"cross-check on {where} against {cross.get('device')}, {_plural(cross.get('inputs'), 'input')}: "
    if not cross.get("cpu_equivalent", True):
        w = cross.get("cpu_worst") or {}
        return text + f"on the CPU the fixed version DIFFERS from the original at {w.get('leaf') or 'the result'} " \
                      f"(max abs {_fmt(w.get('max_abs'))}, max rel {_fmt(w.get('max_rel'))}) on input {w.get('input')}"
    state = "agree" if cross.get("ok") else "DIFFER beyond tolerance"
    worst = cross.get("worst") or {}
    text += f"the devices {state}{tol}; largest difference {_fmt(cross.get('max_abs', 0.0))} abs, " \
            f"{_fmt(cross.get('max_rel', 0.0))} rel"
    if not cross.get("ok"):
        text += f" (at {worst.get('leaf') or 'the result'} on input {worst.get('input')})"
    return text


# ---------------------------------------------------------------- rendering
def counts(reports: Sequence[FileReport]) -> Dict[str, int]:
    out = {VERIFIED: 0, MISMATCH: 0, FAILS_TO_TRACE: 0, RECOMPILES: 0, UNVERIFIED: 0, NO_FIX: 0, ERROR: 0}
    for report in reports:
        for v in report.verdicts:
            out[v.kind] = out.get(v.kind, 0) + 1
    return out


def format_text(reports: Sequence[FileReport], device: Optional[str], timings: bool = True) -> str:
    lines: List[str] = []
    if device:
        lines.append(f"device: {device}")
    for report in reports:
        if not report.verdicts and not report.note:
            continue
        lines.append(report.path + (f"  ({report.note})" if report.note else ""))
        for v in report.verdicts:
            head = f"  {v.qualname} (line {v.line}): {v.verdict}"
            if v.summary:
                head += f" -- {v.summary}"
            if timings and v.seconds:
                head += f"  [{v.seconds:.2f} s]"
            lines.append(head)
            for d in v.details:
                if d:
                    lines.append(f"      {d}")
            for c in v.confirmations:
                state = "confirmed" if c.confirmed else "not confirmed"
                lines.append(f"      {c.finding.code} line {c.finding.line} {state}: {c.detail}")
    n = counts(reports)
    total = sum(n.values())
    lines.append(f"{total} function{'s' if total != 1 else ''} verified or checked: " + (", ".join(
        f"{count} {name}" for name, count in n.items() if count) or "nothing to verify"))
    return "\n".join(lines) + "\n"


def format_json(reports: Sequence[FileReport], device: Optional[str]) -> str:
    data = {
        "device": device,
        "functions": [v.to_json() for r in reports for v in r.verdicts],
        "files": [{"path": r.path, "note": r.note, "seconds": r.seconds} for r in reports],
        "counts": counts(reports),
    }
    return json.dumps(data, indent=2, default=str) + "\n"
