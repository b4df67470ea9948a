"""Lint fixtures: every `# expect: CODE` line must produce exactly those codes,
every other line nothing; files named ok_* must stay clean."""
import os
import re

import pytest

from jitlint.config import Config
from jitlint.engine import lint_source

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "lint")
EXPECT = re.compile(r"#\s*expect:\s*([A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)", re.IGNORECASE)
FILES = sorted(f for f in os.listdir(HERE) if f.endswith(".py"))


def expected(source):
    out = set()
    for lineno, line in enumerate(source.splitlines(), 1):
        m = EXPECT.search(line)
        if m:
            out.update((lineno, c.strip().upper()) for c in m.group(1).split(","))
    return out


@pytest.mark.parametrize("name", FILES)
def test_fixture(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as fh:
        source = fh.read()
    result = lint_source(source, name, Config())
    assert result.error is None, result.error
    got = {(d.line, d.code) for d in result.diagnostics}
    want = expected(source)
    if name.startswith("ok_"):
        assert not want, "ok_ fixtures must not expect findings"
    else:
        assert want, "a fixture must expect at least one finding"
    missing = sorted(want - got)
    extra = sorted(got - want)
    detail = "\n".join(f"{d.line}:{d.column} {d.code} {d.message}" for d in result.diagnostics)
    assert not missing and not extra, f"missing={missing} extra={extra}\n{detail}"


def test_fixture_files_exist():
    assert any(f.startswith("ok_") for f in FILES)
    assert len(FILES) >= 8
