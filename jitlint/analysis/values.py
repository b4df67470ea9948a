"""Abstract values: is an expression a tracer, a concrete Python value, or unknown -- and why."""
from __future__ import annotations

import enum
import dataclasses
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import libcst as cst


class _NoConstant:
    """The marker for "no known Python constant" (``None`` is a constant)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_CONSTANT"


NO_CONSTANT: Any = _NoConstant()


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
    #: a sequence of unknown length (a display with a starred part, ``(*rows, n, shape)``): its
    #: first and last elements, in order, as far as they are known.  A starred part shifts the
    #: positions after it, so they are counted from the end
    head: Tuple["Value", ...] = ()
    tail: Tuple["Value", ...] = ()
    #: what iterating over it yields, when known
    element: Optional["Value"] = None
    #: a function jitlint can see (FunctionInfo), with what it closes over
    func: Any = None
    closure: Any = None
    #: a bound method's receiver, or the bound arguments of functools.partial
    bound: Optional[Tuple[Tuple[Any, "Value"], ...]] = None
    #: a JAX array reference (``jax.new_ref``): ``ref[...] = v`` writes into it, under a trace too
    ref: bool = False
    #: a concrete jax array (module constant): JAX operations on it are traced
    jax_array: bool = False
    #: a known JAX array (made by jnp / lax, or annotated as one): item assignment is an error
    is_array: bool = False
    #: a tracer by evidence of use, not a pytree: used as a number (arithmetic, an ordering comparison,
    #: an array method, a Python index) or annotated with a scalar type.  A TRACED value that is
    #: neither this nor ``is_array`` is a pytree of unknown structure (a dict, tuple, ``None``,
    #: dataclass): its truth, ``is None``, ``len`` and keys are static structure tests
    leaf: bool = False
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
    #: the Python constant a STATIC value is known to be (a literal, a default left alone)
    const: Any = NO_CONSTANT
    #: known not to be None: a parameter annotated with a type that excludes None
    not_none: bool = False
    #: an object constructed inside the traced code (``game = Game(state)``): writing to its
    #: attributes changes nothing outside the trace
    fresh: bool = False
    #: attributes that are static on this value: the static fields of the class it is annotated as
    static_attrs: frozenset = frozenset()
    #: that class (analysis.fields.Definition): reading a field gives what the field's annotation names,
    #: and indexing a dict (``mapping``) gives an instance of it
    pytree_class: Any = None
    #: an instance of a flax nnx graph node (``nnx.Module``): its arrays and Variables are traced,
    #: its other attributes are static structure (see ``jax_api.GRAPH_NODE_CLASSES``)
    graph_node: bool = False
    #: None or a traced array (an array field annotated ``X | None``): ``is None`` tells which
    optional: bool = False
    #: ``func`` as a transform made it, to be traced where it is called (``grad_fn = jax.grad(f)``):
    #: the transform's call, its qualified name and its argument values
    made_by: Any = None
    #: iterating it yields at least one tracer: the leaves of a pytree that holds one
    yields_tracer: bool = False
    #: a dict: the (string) keys whose values are Python values, whatever the other values are
    #: (``{"w": w, "n": 3}``; the keywords that ``static_argnames`` names and ``**kwargs`` collects)
    static_keys: frozenset = frozenset()
    #: the kind of its dtype, where it is known (NumPy's letters: "b" bool, "i" signed and "u"
    #: unsigned integer, "f" floating, "c" complex): of an array (``jax.nn.one_hot`` gives floats,
    #: ``x.astype(jnp.int32)`` integers), or of a dtype (``x.dtype``)
    dtype_kind: Optional[str] = None
    #: a flax nnx ``Variable`` (a ``Param``, a ``BatchStat``...): a pytree whose one leaf is its value;
    #: its other attributes (``sharding_names``, metadata given as keywords) are static
    variable: bool = False
    #: a field of an object whose class is defined outside the checked code (``model.nv`` of ``model:
    #: mjx.Model``): the library decides whether it is a leaf or static metadata
    foreign: bool = False
    #: a MAYBE value that is a tracer or else this Python constant: a defaulted parameter of a jitted
    #: function that no visible call is seen to pass or to leave out (the caller's argument is traced,
    #: the default is this constant)
    alternative: Any = NO_CONSTANT
    #: a record (a dataclass or NamedTuple whose construction only stores its arguments) built in the analysed
    #: code: the values its fields were given, by name -- reading one gives that value
    fields: Optional[Tuple[Tuple[str, "Value"], ...]] = None

    @property
    def traced(self) -> bool:
        return self.kind is Kind.TRACED

    @property
    def static(self) -> bool:
        return self.kind is Kind.STATIC

    @property
    def traced_array(self) -> bool:
        """A tracer by evidence (not a pytree that may hold tracers, nor a Python container)."""
        return self.kind is Kind.TRACED and (self.is_array or self.leaf) and not self.container \
            and self.items is None

    @property
    def known(self) -> bool:
        """Whether the Python constant is known (see ``const``)."""
        return self.const is not NO_CONSTANT

    @property
    def has_ends(self) -> bool:
        return bool(self.head or self.tail)

    def at(self, index: int, length: Optional[int] = None) -> Optional["Value"]:
        """The element at ``index`` (negative: from the end), where its position is known.

        ``length`` is the length the sequence must have (unpacking into that many names): a
        position is then known from either end.
        """
        if self.items is not None:
            if length is not None and length != len(self.items):
                return None  # unpacking fails: Python raises
            return self.items[index] if -len(self.items) <= index < len(self.items) else None
        if 0 <= index < len(self.head):
            return self.head[index]
        if -len(self.tail) <= index < 0:
            return self.tail[index]
        if length is not None:  # the same position, counted from the other end
            return self.at(index - length if index >= 0 else index + length)
        return None


#: the fields of a Value, for :func:`replace`
_VALUE_FIELDS = frozenset(f.name for f in dataclasses.fields(Value))


def replace(obj: Any, **changes: Any) -> Any:
    """``dataclasses.replace``, quicker for a :class:`Value` (the analysis makes one for most values it
    derives): a Value has no ``__post_init__`` and no field outside ``__init__``, so copying its fields
    and setting the changed ones gives what ``Value(**fields)`` would."""
    if type(obj) is not Value or not changes.keys() <= _VALUE_FIELDS:
        return dataclasses.replace(obj, **changes)  # (and its TypeError for a name that is no field)
    new = object.__new__(Value)
    fields = new.__dict__
    fields.update(obj.__dict__)
    fields.update(changes)
    return new


#: every field of a Value with its default, in order (all have plain defaults: no factories)
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Value)}
_ORDER = tuple(_DEFAULTS)


def _init(self: Value, *args: Any, **kwargs: Any) -> None:
    """``Value.__init__``, quicker than the frozen dataclass's (one ``object.__setattr__`` per field, for
    the value of nearly every expression the analysis derives): the defaults, then the given fields,
    written into the instance's dictionary at once.  A Value has no ``__post_init__``."""
    if len(args) > len(_ORDER) or not kwargs.keys() <= _VALUE_FIELDS:
        raise TypeError(f"Value() got unexpected arguments: {args!r} {sorted(set(kwargs) - _VALUE_FIELDS)}")
    fields = self.__dict__
    fields.update(_DEFAULTS)
    if args:
        fields.update(zip(_ORDER, args))
    if kwargs:
        fields.update(kwargs)


