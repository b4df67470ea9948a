"""Messages that say what really happens: JIT103 on a traced value formatted with a format spec."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jitlint.config import Config
from jitlint.engine import lint_source
from jitlint.rules.side_effects import FORMAT_SPEC_ERROR

FORMATTED = textwrap.dedent("""\
    import jax

    @jax.jit
    def step(loss):
        print(f"loss={loss:.3f}")
        return loss
""")


def jit103(source: str) -> list:
    result = lint_source(source, "step.py", Config(select=("JIT103",)))
    assert result.error is None
    return [d.message for d in result.diagnostics]


def test_format_spec_on_a_tracer_is_said_to_raise():
    assert jit103(FORMATTED) == [
        f'`print()` of `f"loss={{loss:.3f}}"` raises `{FORMAT_SPEC_ERROR}` while tracing: '
        "traced `loss` cannot take the format spec `:.3f`"]


@pytest.mark.parametrize("call", ['"loss={:.3f}".format(loss)', '"{0} {1:>8}".format(1, loss)',
                                  '"{v:e}".format(v=loss)'])
def test_str_format_with_a_spec_on_a_tracer_is_said_to_raise(call):
    [message] = jit103(FORMATTED.replace('f"loss={loss:.3f}"', call))
    assert FORMAT_SPEC_ERROR in message


@pytest.mark.parametrize("arg", ['f"loss={loss}"', 'f"loss={loss:}"', 'f"loss={loss!r:>20}"', "loss",
                                 '"loss={}".format(loss)'])
def test_without_a_spec_the_tracer_is_shown(arg):
    [message] = jit103(FORMATTED.replace('f"loss={loss:.3f}"', arg))
    assert message.endswith("runs once, at trace time, and shows a tracer instead of the value")


def test_under_vmap_alone_a_print_is_not_said_to_run_once():
    """vmap traces again on every call (jax 0.10.2: the print shows a BatchTracer each time)."""
    source = ("import jax\nimport jax.numpy as jnp\nimport logging\n\n\ndef show(x):\n    print(x)\n"
              "    logging.info(\"x=%s\", x)\n    return x\n\n\njax.vmap(show)(jnp.arange(3.0))\n")
    result = lint_source(source, "step.py", Config(select=("JIT103", "JIT104")))
    assert [d.message for d in result.diagnostics] == [
        "`print()` of traced `x` shows a tracer instead of the value",
        "`logging.info()` inside traced code records a tracer instead of the value"]
    jitted = lint_source(source.replace("jax.vmap(show)", "jax.jit(show)"), "step.py",
                         Config(select=("JIT103", "JIT104")))
    assert all("runs once, at trace time, and" in d.message for d in jitted.diagnostics) and len(jitted.diagnostics) == 2


def test_a_spec_on_a_static_value_beside_a_tracer_is_not_said_to_raise():
    [message] = jit103(FORMATTED.replace('f"loss={loss:.3f}"', 'f"{loss.ndim:>3} {loss}"'))
    assert "shows a tracer" in message


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
@pytest.mark.parametrize("arg", ['f"loss={loss:.3f}"', '"loss={:.3f}".format(loss)', 'f"{loss:>10}"'])
def test_the_message_quotes_what_jax_raises(tmp_path, arg):
    """Run the flagged code under jax.jit: the error it raises is the one the message names."""
    source = FORMATTED.replace('f"loss={loss:.3f}"', arg)
    [message] = jit103(source)
    quoted = re.search(r"raises `([^`]*)`", message).group(1)
    pattern = re.escape(quoted).replace(re.escape("...Tracer"), r"\w*Tracer")
    script = tmp_path / "step.py"
    script.write_text(source + textwrap.dedent("""
        import jax.numpy as jnp
        try:
            step(jnp.float32(1.5))
        except Exception as exc:
            print(f"{type(exc).__name__}: {exc}")
        else:
            print("no error")
    """), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    raised = proc.stdout.strip().splitlines()[-1]
    assert re.fullmatch(pattern, raised), (quoted, raised, proc.stderr[-2000:])


def jit303(source: str) -> list:
    result = lint_source(source, "step.py", Config(select=("JIT303",)))
    assert result.error is None
    return [d.message for d in result.diagnostics]


DATA = FORMATTED.replace('print(f"loss={loss:.3f}")', 'text = f"loss={loss:.3f}"')


@pytest.mark.parametrize("expr, error", [
    ('f"loss={loss:.3f}"', FORMAT_SPEC_ERROR), ('"{:>8}".format(loss)', FORMAT_SPEC_ERROR),
    ('format(loss, ".3f")', FORMAT_SPEC_ERROR), ('"%.3f" % loss', "ConcretizationTypeError"),
    ('"%s=%d" % ("loss", loss)', "TypeError: %d format: a real number is required, not ...Tracer"),
    ('"%(v)x" % {"v": loss}', "TypeError: %x format: an integer is required, not ...Tracer")])
def test_a_string_that_raises_is_never_said_to_show_a_tracer(expr, error):
    [message] = jit303(DATA.replace('f"loss={loss:.3f}"', expr))
    assert f"raises `{error}` while tracing" in message and "shows a tracer" not in message
    [printed] = jit103(FORMATTED.replace('f"loss={loss:.3f}"', expr))
    assert f"raises `{error}` while tracing" in printed


@pytest.mark.parametrize("expr", ['f"loss={loss}"', '"%s" % loss', '"%r" % (loss,)', 'str(loss)',
                                  'f"{loss!r:>30}"', 'format(loss)', '"%d" % loss.ndim'])
def test_a_string_that_formats_the_tracer_text_shows_a_tracer(expr):
    messages = jit303(DATA.replace('f"loss={loss:.3f}"', expr))
    assert messages == ([] if "ndim" in expr else [f"traced value formatted into a string: `{expr}` shows a "
                                                   "tracer, not its value"])


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")
def test_jit303_errors_are_what_jax_raises(tmp_path):
    """Each formatting JIT303 says raises is run under jax.jit, in one process: the quoted error is the one raised."""
    cases = ['f"{loss:.3f}"', '"{:>8}".format(loss)', 'format(loss, ".3f")', '"%.3f" % loss',
             '"%s=%d" % ("loss", loss)', '"%(v)x" % {"v": loss}', '"%c" % loss', '"%e" % loss']
    lines = ["import jax", "import jax.numpy as jnp", "", "", "def run(fn):", "    try:",
             "        jax.jit(fn)(jnp.float32(1.5))", "    except Exception as exc:",
             "        print(f'{type(exc).__name__}: {exc}'.splitlines()[0])", "    else:", "        print('no error')",
             ""]
    for i, expr in enumerate(cases):
        lines += ["", "", "@jax.jit", f"def step{i}(loss):", f"    text = {expr}", "    return loss", ""]
    source = "\n".join(lines)
    quoted = jit303(source)
    assert len(quoted) == len(cases)
    calls = "".join(f"run(step{i}.__wrapped__)\n" for i in range(len(cases)))
    script = tmp_path / "steps.py"
    script.write_text(source + "\n" + calls, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    raised = proc.stdout.strip().splitlines()
    assert len(raised) == len(cases), proc.stderr[-2000:]
    for message, line in zip(quoted, raised):
        error = re.search(r"raises `([^`]*)`", message).group(1)
        assert re.match(re.escape(error).replace(re.escape("...Tracer"), r"\w*Tracer"), line), (message, line)


ONE_PER_LINE = textwrap.dedent("""\
    import jax

    @jax.jit
    def f(x):
        a = float(x[0]) + x.item()
        b = (x.item() +
             float(x[0]))
        c = x.item(); d = float(x)
        return a, b, c, d
