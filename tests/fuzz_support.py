"""Programs for the robustness fuzz test, and the properties every one of them must keep.

Two sources of programs:

* grammar-valid random programs from ``hypothesmith`` (as flake8-bugbear
  does), with every function decorated with ``@jax.jit`` so that the analysis
  has traced code to chew on;
* mutants of the repo's own fixtures (``tests/fixtures``): statements shuffled,
  dropped, copied into other scopes, wrapped in ``if`` / ``for`` / ``while`` /
  ``with`` / ``try``; names swapped; jit (and vmap, grad, partial-jit)
  decorators and transform calls inserted; CRLF line endings and form feeds.

:func:`check_program` runs the whole engine on one program -- the runner's
unit (project analysis, every rule, fixes attached), and ``fix_source`` with
unsafe fixes in both fix orders -- and asserts the properties of issue 8: no
exception escapes, no rule reports an internal error, the fixed text parses
(and compiles when the input did), fixing it again changes nothing, and each
round's edits stay inside one top-level statement (or add whole import lines),
so the file is byte-identical outside the rewritten statements.
"""
from __future__ import annotations

import keyword
import os
import random
import re
import warnings
from contextlib import contextmanager
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import libcst as cst

import jitlint.fixes
import jitlint.fixing
from jitlint.config import Config
from jitlint.diagnostics import Diagnostic, Edit, Fix
from jitlint.fixing import decode_file, fix_bytes, fix_source
from jitlint.rules.base import INTERNAL_ERROR_CODE
from jitlint.runner import run_unit

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
#: every rule, those off by default included
EVERY_RULE = Config(select=("ALL",))
HEADER = "import functools\nimport jax\nimport jax.numpy as jnp\nfrom jax import lax\nfrom functools import partial\n"

DECORATORS = [
    "jax.jit", "jax.vmap", "jax.grad", "jax.checkpoint", "jax.jit(static_argnums=0)",
    "partial(jax.jit, static_argnums=(0,))", "functools.partial(jax.jit, static_argnames='n')",
    "jax.pmap", "jax.remat",
]
#: statements that trace a function ``{f}`` of the module (inserted at module level)
TRACING_CALLS = [
    "{f}_jit = jax.jit({f})",
    "y = jax.vmap({f})(x)",
    "out = lax.fori_loop(0, n, {f}, x)",
    "carry, ys = lax.scan({f}, x, xs)",
    "out = lax.while_loop(lambda c: c < 3, {f}, x)",
    "out = lax.cond(x > 0, {f}, {f}, x)",
    "g = jax.grad({f})",
    "y = jax.jit({f}, static_argnames=('n',))(x, n=3)",
]
WRAPPERS = [
    "if {name}:\n    pass\n",
    "for {name} in range(3):\n    pass\n",
    "for {name} in {name}:\n    pass\n",
    "while {name} > 0:\n    pass\n",
    "with {name}:\n    pass\n",
    "try:\n    pass\nexcept Exception:\n    pass\n",
    "if {name} > 0:\n    pass\nelse:\n    pass\n",
]


# ------------------------------------------------------------------ corpus
def seed_corpus() -> List[Tuple[str, str]]:
    """(name, text) of every Python fixture of the repo, decoded as Python would."""
    out = []
    for folder, dirs, files in os.walk(FIXTURES):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as fh:
                    out.append((os.path.relpath(path, FIXTURES), decode_file(fh.read()).text))
    return out


