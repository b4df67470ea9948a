"""Small, fast helpers over LibCST nodes.

LibCST's ``children`` property re-runs a visitor per node, and full metadata
resolution costs several times the parse; jitlint walks the tree itself,
looking only at the fields that can hold code.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Type, Union

import libcst as cst

_SKIP_FIELD_WORDS = ("whitespace", "lpar", "rpar", "comma", "semicolon", "header", "footer",
                     "leading_lines", "lines_after", "equal", "colon", "star", "operator",
                     "dot", "lbracket", "rbracket", "lbrace", "rbrace", "newline", "quote",
                     "prefix", "string", "trailing", "asynchronous", "ind", "arrow", "walrus")
_KEEP_FIELDS = {"posonly_ind": False}
_FIELDS: Dict[Type[cst.CSTNode], Tuple[str, ...]] = {}


def _code_fields(cls: Type[cst.CSTNode]) -> Tuple[str, ...]:
    fields = _FIELDS.get(cls)
    if fields is None:
        keep = []
        for field in dataclasses.fields(cls):
            name = field.name
            if name in ("star_arg", "star_kwarg", "operator") and cls is not cst.Parameters:
                if name != "operator":
                    keep.append(name)
                continue
            if any(word in name for word in _SKIP_FIELD_WORDS) and name not in ("star_arg", "star_kwarg"):
                continue
            keep.append(name)
        fields = _FIELDS[cls] = tuple(keep)
    return fields


def _all_node_types() -> frozenset:
    out = set()
    for name in dir(cst):
        value = getattr(cst, name)
        if isinstance(value, type) and issubclass(value, cst.CSTNode):
            out.add(value)
    return frozenset(out)


#: concrete node classes: ``type(x) in NODE_TYPES`` is much cheaper than an ABC isinstance
NODE_TYPES = _all_node_types()
_SEQUENCES = (list, tuple)


def iter_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The child nodes of ``node`` that can hold code (no whitespace, no tokens)."""
    fields = _FIELDS.get(type(node))
    if fields is None:
        fields = _code_fields(type(node))
    for name in fields:
        value = getattr(node, name)
        kind = type(value)
        if kind in NODE_TYPES:
            yield value
        elif kind is list or kind is tuple:
            for item in value:
                if type(item) in NODE_TYPES:
                    yield item


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it that can hold code, in source order (a parent before its children)."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        here = stack.pop()
        yield here
        stack.extend(reversed(list(iter_children(here))))


def any_between(parents: Dict[int, cst.CSTNode], node: cst.CSTNode, outer: Optional[cst.CSTNode],
                kinds: Tuple[type, ...]) -> bool:
    """Whether a node of one of ``kinds`` stands between ``node`` and its ancestor ``outer`` (neither
    counted; the root, when ``outer`` is None), by the ``parents`` map (node id -> parent)."""
    parent = parents.get(id(node))
    while parent is not None and parent is not outer:
        if isinstance(parent, kinds):
            return True
        parent = parents.get(id(parent))
    return False


def calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    """The calls the expression ``node`` makes when it is evaluated (not those in the code of its lambdas)."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.Call):
            yield item
        if not isinstance(item, cst.Lambda):
            stack.extend(iter_children(item))


def any_node(roots: Sequence[cst.CSTNode], matches: Callable[[cst.CSTNode], bool]) -> bool:
    """Whether a node in ``roots`` (each with everything under it) ``matches``."""
    stack: List[cst.CSTNode] = list(roots)
    while stack:
        node = stack.pop()
        if matches(node):
            return True
        stack.extend(iter_children(node))
    return False


def none_test(test: cst.BaseExpression) -> Optional[Tuple[str, bool]]:
    """``x is None`` -> ("x", True); ``x is not None`` -> ("x", False); None for anything else."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.left, cst.Name):
        target = test.comparisons[0]
        if isinstance(target.comparator, cst.Name) and target.comparator.value == "None" \
                and isinstance(target.operator, (cst.Is, cst.IsNot)):
            return test.left.value, isinstance(target.operator, cst.Is)
    return None


