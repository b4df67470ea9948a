"""Input jitlint cannot lint gets one clear error line; the rest is linted; no traceback, ever."""
from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import pytest

from frontend_support import CLEAN, SEEDED, SEEDED_FINDING, Outcome, console_script, run_cli, run_process, write
from jitlint.engine import lint_bytes, lint_source


def check(capsys: pytest.CaptureFixture, *paths: Path) -> Outcome:
    return run_cli(capsys, "check", "--isolated", "--no-reason", "-q", *map(str, paths))


def finding_line(path: Path, finding=SEEDED_FINDING) -> str:
    line, column, code = finding
    return f"{path}:{line}:{column}: {code} Python `if` on traced value `x > 0`\n"


@pytest.fixture
def seeded(tmp_path: Path) -> Path:
    """A good file with one finding, linted next to each bad one."""
    return write(tmp_path, "zz_good.py", SEEDED)


def assert_no_traceback(outcome: Outcome) -> None:
    assert "Traceback" not in outcome.err + outcome.out


def test_syntax_error_is_one_line_and_the_rest_is_linted(tmp_path, seeded, capsys):
    bad = write(tmp_path, "broken.py", "import jax\n\ndef f(:\n    pass\n")
    outcome = check(capsys, bad, seeded)
    assert outcome.status == 1
    assert re.fullmatch(re.escape(str(bad)) + r":3:\d+: error: syntax error: [^\n]+\n", outcome.err), outcome.err
    assert outcome.out == finding_line(seeded)


def test_invalid_utf8_names_the_line_and_byte(tmp_path, seeded, capsys):
    bad = tmp_path / "binary.py"
    bad.write_bytes(b"x = 1\nname = 'caf\xe9'\n")
    outcome = check(capsys, bad, seeded)
    assert outcome.status == 1
    assert outcome.err == f"{bad}:2:12: error: cannot decode as utf-8: invalid continuation byte (byte 0xe9)\n"
    assert outcome.out == finding_line(seeded)


def test_unknown_encoding_cookie_is_an_error_for_that_file(tmp_path, capsys):
    bad = tmp_path / "klingon.py"
    bad.write_bytes(b"# -*- coding: klingon -*-\nx = 1\n")
    outcome = check(capsys, bad)
    assert (outcome.status, outcome.err) == (1, f"{bad}:1:1: error: cannot decode: unknown encoding: klingon\n")


def test_latin1_cookie_is_decoded_and_linted(tmp_path, capsys):
    path = tmp_path / "latin.py"
    source = "# -*- coding: latin-1 -*-\n" + SEEDED.replace("if x > 0:", "if x > 0:  # café")
    path.write_bytes(source.encode("latin-1"))
    outcome = run_cli(capsys, "check", "--isolated", str(path))
    assert (outcome.status, outcome.err) == (1, "")
    assert outcome.out.splitlines()[:3] == [
        f"{path}:6:8: JIT201 Python `if` on traced value `x > 0`",
        " 6 |     if x > 0:  # café",
        "   |        ^^^^^",
    ]


def test_utf8_bom_does_not_shift_columns(tmp_path, capsys):
    path = tmp_path / "bom.py"
    path.write_bytes(b"\xef\xbb\xbf" + SEEDED.encode())
    outcome = check(capsys, path)
    assert (outcome.status, outcome.out, outcome.err) == (1, finding_line(path), "")


def test_nul_byte_is_an_error_at_its_position(tmp_path, seeded, capsys):
    bad = tmp_path / "nul.py"
    bad.write_bytes(b"x = 1\ny = 2\x00\n")
    outcome = check(capsys, bad, seeded)
    assert (outcome.status, outcome.err) == (1, f"{bad}:2:6: error: source contains a NUL byte\n")
    assert outcome.out == finding_line(seeded)


def test_empty_file_is_clean(tmp_path, capsys):
    empty = write(tmp_path, "empty.py", "")
    outcome = run_cli(capsys, "check", "--isolated", str(empty))
    assert (outcome.status, outcome.out, outcome.err) == (0, "All checks passed.\n", "")


