"""A bug in jitlint is reported where it happens -- one rule on one file -- and everything else still runs.

A rule that raises leaves one JIT000 finding naming it ("internal error in
rule JIT201 (python-branch-on-tracer): ...") and the other rules report as
usual; an analysis that raises on a file is an internal error of that file and
the other files are still checked; either way the exit status is 2 and no
traceback reaches the user.
"""
from __future__ import annotations

import subprocess
import sys
from typing import List

import pytest

from frontend_support import SEEDED, Outcome, run_cli, write
from jitlint.analysis.tracedness import Analyzer
from jitlint.engine import lint_source
from jitlint.fixing import fix_source
from jitlint.rules.base import INTERNAL_ERROR_CODE
from jitlint.rules.compilation import RecompilationHazard
from jitlint.rules.control_flow import PythonBranchOnTracer

#: JIT103 on line 7, JIT201 on lines 8 and 10
TWO_RULES = """\
import jax


@jax.jit
def step(x):
    y = x * 2
    print(y)
    if x > 0:
        y = y + 1
    z = y if y > 0 else -y
    return z
"""


@pytest.fixture
def branch_rule_crashes(monkeypatch):
    calls = []

    def visit_If(self, node):
        calls.append(node)
        raise KeyError("boom")

    monkeypatch.setattr(PythonBranchOnTracer, "visit_If", visit_If)
    return calls


def codes(result):
    return [(d.line, d.code) for d in result.diagnostics]


def test_a_crashing_rule_is_one_internal_error_and_the_other_rules_still_report(branch_rule_crashes):
    result = lint_source(TWO_RULES, "step.py")
    assert result.error is None
    assert codes(result) == [(7, "JIT103"), (8, INTERNAL_ERROR_CODE)]
    internal = result.diagnostics[1]
    assert internal.message == "internal error in rule JIT201 (python-branch-on-tracer): KeyError: 'boom'"
    # the rule is stopped on that module: its other findings (the ternary on line 10) are not made up
    assert len(branch_rule_crashes) == 1


def test_a_crashing_module_check_is_reported_at_the_top_of_the_file(monkeypatch):
    def check_module(self):
        raise ValueError("bad state\nsecond line")

    monkeypatch.setattr(RecompilationHazard, "check_module", check_module, raising=False)
    result = lint_source(TWO_RULES, "step.py")
    assert codes(result) == [(1, INTERNAL_ERROR_CODE), (7, "JIT103"), (8, "JIT201"), (10, "JIT201")]
    assert result.diagnostics[0].message == \
        "internal error in rule JIT501 (recompilation-hazard): ValueError: bad state"


def test_fixes_of_the_other_rules_still_apply(branch_rule_crashes):
    result = fix_source(TWO_RULES, "step.py", unsafe=True)
    assert result.error is None
    assert "jax.debug.print" in result.fixed and "if x > 0:" in result.fixed
    assert [d.code for d in result.remaining] == [INTERNAL_ERROR_CODE]


def test_a_recursion_error_in_a_rule_is_retried_on_a_deep_stack(monkeypatch):
    """RecursionError is not an internal error: deep code is analysed again with a large stack."""
    import threading

    original = PythonBranchOnTracer.visit_If

    def visit_If(self, node):
        if threading.current_thread() is threading.main_thread():
            raise RecursionError("deep")
        return original(self, node)

    monkeypatch.setattr(PythonBranchOnTracer, "visit_If", visit_If)
    result = lint_source(TWO_RULES, "step.py")
    assert codes(result) == [(7, "JIT103"), (8, "JIT201"), (10, "JIT201")]


