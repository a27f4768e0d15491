"""The nine exporters, each a sequence of stages run against one case.

Stages, in order: capture -> lower (lowering or translation) -> save-load (round trip
through bytes or a file) -> run -> numeric (agreement with eager on fresh inputs).
A stage that does not apply to an exporter is skipped. The first failing stage ends
the attempt; its exception is what the knowledge base classifies.

This module imports torch and runs inside an isolated worker (collectors.pool).
"""
from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import torch
from torch.utils import _pytree as pytree

from .corpus.base import Case
from .numerics import ATOL, RTOL, int8_drift, tolerance  # noqa: F401  (ATOL: the bound callers compare with)


class StageFailed(Exception):
    def __init__(self, stage: str, error: BaseException):
        super().__init__(stage)
        self.stage, self.error = stage, error


class Mismatch(AssertionError):
    """An exported program ran but disagreed with eager: the most important failure to catch."""


@dataclass
class Attempt:
    exporter: str
    stages: list[dict] = field(default_factory=list)
    outcome: str = "ok"
    failed_stage: str | None = None
    exc_type: str | None = None
    message: str | None = None
    traceback: str | None = None


# Called with each stage's name as it starts, so that the parent knows where an attempt
# was when its process hung or crashed.
STAGE_LISTENER: Callable[[str], None] | None = None


def _run_stage(attempt: Attempt, stage: str, fn: Callable[[], Any]) -> Any:
    if STAGE_LISTENER:
        STAGE_LISTENER(stage)
    start = time.perf_counter()
    try:
        value = fn()
    except Exception as exc:  # every failure of a stage is data
        attempt.stages.append({"stage": stage, "outcome": "fail", "duration_s": round(time.perf_counter() - start, 3)})
        raise StageFailed(stage, exc) from exc
    attempt.stages.append({"stage": stage, "outcome": "ok", "duration_s": round(time.perf_counter() - start, 3)})
    return value


# Every stage an attempt can reach, in order (kb.catalogue.STAGES names the same five).
ALL_STAGES = ("capture", "lower", "save-load", "run", "numeric")


def _skip(attempt: Attempt, stage: str) -> None:
    attempt.stages.append({"stage": stage, "outcome": "skip", "duration_s": 0.0})


# -- inputs and comparison ---------------------------------------------------------

