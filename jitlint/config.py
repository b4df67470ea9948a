"""Configuration from ``[tool.jitlint]`` in pyproject.toml or ``[jitlint]`` in setup.cfg / tox.ini.

Keys: ``select``, ``ignore``, ``per-file-ignores``, ``extend-jit-decorators``,
``exclude``, ``extend-exclude``, ``force-exclude``, ``respect-gitignore`` and
``line-length`` (``_`` may stand for ``-``). The folders in :data:`DEFAULT_EXCLUDE` and virtual
environments are always skipped when a folder is walked; ``exclude`` and
``extend-exclude`` add patterns to them; ``force-exclude`` applies them to the
paths named on the command line too; ``respect-gitignore`` (on by default)
skips what .gitignore ignores when a folder is walked; ``line-length`` is the
longest line a fix writes (else flake8's or ruff's, see :func:`line_length_for`).
"""
from __future__ import annotations

import configparser
import fnmatch
import functools
import os
import re
import sys
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Tuple

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".bzr", ".tox", ".nox", ".venv", "venv", "__pycache__", "__pypackages__",
    "build", "dist", ".eggs", "*.egg-info", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    "node_modules", ".jitlint_cache", "site-packages",
)

KEYS = ("select", "ignore", "per-file-ignores", "extend-jit-decorators", "exclude", "extend-exclude",
        "force-exclude", "respect-gitignore", "line-length")
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini")

PerFileIgnores = Tuple[Tuple[str, Tuple[str, ...]], ...]


class ConfigError(Exception):
    """A configuration file or value jitlint cannot use; the message names the file and key."""


