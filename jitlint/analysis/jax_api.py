"""What jitlint knows about the JAX API, keyed by fully qualified name.

Everything here is data.  Names are the public spellings (``jax.numpy.sum``);
the import resolver in :mod:`jitlint.analysis.names` turns whatever alias a
module uses (``import jax.numpy as np``, ``from jax import lax``) into these.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import libcst as cst


@dataclass(frozen=True)
class Transform:
    """A wrapper that traces the function it is given."""

    name: str
    #: how static arguments are named in its keywords; empty = none
    static_argnums_kw: Tuple[str, ...] = ()
    static_argnames_kw: Tuple[str, ...] = ()
    #: non-array arguments are static (equinox's filter_* family)
    filter_static: bool = False
    #: ``in_axes`` with ``None`` entries marks arguments static (vmap family)
    in_axes_kw: Optional[str] = None
    #: the wrapper lets methods mutate attributes of modules (flax nnx)
    allows_attribute_writes: bool = False
    #: abstract evaluation only (eval_shape, make_jaxpr): writing Python objects
    #: out of the trace is the usual way to use it
    abstract: bool = False
    #: positional index of ``in_axes`` when passed positionally (vmap)
    in_axes_pos: Optional[int] = None
    #: a keyword that passes some arguments through untraced, in a form not read here
    #: (``jnp.vectorize(f, excluded={1, "n"})``): which parameters are static is then unknown
    passes_through_kw: Optional[str] = None


def _jit_like(name: str, **kw) -> Transform:
    return Transform(name, ("static_argnums",), ("static_argnames",), **kw)


TRANSFORMS = {
    t.name: t
    for t in (
        _jit_like("jax.jit"),
        _jit_like("jax.experimental.pjit.pjit"),
        _jit_like("jax.pjit"),
        Transform("jax.pmap", ("static_broadcasted_argnums",), ()),
        Transform("jax.vmap", in_axes_kw="in_axes", in_axes_pos=1),
        # vmap over the loop dimensions of a signature (JAX 0.10.2: `if v > 0` in the function
        # raises TracerBoolConversionError, also outside jit)
        Transform("jax.numpy.vectorize", passes_through_kw="excluded"),
        Transform("jax.checkpoint", ("static_argnums",), ()),
        Transform("jax.remat", ("static_argnums",), ()),
        Transform("jax.ad_checkpoint.checkpoint", ("static_argnums",), ()),
        Transform("jax.smap"),
        Transform("jax.eval_shape", abstract=True),
        Transform("jax.make_jaxpr", ("static_argnums",), (), abstract=True),
        Transform("equinox.filter_jit", filter_static=True),
        Transform("equinox.filter_vmap", filter_static=True, in_axes_kw="in_axes"),  # (keyword-only)
        Transform("equinox.filter_pmap", filter_static=True),
        Transform("equinox.filter_checkpoint", filter_static=True),
        _jit_like("flax.nnx.jit", allows_attribute_writes=True),
        Transform("flax.nnx.vmap", in_axes_kw="in_axes", allows_attribute_writes=True),
        Transform("flax.nnx.remat", ("static_argnums",), (), allows_attribute_writes=True),
        _jit_like("flax.linen.jit"),
    )
}

#: flax nnx's graph nodes (JAX 0.10.2, flax 0.12.8): an instance is a pytree whose arrays and
#: ``Variable``s are its leaves, and whose other attributes (ints, floats, strings, tuples of them) are
#: its static structure, under ``nnx.jit`` (the graph definition) and under ``jax.jit`` alike
#: -- and pax's modules (pax 0.5: ``tree_flatten`` keeps every attribute but the registered parameters,
#: states and submodules in the aux data, so ``model.vocab_size`` is a Python int under ``jax.jit``)
GRAPH_NODE_CLASSES = frozenset({"flax.nnx.Module", "flax.nnx.Object", "flax.nnx.Pytree", "flax.nnx.module.Module",
                                "flax.nnx.object.Object", "flax.nnx.pytreelib.Pytree", "pax.Module"})
#: flax nnx's state holders: a Variable attribute of a graph node is a leaf of its state (traced)
NNX_VARIABLES = frozenset({"flax.nnx.Variable", "flax.nnx.Param", "flax.nnx.BatchStat", "flax.nnx.Cache",
                           "flax.nnx.Intermediate", "flax.nnx.Perturbation", "flax.nnx.RngKey", "flax.nnx.RngCount",
                           "flax.nnx.VariableState", "flax.nnx.Rngs", "flax.nnx.RngStream"})
#: the members of a flax nnx ``Variable`` (flax 0.12.8) that give, hold or change its value, the one leaf
#: of the pytree it is: its other attributes are its metadata (``sharding_names``, ``out_sharding``, a
#: keyword given to ``nnx.Param(..., note=...)``), Python values under ``nnx.jit`` and ``jax.jit`` alike
VARIABLE_VALUE_MEMBERS = frozenset({
    "value", "raw_value", "_raw_value", "get_value", "get_raw_value", "set_value", "set_raw_value", "ref", "copy",
    "copy_from", "replace", "to_state", "create_value", "hijax", "update_from_state", "add_axis", "remove_axis"})

#: JAX's jit spells the same thing two ways in older code
TRANSFORM_ALIASES = {
    "jax.api.jit": "jax.jit",
    "jax.experimental.shard_map": "jax.experimental.shard_map.shard_map",
    "flax.linen.transforms.jit": "flax.linen.jit",
}

#: lax loops whose result is their carry, with the carry's pytree structure (JAX checks that the
#: body returns that structure): where the initial carry is, by position and keyword
LAX_CARRIES = {
    "jax.lax.fori_loop": (3, "init_val"),
    "jax.lax.while_loop": (2, "init_val"),
    "jax.lax.scan": (1, "init"),
}

#: lax maps: the result has the structure the function returns (a dict stays a dict)
LAX_MAPS = frozenset({"jax.lax.map"})

#: lax branching: where the operands start (each branch is called with them, and every branch
#: must return the same structure)
LAX_OPERANDS = {"jax.lax.cond": 3, "jax.lax.switch": 2}

#: how many positional arguments a lax primitive calls its function with (jax 0.10.2): a parameter
#: past them keeps its default (``def step(state, verbose=False)`` as a while_loop body: False)
LAX_CALL_ARITY = {
    "jax.lax.while_loop": 1,
    "jax.lax.fori_loop": 2,
    "jax.lax.scan": 2,
    "jax.lax.map": 1,
    "jax.lax.associative_scan": 2,
    "equinox.internal.while_loop": 1,
    "equinox.internal.scan": 2,
}

#: functions whose callable arguments JAX traces even outside jit:
#: qualified name -> positions (or keyword names) of the traced callables.
#: A position given as ``-1`` means "a sequence of callables" (lax.switch).
TRACED_BODIES = {
    "jax.lax.fori_loop": ((2, "body_fun"),),
    "jax.lax.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "jax.lax.scan": ((0, "f"),),
    "jax.lax.cond": ((1, "true_fun"), (2, "false_fun")),
    "jax.lax.switch": ((1, "branches"),),
    "jax.lax.map": ((0, "f"),),
    "jax.lax.custom_root": ((0, "f"), (2, "solve"), (3, "tangent_solve")),
    "jax.lax.custom_linear_solve": ((0, "matvec"),),
    "jax.lax.reduce": ((2, "computation"),),
    "equinox.internal.while_loop": ((0, "cond_fun"), (1, "body_fun")),
    "equinox.internal.scan": ((0, "f"),),
}

#: arguments of these are host callbacks: their functions run with concrete values
CALLBACKS = frozenset(
    {
        "jax.debug.callback",
        "jax.pure_callback",
        "jax.experimental.io_callback",
        "jax.experimental.host_callback.call",
        "jax.experimental.host_callback.id_tap",
        "jax.experimental.host_callback.id_print",
        "jax.debug.print",
        # the kernel runs on the host, on every call, with the buffers (jax 0.10.2)
        "jax.experimental.buffer_callback.buffer_callback",
    }
)

#: transforms that compile and cache per function object
COMPILING_TRANSFORMS = frozenset({"jax.jit", "jax.pjit", "jax.experimental.pjit.pjit", "jax.pmap", "equinox.filter_jit",
                                  "equinox.filter_pmap", "flax.nnx.jit", "flax.linen.jit"})
#: transforms whose every argument leaf must be an array or a Python scalar (a leaf of another type, not
#: made static, raises TypeError before the trace starts; the filter transforms keep such leaves static)
ARRAY_ONLY_TRANSFORMS = frozenset({"jax.jit", "jax.pjit", "jax.experimental.pjit.pjit", "jax.pmap"})
#: transforms that return a new function object on every call (``jax.jit(jax.grad(f))`` in a loop
#: compiles every time; verified with jax 0.10.2; ``jax.checkpoint`` is cached and is not here)
FRESH_FUNCTION_TRANSFORMS = frozenset({"jax.grad", "jax.value_and_grad", "jax.vmap", "jax.jacfwd", "jax.jacrev",
                                       "jax.hessian"})

#: transforms that trace their function again on every call (nothing is cached between calls)
RETRACES_EVERY_CALL = frozenset({"jax.vmap", "equinox.filter_vmap", "flax.nnx.vmap"})

#: functions that return a wrapper calling the function they are given with the arguments the wrapper
#: gets, unchanged (``jax.named_call``: the call runs inside a name scope; jax 0.10.2)
ARGUMENT_PRESERVING_WRAPPERS = frozenset({"jax.named_call"})

#: calls that return a wrapper of the function they are given and trace nothing until it is called
WRAPPER_MAKERS = COMPILING_TRANSFORMS | FRESH_FUNCTION_TRANSFORMS | RETRACES_EVERY_CALL | ARGUMENT_PRESERVING_WRAPPERS \
    | frozenset({"jax.checkpoint", "jax.remat", "jax.custom_jvp", "jax.custom_vjp", "jax.numpy.vectorize",
                 "equinox.filter_grad", "equinox.filter_value_and_grad", "equinox.filter_vmap", "functools.partial"})

#: transforms that do not stage code out: Python control flow on values works there
#: transforms that differentiate with respect to ``argnums`` and pass the other arguments through
DIFFERENTIATING_TRANSFORMS = frozenset({"jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev",
                                        "jax.hessian"})
#: transforms whose function, called, gives what JAX's autodiff computes (equinox's filtered ones too)
GRADIENT_MAKERS = DIFFERENTIATING_TRANSFORMS | {"equinox.filter_grad", "equinox.filter_value_and_grad"}

#: ``jax.jit`` and the ``pjit`` spellings, which make the same wrapper (JAX 0.10.2: ``pjit`` calls ``jax.jit``)
JIT_NAMES = frozenset({"jax.jit", "jax.pjit", "jax.experimental.pjit.pjit"})

NON_STAGING = frozenset(
    {
        "jax.grad",
        "jax.value_and_grad",
        "jax.vjp",
        "jax.jvp",
        "jax.jacfwd",
        "jax.jacrev",
        "jax.hessian",
        "jax.linearize",
        "jax.custom_jvp",
        "jax.custom_vjp",
        # runs the function as it is (no tracing of its own): inside a trace, arguments keep their kind
        "jax.experimental.checkify.checkify",
        # outside a jit it runs eagerly, per device, on concrete shards (JAX 0.10.2: `print` shows the
        # values and a global is read at every call); inside one it is staged with it
        "jax.shard_map",
        "jax.experimental.shard_map.shard_map",
    }
)

#: tree utilities that call their function argument on the leaves of the trees
TREE_MAPS = {
    "jax.tree_util.tree_map": 0,
    "jax.tree.map": 0,
    "jax.tree_map": 0,
    "jax.tree_util.tree_map_with_path": 0,
    "jax.tree.map_with_path": 0,
    "equinox.filter_grad": None,
    # Python code that calls `fn` on slices of the elements it is given, traced or not (JAX 0.10.2: outside a
    # jit, `fn` sees concrete arrays and `print` shows their values)
    "jax.lax.associative_scan": 0,
}

#: modules whose function results are arrays computed by JAX (traced in traced code)
ARRAY_MODULES = (
    "jax.numpy.",
    "jax.lax.",
    "jax.random.",
    "jax.nn.",
    "jax.scipy.",
    "jax.image.",
    "jax.ops.",
    # Haiku's parameters, state and keys (haiku 0.0.17): arrays that `apply` is given, traced under a jit of it
    "haiku.get_parameter",
    "haiku.get_state",
    "haiku.next_rng_key",
)

#: functions of those modules that answer with static Python values
STATIC_RESULT_FUNCTIONS = frozenset(
    {
        "jax.numpy.shape",
        "jax.numpy.ndim",
        "jax.numpy.size",
        "jax.numpy.result_type",
        "jax.numpy.dtype",
        "jax.numpy.issubdtype",
        "jax.numpy.isdtype",
        "jax.numpy.finfo",
        "jax.numpy.iinfo",
        "jax.numpy.promote_types",
        "jax.numpy.can_cast",
        "jax.numpy.isscalar",
        "jax.numpy.iscomplexobj",
        "jax.numpy.isrealobj",
        "jax.numpy.issctype",
        "jax.numpy.broadcast_shapes",
        "jax.lax.broadcast_shapes",
        "jax.numpy.get_printoptions",
        "jax.lax.dtype",
        "jax.random.key_data_shape",
        "jax.lax.axis_size",
        "jax.lax.axis_index",  # traced, but see below: axis_index is an array
        "jax.dtypes.canonicalize_dtype",
        "jax.numpy.iterable",
    }
) - {"jax.lax.axis_index"}

#: other jax functions that return static Python values
STATIC_JAX_FUNCTIONS = frozenset(
    {
        "jax.device_count",
        "jax.local_device_count",
        "jax.devices",
        "jax.local_devices",
        "jax.process_index",
        "jax.process_count",
        "jax.default_backend",
        "jax.eval_shape",
        "jax.typeof",
        "haiku.data_structures.tree_size",  # (a count of parameters: their shapes say it)
        "haiku.data_structures.tree_bytes",
        "jax.ShapeDtypeStruct",
        "jax.tree_util.tree_structure",
        "jax.tree.structure",
        "jax.tree_util.treedef_is_leaf",
        "jax.tree_util.all_leaves",
        "jax.dtypes.result_type",
        "jax.dtypes.canonicalize_dtype",
        "jax.dtypes.issubdtype",
        "jax.config.read",
        "jax.core.get_aval",
        "jax.numpy.shape",
    }
)

#: array methods whose result is an array of the same library (NumPy stays NumPy)
NUMPY_ARRAY_METHODS = frozenset({"astype", "reshape", "copy", "transpose", "ravel", "flatten", "squeeze",
                                 "view", "clip", "round", "cumsum", "sum", "mean"})

#: constructors of host (Python / NumPy) random generators: a draw inside traced code is a constant
HOST_RNG_FACTORIES = frozenset({"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator",
                                "random.Random", "random.SystemRandom"})

#: attributes of an array that are static under tracing
STATIC_ATTRIBUTES = frozenset(
    {
        "shape",
        "ndim",
        "dtype",
        "size",
        "weak_type",
        "itemsize",
        "nbytes",
        "aval",
        "sharding",  # static-ish: an error on tracers, never a value
        "__class__",
        "__name__",
        "__len__",
        "_fields",
        "named_shape",
        # the metadata of JAX's sparse arrays (BCOO, BCSR): Python ints and bools under jit
        "n_sparse",
        "n_batch",
        "n_dense",
        "nse",
        "indices_sorted",
        "unique_indices",
    }
)

#: attribute names that hold configuration on the objects JAX code passes around
#: (a pytree's static fields): reading them never gives a tracer in practice
STATIC_LOOKING_ATTRIBUTES = frozenset({"dim", "dims", "ndims", "rank", "name", "axis", "axes", "axis_name",
                                       "event_shape", "batch_shape", "num_classes", "features"})

#: types that no tracer, and no pytree holding tracers, is an instance of: inside
#: `if isinstance(x, int):` x is static. Not the containers: a tuple may hold tracers. `type`: an
#: instance of it is a class, and a class is never a tracer (nor a pytree of them: JAX flattens
#: instances, and a class is a leaf that jit rejects as an argument), so its attributes
#: (`__annotations__`, `__qualname__`) are Python objects
PYTHON_VALUE_TYPES = frozenset({"int", "float", "bool", "complex", "str", "bytes", "type(None)", "numbers.Number",
                                "numbers.Integral", "numbers.Real", "np.ndarray", "numpy.ndarray", "onp.ndarray",
                                "type"})

#: NumPy's scalar types (the ``numpy.generic`` hierarchy); with ``numpy.ndarray`` they hold concrete
#: values, and no tracer is an instance of any of them, nor of JAX's scalar types of the same names
#: (``jnp.float32`` tests against ``np.float32``); ``jnp.ndarray``, though, is ``jax.Array``
NUMPY_SCALAR_TYPES = frozenset({
    "generic", "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
    "complexfloating", "character", "flexible", "bool", "bool_", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "intp", "uintp", "intc", "uintc", "int_", "uint", "long",
    "ulong", "longlong", "ulonglong", "byte", "ubyte", "short", "ushort", "half", "single", "double",
    "longdouble", "float16", "float32", "float64", "float96", "float128", "float_", "csingle",
    "cdouble", "clongdouble", "complex64", "complex128", "complex192", "complex256", "complex_",
    "str_", "bytes_", "void", "object_", "datetime64", "timedelta64", "bfloat16"})


#: JAX's array types: every tracer is an instance of them, and so is every concrete JAX array;
#: no hashable Python value is (``jax.Array`` defines no hash, so jit refuses one as a static argument)
JAX_ARRAY_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray", "jax.core.Tracer"})

#: mapping types: an instance is a dict-like container, whose keys (what iterating it gives) are
#: hashable, so never tracers (a JAX array is unhashable); flax's FrozenDict is a pytree of them
MAPPING_TYPES = frozenset({
    "dict", "typing.Dict", "typing.Mapping", "typing.MutableMapping", "collections.abc.Mapping",
    "collections.abc.MutableMapping", "collections.OrderedDict", "collections.defaultdict",
    "typing.OrderedDict", "typing.DefaultDict", "flax.core.FrozenDict", "flax.core.frozen_dict.FrozenDict",
})


def holds_no_tracer(qualified: str) -> bool:
    """Whether ``qualified`` names a type no tracer is an instance of: NumPy's array and scalar
    types, and JAX's scalar types (a value of one of them is concrete)."""
    module, _, name = qualified.rpartition(".")
    if module in ("numpy", "jax.numpy"):
        return name in NUMPY_SCALAR_TYPES or (module == "numpy" and name == "ndarray")
    return False


