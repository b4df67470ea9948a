"""Running numbered cases of a generated module under JAX, in a subprocess, for tests that check
that what a rule says raises is what JAX raises."""
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict


def raised_by_each(tmp_path: Path, source: str, call: str, count: int) -> Dict[int, str]:
    """Run ``source``, then ``call`` (an expression of ``i``) for each ``i < count``, each in its own
    ``try``: the name of the exception each raised, or ``"None"``."""
    runs = ["", f"for i in range({count}):", "    try:", f"        {call}", "        jax.effects_barrier()",
            "    except Exception as exc:", "        print(i, type(exc).__name__)", "    else:", "        print(i, None)"]
    script = tmp_path / "cases.py"
    script.write_text(source + "\n".join(runs) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                          env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"})
    outcomes = {int(i): name for i, name in re.findall(r"^(\d+) (\w+)$", proc.stdout, re.MULTILINE)}
    assert len(outcomes) == count, proc.stderr[-2000:]
    return outcomes
