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


def test_an_escape_continued_by_backslashes_is_one_command():
    """IPython joins an escape line ended by a backslash with the next (`find_end_of_line`): its lines are the
    command's, not Python (a shell command's arguments indented under it read as an unexpected indent)."""
    cell = "if not ok:\n  !git clone --depth=1 \\\n     https://example.org/repo repo\nx = 1\n"
    assert python_lines(cell) == ["if not ok:", "  pass", "", "x = 1"]
    assert python_lines("!python main.py \\\n  --a=1 \\\n  --b=2\n") == ["pass", "", ""]
    assert python_lines("%run script.py \\\n  -x\ny = 2 + \\\n  3\n") == ["pass", "", "y = 2 + \\", "  3"]


def test_a_cell_magic_keeps_a_python_body_and_blanks_any_other():
    assert python_lines("%%timeit\nf(1.0).block_until_ready()\n") == ["pass", "f(1.0).block_until_ready()"]
    assert python_lines("%%bash\necho hi\nls\n") == ["", "", ""]
    # a magic of a library (penzai's): its body is Python where it parses as Python
    assert python_lines("%%autovisualize\nmodel = f(x)\n") == ["pass", "model = f(x)"]
    assert python_lines("%%custom\nSELECT * FROM t\n") == ["", ""]
    assert python_lines("%%time\nx = 1\n\n") == ["pass", "x = 1", ""]  # a line for each line of the cell


def test_a_cell_magic_under_comment_lines_is_one():
    """Colab's form fields (`#@title Setup`) stand above the cell magic; the comments stay as they are."""
    assert python_lines("#@title install\n%%bash\npip -q install x\nfi\n") == ["#@title install", "", "", ""]
    assert python_lines("# timing\n\n%%timeit\nf(1.0)\n") == ["# timing", "", "pass", "f(1.0)"]
    assert python_lines("# a comment\nx = 1\n%time f(x)\n") == ["# a comment", "x = 1", "pass"]


def test_a_magic_assigned_to_an_item_is_one():
    assert python_lines("t[c] = %timeit -o f(c)\nd['a'] = !ls\nx[a == b] = 1\n") == ["pass", "pass", "x[a == b] = 1"]


def test_a_hash_in_a_string_starts_no_comment():
    """`print(f"### {c}")` opens and closes its bracket: the magic lines after it are still read as such."""
    cell = 'for c in cs:\n    print(f"\\n### Count: {c}\\n")\n    t[c] = %timeit -o f(c)\n'
    assert python_lines(cell) == ["for c in cs:", '    print(f"\\n### Count: {c}\\n")', "    pass"]


def test_a_magic_assigned_to_a_target_written_over_several_lines_is_one_statement():
    """IPython reads the logical line: `timings[lib][\n name\n] = %timeit -o f(x)` assigns from the magic
    (jax-sci-comp-demo); the statement stands as one `pass`, line for line, and brackets that close into
    anything else are Python."""
    cell = ("for lib in libs:\n    timings[lib][\n        name\n    ] = %timeit -o f(lib)\n"
            "    x = (1 +\n         2)\n    y = [a,\n         b] == c\n")
    assert python_lines(cell) == ["for lib in libs:", "    pass", "", "", "    x = (1 +", "         2)",
                                  "    y = [a,", "         b] == c"]


def test_a_line_magic_without_its_percent_is_one_where_the_line_is_not_python():
    assert python_lines("timeit -n 5 f(x)\nls\ntime = 3\npip install jax\nconfig = make(\n  a)\nrun - 1\n") == [
        "pass", "ls", "time = 3", "pass", "config = make(", "  a)", "run - 1"]


def test_the_indentation_of_a_cells_first_line_is_taken_off_as_ipython_does():
    assert python_lines(" x = 1\n y = x\n") == ["x = 1", "y = x"]
    assert python_lines("  if x:\n      y = 1\n") == ["if x:", "    y = 1"]


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
    # a fix keeps its title and safety; its edits are offsets into the module of the cells, not the file
    assert [(d["fix"]["applicability"], d["fix"]["edits"]) for d in found] == [("safe", None), ("unsafe", None)]


def test_cells_are_one_module_in_order(tmp_path):
    """A global the jitted function reads, rebound in a later cell after the first call: frozen (JIT101)."""
    (tmp_path / "scale.ipynb").write_bytes(notebook(
        "import jax\nscale = 2.0\n", "@jax.jit\ndef g(x):\n    return x * scale\n", "g(1.0)\n", "scale = 3.0\ng(1.0)\n"))
    found = json.loads(_check(tmp_path, "--format", "json", "scale.ipynb").stdout)
    assert [(d["cell"], d["line"], d["code"]) for d in found] == [(2, 3, "JIT101")]


