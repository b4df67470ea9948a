"""Which names a piece of code reads and binds, which are live, which are surely defined.

The loop and branch rewrites move code into nested functions, so they must
know exactly which variables flow in and out: a variable is carried when it is
assigned in the moved code and *live* afterwards (backward liveness over the
function's statements), and it can only be carried when it is *definitely
defined* before (forward must-definition).  Both analyses work on LibCST
statements directly, path by path; nothing here guesses from names.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set

import libcst as cst

from jitlint.analysis.scopes import bound_by
from jitlint.analysis.syntax import assigned_names, iter_children, params_of

Names = Set[str]


# ----------------------------------------------------------------- reads


def reads(node: Optional[cst.CSTNode]) -> Names:
    """Names read by ``node`` (free names of nested functions and lambdas included)."""
    out: Names = set()
    if node is not None:
        _reads(node, out)
    return out


def _reads_all(nodes: Iterable[Optional[cst.CSTNode]], out: Names) -> None:
    for n in nodes:
        if n is not None:
            _reads(n, out)


#: the node classes :func:`_reads` treats other than by reading their children (all concrete: a
#: node's exact type tells whether it is one, without an ABC ``isinstance`` per class)
_READ_FORMS = frozenset({cst.Name, cst.Attribute, cst.Arg, cst.Lambda, cst.ListComp, cst.SetComp, cst.GeneratorExp,
                         cst.DictComp, cst.NamedExpr, cst.FunctionDef, cst.ClassDef, cst.Assign, cst.AugAssign,
                         cst.AnnAssign, cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal, cst.Param})
#: where a closure's reads start (:meth:`Liveness._closure_reads`)
_SCOPE_FORMS = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})


def _reads(node: cst.CSTNode, out: Names) -> None:
    kind = type(node)
    if kind is cst.Name:
        out.add(node.value)
    elif kind is cst.Attribute or kind is cst.Arg:
        _reads(node.value, out)
    elif kind not in _READ_FORMS:  # most nodes: what they read is what their children read
        for child in iter_children(node):
            _reads(child, out)
    elif isinstance(node, cst.Lambda):
        for p, _ in params_of(node.params):
            if p.default is not None:
                _reads(p.default, out)
        inner = reads(node.body)
        out |= inner - {p.name.value for p, _ in params_of(node.params)}
    elif isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        inner: Names = set()
        targets: Names = set()
        parts: List[cst.CSTNode] = []
        if isinstance(node, cst.DictComp):
            parts += [node.key, node.value]
        else:
            parts.append(node.elt)
        comp: Optional[cst.CompFor] = node.for_in
        while comp is not None:
            parts.append(comp.iter)
            parts.extend(i.test for i in comp.ifs)
            targets |= {n.value for n in assigned_names(comp.target)}
            comp = comp.inner_for_in
        _reads_all(parts, inner)
        out |= inner - targets
    elif isinstance(node, cst.NamedExpr):
        _reads(node.value, out)
    elif isinstance(node, cst.FunctionDef):
        _reads_all((d.decorator for d in node.decorators), out)
        params = params_of(node.params)
        _reads_all((p.default for p, _ in params), out)
        bound = {p.name.value for p, _ in params} | assigned_in(node.body.body if isinstance(
            node.body, cst.IndentedBlock) else node.body.body)
        out |= _block_reads(node.body) - bound
    elif isinstance(node, cst.ClassDef):
        _reads_all((d.decorator for d in node.decorators), out)
        _reads_all((a.value for a in node.bases), out)
        out |= _block_reads(node.body)
    elif isinstance(node, cst.Assign):
        _reads(node.value, out)
        for t in node.targets:
            _target_reads(t.target, out)
    elif isinstance(node, cst.AugAssign):
        _reads(node.value, out)
        if isinstance(node.target, cst.Name):
            out.add(node.target.value)
        else:
            _target_reads(node.target, out)
    elif isinstance(node, cst.AnnAssign):
        if node.value is not None:
            _reads(node.value, out)
        _target_reads(node.target, out)
    elif isinstance(node, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal)):
        pass
    elif isinstance(node, cst.Param):
        if node.default is not None:
            _reads(node.default, out)
    else:
        for child in iter_children(node):
            _reads(child, out)


def _target_reads(target: cst.CSTNode, out: Names) -> None:
    """Reads inside an assignment target: ``a[i] = v`` reads ``a`` and ``i``."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for el in target.elements:
            _target_reads(el.value, out)
    elif isinstance(target, cst.StarredElement):
        _target_reads(target.value, out)
    elif isinstance(target, (cst.Attribute, cst.Subscript)):
        _reads(target, out)


