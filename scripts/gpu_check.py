"""Verify the fix fixtures (``name.in.py`` -> ``name.out.py``) on the default JAX device; see gpu_check.sh.

Prints the device, one verdict line per function with its time, and a summary.
Exit status 0 when every function verified, 1 otherwise.  This driver never
imports jax itself (a parent holding the GPU would starve the children).
"""
from __future__ import annotations

import argparse
import glob
import os
import sys
import time

from jitlint.engine import lint_source
from jitlint.verify import VerifyOptions, verify_module
from jitlint.verify.report import counts, format_text

#: one or two fixtures of each fix family: what fits a few minutes of GPU time
DEFAULT_SET = (
    "branch_grad_clip", "branch_ternary_where", "branch_elif", "branch_in_loop", "branch_logical_ops",
    "fori_euler", "fori_multi_carry", "fori_method", "fori_nested_if",
    "while_newton", "while_value_iteration", "while_collatz", "while_nested_if",
    "print_scan_body", "print_expression_fields", "print_helper",
    "static_shape_param", "static_method_nums", "static_flag_if",
)


def _read(path: str) -> str:
    with open(path, "rb") as fh:
        data = fh.read()
    from jitlint.fixing import decode_file

    return decode_file(data).text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fixtures", default=os.path.join("tests", "fixtures", "fix"))
    parser.add_argument("--all", action="store_true", help="every fixture, not the default set")
    parser.add_argument("--budget", type=float, default=240.0, help="seconds; stop starting fixtures after this")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds per module import and per function")
    parser.add_argument("--device", default=None, help="cpu, gpu or tpu (default: JAX's default backend)")
    parser.add_argument("--no-cross-device", action="store_true", help="do not also compare against the CPU")
    parser.add_argument("names", nargs="*", help="fixture names (default: a set covering every fix family)")
    args = parser.parse_args(argv)
    pairs = sorted(glob.glob(os.path.join(args.fixtures, "*.in.py")))
    names = args.names or (None if args.all else DEFAULT_SET)
    if names is not None:
        pairs = [p for p in pairs if os.path.basename(p)[: -len(".in.py")] in names]
    options = VerifyOptions(device=args.device, cross_device=not args.no_cross_device, timeout=args.timeout)
    print(f"python {sys.version.split()[0]}; {len(pairs)} fixtures; budget {args.budget:g} s", flush=True)
    start = time.monotonic()
    reports = []
    skipped = 0
    for path in pairs:
        if time.monotonic() - start > args.budget:
            skipped += 1
            continue
        out = path[: -len(".in.py")] + ".out.py"
        began = time.monotonic()
        original = _read(path)
        findings = lint_source(original, path).diagnostics  # they locate the rewritten branches
        report = verify_module(path, original, _read(out), findings, options=options, include_findings=False)
        reports.append(report)
        if len(reports) == 1:
            print(f"device: {report.device}", flush=True)
        for v in report.verdicts:
            print(f"{time.monotonic() - began:6.2f} s  {os.path.basename(path)}  {v.qualname}: {v.verdict}"
                  + (f" -- {v.summary}" if v.summary else ""), flush=True)
            cross = [d for d in v.details if d.startswith("cross-device")]
            if cross:
                print(f"          {cross[0]}", flush=True)
    device = next((r.device for r in reports if r.device), None)
    print("\n" + format_text(reports, device, timings=True))
    n = counts(reports)
    print(f"total {time.monotonic() - start:.1f} s" + (f"; {skipped} fixtures not run (budget)" if skipped else ""))
    return 0 if sum(n.values()) == n["verified"] and not skipped else 1


if __name__ == "__main__":
    raise SystemExit(main())
