"""Linting never imports jax or user code: only ``verify`` / ``--verify`` run code, in a subprocess."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

#: makes ``import jax`` fail, as if jax were not installed, then runs the rest
NO_JAX = "import sys; sys.modules['jax'] = None; sys.modules['jaxlib'] = None; sys.modules['numpy'] = None\n"

USER_CODE = textwrap.dedent('''
    import jax

    open(__file__ + ".ran", "w").write("user code ran")


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x


    EXAMPLES = {"f": [((1.0,), {})]}
''')


def _python(code: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return subprocess.run([sys.executable, "-c", NO_JAX + code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_check_runs_without_jax_and_never_imports_the_checked_code(tmp_path):
    target = tmp_path / "user_module.py"
    target.write_text(USER_CODE)
    proc = _python(textwrap.dedent(f'''
        from jitlint.cli import main
        code = main(["check", "--no-reason", {str(target)!r}])
        assert "jax" not in sys.modules or sys.modules["jax"] is None
        sys.exit(code)
    '''), tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert f"{target}:9:8: JIT201" in proc.stdout
    assert not (tmp_path / "user_module.py.ran").exists()


def test_fix_and_the_verifier_package_import_without_jax(tmp_path):
    target = tmp_path / "user_module.py"
    target.write_text(USER_CODE)
    proc = _python(textwrap.dedent(f'''
        import jitlint.verify, jitlint.verify.command, jitlint.verify.record, jitlint.record
        from jitlint.cli import main
        code = main(["check", "--fix", "--unsafe-fixes", "--no-reason", {str(target)!r}])
        print("exit", code)
    '''), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "exit" in proc.stdout
    assert not (tmp_path / "user_module.py.ran").exists()
