"""JIT1xx: side effects and global state inside traced code."""
from __future__ import annotations

import re
import string
from typing import Callable, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.discovery import FunctionInfo, state_test
from jitlint.analysis.scopes import BindingKind, names_bound_in
from jitlint.analysis.idempotence import built_from_self
from jitlint.analysis.syntax import (any_node, assigned_names, bind_arguments, call_argument, calls_in, dotted_name,
                                     flat_targets, iter_children, name_references, none_test, own_small_statements,
                                     path_to,
                                     result_discarded, returned_values, string_value, walk)
from jitlint.analysis.values import Kind, Reason
from jitlint.rules.base import Rule, RuleContext, count_once

_SETUP_METHODS = ("__init__", "setup", "__post_init__", "__new__", "__setattr__")

#: host generators made from a seed: with a constant seed they give the same draws on every call
_SEEDED_GENERATORS = frozenset({"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.PCG64",
                                "numpy.random.Philox", "numpy.random.SFC64", "numpy.random.MT19937",
                                "numpy.random.Generator", "random.Random"})


def _literal_seed(call: cst.Call, qualify) -> bool:
    """The generator is made from a constant: an integer literal, or a bit generator made from one
    (``np.random.Generator(np.random.PCG64(7))``)."""
    if len(call.args) != 1 or call.args[0].star:
        return False
    seed = call.args[0].value
    if isinstance(seed, cst.Call):
        return qualify(seed.func) in _SEEDED_GENERATORS and _literal_seed(seed, qualify)
    return isinstance(seed, cst.Integer)


#: a host generator's global state: what reads it, what sets it, and what sets a read state back
_RNG_STATE_READS = frozenset({"numpy.random.get_state", "random.getstate"})
_RNG_STATE_WRITES = frozenset({"numpy.random.set_state", "numpy.random.seed", "random.setstate", "random.seed"})
_RNG_STATE_RESTORED_BY = {"numpy.random.get_state": "numpy.random.set_state", "random.getstate": "random.setstate"}


def _assigned_name(assign: cst.Assign) -> Optional[str]:
    """``old`` in ``old = value``."""
    if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
        return assign.targets[0].target.value
    return None


def _saved_name(call: cst.Call, ctx: RuleContext) -> Optional[str]:
    """``old`` when ``call`` is the whole value of ``old = call``."""
    assign = ctx.parent(call)
    return _assigned_name(assign) if isinstance(assign, cst.Assign) and assign.value is call else None


#: a push onto one end of a list or deque, and the call that takes exactly that element off again
_UNDONE_BY = {"append": "pop", "appendleft": "popleft"}


def _root_name(node: cst.BaseExpression) -> Optional[cst.Name]:
    while isinstance(node, (cst.Attribute, cst.Subscript)):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _host_display(ctx: RuleContext, call: cst.Call) -> bool:
    """``call`` is the builtin ``print`` or a logging call: it runs on the host while Python runs."""
    func = call.func
    if isinstance(func, cst.Name) and func.value == "print":
        return ctx.facts.read_scope.get(func) == "builtin"
    q = ctx.qualify(func)
    if q is not None:
        head, _, tail = q.rpartition(".")
        return head in ("logging", "absl.logging") and tail in jax_api.LOGGER_METHODS
    return isinstance(func, cst.Attribute) and func.attr.value in jax_api.LOGGER_METHODS \
        and isinstance(func.value, cst.Name) and func.value.value in ctx.index.logger_names


def _why_traced(rule: Rule) -> Optional[Reason]:
    body = rule.ctx.body
    if body is None:
        return None
    return rule.ctx.facts.why_traced(body.function)


def _initialisation(rule: Rule) -> bool:
    """The statement being visited runs only in the branch of an initialisation guard (``if G is
    None: G = ...``, or a function called only from such branches): on the first call, once,
    whether the code is traced (and the trace kept) or run eagerly."""
    ctx = rule.ctx
    if ctx.body is None:
        return False
    if not ctx.body.outside_initialisation:
        return True
    current = ctx.current
    while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
        if current in ctx.facts.initialising:
            return True
        current = ctx.parent(current)
    return False


