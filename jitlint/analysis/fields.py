"""What a class's field annotations say about the values its instances hold.

A pytree dataclass names the type of each of its fields (``plasma: plasma_lib.Params``,
``A_override: jax.Array | None = None``).  For a value whose class is known, reading a field gives
a value of the type that field's annotation names: an instance of another class of the checked code
(whose own static fields are static, and whose fields are followed the same way), a dict of such
instances, or an array.  Annotations are read in the module that defines the class, since its
imports are what its annotations' names mean.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Set, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.discovery import ModuleIndex
from jitlint.analysis.syntax import dotted_name, stored_values, string_value

#: generic types whose last parameter is what indexing an instance gives
_MAPPINGS = ("Mapping", "MutableMapping", "dict", "Dict", "FrozenDict")


@dataclass(frozen=True)
class Definition:
    """A module-level name of the checked code (a class, a type alias), with the module that defines it."""

    index: ModuleIndex
    path: Optional[str]
    name: str
    #: the other modules of the checked folder, where base classes imported from them are read
    project: object = field(default=None, compare=False, hash=False, repr=False)

    @property
    def static_attrs(self) -> frozenset:
        """The fields the class declares static, with those its base classes declare, in this
        module (see ``ModuleIndex.static_fields_by_class``) or imported from another one."""
        out = set(self.index.static_fields_by_class.get(self.name, ()))
        for base in self.imported_bases():
            out |= base.index.static_fields_by_class.get(base.name, ())
        return frozenset(out)

    def imported_bases(self) -> List["Definition"]:
        """The base classes, and theirs in turn, that modules of the checked code other than this
        one define (``class Windowed(FourierOperator)`` with ``FourierOperator`` imported)."""
        out: List[Definition] = []
        todo: List[Definition] = [self]
        seen: Set[Tuple[int, str]] = set()
        while todo and len(seen) < 32:
            here = todo.pop()
            if (id(here.index), here.name) in seen:
                continue
            seen.add((id(here.index), here.name))
            for name in here._local_classes():
                for found in here._bases_of(name):
                    if found.index is not here.index:
                        out.append(found)
                        todo.append(found)
        return out

    def _bases_of(self, name: str) -> List["Definition"]:
        """The base classes of the checked code that class ``name`` of this module names, in the order
        written: of this module, or of another one its imports name (with a project)."""
        out: List[Definition] = []
        for base in self.index.classes[name].bases:
            if not base:
                continue
            if base in self.index.classes:
                out.append(Definition(self.index, self.path, base, self.project))
                continue
            try:
                expr = cst.parse_expression(base)
            except Exception:  # noqa: BLE001 - not a name
                continue
            found = class_named(expr, self.index, self.path, self.project) if self.project else None
            if found is not None:
                out.append(found)
        return out

    def base_classes(self) -> List["Definition"]:
        """The base classes of the checked code (the class itself left out), nearest first, bases taken depth
        first in the order written, in this module or another one its imports name: where ``super()`` and
        ``self.<method>`` lead from the class's code."""
        out: List[Definition] = []
        todo: List[Definition] = [self]
        seen: Set[Tuple[int, str]] = set()
        while todo and len(seen) < 32:
            here = todo.pop(0)
            if (id(here.index), here.name) in seen or here.name not in here.index.classes:
                continue
            seen.add((id(here.index), here.name))
            if here is not self:
                out.append(here)
            todo[:0] = here._bases_of(here.name)  # (depth first: a base's own bases before the next base)
        return out

    def external_bases(self) -> Set[str]:
        """The qualified names of the base classes, of the class and of its base classes in the checked
        code, that are defined outside it (``flax.nnx.Module`` for ``class Block(nnx.Module)``)."""
        out: Set[str] = set()
        for definition in (self, *self.imported_bases()):
            for name in definition._local_classes():
                for base in definition.index.classes[name].bases:
                    if not base or base in definition.index.classes:
                        continue
                    try:
                        expr = cst.parse_expression(base)
                    except Exception:  # noqa: BLE001 - not a name
                        continue
                    qualified = definition.index.qualify(expr)
                    if qualified is not None:
                        out.add(qualified)
        return out

    def attribute_stores(self, attr: str) -> List[Tuple[Optional[cst.BaseExpression], object, "Definition"]]:
        """What the methods of the class, and of its base classes in the same module, store in
        ``self.<attr>``: (the value, the method, the class that defines it).  The value is None where
        the store is not a plain one (``self.a, self.b = pair``, ``self.n += 1``, a ``for`` target)."""
        out: List[Tuple[Optional[cst.BaseExpression], object, Definition]] = []
        for name in self._local_classes():
            for method in self.index.classes[name].methods.values():
                params = method.params
                receiver = params[0][0].name.value if params else None
                if receiver is None or method.is_static_method:
                    continue
                out.extend((value, method, self) for value in stores_to(method.node, receiver, attr))
        return out

    def _local_classes(self) -> Iterator[str]:
        """The class and its base classes defined in the same module, nearest first."""
        todo: List[str] = [self.name]
        seen: Set[str] = set()
        while todo:
            name = todo.pop()
            cls = self.index.classes.get(name)
            if cls is None or name in seen:
                continue
            seen.add(name)
            yield name
            todo.extend(cls.bases)

    def _body(self) -> Iterator[cst.BaseStatement]:
        """The statements of the class body, then of its base classes defined in the same module
        (whose annotations read in this module's imports)."""
        for name in self._local_classes():
            yield from self.index.classes[name].node.body.body

    def field_annotation(self, attr: str) -> Optional[cst.BaseExpression]:
        """The annotation of field ``attr`` in the class body, or in a base class of the same module."""
        for stmt in self._body():
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                            and small.target.value == attr:
                        return parsed(small.annotation.annotation)
        return None

    def method_returns(self, method: str) -> Optional[cst.BaseExpression]:
        """The return annotation of method ``method`` in the class body, or in a base class of the
        same module (read in this module)."""
        for stmt in self._body():
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value == method:
                return stmt.returns.annotation if stmt.returns is not None else None
        return None


