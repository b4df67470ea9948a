"""The editor's re-analysis after an edit (jitlint.incremental): only the statements the edit can affect
are analysed again, and the findings, their reason chains, what ``# noqa`` silenced and the fixes are
those a whole analysis of the new text gives, on edits of every lint fixture."""
from __future__ import annotations

import random
import re
from pathlib import Path
from typing import List, Optional, Tuple

import libcst as cst
import pytest

from jitlint.analysis.influence import affected, needed, summarize
from jitlint.analysis.reparse import reparsing
from jitlint.config import Config
from jitlint.diagnostics import FileResult, Fix
from jitlint.fixes import built
from jitlint.incremental import Analysis, reanalysing, reduced_module
from jitlint.runner import lint_files
from synthetic import jitted_functions
from test_reparse import _edits

pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")

FIXTURES = Path(__file__).parent / "fixtures"
SOURCES = sorted((FIXTURES / "lint").glob("*.py"))


def _statement_edits(text: str) -> List[Tuple[str, str]]:
    """Edits of whole statements: delete one, add a blank line before it (every later line moves), add
    a ``print`` of a parameter as a function's first line, rename a function (its callers now call
    nothing), change a number in it."""
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return []
    from libcst.metadata import MetadataWrapper, PositionProvider

    where = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines = text.splitlines(keepends=True)
    out = []
    for i, statement in enumerate(module.body):
        a, b = where[statement].start.line, where[statement].end.line
        out.append((f"delete {i}", "".join(lines[:a - 1] + lines[b:])))
        out.append((f"blank before {i}", "".join(lines[:a - 1] + ["\n"] + lines[a - 1:])))
        if isinstance(statement, cst.FunctionDef) and isinstance(statement.body, cst.IndentedBlock):
            first = where[statement.body.body[0]].start.line
            indent = re.match(r"[ \t]*", lines[first - 1]).group()
            params = [p.name.value for p in statement.params.params if p.name.value not in ("self", "cls")]
            added = f"{indent}print({params[0] if params else 1})\n"
            out.append((f"print in {i}", "".join(lines[:first - 1] + [added] + lines[first - 1:])))
            name = statement.name.value
            out.append((f"rename {i}", text.replace(f"def {name}(", f"def {name}_r(", 1)))
        code = "".join(lines[a - 1:b])
        number = re.search(r"\b[0-9]\b", code)
        if number:
            changed = code[:number.start()] + "7" + code[number.end():]
            out.append((f"number in {i}", "".join(lines[:a - 1]) + changed + "".join(lines[b:])))
    return out


def _fix_key(fix: Optional[Fix]):
    if fix is None:
        return None
    fix = built(fix)
    # a fresh name's suffix (`f_jit_1`) depends on which fixes of the module were built before it
    plain = (lambda text: re.sub(r"_\d+\b", "", text))
    return fix.applicability, plain(fix.title), tuple((e.start, e.end, plain(e.replacement)) for e in fix.edits)


def _key(result: FileResult, fixes: int):
    """The findings, and the fixes of every ``fixes``-th of them (0: none)."""
    found = [(d.line, d.column, d.end_line, d.end_column, d.code, d.message, d.reason, d.subject)
             for d in result.diagnostics]
    if fixes:
        found = [f + ((_fix_key(d.built_fix()),) if i % fixes == 0 else ())
                 for i, (f, d) in enumerate(zip(found, result.diagnostics))]
    return found, result.error is not None


def _compare(tmp_path: Path, name: str, before: str, after: str, fixes: int = 0) -> str:
    """Lints ``before`` then ``after`` as the editor does, and ``after`` alone as ``check`` does;
    asserts they agree and returns how the editor's second analysis was made."""
    path = tmp_path / name
    path.write_text(after, encoding="utf-8")
    config = Config()
    parses: dict = {}
    analyses: dict = {}
    with reparsing(parses), reanalysing(analyses):
        lint_files([str(path)], config, overrides={str(path): before.encode()}, build_fixes=False)
        edited, = lint_files([str(path)], config, overrides={str(path): after.encode()}, build_fixes=False)
    whole, = lint_files([str(path)], config, overrides={str(path): after.encode()}, build_fixes=False)
    assert _key(edited, fixes) == _key(whole, fixes)
    analysis: Optional[Analysis] = next(iter(analyses.values()), None)
    return analysis.how if analysis is not None else "none"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_statement_edits_give_the_findings_and_fixes_of_a_whole_analysis(source: Path, tmp_path):
    text = source.read_text(encoding="utf-8")
    edits = _statement_edits(text)
    random.Random(source.name).shuffle(edits)
    for label, after in edits[:2]:
        try:
            compile(after, source.name, "exec")
        except SyntaxError:
            continue
        _compare(tmp_path, source.name, text, after, fixes=1)


