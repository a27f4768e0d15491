"""Strict export (Dynamo) of the operator without a Meta or fake kernel.

Dynamo runs every call on fake tensors while it builds the graph; for an operator with
none of the kernels they can use it stops at a graph break, "Operator does not support
running with fake tensors" (gb0090), which in strict mode is an error.
"""
import torch
from torch import nn

lib = torch.library.Library("tinylib", "FRAGMENT")
lib.define("softclip(Tensor x, float limit) -> Tensor")


def softclip_cpu(x, limit):
    return limit * torch.tanh(x / limit)


lib.impl("softclip", softclip_cpu, "CPU")


class Clipped(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.ops.tinylib.softclip(self.proj(x), 3.0)


model = Clipped().eval()
example_args = (torch.randn(2, 16),)


def main():
    torch.export.export(model, example_args, strict=True)


if __name__ == "__main__":
    main()
