"""``--fix`` never leaves a file half written, never forces one, and survives a second jitlint at once.

Each file is written to a temporary file in its folder and renamed over the
original: a run killed between the two leaves the old file (and a stray
``.name.py.*.jitlint`` temp file that no run lints); the mode is kept; a
symlink stays a link; a read-only file is reported, not replaced; a file that
changed on disk while it was being fixed is left as the other writer made it.
"""
from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import libcst as cst
import pytest

from frontend_support import Outcome, console_script, run_cli, write
from jitlint.fixing import FileChangedError, fix_bytes, write_atomic

FIX_DIR = Path(__file__).resolve().parent / "fixtures" / "fix"
FIXABLE = "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"
FIXED = "import jax\n\n\n@jax.jit\ndef f(x):\n    jax.debug.print(\"{!s}\", x)\n    return x\n"


def fix(capsys, *argv: str) -> Outcome:
    return run_cli(capsys, "check", "--isolated", "--no-reason", "-q", "--fix", *argv)


def test_the_fix_of_the_test_is_what_jitlint_writes():
    assert fix_bytes(FIXABLE.encode(), "f.py").new_bytes == FIXED.encode()


def run_killed_before_rename(path: Path, code: int = 17) -> subprocess.CompletedProcess:
    """``jitlint --fix path`` in a child that dies (os._exit) right after writing the temp file."""
    script = (
        "import os, sys\n"
        "real_replace = os.replace\n"
        "def die_before_rename(src, dst, *args, **kwargs):\n"
        f"    if os.path.realpath(dst) == {str(os.path.realpath(path))!r}:\n"
        f"        os._exit({code})\n"
        "    return real_replace(src, dst, *args, **kwargs)\n"
        "os.replace = die_before_rename\n"
        "from jitlint.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    return subprocess.run([sys.executable, "-c", script, "check", "--isolated", "--no-cache", "--fix", str(path)],
                          capture_output=True, timeout=120)


def test_a_run_killed_between_write_and_rename_leaves_the_old_file(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE)
    os.chmod(path, 0o640)
    proc = run_killed_before_rename(path)
    assert proc.returncode == 17
    assert path.read_bytes() == FIXABLE.encode()
    temps = [p for p in tmp_path.iterdir() if p != path]
    # the temp file was complete: it is the new text, beside the old file, under a name no run lints
    assert [p.name[:6] for p in temps] == [".f.py."] and temps[0].suffix == ".jitlint"
    assert temps[0].read_bytes() == FIXED.encode()
    outcome = run_cli(capsys, "check", "--isolated", "--no-reason", "-q", str(tmp_path))
    assert outcome.err == "" and str(temps[0]) not in outcome.out
    # the next run fixes the file as if nothing had happened
    assert fix(capsys, str(path)).status == 0
    assert path.read_bytes() == FIXED.encode()
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_a_run_killed_at_any_moment_leaves_the_old_or_the_new_file(tmp_path):
    """SIGKILL at staggered moments of a real run: the file is always whole, old or new."""
    body = "".join(f"    y{i} = x + {i}\n" for i in range(1000))
    old = FIXABLE.replace("    return x\n", body + "    return x\n")
    new = fix_bytes(old.encode(), "big.py").new_bytes
    assert new is not None
    path = tmp_path / "big.py"
    argv = [console_script(), "check", "--isolated", "--no-cache", "-q", "--fix", str(path)]

    def start() -> subprocess.Popen:
        path.write_text(old)
        return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    began = time.monotonic()
    start().wait(timeout=120)
    whole_run = time.monotonic() - began
    assert path.read_bytes() == new
    seen = set()
    for fraction in (0.3, 0.6, 0.9, 1.0):
        proc = start()
        time.sleep(whole_run * fraction)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        data = path.read_bytes()
        assert data in (old.encode(), new)
        seen.add("new" if data == new else "old")
        for stray in tmp_path.glob(".big.py.*.jitlint"):
            stray.unlink()
    assert "old" in seen  # killed before the rename at least once


