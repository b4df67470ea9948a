"""The results cache: unit results and file summaries on disk, that no one can plant or outdate.

* **Keys nobody else can compute.** Every key is an HMAC under a secret kept
  in the user's own cache folder (``$XDG_CACHE_HOME/jitlint/secret``, mode
  0600), never in the project: an entry committed to a repository, or copied
  from another machine, is never found.
* **Entries that say what they depend on.** A unit's result records the
  digest of every other module its analysis read; a hit whose modules have
  changed since is a miss.  The file's own text, jitlint's code and the
  configuration are in the key.
* **A bad entry is a miss, never an error**: any entry that does not parse, or
  parses to the wrong shape, is ignored (and rewritten on the next put).
* **Bounded**: entries unused for :data:`MAX_AGE_DAYS` are removed, and the
  least recently used beyond :data:`MAX_ENTRIES`; the folder holds a
  ``.gitignore`` and a ``CACHEDIR.TAG`` so that git and backup tools skip it.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from jitlint.diagnostics import Applicability, Diagnostic, Edit, FileError, Fix
from jitlint.files import removed_on_failure

FORMAT = 3
MAX_AGE_DAYS = 30
MAX_ENTRIES = 20_000
#: a prune walks the folder at most this often (seconds)
PRUNE_EVERY = 3600

CACHEDIR_TAG = ("Signature: 8a477f597d28d172789f06886806bc55\n"
                "# This file is a cache directory tag created by jitlint.\n"
                "# For information about cache directory tags see https://bford.info/cachedir/\n")


def user_cache_home() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "jitlint")


_SECRET: Optional[bytes] = None


def user_secret() -> bytes:
    """This user's key for cache entries, created once; a per-process one when it cannot be kept."""
    global _SECRET
    if _SECRET is None:
        path = os.path.join(user_cache_home(), "secret")
        try:
            with open(path, "rb") as fh:
                found = fh.read()
            if len(found) >= 32:
                _SECRET = found
        except OSError:
            pass
        if _SECRET is None:
            fresh = secrets.token_bytes(32)
            try:
                os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(fresh)
                _SECRET = fresh
            except FileExistsError:  # another jitlint wrote it meanwhile: use theirs
                with open(path, "rb") as fh:
                    _SECRET = fh.read()
            except OSError:
                _SECRET = fresh  # cached results live only as long as this process
    return _SECRET


def keyed(*parts: bytes) -> str:
    """An HMAC of ``parts`` (each length-prefixed) under the user's secret."""
    mac = hmac.new(user_secret(), digestmod=hashlib.sha256)
    for part in parts:
        mac.update(len(part).to_bytes(8, "big") + part)
    return mac.hexdigest()


# -------------------------------------------------------------- validation
class BadEntry(Exception):
    pass


def checked_type(value: Any, kind: type) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise BadEntry(f"expected {kind.__name__}")
    return value


def diagnostic_from_json(d: Any, fix_decided: bool = False) -> Diagnostic:
    """A finding read back; ``fix_decided``: its entry holds every finding's fix, or that it has none."""
    checked_type(d, dict)
    fix = d.get("fix")
    if fix is not None:
        checked_type(fix, dict)
        applicability, title = Applicability(fix["applicability"]), checked_type(fix["title"], str)
        if fix["edits"] is None:  # an entry of a lint that reported titles only
            fix = Fix.unbuilt(applicability, title)
        else:
            fix = Fix(applicability, title, tuple(
                Edit(checked_type(e["start"], int), checked_type(e["end"], int), checked_type(e["content"], str))
                for e in checked_type(fix["edits"], list) if checked_type(e, dict) is not None))
    reason = tuple(checked_type(r, str) for r in checked_type(d.get("reason", []), list))
    subject = d.get("subject")
    return Diagnostic(checked_type(d["path"], str), checked_type(d["line"], int), checked_type(d["column"], int),
                      checked_type(d["end_line"], int), checked_type(d["end_column"], int), checked_type(d["code"], str),
                      checked_type(d["message"], str), reason, fix,
                      None if subject is None else checked_type(subject, str),
                      fix_decided=fix_decided and (fix is None or fix.edits_built))


