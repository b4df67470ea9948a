"""Fixes for JIT304: a wait for a device buffer inside traced code, which has none.

* ``y.block_until_ready()`` used as a value -> ``y`` (the method returns the array itself);
* ``y.block_until_ready()`` / ``y.copy_to_host_async()`` as a statement of its own -> the statement
  removed when ``y`` is a name or an attribute of one (reading it has no effect), or
  ``helper(x)`` kept for ``helper(x).block_until_ready()`` (the call may have effects);

and nothing else: a statement that is the only one of its block, or that carries a comment (on
its line or above it), is left as it is, as is ``copy_to_host_async()`` used as a value (it gives
``None``).

Safety: UNSAFE.  Under any JAX transform the original raises (a tracer has no buffer to wait
for), so the fix is measured against eager execution, where it differs only in when the host
waits: a caller that runs the function eagerly (a benchmark timing it) no longer waits inside
it.  The values computed are the same.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from jitlint.diagnostics import Applicability, Fix
from jitlint.fixes.context import FixContext
from jitlint.fixes.registry import rewrites

_WAITS = ("block_until_ready", "copy_to_host_async")


def _plain_reference(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _commented(line: cst.SimpleStatementLine) -> bool:
    return line.trailing_whitespace.comment is not None or any(
        empty.comment is not None for empty in line.leading_lines)


@rewrites("JIT304")
def to_no_device_wait(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``y.block_until_ready()`` -> ``y``; the same as a statement of its own -> removed."""
    if not isinstance(node, cst.Call) or node.args or not isinstance(node.func, cst.Attribute) \
            or node.func.attr.value not in _WAITS:
        return None
    method = node.func.attr.value
    receiver = node.func.value
    parent = ctx.parent(node)
    if isinstance(parent, cst.Expr):
        line = ctx.parent(parent)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or _commented(line):
            return None
        found = ctx.block_of(line)
        if found is None or not isinstance(found[0], cst.IndentedBlock) or len(found[0].body) < 2:
            return None
        if _plain_reference(receiver):
            edit = ctx.replace(line, cst.RemovalSentinel.REMOVE)
            title = f"Remove the `.{method}()` statement: inside traced code there is no buffer to wait for"
        else:
            edit = ctx.replace(node, receiver)
            title = f"Drop `.{method}()` and keep the call: inside traced code there is no buffer to wait for"
    elif method == "block_until_ready":
        new = receiver if not node.lpar else receiver.with_changes(lpar=node.lpar, rpar=node.rpar)
        edit = ctx.replace(node, new)
        title = "Drop `.block_until_ready()`: inside traced code there is no buffer to wait for; wait on the " \
                "result outside"
    else:
        return None
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, title, (edit,))
