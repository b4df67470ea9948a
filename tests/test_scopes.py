"""The binding model (jitlint.analysis.scopes): every binding kind, each resolution rule, and
lint results that the model decides."""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from jitlint.analysis.discovery import ModuleIndex
from jitlint.analysis.scopes import BindingKind, Scope, bound_by, names_bound_in
from jitlint.config import Config
from jitlint.engine import lint_source

K = BindingKind


def index_of(source: str) -> ModuleIndex:
    return ModuleIndex(cst.parse_module(textwrap.dedent(source)))


def module_scope(index: ModuleIndex) -> Scope:
    return index.scope_model.module_scope


def function_scope(index: ModuleIndex, name: str) -> Scope:
    found = [info for info in index.infos.values() if info.name == name]
    assert len(found) == 1, name
    return found[0].scope


def kinds(scope: Scope, name: str):
    return [b.kind for b in scope.bindings_of(name)]


def scopes_of_kind(index: ModuleIndex, kind: str):
    return [s for s in index.scope_model.scopes.values() if s.kind == kind]


# ------------------------------------------------------------------ kinds

def test_every_binding_kind_in_a_function():
    index = index_of("""
        import os.path
        import numpy as np
        from jax import numpy as jnp, lax
        from . import sibling

        def f(a, /, b, *args, c, **kw):
            x = 1
            x += 2
            y: int = 3
            z: float
            import json
            from math import pi as PI
            global G
            for i, (j, *k) in enumerate(args):
                pass
            with open(a) as fh, open(b) as (p, q):
                pass
            try:
                pass
            except ValueError as err:
                pass
            match b:
                case [first, *rest]:
                    pass
                case {"cfg": cfg, **others}:
                    pass
                case Point(x=px) as whole:
                    pass
            if (w := a):
                pass
            def inner():
                nonlocal x
            class Local:
                pass
            del y
            lam = lambda m: m
            return [v for v in args]
    """)
    f = function_scope(index, "f")
    assert f.kind == Scope.FUNCTION
    for name in ("a", "b", "args", "c", "kw"):
        assert kinds(f, name) == [K.PARAMETER], name
    assert sorted(kinds(f, "x"), key=lambda k: k.name) == [K.ASSIGNMENT, K.AUGMENTED]
    assert sorted(kinds(f, "y"), key=lambda k: k.name) == [K.ANNOTATED, K.DEL]
    assert kinds(f, "z") == [K.ANNOTATED] and f.bindings_of("z")[0].value is None
    assert kinds(f, "json") == [K.IMPORT] and f.bindings_of("json")[0].qualified == "json"
    assert kinds(f, "PI") == [K.IMPORT] and f.bindings_of("PI")[0].qualified == "math.pi"
    assert kinds(f, "G") == [K.GLOBAL]
    for name in ("i", "j", "k"):
        assert kinds(f, name) == [K.FOR], name
    for name in ("fh", "p", "q"):
        assert kinds(f, name) == [K.WITH], name
    assert kinds(f, "err") == [K.EXCEPT]
    for name in ("first", "rest", "cfg", "others", "px", "whole"):
        assert kinds(f, name) == [K.MATCH], name
    assert kinds(f, "w") == [K.WALRUS]
    assert kinds(f, "inner") == [K.FUNCTION]
    assert kinds(f, "Local") == [K.CLASS]
    assert kinds(f, "lam") == [K.ASSIGNMENT]
    assert "v" not in f.bindings  # a comprehension target stays in the comprehension
    inner = function_scope(index, "inner")
    assert kinds(inner, "x") == [K.NONLOCAL] and not inner.is_local("x")
    lam = [s for s in scopes_of_kind(index, Scope.LAMBDA)]
    assert len(lam) == 1 and kinds(lam[0], "m") == [K.PARAMETER]
    comp = scopes_of_kind(index, Scope.COMPREHENSION)
    assert len(comp) == 1 and kinds(comp[0], "v") == [K.COMPREHENSION] and comp[0].parent is f

    top = module_scope(index)
    assert top.bindings_of("os")[0].qualified == "os"
    assert top.bindings_of("np")[0].qualified == "numpy"
    assert top.bindings_of("jnp")[0].qualified == "jax.numpy"
    assert top.bindings_of("sibling")[0].qualified == ".sibling"
    assert kinds(top, "f") == [K.FUNCTION]


