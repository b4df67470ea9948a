"""The size guard before a parse: the quick bound (brackets and newlines only) agrees with the exact
measure wherever it answers, and leaves long chains to it."""
import random

import pytest

from jitlint import source
from jitlint.source import CHAIN_ON_CALLING_THREAD, MAX_CHAIN, MAX_STATEMENT_CHARS, SourceError, check_size

PIECES = ["x = a.b(c)[d] + e\n", "s = '(' + \")\" + '''\n[\n'''\n", "# ( [ { not code\n", "y = (1,\n 2)\n",
          "z = f(a, b).g\\\n    .h\n", "if p and q or not r:\n    pass\n", "w = [i for i in (1, 2) if i]\n",
          "t = {'k': (1, 2), 'v': [3]}\n", "u = a ** b // c << d >> e\n", "v = x if y else z\n"]


@pytest.mark.parametrize("seed", range(40))
def test_quick_bound_agrees_with_the_exact_measure(seed):
    rng = random.Random(seed)
    text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 60)))
    quick = source._statements_within_bounds(text)
    chars, offset, links, _ = source._largest_statement(text)
    assert quick == (chars, offset) and links <= CHAIN_ON_CALLING_THREAD


def test_a_long_chain_is_measured_exactly():
    chain = "x = (" + " + ".join(["a"] * (CHAIN_ON_CALLING_THREAD + 10)) + ")\n"
    assert source._statements_within_bounds(chain) is None
    assert check_size(chain) is True  # parsed on a large stack
    with pytest.raises(SourceError, match="chain of"):
        check_size("x = " + " and ".join(["a"] * (MAX_CHAIN + 2)) + "\n")  # (flat for CPython, not for LibCST)


def test_many_links_in_a_string_or_across_commas_are_no_chain():
    plus = "z = '" + "+" * (CHAIN_ON_CALLING_THREAD * 3) + "'\n"
    listed = "f(\n" + ",\n".join(["a.b"] * CHAIN_ON_CALLING_THREAD) + ")\n"
    for text in (plus, listed):
        assert source._statements_within_bounds(text) is None  # the bound cannot tell...
        assert check_size(text) is False  # ...the exact measure can


def test_a_statement_too_long_is_refused_where_it_starts():
    text = "a = 1\nb = [\n" + "0,\n" * (MAX_STATEMENT_CHARS // 3 + 10) + "]\n"
    with pytest.raises(SourceError, match="too long to lint") as err:
        check_size(text)
    assert err.value.line == 2
