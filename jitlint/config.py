"""Configuration from ``[tool.jitlint]`` in pyproject.toml or ``[jitlint]`` in setup.cfg."""
from __future__ import annotations

import configparser
import fnmatch
import os
import sys
from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

DEFAULT_EXCLUDE = (
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", ".env", "env", "__pycache__",
    "build", "dist", ".eggs", "*.egg-info", ".mypy_cache", ".pytest_cache", ".ruff_cache",
    "node_modules", ".jitlint_cache", "site-packages",
)

KEYS = ("select", "ignore", "per-file-ignores", "extend-jit-decorators", "exclude", "extend-exclude")


class ConfigError(Exception):
    pass


@dataclass(frozen=True)
class Config:
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    extend_jit_decorators: Tuple[str, ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: Tuple[str, ...] = ()
    source: Optional[str] = None

    def ignores_for(self, path: str) -> List[str]:
        out: List[str] = []
        norm = path.replace(os.sep, "/")
        base = os.path.basename(norm)
        for pattern, codes in self.per_file_ignores:
            if fnmatch.fnmatch(norm, pattern) or fnmatch.fnmatch(base, pattern) or fnmatch.fnmatch(
                    norm, "*/" + pattern.lstrip("./")):
                out.extend(codes)
        return out

    def is_excluded(self, path: str) -> bool:
        parts = path.replace(os.sep, "/").split("/")
        for pattern in self.exclude + self.extend_exclude:
            pattern = pattern.rstrip("/")
            if "/" in pattern:
                if fnmatch.fnmatch(path.replace(os.sep, "/"), pattern) or fnmatch.fnmatch(
                        path.replace(os.sep, "/"), "*/" + pattern):
                    return True
            elif any(fnmatch.fnmatch(part, pattern) for part in parts if part not in (".", "..")):
                return True
        return False

    def merged(self, **overrides) -> "Config":
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


def _as_list(value, key: str) -> Tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items = [v.strip() for v in value.replace("\n", ",").split(",")]
        return tuple(v for v in items if v)
    if isinstance(value, (list, tuple)):
        if not all(isinstance(v, str) for v in value):
            raise ConfigError(f"`{key}` must be a list of strings")
        return tuple(v.strip() for v in value if v.strip())
    raise ConfigError(f"`{key}` must be a list of strings")


def _per_file(value, key: str) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    if value is None:
        return ()
    if isinstance(value, dict):
        return tuple((str(k), _as_list(v, key)) for k, v in value.items())
    if isinstance(value, str):
        out = []
        for line in value.replace(",\n", "\n").splitlines():
            if ":" in line:
                pattern, codes = line.split(":", 1)
                out.append((pattern.strip(), _as_list(codes.replace(" ", ","), key)))
        return tuple(out)
    raise ConfigError(f"`{key}` must be a table of glob -> codes")


def from_mapping(data: Dict, source: str) -> Config:
    unknown = [k for k in data if k.replace("_", "-") not in KEYS]
    if unknown:
        raise ConfigError(f"{source}: unknown jitlint option(s): {', '.join(sorted(unknown))}")
    get = lambda k: data.get(k, data.get(k.replace("-", "_")))  # noqa: E731
    select = get("select")
    exclude = get("exclude")
    return Config(
        select=_as_list(select, "select") if select is not None else None,
        ignore=_as_list(get("ignore"), "ignore"),
        per_file_ignores=_per_file(get("per-file-ignores"), "per-file-ignores"),
        extend_jit_decorators=_as_list(get("extend-jit-decorators"), "extend-jit-decorators"),
        exclude=_as_list(exclude, "exclude") if exclude is not None else DEFAULT_EXCLUDE,
        extend_exclude=_as_list(get("extend-exclude"), "extend-exclude"),
        source=source,
    )


def _load_toml(path: str) -> Dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on older Pythons only
        import tomli as tomllib
    with open(path, "rb") as fh:
        try:
            return tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from None


def load_file(path: str) -> Optional[Config]:
    """The jitlint section of one file, or None when it has none."""
    if path.endswith(".toml"):
        data = _load_toml(path)
        section = data.get("tool", {}).get("jitlint")
        return None if section is None else from_mapping(section, path)
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except configparser.Error as exc:
        raise ConfigError(f"{path}: {exc}") from None
    if not parser.has_section("jitlint"):
        return None
    return from_mapping(dict(parser.items("jitlint")), path)


def find_config(start: str) -> Config:
    """The nearest pyproject.toml / setup.cfg / tox.ini with a jitlint section, walking up."""
    directory = os.path.abspath(start)
    if not os.path.isdir(directory):
        directory = os.path.dirname(directory)
    while True:
        for name in ("pyproject.toml", "setup.cfg", "tox.ini"):
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                config = load_file(candidate)
                if config is not None:
                    return config
        parent = os.path.dirname(directory)
        if parent == directory:
            return Config()
        directory = parent