def _slashes(path: str) -> str:
    path = path.replace(os.sep, "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _glob_matches(path: str, pattern: str) -> bool:
    """``pattern`` matches ``path`` whole, or a tail of it that starts at a folder boundary."""
    pattern = _slashes(pattern).rstrip("/")
    return fnmatch.fnmatch(path, pattern) or fnmatch.fnmatch(path, "*/" + pattern)


@functools.lru_cache(maxsize=64)
def _name_patterns(patterns: Tuple[str, ...]) -> "Optional[re.Pattern[str]]":
    """The patterns without ``/`` (each matches one name of a path) as one regular expression."""
    names = [fnmatch.translate(p.rstrip("/")) for p in patterns if "/" not in p.rstrip("/")]
    return re.compile("|".join(f"(?:{n})" for n in names)) if names else None


@dataclass(frozen=True)
class Config:
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    per_file_ignores: PerFileIgnores = ()
    extend_jit_decorators: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = ()
    extend_exclude: Tuple[str, ...] = ()
    #: apply the excludes to the paths named on the command line too (what pre-commit hooks need)
    force_exclude: bool = False
    #: skip what .gitignore ignores when walking a folder inside a git work tree
    respect_gitignore: bool = True
    #: the longest line a fix writes (None: see :func:`line_length_for`)
    line_length: Optional[int] = None
    #: the file these settings were read from, if any
    source: Optional[str] = None

    @property
    def exclude_patterns(self) -> Tuple[str, ...]:
        return DEFAULT_EXCLUDE + self.exclude + self.extend_exclude

    def _path_forms(self, path: str) -> List[str]:
        """``path`` as given, and relative to the folder of the configuration file."""
        forms = [_slashes(path)]
        if self.source is not None:
            base = os.path.dirname(os.path.abspath(self.source))
            relative = os.path.relpath(os.path.abspath(path), base)
            if not relative.startswith(".."):
                forms.append(_slashes(relative))
        return forms

    def ignores_for(self, path: str) -> List[str]:
        """The codes ``per-file-ignores`` turns off for ``path``."""
        forms = self._path_forms(path)
        out: List[str] = []
        for pattern, codes in self.per_file_ignores:
            if any(_glob_matches(form, pattern) for form in forms):
                out.extend(codes)
        return out

    def is_excluded(self, path: str, root: str) -> bool:
        """Whether walking ``root`` should skip ``path`` (a file or folder below it).

        A pattern without ``/`` matches any one name below ``root``; a pattern
        with ``/`` matches the path, or its end, as given or relative to the
        configuration file. ``root`` itself was named by the user and is never
        excluded.
        """
        below = _slashes(os.path.relpath(path, root)).split("/")
        for pattern in self.exclude_patterns:
            if "/" in pattern.rstrip("/"):
                if any(_glob_matches(form, pattern) for form in self._path_forms(path)):
                    return True
        names = _name_patterns(self.exclude_patterns)
        return names is not None and any(names.match(name) for name in below if name not in (".", ".."))

    def is_force_excluded(self, path: str) -> bool:
        """Whether ``force-exclude`` skips ``path``, a file or folder named on the command line.

        It is matched as :meth:`is_excluded` matches what a walk finds, below the folder of the
        configuration file when it is inside it, else below the current folder; a path outside
        both is matched by its own name only.
        """
        absolute = os.path.abspath(path)
        bases = ([os.path.dirname(os.path.abspath(self.source))] if self.source is not None else []) + [os.getcwd()]
        for base in bases:
            relative = os.path.relpath(absolute, base)
            if relative == os.curdir:
                return False  # the folder of the configuration, or the current one, is never excluded
            if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
                return self.is_excluded(absolute, base)
        return self.is_excluded(absolute, os.path.dirname(absolute))

    def merged(self, **overrides: Any) -> "Config":
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


def _strings(value: Any, where: str) -> Tuple[str, ...]:
    """A list of strings, or one string of comma / newline separated items."""
    if isinstance(value, str):
        items = value.replace("\n", ",").split(",")
    elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        items = list(value)
    else:
        raise ConfigError(f"{where} must be a list of strings, not {type(value).__name__}: {value!r}")
    return tuple(item.strip() for item in items if item.strip())


def _boolean(value: Any, where: str) -> bool:
    """``true`` / ``false`` (TOML), or a word setup.cfg spells them with."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, str) else None
    if word in ("true", "yes", "on", "1"):
        return True
    if word in ("false", "no", "off", "0"):
        return False
    raise ConfigError(f"{where} must be true or false, not {value!r}")


def _per_file_ignores(value: Any, where: str) -> PerFileIgnores:
    """A table ``glob = codes`` (TOML), or lines ``glob: codes`` (setup.cfg, like flake8)."""
    if isinstance(value, dict):
        return tuple((str(glob), _strings(codes, f"{where} for {glob!r}")) for glob, codes in value.items())
    if not isinstance(value, str):
        raise ConfigError(f"{where} must be a table of glob = [codes], not {type(value).__name__}")
    out = []
    for line in value.splitlines():
        line = line.strip().rstrip(",")
        if not line:
            continue
        glob, sep, codes = line.partition(":")
        if not sep or not glob.strip():
            raise ConfigError(f"{where}: expected `glob: codes`, got {line!r}")
        out.append((glob.strip(), _strings(codes.replace(" ", ","), f"{where} for {glob.strip()!r}")))
    return tuple(out)


def from_mapping(data: Mapping[str, Any], source: str) -> Config:
    """A Config from the jitlint section of ``source``; ConfigError names bad keys and values."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: the jitlint section must be a table")
    values: Dict[str, Any] = {}
    for key, value in data.items():
        name = str(key).replace("_", "-")
        if name not in KEYS:
            raise ConfigError(f"{source}: unknown jitlint option `{key}` (known: {', '.join(KEYS)})")
        values[name] = value

    def strings(name: str) -> Tuple[str, ...]:
        return _strings(values[name], f"{source}: `{name}`") if name in values else ()

    select = strings("select") if "select" in values else None
    per_file = values.get("per-file-ignores")
    return Config(
        select=select,
        ignore=strings("ignore"),
        per_file_ignores=() if per_file is None else _per_file_ignores(per_file, f"{source}: `per-file-ignores`"),
        extend_jit_decorators=strings("extend-jit-decorators"),
        exclude=strings("exclude"),
        extend_exclude=strings("extend-exclude"),
        force_exclude=_boolean(values.get("force-exclude", False), f"{source}: `force-exclude`"),
        respect_gitignore=_boolean(values.get("respect-gitignore", True), f"{source}: `respect-gitignore`"),
        line_length=_configured_line_length(values.get("line-length"), f"{source}: `line-length`"),
        source=source,
    )


