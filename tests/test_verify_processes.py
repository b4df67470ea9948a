"""The verifier's child and what user code starts in it never outlive ``jitlint verify``.

The child runs in its own process group, and the whole group is killed when
the child's run ends: by itself, at a timeout, or when ``jitlint verify``
gets SIGTERM or SIGINT (then its temporary folder is removed too).  The
timeout is a finite number of seconds above 0.
"""
from __future__ import annotations

import glob
import importlib.util
import json
import math
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from jitlint.cli import main
from jitlint.verify import VerifyOptions

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None or not os.path.isdir("/proc"),
                                reason="needs jax, and /proc to see process groups")

#: each call of `f` starts a `sleep` that would outlive the child, and notes its process group
SPAWNS = textwrap.dedent('''
    import json
    import os
    import subprocess

    import jax

    NOTES = {notes!r}


    def spawn():
        child = subprocess.Popen(["sleep", "300"])
        with open(NOTES, "a") as fh:
            fh.write(json.dumps({{"pgid": os.getpgid(0), "sleep": child.pid}}) + "\\n")


    @jax.jit
    def f(x):
        spawn()
        if x > 0:
            return x
        return -x


    EXAMPLES = {{"f": [((1.0,), {{}}), ((-2.0,), {{}})]}}
''').lstrip("\n")

#: `f` notes its process group, then takes a minute
SLOW = textwrap.dedent('''
    import json
    import os
    import subprocess
    import time

    import jax

    NOTES = {notes!r}


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x


    def slow(x):
        subprocess.Popen(["sleep", "300"])
        with open(NOTES, "a") as fh:
            fh.write(json.dumps({{"pgid": os.getpgid(0)}}) + "\\n")
        time.sleep(60)
        return f(x)


    EXAMPLES = {{"slow": [((1.0,), {{}})]}}
''').lstrip("\n")


def _alive_in_group(pgid: int) -> list:
    """The processes of group ``pgid`` that are not zombies (a zombie has ended; its parent reaps it)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            alive.append(int(entry))
    return alive


def _wait_gone(pgid: int, seconds: float = 5.0) -> list:
    deadline = time.monotonic() + seconds
    while True:
        alive = _alive_in_group(pgid)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _notes(path) -> list:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_what_user_code_starts_dies_when_the_verification_ends(tmp_path, capsys):
    notes = tmp_path / "notes.jsonl"
    path = tmp_path / "spawns.py"
    path.write_text(SPAWNS.format(notes=str(notes)))
    start = time.monotonic()
    assert main(["verify", "--isolated", "--device", "cpu", str(path)]) in (0, 1)
    seconds = time.monotonic() - start
    assert "  f (line 16): verified" in capsys.readouterr().out
    seen = _notes(notes)
    assert len(seen) >= 2, "the user code did not run"
    groups = {n["pgid"] for n in seen}
    assert len(groups) == 1 and groups != {os.getpgid(0)}  # the child had a group of its own
    assert _alive_in_group(groups.pop()) == []  # at once: verify waits for nothing of it
    # the `sleep`s held the child's output open: waiting for them to close it would have cost 5 s
    assert seconds < 30


@pytest.mark.parametrize("signum, returncode", [(signal.SIGTERM, -signal.SIGTERM), (signal.SIGINT, 130)])
def test_a_signal_to_jitlint_verify_kills_the_child_group_and_removes_the_temporary_folder(
        tmp_path, signum, returncode):
    notes = tmp_path / "notes.jsonl"
    work = tmp_path / "tmp"
    work.mkdir()
    path = tmp_path / "slow.py"
    path.write_text(SLOW.format(notes=str(notes)))
    env = dict(os.environ, TMPDIR=str(work))
    proc = subprocess.Popen([sys.executable, "-m", "jitlint", "verify", "--isolated", "--device", "cpu",
                             "--timeout", "120", str(path)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not _notes(notes):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the slow function never started"
            time.sleep(0.05)
        pgid = _notes(notes)[0]["pgid"]
        assert _alive_in_group(pgid)
        assert glob.glob(str(work / "jitlint-verify-*"))
        sent = time.monotonic()
        proc.send_signal(signum)
        proc.wait(timeout=10)
        ended = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == returncode, proc.communicate()
    assert ended < 5
    assert _wait_gone(pgid, 3.0) == []
    assert glob.glob(str(work / "jitlint-verify-*")) == []


@pytest.mark.parametrize("value", ["nan", "-1", "0", "inf", "soon"])
def test_the_timeout_must_be_a_finite_number_of_seconds_above_zero(tmp_path, capsys, value):
    path = tmp_path / "ok.py"
    path.write_text("import jax\n\n\n@jax.jit\ndef f(x):\n    return x + 1\n")
    assert main(["verify", "--isolated", "--timeout", value, str(path)]) == 2
    err = capsys.readouterr().err
    assert f"argument --timeout: expected a finite number of seconds above 0, got '{value}'" in err
    assert main(["check", "--fix", "--verify", "--isolated", "--verify-timeout", value, str(path)]) == 2
    assert "argument --verify-timeout: expected a finite number of seconds above 0" in capsys.readouterr().err


def test_the_memory_limit_is_a_number_of_mib(tmp_path, capsys):
    path = tmp_path / "ok.py"
    path.write_text("x = 1\n")
    assert main(["verify", "--isolated", "--memory-limit", "-5", str(path)]) == 2
    assert "argument --memory-limit: expected a number of MiB, 0 or more, got '-5'" in capsys.readouterr().err


def test_options_refuse_a_timeout_that_would_never_expire():
    for bad in (math.nan, -1.0, 0, math.inf):
        with pytest.raises(ValueError, match="finite number of seconds above 0"):
            VerifyOptions(timeout=bad)
    assert VerifyOptions(timeout=0.5).timeout == 0.5
