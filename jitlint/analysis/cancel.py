"""Cooperative cancellation: points where a long analysis may be stopped by the code that runs it.

The analysis calls :func:`checkpoint` between units of work (a traced function, a module's
rules, a finding, a line of generated code).  Outside :func:`checking` that is one context
variable read: ``jitlint check`` sets no hook and its results do not depend on these calls.  The
editor server runs its analyses in a worker process (:mod:`jitlint.lsp_worker`), each inside
``checking(hook)``; its hook raises (an exception of its own, derived from BaseException so that
no ``except Exception`` in the analysis swallows it) when the server has flagged the request as
superseded (its document has changed again), and the half-done analysis is dropped while the
process, and the lints it keeps for the other documents, live on.  Nothing is stopped from another
thread: only the hook, on the analysing thread, raises.  A parse (native code, no checkpoint) is
not stopped this way: the server kills the process when the hook has not raised soon enough.

A context variable, not a global: the hook belongs to the thread (and the context) that set it,
and the deep-stack thread the engine retries on copies the caller's context, hook included.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional

_HOOK: ContextVar[Optional[Callable[[], None]]] = ContextVar("jitlint_checkpoint", default=None)


def checkpoint() -> None:
    """Give the hook of the running analysis (if any) the chance to stop it, by raising."""
    hook = _HOOK.get()
    if hook is not None:
        hook()


@contextmanager
def checking(hook: Optional[Callable[[], None]]) -> Iterator[None]:
    """Within the block, every :func:`checkpoint` calls ``hook`` (None: nothing)."""
    token = _HOOK.set(hook)
    try:
        yield
    finally:
        _HOOK.reset(token)
