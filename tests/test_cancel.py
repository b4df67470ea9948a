"""The cancellation hook (jitlint.analysis.cancel): how the editor server stops an analysis that a newer
text of the document has made useless, without changing what ``jitlint check`` finds."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import List

import pytest

from frontend_support import HAZARDS, HAZARDS_FINDINGS
from jitlint.analysis.cancel import checking, checkpoint
from jitlint.config import Config
from jitlint.runner import lint_files
from synthetic import jitted_functions

FUNCTIONS = 30


class Stop(BaseException):
    pass


@pytest.fixture
def files(tmp_path: Path) -> List[str]:
    (tmp_path / "hazards.py").write_text(HAZARDS.read_text())
    (tmp_path / "dense.py").write_text(jitted_functions(FUNCTIONS))
    return [str(tmp_path / "hazards.py"), str(tmp_path / "dense.py")]


def cache_entries(folder: Path) -> List[str]:
    """The results stored in a cache folder (not its bookkeeping files)."""
    return [name for _, _, names in os.walk(folder) for name in names if name.endswith(".json")]


def test_checkpoints_do_nothing_without_a_hook_and_a_quiet_hook_changes_nothing(files):
    plain = lint_files(files, Config())
    assert [(d.line, d.column, d.code) for d in plain[0].diagnostics] == HAZARDS_FINDINGS
    assert len(plain[1].diagnostics) == FUNCTIONS
    calls: List[int] = []
    with checking(lambda: calls.append(1)):
        hooked = lint_files(files, Config())
    assert [r.diagnostics for r in hooked] == [r.diagnostics for r in plain]  # fixes included
    assert all(d.fix is not None for d in hooked[1].diagnostics)
    assert len(calls) > FUNCTIONS  # the analysis did pass its checkpoints (one per function at least)


def test_a_hook_that_raises_stops_the_analysis_and_leaves_no_result(files, tmp_path):
    cache = tmp_path / "cache"
    calls: List[int] = []
    with checking(lambda: calls.append(1)):
        expected = lint_files(files, Config(), cache_dir=str(cache / "counted"))
    total = len(calls)
    for stop_at in (1, total // 2, total):
        seen: List[int] = []

        def hook() -> None:
            seen.append(1)
            if len(seen) == stop_at:
                raise Stop()

        with pytest.raises(Stop):
            with checking(hook):
                lint_files(files, Config(), cache_dir=str(cache / "stopped"), build_fixes=stop_at % 2 == 0)
        assert len(seen) == stop_at  # no checkpoint after the one that raised: nothing ran on
        assert cache_entries(cache / "stopped") == []  # nothing half-done was kept
    again = lint_files(files, Config(), cache_dir=str(cache / "stopped"))
    assert [r.diagnostics for r in again] == [r.diagnostics for r in expected]
    assert cache_entries(cache / "stopped")


def test_the_hook_belongs_to_the_thread_that_set_it(files):
    calls: List[str] = []
    outcome: List[object] = []
    with checking(lambda: calls.append(threading.current_thread().name)):
        checkpoint()
        other = threading.Thread(target=lambda: outcome.append(lint_files(files[1:], Config())), name="other")
        other.start()
        other.join()
    checkpoint()
    assert calls == [threading.current_thread().name]
    assert len(outcome[0][0].diagnostics) == FUNCTIONS
