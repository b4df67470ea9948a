"""Resolve what a name refers to, from the module's imports.

A light pass of our own instead of LibCST's QualifiedNameProvider (which costs
several times the parse): imports are few, and every import statement of the
module -- top level or inside a function -- is collected once.
"""
from __future__ import annotations

from typing import Dict, Iterable, Optional

import libcst as cst

from jitlint.analysis.syntax import dotted_name


def _module_name(node: Optional[cst.BaseExpression]) -> str:
    if node is None:
        return ""
    return dotted_name(node) or ""


class ImportTable:
    """Maps local names bound by imports to fully qualified names."""

    def __init__(self, package: str = "") -> None:
        self.aliases: Dict[str, str] = {}
        self.package = package

    def add_import(self, node: cst.Import) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            full = _module_name(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.aliases[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                self.aliases.setdefault(head, head)

    def add_import_from(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        base = _module_name(node.module)
        if node.relative:
            base = "." * len(node.relative) + base
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{base}.{name}" if base and not base.endswith(".") else base + name

    def resolve(self, node: cst.BaseExpression) -> Optional[str]:
        """The qualified name of ``a.b.c`` if its head is an imported name."""
        head = node
        while type(head) is cst.Attribute:
            head = head.value
        if type(head) is not cst.Name or head.value not in self.aliases:
            return None  # (most names are not imported: no need to spell the chain out)
        dotted = dotted_name(node)
        if dotted is None:
            return None
        return self.resolve_dotted(dotted)

    def resolve_dotted(self, dotted: str) -> Optional[str]:
        head, _, rest = dotted.partition(".")
        full = self.aliases.get(head)
        if full is None:
            return None
        return normalise(f"{full}.{rest}" if rest else full)


#: public re-exports that appear under several names
_PREFIXES = (
    ("jax.experimental.pjit.pjit", "jax.experimental.pjit.pjit"),
    ("jax._src.numpy.", "jax.numpy."),
    ("jax._src.lax.", "jax.lax."),
    ("jax._src.random.", "jax.random."),
    ("jax.interpreters.", "jax.interpreters."),
    ("jax.experimental.host_callback.", "jax.experimental.host_callback."),
    ("jax.experimental.io_callback", "jax.experimental.io_callback"),
    ("flax.nnx.nnx.", "flax.nnx."),
    ("flax.linen.module.", "flax.linen."),
    ("equinox._jit.", "equinox."),
    ("eqx.", "equinox."),
)


def normalise(name: str) -> str:
    """Fold a few well known aliases: ``jax.lax.lax.x`` -> ``jax.lax.x``."""
    for old, new in _PREFIXES:
        if name.startswith(old) and old != new:
            return new + name[len(old):]
    if name.startswith("jax.lax.lax."):
        return "jax.lax." + name[len("jax.lax.lax."):]
    if name.startswith("jax.numpy.numpy."):
        return "jax.numpy." + name[len("jax.numpy.numpy."):]
    return name


def matches_any(qualified: Optional[str], names: Iterable[str]) -> bool:
    return qualified is not None and qualified in names
