"""The subprocess that imports user code and runs it: ``python -m jitlint.verify.runner JOB EVENTS``.

This is the only module of jitlint that imports jax or user code, and it only
ever runs in a child interpreter started by :mod:`jitlint.verify.sandbox` --
maybe another interpreter than jitlint's own (``--python``), where jitlint
and LibCST are not installed: this module and the ones it imports
(:mod:`~jitlint.verify.compare`, :mod:`~jitlint.verify.build`,
:mod:`~jitlint.verify.record`) need only the standard library, jax and numpy.
It reads the job (JSON) that the parent wrote, and appends one JSON line per
event to EVENTS: ``ready`` (the device), ``import`` (each version of the
module), ``start`` / ``result`` (each target), ``done``.  The parent reads
those lines as they come, so a function that hangs or kills the interpreter
costs only its own result.

For each target and each input it runs the original eagerly
(``jax.disable_jit()``), the fixed version under ``jax.jit``, and compares
them leaf by leaf; it counts traces over repeated calls, builds the jaxpr of
the fixed version, runs the original under jit to observe the finding, and
records which sides of rewritten branches the inputs took.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import importlib.util
import io
import json
import linecache
import logging
import os
import pickle
import random
import sys
import time
import traceback
import types
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from jitlint.verify.compare import compare, describe_call
from jitlint.verify.build import InputSpec, build_call, call_source, derived_calls, variations

#: characters of user output kept per call (what the code printed)
CAPTURE_LIMIT = 64 * 1024
BRANCH_HOOK = "__jitlint_branch__"
#: the input source of last resort: inputs derived from how the function uses its parameters
DERIVED = "derived from the code"
#: derived inputs kept per function, at most
DERIVED_KEEP = 6


# ---------------------------------------------------------------- events
class Events:
    def __init__(self, path: str) -> None:
        self._fh = open(path, "a", encoding="utf-8")

    def emit(self, event: str, **data: Any) -> None:
        self._fh.write(json.dumps({"event": event, **data}, default=repr) + "\n")
        self._fh.flush()


# ---------------------------------------------------------------- output capture
class CappedText(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters and counts the rest."""

    def __init__(self, limit: int = CAPTURE_LIMIT) -> None:
        self.limit = limit
        self.parts: List[str] = []
        self.kept = 0
        self.total = 0
        #: (file, line) of the Python code behind each write (``print`` is native: its caller)
        self.origins: List[Tuple[str, int]] = []

    def write(self, text: str) -> int:  # type: ignore[override]
        text = str(text)
        self.total += len(text)
        if text and len(self.origins) < 10_000:
            frame = sys._getframe(1)
            self.origins.append((frame.f_code.co_filename, frame.f_lineno))
        if self.kept < self.limit:
            piece = text[: self.limit - self.kept]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def getvalue(self) -> str:
        return "".join(self.parts)


class _LogCapture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.messages: List[str] = []
        #: (file, line) of the logging call behind each record
        self.origins: List[Tuple[str, int]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(("jax", "absl", "jaxlib")):
            return
        if len(self.messages) < 1000:
            self.origins.append((record.pathname, record.lineno))
            try:
                self.messages.append(record.getMessage()[:200])
            except Exception:  # noqa: BLE001 - a bad format string in user code
                self.messages.append(str(record.msg)[:200])


@contextlib.contextmanager
def captured() -> Iterator[Tuple[CappedText, _LogCapture]]:
    """User prints and log records, kept away from the real streams."""
    out = CappedText()
    logs = _LogCapture()
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(logs)
    root.setLevel(logging.DEBUG)
    old_out, old_err = sys.stdout, sys.stderr
    sys.stdout = out
    sys.stderr = out
    try:
        yield out, logs
    finally:
        sys.stdout, sys.stderr = old_out, old_err
        root.removeHandler(logs)
        root.setLevel(old_level)


# ---------------------------------------------------------------- exceptions
def exception_info(exc: BaseException, filename: Optional[str]) -> dict:
    """Class, first line of the message, and the lines of ``filename`` in the traceback."""
    import jax

    cls = type(exc)
    name = cls.__name__
    if getattr(jax.errors, name, None) is cls:
        name = "jax.errors." + name
    elif cls.__module__ not in ("builtins", "__main__"):
        name = f"{cls.__module__}.{cls.__qualname__}"
    if isinstance(exc, SystemExit):
        message = f"sys.exit({exc.code!r})"
    else:
        text = str(exc).strip()
        message = text.splitlines()[0] if text else ""
    lines: List[int] = []
    seen = set()
    current: Optional[BaseException] = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        for frame, lineno in traceback.walk_tb(current.__traceback__):
            if filename is not None and frame.f_code.co_filename == filename:
                lines.append(lineno)
        if lines:
            break
        current = current.__cause__ or current.__context__
    mro = [c.__name__ for c in cls.__mro__]
    return {"type": name, "message": message[:300], "lines": lines, "mro": mro}


# ---------------------------------------------------------------- modules
class _BranchInstrumenter(ast.NodeTransformer):
    """Wrap the tests of the rewritten branches: ``if t:`` -> ``if __jitlint_branch__(i, t):``."""

    def __init__(self, source: str, sites: Sequence[dict]) -> None:
        self.source = source
        self.sites = list(sites)
        self.found: Dict[int, bool] = {}

    def _wrap(self, node: Any, kind: str) -> Any:
        self.generic_visit(node)
        test = node.test
        for i, site in enumerate(self.sites):
            if i in self.found or site["kind"] != kind or test.lineno != site["line"]:
                continue
            segment = ast.get_source_segment(self.source, test) or ""
            if " ".join(segment.split()) != " ".join(site["test"].split()):
                continue
            call = ast.Call(func=ast.Name(id=BRANCH_HOOK, ctx=ast.Load()),
                            args=[ast.Constant(value=i), test], keywords=[])
            node.test = ast.copy_location(call, test)
            self.found[i] = True
            break
        return node

    def visit_If(self, node: ast.If) -> Any:
        return self._wrap(node, "if")

    def visit_IfExp(self, node: ast.IfExp) -> Any:
        return self._wrap(node, "ifexp")

    def visit_While(self, node: ast.While) -> Any:
        return self._wrap(node, "while")


class BranchCounter:
    """Counts, per site, how often each side was taken (concrete tests only)."""

    def __init__(self, n: int) -> None:
        self.counts = [[0, 0] for _ in range(n)]

    def __call__(self, site: int, value: Any) -> Any:
        try:
            taken = bool(value)
        except Exception:  # noqa: BLE001 - a tracer: the branch itself will raise
            return value
        self.counts[site][1 if taken else 0] += 1
        return value

    def snapshot(self) -> List[List[int]]:
        return [list(c) for c in self.counts]


def load_module(name: str, path: str, source: str, label: str, branches: Sequence[dict] = (),
                counter: Optional[BranchCounter] = None) -> types.ModuleType:
    """Execute ``source`` as module ``name`` (its ``__file__`` is ``path``); registered in sys.modules."""
    filename = path if label == "original" else f"{path} [fixed]"
    tree = ast.parse(source, filename=filename)
    if branches:
        tree = _BranchInstrumenter(source, branches).visit(tree)
        ast.fix_missing_locations(tree)
    code = compile(tree, filename, "exec", dont_inherit=True)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(name)
    module.__file__ = path
    module.__spec__ = importlib.util.spec_from_file_location(name, path)
    module.__package__ = name.rpartition(".")[0]
    module.__loader__ = None
    if counter is not None:
        module.__dict__[BRANCH_HOOK] = counter
    sys.modules[name] = module
    random.seed(0)
    try:
        import numpy as np

        np.random.seed(0)
    except ImportError:  # pragma: no cover - jax needs numpy
        pass
    exec(code, module.__dict__)
    return module


@contextlib.contextmanager
def as_module(name: str, module: types.ModuleType) -> Iterator[None]:
    """``sys.modules[name]`` is ``module`` for a while (for examples files and unpickling)."""
    old = sys.modules.get(name)
    sys.modules[name] = module
    try:
        yield
    finally:
        if old is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = old


def resolve(module: types.ModuleType, dotted: str) -> Any:
    obj: Any = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


# ---------------------------------------------------------------- inputs
def _example_keys(callable_name: str, module_name: str) -> List[str]:
    keys = [callable_name, f"{module_name}.{callable_name}"]
    parts = module_name.split(".")
    for i in range(1, len(parts)):
        keys.append(".".join(parts[i:]) + "." + callable_name)
    return keys


def _examples_from(table: Any, callable_name: str, module_name: str) -> Optional[List[Tuple[tuple, dict]]]:
    if not isinstance(table, dict):
        return None
    for key in _example_keys(callable_name, module_name):
        if key in table:
            return [_as_call(item) for item in table[key]]
    return None


def _as_call(item: Any) -> Tuple[tuple, dict]:
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict) and isinstance(item[0], (tuple, list)):
        return tuple(item[0]), dict(item[1])
    raise ValueError(f"an example must be (args, kwargs), got {type(item).__name__}")