#: builtins whose answer about an object depends only on its class and the names it has, never on
#: the values it holds: ``hasattr(obj, "mask")``, ``isinstance(obj, T)``, ``type(obj)``, ``callable(obj)``
STRUCTURAL_TESTS = frozenset({"hasattr", "isinstance", "type", "callable"})

#: builtins whose result is a static Python value whatever they are given
#: attributes of a concrete JAX array that a tracer does not have: ``hasattr(tracer, name)`` is False
#: under jit, vmap and grad alike (measured on JAX 0.10.2; ``addressable_shards``, ``committed`` and
#: the like raise ConcretizationTypeError from ``hasattr`` instead, and are not here)
TRACER_LACKS = frozenset({"sharding", "device", "block_until_ready", "copy_to_host_async", "_value", "format",
                          "platform"})

#: JAX functions that return a Python list of arrays (measured on JAX 0.10.2: ``type(jnp.split(x, 2))`` is
#: ``list``), whose slots can be assigned
LIST_OF_ARRAYS_FUNCTIONS = frozenset({"jax.numpy.split", "jax.numpy.array_split", "jax.numpy.hsplit",
                                      "jax.numpy.vsplit", "jax.numpy.dsplit", "jax.numpy.meshgrid",
                                      "jax.numpy.broadcast_arrays"})

