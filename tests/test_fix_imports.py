"""Imports that fixes add or leave unused: placed in their block in isort's order, removed only
when nothing else in the module uses the name."""
import textwrap

import pytest

import jitlint.fixes
from jitlint.config import Config
from jitlint.fixing import fix_source

NUMPY_BODY = """

@jax.jit
def f(x):
    return np.exp(x)
"""

PRINT_BODY = """

@jax.jit
def f(x):
    print(x)
    return x
"""

STATIC_BODY = """

@jax.jit
def f(x, double):
    if double:
        x = x * 2
    return jnp.sin(x)
"""


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


def fixed(source: str) -> str:
    result = fix_source(textwrap.dedent(source), "case.py", Config(), unsafe=True)
    assert result.error is None and result.converged
    again = fix_source(result.fixed, "case.py", Config(), unsafe=True)
    assert again.fixed == result.fixed, "fixing again changes nothing"
    compile(result.fixed, "case.py", "exec")
    return result.fixed


def head(text: str) -> str:
    return text.split("\n\n\n")[0] + "\n"


# ------------------------------------------------------------------ placement

PLACEMENT = {
    "stdlib import gets a block of its own before third party": (
        "import jax\nimport jax.numpy as jnp\n", STATIC_BODY,
        "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n"),
    "stdlib import joins the stdlib block, `from` after `import`": (
        "import os\nimport sys\n\nimport jax\nimport jax.numpy as jnp\n", STATIC_BODY,
        "import os\nimport sys\nfrom functools import partial\n\nimport jax\nimport jax.numpy as jnp\n"),
    "stdlib import sorted among `from` imports": (
        "from collections import OrderedDict\nfrom typing import Any\n\nimport jax\nimport jax.numpy as jnp\n",
        STATIC_BODY,
        "from collections import OrderedDict\nfrom functools import partial\nfrom typing import Any\n\n"
        "import jax\nimport jax.numpy as jnp\n"),
    "after a docstring and __future__": (
        '"""Doc."""\nfrom __future__ import annotations\n\nimport jax\nimport jax.numpy as jnp\n', STATIC_BODY,
        '"""Doc."""\nfrom __future__ import annotations\n\nfrom functools import partial\n\n'
        "import jax\nimport jax.numpy as jnp\n"),
    "`import jax` before `from jax import jit`": (
        "from jax import jit\n", PRINT_BODY.replace("@jax.jit", "@jit"), "import jax\nfrom jax import jit\n"),
    "`from jax import lax` joins `from jax import jit`": (
        "from jax import jit\nimport jax.numpy as jnp\n",
        "\n\n@jit\ndef f(x, n):\n    for _ in range(n):\n        x = x * 2\n    return x\n",
        "from jax import jit, lax\nimport jax.numpy as jnp\n"),
}


def test_jnp_goes_after_jax():
    out = fixed("import jax\nimport numpy as np\nimport optax\n" + NUMPY_BODY)
    assert head(out) == "import jax\nimport jax.numpy as jnp\nimport optax\n"


def test_import_added_where_the_removed_one_was():
    out = fixed("import numpy as np\nimport jax\n" + NUMPY_BODY)
    assert head(out) == "import jax.numpy as jnp\nimport jax\n"


def test_third_party_joins_its_block_not_the_first_party_one():
    out = fixed("import os\n\nimport jax\n\nimport mypkg.layers\n\n\n@jax.jit\ndef f(x, n):\n"
                "    for _ in range(n):\n        x = x * 2\n    return x\n")
    assert head(out) == "import os\n\nimport jax\nfrom jax import lax\n\nimport mypkg.layers\n"


@pytest.mark.parametrize("case", list(PLACEMENT))
def test_placement(case):
    header, body, expected = PLACEMENT[case]
    assert head(fixed(header + body)) == expected


def test_crlf_file_gets_crlf_imports():
    source = ("import jax\nimport jax.numpy as jnp\n" + STATIC_BODY).replace("\n", "\r\n")
    out = fixed(source)
    assert out.startswith("from functools import partial\r\n\r\nimport jax\r\n")
    assert "\n" not in out.replace("\r\n", "")


def test_too_long_to_join_gets_a_line_of_its_own():
    names = ", ".join(f"name_{i}" for i in range(14))
    out = fixed(f"import jax\nfrom jax import {names}\n\n\n@jax.jit\ndef f(x, n):\n"
                "    for _ in range(n):\n        x = x * 2\n    return x\n")
    assert f"from jax import {names}\nfrom jax import lax\n" in out


# ------------------------------------------------------------------ removal


def test_unused_numpy_import_is_removed():
    out = fixed("import jax\nimport numpy as np\n" + NUMPY_BODY)
    assert "numpy" not in out.replace("jax.numpy", "")


def test_numpy_import_removed_after_all_its_calls_in_one_round():
    source = textwrap.dedent("""\
        import jax
        import numpy as np


        @jax.jit
        def f(x):
            return np.exp(x) + np.sin(x)


        @jax.jit
        def g(x):
            return np.log1p(x)
        """)
    result = fix_source(source, "case.py", Config(), unsafe=True)
    assert result.rounds == 1
    assert "import numpy" not in result.fixed and result.fixed.count("jnp.") == 3


@pytest.mark.parametrize("use", [
    "def eager():\n    return np.zeros(3)\n",           # a use the fix does not rewrite
    '__all__ = ["f", "np"]\n',                          # exported
    "__all__ = list(EXPORTS)\nEXPORTS = []\n",          # __all__ built some other way
    "del np\n",                                         # deleted: a use
    "def g():\n    global np\n",                        # declared global
    "def h(np):\n    return np\n",                      # a parameter of that name: kept, conservatively
])
def test_numpy_import_kept_when_used_elsewhere(use):
    out = fixed("import jax\nimport numpy as np\n" + NUMPY_BODY + "\n\n" + use)
    assert "import numpy as np\n" in out and "jnp.exp(x)" in out


