"""Fixes for JIT1xx: ``print`` -> ``jax.debug.print``; a logging call -> ``jax.debug.callback``
(:func:`to_logging_callback`).

``print(a, b)`` becomes ``jax.debug.print("{!s} {!s}", a, b)``: ``print``
calls ``str()``, while a bare ``{}`` calls ``format()``, and the two differ for
0-d floats under NumPy 2 (``1.9`` against ``1.899999976158142``).  Literal strings
and numbers are folded into the format string (braces escaped), ``sep=`` and
``end=`` are folded in too, and f-strings become a format string whose fields
are passed as keyword arguments (``f"loss={loss:.3f}"`` ->
``jax.debug.print("loss={loss:.3f}", loss=loss)``; expressions get fresh
names).  The format string is never an f-string: an f-string of a tracer is
formatted once, at trace time.

Static values (shapes, dtypes, Python numbers) are formatted at trace time with
``str()`` / ``repr()`` / ``format()`` and passed as strings: handed to
``jax.debug.print`` as they are, a shape tuple would print as
``(Array(3, dtype=int32),)`` and a Python float as a float32.

Safety: SAFE when every argument is a literal, a value proven static
(:func:`proven_static`) or a traced array, and the ``print`` is the only print in its function.  The computed
values are the same for every input and under every transformation
(``jax.debug.print`` has no outputs), and one call prints what eager execution
prints.  What changes is *when* it prints: on every call of the compiled
function instead of once per trace, asynchronously, once per element under
``vmap`` and for the primal only under ``grad`` -- which is the point of the fix.
UNSAFE when an argument may or may not be traced (it could print differently)
or when the function prints more than once: ``jax.debug.print`` calls are
unordered, so several lines can come out in another order.
No fix for ``file=``, ``flush=``, ``end=`` without a final newline, ``*args``,
``{x=}`` fields, nested format specs, ``%`` formatting, or a print whose
result is used.
"""
from __future__ import annotations

import ast
import keyword
import re
from typing import Callable, Dict, List, Optional, Set, Tuple

import libcst as cst

from jitlint.analysis.fields import stores_to
from jitlint.analysis.syntax import any_node, is_docstring, iter_children, name_references, returned_values
from jitlint.analysis.scopes import BindingKind
from jitlint.analysis.values import Kind
from jitlint.diagnostics import Applicability, Edit, Fix
from jitlint.fixes.common import (
    comments_in,
    escape_braces,
    keep_comments,
    kind_of,
    literal_value,
    name_for_expression,
    string_literal,
    template_format,
)
from jitlint.fixes.context import RESERVED_KWARGS, FixContext, names_in
from jitlint.fixes.dataflow import assigned_in, block_statements
from jitlint.fixes.dataflow import reads as reads_of
from jitlint.fixes.registry import rewrites
from jitlint.fixes.wrap import with_comments
from jitlint.rules.side_effects import WRITER_METHODS, clock_read, host_write, opens_file

_CONVERSIONS = {"r": "repr", "s": "str", "a": "ascii"}
#: a ``%`` conversion of a template :meth:`_Format.percent` reads: ``%%``, or flags/width/precision and a kind
_PERCENT_FIELD = re.compile(r"%(?:(%)|([+ ]?0?\d*(?:\.\d+)?)([srafeEgG]))")


def _printed_kind(ctx: FixContext, expr: cst.BaseExpression) -> Kind:
    """``expr``'s kind, MAYBE for a static value that reads a name a traced loop of the function rebinds
    (``while err > tol: n_iter += 1``, ``for t in range(n_steps)`` of a traced bound: JIT203 / JIT202):
    its value depends on how many times the loop runs, which traced data decides, and the loop's fix
    carries it as a traced value.  Formatted at trace time it would show a tracer; passed to
    ``jax.debug.print`` it shows the number, as a Python int or as a traced one."""
    kind = kind_of(ctx, expr)
    if kind is not Kind.STATIC:
        return kind
    names = reads_of(expr)
    fn = ctx.enclosing_def(expr)
    if not names or fn is None:
        return kind
    from jitlint.fixes.conversions import conversion

    stack: List[cst.CSTNode] = list(iter_children(fn.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, (cst.While, cst.For)) and _traced_trip_count(ctx, node) \
                and names & assigned_in(block_statements(node.body)):
            return Kind.MAYBE
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) \
                and names & {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}:
            # `root = int(jnp.argmax(scores))`: a Python number made of a traced value (JIT301's finding),
            # which its fix keeps an array: passed to `jax.debug.print`, it prints either way
            found = conversion(node.value, ctx)
            if found is not None and kind_of(ctx, found[1]) is Kind.TRACED:
                return Kind.MAYBE
        stack.extend(iter_children(node))
    return kind


def _traced_trip_count(ctx: FixContext, loop: cst.CSTNode) -> bool:
    """A ``while`` whose test is traced, or a ``for`` over ``range(...)`` with a traced argument."""
    if isinstance(loop, cst.While):
        return kind_of(ctx, loop.test) is Kind.TRACED
    it = loop.iter  # type: ignore[attr-defined]
    return isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range" \
        and ctx.facts.read_scope.get(it.func) == "builtin" \
        and any(kind_of(ctx, a.value) is Kind.TRACED for a in it.args)


