"""Fixes generic enough for the collectors to apply by themselves, tried at corpus scale.

An entry's fix is checked on one minimal script by `exportkb check`. For the fixes below,
the collectors also try it on every corpus model whose failure the entry explains, so the
entry can say "this fix made the export succeed on N of M affected models".

Each fix names the entry it belongs to, the failing exporters it applies to, and either
a change to the built case (applied in the worker, after the model is built) or another
exporter to run instead. The retry is a full attempt with every stage, numerics included:
a "fix" that exports but disagrees with eager does not count as working.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from .corpus.base import Case

# Exporters that capture with torch.export, so a capture-time fix applies to all of them.
EXPORT_BASED = ("export", "export-strict", "export-dynamic", "onnx", "aoti", "executorch")


@dataclass(frozen=True)
class AutoFix:
    id: str
    entry: str
    exporters: tuple[str, ...]
    summary: str  # what the fix does, in the words the entry page shows
    transform: Callable[[Case], Case] | None = None
    retry_as: str | None = None  # run this exporter instead of the failing one

    def exporter_for(self, failed_exporter: str) -> str:
        return self.retry_as or failed_exporter


def _without_cache(case: Case) -> Case:
    """transformers: turn the KV cache off in the config, so no cache object is returned.

    Only the config changes: models read `use_cache` from it when the call does not say,
    and adding a `use_cache=False` keyword would change the case's inputs (the tracer
    takes tensors only, and export's dynamic_shapes name every input)."""
    config = getattr(case.model, "config", None)
    if config is not None:
        for cfg in (config, *(getattr(config, name, None) for name in ("text_config", "decoder"))):
            if cfg is not None and hasattr(cfg, "use_cache"):
                cfg.use_cache = False
    generation = getattr(case.model, "generation_config", None)
    if generation is not None and hasattr(generation, "use_cache"):
        generation.use_cache = False
    if "use_cache" in (case.kwargs or {}):  # the case passes it itself: override it there
        kwargs = {**case.kwargs, "use_cache": False}
        alt = {**case.alt_kwargs, "use_cache": False} if case.alt_kwargs is not None else None
        return replace(case, kwargs=kwargs, alt_kwargs=alt)
    return case


def _auto_dims(case: Case) -> Case:
    """Let export decide which dims are dynamic (Dim.AUTO) instead of insisting on named Dims."""
    import torch
    from torch.utils import _pytree as pytree

    named = torch.export.dynamic_shapes.Dim

    if case.dynamic_shapes is None:
        return case
    shapes = pytree.tree_map(lambda leaf: torch.export.Dim.AUTO if isinstance(leaf, named) else leaf,
                             case.dynamic_shapes, is_leaf=lambda x: isinstance(x, named))
    return replace(case, dynamic_shapes=shapes)


def _eager_attention(case: Case) -> Case:
    """transformers: switch the model (and its sub-models) to the eager attention backend,
    which builds the attention mask on every call, traced or not."""
    setter = getattr(case.model, "set_attn_implementation", None)
    if setter is not None:
        setter("eager")
    return case


def _unfused_attention(case: Case) -> Case:
    """timm: switch every attention block to its unfused path (q @ k.T, softmax, @ v).

    timm decides per module, at construction, whether to call
    F.scaled_dot_product_attention (`fused_attn`); the unfused path is the same maths in
    plain matmuls, which every exporter translates whatever the rank."""
    for module in case.model.modules():
        if isinstance(getattr(module, "fused_attn", None), bool):
            module.fused_attn = False
    return case


def _no_layout_optimization(case: Case) -> Case:
    """AOTInductor: compile with Inductor's layout optimization off. The config is global,
    but transforms run in the attempt's own forked process, so nothing else sees it."""
    import torch._inductor.config as inductor_config

    inductor_config.layout_optimization = False
    return case


FIXES: tuple[AutoFix, ...] = (
    # One fix may serve several entries, on disjoint exporters: (fix id, exporter) names one.
    AutoFix("use-cache-false", "cache-output-not-pytree", EXPORT_BASED,
            "build the model with use_cache=False", transform=_without_cache),
    AutoFix("use-cache-false", "trace-untypable-output", ("jit-trace", "onnx-legacy"),
            "build the model with use_cache=False", transform=_without_cache),
    AutoFix("strict-false", "strict-untraceable-call", ("export-strict",),
            "export with strict=False", retry_as="export"),
    AutoFix("dim-auto", "dynamic-dim-specialized", ("export-dynamic",),
            "declare the dims Dim.AUTO instead of named Dims", transform=_auto_dims),
    AutoFix("eager-attention", "transformers-sdpa-mask-skip",
            ("export", "export-strict", "export-dynamic", "jit-trace", "onnx", "onnx-legacy", "aoti", "executorch"),
            'build the model with attn_implementation="eager"', transform=_eager_attention),
    # The same change as eager-attention, under its own id: a (fix, exporter) pair names
    # one entry, and eager-attention already serves onnx-legacy for the mask entry.
    AutoFix("eager-attention-gqa", "onnx-legacy-sdpa-gqa", ("onnx-legacy",),
            'build the model with attn_implementation="eager"', transform=_eager_attention),
    AutoFix("timm-unfused-attention", "onnx-sdpa-not-4d", ("onnx",),
            "turn timm's fused attention off (fused_attn = False on each attention block)",
            transform=_unfused_attention),
    AutoFix("no-layout-optimization", "aoti-conv-layout-unbacked-batch", ("aoti",),
            'compile with inductor_configs={"layout_optimization": False}', transform=_no_layout_optimization),
)
_BY_TARGET = {(f.id, x): f for f in FIXES for x in f.exporters}
assert len(_BY_TARGET) == sum(len(f.exporters) for f in FIXES), "a (fix, exporter) pair names two entries"


def fixes_for(entry: str | None, exporter: str) -> list[AutoFix]:
    return [f for f in FIXES if f.entry == entry and exporter in f.exporters]


def label(exporter: str, fix_id: str) -> str:
    """The attempt label a fix retry runs under: the failing exporter and the fix."""
    return f"{exporter}~{fix_id}"


def parse_label(text: str) -> tuple[str, AutoFix | None]:
    exporter, _, fix_id = text.partition("~")
    return exporter, _BY_TARGET.get((fix_id, exporter)) if fix_id else None


def by_id(fix_id: str, exporter: str) -> AutoFix:
    return _BY_TARGET[(fix_id, exporter)]
