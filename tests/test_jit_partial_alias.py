"""``static_jit = functools.partial(jax.jit, static_argnames=...)`` bound once at module level and
used as ``@static_jit`` is ``@partial(jax.jit, static_argnames=...)``: the decorated function is
jitted with those parameters static (the lint fixture ``jit_partial_alias_decorator.py`` has the
shapes run under JAX 0.10.2).  Its static arguments belong to every function the name decorates,
and to any module that imports the name, so no fix edits them for one function.
"""
from jitlint import lint_source
from jitlint.diagnostics import Applicability

HEAD = '''from functools import partial

import jax

static_jit = partial(jax.jit, static_argnames=("mode",))
'''


def _findings(body: str):
    return [(d.code, d.line, d.fix) for d in lint_source(HEAD + body).diagnostics]


def test_the_static_arguments_of_the_alias_are_static():
    body = '''

@static_jit
def f(x, mode):
    if mode == "a":
        return x
    return -x
'''
    assert _findings(body) == []


def test_a_traced_parameter_of_an_aliased_jit_is_reported_and_its_fix_does_not_edit_the_alias():
    body = '''

@static_jit
def f(x, mode, flag):
    if flag:
        return x
    return -x
'''
    (code, line, fix), = _findings(body)
    assert (code, line) == ("JIT201", 10)
    # with `@jax.jit` the fix marks `flag` static; here that would rewrite the shared spec
    assert fix is None or fix.applicability is Applicability.DISPLAY_ONLY
    direct = lint_source(HEAD + body.replace("@static_jit", "@jax.jit")).diagnostics
    assert [d.fix.applicability for d in direct] == [Applicability.UNSAFE]


def test_a_name_of_the_alias_the_function_lacks_is_jit502_without_a_fix():
    # JAX 0.10.2: ValueError "Jitted function has invalid argnames {'mode'} in static_argnames"
    body = '''

@static_jit
def f(x):
    return x * 2
'''
    (code, line, fix), = _findings(body)
    assert (code, line) == ("JIT502", 5)
    assert fix is None or not fix.edits


def test_a_name_bound_twice_is_not_an_alias():
    body = '''
static_jit = print


@static_jit
def f(x, mode):
    if x > 0:
        return x
    return -x
'''
    assert _findings(body) == []


def test_the_alias_decorates_nested_functions_too():
    body = '''

def factory():
    @static_jit
    def inner(x, mode):
        return float(x)

    return inner
'''
    assert [(c, l) for c, l, _ in _findings(body)] == [("JIT301", 11)]
