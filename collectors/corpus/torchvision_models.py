"""torchvision models with random weights (`weights=None`): every classification,
detection, segmentation, video and optical-flow builder.

Inputs are as small as each model accepts, to keep the CPU cost of running every
exporter low: candidate sizes are tried smallest first and the first that runs eagerly
is kept. Models whose input size is part of the architecture (ViT's `image_size`,
MViT's `spatial_size`/`temporal_size`) are built for the small size instead. Quantized
builders are left out: they are the classification models again with quant stubs.
"""
from __future__ import annotations

from .base import Case, ModelSpec
from .inputs import BuildError, batch_dim, check_eager, describe, describe_dynamic, dynamic_spec
from .torchvision_compat import import_torchvision, native_ops_available

SOURCE = "torchvision"
BATCH, ALT_BATCH = 2, 3
KINDS = ("classification", "detection", "segmentation", "video", "optical_flow")


def _module(kind: str):
    tv = import_torchvision()
    return tv.models if kind == "classification" else getattr(tv.models, kind)


def list_models() -> list[ModelSpec]:
    import_torchvision()
    from torchvision.models import list_models as tv_list

    return [ModelSpec(SOURCE, name, kind) for kind in KINDS for name in sorted(tv_list(module=_module(kind)))]


def _kind(model_id: str) -> str:
    for spec in list_models():
        if spec.id == model_id:
            return spec.family
    raise BuildError(f"unknown torchvision model '{model_id}'")


def _candidates(model_id: str, kind: str):
    """(builder kwargs, make(batch) -> args) in order of increasing cost."""
    import torch

    def image(size, frames=None):
        def make(b):
            g = torch.Generator().manual_seed(b)
            shape = (b, 3, frames, size, size) if frames else (b, 3, size, size)
            return (torch.rand(shape, generator=g),)
        return make

    if kind == "classification":
        if model_id.startswith("vit_"):  # the image size is a constructor argument
            for size in (64, 56):
                yield {"image_size": size}, image(size)
        for size in (64, 96, 128, 160, 224, 299):
            yield {}, image(size)
    elif kind == "segmentation":
        for size in (64, 128, 224):
            yield {"weights_backbone": None}, image(size)
    elif kind == "detection":
        # A list of 3xHxW images (the model resizes them itself); no batch dim.
        for size in (64, 128):
            yield {"weights_backbone": None}, lambda b, size=size: ([torch.rand(3, size, size) for _ in range(b)],)
    elif kind == "video":
        if model_id.startswith("mvit"):  # positional embeddings are sized at construction
            for size, frames in ((32, 2), (32, 4), (64, 4), (64, 8), (224, 16)):
                yield {"spatial_size": (size, size), "temporal_size": frames}, image(size, frames)
        for size, frames in ((64, 4), (64, 8), (112, 8), (112, 16), (224, 16)):
            yield {}, image(size, frames)
    elif kind == "optical_flow":
        for size in (64, 128):
            yield {}, lambda b, size=size: (torch.rand(b, 3, size, size), torch.rand(b, 3, size, size))


def _construct(get_model, model_id: str, kwargs: dict):
    if "spatial_size" not in kwargs:
        return get_model(model_id, weights=None, **kwargs)
    # mvit_v1_b / mvit_v2_s pass spatial_size=(224, 224), temporal_size=16 to their
    # private `_mvit` themselves, so a caller cannot choose them; 16x224x224 clips make
    # every export of MViT needlessly slow. Override them for the duration of the call.
    from torchvision.models.video import mvit

    original = mvit._mvit

    def sized(**kw):
        return original(**{**kw, **kwargs})

    mvit._mvit = sized
    try:
        return get_model(model_id, weights=None)
    finally:
        mvit._mvit = original


def build(model_id: str) -> Case:
    import torch

    import_torchvision()
    from torchvision.models import get_model

    kind = _kind(model_id)
    if kind == "detection" and not native_ops_available():
        # Every detection model ends in torchvision.ops.nms; without the compiled ops the
        # eager forward cannot run, so the model cannot be a case (see torchvision_compat).
        raise BuildError(f"torchvision '{model_id}' needs torchvision's compiled ops (nms), which this "
                         "torchvision wheel cannot register against the installed torch")
    errors, models = [], {}
    for kwargs, make in _candidates(model_id, kind):
        key = repr(sorted(kwargs.items()))
        if key not in models:
            torch.manual_seed(0)
            try:
                models[key] = _construct(get_model, model_id, kwargs).eval()
            except Exception as exc:
                models[key] = exc
        model = models[key]
        if isinstance(model, Exception):
            errors.append(f"{kwargs}: cannot build: {type(model).__name__}: {model}")
            continue
        args = make(BATCH)
        try:
            check_eager(model, args, {})
        except BuildError as exc:
            errors.append(f"{kwargs} {describe(args)}: {exc}")
            continue
        batched = kind != "detection"
        alt = make(ALT_BATCH) if batched else None
        if alt is not None:
            check_eager(model, alt, {}, "batch-3 inputs")
        dynamic = dynamic_spec(lambda: tuple({0: batch_dim()} for _ in args)) if batched else None
        return Case(
            model=model, args=args, dynamic_shapes=dynamic, alt_args=alt, alt_kwargs={} if batched else None,
            definition={
                "source": SOURCE, "name": model_id, "kind": kind, "class": type(model).__name__,
                "builder_kwargs": {k: v for k, v in kwargs.items()}, "inputs": describe(args),
                "alt_inputs": describe(alt), "dynamic_shapes": describe_dynamic(dynamic),
            },
        )
    raise BuildError(f"no input size runs torchvision '{model_id}': " + " | ".join(errors[-3:]))
