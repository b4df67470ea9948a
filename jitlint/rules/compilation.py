"""JIT5xx: compilation hazards -- recompiling, and static arguments that cannot work."""
from __future__ import annotations

import itertools
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.discovery import ClassInfo, EntryPoint, FunctionInfo, ModuleIndex, Owner
from jitlint.analysis.fields import stores_to
from jitlint.analysis.idempotence import assigns_attribute, built_from_self, pure_method, unpacked_into
from jitlint.analysis.iterations import (GROWING_ASSIGN_OPERATORS, GROWING_OPERATORS, iteration_of,
                                         new_key_each_iteration)
from jitlint.analysis.scopes import Binding, BindingKind, Scope, names_bound_in
from jitlint.analysis.values import Reason
from jitlint.analysis.syntax import (any_node, assigned_names, bind_arguments, call_argument, calls_in, flat_targets,
                                     int_value, is_docstring, iter_children, name_references, own_small_statements,
                                     params_of, path_to, returned_values, short_code, string_value,
                                     walk)
from jitlint.diagnostics import Applicability, Fix
from jitlint.rules.base import Rule

#: methods that run once per object: a jit of a bound method there is made once
_SETUP_METHODS = frozenset({"__init__", "__post_init__", "setup", "__new__", "__setstate__"})
#: NumPy functions that return a new ndarray (unhashable)
_NUMPY_ARRAY_FUNCTIONS = frozenset("numpy." + name for name in (
    "array", "asarray", "arange", "zeros", "ones", "empty", "full", "linspace", "logspace", "eye", "identity",
    "zeros_like", "ones_like", "empty_like", "full_like", "concatenate", "stack", "vstack", "hstack", "argsort",
    "sort", "flip", "cumsum", "tile", "repeat", "unique", "diag", "tril", "triu", "outer", "meshgrid", "hamming",
    "hanning", "blackman", "bartlett", "kaiser", "convolve", "polyfit", "vander", "fromiter", "frombuffer", "copy"))
#: jax.numpy functions that do not return arrays
_NOT_ARRAY_JAX_FUNCTIONS = frozenset({"jax.numpy.vectorize", "jax.numpy.frompyfunc", "jax.numpy.set_printoptions",
                                      "jax.numpy.printoptions", "jax.random.key_impl"})
#: JAX and NumPy functions that join their inputs into one array: of a list that grows, or of the array
#: itself and more, a longer array each time
_JOINING = frozenset(prefix + name for prefix in ("jax.numpy.", "numpy.") for name in (
    "concatenate", "append", "stack", "vstack", "hstack", "row_stack", "column_stack", "dstack", "array", "asarray"))
#: list methods that make the list longer
_LENGTHENING = frozenset({"append", "extend", "insert"})
_FROZEN_DECORATORS = ("frozen=True", "struct.dataclass", "register_static", "register_dataclass",
                      "register_pytree_node_class", "register_pytree_with_keys_class")


def frozen_dataclass(cls: ClassInfo, index: ModuleIndex) -> bool:
    """``cls`` is decorated by the standard library's ``dataclass`` with ``frozen=True`` (and ``eq`` left on): its
    instances hash and compare by their fields."""
    if len(cls.decorators) != 1 or not isinstance(cls.decorators[0], cst.Call):
        return False
    call = cls.decorators[0]
    if not _stdlib_dataclass(call, index):
        return False
    options = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    frozen, eq = options.get("frozen"), options.get("eq")
    return isinstance(frozen, cst.Name) and frozen.value == "True" and (
        eq is None or isinstance(eq, cst.Name) and eq.value == "True")


def _positional(fn: FunctionInfo) -> List[cst.Param]:
    return [p for p, kind in fn.params if kind in ("posonly", "positional")]


def _argument_name(arg: cst.Arg, param: Optional[cst.Param]) -> Optional[str]:
    """How a message names the parameter an argument binds (its keyword when it binds none)."""
    if param is not None:
        return param.name.value
    return arg.keyword.value if arg.keyword is not None else None


def _what(fn: FunctionInfo, entry: EntryPoint) -> str:
    if entry.self_bound:
        return "a bound method"
    if isinstance(fn.node, cst.Lambda):
        return "a lambda"
    if entry.partial_positional or entry.partial_keywords:
        return "a `functools.partial`"
    return "a nested function"


def _method_of(scope: FunctionInfo) -> str:
    """The name of the outermost function around ``scope`` (a method's own name)."""
    while scope.parent is not None:
        scope = scope.parent
    return scope.name


def _is_number(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _grows_with(expr: cst.BaseExpression, varying: Set[str], numbers_only: bool,
                recurrence: Optional[str] = None, numbers: FrozenSet[str] = frozenset()) -> bool:
    """Arithmetic (``+ - * / // ** <<``) that uses a name of ``varying``: it changes when that name does.

    Other operands may be names, attributes and items (numbers only, with ``numbers_only``); a call,
    ``%`` or a comparison makes the answer no (their values can repeat) -- except, for the value of
    ``recurrence`` in a loop that rebinds it from itself, the builtin ``min`` / ``max`` of such arithmetic
    of it and one bound that does not vary (``dt = min(dt * growth, dt_max)``, ``lr = max(lr * 0.5,
    lr_min)``): a new value every iteration until it reaches the bound, each one a new static value.
    (Arithmetic of a loop counter clamped by a bound, ``min(chunk, n - start)``, sits at the bound but for
    the last iterations.)
    """
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("min", "max") \
            and recurrence is not None and len(expr.args) == 2 and not any(a.star or a.keyword for a in expr.args):
        first, second = (a.value for a in expr.args)
        for growing, bound in ((first, second), (second, first)):
            if recurrence in {n.value for n in name_references(growing)} \
                    and _grows_with(growing, varying, numbers_only) and (
                        _is_number(bound) or isinstance(bound, cst.Name) and bound.value not in varying
                        and not numbers_only):
                return True
        return False
    if not isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation)):
        return False
    found = False
    stack: List[cst.BaseExpression] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation):
            if not isinstance(node.operator, GROWING_OPERATORS):
                return False
            stack += [node.left, node.right]
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            stack.append(node.expression)
        elif isinstance(node, cst.Name) and node.value in varying:
            found = True
        elif isinstance(node, (cst.Integer, cst.Float)) or isinstance(node, cst.Name) and node.value in numbers:
            continue  # (a Python number: a literal, or a parameter only ever given one)
        elif numbers_only or not isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)):
            return False
    return found


def _runs_once(scope: FunctionInfo) -> bool:
    """Test functions and entry points run once: compiling there is not a hazard."""
    top = scope
    while top.parent is not None:
        top = top.parent
    cls_name = top.cls.name if top.cls is not None else ""
    script = any(word in top.name for word in ("example", "demo", "benchmark"))
    return script or top.name.startswith(("test", "_test")) or top.name in ("main", "_main") or (
        cls_name.startswith("Test") or cls_name.endswith("Test"))


def _local_in(name: str, scope: Optional[FunctionInfo]) -> bool:
    """``name`` is bound in ``scope`` or a function around it (it hides the module's ``name``)."""
    while scope is not None:
        if name in scope.local_names:
            return True
        scope = scope.parent
    return False


def _function_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The function a transform call is applied to: its first positional argument, or ``fun=``."""
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            return arg.value
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in ("fun", "f", "func", "fn"):
            return arg.value
    return None


def _inlined(site: cst.Call) -> bool:
    """``jax.jit(f, inline=True)``: the author's statement that the wrapper runs inside an
    enclosing trace, where it is inlined into the caller's jaxpr rather than compiled per call."""
    arg = call_argument(site, None, "inline")
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"


