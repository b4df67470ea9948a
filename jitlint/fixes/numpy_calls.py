"""Fix for JIT302: a NumPy function called on a tracer -> the ``jax.numpy`` function of the same name.

``np.log10(x)`` becomes ``jnp.log10(x)``, ``np.linalg.eigh(m)`` becomes
``jnp.linalg.eigh(m)`` and, after ``from numpy import percentile``,
``percentile(x, 90)`` becomes ``jnp.percentile(x, 90)``.  Only the callee
changes -- the imported name it starts with, so ``np . clip`` becomes
``jnp . clip`` -- and the arguments, their comments and their layout stay
byte for byte.
``jax.numpy`` is spelled as the module already imports it (``jnp``), or
``import jax.numpy as jnp`` is added.

No fix is offered when the call would fail under ``jax.jit`` all the same or
mean something else:

* the ``jax.numpy`` function has an output size that depends on the values
  (``unique``, ``nonzero``, ``argwhere``; ``where`` with one argument): it
  would trade JIT302 for JIT401;
* an argument that ``jax.numpy`` needs static (``axis``, ``k``, ``n``,
  ``reps``, ``shape``, ``pad_width``, ``bins``, ...) is traced;
* an argument is passed that ``jax.numpy`` does not take, or takes with
  another meaning (``out=``, ``where=`` of a ufunc, ``casting=``, ``order=``,
  ``subok=``, ``kind=``, ``dtype=`` of a ufunc, a positional argument past
  those that mean the same in both, ``**kwargs``).

Which arguments mean the same is :data:`SIGNATURES`, one signature per
function, written as Python parameters; ``tests/test_numpy_table.py`` checks
that every name exists in ``jax.numpy`` and binds them, and that NumPy takes
them too.

Safety: always UNSAFE.  The result is a JAX array, float32 (int32) unless
``jax_enable_x64`` is set, where NumPy computes in float64 (``np.float64(x)``
becomes a float32 cast); a function may differ at the edges (``jnp.take``
fills out-of-bounds indices instead of raising, ``jnp.linalg.pinv`` has
another default cutoff, ``jnp.empty_like`` gives zeros); and the value is
now traced, so code after the call that needed a concrete NumPy result
(``if np.allclose(...)``) is reported in turn.
"""
from __future__ import annotations

import ast
from typing import Dict, FrozenSet, List, NamedTuple, Optional, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.syntax import call_argument, calls_in, name_references
from jitlint.analysis.values import Kind
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.context import FixContext
from jitlint.fixes.conversions import kept_as_array
from jitlint.fixes.registry import rewrites


class Signature(NamedTuple):
    """The arguments a NumPy function and its ``jax.numpy`` namesake take with the same meaning."""

    #: parameters that may be passed by position, in order
    positional: Tuple[str, ...]
    #: whether more positional arguments are taken (``*arys``)
    varargs: bool
    #: parameters that may be passed by keyword
    keywords: FrozenSet[str]
    #: parameters ``jax.numpy`` needs static: no fix when one of them is traced
    static: FrozenSet[str]


_UNARY = "x, /"
_BINARY = "x1, x2, /"

