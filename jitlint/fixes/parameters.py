"""Fix for JIT101: a changing module-level value read inside a jitted function -> passed to it.

``@jax.jit def softmax(logits): ... CONFIG["temperature"] ...`` becomes
``def softmax(logits, *, temperature): ... temperature ...``, and every call in the module passes
``temperature=CONFIG["temperature"]``: the value is read when the function is called, as eager
Python reads it, instead of once when it is traced.

The new parameter is keyword-only (the calls' positional arguments keep their meaning).  A number
or an array becomes a traced argument; a ``bool`` or ``str`` flag, or a number used where a static
value is needed (an ``if`` test, a ``range`` bound, a shape), becomes a static one
(``static_argnames`` of the ``jax.jit``).

Preconditions, proven from the code; otherwise the fix is display-only advice:

* what is read is a module-level name, or an item of one with a literal key
  (``CONFIG["temperature"]``), whose kind the module's own assignments show: every module-level
  assignment is a literal number (traced), a literal ``bool`` or ``str`` (static), or a JAX /
  NumPy array (traced) -- for an item, a dict literal holding that key with such a value, or a list
  or tuple display whose element at that (in-range) index is one.
  Functions that reassign it are assumed to keep the kind;
* the read is in a module-level function (not a method) or in a lambda or function nested in
  one -- the parameter goes to that outermost function, and the nested code reads it as a
  closure -- jitted where it is defined and nowhere else (one ``@jax.jit`` /
  ``@partial(jax.jit, ...)``), and no scope on the way declares the name ``global`` or binds it;
* every use of the function is visible: the module's code only calls it by name (it is not
  passed anywhere, wrapped by another transform, or called by itself), none of those calls
  unpacks ``**kwargs``, and no other module can call it -- its name starts with ``_`` or the
  module has an ``__all__`` it cannot read past that leaves it out;
* at every call the read means the same global (no local or class attribute of that name).

A read in a helper that serves only the jitted function (:func:`_only_caller`: every use in the
module is in that function -- a call, or the helper handed to ``jax.vmap``, ``jax.grad``,
``lax.scan`` and the like, which call it -- or in helpers that serve it in turn) is threaded
through: the helper, every other such helper reading the value and the helpers in between take the
parameter too; a call passes it as a keyword, a helper handed to a transform is handed
``functools.partial(helper, name=name)`` (bound: ``vmap`` does not map it, ``grad`` does not
differentiate it), and the jitted function keeps its name as the plain function below
(:func:`_threaded`).  A helper another module may call keeps its name and signature the same way:
a plain function that reads the value on every call and passes it to a renamed copy, which the
jitted code calls; its uses outside the jitted code keep calling the public name (a plain ``def``
only: no decorator, not ``async``, no generator).

A read in a jitted ``def`` nested in a function (a factory), which that function only calls by name, goes
to that ``def``: it takes the parameter, and each of its calls passes ``name=G`` (:func:`_into_nested_jit`).

Where another module may call the function, or a call cannot take the argument, it keeps its name
and signature as a plain function that reads the value on every call and passes it to the jitted
body, renamed ``_name`` (:func:`_behind_a_wrapper`): the callers are left as they are.  The jit must
be its only decorator, and it is no ``async`` function or generator.

Safety: always UNSAFE.  The function's signature changes, and a caller the analysis cannot see
breaks (behind the plain function: the public name is no longer a jitted function, and under an
outer trace the value is read once); a traced argument gives the value as a weakly typed int32 / float32 (a Python int past
2**31 overflows), a static one compiles once per value; a value of another kind than the
module's assignments show (a function sets a string where a number was) fails to trace.
"""
from __future__ import annotations

import keyword
from typing import Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.discovery import EntryPoint, FunctionInfo
from jitlint.analysis.scopes import names_bound_in
from jitlint.analysis.syntax import any_node, is_docstring, name_references, path_to, walk
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.common import ById, appended, calls_by_name, forwarding_def, keyword_arg, literal_value
from jitlint.fixes.context import FixContext, Replacement, names_in
from jitlint.fixes.imports import listed_in_all
from jitlint.fixes.registry import rewrites
from jitlint.fixes.static_args import array_operand, number_use, is_static_use, merged_static_args

_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


@rewrites("JIT101")
def to_parameter(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """Pass the global read at ``node`` to its jitted function as a (keyword-only) argument."""
    if not isinstance(node, cst.Name):
        return None
    inner = ctx.enclosing_function(node)
    if inner is None:
        return None
    fn = inner
    while fn.parent is not None:
        fn = fn.parent  # a read in a lambda or nested function: the parameter goes to the outermost one
    if any(node.value in (s.global_names | s.nonlocal_names) for s in _scopes(inner)):
        return None
    read = _read_expression(node, ctx)
    shown = ctx.code(read)
    advice = Fix(Applicability.DISPLAY_ONLY,
                 f"Pass `{shown}` to `{fn.label}` as an argument (static if it is a flag), at every call", ())
    nested = _nested_jitted(inner, node.value, ctx)
    if nested is not None:
        key = ("nested", nested.node, shown)
        if key not in ctx.memo:
            ctx.memo[key] = _into_nested_jit(read, node.value, nested, ctx)
        if ctx.memo[key] is not None:
            return ctx.memo[key]  # type: ignore[return-value]
    caller = fn if only_jit_entry(fn, ctx) is not None or _only_wrapper(fn, ctx) is not None else _only_caller(fn, ctx)
    if caller is None:
        key = ("transformed", fn.node, shown)
        if key not in ctx.memo:
            ctx.memo[key] = _through_transform(read, node.value, fn, ctx)
        return ctx.memo[key] or advice
    key = ("parameters", caller.node, shown)
    if key not in ctx.memo:
        helpers = [] if isinstance(caller.node, cst.Lambda) else _reading_helpers(caller, read, node.value, ctx) or []
        built = _threaded(read, node.value, caller, helpers, ctx) if helpers else None
        if built is None and caller is fn:
            built = _rewrite(read, node.value, fn, ctx)
        ctx.memo[key] = (built, helpers)
    fix, helpers = ctx.memo[key]
    if isinstance(fix, Fix) and caller is not fn and not any(path_to(h.node, node) for h in helpers):
        return advice  # (the fix built for the caller does not reach this read)
    return fix if isinstance(fix, Fix) else advice


def _nested_jitted(inner: FunctionInfo, global_name: str, ctx: FixContext) -> Optional[FunctionInfo]:
    """The innermost function around the read (``inner`` or one enclosing it) that a ``@jax.jit`` decorator
    alone traces, when it is a ``def`` nested in another function (a factory's ``_simulate``); None where
    a scope on the way binds the name."""
    fn: Optional[FunctionInfo] = inner
    while fn is not None:
        if global_name in fn.local_names | fn.global_names | fn.nonlocal_names:
            return None
        if isinstance(fn.node, cst.FunctionDef) and only_jit_entry(fn, ctx) is not None:
            return fn if fn.parent is not None and fn.cls is None and len(fn.node.decorators) == 1 else None
        fn = fn.parent
    return None


def _into_nested_jit(read: cst.BaseExpression, global_name: str, fn: FunctionInfo,
                     ctx: FixContext) -> Optional[Fix]:
    """``def make(...): @jax.jit def _simulate(x0, key): ... NOISE ...`` -> ``def _simulate(x0, key, *,
    noise)``, and each call of it, all in ``make`` and by name (it goes nowhere else), passes
    ``noise=NOISE``: read where the call runs, on every call, not once when the function is traced.  A
    number or an array (traced); a flag is left to the advice."""
    outer = fn.parent
    node = fn.node
    if outer is None or not isinstance(node, cst.FunctionDef) or not isinstance(outer.node, cst.FunctionDef):
        return None
    kind = _kind(read, global_name, ctx)
    reads = _reads_in(node, read, ctx)
    if kind is None or not reads or _made_static_for(kind, reads, ctx):
        return None
    calls = ctx.index.calls_of_nested_def(fn)  # (handed on, stored or returned: a caller out of sight would miss it)
    if not calls:
        return None
    for call in calls:
        if any(a.star == "**" for a in call.args) or any(
                global_name in s.local_names | s.nonlocal_names for s in _scopes(ctx.enclosing_function(call))):
            return None  # (the keyword may come twice; the name means another variable where this call is)
    param = _parameter_name(read, global_name, node, ctx)
    changes: Dict[cst.CSTNode, Replacement] = {r: cst.Name(param) for r in reads}
    changes[node.params] = _with_keyword_only(node.params, param)
    for call in calls:
        changes[call] = call.with_changes(args=appended(call.args, keyword_arg(param, read.deep_clone())))
    edit = ctx.replace_many(changes)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Pass `{ctx.code(read)}` to `{fn.name}` as the argument `{param}` "
                   f"(at its {len(calls)} call{'s' if len(calls) != 1 else ''} in `{outer.name}`)", (edit,))


def _scopes(fn: Optional[FunctionInfo]):
    while fn is not None:
        yield fn
        fn = fn.parent