BRANCH_RULE_CRASHES = (
    "from jitlint.rules.control_flow import PythonBranchOnTracer\n"
    "def visit_If(self, node):\n"
    "    raise KeyError('boom')\n"
    "PythonBranchOnTracer.visit_If = visit_If\n"
)
ANALYSIS_CRASHES_ON_BAD_FILES = (
    "from jitlint.analysis.tracedness import Analyzer\n"
    "CRASH = '# crash the analysis'\n"
    "original = Analyzer.run\n"
    "def run(self, *args, **kwargs):\n"
    "    if CRASH in self.index.module.code:\n"
    "        raise RuntimeError('analysis fell over')\n"
    "    return original(self, *args, **kwargs)\n"
    "Analyzer.run = run\n"
)


def run_patched(patch: str, argv: List[str], module: str = "jitlint.cli") -> Outcome:
    """The CLI (or flake8) in a fresh interpreter with ``patch`` applied first: its worker
    processes (forked, as no jax is imported there) inherit the patch."""
    script = f"import sys\n{patch}from {module} import main\nsys.exit(main(sys.argv[1:]))\n"
    proc = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=300)
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


def test_cli_reports_the_rule_crash_with_exit_status_2(tmp_path):
    files = [write(tmp_path, f"m{i}.py", TWO_RULES) for i in range(4)]  # four: -j 2 uses processes
    outcome = run_patched(BRANCH_RULE_CRASHES, ["check", "--isolated", "--no-reason", "-q", "--no-cache",
                                                "-j", "2", *map(str, files)])
    assert outcome.status == 2, outcome.err
    assert "Traceback" not in outcome.out + outcome.err
    for path in files:
        assert f"{path}:7:5: JIT103 " in outcome.out
        assert f"{path}:8:5: JIT000 internal error in rule JIT201 (python-branch-on-tracer): KeyError: 'boom'" \
            in outcome.out


def test_cli_fix_writes_the_other_fixes_and_exits_2(tmp_path, capsys, branch_rule_crashes):
    path = write(tmp_path, "m.py", TWO_RULES)
    outcome = run_cli(capsys, "check", "--isolated", "--no-reason", "--fix", str(path))
    assert outcome.status == 2
    assert "jax.debug.print" in path.read_text()
    assert "JIT000 internal error in rule JIT201" in outcome.out


#: a file with this comment makes the (patched) analysis raise
CRASH = "# crash the analysis"
BAD = SEEDED + CRASH + "\n"


@pytest.fixture
def analysis_crashes_on_bad_files(monkeypatch):
    original = Analyzer.run

    def run(self, *args, **kwargs):
        if CRASH in self.index.module.code:
            raise RuntimeError("analysis fell over")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Analyzer, "run", run)


def test_an_analysis_crash_is_an_error_of_that_file_only(tmp_path, capsys, analysis_crashes_on_bad_files):
    bad = write(tmp_path, "bad.py", BAD)
    good = [write(tmp_path, f"good{i}.py", SEEDED) for i in range(4)]
    argv = ["check", "--isolated", "--no-reason", "-q", "--no-cache", str(bad), *map(str, good)]
    in_process = run_cli(capsys, *argv, "-j", "1")
    in_workers = run_patched(ANALYSIS_CRASHES_ON_BAD_FILES, argv + ["-j", "2"])
    for outcome in (in_process, in_workers):
        assert outcome.status == 2
        assert "Traceback" not in outcome.out + outcome.err
        assert outcome.err == f"{bad}:1:1: error: internal error: RuntimeError: analysis fell over\n"
        assert outcome.out.count("JIT201") == 4 and str(bad) not in outcome.out


def test_an_analysis_crash_during_fix_leaves_that_file_alone(tmp_path, capsys, analysis_crashes_on_bad_files):
    bad = write(tmp_path, "bad.py", TWO_RULES + CRASH + "\n")
    good = write(tmp_path, "good.py", TWO_RULES)
    outcome = run_cli(capsys, "check", "--isolated", "--no-reason", "-q", "--fix", str(bad), str(good))
    assert outcome.status == 2
    assert bad.read_text() == TWO_RULES + CRASH + "\n"
    assert "jax.debug.print" in good.read_text()
    assert outcome.err == f"{bad}:1:1: error: internal error: RuntimeError: analysis fell over\n"