def load_examples_file(path: str, name: str, module: types.ModuleType) -> Any:
    """Run an examples file with ``name`` meaning ``module``; its ``EXAMPLES`` dict."""
    with as_module(name, module):
        random.seed(0)
        import numpy as np

        np.random.seed(0)
        spec = importlib.util.spec_from_file_location("_jitlint_examples", path)
        examples = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(examples)  # type: ignore[union-attr]
    return getattr(examples, "EXAMPLES", None)


def load_recorded(path: str, name: str, module: types.ModuleType, module_path: str) -> List[dict]:
    """The recorded calls of this module's functions, unpickled with ``name`` meaning ``module``."""
    from jitlint.verify.record import load_calls

    real = os.path.realpath(module_path)
    out = []
    with as_module(name, module):
        for rec in load_calls(path):
            if os.path.realpath(rec.get("file") or "") != real:
                continue
            try:
                args, kwargs = pickle.loads(rec["payload"])
            except Exception:  # noqa: BLE001 - a record whose classes are gone
                continue
            out.append({"qualname": rec.get("qualname"), "args": tuple(args), "kwargs": dict(kwargs)})
    return out


def _recorded_for(calls: Sequence[dict], fn: Any, callable_name: str) -> List[Tuple[tuple, dict]]:
    target = getattr(fn, "__wrapped__", fn)
    qualnames = {callable_name, getattr(target, "__qualname__", None), getattr(fn, "__qualname__", None)}
    return [(rec["args"], rec["kwargs"]) for rec in calls if rec.get("qualname") in qualnames]


# ---------------------------------------------------------------- calling
class Outcome:
    __slots__ = ("value", "error", "stdout", "logs", "seconds", "written_at", "logged_at")

    def __init__(self) -> None:
        self.value: Any = None
        self.error: Optional[dict] = None
        self.stdout = ""
        self.logs: List[str] = []
        self.seconds = 0.0
        #: line of the called function's file -> how many writes to stdout / log records it made
        self.written_at: Dict[int, int] = {}
        self.logged_at: Dict[int, int] = {}

    @property
    def ok(self) -> bool:
        return self.error is None


def _copy(value: Any) -> Any:
    """Fresh containers and NumPy arrays (a call may mutate them); other objects as they are,
    so that a static argument hashed by identity stays the same object."""
    import jax
    import numpy as np

    try:
        return jax.tree_util.tree_map(lambda leaf: leaf.copy() if isinstance(leaf, np.ndarray) else leaf, value)
    except Exception:  # noqa: BLE001 - a pytree that cannot be rebuilt is passed as it is
        return value


