"""From the bytes of a file to a LibCST module, or a SourceError that says where and why not.

Decoding follows Python (BOM, then the coding cookie, else UTF-8). Input that
would make LibCST's parser exhaust its stack or memory (brackets nested more
deeply than Python itself accepts, runs of thousands of prefix operators,
chains of operators longer than Python compiles, a statement of megabytes)
is refused before parsing, with a SourceError that says so; long chains are
parsed on a large stack, and the analysis is retried on one when it recurses
too deeply.
"""
from __future__ import annotations

import ast
import contextvars
import gc
import io
import re
import sys
import threading
import tokenize
import warnings
from contextlib import contextmanager
from itertools import accumulate
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, TypeVar

import libcst as cst

#: CPython's tokenizer refuses brackets nested more deeply than this (MAXLEVEL).
MAX_BRACKET_DEPTH = 200
#: the longest run of prefix operators (``-``, ``not``, ``lambda:``, ...) accepted
MAX_PREFIX_RUN = 1000
#: LibCST nests chains that CPython keeps flat (``x and y and ...``) or caps near 3,000
#: (``a + b + ...``, ``a.b.c``, ``f()()``, ``x[0][0]``, ``elif``), and its native parser
#: overflows the stack -- a segmentation fault -- a few thousand links deep: a longer chain is
#: parsed on a large stack, once CPython's own parser has agreed to build it
CHAIN_ON_CALLING_THREAD = 1000
#: links in one chain past which a file is refused (the analysis of one is quadratic)
MAX_CHAIN = 3000
#: characters in one statement past which a file is refused: minified or generated code (a 5 MB
#: line takes LibCST minutes and gigabytes)
MAX_STATEMENT_CHARS = 200_000
#: Deeply nested code (hundreds of nested calls) outgrows Python's default
#: recursion limit in the analysis; it is retried on a thread with a large
#: stack and this limit before it is reported as an error.
DEEP_RECURSION_LIMIT = 50_000
DEEP_STACK_BYTES = 256 * 1024 * 1024

_T = TypeVar("_T")

_BRACKETS_AND_SKIPPED = re.compile(r'''
      \#[^\r\n]*
    | """(?:[^"\\]|\\.|"(?!""))*"""
    | \'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\'
    | "(?:[^"\\\r\n]|\\.)*"
    | '(?:[^'\\\r\n]|\\.)*'
    | (?P<open>[(\[{])
    | (?P<close>[)\]}])
''', re.VERBOSE | re.DOTALL)

#: comments, line continuations and strings (with their prefixes): skipped by the scans below
_SKIPPED_TEXT = r'''(?P<skip>\#[^\r\n]*|\\\r?\n
        |[rRbBuUfF]{0,2}(?:"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^'\\]|\\.|'(?!''))*\'\'\'
                         |"(?:[^"\\\r\n]|\\.)*"|'(?:[^'\\\r\n]|\\.)*'))'''
_DELIMITERS = r"(?P<open>[(\[{]) | (?P<close>[)\]}]) | (?P<newline>\r\n?|\n)"
#: what delimits statements and chains: comments, strings and line continuations (skipped),
#: brackets, newlines, what separates (``,;:=``) and the operators and keywords that chain (the
#: lookahead skips the characters no token starts with: a third of the time)
_TOKEN = re.compile(r"(?=[#\\\"'()\[\]{}\r\n,;:=*/<>+\-%@&|^.~aoielrRbBuUfF])(?:" + _SKIPPED_TEXT + " | " + _DELIMITERS
                    + r" | (?P<separator>[,;:=]) | (?P<link>\*\*|//|<<|>>|[-+*/%@&|^.~]|\b(?:and|or|if|else)\b))",
                    re.VERBOSE | re.DOTALL)
#: :data:`_TOKEN` without what separates and chains: what delimits statements alone
_STATEMENT_TOKEN = re.compile(r"(?=[#\\\"'()\[\]{}\r\nrRbBuUfF])(?:" + _SKIPPED_TEXT + " | " + _DELIMITERS + ")",
                              re.VERBOSE | re.DOTALL)
#: what may be a link of a chain, wherever it is (in a string too: a count of them is an upper bound)
_MAYBE_LINK = re.compile(r"\*\*|//|<<|>>|[-+*/%@&|^.~(\[{]|\b(?:and|or|if|else)\b")

_PREFIX = r"(?:[-+~]|not\s|await\s|lambda\b[^:\r\n]*:)\s*"
_PREFIX_RUN = re.compile(r"%s(?:%s){%d}" % (_PREFIX, _PREFIX, MAX_PREFIX_RUN - 1))
_NOT_BRACKET = re.compile(r"[^()\[\]{}]+")
_BRACKET_STEP = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