class _Format:
    """The format string and the arguments of the ``jax.debug.print`` call being built."""

    def __init__(self, ctx: FixContext, taken: set) -> None:
        self.ctx = ctx
        self.parts: List[str] = []
        #: indices in ``parts`` of replacement fields (the rest is literal text, braces doubled)
        self.fields: List[int] = []
        self.positional: List[cst.BaseExpression] = []
        self.keywords: List[Tuple[str, cst.BaseExpression]] = []
        self.by_code: Dict[str, str] = {}
        self.taken = taken
        self.maybe = False

    def text(self, value: str) -> None:
        self.parts.append(escape_braces(value))

    def _static(self, expr: cst.BaseExpression, conversion: Optional[str], spec: Optional[str]) -> cst.BaseExpression:
        """``expr`` formatted at trace time: ``str(x.shape)``, ``format(lr, ".3f")``."""
        inner = self.ctx.expr("{f}({e})", f=_CONVERSIONS.get(conversion or "s", "str"), e=expr)
        if spec:
            inner = self.ctx.expr("format({e}, " + string_literal(spec) + ")",
                                  e=expr if conversion is None else inner)
        return inner

    def value(self, expr: cst.BaseExpression) -> bool:
        """A positional ``print`` argument."""
        lit = literal_value(expr)
        if lit is not None or (isinstance(expr, cst.Name) and expr.value == "None"):
            self.text(str(lit))
            return True
        if isinstance(expr, cst.FormattedString):
            return self.fstring(expr)
        if isinstance(expr, cst.ConcatenatedString):
            return self.value(expr.left) and self.value(expr.right)
        if isinstance(expr, cst.Call) and template_format(expr):
            return self.format_call(expr)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo) \
                and isinstance(expr.left, (cst.SimpleString, cst.ConcatenatedString)):
            return self.percent(expr)
        kind = _printed_kind(self.ctx, expr)
        if kind is Kind.STATIC and not self.ctx.facts.value(expr).formats_tracer:
            self.maybe = self.maybe or not proven_static(self.ctx, expr)
            self.field("{}")
            self.positional.append(self._static(expr, None, None))
            return True
        if kind is Kind.STATIC:
            return False  # a string built from a tracer some other way: str(x), "%s" % x
        self.maybe = self.maybe or kind is Kind.MAYBE
        # `print` calls str(); "{}" would call format(), which differs for 0-d
        # floats: str(np.float32(1.9)) == "1.9", format(np.float32(1.9), "") == "1.899999976158142"
        self.field("{!s}")
        self.positional.append(expr)
        return True

    def fstring(self, node: cst.FormattedString) -> bool:
        prefix = node.start.rstrip("'\"")
        quote = node.start[len(prefix):]
        plain = prefix.replace("f", "").replace("F", "")
        if "b" in plain.lower():
            return False
        for part in node.parts:
            if isinstance(part, cst.FormattedStringText):
                text = _evaluate(plain, quote, part.value)
                if text is None:
                    return False
                self.parts.append(text)  # braces are already doubled in f-string text
                continue
            assert isinstance(part, cst.FormattedStringExpression)
            if part.equal is not None:
                return False
            spec = None
            if part.format_spec is not None:
                if not all(isinstance(p, cst.FormattedStringText) for p in part.format_spec):
                    return False
                spec = "".join(p.value for p in part.format_spec)  # type: ignore[union-attr]
                spec_text = _evaluate(plain, quote, spec)
                if spec_text is None:
                    return False
                spec = spec_text
            if not self.replacement(part.expression, part.conversion, spec):
                return False
        return True

    def percent(self, node: cst.BinaryOperation) -> bool:
        """``"probs %s" % p``, ``"loss %.3f, acc %s" % (loss, acc)``: a literal template of ``%s``, ``%r``,
        ``%a`` (no width) and float conversions (``%.3f``, ``%e``, ``%g``, with a sign, zero padding, a
        width and a precision, which ``format`` reads alike), one operand each -- the operands written
        as a tuple display, or the one operand.  Anything else (``%d``, ``%-8s``, ``%(name)s``) is left."""
        template = literal_value(node.left)
        if not isinstance(template, str):
            return False
        right = node.right
        if isinstance(right, cst.Tuple):
            if not all(isinstance(el, cst.Element) for el in right.elements):
                return False
            operands = [el.value for el in right.elements]
        else:
            operands = [right]
        if "%" in _PERCENT_FIELD.sub("", template):
            return False  # a conversion this does not read
        used = 0
        at = 0
        for m in _PERCENT_FIELD.finditer(template):
            self.text(template[at:m.start()])
            at = m.end()
            if m.group(1):
                self.text("%")
                continue
            if used >= len(operands):
                return False
            flags, kind = m.group(2), m.group(3)
            expr = operands[used]
            used += 1
            if kind in "sra":
                if flags or not self.replacement(expr, kind, None):
                    return False
            elif not self.replacement(expr, None, flags + kind):
                return False
        self.text(template[at:])
        return used == len(operands)

    def replacement(self, expr: cst.BaseExpression, conversion: Optional[str], spec: Optional[str]) -> bool:
        """One replacement field of an f-string or a ``str.format`` template: ``expr`` shown with
        ``conversion`` and ``spec``, as Python's formatting shows it."""
        kind = _printed_kind(self.ctx, expr)
        if self.ctx.facts.value(expr).formats_tracer is not None:
            return False  # f"{str(x)}": the tracer is formatted at trace time already
        lit = literal_value(expr)
        if lit is not None and conversion is None and spec is None and isinstance(lit, (int, float, str)):
            self.text(str(lit))
            return True
        if kind is Kind.STATIC:
            self.maybe = self.maybe or not proven_static(self.ctx, expr)
            name = self.field_name(self.ctx.code(expr))
            self.keywords.append((name, self._static(expr, conversion, spec)))
            self.field("{" + name + "}")
            return True
        if kind is Kind.MAYBE:
            self.maybe = True
        code = self.ctx.code(expr)
        name = self.by_code.get(code)
        if name is None:
            name = self.field_name(code, expr)
            self.by_code[code] = name
            self.keywords.append((name, expr))
        field = name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
        self.field("{" + field + "}")
        return True

    def format_call(self, call: cst.Call) -> bool:
        """``"epoch {}: loss={:.3f}".format(epoch, loss)``: a literal template whose fields are automatic
        (``{}``), numbered or named after a keyword, none reaching into an attribute or an item, with
        literal specs; each field becomes one of the ``jax.debug.print`` call (which formats as
        ``str.format`` does)."""
        import string

        template = literal_value(call.func.value) if isinstance(call.func, cst.Attribute) else None
        if not isinstance(template, str):
            return False
        positional: List[cst.BaseExpression] = []
        named: Dict[str, cst.BaseExpression] = {}
        for arg in call.args:
            if arg.star:
                return False
            if arg.keyword is None:
                if named:
                    return False
                positional.append(arg.value)
            else:
                named[arg.keyword.value] = arg.value
        try:
            pieces = list(string.Formatter().parse(template))
        except ValueError:
            return False
        automatic = 0
        for literal, field, spec, conversion in pieces:
            if literal:
                self.text(literal)
            if field is None:
                continue
            if "{" in (spec or "") or "." in field or "[" in field:
                return False  # a nested field, an attribute or an item of the argument
            if field == "":
                index: object = automatic
                automatic += 1
            elif field.isdigit():
                index = int(field)
            else:
                index = field
            value = positional[index] if isinstance(index, int) and index < len(positional) else \
                named.get(index) if isinstance(index, str) else None
            if value is None or not self.replacement(value, conversion, spec or None):
                return False
        return True

    def field(self, text: str) -> None:
        self.fields.append(len(self.parts))
        self.parts.append(text)

    def format_string(self) -> str:
        """The format; literal text with braces before the first field is passed as an argument.

        ``jax.debug.print`` decides whether a format has fields from its first
        chunk only, and ``"{{x}} {}"`` starts with a chunk without one: jax
        0.10 then fails at run time ("Format without placeholders should not
        have kwargs").
        """
        first = self.fields[0] if self.fields else len(self.parts)
        lead = "".join(self.parts[:first])
        if self.fields and ("{{" in lead or "}}" in lead):
            literal = lead.replace("{{", "{").replace("}}", "}")
            self.positional.insert(0, cst.SimpleString(string_literal(literal)))
            return "{}" + "".join(self.parts[first:])
        return "".join(self.parts)

    def field_name(self, code: str, expr: Optional[cst.BaseExpression] = None) -> str:
        if isinstance(expr, cst.Name) and expr.value not in RESERVED_KWARGS and expr.value not in self.taken:
            base = expr.value
        else:
            base = name_for_expression(code)
            if base in RESERVED_KWARGS:
                base += "_value"
        name = base
        n = 1
        while name in self.taken or name in RESERVED_KWARGS:
            name = f"{base}_{n}"
            n += 1
        self.taken.add(name)
        return name


#: builtins whose result is a Python value computed from Python values (``len`` of anything)
_STATIC_BUILTINS = frozenset({"str", "repr", "format", "int", "float", "bool", "type", "tuple", "list", "sorted",
                              "range", "min", "max", "abs", "round", "sum"})


def proven_static(ctx: FixContext, expr: cst.BaseExpression, depth: int = 0) -> bool:
    """``expr`` is a Python value in every trace, as the code shows: a literal, a constant, a shape
    (``x.shape``, ``x.ndim``, ``len(x)``), a parameter the jit makes static, a local bound once to one
    of those, and Python operations on them.  The analysis also calls static what no trace it sees
    reaches (a closure of a function nobody jits here, the result of an unknown library's call):
    formatted at trace time, such a value prints its trace-time ``repr`` wherever a caller traces it."""
    if depth > 8:
        return False
    if literal_value(expr) is not None or isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)):
        return True
    if isinstance(expr, cst.Name):
        if expr.value in ("None", "True", "False"):
            return True
        from jitlint.analysis.values import NO_CONSTANT

        if ctx.facts.value(expr).const is not NO_CONSTANT:
            return True
        fn = ctx.enclosing_function(expr)
        if fn is not None and expr.value in _static_parameters(ctx, fn):
            return True
        bound = ctx.index.single_value(expr.value, fn)
        return bound is not None and proven_static(ctx, bound, depth + 1)
    if isinstance(expr, cst.Attribute):
        from jitlint.analysis.jax_api import STATIC_ATTRIBUTES

        return expr.attr.value in STATIC_ATTRIBUTES
    if isinstance(expr, cst.Subscript):
        return proven_static(ctx, expr.value, depth + 1) and all(
            isinstance(el.slice, cst.Index) and proven_static(ctx, el.slice.value, depth + 1) for el in expr.slice)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and ctx.facts.read_scope.get(expr.func) in (
            None, "builtin"):
        if expr.func.value == "len":
            return True
        return expr.func.value in _STATIC_BUILTINS and all(
            not arg.star and proven_static(ctx, arg.value, depth + 1) for arg in expr.args)
    if isinstance(expr, cst.BinaryOperation):
        return proven_static(ctx, expr.left, depth + 1) and proven_static(ctx, expr.right, depth + 1)
    if isinstance(expr, cst.UnaryOperation):
        return proven_static(ctx, expr.expression, depth + 1)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(not isinstance(el, cst.StarredElement) and proven_static(ctx, el.value, depth + 1)
                   for el in expr.elements)
    return False


def _static_parameters(ctx: FixContext, fn) -> set:
    """The parameters of ``fn`` that every jit of it makes static (none when nothing jits it here)."""
    entries = [e for e in ctx.index.entries if e.function is fn]
    if not entries:
        return set()
    out = set(entries[0].static_params())
    for entry in entries[1:]:
        out &= entry.static_params()
    return out


def _evaluate(prefix: str, quote: str, text: str) -> Optional[str]:
    try:
        value = ast.literal_eval(prefix + quote + text + quote)
    except (SyntaxError, ValueError):
        return None
    return value if isinstance(value, str) else None


