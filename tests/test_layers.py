"""The architecture, checked: layers import downward only, and no module-level import cycles.

analysis (facts about the code) -> rules -> fixes -> engine -> runner / output -> front ends.
Every import counts, also one inside a function: a lazy import upward is still a dependency upward.
"""
from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

PACKAGE = Path(__file__).resolve().parent.parent / "jitlint"

#: lowest first; a module belongs to the layer of its longest matching prefix
LAYERS: List[Tuple[str, Tuple[str, ...]]] = [
    ("base", ("jitlint.diagnostics", "jitlint.config", "jitlint.source", "jitlint.files", "jitlint.cache",
              "jitlint.notebook")),
    ("analysis", ("jitlint.analysis",)),
    ("rules", ("jitlint.rules", "jitlint.registry")),
    ("fixes", ("jitlint.fixes",)),
    ("engine", ("jitlint.engine", "jitlint.fixing", "jitlint.incremental")),
    ("runner", ("jitlint.runner", "jitlint.output")),
    ("front ends", ("jitlint.cli", "jitlint.flake8_plugin", "jitlint.lsp", "jitlint.lsp_worker", "jitlint.verify",
                    "jitlint.docs", "jitlint.record", "jitlint.settings", "jitlint.__main__")),
    # the package itself is the public API (lint_source, fix_source): it may import anything
    ("public API", ("jitlint",)),
]


def layer_of(module: str) -> Optional[int]:
    best: Optional[Tuple[int, int]] = None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return best[0] if best else None


def modules() -> Iterator[Tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        yield ".".join(parts), ast.parse(path.read_text(encoding="utf-8"))


def imports(module: str, tree: ast.Module, top_level_only: bool = False) -> Iterator[Tuple[int, str]]:
    """(line, imported jitlint module) for each import; ``top_level_only``: not in functions or
    ``if TYPE_CHECKING:`` blocks (what runs when the module is imported)."""
    package = module if (PACKAGE / Path(*module.split(".")[1:]) / "__init__.py").exists() else \
        module.rpartition(".")[0]
    nodes: List[ast.AST] = list(ast.walk(tree))
    if top_level_only:
        nodes = [n for n in tree.body if not (isinstance(n, ast.If) and "TYPE_CHECKING" in ast.dump(n.test))]
    for node in nodes:
        names: List[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [base]
            names += [f"{base}.{alias.name}" for alias in node.names if _is_module(f"{base}.{alias.name}")]
        for name in names:
            if name.startswith("jitlint") and name not in ("jitlint",):
                yield node.lineno, name


def _is_module(name: str) -> bool:
    relative = Path(*name.split(".")[1:])
    return (PACKAGE / relative).with_suffix(".py").exists() or (PACKAGE / relative / "__init__.py").exists()


def test_every_module_has_a_layer():
    assert [m for m, _ in modules() if layer_of(m) is None] == []


def test_layers_import_downward_only():
    upward = []
    for module, tree in modules():
        own = layer_of(module)
        for line, name in imports(module, tree):
            target = layer_of(name)
            if target is not None and own is not None and target > own:
                upward.append(f"{module}:{line} ({LAYERS[own][0]}) imports {name} ({LAYERS[target][0]})")
    assert upward == []


def find_cycles(graph: Dict[str, Set[str]]) -> List[str]:
    cycles: List[str] = []
    state: Dict[str, int] = {}

    def visit(node: str, path: List[str]) -> None:
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target):] + [target]))
            elif target not in state:
                visit(target, path + [target])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return cycles


def test_no_module_level_import_cycles():
    # a package importing its own submodules is the ordinary pattern: no edge from a module to its parents
    graph = {module: {name for _, name in imports(module, tree, top_level_only=True) if _is_module(name)}
             for module, tree in modules()}
    assert find_cycles(graph) == []
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a"]


def test_the_check_itself_sees_an_upward_import(tmp_path):
    """A lower module importing a higher one is caught (the test is not vacuous)."""
    tree = ast.parse("def f():\n    from jitlint.cli import main\n")
    found = [(line, name) for line, name in imports("jitlint.analysis.fake", tree)]
    assert found == [(2, "jitlint.cli")]
    assert layer_of("jitlint.cli") > layer_of("jitlint.analysis.fake")


def private_imports(module: str, tree: ast.Module) -> Iterator[Tuple[int, str]]:
    """(line, name) for each ``from jitlint.x import _name`` in ``module`` from another module: a
    module's private names are its own (what another module needs is given a public name)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jitlint") and not node.level \
                and node.module != module:
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    yield node.lineno, f"{node.module}.{alias.name}"


def test_no_module_imports_another_modules_private_names():
    found = [f"{module}:{line} imports {name}" for module, tree in modules()
             for line, name in private_imports(module, tree)]
    assert found == []


def test_the_private_import_check_sees_one():
    tree = ast.parse("from jitlint.fixes.imports import _helper\nfrom jitlint.fixes import RULES as _R\n")
    assert list(private_imports("jitlint.fixes.masks", tree)) == [(1, "jitlint.fixes.imports._helper")]
