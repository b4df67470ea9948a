"""Fix fixtures: tests/fixtures/fix/<name>.in.py -> <name>.out.py.

Each fixture is checked these ways: the output is exactly the expected bytes;
it parses and compiles; fixing it again changes nothing; linting it again finds
nothing fixable for the rules that were fixed; the engine converges within its
cap; each fix, applied alone, changes only the definition holding its finding
(or the jit call site) and adds imports; the file is written atomically, with
its mode, only when it changes, and never when it does not parse; and the fix
keeps the meaning: the original run eagerly
(``jax.disable_jit()``) and the fixed one under ``jax.jit`` give the same
results (and print the same lines) on the fixture's ``EXAMPLES``, which must
take both sides of every rewritten branch and enter every rewritten loop; the
inputs of ``RAISES`` make the original raise eagerly, and the fixed one under
``jax.jit`` raise the same error (or a JAX runtime error that carries it).  An
original that ``jax.jit`` rejects (a JIT502 static argument spec) runs as the
plain Python function, which is what it means eagerly.

A line ``# fix-options: ...`` in the input selects ``safe`` (only SAFE fixes;
the default also applies UNSAFE ones) and ``prefer-static`` /
``prefer-rewrite``.
"""
import contextlib
import importlib.util
import os
import re
import stat
import sys
from typing import Dict, List, Set, Tuple

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

import jitlint.fixes
from jitlint.config import Config
from jitlint.fixing import MAX_ROUNDS, decode_file, fix_bytes, fix_file, fix_source, is_allowed

FIX_DIR = os.path.join(os.path.dirname(__file__), "fixtures", "fix")
NAMES = sorted(n[: -len(".in.py")] for n in os.listdir(FIX_DIR) if n.endswith(".in.py"))
#: a fixture's family is its name up to the first underscore (``branch_chained`` -> ``branch_``)
FAMILIES = tuple(sorted({n.split("_", 1)[0] + "_" for n in NAMES}))
OPTIONS = re.compile(r"^#\s*fix-options:\s*(.*)$", re.MULTILINE)


@pytest.fixture(autouse=True)
def builders_raise(monkeypatch):
    """A builder's internal error fails the test instead of silently offering no fix."""
    monkeypatch.setattr(jitlint.fixes, "RAISE_ERRORS", True)


def read(name: str, suffix: str) -> bytes:
    with open(os.path.join(FIX_DIR, name + suffix), "rb") as fh:
        return fh.read()


def options(data: bytes) -> Dict[str, object]:
    found = OPTIONS.search(data.decode("utf-8", "replace"))
    words = set(found.group(1).replace(",", " ").split()) if found else set()
    prefer = True if "prefer-static" in words else False if "prefer-rewrite" in words else None
    return {"unsafe": "safe" not in words, "prefer_static": prefer}


def fix(data: bytes, name: str):
    return fix_bytes(data, name + ".py", Config(), **options(data))


def test_every_family_has_ten_fixtures():
    assert len(FAMILIES) >= 11  # the families of the fixable rules: a lost folder listing fails here
    for family in FAMILIES:  # (a misspelt fixture name makes a family of one, which fails here)
        assert sum(n.startswith(family) for n in NAMES) >= 10, family
    assert all("_" in n for n in NAMES)
    for name in NAMES:
        assert os.path.exists(os.path.join(FIX_DIR, name + ".out.py")), name


@pytest.mark.parametrize("name", NAMES)
def test_output_is_exact(name):
    data = read(name, ".in.py")
    outcome = fix(data, name)
    assert outcome.error is None, outcome.error
    assert outcome.new_bytes is not None, "the fixture must change"
    expected = read(name, ".out.py")
    assert outcome.new_bytes.decode("latin-1") == expected.decode("latin-1")


@pytest.mark.parametrize("name", NAMES)
def test_output_parses_and_compiles(name):
    data = read(name, ".out.py")
    text = decode_file(data).text
    cst.parse_module(text)
    compile(data, name + ".out.py", "exec")


