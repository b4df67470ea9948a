"""Where users meet jitlint outside its own CLI: pre-commit and flake8."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import jitlint
from frontend_support import REPO, run_process, write
from jitlint.registry import RULES_BY_CODE

#: a safe fix makes it clean: `print` of a tracer in a jitted function
BAD = """\
import jax


@jax.jit
def f(x):
    print("x =", x)
    return x * 2
"""
GOOD = "def g(x):\n    return x + 1\n"

#: what pip prints when it cannot reach a package index
NO_NETWORK = ("Failed to establish a new connection", "Temporary failure in name resolution",
              "No matching distribution found", "Could not find a version that satisfies",
              "Network is unreachable", "ProxyError")


def git(*argv: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=jitlint tests", "-c", "user.email=tests@jitlint.invalid", *argv],
                   cwd=str(cwd), check=True, capture_output=True)


def test_hooks_manifest_is_valid_for_pre_commit():
    clientlib = pytest.importorskip("pre_commit.clientlib")
    hooks = {hook["id"]: hook for hook in clientlib.load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"jitlint", "jitlint-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["require_serial"]
    # the check reads notebooks too; the fix hook writes only Python files (a notebook is never fixed)
    assert hooks["jitlint"]["types_or"] == ["python", "jupyter"] and hooks["jitlint"]["types"] == ["file"]
    assert hooks["jitlint-fix"]["types"] == ["python"]
    assert hooks["jitlint"]["entry"].startswith("jitlint check")
    assert "--fix --exit-non-zero-on-fix" in hooks["jitlint-fix"]["entry"]
    assert all("--force-exclude" in hook["entry"].split() for hook in hooks.values())


def _try_repo(demo: Path, home: Path, *hook: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_", "JITLINT_"))}
    env.update(PRE_COMMIT_HOME=str(home), NO_COLOR="1", PRE_COMMIT_COLOR="never")
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), *hook, "--all-files",
                           "--color", "never"], cwd=str(demo), env=env, capture_output=True, timeout=600)
    out = proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")
    log = home / "pre-commit.log"
    if proc.returncode == 3 or "An unexpected error has occurred" in out:
        details = out + (log.read_text(errors="replace") if log.exists() else "")
        if any(marker in details for marker in NO_NETWORK):
            pytest.skip("pre-commit could not install jitlint's hook environment: no package index reachable")
        pytest.fail(f"pre-commit failed:\n{details}")
    return proc.returncode, out


def _demo_repo(tmp_path: Path, files: dict) -> Path:
    """A git repository with ``files`` (name -> text) committed, for `pre-commit try-repo` to run in."""
    pytest.importorskip("pre_commit")
    if not (REPO / ".git").exists():
        pytest.skip("pre-commit try-repo needs jitlint's git checkout")
    demo = tmp_path / "demo"
    demo.mkdir()
    git("init", "-q", ".", cwd=demo)
    for name, text in files.items():
        write(demo, name, text)
    git("add", ".", cwd=demo)
    git("commit", "-q", "-m", "start", cwd=demo)
    return demo


def test_pre_commit_hooks_fail_fix_then_pass(tmp_path):
    """Real pre-commit, on a git repo with a bad and a good file: `jitlint` fails and `jitlint-fix`
    fixes (and fails, as files changed); then `jitlint` passes."""
    demo = _demo_repo(tmp_path, {"bad.py": BAD, "good.py": GOOD})

    status, out = _try_repo(demo, tmp_path / "home")  # both hooks, in the manifest's order
    assert status == 1, out
    assert "bad.py:6:5: JIT103 `print()` of traced `x`" in out
    assert "good.py" not in out
    assert "- hook id: jitlint-fix\n- exit code: 1\n- files were modified by this hook" in out
    fixed = (demo / "bad.py").read_text()
    assert 'jax.debug.print("x = {!s}", x)' in fixed and "print(" not in fixed.replace("debug.print(", "")
    assert (demo / "good.py").read_text() == GOOD

    status, out = _try_repo(demo, tmp_path / "home", "jitlint")
    assert status == 0, out
    assert re.search(r"^jitlint\.+Passed$", out, re.MULTILINE), out


def test_pre_commit_hooks_honour_exclude(tmp_path):
    """pre-commit names the files: an excluded one is neither reported by `jitlint` nor rewritten by
    `jitlint-fix` (--force-exclude), while a file that is not excluded still is."""
    demo = _demo_repo(tmp_path, {"pyproject.toml": '[tool.jitlint]\nexclude = ["train.py"]\n',
                                 "train.py": BAD, "good.py": GOOD})

    status, out = _try_repo(demo, tmp_path / "home")
    assert status == 0, out
    assert re.search(r"^jitlint \(fix\)\.+Passed$", out, re.MULTILINE), out
    assert re.search(r"^jitlint\.+Passed$", out, re.MULTILINE), out
    assert "train.py:" not in out
    assert (demo / "train.py").read_text() == BAD

    write(demo, "model.py", BAD)  # the same code, not excluded: reported
    git("add", "model.py", cwd=demo)
    status, out = _try_repo(demo, tmp_path / "home", "jitlint")
    assert status == 1, out
    assert "model.py:6:5: JIT103" in out and "train.py:" not in out


def _documented_configs() -> list:
    """The `.pre-commit-config.yaml` examples of docs/integrations.md."""
    text = (REPO / "docs" / "integrations.md").read_text(encoding="utf-8")
    return re.findall(r"```yaml\n# \.pre-commit-config\.yaml\n(.*?)```", text, re.DOTALL)


def test_documented_local_hooks_match_the_manifest():
    """The `repo: local` form of the docs runs what the shipped hooks run, with the same file selection."""
    yaml = pytest.importorskip("yaml")
    clientlib = pytest.importorskip("pre_commit.clientlib")
    manifest = {hook["id"]: hook for hook in clientlib.load_manifest(str(REPO / ".pre-commit-hooks.yaml"))}
    configs = [yaml.safe_load(text) for text in _documented_configs()]
    assert len(configs) == 2
    (local,) = [repo for config in configs for repo in config["repos"] if repo["repo"] == "local"]
    assert [hook["id"] for hook in local["hooks"]] == ["jitlint-fix", "jitlint"]  # fix first, then report
    for hook in local["hooks"]:
        shipped = manifest[hook["id"]]
        assert (hook["entry"], hook.get("types", ["file"]), hook.get("types_or", []), hook["require_serial"]) == \
            (shipped["entry"], shipped["types"], shipped["types_or"], shipped["require_serial"])
        assert hook["language"] == "system"
    (remote,) = [repo for config in configs for repo in config["repos"] if repo["repo"] != "local"]
    assert [hook["id"] for hook in remote["hooks"]] == ["jitlint-fix", "jitlint"]
    assert "OWNER" not in remote["repo"] and "github.com" not in remote["repo"]  # no invented home


def test_documented_local_hooks_run_offline(tmp_path):
    """The `repo: local` hooks, copied from the docs, with jitlint on PATH: real pre-commit fixes and
    reports without installing anything."""
    demo = _demo_repo(tmp_path, {"bad.py": BAD, "good.py": GOOD})
    config = next(text for text in _documented_configs() if "repo: local" in text)
    write(demo, ".pre-commit-config.yaml", config)
    git("add", ".pre-commit-config.yaml", cwd=demo)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_", "JITLINT_"))}
    env.update(PRE_COMMIT_HOME=str(tmp_path / "home"), NO_COLOR="1",
               PATH=os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", ""))
    run = [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"]
    proc = subprocess.run(run, cwd=str(demo), env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "- hook id: jitlint-fix\n- exit code: 1\n- files were modified by this hook" in proc.stdout
    assert 'jax.debug.print("x = {!s}", x)' in (demo / "bad.py").read_text()
    proc = subprocess.run(run, cwd=str(demo), env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# ------------------------------------------------------------------------------------------------ flake8

def test_flake8_help_lists_the_plugin_its_option_and_the_jit_codes(tmp_path):
    pytest.importorskip("flake8")
    outcome = run_process([sys.executable, "-m", "flake8", "--help"], tmp_path)
    assert outcome.status == 0, outcome.err
    section = outcome.out.split("\njitlint:\n", 1)[1].split("\n\n", 1)[0]
    assert "--jitlint-extend-jit-decorators" in section
    listed = " ".join(section.split())
    assert all(code in listed for code in RULES_BY_CODE)
    assert f"jitlint: {jitlint.__version__}" in " ".join(outcome.out.split("Installed plugins:", 1)[1].split())


def test_flake8_bug_report_names_the_plugin(tmp_path):
    pytest.importorskip("flake8")
    outcome = run_process([sys.executable, "-m", "flake8", "--bug-report"], tmp_path)
    assert outcome.status == 0, outcome.err
    assert {"plugin": "jitlint", "version": jitlint.__version__} in json.loads(outcome.out)["plugins"]
