"""The `jitlint` command line."""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Iterator, List, Optional, Sequence, TextIO

from jitlint import __version__
from jitlint.config import Config, ConfigError, find_config, load_file
from jitlint.diagnostics import Diagnostic, FileError, FileResult
from jitlint.engine import lint_bytes
from jitlint.registry import RULES_BY_CODE, known_code

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
COMMANDS = ("check", "rule", "rules")


class UsageError(Exception):
    pass


def _codes(value: str) -> List[str]:
    out = [c.strip().upper() for c in value.split(",") if c.strip()]
    for code in out:
        if not known_code(code):
            raise argparse.ArgumentTypeError(f"unknown rule code or prefix: {code}")
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="jitlint", description="Find JAX JIT-safety hazards before the code runs.")
    parser.add_argument("--version", action="version", version=f"jitlint {__version__}")
    sub = parser.add_subparsers(dest="command")
    check = sub.add_parser("check", help="lint files and folders (the default command)")
    check.add_argument("paths", nargs="*", default=["."], help="files or folders; `-` reads stdin")
    check.add_argument("--select", type=_codes, action="append", help="codes or prefixes to report (e.g. JIT2)")
    check.add_argument("--ignore", type=_codes, action="append", help="codes or prefixes to skip")
    check.add_argument("--extend-select", type=_codes, action="append", help="codes to add to the selection")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument("--exclude", action="append", help="glob patterns of paths to skip (replaces the defaults)")
    check.add_argument("--extend-exclude", action="append", help="glob patterns to skip in addition")
    check.add_argument("--extend-jit-decorators", action="append",
                       help="qualified names of extra jit-like wrappers, e.g. mylib.compiled")
    check.add_argument("--stdin-filename", help="the path to report for source read from stdin")
    check.add_argument("--config", help="read options from this pyproject.toml / setup.cfg")
    check.add_argument("--isolated", action="store_true", help="ignore configuration files")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument("--no-reason", action="store_true", help="text format: leave out the reason chains")
    check.add_argument("--output-file", help="write the report here instead of stdout")
    rule = sub.add_parser("rule", help="print the documentation of a rule")
    rule.add_argument("code")
    sub.add_parser("rules", help="list all rules")
    return parser


def _flatten(values) -> Optional[List[str]]:
    if values is None:
        return None
    return [v for group in values for v in group]


def resolve_config(args: argparse.Namespace) -> Config:
    if args.isolated:
        config = Config()
    elif args.config:
        loaded = load_file(args.config)
        config = loaded if loaded is not None else Config()
    else:
        first = next((p for p in args.paths if p != "-"), ".")
        config = find_config(first if os.path.exists(first) else ".")
    select = _flatten(args.select)
    if select is not None:
        config = config.merged(select=tuple(select))
    extend = _flatten(args.extend_select)
    if extend:
        base = config.select if config.select is not None else tuple(
            c for c, r in RULES_BY_CODE.items() if r.default_enabled)
        config = config.merged(select=tuple(base) + tuple(extend))
    ignore = _flatten(args.ignore)
    if ignore:
        config = config.merged(ignore=config.ignore + tuple(ignore))
    if args.exclude:
        config = config.merged(exclude=tuple(p for v in args.exclude for p in v.split(",") if p))
    if args.extend_exclude:
        config = config.merged(extend_exclude=config.extend_exclude + tuple(
            p for v in args.extend_exclude for p in v.split(",") if p))
    if args.extend_jit_decorators:
        config = config.merged(extend_jit_decorators=config.extend_jit_decorators + tuple(
            p.strip() for v in args.extend_jit_decorators for p in v.split(",") if p.strip()))
    return config


def iter_files(paths: Sequence[str], config: Config) -> Iterator[str]:
    """Python files under ``paths`` (sorted, excluded folders skipped, each file once)."""
    seen = set()
    for path in paths:
        if path == "-":
            yield path
            continue
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not config.is_excluded(os.path.join(root, d)))
                for name in sorted(files):
                    full = os.path.join(root, name)
                    if name.endswith((".py", ".pyi")) and not config.is_excluded(full):
                        real = os.path.realpath(full)
                        if real not in seen:
                            seen.add(real)
                            yield full
        else:
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                yield path


