"""Run scripts from a torch-loaded interpreter that forks one child per script (a zygote).

`exportkb check` runs every entry's scripts, some 330 of them, and `python script.py`
spends seconds importing torch before the script does anything. A zygote
(collectors/zygote_server.py) imports torch once; each script then runs in a fresh fork
of it, isolated and limited as collectors.isolate.run_script isolates a process: its own
session, a memory limit, a timeout, its exit status and peak memory from wait4, and the
same traceback text (the server hands the interpreter's own excepthook the traceback
without its own frame).

collectors.pool forks the calling process, which suits the corpus: one single-threaded
driver that has imported torch. `exportkb check` is a threaded driver that only needs
kb.db's matcher, and it runs scripts, not functions: their stdout, stderr and exit
status are the result. So the torch-loaded parent is a server process of its own.

One thing a fork cannot give is a torch that has not been imported yet. A script that
sets an environment variable expects torch to read it at import, so such a script runs
in a fresh interpreter (`needs_fresh_interpreter`). If a zygote dies, the script it was
running is run again in a fresh interpreter and a new zygote takes its place.
"""
from __future__ import annotations

import json
import os
import queue
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .isolate import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S, ScriptRun, interpreter_env, run_script, script_run

SERVER = Path(__file__).with_name("zygote_server.py")
# os.environ or putenv: the script may set what torch reads at import (reading it is rare enough
# that a fresh interpreter for it costs little).
_TOUCHES_ENVIRONMENT = re.compile(r"\bos\.environ\b|\bputenv\s*\(")


class ZygoteLost(RuntimeError):
    """The zygote died or stopped answering; its child's result is unknown."""


def needs_fresh_interpreter(script: Path) -> bool:
    """True when `script` must not start from an interpreter that already imported torch."""
    try:
        return _TOUCHES_ENVIRONMENT.search(Path(script).read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return True  # let the plain runner report the unreadable script as Python would


class Zygote:
    """One server process; `run` is not thread-safe (a ZygotePool hands each to one thread)."""

    def __init__(self, python: str | Path = sys.executable, *, start_timeout_s: float = 300.0):
        self.python = str(python)
        self._dir = tempfile.TemporaryDirectory(prefix="exportkb-zygote-")
        self._log = Path(self._dir.name) / "zygote.log"
        with self._log.open("wb") as log:
            self.proc = subprocess.Popen(
                [self.python, str(SERVER)], cwd=self._dir.name, env=interpreter_env(self.python),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=True)
        self._pending = b""
        try:
            hello = self._reply(start_timeout_s)
        except ZygoteLost:
            self.close()
            raise
        if not hello.get("ready"):
            self.close()
            raise ZygoteLost(f"unexpected greeting from the zygote: {hello!r}")

    def _reply(self, timeout_s: float) -> dict:
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout_s
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise ZygoteLost(f"no answer from the zygote within {timeout_s:.0f} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                tail = self._log.read_text(errors="replace")[-2000:] if self._log.exists() else ""
                raise ZygoteLost(f"the zygote exited (status {self.proc.poll()}): {tail}")
            self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        return json.loads(line)

    def run(self, script: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S,
            memory_mb: int = DEFAULT_MEMORY_MB) -> ScriptRun:
        script = Path(script).resolve()
        out, err = Path(self._dir.name) / "stdout", Path(self._dir.name) / "stderr"
        request = {"script": str(script), "stdout": str(out), "stderr": str(err),
                   "timeout_s": timeout_s, "memory_mb": memory_mb}
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError) as exc:
            raise ZygoteLost(f"the zygote is gone: {exc}") from exc
        # The server enforces the timeout; the margin only covers a server that hangs.
        reply = self._reply(timeout_s + 60.0)
        stdout = out.read_bytes().decode("utf-8", "replace") if out.exists() else ""
        stderr = err.read_bytes().decode("utf-8", "replace") if err.exists() else ""
        return script_run(reply["timed_out"], reply["returncode"], stdout, stderr, reply["duration_s"],
                          reply["peak_rss_mb"])

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self._dir.cleanup()


class ZygotePool:
    """`run(script)` for up to `size` threads at once, each on a zygote of its own.

    Zygotes start on first use. A script that needs a fresh interpreter, or whose zygote
    died under it, runs through collectors.isolate.run_script instead.
    """

    def __init__(self, size: int, python: str | Path = sys.executable):
        self.python = str(python)
        self._idle: queue.Queue = queue.Queue()
        for _ in range(max(1, size)):
            self._idle.put(None)  # a slot; the zygote itself starts when a thread takes it
        self._all: list[Zygote] = []
        self.fresh_runs = 0  # scripts run in a fresh interpreter, for the record

    def run(self, script: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S,
            memory_mb: int = DEFAULT_MEMORY_MB) -> ScriptRun:
        if needs_fresh_interpreter(script):
            self.fresh_runs += 1
            return run_script(script, timeout_s=timeout_s, memory_mb=memory_mb, python=self.python)
        zygote = self._idle.get()
        try:
            if zygote is None:
                zygote = Zygote(self.python)
                self._all.append(zygote)
            return zygote.run(script, timeout_s=timeout_s, memory_mb=memory_mb)
        except ZygoteLost:
            if zygote is not None:
                zygote.close()
                self._all.remove(zygote)
            zygote = None
            self.fresh_runs += 1
            return run_script(script, timeout_s=timeout_s, memory_mb=memory_mb, python=self.python)
        finally:
            self._idle.put(zygote)

    def close(self) -> None:
        for zygote in self._all:
            zygote.close()
        self._all.clear()

    def __enter__(self) -> "ZygotePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
