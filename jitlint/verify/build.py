"""Example inputs built from their specs, and varied: the subprocess side of :mod:`jitlint.verify.inputs`.

The child interpreter imports this module, so it needs nothing but the
standard library at import (jax and numpy are imported when called): the
child may run in another interpreter (``--python``), where neither jitlint's
own dependencies nor jitlint itself are installed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence, Tuple


@dataclass(frozen=True)
class InputSpec:
    """How to build one call: positional and keyword parameters, each a spec tree (dicts)."""

    args: Tuple[dict, ...]
    kwargs: Tuple[Tuple[str, dict], ...]

    def to_json(self) -> dict:
        return {"args": list(self.args), "kwargs": [[k, v] for k, v in self.kwargs]}

    @staticmethod
    def from_json(data: dict) -> "InputSpec":
        return InputSpec(tuple(data["args"]), tuple((k, v) for k, v in data["kwargs"]))


SCALAR_VALUES = {"int": 3, "float": 0.5, "bool": True}


def build_call(spec: InputSpec, module: Any, seed: int = 0) -> Tuple[tuple, dict]:
    """Materialise a spec: arrays from a seeded generator, classes from ``module``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    args = tuple(_build(s, module, rng) for s in spec.args)
    kwargs = {k: _build(s, module, rng) for k, s in spec.kwargs}
    return args, kwargs


def _build(spec: dict, module: Any, rng: Any) -> Any:
    import jax.numpy as jnp
    import numpy as np

    kind = spec["t"]
    if kind == "scalar":
        return SCALAR_VALUES[spec["type"]]
    if kind == "array":
        shape, dtype = tuple(spec["shape"]), spec["dtype"]
        if dtype == "bool":
            values = rng.random(shape) > 0.5
        elif dtype.startswith(("int", "uint")):
            low = 0 if dtype.startswith("uint") else -5
            values = rng.integers(low, 6, size=shape)
        elif dtype.startswith("complex"):
            values = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
        else:
            values = rng.standard_normal(shape)
        return jnp.asarray(np.asarray(values), dtype=dtype)
    if kind == "tuple":
        return tuple(_build(s, module, rng) for s in spec["items"])
    if kind == "class":
        cls = getattr(module, spec["name"])
        return cls(**{name: _build(s, module, rng) for name, s in spec["fields"]})
    raise ValueError(f"unknown input spec {kind!r}")


#: how a generated input changes the numbers of the example it comes from
VARIATIONS = ("negated", "zeros", "large", "small")


def _vary_leaf(leaf: Any, how: str) -> Any:
    import jax
    import numpy as np

    if isinstance(leaf, bool):
        return (not leaf) if how == "negated" else (False if how == "zeros" else leaf)
    if isinstance(leaf, (int, float)):
        if how == "negated":
            return -leaf
        if how == "zeros":
            return type(leaf)(0)
        if how == "large":
            return leaf * (100 if isinstance(leaf, int) else 1000.0)
        return leaf * 1e-3 if isinstance(leaf, float) else leaf
    if isinstance(leaf, (jax.Array, np.ndarray)) and not isinstance(leaf, jax.core.Tracer):
        dtype = np.dtype(leaf.dtype)
        if dtype == np.bool_:
            if how == "negated":
                return ~leaf
            return leaf & False if how == "zeros" else leaf
        if how == "negated":
            return leaf if dtype.kind == "u" else -leaf
        if how == "zeros":
            return leaf * 0
        if how == "large":
            return leaf * (100 if dtype.kind in "iu" else 1000)
        return leaf * 1e-3 if dtype.kind in "fc" else leaf
    return leaf


def vary(value: Any, how: str) -> Any:
    import jax

    return jax.tree_util.tree_map(lambda leaf: _vary_leaf(leaf, how), value)


def variations(args: tuple, kwargs: dict, static_positions: Sequence[int],
               static_names: Sequence[str]) -> Iterator[Tuple[str, tuple, dict]]:
    """Inputs near ``(args, kwargs)``: every varied leaf of the non-static arguments,
    all of them at once, then one argument at a time."""
    dynamic_pos = [i for i in range(len(args)) if i not in static_positions]
    dynamic_kw = [k for k in kwargs if k not in static_names]
    for how in VARIATIONS:
        new_args = tuple(vary(a, how) if i in dynamic_pos else a for i, a in enumerate(args))
        new_kwargs = {k: vary(v, how) if k in dynamic_kw else v for k, v in kwargs.items()}
        yield f"all arguments {how}", new_args, new_kwargs
    if len(dynamic_pos) + len(dynamic_kw) > 1:
        for how in VARIATIONS:
            for i in dynamic_pos:
                new_args = tuple(vary(a, how) if j == i else a for j, a in enumerate(args))
                yield f"args[{i}] {how}", new_args, dict(kwargs)
            for k in dynamic_kw:
                yield f"{k}= {how}", args, {**kwargs, k: vary(kwargs[k], how)}
