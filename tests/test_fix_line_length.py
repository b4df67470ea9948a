"""The line length fixes wrap to: read from the project (jitlint, else flake8, else ruff, else 88),
and rewritten calls broken inside their brackets past it."""
import textwrap

import pytest

import jitlint.fixes
from jitlint.config import Config, ConfigError, from_mapping, line_length_for, load_file
from jitlint.fixes import wrapping_at
from jitlint.fixing import fix_source


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


# ------------------------------------------------------------------ configuration


def test_jitlint_key_wins(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jitlint]\nline-length = 100\n[tool.ruff]\nline-length = 70\n")
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 120\n")
    config = load_file(str(tmp_path / "pyproject.toml"))
    assert config.line_length == 100 and line_length_for(config) == 100


@pytest.mark.parametrize("name", ["setup.cfg", "tox.ini", ".flake8"])
def test_flake8_max_line_length(tmp_path, name):
    (tmp_path / name).write_text("[flake8]\nmax-line-length = 119\n")
    (tmp_path / "ruff.toml").write_text("line-length = 70\n")
    assert line_length_for(Config(), str(tmp_path / "src.py")) == 119


@pytest.mark.parametrize("name, text", [
    ("pyproject.toml", "[tool.ruff]\nline-length = 99\n"),
    ("ruff.toml", "line-length = 99\n"),
    (".ruff.toml", "line-length = 99\n"),
])
def test_ruff_line_length(tmp_path, name, text):
    (tmp_path / name).write_text(text)
    assert line_length_for(Config(), str(tmp_path)) == 99


def test_found_walking_up_from_the_config_file(tmp_path):
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 101\n")
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[tool.jitlint]\nselect = ['JIT']\n")
    assert line_length_for(load_file(str(sub / "pyproject.toml"))) == 101


def test_default_and_unreadable_values(tmp_path):
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = wide\n")
    (tmp_path / "ruff.toml").write_text("line-length = [\n")
    assert line_length_for(Config(), str(tmp_path)) == 88
    assert line_length_for(Config()) == 88


@pytest.mark.parametrize("value", [0, -3, "x", True, 1.5])
def test_bad_jitlint_value_is_a_config_error(value):
    with pytest.raises(ConfigError, match="`line-length` must be a whole number above 0"):
        from_mapping({"line-length": value}, "pyproject.toml")


def test_setup_cfg_spelling():
    assert from_mapping({"line_length": "120"}, "setup.cfg").line_length == 120


# ------------------------------------------------------------------ wrapping

BRANCH = """\
import jax
import jax.numpy as jnp


@jax.jit
def f(temperature, threshold):
    if temperature > threshold:
        out = temperature * 2.0
    else:
        out = threshold - temperature
    return out
"""


def fixed(source: str, width=None) -> str:
    with wrapping_at(width):
        result = fix_source(source, "case.py", Config(), unsafe=True)
    assert result.error is None and result.converged
    with wrapping_at(width):
        assert fix_source(result.fixed, "case.py", Config(), unsafe=True).fixed == result.fixed
    compile(result.fixed, "case.py", "exec")
    return result.fixed


def test_fits_on_one_line_at_88():
    assert "    out = jnp.where(temperature > threshold, temperature * 2.0, threshold - temperature)\n" \
        in fixed(BRANCH)


def test_arguments_on_a_line_of_their_own_when_they_fit():
    out = fixed(BRANCH, 80)
    assert ("    out = jnp.where(\n        temperature > threshold, temperature * 2.0, threshold - temperature\n"
            "    )\n") in out


def test_one_argument_a_line_when_they_do_not():
    out = fixed(BRANCH, 60)
    assert ("    out = jnp.where(\n        temperature > threshold,\n        temperature * 2.0,\n"
            "        threshold - temperature,\n    )\n") in out
    assert max(len(line) for line in out.splitlines()) <= 60


def test_tabs_and_crlf_are_kept():
    source = BRANCH.replace("    ", "\t").replace("\n", "\r\n")
    out = fixed(source, 60)
    assert "\tout = jnp.where(\r\n\t\ttemperature > threshold,\r\n" in out and "\n" not in out.replace("\r\n", "")