class SourceError(Exception):
    """Input that cannot be linted: where, and why, in words for the user."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(line, column, message)  # all three, so that it pickles (process pool)
        self.line, self.column, self.message = line, column, message

    def __str__(self) -> str:
        return self.message


def _line_and_column(text: str, offset: int) -> Tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _encoding_of(data: bytes) -> str:
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        message = str(exc)
        if message.startswith(("unknown encoding", "encoding problem")):
            line = 1 if b"coding" in data.split(b"\n", 1)[0] else 2
            raise SourceError(line, 1, f"cannot decode: {message}") from None
        return "utf-8"  # undecodable bytes in the first two lines: decoding says where
    return encoding


def decode_source(data: bytes) -> str:
    """Decode like Python does; a SourceError names the line and column of a bad byte."""
    encoding = _encoding_of(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(line, exc.start - line_start + 1,
                          f"cannot decode as {encoding}: {exc.reason} (byte 0x{data[exc.start]:02x})") from None
    return text[1:] if text.startswith("\ufeff") else text


def _deepest_bracket(source: str) -> Optional[int]:
    """The offset of the first bracket nested deeper than MAX_BRACKET_DEPTH, if any."""
    brackets = _NOT_BRACKET.sub("", source)
    if max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0) <= MAX_BRACKET_DEPTH:
        return None  # not even when brackets in strings and comments count
    depth = 0
    for match in _BRACKETS_AND_SKIPPED.finditer(source):
        if match.lastgroup == "open":
            depth += 1
            if depth > MAX_BRACKET_DEPTH:
                return match.start()
        elif match.lastgroup == "close":
            depth = max(depth - 1, 0)
    return None


def _skipped_spans(source: str) -> List[Tuple[int, int]]:
    return [m.span() for m in _BRACKETS_AND_SKIPPED.finditer(source) if m.lastgroup is None]


def _long_prefix_run(source: str) -> Optional[int]:
    """The offset of a run of MAX_PREFIX_RUN prefix operators in code (not in strings or comments)."""
    match = _PREFIX_RUN.search(source)
    if match is None:
        return None
    spans = _skipped_spans(source)
    while match is not None:
        if not any(start <= match.start() < end for start, end in spans):
            return match.start()
        match = _PREFIX_RUN.search(source, match.end())
    return None


def check_nesting(source: str) -> None:
    """SourceError for code nested too deeply for the parser to survive."""
    offset = _deepest_bracket(source)
    if offset is not None:
        line, column = _line_and_column(source, offset)
        raise SourceError(line, column, f"syntax error: too many nested parentheses "
                                        f"(Python allows {MAX_BRACKET_DEPTH} levels)")
    offset = _long_prefix_run(source)
    if offset is not None:
        line, column = _line_and_column(source, offset)
        raise SourceError(line, column, f"too deeply nested to parse: {MAX_PREFIX_RUN} or more prefix operators "
                                        "in a row")


def _largest_statement(source: str) -> Tuple[int, int, int, int]:
    """(characters, offset) of the longest statement; (links, offset) of the longest chain.

    A chain is a run of operators, dots and trailing brackets at one bracket depth
    with no separator in between: ``a.b(c)[d] + e`` is four links long, ``[a + b, c]``
    one.  It bounds how deeply LibCST nests the expression.
    """
    runs = [0]  # the chain being measured at each open bracket depth
    start = 0  # the offset of the statement
    longest = chain = (0, 0)
    for match in _TOKEN.finditer(source):
        kind = match.lastgroup
        if kind == "link":
            runs[-1] += 1
        elif kind == "open":
            runs[-1] += 1  # a call or subscript trailer links too
            runs.append(0)
        elif kind == "separator" or (kind == "close" and len(runs) > 1):
            chain = max(chain, (runs[-1], -start))
            if kind == "close":
                runs.pop()
            else:
                runs[-1] = 0
        elif kind == "newline" and len(runs) == 1:  # the end of a statement
            chain = max(chain, (runs[0], -start))
            longest = max(longest, (match.start() - start, -start))
            runs[0] = 0
            start = match.end()
    chain = max([chain] + [(run, -start) for run in runs])
    longest = max(longest, (len(source) - start, -start))
    return longest[0], -longest[1], chain[0], -chain[1]


def _statements_within_bounds(source: str) -> Optional[Tuple[int, int]]:
    """(characters, offset) of the longest statement when no statement can hold a chain longer than
    CHAIN_ON_CALLING_THREAD; None when one may (then :func:`_largest_statement` measures).

    A chain has at most as many links as its statement has characters that may be links, and a
    statement no longer than the limit cannot hold more: only the few long statements are counted
    (strings and comments in them too, which only raises the count).  One pass over the brackets,
    newlines, strings and comments, instead of one over every operator and separator as well."""
    depth = start = 0
    longest = (0, 0)
    spans = []
    for match in _STATEMENT_TOKEN.finditer(source):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            if depth:
                depth -= 1
        elif kind == "newline" and not depth:
            spans.append((start, match.start()))
            start = match.end()
    spans.append((start, len(source)))
    for start, end in spans:
        longest = max(longest, (end - start, -start))
        if end - start > CHAIN_ON_CALLING_THREAD \
                and len(_MAYBE_LINK.findall(source, start, end)) > CHAIN_ON_CALLING_THREAD:
            return None
    return longest[0], -longest[1]


def check_size(source: str) -> bool:
    """SourceError for a statement too long or a chain too deep to lint; True when the parse needs a large stack."""
    bounded = _statements_within_bounds(source) if source.count("elif") <= CHAIN_ON_CALLING_THREAD else None
    if bounded is not None and bounded[0] <= MAX_STATEMENT_CHARS:
        return False
    chars, offset, links, chain_offset = _largest_statement(source)
    if chars > MAX_STATEMENT_CHARS:
        line, _ = _line_and_column(source, offset)
        raise SourceError(line, 1, f"too long to lint: the statement on this line is {chars:,} characters long "
                                   f"(minified or generated code? the limit is {MAX_STATEMENT_CHARS:,})")
    if links <= CHAIN_ON_CALLING_THREAD and source.count("elif") <= CHAIN_ON_CALLING_THREAD:
        return False
    line, _ = _line_and_column(source, chain_offset)
    try:
        with warnings.catch_warnings():  # the user's invalid escapes are not jitlint's to report
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (RecursionError, MemoryError):
        raise SourceError(line, 1, "too deeply nested to parse: Python itself cannot compile it") from None
    except (SyntaxError, ValueError):
        pass  # LibCST knows newer syntax than the running Python: it decides
    if links > MAX_CHAIN:
        raise SourceError(line, 1, f"too deeply nested to lint: a chain of {links:,} operators "
                                   f"(the limit is {MAX_CHAIN:,})")
    return True


def _run_on_deep_stack(work: Callable[[], _T], recursion_limit: Optional[int]) -> _T:
    """``work()`` on a new thread with a large stack (and the given recursion limit), in the
    caller's context (a new thread starts with empty context variables: the fix order would be lost)."""
    outcome: Dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        previous = sys.getrecursionlimit()
        if recursion_limit is not None:
            sys.setrecursionlimit(max(previous, recursion_limit))
        try:
            outcome["value"] = context.run(work)
        except BaseException as exc:  # noqa: B036 - handed back to the caller's thread
            outcome["error"] = exc
        finally:
            sys.setrecursionlimit(previous)

    old_size = threading.stack_size(DEEP_STACK_BYTES)
    try:
        thread = threading.Thread(target=target, name="jitlint-deep-stack")
        thread.start()
    finally:
        threading.stack_size(old_size)
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


