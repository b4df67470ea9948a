"""Which interpreter runs the verified code: ``--python``, else the project's ``.venv`` / ``venv``, else jitlint's.

The child runs in that interpreter without jitlint installed there: only the
runner's own modules are imported, from jitlint's folder, and they need the
standard library, jax and numpy -- not LibCST, not the rest of jitlint.
Without JAX there, one line says so, with the command that installs it, and
the exit status is 2.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from jitlint.cli import main
from jitlint.files import UsageError
from jitlint.verify.command import choose_python, project_python

HAS_JAX = importlib.util.find_spec("jax") is not None

#: notes which interpreter imported it
MODULE = textwrap.dedent('''
    import sys

    import jax

    with open({notes!r}, "a") as fh:
        fh.write(sys.prefix + "\\n")


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x


    EXAMPLES = {{"f": [((1.0,), {{}}), ((-2.0,), {{}})]}}
''').lstrip("\n")


def _fake_venv(folder) -> str:
    """A folder that looks like a virtual environment, its python a link to this one."""
    (folder / "bin").mkdir(parents=True)
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    python = folder / "bin" / "python"
    python.symlink_to(sys.executable)
    return str(python)


def _venv(folder, with_jax: bool) -> str:
    """A real virtual environment of this Python, without pip; with jax (this one's site-packages), but
    neither LibCST nor jitlint: a `libcst` and a `jitlint` that fail to import come first on its path."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = os.path.join(str(folder), "bin", "python")
    if with_jax:
        site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                              check=True, capture_output=True, text=True).stdout.strip()
        poison = folder / "poison"
        for name in ("libcst", "jitlint"):
            (poison / name).mkdir(parents=True)
            (poison / name / "__init__.py").write_text(f"raise ImportError('{name} is not installed here')\n")
        ours = os.path.dirname(importlib.util.find_spec("jax").submodule_search_locations[0])
        with open(os.path.join(site, "borrowed.pth"), "w") as fh:
            fh.write(f"{poison}\n{ours}\n")
    return python


def test_choose_python_prefers_the_option_then_the_projects_venv_then_this_one(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "src" / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.jitlint]\n")
    start = str(project / "src" / "pkg")
    assert project_python(start) is None
    assert choose_python(None, start) == sys.executable
    venv = _fake_venv(project / "venv")
    assert project_python(start) == venv
    dot_venv = _fake_venv(project / ".venv")
    assert choose_python(None, start) == dot_venv  # `.venv` before `venv`
    assert choose_python(None, start, str(project / "pyproject.toml")) == dot_venv
    # next to a configuration file elsewhere
    other = tmp_path / "other"
    other.mkdir()
    (other / "setup.cfg").write_text("[jitlint]\n")
    theirs = _fake_venv(other / ".venv")
    assert choose_python(None, start, str(other / "setup.cfg")) == theirs
    # a folder named .venv that is no virtual environment is not one
    (project / ".venv" / "pyvenv.cfg").unlink()
    assert choose_python(None, start) == venv
    # --python: an interpreter, a virtual environment's folder, a name on PATH
    assert choose_python(dot_venv, start) == dot_venv
    assert choose_python(str(project / "venv"), start) == venv
    monkeypatch.setenv("PATH", str(project / "venv" / "bin"))
    assert choose_python("python", start) == venv
    with pytest.raises(UsageError, match="no such Python interpreter"):
        choose_python(str(tmp_path / "missing" / "python"), start)
    with pytest.raises(UsageError, match="not a virtual environment"):
        choose_python(str(other), start)


@pytest.mark.skipif(not HAS_JAX, reason="jax is not installed")
def test_without_jax_in_the_interpreter_one_line_says_how_to_install_it(tmp_path, capsys):
    python = _venv(tmp_path / "nojax", with_jax=False)
    path = tmp_path / "mod.py"
    path.write_text(MODULE.format(notes=str(tmp_path / "notes.txt")))
    for argv in (["verify", "--isolated", "--python", python, str(path)],
                 ["check", "--fix", "--unsafe-fixes", "--verify", "--isolated", "--python", python, str(path)]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        lines = captured.err.splitlines()
        assert len(lines) == 1, captured.err
        assert lines[0] == (f"jitlint: error: the verifier needs JAX, which is not installed for {python}: install it "
                            f"with `{python} -m pip install jax` (or choose another interpreter with --python PATH)")
        assert "ModuleNotFoundError" not in captured.out + captured.err
    assert not (tmp_path / "notes.txt").exists()  # nothing ran
    assert path.read_text() == MODULE.format(notes=str(tmp_path / "notes.txt"))  # nothing written


@pytest.mark.skipif(not HAS_JAX, reason="jax is not installed")
def test_jitlints_own_interpreter_without_jax_names_the_extra(tmp_path):
    """The probe runs in the interpreter with the child's environment: a PYTHONPATH that hides jax hides it."""
    from jitlint.verify.sandbox import interpreter_problem

    hidden = tmp_path / "hidden"
    hidden.mkdir()
    (hidden / "sitecustomize.py").write_text(
        "import importlib.util, sys\n"
        "_find = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a: None if name == 'jax' else _find(name, *a)\n")
    env = dict(os.environ, PYTHONPATH=str(hidden))
    problem = interpreter_problem(sys.executable, env)
    assert problem == (f"the verifier needs JAX, which is not installed for {sys.executable}: install it with "
                       f"`{sys.executable} -m pip install jax`")
    assert interpreter_problem(sys.executable) is None


@pytest.mark.skipif(not HAS_JAX, reason="jax is not installed")
def test_another_interpreter_runs_the_code_explicitly_or_as_the_projects_venv(tmp_path, capsys):
    project = tmp_path / "project"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    python = _venv(project / ".venv", with_jax=True)
    notes = tmp_path / "notes.txt"
    path = project / "mod.py"
    path.write_text(MODULE.format(notes=str(notes)))
    prefix = subprocess.run([python, "-c", "import sys; print(sys.prefix)"], check=True, capture_output=True,
                            text=True).stdout.strip()
    for name in ("jitlint", "libcst"):
        probe = subprocess.run([python, "-c", f"import {name}"], capture_output=True, text=True, cwd=tmp_path)
        assert f"{name} is not installed here" in probe.stderr
    # the project's .venv, found by itself; then named; then jitlint's own interpreter, named
    for extra, expected in (([], prefix), (["--python", python], prefix), (["--python", sys.executable], sys.prefix)):
        if notes.exists():
            notes.unlink()
        code = main(["verify", "--isolated", "--device", "cpu", *extra, str(path)])
        out = capsys.readouterr().out
        assert code == 0, out
        assert "f (line 9): verified" in out
        assert set(notes.read_text().split()) == {expected}, extra