LOSS_CELLS = ("import jax\nimport jax.numpy as jnp\n\ndef loss(p):\n    return jnp.sum(p * model)\n",
              "model = 2.0\ngrad_fn = jax.jit(jax.value_and_grad(loss))\nfor _ in range(3):\n    v, g = grad_fn(1.0)\n")


@pytest.mark.parametrize("again, found", [
    # a transform made again around a callable made there: JAX keys its trace cache on the callable, so the
    # new one traces anew and reads the new `model` (run on JAX 0.10.2: 3.0 after `model = 3.0`)
    ("grad_fn = jax.jit(jax.value_and_grad(loss))\n", []),
    ("grad_fn = jax.jit(jax.grad(loss))\n", []),
    ("grad_fn = jax.jit(lambda p: loss(p))\n", []),
    # `jax.jit(loss)` made again is served from the cache of `loss`: the old trace (2.0 after `model = 3.0`)
    ("grad_fn = jax.jit(loss)\n", [(1, 5, "JIT101")]),
    # the wrapper traced before the rebinding, called after it
    ("", [(1, 5, "JIT101")]),
])
def test_a_wrapper_made_anew_after_a_rebinding_traces_anew(tmp_path, again, found):
    (tmp_path / "retrain.ipynb").write_bytes(notebook(*LOSS_CELLS, "model = 3.0\n" + again + "v = grad_fn(1.0)\n"))
    out = json.loads(_check(tmp_path, "--format", "json", "retrain.ipynb").stdout)
    assert [(d["cell"], d["line"], d["code"]) for d in out] == found


HANDED_CELLS = ("import jax\nimport jax.numpy as jnp\n\ndef train(fn, x):\n    return fn(x).sum()\n\n"
                "def make_runner(fn):\n    return lambda x: fn(x)\n",
                "scale = 2.0\nW = jax.jit(lambda x: x * scale)\n")


@pytest.mark.parametrize("uses, found", [
    # handed to a call that runs it there, its result never called: every trace and run comes before the
    # rebinding (JAX 0.10.2: `train` gives 6.0, and nothing runs `W` after `scale = 3.0`)
    ("out = train(W, jnp.ones(3))\ntrain(W, jnp.ones(3))\n", []),
    # the call returns something that keeps it, called after the rebinding: the old trace runs (2.0, eager 3.0)
    ("runner = make_runner(W)\nrunner(jnp.ones(3))\n", [(2, 2, "JIT101")]),
])
def test_a_wrapper_handed_to_a_call_before_a_rebinding(tmp_path, uses, found):
    (tmp_path / "handed.ipynb").write_bytes(notebook(*HANDED_CELLS, uses, "scale = 3.0\nrunner = None\n"
                                                     if not found else "scale = 3.0\nrunner(jnp.ones(3))\n"))
    out = json.loads(_check(tmp_path, "--format", "json", "handed.ipynb").stdout)
    assert [(d["cell"], d["line"], d["code"]) for d in out] == found


def test_a_syntax_error_is_reported_in_its_cell(tmp_path):
    (tmp_path / "bad.ipynb").write_bytes(notebook("import jax\n", "def f(:\n    pass\n"))
    run = _check(tmp_path, "bad.ipynb")
    assert run.returncode != 0
    assert "bad.ipynb:cell 2:1:" in run.stderr + run.stdout


MARKDOWN_TYPED_IN_A_CODE_CELL = "This cell explains *why* the step is jitted\n"


@pytest.mark.parametrize("broken", [MARKDOWN_TYPED_IN_A_CODE_CELL, "def f(:\n    pass\n",
                                    "<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> other\n"])
def test_a_cell_that_is_not_python_is_reported_and_the_other_cells_are_checked(tmp_path, broken):
    """Jupyter compiles each cell alone: a cell that does not parse raises SyntaxError when run, defines
    nothing and leaves the others running.  It is reported in its cell, the other cells are checked (the
    finding of cell 3 found and placed there), and the notebook is not fixed."""
    nb = tmp_path / "mixed.ipynb"
    nb.write_bytes(notebook("import jax\nimport jax.numpy as jnp\n", broken, JITTED.split("\n\n", 1)[1]))
    run = _check(tmp_path, "mixed.ipynb")
    assert run.returncode == 1
    assert "mixed.ipynb:cell 2:" in run.stderr and "the cell is skipped" in run.stderr
    assert "mixed.ipynb:cell 3:3:5: JIT103" in run.stdout and "mixed.ipynb:cell 3:4:8: JIT201" in run.stdout
    assert "1 notebook with a cell that could not be checked." in run.stdout
    before = nb.read_bytes()
    fixing = _check(tmp_path, "--fix", "--unsafe-fixes", "mixed.ipynb")
    assert nb.read_bytes() == before
    assert "mixed.ipynb:cell 2:" in fixing.stderr and "not fixed" in fixing.stderr
    assert "fixes remain" not in fixing.stderr


