"""torch.sym_min and torch.sym_max, written for torch.export, refuse the tracer's tensor sizes.

These helpers take ints or symbolic ints, the sizes torch.export works with. Under
torch.jit.trace a size is a 0-d tensor, which they reject with an AssertionError.
"""
import torch
from torch import nn


class WindowedEncoder(nn.Module):
    def __init__(self, dim: int = 8, max_len: int = 100):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.max_len = max_len

    def forward(self, x):  # (batch, time, dim)
        length = torch.sym_min(x.size(1), self.max_len)
        return self.proj(x[:, :length]).mean(dim=1)


model = WindowedEncoder().eval()
example_args = (torch.randn(2, 12, 8),)


def main():
    torch.jit.trace(model, example_args)


if __name__ == "__main__":
    main()