@rewrites("JIT103")
def to_debug_print(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``print(...)`` -> ``jax.debug.print(fmt, ...)``."""
    if not isinstance(node, cst.Call):
        return None
    stmt = ctx.parent(node)
    if not isinstance(stmt, cst.Expr) or stmt.value is not node:
        return None  # the result of print() is used
    line = ctx.parent(stmt)
    if not isinstance(line, cst.SimpleStatementLine):
        return None
    sep, end = " ", "\n"
    values: List[cst.BaseExpression] = []
    spread: Dict[int, int] = {}  # (the position of a `*row` argument, and how many values it gives)
    for arg in node.args:
        if arg.star == "*" and arg.keyword is None:
            count = _unpacked_length(arg.value, node, ctx)
            if count is None:
                return None
            spread[len(values)] = count
            values.append(arg.value)
            continue
        if arg.star:
            return None
        if arg.keyword is None:
            values.append(arg.value)
            continue
        key = arg.keyword.value
        lit = literal_value(arg.value)
        is_none = isinstance(arg.value, cst.Name) and arg.value.value == "None"
        if key in ("sep", "end") and (isinstance(lit, str) or is_none):
            if key == "sep":
                sep = lit if isinstance(lit, str) else " "
            else:
                end = lit if isinstance(lit, str) else "\n"
            continue
        return None  # file=, flush=, or a computed sep/end
    if not end.endswith("\n"):
        return None
    fmt = _Format(ctx, set())
    starred: Set[int] = set()
    for i, value in enumerate(values):
        if i:
            fmt.text(sep)
        if i in spread:
            # `print("tub", *reading)`: one field per value the row gives, the row spread into the arguments
            if kind_of(ctx, value) is not Kind.TRACED or spread[i] == 0:
                return None
            for k in range(spread[i]):
                if k:
                    fmt.text(sep)
                fmt.field("{!s}")
            starred.add(len(fmt.positional))
            fmt.positional.append(value)
            continue
        if not fmt.value(value):
            return None
    fmt.text(end[:-1])
    spelled = ctx.import_name("jax.debug.print")
    if spelled is None:
        return None
    func_text, import_edits = spelled
    args = [cst.Arg(cst.SimpleString(string_literal(fmt.format_string())))]
    args += [cst.Arg(v, star="*" if k in starred else "") for k, v in enumerate(fmt.positional)]
    no_space = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
    args += [cst.Arg(v, keyword=cst.Name(k), equal=no_space) for k, v in fmt.keywords]
    call = node.with_changes(func=cst.parse_expression(func_text), args=args,
                             whitespace_before_args=cst.SimpleWhitespace(""))
    call = with_comments(ctx, call, _argument_comments(node, args))
    new_line = line.with_changes(body=[s if s is not stmt else stmt.with_changes(value=call) for s in line.body])
    new_line = keep_comments([line], [new_line])[0]
    edit = ctx.replace(line, new_line)
    if edit is None:
        return None
    several = _prints_in_function(ctx, node) > 1
    safe = not fmt.maybe and not several
    return ctx.fix(Applicability.SAFE if safe else Applicability.UNSAFE,
                   "Use `jax.debug.print`, which prints the values on every call", (edit,) + import_edits)


def _unpacked_length(value: cst.BaseExpression, call: cst.Call, ctx: FixContext) -> Optional[int]:
    """How many values ``*value`` gives in ``call``: a tuple or list display's element count (no starred
    element), or -- for a name of the function bound once -- the number of targets a plain assignment
    of the function unpacks it into (``ph, temp, ca, alk = reading``: it ran, so the row has four)."""
    if isinstance(value, (cst.Tuple, cst.List)):
        return None if any(isinstance(el, cst.StarredElement) for el in value.elements) else len(value.elements)
    fn = ctx.enclosing_function(call)
    if not isinstance(value, cst.Name) or fn is None or not isinstance(fn.node, cst.FunctionDef):
        return None
    counts = set()
    for ref in name_references(fn.node.body, value.value):
        assign = ctx.parent(ref)
        if isinstance(assign, cst.Assign) and assign.value is ref and len(assign.targets) == 1 \
                and isinstance(assign.targets[0].target, (cst.Tuple, cst.List)):
            elements = assign.targets[0].target.elements
            if not any(isinstance(el, cst.StarredElement) for el in elements):
                counts.add(len(elements))
    bindings = fn.scope.bindings_of(value.value)
    return counts.pop() if len(counts) == 1 and len(bindings) <= 1 else None


def _argument_comments(old: cst.Call, new_args: List[cst.Arg]) -> List[List[str]]:
    """The comments of the ``print`` call, by the ``jax.debug.print`` argument their code went to
    (the format string when it was folded into it)."""
    out: List[List[str]] = [[] for _ in new_args]
    out[0].extend(comments_in(old.whitespace_before_args))
    for arg in old.args:
        found = comments_in(arg)
        if found:
            target = next((k for k, new in enumerate(new_args) if arg.value is new.value
                           or any(arg.value is getattr(a, "value", None) for a in iter_children(new.value))), 0)
            out[target].extend(found)
    return out


def _prints_in_function(ctx: FixContext, node: cst.CSTNode) -> int:
    """How many ``print`` / ``jax.debug.print`` / callback / logging calls the function holding
    ``node`` makes."""
    fn = None
    for a in ctx.ancestors(node):
        if isinstance(a, (cst.FunctionDef, cst.Lambda)):
            fn = a
            break
    if fn is None:
        return 1
    count = 0

    class _Count(cst.CSTVisitor):
        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            return n is fn

        def visit_Call(self, call: cst.Call) -> None:
            nonlocal count
            f = call.func
            if isinstance(f, cst.Name) and f.value == "print":
                count += 1
            elif ctx.index.qualify(f) in ("jax.debug.print", "jax.debug.callback") or is_logging_call(call, ctx):
                count += 1

    fn.visit(_Count())
    return count


# ================================================================ JIT104: logging


#: logger methods the fix moves into a callback (not ``exception``: a callback runs outside the
#: ``except`` block whose exception it would log)
_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "log"})


@rewrites("JIT104")
def to_logging_callback(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``logger.info("cost %s", jnp.mean(c))`` -> ``jax.debug.callback(lambda mean_c: logger.info("cost
    %s", mean_c), jnp.mean(c))``: the record is made on every call, with the values.

    The traced values the call logs become the lambda's parameters, passed to the callback, which
    gets them as arrays; formatting (an f-string, ``%``, ``str()``, ``.format()``) moves into the
    lambda around them.  A static value that is not a literal is bound as a default of the lambda
    (``i=i``), so it keeps its Python type and its value at trace time, as the eager call saw it.

    Safety: SAFE when every value left in the lambda is a literal, a module-level name or a value
    bound at trace time, every value passed is proven traced, and it is the only print or
    callback of its function (callbacks are unordered).  UNSAFE otherwise: a value that may not be
    an array arrives as one (``3`` as ``Array(3)``), and several records may come out in another
    order.  What changes is when the record is made: on every call of the compiled function instead
    of once per trace, once per element under ``vmap`` -- the point of the fix."""
    if isinstance(node, cst.Call) and opens_file(node, ctx.index, ctx.facts):
        # `open(LOG, "a").write(f"... {x}")`, reported at the `open`: the statement is the write
        method = ctx.parent(node)
        outer = ctx.parent(method) if isinstance(method, cst.Attribute) and method.value is node else None
        if not isinstance(outer, cst.Call) or outer.func is not method or method.attr.value not in WRITER_METHODS:
            return None
        node = outer
    opened = isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
        and isinstance(node.func.value, cst.Call) and opens_file(node.func.value, ctx.index, ctx.facts)
    warning = isinstance(node, cst.Call) and ctx.index.qualify(node.func) == "warnings.warn"
    if not isinstance(node, cst.Call) or not (is_logging_call(node, ctx) or warning or opened
                                              or host_write(node, ctx.index, ctx.facts)):
        return None
    stmt = ctx.parent(node)
    if not isinstance(stmt, cst.Expr) or stmt.value is not node:
        return None  # the result is used
    line = ctx.parent(stmt)
    if not isinstance(line, cst.SimpleStatementLine) or any(arg.star for arg in node.args):
        return None
    lifted = _Lifted(ctx, node)
    body_args = []
    for arg in node.args:
        value = lifted.lift(arg.value)
        if value is None:
            return None
        body_args.append(arg.with_changes(value=value))
    if not lifted.passed:
        return None  # nothing traced: the rule has another reason (a format that raises...)
    spelled = ctx.import_name("jax.debug.callback")
    if spelled is None:
        return None
    func_text, import_edits = spelled
    params = [cst.Param(cst.Name(name)) for name, _ in lifted.passed]
    params += [cst.Param(cst.Name(name), default=value,
                         equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                               whitespace_after=cst.SimpleWhitespace("")))
               for name, value in lifted.bound]
    inner = node.with_changes(args=body_args)
    callback = cst.Lambda(params=cst.Parameters(params=params), body=inner)
    call = cst.Call(func=cst.parse_expression(func_text),
                    args=[cst.Arg(callback)] + [cst.Arg(value) for _, value in lifted.passed])
    new_line = line.with_changes(body=[s if s is not stmt else stmt.with_changes(value=call) for s in line.body])
    new_line = keep_comments([line], [new_line])[0]
    edit = ctx.replace(line, new_line)
    if edit is None:
        return None
    if opened or host_write(node, ctx.index, ctx.facts):  # (the writer gets NumPy arrays, not JAX arrays)
        return ctx.fix(Applicability.UNSAFE, "Write from `jax.debug.callback`, which runs on every call with "
                       "the values", (edit,) + import_edits)
    if warning:  # (the frame a warning is attributed to, which filters and `stacklevel` read, is the callback's)
        return ctx.fix(Applicability.UNSAFE, "Warn from `jax.debug.callback`, which runs on every call with "
                       "the values", (edit,) + import_edits)
    safe = not lifted.maybe and _prints_in_function(ctx, node) <= 1
    return ctx.fix(Applicability.SAFE if safe else Applicability.UNSAFE,
                   "Log from `jax.debug.callback`, which runs on every call with the values", (edit,) + import_edits)


