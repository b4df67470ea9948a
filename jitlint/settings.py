"""The settings of a run: the configuration file's, overridden by the command line.

Shared by the front ends that take jitlint's command-line options (``check``,
``verify``), so that none of them imports another.
"""
from __future__ import annotations

import argparse
import os
from typing import List, Optional, Sequence

from jitlint.config import Config, ConfigError, find_config, load_file
from jitlint.files import STDIN
from jitlint.registry import RULES_BY_CODE, known_code


def _joined(groups: Optional[Sequence[Sequence[str]]]) -> Optional[List[str]]:
    return None if groups is None else [item for group in groups for item in group]


def _file_config(args: argparse.Namespace) -> Config:
    if args.isolated:
        return Config()
    if args.config:
        loaded = load_file(args.config)
        if loaded is None:
            raise ConfigError(f"{args.config}: no [tool.jitlint] or [jitlint] section")
        return loaded
    files = [p for p in args.paths if p != STDIN]
    start = files[0] if files else (args.stdin_filename or ".")
    return find_config(start if os.path.exists(start) else ".")


def _check_codes(config: Config) -> None:
    where = config.source or "configuration"
    named = [("select", c) for c in config.select or ()] + [("ignore", c) for c in config.ignore]
    named += [("per-file-ignores", c) for _, codes in config.per_file_ignores for c in codes]
    for key, code in named:
        if not known_code(code):
            raise ConfigError(f"{where}: unknown rule code or prefix in `{key}`: {code}")


def resolve_config(args: argparse.Namespace) -> Config:
    """The configuration file's settings, overridden by the command line.

    ``--select`` replaces both ``select`` and ``ignore`` of the file (as in
    ruff: `--select JIT101` reports JIT101 even where the file ignores it);
    ``--ignore``, ``--extend-select`` and the ``--extend-*`` options add.
    """
    config = _file_config(args)
    _check_codes(config)
    select = _joined(args.select)
    if select is not None:
        config = config.merged(select=tuple(select), ignore=())
    extra = _joined(args.extend_select)
    if extra:
        base = config.select if config.select is not None else tuple(
            code for code, rule in RULES_BY_CODE.items() if rule.default_enabled)
        config = config.merged(select=tuple(base) + tuple(extra))
    config = config.merged(ignore=config.ignore + tuple(_joined(args.ignore) or ()))
    exclude = _joined(args.exclude)
    if exclude is not None:
        config = config.merged(exclude=tuple(exclude))
    config = config.merged(
        extend_exclude=config.extend_exclude + tuple(_joined(args.extend_exclude) or ()),
        extend_jit_decorators=config.extend_jit_decorators + tuple(_joined(args.extend_jit_decorators) or ()),
    )
    return config
