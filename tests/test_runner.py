"""The runner: pre-filter, cross-module units, cache and its invalidation, processes, scaling."""
import os
import subprocess
import sys

import pytest

import jitlint.engine
from jitlint.config import Config
from jitlint.runner import imported_modules, lint_files, may_contain_traced_code
from synthetic import helper_chain, jitted_functions

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")

CALLER = """\
import jax
from .helpers import clip


@jax.jit
def step(g):
    return clip(g)
"""

HELPER_BAD = """\
import jax.numpy as jnp


def clip(g):
    if jnp.abs(g).max() > 1:
        return g / 2
    return g
"""

HELPER_GOOD = """\
import jax.numpy as jnp


def clip(g):
    return jnp.where(jnp.abs(g).max() > 1, g / 2, g)
"""


@pytest.fixture
def package(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text(CALLER)
    (pkg / "helpers.py").write_text(HELPER_BAD)
    return pkg


@pytest.fixture
def parsed(monkeypatch):
    """Paths the engine parses during the test (a unit's own module through jitlint.analysis.reparse)."""
    import jitlint.analysis.reparse

    seen = []
    real = jitlint.engine.parse

    def counting(source, config=None):
        seen.append(source)
        return real(source, config)

    monkeypatch.setattr(jitlint.engine, "parse", counting)
    monkeypatch.setattr(jitlint.analysis.reparse, "parse", counting)
    monkeypatch.setattr(jitlint.runner, "_PARSED", {})  # (none of the modules parsed before this test)
    monkeypatch.setattr(jitlint.runner, "_parsed_characters", 0)
    return seen


@pytest.fixture
def analysed(monkeypatch):
    """The sources of the units the engine analyses during the test."""
    seen = []
    real = jitlint.engine.analyse_unit

    def recording(path, source, *args, **kwargs):
        seen.append(source)
        return real(path, source, *args, **kwargs)

    monkeypatch.setattr(jitlint.engine, "analyse_unit", recording)
    return seen


def _files(pkg):
    return [str(pkg / n) for n in ("__init__.py", "helpers.py", "train.py")]


def _codes(results):
    return {(os.path.basename(r.path), d.line, d.code) for r in results for d in r.diagnostics}


def test_prefilter_words():
    assert may_contain_traced_code(b"@jax.jit\ndef f(x): ...", Config())
    assert may_contain_traced_code(b"lax.fori_loop(0, n, body, x)", Config())
    assert not may_contain_traced_code(b"import numpy as np\ndef f(x):\n    return np.exp(x)\n", Config())
    assert may_contain_traced_code(b"@compiled\ndef f(x): ...", Config(extend_jit_decorators=("mylib.compiled",)))


def test_imports_are_read_from_the_text():
    text = b"import a.b as c, d\nfrom .ops import clip, norm as n\nfrom .. import up\n  # import not\n"
    assert imported_modules(text) == ["a.b", "d", ".ops", ".ops.clip", ".ops.norm", "..", "..up"]


def test_helper_without_trace_words_is_reported_through_its_caller(package, parsed):
    results = lint_files(_files(package), Config())
    assert _codes(results) == {("helpers.py", 5, "JIT201")}
    # the helper module was parsed once, for the caller's unit, never as a unit of its own
    assert sum(1 for s in parsed if "def clip" in s) == 1
    reason = " | ".join(next(d for r in results for d in r.diagnostics).reason)
    assert "parameter `g` of `clip` receives traced `g`" in reason and "train.py" in reason


def test_skipped_files_are_still_syntax_checked(tmp_path):
    bad = tmp_path / "broken.py"
    bad.write_text("def f(:\n    pass\n")
    (result,) = lint_files([str(bad)], Config())
    assert result.error is not None and result.error.line == 1
    assert "syntax error" in result.error.message


def test_warm_cache_parses_nothing_and_gives_the_same_findings(package, parsed, tmp_path):
    cache = str(tmp_path / "cache")
    cold = lint_files(_files(package), Config(), cache_dir=cache)
    parsed.clear()
    warm = lint_files(_files(package), Config(), cache_dir=cache)
    assert parsed == []
    assert [(r.path, r.diagnostics) for r in warm] == [(r.path, r.diagnostics) for r in cold]


def test_editing_a_helper_invalidates_its_callers(package, analysed, tmp_path):
    cache = str(tmp_path / "cache")
    assert _codes(lint_files(_files(package), Config(), cache_dir=cache)) == {("helpers.py", 5, "JIT201")}
    (package / "helpers.py").write_text(HELPER_GOOD)
    analysed.clear()
    assert _codes(lint_files(_files(package), Config(), cache_dir=cache)) == set()
    assert any("def step" in s for s in analysed), "the caller must be re-analysed"
    (package / "helpers.py").write_text(HELPER_BAD)
    assert _codes(lint_files(_files(package), Config(), cache_dir=cache)) == {("helpers.py", 5, "JIT201")}


def test_config_change_invalidates_the_cache(package, tmp_path):
    cache = str(tmp_path / "cache")
    assert _codes(lint_files(_files(package), Config(), cache_dir=cache))
    assert _codes(lint_files(_files(package), Config(ignore=("JIT2",)), cache_dir=cache)) == set()


def test_processes_give_the_same_results_in_the_same_order(tmp_path):
    lint_dir = os.path.join(FIXTURES, "lint")
    paths = sorted(os.path.join(lint_dir, f) for f in os.listdir(lint_dir) if f.endswith(".py"))
    one = lint_files(paths, Config(), jobs=1)
    two = lint_files(paths, Config(), jobs=2)
    assert [r.path for r in two] == paths
    assert [(r.path, r.diagnostics) for r in two] == [(r.path, r.diagnostics) for r in one]
    assert sum(len(r.diagnostics) for r in one) > 50


_TIME_LINT = """
import sys, time
from jitlint.config import Config
from jitlint.runner import lint_files
best = float("inf")
for _ in range(3):
    start = time.process_time()
    (result,) = lint_files([sys.argv[1]], Config(), jobs=1)
    best = min(best, time.process_time() - start)
assert result.diagnostics
print(best)
"""


def _seconds(path):
    # CPU time of the lint, best of three, in a process of its own: other processes on a shared
    # machine do not count (as they did in wall-clock time), and neither does the heap the tests
    # before this one leave behind, whose garbage collections grew with the module's objects
    # (x4.7 for the chain in a full run, x2.0-2.5 in a fresh process)
    done = subprocess.run([sys.executable, "-c", _TIME_LINT, path], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("generator, size", [(jitted_functions, 600), (helper_chain, 700)])
def test_cost_grows_linearly_with_the_module(tmp_path, generator, size):
    """Loose: doubling the input (600 -> 1,200 jitted functions, ~5,400 -> ~10,800 lines;
    a chain of 700 -> 1,400 helpers) must less than triple the time. The benchmark
    (benchmarks/run.py) times the 10,000- and 20,000-line sizes."""
    small, large = tmp_path / "small.py", tmp_path / "large.py"
    small.write_text(generator(size))
    large.write_text(generator(2 * size))
    assert _seconds(str(large)) < 3 * _seconds(str(small))


def test_prefilter_matches_words_not_substrings():
    assert may_contain_traced_code(b"out = lax.cond(p, f, g, x)", Config())
    assert not may_contain_traced_code(b"# the second condition\nseconds = 1\n", Config())
    assert not may_contain_traced_code(b"leaves = tree_map(f, t)  # jitter\n", Config())
    assert may_contain_traced_code(b"y = eqx.filter_jit(f)(x)", Config())


def test_warm_cache_skips_the_syntax_check_of_unchanged_skipped_files(tmp_path, monkeypatch):
    import jitlint.runner

    plain = tmp_path / "plain.py"
    plain.write_text("import numpy as np\n\n\ndef f(x):\n    return np.exp(x)\n")
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    cache = str(tmp_path / "cache")
    first = lint_files([str(plain), str(broken)], Config(), cache_dir=cache)
    calls = []
    real = jitlint.runner.quick_check
    monkeypatch.setattr(jitlint.runner, "quick_check", lambda p, d: calls.append(p) or real(p, d))
    second = lint_files([str(plain), str(broken)], Config(), cache_dir=cache)
    assert calls == []
    assert [r.error for r in second] == [r.error for r in first]
    assert second[1].error is not None and "syntax error" in second[1].error.message


def test_a_module_is_parsed_once_while_it_is_among_the_latest(parsed):
    """A module the analysis of one file loads (a helper it calls) is a file of the run too: parsed once
    while it is among the latest parsed in the process, also when the same text is parsed again under
    another name; a text pushed out by others is parsed again."""
    from jitlint.runner import PARSED_CHARACTERS, parse_once

    first = parse_once("def f(x):\n    return x\n")
    assert parse_once("def f(x):\n    return x\n") is first and len(parsed) == 1
    filler = "x = 1\n" * (PARSED_CHARACTERS // 6 + 1)
    parse_once(filler)
    assert parse_once("def f(x):\n    return x\n") is not first and len(parsed) == 3
