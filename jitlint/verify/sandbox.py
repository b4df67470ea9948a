"""Run a verification job in a child interpreter, and survive whatever user code does there.

The child (:mod:`jitlint.verify.runner`) gets its own process group, so that
stopping it stops what it started too.  Its stdout and stderr are drained by
a thread that keeps only the last characters (user code that floods its
output costs nothing but time).  A watchdog stops it when one step -- the
import, or one function -- runs past the timeout, or when its resident memory
passes the limit.  Results come back as JSON lines in a file, read as they
are written: when the child dies, the functions already done keep their
results, the one running is reported with the reason, and a new child goes on
with the rest.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

#: seconds between two looks at the child
POLL_SECONDS = 0.05


@dataclass
class ChildOutcome:
    """What one child run left: its events, and how it ended."""

    events: List[dict] = field(default_factory=list)
    #: None: ended by itself; else why it was stopped ("timed out after 5 s", ...)
    stopped: Optional[str] = None
    returncode: Optional[int] = None
    output_tail: str = ""
    output_chars: int = 0
    seconds: float = 0.0


class _Tail:
    """Drains a pipe, keeping the last ``limit`` characters."""

    def __init__(self, stream, limit: int) -> None:
        self.limit = limit
        self.text = ""
        self.total = 0
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream) -> None:
        while True:
            chunk = stream.read(65536)
            if not chunk:
                break
            self.total += len(chunk)
            self.text = (self.text + chunk.decode("utf-8", "replace"))[-self.limit:]
        stream.close()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except (OSError, ValueError):
        pass
    return 0.0


def _group_rss_mb(pgid: int) -> float:
    """Resident memory of every process in the group (the child and what it started)."""
    total = 0.0
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0.0
    for pid in pids:
        try:
            if os.getpgid(pid) == pgid:
                total += _rss_mb(pid)
        except OSError:  # gone, or not ours to look at
            continue
    return total


def _stop(proc: subprocess.Popen) -> None:
    """Stop the child and everything in its process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


def _read_events(path: str, offset: int) -> Tuple[List[dict], int]:
    """Complete JSON lines from ``offset`` on; a line being written is left for later."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except OSError:
        return [], offset
    events: List[dict] = []
    end = data.rfind(b"\n")
    if end < 0:
        return [], offset
    for line in data[: end + 1].splitlines():
        try:
            events.append(json.loads(line.decode("utf-8", "replace")))
        except ValueError:
            continue
    return events, offset + end + 1


def child_environment(device: Optional[str], cross_device: bool) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # a child must not take most of an accelerator's memory up front (another may hold the rest)
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if device == "cpu" and not cross_device:
        env["JAX_PLATFORMS"] = "cpu"
    # jitlint itself must be importable by the child, wherever it is installed
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def run_child(job: dict, timeout: float, memory_mb: int, output_tail: int = 2000,
              env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None) -> ChildOutcome:
    """Run one job; the timeout restarts at each ``start`` event (one function each)."""
    outcome = ChildOutcome()
    with tempfile.TemporaryDirectory(prefix="jitlint-verify-") as tmp:
        job_path = os.path.join(tmp, "job.json")
        events_path = os.path.join(tmp, "events.jsonl")
        with open(job_path, "w", encoding="utf-8") as fh:
            json.dump(job, fh)
        open(events_path, "w").close()
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "jitlint.verify.runner", job_path, events_path],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env=env if env is not None else child_environment(None, False), cwd=cwd,
            start_new_session=True,
        )
        tail = _Tail(proc.stdout, output_tail)
        offset = 0
        step_started = time.monotonic()
        # the first step (starting Python, importing jax and the module) gets a little longer
        step_limit = timeout + 30.0
        try:
            while True:
                new, offset = _read_events(events_path, offset)
                for event in new:
                    outcome.events.append(event)
                    if event.get("event") in ("start", "import", "ready"):
                        step_started = time.monotonic()
                        step_limit = timeout
                if proc.poll() is not None:
                    break
                if time.monotonic() - step_started > step_limit:
                    outcome.stopped = f"timed out after {step_limit:g} s"
                    _stop(proc)
                    break
                if memory_mb and _group_rss_mb(proc.pid) > memory_mb:
                    outcome.stopped = f"stopped: used more than {memory_mb} MiB of memory"
                    _stop(proc)
                    break
                time.sleep(POLL_SECONDS)
        except BaseException:
            _stop(proc)
            raise
        finally:
            new, offset = _read_events(events_path, offset)
            outcome.events.extend(new)
            tail.join(5.0)
        outcome.returncode = proc.returncode
        outcome.output_tail = tail.text
        outcome.output_chars = tail.total
        outcome.seconds = time.monotonic() - started
    return outcome


def describe_exit(returncode: Optional[int]) -> str:
    if returncode is None:
        return "did not finish"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"crashed ({name})"
    return f"exited with status {returncode}"
