"""Example inputs built from their specs, and varied: the subprocess side of :mod:`jitlint.verify.inputs`.

The child interpreter imports this module, so it needs nothing but the
standard library at import (jax and numpy are imported when called): the
child may run in another interpreter (``--python``), where neither jitlint's
own dependencies nor jitlint itself are installed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, List, Sequence, Tuple


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


# ---------------------------------------------------------------- inputs derived from the code
#: the size of every dimension of a derived array: one size, so that any two of them can be multiplied
DERIVED_SIZE = 3
#: the Python ints a size, bound or index parameter takes (the first one in the first candidates)
DERIVED_INTS = (3, 2, 1)
#: how many record (NamedTuple) classes a child keeps: one per set of field names
_RECORDS: dict = {}


def record_class(names: Sequence[str]) -> Any:
    """The NamedTuple class standing for an object read through ``p.a``, ``p.b``: one per set of names
    (the same class every time, so that jax.jit sees one tree structure)."""
    import collections

    key = tuple(names)
    if key not in _RECORDS:
        _RECORDS[key] = collections.namedtuple("Record", key)
    return _RECORDS[key]


def _domains(spec: dict, out: list) -> list:
    """The choice points of a spec, in a fixed order: (kind, options)."""
    kind = spec["t"]
    if kind == "darray":
        out.append(("rank", list(spec["ranks"])))
    elif kind == "int":
        out.append(("int", list(DERIVED_INTS)))
    elif kind == "flag":
        out.append(("flag", [True, False]))
    elif kind in ("dict", "record"):
        for _name, child in spec["fields"]:
            _domains(child, out)
    elif kind == "instance":
        for child in list(spec["init"]["args"]) + [c for _n, c in spec["init"]["kwargs"]]:
            _domains(child, out)
    return out


#: id of an instance built for a method's self -> (class name, args, kwargs), to write it as source
_INSTANCES: dict = {}


def _build_derived(spec: dict, picks: Iterator[Any], rng: Any, key_seed: list, module: Any = None,
                   positive: bool = False) -> Any:
    import jax
    import jax.numpy as jnp
    import numpy as np

    kind = spec["t"]
    if kind == "darray":
        shape = (DERIVED_SIZE,) * next(picks)
        if shape and spec.get("lead"):
            shape = (spec["lead"],) + shape[1:]
        # two decimals: numbers a person can read (and edit) once written as EXAMPLES
        values = rng.uniform(0.1, 1.0, shape) if positive else rng.standard_normal(shape)
        return jnp.asarray(np.round(values, 2), dtype=spec.get("dtype", "float32"))
    if kind in ("int", "flag"):
        return next(picks)
    if kind == "key":
        key_seed[0] += 1
        return jax.random.PRNGKey(key_seed[0] - 1)
    if kind == "dict":
        return {name: _build_derived(child, picks, rng, key_seed, module, positive) for name, child in spec["fields"]}
    if kind == "record":
        cls = record_class([name for name, _ in spec["fields"]])
        return cls(*[_build_derived(child, picks, rng, key_seed, module, positive) for _name, child in spec["fields"]])
    if kind == "instance":
        args = tuple(_build_derived(c, picks, rng, key_seed, module, positive) for c in spec["init"]["args"])
        kwargs = {n: _build_derived(c, picks, rng, key_seed, module, positive) for n, c in spec["init"]["kwargs"]}
        obj = getattr(module, spec["class"])(*args, **kwargs)
        _INSTANCES[id(obj)] = (spec["class"], args, kwargs, obj)  # obj kept: its id stays its own
        return obj
    raise ValueError(f"unknown derived spec {kind!r}")


def derived_calls(spec: dict, limit: int = 24, seed: int = 0,
                  module: Any = None) -> List[Tuple[tuple, dict, dict]]:
    """Candidate calls for a derived spec (``{"args": [...], "kwargs": [[name, spec], ...]}``):
    (args, kwargs, {"uniform": every array at the same rank choice, "values": "normal" or "positive"}).

    First every array at its first rank (2-D for a matmul operand, else 1-D), then at its second, third
    rank, each with every combination of the flags (True first); then the same again with positive
    values (for weights, probabilities, square roots); then mixed ranks and ints from a seeded
    generator, up to ``limit`` distinct candidates.  Values: standard normal floats (or uniform in
    [0.1, 1)), two decimals.
    """
    import itertools

    import numpy as np

    specs = list(spec["args"]) + [child for _name, child in spec["kwargs"]]
    domains: list = []
    for s in specs:
        _domains(s, domains)
    flags = [i for i, (kind, _) in enumerate(domains) if kind == "flag"]
    flag_values = list(itertools.product([True, False], repeat=len(flags)))[:8]
    choices: List[tuple] = []
    seen = set()

    def add(choice: tuple) -> None:
        if choice not in seen:
            seen.add(choice)
            choices.append(choice)

    widest = max([len(options) for kind, options in domains if kind == "rank"] or [1])
    for level in range(widest):
        for values in flag_values:
            pick = [options[min(level, len(options) - 1)] if kind != "flag" else None
                    for kind, options in domains]
            for i, value in zip(flags, values):
                pick[i] = value
            add(tuple(pick))
    uniform = len(choices)
    rng = np.random.default_rng(seed)
    for _ in range(limit * 4):
        if len(choices) >= limit:
            break
        add(tuple(options[int(rng.integers(len(options)))] for _kind, options in domains))
    order = [(n, False) for n in range(uniform)] + [(n, True) for n in range(uniform)] \
        + [(n, False) for n in range(uniform, len(choices))]
    out: List[Tuple[tuple, dict, dict]] = []
    for n, positive in order[:limit]:
        values_rng = np.random.default_rng(seed + n + (1000 if positive else 0))
        picks = iter(choices[n])
        key_seed = [len(out)]  # each candidate its own keys: random draws differ between inputs too
        args = tuple(_build_derived(s, picks, values_rng, key_seed, module, positive) for s in spec["args"])
        kwargs = {name: _build_derived(s, picks, values_rng, key_seed, module, positive)
                  for name, s in spec["kwargs"]}
        out.append((args, kwargs, {"uniform": n < uniform, "values": "positive" if positive else "normal"}))
    return out


def call_source(args: tuple, kwargs: dict, classes: dict) -> str:
    """``((arg, ...), {"name": value})``: Python source that builds the call again, exactly
    (float32 values written as the float64 numbers they are).  ``classes`` collects the record
    classes used: {variable name: field names}."""
    items = ", ".join(value_source(a, classes) for a in args)
    positional = f"({items},)" if len(args) == 1 else f"({items})"
    named = ", ".join(f"{name!r}: {value_source(v, classes)}" for name, v in kwargs.items())
    return f"({positional}, {{{named}}})"


def value_source(value: Any, classes: dict) -> str:
    import numpy as np

    if isinstance(value, (bool, int, float, str)) or value is None:
        return repr(value)
    if id(value) in _INSTANCES and _INSTANCES[id(value)][3] is value:
        name, args, kwargs, _obj = _INSTANCES[id(value)]
        inner = [value_source(a, classes) for a in args]
        inner += [f"{k}={value_source(v, classes)}" for k, v in kwargs.items()]
        return f"{name}({', '.join(inner)})"
    if hasattr(value, "_fields") and isinstance(value, tuple):
        name = "_Record_" + "_".join(value._fields)
        classes[name] = list(value._fields)
        return f"{name}(" + ", ".join(f"{k}={value_source(v, classes)}" for k, v in zip(value._fields, value)) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {value_source(v, classes)}" for k, v in value.items()) + "}"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(value_source(v, classes) for v in value)
        if isinstance(value, list):
            return f"[{inner}]"
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        arr = np.asarray(value)
        dtype = str(arr.dtype)
        return f"_jnp.array({_numbers(arr)}, dtype=_jnp.{dtype})"
    raise ValueError(f"cannot write a {type(value).__name__} as source")


def _numbers(arr: Any) -> str:
    """The nested list of an array's numbers, each in the shortest text that gives it back exactly."""
    import numpy as np

    if arr.ndim:
        return "[" + ", ".join(_numbers(row) for row in arr) + "]"
    value = arr.item()
    if arr.dtype.kind == "f":
        short = str(arr.dtype.type(value))  # the shortest text of the float32 (or float16, ...) number
        if np.isfinite(value) and arr.dtype.type(float(short)) == arr:
            return short
        if not np.isfinite(value):
            return f"float({str(value)!r})"
    return repr(value)
