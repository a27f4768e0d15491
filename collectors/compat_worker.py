"""Write export artifacts on one torch release, load and run them on another.

This file runs inside a sweep venv (any torch from 2.1 on, with its companions), by path:

    python compat_worker.py write CASES.json OUT_DIR
    python compat_worker.py load  ARTIFACTS.json
    python compat_worker.py numpy CASE_DIR...          (any venv with torch and numpy)
    python compat_worker.py run-onnx ARTIFACTS.json    (a venv with onnxruntime and numpy, no torch)

so it imports only the standard library and what that venv has (torch, onnx,
onnxruntime): never kb/ or the rest of collectors/, which need the project's own venv.
`numpy` saves a case's inputs and eager outputs as .npz as well, so that `run-onnx` can
run ONNX files on an onnxruntime release installed on its own, as production does it.
Each case (`write`) and each artifact (`load`) runs in a forked child of this process,
which has imported torch and nothing of the model: a child that hangs, crashes or loads
a broken artifact costs only its own line. Every result is one JSON line on stdout; the
driver (collectors.compat) is the only writer of observations.

`write` builds the case from its script (`model`, `example_args`, optional
`example_kwargs`), runs it eagerly, and saves the inputs and the eager outputs next to
each artifact, so a release that loads the artifact compares with what eager gave on
the release that wrote it.
"""
from __future__ import annotations

import importlib.util
import inspect
import json
import os
import re
import select
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

try:  # imported as collectors.compat_worker (tests), or run by path inside a release's venv
    from .numerics import RTOL, tolerance
except ImportError:
    from numerics import RTOL, tolerance  # this file's own folder is first on sys.path

EXPORTERS = ("export", "jit-script", "jit-trace", "onnx-legacy", "onnx", "aoti", "executorch")
ARTIFACT = {"export": "model.pt2", "jit-script": "model.pt", "jit-trace": "model.pt", "onnx-legacy": "model.onnx",
            "onnx": "model.onnx", "aoti": "package.pt2", "executorch": "model.pte"}


STDERR_KEPT = 8000  # the end of what a failing child printed, kept with its result


class Unavailable(RuntimeError):
    """This release has no API for the step (aoti_compile_and_package before 2.6, say)."""


# -- running in a forked child ------------------------------------------------------

def forked(fn, timeout_s: float) -> dict:
    """Run fn() -> dict in a forked child; a hang, crash or exception becomes the result."""
    read_fd, write_fd = os.pipe()
    # What the child prints (a library's warnings and log lines) is kept: an error that
    # says "check the warnings above" is only explained by them, as on a user's terminal.
    err_fd, err_path = tempfile.mkstemp(prefix="compat-stderr-")
    start = time.monotonic()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_fd)
        os.setpgid(0, 0)
        os.dup2(err_fd, 2)
        os.dup2(2, 1)  # stdout carries the parent's JSON lines: whatever a library prints goes to stderr
        sys.stdout = sys.stderr = open(2, "w", buffering=1, closefd=False)  # Python's prints and logs too
        try:
            result = fn()
        except BaseException as exc:  # every failure is data
            result = {"outcome": "fail", "stage": getattr(exc, "stage", "run"), **describe(exc)}
        sys.stderr.flush()
        data = json.dumps(result, default=str).encode()
        view = memoryview(data)
        while view:
            view = view[os.write(write_fd, view):]
        os._exit(0)
    os.close(write_fd)
    chunks, timed_out = [], False
    while True:
        ready, _, _ = select.select([read_fd], [], [], 0.2)
        if ready:
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        elif time.monotonic() - start > timeout_s:
            timed_out = True
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            break
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    os.close(err_fd)
    with open(err_path, "rb") as fh:
        fh.seek(max(0, os.path.getsize(err_path) - STDERR_KEPT))
        printed = fh.read().decode("utf-8", "replace")
    os.unlink(err_path)
    duration = round(time.monotonic() - start, 3)
    if timed_out:
        result = {"outcome": "timeout", "stage": "run", "message": f"did not finish in {timeout_s:.0f} s"}
    elif (code := os.waitstatus_to_exitcode(status)) < 0 or not chunks:
        name = signal.Signals(-code).name if code < 0 else f"exit {code}"
        result = {"outcome": "crash", "stage": "run", "message": f"the process died ({name})"}
    else:
        result = json.loads(b"".join(chunks))
    result.setdefault("duration_s", duration)
    if result.get("outcome") != "ok" and printed.strip():
        result["stderr"] = printed
    return result