def fresh_inputs(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """New values of the same shapes: floats redrawn, integer inputs (ids, masks) kept."""
    def redraw(x):
        return torch.randn_like(x) if isinstance(x, torch.Tensor) and x.is_floating_point() else x
    return pytree.tree_map(redraw, (args, kwargs))


def tensor_leaves(value: Any) -> list[torch.Tensor]:
    return [x for x in pytree.tree_leaves(value) if isinstance(x, torch.Tensor)]


def outputs_of(value: Any) -> list[torch.Tensor]:
    """Tensor leaves of a model's output, looking inside ModelOutput and cache objects.

    Numbers count as 0-d tensors: a model returning `x.shape[1] + 1` and a traced program
    returning `tensor(3)` agree if the values do."""
    leaves = []
    for leaf in pytree.tree_leaves(value):
        if isinstance(leaf, torch.Tensor):
            leaves.append(leaf)
        elif isinstance(leaf, (bool, int, float)):
            leaves.append(torch.tensor(leaf))
        elif hasattr(leaf, "to_tuple"):  # transformers ModelOutput not registered as a pytree
            leaves.extend(outputs_of(leaf.to_tuple()))
    return leaves


def compare(actual: Any, expected: Any, what: str, *, int8: bool = False, float_expected: Any = None) -> None:
    """Raise Mismatch unless `actual` agrees with eager's `expected` (collectors.numerics).

    For an int8 model, `float_expected` is the float model's output on the same inputs: an
    output beyond a step or two of the reference still agrees when it is as close to the
    float model as the reference is (numerics.int8_drift)."""
    got, want = outputs_of(actual), outputs_of(expected)
    floats = outputs_of(float_expected) if int8 and float_expected is not None else None
    if len(got) != len(want):
        raise Mismatch(f"{what}: the program returned {len(got)} tensors, eager returned {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        g = torch.as_tensor(g)
        if g.shape != w.shape:
            raise Mismatch(f"{what}: output {i} has shape {tuple(g.shape)}, eager has {tuple(w.shape)}")
        try:
            torch.testing.assert_close(g.to(w.dtype), w, rtol=RTOL, atol=tolerance(w, int8=int8), equal_nan=True)
        except AssertionError as exc:
            why = f"{str(exc).splitlines()[0]} {' '.join(str(exc).split()[1:40])}"
            if floats is not None and len(floats) == len(want) and floats[i].shape == w.shape:
                drift = int8_drift(g.to(w.dtype), w, floats[i])
                if drift is None:
                    continue
                why += f"; {drift}"
            raise Mismatch(f"{what}: output {i} disagrees with eager: {why}") from None


def eager(case: Case, args: tuple, kwargs: dict) -> Any:
    with torch.no_grad():
        return case.model(*args, **kwargs)


def _copy(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    return pytree.tree_map(lambda x: x.clone() if isinstance(x, torch.Tensor) else x, (args, kwargs))


# Both sides of a comparison start from this seed of the global generator. A model that
# draws noise in forward (VITS's durations, ViLT's patch sampling) then gets the same
# draws from a program that makes the same random calls in the same order; a program
# that draws differently (another RNG, reordered calls) still disagrees, as it should.
NUMERIC_SEED = 20261122


def _agree(call: Callable[[tuple, dict], Any], case: Case, args: tuple, kwargs: dict, what: str) -> None:
    # Each side gets its own copy: a model that updates an input in place must not feed
    # the updated value to the other side.
    eager_args, program_args = _copy(args, kwargs), _copy(args, kwargs)
    torch.manual_seed(NUMERIC_SEED)
    expected = eager(case, *eager_args)
    float_expected = None
    if case.int8 and case.float_model is not None:
        float_args, float_kwargs = _copy(args, kwargs)
        torch.manual_seed(NUMERIC_SEED)
        with torch.no_grad():
            float_expected = case.float_model(*float_args, **float_kwargs)
    torch.manual_seed(NUMERIC_SEED)
    compare(call(*program_args), expected, what, int8=case.int8, float_expected=float_expected)


def _numeric(attempt: Attempt, case: Case, call: Callable[[tuple, dict], Any], *, alt: bool = False) -> None:
    args, kwargs = fresh_inputs(case.args, case.kwargs)
    _run_stage(attempt, "numeric", lambda: _agree(call, case, args, kwargs, "fresh inputs"))
    if alt and case.alt_args is not None:
        alt_args, alt_kwargs = case.alt_args, case.alt_kwargs or {}
        _run_stage(attempt, "numeric", lambda: _agree(call, case, alt_args, alt_kwargs, "inputs of another batch size"))


# -- exporters ---------------------------------------------------------------------

def _export_family(attempt: Attempt, case: Case, *, strict: bool, dynamic: bool) -> None:
    if dynamic and case.dynamic_shapes is None:
        for s in ALL_STAGES:
            _skip(attempt, s)
        attempt.outcome = "skip"
        return
    shapes = case.dynamic_shapes if dynamic else None
    ep = _run_stage(attempt, "capture", lambda: torch.export.export(
        case.model, case.args, case.kwargs or None, dynamic_shapes=shapes, strict=strict))
    _run_stage(attempt, "lower", lambda: ep.run_decompositions())

    def round_trip():
        buf = io.BytesIO()
        torch.export.save(ep, buf)
        buf.seek(0)
        return torch.export.load(buf)
    loaded = _run_stage(attempt, "save-load", round_trip)
    module = loaded.module()
    run_args = (case.alt_args, case.alt_kwargs or {}) if dynamic and case.alt_args is not None else (case.args, case.kwargs)
    _run_stage(attempt, "run", lambda: module(*run_args[0], **run_args[1]))
    _numeric(attempt, case, lambda a, k: module(*a, **k), alt=dynamic)


def export(attempt, case, workdir):
    _export_family(attempt, case, strict=False, dynamic=False)


def export_strict(attempt, case, workdir):
    _export_family(attempt, case, strict=True, dynamic=False)


def export_dynamic(attempt, case, workdir):
    _export_family(attempt, case, strict=False, dynamic=True)


def _jit_round_trip(scripted):
    buf = io.BytesIO()
    torch.jit.save(scripted, buf)
    buf.seek(0)
    return torch.jit.load(buf)


def jit_script(attempt, case, workdir):
    scripted = _run_stage(attempt, "capture", lambda: torch.jit.script(case.model))
    _skip(attempt, "lower")
    loaded = _run_stage(attempt, "save-load", lambda: _jit_round_trip(scripted))
    _run_stage(attempt, "run", lambda: loaded(*case.args, **case.kwargs))
    _numeric(attempt, case, lambda a, k: loaded(*a, **k))


def jit_trace(attempt, case, workdir):
    def trace():
        if case.kwargs:
            return torch.jit.trace(case.model, example_kwarg_inputs=case.kwargs, strict=False, check_trace=False)
        return torch.jit.trace(case.model, case.args, strict=False, check_trace=False)
    traced = _run_stage(attempt, "capture", trace)
    _skip(attempt, "lower")
    loaded = _run_stage(attempt, "save-load", lambda: _jit_round_trip(traced))

    def call(a, k):
        return loaded(*a, **k)
    _run_stage(attempt, "run", lambda: call(case.args, case.kwargs))
    # Tracing bakes in control flow and shapes: a traced program that silently returns
    # wrong results on another batch size is the failure that matters most.
    _numeric(attempt, case, call, alt=True)


def _ort_session(path: Path):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _ort_call(session, args: tuple, kwargs: dict, input_names: list[str] | None = None):
    """Feed the case's tensors to onnxruntime.

    With `input_names` (one per tensor leaf, as given to the exporter), tensors are fed by
    name, so inputs the exporter dropped (unused, or folded into constants) are skipped.
    Without them, the graph must take exactly the case's tensors, in order."""
    feeds = [x.detach().numpy() for x in tensor_leaves((args, kwargs))]
    names = [i.name for i in session.get_inputs()]
    if input_names is not None:
        by_name = dict(zip(input_names, feeds))
        # A graph input the case has no tensor for (the legacy exporter turns a tensor
        # default of forward into one) is left out, so onnxruntime raises the error a
        # user would see: "Required inputs ([...]) are missing from input feed".
        feed = {n: by_name[n] for n in names if n in by_name}
        return [torch.from_numpy(x) for x in session.run(None, feed)]
    if len(names) != len(feeds):
        raise RuntimeError(f"the ONNX graph takes {len(names)} inputs, the case has {len(feeds)} tensors")
    return [torch.from_numpy(x) for x in session.run(None, dict(zip(names, feeds)))]


def _onnx_stage_of(exc: BaseException) -> str:
    text = str(exc)
    # The dynamo-based exporter says which of its steps failed: torch.export (1/3),
    # decompositions (2/3) or translation to ONNX (3/3).
    return "capture" if "step 1/3" in text or "torch.export" in text.split("\n", 1)[0] else "lower"


def _onnx_inputs(args: tuple, kwargs: dict | None) -> tuple[tuple, dict]:
    """(args, extra keyword arguments) for `torch.onnx.export` on this release.

    Before torch 2.5 it had no `kwargs=`: keyword inputs went as a trailing dict in `args`
    (both exporters read it so), and a positional dict input needs an empty one after it,
    or it would be read as the keywords."""
    if "kwargs" in inspect.signature(torch.onnx.export).parameters:
        return args, {"kwargs": kwargs or None}
    if kwargs or (args and isinstance(args[-1], dict)):
        return (*args, dict(kwargs or {})), {}
    return args, {}


def onnx(attempt, case, workdir):
    path = Path(workdir) / "model.onnx"
    args, extra = _onnx_inputs(case.args, case.kwargs)
    try:
        program = torch.onnx.export(case.model, args, **extra, dynamo=True, verbose=False)
        attempt.stages.append({"stage": "capture", "outcome": "ok", "duration_s": 0.0})
        attempt.stages.append({"stage": "lower", "outcome": "ok", "duration_s": 0.0})
    except Exception as exc:
        stage = _onnx_stage_of(exc)
        if stage == "lower":
            attempt.stages.append({"stage": "capture", "outcome": "ok", "duration_s": 0.0})
        attempt.stages.append({"stage": stage, "outcome": "fail", "duration_s": 0.0})
        raise StageFailed(stage, exc) from exc
    session = _run_stage(attempt, "save-load", lambda: (program.save(str(path)), _ort_session(path))[1])
    # Before torch 2.5 the trailing dict of keyword inputs is bound to forward's parameters
    # (torch.onnx.utils._decide_input_format), so the graph takes them in forward's order,
    # as the legacy exporter's does; later releases keep the order they were given in.
    ordered = (lambda k: k) if "kwargs" in extra else (lambda k: in_signature_order(case.model, k))
    _run_stage(attempt, "run", lambda: _ort_call(session, case.args, ordered(case.kwargs)))
    _numeric(attempt, case, lambda a, k: _ort_call(session, a, ordered(k)))


def in_signature_order(model, kwargs: dict) -> dict:
    """kwargs reordered as forward's parameters are.

    The legacy exporter binds keyword inputs to forward's parameters and creates the graph
    inputs in parameter order, whatever the dict's order; input names must follow it."""
    if not kwargs:
        return kwargs
    # A case's model may be a plain function or bound method (the export-non-module
    # entry): its own signature is the one the exporter binds to.
    try:
        params = list(inspect.signature(getattr(model, "forward", model)).parameters)
    except (TypeError, ValueError):
        return kwargs
    rank = {name: i for i, name in enumerate(params)}
    return dict(sorted(kwargs.items(), key=lambda kv: rank.get(kv[0], len(rank))))


def onnx_legacy(attempt, case, workdir):
    path = Path(workdir) / "model.onnx"
    _skip(attempt, "capture")  # the TorchScript-based exporter traces and translates in one call
    kwargs = in_signature_order(case.model, case.kwargs)
    # Name every tensor input: the exporter drops inputs the trace never reads (a tensor
    # used only through .item(), say), and feeding by name is then still right.
    names = [f"input_{i}" for i in range(len(tensor_leaves((case.args, kwargs))))]
    args, extra = _onnx_inputs(case.args, kwargs)
    _run_stage(attempt, "lower", lambda: torch.onnx.export(
        case.model, args, str(path), **extra, dynamo=False, verbose=False, input_names=names))
    session = _run_stage(attempt, "save-load", lambda: _ort_session(path))
    _run_stage(attempt, "run", lambda: _ort_call(session, case.args, kwargs, names))
    _numeric(attempt, case, lambda a, k: _ort_call(session, a, in_signature_order(case.model, k), names))


def aoti(attempt, case, workdir):
    ep = _run_stage(attempt, "capture", lambda: torch.export.export(case.model, case.args, case.kwargs or None, strict=False))
    if hasattr(torch._inductor, "aoti_compile_and_package"):
        package = str(Path(workdir) / "model.pt2")
        _run_stage(attempt, "lower", lambda: torch._inductor.aoti_compile_and_package(ep, package_path=package))
        runner = _run_stage(attempt, "save-load", lambda: torch._inductor.aoti_load_package(package))
    else:
        # Before packages (torch 2.4): aot_compile writes a shared library from the module
        # (it exports the program's module again) and aot_load loads it for a device.
        library = _run_stage(attempt, "lower", lambda: torch._export.aot_compile(
            ep.module(), case.args, case.kwargs or None, options={"aot_inductor.output_path": str(Path(workdir) / "model.so")}))
        runner = _run_stage(attempt, "save-load", lambda: torch._export.aot_load(library, "cpu"))
    _run_stage(attempt, "run", lambda: runner(*case.args, **case.kwargs))
    _numeric(attempt, case, lambda a, k: runner(*a, **k))


# ExecuTorch's runtime says why a call failed only in its native log ("[op_convolution.cpp:363]
# Check failed ..."), on the process's stderr; the Python exception carries just an error code.
_NATIVE_LOG_LINE = re.compile(r"^\[[\w./-]+:\d+\] (?!arg \d+ with type id)")


def _flush_c_stdio() -> None:
    import ctypes

    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


def _with_native_log(fn, workdir):
    """Call fn with fds 1 and 2 captured; on failure, add the runtime's own log lines to the error."""
    log_path = Path(workdir) / "native.log"
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}

    def restore():
        for fd, copy in saved.items():
            os.dup2(copy, fd)

    # The runtime's Python bindings may also print through sys.stdout: send it there too.
    with open(log_path, "wb") as log, open(log_path, "a", encoding="utf-8") as text, \
            contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
        for fd in saved:
            os.dup2(log.fileno(), fd)
        try:
            return fn()
        except Exception as exc:
            _flush_c_stdio()  # the runtime logs through C stdio, which buffers when not a tty
            text.flush()
            restore()
            lines = [ln for ln in log_path.read_text(errors="replace").splitlines() if _NATIVE_LOG_LINE.match(ln)]
            if lines:
                raise RuntimeError(f"{exc}\n" + "\n".join(lines[-12:])) from exc
            raise
        finally:
            restore()
            for copy in saved.values():
                os.close(copy)


def _not_installed(attempt: Attempt, library: str, exc: ModuleNotFoundError) -> None:
    """The exporter's library is not in this interpreter: a release run where none installs
    beside its torch (executorch 0.3.0 requires torch==2.4.0, so torch 2.4.1 has none).
    Nothing was attempted, so it is a skip that says why, not a failure of the model."""
    for s in ALL_STAGES:
        _skip(attempt, s)
    attempt.outcome, attempt.exc_type = "skip", type(exc).__name__
    attempt.message = f"{library} is not installed beside torch {torch.__version__} ({exc})"


def executorch(attempt, case, workdir):
    try:
        from executorch.exir import to_edge_transform_and_lower
        from executorch.runtime import Runtime
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "executorch":
            raise
        _not_installed(attempt, "executorch", exc)
        return

    ep = _run_stage(attempt, "capture", lambda: torch.export.export(case.model, case.args, case.kwargs or None, strict=False))
    program = _run_stage(attempt, "lower", lambda: to_edge_transform_and_lower(
        ep, partitioner=_partitioners(case.delegate)).to_executorch())
    path = Path(workdir) / "model.pte"

    def round_trip():
        path.write_bytes(program.buffer)
        # Loading fails with a bare code (0x14) when a kernel is missing; the runtime's
        # log names the operator ("Missing operator: [..] aten::sort.values_stable").
        return _with_native_log(lambda: Runtime.get().load_program(str(path)).load_method("forward"), workdir)
    method = _run_stage(attempt, "save-load", round_trip)

    def call(a, k):
        # The program takes every flattened input, non-tensor constants (a bool flag, an
        # int) included, in the order export saw them.
        return _with_native_log(lambda: method.execute(pytree.tree_flatten((a, k))[0]), workdir)
    _run_stage(attempt, "run", lambda: call(case.args, case.kwargs))
    _numeric(attempt, case, call)


def _partitioners(delegate: str | None) -> list | None:
    if delegate is None:
        return None
    if delegate == "xnnpack":
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        return [XnnpackPartitioner()]
    raise ValueError(f"unknown ExecuTorch delegate {delegate!r}")


EXPORTERS: dict[str, Callable] = {
    "export": export,
    "export-strict": export_strict,
    "export-dynamic": export_dynamic,
    "jit-script": jit_script,
    "jit-trace": jit_trace,
    "onnx": onnx,
    "onnx-legacy": onnx_legacy,
    "aoti": aoti,
    "executorch": executorch,
}


def attempt(exporter: str, case: Case) -> Attempt:
    """Run one exporter on one case; never raises for an export failure."""
    result = Attempt(exporter)
    with tempfile.TemporaryDirectory(prefix=f"exportkb-{exporter}-") as workdir:
        try:
            EXPORTERS[exporter](result, case, workdir)
        except StageFailed as failed:
            err = failed.error
            result.outcome, result.failed_stage = "fail", failed.stage
            result.exc_type = f"{type(err).__module__}.{type(err).__qualname__}".removeprefix("builtins.")
            result.message = str(err)
            result.traceback = "".join(traceback.format_exception(err))
    return result
