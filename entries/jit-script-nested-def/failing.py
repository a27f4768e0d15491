"""TorchScript cannot compile a function defined inside forward.

A helper written as a nested `def` (often a closure over self or over a local) is
ordinary Python, but the TorchScript compiler has no support for function definitions
inside a method it compiles.
"""
import torch
from torch import nn


class FeatureMixer(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        def gated(t):
            return t * torch.sigmoid(self.gate(t))

        return gated(x) + gated(x.flip(0))


model = FeatureMixer().eval()
example_args = (torch.randn(4, 8),)


def main():
    torch.jit.script(model)


if __name__ == "__main__":
    main()
