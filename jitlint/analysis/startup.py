"""Program order across the modules of a project: globals set only while the program starts.

A module that holds a configuration (``_CONFIG``, set by ``load_config(path)``) and reads it in traced
code is stale only if something changes it after a trace has read it.  Where every call of the
functions that set it, in this module and in the modules importing it, runs at the start of the
program -- in the body of ``main`` (run by ``if __name__ == "__main__":``) or of a function only such
code calls, not in a loop, after nothing but calls of code outside the project (argument parsing,
logging, ``jax.process_index()``, given no function of the project), of plain functions of the project
that make no other calls, and of those setters -- no trace can have run before: the value a trace reads
is the only one the program gives it.  A setter nothing in the project calls is an API whose callers
are not known, and stays a change; so does every setter where the module's importers are not known."""
import builtins
from typing import Dict, Iterable, List, Optional, Set, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.discovery import FunctionInfo, ModuleIndex
from jitlint.analysis.scopes import names_bound_in
from jitlint.analysis.syntax import calls_in

_BUILTINS = frozenset(dir(builtins))
#: how deep the chain of callers is followed (``main`` -> ``run`` -> ``setup``)
_DEPTH = 4


class _Site:
    """A call in a module of the project: the module's index and path, and the call."""

    def __init__(self, index: ModuleIndex, path: Optional[str], call: cst.Call) -> None:
        self.index, self.path, self.call = index, path, call
        self._around: Optional[Set[int]] = None

    def holds(self, node: cst.CSTNode) -> bool:
        """``node`` is the call or holds it (one walk up the index's parent links, then lookups)."""
        if self._around is None:
            self._around = set()
            current: Optional[cst.CSTNode] = self.call
            while current is not None:
                self._around.add(id(current))
                current = self.index.parents.get(id(current))
        return id(node) in self._around


def set_at_startup(project, path: Optional[str], index: ModuleIndex, writers: Set[FunctionInfo]) -> bool:
    """Every function of ``writers`` (module-level functions of ``index``'s module that change a global)
    is called in the project, and each call runs at the start of the program (see the module's
    docstring); the name of none is used other than to call it in its module."""
    if project is None or path is None or not writers or project.importers_of(path) is None:
        return False  # (who imports the module, and calls its setters, is not known)
    nodes = {w.node for w in writers}
    for writer in writers:
        if writer.parent is not None or writer.cls is not None:
            return False
        calls = [c for c in index.calls_by_name.get(writer.name, ()) if isinstance(c.func, cst.Name)]
        if len(index.mentions(writer.name)) != len(calls) + 1:
            return False  # handed on, or bound again: called where it cannot be seen
        sites = [_Site(index, path, c) for c in calls]
        sites += list(_importer_calls(project, path, writer))
        if not sites:
            return False
        checker = _Order(project, nodes)
        if not all(checker.at_start(site, 0) for site in sites):
            return False
        if not _writes_before_tracing(checker, index, path, writer):
            return False
    return True


def _writes_before_tracing(checker: "_Order", index: ModuleIndex, path: str, writer: FunctionInfo) -> bool:
    """The globals ``writer`` declares ``global`` are bound in its body before anything in it that may trace
    (``main`` sets ``rho_bar`` and then runs the jitted loop: a trace reads the value it set; one that runs
    the loop first and sets it after leaves that trace stale)."""
    node = writer.node
    if not isinstance(node, cst.FunctionDef) or not isinstance(node.body, cst.IndentedBlock):
        return True
    declared: Set[str] = set()
    stack: List[cst.CSTNode] = list(node.body.body)
    while stack:
        item = stack.pop()
        if isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(item, cst.Global):
            declared.update(n.name.value for n in item.names)
        stack.extend(item.children)
    if not declared:
        return True  # (a setter that changes an attribute or an item: see at_start)
    site = _Site(index, path, cst.Call(cst.Name("_")))  # (holds nothing: every statement is checked whole)
    traced = False
    for stmt in node.body.body:
        if traced and names_bound_in(stmt) & declared:
            return False
        if not traced and not checker._harmless(stmt, site, writer):
            traced = True
    return True


def _importer_calls(project, path: str, writer: FunctionInfo) -> Iterable[_Site]:
    """The calls of ``writer`` in the project's modules that import its module."""
    for importer in project.importers_of(path) or ():  # (known: see set_at_startup)
        state = project.state_for(importer)
        if state is None:
            continue
        for key in (writer.name, "." + writer.name):
            for call in state.index.calls_by_name.get(key, ()):
                q = state.index.qualify(call.func)
                found = project.resolve_function(importer, q) if q else None
                if found is not None and found[1].node is writer.node:
                    yield _Site(state.index, importer, call)


