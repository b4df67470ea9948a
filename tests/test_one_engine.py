"""One engine, one answer: every front end reports what `jitlint check PACKAGE` reports.

The package has a helper called across modules (with no jit of its own), a
helper imported by two jitted callers, and a cycle between two modules.
Checking the package, checking each file alone, `--diff`, `--fix`, the flake8
plugin, the language server and the pre-commit hook with only the helper
staged must all find the same findings in the same places.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from frontend_support import REPO, console_script, flake8_findings, run_flake8, run_process, write

FILES = {
    "pyproject.toml": '[project]\nname = "proj"\n',
    "pkg/__init__.py": "",
    # the helper: no jit of its own; traced through model.step and other.run
    "pkg/util.py": """\
def clip(x, limit):
    if x > limit:
        x = limit
    print("x is", x)
    return x
""",
    "pkg/model.py": """\
import jax

from pkg.util import clip


@jax.jit
def step(x, limit):
    return clip(x * 2, limit)
""",
    "pkg/other.py": """\
import jax

from .cyc_a import ping
from .util import clip


@jax.jit
def run(y):
    return clip(y, 1.0) + ping(y)
""",
    # a cycle: cyc_a imports cyc_b, cyc_b imports cyc_a
    "pkg/cyc_a.py": """\
from .cyc_b import pong


def ping(y):
    return pong(y, 3)
""",
    "pkg/cyc_b.py": """\
from . import cyc_a


def pong(y, n):
    return float(y) * n


def again(y):
    return cyc_a.ping(y)
""",
}

#: (file, line, column, code) that `check pkg` reports
EXPECTED = {
    ("util.py", 2, 8, "JIT201"),
    ("util.py", 4, 5, "JIT103"),
    ("cyc_b.py", 5, 12, "JIT301"),
}

Found = Set[Tuple[str, int, int, str]]


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    for relative, text in FILES.items():
        write(root, relative, text)
    return root


def check_json(root: Path, *paths: str, extra: Tuple[str, ...] = ()) -> Found:
    outcome = run_process([console_script(), "check", "--isolated", "--no-cache", "--format", "json", *extra, *paths],
                          root)
    assert outcome.status in (0, 1), outcome.err
    return {(Path(d["path"]).name, d["line"], d["column"], d["code"]) for d in json.loads(outcome.out)}


def test_check_of_the_package_and_of_each_file_alone_agree(project):
    assert check_json(project, "pkg") == EXPECTED
    alone: Found = set()
    for name in sorted(os.listdir(project / "pkg")):
        got = check_json(project, f"pkg/{name}")
        assert got == {f for f in EXPECTED if f[0] == name}, name
        alone |= got
    assert alone == EXPECTED


def test_a_file_checked_from_inside_its_package_folder_agrees(project):
    assert check_json(project / "pkg", "util.py") == {f for f in EXPECTED if f[0] == "util.py"}


def test_diff_and_fix_of_one_file_fix_what_check_reports(project):
    diff = run_process([console_script(), "check", "--isolated", "--no-cache", "--diff", "--unsafe-fixes",
                        "pkg/util.py"], project)
    assert diff.status == 1, diff.err
    assert "+    jax.debug.print(" in diff.out and "jnp.where(x > limit, limit, x)" in diff.out
    fixed = run_process([console_script(), "check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes",
                         "pkg/util.py"], project)
    assert "Fixed 2 findings in 1 file; 0 remaining." in fixed.out, fixed.out + fixed.err
    assert check_json(project, "pkg") == {f for f in EXPECTED if f[0] != "util.py"}
    again = run_process([console_script(), "check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes",
                         "pkg/util.py"], project)
    assert "Fixed 0 findings in 0 files" in again.out


def test_fix_of_the_package_leaves_only_what_has_no_fix(project):
    fixed = run_process([console_script(), "check", "--isolated", "--no-cache", "--fix", "--unsafe-fixes", "pkg"],
                        project)
    assert fixed.status == 1, fixed.err  # the float() of cyc_b has no mechanical fix
    assert check_json(project, "pkg") == {("cyc_b.py", 5, 12, "JIT301")}
    for name in FILES:
        if name.endswith(".py"):
            compile((project / name).read_text(), name, "exec")


def test_flake8_reports_the_same_findings_file_by_file(project):
    pytest.importorskip("flake8")
    outcome = run_flake8(["pkg/util.py"], project)
    assert flake8_findings(outcome) == {(f[0], f[1], f[2], f[3]) for f in EXPECTED if f[0] == "util.py"}, outcome.err
    outcome = run_flake8(["pkg"], project)
    assert flake8_findings(outcome) == EXPECTED, outcome.err


def test_the_language_server_reports_the_helpers_findings(project):
    pytest.importorskip("pygls")
    pytest.importorskip("pytest_lsp")
    got = _lsp_diagnostics(project / "pkg" / "util.py")
    assert got == {(f[1], f[2], f[3]) for f in EXPECTED if f[0] == "util.py"}


class RawLspClient:
    """`jitlint server` over stdio, spoken to in raw JSON-RPC (no client library between)."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "jitlint", "server"], stdin=subprocess.PIPE, bufsize=0,
                                     stdout=subprocess.PIPE, cwd=str(cwd))
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"processId": None, "rootUri": cwd.as_uri(), "capabilities": {}}})
        self.reply(1)
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60) -> dict:
        import select

        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        assert ready, f"the server said nothing for {timeout} s"
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def reply(self, request_id: int) -> dict:
        while True:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                return message

    def published(self) -> List[dict]:
        while True:
            message = self.receive()
            if message.get("method") == "textDocument/publishDiagnostics":
                return message["params"]["diagnostics"]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=30)


