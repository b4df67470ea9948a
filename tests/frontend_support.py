"""Helpers shared by the front-end tests: the hazards fixture, and running the CLI and flake8."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence, Set, Tuple

import pytest

from jitlint.cli import main

REPO = Path(__file__).resolve().parent.parent
FRONTENDS = Path(__file__).resolve().parent / "fixtures" / "frontends"
HAZARDS = FRONTENDS / "hazards.py"
EXAMPLES = REPO / "examples"

#: (line, 1-based column, code) of every finding in fixtures/frontends/hazards.py
HAZARDS_FINDINGS = [
    (15, 5, "JIT103"),
    (16, 8, "JIT201"),
    (18, 14, "JIT202"),
    (19, 17, "JIT101"),
    (20, 11, "JIT203"),
    (30, 11, "JIT203"),
]

#: one finding, JIT201 at line 5, column 8
SEEDED = """\
import jax

@jax.jit
def relu(x):
    if x > 0:
        return x
    return 0.0
"""
SEEDED_FINDING = (5, 8, "JIT201")

CLEAN = """\
import jax
import jax.numpy as jnp

@jax.jit
def relu(x):
    return jnp.where(x > 0, x, 0.0)
"""

Finding = Tuple[int, int, str]


@dataclass(frozen=True)
class Outcome:
    status: int
    out: str
    err: str

    def json(self) -> list:
        return json.loads(self.out)

    def findings(self) -> List[Finding]:
        """(line, column, code) from a JSON report."""
        return [(d["line"], d["column"], d["code"]) for d in self.json()]

    def located(self) -> Set[Tuple[str, int, str]]:
        """(file name, line, code) from a JSON report."""
        return {(Path(d["path"]).name, d["line"], d["code"]) for d in self.json()}


def run_cli(capsys: pytest.CaptureFixture, *argv: str) -> Outcome:
    capsys.readouterr()
    status = main(list(argv))
    captured = capsys.readouterr()
    return Outcome(status, captured.out, captured.err)


def run_process(argv: Sequence[str], cwd: Path, stdin: bytes = b"") -> Outcome:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FLAKE8", "PYTHONSTARTUP"))}
    proc = subprocess.run(list(argv), cwd=str(cwd), input=stdin, capture_output=True, env=env, timeout=300)
    return Outcome(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def console_script() -> str:
    """The `jitlint` script installed next to this interpreter."""
    name = "jitlint.exe" if os.name == "nt" else "jitlint"
    path = Path(sysconfig.get_path("scripts")) / name
    if not path.exists():
        path = Path(sys.executable).parent / name
    return str(path)


FLAKE8_FORMAT = "%(path)s:%(row)d:%(col)d:%(code)s"


def run_flake8(paths: Sequence[str], cwd: Path, *options: str, isolated: bool = True) -> Outcome:
    argv = [sys.executable, "-m", "flake8", "--select", "JIT", "--format", FLAKE8_FORMAT, *options]
    if isolated:
        argv.append("--isolated")
    return run_process([*argv, *paths], cwd)


def flake8_findings(outcome: Outcome) -> Set[Tuple[str, int, int, str]]:
    """(file name, row, col, code) from flake8 output in FLAKE8_FORMAT."""
    found = set()
    for line in outcome.out.splitlines():
        path, row, col, code = line.rsplit(":", 3)
        found.add((Path(path).name, int(row), int(col), code))
    return found


def write(folder: Path, relative: str, text: str) -> Path:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