class _Deferral:
    """Whether collection is deferred (see :func:`defer_collection`), how deeply paused blocks are
    nested now, and whether the last outermost block left garbage uncollected."""

    on = False
    depth = 0
    pending = False


def defer_collection() -> None:
    """For a process that ends when its work is done (the command line): the garbage a paused block
    leaves is collected when the next outermost block starts instead of when it ends, and the
    collector stays off in between.  Each file's garbage is still freed before the next file is
    parsed (the memory of a run stays that of its largest file), but the last file's is never
    walked: the process ends first (on a 10,000-line module that walk is a twentieth of the check)."""
    _Deferral.on = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """Within the block, Python's cyclic garbage collector does not run.

    A parse and its analysis allocate hundreds of thousands of objects that stay alive until the
    analysis ends (the tree, its scopes, its facts): each allocation burst makes the collector walk
    them again, looking for garbage that is not there -- on a 10,000-line module about a fifth of
    the check.  What the analysis leaves unreachable is collected after the block, as usual (or,
    deferred, before the next one).  The collector is turned back on only if it was on before (a
    nested block, or one running while another thread holds one, leaves that to the outer one)."""
    if _Deferral.on:
        yield from _deferred_pause()
        return
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _deferred_pause() -> Iterator[None]:
    if _Deferral.depth == 0 and _Deferral.pending:
        gc.collect(0)  # what the block before left (all of it young: the collector was off since)
        _Deferral.pending = False
    gc.disable()
    _Deferral.depth += 1
    try:
        yield
    finally:
        _Deferral.depth -= 1
        if _Deferral.depth == 0:
            _Deferral.pending = True


