"""The documentation: generated pages are current, every rule has its page, mkdocs builds it strictly."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from frontend_support import REPO
from jitlint import docs
from jitlint.registry import RULES_BY_CODE


def test_generated_pages_are_current():
    """Rule pages, rule index, the regions of docs/index.md and mkdocs.yml, and the captured output of
    real runs on examples/ are what `python -m jitlint.docs` writes today."""
    stale = docs.stale_pages(REPO)
    assert not stale, ("stale documentation, run `python -m jitlint.docs`: "
                       + ", ".join(str(p.relative_to(REPO)) for p in stale))


def test_every_rule_has_a_page_made_from_its_docstring():
    for code, rule in RULES_BY_CODE.items():
        page = (REPO / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
        assert page.startswith(f"# {code}: {rule.name}\n")
        for heading in ("## What it does", "## Why is this bad?", "## Example", "## Fix safety", "## References"):
            assert heading in page
        what = docs.rule_sections(rule)["What it does"]
        assert what in page
        assert ("**Fix:** none" in page) is (code not in docs.FIXABLE_CODES)


def test_rule_summaries_are_whole_sentences():
    for rule in RULES_BY_CODE.values():
        summary = docs.rule_summary(rule)
        assert summary.startswith("Flags ") and summary.endswith(".") and summary.count("`") % 2 == 0


def test_check_mode_names_stale_and_orphaned_pages(tmp_path, capsys):
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    assert docs.main(["--check", "--repo", str(tmp_path), "--no-output"]) == 0
    page = tmp_path / "docs" / "rules" / "JIT201.md"
    page.write_text(page.read_text().replace("## What it does", "## What it did"))
    (tmp_path / "docs" / "rules" / "JIT999.md").write_text("# gone\n")
    capsys.readouterr()
    assert docs.main(["--check", "--repo", str(tmp_path), "--no-output"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "stale: docs/rules/JIT201.md (run `python -m jitlint.docs`)",
        "stale: docs/rules/JIT999.md (run `python -m jitlint.docs`)"]
    assert docs.main(["--repo", str(tmp_path), "--no-output"]) == 0
    assert page.read_text() == (REPO / "docs" / "rules" / "JIT201.md").read_text()
    assert not (tmp_path / "docs" / "rules" / "JIT999.md").exists()


def test_fill_regions_replaces_only_the_marked_bodies():
    text = "a\n<!-- generated:x (note) -->\nold\n<!-- /generated -->\nb\n  # generated:y\n  old\n  # /generated\n"
    assert docs.fill_regions(text, {"x": "new\n", "y": "  new\n"}) == (
        "a\n<!-- generated:x (note) -->\nnew\n<!-- /generated -->\nb\n  # generated:y\n  new\n  # /generated\n")


def test_terminal_html_keeps_the_text_and_colours_it():
    html = docs.terminal_html("\x1b[1;31mJIT201\x1b[0m x < 1")
    assert '<span style="font-weight:bold;color:#ff6b6b">JIT201</span> x &lt; 1' in html


def test_mkdocs_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is in the test extra")
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                          cwd=str(REPO), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for code in RULES_BY_CODE:
        assert (site / "rules" / code / "index.html").is_file()
    assert (site / "img" / "pipeline.svg").is_file()
    for page in ("usage", "configuration", "fixes", "verifier", "integrations", "output"):
        assert (site / page / "index.html").is_file()
    config = (REPO / "mkdocs.yml").read_text()
    assert "site_url" not in config  # there is no published site to name
    # offline: nothing fetched from another host; code blocks coloured at build time by Pygments
    for page in site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r'<(script|link)[^>]*(src|href)="(https?:)?//', html), page
    usage = (site / "integrations" / "index.html").read_text(encoding="utf-8")
    assert '<div class="codehilite">' in usage and '<span class="k">' in usage
    assert (site / "css" / "pygments.css").is_file()


def test_the_summary_line_quoted_in_readme_and_usage_is_what_jitlint_prints(capsys, monkeypatch):
    from frontend_support import run_cli

    monkeypatch.chdir(REPO)
    printed = run_cli(capsys, "check", "--isolated", "examples/").out.splitlines()[-1]
    for page in (REPO / "README.md", REPO / "docs" / "usage.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        quoted = re.findall(r"`(Found [^`]*)`", text)
        assert quoted == [printed], f"{page.name} quotes a summary line jitlint no longer prints"


def test_every_fixable_rule_states_its_fix_safety_on_its_own_page():
    """The page says which applicabilities the rule's fixes have (from its `Fix safety` section), in its
    header and in the rules table; what the fixes really are on the fixtures is among what it says."""
    from jitlint.config import Config
    from jitlint.engine import lint_source

    seen = {}
    fixtures = sorted((REPO / "tests" / "fixtures" / "fix").glob("*.in.py")) + \
        sorted((REPO / "tests" / "fixtures" / "lint").glob("*.py"))
    for path in fixtures:
        try:
            source = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # the fixtures of other encodings: no fix of their own
        for diag in lint_source(source, str(path), Config(select=("JIT",))).diagnostics:
            if diag.fix is not None:
                seen.setdefault(diag.code, set()).add(diag.fix.applicability.value)
    named = {"safe": "SAFE", "unsafe": "UNSAFE", "display-only": "display-only"}
    index = (REPO / "docs" / "rules" / "index.md").read_text(encoding="utf-8")
    for code in docs.FIXABLE_CODES:
        rule = RULES_BY_CODE[code]
        stated = docs.fix_safety(rule)
        assert stated, f"{code}: its Fix safety section names no applicability"
        assert not docs.rule_sections(rule)["Fix safety"].startswith("See "), code
        assert {named[value] for value in seen.get(code, ())} <= set(stated), (code, seen.get(code), stated)
        page = (REPO / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
        header = next(line for line in page.splitlines() if line.startswith("**Fix:**"))
        row = next(line for line in index.splitlines() if line.startswith(f"| [{code}]"))
        assert all(word in header and word in row.split(" | ")[3] for word in stated), (header, row)
    assert {"JIT103", "JIT201", "JIT302", "JIT401", "JIT502"} <= set(seen)  # the fixtures do exercise them


def test_rules_table_shows_the_real_default_and_unbroken_names():
    index = (REPO / "docs" / "rules" / "index.md").read_text(encoding="utf-8")
    for code, rule in RULES_BY_CODE.items():
        row = next(line for line in index.splitlines() if line.startswith(f"| [{code}]"))
        cells = row.strip("|").split(" | ")
        assert cells[1].strip() == f'<code style="white-space: nowrap">{rule.name}</code>'
        assert cells[4].strip() == ("yes" if rule.default_enabled else f"no: `--extend-select {code}`")
    assert not RULES_BY_CODE["JIT900"].default_enabled