Value.__init__ = _init  # type: ignore[assignment, method-assign]


def constant(value: Any) -> Value:
    """A static value known to be the Python constant ``value``."""
    return Value(const=value)


STATIC = Value()
MAYBE = Value(Kind.MAYBE)
#: a set: its elements are hashable, and a tracer is not (``{tracer}`` raises TypeError), so the
#: set and what iterating it gives are Python values
HASHED = Value(container=True, element=STATIC)


def traced(reason: Reason, **kw: Any) -> Value:
    return Value(Kind.TRACED, reason, **kw)


def join(a: Optional[Value], b: Optional[Value]) -> Value:
    """The value on either path: traced if traced on some path."""
    out = _join(a, b)
    if out.dtype_kind is not None and a is not None and b is not None and a.dtype_kind != b.dtype_kind:
        out = replace(out, dtype_kind=None)  # (known only where every path agrees)
    if out.not_none and not (a is not None and b is not None and a.not_none and b.not_none):
        out = replace(out, not_none=False)
    if not out.optional and out.traced_array and any(v is not None and v.optional for v in (a, b)):
        out = replace(out, optional=True)
    if out.fields is not None and not (a is not None and b is not None and a.fields is b.fields):
        out = replace(out, fields=None)  # (known only where every path built the same record)
    if out.yields_tracer and not (a is not None and b is not None and a.yields_tracer and b.yields_tracer):
        out = replace(out, yields_tracer=False)
    if out.foreign and not (a is not None and b is not None and a.foreign and b.foreign):
        out = replace(out, foreign=False)
    if out.alternative is not NO_CONSTANT and not all(
            v is not None and (v.alternative is out.alternative or v.known and v.const is out.alternative)
            for v in (a, b)):
        out = replace(out, alternative=NO_CONSTANT)  # (a tracer or that constant on every path, or unknown)
    if out.is_bool and a is not None and b is not None and not (a.is_bool and b.is_bool) \
            and a.kind is b.kind is Kind.TRACED:
        # (a mask on one path, an integer array on another -- `jnp.where(is_facet, rows, i)` joined with
        # `is_facet` as the items of a tuple: a boolean array only where every path makes one)
        out = replace(out, is_bool=False)
    if out.static_keys:  # static on every path (a path where the name is unbound does not count)
        keys = out.static_keys
        for v in (a, b):
            if v is not None:
                keys = keys & v.static_keys
        if keys != out.static_keys:
            out = replace(out, static_keys=keys)
    return out


