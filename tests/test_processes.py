"""Bounded processes: workers capped, never orphaned, a stuck file times out into its own error."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from frontend_support import SEEDED, write
from synthetic import jitted_functions
from test_internal_errors import run_patched

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

STUCK_ON_MARKED_FILES = (
    "import os, signal\n"
    "import jitlint.engine\n"
    "MARK = '# get stuck here'\n"
    "original = jitlint.engine.analyse_unit\n"
    "def analyse(path, source, *args, **kwargs):\n"
    "    if MARK in source:\n"
    "        if os.environ.get('STUCK_HOW') == 'stop':\n"
    "            os.kill(os.getpid(), signal.SIGSTOP)  # a stopped worker\n"
    "        while True:\n"
    "            pass  # an endless loop\n"
    "    return original(path, source, *args, **kwargs)\n"
    "jitlint.engine.analyse_unit = analyse\n"
)


def _group_members(pgid: int):
    """Live (not zombie) processes of a process group, from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            members.append(int(entry))
    return members


@pytest.mark.parametrize("how, jobs", [("loop", "1"), ("loop", "2"), ("stop", "2")])
def test_a_stuck_file_times_out_into_its_own_error(tmp_path, how, jobs, monkeypatch):
    monkeypatch.setenv("STUCK_HOW", how)
    stuck = write(tmp_path, "stuck.py", SEEDED + "# get stuck here\n")
    good = [write(tmp_path, f"good{i}.py", SEEDED) for i in range(4)]
    start = time.monotonic()
    outcome = run_patched(STUCK_ON_MARKED_FILES, ["check", "--isolated", "--no-reason", "-q", "--no-cache",
                                                  "--file-timeout", "3", "-j", jobs, str(stuck), *map(str, good)])
    assert time.monotonic() - start < 60
    assert outcome.status == 2, outcome.err
    assert f"{stuck}:1:1: error: the analysis took longer than 3 s and was stopped" in outcome.err
    assert outcome.out.count("JIT201") == 4 and str(stuck) not in outcome.out


def test_killing_the_parent_leaves_no_worker(tmp_path):
    for i in range(12):
        write(tmp_path, f"m{i}.py", jitted_functions(400))
    proc = subprocess.Popen([sys.executable, "-m", "jitlint", "check", "--isolated", "-q", "--no-cache", "-j", "2",
                             str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while len(_group_members(proc.pid)) < 3 and time.monotonic() < deadline:  # the parent and its two workers
        time.sleep(0.2)
    assert len(_group_members(proc.pid)) >= 3, "the workers never started"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    deadline = time.monotonic() + 15
    while _group_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = _group_members(proc.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_many_jobs_are_capped_at_the_cpus_and_the_work(tmp_path):
    for i in range(4):
        write(tmp_path, f"m{i}.py", SEEDED)
    proc = subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "-q", "--no-reason", "--no-cache",
                           "-j", "999999", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and proc.stdout.count("JIT201") == 4


def test_bad_sizes_and_timeouts_are_usage_errors(tmp_path):
    write(tmp_path, "a.py", SEEDED)
    for option, value in (("--file-timeout", "nan"), ("--file-timeout", "-1"), ("--max-file-size", "0"),
                          ("--max-file-size", "inf")):
        proc = subprocess.run([sys.executable, "-m", "jitlint", "check", option, value, str(tmp_path)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and "must be a positive number" in proc.stderr, (option, value, proc.stderr)


def test_a_file_over_the_size_limit_is_reported_and_the_run_goes_on(tmp_path):
    big = write(tmp_path, "big.py", SEEDED + "# " + "x" * (2 * 1024 * 1024) + "\n")
    small = write(tmp_path, "small.py", SEEDED)
    proc = subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "-q", "--no-reason", "--no-cache",
                           "--max-file-size", "1", str(big), str(small)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert f"{big}:1:1: error: cannot read: too large to analyse (2.0 MB > 1.0 MB; raise the limit with " \
           "--max-file-size)" in proc.stderr
    assert f"{small}:5:8: JIT201" in proc.stdout


def test_fifos_and_devices_are_refused_without_blocking(tmp_path):
    fifo = tmp_path / "x.py"
    os.mkfifo(fifo)
    zero = tmp_path / "z.py"
    zero.symlink_to("/dev/zero")
    write(tmp_path, "a.py", SEEDED)
    for extra in ([], ["--fix"]):
        proc = subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "-q", "--no-reason", *extra,
                               str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1, proc.stderr
        assert f"{fifo}:1:1: error: cannot read: not a regular file" in proc.stderr
        assert f"{zero}:1:1: error: cannot read: not a regular file" in proc.stderr


def test_an_unlistable_folder_is_an_error(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root lists every folder")
    locked = tmp_path / "locked"
    write(locked, "a.py", SEEDED)
    locked.chmod(0)
    try:
        proc = subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "-q", str(tmp_path)],
                              capture_output=True, text=True, timeout=60)
    finally:
        locked.chmod(0o755)
    assert proc.returncode == 1
    assert f"{locked}:1:1: error: cannot list folder: Permission denied" in proc.stderr


def test_a_folder_that_cannot_be_listed_is_reported_even_as_root(tmp_path, monkeypatch, capsys):
    """As root every folder can be listed: the refusal is simulated where os.walk lists folders."""
    from jitlint.cli import main

    locked = tmp_path / "locked"
    write(locked, "a.py", SEEDED)
    write(tmp_path, "b.py", SEEDED)
    real_scandir = os.scandir

    def scandir(path="."):
        if os.fspath(path) == str(locked):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    status = main(["check", "--isolated", "-q", "--no-reason", "--no-cache", str(tmp_path)])
    captured = capsys.readouterr()
    assert status == 1
    assert f"{locked}:1:1: error: cannot list folder: Permission denied" in captured.err
    assert f"{tmp_path / 'b.py'}:5:8: JIT201" in captured.out


def test_a_file_name_with_a_newline_prints_no_workflow_command(tmp_path):
    """GitHub Actions acts on any stdout line that starts with `::`: a name must never start one."""
    name = "evil\n::warning file=x.py::pwned\n.py"
    write(tmp_path, name, SEEDED)
    for extra in ([], ["--fix", "--unsafe-fixes", "--show-fixes"], ["--show-files"], ["--diff", "--unsafe-fixes"]):
        proc = subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "--no-cache", *extra,
                               str(tmp_path)], capture_output=True, text=True, timeout=60)
        write(tmp_path, name, SEEDED)
        for stream in (proc.stdout, proc.stderr):
            assert not [line for line in stream.splitlines() if line.startswith("::")], (extra, stream)
        assert "evil\\n::warning" in proc.stdout + proc.stderr, extra
