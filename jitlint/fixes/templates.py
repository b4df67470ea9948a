"""Code templates with expression holes, parsed once per template.

A builder writes new code as a template: ``"{jnp}.where({c}, {a}, {b})"`` with nodes for the
holes.  LibCST's ``parse_template_expression`` parses the template at every call, deep-copies
every hole, and then walks the whole result, holes included, to check that no hole was left
unfilled: for a three-hole expression with holes of twenty nodes, 8 ms, of which the parse is
0.3 ms.  Here a template is parsed once (per parser configuration), each fill copies only the
template's own small tree, and the holes are put in along the paths that lead to them.

A hole node is used as it is, not copied, unless the same node already filled a hole of this
filler (one node object in two places of a tree would confuse the later passes that find nodes
by identity, such as line wrapping).  Holes that are not expressions (a statement, an argument,
a parameter) go through LibCST's own functions, unchanged.
"""
from __future__ import annotations

import copy
import dataclasses
import enum
from typing import Callable, Dict, List, Mapping, Optional, Set, Tuple, Union

import libcst as cst
from libcst.helpers import parse_template_expression, parse_template_statement

from jitlint.analysis.syntax import iter_children

Replacement = Union[cst.CSTNode, cst.FlattenSentinel, cst.RemovalSentinel,
                    Callable[[cst.CSTNode], cst.CSTNode]]

_PREFIX = "__jitlint_hole_"
#: parsed templates: (kind, template with holes named, parser config) -> tree
_PARSED: Dict[Tuple[str, str, Tuple[str, ...], cst.PartialParserConfig], cst.CSTNode] = {}
_MAX_PARSED = 4096


class TemplateFiller:
    """Fills templates for one fix context (one module's fixes)."""

    def __init__(self, config: cst.PartialParserConfig) -> None:
        self.config = config
        self._used: Set[int] = set()
        self._keep: List[cst.CSTNode] = []  # (the used holes stay alive, so their ids stay theirs)

    def expression(self, template: str, holes: Mapping[str, cst.CSTNode]) -> cst.BaseExpression:
        if not _all_expressions(holes):
            return parse_template_expression(template, config=self.config, **holes)
        return cst.ensure_type(self._fill("expression", template, holes), cst.BaseExpression)

    def statement(self, template: str, holes: Mapping[str, cst.CSTNode]) -> cst.BaseStatement:
        if not _all_expressions(holes):
            return cst.ensure_type(parse_template_statement(template, config=self.config, **holes),
                                   cst.BaseStatement)
        return cst.ensure_type(self._fill("statement", template, holes), cst.BaseStatement)

    def _fill(self, kind: str, template: str, holes: Mapping[str, cst.CSTNode]) -> cst.CSTNode:
        tree = _copied(_parsed(kind, template, tuple(sorted(holes)), self.config))
        changes: Dict[cst.CSTNode, cst.CSTNode] = {}
        parents: Dict[cst.CSTNode, cst.CSTNode] = {}
        stack: List[cst.CSTNode] = [tree]
        while stack:
            node = stack.pop()
            if type(node) is cst.Name and node.value.startswith(_PREFIX):
                changes[node] = self._hole(holes[node.value[len(_PREFIX):-2]])
                continue
            for child in iter_children(node):
                parents[child] = node
                stack.append(child)
        on_path: Set[cst.CSTNode] = set()
        for node in changes:
            current: Optional[cst.CSTNode] = node
            while current is not None and current not in on_path:
                on_path.add(current)
                current = parents.get(current)
        return cst.ensure_type(tree.visit(PathReplacer(changes, on_path)), cst.CSTNode)

    def _hole(self, node: cst.CSTNode) -> cst.CSTNode:
        if id(node) in self._used:
            return node.deep_clone()
        self._used.add(id(node))
        self._keep.append(node)
        return node


#: per node class: its fields, or None when it has one LibCST's ``deep_clone`` leaves to its default
_CLONED_FIELDS: Dict[type, Optional[Tuple[str, ...]]] = {}
#: per type: whether it is a node class (an ``isinstance`` against the abstract CSTNode is slow)
_IS_NODE: Dict[type, bool] = {}


def _copied(node: cst.CSTNode) -> cst.CSTNode:
    """What ``node.deep_clone()`` gives -- the same tree, every node a new object, sequences as
    tuples -- without constructing and validating each node again: the template's nodes were
    validated when it was parsed, and a copy holds the same values."""
    kind = type(node)
    names = _CLONED_FIELDS.get(kind, ())
    if names == ():
        names = _CLONED_FIELDS[kind] = _fields_to_clone(kind)
    if names is None:
        return node.deep_clone()
    new = object.__new__(kind)
    for name in names:
        value = getattr(node, name)
        value_kind = type(value)
        if value_kind is list or value_kind is tuple:
            value = tuple(_copied_value(v) for v in value)
        else:
            value = _copied_value(value)
        object.__setattr__(new, name, value)
    return new


def _copied_value(value: object) -> object:
    kind = type(value)
    is_node = _IS_NODE.get(kind)
    if is_node is None:
        is_node = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    if is_node:
        return _copied(value)  # type: ignore[arg-type]
    if kind is str or kind is int or value is None or isinstance(value, enum.Enum):
        return value  # what deepcopy gives back for these: the value itself
    return copy.deepcopy(value)


def _fields_to_clone(kind: type) -> Optional[Tuple[str, ...]]:
    names = tuple(f.name for f in dataclasses.fields(kind))
    return None if any(name.startswith("_") for name in names) else names


def _all_expressions(holes: Mapping[str, cst.CSTNode]) -> bool:
    return all(isinstance(v, cst.BaseExpression) for v in holes.values())


def _parsed(kind: str, template: str, names: Tuple[str, ...], config: cst.PartialParserConfig) -> cst.CSTNode:
    key = (kind, template, names, config)
    tree = _PARSED.get(key)
    if tree is None:
        if _PREFIX in template:
            raise ValueError("a template may not spell a hole's internal name")
        source = template
        for name in names:
            if "{" + name + "}" not in template:
                raise ValueError(f"the template has no hole {{{name}}}")
            source = source.replace("{" + name + "}", f"{_PREFIX}{name}__")
        if kind == "expression":
            tree = cst.parse_expression(source, config)
        else:
            tree = cst.parse_statement(source, config)
        if len(_PARSED) >= _MAX_PARSED:
            _PARSED.clear()
        _PARSED[key] = tree
    return tree


class PathReplacer(cst.CSTTransformer):
    """Replaces the nodes of ``changes``, visiting only ``on_path`` (the replaced nodes and their
    ancestors): a subtree holding no replaced node comes back as it is."""

    def __init__(self, changes: Mapping[cst.CSTNode, Replacement], on_path: Set[cst.CSTNode]) -> None:
        super().__init__()
        self.changes = changes
        self.on_path = on_path

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node in self.on_path

    def on_leave(self, original_node, updated_node):  # type: ignore[override]
        new = self.changes.get(original_node, updated_node)
        # a function of the node as its replaced descendants left it (a change around other changes)
        return new(updated_node) if callable(new) else new