def test_plain_assignment_keeps_its_value_and_unpacking_does_not():
    index = index_of("""
        def f():
            a = [1]
            b, c = 1, 2
            d = e = {}
            h: int = 4
    """)
    f = function_scope(index, "f")
    assert isinstance(f.bindings_of("a")[0].value, cst.List)
    assert f.bindings_of("b")[0].value is None and f.bindings_of("c")[0].value is None
    assert isinstance(f.bindings_of("d")[0].value, cst.Dict) and isinstance(f.bindings_of("e")[0].value, cst.Dict)
    assert isinstance(f.bindings_of("h")[0].value, cst.Integer)
    assert isinstance(f.single_value("a"), cst.List)
    assert f.single_value("h") is None  # an annotated assignment is not a plain `name = value`


def test_bindings_record_the_loops_around_them():
    index = index_of("""
        def f(xs):
            n = 0
            for x in xs:
                while n < 3:
                    n += 1
            return [n for _ in xs]
    """)
    f = function_scope(index, "f")
    loops = {b.kind: b.loops for b in f.bindings_of("n")}
    assert loops[K.ASSIGNMENT] == ()
    assert [type(loop) for loop in loops[K.AUGMENTED]] == [cst.For, cst.While]
    assert [type(loop) for loop in f.bindings_of("x")[0].loops] == [cst.For]


def test_class_body_is_a_scope_and_methods_have_their_own():
    index = index_of("""
        class C:
            size = 3
            def m(self):
                return size
    """)
    top = module_scope(index)
    cls = scopes_of_kind(index, Scope.CLASS)[0]
    assert kinds(top, "C") == [K.CLASS]
    assert kinds(cls, "size") == [K.ASSIGNMENT] and kinds(cls, "m") == [K.FUNCTION]
    assert "size" not in top.bindings
    assert function_scope(index, "m").parent is cls


# ------------------------------------------------------------- resolution

def test_resolution_skips_class_scopes():
    index = index_of("""
        size = 1
        class C:
            size = 2
            here = size
            def m(self):
                return size
            table = [size for _ in range(3)]
    """)
    top = module_scope(index)
    cls = scopes_of_kind(index, Scope.CLASS)[0]
    assert cls.resolve("size") is cls  # read in the class body itself
    assert function_scope(index, "m").resolve("size") is top  # a method does not see the class body
    comp = scopes_of_kind(index, Scope.COMPREHENSION)[0]
    assert comp.parent is cls and comp.resolve("size") is top


def test_resolution_of_local_enclosing_module_and_builtin():
    index = index_of("""
        x = 0
        def outer():
            y = 1
            def inner():
                z = 2
                return x, y, z, len
            return inner
    """)
    inner = function_scope(index, "inner")
    assert inner.resolve("z") is inner
    assert inner.resolve("y") is function_scope(index, "outer")
    assert inner.resolve("x") is module_scope(index)
    assert inner.resolve("len") is None


def test_global_sends_reads_and_writes_to_the_module():
    index = index_of("""
        counter = 0
        def bump():
            global counter
            counter += 1
        def unbound():
            global never
            never = 1
    """)
    bump = function_scope(index, "bump")
    assert sorted(kinds(bump, "counter"), key=lambda k: k.name) == [K.AUGMENTED, K.GLOBAL]
    assert not bump.is_local("counter")
    assert bump.resolve("counter") is module_scope(index)
    assert function_scope(index, "unbound").resolve("never") is None  # declared, bound only in a function


def test_nonlocal_resolves_to_the_enclosing_function():
    index = index_of("""
        total = 0
        def outer():
            total = 1
            class K:
                total = 2
                def method(self):
                    nonlocal total
                    total += 1
            return K
    """)
    method = function_scope(index, "method")
    assert not method.is_local("total")
    assert method.resolve("total") is function_scope(index, "outer")  # the class body in between is skipped


def test_walrus_in_a_comprehension_binds_in_the_enclosing_function():
    index = index_of("""
        def f(xs):
            ys = [(last := x) for x in xs if (seen := x)]
            return last
    """)
    f = function_scope(index, "f")
    comp = scopes_of_kind(index, Scope.COMPREHENSION)[0]
    assert kinds(f, "last") == [K.WALRUS] and kinds(f, "seen") == [K.WALRUS]
    assert "last" not in comp.bindings and kinds(comp, "x") == [K.COMPREHENSION]
    assert comp.resolve("last") is f and comp.resolve("x") is comp