class MutableGlobalRead(Rule):
    """## What it does
    Flags a read, inside traced code, of a module-level variable that can change
    after the function is defined: one that module-level code assigns again
    later, one that a function rebinds with `global`, or a module-level list,
    dict, set or object that a function of the module changes (item
    assignment, `append` / `update` / ..., attribute assignment).

    Also flagged: an item or attribute of a parameter of a module function
    that returns the jitted closure reading it (a factory: `make_objective(
    hparams)` returning a jitted `objective` that reads `hparams["l2"]`),
    where code that makes it with a container of its own changes that
    container (`hparams["l2"] = l2`, `config.factor = 5.0`, `.update(...)`)
    and uses the jitted function again: after a use that traced it, or in
    one loop that the making is outside of. A container changed before the
    first use, a factory called again after the change, or a new container
    per call is fine.

    Constants are not flagged, nor are tables that are only filled while the
    module is imported (by module-level code, or by a registration API that
    the module's own functions never call -- a decorator, which returns what
    it is given or a function it defines, or a function whose only effect is
    to enter what it is given in the table or take it out: `_ENVS[name] =
    ctor`, `TYPES += [t]`, `del _ENVS[name]`), unless module-level code uses the jitted function before it
    calls the function that changes the table (`f(x); set_scale(3.0)`: the
    first call traced it), nor a memo (a dict every function of the module
    changes only by storing an entry whose key it has just found missing --
    `if key not in D:`, `hit = D.get(key); if hit is not None: return hit`,
    anything under `if not D:`, or after `if key in OTHER: return` / `if
    LOADED: return` in a block that goes on to store `OTHER[key]` / set
    `LOADED`, so that the store runs once for each key -- or by dropping entries: a read gives what
    computing the entry again gives, and what the entry is computed from is
    checked where it is read), nor a global that every function rebinding it
    follows, later in its body, with `jax.clear_caches()` (every trace made
    before the new value is dropped), nor `TABLE[key](...)` dispatch through such tables: jitlint
    cannot see changes made from other modules, and prefers silence there.
    Code traced only by `jax.vmap` is not flagged either: vmap traces again on
    every call, so the read is fresh (under `jax.jit(jax.vmap(f))` it is not).
    Nor is a lambda written where it is traced and traced there and then
    (`jax.jit(lambda x: x + g)(y)`, `jax.make_jaxpr(lambda: f(t))()`,
    `jax.eval_shape(lambda p: model.init(p), x)`, a lax body): JAX keys its
    trace caches on the function object, and each evaluation makes a new one,
    traced again. Nor a read only for what a host
    `print` or log call shows while tracing (`print(jax.typeof(G))`), or
    only for whether it shows anything (`if VERBOSE >= 2: print("compiling")`,
    every branch a print or log call of no traced value): it is read at each
    trace and enters nothing of the program kept.
    Nor is state that only scopes entered while tracing change: module-level
    functions, called only from traced code, that set attributes of it and
    set them back in a `finally` (a context manager entered inside a traced
    branch that puts a thread-local depth up and back). It is set and read
    while the program is built, the same way each time. When eager code
    changes it too (a switch to mute records), or a change is not set back,
    the read is flagged.
    Nor is an attribute that nothing assigns of a global object whose
    other attributes the module's functions assign (`PROFILE.body_kg` where
    only `PROFILE.half_life_h = ...` is written; a `SimpleNamespace` or an
    instance of a plain class of the module, the attribute no method or
    property of it): it keeps the value the object was made with.
    Nor is an attribute of a global object that the traced function sets
    itself before it reads it (`_ctx.total = Total(...)` at the top of its
    body), or that the context function of a `with ctx():` around the read
    sets before it yields: it holds what this call put there, in this trace.
    Nor is a read in a function that runs only while initialising (a loader
    called only from such a branch): it runs once, eagerly too.
    Nor is a method of a global object given to a host callback
    (`jax.debug.callback(HISTORY.append, x)`) where the global is bound once:
    the host calls it on that one object at every run, whatever it holds then.
    Nor is a global that functions of its module set, where every call of
    them in the project runs while the program starts: in `main` (run by
    `if __name__ == "__main__":`) or a function only such code calls, not in
    a loop, after nothing but calls of code outside the project, of plain
    helpers that call no more than that, and of those setters
    (`load_config(FLAGS.config)` at the top of `main`): no trace can have
    run before, so a trace reads the only value the program gives it. A
    setter nothing in the project calls is an API whose callers are unknown,
    and is reported.
    Nor, in a notebook or a script nothing imports, is a global rebound
    before a cell makes the jit wrapper anew around a callable made there
    (`model = GPshallow()`, then `loss_grad_fn =
    jax.jit(jax.value_and_grad(loss))` again): JAX keys its trace cache on
    the callable, so the new one traces anew and reads the new value
    (`jax.jit(loss)` made again is served from the cache of `loss`, with the
    old value, and is flagged).
    Nor, there, is a global that a class's method reads and that the notebook
    binds again only after the last statement naming the class or an object
    made of it (`State = namedtuple(...)` again for another model, once
    `agent` is bound to another object or no longer used): no method of the
    class runs after the change.
    Nor is a global bound several times, all before the module statement
    that makes the lambda reading it (`params = None`, `if params is None:
    params = init(...)`, then `f = jax.jit(lambda x: apply(params, x))`): the
    lambda exists only after the last binding.
    Nor is the test of an initialisation guard (`if key not in REGISTRY:`, see
    JIT102) in a function that traced code reaches only from the branch of
    another one: like the rest of that function, it runs once, on the first
    call, eagerly too. The same test in code run on every call is flagged:
    eagerly it is asked again at each call, under `jax.jit` only once.

    ## Why is this bad?
    `jax.jit` traces the function once and bakes the value it sees into the
    compiled program. Later changes to the global are silently ignored until
    something else forces a retrace, so results depend on call history:

    ```
    scale = 1.0
    @jax.jit
    def f(x): return x * scale
    f(x)          # [0. 1. 2.]
    scale = 10.0
    f(x)          # still [0. 1. 2.]  (eager gives [0. 10. 20.])
    ```

    ## Example
    ```python
    import jax

    CONFIG = {"temperature": 1.0}

    def set_temperature(t):
        CONFIG["temperature"] = t

    @jax.jit
    def softmax(logits):
        return jax.nn.softmax(logits / CONFIG["temperature"])
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def softmax(logits, temperature):
        return jax.nn.softmax(logits / temperature)
    ```

    ## Fix safety
    A factory's container read by its jitted closure (UNSAFE): the closure
    keeps its name and signature as a plain function that reads the parts
    when called and passes them to a jitted twin
    (`return _objective_jit(w, hparams_l2=hparams["l2"])`), where every part
    is an item with a literal key or an attribute read where an array goes
    (arithmetic, a `jax` function's argument) and the factory only returns
    the closure; a part that holds no number or array would not trace.

    The fix passes the value in: the jitted function gets a keyword-only
    parameter that replaces the read (`def softmax(logits, *, temperature)`),
    and every call in the module passes the global
    (`softmax(x, temperature=CONFIG["temperature"])`), so the value is read at
    each call, as eager Python reads it. A number or an array becomes a traced
    argument; a `bool` or `str` flag, a number used as a static value (an
    `if` test, a `range` bound, a shape), or an int read other than as array
    data (handed to a function jitlint cannot see, where it may be a size),
    becomes a static one, added to the decorator's `static_argnames`.

    Only when the value's kind is known: the read is a module-level name or
    an item with a literal key of one, every module-level assignment of which
    is a literal number, `bool` or `str`, a JAX / NumPy array or a PRNG key
    (`jax.random.key(0)`) -- an item: a dict literal holding the key, or a
    list or tuple display with the index in range (`SOFTENING[0]` of
    `SOFTENING = [0.05]`); a tuple or list display of floats (or of ints)
    read whole (`beta, gamma = RATES`), passed whole as a pytree of traced
    numbers where its elements are only array data (unpacked into names used
    only in arithmetic with traced values, taken by a `jax.numpy` function,
    indexed by a literal, or iterated by a `for` -- a statement's or a
    comprehension's, also through `enumerate`, whose count stays a Python
    int -- whose name is only such data: `for sid in SPECIAL_IDS: keep &=
    tokens != sid`, `[z[:, j] * w for j, w in enumerate(WEIGHTS)]`) and otherwise static
    for a tuple, with no fix for a list (unhashable), nor for one the module
    changes other than by storing a number into an item (`RATES[0] = 0.6`)
    or by `append` / `pop` / `remove` of numbers (a new length is a new
    pytree structure, traced anew); the array a jax.numpy
    builder makes of a module-level list or tuple display
    (`jnp.array(SPECIAL_IDS)`, `jnp.asarray(NOISE, dtype=jnp.float32)`),
    built at the call instead and passed traced, where it is only array data
    (an argument of a `jax.numpy` function, arithmetic with a traced array),
    whatever the module stores into the list; a field
    of a module-level instance of a dataclass of the module (`CELL.capacity_ah`):
    every module-level binding makes one, the field's value a literal of one
    kind (given by keyword or position, or its default); an attribute of a
    module-level `SimpleNamespace` made with the same keywords each time
    (`PROFILE.half_life_h`), of the kind its keyword's value has; an
    attribute of a module-level instance of a plain class made with no
    arguments (`SETTINGS = Settings()`), whose `__init__` takes only `self`
    and sets each attribute to a literal (`self.gamma = 0.9`), of that
    literal's kind; and the
    function is a module-level `def` jitted by its decorator and in no other
    way, which the module only calls by name (not passed, wrapped or
    rebound), with the global unshadowed at each call. A jitted `def` nested
    in a function (a factory's `_simulate`), which that function only calls
    by name, takes the parameter the same way, and its calls there pass the
    global (a number or an array; a flag gets the advice).

    When another module may call the function (its name does not start with
    `_` and no `__all__` leaves it out: the example above), or a call in this
    module cannot take the new argument (it unpacks `**kwargs`), the
    function keeps its name, signature and docstring as a plain function
    that reads the value on every call and passes it to the jitted body,
    renamed: `def softmax(logits): return _softmax(logits,
    temperature=CONFIG["temperature"])` above `@jax.jit def _softmax(logits,
    *, temperature)`. Callers are not edited. This needs the jit to be the
    function's only decorator and the function not to be `async` or a
    generator. A lambda jitted where it is bound at module level
    (`normalize = jax.jit(lambda x: x * 10 ** (TARGET / 20))`) gets the
    parameter where it stands (`lambda x, *, target: ...`), the same way: a
    private name every use of which is a call here keeps its jit and its
    calls pass the value; a public one is kept as the plain function above.
    Otherwise the fix is display-only advice.

    A read in a helper that the jitted function calls (`def _scaled(x):
    return x * SCALE`, called from `@jax.jit def step(x)`) is passed down the
    same way: the helper gets the keyword-only parameter, the jitted function
    gets it too and passes it at each of its calls of the helper (and of any
    other such helper reading the value), and keeps its name as the plain
    function above. A helper handed to `jax.vmap`, `jax.grad`, `lax.scan` or
    another transform that calls it is handed `partial(_scaled, scale=scale)`
    (the value bound: not mapped, not differentiated), and a helper reached
    through other helpers (`_log_prior` called by `_log_posterior`, which the
    jitted function differentiates) has the value passed down each of them.
    A helper another module may call (`def decayed(x): ...`, public) keeps
    its name and signature as a plain function that reads the value on every
    call and passes it to a renamed copy (`_decayed(x, *, rate)`); the jitted
    code calls the copy, and the module's other uses (eager code) keep calling
    the public name. Only when each helper is a module-level function, every
    use of which in the jitted code is a call or such a transform in the body
    of the one function it serves (not in a lambda or nested function there);
    a public helper must also be a plain `def` (no decorator, not `async`,
    not a generator).

    A function transformed by Haiku (`MODEL = hk.transform(_forward)`, bound
    once at module level, the function used nowhere else) gets the
    parameter the same way, and every call that runs it passes the value:
    `MODEL.apply(...)`, `MODEL.init(...)` and the calls of a module-level
    `predict = jax.jit(MODEL.apply)` (Haiku hands keyword arguments on to the
    function; jit traces them). Only when every such call is seen, none is in
    traced code (the read would be frozen there instead), the jit takes no
    options, and the value is a traced one (a flag stays advice). `__call__`
    of a flax linen Module whose one instance is bound at module level
    (`MODEL = RoofSnowLoad()`, the class named nowhere else) gets it the
    same way, passed by `MODEL.apply(...)`, `MODEL.init(...)` (no
    `method=`) and the calls of `jax.jit(MODEL.apply)`: linen hands keyword
    arguments on to `__call__`.

    The rewrite is UNSAFE: the signature changes, so a caller the analysis
    cannot see breaks -- or, behind the plain function, the public name is no
    longer a jitted function (`softmax.lower(...)` and the other attributes
    of a jitted function are gone, and inside an outer `jax.jit` the value is
    still read once, when that traces); a traced argument is a weakly typed
    int32 / float32 (a Python int past 2**31 overflows), a static one
    compiles once per value; and a value of another kind than the module's
    assignments show (a function stores a string where a number was) fails
    to trace.

    ## References
    - [JAX FAQ: jit changes the behavior of my function](https://docs.jax.dev/en/latest/faq.html)
    - [JAX sharp bits: pure functions](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html)
    """

    code = "JIT101"
    name = "mutable-global-in-traced-code"
    fix_title = "Pass the value to the jitted function as an argument, at every call"

    def check_module(self) -> None:
        """A jitted closure that a module function returns (a factory) and that reads an item or an attribute of
        one of the factory's parameters (``hparams["l2"]``), where code that makes it with a container of its
        own (``objective = make_objective(hparams)``) changes that container (``hparams["l2"] = l2``) and uses
        the jitted function again -- a later use in the order the code runs, or both in one loop: the trace
        kept the value it first read (JAX 0.10.2: an l2 sweep scores every run with the first l2)."""
        index = self.ctx.index
        for entry in index.entries:
            fn = entry.function
            factory = fn.parent
            if not entry.compiles or factory is None \
                    or not isinstance(factory.node, cst.FunctionDef) or factory.parent is not None \
                    or factory.is_method \
                    or not isinstance(fn.node, cst.FunctionDef) or not _returned_wrapper(factory, fn, entry):
                continue
            params = {p.name.value: p for p, kind in factory.params if kind in ("positional", "kwonly", "posonly")}
            reads = {}
            for node in walk(fn.node.body):
                if isinstance(node, (cst.Subscript, cst.Attribute)) and isinstance(node.value, cst.Name) \
                        and node.value.value in params and node.value.value not in fn.local_names \
                        and len(factory.scope.bindings_of(node.value.value)) == 1 \
                        and not isinstance(index.parents.get(id(node)), (cst.AssignTarget, cst.Call)):
                    reads.setdefault(node.value.value, []).append(node)
            if not reads:
                continue
            for call in index.calls_by_name.get(factory.name, ()):
                found = self._changed_after_made(call, factory, reads)
                if found is not None:
                    read, write = found
                    self.report(read, f"`{self.ctx.code(read)}` is read from `{read.value.value}`, a container the "
                                      f"caller of `{factory.name}` changes after making the jitted "
                                      f"`{fn.name}`: the trace keeps the value it first read",
                                Reason(write, "`{code}` (line {line}) changes it, and the jitted function is used "
                                              "again"))
                    break

    def _changed_after_made(self, call: cst.Call, factory: FunctionInfo, reads: dict):
        """The read of ``reads`` whose container the code around ``call`` (``v = factory(d)``) changes
        (``d[k] = ...``, ``d.k = ...``) and then uses ``v`` again; with the write."""
        index = self.ctx.index
        assign = index.parents.get(id(call))
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
                or not isinstance(assign.targets[0].target, cst.Name):
            return None
        scope, cls = index.call_scopes.get(call, (None, None))
        if index.resolve_function(call.func, scope, cls)[0] is not factory:
            return None
        made = assign.targets[0].target.value
        given = {}
        for arg, param in bind_arguments(factory.params, call.args):
            if param is not None and param.name.value in reads and isinstance(arg.value, cst.Name):
                given[arg.value.value] = param.name.value
        if not given:
            return None
        body = scope.node.body if scope is not None else index.module
        events = _run_order_events(body, assign, made, set(given))
        start = next((i for i, e in enumerate(events) if e[0] == "made"), None)
        if start is None:
            return None
        end = next((i for i in range(start + 1, len(events)) if events[i][0] == "rebind"), len(events))
        window = events[start + 1:end]
        make_loops = set(events[start][2])
        uses = [(i, set(loops)) for i, (what, _, loops, _) in enumerate(window) if what == "use"]
        for i, (what, name, loops, node) in enumerate(window):
            if what != "write":
                continue
            # traced before the change and used after it, or changed and used in one loop that the making is
            # outside of (the next iteration runs the trace of the last)
            traced_before = any(j < i for j, _ in uses) and any(j > i for j, _ in uses)
            in_one_loop = any((set(loops) & use_loops) - make_loops for _, use_loops in uses)
            if traced_before or in_one_loop:
                return _same_part(reads[given[name]], node, self.ctx.code), node
        return None

    def visit_Name(self, node: cst.Name) -> None:
        ctx = self.ctx
        if ctx.facts.read_scope.get(node) != "global":
            return
        info = ctx.index.globals.get(node.value)
        if info is None or info.kind != "value":
            return
        if node.value in ctx.function.global_names:
            return  # the write is reported as JIT102
        if not ctx.body.cached:
            return  # traced only by vmap, which traces again on every call: the read is fresh
        if not ctx.body.kept_across_calls:
            return  # traced only by jit wrappers made anew on each call of the function around them
        if self._is_write_context(node) or self._initialisation_test(node) or self._only_shown(node) \
                or self._set_here_first(node) or not ctx.body.outside_initialisation \
                or self._callback_method(node, info):
            return  # (a function that runs only while initialising runs once, eagerly too: it reads once)
        index = ctx.index
        if info.assignments >= 2 and index.rebound_after(node.value, ctx.function):
            why = "it is reassigned in this module"
        elif index.rebound_by_calls(node.value, ctx.function):
            if self._set_at_startup(node.value) or self._set_once_lazily(node):
                return
            why = "it is reassigned in this module"
        elif index.changed_after_import(node.value, ctx.function) and not self._is_dispatch(node) \
                and not index.memo_only(node.value) and not self._changed_only_while_tracing(node.value):
            if self._set_at_startup(node.value) or self._unchanged_attribute(node):
                return
            why = "a function of this module changes it" if not info.mutable_container else \
                "it is a module-level container that a function of this module changes"
        else:
            return  # a lookup table built once at import time is a constant
        self.report(node, f"global `{node.value}` is read inside traced code: its value is frozen when "
                          f"`{ctx.function.label}` is traced ({why})", _why_traced(self), subject=node.value)

    def _set_once_lazily(self, node: cst.Name) -> bool:
        """``G.apply(...)`` where ``G`` is None at import and every function binds it only under ``if G is
        None:`` (``global video_model; if video_model is None: video_model = load()``): it holds one value
        from the moment it is set, and a trace made before that reads None and fails there (an attribute
        or a call of None raises), so every trace that is kept reads that one value.  Not where the reading
        function tests ``G`` against None itself (a trace of its None branch would be kept)."""
        name = node.value
        ctx = self.ctx
        index = ctx.index
        parent = ctx.parent(node)
        if not ((isinstance(parent, cst.Attribute) and parent.value is node)
                or (isinstance(parent, cst.Call) and parent.func is node)):
            return False
        module = [b for b in index.scope_model.module_scope.bindings_of(name) if b.binds_value]
        if len(module) != 1 or not _binds_none(module[0].node, name):
            return False
        for writer in index.global_writers.get(name, ()):
            bindings = [b for b in writer.scope.bindings_of(name) if b.binds_value] if writer.scope else []
            if not bindings or not all(_under_none_guard(b.node, name, index) for b in bindings):
                return False
        fn = ctx.function
        return fn is not None and not any(
            none_test(test) is not None and none_test(test)[0] == name
            for test in _tests_in(fn.node.body))

    def _unchanged_attribute(self, node: cst.Name) -> bool:
        """``PROFILE.body_kg`` where the module's functions only assign other attributes of ``PROFILE``
        (``PROFILE.half_life_h = ...``): this one keeps the value it was made with (not a method called,
        see ``ModuleIndex.attribute_never_assigned``)."""
        parent = self.ctx.parent(node)
        if not isinstance(parent, cst.Attribute) or parent.value is not node:
            return False
        holder = self.ctx.parent(parent)
        if isinstance(holder, cst.Call) and holder.func is parent:
            return False
        return self.ctx.index.attribute_never_assigned(node.value, parent.attr.value)

    def _set_at_startup(self, name: str) -> bool:
        """Every function of this module that changes global ``name`` is called in the project only
        while the program starts (``load_config(FLAGS.config)`` at the top of ``main``, run by ``if
        __name__ == "__main__":``), after nothing that may trace (analysis.startup): a trace can only
        read the value they leave."""
        index = self.ctx.index
        writers = set(index.global_writers.get(name, ())) | set(index.mutated_in_functions.get(name, ())) \
            | set(index.attribute_mutated_in_functions.get(name, ()))
        return bool(writers) and self.ctx.facts.set_at_startup(writers)

    def _set_here_first(self, node: cst.Name) -> bool:
        """``G.attr`` read (or tested, ``hasattr(G, "attr")``, or dropped, ``delattr(G, "attr")``) after
        the function's own ``G.attr = value`` in an earlier statement at the top of its body, or in
        the block of a ``with ctx():`` whose context function of this module does that before it
        yields (a context that puts a fresh object on a thread-local): what is read is what this
        call, in this trace, put there, not state from outside the trace."""
        ctx = self.ctx
        parent = ctx.parent(node)
        attr = None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            attr = parent.attr.value
        elif isinstance(parent, cst.Arg):
            call = ctx.parent(parent)
            if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) \
                    and call.func.value in ("hasattr", "getattr", "delattr") and len(call.args) >= 2 \
                    and call.args[0] is parent:
                attr = string_value(call.args[1].value)
        fn = ctx.function.node
        if not isinstance(attr, str) or not isinstance(fn, cst.FunctionDef):
            return False
        current: Optional[cst.CSTNode] = node
        while current is not None and current is not fn:
            child, current = current, ctx.parent(current)
            if current is fn:  # (the walk gives a statement of the body its function as parent)
                return _assigns_attribute_first(fn, node.value, attr, lambda stmt: stmt is child)
            if isinstance(current, cst.With) and child is current.body:
                for item in current.items:
                    entered = item.item.func if isinstance(item.item, cst.Call) else None
                    callee = ctx.index.functions.get(entered.value) if isinstance(entered, cst.Name) else None
                    if callee is not None and isinstance(callee.node, cst.FunctionDef) and _assigns_attribute_first(
                            callee.node, node.value, attr, lambda stmt: any_node([stmt], _is_yield)):
                        return True
        return False

    def _changed_only_while_tracing(self, name: str) -> bool:
        """Every function that changes global ``name`` sets attributes of it that it sets back in a
        ``finally`` (a scope: ``with suppress_records():`` puts a thread-local depth up and back), is
        traced, and is called only from traced code (around a branch of a ``lax.cond``): the state is
        set and read while the program is built, the same way each time it is built, and a cached
        call neither sets nor reads it."""
        index, bodies = self.ctx.index, self.ctx.facts.bodies
        if index.mutated_in_functions.get(name) or index.global_writers.get(name):
            return False  # items, in-place methods or a rebinding: a change that may outlive the trace
        mutators = index.attribute_mutated_in_functions.get(name, set())
        if not mutators:
            return False
        for fn in mutators:
            if fn not in bodies or fn.cls is not None or fn.parent is not None \
                    or not _restores_attributes(fn.node, name):
                return False
            calls = index.calls_by_name.get(fn.name, [])
            if not calls or any(index.call_scopes.get(call, (None, None))[0] not in bodies for call in calls):
                return False
        return True

    def _initialisation_test(self, node: cst.Name) -> bool:
        """The test of an initialisation guard (``if key not in G:``) in code that itself runs only
        while initialising: it is evaluated once eagerly too, and only decides whether the
        initialisation writes.  (The same test in code run on every call is frozen by the trace:
        eagerly it is asked again at each call.)"""
        ctx = self.ctx
        test = ctx.parent(node)
        if isinstance(test, cst.ComparisonTarget):
            test = ctx.parent(test)  # `key not in G`
        if isinstance(test, cst.Subscript) and test.value is node:
            # `if G[0]: return` / `if not G["ready"]:` -- a latch kept in a module list or dict, that the code
            # after (or under) the test sets True and no function sets otherwise: once set it stays set, so the
            # test only decides whether the one-time initialisation runs, at the first trace as at the first call
            item = test
            test = ctx.parent(test)
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                test = ctx.parent(test)
            guard = test if isinstance(test, cst.If) else None
            if guard is None or not self._latch_only_set_true(item):
                return False
            body = guard.body.body if isinstance(guard.body, cst.IndentedBlock) else []
            holder = ctx.parent(guard)
            block = holder if isinstance(holder, cst.IndentedBlock) else getattr(holder, "body", None)
            siblings = list(block.body) if isinstance(block, cst.IndentedBlock) else []
            after = siblings[siblings.index(guard) + 1:] if guard in siblings else []
            return guard.body in ctx.facts.initialising or any(stmt in ctx.facts.initialising for stmt in after) \
                or any(stmt in ctx.facts.initialising for stmt in body)
        else:
            guard = ctx.parent(test) if isinstance(test, cst.Comparison) else None
        if not (isinstance(guard, cst.If) and guard.test is test and guard.body in ctx.facts.initialising):
            return False
        if not ctx.body.outside_initialisation:
            return True
        # a guard nested in code that itself runs once (after `if key in DONE: return`): asked once too
        current: Optional[cst.CSTNode] = guard
        while current is not None and not isinstance(current, (cst.FunctionDef, cst.Lambda)):
            if current in ctx.facts.initialising:
                return True
            current = ctx.parent(current)
        return False

    def _latch_only_set_true(self, item: cst.Subscript) -> bool:
        """Every store into ``G[...]`` (``item``'s container, a module global) in the module's functions stores
        ``True``, and nothing else changes ``G`` there (no ``clear``, ``pop``, ``del``, no rebinding)."""
        name = item.value.value  # type: ignore[attr-defined]
        index = self.ctx.index
        if index.global_writers.get(name):
            return False
        for fn in index.mutated_in_functions.get(name, set()):
            stores: List[cst.CSTNode] = []

            def note(node: cst.CSTNode) -> bool:
                if isinstance(node, (cst.Assign, cst.AugAssign, cst.Del)) or (
                        isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                        and isinstance(node.func.value, cst.Name) and node.func.value.value == name):
                    stores.append(node)
                return False

            any_node([fn.node], note)
            for store in stores:
                if isinstance(store, cst.Call):
                    return False  # `G.clear()`, `G.append(...)`
                roots = [t.target for t in store.targets] if isinstance(store, cst.Assign) else [store.target]
                for target in (single for root in roots for single in flat_targets(root)):
                    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) \
                            and target.value.value == name and not (
                                isinstance(store, cst.Assign) and isinstance(store.value, cst.Name)
                                and store.value.value == "True"):
                        return False
        return True

    def _only_shown(self, node: cst.Name) -> bool:
        """The read is part of what a host ``print`` or log call shows (``print(f"{G.shape}")``): that
        call runs while JAX traces, each time it traces, and reads the global as it is then; nothing
        of it enters the program that is kept (``jax.debug.print``, staged, is not such a call)."""
        ctx = self.ctx
        current: cst.CSTNode = node
        parent = ctx.parent(current)
        while isinstance(parent, (cst.BaseExpression, cst.Arg, cst.FormattedStringExpression, cst.Element,
                                  cst.DictElement, cst.Index, cst.SubscriptElement, cst.Slice, cst.ComparisonTarget)):
            if isinstance(parent, cst.Call) and current is not parent.func and _host_display(ctx, parent):
                return True
            current, parent = parent, ctx.parent(parent)
        # the test of an `if` that only prints or logs (`if _VERBOSE >= 2: print(msg)`): it decides what the
        # host shows while tracing, and the program kept is the same either way
        return isinstance(parent, cst.If) and current is parent.test and self._only_displays(parent)

    def _only_displays(self, node: cst.If) -> bool:
        """Every statement of the ``if`` (and of its ``elif`` / ``else``) is a host ``print`` or log call that
        shows no traced value (one that does is JIT103's or JIT104's, and its fix, a staged print, would make
        the test decide what the program kept does)."""
        ctx = self.ctx
        branch: Optional[cst.CSTNode] = node
        while branch is not None:
            body = branch.body if isinstance(branch, (cst.If, cst.Else)) else None
            statements = body.body if isinstance(body, cst.IndentedBlock) else \
                [cst.SimpleStatementLine(body=body.body)] if isinstance(body, cst.SimpleStatementSuite) else None
            if not statements or not all(
                    isinstance(stmt, cst.SimpleStatementLine) and all(
                        isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                        and _host_display(ctx, small.value)
                        and not any(ctx.value(arg.value).kind is Kind.TRACED for arg in small.value.args)
                        for small in stmt.body) for stmt in statements):
                return False
            branch = branch.orelse if isinstance(branch, cst.If) else None
        return True

    def _callback_method(self, node: cst.Name, info) -> bool:
        """``jax.debug.callback(G.append, x)``: the trace keeps the method of the object ``G`` is bound
        to, and the host calls it on every run with the values, so what the object holds then counts,
        not what it held while tracing; stale only if ``G`` is bound to another object, which nothing
        does (one module-level binding, no ``global`` write)."""
        ctx = self.ctx
        attribute = ctx.parent(node)
        arg = ctx.parent(attribute) if isinstance(attribute, cst.Attribute) and attribute.value is node else None
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        return isinstance(call, cst.Call) and bool(call.args) and call.args[0] is arg and arg.keyword is None \
            and jax_api.is_callback(ctx.qualify(call.func)) and info.assignments == 1 \
            and node.value not in ctx.index.global_written

    def _is_dispatch(self, node: cst.Name) -> bool:
        """``REGISTRY[key](...)``: a table of functions, filled in to register them."""
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Subscript) and parent.value is node:
            call = self.ctx.parent(parent)
            return isinstance(call, cst.Call) and call.func is parent
        return False

    def _is_write_context(self, node: cst.Name) -> bool:
        parent = self.ctx.parent(node)
        if isinstance(parent, cst.Attribute) and parent.value is node:
            call = self.ctx.parent(parent)
            if isinstance(call, cst.Call) and call.func is parent and parent.attr.value in jax_api.MUTATING_METHODS:
                return True
            if isinstance(call, (cst.AssignTarget, cst.Del)) or (
                    isinstance(call, cst.AugAssign) and call.target is parent):
                return True  # `G.attr = v`: a write to the object (JIT102's), not a read frozen in the trace
        if isinstance(parent, cst.Subscript) and parent.value is node:
            holder = self.ctx.parent(parent)
            if isinstance(holder, (cst.AssignTarget, cst.Del)) or (
                    isinstance(holder, cst.AugAssign) and holder.target is parent):
                return True
        return False