def call(fn: Callable[..., Any], args: tuple, kwargs: dict, filename: Optional[str], eager: bool = False,
         reseed: bool = False) -> Outcome:
    """``fn(*args, **kwargs)``, eagerly or not; with ``reseed``, Python's and NumPy's global
    generators are seeded as at load first, so that the two versions compared draw the same
    host-side numbers on each call (a trace draws them once, at its first call: what the eager
    call draws then too), and what is compared is the rewrite, not the draws."""
    import jax

    out = Outcome()
    args, kwargs = _copy(args), _copy(kwargs)
    if reseed:
        random.seed(0)
        import numpy as np

        np.random.seed(0)
    start = time.perf_counter()
    with captured() as (text, logs):
        try:
            with jax.disable_jit() if eager else contextlib.nullcontext():
                value = fn(*args, **kwargs)
                value = jax.block_until_ready(value) if _has_arrays(value) else value
            jax.effects_barrier()  # jax.debug.print and callbacks have printed before the capture ends
            out.value = value
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: B036 - user code may raise SystemExit
            out.error = exception_info(exc, filename)
    out.seconds = time.perf_counter() - start
    out.stdout = text.getvalue()
    out.logs = logs.messages
    out.written_at = _lines_in(text.origins, filename)
    out.logged_at = _lines_in(logs.origins, filename)
    return out


def _lines_in(origins: List[Tuple[str, int]], filename: Optional[str]) -> Dict[int, int]:
    """How many of ``origins`` each line of ``filename`` made."""
    counts: Dict[int, int] = {}
    if filename is None:
        return counts
    target = os.path.realpath(filename)
    for path, line in origins:
        if path == filename or os.path.realpath(path) == target:
            counts[line] = counts.get(line, 0) + 1
    return counts


def _has_arrays(value: Any) -> bool:
    import jax

    try:
        return any(isinstance(leaf, jax.Array) for leaf in jax.tree_util.tree_leaves(value))
    except Exception:  # noqa: BLE001
        return False


def _is_jit_wrapper(fn: Any) -> bool:
    return hasattr(fn, "lower") and hasattr(fn, "_cache_size")


def _jit_static(fn: Any) -> Tuple[Tuple[int, ...], Tuple[str, ...]]:
    info = getattr(fn, "_jit_info", None)
    if info is None:
        return (), ()
    return tuple(getattr(info, "static_argnums", ()) or ()), tuple(getattr(info, "static_argnames", ()) or ())


def _is_array_leaf(leaf: Any) -> bool:
    import jax
    import numpy as np

    return isinstance(leaf, (jax.Array, np.ndarray, np.generic, bool, int, float, complex))


def auto_static(args: tuple, kwargs: dict) -> Tuple[Tuple[int, ...], Tuple[str, ...]]:
    """Arguments that ``jax.jit`` cannot trace (strings, functions, objects), when hashable.

    Python numbers are traced, as ``jax.jit`` traces them unless told otherwise.
    """
    import jax

    def static(value: Any) -> bool:
        leaves = jax.tree_util.tree_leaves(value)
        if all(_is_array_leaf(leaf) for leaf in leaves):
            return False
        try:
            hash(value)
        except TypeError:
            return False
        return True

    nums = tuple(i for i, a in enumerate(args) if static(a))
    names = tuple(k for k, v in kwargs.items() if static(v))
    return nums, names


class Runnable:
    """One version of a callable, ready to run eagerly and under jit, with a trace counter."""

    def __init__(self, fn: Any, mode: str, static_nums: Sequence[int], static_names: Sequence[str],
                 auto: bool, filename: str) -> None:
        self.raw = fn
        self.mode = mode
        self.filename = filename
        self.auto = auto
        self.static_nums = tuple(static_nums)
        self.static_names = tuple(static_names)
        self.traces = 0
        self._jitted: Dict[Tuple[Tuple[int, ...], Tuple[str, ...]], Any] = {}
        if mode == "jitted" and _is_jit_wrapper(fn):
            self.static_nums, self.static_names = _jit_static(fn)

    def statics_for(self, args: tuple, kwargs: dict) -> Tuple[Tuple[int, ...], Tuple[str, ...]]:
        if self.auto:
            nums, names = auto_static(args, kwargs)
            return tuple(sorted(set(nums) | set(self.static_nums))), tuple(sorted(set(names) | set(self.static_names)))
        return self.static_nums, self.static_names

    def traced(self, args: tuple, kwargs: dict) -> Any:
        """The callable that runs under jit for these arguments."""
        if self.mode != "wrap":
            return self.raw
        key = self.statics_for(args, kwargs)
        if key not in self._jitted:
            import jax

            raw = self.raw

            @functools.wraps(raw)
            def counting(*a: Any, **k: Any) -> Any:
                self.traces += 1
                return raw(*a, **k)

            self._jitted[key] = jax.jit(counting, static_argnums=key[0] or None, static_argnames=key[1] or None)
        return self._jitted[key]

    def cache_size(self) -> Optional[int]:
        if self.mode == "jitted" and _is_jit_wrapper(self.raw):
            try:
                return int(self.raw._cache_size())
            except Exception:  # noqa: BLE001
                return None
        if self.mode == "wrap":
            return self.traces
        return None


def abstract_signature(args: tuple, kwargs: dict, static_nums: Sequence[int], static_names: Sequence[str]) -> str:
    """What jax.jit keys its cache on, roughly: tree structure, shapes, dtypes, weak types, static values."""
    import jax

    def leaf_key(leaf: Any) -> str:
        shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
        if shape is not None and dtype is not None:
            return f"{dtype}{list(shape)}{'w' if getattr(leaf, 'weak_type', False) else ''}"
        return type(leaf).__name__

    def key(value: Any, static: bool) -> str:
        if static:
            try:
                return f"static:{hash(value)}"
            except TypeError:
                return f"static:{id(value)}"
        leaves, tree = jax.tree_util.tree_flatten(value)
        return f"{tree}:{','.join(leaf_key(leaf) for leaf in leaves)}"

    parts = [key(a, i in static_nums) for i, a in enumerate(args)]
    parts += [f"{name}={key(v, name in static_names)}" for name, v in sorted(kwargs.items())]
    return "|".join(parts)


class CompileCounter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, event: str, duration: float, **kwargs: Any) -> None:
        if event.endswith("backend_compile_duration"):
            self.count += 1


