"""Run several sphinx-build invocations from one interpreter that has already imported Sphinx.

Starting Python and importing Sphinx, docutils, the theme and the extensions costs
1 to 2.5 s of CPU per sphinx-build, which is more than the real work of an incremental
build. A site build runs four of them (gettext, en, ko, zh_CN). The runner process
below imports everything once, then forks one child per build: each child starts from
the same freshly imported state, so nothing leaks between languages (Sphinx keeps its
translators in module globals), and the children still run side by side.

The runner is its own process, started from a clean interpreter, because forking a
process that already runs threads (a web server, a test browser) is unsafe.

Protocol: one JSON object per line. The parent writes {"name", "argv"} to start a
build; the runner answers {"name", "returncode", "output", "seconds"} when it ends.
"""
from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Everything a build imports anyway; importing it here is what the children share.
PRELOAD = (
    "sphinx.cmd.build", "sphinx.application", "sphinx.builders.html", "sphinx.builders.gettext",
    "sphinx.search", "sphinx.search.zh", "pydata_sphinx_theme", "sphinx_design", "sphinx_copybutton",
    "babel.messages.pofile", "kb.site.sphinx_ext",
)


class RunnerError(RuntimeError):
    pass


class Runner:
    """The parent's handle on a runner process (use as a context manager)."""

    def __init__(self, cwd: Path):
        env = dict(os.environ, PYTHONHASHSEED="0")  # stable set ordering, stable output
        self.proc = subprocess.Popen([sys.executable, "-m", "kb.site.fork"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env, cwd=cwd)
        self.done: dict[str, dict] = {}

    def start(self, name: str, argv: list[str]) -> None:
        self.proc.stdin.write(json.dumps({"name": name, "argv": argv}) + "\n")
        self.proc.stdin.flush()

    def wait(self, name: str) -> dict:
        while name not in self.done:
            line = self.proc.stdout.readline()
            if not line:
                raise RunnerError(f"the sphinx runner exited (code {self.proc.wait()}) before {name} finished")
            result = json.loads(line)
            self.done[result["name"]] = result
        return self.done.pop(name)

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        # Closing stdin tells the runner to exit once its running builds are done.
        self.proc.stdin.close()
        self.proc.stdout.read()
        self.proc.wait()


def _child(argv: list[str], out_path: str) -> None:
    fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    code = 1
    try:
        from sphinx.cmd.build import main  # what `python -m sphinx` runs

        code = main(argv)
    except BaseException:  # report anything, never fall back into the runner's loop
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> int:
    import importlib

    for module in PRELOAD:
        importlib.import_module(module)
    children: dict[int, tuple[str, str, float]] = {}
    tmp = tempfile.mkdtemp(prefix="kb-sphinx-")
    sel = selectors.DefaultSelector()
    sel.register(0, selectors.EVENT_READ)
    pending = b""  # raw reads, not sys.stdin: its buffer would hide lines from select()
    stdin_open = True
    while stdin_open or children:
        if stdin_open and sel.select(timeout=0.02):
            chunk = os.read(0, 65536)
            if not chunk:
                stdin_open = False
                sel.unregister(0)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                job = json.loads(line)
                out_path = os.path.join(tmp, f"{time.monotonic_ns()}.log")
                start = time.perf_counter()
                pid = os.fork()
                if pid == 0:
                    _child(job["argv"], out_path)
                children[pid] = (job["name"], out_path, start)
        elif not stdin_open:
            time.sleep(0.02)
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            name, out_path, start = children.pop(pid)
            with open(out_path, encoding="utf-8", errors="replace") as fh:
                output = fh.read()
            os.unlink(out_path)
            result = {"name": name, "returncode": os.waitstatus_to_exitcode(status), "output": output,
                      "seconds": time.perf_counter() - start}
            sys.stdout.write(json.dumps(result) + "\n")
            sys.stdout.flush()
    os.rmdir(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(serve())
