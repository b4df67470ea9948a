"""Files: which ones to check, the project around them, and reading them safely.

Below the front ends and the runner: the CLI, the verifier and the runner all
find and read files here, so that they agree on what a Python file is, which
folders are skipped, and what a file too large or not a file at all gives.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

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


# ---------------------------------------------------------------------------------------------- .gitignore
# A folder walk inside a git work tree skips what its .gitignore files ignore. Read: the .gitignore of
# every folder from the top of the work tree down to each folder walked, and .git/info/exclude; not
# git's global excludes file (core.excludesFile). Patterns: `#` comments, `!` negation, a trailing `/`
# for folders only, a `/` at the start or in the middle anchoring the pattern to its .gitignore's
# folder, `*`, `?`, `[...]` and `**` (`**/x`, `x/**`, `a/**/b`), `\` escapes; the last pattern that
# matches wins, and a deeper .gitignore comes after a higher one. As in git, what is inside an ignored
# folder cannot be re-included (the folder is not walked).

GitPattern = Tuple["re.Pattern[str]", bool, bool]  # (regex over the path below the .gitignore's folder, negated, folders only)


def _glob_regex(glob: str) -> str:
    """A gitignore glob (no leading or trailing `/`) as a regular expression over a `/`-separated path."""
    out: List[str] = []
    i, n = 0, len(glob)
    while i < n:
        ch = glob[i]
        if glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/") and (i + 2 == n or glob[i + 2] == "/"):
            if i + 2 == n:
                out.append(".*")  # `x/**`: everything inside; a lone `**`: everything
                i += 2
            else:
                out.append("(?:[^/]*/)*")  # `**/`: zero or more folders
                i += 3
        elif ch == "*":
            while i < n and glob[i] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = i + 1
            if end < n and glob[end] in "!^":
                end += 1
            if end < n and glob[end] == "]":
                end += 1
            while end < n and glob[end] != "]":
                end += 1
            if end >= n:
                out.append(re.escape(ch))
                i += 1
                continue
            body = glob[i + 1:end]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            body = body.replace("\\", "\\\\").replace("^", "\\^")
            out.append(f"[{'^/' if negated else ''}{body}]")
            i = end + 1
        elif ch == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out)


def parse_gitignore(text: str) -> List[GitPattern]:
    """The patterns of one .gitignore file, in order (see the notes above)."""
    patterns: List[GitPattern] = []
    for line in text.splitlines():
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):  # `\ ` keeps one trailing space
            stripped += " "
        if not stripped or stripped.startswith("#"):
            continue
        negated = stripped.startswith("!")
        if negated:
            stripped = stripped[1:]
        elif stripped.startswith(("\\!", "\\#")):
            stripped = stripped[1:]
        folders_only = stripped.endswith("/")
        stripped = stripped.rstrip("/")
        if not stripped:
            continue
        anchored = "/" in stripped
        body = _glob_regex(stripped.lstrip("/"))
        try:
            regex = re.compile(("" if anchored else "(?:.*/)?") + body + r"\Z", re.DOTALL)
        except re.error:
            continue  # git ignores a pattern it cannot read; so does jitlint
        patterns.append((regex, negated, folders_only))
    return patterns


def git_work_tree(folder: str) -> Optional[str]:
    """The top of the git work tree ``folder`` is in (the nearest folder at or above it holding
    ``.git``), or None."""
    directory = os.path.abspath(folder)
    while True:
        if os.path.lexists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


class GitIgnore:
    """What the .gitignore files of one git work tree ignore, read folder by folder as a walk needs them."""

    def __init__(self, top: str) -> None:
        self.top = top
        self._folders: Dict[str, List[GitPattern]] = {}

    @classmethod
    def around(cls, folder: str) -> Optional["GitIgnore"]:
        top = git_work_tree(folder)
        return None if top is None else cls(top)

    def _patterns(self, folder: str) -> List[GitPattern]:
        if folder not in self._folders:
            names = [".gitignore"] + ([os.path.join(".git", "info", "exclude")] if folder == self.top else [])
            patterns: List[GitPattern] = []
            for name in reversed(names):  # .git/info/exclude comes before the top .gitignore
                try:
                    data = read_source_file(os.path.join(folder, name), 1024 * 1024)
                except OSError:
                    continue
                patterns += parse_gitignore(data.decode("utf-8", "replace"))
            self._folders[folder] = patterns
        return self._folders[folder]

    def ignores(self, path: str, is_folder: bool) -> bool:
        """Whether git ignores ``path`` (below the top); its parent folders are not looked at."""
        path = os.path.abspath(path)
        relative = os.path.relpath(path, self.top)
        if relative == "." or relative == os.pardir or relative.startswith(os.pardir + os.sep):
            return False
        parts = relative.split(os.sep)
        ignored = False
        folder = self.top
        for depth in range(len(parts)):  # the .gitignore of each folder from the top down to the parent
            below = "/".join(parts[depth:])
            for regex, negated, folders_only in self._patterns(folder):
                if (is_folder or not folders_only) and regex.match(below):
                    ignored = not negated
            folder = os.path.join(folder, parts[depth])
        return ignored


def walk_python_files(root: str, config: Config,
                      on_error: Optional[Callable[[str, OSError], None]] = None,
                      notebooks: bool = True) -> Iterator[str]:
    """Python files (and Jupyter notebooks) below ``root``, sorted, skipping excluded folders, virtual environments and (inside
    a git work tree, unless ``respect-gitignore = false``) what .gitignore ignores.

    A folder that cannot be listed is passed to ``on_error`` (it is never skipped silently).
    """
    def failed(exc: OSError) -> None:
        if on_error is not None:
            on_error(exc.filename or root, exc)

    gitignore = GitIgnore.around(root) if config.respect_gitignore else None
    suffixes = (".py", ".pyi", ".ipynb") if notebooks else (".py", ".pyi")

    def skipped(path: str, is_folder: bool) -> bool:
        return config.is_excluded(path, root) or (gitignore is not None and gitignore.ignores(path, is_folder))

    for folder, dirs, files in os.walk(root, followlinks=False, onerror=failed):
        dirs[:] = sorted(d for d in dirs if not skipped(os.path.join(folder, d), True)
                         and not is_virtualenv(os.path.join(folder, d)))
        for name in sorted(files):
            path = os.path.join(folder, name)
            if name.endswith(suffixes) and not skipped(path, False):
                yield os.path.normpath(path)


def iter_files(paths: Iterable[str], config: Config,
               on_error: Optional[Callable[[str, OSError], None]] = None) -> Iterator[str]:
    """The files to lint: named files as given, folders walked; each file once.

    With ``force-exclude`` (``--force-exclude``), a file or folder named here that ``exclude`` /
    ``extend-exclude`` (or the default excludes) match is skipped too: what pre-commit needs, as it
    names the files itself.  Stdin (``-``) is always read.
    """
    seen: Set[str] = set()
    for path in paths:
        if config.force_exclude and path != STDIN and config.is_force_excluded(path):
            continue
        found = walk_python_files(path, config, on_error) if path != STDIN and os.path.isdir(path) else [path]
        for file in found:
            key = file if file == STDIN else os.path.realpath(file)
            if key not in seen:
                seen.add(key)
                yield file


def project_root(path: str) -> Optional[str]:
    """The nearest folder at or above ``path`` that holds a project marker; failing that, the
    folder above the outermost package holding ``path`` (an unpacked wheel or an installed package
    has no marker, and its modules import one another by their package's name); None: no project.

    The user's home folder and the file system root are never a project: a
    stray ``.git`` there would make every check read the whole disk.
    """
    start = os.path.abspath(path)
    if not os.path.isdir(start):
        start = os.path.dirname(start)
    never = {os.path.abspath(os.path.expanduser("~")), os.path.abspath(os.sep)}
    directory = start
    while directory not in never:
        if any(os.path.exists(os.path.join(directory, marker)) for marker in PROJECT_MARKERS):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    top = outermost_package(start, never)
    return os.path.dirname(top) if top is not None and os.path.dirname(top) not in never else None


def outermost_package(directory: str, never: Iterable[str] = ()) -> Optional[str]:
    """The highest folder at or above ``directory`` (below ``never``) that holds an ``__init__.py``:
    the top package of the code there (a sub-folder without one is a namespace portion of it), or None."""
    top: Optional[str] = None
    current = directory
    while current not in never:
        if os.path.isfile(os.path.join(current, "__init__.py")):
            top = current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return top


def project_files(roots: Iterable[str], config: Config, limit: int = MAX_PROJECT_FILES) -> List[str]:
    """The Python files of the projects at ``roots`` (excludes honoured), at most ``limit``: the modules
    that can import each other (a notebook imports, but nothing imports it)."""
    out: List[str] = []
    seen: Set[str] = set()
    for root in roots:
        for path in walk_python_files(root, config, notebooks=False):
            real = os.path.realpath(path)
            if real in seen:
                continue
            seen.add(real)
            relative = os.path.relpath(path)
            out.append(path if relative.startswith("..") else relative)
            if len(out) >= limit:
                return out
    return out
