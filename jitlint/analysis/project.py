"""Several modules checked together: helpers imported from one module of the
checked folder into another are followed with the arguments they receive.

Modules are parsed lazily, the first time a traced caller needs one (a helper
module need not mention jit at all), and each keeps one analyzer, whose memo
makes every (function, argument signature) pair analysed once in the whole
project.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import libcst as cst

from jitlint.analysis import jax_api
from jitlint.analysis.cancel import checkpoint
from jitlint.analysis.discovery import FunctionInfo, ModuleIndex
from jitlint.analysis.fields import Definition
from jitlint.analysis.tracedness import Analyzer
from jitlint.notebook import is_notebook
from jitlint.source import imported_modules, may_declare_static_fields


@dataclass(eq=False)
class ModuleState:
    path: str
    source: str
    module: cst.Module
    index: ModuleIndex
    analyzer: Analyzer
    analysed: bool = False


class Project:
    def __init__(self, extra_jit: Sequence[str] = (), roots: Iterable[str] = (),
                 load_source=None, importers: Optional[Dict[str, Sequence[str]]] = None,
                 graph_importers: Optional[Dict[str, Sequence[str]]] = None) -> None:
        self.extra_jit = tuple(extra_jit)
        #: by real path: the files of the project that import the module themselves (known for the
        #: module a check analyses; its run lists the project's imports; none: nothing imports it)
        self.importers = {os.path.realpath(p): tuple(found) for p, found in (importers or {}).items()}
        #: by real path: the files that import each module of the project (from the run's import graph)
        self._graph_importers = dict(graph_importers or {})
        #: the lists of importers the analysis asked for (importers_of): what its result depends on
        self.consulted_importers: Dict[str, Tuple[str, ...]] = {}
        self.states: Dict[str, Optional[ModuleState]] = {}
        #: every function of a loaded module -> that module's analyzer
        self._analyzer_of_function: Dict[object, Analyzer] = {}
        self.roots: List[str] = [os.path.abspath(r) for r in roots]
        #: reads and parses a file: path -> (source, module), or None when it cannot
        self._load_source = load_source or _read_and_parse

    # ------------------------------------------------------------ modules
    def add(self, path: str, source: str, module: cst.Module) -> ModuleState:
        key = os.path.realpath(path)
        self.states.setdefault(key, None)  # while its index is built, a module importing back gets nothing
        # a notebook, or a module nothing in its project imports (a script, an example): its functions run
        # where its own statements call them, or after it has run (a caller in another project)
        alone = is_notebook(path) or self.importers.get(os.path.realpath(path), None) == ()
        index = ModuleIndex(module, self.extra_jit, lambda qualified: self._function_index(path, qualified),
                            resolve_class=lambda qualified: self._class_index(path, qualified),
                            never_imported=alone,
                            in_package=os.path.exists(os.path.join(os.path.dirname(os.path.abspath(path)),
                                                                   "__init__.py")))
        state = ModuleState(path, source, module, index, None)  # type: ignore[arg-type]
        state.analyzer = Analyzer(index, project=self, path=path)
        for node in index.infos:
            self._analyzer_of_function[node] = state.analyzer
        self.states[key] = state
        return state

    def release(self) -> None:
        """Once the findings are made (their fixes built): undo the links that make the analysis's objects
        a cycle (a function and its class or enclosing function, each module's index and this project, a
        body and the facts that list it), so that each module's tree and facts are freed as soon as the
        last reference goes, not by Python's cyclic collector, which would walk every node of them first
        (on the libraries corpus that walk was 8% of a check).  Nothing may use the project after."""
        for state in self.states.values():
            if state is None:
                continue
            for info in state.index.infos.values():
                info.parent = info.cls = None
                info.nested = {}
            for cls in state.index.classes.values():
                cls.methods = {}
            for held in (state.analyzer.facts, state.analyzer, state.index):
                held.__dict__.clear()
        self.states.clear()
        self._analyzer_of_function.clear()

    def importers_of(self, path: str) -> Optional[Tuple[str, ...]]:
        """The files of the project that import the module at ``path`` themselves; None: not known."""
        real = os.path.realpath(path)
        found = self.importers.get(real)
        if found is None:
            graph = self._graph_importers.get(real)
            found = None if graph is None else tuple(graph)
        if found is not None:
            self.consulted_importers[real] = found
        return found

    def analyzer_of(self, fn: FunctionInfo) -> Optional[Analyzer]:
        """The analyzer of the project module that defines ``fn`` (a function value passed from one
        module to a helper of another runs, and is reported, in its own module)."""
        return self._analyzer_of_function.get(fn.node)

    def state_for(self, path: str) -> Optional[ModuleState]:
        key = os.path.realpath(path)
        if key not in self.states:
            checkpoint()  # reading and parsing another module of the project
            loaded = self._load_source(path)
            self.states[key] = None if loaded is None else self.add(path, *loaded)
        return self.states[key]

    def analyse_all(self) -> None:
        """Run every module's own entry points (each once; helpers get added on the way)."""
        for state in list(self.states.values()):
            if state is not None and not state.analysed:
                state.analysed = True
                state.analyzer.run()

    # ----------------------------------------------------------- imports
    def resolve_function(self, from_path: Optional[str], qualified: str) -> Optional[Tuple[Analyzer, FunctionInfo]]:
        """The module-level function ``qualified`` names, if it is in a file of the project."""
        found = self._defining_module(from_path, qualified, lambda state, name: name in state.index.functions)
        if found is None:
            return None
        state, name = found
        return state.analyzer, state.index.functions[name]

    def defines_module(self, from_path: Optional[str], qualified: str) -> bool:
        """Whether the top-level package ``qualified`` starts with is part of the checked project
        (a relative name always is: ``qualify`` keeps its leading dots)."""
        if qualified.startswith("."):
            return True
        if from_path is None:
            return False
        return bool(self._module_files(from_path, qualified.split(".", 1)[0]))

    def _function_index(self, from_path: str, qualified: str) -> Optional[Tuple[ModuleIndex, str]]:
        """The index of the project module that defines the function ``qualified``, and its name there."""
        found = self._defining_module(from_path, qualified, lambda state, name: name in state.index.functions)
        return None if found is None else (found[0].index, found[1])

    def _class_index(self, from_path: str, qualified: str) -> Optional[Tuple[ModuleIndex, str]]:
        """The index of the project module that defines the class ``qualified``, and its name there."""
        found = self._defining_module(from_path, qualified, lambda state, name: name in state.index.classes)
        return None if found is None else (found[0].index, found[1])

    def _defining_module(self, from_path: Optional[str], qualified: str, defines,
                         depth: int = 0) -> Optional[Tuple[ModuleState, str]]:
        """The project module that defines ``qualified`` (``defines(state, name)``), following
        re-exports (``from .sum_partition import SumOnPartitionConstraint`` in a package's
        ``__init__``) a few steps."""
        rest = qualified.lstrip(".")
        dots = "." * (len(qualified) - len(rest))
        if from_path is None or ("." not in rest and not dots) or depth > 4:
            return None
        # (`.Environment` of `from . import Environment`: the name in the package's own `__init__`)
        module_name, _, name = (dots + rest.rpartition(".")[0], ".", rest.rpartition(".")[2]) if "." in rest \
            else (dots, ".", rest)
        for candidate in self._module_files(from_path, module_name):
            state = self.state_for(candidate)
            if state is None:
                continue
            if defines(state, name):
                return state, name
            imported = state.index.imports.aliases.get(name)
            if imported is not None:
                return self._defining_module(candidate, imported, defines, depth + 1)
            return None
        return None

    def definition_of(self, from_path: Optional[str], qualified: str) -> Optional[Definition]:
        """The module-level name (a class, a type alias) ``qualified`` names, if it is defined in a
        file of the project."""
        found = self._defining_module(from_path, qualified, lambda state, name: name in state.index.globals
                                      and state.index.globals[name].kind != "import")
        if found is None:
            return None
        state, name = found
        return Definition(state.index, state.path, name, self)

    def imported_modules(self, from_path: Optional[str], index: ModuleIndex) -> List[ModuleState]:
        """The modules of the checked code that the module ``index`` (read from ``from_path``)
        imports, or imports names from (``from pkg.control import f``: ``pkg/control.py``), and
        the modules that define the classes it imports through a package's re-exports (``from pkg
        import C``, with ``pkg/__init__.py`` importing ``C`` from ``pkg/core/_c.py``)."""
        if from_path is None:
            return []
        out: List[ModuleState] = []
        for qualified in sorted(set(index.imports.aliases.values())):
            if (qualified + ".").startswith(jax_api.EXTERNAL_PACKAGES):
                continue
            found = self._defining_module(from_path, qualified, lambda state, name: name in state.index.classes)
            if found is not None and found[0] not in out and found[0].index is not index:
                out.append(found[0])
            parent = qualified.rpartition(".")[0] or "." * (len(qualified) - len(qualified.lstrip(".")))
            for name in (qualified, parent):
                files = self._module_files(from_path, name) if name.strip(".") or name else []
                state = self.state_for(files[0]) if files else None
                if state is not None:
                    if state not in out and state.index is not index:
                        out.append(state)
                        if name == qualified:
                            out.extend(s for s in self._reexported_classes(state) if s not in out and s.index is not index)
                    break
        return out

    def _reexported_classes(self, package: ModuleState) -> List[ModuleState]:
        """The modules defining the classes a package's ``__init__`` imports by name (``import jaxlie``
        gives ``jaxlie.SO3``, defined in ``jaxlie/_so3.py``): what a module that imports the package
        gets its objects from."""
        if not package.path.endswith("__init__.py"):
            return []
        out: List[ModuleState] = []
        for qualified in sorted(set(package.index.imports.aliases.values())):
            if (qualified + ".").startswith(jax_api.EXTERNAL_PACKAGES):
                continue
            found = self._defining_module(package.path, qualified, lambda state, name: name in state.index.classes)
            if found is not None and found[0] not in out and found[0] is not package:
                out.append(found[0])
            if len(out) >= 32:
                break
        return out

    def importing_modules(self, from_path: Optional[str], field: str, any_field: bool = False) -> List[ModuleState]:
        """The modules of the project that import the module read from ``from_path`` (where known), and the
        modules they import: those whose text names ``field`` and can declare a static field of a class
        (``any_field``: names ``field`` at all) (read, not parsed, to know; parsed only then: a module's
        importers and theirs can be many)."""
        if from_path is None:
            return []
        peek = getattr(self._load_source, "peek", _read_bytes)
        out: List[ModuleState] = []
        seen = {os.path.realpath(from_path)}
        for importer in self.importers_of(from_path) or ():
            data = peek(importer)
            if data is None:
                continue
            candidates = [importer] + [files[0] for name in imported_modules(data)
                                       if not (name + ".").startswith(jax_api.EXTERNAL_PACKAGES)
                                       for files in [self._module_files(importer, name)] if files]
            for path in candidates:
                real = os.path.realpath(path)
                if real in seen:
                    continue
                seen.add(real)
                text = data if path == importer else peek(path)
                state = self.state_for(path) if text is not None and may_declare_static_fields(
                    text, field, any_field) else None
                if state is not None:
                    out.append(state)
        return out

    def _folders_up_to_root(self, directory: str) -> List[str]:
        """For a file outside any regular package (its folder has no ``__init__.py``: a script's), the folders
        from its folder's parent up to the project root holding it that are no package either (a folder a script
        is run from, on ``sys.path``); none inside a package, whose imports Python resolves from above its
        outermost package only (``import warp`` in ``mujoco/mjx/warp/`` is the installed library, not the folder)."""
        if os.path.isfile(os.path.join(directory, "__init__.py")):
            return []
        root = max((os.path.abspath(r) for r in self.roots if _within(directory, os.path.abspath(r))), key=len,
                   default=None)
        out: List[str] = []
        while root is not None and directory != root and _within(directory, root):
            directory = os.path.dirname(directory)
            if not os.path.isfile(os.path.join(directory, "__init__.py")):
                out.append(directory)
        return out

    def _module_files(self, from_path: str, module_name: str, exists=os.path.isfile) -> List[str]:
        directory = os.path.dirname(os.path.abspath(from_path))
        if module_name.startswith("."):
            dots = len(module_name) - len(module_name.lstrip("."))
            for _ in range(dots - 1):
                directory = os.path.dirname(directory)
            bases = [directory]
            parts = [p for p in module_name.lstrip(".").split(".") if p]
        else:
            # the package roots, the project roots, then the folders between the file and its project root: a
            # script run from one has it on `sys.path`, and its folders may be namespace packages (no
            # `__init__.py`: `src/algorithms/nn/DQN.py` importing `algorithms.nn.NNAgent`)
            bases = package_roots(directory) + self.roots + self._folders_up_to_root(directory)
            parts = module_name.split(".")
        out = []
        for base in bases:
            stem = os.path.join(base, *parts) if parts else base
            for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
                if exists(candidate) and candidate not in out:
                    out.append(candidate)
        return out


def _within(directory: str, root: str) -> bool:
    return directory == root or directory.startswith(root.rstrip(os.sep) + os.sep)


def package_roots(directory: str) -> List[str]:
    """The folder above the outermost package containing ``directory``, and the folder itself."""
    top = directory
    while os.path.isfile(os.path.join(top, "__init__.py")):
        parent = os.path.dirname(top)
        if parent == top:
            break
        top = parent
    return [top] if top == directory else [top, directory]


def _read_and_parse(path: str) -> Optional[Tuple[str, cst.Module]]:
    from jitlint.source import SourceError, decode_source, parse

    try:
        with open(path, "rb") as fh:
            source = decode_source(fh.read())
        return source, parse(source)
    except (OSError, SourceError, RecursionError):
        return None


def _read_bytes(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError:
        return None
