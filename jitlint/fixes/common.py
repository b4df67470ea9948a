"""Small helpers shared by the fix builders: literals, comments, kinds."""
from __future__ import annotations

import ast
import dataclasses
import re
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Sequence, Tuple

import libcst as cst

from jitlint.analysis.syntax import name_references, params_of
from jitlint.analysis.values import Kind
from jitlint.fixes.context import FixContext

if TYPE_CHECKING:
    from jitlint.analysis.discovery import FunctionInfo


def string_literal(text: str) -> str:
    """A Python string literal for ``text``, in double quotes when it can be."""
    r = repr(text)
    if r.startswith("'") and '"' not in text:
        r = '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


def escape_braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def literal_value(node: cst.BaseExpression) -> Optional[object]:
    """The value of a number, string, ``True``/``False``/``None`` literal (no f-strings, no bytes)."""
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return ast.literal_eval(node.value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        inner = literal_value(node.expression)
        if isinstance(inner, (int, float, complex)) and not isinstance(inner, bool):
            return -inner if isinstance(node.operator, cst.Minus) else inner
        return None
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - odd prefixes
            return None
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = literal_value(node.left), literal_value(node.right)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
        return None
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    return None


def calls_by_name(fn: "FunctionInfo", ctx: FixContext, handed_to: FrozenSet[str] = frozenset()
                  ) -> Optional[List[cst.CSTNode]]:
    """Every call of the module-level function ``fn`` in the module, when each reference to its
    name (its ``def`` aside) is the callee of a call -- or, for the functions named in ``handed_to``
    (qualified), the name given to one of them as a positional argument (the ``Name``, listed with
    the calls); None when the function is also passed otherwise, wrapped, rebound or deleted, where a
    change of its signature or of its callers cannot follow it."""
    calls: List[cst.CSTNode] = []
    for ref in name_references(ctx.module, fn.name):
        if ref is fn.node.name:
            continue
        parent = ctx.parent(ref)
        if isinstance(parent, cst.Call) and parent.func is ref:
            calls.append(parent)
            continue
        holder = ctx.parent(parent) if isinstance(parent, cst.Arg) else None
        if handed_to and isinstance(holder, cst.Call) and parent.keyword is None and not parent.star \
                and ctx.index.qualify(holder.func) in handed_to:
            calls.append(ref)
            continue
        return None
    return calls


def kind_of(ctx: FixContext, node: cst.CSTNode) -> Kind:
    return ctx.facts.value(node).kind


#: every field of a node type that may hold a node (whitespace included: comments live there)
_NODE_FIELDS: Dict[type, Tuple[str, ...]] = {}
#: whether a type is a node type, by type: most field values are strings and sentinels, and an
#: ``isinstance`` against the abstract CSTNode costs a call into the ABC machinery for each
_IS_NODE: Dict[type, bool] = {}


def _holds_comment(node: cst.CSTNode) -> bool:
    """A comment anywhere in ``node``: a walk over the fields, much cheaper than a visitor."""
    stack: List[object] = [node]
    is_node = _IS_NODE
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is cst.Comment:
            return True
        names = _NODE_FIELDS.get(kind)
        if names is None:
            names = _NODE_FIELDS[kind] = tuple(f.name for f in dataclasses.fields(n)) \
                if isinstance(n, cst.CSTNode) else ()
        for name in names:
            value = getattr(n, name)
            value_kind = type(value)
            known = is_node.get(value_kind)
            if known is None:
                known = is_node[value_kind] = issubclass(value_kind, cst.CSTNode)
            if known:
                stack.append(value)
            elif value_kind is list or value_kind is tuple:
                stack.extend(value)
    return False


def comments_in(node: cst.CSTNode) -> List[str]:
    """The comments in ``node``, in source order."""
    if not _holds_comment(node):
        return []  # most statements have none: no visitor for them
    out: List[str] = []

    class _Collect(cst.CSTVisitor):
        def visit_Comment(self, c: cst.Comment) -> None:
            out.append(c.value)

    node.visit(_Collect())
    return out


def keep_comments(old: Sequence[cst.CSTNode], new: List[cst.BaseStatement]) -> List[cst.BaseStatement]:
    """Comments of ``old`` that ``new`` lost, as comment lines above the first new statement."""
    if not new:
        return new
    before: List[str] = []
    for node in old:
        before.extend(comments_in(node))
    after: List[str] = []
    for node in new:
        after.extend(comments_in(node))
    lost: List[str] = []
    remaining = list(after)
    for c in before:
        if c in remaining:
            remaining.remove(c)
        else:
            lost.append(c)
    if not lost:
        return new
    first = new[0]
    lines = list(getattr(first, "leading_lines", ())) + [cst.EmptyLine(comment=cst.Comment(c)) for c in lost]
    return [first.with_changes(leading_lines=lines)] + list(new[1:])


def with_leading_lines(stmts: List[cst.BaseStatement], old: cst.CSTNode) -> List[cst.BaseStatement]:
    """``stmts`` with the blank lines and comments above ``old`` (the statement they replace) in front."""
    lines = list(getattr(old, "leading_lines", ()))
    if not stmts or not lines:
        return stmts
    first = stmts[0]
    return [first.with_changes(leading_lines=lines + list(first.leading_lines))] + list(stmts[1:])


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")


def name_for_expression(code: str, limit: int = 3) -> str:
    """A readable identifier for an expression: ``x.sum()`` -> ``x_sum``."""
    words = [w for w in _WORD.findall(code) if w not in ("jnp", "np", "jax", "lax", "self")]
    name = "_".join(words[:limit]).lower() or "value"
    if name[0].isdigit():
        name = "v" + name
    return name


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value``, as a call passes a keyword (no spaces around ``=``)."""
    return cst.Arg(value, keyword=cst.Name(name), equal=cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))


def appended(args: Sequence[cst.Arg], new: cst.Arg) -> List[cst.Arg]:
    """A call's (or decorator's) arguments with ``new`` last; a trailing comma stays trailing."""
    out = list(args)
    if out and out[-1].comma is not cst.MaybeSentinel.DEFAULT:
        new = new.with_changes(comma=out[-1].comma)
        between = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        if len(out) > 1 and isinstance(out[-2].comma, cst.Comma) \
                and isinstance(out[-2].comma.whitespace_after, cst.ParenthesizedWhitespace):
            between = out[-2].comma  # (one argument a line: the new one on a line of its own too)
        out[-1] = out[-1].with_changes(comma=between)
    if out and not (isinstance(out[-1].whitespace_after_arg, cst.SimpleWhitespace)
                    and not out[-1].whitespace_after_arg.value):
        # `f(\n    a, b\n)`: the line break before the closing bracket follows the new last argument
        new = new.with_changes(whitespace_after_arg=out[-1].whitespace_after_arg)
        out[-1] = out[-1].with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
    return out + [new]


def template_format(call: cst.Call) -> bool:
    """``call`` is ``"...".format(...)``: the ``format`` method of a string literal."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value == "format" \
        and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString))


class ById(cst.CSTTransformer):
    """Replaces nodes, found by identity, in one pass (``node.visit(ById({id(old): new}))``)."""

    def __init__(self, by_id: dict) -> None:
        super().__init__()
        self.by_id = by_id

    def on_leave(self, original_node, updated_node):
        return self.by_id.get(id(original_node), updated_node)


def forwarding_def(name: str, params: cst.Parameters, callee: str, extra: Sequence[str], module: cst.Module,
                   skip_first: bool = False) -> cst.FunctionDef:
    """``def name(<params>): return callee(<each parameter passed on as it came>, <extra>)``: a plain function
    of the same signature that hands its arguments to ``callee`` (``skip_first``: not the first, ``self``)."""
    forwarded = []
    for param, kind in params_of(params)[1 if skip_first else 0:]:
        given = param.name.value
        forwarded.append({"vararg": f"*{given}", "varkw": f"**{given}", "kwonly": f"{given}={given}"}.get(kind, given))
    text = f"def {name}({module.code_for_node(params)}):\n    return {callee}({', '.join(forwarded + list(extra))})\n"
    return cst.ensure_type(cst.parse_statement(text), cst.FunctionDef)
