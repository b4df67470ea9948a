"""The `jitlint` command line: ``jitlint check PATH...`` (``jitlint PATH...`` for short).

Exit status: 0 when clean, 1 when there are findings or a file could not be
checked, 2 for a usage or configuration error or an internal error.
"""
from __future__ import annotations

import argparse
import atexit
import difflib
import gc
import inspect
import math
import io
import os
import re
import sys
import tokenize
from typing import Dict, List, NoReturn, Optional, Sequence, Set, TextIO, Tuple

from jitlint import __version__
from jitlint.config import Config, ConfigError
from jitlint.diagnostics import FileError, FileResult, printable
from jitlint.engine import lint_bytes
from jitlint.files import STDIN, UsageError, is_virtualenv, iter_files  # noqa: F401 - re-exported
from jitlint.files import DEFAULT_MAX_FILE_SIZE
from jitlint.settings import resolve_config
from jitlint.source import defer_collection
from jitlint.files import read_source_file as _read_file
from jitlint.runner import DEFAULT_FILE_TIMEOUT
from jitlint.output import FORMATS, format_json, reads_edits, render  # noqa: F401 - format_json: used by callers
from jitlint.output.style import PLAIN, Style, wants_color
from jitlint.output.text import display_width, format_text, reason_lines, source_excerpt, summary  # noqa: F401
from jitlint.registry import RULES_BY_CODE, known_code

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
COMMANDS = ("check", "rule", "rules", "verify", "server")


def _code_list(value: str) -> List[str]:
    codes = [c.strip() for c in value.split(",") if c.strip()]
    for code in codes:
        if not known_code(code):
            raise argparse.ArgumentTypeError(f"unknown rule code or prefix: {code}{_close_code(code)}")
    return [code.upper() for code in codes]


def _did_you_mean(word: str, choices: Sequence[str]) -> Optional[str]:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def _close_code(word: str) -> str:
    """``; did you mean `JIT201`?`` for a near miss of a rule code, or for the name of a rule; else ``""``."""
    by_name = {rule.name: code for code, rule in RULES_BY_CODE.items()}
    name = by_name.get(word.lower()) or by_name.get(_did_you_mean(word.lower(), list(by_name)) or "")
    code = _did_you_mean(word.upper(), list(RULES_BY_CODE))
    if code is None and name is not None:
        return f"; did you mean `{name}` ({RULES_BY_CODE[name].name})?"
    return f"; did you mean `{code}`?" if code else ""


class _Parser(argparse.ArgumentParser):
    """argparse, whose errors are one line (``jitlint: error: ...``, exit 2) without the usage block,
    with the closest option for a mistyped one."""

    def error(self, message: str) -> NoReturn:
        unknown = message.partition("unrecognized arguments: ")[2].split()
        options = [w.split("=")[0] for w in unknown if w.startswith("--")]
        close = _did_you_mean(options[0], self.long_options()) if options else None
        raise UsageError(message + (f"; did you mean `{close}`?" if close else ""))

    def long_options(self) -> List[str]:
        """The ``--options`` of this parser and of its subcommands."""
        out: List[str] = []
        for action in self._actions:
            out += [o for o in action.option_strings if o.startswith("--")]
            if isinstance(action, argparse._SubParsersAction):
                out += [o for parser in action.choices.values() if isinstance(parser, _Parser)
                        for o in parser.long_options()]
        return out