def test_walrus_in_nested_comprehensions_and_a_lambda():
    index = index_of("""
        def f(xss):
            g = lambda v: (w := v)
            return [[(deep := x) for x in xs] for xs in xss]
    """)
    f = function_scope(index, "f")
    assert kinds(f, "deep") == [K.WALRUS]
    assert "w" not in f.bindings
    lam = scopes_of_kind(index, Scope.LAMBDA)[0]
    assert kinds(lam, "w") == [K.WALRUS]


def test_first_iterable_of_a_comprehension_is_evaluated_outside():
    index = index_of("""
        def f(rows):
            return [x for x in (rows := list(rows)) for y in x]
    """)
    f = function_scope(index, "f")
    assert kinds(f, "rows") == [K.PARAMETER, K.WALRUS]  # the walrus sits in the first iterable
    comp = scopes_of_kind(index, Scope.COMPREHENSION)[0]
    assert sorted(comp.bindings) == ["x", "y"]


#: a module-level name that the function binds in some way: the function's reads are local
MAKES_LOCAL = {
    "match mapping capture": ("match cfg:\n        case {'cfg': CONFIG}:\n            pass", K.MATCH),
    "match star": ("match cfg:\n        case [_, *CONFIG]:\n            pass", K.MATCH),
    "match mapping rest": ("match cfg:\n        case {'a': 1, **CONFIG}:\n            pass", K.MATCH),
    "del": ("del CONFIG", K.DEL),
    "except as": ("try:\n        pass\n    except E as CONFIG:\n        pass", K.EXCEPT),
    "with as": ("with cfg as CONFIG:\n        pass", K.WITH),
    "import": ("import CONFIG", K.IMPORT),
}


@pytest.mark.parametrize("shape", sorted(MAKES_LOCAL))
def test_a_binding_of_a_global_name_makes_it_local(shape):
    body, kind = MAKES_LOCAL[shape]
    index = index_of(f"CONFIG = {{}}\ndef f(cfg):\n    {body}\n    return CONFIG\n")
    f = function_scope(index, "f")
    assert kinds(f, "CONFIG") == [kind]
    assert f.is_local("CONFIG") and f.resolve("CONFIG") is f
    assert module_scope(index).resolve("CONFIG") is module_scope(index)


def test_parameter_defaults_and_decorators_belong_to_the_enclosing_scope():
    index = index_of("""
        def deco(fn):
            return fn
        def outer():
            @deco
            def inner(a=(b := 1)):
                return a
    """)
    outer = function_scope(index, "outer")
    assert kinds(outer, "b") == [K.WALRUS] and kinds(outer, "inner") == [K.FUNCTION]
    assert "b" not in function_scope(index, "inner").bindings


def test_single_value_needs_exactly_one_plain_assignment():
    index = index_of("""
        A = [1]
        def f(p):
            one = {}
            two = 1
            two = 2
            loop = 0
            for loop in range(3):
                pass
            return one, two, loop, p
    """)
    f_info = [i for i in index.infos.values() if i.name == "f"][0]
    assert isinstance(index.single_value("one", f_info), cst.Dict)
    assert index.single_value("two", f_info) is None
    assert index.single_value("loop", f_info) is None
    assert index.single_value("p", f_info) is None  # a parameter
    assert isinstance(index.single_value("A", f_info), cst.List)  # the module-level one


def test_bound_by_is_what_the_statement_level_data_flow_sees():
    stmt = cst.parse_statement("a, (b, *c) = d = f(x)\n").body[0]
    assert bound_by(stmt) == {"a", "b", "c", "d"}
    assert bound_by(cst.parse_statement("x: int\n").body[0]) == set()
    assert bound_by(cst.parse_statement("global g\n").body[0]) == set()
    assert bound_by(cst.parse_statement("del p, q\n").body[0]) == {"p", "q"}
    assert bound_by(cst.parse_statement("import a.b, c as d\n").body[0]) == {"a", "d"}


def test_names_bound_in_a_block_are_those_of_its_own_scope():
    block = cst.parse_module(textwrap.dedent("""
        if ok:
            a = 1
            for b in xs:
                del c
            with d() as e:
                import f.g
            try:
                pass
            except E as h:
                pass
            match s:
                case [i]:
                    pass
            ys = [k for k in zs if (w := k)]
            def fn(p):
                inner = 1
            class K:
                attr = 1
            global decl
            bare: int
    """)).body[0]
    assert names_bound_in(block) == {"a", "b", "c", "e", "f", "h", "i", "ys", "w", "fn", "K"}


