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

Importing torch is not the only slow start: `executorch.exir`, timm, torchvision, onnxscript
and Dynamo each add seconds. A zygote also imports those of them that the script imports
itself (`preloads_for`), so the fork finds them done; the pool keeps zygotes per set of
preloads, and check sorts its scripts by that set so a zygote serves a run of them. A script
that changes how imports resolve (sys.meta_path, sys.modules, site) only gets torch: it
may be hiding one of these modules on purpose.

One thing a fork cannot give is a torch that has not been imported yet. A script that
sets an environment variable expects torch to read it at import, so such a script runs
in a fresh interpreter (`needs_fresh_interpreter`). If a zygote dies, the script it was
running is run again in a fresh interpreter and a new zygote takes its place.
"""
from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from kb.script_imports import imported_modules, imports_package

from .isolate import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_S, ScriptRun, interpreter_env, run_script, script_run

SERVER = Path(__file__).with_name("zygote_server.py")
# TorchScript quotes the Python stack it traced from, to the outermost frame: in a child of
# the zygote that stack goes on below the script into the server's own frames, lines that
# `python script.py` would not print. They are dropped from what the script wrote.
_SERVER_FRAME = re.compile(rf"^{re.escape(str(SERVER))}\(\d+\): \S+\n", re.M)
# os.environ or putenv: the script may set what torch reads at import (reading it is rare enough
# that a fresh interpreter for it costs little).
_TOUCHES_ENVIRONMENT = re.compile(r"\bos\.environ\b|\bputenv\s*\(")


# Imports that cost seconds each (measured with `python -c "import torch; import X"` against
# torch alone on the pinned release), listed by the module a script names.
SLOW_IMPORTS = ("executorch.exir", "timm", "torchvision", "transformers", "onnxscript", "onnx",
                "onnxruntime", "torch._inductor")
_PRELOAD_ORDER = ("torch._dynamo", *SLOW_IMPORTS)
# Dynamo is imported by torch on first use, not by the script: these calls are that first use.
_USES_DYNAMO = re.compile(r"\btorch\.(?:export\.export|compile|_dynamo|cond|onnx\.export)\b"
                          r"|\b(?:aoti_compile_and_package|to_edge(?:_transform_and_lower)?)\b")
# The dynamo-based ONNX exporter (the default since 2.9) imports onnxscript on first use.
_USES_ONNXSCRIPT = re.compile(r"\btorch\.onnx\.export\b")
_USES_INDUCTOR = re.compile(r"\b(?:aoti_compile_and_package|aoti_load_package|torch\.compile)\b")
# The script decides how its own imports resolve: preloading could defeat what it hides.
_TOUCHES_IMPORTS = re.compile(r"\bsys\.(?:meta_path|modules|path_hooks)\b|\bimport site\b|\bsite\.")


def preloads_for(script: Path) -> tuple[str, ...]:
    """The slow modules a zygote may import before forking `script`: those the script imports
    itself, plus Dynamo and Inductor when the script calls what imports them. Empty when the
    script touches import machinery or does not parse.

    An import inside a function counts too (entries import ExecuTorch in `main`); the
    catalogue's full check against the recorded runs is what shows that importing it a
    little earlier changes no script's outcome or error."""
    try:
        source = Path(script).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    named = imported_modules(source)
    if named is None or _TOUCHES_IMPORTS.search(source):
        return ()
    chosen = [m for m in SLOW_IMPORTS if imports_package(named, m)]
    if _USES_ONNXSCRIPT.search(source) and "dynamo=False" not in source and "onnxscript" not in chosen:
        chosen.append("onnxscript")
    if _USES_INDUCTOR.search(source) and "torch._inductor" not in chosen:
        chosen.append("torch._inductor")
    if _USES_DYNAMO.search(source) or "torch._inductor" in chosen:
        chosen.append("torch._dynamo")
    # One order for one set: the pool matches zygotes by this tuple, and check sorts by it.
    return tuple(sorted(chosen, key=_PRELOAD_ORDER.index))


class ZygoteLost(RuntimeError):
    """The zygote died or stopped answering; its child's result is unknown."""


class PreloadFailed(ZygoteLost):
    """A module the zygote was to preload does not import here (say, on an old release)."""


def needs_fresh_interpreter(script: Path) -> bool:
    """True when `script` must not start from an interpreter that already imported torch."""
    try:
        return _TOUCHES_ENVIRONMENT.search(Path(script).read_text(encoding="utf-8", errors="replace")) is not None
    except OSError:
        return True  # let the plain runner report the unreadable script as Python would