def _lsp_diagnostics(path: Path) -> Set[Tuple[int, int, str]]:
    """Open ``path`` in `jitlint server` and read what it publishes."""
    client = RawLspClient(path.parent)
    try:
        client.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": path.as_uri(), "languageId": "python", "version": 1, "text": path.read_text()}}})
        return {(d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1, d["code"])
                for d in client.published()}
    finally:
        client.close()


def test_the_language_server_never_reads_a_fifo_it_was_not_given(tmp_path):
    """`didSave` (or a code action) for a file the editor does not hold must not read it from disk."""
    pytest.importorskip("pygls")
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "x.py"
    os.mkfifo(fifo)
    client = RawLspClient(tmp_path)
    try:
        client.send({"jsonrpc": "2.0", "method": "textDocument/didSave",
                     "params": {"textDocument": {"uri": fifo.as_uri()}}})
        client.send({"jsonrpc": "2.0", "id": 7, "method": "textDocument/codeAction", "params": {
            "textDocument": {"uri": fifo.as_uri()},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": []}}})
        assert client.reply(7)["result"] in ([], None)  # answered: the server did not block on the FIFO
    finally:
        client.close()


def test_pre_commit_with_only_the_helper_staged_fails_on_it(project, tmp_path):
    pytest.importorskip("pre_commit")
    if not (REPO / ".git").exists():
        pytest.skip("pre-commit try-repo needs jitlint's git checkout")
    from test_integrations import NO_NETWORK, git

    git("init", "-q", ".", cwd=project)
    git("add", ".", cwd=project)
    git("commit", "-q", "-m", "start", cwd=project)
    (project / "pkg" / "util.py").write_text(FILES["pkg/util.py"] + "\n\ndef unused():\n    return 1\n")
    git("add", "pkg/util.py", cwd=project)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_", "JITLINT_"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "home"), NO_COLOR="1", PRE_COMMIT_COLOR="never")
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "jitlint", "--color", "never"],
                          cwd=str(project), env=env, capture_output=True, timeout=600)
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    log = tmp_path / "home" / "pre-commit.log"
    details = out + (log.read_text(errors="replace") if log.exists() else "")
    if proc.returncode == 3 or "An unexpected error has occurred" in out:
        if any(marker in details for marker in NO_NETWORK):
            pytest.skip("pre-commit could not install jitlint's hook environment: no package index reachable")
        pytest.fail(details)
    assert proc.returncode == 1, out
    assert "pkg/util.py:2:8: JIT201" in out and "pkg/util.py:4:5: JIT103" in out
    assert "model.py:" not in out.split("why:")[0]  # only the staged file is reported


def test_the_cache_follows_a_change_in_a_module_the_unit_read(project, tmp_path):
    """`c.py` jits a function calling a helper of `b.py`: the hazard appearing in b.py is seen
    by `check c.py` through the cache (b.py's digest is part of c.py's entry)."""
    write(project, "b.py", "def helper(x):\n    return x * 2\n")
    write(project, "c.py", "import jax\n\nfrom b import helper\n\n\n@jax.jit\ndef f(x):\n    return helper(x)\n")
    argv = ["check", "--isolated", "--format", "json", "--cache-dir", str(tmp_path / "cache"), "b.py"]
    assert check_json_cached(project, argv) == []
    write(project, "b.py", "def helper(x):\n    if x > 0:\n        return x\n    return -x\n")
    assert check_json_cached(project, argv) == [("b.py", 2, "JIT201")]
    argv_c = ["check", "--isolated", "--format", "json", "--cache-dir", str(tmp_path / "cache2"), "c.py"]
    assert check_json_cached(project, argv_c) == []
    write(project, "b.py", "def helper(x):\n    print(x)\n    return x\n")
    assert check_json_cached(project, argv + ["c.py"]) == [("b.py", 2, "JIT103")]


def check_json_cached(root: Path, argv: List[str]) -> List[Tuple[str, int, str]]:
    outcome = run_process([console_script(), *argv], root)
    assert outcome.status in (0, 1), outcome.err
    return sorted((Path(d["path"]).name, d["line"], d["code"]) for d in json.loads(outcome.out))


def test_overrides_stand_for_unsaved_text_of_a_caller(project):
    """The editor's buffers: a caller's unsaved text decides what the helper gets."""
    from jitlint.config import Config
    from jitlint.runner import lint_files

    here = os.getcwd()
    os.chdir(project)
    try:
        calm = FILES["pkg/model.py"].replace("@jax.jit\n", "")
        texts: Dict[str, bytes] = {"pkg/model.py": calm.encode(), "pkg/other.py": b"import jax\n"}
        (result,) = lint_files(["pkg/util.py"], Config(), overrides=texts)
        assert result.diagnostics == ()
        (result,) = lint_files(["pkg/util.py"], Config())
        assert {(d.line, d.code) for d in result.diagnostics} == {(2, "JIT201"), (4, "JIT103")}
    finally:
        os.chdir(here)


def test_a_project_without_markers_is_only_what_was_named(tmp_path):
    """No pyproject/setup.cfg/.git above: nothing but the named files is read."""
    from jitlint.files import project_root

    folder = tmp_path / "loose"
    write(folder, "a.py", "x = 1\n")
    assert project_root(str(folder / "a.py")) is None or not str(project_root(str(folder / "a.py"))).startswith(
        str(tmp_path))
    shutil.rmtree(folder)


@pytest.mark.parametrize("namespace_portion", [False, True])
def test_a_package_without_project_markers_is_its_own_project(tmp_path, namespace_portion):
    """An unpacked wheel or an installed package has no pyproject/setup.cfg/.git: the folder above
    its outermost package (a folder with ``__init__.py``; a sub-folder without one is a namespace
    portion of it) is the project, so the package folder, a file alone and a sub-folder give what the
    folder above gives."""
    from jitlint.files import project_root

    root = tmp_path / "unpacked"
    prefix = "pkg/sub/" if namespace_portion else "pkg/"
    for relative, text in FILES.items():
        if relative == "pyproject.toml":
            continue
        if relative != "pkg/__init__.py":
            relative = prefix + relative[len("pkg/"):]
            text = text.replace("from pkg.util", "from pkg.sub.util" if namespace_portion else "from pkg.util")
        write(root, relative, text)
    assert project_root(str(root / (prefix + "util.py"))) == str(root)
    whole = check_json(root, ".")
    assert whole == EXPECTED
    assert check_json(root / "pkg", ".") == EXPECTED
    for name in ("util.py", "cyc_b.py"):
        assert check_json(root, prefix + name) == {f for f in EXPECTED if f[0] == name}, name
    loose = tmp_path / "loose"
    write(loose, "a.py", "x = 1\n")
    assert project_root(str(loose / "a.py")) is None or not str(project_root(str(loose / "a.py"))).startswith(
        str(tmp_path))


def test_findings_carry_a_structured_subject():
    """The name or expression a finding is about, for tools (the verifier) that must not parse messages."""
    from jitlint.engine import lint_source

    source = ("import jax\n\nLOG = []\nSCALE = 1.0\n\n\ndef set_scale(s):\n    global SCALE\n    SCALE = s\n\n\n"
              "@jax.jit\ndef f(x):\n    LOG.append(x)\n    if x > 0:\n        return x * SCALE\n    return x\n")
    found = {d.code: d.subject for d in lint_source(source, "m.py").diagnostics}
    assert found == {"JIT101": "SCALE", "JIT102": "LOG", "JIT201": "x > 0"}