class _Collect(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.blocks: List[cst.CSTNode] = []
        self.statements: List[cst.CSTNode] = []
        self.functions: List[cst.FunctionDef] = []
        self.names: List[str] = []

    def visit_Module(self, node: cst.Module) -> None:
        self.blocks.append(node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node.value)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.statements.append(node)
        return super().on_visit(node)


def _collect(module: cst.Module) -> _Collect:
    found = _Collect()
    module.visit(found)
    return found


def _with_body(block: cst.CSTNode, body: Sequence[cst.CSTNode]) -> cst.CSTNode:
    if not body:
        body = [cst.SimpleStatementLine([cst.Pass()])]
    return block.with_changes(body=tuple(body))


def _shuffle_block(module: cst.Module, rnd: random.Random) -> cst.Module:
    block = rnd.choice(_collect(module).blocks)
    body = list(block.body)
    rnd.shuffle(body)
    return module.deep_replace(block, _with_body(block, body))


def _drop_statement(module: cst.Module, rnd: random.Random) -> cst.Module:
    block = rnd.choice(_collect(module).blocks)
    body = list(block.body)
    if body:
        body.pop(rnd.randrange(len(body)))
    return module.deep_replace(block, _with_body(block, body))


def _copy_statement(module: cst.Module, rnd: random.Random) -> cst.Module:
    found = _collect(module)
    if not found.statements:
        return module
    stmt = rnd.choice(found.statements)
    block = rnd.choice(found.blocks)
    body = list(block.body)
    body.insert(rnd.randrange(len(body) + 1), stmt.deep_clone())
    return module.deep_replace(block, _with_body(block, body))


def _swap_names(module: cst.Module, rnd: random.Random) -> cst.Module:
    names = sorted(set(_collect(module).names))
    if len(names) < 2:
        return module
    old, new = rnd.sample(names, 2)

    class Swap(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            return updated.with_changes(value=new) if updated.value == old else updated

    return module.visit(Swap())


def _wrap_statement(module: cst.Module, rnd: random.Random) -> cst.Module:
    found = _collect(module)
    block = rnd.choice(found.blocks)
    body = list(block.body)
    if not body:
        return module
    i = rnd.randrange(len(body))
    # True / False / None are Name nodes too, but cannot be a loop or `with` target
    name = rnd.choice([n for n in found.names if not keyword.iskeyword(n)] or ["x"])
    wrapper = cst.parse_statement(rnd.choice(WRAPPERS).format(name=name))
    inner = wrapper.body.with_changes(body=(body[i],))
    body[i] = wrapper.with_changes(body=inner)
    return module.deep_replace(block, _with_body(block, body))


def _add_decorator(module: cst.Module, rnd: random.Random) -> cst.Module:
    functions = _collect(module).functions
    if not functions:
        return module
    fn = rnd.choice(functions)
    decorator = cst.Decorator(cst.parse_expression(rnd.choice(DECORATORS)))
    return module.deep_replace(fn, fn.with_changes(decorators=(decorator, *fn.decorators)))


def _add_tracing_call(module: cst.Module, rnd: random.Random) -> cst.Module:
    functions = _collect(module).functions
    if not functions:
        return module
    stmt = cst.parse_statement(rnd.choice(TRACING_CALLS).format(f=rnd.choice(functions).name.value))
    body = list(module.body)
    body.insert(rnd.randrange(len(body) + 1), stmt)
    return module.with_changes(body=tuple(body))


class _Expressions(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: List[cst.BaseExpression] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseExpression) and not isinstance(node, (cst.Name, cst.BaseString)):
            self.found.append(node)
        return True


def _replace_expression(module: cst.Module, rnd: random.Random) -> cst.Module:
    """One expression in place of another (the result may not even be valid Python)."""
    visitor = _Expressions()
    module.visit(visitor)
    if len(visitor.found) < 2:
        return module
    old, new = rnd.sample(visitor.found, 2)
    try:
        return module.deep_replace(old, new.deep_clone())
    except Exception:  # noqa: BLE001 - LibCST refuses this node in that place
        return module


def _add_parameter(module: cst.Module, rnd: random.Random) -> cst.Module:
    functions = _collect(module).functions
    if not functions:
        return module
    fn = rnd.choice(functions)
    extra = rnd.choice(["n", "n=3", "*args", "**kwargs", "key=None", "x"])
    params = module.code_for_node(fn.params)
    text = f"def _({params + ', ' if params.strip() else ''}{extra}): pass\n"
    try:
        new_params = cst.ensure_type(cst.parse_statement(text), cst.FunctionDef).params
    except Exception:  # noqa: BLE001 - a parameter list that cannot take this one
        return module
    return module.deep_replace(fn, fn.with_changes(params=new_params))


MUTATIONS: List[Callable[[cst.Module, random.Random], cst.Module]] = [
    _shuffle_block, _drop_statement, _copy_statement, _swap_names, _wrap_statement,
    _add_decorator, _add_decorator, _add_tracing_call, _replace_expression, _add_parameter,
]


def mutate(text: str, rnd: random.Random, steps: int) -> str:
    """``text`` after ``steps`` random mutations (and perhaps CRLF line endings or form feeds)."""
    module = cst.parse_module(HEADER + text)
    for _ in range(steps):
        mutated = rnd.choice(MUTATIONS)(module, rnd)
        try:
            mutated.code
        except Exception:  # noqa: BLE001 - a node LibCST cannot write where it was put (an expression swapped in)
            continue
        module = mutated
    out = module.code
    roll = rnd.random()
    if roll < 0.15:
        out = out.replace("\r\n", "\n").replace("\n", "\r\n")
    elif roll < 0.25:
        out = re.sub(r"\n(?=def |@|class )", "\n\f", out)
    return out


def jit_everything(text: str) -> str:
    """``text`` with ``@jax.jit`` on every function and the JAX imports in front."""

    class Jit(cst.CSTTransformer):
        def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
            decorator = cst.Decorator(cst.parse_expression("jax.jit"))
            return updated.with_changes(decorators=(decorator, *updated.decorators))

    try:
        return HEADER + cst.parse_module(text).visit(Jit()).code
    except Exception:  # noqa: BLE001 - hypothesmith text LibCST cannot take: linted as it is
        return HEADER + text


# -------------------------------------------------------------- properties
def compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            compile(text, "<fuzz>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def _top_level_spans(text: str) -> Optional[List[Tuple[int, int]]]:
    """[start, end) offsets of every top-level statement (decorators and leading lines included)."""
    try:
        module = cst.parse_module(text)
    except Exception:  # noqa: BLE001
        return None
    pos = sum(len(module.code_for_node(h)) for h in module.header)
    spans = []
    for stmt in module.body:
        size = len(module.code_for_node(stmt))
        spans.append((pos, pos + size))
        pos += size
    return spans


def _import_spans(text: str) -> List[Tuple[int, int]]:
    """[start, end) of every top-level import statement line (blank lines before it included)."""
    try:
        module = cst.parse_module(text)
    except Exception:  # noqa: BLE001
        return []
    pos = sum(len(module.code_for_node(h)) for h in module.header)
    out = []
    for stmt in module.body:
        size = len(module.code_for_node(stmt))
        if isinstance(stmt, cst.SimpleStatementLine) and all(
                isinstance(small, (cst.Import, cst.ImportFrom)) for small in stmt.body):
            out.append((pos, pos + size))
        pos += size
    return out


def _is_import_edit(text: str, edit: Edit) -> bool:
    """An import added (whole lines at the start of a line, or at the end of the text), or an import
    statement -- or a name of one -- taken out (the fix left it unused), or both at once."""
    spans = _import_spans(text)
    if any(a < edit.start and edit.end < b for a, b in spans) and \
            re.fullmatch(r"[\w.,()\s\\]*", edit.replacement):
        return True  # a name joins a from-import (`, lax`), or leaves one
    lines = [line for line in edit.replacement.splitlines() if line.strip()]
    if not all(line.startswith(("import ", "from ")) for line in lines):
        return False
    if edit.start == edit.end:
        at_line_start = edit.start in (0, len(text)) or text[edit.start - 1] in "\r\n"
        return bool(lines) and at_line_start
    # a removal: every character removed belongs to a top-level import statement
    return any(a <= edit.start and edit.end <= b for a, b in spans) or _covered(spans, edit)


def _covered(spans: List[Tuple[int, int]], edit: Edit) -> bool:
    """Whether consecutive import statements cover ``edit``'s whole range."""
    pos = edit.start
    for a, b in spans:
        if a <= pos < b:
            pos = b
        if pos >= edit.end:
            return True
    return False


def edit_violations(text: str, diagnostics: Sequence[Diagnostic], fixes: Sequence[Fix],
                    taken: Sequence[int]) -> List[str]:
    """Edits of one round that reach outside one top-level statement (and are not added imports)."""
    spans = _top_level_spans(text)
    if spans is None:
        return [f"the text a round started from does not parse: {text!r:.200}"]
    line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    by_fix = {id(d.fix): d for d in diagnostics if d.fix is not None}
    out = []
    for i in taken:
        fix = fixes[i]
        diag = by_fix.get(id(fix))
        for edit in fix.edits:
            if _is_import_edit(text, edit) or _is_helper_definition(edit, fix):
                continue
            holders = [s for s in spans if s[0] <= edit.start and edit.end <= s[1]]
            if not holders:
                out.append(f"{fix.title}: edit {edit} spans more than one top-level statement")
                continue
            if diag is None or "static_arg" in fix.title:
                continue  # static_argnames edits the jit call site, which may be elsewhere
            # a fix may rewrite the statements of the other findings of its rule too (the NumPy
            # fix rewrites every reported call when it removes the import they leave unused)
            group = [d for d in diagnostics if d.code == diag.code]
            starts = [line_starts[d.line - 1] if d.line - 1 < len(line_starts) else len(text) for d in group]
            if not any(a <= at < b for a, b in holders for at in starts) \
                    and not _calls_a_function_of(text, holders, spans, starts):
                out.append(f"{diag.code} at line {diag.line}: edit {edit} outside the finding's statement")
    return out


def _is_helper_definition(edit: Edit, fix: Fix) -> bool:
    """``edit`` inserts one module-level function definition that another edit of the fix calls (the
    staged check's raiser)."""
    if edit.start != edit.end:
        return False
    try:
        module = cst.parse_module(edit.replacement)
    except Exception:  # noqa: BLE001
        return False
    if len(module.body) != 1 or not isinstance(module.body[0], cst.FunctionDef):
        return False
    name = module.body[0].name.value
    return any(other is not edit and re.search(rf"\b{name}\b", other.replacement) for other in fix.edits)


def _calls_a_function_of(text: str, holders, spans, starts) -> bool:
    """The edit's statement uses a function defined by a statement holding one of the findings (calls it,
    or hands it to a transform), also through functions that use such a function in turn (a value threaded
    down a chain of helpers), or makes or calls a module-level jit wrapper of it (``W = jax.jit(_f)``): a
    fix that gives a function a parameter passes it at its uses, through the wrapper too (JIT101).  Or the
    edit's statement binds a name a finding's statement reads (the class whose instance it makes: a
    dataclass made frozen; the jit wrapper it calls: a static spec edited) (JIT502)."""
    defined = set()
    finding_spans = [(a, b) for a, b in spans if any(a <= at < b for at in starts)]
    for a, b in finding_spans:
        defined.update(re.findall(r"^def (\w+)", text[a:b], re.MULTILINE))
        # (a lambda jitted where it is bound, `W = jax.jit(lambda x: ...)`: its calls pass the value)
        defined.update(re.findall(r"^(\w+) = jax\.jit\(lambda\b", text[a:b], re.MULTILINE))
        # (a flax linen Module's one instance, `MODEL = Cls()`, runs `__call__` through `MODEL.apply`)
        for cls in re.findall(r"^class (\w+)\(nn\.Module\)", text[a:b], re.MULTILINE):
            defined.update(re.findall(rf"^(\w+) = {cls}\(", text, re.MULTILINE))
    grew = True
    while grew:  # the functions that use one of them, to a fixed point
        grew = False
        for a, b in spans:
            for name in re.findall(r"^def (\w+)", text[a:b], re.MULTILINE):
                if name not in defined and any(re.search(rf"\b{d}\b", text[a:b]) for d in defined):
                    defined.add(name)
                    grew = True
    # (a Haiku transform of one, `MODEL = hk.transform(_forward)`, runs it through `MODEL.apply` / `init`)
    defined |= {m for name in list(defined)
                for m in re.findall(rf"^(\w+) = .*hk\.transform\w*\({name}\)", text, re.MULTILINE)}
    made = [rf"jax\.jit\({name}\b" for name in defined]
    defined |= {wrapper for name in list(defined)
                for wrapper in re.findall(rf"^(\w+) = jax\.jit\({name}\b", text, re.MULTILINE)}
    if any(re.search(rf"\b{name}\b", text[a:b]) for a, b in holders for name in defined) \
            or any(re.search(pattern, text[a:b]) for a, b in holders for pattern in made):
        return True
    bound = set()
    for a, b in holders:
        for m in re.finditer(r"^(?:(?:def|class)\s+(\w+)|(\w+)\s*=)", text[a:b], re.MULTILINE):
            bound.add(m.group(1) or m.group(2))
    # (or the definition of a function the finding's statement calls reads it: `def run(x, cfg: Config)`, the
    # static parameter's annotation, whose dataclass is made frozen)
    called = {name for a, b in finding_spans for name in re.findall(r"\b(\w+)\(", text[a:b])}
    callee_spans = [(a, b) for a, b in spans if any(re.search(rf"^def {c}\(", text[a:b], re.MULTILINE)
                                                    for c in called)]
    # (or the class of a module object whose bound method the finding's statement jits, `W = jax.jit(OBJ.m)`:
    # the method passes what changes to a jitted twin)
    objects = {name for a, b in finding_spans for name in re.findall(r"jax\.jit\((\w+)\.", text[a:b])}
    made_of = {cls for name in objects for cls in re.findall(rf"^{name} = (\w+)\(", text, re.MULTILINE)}
    return bool(bound & made_of) or any(re.search(rf"\b{name}\b", text[a:b])
                                        for a, b in finding_spans + callee_spans for name in bound)


@contextmanager
def watching_rounds() -> Iterator[List[str]]:
    """Check every round of ``fix_source`` run inside the block; the violations found."""
    violations: List[str] = []
    linted: Dict[str, Sequence[Diagnostic]] = {}
    real_lint, real_apply = jitlint.fixing._lint, jitlint.fixing.apply_fixes

    def lint(source, *args, **kwargs):
        diagnostics, error = real_lint(source, *args, **kwargs)
        linted[source] = diagnostics or ()
        return diagnostics, error

    def apply(source, fixes):
        text, taken = real_apply(source, fixes)
        violations.extend(edit_violations(source, linted.get(source, ()), fixes, taken))
        return text, taken

    jitlint.fixing._lint, jitlint.fixing.apply_fixes = lint, apply
    builders_raise = jitlint.fixes.RAISE_ERRORS
    jitlint.fixes.RAISE_ERRORS = True
    try:
        yield violations
    finally:
        jitlint.fixing._lint, jitlint.fixing.apply_fixes = real_lint, real_apply
        jitlint.fixes.RAISE_ERRORS = builders_raise


def _internal(diagnostics: Sequence[Diagnostic]) -> List[str]:
    return [f"{d.line}:{d.column} {d.message}" for d in diagnostics if d.code == INTERNAL_ERROR_CODE]


def check_program(text: str, prefer_static: Optional[bool] = None, unsafe: bool = True) -> str:
    """Run the whole engine on ``text``; AssertionError naming the first property broken.

    Returns what happened, for statistics: "error" (the input was refused with
    a clear error), "fixed" or "clean".
    """
    valid = compiles(text)
    unit = run_unit("fuzz.py", text.encode("utf-8", "surrogatepass"), EVERY_RULE, {}, [])
    assert unit.error is None or not unit.error.internal, unit.error
    if unit.error is not None:
        # a program CPython compiles is refused only for nesting the parser cannot take, or
        # where LibCST's grammar is narrower than CPython's (and the message says so)
        assert not valid or "nested" in unit.error.message or "LibCST" in unit.error.message, unit.error
        return "error"
    for diagnostics in unit.diagnostics.values():
        assert not _internal(diagnostics), _internal(diagnostics)

    with watching_rounds() as violations:
        result = fix_source(text, "fuzz.py", EVERY_RULE, unsafe=unsafe, prefer_static=prefer_static)
    assert result.error is None, result.error
    assert not _internal(result.remaining), _internal(result.remaining)
    assert not violations, violations
    if not result.changed:
        return "clean"
    cst.parse_module(result.fixed)
    assert not valid or compiles(result.fixed), f"the fixed program does not compile:\n{result.fixed}"
    again = fix_source(result.fixed, "fuzz.py", EVERY_RULE, unsafe=unsafe, prefer_static=prefer_static)
    # converged: within the round cap nothing applicable is left, so a second run changes nothing
    assert again.error is None, again.error
    assert again.fixed == result.fixed, f"a second run changed the fixed text:\n{result.fixed}"
    if result.converged:
        assert again.rounds == 0, again.applied
    if "\r\n" in text and not re.search(r"(?<!\r)\n", text):
        new = fix_bytes(text.encode("utf-8"), "fuzz.py", EVERY_RULE, unsafe=unsafe,
                        prefer_static=prefer_static).new_bytes
        assert new is not None and not re.search(rb"(?<!\r)\n", new), "CRLF line endings not kept"
    return "fixed"
