"""Isolated attempts in processes forked from a warm parent.

Starting a fresh interpreter costs ~3 s (import torch and friends); forking a parent
that has already imported them and run one export costs milliseconds, and the child
starts warm. Each unit of work runs in its own forked child so that a hang, a segfault
or a runaway allocation is an outcome, not the end of the collection:

* timeout: the child's process group is killed after `timeout_s`;
* oom: the parent samples the child's resident memory and kills it past `memory_mb`;
* crash: the child died of a signal (SIGSEGV, SIGABRT, ...).

The child streams results back as JSON lines on a pipe, so work finished before a
child dies is never lost. Its stdout/stderr go to a file the result can quote.
"""
from __future__ import annotations

import ctypes
import faulthandler
import json
import os
import select
import signal
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterator

_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


@dataclass
class ChildOutcome:
    outcome: str  # ok | timeout | crash | oom | error (child raised before reporting)
    messages: list[dict] = field(default_factory=list)
    signal: str | None = None
    returncode: int | None = None
    duration_s: float = 0.0
    peak_rss_mb: float = 0.0
    output: str = ""  # the child's stdout+stderr, tail


def warm_up(exporters: tuple[str, ...] = (), sources: tuple[str, ...] = ()) -> None:
    # The warm-up's own deprecation warnings are torch's, about a model nobody wrote:
    # they would only be noise on the command's stderr.
    # Imports print their own notices through C (torchao's optional kernels, executorch's
    # registrations): kept aside, and shown only if the warm-up itself fails.
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    with tempfile.TemporaryFile() as log, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fd in saved:
            os.dup2(log.fileno(), fd)
        try:
            _warm_up(exporters, sources)
        except BaseException:
            _restore(saved)
            log.seek(0)
            sys.stderr.write(log.read().decode("utf-8", "replace")[-8000:])
            raise
        finally:
            _restore(saved)


def _restore(saved: dict[int, int]) -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, copy in list(saved.items()):
        os.dup2(copy, fd)
        os.close(copy)
        del saved[fd]


def _warm_up(exporters: tuple[str, ...], sources: tuple[str, ...]) -> None:
    """Import the heavy libraries this run needs and take each exporter's first-use costs
    once, before any fork.

    Whatever a library initialises lazily (decomposition tables, the ONNX op registry,
    TorchScript's compiler) is then already done in every forked child. Without this,
    every attempt paid ~2 s for `run_decompositions()` alone. Libraries the run's sources
    and exporters never touch are left alone: importing them would only slow the start.
    """
    import io

    import torch

    torch.set_num_threads(1)  # one thread per attempt; also keeps OpenMP fork-safe
    wanted = []
    if {"transformers", "timm", "torchvision"} & set(sources):
        try:  # torchvision first, through the CPU-torch workaround: timm and transformers import it
            from .corpus.torchvision_compat import import_torchvision

            import_torchvision()
        except Exception:  # the torchvision models will record their own build failures
            pass
        wanted += [name for name in ("transformers", "timm") if name in sources]
        if "transformers" in sources:  # older companions: the builders' `dtype=` under its old name
            from .corpus.transformers_compat import accept_dtype_keyword

            accept_dtype_keyword()
    if {"onnx", "onnx-legacy"} & set(exporters):
        wanted += ["onnx", "onnxscript", "onnxruntime"]
    if "executorch" in exporters:
        wanted += ["executorch.exir", "executorch.runtime"]
    for name in wanted:
        try:
            __import__(name)
        except Exception:  # an optional library missing only affects its exporter
            pass

    class Tiny(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.relu(x) * 2

    model, args = Tiny(), (torch.randn(2, 3),)
    ep = torch.export.export(model, args)
    buf = io.BytesIO()
    torch.export.save(ep.run_decompositions(), buf)
    buf.seek(0)
    torch.export.load(buf).module()(*args)
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(model), buf)
    torch.jit.trace(model, args)
    if "onnx" in exporters:
        try:
            torch.onnx.export(model, args, dynamo=True, verbose=False)
        except Exception:  # the onnx attempts will report it themselves
            pass