def _read_expression(name: cst.Name, ctx: FixContext) -> cst.BaseExpression:
    """``G`` or ``G["key"]`` (an item with a literal key, not the receiver of a call), or ``G.field`` (a
    field of a module-level dataclass instance, not a method called), or ``jnp.array(G)`` (the array the
    trace would build from the global, built at the call instead)."""
    parent = ctx.parent(name)
    holder = ctx.parent(parent) if isinstance(parent, cst.Arg) else None
    if isinstance(holder, cst.Call) and holder.args[0] is parent and parent.keyword is None and not parent.star \
            and ctx.index.qualify(holder.func) in _ARRAY_BUILDERS \
            and all(a.keyword is not None and a.keyword.value == "dtype" for a in holder.args[1:]) \
            and all(_constant_dtype(a.value, ctx) for a in holder.args[1:]) and number_use(holder, ctx):  # type: ignore
        # (only as array data: a constant array in the trace may also be a shape or a test, a traced one not)
        return holder
    if isinstance(parent, cst.Attribute) and parent.value is name and _field_kinds(name.value, ctx) is not None \
            and parent.attr.value in _field_kinds(name.value, ctx):  # type: ignore[operator]
        holder = ctx.parent(parent)
        if not (isinstance(holder, cst.Call) and holder.func is parent):
            return parent
    if isinstance(parent, cst.Subscript) and parent.value is name and len(parent.slice) == 1:
        index = parent.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(literal_value(index.value), (str, int)) \
                and not isinstance(literal_value(index.value), bool):
            holder = ctx.parent(parent)
            if not (isinstance(holder, cst.Call) and holder.func is parent):
                return parent
    return name


#: JAX functions that build an array from a Python list or tuple
_ARRAY_BUILDERS = frozenset({"jax.numpy.array", "jax.numpy.asarray"})


def _constant_dtype(node: cst.BaseExpression, ctx: FixContext) -> bool:
    """``jnp.float32``, ``"int32"``: a dtype that is the same at every call."""
    return literal_value(node) is not None or (ctx.index.qualify(node) or "").startswith(("jax.numpy.", "numpy."))


def _global_of(read: cst.BaseExpression) -> cst.Name:
    """The global a read expression reads (``G`` of ``G["k"]``, ``G.f``, ``jnp.array(G)``)."""
    if isinstance(read, cst.Call):
        read = read.args[0].value
    root = read.value if isinstance(read, (cst.Subscript, cst.Attribute)) else read
    assert isinstance(root, cst.Name)
    return root


def _rewrite(read: cst.BaseExpression, global_name: str, fn: FunctionInfo, ctx: FixContext) -> Optional[Fix]:
    if not isinstance(fn.node, (cst.FunctionDef, cst.Lambda)) or fn.parent is not None or fn.cls is not None:
        return None
    if global_name in fn.local_names or global_name in fn.global_names or global_name in fn.nonlocal_names:
        return None
    kind = _kind(read, global_name, ctx)
    if kind is None:
        return None
    reads = _reads_in(fn.node, read, ctx)
    if not reads:
        return None
    static = _made_static_for(kind, reads, ctx)
    if static and kind in _UNHASHABLE_KINDS:
        return None  # an array, a list cannot be static
    entry = only_jit_entry(fn, ctx)
    if entry is None or isinstance(fn.node, cst.Lambda):
        return _through_wrapper(read, global_name, kind, static, reads, fn, ctx)
    if static and (entry.partial_positional or entry.partial_keywords):
        return None
    calls = _editable_calls(fn, entry, global_name, ctx)
    if calls is None and not _can_wrap(fn, entry, ctx):
        return None
    param = _parameter_name(read, global_name, fn.node, ctx)
    changes: Dict[cst.CSTNode, Replacement] = {r: cst.Name(param) for r in reads}
    changes[fn.node.params] = _with_keyword_only(fn.node.params, param)
    imports = _made_static(entry, param, fn, changes, ctx) if static else ()
    if imports is None:
        return None
    if calls is None:
        return _behind_a_wrapper(read, param, static, fn, changes, imports, ctx)
    edit = ctx.replace_many(changes)
    if edit is None:
        return None
    call_edits = _passing(calls, read, param, ctx)
    if call_edits is None:
        return None
    edits: List[Edit] = [edit] + call_edits
    how = "static argument" if static else "argument"
    where = f"at its {len(calls)} call{'s' if len(calls) != 1 else ''} in this module" if calls else \
        "it has no call in this module"
    return ctx.fix(Applicability.UNSAFE, f"Pass `{ctx.code(read)}` to `{fn.name}` as the {how} `{param}` ({where})",
                   tuple(edits) + imports)


def _through_transform(read: cst.BaseExpression, global_name: str, fn: FunctionInfo,
                       ctx: FixContext) -> Optional[Fix]:
    """``def _forward(x): ... G ...`` run by a Haiku transform bound once at module level (``MODEL =
    hk.without_apply_rng(hk.transform(_forward))``) -> ``def _forward(x, *, g)``, and every call that runs it
    passes ``g=G``: ``MODEL.apply(...)`` / ``MODEL.init(...)`` and the calls of a module-level ``W =
    jax.jit(MODEL.apply)``.  Haiku's ``apply`` and ``init`` hand keyword arguments on to the function (haiku
    0.0.17), and jit traces a keyword argument as it does a positional one.  A flag (a value that must stay
    static) is left to the advice: the jit would trace it."""
    if fn.cls is not None:
        return _through_linen(read, global_name, fn, ctx)
    node = fn.node
    if fn.parent is not None or fn.cls is not None or not isinstance(node, cst.FunctionDef) \
            or global_name in fn.local_names | fn.global_names | fn.nonlocal_names:
        return None
    kind = _kind(read, global_name, ctx)
    reads = _reads_in(node, read, ctx)
    if kind is None or not reads or _made_static_for(kind, reads, ctx):
        return None
    handed = [ref for ref in name_references(ctx.module, fn.name) if ref is not node.name]
    if len(handed) != 1:
        return None  # (also called, or handed elsewhere: those would need the value too)
    model = _module_assign(handed[0], ctx)
    if model is None:
        return None
    def runs_fn(attr: cst.Attribute) -> bool:
        found = ctx.index.haiku_transformed(attr, None)
        return found is not None and isinstance(found[0], cst.Name) and found[0].value == fn.name

    calls = _runs_of(model, runs_fn, ctx)
    if calls is None:
        return None
    return _passed_where_run(read, global_name, node, reads, calls, model.value, ctx)


def _runs_of(model: cst.Name, runs_fn, ctx: FixContext) -> Optional[List[cst.Call]]:
    """The calls that run the function through the module-level ``model``: every read of it is
    ``model.attr`` with ``runs_fn(attr)``, called (no ``method=``) or the function of a module-level
    ``W = jax.jit(model.attr)`` every read of which calls it; None otherwise."""
    calls: List[cst.Call] = []
    for ref in name_references(ctx.module, model.value):
        if ref is model:
            continue
        attr = ctx.parent(ref)
        if not (isinstance(attr, cst.Attribute) and attr.value is ref) or not runs_fn(attr):
            return None
        user = ctx.parent(attr)
        if isinstance(user, cst.Call) and user.func is attr:
            if any(a.keyword is not None and a.keyword.value == "method" for a in user.args):
                return None
            calls.append(user)
            continue
        wrapper = _jit_wrapper_of(attr, ctx)
        if wrapper is None:
            return None
        calls.extend(wrapper)
    return calls


def _through_linen(read: cst.BaseExpression, global_name: str, fn: FunctionInfo,
                   ctx: FixContext) -> Optional[Fix]:
    """``__call__`` of a flax linen Module whose one instance is bound at module level (``MODEL =
    RoofSnowLoad()``, the class named nowhere else) -> ``def __call__(self, x, *, g)``, and every call that
    runs it passes ``g=G``: ``MODEL.apply(...)`` / ``MODEL.init(...)`` (no ``method=``) and the calls of a
    module-level ``W = jax.jit(MODEL.apply)``.  Linen's ``apply`` and ``init`` hand keyword arguments on
    to ``__call__`` (flax 0.12).  A flag is left to the advice."""
    node = fn.node
    cls = fn.cls
    if fn.parent is not None or cls is None or not isinstance(node, cst.FunctionDef) or fn.name != "__call__" \
            or global_name in fn.local_names | fn.global_names | fn.nonlocal_names:
        return None
    if not any(b is not None and ctx.index.qualify(b) == "flax.linen.Module" for b in cls.base_nodes):
        return None
    kind = _kind(read, global_name, ctx)
    reads = _reads_in(node, read, ctx)
    if kind is None or not reads or _made_static_for(kind, reads, ctx):
        return None
    made = [ref for ref in name_references(ctx.module, cls.name) if ref is not cls.node.name]
    if len(made) != 1 or not (isinstance(ctx.parent(made[0]), cst.Call) and ctx.parent(made[0]).func is made[0]):
        return None
    model = _module_assign(ctx.parent(made[0]), ctx, whole=True)
    if model is None:
        return None
    calls = _runs_of(model, lambda attr: attr.attr.value in ("apply", "init"), ctx)
    if calls is None:
        return None
    return _passed_where_run(read, global_name, node, reads, calls, model.value, ctx)


