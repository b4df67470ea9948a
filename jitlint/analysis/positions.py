"""Line and column ranges of chosen nodes, found in one light pass over the module.

LibCST's ``PositionProvider`` records a range for every node of the module and
splits every token on line breaks to keep a line and column as it goes: on a
module where every function has a finding it costs more than the parse.  The
engine only needs the ranges of the nodes it reports (and of the links of their
reason chains), so :func:`node_ranges` generates the code once, counting
characters, and keeps the offsets of the wanted nodes only; offsets become lines
and columns by a binary search over the line starts of the generated code.

The ranges are LibCST's *syntactic* ranges (a statement's leading blank lines and
comments excluded), the same that ``PositionProvider`` gives.
"""
from __future__ import annotations

import bisect
import re
from contextlib import contextmanager, nullcontext
from typing import Collection, ContextManager, Dict, Iterator, List, NamedTuple, Optional, Tuple

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

from jitlint.analysis.cancel import checkpoint

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_NOTHING = nullcontext()
#: what _OffsetState.after_codegen is outside the wanted nodes: a built-in taking one argument
_IGNORE = id
_TOP, _WANTED = 1, 2


class _OffsetState(CodegenState):
    """Code generation that counts characters and notes where the wanted nodes start and end.

    Inside a wanted node every node is noted: LibCST takes the start or the end of a few nodes
    (a decorated definition, a parenthesized expression, a block) from a descendant's range,
    which must then be known too.  Where each module statement starts is noted as well."""

    __slots__ = ("offset", "wanted", "inside", "starts", "spans", "popped", "marks", "top_offsets", "whole",
                 "after_codegen")

    def __init__(self, module: cst.Module, wanted: Collection[int]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.offset = 0
        self.wanted = wanted
        self.inside = 0  # how many wanted nodes the node being generated is in
        self.starts: Dict[int, List[int]] = {}
        self.spans: Dict[int, Tuple[int, int]] = {}
        self.popped = ""
        #: by node id: _TOP for a module statement, _WANTED for a wanted node (one lookup a node)
        self.marks: Dict[int, int] = {key: _WANTED for key in wanted}
        for stmt in module.body:
            self.marks[id(stmt)] = self.marks.get(id(stmt), 0) | _TOP
        self.top_offsets: List[int] = []
        #: where the whole code of each wanted node starts and ends (its own whitespace included)
        self.whole: Dict[int, Tuple[int, int]] = {}
        # LibCST calls ``after_codegen`` after every node; outside the wanted nodes there is nothing
        # to note then, and the call goes to a built-in that ignores the node (no Python frame for
        # most of the module's nodes): before_codegen sets the real hook (_after_wanted) when a
        # wanted node starts, which sets the built-in back when the last one ends
        self.after_codegen = _IGNORE

    def add_indent_tokens(self) -> None:
        checkpoint()  # once a line of code: generating a large module's code takes a while
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self.offset += len(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.offset += len(value)

    def pop_trailing_newline(self) -> None:
        # the module's last line break is dropped from the code but, as in LibCST's position
        # provider, not from the count: the module (and its last Newline) end after it
        if self.tokens:
            self.popped = self.tokens.pop()

    def before_codegen(self, node: cst.CSTNode) -> None:
        key = id(node)
        mark = self.marks.get(key)
        if mark is not None:
            if mark & _TOP:
                self.top_offsets.append(self.offset)  # before its leading blank and comment lines
            if mark & _WANTED:
                if not self.inside:
                    self.after_codegen = self._after_wanted  # (see __init__)
                self.inside += 1
            elif not self.inside:
                return
        elif not self.inside or not _statement_level(type(node)):
            return
        self.starts.setdefault(key, []).append(self.offset)

    def _after_wanted(self, node: cst.CSTNode) -> None:
        """``after_codegen`` inside a wanted node: its range, and the ranges of the nodes in it."""
        key = id(node)
        wanted = key in self.wanted
        if not (wanted or (self.inside and _statement_level(type(node)))):
            return
        if wanted:
            self.inside -= 1
            if not self.inside:
                self.after_codegen = _IGNORE
        start = self.starts[key].pop()
        if wanted:
            self.whole[key] = (start, self.offset)
        self.spans.setdefault(key, (start, self.offset))  # a syntactic range already noted wins

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> ContextManager[None]:
        if not self.inside:  # the node (when wanted) is counted in already, by before_codegen
            return _NOTHING  # (most nodes: no generator made for them)
        if id(node) not in self.wanted and not _statement_level(type(node)):
            return _NOTHING  # (an expression in a wanted node: no other node's range is taken from it)
        return self._record(node, start_node, end_node)

    @contextmanager
    def _record(self, node: cst.CSTNode, start_node: Optional[cst.CSTNode],
                end_node: Optional[cst.CSTNode]) -> Iterator[None]:
        key = id(node)
        start = self.offset
        try:
            yield
        finally:
            end = self.offset
            if start_node is not None:
                start = self._span_of(start_node)[0]
            if end_node is not None:
                end = self._span_of(end_node)[1]
            self.spans[key] = (start, end)

    def _span_of(self, node: cst.CSTNode) -> Tuple[int, int]:
        # the hoisted child was generated just before: its own range (whitespace included when it
        # has no syntactic one), recorded because the child is wanted too (see node_ranges)
        return self.spans[id(node)]


#: the classes of the nodes LibCST takes another node's range from (``start_node``/``end_node`` of
#: ``record_syntactic_position`` in libcst/_nodes/statement.py): a block's statements, a compound
#: statement's last block or clause, an import's last name or closing parenthesis
_RANGE_SOURCES = (cst.BaseStatement, cst.BaseSmallStatement, cst.BaseSuite, cst.Else, cst.Finally, cst.ExceptHandler,
                  cst.ExceptStarHandler, cst.MatchCase, cst.ImportAlias, cst.ImportStar, cst.RightParen)
#: node class -> whether LibCST may take another node's range from it (see _statement_level)
_STATEMENT_LEVEL: Dict[type, bool] = {}


def _statement_level(kind: type) -> bool:
    """Whether a node of class ``kind`` may give another node its start or end (``_RANGE_SOURCES``):
    inside a wanted node only these need their ranges noted besides the wanted ones, never an
    expression's parts."""
    found = _STATEMENT_LEVEL.get(kind)
    if found is None:
        found = _STATEMENT_LEVEL[kind] = issubclass(kind, _RANGE_SOURCES)
    return found


class Layout(NamedTuple):
    """What one pass of code generation tells: the module's code, the ranges of the nodes asked
    for, and where each module statement starts in the code (its blank and comment lines included)."""

    code: str
    ranges: Dict[cst.CSTNode, CodeRange]
    statement_offsets: List[int]
    #: where the code of each node asked for lies in ``code``, by the node's id (see :meth:`text_of`)
    whole: Dict[int, Tuple[int, int]] = {}

    def text_of(self, node: cst.CSTNode) -> Optional[str]:
        """The code this pass generated for ``node`` (one of the nodes asked for; None for another, or
        for one whose code depends on its place): what ``Module.code_for_node`` gives, but for the
        indentation of the lines after its first, which a node generated alone does not get from the
        blocks around it."""
        span = self.whole.get(id(node))
        if span is None or not _generated_alike(type(node)):
            return None
        return self.code[span[0]:span[1]]


#: node class -> whether its code is the same wherever it is generated (see _generated_alike)
_ALIKE: Dict[type, bool] = {}


def _generated_alike(kind: type) -> bool:
    """Whether a node of class ``kind`` generates the same code alone as in its tree: its generator
    takes nothing from its parent.  Some do (an ``if`` written ``elif`` in an ``else`` branch, an
    annotation's ``:`` or ``->``, a comma or semicolon their parent asks for), through arguments
    of ``_codegen_impl`` besides the state."""
    alike = _ALIKE.get(kind)
    if alike is None:
        import inspect

        parameters = inspect.signature(kind._codegen_impl).parameters  # type: ignore[attr-defined]
        alike = _ALIKE[kind] = list(parameters) == ["self", "state"]
    return alike


def node_ranges(module: cst.Module, nodes: Collection[cst.CSTNode]) -> Tuple[str, Dict[cst.CSTNode, CodeRange]]:
    """The module's generated code, and the syntactic range of each of ``nodes`` that is in it."""
    layout = module_layout(module, nodes)
    return layout.code, layout.ranges


def module_layout(module: cst.Module, nodes: Collection[cst.CSTNode]) -> Layout:
    """:func:`node_ranges`, and the offsets of the module statements (a fix's edits start there)."""
    state = _OffsetState(module, {id(node) for node in nodes})
    module._codegen(state)
    code = "".join(state.tokens)
    line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(code + state.popped)]

    def position(offset: int) -> CodePosition:
        line = bisect.bisect_right(line_starts, offset) - 1
        return CodePosition(line + 1, offset - line_starts[line])

    out: Dict[cst.CSTNode, CodeRange] = {}
    for node in nodes:
        span = state.spans.get(id(node))
        if span is not None:
            out[node] = CodeRange(position(span[0]), position(span[1]))
    return Layout(code, out, state.top_offsets, state.whole)