@pytest.mark.parametrize("name", NAMES)
def test_fixing_again_changes_nothing(name):
    data = read(name, ".out.py")
    outcome = fix(data, name)
    assert outcome.error is None
    assert outcome.new_bytes is None


@pytest.mark.parametrize("name", NAMES)
def test_nothing_fixable_left_and_converged(name):
    data = read(name, ".in.py")
    opts = options(data)
    result = fix_source(decode_file(data).text, name + ".py", Config(), **opts)
    assert result.converged and result.rounds <= MAX_ROUNDS
    fixed_codes = {a.code for a in result.applied}
    again = fix_source(result.fixed, name + ".py", Config(), **opts)
    left = [d for d in again.remaining if d.code in fixed_codes and is_allowed(d.fix, bool(opts["unsafe"]))]
    assert not left, left


@pytest.mark.parametrize("name", NAMES)
def test_files_are_written_atomically_once_and_only_when_they_parse(name, tmp_path):
    data = read(name, ".in.py")
    path = tmp_path / (name + ".py")
    path.write_bytes(data)
    os.chmod(path, 0o604)
    outcome = fix_file(str(path), **options(data))
    assert outcome.written and path.read_bytes() == read(name, ".out.py")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o604
    assert os.listdir(tmp_path) == [path.name]
    before = os.stat(path)
    assert not fix_file(str(path), **options(data)).written
    after = os.stat(path)
    assert (before.st_ino, before.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)
    broken = data + b"\ndef broken(:\n"
    path.write_bytes(broken)
    assert not fix_file(str(path), **options(data)).written
    assert path.read_bytes() == broken


def _line_spans(source: str):
    """(first line, last line) of every top-level statement, and the statements' lines."""
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return [(positions[s].start.line - len(getattr(s, "decorators", ())), positions[s].end.line)
            for s in module.body]