#: NumPy name (under ``numpy.``) -> the parameters it and ``jax.numpy`` share, as Python parameters:
#: those before ``/`` are positional only, those after ``*`` keyword only, ``: static`` marks the
#: ones ``jax.numpy`` needs static.  Functions with a value-dependent output size
#: (``jax_api.SIZE_KEYWORD_FUNCTIONS``) have none: they are never fixed.
_SIGNATURE_TEXT: Dict[str, str] = {
    **{name: _UNARY for name in (
        "abs", "absolute", "arccos", "arcsin", "arctan", "cbrt", "ceil", "conj", "cos", "cosh", "deg2rad",
        "exp", "exp2", "expm1", "floor", "isfinite", "isinf", "isnan", "log", "log10", "log1p", "log2",
        "logical_not", "negative", "rad2deg", "reciprocal", "rint", "sign", "sin", "sinc", "sinh", "sqrt",
        "square", "tan", "tanh", "trunc", "radians", "degrees", "arctanh", "arcsinh", "arccosh", "conjugate",
        # scalar types: a cast
        "float16", "float32", "float64", "int8", "int32", "int64", "uint8")},
    **{name: _BINARY for name in (
        "add", "arctan2", "divide", "equal", "floor_divide", "fmax", "fmin", "greater", "heaviside", "hypot",
        "less", "logaddexp", "logical_and", "logical_or", "matmul", "maximum", "minimum", "mod", "multiply",
        "power", "remainder", "subtract", "true_divide", "logaddexp2", "fmod")},
    **{f"{ufunc}.{method}": text for ufunc in ("add", "multiply", "maximum", "minimum", "logical_and", "logical_or")
       for method, text in (("accumulate", "array, /, axis: static, dtype: static"),
                            ("reduce", "array, /, axis: static, dtype: static, *, keepdims: static, initial, where"),
                            ("outer", "A, B, /"))},
    "allclose": "a, b, rtol, atol, equal_nan: static",
    "angle": "z, deg: static",
    "append": "arr, values, axis: static",
    "argpartition": "a, kth: static, axis: static",
    "argsort": "a, axis: static, *, stable: static",
    "array": "object, dtype: static, *, copy: static, ndmin: static",
    "asarray": "a, dtype: static, *, copy: static",
    "atleast_1d": "*arys",
    "atleast_2d": "*arys",
    "average": "a, axis: static, weights, returned: static, *, keepdims: static",
    "broadcast_to": "array, shape: static",
    "clip": "a, /, min, max",
    "column_stack": "tup",
    "concatenate": "arrays, /, axis: static, *, dtype: static",
    "convolve": "a, v, mode: static",
    "copy": "a",
    "correlate": "a, v, mode: static",
    "corrcoef": "x, y, rowvar: static, *, dtype: static",
    "count_nonzero": "a, axis: static, *, keepdims: static",
    "cov": "m, y, rowvar: static, bias: static, ddof: static, fweights, aweights, *, dtype: static",
    "cross": "a, b, axisa: static, axisb: static, axisc: static, axis: static",
    "delete": "arr, obj: static, axis: static",
    "diag": "v, k: static",
    "diff": "a, n: static, axis: static, prepend, append",
    "dot": "a, b",
    "dstack": "tup",
    "ediff1d": "ary, to_end, to_begin",
    "einsum": "subscripts: static, /, *operands, optimize: static",
    "digitize": "x, bins, right: static",
    "empty_like": "prototype, /, dtype: static, *, shape: static",
    "expand_dims": "a, axis: static",
    "full_like": "a, fill_value, dtype: static, *, shape: static",
    "gradient": "f, *varargs, axis: static, edge_order: static",
    "histogram": "a, bins: static, range, *, weights, density: static",
    "hstack": "tup, *, dtype: static",
    "inner": "a, b, /",
    "insert": "arr, obj, values, axis: static",
    "interp": "x, xp, fp, left, right, period",
    "isclose": "a, b, rtol, atol, equal_nan: static",
    "isin": "element, test_elements, assume_unique: static, invert: static",
    "kron": "a, b",
    "meshgrid": "*xi, copy: static, sparse: static, indexing: static",
    "median": "a, axis: static, *, overwrite_input: static, keepdims: static",
    "nan_to_num": "x, copy: static, nan, posinf, neginf",
    "nanmax": "a, axis: static, *, keepdims: static, initial, where",
    "nanmean": "a, axis: static, dtype: static, *, keepdims: static, where",
    "nanmin": "a, axis: static, *, keepdims: static, initial, where",
    "nansum": "a, axis: static, dtype: static, *, keepdims: static, initial, where",
    "ones_like": "a, dtype: static, *, shape: static",
    "outer": "a, b",
    "pad": "array, pad_width: static, mode: static, *, constant_values, end_values, reflect_type: static, "
           "stat_length: static",
    "partition": "a, kth: static, axis: static",
    "percentile": "a, q, axis: static, *, overwrite_input: static, method: static, keepdims: static, weights",
    "polyfit": "x, y, deg: static, rcond, full: static, w, cov: static",
    "polyval": "p, x",
    "ptp": "a, axis: static, *, keepdims: static",
    "quantile": "a, q, axis: static, *, overwrite_input: static, method: static, keepdims: static, weights",
    "ravel": "a",
    "roll": "a, shift, axis: static",
    "select": "condlist, choicelist, default",
    "sort": "a, axis: static, *, stable: static",
    "stack": "arrays, axis: static, *, dtype: static",
    "take": "a, indices, axis: static, *, mode: static",
    "tensordot": "a, b, axes: static",
    "tile": "A, reps: static",
    "trapezoid": "y, x, dx, axis: static",
    "trace": "a, offset, axis1: static, axis2: static, dtype: static",
    "tril": "m, k: static",
    "triu": "m, k: static",
    "unwrap": "p, discont, axis: static, *, period",
    "vdot": "a, b, /",
    "vstack": "tup, *, dtype: static",
    # one argument is `nonzero`, whose output size depends on the values
    "where": "condition, x, y, /",
    "zeros_like": "a, dtype: static, *, shape: static",
    # linalg and fft
    "linalg.cholesky": "a, /, *, upper: static",
    "linalg.det": "a",
    "linalg.eig": "a",
    "linalg.eigh": "a, UPLO: static",
    "linalg.eigvalsh": "a, UPLO: static",
    "linalg.inv": "a",
    "linalg.lstsq": "a, b, rcond",
    "linalg.norm": "x, ord: static, axis: static, keepdims: static",
    "linalg.pinv": "a, /, *, rtol, hermitian: static",
    "linalg.qr": "a, mode: static",
    "linalg.slogdet": "a",
    "linalg.solve": "a, b",
    "linalg.svd": "a, full_matrices: static, compute_uv: static, hermitian: static",
    "fft.fft": "a, n: static, axis: static, norm: static",
    "fft.ifft": "a, n: static, axis: static, norm: static",
    "fft.rfft": "a, n: static, axis: static, norm: static",
    "fft.irfft": "a, n: static, axis: static, norm: static",
}

