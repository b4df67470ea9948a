"""Linting and fixing never run the code they read: not the checked modules, not the helpers
they import, not modules of the project that shadow ``jax`` or ``numpy``.

Every module of the project below writes a marker file when it is imported.  jitlint runs
over it with every rule, every fix, ``--diff``, worker processes and through flake8, under
an audit hook that records every code object executed from the project's folder; no marker
may appear and nothing may be recorded.  Only ``verify`` runs user code, and it does so in a
child process.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List

import pytest

from frontend_support import console_script

RAN = "import os as _os; open(_os.path.join({markers!r}, __name__ + '.ran'), 'w').close()\n"

MODEL = '''\
import jax
import jax.numpy as jnp
import numpy as np

from .helpers import scale, shout


@jax.jit
def step(x, n):
    print("x", x)
    for i in range(n):
        x = scale(x, i)
    while x.sum() < 10:
        x = x * 2
    if x.sum() > 0:
        x = -x
    y = np.asarray(x)
    shout(x)
    return float(x.sum()), y


EXAMPLES = {"step": [((jnp.ones(3), 2), {})]}
'''

HELPERS = '''\
def scale(x, i):
    if x.sum() > i:
        return x * i
    return x


def shout(x):
    print(x)
'''


def project(root: Path, markers: Path) -> Path:
    """A package whose every module (and a ``jax.py`` and ``numpy.py`` that shadow the real ones)
    leaves a marker when imported."""
    ran = RAN.format(markers=str(markers))
    files = {
        "pkg/__init__.py": ran,
        "pkg/model.py": ran + MODEL,
        "pkg/helpers.py": ran + HELPERS,
        "pkg/__main__.py": ran,
        "jax.py": ran,
        "numpy.py": ran,
        "libcst_shadow.py": ran,
        "conftest.py": ran,
        "setup.py": ran + "import setuptools\nsetuptools.setup()\n",
        "sitecustomize.py": ran,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


#: records, in the jitlint process and its workers, every code object run from the project folder
AUDIT = textwrap.dedent('''
    import json, os, sys
    PROJECT, LOG = os.path.realpath(sys.argv[1]), sys.argv[2]
    def hook(event, args):
        if event == "exec" and os.path.isabs(getattr(args[0], "co_filename", "<string>")):
            where = os.path.realpath(args[0].co_filename)
        elif event == "import" and args[1]:
            where = os.path.realpath(str(args[1]))
        else:
            return
        if where.startswith(PROJECT + os.sep):
            with open(LOG, "a") as fh:
                fh.write(json.dumps([event, where, os.getpid()]) + "\\n")
    sys.addaudithook(hook)
    sys.argv = sys.argv[3:]
    module = sys.argv.pop(0)
    if module == "flake8":
        from flake8.main.cli import main
        code = main(sys.argv)
    elif module == "import":  # the control: what an import of the checked code looks like
        sys.path.insert(0, os.getcwd())
        __import__(sys.argv[0])
        code = 0
    else:
        from jitlint.cli import main
        code = main(sys.argv)
    sys.exit(code)
''')


def audited(project_dir: Path, log: Path, argv: List[str], module: str = "jitlint") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["JITLINT_CACHE_DIR"] = str(log.parent / "cache")
    return subprocess.run([sys.executable, "-c", AUDIT, str(project_dir), str(log), module, *argv],
                          cwd=str(project_dir), env=env, capture_output=True, text=True, timeout=600)


def ran(markers: Path) -> List[str]:
    return sorted(os.listdir(markers))


@pytest.fixture
def tree(tmp_path: Path):
    markers = tmp_path / "markers"
    markers.mkdir()
    root = project(tmp_path / "proj", markers)
    return root, markers, tmp_path / "audit.log"


@pytest.mark.parametrize("argv", [
    ["check", "--select", "ALL", "--no-reason", "pkg"],
    ["check", "--select", "ALL", "-j", "2", "--no-cache", "."],
    ["check", "--select", "ALL", "--diff", "--unsafe-fixes", "--show-fixes", "."],
    ["check", "--select", "ALL", "--fix", "--unsafe-fixes", "--show-fixes", "."],
    ["check", "--select", "ALL", "--fix", "--unsafe-fixes", "pkg/model.py", "--format", "json"],
], ids=["check", "workers", "diff", "fix", "fix-one-file"])
def test_no_rule_and_no_fix_runs_the_checked_code(tree, argv):
    root, markers, log = tree
    proc = audited(root, log, argv)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    assert "JIT" in proc.stdout or "jax.debug.print" in (root / "pkg/model.py").read_text()
    assert ran(markers) == []
    assert not log.exists(), log.read_text()


def test_fixes_were_really_applied_to_the_tree(tree):
    root, markers, log = tree
    proc = audited(root, log, ["check", "--select", "ALL", "--fix", "--unsafe-fixes", "-q", "."])
    assert proc.returncode in (0, 1), proc.stderr
    fixed = (root / "pkg/model.py").read_text()
    assert "jax.debug.print" in fixed and "lax.while_loop" in fixed and "jnp.where" in fixed
    assert ran(markers) == [] and not log.exists()


def test_the_audit_sees_an_import_of_the_checked_code(tree):
    """The control: importing the package is recorded, and leaves its markers."""
    root, markers, log = tree
    proc = audited(root, log, ["pkg.helpers"], module="import")
    assert proc.returncode == 0, proc.stderr
    assert ran(markers) == ["pkg.helpers.ran", "pkg.ran"]
    assert str(root / "pkg" / "helpers.py") in log.read_text()


def test_flake8_plugin_runs_no_checked_code(tree):
    pytest.importorskip("flake8")
    root, markers, log = tree
    proc = audited(root, log, ["--isolated", "--select", "JIT", "."], module="flake8")
    assert "JIT201" in proc.stdout, proc.stdout + proc.stderr
    assert ran(markers) == [] and not log.exists()


def test_the_console_script_does_not_put_the_project_on_sys_path(tree):
    """``jax.py`` and ``numpy.py`` of the project would shadow the real modules if jitlint
    imported them; the installed script never looks in the working folder."""
    root, markers, log = tree
    proc = subprocess.run([console_script(), "check", "--select", "ALL", "--fix", "--unsafe-fixes", "-q", "."],
                          cwd=str(root), capture_output=True, text=True, timeout=600,
                          env={**os.environ, "JITLINT_CACHE_DIR": str(log.parent / "cache")})
    assert proc.returncode in (0, 1), proc.stderr
    assert ran(markers) == []


def test_only_verify_runs_user_code_and_in_a_child_process(tmp_path):
    pytest.importorskip("jax")
    markers = tmp_path / "markers"
    markers.mkdir()
    module = tmp_path / "proj" / "model.py"
    module.parent.mkdir()
    module.write_text(RAN.format(markers=str(markers)) + textwrap.dedent('''
        import jax


        @jax.jit
        def f(x):
            print(x)
            return x * 2


        EXAMPLES = {"f": [((1.0,), {})]}
    '''))
    log = tmp_path / "audit.log"
    proc = audited(module.parent, log, ["verify", "--isolated", "--timeout", "60", "--memory-limit", "4096",
                                        "model.py"])
    assert "Traceback" not in proc.stderr, proc.stderr
    assert "f" in proc.stdout, proc.stdout + proc.stderr
    # the code ran, in the verifier's child (a fresh interpreter, without the audit hook) ...
    assert ran(markers) == ["model.ran"]
    # ... and never in jitlint's own process
    assert not log.exists(), log.read_text()