@pytest.mark.parametrize("name", NAMES)
def test_each_fix_changes_only_its_statement_and_imports(name):
    """Applied alone, a fix changes lines of the definition holding the finding (or the jit
    call naming it) and adds, joins or removes import lines; every other line stays byte for byte.
    A NumPy fix that removes the import rewrites the other NumPy calls too (their definitions)."""
    import difflib

    from jitlint.fixing import _lint, apply_fixes

    data = read(name, ".in.py")
    opts = options(data)
    source = decode_file(data).text
    diagnostics, error = _lint(source, name, Config(), opts["prefer_static"])
    assert error is None
    spans = _line_spans(source)
    old_lines = source.splitlines(keepends=True)
    checked = 0
    for diag in diagnostics:
        if not is_allowed(diag.fix, bool(opts["unsafe"])):
            continue
        text, taken = apply_fixes(source, [diag.fix])
        assert taken == [0]
        cst.parse_module(text)
        lines = [diag.line]
        if "remove the import" in diag.fix.title:
            lines += [d.line for d in diagnostics if d.code == diag.code]
        holder = [span for span in spans if any(span[0] <= line <= span[1] for line in lines)]
        allowed = set()
        for first, last in holder:
            allowed |= set(range(first, last + 1))
        new_lines = text.splitlines(keepends=True)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            if all(line.lstrip().startswith(("import ", "from ")) or not line.strip()
                   for line in old_lines[i1:i2] + new_lines[j1:j2]):
                continue  # an import the fix needs (and the blank line setting off its block), or left unused
            if tag == "insert" and _hoisted_above(new_lines[j1:j2], old_lines, i1, holder):
                continue  # a wrapper made once at module level, just above the definition that uses it
            if tag == "insert" and _helper_for(new_lines[j1:j2], text):
                continue  # a module-level function the fix calls (the staged check's raiser)
            # (lines inserted between two old lines: next to the definition on either side)
            changed = set(range(i1 + 1, i2 + 1)) or ({i1} if i1 in allowed else {i1 + 1})
            if not changed <= allowed:
                # the static_argnames fix edits the jit call site of the function instead, and a fix
                # that gives the function a parameter edits the statements that call it
                defined = {name for first, last in holder
                           for name in re.findall(r"^def (\w+)", "".join(old_lines[first - 1:last]), re.MULTILINE)}
                # (or a module-level jit of a lambda written in the call: `_clip = jax.jit(lambda x: ...)`)
                defined |= {name for first, last in holder for name in re.findall(
                    r"^(\w+) = jax\.jit\(lambda\b", "".join(old_lines[first - 1:last]), re.MULTILINE)}
                # (or by the name of a module-level jit wrapper of it: `_step = jax.jit(_update)`)
                defined |= {wrapper for name in list(defined) for wrapper in re.findall(
                    rf"^(\w+) = jax\.jit\({name}\b", "".join(old_lines), re.MULTILINE)}
                # (or through a Haiku transform of it, `MODEL = hk.transform(_forward)`: the calls of its
                # `apply` / `init`, and of a jit of them, `predict = jax.jit(MODEL.apply)`)
                transforms = {m for name in list(defined) for m in re.findall(
                    rf"^(\w+) = .*hk\.transform\w*\({name}\)", "".join(old_lines), re.MULTILINE)}
                # (or a flax linen Module's one instance, `MODEL = RoofSnowLoad()`, run by `MODEL.apply`)
                transforms |= {m for first, last in holder
                               for cls in re.findall(r"^class (\w+)\(nn\.Module\)", "".join(old_lines[first - 1:last]),
                                                     re.MULTILINE)
                               for m in re.findall(rf"^(\w+) = {cls}\(", "".join(old_lines), re.MULTILINE)}
                defined |= {f"{m}.{how}" for m in transforms for how in ("apply", "init")}
                defined |= {w for m in transforms for w in re.findall(
                    rf"^(\w+) = jax\.jit\({m}\.apply\)", "".join(old_lines), re.MULTILINE)}
                call_sites = [span for span in spans if "jax.jit" in "".join(old_lines[span[0] - 1:span[1]]) or any(
                    re.search(rf"\b{name}\(", "".join(old_lines[span[0] - 1:span[1]])) for name in defined)]
                # and a fix that passes a value on to the helpers the function calls edits their definitions
                held = "".join("".join(old_lines[first - 1:last]) for first, last in holder)
                call_sites += [span for span in spans if any(
                    re.search(rf"\b{callee}\(", held)
                    for callee in re.findall(r"^def (\w+)", "".join(old_lines[span[0] - 1:span[1]]), re.MULTILINE))]
                # and a fix that gives a method of the class parameters edits the calls of that method
                methods = {m for first, last in holder for m in re.findall(
                    r"^\s+def (\w+)", "".join(old_lines[first - 1:last]), re.MULTILINE)}
                call_sites += [span for span in spans if any(
                    re.search(rf"\.{m}\(", "".join(old_lines[span[0] - 1:span[1]])) for m in methods)]
                # and a fix that freezes a dataclass the statement constructs edits that class's decorator
                call_sites += [span for span in spans if any(
                    re.search(rf"\b{cls}\(", held)
                    for cls in re.findall(r"^class (\w+)", "".join(old_lines[span[0] - 1:span[1]]), re.MULTILINE))]
                # or the class of the object whose bound method the statement jits (`W = jax.jit(OBJ.method)`:
                # the method passes the values that change to a jitted twin)
                call_sites += [span for span in spans if any(
                    re.search(rf"jax\.jit\({obj}\.", held)
                    for cls in re.findall(r"^class (\w+)", "".join(old_lines[span[0] - 1:span[1]]), re.MULTILINE)
                    for obj in re.findall(rf"^(\w+) = {cls}\(", "".join(old_lines), re.MULTILINE))]
                # or the dataclass a static parameter of the jitted function is annotated with (`cfg: Config`)
                jitted = "".join("".join(old_lines[a - 1:b]) for a, b in call_sites)
                call_sites += [span for span in spans if any(
                    re.search(rf":\s*{cls}\b", jitted)
                    for cls in re.findall(r"^class (\w+)", "".join(old_lines[span[0] - 1:span[1]]), re.MULTILINE))]
                assert any(changed <= set(range(a, b + 1)) for a, b in call_sites), (diag, tag, i1, i2)
        checked += 1
    assert checked


