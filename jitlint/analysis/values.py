"""Abstract values: is an expression a tracer, a concrete Python value, or unknown -- and why."""
from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Tuple

import libcst as cst


class Kind(enum.IntEnum):
    STATIC = 0
    MAYBE = 1
    TRACED = 2


@dataclass(frozen=True, eq=False)
class Reason:
    """One link of a "why is this traced" chain.

    ``text`` may contain ``{code}`` (the node's source, shortened) and
    ``{line}`` (its line); both are filled in only when a finding is shown.
    """

    node: Optional[cst.CSTNode]
    text: str
    parent: Optional["Reason"] = None
    #: the module ``node`` belongs to, when it is not the module being reported on
    module: Optional[cst.Module] = None
    path: Optional[str] = None

    def chain(self, limit: int = 8) -> List["Reason"]:
        out: List[Reason] = []
        seen = set()
        link: Optional[Reason] = self
        while link is not None and id(link) not in seen:
            seen.add(id(link))
            out.append(link)
            link = link.parent
        if len(out) > limit:
            out = out[: limit - 1] + [out[-1]]
        return out


@dataclass(frozen=True, eq=False)
class Value:
    kind: Kind = Kind.STATIC
    reason: Optional[Reason] = None
    #: elements of a tuple/list literal, in order (for unpacking)
    items: Optional[Tuple["Value", ...]] = None
    #: what iterating over it yields, when known
    element: Optional["Value"] = None
    #: a function jitlint can see (FunctionInfo), with what it closes over
    func: Any = None
    closure: Any = None
    #: a bound method's receiver, or the bound arguments of functools.partial
    bound: Optional[Tuple[Tuple[Any, "Value"], ...]] = None
    #: a concrete jax array (module constant): JAX operations on it are traced
    jax_array: bool = False
    #: a known JAX array (made by jnp / lax): item assignment is an error
    is_array: bool = False
    #: a string built from a traced value (f-string, %, format, str())
    formats_tracer: Optional[Reason] = None
    #: a Python container literal (list/dict/set) - item assignment is fine
    container: bool = False
    #: an instance of a class of this module (ClassInfo): its methods can be followed
    instance: Any = None
    #: a boolean array (comparison, isnan, logical_*): a mask when used as an index
    is_bool: bool = False
    #: a concrete NumPy array (module constant): indexing it with a tracer fails
    numpy_array: bool = False
    #: a dict: indexed by key, not by position
    mapping: bool = False

    @property
    def traced(self) -> bool:
        return self.kind is Kind.TRACED

    @property
    def static(self) -> bool:
        return self.kind is Kind.STATIC


STATIC = Value()
MAYBE = Value(Kind.MAYBE)


def traced(reason: Reason, **kw: Any) -> Value:
    return Value(Kind.TRACED, reason, **kw)


def join(a: Optional[Value], b: Optional[Value]) -> Value:
    """The value on either path: traced if traced on some path."""
    if a is None:
        return b if b is not None else STATIC
    if b is None or a is b:
        return a
    if b.kind > a.kind:
        a, b = b, a
    if a.kind == b.kind and a.kind is Kind.STATIC:
        # keep what both agree on
        if a.func is not None and a.func is b.func:
            return a
        fmt = a.formats_tracer or b.formats_tracer
        if fmt is not a.formats_tracer or a.items is not None or a.func is not None:
            return Value(formats_tracer=fmt, jax_array=a.jax_array and b.jax_array)
        return a
    if a.kind == b.kind and a.items is not None and b.items is not None and len(a.items) == len(b.items):
        return replace(a, items=tuple(join(x, y) for x, y in zip(a.items, b.items)))
    if a.items is not None or a.func is not None:
        return Value(a.kind, a.reason, element=a.element, is_array=a.is_array and b.is_array)
    if a.is_array and not b.is_array:
        return replace(a, is_array=False)
    return a


def join_all(values) -> Value:
    out: Optional[Value] = None
    for v in values:
        out = join(out, v)
    return out if out is not None else STATIC


def strongest(values) -> Value:
    """The most traced of several operands (its reason is kept)."""
    best = STATIC
    for v in values:
        if v.kind > best.kind:
            best = v
            if best.kind is Kind.TRACED:
                break
    return best


def same_kinds(a: Dict[str, Value], b: Dict[str, Value]) -> bool:
    if a.keys() != b.keys():
        return False
    for key, va in a.items():
        vb = b[key]
        if va.kind != vb.kind or va.func is not vb.func:
            return False
        if (va.items is None) != (vb.items is None):
            return False
        if va.items is not None and tuple(x.kind for x in va.items) != tuple(x.kind for x in vb.items):
            return False
    return True
