"""Example inputs: read from annotations (parent side), built and varied in the subprocess.

The parent reads a function's annotations with LibCST -- without importing
anything -- into an :class:`InputSpec`, a small tree of plain data:

* ``Float[Array, "batch 4"]`` (jaxtyping): an array of that dtype; numbers are
  sizes, each new dimension name gets the next size from 3 up (``batch`` 3,
  ``feat`` 4, ...), ``...`` and ``*name`` add no dimensions;
* ``jax.Array`` / ``jnp.ndarray`` / ``np.ndarray`` / ``ArrayLike``: a float32
  array of the default shape;
* ``int`` / ``float`` / ``bool``: 3, 0.5, True;
* a dataclass or ``NamedTuple`` of the module: built from its annotated fields.

Parameters with defaults keep them.  A parameter that cannot be built makes
the whole spec unavailable (None).  The subprocess builds the values from the
spec (:mod:`jitlint.verify.build`).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import libcst as cst

from jitlint.analysis.syntax import params_of, string_value
from jitlint.verify.build import InputSpec

#: jaxtyping dtype markers -> the dtype generated
JAXTYPING_DTYPES = {
    "Float": "float32", "Float16": "float16", "Float32": "float32", "Float64": "float64", "BFloat16": "bfloat16",
    "Inexact": "float32", "Real": "float32", "Num": "float32", "Shaped": "float32",
    "Int": "int32", "Integer": "int32", "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
    "UInt": "uint32", "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
    "Bool": "bool", "Complex": "complex64", "Complex64": "complex64", "Complex128": "complex128",
}

ARRAY_TYPES = frozenset({
    "jax.Array", "jax.numpy.ndarray", "jax.numpy.Array", "numpy.ndarray", "jax.typing.ArrayLike",
    "jaxtyping.Array", "jaxtyping.ArrayLike", "jax.ArrayLike",
})

SCALARS = {"int": "int", "float": "float", "bool": "bool"}

DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "flax.struct.dataclass", "chex.dataclass"})
NAMEDTUPLE_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})

#: the first size given to a named dimension; each new name gets the next one
FIRST_NAMED_SIZE = 3


class _Unsupported(Exception):
    pass


class _Reader:
    def __init__(self, index: Any, module: cst.Module, default_shape: Tuple[int, ...]) -> None:
        self.index = index
        self.module = module
        self.default_shape = tuple(default_shape)
        self.dim_sizes: Dict[str, int] = {}
        self.depth = 0

    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        q = self.index.qualify(node)
        if q is not None:
            return q
        if isinstance(node, cst.Name):
            return node.value
        return None

    def spec(self, node: cst.BaseExpression) -> dict:
        self.depth += 1
        try:
            if self.depth > 8:
                raise _Unsupported("too deep")
            return self._spec(node)
        finally:
            self.depth -= 1

    def _spec(self, node: cst.BaseExpression) -> dict:
        text = string_value(node)
        if text is not None:
            try:
                return self.spec(cst.parse_expression(text))
            except cst.ParserSyntaxError:
                raise _Unsupported(text) from None
        if isinstance(node, cst.Subscript):
            return self._subscript(node)
        q = self.qualify(node)
        if q in ARRAY_TYPES:
            return {"t": "array", "shape": list(self.default_shape), "dtype": "float32"}
        if q in SCALARS:
            return {"t": "scalar", "type": SCALARS[q]}
        if isinstance(node, cst.Name) and node.value in self.index.classes:
            return self._class(node.value)
        raise _Unsupported(self.module.code_for_node(node))

    def _subscript(self, node: cst.Subscript) -> dict:
        q = self.qualify(node.value) or ""
        elements = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
        marker = q.rsplit(".", 1)[-1]
        if (q.startswith("jaxtyping.") or q == marker) and marker in JAXTYPING_DTYPES and len(elements) == 2:
            dims = string_value(elements[1])
            if dims is None:
                raise _Unsupported("dimensions are not a string")
            return {"t": "array", "shape": self._dims(dims), "dtype": JAXTYPING_DTYPES[marker]}
        if q in ("typing.Optional",) and len(elements) == 1:
            return self.spec(elements[0])
        if q in ("typing.Tuple", "tuple") and elements and not any(
                isinstance(e, cst.Ellipsis) for e in elements):
            return {"t": "tuple", "items": [self.spec(e) for e in elements]}
        raise _Unsupported(self.module.code_for_node(node))

    def _dims(self, text: str) -> List[int]:
        shape: List[int] = []
        for token in text.split():
            if token == "..." or token.startswith("*"):
                continue
            token = token.lstrip("#")
            if token.isdigit():
                shape.append(int(token))
                continue
            name = token if token.isidentifier() and token != "_" else None
            if name is None:
                shape.append(FIRST_NAMED_SIZE)
                continue
            if name not in self.dim_sizes:
                self.dim_sizes[name] = FIRST_NAMED_SIZE + len(self.dim_sizes)
            shape.append(self.dim_sizes[name])
        return shape

    def _class(self, name: str) -> dict:
        info = self.index.classes[name]
        node: cst.ClassDef = info.node
        is_dataclass = any(self.qualify(d.decorator if not isinstance(d.decorator, cst.Call) else d.decorator.func)
                           in DATACLASS_DECORATORS for d in node.decorators)
        is_namedtuple = any(self.qualify(b.value) in NAMEDTUPLE_BASES for b in node.bases)
        if not (is_dataclass or is_namedtuple):
            raise _Unsupported(f"class {name} is not a dataclass or NamedTuple")
        fields: List[List[Any]] = []
        body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
        for stmt in body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    if small.value is not None:
                        continue  # a default: keep it
                    fields.append([small.target.value, self.spec(small.annotation.annotation)])
        return {"t": "class", "name": name, "fields": fields}


def annotation_inputs(fn: cst.FunctionDef, index: Any, module: cst.Module, default_shape: Tuple[int, ...],
                      skip_first: bool = False) -> Optional[InputSpec]:
    """The spec of one call from the annotations of ``fn``; None when a parameter cannot be built.

    The ``self`` of a method of a dataclass is built from the class's fields.
    """
    reader = _Reader(index, module, default_shape)
    args: List[dict] = []
    kwargs: List[Tuple[str, dict]] = []
    params = params_of(fn.params)
    owner = _owner_class(fn, index)
    try:
        for i, (param, kind) in enumerate(params):
            if kind in ("vararg", "varkw") or param.default is not None:
                continue
            if i == 0 and owner is not None and kind in ("posonly", "positional") and not _is_static(fn, index):
                args.append(reader._class(owner))
                continue
            if skip_first and i == 0:
                continue
            if param.annotation is None:
                return None
            spec = reader.spec(param.annotation.annotation)
            if kind == "kwonly":
                kwargs.append((param.name.value, spec))
            else:
                args.append(spec)
    except _Unsupported:
        return None
    if not args and not kwargs:
        return None
    return InputSpec(tuple(args), tuple(kwargs))


def _owner_class(fn: cst.FunctionDef, index: Any) -> Optional[str]:
    info = index.infos.get(fn)
    if info is None or info.cls is None:
        return None
    return info.cls.name


def _is_static(fn: cst.FunctionDef, index: Any) -> bool:
    info = index.infos.get(fn)
    return bool(info is not None and info.is_static_method)