def _helper_for(inserted, text: str) -> bool:
    """``inserted`` is one module-level function definition (with its blank lines), called in ``text``."""
    try:
        module = cst.parse_module("".join(inserted))
    except cst.ParserSyntaxError:
        return False
    if len(module.body) != 1 or not isinstance(module.body[0], cst.FunctionDef):
        return False
    name = module.body[0].name.value
    return len(re.findall(rf"\b{name}\b", text)) > 1


def _hoisted_above(inserted, old_lines, at: int, holder) -> bool:
    """``inserted`` (lines put before old line ``at`` + 1) is one module-level assignment with its blank
    lines, and only blank or comment lines stand between it and a statement holding the finding."""
    assignments = [line for line in inserted if line.strip()]
    if len(assignments) != 1 or not re.match(r"[A-Za-z_][A-Za-z0-9_]* = ", assignments[0]):
        return False
    return any(at <= first - 1 and all(not line.strip() or line.lstrip().startswith("#")
                                       for line in old_lines[at:first - 1]) for first, _ in holder)


# ------------------------------------------------------------- semantics


def load(path: str, tag: str):
    module_name = f"_jitlint_fix_{tag}_{re.sub(r'[^A-Za-z0-9_]', '_', os.path.basename(path))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(module_name, None)
    return module


def resolve(module, key: str):
    head, _, method = key.partition(".")
    obj = getattr(module, head)
    return getattr(obj, method) if method else obj


def rewritten_lines(source: str, codes_lines: Set[Tuple[str, int]]) -> List[Tuple[str, List[int]]]:
    """For each fixed `if` / loop: the first lines of the code paths the examples must take."""
    module = cst.parse_module(source)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    wanted: List[Tuple[str, List[int]]] = []

    def first_line(stmts) -> int:
        return positions[stmts[0]].start.line

    class Visit(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.blocks = []

        def visit_IndentedBlock(self, node):
            self.blocks.append(node)

        def leave_IndentedBlock(self, node):
            self.blocks.pop()

        def visit_If(self, node):
            line = positions[node.test].start.line
            if ("JIT201", line) not in codes_lines:
                return
            paths = [first_line(node.body.body)]
            if node.orelse is not None:
                orelse = node.orelse
                paths.append(positions[orelse].start.line if isinstance(orelse, cst.If)
                             else first_line(orelse.body.body))
            elif self.blocks:
                body = list(self.blocks[-1].body)
                i = body.index(node)
                if i + 1 < len(body):
                    paths.append(first_line(body[i + 1:]))
            wanted.append((f"if on line {line}", paths))

        def visit_For(self, node):
            line = positions[node.iter].start.line
            if ("JIT202", line) in codes_lines:
                wanted.append((f"for on line {line}", [first_line(node.body.body)]))

        def visit_While(self, node):
            line = positions[node.test].start.line
            if ("JIT203", line) in codes_lines:
                wanted.append((f"while on line {line}", [first_line(node.body.body)]))

    module.visit(Visit())
    return wanted


def same(a, b) -> bool:
    import jax
    import numpy as np

    leaves_a, tree_a = jax.tree_util.tree_flatten(a)
    leaves_b, tree_b = jax.tree_util.tree_flatten(b)
    if tree_a != tree_b and len(leaves_a) != len(leaves_b):
        return False
    return all(np.allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-6, equal_nan=True)
               for x, y in zip(leaves_a, leaves_b))


NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def same_output(eager: str, jitted: str) -> bool:
    """The same lines (in any order: `jax.debug.print` is unordered), numbers equal up to float32 rounding."""
    a, b = sorted(eager.splitlines()), sorted(jitted.splitlines())
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if NUMBER.sub("#", x) != NUMBER.sub("#", y):
            return False
        for u, v in zip(NUMBER.findall(x), NUMBER.findall(y)):
            if abs(float(u) - float(v)) > 1e-5 * max(1.0, abs(float(u))):
                return False
    return True


@contextlib.contextmanager
def plain_jit(jax):
    """``jax.jit`` as the identity (the plain Python function), however it is called."""

    def identity(fun=None, **_kwargs):
        return fun if fun is not None else (lambda f: f)

    real = jax.jit
    jax.jit = identity
    try:
        yield
    finally:
        jax.jit = real


@pytest.mark.parametrize("name", NAMES)
def test_fix_keeps_meaning(name, tmp_path, capsys):
    jax = pytest.importorskip("jax")
    data = read(name, ".in.py")
    for library in re.findall(r"^(?:import|from) (flax|equinox|optax)\b", decode_file(data).text, re.MULTILINE):
        pytest.importorskip(library)  # (a fixture of a library's own rule runs where the library is installed)
    in_path = os.path.join(FIX_DIR, name + ".in.py")
    out_path = os.path.join(FIX_DIR, name + ".out.py")
    try:
        original = load(in_path, "in")
    except ValueError as exc:  # JIT502: `jax.jit` rejects the spec; the plain function is the eager meaning
        assert "static_arg" in str(exc), exc
        with plain_jit(jax):
            original = load(in_path, "in")
    fixed = load(out_path, "out")
    examples = getattr(original, "EXAMPLES", None)
    assert examples, "a fix fixture needs EXAMPLES"

    result = fix_source(decode_file(data).text, name + ".py", Config(), **options(data))
    codes_lines = {(a.code, a.line) for a in result.applied}
    must_run = rewritten_lines(decode_file(data).text, codes_lines)

    executed: Set[int] = set()
    real_path = os.path.realpath(in_path)

    def tracer(frame, event, arg):
        if os.path.realpath(frame.f_code.co_filename) == real_path:
            if event == "line":
                executed.add(frame.f_lineno)
            return tracer
        return None

    capsys.readouterr()
    for key, calls in examples.items():
        for args, kwargs in calls:
            sys.settrace(tracer)
            try:
                with jax.disable_jit():
                    want = resolve(original, key)(*args, **kwargs)
            finally:
                sys.settrace(None)
            eager_out = capsys.readouterr().out
            fn = resolve(fixed, key)
            if not hasattr(fn, "lower") and key not in getattr(original, "EAGER", ()):
                # (EAGER: callers that run outside jit by nature -- a fix at the call of a jitted function)
                fn = jax.jit(fn)
            got = fn(*args, **kwargs)
            jax.effects_barrier()
            jit_out = capsys.readouterr().out
            assert same(want, got), f"{key}{args}: eager {want} != jitted {got}"
            assert same_output(eager_out, jit_out), (eager_out, jit_out)
    for key, calls in getattr(original, "RAISES", {}).items():
        # inputs the original rejects eagerly: the fixed function rejects them too, with the same error (a
        # check staged in a callback: under jit JAX raises a JaxRuntimeError that carries it)
        for args, kwargs in calls:
            sys.settrace(tracer)
            try:
                with jax.disable_jit():
                    with pytest.raises(Exception) as want:
                        resolve(original, key)(*args, **kwargs)
            finally:
                sys.settrace(None)
            fn = resolve(fixed, key)
            if not hasattr(fn, "lower"):
                fn = jax.jit(fn)
            with pytest.raises(Exception) as got:
                jax.block_until_ready(fn(*args, **kwargs))
                jax.effects_barrier()
            expected = f"{type(want.value).__name__}: {want.value}"
            assert isinstance(got.value, type(want.value)) or expected in str(got.value), (expected, got.value)
            capsys.readouterr()
    for what, lines in must_run:
        for line in lines:
            assert line in executed, f"the examples never run line {line} ({what})"
