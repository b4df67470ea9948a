"""`[tool.jitlint]` in pyproject.toml and `[jitlint]` in setup.cfg: every key, precedence, errors."""
from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from frontend_support import HAZARDS, SEEDED, console_script, run_cli, run_process, write
from jitlint.config import Config, ConfigError, find_config, from_mapping

HAZARD_CODES = ["JIT103", "JIT201", "JIT202", "JIT101", "JIT203", "JIT203"]
CUSTOM_JIT = SEEDED.replace("import jax", "import mylib").replace("@jax.jit", "@mylib.compiled")

#: each key's value, as TOML and as setup.cfg text
SETTINGS: Dict[str, Dict[str, str]] = {
    "select": {"toml": 'select = ["JIT2"]', "cfg": "select = JIT2"},
    "ignore": {"toml": 'ignore = ["JIT203", "JIT1"]', "cfg": "ignore = JIT203, JIT1"},
    "per-file-ignores": {"toml": '[tool.jitlint.per-file-ignores]\n"hazards.py" = ["JIT2"]',
                         "cfg": "per-file-ignores =\n    hazards.py: JIT2\n    other/*.py: JIT1"},
    "extend-jit-decorators": {"toml": 'extend-jit-decorators = ["mylib.compiled"]',
                              "cfg": "extend-jit-decorators = mylib.compiled"},
    "exclude": {"toml": 'exclude = ["generated"]', "cfg": "exclude = generated"},
    "extend-exclude": {"toml": 'extend-exclude = ["legacy_*.py"]', "cfg": "extend-exclude =\n    legacy_*.py"},
}


def write_config(folder: Path, kind: str, body: str) -> Path:
    if kind == "toml":
        return write(folder, "pyproject.toml", f"[project]\nname = 'demo'\n\n[tool.jitlint]\n{body}\n")
    return write(folder, "setup.cfg", f"[metadata]\nname = demo\n\n[jitlint]\n{body}\n")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """hazards.py, a custom-jit module, generated/ and legacy_*.py files, each with findings."""
    write(tmp_path, "hazards.py", HAZARDS.read_text(encoding="utf-8"))
    write(tmp_path, "custom.py", CUSTOM_JIT)
    write(tmp_path, "generated/model.py", SEEDED)
    write(tmp_path, "legacy_model.py", SEEDED)
    return tmp_path


def codes_in(capsys, project: Path, *options: str) -> Dict[str, List[str]]:
    report = run_cli(capsys, "check", "--format", "json", *options, str(project))
    assert report.status in (0, 1), report.err
    out: Dict[str, List[str]] = {}
    for item in report.json():
        out.setdefault(Path(item["path"]).relative_to(project).as_posix(), []).append(item["code"])
    return out


UNCONFIGURED = {"hazards.py": HAZARD_CODES, "generated/model.py": ["JIT201"], "legacy_model.py": ["JIT201"]}

EXPECTED = {
    "select": {"hazards.py": ["JIT201", "JIT202", "JIT203", "JIT203"], "generated/model.py": ["JIT201"],
               "legacy_model.py": ["JIT201"]},
    "ignore": {"hazards.py": ["JIT201", "JIT202"], "generated/model.py": ["JIT201"],
               "legacy_model.py": ["JIT201"]},
    "per-file-ignores": {"hazards.py": ["JIT103", "JIT101"], "generated/model.py": ["JIT201"],
                         "legacy_model.py": ["JIT201"]},
    "extend-jit-decorators": {**UNCONFIGURED, "custom.py": ["JIT201"]},
    "exclude": {"hazards.py": HAZARD_CODES, "legacy_model.py": ["JIT201"]},
    "extend-exclude": {"hazards.py": HAZARD_CODES, "generated/model.py": ["JIT201"]},
}


def test_without_configuration_everything_is_found(project, capsys):
    assert codes_in(capsys, project) == UNCONFIGURED


@pytest.mark.parametrize("kind", ["toml", "cfg"])
@pytest.mark.parametrize("key", list(SETTINGS))
def test_each_key_from_each_file(project, capsys, kind, key):
    write_config(project, kind, SETTINGS[key][kind])
    assert codes_in(capsys, project) == EXPECTED[key]


@pytest.mark.parametrize("kind", ["toml", "cfg"])
def test_configuration_is_found_from_a_subfolder(project, capsys, kind):
    write_config(project, kind, SETTINGS["select"][kind])
    report = run_cli(capsys, "check", "--format", "json", str(project / "generated"))
    assert [d["code"] for d in report.json()] == ["JIT201"]
    write_config(project, kind, 'select = ["JIT1"]' if kind == "toml" else "select = JIT1")
    assert run_cli(capsys, "check", str(project / "generated")).out == "All checks passed.\n"


