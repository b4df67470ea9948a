"""Imports a fix adds or leaves unused: placed and removed the way isort would.

A new import goes into the block of its section -- ``__future__``, the
standard library, third party, first party, relative -- in isort's default
order: ``import x`` lines before ``from x import y`` lines, each sorted by
module name ignoring case.  ``from jax import lax`` joins an existing
one-line ``from jax import jit`` (``from jax import jit, lax``) when the
line stays within the line length.  A section with no block yet gets one of
its own, between the blocks of the sections around it, set off by blank lines.

Which block is whose is read from the module itself (nothing is imported):
standard-library modules are known by name (``sys.stdlib_module_names``);
any other absolute import is third party, as isort assumes by default, except
a block that comes after the first third-party block and shares no top-level
package with it nor holds a well-known one (:data:`KNOWN_THIRD_PARTY`), which
is first party.

An import is removed only when its name is used nowhere else in the module:
not read, bound, deleted or declared ``global`` anywhere (a function's own
``np`` counts), not listed in ``__all__`` (or ``__all__`` is not a plain list
of strings), not re-exported (``import numpy as numpy``), the statement is at
module level outside any ``if`` / ``try`` and carries no ``noqa`` comment.
Strings other than ``__all__``'s are not uses.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Iterable, List, Optional, Sequence, Tuple

import libcst as cst

from jitlint.analysis.names import dotted_name
from jitlint.analysis.syntax import is_docstring, name_references
from jitlint.diagnostics import Edit

if TYPE_CHECKING:
    from jitlint.fixes.context import FixContext

FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)

_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "abc", "argparse", "collections", "contextlib", "dataclasses", "functools", "itertools", "logging",
    "math", "operator", "os", "re", "sys", "time", "typing", "warnings"}

#: packages that are never the project's own (a block holding one is third party)
KNOWN_THIRD_PARTY = frozenset({
    "jax", "jaxlib", "numpy", "scipy", "flax", "optax", "equinox", "chex", "haiku", "orbax", "distrax", "tensorflow",
    "torch", "pandas", "matplotlib", "absl", "ml_collections", "einops", "jaxtyping", "numpyro", "blackjax", "tqdm"})

ImportNode = (cst.Import, cst.ImportFrom)


def _is_import_line(stmt: cst.CSTNode) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, ImportNode) for s in stmt.body)


def _module_of(node: cst.BaseSmallStatement) -> Tuple[str, int]:
    """(module name, number of leading dots) of an import: its first alias for ``import a, b``."""
    if isinstance(node, cst.ImportFrom):
        name = dotted_name(node.module) if node.module is not None else ""
        return name or "", len(node.relative)
    assert isinstance(node, cst.Import)
    return dotted_name(node.names[0].name) or "", 0


def _section(module: str, dots: int) -> int:
    if dots:
        return LOCAL
    root = module.split(".")[0]
    if root == "__future__":
        return FUTURE
    return STDLIB if root in _STDLIB else THIRD_PARTY


def _sort_key(node: cst.BaseSmallStatement) -> Tuple[int, str]:
    """isort's default order within a section: ``import x`` before ``from x import y``, by module."""
    module, dots = _module_of(node)
    return (1 if isinstance(node, cst.ImportFrom) else 0, "." * dots + module.lower())


def _name_key(name: str) -> Tuple[int, str]:
    """isort's ``order_by_type``: CONSTANTS, then Classes, then the rest."""
    if name.isupper() and len(name) > 1:
        return 0, name.lower()
    return (1 if name[:1].isupper() else 2), name.lower()


class _Line:
    """A module-level import statement: its index in the module body, its import, section, sort key."""

    def __init__(self, index: int, stmt: cst.SimpleStatementLine) -> None:
        self.index = index
        self.stmt = stmt
        self.node = stmt.body[0]
        self.module, dots = _module_of(self.node)
        self.section = _section(self.module, dots)
        self.key = _sort_key(self.node)