def test_crlf_file_gives_the_same_findings_as_lf(tmp_path, capsys):
    lf = write(tmp_path, "lf.py", SEEDED)
    crlf = tmp_path / "crlf.py"
    crlf.write_bytes(SEEDED.replace("\n", "\r\n").encode())
    both = run_cli(capsys, "check", "--isolated", "--format", "json", str(lf), str(crlf)).json()
    assert [(d["line"], d["column"], d["end_column"], d["code"]) for d in both] == [(5, 8, 13, "JIT201")] * 2
    text = run_cli(capsys, "check", "--isolated", str(crlf)).out
    assert text.splitlines()[1] == " 5 |     if x > 0:"
    assert "\r" not in text


def test_tab_indented_file_columns_count_characters(tmp_path, capsys):
    path = write(tmp_path, "tabs.py", SEEDED.replace("    ", "\t"))
    outcome = run_cli(capsys, "check", "--isolated", str(path))
    assert outcome.out.splitlines()[:3] == [
        f"{path}:5:5: JIT201 Python `if` on traced value `x > 0`",
        " 5 |  if x > 0:",
        "   |     ^^^^^",
    ]


def test_directory_named_like_a_module_is_walked_not_read(tmp_path, capsys):
    inner = write(tmp_path, "x.py/inner.py", SEEDED)
    for target in (tmp_path / "x.py", tmp_path):
        outcome = check(capsys, target)
        assert (outcome.status, outcome.out, outcome.err) == (1, finding_line(inner), "")


def test_missing_path_is_an_error_and_the_rest_is_linted(tmp_path, seeded, capsys):
    missing = tmp_path / "nope.py"
    outcome = check(capsys, missing, seeded)
    assert outcome.status == 1
    assert outcome.err == f"{missing}:1:1: error: cannot read: No such file or directory\n"
    assert outcome.out == finding_line(seeded)


def test_unreadable_file_is_an_error_and_the_rest_is_linted(tmp_path, seeded, capsys):
    locked = write(tmp_path, "locked.py", SEEDED)
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running with privileges that read any file")
        outcome = check(capsys, locked, seeded)
    finally:
        locked.chmod(0o644)
    assert outcome.status == 1
    assert outcome.err == f"{locked}:1:1: error: cannot read: Permission denied\n"
    assert outcome.out == finding_line(seeded)


def nested(depth: int, opener: str, closer: str) -> str:
    """SEEDED, with a body line holding an expression nested ``depth`` deep."""
    deep = opener * depth + "x" + closer * depth
    return SEEDED.replace("    if x > 0:", f"    y = {deep}\n    if x > 0:")


@pytest.mark.parametrize("opener, closer", [("(", ")"), ("g(", ")"), ("[", "]"), ("-", ""), ("lambda: ", "")])
def test_deeply_nested_expression_that_python_accepts_is_linted(tmp_path, capsys, opener, closer):
    path = write(tmp_path, "deep.py", nested(200, opener, closer))
    outcome = check(capsys, path)
    assert (outcome.status, outcome.err) == (1, "")
    assert outcome.out == finding_line(path, (6, 8, "JIT201"))


@pytest.mark.parametrize("opener, closer", [("(", ")"), ("g(", ")"), ("{", "}"), ("(", "")])
def test_brackets_nested_deeper_than_python_allows_are_a_syntax_error(tmp_path, seeded, capsys, opener, closer):
    bad = write(tmp_path, "deep.py", nested(1000, opener, closer))
    outcome = check(capsys, bad, seeded)
    column = 8 + 201 * len(opener)  # the bracket past the limit, on line 5
    assert outcome.status == 1
    assert outcome.err == f"{bad}:5:{column}: error: syntax error: too many nested parentheses " \
                          "(Python allows 200 levels)\n"
    assert outcome.out == finding_line(seeded)