def _block_reads(block: cst.BaseSuite) -> Names:
    out: Names = set()
    _reads_all(block.body, out)
    return out


# ------------------------------------------------------------ assignments


def binds(small: cst.CSTNode) -> Names:
    """Names a simple statement binds (or unbinds, for ``del``): what the binding model says it
    binds (analysis.scopes.bound_by), and the walrus targets of an expression statement."""
    if type(small) is cst.Expr:
        return _walrus_targets(small.value)
    return bound_by(small)


def _walrus_targets(node: cst.CSTNode) -> Names:
    out: Names = set()
    stack = [node]
    while stack:
        n = stack.pop()
        kind = type(n)  # (concrete classes: no ABC isinstance per node)
        if kind is cst.NamedExpr:
            out |= bound_by(n)
        if kind is cst.Lambda or kind is cst.FunctionDef:
            continue
        stack.extend(iter_children(n))
    return out


def assigned_in(stmts: Sequence[cst.CSTNode]) -> Names:
    """Names bound anywhere in these statements (not inside nested functions or classes)."""
    out: Names = set()
    for stmt in stmts:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                out |= binds(small)
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef, cst.BaseSmallStatement)):
            out |= binds(stmt)
        else:
            out |= bound_by(stmt)  # a for loop's target
            if isinstance(stmt, cst.With):
                for item in stmt.items:
                    out |= bound_by(item)
            for block in sub_blocks(stmt):
                out |= assigned_in(block)
            if isinstance(stmt, (cst.If, cst.While)):
                out |= _walrus_targets(stmt.test)
    return out