def _positive(value: str, what: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = float("nan")
    if not math.isfinite(number) or number <= 0:
        raise argparse.ArgumentTypeError(f"{what} must be a positive number, not {value!r}")
    return number


def _megabytes(value: str) -> int:
    return int(_positive(value, "the size") * 1024 * 1024)


def _seconds(value: str) -> float:
    return _positive(value, "the timeout")


def _name_list(value: str) -> List[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="jitlint", description="Find JAX JIT-safety hazards before the code runs.")
    parser.add_argument("--version", action="version", version=f"jitlint {__version__}")
    sub = parser.add_subparsers(dest="command")
    check = sub.add_parser("check", help="lint files and folders (the default command)")
    check.add_argument("paths", nargs="*", default=["."], help="files or folders; `-` reads stdin")
    check.add_argument("--select", type=_code_list, action="append",
                       help="codes or prefixes to report, e.g. JIT2 (replaces `select` and `ignore` of the config)")
    check.add_argument("--ignore", type=_code_list, action="append", help="codes or prefixes to skip")
    check.add_argument("--extend-select", type=_code_list, action="append", help="codes to add to the selection")
    check.add_argument("--format", choices=FORMATS, default="text",
                       help="report format: text, json, sarif (GitHub code scanning), github (workflow "
                            "annotations) (default: text)")
    check.add_argument("--exclude", type=_name_list, action="append",
                       help="glob patterns of paths to skip, besides the defaults (replaces `exclude` of the config)")
    check.add_argument("--extend-exclude", type=_name_list, action="append",
                       help="glob patterns of paths to skip, in addition to `exclude`")
    check.add_argument("--force-exclude", action="store_true", default=None,
                       help="apply `exclude` / `extend-exclude` (and the default excludes) to the files and "
                            "folders named on the command line too, as pre-commit hooks need")
    check.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false", default=None,
                       help="walk folders without skipping what .gitignore ignores")
    check.add_argument("--extend-jit-decorators", type=_name_list, action="append",
                       help="qualified names of extra jit-like wrappers, e.g. mylib.compiled")
    check.add_argument("--stdin-filename", help="the path to report (and configure) for source read from stdin")
    check.add_argument("--config", help="read options from this pyproject.toml / setup.cfg")
    check.add_argument("--isolated", action="store_true", help="ignore configuration files")
    check.add_argument("-q", "--quiet", action="store_true", help="print findings only, no summary")
    check.add_argument("--no-reason", action="store_true", help="text format: one line per finding")
    check.add_argument("--statistics", action="store_true",
                       help="print the number of findings per code (and how many are fixable) instead of each one")
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                       help="colour the text report: auto (a terminal, unless NO_COLOR is set), always, never")
    check.add_argument("--no-progress", action="store_true",
                       help="never show the progress bar (shown on a terminal for long runs)")
    check.add_argument("--exit-non-zero-on-fix", action="store_true",
                       help="with --fix: exit 1 when a file was changed, even if nothing is left to report "
                            "(what pre-commit expects)")
    check.add_argument("--exit-zero", action="store_true",
                       help="exit 0 even when there are findings (still 2 for a usage, configuration or internal "
                            "error)")
    check.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` to the line of every current finding (merged into a `# noqa: ...` "
                            "already there), to adopt jitlint on existing code")
    check.add_argument("--show-settings", action="store_true",
                       help="print the configuration the check would use (file and command line), then exit")
    check.add_argument("--show-files", action="store_true", help="print the files the check would read, then exit")
    check.add_argument("--output-file", help="write the report here instead of stdout")
    check.add_argument("--fix", action="store_true",
                       help="apply safe fixes to the files (stdin: print the fixed source), then report what is left")
    check.add_argument("--unsafe-fixes", action="store_true",
                       help="with --fix or --diff: apply unsafe fixes too (they may change behaviour)")
    check.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff instead of writing them; exit 1 if there are any")
    check.add_argument("--show-fixes", action="store_true",
                       help="list the fixes applied (with --fix / --diff) or available (otherwise)")
    check.add_argument("-j", "--jobs", type=int, default=0,
                       help="worker processes (default: the number of CPUs; 1 runs in-process)")
    check.add_argument("--no-cache", action="store_true", help="do not read or write the results cache")
    check.add_argument("--cache-dir", help="where to keep the results cache (default: .jitlint_cache, or "
                                           "$JITLINT_CACHE_DIR)")
    check.add_argument("--max-file-size", type=_megabytes, default=DEFAULT_MAX_FILE_SIZE, metavar="MB",
                       help=f"files larger than this are reported as too large, not analysed "
                            f"(default: {DEFAULT_MAX_FILE_SIZE // (1024 * 1024)})")
    check.add_argument("--file-timeout", type=_seconds, default=DEFAULT_FILE_TIMEOUT, metavar="SECONDS",
                       help="a file whose analysis takes longer is reported as an error for that file "
                            f"(default: {DEFAULT_FILE_TIMEOUT:.0f})")
    rule = sub.add_parser("rule", help="print the documentation of a rule: by code, name, or code prefix "
                                       "(JIT2: every JIT2xx rule)")
    rule.add_argument("code", metavar="CODE|NAME|PREFIX")
    rules = sub.add_parser("rules", help="list all rules")
    rules.add_argument("--format", choices=("text", "json"), default="text",
                       help="text: one line per rule; json: code, name, summary, fixable, on_by_default, url")
    server = sub.add_parser("server", help="run the language server (LSP, over stdio) for editors")
    server.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only way)")
    from jitlint.verify.arguments import add_check_arguments, add_verify_parser  # the options only, not the verifier

    add_check_arguments(check)
    add_verify_parser(sub)
    return parser