def _used_other_than_called(root: cst.CSTNode, name: str) -> bool:
    """``name`` is read in ``root`` other than as the callee of a call: passed on, stored, returned."""
    not_reads: Set[int] = set()
    stack: List[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Call and type(node.func) is cst.Name:
            not_reads.add(id(node.func))
        elif kind is cst.Attribute:
            not_reads.add(id(node.attr))
        elif kind is cst.Arg and node.keyword is not None:
            not_reads.add(id(node.keyword))
        elif kind in (cst.Param, cst.FunctionDef, cst.ClassDef):
            not_reads.add(id(node.name))
        elif kind is cst.Assign:
            not_reads.update(id(n) for t in node.targets for n in assigned_names(t.target))
        elif kind in (cst.AugAssign, cst.AnnAssign):
            not_reads.update(id(n) for n in assigned_names(node.target))
        elif kind is cst.Name and node.value == name and id(node) not in not_reads:
            return True
        stack.extend(iter_children(node))
    return False


def _written_here(root: cst.CSTNode, attribute: cst.Attribute) -> bool:
    """``attribute`` (a node in ``root``) is the target of an assignment, augmented assignment or ``del``."""
    stack: List[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if any(t is attribute for target in targets for t in _stored(target)):
                return True
        stack.extend(iter_children(node))
    return False


#: the ahead-of-time steps of a jitted function: ``jax.jit(f).trace(x).lower().compile()``
_AOT_STEPS = frozenset({"trace", "lower", "compile"})

#: decorators under which a factory returns the same object for the same arguments
_CACHING_DECORATORS = frozenset({"functools.cache", "functools.lru_cache"})


class RecompilationHazard(Rule):
    """## What it does
    Flags code that makes `jax.jit` compile again and again: a jit wrapper
    created per call, per loop iteration or per element of a comprehension
    around a fresh callable (a `lambda`, a nested `def`, a
    `functools.partial`, a bound method `self.f`, the result of `jax.grad` /
    `jax.vmap` / ..., what a closure factory returns:
    `jax.jit(make_step(lr))`; a factory returning a jitted nested `def`,
    got in each iteration of a loop and called there), and a static argument given a value that
    changes on every iteration (a loop counter, arithmetic on one, or a variable the
    loop reassigns, such as a decaying learning rate, also one rebound from
    itself and clamped by `min` / `max` to a bound: `lr = max(lr * 0.5,
    lr_min)`; not a counter's arithmetic so clamped, `min(chunk, n - start)`,
    which sits at the bound), a comprehension's
    `for` included (`[f(x, day=d) for d in range(1, 366, 7)]`), and through a
    plain module-level function that passes its own parameter on to the
    static one as it came (`def leapfrog(pos, dt): return _leapfrog(pos,
    dt=dt)` called in such a loop).

    Also flagged: a traced argument whose *shape* changes on every iteration
    of a loop around an eager call -- a slice with one bound that counts with
    the loop and one that stays (`x[:t]`, `x[i:]`), a list the loop appends
    to, an array the loop joins onto itself (`x = jnp.concatenate([x, y])`),
    or one joined from either (`jnp.concatenate([context] + outs)`, the
    autoregressive loop). The cache is keyed on argument shapes too, so each
    iteration compiles anew. The last or first `k` items of such a list
    (`recon[-k:]`, `seq[:k]`, `k` not changed by the loop) are at most `k`,
    and so is a `collections.deque(maxlen=k)`: not flagged. Nor is an array
    the loop slides: it drops `k` items along the axis it joins and adds `k`
    (`x = jnp.concatenate((x[1:], jnp.array([tok])))`, `v[:, None]` onto
    `h[:, 1:]` with `axis=1`), keeping its shape. A window whose bounds move together
    (`x[i:i + n]`), a list made anew in each iteration, sizes a literal loop
    lists (`for n in (128, 256)`, a benchmark) and a buffer of the final
    size written with `.at[t].set`, and an item of a growing list
    (`jnp.array(seq[-1])`: one element, whatever the list's length) are not
    flagged; a wrapper of a function
    the module cannot see (`jax.jit(model.apply)`) counts when it is made
    without static options. So is a property (or a module function) that
    returns a new wrapper each time where a loop gets it and calls it at once
    (`self.step(pos, vel)` with `@property def step(self): return
    jax.jit(lambda ...)`; `stepper(rate)(x)`): each access makes one.

    A loop that runs its body once is no loop: `for x in [a]`, `range(1)`,
    and a generator of the module that yields at most once on every path
    (`for x in self._generate_x(n):` with one `yield` in each arm of an `if`).
    Nor does code under `if i == 0:` repeat with the loop, `i` its own
    counter (`for i in range(n)`, `for i, x in enumerate(xs)`) that its body
    never binds: it runs in one iteration (`i % 10 == 0` runs in many).

    A wrapper made in a loop under an `if` whose branch changes what its own
    test reads (`if need_compile: step = jax.jit(...); need_compile = False`,
    `if n != last: ...; last = n`), or builds anew the function it wraps
    (`step_fn = make_step(new_optimizer)`, then `jax.pmap(partial(lax.scan,
    step_fn))`), and called outside it is made again only when the
    configuration changes: not flagged.

    Nor is a wrapper made in a loop over distinct sizes (ints or tuples of
    ints: `for n in (10, 100, 1000)`, `itertools.product(...)` of them) each
    of whose calls passes an input that size selects or builds (`X[n]`,
    `jax.random.normal(key, (c, h, h))`, a view of one): every iteration
    brings new shapes, and a wrapper made once would compile as often.

    Re-wrapping the same top-level function, `jax.jit(f)` in a loop, is not
    flagged: the compilation cache is keyed on the function object. Nor is
    an equinox filter transform of a bound method (`eqx.filter_jit(self._step)`,
    also through `eqx.filter_vmap`): equinox compares the callable by
    equality, and bound methods of one object are equal (`jax.jit` of one,
    or equinox's of a lambda, is still flagged). Neither
    is a wrapper made once per call and then applied in a loop or a
    comprehension: its compilation is amortised.

    Nor is a wrapper made in a loop (or a comprehension) each of whose
    uses passes as a static argument a new object built in that iteration
    from the loop variable (`model = Model(kind)`, then
    `jax.jit(jax.grad(loss), static_argnums=0)(model, x)`): that object is
    a new cache key on every iteration, so a wrapper made once before the
    loop compiles just as often; the same holds for a function made in the
    loop that reads such an object, or a function a closure factory made
    from the loop variable (`wavelet = WaveletTransform(n, kind=kind)`, then
    `jax.jit(propagate)` of a function calling `wavelet.decompose`). A static object built before the loop or
    from other names, one of a class of the module that hashes by value (a
    frozen dataclass: its key repeats when the loop's values do), a value
    that can repeat (`int(i % 2)`), and a closure over a fresh object
    (which could be passed traced instead) are still flagged.

    Nor is a wrapper made in a loop of a function that reads the value of
    every loop around it as a shape (`jax.jit(lambda v: jnp.zeros((n, n)) + v)`
    for each `n` of a sweep), where each loop gives distinct values
    (`range()`, a display of distinct constants, a name bound to one where
    the loop reads it, a concatenation of those): every iteration is another
    program, which a wrapper made before the loop, the sizes static, would
    compile as often; an argument whose shape changes with such a loop is not
    reported either. A Python `range()` bound counts as a shape (the loop is
    unrolled), and so does a factory's argument that the function it makes
    reads so (`jax.jit(make_transform(n))` for distinct `n`). An outer loop
    the function does not read as a shape (an epoch), repeated values, or a
    value read as data (`jax.jit(make_corrector(gain, offset))`, numbers a
    module-level jitted function could take traced) are still flagged.

    Nor is a wrapper made in a loop that clears JAX's caches on every
    iteration (`jax.clear_caches()` as a statement of its body, a benchmark
    timing each model from cold): everything compiles again there anyway.

    Nor is a wrapper made in a loop whose options read a value the loop
    changes (`jax.jit(stack, out_shardings=shardings[name])` for each group):
    each iteration needs a wrapper configured its own way, which no one
    wrapper made before the loop could be.

    Nor is a wrapper made once per item of an outer loop that reads a value
    that changes with the item (the loop's target, or what the loop builds
    from it or an `if` on it chooses: a training phase's rate or weight) and is called only in loops
    inside that iteration: each phase compiles its own function once and
    every step of the phase reuses it -- unless a loop around it counts
    (`for epoch in range(n_epochs)`, a `while`): a rate computed from the
    epoch then compiles once per epoch, as many times as the run is long,
    where passing it traced compiles once. A `while` that walks a sequence
    (the callable reads a slice or an item of it at a position the loop
    moves, `program[pos:next_pos]`, or one popped from it) is a loop over
    its parts, as a `for` is. The same function made on every
    epoch (reading nothing the loop changes; its own parameters and name do
    not count, nor a loss or an optimiser the loop makes again from values
    outside it), or a per-phase wrapper called once per phase, is still
    flagged. So is a wrapper reading such a value that the iteration hands
    on in a closure (`timeit(lambda: fn(x))` for each block size of a
    sweep): the closure may call it any number of times, all on one compile.

    A wrapper made once per call of the enclosing function is flagged only
    with evidence that the function runs many times: it is a `__call__`, or
    this module calls it in a loop or a comprehension (directly or through a
    function that is) -- a function by its bare name, a method through an
    object (`CartPole.render(s)` in a loop is no call of a function `render`).
    A factory returning the jitted function counts when a loop calls what it
    returns at once, binds it to a name only called in that iteration, or
    hands it to a module function that only calls it
    (`neg_log_marginal(make_kernel(ls, var), X, y)` for each grid point).
    A wrapper it stores under a key of a container that outlives the call
    (`cache[sharding] = fn` in a module dict, a dict of the function around
    it, or one on the object) is a cache: one compile per key.
    A setup function that builds its step functions once
    (`make_trainer()`, `init()`) is not a hazard, nor is a jit inside traced
    code (it is inlined into the outer trace: also in a function handed to
    the maker of what a jit wraps, `jax.jit(shape_wrapper(step, args))`, and
    in `__call__` of an instance bound once beside a scan body that calls
    it), nor `jax.jit(f, inline=True)`,
    which says the wrapper runs inside an enclosing trace (called eagerly it
    would still compile on every call).

    Code run once by design -- a test, `main`, an example or benchmark -- and
    the private helpers only such code calls (`_run_checks(obj)` called from
    tests alone, its name read nowhere else) compile what they make once per
    run: nothing there is flagged as compiling again. A wrapper bound to a
    name nothing reads (`fast = jax.jit(loss)`, its call commented out; or a
    module-level one in a script nothing imports) traces and compiles
    nothing at all, and its function is not traced code on its account.

    ## Why is this bad?
    The cache is keyed on the function object and the static arguments. A new
    lambda or partial each time is a new function: every call traces and
    compiles from scratch (three iterations, three compilations), which is
    often slower than not jitting at all.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp

    def mse(params, x, y):
        return jnp.mean((x @ params - y) ** 2)

    def evaluate(params, batches):
        losses = []
        for xb, yb in batches:
            losses.append(jax.jit(lambda p: mse(p, xb, yb))(params))
        return losses
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    def mse(params, x, y):
        return jnp.mean((x @ params - y) ** 2)

    mse_jit = jax.jit(mse)

    def evaluate(params, batches):
        losses = []
        for xb, yb in batches:
            losses.append(mse_jit(params, xb, yb))
        return losses
    ```

    ## Fix safety
    A wrapper that is the same function every time it is made is made once
    and reused: at module level above the `def` (or `class`) holding it when
    it reads module-level names only (`loss_grad_jit = jax.jit(jax.grad(loss))`,
    then `loss_grad_jit(p, x)` in the loop: every call of the function shares
    it, one compile for them all), else -- it reads a parameter of the
    function -- before the outermost loop around it or before the statement
    holding a comprehension.
    The expression must be transforms (`jax.jit`, `jax.grad`, `jax.vmap`,
    ..., `functools.partial`) with literal options, of a callable that cannot
    change where the expression moves: a function, class or import bound once
    at module level and never declared `global`, an attribute of an imported
    module, an attribute of a module-level object bound once that nothing
    stores into or changes by a method (`jax.jit(partial(MODEL.apply,
    train=False))`, with no `MODEL.scale = ...` anywhere), a lambda reading
    only those (such an object itself included: `lambda p, t: model.apply(p,
    t)`) and its own parameters, or (within the function) a parameter
    nothing rebinds.

    A jitted lambda that only passes values on to a function of this module
    (`jax.jit(lambda p: mse(p, xb, yb))(params)`, each lambda parameter one
    whole argument, the held values names, attributes or literals), or a
    `functools.partial` of one (`sim = jax.jit(partial(simulate, params));
    sim(x0)`), becomes that function jitted once at module level, given the
    held values at each call: `mse_jit(params, xb, yb)`,
    `simulate_jit(params, x0)` (the assignment goes; its comments move to
    the next statement). A jitted `jax.vmap` of such a lambda (no vmap
    options, every argument of the call positional) becomes
    `jax.jit(jax.vmap(score, in_axes=(None, 0, 0, None)))`: the lambda's
    parameters mapped, the held values not. The held values become traced arguments, so the
    fix is offered only when the function uses none of the parameters they
    go to where a static value is needed (a `range()` bound, an `if` test,
    a shape) -- but for a partial's keyword (`jax.jit(partial(zscore,
    window=self.window, limit=self.limit))`), which the wrapper made once
    names in its `static_argnames` (`jax.jit(zscore,
    static_argnames=("window",))`: one compile per value, as each fresh
    wrapper compiled for its own); an import of `partial` / `functools`
    left unused goes. A wrapper called through a name may hold only parameters
    nothing rebinds, or a name that nothing rebinds between the wrapper and
    its calls (a loop's variable, read by the calls of the same iteration).
    A nested `def` jitted by its decorator whose one statement returns such a
    call (`@jax.jit def _apply(v): return mlp(self.params, v)`, then
    `_apply(x)`) is lifted the same way: `mlp_jit(self.params, x)`, the
    definition gone, its comments moved to the next statement. Any other
    jitted lambda that reads locals of the function around it (`nearest =
    jax.jit(lambda cars: jnp.argmin(jnp.abs(cars - floor)))` in a loop over
    `floor`) is made once at module level with those locals as parameters of
    its own (`nearest_jit = jax.jit(lambda cars, floor: ...)`), each call
    passing them (`nearest_jit(car_floors, floor)`), when each is only data
    in the lambda and nothing rebinds it between the wrapper and its calls.
    No fix for a callee of another module, a held value computed in a
    forwarding lambda (`x * 2` would run outside the jit), static argument
    options on a lambda (they name its parameters) or `static_argnums` on a
    partial with positions bound.

    Any other nested `def` jitted by its bare decorator, called by its name
    only, moves to module level once when what it reads from the function
    around it -- names, or attribute chains of them (`self.lr`) -- is only
    array data there (an operand of arithmetic with a traced array, an
    argument of a `jax.numpy` / `jax.lax` function; never a size, a test or
    a called method): each becomes a keyword-only parameter, passed at the
    call (`_update(params, vel, grads, beta=self.beta, lr=self.lr)`). The
    values must be read where the call is: one call in the iteration that
    made the function, or roots that are parameters nothing rebinds or
    stores into. A factory that only returns such a `def` (`return update`)
    returns `functools.partial(update, beta=beta, lr=lr)` instead, for
    names read from it (not attributes, which may change before the first
    call).

    A jitted `def` inside the loop that calls it (`for ...: @jax.jit def
    step(x): ...`) that reads nothing the loop binds (its target, the names
    its body assigns) and is the only binding of its name moves just before
    the loop: made once, compiled once.

    A property of a plain class (no base but `object`, no `__slots__`, no
    setter) that returns the new wrapper becomes a
    `functools.cached_property`: made at the first access of each object and
    kept in its `__dict__`, one compile per object instead of one per access.
    What the wrapped function reads of the object while traced is then read
    once per object.

    No fix either for another nested function, a bound method, an option that is
    not a literal, a hoist to module level of a name bound below it, or in a
    module with JIT101 findings. A static argument that changes on every
    iteration is taken out of `static_argnames` / `static_argnums` where the
    function only computes with it (every read array arithmetic, an
    elementwise comparison with a traced array, or an argument of a
    `jax.numpy` / `jax.lax` function, never rebound) -- and,
    for a filter transform (`eqx.filter_jit`) that keeps a Python number
    static, the call passes `jnp.asarray(value)`, an array it traces -- one
    compile then serves every value, also where a plain function passes the
    value on (the spec of the jitted function it calls changes), or where the
    function passes it to a function of the module that only computes with
    it (`envelope(spring, damping, t)`). UNSAFE: the
    function sees a weakly typed 0-d array where it saw a Python number.
    Otherwise it gets advice
    (DISPLAY_ONLY): keep its values few when it must be static. So does a
    shape that changes: write into a buffer of the final size, or pad to a
    few sizes.

    The fix is always UNSAFE: every new wrapper traced the function afresh,
    reading the globals, attributes and closed-over values it uses as they
    were then; the one wrapper reads them at its first trace and keeps them.
    It is also made when the loop runs no iteration, so an invalid option
    raises before the loop instead of inside it. A value passed instead of
    held is traced: a Python number arrives as a weakly typed array, and an
    object that is not an array fails to trace.

    ## References
    - [`jax.jit` caching](https://docs.jax.dev/en/latest/jit-compilation.html#caching)
    """

    code = "JIT501"
    name = "recompilation-hazard"
    fix_title = "Make the wrapper once (before the loop, or at module level) and reuse it"

    def check_module(self) -> None:
        index = self.ctx.index
        traced_scopes = _TracedScopes(self.ctx.facts.bodies, self.ctx.index)
        self._entry_at = {entry.site: entry for entry in index.entries if entry.compiles}
        for entry in index.entries:
            if not entry.compiles:
                continue
            if entry.scope is not None and entry.scope in traced_scopes:
                continue  # inside traced code jit is inlined, not compiled per call
            self._fresh_wrapper(entry)
            self._changing_static(entry)
            self._changing_shape(entry)
            self._fresh_static_function(entry)
        self._fresh_transform_chains(traced_scopes)
        self._unseen_functions_changing_shape()

    def _fresh_wrapper(self, entry: EntryPoint) -> None:
        """A jit wrapper around a new function object each time, used once.

        Created in a loop (or a comprehension's element) around a callable made there:
        compiled on every iteration, whatever the function is called.  Outside loops,
        made and called once per call of the enclosing function (a wrapper that is then
        called many times, in a loop or a comprehension, amortises its compilation and
        is fine); functions run once by design -- tests, ``main`` -- are left alone.
        """
        index = self.ctx.index
        fn = entry.function
        site = entry.site
        scope = entry.scope
        if isinstance(site, cst.Decorator):
            if fn.parent is None:
                return
            if fn.defined_in_loop:
                if self._runs_once(fn.parent) and self._configured_per_iteration(fn.node, fn.parent):
                    return
                if self._outlives_iteration(fn.node, [fn.name], fn.parent.node):
                    return  # one wrapper per item, kept to be called later
                uses = self._wrapper_uses(None, fn.parent, [fn.name])
                if self._compiles_anyway(fn.node, uses, entry) or self._amortised(fn.node, fn.parent, uses) \
                        or self._inputs_sized_by_loop(fn.node, uses) \
                        or self._caches_cleared(fn.node) \
                        or self._reused_per_configuration(fn.node, fn.parent, [fn.name]) \
                        or self._distinct_program_each_iteration(fn.node, fn):
                    return
                self.report(site, f"`{fn.name}` is jitted anew on every loop iteration: each new function object "
                                  "is traced and compiled again")
                return
            if len(fn.parent.scope.bindings_of(fn.name)) == 1 and any(
                    isinstance(value, cst.Name) and value.value == fn.name
                    for value in returned_values(fn.parent.node.body)):
                # a factory returning the jitted def (`def make_update(lr): @jax.jit def update(...): ...;
                # return update`): each call makes a new function object
                getter = None if self._caches_results(fn.parent) else self._got_and_called_in_loop(fn.parent)
                if getter is not None:
                    self.report(site, f"`{fn.name}` is jitted anew on every {getter} and called at once, in a "
                                      "loop: each new function object is traced and compiled again")
                return
            calls = index.scope_calls.get((fn.parent, fn.name), [])
            if not self._runs_once(fn.parent) and len(calls) == 1 and not self._repeated(calls[0]) \
                    and self._called_repeatedly(fn.parent) and not _used_in_closure(fn.parent, [fn.name], fn.node) \
                    and not _memoized(fn):
                self.report(site, f"`{fn.name}` is jitted anew on every call of `{fn.parent.label}` and used once: "
                                  "each new function object is traced and compiled again")
            return
        if not isinstance(site, cst.Call) or self._transform_chain(site) is not None:
            return  # ``jax.jit(jax.grad(f))``: see _fresh_transform_chains
        if _inlined(site):
            return
        target = _function_argument(site)
        made_per_call = isinstance(fn.node, cst.Lambda) or bool(entry.partial_positional or entry.partial_keywords) \
            or (isinstance(target, cst.Call) and index.qualify(target.func) == "functools.partial") \
            or self._factory_call(target, fn, scope) is not None
        if entry.self_bound:
            # `self.method` is a new bound-method object on every access (verified: one trace per call); but
            # equinox's filter transforms key their cache on the callable's equality, and a bound method of
            # the same object compares equal, as does an equinox transform of one (`eqx.filter_jit(
            # eqx.filter_vmap(self._step))`, JAX 0.10.2 / equinox 0.13: one trace over four calls)
            made_per_call = scope is not None and _method_of(scope) not in _SETUP_METHODS \
                and not (entry.transform is not None and entry.transform.name.startswith("equinox."))
        if index.haiku_transformed(target, scope) is not None:
            # `jax.jit(net.apply)`: the function wrapped is the one `hk.transform` made when `net` was
            # bound, read from it again -- the same object at every call, whatever it transformed
            made_per_call = False
        elif isinstance(fn.node, cst.Lambda) and fn.parent is None and isinstance(target, cst.Name) \
                and not entry.partial_positional and not entry.partial_keywords \
                and index.single_value(target.value, None) is fn.node and not _local_in(target.value, scope):
            # `split = lambda key: ...` at module level is one function object, as a def is: a wrapper
            # made from it on every call finds its trace in JAX's cache (JAX 0.10.2: 20 `jax.pmap(split)(k)`,
            # one trace per kind of input)
            made_per_call = False
        if not made_per_call and fn.parent is None:
            return  # a top-level function: the cache is keyed on it, no recompilation
        if not made_per_call and scope is not None and not _defined_within(fn, scope) \
                and site not in index.calls_in_loops:
            # a function of an enclosing scope is the same object at every call of this one: the
            # jit wrapper made here finds its trace in JAX's cache after the first call (measured on
            # JAX 0.10.2: one compile for five calls)
            return
        # a lambda bound to a name outside the loop (`step = lambda c: ...` before it) is one object at every
        # iteration: a wrapper made again finds its trace and compile in JAX's cache (measured on JAX 0.10.2:
        # one compile for three `jax.jit(step)(x)`)
        same_lambda = isinstance(fn.node, cst.Lambda) and isinstance(target, cst.Name) and not fn.defined_in_loop \
            and not entry.partial_positional and not entry.partial_keywords
        if site in index.calls_in_loops:
            if (made_per_call and not same_lambda) or fn.defined_in_loop:
                if scope is not None and self._runs_once(scope) and self._configured_per_iteration(site, scope):
                    return
                if scope is None and self._reconfigured_globals(site):
                    return  # (a script's loop over its configurations)
                if self._method_of_item_object(site, site.args[0].value if site.args else None, scope):
                    return
                if self._options_per_iteration(site, scope):
                    return  # (one wrapper cannot take them: each iteration needs its own)
                uses = self._wrapper_uses(site, scope, entry.call_names)
                if self._compiles_anyway(site, uses, entry) or self._inputs_sized_by_loop(site, uses) \
                        or (scope is not None and (self._amortised(site, scope, uses)
                                                   or self._reused_per_configuration(site, scope, entry.call_names))):
                    return
                if self._outlives_iteration(site, entry.call_names, scope.node if scope is not None else index.module):
                    return  # one wrapper per item, kept to be called later
                if self._remade_on_change(site, entry.call_names):
                    return
                if self._distinct_program_each_iteration(site, fn) or self._caches_cleared(site):
                    return
                self.report(site, f"`{self.ctx.code(site.func)}` of {_what(fn, entry)} on every loop iteration: "
                                  "a fresh callable is traced and compiled each time")
            return
        if scope is None:
            return
        if made_per_call and site in index.per_element:
            if site in self._kept_elements() or (
                    self._runs_once(scope) and self._configured_per_iteration(site, scope)) \
                    or self._compiles_anyway(site, self._wrapper_uses(site, scope, entry.call_names), entry):
                return  # (a table of wrappers, one per element, built once and called later, is fine)
            self.report(site, f"`{self.ctx.code(site.func)}` of {_what(fn, entry)} for every element of a "
                              "comprehension: a fresh callable is traced and compiled each time")
            return
        if self._runs_once(scope):
            return
        if made_per_call and fn.parent is scope and any(value is site for value in returned_values(scope.node.body)):
            getter = self._got_and_called_in_loop(scope)
            if getter is not None:
                self.report(site, f"`{self.ctx.code(site.func)}` of {_what(fn, entry)} made on every {getter} and "
                                  "called at once, in a loop: a fresh callable is traced and compiled each time")
            return
        if any(name in scope.global_names for name in entry.call_names):
            return  # kept in a module global (`global CACHE; if CACHE is None: CACHE = jax.pmap(...)`)
        if self._kept_in_outer_container(site, scope, entry.call_names):
            return  # a cache of wrappers, one per key (`cache[sharding] = fn`), looked up by later calls
        uses = self._wrapper_uses(site, scope, entry.call_names)
        if len(uses) == 1 and not self._repeated(uses[0]) and self._called_repeatedly(scope) \
                and not _used_in_closure(scope, entry.call_names, fn.node):
            self.report(site, f"`{self.ctx.code(site.func)}` of {_what(fn, entry)} on every call of `{scope.label}`, "
                              "used once: a fresh callable is traced and compiled each time")

    def _kept_in_outer_container(self, site: cst.CSTNode, scope: FunctionInfo, names: Sequence[str]) -> bool:
        """The wrapper made at ``site`` is stored under a key of a container that outlives the call: one
        the function does not bind itself (a module global, a variable of the function around it) or an
        attribute of its object (``self._jits[key] = fn``) -- ``cache[sharding] = fn`` after ``fn =
        cache.get(sharding)`` found none.  A later call finds it there: one wrapper, and one compile, per
        key (measured on JAX 0.10.2: 50 leaves resharded, 1 wrapper made, 1 compile), as jit's own cache
        keys its traces."""
        node = scope.node
        if not isinstance(node, cst.FunctionDef):
            return False
        own_self = node.params.params[0].name.value if scope.is_method and node.params.params else None
        plain = {name for name in names if "." not in name}
        for stmt in walk(node.body):
            if not isinstance(stmt, cst.Assign) or not (stmt.value is site or (
                    isinstance(stmt.value, cst.Name) and stmt.value.value in plain)):
                continue
            for target in stmt.targets:
                if not isinstance(target.target, cst.Subscript):
                    continue
                root = target.target.value
                while isinstance(root, (cst.Attribute, cst.Subscript)):
                    root = root.value
                if isinstance(root, cst.Name) and (root.value not in scope.local_names or (
                        root.value == own_self and root is not target.target.value)):
                    return True
        return False

    def _got_and_called_in_loop(self, scope: FunctionInfo) -> Optional[str]:
        """``scope`` returns the wrapper it makes (``@property def step(self): return jax.jit(lambda ...)``,
        or ``def stepper(): return jax.jit(...)``): where a loop of this module gets it and calls it at
        once (``self.step(pos, vel)``, ``stepper()(x)``), every iteration makes and compiles a new one
        (JAX 0.10.2: 48 compiles over 48 steps).  What is said of the getter, or None."""
        index = self.ctx.index
        node = scope.node
        if not isinstance(node, cst.FunctionDef):
            return None
        is_property = scope.cls is not None and any(
            isinstance(d.decorator, cst.Name) and d.decorator.value == "property" for d in node.decorators)
        if is_property:
            for call in index.calls_in_loops:
                func = call.func
                if isinstance(func, cst.Attribute) and func.attr.value == scope.name \
                        and isinstance(func.value, cst.Name) and func.value.value == "self" \
                        and getattr(index.call_scopes.get(call, (None, None))[0], "cls", None) is scope.cls:
                    return f"access of the property `{scope.name}`"
            return None
        if scope.cls is not None or scope.parent is not None:
            return None
        if index.functions.get(scope.name) is not scope:
            return None
        for call in index.calls_in_loops:
            func = call.func
            caller = index.call_scopes.get(call, (None, None))[0]
            if isinstance(func, cst.Call) and isinstance(func.func, cst.Name) and func.func.value == scope.name \
                    and not _local_in(scope.name, caller):
                return f"call of `{scope.name}`"
            if isinstance(func, cst.Name) and func.value == scope.name and not _local_in(scope.name, caller) \
                    and (self._called_in_its_iteration(call, caller) or self._handed_to_a_caller(call, caller)):
                return f"call of `{scope.name}`"
        return None

    def _handed_to_a_caller(self, call: cst.Call, caller: Optional[FunctionInfo]) -> bool:
        """``score(make_kernel(ls, var), X, y)`` in a loop: the function got is an argument of a call of a
        module function that only calls the parameter it binds (never stores, returns or hands it on): it is
        used in that call, in that iteration, and gone after it."""
        index = self.ctx.index
        arg = index.parents.get(id(call))
        outer = index.parents.get(id(arg)) if isinstance(arg, cst.Arg) and arg.value is call and not arg.star \
            else None
        if not isinstance(outer, cst.Call) or outer.func is call:
            return False
        callee, bound = index.resolve_function(outer.func, caller, caller.cls if caller is not None else None)
        if callee is None or bound or callee.is_method or not isinstance(callee.node, cst.FunctionDef):
            return False
        params = [param for a, param in bind_arguments(callee.params, outer.args) if a is arg]
        if len(params) != 1 or params[0] is None:
            return False
        name = params[0].name.value
        if len(callee.scope.bindings_of(name)) != 1:
            return False  # (bound again in the function)
        uses = list(name_references(callee.node.body, name))
        return bool(uses) and all(isinstance(index.parents.get(id(ref)), cst.Call)
                                  and index.parents.get(id(ref)).func is ref for ref in uses)

    def _called_in_its_iteration(self, call: cst.Call, caller: Optional[FunctionInfo]) -> bool:
        """``update = make_update(lr)`` in a loop, ``update`` bound nowhere else in the function and every
        use of it a call in the same loop: the function got is used in that iteration only."""
        index = self.ctx.index
        parent = lambda node: index.parents.get(id(node))  # noqa: E731
        statement = parent(call)
        if caller is None or not isinstance(caller.node, cst.FunctionDef) or not isinstance(statement, cst.Assign) \
                or len(statement.targets) != 1 or not isinstance(statement.targets[0].target, cst.Name):
            return False
        name = statement.targets[0].target
        if len(caller.scope.bindings_of(name.value)) != 1 or name.value in index.declared_names:
            return False
        loops = index.calls_in_loops.get(call)
        uses = [ref for ref in name_references(caller.node.body, name.value) if ref is not name]
        return bool(uses) and all(
            isinstance(parent(ref), cst.Call) and parent(ref).func is ref
            and index.calls_in_loops.get(parent(ref)) == loops for ref in uses)

    def _inputs_sized_by_loop(self, made: cst.CSTNode, uses: Sequence[cst.Call]) -> bool:
        """The loop around ``made`` runs over distinct sizes (ints, or tuples of ints: a benchmark's
        ``for n in (10, 100, 1000)``), and every call of the wrapper, in that loop, passes an input the
        size selects or builds (``X[n]``, ``jnp.ones((n, n))``, through a name bound to one in the
        loop): each iteration brings new shapes, which a wrapper made once before the loop would compile
        for as often (JAX's cache is keyed on shapes: measured on JAX 0.10.2, 9 compiles either way)."""
        index = self.ctx.index
        loops = index.loops_of.get(made)
        loop = loops[-1] if loops else None
        if not isinstance(loop, cst.For) or not uses:
            return False
        scope = index.call_scopes.get(uses[0], (None,))[0]
        sizes = _constants(loop.iter, index, scope, sizes=True)
        if not sizes or len(set(sizes)) != len(sizes) or not all(
                size[0] == "shape" or isinstance(size[0], int) for size in sizes):  # type: ignore[index]
            return False
        targets = {n.value for n in name_references(loop.target)}
        own = scope.scope if scope is not None else index.scope_model.module_scope
        # what the iteration computes from the size (`shape = (n, n)`, `npix = 12 * n * n`) sizes as it does
        derived = self._varying_names(loop, own)

        def selected(value: cst.BaseExpression, depth: int = 0) -> bool:
            if isinstance(value, cst.Name) and depth < 3:
                # (every binding of it in the loop, each one selected: `x = X1[dim]` ... `x = X3[dim]`; one in
                # another loop of the function, `for nside in sizes: m = ...` twice, cannot reach this one)
                bindings = [b for b in own.bindings_of(value.value) if b.binds_value]
                inside = [b for b in bindings if loop in b.loops]
                if any(not b.loops for b in bindings if b not in inside):
                    return False  # (bound before the loop too: the first iteration may read that value)
                return bool(inside) and all(b.node is not None and selected(_bound_value(b.node), depth + 1)
                                            for b in inside)
            if isinstance(value, cst.Subscript):
                # `X[n]`, or an item or a view of an input so selected (`x[None]`)
                return bool(value.slice) and bool(_names_read(value.slice[0]) & targets) or selected(value.value, depth)
            if isinstance(value, cst.BinaryOperation):
                # arithmetic broadcasts: an operand of the iteration's size gives the result that size
                return selected(value.left, depth) or selected(value.right, depth)
            if isinstance(value, cst.UnaryOperation):
                return selected(value.expression, depth)
            return isinstance(value, cst.Call) and any(_names_read(a.value) & (targets | derived) for a in value.args)

        return all(loop in index.loops_of.get(use, ()) and any(selected(a.value) for a in use.args if not a.star)
                   for use in uses)

    def _outlives_iteration(self, made: cst.CSTNode, names: Iterable[str], root: cst.CSTNode) -> bool:
        """The wrapper made at ``made`` outlives its iteration: it is stored (an element of a list
        or dict display, a subscript or attribute target, an argument of a call that keeps it, as
        ``fns.append(w)`` or ``Constraint(fun=w)``), returned or yielded, or one of ``names`` (the
        names it is bound to) is used in ``root`` other than by being called.  One wrapper per item,
        kept to be called later, compiles once per item and never again (measured on JAX 0.10.2: 3
        items, 5 rounds of calls, 3 compilations), which is not recompilation."""
        chain = path_to(root, made) or []
        # `jax.jit(f).trace(x).lower().compile()`: the compiled executable's fate is the wrapper's
        while len(chain) >= 3 and isinstance(chain[-2], cst.Attribute) and chain[-2].attr.value in _AOT_STEPS \
                and isinstance(chain[-3], cst.Call) and chain[-3].func is chain[-2]:
            chain = chain[:-2]
        if len(chain) >= 2:
            parent = chain[-2]
            if isinstance(parent, (cst.Return, cst.Yield, cst.Element, cst.DictElement, cst.StarredElement)):
                return True
            if isinstance(parent, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in parent.targets] if isinstance(parent, cst.Assign) else [parent.target]
                if any(isinstance(t, (cst.Subscript, cst.Attribute)) for t in targets):
                    return True
            if isinstance(parent, cst.Arg) and len(chain) >= 3:
                owner = chain[-3]
                called = len(chain) >= 4 and isinstance(chain[-4], cst.Call) and chain[-4].func is owner
                if not called:
                    return True  # passed to a call that keeps it (`fns.append(jax.jit(f))`)
        return any(_used_other_than_called(root, name) for name in names if "." not in name)

    @staticmethod
    def _over_listed_functions(index: ModuleIndex, site: cst.CSTNode, inner: cst.BaseExpression,
                               root: cst.CSTNode) -> bool:
        """Each iteration transforms a different function, taken from what the loop runs over: the
        function is the loop variable (``for name, fn in (("f", f), ("d1", d1))``), or a name the
        loop body binds once from it (``init_fn = make_init(kind)``, ``fn = models[kind].init``).
        Each is compiled once, none of them twice, and no wrapper made before the loop could stand
        for them. Not where the loop counts (``range``, ``enumerate``'s index, a display of numbers):
        a function that differs per number is one function with a parameter (pass it traced)."""
        if not isinstance(inner, cst.Name):
            return False
        for node in reversed(path_to(root, site) or []):
            if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                loop = node.for_in
                while loop.inner_for_in is not None:
                    loop = loop.inner_for_in
                target, iterable, statement = loop.target, loop.iter, None
            elif isinstance(node, cst.For):
                target, iterable, statement = node.target, node.iter, node
            elif isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return False
            else:
                continue
            items = _item_names(target, iterable)
            if inner.value in items:
                return isinstance(iterable, (cst.Tuple, cst.List)) or not _counts(iterable)
            scope = index.scope_model.scopes.get(root)
            if statement is None or _counts(iterable) or scope is None:
                return False
            assignments = _bound_in_loop(scope, statement)
            values = [value for name, value in assignments if name == inner.value]
            if len(values) != 1 or values[0] is None or isinstance(values[0], cst.Lambda):
                return False  # (a lambda made per iteration is one function: its closure varies)
            value = values[0]
            if isinstance(value, cst.Call) and index.qualify(value.func) == "functools.partial":
                return False  # one function with an argument bound per iteration
            return inner.value in _derived_from(items, assignments)
        return False

    def _configured_per_iteration(self, node: cst.CSTNode, scope: FunctionInfo) -> bool:
        """In code run once by design (a test, a benchmark, ``main``): the callable made in a loop
        (or a comprehension) uses a name whose value the innermost loop around it changes (see
        _varying_names), so each iteration compiles a different function on purpose (a sweep over
        dtypes or tile sizes), not the same one again."""
        index = self.ctx.index
        loops = index.loops_of.get(node)
        used = _names_read(node) - _own_names(node, index)
        comprehension = index.per_element.get(node)
        if comprehension is not None:  # the element of a comprehension: its targets change
            return any(where is not None and where.kind == Scope.COMPREHENSION
                       for where in map(comprehension.resolve, used))
        return bool(loops) and bool(used & self._varying_names(loops[-1], scope.scope))

    def _reconfigured_globals(self, node: cst.CSTNode) -> bool:
        """A module-level loop (a script's, run once) makes the callable of a module function that reads globals
        the loop changes (`config["STEP_INTERVAL"] = step_int`, then `config, env = make_config_env(config, name)`,
        then `jax.jit(jax.vmap(make_train))`): each trace reads that iteration's values, a program of its own,
        and a wrapper made before the loop would keep the first."""
        index = self.ctx.index
        loops = index.loops_of.get(node)
        if not loops:
            return False
        varying = self._varying_names(loops[-1], index.scope_model.module_scope)
        used = _names_read(node) - _own_names(node, index)
        functions = {name for name in used if name in index.functions and index.functions[name].parent is None}
        return any(index.globals_read_by(name) & varying for name in functions)

    def _method_of_item_object(self, site: cst.CSTNode, inner: Optional[cst.BaseExpression],
                               scope: Optional[FunctionInfo]) -> bool:
        """The callable made in a ``for`` loop is a method of an object the same iteration builds from
        the loop's item (``env = make(game)``, then ``jax.jit(jax.vmap(env.step))``), a function made
        from its methods (``jax.jit(auto_reset(env.step, env.init))``), or a lambda calling one
        (``jax.jit(lambda x: model.apply(params, x))``, ``model = Net(graph)``, ``graph = Square(L)``):
        each item has its own object, so each is its own function to JAX (a bound method keys the
        cache on its object; the object's settings are its code): one compile per item is the least
        any wrapper gives, and none made before the loop can stand for them.  A lambda or ``partial``
        over the item's data alone is not this: the data can be arguments of one wrapper; nor a
        method of one object rewrapped every iteration."""
        loops = self.ctx.index.loops_of.get(site)
        if not loops or not isinstance(loops[-1], cst.For):
            return False
        if isinstance(inner, cst.Call) and self.ctx.index.qualify(inner.func) != "functools.partial":
            methods = [arg.value for arg in inner.args if isinstance(arg.value, cst.Attribute)]
        elif isinstance(inner, cst.Lambda):
            own = {p.name.value for p in inner.params.params}
            methods = [n.func for n in calls_in(inner.body) if isinstance(n.func, cst.Attribute)
                       and isinstance(n.func.value, cst.Name) and n.func.value.value not in own]
        else:
            methods = [inner]
        owners = {m.value.value for m in methods if isinstance(m, cst.Attribute) and isinstance(m.value, cst.Name)}
        if not owners:
            return False
        loop = loops[-1]
        names = scope.scope if scope is not None else self.ctx.index.scope_model.module_scope
        varying = self._varying_names(loop, names)
        for owner in owners:
            # made once an iteration, by a call whose arguments read the item (`env = make(game)`)
            made = [b for b in names.bindings.get(owner, ()) if loop in b.loops and b.binds_value]
            if owner not in varying or len(made) != 1 or made[0].kind is not BindingKind.ASSIGNMENT \
                    or not isinstance(made[0].value, cst.Call):
                return False
        return True

    def _options_per_iteration(self, site: cst.CSTNode, scope: Optional[FunctionInfo]) -> bool:
        """The options of the jit made in the loop (``out_shardings=shardings[name]``, a static
        spec, ...: every argument but the function) read a name whose value the innermost loop
        changes: the wrappers are configured differently, and no one wrapper made before the loop
        could stand for them."""
        loops = self.ctx.index.loops_of.get(site)
        if not isinstance(site, cst.Call) or not loops or scope is None:
            return False
        options = [arg.value for arg in site.args[1:]]
        varying = self._varying_names(loops[-1], scope.scope)
        return any(_names_read(option) & varying for option in options)

    def _varying_names(self, loop: cst.CSTNode, scope: Scope) -> Set[str]:
        """The names of ``scope`` whose value changes from one iteration of ``loop`` to the next: its
        targets, and what the loop binds from them (an assignment whose value reads one, or that an ``if``
        on one chooses, a def whose code does, any other binding in the loop: a nested loop's target, a
        ``with`` name).  A name
        the loop binds again to the same value every time (``optimizer = optax.adamw(lr)``, a ``def``
        reading only values from outside the loop) does not change what the iteration compiles."""
        index = self.ctx.index
        in_loop = [(name, b) for name, bindings in scope.bindings.items() for b in bindings
                   if loop in b.loops and b.binds_value and b.kind is not BindingKind.PARAMETER]
        varying: Set[str] = set()
        for name, b in in_loop:
            if b.node is loop or b.kind not in (BindingKind.ASSIGNMENT, BindingKind.FUNCTION):
                varying.add(name)  # the loop's own targets, and bindings whose value is not read here
        # `config["STEP_INTERVAL"] = step_int`: an item or attribute of a name stored from a varying value
        # changes what the name holds (a dict configured per iteration)
        stored: List[Tuple[str, cst.BaseExpression]] = []

        def note(item: cst.CSTNode) -> bool:
            if isinstance(item, cst.Assign):
                for t in item.targets:
                    root = t.target
                    while isinstance(root, (cst.Subscript, cst.Attribute)):
                        root = root.value
                    if root is not t.target and isinstance(root, cst.Name):
                        stored.append((root.value, item.value))
            return isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda))

        _walk_until(loop.body if isinstance(loop, (cst.For, cst.While)) else loop, note)
        changed = True
        while changed:
            changed = False
            for name, value in stored:
                if name not in varying and _names_read(value) & varying:
                    varying.add(name)
                    changed = True
            for name, b in in_loop:
                if name in varying:
                    continue
                source = b.node if b.kind is BindingKind.FUNCTION else b.value
                if source is None and isinstance(b.node, cst.Assign):
                    source = b.node.value  # unpacked (`defs, state = nnx.split(layer)`): what is unpacked
                if source is None:
                    continue
                read = _names_read(source) - (_own_names(source, index) if b.kind is BindingKind.FUNCTION else set())
                if read & varying or self._chosen_by(b.node, loop, varying):
                    varying.add(name)
                    changed = True
        return varying

    def _chosen_by(self, node: cst.CSTNode, loop: cst.CSTNode, varying: Set[str]) -> bool:
        """``node`` (a binding) sits in a branch of an ``if`` inside ``loop`` whose test reads a name of
        ``varying``: which value it binds changes with the iteration (``if constant: dt0 = 0.1`` / ``else:
        dt0 = None`` in a loop over ``constant``)."""
        parents = self.ctx.index.parents
        child, parent = node, parents.get(id(node))
        while parent is not None and parent is not loop:
            if isinstance(parent, cst.If) and child is not parent.test and _names_read(parent.test) & varying:
                return True
            child, parent = parent, parents.get(id(parent))
        return False

    def _amortised(self, made: cst.CSTNode, scope: FunctionInfo, uses: Sequence[cst.Call]) -> bool:
        """The callable made in a loop reads a name that loop rebinds (a training phase's rate: each
        iteration compiles a different function on purpose), and every call of its wrapper is in that
        iteration, one of them in a loop inside it (each wrapper runs many times, on one compilation:
        measured on JAX 0.10.2, 2 phases of 20 steps, 2 compilations; a warm-up call before the loop too).
        Not where a loop around it counts (``range(n_epochs)`` with ``n`` not a literal, a ``while``): a
        rate computed from the epoch makes one compile per
        epoch, as many as the run is long, where passing it traced compiles once -- unless the ``while``
        walks a sequence (see _walks_sequence), as a ``for`` over its items does."""
        loops = self.ctx.index.loops_of.get(made)
        if not loops or not uses or not (self._configured_per_iteration(made, scope)
                                         or self._walks_sequence(loops[-1], made, scope)):
            return False
        if any(_counted(loop) and not self._walks_sequence(loop, made, scope) for loop in loops):
            return False  # (an epoch counter's rate: one compile per epoch, growing with the run)
        # every call is in that iteration, and one of them in a loop of its own there: a warm-up call before
        # the timed loop (cbfkit's benchmark: one compile per size, then 101 calls) runs on the same compile
        inner = False
        for use in uses:
            around = self.ctx.index.loops_of.get(use, ())
            if len(around) < len(loops) or tuple(around[:len(loops)]) != tuple(loops):
                return False
            inner = inner or len(around) > len(loops)
        return inner

    def _walks_sequence(self, loop: cst.CSTNode, made: cst.CSTNode, scope: FunctionInfo) -> bool:
        """A ``while`` loop that takes what the callable made in it reads from a sequence it walks: a name the
        callable reads is bound by a statement of the loop's body to an item or a slice of a sequence the loop
        does not bind, at a position the loop moves (``segment = jaxpr.eqns[pos:next_pos]``, ``eqn = program[i]``),
        or to one popped from it (``eqn = eqns.pop(0)``).  Its iterations are that sequence's parts, as many as it has -- a ``for`` over
        them in another form -- not a count the run grows (jax-gptq's interpreter, a block per segment of the
        program, each run over every batch: JAX 0.10.2, one compile per segment)."""
        if not isinstance(loop, cst.While) or not isinstance(loop.body, cst.IndentedBlock):
            return False
        index = self.ctx.index
        bound_here = {name for name, bindings in scope.scope.bindings.items()
                      for b in bindings if loop in b.loops}
        read = _names_read(made) - _own_names(made, index)
        for stmt in loop.body.body:
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and small.targets[0].target.value in read):
                    continue
                value = small.value
                if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) \
                        and value.func.attr.value == "pop":
                    value = value.func.value
                elif isinstance(value, cst.Subscript) and bound_here & {
                        n.value for element in value.slice for n in name_references(element)}:
                    value = value.value  # (at a position the loop moves: `jaxpr.eqns[pos:next_pos]`)
                else:
                    continue
                root = value
                while isinstance(root, cst.Attribute):
                    root = root.value
                if isinstance(root, cst.Name) and root.value not in bound_here:
                    return True
        return False

    def _reused_per_configuration(self, made: cst.CSTNode, scope: FunctionInfo, names: Sequence[str]) -> bool:
        """The callable made in a loop reads a name the loop rebinds (each iteration's configuration: a
        block size bound by a ``partial``, the layers a closure merges), and the wrapper is read in a
        closure that the iteration hands on (``timeit(lambda: fn(x))``), which may call it any number of
        times: one compile per configuration, reused by the calls of its iteration (measured on JAX
        0.10.2: 3 configurations timed 5 times each, 3 compiles)."""
        return self._configured_per_iteration(made, scope) and _used_in_closure(scope, names, made)

    def _called_only_in_traces(self, scope: Optional[FunctionInfo], names: Sequence[str]) -> bool:
        """The wrapper is bound to one name, and every use of that name (of any of its bindings, all plain
        assignments) is a call made in traced code (a function jitted in turn): a jit called while another
        is traced is inlined into that trace and compiles nothing of its own (measured on JAX 0.10.2: no
        compile of the inner function; what compiles is the caller, per its own trace)."""
        index = self.ctx.index
        if len(names) != 1 or names[0].startswith(("self.", ".")):
            return False
        name = names[0]
        own = scope.scope if scope is not None else index.scope_model.module_scope
        if own.declares(name):
            return False
        calls = []  # (of every binding of the name: whichever wrapper it holds, it is only called so)
        for ref in name_references(scope.node if scope is not None else index.module, name):
            holder = index.parents.get(id(ref))
            if isinstance(holder, cst.AssignTarget) and holder.target is ref:
                continue  # (the binding)
            if not (isinstance(holder, cst.Call) and holder.func is ref):
                return False
            calls.append(holder)
        return bool(calls) and all(index.owner_of(call) in self.ctx.facts.bodies for call in calls)

    def _wrapper_uses(self, site: Optional[cst.Call], scope: Optional[FunctionInfo],
                      names: Iterable[str]) -> List[cst.Call]:
        """The calls of a wrapper: of the local names it is bound to (``names``) in ``scope``, and the call
        that applies the wrapper made at ``site`` at once (``jax.jit(f)(x)``)."""
        index = self.ctx.index
        uses = [c for name in names if not name.startswith(("self.", "."))
                for c in index.scope_calls.get((scope, name), [])]
        return uses + self._immediate_uses(site) if site is not None else uses

    def _compiles_anyway(self, made: cst.CSTNode, uses: Sequence[cst.Call], entry: Optional[EntryPoint]) -> bool:
        """Each use of the wrapper made at ``made`` passes, in the same iteration, a static argument that is
        a new cache key on every iteration (a new object built from the loop variable: see
        ``analysis.iterations``): the wrapper made once before the loop would compile as often (measured on
        JAX 0.10.2: 3 iterations, 3 compiles either way), so where it is made costs nothing."""
        index = self.ctx.index
        iteration = iteration_of(made, index)
        static = entry.static_params() if entry is not None else set()
        if iteration is None or not static or not uses:
            return False
        for use in uses:
            if iteration_of(use, index) is not iteration:
                return False
            caller = index.call_scopes.get(use, (None,))[0]
            scope = caller.scope if caller is not None else index.scope_model.module_scope
            if not any(_argument_name(arg, param) in static
                       and (new_key_each_iteration(arg.value, iteration, scope, index)
                            or self._distinct_target(arg.value, made, iteration, caller))
                       for arg, param in entry.bind_args(use)):
                return False
        return True

    def _distinct_target(self, value: cst.BaseExpression, made: cst.CSTNode, iteration: cst.CSTNode,
                         caller: Optional[FunctionInfo]) -> bool:
        """``value`` is the target of the ``for`` loop ``iteration`` (the counter of ``enumerate``), whose
        values are distinct (``range()``, a display of distinct constants), and no loop of the function
        runs that loop again: as a static argument it is a new cache key on every iteration (one program
        per task index: measured on JAX 0.10.2, 3 tasks, 3 compiles with the wrapper made in the loop or
        before it)."""
        if not isinstance(iteration, cst.For) or not isinstance(value, cst.Name):
            return False
        loops = self.ctx.index.loops_of.get(made, ())
        if len(loops) != 1 or loops[0] is not iteration:
            return False  # (an epoch loop around it: the same indexes come back, a wrapper made once keeps them)
        index = self.ctx.index
        target, iterable = _counted_target(iteration, index)
        return isinstance(target, cst.Name) and target.value == value.value \
            and _distinct_values(iterable, index, caller)

    def _distinct_program_each_iteration(self, site: cst.CSTNode, fn: FunctionInfo) -> bool:
        """The function made in the loop reads the target of every loop around ``site`` as a shape (an
        argument of ``jax_api.SHAPE_ARGUMENTS``, directly or through arithmetic and tuples), and each of
        those loops gives distinct values (``range()``, a display of distinct constants): every
        iteration is another program, which a wrapper made before the loop -- the values then static
        arguments -- would compile just as often (measured on JAX 0.10.2: 18 shapes, 18 compiles either
        way).  A loop whose values may repeat, or whose target the function does not read as a shape
        (an epoch), still makes the same program again.  A Python ``range()`` bound counts as a shape
        (the loop is unrolled), and so does what the function hands to a function a factory made (``make(n)``
        jitted, or ``transform = make(n)`` called in it), where the made function reads it so.  So does an
        object or function made in this iteration from its loop variable that the function reads (itself or
        through the functions of the iteration it calls, ``wavelet = WaveletTransform(n, kind=kind)``): a
        wrapper made before the loop would take it as a static argument, a new cache key every iteration."""
        index = self.ctx.index
        loops = index.loops_of.get(site)
        if not loops or not isinstance(fn.node, (cst.Lambda, cst.FunctionDef)):
            return False
        if self._reads_object_of_iteration(site, fn):
            return True
        shapes = (_shape_names(fn.node, index) | _item_index_names(fn.node, index)
                  | _loop_count_names(fn.node)) - set(fn.local_names)
        owner = index.call_scopes.get(site, (None, None))[0] if isinstance(site, cst.Call) else None
        factory = self._factory_call(_function_argument(site), fn, owner) if isinstance(site, cst.Call) else None
        if factory is not None:  # `jax.jit(make(n))`: what the factory's parameters are given is read as shapes
            shapes |= _given_for(factory[0], factory[1], shapes)
        shapes |= self._shapes_of_made_callees(fn, owner)
        for loop in loops:
            if not isinstance(loop, cst.For):
                return False
            target, iterable = _counted_target(loop, index)
            if not isinstance(target, cst.Name) or target.value not in shapes \
                    or not _distinct_values(iterable, index, owner):
                return False
        return True

    def _reads_object_of_iteration(self, site: cst.CSTNode, fn: FunctionInfo) -> bool:
        """``fn``, or a function of the same enclosing function that it calls (transitively), reads a name
        bound in the iteration around ``site`` to a new object holding the loop variable
        (``analysis.iterations.new_key_each_iteration``) or to the function a closure factory makes from it."""
        index = self.ctx.index
        iteration = iteration_of(site, index)
        owner = fn.parent
        if iteration is None or owner is None:
            return False
        varying = {n.value for n in assigned_names(iteration.target)} if isinstance(iteration, cst.For) else set()
        siblings = {name: info for name, info in owner.nested.items() if info is not fn}
        todo, seen, free = [fn], set(), set()
        while todo and len(seen) < 16:
            f = todo.pop()
            if f in seen:
                continue
            seen.add(f)
            for ref in name_references(f.node.body):
                if ref.value in f.local_names or ref.value in free:
                    continue
                free.add(ref.value)
                if ref.value in siblings:
                    todo.append(siblings[ref.value])
        for name in sorted(free - set(siblings)):
            if new_key_each_iteration(cst.Name(name), iteration, owner.scope, index):
                return True
            value = index.single_value(name, owner) if varying else None
            given = {r.value for a in value.args for r in name_references(a.value)} \
                if isinstance(value, cst.Call) else set()
            if varying & given and index.resolve_function(value, owner, None)[0] is not None:
                return True  # (`transform = make_transform(n)`: the function a factory returns, made anew)
        return False

    def _shapes_of_made_callees(self, fn: FunctionInfo, owner: Optional[FunctionInfo]) -> Set[str]:
        """The names that ``fn`` hands, through a function it calls that a factory made in the enclosing
        function (``transform = make_transform(nscales)``, then ``transform(x)`` in ``fn``), to what that
        made function reads as shapes or loop counts: each value of them is another program of ``fn``,
        whose wrapper made once would take the made function as a static argument, a new object each time."""
        index = self.ctx.index
        out: Set[str] = set()
        for call in calls_in(fn.node.body):
            if not isinstance(call.func, cst.Name) or call.func.value in fn.local_names:
                continue
            value = index.single_value(call.func.value, owner)
            made = index.resolve_function(value, owner, None)[0] if isinstance(value, cst.Call) else None
            if made is None or made.parent is None:
                continue  # (the function a factory returns, resolved through the factory: see ModuleIndex)
            reads = (_shape_names(made.node, index) | _loop_count_names(made.node)) - set(made.local_names)
            out |= _given_for(value, made.parent, reads)
        return out

    def _factory_call(self, target: Optional[cst.BaseExpression], fn: FunctionInfo,
                      scope) -> Optional[Tuple[cst.Call, FunctionInfo]]:
        """``target`` calls the function that makes ``fn`` (``jax.jit(make_corrector(gain, offset))``, ``fn`` a
        function nested in ``make_corrector`` and returned): a new function object at every call, unless the
        factory caches what it makes (``functools.cache``).  The call and the factory; None otherwise."""
        if not isinstance(target, cst.Call) or fn.parent is None:
            return None
        maker, bound = self.ctx.index.resolve_function(target.func, scope if isinstance(scope, FunctionInfo) else None,
                                                       None)
        if maker is None or bound or maker is not fn.parent or not isinstance(maker.node, cst.FunctionDef):
            return None
        if self._caches_results(maker):
            return None
        return target, maker

    def _caches_results(self, maker: FunctionInfo) -> bool:
        """``maker`` is decorated to cache what it returns (``functools.cache``): the same object for the
        same arguments."""
        return isinstance(maker.node, cst.FunctionDef) and any(
            self.ctx.index.qualify(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
            in _CACHING_DECORATORS for d in maker.node.decorators)

    def _caches_cleared(self, site: cst.CSTNode) -> bool:
        """A loop around ``site`` clears JAX's caches on every iteration (``jax.clear_caches()`` as a statement
        of its own body: a benchmark timing each model from cold): everything compiles again each
        iteration, so a wrapper made there costs nothing more than one made before the loop."""
        index = self.ctx.index

        def clears(stmts, depth: int) -> bool:
            for stmt in stmts:
                for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
                    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
                        continue
                    if index.qualify(small.value.func) in _CACHE_CLEARS:
                        return True
                    # (a helper of the module that does it as a statement of its own body: `clear_caches()`)
                    helper = index.functions.get(small.value.func.value) \
                        if isinstance(small.value.func, cst.Name) and depth == 0 else None
                    if helper is not None and helper.parent is None and isinstance(helper.node, cst.FunctionDef) \
                            and isinstance(helper.node.body, cst.IndentedBlock) and clears(helper.node.body.body, 1):
                        return True
            return False

        return any(clears(getattr(getattr(loop, "body", None), "body", ()), 0)
                   for loop in index.loops_of.get(site, ()))

    def _remade_on_change(self, site: cst.CSTNode, names: Sequence[str]) -> bool:
        """The wrapper made in the loop is made under an ``if`` whose branch changes what its own test reads
        (``if need_compile: step = jax.jit(...); need_compile = False``, ``if n != last: ...; last = n``), and
        called outside that ``if``: made again only when something else sets the test's state back (a new
        configuration), and the same wrapper called on the iterations between (measured on JAX 0.10.2:
        30 steps over 4 configurations, 4 compiles)."""
        index = self.ctx.index
        loops = index.loops_of.get(site)
        if not loops or not names:
            return False
        guard: Optional[cst.If] = None
        branch: Optional[cst.CSTNode] = None
        parents = index.parents
        child, parent = site, parents.get(id(site))
        while parent is not None and parent is not loops[-1]:
            if isinstance(parent, cst.If) and child is parent.body:
                guard, branch = parent, child
                break
            child, parent = parent, parents.get(id(parent))
        if guard is None or branch is None:
            return False
        bound = names_bound_in(branch)
        # the branch changes what its test reads, or what the wrapped function reads: a new configuration
        # (`train_step_fn = get_step_fn(new_optimizer)`, then `jax.pmap(partial(lax.scan, train_step_fn))`),
        # another function to compile, where hoisting the wrapper cannot keep one
        wrapped = _names_read(site.args[0].value) if isinstance(site, cst.Call) and site.args else set()
        if not (bound & _names_read(guard.test)) and not (bound & wrapped):
            return False
        return any(path_to(guard, use) is None for name in names
                   for use in index.scope_calls.get((index.call_scopes.get(site, (None,))[0], name), []))

    def _kept_elements(self) -> set:
        """Comprehension elements that are the wrapper itself (``{a: jax.jit(f_a) for a in agents}``):
        one wrapper per element is built and kept, to be called later, not rebuilt per use."""
        kept = getattr(self, "_kept", None)
        if kept is None:
            kept = self._kept = set()
            stack: List[cst.CSTNode] = [self.ctx.index.module]
            while stack:
                node = stack.pop()
                if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
                    kept.add(node.elt)
                elif isinstance(node, cst.DictComp):
                    kept.add(node.value)
                stack.extend(iter_children(node))
        return kept

    def _repeated(self, call: cst.Call) -> bool:
        return call in self.ctx.index.calls_in_loops or call in self.ctx.index.per_element

    def _runs_once(self, scope: FunctionInfo, path: FrozenSet[FunctionInfo] = frozenset()) -> bool:
        """Code run once by design (:func:`_runs_once`: a test, ``main``, an example), or a helper of such
        code: a module-level function private to its module (``_check_object``) or of a module nothing
        imports, that this module calls only from code run once, and whose name is read nowhere else (not
        handed on).  What a test's helper compiles, the test compiles."""
        if _runs_once(scope):
            return True
        index = self.ctx.index
        if scope.parent is not None or scope.cls is not None or scope in path or len(path) > 3 \
                or not (scope.name.startswith("_") or index.never_imported):
            return False
        calls = [call for call in index.calls_by_name.get(scope.name, ()) if isinstance(call.func, cst.Name)]
        if not calls or len(index.mentions(scope.name)) != len(calls) + 1:
            return False  # (the name read other than to call it, or bound again)
        return all(caller is not None and self._runs_once(caller, path | {scope})
                   for caller in (index.call_scopes.get(call, (None, None))[0] for call in calls))

    def _called_repeatedly(self, scope: FunctionInfo, path: FrozenSet[FunctionInfo] = frozenset()) -> bool:
        """Evidence that a function runs many times, so that what it compiles per call is compiled
        again and again: it is ``__call__`` (a layer or model, called per step), or this module calls
        it (by name or as a method) in a loop or a comprehension, or from a function that is itself
        called repeatedly.  A setup function that builds its step functions once has none (nor has a
        function called from a few places: whether each of those runs once or per step is unknown).
        A call made by the function itself, or by a function on the chain of callers followed to it,
        is recursion, not a caller from outside: ``_prep`` called by ``__setattr__``, which ``_prep``
        calls in a loop, is not called repeatedly by that loop."""
        if scope.name == "__call__":
            return True
        path = path | {scope}
        if len(path) > 4:
            return False
        by_name = getattr(self, "_calls_by_callee", None)
        if by_name is None:
            by_name = self._calls_by_callee = {}
            for call in self.ctx.index.call_scopes:
                func = call.func
                name = func.value if isinstance(func, cst.Name) else (
                    func.attr.value if isinstance(func, cst.Attribute) else None)
                if name is not None:
                    by_name.setdefault(name, []).append(call)
        for call in by_name.get(scope.name, ()):
            caller = self.ctx.index.call_scopes[call][0]
            if caller in path or not self._may_call(call, scope):
                continue
            if self._repeated(call):
                return True
            if caller is not None and not self._runs_once(caller) \
                    and caller not in self.ctx.facts.bodies and self._called_repeatedly(caller, path):
                return True
        return False

    def _may_call(self, call: cst.Call, scope: FunctionInfo) -> bool:
        """Whether ``call`` (found by the name of ``scope``) may call it: a method through an object or its
        class (``self.render(...)``), a function by its bare name -- not ``CartPole.render(...)`` for a
        function ``render``, nor ``render(...)`` for a method."""
        if scope.cls is None:
            return isinstance(call.func, cst.Name)
        return isinstance(call.func, cst.Attribute) or scope.is_static_method

    def _immediate_uses(self, site: cst.Call) -> List[cst.Call]:
        """``jax.jit(f)(x)``, or ``jax.grad(jax.jit(f))(x)``: the one call that uses the wrapper."""
        index = self.ctx.index
        outer = index.called_immediately.get(site)
        if outer is not None:
            return [outer]
        for inner, use in index.called_immediately.items():
            if index.qualify(inner.func) in jax_api.FRESH_FUNCTION_TRANSFORMS and any(
                    arg.value is site for arg in inner.args):
                return [use]
        return []

    def _fresh_transform_chains(self, traced_scopes) -> None:
        """``jax.jit(jax.grad(loss))``, ``jax.jit(jax.vmap(lambda x: ...))``: a jit of a transform
        chain that is a new function object each time it is evaluated -- a transform that returns a
        fresh function (``jax.grad``, ``jax.vmap``, ...) anywhere in the chain, or a fresh callable
        innermost (a lambda, a ``functools.partial``, a bound method, a nested ``def``) -- compiles
        again per loop iteration, per element of a comprehension, or per call of the enclosing
        function when it is made there and used once (as ``_fresh_wrapper`` does for one callable).
        """
        index = self.ctx.index
        # a cheap look first: a call with a call among its arguments (the layout walks the whole module)
        chains = {}
        for site in index.call_scopes:
            if any(type(arg.value) is cst.Call for arg in site.args):
                chain = self._transform_chain(site)
                if chain is not None:
                    chains[site] = chain
        if not chains:
            return
        for site, chain in chains.items():
            scope = index.owner_of(site)
            if isinstance(scope, cst.ClassDef) or scope in traced_scopes:
                continue
            layer, inner = chain
            if self._over_listed_functions(index, site, inner, scope.node if scope is not None else index.module):
                # one compile per item is needed; but a chain evaluated anew is a new function each
                # time, so a function that runs again and again compiles every item again
                if layer is not None and scope is not None and not self._runs_once(scope) \
                        and self._called_repeatedly(scope):
                    self.report(site, f"`{self.ctx.code(site.func)}` of a `{self.ctx.code(layer.func)}(...)` "
                                      f"result, made for each item on every call of `{scope.label}`: each call "
                                      "traces and compiles every item again")
                continue
            fresh = self._fresh_callable(inner, scope)
            if layer is not None:
                what, per_evaluation, in_loop = f"a `{self.ctx.code(layer.func)}(...)` result", True, False
            elif fresh is not None:
                what, per_evaluation, in_loop = fresh
                if what == "a bound method" and (index.qualify(site.func) or "").startswith("equinox."):
                    continue  # (equinox's cache compares the bound method, and its transforms of it, by equality)
            else:
                continue
            names = index.names_assigned(site)
            if site in index.calls_in_loops:
                if self._method_of_item_object(site, inner, scope):
                    continue
                if not (per_evaluation or in_loop) or scope is not None and self._runs_once(scope) and (
                        self._configured_per_iteration(site, scope)):
                    continue
                if scope is None and self._reconfigured_globals(site):
                    continue  # (a script's loop over its configurations)
                if self._outlives_iteration(site, names, scope.node if scope is not None else index.module):
                    continue  # one wrapper per item, kept to be called later
                uses = self._wrapper_uses(site, scope, names)
                if self._compiles_anyway(site, uses, self._entry_at.get(site)) \
                        or self._inputs_sized_by_loop(site, uses) \
                        or (scope is not None and self._reused_per_configuration(site, scope, names)) \
                        or self._called_only_in_traces(scope, names) or self._caches_cleared(site) \
                        or self._remade_on_change(site, names):
                    continue
                made = index.infos.get(inner) if isinstance(inner, (cst.Lambda, cst.FunctionDef)) else None
                if made is not None and self._distinct_program_each_iteration(site, made):
                    continue
                self.report(site, f"`{self.ctx.code(site.func)}` of {what} on every loop iteration: a fresh "
                                  "callable is traced and compiled each time")
                continue
            if scope is None:
                continue
            if site in index.per_element:
                if per_evaluation and site not in self._kept_elements() and not (
                        self._runs_once(scope) and self._configured_per_iteration(site, scope)) and not (
                        self._compiles_anyway(site, self._wrapper_uses(site, scope, names), self._entry_at.get(site))):
                    self.report(site, f"`{self.ctx.code(site.func)}` of {what} for every element of a comprehension: a fresh "
                                      "callable is traced and compiled each time")
                continue
            if self._runs_once(scope):
                continue
            if any(name in scope.global_names for name in names):
                continue  # kept in a module global
            uses = self._wrapper_uses(site, scope, names)
            if len(uses) == 1 and not self._repeated(uses[0]) and self._called_repeatedly(scope) \
                    and not _used_in_closure(scope, names, site):
                self.report(site, f"`{self.ctx.code(site.func)}` of {what} on every call of `{scope.label}`, used "
                                  "once: a fresh callable is traced and compiled each time")

    def _transform_chain(self, call: cst.Call) -> Optional[Tuple[Optional[cst.Call], cst.BaseExpression]]:
        """For a compiling transform applied to a transform's result (``jax.jit(jax.vmap(jax.grad(f)))``):
        the outermost layer that returns a fresh function on every call (None if no layer does) and the
        innermost callable (``f``).  None for anything else."""
        index = self.ctx.index
        if not isinstance(call.func, (cst.Name, cst.Attribute)):
            return None
        t = index.transform_of(call.func)
        if t is None or t.name not in jax_api.COMPILING_TRANSFORMS:
            return None
        target = _function_argument(call)
        fresh_layer: Optional[cst.Call] = None
        layers = 0
        while isinstance(target, cst.Call) and isinstance(target.func, (cst.Name, cst.Attribute)):
            q = index.qualify(target.func)
            layer = index.transform_of(target.func)
            if q in jax_api.FRESH_FUNCTION_TRANSFORMS:
                if fresh_layer is None:
                    fresh_layer = target
            elif q not in jax_api.NON_STAGING and (layer is None or layer.abstract):
                break
            inner = _function_argument(target)
            if inner is None:
                return None
            layers += 1
            target = inner
        if not layers and isinstance(target, cst.Call) and index.qualify(target.func) == "functools.partial" \
                and target.args:
            # `jax.jit(partial(jnp.multiply, s))`: a partial of a function this module does not define
            # (those are entries of their own: _fresh_wrapper)
            scope = index.call_scopes.get(call, (None, None))[0]
            if index.resolve_function(target.args[0].value, scope, None)[0] is None:
                return None, target
        if not layers or target is None:
            return None
        return fresh_layer, target

    def _fresh_callable(self, inner: cst.BaseExpression, scope: Owner) -> Optional[Tuple[str, bool, bool]]:
        """Whether the innermost callable of a chain is a new object each time: how a message names it,
        whether it is new on every evaluation (a lambda, a partial, a bound method outside setup
        methods), whether it is new on every loop iteration (a ``def`` in the loop).  A nested ``def``
        of the enclosing function is new on every call of it.  None: the same object every time."""
        if isinstance(inner, cst.Lambda):
            return "a lambda", True, False
        if isinstance(inner, cst.Call):
            if self.ctx.index.qualify(inner.func) == "functools.partial":
                return "a `functools.partial`", True, False
            return None
        if isinstance(scope, cst.ClassDef):
            return None
        fn, bound = self.ctx.index.resolve_function(inner, scope, None)
        if fn is None:
            return None
        if bound:
            if scope is not None and _method_of(scope) not in _SETUP_METHODS:
                return "a bound method", True, False
            return None
        if fn.parent is not None and fn.parent is scope:
            return "a nested function", False, fn.defined_in_loop
        return None

    def _changing_static(self, entry: EntryPoint) -> None:
        index = self.ctx.index
        static = entry.static_params()
        filter_static = entry.transform is not None and entry.transform.filter_static
        if not static and not filter_static:
            return
        for call in entry.visible_calls():
            loops = self._loops_around(call)
            if not loops:
                if not filter_static:
                    self._forwarded_static(entry, call, static)
                continue
            caller = index.call_scopes.get(call, (None,))[0]
            if caller is not None and caller in self.ctx.facts.bodies:
                continue  # traced into the enclosing computation, which compiles once whatever the value
            loop_vars = {name for marker in loops for name in marker.split(",") if name != "*"}
            for arg, param in entry.bind_args(call):
                name = _argument_name(arg, param)
                if name not in static and not filter_static:
                    continue
                how = self._changes_per_iteration(arg.value, call, loop_vars, numbers_only=name not in static)
                if how is not None:  # (its fix: fixes.static_args.to_traced_argument)
                    self.report(call, f"static argument `{name}` changes on every iteration ({how}): "
                                      "each new value compiles the function again", subject=name)
                    break  # one finding per call

    def _loops_around(self, call: cst.Call) -> Tuple[str, ...]:
        """The markers of the loops running ``call`` repeatedly (a comprehension's ``for`` runs it once per
        element: ``[f(x, day=d) for d in range(...)]``)."""
        index = self.ctx.index
        loops = tuple(index.calls_in_loops.get(call, ()))
        element = index.per_element.get(call)
        if element is not None:
            loops += tuple(index.comprehension_markers(element.node))
        return loops

    def _forwarded_static(self, entry: EntryPoint, call: cst.Call, static: Set[str]) -> None:
        """A static parameter given, as it came, a parameter of the plain module-level function making
        the call (``def leapfrog(pos, dt): return _leapfrog(pos, dt)``, ``dt`` static in ``_leapfrog``):
        the value is the one each call of that function passes, so a call of it in a loop with a value
        that changes every iteration compiles the jitted function again, as a direct call would."""
        index = self.ctx.index
        found = index.forwarding_function(entry, call)
        if found is None:
            return
        holder, forwarded, outer_calls = found
        wanted = {own: param for param, own in forwarded.items() if param in static}
        if not wanted:
            return
        for outer in outer_calls:
            loops = self._loops_around(outer)
            caller = index.call_scopes.get(outer, (None,))[0]
            if not loops or (caller is not None and caller in self.ctx.facts.bodies):
                continue
            loop_vars = {name for marker in loops for name in marker.split(",") if name != "*"}
            for arg, param in bind_arguments(holder.params, outer.args):
                if param is None or arg.star or param.name.value not in wanted:
                    continue
                how = self._changes_per_iteration(arg.value, outer, loop_vars, numbers_only=False)
                if how is not None:
                    name = wanted[param.name.value]
                    self.report(outer, f"static argument `{name}` of jitted `{entry.function.label}` changes on every "
                                       f"iteration ({how}), passed on by `{holder.label}`: each new value compiles "
                                       "the function again", subject=name)
                    break

    def _fresh_static_function(self, entry: EntryPoint) -> None:
        """A function made on every call of the caller -- a ``def`` or lambda written in it, a
        ``functools.partial(...)`` -- given to a static argument: JAX hashes a function by identity,
        so each call of the caller adds a trace and a compilation to the wrapper's cache (measured on
        JAX 0.10.2: three fits, three cache entries; the same function defined once: one).  Reported
        where the caller is called repeatedly, by the evidence ``_fresh_wrapper`` asks for."""
        if entry.static_names is None or entry.static_nums is None:
            return
        static = entry.static_params()
        if not static:
            return
        index = self.ctx.index
        for call in entry.visible_calls():
            caller = index.call_scopes.get(call, (None,))[0]
            if caller is None or caller in self.ctx.facts.bodies or self._runs_once(caller):
                continue
            for arg, param in entry.bind_args(call):
                name = _argument_name(arg, param)
                if name not in static or arg.star:
                    continue
                made = self._made_per_call(arg.value, caller)
                if made is not None and self._called_repeatedly(caller):
                    self.report(arg.value, f"{made} is made anew on every call of `{caller.label}` and given to "
                                           f"static argument `{name}` of jitted `{entry.function.label}`: JAX hashes "
                                           "a function by identity, so each call traces and compiles again",
                                fix=Fix(Applicability.DISPLAY_ONLY,
                                        "Define the function once (at module level, or once per object) and "
                                        "pass the data it closes over as traced arguments", ()))
                    break  # one finding per call

    def _made_per_call(self, value: cst.BaseExpression, caller: FunctionInfo) -> Optional[str]:
        """How a message names ``value`` when it is a function object made on every call of
        ``caller``: a lambda, a ``functools.partial(...)``, or a name ``caller`` binds only to a
        ``def`` of its own body."""
        if isinstance(value, cst.Lambda):
            return "a lambda"
        if isinstance(value, cst.Call) and self.ctx.qualify(value.func) in ("functools.partial",
                                                                               "jax.tree_util.Partial"):
            return f"`{self.ctx.code(value)}`"
        if isinstance(value, cst.Name) and value.value in caller.nested:
            bindings = caller.scope.bindings_of(value.value)
            if len(bindings) == 1 and bindings[0].kind is BindingKind.FUNCTION:
                return f"`{value.value}` (a function defined in `{caller.label}`)"
        return None

    def _changing_shape(self, entry: EntryPoint) -> None:
        """A traced argument whose shape changes on every iteration of a loop around an eager call: JAX
        keys its compilation cache on the shapes (and the pytree structure) of the arguments."""
        static = entry.static_params()
        for call in entry.visible_calls():
            if not self._eager_call_in_loop(call) or self._distinct_program_each_iteration(call, entry.function):
                continue  # (a function that reads the loop's values as shapes is a new program each time)
            for arg, param in entry.bind_args(call):
                if arg.star or _argument_name(arg, param) in static:
                    continue
                if self._report_shape_change(call, arg, f"`{entry.function.name}`"):
                    break

    def _unseen_functions_changing_shape(self) -> None:
        """The same for a wrapper of a function this module cannot see (``jax.jit(model.apply)``), made
        without static options -- every argument traced -- and called in a loop, at once or through a
        name bound to it once."""
        index = self.ctx.index
        for call in index.calls_in_loops:
            site = call.func
            if isinstance(site, cst.Name):
                scope = index.owner_of(call)
                if isinstance(scope, cst.ClassDef):
                    continue
                own = index.scope_model.module_scope if scope is None else scope.scope
                bindings = [b for b in own.bindings_of(site.value) if b.binds_value]
                site = bindings[0].value if len(bindings) == 1 else None
            if not isinstance(site, cst.Call) or site in self._entry_at or not site.args \
                    or index.qualify(site.func) not in jax_api.COMPILING_TRANSFORMS \
                    or any(arg.keyword is not None and arg.keyword.value.startswith("static_") for arg in site.args) \
                    or not self._eager_call_in_loop(call):
                continue
            for arg in call.args:
                if not arg.star and self._report_shape_change(call, arg, f"`{self.ctx.code(site.args[0].value)}`"):
                    break

    def _eager_call_in_loop(self, call: cst.Call) -> bool:
        caller = self.ctx.index.call_scopes.get(call, (None,))[0]
        return bool(self.ctx.index.loops_of.get(call)) and (caller is None or caller not in self.ctx.facts.bodies)

    def _report_shape_change(self, call: cst.Call, arg: cst.Arg, function: str) -> bool:
        how = self._shape_change(arg.value, call)
        if how is None:
            return False
        advice = Fix(Applicability.DISPLAY_ONLY,
                     "Keep the shapes few: write into an array of the final size (`.at[t].set(...)`, "
                     "`lax.dynamic_update_slice`) or pad to a few sizes, and pass the length traced", ())
        self.report(call, f"argument `{self.ctx.code(arg.value)}` changes shape on every iteration ({how}): "
                          f"each new shape traces and compiles {function} again", fix=advice,
                    subject=self.ctx.code(arg.value))
        return True

    def _shape_change(self, value: cst.BaseExpression, call: cst.Call) -> Optional[str]:
        """Why the shape of ``value``, passed in ``call``, changes from one iteration of a loop around the
        call to the next, or None if it need not: a slice of which one bound moves with the loop
        (``x[:t]``, ``t`` counting in ``range``) and the other stays; a list the loop lengthens, or an
        array the loop joins onto itself (``x = jnp.concatenate([x, y])``), or one joined from such a
        list or array (``jnp.concatenate([context] + outs)``, ``outs.append(...)`` in the loop)."""
        index = self.ctx.index
        scope = index.owner_of(call)
        if isinstance(scope, cst.ClassDef):
            return None
        own = index.scope_model.module_scope if scope is None else scope.scope
        loops = index.loops_of.get(call, ())
        if isinstance(value, cst.Subscript):
            return self._moving_slice(value, call, own, loops)
        if isinstance(value, cst.Call):
            return self._joins_growing(value, own, loops)
        if not isinstance(value, cst.Name):
            return None
        grows = self._grows_in_loop(value.value, own, loops)
        if grows is not None:
            return grows
        in_loop = [b for b in own.bindings_of(value.value) if b.binds_value and set(b.loops) & set(loops)]
        if len(in_loop) == 1 and isinstance(in_loop[0].value, cst.Call):
            return self._joins_growing(in_loop[0].value, own, loops)
        return None

    def _moving_slice(self, value: cst.Subscript, call: cst.Call, own: Scope,
                      loops: Sequence[cst.CSTNode]) -> Optional[str]:
        counters = {name for loop in loops for name in _counter_names(loop)}
        for element in value.slice:
            part = element.slice
            if not isinstance(part, cst.Slice) or part.step is not None:
                continue
            bounds = [b for b in (part.lower, part.upper) if b is not None]
            moving = [b for b in bounds if self._changes_per_iteration(b, call, counters, numbers_only=False)]
            if len(moving) == 1 and all(b is moving[0] or self._same_each_iteration(b, own, loops, counters)
                                        for b in bounds):
                return f"a slice bounded by `{self.ctx.code(moving[0])}`"
        return None

    @staticmethod
    def _same_each_iteration(bound: cst.BaseExpression, own: Scope, loops: Sequence[cst.CSTNode],
                             counters: Set[str]) -> bool:
        """Whether a bound reads nothing the loop changes: no counter, no name the loop binds."""
        for name in _names_read(bound):
            if name in counters or any(set(b.loops) & set(loops) for b in own.bindings_of(name)):
                return False
        return True

    def _grows_in_loop(self, name: str, own: Scope, loops: Sequence[cst.CSTNode]) -> Optional[str]:
        """How a loop around the call makes ``name`` longer on every iteration: a list it lengthens
        (``name.append(...)``, ``+=``) and never binds anew, or an array it joins onto itself; None if
        it does not.  The name must hold a value from before the loop."""
        bindings = [b for b in own.bindings_of(name) if b.binds_value]
        if bindings and all(self._bounded_deque(b.value) for b in bindings):
            return None  # `deque(maxlen=n)`: appending past `n` items drops the oldest, its length stays `n`
        for loop in loops:
            before = [b for b in bindings if loop not in b.loops]
            inside = [b for b in bindings if loop in b.loops]
            if not before:
                continue
            if not inside:
                grown = _lengthened_in(loop, name)
                if grown is not None:
                    return f"`{name}` grows in the loop: `{self.ctx.code(grown)}`"
                continue
            for b in inside:
                if isinstance(b.node, cst.AugAssign) and isinstance(b.node.operator, cst.AddAssign) \
                        and isinstance(b.node.value, (cst.List, cst.Tuple, cst.ListComp)) \
                        and all(isinstance(other.node, cst.AugAssign) for other in inside):
                    return f"`{name}` grows in the loop: `{self.ctx.code(b.node)}`"
                if isinstance(b.value, cst.Call) and self.ctx.index.qualify(b.value.func) in _JOINING \
                        and _joined(b.value, name, self.ctx.index) and len(inside) == 1 \
                        and not _slides(b.value, name, self.ctx.index):
                    return f"`{name}` grows in the loop: `{self.ctx.code(b.node)}`"
        return None

    def _bounded_deque(self, value: Optional[cst.BaseExpression]) -> bool:
        """``collections.deque(..., maxlen=n)`` (``maxlen`` by keyword or second): a queue of at most ``n``."""
        if not isinstance(value, cst.Call) or self.ctx.index.qualify(value.func) != "collections.deque":
            return False
        bound = call_argument(value, 1, "maxlen")
        return bound is not None and not (isinstance(bound.value, cst.Name) and bound.value.value == "None")

    def _joins_growing(self, value: cst.Call, own: Scope, loops: Sequence[cst.CSTNode]) -> Optional[str]:
        if self.ctx.index.qualify(value.func) not in _JOINING:
            return None
        counters = {name for loop in loops for name in _counter_names(loop)}
        fixed = lambda bound: self._same_each_iteration(bound, own, loops, counters)  # noqa: E731
        for name in sorted(_names_read_whole(value, fixed)):
            grows = self._grows_in_loop(name, own, loops)
            if grows is not None:
                return f"joined from `{name}`, which grows in the loop" if not grows.startswith(f"`{name}` grows") \
                    else grows
        return None

    def _changes_per_iteration(self, value: cst.BaseExpression, call: cst.Call, loop_vars: Set[str],
                               numbers_only: bool) -> Optional[str]:
        """Why ``value`` changes from one iteration to the next, or None if it need not.

        A loop counter (``range``, ``enumerate``, literal numbers), arithmetic on one
        (``4 + 2 * epoch``), or a name the loop itself reassigns from its old value or
        from a counter (``lr = lr * 0.95``, ``n += 1``).  ``numbers_only`` (a filter
        transform keeps only Python numbers static): every part must be a Python number.
        """
        code = self.ctx.code
        if isinstance(value, cst.Name) and value.value in loop_vars:
            return f"`{value.value}`"
        if not isinstance(value, cst.Name):
            return f"`{code(value)}`" if _grows_with(value, loop_vars, numbers_only) else None
        index = self.ctx.index
        scope = index.owner_of(call)
        name = value.value
        if name in index.declared_names or isinstance(scope, cst.ClassDef):
            return None
        if numbers_only and scope is not None and any(p.name.value == name for p, _ in scope.params):
            return None  # maybe not a Python number
        varying = loop_vars | {name}
        loops = set(index.loops_of.get(call, ()))
        changing = None
        own = index.scope_model.module_scope if scope is None else scope.scope
        for b in own.bindings_of(name):
            if b.kind is BindingKind.PARAMETER or not b.binds_value:
                continue
            if isinstance(b.node, cst.AugAssign):
                number = _is_number(b.node.value) or _grows_with(b.node.value, varying, True)
                grows = isinstance(b.node.operator, GROWING_ASSIGN_OPERATORS)
            elif b.value is not None:
                numbers = self._number_parameters(scope) if numbers_only else frozenset()
                number = _is_number(b.value) or _grows_with(b.value, varying, True, name, numbers)
                grows = _grows_with(b.value, varying, numbers_only, name, numbers)
            else:
                number = grows = False
            if numbers_only and not number:
                return None  # maybe not a Python number
            if grows and changing is None and loops.intersection(b.loops):
                changing = f"`{name}` is reassigned in the loop: `{code(b.node)}`"
        return changing

    def _number_parameters(self, scope: Optional[FunctionInfo]) -> FrozenSet[str]:
        """The parameters of ``scope`` that hold a Python number on every call the module makes: a number
        default (``base_lr=0.05``), never rebound, and each visible call of the function -- there is one
        at least -- leaves it out or passes a number literal."""
        if scope is None or not isinstance(scope.node, cst.FunctionDef) or scope.is_method or scope.parent is not None:
            return frozenset()
        index = self.ctx.index
        calls = [c for c in index.calls_by_name.get(scope.name, ())
                 if index.resolve_function(c.func, *index.call_scopes.get(c, (None, None)))[0] is scope]
        if not calls or len(calls) != len(index.calls_by_name.get(scope.name, ())) \
                or any(m is not scope.node.name and not any(m is c.func for c in calls)
                       for m in index.mentions(scope.name)):
            return frozenset()  # (called through a reference too, or by calls the module does not show)
        out = set()
        for param, kind in scope.params:
            name = param.name.value
            if param.default is None or not _is_number(param.default) or len(scope.scope.bindings_of(name)) != 1:
                continue
            if not any(arg.star for c in calls for arg in c.args) and all(
                    _is_number(arg.value) for c in calls for arg, p in bind_arguments(scope.params, c.args)
                    if p is param):
                out.add(name)
        return frozenset(out)


#: transforms whose traced arguments must be arrays (or pytrees of them): a string or a function is
#: rejected when the call is made (equinox's filter_jit and flax's nnx.jit hold such leaves static)
class BadStaticArguments(Rule):
    """## What it does
    Flags `static_argnames` naming a parameter that does not exist,
    `static_argnums` out of range, an unhashable value (list, dict, set,
    NumPy or JAX array, an instance of a standard-library `@dataclass` that
    compares by value and is not frozen -- `dataclass` sets its `__hash__` to
    None -- or what a module function returns when every `return` gives one
    of these) passed to a static parameter -- written at the call or held by
    a variable whose only assignment gives it one, or passed to a static
    parameter annotated with such a dataclass (`cfg: SimConfig`) -- and a
    parameter passed by keyword when both `static_argnums` and
    `static_argnames` are given (JAX then does not map one onto the other, so
    it is silently traced).

    Also flagged, because only a static argument can hold them: a string,
    a lambda or a function (of this module, or of `jax.numpy` and the like)
    passed to a traced parameter of a `jax.jit` / `jax.pmap` function, and
    `self` of a method decorated with `@jax.jit` whose class is plain (no
    decorator but the standard library's `dataclass`, which registers
    nothing with JAX, no metaclass, no base but `object` or such classes,
    never given to `register_pytree_node` or any other call): JAX raises
    `TypeError: Error interpreting argument to ... as an abstract array`
    on every such call. `None` is an empty pytree, not flagged;
    `equinox.filter_jit` holds non-array leaves static itself.

    So is a `jax.jit` / `jax.pmap` whose required parameter, not static, is
    annotated with a class of the checked code that is no JAX type: a plain
    class, or one the standard library's `dataclass` decorates, that nothing
    registers as a pytree and that has no `__jax_array__`. JAX flattens the
    arguments before it traces, and such an instance is a leaf that is not an
    array: every call raises `TypeError` before the trace starts. Reported
    once, where the wrapper is made (at the parameter for a decorator); the
    function's body is not analysed as traced code there, since it never runs
    in that trace (a solver taking a parsed input file, jitted beside its
    eager use, is one finding, not one per line of the solver). A class
    with nothing in it (`class Animal: pass`) names a kind of argument, not
    the type of what is passed: not reported.

    An unhashable default is not flagged: a default that is not passed is
    never hashed.

    A tracer given, inside traced code, to a parameter that the called
    function's own jit makes static (`pad(x, n=k)` in a jitted step, `n`
    static in `pad`) is flagged at that argument: JAX hashes static
    arguments, a tracer cannot be hashed, and the call raises. Only a value
    known to be an array tracer is flagged (a loop index, arithmetic on
    traced values, an array-annotated parameter): a parameter of unknown
    structure may be `None` or a pytree of static fields, which hash. The
    called function's code sees Python values there in every case, so it is
    not checked as if the tracer reached it.

    JAX checks the spec against the signature of what it is given. Under
    another decorator (`@partial(jax.jit, static_argnames="with_summary")`
    over `@add_with_summary`) that is the decorator's function, which may
    take names the `def` does not (it sets `__signature__`, or takes
    `*args, **kwargs`): the spec is checked against the `def` only when each
    decorator below shows its signature -- JAX's transforms, `functools`'
    caches, or one of this module made by `functools.wraps` that sets no
    `__signature__`.

    While JAX rejects the spec (a name that is not a parameter, an index
    out of range), the function never runs as written, and which of its
    parameters are static is not known: the findings that follow from that
    (JIT201-JIT203 and JIT402 in the function) wait until it is corrected.

    ## Why is this bad?
    `ValueError: Jitted function has invalid argnames {'nope'} in
    static_argnames`; `ValueError: Non-hashable static arguments are not
    supported`; or a parameter meant to be static is traced after all.

    ## Example
    ```python
    from functools import partial

    import jax

    @partial(jax.jit, static_argnames=("layer_sizes",))
    def init(key, layer_sizes):
        keys = jax.random.split(key, len(layer_sizes) - 1)
        return [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, layer_sizes[:-1], layer_sizes[1:])]

    params = init(jax.random.key(0), layer_sizes=[4, 3])
    ```

    Use instead:
    ```python
    from functools import partial

    import jax

    @partial(jax.jit, static_argnames=("layer_sizes",))
    def init(key, layer_sizes):
        keys = jax.random.split(key, len(layer_sizes) - 1)
        return [jax.random.normal(k, (m, n)) for k, m, n in zip(keys, layer_sizes[:-1], layer_sizes[1:])]

    params = init(jax.random.key(0), layer_sizes=(4, 3))
    ```

    ## Fix safety
    JAX rejects a name that is not a parameter and an index out of range
    when `jax.jit` is called (`ValueError`), so the code as written never
    ran jitted; the fixes make it run, and each one decides which argument
    is static -- which is why each spec fix is UNSAFE or display-only.

    - A `static_argnames` name that is not a parameter but is close to
      exactly one (`difflib`, cutoff 0.8: `"num_step"` -> `"num_steps"`;
      or, for a name of four letters or more, one slip of the keyboard --
      a letter added, dropped or replaced, or two swapped: `"tmep"` ->
      `"temp"`) is replaced by that parameter, in the same quotes; dropped
      when that parameter is listed already. UNSAFE: it makes that parameter
      static, so JAX
      compiles once per value of it, the value must be hashable, and a
      caller that passes a traced value breaks. A name close to none or to
      several parameters is not fixed.
    - An out-of-range `static_argnums` index is pointed at the one
      positional parameter that is used only where a static value is
      needed (a `range()` bound, an `if` test, a shape; a read in the
      f-string of a `raise` formats any value and does not count) and is
      not static yet; when there is none, it is removed (the keyword too when nothing
      is left, and `@partial(jax.jit)` becomes `@jax.jit`). UNSAFE: the
      index that was meant cannot be read from the code; what the rewrite
      keeps is every in-range static argument as it was, and a parameter
      that still needs to be static fails loudly when traced (and is
      reported). When several parameters might be meant, or several
      indices are out of range while one is, the fix is DISPLAY_ONLY: it
      names the candidates and their indices.
    - A parameter passed by keyword that only `static_argnums` makes
      static, where `static_argnames` is given too: `static_argnums` goes
      and `static_argnames` names every static parameter
      (`static_argnums=(2,), static_argnames=("levels",)` ->
      `static_argnames=("mode", "levels")`). SAFE: JAX infers the
      positions from the names, so each parameter static before is static
      passed by position as before, and now by keyword too.
    - A list display of literal items passed to a static parameter
      (`sizes=[4, 3]`) becomes the tuple of the same items (`(4, 3)`,
      `[4]` -> `(4,)`, lines and comments inside kept), and `list(x)` of a
      string, a `range` or a module constant bound once to one or to a
      tuple of literals becomes `tuple(x)`, when the function
      only reads the parameter as a sequence: it iterates it, takes an
      item or a slice (whose uses are read the same way), unpacks it,
      tests membership with `in`, gives it to `len`, `zip`, `enumerate`,
      `sorted`, `sum` and the like, passes it as a shape, or gives it to a
      `jax.numpy` / `jax.lax` function other than the control-flow ones
      (window dimensions, axes, an array-like: any sequence). SAFE: a tuple
      serves each of these uses exactly as the list did, and JAX can hash
      it. Any other use -- `sizes + [1]` (a `TypeError` on a tuple), a list
      method, `==` (a list never equals a tuple), a type test, a call that
      might do any of these -- or an item that is not a literal leaves
      DISPLAY_ONLY advice: a tuple, a frozen dataclass, or a traced
      argument, whichever keeps the function's meaning.
    - A set written at the call (`zones=set(enabled)`, `{0, 2}`, a set
      comprehension) becomes `frozenset(...)`, the same members, when the
      function only tests membership, iterates it, gives it to `len`,
      `sorted` and the like, combines it with `|` `&` `-` `^` or calls a
      method that reads it (`issubset`, `union`, ...). UNSAFE: a frozenset
      may iterate its members in another order than the set. A set the
      function changes (`add`), compares or hands to another function
      keeps DISPLAY_ONLY advice.
    - `self` of a `@jax.jit` method of a frozen standard-library dataclass
      (no JAX type: every call raises `TypeError`) is made static
      (`static_argnames=("self",)`), where every field is annotated with a
      hashable type and has no `field(...)` default and no class of the
      module subclasses it. UNSAFE: each distinct instance compiles once; an
      equal one (by its fields) reuses it. Any other class gets advice.
    - An instance of a module `@dataclass` that is unhashable makes the
      dataclass `frozen=True`, which hashes it by its fields' values, where
      every field is annotated with a hashable type (numbers, strings,
      `bool`, tuples, `Optional` of them) and has no `field(...)` default,
      the module assigns no attribute of a field's name on anything (a
      frozen instance raises `FrozenInstanceError`), and no class of the
      module subclasses it. UNSAFE: code elsewhere that sets a field now
      raises, and equal configurations share one compile. Otherwise advice.
    - An array, or a dict of number literals (`{"pde": 1.0, "bc": 10.0}`,
      a pytree of numbers), passed to a static parameter (every such call
      raises `ValueError`) takes the parameter out of the static arguments
      where the function never rebinds it and reads it only as array data
      (an operand of arithmetic, an argument of a `jax.numpy` / `jax.lax`
      function, also through an item or a slice of it: `strikes[:, None]`,
      `weights["bc"] * bc`, and in the function a transform of it is given,
      `jax.value_and_grad(loss)(params, weights)`; never as a shape, an
      `if` test or a loop bound, nor an item of it so:
      `jnp.zeros(strikes[0])`). UNSAFE: a
      caller that passed a hashable value there now has it traced.
    - One integer held in an array (`best = jnp.argmin(aic) + 1`, or
      `jnp.argmax(x)` written at the call) passed to a static parameter the
      function needs static (a slice bound, a loop count) is passed as the
      Python int it holds: `order=int(best)`, where the call is outside
      traced code (there `int()` of a tracer raises). UNSAFE: the function
      now gets a Python int, and another caller may still pass the array.
    - A string or a function passed to a traced parameter (`pooled(x,
      "max")`) makes that parameter static (`static_argnames`, or its
      index where the spec is `static_argnums`), where no call seen gives
      it an unhashable value and the function never rebinds it; a
      parameter the spec made static instead, that a call seen gives an
      array and that no read needs static, is taken out in the same edit
      (`static_argnums=(0,)` put on the array, not on the flag). UNSAFE:
      one compile per value of the new static argument, and a caller that
      passes it a traced value breaks; the code as written raised
      `TypeError` at that call.

    ## References
    - [`jax.jit` static arguments](https://docs.jax.dev/en/latest/_autosummary/jax.jit.html)
    """

    code = "JIT502"
    name = "bad-static-arguments"
    fix_title = ("Name the parameter meant (`static_argnames`), a valid index or none (`static_argnums`); "
                 "pass a tuple for a list, freeze a dataclass, trace an array; make a string or function "
                 "argument static")

    def check_module(self) -> None:
        for entry in self.ctx.index.entries:
            if entry.transform is not None and not entry.all_traced \
                    and entry.transform.name in jax_api.ARRAY_ONLY_TRANSFORMS \
                    and not entry.spec_rejected():
                self._check_argument_types(entry)
                self._check_plain_self(entry)
                self._check_rejected_argument(entry)
            if entry.transform is None or entry.all_traced or not entry.spec_args:
                continue
            self._check_spec(entry)
            self._check_calls(entry)
        self._check_traced_static_arguments()

    def _check_traced_static_arguments(self) -> None:
        """A tracer given to a parameter that the called jit wrapper makes static (``g(x, n=k)`` in
        traced code, ``n`` static in ``g``): JAX hashes static arguments, and a tracer cannot be hashed
        (`ValueError: Non-hashable static arguments are not supported`, jax 0.10.2).  Reported at the
        call, where the value stops being usable; the called function sees Python values only."""
        seen: Set[int] = set()
        for arg, name, fn, value in self.ctx.facts.traced_static_arguments:
            if id(arg) in seen:
                continue
            seen.add(id(arg))
            self.report(arg.value, f"traced `{self.ctx.code(arg.value)}` given to `{name}`, a static argument of "
                                   f"jitted `{fn.label}`: a tracer cannot be hashed, so the call raises `ValueError`",
                        reason=value.reason,
                        fix=Fix(Applicability.DISPLAY_ONLY, f"Give `{name}` a Python value (static in the caller "
                                f"too), or drop `{name}` from the static arguments of `{fn.label}`", ()))

    def _check_argument_types(self, entry: EntryPoint) -> None:
        """A string or a function passed to a parameter that is traced: JAX raises `TypeError: Error
        interpreting argument ... as an abstract array` when the call is made (jax 0.10.2)."""
        if entry.static_nums is None or entry.static_names is None:
            return  # which parameters are static is not known
        static = entry.static_params() | set(entry.partial_keywords)
        index = self.ctx.index
        bound_in = entry.scope.scope if entry.scope is not None else index.scope_model.module_scope
        for call in entry.visible_calls():
            if call not in entry.direct_calls:
                # a call by name reaches this function only where the name is the one bound to it (a
                # local `fn` of one test method is not another method's `fn`)
                caller = index.call_scopes.get(call, (None, None))[0]
                here = caller.scope if caller is not None else index.scope_model.module_scope
                if not isinstance(call.func, cst.Name) or here.resolve(call.func.value) is not bound_in:
                    continue
            for arg, param in entry.bind_args(call):
                name = _argument_name(arg, param)
                if param is None or arg.star or name in static:
                    continue
                what = self._not_a_jax_type(arg.value, call)
                if what is not None:
                    # (its fix: fixes.static_args, which makes `name` static where the body allows)
                    self.report(call, f"`{name}` receives {what}, which JAX cannot trace: the call raises "
                                      "`TypeError`", subject=name)
                    break  # one finding per call

    def _check_plain_self(self, entry: EntryPoint) -> None:
        """``@jax.jit`` on a method of a plain class (not a pytree: no decorator, no metaclass, plain
        bases -- ``object``, ``typing.Generic``, ``abc.ABC`` or plain classes -- never registered),
        ``self`` not static: ``obj.method(x)`` passes ``obj`` as a traced
        argument, and JAX raises ``TypeError`` (it is not a JAX type) on every call."""
        fn = entry.function
        if not isinstance(entry.site, cst.Decorator) or not fn.is_method or entry.self_bound or fn.cls is None \
                or fn.is_static_method or not fn.params:
            return
        if any(isinstance(d.decorator, cst.Name) and d.decorator.value in ("classmethod", "staticmethod", "property")
               for d in fn.node.decorators):
            return
        first = fn.params[0][0].name.value
        index = self.ctx.index
        # (the standard library's `dataclass`, frozen or not, registers nothing with JAX: `self` is no JAX type)
        if first in entry.static_params() or not index.plain_class(fn.cls.name, not_a_pytree=True,
                                                                    dataclasses_too=True):
            return
        if any(fn.cls.name in other.bases and not index.plain_class(other.name, not_a_pytree=True,
                                                                    dataclasses_too=True)
               for other in index.classes.values()):
            return  # a mixin: `self` may be an instance of a subclass that is a pytree (`@chex.dataclass`)
        # the first parameter holds an instance only on a call through one (`obj.method(x)`); a
        # function of the class body called through the class (`Quad.K_quad(coords, ...)`, with no
        # `@staticmethod`) gets what the call passes, an array here
        through = [call.func.value for call in self.ctx.index.calls_by_name.get("." + fn.name, ())
                   if isinstance(call.func, cst.Attribute)]
        if any(isinstance(r, cst.Name) and r.value == fn.cls.name for r in through):
            return
        if first != "self" and not any(not (isinstance(r, cst.Name) and r.value == fn.cls.name) for r in through):
            return  # (not named as the instance, and no call through an instance seen)
        # (a frozen dataclass hashes and compares by its fields: the fix layer may make `self` static)
        advice = None if frozen_dataclass(fn.cls, index) else Fix(
            Applicability.DISPLAY_ONLY, f"Make `{first}` static (`static_argnums=0`: the instance must be hashable, "
            "and is compared by identity unless it defines `__eq__`), register "
            f"`{fn.cls.name}` as a pytree, or jit a function of its fields", ())
        self.report(fn.node.name, f"`{first}` of `{fn.label}` is traced: `{fn.cls.name}` is not a pytree, so every "
                                  "call raises `TypeError`", fix=advice, subject=first)

    def _check_rejected_argument(self, entry: EntryPoint) -> None:
        """A required parameter, not static, annotated with a class of the checked code that is no JAX type
        (plain, or a standard-library dataclass, never registered as a pytree): JAX flattens the arguments
        before it traces, finds a leaf that is not an array, and raises ``TypeError`` on every call, so the
        function never runs jitted (its body is not analysed as traced there: Analyzer.rejected_argument)."""
        rejected = self.ctx.facts.rejected_arguments.get(entry)
        if rejected is None:
            return
        name, cls = rejected
        fn = entry.function
        where = next((p for p, _ in fn.params if p.name.value == name), None) \
            if isinstance(entry.site, cst.Decorator) else entry.site
        if where is None:
            return
        self.report(where, f"`{name}` of `{fn.label}` is traced by {entry.label}, but `{cls}` is no JAX type (not "
                           "a pytree): every call raises `TypeError` before the trace starts",
                    fix=Fix(Applicability.DISPLAY_ONLY, f"Make `{name}` static (`static_argnames=(\"{name}\",)`: "
                            f"the instance must be hashable), register `{cls}` as a pytree, or pass its array "
                            "fields", ()), subject=name)

    def _not_a_jax_type(self, value: cst.BaseExpression, call: cst.Call) -> Optional[str]:
        """How a message names ``value`` when it is a string or a function, which are no JAX types."""
        ctx = self.ctx
        index = ctx.index
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return f"the string {ctx.code(value)}"
        if isinstance(value, cst.Lambda):
            return "a lambda"
        root = value
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name):
            owner = index.owner_of(call)
            here = owner.scope if isinstance(owner, FunctionInfo) else index.scope_model.module_scope
            if here.resolve(root.value) is not index.scope_model.module_scope:
                return None  # a local (`beta = jnp.exp(log_beta)`) shadows the module's function or import
        if isinstance(value, cst.Name) and value.value in index.functions:
            info = index.globals.get(value.value)
            if info is not None and info.kind == "function" and info.assignments == 1:
                return f"the function `{value.value}`"
        q = ctx.qualify(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
        if q is not None and jax_api.is_array_api_function(q):
            return f"the function `{ctx.code(value)}`"
        return None

    def _check_spec(self, entry: EntryPoint) -> None:
        fn = entry.function
        positional = entry.positional_params()
        for arg in entry.spec_args:
            key = arg.keyword.value if arg.keyword is not None else ""
            if key in entry.transform.static_argnames_kw:
                missing = entry.unknown_static_names()
                if missing:
                    self.report(arg, f"`static_argnames` names {', '.join(repr(m) for m in missing)}, which "
                                     f"`{fn.label}` does not take")
            elif key in entry.transform.static_argnums_kw:
                bad = entry.out_of_range_static_nums()
                if bad:
                    self.report(arg, f"`{key}={bad[0]}` is out of range: `{fn.label}` takes "
                                     f"{len(positional)} positional argument(s)")

    def _check_calls(self, entry: EntryPoint) -> None:
        static = entry.static_params()
        nums_names = entry.static_by_position()
        for call in entry.visible_calls():
            for arg, param in entry.bind_args(call):
                name = _argument_name(arg, param)
                if arg.keyword is not None:
                    if entry.both_static_kinds and name in nums_names and name not in (entry.static_names or ()):
                        self.report(call, f"`{name}` is passed by keyword, but it is static only by position "
                                          "(`static_argnums` and `static_argnames` are both given): it is traced")
                        break  # one finding per call
                found = unhashable_argument(arg.value, call, self.ctx.index, param) if name in static else None
                if found is not None:
                    # (its fix -- a tuple for a list display, or advice -- is the fix layer's)
                    self.report(call, f"unhashable value {found[0]} passed to static argument `{name}`")
                    break


def unhashable_static_argument(entry: EntryPoint, call: cst.Call, index: ModuleIndex
                               ) -> Optional[Tuple[cst.Arg, str, cst.BaseExpression]]:
    """The first argument of ``call`` that passes an unhashable value to a static parameter of
    ``entry``: the argument, the parameter's name and the value (see :func:`unhashable_argument`)."""
    static = entry.static_params()
    for arg, param in entry.bind_args(call):
        name = _argument_name(arg, param)
        if name in static:
            found = unhashable_argument(arg.value, call, index, param)
            if found is not None:
                return arg, name, found[1]
    return None


def unhashable_argument(value: cst.BaseExpression, call: cst.Call, index: ModuleIndex,
                        param: Optional[cst.Param] = None) -> Optional[Tuple[str, cst.BaseExpression]]:
    """How a message shows an unhashable argument of ``call`` -- the expression, or a name certainly
    bound to one (by its only binding) -- and that value; None if it may be hashable.  A parameter
    annotated with a dataclass of the module whose instances are unhashable (``cfg: SimConfig``) receives
    one: the value is shown as that class's construction."""
    def code(node: cst.CSTNode) -> str:
        return short_code(index.module, node)

    annotation = param.annotation.annotation if param is not None and param.annotation is not None else None
    if isinstance(annotation, cst.Name) and unhashable_dataclass(annotation.value, index) is not None:
        return (f"`{code(value)}` (annotated `{annotation.value}`, a dataclass whose `__hash__` is None)",
                cst.Call(cst.Name(annotation.value)))

    if isinstance(value, cst.Name):
        scope, cls = index.call_scopes.get(call, (None, None))
        bound = index.single_value(value.value, scope) if cls is None else None
        if bound is not None and _unhashable(bound, index):
            return f"`{value.value}` (`{value.value} = {code(bound)}`)", bound
        return None
    stored = _attribute_stored_values(value, call, index)
    if stored and all(_unhashable(v, index) for v in stored):
        return f"`{code(value)}` (`{code(value)} = {code(stored[0])}`)", stored[0]
    return (f"`{code(value)}`", value) if _unhashable(value, index) else None


def _attribute_stored_values(value: cst.BaseExpression, call: cst.Call,
                             index: ModuleIndex) -> List[cst.BaseExpression]:
    """For ``self.<attr>`` read in a method (``fn(self.params, x)``): every value a method of its class
    stores in ``self.<attr>``; empty when it is anything else or one store's value is not shown."""
    scope, _ = index.call_scopes.get(call, (None, None))
    if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) and scope is not None
            and scope.cls is not None and scope.params and value.value.value == scope.params[0][0].name.value):
        return []
    out: List[cst.BaseExpression] = []
    for method in scope.cls.methods.values():
        if not isinstance(method.node, cst.FunctionDef) or not method.params:
            continue
        for stored in stores_to(method.node, method.params[0][0].name.value, value.attr.value):
            if stored is None:
                return []
            out.append(stored)
    return out