def _passed_where_run(read: cst.BaseExpression, global_name: str, node: cst.FunctionDef,
                      reads: List[cst.BaseExpression], calls: List[cst.Call], model: str,
                      ctx: FixContext) -> Optional[Fix]:
    """The function gets the keyword-only parameter, and each of ``calls`` (which run it through ``model``'s
    apply and init) passes the global: where none unpacks ``**``, reads the global shadowed, runs at module
    level before it is bound, or is in traced code."""
    if not calls:
        return None
    for call in calls:
        scope = ctx.index.call_scopes.get(call, (None, None))[0]
        if any(arg.star == "**" for arg in call.args) or not _reads_global(global_name, scope) or _in_class_body(call, ctx):
            return None
        if scope is None and not _bound_before(global_name, call, ctx):
            return None  # (module code that runs the function before the global exists)
        if ctx.in_traced_code(call):
            return None  # (read in traced code, the value would be frozen there instead)
    if any(a in calls for call in calls for a in ctx.ancestors(call)):
        return None
    param = _parameter_name(read, global_name, node, ctx)
    changes: Dict[cst.CSTNode, Replacement] = {r: cst.Name(param) for r in reads}
    changes[node.params] = _with_keyword_only(node.params, param)
    def_edit = ctx.replace_many(changes)
    if def_edit is None:
        return None
    call_edits = _passing(calls, read, param, ctx)
    if call_edits is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Pass `{ctx.code(read)}` to `{node.name.value}` as the argument `{param}` "
                   f"(at the {len(calls)} call{'s' if len(calls) != 1 else ''} of `{model}`'s apply and init)",
                   (def_edit, *call_edits))


def _jit_wrapper_of(attr: cst.Attribute, ctx: FixContext) -> Optional[List[cst.Call]]:
    """The calls of ``W`` where ``attr`` is the function of a module-level ``W = jax.jit(attr)`` (no options:
    a static argument spec counts ``apply``'s arguments) and every read of ``W`` calls it."""
    arg = ctx.parent(attr)
    site = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (isinstance(site, cst.Call) and len(site.args) == 1 and site.args[0] is arg and arg.keyword is None
            and ctx.index.qualify(site.func) in jax_api.JIT_NAMES):
        return None
    wrapper = _module_assign(site, ctx, whole=True)
    if wrapper is None:
        return None
    calls = []
    for ref in name_references(ctx.module, wrapper.value):
        if ref is wrapper:
            continue
        call = ctx.parent(ref)
        if not (isinstance(call, cst.Call) and call.func is ref) \
                or _shadowed(wrapper.value, ctx.index.call_scopes.get(call, (None, None))[0]):
            return None
        calls.append(call)
    return calls


def _bound_before(name: str, call: cst.Call, ctx: FixContext) -> bool:
    """The module-level ``name`` is bound by a module statement before the one holding ``call``."""
    top = ctx.top_index(call)
    if top is None:
        return False
    return any(ref for stmt in ctx.module.body[:top] for ref in name_references(stmt, name)
               if isinstance(ctx.parent(ref), (cst.AssignTarget,)))


def _passing(calls: List[cst.Call], read: cst.BaseExpression, param: str, ctx: FixContext) -> Optional[List[Edit]]:
    """Each call with ``param=<read>`` appended, one edit per statement."""
    return ctx.replace_per_statement({
        call: call.with_changes(args=appended(call.args, keyword_arg(param, read.deep_clone()))) for call in calls})


def _parameter_name(read: cst.BaseExpression, global_name: str, node: cst.FunctionDef, ctx: FixContext) -> str:
    """The new parameter's name: the global's own (``lr``) where the function reads it as the global only,
    every read replaced; else a fresh name built from it."""
    base = _base_name(read, global_name)
    if base == global_name and all(ctx.facts.read_scope.get(r) == "global" for r in name_references(node.body, base)):
        return base
    return ctx.fresh_name(base, node)


def _module_assign(node: cst.CSTNode, ctx: FixContext, whole: bool = False) -> Optional[cst.Name]:
    """The name a module statement ``NAME = ...`` holding ``node`` binds (one statement on its line, one
    target, a name); with ``whole``, only where ``node`` is the whole value.  None otherwise."""
    top = ctx.top_index(node)
    statement = ctx.module.body[top] if top is not None else None
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
            and isinstance(statement.body[0].targets[0].target, cst.Name)):
        return None
    if whole and statement.body[0].value is not node:
        return None
    return statement.body[0].targets[0].target


def _only_wrapper(fn: FunctionInfo, ctx: FixContext) -> Optional[Tuple[EntryPoint, cst.SimpleStatementLine, str]]:
    """``W = jax.jit(_f, ...)`` at module level, the one way ``_f`` is traced: a private module-level
    function, not decorated, whose name the module reads only there; or ``W = jax.jit(lambda x: ...)``,
    the lambda written in the call. (The entry, the statement, ``W``.)"""
    entries = [e for e in ctx.index.entries if e.function is fn]
    node = fn.node
    if len(entries) != 1 or fn.parent is not None or fn.cls is not None:
        return None
    lambda_ = isinstance(node, cst.Lambda)
    if not lambda_ and not (isinstance(node, cst.FunctionDef) and not node.decorators and fn.name.startswith("_")):
        return None
    entry = entries[0]
    site = entry.site
    t = entry.transform
    if not isinstance(site, cst.Call) or t is None or t.name not in jax_api.JIT_NAMES or entry.partial_positional \
            or entry.partial_keywords or not site.args or site.args[0].star or site.args[0].keyword is not None:
        return None
    first = site.args[0].value
    if not (first is node if lambda_ else isinstance(first, cst.Name) and first.value == fn.name):
        return None
    wrapper = _module_assign(site, ctx, whole=True)
    if wrapper is None:
        return None
    if not lambda_ and any(ref is not node.name and ref is not first for ref in name_references(ctx.module, fn.name)):
        return None  # (also called, or handed on, as itself)
    statement = ctx.module.body[ctx.top_index(site)]
    assert isinstance(statement, cst.SimpleStatementLine)
    return entry, statement, wrapper.value


def _through_wrapper(read: cst.BaseExpression, global_name: str, kind: str, static: bool,
                     reads: List[cst.BaseExpression], fn: FunctionInfo, ctx: FixContext) -> Optional[Fix]:
    """``def _f(x): ... G ...`` and ``W = jax.jit(_f)`` -> ``def _f(x, *, g): ... g ...`` and ``_W =
    jax.jit(_f)`` behind ``def W(x): return _W(x, g=G)``: the name the module's callers (and other modules)
    use keeps its signature and reads the value on every call.  A private ``W`` every use of which is a
    call in this module keeps its jit, and its calls pass the value.  A lambda written in the jit call
    (``W = jax.jit(lambda x: x * G)``) gets the parameter where it stands."""
    found = _only_wrapper(fn, ctx)
    if found is None:
        return None
    entry, statement, wrapper = found
    node = fn.node
    assert isinstance(node, (cst.FunctionDef, cst.Lambda))
    if any(isinstance(n, (cst.Yield, cst.Await)) for n in own_nodes(node)) \
            or (isinstance(node, cst.FunctionDef) and node.asynchronous is not None):
        return None
    site = entry.site
    assert isinstance(site, cst.Call)
    param = _parameter_name(read, global_name, node, ctx)
    changes: Dict[cst.CSTNode, Replacement] = {r: cst.Name(param) for r in reads}
    changes[node.params] = _with_keyword_only(node.params, param)
    jit_call = site
    def_edits: Tuple[Edit, ...] = ()
    if isinstance(node, cst.Lambda):
        from jitlint.fixes.templates import PathReplacer

        on_path = {a for old in changes for a in ctx.ancestors(old)}
        jit_call = site.with_changes(args=[site.args[0].with_changes(
            value=node.visit(PathReplacer(changes, on_path)))] + list(site.args[1:]))
    else:
        def_edit = ctx.replace_many(changes)
        if def_edit is None:
            return None
        def_edits = (def_edit,)
    if static:
        positional = [p.name.value for p, k in fn.params if k in ("posonly", "positional")]
        merged = merged_static_args(list(site.args[1:]), [param], {}, positional, ctx, entry.transform)
        if merged is None:
            return None
        jit_call = jit_call.with_changes(args=[jit_call.args[0]] + merged)
    argument = keyword_arg(param, read.deep_clone())
    how = "static argument" if static else "argument"
    uses = [ref for ref in name_references(ctx.module, wrapper) if ref is not statement.body[0].targets[0].target]
    calls = [ctx.parent(ref) for ref in uses]
    visible = wrapper.startswith("_") and not listed_in_all(ctx.module, wrapper) and all(
        isinstance(call, cst.Call) and call.func is ref and not any(a.star == "**" for a in call.args)
        and not _shadowed(wrapper, ctx.index.call_scopes.get(call, (None, None))[0])
        and _reads_global(global_name, ctx.index.call_scopes.get(call, (None, None))[0])
        for ref, call in zip(uses, calls))
    if visible and uses:
        if any(a in calls for call in calls for a in ctx.ancestors(call)):
            return None  # (`W(W(x))`: one edit cannot hold both)
        replaced: Dict[cst.CSTNode, Replacement] = {} if jit_call is site else {site: jit_call}
        replaced.update({call: call.with_changes(args=appended(call.args, argument)) for call in calls})
        call_edits = ctx.replace_per_statement(replaced)
        if call_edits is None:
            return None
        edits: List[Edit] = list(def_edits) + call_edits
        return ctx.fix(Applicability.UNSAFE, f"Pass `{ctx.code(read)}` to `{fn.name}` as the {how} `{param}` "
                       f"(at the {len(calls)} call{'s' if len(calls) != 1 else ''} of `{wrapper}`)", tuple(edits))
    forwarded = forwarded_arguments(node.params)
    if forwarded is None:
        return None
    private = ctx.fresh_name("_" + wrapper.lstrip("_") + "_jit", ctx.module, ctx.module_names())
    nl = ctx.module.default_newline
    assign = statement.with_changes(body=[statement.body[0].with_changes(
        targets=[statement.body[0].targets[0].with_changes(target=cst.Name(private))], value=jit_call)])
    forwarding = cst.FunctionDef(
        name=cst.Name(wrapper), params=node.params.deep_clone(),
        body=cst.IndentedBlock(body=[cst.SimpleStatementLine(
            [cst.Return(cst.Call(cst.Name(private), args=appended(forwarded, argument)))])]),
        leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    top = ctx.top_index(site)
    assert top is not None
    old_code = ctx.top_code(top)
    from jitlint.fixes.wrap import wrapped

    _, assign_code = wrapped(ctx, old_code, assign)
    _, def_code = wrapped(ctx, old_code, forwarding)
    following = ctx.module.body[top + 1] if top + 1 < len(ctx.module.body) else None
    blank = sum(1 for line in following.leading_lines if line.comment is None) if following is not None else 2
    wrapper_edit = ctx.replace_top(top, assign_code + def_code.rstrip() + nl * (1 + max(0, 2 - blank)))
    if wrapper_edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE,
                   f"Keep `{wrapper}` as a plain function that passes `{ctx.code(read)}` on every call to the "
                   f"jitted `{private}`, as the {how} `{param}`", def_edits + (wrapper_edit,))