def _toml_section(path: str) -> Optional[Mapping[str, Any]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on older Pythons only
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8: {exc.reason}") from None
    tool = data.get("tool", {})
    return tool.get("jitlint") if isinstance(tool, dict) else None


def _ini_section(path: str) -> Optional[Mapping[str, Any]]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with open(path, encoding="utf-8") as fh:
            parser.read_file(fh, source=path)
    except configparser.Error as exc:
        raise ConfigError(f"{path}: invalid INI: {exc}".replace("\n", " ")) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8: {exc.reason}") from None
    if not parser.has_section("jitlint"):
        return None
    return dict(parser.items("jitlint"))


def load_file(path: str) -> Optional[Config]:
    """The jitlint section of one file, or None when it has none."""
    try:
        section = _toml_section(path) if path.endswith(".toml") else _ini_section(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return None if section is None else from_mapping(section, path)


def find_config(start: str) -> Config:
    """The nearest pyproject.toml / setup.cfg / tox.ini with a jitlint section, walking up."""
    directory = os.path.abspath(start)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    while True:
        for name in CONFIG_FILES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                config = load_file(candidate)
                if config is not None:
                    return config
        parent = os.path.dirname(directory)
        if parent == directory:
            return Config()
        directory = parent


# ---------------------------------------------------------------- line length

#: the line length when no configuration sets one (black's and ruff's default)
DEFAULT_LINE_LENGTH = 88

#: where flake8 and ruff keep theirs: (file, table), asked in this order
_FLAKE8_FILES = ("setup.cfg", "tox.ini", ".flake8")
_RUFF_FILES = (("pyproject.toml", ("tool", "ruff")), ("ruff.toml", ()), (".ruff.toml", ()))


def _positive(value: Any) -> Optional[int]:
    """A whole number above 0 (an int, or a string of digits), else None."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _configured_line_length(value: Any, where: str) -> Optional[int]:
    if value is None:
        return None
    found = _positive(value)
    if found is None:
        raise ConfigError(f"{where} must be a whole number above 0, not {value!r}")
    return found


def line_length_for(config: Config, start: Optional[str] = None) -> int:
    """The line length fixes wrap to: ``line-length`` of the jitlint configuration, else flake8's
    ``max-line-length`` (setup.cfg, tox.ini, .flake8), else ruff's ``line-length`` (pyproject.toml,
    ruff.toml, .ruff.toml) -- each the nearest found walking up from the configuration file's
    folder, else from ``start`` (a file or folder) -- else :data:`DEFAULT_LINE_LENGTH`.  Files that
    cannot be read and values that are not whole numbers above 0 are passed over: they are the
    other tools' to report."""
    if config.line_length is not None:
        return config.line_length
    origin = config.source or start
    if origin is None:
        return DEFAULT_LINE_LENGTH
    directory = os.path.abspath(origin)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    return _other_tools_line_length(directory)


@functools.lru_cache(maxsize=256)
def _other_tools_line_length(directory: str) -> int:
    folders = [directory]
    while os.path.dirname(folders[-1]) != folders[-1]:
        folders.append(os.path.dirname(folders[-1]))
    for read in (_flake8_line_length, _ruff_line_length):
        found = next((n for n in map(read, folders) if n is not None), None)
        if found is not None:
            return found
    return DEFAULT_LINE_LENGTH


def _flake8_line_length(directory: str) -> Optional[int]:
    for name in _FLAKE8_FILES:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        parser = configparser.ConfigParser(interpolation=None)
        try:
            with open(path, encoding="utf-8") as fh:
                parser.read_file(fh, source=path)
        except (OSError, UnicodeDecodeError, configparser.Error):
            continue
        for key in ("max-line-length", "max_line_length"):
            if parser.has_option("flake8", key):
                found = _positive(parser.get("flake8", key))
                if found is not None:
                    return found
    return None


def _ruff_line_length(directory: str) -> Optional[int]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on older Pythons only
        import tomli as tomllib
    for name, table in _RUFF_FILES:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as fh:
                data: Any = tomllib.load(fh)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        for part in table:
            data = data.get(part) if isinstance(data, dict) else None
        if isinstance(data, dict):
            found = _positive(data.get("line-length", data.get("line_length")))
            if found is not None:
                return found
    return None