class OuterStateWrite(Rule):
    """## What it does
    Flags writes to state outside the traced function: assignment after
    `global`, item assignment, `del` or in-place methods (`append`,
    `update`, ...) on a module-level or enclosing container, attribute
    assignment on `self` or on a module, a traced value stored in a
    `nonlocal`, and a `nonlocal` counter updated in a jitted function or a
    `lax` body (`n_calls += 1` counts traces, not calls), as is an attribute
    of a module-level object bumped there (`helper.calls += 1`, `STATS.rows
    += x.shape[0]`). Storing a static
    value in a `nonlocal` (`seen_shape = x.shape`) is the usual way to get
    trace-time facts out, and is not flagged. Nor is a traced value stored in
    a `nonlocal` that no one sees: the body binds the name from its carry
    before reading it, every statement of the owner that uses the body binds
    the name again from what it returns (`(regret, total), _ =
    lax.scan(body, (regret, total), ...)`), and no other function there reads
    it. Nor is a counter that the
    function owning it reads only in assertions (`assert n_traces == 1`,
    `self.assertEqual(n_traces, 2)`): a test counting traces on purpose, whose
    assertions say which count they expect. Nor is a lazy initialisation: a
    write of a value that is not traced to a global, in the branch of a test
    that the global is still unset (`if CACHE is None:` whose branch sets
    `CACHE`, `if key not in REGISTRY:` whose branch sets `REGISTRY[key]` (or
    `SEEN.add(key)`; the test may be one conjunct of an `and`), also
    through a function of the module that the branch calls; or written as an
    early return, `if _LOADED: return` / `if key in REGISTRY: return ...`
    (also `if not force and CACHE is not None: return CACHE` where `force` is
    a parameter every call leaves at its false default)
    followed by code that sets `_LOADED` / `REGISTRY[key]`, also inside a
    `with lock:`, or as `impl = CACHE or select()` whose right side sets
    `CACHE`, on every path of an `if`/`else` too), or in a function that
    traced code calls only from such a branch. The branch runs once, on
    the first call, whether the code is run eagerly or traced once and the
    trace kept, so the global ends up the same. The same holds for the entries
    of a memo dict (see JIT101) that are not traced -- a global's, or an
    object's own (`if key in self._emu: return self._emu[key]`, then
    `self._emu[key] = ...`) -- and for dropping its
    entries (`clear()`): a dropped entry is computed again. Nor is a push onto a list or
    deque that the same call pops in a `finally` (`STACK.append(t)` in the
    `try`, or just before it, and `finally: STACK.pop()` or `.pop(-1)`), with no other change
    of it there: on every way out of the call it is as it was, so the pair run
    once per trace is the same as once per call (a context kept while tracing).
    Nor is a global set and written back in a `finally`: set in the `try`, or
    just before it (`old = G; G = size; try: yield; finally: G = old`, a
    context manager's setting entered inside traced code), the `finally`
    writing the same name: the call leaves it as it found it, traced or not.
    Nor is a Python value (not a tracer) stashed in a global that only the
    writing function and the functions nested in it read, none of them before
    the write (`global flag_g; flag_g = flag`, read by a nested loss
    function): the trace reads back what it wrote, and is keyed by the static
    arguments the value comes from, as eager code reads back its own value.
    The same pop in straight-line code is flagged: under jit a conversion error
    can raise between the two where eager code goes on, and the push stays.
    A method whose `self` is a pytree argument of the jit (not static) gets a
    copy of it in the trace, rebuilt from the leaves: writes to its attributes
    that the method hands back (`return self`, or `self` in a returned tuple),
    or that every caller in the module hands back (`a.plus(); return a`),
    are a functional update and are not flagged; writes it does not hand back
    are lost (the caller's object keeps its old value), and are flagged so.
    With `self` static, a write of a value computed from the object and
    constants only (`self.buffer = Buffer(self.size)`, a lambda over `self`
    and locals built that way), never from another argument nor from the
    attribute it replaces, stores an equivalent value on every trace: it is
    not flagged. `self.calls += 1` and `self.mode = mode` are. Nor is a
    tracer stored on `self` by a method traced only through wrappers kept on
    the object (`self._update = jax.pmap(self._m)`) when every call of each
    wrapper is the whole value of an assignment to that attribute
    (`self.counts = self._update(...)`): the caller replaces the tracer as
    soon as the call returns, before anything reads it. A call whose result
    goes elsewhere leaves it there: flagged.

    ## Why is this bad?
    The write happens once, while JAX traces, and what it stores is a tracer.
    After three calls an outer list holds one element, a counter counts traces
    rather than calls, and using the stored value later raises
    `jax.errors.UnexpectedTracerError: Encountered an unexpected tracer.`

    ## Example
    ```python
    import jax

    LOG = []

    @jax.jit
    def step(x):
        y = x * 2
        LOG.append(y)
        return y
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    LOG = []

    @jax.jit
    def step(x):
        return x * 2

    y = step(jnp.arange(3.0))
    LOG.append(y)
    ```

    ## Fix safety
    Four rewrites, UNSAFE. A value appended on every step of a `lax.scan`
    body to a list of the function around it (`out = []`, read only by
    `jnp.stack(out)` after the scan) becomes the scan's per-step output: the
    body returns it where it returned `None` (`return c, y`), the scan's
    result is unpacked into the list's name (`_, out = lax.scan(...)`) and
    `jnp.stack(out)` reads `out`, the array the scan stacks (a scan of
    length 0 gives an empty array where stacking the empty list raised).
    A traced value appended, as a statement of its own,
    to a module-level list bound once and read by no traced code
    (`HISTORY.append(loss)`) moves into a host callback,
    `jax.debug.callback(HISTORY.append, loss)`, which appends the value on
    every call of the compiled function -- also to a list attribute of the
    object a jitted method runs on, bound to a list display by `__init__`
    alone and read by no traced method but by appending, or to a list a
    factory binds once and returns with the jitted function it makes (`seen =
    []`, the factory not traced itself), and with a
    `float()` / `int()` of the value made in the callback
    (`jax.debug.callback(lambda v: self.history.append(float(v)), loss)`,
    which removes the JIT301 of the same line); and a traced value stored on an
    attribute of a module-level object bound once, that no traced code reads
    (`TRACKER.last_grad_norm = gnorm`), is stored from one:
    `jax.debug.callback(lambda value: setattr(TRACKER, "last_grad_norm",
    value), gnorm)` -- as is one stored under a literal key of a module-level
    dict display that no traced code reads (`METRICS["grad_norm"] = gnorm`:
    `METRICS.__setitem__("grad_norm", value)` from the callback). The host
    then gets NumPy arrays, not `jax.Array`s; they
    arrive when the compiled call runs, which may finish after it returns
    (`jax.effects_barrier()` waits for them); under `vmap` one call appends
    or stores the whole batch. A jitted function that opens by updating
    outer state with values of its own -- a call counter (`global CALLS;
    CALLS += 1`, `STATS["forward"] += 1`, a factory's `nonlocal scans;
    scans += 1`), values that read no parameter or local -- keeps its name
    and signature as a plain function that makes the update on every call
    and returns the jitted rest, renamed (`return _forward(x, w)`), where
    the rest does not read what is updated and the jit is the function's
    one decorator: the public name is no longer a jitted function (its
    `lower` and the other attributes of one are gone), and inside an outer
    `jax.jit` the update still runs once per trace. Any other write has no
    automatic fix: the value has to be returned and stored by the caller.

    ## References
    - [JAX sharp bits: pure functions](https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html)
    - [`jax.errors.UnexpectedTracerError`](https://docs.jax.dev/en/latest/errors.html)
    """

    code = "JIT102"
    name = "outer-state-write-in-traced-code"
    fix_title = "Return the value and keep it outside the traced function (or store it from `jax.debug.callback`)"

    def _targets(self, node, targets, value: cst.BaseExpression) -> None:
        if self.ctx.body.abstract_only:
            return  # eval_shape / make_jaxpr: writing results out of the trace is how they are used
        for target in targets:
            if isinstance(target, cst.Name):
                self._check_name_target(target, value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                for name in assigned_names(target):
                    self._check_name_target(name, value)
            elif isinstance(target, (cst.Subscript, cst.Attribute)):
                self._check_container_target(target, value)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._targets(node, [t.target for t in node.targets], node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        fn = self.ctx.function
        if isinstance(target, cst.Name) and target.value in fn.nonlocal_names \
                and (self.ctx.body.boundary or self._owner_untraced(fn, target.value)) \
                and not self.ctx.is_traced(node.value) and not self.ctx.body.abstract_only:
            # a counter or running total in a closure: it counts traces, not calls or steps
            if self._observed_only_by_assertions(fn, target.value):
                return
            self.report(target, f"`{self.ctx.code(node)}` updates nonlocal `{target.value}` once, at trace time, "
                                "not on every call or iteration", _why_traced(self))
            return
        root = target.value if isinstance(target, cst.Attribute) else None
        if isinstance(root, cst.Name) and self._global_object(root) and not self.ctx.is_traced(node.value) \
                and self.ctx.body.cached and self.ctx.body.kept_across_calls and not self.ctx.body.abstract_only \
                and not _initialisation(self):
            # `helper.calls += 1`, `STATS.rows += x.shape[0]` on a module-level object: a running count kept
            # outside the trace grows once per trace, not once per call (the trace is reused)
            self.report(target, f"`{self.ctx.code(node)}` updates an attribute of global `{root.value}` once, at "
                                "trace time, not on every call", _why_traced(self), subject=root.value)
            return
        self._targets(node, [node.target], node.value)

    def _global_object(self, root: cst.Name) -> bool:
        """``root`` reads a module-level object of this module (a function, a class, an instance; not an
        imported module) that no function of the module rebinds."""
        if self.ctx.facts.read_scope.get(root) != "global" or root.value in self.ctx.function.global_names:
            return False
        info = self.ctx.index.globals.get(root.value)
        return info is not None and info.kind != "import" and root.value not in self.ctx.index.global_written

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._targets(node, [node.target], node.value)

    def _owner_untraced(self, fn: FunctionInfo, name: str) -> bool:
        """The function that owns the ``nonlocal`` ``name`` of ``fn`` (a helper traced code calls) is
        not traced itself: the cell outlives the trace (``make_solver``'s ``n_evals``, bumped by its
        ``rhs`` inside a jitted scan), so a write there happens once per trace, not once per call."""
        owner = fn.parent
        while owner is not None and name not in owner.local_names:
            owner = owner.parent
        return owner is not None and owner not in self.ctx.facts.bodies

    def _observed_only_by_assertions(self, fn: FunctionInfo, name: str) -> bool:
        """The function the counter belongs to reads it only in assertions (``assert n_traces == 1``,
        ``self.assertEqual(n_traces, 1)``) and sets it only by plain assignment, the nested functions
        that update it only by ``n += ...``: the code counts traces to check them, and its assertions say
        which count they expect (a trace counter in a test; verified on JAX 0.10.2: 1 after two calls,
        as such a test asserts).  A count read anywhere else (printed, returned) is reported."""
        owner = fn.parent
        while owner is not None and (name not in owner.local_names or name in owner.nonlocal_names):
            owner = owner.parent
        if owner is None:
            return False
        asserted = False
        for ref in name_references(owner.node, name):
            parent = self.ctx.index.parents.get(id(ref))
            if isinstance(parent, cst.NameItem) or (isinstance(parent, cst.AssignTarget) and parent.target is ref):
                continue  # `nonlocal n`, `n = 0`
            if isinstance(parent, cst.AugAssign) and parent.target is ref:
                updater = self.ctx.index.scope_model.scopes.get(self._function_around(parent, owner.node))
                if updater is not None and name in updater.nonlocals:
                    continue
                return False
            if self._in_assertion(ref, owner.node):
                asserted = True
                continue
            return False
        return asserted

    def _function_around(self, node: cst.CSTNode, stop: cst.CSTNode) -> Optional[cst.FunctionDef]:
        while node is not None and node is not stop:
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                return node if isinstance(node, cst.FunctionDef) else None
            node = self.ctx.index.parents.get(id(node))
        return None

    def _in_assertion(self, node: cst.CSTNode, stop: cst.CSTNode) -> bool:
        """``node`` is in an ``assert`` statement, or an argument of an ``assert...`` call."""
        while node is not None and node is not stop:
            if isinstance(node, cst.Assert):
                return True
            if isinstance(node, cst.Call):
                func = node.func
                called = func.attr.value if isinstance(func, cst.Attribute) else (
                    func.value if isinstance(func, cst.Name) else "")
                if called.startswith("assert"):
                    return True
            if isinstance(node, (cst.FunctionDef, cst.Lambda)):
                return False
            node = self.ctx.index.parents.get(id(node))
        return False

    def visit_Del(self, node: cst.Del) -> None:
        targets = [el.value for el in node.target.elements] if isinstance(node.target, (cst.Tuple, cst.List)) \
            else [node.target]
        for target in targets:
            if isinstance(target, cst.Subscript) and not self.ctx.body.abstract_only:
                self._check_container_target(target, target.value)  # `del CACHE[key]`

    def _restored_in_finally(self, name: str) -> bool:
        """The write sits in a ``try`` whose ``finally`` writes the same name back, or in the statement
        just before that ``try`` (``old = G; G = size; try: yield; finally: G = old``, a context manager's
        setting), or in that ``finally`` after such a write: state scoped to the trace, such as a nesting
        depth or a size read while tracing.  The call leaves it as it found it, traced or not."""
        if self.ctx.current is None:
            return False
        for stmt, before, in_cleanup in self.ctx.try_finally_around(self.ctx.current):
            others = [stmt.body] + ([before] if before is not None else []) if in_cleanup else [stmt.finalbody]
            if any(name in names_bound_in(other) for other in others):
                return True
        return False

    def _trace_temporary(self, name: str) -> bool:
        """The global is read only by the function writing it (and the functions nested in it) and by no
        other module statement, function or ``__all__``: a Python value stashed there is read back by the same
        call; under jit the trace writes it and reads it back, keyed by the static arguments the value comes
        from, so each call reads what its own values wrote, as eagerly (a flag from a static argument
        handed to a nested loss function)."""
        index = self.ctx.index
        writer = self.ctx.function.node
        if name in index.globals and index.globals[name].kind != "value" or "__all__" in index.globals:
            return False  # (a module with `__all__` may export it)
        for ref in index.mentions(name):
            parent = index.parents.get(id(ref))
            if isinstance(parent, (cst.AssignTarget, cst.NameItem)):
                continue  # a binding (module-level initial value) or a `global` declaration
            if path_to(writer, ref) is None:
                return False
        # in the writer, no read comes before a write: nothing reads what an earlier call left (a counter's
        # `+= 1`, a warn-once flag's test)
        written = False
        stack: List[cst.CSTNode] = [writer.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Name) and node.value == name:
                parent = index.parents.get(id(node))
                while isinstance(parent, (cst.Element, cst.StarredElement, cst.Tuple, cst.List)):
                    parent = index.parents.get(id(parent))  # (an unpacking target: `a, b = None, None`)
                if isinstance(parent, cst.AssignTarget):
                    written = True
                elif not isinstance(parent, cst.NameItem) and not written:
                    return False
                continue
            stack.extend(reversed(list(iter_children(node))))
        return written

    def _once_flag(self, name: str, value: cst.BaseExpression) -> bool:
        """``G = True`` behind a guard on ``G`` (``if G or ...: return`` before it in the function's
        body, or the write inside ``if not G:``), where the module sets ``G`` to False and nothing sets
        it to anything but True: the guarded block (a one-time warning) runs once per process, on the
        first call eagerly or the first trace under jit, which is the same."""
        if not (isinstance(value, cst.Name) and value.value == "True"):
            return False
        index = self.ctx.index
        # every binding of it: module-level ones False or True, those of the functions that declare it
        # `global` only True (one set back to False makes the guard reopen)
        places = [(stmt, False) for stmt in index.module.body
                  if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef))]
        places += [(writer.node, True) for writer in index.global_writers.get(name, ())]
        for root, in_function in places:
            for node in _walk(root):
                if not isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                    continue
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                if not any(isinstance(t, cst.Name) and t.value == name for t in targets):
                    continue
                given = node.value
                if not (isinstance(node, cst.Assign) and isinstance(given, cst.Name)
                        and given.value in ("True", "False")) or (in_function and given.value == "False"):
                    return False
        fn = self.ctx.function.node
        current = self.ctx.current
        if not isinstance(fn, cst.FunctionDef) or current is None:
            return False

        def reads_flag(test: cst.BaseExpression, negated: bool) -> bool:
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                return reads_flag(test.expression, not negated)
            if isinstance(test, cst.Name):
                return test.value == name and not negated
            if isinstance(test, cst.BooleanOperation):
                want = cst.Or if not negated else cst.And
                return isinstance(test.operator, want) and (reads_flag(test.left, negated)
                                                            or reads_flag(test.right, negated))
            return False

        node, child = self.ctx.parent(current), current
        while node is not None and node is not fn:
            if isinstance(node, cst.If) and child is node.body and reads_flag(node.test, negated=True):
                return True  # `if not G: ... G = True`
            node, child = self.ctx.parent(node), node
        body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
        for stmt in body:
            if path_to(stmt, current) is not None:
                return False
            if isinstance(stmt, cst.If) and reads_flag(stmt.test, negated=False) and stmt.orelse is None and any(
                    isinstance(n, (cst.Return, cst.Raise)) for n in _walk(stmt.body)):
                return True  # `if G or small: return`, then `G = True`
        return False

    def _check_name_target(self, name: cst.Name, value: cst.BaseExpression) -> None:
        fn = self.ctx.function
        if name.value in fn.global_names and self._restored_in_finally(name.value):
            return
        if name.value in fn.global_names and not self.ctx.is_traced(value) and _initialisation(self):
            return  # a lazy default, stored once: eagerly too
        if name.value in fn.global_names and self._once_flag(name.value, value):
            return  # a warn-once flag: its block runs once per process, traced or not
        if name.value in fn.global_names and not self.ctx.is_traced(value) and self._trace_temporary(name.value):
            return  # a Python value stashed for the trace's own reads, as eager code reads it back
        if name.value in fn.global_names:
            self.report(name, f"assignment to global `{name.value}` inside traced code runs once, at trace time"
                              + (", and leaks a tracer" if self.ctx.is_traced(value) else ""), _why_traced(self))
        elif name.value in fn.nonlocal_names and self.ctx.is_traced(value) \
                and (self.ctx.body.boundary or self._owner_untraced(fn, name.value)) \
                and not _overwritten_after_trace(fn, name.value, self.ctx.index.parents):
            # a static value written to a closure cell is the usual way to get trace-time
            # information out of a trace; a traced one is a leaked tracer
            self.report(name, f"assignment of a traced value to nonlocal `{name.value}` leaks a tracer: it runs "
                              "once, at trace time", self.ctx.value(value).reason)

    def _outer(self, root: cst.Name, values) -> Optional[str]:
        """Which outer state ``root`` is, when writing ``values`` to it is a hazard."""
        ctx = self.ctx
        scope = ctx.facts.read_scope.get(root)
        fn = ctx.function
        if root.value in ("self", "cls") and fn.is_method:
            if fn.name in _SETUP_METHODS or ctx.body.allows_attribute_writes or not ctx.body.outer_self:
                return None  # (an object the traced code builds itself is not outer state)
            if fn.cls is not None and self._haiku_module(fn.cls):
                return None  # (a Haiku module is made inside the transformed function: per run, per trace)
            if fn.cls is not None and fn.name in ctx.index.construction_helpers(fn.cls):
                return None  # a private method that runs only while the instance is built: its construction
            params = fn.params
            if params and params[0][0].name.value == root.value:
                if self._functional_update(root):
                    return None
                return f"attributes of `{root.value}`"
            return None
        if scope == "global" and root.value in ctx.index.ref_names:
            return None  # a `jax.new_ref` reference: writing through it inside jit is what it is for
        if scope == "global":
            info = ctx.index.globals.get(root.value)
            if info is not None and info.kind == "import":
                return f"module `{root.value}`"
            return f"global `{root.value}`"
        if scope == "closure" and ctx.body.boundary and any(ctx.is_traced(v) for v in values):
            owner = fn.parent
            while owner is not None and root.value not in owner.local_names:
                owner = owner.parent
            if owner is not None and ctx.index.holds_container(owner, root.value) \
                    and not self._scratch_of(fn, owner, root):
                return f"`{root.value}` of the enclosing function"
        return None

    def _scratch_of(self, fn, owner, root: cst.Name) -> bool:
        """The enclosing function's container is scratch space of this traced function: the enclosing
        function is traced too (each trace makes the container anew) and only makes it (no read of it
        there), and every read of it is in this function, in a
        statement after the one that writes (a statement of the function's own block, run on every
        call): what a trace writes there is read by the same trace, after it is written, and by
        nothing else (``box["v"] = acc * 2``, then a scan body reading ``box["v"]``, in one loop body)."""
        if not isinstance(fn.node, cst.FunctionDef) or not isinstance(fn.node.body, cst.IndentedBlock) \
                or owner not in self.ctx.facts.bodies:
            return False  # (an enclosing function that is not traced: its container outlives every trace)
        block = list(fn.node.body.body)
        writing = next((i for i, stmt in enumerate(block) if path_to(stmt, root)), None)
        if writing is None:
            return False
        parents = self.ctx.index.parents
        for ref in name_references(owner.node.body, root.value):
            holder = parents.get(id(ref))
            if ref is root or isinstance(holder, cst.AssignTarget) or (
                    isinstance(holder, cst.AnnAssign) and holder.target is ref):
                continue  # (the write, or the enclosing function making the container)
            if isinstance(holder, cst.Subscript) and holder.value is ref \
                    and isinstance(parents.get(id(holder)), cst.AssignTarget) and path_to(fn.node, holder):
                continue  # (another item written in this function: `box["a"] = ...` is a write, not a read)
            place = next((i for i, stmt in enumerate(block) if path_to(stmt, ref)), None)
            if place is None or place <= writing:
                return False
        return True

    def _haiku_module(self, cls) -> bool:
        """``cls`` derives from ``haiku.Module``: Haiku builds its instances only inside a function
        ``hk.transform`` runs (it raises elsewhere), so each run, and each trace of it, has its own."""
        index = self.ctx.index
        return any(index.qualify(base) == "haiku.Module" for ancestor in index.ancestors(cls)
                   for base in ancestor.base_nodes if base is not None)

    def _rebuilt_same(self, value: cst.BaseExpression, attr: str) -> bool:
        """The value stored to ``self.<attr>`` is built from the object and constants only, reading no
        attribute that a method changes once the object exists (see idempotence.built_from_self)."""
        fn = self.ctx.function
        if not isinstance(fn.node, cst.FunctionDef):
            return False
        changes = self.ctx.index.changed_after_construction(fn.cls) if fn.cls is not None else {}
        if not changes.get(attr, set()) <= {fn.name}:
            return False  # another method changes it between calls: eagerly the next call rebuilds it
        return built_from_self(fn.scope, value, attr, set(changes) - {attr}, self.ctx.builds_purely)

    def _functional_update(self, root: cst.Name) -> bool:
        """``self`` reached the trace as data (a pytree argument of the jit, not static, not a bound
        method's closure): inside the trace it is a copy that JAX rebuilt from the leaves, so a write
        to its attributes changes that copy only, and a method that returns ``self`` (alone or in a
        tuple) hands the updated copy to its caller: a functional update, as the eager call gives."""
        if self.ctx.value(root).kind is Kind.STATIC:
            return False
        fn = self.ctx.function
        if not isinstance(fn.node, cst.FunctionDef):
            return False
        if _returns_name(fn.node, root.value):
            return True
        return self._returned_by_each_caller(fn)

    def _returned_by_each_caller(self, fn) -> bool:
        """Every call of the method in the module is ``obj.<method>(...)`` in a function that returns
        ``obj`` (alone or in a tuple): the caller hands the updated copy on (jetstream's
        ``a.plus(); return a`` under jit, equal to eager: the result carries the change)."""
        index = self.ctx.index
        memo = self.__dict__.setdefault("_attribute_calls", {})
        if fn.name not in memo:
            memo[fn.name] = _attribute_calls(self.ctx.module, fn.name)
        calls = memo[fn.name]
        if not calls:  # (none, or one a lambda makes)
            return False
        for call in calls:
            receiver = call.func.value
            if not isinstance(receiver, cst.Name):
                return False
            holder = index.parents.get(id(call))
            while holder is not None and not isinstance(holder, (cst.FunctionDef, cst.Lambda)):
                holder = index.parents.get(id(holder))
            if not isinstance(holder, cst.FunctionDef) or not _returns_name(holder, receiver.value):
                return False
        return True

    def _check_container_target(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        root = _root_name(target)
        if root is None:
            return
        if isinstance(target, cst.Attribute) and target.value is root:
            scope = self.ctx.facts.read_scope.get(root)
            info = self.ctx.index.globals.get(root.value)
            is_module = scope == "global" and info is not None and info.kind == "import"
            if scope == "global" and not is_module and self.ctx.is_traced(value) \
                    and root.value not in self.ctx.index.ref_names:
                # a module-level object (`TRACKER.last_grad_norm = gnorm`): the tracer outlives the trace,
                # and reading it after the call raises `UnexpectedTracerError` (JAX 0.10.2)
                self.report(target, f"write of a traced value to an attribute of global `{root.value}` happens "
                                    "once, at trace time, and leaks a tracer", _why_traced(self), subject=root.value)
                return
            if not (root.value in ("self", "cls") or is_module):
                return
        where = self._outer(root, [value])
        if where is not None and where.startswith("global") and not self.ctx.is_traced(value) \
                and (_initialisation(self) or self.ctx.index.memo_only(root.value)):
            return  # an entry of a registry filled in on first use, once: eagerly too
        if where is not None and where.startswith("global") and self.ctx.index.filled_at_import(root.value):
            return  # a table filled while empty, at import: in a trace it is full, and this never runs
        if where is not None and where.startswith("attributes") and not self.ctx.is_traced(value) \
                and _initialisation(self):
            return  # the object's lazy cache (`if self._cache is None:`), filled once with Python values
        if where is not None and where.startswith("attributes") and isinstance(target, cst.Attribute) \
                and target.value is root and not self.ctx.is_traced(value) \
                and not isinstance(self.ctx.current, cst.AugAssign) \
                and isinstance(self.ctx.function.node, cst.FunctionDef) \
                and self._rebuilt_same(value, target.attr.value):
            # stored once per trace instead of once per call, but each time the same value, computed from
            # the object and constants only (`self.buffer = Buffer(self.n)`): nothing is lost
            return
        if where is not None and where.startswith("attributes") and isinstance(target, cst.Attribute) \
                and self._set_back_on_exit(target):
            return  # scratch state of one call: every call, eager or traced, leaves the same constant
        if where is not None and where.startswith("attributes") and isinstance(target, cst.Attribute) \
                and target.value is root and self._local_in_all_but_name(target):
            return  # a local variable spelled as an attribute: no code but this call's own reads it
        if where is not None and where.startswith("attributes") and isinstance(target, cst.Attribute) \
                and target.value is root and root.value == "self" and self._replaced_by_each_call(target.attr.value):
            return  # the caller rebinds the attribute from the call's result: nothing reads what the trace left
        if where is not None and where.startswith("attributes") and self._into_hijax_variable(target, root):
            return  # a flax Variable that is a mutable reference (hijax): the caller's Variable gets the value
        if where is not None and where.startswith("attributes") and self.ctx.value(root).kind is not Kind.STATIC:
            # `self` came in as a pytree argument: the write reaches the trace's copy only
            self.report(target, f"write to {where} changes only the traced copy of `{root.value}` (a pytree "
                                f"argument): the caller's object keeps its old value, where the eager call changes it; "
                                f"return `{root.value}`", _why_traced(self), subject=root.value)
        elif where is not None:
            self.report(target, f"write to {where} inside traced code happens once, at trace time"
                                + (", and stores a tracer" if self.ctx.is_traced(value) else ""),
                        _why_traced(self), subject=root.value)

    def _replaced_by_each_call(self, attr: str) -> bool:
        """The traced method is traced only through wrappers stored on the object (``self.W =
        jax.pmap(self._m)``: the method named nowhere else in the module), and every mention of each
        wrapper is a call that is the whole value of a plain assignment to ``self.<attr>`` (``self.counts =
        self.W(...)``): the tracer the trace stored there is replaced as soon as the call returns, before
        any code reads it (cscg's counts matrix, run on JAX 0.10.2: equal to eager, the attribute a
        concrete array after each call). A call whose result goes elsewhere, or the wrapper passed on,
        leaves the tracer to be read."""
        fn = self.ctx.function
        index = self.ctx.index
        entries = [entry for entry in index.entries if entry.function is fn]
        if fn.cls is None or not entries:
            return False
        wrappers: Set[str] = set()
        sites: Set[int] = set()
        for entry in entries:
            assign = index.parents.get(id(entry.site))
            if not (isinstance(entry.site, cst.Call) and isinstance(assign, cst.Assign) and assign.value is entry.site
                    and len(assign.targets) == 1 and _self_attribute_name(assign.targets[0].target) is not None):
                return False
            wrappers.add(_self_attribute_name(assign.targets[0].target))  # type: ignore[arg-type]
            sites.update(id(arg.value) for arg in entry.site.args)
        mentions = self.__dict__.setdefault("_attribute_mentions", None)
        if mentions is None:
            mentions = {}
            for node in _walk_all(self.ctx.module):
                if isinstance(node, cst.Attribute):
                    mentions.setdefault(node.attr.value, []).append(node)
            self.__dict__["_attribute_mentions"] = mentions
        if any(id(node) not in sites for node in mentions.get(fn.name, ())):
            return False  # the method called or passed on some other way
        for wrapper in wrappers:
            for node in mentions.get(wrapper, ()):
                holder = index.parents.get(id(node))
                if isinstance(holder, cst.AssignTarget):
                    continue  # where it is stored
                statement = index.parents.get(id(holder))
                if not (isinstance(holder, cst.Call) and holder.func is node and isinstance(statement, cst.Assign)
                        and statement.value is holder and len(statement.targets) == 1
                        and _self_attribute_name(statement.targets[0].target) == attr):
                    return False
        return True

    def _into_hijax_variable(self, target: cst.BaseExpression, root: cst.Name) -> bool:
        """``self.count[...] += 1`` / ``self.count.value = v`` where ``self.count`` is a flax nnx Variable of the
        class (bound in its methods to a Variable class, or a subclass of one this module defines) and the
        module turns flax's hijax Variables on (``nnx.var_defaults(hijax=True)``): each Variable is then a
        mutable reference that ``jax.jit`` threads through, and the update reaches the caller's Variable
        (flax 0.12.8, JAX 0.10.2: a counter updated in a jitted call counts 3 after 3 calls; 0 without hijax)."""
        index = self.ctx.index
        memo = self.__dict__.setdefault("_hijax", {})
        if id(index) not in memo:  # (once per module: a scan of its statements)
            memo[id(index)] = _hijax_on(index)
        if not memo[id(index)]:
            return False
        holder = target.value if isinstance(target, (cst.Subscript, cst.Attribute)) else None
        if isinstance(target, cst.Attribute) and target.attr.value != "value":
            return False
        if not (isinstance(holder, cst.Attribute) and holder.value is root):
            return False
        cls = self.ctx.function.cls
        if cls is None:
            return False
        attr = holder.attr.value
        for method in cls.methods.values():
            for small in own_small_statements(method.node):
                for t in small.targets if isinstance(small, cst.Assign) else ():
                    if isinstance(t.target, cst.Attribute) and t.target.attr.value == attr \
                            and isinstance(small.value, cst.Call) and _variable_class(small.value.func, index):
                        return True
        return False

    def _local_in_all_but_name(self, target: cst.Attribute) -> bool:
        """``self.pe = ...`` where the method's first statement that names ``self.pe`` is a plain assignment
        of it in the method's own body (on every path, before any read), and no other code of the module
        names an attribute ``pe`` (no other method, function or class reads or sets it): what the
        attribute holds is read only by the call that wrote it, as a local variable's would be -- the
        tracer left on the object after the trace is read by nothing (LOCA's positional encodings)."""
        fn = self.ctx.function
        node = fn.node
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock) \
                or not node.params.params or target.value.value != node.params.params[0].name.value:
            return False
        attr = target.attr.value
        me = target.value.value

        def names_it(n: cst.CSTNode) -> bool:
            return isinstance(n, cst.Attribute) and n.attr.value == attr and isinstance(n.value, cst.Name) \
                and n.value.value == me

        first = next((stmt for stmt in node.body.body if any_node([stmt], names_it)), None)
        if not (isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1
                and isinstance(first.body[0], cst.Assign) and len(first.body[0].targets) == 1
                and names_it(first.body[0].targets[0].target) and not any_node([first.body[0].value], names_it)):
            return False
        # (another class's `self.pe` is that object's own: a class is unrelated when neither is among the
        # other's bases defined here)
        classes = self.ctx.index.classes
        related = {fn.cls.name} if fn.cls is not None else set()
        grown = True
        while grown:
            grown = False
            for name, info in classes.items():
                if name not in related and (set(info.bases) & related  # a subclass, or a base
                                            or any(name in classes[r].bases for r in related if r in classes)):
                    related.add(name)
                    grown = True
        others = [info.node for name, info in classes.items() if name not in related]

        def elsewhere(n: cst.CSTNode) -> bool:
            if not (isinstance(n, cst.Attribute) and n.attr.value == attr) or path_to(node, n) is not None:
                return False
            return not (isinstance(n.value, cst.Name) and n.value.value == "self"
                        and any(path_to(other, n) is not None for other in others))

        return not any_node([self.ctx.index.module], elsewhere)

    def _set_back_on_exit(self, target: cst.Attribute) -> bool:
        """Scratch state of one call: the value written here does not outlive the call that wrote it,
        so running the write once per trace leaves the object as running it on every call does.
        Either a later statement of the function's own body, run on every path that gets there from
        this write, binds the same attribute to a constant (``self.estimator.damping = damping`` ...
        then ``= None`` before the return: deeperwin's optimizer step) or back to the value it had
        before (``saved = self.model.signals`` first, ``self.model.signals = saved`` last), and
        nothing binds it after that; or the function is a method called only as ``self.method(...)``,
        and every traced function that calls it saves the attribute before the call and binds it
        back after it that way (qiskit-dynamics' ``_set_new_signals``, undone by its caller)."""
        fn = self.ctx.function
        node = fn.node
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
            return False
        text = self.ctx.code(target)
        body = list(node.body.body)
        here = next((i for i, stmt in enumerate(body) if path_to(stmt, target) is not None), None)
        if here is None:
            return False
        if self._bound_back(fn, body, here, text, first=True):
            return True
        root = _root_name(target)
        if fn.cls is None or root is None or not node.params.params or root.value != node.params.params[0].name.value:
            return False
        index = self.ctx.index
        through = index.calls_by_name.get("." + fn.name, ())
        if not through or any(not (isinstance(c.func, cst.Attribute) and isinstance(c.func.value, cst.Name)
                                   and c.func.value.value == root.value) for c in through):
            return False  # called through another object, or stored and called later
        callers = []
        for call in through:
            caller = index.owner_of(call)
            if not isinstance(caller, FunctionInfo):
                return False
            callers.append((call, caller))
        traced = [(call, caller) for call, caller in callers if caller in self.ctx.facts.bodies]
        return bool(traced) and all(self._bound_back_around(caller, call, text) for call, caller in traced)

    def _bound_back_around(self, caller: FunctionInfo, call: cst.Call, text: str) -> bool:
        """A statement of ``caller``'s body, after the one that makes ``call``, binds the attribute
        ``text`` back to the value saved before it (see :meth:`_set_back_on_exit`)."""
        node = caller.node
        if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
            return False
        body = list(node.body.body)
        here = next((i for i, stmt in enumerate(body) if path_to(stmt, call) is not None), None)
        return here is not None and self._bound_back(caller, body, here, text, first=False)

    def _bound_back(self, fn: FunctionInfo, body: Sequence[cst.BaseStatement], here: int, text: str,
                    first: bool) -> bool:
        """From statement ``here`` of ``body`` on, every path reaches a statement that binds the
        attribute ``text`` to a constant (only when ``first``: the write is ``body[here]``'s) or to a
        name bound once, before ``here``, to that attribute's value, and nothing binds it after that."""
        code = self.ctx.code

        def binds(stmt: cst.CSTNode) -> bool:
            return any(isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and any(
                code(t) == text for t in ([x.target for x in n.targets] if isinstance(n, cst.Assign)
                                          else [n.target])) for n in _walk(stmt))

        def single_assign(stmt: cst.CSTNode) -> Optional[cst.Assign]:
            if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
                    and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1:
                return stmt.body[0]
            return None

        saved: Set[str] = set()
        for stmt in body[:here]:
            assign = single_assign(stmt)
            if assign is not None and isinstance(assign.targets[0].target, cst.Name) and code(assign.value) == text \
                    and fn.scope.single_value(assign.targets[0].target.value) is assign.value:
                saved.add(assign.targets[0].target.value)  # (bound there only)
        for r in range(here, len(body)):
            stmt = body[r]
            assign = single_assign(stmt)
            reset = assign is not None and code(assign.targets[0].target) == text and (
                (first and _is_constant(assign.value))
                or (isinstance(assign.value, cst.Name) and assign.value.value in saved))
            if reset and r > here - (1 if first else 0):
                return not any(binds(later) for later in body[r + 1:])
            if r > here and any(isinstance(n, (cst.Return, cst.Raise, cst.Yield)) for n in _walk(stmt)):
                return False
            if r == here and any(isinstance(n, (cst.Return, cst.Yield)) for n in _walk(stmt)):
                return False
        return False

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in jax_api.MUTATING_METHODS:
            return
        if not self._result_unused(node) or self.ctx.body.abstract_only:
            return  # the result is used: a functional update (optax's .update, ...)
        if self.ctx.qualify(func) is not None or isinstance(func.value, cst.Subscript):
            return
        root = _root_name(func.value)
        if root is None:
            return
        if self.ctx.facts.read_scope.get(root) == "global" and func.value is root:
            info = self.ctx.index.globals.get(root.value)
            if info is None or not info.mutable_container:
                return  # a method of some object: it may well be pure
        where = self._outer(root, [a.value for a in node.args])
        traced_arg = any(self.ctx.is_traced(a.value) for a in node.args)
        if where is not None and where.startswith("global") and not traced_arg and (
                _initialisation(self) or self.ctx.index.memo_only(root.value)):
            return  # filled in on first use, once (or a memo's entries dropped): eagerly too
        if where is not None and self._balanced(node, func):
            return  # pushed and popped by the same call on every way out: nothing outlives the call
        if where is not None:
            self.report(node, f"`.{func.attr.value}()` on {where} inside traced code runs once, at trace time"
                              + (", and stores a tracer" if traced_arg else ""), _why_traced(self), subject=root.value)


    def _balanced(self, node: cst.Call, func: cst.Attribute) -> bool:
        """A push onto a container that the same call pops in a ``finally`` (``STACK.append(t)`` in a
        ``try`` or just before it, ``finally: STACK.pop()``), or that pop, when they are the only
        changes of it there: on every way out of the call the container is as it was, so a push
        and pop run once per trace leave it as running them on every call does.  (A pop in
        straight-line code is not enough: under jit a conversion error raises between the two where
        eager code goes on, and the push stays.)"""
        receiver = self.ctx.module.code_for_node(func.value)

        def on_receiver(methods, bare=False):
            # (`pop(-1)` is `pop()`: it takes the element the push put last)
            return lambda n: isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) \
                and n.func.attr.value in methods and not (bare and n.args and not _pops_last(n.args)) \
                and self.ctx.module.code_for_node(n.func.value) == receiver

        changes = on_receiver(jax_api.MUTATING_METHODS)
        for stmt, before, _ in self.ctx.try_finally_around(node):
            for push, pop in _UNDONE_BY.items():
                if func.attr.value in (push, pop) \
                        and count_once([before, stmt.body], changes) == 1 \
                        and count_once([before, stmt.body], on_receiver({push})) == 1 \
                        and count_once([stmt.finalbody], changes) == 1 \
                        and count_once([stmt.finalbody], on_receiver({pop}, bare=True)) == 1:
                    return True
        return False

    def _result_unused(self, node: cst.Call) -> bool:
        """The call is run for its effect (see ``syntax.result_discarded``)."""
        return result_discarded(node, self.ctx.parent, node.func.attr.value in jax_api.NONE_RETURNING_METHODS)