def test_pyproject_toml_wins_over_setup_cfg_in_the_same_folder(project, capsys):
    write_config(project, "toml", 'select = ["JIT1"]')
    write_config(project, "cfg", "select = JIT2")
    assert codes_in(capsys, project) == {"hazards.py": ["JIT103", "JIT101"]}


def test_tox_ini_jitlint_section_is_read(project, capsys):
    write(project, "tox.ini", "[tox]\nenvlist = py311\n\n[jitlint]\nselect = JIT2\nignore = JIT203\n")
    assert codes_in(capsys, project) == {"hazards.py": ["JIT201", "JIT202"], "generated/model.py": ["JIT201"],
                                         "legacy_model.py": ["JIT201"]}


def test_pyproject_without_a_jitlint_section_is_skipped(project, capsys):
    write(project, "pyproject.toml", "[project]\nname = 'demo'\n")
    write_config(project, "cfg", "select = JIT1")
    assert codes_in(capsys, project) == {"hazards.py": ["JIT103", "JIT101"]}


def test_underscore_spelling_of_keys_is_accepted(project, capsys):
    write_config(project, "toml", '[tool.jitlint.per_file_ignores]\n"hazards.py" = ["JIT2"]')
    assert codes_in(capsys, project) == EXPECTED["per-file-ignores"]


def test_per_file_ignores_globs_are_relative_to_the_config_file(project, capsys):
    write_config(project, "toml", '[tool.jitlint.per-file-ignores]\n"generated/*" = ["JIT201"]')
    assert codes_in(capsys, project) == {key: value for key, value in UNCONFIGURED.items()
                                         if key != "generated/model.py"}


# --- precedence of the command line --------------------------------------------------------------

def test_cli_select_replaces_config_select(project, capsys):
    write_config(project, "toml", 'select = ["JIT2"]')
    assert codes_in(capsys, project, "--select", "JIT103") == {"hazards.py": ["JIT103"]}


def test_cli_select_overrides_config_ignore(project, capsys):
    write_config(project, "toml", 'ignore = ["JIT202"]')
    assert codes_in(capsys, project, "--select", "JIT202") == {"hazards.py": ["JIT202"]}


def test_cli_ignore_adds_to_config_ignore(project, capsys):
    write_config(project, "cfg", "ignore = JIT1")
    assert codes_in(capsys, project, "--ignore", "JIT203,JIT201") == {"hazards.py": ["JIT202"]}


def test_per_file_ignores_still_apply_with_cli_select(project, capsys):
    write_config(project, "toml", '[tool.jitlint.per-file-ignores]\n"legacy_*.py" = ["JIT201"]')
    assert codes_in(capsys, project, "--select", "JIT201") == {"hazards.py": ["JIT201"],
                                                               "generated/model.py": ["JIT201"]}


def test_cli_exclude_replaces_config_exclude_and_extend_exclude_adds(project, capsys):
    write_config(project, "toml", 'exclude = ["generated"]')
    assert codes_in(capsys, project, "--exclude", "legacy_*") == {
        "hazards.py": HAZARD_CODES, "generated/model.py": ["JIT201"]}
    assert codes_in(capsys, project, "--extend-exclude", "legacy_*") == {"hazards.py": HAZARD_CODES}


def test_cli_extend_jit_decorators_adds_to_config(project, capsys):
    write_config(project, "toml", 'extend-jit-decorators = ["other.wrap"]')
    assert "custom.py" not in codes_in(capsys, project)
    assert codes_in(capsys, project, "--extend-jit-decorators", "mylib.compiled")["custom.py"] == ["JIT201"]


def test_isolated_ignores_configuration(project, capsys):
    write_config(project, "toml", 'select = ["JIT1"]')
    assert codes_in(capsys, project, "--isolated") == UNCONFIGURED


def test_explicit_config_file(project, tmp_path_factory, capsys):
    elsewhere = tmp_path_factory.mktemp("settings")
    config = write_config(elsewhere, "cfg", "select = JIT202")
    write_config(project, "toml", 'select = ["JIT1"]')
    assert codes_in(capsys, project, "--config", str(config)) == {"hazards.py": ["JIT202"]}


@pytest.mark.parametrize("name, report", [
    ("legacy_model.py", ""),
    ("model.py", "{path}:5:8: JIT201 Python `if` on traced value `x > 0`\n"),
])
def test_stdin_filename_finds_the_configuration_and_per_file_ignores(project, capsys, monkeypatch, name, report):
    write_config(project, "toml", '[tool.jitlint.per-file-ignores]\n"legacy_*.py" = ["JIT201"]')
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SEEDED.encode()), encoding="utf-8"))
    outcome = run_cli(capsys, "check", "-q", "--no-reason", "-", "--stdin-filename", str(project / name))
    assert outcome.out == report.format(path=project / name)