def sub_blocks(stmt: cst.CSTNode) -> List[Sequence[cst.CSTNode]]:
    """The statement lists directly inside a compound statement."""
    blocks: List[Sequence[cst.CSTNode]] = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite):
        blocks.append(body.body)
    orelse = getattr(stmt, "orelse", None)
    if isinstance(orelse, cst.If):
        blocks.append([orelse])
    elif isinstance(orelse, cst.Else):
        blocks.append(orelse.body.body)
    for handler in getattr(stmt, "handlers", ()) or ():
        blocks.append(handler.body.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        blocks.append(final.body.body)
    for case in getattr(stmt, "cases", ()) or ():
        blocks.append(case.body.body)
    return blocks


def block_statements(block: cst.BaseSuite) -> List[cst.CSTNode]:
    """Statements of a block; the small statements of a one-line suite each count as one."""
    if isinstance(block, cst.SimpleStatementSuite):
        return list(block.body)
    return list(block.body)


# -------------------------------------------------------------- liveness


class _Loop:
    def __init__(self, after: Names, head: Names) -> None:
        self.after = after
        self.head = head


class Liveness:
    """Backward liveness over one function body, probing chosen statements.

    ``after[stmt]`` is the set of names that may be read after ``stmt`` runs
    before they are assigned again.  Names read by nested functions of the
    function are always live (a closure reads the variable when it is called).
    """

    def __init__(self, function: Optional[cst.FunctionDef], probes: Iterable[cst.CSTNode] = ()) -> None:
        self.function = function
        self.probes = set(probes)
        self.after: Dict[cst.CSTNode, Names] = {p: set() for p in self.probes}
        self.heads: Dict[cst.CSTNode, Names] = {}
        self.closure_reads: Names = set()
        if function is not None:
            self.closure_reads = self._closure_reads(function)
            self.block(block_statements(function.body), set(), [])

    @staticmethod
    def _closure_reads(function: cst.FunctionDef) -> Names:
        out: Names = set()
        stack: List[cst.CSTNode] = list(block_statements(function.body))
        while stack:
            n = stack.pop()
            if type(n) in _SCOPE_FORMS:
                out |= reads(n)
                continue
            stack.extend(iter_children(n))
        return out

    def live_after(self, stmt: cst.CSTNode) -> Names:
        return self.after.get(stmt, set()) | self.closure_reads

    def head(self, loop: cst.CSTNode) -> Names:
        """Names live at the head of a probed loop (what one iteration hands the next)."""
        return self.heads.get(loop, set()) | self.closure_reads

    def block(self, stmts: Sequence[cst.CSTNode], out: Names, loops: List[_Loop]) -> Names:
        live = set(out)
        for stmt in reversed(list(stmts)):
            live = self.stmt(stmt, live, loops)
        return live

    def stmt(self, stmt: cst.CSTNode, out: Names, loops: List[_Loop]) -> Names:
        if stmt in self.probes:
            self.after[stmt] |= out
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            live = set(out)
            for small in reversed(list(stmt.body)):
                live = self.small(small, live, loops)
            return live
        if isinstance(stmt, cst.BaseSmallStatement):
            return self.small(stmt, out, loops)
        if isinstance(stmt, cst.If):
            body_in = self.block(block_statements(stmt.body), out, loops)
            if isinstance(stmt.orelse, cst.If):
                else_in = self.stmt(stmt.orelse, out, loops)
            elif isinstance(stmt.orelse, cst.Else):
                else_in = self.block(block_statements(stmt.orelse.body), out, loops)
            else:
                else_in = set(out)
            return reads(stmt.test) | body_in | else_in
        if isinstance(stmt, (cst.For, cst.While)):
            else_in = self.block(block_statements(stmt.orelse.body), out, loops) if stmt.orelse else set(out)
            head = set(else_in)
            if isinstance(stmt, cst.While):
                head |= reads(stmt.test)
            targets = bound_by(stmt)  # a for loop's target
            for _ in range(50):
                body_in = self.block(block_statements(stmt.body), head, loops + [_Loop(out, head)])
                new = set(else_in) | (body_in - targets)
                if isinstance(stmt, cst.While):
                    new |= reads(stmt.test)
                if isinstance(stmt, cst.For):
                    tr: Names = set()
                    _target_reads(stmt.target, tr)
                    new |= tr
                if new <= head:
                    break
                head |= new
            if stmt in self.probes:
                self.heads[stmt] = set(head)
            if isinstance(stmt, cst.For):
                return head | reads(stmt.iter)
            return head
        if isinstance(stmt, cst.With):
            names: Names = set()
            used: Names = set()
            for item in stmt.items:
                used |= reads(item.item)
                names |= bound_by(item)
            return used | (self.block(block_statements(stmt.body), out, loops) - names)
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return (out - {stmt.name.value}) | reads(stmt)
        # try / match / anything else: everything it reads, and whatever is live after
        inner: Names = set()
        for block in sub_blocks(stmt):
            inner |= self.block(block, out | _all_loop_sets(loops), loops)
        return out | inner | reads(stmt)

    def small(self, small: cst.CSTNode, out: Names, loops: List[_Loop]) -> Names:
        kind = type(small)  # the small statement classes are concrete: the exact type tells
        if kind is cst.Return:
            return reads(small.value)
        if kind is cst.Raise:
            return reads(small.exc) | reads(small.cause)
        if kind is cst.Break:
            return set(loops[-1].after) if loops else set(out)
        if kind is cst.Continue:
            return set(loops[-1].head) if loops else set(out)
        if kind is cst.Global or kind is cst.Nonlocal or kind is cst.Pass:
            return set(out)
        if kind is cst.Del:
            return (out - binds(small)) | _del_reads(small)
        return (out - binds(small)) | reads(small)


def live_in(stmts: Sequence[cst.CSTNode], out: Names) -> Names:
    """Names read by ``stmts`` before being assigned (plus ``out``, where not assigned first)."""
    return Liveness(None).block(stmts, set(out), [])


def surely_assigned(stmts: Sequence[cst.CSTNode]) -> FrozenSet[str]:
    """Names assigned on every path through ``stmts`` that completes."""
    return Definitions(None).block(stmts, frozenset()) or frozenset()


def _del_reads(small: cst.Del) -> Names:
    out: Names = set()
    _target_reads(small.target, out)
    return out


def _all_loop_sets(loops: List[_Loop]) -> Names:
    out: Names = set()
    for loop in loops:
        out |= loop.after | loop.head
    return out


# ------------------------------------------------------ must-definition


class Definitions:
    """Forward must-definition over one function body: names surely bound before a statement."""

    def __init__(self, function: Optional[cst.FunctionDef], probes: Iterable[cst.CSTNode] = ()) -> None:
        self.probes = set(probes)
        self.before: Dict[cst.CSTNode, FrozenSet[str]] = {}
        if function is not None:
            params = {p.name.value for p, _ in params_of(function.params)}
            self.block(block_statements(function.body), frozenset(params))

    def defined_before(self, stmt: cst.CSTNode) -> FrozenSet[str]:
        return self.before.get(stmt, frozenset())

    def _probe(self, stmt: cst.CSTNode, defined: FrozenSet[str]) -> None:
        if stmt in self.probes:
            old = self.before.get(stmt)
            self.before[stmt] = defined if old is None else old & defined

    def block(self, stmts: Sequence[cst.CSTNode], defined: FrozenSet[str]) -> Optional[FrozenSet[str]]:
        """What is surely defined after the block, or None when it never completes."""
        current: Optional[FrozenSet[str]] = defined
        for stmt in stmts:
            if current is None:
                # unreachable code: probes in it see nothing defined
                self._unreachable(stmt)
                continue
            current = self.stmt(stmt, current)
        return current

    def _unreachable(self, stmt: cst.CSTNode) -> None:
        self._probe(stmt, frozenset())
        for block in sub_blocks(stmt):
            for inner in block:
                self._unreachable(inner)

    def stmt(self, stmt: cst.CSTNode, defined: FrozenSet[str]) -> Optional[FrozenSet[str]]:
        self._probe(stmt, defined)
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite, cst.BaseSmallStatement)):
            current = set(defined)
            smalls = [stmt] if isinstance(stmt, cst.BaseSmallStatement) else stmt.body
            for small in smalls:
                self._probe(small, frozenset(current))
                if isinstance(small, (cst.Return, cst.Raise, cst.Break, cst.Continue)):
                    return None
                if isinstance(small, cst.Del):
                    current -= binds(small)
                else:
                    current |= binds(small)
            return frozenset(current)
        if isinstance(stmt, cst.If):
            defined = defined | frozenset(_walrus_targets(stmt.test))
            a = self.block(block_statements(stmt.body), defined)
            if isinstance(stmt.orelse, cst.If):
                b = self.stmt(stmt.orelse, defined)
            elif isinstance(stmt.orelse, cst.Else):
                b = self.block(block_statements(stmt.orelse.body), defined)
            else:
                b = defined
            if a is None:
                return b
            if b is None:
                return a
            return a & b
        if isinstance(stmt, (cst.For, cst.While)):
            inner = defined
            if isinstance(stmt, cst.For):
                inner = defined | frozenset(bound_by(stmt))
            self.block(block_statements(stmt.body), inner)
            if stmt.orelse is not None:
                return self.block(block_statements(stmt.orelse.body), defined)
            return defined
        if isinstance(stmt, cst.With):
            names = set()
            for item in stmt.items:
                names |= bound_by(item)
            return self.block(block_statements(stmt.body), defined | frozenset(names))
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return defined | {stmt.name.value}
        for block in sub_blocks(stmt):
            self.block(block, defined)
        return defined
