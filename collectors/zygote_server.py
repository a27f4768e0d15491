"""The far side of collectors/zygote.py: an interpreter that has imported torch once and
forks a child for each script it is asked to run.

Run as a script (`python zygote_server.py [MODULE ...]`) with the environment the scripts
would get; stdlib only, so that it starts in any release's venv. The modules named on the
command line are imported after torch (collectors.zygote chooses them: slow imports that
the scripts it will run import themselves). The greeting says whether they all imported.
One JSON request per line on stdin:
{"script", "stdout", "stderr", "timeout_s", "memory_mb"}; one JSON reply per line on the
protocol descriptor: {"returncode", "signal", "timed_out", "duration_s", "peak_rss_mb"}.

The child is made to look like `python <script>` run in the script's folder: a fresh
`__main__` module (so pickling a class defined in the script works), argv, sys.path[0],
the working directory, stdin from /dev/null, its own session (so a timeout kills what it
started), the memory limit, and on an uncaught exception the interpreter's own
sys.excepthook, given the traceback without this file's frame, and exit status 1.
"""
import json
import os
import resource
import signal
import sys
import time

import torch  # noqa: F401  (the reason this process exists: every child starts with it imported)


def _exit_status(exc: SystemExit) -> int:
    """What `python script.py` exits with for `raise SystemExit(code)`."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_as_main(script: str) -> int:
    import builtins
    import types

    folder = os.path.dirname(script)
    os.chdir(folder)
    sys.argv = [os.path.basename(script)]
    sys.path[0] = folder
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__builtins__ = builtins
    main.__cached__ = None
    sys.modules["__main__"] = main
    try:
        with open(script, "rb") as fh:
            code = compile(fh.read(), script, "exec")
        exec(code, main.__dict__)
        return 0
    except SystemExit as exc:
        return _exit_status(exc)
    except BaseException:
        etype, value, tb = sys.exc_info()
        # Drop this function's frame: the user's traceback starts at their script, as it does
        # when Python runs it. A SyntaxError from compile() has no frame of the script at all.
        # The interpreter prints the exception's own __traceback__, so that is what to trim.
        tb = tb.tb_next
        sys.excepthook(etype, value.with_traceback(tb), tb)
        return 1


def _child(req: dict, protocol: int) -> None:
    status = 70
    try:
        os.close(protocol)
        os.setsid()
        limit = int(req["memory_mb"]) * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
            target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        sys.stdin = open(0, "r", closefd=False)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        status = _run_as_main(req["script"])
        # Interpreter shutdown, in its order: wait for threads, then atexit handlers.
        import atexit
        import threading

        threading._shutdown()
        atexit._run_exitfuncs()
    except BaseException:  # a failure of this harness, not of the script
        import traceback

        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:
                pass
        os._exit(status)


def _serve_one(req: dict, protocol: int) -> dict:
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:
        _child(req, protocol)
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() - start > float(req["timeout_s"]):
            timed_out = True
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:  # not yet its own group: it has only just been forked
                os.kill(pid, signal.SIGKILL)
            done, status, usage = os.wait4(pid, 0)
            break
        time.sleep(0.02)
    code = os.waitstatus_to_exitcode(status)
    return {"returncode": code, "signal": signal.Signals(-code).name if code < 0 else None,
            "timed_out": timed_out, "duration_s": round(time.monotonic() - start, 3),
            "peak_rss_mb": round(usage.ru_maxrss / 1024.0, 1)}


def main() -> None:
    # Replies go on a private copy of stdout; the zygote's own fd 1 then points at its
    # stderr, so nothing torch prints can corrupt the protocol.
    protocol = os.dup(1)
    os.dup2(2, 1)
    reply = os.fdopen(protocol, "w", buffering=1, closefd=False)
    requests = sys.stdin.buffer
    import importlib

    for name in sys.argv[1:]:
        try:
            importlib.import_module(name)
        except BaseException as exc:  # noqa: BLE001  (any failure: the script must meet it itself)
            # A half-done import leaves modules behind that the script's own import would not
            # find in the same state, so this zygote must not serve: say so and stop.
            reply.write(json.dumps({"ready": False, "preload_failed": name,
                                    "error": f"{type(exc).__name__}: {exc}"[:500]}) + "\n")
            return
    reply.write(json.dumps({"ready": True, "pid": os.getpid(), "preloaded": sys.argv[1:]}) + "\n")
    for line in requests:
        if not line.strip():
            continue
        reply.write(json.dumps(_serve_one(json.loads(line), protocol)) + "\n")


if __name__ == "__main__":
    main()