def array_valued(node: cst.BaseExpression, index: ModuleIndex, scope: Optional[FunctionInfo] = None) -> bool:
    """``node`` is certainly a NumPy or JAX array (see :func:`_unhashable`)."""
    return _unhashable(node, index, scope=scope, containers=False)


class _TracedScopes:
    """The functions that run in a trace: those the analysis traced, and those a decorator of the
    checked code jits (asked only for the functions that make a jit: it may read another module)."""

    def __init__(self, bodies, index: ModuleIndex) -> None:
        self.bodies, self.index = bodies, index
        self._handed: Optional[Set[FunctionInfo]] = None

    def __contains__(self, scope) -> bool:
        return scope in self.bodies or (isinstance(scope, FunctionInfo) and (
            self.index.jitted_by_decorator(scope) or scope in self.handed_to_jitted_wrappers()))

    def handed_to_jitted_wrappers(self) -> Set[FunctionInfo]:
        """Functions given by name to the call that makes what a jit wraps (``jax.jit(shape_wrapper(f,
        args))``, the wrapper maker another module's): the wrapper it makes calls them, in the trace."""
        if self._handed is None:
            self._handed = set()
            for site, (scope, _) in self.index.call_scopes.items():
                if not site.args or not isinstance(site.args[0].value, cst.Call) \
                        or self.index.qualify(site.func) not in jax_api.COMPILING_TRANSFORMS:
                    continue
                for arg in site.args[0].value.args:
                    if isinstance(arg.value, cst.Name) and not arg.star:
                        fn, bound = self.index.resolve_function(arg.value, scope, None)
                        if fn is not None and not bound:
                            self._handed.add(fn)
        return self._handed