@rewrites("JIT102")
def to_host_append(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``HISTORY.append(loss)`` in traced code -> ``jax.debug.callback(HISTORY.append, loss)``: the host
    list gets the value on every call of the compiled function, not a tracer once per trace.  A host
    clock's reading (``TIMES.append(time.perf_counter())``) is taken in the callback instead:
    ``jax.debug.callback(lambda: TIMES.append(time.perf_counter()))``.

    Preconditions: a statement of its own (the result unused) appending one traced value to a
    module-level list bound once, to a list display (or such a list of the untraced factory around the
    traced function, :func:`_host_closure_list`), that no traced code reads otherwise (a
    ``len(HISTORY)`` there would still see the trace's list): only the code that runs eagerly reads it.
    UNSAFE: the list gets NumPy arrays, not ``jax.Array``s; they arrive when the compiled call runs,
    which JAX may finish after it returns (``jax.effects_barrier()`` waits for them); under ``vmap``
    one call appends the batch."""
    if not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].star or node.args[0].keyword:
        return None
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "append"):
        return None
    target = func.value
    stmt = ctx.parent(node)
    value = node.args[0].value
    if not isinstance(stmt, cst.Expr) or stmt.value is not node:
        return None
    # `float(loss)`, `int(n)`: the conversion made on the host, in the callback, of the value it is given
    cast = value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
        and value.func.value in ("float", "int") and ctx.facts.read_scope.get(value.func) == "builtin" \
        and len(value.args) == 1 and not value.args[0].star and not value.args[0].keyword else None
    if cast is not None:
        value = value.args[0].value  # type: ignore[union-attr]
    # a value of the host (`time.perf_counter()`), made at trace time: made in the callback instead
    deferred = cast is None and ctx.facts.value(value).kind is Kind.STATIC and _host_made(value, ctx)
    if ctx.facts.value(value).kind is not Kind.TRACED and not deferred:
        return None
    if not (_host_global_list(target, ctx) or _host_attribute_list(target, ctx) or _host_closure_list(target, ctx)):
        return None  # read in traced code: the list it sees is the trace's
    spelled = ctx.import_name("jax.debug.callback")
    if spelled is None:
        return None
    func_text, import_edits = spelled
    if cast is not None:
        if "v" in names_in(node):
            return None
        param = cst.Name("v")
        body = node.with_changes(args=[cst.Arg(cst.Call(cst.Name(cast), [cst.Arg(param)]))], lpar=[], rpar=[])
        new = cst.Call(func=cst.parse_expression(func_text),
                       args=[cst.Arg(cst.Lambda(cst.Parameters([cst.Param(param)]), body),
                                     comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                             cst.Arg(value)], lpar=node.lpar, rpar=node.rpar)
        title = f"Append from `jax.debug.callback`, which runs on every call and converts the value with " \
                f"`{cast}()` there"
    elif deferred:
        new = cst.Call(func=cst.parse_expression(func_text),
                       args=[cst.Arg(cst.Lambda(cst.Parameters(), node.with_changes(lpar=[], rpar=[])))],
                       lpar=node.lpar, rpar=node.rpar)
        title = f"Append from `jax.debug.callback`, which makes `{ctx.code(value)}` and appends it on every call"
    else:
        new = cst.Call(func=cst.parse_expression(func_text),
                       args=[cst.Arg(func, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                             cst.Arg(value)], lpar=node.lpar, rpar=node.rpar)
        title = f"Append from `jax.debug.callback`, which runs on every call with the value " \
                f"(`{ctx.code(target)}` gets NumPy arrays)"
    edit = ctx.replace(node, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, title, (edit,) + import_edits)


def _appends(ref: cst.CSTNode, ctx: FixContext) -> bool:
    """``ref`` (a name, or an attribute) is the receiver of an ``.append(...)`` statement."""
    attribute = ctx.parent(ref)
    call = ctx.parent(attribute) if isinstance(attribute, cst.Attribute) else None
    return isinstance(call, cst.Call) and call.func is attribute and attribute.attr.value == "append" \
        and isinstance(ctx.parent(call), cst.Expr)


def _host_global_list(target: cst.BaseExpression, ctx: FixContext) -> bool:
    """A module-level list bound once, to a list display, that no traced code reads but by appending."""
    if not isinstance(target, cst.Name) or ctx.facts.read_scope.get(target) != "global":
        return False
    info = ctx.index.globals.get(target.value)
    if info is None or not isinstance(info.node, cst.Assign) or not isinstance(info.node.value, cst.List):
        return False
    return _host_only(target.value, lambda ref: _appends(ref, ctx), ctx)


def _host_closure_list(target: cst.BaseExpression, ctx: FixContext) -> bool:
    """A list the function around the traced one binds once, to a list display (a factory's ``seen = []``,
    returned with the jitted function it makes), in a function that is not traced itself, and that no
    traced code reads but by appending: only the factory's eager callers see what the host callback stores."""
    if not isinstance(target, cst.Name) or ctx.facts.read_scope.get(target) != "closure":
        return False
    here = ctx.enclosing_function(target)
    owner = here.parent if here is not None else None
    while owner is not None and target.value not in owner.scope.local:
        owner = owner.parent
    if here is None or owner is None or owner in ctx.facts.bodies or not isinstance(owner.node, cst.FunctionDef):
        return False
    if not isinstance(ctx.index.single_value(target.value, here), cst.List):
        return False  # (bound more than once, or declared nonlocal somewhere)
    for traced_fn in ctx.facts.bodies:
        if traced_fn.node is owner.node or not any(a is owner.node for a in ctx.ancestors(traced_fn.node)):
            continue
        for ref in name_references(traced_fn.node, target.value):
            if ctx.facts.read_scope.get(ref) == "closure" and not _appends(ref, ctx):
                return False
    return True


def _host_attribute_list(target: cst.BaseExpression, ctx: FixContext) -> bool:
    """``self.history`` of the object a jitted method runs on (not one the traced code makes), bound to a
    list display by ``__init__`` and by nothing else of the class, that no traced method reads but by
    appending: only eager code sees what the host callback stores."""
    fn = ctx.enclosing_function(target)
    if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and fn is not None
            and fn.cls is not None and fn.is_method and fn.params and fn.params[0][0].name.value == target.value.value):
        return False
    body = ctx.facts.bodies.get(fn)
    if body is None or not body.outer_self:
        return False
    attr = target.attr.value
    if attr in fn.cls.mutated_attributes:
        return False  # (rebound outside construction)
    init = fn.cls.methods.get("__init__")
    stores = list(stores_to(init.node, init.params[0][0].name.value, attr)) \
        if init is not None and init.params else []
    if len(stores) != 1 or not isinstance(stores[0], cst.List):
        return False
    for method in fn.cls.methods.values():
        if method in ctx.facts.bodies and isinstance(method.node, cst.FunctionDef):
            for ref in _attribute_reads(method.node, attr):
                if not _appends(ref, ctx):
                    return False
    return True


def _attribute_reads(fn_node: cst.CSTNode, attr: str) -> List[cst.Attribute]:
    """Every ``<x>.<attr>`` in ``fn_node``."""
    out: List[cst.Attribute] = []
    stack: List[cst.CSTNode] = [fn_node]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and node.attr.value == attr:
            out.append(node)
        stack.extend(node.children)
    return out


#: calls that stack a list of equal-shaped arrays into one: given the stacked array, they give it back
_STACKERS = frozenset({"jax.numpy.stack", "jax.numpy.array", "jax.numpy.asarray"})


@rewrites("JIT102")
def to_scan_output(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``out.append(y)`` in the body of a ``lax.scan`` that collects one value per step in a list of the
    function around it -> the value returned as the scan's per-step output (``return c, y`` where the body
    returned ``c, None``), the scan's result bound to the list's name (``_, out = lax.scan(...)``), the
    ``out = []`` dropped and ``jnp.stack(out)`` read as ``out``: what the scan stacks for every step, in
    the compiled code too (the append ran once, at trace time, and stored a tracer).

    Preconditions: the list is bound once, to ``[]``, in the function that defines the body and makes the
    one ``lax.scan`` call of it, whose result is dropped or unpacked as ``carry, _``; the append is a
    statement of the body's own block (every step runs it), the body's one return is its last statement
    and gives ``None`` as the output, and nothing the appended value reads is bound again after it;
    the list is read nowhere else than by ``jnp.stack`` / ``jnp.array`` / ``jnp.asarray`` after the scan.
    UNSAFE: a length-0 scan gives an empty array where stacking the empty list raised; values appended
    as Python scalars come back as one array of the scan's dtype."""
    if not isinstance(node, cst.Call) or len(node.args) != 1 or node.args[0].star or node.args[0].keyword:
        return None
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name)):
        return None
    name = func.value.value
    value = node.args[0].value
    expr = ctx.parent(node)
    line = ctx.parent(expr) if isinstance(expr, cst.Expr) and expr.value is node else None
    body_fn = ctx.enclosing_function(node)
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or body_fn is None \
            or not isinstance(body_fn.node, cst.FunctionDef) or body_fn.parent is None \
            or not isinstance(body_fn.parent.node, cst.FunctionDef) or ctx.facts.read_scope.get(func.value) == "local":
        return None
    outer = body_fn.parent
    statements = block_statements(body_fn.node.body)
    if line not in statements or body_fn.node.decorators:
        return None
    last = statements[-1]
    ret = last.body[0] if isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 else None
    if not (isinstance(ret, cst.Return) and isinstance(ret.value, cst.Tuple) and len(ret.value.elements) == 2
            and isinstance(ret.value.elements[1].value, cst.Name) and ret.value.elements[1].value.value == "None"
            and not ret.value.elements[1].value.lpar):
        return None
    if len(returned_values(body_fn.node.body)) != 1:
        return None  # (another `return` before the last statement)
    later = statements[statements.index(line) + 1:]
    if reads_of(value) & assigned_in(later) or not ctx.purity.expression(value, body_fn):
        return None
    # the list: bound once, to `[]`, in the outer function; its one scan call of the body
    bindings = outer.scope.bindings_of(name)
    binding = bindings[0] if len(bindings) == 1 else None
    made = binding.node if binding is not None else None
    if not (isinstance(made, cst.Assign) and len(made.targets) == 1 and isinstance(made.value, cst.List)
            and not made.value.elements and isinstance(ctx.parent(made), cst.SimpleStatementLine)
            and len(ctx.parent(made).body) == 1):  # type: ignore[union-attr]
        return None
    uses = [ref for ref in name_references(outer.node.body, name) if ref is not made.targets[0].target]
    scans = [ref for ref in name_references(outer.node.body, body_fn.name) if ref is not body_fn.node.name]
    scan_call = _scan_of(scans, ctx)
    if scan_call is None:
        return None
    scan_line = ctx.parent(ctx.parent(scan_call))
    holder = ctx.parent(scan_call)
    if isinstance(holder, cst.Expr):
        target: Optional[cst.BaseAssignTargetExpression] = None
    elif isinstance(holder, cst.Assign) and len(holder.targets) == 1 and _unpacked_carry(holder.targets[0].target):
        target = holder.targets[0].target
    else:
        return None
    if not isinstance(scan_line, cst.SimpleStatementLine) or len(scan_line.body) != 1:
        return None
    outer_block = block_statements(outer.node.body)
    if ctx.parent(made) not in outer_block or scan_line not in outer_block \
            or outer_block.index(ctx.parent(made)) > outer_block.index(scan_line):
        return None
    stacked: List[cst.Call] = []
    for ref in uses:
        if ref is func.value:
            continue
        arg = ctx.parent(ref)
        call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
        if not (isinstance(call, cst.Call) and len(call.args) == 1 and call.args[0] is arg and not arg.keyword
                and not arg.star and ctx.index.qualify(call.func) in _STACKERS):
            return None
        ref_line = next((a for a in ctx.ancestors(ref) if a in outer_block), None)
        if ref_line is None or outer_block.index(ref_line) <= outer_block.index(scan_line):
            return None
        stacked.append(call)
    if not stacked:
        return None
    made_at = ctx.parent(made)
    if comments_in(made_at):
        return None  # (a comment about the list would be left above other code)
    out_name = cst.Name(name)
    new_ret = ret.with_changes(value=ret.value.with_changes(elements=[
        ret.value.elements[0], ret.value.elements[1].with_changes(value=value)]))
    new_last = keep_comments([line, last], [last.with_changes(body=[new_ret])])[0]
    following = outer_block[outer_block.index(made_at) + 1]
    changes: Dict[cst.CSTNode, object] = {line: cst.RemovalSentinel.REMOVE, last: new_last,
                                          made_at: cst.RemovalSentinel.REMOVE,
                                          # the blank lines above `out = []` stay where they were
                                          following: lambda new: new.with_changes(leading_lines=made_at.leading_lines)}
    if target is None:
        new_holder = cst.Assign(targets=[cst.AssignTarget(cst.Tuple(
            [cst.Element(cst.Name("_")), cst.Element(out_name)], lpar=[], rpar=[]))], value=scan_call)
    else:
        new_holder = holder.with_changes(targets=[holder.targets[0].with_changes(target=target.with_changes(
            elements=[target.elements[0], target.elements[1].with_changes(value=out_name)]))])
    changes[holder] = new_holder
    for call in stacked:
        changes[call] = cst.Name(name, lpar=call.lpar, rpar=call.rpar)
    edit = ctx.replace_many(changes)  # type: ignore[arg-type]
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Return `{ctx.code(value)}` as the scan's per-step output: `{name}` "
                   "is then the array of every step's value", (edit,))