class Zygote:
    """One server process; `run` is not thread-safe (a ZygotePool hands each to one thread)."""

    def __init__(self, python: str | Path = sys.executable, *, preload: tuple[str, ...] = (),
                 start_timeout_s: float = 300.0):
        self.python = str(python)
        self.preload = tuple(preload)
        self._dir = tempfile.TemporaryDirectory(prefix="exportkb-zygote-")
        self._log = Path(self._dir.name) / "zygote.log"
        with self._log.open("wb") as log:
            self.proc = subprocess.Popen(
                [self.python, str(SERVER), *self.preload], cwd=self._dir.name, env=interpreter_env(self.python),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, start_new_session=True)
        self._pending = b""
        try:
            hello = self._reply(start_timeout_s)
        except ZygoteLost:
            self.close()
            raise
        if not hello.get("ready"):
            self.close()
            if "preload_failed" in hello:
                raise PreloadFailed(f"{hello['preload_failed']}: {hello.get('error', '')}")
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
        stderr = _SERVER_FRAME.sub("", stderr)
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

    A pool holds at most `size` zygotes; each runs the scripts whose preloads it has, and an
    idle zygote of another set of preloads is replaced when none fits. Zygotes start on first
    use. A script that needs a fresh interpreter, or whose zygote died under it, runs through
    collectors.isolate.run_script instead. Preloads that fail to import fall back to torch
    alone, for that set and every later script that asks for it.
    """

    def __init__(self, size: int, python: str | Path = sys.executable):
        self.python = str(python)
        self.size = max(1, size)
        self._idle: list[Zygote | None] = [None] * self.size  # None: a slot with no zygote yet
        self._free = threading.Condition()
        self._all: list[Zygote] = []
        self._unloadable: set[tuple[str, ...]] = set()
        self.fresh_runs = 0  # scripts run in a fresh interpreter, for the record
        self.started: list[tuple[str, ...]] = []  # the preloads of each zygote started, in order

    def _take(self, preload: tuple[str, ...]) -> Zygote | None:
        with self._free:
            while not self._idle:
                self._free.wait()
            for i, zygote in enumerate(self._idle):
                if zygote is not None and zygote.preload == preload:
                    return self._idle.pop(i)
            # No idle zygote fits: an empty slot if there is one, else the one idle the longest.
            slot = self._idle.index(None) if None in self._idle else 0
            return self._idle.pop(slot)

    def _give_back(self, zygote: Zygote | None) -> None:
        with self._free:
            self._idle.append(zygote)
            self._free.notify()

    def _start(self, preload: tuple[str, ...]) -> Zygote:
        try:
            zygote = Zygote(self.python, preload=preload)
        except PreloadFailed:
            self._unloadable.add(preload)
            preload = ()
            zygote = Zygote(self.python)
        self.started.append(preload)
        self._all.append(zygote)
        return zygote

    def run(self, script: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S,
            memory_mb: int = DEFAULT_MEMORY_MB, import_first: tuple[Path, ...] = ()) -> ScriptRun:
        # A script with companions needs them on its path from the start: a zygote's
        # interpreter was set up without them (and may have imported the venv's copies).
        if import_first or needs_fresh_interpreter(script):
            self.fresh_runs += 1
            return run_script(script, timeout_s=timeout_s, memory_mb=memory_mb, python=self.python,
                              import_first=import_first)
        wanted = preloads_for(script)
        if wanted in self._unloadable:
            wanted = ()
        zygote = self._take(wanted)
        try:
            if zygote is None or zygote.preload != wanted:
                if zygote is not None:
                    zygote.close()
                    self._all.remove(zygote)
                zygote = None  # if the start fails, the slot goes back empty
                zygote = self._start(wanted)
            return zygote.run(script, timeout_s=timeout_s, memory_mb=memory_mb)
        except ZygoteLost:
            if zygote is not None:
                zygote.close()
                self._all.remove(zygote)
            zygote = None
            self.fresh_runs += 1
            return run_script(script, timeout_s=timeout_s, memory_mb=memory_mb, python=self.python)
        finally:
            self._give_back(zygote)

    def close(self) -> None:
        for zygote in self._all:
            zygote.close()
        self._all.clear()

    def __enter__(self) -> "ZygotePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