# ------------------------------------------------------- lint decisions

HEADER = """\
import jax
import jax.numpy as jnp

CONFIG = {"temperature": 1.0}


def sweep():
    for t in (1.0, 0.25):
        CONFIG["temperature"] = t
"""

#: a jitted function that rebinds the global name locally before reading it: no JIT101
LOCAL_REBINDINGS = {
    "with as": """
@jax.jit
def f(x, opened):
    with opened as CONFIG:
        return x * CONFIG["temperature"]
""",
    "for target": """
@jax.jit
def f(x, items):
    for CONFIG in items:
        x = x + CONFIG["temperature"]
    return x
""",
    "walrus in a comprehension": """
@jax.jit
def f(x, cfgs):
    ys = [(CONFIG := c) for c in cfgs]
    return x * CONFIG["temperature"]
""",
    "except as": """
@jax.jit
def f(x):
    try:
        return x
    except KeyError as CONFIG:
        return x * CONFIG.args[0]
""",
}


MATCH_CAPTURE = """
@jax.jit
def f(x, cfg):
    match cfg:
        case PATTERN:
            return x / CONFIG["temperature"]
    return x
"""
for _shape, _pattern in (("match mapping capture", '{"cfg": CONFIG}'), ("match sequence capture", "[CONFIG, *_]"),
                         ("match as", "dict() as CONFIG")):
    LOCAL_REBINDINGS[_shape] = MATCH_CAPTURE.replace("PATTERN", _pattern)


@pytest.mark.parametrize("shape", sorted(LOCAL_REBINDINGS))
def test_a_global_name_rebound_in_the_jitted_function_is_local(shape):
    result = lint_source(HEADER + LOCAL_REBINDINGS[shape], "m.py", Config())
    assert result.error is None
    assert [d for d in result.diagnostics if d.code == "JIT101"] == []


#: a jitted function that reads the changing global itself: JIT101 on that line
GLOBAL_READS = {
    "plain read": """
@jax.jit
def f(x):
    return x / CONFIG["temperature"]  # JIT101
""",
    "after a comprehension over the same name": """
@jax.jit
def f(x, cfgs):
    ys = [CONFIG for CONFIG in cfgs]
    return x / CONFIG["temperature"]  # JIT101
""",
    "in a nested function that binds it in a class body": """
@jax.jit
def f(x):
    class Local:
        CONFIG = None
    return x / CONFIG["temperature"]  # JIT101
""",
    "in a comprehension": """
@jax.jit
def f(x, keys):
    return [x / CONFIG[k] for k in keys]  # JIT101
""",
}


@pytest.mark.parametrize("shape", sorted(GLOBAL_READS))
def test_a_changing_global_read_in_the_jitted_function_is_reported(shape):
    source = HEADER + GLOBAL_READS[shape]
    result = lint_source(source, "m.py", Config())
    assert result.error is None
    want = [i for i, line in enumerate(source.splitlines(), 1) if line.endswith("# JIT101")]
    assert [d.line for d in result.diagnostics if d.code == "JIT101"] == want


# --------------------------------------------- entry points answer for themselves

def entry_of(index: ModuleIndex, name: str):
    found = [e for e in index.entries if e.function.name == name]
    assert len(found) == 1, name
    return found[0]


def bound_params(entry, call):
    return [(index_code(arg.value), None if p is None else p.name.value) for arg, p in entry.bind_args(call)]


def index_code(node) -> str:
    return cst.Module([]).code_for_node(node)


def test_static_params_by_number_name_and_negative_number():
    index = index_of("""
        import functools, jax
        @functools.partial(jax.jit, static_argnums=(0, -1), static_argnames=("mode",))
        def f(n, x, mode, k):
            return x
    """)
    entry = entry_of(index, "f")
    assert entry.static_params() == {"n", "k", "mode"}
    assert entry.static_by_position() == {"n", "k"}


def test_static_params_of_a_bound_method_skip_self():
    index = index_of("""
        import jax
        class M:
            def run(self, n, x):
                return x
            def go(self, x):
                return jax.jit(self.run, static_argnums=0)(3, x)
    """)
    entry = entry_of(index, "run")
    assert entry.self_bound and entry.static_params() == {"n"}
    call = entry.visible_calls()[0]
    assert bound_params(entry, call) == [("3", "n"), ("x", "x")]


