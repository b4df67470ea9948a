#!/usr/bin/env python3
"""How long the editor server stops answering while it analyses one huge document.

Usage:  python benchmarks/lsp_blocking.py [FUNCTIONS ...]

For each size (jitted functions of tests/synthetic.py, 9 lines each: 3000 is the 27,000-line
module, 22222 the 200,000-line one) one ``jitlint server`` is started and driven over stdio by
pygls's client.  A small file is opened and its quick fix asked for (so that answering it again
needs no analysis); then the huge document is opened, and until its diagnostics arrive a code
action on the small file is sent every 10 ms, one at a time.  Printed per size: the time from
opening the huge document to its diagnostics, how many probes were answered meanwhile, the
slowest answer before the diagnostics arrived (the longest the server's message loop was blocked,
to within a probe) and the slowest with the last probe (which can wait for the server to write
the diagnostics out), and the time from an edit of the huge document, sent while it is analysed
again, to the edited version's diagnostics.
"""
from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from run import served  # noqa: E402
from synthetic import jitted_functions  # noqa: E402


async def blocking(functions: int) -> Tuple[float, int, float, float, float]:
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    folder = tempfile.mkdtemp(prefix="jitlint-bench-blocking-")
    big, small = os.path.join(folder, "huge.py"), os.path.join(folder, "small.py")
    text, small_text = jitted_functions(functions), jitted_functions(2)
    client = LanguageClient("jitlint-benchmark", "1")
    published: "asyncio.Queue[Tuple[float, types.PublishDiagnosticsParams]]" = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_publish(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait((time.perf_counter(), params))

    async def publish_of(uri: str, version: int) -> float:
        while True:
            when, params = await asyncio.wait_for(published.get(), 1800)
            if params.uri == uri and params.version == version:
                return when

    def open_document(path: str, source: str) -> str:
        uri = "file://" + path
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=source)))
        return uri

    async def probe() -> float:
        start = time.perf_counter()
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri="file://" + small),
            range=types.Range(types.Position(8, 0), types.Position(8, 0)),  # f0's `if y.sum() > 0:`
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])))
        if not actions or not actions[0].title.startswith("JIT201: "):
            raise SystemExit(f"the probe got no fix: {actions}")
        return time.perf_counter() - start

    async def probing(until: "asyncio.Future[float]") -> List[Tuple[float, float]]:
        """(when answered, how long it took) of each probe sent until ``until`` is done."""
        answers: List[Tuple[float, float]] = []
        while not until.done():
            elapsed = await probe()
            answers.append((time.perf_counter(), elapsed))
            await asyncio.sleep(0.01)
        return answers

    async with served(client, folder):
        small_uri = open_document(small, small_text)
        await publish_of(small_uri, 1)
        await probe()  # the small file's fix is built now, not while the huge one is analysed
        start = time.perf_counter()
        uri = open_document(big, text)
        done = asyncio.ensure_future(publish_of(uri, 1))
        answers = await probing(done)
        arrived = await done
        analysis = arrived - start
        # an edit while the (edited) document is analysed again: its diagnostics come when?
        for version in (2, 3):
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(types.Position(3, 0), types.Position(4, 0)), text=f"@jax.jit  # {version}\n")]))
            if version == 2:
                await asyncio.sleep(min(analysis / 2, 3.0))  # well into the analysis of version 2
                start = time.perf_counter()
        edit = await publish_of(uri, 3) - start
    before = [elapsed for when, elapsed in answers if when < arrived]
    return analysis, len(answers), max(before, default=0.0), max(e for _, e in answers), edit


def main() -> int:
    sizes = [int(a) for a in sys.argv[1:]] or [3000]
    for functions in sizes:
        analysis, probes, slowest, last, edit = asyncio.run(blocking(functions))
        lines = jitted_functions(functions).count("\n")
        print(f"{lines} lines: diagnostics {analysis:.2f} s after opening; {probes} probes answered meanwhile, "
              f"the slowest in {slowest:.2f} s ({last:.2f} s with the one answered after the diagnostics came: "
              f"it waited for their publication); an edit sent during the next analysis: its diagnostics "
              f"{edit:.2f} s after it", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