#: calls with fewer positional arguments have a value-dependent output size (``np.where(c)``)
_MIN_POSITIONAL = {"where": 3}


def _parse(text: str) -> Signature:
    args = ast.parse(f"def f({text}): pass").body[0].args  # type: ignore[attr-defined]
    params = args.posonlyargs + args.args + args.kwonlyargs + ([args.vararg] if args.vararg else [])
    static = frozenset(p.arg for p in params if isinstance(p.annotation, ast.Name) and p.annotation.id == "static")
    return Signature(positional=tuple(p.arg for p in args.posonlyargs + args.args), varargs=args.vararg is not None,
                     keywords=frozenset(p.arg for p in args.args + args.kwonlyargs), static=static)


#: NumPy name (under ``numpy.``) -> the arguments that keep their meaning under ``jax.numpy``
SIGNATURES: Dict[str, Signature] = {name: _parse(text) for name, text in _SIGNATURE_TEXT.items()
                                    if f"jax.numpy.{name}" not in jax_api.SIZE_KEYWORD_FUNCTIONS}


def jax_numpy_name(qualified: Optional[str]) -> Optional[str]:
    """``numpy.log10`` -> ``log10`` when the fix may call ``jax.numpy.log10`` instead; else None."""
    if qualified is None or not jax_api.numpy_fails_on_tracer(qualified):
        return None
    name = qualified[len("numpy."):]
    return name if name in SIGNATURES else None  # (size-dependent functions have no signature there)


