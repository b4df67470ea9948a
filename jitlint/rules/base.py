"""The rule interface and the walker that drives rules over traced code.

A rule is a small visitor: ``visit_If(self, node)`` and so on, asking the
analysis facts (:class:`jitlint.analysis.tracedness.Facts`) and calling
``self.report``.  One walker visits every traced body once and dispatches each
node to every rule that has a method for its type (a batched visitor over the
traced code only; nested functions are walked as bodies of their own).
A rule that raises is stopped for that module and leaves one finding,
:data:`INTERNAL_ERROR_CODE` ("internal error in rule JIT201
(python-branch-on-tracer): ..."), at the node it was visiting; the other rules
go on.
"""
from __future__ import annotations

import inspect
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar, Dict, Iterator, List, Optional, Sequence, Tuple, Type

import libcst as cst

from jitlint.analysis.discovery import FunctionInfo, ModuleIndex
from jitlint.analysis.scopes import BindingKind
from jitlint.analysis.idempotence import module_function, pure_function
from jitlint.analysis import jax_api
from jitlint.analysis.syntax import any_between, handler_catches, iter_children, short_code
from jitlint.analysis.tracedness import BodyInfo, Facts, casts_to_bool
from jitlint.analysis.values import Kind, Reason, Value

#: the code of the finding that stands for a crash of jitlint itself in one rule
INTERNAL_ERROR_CODE = "JIT000"

#: findings that follow from which parameters are static: not reported in a function whose static
#: spec JAX rejects (JIT502), which is never traced as written
SPEC_DEPENDENT = frozenset({"JIT201", "JIT202", "JIT203", "JIT402"})

#: the findings that stand for an error JAX raises, and the exception classes that error is
CAUGHT_AS = {
    "JIT201": jax_api.TYPE_ERRORS, "JIT202": jax_api.TYPE_ERRORS, "JIT203": jax_api.TYPE_ERRORS,
    "JIT204": jax_api.TYPE_ERRORS, "JIT301": jax_api.TYPE_ERRORS, "JIT302": jax_api.TYPE_ERRORS,
    "JIT401": jax_api.INDEX_ERRORS, "JIT402": jax_api.TYPE_ERRORS | jax_api.INDEX_ERRORS,
}
#: Python control flow on a traced value is handled as the code's own business only by a handler that
#: names the error (`except TypeError:`, `except jax.errors.TracerBoolConversionError:`): a bare
#: `except:` or `except Exception:` around an `if` is error handling in general, and under jit it takes
#: the handler's path on every call, silently (a result unlike the eager one); a conversion probe
#: (`try: host = np.asarray(x) except Exception: return False`) is caught by either
NAMED_CATCH_ONLY = frozenset({"JIT201", "JIT202", "JIT203"})


@dataclass(frozen=True)
class RawFinding:
    """A finding before positions are computed."""

    node: cst.CSTNode
    code: str
    message: str
    reason: Optional[Reason]
    fix: object = None
    #: what the finding is about (a name, or an expression's source): None -- the reported node's source
    subject: Optional[str] = None