def error_from_json(e: Any) -> Optional[FileError]:
    if e is None:
        return None
    checked_type(e, dict)
    return FileError(checked_type(e["path"], str), checked_type(e["line"], int), checked_type(e["column"], int),
                     checked_type(e["message"], str), bool(checked_type(e.get("internal", False), bool)))


def error_to_json(e: Optional[FileError]) -> Optional[dict]:
    if e is None:
        return None
    return {"path": e.path, "line": e.line, "column": e.column, "message": e.message, "internal": e.internal}


# ------------------------------------------------------------------- store
class Cache:
    """JSON entries in ``directory``, one file per key (see the module docstring)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._prepared = False

    def _file(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def load(self, key: str, decode: Callable[[Any], Any]) -> Any:
        """``decode(payload)`` of the entry under ``key``; None when there is none or it is bad."""
        path = self._file(key)
        try:
            with open(path, "rb") as fh:
                raw = json.loads(fh.read(64 * 1024 * 1024 + 1).decode("utf-8"))
            if checked_type(raw, dict).get("format") != FORMAT:
                return None
            value = decode(raw["payload"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError, BadEntry, RecursionError,
                UnicodeDecodeError, MemoryError):
            return None
        try:
            os.utime(path)  # recently used: kept by the next prune
        except OSError:
            pass
        return value

    def store(self, key: str, payload: Any) -> None:
        target = self._file(key)
        try:
            self._prepare()
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".tmp")
            with removed_on_failure(tmp):
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump({"format": FORMAT, "payload": payload}, fh)
                os.replace(tmp, target)
        except (OSError, ValueError, TypeError):
            pass  # a cache that cannot be written is only slower

    def _prepare(self) -> None:
        """The folder, with the files that make git and backup tools leave it alone."""
        if self._prepared:
            return
        os.makedirs(self.directory, exist_ok=True)
        for name, text in ((".gitignore", "# created by jitlint\n*\n"), ("CACHEDIR.TAG", CACHEDIR_TAG)):
            path = os.path.join(self.directory, name)
            if not os.path.exists(path):
                try:
                    with open(path, "w", encoding="utf-8") as fh:
                        fh.write(text)
                except OSError:
                    pass
        self._prepared = True

    def prune(self, now: Optional[float] = None, max_entries: Optional[int] = None,
              max_age_days: Optional[float] = None, force: bool = False) -> int:
        """Remove entries unused for ``max_age_days`` and the oldest beyond ``max_entries``.

        Walks the folder at most once per :data:`PRUNE_EVERY` seconds unless ``force``.
        Returns how many entries were removed.
        """
        now = time.time() if now is None else now
        max_entries = MAX_ENTRIES if max_entries is None else max_entries
        max_age_days = MAX_AGE_DAYS if max_age_days is None else max_age_days
        stamp = os.path.join(self.directory, "last-prune")
        try:
            if not force and now - os.stat(stamp).st_mtime < max(PRUNE_EVERY, 0.001):
                return 0
        except OSError:
            pass
        if not os.path.isdir(self.directory):
            return 0
        entries: List[Tuple[float, str]] = []
        for folder, _, files in os.walk(self.directory):
            for name in files:
                if name.endswith((".json", ".tmp")):
                    path = os.path.join(folder, name)
                    try:
                        entries.append((os.stat(path).st_mtime, path))
                    except OSError:
                        continue
        entries.sort(reverse=True)
        removed = 0
        for i, (used, path) in enumerate(entries):
            stale_tmp = path.endswith(".tmp") and now - used > 3600
            if i >= max_entries or now - used > max_age_days * 86400 or stale_tmp:
                try:
                    os.unlink(path)
                    removed += 1
                except OSError:
                    pass
        try:
            self._prepare()
            with open(stamp, "w", encoding="utf-8") as fh:
                fh.write(str(now))
        except OSError:
            pass
        return removed


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def summaries_from_json(raw: Any) -> Dict[str, Tuple[int, int, str, bool, Tuple[str, ...]]]:
    out = {}
    for path, item in checked_type(raw, dict).items():
        size, mtime, text_digest, traced, imports = checked_type(item, list)
        out[checked_type(path, str)] = (checked_type(size, int), checked_type(mtime, int), checked_type(text_digest, str),
                                 bool(checked_type(traced, bool)), tuple(checked_type(n, str) for n in checked_type(imports, list)))
    return out