@pytest.mark.parametrize("prefix", ["-", "~ ", "not ", "lambda: "])
def test_thousands_of_prefix_operators_are_refused(tmp_path, seeded, capsys, prefix):
    bad = write(tmp_path, "unary.py", nested(5000, prefix, ""))
    outcome = check(capsys, bad, seeded)
    assert outcome.status == 1
    assert outcome.err == f"{bad}:5:9: error: too deeply nested to parse: 1000 or more prefix operators in a row\n"
    assert outcome.out == finding_line(seeded)


def test_brackets_and_dashes_in_strings_and_comments_do_not_count_as_nesting(tmp_path, capsys):
    comment = "    # " + "(" * 300 + "-" * 1200 + "\n"
    strings = "    s = '" + "[" * 300 + "'\n" + '    t = """' + "{" * 300 + '"""\n'
    filler = comment + strings
    path = write(tmp_path, "strings.py", SEEDED.replace("    if x > 0:", filler + "    if x > 0:"))
    outcome = check(capsys, path)
    assert (outcome.status, outcome.err) == (1, "")
    assert outcome.out == finding_line(path, (8, 8, "JIT201"))


def test_deep_analysis_does_not_leave_the_recursion_limit_raised():
    limit = sys.getrecursionlimit()
    result = lint_source(nested(190, "g(", ")"), "deep.py")
    assert result.error is None
    assert [(d.line, d.code) for d in result.diagnostics] == [(6, "JIT201")]
    assert sys.getrecursionlimit() == limit


@pytest.mark.parametrize("prefer_static", [True, False])
def test_deep_analysis_keeps_the_fix_order_asked_for(prefer_static):
    """The retry on a large stack runs in a new thread: it must see the caller's fix order."""
    from jitlint.fixing import fix_source

    flag_only = SEEDED.replace("relu(x)", "relu(x, flag)").replace("if x > 0", "if flag > 0")
    for depth in (1, 190):  # 190 nested calls: analysed again on the large stack
        source = flag_only.replace("    if flag", "    y = " + "g(" * depth + "x" + ")" * depth + "\n    if flag")
        fixed = fix_source(source, unsafe=True, prefer_static=prefer_static).fixed
        assert ("static_argnames" in fixed, "jnp.where" in fixed) == (prefer_static, not prefer_static), depth


def test_stdin_with_bad_source_reports_under_stdin_filename(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"def f(:\n"), encoding="utf-8"))
    outcome = run_cli(capsys, "check", "--isolated", "-", "--stdin-filename", "pkg/mod.py")
    assert outcome.status == 1
    assert re.fullmatch(r"pkg/mod\.py:1:\d+: error: syntax error: [^\n]+\n", outcome.err), outcome.err
    assert_no_traceback(outcome)


def test_lint_bytes_never_raises_on_bad_input():
    for data in (b"\xff\xfe\x00", b"def (", b"\x00", b"if x:\n\tpass\n        pass\n", b"(" * 5000):
        result = lint_bytes(data, "bad.py")
        assert result.error is not None and result.error.path == "bad.py"
        assert not result.diagnostics


MODERN = '''\
import jax
import jax.numpy as jnp


def first[T](items: list[T]) -> T:
    return items[0]


type Vector = list[float]


class Box[T]:
    def get(self) -> T: ...


def route(command):
    match command:
        case {"op": "scale", "by": float(factor)}:
            return factor
        case [head, *_]:
            return head
        case _:
            return None


def gather():
    try:
        pass
    except* ValueError as group:
        return group.exceptions


def only(a, b, /, c, *, d):
    return a


label = "step"
banner = f"{f"{label!r:>{10}}"}"
if (size := len(banner)) > 3:
    banner = banner[:size]


@jax.jit
def scale[T](x: T, factor: float) -> T:
    if (total := x.sum()) > factor:
        return x / total
    return x
'''


def test_python_3_8_to_3_13_syntax_parses_and_is_linted(tmp_path, capsys):
    path = write(tmp_path, "modern.py", MODERN)
    outcome = run_cli(capsys, "check", "--isolated", "--format", "json", str(path))
    assert (outcome.status, outcome.err) == (1, "")
    assert outcome.findings() == [(45, 8, "JIT201")]