class _Order:
    def __init__(self, project, writers: Set[cst.CSTNode]) -> None:
        self.project = project
        self.writers = writers
        self._plain: Dict[int, bool] = {}
        self._depth = 0

    def at_start(self, site: _Site, depth: int) -> bool:
        """The call runs at the start of the program: not in a loop, after nothing that may trace, in
        module-level code or in a function itself run only at the start."""
        index, call = site.index, site.call
        if call in index.calls_in_loops or depth > _DEPTH:
            return False
        scope = index.call_scopes.get(call, (None, None))[0]
        if scope is None:
            return self._first_in(index.module.body, call, site, None)
        if scope.parent is not None or scope.cls is not None or not isinstance(scope.node, cst.FunctionDef) \
                or not isinstance(scope.node.body, cst.IndentedBlock):
            return False
        if scope.node in self.writers:
            return True  # one setter calling another: as early as the first
        analyzer = self.project.analyzer_of(scope)
        if analyzer is not None and scope in analyzer.facts.bodies:
            return False  # traced code: it runs at each trace
        if not self._first_in(scope.node.body.body, call, site, scope):
            return False
        return self._function_at_start(site, scope, depth + 1)

    def _function_at_start(self, site: _Site, fn: FunctionInfo, depth: int) -> bool:
        """Every use of ``fn`` in its module runs at the start: a call, or the function handed to a
        call that does (``app.run(main)`` under ``if __name__ == "__main__":``); and nothing in the
        project imports that module (a script), so no other module can call ``fn`` later."""
        index = site.index
        if site.path is None or self.project.importers_of(site.path) != ():
            return False
        uses = [name for name in index.mentions(fn.name) if name is not fn.node.name]
        if not uses:
            return False  # its callers are elsewhere, unknown
        for name in uses:
            call = _call_of(index, name)
            if call is None:
                return False
            if call.func is not name and not self._runs_what_it_is_given(call, index):
                return False
            if not self.at_start(_Site(index, site.path, call), depth):
                return False
        return True

    @staticmethod
    def _runs_what_it_is_given(call: cst.Call, index: ModuleIndex) -> bool:
        """A call in ``if __name__ == "__main__":`` of a function outside the project and outside JAX and
        its libraries, given the function (``app.run(main)``): it runs it once, there and then (a JAX
        transform given it traces it, again and again)."""
        q = index.qualify(call.func) or ""
        return call in index.main_calls and bool(q) and not (q + ".").startswith(jax_api.EXTERNAL_PACKAGES)

    def _first_in(self, body, call: cst.Call, site: _Site, scope: Optional[FunctionInfo]) -> bool:
        """``call`` in the block ``body``: what runs before it there, and in the blocks around it, calls
        nothing that may trace."""
        for stmt in body:
            if site.holds(stmt):
                return self._first_in_statement(stmt, call, site, scope)
            if not self._harmless(stmt, site, scope):
                return False
        return False

    def _first_in_statement(self, stmt: cst.CSTNode, call: cst.Call, site: _Site,
                            scope: Optional[FunctionInfo]) -> bool:
        if isinstance(stmt, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
            return False
        if isinstance(stmt, cst.If):
            if site.holds(stmt.test):
                return self._before_in_expression(stmt.test, call, site, scope)
            if not self._harmless(stmt.test, site, scope):
                return False
            if site.holds(stmt.body):
                return self._first_in(_statements(stmt.body), call, site, scope)
            return stmt.orelse is not None and self._first_in_statement(
                stmt.orelse if isinstance(stmt.orelse, cst.If) else stmt.orelse.body, call, site, scope)
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                if site.holds(item):
                    return self._before_in_expression(item.item, call, site, scope)
                if not self._harmless(item, site, scope):
                    return False
            return self._first_in(_statements(stmt.body), call, site, scope)
        if isinstance(stmt, cst.Try):
            return site.holds(stmt.body) and self._first_in(_statements(stmt.body), call, site, scope)
        if isinstance(stmt, (cst.IndentedBlock, cst.SimpleStatementSuite)):
            return self._first_in(_statements(stmt), call, site, scope)
        if isinstance(stmt, cst.SimpleStatementLine):
            return self._before_in_expression(stmt, call, site, scope)
        return False

    def _before_in_expression(self, node: cst.CSTNode, call: cst.Call, site: _Site,
                              scope: Optional[FunctionInfo]) -> bool:
        """The other calls of the statement that holds ``call`` (its arguments included) may not
        trace either."""
        return all(other is call or self._harmless_call(other, site, scope) for other in calls_in(node))

    def _harmless(self, node: cst.CSTNode, site: _Site, scope: Optional[FunctionInfo]) -> bool:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Import, cst.ImportFrom)):
            return True  # (a definition runs nothing; an import runs a module's set-up)
        if isinstance(node, cst.SimpleStatementLine) and all(
                isinstance(small, (cst.Import, cst.ImportFrom)) for small in node.body):
            return True
        return all(self._harmless_call(call, site, scope) for call in calls_in(node))

    def _harmless_call(self, call: cst.Call, site: _Site, scope: Optional[FunctionInfo]) -> bool:
        """A call that runs no code of the project that may trace: a function outside the project, or a
        builtin, or one of the setters, or a method of a local object (made by such calls), given no
        function of the project."""
        index, func = site.index, call.func
        for arg in call.args:
            if isinstance(arg.value, cst.Lambda) or self._project_function(arg.value, site):
                return False
        if self._project_function(func, site):
            return self._is_setter(func, site) or self._plain_callee(func, site)
        if isinstance(func, cst.Name):
            if index.qualify(func) is not None:
                return True  # imported from outside the project
            return func.value in _BUILTINS and func.value not in index.globals
        root = func
        while isinstance(root, cst.Attribute):
            root = root.value
        if isinstance(root, cst.Name):
            if index.qualify(func) is not None:
                return True  # an attribute of an imported module outside the project
            if scope is not None and any(p.name.value == root.value for p, _ in scope.params):
                return False  # a method of what the caller was given: unknown
            info = index.globals.get(root.value)
            if info is None:
                return True  # a local, made by calls that run before and are checked there
            value = getattr(info.node, "value", None)
            return info.kind == "value" and not (isinstance(value, cst.Call)
                                                 and self._project_function(value.func, site))
        return isinstance(root, cst.Call)  # (a method of a result: that call is checked on its own)

    def _project_function(self, node: cst.BaseExpression, site: _Site) -> bool:
        """``node`` names a function or class of the project (this module's, or one it imports)."""
        index = site.index
        if isinstance(node, cst.Name) and (node.value in index.functions or node.value in index.classes):
            return True
        q = index.qualify(node) if isinstance(node, (cst.Name, cst.Attribute)) else None
        return bool(q) and self.project.defines_module(site.path, q)

    def _plain_callee(self, func: cst.BaseExpression, site: _Site) -> bool:
        """A function of the project, undecorated, whose body (and its callees', a few levels deep)
        makes only such harmless calls: it runs no code that may trace (a loader that reads a file)."""
        found = self._callee(func, site)
        if found is None or self._depth > 2:
            return False
        index, path, fn = found
        key = id(fn.node)
        known = self._plain.get(key)
        if known is not None:
            return known
        self._plain[key] = False  # (recursion: not shown harmless)
        node = fn.node
        self._depth += 1
        try:
            plain = isinstance(node, cst.FunctionDef) and not node.decorators and fn.cls is None \
                and fn.parent is None and all(self._harmless_call(call, _Site(index, path, call), fn)
                                              for call in calls_in(node.body))
        finally:
            self._depth -= 1
        self._plain[key] = plain
        return plain

    def _callee(self, func: cst.BaseExpression, site: _Site) -> Optional[Tuple[ModuleIndex, Optional[str], FunctionInfo]]:
        index = site.index
        if isinstance(func, cst.Name) and func.value in index.functions:
            return index, site.path, index.functions[func.value]
        q = index.qualify(func)
        found = self.project.resolve_function(site.path, q) if q else None
        if found is None:
            return None
        return found[0].index, found[0].path, found[1]

    def _is_setter(self, func: cst.BaseExpression, site: _Site) -> bool:
        index = site.index
        if isinstance(func, cst.Name) and func.value in index.functions:
            return index.functions[func.value].node in self.writers
        q = index.qualify(func)
        found = self.project.resolve_function(site.path, q) if q else None
        return found is not None and found[1].node in self.writers


def _statements(block: cst.CSTNode) -> List[cst.CSTNode]:
    return list(block.body) if isinstance(block, (cst.IndentedBlock, cst.SimpleStatementSuite)) else [block]


def _call_of(index: ModuleIndex, name: cst.Name) -> Optional[cst.Call]:
    """The call that ``name`` is the function of, or an argument of."""
    parent = index.parents.get(id(name))
    if isinstance(parent, cst.Call) and parent.func is name:
        return parent
    if isinstance(parent, cst.Arg):
        holder = index.parents.get(id(parent))
        if isinstance(holder, cst.Call) and parent.value is name:
            return holder
    return None


__all__: Tuple[str, ...] = ("set_at_startup",)