def _read_stdin() -> bytes:
    stream = getattr(sys.stdin, "buffer", sys.stdin)
    data = stream.read() if stream is not None else b""
    return data.encode("utf-8") if isinstance(data, str) else data


def lint_path(path: str, config: Config, stdin_name: Optional[str]) -> FileResult:
    """Read and lint one file (or stdin); every failure becomes the file's error."""
    display = (stdin_name or STDIN) if path == STDIN else path
    try:
        data = _read_stdin() if path == STDIN else _read_file(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return FileResult(display, error=FileError(display, 1, 1, f"cannot read: {reason}"))
    try:
        return lint_bytes(data, display, config)
    except Exception as exc:  # noqa: BLE001 - a bug in jitlint must not stop the run
        message = f"internal error: {type(exc).__name__}: {exc}"
        return FileResult(display, error=FileError(display, 1, 1, message, internal=True))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _write(text: str, output_file: Optional[str], stream: TextIO) -> None:
    if output_file:
        with open(output_file, "w", encoding="utf-8") as fh:
            fh.write(text)
        return
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:  # `jitlint check | head`: the reader has gone; the exit status still counts
        _discard_stdout()


def _discard_stdout() -> None:
    """Point stdout at devnull, so that flushing it at exit cannot raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def has_internal_error(results: Sequence[FileResult]) -> bool:
    """jitlint itself failed on a file, or one of its rules did (a JIT000 finding)."""
    from jitlint.rules.base import INTERNAL_ERROR_CODE

    return any((r.error is not None and r.error.internal) or any(d.code == INTERNAL_ERROR_CODE for d in r.diagnostics)
               for r in results)


def exit_status(results: Sequence[FileResult]) -> int:
    if has_internal_error(results):
        return EXIT_ERROR
    if any(r.diagnostics or r.error is not None for r in results):
        return EXIT_FINDINGS
    return EXIT_CLEAN


#: whether :func:`_quick_exit` has registered its exit handler in this process
_QUICK_EXIT = False


def _quick_exit() -> None:
    """Leave what the analysis made to the operating system when the process ends.

    The analysis leaves its trees, scopes and facts in reference cycles, which only the garbage
    collector frees; the last collection, when the interpreter shuts down, would walk and free
    them one by one: 0.4 s on a 10,000-line module, a tenth of its check.  ``gc.freeze()`` at exit
    puts everything alive then out of that collection's reach.  Nothing is lost: jitlint closes
    the files it writes, and the interpreter flushes the standard streams itself.
    """
    global _QUICK_EXIT
    if not _QUICK_EXIT:
        atexit.register(gc.freeze)
        _QUICK_EXIT = True


def run_check(args: argparse.Namespace) -> int:
    _quick_exit()
    if args.paths.count(STDIN) > 1:
        raise UsageError("`-` (stdin) can be given once")
    _check_combinations(args)
    config = resolve_config(args).merged(force_exclude=args.force_exclude, respect_gitignore=args.respect_gitignore)
    if args.verify and not (args.fix or args.diff):
        raise UsageError("--verify needs --fix or --diff: it verifies fixes before they are written")
    if args.show_settings:
        return show_settings(args, config)
    nothing = _warn_of_empty_folders(args, config)
    if args.show_files:
        return show_files(args, config)
    if args.add_noqa:
        status = run_add_noqa(args, config)
    elif args.fix or args.diff:
        status = run_fix(args, config)
    else:
        status = _report(args, config, quiet=args.quiet or nothing)
    return EXIT_CLEAN if args.exit_zero and status == EXIT_FINDINGS else status


def _check_combinations(args: argparse.Namespace) -> None:
    if args.exit_zero and args.exit_non_zero_on_fix:
        raise UsageError("--exit-zero and --exit-non-zero-on-fix contradict each other")
    if args.add_noqa and (args.fix or args.diff):
        raise UsageError("--add-noqa cannot be combined with --fix or --diff: fix first, then add noqa comments")
    if args.add_noqa and STDIN in args.paths:
        raise UsageError("--add-noqa writes the files it checks: it cannot read `-` (stdin)")


def _report(args: argparse.Namespace, config: Config, quiet: bool) -> int:
    """The check itself: lint, report, and the exit status of what was found."""
    results = lint_all(args, config)
    for result in results:
        if result.error is not None:
            sys.stderr.write(result.error.render() + "\n")
    report = render(args.format, results, with_reason=not args.no_reason, quiet=quiet,
                    statistics=args.statistics, style=report_style(args, sys.stdout))
    if args.show_fixes and args.format == "text":
        report += available_fixes(results)
    _write(report, args.output_file, sys.stdout)
    return exit_status(results)


def report_style(args: argparse.Namespace, stream: TextIO) -> Style:
    """Colours for a text report on a terminal (``--color``, ``NO_COLOR``); never in a file."""
    if args.format != "text" or (args.output_file and args.color != "always"):
        return PLAIN
    return Style(wants_color(stream, args.color))


def lint_all(args: argparse.Namespace, config: Config) -> List[FileResult]:
    """All files of the command line, through the runner (pre-filter, cache, processes,
    helpers across modules); stdin on its own."""
    from jitlint.runner import default_cache_dir, lint_files

    unlisted: List[FileResult] = []
    paths = list(iter_files(args.paths, config, on_error=_collect_unlisted(unlisted)))
    files = [p for p in paths if p != STDIN]
    jobs = _jobs(args)
    cache_dir = None if args.no_cache else (args.cache_dir or default_cache_dir())
    roots = [p for p in args.paths if p != STDIN and os.path.isdir(p)]
    from jitlint.output.progress import Progress

    with Progress(len(files), "checking", enabled=False if args.quiet or args.no_progress else None) as bar:
        linted = lint_files(files, config, jobs=jobs, cache_dir=cache_dir, roots=roots, progress=bar.advance,
                            max_file_size=args.max_file_size, timeout=args.file_timeout,
                            edits=reads_edits(args.format, args.statistics))
    by_path = {r.path: r for r in linted}
    return unlisted + [lint_path(p, config, args.stdin_filename) if p == STDIN else by_path[p] for p in paths]


def _collect_unlisted(into: List[FileResult]):
    """A folder that cannot be listed is an error for that folder, never skipped silently."""
    def failed(path: str, exc: OSError) -> None:
        into.append(FileResult(path, error=FileError(path, 1, 1, f"cannot list folder: {exc.strerror or exc}")))

    return failed


def available_fixes(results: Sequence[FileResult]) -> str:
    """``--show-fixes`` without ``--fix``: the fix each finding offers, and its safety."""
    lines = [f"{printable(d.path)}:{d.line}:{d.column}: {d.code} [{d.fix.applicability.value}] {d.fix.title}"
             for r in results for d in r.diagnostics if d.fix is not None]
    return ("\nAvailable fixes:\n" + "\n".join(lines) + "\n") if lines else ""


def _write_source(data: bytes) -> None:
    """``--fix`` on stdin: the (fixed) source goes to stdout, byte for byte in its own encoding."""
    sys.stdout.flush()
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        buffer.write(data)
        buffer.flush()
    else:
        sys.stdout.write(data.decode("utf-8", "replace"))


def run_fix(args: argparse.Namespace, config: Config) -> int:
    """``--fix`` / ``--diff``: fix each file to a fixed point; write it (or print its diff); report the rest."""
    from jitlint.fixing import fix_bytes, unified_diff, write_atomic
    from jitlint.notebook import cell_diffs, is_notebook

    results: List[FileResult] = []
    applied: List[str] = []
    diffs: List[str] = []
    changed = 0
    verifications: list = []
    if args.verify:
        from jitlint.verify.command import gate_fix, verification_text, verify_options_for_check

        verify_options = verify_options_for_check(args)
    paths = list(iter_files(args.paths, config, on_error=_collect_unlisted(results)))
    outcomes = _fix_outcomes([p for p in paths if p != STDIN], args, config)
    # a symbolic link is followed for writing only to a file inside what was named (or the current folder)
    within = [os.getcwd()] + [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))
                              for p in args.paths if p != STDIN]
    for path in paths:
        display = (args.stdin_filename or STDIN) if path == STDIN else path
        if path == STDIN:
            data = _read_stdin()
            try:
                outcome = fix_bytes(data, display, config, unsafe=args.unsafe_fixes)
            except Exception as exc:  # noqa: BLE001 - a bug in jitlint must not stop the run
                message = f"internal error: {type(exc).__name__}: {exc}"
                results.append(FileResult(display, error=FileError(display, 1, 1, message, internal=True)))
                continue
        else:
            outcome = outcomes[path]
            if outcome.data is None:  # it could not be read, or jitlint failed on it
                results.append(FileResult(display, error=outcome.error))
                continue
            data = outcome.data  # what the fix was computed from: a file changed since is not overwritten
        if args.verify:  # runs the code, in a subprocess; keeps only the fixes that verified
            outcome, verification = gate_fix(outcome, path, config, verify_options)
            verifications.append(verification)
        result = outcome.result
        error = outcome.error
        unwritten = False
        if outcome.new_bytes is not None and result is not None:
            if args.diff:
                diffs.append(cell_diffs(printable(display), data, outcome.new_bytes) if is_notebook(path)
                             else unified_diff(printable(display), result.original, result.fixed))
            elif path == STDIN:
                _write_source(outcome.new_bytes)
            else:
                try:
                    write_atomic(path, outcome.new_bytes, expected=data, within=within)
                except OSError as exc:
                    error = FileError(display, 1, 1, f"cannot write: {exc.strerror or exc}")
                    unwritten = True
        elif path == STDIN and not args.diff:
            _write_source(data)
        if unwritten and result is not None:  # nothing was fixed: the file's findings are what it had
            results.append(FileResult(display, tuple(result.before), error=error, source=result.original,
                                      cells=outcome.original_cells))
            continue
        if result is not None and not result.converged and not unwritten and error is None:
            sys.stderr.write(f"{printable(display)}: note: fixes remain after {result.rounds} rounds (deeply nested "
                             "rewrites); run --fix again\n")
        if result is not None and outcome.new_bytes is not None:
            changed += 1
            applied += [f"{printable(display)}:{'' if a.cell is None else f'cell {a.cell}:'}{a.line}: {a.code} "
                        f"[{a.applicability.value}] {a.title}"
                        for a in sorted(result.applied, key=lambda a: (a.cell or 0, a.line))]
        remaining = result.remaining if result is not None else ()
        results.append(FileResult(display, tuple(remaining), error=error,
                                  source=result.fixed if result is not None else None, cells=outcome.cells))
    for result in results:
        if result.error is not None:
            sys.stderr.write(result.error.render() + "\n")
    fixed = len(applied)
    hidden = sum(1 for r in results for d in r.diagnostics
                 if d.fix is not None and d.fix.applicability.value == "unsafe" and not args.unsafe_fixes)
    more = f" ({hidden} more fix{'es' if hidden != 1 else ''} with --unsafe-fixes)" if hidden else ""
    if args.diff:
        report = "".join(diffs)
        if args.show_fixes and applied:
            report += "\nFixes:\n" + "\n".join(applied) + "\n"
        if args.verify:
            report += verification_text(verifications)
        if not args.quiet:
            verb = "Would fix" if fixed else "No fixes available"
            tail = (f"{verb} {_plural(fixed, 'finding')} in {_plural(changed, 'file')}" if fixed else verb) + more + "."
            sys.stderr.write(tail + "\n")
        _write(report, args.output_file, sys.stdout)
        if has_internal_error(results):
            return EXIT_ERROR
        return EXIT_FINDINGS if changed or any(r.error is not None for r in results) else EXIT_CLEAN
    stream = sys.stderr if STDIN in args.paths and not args.output_file else sys.stdout
    if args.format != "text":
        report = render(args.format, results, statistics=args.statistics)
    else:
        report = format_text(results, with_reason=not args.no_reason, style=report_style(args, stream))
        if args.show_fixes and applied:
            report += ("\n" if report else "") + "Fixed:\n" + "\n".join(applied) + "\n"
        if not args.quiet:
            left = sum(len(r.diagnostics) for r in results)
            report += ("\n" if report and not args.no_reason else "") + \
                f"Fixed {_plural(fixed, 'finding')} in {_plural(changed, 'file')}; {left} remaining{more}.\n"
        if args.verify:
            report += verification_text(verifications)
    _write(report, args.output_file, stream)
    if args.exit_non_zero_on_fix and changed and not has_internal_error(results):
        return EXIT_FINDINGS
    return exit_status(results)


def _fix_outcomes(files: Sequence[str], args: argparse.Namespace, config: Config) -> dict:
    """The files fixed together, with the project around them (what ``check`` reports is what is fixed)."""
    from jitlint.runner import default_cache_dir, fix_files

    if not files:
        return {}
    try:
        return fix_files(files, config, unsafe=args.unsafe_fixes, jobs=_jobs(args), fix_notebooks=not args.verify,
                         cache_dir=None if args.no_cache else (args.cache_dir or default_cache_dir()),
                         roots=[p for p in args.paths if p != STDIN and os.path.isdir(p)],
                         max_file_size=args.max_file_size, timeout=args.file_timeout)
    except Exception as exc:  # noqa: BLE001 - a bug in jitlint must not stop the run: every file gets it
        from jitlint.fixing import FileFixResult

        message = f"internal error: {type(exc).__name__}: {exc}"
        return {p: FileFixResult(p, error=FileError(p, 1, 1, message, internal=True)) for p in files}


def _jobs(args: argparse.Namespace) -> int:
    """``-j``: at most the number of CPUs (0 or less: all of them)."""
    cpus = os.cpu_count() or 1
    return min(args.jobs, cpus) if args.jobs > 0 else cpus


def _warn_of_empty_folders(args: argparse.Namespace, config: Config) -> bool:
    """Warn (unless ``--quiet``) of each folder named on the command line that holds no Python file to
    check; True when that is every path, so that no ``All checks passed.`` claims a check that never ran."""
    empty = [p for p in dict.fromkeys(args.paths) if p != STDIN and os.path.isdir(p)
             and next(iter(iter_files([p], config)), None) is None]
    if not args.quiet:
        for folder in empty:
            sys.stderr.write(f"warning: no Python files found in {printable(folder)}\n")
    return bool(empty) and set(empty) == set(args.paths)


def show_files(args: argparse.Namespace, config: Config) -> int:
    """``--show-files``: the files a check of these paths reads, one a line, in the order it reads them."""
    files = [(args.stdin_filename or STDIN) if p == STDIN else p for p in iter_files(args.paths, config)]
    _write("".join(f"{printable(f)}\n" for f in files), args.output_file, sys.stdout)
    return EXIT_CLEAN


def show_settings(args: argparse.Namespace, config: Config) -> int:
    """``--show-settings``: the configuration after the command line, as the TOML of ``[tool.jitlint]``
    (what is not set is a comment), with where it came from and the rules that run."""
    import dataclasses

    from jitlint.config import DEFAULT_EXCLUDE
    from jitlint.registry import selected_rules

    origin = config.source or ("no configuration file (--isolated)" if args.isolated else "no configuration file")
    lines = [f"# jitlint {__version__}: the settings for {' '.join(args.paths)}", f"# read from: {origin}",
             "[tool.jitlint]"]
    for field in dataclasses.fields(config):
        value, key = getattr(config, field.name), field.name.replace("_", "-")
        if value is None:
            lines.append(f"# {key}: not set" + (" (the rules on by default run)" if key == "select" else ""))
        elif field.name != "source":
            lines.append(f"{key} = {_toml(value, table='PerFileIgnores' in str(field.type))}")
    lines.append(f"# always excluded: {_toml(DEFAULT_EXCLUDE)}")
    lines.append(f"# rules that run: {' '.join(r.code for r in selected_rules(config.select, config.ignore))}")
    _write("\n".join(lines) + "\n", args.output_file, sys.stdout)
    return EXIT_CLEAN


def _toml(value: object, table: bool = False) -> str:
    """A setting as a TOML value: strings, numbers, booleans, lists, and (glob, codes) pairs as a table."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return json.dumps(value)
    items = list(value.items()) if isinstance(value, dict) else list(value)  # type: ignore[attr-defined]
    if table or isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in items) + " }" if items else "{}"
    return "[" + ", ".join(_toml(i) for i in items) + "]"


