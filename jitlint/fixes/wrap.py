"""Rewritten lines wrapped to the project's line length, and comments kept on their lines.

A line that a fix writes or changes and that runs past the line length is
broken inside the brackets of the outermost call or display (list, set,
parenthesized tuple) on it that the fix wrote or changed (``jnp.where``,
``lax.cond``, ``jax.debug.print``, ``partial(jax.jit, ...)``, a call that gained
an argument) the way black does: first the arguments together on one line of
their own, then, if that is still too long, one argument per line with a
trailing comma.  Calls copied unchanged from the user's code are left as they
were written; so are lines the fix did not touch.

:func:`exploded` lays a call out one argument per line with comments after
the arguments they belong to: a fix that folds several lines into one call
(``if`` / ``else`` into ``jnp.where``, a multi-line ``print`` into
``jax.debug.print``) keeps each comment on the line of the code it was on.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jitlint.analysis.syntax import iter_children

if TYPE_CHECKING:
    from jitlint.fixes.context import FixContext

#: how many calls one statement may get broken (each pass breaks one)
_MAX_PASSES = 8

def _break(indent: str, trailing: Sequence[str] = (), above: Sequence[str] = (),
           comment_indent: str = "") -> cst.ParenthesizedWhitespace:
    """A line break inside brackets, the next line indented by ``indent`` past the statement's
    block; ``trailing`` (at most one) ends the line left behind, ``above`` stand on lines of their
    own before the next, indented by ``comment_indent``."""
    first = cst.TrailingWhitespace()
    if trailing:
        first = cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(trailing[0]))
    lines = [cst.EmptyLine(indent=True, whitespace=cst.SimpleWhitespace(comment_indent), comment=cst.Comment(c))
             for c in above]
    return cst.ParenthesizedWhitespace(first_line=first, empty_lines=lines, indent=True,
                                       last_line=cst.SimpleWhitespace(indent))


def hugged(call: cst.Call, inner: str, outer: str) -> cst.Call:
    """``f(\\n    a, b\\n)``: the arguments on one line of their own."""
    args = list(call.args)
    args[-1] = args[-1].with_changes(whitespace_after_arg=_break(outer))
    return call.with_changes(whitespace_before_args=_break(inner), args=args)


def exploded(call: cst.Call, inner: str, outer: str,
             comments: Optional[Sequence[Sequence[str]]] = None) -> cst.Call:
    """One argument per line, a trailing comma after the last.  ``comments[k]`` belong to argument
    ``k``: the last ends its line, the others stand on lines of their own above it."""
    args = list(call.args)
    own = [list(comments[k]) if comments is not None and k < len(comments) else [] for k in range(len(args))]
    out = []
    for k, arg in enumerate(args):
        last = k + 1 == len(args)
        after = _break(outer if last else inner, own[k][-1:], () if last else own[k + 1][:-1], inner)
        comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=after)
        out.append(arg.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace("")))
    return call.with_changes(whitespace_before_args=_break(inner, (), own[0][:-1], inner), args=out)


def with_comments(ctx: "FixContext", call: cst.Call, comments: Sequence[Sequence[str]]) -> cst.Call:
    """``call`` (written by a fix, at the start of a statement's line) with ``comments[k]`` after
    argument ``k``: laid out one argument per line when there are any."""
    if not any(comments) or not call.args:
        return call
    unit = ctx.module.default_indent
    return exploded(call, unit, "", comments)


# ------------------------------------------------------------ line length


def wrapped(ctx: "FixContext", old_code: str, new_top: cst.CSTNode) -> Tuple[cst.CSTNode, str]:
    """``new_top`` (a module statement a fix rewrote) with its new lines past the line length
    broken inside the brackets of the calls the fix wrote, and its code."""
    limit = ctx.line_length
    old_lines = set(old_code.splitlines())
    done: Set[int] = set()
    for _ in range(_MAX_PASSES):
        module = cst.Module(body=[new_top], default_indent=ctx.module.default_indent,  # type: ignore[list-item]
                            default_newline=ctx.module.default_newline)
        code = module.code
        lines = code.splitlines()
        long_lines = {i + 1 for i, line in enumerate(lines) if len(line) > limit and line not in old_lines}
        if not long_lines:
            return new_top, code
        found = _widest_new_brackets(module, long_lines, old_code, done)
        if found is None:
            return new_top, code
        done.add(id(found))
        new_top = _relaid(module, new_top, found, lines, limit)
    return new_top, ctx.module.code_for_node(new_top)


def _widest_new_brackets(module: cst.Module, long_lines: Set[int], old_code: str,
                         done: Set[int]) -> Optional["Bracketed"]:
    """The outermost call or display on a long line, on that one line, that the fix wrote or
    changed (its text is not in the old code), outside f-strings."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    best: Optional[Bracketed] = None
    best_key = None
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.FormattedString):
            continue
        if _breakable(node) and id(node) not in done:
            pos = positions.get(node)
            if pos is not None and (pos.start.line == pos.end.line and pos.start.line in long_lines
                                    or _hugged_too_long(node, pos, long_lines)) \
                    and module.code_for_node(node) not in old_code:
                key = (pos.start.line, pos.start.column)
                if best_key is None or key < best_key:
                    best, best_key = node, key
                continue  # the brackets inside it are broken after it, if still needed
        stack.extend(iter_children(node))
    return best