def _defined_within(fn: FunctionInfo, scope: FunctionInfo) -> bool:
    """``fn``'s definition runs on each call of ``scope``: it is defined in ``scope`` or in a
    function nested in it."""
    parent = fn.parent
    while parent is not None:
        if parent is scope:
            return True
        parent = parent.parent
    return False


def _memoized(fn: FunctionInfo) -> bool:
    """The jitted def ``fn`` is made under an ``if`` of the function around it and stored there where it
    outlives the call (``_CACHE[key] = run_epoch``, ``self._fns[key] = step``): a cache of wrappers, made
    when a lookup misses and reused by the calls after (Jaddle's ``run_epoch``, looked up with
    ``_CACHE.get(key)`` and made only when that is None: JAX 0.10.2, one compile over six epochs)."""
    parent = fn.parent
    if parent is None:
        return False
    chain = path_to(parent.node, fn.node) or []
    if not any(isinstance(node, cst.If) for node in chain[1:-1]):
        return False
    for node in chain[1:-1]:
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False  # (made in a function nested in between: not this function's cache)
    return any(isinstance(small, cst.Assign) and isinstance(small.value, cst.Name) and small.value.value == fn.name
               and any(isinstance(t.target, (cst.Subscript, cst.Attribute)) for t in small.targets)
               for small in own_small_statements(parent.node))