#: attributes an array tracer has, as a concrete array does (measured on JAX 0.10.2)
TRACER_HAS = frozenset({"shape", "dtype", "ndim", "size", "aval", "weak_type", "nbytes", "itemsize", "T",
                        "astype", "reshape", "item", "tolist", "devices", "__jax_array__"})

STATIC_BUILTINS = frozenset(
    {
        "len",
        "isinstance",
        "issubclass",
        "type",
        "callable",
        "hasattr",
        "id",
        "repr",
        "str",
        "format",
        "hash",
        "int",
        "float",
        "bool",
        "complex",
        "range",
        "print",
        "open",
        "dir",
        "vars",
        "super",
        "object",
        "NotImplementedError",
        "ValueError",
        "TypeError",
    }
)

#: containers that hold exactly what they are given
PASS_THROUGH_BUILTINS = frozenset(
    {"list", "tuple", "reversed", "iter", "sorted", "set", "frozenset", "dict", "abs", "round",
     "sum", "min", "max", "divmod", "pow", "next", "map", "filter", "getattr"}
)

#: methods of containers and arrays that produce static results
STATIC_METHODS = frozenset({"keys", "item", "tolist", "tobytes", "count", "index", "__len__"})

#: Python modules whose functions are side effects inside traced code
SIDE_EFFECT_MODULES = {
    "logging": "a `logging` call runs once, at trace time",
    "time": "`time` is read once, at trace time, and frozen into the compiled function",
    "random": "Python's `random` draws once, at trace time: every call reuses that number",
    "numpy.random": "`numpy.random` draws once, at trace time: every call reuses those numbers",
}

