"""When an exported program's output agrees with eager: the one tolerance rule.

Used in the project's venv (collectors.exporters) and inside other releases' venvs by
collectors/compat_worker.py, which runs by path with only the standard library and that
venv's torch: so this module imports nothing of the project, and torch only when called.
"""
from __future__ import annotations

RTOL = ATOL = 1e-3
# Randomly initialised deep networks (no trained weights, no normalising statistics)
# produce outputs up to 1e9 (inception_v3) or 1e4 (fcn_resnet101); float32 rounding in a
# different kernel or summation order then moves small elements of such an output by far
# more than ATOL, about 1e-6 of the output's largest value. The absolute tolerance
# therefore grows with that value: a program whose outputs differ by more than 1e-4 of
# the eager output's largest magnitude disagrees; one within rounding noise does not.
SCALED_ATOL = 1e-4
# A model quantized to int8 (PT2E) computes in integers and dequantizes its output with a
# scale of about max|output| / 127. An int8 kernel (XNNPACK, a fused Inductor kernel)
# that rounds an intermediate value the other way than the reference quantize/dequantize
# graph moves the output by a quantization step or two; that is the same result, while
# a wrong op or a lost scale is off by many steps.
INT8_STEPS = 2
# Two steps is not enough where quantization error compounds through many layers (a ViT's
# attention re-quantizes at every block): kernels that round differently at each layer
# drift apart by several steps at the output, and both are still right. The question an
# int8 program must answer is then the one quantization answers: is it as close to the
# float model it came from as the reference quantize/dequantize graph is? It is when its
# error against the float model, on average and at its largest element, is within these
# factors of the reference's own error (the reference is one rounding among several).
INT8_MEAN_SLACK = 1.1
INT8_MAX_SLACK = 1.5


def tolerance(expected, *, int8: bool = False) -> float:
    """The absolute tolerance for one output tensor: ATOL, or SCALED_ATOL of its largest finite magnitude.

    With `int8`, at least INT8_STEPS quantization steps of that magnitude (see above).

    `expected` is a torch tensor, or a numpy array where torch is absent (an onnxruntime
    installed on its own)."""
    if not hasattr(expected, "is_floating_point"):
        import numpy as np

        magnitude = np.abs(np.asarray(expected))
        if magnitude.dtype.kind not in "fc" or magnitude.size == 0:
            return ATOL
        finite = magnitude[np.isfinite(magnitude)]
        return _scaled(float(finite.max()), int8) if finite.size else ATOL
    import torch

    if not (expected.is_floating_point() or expected.is_complex()) or expected.numel() == 0:
        return ATOL
    magnitude = expected.detach().abs().float()
    finite = magnitude[torch.isfinite(magnitude)]
    return _scaled(finite.max().item(), int8) if finite.numel() else ATOL


def _scaled(largest: float, int8: bool) -> float:
    return max(ATOL, SCALED_ATOL * largest, INT8_STEPS * largest / 127 if int8 else 0.0)


def int8_drift(got, want, float_out) -> str | None:
    """None when the int8 output `got` is as close to the float model's output `float_out`
    as the reference quantized model's output `want` is (see INT8_MEAN_SLACK); else why
    not, in numbers. Torch tensors of one shape."""
    import torch

    got, want, float_out = (t.detach().double() for t in (got, want, float_out))
    mine, theirs = (got - float_out).abs(), (want - float_out).abs()
    if not (torch.isfinite(mine).all() and torch.isfinite(theirs).all()):
        return "a non-finite value where the float model has none"
    mean_ok = mine.mean().item() <= INT8_MEAN_SLACK * theirs.mean().item() + ATOL
    max_ok = mine.max().item() <= INT8_MAX_SLACK * theirs.max().item() + ATOL
    if mean_ok and max_ok:
        return None
    return (f"against the float model its error is {mine.mean().item():.4g} on average and {mine.max().item():.4g} "
            f"at most; the reference quantized model's is {theirs.mean().item():.4g} and {theirs.max().item():.4g}")