def _join(a: Optional[Value], b: Optional[Value]) -> Value:
    if a is None:
        return b if b is not None else STATIC
    if b is None or a is b:
        return a
    if a.known or b.known:
        if a.known and b.known and type(a.const) is type(b.const) and a.const == b.const:
            return a
        a = replace(a, const=NO_CONSTANT) if a.known else a
        b = replace(b, const=NO_CONSTANT) if b.known else b
    if b.kind > a.kind:
        a, b = b, a
    if a.kind == b.kind and a.kind is Kind.STATIC:
        # keep what both agree on
        if a.func is not None and a.func is b.func:
            return a
        fmt = a.formats_tracer or b.formats_tracer
        if fmt is not a.formats_tracer or a.items is not None or a.func is not None or a.has_ends:
            return Value(formats_tracer=fmt, jax_array=a.jax_array and b.jax_array)
        return a
    # a sequence whose positions are known on both paths keeps them, whatever each path's kind:
    # `return (x, 3)` and `return (None, 3)` give a 3 at position 1 either way
    if a.items is not None and b.items is not None and len(a.items) == len(b.items):
        return replace(a, items=tuple(join(x, y) for x, y in zip(a.items, b.items)))
    shaped = a if a.has_ends else b if b.has_ends else None
    if shaped is not None:
        ends_a, ends_b = _ends(a, shaped), _ends(b, shaped)
        if ends_a is not None and ends_b is not None:
            return replace(a, items=None, head=tuple(join(x, y) for x, y in zip(ends_a[0], ends_b[0])),
                           tail=tuple(join(x, y) for x, y in zip(ends_a[1], ends_b[1])),
                           element=join(a.element, b.element) if a.element is not None and b.element is not None
                           else None)
    if a.items is not None or a.func is not None or a.has_ends:
        return Value(a.kind, a.reason, element=a.element, is_array=a.is_array and b.is_array,
                     leaf=a.leaf and b.leaf)
    if b.kind is Kind.MAYBE and (a.is_array or a.leaf) and not a.container:
        # an array on one path, anything on another (what a function this module cannot see
        # returned: a list of arrays, a tuple): traced, not known to be one array
        return replace(a, is_array=False, leaf=False)
    if b.kind is Kind.TRACED and ((a.is_array and not b.is_array) or (a.leaf and not b.leaf)):
        # traced on both paths, an array only on one; a tracer on both (an array on one path, a
        # pytree's leaf on the other: `jnp.concatenate(parts)` or `arr.flatten()`) is still one
        tracer_on_both = (a.is_array or a.leaf) and (b.is_array or b.leaf)
        return replace(a, is_array=a.is_array and b.is_array, leaf=(a.leaf and b.leaf) or tracer_on_both)
    return a


def _ends(value: Value, shape: Value) -> Optional[Tuple[Tuple[Value, ...], Tuple[Value, ...]]]:
    """``value``'s first and last elements, as many as ``shape`` knows of (a sequence of unknown
    length, ``(*rows, n, tag)``); from its items when its length is known and long enough."""
    heads, tails = len(shape.head), len(shape.tail)
    if value.has_ends and value.items is None:
        return (value.head, value.tail) if (len(value.head), len(value.tail)) == (heads, tails) else None
    if value.items is not None and len(value.items) >= heads + tails:
        return value.items[:heads], value.items[len(value.items) - tails:]
    return None


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
        if va.kind != vb.kind or va.func is not vb.func or va.traced_array != vb.traced_array:
            return False
        if va.known != vb.known or (va.known and va.const != vb.const):
            return False
        if (va.items is None) != (vb.items is None):
            return False
        if va.items is not None and tuple(x.kind for x in va.items) != tuple(x.kind for x in vb.items):
            return False
        if tuple(x.kind for x in va.head + va.tail) != tuple(x.kind for x in vb.head + vb.tail) \
                or len(va.head) != len(vb.head):
            return False
    return True
