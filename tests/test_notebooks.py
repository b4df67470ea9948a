"""Jupyter notebooks: their code cells checked as one module, findings placed in their cells."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from jitlint.config import Config
from jitlint.files import iter_files, project_files
from jitlint.notebook import NotebookError, python_lines, read_notebook
from jitlint.runner import fix_files, lint_files


def notebook(*cells) -> bytes:
    """A notebook of ``cells``: a string is a code cell, ``("markdown", text)`` another kind."""
    out = []
    for cell in cells:
        kind, text = cell if isinstance(cell, tuple) else ("code", cell)
        lines = text.splitlines(keepends=True)
        out.append({"cell_type": kind, "metadata": {}, "source": lines,
                    **({"outputs": [], "execution_count": None} if kind == "code" else {})})
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()


JITTED = "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef f(x):\n    print('x is', x)\n    if x > 0:\n        return x\n    return -x\n"


def test_ipython_lines_become_pass_at_their_indentation():
    cell = ("%matplotlib inline\n!pip install jax\nx = !ls\nfor i in range(3):\n    %time f(i)\njnp.where?\n"
            "print('100%')\ny = (a\n     % b)\ns = 'why?'  # really?\n")
    assert python_lines(cell) == ["pass", "pass", "pass", "for i in range(3):", "    pass", "pass", "print('100%')",
                                  "y = (a", "     % b)", "s = 'why?'  # really?"]


def test_a_cell_magic_keeps_a_python_body_and_blanks_any_other():
    assert python_lines("%%timeit\nf(1.0).block_until_ready()\n") == ["pass", "f(1.0).block_until_ready()"]
    assert python_lines("%%bash\necho hi\nls\n") == ["", "", ""]


def test_the_module_of_a_notebook_and_where_its_lines_are():
    text, cells = read_notebook(notebook(("markdown", "# title\n"), "import jax\n", "", ("raw", "x\n"), JITTED))
    assert text == "import jax\n" + JITTED
    assert cells.numbers == (2, 3, 5)  # every cell counts, markdown and raw too; the empty code cell has no line
    assert cells.locate(1) == (2, 1)
    assert cells.locate(2) == (5, 1) and cells.locate(7) == (5, 6)
    assert cells.in_reason("`@jax.jit` (line 5) traces") == "`@jax.jit` (line 4 of cell 5) traces"
    single = json.loads(notebook("a = 1\n"))
    single["cells"][0]["source"] = "a = 1\nb = 2"  # one string, no final newline
    assert read_notebook(json.dumps(single).encode())[0] == "a = 1\nb = 2\n"


@pytest.mark.parametrize("data", [b"{not json", b"[1, 2]", b'{"cells": 3}', b"\xff\xfe"])
def test_what_is_not_a_notebook_is_refused(data):
    with pytest.raises(NotebookError, match="not a notebook"):
        read_notebook(data)


def _check(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "jitlint", "check", "--isolated", "--no-cache", *args],
                          cwd=tmp_path, capture_output=True, text=True)


def test_findings_are_placed_in_their_cells(tmp_path):
    (tmp_path / "demo.ipynb").write_bytes(notebook(("markdown", "# demo\n"), "%matplotlib inline\n", JITTED,
                                                   "y = f(2.0)\n"))
    run = _check(tmp_path, "demo.ipynb")
    assert run.returncode == 1, run.stderr
    lines = run.stdout.splitlines()
    assert "demo.ipynb:cell 3:6:5: JIT103" in lines[0]
    assert lines[1] == " 6 |     print('x is', x)"  # the cell's own line
    assert "(line 4 of cell 3)" in run.stdout
    assert any(line.startswith("demo.ipynb:cell 3:7:8: JIT201") for line in lines)
    found = json.loads(_check(tmp_path, "--format", "json", "demo.ipynb").stdout)
    assert [(d["cell"], d["line"], d["code"]) for d in found] == [(3, 6, "JIT103"), (3, 7, "JIT201")]
    assert all(d["fix"] is None for d in found)  # a notebook is never fixed: no fix is offered


def test_cells_are_one_module_in_order(tmp_path):
    """A global the jitted function reads, rebound in a later cell after the first call: frozen (JIT101)."""
    (tmp_path / "scale.ipynb").write_bytes(notebook(
        "import jax\nscale = 2.0\n", "@jax.jit\ndef g(x):\n    return x * scale\n", "g(1.0)\n", "scale = 3.0\ng(1.0)\n"))
    found = json.loads(_check(tmp_path, "--format", "json", "scale.ipynb").stdout)
    assert [(d["cell"], d["line"], d["code"]) for d in found] == [(2, 3, "JIT101")]


def test_a_syntax_error_is_reported_in_its_cell(tmp_path):
    (tmp_path / "bad.ipynb").write_bytes(notebook("import jax\n", "def f(:\n    pass\n"))
    run = _check(tmp_path, "bad.ipynb")
    assert run.returncode != 0
    assert "bad.ipynb:cell 2:1:" in run.stderr + run.stdout


def test_folders_list_notebooks_but_nothing_imports_one(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.ipynb").write_bytes(notebook("x = 1\n"))
    config = Config()
    assert sorted(Path(p).name for p in iter_files([str(tmp_path)], config)) == ["a.py", "b.ipynb"]
    assert [Path(p).name for p in project_files([str(tmp_path)], config)] == ["a.py"]


def test_fix_leaves_a_notebook_as_it_is_and_fixes_the_modules_beside_it(tmp_path):
    nb = tmp_path / "demo.ipynb"
    nb.write_bytes(notebook(JITTED))
    module = tmp_path / "step.py"
    module.write_text("import jax\n\n\n@jax.jit\ndef g(x):\n    print(x)\n    return x\n")
    before = nb.read_bytes()
    run = _check(tmp_path, "--fix", "--unsafe-fixes", ".")
    assert nb.read_bytes() == before
    assert "jax.debug.print" in module.read_text()
    assert "demo.ipynb:cell 1:6:5: JIT103" in run.stdout and " 6 |     print('x is', x)" in run.stdout
    outcomes = fix_files([str(nb)], Config(), unsafe=True)
    assert outcomes[str(nb)].new_bytes is None and [d.code for d in outcomes[str(nb)].result.remaining] == [
        "JIT103", "JIT201"]


def test_lint_files_reads_a_notebook_as_its_cells(tmp_path):
    nb = tmp_path / "demo.ipynb"
    nb.write_bytes(notebook("import jax\n", JITTED))
    result, = lint_files([str(nb)], Config())
    assert result.error is None and result.cells is not None
    assert [(d.cell, d.line, d.code) for d in result.diagnostics] == [(2, 6, "JIT103"), (2, 7, "JIT201")]