def _unpacked_carry(target: cst.BaseAssignTargetExpression) -> bool:
    """``carry, _ = ...``: a scan's result with its stacked outputs dropped."""
    return isinstance(target, cst.Tuple) and len(target.elements) == 2 \
        and isinstance(target.elements[1].value, cst.Name) and target.elements[1].value.value == "_"


def _scan_of(refs: List[cst.Name], ctx: FixContext) -> Optional[cst.Call]:
    """The ``lax.scan(body, ...)`` call that is the one use of the body function's name."""
    if len(refs) != 1:
        return None
    arg = ctx.parent(refs[0])
    call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (isinstance(call, cst.Call) and call.args and call.args[0] is arg and not arg.keyword and not arg.star
            and ctx.index.qualify(call.func) == "jax.lax.scan"):
        return None
    return call


def _host_made(value: cst.BaseExpression, ctx: FixContext) -> bool:
    """``value`` is a call of a host clock (``time.perf_counter()``) with no arguments: what it gives
    is the host's at the moment it runs, so run in a callback it gives each call's."""
    return isinstance(value, cst.Call) and not value.args and clock_read(ctx.index.qualify(value.func) or "")


#: augmented assignments -> the ``.at[...]`` update doing the same on a copy
_AT_METHODS = {"+=": "add", "-=": "subtract", "*=": "multiply", "/=": "divide", "**=": "power"}
#: ``.at[...]`` updates, and ``sort``, whose result a statement drops (JIT105's second check)
_DROPPED_UPDATES = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max",
                              "apply", "sort"})


def _array_store(target: cst.Subscript, ctx: FixContext) -> bool:
    """The store ``x[k] = v`` is into an array, as far as a rewrite to ``x.at[k]`` needs: ``x`` holds an array
    by evidence (made by JAX or NumPy), or every index is one an array takes and a dict key rarely is (a
    slice, an int literal, ``...``, ``None``, a traced array, a ``range`` loop's index, arithmetic of those).
    A key of unknown type (`mdl_vars[NON_TRAINABLE]`, a constant of another package) may be a dict's: the
    ``.at`` of a dict raises AttributeError."""
    held = ctx.facts.value(target.value)
    if held.jax_array or held.numpy_array or held.is_array or _made_as_array(target.value, ctx):
        return True
    return all(isinstance(el.slice, cst.Slice) or _array_index_value(el.slice.value, ctx) for el in target.slice)


#: methods only an array has, whose result is an array (``raw.astype(jnp.float32)``)
_ARRAY_METHODS = frozenset({"astype", "reshape", "transpose", "ravel", "flatten", "squeeze", "swapaxes", "clip",
                            "round", "cumsum", "conj"})


def _made_as_array(name: cst.BaseExpression, ctx: FixContext) -> bool:
    """``name`` is a local bound once, to a call of ``jax.numpy`` / ``numpy`` / ``jax.lax`` or of an
    array-only method (``img = raw.astype(jnp.float32)``)."""
    scope = ctx.enclosing_function(name) if isinstance(name, cst.Name) else None
    value = scope.scope.single_value(name.value) if scope is not None else None  # type: ignore[union-attr]
    if not isinstance(value, cst.Call):
        return False
    q = ctx.index.qualify(value.func) or ""
    if q.startswith(("jax.numpy.", "numpy.", "jax.lax.")):
        return True
    return isinstance(value.func, cst.Attribute) and value.func.attr.value in _ARRAY_METHODS


def _array_index_value(expr: cst.BaseExpression, ctx: FixContext, depth: int = 0) -> bool:
    if depth > 4:
        return False
    if isinstance(expr, (cst.Integer, cst.Ellipsis)) or (isinstance(expr, cst.Name) and expr.value == "None"):
        return True
    if isinstance(expr, cst.UnaryOperation):
        return _array_index_value(expr.expression, ctx, depth + 1)
    if isinstance(expr, cst.BinaryOperation):
        return _array_index_value(expr.left, ctx, depth + 1) and _array_index_value(expr.right, ctx, depth + 1)
    if isinstance(expr, cst.Tuple):
        return all(isinstance(el, cst.Element) and _array_index_value(el.value, ctx, depth + 1) for el in expr.elements)
    if isinstance(expr, cst.List) and expr.elements:
        # `t[[0, -1]] = v`: a list is no dict key (unhashable) and indexes no list: an array's gather
        return all(isinstance(el, cst.Element) and isinstance(el.value, (cst.Integer, cst.UnaryOperation))
                   and _array_index_value(el.value, ctx, depth + 1) for el in expr.elements)
    value = ctx.facts.value(expr)
    if value.kind is Kind.TRACED and not value.container and not value.mapping:
        return True  # (a traced index is an array's: a dict key must be hashable)
    if value.known and isinstance(value.const, int):
        return True
    if isinstance(expr, cst.Name):
        scope = ctx.enclosing_function(expr)
        info = scope.scope.bindings_of(expr.value) if scope is not None else []
        return bool(info) and all(b.kind is BindingKind.FOR and _over_range(b.node, ctx) for b in info)
    return False


def _over_range(loop: cst.CSTNode, ctx: FixContext) -> bool:
    """``loop`` is a ``for`` over the builtin ``range(...)``."""
    return isinstance(loop, cst.For) and isinstance(loop.iter, cst.Call) and isinstance(loop.iter.func, cst.Name) \
        and loop.iter.func.value == "range" and ctx.facts.read_scope.get(loop.iter.func) in ("builtin", None)