def _blocks(ctx: "FixContext") -> Tuple[List[List[_Line]], int]:
    """Runs of module-level import lines before the first definition (a blank or comment line, or
    another statement, starts a new run); and the index of the statement new imports follow when
    there is none (the docstring and ``__future__`` imports), -1 for the top."""
    blocks: List[List[_Line]] = []
    anchor = -1
    previous_import = False
    for i, stmt in enumerate(ctx.module.body):
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            break
        if _is_import_line(stmt):
            line = _Line(i, stmt)  # type: ignore[arg-type]
            if previous_import and not stmt.leading_lines:  # type: ignore[union-attr]
                blocks[-1].append(line)
            else:
                blocks.append([line])
            previous_import = True
            continue
        previous_import = False
        if i == 0 and is_docstring(stmt):
            anchor = i
    _first_party(blocks)
    return blocks, anchor


def _first_party(blocks: List[List[_Line]]) -> None:
    """A block of absolute non-stdlib imports after the first third-party one, sharing no top-level
    package with it, is first party (isort puts the project's own packages there)."""
    third = [b for b in blocks if all(line.section == THIRD_PARTY for line in b)]
    if len(third) < 2:
        return
    roots = {line.module.split(".")[0] for line in third[0]}
    for block in third[1:]:
        own = {line.module.split(".")[0] for line in block}
        if not (roots | KNOWN_THIRD_PARTY) & own:
            for line in block:
                line.section = FIRST_PARTY


# ----------------------------------------------------------------- offsets


def _code_start(ctx: "FixContext", i: int) -> int:
    """Where the code of module statement ``i`` starts (after the blank and comment lines above it)."""
    stmt = ctx.module.body[i]
    code = ctx.code(stmt)
    bare = ctx.code(stmt.with_changes(leading_lines=[]))  # type: ignore[call-arg]
    return ctx.statement_offset(i) + len(code) - len(bare)


def _statement_end(ctx: "FixContext", i: int) -> int:
    """Just after module statement ``i`` and its line break."""
    return min(ctx.statement_offset(i) + len(ctx.code(ctx.module.body[i])), len(ctx.source))


# --------------------------------------------------------------- insertion


def insertion(ctx: "FixContext", text: str) -> Edit:
    """The edit that adds the import statement ``text`` where isort would put it."""
    node = cst.parse_statement(text).body[0]  # type: ignore[attr-defined]
    module, dots = _module_of(node)
    section = _section(module, dots)
    key = _sort_key(node)
    nl = ctx.module.default_newline
    blocks, anchor = _blocks(ctx)
    if isinstance(node, cst.ImportFrom):
        merged = _merge_into_from(ctx, blocks, node)
        if merged is not None:
            return merged
    block = _target_block(blocks, section, module)
    if block is not None:
        for line in block:
            if (line.section, line.key) > (section, key):
                at = _code_start(ctx, line.index)
                return Edit(at, at, text + nl)
        return _after(ctx, block[-1].index, text + nl)
    before = [b for b in blocks if min(line.section for line in b) > section]
    after = [b for b in blocks if b not in before]
    if after and (not before or blocks.index(after[-1]) < blocks.index(before[0])):
        return _after(ctx, after[-1][-1].index, nl + text + nl)
    if before:
        at = _code_start(ctx, before[0][0].index)
        return Edit(at, at, text + nl + nl)
    at = _statement_end(ctx, anchor) if anchor >= 0 else 0
    prefix = nl if at > 0 and ctx.source[at - 1] not in "\r\n" else ""
    return Edit(at, at, prefix + text + nl)


def _after(ctx: "FixContext", i: int, text: str) -> Edit:
    """``text`` (whole lines) inserted at the start of the line after module statement ``i``."""
    at = _statement_end(ctx, i)
    if at == len(ctx.source) and at > 0 and ctx.source[at - 1] not in "\r\n":
        text = ctx.module.default_newline + text.lstrip("\r\n")  # the last line has no line break
    return Edit(at, at, text)


def _target_block(blocks: List[List[_Line]], section: int, module: str) -> Optional[List[_Line]]:
    """The block an import of ``section`` joins: one holding the same top-level package (whatever
    its blank lines made of it), else the one with most imports of its section."""
    root = module.split(".")[0]
    same = [b for b in blocks if any(line.module.split(".")[0] == root for line in b)]
    if same:
        return same[0]
    candidates = [b for b in blocks if any(line.section == section for line in b)]
    if not candidates:
        return None
    return max(candidates, key=lambda b: sum(line.section == section for line in b))


