"""Templates with holes (jitlint.fixes.templates): the same trees LibCST's own template functions
give, without copying the holes or parsing a template twice."""
import libcst as cst
import pytest
from libcst.helpers import parse_template_expression, parse_template_statement

from jitlint.fixes.templates import TemplateFiller

CONFIG = cst.parse_module("x = 1\n").config_for_parsing


def code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


@pytest.mark.parametrize("template,holes", [
    ("jnp.where({c}, {a}, {b})", {"c": "x > 0", "a": "f(x) * 2", "b": "-x"}),
    ("lax.cond({c}, lambda {v}: {v} + 1, lambda {v}: {v}, {v})", {"c": "p", "v": "y"}),
    ("{a}[{i}] if {i} else {a}", {"a": "arr.T", "i": "k"}),
    ("{{1: {a}}}", {"a": "z"}),
])
def test_expressions_match_libcst(template, holes):
    nodes = {k: cst.parse_expression(v) for k, v in holes.items()}
    ours = TemplateFiller(CONFIG).expression(template.replace("{{", "{").replace("}}", "}")
                                             if "{{" in template else template, nodes)
    theirs = parse_template_expression(template.replace("{{", "{").replace("}}", "}")
                                       if "{{" in template else template, config=CONFIG, **nodes)
    assert code(ours) == code(theirs)
    assert ours.deep_equals(theirs)


def test_statement_matches_libcst():
    nodes = {"v": cst.parse_expression("jnp.where(c, a, b)")}
    ours = TemplateFiller(CONFIG).statement("y = {v}\n", nodes)
    theirs = parse_template_statement("y = {v}\n", config=CONFIG, **nodes)
    assert ours.deep_equals(theirs) and code(ours) == "y = jnp.where(c, a, b)\n"


def test_a_node_used_twice_is_copied_the_second_time():
    hole = cst.parse_expression("g(x)")
    filler = TemplateFiller(CONFIG)
    first = filler.expression("{a} + {a}", {"a": hole})
    assert (first.left is hole) != (first.right is hole)  # one place gets the node, the other a copy
    assert first.left.deep_equals(first.right)
    second = filler.expression("h({a})", {"a": hole})
    assert second.args[0].value is not hole  # already placed by the first fill


def test_fills_do_not_share_the_template_tree():
    filler = TemplateFiller(CONFIG)
    one = filler.expression("jnp.arange(n) < {k}", {"k": cst.Name("a")})
    two = filler.expression("jnp.arange(n) < {k}", {"k": cst.Name("b")})
    assert code(one) == "jnp.arange(n) < a" and code(two) == "jnp.arange(n) < b"
    assert one.left is not two.left  # no node object in two trees


def test_non_expression_holes_and_bad_templates():
    filler = TemplateFiller(CONFIG)
    arg = cst.Arg(cst.Name("x"), keyword=cst.Name("k"))
    assert code(filler.expression("f({a})", {"a": arg})) == "f(k = x)"  # LibCST's own path
    with pytest.raises(ValueError):
        filler.expression("f(x)", {"a": cst.Name("y")})
    with pytest.raises(ValueError):
        filler.expression("__jitlint_hole_a__ + {a}", {"a": cst.Name("y")})


def test_the_parser_configuration_is_part_of_the_key():
    crlf = cst.parse_module("x = 1\r\n").config_for_parsing
    lf = TemplateFiller(CONFIG).statement("if {c}:\n    y = 1\n", {"c": cst.Name("p")})
    windows = TemplateFiller(crlf).statement("if {c}:\n    y = 1\n", {"c": cst.Name("p")})
    assert cst.Module(body=[lf], default_newline="\n").code == "if p:\n    y = 1\n"
    assert cst.ensure_type(windows, cst.If).body.header.newline.value in (None, "\r\n")