#: logging methods of logger objects
LOGGER_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}
)

#: methods that mutate a container in place
#: constructors of mutable array references: writing through one inside jit is the point of it
REF_FACTORIES = frozenset({"jax.new_ref", "jax.empty_ref", "jax.ref.new_ref", "jax.ref.empty_ref",
                           "jax.experimental.mutable_array", "jax._src.core.mutable_array"})

#: in-place methods of Python containers that return None (so `lst.append(x) or y` is for the effect)
NONE_RETURNING_METHODS = frozenset({"append", "extend", "insert", "remove", "clear", "update", "add", "discard",
                                    "appendleft", "extendleft"})

#: builtins without side effects (``map`` and ``filter`` call the function they are given; ``getattr`` and
#: ``hasattr`` read an attribute by a name the code computes)
PURE_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "float", "frozenset", "getattr",
    "hasattr", "int", "isinstance", "issubclass", "len", "list", "map", "max", "min", "pow", "range",
    "reversed", "round", "set", "slice", "sorted", "str", "sum", "tuple", "type", "zip", "repr", "format",
    "callable", "filter",
})

MUTATING_METHODS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "popitem",
        "remove",
        "clear",
        "update",
        "setdefault",
        "add",
        "discard",
        "appendleft",
        "extendleft",
        "popleft",
        "__setitem__",
    }
)

#: static keywords that are never traced (names of config-ish parameters)
MUTABLE_FACTORIES = frozenset(
    {"list", "dict", "set", "collections.defaultdict", "collections.OrderedDict",
     "collections.deque", "collections.Counter"}
)


#: NumPy functions that answer with static Python values even on tracers
NUMPY_STATIC_FUNCTIONS = frozenset(
    "numpy." + name
    for name in ("shape", "ndim", "size", "result_type", "dtype", "issubdtype", "isscalar",
                 "iscomplexobj", "isrealobj", "iterable", "can_cast", "promote_types", "finfo",
                 "iinfo", "broadcast_shapes", "isdtype")
)

def returns_python_value(q: str) -> bool:
    """A JAX or NumPy function whose result is a Python value whatever it is given (``jnp.shape``,
    ``jnp.issubdtype``, ``jax.typeof``, ``np.ndim``): static in traced code, and so is a tree of them."""
    return q in STATIC_RESULT_FUNCTIONS or q in STATIC_JAX_FUNCTIONS or q in NUMPY_STATIC_FUNCTIONS


#: other jax functions whose result is an array computed from their arguments
ARRAY_RETURNING_JAX_FUNCTIONS = frozenset(
    {
        "jax.device_put",
        "jax.ad_checkpoint.checkpoint_name",
        "jax.experimental.checkify.check",
        "jax.lax.stop_gradient",
        "jax.dtypes.float0",
        "jax.block_until_ready",
    }
)

#: functions applied to every leaf of the pytree they are given: what they return has its structure
#: (a dict of arrays comes back a dict)
STRUCTURE_PRESERVING = frozenset(
    {
        "jax.lax.psum",
        "jax.lax.pmean",
        "jax.lax.pmax",
        "jax.lax.pmin",
        "jax.lax.all_gather",
        "jax.lax.ppermute",
        "jax.lax.pshuffle",
        "jax.lax.psum_scatter",
        "jax.lax.all_to_all",
        "jax.lax.stop_gradient",
        "jax.lax.optimization_barrier",
        "jax.lax.with_sharding_constraint",
        "jax.device_put",
        "jax.block_until_ready",
        "jax.ad_checkpoint.checkpoint_name",
    }
)

#: jax functions returning boolean arrays (masks)
BOOLEAN_ARRAY_FUNCTIONS = frozenset(
    "jax.numpy." + n
    for n in ("isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or", "logical_not",
              "logical_xor", "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "isin",
              "isclose", "signbit", "iscomplex", "isreal")
) | frozenset({"jax.random.bernoulli"})