def _arguments_keep_meaning(node: cst.Call, name: str, ctx: FixContext) -> bool:
    """Every argument is one ``jax.numpy`` takes with the same meaning, and those it needs static are."""
    sig = SIGNATURES[name]
    position = 0
    for arg in node.args:
        if arg.star == "**":
            return False
        if arg.star == "*":
            if not sig.varargs or position < len(sig.positional):
                return False
            continue
        if arg.keyword is None:
            if position < len(sig.positional):
                param: Optional[str] = sig.positional[position]
            elif sig.varargs:
                param = None
            else:
                return False
            position += 1
        else:
            param = arg.keyword.value
            if param not in sig.keywords:
                return False
        if param in sig.static and ctx.facts.value(arg.value).kind is Kind.TRACED:
            return False
    return position >= _MIN_POSITIONAL.get(name, 0)


#: Python conversions and consumers of a concrete value
_CONCRETE_BUILTINS = frozenset({"int", "float", "bool", "complex", "range", "len", "list", "tuple", "str"})
_CONCRETE_METHODS = frozenset({"item", "tolist", "tobytes"})


def _consumed_as_python(expr: cst.CSTNode, ctx: FixContext, depth: int = 0) -> bool:
    """Whether the value of ``expr`` goes on to a use that needs a concrete Python or NumPy value:
    a conversion (``int(...)``, ``.item()``, ``math.*``), ``range``, a shape or size argument, the
    test of an ``if`` / ``while``, or a NumPy function that ``jax.numpy`` cannot stand in for
    (``np.unique``, ``np.nonzero``: value-dependent sizes) -- directly, through a name it is assigned
    to in the same function, or through NumPy calls that the fix would convert as well.  Turning it
    into a traced ``jnp`` value would break that use."""
    if depth > 4:
        return True  # too far to follow: no proof that the rewrite is safe
    uses = [expr]
    parent = ctx.parent(expr)
    if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        name = parent.targets[0].target.value
        scope = ctx.enclosing_def(parent)
        if scope is not None:
            inside = set(name_references(parent.value, name))  # the old value read on the right-hand side
            uses = [n for n in name_references(scope, name) if n is not parent.targets[0].target and n not in inside]
    for use in uses:
        child, up = use, ctx.parent(use)
        while up is not None and not isinstance(up, (cst.SimpleStatementLine, cst.FunctionDef)):
            if isinstance(up, cst.Call) and child is not up.func:
                q = ctx.index.qualify(up.func) or ""
                callee = up.func
                if isinstance(callee, cst.Name) and callee.value in _CONCRETE_BUILTINS and not q:
                    if kept_as_array(up, ctx):
                        break  # `tip = float(u[-1])`, returned: JIT301's rewrite keeps it an array once it is one
                    return True
                if q.startswith("math."):
                    return True
                if any(child in (arg, arg.value) for pos_kw in jax_api.SHAPE_ARGUMENTS.get(q, ())
                       for arg in [call_argument(up, *pos_kw)] if arg is not None):
                    return True
                if q.startswith("numpy."):
                    # another NumPy call: fine only if it is converted too and its own result is safe
                    name = jax_numpy_name(q)
                    if name is None or not _arguments_keep_meaning(up, name, ctx) \
                            or _consumed_as_python(up, ctx, depth + 1):
                        return True
                    break
            if isinstance(up, cst.Attribute) and up.value is child and up.attr.value in _CONCRETE_METHODS:
                call = ctx.parent(up)
                if isinstance(call, cst.Call) and call.func is up and kept_as_array(call, ctx):
                    break  # (`u[-1].item()`, as above)
                return True
            if isinstance(up, (cst.If, cst.While, cst.IfExp)) and child is up.test:
                return True
            child, up = up, ctx.parent(up)
    return False


class _Rewrite(NamedTuple):
    """One NumPy call rewritten: the edit of its callee, the imports it needs, the name it started with."""

    edit: Edit
    imports: Tuple[Edit, ...]
    head: cst.Name
    shown: str
    module: str


def _rewrite(node: cst.CSTNode, ctx: FixContext) -> Optional[_Rewrite]:
    """``np.f(...)`` -> ``jnp.f(...)``: the callee only (once per call: the import removal asks again)."""
    key = ("numpy_calls.rewrite", node)
    if key not in ctx.memo:
        ctx.memo[key] = _build_rewrite(node, ctx)
    return ctx.memo[key]  # type: ignore[return-value]