def _used_in_closure(scope: FunctionInfo, names: Iterable[str], own: cst.CSTNode) -> bool:
    """One of ``names`` (a wrapper made in ``scope``) is read inside a lambda or a function defined in
    ``scope`` (other than ``own``, the wrapped function): that closure may call it any number of times
    (``timeit(lambda: f(x))``), so the wrapper is not known to be used once."""
    wanted = {name for name in names if "." not in name}
    if not wanted:
        return False
    stack: List[Tuple[cst.CSTNode, bool]] = [(scope.node.body, False)]
    while stack:
        node, inside = stack.pop()
        if node is own:
            continue
        if inside and type(node) is cst.Name and node.value in wanted:
            return True
        nested = inside or type(node) in (cst.Lambda, cst.FunctionDef)
        stack.extend((child, nested) for child in iter_children(node))
    return False


def _calls_on(stmts: Sequence[cst.CSTNode], receiver: str) -> bool:
    """A statement of ``stmts`` calls a method of ``receiver`` (``self.step(x)``), which may run a
    jit wrapper stored on it (not a function given to a transform, ``jax.jit(self.step)``)."""
    return any_node(stmts, lambda node: isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                    and isinstance(node.func.value, cst.Name) and node.func.value.value == receiver)


def _stored(target: cst.BaseExpression) -> Iterable[cst.BaseExpression]:
    """The ``self.x`` attributes an assignment target stores to (tuples unpacked)."""
    for one in flat_targets(target):
        if isinstance(one, cst.Attribute) and isinstance(one.value, cst.Name) and one.value.value == "self":
            yield one


#: calls that empty JAX's compilation caches (every function compiles again after them)
_CACHE_CLEARS = frozenset({"jax.clear_caches", "equinox.clear_caches"})


def _joined(call: cst.Call, name: str, index: ModuleIndex) -> bool:
    """``name`` is one of the pieces the joining ``call`` puts together: read in its arguments, and for
    ``array`` / ``asarray`` (which only convert) not inside another call (``np.asarray(step(u))`` converts
    what ``step`` returns, of whatever shape, where ``np.asarray(u + [v])`` joins)."""
    if name not in _names_read(call):
        return False
    if (index.qualify(call.func) or "").rsplit(".", 1)[-1] not in ("array", "asarray"):
        return True
    stack: List[cst.CSTNode] = [a.value for a in call.args]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name) and node.value == name:
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("list", "tuple"):
            stack.extend(a.value for a in node.args)  # (`list(xs) + [v]`: the same items, joined)
        elif not isinstance(node, (cst.Call, cst.Lambda)):
            stack.extend(iter_children(node))
    return False


def _slides(call: cst.Call, name: str, index: ModuleIndex) -> bool:
    """``concatenate((name[k:], new), axis=a)``: a window that drops ``k`` items of ``name`` along the axis
    joined and adds pieces of ``k`` items along it (``jnp.array([tok])``, ``v[None]``, ``v[:, None]`` for axis
    1, ``jnp.expand_dims(v, a)``), or the same the other way round (``(new, name[:-k])``): the result has the
    shape ``name`` had, so a loop that rebinds ``name`` to it keeps one shape (kira's token window, run on JAX
    0.10.2: one trace for 30 tokens)."""
    if (index.qualify(call.func) or "").rsplit(".", 1)[-1] != "concatenate" or not call.args \
            or call.args[0].keyword is not None or not isinstance(call.args[0].value, (cst.Tuple, cst.List)):
        return False
    axis_arg = call_argument(call, 1, "axis")
    axis = int_value(axis_arg.value) if axis_arg is not None else 0
    parts = [el.value for el in call.args[0].value.elements]
    if axis is None or axis < 0 or any(isinstance(el, cst.StarredElement) for el in call.args[0].value.elements):
        return False
    dropped, added = None, 0
    for part in parts:
        if name in _names_read(part):
            if dropped is not None:
                return False
            dropped = _items_dropped(part, name, axis)
            if dropped is None:
                return False
        else:
            extent = _extent(part, axis, index)
            if extent is None:
                return False
            added += extent
    return dropped is not None and dropped == added > 0


def _items_dropped(part: cst.BaseExpression, name: str, axis: int) -> Optional[int]:
    """``k`` for ``name[k:]`` / ``name[:-k]`` sliced along ``axis`` (the axes before it taken whole)."""
    if not (isinstance(part, cst.Subscript) and isinstance(part.value, cst.Name) and part.value.value == name
            and len(part.slice) > axis):
        return None
    for i, element in enumerate(part.slice):
        s = element.slice
        if not isinstance(s, cst.Slice) or s.step is not None:
            return None
        if i != axis:
            if s.lower is not None or s.upper is not None:
                return None
            continue
        lower = int_value(s.lower) if s.lower is not None else 0
        upper = int_value(s.upper) if s.upper is not None else 0
        if lower is None or upper is None or (lower > 0) == (upper < 0) or lower < 0 or upper > 0:
            return None
        return lower or -upper
    return None


def _extent(part: cst.BaseExpression, axis: int, index: ModuleIndex) -> Optional[int]:
    """How many items ``part`` has along ``axis``, where its form says: a list display (or ``jnp.array`` of
    one) on axis 0, ``v[None]`` / ``v[:, None]`` (``None`` at the axis, whole slices before it), or
    ``jnp.expand_dims(v, axis)``."""
    if isinstance(part, cst.Call) and part.args and part.args[0].keyword is None:
        q = (index.qualify(part.func) or "").rsplit(".", 1)[-1]
        if q in ("array", "asarray") and axis == 0:
            return _extent(part.args[0].value, axis, index)
        if q == "expand_dims":
            where = call_argument(part, 1, "axis")
            return 1 if where is not None and int_value(where.value) == axis else None
        return None
    if isinstance(part, (cst.List, cst.Tuple)) and axis == 0:
        if any(isinstance(el, cst.StarredElement) for el in part.elements):
            return None
        return len(part.elements) or None
    if isinstance(part, cst.Subscript) and len(part.slice) > axis:
        for i, element in enumerate(part.slice):
            s = element.slice
            if i < axis and not (isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None):
                return None
            if i == axis:
                return 1 if isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None" \
                    else None
    return None


def _counted(loop: cst.CSTNode) -> bool:
    """A loop whose number of iterations is a count the run decides: ``while``, or ``for`` over
    ``range()`` of something other than int literals."""
    if isinstance(loop, cst.While):
        return True
    iterable = loop.iter if isinstance(loop, cst.For) else None
    return isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range" \
        and any(int_value(arg.value) is None for arg in iterable.args)


def _shape_names(fn: cst.CSTNode, index: ModuleIndex) -> Set[str]:
    """The names read in the shape and size arguments of the calls in ``fn`` (``jax_api.SHAPE_ARGUMENTS``:
    ``jax.random.bernoulli(key, shape=(n // (d + 1), L))`` reads ``n``, ``d`` and ``L``)."""
    out: Set[str] = set()
    for call in calls_in(fn.body if isinstance(fn, (cst.Lambda, cst.FunctionDef)) else fn):
        slots = jax_api.SHAPE_ARGUMENTS.get(index.qualify(call.func) or "")
        for position, keyword in slots or ():
            arg = call_argument(call, position, keyword)
            if arg is not None:
                out.update(read.value for read in name_references(arg.value))
    return out


def _given_for(call: cst.Call, maker: FunctionInfo, names: Set[str]) -> Set[str]:
    """The names ``call`` passes (as the whole argument) to the parameters of ``maker`` among ``names``."""
    return {arg.value.value for arg, param in bind_arguments(maker.params, call.args)
            if param is not None and param.name.value in names and isinstance(arg.value, cst.Name)}


def _loop_count_names(fn: cst.CSTNode) -> Set[str]:
    """The names read in the bounds of the Python ``range()`` loops of ``fn`` (``for _ in range(nscales)``):
    the loop is unrolled while tracing, so each value of them makes another program."""
    out: Set[str] = set()
    for call in calls_in(fn.body if isinstance(fn, (cst.Lambda, cst.FunctionDef)) else fn):
        if isinstance(call.func, cst.Name) and call.func.value == "range":
            for arg in call.args:
                out.update(read.value for read in name_references(arg.value))
    return out


def _item_index_names(fn: cst.CSTNode, index: ModuleIndex) -> Set[str]:
    """The names that select an item of a Python list or tuple in ``fn`` (``factors(x)[i]``, the list a
    display a module function returns, or a display itself): a Python index, so each value of it
    makes another program."""
    out: Set[str] = set()
    stack: List[cst.CSTNode] = [fn.body if isinstance(fn, (cst.Lambda, cst.FunctionDef)) else fn]
    while stack:
        n = stack.pop()
        stack.extend(iter_children(n))
        if not (isinstance(n, cst.Subscript) and len(n.slice) == 1 and isinstance(n.slice[0].slice, cst.Index)
                and isinstance(n.slice[0].slice.value, cst.Name)):
            continue
        holder = n.value
        if isinstance(holder, (cst.List, cst.Tuple)) or (
                isinstance(holder, cst.Call) and isinstance(holder.func, cst.Name)
                and _returns_display(holder.func.value, index)):
            out.add(n.slice[0].slice.value.value)
    return out


def _returns_display(name: str, index: ModuleIndex) -> bool:
    """``name`` is a module-level function bound once whose every ``return`` gives a list or tuple display."""
    info = _module_function(name, index)
    values = returned_values(info.node.body) if info is not None else []
    return bool(values) and all(isinstance(v, (cst.List, cst.Tuple)) for v in values)


def _counted_target(loop: cst.For, index: ModuleIndex) -> Tuple[cst.BaseExpression, cst.BaseExpression]:
    """The loop's target and what it iterates; for ``for i, s in enumerate(...)`` the counter ``i`` and a
    ``range()`` (the counter's values are distinct)."""
    target, iterable = loop.target, loop.iter
    if isinstance(target, cst.Tuple) and len(target.elements) == 2 and isinstance(iterable, cst.Call) \
            and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate" \
            and "enumerate" not in index.globals and "enumerate" not in index.functions:
        return target.elements[0].value, cst.Call(cst.Name("range"), [])
    return target, iterable


def _distinct_values(iterable: cst.BaseExpression, index: ModuleIndex, scope: Optional[FunctionInfo]) -> bool:
    """``range(...)`` (the builtin), or distinct constants: a list or tuple display of them, a name bound
    once to one, or a concatenation of those (``Ls + [1024]``)."""
    if isinstance(iterable, cst.Call):
        return isinstance(iterable.func, cst.Name) and iterable.func.value == "range" \
            and "range" not in index.globals and "range" not in index.functions
    values = _constants(iterable, index, scope)
    return bool(values) and len(set(values)) == len(values)


