"""Both branches are cheap and pure, so compute both and select with torch.where.

The trace then records ordinary tensor operations, and the selection still follows the
data at run time.
"""
import torch
from torch import nn


class GatedResidual(nn.Module):
    def __init__(self, dim: int = 8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        heavy = x + torch.tanh(self.proj(x))
        light = x * 0.5
        return torch.where(x.mean() > 0, heavy, light)


model = GatedResidual().eval()
example_args = (torch.randn(4, 8),)


def main():
    traced = torch.jit.trace(model, example_args)
    positive, negative = torch.randn(4, 8).abs() + 0.1, -torch.randn(4, 8).abs() - 0.1
    for x in (positive, negative):  # inputs that take each branch
        torch.testing.assert_close(traced(x), model(x))
    print("ok: the traced program follows the data into both branches and matches eager")


if __name__ == "__main__":
    main()