@rewrites("JIT105")
def to_at_update(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """JIT105: ``x[i] = v`` -> ``x = x.at[i].set(v)``; ``x[i] += v`` -> ``x = x.at[i].add(v)`` (``-=``
    ``subtract``, ``*=`` ``multiply``, ``/=`` ``divide``, ``**=`` ``power``); a dropped ``x.at[i].set(v)``
    or ``x.sort()`` statement -> ``x = ...``.  ``x`` is a name of the function (a parameter or a local);
    the index is kept as written, but a boolean mask is left to JIT401's ``jnp.where`` rewrite (a
    traced mask fails in ``.at[...]`` too).  UNSAFE: the name is bound to a new array, where NumPy's
    in-place write also changed every other name bound to the same array (the caller's, for a
    parameter), and the code as written raised under jit (or, for a dropped update, changed nothing)."""
    if isinstance(node, cst.Call):
        return _kept_update(node, ctx)
    if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name) \
            or ctx.facts.read_scope.get(node.value) != "local":
        return None
    holder = ctx.parent(node)
    if isinstance(holder, cst.Element) and isinstance(ctx.parent(holder), (cst.Tuple, cst.List)):
        return _unpacked_at_update(node, ctx)
    if isinstance(holder, cst.AssignTarget):
        statement = ctx.parent(holder)
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
            return None
        method, value = "set", statement.value
    elif isinstance(holder, cst.AugAssign) and holder.target is node:
        statement = holder
        method, value = _AT_METHODS.get(holder.operator._get_token()), holder.value  # type: ignore[attr-defined]
        if method is None:
            return None
    else:
        return None
    if _masked(node, ctx):
        return None  # a boolean mask (see JIT401)
    name = node.value.value
    if not _array_store(node, ctx):
        return Fix(Applicability.DISPLAY_ONLY, f"Write `{name} = {name}.at[...].set(...)` if `{name}` is a JAX "
                   "array (a dict or list stored into as here needs no change)", ())
    if _caller_sees_the_write(node, name, ctx):
        return Fix(Applicability.DISPLAY_ONLY, f"Return the updated `{name}` and have the callers use it: the "
                   "write changed the caller's array, which a rewrite in this function cannot", ())
    imports: Tuple[Edit, ...] = ()
    if any(isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.List) for el in node.slice):
        # `.at[[0, -1]]` raises (a list is no index of JAX's): the positions as an array, `.at[jnp.array([0, -1])]`
        spelled = ctx.import_name("jax.numpy")
        if spelled is None:
            return None
        jnp, imports = spelled
        node = node.with_changes(slice=[
            el.with_changes(slice=el.slice.with_changes(value=ctx.expr(f"{jnp}.array({{x}})", x=el.slice.value)))
            if isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.List) else el for el in node.slice])
    call = _at_update(cst.Name(name), node, method, value)
    new = cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=call, semicolon=statement.semicolon)
    edit = ctx.replace(statement, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Write `{name} = {name}.at[...].{method}(...)`: a JAX array is immutable, "
                   "so the update makes a new one", (edit,) + tuple(imports))


def _at_update(array: cst.BaseExpression, item: cst.Subscript, method: str, value: cst.BaseExpression) -> cst.Call:
    """``array.at[<item's index>].<method>(value)``, the index kept as written."""
    at = cst.Subscript(value=cst.Attribute(array, cst.Name("at")), slice=item.slice,
                       lbracket=item.lbracket, rbracket=item.rbracket)
    return cst.Call(func=cst.Attribute(at, cst.Name(method)), args=[cst.Arg(value)])


def _masked(node: cst.Subscript, ctx: FixContext) -> bool:
    """An index of ``node`` is a boolean mask: left to JIT401's ``jnp.where`` rewrite (a traced mask fails
    in ``.at[...]`` too)."""
    for element in node.slice:
        index = element.slice
        if isinstance(index, cst.Index) and (ctx.facts.value(index.value).dtype_kind == "b" or (
                isinstance(index.value, (cst.Comparison, cst.UnaryOperation))
                and ctx.facts.value(index.value).kind is Kind.TRACED)):
            return True
    return False


def _unpacked_at_update(node: cst.Subscript, ctx: FixContext) -> Optional[Fix]:
    """``n[0], n[1:] = births, survivors`` (every target an item of the same local array, the value a
    display of as many items) -> ``n = n.at[0].set(births).at[1:].set(survivors)``: Python computes
    every value first, from the old ``n``, then stores the items left to right, which the chain of
    updates does (its arguments read the old ``n`` too, the later update wins where they overlap)."""
    target = ctx.parent(ctx.parent(node))
    statement = ctx.parent(ctx.parent(target)) if isinstance(ctx.parent(target), cst.AssignTarget) else None
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1 \
            or not isinstance(statement.value, (cst.Tuple, cst.List)) \
            or len(statement.value.elements) != len(target.elements):
        return None
    parts = [el.value for el in target.elements]
    values = [el.value for el in statement.value.elements]
    if any(isinstance(el, cst.StarredElement) for el in list(target.elements) + list(statement.value.elements)):
        return None
    name = node.value.value
    if not all(isinstance(p, cst.Subscript) and isinstance(p.value, cst.Name) and p.value.value == name
               for p in parts):
        return None
    if any(_masked(p, ctx) for p in parts):
        return None  # a boolean mask (see JIT401)
    if _caller_sees_the_write(node, name, ctx):
        return None
    chain: cst.BaseExpression = cst.Name(name)
    for p, v in zip(parts, values):
        chain = _at_update(chain, p, "set", v)
    new = cst.Assign(targets=[cst.AssignTarget(cst.Name(name))], value=chain, semicolon=statement.semicolon)
    edit = ctx.replace(statement, new)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Write `{name} = {name}.at[...].set(...).at[...].set(...)`: a JAX array is "
                   "immutable, so the updates make a new one", (edit,))


def _caller_sees_the_write(node: cst.CSTNode, name: str, ctx: FixContext) -> bool:
    """``name`` is a parameter the function never rebinds, and a call seen passes it a name that the
    caller reads again (``mark_hits(grid, ...)``, then ``return grid``): NumPy's in-place write changed
    the caller's array, which ``name = name.at[...].set(...)`` cannot do (it binds a new array here)."""
    fn = ctx.enclosing_function(node)
    if fn is None or not isinstance(fn.node, cst.FunctionDef) or name not in {p.name.value for p, _ in fn.params}:
        return False
    if name in assigned_in(block_statements(fn.node.body)):
        return False  # (`grid = grid.copy()` first: the writes go to the function's own array)
    for entry in ctx.index.entries:
        if entry.function is not fn:
            continue
        for call in entry.visible_calls():
            for arg, param in entry.bind_args(call):
                if param is None or param.name.value != name or not isinstance(arg.value, cst.Name):
                    continue
                if any(ref is not arg.value for region in _after(call, ctx)
                       for ref in name_references(region, arg.value.value)):
                    return True
    return False


def _after(node: cst.CSTNode, ctx: FixContext) -> List[cst.CSTNode]:
    """What may run after ``node`` in its function (or module): the statements after the one holding it,
    in its block and in each block around it, and the whole body of each loop around it."""
    out: List[cst.CSTNode] = []
    child: cst.CSTNode = node
    for parent in ctx.ancestors(node):
        if isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            break
        if isinstance(parent, (cst.IndentedBlock, cst.Module)):
            items = list(parent.body)
            if child in items:
                out += items[items.index(child) + 1:]
        if isinstance(parent, (cst.For, cst.While)):
            out.append(parent.body)
        child = parent
    return out


def _kept_update(call: cst.Call, ctx: FixContext) -> Optional[Fix]:
    """``x.at[i].set(v)`` or ``x.sort()`` as a statement (its new array dropped) -> ``x = ...``."""
    statement = ctx.parent(call)
    func = call.func
    if not isinstance(statement, cst.Expr) or statement.value is not call or not isinstance(func, cst.Attribute) \
            or func.attr.value not in _DROPPED_UPDATES:
        return None
    holder = func.value
    base = holder if func.attr.value == "sort" else (
        holder.value.value if isinstance(holder, cst.Subscript) and isinstance(holder.value, cst.Attribute)
        and holder.value.attr.value == "at" else None)
    if not isinstance(base, cst.Name) or ctx.facts.read_scope.get(base) not in ("local", None):
        return None
    if ctx.enclosing_function(call) is None or base.value not in ctx.enclosing_function(call).local_names:
        return None
    new = cst.Assign(targets=[cst.AssignTarget(cst.Name(base.value))], value=call, semicolon=statement.semicolon)
    edit = ctx.replace(statement, new)
    if edit is None:
        return None
    update = "sort()" if func.attr.value == "sort" else f"at[...].{func.attr.value}(...)"
    return ctx.fix(Applicability.UNSAFE, f"Keep the new array: `{base.value} = {base.value}.{update}`", (edit,))


