"""The transforms behind the automatic fixes that entries declare, tried at corpus scale.

An entry's fix is checked on one minimal script by `exportkb check`. An entry whose fix
is generic enough declares it in its own entry.toml ([auto_fix]: an id, the exporters
it applies to, and either a transform named here or another exporter to run instead);
the collectors then try it on every corpus model whose failure the entry explains, so
the entry can say "this fix made the export succeed on N of M affected models".

A transform changes the built case, in the worker, after the model is built. The retry is
a full attempt with every stage, numerics included: a "fix" that exports but disagrees
with eager does not count as working.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Callable

from kb import paths
from kb.catalogue import load_catalogue

from .corpus.base import Case


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


# The names an entry's [auto_fix] `transform` may give.
TRANSFORMS: dict[str, Callable[[Case], Case]] = {
    "without-cache": _without_cache,
    "auto-dims": _auto_dims,
    "eager-attention": _eager_attention,
    "unfused-attention": _unfused_attention,
    "no-layout-optimization": _no_layout_optimization,
}


class FixError(ValueError):
    """An entry's [auto_fix] that the collectors cannot carry out."""


@lru_cache(maxsize=4)
def _fixes(entries_dir: Path) -> tuple[tuple[AutoFix, ...], dict[tuple[str, str], AutoFix]]:
    found = []
    for e in load_catalogue(entries_dir):
        spec = e.auto_fix
        if spec is None:
            continue
        if spec.transform is not None and spec.transform not in TRANSFORMS:
            raise FixError(f"entries/{e.id}: [auto_fix] transform '{spec.transform}' is not one of "
                           f"{', '.join(TRANSFORMS)} (collectors/fixes.py)")
        found.append(AutoFix(spec.id, e.id, spec.exporters, spec.summary,
                             TRANSFORMS[spec.transform] if spec.transform else None, spec.retry_as))
    by_target: dict[tuple[str, str], AutoFix] = {}
    for f in found:
        for x in f.exporters:
            # One fix id may serve several entries, on disjoint exporters: (fix id, exporter) names one.
            if (f.id, x) in by_target:
                raise FixError(f"automatic fix '{f.id}' on {x} is declared by both entries/{by_target[f.id, x].entry} "
                               f"and entries/{f.entry}")
            by_target[f.id, x] = f
    return tuple(found), by_target


def all_fixes() -> tuple[AutoFix, ...]:
    """Every automatic fix the catalogue declares, in entry order."""
    return _fixes(paths.entries_dir())[0]


def fixes_for(entry: str | None, exporter: str) -> list[AutoFix]:
    return [f for f in all_fixes() if f.entry == entry and exporter in f.exporters]


def label(exporter: str, fix_id: str) -> str:
    """The attempt label a fix retry runs under: the failing exporter and the fix."""
    return f"{exporter}~{fix_id}"


def parse_label(text: str) -> tuple[str, AutoFix | None]:
    exporter, _, fix_id = text.partition("~")
    return exporter, _fixes(paths.entries_dir())[1].get((fix_id, exporter)) if fix_id else None


def by_id(fix_id: str, exporter: str) -> AutoFix:
    return _fixes(paths.entries_dir())[1][(fix_id, exporter)]