# --- errors ---------------------------------------------------------------------------------------

BAD_CONFIGS = [
    ("pyproject.toml", "[tool.jitlint]\nselect = [\"JIT2\"\n", "invalid TOML"),
    ("pyproject.toml", "[tool.jitlint]\nselct = [\"JIT2\"]\n", "unknown jitlint option `selct`"),
    ("pyproject.toml", "[tool.jitlint]\nselect = 3\n", "`select` must be a list of strings, not int: 3"),
    ("pyproject.toml", "[tool.jitlint]\nignore = [\"JIT999\"]\n", "unknown rule code or prefix in `ignore`: JIT999"),
    ("pyproject.toml", "[tool.jitlint]\nper-file-ignores = [\"x.py\"]\n",
     "`per-file-ignores` must be a table of glob = [codes], not list"),
    ("pyproject.toml", "[tool.jitlint.per-file-ignores]\n\"x.py\" = [\"E501\"]\n",
     "unknown rule code or prefix in `per-file-ignores`: E501"),
    ("pyproject.toml", "[tool]\njitlint = 5\n", "the jitlint section must be a table"),
    ("setup.cfg", "[jitlint]\nselect = JIT2\nselect = JIT1\n", "invalid INI"),
    ("setup.cfg", "[jitlint]\nextend_jitdecorators = a.b\n", "unknown jitlint option `extend_jitdecorators`"),
    ("setup.cfg", "[jitlint]\nper-file-ignores =\n    tests JIT201\n", "expected `glob: codes`"),
    ("setup.cfg", "no section header\n", "invalid INI"),
]


@pytest.mark.parametrize("name, text, message", BAD_CONFIGS)
def test_bad_configuration_is_a_clear_error_with_exit_2(project, capsys, name, text, message):
    config = write(project, name, text)
    outcome = run_cli(capsys, "check", str(project))
    assert outcome.status == 2
    assert outcome.out == ""
    assert outcome.err.startswith(f"jitlint: error: {config}: ")
    assert message in outcome.err
    assert outcome.err.count("\n") == 1 and "Traceback" not in outcome.err


def test_config_file_that_is_not_utf8_is_a_clear_error(project, capsys):
    (project / "setup.cfg").write_bytes(b"[jitlint]\nselect = JIT\xff\n")
    outcome = run_cli(capsys, "check", str(project))
    assert (outcome.status, outcome.err) == (2, f"jitlint: error: {project / 'setup.cfg'}: not UTF-8: "
                                                "invalid start byte\n")


@pytest.mark.parametrize("setup", ["missing", "no-section"])
def test_explicit_config_must_exist_and_have_a_section(project, capsys, setup):
    config = project / "settings.cfg"
    if setup == "no-section":
        write(project, "settings.cfg", "[flake8]\nmax-line-length = 100\n")
        message = f"{config}: no [tool.jitlint] or [jitlint] section"
    else:
        message = f"{config}: cannot read: No such file or directory"
    outcome = run_cli(capsys, "check", "--config", str(config), str(project))
    assert (outcome.status, outcome.err) == (2, f"jitlint: error: {message}\n")


def test_console_script_reports_bad_config_without_traceback(project):
    write(project, "pyproject.toml", "[tool.jitlint]\nselect = 3\n")
    outcome = run_process([console_script(), "check", "."], cwd=project)
    assert outcome.status == 2
    assert outcome.err == f"jitlint: error: {project / 'pyproject.toml'}: `select` must be a list of strings, " \
                          "not int: 3\n"


# --- the Config object ---------------------------------------------------------------------------

def test_from_mapping_reads_every_key():
    config = from_mapping({"select": ["JIT2"], "ignore": "JIT203", "per-file-ignores": {"t/*": ["JIT1"]},
                           "extend-jit-decorators": ["a.b"], "exclude": ["gen"], "extend-exclude": ["old"]}, "x")
    assert config == Config(select=("JIT2",), ignore=("JIT203",), per_file_ignores=(("t/*", ("JIT1",)),),
                            extend_jit_decorators=("a.b",), exclude=("gen",), extend_exclude=("old",), source="x")


def test_from_mapping_rejects_unknown_keys():
    with pytest.raises(ConfigError, match="unknown jitlint option `fix`"):
        from_mapping({"fix": True}, "pyproject.toml")


def test_find_config_walks_up_to_the_nearest_section(tmp_path):
    write(tmp_path, "setup.cfg", "[jitlint]\nselect = JIT1\n")
    write(tmp_path, "pkg/sub/setup.cfg", "[metadata]\nname = x\n")
    start = write(tmp_path, "pkg/sub/mod.py", "")
    assert find_config(str(start)).select == ("JIT1",)
    assert find_config(str(start)).source == str(tmp_path / "setup.cfg")