# ------------------------------------------------------------------------------------------- --add-noqa

#: a run of codes in a ``# noqa: ...`` comment (``E501,W291``), before any explanation after it
_CODE_RUN = re.compile(r"[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def run_add_noqa(args: argparse.Namespace, config: Config) -> int:
    """``--add-noqa``: ``# noqa: CODE`` on the line of every current finding, written atomically.

    A line whose end is inside a string (a multi-line string or f-string) or that continues with a
    backslash cannot take a comment: its findings are skipped and named.  Silencing a finding can
    uncover one it superseded on its line, so the files are checked again until nothing is added.
    Exit status: 0 when every finding was silenced, 1 when some were skipped or a file could not be
    read or written, 2 for an internal error.
    """
    added = 0
    for _ in range(_NOQA_ROUNDS):
        results = lint_all(args, config)
        outcomes = [_add_noqa_to(result) for result in results]
        added += sum(lines for lines, _, _ in outcomes)
        if not any(lines for lines, _, _ in outcomes):
            break
    left = [line for _, skipped, _ in outcomes for line in skipped]
    errors = [error for _, _, error in outcomes if error is not None]
    for line in [e.render() for e in errors] + left:
        sys.stderr.write(line + "\n")
    if not args.quiet:
        tail = f" ({_plural(len(left), 'finding')} skipped)" if left else ""
        _write(f"Added {_plural(added, 'noqa directive')}{tail}.\n", None, sys.stdout)
    if has_internal_error(results):
        return EXIT_ERROR
    return EXIT_FINDINGS if left or errors else EXIT_CLEAN


#: at most this many checks: each silenced finding may uncover one it superseded, once
_NOQA_ROUNDS = 4


def _add_noqa_to(result: FileResult) -> Tuple[int, List[str], Optional[FileError]]:
    """Add the noqa comments one file's findings need: (lines changed, the findings skipped, the error)."""
    from jitlint.fixing import decode_file, encode_file, write_atomic
    from jitlint.rules.base import INTERNAL_ERROR_CODE
    from jitlint.source import SourceError

    wanted: Dict[int, Set[str]] = {}
    for diag in result.diagnostics:
        if diag.code != INTERNAL_ERROR_CODE:
            wanted.setdefault(diag.line, set()).add(diag.code)
    if result.error is not None or not wanted:
        return 0, [], result.error
    try:
        data = _read_file(result.path)
        encoded = decode_file(data)
        text, lines, skipped = add_noqa_directives(encoded.text, wanted)
        if lines:
            write_atomic(result.path, encode_file(text, encoded), expected=data)
    except (OSError, SourceError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        return 0, [], FileError(result.path, 1, 1, f"cannot add noqa comments: {reason}")
    return lines, [f"{printable(result.path)}:{line}: {code} not silenced: {why}" for line, code, why in skipped], None


def add_noqa_directives(source: str, wanted: Dict[int, Set[str]]) -> Tuple[str, int, List[Tuple[int, str, str]]]:
    """``source`` with ``# noqa: CODES`` on each line of ``wanted`` ({line: codes}), merged into the
    line's ``# noqa: ...`` comment where it has one: (the new source, the codes added, and (line, code,
    why) of those that could not be).  A line is changed only where jitlint will then read the comment
    as silencing each of its codes."""
    from jitlint.engine import is_suppressed

    lines = _LINE.findall(source)
    room = _comment_room(source, lines)
    seen_by_engine = source.splitlines()  # the lines the engine reads noqa comments from
    skipped: List[Tuple[int, str, str]] = []
    added = 0
    for number in sorted(wanted):
        codes = sorted(wanted[number])
        body = lines[number - 1].rstrip("\r\n") if 0 < number <= len(lines) else None
        why = "a comment at the end of the line would not be read as silencing it"
        new = None
        if room is not None and number in room[0]:
            why = room[0][number]
        elif body is not None and room is not None and number <= len(seen_by_engine) \
                and seen_by_engine[number - 1] == body:
            new = _with_noqa(body, codes, room[1].get(number))
        if new is None or not all(is_suppressed(code, new) for code in codes):
            skipped += [(number, code, why) for code in codes]
        elif new != body:
            lines[number - 1] = new + lines[number - 1][len(body):]
            added += len(codes)
    return "".join(lines), added, skipped


def _with_noqa(body: str, codes: Sequence[str], comment: Optional[int]) -> str:
    """The line ``body`` with ``codes`` in its noqa comment; ``comment``: where its comment starts."""
    from jitlint.engine import NOQA

    match = NOQA.search(body, comment) if comment is not None else None
    if match is None:
        return body.rstrip(" \t") + "  # noqa: " + ", ".join(codes)
    if match.group("codes") is None:
        return body  # a blanket `# noqa` silences everything already
    run = _CODE_RUN.match(body, match.start("codes"))
    end = run.end() if run is not None else match.end("codes")
    return body[:end] + ", " + ", ".join(codes) + body[end:]


def _comment_room(source: str, lines: Sequence[str]) -> Optional[Tuple[Dict[int, str], Dict[int, int]]]:
    """({line: why it cannot end with a comment}, {line: the column its comment starts at}), or None
    when the source does not tokenize as these lines."""
    if "\r" in source.replace("\r\n", ""):
        return None  # tokenize would not see a lone CR as the end of a line
    blocked: Dict[int, str] = {}
    in_string = "the line ends inside a string, where a comment would become part of it"
    comments: Dict[int, int] = {}
    fstrings: List[int] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.start[1]
            elif tok.type == tokenize.STRING:
                blocked.update(dict.fromkeys(range(tok.start[0], tok.end[0]), in_string))
            elif tok.type == getattr(tokenize, "FSTRING_START", None):  # Python 3.12+: f-strings in parts
                fstrings.append(tok.start[0])
            elif tok.type == getattr(tokenize, "FSTRING_END", None) and fstrings:
                blocked.update(dict.fromkeys(range(fstrings.pop(), tok.end[0]), in_string))
    except (tokenize.TokenError, SyntaxError):
        return None
    blocked.update((n, "the line continues with a backslash, which a comment cannot follow")
                   for n, line in enumerate(lines, 1) if line.rstrip("\r\n").endswith("\\") and n not in comments)
    return blocked, comments


def rules_named(word: str) -> List[type]:
    """The rules ``word`` names: a code (``JIT201``), a rule name (``python-branch-on-tracer``),
    or a code prefix (``JIT2``: every JIT2xx rule), in code order."""
    by_name = {rule.name: rule for rule in RULES_BY_CODE.values()}
    if word.strip().lower() in by_name:
        return [by_name[word.strip().lower()]]
    prefix = word.strip().upper()
    return [RULES_BY_CODE[code] for code in sorted(RULES_BY_CODE) if prefix and code.startswith(prefix)]


def run_rule(code: str) -> int:
    rules = rules_named(code)
    if not rules:
        raise UsageError(f"unknown rule: {code}{_close_code(code)}")
    sys.stdout.write("\n".join(f"# {rule.code} ({rule.name})\n\n{inspect.cleandoc(rule.__doc__ or '')}\n"
                               for rule in rules))
    return EXIT_CLEAN


def run_rules(fmt: str = "text") -> int:
    """One line per rule: code, name, whether jitlint can fix its findings, on or off by default;
    as JSON, also the summary and the URL of the rule's page."""
    import jitlint.fixes
    from jitlint.rules.base import rule_summary, rule_url

    rules = [RULES_BY_CODE[code] for code in sorted(RULES_BY_CODE)]
    fixable = jitlint.fixes.FIXABLE_CODES
    if fmt == "json":
        import json

        sys.stdout.write(json.dumps([{"code": r.code, "name": r.name, "summary": rule_summary(r),
                                      "fixable": r.code in fixable, "on_by_default": bool(r.default_enabled),
                                      "url": rule_url(r.code)} for r in rules], indent=2) + "\n")
        return EXIT_CLEAN
    for rule in rules:
        fix = "fix" if rule.code in fixable else "-"
        sys.stdout.write(f"{rule.code}  {rule.name:40} {fix:4} {'on' if rule.default_enabled else 'off'}\n")
    return EXIT_CLEAN


def _with_command(argv: List[str]) -> List[str]:
    """``jitlint PATH`` means ``jitlint check PATH``; ``--explain CODE`` means ``rule CODE``."""
    if "--explain" in argv:
        i = argv.index("--explain")
        if i + 1 < len(argv):
            return ["rule", argv[i + 1]]
    if argv and argv[0] in (*COMMANDS, "-h", "--help", "--version"):
        return argv
    if argv and not argv[0].startswith("-"):
        _refuse_mistyped_command(argv[0])
    return ["check", *argv]


def _refuse_mistyped_command(word: str) -> None:
    """``jitlint WORD ...`` checks WORD when it is a file or folder, or looks like a path (``src/``,
    ``model.py``); a bare word that names neither a command nor anything on disk is a usage error.
    (A command wins over a folder of its name: ``jitlint check rules`` or ``jitlint rules/`` checks it.)"""
    if os.path.lexists(word) or "/" in word or os.sep in word or "." in word:
        return
    close = _did_you_mean(word.lower(), COMMANDS)
    if close is not None:
        raise UsageError(f"unknown command `{word}`; did you mean `{close}`?")
    raise UsageError(f"unknown command `{word}`, and no file or folder of that name "
                     f"(commands: {', '.join(COMMANDS)})")


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        args = build_parser().parse_args(_with_command(list(sys.argv[1:] if argv is None else argv)))
    except UsageError as exc:  # one line, from argparse (see _Parser) or about the command
        sys.stderr.write(f"jitlint: error: {exc}\n")
        return EXIT_ERROR
    except SystemExit as exc:  # --help / --version
        return EXIT_CLEAN if exc.code in (0, None) else EXIT_ERROR
    try:
        if args.command == "rule":
            return run_rule(args.code)
        if args.command == "rules":
            return run_rules(args.format)
        if args.command == "server":
            from jitlint.lsp import run_server

            return run_server()
        if args.command == "verify":
            from jitlint.verify.command import run_verify

            return run_verify(args)
        if argv is None:  # this process is jitlint's own (console script, `python -m`): it ends with the check
            defer_collection()
        return run_check(args)
    except (UsageError, ConfigError) as exc:
        sys.stderr.write(f"jitlint: error: {exc}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_CLEAN
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - no traceback reaches the user
        sys.stderr.write(f"jitlint: internal error: {type(exc).__name__}: {exc}\n")
        return EXIT_ERROR