def _pops_last(args: Sequence[cst.Arg]) -> bool:
    """The arguments of ``.pop(-1)``: the last element, as ``.pop()`` takes."""
    if len(args) != 1 or args[0].keyword is not None or args[0].star:
        return False
    value = args[0].value
    return isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus) \
        and isinstance(value.expression, cst.Integer) and value.expression.value == "1"


#: what formatting a tracer with a format spec raises (``object.__format__`` refuses any spec;
#: the class is ``DynamicJaxprTracer`` under ``jax.jit``, another tracer under ``grad`` or ``vmap``)
FORMAT_SPEC_ERROR = "TypeError: unsupported format string passed to ...Tracer.__format__"


def _format_spec_text(parts: Sequence[cst.BaseFormattedStringContent]) -> Optional[str]:
    """The source of an f-string field's format spec, or None when it is empty (``{x}``, ``{x:}``)."""
    text = "".join(p.value if isinstance(p, cst.FormattedStringText) else "{...}" for p in parts)
    return text or None


def _traced_format_spec(ctx: RuleContext, expr: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, str]]:
    """A traced value formatted with a format spec in ``expr`` -- ``f"{loss:.3f}"`` or
    ``"{:.3f}".format(loss)`` -- as (the traced expression, the spec): formatting a tracer
    with a spec raises ``TypeError`` at trace time.  A conversion (``{loss!r:>9}``) formats
    the tracer's text instead, and an empty spec is ``str()``: neither raises."""
    for node in _subexpressions(expr):
        if isinstance(node, cst.FormattedStringExpression) and node.conversion is None \
                and node.format_spec is not None:
            spec = _format_spec_text(node.format_spec)
            if spec is not None and ctx.value(node.expression).kind is Kind.TRACED:
                return node.expression, spec
        if isinstance(node, cst.Call):
            found = _traced_str_format(ctx, node) or _traced_format_builtin(ctx, node)
            if found is not None:
                return found
    return None


