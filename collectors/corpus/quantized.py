"""Quantized models and the XNNPACK delegate: what mobile users send through the exporters.

Reports about ExecuTorch and about quantized models come from a path the float corpus
never takes: a model is captured with torch.export, quantized with PT2E (prepare_pt2e,
calibration, convert_pt2e; the quantizer here is ExecuTorch's XNNPACKQuantizer), and the
resulting graph, full of quantize/dequantize ops, is exported again; on phones it is then
lowered with the XNNPACK partitioner rather than to the portable kernels.

Each model here is a model of another source (TorchVision, timm, Transformers), built by
that source, in one of three variants:

  <source>.<model>-pt2e           quantized; every exporter, ExecuTorch on portable kernels
  <source>.<model>-pt2e-xnnpack   quantized; ExecuTorch with the XNNPACK delegate only
  <source>.<model>-xnnpack        float;     ExecuTorch with the XNNPACK delegate only

The delegate variants run only `executorch`: the other exporters would repeat the
attempts of the quantized model or of the base model itself.

The graph is quantized from a capture with the base case's dynamic shapes when that
capture works, otherwise from a static one (and the quantized case then has no dynamic
dims); the definition says which. A model whose quantization fails is a `build` outcome
with the quantizer's error, which is a finding too.
"""
from __future__ import annotations

from .base import Case, ModelSpec
from .inputs import BuildError, check_eager

SOURCE = "quantized"

# The base models: small, from three families, each fast to quantize on a CPU.
BASES = (
    ("torchvision", "mobilenet_v3_small", "cnn"),
    ("torchvision", "resnet18", "cnn"),
    ("timm", "convnext_atto", "cnn"),
    ("timm", "vit_tiny_patch16_224", "vision transformer"),
    ("transformers", "gpt2", "decoder"),
    ("transformers", "roberta", "encoder"),
)
VARIANTS = {
    "pt2e": (True, None, None),  # quantized?, delegate, exporters (None: all)
    "pt2e-xnnpack": (True, "xnnpack", ("executorch",)),
    "xnnpack": (False, "xnnpack", ("executorch",)),
}


def list_models() -> list[ModelSpec]:
    return [ModelSpec(SOURCE, f"{source}.{model}-{variant}", family, VARIANTS[variant][2])
            for source, model, family in BASES for variant in VARIANTS]


def _parse(model_id: str) -> tuple[str, str, str]:
    for source, model, _ in BASES:
        for variant in VARIANTS:
            if model_id == f"{source}.{model}-{variant}":
                return source, model, variant
    raise BuildError(f"no quantized model named '{model_id}'; known: "
                     f"{', '.join(s.id for s in list_models())}")


def _quantize(base: Case) -> tuple[object, object, str]:
    """PT2E with XNNPACKQuantizer: (converted module, dynamic_shapes it keeps, capture kind)."""
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e import move_exported_model_to_eval
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    captures = ([("dynamic", base.dynamic_shapes)] if base.dynamic_shapes is not None else []) + [("static", None)]
    errors = []
    for kind, dynamic in captures:
        try:
            captured = torch.export.export(base.model, base.args, base.kwargs or None, dynamic_shapes=dynamic,
                                           strict=False).module()
        except Exception as exc:  # noqa: BLE001 - the static capture is the fallback
            errors.append(f"{kind} capture: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            continue
        quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config())
        try:
            prepared = prepare_pt2e(captured, quantizer)
            with torch.no_grad():
                prepared(*base.args, **base.kwargs)  # calibration
                if base.alt_args is not None and dynamic is not None:
                    prepared(*base.alt_args, **(base.alt_kwargs or {}))
            # An exported module has no .eval(); this is PT2E's own switch (dropout, batch norm).
            return move_exported_model_to_eval(convert_pt2e(prepared)), dynamic, kind
        except Exception as exc:
            raise BuildError(f"PT2E quantization ({kind} capture) fails: {type(exc).__name__}: {exc}") from exc
    raise BuildError("no capture to quantize: " + " | ".join(errors))


def build(model_id: str) -> Case:
    import torch

    from . import source as source_module

    base_source, base_id, variant = _parse(model_id)
    quantized, delegate, _ = VARIANTS[variant]
    torch.manual_seed(0)
    base = source_module(base_source).build(base_id)
    definition = {"source": SOURCE, "name": model_id, "variant": variant, "delegate": delegate,
                  "base": base.definition}
    config = getattr(base.model, "config", None)
    if getattr(config, "use_cache", False):
        # A decoder's cache object in the output stops every capture (the entry
        # cache-output-not-pytree); quantization recipes turn it off, and so does this one.
        config.use_cache = False
        definition["use_cache"] = False
    if not quantized:
        return Case(model=base.model, args=base.args, kwargs=base.kwargs, dynamic_shapes=base.dynamic_shapes,
                    alt_args=base.alt_args, alt_kwargs=base.alt_kwargs, delegate=delegate, definition=definition)
    model, dynamic, kind = _quantize(base)
    check_eager(model, base.args, base.kwargs, "example inputs, quantized")
    alt = dynamic is not None and base.alt_args is not None
    return Case(model=model, args=base.args, kwargs=base.kwargs, dynamic_shapes=dynamic,
                alt_args=base.alt_args if alt else None, alt_kwargs=base.alt_kwargs if alt else None,
                delegate=delegate, int8=True, float_model=base.model, definition={**definition, "quantizer": "XNNPACKQuantizer symmetric, static",
                                               "captured": kind})