def lint_path(path: str, config: Config, stdin_name: Optional[str]) -> FileResult:
    display = path
    try:
        if path == "-":
            display = stdin_name or "-"
            data = sys.stdin.buffer.read()
        elif os.path.isdir(path):
            return FileResult(path, error=FileError(path, 1, 1, "is a directory"))
        else:
            with open(path, "rb") as fh:
                data = fh.read()
    except FileNotFoundError:
        return FileResult(path, error=FileError(path, 1, 1, "no such file"))
    except OSError as exc:
        return FileResult(path, error=FileError(path, 1, 1, f"cannot read: {exc.strerror or exc}"))
    try:
        return lint_bytes(data, display, config)
    except Exception as exc:  # noqa: BLE001 - an internal error must not stop the run
        return FileResult(display, error=FileError(display, 1, 1, f"internal error: {type(exc).__name__}: {exc}"))


def _caret_block(diag: Diagnostic, source_lines: Optional[List[str]]) -> List[str]:
    if not source_lines or not (0 < diag.line <= len(source_lines)):
        return []
    text = source_lines[diag.line - 1].rstrip("\r\n").replace("\t", " ")
    width = len(str(diag.line))
    start = diag.column - 1
    end = diag.end_column - 1 if diag.end_line == diag.line else len(text)
    carets = "^" * max(1, end - start)
    return [f" {diag.line} | {text}", f" {' ' * width} | {' ' * start}{carets}"]


def format_text(results: Sequence[FileResult], with_reason: bool) -> str:
    out: List[str] = []
    for result in results:
        lines_cache: Optional[List[str]] = None
        for diag in result.diagnostics:
            out.append(f"{diag.path}:{diag.line}:{diag.column}: {diag.code} {diag.message}")
            if with_reason:
                if lines_cache is None:
                    try:
                        with open(result.path, "rb") as fh:
                            lines_cache = fh.read().decode("utf-8", "replace").splitlines()
                    except OSError:
                        lines_cache = []
                out.extend(_caret_block(diag, lines_cache))
                for i, link in enumerate(diag.reason):
                    out.append(f"   = {'why' if i == 0 else '   '}: {link}")
    return "\n".join(out) + ("\n" if out else "")


def _write(text: str, output_file: Optional[str], stream: TextIO) -> None:
    if output_file:
        with open(output_file, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        stream.write(text)


def run_check(args: argparse.Namespace) -> int:
    config = resolve_config(args)
    if args.paths.count("-") > 1:
        raise UsageError("`-` (stdin) can be given once")
    results = [lint_path(p, config, args.stdin_filename) for p in iter_files(args.paths, config)]
    diagnostics = [d for r in results for d in r.diagnostics]
    errors = [r.error for r in results if r.error is not None]
    for err in errors:
        sys.stderr.write(f"{err.path}:{err.line}:{err.column}: error: {err.message}\n")
    if args.format == "json":
        _write(json.dumps([d.to_json() for d in diagnostics], indent=2) + "\n", args.output_file, sys.stdout)
    else:
        text = format_text(results, with_reason=not args.no_reason)
        if not args.quiet:
            n = len(diagnostics)
            if n:
                text += f"Found {n} finding{'s' if n != 1 else ''} in {len({d.path for d in diagnostics})} " \
                        f"file{'s' if len({d.path for d in diagnostics}) != 1 else ''}.\n"
            elif not errors:
                text += "All checks passed.\n"
        _write(text, args.output_file, sys.stdout)
    if errors or diagnostics:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def run_rule(code: str) -> int:
    rule = RULES_BY_CODE.get(code.strip().upper())
    if rule is None:
        raise UsageError(f"unknown rule: {code}")
    import inspect

    doc = inspect.cleandoc(rule.__doc__ or "")
    sys.stdout.write(f"# {rule.code} ({rule.name})\n\n{doc}\n")
    return EXIT_CLEAN


def run_rules() -> int:
    for code, rule in sorted(RULES_BY_CODE.items()):
        fix = "fix" if rule.fix_title else "-"
        sys.stdout.write(f"{code}  {rule.name:40} {fix:4} {'on' if rule.default_enabled else 'off'}\n")
    return EXIT_CLEAN


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--explain" in argv:
        i = argv.index("--explain")
        if i + 1 < len(argv):
            argv = ["rule", argv[i + 1]]
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help", "--version")):
        argv = ["check", *argv]
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return EXIT_CLEAN if exc.code == 0 else EXIT_ERROR
    try:
        if args.command == "rule":
            return run_rule(args.code)
        if args.command == "rules":
            return run_rules()
        return run_check(args)
    except (UsageError, ConfigError) as exc:
        sys.stderr.write(f"jitlint: error: {exc}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_CLEAN
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - no traceback reaches the user
        sys.stderr.write(f"jitlint: internal error: {type(exc).__name__}: {exc}\n")
        return EXIT_ERROR
