"""A torch.autograd.Function in forward cannot be saved in a TorchScript archive.

The gating layer below takes a square root whose gradient is clipped by a custom
`torch.autograd.Function`, the trick RecurrentGemma's RG-LRU uses to keep training
stable. `torch.jit.trace` records the call as an opaque Python operation that only works
inside this Python process; `torch.jit.save` then has no way to write it and fails.
"""
import io

import torch
from torch import nn

MAX_SQRT_GRADIENT = 1000.0


class SqrtBoundDerivative(torch.autograd.Function):
    """sqrt in the forward pass; a clipped gradient in the backward pass."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sqrt(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / torch.sqrt(torch.clip(4.0 * x, min=1 / MAX_SQRT_GRADIENT**2))


class GatedInput(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        a = torch.sigmoid(self.gate(x))
        return x * SqrtBoundDerivative.apply(1 - a * a)


model = GatedInput().eval()
example_args = (torch.randn(2, 8),)


def main():
    traced = torch.jit.trace(model, example_args)
    torch.jit.save(traced, io.BytesIO())


if __name__ == "__main__":
    main()
