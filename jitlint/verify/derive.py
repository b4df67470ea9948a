"""Example inputs derived from how a function uses its parameters (parent side: reads the source only).

When a function has no inputs from anywhere else (no ``EXAMPLES``, no
``--examples``, no annotations, no recorded calls), the verifier builds some
from the code itself.  Each parameter is read from its uses in the body (and
in the module's functions it is passed on to, two calls deep):

* array arithmetic, ``jnp``/``lax`` calls, comparisons: a float array, tried
  as 1-D, a scalar and 2-D;
* ``x @ w``, ``jnp.dot``/``jnp.matmul``: a matrix or a vector (2-D first);
  ``x[i, j]``, ``x.shape[1]``, ``x.T``: at least that many dimensions;
* ``range(n)``, a slice bound, an index, a size given to ``jnp.zeros`` /
  ``reshape`` / ``lax.fori_loop``: a small Python int;
* used only for its truth (``if flag:``, ``not flag``, ``a if flag else b``):
  a bool, tried both True and False (also when it has a default);
* ``p["w"]``: a dict with those keys; ``p.w`` (not an array attribute): an
  object with those fields (a NamedTuple, which jax.jit can take); each field
  read by the same rules;
* the first argument of a ``jax.random`` function: a PRNG key.

The result is a :data:`DerivedSpec` (plain JSON) that the subprocess turns
into candidate calls (:func:`jitlint.verify.build.derived_calls`): several
shapes and values, the ones under which the original runs eagerly kept.
Nothing here imports jax or the user's code.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis.syntax import params_of, string_value

#: properties of an array: ``p.shape`` says p is an array, not a record
ARRAY_PROPERTIES = frozenset({"shape", "dtype", "ndim", "size", "T", "mT", "real", "imag", "at", "nbytes",
                              "itemsize", "sharding"})
#: methods of an array: ``p.sum()`` (called) says p is an array; ``p.mean`` not called is a field of p
ARRAY_METHODS = frozenset({
    "astype", "reshape", "sum", "mean", "max", "min", "std", "var", "prod", "argmax", "argmin", "transpose",
    "squeeze", "ravel", "flatten", "clip", "round", "dot", "all", "any", "cumsum", "conj", "item", "tolist",
    "swapaxes", "block_until_ready", "copy", "devices", "view", "repeat", "sort", "argsort", "nonzero", "trace",
    "diagonal",
})

#: calls whose array arguments are sizes or bounds (Python ints): name -> positions (None: all)
SIZE_CALLS: Dict[str, Optional[Tuple[int, ...]]] = {
    "range": None, "jax.numpy.zeros": (0,), "jax.numpy.ones": (0,), "jax.numpy.empty": (0,),
    "jax.numpy.full": (0,), "jax.numpy.arange": None, "jax.numpy.eye": None, "jax.numpy.identity": (0,),
    "jax.numpy.tri": None, "numpy.zeros": (0,), "numpy.ones": (0,), "numpy.arange": None, "numpy.eye": None,
    "jax.lax.fori_loop": (0, 1), "jax.numpy.linspace": (2,), "jax.numpy.tile": (1,),
    "jax.numpy.broadcast_to": (1,), "jax.random.split": (1,),
}
MATMUL_CALLS = frozenset({"jax.numpy.dot", "jax.numpy.matmul", "jax.numpy.vdot", "jax.numpy.inner",
                          "jax.numpy.linalg.solve", "jax.numpy.tensordot"})
#: transforms whose result is called with the wrapped function's own arguments
PASS_THROUGH = frozenset({"jax.grad", "jax.value_and_grad", "jax.jit", "jax.checkpoint", "jax.remat",
                          "functools.partial"})
#: how deep uses are followed into the module's other functions
CALL_DEPTH = 2
#: array ranks tried, in order, for an array with no constraint
DEFAULT_RANKS = (1, 0, 2)


@dataclass
class _Use:
    """What one access path (``p``, ``p["w"]``, ``p.w``) was seen doing."""

    tags: Set[str] = field(default_factory=set)
    min_rank: int = 0
    #: children, in order of appearance: ("key", "w") or ("attr", "w")
    children: Dict[Tuple[str, str], "_Use"] = field(default_factory=dict)
    tuple_len: int = 0

    def merge(self, other: "_Use") -> None:
        self.tags |= other.tags
        self.min_rank = max(self.min_rank, other.min_rank)
        self.tuple_len = max(self.tuple_len, other.tuple_len)
        for key, child in other.children.items():
            self.children.setdefault(key, _Use()).merge(child)


class _Collector:
    """Walks one function body, recording the uses of each parameter's access paths."""

    def __init__(self, index: Any, names: Sequence[str], depth: int, seen: Set[str]) -> None:
        self.index = index
        self.uses: Dict[str, _Use] = {n: _Use() for n in names}
        self.depth = depth
        self.seen = seen
        #: the ``p.sum`` of calls ``p.sum()``: array methods, not fields
        self.called: Set[int] = set()

    # -- paths
    def path_use(self, node: cst.CSTNode) -> Optional[_Use]:
        """The record of ``node`` when it is a parameter's access path."""
        if isinstance(node, cst.Name):
            return self.uses.get(node.value)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = string_value(node.slice[0].slice.value)
            if key is not None:
                base = self.path_use(node.value)
                return base.children.setdefault(("key", key), _Use()) if base is not None else None
        if isinstance(node, cst.Attribute) and node.attr.value not in ARRAY_PROPERTIES \
                and id(node) not in self.called:
            base = self.path_use(node.value)
            if base is not None and not self._is_module(node.value):
                return base.children.setdefault(("attr", node.attr.value), _Use())
        return None

    def _is_module(self, node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Name) and node.value not in self.uses

    def tag(self, node: cst.CSTNode, tag: str, min_rank: int = 0) -> None:
        use = self.path_use(node)
        if use is not None:
            use.tags.add(tag)
            use.min_rank = max(use.min_rank, min_rank)

    def qualify(self, node: cst.CSTNode) -> Optional[str]:
        q = self.index.qualify(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        if q is None and isinstance(node, cst.Name):
            return node.value
        return q

    # -- the walk
    def walk(self, node: cst.CSTNode) -> None:
        handler = getattr(self, "on_" + type(node).__name__, None)
        if handler is not None:
            handler(node)
        for child in node.children:
            self.walk(child)

    def on_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply):
            self.tag(node.left, "matmul", 1)
            self.tag(node.right, "matmul", 1)
        else:
            self.tag(node.left, "arith")
            self.tag(node.right, "arith")

    def on_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        self.tag(node.expression, "truth" if isinstance(node.operator, cst.Not) else "arith")

    def on_Comparison(self, node: cst.Comparison) -> None:
        self.tag(node.left, "arith")
        for target in node.comparisons:
            if not isinstance(target.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                self.tag(target.comparator, "arith")

    def on_AugAssign(self, node: cst.AugAssign) -> None:
        self.tag(node.value, "arith")

    def on_If(self, node: cst.If) -> None:
        self.tag(node.test, "truth")

    def on_IfExp(self, node: cst.IfExp) -> None:
        self.tag(node.test, "truth")

    def on_While(self, node: cst.While) -> None:
        self.tag(node.test, "truth")

    def on_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self.tag(node.left, "truth")
        self.tag(node.right, "truth")

    def on_For(self, node: cst.For) -> None:
        self.tag(node.iter, "array", 1)

    def on_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, (cst.Tuple, cst.List)):
                use = self.path_use(node.value)
                if use is not None:
                    use.tuple_len = max(use.tuple_len, len(target.target.elements))

    def on_Attribute(self, node: cst.Attribute) -> None:
        attr = node.attr.value
        if attr in ARRAY_PROPERTIES:
            self.tag(node.value, "array", 2 if attr in ("T", "mT") else 0)
        elif id(node) in self.called:
            self.tag(node.value, "array")  # p.sum(): an array method, called
        else:
            self.path_use(node)  # p.w: a field of p, whatever it is used for

    def on_Subscript(self, node: cst.Subscript) -> None:
        elements = [el.slice for el in node.slice]
        # x.shape[k]: x has more than k dimensions
        if isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" and len(elements) == 1 \
                and isinstance(elements[0], cst.Index) and isinstance(elements[0].value, cst.Integer):
            k = int(elements[0].value.value)
            self.tag(node.value.value, "array", k + 1)
            return
        if len(elements) == 1 and isinstance(elements[0], cst.Index) \
                and string_value(elements[0].value) is not None:
            self.path_use(node)  # a key: p["w"] is a path
            return
        dims = sum(1 for el in elements if not (isinstance(el, cst.Index) and (
            isinstance(el.value, cst.Ellipsis) or (isinstance(el.value, cst.Name) and el.value.value == "None"))))
        self.tag(node.value, "array", dims)
        for el in elements:
            if isinstance(el, cst.Index):
                self.tag(el.value, "int")
            else:
                for bound in (el.lower, el.upper, el.step):
                    if bound is not None:
                        self.tag(bound, "int")

    def on_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in ARRAY_METHODS:
            self.called.add(id(func))
        q = self.qualify(func) or ""
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if q in SIZE_CALLS:
            positions = SIZE_CALLS[q]
            for i, arg in enumerate(positional):
                if positions is None or i in positions:
                    self._sizes(arg)
            for a in node.args:
                if a.keyword is not None and a.keyword.value in ("shape", "num", "length", "lower", "upper", "N"):
                    self._sizes(a.value)
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "reshape":
            for arg in positional:
                self._sizes(arg)
            self.tag(func.value, "array")
            return
        if q.startswith("jax.random.") and positional and q not in ("jax.random.PRNGKey", "jax.random.key"):
            self.tag(positional[0], "key")
            return
        if q in MATMUL_CALLS:
            for arg in positional[:2]:
                self.tag(arg, "matmul", 1)
            return
        if q == "len":
            for arg in positional:
                self.tag(arg, "array", 1)
            return
        if q.startswith(("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "numpy.", "math.")):
            for arg in positional:
                self.tag(arg, "arith")
            return
        callee = self._callee(func)
        if callee is not None:
            self._follow(callee, node)

    def _sizes(self, arg: cst.BaseExpression) -> None:
        if isinstance(arg, (cst.Tuple, cst.List)):
            for el in arg.elements:
                self.tag(el.value, "int")
        else:
            self.tag(arg, "int")

    def _callee(self, func: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """A module-level function called here, directly or through ``jax.grad(f)`` and the like."""
        if isinstance(func, cst.Call) and func.args:
            q = self.qualify(func.func) or ""
            if q in PASS_THROUGH and q != "functools.partial":
                return self._callee(func.args[0].value)
            return None
        if isinstance(func, cst.Name) and func.value not in self.uses:
            info = self.index.functions.get(func.value)
            if info is not None and isinstance(info.node, cst.FunctionDef) and info.cls is None:
                return info.node
        return None

    def _follow(self, callee: cst.FunctionDef, call: cst.Call) -> None:
        if self.depth >= CALL_DEPTH or callee.name.value in self.seen:
            return
        names = [p.name.value for p, kind in params_of(callee.params) if kind in ("posonly", "positional")]
        inner = parameter_uses(callee, self.index, self.depth + 1, self.seen | {callee.name.value})
        position = 0
        for arg in call.args:
            if arg.star:
                return
            name = arg.keyword.value if arg.keyword is not None else (
                names[position] if position < len(names) else None)
            if arg.keyword is None:
                position += 1
            mine = self.path_use(arg.value)
            if mine is not None and name in inner:
                mine.merge(inner[name])


def parameter_uses(fn: cst.FunctionDef, index: Any, depth: int = 0, seen: Optional[Set[str]] = None) -> Dict[str, _Use]:
    names = [p.name.value for p, _kind in params_of(fn.params)]
    collector = _Collector(index, names, depth, seen if seen is not None else {fn.name.value})
    collector.walk(fn.body)
    return collector.uses


def _spec(use: _Use, static: bool, default: Optional[cst.BaseExpression]) -> Optional[dict]:
    """The spec of one access path from what it was seen doing; None: leave the default alone."""
    if use.children:
        kind = "dict" if all(k == "key" for k, _ in use.children) else "record"
        return {"t": kind, "fields": [[name, _spec(child, False, None) or _array(child)]
                                      for (_k, name), child in use.children.items()]}
    tags = use.tags
    if "key" in tags:
        return {"t": "key"}
    strong = tags & {"matmul", "array"} or use.min_rank > 0
    if "int" in tags and not strong:
        return {"t": "int"}
    if tags == {"truth"} or (tags <= {"truth"} and _is_bool(default)):
        return {"t": "flag"}
    if default is not None:
        return None  # a default and no telling use: keep the default
    if static:
        return {"t": "int"}
    if use.tuple_len:
        return {"t": "tuple", "items": [_array(_Use()) for _ in range(use.tuple_len)]}
    return _array(use)


def _array(use: _Use) -> dict:
    ranks = [2, 1] if "matmul" in use.tags else list(DEFAULT_RANKS)
    ranks = [r for r in ranks if r >= use.min_rank] or [use.min_rank]
    return {"t": "darray", "ranks": ranks, "dtype": "float32"}


def _is_bool(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def derived_inputs(fn: cst.FunctionDef, index: Any, static_nums: Sequence[int] = (),
                   static_names: Sequence[str] = (), skip_first: bool = False) -> Optional[dict]:
    """``{"args": [spec...], "kwargs": [[name, spec]...]}`` for ``fn``; None when nothing can be said
    (``*args``/``**kwargs`` without defaults are left out; a function without parameters has nothing to derive).
    """
    uses = parameter_uses(fn, index)
    args: List[dict] = []
    kwargs: List[List[Any]] = []
    described: List[str] = []
    keyword_only = False
    for i, (param, kind) in enumerate(params_of(fn.params)):
        if skip_first and i == 0:
            continue
        if kind in ("vararg", "varkw"):
            keyword_only = keyword_only or kind == "vararg"
            continue
        name = param.name.value
        static = i in static_nums or name in static_names
        spec = _spec(uses[name], static, param.default)
        if spec is None:
            keyword_only = True  # a skipped default: what follows is passed by name
            continue
        described.append(name)
        if kind == "kwonly" or keyword_only or param.default is not None:
            kwargs.append([name, spec])
            keyword_only = True
        else:
            args.append(spec)
    if not described:
        return None
    return {"args": args, "kwargs": kwargs}