#: spellings of the boolean dtype: ``x.astype(bool)`` is a mask
BOOL_DTYPES = frozenset({"jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_", "numpy.bool"})
#: the same as strings (``x.astype("bool")``); the builtin ``bool`` counts too
BOOL_DTYPE_STRINGS = frozenset({"bool", "bool_", "?"})
#: functions that cast an array to a dtype: name -> (position, keyword) of the dtype
DTYPE_CAST_FUNCTIONS = {
    "jax.numpy.astype": (1, "dtype"),
    "jax.numpy.asarray": (1, "dtype"),
    "jax.numpy.array": (1, "dtype"),
    "jax.lax.convert_element_type": (1, "new_dtype"),
}
#: functions whose result is floating unless a dtype is given (JAX's default dtypes)
FLOAT_RESULT_FUNCTIONS = frozenset(
    {"jax.nn.one_hot", "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty", "jax.numpy.eye",
     "jax.numpy.identity", "jax.numpy.linspace", "jax.random.normal", "jax.random.uniform",
     "jax.random.truncated_normal", "jax.random.gumbel", "jax.random.laplace", "jax.random.exponential",
     "jax.random.gamma", "jax.random.beta", "jax.random.dirichlet", "jax.random.multivariate_normal"}
)
#: the dtype categories of ``jnp.issubdtype(x, category)``: the dtype kinds each one holds
DTYPE_CATEGORIES = {
    "integer": frozenset("iu"), "signedinteger": frozenset("i"), "unsignedinteger": frozenset("u"),
    "floating": frozenset("f"), "inexact": frozenset("fc"), "complexfloating": frozenset("c"),
    "number": frozenset("iufc"), "bool_": frozenset("b"), "bool": frozenset("b"),
}
#: array methods that cast: name -> (position, keyword) of the dtype
DTYPE_CAST_METHODS = {"astype": (0, "dtype")}

#: calls that tell whether a trace is active -> what they return in traced code
#: (``jax.core.trace_ctx.is_top_level()``: no trace is active, so False while tracing)
TRACE_ACTIVE_TESTS = {"jax.core.trace_ctx.is_top_level": False}

#: JAX libraries whose functions return arrays computed from array arguments
ECOSYSTEM_PACKAGES = ("optax.", "equinox.", "flax.", "haiku.", "distrax.", "numpyro.", "diffrax.",
                      "jaxopt.", "einops.", "chex.", "jraph.", "optimistix.", "lineax.", "flashbax.")

#: methods that, called with traced arguments, return arrays (models, optimisers, distributions)
ARRAY_RESULT_METHODS = frozenset({"apply", "update", "sample", "log_prob", "prob", "cdf", "entropy"})

#: array methods: called on an array, they return an array
ARRAY_METHODS = frozenset({
    "sum", "mean", "max", "min", "std", "var", "prod", "any", "all", "argmax", "argmin", "dot",
    "astype", "reshape", "ravel", "flatten", "squeeze", "transpose", "cumsum", "cumprod", "clip",
    "round", "conj", "sort", "argsort", "take", "repeat", "swapaxes", "diagonal", "trace", "ptp",
    "nonzero", "view",
})

#: attributes and methods of a JAX array (reading one is no sign of a container or an object)
ARRAY_ATTRIBUTE_NAMES = STATIC_ATTRIBUTES | ARRAY_METHODS | NUMPY_ARRAY_METHODS | frozenset(
    {"T", "mT", "real", "imag", "at", "aval", "sharding", "device", "devices", "flat", "item", "tolist",
     "block_until_ready", "__array__", "__index__"}) - {"_fields"}  # (a namedtuple's)

#: packages that are never part of the checked project
EXTERNAL_PACKAGES = ("jax.", "jaxlib.", "numpy.", "scipy.", "math.", "functools.", "operator.", "logging.",
                     "time.", "random.", "os.", "sys.", "typing.", "collections.", "itertools.", "dataclasses.",
                     "builtins.") + ECOSYSTEM_PACKAGES

#: transforms whose result, once called, is a static Python object
STATIC_RESULT_TRANSFORMS = frozenset({"jax.eval_shape", "jax.make_jaxpr"})

#: transforms called with the function and its arguments together (``jax.eval_shape(f, *args)``): they
#: trace it there and then, so a lambda written in the call is a new function each time it runs
APPLIED_AT_ONCE = frozenset({"jax.eval_shape"})


def is_callback(qualified: Optional[str]) -> bool:
    """Host callbacks: the functions they are given run with concrete values."""
    if qualified is None:
        return False
    if qualified in CALLBACKS:
        return True
    tail = qualified.rsplit(".", 1)[-1]
    return qualified.startswith("jax.") and tail in ("io_callback", "pure_callback", "callback", "debug_callback")


# JAX raises its concretization errors as TypeErrors (TracerBoolConversionError,
# ConcretizationTypeError, TracerArrayConversionError, TracerIntegerConversionError), and a
# traced slice bound or boolean mask as an IndexError (checked on JAX 0.10.2).
TYPE_ERRORS = frozenset({"TypeError", "JAXTypeError", "ConcretizationTypeError", "TracerBoolConversionError",
                         "TracerIntegerConversionError", "TracerArrayConversionError"})
INDEX_ERRORS = frozenset({"IndexError", "LookupError", "JAXIndexError", "NonConcreteBooleanIndexError"})


#: names of the array modules that are not functions: constants and dtypes (``jnp.inf``, ``jnp.float32``)
NOT_FUNCTIONS = frozenset({
    "inf", "nan", "pi", "e", "euler_gamma", "newaxis", "NINF", "PINF", "NAN", "NZERO", "PZERO",
    "float16", "float32", "float64", "bfloat16", "int4", "int8", "int16", "int32", "int64", "uint4", "uint8",
    "uint16", "uint32", "uint64", "bool_", "complex64", "complex128", "dtype", "ndarray", "generic", "number",
    "floating", "integer", "complexfloating", "signedinteger", "unsignedinteger", "inexact", "character",
    "flexible", "object_", "float_", "int_", "uint", "complex_", "single", "double", "cdouble", "csingle",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz",
})


def is_array_api_function(qualified: str) -> bool:
    """A function object of the array modules (``jnp.tanh``, ``jax.nn.relu``): not one of their
    constants or dtypes, nor one of lax's configuration classes."""
    tail = qualified.rsplit(".", 1)[-1]
    return qualified.startswith(ARRAY_MODULES) and tail not in NOT_FUNCTIONS and tail[:1].islower() \
        and not tail.startswith("_")


def is_array_function(qualified: str) -> bool:
    """A function of jax.numpy / lax / random / nn / scipy returning an array."""
    if qualified in STATIC_RESULT_FUNCTIONS:
        return False
    if qualified.startswith("jax.lax.") and qualified.rsplit(".", 1)[-1][:1].isupper():
        return False  # lax's classes (ConvDimensionNumbers, Precision, GatherScatterMode) are configuration
    return qualified.startswith(ARRAY_MODULES)