def test_a_string_is_not_a_use():
    out = fixed("import jax\nimport numpy as np\n" + NUMPY_BODY + '\n\nNOTE = "np is numpy"\n')
    assert "import numpy as np" not in out


@pytest.mark.parametrize("header", [
    "import jax\nimport numpy as np  # noqa: F401\n",     # kept on purpose
    "import jax\nimport numpy as numpy\n",               # an explicit re-export
    "import jax\ntry:\n    import numpy as np\nexcept ImportError:\n    np = None\n",
])
def test_import_kept_when_meant(header):
    out = fixed(header + NUMPY_BODY.replace("np.", header.split(" as ")[1].split()[0] + "."))
    assert "import numpy" in out


def test_a_noqa_call_keeps_its_import():
    out = fixed("import jax\nimport numpy as np\n\n\n@jax.jit\ndef f(x):\n"
                "    a = np.exp(x)  # noqa: JIT302\n    return a + np.sin(x)\n")
    assert "import numpy as np" in out and "np.exp(x)  # noqa" in out and "jnp.sin(x)" in out


def test_one_alias_of_several_is_removed():
    out = fixed("import jax\nimport os, numpy as np\n" + NUMPY_BODY + "\n\nHOME = os.environ\n")
    assert "import os\n" in out and "numpy as np" not in out


def test_from_numpy_import_removed_when_unused():
    out = fixed("import jax\nfrom numpy import exp, zeros\n\n\n@jax.jit\ndef f(x):\n    return exp(x)\n\n\n"
                "Z = zeros(3)\n")
    assert "from numpy import zeros\n" in out and "jnp.exp(x)" in out


def test_import_alone_in_its_block_goes_with_its_blank_line():
    out = fixed("import os\n\nimport numpy as np\n\nimport jax\n" + NUMPY_BODY + "\n\nP = os.sep\n")
    assert head(out) == "import os\n\nimport jax\nimport jax.numpy as jnp\n"


# ------------------------------------------------- imports the fix can reach


LATE = '''
import jax
from jax import jit


@jit
def scale(x, neg):
    if neg:
        return -x
    return x


{late}


def later(x):
    return {use}(scale, neg=False)(x)
'''


@pytest.mark.parametrize("late, use", [
    ("from functools import partial", "partial"),
    ("from functools import partial as partial", "partial"),
    ("import functools\nfrom functools import partial", "partial"),
])
def test_a_decorator_does_not_reuse_an_import_below_it(late, use):
    """A decorator runs when its ``def`` does: an import of ``partial`` further down (a notebook's later
    cell) is not bound yet, so the fix adds the import at the top; running the fixed module works."""
    out = fixed(LATE.format(late=late, use=use))
    top = out.split("@")[0]
    assert "from functools import partial" in top
    assert '@partial(jit, static_argnames=("neg",))' in out
    namespace: dict = {}
    exec(compile(out, "case.py", "exec"), namespace)  # NameError before the fix
    assert namespace["scale"](2.0, True) == -2.0


def test_a_function_body_reuses_an_import_below_it():
    """Code in a function body runs after the module is imported: a later module-level import serves it."""
    source = "import jax\nimport numpy as np\n" + NUMPY_BODY + "\n\nimport jax.numpy as jnp  # noqa: E402\n" + \
        "\n\ndef g(x):\n    return jnp.exp(x) + np.ones(1)\n"
    out = fixed(source)
    assert "return jnp.exp(x)\n" in out
    assert out.count("import jax.numpy as jnp") == 1


def test_math_import_of_the_first_block_goes_with_the_blank_lines_after_it():
    """`import math`, alone in the file's first block, used only by the call the fix rewrites: the file then
    starts with the next block, not with a blank line."""
    out = fixed("import math\n\nimport jax\n\n\n@jax.jit\ndef f(x):\n    return math.exp(x)\n")
    assert out.startswith("import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\n"), out
    assert "math" not in out


def test_math_import_still_used_elsewhere_stays():
    out = fixed("import math\n\nimport jax\n\nTAU = 2 * math.pi\n\n\n@jax.jit\ndef f(x):\n    return math.exp(x)\n")
    assert out.startswith("import math\n") and "jnp.exp(x)" in out


# ------------------------------------------------------------------ imports made under a condition

OPTIONAL_JAX = """\
HAS_JAX = True

if HAS_JAX:
    import jax
    import jax.numpy as jnp
    from jax import jit


@jit
def step(error, dt):
    if error == 0:
        factor = 2.0
    else:
        factor = 0.9 * jnp.power(1e-6 / error, 0.2)
    return dt * factor
"""


def test_a_module_importing_jax_under_a_condition_is_spelled_through_those_imports():
    """`if HAS_JAX: import jax` (an optional backend, MFG_PDE's): the fix spells `jax.lax.cond` through the import
    in the block, and adds no import at the top, which would run, and fail, where JAX is not installed."""
    out = fixed(OPTIONAL_JAX)
    assert "jax.lax.cond(" in out
    assert out.split("if HAS_JAX:")[0] == "HAS_JAX = True\n\n"


def test_no_top_level_import_of_a_module_imported_only_under_a_condition():
    """The block imports `jax.numpy` and `jit` but not `jax` itself: `lax` cannot be spelled through them, and an
    import added at the top would run where the condition is false -- the `lax.cond` rewrite is not made."""
    source = OPTIONAL_JAX.replace("    import jax\n", "")
    out = fixed(source)
    assert out.split("if HAS_JAX:")[0] == "HAS_JAX = True\n\n"
    assert "lax.cond(" not in out