def die_with_parent() -> None:
    """A child whose parent is killed (SIGKILL leaves no time to clean up) dies too,
    instead of running on with nobody reading its results."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * _PAGE_KB
    except (OSError, IndexError, ValueError):
        return 0


class Child:
    """One forked child running `work(emit)`, watched without blocking."""

    def __init__(self, work: Callable[[Callable[[dict], None]], None], *, timeout_s: float, memory_mb: float,
                 budget_after: Callable[[list[dict]], float] | None = None):
        self.timeout_s, self.memory_mb, self.budget_after = timeout_s, memory_mb, budget_after
        self.messages: list[dict] = []
        self._buffer = b""
        self._log = tempfile.TemporaryFile()
        self._peak_kb = 0
        self._killed_for: str | None = None
        self.result: ChildOutcome | None = None
        self.read_fd, write_fd = os.pipe()
        # A fork starts with the parent's resident pages already counted in its RSS; the
        # limit is for what the child adds. (Measured against the child's whole RSS, a
        # parent of 1.6 GB made every child look over a 1.5 GB limit the moment it built.)
        self._base_kb = _rss_kb(os.getpid())
        self.start = time.monotonic()
        self.deadline = self.start + timeout_s
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.read_fd)
            self._child(work, write_fd)  # never returns
        os.close(write_fd)

    def _child(self, work, write_fd) -> None:
        code = 1
        try:
            os.setpgid(0, 0)  # own process group: a timeout also kills compilers it started
            die_with_parent()
            os.dup2(self._log.fileno(), 1)
            os.dup2(self._log.fileno(), 2)
            # A crash's Python stack goes to the child's own log, which the record quotes.
            faulthandler.enable(file=sys.stderr, all_threads=False)
            signal.signal(signal.SIGINT, signal.SIG_DFL)

            def emit(message: dict) -> None:
                view = memoryview((json.dumps(message, default=str) + "\n").encode())
                while view:
                    view = view[os.write(write_fd, view):]

            try:
                work(emit)
                code = 0
            except BaseException as exc:
                emit({"type": "error", "exc_type": type(exc).__name__, "message": str(exc)[:4000]})
        finally:
            os._exit(code)  # never run the parent's cleanup (atexit, finalizers) in the child

    def _take(self, chunk: bytes) -> None:
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            if line.strip():
                self.messages.append(json.loads(line))
                if self.budget_after:
                    self.deadline = max(self.deadline, time.monotonic() + self.budget_after(self.messages))

    def on_readable(self) -> None:
        chunk = os.read(self.read_fd, 1 << 16)
        if chunk:
            self._take(chunk)

    def check(self) -> bool:
        """Enforce limits; return True once the child has exited (then `result` is set)."""
        done, status, usage = os.wait4(self.pid, os.WNOHANG)
        if not done:
            rss = _rss_kb(self.pid)
            self._peak_kb = max(self._peak_kb, rss)
            if rss - self._base_kb > self.memory_mb * 1024:
                self._killed_for = "oom"
            elif time.monotonic() > self.deadline:
                self._killed_for = "timeout"
            if not self._killed_for:
                return False
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _, status, usage = os.wait4(self.pid, 0)
        self._finish(status, usage)
        return True

    def _finish(self, status, usage) -> None:
        while True:  # drain what the child wrote before it exited
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                break
            self._buffer += chunk
        for line in self._buffer.split(b"\n"):
            if line.strip():
                try:
                    self.messages.append(json.loads(line))
                except json.JSONDecodeError:
                    pass  # a line cut by a kill: that work is redone, never half-recorded
        os.close(self.read_fd)
        self._log.seek(0, os.SEEK_END)
        self._log.seek(max(0, self._log.tell() - 20000))
        output = self._log.read().decode("utf-8", "replace")
        self._log.close()
        code = os.waitstatus_to_exitcode(status)
        peak = max(self._peak_kb, usage.ru_maxrss if usage else 0)
        result = ChildOutcome("ok", self.messages, returncode=code, duration_s=round(time.monotonic() - self.start, 3),
                              peak_rss_mb=round(peak / 1024, 1), output=output)
        if self._killed_for:
            result.outcome = self._killed_for
        elif code < 0:
            result.outcome, result.signal = "crash", signal.Signals(-code).name
        elif code != 0:
            result.outcome = "error"
        self.result = result


def run_forked(work, **limits) -> ChildOutcome:
    """Run `work(emit)` in one forked child and wait for it."""
    return next(iter(imap_forked([None], lambda _task, emit: work(emit), jobs=1, **limits)))[1]


def imap_forked(tasks: list, work: Callable, *, jobs: int, on_message: Callable | None = None,
                **limits) -> Iterator[tuple[object, ChildOutcome]]:
    """Run `work(task, emit)` for each task in forked children, `jobs` at a time.

    Single-threaded on purpose: every fork happens from the main thread while no other
    thread holds a lock the child could inherit. Yields (task, outcome) as children end;
    `on_message(task, message)` sees each streamed message as it arrives.
    """
    queue = list(tasks)
    running: dict[int, tuple[object, Child]] = {}
    while queue or running:
        while queue and len(running) < jobs:
            task = queue.pop(0)
            child = Child(lambda emit, t=task: work(t, emit), **limits)
            running[child.read_fd] = (task, child)
        ready, _, _ = select.select(list(running), [], [], 0.05)
        for fd in ready:
            task, child = running[fd]
            before = len(child.messages)
            child.on_readable()
            if on_message:
                for message in child.messages[before:]:
                    on_message(task, message)
        for fd in list(running):
            task, child = running[fd]
            before = len(child.messages)
            if child.check():
                del running[fd]
                if on_message:
                    for message in child.messages[before:]:
                        on_message(task, message)
                yield task, child.result