def _bound_value(node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """What a binding statement gives the name it binds: the value of ``x = v`` (also the whole value
    unpacked by ``a, b = v``)."""
    return node.value if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None else None


def _unpacked_display_item(name: str, index: ModuleIndex, scope: Optional[FunctionInfo]
                           ) -> Optional[cst.BaseExpression]:
    """The item of a display that the one binding of ``name`` unpacks (``sizes, runs = [32, 64], 5``:
    ``[32, 64]`` for ``sizes``); None for anything else."""
    home = (scope.scope if scope is not None else index.scope_model.module_scope).resolve(name)
    bindings = home.bindings_of(name) if home is not None else []
    if len(bindings) != 1 or bindings[0].kind is not BindingKind.ASSIGNMENT or home.declares(name):
        return None
    node = bindings[0].node
    if not isinstance(node, cst.Assign) or len(node.targets) != 1:
        return None
    target, value = node.targets[0].target, node.value
    if not isinstance(target, (cst.Tuple, cst.List)) or not isinstance(value, (cst.Tuple, cst.List)) \
            or len(target.elements) != len(value.elements) \
            or any(isinstance(e, cst.StarredElement) for e in list(target.elements) + list(value.elements)):
        return None
    for t, v in zip(target.elements, value.elements):
        if isinstance(t.value, cst.Name) and t.value.value == name:
            return v.value
    return None


def _computed_over_range(comp: cst.ListComp, index: ModuleIndex) -> Optional[List[int]]:
    """The ints ``[2 ** (i + 1) for i in range(5)]`` holds: one ``for`` over ``range`` of int constants, no
    condition, an element of integer arithmetic on the target and constants (at most 10,000 of them)."""
    loop = comp.for_in
    if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None \
            or not isinstance(loop.target, cst.Name) or not isinstance(loop.iter, cst.Call) \
            or not (isinstance(loop.iter.func, cst.Name) and loop.iter.func.value == "range"
                    and "range" not in index.globals) \
            or not 1 <= len(loop.iter.args) <= 3 or any(a.star or a.keyword for a in loop.iter.args):
        return None
    bounds = [int_value(a.value) for a in loop.iter.args]
    if any(b is None for b in bounds) or len(range(*bounds)) > 10_000:  # type: ignore[misc]
        return None
    name = loop.target.value
    out = []
    for i in range(*bounds):  # type: ignore[misc]
        value = _int_arithmetic(comp.elt, name, i)
        if value is None:
            return None
        out.append(value)
    return out


def _int_arithmetic(expr: cst.BaseExpression, name: str, value: int, depth: int = 0) -> Optional[int]:
    """``expr`` worked out with ``name`` = ``value``: ints, ``+ - * // % **`` (small powers), unary minus."""
    if depth > 8:
        return None
    if isinstance(expr, cst.Name):
        return value if expr.value == name else None
    if isinstance(expr, cst.Integer):
        return int_value(expr)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        inner = _int_arithmetic(expr.expression, name, value, depth + 1)
        return -inner if inner is not None else None
    if isinstance(expr, cst.BinaryOperation):
        a = _int_arithmetic(expr.left, name, value, depth + 1)
        b = _int_arithmetic(expr.right, name, value, depth + 1)
        if a is None or b is None:
            return None
        op = expr.operator
        if isinstance(op, cst.Add):
            return a + b
        if isinstance(op, cst.Subtract):
            return a - b
        if isinstance(op, cst.Multiply):
            return a * b
        if isinstance(op, (cst.FloorDivide, cst.Modulo)) and b != 0:
            return a // b if isinstance(op, cst.FloorDivide) else a % b
        if isinstance(op, cst.Power) and 0 <= b <= 64 and abs(a) <= 1 << 16:
            return a ** b
    return None


def _constants(expr: cst.BaseExpression, index: ModuleIndex, scope: Optional[FunctionInfo],
               depth: int = 0, sizes: bool = False) -> Optional[List[object]]:
    """The constants a display of constants holds, through names bound once and ``+``; None for anything else.
    Each is ``(int, None)`` or ``(None, str)``.  With ``sizes``, also tuples of ints (``(4, 16)``, as
    ``("shape", 4, 16)``), and ``list`` / ``tuple`` / ``sorted`` / ``itertools.product`` of displays of them."""
    if isinstance(expr, cst.Name) and depth < 4:
        value = index.single_value(expr.value, scope)
        if value is None and scope is None:  # a script binding the name again and again: the one read here
            reaching = index.module_reaching(expr.value, expr)
            value = reaching.value if isinstance(reaching, Binding) and reaching.kind is BindingKind.ASSIGNMENT \
                else None
        if value is None:
            value = _unpacked_display_item(expr.value, index, scope)
        return _constants(value, index, scope, depth + 1, sizes) if value is not None else None
    if isinstance(expr, cst.ListComp):
        computed = _computed_over_range(expr, index)
        return [(v, None) for v in computed] if computed is not None else None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Add):
        left = _constants(expr.left, index, scope, depth, sizes)
        right = _constants(expr.right, index, scope, depth, sizes)
        return left + right if left is not None and right is not None else None
    if sizes and isinstance(expr, cst.Call) and depth < 4 and expr.args \
            and not any(a.star or a.keyword for a in expr.args):
        q = index.qualify(expr.func) or (expr.func.value if isinstance(expr.func, cst.Name) else "")
        parts = [_constants(a.value, index, scope, depth + 1, sizes) for a in expr.args]
        if q in ("list", "tuple", "sorted") and len(parts) == 1:
            return parts[0]  # (the same items, perhaps reordered)
        ints = [[v[0] for v in part if isinstance(v, tuple) and isinstance(v[0], int)] if part else None
                for part in parts]
        if q == "itertools.product" and all(i is not None and part is not None and len(i) == len(part)
                                            for i, part in zip(ints, parts)) \
                and 0 < _product_size(ints) <= 10_000:
            return [("shape",) + combo for combo in itertools.product(*ints)]  # type: ignore[arg-type]
        return None
    if isinstance(expr, (cst.List, cst.Tuple)) and expr.elements:
        values: List[object] = []
        for el in expr.elements:
            value = (int_value(el.value), string_value(el.value)) if isinstance(el, cst.Element) else (None, None)
            if value == (None, None) and sizes and isinstance(el, cst.Element) and isinstance(el.value, cst.Tuple):
                shape = tuple(int_value(e.value) if isinstance(e, cst.Element) else None for e in el.value.elements)
                value = ("shape",) + shape if shape and None not in shape else value  # type: ignore[assignment]
            if value == (None, None):
                return None
            values.append(value)
        return values
    return None


def _product_size(parts: Sequence[Optional[List[object]]]) -> int:
    size = 1
    for part in parts:
        size *= len(part or ())
    return size


def _unhashable(node: cst.BaseExpression, index: ModuleIndex, depth: int = 0,
                scope: Optional[FunctionInfo] = None, containers: bool = True) -> bool:
    """A list, dict, set (literal, comprehension or constructor), a NumPy or JAX array, a slice or
    arithmetic of one (``np.arange(n)[::-1]``), a copy, cast or reshape of one (``h.astype(np.float32)``),
    an instance of a dataclass of this module that is not hashable (:func:`unhashable_dataclass`), or the
    result of a module-level function whose every ``return`` gives one of these.  Inside a function
    (``scope``) a name its body binds once to such a value is one too.  Without ``containers``: only
    an array (no list, dict, set or dataclass instance)."""
    if depth > 3:
        return False

    def again(expr: cst.BaseExpression, deeper: int = depth, where: Optional[FunctionInfo] = scope) -> bool:
        return _unhashable(expr, index, deeper, where, containers)

    if isinstance(node, cst.Name) and scope is not None:
        bound = index.single_value(node.value, scope)
        return bound is not None and again(bound, depth + 1)
    if isinstance(node, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)):
        return containers
    if isinstance(node, cst.Subscript):
        return all(isinstance(el.slice, cst.Slice) for el in node.slice) and again(node.value)
    if isinstance(node, cst.BinaryOperation):
        return again(node.left) or again(node.right)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
            and node.func.attr.value in _SAME_KIND_METHODS and again(node.func.value):
        return True  # (a method of the unhashable value itself: what it gives is of its kind)
    if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute)):
        tail = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value
        if tail in ("list", "dict", "set"):
            return containers
        if tail in ("array", "asarray", "zeros", "ones"):
            return True
        if isinstance(node.func, cst.Name) and unhashable_dataclass(node.func.value, index) is not None:
            return containers
        if isinstance(node.func, cst.Name) and _returns_unhashable(node.func.value, index, depth, containers):
            return True
        q = index.qualify(node.func)
        if q is None:
            return False
        if q in jax_api.MUTABLE_FACTORIES:
            return containers
        if q in _NUMPY_ARRAY_FUNCTIONS:
            return True
        # jax.numpy / jax.random results are jax.Arrays (classes and non-array helpers aside)
        return (q.startswith(("jax.numpy.", "jax.random.")) and jax_api.is_array_function(q)
                and q not in _NOT_ARRAY_JAX_FUNCTIONS and not q.rsplit(".", 1)[-1][:1].isupper())
    return False


#: methods of a list, dict, set or array that give a value of the same kind (a copy, a cast, a new shape):
#: the array methods that keep an array, but for the reductions (a whole-array sum is a hashable scalar)
_SAME_KIND_METHODS = jax_api.NUMPY_ARRAY_METHODS - {"sum", "mean"}


def _module_binding(name: str, kind: str, index: ModuleIndex) -> bool:
    """``name`` is bound once in the module, as a ``kind`` ("class", "function"), and nothing writes it."""
    info = index.globals.get(name)
    return info is not None and info.kind == kind and info.assignments == 1 and name not in index.global_written


def _module_function(name: str, index: ModuleIndex) -> Optional[FunctionInfo]:
    """The module-level ``def`` bound to ``name`` (once, and rebound nowhere), not a method."""
    info = index.functions.get(name)
    if info is None or info.parent is not None or info.cls is not None or not isinstance(info.node, cst.FunctionDef) \
            or not _module_binding(name, "function", index):
        return None
    return info


def unhashable_dataclass(name: str, index: ModuleIndex) -> Optional[ClassInfo]:
    """The class ``name`` of this module when its instances are unhashable: a standard-library
    ``@dataclass`` that compares by value (``eq`` left True) and is neither frozen nor given
    ``unsafe_hash=True``, and that defines no ``__hash__`` of its own -- ``dataclass`` then sets
    ``__hash__`` to None, so ``hash()`` of an instance raises TypeError.  A class with bases is left
    out (a base may define ``__hash__``)."""
    cls = index.classes.get(name)
    if cls is None or not _module_binding(name, "class", index) or cls.node.bases or "__hash__" in cls.methods:
        return None
    if any(isinstance(small, (cst.Assign, cst.AnnAssign)) and "__hash__" in {
            n.value for t in (small.targets if isinstance(small, cst.Assign) else [small])
            for n in assigned_names(t.target)}
           for line in cls.node.body.body if isinstance(line, cst.SimpleStatementLine) for small in line.body):
        return None  # `__hash__ = ...` in the class body
    found = [d for d in cls.decorators if _stdlib_dataclass(d, index)]
    if len(found) != 1 or len(cls.decorators) != 1:
        return None
    decorator = found[0]
    if isinstance(decorator, cst.Call):
        for arg in decorator.args:
            if arg.star or arg.keyword is None:
                return None
            if arg.keyword.value in ("frozen", "unsafe_hash", "eq"):
                flag = arg.value.value if isinstance(arg.value, cst.Name) else None
                if flag not in ("True", "False"):
                    return None
                if (arg.keyword.value == "eq") != (flag == "True"):
                    return None  # eq=False: hashed by identity; frozen=True / unsafe_hash=True: by value
    return cls


def _stdlib_dataclass(decorator: cst.BaseExpression, index: ModuleIndex) -> bool:
    target = decorator.func if isinstance(decorator, cst.Call) else decorator
    return isinstance(target, (cst.Name, cst.Attribute)) and index.qualify(target) == "dataclasses.dataclass"


def _returns_unhashable(name: str, index: ModuleIndex, depth: int, containers: bool = True) -> bool:
    """``name`` is a module-level function (not a generator) whose every ``return`` gives an unhashable
    value, directly or through a name its body binds once."""
    info = _module_function(name, index)
    if info is None or any_node([info.node.body], lambda n: isinstance(n, (cst.Yield, cst.Await))):
        return False  # (none, or a generator or a coroutine: it gives an object of its own)
    values = returned_values(info.node.body)
    return bool(values) and all(v is not None and _unhashable(v, index, depth + 1, info, containers) for v in values)


