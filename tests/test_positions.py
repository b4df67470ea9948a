"""The light position pass gives the ranges LibCST's PositionProvider gives."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.analysis.positions import node_ranges

FIXTURES = Path(__file__).parent / "fixtures"
ODD = {
    "crlf.py": "import jax\r\n\r\n@jax.jit\r\ndef f(x):\r\n    if x > 0:\r\n        x = -x\r\n    return x\r\n",
    "lone_cr.py": "import jax\r@jax.jit\rdef f(x):\r    return (\r        x + 1)\r",
    "no_final_newline.py": "def f(x):\n    return x",
    "decorated.py": "# c\n\n@a\n@b(1)\nclass C:\n    @property\n    def p(self): return (1)\n",
    "parenthesized.py": "y = ((a\n      + b)) [0]\nz = [ (x) for x in (y) if (x) ]\n",
    "unicode.py": "s = 'héllo'; t = '😀' + s\nif s: print(t, end='')\n",
    "empty.py": "",
}


def _all_nodes(module: cst.Module):
    nodes = []

    class Every(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nodes.append(node)
            return True

    module.visit(Every())
    return nodes


def _sources():
    out = [(name, text) for name, text in ODD.items()]
    for path in sorted(FIXTURES.glob("*/*.py"))[::4]:
        # fixtures include files in other encodings (a coding cookie, Latin-1): LibCST decodes them
        out.append((str(path.relative_to(FIXTURES)), path.read_bytes()))
    return out


@pytest.mark.parametrize("name,text", _sources(), ids=[name for name, _ in _sources()])
def test_ranges_match_libcst_for_every_node_and_for_a_few(name, text):
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    nodes = _all_nodes(module)
    code, ranges = node_ranges(module, nodes)
    assert code == module.code
    assert {n: ranges.get(n) for n in nodes} == {n: expected[n] for n in nodes}
    # asked for a few nodes only (every third), whose ranges may be hoisted from children not asked for
    few = nodes[::3]
    _, some = node_ranges(module, few)
    assert set(some) == set(few)
    assert all(some[n] == expected[n] for n in few)


@pytest.mark.parametrize("name,text", _sources(), ids=[name for name, _ in _sources()])
def test_ranges_of_statements_asked_for_alone(name, text):
    """A statement whose range ends with a block, a clause or an import's last name, asked for without
    any of its parts: the pass notes the parts LibCST takes the range from, not the expressions."""
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    statements = [n for n in _all_nodes(module)
                  if isinstance(n, (cst.BaseCompoundStatement, cst.SimpleStatementLine, cst.Import, cst.ImportFrom))]
    _, ranges = node_ranges(module, statements)
    assert {n: ranges.get(n) for n in statements} == {n: expected[n] for n in statements}


MULTILINE_IMPORTS = "from a import (\n    b,\n    c as d,\n)\nfrom e import *\nimport f.g as h, i\n" \
    "try:\n    pass\nexcept E:\n    pass\nelse:\n    x = (1 +\n         2)\nfinally:\n    y = 2; z = 3\n" \
    "match p:\n    case [1, *rest]:\n        pass\n    case _:\n        pass\n"


def test_ranges_taken_from_parts_not_asked_for():
    module = cst.parse_module(MULTILINE_IMPORTS)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    for node in _all_nodes(module):
        _, ranges = node_ranges(module, [node])
        assert ranges[node] == expected[node], module.code_for_node(node)


def test_a_node_not_in_the_module_gets_no_range():
    module = cst.parse_module("x = 1\n")
    stranger = cst.parse_expression("y + 2")
    _, ranges = node_ranges(module, [stranger, module.body[0]])
    assert stranger not in ranges and module.body[0] in ranges