def _merge_into_from(ctx: "FixContext", blocks: List[List[_Line]], node: cst.ImportFrom) -> Optional[Edit]:
    """``from m import b`` merged into a one-line ``from m import a`` (isort combines them)."""
    assert not isinstance(node.names, cst.ImportStar)
    new_alias = node.names[0]
    wanted = dotted_name(node.module) if node.module is not None else None
    for block in blocks:
        for line in block:
            existing = line.node
            if not isinstance(existing, cst.ImportFrom) or len(line.stmt.body) != 1 or existing.relative \
                    or isinstance(existing.names, cst.ImportStar) or line.module != wanted:
                continue
            code = ctx.code(line.stmt.with_changes(leading_lines=[]))
            if "\n" in code.rstrip("\r\n") or "\\" in code:
                continue  # a parenthesised list over several lines, a continuation: left as it is
            names = list(existing.names)
            keys = [_name_key(dotted_name(a.name) or "") for a in names]
            position = len(names)
            if keys == sorted(keys):
                new_key = _name_key(dotted_name(new_alias.name) or "")
                position = next((k for k, key in enumerate(keys) if key > new_key), len(names))
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            if position == len(names):
                last = names[-1]
                names = names[:-1] + [last.with_changes(comma=comma), new_alias.with_changes(comma=last.comma)]
            else:
                names.insert(position, new_alias.with_changes(comma=comma))
            edit = ctx.replace(existing, existing.with_changes(names=names), wrap=False)
            if edit is None:
                continue
            width = len(code.rstrip("\r\n")) + len(edit.replacement) - (edit.end - edit.start)
            if width > ctx.line_length:
                return None
            return edit
    return None


# ----------------------------------------------------------------- removal


def removal(ctx: "FixContext", name: str, uses: Sequence[cst.Name]) -> Optional[Edit]:
    """The edit removing the module-level import that binds ``name``, when ``uses`` (the references
    a fix rewrites) are all the module has; None when the name is used anywhere else."""
    imports = [(i, stmt) for i, stmt in enumerate(ctx.module.body) if _is_import_line(stmt)]
    found: Optional[Tuple[int, cst.SimpleStatementLine, cst.BaseSmallStatement, cst.CSTNode]] = None
    for i, stmt in imports:
        for small in stmt.body:  # type: ignore[attr-defined]
            for alias in _aliases(small):
                if _bound_name(alias) == name:
                    if found is not None:
                        return None  # bound twice
                    found = (i, stmt, small, alias)  # type: ignore[assignment]
    if found is None:
        return None
    i, stmt, small, alias = found
    if len(stmt.body) != 1 or "noqa" in ctx.code(stmt).lower():
        return None
    if isinstance(alias, cst.ImportAlias) and alias.asname is not None and \
            dotted_name(alias.name) == name:
        return None  # `import numpy as numpy`: an explicit re-export
    wanted = {id(u) for u in uses}
    binding = _binding_name(alias)
    for ref in name_references(ctx.module, name):
        if ref is not binding and id(ref) not in wanted:
            return None
    if listed_in_all(ctx.module, name):
        return None
    names = list(small.names)  # type: ignore[attr-defined]
    if len(names) > 1:
        rest = [a for a in names if a is not alias]
        rest[-1] = rest[-1].with_changes(comma=names[-1].comma)
        return ctx.replace(small, small.with_changes(names=rest), wrap=False)
    start, end = _code_start(ctx, i), _statement_end(ctx, i)
    if _alone_in_block(ctx, i):
        start = ctx.statement_offset(i)  # the blank lines that set the block off go with it
    elif i == 0 and len(ctx.module.body) > 1 and ctx.module.body[1].leading_lines \
            and all(line.comment is None for line in ctx.module.body[1].leading_lines):  # type: ignore[attr-defined]
        end = _code_start(ctx, 1)  # (the first block of the file: the blank lines after it go, not a line too few)
    return Edit(start, end, "")


def _aliases(small: cst.CSTNode) -> Sequence[cst.ImportAlias]:
    if isinstance(small, ImportNode) and not isinstance(small.names, cst.ImportStar):
        return list(small.names)
    return []


def _binding_name(alias: cst.ImportAlias) -> cst.CSTNode:
    local: cst.CSTNode = alias.asname.name if alias.asname is not None else alias.name
    while isinstance(local, cst.Attribute):
        local = local.value
    return local