def test_the_module_of_a_notebook_blanks_a_cell_that_is_not_python_and_says_where_it_stops():
    text, cells = read_notebook(notebook("x = 1\n", "y = (\n", "z = 2\n"))
    assert text == "x = 1\n\nz = 2\n"  # every line of the module is still the line of its cell
    assert cells.broken == ((2, 5, "'(' was never closed"),) and cells.locate(2) == (2, 1)
    # code newer than this Python's own parser (an f-string reusing its quotes, Python 3.12) is Python
    newer = 'd = {"k": 1}\ns = f"{d["k"]}"\n'
    assert read_notebook(notebook(newer))[1].broken == ()
    assert python_lines("a b c\n") == [""] and python_lines("%time f(x)\n") == ["pass"]


def test_folders_list_notebooks_but_nothing_imports_one(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.ipynb").write_bytes(notebook("x = 1\n"))
    config = Config()
    assert sorted(Path(p).name for p in iter_files([str(tmp_path)], config)) == ["a.py", "b.ipynb"]
    assert [Path(p).name for p in project_files([str(tmp_path)], config)] == ["a.py"]


def test_fix_writes_the_fixed_module_back_into_its_cells(tmp_path):
    """--fix fixes the module of the cells and writes each line back to its cell: a fix in cell 3, the
    import it needs at the top of cell 1; every other cell, the magics and the JSON layout unchanged;
    a second --fix changes nothing; --diff shows each changed cell and writes nothing."""
    nb = tmp_path / "demo.ipynb"
    nb.write_bytes(notebook("import jax\n", ("markdown", "# steps\n"), "%time t = 1\n" + JITTED.split("\n\n", 1)[1],
                            "%%bash\necho hi\n", "y = f(2.0)\n"))
    before = nb.read_bytes()
    diff = _check(tmp_path, "--diff", "--unsafe-fixes", "demo.ipynb")
    assert nb.read_bytes() == before
    assert "--- demo.ipynb:cell 3\n+++ demo.ipynb:cell 3\n" in diff.stdout and "+    jax.debug.print(" in diff.stdout
    run = _check(tmp_path, "--fix", "--unsafe-fixes", "--show-fixes", "demo.ipynb")
    assert "demo.ipynb:cell 3:4: JIT103 [safe]" in run.stdout, run.stdout + run.stderr
    old, new = json.loads(before)["cells"], json.loads(nb.read_bytes())["cells"]
    assert [c for i, c in enumerate(new) if i not in (0, 2)] == [c for i, c in enumerate(old) if i not in (0, 2)]
    fixed = "".join(new[2]["source"])
    assert fixed.startswith("%time t = 1\n@jax.jit\n") and "jax.debug.print(" in fixed and "jnp.where(" in fixed
    assert "".join(new[0]["source"]).startswith("import jax")
    assert nb.read_bytes() == json.dumps(json.loads(nb.read_bytes()), indent=1).encode()  # its layout kept
    again = nb.read_bytes()
    _check(tmp_path, "--fix", "--unsafe-fixes", "demo.ipynb")
    assert nb.read_bytes() == again


def test_a_notebook_whose_json_would_not_be_written_back_unchanged_is_only_checked(tmp_path):
    nb = tmp_path / "compact.ipynb"
    compact = json.dumps(json.loads(notebook(JITTED)), separators=(",", ":")).encode()
    nb.write_bytes(compact)
    run = _check(tmp_path, "--fix", "--unsafe-fixes", "compact.ipynb")
    assert nb.read_bytes() == compact
    assert "compact.ipynb:cell 1:6:5: JIT103" in run.stdout
    outcome = fix_files([str(nb)], Config(), unsafe=True)[str(nb)]
    assert outcome.new_bytes is None and [d.code for d in outcome.result.remaining] == ["JIT103", "JIT201"]


def test_rebuild_refuses_what_would_not_go_back_into_the_cells():
    from jitlint.notebook import notebook_source, rebuild

    data = notebook("import jax\n!ls\n", "x = 1\n")
    source, why = notebook_source(data)
    assert source is not None and why == ""
    same, _ = rebuild(source, source.text, [1, 2, 3])
    assert same == data
    assert rebuild(source, "import jax\nprint(1)\nx = 1\n", [1, 2, 3]) == (
        None, "a fix would change a line read otherwise than it is written (a magic, an escape, an indent)")
    assert rebuild(source, "x = 1\nimport jax\npass\n", [3, 1, 2])[0] is None  # code moved to an earlier cell


def test_lint_files_reads_a_notebook_as_its_cells(tmp_path):
    nb = tmp_path / "demo.ipynb"
    nb.write_bytes(notebook("import jax\n", JITTED))
    result, = lint_files([str(nb)], Config())
    assert result.error is None and result.cells is not None
    assert [(d.cell, d.line, d.code) for d in result.diagnostics] == [(2, 6, "JIT103"), (2, 7, "JIT201")]


SCALE_CELLS = ("import jax\nscale = 2.0\n", "@jax.jit\ndef g(x):\n    return x * scale\n", "print(g(1.0))\n")


@pytest.mark.parametrize("later, stale", [
    (("scale = 3.0\n",), False),  # rebound after the last call: no trace runs with the old value
    (("scale = 3.0\n", "print(g(1.0))\n"), True),  # called again: the kept trace gives 2.0, eagerly 3.0
    (("scale = 3.0\n@jax.jit\ndef g(x):\n    return x * scale\n", "print(g(1.0))\n"), False),  # redefined: traced anew
    (("scale = 3.0\n", "h = jax.jit(lambda x: x)\n", "print(jax.jit(g)(1.0))\n"), True),  # the same g: cache hit
    (("y = g(2.0)\n", "scale = 3.0\n", "print(y)\n"), False),  # `y` holds what a call gave: no way to call g
    # a helper that calls g, run after the rebinding: the old trace runs (2.0); the helper defined anew not
    # to call g does not run it
    (("def run(x):\n    return g(x)\n", "run(1.0)\n", "scale = 3.0\n", "print(run(1.0))\n"), True),
    (("def run(x):\n    return g(x)\n", "run(1.0)\n", "scale = 3.0\n", "def run(x):\n    return x + 1\n",
      "print(run(1.0))\n"), False),
    # a helper that calls what it is given returns values, not a way to call g again: `curve` holds floats,
    # and the cell after the rebinding that binds `curve` again hands it the new definition of g
    (("def sweep(f, x):\n    return [float(f(x * s)) for s in (0.5, 1.0)]\n", "curve = sweep(g, 1.0)\n",
      "scale = 3.0\n", "@jax.jit\ndef g(x):\n    return x * scale\n", "curve = sweep(g, 1.0)\n"), False),
    # a helper that returns the function it is given: `h` is a way to call the old g, after the rebinding
    (("def keep(f):\n    return f\n", "h = keep(g)\n", "scale = 3.0\n", "print(h(1.0))\n"), True),
    # a function of another module (what it returns is unknown): binding its result again, after g is defined
    # anew, calls no earlier result; calling that earlier result after the rebinding may run the old trace
    (("from functools import partial as sweep\n", "curve = sweep(g, 1.0)\n", "scale = 3.0\n",
      "@jax.jit\ndef g(x):\n    return x * scale\n", "curve = sweep(g, 1.0)\n"), False),
    (("from functools import partial as sweep\n", "curve = sweep(g, 1.0)\n", "scale = 3.0\n",
      "print(curve())\n"), True),
    # a name bound again after the rebinding, to a call not given g, reaches g no more, nor does a name
    # computed from it (jaxquantum's `states = sesolve(H0, ...)`, then `szt = overlap(states, ...)`)
    (("from functools import partial as sweep\n", "states = sweep(g, 1.0)\n", "szt = states\n",
      "scale = 3.0\n", "states = sweep(abs, 1.0)\n", "szt = states\n", "print(szt())\n"), False),
    # ... while a chain of names whose bindings lead back to g does
    (("def keep(f):\n    return f\n", "h = keep(g)\n", "k = h\n", "scale = 3.0\n", "print(k(1.0))\n"), True),
    # a function that calls a name of its own (a local def, a local jitted def, a lambda) calls no module-level
    # function of that name: `run` after the rebinding runs no trace of g (learnit's `train_single_model`,
    # whose local `update_model` shares its name with a cell's `update_model` that calls the jitted step)
    (("def step(x):\n    return g(x)\n", "step(1.0)\n",
      "def run(x):\n    def step(y):\n        return y + 1\n    return step(x)\n", "scale = 3.0\n",
      "print(run(1.0))\n"),
     False),
    (("def step(x):\n    return g(x)\n", "step(1.0)\n",
      "def run(x):\n    @jax.jit\n    def step(y):\n        return y + 1\n    return step(x)\n", "scale = 3.0\n",
      "print(run(1.0))\n"), False),
    (("def step(x):\n    return g(x)\n", "step(1.0)\n", "def run(x):\n    step = lambda y: y + 1\n    return step(x)\n",
      "scale = 3.0\n", "print(run(1.0))\n"), False),
    # ... while a function that calls the module's `step` does (run: 2.0 where eagerly 3.0)
    (("def step(x):\n    return g(x)\n", "step(1.0)\n", "def run(x):\n    return step(x)\n", "scale = 3.0\n",
      "print(run(1.0))\n"), True),
])
def test_a_global_rebound_in_a_notebook_is_stale_only_where_a_kept_trace_runs_after(tmp_path, later, stale):
    """Nothing imports a notebook: its jitted functions run only where its own cells call them, so a
    global rebound after the last call of a kept trace (or together with a new definition of the
    function) is never read stale (JAX 0.10.2: the cells run as a script print 2.0, then 3.0 where the
    function is defined anew, and 2.0 again where the old trace runs). A module that others may import
    is still reported: an importer can call the function after the rebinding."""
    cells = SCALE_CELLS + later
    (tmp_path / "nb.ipynb").write_bytes(notebook(*cells))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])
    (tmp_path / "mod.py").write_text("".join(cells))
    found = json.loads(_check(tmp_path, "--format", "json", "mod.py").stdout)
    assert "JIT101" in [d["code"] for d in found]


