#!/usr/bin/env python3
"""Benchmark jitlint against the LibCST parse floor and flake8 peers, side by side.

Usage:  python benchmarks/run.py [CORPUS] [--rounds N] [--output benchmarks/RESULTS.md]
        python benchmarks/run.py --scaling-only [--rounds N] [--baseline OTHER_CHECKOUT]

CORPUS defaults to ./realcode (made by ../shared/tools/make_realcode.sh).  Every
command runs in its own process, in alternating order, for N rounds; the table
gives the median wall time, the ratio to the LibCST parse floor, and the peak
resident memory of the command's own process (from wait4).  A second table times
generated modules (tests/synthetic.py) at two sizes, the second twice the first,
to show that the cost grows with the lines.  Numbers are only compared within
one run: the machines are shared and noisy.  The generated modules are timed twice: with
``--format json`` (every fix's edits built, as in the corpus rows) and as plain ``jitlint check``
prints them (text: a fix's title, not its edits).  ``--scaling-only`` runs that table alone (no
corpus, nothing written); ``--baseline DIR`` adds the rows of the jitlint of another checkout
(``git worktree add DIR main``), timed in the same rounds, so that a change is measured against
what it changes under the same load.  A third table times the editor server on the
10,000-line generated module: one ``jitlint server``, driven over stdio by pygls's client as an
editor would drive it, the time from a small edit to the new version's diagnostics, from a
code action request on a finding to its answer, and the slowest answer to a request on another
file while the module is analysed (``--lsp-only`` runs that table alone, with no corpus).
"""
from __future__ import annotations

import argparse
import compileall
import contextlib
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from synthetic import eager_functions, helper_chain, jitted_functions, lines_per_function  # noqa: E402

#: (label, generator, small size, large size) of the generated modules
SCALING = [
    ("jitted functions (10,000 -> 20,000 lines)", jitted_functions,
     round(10_000 / lines_per_function(jitted_functions)), round(20_000 / lines_per_function(jitted_functions))),
    ("helper chain (1,000 -> 2,000 functions)", helper_chain, 1_000, 2_000),
]

PARSE_FLOOR = r"""
import os, sys, libcst
root = sys.argv[1]
skip = {".git", "__pycache__", ".venv", "venv", "build"}
for folder, dirs, files in os.walk(root):
    dirs[:] = [d for d in dirs if d not in skip]
    for name in files:
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as fh:
                data = fh.read()
            try:
                libcst.parse_module(data)
            except Exception:
                pass
"""


JITLINT = [PY, "-m", "jitlint", "check", "--quiet", "--format", "json", "--isolated"]
#: ``jitlint check`` as people run it: the text report (its fixes' titles, not their edits)
JITLINT_TEXT = [PY, "-m", "jitlint", "check", "--isolated"]
#: the checkout this script is in: its jitlint is the one timed (``python -m jitlint`` run from there)
REPO = os.path.dirname(HERE)


def commands(corpus: str, cache: str) -> Dict[str, List[str]]:
    jitlint = JITLINT
    flake8 = [PY, "-m", "flake8", "--isolated", "-j1", "--exit-zero"]
    return {
        "libcst parse floor": [PY, "-c", PARSE_FLOOR, corpus],
        "jitlint check -j1 --no-cache": jitlint + ["-j1", "--no-cache", corpus],
        "jitlint check (default jobs, no cache)": jitlint + ["--no-cache", corpus],
        "jitlint check, warm cache": jitlint + ["--cache-dir", cache, corpus],
        "flake8 --select E9 -j1 (flake8 alone)": flake8 + ["--select", "E9", corpus],
        "flake8 --select JIT -j1": flake8 + ["--select", "JIT", corpus],
        "flake8 --select B -j1 (bugbear)": flake8 + ["--select", "B", corpus],
    }


def run_once(argv: List[str], checkout: Optional[str] = None) -> Tuple[float, int]:
    """Wall time and peak RSS of ``argv``; ``checkout``: run from that folder, with its jitlint."""
    env = None if checkout is None else dict(os.environ, PYTHONPATH=checkout)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=checkout, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode not in (0, 1):
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(argv)}\n{err[-2000:]}")
    return elapsed, usage.ru_maxrss // 1024