def test_the_mode_is_kept_and_no_temp_file_is_left(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE)
    os.chmod(path, 0o751)
    assert fix(capsys, str(path)).status == 0
    assert path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert os.listdir(tmp_path) == ["f.py"]


def test_nothing_is_written_when_nothing_changes(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXED)
    before = path.stat()
    outcome = fix(capsys, str(path))
    after = path.stat()
    assert outcome.status == 0
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)


def test_a_read_only_file_is_reported_not_forced(tmp_path, capsys):
    locked = write(tmp_path, "locked.py", FIXABLE)
    other = write(tmp_path, "other.py", FIXABLE)
    os.chmod(locked, 0o444)
    try:
        outcome = fix(capsys, str(locked), str(other))
        assert locked.read_text() == FIXABLE
        assert stat.S_IMODE(locked.stat().st_mode) == 0o444
    finally:
        os.chmod(locked, 0o644)
    assert outcome.status == 1
    assert outcome.err == f"{locked}:1:1: error: cannot write: the file is read-only\n"
    assert other.read_text() == FIXED
    assert sorted(os.listdir(tmp_path)) == ["locked.py", "other.py"]
    # its finding is still reported (nothing was fixed there), and only the other file counts as fixed
    assert f"{locked}:6:5: JIT103" in outcome.out


def test_a_read_only_file_is_not_counted_as_fixed(tmp_path, capsys):
    locked = write(tmp_path, "locked.py", FIXABLE)
    os.chmod(locked, 0o444)
    try:
        outcome = run_cli(capsys, "check", "--isolated", "--no-reason", "--fix", str(locked))
    finally:
        os.chmod(locked, 0o644)
    assert "Fixed 0 findings in 0 files; 1 remaining." in outcome.out


def test_a_symlink_out_of_the_checked_folder_is_not_followed(tmp_path, capsys):
    outside = write(tmp_path, "outside/model.py", FIXABLE)
    link = tmp_path / "checked" / "link.py"
    link.parent.mkdir()
    link.symlink_to(outside)
    outcome = fix(capsys, str(link.parent))
    assert outside.read_text() == FIXABLE
    assert outcome.status == 1
    assert f"{link}:1:1: error: cannot write: a symbolic link to {outside}, outside the checked folders" in outcome.err


def test_a_file_with_hard_links_is_not_split(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE)
    twin = tmp_path / "twin.txt"
    os.link(path, twin)
    outcome = fix(capsys, str(path))
    assert outcome.status == 1 and "the file has 2 hard links" in outcome.err
    assert path.read_text() == twin.read_text() == FIXABLE and path.stat().st_ino == twin.stat().st_ino


def test_a_temporary_file_left_by_a_killed_run_is_removed_later(tmp_path, capsys):
    path = write(tmp_path, "f.py", FIXABLE)
    stale = write(tmp_path, ".f.py.abc123.jitlint", "half a file")
    fresh = write(tmp_path, ".f.py.def456.jitlint", "another run, writing now")
    old = time.time() - 2 * 3600
    os.utime(stale, (old, old))
    assert fix(capsys, str(path)).status == 0
    assert path.read_text() == FIXED
    assert not stale.exists() and fresh.exists()


def test_a_symlink_stays_a_link_and_its_target_is_fixed(tmp_path, capsys):
    real = write(tmp_path, "real/model.py", FIXABLE)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert fix(capsys, str(link)).status == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == FIXED
    assert sorted(os.listdir(real.parent)) == ["model.py"]


