"""What a fix builder gets to work with, and how a new tree becomes text edits.

A builder replaces nodes of the LibCST tree; :meth:`FixContext.replace` renders
the top-level statement that holds them before and after, and turns the
difference into one :class:`~jitlint.diagnostics.Edit` covering only the
characters that changed.  Everything else in the file -- comments, blank
lines, line endings, indentation -- is left byte for byte as it was.
"""
from __future__ import annotations

import keyword
from contextlib import contextmanager
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst._nodes.internal import CodegenState

from jitlint.analysis.discovery import FunctionInfo, ModuleIndex
from jitlint.analysis.syntax import iter_children, name_references
from jitlint.analysis.tracedness import Facts
from jitlint.config import DEFAULT_LINE_LENGTH
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.purity import Purity
from jitlint.fixes.templates import PathReplacer, Replacement, TemplateFiller

#: keyword names that ``jax.debug.print`` and friends reserve for themselves
RESERVED_KWARGS = frozenset({"fmt", "ordered", "partitioned"})


class FixContext:
    """The module, its analysis, and helpers to build edits; one per lint of one file."""

    def __init__(self, module: cst.Module, index: ModuleIndex, facts: Facts, source: Optional[str] = None,
                 prefer_static: Optional[bool] = None, line_length: int = DEFAULT_LINE_LENGTH,
                 statement_offsets: Optional[List[int]] = None) -> None:
        self.module = module
        self.index = index
        self.facts = facts
        self._source = source
        #: JIT201/JIT202: prefer ``static_argnames`` over a rewrite (None: each rule's default)
        self.prefer_static = prefer_static
        #: the project's line length: rewritten lines longer than this are broken inside their brackets
        self.line_length = line_length
        #: the nodes of the module's findings, by rule code (a fix may depend on the others' fixes)
        self.findings: Dict[str, List[cst.CSTNode]] = {}
        self.purity = Purity(index, facts)
        #: what the finding being fixed is about (``RawFinding.subject``: a name), while its builders run
        self.subject: Optional[str] = None
        #: the parent of every node of the module, by the node's id (built on first use; keyed by id
        #: because a LibCST node hashes through a Python-level ``__hash__``, a call per node)
        self._parents: Optional[Dict[int, cst.CSTNode]] = None
        #: the index of each module statement, by its id (see :meth:`top_index`)
        self._top_indexes: Optional[Dict[int, int]] = None
        #: where each module statement starts in the source (its blank and comment lines included);
        #: the engine passes them from its position pass (``source`` is then the generated code)
        self._top_offsets: Optional[List[int]] = statement_offsets
        self._top_codes: Dict[int, str] = {}  # the code of each module statement, by index
        self._module_names: Optional[Set[str]] = None
        self._aliases: Optional[Dict[str, str]] = None
        self._given: Dict[Optional[cst.CSTNode], Set[str]] = {}
        #: what builders work out once per file and share between findings (keyed by builder and node)
        self.memo: Dict[Tuple[object, ...], object] = {}
        self._filler: Optional[TemplateFiller] = None

    @property
    def source(self) -> str:
        """The module's text (LibCST round-trips it exactly)."""
        if self._source is None:
            self._source = self.module.code
        return self._source

    # ---------------------------------------------------------------- tree
    @property
    def config(self) -> cst.PartialParserConfig:
        return self.module.config_for_parsing

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        if self._parents is None and self.index.module is self.module and self.index.parents:
            self._parents = self.index.parents  # noted by discovery's walk of this module
        if self._parents is None:
            parents: Dict[int, cst.CSTNode] = {}
            stack: List[cst.CSTNode] = [self.module]
            while stack:
                n = stack.pop()
                for child in iter_children(n):
                    parents[id(child)] = n
                    stack.append(child)
            self._parents = parents
        return self._parents.get(id(node))

    def ancestors(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        p = self.parent(node)
        while p is not None:
            yield p
            p = self.parent(p)

    def enclosing_function(self, node: cst.CSTNode) -> Optional[FunctionInfo]:
        for a in self.ancestors(node):
            if isinstance(a, (cst.FunctionDef, cst.Lambda)):
                return self.index.infos.get(a)
        return None

    def in_traced_code(self, node: cst.CSTNode) -> bool:
        """``node`` runs in a function the analysis traced, or in one nested in such a function."""
        around = self.enclosing_function(node)
        while around is not None:
            if around in self.facts.bodies:
                return True
            around = around.parent
        return False

    def enclosing_def(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        for a in self.ancestors(node):
            if isinstance(a, cst.Lambda):
                return None
            if isinstance(a, cst.FunctionDef):
                return a
        return None

    def block_of(self, stmt: cst.CSTNode) -> Optional[Tuple[cst.CSTNode, int]]:
        """The suite holding ``stmt`` and its index in it."""
        parent = self.parent(stmt)
        if isinstance(parent, (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module)):
            for i, s in enumerate(parent.body):
                if s is stmt:
                    return parent, i
        return None

    # --------------------------------------------------------------- edits
    def _offsets(self) -> List[int]:
        if self._top_offsets is None:
            pos = sum(len(self.module.code_for_node(h)) for h in self.module.header)
            offsets = []
            for i, stmt in enumerate(self.module.body):
                offsets.append(pos)
                self._top_codes[i] = self.module.code_for_node(stmt)
                pos += len(self._top_codes[i])
            self._top_offsets = offsets
        return self._top_offsets

    def _top_code(self, i: int) -> str:
        """The code of module statement ``i`` (a slice of the source up to the next statement, when
        the offsets came from the engine: the source is the generated code then)."""
        offsets = self._offsets()
        if i not in self._top_codes:
            if i + 1 < len(offsets):
                self._top_codes[i] = self.source[offsets[i]:offsets[i + 1]]
            else:
                self._top_codes[i] = self.module.code_for_node(self.module.body[i])
        return self._top_codes[i]

    def statement_offset(self, i: int) -> int:
        """Where module statement ``i`` starts in the source (its blank and comment lines included)."""
        return self._offsets()[i]

    def top_index(self, node: cst.CSTNode) -> Optional[int]:
        """The index of the module statement holding ``node``."""
        current = node
        for a in self.ancestors(node):
            if isinstance(a, cst.Module):
                if self._top_indexes is None:  # one pass, not one per question (a module has thousands)
                    self._top_indexes = {id(stmt): i for i, stmt in reversed(list(enumerate(self.module.body)))}
                return self._top_indexes.get(id(current))
            current = a
        return None

    def replace(self, old: cst.CSTNode, new: Replacement, wrap: bool = True) -> Optional[Edit]:
        """One edit that replaces ``old`` (a node inside a top-level statement) by ``new``; with
        ``wrap``, new lines past the line length are broken (:func:`jitlint.fixes.wrap.wrapped`)."""
        return self.replace_many({old: new}, wrap)

    def replace_many(self, changes: Dict[cst.CSTNode, Replacement], wrap: bool = True) -> Optional[Edit]:
        i = self._top_of(changes)
        if i is None:
            return None
        top = self.module.body[i]
        # each replaced node with its ancestors: only the paths from the top statement down to them are visited
        chains = [[old] + list(self.ancestors(old)) for old in changes]
        on_path = {a for chain in chains for a in chain[1:]}
        start = self._offsets()[i]
        old_code = self._top_code(i)
        spliced = self._spliced(top, old_code, chains, changes, on_path, wrap)
        if spliced is not None:
            new_code, same_start, same_end = spliced
        else:
            same_start = same_end = 0
            new_top = cst.ensure_type(top.visit(PathReplacer(changes, on_path)), cst.CSTNode)
            if wrap:
                from jitlint.fixes.wrap import wrapped

                new_top, new_code = wrapped(self, old_code, new_top)
            else:
                new_code = self.module.code_for_node(new_top)
        if self.source[start:start + len(old_code)] != old_code:
            trimmed = old_code.rstrip("\r\n")
            if self.source[start:] != trimmed:
                return None
            newline = old_code[len(trimmed):]
            if not new_code.endswith(newline):
                return None
            old_code, new_code = trimmed, new_code[: len(new_code) - len(newline)]
            same_end = max(0, same_end - len(newline))
        return _diff_edit(old_code, new_code, start, same_start, same_end)

    def _spliced(self, top: cst.CSTNode, old_code: str, chains: List[List[cst.CSTNode]],
                 changes: Dict[cst.CSTNode, Replacement], on_path: Set[cst.CSTNode],
                 wrap: bool) -> Optional[Tuple[str, int, int]]:
        """The new code of module statement ``top`` (its code ``old_code``) with ``changes``, written by
        generating only the innermost statement of a block that holds them all, and how many of its
        first and last characters are the old ones; None where that cannot be done (the statement is
        the top one, its code is not found once in ``old_code``, its replacement is not statements, or
        a new line is over the line length and :func:`~jitlint.fixes.wrap.wrapped` must lay it out).
        Generating a large function's code for every fix of it cost more than the analysis.  ``chains``: each
        changed node followed by its ancestors."""
        inner = self._innermost_block_statement(top, chains)
        if inner is None:
            return None
        statement, indents = inner
        old = _code_in_block(self.module, (statement,), indents)
        at = old_code.find(old)
        if at < 0 or old_code.find(old, at + 1) >= 0:
            return None
        visited = statement.visit(PathReplacer(changes, on_path))
        parts = list(visited) if isinstance(visited, cst.FlattenSentinel) else [visited]
        if not parts or not all(isinstance(part, cst.BaseStatement) for part in parts):
            return None
        new = _code_in_block(self.module, parts, indents)
        if wrap:
            old_lines = set(old_code.splitlines())
            if any(len(line) > self.line_length and line not in old_lines for line in new.splitlines()):
                return None
        after = len(old_code) - at - len(old)
        return old_code[:at] + new + old_code[at + len(old):], at, after

    def _innermost_block_statement(self, top: cst.CSTNode, chains: List[List[cst.CSTNode]]
                                   ) -> Optional[Tuple[cst.BaseStatement, List[str]]]:
        """The innermost statement below ``top`` that holds every changed node (or is one; ``chains``: each
        with its ancestors) and stands in an indented block, with the indentation its blocks give it; None
        when that is ``top``."""
        if not chains:
            return None
        others = [{id(node) for node in chain} for chain in chains[1:]]
        for k, node in enumerate(chains[0]):
            if node is top:
                return None
            if not isinstance(node, cst.BaseStatement) or not all(id(node) in ids for ids in others):
                continue
            parent = chains[0][k + 1] if k + 1 < len(chains[0]) else None
            if not isinstance(parent, cst.IndentedBlock):
                continue
            blocks = [a for a in chains[0][k + 1:] if isinstance(a, cst.IndentedBlock)]
            indents = [self.module.default_indent if b.indent is None else b.indent for b in reversed(blocks)]
            return node, indents
        return None

    def replace_per_statement(self, changes: Dict[cst.CSTNode, Replacement]) -> Optional[List[Edit]]:
        """``changes`` spread over several module statements: one :meth:`replace_many` edit per statement
        (None when a node is in none, or one edit cannot be made)."""
        groups: Dict[int, Dict[cst.CSTNode, Replacement]] = {}
        for old, new in changes.items():
            top = self.top_index(old)
            if top is None:
                return None
            groups.setdefault(top, {})[old] = new
        edits = []
        for group in groups.values():
            edit = self.replace_many(group)
            if edit is None:
                return None
            edits.append(edit)
        return edits

    def replace_top(self, i: int, new_code: str) -> Optional[Edit]:
        """One edit that replaces the code of module statement ``i`` (its leading lines included)."""
        start = self._offsets()[i]
        old_code = self._top_code(i)
        if self.source[start:start + len(old_code)] != old_code:
            return None
        return _diff_edit(old_code, new_code, start)

    def top_code(self, i: int) -> str:
        """The code of module statement ``i``, its leading lines included."""
        return self._top_code(i)

    def _top_of(self, olds: Iterable[cst.CSTNode]) -> Optional[int]:
        """The index of the one module statement that holds all of ``olds`` (None: none, or several)."""
        tops = {self.top_index(old) for old in olds}
        if len(tops) != 1 or None in tops:
            return None
        return tops.pop()

    def replaceable(self, olds: Iterable[cst.CSTNode]) -> Optional[bool]:
        """Whether :meth:`replace_many` of nodes ``olds`` gives an edit, decided without writing the new
        code: False when they are not in one module statement, True when that statement's code stands
        in the source where its offset says (the edit is then None only if the new code is the old),
        None when that cannot be known before (the last statement of a file without a final newline)."""
        i = self._top_of(olds)
        if i is None:
            return False
        start, old_code = self._offsets()[i], self._top_code(i)
        return True if self.source[start:start + len(old_code)] == old_code else None

    def fix_later(self, applicability: Applicability, title: str, olds: Sequence[cst.CSTNode],
                  make: Callable[[], Dict[cst.CSTNode, Replacement]], imports: Sequence[Edit] = ()) -> Optional[Fix]:
        """A fix replacing nodes ``olds`` by what ``make()`` gives (the changes of :meth:`replace_many`,
        ``olds`` their keys), with the edits ``imports``: offered now, its new code written when its edits
        are built (:meth:`Fix.later`).  The caller has decided everything else that decides the fix, and
        its new code is never the old (a statement becomes another kind of statement, an expression
        another kind of expression): nothing else can leave it without an edit.  Where :meth:`replaceable`
        cannot tell, the code is written now, as :meth:`replace_many` would."""
        def edits() -> Tuple[Edit, ...]:
            changes = make()
            assert set(changes) == set(olds), "the changes replace the nodes the fix was decided on"
            edit = self.replace_many(changes)
            if edit is None:
                raise ValueError(f"the fix {title!r} was offered but its rewrite changes nothing")
            return self.fix(applicability, title, (edit,) + tuple(imports)).edits

        can = self.replaceable(olds)
        if can is None:
            edit = self.replace_many(make())
            return None if edit is None else self.fix(applicability, title, (edit,) + tuple(imports))
        return Fix.later(applicability, title, edits) if can else None

    # -------------------------------------------------------------- build
    def expr(self, template: str, **nodes: Union[cst.BaseExpression, str]) -> cst.BaseExpression:
        """Parse an expression template; ``{name}`` holes take nodes (wrapped in parentheses if needed)."""
        return self._templates().expression(template, _holes(nodes))

    def stmt(self, template: str, **nodes: Union[cst.CSTNode, str]) -> cst.BaseStatement:
        return self._templates().statement(template, _holes(nodes))

    def _templates(self) -> TemplateFiller:
        if self._filler is None:
            self._filler = TemplateFiller(self.config)
        return self._filler

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # ------------------------------------------------------------- names
    def module_names(self) -> Set[str]:
        """Every name the module binds or reads (module paths of imports and attribute names excluded)."""
        if self._module_names is None:
            self._module_names = names_in(self.module)
        return self._module_names

    def fresh_name(self, base: str, within: Optional[cst.CSTNode], taken: Iterable[str] = ()) -> str:
        """``base``, or ``base_1``, ``base_2``... unused in ``within`` and among module-level names."""
        given = self._given.setdefault(within, set())
        used = set(taken) | set(self.index.globals) | set(self.top_level_aliases()) | given
        if within is not None:
            used |= names_in(within)
        name = base
        n = 1
        while name in used or keyword.iskeyword(name):
            name = f"{base}_{n}"
            n += 1
        given.add(name)  # two fixes in one function never define the same helper name
        return name

    @contextmanager
    def tentatively(self) -> Iterator[None]:
        """Fresh names given out inside are given back after (a builder asking whether another builder
        would fix a node, without that one's names taken)."""
        saved = {within: set(names) for within, names in self._given.items()}
        try:
            yield
        finally:
            self._given = saved

    def top_level_aliases(self, before: Optional[int] = None) -> Dict[str, str]:
        """Local name -> qualified name for imports at module level (not inside functions); with
        ``before``, only the imports of the module statements before that index."""
        if before is not None:
            return _aliases_of(self.module.body[:before])
        if self._aliases is None:
            self._aliases = _aliases_of(self.module.body)
        return self._aliases

    def import_name(self, qualified: str, at: Optional[cst.CSTNode] = None
                    ) -> Optional[Tuple[str, Tuple[Edit, ...]]]:
        """How to spell ``qualified`` here (``jax.lax`` -> ``lax``), and the import edit it needs, if any.

        An existing module-level import is reused (``jnp`` for ``jax.numpy``,
        ``jax.lax`` when only ``jax`` is imported); otherwise the conventional
        import is added (``from jax import lax``, ``import jax.numpy as jnp``,
        ``from functools import partial``, ``import jax``) when its name is free.
        Where the spelling is placed at ``at`` and that runs while the module is
        imported (a decorator, a module-level statement), only the imports above
        it count: a notebook importing ``partial`` in a later cell gets the
        import added at the top (a second import of the same name is harmless).
        """
        every = self.top_level_aliases()
        before = self._import_time_index(at)
        aliases = every if before is None else self.top_level_aliases(before)
        exact = [local for local, full in aliases.items() if full == qualified and "." not in local]
        if exact:
            return sorted(exact, key=len)[0], ()
        conventional = _CONVENTIONAL.get(qualified)
        via_parent = self._via_parent(qualified, aliases)
        if via_parent is not None and qualified in _PARENT_FIRST:
            return via_parent, ()
        root = qualified.split(".")[0]
        # (a module imported only under a condition, `if HAS_JAX:`: an import added at the top would run where
        # that condition is false, and fail there)
        conditional = root not in {full.split(".")[0] for full in
                                   _aliases_of(self.module.body, nested=False).values()} \
            and root in {full.split(".")[0] for full in every.values()}
        if conventional is not None and not conditional:
            local, text = conventional
            free = local not in self.module_names() and local not in every
            if free or (local not in aliases and every.get(local) == qualified):
                return local, (self._insert_import(text),)
        if via_parent is not None:
            return via_parent, ()
        if conditional or root in self.module_names() or root in every:
            return None
        return qualified, (self._insert_import(f"import {root}"),)

    def _import_time_index(self, at: Optional[cst.CSTNode]) -> Optional[int]:
        """The index of the module statement holding ``at`` when ``at`` runs while the module is
        imported (not inside a function or lambda body); None otherwise."""
        if at is None:
            return None
        child = at
        for node in self.ancestors(at):
            if isinstance(node, (cst.FunctionDef, cst.Lambda)) and child is node.body:
                return None
            if isinstance(node, cst.Module):
                return next((i for i, stmt in enumerate(node.body) if stmt is child), None)
            child = node
        return None

    def _via_parent(self, qualified: str, aliases: Dict[str, str]) -> Optional[str]:
        """``qualified`` spelled through an imported parent module: ``jax.lax`` via ``import jax``."""
        prefix, _, suffix = qualified.rpartition(".")
        while prefix:
            for local, full in sorted(aliases.items()):
                if full == prefix and "." not in local:
                    return f"{local}.{suffix}"
            prefix, _, last = prefix.rpartition(".")
            suffix = f"{last}.{suffix}"
        return None

    def _insert_import(self, text: str) -> Edit:
        """An edit adding the import ``text`` in its block, in isort's order."""
        from jitlint.fixes.imports import insertion

        return insertion(self, text)

    def fix(self, applicability: Applicability, title: str, edits: Iterable[Edit]) -> Fix:
        """A fix of ``edits``, the imports it adds combined where they touch (see :func:`imports.merged`)."""
        from jitlint.fixes.imports import merged

        return Fix(applicability, title, merged(edits))


#: spelled through an imported parent module in preference to a new import
_PARENT_FIRST = frozenset({"functools.partial"})

_CONVENTIONAL = {
    "jax.lax": ("lax", "from jax import lax"),
    "jax.numpy": ("jnp", "import jax.numpy as jnp"),
    "functools.partial": ("partial", "from functools import partial"),
}


def _aliases_of(statements: Sequence[cst.BaseStatement], nested: bool = True) -> Dict[str, str]:
    """Local name -> qualified name for the imports of ``statements``; with ``nested``, also those in the blocks of
    a module-level ``if``/``try``/``with`` (``if HAS_JAX: import jax.numpy as jnp``): code that uses the name runs
    where the block ran, so it spells the module so (not in functions or classes)."""
    from jitlint.analysis.names import ImportTable

    table = ImportTable()
    for stmt in _import_statements(statements, nested):
        for small in stmt.body:
            if isinstance(small, cst.Import):
                table.add_import(small)
            elif isinstance(small, cst.ImportFrom):
                table.add_import_from(small)
    return dict(table.aliases)


def _import_statements(statements: Sequence[cst.BaseStatement], nested: bool) -> Iterator[cst.SimpleStatementLine]:
    for stmt in statements:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield stmt
        elif nested and isinstance(stmt, (cst.If, cst.Try, cst.With)):
            blocks: List[cst.BaseSuite] = [stmt.body]
            if isinstance(stmt, cst.If) and stmt.orelse is not None:
                blocks.append(stmt.orelse.body if isinstance(stmt.orelse, cst.Else) else cst.IndentedBlock([stmt.orelse]))
            if isinstance(stmt, cst.Try):
                blocks += [h.body for h in stmt.handlers]
                blocks += [part.body for part in (stmt.orelse, stmt.finalbody) if part is not None]
            for block in blocks:
                if isinstance(block, cst.IndentedBlock):
                    yield from _import_statements(block.body, nested)


def names_in(node: cst.CSTNode) -> Set[str]:
    """Names bound or read in ``node``: not module paths of imports, attribute names or keywords."""
    return {n.value for n in name_references(node)}


def _holes(nodes: Dict[str, Union[cst.CSTNode, str]]) -> Dict[str, cst.CSTNode]:
    out: Dict[str, cst.CSTNode] = {}
    for key, value in nodes.items():
        if isinstance(value, str):
            value = cst.Name(value) if value.isidentifier() else cst.parse_expression(value)
        if isinstance(value, cst.BaseExpression):
            value = parenthesize(value)
        out[key] = value
    return out


def parenthesize(expr: cst.BaseExpression) -> cst.BaseExpression:
    """Wrap expressions that cannot stand as an argument or lambda body as they are."""
    if isinstance(expr, (cst.Tuple, cst.NamedExpr, cst.Yield)) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _code_in_block(module: cst.Module, statements: Sequence[cst.BaseStatement], indents: Sequence[str]) -> str:
    """The code of ``statements`` as they stand in blocks indented by ``indents`` (outermost first):
    what the module's code holds for them there (a statement in a block generates the same code
    wherever it stands; the block only lends its indentation)."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens.extend(indents)
    for statement in statements:
        statement._codegen(state)
    return "".join(state.tokens)


def _diff_edit(old: str, new: str, base: int, same_start: int = 0, same_end: int = 0) -> Optional[Edit]:
    """The edit turning ``old`` (at ``base``) into ``new``, the least text replaced; ``same_start``
    and ``same_end``: how many first and last characters are known to be the same in both."""
    if old == new:
        return None
    limit = min(len(old), len(new))
    p = min(same_start, limit)
    while p < limit and old[p] == new[p]:
        p += 1
    s = min(same_end, limit - p)
    while s < limit - p and old[len(old) - 1 - s] == new[len(new) - 1 - s]:
        s += 1
    return Edit(base + p, base + len(old) - s, new[p:len(new) - s])