@pytest.mark.parametrize("source", SOURCES[::5], ids=lambda p: p.name)
def test_random_editor_edits_give_the_findings_of_a_whole_analysis(source: Path, tmp_path):
    """Characters and lines typed, deleted, indented: a text that does not parse is skipped by the
    editor, and the next one is analysed against the last one that did."""
    text = source.read_text(encoding="utf-8")
    rng = random.Random(source.name)
    edits = _edits(rng)
    before = text
    for _ in range(4):
        after = rng.choice(edits)(before)
        try:
            compile(after, source.name, "exec")
        except (SyntaxError, ValueError):
            continue
        _compare(tmp_path, source.name, before, after)
        before = after


def test_an_edit_of_one_function_of_the_dense_module_analyses_that_function_and_the_imports(tmp_path):
    text = jitted_functions(300)
    after = text.replace("def f7(x, n):\n    y = jnp.sin(x) * 2.0", "def f7(x, n):\n    y = jnp.sin(x) * 3.5")
    how = _compare(tmp_path, "dense.py", text, after, fixes=50)
    assert how == "reduced 3 of 302"  # two import lines and f7


def _summaries(text: str):
    return [summarize(s) for s in cst.parse_module(text).body]


def _names(text: str, changed: int):
    module = cst.parse_module(text)
    reach = affected([summarize(s) for s in module.body], [changed])
    if reach is None:
        return None
    return sorted(module.body[i].name.value if hasattr(module.body[i], "name") else f"<{i}>" for i in reach)


LINKED = """\
import jax
import jax.numpy as jnp
from functools import partial

TABLE = {}

def helper(x):
    return x * 2

@jax.jit
def uses_helper(x):
    return helper(x) + 1

@jax.jit
def alone(x):
    return jnp.sin(x)

def fills(k, v):
    TABLE[k] = v

@jax.jit
def reads(x):
    return x * TABLE["a"]

class Model:
    def __call__(self, x):
        return self.scale * x

def configure(m):
    m.scale = 3.0

def apply(fn, x):
    return fn(x)

def local_alias(x):
    fn = jax.jit(jnp.cos)
    return fn(x)
"""


@pytest.mark.parametrize("changed, linked", [
    ("helper", ["helper", "uses_helper"]),           # a helper and the function that calls it, both ways
    ("uses_helper", ["helper", "uses_helper"]),
    ("alone", ["alone"]),                            # reads only imported names: linked to nothing
    ("fills", ["<3>", "fills", "reads"]),            # a global changed in place, its binding and its readers
    ("configure", ["Model", "configure"]),           # an attribute stored and the class that reads it
    ("apply", ["apply", "local_alias"]),             # calls by the same bare name are matched across scopes
])
def test_statements_are_linked_by_the_names_they_share(changed, linked):
    module = cst.parse_module(LINKED)
    index = next(i for i, s in enumerate(module.body) if getattr(s, "name", None) and s.name.value == changed)
    assert _names(LINKED, index) == linked


def test_an_import_affects_its_readers_and_a_dynamic_statement_affects_everything():
    text = "import jax.numpy as jnp\n\ndef a(x):\n    return jnp.sin(x)\n\ndef b(x):\n    return x\n"
    assert _names(text, 0) == ["<0>", "a"]
    assert _names(text + "\nglobals()['b'] = 1\n", 1) is None
    assert _names("from m import *\n" + text, 2) is None


def test_what_an_analysis_must_see_is_the_imports_and_the_bindings_it_reads():
    text = "import jax\nimport numpy as np\nSCALE = 2\n\ndef f(x):\n    return x * SCALE\n\ndef g(x):\n    return x\n"
    summaries = _summaries(text)
    assert needed(summaries, {3}) == {0, 1, 2, 3}


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_reduced_module_has_the_size_and_lines_of_the_module(newline):
    text = ("'''doc'''\nimport jax\n\n# a comment\n@jax.jit\ndef f(x):\n    s = '''\n  a\n'''\n    return x\n"
            "\nx = 1\ny = [\n 1,\n]\n\ndef g(x):\n    return x\n# end\n").replace("\n", newline)
    module = cst.parse_module(text)
    from jitlint.analysis.positions import module_layout

    offsets = module_layout(module, ()).statement_offsets
    ends = offsets[1:] + [len(text) - len(f"# end{newline}")]
    texts = [text[a:b] for a, b in zip(offsets, ends)]
    for keep in ({1}, {0, 4}, {2}, set(), {0, 1, 2, 3, 4}):
        made = reduced_module(module, text, texts, keep)
        assert made is not None
        reduced, code = made
        assert len(code) == len(text) and code.count(newline) == text.count(newline)
        for i in keep:  # what is kept stands where it stood
            assert code[offsets[i]:ends[i]] == texts[i]
        cst.parse_module(code)  # and it parses