def _build_rewrite(node: cst.CSTNode, ctx: FixContext) -> Optional[_Rewrite]:
    if not isinstance(node, cst.Call):
        return None  # a NumPy array indexed with a tracer
    name = jax_numpy_name(ctx.index.qualify(node.func))
    if name is None or not _arguments_keep_meaning(node, name, ctx):
        return None
    if _consumed_as_python(node, ctx):
        return None  # the code after it needs a concrete value: a traced jnp result would fail there
    if _dispatched(node, name, ctx):
        return None  # the NumPy arm of a dispatch between the two libraries: it is meant to run NumPy
    spelled = ctx.import_name("jax.numpy")
    if spelled is None:
        return None
    module, import_edits = spelled
    # replace the imported name the callee starts with, keeping the rest as written:
    # `np . clip` -> `jnp . clip`, `la.eigh` after `import numpy.linalg as la` -> `jnp.linalg.eigh`
    head = _head(node.func)
    imported = ctx.index.qualify(head) if head is not None else None
    if head is None or imported is None or not (imported + ".").startswith("numpy."):
        return None
    new_head = cst.parse_expression(module + imported[len("numpy"):], config=ctx.config)
    changes: Dict[cst.CSTNode, cst.CSTNode] = {head: new_head.with_changes(lpar=head.lpar, rpar=head.rpar)}
    for display in _displays_for_arrays(node, name):
        # `np.percentile(x, [50, 95])`: NumPy converts the list, `jax.numpy` takes arrays only (TypeError:
        # percentile requires ndarray or scalar arguments, got <class 'list'>)
        changes[display] = ctx.expr(f"{module}.asarray({{d}})", d=display)
    edit = ctx.replace_many(changes, wrap=len(changes) > 1)
    if edit is None:
        return None
    return _Rewrite(edit, import_edits, head, f"{module}.{name}", module)


#: parameters that take a sequence of arrays (a list of them is what they expect)
_SEQUENCE_PARAMETERS = frozenset({"tup", "arrays", "condlist", "choicelist"})


def _displays_for_arrays(node: cst.Call, name: str) -> List[cst.BaseExpression]:
    """The list and tuple displays ``node`` passes where the ``jax.numpy`` namesake takes an array (a
    parameter neither static nor a sequence of arrays): ``jnp`` rejects a list there, NumPy converts it."""
    sig = SIGNATURES[name]
    out: List[cst.BaseExpression] = []
    position = 0
    for arg in node.args:
        if arg.star:
            continue
        if arg.keyword is None:
            param = sig.positional[position] if position < len(sig.positional) else None
            position += 1
        else:
            param = arg.keyword.value
        if param is not None and param not in sig.static and param not in _SEQUENCE_PARAMETERS \
                and isinstance(arg.value, (cst.List, cst.Tuple)):
            out.append(arg.value)
    return out


def _dispatched(node: cst.Call, name: str, ctx: FixContext) -> bool:
    """``node`` is in one arm of an ``if`` / ``elif`` chain another arm of which calls the same function
    of ``jax.numpy`` (``if backend == "numpy": numpy.outer(x, y) elif ...: jnp.outer(x, y)``): the code
    chooses its library on purpose, and the NumPy arm is for NumPy values -- rewriting it would make both
    arms JAX."""
    child: cst.CSTNode = node
    parent = ctx.parent(child)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.Module)):
        if isinstance(parent, cst.If) and child is not parent.test:
            top = parent
            while isinstance(ctx.parent(top), cst.If) and ctx.parent(top).orelse is top:  # type: ignore
                top = ctx.parent(top)  # (up an elif chain to its first `if`)
            arms: List[cst.CSTNode] = []
            link: Optional[cst.CSTNode] = top
            while isinstance(link, cst.If):
                arms.append(link.body)
                link = link.orelse
            if isinstance(link, cst.Else):
                arms.append(link.body)
            else:
                # no `else`: what follows the `if` runs where its arms return (`if ...: return np.f(x)`)
                block = ctx.block_of(top)
                if block is not None:
                    arms.extend(list(block[0].body)[block[1] + 1:])  # type: ignore[attr-defined]
            for arm in arms:
                if _holds(arm, node, ctx):
                    continue
                if any(ctx.index.qualify(call.func) == f"jax.numpy.{name}" for call in calls_in(arm)):
                    return True
        child, parent = parent, ctx.parent(parent)
    return False