MSE_CELLS = ("import jax\nimport jax.numpy as jnp\nA, B = 2 * jnp.ones(3), jnp.zeros(3)\n",
             "mse = jax.jit(lambda x, y: jnp.mean((x - y) ** 2))\n"
             "psnr = jax.jit(lambda x, y: -10 * jnp.log10(mse(x, y)))\n"
             "print(psnr(A, B))\n")
REMADE = "mse = jax.jit(lambda x, y: jnp.mean(jnp.abs(x - y)))\n"
TRAIN = "def train(a, b):\n    return psnr(a, b)\n"


@pytest.mark.parametrize("later, stale", [
    # the wrapper that reads `mse` made anew in the cell that makes `mse` anew: a function defined after that
    # cannot reach the old wrapper, and one defined before, called after, reads the new one too (learnit's
    # 2d_ct notebook; run: -3.01 eagerly and jitted)
    ((REMADE + "psnr = jax.jit(lambda x, y: -10 * jnp.log10(mse(x, y)))\n\n" + TRAIN, "print(train(A, B))\n"), False),
    ((TRAIN, REMADE + "psnr = jax.jit(lambda x, y: -10 * jnp.log10(mse(x, y)))\n", "print(train(A, B))\n"), False),
    # the old wrapper called after `mse` alone is made anew, or through a function called between the two
    # (run: -6.02 jitted, -3.01 eagerly)
    ((REMADE, "print(psnr(A, B))\n"), True),
    ((TRAIN, REMADE + "print(train(A, B))\npsnr = jax.jit(lambda x, y: -10 * jnp.log10(mse(x, y)))\n"), True),
])
def test_a_wrapper_made_anew_with_what_it_reads_is_not_stale_where_read_after(tmp_path, later, stale):
    (tmp_path / "nb.ipynb").write_bytes(notebook(*(MSE_CELLS + later)))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])