def test_bind_args_honours_every_parameter_kind():
    index = index_of("""
        import jax
        @jax.jit
        def f(a, /, b, *rest, c, **extra):
            return a
        f(1, 2, 3, 4, c=5, d=6)
        f(1, a=2, b=7)
        f(*xs, 7, c=8)
        f(**kw, b=9)
    """)
    entry = entry_of(index, "f")
    calls = sorted(entry.visible_calls(), key=lambda c: index_code(c.args[-1].value))  # by the last argument
    assert len(calls) == 4
    assert bound_params(entry, calls[0]) == [("1", "a"), ("2", "b"), ("3", None), ("4", None), ("5", "c"),
                                            ("6", None)]
    # `a` is positional-only: `a=2` goes to **extra
    assert bound_params(entry, calls[1]) == [("1", "a"), ("2", None), ("7", "b")]
    # after `*xs` a positional argument's place is unknown; a keyword still binds by name
    assert bound_params(entry, calls[2]) == [("xs", None), ("7", None), ("8", "c")]
    assert bound_params(entry, calls[3]) == [("kw", None), ("9", "b")]
    param_c = [p for p, _ in entry.function.params if p.name.value == "c"][0]
    assert index_code(entry.argument_for(calls[0], param_c).value) == "5"


def test_bind_args_of_a_decorated_method_called_on_an_object():
    index = index_of("""
        import functools, jax
        class M:
            @functools.partial(jax.jit, static_argnums=0)
            def run(self, n):
                return n
            def go(self):
                return self.run(4)
    """)
    entry = entry_of(index, "run")
    call = [c for c in entry.visible_calls() if isinstance(c.func, cst.Attribute)][0]
    assert entry.binds_self(call)
    assert bound_params(entry, call) == [("4", "n")]
    assert entry.static_params() == {"self"}  # static_argnums=0 of a decorated method is `self`


def test_visible_calls_are_the_wrapper_called_at_once_and_the_calls_by_name():
    index = index_of("""
        import jax
        def f(x):
            return x
        y = jax.jit(f)(1)
        g = jax.jit(f)
        g(2)
        g(3)
        h(4)
    """)
    found = sorted(sorted(index_code(c) for c in e.visible_calls()) for e in index.entries if e.function.name == "f")
    assert found == [["g(2)", "g(3)"], ["jax.jit(f)(1)"]]


#: a static argument whose value the call binds through a keyword after an unpacking: JIT502 sees it
def test_an_unhashable_keyword_after_an_unpacking_is_reported():
    source = textwrap.dedent("""
        import functools
        import jax

        @functools.partial(jax.jit, static_argnames=("sizes",))
        def f(x, sizes):
            return x

        def run(args):
            return f(*args, sizes=[1, 2])
    """)
    result = lint_source(source, "m.py", Config())
    assert [(d.line, d.code) for d in result.diagnostics] == [(10, "JIT502")]


#: a def jitted in a loop: in code run once by design (a benchmark sweeping a setting) each iteration's
#: function is new on purpose; elsewhere it is compiled again per iteration (JIT501).  Whether the loop
#: rebinds the names the def uses is read from the loops recorded with the def and its bindings.
SWEEP = """
import jax


def NAME(x):
    for tile in (128, 256):
        @jax.jit
        def kernel(v):
            return v * tile
        kernel(x)
"""


@pytest.mark.parametrize("name, reported", [("benchmark_tiles", False), ("test_tiles", False), ("train", True)])
def test_a_def_jitted_in_a_loop_is_judged_by_the_loop_around_it(name, reported):
    result = lint_source(SWEEP.replace("NAME", name), "m.py", Config())
    assert result.error is None
    assert [d.line for d in result.diagnostics if d.code == "JIT501"] == ([7] if reported else [])


def test_a_partial_binds_the_first_positional_parameters():
    # JAX reads the partial's signature: static_argnums=0 is `n`, f's second parameter, and a call's
    # first argument binds `n` (run on 0.10.2: g(i, x) for i in range(3) traces 3 times, with n = i)
    index = index_of("""
        import functools, jax
        def f(scale, n, x):
            return x * scale * n
        g = jax.jit(functools.partial(f, 2.0), static_argnums=0)
        g(1, 2)
    """)
    entry = entry_of(index, "f")
    assert entry.partial_positional == 1
    assert entry.static_params() == {"n"}
    assert [p.name.value for p in entry.positional_params()] == ["n", "x"]
    assert bound_params(entry, entry.visible_calls()[0]) == [("1", "n"), ("2", "x")]