#: functions that take a function and call it with the arguments they are given (or trace it so): a helper
#: handed to one gets the value through ``functools.partial(helper, name=value)``, a constant to them
_CALLING_TRANSFORMS = jax_api.FRESH_FUNCTION_TRANSFORMS | frozenset(jax_api.TRACED_BODIES) \
    | frozenset({"jax.checkpoint", "jax.remat"})


def _uses(helper: FunctionInfo, ctx: FixContext) -> Optional[List[cst.CSTNode]]:
    """Every use of the module-level function ``helper``: a call of it by name (the ``Call``), or its
    name given as a positional argument to a JAX transform or loop that calls it (the ``Name``,
    :data:`_CALLING_TRANSFORMS`); None when it is used any other way (passed elsewhere, rebound, read
    by another name) or a call unpacks arguments."""
    uses = calls_by_name(helper, ctx, _CALLING_TRANSFORMS)
    if uses is None or any(arg.star for use in uses if isinstance(use, cst.Call) for arg in use.args):
        return None
    return uses


def _outermost(fn: Optional[FunctionInfo]) -> Optional[FunctionInfo]:
    """The module-level function ``fn`` is nested in (``fn`` itself at module level): a use in a scan
    body of the jitted function reads the jitted function's parameters as a closure."""
    while fn is not None and fn.parent is not None:
        fn = fn.parent
    return fn


def _private(fn: FunctionInfo, ctx: FixContext) -> bool:
    """No other module can call ``fn``: its name starts with ``_``, the module's ``__all__`` leaves it
    out, or nothing in the project imports the module (a script, an example, a notebook)."""
    if listed_in_all(ctx.module, fn.name):
        return False
    return fn.name.startswith("_") or any(True for _ in name_references(ctx.module, "__all__")) \
        or ctx.index.never_imported


def _kept_public(fn: FunctionInfo, ctx: FixContext) -> bool:
    """Whether helper ``fn`` keeps its name and signature as a plain function that reads the global on
    every call and passes it to a renamed copy taking the parameter (:func:`_split_behind_a_wrapper`):
    another module may call it (it is not :func:`_private`), and those calls pass nothing.  The
    module's own uses go to the copy."""
    return not _private(fn, ctx)


def _only_caller(helper: FunctionInfo, ctx: FixContext, depth: int = 0) -> Optional[FunctionInfo]:
    """The one jitted module-level function that ``helper`` serves, when ``helper`` is a module-level
    function whose every use in this module (:func:`_uses`) is in the body of one module-level function
    (also in functions nested in it: a scan body reads that function's parameters as a closure): that
    function when it is jitted, else the one that function serves in turn (a chain of helpers, up to
    four deep, without cycles).  A helper other modules may call (:func:`_kept_public`) must be a plain
    ``def`` (no decorator, not ``async``, no generator)."""
    if depth > 4 or only_jit_entry(helper, ctx) is not None or not isinstance(helper.node, cst.FunctionDef) \
            or helper.parent is not None or helper.cls is not None \
            or _kept_public(helper, ctx) and not _plain_def(helper.node):
        return None
    owner = _owner(helper, ctx, depth)
    if owner is None:
        return None
    return owner if only_jit_entry(owner, ctx) is not None else _only_caller(owner, ctx, depth + 1)


def _owner(helper: FunctionInfo, ctx: FixContext, depth: int = 0) -> Optional[FunctionInfo]:
    """The module-level function whose body uses ``helper`` (see :func:`_only_caller`): the one owner of
    every use; for a helper kept public (:func:`_kept_public`), the one owner that is jitted or serves
    a jitted function in turn -- the helper's other uses keep calling the public name, which reads the
    global as before."""
    uses = _uses(helper, ctx)
    if not uses:
        return None
    owners = {_outermost(ctx.enclosing_function(use)) for use in uses}
    if _kept_public(helper, ctx) and len(owners) > 1:
        owners = {o for o in owners if o is not None and o is not helper and isinstance(o.node, cst.FunctionDef)
                  and (only_jit_entry(o, ctx) is not None or _only_caller(o, ctx, depth + 1) is not None)}
    if len(owners) != 1:
        return None
    owner = owners.pop()
    if owner is None or owner is helper or owner.cls is not None or not isinstance(owner.node, cst.FunctionDef):
        return None
    if any(True for _ in name_references(helper.node.body, owner.name)) \
            or any(True for _ in name_references(helper.node.body, helper.name)):
        return None  # a cycle (the helper calls back, or itself): the parameter would go round it
    return owner


def _chain(helper: FunctionInfo, caller: FunctionInfo, ctx: FixContext) -> List[FunctionInfo]:
    """``helper`` and the functions between it and ``caller`` (see :func:`_only_caller`), caller left out."""
    out = [helper]
    while len(out) < 6:
        owner = _owner(out[-1], ctx)
        if owner is None or owner is caller:
            break
        out.append(owner)
    return out


def _reading_helpers(caller: FunctionInfo, read: cst.BaseExpression, global_name: str,
                     ctx: FixContext) -> Optional[List[FunctionInfo]]:
    """The helpers that serve ``caller`` alone (see :func:`_only_caller`) and read ``read`` as the
    global, with the helpers between them and ``caller`` (which pass it on); None when one of them
    cannot take it as a parameter (it reads the name as a local too, or declares it)."""
    out: List[FunctionInfo] = []
    for info in ctx.index.functions.values():
        if info is caller or info.parent is not None or not isinstance(info.node, cst.FunctionDef):
            continue
        if not _reads_in(info.node, read, ctx):
            continue
        if _only_caller(info, ctx) is not caller:
            continue
        for member in _chain(info, caller, ctx):
            if global_name in member.local_names or global_name in member.global_names:
                return None
            if member not in out:
                out.append(member)
    return out


