"""Run one Python script in its own process under a time and memory limit.

A hang, a segfault or an allocation past the limit becomes an outcome, never a crash of
the caller. Peak memory comes from the kernel's accounting of that one child (wait4).
"""
from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TIMEOUT_S = 300.0
DEFAULT_MEMORY_MB = 16_000
_OOM_MARKERS = ("MemoryError", "can't allocate memory", "std::bad_alloc", "Cannot allocate memory")


@dataclass
class ScriptRun:
    outcome: str  # ok | fail | timeout | crash | oom
    returncode: int | None
    signal: str | None
    stdout: str
    stderr: str
    duration_s: float
    peak_rss_mb: float


def _limit_memory(limit_mb: int):
    def apply() -> None:
        limit = limit_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def _reader(stream, sink: list[bytes]) -> None:
    for chunk in iter(lambda: stream.read(65536), b""):
        sink.append(chunk)
    stream.close()


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    # One thread per attempt: attempts run side by side, and results stay reproducible.
    env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0",
                "PYTHONUNBUFFERED": "1", "NO_COLOR": "1", "TERM": "dumb"})
    for var in ("TORCH_LOGS", "TORCHDYNAMO_VERBOSE", "PYTHONWARNINGS"):
        env.pop(var, None)
    return env


def interpreter_env(python: str | Path) -> dict[str, str]:
    """child_env() for running `python`, as if its venv were activated: the venv's own
    console scripts come first on PATH. Without it a sweep venv's executorch cannot find
    the `flatc` it installed, and every .pte it writes fails with FileNotFoundError, an
    error of the harness that no user who activates a venv ever sees."""
    env = child_env()
    env["PATH"] = os.pathsep.join(p for p in (str(Path(python).parent), env.get("PATH", "")) if p)
    return env


def run_script(script: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S, memory_mb: int = DEFAULT_MEMORY_MB,
               python: str = sys.executable, import_first: tuple[Path, ...] = ()) -> ScriptRun:
    """Run `script` in its own process; `import_first` are folders searched before the
    venv's packages (an entry script's companions, collectors/companions.py)."""
    script = Path(script).resolve()
    env = interpreter_env(python)
    if import_first:
        env["PYTHONPATH"] = os.pathsep.join([*map(str, import_first), *filter(None, [env.get("PYTHONPATH")])])
    start = time.monotonic()
    proc = subprocess.Popen(
        [python, script.name], cwd=script.parent, env=env,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        preexec_fn=_limit_memory(memory_mb), start_new_session=True,
    )
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [threading.Thread(target=_reader, args=(proc.stdout, out), daemon=True),
               threading.Thread(target=_reader, args=(proc.stderr, err), daemon=True)]
    for t in readers:
        t.start()
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - start > timeout_s:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here; keep Popen from waiting again
    for t in readers:
        t.join(timeout=5)
    duration = time.monotonic() - start
    stdout = b"".join(out).decode("utf-8", "replace")
    stderr = b"".join(err).decode("utf-8", "replace")
    peak_mb = usage.ru_maxrss / 1024.0  # Linux reports KiB
    return script_run(timed_out, proc.returncode, stdout, stderr, duration, peak_mb)


def script_run(timed_out: bool, returncode: int, stdout: str, stderr: str, duration_s: float,
               peak_rss_mb: float) -> ScriptRun:
    """The outcome of a finished script, however it was started (here or by collectors.zygote)."""
    sig = None
    if timed_out:
        outcome = "timeout"
    elif returncode < 0:
        sig = signal.Signals(-returncode).name
        outcome = "oom" if any(m in stderr for m in _OOM_MARKERS) else "crash"
    elif returncode == 0:
        outcome = "ok"
    else:
        outcome = "oom" if any(m in stderr[-4000:] for m in _OOM_MARKERS) else "fail"
    return ScriptRun(outcome, None if timed_out else returncode, sig, stdout, stderr, round(duration_s, 3),
                     round(peak_rss_mb, 1))
