import os

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    """Every test gets its own jitlint results cache (never the repo's .jitlint_cache)."""
    monkeypatch.setenv("JITLINT_CACHE_DIR", str(tmp_path_factory.mktemp("jitlint-cache")))


@pytest.fixture(autouse=True)
def _no_forced_colour(monkeypatch):
    """Reports are compared as plain text: a FORCE_COLOR in the environment must not colour them."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