def test_internal_errors_are_not_cached(tmp_path, capsys, monkeypatch, branch_rule_crashes):
    path = write(tmp_path, "m.py", TWO_RULES)
    cache = tmp_path / "cache"
    first = run_cli(capsys, "check", "--isolated", "-q", "--cache-dir", str(cache), str(path))
    assert first.status == 2
    monkeypatch.undo()  # the bug is fixed: the next run must not replay the crash from the cache
    second = run_cli(capsys, "check", "--isolated", "-q", "--no-reason", "--cache-dir", str(cache), str(path))
    assert second.status == 1 and "JIT000" not in second.out and "JIT201" in second.out


def test_flake8_reports_an_analysis_crash_as_one_finding(tmp_path):
    pytest.importorskip("flake8")
    path = write(tmp_path, "bad.py", BAD)
    outcome = run_patched(ANALYSIS_CRASHES_ON_BAD_FILES, ["--isolated", "--select", "JIT", str(path)],
                          module="flake8.main.cli")
    assert "Traceback" not in outcome.err, outcome.err
    assert outcome.out == f"{path}:1:1: JIT000 internal error: RuntimeError: analysis fell over\n"
    assert outcome.status == 1


WORKER_DIES_ON_BAD_FILES = (
    "import os, signal\n"
    "import jitlint.engine\n"
    "CRASH = '# crash the analysis'\n"
    "original = jitlint.engine.analyse_unit\n"
    "def analyse(path, source, *args, **kwargs):\n"
    "    if CRASH in source:\n"
    "        os.kill(os.getpid(), signal.SIGSEGV)  # as a crash in LibCST's native parser would\n"
    "    return original(path, source, *args, **kwargs)\n"
    "jitlint.engine.analyse_unit = analyse\n"
)


def test_a_worker_that_dies_costs_only_its_own_file(tmp_path):
    """A segmentation fault in a worker (native code) breaks the whole pool; its files are run
    again one process each, so the one that crashes is named and the others are reported."""
    bad = write(tmp_path, "bad.py", BAD)
    good = [write(tmp_path, f"good{i}.py", SEEDED) for i in range(5)]
    outcome = run_patched(WORKER_DIES_ON_BAD_FILES, ["check", "--isolated", "--no-reason", "-q", "--no-cache",
                                                     "-j", "2", str(bad), *map(str, good)])
    assert outcome.status == 2
    assert outcome.err == f"{bad}:1:1: error: internal error: jitlint crashed on this file (its worker process died)\n"
    assert outcome.out.count("JIT201") == 5 and str(bad) not in outcome.out


def test_a_pool_that_breaks_while_files_are_handed_out_runs_the_rest_alone(tmp_path, monkeypatch):
    """A worker can die before every file has been submitted: ``submit`` itself then raises
    BrokenProcessPool; the files not handed out yet are run one process each, like the others."""
    from concurrent.futures.process import BrokenProcessPool

    import jitlint.runner
    from jitlint.config import Config
    from jitlint.runner import lint_files

    real = jitlint.runner.ProcessPoolExecutor
    submitted: List[int] = []

    class BreaksAfterTwo(real):
        def submit(self, fn, *args, **kwargs):
            if self._max_workers > 1:
                submitted.append(1)
                if len(submitted) > 2:
                    raise BrokenProcessPool("a worker died")
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(jitlint.runner, "ProcessPoolExecutor", BreaksAfterTwo)
    paths = [write(tmp_path, f"good{i}.py", SEEDED) for i in range(5)]
    results = lint_files([str(p) for p in paths], Config(), jobs=2)
    assert len(submitted) == 5
    assert [r.error for r in results] == [None] * 5
    assert [[d.code for d in r.diagnostics] for r in results] == [["JIT201"]] * 5