#: a generated-module command: (module, what is timed, size) -> (argv, checkout to run it from)
ScalingKey = Tuple[str, str, int]


def scaling_commands(folder: str, baseline: Optional[str] = None) -> Dict[ScalingKey, Tuple[List[str], Optional[str]]]:
    """For each generated module and size: the parse floor and ``jitlint check -j1 --no-cache``,
    JSON and text, of this checkout and (given) of the ``baseline`` one."""
    checkouts = [("", REPO)] + ([("baseline ", os.path.abspath(baseline))] if baseline else [])
    cmds: Dict[ScalingKey, Tuple[List[str], Optional[str]]] = {}
    for label, generator, *sizes in SCALING:
        for size in sizes:
            sub = os.path.join(folder, f"{generator.__name__}_{size}")
            os.makedirs(sub)
            with open(os.path.join(sub, "module.py"), "w", encoding="utf-8") as fh:
                fh.write(generator(size))
            cmds[(label, "parse", size)] = ([PY, "-c", PARSE_FLOOR, sub], None)
            for prefix, checkout in checkouts:
                cmds[(label, prefix + "jitlint", size)] = (JITLINT + ["-j1", "--no-cache", sub], checkout)
                cmds[(label, prefix + "jitlint text", size)] = (JITLINT_TEXT + ["-j1", "--no-cache", sub], checkout)
    return cmds


def time_scaling_round(cmds: Dict[ScalingKey, Tuple[List[str], Optional[str]]], r: int,
                       times: Dict[ScalingKey, List[float]]) -> None:
    """One round of the generated-module commands, in alternating order."""
    keys = list(cmds) if r % 2 == 0 else list(reversed(list(cmds)))
    for key in keys:
        elapsed, _ = run_once(*cmds[key])
        times.setdefault(key, []).append(elapsed)
        print(f"round {r + 1}: {key}: {elapsed:.2f} s", file=sys.stderr)


def scaling_rows(times: Dict[ScalingKey, List[float]], folder: str) -> List[str]:
    rows = ["| generated module | lines | LibCST parse | jitlint -j1 (json) | json / parse "
            "| jitlint check -j1 (text) | text / parse |",
            "|---|---|---|---|---|---|---|"]
    growth = []
    prefixes = [""] + (["baseline "] if any(key[1].startswith("baseline ") for key in times) else [])
    for label, generator, small, large in SCALING:
        for prefix in prefixes:
            cost: Dict[Tuple[str, int], float] = {}
            for size in (small, large):
                with open(os.path.join(folder, f"{generator.__name__}_{size}", "module.py"), "rb") as fh:
                    lines = fh.read().count(b"\n")
                parse = statistics.median(times[(label, "parse", size)])
                for kind in ("jitlint", "jitlint text"):
                    cost[(kind, size)] = statistics.median(times[(label, prefix + kind, size)])
                json_cost, text_cost = cost[("jitlint", size)], cost[("jitlint text", size)]
                name = f"{label}, n={size}" + (", " + prefix.strip() if prefix else "")
                rows.append(f"| {name} | {lines} | {parse:.2f} s | {json_cost:.2f} s | {json_cost / parse:.2f}x "
                            f"| {text_cost:.2f} s | {text_cost / parse:.2f}x |")
            json_growth = cost[("jitlint", large)] / cost[("jitlint", small)]
            text_growth = cost[("jitlint text", large)] / cost[("jitlint text", small)]
            growth.append(f"- {label}{' (' + prefix.strip() + ')' if prefix else ''}: twice the input costs "
                          f"{json_growth:.2f}x the time in JSON, {text_growth:.2f}x in text (linear: 2.00)")
    return rows + [""] + growth