def test_a_script_nothing_in_its_project_imports_is_read_as_a_notebook_is(tmp_path):
    """A module of a project that no other module of it imports (an example program) runs as a script:
    a global rebound after its last run of a kept trace is not stale; once another module imports it (a
    caller may run the function after the rebinding), it is reported again."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "example.py").write_text("".join(SCALE_CELLS) + "scale = 3.0\n")
    assert json.loads(_check(tmp_path, "--format", "json", "example.py").stdout) == []
    (tmp_path / "user.py").write_text("from example import g\n\nprint(g(1.0))\n")
    found = json.loads(_check(tmp_path, "--format", "json", "example.py").stdout)
    assert [d["code"] for d in found] == ["JIT101"]


SHARED_HELPER = ("import jax\nimport jax.numpy as jnp\nn = 4\n\n\n"
                 "def step(u):\n    return u.reshape(n, -1).sum(0)\n\n\n"
                 "@jax.jit\ndef loss(u):\n    return step(u).mean()\n\n\n")
INFER_PLAIN = "@jax.jit\ndef infer(u):\n    return step(u) * 2\n\n\n"
INFER_THROUGH_LOSS = "@jax.jit\ndef infer(u):\n    return loss(u) * 2\n\n\n"
RUN_INFER = "def run(u):\n    return infer(u)\n\n\n"


@pytest.mark.parametrize("tail, stale", [
    # the helper reads `n`; the training jit `loss` runs before the rebinding only, and the jitted inference is
    # first run after it: a new trace, reading the new `n` (JAX 0.10.2, TI-DeepONet's script shape: equal to eager)
    (INFER_PLAIN + RUN_INFER + "print(loss(jnp.ones(8)))\nn = 2\nprint(run(jnp.ones(8)))\n", False),
    (INFER_PLAIN + "print(loss(jnp.ones(8)))\nn = 2\nprint(infer(jnp.ones(8)))\n", False),
    # the inference calls the jitted `loss`, whose trace (cached, inner jit too) was made before: 2.0 where eagerly 4.0
    (INFER_THROUGH_LOSS + "print(loss(jnp.ones(8)))\nn = 2\nprint(infer(jnp.ones(8)))\n", True),
    # the same jit before and after
    (INFER_PLAIN + RUN_INFER + "print(infer(jnp.ones(8)))\nn = 2\nprint(run(jnp.ones(8)))\n", True),
])
def test_a_script_helper_read_by_a_trace_made_only_after_the_rebinding_is_not_stale(tmp_path, tail, stale):
    """A helper that two jitted functions call reads a global the script binds again between them: stale only
    where a trace made before the rebinding (a jit's, also of a jit called inside another trace) is run again
    after it."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "script.py").write_text(SHARED_HELPER + tail)
    found = json.loads(_check(tmp_path, "--format", "json", "script.py").stdout)
    assert bool([d for d in found if d["code"] == "JIT101"]) is stale, found


def test_a_script_loop_that_reconfigures_what_the_jitted_function_reads_compiles_on_purpose(tmp_path):
    """A script (nothing in its project imports it) jits `jax.vmap(make_train)` in each iteration of loops that set
    the globals `make_train` reads: one program per configuration, no JIT501; and each trace reads the values of
    its own iteration, no JIT101 (tests/fixtures/project/script_loop_reconfigures_globals.py, run on JAX 0.10.2)."""
    source = Path(__file__).parent / "fixtures" / "project" / "script_loop_reconfigures_globals.py"
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "script.py").write_text(source.read_text())
    assert json.loads(_check(tmp_path, "--format", "json", "script.py").stdout) == []