def test_a_long_line_the_fix_only_renames_is_left_as_it_was():
    source = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp
        import numpy as np


        @jax.jit
        def f(x):
            return np.append(x, x[:1], axis=0), np.tile(x, x.shape[0]), np.sort(x, axis=-1, stable=True)
        """)
    out = fixed(source)
    assert "    return jnp.append(x, x[:1], axis=0), jnp.tile(x, x.shape[0]), jnp.sort(x, axis=-1, stable=True)\n" \
        in out


def test_user_code_inside_is_not_reformatted():
    source = BRANCH.replace("temperature * 2.0", "jnp.clip(temperature * 2.0, threshold, threshold + 100.0)")
    out = fixed(source, 60)
    assert "        jnp.clip(temperature * 2.0, threshold, threshold + 100.0),\n" in out


def test_decorator_written_by_the_static_fix_is_wrapped():
    source = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp


        @jax.jit
        def f(x, use_the_extremely_long_normalisation_flag, and_another_rather_long_flag):
            if use_the_extremely_long_normalisation_flag and and_another_rather_long_flag:
                x = x / 2
            return x
        """)
    out = fixed(source)
    # the tuple of names, still too long on the argument's line, is broken inside its parentheses
    assert ('@partial(\n    jax.jit,\n    static_argnames=(\n'
            '        "use_the_extremely_long_normalisation_flag", "and_another_rather_long_flag"\n    ),\n)\n') in out
    assert max(len(line) for line in out.splitlines()) <= 88


def test_a_call_that_gains_an_argument_is_wrapped():
    """The JIT101 fix passes the global at every call: a call it made too long is broken like any
    call the fix wrote (it was once left at 96 characters)."""
    source = textwrap.dedent("""\
        import jax

        TEMPERATURE_OF_THE_REFERENCE_STATE = 3.0


        def set_reference(t):
            global TEMPERATURE_OF_THE_REFERENCE_STATE
            TEMPERATURE_OF_THE_REFERENCE_STATE = t


        @jax.jit
        def _scaled(x, y):
            return x * TEMPERATURE_OF_THE_REFERENCE_STATE + y


        def run(first_input_array, second_input_array):
            return _scaled(first_input_array * 2.0, second_input_array - first_input_array)
        """)
    out = fixed(source)
    assert ("    return _scaled(\n        first_input_array * 2.0,\n        second_input_array - first_input_array,\n"
            "        temperature_of_the_reference_state=TEMPERATURE_OF_THE_REFERENCE_STATE,\n    )\n") in out
    assert max(len(line) for line in out.splitlines()) <= 88, out


def test_an_array_conversion_is_wrapped():
    source = textwrap.dedent("""\
        import jax
        import jax.numpy as jnp


        @jax.jit
        def extremes(values_of_the_first_kind):
            return jnp.array([float(values_of_the_first_kind.min()), float(values_of_the_first_kind.max())])
        """)
    out = fixed(source)
    assert ("    return jnp.array(\n        [\n            jnp.asarray(values_of_the_first_kind.min(), dtype=float),\n"
            "            jnp.asarray(values_of_the_first_kind.max(), dtype=float),\n        ],\n    )\n") in out
    assert max(len(line) for line in out.splitlines()) <= 88, out


WRAPPER_GROWN_BY_ROUNDS = '''\
import jax
import jax.numpy as jnp

LIMITS = {"resp_high": 24.0, "spo2_low": 92.0, "hr_high": 110.0, "temp_high": 38.5}


@jax.jit
def warning_score(vitals):
    limits = jnp.array([LIMITS["resp_high"], LIMITS["spo2_low"], LIMITS["hr_high"], LIMITS["temp_high"]])
    return jnp.sum(vitals > limits)


def set_limit(k, v):
    LIMITS[k] = v


def run(v):
    set_limit("hr_high", 100.0)
    return warning_score(v)
'''


def test_a_call_that_later_rounds_add_arguments_to_is_laid_out_again():
    """Each round passes one more global read to the jitted function: the wrapper's call gets an argument
    per round, and when its arguments no longer fit on the line between its brackets, it is laid out one
    argument a line (not a break left after the argument that was last, nor a line past the limit)."""
    out = fixed(WRAPPER_GROWN_BY_ROUNDS)
    assert ("    return _warning_score(\n        vitals,\n        resp_high=LIMITS[\"resp_high\"],\n"
            "        spo2_low=LIMITS[\"spo2_low\"],\n        hr_high=LIMITS[\"hr_high\"],\n"
            "        temp_high=LIMITS[\"temp_high\"],\n    )\n") in out, out
    assert all(line == line.rstrip() for line in out.splitlines())
    assert max(len(line) for line in out.splitlines()) <= 100  # (the input's own long line, renamed)
