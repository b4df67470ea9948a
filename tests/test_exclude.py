"""Which files a check reads: .gitignore when a folder is walked (the same files git lists), and
``--force-exclude`` for the paths named on the command line (what the pre-commit hooks pass)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from frontend_support import run_cli
from jitlint.config import Config, ConfigError, from_mapping
from jitlint.files import iter_files, parse_gitignore, walk_python_files

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n    return x\n"

#: .gitignore files (by folder) and files: every kind of pattern the walk understands
GITIGNORES = {
    ".gitignore": "\n".join([
        "# a comment, then a blank line",
        "",
        "*.gen.py",
        "/anchored.py",
        "build_out/",
        "docs/**/skip.py",
        "**/deep/x.py",
        "logs/*",
        "!logs/keep.py",
        "data?.py",
        "[ab]c.py",
        "tree/**",
        "!tree/sub/back.py",
        "\\#hash.py",
        "spaced.py   ",
        "only_folder/",
        "mid/dle.py",
    ]) + "\n",
    "pkg/.gitignore": "local.py\n/only_here.py\n!important.gen.py\n",
    ".git/info/exclude": "by_info_exclude.py\n",
}
FILES = [
    "keep.py", "x.gen.py", "pkg/important.gen.py", "pkg/other.gen.py", "anchored.py", "pkg/anchored.py",
    "build_out/a.py", "docs/skip.py", "docs/a/b/skip.py", "docs/a/keep.py", "deep/x.py", "q/deep/x.py",
    "q/deep/y.py", "logs/a.py", "logs/keep.py", "data1.py", "data12.py", "ac.py", "cc.py", "bc.py",
    "tree/a.py", "tree/sub/back.py", "#hash.py", "spaced.py", "only_folder.py", "only_folder/in.py",
    "mid/dle.py", "x/mid/dle.py", "pkg/local.py", "pkg/sub/local.py", "pkg/only_here.py",
    "pkg/sub/only_here.py", "by_info_exclude.py", "pkg/by_info_exclude.py",
]


def _tree(root: Path, files: List[str], text: str = BAD) -> None:
    for name in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _git(*argv: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(cwd), XDG_CONFIG_HOME=str(cwd / ".no-config"), GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", *argv], cwd=str(cwd), env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def work_tree(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    root = tmp_path / "repo"
    root.mkdir()
    _git("init", "-q", ".", cwd=root)
    _tree(root, FILES)
    for name, text in GITIGNORES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_walk_reads_the_files_git_does_not_ignore(work_tree):
    listed = _git("ls-files", "--others", "--exclude-standard", "-z", cwd=work_tree).split("\0")
    git_sees = sorted(p for p in listed if p.endswith(".py"))
    walked = sorted(os.path.relpath(p, work_tree).replace(os.sep, "/")
                    for p in walk_python_files(str(work_tree), Config()))
    assert walked == git_sees
    assert "keep.py" in walked and "x.gen.py" not in walked  # the test means something


def test_a_walk_of_a_subfolder_reads_the_gitignore_files_above_it(work_tree):
    walked = sorted(os.path.relpath(p, work_tree).replace(os.sep, "/")
                    for p in walk_python_files(str(work_tree / "pkg"), Config()))
    assert walked == ["pkg/anchored.py", "pkg/important.gen.py", "pkg/sub/only_here.py"]


def test_gitignore_can_be_turned_off(work_tree):
    walked = list(walk_python_files(str(work_tree), Config(respect_gitignore=False)))
    assert len(walked) == len(FILES)
    loaded = from_mapping({"respect-gitignore": False}, "pyproject.toml")
    assert loaded.respect_gitignore is False
    with pytest.raises(ConfigError, match="`respect-gitignore` must be true or false"):
        from_mapping({"respect-gitignore": "sometimes"}, "setup.cfg")


def test_outside_a_git_work_tree_no_gitignore_is_read(tmp_path):
    if any((parent / ".git").exists() for parent in tmp_path.parents):
        pytest.skip("the temporary folder is inside a git work tree")
    _tree(tmp_path, ["a.py", "b.py"])
    (tmp_path / ".gitignore").write_text("a.py\n")
    assert sorted(Path(p).name for p in walk_python_files(str(tmp_path), Config())) == ["a.py", "b.py"]


def test_a_named_file_is_checked_even_when_gitignore_ignores_it(work_tree, capsys, monkeypatch):
    monkeypatch.chdir(work_tree)
    outcome = run_cli(capsys, "check", "--isolated", "--no-cache", "--show-files", "x.gen.py", ".")
    assert outcome.out.splitlines()[0] == "x.gen.py"
    assert "logs/a.py" not in outcome.out


def test_negation_and_escapes_parse():
    (regex, negated, folders_only), = parse_gitignore("!build/\n")
    assert negated and folders_only and regex.match("build") and regex.match("a/build")
    (regex, negated, _), = parse_gitignore("\\!bang.py\n")
    assert not negated and regex.match("!bang.py")
    assert parse_gitignore("# only a comment\n\n   \n") == []


# ---------------------------------------------------------------------------------------- --force-exclude

@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "pyproject.toml").write_text('[tool.jitlint]\nexclude = ["train.py", "gen/*.py"]\n')
    _tree(tmp_path, ["src/train.py", "src/model.py", "gen/g.py", "build/b.py"])
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_named_files_are_checked_unless_force_exclude(project, capsys):
    named = ["src/train.py", "src/model.py", "gen/g.py", "build/b.py"]
    assert run_cli(capsys, "check", "--no-cache", "--show-files", *named).out.split() == named
    assert run_cli(capsys, "check", "--no-cache", "--show-files", "--force-exclude", *named).out.split() == [
        "src/model.py"]  # `train.py` by name, `gen/*.py` by path, `build` a default exclude


def test_force_exclude_reports_only_what_is_not_excluded(project, capsys):
    outcome = run_cli(capsys, "check", "--no-cache", "--force-exclude", "--no-reason", "src/train.py", "src/model.py")
    assert outcome.status == 1
    assert "src/model.py:6:5: JIT103" in outcome.out and "train.py" not in outcome.out
    assert run_cli(capsys, "check", "--no-cache", "--force-exclude", "src/train.py").status == 0


def test_force_exclude_from_the_configuration_and_a_folder_named(project, capsys):
    (project / "pyproject.toml").write_text('[tool.jitlint]\nexclude = ["train.py", "gen"]\nforce-exclude = true\n')
    assert run_cli(capsys, "check", "--no-cache", "--show-files", "gen", "src/train.py", "src").out.split() == [
        "src/model.py"]


def test_fix_with_force_exclude_leaves_an_excluded_file_alone(project, capsys):
    outcome = run_cli(capsys, "check", "--no-cache", "--fix", "--force-exclude", "src/train.py", "src/model.py")
    assert outcome.status == 0, outcome.out
    assert (project / "src" / "train.py").read_text() == BAD
    assert "jax.debug.print" in (project / "src" / "model.py").read_text()


def test_force_exclude_matches_below_the_current_folder_only(tmp_path, monkeypatch):
    """A default exclude (`build`) in the path above the current folder does not exclude everything."""
    inner = tmp_path / "build" / "project"
    _tree(inner, ["m.py"])
    monkeypatch.chdir(inner)
    config = Config(force_exclude=True)
    assert list(iter_files(["m.py", str(inner / "m.py"), "."], config)) == ["m.py"]
    assert config.is_force_excluded(str(inner / "build" / "x.py"))
