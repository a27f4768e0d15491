"""Models built around custom operators, the way users add them: `torch.library`.

Users wrap what PyTorch cannot trace (NumPy code, a C++ kernel, a fused activation) in a
custom op, and reports show that each exporter then needs something more from the op: a
fake (meta) kernel for torch.export, a translation for ONNX, an out variant for
ExecuTorch, a C shim or the proxy executor for AOTInductor, the library loaded wherever
the artifact is loaded. The zoo, TorchVision and timm never define an op, so the corpus
met none of this. Each model here is a small network with one custom op in it, and the
models differ in how the op was registered: complete, without a fake kernel, through the
older `torch.library.Library` with only a CPU kernel, mutating a buffer, with a
data-dependent output size, with non-tensor arguments, several outputs, a fake kernel
that states the wrong shape, and a plain `torch.autograd.Function` for contrast.

The ops are defined when this module is imported, once per process (the pool imports
the sources before it forks, so every attempt sees the same registrations), in the
namespace `exportkb_corpus`.
"""
from __future__ import annotations

import hashlib
import inspect

import numpy as np
import torch

from .base import Case, ModelSpec
from .inputs import BuildError, batch_dim, check_eager, describe, describe_dynamic, dynamic_spec

SOURCE = "custom-ops"
NS = "exportkb_corpus"


# --- the ops -----------------------------------------------------------------------------

@torch.library.custom_op(f"{NS}::scaled_gelu", mutates_args=())
def scaled_gelu(x: torch.Tensor, scale: float) -> torch.Tensor:
    return torch.nn.functional.gelu(x) * scale


@scaled_gelu.register_fake
def _(x, scale):
    return torch.empty_like(x)


@torch.library.custom_op(f"{NS}::numpy_clip_rank", mutates_args=())
def numpy_clip_rank(x: torch.Tensor) -> torch.Tensor:
    # NumPy code no tracer can follow: the reason such ops exist.
    a = x.detach().cpu().numpy()
    ranks = np.argsort(np.argsort(a, axis=-1), axis=-1).astype(np.float32)
    return torch.from_numpy(ranks / max(a.shape[-1] - 1, 1)).to(x.device)


@numpy_clip_rank.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op(f"{NS}::no_fake_swish", mutates_args=())
def no_fake_swish(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x)


# The older way: a schema and a CPU kernel through torch.library.Library, nothing for Meta.
_LIB = torch.library.Library(NS, "FRAGMENT")
_LIB.define("legacy_softclip(Tensor x, float limit) -> Tensor")


def _legacy_softclip_cpu(x, limit):
    return limit * torch.tanh(x / limit)


_LIB.impl("legacy_softclip", _legacy_softclip_cpu, "CPU")


@torch.library.custom_op(f"{NS}::ema_update", mutates_args=("running",))
def ema_update(x: torch.Tensor, running: torch.Tensor, momentum: float) -> None:
    running.mul_(1 - momentum).add_(x.mean(dim=0) * momentum)


@ema_update.register_fake
def _(x, running, momentum):
    return None


@torch.library.custom_op(f"{NS}::keep_positive", mutates_args=())
def keep_positive(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]


@keep_positive.register_fake
def _(x):
    n = torch.library.get_ctx().new_dynamic_size()
    return x.new_empty(n)


@torch.library.custom_op(f"{NS}::group_norm_nd", mutates_args=())
def group_norm_nd(x: torch.Tensor, dims: list[int], eps: float, mode: str) -> torch.Tensor:
    centred = x - x.mean(dim=dims, keepdim=True)
    if mode == "center":
        return centred
    return centred / torch.sqrt(x.var(dim=dims, keepdim=True, unbiased=False) + eps)


@group_norm_nd.register_fake
def _(x, dims, eps, mode):
    return torch.empty_like(x)