def canonical_transform(qualified: Optional[str]) -> Optional[Transform]:
    if qualified is None:
        return None
    qualified = TRANSFORM_ALIASES.get(qualified, qualified)
    return TRANSFORMS.get(qualified)


# --------------------------------------------------------------------------
# NumPy on tracers (JIT302).  One table, checked against JAX by
# tests/test_numpy_table.py: every entry of NUMPY_FAILS_ON_TRACER raises when
# given a tracer under jax.jit, every entry of NUMPY_WORKS_ON_TRACER works
# (NumPy hands it to the array's own method).  The value is the call the test
# makes, with ``x`` a float32[3] tracer.
# --------------------------------------------------------------------------
NUMPY_FAILS_ON_TRACER = {
    # a ufunc's methods convert their input as the ufunc does
    **{f"{ufunc}.{method}": f"np.{ufunc}.{method}({'x, x' if method == 'outer' else 'x'})"
       for ufunc in ("add", "multiply", "maximum", "minimum", "logical_and", "logical_or")
       for method in ("accumulate", "reduce", "outer")},
    "lib.stride_tricks.sliding_window_view": "np.lib.stride_tricks.sliding_window_view(x, 2)",
    "asarray": "np.asarray(x)",
    "array": "np.array(x)",
    "trapezoid": "np.trapezoid(x)",
    "correlate": "np.correlate(x, x)",
    "gradient": "np.gradient(x)",
    "polyfit": "np.polyfit(x, x, 1)",
    "ediff1d": "np.ediff1d(x)",
    "unwrap": "np.unwrap(x)",
    "radians": "np.radians(x)",
    "degrees": "np.degrees(x)",
    "logaddexp2": "np.logaddexp2(x, x)",
    "arctanh": "np.arctanh(x)",
    "arcsinh": "np.arcsinh(x)",
    "arccosh": "np.arccosh(x)",
    "fmod": "np.fmod(x, 2.0)",
    "conjugate": "np.conjugate(x)",
    "exp": "np.exp(x)",
    "log": "np.log(x)",
    "log1p": "np.log1p(x)",
    "expm1": "np.expm1(x)",
    "sqrt": "np.sqrt(x)",
    "square": "np.square(x)",
    "sin": "np.sin(x)",
    "cos": "np.cos(x)",
    "tan": "np.tan(x)",
    "arcsin": "np.arcsin(x)",
    "arccos": "np.arccos(x)",
    "arctan": "np.arctan(x)",
    "arctan2": "np.arctan2(x, x)",
    "sinh": "np.sinh(x)",
    "cosh": "np.cosh(x)",
    "tanh": "np.tanh(x)",
    "abs": "np.abs(x)",
    "absolute": "np.absolute(x)",
    "sign": "np.sign(x)",
    "floor": "np.floor(x)",
    "ceil": "np.ceil(x)",
    "power": "np.power(x, 2)",
    "maximum": "np.maximum(x, 0.0)",
    "minimum": "np.minimum(x, 0.0)",
    "isnan": "np.isnan(x)",
    "isinf": "np.isinf(x)",
    "isfinite": "np.isfinite(x)",
    "add": "np.add(x, 1.0)",
    "multiply": "np.multiply(x, 2.0)",
    "dot": "np.dot(x, x)",
    "matmul": "np.matmul(x, x)",
    "outer": "np.outer(x, x)",
    "where": "np.where(x > 0, x, 0.0)",
    "clip": "np.clip(x, 0.0, 1.0)",
    "ravel": "np.ravel(x)",
    "sort": "np.sort(x)",
    "take": "np.take(x, 0)",
    "concatenate": "np.concatenate([x, x])",
    "stack": "np.stack([x, x])",
    "vstack": "np.vstack([x, x])",
    "hstack": "np.hstack([x, x])",
    "append": "np.append(x, x)",
    "zeros_like": "np.zeros_like(x)",
    "ones_like": "np.ones_like(x)",
    "isclose": "np.isclose(x, x)",
    "allclose": "np.allclose(x, x)",
    "diff": "np.diff(x)",
    "cross": "np.cross(x, x)",
    "einsum": "np.einsum('i,i->', x, x)",
    "float32": "np.float32(x)",
    "int32": "np.int32(x)",
    "linalg.norm": "np.linalg.norm(x)",
    "linalg.solve": "np.linalg.solve(np.eye(3) + x[:, None], x)",
    "linalg.inv": "np.linalg.inv(x[:, None] * np.eye(3))",
    "linalg.det": "np.linalg.det(x[:, None] * np.eye(3))",
    # more ufuncs
    "log2": "np.log2(x)",
    "log10": "np.log10(x)",
    "exp2": "np.exp2(x)",
    "cbrt": "np.cbrt(x)",
    "reciprocal": "np.reciprocal(x)",
    "negative": "np.negative(x)",
    "subtract": "np.subtract(x, 1.0)",
    "divide": "np.divide(x, 2.0)",
    "true_divide": "np.true_divide(x, 2.0)",
    "floor_divide": "np.floor_divide(x, 2.0)",
    "mod": "np.mod(x, 2.0)",
    "remainder": "np.remainder(x, 2.0)",
    "logaddexp": "np.logaddexp(x, x)",
    "hypot": "np.hypot(x, x)",
    "rint": "np.rint(x)",
    "trunc": "np.trunc(x)",
    "deg2rad": "np.deg2rad(x)",
    "rad2deg": "np.rad2deg(x)",
    "heaviside": "np.heaviside(x, 0.5)",
    "sinc": "np.sinc(x)",
    "fmax": "np.fmax(x, x)",
    "fmin": "np.fmin(x, x)",
    "conj": "np.conj(x)",
    "angle": "np.angle(x)",
    "logical_and": "np.logical_and(x > 0, x < 2)",
    "logical_or": "np.logical_or(x > 0, x < 2)",
    "logical_not": "np.logical_not(x > 0)",
    "greater": "np.greater(x, 0.0)",
    "less": "np.less(x, 0.0)",
    "equal": "np.equal(x, x)",
    # statistics and reductions that convert their input
    "median": "np.median(x)",
    "percentile": "np.percentile(x, 50.0)",
    "quantile": "np.quantile(x, 0.5)",
    "average": "np.average(x)",
    "nansum": "np.nansum(x)",
    "nanmean": "np.nanmean(x)",
    "nanmax": "np.nanmax(x)",
    "nanmin": "np.nanmin(x)",
    "ptp": "np.ptp(x)",
    "cov": "np.cov(x)",
    "corrcoef": "np.corrcoef(x, x)",
    "histogram": "np.histogram(x)",
    "count_nonzero": "np.count_nonzero(x)",
    "nan_to_num": "np.nan_to_num(x)",
    "interp": "np.interp(x, x, x)",
    "digitize": "np.digitize(x, x)",
    "polyval": "np.polyval(x, x)",
    "convolve": "np.convolve(x, x)",
    # sorting and searching
    "argsort": "np.argsort(x)",
    "argpartition": "np.argpartition(x, 1)",
    "partition": "np.partition(x, 1)",
    "unique": "np.unique(x)",
    "nonzero": "np.nonzero(x)",
    "argwhere": "np.argwhere(x)",
    "isin": "np.isin(x, x)",
    "select": "np.select([x > 0], [x])",
    # products
    "tensordot": "np.tensordot(x, x, 1)",
    "inner": "np.inner(x, x)",
    "vdot": "np.vdot(x, x)",
    "kron": "np.kron(x, x)",
    "trace": "np.trace(x[:, None] * x)",
    # building and reshaping arrays
    "tril": "np.tril(x[:, None] * x)",
    "triu": "np.triu(x[:, None] * x)",
    "diag": "np.diag(x)",
    "roll": "np.roll(x, 1)",
    "tile": "np.tile(x, 2)",
    "pad": "np.pad(x, 1)",
    "delete": "np.delete(x, 0)",
    "insert": "np.insert(x, 0, 1.0)",
    "meshgrid": "np.meshgrid(x, x)",
    "expand_dims": "np.expand_dims(x, 0)",
    "atleast_1d": "np.atleast_1d(x)",
    "atleast_2d": "np.atleast_2d(x)",
    "broadcast_to": "np.broadcast_to(x, (2, 3))",
    "dstack": "np.dstack([x, x])",
    "column_stack": "np.column_stack([x, x])",
    "copy": "np.copy(x)",
    "full_like": "np.full_like(x, 1.0)",
    "empty_like": "np.empty_like(x)",
    # scalar-type casts
    "float64": "np.float64(x[0])",
    "float16": "np.float16(x[0])",
    "int64": "np.int64(x[0])",
    "int8": "np.int8(x[0])",
    "uint8": "np.uint8(x[0])",
    # linalg and fft
    "linalg.eigh": "np.linalg.eigh(x[:, None] * x)",
    "linalg.eig": "np.linalg.eig(x[:, None] * x)",
    "linalg.eigvalsh": "np.linalg.eigvalsh(x[:, None] * x)",
    "linalg.svd": "np.linalg.svd(x[:, None] * x)",
    "linalg.cholesky": "np.linalg.cholesky(x[:, None] * x + np.eye(3))",
    "linalg.qr": "np.linalg.qr(x[:, None] * x)",
    "linalg.pinv": "np.linalg.pinv(x[:, None] * x)",
    "linalg.slogdet": "np.linalg.slogdet(x[:, None] * x)",
    "linalg.lstsq": "np.linalg.lstsq(x[:, None] * np.eye(3), x)",
    "fft.fft": "np.fft.fft(x)",
    "fft.ifft": "np.fft.ifft(x)",
    "fft.rfft": "np.fft.rfft(x)",
    "fft.irfft": "np.fft.irfft(x)",
}