# ---------------------------------------------------------------- one target
class TargetRun:
    def __init__(self, job: dict, target: dict, ctx: "Context") -> None:
        self.job = job
        self.target = target
        self.ctx = ctx
        self.options = job["options"]
        self.result: Dict[str, Any] = {"qualname": target["qualname"], "callable": None, "mode": None,
                                       "inputs": 0, "input_source": None, "generated": 0,
                                       "eager_failures": [], "comparisons": [], "fixed_error": None,
                                       "traces": None, "jaxpr": None, "coverage": [], "observations": {},
                                       "cross_device": None, "notes": []}

    # -- inputs
    #: where inputs come from, in order: the first source with inputs for any callable wins
    SOURCES = ("--examples", "EXAMPLES", "annotations", "recorded calls", DERIVED)

    def _inputs_from(self, source: str, c: dict, fn_o: Any, fn_f: Any) -> List[Tuple[tuple, dict, tuple, dict]]:
        """(args, kwargs) for the original and the fixed version, from one source."""
        ctx = self.ctx
        name = c["name"]
        if source == "annotations":
            if not c.get("annotations"):
                return []
            spec = InputSpec.from_json(c["annotations"])
            a, k = build_call(spec, ctx.original)
            af, kf = build_call(spec, ctx.fixed) if ctx.fixed is not ctx.original else (a, k)
            return [(a, k, af, kf)]
        if source == DERIVED:
            if not c.get("derived") or not self.options.get("derive", True):
                return []
            limit = int(self.options.get("max_derived", 24))
            # the fourth item, for the fixed version the same call, is how the candidate was made
            return [(a, k, a, made) for a, k, made in derived_calls(c["derived"], limit, module=ctx.original)]
        if source == "recorded calls":
            calls_o = _recorded_for(ctx.recorded_o, fn_o, name)
            calls_f = _recorded_for(ctx.recorded_f, fn_f, name)
        else:
            tables = {"--examples": (ctx.file_examples_o, ctx.file_examples_f),
                      "EXAMPLES": (ctx.module_examples_o, ctx.module_examples_f)}[source]
            calls_o = _examples_from(tables[0], name, ctx.name) or []
            calls_f = _examples_from(tables[1], name, ctx.name) or []
        if len(calls_f) != len(calls_o):  # the fixed module lost its examples: use the original's
            calls_f = calls_o
        return [(a, k, af, kf) for (a, k), (af, kf) in zip(calls_o, calls_f)]

    def choose(self) -> Optional[Tuple[dict, Any, Any, List[Tuple[tuple, dict, tuple, dict]], str]]:
        found = []
        for c in self.target["callables"]:
            try:
                found.append((c, resolve(self.ctx.original, c["name"]), resolve(self.ctx.fixed, c["name"])))
            except AttributeError:
                self.result["notes"].append(f"`{c['name']}` is not an attribute of the module")
        for source in self.SOURCES:
            for c, fn_o, fn_f in found:
                try:
                    inputs = self._inputs_from(source, c, fn_o, fn_f)
                except Exception as exc:  # noqa: BLE001 - a broken examples table
                    self.result["notes"].append(f"inputs of {c['name']} from {source}: {type(exc).__name__}: {exc}")
                    continue
                if inputs:
                    return c, fn_o, fn_f, inputs, source
        self.result["tried"] = [c["name"] for c, _, _ in found]
        return None

    # -- the run
    def run(self) -> dict:
        chosen = self.choose()
        if chosen is None:
            return self.result
        c, fn_o, fn_f, inputs, source = chosen
        ctx = self.ctx
        self.result.update(callable=c["name"], mode=c["mode"], input_source=source)
        orig = Runnable(fn_o, c["mode"], c["static_argnums"], c["static_argnames"], c["auto_static"],
                        ctx.filename_o)
        fixed_static = c.get("fixed_static") or [c["static_argnums"], c["static_argnames"]]
        fixed = Runnable(fn_f, c["mode"], fixed_static[0], fixed_static[1], c["auto_static"], ctx.filename_f)
        tolerances = {k: tuple(v) for k, v in self.options["tolerances"].items()}
        sites = self.target["branches"]
        coverage = [[0, 0] for _ in sites]
        site_index = ctx.site_index.get(self.target["qualname"], [])
        used: List[Tuple[str, tuple, dict, tuple, dict, Outcome]] = []
        if source == DERIVED:
            used = self._select_derived(orig, inputs, site_index, coverage)
            inputs = []
        for i, (a, k, af, kf) in enumerate(inputs):
            label = f"#{i + 1}"
            eager = self._eager(orig, a, k, site_index, coverage)
            if not eager.ok:
                self.result["eager_failures"].append({"input": label, "call": describe_call(a, k),
                                                      "error": eager.error})
                continue
            used.append((label, a, k, af, kf, eager))
        # generated inputs for untaken sides of rewritten branches
        if sites and used:
            self._cover(orig, used, site_index, coverage)
        self.result["inputs"] = sum(1 for u in used if not u[0].startswith("generated"))
        self.result["generated"] = sum(1 for u in used if u[0].startswith("generated"))
        self.result["coverage"] = [{"line": s["line"], "kind": s["kind"], "rewrite": s["rewrite"],
                                    "found": bool(site_index) and j < len(site_index) and site_index[j] is not None,
                                    "false": coverage[j][0], "true": coverage[j][1]} for j, s in enumerate(sites)]
        if not used:
            return self.result
        nums, names = fixed.statics_for(used[0][3], used[0][4])
        self.result["static"] = [list(nums), list(names)]
        # the fixed version under jit, compared
        first: Optional[Tuple[Optional[int], int]] = None
        size_all = fixed.cache_size()
        signatures = set()
        for label, a, k, af, kf, eager in used:
            size0, compiles0 = fixed.cache_size(), ctx.compiles.count
            signatures.add(abstract_signature(af, kf, *fixed.statics_for(af, kf)))
            got = call(fixed.traced(af, kf), af, kf, fixed.filename, reseed=True)
            if first is None:
                size1 = fixed.cache_size()
                first = (None if size0 is None or size1 is None else size1 - size0, ctx.compiles.count - compiles0)
            entry = {"input": label, "call": describe_call(a, k), "seconds": round(got.seconds, 4),
                     "eager_seconds": round(eager.seconds, 4)}
            if not got.ok:
                self.result["fixed_error"] = {**got.error, "input": label, "call": entry["call"]}
                self.result["comparisons"].append({**entry, "ok": False, "problem": "error"})
                break
            entry.update(compare(eager.value, got.value, tolerances))
            entry["stdout_same"] = got.stdout == eager.stdout
            self.result["comparisons"].append(entry)
        if self.result["fixed_error"] is None:
            size_end = fixed.cache_size()
            label, a, k, af, kf, eager = used[0]
            self.result["traces"] = self._traces(fixed, af, kf, first or (None, 0))
            if size_all is not None and size_end is not None:
                # inputs of the same shapes, dtypes and static values share one trace
                self.result["traces"].update(input_traces=size_end - size_all, signatures=len(signatures),
                                             inputs=len(used))
            self.result["jaxpr"] = self._jaxpr(fixed, af, kf)
            if self.options.get("cross_device"):
                self.result["cross_device"] = self._cross_device(orig, fixed, used, tolerances)
        if self.target["findings"]:
            label, a, k, af, kf, eager = used[0]
            self.result["observations"] = self._observe(orig, a, k, eager, tolerances)
        return self.result

    def _select_derived(self, orig: Runnable, candidates: list, site_index: List[Optional[int]],
                        coverage: List[List[int]]) -> list:
        """The derived candidates to use: those under which the original runs eagerly, each bringing
        something new -- the first one, a branch side not yet taken, another combination of the flags,
        or (up to three) another signature of shapes and values.  The others are counted, not reported
        as failures: they are guesses."""
        used: list = []
        flags_seen: set = set()
        signatures: set = set()
        rejected = unfit = 0
        first_error = first_unfit = None
        families: set = set()
        for a, k, _af, made in candidates:
            if len(used) >= DERIVED_KEEP:
                break
            trial = [list(side) for side in coverage]
            out = self._eager(orig, a, k, site_index, trial)
            if not out.ok:
                rejected += 1
                first_error = first_error or {"call": describe_call(a, k), "error": out.error}
                continue
            new_side = any(coverage[j][s] == 0 and trial[j][s] > 0 for j in range(len(coverage)) for s in (0, 1))
            flags = tuple(v for v in list(a) + list(k.values()) if isinstance(v, bool))
            signature = abstract_signature(a, k, [i for i, v in enumerate(a) if isinstance(v, (bool, int))],
                                           [n for n, v in k.items() if isinstance(v, (bool, int))])
            # another signature is worth an input only among the candidates whose arrays all take the same
            # rank choice: a mix (a scalar where a vector was meant) is kept only for a new side or flag
            new_signature = made["uniform"] and signature not in signatures and len(used) < 3
            new_values = made["values"] not in families  # positive values: another part of the domain
            if used and not new_side and flags in flags_seen and not new_signature and not new_values:
                continue
            # a guess the original cannot take under jit for a reason of its own (shapes that do not fit
            # a scan's carry, say) is not an input of the function; the hazard the fix removes (a jax.errors
            # tracer error) is no reason to drop it
            traced = call(orig.traced(a, k), a, k, orig.filename)
            if not traced.ok and not _hazard(traced.error, self.target["findings"]):
                unfit += 1
                first_unfit = first_unfit or {"call": describe_call(a, k), "error": traced.error}
                continue
            for j in range(len(coverage)):
                coverage[j][:] = trial[j]
            flags_seen.add(flags)
            signatures.add(signature)
            families.add(made["values"])
            used.append((f"derived #{len(used) + 1}", a, k, a, k, out))
        classes: Dict[str, List[str]] = {}
        sources = [call_source(a, k, classes) for _l, a, k, _af, _kf, _o in used]
        self.result["derived"] = {"tried": len(used) + rejected + unfit, "kept": len(used), "rejected": rejected,
                                  "unfit": unfit,
                                  "calls": [describe_call(a, k) for _l, a, k, _af, _kf, _o in used],
                                  "sources": sources, "classes": classes}
        if not used and (first_error or first_unfit) is not None:
            self.result["eager_failures"].append({"input": f"derived (all {rejected + unfit})",
                                                  **(first_error or first_unfit)})
        return used

    def _eager(self, orig: Runnable, a: tuple, k: dict, site_index: List[Optional[int]],
               coverage: List[List[int]]) -> Outcome:
        counter = self.ctx.counter
        before = counter.snapshot() if counter is not None else None
        out = call(orig.raw, a, k, orig.filename, eager=True, reseed=True)
        if counter is not None and before is not None and out.ok:
            after = counter.snapshot()
            for j, idx in enumerate(site_index):
                if idx is None:
                    continue
                coverage[j][0] += after[idx][0] - before[idx][0]
                coverage[j][1] += after[idx][1] - before[idx][1]
        return out

    def _cover(self, orig: Runnable, used: list, site_index: List[Optional[int]],
               coverage: List[List[int]]) -> None:
        def missing() -> bool:
            return any(idx is not None and (coverage[j][0] == 0 or coverage[j][1] == 0)
                       for j, idx in enumerate(site_index))

        budget = int(self.options.get("max_generated", 24))
        base = list(used)
        for label0, a, k, _af, _kf, _eager in base:
            if not missing() or budget <= 0:
                break
            nums, names = orig.statics_for(a, k)
            for how, va, vk in variations(a, k, nums, names):
                if not missing() or budget <= 0:
                    break
                budget -= 1
                trial = [list(c) for c in coverage]
                out = self._eager(orig, va, vk, site_index, trial)
                if not out.ok:
                    continue
                new_side = any((coverage[j][s] == 0 and trial[j][s] > 0)
                               for j in range(len(coverage)) for s in (0, 1))
                if not new_side:
                    continue
                for j in range(len(coverage)):
                    coverage[j][:] = trial[j]
                # the fixed version gets the same varied values (not its own examples varied)
                used.append((f"generated from {label0}: {how}", va, vk, va, vk, out))

    def _traces(self, fixed: Runnable, a: tuple, k: dict, first: Tuple[Optional[int], int]) -> dict:
        """Traces and compilations of the first call (done by the comparison), then of repeated calls."""
        counter = self.ctx.compiles
        repeats = max(2, int(self.options.get("repeats", 3)))
        size0, compiles0 = fixed.cache_size(), counter.count
        error = None
        for _ in range(repeats - 1):
            out = call(fixed.traced(a, k), a, k, fixed.filename)
            error = error or out.error
        size1 = fixed.cache_size()
        result = {"calls": repeats, "compiles_first": first[1], "recompiles": counter.count - compiles0,
                  "error": error}
        if first[0] is not None and size0 is not None and size1 is not None:
            result["traces_first"] = first[0]
            result["retraces"] = size1 - size0
        return result

    def _jaxpr(self, fixed: Runnable, a: tuple, k: dict) -> dict:
        import jax

        nums, names = fixed.statics_for(a, k)
        fn = fixed.traced(a, k)
        dyn_pos = [i for i in range(len(a)) if i not in nums]
        dyn_kw = [key for key in k if key not in names]
        a_copy, k_copy = _copy(a), _copy(k)

        def closed(*dyn: Any, **dkw: Any) -> Any:
            full = list(a_copy)
            for i, v in zip(dyn_pos, dyn):
                full[i] = v
            return fn(*full, **{**{key: k_copy[key] for key in names if key in k_copy}, **dkw})

        with captured():
            try:
                jaxpr = jax.make_jaxpr(closed)(*[a_copy[i] for i in dyn_pos], **{key: k_copy[key] for key in dyn_kw})
                eqns = jaxpr.jaxpr.eqns
                if len(eqns) == 1 and "jaxpr" in eqns[0].params:  # one jit call: count its body
                    inner = eqns[0].params["jaxpr"]
                    eqns = getattr(inner, "jaxpr", inner).eqns
                return {"ok": True, "equations": len(eqns)}
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: B036
                return {"ok": False, "error": exception_info(exc, fixed.filename)}

    def _cross_device(self, orig: Runnable, fixed: Runnable, used: list,
                      tolerances: Dict[str, Tuple[float, float]]) -> dict:
        """``--cross-check cpu``: the original (eagerly) and the fixed version (under jit) again on a CPU
        device, each input moved there.  Two comparisons per input: the fixed version against the original
        on the CPU (the usual tolerances), and the fixed version on the main device against the fixed
        version on the CPU -- the tolerances times ``cross_scale`` when the main device is not a CPU
        (other kernels round otherwise), else the usual ones.  The largest difference, abs and rel, of the
        second comparison is kept; the first one failing is a mismatch of its own."""
        import jax

        main = self.ctx.device
        try:
            cpus = jax.devices("cpu")
        except RuntimeError as exc:
            return {"skipped": f"no CPU backend: {str(exc).splitlines()[0]}"}
        # another CPU device when there is one (a host with several), else the CPU the main run used
        others = [d for d in cpus if d != main]
        cpu = others[0] if others else cpus[0]
        scale = float(self.options.get("cross_scale", 1000.0)) if main.platform != "cpu" else 1.0
        loose = {key: (r * scale, t * scale) for key, (r, t) in tolerances.items()}
        out: Dict[str, Any] = {"device": self.ctx.device_name, "cpu": f"cpu:{cpu.id}",
                               "same_device": cpu == main, "tolerance_scale": scale, "inputs": 0,
                               "max_abs": 0.0, "max_rel": 0.0, "leaf": "", "input": None,
                               "ok": True, "cpu_equivalent": True, "worst": None, "cpu_worst": None}
        for label, a, k, af, kf, _eager in used:
            on_main = call(fixed.traced(af, kf), af, kf, fixed.filename)
            with jax.default_device(cpu):
                ac, kc = _to_device((a, k), cpu)
                afc, kfc = _to_device((af, kf), cpu)
                orig_cpu = call(orig.raw, ac, kc, orig.filename, eager=True)
                fixed_cpu = call(fixed.traced(afc, kfc), afc, kfc, fixed.filename)
            failed = on_main.error or orig_cpu.error or fixed_cpu.error
            if failed is not None:
                which = "the fixed version on the main device" if on_main.error else \
                    "the original on the CPU" if orig_cpu.error else "the fixed version on the CPU"
                out.update(ok=False, error={**failed, "input": label, "where": which})
                return out
            out["inputs"] += 1
            same = compare(orig_cpu.value, fixed_cpu.value, tolerances)
            if out["cpu_worst"] is None or _num(same.get("ratio", 0)) > _num(out["cpu_worst"].get("ratio", 0)):
                out["cpu_worst"] = {**same, "input": label}
            across = compare(fixed_cpu.value, on_main.value, loose)
            out["max_abs"] = max(_num(out["max_abs"]), _num(across["max_abs"]))
            out["max_rel"] = max(_num(out["max_rel"]), _num(across["max_rel"]))
            rank = (not across["ok"], _num(across.get("ratio", 0)))
            if out["worst"] is None or rank > (not out["worst"]["ok"], _num(out["worst"].get("ratio", 0))):
                out["worst"] = {**across, "input": label}
                out["leaf"], out["input"] = across["leaf"], label
            if not same["ok"]:
                out["cpu_equivalent"] = False
            if not across["ok"]:
                out["ok"] = False
        out["ok"] = out["ok"] and out["cpu_equivalent"]
        out["max_abs"], out["max_rel"] = _finite_num(out["max_abs"]), _finite_num(out["max_rel"])
        return out

    # -- confirming the findings
    def _observe(self, orig: Runnable, a: tuple, k: dict, eager: Outcome,
                 tolerances: Dict[str, Tuple[float, float]]) -> dict:
        repeats = max(2, int(self.options.get("repeats", 3)))
        state_names = sorted({f["subject"] for f in self.target["findings"] if f["code"] in ("JIT101", "JIT102")
                              and f.get("subject") and hasattr(self.ctx.original, f["subject"])})
        obs: Dict[str, Any] = {"repeats": repeats}
        module = self.ctx.original
        state0 = {n: _state(getattr(module, n, None)) for n in state_names}
        eager_runs = [call(orig.raw, a, k, orig.filename, eager=True) for _ in range(repeats)]
        state1 = {n: _state(getattr(module, n, None)) for n in state_names}
        compiles = self.ctx.compiles
        jit_runs = []
        compile_counts = []
        for _ in range(repeats):
            c0 = compiles.count
            jit_runs.append(call(orig.traced(a, k), a, k, orig.filename))
            compile_counts.append(compiles.count - c0)
        state2 = {n: _state(getattr(module, n, None)) for n in state_names}
        obs["eager_stdout_lines"] = sum(len(r.stdout.splitlines()) for r in eager_runs)
        obs["jit_stdout_lines"] = sum(len(r.stdout.splitlines()) for r in jit_runs)
        obs["jit_stdout"] = "".join(r.stdout for r in jit_runs)[:300]
        obs["jit_prints_tracer"] = "Tracer" in obs["jit_stdout"]
        obs["eager_log_records"] = sum(len(r.logs) for r in eager_runs)
        obs["jit_log_records"] = sum(len(r.logs) for r in jit_runs)
        # by line (JSON keys are strings): which statement printed or logged, not only how much
        for key, runs, kind in (("eager_written_at", eager_runs, "written_at"), ("jit_written_at", jit_runs, "written_at"),
                                ("eager_logged_at", eager_runs, "logged_at"), ("jit_logged_at", jit_runs, "logged_at")):
            total: Dict[str, int] = {}
            for run in runs:
                for line, n in getattr(run, kind).items():
                    total[str(line)] = total.get(str(line), 0) + n
            obs[key] = total
        obs["compiles"] = compile_counts
        errors = [r.error for r in jit_runs if r.error is not None]
        if errors:
            obs["jit_error"] = errors[0]
        else:
            diffs = [compare(e.value, j.value, tolerances) for e, j in zip(eager_runs, jit_runs) if e.ok]
            bad = [d for d in diffs if not d["ok"]]
            obs["jit_differs"] = bad[0] if bad else None
            values = [j.value for j in jit_runs]
            eager_values = [e.value for e in eager_runs if e.ok]
            obs["jit_constant"] = all(compare(values[0], v, tolerances)["ok"] for v in values[1:])
            obs["eager_varies"] = len(eager_values) > 1 and not all(
                compare(eager_values[0], v, tolerances)["ok"] for v in eager_values[1:])
        obs["state"] = {n: {"before": state0[n], "after_eager": state1[n], "after_jit": state2[n]}
                        for n in state_names}
        obs["frozen"] = self._frozen_globals(orig, a, k, eager, tolerances, jit_runs)
        return obs

    def _frozen_globals(self, orig: Runnable, a: tuple, k: dict, eager: Outcome,
                        tolerances: Dict[str, Tuple[float, float]], jit_runs: List[Outcome]) -> Dict[str, Any]:
        """For each global of a JIT101 finding: change it, call again, see who notices."""
        out: Dict[str, Any] = {}
        if not jit_runs or not jit_runs[0].ok:
            return out
        module = self.ctx.original
        names = sorted({f["subject"] for f in self.target["findings"] if f["code"] == "JIT101"
                        and f.get("subject") and hasattr(module, f["subject"])})
        for name in names:
            restore = _perturb(module, name)
            if restore is None:
                out[name] = {"changed": False}
                continue
            try:
                eager2 = call(orig.raw, a, k, orig.filename, eager=True)
                jit2 = call(orig.traced(a, k), a, k, orig.filename)
            finally:
                restore()
            if not (eager2.ok and jit2.ok):
                out[name] = {"changed": True, "error": (eager2.error or jit2.error)}
                continue
            eager_moved = not compare(eager.value, eager2.value, tolerances)["ok"]
            jit_moved = not compare(jit_runs[0].value, jit2.value, tolerances)["ok"]
            out[name] = {"changed": True, "eager_moved": eager_moved, "jit_moved": jit_moved}
        return out