def _traced_format_builtin(ctx: RuleContext, call: cst.Call) -> Optional[Tuple[cst.BaseExpression, str]]:
    """``format(x, ".3f")`` with ``x`` traced and a spec that is not empty: the argument and the spec."""
    func = call.func
    if not (isinstance(func, cst.Name) and func.value == "format" and ctx.facts.read_scope.get(func) == "builtin"):
        return None
    args = call.args
    if len(args) != 2 or any(a.keyword is not None or a.star for a in args):
        return None
    spec = args[1].value
    if not isinstance(spec, (cst.SimpleString, cst.ConcatenatedString)):
        return None
    text = spec.evaluated_value
    if not isinstance(text, str) or not text or ctx.value(args[0].value).kind is not Kind.TRACED:
        return None
    return args[0].value, text


#: what a ``%`` conversion does to a tracer: the numeric ones raise while tracing (``%s``, ``%r``
#: and ``%a`` show its text).  ``%f`` and its kin call ``float()``, which needs a concrete value.
PERCENT_ERRORS = {
    **{c: f"TypeError: %{c} format: a real number is required, not ...Tracer" for c in "diu"},
    **{c: f"TypeError: %{c} format: an integer is required, not ...Tracer" for c in "oxX"},
    "c": "TypeError: %c requires int or char",
    **{c: "ConcretizationTypeError" for c in "eEfFgG"},
}
_PERCENT_FIELD = re.compile(r"%(?:\(([^)]*)\))?[#0 +-]*(\*|\d+)?(?:\.(\*|\d*))?[hlL]?(.)", re.S)


def format_error(ctx: RuleContext, expr: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, str, str]]:
    """Formatting in ``expr`` that raises while tracing, as (the traced value, the error JAX
    raises, why in words): a format spec on a tracer (``f"{x:.3f}"``, ``"{:.3f}".format(x)``,
    ``format(x, ".3f")``) or a numeric ``%`` conversion of one (``"%.3f" % x``, ``"%d" % x``)."""
    spec = _traced_format_spec(ctx, expr)
    if spec is not None:
        traced, text = spec
        return traced, FORMAT_SPEC_ERROR, f"traced `{ctx.code(traced)}` cannot take the format spec `:{text}`"
    for node in _subexpressions(expr):
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            found = _traced_percent(ctx, node)
            if found is not None:
                traced, conversion = found
                error = PERCENT_ERRORS[conversion[-1]]
                how = {"ConcretizationTypeError": "calls `float()` on"}.get(
                    error, "needs a number, not" if conversion[-1] in "diu" else "needs an integer, not")
                return traced, error, f"`{conversion}` {how} traced `{ctx.code(traced)}`"
    return None


def _traced_percent(ctx: RuleContext, node: cst.BinaryOperation) -> Optional[Tuple[cst.BaseExpression, str]]:
    """``"...%.3f..." % x`` (or a tuple, or a dict for ``%(name)f``) where a numeric conversion
    takes a traced value: that value and the conversion's text."""
    if not isinstance(node.left, (cst.SimpleString, cst.ConcatenatedString)):
        return None
    template = node.left.evaluated_value
    if not isinstance(template, str):
        return None
    fields = [m for m in _PERCENT_FIELD.finditer(template) if m.group(4) != "%"]
    if any(m.group(2) == "*" or m.group(3) == "*" for m in fields):
        return None  # a `*` width takes an argument too: not followed
    right = node.right
    for position, field in enumerate(fields):
        if field.group(4) not in PERCENT_ERRORS:
            continue
        if field.group(1) is not None:  # %(name)f takes a value of a dict display
            if not isinstance(right, cst.Dict):
                return None
            values = [e.value for e in right.elements if isinstance(e, cst.DictElement)
                      and isinstance(e.key, cst.SimpleString) and e.key.evaluated_value == field.group(1)]
            value = values[-1] if values else None
        elif isinstance(right, cst.Tuple):
            if any(isinstance(e, cst.StarredElement) for e in right.elements):
                return None
            value = right.elements[position].value if position < len(right.elements) else None
        elif len(fields) == 1 and field.group(1) is None:  # one field, one value that is not a tuple display
            value = right
        else:  # a tuple held in a name, say: which value each field takes is not followed
            return None
        if value is not None and ctx.value(value).kind is Kind.TRACED:
            return value, field.group(0)
    return None


def _subexpressions(expr: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``expr`` and the nodes inside it, not entering nested functions."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, cst.Lambda):
            stack.extend(reversed(node.children))


def _traced_str_format(ctx: RuleContext, call: cst.Call) -> Optional[Tuple[cst.BaseExpression, str]]:
    """``"...{:.3f}...".format(x)`` with ``x`` traced: the argument and the spec."""
    import string

    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "format"
            and isinstance(func.value, (cst.SimpleString, cst.ConcatenatedString))):
        return None
    template = func.value.evaluated_value
    if not isinstance(template, str):
        return None
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    auto = 0
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for _, field, spec, conversion in fields:
        if field is None:
            continue
        name = re.split(r"[.\[]", field, maxsplit=1)[0]
        if name == "":
            name, auto = str(auto), auto + 1
        arg = positional[int(name)] if name.isdigit() and int(name) < len(positional) else keywords.get(name)
        if arg is None or conversion is not None or not spec or field not in ("", name):
            continue
        if ctx.value(arg).kind is Kind.TRACED:
            return arg, spec
    return None


class PrintInTracedCode(Rule):
    """## What it does
    Flags `print()` of a traced value inside traced code.

    ## Why is this bad?
    `print` runs while JAX traces, once per compilation, and shows the tracer,
    not the value: three calls print one line, `x is JitTracer(float32[3])`.
    Formatting the tracer with a format spec (`print(f"{x:.3f}")`) or a
    numeric `%` conversion (`print("%.3f" % x)`) is worse: tracing raises
    (`TypeError` / `ConcretizationTypeError`), and the message names the error.

    ## Example
    ```python
    import jax

    @jax.jit
    def f(x):
        print("x is", x)
        return x * 2
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def f(x):
        jax.debug.print("x is {x}", x=x)
        return x * 2
    ```

    Printing only static values (shapes, dtypes) is a documented way to debug
    tracing and is not flagged. Nor is constant text (`print("tracing f")`):
    it runs once per trace, which is what JAX's own tutorials use it to show
    ("Just-in-time compilation"), and there is no tracer in it to mislead.

    ## Fix safety
    `print(...)` -> `jax.debug.print(...)` (arguments formatted with `{!s}`, as
    `print` does) prints on every call, with values, and computes nothing
    differently, under `jax.grad` too. It is SAFE when it is the function's only
    print and each argument is a literal, a traced array, or a value proven
    static (a shape, `len`, a static parameter, a constant, a local bound once
    to one), which is formatted at trace time as `print` formats it; with
    several prints it is UNSAFE, because separate `jax.debug.print` calls are
    not ordered, and so is a value the analysis takes as static only because
    no trace it sees reaches it (a closure of a function jitted elsewhere, an
    unknown library's result): formatted at trace time, it would print a
    tracer's `repr` wherever a caller traces it. A Python number that a
    traced loop of the function rebinds (`while err > tol: n_iter += 1`, a
    `for` over a traced `range`) is passed as a value too (UNSAFE): how
    many times the loop runs is the data's, and the loop's fix carries it
    traced.
    A %-formatted argument (`"loss %.3f" % loss`) becomes fields of the
    format string: `%s` / `%r` `{!s}` / `{!r}`, a float conversion the same
    spec (`{:.3f}`, `{:+8.2e}`: `format` reads it as `%` does), `%%` a percent
    sign; `%d`, a padded `%s` and named conversions get no fix.
    `file=` or `flush=` get no fix. A spread traced row (`print("gas",
    *row)`) gets one field per value where its length is known -- a tuple
    display, or a name the function unpacks into so many names (`n, t, v =
    row`: it ran, so the row has three) -- and is spread into the arguments
    (`jax.debug.print("gas {!s} {!s} {!s}", *row)`); else no fix.

    Layout only, whatever the applicability: a call that would run past the
    project's line length (`line-length`, else flake8's `max-line-length`,
    else ruff's `line-length`, else 88) is broken inside its brackets, and
    the comments of a `print` over several lines stay after the arguments
    they followed; `import jax` is added in its import block, in isort's
    order, when the module lacks it.

    ## References
    - [`jax.debug.print`](https://docs.jax.dev/en/latest/_autosummary/jax.debug.print.html)
    - [Debugging: printing](https://docs.jax.dev/en/latest/debugging/print_breakpoint.html)
    """

    code = "JIT103"
    name = "print-in-traced-code"
    fix_title = "Use `jax.debug.print`"

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value == "print"):
            return
        if self.ctx.facts.read_scope.get(func) != "builtin":
            return
        for arg in node.args:
            value = self.ctx.value(arg.value)
            if value.kind is Kind.TRACED or value.formats_tracer is not None:
                reason = value.reason if value.kind is Kind.TRACED else value.formats_tracer
                raised = format_error(self.ctx, arg.value)
                if raised is not None:
                    traced, error, why = raised
                    self.report(node, f"`print()` of `{self.ctx.code(arg.value)}` raises `{error}` while tracing: "
                                      f"{why}", self.ctx.value(traced).reason or reason)
                    return
                when = "runs once, at trace time, and " if self.ctx.body.cached else ""  # (vmap alone: on each call)
                self.report(node, f"`print()` of traced `{self.ctx.code(arg.value)}` {when}shows a tracer instead of "
                                  "the value", reason)
                return


#: stdlib objects that write to a file or a buffer of the host, and their writing methods: a module-level
#: one written from traced code gets one row, of tracers, per trace
_HOST_WRITERS = frozenset({"csv.writer", "csv.DictWriter", "io.StringIO", "io.BytesIO", "builtins.open", "io.open"})
WRITER_METHODS = frozenset({"write", "writelines", "writerow", "writerows", "writeheader"})


#: the process's own streams, written to
_STREAM_WRITES = frozenset({"sys.stdout.write", "sys.stderr.write", "sys.stdout.writelines", "sys.stderr.writelines"})


def opens_file(call: cst.Call, index, facts) -> bool:
    """``call`` is the builtin ``open(...)`` or ``io.open(...)`` (reported in traced code: the fix of
    ``open(path, "a").write(...)`` moves the statement into a callback)."""
    func = call.func
    if isinstance(func, cst.Name) and facts.read_scope.get(func) == "builtin":
        return func.value == "open"
    return index.qualify(func) in ("builtins.open", "io.open")


def host_write(call: cst.Call, index, facts) -> bool:
    """``call`` is a write to ``sys.stdout`` / ``sys.stderr`` or a writing method of a module-level
    ``csv.writer``, ``io.StringIO`` or open file (``writer.writerow(...)``): what it writes lands on the host (the rule reports it in traced code, the
    fix moves it into a callback)."""
    func = call.func
    if index.qualify(func) in _STREAM_WRITES:
        return True  # `sys.stdout.write(...)`
    if not (isinstance(func, cst.Attribute) and func.attr.value in WRITER_METHODS
            and isinstance(func.value, cst.Name) and facts.read_scope.get(func.value) == "global"):
        return False
    made = index.single_value(func.value.value, None)
    return isinstance(made, cst.Call) and index.qualify(made.func) in _HOST_WRITERS


#: reads of the host's clock: made at trace time, the reading is a constant of the program
_CLOCK_READS = frozenset({"time.time", "time.perf_counter", "time.monotonic", "time.time_ns", "time.process_time",
                          "time.perf_counter_ns", "time.monotonic_ns", "time.process_time_ns",
                          "datetime.datetime.now", "datetime.datetime.today", "datetime.datetime.utcnow",
                          "datetime.date.today"})


def clock_read(qualified: str) -> bool:
    """``qualified`` names a function that reads the host's clock (``time.perf_counter``)."""
    return qualified in _CLOCK_READS


#: words that say a record is about the trace itself: "compiled", "recompiling", "tracing", "retraced"
_TRACE_WORDS = re.compile(r"\b(re)?(compil|trac(e|ed|es|ing)\b)", re.IGNORECASE)


def _string_pieces(expr: cst.BaseExpression) -> Iterator[str]:
    """The literal text of a message: a string, the literal parts of an f-string or of a concatenation."""
    if isinstance(expr, cst.SimpleString):
        yield expr.evaluated_value if isinstance(expr.evaluated_value, str) else ""
    elif isinstance(expr, cst.FormattedString):
        for part in expr.parts:
            if isinstance(part, cst.FormattedStringText):
                yield part.value
    elif isinstance(expr, cst.ConcatenatedString):
        yield from _string_pieces(expr.left)
        yield from _string_pieces(expr.right)