class MutableStaticSelf(Rule):
    """## What it does
    Flags a jitted method whose `self` is static -- `jax.jit(self.method)`,
    `jax.jit(obj.method)`, or `static_argnums=0` on a method -- when the
    class changes its own attributes outside `__init__` / `setup`, or when
    code that makes an instance (`c = C(...)`, in the module or a function)
    calls the method, assigns an attribute the method reads (`c.mul =
    False`) and calls it again, or writes and calls in one loop around
    which the instance was made. An attribute set before the first call, on
    another instance, one the method does not read, or a change no call
    follows (or only calls on a new instance bound to the name) is not
    stale. In module-level code the class is the one whose statement
    reaches the call (a notebook may define it twice).

    Construction is not a change: besides `__init__`, a private helper that
    only construction calls (`self._set_normal(...)` in `__init__`, also
    through a chain of such helpers) sets the starting state. A helper that
    is also called from another method, kept as a callback, or called on
    another object can run later, and its writes count.

    A method that stores the same values every time it runs is no change
    once construction has run it: it takes nothing but `self`, `__init__`
    calls it (`self.set_distances()`, with nothing after that call binding
    what it stores), and it computes only from attributes that no method
    binds after construction, literals, module constants, builtins such as
    `len` and `range`, NumPy and `math` functions, methods of objects that
    only construction binds (`self._cosmo.distance(z)`, not a draw such as
    `self._rng.normal()`), and lists or dicts it builds itself. A parameter, a read of an attribute another method
    rebinds, a call of another method of the class or of `np.random`, or a
    mutation of a list it did not build keeps its writes as changes. So is
    the one method binding an attribute to a value built from the object
    alone by a pure builder -- a JAX transform, a JAX library's factory
    such as an optax optimizer or a flashbax buffer, not a random draw
    (`self.opt = optax.adam(learning_rate=self.config.lr)` at the top of
    `train`), `functools.partial`, a class of the checked code: each run
    builds an equal value; built from a parameter (`optax.sgd(lr)`), it
    changes -- unless the method is private and every call of it, in the
    class and its base classes (of any module of the project), passes only
    attributes of the object that nothing but `__init__` binds
    (`self._initialize_(*self.args, **self.kwargs)` in the base class's
    `train`): each run gets what the object was made with.

    A run-once initialiser -- it starts with `if self.initialized: return`
    (or `... and not reinitialize`, a parameter no call passes) and sets the
    flag itself, or through `super().<same method>()` whose base method
    (of this module or another one) sets it -- stores its values once.

    A method that is a lazy initialiser -- every call of it stands under
    `if self._flag is None:` (or `if not self._flag:`) whose flag it sets
    itself and only `__init__` binds besides -- runs once per object; when
    every method that calls the wrapper runs it first, the first trace sees
    what it set: its writes are not changes (tapnet's
    `if self._train_input is None: self._initialize_train()`).

    Only changes made outside the trace count: a write in the jitted method
    itself, or in a helper only it calls, happens while tracing and stores a
    tracer, which JIT102 reports.

    A `jax.jit` wrapper that dies with the call that made it is not stale:
    `fn = jax.jit(self._log_prob)` bound to a local name that is only called
    there traces again at each call of that method (jit drops its trace of a
    bound method with the last wrapper of it), also `pjit`, and also where the
    method sets the attribute before it makes the wrapper (`self.optim = optim`
    then `step = pjit(self.train_step)`: the new trace reads the new value).
    It still counts when the method
    changes the attribute between two calls of `fn`, when the wrapper is kept
    or returned, when another `jax.jit` wrapper of the method exists, and for
    `jax.pmap`, which keeps its trace after the wrapper is gone.

    A wrapper kept as `self.W = jax.jit(self.m)` is not stale where the
    method that changes what `m` reads binds `self.W = jax.jit(self.m)`
    again after its writes, with nothing between that could run it
    (jaxtronomy's `update_data`, "recompile the likelihood"), and `W` is
    only ever called or stored: the old wrapper goes, and its trace with it.

    A `unittest` test case runs each test method on an instance of its own,
    made and set up afresh: a test method that changes the attribute but
    never reaches the wrapper (stored as `self.<name>` in `setUp`) changes
    what no call it makes can see.

    A read counts where its value can reach the trace. A property that
    returns a new instance of one class of the module (`Net(self._state)`),
    and that the method only tests with `hasattr`, `isinstance`, `type` or
    `callable`, does not pass on what it reads: those tests answer from the
    object's class and names, the same whatever `_state` holds (for
    `hasattr`, a name defined in that class's body). Testing an attribute
    the change rebinds (`hasattr(self.layer, ...)`) still counts: the change
    may bind an object of another class. An attribute the method binds
    itself, first, at the top of its body (`self._counts = jnp.zeros(n)`,
    then the scan that starts from it) is read as this trace stored it, not
    as another method left it (storing a tracer there is JIT102's finding).

    A method that construction runs last (`self.init()` at the end of
    `__init__`) and whose whole body computes from the object's fixed state
    (records of the module, `jax.vmap` of its functions, NumPy, comprehensions
    over its own locals) stores on every later run what it stored then: an
    attribute no other method binds keeps its value, even when the method
    also resets attributes others change. An attribute that construction
    binds to `None` and that the class uses only where `None` raises (an
    operand of `jnp`/`lax` functions or arithmetic, indexed, after `if
    self.x is None: raise`) is not stale when every write stores one
    expression of the fixed state (`self._mask = self.make_mask()`, a method
    that binds nothing and reads only sizes `__init__` stored), even under a
    test of an argument: a trace that met `None` failed and kept nothing. A
    placeholder the traced code tests (`if self._scale is None:`), or a value
    built from an argument, is flagged. A module function that only computes
    what it returns (`make_buffer(self.size, 2)` defining closures over its
    arguments and returning a NamedTuple of them) builds an equivalent value
    from equal arguments; one that reads or bumps module state does not.
    A script (a module outside a package) that makes an instance at module
    level and calls the changing method on it once, outside loops, before any
    other method of it, sets its starting state: not flagged (called again,
    or in a loop, it is).

    ## Why is this bad?
    The compiled function keeps the attribute values it saw while tracing.
    After `obj.k = 10.0` it still computes with the old `k` (stale results),
    and with a `__hash__` over mutable fields a fresh, equal-looking object
    can receive another object's compiled code (cache poisoning).

    ## Example
    ```python
    import jax

    class Scaler:
        def __init__(self, k):
            self.k = k
            self.f = jax.jit(self._f)

        def _f(self, x):
            return self.k * x

        def set_k(self, k):
            self.k = k
    ```

    Use instead:
    ```python
    import dataclasses
    from functools import partial

    import jax

    @dataclasses.dataclass(frozen=True)
    class Scaler:
        k: float

        @partial(jax.jit, static_argnums=0)
        def f(self, x):
            return self.k * x

    scaler = dataclasses.replace(Scaler(2.0), k=3.0)
    ```
    A frozen dataclass hashes and compares by its fields, so a changed copy
    (`dataclasses.replace`) compiles anew. Or make it a pytree
    (`jax.tree_util.register_dataclass`) whose data fields are traced.

    ## Fix safety
    UNSAFE: the attributes other methods change, when the jitted method reads
    them itself where an array goes (arithmetic, a `jnp` argument, indexing),
    become keyword-only parameters of the method, and every call of it passes
    the object's current values (`self._f(x, mean=self.mean)`): traced, a
    changed value is used. A decorated method keeps its name and signature
    as a plain method that passes them on to a jitted twin
    (`return self._f_jit(x, mean=self.mean)`), so callers elsewhere keep
    working; so does a method a module statement jits through an object
    (`W = jax.jit(OBJ.method)` becomes `W = OBJ.method`, the twin jitted
    with `self` static); a dataclass's fields count when annotated as numbers or
    arrays. A value of another shape or dtype compiles again, and an
    attribute later set to something that is not an array would not
    trace. Not offered when such an attribute is tested, used as a shape,
    called, read by another method, or when the method is handed on by name.

    ## References
    - [FAQ: how to use jit with methods](https://docs.jax.dev/en/latest/faq.html#how-to-use-jit-with-methods)
    """

    code = "JIT503"
    name = "mutable-static-self"
    fix_title = "Pass the attributes other methods change to the method as arguments"

    def check_module(self) -> None:
        self._rebuilt: Dict[tuple, Tuple[Set[str], Set[str]]] = {}
        for entry in self.ctx.index.entries:
            if not entry.compiles:
                continue
            fn = entry.function
            cls = fn.cls
            if cls is None or not fn.is_method or self._frozen(cls):
                continue
            positional = _positional(fn)
            self_static = entry.self_bound or (positional and positional[0].name.value in entry.static_params())
            if not self_static:
                continue
            if not cls.mutated_attributes:
                self._changed_by_callers(entry, fn)
                continue
            traced = self._traced_methods(fn)
            # a change made inside the trace itself is JIT102's finding (it stores a tracer), not a stale value;
            # one made while the instance is built is its starting state, fixed before any call
            changes = self.ctx.index.changed_after_construction(cls)
            outside = {attr: sorted(m for m in methods - traced if not self._rebuilds_same(cls, m, attr, changes)
                                    and not self._set_once_before_wrapped(fn, cls, m, attr)
                                    and not self._initialiser_run_first(entry, cls, m, changes)
                                    and not self._runs_once_per_object(cls, m, attr)
                                    and not self._other_test_instance(entry, cls, m)
                                    and not self._wrapped_again_after(entry, cls, m, attr)
                                    and not self._set_up_once_by_script(cls, m))
                       for attr, methods in changes.items()}  # (a writer that stores the same each run: none)
            stale = sorted(attr for attr in self._attributes_read(fn) if outside.get(attr))
            if not stale or self._dies_with_its_call(entry, {m for attr in stale for m in outside[attr]}, stale):
                continue
            mutator = outside[stale[0]][0]
            self.report(entry.site, f"`{fn.label}` is jitted with `self` static and reads `self.{stale[0]}`, which "
                                    f"`{cls.name}.{mutator}` changes: later calls reuse the stale value")

    def _changed_by_callers(self, entry: EntryPoint, fn: FunctionInfo) -> None:
        """Code that makes an instance (``c = C(...)`` in the module or a function) calls the jitted
        method on it, assigns an attribute the method reads (``c.mul = False``) and calls it again, or
        writes and calls in one loop around which the instance was made: the later call finds the trace
        made for the object (``self`` is static, compared by identity) and computes with the old value
        (JAX's FAQ example, run on JAX 0.10.2: ``6`` where the page says "should print 3").  A name
        bound again starts afresh; in the module, ``C`` is the class that reaches the call (a notebook
        may define it twice)."""
        cls = fn.cls
        read = self._attributes_read(fn)
        if cls is None or not read:
            return
        index = self.ctx.index
        module_scope = index.scope_model.module_scope
        scopes = [(module_scope, self.ctx.module)] + [
            (info.scope, info.node.body) for info in index.infos.values() if isinstance(info.node, cst.FunctionDef)]
        for scope, body in scopes:
            made: Set[cst.CSTNode] = set()  # the assignments that bind an instance of the class
            for name, bindings in scope.bindings.items():
                if scope.declares(name):
                    continue
                for binding in bindings:
                    value = binding.value
                    if binding.kind is BindingKind.ASSIGNMENT and isinstance(value, cst.Call) \
                            and isinstance(value.func, cst.Name) and value.func.value == cls.name \
                            and self._names_class(value.func, cls, scope is module_scope):
                        made.add(binding.node)
            if not made:
                continue
            found = _write_between_calls(body, made, fn.name, read)
            if found is not None:
                write, attr = found
                self.report(entry.site, f"`{fn.label}` is jitted with `self` static and reads `self.{attr}`, which "
                                        f"code calling it changes on the instance between calls: later calls reuse "
                                        f"the stale value",
                            Reason(write, "`{code}` (line {line}) changes it between calls"))
                return

    def _names_class(self, read: cst.Name, cls, module_level: bool) -> bool:
        """The class name read at ``read`` is ``cls``: in module-level code, the class statement that
        reaches it where the module binds the name more than once."""
        if not module_level:
            return True
        binding = self.ctx.index.module_reaching(read.value, read)
        return not isinstance(binding, Binding) or binding.node is cls.node

    def _rebuilds_same(self, cls, method_name: str, attr: str, changes: Dict[str, Set[str]]) -> bool:
        """The method is the only one of the class that binds ``self.<attr>`` (``__init__`` included), and
        every write of it there stores a value built from the object and constants only, from no
        attribute a method changes (idempotence.built_from_self): each run stores an equivalent value
        (``self._step = lambda x: self._update(x, grad_fn)``), so a trace that kept an older one
        computes the same.  An attribute the same method rebuilds the same way before it counts as fixed
        (``self.x_freqs = self.settings["x_freqs"]``, then ``self.freqs = jnp.meshgrid(self.x_freqs, ...)``:
        folax's ``Initialize``)."""
        # (asked once per attribute the method binds: its writes and the fixed point are worked out once)
        key = (id(cls), method_name, tuple(sorted((a, tuple(sorted(m))) for a, m in changes.items())))
        found = self._rebuilt.get(key)
        if found is None:
            written = self._rebuilt_writes(cls, method_name)
            found = self._rebuilt[key] = (set(written), self._rebuilt_same_set(cls, method_name, changes, written)
                                          if written else set())
        return attr in found[0] and attr in found[1]

    def _rebuilt_same_set(self, cls, method_name: str, changes: Dict[str, Set[str]],
                          written: Dict[str, Tuple[int, int, List[cst.BaseExpression]]]) -> Set[str]:
        """The attributes ``method_name`` alone binds, each to values built from the object, constants and the
        attributes of this set that it binds in earlier statements (a least fixed point: a cycle between two
        attributes rebuilds neither)."""
        method = cls.methods[method_name]
        self_name = method.node.params.params[0].name.value
        fixed = self._passed_construction_values(cls, method_name)
        stable: Set[str] = set()
        grew = True
        while grew:
            grew = False
            for attr, (first, _last, values) in written.items():
                if attr in stable:
                    continue
                before = {other for other in stable if written[other][1] < first}
                moving = set(changes) - {attr} - before

                def calls_ok(call: cst.Call, moving=moving) -> bool:
                    # (a method of the class that computes from its arguments and attributes nothing changes)
                    func = call.func
                    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                            and func.value.value == self_name and func.attr.value in cls.methods:
                        return pure_method(self.ctx.index, cls, func.attr.value, self._fixed_attributes(cls) - moving)
                    return self.ctx.builds_purely(call)

                if values and all(built_from_self(method.scope, v, attr, moving, calls_ok, fixed) for v in values):
                    stable.add(attr)
                    grew = True
        return stable

    def _passed_construction_values(self, cls, method_name: str) -> bool:
        """Every call of the private method ``method_name`` -- at least one, all on the object itself, in the
        methods of the class and of its base classes (in this module or another of the project) -- passes
        only attributes of the object that no method but ``__init__`` binds (``self._initialize_(*self.args,
        **self.kwargs)``), and nothing in this module calls it on another object: each run gets the values
        the object was made with, so what it builds from its parameters it builds the same (angelYHF's
        models, each made per fold and trained once; JAX 0.10.2: jit equals eager, one trace per model)."""
        if not method_name.startswith("_") or method_name.startswith("__"):
            return False
        classes = [cls] + list(self.ctx.facts.base_classes(cls.name))
        methods = [m for c in classes for m in c.methods.values()
                   if isinstance(m.node, cst.FunctionDef) and m.node.params.params and not m.is_static_method]
        calls = 0
        for m in methods:
            me = m.node.params.params[0].name.value
            for call in calls_in(m.node.body):
                func = call.func
                if not (isinstance(func, cst.Attribute) and func.attr.value == method_name):
                    continue
                if not (isinstance(func.value, cst.Name) and func.value.value == me):
                    return False
                for arg in call.args:
                    value = arg.value
                    if not (isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name)
                            and value.value.value == me):
                        return False
                    if any(assigns_attribute(other.node.body, other.node.params.params[0].name.value,
                                             value.attr.value)
                           for other in methods if other.name != "__init__"):
                        return False  # (an attribute a method changes: the runs may differ)
                calls += 1
        for call in calls_in(self.ctx.module):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == method_name \
                    and not (isinstance(func.value, cst.Name) and func.value.value == "self"):
                return False  # (called on an object from outside its class, with values of the caller's)
        return calls > 0

    def _fixed_attributes(self, cls) -> Set[str]:
        """The attributes of ``self`` the class's methods bind, less those a method binds after construction."""
        out: Set[str] = set()
        for m in cls.methods.values():
            node = m.node
            if not (isinstance(node, cst.FunctionDef) and node.params.params):
                continue
            me = node.params.params[0].name.value

            def note(item: cst.CSTNode, me: str = me) -> bool:
                if isinstance(item, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                    targets = [t.target for t in item.targets] if isinstance(item, cst.Assign) else [item.target]
                    out.update(a.attr.value for t in targets for a in flat_targets(t) if isinstance(a, cst.Attribute)
                               and isinstance(a.value, cst.Name) and a.value.value == me)
                return False

            any_node([node.body], note)
        return out - set(self.ctx.index.changed_after_construction(cls))

    def _rebuilt_writes(self, cls, method_name: str) -> Dict[str, Tuple[int, int, List[cst.BaseExpression]]]:
        """The attributes of ``self`` that ``method_name`` alone of the class binds, each with where its first and
        last writes stand in the method (in source order) and the values they store; an attribute written by
        ``+=``, a chained assignment or ``del`` is left out (it is no rebuild)."""
        method = cls.methods.get(method_name)
        node = method.node if method is not None else None
        if not isinstance(node, cst.FunctionDef) or not node.params.params:
            return {}
        self_name = node.params.params[0].name.value
        found: Dict[str, Tuple[int, int, List[cst.BaseExpression]]] = {}
        broken: Set[str] = set()
        order = 0
        stack: List[cst.CSTNode] = [node.body]
        while stack:
            n = stack.pop()
            order += 1
            if isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(n, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)):
                targets = [t.target for t in n.targets] if isinstance(n, cst.Assign) else [n.target]
                for t in targets:
                    for a in flat_targets(t):
                        if not (isinstance(a, cst.Attribute) and isinstance(a.value, cst.Name)
                                and a.value.value == self_name):
                            continue
                        attr = a.attr.value
                        unpacked = unpacked_into(n, self_name, attr)
                        if unpacked is not None:
                            value = unpacked  # `init, self.update, get = self.opt`: a part of that value
                        elif isinstance(n, cst.Assign) and len(n.targets) == 1 and isinstance(t, cst.Attribute):
                            value = n.value
                        else:
                            broken.add(attr)  # `+=`, a chained assignment, `del`
                            continue
                        first, _last, values = found.get(attr, (order, order, []))
                        found[attr] = (first, order, values + [value])
            stack.extend(reversed(list(iter_children(n))))
        out = {}
        for attr, facts in found.items():
            if attr in broken:
                continue
            writers = [name for name, m in cls.methods.items() if isinstance(m.node, cst.FunctionDef)
                       and m.node.params.params and assigns_attribute(m.node.body, m.node.params.params[0].name.value,
                                                                       attr)]
            if writers == [method_name]:
                out[attr] = facts
        return out

    def _runs_once_per_object(self, cls, method_name: str, attr: str) -> bool:
        """The method alone binds ``self.<attr>`` (``__init__`` does not) and runs once per object: it starts with
        ``if self.<flag>: return`` (or ``if self.<flag> and not <rerun>: return``, with a parameter ``rerun`` that
        no call in the module passes), later binds ``self.<flag> = True``, and no other method of the class but
        ``__init__`` binds the flag.  A trace of the jitted method before it runs finds no attribute (an
        ``AttributeError``, nothing kept); every trace after it reads the one value it stored (folax's
        ``Initialize(reinitialize=False)``; JAX 0.10.2: jit equals eager, 1 compile)."""
        method = cls.methods.get(method_name)
        node = method.node if method is not None else None
        if not isinstance(node, cst.FunctionDef) or not node.params.params or method_name == "__init__" \
                or not isinstance(node.body, cst.IndentedBlock):
            return False
        me = node.params.params[0].name.value
        body = [stmt for stmt in node.body.body if not is_docstring(stmt)]
        guard = body[0] if body else None
        if not (isinstance(guard, cst.If) and guard.orelse is None and isinstance(guard.body, cst.IndentedBlock)
                and len(guard.body.body) == 1 and isinstance(guard.body.body[0], cst.SimpleStatementLine)
                and isinstance(guard.body.body[0].body[0], cst.Return) and guard.body.body[0].body[0].value is None):
            return False
        test, rerun = guard.test, None
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) \
                and isinstance(test.right, cst.UnaryOperation) and isinstance(test.right.operator, cst.Not) \
                and isinstance(test.right.expression, cst.Name):
            test, rerun = test.left, test.right.expression.value
        if not (isinstance(test, cst.Attribute) and isinstance(test.value, cst.Name) and test.value.value == me):
            return False
        flag = test.attr.value
        if not _sets_flag(body[1:], me, flag) and not self._base_sets_flag(cls, method_name, body[1:], flag):
            return False
        for name, other in cls.methods.items():
            other_node = other.node
            if name in (method_name, "__init__") or not isinstance(other_node, cst.FunctionDef) \
                    or not other_node.params.params:
                continue
            if assigns_attribute(other_node.body, other_node.params.params[0].name.value, flag):
                return False
            if assigns_attribute(other_node.body, other_node.params.params[0].name.value, attr):
                return False
        init = cls.methods.get("__init__")
        if init is not None and isinstance(init.node, cst.FunctionDef) and init.node.params.params \
                and assigns_attribute(init.node.body, init.node.params.params[0].name.value, attr):
            return False
        if rerun is not None:
            params = [p for p, _ in method.params]
            if not any(p.name.value == rerun for p in params):
                return False
            position = next(i for i, p in enumerate(params) if p.name.value == rerun) - 1
            for call in calls_in(self.ctx.module):
                func = call.func
                if not (isinstance(func, cst.Attribute) and func.attr.value == method_name):
                    continue
                positional = [a for a in call.args if a.keyword is None]
                if any(a.star for a in call.args) or len(positional) > position \
                        or any(a.keyword is not None and a.keyword.value == rerun for a in call.args):
                    return False  # (a call that may ask for the rerun)
        return True

    def _base_sets_flag(self, cls, method_name: str, body, flag: str) -> bool:
        """The method calls ``super().<method_name>()`` without arguments, and the base class's method it reaches
        binds ``self.<flag> = True`` -- itself, or through its own ``super()`` call of the same method: the latch
        is set by the initialiser it extends (folax's ``TransientThermalLoss.Initialize`` over ``ThermalLoss``'s
        over ``FiniteElementLoss``'s, each in its own module)."""
        if not any(_calls_super(stmt, method_name) for stmt in body):
            return False
        for base in [c.methods[method_name] for c in self.ctx.facts.base_classes(cls.name) if method_name in c.methods]:
            node = base.node
            if not isinstance(node, cst.FunctionDef) or not node.params.params \
                    or not isinstance(node.body, cst.IndentedBlock):
                return False
            own = [stmt for stmt in node.body.body if not is_docstring(stmt)]
            if _sets_flag(own, node.params.params[0].name.value, flag):
                return True
            if not any(_calls_super(stmt, method_name) for stmt in own):
                return False
        return False

    def _set_once_before_wrapped(self, fn: FunctionInfo, cls, method_name: str, attr: str) -> bool:
        """The method binds ``self.<attr>`` and then makes every jit wrapper of ``fn``, so no wrapper
        traces the attribute before the change, and either the method runs at most once per object
        (it starts by raising when a flag of the object is set, ``if self.finalized: raise ...``, sets
        it, and no method but ``__init__`` binds it: deeperwin's ``Optimizer.finalize``) or each run
        stores a new ``jax.jit`` wrapper on the object in place of the last: jit's traces of a bound
        method go with its last wrapper, so the new one traces again (measured on JAX 0.10.2; a
        ``jax.pmap`` keeps the trace of an equal bound method, and stays stale).  A wrapper stored
        under the method's own name (``self.m = jax.jit(self.m)``, the attributes bound before it, also
        by one tuple unpacking) marks an initialiser: run again it would wrap the last wrapper, whose
        trace it keeps (measured: stale), so it is read as running once per object."""
        method = cls.methods.get(method_name)
        node = method.node if method is not None else None
        if not isinstance(node, cst.FunctionDef) or not node.params.params \
                or not isinstance(node.body, cst.IndentedBlock):
            return False
        me = node.params.params[0].name.value
        body = list(node.body.body)
        entries = [e for e in self.ctx.index.entries if e.function is fn
                   and not (e.transform is not None and e.transform.abstract)]  # (eval_shape: no trace kept)
        sites = []
        for entry in entries:
            if entry.scope is not method:
                return False  # a wrapper made elsewhere may trace first
            where = next((i for i, stmt in enumerate(body) if path_to(stmt, entry.site) is not None), None)
            if where is None:
                return False
            sites.append(where)
        writes = [i for i, stmt in enumerate(body) if assigns_attribute(stmt, me, attr)]
        if not sites or not writes:
            return False
        if not all(i > max(writes) for i in sites) and _calls_on(body[min(sites):max(writes) + 1], me):
            # (a write after a wrapper is made still comes before its first trace when nothing in
            # between calls a method: `self._a = jax.jit(self._a); self._b = jax.jit(self._b)`)
            return False
        guard = self._run_once_guard(cls, method_name, me, body)
        if guard is not None:
            return min(writes) > guard
        return all(entry.transform is not None and entry.transform.name in jax_api.JIT_NAMES
                   and self._stored_on(entry.site, body, me) for entry in entries)

    @staticmethod
    def _stored_on(site: cst.CSTNode, body, me: str) -> bool:
        """``self.<name> = <site>``: the wrapper made at ``site`` replaces the one stored before."""
        for stmt in body:
            chain = path_to(stmt, site)
            if chain is not None:
                holder = chain[-2] if len(chain) >= 2 else None
                if isinstance(holder, cst.IfExp) and site in (holder.body, holder.orelse) and len(chain) >= 3:
                    site, holder = holder, chain[-3]  # `self._loss = jax.jit(a) if discrete else jax.jit(b)`
                return isinstance(holder, cst.Assign) and holder.value is site and len(holder.targets) == 1 \
                    and isinstance(holder.targets[0].target, cst.Attribute) \
                    and isinstance(holder.targets[0].target.value, cst.Name) \
                    and holder.targets[0].target.value.value == me
        return False

    def _initialiser_run_first(self, entry: EntryPoint, cls, method_name: str,
                               changes: Dict[str, Set[str]]) -> bool:
        """The method is a lazy initialiser run before the first call of the wrapper: every call of it in
        the class stands under ``if self.<flag> is None:`` (or ``if not self.<flag>:``) where it binds
        ``self.<flag>`` itself and no other method but ``__init__`` does -- so it runs once per object --
        and every method that calls the wrapper (stored as ``self.<name> = jax.jit(...)``) makes such a
        call in an earlier statement: the first trace sees what the initialiser set, and nothing changes
        it after (tapnet's ``if self._train_input is None: self._initialize_train()`` before
        ``self._update_func(...)``; measured on JAX 0.10.2: jit equals eager)."""
        method = cls.methods.get(method_name)
        stored = _stored_name(entry.site, self.ctx.index.parents)
        if method is None or not isinstance(method.node, cst.FunctionDef) or not method.node.params.params \
                or stored is None:
            return False
        own_self = method.node.params.params[0].name.value

        def guarded(stmt: cst.CSTNode, me: str) -> bool:
            """``if self.<flag> is None: self.<method>()`` whose flag only the initialiser sets again."""
            if not isinstance(stmt, cst.If) or stmt.orelse is not None:
                return False
            test = stmt.test
            if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                flag = test.expression
            elif isinstance(test, cst.Comparison) and len(test.comparisons) == 1 \
                    and isinstance(test.comparisons[0].operator, cst.Is) \
                    and isinstance(test.comparisons[0].comparator, cst.Name) \
                    and test.comparisons[0].comparator.value == "None":
                flag = test.left
            else:
                return False
            if not (isinstance(flag, cst.Attribute) and isinstance(flag.value, cst.Name) and flag.value.value == me):
                return False
            name = flag.attr.value
            return assigns_attribute(method.node.body, own_self, name) \
                and changes.get(name, set()) <= {method_name} \
                and _calls_method(stmt.body, me, method_name)

        callers = 0
        for other in cls.methods.values():
            node = other.node
            if not isinstance(node, cst.FunctionDef) or not node.params.params \
                    or not isinstance(node.body, cst.IndentedBlock):
                continue
            me = node.params.params[0].name.value
            body = list(node.body.body)
            inits = [i for i, stmt in enumerate(body) if guarded(stmt, me)]
            if any(_calls_method(stmt, me, method_name) for i, stmt in enumerate(body) if i not in inits):
                return False  # called where no guard keeps it to one run
            uses = [i for i, stmt in enumerate(body) if _calls_method(stmt, me, stored)]
            if uses and (not inits or min(uses) <= min(inits)):
                return False  # a call of the wrapper that may come first
            callers += bool(inits)
        return callers > 0

    def _run_once_guard(self, cls, method_name: str, me: str, body) -> Optional[int]:
        """Where the method's ``if self.<flag>: raise ...`` stands, when the method also sets
        ``self.<flag> = True`` and no other method but ``__init__`` binds the flag; else None."""
        for i, stmt in enumerate(body):
            if isinstance(stmt, cst.If) and stmt.orelse is None and isinstance(stmt.test, cst.Attribute) \
                    and isinstance(stmt.test.value, cst.Name) and stmt.test.value.value == me \
                    and isinstance(stmt.body, cst.IndentedBlock) and stmt.body.body \
                    and isinstance(stmt.body.body[0], cst.SimpleStatementLine) \
                    and isinstance(stmt.body.body[0].body[0], cst.Raise):
                flag = stmt.test.attr.value
                break
        else:
            return None
        if not any(isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Assign)
                   and self.ctx.code(s.body[0]).replace(" ", "") == f"{me}.{flag}=True" for s in body):
            return None
        for name, other in cls.methods.items():
            if name in (method_name, "__init__") or not isinstance(other.node, cst.FunctionDef) \
                    or not other.node.params.params:
                continue
            if assigns_attribute(other.node.body, other.node.params.params[0].name.value, flag):
                return None  # another method may set the flag back
        return i

    def _set_up_once_by_script(self, cls, method_name: str) -> bool:
        """A script (a module outside a package, running its program at module level) calls the method once
        on each instance of ``cls`` it makes: every call is a module-level statement outside loops, on a name
        bound once at module level to ``cls(...)`` (``agent = A2C()``) earlier in the same block, with no
        method of that instance called between, and no method of the class calls it (nor does its construction
        call any of its methods, which might trace first). What it stores is each
        instance's starting state, set before any trace (unstable-baselines' ``agent.transform(rng,
        optimizer, model)``, then the training loop; JAX 0.10.2: jitted losses equal eager ones)."""
        index = self.ctx.index
        calls = [c for c in index.calls_by_name.get("." + method_name, []) if index.qualify(c.func) is None]
        if index.in_package or not calls:
            return False
        for ctor, method in cls.methods.items():
            me = method.params[0][0].name.value if ctor in _SETUP_METHODS and method.params else None
            if me is not None and any_node([method.node.body], lambda n: isinstance(n, cst.Call)
                                           and isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name)
                                           and n.func.value.value == me and n.func.attr.value in cls.methods):
                return False  # (construction runs a method, which may trace before the setup)
        receivers: Set[str] = set()
        for call in calls:
            receiver = call.func.value  # type: ignore[attr-defined]
            if call in index.calls_in_loops or not isinstance(receiver, cst.Name) or receiver.value == "self" \
                    or receiver.value in receivers or index.owner_of(call) is not None:
                return False
            receivers.add(receiver.value)
            bindings = index.scope_model.module_scope.bindings.get(receiver.value, [])
            if len(bindings) != 1 or not isinstance(bindings[0].value, cst.Call) \
                    or not isinstance(bindings[0].value.func, cst.Name) or bindings[0].value.func.value != cls.name:
                return False
            if not self._first_method_call(call, bindings[0].node, receiver.value):
                return False
        return True

    def _first_method_call(self, call: cst.Call, made: cst.CSTNode, name: str) -> bool:
        """``call`` stands in a later statement of the block whose statement binds ``name`` at ``made``, and no
        statement from that one to the call's calls a method of ``name`` but ``call``."""
        parents = self.ctx.index.parents
        statement = parents.get(id(call))
        while statement is not None and not isinstance(statement, (cst.SimpleStatementLine,
                                                                    cst.BaseCompoundStatement)):
            statement = parents.get(id(statement))
        block = parents.get(id(statement))
        body = list(block.body) if isinstance(block, (cst.Module, cst.IndentedBlock)) else []
        used = next((i for i, stmt in enumerate(body) if stmt is statement), None)
        bound = next((i for i, stmt in enumerate(body) if any_node([stmt], lambda n: n is made)), None)
        if used is None or bound is None or bound > used:
            return False
        return not any(any_node([stmt], lambda n: isinstance(n, cst.Call) and n is not call
                                and isinstance(n.func, cst.Attribute) and isinstance(n.func.value, cst.Name)
                                and n.func.value.value == name)
                       for stmt in body[bound:used + 1])

    def _other_test_instance(self, entry: EntryPoint, cls, method_name: str, depth: int = 0) -> bool:
        """A test method of a ``unittest`` test case that changes the attribute but never reaches the wrapper
        (stored as ``self.<name>`` where it is made): unittest runs each test method on an instance of its
        own, made afresh and set up again (``setUp`` makes the wrapper anew), so a change one test makes
        is seen only by calls that same test makes."""
        stored = _stored_name(entry.site, self.ctx.index.parents)
        if stored is None or not method_name.startswith("test") or not self._test_case(cls):
            return False
        return not self._reaches_attribute(cls, method_name, stored, set())

    def _reaches_attribute(self, cls, method_name: str, attr: str, seen: Set[str]) -> bool:
        """Whether the method reads ``self.<attr>``, itself or through the methods of ``cls`` it calls on
        ``self`` (a method not found in the class, of a base class elsewhere, is taken to read it)."""
        if method_name in seen:
            return False
        seen.add(method_name)
        method = cls.methods.get(method_name)
        if method is None:
            return not method_name.startswith("assert")  # (unittest's assertions read no attribute of it)
        me = method.params[0][0].name.value if method.params else "self"
        stack: List[cst.CSTNode] = [method.node.body]
        while stack:
            node = stack.pop()
            stack.extend(iter_children(node))
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == me:
                if node.attr.value == attr:
                    return True
                parent = self.ctx.index.parents.get(id(node))
                if isinstance(parent, cst.Call) and parent.func is node \
                        and self._reaches_attribute(cls, node.attr.value, attr, seen):
                    return True
        return False

    def _test_case(self, cls, depth: int = 0) -> bool:
        """A ``unittest`` test case: a class whose bases (through this module's classes) include one named
        ``...TestCase`` (``unittest.TestCase``, ``absltest.TestCase``, ``parameterized.TestCase``)."""
        index = self.ctx.index
        for base, node in zip(cls.bases, cls.base_nodes):
            q = index.qualify(node) if node is not None else None
            if (q or base).rsplit(".", 1)[-1].endswith("TestCase"):
                return True
            local = index.classes.get(base)
            if local is not None and local is not cls and depth < 8 and self._test_case(local, depth + 1):
                return True
        return False

    def _wrapped_again_after(self, entry: EntryPoint, cls, method: str, attr: str) -> bool:
        """The wrapper is kept as ``self.W = jax.jit(self.m)`` and the method that changes ``self.<attr>``
        binds ``self.W = jax.jit(self.m)`` again after its last write of it (jaxtronomy's ``update_data``,
        "recompile the log likelihood functions"): the old wrapper goes, and jit's traces of a bound method
        go with the last wrapper of it (JAX 0.10.2: the next call traces with the new value), where ``W`` is
        only ever called or stored (no other reference keeps the old wrapper alive)."""
        site = entry.site
        transform = self.ctx.index.qualify(site.func) if isinstance(site, cst.Call) else None
        assign = self.ctx.index.parents.get(id(site))
        if not entry.self_bound or transform != "jax.jit" or not isinstance(assign, cst.Assign) \
                or len(assign.targets) != 1 or not _self_attribute(assign.targets[0].target):
            return False
        wrapper = assign.targets[0].target.attr.value  # type: ignore[attr-defined]
        changer = cls.methods.get(method)
        body = changer.node.body if changer is not None and isinstance(changer.node, cst.FunctionDef) else None
        if not isinstance(body, cst.IndentedBlock):
            return False
        last_write = max((i for i, stmt in enumerate(body.body) if _writes_self_attribute(stmt, attr)), default=None)
        rewrap = max((i for i, stmt in enumerate(body.body)
                      if _rewraps(stmt, wrapper, entry.function.name, transform, self.ctx.index)), default=None)
        if last_write is None or rewrap is None:
            return False
        # (the wrapper made again before the last write, with nothing between them that could run it: the
        # statements there only bind attributes to jit wrappers -- `self.f = jit(self._f)` then
        # `self.g = jit(self._g)`, where `_f` calls `self.g`)
        between = body.body[rewrap + 1:last_write + 1]
        quiet = all(all(self.ctx.index.qualify(call.func) == transform for call in calls_in(stmt)) for stmt in between)
        return quiet and _only_called_or_stored(self.ctx.module, wrapper, self.ctx.index)

    def _dies_with_its_call(self, entry: EntryPoint, writers: Set[str], attributes: Sequence[str]) -> bool:
        """``fn = jax.jit(self.m)`` made in a method, bound to a local name there that is only called: the
        wrapper dies when that call returns, and jit's traces of a bound method go with the last wrapper
        of it (JAX 0.10.2), so every call of the method traces again, with the attributes as they are
        then.  Not when the method changes them itself while the wrapper lives (it writes one, or calls a
        method that does, in the statement that makes the wrapper or after it: a write before is what
        the new trace reads -- ae's ``self.optim = optim`` then ``pjit(self.train_step)``), and not for
        ``jax.pmap``, which keeps its trace of an equal bound method after the wrapper is gone."""
        scope = entry.scope
        if not entry.self_bound or entry.transform is None or entry.transform.name not in jax_api.JIT_NAMES \
                or scope is None or len(entry.call_names) != 1:
            return False
        if any(other is not entry and other.function is entry.function and other.transform is not None
               and other.transform.name == "jax.jit" for other in self.ctx.index.entries):
            return False  # another jit wrapper of the method may be alive, and they share one trace
        name = entry.call_names[0]
        # bound there (perhaps to another wrapper on another branch), never declared global or nonlocal
        if not scope.scope.is_local(name) or not any(b.value is entry.site for b in scope.scope.bindings_of(name)) \
                or _used_other_than_called(scope.node.body, name):
            return False
        watched = writers | set(attributes)
        stack: List[cst.CSTNode] = [scope.node.body]
        body = scope.node.body.body if isinstance(scope.node.body, cst.IndentedBlock) else ()
        made = [i for i, stmt in enumerate(body) if any_node([stmt], lambda n: n is entry.site)]
        if made:
            stack = list(body[made[0]:])  # (from the statement that makes the wrapper on)
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self" \
                    and node.attr.value in watched:
                if node.attr.value in writers or _written_here(scope.node.body, node):
                    return False
            stack.extend(iter_children(node))
        return True

    @staticmethod
    def _traced_methods(fn: FunctionInfo) -> Set[str]:
        """The jitted method and the methods of its class it reaches through ``self.name`` (transitively),
        less the helpers that some method outside this set also uses: those run outside the trace too."""
        cls = fn.cls
        if cls is None:
            return {fn.name}
        uses: Dict[str, Set[str]] = {}
        for name, method in cls.methods.items():
            found: Set[str] = set()
            stack: List[cst.CSTNode] = [method.node.body]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                    if node.attr.value in cls.methods:
                        found.add(node.attr.value)
                stack.extend(iter_children(node))
            uses[name] = found
        reached = {fn.name}
        todo = [fn.name]
        while todo:
            for name in uses.get(todo.pop(), ()):
                if name not in reached:
                    reached.add(name)
                    todo.append(name)
        return {name for name in reached
                if name == fn.name or not any(name in used for user, used in uses.items() if user not in reached)}

    def _attributes_read(self, fn: FunctionInfo, depth: int = 0) -> Set[str]:
        """``self.x`` read (loaded) in the method and in the methods it calls on self (one level).

        A written attribute is not read: ``self.x = ...``, ``del self.x``, and the target of
        ``self.x += 1`` (a read too, but the write inside traced code is JIT102's finding).  A
        property read only by tests of its result's class (``hasattr(self.net, "mask")``) does not
        read what it builds that result from when its class does not depend on it (see
        ``_class_fixed``).
        """
        out: Set[str] = set()
        written: Set[cst.CSTNode] = set()
        #: attribute -> for each read, the name ``hasattr`` tests it for ("" for isinstance, type and
        #: callable), or None where the read is used some other way
        tests: Dict[str, List[Optional[str]]] = {}
        tested: Dict[cst.CSTNode, str] = {}
        stack = [fn.node.body]
        while stack:
            node = stack.pop()
            if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
                if node not in written:
                    out.add(node.attr.value)
                    tests.setdefault(node.attr.value, []).append(tested.get(node))
                continue
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del, cst.For)):
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                for t in targets:
                    written.update(_stored(t))
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
                    and node.func.value in jax_api.STRUCTURAL_TESTS and node.args and not node.args[0].star:
                tested[node.args[0].value] = string_value(node.args[1].value) or "?" \
                    if node.func.value == "hasattr" and len(node.args) > 1 else ""
            if isinstance(node, cst.Call) and node.args and jax_api.is_callback(self.ctx.qualify(node.func)):
                # the function a host callback is given (`io_callback(self._save, None, step)`) runs on
                # the host at every call, with the object as it is then: what it reads is not frozen
                host = node.args[0]
                stack.extend(child for child in iter_children(node) if child is not host)
                continue
            stack.extend(iter_children(node))
        if depth == 0:  # (the traced method's own body: a property's getter and setter share one name)
            out = {attr for attr in out if not _bound_first(fn.node, attr)}
        if depth == 0 and fn.cls is not None:
            for name in list(out):
                method = fn.cls.methods.get(name)
                if method is not None and not self._class_fixed(method, tests[name]):
                    out |= self._attributes_read(method, depth + 1)
        return out

    def _class_fixed(self, method: FunctionInfo, tests: List[Optional[str]]) -> bool:
        """Whether the tests ``tests`` of what ``method`` (a property) returns have the same answer
        whatever the attributes it reads: every read of it is tested (``hasattr``, ``isinstance``,
        ``type``, ``callable``: they depend on the object's class and attribute names, not on the
        values it holds), it returns only new instances of one class of this module
        (``return Net(self._state)``: its class does not depend on the arguments), and each name
        ``hasattr`` asks for is defined in that class's body (not set, or not, by its ``__init__``).
        Then a stale attribute it reads does not reach the trace through it."""
        if not tests or any(t is None for t in tests):
            return False
        classes = set()
        stack: List[cst.CSTNode] = [method.node.body]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                continue
            if isinstance(node, cst.Return):
                value = node.value
                if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                        and value.func.value in self.ctx.index.classes):
                    return False
                classes.add(value.func.value)
                continue
            stack.extend(iter_children(node))
        if len(classes) != 1:
            return False
        cls = self.ctx.index.classes[classes.pop()]
        defined = set(cls.methods) | {name for stmt in cls.node.body.body for name in names_bound_in(stmt)}
        return all(t == "" or t in defined for t in tests)

    def _frozen(self, cls) -> bool:
        module = self.ctx.module
        for dec in cls.decorators:
            text = module.code_for_node(dec)
            if any(marker in text for marker in _FROZEN_DECORATORS):
                return True
        return any(base.split(".")[-1] in ("Module", "PyTreeNode", "NamedTuple") for base in cls.bases)