#: the generated module the editor server is timed on: the small size of the first scaling row (~10,000 lines)
LSP_FUNCTIONS = SCALING[0][2]
#: the same length of functions that nothing traces (:func:`synthetic.eager_functions`)
EAGER_FUNCTIONS = round(10_000 / lines_per_function(eager_functions))
#: the issue's targets for the editor (seconds)
LSP_TARGETS = {"edit": 1.0, "action": 0.5}
#: seconds a code action on a document read from the cache waits after its diagnostics (an editor's user reading them)
IDLE_PAUSE = 15.0
#: seconds a linted text is left alone before it is closed and reopened (its fixes stored meanwhile)
STORE_PAUSE = 5.0


def lsp_times(rounds: int) -> Dict[str, List[float]]:
    """Per round, in one server: a small edit -> its diagnostics; a code action on a finding of the new
    version (its fix built then); a code action on a finding of a document just reopened unchanged (its
    findings read from the cache, without the means to build their fixes)."""
    import asyncio

    return asyncio.run(_lsp_rounds(rounds))


async def _lsp_rounds(rounds: int) -> Dict[str, List[float]]:
    import asyncio

    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    text = jitted_functions(LSP_FUNCTIONS)
    folder = tempfile.mkdtemp(prefix="jitlint-bench-lsp-")
    path = os.path.join(folder, "dense.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    uri = "file://" + path
    small = os.path.join(folder, "small.py")  # a file analysed before, asked about while the large one is analysed
    small_text = jitted_functions(2)
    times: Dict[str, List[float]] = {"edit": [], "action": [], "cached action": [], "stored action": [],
                                     "idle cached action": [],
                                     "answer": [],
                                     "eager edit": []}
    client = LanguageClient("jitlint-benchmark", "1")
    published: "asyncio.Queue[Tuple[float, types.PublishDiagnosticsParams]]" = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait((time.perf_counter(), params))

    async def publish_of(version: int, where: str = uri) -> Tuple[float, types.PublishDiagnosticsParams]:
        while True:
            when, params = await asyncio.wait_for(published.get(), 600)
            if params.uri == where and params.version == version:
                return when, params

    async def code_action(function: int, where: str = uri, source: str = "") -> float:
        line = (source or text).splitlines().index(f"def f{function}(x, n):") + 4  # its `if y.sum() > 0:`
        start = time.perf_counter()
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=where), range=types.Range(
                types.Position(line, 0), types.Position(line, 0)),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])))
        elapsed = time.perf_counter() - start
        if not actions or not actions[0].title.startswith("JIT201: "):
            raise SystemExit(f"the code action on f{function} gave no fix: {actions}")
        return elapsed

    def open_document(version: int, where: str = uri, source: str = "") -> None:
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=where, language_id="python", version=version, text=source or text)))

    async def slowest_answer(until: "asyncio.Task[Tuple[float, types.PublishDiagnosticsParams]]") -> float:
        """The longest a code action on the small file waited for its answer while ``until`` was not done."""
        slowest = 0.0
        while not until.done():
            slowest = max(slowest, await code_action(1, "file://" + small, small_text))
            await asyncio.sleep(0.05)
        return slowest

    async with served(client, folder):
        open_document(1, "file://" + small, small_text)
        await code_action(1, "file://" + small, small_text)  # published, and its fix built
        open_document(1)
        _, first = await publish_of(1)
        if len(first.diagnostics) != LSP_FUNCTIONS:
            raise SystemExit(f"the server published {len(first.diagnostics)} findings, not {LSP_FUNCTIONS}")
        version = 1
        for r in range(rounds):
            # a new text each round (never a cached one): a constant of one function changes
            line = text.splitlines().index(f"def f{r}(x, n):") + 1
            version += 1
            start = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)),
                    text=f"    y = jnp.sin(x) * {3 + r}.5\n")]))
            publishing = asyncio.ensure_future(publish_of(version))
            times["answer"].append(await slowest_answer(publishing))
            when, _ = await publishing
            times["edit"].append(when - start)
            times["action"].append(await code_action(LSP_FUNCTIONS // 2))
            print(f"round {r + 1}: LSP edit -> diagnostics {times['edit'][-1]:.2f} s, "
                  f"code action {times['action'][-1]:.2f} s, slowest answer meanwhile {times['answer'][-1]:.2f} s",
                  file=sys.stderr)

        async def reopen() -> None:
            """Close the module and open it again as a new version; wait for its diagnostics."""
            nonlocal version
            client.text_document_did_close(types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri)))
            version += 1
            open_document(version)
            await publish_of(version)

        for r in range(rounds):
            # a text linted, closed and opened again at once, before the server could store its fixes while
            # idle: its findings read from the cache, their fixes not
            text = text.replace("* 2.0", f"* {5 + r}.5", 1)
            await reopen()
            await reopen()
            times["cached action"].append(await code_action(LSP_FUNCTIONS // 2))
            # a text linted and left alone for a while (the server stores its fixes in the cache meanwhile),
            # then closed and opened again (a file reopened, the editor started again): findings and fixes
            # read from the cache
            text = text.replace("* 2.0", f"* {7 + r}.5", 1)
            await reopen()
            await asyncio.sleep(STORE_PAUSE)
            await reopen()
            times["stored action"].append(await code_action(LSP_FUNCTIONS // 2))
            # the same text opened again (read from the cache) and left alone: the server prepares it while idle
            await reopen()
            await asyncio.sleep(IDLE_PAUSE)
            times["idle cached action"].append(await code_action(LSP_FUNCTIONS // 2))
            print(f"round {r + 1}: LSP code action after a cache hit {times['cached action'][-1]:.2f} s, "
                  f"with the fixes stored {times['stored action'][-1]:.2f} s, "
                  f"{IDLE_PAUSE:g} s after it {times['idle cached action'][-1]:.2f} s", file=sys.stderr)
        # a module of the same length where nothing is traced but one small function, as most real ones
        eager_uri = "file://" + os.path.join(folder, "eager.py")
        eager = eager_functions(EAGER_FUNCTIONS)
        open_document(1, eager_uri, eager)
        await publish_of(1, eager_uri)
        for r in range(rounds):
            line = eager.splitlines().index(f"def g{EAGER_FUNCTIONS // 2 + r}(x, n):") + 1
            start = time.perf_counter()
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=eager_uri, version=r + 2),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)),
                    text=f"    y = np.sin(x) * {3 + r}.5\n")]))
            when, _ = await publish_of(r + 2, eager_uri)
            times["eager edit"].append(when - start)
            print(f"round {r + 1}: LSP edit -> diagnostics on the eager module {times['eager edit'][-1]:.2f} s",
                  file=sys.stderr)
    return times


