"""flake8 adapter: the same engine and findings as the CLI, reported through flake8."""
from __future__ import annotations

import ast
import os
from typing import Any, Generator, Sequence, Tuple

from jitlint import __version__
from jitlint.config import Config
from jitlint.registry import RULES_BY_CODE
from jitlint.rules.base import INTERNAL_ERROR_CODE


class Flake8Checker:
    """The ``JIT`` plugin: lints the file flake8 hands it with jitlint's engine.

    Selection and ``# noqa`` are flake8's (the engine honours ``# noqa`` too);
    the one option, ``--jitlint-extend-jit-decorators``, comes from flake8's
    command line or configuration.
    """

    name = "jitlint"
    version = __version__
    extend_jit_decorators: Sequence[str] = ()

    def __init__(self, tree: ast.AST, filename: str = "(none)", lines: Sequence[str] = ()) -> None:
        self.filename = filename
        self.lines = list(lines)

    @classmethod
    def add_options(cls, option_manager: Any) -> None:
        option_manager.add_option(
            "--jitlint-extend-jit-decorators",
            default="",
            parse_from_config=True,
            comma_separated_list=True,
            help="Qualified names of extra jit-like wrappers for jitlint (e.g. mylib.compiled). "
                 f"jitlint reports {', '.join(sorted(RULES_BY_CODE))}: `jitlint rules` lists them, "
                 "`jitlint rule CODE` explains one",
        )

    @classmethod
    def parse_options(cls, options: Any) -> None:
        names = getattr(options, "jitlint_extend_jit_decorators", None) or ()
        cls.extend_jit_decorators = tuple(n.strip() for n in names if n.strip())

    def run(self) -> Generator[Tuple[int, int, str, type], None, None]:
        """Findings as flake8 wants them: 0-based columns (flake8 prints them 1-based, like the CLI).

        The file is checked with the project around it, as ``jitlint check FILE``
        does (same findings, same cache); the text is the one flake8 read.
        """
        from jitlint.runner import default_cache_dir, lint_files

        source = "".join(self.lines)
        if source.startswith("\ufeff"):
            source = source[1:]
        config = Config(extend_jit_decorators=tuple(self.extend_jit_decorators))
        data = source.encode("utf-8", "surrogatepass")
        named = self.filename not in ("stdin", "-", "(none)") and os.path.isfile(self.filename)
        try:
            # text read by flake8 is utf-8 now: say so, whatever the file's coding line claimed
            result, = lint_files([self.filename], config, cache_dir=default_cache_dir() if named else None,
                                 overrides={self.filename: _as_utf8(data)}, context=named, edits=False)
        except Exception as exc:  # noqa: BLE001 - a bug in jitlint is one finding, not a crash of flake8
            yield 1, 0, f"{INTERNAL_ERROR_CODE} internal error: {type(exc).__name__}: {exc}", type(self)
            return
        if result.error is not None:
            if result.error.internal:
                yield 1, 0, f"{INTERNAL_ERROR_CODE} {result.error.message}", type(self)
            return  # flake8 reports E999 for code it cannot parse
        for diag in result.diagnostics:
            yield diag.line, diag.column - 1, f"{diag.code} {diag.message}", type(self)


def _as_utf8(data: bytes) -> bytes:
    """Source text as UTF-8 bytes that decode as UTF-8 (a ``coding:`` line naming another codec is neutralised)."""
    import re

    lines = data.split(b"\n", 2)
    for i in range(min(2, len(lines))):
        if re.match(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", lines[i]):
            lines[i] = b"#" + b" " * (len(lines[i]) - 1) if lines[i].strip() else lines[i]
    return b"\n".join(lines)