@pytest.mark.parametrize("cell", [
    "", "\n", "x = 1", "x = 1\n\n\n", "%%time\n\n", "%%bash\n", "%%timeit -n 3\n  f(x)\n\n", " a = 1\n\n b = 2\n",
    "x = 1\r\ny = 2\r\n", "a = (1,\n%timeit\n)\n", "!ls\n?x\nx?\n", "timeit f(x)\n\n", "!ls \\\n -l\n", "s = '''\nline?\n'''\n",
])
def test_every_line_of_a_cell_is_one_line_of_the_module(cell):
    """The module of the cells keeps each cell's line count: a finding's line is its cell's line."""
    from jitlint.notebook import _lines

    assert len(python_lines(cell)) == len(_lines(cell))
    text, cells = read_notebook(notebook("import jax\n", cell, "y = 2\n"))
    assert cells.locate(text.count("\n")) == (3, 1)  # the last cell's line, after the cell above


LAMBDA_CELLS = ("import jax\nscale = 2.0\n", "g = jax.jit(lambda x: x * scale)\n", "print(g(1.0))\n")


@pytest.mark.parametrize("later, stale", [
    (("scale = 3.0\n",), False),  # every call of the wrapper came before the rebinding
    (("scale = 3.0\n", "print(g(1.0))\n"), True),  # called again: the kept trace gives 2.0, eagerly 3.0
    (("h = g\n", "scale = 3.0\n", "print(h(1.0))\n"), True),  # handed on before it: called through another name
    (("for _ in range(2):\n    print(g(1.0))\n    scale = scale + 1.0\n",), True),  # the loop calls it after, too
    # applied through a transform called at once (`jax.vmap(g)(xs)`): run there, as a call is
    (("import jax.numpy as jnp\nys = jax.vmap(g)(jnp.ones(3))\n", "scale = 3.0\n"), False),
    (("import jax.numpy as jnp\nys = jax.grad(lambda v: g(v))(1.0)\n", "scale = 3.0\n"), False),
    (("import jax.numpy as jnp\nys = jax.vmap(g)(jnp.ones(3))\n", "scale = 3.0\n",
      "print(jax.vmap(g)(jnp.ones(3)))\n"), True),
    # called in a lambda kept for later: it runs whenever that is called, after the rebinding too
    (("later = lambda v: g(v)\n", "print(later(1.0))\n", "scale = 3.0\n", "print(later(1.0))\n"), True),
    # a transform of it kept under a name (`dg = jax.jit(jax.grad(g))`): stale only where that is called after
    # (JAX 0.10.2: `dg(1.0)` gives 2.0 after `scale = 3.0`; called only before it, nothing is kept stale)
    (("dg = jax.jit(jax.grad(g))\n", "print(dg(1.0))\n", "scale = 3.0\n"), False),
    (("dg = jax.jit(jax.grad(g))\n", "print(dg(1.0))\n", "scale = 3.0\n", "print(dg(1.0))\n"), True),
    (("dg = jax.jit(jax.grad(g))\n", "scale = 3.0\n", "h = dg\n", "print(h(1.0))\n"), True),
])
def test_a_jitted_lambda_of_a_notebook_is_stale_only_where_called_after_the_rebinding(tmp_path, later, stale):
    """`g = jax.jit(lambda x: x * scale)` in a notebook: the lambda reads `scale` when a call of `g` traces it,
    and a later call reuses that trace (JAX 0.10.2: 2.0 after `scale = 3.0`).  Where every call of `g` comes
    before the rebinding, no trace runs with the old value (a tutorial's simulation run once)."""
    (tmp_path / "nb.ipynb").write_bytes(notebook(*(LAMBDA_CELLS + later)))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])


