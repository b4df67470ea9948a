"""Run a verification job in a child interpreter, and survive whatever user code does there.

The child (:mod:`jitlint.verify.runner`) gets its own process group, and the
whole group is killed when the child's run ends, however it ends: by itself
(what user code started dies with it), at a timeout, or when this process
gets SIGTERM or SIGINT (the group is killed and the temporary folder removed
before the signal takes its usual effect).  Its stdout and stderr are drained
by a thread that keeps only the last characters (user code that floods its
output costs nothing but time).  A watchdog stops it when one step -- the
import, or one function -- runs past the timeout, or when its resident memory
passes the limit.  Results come back as JSON lines in a file, read as they
are written: when the child dies, the functions already done keep their
results, the one running is reported with the reason, and a new child goes on
with the rest.

The child may be another interpreter than this one (``--python``: the
project's own, with its JAX and dependencies), where jitlint is not
installed: it is started with :data:`BOOTSTRAP`, which imports the runner
from jitlint's folder without importing the rest of jitlint.
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
    """Kill everything in the child's process group, then reap the child.

    The child is reaped last: until then its process id, which is the group's
    id, cannot be given to another process, so the signal reaches no stranger.
    """
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


def _has_exited(proc: subprocess.Popen) -> bool:
    """Whether the child has ended, without reaping it (see :func:`_stop`)."""
    if proc.returncode is not None:
        return True
    waitid = getattr(os, "waitid", None)
    if waitid is None:  # pragma: no cover - not Linux
        return proc.poll() is not None
    try:
        return waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # already reaped
        return proc.poll() is not None


class _Terminated(BaseException):
    """SIGTERM or SIGINT reached this process while a child ran."""


class _ChildGuard:
    """For the time a child runs: SIGTERM and SIGINT kill its process group at once.

    The signal then ends the child's run (an exception, so that the temporary
    folder is removed) and, when the guard is left, is raised again with the
    handlers that were there before: SIGTERM ends the process as it would
    have, SIGINT raises KeyboardInterrupt.  A signal that was ignored stays
    ignored; outside the main thread no handler can be set, and nothing changes.
    """

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self) -> None:
        self.pgid: Optional[int] = None
        self.received: Optional[int] = None
        #: raise at the signal (only while waiting for the child: not in the middle of starting or cleaning up)
        self.armed = False
        self._saved: Dict[int, object] = {}

    def __enter__(self) -> "_ChildGuard":
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                previous = signal.getsignal(signum)
                if previous in (signal.SIG_IGN, None):
                    continue
                self._saved[signum] = previous
                signal.signal(signum, self._handle)
        return self

    def _handle(self, signum: int, frame: object) -> None:
        if self.received is None:
            self.received = signum
        self.kill()
        if self.armed:
            self.armed = False
            raise _Terminated(signum)

    def started(self, pgid: int) -> None:
        self.pgid = pgid
        if self.received is not None:  # it came while the child was being started
            self.kill()
            raise _Terminated(self.received)
        self.armed = True

    def kill(self) -> None:
        if self.pgid is not None:
            try:
                os.killpg(self.pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def __exit__(self, *exc: object) -> None:
        self.armed = False
        self.kill()
        for signum, previous in self._saved.items():
            signal.signal(signum, previous)  # type: ignore[arg-type]
        if self.received is not None:
            signal.raise_signal(self.received)
            # a handler of the caller's that returned: the run still ends
            raise SystemExit(128 + self.received)


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


#: jitlint's package folder, and the verifier's in it
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: the child's program: ``jitlint`` and ``jitlint.verify`` are made from their folders without running
#: their ``__init__`` (which imports the linter and LibCST), so that any interpreter with jax runs the
#: runner, whose modules need only the standard library, jax and numpy; jitlint's parent folder is not
#: put on the child's path (where jitlint is installed, other packages are too, maybe built for another Python)
BOOTSTRAP = """\
import sys, types
for name, folder in (("jitlint", {package!r}), ("jitlint.verify", {verify!r})):
    module = types.ModuleType(name)
    module.__path__ = [folder]
    sys.modules[name] = module
from jitlint.verify.runner import run_as_child
run_as_child(sys.argv[1:])
""".format(package=PACKAGE_DIR, verify=os.path.join(PACKAGE_DIR, "verify"))


def child_command(python: Optional[str] = None) -> List[str]:
    """The child's command line, before its two arguments (the job and the events file)."""
    return [python or sys.executable, "-c", BOOTSTRAP]