class RuleContext:
    def __init__(self, index: ModuleIndex, facts: Facts) -> None:
        self.index = index
        self.facts = facts
        self.module = index.module
        self.body: Optional[BodyInfo] = None
        #: the parent of each node of the body being walked, by the node's id (a LibCST node hashes
        #: through a Python-level ``__hash__``: keying by ``id`` spares a call per node walked)
        self.parents: Dict[int, cst.CSTNode] = {}
        #: the node the walker is visiting (what a rule reports is it or inside it)
        self.current: Optional[cst.CSTNode] = None
        self.findings: List[RawFinding] = []

    @property
    def function(self) -> FunctionInfo:
        assert self.body is not None
        return self.body.function

    def value(self, node: Optional[cst.CSTNode]) -> Value:
        return self.facts.value(node)

    def is_traced(self, node: Optional[cst.CSTNode]) -> bool:
        return self.facts.value(node).kind is Kind.TRACED

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self.parents.get(id(node))

    def enclosing_tries(self, node: cst.CSTNode):
        """The ``try`` statements around ``node`` within its function, innermost first, each with
        the part of it (body, handler, else, finally) that holds ``node``."""
        child, parent = node, self.parents.get(id(node))
        while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            if isinstance(parent, (cst.Try, cst.TryStar)):
                yield parent, child
            child, parent = parent, self.parents.get(id(parent))

    def try_finally_around(self, node: cst.CSTNode) -> Iterator[Tuple[cst.Try, Optional[cst.CSTNode], bool]]:
        """The ``try`` statements with a ``finally`` that ``node`` runs once in (not in a loop there),
        each as (the ``try``, the statement just before it or None, whether ``node`` is in the
        ``finally``): in the guarded part (the ``try`` body, or the statement just before the
        ``try``) or in the cleanup that runs on every way out of it."""
        for stmt, part in self.enclosing_tries(node):
            if stmt.finalbody is not None and part in (stmt.body, stmt.finalbody) \
                    and not self._loop_between(node, stmt):
                yield stmt, self._sibling(stmt, -1), part is stmt.finalbody
        statement = self.statement_of(node)
        after = self._sibling(statement, 1) if statement is not None else None
        if isinstance(after, (cst.Try, cst.TryStar)) and after.finalbody is not None:
            yield after, statement, False

    def _loop_between(self, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
        return any_between(self.parents, node, outer, (cst.For, cst.While))

    def statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement line holding ``node``."""
        while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            node = self.parents.get(id(node))
        return node

    def _sibling(self, stmt: cst.CSTNode, step: int) -> Optional[cst.CSTNode]:
        """The statement ``step`` places after ``stmt`` in its block (-1: the one before)."""
        holder = self.parents.get(id(stmt))
        block = holder.body if isinstance(holder, cst.FunctionDef) else holder
        statements = getattr(block, "body", None)
        if not isinstance(statements, (list, tuple)):
            return None
        for i, other in enumerate(statements):
            if other is stmt:
                j = i + step
                return statements[j] if 0 <= j < len(statements) else None
        return None

    def is_caught(self, node: cst.CSTNode, classes: frozenset, broad: bool = True) -> bool:
        """Whether ``node`` runs in the body of a ``try`` whose handler catches one of ``classes``
        (or, with ``broad``, ``Exception`` or everything): the error JAX raises there is the code's
        own business."""
        return any(part is stmt.body and any(handler_catches(h, classes, broad, self.index.exception_classes)
                                             for h in stmt.handlers)
                   for stmt, part in self.enclosing_tries(node))

    def code(self, node: cst.CSTNode, limit: int = 40) -> str:
        return short_code(self.module, node, limit)

    def builds_purely(self, call: cst.Call) -> bool:
        """A call whose result depends only on its arguments, as far as rebuilding a value goes: a JAX
        function or transform (``jax.grad(self._loss)``), a factory of a JAX library (an optax optimizer, a
        flashbax buffer: a NamedTuple of pure functions of its hyperparameters, ``optax.adam(learning_rate=
        self.config.lr)``; not one of their random draws),
        ``functools.partial``, ``dataclasses.replace`` (a copy with the given fields), a class of the
        checked code (``Buffer(self.size)``, ``models.UNet(num_channels=self.num_channels)``), or a module
        function whose body only computes what it returns (idempotence.pure_function)."""
        q = self.qualify(call.func)
        if q is not None:
            # a class of another module of the checked code builds from its arguments as one of this module
            return q.startswith("jax.") or (q.startswith(jax_api.ECOSYSTEM_PACKAGES) and ".random" not in q) \
                or q in ("functools.partial", "dataclasses.replace") \
                or self.facts.names_class(call.func)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in jax_api.ARRAY_METHODS:
            # a method of a JAX array (immutable: `mesh_x.ravel()`, `jnp.stack(parts).sum(0)`) gives a new array
            return self._jax_array(call.func.value, self.index.owner_of(call))
        if not isinstance(call.func, cst.Name):
            return False
        owner = self.index.owner_of(call)
        if isinstance(owner, FunctionInfo) and call.func.value in owner.local_names:
            # a local bound only to classes of the checked code (`model_class = models.ResNet` in one
            # branch, `models.DenseNet` in the other): the class chosen is built from its arguments
            bindings = owner.scope.bindings.get(call.func.value, ())
            return bool(bindings) and all(b.kind is BindingKind.ASSIGNMENT and b.value is not None
                                          and self.facts.names_class(b.value) for b in bindings)
        scope = self.facts.read_scope.get(call.func)  # (recorded where traced code reads it)
        if call.func.value not in self.index.classes:
            # a module function that only computes what it returns (closures, a NamedTuple of them)
            function = module_function(self.index, call.func.value)
            return function is not None and scope in (None, "global") and pure_function(self.index, function)
        return scope is None or scope == "global"

    def _jax_array(self, node: cst.BaseExpression, owner) -> bool:
        """``node`` is a JAX array made where it is: a call of a ``jax.numpy`` / ``jax.random`` function, or a
        local of the function ``owner`` bound once (also by unpacking) to one."""
        if isinstance(node, cst.Name):
            scope = owner.scope if isinstance(owner, FunctionInfo) else None
            bindings = scope.bindings.get(node.value, ()) if scope is not None else ()
            if len(bindings) != 1 or bindings[0].loops or scope.declares(node.value):
                return False
            holder = bindings[0].node
            node = holder.value if isinstance(holder, cst.Assign) else None
        if not isinstance(node, cst.Call):
            return False
        q = self.qualify(node.func) or ""
        return q.startswith(("jax.numpy.", "jax.random.")) and jax_api.is_array_function(q)

    def traced_mask(self, index: cst.BaseExpression) -> bool:
        """Whether the index ``index`` is a traced boolean array: a comparison, a name holding one,
        ``m.astype(bool)``, ``jnp.asarray(m, dtype=jnp.bool_)``. Indexing with it (``x[m]``,
        ``x.at[m].set(v)``) needs its value to know the result's shape: under jit it raises
        ``NonConcreteBooleanIndexError``, and ``jnp.where`` over the whole array is the rewrite."""
        value = self.value(index)
        return value.kind is Kind.TRACED and (value.is_bool or self._casts_to_bool(index))

    def _casts_to_bool(self, node: cst.BaseExpression) -> bool:
        if not isinstance(node, cst.Call):
            return False
        q = self.qualify(node.func)
        if q is not None:
            where = jax_api.DTYPE_CAST_FUNCTIONS.get(q)
        elif isinstance(node.func, cst.Attribute):
            receiver = self.value(node.func.value)
            if receiver.kind is not Kind.TRACED and not receiver.jax_array:
                return False  # a value jitlint cannot place may be a host (NumPy) array
            where = jax_api.DTYPE_CAST_METHODS.get(node.func.attr.value)
        else:
            where = None
        return casts_to_bool(node, where, self.qualify, self.facts.read_scope)

    def qualify(self, node: cst.BaseExpression) -> Optional[str]:
        return self.index.qualify(node)


class Rule:
    """Base class of all rules. Subclasses set ``code`` and ``name`` and define visit_* methods."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    #: rules off by default are only run when selected explicitly
    default_enabled: ClassVar[bool] = True
    #: title of the fix this rule can offer, if any
    fix_title: ClassVar[Optional[str]] = None
    #: codes that, reported on the same line, make this finding redundant
    superseded_by: ClassVar[Tuple[str, ...]] = ()

    def __init__(self, ctx: RuleContext) -> None:
        self.ctx = ctx

    @classmethod
    def summary(cls) -> str:
        """One line: what the rule flags (the first sentence of its ``What it does``)."""
        return rule_summary(cls)

    @classmethod
    def url(cls) -> Optional[str]:
        """The rule's documentation page (None: no documentation to point at)."""
        return rule_url(cls.code)

    def report(self, node: cst.CSTNode, message: str, reason: Optional[Reason] = None, fix: object = None,
               subject: Optional[str] = None) -> None:
        caught = CAUGHT_AS.get(self.code)
        where = node if id(node) in self.ctx.parents else self.ctx.current
        if caught is not None and self.ctx.body is not None and where is not None \
                and self.ctx.is_caught(where, caught, broad=self.code not in NAMED_CATCH_ONLY):
            return  # `try: int(x) except TypeError:` handles the traced case itself
        self.ctx.findings.append(RawFinding(node, self.code, message, reason, fix, subject))


def run_rules(index: ModuleIndex, facts: Facts, rule_classes: Sequence[Type[Rule]],
              module_level: bool = True) -> List[RawFinding]:
    """Run the rules over every traced body; ``module_level`` also runs their
    ``check_module`` (not for a helper module reached from another one)."""
    ctx = RuleContext(index, facts)
    rules = [cls(ctx) for cls in rule_classes]
    dispatch: Dict[type, List[Tuple[Rule, Callable[[cst.CSTNode], None]]]] = {}

    def handlers(node_type: type) -> List[Tuple[Rule, Callable[[cst.CSTNode], None]]]:
        found = dispatch.get(node_type)
        if found is None:
            method = "visit_" + node_type.__name__
            found = dispatch[node_type] = [(rule, getattr(rule, method)) for rule in rules if hasattr(rule, method)]
        return found

    def crashed(rule: Rule, node: cst.CSTNode, exc: Exception) -> None:
        """One internal-error finding for the rule; it is not run again on this module."""
        ctx.findings.append(RawFinding(node, INTERNAL_ERROR_CODE, internal_error_message(rule, exc), None))
        rules.remove(rule)
        dispatch.clear()  # handler lists are built again without it (the one being walked is left alone)

    for rule in list(rules) if module_level else ():
        check_module = getattr(rule, "check_module", None)
        if check_module is not None:
            ctx.body = None
            try:
                check_module()
            except RecursionError:
                raise  # the caller retries on a deep stack
            except Exception as exc:  # noqa: BLE001 - a bug in one rule must not stop the others
                crashed(rule, index.module, exc)
    rejected = {entry.function for entry in index.entries if entry.spec_rejected()}
    any_dead = bool(facts.dead_blocks)  # most modules have none: no lookup per node then
    for body in facts.bodies.values():
        ctx.body = body
        ctx.parents = {}
        parents = ctx.parents
        spec_unknown = body.function in rejected
        fn = body.function.node
        roots: List[cst.CSTNode]
        if isinstance(fn, cst.Lambda):
            roots = [fn.body]
        else:
            roots = list(fn.body.body)  # the statements of an indented block, or of a one-line body
        stack = [(root, fn) for root in reversed(roots)]
        while stack:
            node, parent = stack.pop()
            if any_dead and facts.is_dead(node):
                continue  # a branch its static test rules out whenever this body is traced
            parents[id(node)] = parent
            ctx.current = node
            kind = type(node)  # the classes tested below are concrete: the exact type tells, without ABC checks
            for rule, handler in handlers(kind):
                if spec_unknown and rule.code in SPEC_DEPENDENT:
                    continue  # JAX rejects the spec: what is static is known once it is corrected
                try:
                    handler(node)
                except RecursionError:
                    raise  # the caller retries on a deep stack
                except Exception as exc:  # noqa: BLE001 - a bug in one rule must not stop the others
                    crashed(rule, node, exc)
            if kind is cst.FunctionDef or kind is cst.ClassDef:
                # decorators and defaults run here; the body is its own traced body (or not traced)
                inner = list(node.decorators)
                if kind is cst.FunctionDef:
                    inner += [param.default for param, _ in _params(node) if param.default is not None]
                stack.extend((child, node) for child in reversed(inner))
                continue
            if kind is cst.Lambda:
                stack.extend((param.default, node) for param, _ in _params(node) if param.default is not None)
                continue
            children = list(iter_children(node))
            children.reverse()
            stack.extend([(child, node) for child in children])
    return ctx.findings


def internal_error_message(rule: Rule, exc: Exception) -> str:
    detail = str(exc).splitlines()[0] if str(exc) else ""
    return f"internal error in rule {rule.code} ({rule.name}): {type(exc).__name__}" + (f": {detail}" if detail else "")


def count_once(roots: Sequence[Optional[cst.CSTNode]], accepts: Callable[[cst.CSTNode], bool]) -> Optional[int]:
    """How many nodes under ``roots`` ``accepts`` accepts, each run once whenever its root runs;
    None when one is in a loop (run any number of times).  Nested functions and classes are not
    looked into: they run when called."""
    count = 0
    stack = [(root, False) for root in roots if root is not None]
    while stack:
        node, repeated = stack.pop()
        if accepts(node):
            if repeated:
                return None
            count += 1
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            inner = repeated or isinstance(node, (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp,
                                                  cst.GeneratorExp))
            stack.extend((child, inner) for child in iter_children(node))
    return count


def _params(node):
    from jitlint.analysis.syntax import params_of

    return params_of(node.params)


# ------------------------------------------------------------------ metadata
# What the documentation, the SARIF report, the language server and `jitlint rules` say about a
# rule, read from the rule class itself (its code, name, fix title and docstring).

#: the environment variable that says where the documentation is read (the ``docs/`` folder of the
#: repository: a fork on a forge, ``https://github.com/YOU/jitlint/blob/main/docs/``, or a web server)
DOCS_URL_VARIABLE = "JITLINT_DOCS_URL"


def docs_url() -> Optional[str]:
    """Where the documentation's ``docs/`` folder is, ending in ``/``: ``JITLINT_DOCS_URL`` when set,
    else the ``docs/`` folder of the checkout jitlint runs from (a ``file://`` URI: jitlint has no
    published site), else None (an installed copy without its documentation)."""
    configured = os.environ.get(DOCS_URL_VARIABLE, "").strip()
    if configured:
        return configured if configured.endswith("/") else configured + "/"
    folder = Path(__file__).resolve().parent.parent.parent / "docs"
    if (folder / "rules" / "index.md").is_file() and (folder / "rules" / "JIT101.md").is_file():
        return folder.as_uri() + "/"
    return None


def rule_url(code: str) -> Optional[str]:
    """The page of a rule, ``rules/CODE.md`` under :func:`docs_url` (the JSON report's ``url``, SARIF's
    help URI, the language server's code description); None where there is no documentation to point at."""
    base = docs_url()
    return f"{base}rules/{code}.md" if base is not None else None


def rule_doc(rule: Type[Rule]) -> str:
    """The rule's docstring, dedented: ruff's sections, in Markdown."""
    return inspect.cleandoc(rule.__doc__ or "")


def rule_sections(rule: Type[Rule]) -> Dict[str, str]:
    """``## Heading`` -> the text under it (``Use instead:`` stays inside ``Example``)."""
    out: Dict[str, str] = {}
    heading = ""
    lines: List[str] = []
    for line in rule_doc(rule).splitlines():
        if line.startswith("## "):
            if heading or any(s.strip() for s in lines):
                out[heading] = "\n".join(lines).strip()
            heading, lines = line[3:].strip(), []
        else:
            lines.append(line)
    out[heading] = "\n".join(lines).strip()
    return out


def _plain(markdown: str) -> str:
    """Markdown prose as one line of plain text (for one-line descriptions)."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    return " ".join(text.split())


def first_sentence(text: str) -> str:
    """Up to the first ``.``, ``!`` or ``?`` that ends a sentence outside a `code span`."""
    in_code = False
    for i, ch in enumerate(text):
        if ch == "`":
            in_code = not in_code
        elif ch in ".!?" and not in_code and (i + 1 == len(text) or text[i + 1].isspace()):
            return text[:i + 1]
    return text


def rule_summary(rule: Type[Rule]) -> str:
    """The first sentence of ``What it does``: the one line that says what the rule flags."""
    return first_sentence(_plain(rule_sections(rule).get("What it does", "")))


def rule_family(rule: Type[Rule]) -> str:
    """``JIT2xx: Python control flow on traced values`` (the first line of the rule module's docstring)."""
    doc = (sys.modules[rule.__module__].__doc__ or "").strip().splitlines()
    return doc[0].rstrip(".") if doc else ""