class SideEffectInTracedCode(Rule):
    """## What it does
    Flags Python side effects inside traced code other than `print`: `logging`
    calls, a `warnings.warn` that formats a traced value (it shows a tracer,
    once per trace; a warning of static values is shown once per place by
    Python's default filter, eagerly too, and is not flagged), `open()` for writing and file writes (`Path.write_text` too, and the
    writing methods of a module-level `csv.writer`, `io.StringIO` or open file), `time.*`,
    `datetime.now()`, Python's `random.*`, `numpy.random.*`, draws from a
    module-level host generator (`RNG = np.random.default_rng(0)`), and
    `next()` on an iterator from outside.

    Opening a file to read it (`open(path)`, a literal mode without `w`,
    `a`, `x` or `+`) is not flagged: what it reads becomes a constant of
    the trace, as a module constant does (a data file shipped with the
    package), the same on every call unless something writes the file.

    A logging call is flagged when it logs a traced value (it records a
    tracer, once), and, when it logs static values only (constant text, a
    static parameter), where it is in the function whose trace jit keeps
    (or a lax body): its record is made on the first call only. In a helper
    that function calls it is not: there it says what the helper does while
    the program is built (a converter's `"Converting op %s"`), once per
    trace, as designed. Nor is a record of what a traced value's structure
    is (`x.shape`, `x.dtype`, `batch.keys()`, `len(xs)`, a tree of shapes),
    wherever it is: that is how a trace is inspected (JAX's debugging guide
    prints shapes while tracing), each new trace makes it again, and it is
    complete, since a structure cannot change without a new trace. The same
    holds for a dict's keys (`.items()`), which are never tracers (a JAX
    array is unhashable). Nor is a
    log of static values in a function jitted by a wrapper made on every call
    of the function around it and applied once there (`jax.jit(convert)(w)`):
    each call traces anew, and logs, as eagerly. Nor is an effect of static
    values right before a `raise` in its block (`logger.error("mode %s is
    not implemented", mode); raise NotImplementedError`): the exception
    ends the trace, jit keeps nothing, and each call that takes the path
    traces it again and makes the record, as eagerly. Nor is a record whose
    text says it is about the trace (`"step was recompiled"`, `"Tracing
    decode"`): counting compilations is what it is for.

    An iterator is from outside when no trace around the `next()` call made
    it. One that a jitted function makes (`keys = iter(jax.random.split(rng))`)
    and advances in a function it vmaps is made afresh by each trace, and vmap
    traces again at every call, eagerly too: not flagged. Nor one advanced in
    a `lax.cond` (or `switch`) branch that the function making it runs once
    per trace (not in a Python loop): a lax loop body's `tiles = iter(...)`
    walked while tracing the branch is walked once per run of that trace, as
    eager walks it. Advanced in a scan body, a nested `jax.jit`, or a branch
    given to a cond in a Python loop, whose trace is kept and run again, it is.

    Reading or setting a generator's global state (`np.random.get_state()`,
    `np.random.seed()`, `set_state()`, `random.getstate()` / `setstate()` /
    `seed()`) is flagged too: a read is frozen into the trace, a change made
    once per trace. Not when the same call saves the state and sets it back in
    a `finally` (`old = np.random.get_state()` in the `try` or just before it,
    `finally: np.random.set_state(old)`): on every way out of the call the
    state is as it was, so the save, the restore, and a reseed in the `try`
    after a save made just before it change nothing. A draw in between is
    still flagged: its number is frozen into the trace. A draw after the
    function itself seeds the generator with a literal (`np.random.seed(17)`
    as a statement of its body, not under an `if`, a loop or a `try`, before
    the draw's) is not: every call draws the same numbers, which the trace
    keeps (the seed is still flagged).

    Where the code is traced only by a transform that traces again on every
    call (`jax.vmap` alone), a log line, a clock read or a write of Python
    values (no traced argument) runs on every call, as it does eagerly: not
    flagged. A random draw there is (one number for every element), and so
    is an outer iterator's `next()`. A closure its maker jits and calls at
    once, outside any loop (`jax.jit(initialize)()`), is traced anew and run
    once on every call of the maker: a random draw or a clock read in it is
    made on every call, as eagerly, and is not flagged (jitted once and
    called in a loop there, it is).

    ## Why is this bad?
    They run once, at trace time. A log records a tracer once and nothing on
    later calls; `time.time()` and random draws become constants baked into the
    compiled function (two calls return the same "random" number); an outer
    iterator is advanced once, so a loop body sees the same element every time.
    A message that formats a tracer with a format spec or a numeric `%`
    conversion (`logging.info(f"loss={loss:.3f}")`) is never logged at all:
    building it raises while tracing, and the message names the error.

    ## Example
    ```python
    import jax
    import numpy as np

    @jax.jit
    def noisy(x):
        return x + np.random.normal()
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def noisy(x, key):
        return x + jax.random.normal(key)
    ```

    ## Fix safety
    A logging call (`logging.info(...)`, `logger.warning(...)` on a
    module-level logger or a `logging.LoggerAdapter` of one, `logger.log(level, ...)`) whose result is not used
    moves into `jax.debug.callback`:
    `logger.info("cost %s", jnp.mean(c))` ->
    `jax.debug.callback(lambda mean_c: logger.info("cost %s", mean_c), jnp.mean(c))`.
    The traced values become the lambda's parameters, passed to the
    callback; formatting around them (an f-string, `%`, `str()`,
    `.format()`) moves into the lambda, so an f-string with a format spec
    no longer raises while tracing, and so does a conversion to a Python
    number (`float(price)`: made on the host of the array the callback gets,
    which removes the JIT301 of the same call). A static value that is not a literal
    or a module-level name is bound as a default of the lambda (`i=i`): it
    keeps its Python type and its value at trace time, as the eager call
    saw it (a loop counter is not read after the loop has ended).

    SAFE when every value passed is proven traced, every value bound is
    proven static, and the call is the only print or callback of its
    function. UNSAFE otherwise: a value that may be a Python number
    arrives in the callback as an array, and callbacks are unordered, so
    several records may come out in another order. Either way the record
    is made on every call of the compiled function instead of once per
    trace, and once per element under `vmap`: the point of the fix. No
    fix for `logger.exception` (the callback runs outside the `except`
    block), `{x=}` fields, `*args`, or a call whose result is used.

    A write to `sys.stdout` / `sys.stderr`, or by a module-level
    `csv.writer`, `io.StringIO` or open file, or to a file opened in the
    same statement (`open(LOG, "a").write(f"burst at {i}")`), moves into
    `jax.debug.callback` the same way (UNSAFE: the writer gets the values as
    NumPy arrays, where eager code gave it JAX arrays).

    A `warnings.warn` of a traced value moves into `jax.debug.callback` too
    (UNSAFE: the frame the warning is attributed to, which filters and
    `stacklevel` read, is the callback's).

    A `with open(path, ...) as fh:` block of the traced function's body
    (`open`, or a standard compressor's) that writes traced values moves
    into a local function of those values, run on the host on every call:
    `io_callback(_write_on_host, None, step, loss, ordered=True)` -- when
    the block returns, breaks and yields nothing, nothing after it reads
    what it binds, and every local it reads is proven traced (passed) or
    static (read where the function is made). UNSAFE: the callback gets
    NumPy arrays where eager code had JAX arrays or Python numbers, and an
    ordered callback cannot run under `jax.vmap`.

    Other side effects have no automatic fix: use `io_callback` for I/O,
    and explicit PRNG keys for randomness.

    ## References
    - [`jax.debug.callback`](https://docs.jax.dev/en/latest/_autosummary/jax.debug.callback.html)
    - [External callbacks](https://docs.jax.dev/en/latest/external-callbacks.html)
    - [Pseudorandom numbers](https://docs.jax.dev/en/latest/random-numbers.html)
    """

    code = "JIT104"
    name = "side-effect-in-traced-code"
    fix_title = ("Run it on every call: log from `jax.debug.callback`, do I/O in `io_callback`, draw with a "
                 "`jax.random` key")


    def visit_Call(self, node: cst.Call) -> None:
        found = self._side_effect(node)
        if found is None:
            return
        kind, what = found
        if kind == "clock" and self._reading_unused(node):
            return
        if kind in ("random", "clock") and self._traced_once_per_call():
            return  # a fresh jitted closure traced and run once per call of its maker: drawn on every call
        if not self.ctx.body.cached and kind not in self._SHARED_BY_A_TRACE \
                and not any(self.ctx.value(arg.value).kind is not Kind.STATIC for arg in node.args):
            # traced only where the trace is made again on every call (vmap): a log line, a clock
            # read or a write of Python values runs on every call, as it does eagerly
            return
        for arg in node.args:  # `logging.info(f"{x:.3f}")` never logs: formatting its message raises
            raised = format_error(self.ctx, arg.value)
            if raised is not None:
                traced, error, why = raised
                self.report(node, f"{what} of `{self.ctx.code(arg.value)}` raises `{error}` while tracing: {why}",
                            self.ctx.value(traced).reason or _why_traced(self))
                return
        if kind == "warning":
            # a warning of static values is shown once per place by Python's default filter, eagerly too; one
            # that formats a traced value shows a tracer, once per trace, instead of the value of each call
            shown = next((v for v in (self.ctx.value(arg.value) for arg in node.args)
                          if v.kind is Kind.TRACED or v.formats_tracer is not None), None)
            if shown is not None:
                self.report(node, f"{what} inside traced code shows a tracer instead of the value, once per trace",
                            shown.reason or shown.formats_tracer)
            return
        if kind == "log":
            # a record of a traced value records a tracer; one of static values only is right, and
            # made once per trace: missing on later calls of the function jit keeps the trace of (a
            # progress message of its own), but in a helper it calls it says what the helper does
            # while the program is built (a converter's "Converting op %s"), once per trace as designed;
            # so there a value of unknown kind is not enough (a name read from a configuration's tree,
            # a string an unknown function made): only a value known to be traced is
            values = [self.ctx.value(arg.value) for arg in node.args]
            shown = next((v for v in values if v.kind is Kind.TRACED or v.formats_tracer is not None), None)
            maybe = next((v for v in values if v.kind is Kind.MAYBE), None) if self.ctx.body.keeps_trace else None
            if shown is None and maybe is None:
                if self.ctx.body.keeps_trace and self.ctx.body.kept_across_calls \
                        and not any(self._describes_trace(arg.value) for arg in node.args) \
                        and not self._announces_trace(node) and not self._before_a_raise(node):
                    self.report(node, f"{what} inside traced code runs once, at trace time", _why_traced(self))
                return
            self.report(node, f"{what} inside traced code "
                              + ("runs once, at trace time, and " if self.ctx.body.cached else "")
                              + ("records a tracer" if shown is not None else "may record a tracer")
                              + " instead of the value",
                        (shown.reason or shown.formats_tracer) if shown is not None else _why_traced(self))
            return
        if self._before_a_raise(node) and all(self.ctx.value(arg.value).kind is Kind.STATIC for arg in node.args):
            return
        self.report(node, f"{what} inside traced code runs once, at trace time", _why_traced(self))

    def _traced_once_per_call(self) -> bool:
        """The function is a closure its maker jits and calls at once, outside any loop, and nothing else
        traces (``variables = jax.jit(initialize_model)()`` inside ``get_initial_params``): each call of the
        maker traces it anew and runs that trace once, so a draw or clock read is made on every call, as
        eagerly (JAX 0.10.2: two calls give two draws)."""
        body, fn = self.ctx.body, self.ctx.function
        if body is None or body.kept_across_calls or fn is None or fn.parent is None:
            return False
        index = self.ctx.index
        entries = [e for e in index.entries if e.function is fn]
        if not entries:
            return False
        for entry in entries:
            site = entry.site
            call = index.parents.get(id(site)) if isinstance(site, cst.Call) else None
            if not (isinstance(call, cst.Call) and call.func is site) or index.loops_of.get(site) \
                    or index.loops_of.get(call) or site in index.per_element:
                return False
        return True

    def _announces_trace(self, node: cst.Call) -> bool:
        """The record's own text says it is made while the function is traced or compiled (``"step was
        recompiled"``, ``"Tracing the loss"``, ``"compiling for shape %s"``): made once per trace is its
        purpose, a count of compilations (JAX 0.10.2: 2 records for 2 compilations in 10 calls)."""
        for arg in node.args:
            for piece in _string_pieces(arg.value):
                if _TRACE_WORDS.search(piece):
                    return True
        return False

    def _before_a_raise(self, node: cst.Call) -> bool:
        """The call's statement is followed, in its block, by simple statements only, the last a ``raise``
        (``logger.error("unknown mode %s", mode); raise ValueError(mode)``): a trace that reaches it ends in
        the exception, so jit keeps nothing, and every call that takes that path traces it again -- the
        effect runs on each, as it does eagerly (JAX 0.10.2: the record is made on every failing call)."""
        parents = self.ctx.index.parents
        stmt: Optional[cst.CSTNode] = node
        while stmt is not None and not isinstance(stmt, cst.SimpleStatementLine):
            if isinstance(stmt, (cst.BaseCompoundStatement, cst.Lambda)):
                return False
            stmt = parents.get(id(stmt))
        block = parents.get(id(stmt)) if stmt is not None else None
        if not isinstance(block, (cst.IndentedBlock, cst.Module)):
            return False
        body = list(block.body)
        rest = body[body.index(stmt):]
        if not all(isinstance(line, cst.SimpleStatementLine) for line in rest):
            return False
        small = [small for line in rest for small in line.body]
        return isinstance(small[-1], cst.Raise) and not any(
            isinstance(s, (cst.Return, cst.Break, cst.Continue)) for s in small)

    _STRUCTURE_CALLS = frozenset({"len", "shape", "ndim", "tree_structure", "tree_flatten", "keys"})

    def _describes_trace(self, expr: cst.CSTNode, depth: int = 0) -> bool:
        """Whether ``expr`` reads a static part of a value the trace has -- its structure (``x.shape``,
        ``batch.keys()``, ``len(xs)``, ``jax.tree.map(jnp.shape, params)``) or a static field of it
        (``mask.mask_fn``), also through a local bound to one (``B, S = x.shape``): a record of it says
        what was traced, made again by every new trace -- what printing shapes while tracing shows, as
        JAX's debugging guide does -- and complete, as that part cannot change without a new trace."""
        value = self.ctx.value
        stack = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Attribute) and value(node.value).kind is not Kind.STATIC \
                    and value(node).kind is Kind.STATIC:
                return True
            if isinstance(node, cst.Call):
                func = node.func
                name = func.value if isinstance(func, cst.Name) else func.attr.value \
                    if isinstance(func, cst.Attribute) else None
                given = [arg.value for arg in node.args] + ([func.value] if isinstance(func, cst.Attribute) else [])
                if name in self._STRUCTURE_CALLS and any(value(v).kind is not Kind.STATIC for v in given):
                    return True  # (`len(xs)`, `batch.keys()`)
                if any(isinstance(arg.value, cst.Attribute) and arg.value.attr.value == "shape"
                       for arg in node.args) and any(value(arg.value).kind is not Kind.STATIC for arg in node.args):
                    return True  # `jax.tree.map(jnp.shape, tree)`
                # (a method called is no part of the value: `bias.value()` is what the call gives)
                stack.extend(arg.value for arg in node.args)
                if isinstance(func, cst.Attribute):
                    stack.append(func.value)
                continue
            if isinstance(node, cst.Name) and depth < 2 and value(node).kind is Kind.STATIC:
                bound = self._local_values(node.value)
                if bound and all(self._describes_trace(v, depth + 1) for v in bound):
                    return True  # `B, S, M = x.shape`, then `B`
            stack.extend(iter_children(node))
        return False

    def _local_values(self, name: str) -> List[cst.CSTNode]:
        """The values the function's own assignments give ``name`` (empty when another binding gives it one)."""
        scope = self.ctx.function.scope
        out: List[cst.CSTNode] = []
        for binding in scope.bindings_of(name) if scope is not None and scope.is_local(name) else ():
            holder = binding.node
            given = binding.value if binding.value is not None else (
                holder.value if isinstance(holder, cst.Assign) else None)
            if given is None:
                return []
            out.append(given)
        return out

    def _reading_unused(self, node: cst.Call) -> bool:
        """``start = time.time()`` (a clock read, not ``sleep``) whose name nothing the trace runs
        reads: only a branch ruled out in every traced context (``if verbose:`` with ``verbose``
        False there), or nothing at all.  The frozen reading is a constant no one uses."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value.startswith("sleep"):
            return False
        assign = self.ctx.parent(node)
        if not (isinstance(assign, cst.Assign) and assign.value is node and len(assign.targets) == 1
                and isinstance(assign.targets[0].target, cst.Name)):
            return False
        target = assign.targets[0].target
        fn = self.ctx.body.function
        if target.value in fn.global_names or target.value in fn.nonlocal_names:
            return False  # a global or closure variable: read elsewhere too
        parents, facts, root = self.ctx.index.parents, self.ctx.facts, fn.node
        for ref in name_references(root.body, target.value):
            if ref is target or isinstance(parents.get(id(ref)), cst.AssignTarget):
                continue  # (this binding, or another one: `t0 = time.time()` in each branch)
            holder: Optional[cst.CSTNode] = ref
            while holder is not None and holder is not root and not facts.is_dead(holder):
                holder = parents.get(id(holder))
            if holder is None or holder is root:
                return False  # read where it runs
        return True

    #: effects a trace made again on every call still gets wrong: one random number (or one advance of
    #: an outer iterator) that all the elements of a vmap then share; any other effect (a log line, a
    #: clock read, a write) it makes on every call, as eagerly
    _SHARED_BY_A_TRACE = frozenset({"random", "iterator"})

    def _side_effect(self, node: cst.Call) -> Optional[Tuple[str, str]]:
        """The kind of host-side effect ``node`` makes (``log``, ``clock``, ``random``, ``io``,
        ``iterator``) and how the message names it; None for no effect."""
        ctx = self.ctx
        func = node.func
        q = ctx.qualify(func)
        if q is not None:
            head, _, tail = q.rpartition(".")
            if head in ("logging", "absl.logging") and tail in jax_api.LOGGER_METHODS:
                return "log", f"`{ctx.code(func)}()`"
            if q == "warnings.warn":
                return "warning", f"`{ctx.code(func)}()`"
            if clock_read(q) or q == "time.sleep":
                return "clock", f"`{ctx.code(func)}()`"
            if q in _RNG_STATE_READS or q in _RNG_STATE_WRITES:
                if self._state_restored(node, q):
                    return None  # saved and restored by the same call: nothing outlives it
                what = "read of" if q in _RNG_STATE_READS else "change of"
                return "random", f"{what} the global random state `{ctx.code(func)}()`"
            if q in _SEEDED_GENERATORS and _literal_seed(node, ctx.qualify):
                return None  # `np.random.default_rng(10)`: the same draws on every call, traced or not
            if head == "random" or q.startswith("numpy.random."):
                if self._reseeded_before(node, head):
                    return None  # the same numbers on every call: drawn once in the trace, they are what eager gives
                return "random", f"random draw `{ctx.code(func)}()`"
            if q in ("builtins.open", "io.open") and _opens_for_reading(node):
                return None
            if q in ("sys.stdout.write", "sys.stderr.write", "builtins.open", "io.open"):
                return "io", f"`{ctx.code(func)}()`"
            return None
        if isinstance(func, cst.Name):
            if ctx.facts.read_scope.get(func) != "builtin":
                return None
            if func.value == "open" and _opens_for_reading(node):
                return None
            if func.value in ("open", "input"):
                return "io", f"`{func.value}()`"
            if func.value == "next" and node.args and isinstance(node.args[0].value, cst.Name):
                arg = node.args[0].value
                scope = ctx.facts.read_scope.get(arg)
                made = self._made_in_traced_code(arg.value) if scope == "closure" else None
                if scope == "global" or (scope == "closure" and ctx.body.boundary and made != "branch" and (
                        ctx.body.keeps_trace or made is None)):
                    return "iterator", f"`next()` on outer iterator `{arg.value}`"
            return None
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                and func.value.value in ctx.index.host_rng_names and ctx.facts.read_scope.get(func.value) == "global":
            return "random", f"random draw `{ctx.code(func)}()` from a host generator"
        if isinstance(func, cst.Attribute) and func.attr.value in ("write_text", "write_bytes") \
                and isinstance(ctx.parent(node), cst.Expr):
            return "io", f"file write `{ctx.code(func)}()`"
        if host_write(node, ctx.index, ctx.facts):
            return "io", f"write `{ctx.code(func)}()` to the host object `{func.value.value}`"  # type: ignore
        if isinstance(func, cst.Attribute) and func.attr.value in jax_api.LOGGER_METHODS:
            receiver = func.value
            if isinstance(receiver, cst.Name) and receiver.value in ctx.index.logger_names \
                    and ctx.facts.read_scope.get(receiver) == "global":
                return "log", f"logging call `{ctx.code(func)}()`"
            tail = receiver.attr.value if isinstance(receiver, cst.Attribute) else getattr(receiver, "value", "")
            if isinstance(tail, str) and "logger" in tail.lower():
                return "log", f"logging call `{ctx.code(func)}()`"
        return None


    def _reseeded_before(self, node: cst.Call, module: str) -> bool:
        """A draw from a global generator (``np.random.randn(n, 3)``) after the function itself seeded it with a
        literal (``np.random.seed(17)``, a statement of its body -- not under an ``if``, a loop or a ``try`` --
        before the one holding the draw): every call draws the same numbers, so the constant a trace keeps is
        what each eager call computes (nbody-jax's fixed initial positions, JAX 0.10.2: jit equals eager).
        The seed itself is still reported: it sets the generator once per trace, not on every call."""
        fn = self.ctx.function
        body = fn.node.body if isinstance(fn.node, cst.FunctionDef) else None
        if not isinstance(body, cst.IndentedBlock):
            return False
        parents = self.ctx.index.parents
        holder: Optional[cst.CSTNode] = node
        while holder is not None and parents.get(id(holder)) is not body:
            holder = parents.get(id(holder))
        if holder is None:
            return False
        for stmt in body.body:
            if stmt is holder:
                return False
            if isinstance(stmt, cst.SimpleStatementLine) and any(
                    isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                    and self.ctx.qualify(small.value.func) == f"{module}.seed" and len(small.value.args) == 1
                    and isinstance(small.value.args[0].value, cst.Integer) for small in stmt.body):
                return True
        return False

    def _state_restored(self, node: cst.Call, q: str) -> bool:
        """A host generator's global state saved and restored by the same call in a ``finally``
        (``old = np.random.get_state()`` in a ``try`` or just before it, ``finally:
        np.random.set_state(old)``): the save, the restore, and a reseed in the ``try`` body
        after a save made just before it.  On every way out of the call the state is as it was,
        so doing it once per trace is the same as on every call.  (A draw in between is still a
        draw: its number is frozen into the trace.)"""
        ctx = self.ctx
        module = q.rpartition(".")[0]
        for read, write in _RNG_STATE_RESTORED_BY.items():
            if read.rpartition(".")[0] != module:
                continue  # another generator's state

            def saves(name: Optional[str], read=read):
                return lambda n: isinstance(n, cst.Assign) and isinstance(n.value, cst.Call) \
                    and ctx.qualify(n.value.func) == read and _assigned_name(n) is not None \
                    and name in (None, _assigned_name(n))

            def restores(name: Optional[str], write=write):
                return lambda n: isinstance(n, cst.Call) and ctx.qualify(n.func) == write and len(n.args) == 1 \
                    and n.args[0].keyword is None and not n.args[0].star and isinstance(n.args[0].value, cst.Name) \
                    and name in (None, n.args[0].value.value)

            for stmt, before, in_cleanup in ctx.try_finally_around(node):
                if in_cleanup:  # the restore of a state saved in the try, or just before it
                    if q == write and restores(None)(node) \
                            and count_once([before, stmt.body], saves(node.args[0].value.value)):
                        return True
                elif q == read:  # the save
                    saved = _saved_name(node, ctx)
                    if saved is not None and count_once([stmt.finalbody], restores(saved)):
                        return True
                elif isinstance(before, cst.SimpleStatementLine) and ctx.statement_of(node) is not before:
                    # a change in the try body, after a save made just before the try
                    names = [_assigned_name(small) for small in before.body if saves(None)(small)]
                    if any(count_once([stmt.finalbody], restores(name)) for name in names):
                        return True
        return False

    def _made_in_traced_code(self, name: str) -> Optional[str]:
        """Where the closure variable ``name`` is made afresh: ``"traced"`` -- bound in a function that
        is itself traced (``keys = iter(split(rng))`` in a jitted function, ``next(keys)`` in what it
        vmaps); ``"branch"`` -- so, and this body is a ``lax.cond`` branch that function runs once per
        trace (``tiles = iter(...)`` in a lax loop body): each trace of that function makes a new
        iterator and walks it while tracing, as the trace the branch is part of is made; ``"applier"`` --
        bound in the function that applies the transform: under vmap alone (traced again at every call,
        eagerly too) ``next()`` then runs once per iterator, as it does eagerly.  None otherwise."""
        ctx = self.ctx
        fn = ctx.function.parent
        while fn is not None and name not in fn.local_names:
            fn = fn.parent
        if fn is None:
            return None
        entries = [e for e in ctx.index.entries if e.function is ctx.function]
        if fn in ctx.facts.bodies:
            # a branch of a lax.cond (or switch) that the function making the iterator runs once per trace
            # of its own runs at most once each time that trace runs: walked while tracing, the iterator
            # gives what eager gives (a loop body, or a jit called again, runs its one trace many times)
            branches = entries and all(
                isinstance(e.site, cst.Call) and ctx.index.qualify(e.site.func) in _BRANCHING and e.scope is fn
                and e.site not in ctx.index.calls_in_loops and e.site not in ctx.index.per_element for e in entries)
            return "branch" if branches else "traced"
        return "applier" if entries and all(e.scope is fn for e in entries) else None


#: lax functions that run one of the functions they are given, once per call
_BRANCHING = frozenset({"jax.lax.cond", "jax.lax.switch"})


def _assigns_attribute_first(fn: cst.FunctionDef, name: str, attr: str, until: Callable[[cst.CSTNode], bool]) -> bool:
    """A statement at the top of ``fn``'s body, before the first that ``until`` accepts, is ``name.attr =
    value``."""
    if not isinstance(fn.body, cst.IndentedBlock):
        return False
    for stmt in fn.body.body:
        if until(stmt):
            return False
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(small, cst.Assign) and any(
                    isinstance(t.target, cst.Attribute) and isinstance(t.target.value, cst.Name)
                    and t.target.value.value == name and t.target.attr.value == attr for t in small.targets)
                for small in stmt.body):
            return True
    return False


def _is_yield(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Yield)


def _restores_attributes(fn: cst.CSTNode, name: str) -> bool:
    """Every attribute of global ``name`` that ``fn`` assigns is assigned again in a ``finally`` of it."""
    assigned: Set[str] = set()
    restored: Set[str] = set()
    stack: List[Tuple[cst.CSTNode, bool]] = [(fn, False)]
    while stack:
        node, in_finally = stack.pop()
        if isinstance(node, (cst.Assign, cst.AugAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                        and target.value.value == name:
                    (restored if in_finally and isinstance(node, cst.Assign) else assigned).add(target.attr.value)
        for child in iter_children(node):
            stack.append((child, in_finally or isinstance(node, cst.Finally)))
    return bool(assigned) and assigned <= restored


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and the nodes under it, not those of the functions, lambdas and classes it defines."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        yield item
        if item is node or not isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(iter_children(item))


def _is_constant(value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.Integer, cst.Float, cst.SimpleString)) or (
        isinstance(value, cst.Name) and value.value in ("None", "True", "False"))


def _opens_for_reading(call: cst.Call) -> bool:
    """``open(path)`` / ``open(path, "rb")``: a mode, when given, that is a literal without ``w``,
    ``a``, ``x`` or ``+``.  What it reads while tracing becomes a constant of the trace, as a module
    constant does: the same on every call unless something writes the file, which the analysis
    cannot see (a write is flagged where it is made, in traced code)."""
    mode = call_argument(call, 1, "mode")
    if mode is None:
        return not any(arg.star for arg in call.args)
    text = string_value(mode.value)
    return text is not None and not any(letter in text for letter in "wax+")


#: the update methods of JAX's ``x.at[i]``: each returns a new array
_AT_UPDATES = ("set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply")


def _stores_by_its_own_method(value) -> bool:
    """``value`` is an instance of a class of the checked code that defines ``__setitem__`` itself (or a base
    class of its module does): ``x[i] = v`` calls that method (jorbit's ``DoubleDouble`` updates its arrays
    with ``.at[i].set`` there), which is analysed as the code it is."""
    cls = value.pytree_class
    if cls is None:
        return False
    for definition in (cls, *cls.imported_bases()):
        info = definition.index.classes.get(definition.name)
        if info is not None and definition.index.find_method(info, "__setitem__") is not None:
            return True
    return False


class InPlaceArrayUpdate(Rule):
    """## What it does
    Flags item assignment on a JAX array: `x[i] = v`, `x[i] += v`, where `x`
    is known to be a JAX array (made by `jnp` / `lax`, or annotated as one).
    A parameter that may be a dict or list pytree is not flagged: item
    assignment is legal on those; nor is an instance of a class of the
    checked code that defines `__setitem__` (a pytree that updates its
    arrays with `.at` there): the store is that method's code.

    Also flags, anywhere in the module (traced or not), an `.at[...]` update
    whose result is thrown away: `x.at[i].add(v)` as a statement of its own
    returns the updated array and leaves `x` as it was, silently; and so does
    `x.sort()` (in place for a NumPy array, a sorted copy for a JAX one), where
    `x` is bound only to arrays JAX makes, or is a traced value where the
    statement runs (a jitted function's argument, also when it is bound again
    later; no Pallas kernel body is analysed as traced code, so a kernel's
    refs, which take writes in place, are not).

    ## Why is this bad?
    JAX arrays are immutable, under jit and eagerly: `TypeError: JAX arrays
    are immutable and do not support in-place item assignment. Instead of
    x[idx] = y, use x = x.at[idx].set(y)`. A discarded `x.at[idx].set(y)`
    raises nothing: the update is lost (measured on JAX 0.10.2: the array is
    unchanged after five such statements, eagerly and under jit); one in a block that asserts the
    block raises (`with pytest.raises(...)`, `self.assertRaises(...)`, NumPy's `assert_raises`) is there
    to raise and is not reported; nor is one on a local array that nothing reads again but other dropped
    `.at[...]` calls (a smoke test's `x.at[2].add(v)`, a notebook cell showing `q.at[2].add(v)`):
    nothing can see the array unchanged. Under `jax.disable_jit()` with a
    NumPy input the same code silently mutates the caller's array. Where the
    index is a traced boolean mask, `x.at[mask].set(v)` fails under jit as well
    (`NonConcreteBooleanIndexError`): the message then advises
    `jnp.where(mask, v, x)`, and JIT401 offers that rewrite.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        y = jnp.zeros(3)
        y[0] = x
        return y
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        y = jnp.zeros(3)
        y = y.at[0].set(x)
        return y
    ```

    ## Fix safety
    `x[i] = v` becomes `x = x.at[i].set(v)`, `x[i] += v` `x = x.at[i].add(v)`
    (`-=`, `*=`, `/=`, `**=`: `subtract`, `multiply`, `divide`, `power`),
    the index kept as written (but a list of positions, `x[[0, -1]] = v`,
    which `.at` takes only as an array: `x.at[jnp.array([0, -1])]`), where
    `x` is a parameter or a local of the function; items stored by one tuple assignment, `x[0], x[1:] = a, b`,
    become one chain, `x = x.at[0].set(a).at[1:].set(b)` (the values read
    the old `x`, as Python's right-hand side did); a dropped
    `x.at[i].set(v)` (or `x.sort()`) statement becomes
    `x = x.at[i].set(v)`. A boolean mask is left to JIT401's `jnp.where`
    rewrite (`.at[mask]` fails under jit too). Only where `x` is an array by
    evidence (made by JAX or NumPy) or every index is one an array takes (a
    slice, an int, a list of ints, a `range` loop's index, a traced array): a key of unknown
    type (`variables[NON_TRAINABLE]`, a constant of another package) may be a
    dict's, whose `.at` raises, so the fix is display-only there. UNSAFE: the name is bound to
    a new array, where NumPy's in-place write also changed every other name
    bound to the same array (the caller's, for a parameter); the code as
    written raised under jit (a dropped update changed nothing). Where a call
    seen passes the parameter a name its caller reads after the call
    (`mark_hits(grid, ...)`, then `return grid`), the caller relies on the
    in-place change, which no rewrite in the function can make: advice only
    (return the updated array and have the callers use it).

    ## References
    - [`jax.numpy.ndarray.at`](https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html)
    """

    code = "JIT105"
    name = "in-place-array-update"
    fix_title = "Write `x = x.at[i].set(v)` (`.add`, `.multiply`, ... for `+=`, `*=`, ...)"

    def _string_key(self, target: cst.Subscript) -> bool:
        """An index of ``target`` is a string (a literal, or a name whose one value is one): only a
        mapping takes it (a JAX array raises on any string index), whatever the analysis knew of the
        container (a pytree of variables copied from a traced state, `mdl_vars[NON_TRAINABLE] = ...`)."""
        for element in target.slice:
            index = element.slice
            if not isinstance(index, cst.Index):
                continue
            if isinstance(index.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                return True
            known = self.ctx.value(index.value)
            if known.known and isinstance(known.const, str):
                return True
            if isinstance(index.value, cst.Name) and self.ctx.facts.read_scope.get(index.value) == "global":
                value = self.ctx.index.single_value(index.value.value, None)  # a module constant
                if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
                    return True
        return False

    def _check(self, target: cst.BaseExpression, value: Callable[[], str]) -> None:
        """``target[...] = value()``, the new value's text made only for a report."""
        if not isinstance(target, cst.Subscript):
            return
        ctx = self.ctx
        if self._string_key(target):
            return  # `d["params"] = ...`: an array has no string index, so this stores into a dict
        base = ctx.value(target.value)
        if base.ref:
            return  # `out_ref[...] = v`: a write into a JAX array reference, which is what it is for
        if _stores_by_its_own_method(base):
            return  # an object of a class that defines `__setitem__`: the store is its code's (an `.at` update)
        if base.kind is Kind.TRACED and not base.container and (base.traced_array or (
                not base.mapping and base.items is None
                and (_array_index(target) or self._read_as_array(target.value)))):
            array = ctx.code(target.value)
            mask = next((e.slice.value for e in target.slice
                         if isinstance(e.slice, cst.Index) and ctx.traced_mask(e.slice.value)), None)
            if mask is not None:
                # `.at[mask].set(v)` raises NonConcreteBooleanIndexError under jit: select instead
                advice = f"use `jnp.where({ctx.code(mask)}, {value()}, {array})` (`.at[...]` with a traced " \
                         "boolean mask fails under jit)"
            else:
                advice = "use `.at[...].set(...)`"
            self.report(target, f"in-place update of JAX array `{array}`: arrays are immutable; {advice}",
                        base.reason)

    def visit_Assign(self, node: cst.Assign) -> None:
        for t in node.targets:
            if isinstance(t.target, (cst.Tuple, cst.List)):
                # `n[0], n[1:] = births, survivors`: each item of the target is stored in turn
                values = node.value.elements if isinstance(node.value, (cst.Tuple, cst.List)) \
                    and len(node.value.elements) == len(t.target.elements) else None
                for i, el in enumerate(t.target.elements):
                    shown = values[i].value if values is not None else node.value
                    self._check(el.value, lambda shown=shown: self.ctx.code(shown, 24))
                continue
            self._check(t.target, lambda: self.ctx.code(node.value, 24))

    def _read_as_array(self, base: cst.BaseExpression) -> bool:
        """``base`` is a name the function also reads as an array (``h, w = grid.shape``, ``x.dtype``,
        ``x.ndim``): no list or dict has those attributes."""
        fn = self.ctx.function
        if not isinstance(base, cst.Name) or fn is None or not isinstance(fn.node, cst.FunctionDef):
            return False
        parents = self.ctx.index.parents  # (the whole module's: the read may come after the write)
        for ref in name_references(fn.node.body, base.value):
            parent = parents.get(id(ref))
            if isinstance(parent, cst.Attribute) and parent.value is ref and parent.attr.value in _ARRAY_ONLY:
                return True
        return False

    def check_module(self) -> None:
        """``x.at[i].add(v)`` (or ``x.sort()``, in place for NumPy) as a statement, ``x`` a name bound only
        to arrays JAX makes: the new array it returns is dropped.  (A Pallas or state ref's
        ``.at[i].set(v)`` writes the ref: a ref is not made by ``jnp``.)"""
        index = self.ctx.index
        for method in _AT_UPDATES + ("sort",):
            for call in index.calls_by_name.get("." + method, ()):
                holder = call.func.value
                if method == "sort":
                    base = holder  # `x.sort()`: NumPy sorts in place, JAX returns the sorted copy
                elif type(holder) is cst.Subscript and type(holder.value) is cst.Attribute \
                        and holder.value.attr.value == "at":
                    base = holder.value.value
                else:
                    continue
                if type(base) is not cst.Name or type(index.parents.get(id(call))) is not cst.Expr:
                    continue
                array = base.value
                here = index.call_scope(call)
                home = here.resolve(array) if here is not None else None
                if home is None or not (self._array_name(array, home, 0) or self._traced_here(base)):
                    continue
                if self._expected_to_raise(call):
                    continue  # `with pytest.raises(TypeError): q.at[0].multiply(u)`: no new array to keep
                if home is here and self._never_read_after(call, array, here):
                    continue  # nothing reads `q` again: a smoke test's or a notebook's shown update
                how = f"{array}.sort()" if method == "sort" else f"{array}.at[...].{method}(...)"
                self.report(call, f"`{self.ctx.code(call, 40)}` returns a new array, and it is discarded: JAX "
                                  f"arrays are immutable, so `{array}` is unchanged (assign it: `{array} = {how}`)",
                            subject=array)

    def _expected_to_raise(self, call: cst.Call) -> bool:
        """``call`` runs in the block of a ``with`` that asserts the block raises (``pytest.raises``,
        unittest's ``assertRaises``, NumPy's ``assert_raises``): it is there to raise, and gives back no
        array to keep (a block that does not raise fails the test)."""
        parents = self.ctx.index.parents
        node = parents.get(id(call))
        while node is not None and not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if isinstance(node, cst.With) and any(
                    isinstance(item.item, cst.Call) and _asserts_raising(self.ctx.index.qualify(item.item.func)
                                                                         or dotted_name(item.item.func))
                    for item in node.items):
                return True
            node = parents.get(id(node))
        return False

    def _never_read_after(self, call: cst.Call, name: str, scope) -> bool:
        """Nothing can see that the update ``call`` makes to the local ``name`` is lost: ``name`` is bound
        in ``scope`` by assignments only (no parameter: the caller's object; no global or nonlocal), the
        statement runs once (in no loop of the scope), and every read of ``name`` after it is the array
        of another dropped ``.at[...]`` call (``x.at[2].get()`` as a statement, in a smoke test or a
        notebook's cells) -- none in a function or class the scope defines, which may run at any time."""
        bindings = scope.bindings.get(name)
        if not bindings or scope.declares(name) or any(b.kind is not BindingKind.ASSIGNMENT for b in bindings):
            return False
        parents = self.ctx.index.parents
        node = parents.get(id(call))
        while node is not None and node is not scope.node:
            if isinstance(node, (cst.For, cst.While)):
                return False
            node = parents.get(id(node))
        root = scope.node.body if isinstance(scope.node, (cst.FunctionDef, cst.Lambda)) else scope.node
        passed = False
        stack: List[Tuple[cst.CSTNode, bool]] = [(root, False)]
        while stack:
            item, nested = stack.pop()
            if item is call:
                passed = True
                continue
            if type(item) is cst.Name and item.value == name:
                if (passed or nested) and not _dropped_at_call_of(item, parents):
                    return False
                continue
            inner = nested or isinstance(item, (cst.FunctionDef, cst.Lambda, cst.ClassDef))
            children = [child for child in iter_children(item)
                        if not (isinstance(item, cst.Attribute) and child is item.attr)]
            stack.extend((child, inner) for child in reversed(children))
        return True

    def _traced_here(self, base: cst.Name) -> bool:
        """``base`` is a tracer where the statement runs: a value of traced code (a jitted function's
        parameter), which no Pallas kernel or state ref is -- jitlint traces no kernel body, whose refs
        take ``.at[i].set(v)`` in place -- so the update is lost as for an array JAX makes."""
        value = self.ctx.facts.value(base)
        return value.kind is Kind.TRACED and not value.container and not value.mapping and value.items is None

    def _array_name(self, name: str, scope, depth: int, checking: FrozenSet[str] = frozenset()) -> bool:
        """Every binding of ``name`` in ``scope`` assigns it an array JAX makes (a binding from the name
        itself, ``x = x.reshape(-1)``, is one where the others are: an array's method gives an array)."""
        bindings = scope.bindings.get(name) if not scope.declares(name) else None
        if not bindings or depth >= 4:
            return False
        inner = checking | {name}
        own = [b for b in bindings if b.kind is BindingKind.ASSIGNMENT and b.value is not None
               and name in {n.value for n in name_references(b.value)}]
        return len(own) < len(bindings) and all(
            b.kind is BindingKind.ASSIGNMENT and self._makes_array(b.value, scope, depth + 1, inner) for b in bindings)

    def _makes_array(self, value: Optional[cst.BaseExpression], scope, depth: int,
                     checking: FrozenSet[str] = frozenset()) -> bool:
        """``value`` is an array JAX makes: a call of ``jax.numpy`` / ``lax`` / ``random`` / ``nn``, an
        ``.at[...]`` update, arithmetic on one, an element or slice of one, a name bound only to them."""
        if isinstance(value, cst.BinaryOperation):
            return self._makes_array(value.left, scope, depth, checking) \
                or self._makes_array(value.right, scope, depth, checking)
        if isinstance(value, cst.Subscript):
            return self._makes_array(value.value, scope, depth, checking)
        if isinstance(value, cst.Name):
            if value.value in checking:
                return scope.resolve(value.value) is scope  # (the name being checked: an array if the rest are)
            return scope.resolve(value.value) is scope and self._array_name(value.value, scope, depth, checking)
        if not isinstance(value, cst.Call):
            return False
        func = value.func
        if isinstance(func, cst.Attribute) and func.attr.value in _AT_UPDATES \
                and isinstance(func.value, cst.Subscript) \
                and isinstance(func.value.value, cst.Attribute) and func.value.value.attr.value == "at":
            return True
        if isinstance(func, cst.Attribute) and self._makes_array(func.value, scope, depth, checking):
            return True  # a method of an array (`jnp.stack(...).reshape(2, -1)`)
        return (self.ctx.index.qualify(func) or "").startswith(("jax.numpy.", "jax.lax.", "jax.random.", "jax.nn."))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        target = node.target
        op = self.ctx.code(node.operator).strip().rstrip("=")
        self._check(target, lambda: f"{self.ctx.code(target.value)} {op} {self.ctx.code(node.value, 24)}")


def _overwritten_after_trace(fn, name: str, parents) -> bool:
    """The tracer a traced nested function leaves in its owner's ``name`` is never seen: the function binds
    ``name`` first, before reading it (from its carry: ``regret_sum, step = carry``); every statement of the
    owner that uses the function binds ``name`` again from what it returns (``(regret_sum, step), _ =
    lax.scan(body, (regret_sum, step), None, length=n)``), and no other function there reads ``name``."""
    owner = fn.parent
    node = fn.node
    if owner is None or not isinstance(owner.node, cst.FunctionDef) or not isinstance(node, cst.FunctionDef) \
            or not isinstance(node.body, cst.IndentedBlock):
        return False
    first = next((stmt for stmt in node.body.body if any(True for _ in name_references(stmt, name))
                  and not (isinstance(stmt, cst.SimpleStatementLine)
                           and all(isinstance(s, (cst.Nonlocal, cst.Global)) for s in stmt.body))), None)
    small = first.body[0] if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1 else None
    if not (isinstance(small, cst.Assign) and any(n.value == name for t in small.targets
                                                  for n in assigned_names(t.target))
            and not any(True for _ in name_references(small.value, name))):
        return False
    uses = [ref for ref in name_references(owner.node.body, fn.name) if parents.get(id(ref)) is not node]
    if not uses:
        return False
    for ref in uses:
        stmt = ref
        while stmt is not None and not isinstance(stmt, cst.SimpleStatementLine):
            stmt = parents.get(id(stmt))
        assign = stmt.body[0] if stmt is not None and len(stmt.body) == 1 else None
        if not (isinstance(assign, cst.Assign) and parents.get(id(stmt)) is owner.node.body
                and any(n.value == name for t in assign.targets for n in assigned_names(t.target))):
            return False
    for inner in owner.nested.values():
        if inner is not fn and any(True for _ in name_references(inner.node, name)):
            return False
    return True


def _binds_none(stmt: cst.CSTNode, name: str) -> bool:
    """``name = None`` or ``name, other = None, None`` (the statement binding ``name``)."""
    if not isinstance(stmt, cst.Assign) or len(stmt.targets) != 1:
        return False
    target, value = stmt.targets[0].target, stmt.value
    if isinstance(target, cst.Name):
        return target.value == name and isinstance(value, cst.Name) and value.value == "None"
    if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements):
        return any(isinstance(t.value, cst.Name) and t.value.value == name and isinstance(v.value, cst.Name)
                   and v.value.value == "None" for t, v in zip(target.elements, value.elements))
    return False


def _under_none_guard(stmt: cst.CSTNode, name: str, index) -> bool:
    """``stmt`` runs only in the body of an ``if name is None:`` (:func:`state_test`) or ``if not name:``."""
    child, node = stmt, index.parents.get(id(stmt))
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
        if isinstance(node, cst.If) and child is node.body:
            test = node.test
            if state_test(test, index.module, True) == (name, None) or (
                    isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
                    and isinstance(test.expression, cst.Name) and test.expression.value == name):
                return True
        child, node = node, index.parents.get(id(node))
    return False


def _tests_in(body: cst.CSTNode) -> Iterator[cst.BaseExpression]:
    """The tests of the ``if`` statements and expressions and the ``while`` loops in ``body`` (not in the
    functions it defines)."""
    return (node.test for node in _walk(body) if isinstance(node, (cst.If, cst.IfExp, cst.While)))


def _dropped_at_call_of(name: cst.Name, parents) -> bool:
    """``name`` is the array of an ``.at[...]`` call whose result is dropped (``name.at[i].get()`` as a
    statement): a read whose value nothing keeps."""
    at = parents.get(id(name))
    index = parents.get(id(at))
    method = parents.get(id(index))
    call = parents.get(id(method))
    return isinstance(at, cst.Attribute) and at.value is name and at.attr.value == "at" \
        and isinstance(index, cst.Subscript) and isinstance(method, cst.Attribute) \
        and isinstance(call, cst.Call) and call.func is method and isinstance(parents.get(id(call)), cst.Expr)


def _asserts_raising(name: Optional[str]) -> bool:
    """``name`` (a qualified or dotted name) is a context manager that asserts its block raises."""
    if not name:
        return False
    last = name.rsplit(".", 1)[-1]
    return name in ("pytest.raises", "numpy.testing.assert_raises", "numpy.testing.assert_raises_regex") \
        or (last in ("assertRaises", "assertRaisesRegex") and name.startswith("self."))


#: attributes an array has and no list, tuple or dict has
_ARRAY_ONLY = frozenset({"shape", "dtype", "ndim", "at"})


def _array_index(target: cst.Subscript) -> bool:
    """An index only an array takes: several axes, one of them a slice or ``...`` (``x[1, :]``,
    ``x[..., 0]``): a list takes no tuple, and no dict is keyed by slices."""
    def whole(element: cst.SubscriptElement) -> bool:
        return isinstance(element.slice, cst.Slice) or (
            isinstance(element.slice, cst.Index) and isinstance(element.slice.value, cst.Ellipsis))
    return len(target.slice) >= 2 and any(whole(element) for element in target.slice)


class _AnyField:
    """A stand-in argument for checking a format string: every attribute and item of it exists."""

    def __getattr__(self, name: str) -> "_AnyField":
        return self

    def __getitem__(self, key: object) -> "_AnyField":
        return self


class _FieldChecker(string.Formatter):
    """The check ``jax.debug.print`` makes when it is traced (and eagerly): ``str.format``'s field
    lookup, numbering and nesting, with every argument used and none missing; nothing is formatted."""

    def format_field(self, value: object, format_spec: str) -> str:
        return ""

    def check_unused_args(self, used_args, args, kwargs) -> None:
        unused = [i for i in range(len(args)) if i not in used_args]
        if unused:
            raise ValueError("unused positional", unused)
        unused_kw = [k for k in kwargs if k not in used_args]
        if unused_kw:
            raise ValueError("unused keyword", unused_kw)


#: keyword parameters of ``jax.debug.print`` that are not format arguments (jax 0.10.2)
_DEBUG_PRINT_OPTIONS = frozenset({"ordered", "partitioned", "_use_logging"})


def debug_print_mismatch(template: str, positional: int, keywords: Sequence[str]) -> Optional[Tuple[str, str]]:
    """The type of error ``jax.debug.print(template, *positional, **keywords)`` raises before it prints
    anything, and why, or None when its arguments fit the format string. Only ``template``, a string literal,
    is read: the arguments are stand-ins."""
    args = [_AnyField() for _ in range(positional)]
    kwargs = {k: _AnyField() for k in keywords}
    try:
        _FieldChecker().vformat(template, args, kwargs)
    except ValueError as exc:
        if len(exc.args) == 2 and exc.args[0] == "unused positional":
            numbers = ", ".join(f"#{i + 1}" for i in exc.args[1])
            return "ValueError", f"no field of the format string takes positional argument {numbers} (of {positional})"
        if len(exc.args) == 2 and exc.args[0] == "unused keyword":
            names = ", ".join(f"`{k}=`" for k in exc.args[1])
            return "ValueError", f"no field of the format string takes {names}"
        return "ValueError", f"`str.format` rejects the format string ({exc})"
    except IndexError:
        return "IndexError", f"the format string has fields for more positional arguments than the {positional} given"
    except KeyError as exc:
        return "KeyError", f"the format string has a field `{exc.args[0]}` and no `{exc.args[0]}=` argument is given"
    return None


class DebugPrintArguments(Rule):
    """## What it does
    Flags a `jax.debug.print` whose arguments do not fit its format string:
    a positional or keyword argument that no field uses, a field with no
    argument, or automatic (`{}`) and numbered (`{0}`) fields mixed. Only a
    format string written as a literal is checked, with no `*args` or
    `**kwargs` in the call and no `skip_format_check=`.

    ## Why is this bad?
    `jax.debug.print` checks its arguments against the format string the
    moment it is called, while JAX traces: the function raises on its first
    call (`ValueError: Unused positional arguments to jax.debug.print`,
    `IndexError`, `KeyError`) and never prints. A common cause is a message
    written as an f-string, or with `print`'s habit of listing values after
    the text, followed by the values again.

    ## Example
    ```python
    import jax

    @jax.jit
    def step(x, loss):
        jax.debug.print("loss:", loss)
        return x - loss
    ```

    Use instead:
    ```python
    import jax

    @jax.jit
    def step(x, loss):
        jax.debug.print("loss: {}", loss)
        return x - loss
    ```

    ## Fix safety
    No automatic fix: which field was meant is a guess.

    ## References
    - [`jax.debug.print`](https://docs.jax.dev/en/latest/_autosummary/jax.debug.print.html)
    """

    code = "JIT107"
    name = "debug-print-arguments"

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualify(node.func) != "jax.debug.print":
            return
        if any(arg.star for arg in node.args):
            return  # how many arguments is not written here
        positional = [arg for arg in node.args if arg.keyword is None]
        keywords = {arg.keyword.value: arg for arg in node.args if arg.keyword is not None}
        if "skip_format_check" in keywords:
            return
        if positional:
            fmt, rest = positional[0], positional[1:]
        elif "fmt" in keywords:
            fmt, rest = keywords.pop("fmt"), []
        else:
            return  # the two-call form, `jax.debug.print(ordered=True)("...", x)`
        template = string_value(fmt.value)
        if template is None:
            return
        found = debug_print_mismatch(template, len(rest), [k for k in keywords if k not in _DEBUG_PRINT_OPTIONS])
        if found is None:
            return
        error, why = found
        self.report(node, f"`jax.debug.print(...)` raises `{error}` when it is called, and prints nothing: {why}",
                    _why_traced(self))


RULES = [MutableGlobalRead, OuterStateWrite, PrintInTracedCode, SideEffectInTracedCode, InPlaceArrayUpdate,
         DebugPrintArguments]


def _returns_name(fn: cst.FunctionDef, name: str) -> bool:
    """Some ``return`` of ``fn`` gives ``name`` back, alone or as an item of a tuple."""
    for value in returned_values(fn.body):
        items = [el.value for el in value.elements] if isinstance(value, cst.Tuple) else [value]
        if any(isinstance(item, cst.Name) and item.value == name for item in items):
            return True
    return False


def _self_attribute_name(node: cst.CSTNode) -> Optional[str]:
    """``name`` for ``self.name``."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _walk_all(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node under it, in nested functions and classes too."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        yield item
        stack.extend(iter_children(item))


def _attribute_calls(module: cst.Module, attr: str) -> Optional[List[cst.Call]]:
    """The calls ``x.<attr>(...)`` of the module; None when a lambda makes one (its result is the lambda's)."""
    def named(call: cst.Call) -> bool:
        return isinstance(call.func, cst.Attribute) and call.func.attr.value == attr

    if any_node([module], lambda n: isinstance(n, cst.Lambda) and any(named(c) for c in calls_in(n.body))):
        return None
    return [call for call in calls_in(module) if named(call)]


def _hijax_on(index) -> bool:
    """A module-level ``nnx.var_defaults(hijax=True)`` call (flax's switch to Variables as mutable references)."""
    for stmt in index.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            call = small.value if isinstance(small, cst.Expr) else None
            if isinstance(call, cst.Call) and index.qualify(call.func) == "flax.nnx.var_defaults":
                arg = call_argument(call, 99, "hijax")
                if arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True":
                    return True
    return False


def _variable_class(func: cst.BaseExpression, index, depth: int = 0) -> bool:
    """``func`` names a flax nnx Variable class, or a class of this module derived from one."""
    q = index.qualify(func)
    if q in jax_api.NNX_VARIABLES:
        return True
    if depth > 4 or not isinstance(func, cst.Name) or func.value not in index.classes:
        return False
    for base in index.classes[func.value].node.bases:
        value = base.value.value if isinstance(base.value, cst.Subscript) else base.value  # `nnx.Variable[nnx.A]`
        if _variable_class(value, index, depth + 1):
            return True
    return False


def _same_part(reads: List[cst.CSTNode], write: cst.CSTNode, code: Callable[[cst.CSTNode], str]) -> cst.CSTNode:
    """Of ``reads`` (items or attributes of the container, in source order), the one of the part ``write``
    stores (``hparams["l2"]`` for ``hparams["l2"] = l2``), else the first."""
    targets = [t.target for t in write.targets] if isinstance(write, cst.Assign) else []
    for target in (leaf for t in targets for leaf in flat_targets(t)):
        for read in reads:
            if type(read) is type(target) and code(read) == code(target):
                return read
    return reads[0]


def _returned_wrapper(factory: FunctionInfo, fn: FunctionInfo, entry) -> bool:
    """``factory`` returns the jitted ``fn``: ``return fn`` of the decorated def, or ``return jax.jit(fn)``."""
    for value in returned_values(factory.node.body):
        if isinstance(value, cst.Name) and value.value == fn.name and isinstance(entry.site, cst.Decorator):
            return True
        if value is entry.site:
            return True
    return False


def _run_order_events(body: cst.CSTNode, made_at: cst.Assign, made: str, containers: Set[str]
                      ) -> List[Tuple[str, str, Tuple[cst.CSTNode, ...], cst.CSTNode]]:
    """In the order Python runs ``body`` (not the functions it defines): "made" (``made_at``), "rebind" (another
    binding of ``made``), "use" (``made`` read: called or handed on) and "write" (an item or attribute of a name
    of ``containers`` stored, or ``.update(...)`` on it), each with the loops around it."""
    events: List[Tuple[str, str, Tuple[cst.CSTNode, ...], cst.CSTNode]] = []
    stack: List[Tuple[cst.CSTNode, Tuple[cst.CSTNode, ...], bool]] = [(body, (), False)]
    while stack:
        node, loops, after = stack.pop()
        if after:
            if node is made_at:
                events.append(("made", made, loops, node))
                continue
            for target in node.targets:
                for t in flat_targets(target.target):
                    if isinstance(t, cst.Name) and t.value == made:
                        events.append(("rebind", made, loops, node))
                    elif isinstance(t, (cst.Subscript, cst.Attribute)) and isinstance(t.value, cst.Name) \
                            and t.value.value in containers:
                        events.append(("write", t.value.value, loops, node))
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Name) and node.value == made:
            events.append(("use", made, loops, node))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "update" \
                and isinstance(node.func.value, cst.Name) and node.func.value.value in containers:
            events.append(("write", node.func.value.value, loops, node))
        inner = loops + (node,) if isinstance(node, (cst.For, cst.While)) else loops
        children = list(iter_children(node))
        if isinstance(node, cst.Assign):
            stack.append((node, loops, True))  # its targets, once its value is computed
            children = [node.value]
        stack.extend((child, inner, False) for child in reversed(children))
    return events