def child_environment(device: Optional[str], cross_device: bool) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # a child must not take most of an accelerator's memory up front (another may hold the rest)
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if device == "cpu" and not cross_device:
        env["JAX_PLATFORMS"] = "cpu"
    return env


#: run in the chosen interpreter before any child: exit 3 when jax (or numpy) cannot be found, 4 when too old
PROBE = ("import sys, importlib.util as u\n"
         "sys.exit(4 if sys.version_info < (3, 8) else 0 if u.find_spec('jax') and u.find_spec('numpy') else 3)")


def interpreter_problem(python: str, env: Optional[Dict[str, str]] = None) -> Optional[str]:
    """None when ``python`` can run the child; else why not, in one line with what to do.

    Only looks for jax (``importlib.util.find_spec``: nothing is imported), so it takes milliseconds.
    """
    own = os.path.abspath(python) == os.path.abspath(sys.executable)
    try:
        proc = subprocess.run([python, "-c", PROBE], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, env=env if env is not None else child_environment(None, False),
                              timeout=60)
    except subprocess.TimeoutExpired:
        return f"the Python interpreter {python} did not answer within 60 s"
    except OSError as exc:
        return f"cannot run the Python interpreter {python}: {exc.strerror or exc}"
    if proc.returncode == 0:
        return None
    if proc.returncode == 3:
        # jitlint has no release on a package index: `jitlint[verify]` installs only from a checkout
        install = f"{python} -m pip install jax"
        where = "" if own else " (or choose another interpreter with --python PATH)"
        return f"the verifier needs JAX, which is not installed for {python}: install it with `{install}`{where}"
    if proc.returncode == 4:
        return f"the verifier needs Python 3.8 or later; {python} is older"
    last = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
    return f"the Python interpreter {python} does not start: {last[0][:200]}"


def run_child(job: dict, timeout: float, memory_mb: int, output_tail: int = 2000,
              env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
              python: Optional[str] = None) -> ChildOutcome:
    """Run one job; the timeout restarts at each ``start`` event (one function each).

    When it returns or raises, nothing of the child's process group is left, nor its temporary folder.
    """
    outcome = ChildOutcome()
    with _ChildGuard() as guard:
        with tempfile.TemporaryDirectory(prefix="jitlint-verify-") as tmp:
            _run_in(tmp, guard, outcome, job, timeout, memory_mb, output_tail, env, cwd, python)
    return outcome


def _run_in(tmp: str, guard: _ChildGuard, outcome: ChildOutcome, job: dict, timeout: float, memory_mb: int,
            output_tail: int, env: Optional[Dict[str, str]], cwd: Optional[str], python: Optional[str]) -> None:
    job_path = os.path.join(tmp, "job.json")
    events_path = os.path.join(tmp, "events.jsonl")
    with open(job_path, "w", encoding="utf-8") as fh:
        json.dump(job, fh)
    open(events_path, "w").close()
    started = time.monotonic()
    proc = subprocess.Popen(
        child_command(python) + [job_path, events_path],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env=env if env is not None else child_environment(None, False), cwd=cwd,
        start_new_session=True,
    )
    tail = _Tail(proc.stdout, output_tail)
    offset = 0
    try:
        guard.started(proc.pid)
        step_started = time.monotonic()
        # the first step (starting Python, importing jax and the module) gets a little longer
        step_limit = timeout + 30.0
        while True:
            new, offset = _read_events(events_path, offset)
            for event in new:
                outcome.events.append(event)
                if event.get("event") in ("start", "import", "ready"):
                    step_started = time.monotonic()
                    step_limit = timeout
            if _has_exited(proc):
                break
            if time.monotonic() - step_started > step_limit:
                outcome.stopped = f"timed out after {step_limit:g} s"
                break
            if memory_mb and _group_rss_mb(proc.pid) > memory_mb:
                outcome.stopped = f"stopped: used more than {memory_mb} MiB of memory"
                break
            time.sleep(POLL_SECONDS)
    finally:
        guard.armed = False
        _stop(proc)  # always: what user code started must not outlive the run
        new, offset = _read_events(events_path, offset)
        outcome.events.extend(new)
        tail.join(5.0)
    outcome.returncode = proc.returncode
    outcome.output_tail = tail.text
    outcome.output_chars = tail.total
    outcome.seconds = time.monotonic() - started


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