@contextlib.asynccontextmanager
async def served(client, folder: str):
    """A ``jitlint server`` for ``client`` (pygls's), its results cache in ``folder``; shut down and exited
    at the end, killed after a failure (stopping the client would wait for it); the folder removed."""
    from lsprotocol import types

    env = dict(os.environ, JITLINT_CACHE_DIR=os.path.join(folder, "cache"))
    await client.start_io(PY, "-m", "jitlint", "server", env=env)
    exited = False
    try:
        await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
        client.initialized(types.InitializedParams())
        yield client
        await client.shutdown_async(None)
        client.exit(None)
        exited = True
    finally:
        server = client._server
        if server is not None and server.returncode is None and not exited:
            server.kill()
        await client.stop()
        shutil.rmtree(folder, ignore_errors=True)


def lsp_rows(times: Dict[str, List[float]]) -> List[str]:
    edit, action, cached, stored, idle_cached, answer, eager = (statistics.median(times[k]) for k in (
        "edit", "action", "cached action", "stored action", "idle cached action", "answer", "eager edit"))

    def verdict(value: float, target: float) -> str:
        return f"<= {target:g} s: {'met' if value <= target else 'not met'}"

    return [f"| editor server, generated module of {LSP_FUNCTIONS} jitted functions | median | target |",
            "|---|---|---|",
            f"| LSP: diagnostics after an edit on the 10k-line dense module (didChange -> publish, "
            f"with the server's 0.2 s pause) | {edit:.2f} s | {verdict(edit, LSP_TARGETS['edit'])} |",
            f"| LSP: code action on one finding (its fix built on demand) | {action:.2f} s "
            f"| {verdict(action, LSP_TARGETS['action'])} |",
            f"| LSP: code action on one finding at once after a cache hit, the text closed at once after its "
            f"lint (its fixes not stored: built by an analysis around the finding's statement) "
            f"| {cached:.2f} s | {verdict(cached, LSP_TARGETS['action'])} |",
            f"| LSP: code action on one finding at once after a cache hit, the text left {STORE_PAUSE:g} s after "
            f"its lint (the server stored its fixes meanwhile) | {stored:.2f} s "
            f"| {verdict(stored, LSP_TARGETS['action'])} |",
            f"| LSP: code action on one finding {IDLE_PAUSE:g} s after a cache hit (its fixes not stored) "
            f"| {idle_cached:.2f} s | {verdict(idle_cached, LSP_TARGETS['action'])} |",
            f"| LSP: slowest answer to a code action on another (analysed) file while the module is analysed "
            f"| {answer:.2f} s | - |",
            f"| LSP: diagnostics after an edit on a 10k-line module of {EAGER_FUNCTIONS} functions of that shape "
            f"that nothing traces, and one jitted function | {eager:.2f} s | {verdict(eager, LSP_TARGETS['edit'])} |"]