def _threaded(read: cst.BaseExpression, global_name: str, caller: FunctionInfo, helpers: List[FunctionInfo],
              ctx: FixContext) -> Optional[Fix]:
    """The read is (also) in helpers that serve only the jitted ``caller``: ``def _scaled(x): return
    x * SCALE`` called from ``@jax.jit def step(x)``, or handed to ``jax.vmap`` / ``jax.grad`` /
    ``lax.scan`` there, or through helpers in between. Each helper takes the value as a keyword-only
    parameter, ``caller`` takes it too (static where a read needs a Python value) and the value is
    passed on at each use of a helper: a call gets the keyword argument, a helper handed to a
    transform is handed ``functools.partial(helper, name=name)`` (bound, not mapped nor
    differentiated); ``caller`` keeps its name and signature as a plain function that reads the value
    on every call (:func:`_behind_a_wrapper`)."""
    if global_name in caller.local_names or global_name in caller.global_names \
            or global_name in caller.nonlocal_names:
        return None
    entry = only_jit_entry(caller, ctx)
    if entry is None or not _can_wrap(caller, entry, ctx):
        return None
    kind = _kind(read, global_name, ctx)
    if kind is None:
        return None
    helper_reads = {h: _reads_in(h.node, read, ctx) for h in helpers}
    caller_reads = _reads_in(caller.node, read, ctx)
    every = caller_reads + [r for reads in helper_reads.values() for r in reads]
    static = _made_static_for(kind, every, ctx)
    if static and (kind in _UNHASHABLE_KINDS or entry.partial_positional or entry.partial_keywords):
        return None
    taken = set().union(*(names_in(h.node) for h in helpers))
    param = ctx.fresh_name(_base_name(read, global_name), caller.node, taken)
    passed = keyword_arg(param, cst.Name(param))
    owners = [caller] + list(helpers)
    changes: Dict[FunctionInfo, Dict[cst.CSTNode, Replacement]] = {f: {} for f in owners}
    changes[caller].update({r: cst.Name(param) for r in caller_reads})
    for h in helpers:
        changes[h].update({r: cst.Name(param) for r in helper_reads[h]})
        changes[h][h.node.params] = _with_keyword_only(h.node.params, param)
    # a helper other modules may call keeps its name as a plain function; the module calls the copy
    renamed = {h: ctx.fresh_name("_" + h.name.lstrip("_"), ctx.module, ctx.module_names())
               for h in helpers if _kept_public(h, ctx)}
    imports: Tuple[Edit, ...] = ()
    for h in helpers:
        for use in _uses(h, ctx) or ():
            owner = _outermost(ctx.enclosing_function(use))
            if owner not in changes:
                if h in renamed:
                    continue  # (a use outside the jitted code keeps the public name)
                return None
            called = cst.Name(renamed.get(h, h.name))
            if isinstance(use, cst.Call):
                changes[owner][use] = use.with_changes(func=called, args=appended(use.args, passed))
                continue
            spelled = ctx.import_name("functools.partial", at=use)
            if spelled is None:
                return None
            partial_name, imports = spelled[0], spelled[1] or imports
            changes[owner][use] = cst.Call(cst.parse_expression(partial_name), [
                cst.Arg(called, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), passed])
    for edits in changes.values():
        if any(a in edits for node in edits for a in ctx.ancestors(node)):
            return None  # `_f(_g(x))`, `_f(x + G)`: one edit cannot hold both
    changes[caller][caller.node.params] = _with_keyword_only(caller.node.params, param)
    made = _made_static(entry, param, caller, changes[caller], ctx) if static else ()
    if made is None:
        return None
    wrapped = _behind_a_wrapper(read, param, static, caller, changes[caller], tuple(made) + imports, ctx)
    if wrapped is None:
        return None
    edits: List[Edit] = list(wrapped.edits)
    for h in helpers:
        edit = _split_behind_a_wrapper(h, renamed[h], read, param, changes[h], ctx) if h in renamed \
            else ctx.replace_many(changes[h])
        if edit is None:
            return None
        edits.append(edit)
    how = "static argument" if static else "argument"
    names = ", ".join(f"`{h.name}`" for h in helpers)
    return ctx.fix(Applicability.UNSAFE,
                   f"Pass `{ctx.code(read)}` to {names} as the {how} `{param}`, from `{caller.name}`, which keeps "
                   "its name as a plain function that reads it on every call", tuple(edits))


# ------------------------------------------------------------------ what the value is


def _module_values(name: str, ctx: FixContext) -> Optional[List[cst.BaseExpression]]:
    """The values of every module-level binding of ``name`` (outside functions and classes), or None
    when one is not a plain ``name = value`` (an unpacking, a loop, an import, a ``with``, ``:=``)."""
    values: List[cst.BaseExpression] = []
    ok = True

    class _Bindings(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            nonlocal ok
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return False
            if isinstance(node, cst.Assign):
                for t in node.targets:
                    if isinstance(t.target, cst.Name) and t.target.value == name:
                        values.append(node.value)
                    elif any(n.value == name for n in name_references(t.target)):
                        ok = False
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and isinstance(node.target, cst.Name) \
                    and node.target.value == name and node.value is not None:
                values.append(node.value)
            elif isinstance(node, cst.ImportFrom) and isinstance(node.names, cst.ImportStar):
                ok = False
            else:
                bound = _bound_by(node)
                if bound is not None and any(n.value == name for n in name_references(bound)):
                    ok = False
            return True

    ctx.module.visit(_Bindings())
    return values if ok and values else None


def _bound_by(node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """What a loop, ``:=``, ``as``, import or ``del`` binds (None for other nodes)."""
    if isinstance(node, (cst.For, cst.CompFor, cst.NamedExpr)):
        return node.target
    if isinstance(node, cst.AsName):
        return node.name
    if isinstance(node, (cst.Import, cst.ImportFrom, cst.Del)):
        return node
    return None


def _made_static_for(kind: str, reads: List[cst.BaseExpression], ctx: FixContext) -> bool:
    """Whether the parameter is static: a flag; a value some read needs static (an ``if`` test, a
    ``range`` bound, a shape); or an int not read only as array data (an operand of arithmetic with an
    array, an argument of ``jax.numpy`` / ``jax.lax``): handed to a function jitlint cannot see
    (``particle_filter(n_particles=n_particles)``), an int may be a size there, as the trace's constant
    it was -- static keeps that, one compile per value."""
    if kind == "flag" or any(is_static_use(r, ctx) for r in reads):
        return True
    if kind in ("numbers", "number list"):
        return not all(_elements_as_data(r, ctx) for r in reads)
    return kind == "count" and not all(number_use(r, ctx) for r in reads)  # type: ignore[arg-type]


#: kinds of values a static argument cannot hold (JAX hashes static values)
_UNHASHABLE_KINDS = frozenset({"array", "number list"})


def _elements_as_data(read: cst.BaseExpression, ctx: FixContext) -> bool:
    """A read of a tuple or list of floats whose elements are only array data (``number_use``): taken
    whole by a ``jax.numpy`` function (``jnp.asarray(RATES)``), an item at a literal index
    (``RATES[0] * s``), or unpacked into names bound once in the function and used only so
    (``beta, gamma = RATES``, then ``beta * s``) -- passed traced, each element a 0-d array, they compute
    what the constants did."""
    if number_use(read, ctx):  # type: ignore[arg-type]
        return True
    parent = ctx.parent(read)
    iterated = _iterated_element(read, ctx)
    if iterated is not None:
        # `for sid in SPECIAL_IDS: keep &= tokens != sid`, `[z[:, j] * w for j, w in enumerate(WEIGHTS)]`: each
        # element, bound to the loop's name, only data (`enumerate` counts in Python ints over an array too)
        element, scope_nodes = iterated
        uses = [ref for node in scope_nodes for ref in name_references(node, element.value)]
        return bool(uses) and not any(element.value in names_bound_in(node) for node in scope_nodes
                                      if isinstance(node, cst.BaseSuite)) \
            and all(number_use(ref, ctx, float_operand=True) and not is_static_use(ref, ctx) for ref in uses)
    if isinstance(parent, cst.Subscript) and parent.value is read:
        return len(parent.slice) == 1 and isinstance(parent.slice[0].slice, cst.Index) \
            and type(literal_value(parent.slice[0].slice.value)) is int \
            and number_use(parent, ctx, float_operand=True)  # type: ignore[arg-type]
    if not (isinstance(parent, cst.Assign) and parent.value is read and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, (cst.Tuple, cst.List))):
        return False
    fn = ctx.enclosing_function(read)
    if fn is None:
        return False
    for element in parent.targets[0].target.elements:
        target = element.value
        if not isinstance(element, cst.Element) or not isinstance(target, cst.Name) \
                or len(fn.scope.bindings_of(target.value)) != 1:
            return False
        uses = [ref for ref in name_references(fn.node.body, target.value) if ref is not target]
        if not all(number_use(ref, ctx, float_operand=True) and not is_static_use(ref, ctx) for ref in uses):
            return False
    return True


def _iterated_element(read: cst.BaseExpression, ctx: FixContext
                      ) -> Optional[Tuple[cst.Name, List[cst.CSTNode]]]:
    """``read`` iterated by a ``for`` statement (no ``else``) or a comprehension's ``for``, directly or
    through the builtin ``enumerate`` (``for j, w in enumerate(read)``): the name each element is bound to,
    and the code that reads it (the loop's body; the comprehension's element and tests); None otherwise."""
    parent = ctx.parent(read)
    counted = False
    if isinstance(parent, cst.Arg) and not parent.star and parent.keyword is None:
        call = ctx.parent(parent)
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "enumerate"
                and len(call.args) == 1 and "enumerate" not in ctx.index.globals):
            return None
        read, parent, counted = call, ctx.parent(call), True
    if not isinstance(parent, (cst.For, cst.CompFor)) or parent.iter is not read:
        return None
    target = parent.target
    if counted:
        if not (isinstance(target, cst.Tuple) and len(target.elements) == 2
                and all(isinstance(el.value, cst.Name) for el in target.elements)):
            return None
        target = target.elements[1].value
    if not isinstance(target, cst.Name):
        return None
    if isinstance(parent, cst.For):
        return (target, [parent.body]) if parent.orelse is None else None
    if parent.inner_for_in is not None:
        return None  # (a nested `for` of the comprehension may read it too: not followed)
    comprehension = ctx.parent(parent)
    parts = [getattr(comprehension, "elt", None), getattr(comprehension, "key", None),
             getattr(comprehension, "value", None)] + [test.search for test in parent.ifs]
    return target, [p for p in parts if p is not None]


