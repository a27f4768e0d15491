"""torch.jit.script compiles the same model but leaves the autograd.Function as a Python call.

Scripting succeeds, and so does calling the scripted module in this process; saving it
fails with the same message, because a Python call cannot be serialized.
"""
import io

import torch
from torch import nn

MAX_SQRT_GRADIENT = 1000.0


class SqrtBoundDerivative(torch.autograd.Function):
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
    scripted = torch.jit.script(model)
    scripted(*example_args)  # runs: the Python call still works in this process
    torch.jit.save(scripted, io.BytesIO())


if __name__ == "__main__":
    main()
