"""Robustness fuzz: no program crashes the engine, and every fix is sound as text.

Programs come from hypothesmith (grammar-valid random Python, as in
flake8-bugbear's fuzz test, with every function jitted) and from random
mutations of the repo's own fixtures; see :mod:`fuzz_support` for the
mutations and for the properties each program must keep (no exception, no
JIT000, fixed text parses and compiles, a second run changes nothing, edits
stay inside the rewritten statements).

CI runs a small, fixed (derandomized) number of examples: well under a
minute. A longer, random run::

    JITLINT_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest -q tests/test_fuzz.py \\
        -p no:cacheprovider --hypothesis-show-statistics

(``JITLINT_FUZZ_EXAMPLES`` is the number of examples of each test; with it
set, examples are drawn at random on each run.)
"""
from __future__ import annotations

import os

import hypothesmith
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fuzz_support import check_program, jit_everything, mutate, seed_corpus

LONG_RUN = int(os.environ.get("JITLINT_FUZZ_EXAMPLES", "0"))
SEEDS = seed_corpus()


def fuzz_settings(ci_examples: int):
    return settings(
        max_examples=LONG_RUN or ci_examples,
        derandomize=not LONG_RUN,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def test_the_seed_corpus_is_the_repos_own_fixtures():
    assert len(SEEDS) >= 100
    assert all(not os.path.isabs(name) and ".." not in name for name, _ in SEEDS)
    assert any(name.startswith("fix" + os.sep) for name, _ in SEEDS)
    assert any(name.startswith("lint" + os.sep) for name, _ in SEEDS)


@fuzz_settings(ci_examples=40)
@given(source=hypothesmith.from_grammar())
def test_grammar_valid_programs(source):
    event(check_program(jit_everything(source)))


@fuzz_settings(ci_examples=15)
@given(source=hypothesmith.from_node())
def test_libcst_generated_programs(source):
    event(check_program(jit_everything(source)))


@fuzz_settings(ci_examples=150)
@given(seed=st.sampled_from(SEEDS), rnd=st.randoms(use_true_random=False), steps=st.integers(1, 8),
       prefer_static=st.sampled_from([None, True, False]), unsafe=st.sampled_from([True, True, False]))
def test_mutated_fixtures(seed, rnd, steps, prefer_static, unsafe):
    name, text = seed
    program = mutate(text, rnd, steps)
    event(check_program(program, prefer_static=prefer_static, unsafe=unsafe))


@pytest.mark.parametrize("prefer_static", [None, True, False])
@pytest.mark.parametrize("name", [name for name, _ in SEEDS])
def test_every_fixture_fixes_soundly(name, prefer_static):
    text = dict(SEEDS)[name]
    check_program(text, prefer_static=prefer_static)