def test_clean_modern_syntax_reports_nothing(tmp_path, capsys):
    path = write(tmp_path, "modern.py", MODERN.split("\n\n\n@jax.jit")[0] + "\n" + CLEAN)
    outcome = run_cli(capsys, "check", "--isolated", str(path))
    assert (outcome.status, outcome.out, outcome.err) == (0, "All checks passed.\n", "")


# ------------------------------------------------------------ --fix and --diff
# The same hostile files under --fix and --diff: one error line, exit 1, the good file next to
# them still fixed (or diffed), and the bad file never written (not even rewritten as it was).

SEEDED_FIXED = SEEDED.replace("import jax\n", "import jax\nimport jax.numpy as jnp\n").replace(
    "    if x > 0:\n        return x\n    return 0.0\n", "    return jnp.where(x > 0, x, 0.0)\n")
#: a minified module: one 5 MB line
MINIFIED = "import jax; f = jax.jit(lambda x: x); data = [" + "1, " * (5 * 1024 * 1024 // 3) + "]\n"


def _deep_binop(n: int) -> str:
    return SEEDED.replace("    if x > 0:", "    y = " + " + ".join(["x"] * n) + "\n    if x > 0:")


#: name -> (bytes of the bad file, the error after "path:")
HOSTILE = {
    "syntax-error": (b"import jax\n\ndef f(:\n    pass\n", r"3:\d+: error: syntax error: [^\n]+"),
    "invalid-utf8": (b"x = 1\nname = 'caf\xe9'\n",
                     re.escape("2:12: error: cannot decode as utf-8: invalid continuation byte (byte 0xe9)")),
    "unknown-cookie": (b"# -*- coding: klingon -*-\nx = 1\n",
                       re.escape("1:1: error: cannot decode: unknown encoding: klingon")),
    "nul-byte": (SEEDED.replace("return 0.0", "return 0.0\x00").encode(),
                 re.escape("7:15: error: source contains a NUL byte")),
    "brackets-1000-deep": (nested(1000, "(", ")").encode(),
                           r"5:\d+: error: syntax error: too many nested parentheses \(Python allows 200 levels\)"),
    "operators-5000-long": (_deep_binop(5000).encode(),
                            re.escape("5:1: error: too deeply nested to parse: Python itself cannot compile it")),
    "5MB-single-line": (MINIFIED.encode(), re.escape(
        f"1:1: error: too long to lint: the statement on this line is {len(MINIFIED) - 1:,} characters long "
        "(minified or generated code? the limit is 200,000)")),
}


@pytest.mark.parametrize("mode", ["--fix", "--diff"])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_file_under_fix_and_diff(tmp_path, capsys, kind, mode):
    data, error = HOSTILE[kind]
    bad = tmp_path / "bad.py"
    bad.write_bytes(data)
    good = write(tmp_path, "zz_good.py", SEEDED)
    before = bad.stat()
    outcome = run_cli(capsys, "check", "--isolated", "--no-reason", "-q", mode, "--unsafe-fixes", str(bad), str(good))
    assert outcome.status == 1
    assert re.fullmatch(re.escape(str(bad)) + ":" + error + "\n", outcome.err), outcome.err
    assert_no_traceback(outcome)
    after = bad.stat()
    assert bad.read_bytes() == data and (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
    if mode == "--fix":
        assert good.read_text() == SEEDED_FIXED
    else:
        assert good.read_text() == SEEDED and f"+++ {good}\n" in outcome.out and str(bad) not in outcome.out
    assert sorted(os.listdir(tmp_path)) == ["bad.py", "zz_good.py"]


@pytest.mark.parametrize("mode", ["--fix", "--diff"])
def test_unreadable_paths_under_fix_and_diff(tmp_path, capsys, mode):
    missing = tmp_path / "nope.py"
    loop = tmp_path / "loop.py"
    loop.symlink_to(tmp_path / "loop2.py")
    (tmp_path / "loop2.py").symlink_to(loop)
    good = write(tmp_path, "zz_good.py", SEEDED)
    outcome = run_cli(capsys, "check", "--isolated", "--no-reason", "-q", mode, "--unsafe-fixes",
                      str(missing), str(loop), str(good))
    assert outcome.status == 1
    assert outcome.err == (f"{missing}:1:1: error: cannot read: No such file or directory\n"
                           f"{loop}:1:1: error: cannot read: Too many levels of symbolic links\n")
    assert (good.read_text() == SEEDED_FIXED) == (mode == "--fix")
    assert loop.is_symlink() and not missing.exists()


def test_symlink_loop_inside_a_walked_folder_is_reported_and_the_rest_fixed(tmp_path, capsys):
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    good = write(tmp_path, "zz_good.py", SEEDED)
    for argv in (["check"], ["check", "--fix", "--unsafe-fixes"]):
        outcome = run_cli(capsys, *argv, "--isolated", "--no-reason", "-q", str(tmp_path))
        assert outcome.status == 1
        assert outcome.err.count("error: cannot read: Too many levels of symbolic links\n") == 2, outcome.err
    assert good.read_text() == SEEDED_FIXED


def test_unreadable_file_under_fix(tmp_path, capsys):
    locked = write(tmp_path, "locked.py", SEEDED)
    good = write(tmp_path, "zz_good.py", SEEDED)
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running with privileges that read any file")
        outcome = run_cli(capsys, "check", "--isolated", "-q", "--fix", "--unsafe-fixes", str(locked), str(good))
    finally:
        locked.chmod(0o644)
    assert (outcome.status, outcome.err) == (1, f"{locked}:1:1: error: cannot read: Permission denied\n")
    assert locked.read_text() == SEEDED and good.read_text() == SEEDED_FIXED


def test_directory_named_like_a_module_is_walked_by_fix(tmp_path, capsys):
    inner = write(tmp_path, "x.py/inner.py", SEEDED)
    outcome = run_cli(capsys, "check", "--isolated", "-q", "--fix", "--unsafe-fixes", str(tmp_path / "x.py"))
    assert (outcome.status, outcome.err) == (0, "")
    assert inner.read_text() == SEEDED_FIXED


def test_empty_file_under_fix_is_clean_and_not_written(tmp_path, capsys):
    empty = write(tmp_path, "empty.py", "")
    before = empty.stat()
    for mode in ("--fix", "--diff"):
        outcome = run_cli(capsys, "check", "--isolated", "-q", mode, "--unsafe-fixes", str(empty))
        assert (outcome.status, outcome.out, outcome.err) == (0, "", "")
    after = empty.stat()
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


@pytest.mark.parametrize("newline", ["\r\n", "mixed"])
def test_fix_keeps_every_line_ending(tmp_path, capsys, newline):
    lines = SEEDED.splitlines(keepends=True)
    endings = ["\r\n"] * len(lines) if newline == "\r\n" else ["\n", "\r\n"] * len(lines)
    data = "".join(line.rstrip("\n") + ending for line, ending in zip(lines, endings))
    path = tmp_path / "f.py"
    path.write_bytes(data.encode())
    outcome = run_cli(capsys, "check", "--isolated", "-q", "--fix", "--unsafe-fixes", str(path))
    assert outcome.status == 0
    fixed = path.read_bytes().decode()
    assert fixed.replace("\r\n", "\n") == SEEDED_FIXED
    kept = [line for line in data.splitlines(keepends=True) if "if x > 0" not in line and "return" not in line]
    assert all(line in fixed.splitlines(keepends=True) for line in kept)  # each with its own ending
    if newline == "\r\n":
        assert not re.search(r"(?<!\r)\n", fixed)


def test_form_feed_on_a_line_of_its_own_is_kept_by_fix(tmp_path, capsys):
    path = write(tmp_path, "f.py", SEEDED.replace("\n@jax.jit", "\n\f\n@jax.jit"))
    outcome = run_cli(capsys, "check", "--isolated", "-q", "--fix", "--unsafe-fixes", str(path))
    assert outcome.status == 0
    assert path.read_text() == SEEDED_FIXED.replace("\n@jax.jit", "\n\f\n@jax.jit")


def test_stdin_with_bad_source_under_fix_and_diff(capsys, monkeypatch):
    data = b"def f(:\n"
    for mode, echoed in (("--fix", data.decode()), ("--diff", "")):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        outcome = run_cli(capsys, "check", "--isolated", "-q", mode, "-", "--stdin-filename", "pkg/mod.py")
        assert outcome.status == 1
        assert outcome.out == echoed  # --fix passes the source through untouched
        assert re.fullmatch(r"pkg/mod\.py:1:\d+: error: syntax error: [^\n]+\n", outcome.err), outcome.err


# -------------------------------------------------- crashes and blow-ups of the parser
@pytest.mark.parametrize("make, error", [
    # LibCST's native parser overflowed its stack on these (a segmentation fault) before any
    # error could be reported: Python itself cannot compile the first, the second is flat in
    # Python (any length compiles) but nested in LibCST
    (lambda: _deep_binop(8000), "too deeply nested to parse: Python itself cannot compile it"),
    (lambda: SEEDED.replace("    if x > 0:", "    y = [" + " + ".join(["x"] * 8000) + ", 0]\n    if x > 0:"),
     "too deeply nested to parse: Python itself cannot compile it"),
    (lambda: SEEDED.replace("    if x > 0:", "    y = " + " and ".join(["x"] * 10000) + "\n    if x > 0:"),
     "too deeply nested to lint: a chain of 9,999 operators (the limit is 3,000)"),
])
def test_chains_that_crashed_the_parser_are_one_error(tmp_path, make, error):
    bad = write(tmp_path, "deep.py", make())
    good = write(tmp_path, "zz_good.py", SEEDED)
    for mode in ([], ["--fix", "--unsafe-fixes"]):
        outcome = run_process([console_script(), "check", "--isolated", "--no-cache", "-q", "--no-reason", *mode,
                               str(bad), str(good)], tmp_path)
        assert outcome.status == 1, outcome.err
        assert outcome.err == f"{bad}:5:1: error: {error}\n"
    assert good.read_text() == SEEDED_FIXED


@pytest.mark.parametrize("expression", [
    " + ".join(["x"] * 1000),
    " and ".join(["x"] * 300),
    "x" + ".real" * 1000,
    "x" + "[0]" * 300,
    " if x else ".join(["x"] * 300),
    " < ".join(["x"] * 1000),
])
def test_long_chains_python_accepts_are_linted_and_fixed(tmp_path, capsys, expression):
    path = write(tmp_path, "chain.py", SEEDED.replace("    if x > 0:", f"    y = {expression}\n    if x > 0:"))
    outcome = check(capsys, path)
    assert (outcome.status, outcome.err) == (1, "")
    assert finding_line(path, (6, 8, "JIT201")) in outcome.out
    outcome = run_cli(capsys, "check", "--isolated", "-q", "--fix", "--unsafe-fixes", str(path))
    assert outcome.err == ""
    assert "jnp.where(x > 0, x, 0.0)" in path.read_text()


def test_a_source_error_survives_the_trip_between_processes():
    import pickle

    from jitlint.source import SourceError

    err = pickle.loads(pickle.dumps(SourceError(3, 7, "invalid UTF-8 at byte 12")))
    assert (err.line, err.column, str(err)) == (3, 7, err.message)
    assert err.message == "invalid UTF-8 at byte 12"


def test_code_python_compiles_but_libcst_rejects_is_not_called_a_syntax_error():
    """Found by the hypothesmith fuzz: a backslash continuation before a CRLF at the end of the
    file compiles (and imports) in CPython, but LibCST's tokenizer rejects it."""
    source = "import jax\nf = jax.jit\n\\\r\n"
    compile(source, "x.py", "exec")
    result = lint_source(source, "x.py")
    assert result.error is not None and not result.error.internal
    assert result.error.message.startswith("not checked: Python compiles this file but LibCST")
    assert "syntax error" not in result.error.message