NUMPY_WORKS_ON_TRACER = {
    "sum": "np.sum(x)",
    "mean": "np.mean(x)",
    "max": "np.max(x)",
    "min": "np.min(x)",
    "amax": "np.amax(x)",
    "amin": "np.amin(x)",
    "prod": "np.prod(x)",
    "std": "np.std(x)",
    "var": "np.var(x)",
    "any": "np.any(x > 0)",
    "all": "np.all(x > 0)",
    "argmax": "np.argmax(x)",
    "argmin": "np.argmin(x)",
    "cumsum": "np.cumsum(x)",
    "round": "np.round(x)",
    "reshape": "np.reshape(x, (3, 1))",
    "transpose": "np.transpose(x)",
    "squeeze": "np.squeeze(x)",
    "shape": "np.shape(x)",
    "ndim": "np.ndim(x)",
    "size": "np.size(x)",
    "flip": "np.flip(x)",
    "repeat": "np.repeat(x, 2)",
    "cumprod": "np.cumprod(x)",
    "searchsorted": "np.searchsorted(x, 0.5)",
    "array_equal": "np.array_equal(x, x)",
    "swapaxes": "np.swapaxes(x[None], 0, 1)",
    "moveaxis": "np.moveaxis(x[None], 0, 1)",
    "split": "np.split(x, 3)",
    "array_split": "np.array_split(x, 3)",
    "around": "np.around(x)",
    "real": "np.real(x)",
    "imag": "np.imag(x)",
}


#: the functions of NUMPY_WORKS_ON_TRACER that hand the array to its own method only when they get
#: an array: anything else (a list or tuple holding tracers) they convert first, which raises
#: TracerArrayConversionError (`np.mean([x, y])`; checked by tests/test_numpy_table.py)
NUMPY_CONVERTS_SEQUENCES = frozenset(NUMPY_WORKS_ON_TRACER) - {"all", "any", "array_equal", "moveaxis", "swapaxes",
                                                               "split"}


def numpy_converts_sequence(qualified: str) -> bool:
    """``numpy.mean`` -> True: given a list of tracers (not an array), it converts the list and fails."""
    return qualified.startswith("numpy.") and qualified[len("numpy."):] in NUMPY_CONVERTS_SEQUENCES


def makes_numpy_array(qualified: str, call: cst.Call) -> bool:
    """``numpy.zeros(3)``, ``numpy.arange(n)`` of static arguments: a NumPy array of numbers, which
    stores a value by converting it (not ``np.shape`` and the like, which answer Python values, nor
    an array of ``dtype=object``, which stores any object as it is)."""
    if not qualified.startswith("numpy.") or qualified.startswith("numpy.random.") \
            or qualified in NUMPY_STATIC_FUNCTIONS:
        return False
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Name) and value.value == "object" or \
                isinstance(value, cst.Attribute) and value.attr.value in ("object_", "object") or \
                isinstance(value, cst.SimpleString) and value.value.strip("\"'") in ("O", "object"):
            return False
    return True


