"""Evidence in an error text that carries across wordings and releases.

A message's wording changes between releases; what raised it changes much less. Two
such signals are read here, without any entry-specific knowledge:

* the exception's type, by its last dotted component (`torch._dynamo.exc.Unsupported`
  and `Unsupported` are the same evidence);
* the traceback's frames inside torch and the exporter packages: the module a frame
  runs in names the exporter and the stage (`torch/onnx/utils.py` is the TorchScript-
  based ONNX exporter, `torch/_inductor/` is AOTInductor, `executorch/exir/` is
  ExecuTorch's lowering);
* the shape of an exporter's own bug: a programming error (a KeyError, a TypeError
  about a function's arguments, an AssertionError) raised in the exporter's own code,
  or torch's "INTERNAL ASSERT FAILED". Such a failure is worded by whatever line broke,
  so its words say little; its shape says it is not the user's model.

The matcher turns them into features (kb/matcher.py); kb/calibrate.py learns how much
each is worth from the train split.
"""
from __future__ import annotations

import re
from functools import lru_cache

# '  File "/x/site-packages/torch/onnx/utils.py", line 12, in export'. Windows paths too.
_FRAME_FILE = re.compile(r'^[ \t]{0,12}File "(?P<file>[^"\n]{1,1000})", line \d{1,9}', re.MULTILINE)
# Where a package's own path starts inside a frame's file name.
_PACKAGE = re.compile(r"(?:^|[/\\])(?P<mod>(?:torch|executorch|onnxscript|onnxruntime|onnx|torchvision|transformers)[/\\][^\"\n]{0,300}?)\.py$")

# Module prefixes that say which exporter was running, most specific first. One frame can
# name a family (a set of exporter ids) when the module serves several of them.
_FAMILIES: tuple[tuple[str, frozenset[str]], ...] = tuple(
    (prefix, frozenset(ids.split())) for prefix, ids in (
        ("torch.onnx._internal.exporter", "onnx"),
        ("torch.onnx._internal.fx", "onnx"),
        ("torch.onnx._internal.torchscript_exporter", "onnx-legacy"),
        ("torch.onnx._internal.jit_utils", "onnx-legacy"),
        ("torch.onnx.utils", "onnx-legacy"),
        ("torch.onnx.symbolic", "onnx-legacy"),
        ("torch.onnx._internal", "onnx onnx-legacy"),
        ("onnxscript", "onnx"),
        ("torch.onnx", "onnx onnx-legacy"),
        ("torch.jit._trace", "jit-trace onnx-legacy"),
        ("torch.jit.frontend", "jit-script"),
        ("torch.jit._script", "jit-script"),
        ("torch.jit._recursive", "jit-script"),
        ("torch.jit.annotations", "jit-script"),
        ("torch._jit_internal", "jit-script"),
        ("torch.jit._serialization", "jit-script jit-trace"),
        ("torch._inductor", "aoti"),
        ("torch._export.serde", "export export-strict export-dynamic"),
        ("torch.export.dynamic_shapes", "export-dynamic"),
        ("torch._dynamo", "export-strict onnx"),
        ("torch._export", "export export-strict export-dynamic aoti executorch onnx"),
        ("torch.export", "export export-strict export-dynamic aoti executorch onnx"),
        ("executorch", "executorch"),
    ))


# Exceptions that, raised inside a library's own code, are a bug in it: they report a
# broken invariant, not a refused input (that is what ValueError, RuntimeError and the
# exporters' own error classes are for).
PROGRAMMING_ERRORS = frozenset({
    "TypeError", "KeyError", "IndexError", "AttributeError", "NameError", "UnboundLocalError",
    "AssertionError", "ZeroDivisionError", "RecursionError", "StopIteration",
})
# What torch prints when it knows the failure is its own: TORCH_INTERNAL_ASSERT's text.
# ("Please file an issue" was tried too: on train it fixed one report and broke another.)
_INTERNAL_ASSERT = re.compile(r"INTERNAL ASSERT FAILED|please report a bug to PyTorch", re.IGNORECASE)


def exception_type(type_name: str) -> str:
    """The last component of an exception type, the part that survives refactorings."""
    return type_name.rsplit(".", 1)[-1] if type_name else ""


@lru_cache(maxsize=4096)
def _family_of(module: str) -> frozenset[str] | None:
    return next((ids for prefix, ids in _FAMILIES if module == prefix or module.startswith(prefix + ".")
                 or module.startswith(prefix + "_")), None)


def family_frames(text: str) -> list[tuple[str, frozenset[str]]]:
    """Each frame line that runs in a module naming an exporter family, with that family."""
    found = []
    for m in _FRAME_FILE.finditer(text):
        p = _PACKAGE.search(m["file"].replace("\\", "/"))
        ids = _family_of(p["mod"].replace("/", ".").replace("\\", ".")) if p else None
        if ids is not None:
            found.append((m.group(0).strip(), ids))
    return found


def exporter_family(text: str) -> frozenset[str]:
    """The exporter ids the traceback's frames point at; empty when the frames say nothing.

    Every frame narrows the set: an ONNX export whose frames run through Dynamo is the
    dynamo-based ONNX exporter, not strict `torch.export`."""
    family: frozenset[str] | None = None
    for _line, ids in family_frames(text):
        narrowed = ids if family is None else family & ids
        family = narrowed or family  # frames that disagree keep the earlier (outer) evidence
    return family or frozenset()


def _last_frame(text: str):
    last = None
    for last in _FRAME_FILE.finditer(text):
        pass
    return last


def raising_frame(text: str) -> str | None:
    """The last frame line printed: where the final exception was raised."""
    last = _last_frame(text)
    return last.group(0).strip() if last is not None else None


def internal_error_shape(text: str, raised_type: str) -> float:
    """1.0 when the failure has the shape of an exporter's own bug: torch's internal-assert
    text, or a programming error (PROGRAMMING_ERRORS) raised in a package's frame; 0.5
    for such an exception with no frame to place it; else 0."""
    if _INTERNAL_ASSERT.search(text):
        return 1.0
    if exception_type(raised_type) not in PROGRAMMING_ERRORS:
        return 0.0
    last = _last_frame(text)
    if last is None:
        return 0.5
    return 1.0 if _PACKAGE.search(last["file"].replace("\\", "/")) else 0.0