def _bound_name(alias: cst.ImportAlias) -> Optional[str]:
    local = _binding_name(alias)
    return local.value if isinstance(local, cst.Name) else None


def _alone_in_block(ctx: "FixContext", i: int) -> bool:
    """Statement ``i`` is set off by blank lines (and no comments) on both sides."""
    body = ctx.module.body
    stmt = body[i]
    lines = getattr(stmt, "leading_lines", ())
    if not lines or any(line.comment is not None for line in lines):
        return False
    if i + 1 >= len(body):
        return True
    return bool(getattr(body[i + 1], "leading_lines", ()))


def listed_in_all(module: cst.Module, name: str) -> bool:
    """``name`` is in ``__all__``, or ``__all__`` is built some way this cannot read."""
    found = False
    for ref in name_references(module, "__all__"):
        found = True
        break
    if not found:
        return False
    strings: List[str] = []
    plain = True

    class _All(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if any(isinstance(t.target, cst.Name) and t.target.value == "__all__" for t in node.targets):
                self.collect(node.value)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name) and node.target.value == "__all__":
                self.collect(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            if isinstance(node.target, cst.Name) and node.target.value == "__all__" and node.value is not None:
                self.collect(node.value)

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
                    and func.value.value == "__all__":
                nonlocal plain
                plain = False  # __all__.append(...), __all__.extend(...)

        def collect(self, value: cst.BaseExpression) -> None:
            nonlocal plain
            if not isinstance(value, (cst.List, cst.Tuple)):
                plain = False
                return
            for el in value.elements:
                if isinstance(el.value, cst.SimpleString) and isinstance(el.value.evaluated_value, str):
                    strings.append(el.value.evaluated_value)
                else:
                    plain = False

    module.visit(_All())
    return not plain or name in strings


# ------------------------------------------------------------------ edits


def merged(edits: Iterable[Edit]) -> Tuple[Edit, ...]:
    """The edits of one fix, with the imports it adds combined where they touch: two imports added
    at one place become one edit (in isort's order), and an import added where the fix removes
    another takes its place.  A fix's own edits must not touch one another."""
    out: List[Edit] = []
    for e in sorted(set(edits), key=lambda e: (e.start, e.end, _text_key(e.replacement))):
        prev = out[-1] if out else None
        if prev is None or e.start > prev.end:
            out.append(e)
            continue
        combined = _combined(prev, e)
        if combined is None:
            out.append(e)  # overlapping edits of another kind: left for apply_fixes to refuse
        else:
            out[-1] = combined
    return tuple(out)


def _combined(first: Edit, second: Edit) -> Optional[Edit]:
    inserts = [e for e in (first, second) if e.start == e.end]
    removals = [e for e in (first, second) if e.start != e.end and not e.replacement]
    if len(inserts) == 2:
        a, b = first.replacement, second.replacement
        if a.startswith(("\n", "\r")) and b.startswith(("\n", "\r")):
            b = b[len(_newline_of(b)):]  # one new block after a block, not two
        if a.endswith(("\n\n", "\r\n\r\n")) and b.endswith(("\n\n", "\r\n\r\n")):
            a = a[: len(a) - len(_newline_of(a))]  # one new block before a block, not two
        return Edit(first.start, first.end, a + b)
    if len(inserts) == 1 and len(removals) == 1:
        insert, removed = inserts[0], removals[0]
        if insert.start == removed.start:
            return Edit(removed.start, removed.end, insert.replacement)
        if insert.start == removed.end:
            return Edit(removed.start, removed.end, insert.replacement)
        if removed.start < insert.start < removed.end:
            # added after the line that goes: in its place
            text = insert.replacement.strip("\r\n")
            return Edit(removed.start, removed.end, text + _newline_of(insert.replacement))
    return None


def _newline_of(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _text_key(text: str) -> Tuple[int, Tuple[int, str]]:
    """The isort order of an added import's text (other edits first)."""
    if "import" not in text:
        return -1, (0, "")
    try:
        node = cst.parse_statement(text.strip("\r\n") + "\n").body[0]  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - not an import
        return -1, (0, "")
    if not isinstance(node, ImportNode):
        return -1, (0, "")
    module, dots = _module_of(node)
    return _section(module, dots), _sort_key(node)
