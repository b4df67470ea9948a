"""Leaf-by-leaf comparison of two results (subprocess side: imports jax when called).

Both results are flattened with ``jax.tree_util``; the trees must have the
same structure, and each pair of leaves the same shape and dtype, after both
are read as JAX would read them (``jnp.asarray``: a Python float is float32
when x64 is off, a NumPy float64 array too).  Floating and complex values must
be close, ``|a - b| <= atol + rtol * |b|`` with the tolerances of their dtype
(NaN equal to NaN); integers, booleans and other objects must be equal.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple

#: characters of an input or value shown in a report
REPR_LIMIT = 240


def _leaf_array(leaf: Any) -> Tuple[Optional[Any], Optional[str]]:
    """(numpy array, None) or (None, why it is not an array)."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    if isinstance(leaf, jax.core.Tracer):
        return None, f"a leaked tracer ({type(leaf).__name__})"
    if isinstance(leaf, (jax.Array, np.ndarray, np.generic, bool, int, float, complex)):
        try:
            return np.asarray(jnp.asarray(leaf)), None
        except Exception as exc:  # noqa: BLE001 - e.g. a deleted buffer
            return None, f"unreadable ({type(exc).__name__}: {exc})"
    return None, None


def _error(expected: Any, actual: Any) -> Tuple[float, float, Any, Any]:
    """(max abs error, max rel error, error array, |expected|) with NaN == NaN and inf == inf."""
    import numpy as np

    e = expected.astype(np.complex128 if expected.dtype.kind == "c" else np.float64)
    a = actual.astype(np.complex128 if actual.dtype.kind == "c" else np.float64)
    same = (e == a) | (np.isnan(e) & np.isnan(a))
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(same, 0.0, np.abs(e - a))
    diff = np.where(np.isnan(diff), np.inf, diff)
    scale = np.abs(np.where(np.isfinite(e), e, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(diff == 0, 0.0, diff / np.maximum(scale, np.finfo(np.float64).tiny))
    max_abs = float(diff.max()) if diff.size else 0.0
    max_rel = float(rel.max()) if rel.size else 0.0
    return max_abs, max_rel, diff, scale


def compare(expected: Any, actual: Any, tolerances: Dict[str, Tuple[float, float]]) -> dict:
    """The outcome of comparing ``actual`` with ``expected``.

    ``{"ok": bool, "problem": None | "structure" | "shape" | "dtype" | "values" | "tracer",
    "leaf": path, "max_abs", "max_rel", "detail"}``, about the worst leaf.
    """
    import jax
    import numpy as np

    flat_e, tree_e = jax.tree_util.tree_flatten_with_path(expected)
    flat_a, tree_a = jax.tree_util.tree_flatten_with_path(actual)
    if tree_e != tree_a:
        return _outcome(False, "structure", "", detail=f"expected {_short(str(tree_e))}, got {_short(str(tree_a))}")
    worst: Optional[dict] = None
    worst_ratio = -1.0
    for (path, e_leaf), (_, a_leaf) in zip(flat_e, flat_a):
        where = jax.tree_util.keystr(path) or "(result)"
        e_arr, e_why = _leaf_array(e_leaf)
        a_arr, a_why = _leaf_array(a_leaf)
        if e_why or a_why:
            return _outcome(False, "tracer", where, detail=f"expected {e_why or 'a value'}, got {a_why or 'a value'}")
        if e_arr is None or a_arr is None:
            if e_arr is None and a_arr is None:
                if _equal_objects(e_leaf, a_leaf):
                    continue
                return _outcome(False, "values", where, detail=f"{_short(repr(e_leaf))} != {_short(repr(a_leaf))}")
            return _outcome(False, "dtype", where,
                            detail=f"expected {_kind(e_leaf, e_arr)}, got {_kind(a_leaf, a_arr)}")
        if e_arr.shape != a_arr.shape:
            return _outcome(False, "shape", where, detail=f"expected shape {e_arr.shape}, got {a_arr.shape}")
        if e_arr.dtype != a_arr.dtype:
            return _outcome(False, "dtype", where, detail=f"expected dtype {e_arr.dtype}, got {a_arr.dtype}")
        if e_arr.dtype.kind in "fc" or str(e_arr.dtype) == "bfloat16":
            rtol, atol = tolerances.get(str(e_arr.dtype), tolerances.get("float32", (1e-5, 1e-6)))
            max_abs, max_rel, diff, scale = _error(e_arr, a_arr)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = float(np.max(diff / (atol + rtol * scale))) if diff.size else 0.0
            ok = ratio <= 1.0
        else:
            max_abs, max_rel, _, _ = _error(e_arr, a_arr)
            ratio = math.inf if max_abs > 0 else 0.0
            ok = max_abs == 0
        if ratio > worst_ratio or worst is None:
            worst_ratio = ratio
            worst = _outcome(ok, None if ok else "values", where, max_abs, max_rel,
                             "" if ok else f"expected {_short(_values(e_arr))}, got {_short(_values(a_arr))}",
                             ratio)
    return worst if worst is not None else _outcome(True, None, "")


def _outcome(ok: bool, problem: Optional[str], leaf: str, max_abs: float = 0.0, max_rel: float = 0.0,
             detail: str = "", ratio: float = math.inf) -> dict:
    """``ratio``: the error over its tolerance (above 1: too far), to rank leaves and inputs."""
    if ok and problem is None and not leaf:
        ratio = 0.0
    return {"ok": ok, "problem": problem, "leaf": leaf, "max_abs": _finite(max_abs), "max_rel": _finite(max_rel),
            "detail": detail, "ratio": _finite(ratio)}


def _finite(x: float) -> Any:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf") if not math.isnan(x) else "nan"


def _equal_objects(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects whose == raises are not equal
        return False


def _kind(leaf: Any, arr: Any) -> str:
    return f"an array of {arr.dtype}" if arr is not None else type(leaf).__name__


def _values(arr: Any) -> str:
    import numpy as np

    return np.array2string(arr, precision=6, threshold=8, separator=", ").replace("\n", "")


def _short(text: str, limit: int = REPR_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: Any, limit: int = REPR_LIMIT) -> str:
    """A short, readable repr of an input: arrays as ``float32[2,3]`` plus a few values."""
    return _short(_describe(value, 0), limit)


def _describe(value: Any, depth: int) -> str:
    import jax
    import numpy as np

    if depth > 4:
        return "..."
    if isinstance(value, (jax.Array, np.ndarray)) and not isinstance(value, jax.core.Tracer):
        arr = np.asarray(value)
        head = f"{arr.dtype}[{','.join(str(n) for n in arr.shape)}]"
        return head + (_values(arr) if arr.size <= 6 else "")
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v, depth + 1)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        inner = ", ".join(f"{k}={_describe(v, depth + 1)}" for k, v in zip(value._fields, value))
        return f"{type(value).__name__}({inner})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe(v, depth + 1) for v in value)
        if isinstance(value, tuple):
            return "(" + inner + ("," if len(value) == 1 else "") + ")"
        return "[" + inner + "]"
    if hasattr(value, "__dataclass_fields__"):
        names = list(value.__dataclass_fields__)
        inner = ", ".join(f"{k}={_describe(getattr(value, k, None), depth + 1)}" for k in names)
        return f"{type(value).__name__}({inner})"
    return repr(value)


def describe_call(args: tuple, kwargs: dict) -> str:
    parts: List[str] = [_describe(a, 1) for a in args] + [f"{k}={_describe(v, 1)}" for k, v in kwargs.items()]
    return _short("(" + ", ".join(parts) + ")")