def _literal_kind(value: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> Optional[str]:
    """``"count"`` (an int), ``"number"`` (a float), ``"flag"`` (a bool or str), ``"array"`` (a JAX or NumPy
    array), an item of a module table of one of those, ``"numbers"`` / ``"number list"`` (a tuple / list
    display of ints and floats), or None."""
    lit = literal_value(value)
    if isinstance(lit, (bool, str)):
        return "flag"
    if isinstance(lit, int):
        return "count"
    if isinstance(lit, float):
        return "number"
    if isinstance(value, cst.Call):
        q = ctx.index.qualify(value.func) or ""
        if q.startswith(("jax.numpy.", "numpy.")) and q.rsplit(".", 1)[-1] in _ARRAY_FACTORIES \
                or q in _KEY_FACTORIES:
            return "array"
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) and depth < 2:
        return _table_kind(value.value.value, ctx, depth)
    if isinstance(value, (cst.Tuple, cst.List)) and value.elements and depth < 2 \
            and all(isinstance(e, cst.Element) for e in value.elements) \
            and {_literal_kind(e.value, ctx, depth + 1) for e in value.elements} in ({"number"}, {"count"}):
        # a tuple or list of floats (`RATES = (0.3, 0.2, 0.1)`) or of ints (`SPECIAL_IDS = [0, 1]`): a pytree
        # of them, passed whole (only where every element is array data: `_elements_as_data`)
        return "numbers" if isinstance(value, cst.Tuple) else "number list"
    return None


def _table_kind(name: str, ctx: FixContext, depth: int) -> Optional[str]:
    """An item of the module's table ``name`` (``PLANETS["mars"]``, with ``PLANETS = {"earth": -9.81,
    ...}`` bound once and changed nowhere): the one kind of its values."""
    info = ctx.index.globals.get(name)
    if info is None or info.assignments != 1 or info.mutable_container and name in ctx.index.mutated_in_functions \
            or name in ctx.index.global_written or not isinstance(info.node, cst.Assign) \
            or not isinstance(info.node.value, (cst.Dict, cst.List, cst.Tuple)):
        return None
    table = info.node.value
    items = [e.value for e in table.elements if isinstance(e, (cst.DictElement, cst.Element))]
    if not items or len(items) != len(table.elements):
        return None
    return _one_kind({_literal_kind(item, ctx, depth + 1) for item in items})


def _one_kind(kinds: Set[Optional[str]]) -> Optional[str]:
    """The kind values of ``kinds`` share: ints and floats are numbers."""
    if kinds == {"count", "number"}:
        return "number"
    return kinds.pop() if len(kinds) == 1 else None


_ARRAY_FACTORIES = frozenset({"array", "asarray", "zeros", "ones", "full", "arange", "linspace", "eye"})
#: PRNG keys: arrays too (a legacy ``uint32[2]`` or a typed key)
_KEY_FACTORIES = frozenset({"jax.random.PRNGKey", "jax.random.key"})


def _init_literal_kinds(cls, ctx: FixContext) -> Optional[Dict[str, Optional[str]]]:
    """Of a plain class whose ``__init__`` takes only ``self`` (instances made as ``Settings()``): the kind
    of each attribute its body sets to a literal (``self.gamma = 0.9``), the statements of its own body
    that bind attributes all such; None for another ``__init__``."""
    init = cls.methods.get("__init__")
    node = init.node if init is not None else None
    if not isinstance(node, cst.FunctionDef) or len(node.params.params) != 1 or node.params.posonly_params \
            or isinstance(node.params.star_arg, (cst.Param, cst.ParamStar)) or node.params.kwonly_params \
            or node.params.star_kwarg is not None or not isinstance(node.body, cst.IndentedBlock):
        return None
    me = node.params.params[0].name.value
    kinds: Dict[str, Optional[str]] = {}
    for stmt in node.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            return None
        for small in stmt.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                continue  # (a docstring)
            target = small.targets[0].target if isinstance(small, cst.Assign) and len(small.targets) == 1 else None
            if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.value.value == me):
                return None
            kinds[target.attr.value] = _literal_kind(small.value, ctx)  # type: ignore[union-attr]
    return kinds or None


def _field_kinds(name: str, ctx: FixContext) -> Optional[Dict[str, Optional[str]]]:
    """For a global every module-level binding of which makes an instance of one dataclass of this module
    (``CELL = CellSpec(capacity_ah=2.5, ...)``): the kind of each field over those instances (the value a
    call gives it, by keyword or position, else the field's default); of a ``SimpleNamespace`` made with
    the same keywords each time, the kind of each keyword's value; None for any other global."""
    key = ("parameters.field_kinds", name)
    if key in ctx.memo:
        return ctx.memo[key]  # type: ignore[return-value]
    found: Optional[Dict[str, Optional[str]]] = None
    values = _module_values(name, ctx)
    if values and all(isinstance(v, cst.Call) and ctx.index.qualify(v.func) in _NAMESPACES
                      and all(a.keyword is not None and not a.star for a in v.args) for v in values):
        # `PROFILE = SimpleNamespace(half_life_h=5.0, body_kg=70.0)`: its attributes are its keywords
        by_field: Dict[str, Set[Optional[str]]] = {}
        for call in values:
            for a in call.args:  # type: ignore[union-attr]
                by_field.setdefault(a.keyword.value, set()).add(_literal_kind(a.value, ctx))
        if all(set(by_field) == {a.keyword.value for a in v.args} for v in values):  # type: ignore[union-attr]
            found = {f: _one_kind(k) for f, k in by_field.items()}
        ctx.memo[key] = found
        return found
    classes = {v.func.value for v in values or () if isinstance(v, cst.Call) and isinstance(v.func, cst.Name)}
    cls = ctx.index.classes.get(classes.pop()) if len(classes) == 1 and values and all(
        isinstance(v, cst.Call) for v in values) else None
    fields = _dataclass_fields(cls, ctx) if cls is not None else None
    if fields is not None:
        kinds: Dict[str, Set[Optional[str]]] = {f: set() for f in fields}
        for call in values:  # type: ignore[union-attr]
            if any(a.star for a in call.args):
                kinds = {}
                break
            given: Dict[str, cst.BaseExpression] = {}
            positional = [a for a in call.args if a.keyword is None]
            for field_name, arg in zip(fields, positional):
                given[field_name] = arg.value
            given.update({a.keyword.value: a.value for a in call.args if a.keyword is not None})
            for field_name, default in fields.items():
                value = given.get(field_name, default)
                kinds[field_name].add(_literal_kind(value, ctx) if value is not None else None)
        found = {f: _one_kind(k) for f, k in kinds.items()} if kinds else None
    elif cls is not None and all(not v.args for v in values):  # type: ignore[union-attr]
        found = _init_literal_kinds(cls, ctx)
    ctx.memo[key] = found
    return found


#: classes whose instances hold what their keywords give, as attributes
_NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})


def _dataclass_fields(cls, ctx: FixContext) -> Optional[Dict[str, Optional[cst.BaseExpression]]]:
    """The fields of a ``@dataclass`` class of this module, in order, with their literal defaults."""
    if not any((ctx.index.qualify(d.func if isinstance(d, cst.Call) else d) or "") in (
            "dataclasses.dataclass", "flax.struct.dataclass") for d in cls.decorators) or cls.bases:
        return None
    fields: Dict[str, Optional[cst.BaseExpression]] = {}
    for stmt in cls.node.body.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                fields[small.target.value] = small.value
    return fields or None


def _kind(read: cst.BaseExpression, name: str, ctx: FixContext) -> Optional[str]:
    """The one kind of every module-level value of ``read``, or None."""
    if isinstance(read, cst.Attribute):
        return (_field_kinds(name, ctx) or {}).get(read.attr.value)
    values = _module_values(name, ctx)
    if values is None:
        return None
    if isinstance(read, cst.Call):
        # the array built from a list or tuple display, whatever the module later stores into it
        return "array" if all(isinstance(v, (cst.List, cst.Tuple)) for v in values) else None
    if isinstance(read, cst.Subscript):
        index = read.slice[0].slice
        assert isinstance(index, cst.Index)
        key = literal_value(index.value)
        items = []
        for value in values:
            if isinstance(value, (cst.List, cst.Tuple)) and type(key) is int \
                    and not any(isinstance(e, cst.StarredElement) for e in value.elements) \
                    and -len(value.elements) <= key < len(value.elements):
                items.append(value.elements[key].value)  # (`SOFTENING = [0.05]`, read as `SOFTENING[0]`)
                continue
            if not isinstance(value, cst.Dict):
                return None
            found = [e.value for e in value.elements if isinstance(e, cst.DictElement)
                     and literal_value(e.key) == key and type(literal_value(e.key)) is type(key)]
            if len(found) != 1 or any(isinstance(e, cst.StarredDictElement) for e in value.elements):
                return None
            items.append(found[0])
        values = items
    kind = _one_kind({_literal_kind(v, ctx) for v in values})
    if kind == "number list" and not _floats_stored(name, ctx):
        return None
    return kind