def count(corpus: str) -> Tuple[int, int]:
    files = lines = 0
    for folder, dirs, names in os.walk(corpus):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        for name in names:
            if name.endswith(".py"):
                files += 1
                with open(os.path.join(folder, name), "rb") as fh:
                    lines += fh.read().count(b"\n")
    return files, lines


def compiled(checkouts: List[str]) -> None:
    """Byte-compile each checkout's jitlint first: an installed jitlint runs from bytecode (pip
    compiles it), and a shell that sets PYTHONDONTWRITEBYTECODE would otherwise have every timed
    run compile it again from source (a fifth of a second, more than jitlint's own imports)."""
    for checkout in checkouts:
        compileall.compile_dir(os.path.join(checkout, "jitlint"), quiet=1)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("corpus", nargs="?", default="realcode")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--output", default=os.path.join(HERE, "RESULTS.md"))
    parser.add_argument("--lsp-only", action="store_true",
                        help="time the editor server alone and print its table (no corpus; nothing written)")
    parser.add_argument("--scaling-only", action="store_true",
                        help="time the generated modules alone and print their table (no corpus; nothing written)")
    parser.add_argument("--baseline", metavar="DIR",
                        help="with --scaling-only: also time the jitlint of the checkout DIR, in the same rounds")
    args = parser.parse_args()
    if args.baseline and not args.scaling_only:
        parser.error("--baseline goes with --scaling-only")
    compiled([REPO] + ([os.path.abspath(args.baseline)] if args.baseline else []))
    if args.lsp_only:
        print("\n".join(lsp_rows(lsp_times(args.rounds))))
        return 0
    if args.scaling_only:
        generated = tempfile.mkdtemp(prefix="jitlint-bench-generated-")
        try:
            scaling = scaling_commands(generated, args.baseline)
            scaling_times: Dict[ScalingKey, List[float]] = {}
            for r in range(args.rounds):
                time_scaling_round(scaling, r, scaling_times)
            print(f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
                  f"{args.rounds} rounds, median wall time")
            print("\n".join(scaling_rows(scaling_times, generated)))
        finally:
            shutil.rmtree(generated, ignore_errors=True)
        return 0
    corpus = os.path.abspath(args.corpus)
    if not os.path.isdir(corpus):
        raise SystemExit(f"no corpus at {corpus}: run ../shared/tools/make_realcode.sh first")
    cache = tempfile.mkdtemp(prefix="jitlint-bench-cache-")
    generated = tempfile.mkdtemp(prefix="jitlint-bench-generated-")
    try:
        cmds = commands(corpus, cache)
        times: Dict[str, List[float]] = {name: [] for name in cmds}
        memory: Dict[str, int] = {name: 0 for name in cmds}
        names = list(cmds)
        scaling = scaling_commands(generated)
        scaling_times: Dict[ScalingKey, List[float]] = {}
        for r in range(args.rounds):
            order = names if r % 2 == 0 else list(reversed(names))
            for name in order:
                if name == "jitlint check, warm cache":
                    run_once(cmds[name])  # warm = right after a run of the same tree and the same jitlint
                elapsed, rss = run_once(cmds[name])
                times[name].append(elapsed)
                memory[name] = max(memory[name], rss)
                print(f"round {r + 1}: {name}: {elapsed:.2f} s, {rss} MB", file=sys.stderr)
            time_scaling_round(scaling, r, scaling_times)
            if r + 1 < args.rounds:  # a run stopped early still leaves the rounds it completed
                partial = f"{r + 1} of {args.rounds} rounds so far (the run had not finished)"
                write_report(args.output, corpus, names, times, memory, scaling_times, generated, [], partial)
        editor = lsp_rows(lsp_times(args.rounds))
        report = write_report(args.output, corpus, names, times, memory, scaling_times, generated, editor,
                              f"{args.rounds} rounds")
    finally:
        shutil.rmtree(cache, ignore_errors=True)
        shutil.rmtree(generated, ignore_errors=True)
    print(report)
    return 0