def with_deep_stack(work: Callable[[], _T], doing: str) -> _T:
    """``work()``, retried on a deep stack after a RecursionError; SourceError if that fails too."""
    try:
        return work()
    except RecursionError:
        pass
    try:
        return _run_on_deep_stack(work, DEEP_RECURSION_LIMIT)
    except RecursionError:
        raise SourceError(1, 1, f"too deeply nested to {doing}") from None


def parse(source: str, config: Optional[cst.PartialParserConfig] = None) -> cst.Module:
    """The LibCST module of ``source`` (parsed with ``config`` when given: a part of a module is parsed
    as the module was); SourceError for code that is not valid Python."""
    if "\x00" in source:
        line, column = _line_and_column(source, source.index("\x00"))
        raise SourceError(line, column, "source contains a NUL byte")
    check_nesting(source)
    deep = check_size(source)
    try:
        # nesting is bounded now (check_nesting, check_size), so the parser is safe on this
        # thread's stack unless a long chain needs a large one
        try:
            if not deep:
                return _parse_module(source, config)
        except RecursionError:
            pass
        return _run_on_deep_stack(lambda: _parse_module(source, config), recursion_limit=DEEP_RECURSION_LIMIT)
    except cst.ParserSyntaxError as exc:
        raise _syntax_error(source, exc) from None
    except RecursionError:
        raise SourceError(1, 1, "too deeply nested to parse") from None


def _parse_module(source: str, config: Optional[cst.PartialParserConfig]) -> cst.Module:
    return cst.parse_module(source) if config is None else cst.parse_module(source, config)


def _syntax_error(source: str, exc: cst.ParserSyntaxError) -> SourceError:
    """CPython's message and position when it agrees the code is invalid (they are clearer)."""
    try:
        ast.parse(source)
    except SyntaxError as py_exc:
        return SourceError(py_exc.lineno or 1, py_exc.offset or 1, f"syntax error: {py_exc.msg}")
    except (RecursionError, MemoryError, ValueError):
        pass
    else:
        # CPython compiles it (a backslash before a CRLF at the end of the file is one such
        # case: importable, though `python file.py` refuses it): not checked, and said so
        message = re.sub(r"^parser error: (error at \d+:\d+: )?", "", exc.message).splitlines()[0]
        return SourceError(exc.raw_line, exc.raw_column + 1, "not checked: Python compiles this file but "
                                                             f"LibCST, jitlint's parser, rejects it ({message})")
    message = re.sub(r"^parser error: (error at \d+:\d+: )?", "", exc.message)
    return SourceError(exc.raw_line, exc.raw_column + 1, f"syntax error: {message}")


_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+([^\n#]+)|import[ \t]+([^\n#]+))", re.M)


def imported_modules(data: bytes) -> List[str]:
    """Module names a file imports (relative ones keep their dots), from its text."""
    out: List[str] = []
    for match in _IMPORT.finditer(data):
        base, names, plain = match.group(1), match.group(2), match.group(3)
        if base is not None:
            base_s = base.decode("ascii", "replace")
            out.append(base_s)
            for name in names.decode("ascii", "replace").strip("()\\ \t").split(","):
                name = name.strip().split(" as ")[0].strip()
                if name and name != "*":
                    out.append(base_s + name if base_s.endswith(".") else f"{base_s}.{name}")
        else:
            for name in plain.decode("ascii", "replace").split(","):
                name = name.strip().split(" as ")[0].strip()
                if name:
                    out.append(name)
    return out


#: words without which a module's text cannot declare a static field of a pytree class (``field(static=True)``,
#: ``metadata={"static": True}``, ``pytree_node=False``, ``register_dataclass(..., meta_fields=...)``, a
#: ``static_field()`` helper)
_STATIC_FIELD_WORDS = re.compile(rb"static|meta_fields|pytree_node")


def may_declare_static_fields(data: bytes, field: str, any_field: bool = False) -> bool:
    """Whether the text may declare ``field`` a field (of a class, static or not) and some field static
    (``any_field``: whether it may declare ``field`` a field or a property -- an indented ``field:`` or
    ``def field(`` line)."""
    if any_field:
        name = re.escape(field.encode())
        return re.search(rb"^[ \t]+(?:" + name + rb"[ \t]*:|def[ \t]+" + name + rb"[ \t]*\()", data,
                         re.MULTILINE) is not None
    return _STATIC_FIELD_WORDS.search(data) is not None and \
        re.search(rb"\b" + re.escape(field.encode()) + rb"\b", data) is not None
