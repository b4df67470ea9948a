"""A pytest plugin that records the arguments of calls to jitted functions while your tests run.

    pytest -p jitlint.record --jitlint-record=calls.pkl
    jitlint verify src/ --calls calls.pkl

While the tests run, ``jax.jit`` is replaced by a wrapper that returns the
usual jitted function, except that each call first records its arguments
(the first ``--jitlint-record-max`` calls of each function with a new
argument signature -- shapes, dtypes and Python values).  Calls made while
tracing (with tracers as arguments) and arguments that cannot be pickled are
skipped.  The file is written when the session ends.  Functions jitted before
the plugin starts (by a module imported before it) are not recorded.

The recording runs inside your own test process, which imports jax anyway;
nothing is imported unless ``--jitlint-record`` is given.
"""
from __future__ import annotations

import functools
import os
import pickle
import threading
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

FORMAT_VERSION = 1


class Recorder:
    def __init__(self, path: str, per_function: int = 5) -> None:
        self.path = path
        self.per_function = per_function
        self.calls: List[dict] = []
        self.signatures: Dict[Tuple[str, str], Set[str]] = {}
        self.skipped = 0
        self._lock = threading.Lock()
        self._saved_jit: Optional[Callable[..., Any]] = None

    # -- patching
    def install(self) -> None:
        import jax

        if self._saved_jit is not None:
            return
        real_jit = jax.jit
        recorder = self

        @functools.wraps(real_jit)
        def recording_jit(fun: Any = None, *args: Any, **kwargs: Any) -> Any:
            if fun is None:  # jax.jit(static_argnums=...) used as a decorator factory
                return lambda f: recording_jit(f, *args, **kwargs)
            return RecordingJit(real_jit(fun, *args, **kwargs), fun, recorder)

        self._saved_jit = real_jit
        jax.jit = recording_jit

    def uninstall(self) -> None:
        import jax

        if self._saved_jit is not None:
            jax.jit = self._saved_jit
            self._saved_jit = None

    # -- recording
    def record(self, fun: Any, args: tuple, kwargs: dict) -> None:
        import jax

        try:
            leaves = jax.tree_util.tree_leaves((args, kwargs))
        except Exception:  # noqa: BLE001
            return
        if any(isinstance(leaf, jax.core.Tracer) for leaf in leaves):
            return  # called while tracing: not a real input
        code = getattr(fun, "__code__", None)
        file = os.path.realpath(code.co_filename) if code is not None else None
        qualname = getattr(fun, "__qualname__", None)
        if file is None or qualname is None:
            return
        key = (file, qualname)
        signature = _signature(args, kwargs)
        with self._lock:
            seen = self.signatures.setdefault(key, set())
            if signature in seen or len(seen) >= self.per_function:
                return
            try:
                payload = pickle.dumps((args, kwargs))
            except Exception:  # noqa: BLE001 - unpicklable arguments cannot be replayed
                self.skipped += 1
                return
            seen.add(signature)
            self.calls.append({"file": file, "module": getattr(fun, "__module__", None), "qualname": qualname,
                               "payload": payload})

    def save(self) -> None:
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "wb") as fh:
            pickle.dump({"version": FORMAT_VERSION, "calls": self.calls, "skipped": self.skipped}, fh)
        os.replace(tmp, self.path)


def _signature(args: tuple, kwargs: dict) -> str:
    import jax

    leaves, tree = jax.tree_util.tree_flatten((args, kwargs))
    parts = [str(tree)]
    for leaf in leaves:
        shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
        parts.append(f"{dtype}{list(shape)}" if shape is not None and dtype is not None else repr(leaf)[:80])
    return "|".join(parts)


class RecordingJit:
    """A jitted function that records its calls; everything else goes to the real one."""

    def __init__(self, jitted: Any, fun: Any, recorder: Recorder) -> None:
        self._jitted = jitted
        self._fun = fun
        self._recorder = recorder
        functools.update_wrapper(self, fun)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            self._recorder.record(self._fun, args, kwargs)
        except Exception:  # noqa: BLE001 - recording must never break a test
            pass
        return self._jitted(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._jitted, name)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)


def load_calls(path: str) -> List[dict]:
    """The records of a file: ``{"file", "module", "qualname", "payload"}`` (payload still pickled)."""
    with open(path, "rb") as fh:
        data = pickle.load(fh)
    if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
        raise ValueError(f"{path}: not a jitlint call recording")
    return list(data.get("calls", []))


# ---------------------------------------------------------------- pytest hooks
_RECORDER_KEY = "_jitlint_recorder"


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("jitlint", "jitlint: record calls of jitted functions")
    group.addoption("--jitlint-record", metavar="FILE", default=None,
                    help="record the arguments of calls to jax.jit functions into FILE (for `jitlint verify --calls`)")
    group.addoption("--jitlint-record-max", metavar="N", type=int, default=5,
                    help="calls kept per function, each with a new argument signature (default: 5)")


def _start(config: Any, path: Optional[str], per_function: int) -> None:
    if not path or getattr(config, _RECORDER_KEY, None) is not None:
        return
    recorder = Recorder(path, per_function)
    recorder.install()
    setattr(config, _RECORDER_KEY, recorder)


def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> None:
    """Start before conftest.py files import the code under test."""
    ns = getattr(early_config, "known_args_namespace", None)
    if ns is not None:
        _start(early_config, getattr(ns, "jitlint_record", None), getattr(ns, "jitlint_record_max", 5) or 5)


def pytest_configure(config: Any) -> None:
    _start(config, config.getoption("--jitlint-record"), config.getoption("--jitlint-record-max"))


def pytest_unconfigure(config: Any) -> None:
    recorder = getattr(config, _RECORDER_KEY, None)
    if recorder is None:
        return
    recorder.uninstall()
    recorder.save()
    setattr(config, _RECORDER_KEY, None)
