"""The rule docs are true: every ``## Example`` code block of a rule's docstring is reported by that
rule, every block after ``Use instead:`` is not, and each block is a whole module (its imports
included) that parses."""
from __future__ import annotations

import builtins
import re
import symtable
from typing import List, Set, Tuple

import pytest

from jitlint import docs
from jitlint.config import Config
from jitlint.engine import lint_source
from jitlint.registry import RULES_BY_CODE

_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def example_blocks(code: str) -> Tuple[List[str], List[str]]:
    """The ``python`` code blocks of the rule's ``Example``: those before ``Use instead:`` (the
    hazard) and those after it (the remedy)."""
    example = docs.rule_sections(RULES_BY_CODE[code]).get("Example", "")
    hazard, _, remedy = example.partition("Use instead:")
    return _BLOCK.findall(hazard), _BLOCK.findall(remedy)


def _codes_found(code: str, source: str) -> List[str]:
    result = lint_source(source, "example.py", Config(select=(code,)))
    assert result.error is None, f"the example of {code} does not parse: {result.error}\n{source}"
    return [f"{d.line}:{d.column} {d.code} {d.message}" for d in result.diagnostics if d.code == code]


def _free_names(source: str) -> Set[str]:
    """Names a module reads that neither it nor the builtins define."""
    top = symtable.symtable(source, "example.py", "exec")
    defined = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    free: Set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        tables.extend(table.get_children())
        for symbol in table.get_symbols():
            at_top = table is top and symbol.is_referenced() and not symbol.is_assigned()
            if symbol.is_global() or at_top:
                free.add(symbol.get_name())
    return free - defined - set(dir(builtins))


CODES = sorted(RULES_BY_CODE)


@pytest.mark.parametrize("code", CODES)
def test_every_rule_shows_a_hazard_and_a_remedy(code):
    hazard, remedy = example_blocks(code)
    assert hazard, f"{code}: no ```python block under ## Example"
    assert remedy, f"{code}: no ```python block after `Use instead:`"


@pytest.mark.parametrize("code", CODES)
def test_the_example_is_reported(code):
    for source in example_blocks(code)[0]:
        assert _codes_found(code, source), f"the ## Example of {code} is not reported as {code}:\n{source}"


@pytest.mark.parametrize("code", CODES)
def test_what_to_use_instead_is_not_reported(code):
    for source in example_blocks(code)[1]:
        found = _codes_found(code, source)
        assert not found, f"what {code} says to use instead is reported:\n{source}\n" + "\n".join(found)


@pytest.mark.parametrize("code", CODES)
def test_examples_are_self_contained(code):
    hazard, remedy = example_blocks(code)
    for source in hazard + remedy:
        assert not _free_names(source), f"an example of {code} uses names it does not define or import: " \
                                        f"{sorted(_free_names(source))}\n{source}"


def test_a_block_needs_its_imports():
    assert _free_names("@jax.jit\ndef f(x):\n    return jnp.sin(x) + y\n") == {"jax", "jnp", "y"}
    assert not _free_names("import jax\n\n@jax.jit\ndef f(x):\n    return len(x)\n")