def _holds(outer: cst.CSTNode, node: cst.CSTNode, ctx: FixContext) -> bool:
    return any(a is outer for a in ctx.ancestors(node))


def _head(func: cst.BaseExpression) -> Optional[cst.Name]:
    while isinstance(func, cst.Attribute):
        func = func.value
    return func if isinstance(func, cst.Name) else None


@rewrites("JIT302")
def to_jax_numpy(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``np.f(...)`` -> ``jnp.f(...)``; with the others and the import when this leaves it unused."""
    rewrite = _rewrite(node, ctx)
    if rewrite is None:
        return None
    shown = rewrite.shown
    title = (f"Use `{shown}`, which traces" if rewrite.module == "jax.numpy"
             else f"Use `{shown}` (jax.numpy), which traces")
    group = _all_uses(rewrite.head.value, ctx)
    if group is None or node not in group[0]:
        return ctx.fix(Applicability.UNSAFE, title, (rewrite.edit,) + rewrite.imports)
    calls, removal = group
    edits: List[Edit] = [removal]
    for call in calls:
        other = _rewrite(call, ctx)
        assert other is not None
        edits.append(other.edit)
        edits.extend(other.imports)
    title += f" (and the other {len(calls) - 1} NumPy call(s) here)" if len(calls) > 1 else ""
    return ctx.fix(Applicability.UNSAFE, f"{title}; remove the import of `{rewrite.head.value}`, now unused",
                   edits)


def _all_uses(name: str, ctx: FixContext) -> Optional[Tuple[List[cst.Call], Edit]]:
    """When every use of the imported ``name`` is the callee of a reported NumPy call that the fix
    rewrites: those calls, and the edit that removes the import.

    Each of their fixes then rewrites them all and removes the import, so that whichever of them
    is applied (the others conflict or not, as one), the import is never left behind unused nor
    removed while a use remains.  A call under ``noqa`` keeps its ``np``, and the import."""
    key = ("numpy_calls.all_uses", name)
    if key not in ctx.memo:
        ctx.memo[key] = _find_all_uses(name, ctx)
    return ctx.memo[key]  # type: ignore[return-value]


def _find_all_uses(name: str, ctx: FixContext) -> Optional[Tuple[List[cst.Call], Edit]]:
    from jitlint.fixes.imports import removal

    calls: Dict[cst.Name, cst.Call] = {}
    for found in ctx.findings.get("JIT302", ()):
        head = _head(found.func) if isinstance(found, cst.Call) else None
        if head is not None and head.value == name:
            calls[head] = found  # type: ignore[assignment]
    if not calls or any(_rewrite(call, ctx) is None or _under_noqa(call, ctx) for call in calls.values()):
        return None
    edit = removal(ctx, name, list(calls))
    if edit is None:
        return None
    return list(calls.values()), edit


def _under_noqa(node: cst.CSTNode, ctx: FixContext) -> bool:
    """A ``noqa`` comment on the line where ``node`` starts (any codes: a finding kept there may be
    this one)."""
    if "noqa" not in ctx.source.lower():
        return False
    key = ("numpy_calls.lines",)
    if key not in ctx.memo:
        from libcst.metadata import MetadataWrapper, PositionProvider

        ctx.memo[key] = (MetadataWrapper(ctx.module, unsafe_skip_copy=True).resolve(PositionProvider),
                         ctx.source.splitlines())
    positions, lines = ctx.memo[key]  # type: ignore[misc]
    line = positions[node].start.line
    return 0 < line <= len(lines) and "noqa" in lines[line - 1].lower()
