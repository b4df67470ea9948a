"""Messages that say what really happens: JIT103 on a traced value formatted with a format spec."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap

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
