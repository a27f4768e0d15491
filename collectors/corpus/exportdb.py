"""The ExportDB examples shipped inside torch (`torch._export.db.examples`).

Each example is a small module written to show one thing torch.export supports (or does
not yet): control flow, dynamic shapes, mutation, Python builtins. torch's own
`all_examples()` lists them; their `extra_args` (inputs the exported program must also
accept) become the alternative inputs.
"""
from __future__ import annotations

import hashlib
import inspect

from .base import Case, ModelSpec
from .inputs import BuildError, check_eager, describe, describe_dynamic

SOURCE = "exportdb"


def _examples() -> dict:
    from torch._export.db import examples

    if not hasattr(examples, "all_examples"):
        raise BuildError("this torch has no torch._export.db.examples.all_examples()")
    return examples.all_examples()


def list_models() -> list[ModelSpec]:
    return [ModelSpec(SOURCE, name, _family(case)) for name, case in sorted(_examples().items())]


def _family(case) -> str:
    # The first tag groups the examples (torch.cond, torch.dynamic-shape, python.builtin, ...).
    return sorted(case.tags)[0] if case.tags else "untagged"


def _source_hash(case) -> str:
    try:
        code = inspect.getsource(inspect.getmodule(type(case.model)))
    except (OSError, TypeError):
        code = repr(case.model)
    return hashlib.sha256(code.encode()).hexdigest()[:16]


def _inputs(case) -> tuple[tuple, dict]:
    """A case's example (args, kwargs). Releases before `example_args` (torch 2.4) held one
    `example_inputs`: a tuple of args, or an ExportArgs with `.args` and `.kwargs`."""
    if hasattr(case, "example_args"):
        return tuple(case.example_args), dict(case.example_kwargs or {})
    inputs = case.example_inputs
    if isinstance(inputs, tuple):
        return inputs, {}
    return tuple(inputs.args), dict(inputs.kwargs or {})


def _extra_args(case) -> tuple | None:
    """The other inputs a case is checked with, if any (`extra_inputs` before torch 2.5)."""
    extra = case.extra_args if hasattr(case, "extra_args") else case.extra_inputs
    if extra is None:
        return None
    return tuple(extra) if isinstance(extra, tuple) else tuple(extra.args)


def build(model_id: str) -> Case:
    examples = _examples()
    if model_id not in examples:
        raise BuildError(f"no ExportDB example named '{model_id}' in this torch")
    case = examples[model_id]
    model = case.model
    if hasattr(model, "eval"):
        model.eval()
    args, kwargs = _inputs(case)
    check_eager(model, args, kwargs)
    alt = _extra_args(case)
    if alt is not None:
        check_eager(model, alt, kwargs, "extra_args")
    return Case(
        model=model, args=args, kwargs=kwargs, dynamic_shapes=case.dynamic_shapes,
        alt_args=alt, alt_kwargs=dict(kwargs) if alt is not None else None,
        definition={
            "source": SOURCE, "name": model_id, "class": type(model).__name__,
            "support_level": case.support_level.name, "tags": sorted(case.tags),
            "code_sha256": _source_hash(case), "inputs": describe(args), "kwargs": describe(kwargs),
            "dynamic_shapes": describe_dynamic(case.dynamic_shapes),
        },
    )