def _hazard(error: dict, findings: Sequence[dict]) -> bool:
    """Whether an error of the original under jit is the hazard a fix removes: a jax.errors error, an
    error about a tracer, or one raised at the line of a finding."""
    if str(error.get("type", "")).startswith("jax.errors."):
        return True
    if "tracer" in str(error.get("message", "")).lower():
        return True
    return bool(set(error.get("lines") or ()) & {f.get("line") for f in findings})


def _num(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("inf")


def _finite_num(x: float) -> Any:
    """JSON has no infinity: it is written as a string."""
    return x if x == x and abs(x) != float("inf") else str(x)


def _to_device(tree: Any, device: Any) -> Any:
    import jax

    return jax.tree_util.tree_map(lambda leaf: jax.device_put(leaf, device) if isinstance(leaf, jax.Array) else leaf,
                                  tree)


def _state(value: Any) -> Any:
    """A comparable summary of a global: numbers as they are, containers by size, tracers named."""
    import jax

    try:
        leaves = jax.tree_util.tree_leaves(value)
    except Exception:  # noqa: BLE001
        leaves = []
    if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
        return "tracer"
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return value
    if isinstance(value, (list, dict, set, tuple)):
        return {"len": len(value)}
    return type(value).__name__


def _perturb(module: Any, name: str) -> Optional[Callable[[], None]]:
    """Change global ``name`` of ``module`` (in place for containers); a function that undoes it."""
    import jax
    import numpy as np

    value = getattr(module, name)

    def changed(v: Any) -> Any:
        if isinstance(v, bool):
            return not v
        if isinstance(v, (int, float)):
            return v * 2 + 1
        if isinstance(v, (jax.Array, np.ndarray)) and not isinstance(v, jax.core.Tracer):
            return v + 1 if np.dtype(v.dtype) != np.bool_ else ~v
        return None

    new = changed(value)
    if new is not None:
        setattr(module, name, new)
        return lambda: setattr(module, name, value)
    if isinstance(value, dict):
        old = dict(value)
        keys = [key for key, v in value.items() if changed(v) is not None]
        if not keys:
            return None
        for key in keys:
            value[key] = changed(value[key])
        return lambda: (value.clear(), value.update(old))  # type: ignore[func-returns-value]
    if isinstance(value, list):
        old_list = list(value)
        idx = [i for i, v in enumerate(value) if changed(v) is not None]
        if not idx:
            return None
        for i in idx:
            value[i] = changed(value[i])
        return lambda: value.__setitem__(slice(None), old_list)
    return None


# ---------------------------------------------------------------- the job
class Context:
    """The two versions of the module and everything shared by its targets."""

    def __init__(self, job: dict, device: Any, device_name: str, compiles: CompileCounter) -> None:
        self.job = job
        module = job["module"]
        self.name: str = module["name"]
        self.path: str = module["path"]
        self.filename_o = self.path
        self.filename_f = f"{self.path} [fixed]" if module.get("fixed") is not None else self.path
        self.device = device
        self.device_name = device_name
        self.compiles = compiles
        self.original: Any = None
        self.fixed: Any = None
        self.counter: Optional[BranchCounter] = None
        self.site_index: Dict[str, List[Optional[int]]] = {}
        self.file_examples_o: Any = None
        self.file_examples_f: Any = None
        self.module_examples_o: Any = None
        self.module_examples_f: Any = None
        self.recorded_o: List[dict] = []
        self.recorded_f: List[dict] = []

    def load(self, events: Events) -> bool:
        module = self.job["module"]
        sites: List[dict] = []
        for target in self.job["targets"]:
            self.site_index[target["qualname"]] = []
            for site in target["branches"]:
                self.site_index[target["qualname"]].append(len(sites))
                sites.append(site)
        self.counter = BranchCounter(len(sites)) if sites else None
        for label in ("original", "fixed"):
            source = module["original"] if label == "original" else module.get("fixed")
            if label == "fixed" and source is None:
                self.fixed = self.original
                self.file_examples_f, self.module_examples_f = self.file_examples_o, self.module_examples_o
                self.recorded_f = self.recorded_o
                continue
            start = time.perf_counter()
            with captured() as (text, _logs):
                try:
                    loaded = load_module(self.name, self.path, source, label,
                                         sites if label == "original" else (), self.counter)
                except KeyboardInterrupt:
                    raise
                except BaseException as exc:  # noqa: B036 - SystemExit at import included
                    filename = self.filename_o if label == "original" else self.filename_f
                    events.emit("import", variant=label, ok=False, error=exception_info(exc, filename),
                                stdout=text.getvalue()[-500:], seconds=time.perf_counter() - start)
                    return False
            if label == "original":
                self.original = loaded
                instrumented = self._check_sites(sites, source)
                if instrumented:
                    for qual, idx in self.site_index.items():
                        self.site_index[qual] = [i if i not in instrumented else None for i in idx]
            else:
                self.fixed = loaded
            try:
                with captured():
                    self._load_inputs(label, loaded)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: B036
                events.emit("import", variant=label, ok=False, what="inputs",
                            error=exception_info(exc, self.job["options"].get("examples_file")),
                            seconds=time.perf_counter() - start)
                return False
            events.emit("import", variant=label, ok=True, seconds=round(time.perf_counter() - start, 3),
                        stdout_chars=text.total)
        sys.modules[self.name] = self.original
        return True

    def _check_sites(self, sites: Sequence[dict], source: str) -> set:
        """Indices of sites that could not be found again (they stay unmeasured)."""
        probe = _BranchInstrumenter(source, sites)
        probe.visit(ast.parse(source))
        return {i for i in range(len(sites)) if i not in probe.found}

    def _load_inputs(self, label: str, module: Any) -> None:
        options = self.job["options"]
        table = module.__dict__.get("EXAMPLES")
        file_table = None
        if options.get("examples_file"):
            file_table = load_examples_file(options["examples_file"], self.name, module)
        recorded: List[dict] = []
        if options.get("calls_file"):
            recorded = load_recorded(options["calls_file"], self.name, module, self.path)
        if label == "original":
            self.module_examples_o, self.file_examples_o, self.recorded_o = table, file_table, recorded
        else:
            self.module_examples_f, self.file_examples_f, self.recorded_f = table, file_table, recorded


def device_name(device: Any) -> str:
    """``cpu``, or e.g. ``cuda:0 NVIDIA H200``."""
    platform = device.platform
    if platform == "cpu":
        return "cpu"
    prefix = platform
    if platform == "gpu":
        version = str(getattr(getattr(device, "client", None), "platform_version", "")).lower()
        prefix = "rocm" if "rocm" in version else "cuda"
    kind = getattr(device, "device_kind", "") or ""
    return f"{prefix}:{device.id} {kind}".strip()


def run_job(job: dict, events: Events) -> None:
    options = job["options"]
    for folder in reversed(job["module"].get("sys_path", [])):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    import jax

    try:
        device = jax.devices(options["device"])[0] if options.get("device") else jax.devices()[0]
    except RuntimeError as exc:
        events.emit("ready", ok=False, error=f"no {options['device']} device: {str(exc).splitlines()[0]}")
        return
    name = device_name(device)
    compiles = CompileCounter()
    jax.monitoring.register_event_duration_secs_listener(compiles)
    events.emit("ready", ok=True, device=name, jax=jax.__version__, pid=os.getpid())
    skip = set(job.get("skip", ()))
    with jax.default_device(device):
        ctx = Context(job, device, name, compiles)
        if not ctx.load(events):
            return
        for i, target in enumerate(job["targets"]):
            if i in skip:
                continue
            events.emit("start", target=i)
            start = time.perf_counter()
            try:
                result = TargetRun(job, target, ctx).run()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: B036 - a bug here must not lose the other targets
                result = {"internal_error": exception_info(exc, None), "qualname": target["qualname"],
                          "traceback": traceback.format_exc()[-2000:]}
            result["seconds"] = round(time.perf_counter() - start, 3)
            events.emit("result", target=i, data=result)
    events.emit("done")


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        sys.stderr.write("usage: python -m jitlint.verify.runner JOB EVENTS\n")
        return 2
    with open(args[0], encoding="utf-8") as fh:
        job = json.load(fh)
    events = Events(args[1])
    try:
        run_job(job, events)
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:  # noqa: B036
        events.emit("fatal", error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()[-2000:])
    return 0


def run_as_child(argv: Optional[Sequence[str]] = None) -> None:
    code = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)  # user code may have left threads or atexit handlers that hang


if __name__ == "__main__":
    run_as_child()
