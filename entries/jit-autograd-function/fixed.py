"""Call the autograd.Function only in eager mode; let TorchScript see the plain forward math.

`torch.jit.is_scripting()` and `torch.jit.is_tracing()` are True only while TorchScript
compiles or records the model. Under them the helper computes `torch.sqrt` directly,
which both the tracer and the compiler turn into an ordinary operator that can be saved.
Eager training still goes through the Function and its clipped gradient.
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


def sqrt_bound_derivative(x: torch.Tensor) -> torch.Tensor:
    if torch.jit.is_scripting() or torch.jit.is_tracing():
        return torch.sqrt(x)  # same forward value; TorchScript keeps this
    return SqrtBoundDerivative.apply(x)


class GatedInput(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        a = torch.sigmoid(self.gate(x))
        return x * sqrt_bound_derivative(1 - a * a)


model = GatedInput().eval()
example_args = (torch.randn(2, 8),)


def round_trip(module):
    buf = io.BytesIO()
    torch.jit.save(module, buf)
    buf.seek(0)
    return torch.jit.load(buf)


def main():
    traced = round_trip(torch.jit.trace(model, example_args))
    scripted = round_trip(torch.jit.script(model))
    x = torch.randn(3, 8)
    with torch.no_grad():
        torch.testing.assert_close(traced(x), model(x))
        torch.testing.assert_close(scripted(x), model(x))
    print("ok: traced and scripted programs save, load and match eager on a batch of 3")


if __name__ == "__main__":
    main()
