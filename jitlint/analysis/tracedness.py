"""Which values are traced, and why: an abstract interpreter over traced code.

Starting from the entry points found by :mod:`discovery`, every traced function
body is run forward over abstract values (:mod:`values`): assignments, branches
(joined), loops (iterated to a fixed point), comprehensions, closures, and calls
into functions of the same module (memoised per argument signature).  The result
is a set of *facts* -- the joined value of every expression evaluated in traced
code, how each name read was resolved, and which bodies are traced -- that the
rules query.  Nothing here reports anything.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from jitlint.analysis import jax_api, startup
from jitlint.analysis.cancel import checkpoint
from jitlint.analysis.discovery import (ClassInfo, EntryPoint, FunctionInfo, ModuleIndex, applies_module,
                                        condition_key, init_fields, is_accessor, is_property, state_test, stores_state,
                                        top_small_statements)
from jitlint.analysis.fields import (Definition, alias_of, allows_none, alternatives, class_named, data_fields,
                                     defined, is_mapping_type, mapping_value, parsed, without_none)
from jitlint.analysis.scopes import BindingKind
from jitlint.analysis.syntax import (assigned_names, bind_arguments, boolean_operands, call_argument, dotted_name,
                                     ends_path,
                                     guarded_not_none, iter_children, is_docstring, literal_elements,
                                     handler_catches, implies_not_none, int_value, mapping_names, container_uses,
                                     name_references, none_test, numeric_uses, params_of, path_to, reachable_count,
                                     same_expression, string_value)
from jitlint.analysis.values import (
    HASHED,
    MAYBE,
    NO_CONSTANT,
    STATIC,
    Kind,
    Reason,
    Value,
    join,
    join_all,
    constant,
    replace,
    same_kinds,
    strongest,
    traced,
)

MAX_DEPTH = 12
ARRAY_ANNOTATIONS = ("Array", "ndarray", "ArrayLike", "Float", "Int", "Bool", "Num", "Shaped", "Real",
                     "Inexact", "Integer", "Complex", "UInt")
LOOP_ROUNDS = 4
_BUILTIN_CONSTANTS = {"True": True, "False": False, "None": None}
_NOTHING: frozenset = frozenset()


@dataclass(eq=False)
class BodyInfo:
    """A function body that JAX traces, with what traces it."""

    function: FunctionInfo
    #: traced as a trace boundary of its own (jit, lax body), not only as a helper
    boundary: bool = False
    allows_attribute_writes: bool = True
    #: traced only by abstract evaluation (eval_shape / make_jaxpr)
    abstract_only: bool = True
    #: traced in a context whose trace is kept and reused (jit, pmap, lax bodies), not only
    #: under a transform that traces again on every call (vmap): globals are frozen there
    cached: bool = False
    #: traced in a context that stages its operations out (jit, pmap, a lax body: a JAX operation on a
    #: constant is traced there), not only by a vmap alone (an operation on a constant runs eagerly)
    staged: bool = False
    #: a trace boundary of its own whose trace is kept and run again (jit, pmap, a lax body), not
    #: only one traced again at every call (vmap): what it reads from outside is read once per trace
    keeps_trace: bool = False
    #: traced in some context whose trace is kept beyond one call of the function that makes the
    #: wrapper: every context but a jitted function defined in its caller and only called there
    #: (``@jax.jit def column(j)`` inside ``precondition``), whose trace dies with that call
    kept_across_calls: bool = False
    labels: List[str] = field(default_factory=list)
    #: a method run, in some traced context, on an instance that exists outside the trace (not
    #: only on objects the traced code constructs): writes to its ``self`` are outer state
    outer_self: bool = False
    #: run, in some traced context, other than in the branch of an initialisation guard (see
    #: ``Facts.initialising``): when False, the body only ever runs while a global is still unset
    outside_initialisation: bool = False
    #: the first call from a traced body that ran this one as a helper, and the first made in a trace
    #: that is kept (see Facts.why_traced)
    called_from: Optional["CallSite"] = None
    called_from_kept: Optional["CallSite"] = None

    def note_call(self, site: "CallSite", kept: bool) -> None:
        if self.called_from is None:
            self.called_from = site
        if kept and self.called_from_kept is None:
            self.called_from_kept = site


@dataclass(frozen=True, eq=False)
class CallSite:
    """A call, in a traced body, of a helper: where it is (the module's facts and file) and who makes it."""

    call: cst.Call
    caller: FunctionInfo
    facts: "Facts"
    path: Optional[str]


@dataclass(eq=False)
class Closure:
    function: FunctionInfo
    env: Dict[str, Value]
    parent: Optional["Closure"]


class Facts:
    """What the analysis learnt; rules only read this."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.values: Dict[cst.CSTNode, Value] = {}
        self.read_scope: Dict[cst.Name, str] = {}
        #: whether an expression names a class of the checked code (set by the analysis)
        self.names_class: Callable[[cst.BaseExpression], bool] = lambda expr: False
        self.bodies: Dict[FunctionInfo, BodyInfo] = {}
        #: branches of an ``if`` whose static test rules them out in some traced context, and those
        #: run in some traced context: a branch only ever ruled out is not traced code
        self.dead_blocks: Set[cst.CSTNode] = set()
        self.live_blocks: Set[cst.CSTNode] = set()
        #: the branches of initialisation guards: ``if G is None:`` / ``if key not in G:`` on a module
        #: global ``G``, whose branch sets ``G`` (or ``G[key]``) on every path through it.  The branch
        #: runs on the first call only, eagerly as under a trace that is kept: what it reads and writes
        #: happens once either way
        self.initialising: Set[cst.CSTNode] = set()
        #: names and attributes read in traced code that name a function of another module of the
        #: project (``dust.ccm``, ``odd`` imported from ``.dust``): a function, not an array
        self.function_names: Set[cst.CSTNode] = set()
        #: arguments of calls in traced code that give a tracer to a parameter the called jit wrapper
        #: makes static (the argument, the parameter's name, the function, the value): JAX hashes a
        #: static argument, and hashing a tracer raises, so the call raises
        self.traced_static_arguments: List[Tuple[cst.Arg, str, FunctionInfo, Value]] = []
        #: jit wrappers that never trace their function (every call raises before the trace starts), with
        #: the parameter no argument can fill and the class its annotation names (Analyzer.rejected_argument)
        self.rejected_arguments: Dict[EntryPoint, Tuple[str, str]] = {}
        #: whether functions of this module that change a global are called, in the project, only
        #: while the program starts, before anything can trace (set by the analysis: startup.py)
        self.set_at_startup: Callable[[Set[FunctionInfo]], bool] = lambda writers: False
        #: the base classes of the checked code of a class of this module, in this module or another module of
        #: the project, nearest first: where ``super().<method>()`` leads (set by the analysis)
        self.base_classes: Callable[[str], List[ClassInfo]] = lambda cls: []

    def why_traced(self, fn: FunctionInfo, limit: int = 6) -> Optional[Reason]:
        """Why the body of ``fn`` runs in a trace, as a chain of calls up to what traces it: "`inner` is
        called from `middle` (line 11)", ..., "`step` is traced by `@jax.jit`".  For findings about a
        statement rather than a traced value (a side effect, a write to a global)."""
        hops: List[Tuple[Optional[CallSite], str]] = []
        body = self.bodies.get(fn)
        seen: Set[int] = set()
        while body is not None and id(body) not in seen:
            seen.add(id(body))
            label = body.function.label
            site = body.called_from_kept or body.called_from  # the kept trace first: what most rules are about
            if body.labels:
                traced_by = f"`{label}` is traced by {', '.join(body.labels)}"
                if site is None or len(hops) >= limit:
                    hops.append((None, traced_by))
                    break
                hops.append((site, f"{traced_by}, in `{site.caller.label}` (line {{line}})"))
            elif site is None or len(hops) >= limit:
                hops.append((None, f"`{label}` is called from traced code"))
                break
            else:
                hops.append((site, f"`{label}` is called from `{site.caller.label}` (line {{line}})"))
            body = site.facts.bodies.get(site.caller)
        reason: Optional[Reason] = None
        for site, text in reversed(hops):
            if site is None:
                reason = Reason(None, text, reason)
            else:  # the call is in the caller's module: named, so that its line is looked up there
                reason = Reason(site.call, text, reason, module=site.facts.index.module, path=site.path)
        return reason

    def is_dead(self, node: cst.CSTNode) -> bool:
        """A branch that no traced context runs (its ``if`` test is a known constant there)."""
        return node in self.dead_blocks and node not in self.live_blocks

    def value(self, node: Optional[cst.CSTNode]) -> Value:
        if node is None:
            return STATIC
        return self.values.get(node, STATIC)

    def record(self, node: cst.CSTNode, value: Value) -> None:
        old = self.values.get(node)
        if old is None or value.kind > old.kind or (value.formats_tracer and not old.formats_tracer):
            self.values[node] = value if old is None or value.kind >= old.kind else replace(
                old, formats_tracer=value.formats_tracer)


def _other_branch(a: cst.CSTNode, b: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> bool:
    """``a`` and ``b`` are in different branches of one ``if`` (its body and its ``else``): never both run."""
    arms: Dict[int, cst.CSTNode] = {}
    child, parent = a, parents.get(id(a))
    while parent is not None:
        if isinstance(parent, cst.If):
            arms[id(parent)] = child
        child, parent = parent, parents.get(id(parent))
    child, parent = b, parents.get(id(b))
    while parent is not None:
        if isinstance(parent, cst.If) and id(parent) in arms:
            return arms[id(parent)] is not child and child is not parent.test and arms[id(parent)] is not parent.test
        child, parent = parent, parents.get(id(parent))
    return False


def _looks_up_by_element(target: cst.BaseAssignTargetExpression, iterated: cst.BaseExpression,
                         body: Sequence[cst.CSTNode]) -> bool:
    """Whether ``body`` (a loop's block, or what a comprehension computes and tests) subscripts what
    the loop iterates with the loop's variable (``d[k]``)."""
    if not isinstance(target, cst.Name):
        return False
    name = target.value
    stack: List[cst.CSTNode] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
                and isinstance(node.slice[0].slice.value, cst.Name) and node.slice[0].slice.value.value == name \
                and same_expression(node.value, iterated):
            return True
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        stack.extend(iter_children(node))
    return False


def _computed_from(node: Union[cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp],
                   comp: cst.CompFor) -> List[cst.CSTNode]:
    """What a comprehension computes and tests once ``comp`` (one of its ``for`` clauses) has bound
    its target: its element (key and value), the tests of that clause and the later clauses."""
    out: List[cst.CSTNode] = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
    out.extend(cond.test for cond in comp.ifs)
    if comp.inner_for_in is not None:
        out.append(comp.inner_for_in)
    return out


class _Terminated(Exception):
    """The statement being run raises here, in this trace: the rest of its block does not run
    (``int()`` of a tracer inside a ``try`` whose handler catches what it raises)."""


#: builtins whose result is never None
_NEVER_NONE_BUILTINS = frozenset({"int", "float", "bool", "complex", "str", "repr", "format", "len", "tuple", "list",
                                  "dict", "set", "frozenset", "range", "round", "abs", "sum", "sorted", "divmod"})


def _asks_disable_jit(qualify, test: cst.BaseExpression) -> bool:
    """``jax.config.jax_disable_jit`` (jax 0.10.2 refuses ``jax.config.read("jax_disable_jit")``)."""
    return isinstance(test, cst.Attribute) and qualify(test) == "jax.config.jax_disable_jit"


#: a concrete JAX array (computed where nothing is staged out)
_CONCRETE_ARRAY = Value(jax_array=True, is_array=True)
#: a Python number that is never None (an element of an array's shape)
_SIZE = Value(not_none=True)
#: the expressions whose value may be known never None (see Analyzer._never_none_result)
_MAYBE_NEVER_NONE = frozenset({cst.BinaryOperation, cst.Comparison, cst.Call, cst.Subscript, cst.Attribute})


def _accepts(fn: "FunctionInfo", call: cst.Call) -> bool:
    """Python could bind ``call``'s arguments to ``fn``'s parameters (unpackings: perhaps)."""
    if any(arg.star for arg in call.args):
        return True
    kinds = {kind for _, kind in fn.params}
    pairs = bind_arguments(fn.params, call.args)
    for arg, param in pairs:  # an argument no parameter takes, nor *args / **kwargs
        if param is None and ("varkw" if arg.keyword is not None else "vararg") not in kinds:
            return False
    bound = {param.name.value for _, param in pairs if param is not None}
    return all(p.default is not None or p.name.value in bound
               for p, kind in fn.params if kind not in ("vararg", "varkw"))


def _shadowed_in(name: str, scope: Optional["FunctionInfo"]) -> bool:
    """``name`` is bound in ``scope`` or a function around it."""
    while scope is not None:
        if name in scope.local_names:
            return True
        scope = scope.parent
    return False


#: the standard library's callables that call a function they are given while they run -- on the elements
#: of what they iterate, or to order them (``map``, ``sorted(xs, key=f)``, ``functools.reduce``); the
#: others read it (``inspect.signature(f)``, ``functools.wraps(f)``, ``callable(f)``, ``id(f)``), keep it
#: for later (``atexit.register``, ``threading.Thread(target=f)``) or wrap it, and run none of its code
_STDLIB_CALLERS = frozenset({
    "map", "filter", "sorted", "min", "max", "iter", "functools.reduce", "itertools.accumulate",
    "itertools.starmap", "itertools.filterfalse", "itertools.takewhile", "itertools.dropwhile", "itertools.groupby",
    "heapq.nsmallest", "heapq.nlargest", "heapq.merge", "bisect.bisect", "bisect.bisect_left", "bisect.bisect_right",
    "bisect.insort", "bisect.insort_left", "bisect.insort_right", "operator.call"})


class Frame:
    def __init__(self, fn: FunctionInfo, env: Dict[str, Value], closure: Optional[Closure], depth: int) -> None:
        self.fn = fn
        self.env = env
        self.closure = closure
        self.depth = depth
        self.returns: Optional[Value] = None
        self.loops: List[Tuple[List[Dict[str, Value]], List[Dict[str, Value]]]] = []


def _param_name(p: cst.Param) -> str:
    return p.name.value


def _const_key(value: Value):
    """A hashable stand-in for a value's known constant (part of a memo key)."""
    if not value.known:
        return ()
    c = value.const
    return (type(c).__name__, c) if isinstance(c, (int, str, bool, type(None))) else ()


def _class_key(value: Value):
    """A hashable stand-in for the class a value is known to be an instance of (part of a memo key)."""
    cls = value.pytree_class
    return (value.graph_node,) if cls is None else (cls.path or "", cls.name, value.graph_node)


def _int_literals(node: cst.BaseExpression) -> Optional[Tuple[int, ...]]:
    """``1`` or ``(0, 2)`` as a tuple of ints; None for anything else."""
    single = int_value(node)
    if single is not None:
        return (single,)
    if isinstance(node, (cst.Tuple, cst.List)):
        out = [int_value(el.value) for el in node.elements]
        if all(v is not None for v in out):
            return tuple(out)
    return None


def _bound_around(fn: Optional[FunctionInfo], name: str) -> bool:
    """``name`` is a parameter or local of ``fn`` or of a function around it: a module-level def of
    that name is hidden there (``def our_jacfwd(f): ... jvp(f, ...)``)."""
    while fn is not None:
        if name in fn.local_names and name not in fn.global_names:
            return True
        fn = fn.parent
    return False


def _scalar_annotation(ann: cst.BaseExpression) -> bool:
    """A shape-() array annotation: jaxtyping's ``Scalar`` / ``ScalarLike``, ``Int[Scalar, ""]``,
    ``Float[Array, ""]`` (a dtype annotation with an empty shape)."""
    def last(node: cst.BaseExpression) -> Optional[str]:
        if isinstance(node, cst.Name):
            return node.value
        return node.attr.value if isinstance(node, cst.Attribute) else None

    if last(ann) in ("Scalar", "ScalarLike"):
        return True
    if not (isinstance(ann, cst.Subscript) and last(ann.value) in ARRAY_ANNOTATIONS and len(ann.slice) == 2):
        return False
    array, shape = (el.slice.value if isinstance(el.slice, cst.Index) else None for el in ann.slice)
    if array is not None and last(array) in ("Scalar", "ScalarLike"):
        return True
    dims = string_value(shape) if shape is not None else None
    return isinstance(dims, str) and not dims.strip()


def _empty_display(node: cst.BaseExpression) -> bool:
    """``()``, ``[]`` or ``{}``: an empty tuple, list or dict display."""
    return isinstance(node, (cst.Tuple, cst.List, cst.Dict)) and not node.elements


#: attributes every array has and no Python container or number has: ``hasattr(x, "shape")`` tells
#: an array from a shape tuple, a list or a dict
_ARRAY_ONLY_ATTRIBUTES = frozenset({"shape", "dtype", "ndim"})


def _known_structure(value: Value) -> bool:
    """``value`` is known to be a container or an object (a pytree), not possibly a single array."""
    return value.items is not None or value.container or value.mapping or value.element is not None \
        or value.pytree_class is not None or value.instance is not None or bool(value.head or value.tail)


#: the variables that a Flax module's ``apply`` takes before the arguments of ``__call__``
_APPLY_VARIABLES = cst.Param(cst.Name("variables_of_apply"))


def _type_alternatives(node: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The types an ``isinstance`` test accepts: the elements of a tuple of them, nested, or of an
    ``A | B`` union."""
    elements: List[cst.BaseExpression] = []
    stack = [node]
    while stack:
        el = stack.pop()
        if isinstance(el, cst.Tuple):
            stack.extend(item.value for item in el.elements)
        elif isinstance(el, cst.BinaryOperation) and isinstance(el.operator, cst.BitOr):
            stack += [el.left, el.right]
        else:
            elements.append(el)
    return elements


def _compare_known(op: cst.BaseCompOp, left: Value, right: Value) -> Optional[bool]:
    """The result of a comparison decided statically: constants on both sides, or ``x is None``
    for an array (a tracer is never None), and ``x is True`` / ``x is False`` for a tracer (never
    one of Python's two bools: a flag passed to jit untraced-looking, ``if validate is True:``,
    never takes that branch in a trace)."""
    if isinstance(op, (cst.Is, cst.IsNot)):
        result: Optional[bool] = None
        if left.known and right.known and (left.const is None or right.const is None
                                           or isinstance(left.const, bool) and isinstance(right.const, bool)):
            result = left.const is right.const
        elif (_never_none(left) and right.known and right.const is None) or (
                _never_none(right) and left.known and left.const is None):
            result = False
        elif (_a_tracer(left) and right.known and isinstance(right.const, bool)) or (
                _a_tracer(right) and left.known and isinstance(left.const, bool)):
            result = False
        if result is None:
            return None
        return result if isinstance(op, cst.Is) else not result
    if not (left.known and right.known):
        return None
    a, b = left.const, right.const
    if isinstance(op, (cst.Equal, cst.NotEqual)) and type(a) is type(b):
        same = a == b
        return same if isinstance(op, cst.Equal) else not same
    numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in (a, b))
    if numbers and isinstance(op, (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)):
        return {cst.LessThan: a < b, cst.GreaterThan: a > b, cst.LessThanEqual: a <= b,
                cst.GreaterThanEqual: a >= b}[type(op)]
    return None


def _spread_known_items(args):
    """A call's ``(arg, value)`` pairs with each ``*x`` whose value's items are known (a tuple display, a
    scan carry of a tuple) spread into one positional argument per item, as Python passes them
    (``self.predict(*carry)``: ``mean`` and ``cov`` get the carry's two parts)."""
    if not any(arg.star == "*" for arg, _ in args):
        return args
    out = []
    for arg, value in args:
        if arg.star == "*" and arg.keyword is None and value.items is not None and len(value.items) <= 64:
            out.extend((cst.Arg(value=arg.value), item) for item in value.items)
        else:
            out.append((arg, value))
    return out


def _excludes_none(annotation: str) -> bool:
    """The annotation's text names a type that excludes None: not Optional, no union, not Any or object."""
    text = annotation.replace(" ", "")
    return not any(word in text for word in ("None", "Optional", "Any", "object")) and "|" not in text


def _default_or_tracer_is(node: cst.Comparison, values: List[Value]) -> Optional[bool]:
    """``flag is True`` where ``flag`` names a jitted function's defaulted parameter that is either its
    default or the caller's argument, traced: a tracer is never Python's ``True`` or ``False``, so the
    test is decided where the default is not that bool either (``validate: bool = False`` tested with
    ``is True``: false both ways).  Only a plain name: what is computed from it is no longer either."""
    sides = (node.left, node.comparisons[0].comparator)
    for index in (0, 1):
        side, value, other = sides[index], values[index], values[1 - index]
        if isinstance(side, cst.Name) and value.kind is Kind.MAYBE and value.alternative is not NO_CONSTANT \
                and other.known and isinstance(other.const, bool) and isinstance(value.alternative, bool) \
                and value.alternative is not other.const:
            return isinstance(node.comparisons[0].operator, cst.IsNot)
    return None


def _a_tracer(value: Value) -> bool:
    """A traced array, never optional: no Python singleton is one."""
    return value.traced_array and not value.optional


def _never_none(value: Value) -> bool:
    """Known not to be None: a tracer (unless it is an ``X | None`` field) or annotated so."""
    return (value.traced_array and not value.optional) or value.not_none


#: qualified names that are not a library's own classes (JAX's, NumPy's, the language's)
_NOT_FOREIGN = ("jax.", "jaxlib.", "numpy.", "typing.", "typing_extensions.", "builtins.", "collections.",
                "dataclasses.", "flax.nnx.", "equinox.")


#: the standard library's enumeration bases: a member of a subclass is an instance, never None
_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})


def _array_annotation(text: str) -> bool:
    """An annotation naming an array type (``jax.Array``, ``jnp.ndarray``, jaxtyping's ``Float[...]``)."""
    return text.split("[")[0].split(".")[-1].strip() in ARRAY_ANNOTATIONS


def _over_listed(gen: cst.GeneratorExp) -> Optional[Tuple[str, List[cst.BaseExpression]]]:
    """``(... for v in (a, b.c))``, one loop over a tuple or list display, no filter: the loop
    variable and the items listed; None for any other generator."""
    comp = gen.for_in
    if comp.inner_for_in is not None or comp.ifs or not isinstance(comp.target, cst.Name) \
            or not isinstance(comp.iter, (cst.Tuple, cst.List)) \
            or any(not isinstance(el, cst.Element) for el in comp.iter.elements):
        return None
    return comp.target.value, [el.value for el in comp.iter.elements]


#: builtins whose result is a Python bool
_BOOL_BUILTINS = frozenset({"isinstance", "issubclass", "callable", "hasattr", "any", "all", "bool"})


def _gives_bool(node: cst.BaseExpression) -> bool:
    """Whether ``node`` evaluates to a Python bool whatever its operands are: an identity or
    membership test, ``not``, a call of a builtin test, or ``and``/``or`` of such."""
    if isinstance(node, cst.Comparison):
        return all(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not)
    if isinstance(node, cst.BooleanOperation):
        return _gives_bool(node.left) and _gives_bool(node.right)
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _BOOL_BUILTINS


def default_value(p: cst.Param) -> Value:
    """The value of a parameter left at its default: the constant when it is a literal."""
    return literal_value(p.default)


def literal_value(d: Optional[cst.BaseExpression]) -> Value:
    """A static value, with its constant when ``d`` is a literal (a number, a string, True, None)."""
    if d is None:
        return STATIC
    if isinstance(d, cst.Name) and d.value in _BUILTIN_CONSTANTS:
        return constant(_BUILTIN_CONSTANTS[d.value])
    known = int_value(d) if isinstance(d, (cst.Integer, cst.UnaryOperation)) else string_value(d)
    return constant(known) if known is not None else STATIC


def casts_to_bool(call: cst.Call, where: Optional[Tuple[int, str]], qualify, read_scope) -> bool:
    """Whether the dtype argument of a cast (``where``: its position and keyword) is bool:
    ``m.astype(bool)``, ``jnp.asarray(m, dtype=jnp.bool_)``, ``x.astype("bool")``."""
    arg = call_argument(call, *where) if where is not None else None
    if arg is None:
        return False
    dtype = arg.value
    if isinstance(dtype, cst.Name) and dtype.value == "bool":
        return read_scope.get(dtype) == "builtin"
    if isinstance(dtype, cst.SimpleString):
        return string_value(dtype) in jax_api.BOOL_DTYPE_STRINGS
    return qualify(dtype) in jax_api.BOOL_DTYPES


def dtype_kind_of(dtype: cst.BaseExpression, qualify, read_scope) -> Optional[str]:
    """The kind of the dtype an expression names (NumPy's letters, see ``Value.dtype_kind``):
    ``jnp.float32``, ``np.int64``, ``"complex64"``, the builtins ``bool`` / ``int`` / ``float`` /
    ``complex``; None for anything else."""
    if isinstance(dtype, cst.Name) and dtype.value in ("bool", "int", "float", "complex") \
            and read_scope.get(dtype) == "builtin":
        return {"bool": "b", "int": "i", "float": "f", "complex": "c"}[dtype.value]
    if isinstance(dtype, cst.SimpleString):
        name = string_value(dtype)
    else:
        q = qualify(dtype) if isinstance(dtype, (cst.Name, cst.Attribute)) else None
        name = q.rpartition(".")[2] if q is not None and q.startswith(("jax.numpy.", "numpy.")) else None
    if not name:
        return None
    for prefix, kind in (("bool", "b"), ("uint", "u"), ("int", "i"), ("float", "f"), ("bfloat", "f"),
                         ("complex", "c")):
        if name.startswith(prefix) and name[len(prefix):].rstrip("_").isdigit() or name.rstrip("_") == prefix:
            return kind
    return None


def _empty_class(node: cst.ClassDef) -> bool:
    """A class whose body holds nothing but ``pass``, ``...`` or a docstring: it defines no field or method an
    instance could carry, so an annotation naming it marks a kind of argument rather than the type of one."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else (node.body,)
    for stmt in body:
        small = stmt.body if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else None
        if small is None:
            return False
        for part in small:
            if isinstance(part, cst.Pass):
                continue
            if isinstance(part, cst.Expr) and isinstance(part.value, (cst.Ellipsis, cst.SimpleString,
                                                                       cst.ConcatenatedString)):
                continue
            return False
    return True


def _with_bound(callee: Value, args):
    """The arguments a call of ``callee`` gives its function: for a ``functools.partial`` value, the positional
    arguments it binds first, then the call's, then the keywords it binds that the call does not give again."""
    if not callee.bound:
        return args
    given = {arg.keyword.value for arg, _ in args if arg.keyword is not None}
    positional = [(arg, value) for arg, value in callee.bound if arg.keyword is None]
    keywords = [(arg, value) for arg, value in callee.bound if arg.keyword is not None
                and arg.keyword.value not in given]
    return positional + list(args) + keywords


class Analyzer:
    def __init__(self, index: ModuleIndex, project=None, path: Optional[str] = None) -> None:
        self.index = index
        #: the other modules of the checked folder (jitlint.analysis.project.Project), if any
        self.project = project
        self.path = path
        self.facts = Facts(index)
        self.facts.names_class = self.names_class
        self.facts.set_at_startup = self._set_at_startup
        self.facts.base_classes = self._base_classes
        self._startup: Dict[FrozenSet[int], bool] = {}
        self.memo: Dict[tuple, Value] = {}
        self.active: Set[tuple] = set()
        self._mapping_names: Dict[FunctionInfo, frozenset] = {}
        self._numeric_names: Dict[FunctionInfo, frozenset] = {}
        self._container_names: Dict[FunctionInfo, frozenset] = {}
        #: (module, class, attribute) of an nnx module -> what its methods store there (``_graph_attribute``)
        self._graph_attributes: Dict[Tuple[int, str, str], str] = {}
        #: inside ``with jax.ensure_compile_time_eval():`` JAX operations on constants are concrete
        self.compile_time_eval = 0
        #: the code being analysed runs in a trace that is kept (see BodyInfo.cached)
        self._cached = True
        #: whether the transform whose function is analysed next stages it out (grad and the like do not)
        self._boundary_stages = True
        #: the code being analysed runs in the trace of a lambda made where it is traced (EntryPoint.fresh):
        #: staged as any trace, but never reused, so what it reads from outside is read at each evaluation
        self._fresh = False
        #: the code being analysed runs in the trace of a jit wrapper of a function defined in the
        #: function that makes it and only called there (see BodyInfo.kept_across_calls)
        self._per_call = False
        #: conditions on fixed state known where the trace being analysed starts (ModuleIndex.guards_at),
        #: by condition_key: the same test in the traced code has that truth
        self._guards: Dict[str, bool] = {}
        #: whether the trace being analysed is one that only runs with jit on (a jit, a lax function's
        #: body); None outside an entry
        self._jit_on: Optional[bool] = None
        #: functions that test ``jax.config.jax_disable_jit``: their analysis depends on _jit_on
        self._jit_flag_readers: Set[FunctionInfo] = set()
        #: inside a ``try`` whose handler catches JAX's conversion errors (TypeErrors)
        self.conversions_caught = 0
        #: (transform call, function) -> the parameters that call makes static (see _static_at_site)
        self._site_statics: Optional[Dict[Tuple[cst.Call, FunctionInfo], Set[str]]] = None
        #: function -> the parameters a jit decorator of it makes static (see _own_static_params)
        self._decorator_statics: Optional[Dict[FunctionInfo, Set[str]]] = None
        #: call -> the jit wrapper with static parameters it calls by name (see _wrapper_entry)
        self._call_statics: Optional[Dict[cst.Call, EntryPoint]] = None
        #: inside the branch of an initialisation guard (see Facts.initialising)
        self._initialising = 0
        #: functions of this module -> whether they never return None (see returns_never_none)
        self._never_none_returns: Dict[cst.CSTNode, bool] = {}
        #: field names -> whether the module's classes declare them never None (see _module_field_never_none)
        self._module_fields_never_none: Dict[str, bool] = {}
        #: the value iterated by the outer loop of a generator expression, where it was last evaluated
        self._generator_iterables: Dict[cst.GeneratorExp, Value] = {}
        #: see _imported_static_fields
        self._imported_static: Dict[str, bool] = {}
        self._helper_fields: Dict[str, bool] = {}
        self._around: Dict[Tuple[str, bool], list] = {}
        #: see _own_data_fields
        self._own_data: Optional[frozenset] = None
        #: the last analyse() gave a result made for another call (the memo's)
        self.memo_hit = False
        #: the calls being evaluated, innermost last, with the function making each: a function run
        #: by one of them (a helper, or a function given to a higher-order one) was called there
        self._calls: List[Tuple[cst.Call, FunctionInfo]] = []

    def as_mapping(self, value: Value, name: str, fn: FunctionInfo) -> Value:
        """A traced value of unknown structure that the function uses as a dict: a pytree
        container whose keys (what iterating gives) are static."""
        if value.kind is not Kind.TRACED or value.items is not None or value.element is not None \
                or value.container or value.is_array or value.leaf:
            return value
        names = self._mapping_names.get(fn)
        if names is None:
            names = self._mapping_names[fn] = mapping_names(fn.node.body)
        if name not in names:
            return value
        return replace(value, container=True, mapping=True, element=STATIC)

    @property
    def _kept(self) -> bool:
        """The trace being made is kept and run again (see BodyInfo.cached)."""
        return self._cached and not self._fresh

    # ============================================================== entries
    def run(self) -> Facts:
        # a function a transform decorates runs only in a trace (its name holds the transformed
        # wrapper): a function it traces in turn (`jax.vmap(inner)(xs)` in its body) is analysed
        # there, inline, with the closure values that trace gives it, and not alone as well, where
        # those values would be unknown (`isinstance(local, np.ndarray)` undecided)
        always_traced = {e.function for e in self.index.entries
                         if isinstance(e.site, cst.Decorator) and e.wrapper_of is None}
        for entry in self.index.entries:
            if entry.function in self.index.callbacks and not entry.all_traced:
                continue
            if entry.scope in always_traced and entry.function.parent is entry.scope \
                    and isinstance(entry.site, cst.Call):
                continue
            if self.rejected_argument(entry) is not None or self.index.never_called(entry):
                continue  # every call raises before the trace starts; or no call can happen
            if self.index.jit_disabled_at_import and (entry.transform is None or (
                    entry.transform.name in jax_api.COMPILING_TRANSFORMS and "pmap" not in entry.transform.name)):
                continue  # (jit disabled for the process once the module is imported: jit and lax run it eagerly)
            env = self.entry_signature(entry)
            t = entry.transform
            # (vmap retraces every call; grad and the other transforms that stage nothing run eagerly: neither keeps
            # a trace, and an operation there on what is not traced gives a concrete array)
            self._cached = t is None or entry.under_cache or (
                t.name not in jax_api.RETRACES_EVERY_CALL and t.name not in jax_api.NON_STAGING)
            self._fresh = entry.fresh and not entry.under_cache
            self._per_call = self._wrapper_dies_with_call(entry)
            self._guards = self.index.guards_at(entry.site, entry.scope)
            self._jit_on = t is None or t.name in jax_api.COMPILING_TRANSFORMS
            closure = None
            if entry.wrapper_of is not None:  # the decorator's parameter holds the decorated function
                deco, param, decorated = entry.wrapper_of
                closure = Closure(deco, {param: Value(func=decorated)}, None)
            elif entry.scope is not None and entry.function.parent is entry.scope and isinstance(entry.site, cst.Call):
                # a nested function traced from the function around it: its closure values are those
                # at the traced call (`if nbrs is None: return allocate()` earlier: not None there)
                known: Dict[str, Value] = {n: Value(not_none=True) for n in self.index.not_none_at(entry.site,
                                                                                             entry.scope)}
                known.update((n, constant(flag)) for n, flag in self.index.flags_at(entry.site, entry.scope).items())
                if known:
                    closure = Closure(entry.scope, known, None)
            self.analyse(entry.function, env, closure, boundary=True, label=entry.label,
                         transform=entry.transform, depth=0)
            if entry.function in self.index.custom_rules and any(v.kind is Kind.TRACED for v in env.values()) \
                    and self._differentiates(entry.site):
                # `jax.jit(jax.grad(f))` of a custom_jvp `f`: its rules run on the tracers
                self._trace_custom_rules(entry.site, entry.function, 0)
        self._fresh = False
        self._per_call = False
        self._guards = {}
        self._jit_on = None
        return self.facts

    def _wrapper_dies_with_call(self, entry: EntryPoint) -> bool:
        """``entry`` jits, by its decorator, a function defined in another function, which only calls
        it (``@jax.jit def column(j): ...`` then ``[column(j) for j in low]``), or gives to lax a
        function defined in the function that makes the lax call, which only passes it to lax calls:
        each call of the outer function makes a new function object and a new trace, which is not
        kept beyond that call (measured on JAX 0.10.2 for ``fori_loop``: a global changed between
        calls is read anew)."""
        fn, parent = entry.function, entry.function.parent
        if parent is None or fn.is_method or not isinstance(parent.node, cst.FunctionDef) \
                or not isinstance(fn.node, cst.FunctionDef) or fn.name in parent.global_names \
                or fn.name in parent.nonlocal_names:
            return False
        reads = [n for n in name_references(parent.node.body, fn.name) if n is not fn.node.name]
        if isinstance(entry.site, cst.Call) and entry.all_traced and entry.scope is parent:
            # a lax body defined in the function that runs the loop (`def _step(i, c): ...` then
            # `fori_loop(0, n, _step, x)`): a new function object at each call of that function, which
            # lax traces anew (its trace cache is keyed on the function); only given to lax calls there
            given = {id(arg.value) for call in self.index.entries if call.scope is parent and call.all_traced
                     and isinstance(call.site, cst.Call) for arg in call.site.args}
            return bool(reads) and all(id(n) in given for n in reads)
        if isinstance(entry.site, cst.Call) and entry.scope is parent:
            # `jax.jit(convert)(w)` in the function that defines `convert`, the function read nowhere
            # else there and the wrapper applied at once, outside any loop of that function: a new
            # function object and a new trace at each call of it, used once
            use = self.index.called_immediately.get(entry.site)
            given = {id(arg.value) for arg in entry.site.args}
            assign = self.index.parents.get(id(entry.site))
            if use is None and isinstance(assign, cst.Assign) and assign.value is entry.site \
                    and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
                # `convert = jax.jit(convert)` then one call of it: the wrapper bound to a local, called once
                bound = assign.targets[0].target
                calls = self.index.scope_calls.get((parent, bound.value), [])
                others = [n for n in name_references(parent.node.body, bound.value)
                          if n is not bound and not (len(calls) == 1 and n is calls[0].func) and id(n) not in given]
                if len(calls) == 1 and (bound.value == fn.name or not others):
                    use = calls[0]
                    given |= {id(bound), id(calls[0].func)}
            return use is not None and use not in self.index.calls_in_loops and use not in self.index.per_element \
                and bool(reads) and all(id(n) in given or _other_branch(n, entry.site, self.index.parents)
                                        for n in reads)
        if not isinstance(entry.site, cst.Decorator):
            return False
        calls = {id(call.func) for call in self.index.scope_calls.get((parent, fn.name), ())}
        return bool(reads) and all(id(n) in calls for n in reads)

    def _static_function_argument(self, entry: EntryPoint, p: cst.Param) -> Optional[Value]:
        """A static parameter that every call seen passes the same function of this module
        (``mlp(x, activation=softsign)``): that function, so a call of the parameter is followed."""
        by_name = [c for c in self.index.calls_by_name.get(entry.function.name, ()) if isinstance(c.func, cst.Name)]
        found = set()
        for call in entry.visible_calls() + tuple(by_name):
            arg = entry.argument_for(call, p)
            if arg is None:
                continue
            if not isinstance(arg.value, cst.Name) or arg.value.value not in self.index.functions:
                return None
            found.add(arg.value.value)
        if len(found) != 1:
            return None
        return Value(func=self.index.functions[found.pop()])

    def rejected_argument(self, entry: EntryPoint) -> Optional[str]:
        """A parameter that no call of a ``jax.jit`` / ``jax.pmap`` wrapper can fill: required, not static, and
        annotated with a class of the checked code that is no JAX type (a plain class, or one the standard
        library's ``dataclass`` decorates, that nothing registers as a pytree and that has no
        ``__jax_array__``), concrete and no template of others (an instance of it, not of a subclass that may
        be a pytree), and every call seen here passes an instance made of it.  JAX flattens the arguments
        before it traces, and such an instance is a leaf that is not an array: every call raises
        ``TypeError`` ("Error interpreting argument ... as an abstract array"), so the wrapper never traces its
        function (run on JAX 0.10.2)."""
        t = entry.transform
        if t is None or t.name not in jax_api.ARRAY_ONLY_TRANSFORMS or entry.all_traced \
                or entry.static_nums is None or entry.static_names is None:
            return None
        static = entry.static_params() | set(entry.partial_keywords)
        positional = [param for param, kind in entry.function.params if kind in ("posonly", "positional")]
        skipped = set(map(id, positional[: entry.partial_positional + (1 if entry.self_bound else 0)]))
        for param, kind in entry.function.params:
            name = _param_name(param)
            if kind not in ("posonly", "positional", "kwonly") or param.default is not None or name in static \
                    or id(param) in skipped or param.annotation is None:
                continue
            annotation = parsed(param.annotation.annotation)
            if annotation is None or allows_none(annotation):
                continue
            found = class_named(annotation, self.index, self.path, self.project)
            if found is not None and _empty_class(found.index.classes[found.name].node):
                continue  # (`class Animal: pass`, a name for a kind of argument: what is passed is another type)
            if found is not None and found.index.plain_class(found.name, not_a_pytree=True, dataclasses_too=True) \
                    and found.index.concrete_final_class(found.name) \
                    and not found.index.class_defines(found.name, "__jax_array__") \
                    and self._calls_pass_instances(entry, param, found.name):
                self.facts.rejected_arguments[entry] = (name, found.name)
                return name
        return None

    def _calls_pass_instances(self, entry: EntryPoint, param: cst.Param, cls: str) -> bool:
        """Every call of the wrapper seen here that fills ``param`` passes an instance the code makes of
        ``cls`` (``Cfg(...)``, or a local name bound only to one): the annotation is confirmed, not
        contradicted by what is passed (``rng: RandomState`` given an array of keys)."""
        for call in entry.visible_calls():
            arg = entry.argument_for(call, param)
            if arg is None:
                continue
            value = arg.value
            if isinstance(value, cst.Name):
                scope = self.index.call_scopes.get(call, (None, None))[0]
                names = scope.scope if scope is not None else self.index.scope_model.module_scope
                bindings = [b for b in names.bindings.get(value.value, ()) if b.binds_value]
                if len(bindings) != 1 or bindings[0].kind is not BindingKind.ASSIGNMENT or bindings[0].value is None:
                    return False
                value = bindings[0].value
            made = value.func if isinstance(value, cst.Call) else None
            spelled = made.attr.value if isinstance(made, cst.Attribute) else made.value \
                if isinstance(made, cst.Name) else None
            if spelled != cls:
                return False
        return True

    def entry_signature(self, entry: EntryPoint) -> Dict[str, Value]:
        fn = entry.function
        params = fn.params
        env: Dict[str, Value] = {}
        positional = [param for param, kind in params if kind in ("posonly", "positional")]
        if entry.self_bound and positional:
            env[_param_name(positional[0])] = STATIC
            params = [(param, kind) for param, kind in params if param is not positional[0]]
            positional = positional[1:]
        # what functools.partial binds is fixed when the partial is made: static, a known constant when
        # it is a literal (`partial(f, n=4)`: `if n is None:` in f is false)
        bound_positional = [a for a in entry.partial_args if a.keyword is None and not a.star]
        for param, arg in zip(positional[: entry.partial_positional], bound_positional):
            env[_param_name(param)] = literal_value(arg.value)
        by_keyword = {a.keyword.value: a for a in entry.partial_args if a.keyword is not None}
        for param, _ in params:
            if _param_name(param) in by_keyword and _param_name(param) not in env:
                bound = by_keyword[_param_name(param)].value
                env[_param_name(param)] = literal_value(bound)
                if not env[_param_name(param)].known and entry.scope is not None \
                        and self._never_none_expression(bound, entry.scope, depth=1):
                    # (`partial(neighbor_fn, max_occupancy=nbrs.max_occupancy)`, a field declared `int`:
                    # `if max_occupancy is None:` in the function is false)
                    env[_param_name(param)] = Value(not_none=True)
        static = entry.static_params() | set(entry.partial_keywords)
        unknown_statics = entry.static_nums is None or entry.static_names is None
        calls = entry.visible_calls()
        if entry.both_static_kinds:
            # with both static_argnums and static_argnames JAX infers neither from the other: a
            # parameter static by position only is traced when a call passes it by keyword
            by_keyword = {arg.keyword.value for call in calls for arg in call.args if arg.keyword is not None}
            static -= {name for name in by_keyword if name not in (entry.static_names or ())
                       and name not in entry.partial_keywords}
        filter_static = entry.transform is not None and entry.transform.filter_static
        mapped = entry.in_axes_length()
        shift = entry.leading  # (``model.apply``'s variables come first)
        if mapped is not None:
            mapped -= shift
        for index, (param, kind) in enumerate(params):
            name = _param_name(param)
            if name in env:
                continue
            if name in static:
                env[name] = self._static_function_argument(entry, param) or self._static_instance(param, entry) or (
                    Value(not_none=True) if self._annotated_not_none(param) or self._passed_not_none(param, entry)
                    else STATIC)
                continue
            if positional and index < len(positional) and param is positional[index] \
                    and index + shift in entry.in_axes_static:
                env[name] = STATIC
                continue
            if unknown_statics:
                env[name] = MAYBE
                continue
            if filter_static and not entry.all_traced:
                if fn.is_method and positional and param is positional[0] and not entry.self_bound \
                        and fn.cls is not None and self.index.plain_class(fn.cls.name, not_a_pytree=True):
                    # an instance of a plain class is no pytree: one leaf, not an array, which a filter
                    # transform keeps static (the caller's own object, and what is written to it stays)
                    env[name] = STATIC
                    continue
                env[name] = self._filter_param(param, entry)
                continue
            if fn.is_method and positional and param is positional[0] and not entry.self_bound and not entry.all_traced:
                # a pytree-registered instance: its children are traced, its aux data static
                children = self.index.pytree_children(fn.cls) if fn.cls is not None else None
                env[name] = MAYBE if children is None else Value(Kind.MAYBE, instance=fn.cls)
                continue
            if param.default is not None and entry.all_traced:
                # lax calls its bodies with a fixed arity: defaults stay, as written where the
                # arity is known to leave the parameter out
                site = entry.site
                arity = jax_api.LAX_CALL_ARITY.get(self.index.qualify(site.func) or "") \
                    if entry.transform is None and isinstance(site, cst.Call) else None
                past = arity is not None and kind in ("posonly", "positional", "kwonly") and (
                    kind == "kwonly" or index >= arity)
                env[name] = default_value(param) if past else STATIC
                continue
            if param.default is not None and not entry.all_traced and kind != "vararg":
                passed = self._passed_by_calls(param, entry)
                if passed is False:
                    env[name] = default_value(param)
                    continue
                if passed is None:
                    default = default_value(param)
                    env[name] = Value(Kind.MAYBE, alternative=default.const) if default.known else MAYBE
                    continue
            if self.index.filled_by_decorator(entry, param, kind):
                env[name] = MAYBE
                continue
            if mapped is not None and kind in ("posonly", "positional") and param in positional \
                    and positional.index(param) >= mapped \
                    and not any(entry.argument_for(call, param) is not None for call in calls):
                # `jax.vmap(f, in_axes=(0, 0))` is called with as many positional arguments as `in_axes`
                # has entries (jax 0.10.2: ValueError otherwise); a parameter past them gets a keyword
                # argument, which vmap maps (a tracer), from a call; none seen here gives it one
                env[name] = MAYBE
                continue
            if kind in ("posonly", "positional", "kwonly") and self._passed_ref(param, entry):
                env[name] = traced(Reason(entry.site, f"parameter `{name}` of `{fn.label}` receives a JAX array "
                                                      f"reference from {entry.label} (line {{line}})"), ref=True)
                continue
            how = "calls it with tracers" if entry.all_traced else (
                "traces its arguments, and `%s` is not static" % name)
            reason = Reason(entry.site, f"parameter `{name}` of `{fn.label}` is traced: "
                                        f"{entry.label} (line {{line}}) {how}")
            container = kind in ("vararg", "varkw")
            # JAX applies `static_argnames` by keyword, also to keywords that `**kwargs` collects
            collected = frozenset(entry.static_names or ()) - {_param_name(p) for p, _ in params} \
                if kind == "varkw" else frozenset()
            facts = self._class_facts(param)
            if not facts and not container and param.annotation is None:
                facts = self._passed_instance(param, entry)
            held = self._passed_instance_list(param, entry) if not facts and not container \
                and param.annotation is None else {}
            leaf = not container and not facts and (
                self._annotated_scalar(param) or self._passed_number(param, entry)
                or self._never_a_container(param, fn))
            if not facts and not container and not leaf and entry.transform is not None \
                    and entry.transform.name.startswith("flax.nnx.") and not self._annotated_array(param):
                # an object handed to an nnx transform is a graph node (a module, an optimizer) or a pytree:
                # of a graph node only the Variables are traced, its other attributes are its static
                # structure (`range(model.num_layers)`); the class unknown, an attribute is not known traced
                facts = {"graph_node": True}
            env[name] = traced(reason, container=container, is_array=self._annotated_array(param),
                               mapping=kind == "varkw", static_keys=collected,
                               element=STATIC if kind == "varkw" else None,  # its keys: strings
                               leaf=leaf,
                               not_none=not container and (self._annotated_not_none(param)
                                                           or self._passed_not_none(param, entry)
                                                           or self._required_value(param, kind, entry)),
                               **facts)
            if held:  # a list of instances of one class: iterating it gives such an instance
                env[name] = replace(env[name], container=True, leaf=False, is_array=False,
                                    element=traced(reason, **held))
        return env

    def _static_instance(self, p: cst.Param, entry: EntryPoint) -> Optional[Value]:
        """A static parameter that every call seen gives an instance of one class of this module (``CTRL =
        PDController(...)`` passed as ``ctrl``): a Python object whose methods run in the trace on what the
        function hands them (``ctrl.torque(-theta, -omega)``)."""
        if p.annotation is not None:
            return None
        cls = self._passed_instance(p, entry).get("pytree_class")
        info = self.index.classes.get(cls.name) if cls is not None and cls.index is self.index else None
        return Value(Kind.STATIC, instance=info, not_none=True) if info is not None else None

    def _required_value(self, p: cst.Param, kind: str, entry: EntryPoint) -> bool:
        """A parameter of a jitted function that every caller must pass (no default), that the function
        itself never tests against None, and that no call seen gives None (its annotation, if any,
        excluding None): the function is written for a value there, so a helper's ``is None`` branch
        that it reaches serves the helper's other callers (``update_fn(position, neighbors)`` calling
        ``neighbor_list_fn(position, neighbors=None)``, whose None path is the eager allocation)."""
        if p.default is not None or kind not in ("posonly", "positional", "kwonly") or entry.all_traced \
                or entry.transform is None or (p.annotation is not None and not self._annotated_not_none(p)):
            return False
        name = p.name.value
        for ref in name_references(entry.function.node.body, name):
            holder = self.index.parents.get(id(ref))
            if isinstance(holder, cst.Comparison) and any(
                    isinstance(c.comparator, cst.Name) and c.comparator.value == "None" for c in holder.comparisons):
                return False  # (`if state is None:` in the function itself: None is expected)
        for call in entry.visible_calls():
            arg = entry.argument_for(call, p)
            if arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "None":
                return False
        return True

    def _annotated_array(self, p: cst.Param) -> bool:
        if p.annotation is None:
            return False
        text = self.index.module.code_for_node(p.annotation.annotation)
        return _array_annotation(text) and "|" not in text and "Optional" not in text

    def _passed_ref(self, p: cst.Param, entry: EntryPoint) -> bool:
        """Every call seen (at least one) passes ``p`` a module-level JAX array reference (``out_ref =
        jax.new_ref(...)``): the transform hands the function a reference, which ``out_ref[...] = v`` writes."""
        calls = entry.visible_calls()
        if not calls and isinstance(entry.site, cst.Call) and not entry.partial_args:
            # `jax.vmap(jax.vmap(dist, ...), ...)(vecs, vecs, out_ref)`: the transforms around pass the arguments
            # of the call at their places
            site: Optional[cst.Call] = entry.site
            while site is not None and self.index.called_immediately.get(site) is None:
                site = self._wrapping_transform(site)
                if site is not None and self.index.qualify(site.func) not in jax_api.WRAPPER_MAKERS:
                    return False
            outer = self.index.called_immediately.get(site) if site is not None else None
            if outer is None or any(a.star for a in outer.args):
                return False
            found = [a for a, bound in bind_arguments(entry.function.params, outer.args) if bound is p]
            return len(found) == 1 and isinstance(found[0].value, cst.Name) \
                and found[0].value.value in self.index.ref_names
        if not calls:
            return False
        for call in calls:
            arg = entry.argument_for(call, p)
            if arg is None or arg.star or not isinstance(arg.value, cst.Name) \
                    or arg.value.value not in self.index.ref_names \
                    or self.facts.read_scope.get(arg.value, "global") != "global":
                return False
        return True

    def _passed_instance(self, p: cst.Param, entry: EntryPoint) -> dict:
        """An unannotated parameter that every call seen (at least one) passes an instance of one class of
        this module -- a name bound once to ``C(...)``, or ``C(...)`` itself: it is that instance, as if
        annotated ``C`` (``eval_step(MODEL, xb)`` with ``MODEL = Autoencoder(...)``: ``model(x)`` runs
        ``Autoencoder.__call__``)."""
        return self._class_every_call_makes(p, entry, lambda value: [value])

    def _passed_instance_list(self, p: cst.Param, entry: EntryPoint) -> dict:
        """An unannotated parameter that every call seen (at least one) passes a list or tuple display of
        instances of one class of this module (or a name bound once to one): what iterating it gives is
        that instance (``daily_yield([Panel(...), Panel(...)], ...)``: ``p(...)`` runs ``Panel.__call__``); a
        list comprehension making them counts the same."""
        def made(value):
            if isinstance(value, cst.ListComp):  # `[Ball(e, h) for e in restitutions]`
                return [value.elt]
            if isinstance(value, (cst.List, cst.Tuple)) and value.elements:
                return [el.value if isinstance(el, cst.Element) else None for el in value.elements]
            return None
        return self._class_every_call_makes(p, entry, made)

    def _class_every_call_makes(self, p: cst.Param, entry: EntryPoint, made) -> dict:
        """The facts of the one class of this module whose instances every call seen (at least one) passes
        for ``p``: ``made(value)`` gives the expressions of the argument (or of what a name bound once to it
        holds) that must each be ``C(...)``; None where the argument is of another shape."""
        classes = set()
        for call in entry.visible_calls():
            arg = entry.argument_for(call, p)
            if arg is None or arg.star:
                return {}
            value = arg.value
            if isinstance(value, cst.Name):
                value = self.index.single_value(value.value, self.index.call_scopes.get(call, (None, None))[0])
            parts = made(value) if value is not None else None
            if not parts:
                return {}
            for part in parts:
                if not (isinstance(part, cst.Call) and isinstance(part.func, cst.Name)
                        and part.func.value in self.index.classes):
                    return {}
                classes.add(part.func.value)
        if len(classes) != 1:
            return {}
        return self._annotation_facts(cst.Name(classes.pop()))

    def _passed_number(self, p: cst.Param, entry: EntryPoint) -> bool:
        """A call seen passes a Python bool or number literal for ``p`` (jit makes it a 0-d tracer),
        an array made by ``jax.numpy`` / NumPy (``f(x, jnp.array(True))``), or a parameter of the
        calling function annotated ``bool``, ``int``, ``float`` or ``complex`` (``f_number=f_number``
        where the caller declares ``f_number: float``)."""
        for call in entry.visible_calls():
            arg = entry.argument_for(call, p)
            if arg is None:
                continue
            value = arg.value
            if isinstance(value, cst.Name) and (self._scalar_parameter_of_caller(value, call)
                                                or self._bound_to_arrays(value, call)):
                return True
            if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
                value = value.expression
            if isinstance(value, (cst.Integer, cst.Float)) or (
                    isinstance(value, cst.Name) and value.value in ("True", "False")):
                return True
            q = self.index.qualify(value.func) if isinstance(value, cst.Call) else None
            if q is not None and q.startswith(("jax.numpy.", "numpy.", "jax.random.")) and q not in (
                    "numpy.random.default_rng", "jax.random.split", "jax.random.key", "jax.random.PRNGKey"):
                return True
        return False

    def _passed_not_none(self, p: cst.Param, entry: EntryPoint) -> bool:
        """Every call seen passes ``p`` a value that is never None: a number or a string, an array
        that JAX or NumPy makes, what a function annotated to return an array returns (this
        module's, or another module's of the project: ``key = pkg.random.get_key()``), directly or
        through a name the caller binds once to one.  What jit hands the parameter is then a
        tracer, and a tracer is never None (None itself is an empty pytree: ``f(None)`` passes it)."""
        calls = entry.visible_calls()
        for call in calls:
            arg = entry.argument_for(call, p)
            if arg is None or arg.star:
                return False
            value: Optional[cst.BaseExpression] = arg.value
            scope = self.index.call_scopes.get(call, (None, None))[0]
            if isinstance(value, cst.Name) and self._guarded_at(call, value.value, scope, entry):
                continue
            if isinstance(value, cst.Name) and value.value not in _BUILTIN_CONSTANTS:
                value = self.index.single_value(value.value, scope)
            if value is None or not self._never_none_expression(value, scope):
                return False
        return bool(calls)

    def _guarded_at(self, call: cst.Call, name: str, scope: Optional[FunctionInfo], entry: EntryPoint) -> bool:
        """The call runs only where ``name`` is not None: inside ``if name is not None:`` (or the
        ``else`` of ``if name is None:``, or after ``if name is None: return``), or through a name bound
        to ``f if name is None else f_jit`` whose arm the call reaches is taken only then; and ``name``
        is a parameter of the calling function or bound once, so the guard still holds at the call."""
        if scope is None:
            return False
        home = scope.scope.resolve(name)
        bindings = [b for b in home.bindings_of(name) if b.binds_value] if home is not None else []
        if not bindings or not (all(b.kind is BindingKind.PARAMETER for b in bindings) or len(bindings) == 1):
            return False
        choice = self.index.choice_of(call, scope)
        if choice is not None:
            for arm, outcome in ((choice.body, True), (choice.orelse, False)):
                if isinstance(arm, cst.Name) and arm.value in entry.call_names:
                    return implies_not_none(choice.test, name, outcome)
        path = path_to(scope.node, call)
        return path is not None and guarded_not_none(path, name)

    def _never_none_expression(self, node: cst.BaseExpression, scope: Optional[FunctionInfo], depth: int = 0) -> bool:
        """A number, a string, the result of an operator or of a builtin that makes a value (``int()``,
        ``len()``, ``tuple()``...), an array made by JAX or NumPy, or the result of a call of a function
        annotated to return an array type, or of a function of this module whose every ``return``
        gives such a value (and that cannot end without one)."""
        if isinstance(node, cst.UnaryOperation):
            node = node.expression
        if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return True
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return True
            return depth > 0 and scope is not None and self._never_none_local(node.value, scope, depth)
        if isinstance(node, (cst.BinaryOperation, cst.Comparison)):
            return True  # an operator's result (a number, an array, a bool), not None
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and scope is not None:
            return self._field_never_none(node.value.value, node.attr.value, scope)
        if not isinstance(node, cst.Call):
            return False
        if isinstance(node.func, cst.Name) and node.func.value in _NEVER_NONE_BUILTINS \
                and node.func.value not in self.index.globals and not _shadowed_in(node.func.value, scope):
            return True  # `int(2 + c)`, `len(xs)`, `tuple(shape)`
        q = self.index.qualify(node.func)
        if q is not None and (jax_api.is_array_function(q) or (
                q.startswith("numpy.") and not q.startswith("numpy.random."))):
            return True
        callee, _ = self.index.resolve_function(node.func, scope, None)
        where = self.index
        if callee is None and q is not None and self.project is not None \
                and not q.startswith(jax_api.EXTERNAL_PACKAGES):
            found = self.project.resolve_function(self.path, q)
            if found is not None:
                where, callee = found[0].index, found[1]
        returns = getattr(callee.node, "returns", None) if callee is not None else None
        if returns is None:
            if callee is None or depth >= 3:
                return False
            owner = self if where is self.index else (self.project.analyzer_of(callee) if self.project else None)
            return owner is not None and owner._returns_never_none(callee, depth)
        text = where.module.code_for_node(returns.annotation)
        return _array_annotation(text) and "|" not in text and "Optional" not in text and "None" not in text

    def _field_never_none(self, name: str, attr: str, scope: FunctionInfo) -> bool:
        """``name.attr`` where ``name`` is a parameter of ``scope`` (or a local bound once to one) annotated
        with a class of the checked code that declares ``attr`` with a type excluding None
        (``max_occupancy: int``): what the annotations say an instance holds there."""
        annotation = self._annotation_behind(name, scope, 0)
        cls = class_named(annotation, self.index, self.path, self.project) if annotation is not None else None
        if cls is None:
            # of an object of unknown class, a field name the module's classes declare: one of them
            # (as a field declared only static is static, see `_ev_attribute`)
            return annotation is None and self._module_field_never_none(attr)
        field = cls.field_annotation(attr)
        return field is not None and _excludes_none(cls.index.module.code_for_node(field))

    def _module_field_never_none(self, attr: str) -> bool:
        """Every class of this module that declares a field ``attr`` annotates it with a type that
        excludes None and gives it no None default, and one does (``max_occupancy: int =
        dataclasses.static_field()``); no method stores None in an attribute of that name."""
        known = self._module_fields_never_none.get(attr)
        if known is None:
            found = []
            for cls in self.index.classes.values():
                for stmt in cls.node.body.body if isinstance(cls.node.body, cst.IndentedBlock) else ():
                    for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                        if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) \
                                and small.target.value == attr:
                            found.append(_excludes_none(self.index.module.code_for_node(small.annotation.annotation))
                                         and not (isinstance(small.value, cst.Name) and small.value.value == "None"))
            known = bool(found) and all(found) and not self._stores_none_in(attr)
            self._module_fields_never_none[attr] = known
        return known

    def _stores_none_in(self, attr: str) -> bool:
        """Some statement of the module stores None in an attribute named ``attr`` (``obj.attr = None``)."""
        for node in name_references(self.index.module):
            if node.value != "None":
                continue
            holder = self.index.parents.get(id(node))
            if isinstance(holder, cst.Assign) and any(
                    isinstance(t.target, cst.Attribute) and t.target.attr.value == attr for t in holder.targets):
                return True
        return False

    def _annotation_behind(self, name: str, scope: FunctionInfo, depth: int) -> Optional[cst.BaseExpression]:
        """The class annotation of what ``name`` holds in ``scope``: a parameter's own; of a parameter
        without one, the one annotation of what every call of ``scope`` (a function only called by its
        name) that passes it passes (``update_fn(position, neighbors: NeighborList)`` calling
        ``neighbor_list_fn(position, neighbors)``); of a local bound once to a parameter
        (``nbrs = neighbors``), the parameter's."""
        params = {p.name.value: p for p, _ in scope.params}
        if name not in params:
            value = scope.scope.single_value(name) if scope.scope.is_local(name) else None
            if not isinstance(value, cst.Name) or value.value not in params:
                return None
            name = value.value
        if len(scope.scope.bindings_of(name)) > 1:
            return None  # (rebound in the body)
        param = params[name]
        if param.annotation is not None:
            return param.annotation.annotation
        if depth >= 2:
            return None
        found: Optional[cst.BaseExpression] = None
        for call in self.index.calls_of_nested_def(scope) or ():
            arg = next((a for a, p in bind_arguments(scope.params, call.args) if p is param and not a.star), None)
            if arg is None:
                continue  # (the default: None, which the code tests before it reads the field)
            caller = self.index.call_scopes.get(call, (None, None))[0]
            given = self._annotation_behind(arg.value.value, caller, depth + 1) \
                if isinstance(arg.value, cst.Name) and caller is not None else None
            if given is None or (found is not None and not given.deep_equals(found)):
                return None
            found = given
        return found

    def returns_never_none(self, fn: FunctionInfo) -> bool:
        """``fn``, a function of this module, never returns None (see :meth:`_returns_never_none`)."""
        found = self._never_none_returns.get(fn.node)
        if found is None:
            found = self._never_none_returns[fn.node] = self._returns_never_none(fn, 0)
        return found

    def _returns_never_none(self, fn: FunctionInfo, depth: int) -> bool:
        """Every ``return`` of ``fn`` (a plain function of this module) gives a value never None, and its
        body ends in a ``return`` or ``raise`` (it cannot fall off its end, returning None)."""
        node = fn.node
        if not isinstance(node, cst.FunctionDef) or node.asynchronous is not None or node.decorators:
            return False
        body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
        last = body[-1] if body else None
        if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], (cst.Return, cst.Raise))):
            return False
        stack: List[cst.CSTNode] = [node.body]
        while stack:
            item = stack.pop()
            if isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(item, (cst.Yield, cst.Await)):
                return False
            if isinstance(item, cst.Return) and (
                    item.value is None or not self._never_none_expression(item.value, fn, depth + 1)):
                return False
            stack.extend(iter_children(item))
        return True

    def _never_none_local(self, name: str, fn: FunctionInfo, depth: int) -> bool:
        """A local of ``fn`` bound once to a value never None, or the target of a loop over a literal
        list or tuple of such values (``for t in [64, 32, 16]``)."""
        bindings = [b for b in fn.scope.bindings_of(name) if b.binds_value] if fn.scope.is_local(name) else []
        if len(bindings) != 1:
            return False
        value = fn.scope.single_value(name)
        if value is not None:
            return self._never_none_expression(value, fn, depth + 1)
        loop = bindings[0].node
        if isinstance(loop, (cst.For, cst.CompFor)) and isinstance(loop.target, cst.Name) \
                and isinstance(loop.iter, (cst.List, cst.Tuple)):
            return all(isinstance(el, cst.Element) and self._never_none_expression(el.value, fn, depth + 1)
                       for el in loop.iter.elements)
        return False

    def _never_a_container(self, p: cst.Param, fn: FunctionInfo) -> bool:
        """A jitted parameter that its function never uses as a container or an object (never indexed,
        iterated, unpacked, tested against None, nor a field of it read), with no ``None`` default and no
        annotation: what jit hands it is a leaf, a tracer."""
        if p.annotation is not None or (p.default is not None and not (
                isinstance(p.default, (cst.Integer, cst.Float)) or (
                    isinstance(p.default, cst.Name) and p.default.value in ("True", "False")))):
            return False
        uses = self._container_names.get(fn)
        if uses is None:
            uses = self._container_names[fn] = container_uses(
                fn.node, jax_api.ARRAY_ATTRIBUTE_NAMES, self._takes_arrays)
        return p.name.value not in uses

    def _takes_arrays(self, call: cst.Call) -> bool:
        """A function of JAX's array API, whose operands are arrays: not lax's control flow, whose
        operands are pytrees (`lax.while_loop(cond, body, (i, state, x))` hands `state` on whole)."""
        q = self.index.qualify(call.func) or ""
        return jax_api.is_array_function(q) and q not in jax_api.TRACED_BODIES and q not in jax_api.LAX_CALL_ARITY

    def _class_facts(self, p: cst.Param) -> dict:
        """What the class a parameter is annotated as (this module's or, through the project, another
        module's) says of the traced instance: its static fields give Python values, and its fields'
        annotations name the classes of what they hold."""
        facts = self._annotation_facts(p.annotation.annotation if p.annotation is not None else None)
        if not facts and p.annotation is not None and self._foreign_class(p.annotation.annotation):
            facts = {"foreign": True}
        return facts

    def _foreign_class(self, annotation: cst.BaseExpression, where: Optional[Definition] = None) -> bool:
        """The annotation (read in this module, or in ``where``'s) names a class defined outside the checked
        code (``mjx.Model``), not an array type: which of its fields are leaves and which static metadata
        is that library's choice."""
        index, path = (self.index, self.path) if where is None else (where.index, where.path)
        named = without_none(parsed(annotation))
        if not isinstance(named, (cst.Name, cst.Attribute)):
            return False
        q = index.qualify(named)
        if q is None or "." not in q or q.startswith(_NOT_FOREIGN) or _array_annotation(q):
            return False
        return defined(named, index, path, self.project) is None

    def _annotation_facts(self, annotation: Optional[cst.BaseExpression], where: Optional[Definition] = None) -> dict:
        """The facts of the class an annotation names, read in this module or in ``where``'s."""
        index, path = (self.index, self.path) if where is None else (where.index, where.path)
        cls = class_named(annotation, index, path, self.project) if annotation is not None else None
        if cls is not None:
            return {"static_attrs": cls.static_attrs, "pytree_class": cls,
                    "graph_node": bool(cls.external_bases() & jax_api.GRAPH_NODE_CLASSES)}
        named = without_none(parsed(annotation)) if annotation is not None else None
        if named is not None and index.qualify(named) in jax_api.GRAPH_NODE_CLASSES:
            return {"graph_node": True}  # (``model: nnx.Module``: a module of unknown class)
        return {}

    @staticmethod
    def _numpy_type(annotation: cst.BaseExpression, where: Definition) -> bool:
        """``np.ndarray`` or ``npt.NDArray[...]`` (read in the module ``where``)."""
        if isinstance(annotation, cst.Subscript):
            annotation = annotation.value
        return where.index.qualify(annotation) in ("numpy.ndarray", "numpy.typing.NDArray")

    def _array_type(self, annotation: cst.BaseExpression, where: Definition, depth: int = 0) -> bool:
        """An annotation (read in the module ``where``) naming an array type, or an alias of one
        (``FloatVector: TypeAlias = Float[Array, "n"]``, ``Array = jax.Array | np.ndarray``)."""
        if _array_annotation(where.index.module.code_for_node(annotation)):
            return True
        aliased = alias_of(annotation, where.index, where.path, self.project) if depth < 4 else None
        if aliased is None:
            return False
        kinds = alternatives(aliased[0])
        return bool(kinds) and all(self._array_type(kind, aliased[1], depth + 1) for kind in kinds)

    def as_annotated(self, p: cst.Param, value: Value) -> Value:
        """A traced argument of a parameter annotated with a class of the checked code is an instance
        of that class, as a traced parameter of an entry point is (the function states what it takes);
        annotated with a library's class (``u: FourierSeries``), it is that library's object, whose fields
        are leaves or metadata as the library decides."""
        annotation = p.annotation.annotation if p.annotation is not None else None
        made = self._as_instance(value, annotation)
        if made is value and annotation is not None and value.kind is Kind.TRACED and not value.foreign \
                and value.pytree_class is None and not value.container and value.items is None \
                and self._foreign_class(annotation):
            return replace(value, foreign=True, is_array=False, leaf=False)
        return made

    def as_returned(self, fn: FunctionInfo, value: Value) -> Value:
        """What a function annotated to return a class of the checked code (``-> Agent``) returns,
        traced, is an instance of that class: its static fields are Python values (JAX keeps them as
        the structure of the pytree through every call, return and scan carry that rebuilds it)."""
        returns = getattr(fn.node, "returns", None)
        return self._as_instance(value, returns.annotation if returns is not None else None)

    def _declared_mapping(self, value: Value, annotation: Optional[cst.BaseExpression],
                          where: Optional[Definition] = None) -> Value:
        """A traced value of unknown structure where the annotation (read in this module or in ``where``'s)
        names a dict type or an alias of one (``DetectorState = dict[str, jax.Array]``): a dict of tracers,
        its keys (what iterating it gives) static."""
        if annotation is None or value.kind is not Kind.TRACED or value.container or value.items is not None:
            return value
        index, path = (self.index, self.path) if where is None else (where.index, where.path)
        if not is_mapping_type(annotation, index, path, self.project):
            return value
        return replace(value, container=True, mapping=True, element=STATIC, is_array=False, leaf=False)

    def _as_instance(self, value: Value, annotation: Optional[cst.BaseExpression],
                     where: Optional[Definition] = None) -> Value:
        """A traced value where the annotation names a class of the checked code is an instance of
        it.  Also when the value was taken for an array only because it was computed from a traced
        value (``d.replace(qpos=...)``: a method of an object of unknown class): the function
        states what it takes, and an array there would be a type error."""
        if value.kind is not Kind.TRACED or value.pytree_class is not None \
                or value.container or value.items is not None:
            return value
        mapping = self._declared_mapping(value, annotation, where)
        if mapping is not value:
            return mapping
        facts = self._annotation_facts(annotation, where)
        if not facts:
            return value
        return replace(value, static_attrs=value.static_attrs | facts.get("static_attrs", frozenset()),
                       pytree_class=facts.get("pytree_class"), graph_node=facts["graph_node"],
                       is_array=False, leaf=False)

    def _field_value(self, node: cst.Attribute, base: Value) -> Optional[Value]:
        """A field read from a traced instance of a known class holds what the field's annotation
        names: an instance of a class of the checked code (its static fields static, its fields
        followed in turn), a dict of them, or an array.  A data field annotated as an array is a
        pytree child: a tracer whenever it is set (None, when allowed, is pytree structure)."""
        owner = base.pytree_class
        annotation = owner.field_annotation(node.attr.value)
        if annotation is None:
            # a field a base class of another module of the checked code declares (`env: Environment` of
            # `class Trainer`, read from a `PPOTrainer`): its annotation read where it is written
            for inherited in owner.imported_bases():
                annotation = inherited.field_annotation(node.attr.value)
                if annotation is not None:
                    owner = inherited
                    break
        inner = without_none(annotation) if annotation is not None else None
        if inner is None:
            return None
        if self._numpy_type(inner, owner):
            # declared a NumPy array: built on the host (a table computed at trace time stays one);
            # a tracer there would contradict the declaration, so it is no proof of one
            return MAYBE
        if self._array_type(inner, owner):
            why = Reason(node, f"`{{code}}` is a field of `{owner.name}` annotated as an array: a traced child "
                               "of the pytree whenever it is set", base.reason)
            return traced(why, is_array=True, optional=allows_none(annotation))
        held = mapping_value(inner)
        if held is not None:  # a dict: its keys are pytree structure
            cls = class_named(held, owner.index, owner.path, self.project)
            return traced(base.reason, container=True, mapping=True, element=STATIC, pytree_class=cls)
        cls = class_named(inner, owner.index, owner.path, self.project)
        if cls is None:
            if self._foreign_class(inner, owner):
                # `domain: Domain` of a library (jaxdf): its own fields are leaves or metadata as it decides
                return traced(base.reason, foreign=True)
            return None
        return traced(base.reason, static_attrs=cls.static_attrs, pytree_class=cls)

    def _passed_arrays(self, p: cst.Param, entry: EntryPoint) -> bool:
        """Every call seen (at least one) passes ``p`` an array NumPy, ``jax.numpy`` or ``jax.random`` makes:
        the call itself (``step(jnp.zeros(3), 2)``) or a name bound only to one where the call is made."""
        calls = entry.visible_calls()
        if not calls:
            return False
        for call in calls:
            arg = entry.argument_for(call, p)
            if arg is None or arg.star:
                return False
            value = arg.value
            if isinstance(value, cst.Name):
                if not self._bound_to_arrays(value, call, random=True):
                    return False
            elif not (isinstance(value, cst.Call) and self._makes_array(value)):
                return False
        return True

    def _makes_array(self, call: cst.Call, random: bool = True) -> bool:
        """``np.zeros(3)``, ``jnp.linspace(0, 1, n)``, ``jax.random.normal(key, (3,))`` (with ``random``): a call
        that gives an array."""
        q = self.index.qualify(call.func)
        if q is None:
            return False
        if q.startswith("numpy."):
            return jax_api.makes_numpy_array(q, call)
        if q == "jax.random.PRNGKey":
            return random
        modules = ("jax.numpy.", "jax.random.") if random else ("jax.numpy.",)
        return q.startswith(modules) and jax_api.is_array_function(q) \
            and q not in jax_api.STATIC_RESULT_FUNCTIONS and q not in jax_api.LIST_OF_ARRAYS_FUNCTIONS \
            and not q.rsplit(".", 1)[-1][:1].isupper()

    def _bound_to_arrays(self, name: cst.Name, call: cst.Call, random: bool = False) -> bool:
        """Every binding of ``name`` where ``call`` is made assigns it an array NumPy or ``jax.numpy`` makes
        (``counts = np.zeros(3)``, later ``counts = np.asarray(counts)``)."""
        caller = self.index.call_scopes.get(call, (None, None))[0]
        scope = caller.scope if caller is not None else self.index.scope_model.module_scope
        bindings = scope.bindings_of(name.value) if scope.is_local(name.value) else []
        for binding in bindings:
            value = binding.value if binding.kind is BindingKind.ASSIGNMENT else None
            if not (isinstance(value, cst.Call) and self._makes_array(value, random)):
                return False
        return bool(bindings)

    def _scalar_parameter_of_caller(self, name: cst.Name, call: cst.Call) -> bool:
        """``name`` is a parameter of the function making ``call``, annotated with a Python scalar
        type, and that function does not bind it again."""
        caller = self.index.call_scopes.get(call, (None, None))[0]
        if caller is None:
            return False
        param = next((q for q, _ in caller.params if q.name.value == name.value), None)
        if param is None or not self._annotated_scalar(param):
            return False
        bindings = caller.scope.bindings_of(name.value)
        return len(bindings) == 1

    def _annotated_scalar(self, p: cst.Param) -> bool:
        """Annotated ``bool``, ``int``, ``float`` or ``complex``: traced, it is a 0-d tracer."""
        if p.annotation is None:
            return False
        return self.index.module.code_for_node(p.annotation.annotation).strip() in ("bool", "int", "float", "complex")

    def _annotated_not_none(self, p: cst.Param) -> bool:
        """Annotated with a type that excludes None (not Optional, a union with None, or Any)."""
        if p.annotation is None:
            return False
        return _excludes_none(self.index.module.code_for_node(p.annotation.annotation))

    def _caller_allows_writes(self) -> bool:
        """The function being analysed is called from a body whose attribute writes reach the caller's object
        (see ``BodyInfo.allows_attribute_writes``)."""
        if not self._calls:
            return False
        caller = self.facts.bodies.get(self._calls[-1][1])
        return caller is not None and caller.allows_attribute_writes

    def _filter_param(self, p: cst.Param, entry: EntryPoint) -> Value:
        ann = p.annotation.annotation if p.annotation is not None else None
        if ann is None:
            facts = self._passed_instance(p, entry)
            cls = facts.get("pytree_class")
            if cls is not None and cls.index is self.index:
                # every call seen passes an instance of one class of this module: calling it runs its
                # `__call__` in the trace (its arrays traced, its other fields kept static by the filter)
                return Value(Kind.MAYBE, instance=self.index.classes.get(cls.name))
            held = self._passed_instance_list(p, entry).get("pytree_class")
            if held is not None and held.index is self.index:  # a list of them: iterating gives one
                return Value(Kind.MAYBE, container=True,
                             element=Value(Kind.MAYBE, instance=self.index.classes.get(held.name)))
            if self._passed_arrays(p, entry):
                # a filter transform traces the arrays it is given (JAX's and NumPy's: `eqx.is_array`)
                return traced(Reason(entry.site, f"parameter `{p.name.value}` of `{entry.function.label}` is "
                                                 f"given an array by every call in the module, which {entry.label} "
                                                 f"(line {{line}}) traces"), is_array=True)
            return MAYBE
        text = self.index.module.code_for_node(ann)
        head = text.split("[")[0].split(".")[-1]
        if head in ("int", "float", "bool", "str"):
            return STATIC
        if _scalar_annotation(ann):
            # a filter transform traces what is an array when it is called: a shape-() annotation
            # (`n: Int[Scalar, ""]`) fits a Python number as well, which it keeps static
            return MAYBE
        if head in ARRAY_ANNOTATIONS:
            return traced(Reason(entry.site, f"parameter `{p.name.value}` of `{entry.function.label}` is an "
                                             f"array, which {entry.label} (line {{line}}) traces"), is_array=True)
        return MAYBE

    @staticmethod
    def _passed_by_calls(p: cst.Param, entry: EntryPoint) -> Optional[bool]:
        """Whether some visible call passes ``p`` (an unpacking may): True, False, or None (no calls seen)."""
        calls = entry.visible_calls()
        if not calls:
            return None
        return any(arg.star or bound is p for call in calls for arg, bound in entry.bind_args(call))

    # ============================================================ functions
    def analyse(self, fn: FunctionInfo, env: Dict[str, Value], closure: Optional[Closure], *,
                boundary: bool, label: str, transform: Optional[jax_api.Transform], depth: int) -> Value:
        checkpoint()  # one function (an entry, or a helper it calls) at a time: the editor may stop here
        owner = self._owner_of(fn)
        if owner is not self:
            # a function of another module, passed here as a value: it runs, and is reported, there
            env = {name: self._leaving_module(value) for name, value in env.items()}
            result = owner.analyse(fn, env, closure, boundary=boundary, label=label, transform=transform, depth=depth)
            # and what it returns comes back with a reason in that module's file
            return owner._leaving_module(result)
        body = self.facts.bodies.get(fn)
        # a helper writes attributes where every trace that reaches it lets it (a method a flax nnx transform's
        # function calls, `model(x)` inside `nnx.grad(loss_fn)` under `nnx.jit`: the module's new state comes out)
        # -- only for an object the transform was given (a module captured from outside is not threaded through:
        # flax raises TraceContextError for a write to it)
        receiver = env.get(_param_name(fn.params[0][0])) if fn.is_method and fn.params else None
        inherited = not boundary and self._caller_allows_writes() and (
            receiver is None or receiver.kind is Kind.TRACED)
        if body is None:
            body = self.facts.bodies[fn] = BodyInfo(fn, allows_attribute_writes=boundary or inherited,
                                                    abstract_only=boundary)
        elif not boundary and not inherited:
            body.allows_attribute_writes = False
        if (not boundary or depth > 0) and self._calls and (body.called_from is None or
                                                            (self._kept and body.called_from_kept is None)):
            # (a transform applied inside traced code is traced within the trace around it)
            call, caller = self._calls[-1]
            if caller is not fn and caller in self.facts.bodies:
                body.note_call(CallSite(call, caller, self.facts, self.path), self._kept)
        if fn.is_method and fn.params and not body.outer_self:
            receiver = env.get(_param_name(fn.params[0][0]))
            body.outer_self = receiver is None or not receiver.fresh
        if boundary:
            body.boundary = True
            if (transform is None or transform.name not in jax_api.RETRACES_EVERY_CALL) and not self._fresh:
                body.keeps_trace = True
            if label not in body.labels:
                body.labels.append(label)
            if transform is None or not transform.allows_attribute_writes:
                body.allows_attribute_writes = False
            if transform is None or not transform.abstract:
                body.abstract_only = False
        closure_key = None
        if closure is not None:
            closure_key = tuple(sorted((k, v.kind) for k, v in closure.env.items() if v.kind))
        if self._guards:
            closure_key = (closure_key, tuple(sorted(self._guards.items())))
        if fn in self._jit_flag_readers:
            closure_key = (closure_key, self._jit_on)
        outer_cached = self._cached
        stages, self._boundary_stages = self._boundary_stages, True
        if boundary and depth > 0 and stages and (transform is None or (
                transform.name not in jax_api.RETRACES_EVERY_CALL and transform.name not in jax_api.NON_STAGING)):
            self._cached = True  # a lax body or a jit inside traced code: cached with the trace around it
        body.cached = body.cached or self._kept
        body.staged = body.staged or self._cached
        body.kept_across_calls = body.kept_across_calls or (self._kept and not self._per_call)
        if boundary or not self._initialising:
            body.outside_initialisation = True
        key = (fn.node, tuple(sorted((k, v.kind, v.func is not None, v.traced_array, v.not_none, _const_key(v),
                                      _class_key(v)) for k, v in env.items())), closure_key, boundary, self._cached)
        if key in self.memo:
            self._cached = outer_cached
            self.memo_hit = True  # (the result, its reasons included, is the first call's)
            return self.memo[key]
        self.memo_hit = False
        if key in self.active or depth > MAX_DEPTH:
            self._cached = outer_cached
            return MAYBE
        self.active.add(key)
        try:
            env = self._leaves_by_use(fn, env)
            frame = Frame(fn, dict(env), closure, depth)
            for p, _kind in fn.params:
                frame.env.setdefault(_param_name(p), STATIC)
            node = fn.node
            if isinstance(node, cst.Lambda):
                result = self.ev(node.body, frame)
            else:
                self.exec_body(node.body, frame)
                result = frame.returns if frame.returns is not None else STATIC
        finally:
            self.active.discard(key)
            self._cached = outer_cached
        self.memo[key] = result
        return result

    def names_class(self, expr: cst.BaseExpression) -> bool:
        """Whether ``expr`` (a name or dotted name read in this module) is a class of the checked code:
        of this module, or of another module of the project it imports."""
        return class_named(expr, self.index, self.path, self.project) is not None

    def _base_classes(self, cls: str) -> List[ClassInfo]:
        return [base.index.classes[base.name] for base in Definition(self.index, self.path, cls, self.project)
                .base_classes()]

    def _owner_of(self, fn: FunctionInfo) -> "Analyzer":
        """The analyzer of the module that defines ``fn``: this one, or another module's of the project."""
        if fn.node in self.index.infos or self.project is None:
            return self
        return self.project.analyzer_of(fn) or self

    def _leaving_module(self, value: Value, depth: int = 0) -> Value:
        """``value`` handed to another module's code, or returned to it: its reason names this module's
        file, and so do those of its parts (a tuple's items, a sequence's element: ``f(x)[2]`` is
        explained by the item's own chain)."""
        reason = value.reason
        changes: Dict[str, Any] = {}
        if reason is not None and reason.module is None:
            changes["reason"] = Reason(reason.node, reason.text, reason.parent, module=self.index.module,
                                       path=self.path)
        if depth < 3:
            for part in ("items", "head", "tail"):
                values = getattr(value, part)
                if values:
                    marked = tuple(self._leaving_module(v, depth + 1) for v in values)
                    if any(m is not v for m, v in zip(marked, values)):
                        changes[part] = marked
            if value.element is not None:
                element = self._leaving_module(value.element, depth + 1)
                if element is not value.element:
                    changes["element"] = element
        return replace(value, **changes) if changes else value

    def _leaves_by_use(self, fn: FunctionInfo, env: Dict[str, Value]) -> Dict[str, Value]:
        """Parameters the body uses as numbers anywhere (``while x: x = x - 1``) are leaves from the
        start: the value they hold on entry is what that arithmetic first runs on."""
        candidates = [k for k, v in env.items() if v.kind is Kind.TRACED and not v.traced_array
                      and not v.container and v.items is None]
        if not candidates:
            return env
        numeric = self._numeric_names.get(fn)
        if numeric is None:
            numeric = self._numeric_names[fn] = numeric_uses(fn.node)
        hits = [k for k in candidates if k in numeric]
        if not hits:
            return env
        env = dict(env)
        for k in hits:
            env[k] = replace(env[k], leaf=True, element=None, mapping=False)
        return env

    # =========================================================== statements
    def exec_body(self, body: cst.BaseSuite, frame: Frame) -> Optional[Dict[str, Value]]:
        stmts = body.body
        return self.exec_block(stmts, frame)

    def exec_block(self, stmts: Sequence[cst.CSTNode], frame: Frame) -> Optional[Dict[str, Value]]:
        live = reachable_count(stmts)
        if live < len(stmts):
            self.facts.dead_blocks.update(stmts[live:])  # never run: nothing there is reported
            stmts = stmts[:live]
        initialising = 0
        try:
            for i, stmt in enumerate(stmts):
                self.facts.live_blocks.add(stmt)
                try:
                    goes_on = self.exec_stmt(stmt, frame)
                except _Terminated:
                    goes_on = False
                if not goes_on:
                    # the rest of the block does not run here (in this trace: another may run it)
                    self.facts.dead_blocks.update(stmts[i + 1:])
                    return None
                if not initialising and type(stmt) is cst.If and self._returns_once_set(stmt, stmts[i + 1:], frame):
                    initialising = 1
                    self._initialising += 1
                    self.facts.initialising.update(stmts[i + 1:])
            return frame.env
        finally:
            self._initialising -= initialising

    def _returns_once_set(self, stmt: cst.If, rest: Sequence[cst.CSTNode], frame: Frame) -> bool:
        """``if G: return`` (``if G is not None: return G``, ``if key in G: return G[key]``) on a module
        global ``G`` that the statements after it set (``G = True``, ``G[key] = ...``; also inside a
        ``with``, which runs its body, or a ``try``): they run while ``G`` is unset, and set it, so once -- a lazy
        initialisation written as an early return, as ``if G is None: G = ...`` is one."""
        if stmt.orelse is not None or not ends_path(stmt.body) or not rest:
            return False
        test = stmt.test
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            # `if not force and G is not None: return G`, `force` known False where the function runs: the
            # parts of an `and` known true leave the state test alone
            unknown = [part for part in boolean_operands(test, and_only=True) if not self._known_true(part, frame)]
            if len(unknown) != 1:
                return False
            test = unknown[0]
        memo = self._own_memo_test(test, frame, unset=False)
        if memo is not None:
            # `if key in self._cache: return self._cache[key]`, then `self._cache[key] = ...`: the object's memo
            return self._sets_own_attribute(rest, memo[0], memo[1])
        found = (test.value, None) if isinstance(test, cst.Name) else state_test(test, self.index.module, unset=False)
        if found is None:
            return False
        name, key = found
        return self._guarded_global(name, frame) and self._sets_global(rest, frame.fn, name, key, depth=0)

    @staticmethod
    def _known_true(expr: cst.BaseExpression, frame: Frame) -> bool:
        """``flag`` or ``not flag`` whose value the frame knows (a parameter left at its default) is true;
        read from the frame, not evaluated (which would record facts before the statement runs)."""
        negated = isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not)
        name = expr.expression if negated else expr  # type: ignore[attr-defined]
        value = frame.env.get(name.value) if isinstance(name, cst.Name) else None
        return value is not None and value.known and bool(value.const) is not negated

    def _branch(self, block: Optional[cst.CSTNode], frame: Frame, env: Dict[str, Value]) -> Optional[Dict[str, Value]]:
        saved = frame.env
        frame.env = dict(env)
        try:
            if block is None:
                return frame.env
            if isinstance(block, cst.If):
                ok = self.exec_stmt(block, frame)
                return frame.env if ok else None
            inner = block.body
            if isinstance(inner, cst.BaseSuite):
                inner = inner.body
            return self.exec_block(inner, frame)
        finally:
            frame.env = saved

    @staticmethod
    def _join_envs(envs: Sequence[Optional[Dict[str, Value]]]) -> Optional[Dict[str, Value]]:
        live = [e for e in envs if e is not None]
        if not live:
            return None
        out = dict(live[0])
        for env in live[1:]:
            for k, v in env.items():
                out[k] = join(out.get(k), v)
        return out

    def exec_stmt(self, stmt: cst.CSTNode, frame: Frame) -> bool:
        """Run one statement; False when the path ends (return, raise, break)."""
        run = self._STATEMENTS.get(type(stmt))
        return run(self, stmt, frame) if run is not None else True

    def _exec_simple_statements(self, stmt: Union[cst.SimpleStatementLine, cst.SimpleStatementSuite],
                                frame: Frame) -> bool:
        return self.exec_block(stmt.body, frame) is not None

    def _exec_if(self, stmt: cst.If, frame: Frame) -> bool:
        test = self.ev(stmt.test, frame)
        env = frame.env
        body_env, else_env = self._narrowed(stmt.test, env)
        orelse = stmt.orelse
        truth = bool(test.const) if test.known else None
        if truth is None:
            truth = self._guarded_truth(stmt.test, frame)
        # a test known under tracing (a static flag left at its default, `x is None` for an
        # array) decides the branch when the function is traced: the other one is not run
        if truth is False:
            self.facts.dead_blocks.add(stmt.body)
        else:
            self.facts.live_blocks.add(stmt.body)
        if orelse is not None:
            (self.facts.dead_blocks if truth is True else self.facts.live_blocks).add(orelse)
        initialising = truth is not False and self._initialises(stmt, frame)
        if initialising:
            self.facts.initialising.add(stmt.body)
            self._initialising += 1
        try:
            after_body = self._branch(stmt.body, frame, body_env) if truth is not False else None
        finally:
            self._initialising -= initialising
        if truth is True:
            after_else = None
        else:
            after_else = self._branch(orelse.body if isinstance(orelse, cst.Else) else orelse, frame, else_env) \
                if orelse else dict(else_env)
        return self._continue_with(self._join_envs([after_body, after_else]), frame)

    def _eager_here(self) -> bool:
        """JAX operations here run eagerly on what does not derive from the traced arguments: inside
        ``jax.ensure_compile_time_eval()``, or in a trace that is not staged out (a vmap alone: only
        the mapped values are tracers, an operation on a closed-over array gives a concrete one)."""
        return bool(self.compile_time_eval) or not self._cached

    def _guarded_truth(self, test: cst.BaseExpression, frame: Frame) -> Optional[bool]:
        """The truth of ``test`` where it is a condition known where the trace started (see
        ModuleIndex.guards_at), and none of its names is a local of the code tested in; or where it
        asks whether jit is disabled (``jax.config.jax_disable_jit``) in code that only a jit or a
        lax function traces: with jit disabled they run it eagerly, so where it is traced the answer
        is no (``vmap`` and ``grad`` trace either way)."""
        negated = False
        while True:
            truth = self._guards.get(condition_key(self.index.module, test)) if self._guards else None
            if truth is not None:
                # (the same code naming a local of the code tested in is another condition)
                return None if any(n.value in frame.env for n in name_references(test)) else truth != negated
            if self._jit_on is not None and _asks_disable_jit(self.index.qualify, test):
                self._jit_flag_readers.add(frame.fn)
                # (a vmap or grad traces with jit disabled too: unknown there)
                return negated if self._jit_on else None
            if not (isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)):
                return None
            test, negated = test.expression, not negated

    def _exec_for(self, stmt: cst.For, frame: Frame) -> bool:
        iterable = self.ev(stmt.iter, frame)
        element = self.element_of(iterable, stmt.iter)
        if element.kind is Kind.TRACED and not iterable.traced_array \
                and _looks_up_by_element(stmt.target, stmt.iter, [stmt.body]):
            # `for k in batch["inputs"]: ... batch["inputs"][k]`: what is looked up by its own elements is a
            # mapping (an array indexed by its rows, a list by its items, is not code anyone writes), and the
            # keys of a dict in a pytree are its structure: Python values
            element = STATIC
        return self._loop(stmt, frame, lambda: self.bind(stmt.target, element, frame),
                          completes=not self._ends_at_a_tracer(stmt, iterable))

    def _ends_at_a_tracer(self, stmt: cst.For, iterable: Value) -> bool:
        """``for leaf in jax.tree.leaves(t): if isinstance(leaf, Tracer): return True``: over values
        among which is a tracer (the leaves of a pytree that holds one), a loop whose body is one
        ``if`` on the element's type that holds for a tracer (decided as ``any(...)`` of the same test
        is, see :meth:`_instance_test_of_each`), and whose block returns or raises, ends at the tracer:
        it never runs to its end (what follows it runs only where nothing in it is a tracer)."""
        body = stmt.body.body
        if not iterable.yields_tracer or stmt.orelse is not None or not isinstance(stmt.target, cst.Name) \
                or len(body) != 1 or not isinstance(body[0], cst.If) or body[0].orelse is not None \
                or not ends_path(body[0].body):
            return False
        # the loop as the generator `any(test for leaf in leaves)` over the same values
        gen = cst.GeneratorExp(elt=body[0].test, for_in=cst.CompFor(target=stmt.target, iter=stmt.iter))
        self._generator_iterables[gen] = iterable
        try:
            return self._instance_test_of_each("any", gen) is True
        finally:
            del self._generator_iterables[gen]

    def _exec_while(self, stmt: cst.While, frame: Frame) -> bool:
        return self._loop(stmt, frame, lambda: self.ev(stmt.test, frame))

    def _exec_with(self, stmt: cst.With, frame: Frame) -> bool:
        concrete = False
        for item in stmt.items:
            value = self.ev(item.item, frame)
            if item.asname is not None:
                self.bind(item.asname.name, value if value.kind else STATIC, frame)
            call = item.item
            if isinstance(call, cst.Call) and (self.index.qualify(call.func) or "").endswith(
                    "ensure_compile_time_eval"):
                concrete = True
        self.compile_time_eval += concrete
        try:
            env = self._branch(stmt.body, frame, frame.env)
        finally:
            self.compile_time_eval -= concrete
        return self._continue_with(env, frame)

    def _exec_try(self, stmt: cst.Try, frame: Frame) -> bool:
        start = dict(frame.env)
        # `try: n = int(np.asarray(x)) except TypeError: return`: on a tracer the conversion
        # raises and the handler runs, so a conversion that goes on gave a concrete value
        catches = any(handler_catches(h, jax_api.TYPE_ERRORS, named=self.index.exception_classes)
                      for h in stmt.handlers)
        self.conversions_caught += catches
        try:
            after_body = self._branch(stmt.body, frame, start)
        finally:
            self.conversions_caught -= catches
        handler_start = self._join_envs([start, after_body]) or start
        outs = []
        if stmt.orelse is not None:
            # the `else` runs only when the body ends normally: not after a conversion of a tracer
            # that the handlers catch (`try: r = float(x) except Exception: ... else: <eager only>`)
            (self.facts.live_blocks if after_body is not None else self.facts.dead_blocks).add(stmt.orelse)
        if stmt.orelse is not None and after_body is not None:
            outs.append(self._branch(stmt.orelse.body, frame, after_body))
        else:
            outs.append(after_body)
        for handler in stmt.handlers:
            if handler.type is not None:
                self.ev(handler.type, frame)
            henv = dict(handler_start)
            if handler.name is not None:
                for name in assigned_names(handler.name.name):
                    henv[name.value] = STATIC
            outs.append(self._branch(handler.body, frame, henv))
        joined = self._join_envs(outs)
        if stmt.finalbody is not None:
            fin = self._branch(stmt.finalbody.body, frame, joined if joined is not None else handler_start)
            if fin is None:
                return False
            if joined is not None:
                joined = self._join_envs([joined, fin])
        return self._continue_with(joined, frame)

    def _exec_function_def(self, stmt: cst.FunctionDef, frame: Frame) -> bool:
        self._define_function(stmt, frame)
        return True

    def _exec_class_def(self, stmt: cst.ClassDef, frame: Frame) -> bool:
        frame.env[stmt.name.value] = STATIC
        return True

    def _exec_match(self, stmt: cst.Match, frame: Frame) -> bool:
        self.ev(stmt.subject, frame)
        env = frame.env
        outs = [self._branch(case.body, frame, env) for case in stmt.cases]
        outs.append(dict(env))
        return self._continue_with(self._join_envs(outs), frame)

    def _initialises(self, stmt: cst.If, frame: Frame) -> bool:
        """``if G is None:`` / ``if key not in G:`` on a module global ``G``, whose branch sets ``G``
        (``G[key]``) in a statement of its own (not under another test), or calls a function of this
        module that does."""
        # `if not G and ...:`, `if hit is None and key not in G:`: a branch under `and` runs only while
        # each conjunct holds, so a conjunct that tests G unset guards it as a test of its own does
        conjuncts, pending = [], [stmt.test]
        while pending:
            test = pending.pop()
            if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
                pending += [test.right, test.left]
            else:
                conjuncts.append(test)
        return any(self._initialises_by(test, stmt, frame) for test in conjuncts)

    def _initialises_by(self, test: cst.BaseExpression, stmt: cst.If, frame: Frame) -> bool:
        """``test`` (``stmt``'s test, or a conjunct of it) says a global is unset, and ``stmt``'s branch
        sets it (see :meth:`_initialises`)."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) \
                and isinstance(test.expression, cst.Name):
            # `if not G: ...; G = True`: a latch, set on the first run (a warn-once flag)
            name = test.expression.value
            return self._guarded_global(name, frame) and self._sets_global(stmt.body, frame.fn, name, None, depth=0)
        if isinstance(test, cst.UnaryOperation):
            # `if not DONE[0]: ...; DONE[0] = True`: the latch kept in a module list or dict
            found = state_test(test, self.index.module, unset=True)
            return found is not None and self._guarded_global(found[0], frame) \
                and self._sets_global(stmt.body, frame.fn, found[0], found[1], depth=0)
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return False
        op, right = test.comparisons[0].operator, test.comparisons[0].comparator
        own = self._own_attribute(test.left, frame) if isinstance(op, cst.Is) and isinstance(right, cst.Name) \
            and right.value == "None" else None
        if own is not None:
            # `if self._cache is None: self._cache = ...`: the object's lazy cache, filled on first use
            return self._sets_own_attribute(stmt.body, own)
        memo = self._own_memo_test(test, frame, unset=True)
        if memo is not None:
            # `if key not in self._cache: self._cache[key] = ...`: the object's memo, filled once per key
            return self._sets_own_attribute(stmt.body, memo[0], memo[1])
        found = state_test(test, self.index.module, unset=True)
        if found is None:
            return False
        name, key = found
        alias = frame.fn.scope.single_value(name) if frame.fn.scope.is_local(name) else None
        if isinstance(alias, cst.Name):
            name = alias.value  # `backend = _BACKEND` then `if backend is None:`
        elif alias is not None:
            return False
        return self._guarded_global(name, frame) and self._sets_global(stmt.body, frame.fn, name, key, depth=0)

    @staticmethod
    def _own_attribute(node: cst.BaseExpression, frame: Frame) -> Optional[str]:
        """``attr`` for ``self.attr`` (or ``getattr(self, "attr", None)``) in a method, ``self`` its first
        parameter."""
        fn = frame.fn
        if not (fn.is_method and fn.params):
            return None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "getattr" \
                and len(node.args) in (2, 3) and not any(a.keyword or a.star for a in node.args):
            name = string_value(node.args[1].value)
            owner, attr = node.args[0].value, name if isinstance(name, str) else None
        elif isinstance(node, cst.Attribute):
            owner, attr = node.value, node.attr.value
        else:
            return None
        first = fn.params[0][0].name.value
        if attr is None or not isinstance(owner, cst.Name) or owner.value != first \
                or any(b.kind is not BindingKind.PARAMETER for b in fn.scope.bindings_of(first)):
            return None  # (`self` rebound in the method is some other object)
        return attr

    def _own_memo_test(self, test: cst.BaseExpression, frame: Frame, unset: bool) -> Optional[Tuple[str, str]]:
        """``key not in self.C`` (``unset``) or ``key in self.C``: the attribute ``C`` and the key's code."""
        if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
            return None
        op, right = test.comparisons[0].operator, test.comparisons[0].comparator
        if not isinstance(op, cst.NotIn if unset else cst.In):
            return None
        own = self._own_attribute(right, frame)
        return (own, self.index.module.code_for_node(test.left)) if own is not None else None

    def _sets_own_attribute(self, block: Union[cst.BaseSuite, Sequence[cst.CSTNode]], attr: str,
                            key: Optional[str] = None) -> bool:
        """A statement at the top of ``block`` (a block or its statements) assigns ``self.<attr>`` (with
        ``key``: stores ``self.<attr>[key]``)."""
        module = self.index.module
        for stmt in block if isinstance(block, (list, tuple)) else block.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if not isinstance(small, cst.Assign):
                        continue
                    for t in small.targets:
                        target = t.target
                        if key is not None:
                            if not (isinstance(target, cst.Subscript) and len(target.slice) == 1
                                    and isinstance(target.slice[0].slice, cst.Index)
                                    and module.code_for_node(target.slice[0].slice.value) == key):
                                continue
                            target = target.value
                        if isinstance(target, cst.Attribute) and target.attr.value == attr \
                                and isinstance(target.value, cst.Name):
                            return True
        return False

    def _guarded_global(self, name: str, frame: Frame) -> bool:
        """``name`` read in the guard is a module global holding a value (not a function or import)."""
        if frame.fn.scope.resolve(name) is not self.index.scope_model.module_scope:
            return False
        info = self.index.globals.get(name)
        return info is not None and info.kind == "value"

    def _sets_global(self, block: Union[cst.BaseSuite, Sequence[cst.CSTNode]], fn: FunctionInfo, name: str,
                     key: Optional[str], depth: int) -> bool:
        """A statement at the top of ``block`` (in ``fn``; a block or its statements) assigns global
        ``name`` (``name[key]``, ``name.add(key)``), or calls a function of this module whose body does
        at its top; the bodies of a ``with`` and a ``try`` there are at the top too."""
        module = self.index.module
        statements = block if isinstance(block, (list, tuple)) else block.body
        for stmt in statements:
            # an `if` whose every branch sets it (`if backend == "gpu": G = a` / `else: G = b`) sets it
            branch: Optional[cst.CSTNode] = stmt
            branches = []
            while isinstance(branch, cst.If):
                branches.append(branch.body)
                branch = branch.orelse
            if branches and isinstance(branch, cst.Else) and all(
                    self._sets_global(b, fn, name, key, depth) for b in branches + [branch.body]):
                return True
        for small in top_small_statements(statements):
            if stores_state(small, name, key, module) and (key is not None or name in fn.global_names):
                return True
            call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if isinstance(call, cst.Call) and self._call_sets_global(call, fn, name, key, depth):
                return True
        return False

    def _call_sets_global(self, call: cst.Call, fn: FunctionInfo, name: str, key: Optional[str], depth: int) -> bool:
        """``call`` (made in ``fn``) runs a function of this module that sets global ``name`` (see
        :meth:`_sets_global`)."""
        if depth >= 3:
            return False
        callee, bound = self.index.resolve_function(call.func, fn, fn.cls)
        if callee is None or isinstance(callee.node, cst.Lambda) or bound:
            return False
        inner_key = None if key is None else self._parameter_receiving(call, callee, key)
        return (key is None or inner_key is not None) \
            and self._sets_global(callee.node.body, callee, name, inner_key, depth + 1)

    def _parameter_receiving(self, call: cst.Call, callee: FunctionInfo, code: str) -> Optional[str]:
        """The parameter of ``callee`` that ``call`` passes the expression ``code`` to."""
        for arg, param in bind_arguments(callee.params, call.args):
            if param is not None and self.index.module.code_for_node(arg.value) == code:
                return param.name.value
        return None

    @staticmethod
    def _continue_with(env: Optional[Dict[str, Value]], frame: Frame) -> bool:
        """Go on after a compound statement with ``env``, the join of its ways out; False when none
        goes on."""
        if env is None:
            return False
        frame.env = env
        return True

    def _narrowed(self, test: cst.BaseExpression, env: Dict[str, Value]):
        """Environments for the two arms of ``if test``, with the names the test proves concrete made
        static.

        A tracer is an instance of ``jax.Array`` and of JAX's ``Tracer`` class, and of no type that
        holds a concrete value: not Python's scalars and strings, nor NumPy's scalar
        types and ``ndarray`` (all checked under jit, vmap and grad on JAX 0.10.2). So where
        ``isinstance(x, float)`` or ``isinstance(x, np.float32)`` holds, and where
        ``isinstance(x, Tracer)`` or ``isinstance(x, jax.Array)`` fails, ``x`` is no tracer: the
        code's own test sends array tracers the other way.  A pytree of tracers is neither class:
        for ``x`` known to be one (a list of tracers, a dict, an instance) a failed ``jax.Array``
        test proves nothing; of a value of unknown structure the analysis takes the test's word,
        as it does for ``Tracer``."""
        when_true, when_false = self._concrete_names(test, env)
        env_true = self._of_tested_class(test, self._made_static(env, when_true))
        env_false = self._made_static(env, when_false)
        is_none_test = none_test(test)
        if is_none_test is not None:  # `x is None`: where it fails, `x` is not None (and the converse)
            name, is_none = is_none_test
            where_not = env_false if is_none else env_true
            value = where_not.get(name)
            if value is not None and not value.not_none:
                where_not = dict(where_not)
                where_not[name] = replace(value, not_none=True)
                env_true, env_false = (env_true, where_not) if is_none else (where_not, env_false)
        return env_true, env_false

    def _of_tested_class(self, test: cst.BaseExpression, env: Dict[str, Value]) -> Dict[str, Value]:
        """Where ``isinstance(x, C)`` holds (alone or in an ``and``), a traced ``x`` is an instance of
        ``C``: of a class of the checked code, its static fields and properties are what the class
        says; of ``dict`` (a mapping type, or a tuple of them), a dict of tracers, whose keys (what
        iterating it gives) are hashable and so never tracers (``{key: f(x[key]) for key in x}``)."""
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._of_tested_class(test.right, self._of_tested_class(test.left, env))
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
            return env
        name = test.args[0].value.value
        value = env.get(name)
        if value is None or value.kind is not Kind.TRACED:
            return env
        types = _type_alternatives(test.args[1].value)
        if types and all(self._mapping_type(t) for t in types) and not value.mapping and value.items is None:
            narrowed = Value(Kind.TRACED, value.reason, container=True, mapping=True, element=STATIC,
                             pytree_class=value.pytree_class, static_keys=value.static_keys)
        else:
            narrowed = self._as_tested_instance(value, test.args[1].value)
        if narrowed is value:
            return env
        out = dict(env)
        out[name] = narrowed
        return out

    def _as_tested_instance(self, value: Value, tested: cst.BaseExpression) -> Value:
        """Where ``isinstance(x, C)`` holds, ``x`` is an instance of ``C``, whatever it was taken for
        before the test (an instance of another class, the field of a wrapper read on one path and the
        wrapper itself on the other, a container): the branch runs only for instances of ``C``, so its
        static fields are what ``C`` declares."""
        if value.kind is not Kind.TRACED:
            return value
        if value.pytree_class is None and not value.container and value.items is None:
            return self._as_instance(value, tested)
        facts = self._annotation_facts(tested)
        if "pytree_class" not in facts or facts["pytree_class"] is value.pytree_class:
            return value
        return replace(value, static_attrs=facts["static_attrs"], pytree_class=facts["pytree_class"],
                       graph_node=facts["graph_node"], is_array=False, leaf=False, container=False,
                       mapping=False, items=None, head=(), tail=(), element=None, static_keys=frozenset())

    def _mapping_type(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Name) and node.value == "dict":
            return self.index.qualify(node) is None  # the builtin, not a name the module binds
        return self.index.qualify(node) in jax_api.MAPPING_TYPES

    @staticmethod
    def _made_static(env: Dict[str, Value], names: frozenset) -> Dict[str, Value]:
        if not names:
            return env
        out = dict(env)
        for name in names:
            out[name] = STATIC
        return out

    def _concrete_names(self, test: cst.BaseExpression, env: Dict[str, Value]) -> Tuple[frozenset, frozenset]:
        """The names ``test`` proves concrete where it holds, and where it fails: ``not`` swaps the
        two, ``a and b`` holds where both hold and fails where either may, ``or`` the converse."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            when_true, when_false = self._concrete_names(test.expression, env)
            return when_false, when_true
        if isinstance(test, cst.BooleanOperation):
            left_true, left_false = self._concrete_names(test.left, env)
            right_true, right_false = self._concrete_names(test.right, env)
            if isinstance(test.operator, cst.And):
                return left_true | right_true, left_false & right_false
            return left_true & right_true, left_false | right_false
        if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value in ("any", "all") \
                and len(test.args) == 1 and isinstance(test.args[0].value, cst.GeneratorExp):
            return self._concrete_names_of_each(test.func.value, test.args[0].value, env)
        exact = self._exact_type_test(test, env)
        if exact is not None:
            return exact
        predicate = self._type_predicate(test)
        if predicate is not None:  # `_has_tracer(w)`, a function of the module that returns a type test
            body, renamed = predicate
            inner_env = {param: env[arg] for param, arg in renamed.items() if arg in env}
            when_true, when_false = self._concrete_names(body, inner_env)
            return (frozenset(renamed[p] for p in when_true if p in renamed),
                    frozenset(renamed[p] for p in when_false if p in renamed))
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value in ("isinstance",
                                                                                                   "hasattr")
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)):
            return _NOTHING, _NOTHING
        name = test.args[0].value.value
        if name not in env or env[name].kind is Kind.STATIC:
            return _NOTHING, _NOTHING
        if test.func.value == "hasattr":
            # `hasattr(x, "shape")` asks whether `x` is an array (a tuple, a dict or a number has no
            # shape): where it fails, of a value of unknown structure the test's word is taken, as
            # for `isinstance(x, jax.Array)` (`if hasattr(s, "shape"): s = s.shape` then `int(s[0])`)
            asks_array = string_value(test.args[1].value) in _ARRAY_ONLY_ATTRIBUTES \
                and self.facts.read_scope.get(test.func) == "builtin"
            return (_NOTHING, frozenset((name,))) if asks_array and not _known_structure(env[name]) \
                else (_NOTHING, _NOTHING)
        types = self._instance_types(test.args[1].value)
        if types == "concrete":
            return frozenset((name,)), _NOTHING
        if types == "tracer" or (types in ("jax array", "some jax array") and not _known_structure(env[name])):
            return _NOTHING, frozenset((name,))
        return _NOTHING, _NOTHING

    def _exact_type_test(self, test: cst.BaseExpression,
                         env: Dict[str, Value]) -> Optional[Tuple[frozenset, frozenset]]:
        """``type(x) is str`` (``==``, ``in (int, float)``; ``is not``, ``!=``, ``not in`` the other way):
        where the type of ``x`` is one that holds only concrete values, ``x`` is no tracer (a tracer's
        type is JAX's tracer class), as ``isinstance(x, str)`` says."""
        if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
                and isinstance(test.left, cst.Call) and isinstance(test.left.func, cst.Name)
                and test.left.func.value == "type" and len(test.left.args) == 1
                and isinstance(test.left.args[0].value, cst.Name)
                and self.facts.read_scope.get(test.left.func) == "builtin"):
            return None
        name = test.left.args[0].value.value
        op = test.comparisons[0].operator
        if name not in env or env[name].kind is Kind.STATIC \
                or self._instance_types(test.comparisons[0].comparator) != "concrete":
            return None
        proven = frozenset((name,))
        if isinstance(op, (cst.Is, cst.Equal, cst.In)):
            return proven, _NOTHING
        if isinstance(op, (cst.IsNot, cst.NotEqual, cst.NotIn)):
            return _NOTHING, proven
        return None

    def _type_predicate(self, test: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, Dict[str, str]]]:
        """``_has_tracer(w)``: a call, with names as arguments, of a module-level function whose body is
        one ``return`` of a type test (``return isinstance(value, jax.core.Tracer)``), after any number
        of ``if <test>: return True`` (``if isinstance(v, jax.Array): return True``, then ``return
        isinstance(v, list) and any(...)``): the test (those joined by ``or``), and its parameters each
        mapped to the name the call passes. The test then says of those names what it says of the
        parameters."""
        if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.args
                and all(isinstance(a.value, cst.Name) and a.keyword is None and not a.star for a in test.args)):
            return None
        info = self.index.functions.get(test.func.value)
        if info is None or not isinstance(info.node, cst.FunctionDef) or info.parent is not None \
                or self.index.globals.get(test.func.value) is None \
                or self.index.globals[test.func.value].assignments > 1:
            return None
        statements = [s for s in info.node.body.body if not is_docstring(s)]
        tests: List[cst.BaseExpression] = []
        for stmt in statements[:-1]:  # `if isinstance(v, jax.Array): return True`, ...
            if not (isinstance(stmt, cst.If) and stmt.orelse is None and len(stmt.body.body) == 1):
                return None
            only = stmt.body.body[0]
            returned = only.body[0].value if isinstance(only, cst.SimpleStatementLine) and len(only.body) == 1 \
                and isinstance(only.body[0], cst.Return) else None
            if not (isinstance(returned, cst.Name) and returned.value == "True"):
                return None
            tests.append(stmt.test)
        if not statements or not isinstance(statements[-1], cst.SimpleStatementLine) \
                or len(statements[-1].body) != 1 or not isinstance(statements[-1].body[0], cst.Return) \
                or statements[-1].body[0].value is None:
            return None
        positional = [p for p, kind in info.params if kind in ("posonly", "positional")]
        if len(test.args) > len(positional):
            return None
        renamed = {_param_name(p): a.value.value for p, a in zip(positional, test.args)}
        # the call is true where one of the tests returning True holds, or the last return is true
        result: cst.BaseExpression = statements[-1].body[0].value
        for early in reversed(tests):
            result = cst.BooleanOperation(left=early, operator=cst.Or(), right=result)
        return result, renamed

    def _concrete_names_of_each(self, how: str, gen: cst.GeneratorExp,
                                env: Dict[str, Value]) -> Tuple[frozenset, frozenset]:
        """``any(isinstance(v, Tracer) for v in (a, b))`` fails only where every one of ``a`` and
        ``b`` is concrete; ``all(isinstance(v, float) for v in (a, b))`` holds only there."""
        listed = _over_listed(gen)
        if listed is None:
            return _NOTHING, _NOTHING
        var, items = listed
        # the names listed (an attribute or a call listed with them is decided about no name)
        names = [item.value for item in items if isinstance(item, cst.Name)]
        if not names:
            return _NOTHING, _NOTHING
        proven: List[Tuple[frozenset, frozenset]] = []
        for name in names:
            if name not in env or env[name].kind is Kind.STATIC:
                proven.append((frozenset((name,)), frozenset((name,))))  # concrete either way
                continue
            single = {var: env[name]}
            when_true, when_false = self._concrete_names(gen.elt, single)
            proven.append((frozenset((name,)) if var in when_true else _NOTHING,
                           frozenset((name,)) if var in when_false else _NOTHING))
        if how == "any":  # fails only where each fails
            fails = [f for _, f in proven]
            return _NOTHING, frozenset().union(*fails) if all(fails) else _NOTHING
        holds = [t for t, _ in proven]  # all: holds only where each holds
        return frozenset().union(*holds) if all(holds) else _NOTHING, _NOTHING

    def _instance_types(self, node: cst.BaseExpression) -> Optional[str]:
        """``"concrete"`` when every type ``isinstance`` is given (a tuple of them, nested, or an
        ``A | B`` union) holds only concrete values, ``"tracer"`` when every one is JAX's tracer
        class, ``"jax array"`` when every one is JAX's array type, ``"some jax array"`` when one is
        (among others), else None."""
        elements = _type_alternatives(node)
        if not elements:
            return None
        texts = [self.index.module.code_for_node(el) for el in elements]
        if all(text in jax_api.PYTHON_VALUE_TYPES or jax_api.holds_no_tracer(self.index.qualify(el) or "")
               for el, text in zip(elements, texts)):
            return "concrete"
        if all("Tracer" in text for text in texts):
            return "tracer"
        if all(self.index.qualify(el) in jax_api.JAX_ARRAY_TYPES for el in elements):
            return "jax array"
        if any(self.index.qualify(el) in jax_api.JAX_ARRAY_TYPES for el in elements):
            # `isinstance(x, (jnp.ndarray, np.ndarray))`: holds for every array tracer (and for other
            # values too), so where it fails `x` is no array tracer
            return "some jax array"
        return None

    def _loop(self, stmt, frame: Frame, at_head, completes: bool = True) -> bool:
        """A loop to its fixed point; without ``completes`` it never runs to its end (it is left by a
        ``break``, or the function by a ``return``), so only its breaks lead past it."""
        head = dict(frame.env)
        breaks: List[Dict[str, Value]] = []
        exit_env = head
        for _ in range(LOOP_ROUNDS):
            frame.env = dict(head)
            frame.loops.append(([], []))
            at_head()
            head_after_test = dict(frame.env)
            end = self._branch(stmt.body, frame, frame.env)
            brk, cont = frame.loops.pop()
            breaks.extend(brk)
            new_head = self._join_envs([head, end] + cont) or head
            exit_env = head_after_test
            if same_kinds(new_head, head):
                break
            head = new_head
        if not completes:
            joined = self._join_envs(breaks)
            if joined is None:
                return False
            frame.env = joined
            return True
        frame.env = exit_env
        orelse_env = self._branch(stmt.orelse.body, frame, exit_env) if stmt.orelse is not None else exit_env
        joined = self._join_envs([orelse_env] + breaks)
        if joined is None:
            return False
        frame.env = joined
        return True

    # a small statement (also the body of `def f(): return g()` on one line)
    #: list methods that put an argument (by position; ``extend``: its elements) into the list
    _ADDS_ELEMENT = MappingProxyType({"append": 0, "insert": 1, "extend": 0})

    def _exec_expr(self, small: cst.Expr, frame: Frame) -> bool:
        self.ev(small.value, frame)
        call = small.value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
                and call.func.attr.value in ("update", "setdefault", "__setitem__"):
            self._forget_static_keys(call.func.value, None, frame)
        self._note_added_element(small.value, frame)
        guarded = self._concreteness_guard(small.value, frame)
        if guarded is not None:
            frame.env = self._made_static(frame.env, frozenset((guarded,)))
        return True

    def _note_added_element(self, value: cst.BaseExpression, frame: Frame) -> None:
        """``out.append(y)`` on a local list: the list now holds ``y`` (a list of tracers, which
        ``np.array(out)`` cannot convert, like the display ``[y]``).  ``d["k"].append(y)`` with ``y`` not
        a Python value: the key no longer holds Python values only."""
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                and isinstance(value.func.value, cst.Subscript) and value.func.attr.value in jax_api.MUTATING_METHODS \
                and any(self.ev(arg.value, frame).kind is not Kind.STATIC for arg in value.args):
            holder = value.func.value
            self._forget_static_keys(holder.value, holder.slice, frame)
            return
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name) and value.func.attr.value in self._ADDS_ELEMENT):
            return
        name = value.func.value.value
        holder = frame.env.get(name)
        position = self._ADDS_ELEMENT[value.func.attr.value]
        if holder is None or not holder.container or holder.mapping or len(value.args) != position + 1 \
                or value.args[position].keyword is not None or value.args[position].star:
            return
        added = self.ev(value.args[position].value, frame)
        if value.func.attr.value == "extend":
            added = added.element if added.element is not None else added
        if added.kind <= holder.kind:
            return
        element = join(holder.element, added)
        reason = Reason(value, f"`{{code}}` puts a traced value into the list `{name}`", added.reason)
        frame.env[name] = Value(added.kind, reason, element=element, container=True)

    def _concreteness_guard(self, value: cst.BaseExpression, frame: Frame) -> Optional[str]:
        """The name a statement ``concrete_or_error(None, x, msg)`` guards: JAX's check raises
        ``ConcretizationTypeError`` (with ``msg``) when ``x`` is a tracer, so the code after it runs
        only with a concrete ``x``."""
        if not (isinstance(value, cst.Call) and len(value.args) >= 2 and isinstance(value.args[1].value, cst.Name)
                and value.args[1].keyword is None):
            return None
        q = self.index.qualify(value.func) or ""
        if q.rpartition(".")[2] != "concrete_or_error" or not q.startswith("jax."):
            return None
        name = value.args[1].value.value
        return name if name in frame.env else None

    def _exec_assign(self, small: cst.Assign, frame: Frame) -> bool:
        value = self.ev(small.value, frame)
        for target in small.targets:
            self.bind(target.target, value, frame)
        return True

    def _exec_ann_assign(self, small: cst.AnnAssign, frame: Frame) -> bool:
        if small.value is not None:
            value = self.ev(small.value, frame)
            if not value.is_array:  # (`new_states: States = states.copy()`: storing an item is a dict store)
                value = self._declared_mapping(value, small.annotation.annotation)
            self.bind(small.target, value, frame)
        return True

    def _exec_aug_assign(self, small: cst.AugAssign, frame: Frame) -> bool:
        rhs = self.ev(small.value, frame)
        target = small.target
        if isinstance(target, cst.Name):
            old = self.read_name(target, frame, record=False)
            self.facts.record(target, old)
            new = strongest([old, rhs])
            if new.static_keys:  # `d |= other`
                new = replace(new, static_keys=frozenset())
            if new.kind is Kind.TRACED and new is rhs:
                new = traced(Reason(target, "`{code}` is updated with a traced value (line {line})", rhs.reason),
                             is_array=old.is_array or rhs.is_array,
                             leaf=old.traced_array or rhs.traced_array)
            self.bind(target, new, frame)
        else:
            self.ev(target, frame)
        return True

    def _exec_return(self, small: cst.Return, frame: Frame) -> bool:
        value = self.ev(small.value, frame) if small.value is not None else STATIC
        frame.returns = join(frame.returns, value)
        return False

    def _exec_raise(self, small: cst.Raise, frame: Frame) -> bool:
        if small.exc is not None:
            self.ev(small.exc, frame)
        return False

    def _exec_assert(self, small: cst.Assert, frame: Frame) -> bool:
        self.ev(small.test, frame)
        if small.msg is not None:
            self.ev(small.msg, frame)
        # past `assert isinstance(x, np.ndarray)` the test held, as type checkers take it to
        frame.env = self._narrowed(small.test, frame.env)[0]
        return True

    def _exec_break(self, small: cst.Break, frame: Frame) -> bool:
        if frame.loops:
            frame.loops[-1][0].append(dict(frame.env))
        return False

    def _exec_continue(self, small: cst.Continue, frame: Frame) -> bool:
        if frame.loops:
            frame.loops[-1][1].append(dict(frame.env))
        return False

    def _exec_import(self, small: cst.Import, frame: Frame) -> bool:
        if not isinstance(small.names, cst.ImportStar):
            for alias in small.names:
                local = alias.asname.name if alias.asname is not None else alias.name
                while isinstance(local, cst.Attribute):
                    local = local.value
                if isinstance(local, cst.Name):
                    frame.env[local.value] = STATIC
        return True

    def _exec_del(self, small: cst.Del, frame: Frame) -> bool:
        targets = small.target.elements if isinstance(small.target, (cst.Tuple, cst.List)) else [small.target]
        for target in targets:
            target = target.value if isinstance(target, cst.Element) else target
            if isinstance(target, cst.Subscript):
                self.ev(target.value, frame)  # `del CACHE[key]` reads CACHE
                for el in target.slice:
                    self._ev_slice(el.slice, frame)
            elif isinstance(target, cst.Attribute):
                self.ev(target.value, frame)
        return True

    def _define_function(self, node: cst.FunctionDef, frame: Frame) -> None:
        info = self.index.infos.get(node)
        for dec in node.decorators:
            self.ev(dec.decorator, frame)
        for p, _ in params_of(node.params):
            if p.default is not None:
                self.ev(p.default, frame)
        if info is None:
            frame.env[node.name.value] = STATIC
            return
        frame.env[node.name.value] = Value(func=info, closure=self._closure(frame))
        for entry in self.index.entries:
            if entry.function is info and entry.site in node.decorators and self.rejected_argument(entry) is None:
                env = self.entry_signature(entry)
                self.analyse(info, env, self._closure(frame), boundary=True, label=entry.label,
                             transform=entry.transform, depth=frame.depth + 1)

    def _closure(self, frame: Frame) -> Closure:
        return Closure(frame.fn, dict(frame.env), frame.closure)

    # ============================================================== binding
    def bind(self, target: cst.CSTNode, value: Value, frame: Frame) -> None:
        if isinstance(target, cst.Name):
            if value.kind is Kind.TRACED and value.reason is not None and value.reason.node is not target:
                value = replace(value, reason=Reason(target, "`{code}` is assigned a traced value on line {line}",
                                                     value.reason))
            frame.env[target.value] = value
            self.facts.record(target, value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            # each name gets its own element where its position is known: counted from the start
            # before a starred name, from the end after it (``a, *rest, n = ...``)
            elements = target.elements
            star = next((i for i, e in enumerate(elements) if isinstance(e, cst.StarredElement)), None)
            part = value.element if value.element is not None else self._part(value)
            for i, el in enumerate(elements):
                if i == star:
                    self.bind(el.value, self._starred_part(value, i, len(elements) - i - 1, part), frame)
                    continue
                if star is None:
                    item = value.at(i, len(elements))
                else:
                    item = value.at(i if i < star else i - len(elements))
                self.bind(el.value, item if item is not None else part, frame)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value, value, frame)
        elif isinstance(target, (cst.Attribute, cst.Subscript)):
            self.ev(target.value, frame)
            if isinstance(target, cst.Subscript):
                for el in target.slice:
                    self._ev_slice(el.slice, frame)
                self._forget_static_keys(target.value, target.slice, frame, value)
                self._stored_in_dict(target, value, frame)
                inner = target.value
                if isinstance(inner, cst.Subscript) and value.kind is not Kind.STATIC:
                    self._forget_static_keys(inner.value, inner.slice, frame)  # `d["k"][i] = x`

    def _stored_in_dict(self, target: cst.Subscript, value: Value, frame: Frame) -> None:
        """``res[key] = v`` with a traced ``v`` into a local Python dict (``res = {}``): the dict is
        now a pytree that holds a tracer. Its keys stay Python values; it is not an array, so where
        another path gives an array (``return res`` or ``return jnp.zeros_like(x)``) the result is
        known to be neither."""
        holder = target.value
        if value.kind is not Kind.TRACED or not isinstance(holder, cst.Name):
            return
        current = frame.env.get(holder.value)
        if current is None or current.kind is Kind.TRACED or not (current.container and current.mapping):
            return
        reason = Reason(target, "`{code}` is assigned a traced value on line {line}", value.reason)
        frame.env[holder.value] = Value(Kind.TRACED, reason, container=True, mapping=True,
                                        element=current.element if current.element is not None else STATIC,
                                        static_keys=current.static_keys)

    def _forget_static_keys(self, holder: cst.BaseExpression, where, frame: Frame,
                            stored: Optional[Value] = None) -> None:
        """``d[key] = v`` (``where``, the subscript's slice) or ``d.update(...)`` (None): the keys
        it may bind again are no longer known to hold Python values -- except the literal key of an
        item write of a Python value (``stored``) into a local dict, which now holds that value."""
        if not isinstance(holder, cst.Name):
            return
        value = frame.env.get(holder.value)
        if value is None:
            return
        key = string_value(where[0].slice.value) if where is not None and len(where) == 1 \
            and isinstance(where[0].slice, cst.Index) else None
        if key is not None and stored is not None and stored.kind is Kind.STATIC \
                and value.container and value.mapping:
            if key not in value.static_keys:
                frame.env[holder.value] = replace(value, static_keys=value.static_keys | {key})
            return
        if not value.static_keys:
            return
        frame.env[holder.value] = replace(value, static_keys=value.static_keys - {key} if key is not None
                                          else frozenset())

    @staticmethod
    def _starred_part(value: Value, before: int, after: int, part: Value) -> Value:
        """The list a starred name gets: the elements between the ``before`` first and the
        ``after`` last, where they are known."""
        if value.items is not None and len(value.items) >= before + after:
            middle = value.items[before:len(value.items) - after]
            best = strongest(middle)
            return Value(best.kind, best.reason, element=join_all(middle) if middle else None, container=True)
        return Value(part.kind, part.reason, element=part, container=True)

    @staticmethod
    def _part(value: Value) -> Value:
        if value.kind is Kind.TRACED:
            return traced(Reason(None, "unpacked from a traced value", value.reason))
        return Value(value.kind, value.reason)

    def element_of(self, iterable: Value, node: cst.CSTNode) -> Value:
        """What iterating over ``iterable`` yields (a dict's keys, a set's elements: never tracers)."""
        if iterable.element is not None:
            return iterable.element
        if iterable.items is not None:
            return join_all(iterable.items)
        if iterable.kind is Kind.TRACED and iterable.graph_node:
            return self._graph_member(iterable, node)
        if iterable.kind is Kind.TRACED:
            return traced(Reason(node, "iterating over traced `{code}` (line {line}) yields traced values",
                                 iterable.reason), foreign=iterable.foreign)
        if iterable.jax_array:
            if self._eager_here():
                return _CONCRETE_ARRAY
            return traced(Reason(node, "rows of the JAX array `{code}` are traced inside traced code"))
        return Value(iterable.kind, iterable.reason)

    # ========================================================== expressions
    def read_name(self, node: cst.Name, frame: Frame, record: bool = True) -> Value:
        name = node.value
        fn = frame.fn
        scope = "local"
        value: Optional[Value] = None
        if name in frame.env:
            value = frame.env[name]
            if name in fn.global_names:
                scope = "global"
            elif name in fn.nonlocal_names:
                scope = "closure"
        elif name in fn.local_names and name not in fn.global_names and name not in fn.nonlocal_names:
            value = STATIC
        else:
            c = frame.closure
            outermost = fn  # the outermost function whose frame the trace holds
            while c is not None and value is None:
                if name in c.env:
                    value, scope = c.env[name], "closure"
                elif name in c.function.local_names and name not in c.function.global_names:
                    value, scope = STATIC, "closure"
                outermost = c.function
                c = c.parent
            if value is None:
                # functions around the traced ones, which run eagerly (a factory's helpers and settings)
                p = outermost.parent
                while p is not None and value is None:
                    if name in p.local_names and name not in p.global_names:
                        value, scope = self._enclosing_local(p, name), "closure"
                    p = p.parent
            if value is None:
                g = self.index.globals.get(name)
                if g is not None:
                    scope = "global"
                    if g.kind == "function" and name in self.index.functions:
                        value = Value(func=self.index.def_seen_from(name, fn))
                    elif g.assignments == 1 and (bound := self._global_function(name)) is not None:
                        value = Value(func=bound)
                    elif g.instance_of is not None and g.assignments == 1 and g.instance_of in self.index.classes:
                        value = Value(instance=self.index.classes[g.instance_of])
                    elif name in self.index.jax_import_flags():
                        value = constant(True)  # JAX imported: the code is being traced by it
                    elif name in self.index.ref_names:
                        value = Value(ref=True)  # (`out_ref = jax.new_ref(...)`: a mutable reference)
                    elif g.jax_array:
                        value = Value(jax_array=True, is_array=True)
                    elif g.numpy_array:
                        value = Value(numpy_array=True)
                    elif g.sequence and g.assignments == 1:
                        value = Value(container=True, mapping=g.mapping)
                    elif (flag := self._script_flag(name)) is not None:
                        value = constant(flag)  # (`DEBUG = False` of a script: `if DEBUG:` never runs)
                    elif self._never_none_global(name):
                        value = Value(not_none=True)  # (`dense = Layout.DENSE`: `if layout is None:` is False)
                    else:
                        value = STATIC
                        if g.kind == "import" and record:
                            self._note_function_name(node, self.index.qualify(node))
                else:
                    scope = "builtin"
                    value = constant(_BUILTIN_CONSTANTS[name]) if name in _BUILTIN_CONSTANTS else STATIC
        if scope != "global" and value.kind is Kind.TRACED:
            value = self.as_mapping(value, name, fn)
        if record:
            self.facts.read_scope[node] = scope
            self.facts.record(node, value)
        return value

    def _enclosing_local(self, owner: FunctionInfo, name: str) -> Value:
        """A variable of an enclosing function that is not being traced here: a Python value, or a
        concrete JAX array where its one binding makes one (``jctlmax = jnp.max(kctl)``), which every
        JAX operation inside the trace turns into a tracer, as a module-level array."""
        bindings = owner.scope.bindings_of(name)
        if not bindings or owner.scope.declares(name):
            return STATIC
        if len(bindings) == 1 and bindings[0].kind is BindingKind.FUNCTION:
            # a helper the enclosing function defines beside the traced one: a call of it is followed
            helper = self.index.infos.get(bindings[0].node)
            if helper is not None:
                return Value(func=helper)
        made = bindings[0].value if len(bindings) == 1 and bindings[0].kind is BindingKind.ASSIGNMENT else None
        if isinstance(made, cst.Call) and isinstance(made.func, cst.Name) and made.func.value in self.index.classes \
                and self.index.qualify(made.func) is None and not owner.scope.is_local(made.func.value):
            # `env = Environment()` beside a scan body that calls `env(...)`: an instance, as a module-level
            # one bound once is (its methods run in the trace)
            return Value(instance=self.index.classes[made.func.value])
        for binding in bindings:  # (`m = jnp.max(k)`, then `m = jnp.minimum(m, n)`: an array either way)
            bound = binding.value if binding.kind is BindingKind.ASSIGNMENT else None
            q = self.index.qualify(bound.func) if isinstance(bound, cst.Call) else None
            if q is None or not jax_api.is_array_function(q) or q in jax_api.STATIC_RESULT_FUNCTIONS:
                return STATIC
        return Value(jax_array=True, is_array=True)

    def _note_function_name(self, node: cst.CSTNode, q: Optional[str]) -> None:
        """Note ``node`` (a name or attribute that qualifies to ``q``) when it names a function that
        another module of the project defines."""
        if q is not None and self.project is not None and not q.startswith(jax_api.EXTERNAL_PACKAGES) \
                and self.project.resolve_function(self.path, q) is not None:
            self.facts.function_names.add(node)

    def _script_flag(self, name: str) -> Optional[bool]:
        """The value of a module flag bound once to ``True`` or ``False`` in a script or notebook (a module
        outside a package; in a package, a private name of a module nothing imports) that no function
        rebinds (``global``) and nothing reaches through ``globals()``: what every trace reads, so ``if
        DEBUG:`` with ``DEBUG = False`` never runs.  A package's module may have its public flags set from
        outside (``mod.DEBUG = True``): not known there."""
        index = self.index
        if index.in_package and not (index.never_imported and name.startswith("_")):
            return None
        value = index.single_value(name, None)
        if not isinstance(value, cst.Name) or value.value not in ("True", "False"):
            return None
        if index.reaches_names_dynamically():
            return None
        return value.value == "True"

    def _global_function(self, name: str) -> Optional[FunctionInfo]:
        """The function a module-level name bound once to a lambda or to another function's name
        holds (``act = lambda v: ...``, ``fn = loss``): calling the name calls it."""
        value = self.index.single_value(name, None)
        if isinstance(value, (cst.Lambda, cst.Name)):
            return self.index.resolve_function(value, None, None)[0]
        return None

    def ev(self, node: Optional[cst.CSTNode], frame: Frame) -> Value:
        if node is None:
            return STATIC
        value = self._ev(node, frame)
        kind = type(node)
        if kind is not cst.Name:  # (a concrete class: no ABC isinstance for every other node)
            if value.kind is Kind.STATIC and not value.not_none and not value.known \
                    and kind in _MAYBE_NEVER_NONE and self._never_none_result(node, frame):
                # (an array's shape: a tuple of ints, each never None, also unpacked)
                value = replace(value, not_none=True, element=_SIZE) if kind is cst.Attribute \
                    and node.attr.value == "shape" else replace(value, not_none=True)
            self.facts.record(node, value)
        return value

    def _never_none_result(self, node: cst.CSTNode, frame: Frame) -> bool:
        """A Python value that cannot be None: an operator's result, a builtin such as ``len()`` or
        ``int()``, the ``shape`` / ``ndim`` / ``size`` of an array and an element of its shape
        (``scatter(x, n=x.shape[0])`` then reaches ``if n is None:`` as a number)."""
        if isinstance(node, (cst.BinaryOperation, cst.Comparison)):
            return True
        if isinstance(node, cst.Call):
            func = node.func
            return isinstance(func, cst.Name) and func.value in _NEVER_NONE_BUILTINS \
                and self.facts.read_scope.get(func) == "builtin"
        if isinstance(node, cst.Subscript):
            node = node.value  # an element of `x.shape`
        if isinstance(node, cst.Attribute) and node.attr.value in ("shape", "ndim", "size"):
            base = self.facts.value(node.value) if not isinstance(node.value, cst.Name) \
                else frame.env.get(node.value.value, STATIC)
            return base.kind is Kind.TRACED or base.jax_array or base.numpy_array
        return False

    def _never_none_global(self, name: str) -> bool:
        """A module-level name bound once, and by nothing else, to a member of an ``Enum`` class of this
        module (``dense = Layout.DENSE``) or to a literal that is not None: it is never None."""
        g = self.index.globals.get(name)
        if g is None or g.assignments != 1 or self.index.global_writers.get(name) \
                or not isinstance(g.node, cst.Assign):
            return False
        value = g.node.value
        if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
            return True
        if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name)):
            return False
        cls = self.index.classes.get(value.value.value)
        return cls is not None and self.index.qualify(value.value) is None and any(
            node is not None and (self.index.qualify(node) or "") in _ENUM_BASES for node in cls.base_nodes)

    def _ev(self, node: cst.CSTNode, frame: Frame) -> Value:
        evaluate = self._EXPRESSIONS.get(type(node))
        return evaluate(self, node, frame) if evaluate is not None else MAYBE

    def _ev_literal(self, node: cst.BaseExpression, frame: Frame) -> Value:
        known = int_value(node) if isinstance(node, cst.Integer) else string_value(node)
        return constant(known) if known is not None else STATIC

    def _ev_static(self, node: cst.BaseExpression, frame: Frame) -> Value:
        return STATIC

    def _ev_concatenated_string(self, node: cst.ConcatenatedString, frame: Frame) -> Value:
        left, right = self.ev(node.left, frame), self.ev(node.right, frame)
        fmt = left.formats_tracer or right.formats_tracer
        return Value(formats_tracer=fmt) if fmt else STATIC

    def _ev_formatted_string(self, node: cst.FormattedString, frame: Frame) -> Value:
        fmt = None
        for part in node.parts:
            if isinstance(part, cst.FormattedStringExpression):
                value = self.ev(part.expression, frame)
                if part.format_spec:
                    for spec in part.format_spec:
                        if isinstance(spec, cst.FormattedStringExpression):
                            self.ev(spec.expression, frame)
                if value.kind is Kind.TRACED and fmt is None:
                    fmt = Reason(part.expression, "`{code}` is formatted into a string", value.reason)
        return Value(formats_tracer=fmt) if fmt else STATIC

    def _ev_binary_operation(self, node: cst.BinaryOperation, frame: Frame) -> Value:
        left, right = self.ev(node.left, frame), self.ev(node.right, frame)
        string_left = isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString))
        if isinstance(node.operator, cst.Modulo) and string_left:
            inner = right.items if right.items is not None else (right,)
            hit = strongest(inner)
            if hit.kind is Kind.TRACED:
                return Value(formats_tracer=Reason(node.right, "`{code}` is formatted into a string", hit.reason))
            return STATIC
        bool_op = isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)) and (left.is_bool or right.is_bool)
        return self._combine(node, [left, right], is_bool=bool_op, frame=frame, operands=[node.left, node.right])

    def _ev_unary_operation(self, node: cst.UnaryOperation, frame: Frame) -> Value:
        operand = self.ev(node.expression, frame)
        if isinstance(node.operator, cst.Not):
            return constant(not operand.const) if operand.known else STATIC
        if operand.known and isinstance(operand.const, int) and isinstance(node.operator, cst.Minus):
            return constant(-operand.const)
        return self._combine(node, [operand], is_bool=operand.is_bool and isinstance(node.operator, cst.BitInvert),
                             frame=frame, operands=[node.expression])

    def _ev_boolean_operation(self, node: cst.BooleanOperation, frame: Frame) -> Value:
        left = self.ev(node.left, frame)
        if left.known:  # short-circuits on a known constant: the other side is not run
            decided = bool(left.const) if isinstance(node.operator, cst.Or) else not bool(left.const)
            if decided:
                return left
            return self._ev_where(node.right, frame, self._right_env(node, frame))
        # `impl = _CACHE or _select_and_cache()`, whose right side sets the global: it runs only while the
        # global is unset -- on the first call, once, eagerly too (an initialisation guard, as `if G is None:`)
        initialising = isinstance(node.operator, cst.Or) and isinstance(node.left, cst.Name) \
            and isinstance(node.right, cst.Call) and self._guarded_global(node.left.value, frame) \
            and self._call_sets_global(node.right, frame.fn, node.left.value, None, depth=0)
        self._initialising += initialising
        try:
            right = self._ev_where(node.right, frame, self._right_env(node, frame))
        finally:
            self._initialising -= initialising
        if right.known and left.kind is Kind.STATIC and _gives_bool(node.left) \
                and right.const is isinstance(node.operator, cst.Or):
            # `flag or True` is True whichever way a Python bool `flag` goes (`flag and False`: False)
            return right
        if left.traced_array and right.kind is Kind.MAYBE:
            return left  # `bool()` of the array tracer on the left comes first, whatever the right is
        return join(left, right)

    def _right_env(self, node: cst.BooleanOperation, frame: Frame) -> Dict[str, Value]:
        """The right side of ``a and b`` runs where ``a`` holds, of ``a or b`` where it fails."""
        when_true, when_false = self._concrete_names(node.left, frame.env)
        return self._made_static(frame.env, when_true if isinstance(node.operator, cst.And) else when_false)

    def _ev_where(self, node: cst.BaseExpression, frame: Frame, env: Dict[str, Value]) -> Value:
        """Evaluate ``node`` in ``env`` (the frame's, narrowed by a test); names it binds (``:=``)
        stay bound after it."""
        if env is frame.env:
            return self.ev(node, frame)
        saved, start = frame.env, dict(env)
        frame.env = env
        try:
            return self.ev(node, frame)
        finally:
            bound = {k: v for k, v in frame.env.items() if start.get(k) is not v}
            frame.env = saved
            saved.update(bound)

    def _ev_comparison(self, node: cst.Comparison, frame: Frame) -> Value:
        values = [self.ev(node.left, frame)]
        static = False
        for comp in node.comparisons:
            values.append(self.ev(comp.comparator, frame))
            if isinstance(comp.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                static = True
            if isinstance(comp.comparator, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                static = True
            if _empty_display(comp.comparator) or _empty_display(node.left):
                # `args == ()`, `stats != {}`: a test of a pytree's structure (an empty container
                # equals only an empty one of its type: no element is compared)
                static = True
        sides = (node.left, node.comparisons[0].comparator)
        if len(values) == 2 and isinstance(node.comparisons[0].operator, (cst.Equal, cst.NotEqual)) and any(
                isinstance(side, cst.Name) and side.value == "None" for side in sides):
            # a JAX array does not compare itself with None (NotImplemented both ways), so Python
            # compares identities: `x == None` is the Python bool False for an array, as `x is None`
            if any(value.traced_array for value in values):
                return constant(isinstance(node.comparisons[0].operator, cst.NotEqual))
            return STATIC
        if len(values) == 2:
            known = _compare_known(node.comparisons[0].operator, values[0], values[1])
            if known is None and isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot)):
                known = _default_or_tracer_is(node, values)
            if known is not None:
                return constant(known)
        if isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString)) or static:
            return STATIC
        if not any(value.traced_array for value in values) and not self._numeric_comparison(node, values):
            # `m.impl == Impl.FAST`, `mode != "train"`: equality of a pytree's metadata with a
            # Python value is a structure test; only numbers and arrays make it an array
            return MAYBE if strongest(values).kind else STATIC
        return self._combine(node, values, is_bool=True, frame=frame, operands=[node.left] + [
            comp.comparator for comp in node.comparisons])

    def _ev_if_exp(self, node: cst.IfExp, frame: Frame) -> Value:
        test = self.ev(node.test, frame)
        when_true, when_false = self._narrowed(node.test, frame.env)
        if test.known:  # a test known under tracing picks one arm: the other is not run
            return self._ev_where(node.body, frame, when_true) if test.const else \
                self._ev_where(node.orelse, frame, when_false)
        return join(self._ev_where(node.body, frame, when_true), self._ev_where(node.orelse, frame, when_false))

    def _ev_sequence(self, node, frame: Frame) -> Value:
        """A tuple, list or set display.

        A starred part of known length (a tuple display) adds its elements; one of unknown length
        (``*rows``, a list built in a loop) shifts the positions after it: the elements before the
        first such part are known from the start, those after the last from the end.
        """
        items = []  # what iterating may give, one value per element or starred part
        known: List[Value] = []  # the elements since the last starred part of unknown length
        head: Optional[Tuple[Value, ...]] = None  # the elements before the first one
        for el in node.elements:
            value = self.ev(el.value, frame)
            if not isinstance(el, cst.StarredElement):
                known.append(value)
                items.append(value)
            elif value.items is not None:
                known.extend(value.items)
                items.extend(value.items)
            else:
                if head is None:
                    head = tuple(known) + value.head
                known = list(value.tail)
                items.append(value.element if value.element is not None else value)
        best = strongest(items)
        if isinstance(node, cst.Set):
            if best.kind is not Kind.TRACED:
                return HASHED
            return Value(best.kind, best.reason, element=join_all(items), container=True)
        if head is not None:
            return Value(best.kind, best.reason, element=join_all(items), container=True, head=head,
                         tail=tuple(known))
        return Value(best.kind, best.reason, items=tuple(items), element=join_all(items) if items else None,
                     container=not isinstance(node, cst.Tuple))

    def _ev_dict(self, node: cst.Dict, frame: Frame) -> Value:
        values = []
        static_keys: Set[str] = set()
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                self.ev(el.key, frame)
            value = self.ev(el.value, frame)
            values.append(value)
            if isinstance(el, cst.DictElement):
                key = string_value(el.key)
                if key is not None and value.kind is Kind.STATIC:
                    static_keys.add(key)  # (a list of Python values too: what is added to it later is followed)
                elif key is not None:
                    static_keys.discard(key)
            else:
                static_keys.clear()  # `**other` may bind any key again
        best = strongest(values)
        # iterating a dict gives its keys, and a key is never a tracer (a tracer is unhashable);
        # a value given as a Python value stays one when it is read back by its key
        return Value(best.kind, best.reason, container=True, mapping=True, element=STATIC,
                     static_keys=frozenset(static_keys))

    def _ev_lambda(self, node: cst.Lambda, frame: Frame) -> Value:
        info = self.index.infos.get(node)
        for param, _ in params_of(node.params):
            if param.default is not None:
                self.ev(param.default, frame)
        return Value(func=info, closure=self._closure(frame)) if info is not None else STATIC

    def _ev_named_expr(self, node: cst.NamedExpr, frame: Frame) -> Value:
        value = self.ev(node.value, frame)
        self.bind(node.target, value, frame)
        return value

    def _ev_await_or_yield(self, node, frame: Frame) -> Value:
        inner = getattr(node, "expression", None) if isinstance(node, cst.Await) else node.value
        if isinstance(inner, cst.CSTNode) and not isinstance(inner, cst.From):
            self.ev(inner, frame)
        return MAYBE

    def _ev_starred(self, node: cst.StarredElement, frame: Frame) -> Value:
        return self.ev(node.value, frame)

    def _combine(self, node: cst.CSTNode, values: Sequence[Value], is_bool: bool = False,
                 frame: Optional[Frame] = None, operands: Sequence[cst.CSTNode] = ()) -> Value:
        best = strongest(values)
        if best.kind is Kind.TRACED:
            # computed only from what a library's objects hold (`list(domain.N) + [3]`, `model.nv + 1`):
            # leaf or metadata as that library decides, like the fields themselves
            foreign = all(v.foreign for v in values if v.kind is Kind.TRACED)
            if any(v.kind is Kind.TRACED and (v.container or v.items is not None) for v in values):
                # list/tuple concatenation or repetition: a Python container, not an array
                return traced(best.reason, is_array=False, is_bool=is_bool, foreign=foreign)
            reason = best.reason
            if not any(v.traced_array for v in values):
                # only a leaf of the traced arguments computes as a number: it is a traced array
                reason = Reason(node, "`{code}` uses a traced value as a number: it is an array, not a dict or tuple",
                                best.reason)
                if frame is not None:
                    self._note_arrays(operands, values, frame)
            return traced(reason, is_array=any(v.is_array for v in values), leaf=True, is_bool=is_bool,
                          foreign=foreign)
        if any(v.jax_array for v in values) and best.kind is Kind.STATIC:
            if self._eager_here():
                return _CONCRETE_ARRAY
            return traced(Reason(node, "`{code}` computes with a concrete JAX array, which is traced inside"
                                       " traced code"), is_array=True)
        return best if best.kind is Kind.MAYBE else STATIC

    @staticmethod
    def _note_arrays(operands: Sequence[cst.CSTNode], values: Sequence[Value], frame: Frame) -> None:
        """Names used as numbers are arrays from here on (``y = x * 2`` then ``if x:``)."""
        for node, value in zip(operands, values):
            if isinstance(node, cst.Name) and value.kind is Kind.TRACED and not value.traced_array \
                    and not value.container and value.items is None and frame.env.get(node.value) is value:
                frame.env[node.value] = replace(value, leaf=True, element=None, mapping=False)

    def _numeric_comparison(self, node: cst.Comparison, values: Sequence[Value]) -> bool:
        """Whether a comparison treats its operands as numbers: an ordering (``<``), or an equality
        with anything but a string, a Python bool or a named constant of a class or module (``Impl.FAST``)."""
        if any(not isinstance(c.operator, (cst.Equal, cst.NotEqual)) for c in node.comparisons):
            return True
        operands = [node.left] + [c.comparator for c in node.comparisons]
        if all(value.kind is not Kind.STATIC for value in values):
            # `item.kind == first_kind`: equality of two values of which neither is known to be an
            # array (the caller checked) nor a number: objects of a pytree compare as Python objects
            return False
        for operand, value in zip(operands, values):
            if value.kind is not Kind.STATIC:
                continue
            if value.known and isinstance(value.const, (str, bool)):
                return False  # (a string, or a Python bool: a flag compared with a flag)
            if isinstance(operand, cst.Ellipsis) or (
                    isinstance(operand, cst.Call) and isinstance(operand.func, cst.Name)
                    and operand.func.value in ("slice", "type", "object")
                    and self.facts.read_scope.get(operand.func) == "builtin"):
                return False  # `idx == slice(None)`: an index of a tuple of indices, not an array
            if isinstance(operand, cst.Attribute):
                q = self.index.qualify(operand)
                root = operand
                while isinstance(root, cst.Attribute):
                    root = root.value
                named = (q is not None and not q.startswith(("numpy.", "jax.", "math.", "scipy."))) or (
                    isinstance(root, cst.Name) and root.value in self.index.classes)
                if named:
                    return False
        return True

    def _ev_attribute(self, node: cst.Attribute, frame: Frame) -> Value:
        q = self.index.qualify(node)
        if q is not None:
            self._note_function_name(node, q)
            return STATIC
        base = self.ev(node.value, frame)
        attr = node.attr.value
        if base.fields is not None:
            stored = dict(base.fields).get(attr)
            if stored is not None:
                return stored  # (a record built here: the field holds what its construction was given)
        if attr in jax_api.STATIC_ATTRIBUTES or attr in jax_api.STATIC_LOOKING_ATTRIBUTES \
                or attr in base.static_attrs:
            if attr == "dtype" and base.kind is Kind.TRACED and base.traced_array:
                kind = "b" if base.is_bool else base.dtype_kind
                return Value(dtype_kind=kind) if kind is not None else STATIC  # (a dtype of a known kind)
            return STATIC
        if base.graph_node and base.kind is Kind.TRACED:
            return self._graph_attribute(node, base)
        if attr in self.index.static_fields and not (base.kind is Kind.TRACED and (
                base.pytree_class is not None or attr in self._own_data_fields())):
            return STATIC  # (an instance of a known class has the static fields its class declares)
        if base.kind is Kind.TRACED and not base.foreign and not base.mapping and self._library_field(attr, base):
            # a field of a class a library's decorator registers: leaf or metadata as that library decides
            return traced(Reason(node, "`{code}` is a field of a class that a library registers", base.reason),
                          foreign=True)
        if base.instance is not None and base.kind is Kind.MAYBE and isinstance(node.value, cst.Name):
            children = self.index.pytree_children(base.instance)
            if children is not None:
                if attr not in children:
                    return STATIC  # aux data of the pytree: static
                return traced(Reason(node, f"`{{code}}` is a child of the pytree `{node.value.value}` (its "
                                           "`tree_flatten`): traced when the instance is passed to a traced function"))
            leaf = self._module_array_field(base.instance, attr, node)
            if leaf is not None:
                return leaf
        if base.kind is Kind.TRACED and not base.mapping and not base.traced_array and not base.foreign \
                and self._helper_registered_field(attr, base):
            return MAYBE  # (leaf or aux data as the project's registering code computes)
        if base.kind is Kind.TRACED and base.pytree_class is not None and not base.mapping:
            field_value = self._field_value(node, base)
            if field_value is not None:
                return field_value
            computed = self._property_value(node, base, frame)
            if computed is not None:
                return computed
        if base.kind is Kind.TRACED and base.pytree_class is None and not base.traced_array \
                and self._imported_static_field(attr):
            return STATIC
        if base.kind is Kind.TRACED and base.foreign and attr not in jax_api.ARRAY_ATTRIBUTE_NAMES:
            return traced(base.reason, foreign=True)  # (a field of a library's object: leaf or metadata)
        if base.kind is Kind.TRACED:
            if base.variable and attr not in jax_api.ARRAY_ATTRIBUTE_NAMES \
                    and attr not in jax_api.VARIABLE_VALUE_MEMBERS:
                return STATIC  # the Variable's metadata
            if attr not in jax_api.ARRAY_ATTRIBUTE_NAMES:
                # an attribute no JAX array has (`item.kind`): the value is an object of the pytree,
                # and what its attribute holds (a leaf, aux data, a property's result) is not known
                # to be an array
                return traced(base.reason)
            return traced(base.reason, is_array=base.is_array, leaf=base.traced_array)
        if base.jax_array:
            if self._eager_here():
                return _CONCRETE_ARRAY
            return traced(Reason(node, "`{code}` of a concrete JAX array is traced inside traced code"))
        if base.kind is Kind.MAYBE:
            return MAYBE
        return STATIC

    def _graph_attribute(self, node: cst.Attribute, base: Value) -> Value:
        """An attribute of a flax nnx module: its arrays and Variables are leaves of the module's state
        (traced), a submodule is a module in turn, and anything else (an int, a string, a tuple of
        them) is static structure: ``range(model.num_blocks)`` runs on a Python int under ``nnx.jit``
        and ``jax.jit`` alike (flax 0.12.8).  What the class's methods store in the attribute tells
        which; where they store something else, or the class is not known, the value is not known."""
        owner = base.pytree_class
        if owner is None:
            return MAYBE
        key = (id(owner.index), owner.name, node.attr.value)
        kind = self._graph_attributes.get(key)
        if kind is None:
            stores = owner.attribute_stores(node.attr.value)
            kinds = {self._stored_kind(value, method, where) for value, method, where in stores}
            if kinds == {"variable", "state"}:
                kinds = {"state"}  # a Variable here, an array there
            kind = kinds.pop() if len(kinds) == 1 else "unknown"
            self._graph_attributes[key] = kind
        if kind == "static":
            return STATIC
        if kind == "variable":
            return traced(Reason(node, f"`{{code}}` is a Variable of the nnx module `{owner.name}`: its value is a "
                                       "leaf of the module's state, traced with it", base.reason), variable=True)
        if kind == "state":
            return traced(Reason(node, f"`{{code}}` is an array or Variable of the nnx module `{owner.name}`: a "
                                       "leaf of its state, traced with it", base.reason))
        if kind == "module":
            held = {self._held_kind(value, method, where) for value, method, where in owner.attribute_stores(
                node.attr.value)}
            if held <= {"variable", "state"} and held:
                element = traced(Reason(node, f"`{{code}}` holds the Variables of the nnx module `{owner.name}`: "
                                              "leaves of its state, traced with it", base.reason),
                                 variable=held == {"variable"})
                return traced(base.reason, graph_node=True, element=element)
            return traced(base.reason, graph_node=True)
        return MAYBE

    @staticmethod
    def _held_kind(value: Optional[cst.BaseExpression], method: FunctionInfo, where: Definition) -> str:
        """What the elements of an nnx container a method stores are (``_stored_kind`` of each):
        ``nnx.List([nnx.Param(a), nnx.Param(b)])``, ``nnx.List([nnx.Param(w) for w in ws])``,
        ``nnx.Sequential(m1, m2)``; ``unknown`` for anything else."""
        if not isinstance(value, cst.Call):
            return "unknown"
        q = where.index.qualify(value.func) or ""
        if q not in ("flax.nnx.List", "flax.nnx.Sequential"):
            return "unknown"
        parts: List[Optional[cst.BaseExpression]] = []
        if q == "flax.nnx.Sequential":
            parts = [arg.value for arg in value.args if not arg.star and arg.keyword is None]
        elif len(value.args) == 1 and isinstance(value.args[0].value, (cst.List, cst.Tuple)):
            parts = [el.value if isinstance(el, cst.Element) else None for el in value.args[0].value.elements]
        elif len(value.args) == 1 and isinstance(value.args[0].value, cst.ListComp):
            parts = [value.args[0].value.elt]
        kinds = {Analyzer._stored_kind(part, method, where) for part in parts}
        return kinds.pop() if len(kinds) == 1 else "unknown"

    @staticmethod
    def _graph_member(container: Value, node: cst.CSTNode) -> Value:
        """An element of a flax nnx graph node (``for block in model.blocks`` over an ``nnx.List``,
        ``layers[0]`` of an ``nnx.Sequential``) whose elements are not known to be Variables
        (``_graph_attribute``): a module or a Variable of the container's graph, of a class the
        container does not tell.  Its Variables and arrays are leaves, its other attributes static
        structure, so what an attribute holds is not known here: it is never taken for a traced leaf
        (``one_hot(idx, block.num_experts)`` on an int attribute runs under ``nnx.jit``, flax 0.12.8)."""
        return traced(Reason(node, "`{code}` is an element of the traced nnx graph node (line {line})",
                             container.reason), graph_node=True)

    @staticmethod
    def _stored_kind(value: Optional[cst.BaseExpression], method: FunctionInfo, where: Definition) -> str:
        """What a method of an nnx module stores in an attribute: ``static`` (a literal, a tuple of
        them, a parameter annotated with a scalar type or ``str``), ``variable`` (a Variable), ``state``
        (an array made by JAX, or an ``Rngs``), ``module`` (a module of flax nnx or a class of the code derived from one), or
        ``unknown``."""
        if value is None:
            return "unknown"
        if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString)) \
                or (isinstance(value, cst.Name) and value.value in ("True", "False", "None")):
            return "static"
        if isinstance(value, (cst.Tuple, cst.List)):
            return "static" if all(isinstance(el, cst.Element) and Analyzer._stored_kind(el.value, method, where)
                                   == "static" for el in value.elements) else "unknown"
        if isinstance(value, cst.Name):
            for p, kind in method.params:
                if p.name.value == value.value and kind in ("posonly", "positional", "kwonly") \
                        and p.annotation is not None and where.index.module.code_for_node(
                            p.annotation.annotation).strip() in ("int", "float", "bool", "str"):
                    return "static"
            return "unknown"
        if isinstance(value, cst.Call):
            q = where.index.qualify(value.func) or ""
            if q in jax_api.NNX_VARIABLES and q not in ("flax.nnx.Rngs", "flax.nnx.RngStream"):
                return "variable"
            if q in jax_api.NNX_VARIABLES or q.startswith(("jax.numpy.", "jax.random.")):
                return "state"
            if q.startswith("flax.nnx.") and q.rpartition(".")[2][:1].isupper():
                return "module"
            made = class_named(value.func, where.index, where.path, where.project)
            if made is not None and made.external_bases() & jax_api.GRAPH_NODE_CLASSES:
                return "module"
        return "unknown"

    def _pytree_method(self, receiver: Value, method: str) -> Optional[FunctionInfo]:
        """``state.score(t)`` on a traced instance of a class of the checked code (a registered
        dataclass, an annotated parameter): the plain method the class defines, which runs in the trace
        with ``self`` the traced instance; None for a property, a static or class method, or a class the
        analysis cannot reach."""
        owner = receiver.pytree_class
        if owner is None or receiver.mapping or receiver.graph_node:
            return None
        cls = owner.index.classes.get(owner.name)
        fn = owner.index.find_method(cls, method) if cls is not None else None
        if fn is None or not isinstance(fn.node, cst.FunctionDef) or not fn.is_method or is_accessor(fn.node) \
                or not fn.params or any(dotted_name(d.decorator) == "classmethod" for d in fn.node.decorators):
            return None
        if self._owner_of(fn) is self and fn.node not in self.index.infos:
            return None  # a class of a module the analysis cannot reach
        return fn

    def _property_value(self, node: cst.Attribute, base: Value, frame: Frame) -> Optional[Value]:
        """A property of the instance's known class is code: what its body computes from the
        instance (``return {d: i for i, d in enumerate(self._dims)}`` of static metadata is static)."""
        owner = base.pytree_class
        cls = owner.index.classes.get(owner.name)
        fn = owner.index.find_method(cls, node.attr.value) if cls is not None else None
        if fn is None and cls is not None and not cls.methods.get(node.attr.value):
            # a base class another module of the checked code defines (`class Navigator(Environment)`, its
            # `max_num_agents` a property there)
            for inherited in owner.imported_bases():
                base_cls = inherited.index.classes.get(inherited.name)
                fn = inherited.index.find_method(base_cls, node.attr.value) if base_cls is not None else None
                if fn is not None:
                    break
        if fn is None or not is_property(fn.node):
            return None
        target = self._owner_of(fn)
        if target is self and fn.node not in self.index.infos:
            return None  # a class of a module the analysis cannot reach
        env = {_param_name(fn.params[0][0]): base} if fn.params else {}
        saved_cached, target._cached = target._cached, self._cached
        try:
            result = target.analyse(fn, env, None, boundary=False, label="", transform=None, depth=frame.depth + 1)
        finally:
            target._cached = saved_cached
        if result.kind is Kind.TRACED:
            return replace(result, reason=Reason(node, f"`{{code}}` is a property of `{owner.name}` computed from "
                                                       "a traced value", base.reason))
        return result

    def _set_at_startup(self, writers: Set[FunctionInfo]) -> bool:
        """See startup.set_at_startup (cached per set of writers)."""
        key = frozenset(id(w.node) for w in writers)
        found = self._startup.get(key)
        if found is None:
            found = self._startup[key] = startup.set_at_startup(self.project, self.path, self.index, writers)
        return found

    def _module_array_field(self, cls: ClassInfo, attr: str, node: cst.Attribute) -> Optional[Value]:
        """A field annotated as an array (not declared static) of an equinox Module of this module, read
        from an instance a transform was given: equinox makes every array a leaf, which the transform
        traces (``filter_jit`` keeps only the non-array leaves static)."""
        owner = Definition(self.index, self.path, cls.name, self.project)
        if "equinox.Module" not in owner.external_bases() or attr in owner.static_attrs:
            return None
        annotation = owner.field_annotation(attr)
        inner = without_none(annotation) if annotation is not None else None
        if inner is None or not self._array_type(inner, owner):
            return None
        return traced(Reason(node, f"`{{code}}` is a field of the equinox Module `{cls.name}` annotated as an "
                                   "array: a leaf, which the transform traces"),
                      is_array=True, optional=allows_none(annotation))

    def _library_field(self, attr: str, base: Value) -> bool:
        """``attr`` read from a traced instance of a class of this module that a library's decorator
        registers (see ``ModuleIndex.library_registered_fields``), or from a traced object of unknown
        class where such a class declares ``attr`` and no other class of the module does."""
        registered = self.index.library_registered_fields()
        if not registered:
            return False
        if base.pytree_class is not None:
            own = base.pytree_class.index is self.index and base.pytree_class.name in registered
            return own and attr in registered[base.pytree_class.name]
        if not any(attr in names for names in registered.values()):
            return False
        return not any(attr in names for cls, names in self.index.annotated_fields().items() if cls not in registered)

    def _own_data_fields(self) -> frozenset:
        """The fields that a class of this module declares as data (see ``data_fields``): on a traced
        object of unknown class such a name may be a leaf, even where another class of the module
        declares it static."""
        if self._own_data is None:
            self._own_data = frozenset(data_fields(self.index))
        return self._own_data

    def _helper_registered_field(self, attr: str, base: Value) -> bool:
        """``attr`` is a field, not declared an array, of a class that the project's own decorator
        registers by code that computes the split (see ``ModuleIndex.helper_registered_classes``): the
        instance's known class, or for an object of unknown class, such a class of this module or of
        the modules around it (see :meth:`_modules_around`) where no other class there declares ``attr``
        a data field.  Whether it is a leaf or aux data is that code's choice."""
        if base.pytree_class is not None:
            owner = base.pytree_class
            if owner.name not in owner.index.helper_registered_classes():
                return False
            annotation = owner.field_annotation(attr)
            return annotation is not None and not self._array_type(without_none(annotation) or annotation, owner)
        known = self._helper_fields.get(attr)
        if known is None:
            known = False
            declaring = []
            modules = [(self.index, self.path)] + [(s.index, s.path) for s in self._modules_around(attr, True)]
            for index, path in modules:
                registered = index.helper_registered_classes()
                for name, annotated in index.annotated_fields().items():
                    cls = index.classes[name]
                    method = cls.methods.get(attr)
                    if attr in annotated or (method is not None and is_property(method.node)):
                        declaring.append((Definition(index, path, name, self.project), name in registered))
            if declaring and all(opaque for _, opaque in declaring):
                annotations = [(d, d.field_annotation(attr)) for d, _ in declaring]
                known = not any(self._array_type(without_none(a) or a, d) for d, a in annotations if a is not None)
            self._helper_fields[attr] = known
        return known

    def _modules_around(self, attr: str, any_field: bool = False) -> list:
        """The modules of the checked code whose objects this module's functions may be given: those it
        imports, what those import, and the importers (and what they import) whose text names ``attr``
        (and may declare a static field, unless ``any_field``)."""
        around = self._around.get((attr, any_field))
        if around is None:
            around = []
            if self.project is not None:
                imported = self.project.imported_modules(self.path, self.index)
                around = imported + self.project.importing_modules(self.path, attr, any_field)
                # (and what those import: `ExpConfig` imported here holds a `PPOConfig` of its own module)
                for state in imported:
                    around += [s for s in self.project.imported_modules(state.path, state.index)
                               if s.index is not self.index and s not in around]
            self._around[attr, any_field] = around
        return around

    def _imported_static_field(self, attr: str) -> bool:
        """Whether ``attr`` is a field name that classes of the checked modules this module imports (or that
        those import), or that import it (or that those import), declare static, and that no class of those modules or of this
        one declares as a data field:
        read from a traced object of unknown class (``agent: Any``, ``cache: KVCache`` with
        ``KVCache = Any``), such a name is one of those classes' static fields, a Python value -- the
        objects this module's functions get are made here, by what it imports, or by its importers,
        which call it, from what they import (the module's own static fields count the same way, see
        ``_ev_attribute``).  Of the importers' side only the modules whose text names ``attr`` are
        parsed: a field is declared by its name."""
        known = self._imported_static.get(attr)
        if known is None:
            known = False
            if self.project is not None and attr not in self._own_data_fields():
                around = self._modules_around(attr)
                known = any(attr in state.index.static_fields for state in around) and \
                    not any(attr in data_fields(state.index) for state in around)
            self._imported_static[attr] = known
        return known

    def _ev_slice(self, s: cst.BaseSlice, frame: Frame) -> Value:
        if isinstance(s, cst.Index):
            return self.ev(s.value, frame)
        values = [self.ev(part, frame) for part in (s.lower, s.upper, s.step) if part is not None]
        return strongest(values)

    def _ev_subscript(self, node: cst.Subscript, frame: Frame) -> Value:
        base = self.ev(node.value, frame)
        indexes = [self._ev_slice(el.slice, frame) for el in node.slice]
        if not base.mapping and (base.kind is not Kind.STATIC or base.container or base.items is not None
                                 or base.numpy_array or base.jax_array):
            # a position or a slice bound is a number: a traced name used as one is a leaf
            names = []
            for el in node.slice:
                parts = [el.slice.value] if isinstance(el.slice, cst.Index) else [
                    el.slice.lower, el.slice.upper, el.slice.step]
                names.extend(part for part in parts if isinstance(part, cst.Name))
            if names:
                self._note_arrays(names, [frame.env.get(n.value, STATIC) for n in names], frame)
        if (base.items is not None or base.has_ends) and len(node.slice) == 1 \
                and isinstance(node.slice[0].slice, cst.Index):
            i = int_value(node.slice[0].slice.value)
            item = base.at(i) if i is not None else None
            if item is not None:
                return item
        if base.element is not None and not base.mapping and len(node.slice) == 1 \
                and isinstance(node.slice[0].slice, cst.Index):
            return base.element  # an element of a sequence whose elements are known: `sorted(params)[0]`
        if base.static_keys and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) \
                and string_value(node.slice[0].slice.value) in base.static_keys:
            return STATIC
        if base.kind is Kind.TRACED and base.graph_node and not base.mapping:
            return self._graph_member(base, node)
        if base.kind is Kind.TRACED and base.mapping and base.pytree_class is not None:
            held = base.pytree_class  # a dict annotated `Mapping[str, C]`: its values are C's
            return traced(base.reason, static_attrs=held.static_attrs, pytree_class=held)
        if base.kind is Kind.TRACED:
            # indexed by a tracer, it is an array: a list, a tuple or a dict takes no tracer as an index (a
            # 0-d integer tracer has no concrete `__index__`), so what `a[i - 1]` gives in a loop body is one
            by_tracer = any(index.kind is Kind.TRACED for index in indexes)
            out = traced(base.reason, is_array=base.is_array or by_tracer, leaf=base.traced_array or by_tracer)
            if any(isinstance(el.slice, cst.Slice) for el in node.slice):
                # a slice of an array, a list or a tuple is one of those: never None (an item may be,
                # `{"mask": None}` passes None through a jit)
                out = replace(out, not_none=True)
            return out
        if base.jax_array:
            if self._eager_here():
                return _CONCRETE_ARRAY
            return traced(Reason(node, "`{code}` indexes a concrete JAX array: traced inside traced code"),
                          is_array=True)
        if base.kind is Kind.MAYBE:
            return MAYBE
        index = strongest(indexes)
        if index.kind is Kind.TRACED:
            return MAYBE
        return STATIC

    def _ev_comprehension(self, node, frame: Frame) -> Value:
        saved = frame.env
        frame.env = dict(saved)
        try:
            comp = node.for_in
            while comp is not None:
                iterable = self.ev(comp.iter, frame)
                if comp is node.for_in and isinstance(node, cst.GeneratorExp):
                    self._generator_iterables[node] = iterable  # read by `any(...)`/`all(...)` just after
                element = self.element_of(iterable, comp.iter)
                if element.kind is Kind.TRACED and not iterable.traced_array \
                        and _looks_up_by_element(comp.target, comp.iter, _computed_from(node, comp)):
                    element = STATIC  # `{k: f(d[k]) for k in d}`: keys of a mapping (see _exec_for)
                self.bind(comp.target, element, frame)
                for cond in comp.ifs:
                    self.ev(cond.test, frame)
                    frame.env = self._of_tested_class(cond.test, frame.env)
                comp = comp.inner_for_in
            if isinstance(node, cst.DictComp):
                self.ev(node.key, frame)
                element = self.ev(node.value, frame)
            else:
                element = self.ev(node.elt, frame)
        finally:
            frame.env = saved
        if isinstance(node, cst.SetComp) and element.kind is not Kind.TRACED:
            return HASHED
        if isinstance(node, cst.DictComp):
            return Value(element.kind, element.reason, element=STATIC, container=True, mapping=True)
        return Value(element.kind, element.reason, element=element, container=True)

    # ================================================================ calls
    def _arg_values(self, call: cst.Call, frame: Frame) -> List[Tuple[cst.Arg, Value]]:
        return [(arg, self.ev(arg.value, frame)) for arg in call.args]

    def _ev_call(self, call: cst.Call, frame: Frame) -> Value:
        self._calls.append((call, frame.fn))
        try:
            return self._ev_call_made(call, frame)
        finally:
            self._calls.pop()

    def _why_here(self) -> Optional[Reason]:
        """Why the function making the call being evaluated runs in a trace (Facts.why_traced)."""
        return self.facts.why_traced(self._calls[-1][1]) if self._calls else None

    def _ev_call_made(self, call: cst.Call, frame: Frame) -> Value:
        func = call.func
        q = self.index.qualify(func)
        if jax_api.is_callback(q):
            return self._call_callback(call, q, frame)
        # the receiver of a method (`obj.method(...)`), or a callee that is neither a name nor an
        # attribute (`fs[0](...)`, `jax.jit(f)(...)`)
        callee = STATIC
        if isinstance(func, cst.Attribute):
            if q is None:
                callee = self.ev(func.value, frame)
        elif not isinstance(func, cst.Name):
            callee = self.ev(func, frame)
        args = self._arg_values(call, frame)
        best = strongest([value for _, value in args])
        if best.kind is Kind.TRACED:
            self._note_wrapper_statics(call, args)
        if q is not None and q in jax_api.ARGUMENT_PRESERVING_WRAPPERS and args and args[0][1].func is not None \
                and args[0][0].keyword is None and not args[0][0].star:
            return args[0][1]  # `jax.named_call(f)` calls `f` with the arguments it is given
        made = self._transformed_function(call, q, args, frame)
        if made is not None:
            return made
        # higher-order functions: analyse the functions they are given
        returns = self._analyse_function_args(call, q, args, frame)
        if q is not None and q in jax_api.TREE_MAPS:
            mapped = self._mapped_function(args)
            if mapped is not None and jax_api.returns_python_value(mapped):
                return STATIC  # `jax.tree.map(jnp.shape, params)`: a tree of Python tuples
            if mapped is not None and jax_api.is_array_function(mapped) and best.kind is Kind.TRACED:
                # `jax.tree.map(jnp.linalg.norm, params)`: a JAX function of each traced leaf
                returns = [traced(Reason(call, "`{code}` applies a JAX function to traced leaves", best.reason),
                                  is_array=True)]
            return self._call_tree_map(args, returns, best)
        if q is not None and self.project is not None and not q.startswith(jax_api.EXTERNAL_PACKAGES):
            helper = self.project.resolve_function(self.path, q)
            if helper is not None:
                analyzer, fn = helper
                return self._call_user(call, fn, None, args, frame, None, target=analyzer)
        if q is not None and (q in jax_api.LAX_CARRIES or q in jax_api.LAX_OPERANDS or q in jax_api.LAX_MAPS):
            kept = self._lax_result(call, q, args, returns)
            if kept is not None:
                return kept
            if q in jax_api.LAX_OPERANDS and best.kind is Kind.TRACED:
                # branches the analysis cannot see (another object's methods, a parameter): what
                # they return may be any pytree (a dict, a tuple), not known to be one array
                return traced(Reason(call, "`{code}` returns traced values, of the structure its branches give",
                                     best.reason))
        if q == "functools.partial" and call.args and not call.args[0].star and call.args[0].keyword is None:
            target = self._function_of(call.args[0].value, frame)
            if target is not None and target[2] is None and not isinstance(call.args[0].value, cst.Call):
                # `fn = partial(energy, box=box)`: calling it later calls `energy` with these first
                return Value(func=target[0], closure=target[1], bound=self._partial_bound(args[1:], frame))
        if q is not None:
            out = self._call_qualified(call, q, args, best)
            if self.project is not None and out.fields is None and not q.startswith(jax_api.EXTERNAL_PACKAGES):
                found = class_named(func, self.index, self.path, self.project)
                fields = self._record_fields(found.index, found.name, args) if found is not None else None
                if fields is not None:
                    out = replace(out, fields=fields)  # (a record of another module of the project)
            return out
        by_callee = self._CALLEES.get(type(func))
        if by_callee is None:
            return self._call_value(call, callee, args, best, frame)
        return by_callee(self, call, callee, args, best, frame)

    def _call_callback(self, call: cst.Call, q: str, frame: Frame) -> Value:
        """``jax.pure_callback(f, ...)``, ``jax.debug.callback(f, ...)``: ``f`` runs on the host."""
        for arg in call.args:
            if self._function_of(arg.value, frame) is None:
                self.ev(arg.value, frame)
        tail = q.rsplit(".", 1)[-1]
        if tail in ("pure_callback", "io_callback"):
            return traced(Reason(call, "`{code}` returns arrays computed on the host: traced in traced code"))
        return STATIC

    def _result_dtype_kind(self, call: cst.Call, q: str) -> Optional[str]:
        """The dtype kind of what a JAX function returns, where the call tells: a dtype given
        (``dtype=jnp.int32``, ``jnp.asarray(x, jnp.float32)``), or a function whose default result is
        floating (``jax.nn.one_hot``, ``jnp.zeros``, ``jax.random.normal``)."""
        cast = jax_api.DTYPE_CAST_FUNCTIONS.get(q)
        given = call_argument(call, *cast) if cast is not None else call_argument(call, None, "dtype")
        if given is not None:
            return dtype_kind_of(given.value, self.index.qualify, self.facts.read_scope)
        return "f" if q in jax_api.FLOAT_RESULT_FUNCTIONS else None

    def _issubdtype(self, args) -> Optional[bool]:
        """``jnp.issubdtype(x, jnp.integer)`` where the dtype kind of ``x`` (an array or its ``.dtype``)
        is known: under a trace the dtype is part of the abstract value, so the test is a Python bool."""
        (first, value), (second, _) = args
        if first.star or second.star or first.keyword is not None or second.keyword is not None:
            return None
        kind = "b" if value.is_bool and value.traced_array else value.dtype_kind
        q = self.index.qualify(second.value) if isinstance(second.value, (cst.Name, cst.Attribute)) else None
        if kind is None or q is None or not q.startswith(("jax.numpy.", "numpy.")):
            return None
        category = jax_api.DTYPE_CATEGORIES.get(q.rpartition(".")[2])
        return kind in category if category is not None else None

    def _mapped_function(self, args) -> Optional[str]:
        """What the function a tree map applies qualifies to (``jnp.shape``, ``jnp.linalg.norm``)."""
        given = next((a for a, _ in args if a.keyword is None and not a.star), None)
        if given is None or not isinstance(given.value, (cst.Name, cst.Attribute)):
            return None
        return self.index.qualify(given.value)

    @staticmethod
    def _call_tree_map(args, returns: List[Value], best: Value) -> Value:
        if returns:
            leaf = returns[0]
            trees = [value for arg, value in args if arg.keyword is None and not arg.star and value.func is None]
            tree = trees[0] if trees else STATIC
            if tree.traced_array or not leaf.kind:
                return leaf if leaf.kind or leaf.container else STATIC
            # the function's result for each leaf, in a tree of the input's structure: a dict of
            # arrays stays a dict (item assignment on it is fine), not an array
            return Value(leaf.kind, leaf.reason, container=tree.container, mapping=tree.mapping,
                         element=tree.element if tree.mapping else None)
        return MAYBE if best.kind else STATIC  # a function we cannot see, mapped over the leaves

    def _call_name(self, call: cst.Call, callee: Value, args, best: Value, frame: Frame) -> Value:
        """``f(...)``, ``f`` not qualified to an import (``callee`` is not used)."""
        func = call.func
        name = func.value
        local = self.read_name(func, frame)
        if local.made_by is not None:
            return self._call_transformed(call, local, args, best, frame)
        if local.func is not None:
            return self._call_user(call, local.func, local.closure, _with_bound(local, args), frame, None)
        if local.instance is not None:
            return self._call_method(call, local.instance, "__call__", local, args, frame)
        owner = local.pytree_class
        if owner is not None and owner.index is self.index and owner.name in self.index.classes:
            # an instance of a class of this module (a parameter annotated so, or passed one by every
            # call seen), called: its `__call__` runs in the trace
            return self._call_method(call, self.index.classes[owner.name], "__call__", local, args, frame)
        if name in self.index.classes and self.facts.read_scope.get(func) == "global":
            cls = self.index.classes[name]
            if best.kind is Kind.TRACED:
                self._construct(call, cls, args, frame)
            return Value(Kind.MAYBE if best.kind else Kind.STATIC, instance=cls, fresh=True,
                         fields=self._record_fields(self.index, name, args))
        if self.facts.read_scope.get(func) == "builtin":
            return self._call_builtin(call, name, args, best)
        return self._unknown_call(call, name, best)

    def _call_attribute(self, call: cst.Call, receiver: Value, args, best: Value, frame: Frame) -> Value:
        """``obj.method(...)``, ``obj`` not an imported module."""
        func = call.func
        method = func.attr.value
        transformed = self.index.haiku_transformed(func, frame.fn)
        if transformed is not None:
            # a Haiku transform's `apply(params, rng, *args)` / `init(rng, *args)` runs the function it
            # transformed on `*args`, here, in the trace
            lead = args[:transformed[1]]
            fn, _ = self.index.resolve_function(func, frame.fn, None)
            if fn is not None and len(lead) == transformed[1] and all(
                    a.keyword is None and not a.star for a, _ in lead):
                return self._call_user(call, fn, None, args[transformed[1]:], frame, None)
        for part in self.index.optax_parts(func, frame.fn):
            # (a transformation of this module inside an optax chain: its update_fn runs here, in the trace)
            self._call_user(call, part, None, args, frame, None)
        fn, bound = self.index.resolve_function(func, frame.fn, frame.fn.cls)
        if isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            self_value = frame.env.get(func.value.value, STATIC)
            # the subclasses' own definitions run too, on their instances (`Base.process` jitted, calling
            # `self._apply` that each subclass defines)
            owner = frame.fn.cls
            known = self_value.instance if func.value.value == "self" else None
            if owner is not None and self.index.classes.get(owner.name) is owner and func.value.value == "self" \
                    and known is None and self_value.kind is Kind.STATIC and fn is not None and fn.cls is not None \
                    and fn.cls is not owner and self.index.derives(owner, fn.cls):
                # a method of a base class called on `self` (an instance of `owner` or of a subclass of it): the
                # base's method runs on that object, so its own `self.<name>` calls dispatch from `owner` down
                self_value = replace(self_value, instance=owner)
            if known is not None and owner is not None and known is not owner \
                    and self.index.classes.get(known.name) is known and self.index.derives(known, owner):
                # the object is known to be of a subclass (the jitted method's own class, `uccsd.get_init_walkers`
                # calling the base's `get_rdm1`): `self._calc_rdm1` is that class's or one of its subclasses', never
                # a sibling's (`multislater._calc_rdm1`)
                mine = self.index.find_method(known, method)
                below = [sub.methods[method] for sub in self.index.classes.values()
                         if sub is not known and method in sub.methods and self.index.derives(sub, known)]
                found = [f for f in ([mine] if mine is not None else []) + below if f.cls is not None]
                if found:
                    return join_all([self._call_user(call, f, None, args, frame,
                                                     None if f.is_static_method else self_value) for f in found])
            overrides = self.index.overrides(owner, method, frame.fn) if owner is not None and (
                fn is None or not fn.is_static_method) else []
            if fn is not None and not overrides:
                return self._call_user(call, fn, None, args, frame, self_value if bound else None)
            if overrides:
                found = ([(fn, bound)] if fn is not None else []) + [(f, not f.is_static_method) for f in overrides]
                return join_all([self._call_user(call, f, None, args, frame, self_value if b else None)
                                 for f, b in found])
        if receiver.instance is not None:
            return self._call_method(call, receiver.instance, method, receiver, args, frame)
        if receiver.kind is Kind.TRACED:
            own = self._pytree_method(receiver, method)
            if own is not None:
                # a method of the traced instance's known class is code that runs here, on it
                return self._call_user(call, own, None, args, frame, receiver)
            if method in jax_api.ARRAY_METHODS and not receiver.traced_array:
                self._note_arrays([func.value], [receiver], frame)  # `x.sum()`: `x` is an array
            result = self._method_on_traced(call, method, receiver, best)
            cls = receiver.pytree_class
            if cls is not None and not receiver.mapping:  # a method of the known class, `-> "Agent"`
                return self._as_instance(result, cls.method_returns(method), cls)
            return result
        if receiver.jax_array:
            if method in jax_api.STATIC_METHODS:
                return STATIC
            if self._eager_here():
                return _CONCRETE_ARRAY
            return traced(Reason(call, "`{code}` computes on a concrete JAX array: traced inside traced code"),
                          is_array=True)
        if receiver.numpy_array and method in jax_api.NUMPY_ARRAY_METHODS and best.kind is not Kind.TRACED:
            return Value(numpy_array=True)  # `a.sum(1)`, `a.astype(np.int32)` of a NumPy array: NumPy
        if receiver.kind is Kind.MAYBE:
            if method == "items" and not call.args:
                # a dict's keys are hashable, and a JAX array is not (`TypeError: unhashable type`): never
                # tracers, whatever the values are
                return Value(Kind.MAYBE, element=Value(Kind.MAYBE, items=(STATIC, MAYBE)))
            return MAYBE  # a tracer's method gives a tracer, a NumPy array's gives NumPy
        if method in jax_api.ARRAY_RESULT_METHODS and best.kind is Kind.TRACED:
            return traced(Reason(call, "`{code}` is computed from a traced value", best.reason))
        if method in ("format", "join", "format_map"):
            if best.kind is Kind.TRACED:
                return Value(formats_tracer=Reason(call, "a traced value is formatted into a string", best.reason))
            return STATIC
        if isinstance(func.value, cst.Name) and func.value.value in self.index.logger_names:
            return STATIC
        return self._unknown_call(call, method, best)

    def _call_value(self, call: cst.Call, callee: Value, args, best: Value, frame: Frame) -> Value:
        """A callee that is neither a name nor an attribute, of value ``callee``."""
        func = call.func
        if callee.func is not None:
            return self._call_user(call, callee.func, callee.closure, _with_bound(callee, args), frame, None)
        if callee.instance is not None:
            return self._call_method(call, callee.instance, "__call__", callee, args, frame)
        if isinstance(func, cst.Subscript):
            table = self._function_table(func, frame)
            # a function that cannot take the call's arguments would raise TypeError: not this one
            table = [fn for fn in table if _accepts(fn, call)] or table
            if table:  # `ACTIVATIONS[name](x)`: any of the table's functions may run
                return join_all([self._call_user(call, fn, None, args, frame, None) for fn in table])
        if isinstance(func, cst.Call):
            # jax.jit(f)(x), jax.vmap(f)(x), jax.grad(f)(x); eval_shape/make_jaxpr give static objects;
            # nn.Dense(3)(x) builds a layer and calls it
            inner_q = self.index.qualify(func.func)
            if inner_q in jax_api.STATIC_RESULT_TRANSFORMS:
                return STATIC
            if best.kind is Kind.TRACED and inner_q is not None and inner_q.startswith(
                    ("jax.",) + jax_api.ECOSYSTEM_PACKAGES):
                return traced(Reason(call, "`{code}` is computed from a traced value", best.reason))
            if inner_q in jax_api.GRADIENT_MAKERS and self._jit_on:
                # (the value and the gradients JAX computes in a staged trace -- jit, a lax body -- are tracers,
                # whatever the inputs; under `vmap` alone what no batched input reaches stays concrete)
                return traced(Reason(call, "`{code}` is computed by JAX's autodiff in staged (jitted) code"))
        return MAYBE if best.kind else STATIC

    def _function_table(self, sub: cst.Subscript, frame: Frame) -> List[FunctionInfo]:
        """The functions of this module in a dict, tuple or list literal bound once to the name
        ``sub`` indexes (``ACTS = {"relu": relu, "soft": softsign}``); [] for anything else."""
        if not isinstance(sub.value, cst.Name):
            return []
        literal = self.index.single_value(sub.value.value, frame.fn)
        if isinstance(literal, cst.Dict):
            values = [el.value for el in literal.elements if isinstance(el, cst.DictElement)]
            if len(values) != len(literal.elements):
                return []
        elif isinstance(literal, (cst.Tuple, cst.List)):
            values = [el.value for el in literal.elements]
        else:
            return []
        out = []
        for v in values:
            if not isinstance(v, cst.Name) or v.value not in self.index.functions:
                return []
            out.append(self.index.functions[v.value])
        return list(dict.fromkeys(out))

    @staticmethod
    def _record_fields(index: ModuleIndex, name: str, args) -> Optional[Tuple[Tuple[str, Value], ...]]:
        """What ``C(...)`` stores in each field it is given, where ``C`` is a record of the module ``index`` (a
        dataclass or NamedTuple whose construction only stores its arguments: ``ModuleIndex.record_class``):
        the value of the argument at the field's position or under its name.  None for any other class, or a
        call with ``*``/``**`` arguments."""
        if not index.record_class(name) or any(arg.star for arg, _ in args):
            return None
        order = [field for field, _ in init_fields(index.classes[name])]
        given: Dict[str, Value] = {}
        for position, (arg, value) in enumerate(args):
            if arg.keyword is not None:
                given[arg.keyword.value] = value
            elif position < len(order):
                given[order[position]] = value
            else:
                return None  # (more arguments than fields: the call raises)
        return tuple(given.items())

    def _construct(self, call: cst.Call, cls, args, frame: Frame) -> None:
        """``C(...)`` of a class of this module given traced values, in traced code: its ``__init__``
        runs here, on them; a dataclass's generated ``__init__`` stores them in its fields in order
        and runs ``__post_init__``, where those fields hold what the call gave (the others, given
        nothing traced or a default, stay static)."""
        init = self.index.find_method(cls, "__init__")
        fresh = Value(Kind.STATIC, instance=cls, fresh=True)
        if init is not None:
            self._call_method(call, cls, "__init__", fresh, args, frame)
            return
        post = self.index.find_method(cls, "__post_init__")
        fields = [name for name, _ in init_fields(cls)] if post is not None and any(
            (dotted_name(d.func if isinstance(d, cst.Call) else d) or "").rsplit(".", 1)[-1] == "dataclass"
            for d in cls.decorators) else None
        if not fields or any(arg.star for arg, _ in args):
            return
        given: Dict[str, Value] = {}
        position = 0
        for arg, value in args:
            if arg.keyword is None:
                if position < len(fields):
                    given[fields[position]] = value
                position += 1
            else:
                given[arg.keyword.value] = value
        traced_fields = [(f, v) for f, v in given.items() if v.kind is Kind.TRACED]
        if not traced_fields:
            return
        statics = frozenset(f for f in fields if f not in dict(traced_fields))
        self_value = Value(Kind.TRACED, traced_fields[0][1].reason, instance=cls, fresh=True, static_attrs=statics)
        self._call_user(call, post, None, [], frame, self_value)

    def _call_method(self, call: cst.Call, cls, method: str, receiver: Value, args, frame: Frame) -> Value:
        fn = self.index.find_method(cls, method)
        best = strongest([v for _, v in args])
        if fn is None and method == "apply" and args:
            # a Flax linen module: `model.apply(variables, *inputs, method=...)` runs __call__
            target = "__call__"
            for arg, _ in args:
                if arg.keyword is not None and arg.keyword.value == "method":
                    target = arg.value.attr.value if isinstance(arg.value, cst.Attribute) else ""
            fn = self.index.find_method(cls, target)
            args = [(a, v) for a, v in args[1:] if a.keyword is None or a.keyword.value not in (
                "method", "rngs", "mutable", "capture_intermediates")]
        if fn is None:
            return MAYBE if best.kind else STATIC
        # (what is known of the instance's class -- its static fields, an nnx module's graph -- goes with it)
        self_value = Value(receiver.kind, receiver.reason, instance=cls, fresh=receiver.fresh,
                           pytree_class=receiver.pytree_class, graph_node=receiver.graph_node,
                           static_attrs=receiver.static_attrs)
        return self._call_user(call, fn, None, args, frame, None if fn.is_static_method else self_value)

    def _function_of(self, expr: cst.BaseExpression,
                     frame: Frame) -> Optional[Tuple[FunctionInfo, Optional[Closure], Optional[Value]]]:
        if isinstance(expr, cst.Lambda):
            info = self.index.infos.get(expr)
            return (info, self._closure(frame), None) if info is not None else None
        if isinstance(expr, cst.Name):
            v = frame.env.get(expr.value)
            if v is None and frame.closure is not None:
                # a function of an enclosing function (`_f1` defined beside `body_fun`, given to a
                # `lax.cond` inside it): what the closure holds
                v = self.read_name(expr, frame, record=False)
                v = v if v.func is not None else None
            if v is not None and v.func is not None and v.bound is None:
                return v.func, v.closure, None
            if v is not None and v.bound is not None:
                return None  # (a partial bound to a name: what it binds is not followed where it is handed on)
            if v is None and expr.value in self.index.functions and not _bound_around(frame.fn, expr.value):
                return self.index.def_seen_from(expr.value, frame.fn), None, None
            return None
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value in ("self", "cls"):
            fn, bound = self.index.resolve_function(expr, frame.fn, frame.fn.cls)
            if fn is not None:
                return fn, None, frame.env.get(expr.value.value, STATIC) if bound else None
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name) and expr.value.value not in frame.env:
            # a method of an instance of a class of this module, bound to a name of an enclosing scope by
            # its only binding (`net = Net()`; `net.apply` of a Flax module runs its `__call__`)
            fn, bound = self.index.resolve_function(expr, frame.fn, None)
            if fn is not None and bound:
                return fn, None, STATIC
        if isinstance(expr, cst.Call) and self.index.qualify(expr.func) == "functools.partial" and expr.args:
            return self._function_of(expr.args[0].value, frame)
        return None

    # ------------------------------------------------ lax control flow keeps the pytree structure
    @staticmethod
    def _traced_like(value: Value, reason: Reason) -> Value:
        """What a lax loop, branch or scan gives for ``value``: the same pytree -- the same tuple,
        list, dict or class instance, whose static fields stay static, and None stays None -- with
        every leaf an array tracer (a Python number in a carry comes back a traced array)."""
        if value.items is not None:
            items = tuple(Analyzer._traced_like(item, reason) for item in value.items)
            return Value(Kind.TRACED, reason, items=items, container=value.container, element=join_all(items))
        if value.has_ends:
            head = tuple(Analyzer._traced_like(item, reason) for item in value.head)
            tail = tuple(Analyzer._traced_like(item, reason) for item in value.tail)
            element = Analyzer._traced_like(value.element, reason) if value.element is not None else \
                traced(reason, is_array=True)
            return Value(Kind.TRACED, reason, head=head, tail=tail, container=value.container,
                         element=join_all(head + tail + (element,)))
        if value.kind is not Kind.STATIC or (value.known and value.const is None) or value.func is not None:
            return value
        if value.mapping:
            return Value(Kind.TRACED, reason, container=True, mapping=True, element=STATIC)
        if value.container:
            return Value(Kind.TRACED, reason, container=True, element=traced(reason, is_array=True))
        if value.instance is not None:
            return Value(Kind.MAYBE, instance=value.instance, static_attrs=value.static_attrs)
        if value.known or value.numpy_array or value.jax_array:
            return traced(reason, is_array=True)
        # an object of unknown structure: a pytree of traced leaves, whose static fields (those
        # its class declares static: aux data, frozen fields) stay Python values
        return traced(reason)

    @staticmethod
    def _lax_argument(call: cst.Call, args, position: int, keyword: str) -> Optional[Value]:
        arg = call_argument(call, position, keyword)
        if arg is None or arg.star:
            return None
        return next((value for a, value in args if a is arg), None)

    def _own_static_params(self, fn: FunctionInfo) -> Set[str]:
        """The parameters a jit decorator of ``fn`` itself makes static (``@partial(jax.jit,
        static_argnums=(0,))``): whatever calls the decorated function (a transform, a lax body, a
        ``custom_vjp``), they reach its code as the Python values given, or the call raises."""
        if self._decorator_statics is None:  # (once per module: not a scan of the entries per call)
            self._decorator_statics = {}
            for entry in self.index.entries:
                if isinstance(entry.site, cst.Decorator) and entry.static_names is not None \
                        and entry.static_nums is not None:
                    self._decorator_statics.setdefault(entry.function, set()).update(entry.static_params())
        return self._decorator_statics.get(fn, set())

    def _static_at_site(self, call: cst.Call, fn: FunctionInfo) -> Set[str]:
        """The parameters of ``fn`` that the transform ``call`` itself makes static
        (``jax.jit(update, static_argnums=(1, 2))`` inside traced code): they reach ``fn`` as the
        Python values the wrapper is called with, or the call raises (JIT502 reports it there)."""
        if self._site_statics is None:  # (once per module)
            self._site_statics = {}
            for entry in self.index.entries:
                if isinstance(entry.site, cst.Call) and entry.transform is not None and not entry.all_traced \
                        and entry.static_names is not None and entry.static_nums is not None:
                    self._site_statics[(entry.site, entry.function)] = entry.static_params()
        return self._site_statics.get((call, fn), set())

    def _wrapper_entry(self, call: cst.Call) -> Optional[EntryPoint]:
        """The jit wrapper bound to a name of this module that ``call`` calls by that name
        (``g = jax.jit(f, static_argnames="n")``, then ``g(x, n)``), when it makes parameters static."""
        if self._call_statics is None:  # (once per module)
            self._call_statics = {}
            for entry in self.index.entries:
                if entry.static_names is None or entry.static_nums is None or entry.all_traced \
                        or isinstance(entry.site, cst.Decorator) or entry.transform is None \
                        or not entry.static_params():
                    continue
                for through in entry.calls:
                    self._call_statics[through] = entry
        return self._call_statics.get(call)

    def _static_through(self, call: cst.Call, fn: FunctionInfo, target: "Analyzer") -> Set[str]:
        """The parameters of ``fn`` that the jit wrapper ``call`` calls makes static: those of a jit
        decorator of ``fn``, or of a wrapper of this module called by its name."""
        own = target._own_static_params(fn)
        entry = self._wrapper_entry(call)
        return own | entry.static_params() if entry is not None and entry.function is fn else own

    def _note_wrapper_statics(self, call: cst.Call, args) -> None:
        """A call of a jit wrapper bound to a name of this module: the tracers it gives static
        parameters (as ``_call_user`` notes for a function whose decorator jits it)."""
        entry = self._wrapper_entry(call)
        if entry is None:
            return
        statics = entry.static_params()
        values = {id(arg): value for arg, value in args}
        for arg, p in entry.bind_args(call):
            value = values.get(id(arg))
            if p is not None and not arg.star and p.name.value in statics and value is not None \
                    and value.traced_array:
                self.facts.traced_static_arguments.append((arg, p.name.value, entry.function, value))

    def _lax_operands(self, call: cst.Call, q: Optional[str], args, fn: FunctionInfo) -> Optional[List[Value]]:
        """The values a lax body is called with, by position, each with the structure of the carry or
        operand it is given (None where the body gets a plain tracer: a loop index, a scanned slice)."""
        if q is None or any(a.star for a, _ in args):
            return None
        reason = Reason(call, f"`{{code}}` calls `{fn.label}` with tracers of the structure it is given")
        if q in jax_api.LAX_CARRIES:
            init = self._lax_argument(call, args, *jax_api.LAX_CARRIES[q])
            if init is None:
                return None
            carry = self._traced_like(init, reason)
            if q == "jax.lax.scan":
                # each step gets a slice of `xs` with the structure of `xs`: a tuple of arrays gives a
                # tuple of slices (`pair == ignore` then compares a tuple with a number: False)
                xs = self._lax_argument(call, args, 2, "xs")
                sliced = self._traced_like(xs, reason) if xs is not None and xs.kind is Kind.TRACED and (
                    xs.items is not None or xs.mapping) else None
                return [carry, sliced]
            return {"jax.lax.fori_loop": [None, carry], "jax.lax.while_loop": [carry]}.get(q, [carry, None])
        if q in jax_api.LAX_OPERANDS:
            operands = [value for a, value in args if a.keyword is None][jax_api.LAX_OPERANDS[q]:]
            return [self._traced_like(value, reason) for value in operands]
        if q == "jax.jvp":
            # the function gets the primals only (the tangents never reach it): a tracer whose primal
            # value is a primal given, concrete where that is, so Python control flow on it works
            # there, as under grad (`vmap(lambda s: jvp(f, (x,), (s,)))` batches only the tangents)
            positional = [value for a, value in args if a.keyword is None]
            primals = positional[1].items if len(positional) > 1 else None
            if primals is None:
                return None
            return [value if value.kind is Kind.TRACED else MAYBE for value in primals]
        return None

    def _lax_result(self, call: cst.Call, q: str, args, returns: List[Value]) -> Optional[Value]:
        """A lax loop returns its carry, a branch what its branches return, with the structure they
        have; None when it cannot be told (a scan's stacked outputs, branches not seen)."""
        reason = Reason(call, "`{code}` returns traced values, with the structure of what it is given")
        if q in jax_api.LAX_CARRIES:
            init = self._lax_argument(call, args, *jax_api.LAX_CARRIES[q])
            if init is None:
                return None
            carry = self._traced_like(init, reason)
            if q != "jax.lax.scan":
                return carry
            outputs = returns[0].items if returns and returns[0].items is not None else None
            stacked = self._traced_like(outputs[1], reason) if outputs is not None and len(outputs) == 2 \
                else traced(reason)
            return Value(Kind.TRACED, reason, items=(carry, stacked))
        if q in jax_api.LAX_MAPS:
            # what the function returns for one element, each leaf stacked: a dict, tuple or list
            # display keeps its structure; anything else is left to the array rules
            shaped = returns and (returns[0].mapping or returns[0].items is not None)
            return self._traced_like(returns[0], reason) if shaped else None
        branches_seen = len(returns) == 2 if q == "jax.lax.cond" else bool(returns)
        return self._traced_like(join_all(returns), reason) if branches_seen else None

    def _transformed_function(self, call: cst.Call, q: Optional[str], args, frame: Frame) -> Optional[Value]:
        """``grad_fn = jax.grad(f, argnums=0)``, later called as ``grad_fn(params, cfg=cfg)``: the
        function the transform makes, traced where it is called, with the facts the same transform
        called at once has (what it does not differentiate or map reaches ``f`` as the caller passes
        it).  None where it is not bound to a name that only calls it (then ``f`` is traced here, with
        every parameter a tracer)."""
        if q is None or call in self.index.called_immediately:
            return None
        plain = [a for a, _ in args if a.keyword is None and not a.star]
        target = self._function_of(plain[0].value, frame) if plain else None
        if target is None or self._traced_positions(call, q, target[0].params) is None \
                or self.index.calls_of_result(call) is None:
            return None
        return Value(func=target[0], closure=target[1], made_by=(call, q, tuple(args)))

    def _partial_bound(self, pairs, frame: Frame) -> Tuple[Tuple[cst.Arg, Value], ...]:
        """What a ``functools.partial`` holds: its arguments after the function with their values, a keyword given
        a field its class declares ``int`` known not to be None (``max_occupancy=nbrs.max_occupancy``)."""
        out = []
        for a, v in pairs:
            if a.keyword is not None and not v.not_none and isinstance(a.value, cst.Attribute) \
                    and self._never_none_expression(a.value, frame.fn, depth=1):
                v = replace(v, not_none=True)
            out.append((a, v))
        return tuple(out)

    def _call_transformed(self, call: cst.Call, callee: Value, args, best: Value, frame: Frame) -> Value:
        """A call of a function a transform made (see ``_transformed_function``): traced as the
        transform called at once, ``jax.grad(f, argnums=0)(params, cfg=cfg)``, is."""
        site, q, site_args = callee.made_by
        self._analyse_function_args(site, q, list(site_args), frame, later=(call, args))
        if best.kind is Kind.TRACED:
            return traced(Reason(call, "`{code}` is computed from a traced value", best.reason))
        return MAYBE if best.kind else STATIC

    def _analyse_function_args(self, call: cst.Call, q: Optional[str], args, frame: Frame,
                               later: Optional[Tuple[cst.Call, list]] = None) -> List[Value]:
        """Functions passed to other functions inside traced code run in the trace too.

        Their parameters are traced when JAX calls them with tracers (transforms,
        lax bodies), follow the trees for tree maps, and are unknown otherwise.
        ``later``: the call of the function the transform made, with its argument values, when it is
        called through a name (``grad_fn(params, cfg=cfg)``) rather than at once.
        """
        transform = jax_api.canonical_transform(q)
        tracing = q is not None and (transform is not None or q in jax_api.NON_STAGING
                                     or q in jax_api.TRACED_BODIES)
        tree_map = q is not None and q in jax_api.TREE_MAPS
        plain = [(a, v) for a, v in args if a.keyword is None and not a.star]
        returns: List[Value] = []
        if q == "functools.partial":
            return returns  # analysed when the partial object is called
        if not tracing and not tree_map and not self._runs_given_functions(call, q, frame):
            return returns
        for arg, _value in args:
            target = self._function_of(arg.value, frame)
            held = _value if _value.bound is not None and _value.func is not None else None
            if target is None and held is not None:
                # `energy_fn = partial(lj_energy, box=box)`, then `jax.grad(energy_fn)(x)`: the function, with
                # the arguments the partial holds bound first
                target = (held.func, held.closure, None)
            if target is None:
                continue
            fn, closure, self_value = target
            if fn is frame.fn:
                continue
            env: Dict[str, Value] = {}
            params = [(p, k) for p, k in fn.params]
            if self_value is not None and params:
                env[params[0][0].name.value] = self_value
                params = params[1:]
                if applies_module(arg.value, fn):
                    params = [(_APPLY_VARIABLES, "positional")] + params  # (the variables come first)
            if isinstance(arg.value, cst.Call):  # functools.partial(f, a, b=...)
                bound_args = self._partial_bound([(a, self.ev(a.value, frame)) for a in arg.value.args[1:]], frame)
            else:
                bound_args = held.bound if held is not None else ()
            bound_values = [v for a, v in bound_args if a.keyword is None and not a.star]
            for (p, _), v in zip(params, bound_values):
                env[p.name.value] = v
            params = params[len(bound_values):]
            for a, v in bound_args:
                if a.keyword is not None:
                    env[a.keyword.value] = v
                elif a.star == "**":
                    tracing = tree_map = False
            label = f"`{q.replace('jax.lax.', 'lax.')}`" if q else "a call"
            if tracing and arg is (plain[0][0] if plain else None):
                self._pass_through(call, q, params, env, frame, label, later)
            trees = [v for a, v in plain if a is not arg]
            if q is not None and q.endswith("with_path"):
                trees = [STATIC] + trees
            given = self._lax_operands(call, q, args, fn) if tracing else self._elements_given(call, q, arg, plain, frame)
            unmapped = self._unmapped_positions(call, q)
            own_static = self._own_static_params(fn) | self._static_at_site(call, fn)
            for index, (p, kind) in enumerate(params):
                name = p.name.value
                if name in env:
                    continue
                if name in own_static:
                    env[name] = STATIC  # the function is itself a jit wrapper that makes it static
                elif p.default is not None or kind == "varkw":
                    env[name] = STATIC
                elif tree_map:
                    tree = trees[index] if index < len(trees) else STATIC
                    env[name] = Value(tree.kind, tree.reason) if tree.kind else STATIC
                elif given is not None and index < len(given) and given[index] is not None:
                    env[name] = self.as_annotated(p, given[index])  # the body states what it takes
                elif index in unmapped and kind in ("posonly", "positional"):
                    env[name] = MAYBE  # not mapped: it reaches `fn` as the wrapper's caller passes it
                elif tracing:
                    # (the index `fori_loop` passes first is an integer array tracer)
                    # (the body states what it takes: a parameter annotated with a class is an instance)
                    env[name] = self.as_annotated(p, traced(Reason(
                        call, f"parameter `{name}` of `{fn.label}` is traced: {label} (line {{line}}) calls it "
                              "with tracers"), is_array=q == "jax.lax.fori_loop" and index == 0))
                else:
                    env[name] = MAYBE
            # (grad, jvp and the like trace without staging: outside a jit their operations run eagerly)
            self._boundary_stages = q not in jax_api.NON_STAGING
            result = self.analyse(fn, env, closure, boundary=tracing, label=label, transform=transform,
                                  depth=frame.depth + 1)
            if fn in self.index.custom_rules and q in jax_api.DIFFERENTIATING_TRANSFORMS \
                    and any(v.kind is Kind.TRACED for v in env.values()):
                self._trace_custom_rules(call, fn, frame.depth)  # `jax.grad(f)(x)` of a custom_jvp `f`
            if arg.keyword is None or arg.keyword.value in ("f", "fun", "fn", "func"):
                returns.append(result)
        return returns

    def _runs_given_functions(self, call: cst.Call, q: Optional[str], frame: Frame) -> bool:
        """Whether functions passed to ``call`` are to be analysed at the call, as code that runs
        in the trace: the callee calls them and jitlint does not follow it there.

        Yes for JAX and the JAX libraries jitlint models, the standard library's and the builtins' callables
        that call what they are given (``functools.reduce(f, xs)``, ``sorted(xs, key=f)``; not
        ``inspect.signature(f)``), and a project class or object it
        cannot follow. No for a function of the project the analysis follows into (``helper(f, x)``,
        ``self.helper(f)``, ``mod.helper(f)``): its body is analysed with ``f`` and runs ``f`` where
        it calls it, and only if it does. No for a library jitlint knows nothing of, or a method of
        an object it cannot see: a function handed to one may be called during the trace (a solver
        calling its vector field) or kept and run on the host later, by XLA (a foreign-function or
        callback wrapper such as Warp's ``jax_callable``), or only stored (``hooks.append(f)``);
        nothing in the code says which, so its body is not taken for traced code on that evidence.
        """
        func = call.func
        if q is not None:
            if q.startswith(("jax.", "jaxlib.") + jax_api.ECOSYSTEM_PACKAGES):
                return True
            top = q.split(".", 1)[0]
            if top in sys.stdlib_module_names or top == "builtins":
                return q.replace("builtins.", "", 1) in _STDLIB_CALLERS
            if self.project is None or not self.project.defines_module(self.path, q):
                return False  # a library jitlint knows nothing of
            return self.project.resolve_function(self.path, q) is None
        if isinstance(func, cst.Name):
            name = func.value
            callee = self.read_name(func, frame, record=False)
            if callee.func is not None or callee.instance is not None:
                return callee.made_by is not None
            return name in self.index.classes or self._calls_builtin(call, frame)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
            return self.index.resolve_function(func, frame.fn, frame.fn.cls)[0] is None
        return False

    def _calls_builtin(self, call: cst.Call, frame: Frame) -> bool:
        """``call`` calls, by its name (not shadowed by a local or a module global), a Python builtin that
        calls a function it is given (``map``, ``sorted(xs, key=f)``; not ``callable(f)`` or ``id(f)``)."""
        func = call.func
        return isinstance(func, cst.Name) and func.value in _STDLIB_CALLERS and func.value not in frame.env \
            and func.value not in self.index.globals

    def _elements_given(self, call: cst.Call, q: Optional[str], fn_arg: cst.Arg, plain, frame: Frame
                        ) -> Optional[List[Value]]:
        """What Python's iterating callers pass the function they are given: ``map(f, xs, ys)`` an
        element of each iterable, ``filter(f, xs)`` and ``sorted(xs, key=f)`` (``min``, ``max``) an
        element, ``functools.reduce(f, xs, init)`` the running result and an element (the elements
        of a traced array are tracers); None for any other call."""
        name = q if q is not None else call.func.value if self._calls_builtin(call, frame) else None
        if name is None:
            return None
        rest = [(a, v) for a, v in plain if a is not fn_arg]
        if name in ("map", "filter") and plain and plain[0][0] is fn_arg and rest:
            return [self.element_of(v, a.value) for a, v in rest]
        if name == "functools.reduce" and plain and plain[0][0] is fn_arg and rest:
            element = self.element_of(rest[0][1], rest[0][0].value)
            return [join(element, rest[1][1]) if len(rest) > 1 else element, element]
        if name in ("sorted", "min", "max") and fn_arg.keyword is not None and fn_arg.keyword.value == "key" and rest:
            if len(rest) == 1:
                return [self.element_of(rest[0][1], rest[0][0].value)]
            return [join_all(v for _, v in rest)]
        return None

    def _unmapped_positions(self, call: cst.Call, q: Optional[str]) -> frozenset:
        """The positions whose ``in_axes`` entry of ``jax.vmap(f, in_axes=...)`` (or of another vmap
        of the family, ``eqx.filter_vmap(f, in_axes=...)``) is None: the vmap passes those arguments
        to ``f`` as they are, unbatched (a Python number stays one).  A name bound once to the
        sequence is read as it (as discovery does)."""
        t = jax_api.TRANSFORMS.get(q or "")
        if t is None or t.in_axes_kw is None:
            return frozenset()
        spec = call_argument(call, t.in_axes_pos if t.in_axes_pos is not None else 99, t.in_axes_kw)
        if spec is None:
            return frozenset()
        scope = self.index.call_scopes.get(call, (None, None))[0]
        return frozenset(ModuleIndex._in_axes(self.index.value_bound_once(spec.value, scope)))

    def _traced_positions(self, call: cst.Call, q: Optional[str], params) -> Optional[Tuple[int, ...]]:
        """The positional arguments the function ``call`` makes gives ``f`` as tracers: what
        ``jax.grad`` differentiates (``argnums``), what ``jax.vmap`` maps; None where that is not known
        or the transform is not one that passes the other arguments through."""
        if q in jax_api.DIFFERENTIATING_TRANSFORMS:
            spec = call_argument(call, 1, "argnums")
            return (0,) if spec is None else _int_literals(spec.value)
        if q == "jax.experimental.checkify.checkify":
            return ()  # checkify runs the function as it is: every argument keeps its kind
        transform = jax_api.canonical_transform(q)
        if transform is not None and transform.filter_static and call_argument(call, 99, "in_axes") is None:
            # equinox's filter transforms trace the arrays they are given and hand every other leaf on as it
            # is (`eqx.filter_vmap(self.flow)(0.0, final_time, states)`: `0.0` reaches `flow` as a Python
            # float, JAX 0.10.2 / equinox 0.13.8): no position is traced for its place, only for its value
            return ()
        if q == "jax.vmap":
            unmapped = self._unmapped_positions(call, q)
            return tuple(i for i in range(len(params)) if i not in unmapped) if unmapped else None
        if q == "jax.numpy.vectorize":
            # `excluded` positions (or names) reach the function as they are: "arguments that will not be
            # vectorized", passed through unchanged (jax 0.10.2: a static int stays an int)
            excluded = call_argument(call, 99, "excluded")
            if excluded is None:
                return None
            items = literal_elements(excluded.value)
            if items is None:
                return None
            out = set(range(len(params)))
            names = [p.name.value for p, _ in params]
            for item in items:
                number, text = int_value(item), string_value(item)
                if number is not None and 0 <= number < len(params):
                    out.discard(number)
                elif isinstance(text, str) and text in names:
                    out.discard(names.index(text))
                else:
                    return None
            return tuple(sorted(out))
        return None

    def _pass_through(self, call: cst.Call, q: Optional[str], params, env: Dict[str, Value], frame: Frame,
                      label: str, later: Optional[Tuple[cst.Call, list]] = None) -> None:
        """``jax.grad(f)(p, x, cfg)`` or ``jax.vmap(f, in_axes=(0, None))(x, n)`` called at once (or
        through the name it is bound to: ``later``): the transform gives ``f`` tracers only for what it
        differentiates or maps; every other argument reaches ``f`` as the caller has it (a static
        ``cfg`` stays static)."""
        if q is None:
            return
        chosen = self._traced_positions(call, q, params)
        if chosen is None:
            return
        outer = later[0] if later is not None else self.index.called_immediately.get(call)
        site = call
        while outer is None and later is None:
            # `jax.jacfwd(jax.jacfwd(f))(x, cfg)`: the transform around this one passes its caller's
            # arguments on as this one does (the same positions), tracing only its own choice of them
            wrap = self._wrapping_transform(site)
            if wrap is None:
                return
            more = self._traced_positions(wrap, self.index.qualify(wrap.func), params)
            if more is None:
                return
            chosen = tuple(sorted(set(chosen) | set(more)))
            site = wrap
            outer = self.index.called_immediately.get(site)
        if outer is None or any(a.star == "**" for a in outer.args):
            return
        given = {id(a): v for a, v in later[1]} if later is not None else {}
        positional = [p for p, k in params if k in ("posonly", "positional")]
        if any(a.star for a in outer.args):
            self._pass_through_unpacked(outer, params, positional, chosen, given, env, frame, label)
            return
        for a, p in bind_arguments(params, outer.args):
            if p is None:
                if a.keyword is None:
                    return
                continue
            value = given[id(a)] if id(a) in given else self.ev(a.value, frame)
            if value.kind is not Kind.TRACED and value.is_array and not chosen \
                    and getattr(jax_api.canonical_transform(q), "filter_static", False):
                continue  # an array a filter transform is given: it traces it (left to the tracing below)
            if a.keyword is None and positional.index(p) in chosen:
                if value.ref:
                    # a reference a transform maps: its traced stand-in is a reference too, written in place
                    env[p.name.value] = traced(Reason(a.value, f"parameter `{p.name.value}` of the function {label} "
                                                                f"wraps receives the array reference `{{code}}`"),
                                               ref=True)
                    continue
                if value.kind is Kind.TRACED and (value.pytree_class is not None or value.graph_node):
                    # an instance of a known class, traced already: the transform traces its leaves
                    # again, and its structure -- the static fields, a module's Python attributes -- stays
                    env[p.name.value] = self._passed_on(p.name.value, a.value, value, label)
                continue  # left to the tracing below
            env[p.name.value] = self._passed_on(p.name.value, a.value, value, label)

    @staticmethod
    def _passed_on(name: str, node: cst.CSTNode, value: Value, label: str) -> Value:
        """``value``, given at ``node``, as parameter ``name`` of the function a transform wraps
        receives it (its reason says so where it is traced)."""
        if value.kind is not Kind.TRACED:
            return value
        return replace(value, reason=Reason(node, f"parameter `{name}` of the function {label} wraps receives "
                                                  f"traced `{{code}}` (line {{line}})", value.reason))

    def _pass_through_unpacked(self, outer: cst.Call, params, positional, chosen, given, env: Dict[str, Value],
                               frame: Frame, label: str) -> None:
        """``_pass_through`` where the call unpacks a sequence of known items into positional
        arguments (``jax.grad(f, argnums=1)(X, c, *args)``, ``args`` a tuple display): each item goes
        to the parameter at its position; nothing is bound when a part's length is not known."""
        slots: List[Tuple[Optional[cst.Arg], Optional[Value]]] = []
        for a in outer.args:
            if a.star == "*":
                value = given[id(a)] if id(a) in given else self.ev(a.value, frame)
                if value.items is None:
                    return
                slots.extend((None, item) for item in value.items)
            elif a.keyword is None:
                slots.append((a, None))
        if len(slots) > len(positional):
            return  # (some go to *args)
        bound: Dict[str, Tuple[cst.CSTNode, Value]] = {}
        for i, (a, value) in enumerate(slots):
            if i in chosen:
                continue  # left to the tracing below
            if value is None:
                value = given[id(a)] if id(a) in given else self.ev(a.value, frame)
            bound[positional[i].name.value] = (a.value if a is not None else outer, value)
        by_name = {p.name.value for p, k in params if k != "posonly"}
        for a in outer.args:
            if a.keyword is not None and a.keyword.value in by_name:
                bound[a.keyword.value] = (a.value, given[id(a)] if id(a) in given else self.ev(a.value, frame))
        for name, (node, value) in bound.items():
            env[name] = self._passed_on(name, node, value, label)

    def _wrapping_transform(self, call: cst.Call) -> Optional[cst.Call]:
        """The transform call ``call`` is the function of (``jax.grad(call)``), if any."""
        arg = self.index.parents.get(id(call))
        wrap = self.index.parents.get(id(arg)) if isinstance(arg, cst.Arg) else None
        if not isinstance(wrap, cst.Call) or not wrap.args or wrap.args[0] is not arg or arg.keyword is not None:
            return None
        return wrap

    def _call_qualified(self, call: cst.Call, q: str, args, best: Value) -> Value:
        short = q.replace("jax.numpy.", "jnp.").replace("jax.lax.", "lax.")
        if q in jax_api.TRACE_ACTIVE_TESTS:
            # "is no trace active?": in traced code, no; the branch it guards runs only eagerly
            return constant(jax_api.TRACE_ACTIVE_TESTS[q])
        if q == "jax.lax.psum" and args and args[0][1].kind is Kind.STATIC and not args[0][1].jax_array:
            return STATIC  # `lax.psum(1, axis)` of a Python number is a Python number (the axis size)
        if q in jax_api.STRUCTURE_PRESERVING and args and args[0][0].keyword is None and not args[0][0].star:
            tree = args[0][1]
            if tree.mapping or tree.container or tree.items is not None or tree.has_ends:
                # `lax.pmean({"loss": l, "rmse": r}, "batch")`: the same dict, each leaf reduced
                return self._traced_like(tree, Reason(call, f"`{short}(...)` gives traced values with the "
                                                            "structure of what it is given", tree.reason))
            if not (tree.is_array or tree.jax_array or tree.leaf or tree.numpy_array) and not self._eager_here():
                # of a value whose structure is not known (a `jax.grad(f, has_aux=True)` auxiliary output, an
                # attribute): the same structure comes back, traced leaves in it, not one array
                return traced(Reason(call, f"`{short}(...)` gives traced values with the structure of what it "
                                           "is given", tree.reason or self._why_here()))
        if jax_api.is_array_function(q):
            if best.kind is Kind.TRACED:
                reason = Reason(call, f"`{short}(...)` of a traced value is traced", best.reason)
            elif self._eager_here():
                # `with jax.ensure_compile_time_eval():` computes it now; so does a trace that is not
                # staged out (vmap alone): only what derives from the mapped arguments is a tracer there,
                # an operation on anything else runs eagerly and gives a concrete array
                return _CONCRETE_ARRAY if any(v.jax_array for _, v in args) else Value(best.kind)
            else:
                reason = Reason(call, f"`{short}(...)` returns a traced array: every JAX operation inside traced "
                                      "code is traced, even on constants", self._why_here())
            is_bool = q in jax_api.BOOLEAN_ARRAY_FUNCTIONS or casts_to_bool(
                call, jax_api.DTYPE_CAST_FUNCTIONS.get(q), self.index.qualify, self.facts.read_scope)
            array = traced(reason, is_array=True, is_bool=is_bool,
                           dtype_kind="b" if is_bool else self._result_dtype_kind(call, q))
            if q in jax_api.LIST_OF_ARRAYS_FUNCTIONS:
                # `jnp.split(x, 2)` gives a Python list of arrays: `parts[i] = ...` rebinds a slot of it
                return Value(Kind.TRACED, reason, container=True, element=array)
            return array
        if q in ("jax.numpy.issubdtype", "numpy.issubdtype") and len(args) == 2:
            decided = self._issubdtype(args)
            if decided is not None:
                return constant(decided)
        if q in ("jax.core.is_concrete", "jax._src.core.is_concrete") and len(args) == 1 \
                and args[0][1].kind is Kind.TRACED:
            return constant(False)  # a tracer is not concrete: `if not is_concrete(x): raise` ends the path
        if jax_api.returns_python_value(q):
            return STATIC
        if q in ("flax.nnx.split", "flax.nnx.graphdef") and args:
            # a graph definition is the node's static structure (a Python object, no array); the states
            # that follow it, one per filter, hold the node's arrays and Variables
            if q == "flax.nnx.graphdef":
                return STATIC
            node = args[0][1]
            state = Value(node.kind, node.reason)
            filters = [a for a, _ in args[1:] if a.keyword is None]
            if any(a.star for a, _ in args):
                return Value(node.kind, node.reason, head=(STATIC,))
            return Value(node.kind, node.reason, items=(STATIC,) + (state,) * max(len(filters), 1))
        if q == "jax.flatten_util.ravel_pytree" and args:
            # (the tree's leaves joined in one 1-D array, the function that undoes it): traced leaves make
            # a traced array
            tree = args[0][1]
            flat = traced(Reason(call, "`ravel_pytree(...)` of a traced tree gives one traced 1-D array of its "
                                       "leaves", tree.reason), is_array=True) \
                if tree.kind is Kind.TRACED else Value(tree.kind, tree.reason)
            return Value(tree.kind, tree.reason, items=(flat, STATIC))
        if q == "haiku.data_structures.traverse" and args:
            tree = args[0][1]
            # (module name, parameter name, value) triples: the names are the mapping's keys, strings
            triple = Value(tree.kind, tree.reason, items=(STATIC, STATIC, Value(tree.kind, tree.reason)),
                           container=True)
            return Value(tree.kind, tree.reason, element=triple, container=True)
        if q.startswith(("jax.tree_util.", "jax.tree.")) or q == "jax.tree_map":
            tail = q.rsplit(".", 1)[-1]
            tree = args[0][1] if args else STATIC
            if tail in ("tree_leaves", "leaves"):
                elem = Value(tree.kind, tree.reason)
                # a pytree that holds a tracer has it among its leaves (one that may be None may not)
                return Value(tree.kind, tree.reason, element=elem, container=True,
                             yields_tracer=tree.kind is Kind.TRACED and not tree.optional)
            if tail in ("tree_flatten", "flatten"):
                elem = Value(tree.kind, tree.reason)
                return Value(tree.kind, tree.reason, items=(Value(tree.kind, tree.reason, element=elem), STATIC))
            if tail in ("tree_flatten_with_path", "flatten_with_path", "tree_leaves_with_path", "leaves_with_path"):
                # (key path, leaf) pairs: a key path is a tuple of keys, part of the tree's
                # structure (static); the leaf is whatever the tree holds
                leaf = Value(tree.kind, tree.reason)
                pair = Value(tree.kind, tree.reason, items=(STATIC, leaf), container=True)
                pairs = Value(tree.kind, tree.reason, element=pair, container=True)
                return pairs if tail.endswith("leaves_with_path") else Value(tree.kind, tree.reason,
                                                                               items=(pairs, STATIC))
            if tail in ("tree_structure", "structure", "treedef_is_leaf", "all_leaves"):
                return STATIC
            trees = [v for a, v in args if not isinstance(a.value, cst.Lambda)]
            return strongest(trees) if strongest(trees).kind else STATIC
        if q.startswith(("numpy.random.", "random.", "time.", "logging.", "math.", "os.", "sys.")):
            return STATIC
        if q.startswith(("numpy.", "scipy.")):
            if best.kind is Kind.TRACED and jax_api.numpy_fails_on_tracer(q):
                # on a tracer it raises (JIT302 reports that call, or a handler catches it): what
                # code after it sees is a NumPy value, so the failure is reported once, where it is
                return Value(numpy_array=True)
            if best.kind is Kind.TRACED:
                return traced(Reason(call, "`{code}` is computed from a traced value", best.reason))
            if jax_api.makes_numpy_array(q, call) and (not best.kind or jax_api.numpy_fails_on_tracer(q)):
                # `np.zeros(3)` in traced code is a concrete NumPy array; so is `np.asarray(v)` of a value
                # that may be traced: on a tracer it raises there, so what follows sees NumPy
                return Value(numpy_array=True)
            return best if best.kind else STATIC
        if jax_api.canonical_transform(q) is not None or q in jax_api.NON_STAGING:
            return MAYBE
        if q in jax_api.ARRAY_RETURNING_JAX_FUNCTIONS:
            if best.kind is Kind.TRACED:
                return traced(Reason(call, "`{code}` is computed from a traced value", best.reason))
            return best if best.kind else STATIC
        if q.startswith(jax_api.ECOSYSTEM_PACKAGES) and best.kind is Kind.TRACED \
                and not self._looks_static(q.rsplit(".", 1)[-1]) and ".assert" not in q:
            return traced(Reason(call, "`{code}` is computed from a traced value", best.reason))
        return self._unknown_call(call, q.rsplit(".", 1)[-1], best)

    @staticmethod
    def _looks_static(name: str) -> bool:
        name = name.lstrip("_")
        if "tracer" in name or name.startswith("not_"):
            return True
        return name.startswith(("is_", "has_", "check_", "get_shape", "shape", "ndim")) or name.endswith(
            ("_shape", "_ndim", "_dtype", "shape", "_size", "_axis", "_axes"))

    def _unknown_call(self, call: cst.Call, name: str, best: Value) -> Value:
        """A function jitlint cannot see: its result may or may not be traced."""
        if best.kind and self._looks_static(name):
            return STATIC
        return MAYBE if best.kind else STATIC

    def _call_builtin(self, call: cst.Call, name: str, args, best: Value) -> Value:
        if name in ("int", "float", "bool", "complex") and self.conversions_caught:
            if args and args[0][1].kind is Kind.TRACED:
                raise _Terminated  # on a traced value it raises, and the handler around catches it
            return STATIC  # a conversion that did not raise (the handler catches what it raises)
        if name in ("str", "repr", "format") and best.kind is Kind.TRACED:
            return Value(formats_tracer=Reason(call, "`{code}` turns a traced value into a string", best.reason))
        if name in jax_api.STATIC_BUILTINS:
            if name == "range":
                return Value(element=STATIC)
            if name == "isinstance" and self._isinstance_false(args):
                return constant(False)
            if name == "isinstance" and self._isinstance_true(args):
                return constant(True)
            if name == "hasattr" and len(args) == 2 and args[0][1].traced_array:
                attr = string_value(args[1][0].value)
                if attr in jax_api.TRACER_LACKS:
                    return constant(False)  # `if hasattr(x, "sharding"):` is never taken on a tracer
                if attr in jax_api.TRACER_HAS:
                    return constant(True)  # `if hasattr(x, "shape"): x = x.shape` always is
            return STATIC
        first = args[0][1] if args else STATIC
        if name in ("any", "all") and len(call.args) == 1 and isinstance(call.args[0].value, cst.GeneratorExp):
            decided = self._instance_test_of_each(name, call.args[0].value)
            if decided is not None:
                return constant(decided)
        if name == "enumerate":
            return Value(first.kind, first.reason, element=Value(first.kind, first.reason,
                                                                 items=(STATIC, self.element_of(first, call))))
        if name == "zip":
            elems = tuple(self.element_of(v, call) for _, v in args if not _.keyword)
            b = strongest(elems)
            return Value(b.kind, b.reason, element=Value(b.kind, b.reason, items=elems))
        if name in ("set", "frozenset") and self.element_of(first, call).kind is not Kind.TRACED:
            return HASHED  # (a set of tracers raises TypeError: that call keeps the value below)
        if name in ("list", "tuple", "reversed", "iter", "sorted", "set", "frozenset"):
            if not args:
                return Value(container=True)
            element = self.element_of(first, call)
            if element.kind is Kind.STATIC:
                # what it holds is static (a dict's keys: `sorted(state)`): a Python list of Python values
                return Value(element=element, container=True)
            return Value(first.kind, first.reason, element=element, container=True, foreign=first.foreign)
        if name == "next":
            return self.element_of(first, call)
        if name == "dict":
            return self._dict_call(args)
        if name == "getattr" and len(args) >= 3:
            return STATIC  # probing for an optional attribute: configuration, not data
        if name == "getattr" and len(args) >= 2:
            attr = string_value(args[1][0].value)
            if attr in jax_api.STATIC_ATTRIBUTES:
                return STATIC
            return Value(first.kind, first.reason) if first.kind else STATIC
        if name in jax_api.PASS_THROUGH_BUILTINS:
            if best.kind is Kind.TRACED:
                return traced(Reason(call, "`{code}` is computed from a traced value", best.reason))
            if name in ("sum", "min", "max") and first.element is not None and first.element.kind is Kind.TRACED:
                return traced(Reason(call, "`{code}` is computed from traced values", first.element.reason))
            return best if best.kind else STATIC
        return self._unknown_call(call, name, best)

    @staticmethod
    def _dict_call(args) -> Value:
        """``dict(size=(2,), data=x)`` builds what ``{"size": (2,), "data": x}`` does: a mapping whose
        keys are static, each keyword's value read back as it was given (see ``_ev_dict``); a
        positional mapping contributes the keys it is known to hold as Python values."""
        values: List[Value] = []
        static_keys: Set[str] = set()
        for arg, value in args:
            values.append(value)
            if arg.star:
                static_keys.clear()  # `**other` may bind any key again
            elif arg.keyword is None:
                static_keys = set(value.static_keys) if value.mapping else set()
            elif value.kind is Kind.STATIC and not value.container:
                static_keys.add(arg.keyword.value)
            else:
                static_keys.discard(arg.keyword.value)
        best = strongest(values) if values else STATIC
        return Value(best.kind, best.reason, container=True, mapping=True, element=STATIC,
                     static_keys=frozenset(static_keys))

    def _isinstance_false(self, args) -> bool:
        """``isinstance(v, T)`` (``v`` a name) that is False under tracing: ``v`` holds tracers (a
        tracer, or a pytree of them) and ``T`` holds only concrete values (a Python or NumPy scalar
        type, ``np.ndarray``); or ``v`` is a static Python value, not a concrete JAX array, and ``T``
        is JAX's array or tracer type -- a static argument must be hashable and a ``jax.Array`` is
        not. (An attribute of a static object, hashed by identity, may still hold an array: only a
        name is decided.)"""
        if len(args) != 2 or any(arg.keyword is not None or arg.star for arg, _ in args):
            return False
        (tested, value), (types, _) = args
        if not isinstance(tested.value, cst.Name):
            # a traced attribute or element is a tracer (or a pytree of them) all the same
            return value.kind is Kind.TRACED and isinstance(tested.value, (cst.Attribute, cst.Subscript)) \
                and self._instance_types(types.value) == "concrete"
        if value.func is not None and value.kind is Kind.STATIC and value.instance is None:
            # a function (or a partial of one) is an instance of no class this module defines
            # plainly: `isinstance(step_or_problem, Problem)` where a lambda is passed
            alternatives = _type_alternatives(types.value)
            if alternatives and all(isinstance(t, cst.Name) and self.index.plain_class(t.value) for t in alternatives):
                return True
        kind = self._instance_types(types.value)
        if value.kind is Kind.TRACED:
            return kind == "concrete"
        return value.kind is Kind.STATIC and not value.jax_array and kind in ("tracer", "jax array")

    def _isinstance_true(self, args) -> bool:
        """``isinstance(v, Tracer)`` (or ``jax.Array``) of an array tracer: True under tracing (a pytree
        of tracers is not one, so only an array is decided). ``v`` may be any expression whose value
        is a tracer by evidence: an element of a list of them (``isinstance(parts[0], jax.Array)``),
        an attribute holding one. Where the value is not traced the other arm runs, on concrete
        values."""
        if len(args) != 2 or any(arg.keyword is not None or arg.star for arg, _ in args):
            return False
        (tested, value), (types, _) = args
        return value.traced_array and self._instance_types(types.value) in ("tracer", "jax array", "some jax array")

    def _instance_test_of_each(self, how: str, gen: cst.GeneratorExp) -> Optional[bool]:
        """``any(isinstance(v, T) for v in (a, b))`` / ``all(...)`` decided under tracing: each
        ``isinstance`` of the names listed is decided (see ``_isinstance_true``/``_false``).

        Over the leaves of a pytree that holds a tracer (``for v in jax.tree.leaves(t)``, also
        through a name bound to them), one element is a tracer: for it ``isinstance(v, Tracer)``
        is True and ``isinstance(v, float)`` False, which decides ``any`` of the first and ``all``
        of the second (and of their negations the other way round); nothing is known of the
        other leaves."""
        comp, test, negated = gen.for_in, gen.elt, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        if comp.inner_for_in is not None or comp.ifs or not isinstance(comp.target, cst.Name) or not (
                isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"
                and len(test.args) == 2 and isinstance(test.args[0].value, cst.Name)
                and test.args[0].value.value == comp.target.value):
            return None
        listed = _over_listed(gen)
        truths: List[Optional[bool]] = []
        if listed is None:
            iterable = self._generator_iterables.get(gen)
            if iterable is None or not iterable.yields_tracer:
                return None
            kind = self._instance_types(test.args[1].value)
            # the tracer among the leaves; the other leaves are not known
            decided = True if kind in ("tracer", "jax array", "some jax array") else False if kind == "concrete" else None
            truths = [decided, None]
        for item in listed[1] if listed is not None else ():
            if not isinstance(item, cst.Name):
                truths.append(None)  # only a name is decided
                continue
            pair = [(cst.Arg(item), self.facts.value(item)), (test.args[1], STATIC)]
            truths.append(True if self._isinstance_true(pair) else False if self._isinstance_false(pair) else None)
        if negated:
            truths = [None if t is None else not t for t in truths]
        if how == "any":
            return True if True in truths else False if all(t is False for t in truths) else None
        return False if False in truths else True if all(t is True for t in truths) else None

    def _method_on_traced(self, call: cst.Call, method: str, receiver: Value, best: Value) -> Value:
        if method in jax_api.STATIC_METHODS or method in jax_api.STATIC_ATTRIBUTES:
            return STATIC
        if method == "items":
            value = Value(receiver.kind, receiver.reason)
            return Value(receiver.kind, receiver.reason, element=Value(receiver.kind, receiver.reason,
                                                                       items=(STATIC, value)))
        if method == "values":
            return Value(receiver.kind, receiver.reason, element=Value(receiver.kind, receiver.reason))
        if method in ("format", "join"):
            return Value(formats_tracer=Reason(call, "a traced value is formatted into a string", receiver.reason))
        if method == "get":
            key = string_value(call.args[0].value) if call.args else None
            if key is not None and key in receiver.static_keys:
                return STATIC
            return Value(receiver.kind, receiver.reason)  # a value of a dict of the pytree
        if method == "copy" and not call.args and not receiver.traced_array:
            # a dict, a list and a set have `.copy()` too: the copy of a pytree of unknown structure is that
            # structure again (`new_params = params.copy()`, then `new_params["params"][k] = ...`), no array
            return receiver
        array_method = method in jax_api.ARRAY_METHODS or method in jax_api.NUMPY_ARRAY_METHODS
        if not receiver.traced_array and not array_method:
            # a method of a pytree object (`model.dofs()`): it may read static fields only, so its
            # result is traced only when traced arguments go in; and then what it returns may mix
            # arrays and Python values (`[(w * z, 0, 0), (w * z**2, -1, 1)]`: a weight with static
            # tags), so the parts that iterating or unpacking it gives are of unknown kind
            if best.kind is Kind.TRACED:
                return Value(Kind.TRACED, Reason(call, "`{code}` is computed from a traced value", best.reason),
                             element=MAYBE)
            return MAYBE
        cast = jax_api.DTYPE_CAST_METHODS.get(method)
        dtype_arg = call_argument(call, *cast) if cast is not None else None
        return traced(Reason(call, "`{code}` is computed from a traced value", receiver.reason),
                      is_array=receiver.is_array, leaf=True,
                      is_bool=casts_to_bool(call, cast, self.index.qualify, self.facts.read_scope),
                      dtype_kind=dtype_kind_of(dtype_arg.value, self.index.qualify, self.facts.read_scope)
                      if dtype_arg is not None else None)

    def _call_user(self, call: cst.Call, fn: FunctionInfo, closure: Optional[Closure], args, frame: Frame,
                   self_value: Optional[Value], target: Optional["Analyzer"] = None) -> Value:
        """A call into a function jitlint can see: analyse it with the arguments it gets.

        ``target`` is the analyzer of another module of the project (a helper
        imported from it); its findings are reported in that module.
        """
        target = target or self._owner_of(fn)
        params = fn.params
        env: Dict[str, Value] = {}
        positional = [p for p, k in params if k in ("posonly", "positional")]
        if self_value is not None and positional:
            env[positional[0].name.value] = self_value
        open_params = [(p, k) for p, k in params if p.name.value not in env]
        extra_pos: List[Value] = []
        extra_kw: List[Value] = []
        unknown = False
        statics = self._static_through(call, fn, target)
        args = _spread_known_items(args)
        stars = [(arg, value) for arg, value in args if arg.star]
        # the one unpacking of a traced value, the last argument, when it is one (see below)
        spread = stars[0] if len(stars) == 1 and stars[0][0].star == "*" and args[-1][0] is stars[0][0] \
            and stars[0][1].kind is Kind.TRACED else None
        for (arg, value), (_, p) in zip(args, bind_arguments(open_params, [arg for arg, _ in args])):
            unknown = unknown or bool(arg.star)
            if p is not None and p.name.value in statics and value.kind is Kind.TRACED:
                # the wrapper hashes what a static parameter gets: a tracer raises at this call, and
                # past it the function sees only the Python values its callers may give
                if value.traced_array and not arg.star:
                    self.facts.traced_static_arguments.append((arg, p.name.value, fn, value))
                env[p.name.value] = STATIC
            elif p is not None:
                env[p.name.value] = target.as_annotated(p, self._param_value(fn, p, value, arg, target is not self))
            elif arg.keyword is None and arg.star == "*":
                # `g(*args)`: what goes into g's `*rest` is args' items, not args itself
                extra_pos.extend(value.items if value.items is not None else
                                 [value.element if value.element is not None else
                                  Value(value.kind, value.reason) if value.kind else STATIC])
            elif arg.keyword is None and arg.star != "**":
                extra_pos.append(value)
            else:
                extra_kw.append(value)
        for p, kind in params:
            pname = p.name.value
            if pname in env:
                continue
            if kind == "vararg":
                b = strongest(extra_pos)
                # the tuple of the extra positional arguments: iterating it yields a tracer where one of
                # them is an array tracer (`any(isinstance(a, Tracer) for a in arrays)` is True there)
                env[pname] = Value(b.kind, b.reason, container=True, element=b,
                                   yields_tracer=any(v.traced_array for v in extra_pos))
            elif kind == "varkw":
                b = strongest(extra_kw)
                # a dict of the keyword arguments: its keys are their names, strings (iterating it,
                # `set(kwargs)`, `sorted(kwargs)` give Python values), its values what was passed
                env[pname] = Value(b.kind, b.reason, container=True, mapping=True, element=STATIC)
            elif unknown and kind in ("posonly", "positional") and p.default is None and spread is not None:
                # (`self.predict(*carry)` of a traced carry: a parameter the call must fill gets a part of it, a
                # pytree of tracers)
                spread_code = self.index.module.code_for_node(spread[0].value)
                env[pname] = traced(Reason(call, f"parameter `{pname}` of `{fn.label}` gets a part of traced "
                                                 f"`{spread_code}` (line {{line}})", spread[1].reason))
            elif unknown:
                b = strongest(extra_pos + extra_kw)
                env[pname] = MAYBE if b.kind else STATIC
            else:
                env[pname] = default_value(p)  # left at its default
        # a helper of another module runs in the caller's trace: kept (jit) or made again on every call
        # (vmap alone) as the caller's is
        if target is not self and frame.fn in self.facts.bodies:
            body = target.facts.bodies.get(fn)
            if body is None:  # made here, as analyse would, to say where it is called from
                body = target.facts.bodies[fn] = BodyInfo(fn, allows_attribute_writes=False, abstract_only=False)
            if body.called_from is None or (self._kept and body.called_from_kept is None):
                body.note_call(CallSite(call, frame.fn, self.facts, self.path), self._kept)  # (another module)
        saved_cached, target._cached = target._cached, self._cached
        saved_fresh, target._fresh = target._fresh, self._fresh
        saved_per_call, target._per_call = target._per_call, self._per_call
        try:
            result = target.as_returned(fn, target.analyse(fn, env, closure, boundary=False, label="",
                                                           transform=None, depth=frame.depth + 1))
        finally:
            target._cached = saved_cached
            target._fresh = saved_fresh
            target._per_call = saved_per_call
        reused = target.memo_hit
        if target is self and any(v.kind is Kind.TRACED for v in env.values()):
            self._trace_custom_rules(call, fn, frame.depth)
        if target is not self:
            result = target._leaving_module(result)  # its parts' reasons are in that module's file
            if result.reason is not None:
                result = replace(result, reason=Reason(call, "`{code}` returns a traced value", None))
        if not result.not_none and result.kind is not Kind.TRACED and target.returns_never_none(fn):
            result = replace(result, not_none=True)  # `p = select(digits, cond)`: `p is None` is False
        if result.kind is Kind.TRACED:
            best = strongest([v for _, v in args])
            parent = best.reason if best.kind is Kind.TRACED else result.reason
            reason = Reason(call, f"`{{code}}` returns a traced value (`{fn.label}` computes it from traced "
                                  "inputs)", parent)
            items = result.items
            if reused and items is not None and best.kind is Kind.TRACED:
                # the items' reasons lead to the arguments of the call the result was made for: lead
                # them to this call's instead
                items = tuple(replace(v, reason=reason) if v.kind is Kind.TRACED else v for v in items)
            return replace(result, reason=reason, items=items)
        return result

    def _differentiates(self, site: cst.CSTNode) -> bool:
        """The transforms of an entry's site (``jax.jit(jax.grad(f))``, outermost first) include one
        that differentiates: only then do a custom_jvp / custom_vjp function's rules run."""
        node = site.decorator if isinstance(site, cst.Decorator) else site
        while isinstance(node, cst.Call) and node.args:
            q = self.index.qualify(node.func) or ""
            if q in jax_api.DIFFERENTIATING_TRANSFORMS:
                return True
            node = node.args[0].value
        return False

    def _trace_custom_rules(self, call: cst.CSTNode, fn: FunctionInfo, depth: int) -> None:
        """A ``custom_jvp`` / ``custom_vjp`` function called with tracers (``call``: the call, or the
        site that traces it): its rules run, on tracers, whenever it is differentiated inside the
        trace (JAX_HAZARDS F)."""
        nondiff = self.index.nondiff_argnums(fn)
        primal_params = [p.name.value for p, _ in fn.params]
        static_names = {primal_params[i] for i in nondiff if i < len(primal_params)}
        for rule, leading in self.index.custom_rules.get(fn, ()):
            label = f"`{fn.name}`'s differentiation rule"
            env = {}
            for i, (p, kind) in enumerate(rule.params):
                if p.name.value in static_names or (leading and i < len(nondiff)):
                    env[p.name.value] = STATIC  # a nondiff argument: a Python value
                    continue
                env[p.name.value] = traced(Reason(call, f"parameter `{p.name.value}` of `{rule.label}` is traced: "
                                                        f"{label} runs on tracers when `{fn.name}` (line {{line}}) "
                                                        "is differentiated in traced code"),
                                           container=kind in ("vararg", "varkw"))
            self.analyse(rule, env, None, boundary=True, label=label, transform=None, depth=depth + 1)

    def _param_value(self, fn: FunctionInfo, p: cst.Param, value: Value, arg: cst.Arg,
                     other_module: bool = False) -> Value:
        if other_module:
            # what iterating gives is kept only when it is static (a dict's keys): a plain Python value
            keys = STATIC if value.element is not None and value.element.kind is Kind.STATIC else None
            # a function value stays one: called there, it is analysed in its own module
            value = replace(value, instance=None, items=None, head=(), tail=(), element=keys)
        if value.kind is not Kind.TRACED:
            return value
        where = (self.index.module, self.path) if other_module else (None, None)
        return replace(value, reason=Reason(arg.value, f"parameter `{p.name.value}` of `{fn.label}` receives "
                                                       f"traced `{{code}}` (line {{line}})", value.reason,
                                            module=where[0], path=where[1]))

    # ============================================================= dispatch
    #: how each kind of statement runs (a kind not here runs without effect: ``pass``, ``global``)
    _STATEMENTS = {
        cst.SimpleStatementLine: _exec_simple_statements, cst.SimpleStatementSuite: _exec_simple_statements,
        cst.If: _exec_if, cst.For: _exec_for, cst.While: _exec_while, cst.With: _exec_with,
        cst.Try: _exec_try, cst.TryStar: _exec_try, cst.FunctionDef: _exec_function_def,
        cst.ClassDef: _exec_class_def, cst.Match: _exec_match,
        cst.Expr: _exec_expr, cst.Assign: _exec_assign, cst.AnnAssign: _exec_ann_assign,
        cst.AugAssign: _exec_aug_assign, cst.Return: _exec_return, cst.Raise: _exec_raise,
        cst.Assert: _exec_assert, cst.Break: _exec_break, cst.Continue: _exec_continue,
        cst.Import: _exec_import, cst.ImportFrom: _exec_import, cst.Del: _exec_del,
    }
    #: how each kind of expression is evaluated (a kind not here may be anything: MAYBE)
    _EXPRESSIONS = {
        cst.Name: read_name, cst.Integer: _ev_literal, cst.SimpleString: _ev_literal,
        cst.Float: _ev_static, cst.Imaginary: _ev_static, cst.Ellipsis: _ev_static,
        cst.ConcatenatedString: _ev_concatenated_string, cst.FormattedString: _ev_formatted_string,
        cst.Attribute: _ev_attribute, cst.Call: _ev_call, cst.Subscript: _ev_subscript,
        cst.BinaryOperation: _ev_binary_operation, cst.UnaryOperation: _ev_unary_operation,
        cst.BooleanOperation: _ev_boolean_operation, cst.Comparison: _ev_comparison, cst.IfExp: _ev_if_exp,
        cst.Tuple: _ev_sequence, cst.List: _ev_sequence, cst.Set: _ev_sequence, cst.Dict: _ev_dict,
        cst.ListComp: _ev_comprehension, cst.SetComp: _ev_comprehension, cst.GeneratorExp: _ev_comprehension,
        cst.DictComp: _ev_comprehension, cst.Lambda: _ev_lambda, cst.NamedExpr: _ev_named_expr,
        cst.Await: _ev_await_or_yield, cst.Yield: _ev_await_or_yield, cst.StarredElement: _ev_starred,
    }
    #: how a call is followed, by the kind of its callee (any other kind: ``_call_value``)
    _CALLEES = {cst.Name: _call_name, cst.Attribute: _call_attribute}


def analyse_module(index: ModuleIndex) -> Facts:
    return Analyzer(index).run()