""")


def test_one_finding_per_code_per_line_as_docs_usage_says():
    """docs/usage.md: a rule reports a line once (the first problem on it); the line counts, not the statement."""
    result = lint_source(ONE_PER_LINE, "f.py", Config(select=("JIT301",)))
    found = [(d.line, d.column, d.message.split(" of ")[0]) for d in result.diagnostics]
    assert found == [(5, 9, "`float()`"), (6, 10, "`.item()`"), (7, 10, "`float()`"), (8, 9, "`.item()`")]
    usage = (Path(__file__).resolve().parent.parent / "docs" / "usage.md").read_text(encoding="utf-8")
    assert "**One finding per code per line.**" in usage and "`y = float(x[0]) + x.item()` gives one JIT301," in usage


@pytest.mark.parametrize("call, raises", [('logging.info(f"loss={loss:.3f}")', FORMAT_SPEC_ERROR),
                                          ('logging.warning("loss=%.3f" % loss)', "ConcretizationTypeError"),
                                          ('logging.info("loss=%.3f", loss)', None),  # formatted by logging, later
                                          ('logging.info(f"loss={loss}")', None)])
def test_jit104_says_when_building_the_log_message_raises(call, raises):
    source = "import logging\n" + FORMATTED.replace('print(f"loss={loss:.3f}")', call)
    result = lint_source(source, "step.py", Config(select=("JIT104",)))
    [message] = [d.message for d in result.diagnostics]
    if raises is None:
        assert message.endswith("inside traced code runs once, at trace time, "
                                "and records a tracer instead of the value")
    else:
        assert f"raises `{raises}` while tracing" in message and "runs once" not in message


MASKED_UPDATES = textwrap.dedent("""\
    import jax
    import jax.numpy as jnp

    @jax.jit
    def clip(x, i):
        y = jnp.zeros(3)
        stay = x > 0
        y[stay] = 2.0
        y[x < 0] += 1
        y[i] = 5.0
        y[stay.astype(bool)] *= x
        return y
""")


def test_in_place_update_with_a_traced_mask_advises_where_not_at():
    """`y.at[mask].set(v)` raises NonConcreteBooleanIndexError under jit (JAX 0.10.2) where the mask
    is traced; `jnp.where(mask, v, y)` runs. JIT105 says which applies; an integer index keeps `.at`."""
    result = lint_source(MASKED_UPDATES, "clip.py", Config(select=("JIT105",)))
    assert result.error is None
    messages = {d.line: d.message for d in result.diagnostics}
    assert messages[8].endswith("use `jnp.where(stay, 2.0, y)` (`.at[...]` with a traced boolean mask "
                                "fails under jit)")
    assert "`jnp.where(x < 0, y + 1, y)`" in messages[9]
    assert messages[10].endswith("use `.at[...].set(...)`")
    assert "`jnp.where(stay.astype(bool), y * x, y)`" in messages[11]
