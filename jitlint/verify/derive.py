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
    "jax.numpy.broadcast_to": (1,),
}
MATMUL_CALLS = frozenset({"jax.numpy.dot", "jax.numpy.matmul", "jax.numpy.vdot", "jax.numpy.inner",
                          "jax.numpy.linalg.solve", "jax.numpy.tensordot"})
#: calls comparing arrays of one shape
SAME_SHAPE_CALLS = frozenset({"jax.numpy.allclose", "jax.numpy.isclose", "jax.numpy.array_equal",
                              "numpy.allclose", "numpy.isclose", "numpy.array_equal"})
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
    #: ``a, b = p.shape``: exactly this many dimensions
    exact_rank: Optional[int] = None

    def merge(self, other: "_Use") -> None:
        self.tags |= other.tags
        self.min_rank = max(self.min_rank, other.min_rank)
        self.tuple_len = max(self.tuple_len, other.tuple_len)
        self.exact_rank = other.exact_rank if self.exact_rank is None else self.exact_rank
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
        value = node.value
        for target in node.targets:
            if isinstance(target.target, (cst.Tuple, cst.List)):
                n = len(target.target.elements)
                if isinstance(value, cst.Attribute) and value.attr.value == "shape":
                    base = self.path_use(value.value)  # n, m = x.shape: x has exactly two dimensions
                    if base is not None:
                        base.tags.add("array")
                        base.exact_rank = n
                    continue
                use = self.path_use(value)
                if use is not None:
                    use.tuple_len = max(use.tuple_len, n)
            elif isinstance(target.target, cst.Name) and target.target.value not in self.uses:
                use = self.path_use(value)
                if use is not None:  # state = state0: a second name for the parameter
                    self.uses[target.target.value] = use

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
        if q.startswith("jax.random.") and positional and q not in ("jax.random.PRNGKey", "jax.random.key"):
            self.tag(positional[0], "key")
            for arg in positional[1:2] if q == "jax.random.split" else ():
                self._sizes(arg)
            return
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
        if q in SAME_SHAPE_CALLS and len(positional) >= 2:
            # allclose(p, jnp.eye(3)): p has the other operand's dimensions, when they can be read
            for mine, other in ((positional[0], positional[1]), (positional[1], positional[0])):
                rank = self._rank_of(other)
                use = self.path_use(mine)
                if rank is not None and use is not None:
                    use.tags.add("array")
                    use.exact_rank = rank
            for arg in positional:
                self.tag(arg, "arith")
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

    def _rank_of(self, node: cst.BaseExpression) -> Optional[int]:
        """The number of dimensions of an array built in place (``jnp.eye(3)``, ``jnp.zeros((2, 3))``)."""
        if not isinstance(node, cst.Call) or not node.args:
            return None
        q = self.qualify(node.func) or ""
        if q in ("jax.numpy.eye", "jax.numpy.identity", "numpy.eye", "numpy.identity"):
            return 2
        if q in ("jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.full", "jax.numpy.empty"):
            shape = node.args[0].value
            if isinstance(shape, (cst.Tuple, cst.List)):
                return len(shape.elements)
            if isinstance(shape, cst.Integer):
                return 1
        return None

    def _sizes(self, arg: cst.BaseExpression) -> None:
        """A size or bound, or a tuple of them: the parameters in it are ints (``pad_to - n`` too)."""
        if isinstance(arg, (cst.Tuple, cst.List)):
            for el in arg.elements:
                self._sizes(el.value)
        elif isinstance(arg, cst.BinaryOperation):
            self._sizes(arg.left)
            self._sizes(arg.right)
        elif isinstance(arg, cst.UnaryOperation):
            self._sizes(arg.expression)
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
    strong = tags & {"matmul", "array"} or use.min_rank > 0 or use.exact_rank is not None
    if "int" in tags and not strong:
        return {"t": "int"}
    if tags == {"truth"} or (tags <= {"truth"} and _is_bool(default)):
        return {"t": "flag"}
    if default is not None:
        return None  # a default and no telling use: keep the default
    if static:
        return {"t": "int"}
    return _array(use)


def _array(use: _Use) -> dict:
    """A float array; ``x, v = p`` makes its first dimension that long (an array unpacks as a tuple does)."""
    ranks = [2, 1] if "matmul" in use.tags else list(DEFAULT_RANKS)
    low = max(use.min_rank, 1 if use.tuple_len else 0)
    ranks = [r for r in ranks if r >= low] or [low]
    if use.exact_rank is not None:
        ranks = [use.exact_rank]
    spec: Dict[str, Any] = {"t": "darray", "ranks": ranks, "dtype": "float32"}
    if use.tuple_len:
        spec["lead"] = use.tuple_len
    return spec


def _is_bool(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def derived_inputs(fn: cst.FunctionDef, index: Any, static_nums: Sequence[int] = (),
                   static_names: Sequence[str] = (), owner: Any = None, depth: int = 0) -> Optional[dict]:
    """``{"args": [spec...], "kwargs": [[name, spec]...]}`` for ``fn``; None when nothing can be said
    (``*args``/``**kwargs`` without defaults are left out; a function without parameters has nothing to derive).

    ``owner``: the class of a method; its ``self`` is an instance built with the arguments derived for
    the class's ``__init__`` (None when the class has no ``__init__`` of its own to read).
    """
    uses = parameter_uses(fn, index)
    args: List[dict] = []
    kwargs: List[List[Any]] = []
    described: List[str] = []
    keyword_only = False
    for i, (param, kind) in enumerate(params_of(fn.params)):
        if owner is not None and i == 0:
            instance = _instance(owner, index, depth)
            if instance is None:
                return None
            args.append(instance)
            continue
        if depth and i == 0:
            continue  # the self of an __init__
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


def _instance(owner: Any, index: Any, depth: int) -> Optional[dict]:
    init = owner.methods.get("__init__")
    if depth or init is None or not isinstance(init.node, cst.FunctionDef):
        return None
    made = derived_inputs(init.node, index, depth=1)
    return {"t": "instance", "class": owner.name, "init": made or {"args": [], "kwargs": []}}