_DONATING = frozenset({"jax.jit", "jax.pmap"})
#: nodes whose names are not the enclosing scope's variables (or not read where they stand)
_OWN_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _literal_items(node: cst.BaseExpression) -> Optional[List[cst.BaseExpression]]:
    if isinstance(node, (cst.Tuple, cst.List)):
        return [el.value for el in node.elements if not isinstance(el, cst.StarredElement)] \
            if all(not isinstance(el, cst.StarredElement) for el in node.elements) else None
    return [node]


def _donated_params(entry: EntryPoint) -> Set[cst.Param]:
    """The parameters whose buffers ``entry``'s jit donates (``donate_argnums`` / ``donate_argnames``,
    literals only); none where positions are shifted by a bound ``self`` or a ``functools.partial``."""
    if entry.transform is None or entry.transform.name not in _DONATING or entry.self_bound \
            or entry.partial_args:
        return set()
    site = entry.site
    holders: List[cst.Call] = []
    expr = site.decorator if isinstance(site, cst.Decorator) else site
    while isinstance(expr, cst.Call):
        holders.append(expr)
        expr = expr.func
    positional = _positional(entry.function)
    by_name = {p.name.value: p for p, _ in entry.function.params}
    out: Set[cst.Param] = set()
    for call in holders:
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value not in ("donate_argnums", "donate_argnames"):
                continue
            items = _literal_items(arg.value)
            for item in items or ():
                if arg.keyword.value == "donate_argnums" and isinstance(item, cst.Integer) \
                        and int(item.value) < len(positional):
                    out.add(positional[int(item.value)])
                elif arg.keyword.value == "donate_argnames" and string_value(item) in by_name:
                    out.add(by_name[string_value(item) or ""])
    return out


def _variable_uses(node: cst.CSTNode, name: str) -> Iterator[Tuple[cst.Name, bool]]:
    """The names ``name`` in ``node`` in source order, each with whether it is bound there (an
    assignment or ``for`` target, ``del``); a name read and rebound (``x += 1``) counts as read. Nested
    functions, lambdas and comprehensions are left out (their names are their own, or read later)."""
    bound: Set[cst.Name] = set()
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, _OWN_SCOPES):
            continue
        if isinstance(item, cst.Assign):
            for target in item.targets:
                bound.update(assigned_names(target.target))
        elif isinstance(item, (cst.AnnAssign, cst.For)):
            bound.update(assigned_names(item.target))
        elif isinstance(item, cst.AsName):
            bound.update(assigned_names(item.name))
        elif isinstance(item, cst.Del):
            bound.update(assigned_names(item.target))
        elif isinstance(item, cst.NamedExpr):
            bound.update(assigned_names(item.target))
        if isinstance(item, cst.Name):
            if item.value == name:
                yield item, item in bound
            continue
        if isinstance(item, cst.Attribute):
            stack.append(item.value)
            continue
        if isinstance(item, cst.Arg):
            stack.append(item.value)
            continue
        children = list(iter_children(item))
        if isinstance(item, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            children = [c for c in children if c is not getattr(item, "value", None)]
            value = getattr(item, "value", None)
            if value is not None:
                children.insert(0, value)  # the value is read before the targets are bound
        stack.extend(reversed(children))


class DonatedBufferUsed(Rule):
    """## What it does
    Flags a JAX array read after it was donated to a jitted function
    (`jax.jit(f, donate_argnums=0)`, `donate_argnames=`): read later in the
    same function without being rebound, or passed again on the next loop
    iteration when the loop never rebinds it. Only a name known to hold a
    JAX array is checked (bound from a `jax.*` call or a jitted function's
    result): a NumPy array or a Python value is copied to the device, and
    its copy is what is donated.

    ## Why is this bad?
    Donating lets XLA reuse the argument's buffer for a result of the same
    shape and type: once the call is made, the array is deleted, and any
    later use raises `RuntimeError: Array has been deleted` (passing it
    again: `ValueError: ... Buffer has been deleted or donated`; verified on
    CPU with jax 0.10.2). Only a buffer that no result can use is kept, with
    a warning that it was not usable. The usual intent is
    `params = update(params, ...)`, which rebinds the name to the result.

    ## Example
    ```python
    import jax
    import jax.numpy as jnp

    update = jax.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
    params = jnp.ones(3)
    new_params = update(params, jnp.ones(3))
    print(params.sum())
    ```

    Use instead:
    ```python
    import jax
    import jax.numpy as jnp

    update = jax.jit(lambda p, g: p - 0.1 * g, donate_argnums=0)
    params = jnp.ones(3)
    params = update(params, jnp.ones(3))
    print(params.sum())
    ```

    ## Fix safety
    No automatic fix: whether to rebind the name or stop donating depends
    on what the later code needs.

    ## References
    - [Buffer donation](https://docs.jax.dev/en/latest/buffer_donation.html)
    """

    code = "JIT504"
    name = "donated-buffer-used"

    def check_module(self) -> None:
        index = self.ctx.index
        traced_scopes = _TracedScopes(self.ctx.facts.bodies, index)
        self._makers = {name for entry in index.entries if entry.compiles for name in entry.call_names}
        for entry in index.entries:
            donated = _donated_params(entry)
            if not donated:
                continue
            for call in entry.visible_calls():
                scope = index.call_scopes.get(call, (None, None))[0]
                if scope is not None and scope in traced_scopes:
                    continue  # a jit inside traced code is inlined: nothing is donated
                for arg, param in entry.bind_args(call):
                    if param in donated and not arg.star and isinstance(arg.value, cst.Name):
                        self._check(call, arg.value.value, scope)

    def _check(self, call: cst.Call, name: str, scope: Optional[FunctionInfo]) -> None:
        root = scope.node if scope is not None else self.ctx.index.module
        chain = path_to(root, call)
        if chain is None or any(isinstance(n, _OWN_SCOPES) for n in chain[1:-1]):
            return
        if not self._holds_jax_array(root, name):
            return
        callee = short_code(self.ctx.index.module, call.func)
        statements = [n for n in chain if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))]
        # the call's statement directly in a loop's body (not under an `if` there: it may run once)
        loop = statements[-2] if len(statements) >= 2 and isinstance(statements[-2], (cst.For, cst.While)) \
            and statements[-1] in getattr(statements[-2].body, "body", ()) else None
        if loop is not None and not any(bound for _, bound in _variable_uses(loop, name)) \
                and not self._leaves(loop):
            self.report(call, f"`{name}` is donated to `{callee}(...)` on every iteration and the loop never rebinds it: "
                              "once XLA reuses its buffer for a result (what donating is for), the next iteration "
                              "passes a deleted array and raises")
            return
        read = self._read_after(chain, statements, name)
        if read is not None:
            self.report(read, f"`{name}` is read after it was donated to `{callee}(...)`: once XLA reuses its buffer "
                              "for a result (what donating is for), the array is deleted and reading it raises "
                              "`RuntimeError: Array has been deleted`")

    def _read_after(self, chain, statements, name: str) -> Optional[cst.Name]:
        """The first read of ``name`` that can run after the call's statement, before any binding of it
        (a binding on some path ends the search: what is read after it may be the new value)."""
        stmt = statements[-1] if statements else None
        if stmt is None or any(bound for _, bound in _variable_uses(stmt, name)):
            return None  # `params = update(params, g)`: rebound by the call's own statement
        for level in range(len(statements) - 1, -1, -1):
            current = statements[level]
            block = self._block_of(chain, current)
            if block is None:
                return None
            after = block[block.index(current) + 1:]
            for following in after:
                for node, bound in _variable_uses(following, name):
                    return None if bound else node
            if level > 0 and isinstance(statements[level - 1], (cst.For, cst.While, cst.Try, cst.TryStar)):
                return None  # the rest of a loop body or a try: what runs next is not in source order
        return None

    @staticmethod
    def _block_of(chain, stmt) -> Optional[Sequence[cst.CSTNode]]:
        i = chain.index(stmt)
        for holder in reversed(chain[:i]):
            body = getattr(holder, "body", None)
            if isinstance(body, (list, tuple)) and stmt in body:
                return body
            if isinstance(holder, (cst.IndentedBlock, cst.Module)):
                return holder.body
        return None

    @staticmethod
    def _leaves(loop: cst.CSTNode) -> bool:
        stack: List[cst.CSTNode] = [loop.body]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.Break, cst.Return, cst.Raise)):
                return True
            if isinstance(node, _OWN_SCOPES):
                continue
            stack.extend(iter_children(node))
        return False

    def _holds_jax_array(self, root: cst.CSTNode, name: str) -> bool:
        """Every binding of ``name`` in the scope is the result of a ``jax.*`` call or of a call of a
        jitted function of this module (an array, or a pytree of them), ``x += ...`` keeping it one."""
        found = False
        stack: List[cst.CSTNode] = [root.body if not isinstance(root, cst.Module) else root]
        while stack:
            node = stack.pop()
            if isinstance(node, _OWN_SCOPES):
                continue
            if isinstance(node, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                if any(n.value == name for t in targets for n in assigned_names(t)):
                    if node.value is None or not self._jax_result(node.value):
                        return False
                    found = True
            elif isinstance(node, (cst.Global, cst.Nonlocal)):
                if any(n.name.value == name for n in node.names):
                    return False  # (bound elsewhere too)
            elif isinstance(node, cst.ImportAlias):
                local = node.asname.name if node.asname is not None else node.name
                while isinstance(local, cst.Attribute):
                    local = local.value
                if isinstance(local, cst.Name) and local.value == name:
                    return False
            elif isinstance(node, (cst.For, cst.AsName, cst.NamedExpr)):  # (`x += ...` keeps an array one)
                target = node.name if isinstance(node, cst.AsName) else node.target
                if any(n.value == name for n in assigned_names(target)):
                    return False
            stack.extend(iter_children(node))
        if not isinstance(root, cst.Module) and isinstance(root, cst.FunctionDef):
            if any(p.name.value == name for p, _ in params_of(root.params)):
                return False
        return found

    def _jax_result(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        q = self.ctx.qualify(value.func)
        if q is not None:
            return q.startswith(("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.")) or q in (
                "jax.device_put", "jax.tree.map", "jax.tree_util.tree_map")
        return isinstance(value.func, cst.Name) and value.func.value in self._makers


RULES = [RecompilationHazard, BadStaticArguments, MutableStaticSelf, DonatedBufferUsed]


def _write_between_calls(body: cst.CSTNode, made: Set[cst.CSTNode], method: str,
                         attributes: Set[str]) -> Optional[Tuple[cst.CSTNode, str]]:
    """In ``body`` (not in the functions and classes it defines), in the order Python runs it: a name
    bound by one of the assignments ``made`` (an instance), a call ``name.method(...)`` (``name(...)``
    for ``__call__``), an assignment to ``name.attr`` (``attr`` in ``attributes``), and a call again;
    or a write and a call in one loop that does not bind the name again.  The write and the
    attribute."""
    names: Set[str] = set()
    for node in made:
        if isinstance(node, cst.Assign):
            names.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    #: (what, name, loops around it, detail): "bind" (detail: an instance is bound), "call", "write"
    events: List[Tuple[str, str, Tuple[cst.CSTNode, ...], object]] = []
    stack: List[Tuple[cst.CSTNode, Tuple[cst.CSTNode, ...], bool]] = [(body, (), False)]
    while stack:
        node, loops, targets_now = stack.pop()
        if targets_now:  # an assignment's targets, bound once its value is computed
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for t in (leaf for target in targets for leaf in flat_targets(target)):
                if isinstance(t, cst.Name) and t.value in names and isinstance(node, cst.Assign):
                    events.append(("bind", t.value, loops, node in made))
                elif isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value in names \
                        and t.attr.value in attributes:
                    events.append(("write", t.value.value, loops, (node, t.attr.value)))
            continue
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.attr.value == method:
                events.append(("call", func.value.value, loops, None))
            elif isinstance(func, cst.Name) and method == "__call__":
                events.append(("call", func.value, loops, None))
        if isinstance(node, (cst.Assign, cst.AugAssign)):
            stack.append((node, loops, True))  # after its children
        inner = loops + (node,) if isinstance(node, (cst.For, cst.While)) else loops
        stack.extend((child, inner, False) for child in reversed(list(iter_children(node))))
    state: Dict[str, Tuple[bool, bool, object]] = {}  # name -> (an instance, called since bound, a write since)
    for what, name, loops, detail in events:
        instance, called, written = state.get(name, (False, False, None))
        if what == "bind":
            state[name] = (bool(detail), False, None)
        elif what == "call":
            if instance and written is not None:
                return written  # type: ignore[return-value]
            state[name] = (instance, instance, written)
        elif instance and called:
            state[name] = (instance, called, detail)
    bound_in: Dict[str, Set[cst.CSTNode]] = {}
    for what, name, loops, _ in events:
        if what == "bind":
            bound_in.setdefault(name, set()).update(loops)
    for what, name, loops, detail in events:
        if what != "write":
            continue
        for other, called_name, call_loops, _ in events:
            if other == "call" and called_name == name \
                    and any(loop in call_loops and loop not in bound_in.get(name, set()) for loop in loops):
                return detail  # type: ignore[return-value]
    return None


def _item_names(target: cst.BaseExpression, iterable: cst.BaseExpression) -> Set[str]:
    """The loop variables that hold the items iterated (not ``enumerate``'s counter)."""
    names = [n.value for n in assigned_names(target)]
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "enumerate" \
            and isinstance(target, cst.Tuple) and target.elements:
        counter = {n.value for n in assigned_names(target.elements[0].value)}
        return {n for n in names if n not in counter}
    return set(names)


def _counter_names(loop: cst.CSTNode) -> List[str]:
    """The names a ``for`` loop counts with: its target over ``range(...)``, ``enumerate``'s index."""
    if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Call) or not isinstance(loop.iter.func, cst.Name):
        return []
    if loop.iter.func.value == "range":
        return [n.value for n in assigned_names(loop.target)]
    if loop.iter.func.value == "enumerate" and isinstance(loop.target, cst.Tuple) and loop.target.elements:
        return [n.value for n in assigned_names(loop.target.elements[0].value)]
    return []


def _lengthened_in(loop: cst.CSTNode, name: str) -> Optional[cst.Call]:
    """A call in the loop's body that makes the list ``name`` longer (``name.append(...)``)."""
    stack: List[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in _LENGTHENING and isinstance(node.func.value, cst.Name) \
                and node.func.value.value == name:
            return node
        if not isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            stack.extend(iter_children(node))
    return None


def _counts(iterable: cst.BaseExpression) -> bool:
    """A loop over numbers: ``range(...)``, or a display whose items are number literals."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value == "range":
        return True
    if isinstance(iterable, (cst.Tuple, cst.List)) and iterable.elements:
        return all(isinstance(el.value, (cst.Integer, cst.Float)) for el in iterable.elements)
    return False


def _bound_in_loop(scope: Scope, loop: cst.CSTNode) -> List[Tuple[str, Optional[cst.BaseExpression]]]:
    """Each name the loop binds in ``scope`` (its own target included), from the binding model, with
    the value assigned (also to one of ``a, b = value``; None for another kind of binding: a loop
    target, ``with``, ``+=``, a ``def``)."""
    return [(b.name, b.node.value if isinstance(b.node, cst.Assign) else None)
            for bindings in scope.bindings.values() for b in bindings if loop in b.loops]


def _derived_from(items: Set[str], assignments) -> Set[str]:
    """The names the loop body computes from the loop's items, directly or through other such names
    (``translator = Translator(kind)``, then ``init_fn, meta = translator.translate()``)."""
    derived = set(items)
    changed = True
    while changed:
        changed = False
        for name, value in assignments:
            if name not in derived and value is not None and _names_read(value) & derived:
                derived.add(name)
                changed = True
    return derived


def _sets_flag(body, me: str, flag: str) -> bool:
    """A statement of ``body`` (not nested) is ``<me>.<flag> = True``."""
    return any(isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
               and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1
               and isinstance(stmt.body[0].targets[0].target, cst.Attribute)
               and isinstance(stmt.body[0].targets[0].target.value, cst.Name)
               and stmt.body[0].targets[0].target.value.value == me
               and stmt.body[0].targets[0].target.attr.value == flag
               and isinstance(stmt.body[0].value, cst.Name) and stmt.body[0].value.value == "True"
               for stmt in body)


def _calls_super(stmt: cst.CSTNode, method_name: str) -> bool:
    """``super().<method_name>()`` as a statement of its own, passing nothing."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
        return False
    call = stmt.body[0].value
    return isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute) \
        and call.func.attr.value == method_name and isinstance(call.func.value, cst.Call) \
        and isinstance(call.func.value.func, cst.Name) and call.func.value.func.value == "super" \
        and not call.func.value.args


def _stored_name(site: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> Optional[str]:
    """``self.<name> = <site>``: the attribute a wrapper is stored under."""
    assign = parents.get(id(site))
    if isinstance(assign, cst.Assign) and assign.value is site and len(assign.targets) == 1:
        target = assign.targets[0].target
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            return target.attr.value
    return None


def _walk_until(root: cst.CSTNode, visit: Callable[[cst.CSTNode], bool]) -> None:
    """Every node under ``root``, each given to ``visit``; the children of one it answers True for are skipped."""
    stack: List[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if not visit(node):
            stack.extend(iter_children(node))


def _calls_method(node: cst.CSTNode, me: str, name: str) -> bool:
    """``<me>.<name>(...)`` somewhere in ``node``."""
    return any_node([node], lambda item: isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute)
                    and isinstance(item.func.value, cst.Name) and item.func.value.value == me
                    and item.func.attr.value == name)


def _names_read(node: cst.CSTNode) -> Set[str]:
    """The names the code in ``node`` reads or binds (not attribute names or keywords)."""
    return {name.value for name in name_references(node)}


def _self_attribute(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


def _writes_self_attribute(stmt: cst.CSTNode, attr: str) -> bool:
    """``stmt`` binds ``self.<attr>`` somewhere in it (not in a nested function)."""
    stack: List[cst.CSTNode] = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            continue
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)) \
                and any(t.attr.value == attr for t in _stored(node.target)):  # type: ignore[attr-defined]
            return True
        stack.extend(iter_children(node))
    return False


def _rewraps(stmt: cst.CSTNode, wrapper: str, method: str, transform: str, index: ModuleIndex) -> bool:
    """``stmt`` is ``self.<wrapper> = <transform>(self.<method>)``."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1 or not isinstance(stmt.body[0], cst.Assign):
        return False
    assign = stmt.body[0]
    value = assign.value
    return len(assign.targets) == 1 and _self_attribute(assign.targets[0].target) \
        and assign.targets[0].target.attr.value == wrapper and isinstance(value, cst.Call) \
        and index.qualify(value.func) == transform and len(value.args) == 1 and _self_attribute(value.args[0].value) \
        and value.args[0].value.attr.value == method  # type: ignore[attr-defined]


def _only_called_or_stored(module: cst.Module, attr: str, index: ModuleIndex) -> bool:
    """Every ``<x>.<attr>`` of the module is stored into (``self.W = ...``) or called (``self.W(...)``)."""
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        stack.extend(iter_children(node))
        if not isinstance(node, cst.Attribute) or node.attr.value != attr:
            continue
        parent = index.parents.get(id(node))
        if isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.Call) and parent.func is node):
            continue
        return False
    return True


def _bound_first(fn_node: cst.CSTNode, attr: str) -> bool:
    """The method binds ``self.<attr>`` before anything in it reads it: the first statement of its body that
    names ``self.<attr>`` assigns it (``self._counts = jnp.zeros(shape)``), at the top of the body, from a
    value that does not read it -- its later reads are of the value this run stored, not a stale one."""
    if not isinstance(fn_node, cst.FunctionDef) or not isinstance(fn_node.body, cst.IndentedBlock):
        return False

    def names_it(n: cst.CSTNode) -> bool:
        return isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value == "self" \
            and n.attr.value == attr

    for stmt in fn_node.body.body:
        if not any_node([stmt], names_it):
            continue
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 else None
        return isinstance(small, cst.Assign) and len(small.targets) == 1 and names_it(small.targets[0].target) \
            and not any_node([small.value], names_it)
    return False


def _written_negative(bound: cst.BaseExpression) -> bool:
    """``-k``, ``-k + 1``: an index counted from the end (its leftmost operand negated)."""
    while isinstance(bound, cst.BinaryOperation):
        bound = bound.left
    return isinstance(bound, cst.UnaryOperation) and isinstance(bound.operator, cst.Minus)


def _names_read_whole(node: cst.CSTNode, fixed: Callable[[cst.BaseExpression], bool] = lambda bound: False
                      ) -> Set[str]:
    """The names ``node`` reads, but for those read only through an item (``seq[-1]``, ``rows[i][0]``) or
    by ``len()``: an item of a list that grows is one element, whatever the list's length, and its length
    one number (a slice may grow with the list) -- or through a window of the last or first ``k`` items whose
    ``k`` the loop does not change (``recon[-seq_len + 1:]``, ``seq[:k]``, ``fixed`` tells): at most ``k``
    items, the same number once the list holds that many."""
    out: Set[str] = set()
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.Subscript) and all(isinstance(el.slice, cst.Index) for el in item.slice):
            stack.extend(el.slice.value for el in item.slice)  # type: ignore[union-attr]
            continue
        if isinstance(item, cst.Subscript) and len(item.slice) == 1 and isinstance(item.slice[0].slice, cst.Slice):
            window = item.slice[0].slice
            bound = window.lower if window.upper is None else window.upper if window.lower is None else None
            last = bound is not None and bound is window.lower and _written_negative(bound)
            first = bound is not None and bound is window.upper and not _written_negative(bound)
            if window.step is None and (last or first) and fixed(bound):
                stack.append(bound)
                continue
        if isinstance(item, cst.Call) and isinstance(item.func, cst.Name) and item.func.value == "len":
            continue  # (a number: `seq[len(seq) - 1]`)
        if isinstance(item, cst.Name):
            out.add(item.value)
            continue
        if isinstance(item, cst.Attribute):
            stack.append(item.value)
            continue
        if isinstance(item, cst.Arg) and item.keyword is not None:
            stack.append(item.value)
            continue
        stack.extend(iter_children(item))
    return out


def _own_names(node: cst.CSTNode, index: ModuleIndex) -> Set[str]:
    """The parameters and locals of the functions and lambdas in ``node`` (itself included), and the
    names their defs bind: names its code binds for itself, never the values of the loop around it."""
    out: Set[str] = set()
    stack: List[cst.CSTNode] = [node]
    while stack:
        item = stack.pop()
        info = index.infos.get(item) if isinstance(item, (cst.FunctionDef, cst.Lambda)) else None
        if info is not None:
            out |= set(info.local_names)
        if isinstance(item, cst.FunctionDef):
            out.add(item.name.value)  # (bound by the def itself, not by the loop's values)
        stack.extend(iter_children(item))
    return out