@torch.library.custom_op(f"{NS}::split_sign", mutates_args=())
def split_sign(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x.clamp(min=0), x.clamp(max=0)


@split_sign.register_fake
def _(x):
    return torch.empty_like(x), torch.empty_like(x)


@torch.library.custom_op(f"{NS}::pool_rows", mutates_args=())
def pool_rows(x: torch.Tensor) -> torch.Tensor:
    return x.mean(dim=-1)


@pool_rows.register_fake
def _(x):
    return torch.empty_like(x)  # wrong: the real kernel drops the last dim


class _SoftSign(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs()) ** 2


# --- the models --------------------------------------------------------------------------

class _Net(torch.nn.Module):
    """Linear -> the op -> Linear, so the op sits between ordinary ATen ops."""

    def __init__(self, features: int = 16, out: int = 16):
        super().__init__()
        self.inp = torch.nn.Linear(8, features)
        self.out = torch.nn.Linear(out, 4)

    def op(self, h):
        raise NotImplementedError

    def forward(self, x):
        return self.out(self.op(self.inp(x)))


class ScaledGelu(_Net):
    def op(self, h):
        return torch.ops.exportkb_corpus.scaled_gelu(h, 1.5)


class NumpyRank(_Net):
    def op(self, h):
        return torch.ops.exportkb_corpus.numpy_clip_rank(h)


class NoFakeSwish(_Net):
    def op(self, h):
        return torch.ops.exportkb_corpus.no_fake_swish(h)


class LegacyCpuOnly(_Net):
    def op(self, h):
        return torch.ops.exportkb_corpus.legacy_softclip(h, 3.0)


class EmaBuffer(_Net):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(16))

    def op(self, h):
        # The output does not read the buffer, so eager and exported runs stay comparable
        # although every call moves it; the in-place update is what the exporters meet.
        torch.ops.exportkb_corpus.ema_update(h, self.running, 0.1)
        return h * 2


class KeepPositive(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(8, 16)

    def forward(self, x):
        kept = torch.ops.exportkb_corpus.keep_positive(self.inp(x).flatten())
        return kept.sum().reshape(1) + kept.numel()


class GroupNormNd(_Net):
    def op(self, h):
        return torch.ops.exportkb_corpus.group_norm_nd(h, [-1], 1e-5, "scale")


class SplitSign(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(8, 16)
        self.pos = torch.nn.Linear(16, 4)
        self.neg = torch.nn.Linear(16, 4)

    def forward(self, x):
        p, n = torch.ops.exportkb_corpus.split_sign(self.inp(x))
        return self.pos(p) + self.neg(n)


class LyingFake(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(8, 16)

    def forward(self, x):
        return torch.ops.exportkb_corpus.pool_rows(self.inp(x)) * 2


class AutogradFunction(_Net):
    def op(self, h):
        return _SoftSign.apply(h)


# id -> (class, family: how the op is registered)
MODELS = {
    "scaled-gelu": (ScaledGelu, "custom_op+fake"),
    "numpy-rank": (NumpyRank, "custom_op+fake"),
    "group-norm-nd": (GroupNormNd, "custom_op+fake"),
    "split-sign": (SplitSign, "custom_op+fake"),
    "ema-buffer": (EmaBuffer, "custom_op+fake, mutating"),
    "keep-positive": (KeepPositive, "custom_op+fake, data-dependent"),
    "no-fake-swish": (NoFakeSwish, "custom_op, no fake"),
    "lying-fake": (LyingFake, "custom_op, wrong fake"),
    "legacy-cpu-only": (LegacyCpuOnly, "Library, CPU kernel only"),
    "autograd-function": (AutogradFunction, "autograd.Function"),
}


def list_models() -> list[ModelSpec]:
    return [ModelSpec(SOURCE, model_id, family) for model_id, (_, family) in MODELS.items()]


def _code_hash() -> str:
    return hashlib.sha256(inspect.getsource(inspect.getmodule(_Net)).encode()).hexdigest()[:16]


def build(model_id: str) -> Case:
    if model_id not in MODELS:
        raise BuildError(f"no custom-op model named '{model_id}'; known: {', '.join(MODELS)}")
    cls, family = MODELS[model_id]
    torch.manual_seed(0)
    model = cls().eval()
    args, alt = (torch.randn(2, 8),), (torch.randn(3, 8),)
    check_eager(model, args, {})
    check_eager(model, alt, {}, "alternative inputs")
    dynamic = dynamic_spec(lambda: {"x": {0: batch_dim()}})
    return Case(
        model=model, args=args, kwargs={}, dynamic_shapes=dynamic, alt_args=alt, alt_kwargs={},
        definition={"source": SOURCE, "name": model_id, "class": cls.__name__, "registration": family,
                    "code_sha256": _code_hash(), "inputs": describe(args),
                    "dynamic_shapes": describe_dynamic(dynamic)},
    )
