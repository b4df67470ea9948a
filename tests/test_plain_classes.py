"""ModuleIndex.plain_class: a class whose instances are known to be plain Python objects (not
pytrees), which is what JIT502 needs before it says that jit cannot take ``self``."""
import textwrap

import libcst as cst

from jitlint.analysis.discovery import ModuleIndex

SOURCE = textwrap.dedent('''
    import abc
    from typing import Generic, TypeVar

    from elsewhere import Operator, bases

    T = TypeVar("T")


    class Plain:
        pass


    class Child(Plain):
        pass


    class Typed(Generic[T]):
        pass


    class TypedChild(Typed[int]):
        pass


    class OfImported(Operator[T]):
        pass


    class OfImportedPlain(Operator):
        pass


    class Registering:
        def __init_subclass__(cls, **kwargs):
            register(cls)


    class Registered(Registering):
        pass


    class Starred(*bases):
        pass


    class Made(type("Base", (), {})):
        pass


    class Abstract(abc.ABC):
        pass
''')


def test_which_classes_are_plain():
    """`abc.ABC` registers no pytree (its instances are plain objects to JAX: run on JAX 0.10.2, a jitted
    method of such a class with `self` traced raises TypeError), though ``ABC.register`` may add virtual
    subclasses: plain as an argument of jit, not for an ``isinstance`` test."""
    index = ModuleIndex(cst.parse_module(SOURCE))
    plain = {name for name in index.classes if index.plain_class(name, not_a_pytree=True)}
    assert plain == {"Plain", "Child", "Typed", "TypedChild", "Abstract"}
    instances = {name for name in index.classes if index.plain_class(name)}
    assert "Abstract" not in instances and "Plain" in instances