def _hugged_too_long(node: cst.CSTNode, pos, long_lines: Set[int]) -> bool:
    """A call laid out as ``f(\n    a, b\n)`` (its arguments on the one line between its brackets' lines,
    a later fix having added one there) whose arguments' line is too long: laid out again."""
    return isinstance(node, cst.Call) and len(node.args) > 1 and pos.end.line == pos.start.line + 2 \
        and pos.start.line + 1 in long_lines


def _relaid(module: cst.Module, top: cst.CSTNode, node: "Bracketed", lines: List[str], limit: int) -> cst.CSTNode:
    """``top`` with ``node`` (a call or a display) broken: its arguments or elements together on
    one line if they fit, else one a line."""
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    pos = positions[node]
    line = lines[pos.start.line - 1]
    line_indent = line[: len(line) - len(line.lstrip())]
    block_indent = _block_indent(module, node, positions, lines)
    outer = line_indent[len(block_indent):] if line_indent.startswith(block_indent) else ""
    inner = outer + module.default_indent
    if isinstance(node, cst.Call):
        flat = node.with_changes(whitespace_before_args=cst.SimpleWhitespace(""), args=[
            arg.with_changes(whitespace_after_arg=cst.SimpleWhitespace("")) for arg in node.args])
        inside = module.code_for_node(flat)
        inside = inside[len(module.code_for_node(node.func)) + 1:]
    else:
        inside = module.code_for_node(node)[1:]
    # (the text after the closing bracket -- a comma, more brackets -- follows it on the last line)
    fits = len(line_indent) + len(module.default_indent) + len(inside) - 1 <= limit
    if isinstance(node, cst.Call):
        new = hugged(node, inner, outer) if fits else exploded(node, inner, outer)
    else:
        new = _display_laid_out(node, inner, outer, one_per_line=not fits)
    return _replace(top, node, new)


#: the displays whose brackets a line may be broken in (a tuple only inside its own parentheses)
Display = Union[cst.List, cst.Set, cst.Tuple]
Bracketed = Union[cst.Call, cst.List, cst.Set, cst.Tuple]


def _breakable(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call):
        return bool(node.args)
    if isinstance(node, (cst.List, cst.Set)):
        return bool(node.elements)
    return isinstance(node, cst.Tuple) and bool(node.elements) and bool(node.lpar)


def _display_laid_out(node: Display, inner: str, outer: str, one_per_line: bool) -> Display:
    """``[\n    a, b\n]``, or with ``one_per_line`` each element on a line of its own and a
    trailing comma (a one-element tuple keeps the comma it needs either way)."""
    elements = list(node.elements)
    last = elements[-1]
    if one_per_line:
        elements = [el.with_changes(comma=cst.Comma(whitespace_before=cst.SimpleWhitespace(""),
                                                    whitespace_after=_break(outer if k + 1 == len(elements) else inner)))
                    for k, el in enumerate(elements)]
        close: cst.BaseParenthesizableWhitespace = cst.SimpleWhitespace("")
    else:
        if isinstance(last.comma, cst.Comma):
            elements[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=cst.SimpleWhitespace("")))
        close = _break(outer)
    if isinstance(node, cst.List):
        return node.with_changes(elements=elements, lbracket=cst.LeftSquareBracket(whitespace_after=_break(inner)),
                                 rbracket=cst.RightSquareBracket(whitespace_before=close))
    if isinstance(node, cst.Set):
        return node.with_changes(elements=elements, lbrace=cst.LeftCurlyBrace(whitespace_after=_break(inner)),
                                 rbrace=cst.RightCurlyBrace(whitespace_before=close))
    lpar, rpar = list(node.lpar), list(node.rpar)
    lpar[-1] = lpar[-1].with_changes(whitespace_after=_break(inner))  # the innermost pair: the tuple's own
    rpar[0] = rpar[0].with_changes(whitespace_before=close)
    return node.with_changes(elements=elements, lpar=lpar, rpar=rpar)


def _block_indent(module: cst.Module, call: cst.Call, positions, lines: List[str]) -> str:
    """The indentation of the statement holding ``call`` (what ``indent=True`` line breaks repeat)."""
    parents: Dict[int, cst.CSTNode] = {}
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in iter_children(node):
            parents[id(child)] = node
            stack.append(child)
    node: Optional[cst.CSTNode] = call
    while node is not None and not isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement,
                                                      cst.Decorator)):
        node = parents.get(id(node))
    if node is None:
        return ""
    line = lines[positions[node].start.line - 1]
    return line[: len(line) - len(line.lstrip())]


def _replace(top: cst.CSTNode, old: cst.CSTNode, new: cst.CSTNode) -> cst.CSTNode:
    class _Swap(cst.CSTTransformer):
        def on_leave(self, original_node, updated_node):  # type: ignore[override]
            return new if original_node is old else updated_node

    return cst.ensure_type(top.visit(_Swap()), cst.CSTNode)