def write_report(output: str, corpus: str, names: List[str], times: Dict[str, List[float]], memory: Dict[str, int],
                 scaling_times: Dict[ScalingKey, List[float]], generated: str, editor: List[str],
                 rounds: str) -> str:
    """Write RESULTS.md from the rounds timed so far (``editor``: the server's rows, once timed)."""
    growth = scaling_rows(scaling_times, generated)
    files, lines = count(corpus)
    floor = statistics.median(times["libcst parse floor"])
    cold = statistics.median(times["jitlint check -j1 --no-cache"])
    rows = []
    for name in names:
        med = statistics.median(times[name])
        rows.append(f"| {name} | {med:.2f} s | {med / floor:.2f}x | {memory[name]} MB |")
    parallel = statistics.median(times["jitlint check (default jobs, no cache)"])
    warm = statistics.median(times["jitlint check, warm cache"])
    flake8_jit = statistics.median(times["flake8 --select JIT -j1"])
    flake8_alone = statistics.median(times["flake8 --select E9 -j1 (flake8 alone)"])
    report = "\n".join([
        "# jitlint benchmark",
        "",
        f"Generated by `python benchmarks/run.py` on {datetime.date.today().isoformat()}: "
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{rounds}, median wall time; memory is the peak RSS of the command's own process.",
        f"Corpus: `{os.path.basename(corpus)}`, {files} files, {lines} lines.",
        "",
        "| command | median | vs LibCST parse | peak RSS |",
        "|---|---|---|---|",
        *rows,
        "",
        "Targets (issue 7), from this run:",
        "",
        f"- cold `-j1 --no-cache` / parse floor: {cold / floor:.2f} (target <= 1.25)",
        f"- cold / warm cache: {cold / warm:.1f}x (target >= 20)",
        f"- `-j1` / default jobs: {cold / parallel:.2f}x (target >= 1.7 on 2 cores)",
        f"- what the JIT plugin adds to a flake8 run (`--select JIT` minus `--select E9`, flake8 runs its own "
        f"checks either way): {flake8_jit - flake8_alone:.1f} s = {(flake8_jit - flake8_alone) / cold:.2f}x "
        "`jitlint check -j1` (target <= 1)",
        "",
        "Scaling (generated modules from tests/synthetic.py, one file each, median of the same rounds):",
        "",
        *growth,
        "",
        "Editor server (`jitlint server` on the first generated module, driven over stdio by pygls's client; "
        "targets from issue 13):",
        "",
        *(editor or ["(not timed yet: the editor rows come after the last round)"]),
        "",
    ])
    with open(output, "w", encoding="utf-8") as fh:
        fh.write(report)
    return report


if __name__ == "__main__":
    raise SystemExit(main())