def _floats_stored(name: str, ctx: FixContext) -> bool:
    """Whatever the module stores into list ``name`` is a number (``RATES[0] = 0.6``, ``IDS.append(2)``,
    ``IDS.pop()``): no other item store, no other method that changes it (``sort``...), no ``del``.  A list
    that grows or shrinks is passed whole at each call: a new length is a new pytree structure, traced
    anew."""
    def other_change(node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Assign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            stored = any(isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value == name
                         for t in targets)
            return stored and not isinstance(literal_value(node.value), (int, float))
        if isinstance(node, cst.Del):
            return any(isinstance(ref, cst.Name) and ref.value == name for ref in name_references(node.target))
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and isinstance(node.func.value, cst.Name) and node.func.value.value == name
                and node.func.attr.value in jax_api.MUTATING_METHODS):
            return False
        numbers = all(not a.star and a.keyword is None and isinstance(literal_value(a.value), (int, float))
                      and not isinstance(literal_value(a.value), bool) for a in node.args)
        return not (node.func.attr.value in ("append", "pop", "remove") and numbers)
    return not any_node([ctx.module], other_change)


# ------------------------------------------------------------------ where it is read and called


def _reads_in(fn_node: cst.FunctionDef, read: cst.BaseExpression, ctx: FixContext) -> List[cst.BaseExpression]:
    """The reads of the global expression ``read`` in the function, nested scopes included."""
    out: List[cst.BaseExpression] = []
    root = _global_of(read)
    for ref in name_references(fn_node.body, root.value):
        if ctx.facts.read_scope.get(ref) != "global":
            continue
        whole = _read_expression(ref, ctx)
        if whole.deep_equals(read):
            out.append(whole)
    return out


def only_jit_entry(fn: FunctionInfo, ctx: FixContext):
    """The function's one entry, a ``jax.jit`` decorator; None if it is traced any other way too."""
    entries = [e for e in ctx.index.entries if e.function is fn]
    if len(entries) != 1:
        return None
    entry = entries[0]
    if not isinstance(entry.site, cst.Decorator) or entry.transform is None \
            or entry.transform.name not in jax_api.JIT_NAMES \
            or entry.shared_spec:
        return None  # (a shared `@static_jit`: its static arguments are not this function's to edit)
    return entry


def _editable_calls(fn: FunctionInfo, entry: EntryPoint, global_name: str,
                    ctx: FixContext) -> Optional[List[cst.Call]]:
    """The calls of the jitted ``fn`` (its entry's visible calls), when those are all its uses in the
    module, no other module can call it, and each can take the new argument."""
    name = fn.name
    exported = listed_in_all(ctx.module, name)
    has_all = any(True for _ in name_references(ctx.module, "__all__"))
    if exported or not (name.startswith("_") or has_all):
        return None
    if calls_by_name(fn, ctx) is None:
        return None  # also passed, wrapped or rebound
    calls = list(entry.visible_calls())
    for call in calls:
        scope, cls = ctx.index.call_scopes.get(call, (None, None))
        if cls is not None or _shadowed(name, scope) or not _reads_global(global_name, scope):
            return None
        if any(a is fn.node for a in ctx.ancestors(call)):
            return None  # called by itself
        if any(arg.star == "**" for arg in call.args) or _in_class_body(call, ctx):
            return None
    for call in calls:
        if any(a in calls for a in ctx.ancestors(call)):
            return None  # f(f(x)): one edit cannot hold both
    return calls


def _reads_global(name: str, scope: Optional[FunctionInfo]) -> bool:
    """``name`` read in ``scope`` is the module's global: no scope out to the module binds it, or the
    first that names it declares it ``global`` (a setter that assigns the global and then calls)."""
    while scope is not None:
        if name in scope.global_names:
            return True
        if name in scope.local_names or name in scope.nonlocal_names:
            return False
        scope = scope.parent
    return True


def _shadowed(name: str, scope: Optional[FunctionInfo]) -> bool:
    while scope is not None:
        if name in scope.local_names or name in scope.global_names or name in scope.nonlocal_names:
            return True
        scope = scope.parent
    return False


def _in_class_body(call: cst.Call, ctx: FixContext) -> bool:
    for a in ctx.ancestors(call):
        if isinstance(a, (cst.FunctionDef, cst.Lambda) + _COMPREHENSIONS):
            return False
        if isinstance(a, cst.ClassDef):
            return True
    return False


# ------------------------------------------------------------------ a public function


def _can_wrap(fn: FunctionInfo, entry: EntryPoint, ctx: FixContext) -> bool:
    """``fn`` may be called from where the analysis cannot see (another module), but can keep its
    name and signature as a plain function that calls a jitted copy: it is a plain ``def`` (not
    ``async``, no generator), its one decorator is the jit, and the module only calls it."""
    node = fn.node
    assert isinstance(node, cst.FunctionDef)
    if node.asynchronous is not None or len(node.decorators) != 1 or entry.site is not node.decorators[0]:
        return False
    if any(isinstance(n, (cst.Yield, cst.Await)) for n in own_nodes(node)):
        return False
    return calls_by_name(fn, ctx) is not None


def own_nodes(node: Union[cst.FunctionDef, cst.Lambda]):
    """The nodes of the function's body, not those of functions or lambdas nested in it."""
    stack: List[cst.CSTNode] = [node.body]
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            stack.extend(n.children)


def _behind_a_wrapper(read: cst.BaseExpression, param: str, static: bool, fn: FunctionInfo,
                      changes: Dict[cst.CSTNode, Replacement], imports: Tuple[Edit, ...],
                      ctx: FixContext) -> Optional[Fix]:
    """``@jax.jit def f(x): ... G ...`` -> ``def f(x): return _f(x, g=G)`` and ``@jax.jit def
    _f(x, *, g): ... g ...``: the public name keeps its signature and docstring, and reads the
    value on every call."""
    private = ctx.fresh_name("_" + fn.name.lstrip("_"), ctx.module, ctx.module_names())
    edit = _split_behind_a_wrapper(fn, private, read, param, changes, ctx)
    if edit is None:
        return None
    how = "static argument" if static else "argument"
    return ctx.fix(Applicability.UNSAFE,
                   f"Keep `{fn.name}` as a plain function that passes `{ctx.code(read)}` on every call to the "
                   f"jitted `{private}`, as the {how} `{param}`", (edit,) + imports)


def _split_behind_a_wrapper(fn: FunctionInfo, private: str, read: cst.BaseExpression, param: str,
                            changes: Dict[cst.CSTNode, Replacement], ctx: FixContext) -> Optional[Edit]:
    """``def f(x): return _f(x, g=G)`` above ``_f`` with ``changes`` made (the reads, the new parameter
    ``param``): a jitted function, or a helper another module may call, keeps its public name, which reads
    the value on every call."""
    return split_behind_a_wrapper(fn, private, changes, ctx, passed=[keyword_arg(param, read.deep_clone())])


def split_behind_a_wrapper(fn: FunctionInfo, private: str, changes: Dict[cst.CSTNode, Replacement],
                           ctx: FixContext, passed: Sequence[cst.Arg] = (),
                           moved: Sequence[cst.BaseStatement] = (),
                           moved_after: Sequence[cst.BaseStatement] = ()) -> Optional[Edit]:
    """One edit of the statement ``def f`` (``fn``): ``def f(x): <moved>; return _f(x, <passed>)`` (its
    signature, docstring and leading lines kept, its decorators moved) above ``_f`` (``private``), ``f`` with
    ``changes`` made, without the statements ``moved`` into the wrapper, and with its decorators.  A module
    statement is rewritten whole; a function nested in another is replaced in its block."""
    from jitlint.fixes.templates import PathReplacer
    from jitlint.fixes.wrap import wrapped

    node = fn.node
    assert isinstance(node, cst.FunctionDef)
    forwarded = forwarded_arguments(node.params)
    if forwarded is None or not isinstance(node.body, cst.IndentedBlock):
        return None
    on_path = {a for old in changes for a in ctx.ancestors(old)} | set(changes)
    copy = cst.ensure_type(node.visit(PathReplacer(changes, on_path)), cst.FunctionDef) if changes else node
    body = list(copy.body.body) if isinstance(copy.body, cst.IndentedBlock) else []
    doc = body[:1] if body and is_docstring(body[0]) and len(body) > 1 else []
    kept = [stmt for stmt in body[len(doc):] if not any(stmt is m for m in list(moved) + list(moved_after))]
    decorators = [d.with_changes(leading_lines=[]) if k == 0 else d for k, d in enumerate(copy.decorators)]
    top = ctx.top_index(node)
    module_level = fn.parent is None and top is not None and ctx.module.body[top] is node
    blank = [cst.EmptyLine(indent=False)] * (2 if module_level else 1)
    copy = copy.with_changes(name=cst.Name(private), leading_lines=blank, decorators=decorators,
                             body=copy.body.with_changes(body=kept))
    args = list(forwarded)
    for arg in passed:
        args = appended(args, arg)
    call = cst.Call(cst.Name(private), args=args)
    if moved_after:  # (updates the body made after other work: after the call, before its result is returned)
        result = ctx.fresh_name("result", node, [p.name.value for p, _ in fn.params])
        ending = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(result))], call)]),
                  *[stmt.with_changes(leading_lines=[]) for stmt in moved_after],
                  cst.SimpleStatementLine([cst.Return(cst.Name(result))])]
    else:
        ending = [cst.SimpleStatementLine([cst.Return(call)])]
    wrapper = node.with_changes(
        decorators=[], leading_lines=list(node.leading_lines) + (
            list(node.decorators[0].leading_lines) if node.decorators else []),
        body=cst.IndentedBlock(body=[*doc, *moved, *ending]))
    if not module_level:
        return ctx.replace(node, cst.FlattenSentinel([wrapper, copy]))
    old_code = ctx.top_code(top)
    _, wrapper_code = wrapped(ctx, old_code, wrapper)
    _, copy_code = wrapped(ctx, old_code, copy)
    return ctx.replace_top(top, wrapper_code + copy_code)


