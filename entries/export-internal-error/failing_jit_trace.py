"""An internal error of the TorchScript tracer: a bare `unordered_map::at`.

A reversible block in the style of Reformer runs its layers inside a custom
`torch.autograd.Function` that receives the layers themselves as an argument. The
layers' weights are used inside the Function but are not among its tensor inputs, and
`torch.jit.trace` fails on the Function's output with a C++ lookup error that says
nothing about the model.
"""
import torch
from torch import nn


class ReversibleFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, layers):
        a, b = torch.chunk(hidden, 2, dim=-1)
        for layer in layers:
            a, b = b, a + layer(b)
        ctx.save_for_backward(a.detach(), b.detach())
        return torch.cat([a, b], dim=-1)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


class ReversibleBlock(nn.Module):
    def __init__(self, dim: int = 4, depth: int = 2):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

    def forward(self, hidden):  # (batch, 2 * dim)
        return ReversibleFunction.apply(hidden, self.layers)


model = ReversibleBlock().eval()
example_args = (torch.randn(2, 8),)


def main():
    # fails: RuntimeError: unordered_map::at
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
