"""What a corpus source provides: the models it lists, and a way to build one case.

A source module exposes two functions:

    list_models() -> list[ModelSpec]     # cheap: no model is built
    build(model_id: str) -> Case         # builds one model and its inputs (in a worker)

Building happens inside an isolated worker, so a model that hangs, crashes or runs out
of memory while being built is recorded as a `build` outcome and the run goes on.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ModelSpec:
    source: str  # a name in corpus.SOURCE_MODULES: transformers, torchvision, custom-ops, ...
    id: str  # unique within the source, e.g. "bert", "resnet18", "cond_predicate"
    family: str = ""  # architecture family, for grouping and sampling
    # The exporters this model is for; None: every exporter. A variant that only changes
    # what one exporter does (ExecuTorch with a delegate) would repeat the others' attempts.
    exporters: tuple[str, ...] | None = None


@dataclass
class Case:
    """One model with example inputs, ready for every exporter."""
    model: Any  # torch.nn.Module in eval mode
    args: tuple
    kwargs: dict = field(default_factory=dict)
    # For `export-dynamic`: the batch (and sequence) dims declared dynamic, in the
    # torch.export `dynamic_shapes` format matching args/kwargs. None: nothing to vary.
    dynamic_shapes: Any = None
    # The same inputs with a different batch size (and sequence length), to check that a
    # dynamic export or a trace generalises. None when the model has no batch dim.
    alt_args: tuple | None = None
    alt_kwargs: dict | None = None
    # The ExecuTorch partitioner to lower with: None for the portable kernels, "xnnpack"
    # for the XNNPACK delegate (what mobile users ship).
    delegate: str | None = None
    # Quantized to int8: outputs agree within a quantization step or two of the reference,
    # or as closely to `float_model` (the model before quantization) as the reference does
    # (collectors.numerics).
    int8: bool = False
    float_model: Any = None
    # What defines the case (config, code, input shapes); part of the observation key.
    definition: dict = field(default_factory=dict)

    def content_hash(self) -> str:
        return hashlib.sha256(json.dumps(self.definition, sort_keys=True, default=str).encode()).hexdigest()[:16]
