"""timm: one model per architecture family, the smallest variant, with random weights.

A family is the timm module that defines the model (`resnet`, `convnext`,
`vision_transformer`, ...): models in one module share their code, so one of them
exercises it. The smallest variant is chosen from its name (size words such as
`atto`/`tiny`/`small`, then the first number: depth, width or compute), because
listing must not build anything. Test fixtures (`test_*`) are not variants users run.
"""
from __future__ import annotations

import re

from .base import Case, ModelSpec
from .inputs import BuildError, batch_dim, check_eager, describe, describe_dynamic, dynamic_spec
from .torchvision_compat import import_torchvision

SOURCE = "timm"
BATCH, ALT_BATCH = 2, 3
# Input sides tried before the model's own: smaller is cheaper to run under every exporter.
SMALL_SIDES = (64, 96, 128, 160, 192)
LARGEST_SIDE = 224  # a larger-input model is built for this size (divisible by patch 14, 16 and 32)

_SIZE_WORDS = {
    "atto": 0, "femto": 1, "pico": 2, "nano": 3, "micro": 4, "xxxs": 4, "xxs": 5, "xxtiny": 5, "xs": 6,
    "xtiny": 6, "tiny": 7, "ti": 7, "t": 7, "mini": 8, "small": 9, "s": 9, "lite": 9, "light": 9,
    "medium": 10, "m": 10, "base": 11, "b": 11, "large": 12, "l": 12, "xl": 13, "huge": 13, "h": 13,
    "giant": 14, "g": 14, "enormous": 15,
}


def _timm():
    import_torchvision()  # timm imports torchvision: go through the CPU-torch workaround
    import timm

    return timm


def _size_key(name: str):
    words = re.split(r"[_\d]+", name)
    rank = min((_SIZE_WORDS[w] for w in words if w in _SIZE_WORDS), default=10)
    # The first number that measures size: not a version (v2), a patch or window size, or
    # a trailing input resolution (_224).
    numbers = [int(m.group(1)) for m in re.finditer(r"(?<![a-z]v)(?<!patch)(?<!window)(\d+)", name)
               if not (m.end() == len(name) and int(m.group(1)) >= 160)]
    return rank, numbers[0] if numbers else 10**6, len(name), name


def families() -> dict[str, list[str]]:
    """{module name: model names} for every timm model (test fixtures left out)."""
    timm = _timm()
    from timm.models import _registry

    out: dict[str, list[str]] = {}
    for name in timm.list_models():
        if name.startswith("test_"):
            continue
        out.setdefault(_registry._model_to_module.get(name, name.split("_")[0]), []).append(name)
    return out


def list_models() -> list[ModelSpec]:
    return [ModelSpec(SOURCE, min(names, key=_size_key), family) for family, names in sorted(families().items())]


def _input_sides(model) -> list[int]:
    cfg = getattr(model, "pretrained_cfg", None) or {}
    _, h, w = cfg.get("input_size", (3, 224, 224))
    if cfg.get("fixed_input_size"):
        return [h]
    return [s for s in SMALL_SIDES if s < h] + [h]


def _create(timm, model_id: str, **kwargs):
    import torch

    torch.manual_seed(0)
    try:
        return timm.create_model(model_id, pretrained=False, **kwargs).eval()
    except Exception as exc:
        raise BuildError(f"timm cannot create '{model_id}' {kwargs or ''}: {type(exc).__name__}: {exc}") from exc


def _try(model, model_id, channels, side, img_size, cfg, errors) -> Case | None:
    import torch

    def make(b):
        return (torch.rand(b, channels, side, side, generator=torch.Generator().manual_seed(b)),)

    try:
        check_eager(model, make(BATCH), {}, f"{side}x{side} inputs")
    except BuildError as exc:
        errors.append(str(exc))
        return None
    alt = make(ALT_BATCH)
    check_eager(model, alt, {}, "batch-3 inputs")
    dynamic = dynamic_spec(lambda: ({0: batch_dim()},))
    return Case(
        model=model, args=make(BATCH), dynamic_shapes=dynamic, alt_args=alt, alt_kwargs={},
        definition={
            "source": SOURCE, "name": model_id, "family": _registry_module(model_id),
            "class": type(model).__name__, "pretrained_input_size": list(cfg.get("input_size", [])),
            "img_size": img_size, "inputs": describe(make(BATCH)), "alt_inputs": describe(alt),
            "dynamic_shapes": describe_dynamic(dynamic),
        },
    )


def build(model_id: str) -> Case:
    timm = _timm()
    if not timm.is_model(model_id):
        raise BuildError(f"unknown timm model '{model_id}'")
    model = _create(timm, model_id)
    cfg = getattr(model, "pretrained_cfg", None) or {}
    channels, native = cfg.get("input_size", (3, 224, 224))[0], cfg.get("input_size", (3, 224, 224))[1]
    # (model, img_size it was built for, sides to try): models built for one large input
    # (SAM's 1024 px ViT) take the size as a constructor argument, so first try them
    # built for a smaller image; then the model as it is, smallest side first.
    attempts = []
    if native > LARGEST_SIDE:
        try:
            attempts.append((_create(timm, model_id, img_size=LARGEST_SIDE), LARGEST_SIDE, [LARGEST_SIDE]))
        except BuildError:
            pass
    attempts.append((model, None, _input_sides(model)))
    errors = []
    for model, img_size, sides in attempts:
        for side in sides:
            case = _try(model, model_id, channels, side, img_size, cfg, errors)
            if case is not None:
                return case
    raise BuildError(f"no input size runs timm '{model_id}': " + " | ".join(errors[-2:]))


def _registry_module(model_id: str) -> str:
    from timm.models import _registry

    return _registry._model_to_module.get(model_id, "")
