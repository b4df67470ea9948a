"""Files: which ones to check, the project around them, and reading them safely.

Below the front ends and the runner: the CLI, the verifier and the runner all
find and read files here, so that they agree on what a Python file is, which
folders are skipped, and what a file too large or not a file at all gives.
"""
from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import Callable, Iterable, Iterator, List, Optional, Set

from jitlint.config import Config

STDIN = "-"

#: files larger than this are reported, not analysed (``--max-file-size``, in MB)
DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024

#: what marks the top of a project: the folder the analysis looks around in
PROJECT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git", "tox.ini")

#: a project walk stops after this many Python files (a marker-less home folder must not be read whole)
MAX_PROJECT_FILES = 20_000


@contextlib.contextmanager
def removed_on_failure(temporary: str) -> Iterator[None]:
    """Delete the temporary file ``temporary`` when the block fails (it never replaced its target)."""
    try:
        yield
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


class UsageError(Exception):
    """A command line jitlint cannot act on; the front end prints it and exits 2."""


class FileTooLarge(OSError):
    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(errno.EFBIG, f"too large to analyse ({_mb(size)} > {_mb(limit)}; "
                                      "raise the limit with --max-file-size)", path)


def _mb(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def read_source_file(path: str, limit: Optional[int] = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them.

    A FIFO, a device (a link to ``/dev/zero``), a socket or a folder is refused
    without blocking: it is opened non-blocking and checked before any read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except IsADirectoryError:
        raise IsADirectoryError(errno.EISDIR, "is a directory", path) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", path)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        if limit is not None and st.st_size > limit:
            raise FileTooLarge(path, st.st_size, limit)
        chunks: List[bytes] = []
        total = 0
        cap = (limit if limit is not None else st.st_size) + 1
        while True:
            chunk = os.read(fd, min(1 << 20, cap - total) or 1)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if limit is not None and total > limit:  # it grew while being read
                raise FileTooLarge(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_virtualenv(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def walk_python_files(root: str, config: Config,
                      on_error: Optional[Callable[[str, OSError], None]] = None) -> Iterator[str]:
    """Python files below ``root``, sorted, skipping excluded folders and virtual environments.

    A folder that cannot be listed is passed to ``on_error`` (it is never skipped silently).
    """
    def failed(exc: OSError) -> None:
        if on_error is not None:
            on_error(exc.filename or root, exc)

    for folder, dirs, files in os.walk(root, followlinks=False, onerror=failed):
        dirs[:] = sorted(d for d in dirs if not config.is_excluded(os.path.join(folder, d), root)
                         and not is_virtualenv(os.path.join(folder, d)))
        for name in sorted(files):
            path = os.path.join(folder, name)
            if name.endswith((".py", ".pyi")) and not config.is_excluded(path, root):
                yield os.path.normpath(path)


def iter_files(paths: Iterable[str], config: Config,
               on_error: Optional[Callable[[str, OSError], None]] = None) -> Iterator[str]:
    """The files to lint: named files as given, folders walked; each file once."""
    seen: Set[str] = set()
    for path in paths:
        found = walk_python_files(path, config, on_error) if path != STDIN and os.path.isdir(path) else [path]
        for file in found:
            key = file if file == STDIN else os.path.realpath(file)
            if key not in seen:
                seen.add(key)
                yield file


def project_root(path: str) -> Optional[str]:
    """The nearest folder at or above ``path`` that holds a project marker (None: no project).

    The user's home folder and the file system root are never a project: a
    stray ``.git`` there would make every check read the whole disk.
    """
    directory = os.path.abspath(path)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    never = {os.path.abspath(os.path.expanduser("~")), os.path.abspath(os.sep)}
    while directory not in never:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in PROJECT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return None


def project_files(roots: Iterable[str], config: Config, limit: int = MAX_PROJECT_FILES) -> List[str]:
    """The Python files of the projects at ``roots`` (excludes honoured), at most ``limit``."""
    out: List[str] = []
    seen: Set[str] = set()
    for root in roots:
        for path in walk_python_files(root, config):
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            relative = os.path.relpath(path)
            out.append(path if relative.startswith("..") else relative)
            if len(out) >= limit:
                return out
    return out
