"""The results cache: entries nobody else can plant, bad entries are misses, bounded, invisible to git."""
from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from frontend_support import SEEDED, console_script, run_process, write
from jitlint.cache import Cache
from jitlint.config import Config
from jitlint.runner import lint_files


def _entries(cache: Path):
    return [p for p in cache.rglob("*.json")]


def _check(folder: Path, cache: Path, home: Path, *paths: str):
    env_home = {"XDG_CACHE_HOME": str(home)}
    argv = [console_script(), "check", "--isolated", "--no-reason", "-q", "--cache-dir", str(cache), *paths]
    env = {k: v for k, v in os.environ.items() if not k.startswith("JITLINT_")}
    env.update(env_home)
    proc = subprocess.run(argv, cwd=str(folder), capture_output=True, env=env, timeout=300)
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


def test_entries_planted_by_someone_else_are_never_found(tmp_path):
    """A repository that commits `.jitlint_cache/` entries (computed with its author's key, and
    edited to say "no findings") does not silence the hazard for another user."""
    write(tmp_path, "a.py", SEEDED)
    cache = tmp_path / ".jitlint_cache"
    status, out, _ = _check(tmp_path, cache, tmp_path / "author")
    assert status == 1 and "JIT201" in out
    for entry in _entries(cache):  # the author (or an attacker) rewrites every entry: nothing found
        raw = json.loads(entry.read_text())
        if isinstance(raw.get("payload"), dict) and "diagnostics" in raw["payload"]:
            raw["payload"]["diagnostics"] = {}
            entry.write_text(json.dumps(raw))
    status, out, _ = _check(tmp_path, cache, tmp_path / "author")
    assert status == 0, "the author's own (tampered) entries are found under the author's key"
    status, out, _ = _check(tmp_path, cache, tmp_path / "someone-else")
    assert status == 1 and "a.py:5:8: JIT201" in out


@pytest.mark.parametrize("bad", [
    '{"diagnostics": [], "error": null}',
    '{"format": 3, "payload": {"diagnostics": [], "error": null}}',
    '{"format": 3, "payload": {"diagnostics": {"a.py": [{"line": "x"}]}, "error": null, "deps": {}}}',
    '{"format": 3, "payload": {"diagnostics": {}, "error": {"path": 1}, "deps": {}}}',
    '{"format": 3, "payload": {"diagnostics": {}, "error": null, "deps": []}}',
    "[" * 100_000 + "]" * 100_000,
    "\x00\xff not json",
])
def test_a_malformed_entry_is_a_miss_never_an_error(tmp_path, bad):
    write(tmp_path, "a.py", SEEDED)
    cache = tmp_path / "cache"
    home = tmp_path / "home"
    assert _check(tmp_path, cache, home)[0] == 1
    entries = _entries(cache)
    assert entries
    for entry in entries:
        entry.write_text(bad, encoding="utf-8", errors="surrogateescape")
    status, out, err = _check(tmp_path, cache, home)
    assert (status, "internal error" in err) == (1, False), err
    assert "a.py:5:8: JIT201" in out


def test_the_cache_folder_is_invisible_to_git_and_tagged(tmp_path, monkeypatch):
    monkeypatch.delenv("JITLINT_CACHE_DIR")  # the default folder, in the project
    subprocess.run(["git", "init", "-q", "."], cwd=str(tmp_path), check=True)
    write(tmp_path, "a.py", SEEDED)
    outcome = run_process([console_script(), "check", "--isolated", "-q", "a.py"], tmp_path)
    assert outcome.status == 1
    assert (tmp_path / ".jitlint_cache" / "CACHEDIR.TAG").read_text().startswith(
        "Signature: 8a477f597d28d172789f06886806bc55")
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=str(tmp_path),
                            capture_output=True, text=True, check=True).stdout
    assert status.splitlines() == ["?? a.py"]


def test_prune_removes_old_entries_and_the_least_recently_used_beyond_the_cap(tmp_path):
    cache = Cache(str(tmp_path / "cache"))
    for i in range(30):
        cache.store(f"{i:064x}", {"n": i})
    files = sorted(_entries(tmp_path / "cache"))
    now = time.time()
    for i, path in enumerate(files):
        os.utime(path, (now - i * 60, now - i * 60))  # file i last used i minutes ago
    old = files[-1]
    os.utime(old, (now - 40 * 86400, now - 40 * 86400))
    removed = cache.prune(now=now, max_entries=20, force=True)
    left = _entries(tmp_path / "cache")
    assert removed == 10 and len(left) == 20
    assert old not in left and files[0] in left  # the freshest stay
    assert cache.prune(now=now) == 0  # at most one walk an hour
    assert cache.load(f"{0:064x}", lambda raw: raw) in ({"n": 0}, None)


def test_many_runs_with_different_options_stay_bounded(tmp_path, monkeypatch):
    import jitlint.cache

    monkeypatch.setattr(jitlint.cache, "MAX_ENTRIES", 12)
    monkeypatch.setattr(jitlint.cache, "PRUNE_EVERY", 0)
    for i in range(5):
        write(tmp_path, f"m{i}.py", SEEDED.replace("relu", f"relu{i}"))
    paths = [str(tmp_path / f"m{i}.py") for i in range(5)]
    cache = str(tmp_path / "cache")
    for ignore in ((), ("JIT1",), ("JIT3",), ("JIT4",), ("JIT5",), ("JIT101",)):
        lint_files(paths, Config(ignore=ignore), cache_dir=cache)
    assert len(_entries(Path(cache))) <= 12 + 5 + 1  # the cap, plus what the last run added before pruning


def test_the_secret_is_private_to_the_user(tmp_path, monkeypatch):
    import jitlint.cache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(jitlint.cache, "_SECRET", None)
    first = jitlint.cache.keyed(b"x")
    secret = tmp_path / "home" / "jitlint" / "secret"
    assert secret.stat().st_mode & 0o077 == 0 and len(secret.read_bytes()) == 32
    monkeypatch.setattr(jitlint.cache, "_SECRET", None)
    assert jitlint.cache.keyed(b"x") == first  # kept across runs
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other"))
    monkeypatch.setattr(jitlint.cache, "_SECRET", None)
    assert jitlint.cache.keyed(b"x") != first
    monkeypatch.setattr(jitlint.cache, "_SECRET", None)