def test_a_file_changed_while_being_fixed_is_left_to_the_other_writer(tmp_path, capsys, monkeypatch):
    import jitlint.runner

    path = write(tmp_path, "f.py", FIXABLE)
    other = write(tmp_path, "g.py", FIXABLE)
    theirs = FIXABLE.replace("return x", "return x + 1")
    real_fix_files = jitlint.runner.fix_files

    def fix_files_while_another_tool_writes(paths, *args, **kwargs):
        outcomes = real_fix_files(paths, *args, **kwargs)
        path.write_text(theirs)  # e.g. another pre-commit hook, between our read and our write
        return outcomes

    monkeypatch.setattr(jitlint.runner, "fix_files", fix_files_while_another_tool_writes)
    outcome = fix(capsys, str(path), str(other))
    assert path.read_text() == theirs
    assert other.read_text() == FIXED
    assert outcome.status == 1
    assert outcome.err == f"{path}:1:1: error: cannot write: the file changed while it was being fixed\n"
    assert sorted(os.listdir(tmp_path)) == ["f.py", "g.py"]


def test_write_atomic_refuses_what_it_must_not_replace(tmp_path):
    path = write(tmp_path, "f.py", "old\n")
    with pytest.raises(FileChangedError):
        write_atomic(str(path), b"new\n", expected=b"something else\n")
    assert path.read_text() == "old\n"
    with pytest.raises(IsADirectoryError):
        write_atomic(str(tmp_path), b"new\n")
    write_atomic(str(path), b"new\n", expected=b"old\n")
    assert path.read_text() == "new\n"
    assert os.listdir(tmp_path) == ["f.py"]


# ------------------------------------------------------------ concurrency
def fixture_tree(folder: Path) -> List[Path]:
    """Every fix fixture's input, as a file of a project to fix."""
    out = []
    for source in sorted(FIX_DIR.glob("*.in.py")):
        target = folder / "pkg" / source.name.replace(".in.py", ".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        out.append(target)
    return out


def test_two_fix_runs_at_once_leave_valid_fixed_files(tmp_path):
    """As parallel pre-commit hooks do: both runs fix the same tree at the same time."""
    files = fixture_tree(tmp_path)
    expected = {}
    for path in files:
        new = fix_bytes(path.read_bytes(), str(path), unsafe=True).new_bytes
        expected[path] = new if new is not None else path.read_bytes()
    argv = [console_script(), "check", "--isolated", "--no-reason", "-q", "--fix", "--unsafe-fixes", "-j", "2",
            "pkg"]
    runs = [subprocess.Popen(argv, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    for run, (out, err) in zip(runs, outputs):
        assert run.returncode in (0, 1), err.decode()
        assert b"Traceback" not in out + err
        # the only error either run may report: the other one wrote the file first
        for line in err.decode().splitlines():
            assert line.endswith("error: cannot write: the file changed while it was being fixed"), line
    for path in files:
        data = path.read_bytes()
        assert data == expected[path], path.name
        cst.parse_module(data.decode("latin-1") if b"latin-1" in data[:80] else data.decode("utf-8"))
    assert not list(tmp_path.rglob("*.jitlint"))


def test_two_check_runs_at_once_share_the_cache(tmp_path):
    fixture_tree(tmp_path)
    check = [console_script(), "check", "--isolated", "--no-reason", "-q", "-j", "2", "pkg"]
    argv = check + ["--cache-dir", "cache"]
    alone = subprocess.run(check + ["--no-cache"], cwd=str(tmp_path), capture_output=True, timeout=600)
    assert alone.returncode == 1 and alone.stdout
    runs = [subprocess.Popen(argv, cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(2)]
    outputs = [run.communicate(timeout=600) for run in runs]
    again = subprocess.run(argv, cwd=str(tmp_path), capture_output=True, timeout=600)
    for status, out in [(r.returncode, o) for r, (o, _) in zip(runs, outputs)] + [(again.returncode, again.stdout)]:
        assert (status, out) == (alone.returncode, alone.stdout)
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file() and not p.name.endswith(".json")
                and p.name not in (".gitignore", "CACHEDIR.TAG", "last-prune")]
