"""ModuleIndex.module_reaching: which module-level binding a module-level read sees, in statement order,
and where order does not decide."""
import textwrap

import libcst as cst

from jitlint.analysis import discovery
from jitlint.analysis.discovery import ModuleIndex
from jitlint.analysis.scopes import BindingKind


def index_of(source):
    return ModuleIndex(cst.parse_module(textwrap.dedent(source)))


def reads_of(index, name):
    """The Name nodes reading ``name`` at module level, in source order."""
    out = []

    class Reads(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            return False

        def visit_Name(self, node):
            if node.value == name:
                out.append(node)

    index.module.visit(Reads())
    return out


def test_each_read_sees_the_last_binding_before_its_statement():
    index = index_of("""
        import jax

        def f(x):
            return x

        f = jax.jit(f, static_argnames="x")
        first = f(1.0)

        def f(x, n):
            return x * n

        second = f(1.0, 2)
    """)
    reads = [r for r in reads_of(index, "f") if isinstance(index.parents.get(id(r)), (cst.Arg, cst.Call))]
    wrapped, called_first, called_second = [index.module_reaching("f", r) for r in reads]
    assert wrapped.kind is BindingKind.FUNCTION and len(wrapped.node.params.params) == 1  # read before the assignment binds
    assert called_first.kind is BindingKind.ASSIGNMENT
    assert called_second.kind is BindingKind.FUNCTION and len(called_second.node.params.params) == 2


def test_order_does_not_decide_a_conditional_binding_or_a_global_writer():
    conditional = index_of("""
        import jax

        def f(x):
            return x

        if jax.config.jax_enable_x64:
            def f(x):
                return 2 * x

        y = f(1.0)
    """)
    read = reads_of(conditional, "f")[-1]
    assert conditional.module_reaching("f", read) is discovery._UNKNOWN
    rebound = index_of("""
        def f(x):
            return x

        def g(x):
            return x

        def swap():
            global f
            f = g

        y = f(1.0)
        def f(x):
            return -x
    """)
    read = [r for r in reads_of(rebound, "f") if isinstance(rebound.parents.get(id(r)), cst.Call)][0]
    assert rebound.module_reaching("f", read) is discovery._UNKNOWN


def test_a_name_bound_once_is_left_to_the_other_lookups():
    index = index_of("""
        def f(x):
            return x

        y = f(1.0)
    """)
    assert index.module_reaching("f", reads_of(index, "f")[-1]) is discovery._UNKNOWN