def _plain_def(node: cst.FunctionDef) -> bool:
    """A ``def`` without decorators, not ``async``, no generator: a wrapper can call it and return."""
    return not node.decorators and node.asynchronous is None \
        and not any(isinstance(n, (cst.Yield, cst.Await)) for n in own_nodes(node))


def forwarded_arguments(params: cst.Parameters) -> Optional[List[cst.Arg]]:
    """The arguments that pass a function's own parameters on, as it received them."""
    out = [cst.Arg(cst.Name(p.name.value)) for p in list(params.posonly_params) + list(params.params)]
    if isinstance(params.star_arg, cst.Param):
        out.append(cst.Arg(cst.Name(params.star_arg.name.value), star="*"))
    no_space = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    out += [cst.Arg(cst.Name(p.name.value), keyword=cst.Name(p.name.value), equal=no_space)
            for p in params.kwonly_params]
    if params.star_kwarg is not None:
        out.append(cst.Arg(cst.Name(params.star_kwarg.name.value), star="**"))
    return out


# ------------------------------------------------------------------ the new code


def _base_name(read: cst.BaseExpression, global_name: str) -> str:
    if isinstance(read, cst.Attribute) and not keyword.iskeyword(read.attr.value):
        return read.attr.value
    if isinstance(read, cst.Subscript):
        index = read.slice[0].slice
        assert isinstance(index, cst.Index)
        key = literal_value(index.value)
        if isinstance(key, str) and key.isidentifier() and not keyword.iskeyword(key):
            return key
    base = global_name.lstrip("_").lower()
    return base if base.isidentifier() and not keyword.iskeyword(base) else "value"


def _with_keyword_only(params: cst.Parameters, name: str) -> cst.Parameters:
    """``params`` with ``name`` added as the last keyword-only parameter (after a bare ``*`` if needed)."""
    new = cst.Param(cst.Name(name))
    kwonly = list(params.kwonly_params)
    if kwonly and kwonly[-1].comma is not cst.MaybeSentinel.DEFAULT:
        new = new.with_changes(comma=kwonly[-1].comma)  # a trailing comma stays trailing
        kwonly[-1] = kwonly[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
    return params.with_changes(star_arg=star, kwonly_params=kwonly + [new])


def _made_static(entry, param: str, fn: FunctionInfo, changes: Dict[cst.CSTNode, Replacement],
                 ctx: FixContext) -> Optional[Tuple[Edit, ...]]:
    """Adds to ``changes`` the decorator with ``param`` in its ``static_argnames``; the imports that
    needs (None: the decorator cannot say it)."""
    decorated = _static_decorator(entry, param, fn, ctx)
    if decorated is None:
        return None
    old, new, imports = decorated
    changes[old] = new
    return imports


def _static_decorator(entry, param: str, fn: FunctionInfo, ctx: FixContext):
    """The decorator with ``param`` added to its ``static_argnames``: (old node, new node, imports)."""
    t = entry.transform
    d = entry.site.decorator
    positional = [p.name.value for p, kind in fn.params if kind in ("posonly", "positional")]
    if isinstance(d, (cst.Name, cst.Attribute)):
        spelled = ctx.import_name("functools.partial", at=d)
        if spelled is None:
            return None
        partial, imports = spelled
        args = merged_static_args([], [param], {}, positional, ctx, t)
        if args is None:
            return None
        return d, cst.Call(func=cst.parse_expression(partial), args=[cst.Arg(d)] + args), tuple(imports)
    if isinstance(d, cst.Call):
        head: List[cst.Arg] = []
        args = list(d.args)
        if ctx.index.qualify(d.func) == "functools.partial":
            head, args = args[:1], args[1:]
        merged = merged_static_args(args, [param], {}, positional, ctx, t)
        if merged is None:
            return None
        return d, d.with_changes(args=head + merged), ()
    return None


@rewrites("JIT101")
def to_container_read_at_call(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT101: a jitted closure that its factory returns reads items or attributes of the factory's parameter
    (``hparams["l2"]``), which the caller changes after making it -> the closure keeps its name and signature
    as a plain function that reads those parts when called and passes them to a jitted twin
    (``return _objective_jit(params, batch, hparams_l2=hparams["l2"])``): each call computes with the
    container's current values, traced.

    Preconditions: the closure is decorated with ``@jax.jit`` (or ``@partial(jax.jit, ...)``), defined in a
    module-level function that returns it by name and names it nowhere else; every read of the container in
    it is an item with a literal key or an attribute, where an array goes (an operand of arithmetic, an
    argument of a ``jax`` function), never stored; it has no ``**kwargs``.  UNSAFE: a part that holds
    something other than a number or an array (a string, a function) would not trace, and a part of another
    shape compiles again."""
    if not isinstance(node, (cst.Subscript, cst.Attribute)) or not isinstance(node.value, cst.Name):
        return None
    fn = ctx.enclosing_function(node)
    factory = fn.parent if fn is not None else None
    if fn is None or factory is None or not isinstance(fn.node, cst.FunctionDef) \
            or not isinstance(factory.node, cst.FunctionDef) or factory.parent is not None \
            or fn.node.params.star_kwarg is not None or fn.node.params.posonly_params:
        return None
    entries = [e for e in ctx.index.entries if e.function is fn]
    if len(entries) != 1 or not isinstance(entries[0].site, cst.Decorator) or not entries[0].compiles:
        return None
    container = node.value.value
    if container not in {p.name.value for p, _ in factory.params} or container in fn.local_names:
        return None
    mentions = [n for n in name_references(factory.node.body, fn.name) if n is not fn.node.name]
    returned = [n for n in mentions if isinstance(ctx.parent(n), cst.Return)]
    if not returned or len(mentions) != len(returned):
        return None  # (handed on or called in the factory: a call there would miss the new arguments)
    parts: Dict[str, str] = {}  # the code of a part read -> its parameter's name
    reads: List[cst.BaseExpression] = []
    taken = set(names_in(factory.node)) | set(ctx.module_names())
    for ref in (n for n in walk(fn.node.body) if isinstance(n, cst.Name) and n.value == container):
        read = ctx.parent(ref)
        if not isinstance(read, (cst.Subscript, cst.Attribute)) or read.value is not ref \
                or not array_operand(read, ctx):
            return None
        if isinstance(read, cst.Subscript):
            if len(read.slice) != 1 or not isinstance(read.slice[0].slice, cst.Index):
                return None
            key = literal_value(read.slice[0].slice.value)
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                return None
            suffix = str(key)
        else:
            suffix = read.attr.value
        code = ctx.code(read)
        if code not in parts:
            name = f"{container}_{suffix}".replace("-", "_")
            if not name.isidentifier() or keyword.iskeyword(name) or name in taken:
                return None
            parts[code] = name
            taken.add(name)
        reads.append(read)
    twin = f"_{fn.name.lstrip('_')}_jit"
    if not parts or twin in taken:
        return None
    params = fn.node.params
    added = [cst.Param(cst.Name(n)) for n in parts.values()]
    star = params.star_arg if params.star_arg is not None else cst.ParamStar()
    new_params = params.with_changes(star_arg=star, kwonly_params=list(params.kwonly_params) + added)
    renamed = {id(r): cst.Name(parts[ctx.code(r)]).with_changes(lpar=r.lpar, rpar=r.rpar) for r in reads}
    body = fn.node.body.visit(ById(renamed))
    plain = forwarding_def(fn.name, params, twin, [f"{n}={code}" for code, n in parts.items()], ctx.module)
    plain = plain.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    jitted = fn.node.with_changes(name=cst.Name(twin), params=new_params, body=body)
    edit = ctx.replace(fn.node, cst.FlattenSentinel([jitted, plain]))
    if edit is None:
        return None
    shown = ", ".join(f"`{code}`" for code in parts)
    return ctx.fix(Applicability.UNSAFE, f"Read {shown} when `{fn.name}` is called and pass it to a jitted "
                   f"`{twin}`: the trace no longer keeps the first value", (edit,))