@rewrites("JIT102")
def to_host_attribute(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``TRACKER.last_grad_norm = gnorm`` in traced code (a module-level object, a traced value) ->
    ``jax.debug.callback(lambda value: setattr(TRACKER, "last_grad_norm", value), gnorm)``: the host
    object gets the value on every call instead of a tracer once.

    Preconditions: a statement of its own with one target, the object a global bound once, and no
    traced code reading that attribute (it would still see the trace's value).  UNSAFE: the attribute
    gets a NumPy array, not a ``jax.Array``, when the compiled call runs (``jax.effects_barrier()``
    waits for it); under ``vmap`` one call stores the batch."""
    if not isinstance(node, cst.Attribute) or not isinstance(node.value, cst.Name):
        return None
    assign = _sole_store(node, ctx)
    if assign is None:
        return None
    root, attr = node.value, node.attr.value
    if ctx.facts.read_scope.get(root) != "global" or ctx.facts.value(assign.value).kind is not Kind.TRACED:
        return None

    def not_this_attribute(ref: cst.Name) -> bool:
        read = ctx.parent(ref)
        return not (isinstance(read, cst.Attribute) and read.value is ref and read.attr.value == attr) or read is node

    if not _host_only(root.value, not_this_attribute, ctx):
        return None  # read in traced code: the value it sees is the trace's
    return _stored_by_callback(assign, root.value, f"setattr({root.value}, \"{attr}\", {{value}})",
                               f"{root.value}.{attr}", ctx)


def _sole_store(target: cst.CSTNode, ctx: FixContext) -> Optional[cst.Assign]:
    """The assignment whose one target ``target`` is, a statement of its own."""
    holder = ctx.parent(target)
    assign = ctx.parent(holder) if isinstance(holder, cst.AssignTarget) else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
            or not isinstance(ctx.parent(assign), cst.SimpleStatementLine):
        return None
    return assign


def _stored_by_callback(assign: cst.Assign, root: str, store: str, shown: str, ctx: FixContext) -> Optional[Fix]:
    """``assign`` (a store of a traced value on host state) -> ``jax.debug.callback(lambda value: <store>,
    <value>)``; ``store`` writes ``{value}``."""
    spelled = ctx.import_name("jax.debug.callback")
    if spelled is None:
        return None
    func_text, import_edits = spelled
    parameter = "value" if root != "value" else "new_value"
    setter = cst.parse_expression(f"lambda {parameter}: " + store.replace("{value}", parameter))
    call = cst.Call(func=cst.parse_expression(func_text),
                    args=[cst.Arg(setter, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                          cst.Arg(assign.value)])
    edit = ctx.replace(assign, cst.Expr(call, semicolon=assign.semicolon))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Store from `jax.debug.callback`, which runs on every call with the value "
                   f"(`{shown}` gets a NumPy array)", (edit,) + import_edits)


@rewrites("JIT102")
def to_host_item(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``METRICS["grad_norm"] = gnorm`` in traced code (a module-level dict, a literal key, a traced value) ->
    ``jax.debug.callback(lambda value: METRICS.__setitem__("grad_norm", value), gnorm)``: the host dict gets
    the value on every call instead of a tracer once.

    Preconditions: a statement of its own with one target, the dict a global bound once to a dict display,
    and no traced code reading the dict.  UNSAFE: the item gets a NumPy array when the compiled call runs
    (``jax.effects_barrier()`` waits for it); under ``vmap`` one call stores the batch."""
    if not isinstance(node, cst.Subscript) or not isinstance(node.value, cst.Name) or len(node.slice) != 1 \
            or not isinstance(node.slice[0].slice, cst.Index):
        return None
    key = node.slice[0].slice.value
    if not isinstance(literal_value(key), (str, int)) or isinstance(literal_value(key), bool):
        return None
    assign = _sole_store(node, ctx)
    if assign is None:
        return None
    root = node.value
    info = ctx.index.globals.get(root.value)
    if ctx.facts.read_scope.get(root) != "global" or ctx.facts.value(assign.value).kind is not Kind.TRACED \
            or info is None or not isinstance(info.node, cst.Assign) or not isinstance(info.node.value, cst.Dict):
        return None
    if not _host_only(root.value, lambda ref: ref is root, ctx):
        return None  # read in traced code: the value it sees is the trace's
    return _stored_by_callback(assign, root.value, f"{root.value}.__setitem__({ctx.code(key)}, {{value}})",
                               f"{root.value}[{ctx.code(key)}]", ctx)


def _host_only(name: str, harmless: Callable[[cst.Name], bool], ctx: FixContext) -> bool:
    """The global ``name`` is bound once, by a module-level assignment, never written with ``global``,
    and every read of it in traced code is ``harmless`` (the write the fix moves to the host): only
    eager code sees what the host callback stores."""
    info = ctx.index.globals.get(name)
    if info is None or info.assignments != 1 or name in ctx.index.global_written:
        return False
    for traced_fn in ctx.facts.bodies:
        if not isinstance(traced_fn.node, (cst.FunctionDef, cst.Lambda)):
            return False
        for ref in name_references(traced_fn.node, name):
            if ctx.facts.read_scope.get(ref) == "global" and not harmless(ref):
                return False
    return True


def is_logging_call(node: cst.Call, ctx: FixContext) -> bool:
    """``logging.info(...)``, ``absl.logging.info(...)`` or ``logger.info(...)`` on a module-level logger."""
    func = node.func
    if not isinstance(func, cst.Attribute) or func.attr.value not in _LOGGING_METHODS:
        return False
    q = ctx.index.qualify(func)
    if q is not None:
        return q.rpartition(".")[0] in ("logging", "absl.logging")
    receiver = func.value
    return isinstance(receiver, cst.Name) and receiver.value in ctx.index.logger_names \
        and ctx.facts.read_scope.get(receiver) == "global"


#: builtins that format their arguments: the formatting moves into the callback, around its values
#: builtins a logging call's arguments go through that move into the callback with the value: formatting,
#: and the conversions to a Python number (`float(price)`), which the host makes of the array it gets
_FORMATTING_BUILTINS = frozenset({"str", "repr", "format", "float", "int"})


class _Lifted:
    """The arguments of a logging call rewritten for the lambda: each traced value replaced by a
    parameter the callback is given (``passed``), each static value that is not a literal by a
    parameter bound to it at trace time (``bound``)."""

    def __init__(self, ctx: FixContext, call: cst.Call) -> None:
        self.ctx = ctx
        self.passed: List[Tuple[str, cst.BaseExpression]] = []
        self.bound: List[Tuple[str, cst.BaseExpression]] = []
        self.by_code: Dict[str, str] = {}
        self.taken = {n.value for n in name_references(call)}
        self.maybe = False

    def lift(self, expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        ctx = self.ctx
        if literal_value(expr) is not None or isinstance(expr, (cst.SimpleString, cst.Integer, cst.Float)) \
                or (isinstance(expr, cst.Name) and expr.value in ("None", "True", "False")):
            return expr
        if self._module_level(expr):
            return expr  # a module-level name (`logging.INFO`) is the same object in the callback
        if isinstance(expr, cst.FormattedString):
            parts = []
            for part in expr.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    if part.equal is not None or (part.format_spec and not all(
                            isinstance(p, cst.FormattedStringText) for p in part.format_spec)):
                        return None  # `{x=}` would show the parameter's name; a nested spec
                    inner = self.lift(part.expression)
                    if inner is None:
                        return None
                    part = part.with_changes(expression=inner)
                parts.append(part)
            return expr.with_changes(parts=parts)
        if isinstance(expr, cst.ConcatenatedString):
            left, right = self.lift(expr.left), self.lift(expr.right)
            return None if left is None or right is None else expr.with_changes(left=left, right=right)
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Modulo) \
                and isinstance(expr.left, (cst.SimpleString, cst.ConcatenatedString)):
            right = self.lift(expr.right)  # "%.3f" % loss
            return None if right is None else expr.with_changes(right=right)
        if isinstance(expr, cst.Tuple) and all(isinstance(el, cst.Element) for el in expr.elements):
            elements = []
            for el in expr.elements:
                value = self.lift(el.value)
                if value is None:
                    return None
                elements.append(el.with_changes(value=value))
            return expr.with_changes(elements=elements)
        if isinstance(expr, cst.Call) and self._formats(expr):
            args = []
            for arg in expr.args:
                value = None if arg.star else self.lift(arg.value)
                if value is None:
                    return None
                args.append(arg.with_changes(value=value))
            return expr.with_changes(args=args)
        value = ctx.facts.value(expr)
        if value.kind is Kind.STATIC:
            if value.formats_tracer is not None:
                return None  # a tracer formatted some other way at trace time
            self.maybe = self.maybe or not proven_static(ctx, expr)
            return cst.Name(self._name(expr, self.bound))
        self.maybe = self.maybe or value.kind is Kind.MAYBE
        return cst.Name(self._name(expr, self.passed))

    def _module_level(self, expr: cst.BaseExpression) -> bool:
        if isinstance(expr, cst.Attribute):
            return self.ctx.index.qualify(expr) is not None  # of an imported module
        return isinstance(expr, cst.Name) and self.ctx.facts.read_scope.get(expr) in ("global", "builtin")

    def _formats(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Name):
            return func.value in _FORMATTING_BUILTINS and self.ctx.facts.read_scope.get(func) == "builtin"
        return template_format(call)

    def _name(self, expr: cst.BaseExpression, into: List[Tuple[str, cst.BaseExpression]]) -> str:
        code = self.ctx.code(expr)
        known = self.by_code.get(code)
        if known is not None:
            return known
        if isinstance(expr, cst.Name):
            name = expr.value  # the parameter shadows the name it stands for
        else:
            base = name_for_expression(code)
            name, n = base, 1
            while name in self.taken or keyword.iskeyword(name):
                name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        self.by_code[code] = name
        into.append((name, expr))
        return name


# ============================================================ JIT102: host state updated per call


@rewrites("JIT102")
def to_host_wrapper(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``@jax.jit def rate(x): nonlocal scans; scans += 1; ...`` -> ``def rate(x): nonlocal scans; scans +=
    1; return _rate(x)`` above ``@jax.jit def _rate(x): ...``: the update of outer state, moved to a plain
    function that keeps the name and the signature, runs on every call, as eagerly.

    Only the statements that open the body (after its docstring) and update a ``global`` / ``nonlocal``
    name, or an item or attribute of a global or outer object, with values that read nothing of the
    function (no local, and of a parameter only its ``shape`` / ``ndim`` / ``size`` / ``dtype`` or ``len``,
    which the wrapper reads of the same argument: a counter's ``+= 1``, ``+= x.shape[0]``) are moved, with their
    declarations; such an update further down, at the body's top level, goes after the call (``result =
    _rate(x); scans += 1; return result``) where the body leaves only by its last statement.  The finding
    must be one of them, and the rest of the body must not name what they update.  The function must be a ``def`` whose one decorator is a jit, not ``async``, no generator.
    UNSAFE: the name is no longer a jitted function (its ``lower`` and the other attributes of one are
    gone), and inside an outer ``jax.jit`` the update still runs once per trace."""
    from jitlint.fixes.parameters import only_jit_entry, own_nodes, split_behind_a_wrapper

    fn = ctx.enclosing_function(node)
    if fn is None or not isinstance(fn.node, cst.FunctionDef) or fn.node.asynchronous is not None \
            or len(fn.node.decorators) != 1 or only_jit_entry(fn, ctx) is None \
            or not isinstance(fn.node.body, cst.IndentedBlock):
        return None
    body = list(fn.node.body.body)
    doc = body[:1] if body and is_docstring(body[0]) else []
    moved: List[cst.BaseStatement] = []
    updated: set = set()
    for stmt in body[len(doc):]:
        names = _host_update(stmt, fn, ctx)
        if names is None:
            break
        moved.append(stmt)
        updated |= names
    # an update further down the body, at its top level, runs after the jitted call: when the body leaves only
    # by its last statement (no earlier `return` skips it, eagerly or jitted)
    after: List[cst.BaseStatement] = []
    later = body[len(doc) + len(moved):]
    for k, stmt in enumerate(later):
        names = _host_update(stmt, fn, ctx)
        if names and k + 1 < len(later) and not _declares(stmt):
            after.append(stmt)
            updated |= names
    rest = [stmt for stmt in later if not any(stmt is a for a in after)]
    if after and any(isinstance(n, cst.Return) and not any(a is rest[-1] for a in ctx.ancestors(n))
                     for n in own_nodes(fn.node)):
        return None  # (a `return` before the last statement skips the update)
    finding_line = next((s for s in moved + after if s is node or any(a is s for a in ctx.ancestors(node))), None)
    if finding_line is None or not updated or not rest \
            or any(isinstance(n, (cst.Yield, cst.Await)) for n in own_nodes(fn.node)):
        return None  # (a generator cannot be split behind a function that returns its call)
    if any(ref.value in updated for s in rest for ref in name_references(s)):
        return None  # (the core reads what the wrapper updates: it would read it frozen)
    private = ctx.fresh_name("_" + fn.name.lstrip("_"), ctx.module, ctx.module_names())
    edit = split_behind_a_wrapper(fn, private, {}, ctx, moved=moved, moved_after=after)
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, f"Update the state in a plain `{fn.name}`, on every call, and jit the "
                   f"rest as `{private}`", (edit,))


def _declares(stmt: cst.BaseStatement) -> bool:
    """A line of ``global`` / ``nonlocal`` declarations."""
    return isinstance(stmt, cst.SimpleStatementLine) and any(isinstance(small, (cst.Global, cst.Nonlocal))
                                                              for small in stmt.body)


def _host_update(stmt: cst.BaseStatement, fn, ctx: FixContext) -> Optional[set]:
    """The outer names ``stmt`` updates, where it is a line of ``global`` / ``nonlocal`` declarations and
    updates of outer state whose values read nothing of ``fn`` (see :func:`to_host_wrapper`); None otherwise."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return None
    own = set(fn.local_names) - set(fn.global_names) - set(fn.nonlocal_names)
    own |= {p.name.value for p, _ in fn.params}
    names: set = set()
    for small in stmt.body:
        if isinstance(small, (cst.Global, cst.Nonlocal)):
            continue
        if isinstance(small, cst.AugAssign):
            targets, value = [small.target], small.value
        elif isinstance(small, cst.Assign):
            targets, value = [t.target for t in small.targets], small.value
        else:
            return None
        for target in targets:
            root = target
            while isinstance(root, (cst.Attribute, cst.Subscript)):
                if isinstance(root, cst.Subscript) and any(ref.value in own for el in root.slice
                                                           for ref in name_references(el)):
                    return None
                root = root.value
            if not isinstance(root, cst.Name) or root.value in own and root is target:
                return None
            if root is target and root.value not in fn.global_names | fn.nonlocal_names:
                return None  # (a plain local name)
            if root is not target and root.value in own:
                return None
            names.add(root.value)
        params = {p.name.value for p, _ in fn.params}
        if any(ref.value in own and not (ref.value in params and _static_facet(ref, ctx))
               for ref in name_references(value)):
            return None
    return names


def _static_facet(ref: cst.Name, ctx: FixContext) -> bool:
    """``p.shape`` / ``p.ndim`` / ``p.size`` / ``p.dtype`` or ``len(p)`` of the parameter ``p``: what the plain
    wrapper reads of the argument it is given is what the trace read (``n += x.shape[0]`` counts rows on every
    call)."""
    parent = ctx.parent(ref)
    if isinstance(parent, cst.Attribute) and parent.value is ref:
        return parent.attr.value in ("shape", "ndim", "size", "dtype")
    call = ctx.parent(parent) if isinstance(parent, cst.Arg) else None
    return isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "len" \
        and len(call.args) == 1 and ctx.facts.read_scope.get(call.func) == "builtin"


# ============================================================ JIT104: a file written in traced code


#: what opens a file for a ``with`` block
_OPENERS = frozenset({"open", "builtins.open", "io.open", "gzip.open", "bz2.open", "lzma.open"})


@rewrites("JIT104")
def to_io_callback_block(node: cst.CSTNode, ctx: FixContext) -> Optional[Fix]:
    """``with open(path, "a") as fh: csv.writer(fh).writerow([step, loss])`` in traced code -> the block moved
    into a local function of the traced values it reads, run on the host on every call by
    ``io_callback(_write, None, step, loss, ordered=True)``: the file gets the values of each call, in
    call order, instead of tracers once per trace.

    Preconditions: the finding is in the opener of a ``with`` statement of the traced function's body
    (``open`` and the standard compressors' ``open``); the block returns, breaks, yields and declares
    nothing, and no code after it reads a name it binds; every local it reads is proven a traced value
    (passed to the callback) or a static one (read where the function is made, as the trace read it).
    UNSAFE: the callback gets NumPy arrays where the eager code had JAX arrays or Python numbers (a
    Python int arrives as a 0-d array, which formats the same), and an ordered callback cannot run under
    ``jax.vmap``."""
    stmt: Optional[cst.CSTNode] = node
    while stmt is not None and not isinstance(stmt, cst.With):
        stmt = ctx.parent(stmt)
    if not isinstance(stmt, cst.With) or not any_node(list(stmt.items), lambda n: n is node):
        return None
    if not all(isinstance(item.item, cst.Call) and (ctx.index.qualify(item.item.func) or (
            item.item.func.value if isinstance(item.item.func, cst.Name)
            and ctx.facts.read_scope.get(item.item.func) == "builtin" else "")) in _OPENERS for item in stmt.items):
        return None
    fn_node = ctx.enclosing_def(stmt)
    fn = ctx.enclosing_function(stmt)
    located = ctx.block_of(stmt)
    if fn_node is None or fn is None or located is None or stmt.asynchronous is not None:
        return None
    if any_node([stmt], lambda n: isinstance(n, (cst.Return, cst.Yield, cst.Await, cst.Break, cst.Continue,
                                                 cst.Global, cst.Nonlocal, cst.FunctionDef, cst.Lambda, cst.ClassDef))):
        return None
    bound = set(assigned_in([stmt])) | {n.value for item in stmt.items if item.asname is not None
                                        for n in name_references(item.asname.name)}
    block, k = located
    later = [n.value for s in block.body[k + 1:] for n in name_references(s)]
    if bound & set(later) or _read_after_in_loop(stmt, bound, ctx):
        return None
    passed: List[str] = []
    for ref in _names_in_order(stmt):
        name = ref.value
        if name in bound or name in passed or ctx.facts.read_scope.get(ref) != "local":
            continue
        kind = ctx.facts.value(ref).kind
        if kind is Kind.TRACED:
            passed.append(name)
        elif kind is not Kind.STATIC:
            return None  # (a value that may be an array or not: the callback could not take it)
    if not passed:
        return None
    spelled = ctx.import_name("jax.experimental.io_callback")
    if spelled is None:
        return None
    func_text, import_edits = spelled
    helper = ctx.fresh_name("_write_on_host", fn_node)
    definition = cst.FunctionDef(name=cst.Name(helper), params=cst.Parameters(params=[
        cst.Param(cst.Name(name)) for name in passed]), body=cst.IndentedBlock(body=[
            stmt.with_changes(leading_lines=[])]), leading_lines=stmt.leading_lines)
    call = ctx.stmt(f"{func_text}({helper}, None, " + ", ".join(passed) + ", ordered=True)")
    edit = ctx.replace(stmt, cst.FlattenSentinel([definition, call]))
    if edit is None:
        return None
    return ctx.fix(Applicability.UNSAFE, "Write from `io_callback(..., ordered=True)`, which runs on every call "
                   "with the values", (edit,) + import_edits)


def _names_in_order(node: cst.CSTNode) -> List[cst.Name]:
    """The names ``name_references`` finds in ``node``, in the order the code spells them."""
    found = {id(n) for n in name_references(node)}
    out: List[cst.Name] = []
    stack: List[cst.CSTNode] = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and id(n) in found:
            out.append(n)
        stack.extend(reversed(list(iter_children(n))))
    return out


def _read_after_in_loop(stmt: cst.CSTNode, bound: Set[str], ctx: FixContext) -> bool:
    """A loop around ``stmt`` (in its function) reads a name the block binds: the next iteration would."""
    inside = {id(n) for n in name_references(stmt)}
    parent = ctx.parent(stmt)
    while parent is not None and not isinstance(parent, (cst.FunctionDef, cst.Lambda, cst.Module)):
        if isinstance(parent, (cst.For, cst.While)) and any(
                n.value in bound and id(n) not in inside for n in name_references(parent)):
            return True
        parent = ctx.parent(parent)
    return False