def stores_to(fn: cst.CSTNode, receiver: str, attr: str) -> Iterator[Optional[cst.BaseExpression]]:
    """The values ``fn``'s body stores in ``<receiver>.<attr>`` (see ``stored_values``)."""
    def is_target(t: cst.CSTNode) -> bool:
        return isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == receiver \
            and t.attr.value == attr

    return stored_values([fn.body] if isinstance(fn, cst.FunctionDef) else [], is_target)


def data_fields(index: ModuleIndex) -> Set[str]:
    """The fields that a class of the module declares (annotated in its body) and not as static."""
    out: Set[str] = set()
    for name, annotated in index.annotated_fields().items():
        out |= annotated - set(index.static_fields_by_class.get(name, ()))
    return out


def parsed(annotation: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The expression an annotation stands for (a string annotation parsed), or None."""
    if isinstance(annotation, cst.SimpleString):
        try:
            return cst.parse_expression(string_value(annotation) or "")
        except Exception:  # noqa: BLE001 - not an expression
            return None
    return annotation


def _head(node: cst.BaseExpression) -> str:
    """The last component of a (subscripted) type's name: ``Optional`` for ``typing.Optional[X]``."""
    if isinstance(node, cst.Subscript):
        node = node.value
    return (dotted_name(node) or "").rpartition(".")[2]


def alternatives(annotation: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The types a union annotation allows besides None (``A | B | None``, ``Optional[A]``,
    ``Union[A, B]``); ``[X]`` for any other ``X``."""
    if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
        parts = [annotation.left, annotation.right]
    elif isinstance(annotation, cst.Subscript) and _head(annotation) in ("Optional", "Union"):
        parts = [el.slice.value for el in annotation.slice if isinstance(el.slice, cst.Index)]
    else:
        return [annotation]
    return [alt for part in parts if not (isinstance(part, cst.Name) and part.value == "None")
            for alt in alternatives(part)]


def without_none(annotation: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The one type an annotation allows besides None (``X`` for ``Optional[X]``, ``X | None``,
    and for ``X`` itself); None when it allows several."""
    kept = alternatives(annotation)
    return kept[0] if len(kept) == 1 else None


def allows_none(annotation: cst.BaseExpression) -> bool:
    return without_none(annotation) is not annotation


def is_mapping_type(annotation: cst.BaseExpression, index: ModuleIndex, path: Optional[str], project,
                    depth: int = 0) -> bool:
    """The annotation names a dict type (``Dict[str, jax.Array]``, ``dict``, ``Mapping[...]``, or a
    module-level alias of one, ``States = Dict[str, jax.Array]``), None not allowed."""
    annotation = parsed(annotation)
    if annotation is None or without_none(annotation) is not annotation:
        return False
    if _head(annotation) in _MAPPINGS:
        return True
    alias = alias_of(annotation, index, path, project) if depth < 3 else None
    if alias is None:
        return False
    value, where = alias
    return is_mapping_type(value, where.index, where.path, project, depth + 1)


def mapping_value(annotation: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """What indexing a dict annotated ``Mapping[str, X]`` / ``dict[str, X]`` gives: ``X``."""
    if not isinstance(annotation, cst.Subscript) or _head(annotation) not in _MAPPINGS \
            or len(annotation.slice) != 2 or not isinstance(annotation.slice[1].slice, cst.Index):
        return None
    return annotation.slice[1].slice.value


def class_named(annotation: Optional[cst.BaseExpression], index: ModuleIndex, path: Optional[str],
                project) -> Optional[Definition]:
    """The class of the checked code an annotation names, read in the module ``index`` (``project``:
    the other modules of the checked folder, followed through imports); None for any other type."""
    annotation = parsed(annotation) if annotation is not None else None
    annotation = without_none(annotation) if annotation is not None else None
    parametrized = isinstance(annotation, cst.Subscript)
    if parametrized:
        annotation = annotation.value  # a generic class of the checked code, parametrized (`Medium[FourierSeries]`)
    if not isinstance(annotation, (cst.Name, cst.Attribute)):
        return None
    found = defined(annotation, index, path, project)
    if found is None or found.name not in found.index.classes:
        return None
    if parametrized and not (found.index.annotated_fields()[found.name] or found.index.classes[found.name].methods):
        # `class Batched(Generic[T]): ...` read as `Batched[CHWArray]`: declaring no field and no method, it
        # only marks a type; its instances carry nothing
        return None
    return found


def alias_of(annotation: cst.BaseExpression, index: ModuleIndex, path: Optional[str],
             project) -> Optional[Tuple[cst.BaseExpression, Definition]]:
    """The type a module-level alias stands for (``FloatVector: TypeAlias = Float[Array, "n"]``),
    with where it is defined (whose imports its names resolve through)."""
    if not isinstance(annotation, (cst.Name, cst.Attribute)):
        return None
    found = defined(annotation, index, path, project)
    info = found.index.globals.get(found.name) if found is not None else None
    if info is None or info.assignments != 1 or not isinstance(info.node, (cst.Assign, cst.AnnAssign)) \
            or info.node.value is None:
        return None
    return info.node.value, found


def defined(name: cst.BaseExpression, index: ModuleIndex, path: Optional[str], project) -> Optional[Definition]:
    """Where a name (``C``, ``module.C``) used in the module ``index`` is defined in the checked code."""
    if isinstance(name, cst.Name) and name.value in index.globals and index.globals[name.value].kind != "import":
        return Definition(index, path, name.value, project)
    q = index.qualify(name)
    if q is None or project is None or q.startswith(jax_api.EXTERNAL_PACKAGES):
        return None
    return project.definition_of(path, q)