@pytest.mark.parametrize("later, stale", [
    # called through a function whose calls all come before the rebinding
    (("def acc(x):\n    return g(x)\n", "print(acc(1.0))\n", "scale = 3.0\n"), False),
    (("def acc(x):\n    return g(x)\n", "print(acc(1.0))\n", "scale = 3.0\n", "print(acc(1.0))\n"), True),
])
def test_a_jitted_lambda_called_through_a_function_of_the_notebook(tmp_path, later, stale):
    """A notebook function that calls the jitted lambda runs it where the function is called: stale only
    where that is after the rebinding (JAX 0.10.2: 2.0 from the last call of `acc`, eagerly 3.0)."""
    (tmp_path / "nb.ipynb").write_bytes(notebook(*(LAMBDA_CELLS[:2] + later)))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])


@pytest.mark.parametrize("cells, stale", [
    # a module-level `g` before the wrapper is bound is another value: its reads are not the wrapper's
    (("import jax\ng = 1.0\nprint(g + 1)\nscale = 2.0\n",) + LAMBDA_CELLS[1:] + ("scale = 3.0\n",), False),
    # a function's own `g` (a nested def handed on) is a variable of that function
    (LAMBDA_CELLS + ("def wrap(f):\n    def g(y):\n        return f(y)\n    return g\n", "scale = 3.0\n"), False),
    (("import jax\nscale = 2.0\n", "def wrap(f):\n    def g(y):\n        return f(y)\n    return jax.jit(g)\n")
     + LAMBDA_CELLS[1:] + ("scale = 3.0\n",), False),
    # near: a function of the notebook that hands the module's `g` on may run it after the rebinding
    (LAMBDA_CELLS + ("def keep():\n    return g\n", "scale = 3.0\n", "print(keep()(1.0))\n"), True),
])
def test_reads_of_another_variable_of_the_same_name_are_not_uses_of_the_wrapper(tmp_path, cells, stale):
    """Whether every call of a notebook's `g = jax.jit(lambda ...)` comes before the rebinding of the global
    it reads is a question about that variable only: a `g` bound by module code before the wrapper is, or a
    function's own `g`, is another (autobound's notebook: a helper's nested `next_loss` beside a jitted
    `next_loss` lambda called only before `loss` is bound again; JAX 0.10.2, run as a script: 101 calls,
    none after the rebinding, the same values jitted and eagerly)."""
    (tmp_path / "nb.ipynb").write_bytes(notebook(*cells))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])


@pytest.mark.parametrize("later, stale", [
    # the wrapper made anew with the changed global; only the new one is called after
    (("scale = 3.0\ng = jax.jit(lambda x: x * scale)\n", "print(g(1.0))\n"), False),
    (("scale = 3.0\n", "g = jax.jit(lambda x: x * scale)\n", "print(g(1.0))\n"), False),
    # near: the old wrapper called between the rebinding and the new wrapper
    (("scale = 3.0\n", "print(g(1.0))\n", "g = jax.jit(lambda x: x * scale)\n", "print(g(1.0))\n"), True),
    # near: the old wrapper kept under another name and called after
    (("h = g\n", "scale = 3.0\ng = jax.jit(lambda x: x * scale)\n", "print(h(1.0))\n"), True),
])
def test_a_wrapper_made_anew_after_the_rebinding_is_another_object(tmp_path, later, stale):
    """A notebook cell that changes the global and makes the wrapper again binds the name to a new jit
    object: the calls after it trace the lambda anew with the new value, the old trace is never run again
    (neural-tangents' notebook: `loss = ...; grad_loss = jit(grad(lambda ...: loss(...)))` twice; JAX
    0.10.2, run as a script: 2.0, then 3.0).  The old one called after the rebinding still gives 2.0."""
    (tmp_path / "nb.ipynb").write_bytes(notebook(*(LAMBDA_CELLS + later)))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])