def boolean_operands(test: cst.BaseExpression, and_only: bool = False) -> List[cst.BaseExpression]:
    """The operands of a chain of ``and`` / ``or`` (with ``and_only``, of ``and`` alone: ``a and b and c``),
    in order; ``[test]`` for anything else."""
    if isinstance(test, cst.BooleanOperation) and (not and_only or isinstance(test.operator, cst.And)):
        return boolean_operands(test.left, and_only) + boolean_operands(test.right, and_only)
    return [test]


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a chain of Names and Attributes, else None."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def string_value(node: cst.CSTNode) -> Optional[str]:
    """The value of a plain (non f-) string literal."""
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - odd prefixes
            return None
        return value if isinstance(value, str) else None
    if isinstance(node, cst.ConcatenatedString):
        left, right = string_value(node.left), string_value(node.right)
        if left is not None and right is not None:
            return left + right
    return None


def same_expression(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """Whether ``a`` and ``b`` are the same expression, however their strings are quoted and their
    parts spaced (``d["params"][k]`` and ``d['params'][k]`` inside an f-string)."""
    if a.deep_equals(b):
        return True
    key_a = _expression_key(a)
    return key_a is not None and key_a == _expression_key(b)


def _expression_key(node: cst.CSTNode) -> Optional[Tuple[object, ...]]:
    """Names, attributes, one-index subscripts and literals as nested tuples (None for anything else)."""
    if isinstance(node, cst.Name):
        return ("name", node.value)
    if isinstance(node, cst.Attribute):
        inner = _expression_key(node.value)
        return None if inner is None else ("attr", inner, node.attr.value)
    if isinstance(node, cst.Subscript):
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        inner, index = _expression_key(node.value), _expression_key(node.slice[0].slice.value)
        return None if inner is None or index is None else ("item", inner, index)
    text = string_value(node)
    if text is not None:
        return ("str", text)
    number = int_value(node)
    return None if number is None else ("int", number)


def int_value(node: cst.CSTNode) -> Optional[int]:
    if isinstance(node, cst.Integer):
        try:
            return int(node.value.replace("_", ""), 0)
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = int_value(node.expression)
        return None if inner is None else -inner
    return None


def literal_elements(node: cst.CSTNode) -> Optional[List[cst.BaseExpression]]:
    if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
        out = []
        for el in node.elements:
            if isinstance(el, (cst.StarredElement,)):
                return None
            out.append(el.value)
        return out
    return None


def unpacked_targets(target: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The single targets an assignment target stores into (a name, an attribute, a subscript), with
    tuples, lists and starred targets unpacked."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            yield from unpacked_targets(el.value)
    elif isinstance(target, cst.StarredElement):
        yield from unpacked_targets(target.value)
    else:
        yield target


def stored_values(roots: Sequence[cst.CSTNode], matches: Callable[[cst.CSTNode], bool]
                  ) -> Iterator[Optional[cst.BaseExpression]]:
    """What the code under ``roots`` stores in the targets ``matches`` accepts (a name, ``self.x``):
    the value of ``t = v`` and ``t: T = v``, and None for a store of another form (unpacked, augmented,
    a ``for`` or ``with`` target).  The functions, lambdas and classes it defines are not counted."""
    def unpacked_match(target: cst.CSTNode) -> bool:
        return any(matches(t) for t in unpacked_targets(target))

    stack: List[cst.CSTNode] = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if matches(t.target):
                    yield node.value
                elif unpacked_match(t.target):
                    yield None
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and matches(node.target):
            yield node.value if isinstance(node, cst.AnnAssign) else None
        elif isinstance(node, (cst.For, cst.CompFor)) and unpacked_match(node.target):
            yield None
        elif isinstance(node, cst.WithItem) and node.asname is not None and unpacked_match(node.asname.name):
            yield None
        stack.extend(iter_children(node))


def assigned_names(target: cst.CSTNode) -> Iterator[cst.Name]:
    """Names bound by an assignment target (tuples and starred unpacked)."""
    return (t for t in unpacked_targets(target) if isinstance(t, cst.Name))


def returned_values(body: cst.CSTNode) -> List[Optional[cst.BaseExpression]]:
    """The values of the return statements of a function body (nested functions excluded)."""
    out: List[Optional[cst.BaseExpression]] = []
    stack: List[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Return):
            out.append(node.value)
        stack.extend(iter_children(node))
    return out


def result_discarded(call: cst.Call, parent_of: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                     returns_none: bool) -> bool:
    """The value of ``call`` is thrown away: the call is a statement of its own, the left side of
    ``or`` / ``and`` when it returns None (``LOG.append(x) or y``), or the element of a comprehension
    whose result is not kept (``[seen.add(k) for k in keys]``)."""
    parent = parent_of(call)
    if isinstance(parent, cst.Expr):
        return True
    if isinstance(parent, cst.BooleanOperation) and parent.left is call:
        return returns_none
    if isinstance(parent, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and parent.elt is call:
        return isinstance(parent_of(parent), cst.Expr)
    return False


def changes_in_place(call: cst.Call, parent_of: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
                     mutating: frozenset, returns_none: frozenset) -> bool:
    """``x.append(v)`` / ``x.update(d)``: a method of ``mutating`` -- unless it is one of Python's
    in-place container methods that return None (``returns_none``) and its value is used: then the
    object is something else (optax's ``updates, state = OPT.update(...)``)."""
    func = call.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in mutating:
        return False
    return func.attr.value not in returns_none or result_discarded(call, parent_of, True)


def is_docstring(stmt: cst.CSTNode) -> bool:
    """A statement that is only a string literal (a docstring where it comes first)."""
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def flat_targets(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The single targets of an assignment target, tuples and lists unpacked, stars removed
    (``a, (b.x, *c[0])`` -> ``a``, ``b.x``, ``c[0]``)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from flat_targets(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from flat_targets(target.value)
    else:
        yield target


def chain_root(node: cst.BaseExpression) -> Optional[cst.Name]:
    """The name an attribute and item chain starts from (``self`` of ``self.opt.lr[0]``); None where it
    starts from anything else (a call, a literal)."""
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def params_of(params: cst.Parameters) -> List[Tuple[cst.Param, str]]:
    """All parameters with their kind: posonly, positional, vararg, kwonly, varkw."""
    out: List[Tuple[cst.Param, str]] = [(p, "posonly") for p in params.posonly_params]
    out += [(p, "positional") for p in params.params]
    if isinstance(params.star_arg, cst.Param):
        out.append((params.star_arg, "vararg"))
    out += [(p, "kwonly") for p in params.kwonly_params]
    if params.star_kwarg is not None:
        out.append((params.star_kwarg, "varkw"))
    return out


def bind_arguments(params: Sequence[Tuple[cst.Param, str]],
                   args: Sequence[cst.Arg]) -> List[Tuple[cst.Arg, Optional[cst.Param]]]:
    """Each argument with the parameter it binds, as Python binds them: positional arguments in
    order to the positional parameters of ``params`` (``params_of``), keywords by name (not a
    positional-only parameter).  None for an argument that goes to ``*args`` / ``**kwargs`` or to no
    parameter, for an unpacking (``*xs``, ``**kw``), and for a positional argument after ``*xs``
    (which position it takes is unknown)."""
    positional = [p for p, kind in params if kind in ("posonly", "positional")]
    by_name = {p.name.value: p for p, kind in params if kind in ("positional", "kwonly")}
    out: List[Tuple[cst.Arg, Optional[cst.Param]]] = []
    position: Optional[int] = 0
    for arg in args:
        if arg.star:
            if arg.star == "*":
                position = None
            out.append((arg, None))
        elif arg.keyword is not None:
            out.append((arg, by_name.get(arg.keyword.value)))
        elif position is not None:
            out.append((arg, positional[position] if position < len(positional) else None))
            position += 1
        else:
            out.append((arg, None))
    return out


def short_code(module: cst.Module, node: cst.CSTNode, limit: int = 40) -> str:
    """Source text of a node on one line, shortened for messages."""
    try:
        text = module.code_for_node(node)
    except Exception:  # noqa: BLE001 - never fail a message
        return "..."
    return short_text(text, limit)


def short_text(text: str, limit: int = 40) -> str:
    """A node's code on one line (every run of whitespace one space), shortened for messages: what
    :func:`short_code` makes of the node's code, from code generated already."""
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def call_argument(call: cst.Call, position: Optional[int], keyword: Optional[str]) -> Optional[cst.Arg]:
    """The argument passed at ``position`` or as ``keyword``, if any."""
    index = 0
    for arg in call.args:
        if arg.star:
            continue
        if arg.keyword is None:
            if position is not None and index == position:
                return arg
            index += 1
        elif keyword is not None and arg.keyword.value == keyword:
            return arg
    return None


def has_keyword(call: cst.Call, keyword: str) -> bool:
    return any(a.keyword is not None and a.keyword.value == keyword for a in call.args) or any(
        a.star == "**" for a in call.args)


#: methods that only a mapping has (a JAX array has none of them)
_MAPPING_METHODS = frozenset({"items", "keys", "values", "get", "setdefault", "update"})
#: str methods: a loop variable that calls one iterates over keys, not array rows
_STR_METHODS = frozenset({"startswith", "endswith", "split", "rsplit", "lower", "upper", "strip",
                          "replace", "partition", "rpartition", "isdigit", "format"})
_KEY_ORDER = frozenset({"sorted", "list", "tuple", "reversed", "set", "iter"})


def _is_string(node: cst.CSTNode) -> bool:
    return type(node) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _iterated_name(node: cst.CSTNode) -> Optional[str]:
    """``d`` for ``d``, ``sorted(d)``, ``list(d)``...: the name whose elements a loop binds."""
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in _KEY_ORDER \
            and len(node.args) == 1 and not node.args[0].star:
        node = node.args[0].value
    return node.value if type(node) is cst.Name else None


def mapping_names(body: cst.CSTNode) -> frozenset:
    """Names that the code under ``body`` uses as a dict: ``d["key"]``, ``d.items()``,
    ``"key" in d``, ``**d``, or ``for k in d`` whose ``k`` indexes ``d`` or is used as a string;
    and a name indexed by (or tested for) the keys of such a dict.

    A pytree argument of unknown structure is either an array or a container; such use says
    which, and iterating over a dict gives its keys, which are static under tracing."""
    found = set()
    loops: Dict[str, str] = {}  # loop variable -> the name it iterates over
    subscripts: List[Tuple[str, str]] = []  # (indexed name, index name)
    string_uses: List[str] = []
    stack = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Subscript and type(node.value) is cst.Name and len(node.slice) == 1 \
                and type(node.slice[0].slice) is cst.Index:
            index = node.slice[0].slice.value
            if _is_string(index):
                found.add(node.value.value)
            elif type(index) is cst.Name:
                subscripts.append((node.value.value, index.value))
        elif kind is cst.Attribute and type(node.value) is cst.Name:
            if node.attr.value in _MAPPING_METHODS:
                found.add(node.value.value)
            elif node.attr.value in _STR_METHODS:
                string_uses.append(node.value.value)
        elif kind is cst.Comparison and (_is_string(node.left) or type(node.left) is cst.Name):
            for comp in node.comparisons:
                if type(comp.operator) in (cst.In, cst.NotIn) and type(comp.comparator) is cst.Name:
                    if _is_string(node.left):
                        found.add(comp.comparator.value)
                    else:
                        subscripts.append((comp.comparator.value, node.left.value))
        elif (kind is cst.Arg or kind is cst.StarredDictElement) and node.star == "**" \
                if kind is cst.Arg else kind is cst.StarredDictElement:
            if type(node.value) is cst.Name:
                found.add(node.value.value)
        elif kind is cst.For or kind is cst.CompFor:
            over = _iterated_name(node.iter)
            if over is not None and type(node.target) is cst.Name:
                loops[node.target.value] = over
        stack.extend(iter_children(node))
    for indexed, key in subscripts:
        if loops.get(key) == indexed:
            found.add(indexed)
    for name in string_uses:
        if name in loops:
            found.add(loops[name])
    # a name indexed by the keys of a dict, or tested for holding them, is a dict too
    # (``for k in old: ... k in new and old[k] != new[k]``)
    grown = True
    while grown:
        grown = False
        for indexed, key in subscripts:
            if indexed not in found and loops.get(key) in found:
                found.add(indexed)
                grown = True
    return frozenset(found)


def handler_catches(handler: cst.ExceptHandler, classes: frozenset, broad: bool = True,
                    named: Optional[Callable[[str], Sequence[cst.BaseExpression]]] = None) -> bool:
    """Whether an ``except`` clause catches an exception of one of ``classes`` (by the last
    part of the name), in a tuple too; with ``broad``, a bare ``except`` and ``except Exception``
    count as well.  ``named(name)``: the classes a module-level name holds (``except _ERRORS:``)."""
    if handler.type is None:
        return broad
    pending: List[cst.BaseExpression] = [handler.type]
    seen: Set[str] = set()
    while pending:
        t = pending.pop()
        if isinstance(t, (cst.Tuple, cst.List)):
            pending.extend(e.value for e in t.elements)
            continue
        if named is not None and isinstance(t, cst.Name) and t.value not in seen:
            seen.add(t.value)
            held = named(t.value)
            if held:
                pending.extend(held)
                continue
        last = (dotted_name(t) or "").rsplit(".", 1)[-1]
        if last in classes or (broad and last in ("Exception", "BaseException")):
            return True
    return False


_ORDERING = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)


def numeric_uses(fn: cst.CSTNode) -> frozenset:
    """Names that a function body uses as numbers -- an operand of arithmetic, of unary ``-`` / ``~``
    or of an ordering comparison -- and never rebinds to something computed without them (so the
    use is of the value the name has on entry).  Nested functions are their own bodies."""
    body = fn.body
    used = set()
    rebound = set()
    stack: List[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and node is not fn:
            continue
        operands: Sequence[cst.CSTNode] = ()
        if isinstance(node, cst.BinaryOperation):
            literal_seq = any(isinstance(side, (cst.Tuple, cst.List, cst.SimpleString, cst.ConcatenatedString,
                                                cst.FormattedString)) for side in (node.left, node.right))
            if not literal_seq:
                operands = (node.left, node.right)
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.BitInvert)):
            operands = (node.expression,)
        elif isinstance(node, cst.Comparison) and all(isinstance(c.operator, _ORDERING) for c in node.comparisons):
            operands = [node.left] + [c.comparator for c in node.comparisons]
        used.update(o.value for o in operands if isinstance(o, cst.Name))
        if isinstance(node, cst.Assign):
            mentioned = {n.value for n in name_references(node.value)}
            for target in node.targets:
                rebound.update(n.value for n in assigned_names(target.target) if n.value not in mentioned)
        elif isinstance(node, (cst.For, cst.CompFor, cst.With, cst.AsName, cst.NamedExpr)):
            target = getattr(node, "target", None) or getattr(node, "name", None)
            if target is not None and not isinstance(node, cst.With):
                rebound.update(n.value for n in assigned_names(target))
        stack.extend(iter_children(node))
    return frozenset(used - rebound)


def key_parts(node: cst.Subscript) -> Optional[List[cst.BaseExpression]]:
    """The items of the key ``node`` looks up in a mapping: ``d[k]`` -> ``[k]``; ``d[a, b]`` and ``d[(a, b)]``
    (the same tuple key) -> ``[a, b]``.  None where an index is a slice or an item is starred."""
    parts = [element.slice.value for element in node.slice if isinstance(element.slice, cst.Index)]
    if len(parts) != len(node.slice):
        return None
    if len(parts) == 1 and isinstance(parts[0], cst.Tuple):
        if any(isinstance(el, cst.StarredElement) for el in parts[0].elements):
            return None
        parts = [el.value for el in parts[0].elements]
    return parts


def name_references(node: cst.CSTNode, name: Optional[str] = None) -> Iterator[cst.Name]:
    """The ``Name`` nodes in ``node`` that name a variable, read or bound -- not the attribute of
    ``x.attr``, the keyword of ``f(k=v)`` nor the module path of an import (only the local name it
    binds) -- optionally only those spelled ``name``."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.Name):
            if name is None or item.value == name:
                yield item
            continue
        if isinstance(item, (cst.Attribute, cst.Arg)):
            stack.append(item.value)
            continue
        if isinstance(item, (cst.Import, cst.ImportFrom)):
            if not isinstance(item.names, cst.ImportStar):
                for alias in item.names:
                    local = alias.asname.name if alias.asname is not None else alias.name
                    while isinstance(local, cst.Attribute):  # `import a.b` binds `a`
                        local = local.value
                    stack.append(local)
            continue
        stack.extend(iter_children(item))


def own_small_statements(node: cst.CSTNode) -> Iterator[cst.BaseSmallStatement]:
    """The small statements of a function's own body (of ``node`` itself, for another node), not those of
    the functions, lambdas and classes it defines."""
    stack: List[cst.CSTNode] = [node.body] if isinstance(node, cst.FunctionDef) else [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.BaseSmallStatement):
            yield current
            continue
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(iter_children(current))


def error_statements(node: cst.CSTNode) -> Iterator[Union[cst.Raise, cst.Assert]]:
    """The ``raise`` and ``assert`` statements in ``node`` (nested functions included)."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (cst.Raise, cst.Assert)):
            yield item
        elif not isinstance(item, cst.BaseExpression):
            stack.extend(iter_children(item))


_SCALAR_BUILTINS = frozenset({"bool", "int", "float", "complex", "str", "repr", "print", "abs", "round", "max",
                              "min", "format"})


def container_uses(fn: cst.CSTNode, array_attributes: frozenset, array_call=None) -> frozenset:
    """Names that a function body uses as containers or objects, or hands on: called, indexed, sliced,
    iterated, unpacked, tested with ``is`` / ``in``, ``*`` / ``**``, an attribute read or a method
    called that an array does not have (a field, ``.items()``), or passed to a function other than
    a scalar builtin or an array function (``array_call(call)``; ``len``, ``isinstance`` and the
    tree utilities count): what that function does with it decides.  Nested functions count (a
    closure reading a field of the parameter uses it as an object too)."""
    out = set()
    stack: List[cst.CSTNode] = [fn.body]
    # the node classes tested are concrete (nothing derives from them): ``type(node) is`` answers what
    # ``isinstance`` would, without a call to the ABC machinery for every node that is none of them
    call, subscript, attribute, name, starred, comparison, assign = (
        cst.Call, cst.Subscript, cst.Attribute, cst.Name, cst.StarredElement, cst.Comparison, cst.Assign)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is call:
            scalar = type(node.func) is name and node.func.value in _SCALAR_BUILTINS
            if not scalar and not (array_call is not None and array_call(node)):
                out.update(a.value.value for a in node.args if type(a.value) is name)
                # handed on inside a display too: a lax loop's carry `(i, state, x)`, a dict of operands
                out.update(_names_displayed([a.value for a in node.args]))
            if type(node.func) is name:
                out.add(node.func.value)  # called: a function or a module, no array
        elif kind is subscript and type(node.value) is name:
            out.add(node.value.value)
        elif kind is attribute and type(node.value) is name \
                and node.attr.value not in array_attributes:
            out.add(node.value.value)
        elif (kind is cst.For or kind is cst.CompFor) and type(node.iter) is name:
            out.add(node.iter.value)
        elif kind is starred and type(node.value) is name:
            out.add(node.value.value)
        elif kind is comparison:
            for comp in node.comparisons:
                operator = type(comp.operator)
                if operator is cst.Is or operator is cst.IsNot:
                    out.update(x.value for x in (node.left, comp.comparator) if type(x) is name)
                if (operator is cst.In or operator is cst.NotIn) and type(comp.comparator) is name:
                    out.add(comp.comparator.value)
        elif kind is assign and type(node.value) is name and any(
                type(t.target) is cst.Tuple or type(t.target) is cst.List for t in node.targets):
            out.add(node.value.value)
        stack.extend(iter_children(node))
    return frozenset(out)


def _names_displayed(values: Sequence[cst.BaseExpression]) -> Set[str]:
    """The names written as elements of the tuple, list, set and dict displays among ``values`` (nested
    displays followed)."""
    out: Set[str] = set()
    pending = [v for v in values if type(v) in (cst.Tuple, cst.List, cst.Set, cst.Dict)]
    while pending:
        display = pending.pop()
        for el in display.elements:
            value = getattr(el, "value", None)
            if type(value) is cst.Name:
                out.add(value.value)
            elif type(value) in (cst.Tuple, cst.List, cst.Set, cst.Dict):
                pending.append(value)
    return out


_JUMPS = (cst.Return, cst.Raise, cst.Continue, cst.Break)


def always_leaves(stmt: cst.CSTNode) -> bool:
    """Whether control never passes from ``stmt`` to the statement after it in its block: it is a
    ``return``, ``raise``, ``continue`` or ``break`` (or a line holding one), an ``if`` whose every
    arm, ``else`` included, leaves, or a ``try`` whose body (or ``else``) and every handler leave, or
    whose ``finally`` does. A loop is taken to finish (its ``break`` reaches what follows)."""
    kind = type(stmt)
    if kind in _JUMPS:
        return True
    if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
        return any(type(small) in _JUMPS for small in stmt.body)
    if kind is cst.If:
        orelse = stmt.orelse
        if orelse is None or not block_leaves(stmt.body):
            return False
        return block_leaves(orelse.body) if type(orelse) is cst.Else else always_leaves(orelse)
    if kind is cst.Try:
        if stmt.finalbody is not None and block_leaves(stmt.finalbody.body):
            return True
        body_leaves = block_leaves(stmt.body) or (stmt.orelse is not None and block_leaves(stmt.orelse.body))
        return body_leaves and all(block_leaves(handler.body) for handler in stmt.handlers)
    return False


def block_leaves(block: cst.BaseSuite) -> bool:
    """Whether a block never runs to its end (one of its statements always leaves)."""
    return any(always_leaves(stmt) for stmt in block.body)


def reachable_count(stmts: Sequence[cst.CSTNode]) -> int:
    """How many of a block's statements (or of a line's small statements) can run: those up to the
    first that always leaves. Python runs none after it, so nothing there is called, traced or
    reported."""
    for i, stmt in enumerate(stmts):
        if always_leaves(stmt):
            return i + 1
    return len(stmts)


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
    """The nodes from ``root`` down to ``target`` (both included), or None when it is not in it."""
    stack: List[Tuple[cst.CSTNode, int]] = [(root, 0)]
    path: List[cst.CSTNode] = []
    while stack:
        node, depth = stack.pop()
        del path[depth:]
        path.append(node)
        if node is target:
            return path
        stack.extend((child, depth + 1) for child in reversed(list(iter_children(node))))
    return None


def implies_not_none(test: cst.BaseExpression, name: str, outcome: bool) -> bool:
    """Whether ``test`` coming out ``outcome`` (True or False) proves that ``name`` is not None:
    ``name is not None`` or ``name`` (None is falsy) true, ``name is None`` false, through ``not``,
    a conjunct of a true ``and`` and a disjunct of a false ``or``."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, outcome = test.expression, not outcome
    if isinstance(test, cst.Name):
        return outcome and test.value == name
    if isinstance(test, cst.BooleanOperation):
        joins = isinstance(test.operator, cst.And) if outcome else isinstance(test.operator, cst.Or)
        return joins and (implies_not_none(test.left, name, outcome) or implies_not_none(test.right, name, outcome))
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        sides = (test.left, comp.comparator)
        if not any(isinstance(s, cst.Name) and s.value == name for s in sides) or \
                not any(isinstance(s, cst.Name) and s.value == "None" for s in sides):
            return False
        if isinstance(comp.operator, cst.IsNot):
            return outcome
        if isinstance(comp.operator, cst.Is):
            return not outcome
    return False


def guarded_not_none(path: Sequence[cst.CSTNode], name: str) -> bool:
    """Whether the last node of ``path`` (a path from a function's body down, :func:`path_to`) runs
    only where ``name`` is not None: in the body of an ``if`` or a conditional expression whose test
    proves it true, in their ``else`` where the test proves it false, or after an ``if`` in the same
    block that always leaves when ``name`` is None (``if x is None: return``).  The caller makes sure
    ``name`` is not bound again in between."""
    for parent, child in zip(path, path[1:]):
        if isinstance(parent, (cst.If, cst.IfExp)):
            if child is parent.body and implies_not_none(parent.test, name, True):
                return True
            if child is parent.orelse and implies_not_none(parent.test, name, False):
                return True
        body = getattr(parent, "body", None)
        if not isinstance(body, (list, tuple)):
            continue
        for before in body:
            if before is child:
                break
            if isinstance(before, cst.If) and before.orelse is None and block_leaves(before.body) \
                    and implies_not_none(before.test, name, False):
                return True
    return False


def ends_path(block: cst.BaseSuite) -> bool:
    """The block always leaves the function (its last statement returns or raises)."""
    stmts = block.body
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(small, (cst.Return, cst.Raise)) for small in last.body)
    if isinstance(block, cst.SimpleStatementSuite):
        return any(isinstance(small, (cst.Return, cst.Raise)) for small in block.body)
    return False


class _Substitute(cst.CSTTransformer):
    """Names replaced by expressions (variables only: not an attribute's name, not a keyword)."""

    def __init__(self, values: Dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.values = values

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False  # (only its value is a variable: done in leave_Attribute)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(value=updated.value.visit(self))

    def visit_Arg(self, node: cst.Arg) -> bool:
        return False  # (a keyword is not a variable)

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(value=updated.value.visit(self))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.values.get(original.value, updated)


def substitute_names(expr: cst.BaseExpression, values: Dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """``expr`` with each variable named in ``values`` replaced by its expression (a helper's parameters by
    the literals a call gives them, a comprehension's variable by the array it runs over).  Scopes are not
    looked at: for expressions without lambdas or comprehensions."""
    return cst.ensure_type(expr.visit(_Substitute(values)), cst.BaseExpression)
