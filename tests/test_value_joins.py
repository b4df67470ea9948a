"""What the join of two paths' values keeps (``jitlint.analysis.values.join``).

A value known on every path stays known: a tuple's positions whatever each path's kind, a dict's
keys that hold Python values on both paths, and "iterating it yields a tracer" only where both
paths say so.  The fixtures ``tuple_positions_across_paths``, ``static_values_in_dicts`` and
``eager_only_guards_by_leaves`` have the same shapes as programs, run under JAX 0.10.2.
"""
from jitlint.analysis.values import MAYBE, STATIC, Kind, Reason, Value, constant, join, traced


def _traced() -> Value:
    return traced(Reason(None, "a tracer"), leaf=True)


def test_positions_known_on_both_paths_survive_different_kinds():
    on_traced_path = traced(Reason(None, "t"), items=(_traced(), constant(3)))
    on_static_path = Value(items=(constant(None), constant(3)))
    for joined in (join(on_traced_path, on_static_path), join(on_static_path, on_traced_path)):
        assert joined.kind is Kind.TRACED
        assert joined.items is not None and len(joined.items) == 2
        assert joined.items[0].kind is Kind.TRACED
        assert joined.items[1].kind is Kind.STATIC


def test_positions_of_different_lengths_are_not_joined():
    joined = join(traced(Reason(None, "t"), items=(_traced(), constant(3))), Value(items=(STATIC,) * 3))
    assert joined.items is None


def test_ends_of_a_starred_display_join_with_the_items_of_a_longer_tuple():
    starred = traced(Reason(None, "t"), tail=(constant(4), constant("a")), element=_traced())
    plain = Value(items=(constant(1), constant(2), constant(4), constant("b")))
    joined = join(starred, plain)
    assert joined.at(-2) is not None and joined.at(-2).kind is Kind.STATIC
    assert join(starred, Value(items=(constant(4),))).at(-2) is None  # too short to have those ends


def test_static_keys_are_those_static_on_every_path():
    a = traced(Reason(None, "d"), mapping=True, static_keys=frozenset({"n", "mt"}))
    b = traced(Reason(None, "d"), mapping=True, static_keys=frozenset({"n"}))
    assert join(a, b).static_keys == frozenset({"n"})
    assert join(a, MAYBE).static_keys == frozenset()
    assert join(a, None).static_keys == frozenset({"n", "mt"})  # unbound on the other path


def test_a_tracer_among_the_leaves_only_where_both_paths_have_one():
    leaves = traced(Reason(None, "l"), container=True, element=_traced(), yields_tracer=True)
    assert join(leaves, leaves).yields_tracer
    assert not join(leaves, Value(container=True, element=STATIC)).yields_tracer
    assert not join(leaves, None).yields_tracer


def test_an_array_on_one_path_and_anything_on_the_other_is_not_known_to_be_an_array():
    array = traced(Reason(None, "jnp.zeros"), is_array=True)
    for joined in (join(array, MAYBE), join(MAYBE, array)):
        assert joined.kind is Kind.TRACED and not joined.traced_array
    # a Python value on the other path (None, a number) leaves the array an array
    assert join(array, constant(None)).traced_array
    assert join(array, traced(Reason(None, "jnp.ones"), is_array=True)).traced_array


def test_a_dtype_kind_is_known_only_where_every_path_agrees():
    floats = traced(Reason(None, "one_hot"), is_array=True, dtype_kind="f")
    ints = traced(Reason(None, "astype"), is_array=True, dtype_kind="i")
    assert join(floats, traced(Reason(None, "zeros"), is_array=True, dtype_kind="f")).dtype_kind == "f"
    assert join(floats, ints).dtype_kind is None
    assert join(floats, traced(Reason(None, "x"), is_array=True)).dtype_kind is None