SOLVER_CELLS = ("import jax\nimport jax.numpy as jnp\ny = jnp.ones(3)\n",
                "class Solver:\n    def __init__(self, fun):\n        self.fun = fun\n\n"
                "    def run(self, x):\n        return x - jax.grad(self.fun)(x)\n",
                "@jax.jit\ndef loss(x):\n    return jnp.sum((x - y) ** 2)\n",
                "solver = Solver(loss)\nsoln = solver.run(jnp.zeros(3))\n")


@pytest.mark.parametrize("later, stale", [
    # what a method returns is a value (the solution's arrays), not a way to run the jitted function again
    (("fit = soln * 2.0\n", "y = fit + jnp.ones(3)\n"), False),
    (("fit = solver.run(soln)\n", "y = fit.sum() * jnp.ones(3)\n", "print(fit)\n"), False),
    # near: the solver, which holds the old trace, is run after the rebinding
    (("y = 2.0 * jnp.ones(3)\n", "print(solver.run(jnp.zeros(3)))\n"), True),
])
def test_what_a_method_returns_does_not_hold_the_jitted_function(tmp_path, later, stale):
    """A notebook hands its jitted loss to a solver object and keeps what `solver.run(...)` returns: that
    is what the method computed, an array, which does not run the loss when it is used after the data
    global changes (tinygp's tutorial: `soln = solver.run(init)`, then `y = gp.sample(...)` for the next
    section; JAX 0.10.2, run as a script, the first loss is never called after `y` changes).  Running
    the solver again after the rebinding runs the old trace (near: the gradient of the old `y`)."""
    (tmp_path / "nb.ipynb").write_bytes(notebook(*(SOLVER_CELLS + later)))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])


@pytest.mark.parametrize("between, stale", [
    ("", False),  # nothing of the module traces `g` while it is imported: every trace reads 3.0
    ("print(g(1.0))\n", True),  # traced at import with 2.0; the importer's call reuses that trace
    ("y = jax.jit(g)(1.0)\n", True),  # the same function object: the wrapper's trace of `g` is kept
    ("def warm():\n    return g(1.0)\n", False),  # a function nobody calls while importing traces nothing
])
def test_a_global_rebound_while_an_imported_module_loads_is_stale_only_after_an_import_time_trace(
        tmp_path, between, stale):
    """A module that another module imports has run all its statements before the importer calls it:
    a global it binds twice at import time is read with its last value by every later trace (run on
    JAX 0.10.2: `g(1.0)` gives 3.0 jitted and eagerly); only a trace made between the bindings, while the
    module loads, keeps the first value (2.0 jitted, 3.0 eagerly)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (tmp_path / "lib.py").write_text("".join(SCALE_CELLS[:2]) + between + "scale = 3.0\n")
    (tmp_path / "user.py").write_text("from lib import g\n\nprint(g(1.0))\n")
    found = json.loads(_check(tmp_path, "--format", "json", "lib.py").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])


RECORD_CELLS = (
    "import collections, functools\nimport jax, jax.numpy as jnp\n"
    "State = collections.namedtuple('State', 'w step')\n",
    "class Learner:\n    def __init__(self):\n        self.state = State(jnp.ones(2), 0)\n\n"
    "    @functools.partial(jax.jit, static_argnums=0)\n    def _step(self, state):\n"
    "        return State(state.w * 0.5, state.step + 1)\n\n"
    "    def update(self):\n        self.state = self._step(self.state)\n",
    "agent = Learner()\nagent.update()\n",
)


@pytest.mark.parametrize("later, stale", [
    # the global is bound again for another model once this one is done with
    (("State = collections.namedtuple('State', 'w target step')\n",), False),
    # the object still runs after it: the kept trace builds the old record, where eagerly the new one raises
    (("State = collections.namedtuple('State', 'w target step')\n", "agent.update()\n"), True),
    # the name is bound to another object first: what runs after is not this class's
    (("agent = object()\n", "State = collections.namedtuple('State', 'w target step')\n", "print(agent)\n"), False),
    # the class itself is made again after it
    (("State = collections.namedtuple('State', 'w target step')\n", "other = Learner()\n"), True),
])
def test_a_global_a_class_reads_is_stale_only_where_the_class_runs_after_the_rebinding(tmp_path, later, stale):
    """A notebook's class whose jitted method builds `State(...)`, a global the notebook binds again later for
    another model (JAX 0.10.2: run after the rebinding, the jitted method still builds the old `State`, and
    eagerly the call raises `TypeError`); where nothing of the class runs after it, nothing is stale."""
    (tmp_path / "nb.ipynb").write_bytes(notebook(*(RECORD_CELLS + later)))
    found = json.loads(_check(tmp_path, "--format", "json", "nb.ipynb").stdout)
    assert [d["code"] for d in found] == (["JIT101"] if stale else [])
