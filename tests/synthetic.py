"""Generated JAX modules of a chosen size, for the scaling test and ``benchmarks/run.py``.

Both shapes have a finding in every function, so nothing is skipped as clean:

* :func:`jitted_functions` -- ``n`` independent ``@jax.jit`` functions, 9 lines each;
* :func:`helper_chain` -- ``n`` plain helpers, each calling the previous one, reached
  from one jitted entry (the interprocedural analysis follows the chain).

and one has none, as most real modules have few:

* :func:`eager_functions` -- ``n`` functions of the same shape as :func:`jitted_functions`' that
  nothing traces, and one small jitted function.
"""
from __future__ import annotations

from typing import List

HEADER = ["import jax", "import jax.numpy as jnp", ""]


def jitted_functions(n: int) -> str:
    parts: List[str] = list(HEADER)
    for i in range(n):
        parts += [
            "@jax.jit",
            f"def f{i}(x, n):",
            "    y = jnp.sin(x) * 2.0",
            "    for j in range(3):",
            "        y = y + j",
            "    if y.sum() > 0:",
            "        y = -y",
            "    return y + n",
            "",
        ]
    return "\n".join(parts) + "\n"


def helper_chain(n: int) -> str:
    parts: List[str] = HEADER + ["def h0(x, n):", "    return x + n", ""]
    for i in range(1, n):
        parts += [f"def h{i}(x, n):", "    y = jnp.cos(x)", "    if n > 2:", "        y = y * 2",
                  f"    return h{i - 1}(y, n)", ""]
    parts += ["@jax.jit", "def entry(x, n):", f"    return h{n - 1}(x, n)", ""]
    return "\n".join(parts) + "\n"


def eager_functions(n: int) -> str:
    parts: List[str] = HEADER + ["import numpy as np", ""]
    for i in range(n):
        parts += [f"def g{i}(x, n):", "    y = np.sin(x) * 2.0", "    for j in range(n):", "        y = y + j",
                  "    if y.sum() > 0:", "        y = -y", "    return y + n", ""]
    parts += ["@jax.jit", "def entry(x):", "    return jnp.sin(x) * 2.0", ""]
    return "\n".join(parts) + "\n"


def lines_per_function(generator) -> float:
    """Lines a function adds, measured on the generator itself."""
    return (generator(200).count("\n") - generator(100).count("\n")) / 100
