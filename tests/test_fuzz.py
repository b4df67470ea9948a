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
set, examples are drawn at random on each run.)  ``scripts/fuzz_cli.py`` runs such
programs through the command line instead: the process pool, the results cache
(cold, warm, after a module another one calls changed) and ``--fix``.
"""
from __future__ import annotations

import os

import hypothesmith
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from fuzz_support import check_program, edit_violations, jit_everything, mutate, seed_corpus
from jitlint.diagnostics import Applicability, Diagnostic, Edit, Fix

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


# ---------------------------------------------------------------- the oracle itself
TWO_DEFS = "import jax\n\n\ndef f(x):\n    return x\n\n\ndef g(x):\n    return x\n"


def _fix_at_line_5(*edits: Edit):
    fix = Fix(Applicability.SAFE, "test", edits)
    return [Diagnostic("f.py", 5, 5, 5, 13, "JIT103", "m", fix=fix)], [fix]


@pytest.mark.parametrize("edit, ok", [
    (Edit(TWO_DEFS.index("return x"), TWO_DEFS.index("return x") + 8, "return -x"), True),
    (Edit(11, 11, "from jax import lax\n"), True),  # an import line the fix needs
    (Edit(TWO_DEFS.rindex("return x"), TWO_DEFS.rindex("return x") + 8, "return -x"), False),  # g, not f
    (Edit(TWO_DEFS.index("return x"), TWO_DEFS.rindex("return x"), ""), False),  # across two statements
    (Edit(TWO_DEFS.index("def g"), TWO_DEFS.index("def g"), "x = 1\n"), False),  # not an import, not in f
])
def test_the_edit_check_tells_a_sound_fix_from_a_stray_one(edit, ok):
    diagnostics, fixes = _fix_at_line_5(edit)
    assert (edit_violations(TWO_DEFS, diagnostics, fixes, [0]) == []) == ok


def test_check_program_catches_a_fix_that_breaks_the_code(monkeypatch):
    from dataclasses import replace

    def attach(findings, index, facts, source=None):
        broken = Fix(Applicability.SAFE, "broken", (Edit(0, 0, "def (:\n"),))
        return [replace(f, fix=broken) for f in findings]

    monkeypatch.setattr("jitlint.fixes.attach_fixes", attach)
    with pytest.raises(AssertionError, match="does not parse"):
        check_program("import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n")