#: NumPy functions in NUMPY_FAILS_ON_TRACER that jax.numpy does not have (reported, not rewritten)
NUMPY_WITHOUT_JAX_EQUIVALENT = frozenset({"lib.stride_tricks.sliding_window_view"})


def numpy_fails_on_tracer(qualified: str) -> bool:
    """``numpy.exp`` -> True; delegating functions and unknown ones -> False."""
    if not qualified.startswith("numpy."):
        return False
    return qualified[len("numpy."):] in NUMPY_FAILS_ON_TRACER


#: value-dependent output size unless ``size=`` (or the keyword given) is passed (JIT401)
SIZE_KEYWORD_FUNCTIONS = {
    "jax.numpy.nonzero": "size",
    "jax.numpy.argwhere": "size",
    "jax.numpy.flatnonzero": "size",
    "jax.numpy.unique": "size",
    "jax.numpy.unique_values": "size",
    "jax.numpy.unique_counts": "size",
    "jax.numpy.unique_inverse": "size",
    "jax.numpy.unique_all": "size",
    "jax.numpy.compress": "size",
    "jax.numpy.extract": "size",
    "jax.numpy.setdiff1d": "size",
    "jax.numpy.intersect1d": "size",
    "jax.numpy.union1d": "size",
    "jax.numpy.bincount": "length",
}

#: array methods with a value-dependent output size unless the keyword is passed (JIT401)
SIZE_KEYWORD_METHODS = {"nonzero": "size"}

#: counts that fix the output size: with a traced count the size depends on traced values unless the
#: keyword is passed (JIT401). name -> ((position, keyword) of the counts, keyword that bounds the size)
COUNT_ARGUMENTS = {"jax.numpy.repeat": ((1, "repeats"), "total_repeat_length")}
COUNT_METHODS = {"repeat": ((0, "repeats"), "total_repeat_length")}

#: arguments that must be static shapes or sizes (JIT402): name -> (position, keyword) pairs
SHAPE_ARGUMENTS = {
    "jax.numpy.zeros": ((0, "shape"),),
    "jax.numpy.ones": ((0, "shape"),),
    "jax.numpy.empty": ((0, "shape"),),
    "jax.numpy.full": ((0, "shape"),),
    "jax.numpy.arange": ((0, "start"), (1, "stop"), (2, "step")),
    "jax.numpy.linspace": ((2, "num"),),
    "jax.numpy.logspace": ((2, "num"),),
    "jax.numpy.geomspace": ((2, "num"),),
    "jax.numpy.eye": ((0, "N"), (1, "M")),
    "jax.numpy.identity": ((0, "n"),),
    "jax.numpy.tri": ((0, "N"), (1, "M")),
    "jax.numpy.tile": ((1, "reps"),),
    "jax.numpy.split": ((1, "indices_or_sections"),),
    "jax.numpy.array_split": ((1, "indices_or_sections"),),
    "jax.numpy.reshape": ((1, "shape"), (1, "newshape")),
    "jax.numpy.broadcast_to": ((1, "shape"),),
    "jax.numpy.expand_dims": ((1, "axis"),),
    "jax.numpy.pad": ((1, "pad_width"),),
    "jax.numpy.repeat": ((2, "axis"),),
    "jax.random.normal": ((1, "shape"),),
    "jax.random.uniform": ((1, "shape"),),
    "jax.random.randint": ((1, "shape"),),
    "jax.random.bernoulli": ((2, "shape"),),
    "jax.random.truncated_normal": ((3, "shape"),),
    "jax.random.choice": ((2, "shape"),),
    "jax.random.gumbel": ((1, "shape"),),
    "jax.random.categorical": ((3, "shape"),),
    "jax.random.split": ((1, "num"),),
    "jax.nn.one_hot": ((1, "num_classes"),),
    "jax.lax.dynamic_slice": ((2, "slice_sizes"),),
    "jax.lax.iota": ((1, "size"),),
    "jax.lax.broadcast": ((1, "sizes"),),
    "jax.lax.top_k": ((1, "k"),),
    "jax.lax.approx_max_k": ((1, "k"),),
    "jax.lax.approx_min_k": ((1, "k"),),
    "jax.lax.slice": ((1, "start_indices"), (2, "limit_indices"), (3, "strides")),
    "jax.lax.slice_in_dim": ((1, "start_index"), (2, "limit_index"), (3, "stride"), (4, "axis")),
    "jax.lax.index_in_dim": ((1, "index"), (2, "axis")),
    "jax.lax.dynamic_slice_in_dim": ((2, "slice_size"), (3, "axis")),
    "jax.lax.scan": ((3, "length"),),
    "jax.image.resize": ((1, "shape"),),
    "jax.image.scale_and_translate": ((1, "shape"),),
}

#: functions that take an axis positionally (JIT402): name -> positions of the axis arguments
AXIS_POSITIONS = {
    **{f"jax.numpy.{name}": (1,) for name in (
        "sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "any", "all", "cumsum",
        "cumprod", "median", "nansum", "nanmean", "nanmax", "nanmin", "nanstd", "nanvar", "flip", "squeeze",
        "sort", "argsort", "concatenate", "stack", "amax", "amin", "average", "ptp", "count_nonzero")},
    "jax.numpy.moveaxis": (1, 2),
    "jax.numpy.swapaxes": (1, 2),
    "jax.numpy.take": (2,),
    "jax.numpy.take_along_axis": (2,),
    "jax.numpy.roll": (2,),
    "jax.scipy.special.logsumexp": (1,),
    "jax.nn.softmax": (1,),
    "jax.nn.log_softmax": (1,),
}

#: array methods whose first positional argument is the axis
AXIS_METHODS = frozenset({"sum", "mean", "max", "min", "prod", "std", "var", "argmax", "argmin", "any", "all",
                          "cumsum", "cumprod", "squeeze", "sort", "argsort", "ptp"})

#: arguments that are either an array (traced is fine) or an int size (must be static), JIT402:
#: reported only when the traced argument is clearly an int (an ``int`` parameter, a count-like name)
SIZE_OR_ARRAY_ARGUMENTS = {
    "jax.random.permutation": ((1, "x"),),
    "jax.random.choice": ((1, "a"),),
    "jax.numpy.histogram": ((1, "bins"),),
    "jax.numpy.histogram_bin_edges": ((1, "bins"),),
    "jax.numpy.histogram2d": ((2, "bins"),),
    "jax.numpy.histogramdd": ((1, "bins"),),
}

#: array methods whose arguments are shapes
SHAPE_METHODS = frozenset({"reshape", "broadcast_to"})