def describe(exc: BaseException) -> dict:
    err = exc.__cause__ if isinstance(exc, StageError) and exc.__cause__ else exc
    return {"exc_type": f"{type(err).__module__}.{type(err).__qualname__}".removeprefix("builtins."),
            "message": str(err)[:4000], "traceback": "".join(traceback.format_exception(err))[-20000:]}


class StageError(RuntimeError):
    def __init__(self, stage: str):
        super().__init__(stage)
        self.stage = stage


def stage(name: str, fn):
    try:
        return fn()
    except Unavailable:
        raise  # not a failure of this release's exporter: the caller records it as unavailable
    except Exception as exc:
        raise StageError(name) from exc


# -- cases, inputs and outputs -------------------------------------------------------

def load_case(path: str):
    spec = importlib.util.spec_from_file_location("compat_case", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["compat_case"] = module
    sys.path.insert(0, str(Path(path).parent))
    spec.loader.exec_module(module)
    model = module.model
    if hasattr(model, "eval"):
        model.eval()
    return model, tuple(module.example_args), dict(getattr(module, "example_kwargs", None) or {})


def leaves(value) -> list:
    """The tensors of an output, in order, looking into tuples, lists, dicts and ModelOutputs."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (bool, int, float)):
        return [torch.tensor(value)]
    if hasattr(value, "to_tuple"):
        return leaves(value.to_tuple())
    if isinstance(value, dict):
        return [t for v in value.values() for t in leaves(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in leaves(v)]
    return []


def tensors_of(value) -> list:
    """The tensor inputs in the order the exporters flatten them (numbers are not inputs)."""
    import torch

    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors_of(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors_of(v)]
    return []


def compare(got: list, want: list) -> None:
    """The artifact's outputs against eager's: torch tensors, or numpy arrays where the
    process has no torch (run-onnx); the same tolerance rule either way."""
    if len(got) != len(want):
        raise AssertionError(f"the artifact returned {len(got)} tensors, eager returned {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if hasattr(w, "is_floating_point"):
            import torch

            g, close = torch.as_tensor(g).to(w.dtype), torch.testing.assert_close
        else:
            import numpy as np

            g, close = np.asarray(g).astype(w.dtype), np.testing.assert_allclose
        if tuple(g.shape) != tuple(w.shape):
            raise AssertionError(f"output {i} has shape {tuple(g.shape)}, eager has {tuple(w.shape)}")
        close(g, w, rtol=RTOL, atol=tolerance(w), equal_nan=True)


def _torch_load(path: Path):
    import torch

    return torch.load(path, weights_only=True)


# -- writing -------------------------------------------------------------------------

def legacy_input_names(model, args: tuple, kwargs: dict) -> list[str]:
    """input_<i> for each tensor, listed in the order of the legacy exporter's graph inputs.

    `input_names` name the graph's inputs positionally, and the legacy exporter lays out
    keyword inputs in forward's signature order, not in the order the dict gives them
    (LayoutLM's case passes `attention_mask` before `bbox`; forward takes `bbox` first).
    Each name keeps the index of its tensor in tensors_of's flattening order, which is
    the order the loader's feeds come in, so every input gets its own tensor back."""
    index = len(tensors_of(args))
    names = [f"input_{i}" for i in range(index)]
    spans = {}
    for key, value in kwargs.items():
        count = len(tensors_of(value))
        spans[key] = range(index, index + count)
        index += count
    order = list(inspect.signature(model.forward).parameters)
    for key in sorted(kwargs, key=lambda k: order.index(k) if k in order else len(order)):
        names += [f"input_{i}" for i in spans[key]]
    return names


def _onnx_export(model, args, kwargs, path: Path, dynamo: bool) -> None:
    import torch

    params = inspect.signature(torch.onnx.export).parameters
    if not dynamo:
        # Every tensor input named input_<i>, i its place in flattening order: the exporter
        # drops inputs the trace never reads, and the loader then still feeds each one by name.
        extra = {"dynamo": False} if "dynamo" in params else {}
        extra["input_names"] = legacy_input_names(model, args, kwargs)
        torch.onnx.export(model, args, str(path), kwargs=kwargs or None, **extra) if "kwargs" in params and kwargs \
            else torch.onnx.export(model, args + ((kwargs,) if kwargs else ()), str(path), **extra)
        return
    if "dynamo" in params and "kwargs" in params:  # torch 2.5 on: export returns the ONNX program
        program = torch.onnx.export(model, args, kwargs=kwargs or None, dynamo=True)
    elif hasattr(torch.onnx, "dynamo_export"):  # torch 2.1-2.4 (2.4's export takes dynamo= but not kwargs=)
        program = torch.onnx.dynamo_export(model, *args, **kwargs)
    else:
        raise Unavailable("this torch has no dynamo-based ONNX exporter")
    program.save(str(path))


def write_one(exporter: str, model, args, kwargs, folder: Path) -> None:
    import torch

    path = folder / ARTIFACT[exporter]
    if exporter == "export":
        ep = stage("capture", lambda: torch.export.export(model, args, kwargs or None))
        stage("save", lambda: torch.export.save(ep, str(path)))
    elif exporter == "jit-script":
        scripted = stage("capture", lambda: torch.jit.script(model))
        stage("save", lambda: torch.jit.save(scripted, str(path)))
    elif exporter == "jit-trace":
        # strict=False, as the corpus traces (collectors/exporters.py): a transformers model
        # returns a dict-like ModelOutput, which a strict trace refuses.
        if kwargs:
            traced = stage("capture", lambda: torch.jit.trace(model, example_kwarg_inputs=kwargs, strict=False,
                                                              check_trace=False))
        else:
            traced = stage("capture", lambda: torch.jit.trace(model, args, strict=False, check_trace=False))
        stage("save", lambda: torch.jit.save(traced, str(path)))
    elif exporter in ("onnx", "onnx-legacy"):
        stage("capture", lambda: _onnx_export(model, args, kwargs, path, dynamo=exporter == "onnx"))
    elif exporter == "executorch":
        _write_pte(model, args, kwargs, path)
    elif exporter == "aoti":
        compile_package = getattr(torch._inductor, "aoti_compile_and_package", None)
        if compile_package is None:
            raise Unavailable("this torch has no torch._inductor.aoti_compile_and_package")
        ep = stage("capture", lambda: torch.export.export(model, args, kwargs or None))
        if "args" in inspect.signature(compile_package).parameters:  # torch 2.5 took the inputs again
            stage("save", lambda: compile_package(ep, args, kwargs or None, package_path=str(path)))
        else:
            stage("save", lambda: compile_package(ep, package_path=str(path)))


def _executorch_runtime():
    """The venv's executorch runtime: executorch.runtime (0.4 on), else the pybindings."""
    try:
        from executorch.runtime import Runtime
    except ImportError:
        try:
            from executorch.extension.pybindings.portable_lib import _load_for_executorch
        except ImportError as exc:
            raise Unavailable(f"this venv has no executorch runtime ({exc})") from None
        return lambda path: _load_for_executorch(str(path)).forward
    return lambda path: Runtime.get().load_program(str(path)).load_method("forward").execute


def _write_pte(model, args, kwargs, path: Path) -> None:
    import torch

    try:
        from executorch.exir import to_edge_transform_and_lower
    except ImportError as exc:
        raise Unavailable(f"this venv has no executorch ({exc})") from None
    ep = stage("capture", lambda: torch.export.export(model, args, kwargs or None))
    program = stage("save", lambda: to_edge_transform_and_lower(ep).to_executorch())
    stage("save", lambda: path.write_bytes(program.buffer))


def write_case(case: dict, out_dir: Path, exporters: list[str], timeout_s: float) -> list[dict]:
    import torch

    folder = out_dir / case["id"].replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)

    # Every child builds the case from the same seed: an exporter written later (another
    # run) rewrites inputs.pt and expected.pt, and they must still describe the weights and
    # inputs inside the artifacts written before it.
    def build():
        torch.manual_seed(0)
        model, args, kwargs = load_case(case["path"])
        torch.manual_seed(0)
        with torch.no_grad():
            expected = leaves(model(*args, **kwargs))
        torch.save({"args": args, "kwargs": kwargs}, folder / "inputs.pt")
        torch.save([t.detach() for t in expected], folder / "expected.pt")
        return {"outcome": "ok"}

    built = forked(build, timeout_s)
    if built["outcome"] != "ok":
        built["stage"] = "build"
        return [{"case": case["id"], "exporter": e, **built} for e in exporters]
    results = []
    for exporter in exporters:
        target = folder / exporter
        target.mkdir(exist_ok=True)

        def one(exporter=exporter, target=target):
            torch.manual_seed(0)
            model, args, kwargs = load_case(case["path"])
            try:
                write_one(exporter, model, args, kwargs, target)
            except Unavailable as exc:
                return {"outcome": "unavailable", "stage": "capture", "message": str(exc)}
            return {"outcome": "ok", "stage": None}

        result = forked(one, timeout_s)
        results.append({"case": case["id"], "exporter": exporter, "artifact": str(target), **result})
    return results


# -- loading -------------------------------------------------------------------------

def _ort_run(path: Path, feeds: list):
    """Run an ONNX file on onnxruntime's CPU provider with numpy inputs, in flattening order."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = stage("load", lambda: ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"]))
    names = [i.name for i in session.get_inputs()]
    if any(re.fullmatch(r"input_\d+", n) for n in names):
        # Named at export (the legacy exporter): each by its index. A graph input the case
        # has no tensor for (a tensor default of forward) is left out, so onnxruntime says
        # which one is missing, as it would to a user.
        feed = {n: feeds[int(n[6:])] for n in names if re.fullmatch(r"input_\d+", n) and int(n[6:]) < len(feeds)}
    elif len(names) > len(feeds):
        raise StageError("run") from RuntimeError(
            f"the ONNX graph takes {len(names)} inputs, the case has {len(feeds)} tensors")
    else:
        feed = dict(zip(names, feeds))
    return stage("run", lambda: session.run(None, feed))


def load_one(artifact: dict) -> dict:
    import torch

    folder = Path(artifact["artifact"])
    case_dir = folder.parent
    exporter = artifact["exporter"]
    inputs = stage("load", lambda: _torch_load(case_dir / "inputs.pt"))
    expected = _torch_load(case_dir / "expected.pt")
    args, kwargs = tuple(inputs["args"]), dict(inputs["kwargs"])
    path = folder / ARTIFACT[exporter]
    with torch.no_grad():
        if exporter == "export":
            program = stage("load", lambda: torch.export.load(str(path)))
            module = stage("load", lambda: program.module())
            out = stage("run", lambda: module(*args, **kwargs))
        elif exporter in ("jit-script", "jit-trace"):
            loaded = stage("load", lambda: torch.jit.load(str(path)))
            out = stage("run", lambda: loaded(*args, **kwargs))
        elif exporter in ("onnx", "onnx-legacy"):
            out = [torch.from_numpy(x) for x in _ort_run(path, [t.detach().numpy() for t in tensors_of((args, kwargs))])]
        elif exporter == "executorch":
            try:
                runtime = _executorch_runtime()
            except Unavailable as exc:
                return {"outcome": "unavailable", "stage": "load", "message": str(exc)}
            forward = stage("load", lambda: runtime(path))
            # The program takes every flattened input, in the order export saw them.
            from torch.utils import _pytree as pytree

            out = stage("run", lambda: forward(pytree.tree_flatten((args, kwargs))[0]))
        elif exporter == "aoti":
            load_package = getattr(torch._inductor, "aoti_load_package", None)
            if load_package is None:
                return {"outcome": "unavailable", "stage": "load",
                        "message": "this torch has no torch._inductor.aoti_load_package"}
            runner = stage("load", lambda: load_package(str(path)))
            out = stage("run", lambda: runner(*args, **kwargs))
        else:
            raise ValueError(f"unknown exporter {exporter}")
    stage("numeric", lambda: compare(leaves(out), expected))
    return {"outcome": "ok", "stage": None}


# -- onnxruntime on its own ------------------------------------------------------------
NUMPY_INPUTS, NUMPY_EXPECTED = "inputs.npz", "expected.npz"


def save_numpy(case_dir: Path) -> dict:
    """The case's tensor inputs (in the exporters' flattening order) and eager outputs as .npz."""
    import numpy as np

    inputs = _torch_load(case_dir / "inputs.pt")
    expected = _torch_load(case_dir / "expected.pt")
    feeds = [t.detach().numpy() for t in tensors_of((tuple(inputs["args"]), dict(inputs["kwargs"])))]
    want = [t.detach().numpy() for t in expected]
    np.savez(case_dir / NUMPY_INPUTS, *feeds)
    np.savez(case_dir / NUMPY_EXPECTED, *want)
    return {"outcome": "ok"}


def _npz(path: Path) -> list:
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        return [data[f"arr_{i}"] for i in range(len(data.files))]


def run_onnx_one(artifact: dict) -> dict:
    folder = Path(artifact["artifact"])
    case_dir = folder.parent
    feeds = stage("load", lambda: _npz(case_dir / NUMPY_INPUTS))
    want = _npz(case_dir / NUMPY_EXPECTED)
    out = _ort_run(folder / ARTIFACT[artifact["exporter"]], feeds)
    stage("numeric", lambda: compare(list(out), want))
    return {"outcome": "ok", "stage": None}


# -- main ----------------------------------------------------------------------------

def _emit(row: dict) -> None:
    sys.stdout.write(json.dumps(row, default=str) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    command = argv[0]
    if command == "run-onnx":  # no torch in this venv
        spec = json.loads(Path(argv[1]).read_text())
        for artifact in spec["artifacts"]:
            result = forked(lambda artifact=artifact: run_onnx_one(artifact), spec.get("timeout_s", 300))
            _emit({**artifact, **result})
        return 0
    import torch

    torch.set_num_threads(1)
    if command == "numpy":
        for case_dir in argv[1:]:
            _emit({"case_dir": case_dir, **forked(lambda d=Path(case_dir): save_numpy(d), 300)})
    elif command == "write":
        spec = json.loads(Path(argv[1]).read_text())
        out_dir = Path(argv[2])
        for case in spec["cases"]:
            for row in write_case(case, out_dir, spec["exporters"], spec.get("timeout_s", 300)):
                _emit(row)
    elif command == "load":
        spec = json.loads(Path(argv[1]).read_text())
        for artifact in spec["artifacts"]:
            result = forked(lambda artifact=artifact: load_one(artifact), spec.get("timeout_s", 300))
            _emit({**artifact, **result})
    else:
        raise SystemExit(f"unknown command {command!r}: write, load, numpy or run-onnx")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
